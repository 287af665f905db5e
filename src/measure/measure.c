/* measure.c - the measuring engine (see measure.h). */
#include "measure/measure.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* How the timed loop is cut into executor calls (MeasureOptions.blocking
 * and each). Counts are in collectives: an iteration is agg of them. */
typedef struct {
    long calls; /* executor calls */
    long per;   /* collectives per call; 0: the loop's in near equal parts */
    bool host;  /* each call timed on the host's clock around it */
    bool each_in_loop; /* the backend times each iteration in its loop */
} Cut;

static Cut cut_of(const Executor *ex, const MeasureOptions *o, long n,
                  long agg)
{
    Cut c = {.per = 0};
    if (o->blocking == 1 || o->blocking == 2)
        c.per = 1, c.host = true;           /* -z 1, -z 2: each collective */
    else if (o->blocking == 3)
        c.per = agg;                        /* -z 3: each iteration */
    else if (o->each && (o->native || !ex->ops->times_each))
        c.per = agg, c.host = true;         /* -I, timed one by one */
    c.each_in_loop = o->each && !c.per;
    if (c.per) {
        c.calls = n * agg / c.per;
        return c;
    }
    long parts = o->chunks > 1 ? o->chunks : 1;
    parts = parts < MEASURE_MAX_CHUNKS ? parts : MEASURE_MAX_CHUNKS;
    if (c.each_in_loop && n * agg > parts * MEASURE_MAX_EACH) /* bounded */
        parts = (n * agg + MEASURE_MAX_EACH - 1) / MEASURE_MAX_EACH;
    c.calls = parts < n ? parts : n;
    return c;
}

/* What measure_timed adds up over its calls. */
typedef struct {
    double sum, host;  /* seconds: by the clock of the cut, by the host's */
    double *parts;     /* [MEASURE_MAX_PARTS]: each call's mean */
    long nparts;       /* calls recorded in parts */
    double *iters;     /* [n] with MeasureOptions.each: each iteration's
                          mean per collective; NULL without */
    double *col;       /* [MEASURE_MAX_EACH + agg]: a call's own, in the
                          loop */
} Tally;

/* Add a call of kc collectives from collective c0 that took sec in all
 * (the loop's each: col[q] each) to the tally. */
static void tally_call(Tally *t, long agg, long c0, long kc, double sec,
                       bool each)
{
    t->sum += sec;
    if (t->nparts < MEASURE_MAX_PARTS)
        t->parts[t->nparts++] = sec / (double)kc;
    for (long q = 0; t->iters && q < kc; q++)
        t->iters[(c0 + q) / agg] +=
            (each ? t->col[q] : sec / (double)kc) / (double)agg;
}

/* The warmup, in a call of its own outside the time where calls are
 * timed on the host's clock, with the step times (rule 3) from it. */
static CvError warm_apart(Executor *ex, const MeasureOptions *o, int *warmup,
                          double **steps)
{
    ExecTiming t = {.step_s = *steps};
    CvError e = run_loop(ex, o, *warmup - 1, 1, &t);
    *warmup = 0, *steps = NULL;
    return e;
}

/* Time n iterations (measure.h's rule 3) in the calls cut_of gives, with
 * progress between them: the mean per collective, the host's, each
 * call's and, with each, each iteration's into r. */
CvError measure_timed(Executor *ex, const Schedule *s,
                      const MeasureOptions *o, int warmup, int n,
                      MeasureResult *r)
{
    long agg = o->agg > 1 ? o->agg : 1, total = (long)n * agg, done = 0;
    if ((long long)n * agg > INT_MAX) /* the executor counts in an int */
        return CV_ERR_LIMIT;
    Cut c = cut_of(ex, o, n, agg);
    double (*now)(void) = o->clock ? o->clock : mono_now_s;
    Tally t = {.parts = calloc(MEASURE_MAX_PARTS, sizeof(double)),
               .iters = o->each ? calloc((size_t)n + 1, sizeof(double)) : NULL,
               .col = c.each_in_loop
                          ? calloc(MEASURE_MAX_EACH + (size_t)agg, sizeof(double))
                          : NULL};
    CvError e = !t.parts || (o->each && !t.iters) ||
                (c.each_in_loop && !t.col) ? CV_ERR_NOMEM : CV_OK;
    double *steps = r->step_s && !o->native ? r->step_s : NULL;
    if (steps && warmup < ex->ops->step_warmup)
        warmup = ex->ops->step_warmup;
    if (!e && (o->host_time || c.host) && warmup > 0)
        e = warm_apart(ex, o, &warmup, &steps);
    for (long i = 0; !e && i < c.calls; i++) {
        long kc = c.per ? c.per : n * (i + 1) / c.calls * agg - done;
        ExecTiming et = {.step_s = i ? NULL : steps, .each_s = t.col};
        double t0 = now();
        if ((e = run_loop(ex, o, i ? 0 : warmup, (int)kc, &et)))
            break;
        double took = now() - t0;
        t.host += took;
        tally_call(&t, agg, done, kc, c.host ? took : et.iter_s * (double)kc,
                   c.each_in_loop);
        done += kc;
        if (o->progress && done < total &&
            o->progress(o->ctx, (double)done / (double)total))
            e = CV_ERR_CANCELLED;
    }
    r->iters = (int)(done / agg);
    r->iter_s = done ? t.sum / (double)done : 0;
    r->host_s = done && o->host_time ? t.host / (double)done : 0;
    r->times = NULL;
    if (t.iters && r->iters && (r->times = malloc((size_t)r->iters *
                                                 sizeof *r->times))) {
        memcpy(r->times, t.iters, (size_t)r->iters * sizeof *r->times);
        measure_stats(t.iters, r->iters, r);
    } else if (t.iters && r->iters && !e) {
        e = CV_ERR_NOMEM;
    }
    r->parts = (int)t.nparts;
    r->part_median_s = probe_median(t.parts, (size_t)t.nparts); /* sorts */
    r->part_min_s = t.nparts ? t.parts[0] : 0;
    free(t.parts), free(t.iters), free(t.col);
    return e;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The index of the nearest-rank pct-th percentile of n sorted values:
 * ceil(n pct / 100), from 1. */
static int nearest_rank(int n, int pct)
{
    long k = ((long)n * pct + 99) / 100;
    return (int)(k < 1 ? 0 : k > n ? n - 1 : k - 1);
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
    r->min_s = v[0], r->max_s = v[n - 1];
    r->p50_s = v[n / 2];
    r->p95_s = v[nearest_rank(n, 95)];
    r->p99_s = v[nearest_rank(n, 99)];
    r->sd_s = sqrt(var);
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
