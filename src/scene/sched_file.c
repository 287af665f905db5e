/* sched_file.c - schedule files read for -a FILE (sched_file.h). */
#include "scene/sched_file.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

/* A file read: its algorithm, and what identifies its contents. */
typedef struct {
    AlgoFile *algo;
    uint64_t hash; /* FNV-1a of the text */
    size_t len;    /* bytes of the text */
} Loaded;

/* The files this process read, kept to its end (module state: the
 * algorithms outlive every scene that names them). */
static Loaded loaded[SCENE_MAX_FILES];
static size_t nloaded;

bool sched_file_named(const char *name)
{
    return name && (strchr(name, '/') || strchr(name, '.'));
}

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* The text of path into *text (malloc'd), *len bytes. */
static int read_text(const char *path, char **text, size_t *len, CliErr *e)
{
    int missing = 0;
    char why[CV_WHY_LEN];
    CvError err = store_read(path, SCHED_TEXT_MAX_BYTES, text, len, &missing,
                             why, sizeof why);
    if (err == CV_ERR_LIMIT)
        return cli_fail(e, "the schedule file %s is larger than %u MiB",
                        path, SCHED_TEXT_MAX_BYTES >> 20);
    if (err && missing)
        return cli_fail(e, "the schedule file %s does not exist", path);
    return err ? cli_fail(e, "the schedule file %s: %s", path, why) : 0;
}

int sched_file_load(const char *path, bool keep_wrong, const AlgoInfo **out,
                    CliErr *e)
{
    char *text;
    size_t len;
    if (read_text(path, &text, &len, e))
        return -1;
    uint64_t h = fnv1a(text, len);
    for (size_t i = nloaded; i-- > 0;)
        if (loaded[i].hash == h && loaded[i].len == len &&
            !strcmp(algo_file_info(loaded[i].algo)->name, path)) {
            free(text);
            *out = algo_file_info(loaded[i].algo);
            size_t k;
            const char *why;
            if (!keep_wrong && algo_file_wrong(*out, &k, &why))
                return cli_fail(e, "%s", why);
            return 0;
        }
    if (nloaded == SCENE_MAX_FILES) {
        free(text);
        return cli_fail(e, "collviz reads at most %d schedule files at a "
                        "time; %s is one more", SCENE_MAX_FILES, path);
    }
    AlgoFile *a;
    CvError err = algo_file_new(path, text, len, keep_wrong, &a, e->msg,
                                sizeof e->msg);
    free(text);
    if (err)
        return -1;
    loaded[nloaded++] = (Loaded){a, h, len};
    *out = algo_file_info(a);
    return 0;
}

size_t sched_file_loaded(const AlgoInfo **out, size_t most)
{
    size_t n = nloaded < most ? nloaded : most;
    for (size_t i = 0; i < n; i++)
        out[i] = algo_file_info(loaded[i].algo);
    return n;
}
