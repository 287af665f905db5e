/* exercise.c - the learner's copy of a @start file (exercise.h). */
#include "lesson/exercise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sched_text.h"
#include "lesson/lesson.h"
#include "store/store.h"

/* What store_write writes: the text read. */
typedef struct {
    const char *text;
    size_t len;
} Copy;

static int write_copy(FILE *f, void *ctx)
{
    const Copy *c = ctx;
    return fwrite(c->text, 1, c->len, f) != c->len;
}

/* The lesson's file at src, read whole into *text. */
static int read_start(const char *src, char **text, size_t *len, char *why,
                      size_t whylen)
{
    int missing = 0;
    CvError e = store_read(src, SCHED_TEXT_MAX_BYTES, text, len, &missing,
                           why, whylen);
    if (e && missing)
        snprintf(why, whylen, "the lesson's file %s does not exist", src);
    else if (e == CV_ERR_LIMIT)
        snprintf(why, whylen, "the lesson's file %s could not be read", src);
    return e ? -1 : 0;
}

int lesson_exercise(const char *dir, const char *name, char *path, size_t len,
                    bool *made, char *why, size_t whylen)
{
    char src[CV_WHY_LEN], plain[96], *text;
    size_t n;
    *made = false;
    if (!lesson_file_name_ok(name, strlen(name))) {
        snprintf(why, whylen, "'%s' is no file of the lessons' files/ "
                 "folder", name);
        return -1;
    }
    snprintf(plain, sizeof plain, "exercise-%s", name);
    snprintf(src, sizeof src, "%s/files/%s", dir, name);
    if (store_path(STORE_STATE, plain, path, len, why, whylen))
        return -1;
    if (!access(path, F_OK)) /* the learner's: never written over */
        return 0;
    if (read_start(src, &text, &n, why, whylen))
        return -1;
    Copy c = {text, n};
    CvError e = store_write(path, write_copy, &c, why, whylen);
    free(text);
    *made = !e;
    return e ? -1 : 0;
}
