/* measure.c - the measuring engine (see measure.h). */
#include "measure/measure.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "exec/verify.h"

/* Whether o's progress asks to stop before the timed loop (told 0). */
static bool stop_asked(const MeasureOptions *o)
{
    return o && o->progress && o->progress(o->ctx, 0);
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
    for (size_t k = 0; !e && k < s->nsteps; k++)
        e = stop_asked(o) ? CV_ERR_CANCELLED : ops->step(ex, k);
    if (!e)
        e = ops->finish(ex);
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
    CvError e = ex->ops->run(ex, *warmup, 1, &t);
    double want = t.iter_s > 0 ? ceil(o->min_time_s / t.iter_s) : 1;
    int cap = o->max_iters > 0 && o->max_iters < MEASURE_MAX_ITERS
                  ? o->max_iters : MEASURE_MAX_ITERS;
    if (want > *iters)
        *iters = (int)fmin(want, cap > *iters ? cap : *iters);
    *warmup = 0;
    return e;
}

/* Time n iterations in `chunks` parts of near equal size (fewer when n is
 * smaller), summing per-iteration and per-step time (weighted by each
 * part's iterations) into r. */
CvError measure_timed(Executor *ex, const Schedule *s,
                      const MeasureOptions *o, int warmup, int n,
                      MeasureResult *r)
{
    long parts = o->chunks > 1 ? o->chunks : 1;
    parts = parts < MEASURE_MAX_CHUNKS ? parts : MEASURE_MAX_CHUNKS;
    parts = parts < n ? parts : n;
    int done = 0;
    double sum = 0, *step = r->step_s ? calloc(s->nsteps + 1, sizeof *step) : NULL;
    CvError e = r->step_s && !step ? CV_ERR_NOMEM : CV_OK;
    for (long i = 0; !e && i < parts; i++) {
        int k = (int)((long long)n * (i + 1) / parts) - done;
        ExecTiming t = {.step_s = r->step_s};
        if ((e = ex->ops->run(ex, i ? 0 : warmup, k, &t)))
            break;
        sum += t.iter_s * k;
        for (size_t j = 0; step && j < s->nsteps; j++)
            step[j] += t.step_s[j] * k;
        done += k;
        if (o->progress && done < n && o->progress(o->ctx, (double)done / n))
            e = CV_ERR_CANCELLED;
    }
    r->iters = done;
    r->iter_s = done ? sum / done : 0;
    for (size_t j = 0; step && done && j < s->nsteps; j++)
        r->step_s[j] = step[j] / done;
    free(step);
    return e;
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

/* One call of the library's collective: warmup untimed, n timed. */
static CvError native(Executor *ex, int warmup, int n, ExecTiming *t,
                      char *why, size_t whylen)
{
    if (!ex->ops->native) {
        snprintf(why, whylen, "the %s backend has no library of its own",
                 ex->ops->name);
        return CV_ERR_UNAVAILABLE;
    }
    return ex->ops->native(ex, warmup, n, t, why, whylen);
}

CvError measure_native(Executor *ex, const MeasureOptions *o, MeasureResult *r,
                       char *why, size_t whylen)
{
    ExecTiming t = {0};
    VerifyReport rep = {.wrong = 0};
    CvError e = CV_OK;
    r->iter_s = 0, r->iters = 0, r->wrong = o->checks > 0 ? 0 : -1;
    for (int c = 0; !e && c < o->checks && r->wrong == 0; c++) {
        e = ex->ops->reset(ex);
        if (!e)
            e = native(ex, 0, 1, &t, why, whylen);
        if (!e && (e = verify_output(ex, true, &rep)) == CV_ERR_WRONG)
            e = CV_OK;
        r->wrong = (long long)rep.wrong;
    }
    int iters = o->iters > 0 ? o->iters : 1, warmup = o->warmup;
    if (!e && o->min_time_s > 0 && !(e = native(ex, warmup, 1, &t, why, whylen))) {
        double want = t.iter_s > 0 ? ceil(o->min_time_s / t.iter_s) : 1;
        int cap = o->max_iters > 0 && o->max_iters < MEASURE_MAX_ITERS
                      ? o->max_iters : MEASURE_MAX_ITERS;
        if (want > iters)
            iters = (int)fmin(want, cap > iters ? cap : iters);
        warmup = 0;
    }
    if (!e && !(e = native(ex, warmup, iters, &t, why, whylen)))
        r->iter_s = t.iter_s, r->iters = iters;
    return e;
}
