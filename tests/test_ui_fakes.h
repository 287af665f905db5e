/* test_ui_fakes.h - a backend for the UI tests that works like the threads
 * backend, except where told to misbehave: fail at one step, or report one
 * element wrong when read back (so the checks that must catch a lying
 * machine are seen to catch it); and a made-up calibration of this
 * machine, saved where scenes look for one. Static: each test program has
 * its own. */
#ifndef COLLVIZ_TEST_UI_FAKES_H
#define COLLVIZ_TEST_UI_FAKES_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/calib.h"
#include "threads/exec_threads.h"

/* How the fake misbehaves (set before opening it). */
static struct {
    size_t fail_step;  /* step that fails (SIZE_MAX: none) */
    bool corrupt_read; /* flip the first byte of every read of rank 1 */
    double probe_ratio, probe_clean; /* > 0: what the probe reports (else
                                        the fake has none) */
} fake_mode = {SIZE_MAX, false, 0, 0};

typedef struct {
    Executor base;   /* what every executor starts with */
    Executor *inner; /* the threads executor doing the work */
} Fake;

static Executor *inner_of(Executor *ex) { return ((Fake *)ex)->inner; }

static CvError fake_load(Executor *ex, const Schedule *s)
{
    ex->sched = s;
    return inner_of(ex)->ops->load(inner_of(ex), s);
}
static CvError fake_reset(Executor *ex)
{
    return inner_of(ex)->ops->reset(inner_of(ex));
}
static CvError fake_step(Executor *ex, size_t k)
{
    if (k == fake_mode.fail_step)
        return CV_ERR_BACKEND;
    return inner_of(ex)->ops->step(inner_of(ex), k);
}
static CvError fake_finish(Executor *ex)
{
    return inner_of(ex)->ops->finish(inner_of(ex));
}
static CvError fake_run(Executor *ex, int warmup, int iters, ExecTiming *t)
{
    return inner_of(ex)->ops->run(inner_of(ex), warmup, iters, t);
}
static CvError fake_read(Executor *ex, int r, BufId b, size_t off, size_t n,
                         void *dst)
{
    CvError e = inner_of(ex)->ops->read(inner_of(ex), r, b, off, n, dst);
    if (!e && fake_mode.corrupt_read && r == 1 && n > 0)
        ((uint8_t *)dst)[0] ^= 0x5a;
    return e;
}
static CvError fake_probe(Executor *ex, ProbeResult *out)
{
    if (!(fake_mode.probe_ratio > 0))
        return CV_ERR_UNAVAILABLE;
    *out = (ProbeResult){.clean_s = fake_mode.probe_clean,
                         .dirty_s = fake_mode.probe_clean * fake_mode.probe_ratio,
                         .ratio = fake_mode.probe_ratio};
    return CV_OK;
}
static const char *fake_error(const Executor *ex)
{
    return "the device went away at step 3";
}
static void fake_close(Executor *ex)
{
    inner_of(ex)->ops->close(inner_of(ex));
    free(ex);
}
static CvError fake_open(Executor **out, int p, const ExecOptions *o,
                         char *why, size_t len);

static const ExecOps fake_ops = {
    .name = "fake",
    .summary = "threads, misbehaving on request",
    .open = fake_open,
    .load = fake_load,
    .reset = fake_reset,
    .step = fake_step,
    .finish = fake_finish,
    .run = fake_run,
    .read = fake_read,
    .probe = fake_probe,
    .last_error = fake_error,
    .close = fake_close,
};

static CvError fake_open(Executor **out, int p, const ExecOptions *o,
                         char *why, size_t len)
{
    Fake *f = calloc(1, sizeof *f);
    CvError e = exec_threads_ops.open(&f->inner, p, o, why, len);
    if (e) {
        free(f);
        return e;
    }
    f->base = (Executor){.ops = &fake_ops, .nranks = p};
    *out = &f->base;
    return CV_OK;
}

/* ------------------------------------------------------- calibration */

/* A calibration of the threads backend on this machine at p ranks, saved
 * in a new XDG_CACHE_HOME (its path into dir): scenes of p ranks on
 * threads then load it. The values are made up; the link model is the
 * shared one, which the threads predictor prices itself, so that its
 * predictions differ from the plain model's. */
static inline Calib fake_calib_saved(int p, char *dir, size_t len)
{
    Calib c = {.nranks = p, .alpha = 2e-6, .npoints = 2, .machine = MACHINE_BUS};
    char why[512];
    ExecHost h;
    if (exec_host_of("threads", p, &h, why, sizeof why))
        fail_msg("the threads backend says nothing of this machine: %s", why);
    snprintf(c.backend, sizeof c.backend, "threads");
    snprintf(c.host, sizeof c.host, "%s", h.fingerprint);
    c.pt[0] = (CalibPoint){1e6, 2e-11, 1e-10, 1e-11, 4e-11, 0, 0};
    c.pt[1] = (CalibPoint){1e8, 8e-11, 2e-10, 2e-11, 5e-11, 0, 0};
    snprintf(dir, len, "/tmp/collviz-test-ui-XXXXXX");
    assert_non_null(mkdtemp(dir));
    setenv("XDG_CACHE_HOME", dir, 1);
    assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
    return c;
}

/* Remove fake_calib_saved's directory, and look for calibrations nowhere
 * again. */
static inline void fake_calib_remove(const char *dir)
{
    char sub[600], path[1024];
    snprintf(sub, sizeof sub, "%s/collviz", dir);
    DIR *d = opendir(sub);
    for (struct dirent *e; d && (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", sub, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(sub);
    rmdir(dir);
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
}

#endif
