/* measure.c - the measuring engine (see measure.h). */
#include "measure/measure.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "exec/mono.h"
#include "exec/probe.h"
#include "exec/verify.h"

/* Whether o's progress asks to stop before the timed loop (told 0). */
static bool stop_asked(const MeasureOptions *o)
{
    return o && o->progress && o->progress(o->ctx, 0);
}

/* The timed loop: the schedule's, or the library's collective's. */
static CvError run_loop(Executor *ex, const MeasureOptions *o, int warmup,
                        int iters, ExecTiming *t)
{
    if (!o || !o->native)
        return ex->ops->run(ex, warmup, iters, t);
    if (!ex->ops->native) {
        if (o->why && o->whylen)
            snprintf(o->why, o->whylen, "the %s backend has no library "
                     "collective of its own", ex->ops->name);
        return CV_ERR_UNAVAILABLE;
    }
    char why[256] = "";
    CvError e = ex->ops->native(ex, warmup, iters, t, why, sizeof why);
    if (e && why[0] && o->why && o->whylen)
        snprintf(o->why, o->whylen, "%s", why);
    return e;
}

/* measure_check, asking o's progress (o may be NULL) before every step
 * and before the comparison whether to stop. The comparison reads the
 * buffers through ExecOps.read, which an executor's cancel stops too. */
static CvError check_once(Executor *ex, const Schedule *s,
                          const MeasureOptions *o, long long *wrong)
{
    const ExecOps *ops = ex->ops;
    VerifyReport rep = {.wrong = 0};
    CvError e = ops->reset(ex);
    if (o && o->native) {
        ExecTiming t = {0};
        if (!e)
            e = stop_asked(o) ? CV_ERR_CANCELLED : run_loop(ex, o, 0, 1, &t);
    } else {
        for (size_t k = 0; !e && k < s->nsteps; k++)
            e = stop_asked(o) ? CV_ERR_CANCELLED : ops->step(ex, k);
        if (!e)
            e = ops->finish(ex);
    }
    if (!e)
        e = stop_asked(o) ? CV_ERR_CANCELLED : verify_output(ex, true, &rep);
    *wrong = (long long)rep.wrong;
    return e == CV_ERR_WRONG ? CV_OK : e;
}

CvError measure_check(Executor *ex, const Schedule *s, long long *wrong)
{
    return check_once(ex, s, NULL, wrong);
}

/* Up to o->checks checked runs, stopping at the first with wrong
 * elements. */
static CvError check_runs(Executor *ex, const Schedule *s,
                          const MeasureOptions *o, MeasureResult *r)
{
    CvError e = CV_OK;
    r->wrong = o->checks > 0 ? 0 : -1;
    for (int c = 0; !e && c < o->checks && r->wrong == 0; c++)
        e = check_once(ex, s, o, &r->wrong);
    return e;
}

CvError measure_iters(Executor *ex, const MeasureOptions *o, int *iters,
                      int *warmup)
{
    *iters = o->iters > 0 ? o->iters : 1;
    *warmup = o->warmup > 0 ? o->warmup : 0;
    if (!(o->min_time_s > 0))
        return CV_OK;
    ExecTiming t = {0};
    CvError e = run_loop(ex, o, *warmup, 1, &t);
    double want = t.iter_s > 0 ? ceil(o->min_time_s / t.iter_s) : 1;
    int cap = o->max_iters > 0 && o->max_iters < MEASURE_MAX_ITERS
                  ? o->max_iters : MEASURE_MAX_ITERS;
    if (want > *iters)
        *iters = (int)fmin(want, cap > *iters ? cap : *iters);
    *warmup = 0;
    return e;
}

/* Time n iterations in `chunks` parts of near equal size (fewer when n is
 * smaller): the mean per iteration (each part weighted by its
 * iterations) into r, and the step times of one call (rule 3). */
CvError measure_timed(Executor *ex, const Schedule *s,
                      const MeasureOptions *o, int warmup, int n,
                      MeasureResult *r)
{
    long parts = o->chunks > 1 ? o->chunks : 1;
    parts = parts < MEASURE_MAX_CHUNKS ? parts : MEASURE_MAX_CHUNKS;
    parts = o->each || o->blocking ? n : parts < n ? parts : n; /* one a call */
    long agg = o->agg > 1 ? o->agg : 1;
    if ((long long)n * agg > INT_MAX) /* the executor counts in an int */
        return CV_ERR_LIMIT;
    int done = 0, np = 0; /* iterations and parts timed */
    double sum = 0, host = 0;
    double *each = calloc((size_t)parts + 1, sizeof *each);
    CvError e = !each ? CV_ERR_NOMEM : CV_OK;
    /* Step times (rule 3) from one call, after a warmup of at least the
     * executor's step_warmup: a backend that times steps on passes of
     * their own (the cuda backend's stamped passes) takes them from the
     * warmup, never from timed iterations. */
    double *steps = r->step_s && !o->native ? r->step_s : NULL;
    if (steps && warmup < ex->ops->step_warmup)
        warmup = ex->ops->step_warmup;
    if (!e && o->host_time && warmup > 0) { /* the warmup outside the time */
        ExecTiming t = {.step_s = steps};
        e = run_loop(ex, o, warmup - 1, 1, &t);
        warmup = 0, steps = NULL;
    }
    for (long i = 0; !e && i < parts; i++) {
        int k = (int)((long long)n * (i + 1) / parts) - done;
        ExecTiming t = {.step_s = i ? NULL : steps};
        double t0 = o->host_time ? mono_now_s() : 0;
        if ((e = run_loop(ex, o, i ? 0 : warmup, (int)(k * agg), &t)))
            break;
        if (o->host_time)
            host += mono_now_s() - t0;
        each[np++] = t.iter_s; /* per collective: the backend's mean */
        sum += t.iter_s * k;
        done += k;
        if (o->progress && done < n && o->progress(o->ctx, (double)done / n))
            e = CV_ERR_CANCELLED;
    }
    r->iters = done;
    r->iter_s = done ? sum / done : 0;
    r->host_s = done ? host / ((double)done * (double)agg) : 0;
    if (o->each && done)
        measure_stats(each, done, r);
    r->parts = np;
    r->part_median_s = probe_median(each, (size_t)np); /* sorts each */
    r->part_min_s = np ? each[0] : 0;
    free(each);
    return e;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void measure_stats(double *v, int n, MeasureResult *r)
{
    if (n <= 0)
        return;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double mean = 0, var = 0;
    for (int i = 0; i < n; i++)
        mean += v[i];
    mean /= n;
    for (int i = 0; i < n; i++)
        var += (v[i] - mean) * (v[i] - mean);
    var /= n;
    int rank = (int)ceil(0.99 * n); /* nearest rank, from 1 */
    r->min_s = v[0], r->max_s = v[n - 1];
    r->p99_s = v[(rank < 1 ? 1 : rank) - 1];
    r->cv = mean > 0 ? sqrt(var) / mean : 0;
}

CvError measure_loaded(Executor *ex, const Schedule *s,
                       const MeasureOptions *o, MeasureResult *r)
{
    int iters, warmup;
    r->iter_s = 0, r->iters = 0;
    CvError e = check_runs(ex, s, o, r);
    if (!e)
        e = measure_iters(ex, o, &iters, &warmup);
    if (!e)
        e = measure_timed(ex, s, o, warmup, iters, r);
    return e;
}
