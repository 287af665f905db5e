/* base.c - what every backend's executor keeps alike (exec.h's struct
 * Executor): its error sentence, its cancel, its guard, and the parser of
 * its options by a table. */
#include "exec/exec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void exec_base_init(Executor *ex, const ExecOps *ops, int nranks)
{
    ex->ops = ops;
    ex->sched = NULL;
    ex->nranks = nranks;
    ex->dead = false;
    atomic_init(&ex->cancel, 0);
    ex->err[0] = '\0';
}

CvError exec_fail(Executor *ex, CvError e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ex->err, sizeof ex->err, fmt, ap);
    va_end(ap);
    return e;
}

CvError exec_cancelled(Executor *ex, const char *what)
{
    if (!atomic_exchange(&ex->cancel, 0))
        return CV_OK;
    return exec_fail(ex, CV_ERR_CANCELLED, "%s was cancelled", what);
}

CvError exec_guard(Executor *ex, const char *what)
{
    if (ex->dead)
        return CV_ERR_BACKEND;
    if (!ex->sched)
        return exec_fail(ex, CV_ERR_ARG, "no schedule is loaded");
    return exec_cancelled(ex, what);
}

CvError exec_guard_step(Executor *ex, size_t k, const char *what)
{
    CvError e = exec_guard(ex, what);
    if (!e && k >= ex->sched->nsteps)
        e = exec_fail(ex, CV_ERR_ARG, "step %zu does not exist (the schedule "
                      "has %zu steps)", k, ex->sched->nsteps);
    return e;
}

CvError exec_guard_run(Executor *ex, int warmup, int iters,
                       const ExecTiming *t, const char *what)
{
    CvError e = exec_guard(ex, what);
    if (!e && (warmup < 0 || iters < 1 || !t))
        e = exec_fail(ex, CV_ERR_ARG, "a run needs at least one timed "
                      "iteration");
    return e;
}

CvError exec_guard_read(Executor *ex, int r, BufId b, size_t off, size_t n)
{
    CvError e = exec_guard(ex, "the read");
    if (e)
        return e;
    if (r < 0 || r >= ex->nranks || (unsigned)b >= BUF_COUNT)
        return exec_fail(ex, CV_ERR_ARG, "no buffer %d of rank %d", (int)b, r);
    size_t have = sched_bufsize(ex->sched, r, b);
    if (off > have || n > have - off)
        return exec_fail(ex, CV_ERR_BOUNDS, "elements %zu..%zu are outside "
                         "rank %d's %s buffer of %zu", off, off + n, r,
                         buf_name(b), have);
    return CV_OK;
}

void exec_base_cancel(Executor *ex)
{
    atomic_store_explicit(&ex->cancel, 1, memory_order_relaxed);
}

const char *exec_base_last_error(const Executor *ex)
{
    return ex->err;
}

/* A whole number from min to max in s; false when it is not one. */
static bool whole(const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9')
        return false;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

/* Option `key` = val of backend `name` by its table into opts. */
static CvError set_param(const char *name, const ExecParam *tab, size_t n,
                         const char *key, const char *val, void *opts,
                         char *why, size_t whylen)
{
    for (size_t i = 0; i < n; i++) {
        const ExecParam *p = &tab[i];
        if (strcmp(key, p->key))
            continue;
        if (p->parse)
            return p->parse(opts, val, why, whylen) ? CV_OK : CV_ERR_ARG;
        if (whole(val, p->min, p->max, (long *)((char *)opts + p->off)))
            return CV_OK;
        snprintf(why, whylen, "the %s backend's option %s takes a whole "
                 "number of %s from %ld to %ld, not '%s'", name, key, p->unit,
                 p->min, p->max, val);
        return CV_ERR_ARG;
    }
    char names[200] = "";
    for (size_t i = 0, at = 0; i < n && at < sizeof names; i++)
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s",
                               i ? ", " : "", tab[i].key);
    snprintf(why, whylen, "the %s backend has no option '%s'; its %s %s",
             name, key, n == 1 ? "one option is" : "options are", names);
    return CV_ERR_ARG;
}

CvError exec_params_parse(const char *name, const ExecParam *tab, size_t n,
                          const char *params, void *opts, char *why,
                          size_t whylen)
{
    char key[64], val[128];
    int r;
    while ((r = exec_param_next(&params, key, sizeof key, val, sizeof val))) {
        if (r < 0) {
            snprintf(why, whylen, "the %s backend's options are key=value, "
                     "separated by commas; '%s' is not one", name, key);
            return CV_ERR_ARG;
        }
        CvError e = set_param(name, tab, n, key, val, opts, why, whylen);
        if (e)
            return e;
    }
    return CV_OK;
}
