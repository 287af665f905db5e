/* store.c - per-user files (see store.h). */
#define _GNU_SOURCE /* O_TMPFILE (Linux): files named only once complete */
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define STORE_TMP ".tmp." /* NAME.tmp.PID: a write in progress */
#define STORE_MAX_ASIDE 1000 /* NAME.bad, NAME.bad.1 .. NAME.bad.999 */

/* Each kind's XDG variable and its default under HOME. */
static const struct {
    const char *var;  /* the XDG variable */
    const char *home; /* the default under $HOME */
} kinds[STORE_COUNT] = {
    [STORE_CACHE] = {"XDG_CACHE_HOME", ".cache"},
    [STORE_STATE] = {"XDG_STATE_HOME", ".local/state"},
};

const char *store_ignored(StoreKind k)
{
    const char *v = k < STORE_COUNT ? getenv(kinds[k].var) : NULL;
    return v && *v && *v != '/' ? kinds[k].var : NULL;
}

CvError store_path(StoreKind k, const char *name, char *out, size_t len,
                   char *why, size_t whylen)
{
    if (k >= STORE_COUNT || !name || !*name || strchr(name, '/') ||
        !strcmp(name, ".") || !strcmp(name, "..")) {
        snprintf(why, whylen, "'%s' cannot be the name of a file of collviz's",
                 name ? name : "");
        return CV_ERR_ARG;
    }
    const char *xdg = getenv(kinds[k].var), *home = getenv("HOME");
    int n;
    if (xdg && *xdg == '/')
        n = snprintf(out, len, "%s/collviz/%s", xdg, name);
    else if (home && *home)
        n = snprintf(out, len, "%s/%s/collviz/%s", home, kinds[k].home, name);
    else {
        snprintf(why, whylen, "neither %s (as an absolute path) nor HOME is "
                 "set, so collviz has no directory for its files", kinds[k].var);
        return CV_ERR_IO;
    }
    if (n < 0 || (size_t)n >= len) {
        snprintf(why, whylen, "the path of collviz's file %s is too long", name);
        return CV_ERR_ARG;
    }
    return CV_OK;
}

/* mkdir -p of the directory part of path. */
static CvError make_dirs(const char *path, char *why, size_t whylen)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir) {
        snprintf(why, whylen, "the path %s is too long", path);
        return CV_ERR_ARG;
    }
    for (char *q = dir + 1; *q; q++) {
        if (*q != '/')
            continue;
        *q = '\0';
        if (mkdir(dir, 0755) && errno != EEXIST) {
            snprintf(why, whylen, "cannot create the directory %s: %s", dir,
                     strerror(errno));
            return CV_ERR_IO;
        }
        *q = '/';
    }
    return CV_OK;
}

/* Flush f to disk and close it; 0, or errno of the first failure. */
static int finish_file(FILE *f)
{
    int err = ferror(f) ? (errno ? errno : EIO) : 0;
    if (fflush(f) && !err)
        err = errno;
    if (fsync(fileno(f)) && !err)
        err = errno;
    if (fclose(f) && !err)
        err = errno;
    return err;
}

CvError store_begin(StoreTmp *t, const char *path, char *why, size_t whylen)
{
    int n = snprintf(t->path, sizeof t->path, "%s", path);
    t->f = NULL;
    if (n < 0 || (size_t)n >= sizeof t->path) {
        snprintf(why, whylen, "the path %s is too long", path);
        return CV_ERR_ARG;
    }
    snprintf(t->tmp, sizeof t->tmp, "%s" STORE_TMP "%ld", path, (long)getpid());
    t->unnamed = 0;
    int fd = -1;
    /* the folder: where an unnamed file is made, and what a failure
       names (the user can do something about it, not about a
       temporary file's name) */
    char dir[4096];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1,
             slash ? (slash == path ? "/" : path) : ".");
#ifdef O_TMPFILE
    /* an unnamed file in path's folder: named only once complete */
    fd = open(dir, O_WRONLY | O_TMPFILE | O_CLOEXEC, 0644);
    t->unnamed = fd >= 0; /* its mode 0644 less the umask, as a named one */
#endif
    /* O_EXCL: never through a link someone put at the temporary name */
    if (fd < 0) {
        remove(t->tmp);
        fd = open(t->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }
    if (fd < 0 || !(t->f = fdopen(fd, "w"))) {
        int err = errno;
        snprintf(why, whylen, "cannot write %s: cannot create a file in the "
                 "folder %s: %s", path, dir, strerror(err));
        if (fd >= 0) {
            close(fd);
            if (!t->unnamed)
                remove(t->tmp);
        }
        errno = err;
        return CV_ERR_IO;
    }
    return CV_OK;
}

