/* library.c - finding lessons (library.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/grow.h"
#include "lesson/lesson.h"
#include "lesson/library.h"

static int is_dir(const char *p)
{
    struct stat st;
    return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* Whether dir holds lessons (an en/ folder); copies it to out. */
static int try_dir(const char *dir, char *out, size_t len)
{
    char en[4200];
    snprintf(en, sizeof en, "%s/en", dir);
    if (!is_dir(en))
        return 0;
    char real[PATH_MAX];
    snprintf(out, len, "%s", realpath(dir, real) ? real : dir);
    return 1;
}

CvError library_dir(char *out, size_t len, char *why, size_t whylen)
{
    const char *env = getenv("COLLVIZ_LESSONS");
    if (env && *env) {
        if (try_dir(env, out, len))
            return CV_OK;
        snprintf(why, whylen, "no lessons in %s (from COLLVIZ_LESSONS): it has "
                 "no en/ folder", env);
        return CV_ERR_IO;
    }
    char exe[4096], tree[4200], inst[4200];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    tree[0] = inst[0] = '\0';
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        snprintf(tree, sizeof tree, "%s/../lessons", exe);
        snprintf(inst, sizeof inst, "%s/../share/collviz/lessons", exe);
        if (try_dir(tree, out, len) || try_dir(inst, out, len))
            return CV_OK;
    }
    if (try_dir(COLLVIZ_LESSON_DIR, out, len))
        return CV_OK;
    snprintf(why, whylen, "no lessons found; looked in %s%s%s%s%s (set "
             "COLLVIZ_LESSONS to a folder with en/ and zh/ in it)",
             tree, *tree ? ", " : "", inst, *inst ? " and " : "",
             COLLVIZ_LESSON_DIR);
    return CV_ERR_IO;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const LessonEntry *)a)->name,
                  ((const LessonEntry *)b)->name);
}

CvError library_list(const char *dir, const char *lang, LessonEntry **out,
                     size_t *n, char *why, size_t whylen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, lang);
    *out = NULL, *n = 0;
    DIR *d = opendir(path);
    if (!d) {
        snprintf(why, whylen, "cannot read the lessons in %s: %s", path,
                 strerror(errno));
        return CV_ERR_IO;
    }
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        if (l < 5 || l - 4 >= sizeof (*out)->name || de->d_name[0] == '.' ||
            strcmp(de->d_name + l - 4, ".txt"))
            continue;
        LessonEntry *ne = grow_array(*out, &cap, *n + 1, sizeof *ne, 16);
        if (!ne) {
            closedir(d);
            snprintf(why, whylen, "%s", cv_strerror(CV_ERR_NOMEM));
            return CV_ERR_NOMEM;
        }
        *out = ne;
        LessonEntry *e = &(*out)[(*n)++];
        snprintf(e->name, sizeof e->name, "%.*s", (int)(l - 4), de->d_name);
        e->number = e->name[0] >= '0' && e->name[0] <= '9' ? atoi(e->name) : -1;
    }
    closedir(d);
    if (*n)
        qsort(*out, *n, sizeof **out, by_name);
    return CV_OK;
}

int library_find(const LessonEntry *e, size_t n, const char *key)
{
    char *end;
    long num = strtol(key, &end, 10);
    int is_num = *key >= '0' && *key <= '9' && !*end;
    for (size_t i = 0; i < n; i++) {
        const char *dash = strchr(e[i].name, '-');
        if ((is_num && e[i].number == num) || !strcmp(e[i].name, key) ||
            (dash && !strcmp(dash + 1, key)))
            return (int)i;
    }
    return -1;
}

CvError library_read(const char *path, char **buf, size_t *len, char *why,
                     size_t whylen)
{
    struct stat st;
    if (!*path) {
        snprintf(why, whylen, "an empty file name names no lesson file");
        return CV_ERR_IO;
    }
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; anything
       that is not a regular file is then refused by its fstat */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *f = NULL;
    *buf = NULL;
    int regular = fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode);
    if (!regular || !(f = fdopen(fd, "rb"))) {
        snprintf(why, whylen, "cannot read %s: %s", path,
                 fd >= 0 && !regular ? "not a regular file" : strerror(errno));
        if (fd >= 0)
            close(fd);
        return CV_ERR_IO;
    }
    if (st.st_size > (off_t)LESSON_MAX_BYTES) {
        fclose(f);
        snprintf(why, whylen, "%s is larger than %u bytes", path,
                 LESSON_MAX_BYTES);
        return CV_ERR_IO;
    }
    char *b = malloc((size_t)st.st_size + 1);
    size_t got = b ? fread(b, 1, (size_t)st.st_size, f) : 0;
    int err = !b || ferror(f);
    fclose(f);
    if (err) {
        free(b);
        snprintf(why, whylen, "cannot read %s: %s", path,
                 b ? "a read failed" : cv_strerror(CV_ERR_NOMEM));
        return CV_ERR_IO;
    }
    b[got] = '\0';
    *buf = b, *len = got;
    return CV_OK;
}
