/* planted_fixture.h - a folder that holds planted copies of two libraries
 * the tests' fake driver needs (libdl.so.2 and librt.so.1, built from
 * tests/fake_cuda/planted.c: loaded, they leave a mark) and becomes the
 * current folder, with LD_LIBRARY_PATH naming the fake driver's folder and
 * an empty element: the folder an unpacked lesson pack could be. A run
 * from there must load neither (test_hostile_cli: -B cuda;
 * test_ui_learn: a lesson's @run). Header-only. */
#ifndef COLLVIZ_TEST_PLANTED_FIXTURE_H
#define COLLVIZ_TEST_PLANTED_FIXTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    char dir[64];         /* the planted folder, the current one */
    char mark[128];       /* the file a planted library writes */
    char here[PATH_MAX];  /* the current folder before */
    char *llp;            /* LD_LIBRARY_PATH before (malloc'd), or NULL */
} Planted;

/* false where the fake driver or the planted libraries are not built */
static inline bool planted_setup(Planted *p)
{
    static const char *const libs[] = {"libdl.so.2", "librt.so.1"};
    char src[PATH_MAX], dst[PATH_MAX];
    if (access(FAKE_CUDA_LIB, R_OK) || !getcwd(p->here, sizeof p->here))
        return false;
    snprintf(p->dir, sizeof p->dir, "/tmp/collviz-test-planted-XXXXXX");
    if (!mkdtemp(p->dir))
        return false;
    for (size_t i = 0; i < 2; i++) {
        snprintf(src, sizeof src, "%s/%s", PLANTED_DIR, libs[i]);
        snprintf(dst, sizeof dst, "%s/%s", p->dir, libs[i]);
        if (access(src, R_OK) || symlink(src, dst))
            return false;
    }
    snprintf(p->mark, sizeof p->mark, "%s/mark", p->dir);
    setenv("COLLVIZ_PLANTED_MARK", p->mark, 1);
    const char *old = getenv("LD_LIBRARY_PATH");
    p->llp = old ? strdup(old) : NULL;
    /* the fake driver's folder, then the empty element */
    snprintf(src, sizeof src, "%s", FAKE_CUDA_LIB);
    *strrchr(src, '/') = '\0';
    strcat(src, ":");
    setenv("LD_LIBRARY_PATH", src, 1);
    return !chdir(p->dir);
}

/* Whether a planted library was loaded since planted_setup. */
static inline bool planted_loaded(const Planted *p)
{
    return access(p->mark, F_OK) == 0;
}

static inline void planted_teardown(Planted *p)
{
    char path[PATH_MAX];
    if (chdir(p->here)) {
        /* the test's own folder went away: nothing to go back to */
    }
    if (p->llp)
        setenv("LD_LIBRARY_PATH", p->llp, 1);
    else
        unsetenv("LD_LIBRARY_PATH");
    free(p->llp);
    unsetenv("COLLVIZ_PLANTED_MARK");
    static const char *const names[] = {"libdl.so.2", "librt.so.1", "mark"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", p->dir, names[i]);
        unlink(path);
    }
    rmdir(p->dir);
}
#endif