/* Give t's unnamed file its temporary name (before the rename over the
 * path); 0 or errno. */
static int name_unnamed(StoreTmp *t)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fileno(t->f));
    remove(t->tmp);
    return linkat(AT_FDCWD, proc, AT_FDCWD, t->tmp, AT_SYMLINK_FOLLOW)
           ? errno : 0;
}

CvError store_commit(StoreTmp *t, char *why, size_t whylen)
{
    int err = 0;
    if (t->unnamed) { /* on disk first, then named, then closed */
        err = ferror(t->f) ? (errno ? errno : EIO) : 0;
        if (!err && fflush(t->f))
            err = errno;
        if (!err && fsync(fileno(t->f)))
            err = errno;
        if (!err)
            err = name_unnamed(t);
        if (fclose(t->f) && !err)
            err = errno;
    } else {
        err = finish_file(t->f);
    }
    t->f = NULL;
    if (!err && rename(t->tmp, t->path))
        err = errno;
    if (!err)
        return CV_OK;
    remove(t->tmp);
    snprintf(why, whylen, "cannot write %s: %s", t->path, strerror(err));
    errno = err;
    return CV_ERR_IO;
}

void store_abandon(StoreTmp *t)
{
    if (t->f)
        fclose(t->f);
    t->f = NULL;
    if (!t->unnamed) /* an unnamed file goes with its last descriptor */
        remove(t->tmp);
}

/* Write straight into path, which exists and is not a regular file (a
 * device, a FIFO, /dev/stdout): renaming over it would replace the device
 * by a file, and atomicity means nothing there. */
static CvError write_in_place(const char *path, StoreWriteFn fn, void *ctx,
                              char *why, size_t whylen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(why, whylen, "cannot write %s: %s", path, strerror(errno));
        return CV_ERR_IO;
    }
    errno = 0;
    int abandoned = fn(f, ctx);
    int err = finish_file(f);
    if (err == EINVAL || err == EROFS) /* fsync of a pipe or a tty */
        err = 0;
    if (abandoned || err) {
        snprintf(why, whylen, "cannot write %s: %s", path,
                 err ? strerror(err) : "its contents could not be written");
        return CV_ERR_IO;
    }
    return CV_OK;
}

CvError store_write(const char *path, StoreWriteFn fn, void *ctx, char *why,
                    size_t whylen)
{
    StoreTmp t;
    struct stat st;
    char real[4096];
    if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
        store_resolve(path, real, sizeof real);
        if (!strcmp(real, path)) /* no name to replace (/dev/stdout on a
                                    deleted file), or no target yet */
            return write_in_place(path, fn, ctx, why, whylen);
        path = real; /* the link stays; its target is replaced */
    }
    if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(why, whylen, "cannot write %s: it is a directory", path);
            return CV_ERR_IO;
        }
        return write_in_place(path, fn, ctx, why, whylen);
    }
    CvError e = make_dirs(path, why, whylen);
    if (!e)
        e = store_begin(&t, path, why, whylen);
    if (e)
        return e;
    errno = 0;
    if (fn(t.f, ctx)) {
        int err = ferror(t.f) && errno ? errno : 0;
        store_abandon(&t);
        if (err)
            snprintf(why, whylen, "cannot write %s: %s", path, strerror(err));
        else
            snprintf(why, whylen, "the contents of %s could not be written",
                     path);
        return CV_ERR_IO;
    }
    return store_commit(&t, why, whylen);
}

/* Whether path is one of the system's links to an open file:
 * /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N (by name: a
 * '/dev/..' or '/proc/self/cwd' is anything). */
static bool system_link(const char *path)
{
    if (!strcmp(path, "/dev/stdout") || !strcmp(path, "/dev/stderr"))
        return true;
    const char *n = !strncmp(path, "/dev/fd/", 8)        ? path + 8
                    : !strncmp(path, "/proc/self/fd/", 14) ? path + 14
                                                            : NULL;
    return n && *n && strspn(n, "0123456789") == strlen(n);
}

CvError store_export_check(const char *path, char *why, size_t whylen)
{
    struct stat st;
    if (lstat(path, &st) || !S_ISLNK(st.st_mode) || system_link(path))
        return CV_OK;
    snprintf(why, whylen, "%s is a symbolic link, and an export is never "
             "written through one: remove it or name another file", path);
    return CV_ERR_IO;
}

CvError store_open(const char *path, FILE **out, int *missing, char *why,
                   size_t whylen)
{
    struct stat st;
    *out = NULL;
    *missing = 0;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *missing = errno == ENOENT;
        snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
        return CV_ERR_IO;
    }
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "cannot read %s: it is not a regular file", path);
        close(fd);
        return CV_ERR_IO;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if (!(*out = fdopen(fd, "r"))) {
        snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
        close(fd);
        return CV_ERR_IO;
    }
    return CV_OK;
}

