/* test_calib.c - the calibration module: where files go, save and load
 * round trips in a temporary XDG_CACHE_HOME, rejection of damaged files,
 * interpolation of the parameters, footprints, and a real (short)
 * measurement on the threads backend (predictions: test_predict.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "algos/algo.h"
#include "measure/calib.h"
#include "threads/copy.h"
#include "threads/plan.h"

/* ------------------------------------------------------------- fixtures */

/* The machine the tests' calibrations name (ExecHost.fingerprint). */
#define HOST "Test CPU x4"

/* A fresh temporary cache directory per test, in XDG_CACHE_HOME. */
typedef struct {
    char dir[256]; /* the temporary directory */
} TmpCache;

static int cache_setup(void **state)
{
    TmpCache *t = calloc(1, sizeof *t);
    snprintf(t->dir, sizeof t->dir, "/tmp/collviz-test-calib-XXXXXX");
    if (!t || !mkdtemp(t->dir))
        return -1;
    setenv("XDG_CACHE_HOME", t->dir, 1);
    *state = t;
    return 0;
}

static void remove_tree(const char *dir)
{
    char sub[512], path[1024];
    snprintf(sub, sizeof sub, "%s/collviz", dir);
    DIR *d = opendir(sub);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", sub, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(sub);
    rmdir(dir);
}

static int cache_teardown(void **state)
{
    TmpCache *t = *state;
    remove_tree(t->dir);
    free(t);
    return 0;
}