CvError store_read(const char *path, size_t most, char **text, size_t *len,
                   int *missing, char *why, size_t whylen)
{
    FILE *f;
    struct stat st;
    *text = NULL;
    *len = 0;
    CvError e = store_open(path, &f, missing, why, whylen);
    if (e)
        return e;
    /* room for what fstat says (a file may grow: one byte more tells) */
    size_t cap = !fstat(fileno(f), &st) && (size_t)st.st_size < most
                     ? (size_t)st.st_size + 2 : most + 2;
    char *t = malloc(cap);
    size_t n = 0, k = 1;
    while (t && k && n < most + 1) {
        if (n + 1 >= cap) {
            size_t c = cap * 2 < most + 2 ? cap * 2 : most + 2;
            char *u = realloc(t, c);
            if (!u) {
                free(t);
                t = NULL;
                break;
            }
            t = u, cap = c;
        }
        k = fread(t + n, 1, cap - 1 - n, f);
        n += k;
    }
    e = !t || ferror(f) ? CV_ERR_IO : n > most ? CV_ERR_LIMIT : CV_OK;
    fclose(f);
    if (e) {
        free(t);
        if (e == CV_ERR_IO)
            snprintf(why, whylen, "cannot read %s: %s", path,
                     t ? "a read failed" : cv_strerror(CV_ERR_NOMEM));
        return e;
    }
    t[n] = '\0';
    *text = t;
    *len = n;
    return CV_OK;
}

CvError store_set_aside(const char *path, char *aside, size_t len)
{
    char to[4200];
    struct stat st;
    /* the first of NAME.bad, NAME.bad.1, ... that is free: an older file
       set aside is kept, never replaced */
    for (int k = 0; k < STORE_MAX_ASIDE; k++) {
        if (k)
            snprintf(to, sizeof to, "%s.bad.%d", path, k);
        else
            snprintf(to, sizeof to, "%s.bad", path);
        if (!lstat(to, &st))
            continue;
        if (errno != ENOENT || rename(path, to))
            return CV_ERR_IO;
        if (aside && len)
            snprintf(aside, len, "%s", to);
        return CV_OK;
    }
    return CV_ERR_IO;
}

CvError store_lock(const char *path, int *fd, char *why, size_t whylen)
{
    char lock[4200];
    *fd = -1;
    CvError e = make_dirs(path, why, whylen);
    if (e)
        return e;
    snprintf(lock, sizeof lock, "%s.lock", path);
    int f = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (f < 0) {
        snprintf(why, whylen, "cannot lock %s: %s", path, strerror(errno));
        return CV_ERR_IO;
    }
    while (flock(f, LOCK_EX)) {
        if (errno == EINTR)
            continue;
        snprintf(why, whylen, "cannot lock %s: %s", path, strerror(errno));
        close(f);
        return CV_ERR_IO;
    }
    *fd = f;
    return CV_OK;
}

void store_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* closing the only descriptor releases the flock */
}

void store_resolve(const char *path, char *out, size_t len)
{
    struct stat st;
    char *real = NULL;
    if (!lstat(path, &st) && S_ISLNK(st.st_mode) &&
        (real = realpath(path, NULL)) && strlen(real) < len)
        snprintf(out, len, "%s", real);
    else
        snprintf(out, len, "%s", path);
    free(real);
}

/* Whether `name` is a temporary file (NAME.tmp.PID) of a process that has
 * ended. */
static int stale(const char *name)
{
    const char *t = strstr(name, STORE_TMP);
    if (!t || t == name)
        return 0;
    for (const char *more; (more = strstr(t + 1, STORE_TMP));)
        t = more; /* the last one: NAME itself may hold ".tmp." */
    const char *digits = t + strlen(STORE_TMP);
    if (!(*digits >= '1' && *digits <= '9'))
        return 0;
    char *end;
    errno = 0;
    long pid = strtol(digits, &end, 10);
    if (*end || errno || pid <= 0 || pid == (long)getpid() ||
        (long)(pid_t)pid != pid)
        return 0;
    return kill((pid_t)pid, 0) && errno == ESRCH;
}

void store_clean_stale(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return;
    *slash = '\0';
    DIR *d = opendir(dir[0] ? dir : "/");
    if (!d)
        return;
    for (struct dirent *de; (de = readdir(d));) {
        if (!stale(de->d_name))
            continue;
        char full[CV_WHY_LEN];
        snprintf(full, sizeof full, "%s/%s", dir, de->d_name);
        remove(full);
    }
    closedir(d);
}