/* Files in the cache's collviz directory. */
static int files_in_cache(const TmpCache *t)
{
    char sub[512];
    snprintf(sub, sizeof sub, "%s/collviz", t->dir);
    DIR *d = opendir(sub);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* A calibration with distinct values in every field, each within the
 * plausibility rules (calib.h): no reduce rate above 3 times its copy
 * rate, no bandwidth above 7 times the median. */
static Calib sample(const char *backend, int p, int npoints, unsigned seed)
{
    Calib c = {.nranks = p, .cores = (int)(seed % 5), .when = 1700000000 + seed,
               .quick = (int)(seed & 1),
               .alpha = 1e-6 * (1 + seed % 7), .npoints = npoints,
               .alpha_msg = 1e-7 * (1 + seed % 11),
               .lat_step = 3e-6 * (1 + seed % 5), .lat_iter = 1e-7 * (seed % 3),
               .unsteady = seed % 4 ? 1 + 0.37 * seed : 0,
               .probe = {seed % 3 ? 0.9 + 0.11 * seed : 0, 1.3 * (seed % 5)},
               .probe_clean = {seed % 3 ? 4.5e-5 + 1e-7 * seed : 0,
                               8.8e-5 * (seed % 4)},
               .state_ratio = seed % 4 ? 1.05 + 0.01 * seed : 0,
               .state_clean = seed % 4 ? 4.4e-5 + 1e-7 * seed : 0,
               .state_probes = seed % 4 ? (int)(100 + seed) : 0,
               .machine = seed % 2 ? MACHINE_FULL : MACHINE_BUS,
               .fit_err = {0.5 + seed * 0.01, 0.03 * (seed % 5)},
               .medium = seed % 3 == 2 ? MACHINE_HOST : MACHINE_FULL,
               .cache = seed % 3 == 2 ? 1e6 : 0};
    c.fit_err[MACHINE_HOST] = seed % 3 == 2 ? 0.07 * seed : 0;
    snprintf(c.backend, sizeof c.backend, "%s", backend);
    snprintf(c.host, sizeof c.host, "%s", HOST);
    for (int i = 0; i < npoints; i++)
        c.pt[i] = (CalibPoint){
            .footprint = 1e5 * pow(3.0, i), .beta_shared = 1e-10 * (i + 1),
            .beta_p2p = 2e-10 / (1 + 0.2 * i),
            .gamma_shared = 2e-11 * (i + 1) * (1 + seed % 3),
            .gamma_p2p = 7e-11 * (1 + seed % 4) / (1 + 0.2 * i),
            .beta_cross = 4e-10 * (i + 2)};
    return c;
}

static void assert_close(double a, double b)
{
    if (fabs(a - b) > 1e-8 * fabs(b) + 1e-300)
        fail_msg("%.12g differs from %.12g", a, b);
}

static void assert_same(const Calib *a, const Calib *b)
{
    assert_string_equal(a->backend, b->backend);
    assert_string_equal(a->host, b->host);
    assert_int_equal(a->nranks, b->nranks);
    assert_int_equal(a->cores, b->cores);
    assert_int_equal(a->when, b->when);
    assert_int_equal(a->quick, b->quick);
    assert_int_equal(a->machine, b->machine);
    assert_int_equal(a->npoints, b->npoints);
    assert_close(a->alpha, b->alpha);
    assert_close(a->alpha_msg, b->alpha_msg);
    assert_close(a->lat_step, b->lat_step);
    assert_close(a->lat_iter, b->lat_iter);
    assert_close(a->unsteady, b->unsteady);
    assert_close(a->probe[0], b->probe[0]);
    assert_close(a->probe[1], b->probe[1]);
    assert_close(a->probe_clean[0], b->probe_clean[0]);
    assert_close(a->probe_clean[1], b->probe_clean[1]);
    assert_close(a->state_ratio, b->state_ratio);
    assert_close(a->state_clean, b->state_clean);
    assert_int_equal(a->state_probes, b->state_probes);
    for (int l = 0; l <= MACHINE_BUS; l++)
        assert_close(a->fit_err[l], b->fit_err[l]);
    assert_int_equal(a->medium == MACHINE_HOST, b->medium == MACHINE_HOST);
    assert_close(a->cache, b->cache);
    assert_close(a->fit_err[MACHINE_HOST], b->fit_err[MACHINE_HOST]);
    for (int i = 0; i < a->npoints; i++) {
        assert_close(a->pt[i].footprint, b->pt[i].footprint);
        assert_close(a->pt[i].beta_shared, b->pt[i].beta_shared);
        assert_close(a->pt[i].beta_p2p, b->pt[i].beta_p2p);
        assert_close(a->pt[i].gamma_shared, b->pt[i].gamma_shared);
        assert_close(a->pt[i].gamma_p2p, b->pt[i].gamma_p2p);
        assert_close(a->pt[i].beta_cross, b->pt[i].beta_cross);
    }
}

/* ---------------------------------------------------------------- paths */

/* File names: backend, the FNV-1a hash of the machine's fingerprint in
 * eight hex digits ("" 811c9dc5, "a" e40c292c), rank count. */
static void test_path_xdg(void **state)
{
    char path[512], want[512], why[256];
    assert_int_equal(calib_path("threads", "a", 8, path, sizeof path, why,
                                sizeof why), CV_OK);
    snprintf(want, sizeof want, "%s/collviz/calib-threads-e40c292c-p8.txt",
             ((TmpCache *)*state)->dir);
    assert_string_equal(path, want);
}

static void test_path_home(void **state)
{
    (void)state;
    char path[512], why[256], *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    /* An unset, empty or relative XDG_CACHE_HOME falls back to HOME. */
    const char *xdgs[] = {NULL, "", "relative/dir"};
    setenv("HOME", "/home/someone", 1);
    for (size_t i = 0; i < 3; i++) {
        if (xdgs[i])
            setenv("XDG_CACHE_HOME", xdgs[i], 1);
        else
            unsetenv("XDG_CACHE_HOME");
        assert_int_equal(calib_path("mpi", "", 3, path, sizeof path, why,
                                    sizeof why), CV_OK);
        assert_string_equal(path, "/home/someone/.cache/collviz/"
                                  "calib-mpi-811c9dc5-p3.txt");
    }
    unsetenv("HOME");
    assert_int_equal(calib_path("mpi", "", 3, path, sizeof path, why,
                                sizeof why), CV_ERR_IO);
    why[0] = '\0';
    assert_int_equal(calib_load("mpi", "", 3, &(Calib){0}, why, sizeof why),
                     CV_ERR_IO);
    assert_non_null(strstr(why, "HOME"));
    setenv("HOME", "/h", 1);
    assert_int_equal(calib_path("threads", "", 1, path, 10, why, sizeof why),
                     CV_ERR_ARG);
    if (home)
        setenv("HOME", home, 1);
    free(home);
}

/* ------------------------------------------------------------ round trip */

static void test_roundtrip(void **state)
{
    static const int ranks[] = {1, 2, 3, 8, 64, 1024};
    unsigned seed = 0;
    char why[512] = "";
    for (size_t r = 0; r < sizeof ranks / sizeof ranks[0]; r++)
        for (int np = 1; np <= CALIB_MAX_POINTS; np += 3) {
            Calib c = sample(r % 2 ? "threads" : "cuda", ranks[r], np, seed++), got;
            assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
            memset(&got, 0x5a, sizeof got);
            assert_int_equal(calib_load(c.backend, HOST, c.nranks, &got, why,
                                        sizeof why), CV_OK);
            assert_same(&got, &c);
        }
    /* One file per (backend, ranks) pair, no temporary left behind. */
    assert_int_equal(files_in_cache(*state), 6);
    /* Another rank count or backend has no calibration: nothing to say. */
    Calib got;
    assert_int_equal(calib_load("threads", HOST, 5, &got, why, sizeof why),
                     CV_ERR_IO);
    assert_string_equal(why, "");
    assert_int_equal(calib_load("mpi", HOST, 8, &got, why, sizeof why),
                     CV_ERR_IO);
    assert_string_equal(why, "");
}

static void test_overwrite(void **state)
{
    Calib a = sample("threads", 4, 5, 1), b = sample("threads", 4, 2, 2), got;
    char why[512];
    assert_int_equal(calib_save(&a, why, sizeof why), CV_OK);
    assert_int_equal(calib_save(&b, why, sizeof why), CV_OK);
    assert_int_equal(calib_load("threads", HOST, 4, &got, why, sizeof why), CV_OK);
    assert_same(&got, &b);
    assert_int_equal(files_in_cache(*state), 1);
}

/* The whole text of the file at path. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *s = calloc(1, 65536);
    assert_non_null(s);
    size_t n = fread(s, 1, 65535, f);
    s[n] = '\0';
    fclose(f);
    return s;
}

/* Calibrations are kept per machine: two machines sharing the cache (a
 * home directory on NFS) have a file each, each loads its own, a third
 * has none; the file records its machine, and a file whose machine is
 * not the one asked for is not taken for its calibration. */
static void test_fingerprints(void **state)
{
    static const char *const hosts[] = {"AMD EPYC x2", "AMD EPYC x4",
                                        "Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz x2"};
    char why[512], path[512];
    for (unsigned i = 0; i < 3; i++) {
        Calib c = sample("threads", 8, 3, i);
        snprintf(c.host, sizeof c.host, "%s", hosts[i]);
        assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
    }
    assert_int_equal(files_in_cache(*state), 3);
    for (unsigned i = 0; i < 3; i++) {
        Calib want = sample("threads", 8, 3, i), got;
        snprintf(want.host, sizeof want.host, "%s", hosts[i]);
        assert_int_equal(calib_load("threads", hosts[i], 8, &got, why,
                                    sizeof why), CV_OK);
        assert_same(&got, &want);
        assert_string_equal(got.host, hosts[i]);
        assert_int_equal(calib_path("threads", hosts[i], 8, path, sizeof path,
                                    why, sizeof why), CV_OK);
        char *text = slurp(path), line[256];
        snprintf(line, sizeof line, "\nhost %s\n", hosts[i]);
        assert_non_null(strstr(text, line));
        free(text);
    }
    why[0] = 'x';
    assert_int_equal(calib_load("threads", "AMD EPYC x8", 8, &(Calib){0}, why,
                                sizeof why), CV_ERR_IO);
    assert_string_equal(why, "");
    /* hosts[0]'s file, copied to where hosts[1]'s is kept */
    char from[512], to[512];
    assert_int_equal(calib_path("threads", hosts[0], 8, from, sizeof from, why,
                                sizeof why), CV_OK);
    assert_int_equal(calib_path("threads", hosts[1], 8, to, sizeof to, why,
                                sizeof why), CV_OK);
    assert_int_equal(rename(from, to), 0);
    assert_int_equal(calib_load("threads", hosts[1], 8, &(Calib){0}, why,
                                sizeof why), CV_ERR_ARG);
    assert_non_null(strstr(why, "was measured on another machine (AMD EPYC x2)"));
}

/* The file of collviz before it named machines (version 3,
 * calib-BACKEND-pRANKS.txt) is never read: it may be another machine's.
 * Loading says that there is an older file, leaves it as it is, and once
 * this machine's calibration is saved, loads that. A version 3 file where
 * this format's would be is older too, a version 5 one newer; neither is
 * set aside (they are not damaged). */
static void test_older_file(void **state)
{
    TmpCache *t = *state;
    char old[512], why[512], path[512];
    const char *v3 = "version 3\nbackend threads\nnranks 4\ncores 2\nalpha 2e-6\n"
                     "link p2p\npoint 1e6 1e-10 2e-10 0 0 3e-10\n";
    snprintf(old, sizeof old, "%s/collviz", t->dir);
    mkdir(old, 0755);
    snprintf(old, sizeof old, "%s/collviz/calib-threads-p4.txt", t->dir);
    FILE *f = fopen(old, "w");
    assert_non_null(f);
    fputs(v3, f);
    fclose(f);
    Calib got;
    assert_int_equal(calib_load("threads", HOST, 4, &got, why, sizeof why),
                     CV_ERR_ARG);
    char want[700];
    snprintf(want, sizeof want, "the calibration in %s was saved by an older "
             "collviz", old);
    assert_string_equal(why, want);
    assert_int_equal(access(old, F_OK), 0);
    /* other rank counts and backends are not its */
    assert_int_equal(calib_load("threads", HOST, 8, &got, why, sizeof why),
                     CV_ERR_IO);
    assert_int_equal(calib_load("cuda", HOST, 4, &got, why, sizeof why),
                     CV_ERR_IO);
    Calib c = sample("threads", 4, 2, 3);
    assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
    assert_int_equal(calib_load("threads", HOST, 4, &got, why, sizeof why), CV_OK);
    assert_same(&got, &c);
    /* older and newer formats where this machine's file is */
    assert_int_equal(calib_path("threads", HOST, 4, path, sizeof path, why,
                                sizeof why), CV_OK);
    static const struct { const char *text, *says; } formats[] = {
        {"version 3\nbackend threads\nhost " HOST "\nnranks 4\nalpha 2e-6\n"
         "point 1e6 1e-10 2e-10 0 0 3e-10\n", "was saved by an older collviz"},
        {"version 8\nbackend threads\nhost " HOST "\nnranks 4\nalpha 2e-6\n"
         "point 1e6 1e-10 2e-10 0 0 3e-10\n", "was saved by a newer collviz"},
    };
    for (size_t i = 0; i < 2; i++) {
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(formats[i].text, f);
        fclose(f);
        assert_int_equal(calib_load("threads", HOST, 4, &got, why, sizeof why),
                         CV_ERR_ARG);
        assert_non_null(strstr(why, formats[i].says));
        assert_non_null(strstr(why, path));
        assert_int_equal(access(path, F_OK), 0);
    }
    /* calib_read reads version 3 files whatever their machine */
    int version = 0;
    assert_int_equal(calib_read(old, &got, &version, why, sizeof why), CV_OK);
    assert_int_equal(version, 3);
    assert_int_equal(got.nranks, 4);
    assert_close(got.alpha, 2e-6);
    assert_string_equal(got.host, "");
    unlink(old);
}

/* Write `text` as the calibration file of threads at 4 ranks. */
static void write_file(const char *text)
{
    char path[512], why[512];
    assert_int_equal(calib_path("threads", HOST, 4, path, sizeof path, why,
                                sizeof why), CV_OK);
    Calib c = sample("threads", 4, 1, 0);
    assert_int_equal(calib_save(&c, why, sizeof why), CV_OK); /* the directories */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* "version 4\nbackend threads\nhost HOST\nnranks 4\n" and the rest. */
#define V4 "version 4\nbackend threads\nhost " HOST "\nnranks 4\n"

static void test_damaged(void **state)
{
    TmpCache *t = *state;
    static const char *const bad[] = {
        "",                                                  /* empty */
        V4 "alpha 1e-6\n",                                   /* no points */
        /* the formats before the cross bandwidth and the step latency */
        "version 1\nbackend threads\nnranks 4\nalpha 1e-6\npoint 1 1 1 1 1 1\n",
        "version 2\nbackend threads\nnranks 4\nalpha 1e-6\npoint 1 1 1 1 1 1\n",
        "backend threads\nhost " HOST "\nnranks 4\nalpha 1e-6\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\npoint 1 1 1 1 1\n",
        "version 4\nhost " HOST "\nnranks 4\nalpha 1e-6\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\npoint 1 1 1\n",
        V4 "alpha -1\npoint 1 1 1 1 1 1\n",
        V4 "alpha nan\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\npoint 1 0 1 1 1 1\n",
        V4 "alpha 1e-6\npoint 1 1 1 -1 1 1\n",
        V4 "alpha 1e-6\npoint 1 1 1 1 1 -1\n",
        V4 "alpha 1e-6\nlink ring\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\npoint 9 1 1 1 1 1\npoint 2 1 1 1 1 1\n",
        V4 "alpha 1e-6\npoint 1 1 1 1 1 1\ngarbage\n",
        V4 "cores -2\nalpha 1e-6\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nlat -1 0\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nlat 1e-6 nan\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nlat 1e-6\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nmsg -1\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nmsg nan\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nmsg\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nunsteady -2\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nunsteady inf\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nunsteady\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nprobe -1 1\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nprobe 1 nan\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nprobe 1\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nprobe 1 1 4e-5\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nprobe 1 1 4e-5 -1\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nprobe 1 1 nan 4e-5\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nprobe 1 1 4e-5 4e-5 9\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nstate -1 4e-5 9\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nstate 1 inf 9\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nstate 1 4e-5 -3\npoint 1 1 1 1 1 1\n",
        V4 "alpha 1e-6\nstate 1 4e-5\npoint 1 1 1 1 1 1\n",
    };
    Calib got;
    char why[1024], path[512], aside[600];
    assert_int_equal(calib_path("threads", HOST, 4, path, sizeof path, why,
                                sizeof why), CV_OK);
    snprintf(aside, sizeof aside, "%s.bad", path);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(bad[i]);
        if (calib_load("threads", HOST, 4, &got, why, sizeof why) != CV_ERR_ARG ||
            !strstr(why, "could not be read: ") ||
            !strstr(why, "; it is kept as ") ||
            !strstr(why, aside))
            fail_msg("damaged file %zu was accepted (%s):\n%s", i, why, bad[i]);
        /* set aside: the next write starts clean */
        if (access(path, F_OK) == 0 || access(aside, F_OK))
            fail_msg("damaged file %zu was not set aside", i);
    }
    /* a file of another backend or rank count where this one's is kept */
    static const char *const other[] = {
        "version 4\nbackend cuda\nhost " HOST "\nnranks 4\nalpha 1e-6\n"
        "point 1e6 1e-10 2e-10 0 0 3e-10\n",
        "version 4\nbackend threads\nhost " HOST "\nnranks 5\nalpha 1e-6\n"
        "point 1e6 1e-10 2e-10 0 0 3e-10\n",
    };
    for (size_t i = 0; i < 2; i++) {
        write_file(other[i]);
        assert_int_equal(calib_load("threads", HOST, 4, &got, why, sizeof why),
                         CV_ERR_ARG);
        assert_non_null(strstr(why, i ? "is of threads at 5 ranks"
                                      : "is of cuda at 4 ranks"));
    }
    write_file(V4 "alpha 2e-6\nlink p2p\npoint 1e6 1e-10 2e-10 2e-11 4e-11 3e-10\n");
    assert_int_equal(calib_load("threads", HOST, 4, &got, why, sizeof why), CV_OK);
    assert_int_equal(got.machine, MACHINE_FULL);
    assert_close(got.alpha, 2e-6);
    assert_close(got.alpha_msg, 2e-6); /* not measured: alpha per message */
    assert_true(got.lat_step == 0 && got.lat_iter == 0); /* not measured */
    assert_true(got.unsteady == 0);                      /* not known */
    assert_true(got.probe[0] == 0 && got.probe[1] == 0); /* not probed */
    assert_true(got.probe_clean[0] == 0 && got.probe_clean[1] == 0);
    assert_int_equal(got.state_probes, 0);
    /* saved before the clean times were: the ratios alone */
    write_file(V4 "alpha 2e-6\nprobe 1.1 1.2\npoint 1e6 1e-10 2e-10 2e-11 4e-11 3e-10\n");
    assert_int_equal(calib_load("threads", HOST, 4, &got, why, sizeof why), CV_OK);
    assert_close(got.probe[0], 1.1);
    assert_close(got.probe[1], 1.2);
    assert_true(got.probe_clean[0] == 0 && got.probe_clean[1] == 0);
    (void)t;
}

/* calib_spread: the largest over the smallest, whatever the order; 0 for
 * no values or a failed (non-positive, NaN) timing among them. */
static void test_spread(void **state)
{
    (void)state;
    static const struct {
        double v[4];
        int n;
        double want;
    } cases[] = {
        {{2e-4, 1e-4, 11e-4}, 3, 11},  {{11e-4, 2e-4, 1e-4}, 3, 11},
        {{1e-4, 11e-4, 2e-4}, 3, 11},  {{3e-5, 3e-5, 3e-5}, 3, 1},
        {{5e-3}, 1, 1},                {{4, 1, 2, 8}, 4, 8},
        {{1e-4, 2e-4}, 2, 2},          {{1e-4, 0, 2e-4}, 3, 0},
        {{1e-4, -1e-4, 2e-4}, 3, 0},   {{1e-4, NAN, 2e-4}, 3, 0},
        {{1e-4}, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double got = calib_spread(cases[i].v, cases[i].n);
        if (fabs(got - cases[i].want) > 1e-12 * cases[i].want)
            fail_msg("case %zu: %.15g, want %.15g", i, got, cases[i].want);
    }
}

static void test_unwritable(void **state)
{
    TmpCache *t = *state;
    char file[512];
    /* The cache directory's place is taken by a plain file. */
    snprintf(file, sizeof file, "%s/collviz", t->dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    Calib c = sample("threads", 2, 3, 0);
    char why[1024] = "";
    assert_int_equal(calib_save(&c, why, sizeof why), CV_ERR_IO);
    if (!strstr(why, "cannot write ") || !strstr(why, t->dir))
        fail_msg("why: '%s'", why);
    unlink(file);
}

/* ------------------------------------------------------------ the model */

/* calib_smooth: each gamma curve becomes the closest non-decreasing one
 * (least squares), every point count and both curves; rising curves stay
 * as they are; other fields are untouched. */
/* ------------------------------------------------------------ plausible */

/* s/B of a rate in GB/s. */
static double spb(double gbps) { return 1e-9 / gbps; }

/* A calibration measured by hand: alpha 1 us, step latency 2 us; at 1 MB
 * copies of 20 GB/s (shared and pair) and reduces of 40 GB/s (twice the
 * copy: plausible); at 8 MB copies of 18 GB/s, reduces of 30 and 36. */
static Calib by_hand(void)
{
    Calib c = {.nranks = 2, .alpha = 1e-6, .alpha_msg = 1e-6,
               .lat_step = 2e-6, .lat_iter = 1e-7, .npoints = 2,
               .machine = MACHINE_BUS, .fit_err = {1.2, 0.1}};
    snprintf(c.backend, sizeof c.backend, "threads");
    snprintf(c.host, sizeof c.host, HOST);
    c.pt[0] = (CalibPoint){.footprint = 1e6, .beta_shared = spb(20),
                           .beta_p2p = spb(20), .gamma_shared = spb(40),
                           .gamma_p2p = spb(40)};
    c.pt[1] = (CalibPoint){.footprint = 8e6, .beta_shared = spb(18),
                           .beta_p2p = spb(18), .gamma_shared = spb(30),
                           .gamma_p2p = spb(36)};
    return c;
}

/* Write text over the file at path (its directory made by a save). */
static void write_file_at(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void assert_says(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("'%s' does not say '%s'", text, part);
}

/* A reduce of 1800 GB/s against copies of 20 at 1 MB is refused (more
 * than 8 times the copy: 90); the 8 MB reduce rate, 30 GB/s, stands in
 * (it is under 8 x 20 = 160 there), marked derived; nothing else moves.
 * At the largest working set, where no larger one can stand in, 1000
 * GB/s against 18 becomes the rule's limit, 8 x 18 = 144 GB/s. */
static void test_rule_reduce(void **state)
{
    (void)state;
    Calib c = by_hand(), was;
    CalibRefusal r[4];
    char text[1024];
    assert_int_equal(calib_check(&c, r, 4), 0);
    c.pt[0].gamma_shared = spb(1800);
    was = c;
    assert_int_equal(calib_check(&c, r, 4), 1);
    assert_int_equal(r[0].what, CALIB_VAL_REDUCE);
    assert_int_equal(r[0].point, 0);
    assert_int_equal(r[0].rule, CALIB_RULE_REDUCE);
    assert_int_equal(calib_amend(&c, NULL, 0), 1);
    assert_close(c.pt[0].gamma_shared, spb(30));
    assert_int_equal(c.pt_derived[0], 1u << CALIB_VAL_REDUCE);
    assert_int_equal(c.pt_derived[1], 0);
    assert_close(c.pt[0].beta_shared, was.pt[0].beta_shared);
    assert_close(c.pt[0].gamma_p2p, was.pt[0].gamma_p2p);
    assert_close(c.pt[1].gamma_shared, was.pt[1].gamma_shared);
    calib_refusal_text(&c.refused[0], text, sizeof text);
    assert_says(text, "the reduce rate at a working set of 1 MB measured "
                      "1800.00 GB/s, 90 times the copy rate of that working "
                      "set (20.00 GB/s)");
    assert_says(text, "at most 8 times");
    assert_says(text, "saved instead: 30.00 GB/s, the rate measured at 8 MB");
    assert_int_equal(calib_check(&c, r, 4), 0);

    /* the largest point: the limit; measured twice: both said */
    c = by_hand();
    c.pt[1].gamma_p2p = spb(1000);
    CalibRefusal first = {.what = CALIB_VAL_PAIR_REDUCE, .point = 1,
                          .measured = spb(1200)};
    assert_int_equal(calib_amend(&c, &first, 1), 1);
    assert_close(c.pt[1].gamma_p2p, spb(8 * 18));
    assert_int_equal(c.pt_derived[1], 1u << CALIB_VAL_PAIR_REDUCE);
    calib_refusal_text(&c.refused[0], text, sizeof text);
    assert_says(text, "the pair reduce rate at a working set of 8 MB measured "
                      "1200.00 GB/s, and 1000.00 GB/s when measured again, "
                      "55.6 times the copy rate");
    assert_says(text, "saved instead: 144.00 GB/s, the most the rule allows");

    /* a reduce no slower than its copy: an infinite rate */
    c = by_hand();
    c.pt[0].gamma_p2p = 0;
    assert_int_equal(calib_check(&c, r, 4), 1);
    assert_int_equal(r[0].what, CALIB_VAL_PAIR_REDUCE);
    /* 8 times the copy exactly is allowed */
    c = by_hand();
    c.pt[0].gamma_shared = spb(160);
    assert_int_equal(calib_check(&c, r, 4), 0);
}

/* A point-to-point bandwidth of 5000 GB/s among copies of 16-25 GB/s:
 * the median of the six copy rates (16 18 20 22 25 5000) is 21 GB/s, and
 * 5000 is 238 times that, above 16. The 32 MB rate of the same kind, 16
 * GB/s, stands in. */
static void test_rule_bandwidth(void **state)
{
    (void)state;
    Calib c = by_hand();
    CalibRefusal r[4];
    char text[1024];
    c.npoints = 3;
    c.pt[0].beta_shared = spb(25), c.pt[0].beta_p2p = spb(22);
    c.pt[1].beta_shared = spb(20), c.pt[1].beta_p2p = spb(5000);
    c.pt[2] = (CalibPoint){.footprint = 32e6, .beta_shared = spb(18),
                           .beta_p2p = spb(16), .gamma_shared = spb(30),
                           .gamma_p2p = spb(30)};
    assert_int_equal(calib_check(&c, r, 4), 1);
    assert_int_equal(r[0].what, CALIB_VAL_P2P);
    assert_int_equal(r[0].point, 1);
    assert_int_equal(r[0].rule, CALIB_RULE_BANDWIDTH);
    assert_close(r[0].ref, spb(21));
    assert_int_equal(calib_amend(&c, NULL, 0), 1);
    assert_close(c.pt[1].beta_p2p, spb(16));
    assert_int_equal(c.pt_derived[1], 1u << CALIB_VAL_P2P);
    calib_refusal_text(&c.refused[0], text, sizeof text);
    assert_says(text, "the point-to-point bandwidth at a working set of 8 MB "
                      "measured 5000.00 GB/s, 238 times the median copy rate "
                      "of this calibration (21.00 GB/s)");
    assert_says(text, "not more than 16 times");
    assert_says(text, "saved instead: 16.00 GB/s, the rate measured at 32 MB");
    /* 16 times the median is allowed: 16 x 21 = 336 GB/s */
    c.pt[1].beta_p2p = spb(336);
    assert_int_equal(calib_check(&c, r, 4), 0);
}

/* Times: alpha 0 has no stand-in (the calibration is not to be saved); a
 * negative step latency becomes 0 (alpha stands in), a message's time
 * that is not finite a whole alpha, each marked derived. */
static void test_rule_times(void **state)
{
    (void)state;
    Calib c = by_hand();
    char text[1024];
    c.lat_step = -3e-7, c.alpha_msg = NAN;
    assert_int_equal(calib_amend(&c, NULL, 0), 2);
    assert_true(c.lat_step == 0);
    assert_close(c.alpha_msg, 1e-6);
    assert_int_equal(c.derived, (1u << CALIB_VAL_MSG) | (1u << CALIB_VAL_LAT_STEP));
    for (int i = 0; i < 2; i++) {
        calib_refusal_text(&c.refused[i], text, sizeof text);
        assert_says(text, c.refused[i].what == CALIB_VAL_LAT_STEP
                              ? "the step latency measured -0.3 us, which is "
                                "not a positive finite time; saved instead: "
                                "nothing, alpha stands in"
                              : "saved instead: a whole alpha");
    }
    c = by_hand();
    c.alpha = 0;
    assert_int_equal(calib_amend(&c, NULL, 0), -1);
    calib_refusal_text(&c.refused[0], text, sizeof text);
    assert_says(text, "alpha measured 0 us, which is not a positive finite "
                      "time; nothing stands in for it");
    /* a poor fit: the worst error of the machine it fits above 50% */
    c = by_hand();
    assert_false(calib_poor_fit(&c)); /* bus: 10% */
    c.fit_err[MACHINE_BUS] = 0.5;
    assert_false(calib_poor_fit(&c));
    c.fit_err[MACHINE_BUS] = 0.86;
    assert_true(calib_poor_fit(&c));
}

/* No file holds a value that breaks a rule: calib_save refuses one, and a
 * file written by hand with a reduce of 1800 GB/s against copies of 20
 * at 1 MB is not used: one sentence, and it is set aside. What a rule
 * replaced reads back marked derived. */
static void test_rule_files(void **state)
{
    (void)state;
    char why[2048], path[512], aside[600];
    Calib c = by_hand(), got;
    assert_int_equal(calib_path("threads", HOST, 2, path, sizeof path, why,
                                sizeof why), CV_OK);
    snprintf(aside, sizeof aside, "%s.bad", path);
    c.pt[0].gamma_shared = spb(1800);
    assert_int_equal(calib_save(&c, why, sizeof why), CV_ERR_ARG);
    assert_says(why, "the reduce rate at a working set of 1 MB measured "
                     "1800.00 GB/s");
    assert_int_not_equal(access(path, F_OK), 0);
    Calib fine = by_hand(); /* makes the directories */
    assert_int_equal(calib_save(&fine, why, sizeof why), CV_OK);
    write_file_at(path, "version 5\nbackend threads\nhost " HOST "\nnranks 2\n"
                  "alpha 1e-6\nlink bus\n"
                  "point 1e6 5e-11 5e-11 5.5555556e-13 2.5e-11 0\n"
                  "point 8e6 5.5555556e-11 5.5555556e-11 3.3333333e-11 "
                  "2.7777778e-11 0\n");
    assert_int_equal(calib_load("threads", HOST, 2, &got, why, sizeof why),
                     CV_ERR_ARG);
    assert_says(why, "is not believable: the reduce rate at a working set of "
                     "1 MB measured 1800.00 GB/s, 90 times the copy rate");
    assert_says(why, "; it is kept as ");
    assert_says(why, aside);
    assert_int_not_equal(access(path, F_OK), 0);
    /* amended, it saves, and loads marked derived */
    assert_int_equal(calib_amend(&c, NULL, 0), 1);
    assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
    assert_int_equal(calib_load("threads", HOST, 2, &got, why, sizeof why),
                     CV_OK);
    assert_int_equal(got.pt_derived[0], 1u << CALIB_VAL_REDUCE);
    assert_int_equal(got.pt_derived[1], 0);
    assert_close(got.pt[0].gamma_shared, spb(30));
    unlink(aside);
}

static void test_smooth(void **state)
{
    (void)state;
    /* A known case: 5 then 2, 3 pool into their mean. */
    Calib k = {.npoints = 5};
    const double in[] = {0, 1, 5, 2, 3}, want[] = {0, 1, 10.0 / 3, 10.0 / 3, 10.0 / 3};
    for (int i = 0; i < 5; i++)
        k.pt[i].gamma_shared = in[i] * 1e-12, k.pt[i].gamma_p2p = in[4 - i] * 1e-12;
    calib_smooth(&k);
    for (int i = 0; i < 5; i++) {
        assert_close(k.pt[i].gamma_shared, want[i] * 1e-12);
        assert_close(k.pt[i].gamma_p2p, 2.2e-12); /* 3 2 5 1 0: all one block */
    }
    unsigned rng = 12345;
    for (int n = 1; n <= CALIB_MAX_POINTS; n++)
        for (int trial = 0; trial < 50; trial++) {
            Calib c = sample("threads", 4, n, (unsigned)trial), orig;
            double sum[2] = {0, 0};
            for (int i = 0; i < n; i++) {
                rng = rng * 1103515245u + 12345u;
                c.pt[i].gamma_shared = (rng >> 8) % 1000 * 1e-13;
                rng = rng * 1103515245u + 12345u;
                c.pt[i].gamma_p2p = trial % 2 ? (rng >> 8) % 1000 * 1e-13 : i * 1e-12;
                sum[0] += c.pt[i].gamma_shared, sum[1] += c.pt[i].gamma_p2p;
            }
            orig = c;
            calib_smooth(&c);
            double got[2] = {0, 0};
            for (int i = 0; i < n; i++) {
                got[0] += c.pt[i].gamma_shared, got[1] += c.pt[i].gamma_p2p;
                assert_true(c.pt[i].footprint == orig.pt[i].footprint);
                assert_true(c.pt[i].beta_shared == orig.pt[i].beta_shared);
                assert_true(c.pt[i].beta_cross == orig.pt[i].beta_cross);
                if (trial % 2 == 0) /* already rising: unchanged */
                    assert_close(c.pt[i].gamma_p2p, orig.pt[i].gamma_p2p);
                if (i == 0)
                    continue;
                assert_true(c.pt[i].gamma_shared >= c.pt[i - 1].gamma_shared * (1 - 1e-12));
                assert_true(c.pt[i].gamma_p2p >= c.pt[i - 1].gamma_p2p * (1 - 1e-12));
            }
            assert_close(got[0], sum[0]); /* pooling keeps the total */
            assert_close(got[1], sum[1]);
        }
}

static void test_params_interpolate(void **state)
{
    (void)state;
    Calib c = {.alpha = 3e-6, .npoints = 3};
    c.pt[0] = (CalibPoint){1e6, 1e-10, 4e-10, 1e-11, 8e-11, 0, 0};
    c.pt[1] = (CalibPoint){1e8, 3e-10, 2e-10, 3e-11, 4e-11, 0, 0};
    c.pt[2] = (CalibPoint){1e9, 5e-10, 1e-10, 5e-11, 2e-11, 0, 0};
    struct { double f, shared, p2p; } cases[] = {
        {1e3, 1e-10, 4e-10}, {1e6, 1e-10, 4e-10}, {1e7, 2e-10, 3e-10},
        {1e8, 3e-10, 2e-10}, {pow(10, 8.5), 4e-10, 1.5e-10},
        {1e9, 5e-10, 1e-10}, {1e12, 5e-10, 1e-10},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ModelParams s = calib_params(&c, MACHINE_BUS, cases[i].f);
        ModelParams p = calib_params(&c, MACHINE_FULL, cases[i].f);
        assert_close(s.alpha, 3e-6);
        assert_close(p.alpha, 3e-6);
        assert_close(s.beta, cases[i].shared);
        assert_close(p.beta, cases[i].p2p);
        assert_close(s.gamma, cases[i].shared / 10);
        assert_close(p.gamma, cases[i].p2p / 5);
    }
}

/* The machine a calibration measured: its link model's flat machine with
 * the parameters at the footprint (values from the points above, by
 * hand: at 1e7 B shared beta 2e-10 and gamma 2e-11, p2p 3e-10, 6e-11). */
static void test_machine(void **state)
{
    (void)state;
    Calib c = {.alpha = 3e-6, .npoints = 3, .nranks = 6, .machine = MACHINE_BUS};
    c.pt[0] = (CalibPoint){1e6, 1e-10, 4e-10, 1e-11, 8e-11, 0, 0};
    c.pt[1] = (CalibPoint){1e8, 3e-10, 2e-10, 3e-11, 4e-11, 0, 0};
    c.pt[2] = (CalibPoint){1e9, 5e-10, 1e-10, 5e-11, 2e-11, 0, 0};
    Machine m;
    assert_int_equal(calib_machine(&c, 1e7, &m), CV_OK);
    assert_int_equal(m.kind, MACHINE_BUS);
    assert_int_equal(m.nranks, 6);
    assert_close(m.cls[0].alpha, 3e-6);   /* the ports carry the messages */
    assert_close(m.cls[1].beta, 2e-10);   /* the medium every byte */
    assert_close(m.gamma, 2e-11);
    c.machine = MACHINE_FULL;
    assert_int_equal(calib_machine(&c, 1e7, &m), CV_OK);
    assert_int_equal(m.kind, MACHINE_FULL);
    assert_close(m.cls[0].beta, 3e-10);
    assert_close(m.gamma, 6e-11);
    assert_string_equal(machine_kind_name(MACHINE_BUS), "bus");
}

/* Seconds calib_predict gives schedule algo of kind at count floats on
 * machine k of c. */
static double predicted(const Calib *c, CollKind kind, const char *algo,
                        size_t count, MachineKind k)
{
    CollCall call = {.kind = kind, .nranks = 8, .count = count,
                     .dtype = DT_FLOAT, .op = OP_SUM};
    Schedule s;
    double sec;
    assert_int_equal(algo_generate(algo_find(kind, algo), &call, &s), CV_OK);
    assert_int_equal(calib_predict(c, &s, k, &sec), CV_OK);
    sched_fini(&s);
    return sec;
}

/* A straggler the run has (calib_straggler) is priced as the machine's
 * slow rank. One point, so full's parameters are alpha 1 us, beta 1e-10
 * s/B, gamma 5e-11 s/B at any size; by hand: a binomial broadcast of
 * 1 MiB from r0 on 8 ranks, 3 steps of 1 + 104.8576 us, waits for a
 * slow r5 in its last step alone (4 times), for r4 in all three, for a
 * slow pair r4 -> r6 in the second alone; a ring
 * allreduce of 1 MiB with r3 slow, every one of its 14 steps of 1 +
 * 13.1072 us and 7 reduces of 6.5536 us 4 times. The bus's shared
 * memory: a ring step's bytes, which every rank moves alike, take the
 * straggler's 4 times (its busy wait is 3 times its share of the step),
 * so the ring of 1 MiB, its steps' latency the rest, more than 3 times
 * as long. */
static void test_straggler(void **state)
{
    (void)state;
    Calib c = {.alpha = 1e-6, .npoints = 1, .nranks = 8, .cores = 8,
               .machine = MACHINE_FULL};
    c.pt[0] = (CalibPoint){1e6, 2e-10, 1e-10, 2e-11, 5e-11, 0, 0};
    double step = 1 + 104.8576, mib = 262144;
    assert_close(predicted(&c, COLL_BROADCAST, "tree", mib, MACHINE_FULL),
                 3 * step * 1e-6);
    calib_straggler(&c, &(MachineSlow){.rank = 5, .slow = 4});
    assert_close(predicted(&c, COLL_BROADCAST, "tree", mib, MACHINE_FULL),
                 6 * step * 1e-6);
    calib_straggler(&c, &(MachineSlow){.rank = 4, .slow = 4});
    assert_close(predicted(&c, COLL_BROADCAST, "tree", mib, MACHINE_FULL),
                 12 * step * 1e-6);
    /* the pair 4 -> 6 slowed: the second step alone */
    calib_straggler(&c, &(MachineSlow){.from = 4, .to = 6, .link = 4});
    assert_close(predicted(&c, COLL_BROADCAST, "tree", mib, MACHINE_FULL),
                 6 * step * 1e-6);
    calib_straggler(&c, &(MachineSlow){.rank = 3, .slow = 4});
    assert_close(predicted(&c, COLL_ALLREDUCE, "ring", mib, MACHINE_FULL),
                 (14 * 4 * 14.1072 + 7 * 4 * 6.5536) * 1e-6);
    double slow = predicted(&c, COLL_ALLREDUCE, "ring", mib, MACHINE_BUS);
    calib_straggler(&c, &(MachineSlow){.from = 2, .to = 3, .link = 4});
    double pair = predicted(&c, COLL_ALLREDUCE, "ring", mib, MACHINE_BUS);
    calib_straggler(&c, &(MachineSlow){0}); /* none */
    double plain = predicted(&c, COLL_ALLREDUCE, "ring", mib, MACHINE_BUS);
    if (!(slow > 3 * plain) || !(pair > 3 * plain)) /* at every step */
        fail_msg("a straggler 4x: %g s, a pair %g s, none %g s", slow, pair,
                 plain);
}

/* Ranks on several hosts: the calibration's machine is nodes, its hosts'
 * ranks on the point-to-point pair's links ("host"), the hosts on the
 * network pair's ("net"), ranks placed as they ran; a message between two
 * hosts costs the network's alpha and bandwidth, one within a host the
 * host's (by hand: at 1e7 B, halfway between 1e6 and 1e8 in log, p2p beta
 * 3e-10 and net beta 3e-9; alpha 3e-6 within, 3e-6 + (5e-6 - 1e-6)
 * across; 1e6 bytes: 7e-6 + 3e-3 s across, 3e-6 + 3e-4 s within). */
static void test_machine_nodes(void **state)
{
    (void)state;
    Calib c = {.alpha = 3e-6, .npoints = 3, .nranks = 6,
               .machine = MACHINE_NODES, .nodes = 2, .per_node = 3,
               .cyclic = 1, .alpha_host = 1e-6, .alpha_net = 5e-6};
    c.pt[0] = (CalibPoint){1e6, 1e-10, 4e-10, 1e-11, 8e-11, 0, 2e-9};
    c.pt[1] = (CalibPoint){1e8, 3e-10, 2e-10, 3e-11, 4e-11, 0, 4e-9};
    c.pt[2] = (CalibPoint){1e9, 5e-10, 1e-10, 5e-11, 2e-11, 0, 6e-9};
    MachineKind fits[3];
    assert_int_equal(calib_fits(&c, fits), 3);
    assert_int_equal(fits[2], MACHINE_NODES);
    Machine m;
    assert_int_equal(calib_machine(&c, 1e7, &m), CV_OK);
    assert_int_equal(m.kind, MACHINE_NODES);
    assert_int_equal(m.nranks, 6);
    assert_true(m.cyclic);
    assert_string_equal(m.cls[0].name, "host");
    assert_close(m.cls[0].alpha, 3e-6);
    assert_close(m.cls[0].beta, 3e-10);
    assert_string_equal(m.cls[1].name, "net");
    assert_close(m.cls[1].alpha, 7e-6);
    assert_close(m.cls[1].beta, 3e-9);
    assert_close(m.gamma, 6e-11);
    /* cyclic: rank 1 on the other host, rank 2 on rank 0's */
    for (int dst = 1; dst <= 2; dst++) {
        Schedule s;
        CollCall call = {.kind = COLL_BROADCAST, .nranks = 6, .count = 250000,
                         .dtype = DT_FLOAT, .op = OP_SUM};
        assert_int_equal(sched_init(&s, &call, "one message"), CV_OK);
        sched_step(&s, "send");
        sched_xfer(&s, XFER_COPY, 0, BUF_SEND, 0, dst, BUF_RECV, 0, 250000);
        assert_int_equal(sched_end(&s), CV_OK);
        double t = 0;
        CostTerms terms;
        assert_int_equal(model_machine_cost(&s, &m, false, &terms, &t), CV_OK);
        assert_close(t, dst == 1 ? 7e-6 + 3e-3 : 3e-6 + 3e-4);
        sched_fini(&s);
    }
    c.nodes = 0; /* one host: no nodes to fit, none to build */
    assert_int_equal(calib_fits(&c, fits), 2);
    assert_int_equal(calib_machine_of(&c, MACHINE_NODES, 1e7, &m), CV_ERR_ARG);
}

/* A memory level by hand: cache 1 MB; the shared copies' rates beyond
 * the start (beta_shared, per byte copied) 1, 4, 10 and 12 ps at 250 kB,
 * 1, 4 and 8 MB: a copy reads and writes, so the traffic's are half,
 * 0.5, 2, 5 and 6 ps; memory the median of those at 4 times the cache
 * and beyond, 5.5 ps. One rank (host): the pair's 16, 18, 20 and 22 ps,
 * half of each in traffic (4 MB: 10 ps; beyond the curve 10.5); a
 * fresh read's (the cross copy's, set at twice the shared) 10 and 11.
 * A point given its larger neighbour's rate (drowned in the start) is
 * left out of the curve. */
static void test_mem_level(void **state)
{
    (void)state;
    Calib c = {.nranks = 2, .alpha = 1e-6, .lat_iter = 2e-6, .cache = 1e6,
               .medium = MACHINE_GPU, .npoints = 4};
    const double fp[] = {2.5e5, 1e6, 4e6, 8e6}, sh[] = {1e-12, 4e-12, 1e-11,
                                                        1.2e-11};
    for (int i = 0; i < 4; i++)
        c.pt[i] = (CalibPoint){.footprint = fp[i], .beta_shared = sh[i],
                               .beta_p2p = 1.6e-11 + 0.2e-11 * i,
                               .beta_cross = 2 * sh[i],
                               .gamma_shared = 1e-11};
    MemLevel ml;
    double g;
    assert_int_equal(calib_mem_level(&c, 4e6, &ml, &g), 0);
    assert_close(ml.step, 1e-6); /* no step latency: alpha */
    assert_close(ml.call, 2e-6);
    c.lat_step = 0.8e-6; /* the slope, where measured */
    assert_int_equal(calib_mem_level(&c, 4e6, &ml, &g), 0);
    assert_close(ml.step, 0.8e-6);
    assert_int_equal(ml.npts, 4);
    assert_close(ml.fp[0], 2.5e5);
    assert_close(ml.beta[0], 0.5e-12);
    assert_close(ml.beta[1], 2e-12);
    assert_close(ml.beta[2], 5e-12);
    assert_close(ml.beta[3], 6e-12);
    assert_close(ml.beta_mem, 5.5e-12);
    assert_true(ml.beta_core == 0); /* a GPU's launch uses it all */
    assert_close(g, 1e-11 - 5e-12); /* reducing beyond its traffic */
    c.pt[0].beta_shared = c.pt[1].beta_shared; /* drowned: filled */
    assert_int_equal(calib_mem_level(&c, 4e6, &ml, &g), 0);
    assert_int_equal(ml.npts, 3);
    assert_close(ml.fp[0], 1e6);
    MachineKind fits[CALIB_MAX_FITS];
    assert_int_equal(calib_fits(&c, fits), 3);
    assert_int_equal(fits[2], MACHINE_GPU);
    Machine m;
    assert_int_equal(calib_machine_of(&c, MACHINE_GPU, 4e6, &m), CV_OK);
    assert_int_equal(m.kind, MACHINE_GPU);
    assert_int_equal(m.nranks, 2);
    c.medium = MACHINE_HOST;
    assert_int_equal(calib_mem_level(&c, 4e6, &ml, &g), 0);
    assert_close(ml.core[1], 1e-11);
    assert_close(ml.beta_core, 1.05e-11);
    assert_close(ml.fresh[1], 1e-11); /* the cross copy's, twice shared */
    assert_close(ml.beta_fresh, 1.1e-11);
    assert_int_equal(calib_machine_of(&c, MACHINE_GPU, 4e6, &m), CV_ERR_ARG);
    c.cache = 3e6; /* 12 MB and beyond: nothing measured there */
    assert_int_equal(calib_mem_level(&c, 4e6, &ml, &g), -1);
    assert_int_equal(calib_fits(&c, fits), 2);
    c.cache = 1e6, c.medium = MACHINE_FULL; /* no memory machine */
    assert_int_equal(calib_mem_level(&c, 4e6, &ml, &g), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_machine),
        cmocka_unit_test(test_straggler),
        cmocka_unit_test(test_machine_nodes),
        cmocka_unit_test_setup_teardown(test_path_xdg, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_path_home, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_roundtrip, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_overwrite, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_fingerprints, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_older_file, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_damaged, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_unwritable, cache_setup, cache_teardown),
        cmocka_unit_test(test_spread),
        cmocka_unit_test(test_rule_reduce),
        cmocka_unit_test(test_rule_bandwidth),
        cmocka_unit_test(test_rule_times),
        cmocka_unit_test_setup_teardown(test_rule_files, cache_setup, cache_teardown),
        cmocka_unit_test(test_smooth),
        cmocka_unit_test(test_params_interpolate),
        cmocka_unit_test(test_mem_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
