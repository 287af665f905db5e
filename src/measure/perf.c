/* perf.c - the measurement engine: schedules timed on an executor, checked,
 * and set beside the calibrated model. */
#include "measure/perf.h"
#include "exec/probe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure/measure.h"

/* ------------------------------------------------------------ measuring */

/* The executor's sentence about error e into why; returns e. */
static CvError said_by(Executor *ex, CvError e, char *why, size_t whylen)
{
    if (why && whylen)
        snprintf(why, whylen, "%s", ex->ops->last_error(ex));
    return e;
}

/* Check, time (measure.h) and model the loaded schedule s into *out. */
static CvError measure_side_loaded(Executor *ex, const PerfConfig *cfg,
                                   const Calib *cal, const Schedule *s,
                                   int native, PerfSide *out, char *why,
                                   size_t whylen)
{
    MeasureOptions o = {.checks = cfg->check, .warmup = cfg->warmup,
                        .iters = cfg->iters, .min_time_s = cfg->min_time_s,
                        .native = native, .why = why, .whylen = whylen,
                        .each = cfg->iter_stats, .agg = cfg->agg,
                        .blocking = cfg->blocking,
                        .host_time = cfg->cputime};
    MeasureResult r = {0};
    CvError e = measure_loaded(ex, s, &o, &r);
    if (e) {
        free(r.times);
        return e;
    }
    double bytes = (double)coll_size_bytes(&s->call);
    out->time_s = r.iter_s;
    out->traffic = native ? 0 : sched_traffic(s);
    out->iters = r.iters;
    out->host_s = r.host_s;
    out->algbw = r.iter_s > 0 ? bytes / r.iter_s / 1e9 : 0;
    out->busbw = out->algbw * coll_busbw_factor(s->call.kind, s->call.nranks);
    out->wrong = r.wrong;
    out->min_s = r.min_s, out->max_s = r.max_s, out->p99_s = r.p99_s;
    out->p50_s = r.p50_s, out->p95_s = r.p95_s, out->sd_s = r.sd_s;
    out->cv = r.cv;
    out->times = cfg->keep_times ? r.times : NULL;
    if (!cfg->keep_times)
        free(r.times);
    CostTerms t;
    double what_if = 0;
    MachineKind fits[CALIB_MAX_FITS];
    int nfits = cal ? calib_fits(cal, fits) : 0;
    if (!native && cfg->what_if) { /* one machine: the same in every slot */
        e = model_machine_cost(s, cfg->what_if, false, &t, &what_if);
        for (int k = 0; k < MACHINE_KIND_COUNT; k++)
            out->model_s[k] = what_if;
        return e;
    }
    for (int i = 0; i < nfits && !e && !native; i++)
        e = calib_predict(cal, s, fits[i], &out->model_s[fits[i]]);
    return e;
}

/* The algorithm whose schedule sizes the buffers: a, or for the
 * library's own collective (a == NULL) the collective's default. */
static const AlgoInfo *loader(const PerfConfig *cfg, const AlgoInfo *a)
{
    return a ? a : algo_default(cfg->call.kind);
}

/* The schedule of algorithm a (NULL: the library's own collective's,
 * which loads the default's) for call, built for the what-if machine or
 * the backend's hosts (PerfConfig.shape). */
static CvError generate(const PerfConfig *cfg, const AlgoInfo *a,
                        const CollCall *call, Schedule *s)
{
    const Machine *m = cfg->what_if ? cfg->what_if : cfg->shape;
    return algo_generate_on(loader(cfg, a), call, a ? m : NULL, s, NULL, 0);
}

/* Generate the schedule of `call`, load it, measure it. */
static CvError measure_side(Executor *ex, const PerfConfig *cfg,
                            const Calib *cal, const AlgoInfo *a,
                            const CollCall *call, PerfSide *out, char *why,
                            size_t whylen)
{
    Schedule s;
    char nwhy[256] = "";
    *out = (PerfSide){.wrong = -1};
    CvError e = generate(cfg, a, call, &s);
    if (e)
        return e;
    e = ex->ops->load(ex, &s);
    if (!e)
        e = measure_side_loaded(ex, cfg, cal, &s, !a, out, nwhy, sizeof nwhy);
    if (e && nwhy[0] && why && whylen)
        snprintf(why, whylen, "%s", nwhy);
    else if (e && e != CV_ERR_NOMEM)
        said_by(ex, e, why, whylen);
    sched_fini(&s);
    return e;
}

/* Whether a runs call: the collective defines it, and a schedule file
 * serves it (its one place, a count its parts divide). */
static bool runs(const AlgoInfo *a, const CollCall *call)
{
    const SchedText *t = algo_file_text(a);
    char why[CV_WHY_LEN];
    return !coll_check(call) &&
           (!t || !sched_text_fits(t, call, why, sizeof why));
}

/* The place a's untimed and largest runs take: a schedule file's own,
 * else out of place. */
static bool first_place(const AlgoInfo *a)
{
    const SchedText *t = algo_file_text(a);
    return t && t->unit.call.in_place;
}

CvError perf_measure(Executor *ex, const PerfConfig *cfg, const Calib *cal,
                     const AlgoInfo *a, unsigned long long bytes,
                     PerfRow *row, char *why, size_t whylen)
{
    CollCall call = cfg->call;
    call.count = coll_count_floor(&call, bytes);
    *row = (PerfRow){.algo = a, .count = call.count,
                     .name = a ? a->name : ex->ops->native_name,
                     .bytes = coll_size_bytes(&call), .dtype = call.dtype,
                     .op = call.op, .root = call.root};
    if (!row->name)
        row->name = "native";
    CvError e = CV_OK;
    for (int pl = 0; pl < PERF_PLACE_COUNT && !e; pl++) {
        call.in_place = pl == PERF_IN_PLACE;
        if (!runs(a, &call))
            row->side[pl] = (PerfSide){.wrong = -1, .skipped = true};
        else
            e = measure_side(ex, cfg, cal, a, &call, &row->side[pl], why,
                             whylen);
    }
    row->when = (long long)time(NULL);
    return e;
}

/* Run a's schedule for `bytes` out of place, untimed, warmup times. */
static CvError warm_up(Executor *ex, const PerfConfig *cfg, const AlgoInfo *a,
                       unsigned long long bytes, char *why, size_t whylen)
{
    CollCall call = cfg->call;
    call.count = algo_file_count(a, coll_count_floor(&call, bytes));
    call.in_place = first_place(a);
    Schedule s;
    char nwhy[256] = "";
    MeasureOptions o = {.native = !a, .why = nwhy, .whylen = sizeof nwhy};
    CvError e = generate(cfg, a, &call, &s);
    if (e)
        return e;
    e = ex->ops->load(ex, &s);
    if (!e)
        e = measure_timed(ex, &s, &o, cfg->warmup > 0 ? cfg->warmup - 1 : 0,
                          1, &(MeasureResult){0});
    if (e && nwhy[0])
        snprintf(why, whylen, "%s", nwhy);
    else if (e)
        said_by(ex, e, why, whylen);
    sched_fini(&s);
    return e;
}

/* The sweep's largest size. */
static unsigned long long sweep_last(const Sweep *sw)
{
    unsigned long long last = sw->min;
    while (sweep_next(sw, &last))
        ;
    return last;
}

/* The out-of-place schedule of a at the sweep's largest size, the one
 * that needs the most memory (perf_check_fits, perf_bytes_needed). */
static CvError largest(const PerfConfig *cfg, const AlgoInfo *a, Schedule *s)
{
    CollCall call = cfg->call;
    call.count = algo_file_count(a, coll_count_floor(&call,
                                                     sweep_last(&cfg->sweep)));
    call.in_place = first_place(a);
    return generate(cfg, a, &call, s);
}

CvError perf_check_fits(const PerfConfig *cfg, const AlgoInfo *a, char *why,
                        size_t whylen)
{
    Schedule s;
    char fits[160] = "";
    CvError e = largest(cfg, a, &s);
    if (!e) {
        e = exec_check_fits(&s, 0, fits, sizeof fits);
        sched_fini(&s);
    }
    if (e)
        snprintf(why, whylen, "at %llu bytes %s", sweep_last(&cfg->sweep),
                 fits[0] ? fits : cv_strerror(e));
    return e;
}

CvError perf_bytes_needed(const PerfConfig *cfg, const AlgoInfo *a,
                          unsigned long long *bytes)
{
    Schedule s;
    CvError e = largest(cfg, a, &s);
    if (!e) {
        *bytes = exec_bytes_needed(&s, 0);
        sched_fini(&s);
    }
    return e;
}

size_t perf_sweep_len(const PerfConfig *cfg)
{
    return sweep_counts(&cfg->sweep, &cfg->call, NULL);
}

/* The bytes of `count` elements per block of cfg's collective. */
static unsigned long long bytes_of(const PerfConfig *cfg, size_t count)
{
    CollCall call = cfg->call;
    call.count = count;
    return coll_size_bytes(&call);
}

CvError perf_same_schedule(const PerfConfig *cfg, const AlgoInfo *a,
                           const AlgoInfo *b, unsigned long long bytes,
                           bool *same)
{
    CollCall call = cfg->call;
    call.count = coll_count_floor(&call, bytes);
    call.in_place = first_place(a);
    Schedule x, y;
    *same = false;
    CvError e = generate(cfg, a, &call, &x);
    if (e)
        return e;
    if (!(e = generate(cfg, b, &call, &y))) {
        e = sched_same(&x, &y, same);
        sched_fini(&y);
    }
    sched_fini(&x);
    return e;
}

/* Row i of the sweep of algorithm a into *row, with the probes around it
 * (*before: the one before, then the one after). */
static CvError probed_row(Executor *ex, const PerfConfig *cfg,
                          const Calib *cal, const AlgoInfo *a,
                          unsigned long long bytes, PerfRow *row,
                          ProbeResult *before, char *why, size_t whylen)
{
    CvError e = perf_measure(ex, cfg, cal, a, bytes, row, why, whylen);
    if (e)
        return e;
    ProbeResult after = exec_probe(ex);
    row->probe[0] = before->ratio, row->probe[1] = after.ratio;
    row->probe_clean[0] = before->clean_s;
    row->probe_clean[1] = after.clean_s;
    *before = after;
    return CV_OK;
}

/* Warm every algorithm up at the largest and the smallest size; a library
 * row that cannot run here is dropped (gone[i], its sentence in why). */
static CvError warm_all(Executor *ex, const PerfConfig *cfg,
                        const AlgoInfo *const *algos, size_t nalgo,
                        const size_t *counts, size_t n, bool *gone,
                        char *why, size_t whylen)
{
    CvError e = CV_OK;
    for (size_t i = 0; i < nalgo && !e && n && cfg->warmup; i++) {
        e = warm_up(ex, cfg, algos[i], bytes_of(cfg, counts[n - 1]), why,
                    whylen);
        if (!e)
            e = warm_up(ex, cfg, algos[i], bytes_of(cfg, counts[0]), why,
                        whylen);
        if (e == CV_ERR_UNAVAILABLE && !algos[i])
            gone[i] = true, e = CV_OK;
    }
    return e;
}

CvError perf_sweep_all(Executor *ex, const PerfConfig *cfg, const Calib *cal,
                       const AlgoInfo *const *algos, size_t nalgo,
                       PerfRow *rows, size_t stride, bool *gone,
                       PerfProgress progress, void *ctx, char *why,
                       size_t whylen)
{
    size_t n = perf_sweep_len(cfg), done = 0;
    size_t *counts = malloc((n + 1) * sizeof *counts);
    if (!counts)
        return CV_ERR_NOMEM;
    sweep_counts(&cfg->sweep, &cfg->call, counts);
    CvError e = warm_all(ex, cfg, algos, nalgo, counts, n, gone, why, whylen);
    ProbeResult before = e ? (ProbeResult){0} : exec_probe(ex);
    for (size_t k = 0; k < n && !e; k++)
        for (size_t j = 0; j < nalgo && !e; j++) {
            size_t i = (k + j) % nalgo; /* size k starts with algorithm k */
            if (gone[i])
                continue;
            PerfRow *row = &rows[i * stride + k];
            e = probed_row(ex, cfg, cal, algos[i], bytes_of(cfg, counts[k]),
                           row, &before, why, whylen);
            if (e == CV_ERR_UNAVAILABLE && !algos[i])
                gone[i] = true, e = CV_OK;
            else if (!e && progress && progress(ctx, row, ++done, n * nalgo))
                e = CV_ERR_CANCELLED;
        }
    free(counts);
    return e;
}

CvError perf_sweep(Executor *ex, const PerfConfig *cfg, const Calib *cal,
                   const AlgoInfo *a, PerfRow *rows, PerfProgress progress,
                   void *ctx, char *why, size_t whylen)
{
    bool gone = false;
    CvError e = perf_sweep_all(ex, cfg, cal, &a, 1, rows, 0, &gone, progress,
                               ctx, why, whylen);
    return e ? e : gone ? CV_ERR_UNAVAILABLE : CV_OK;
}

/* ------------------------------------------------------------ summaries */

void perf_rows_free(PerfRow *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++)
        for (int pl = 0; pl < PERF_PLACE_COUNT; pl++) {
            free(rows[i].side[pl].times);
            rows[i].side[pl].times = NULL;
        }
}

long long perf_wrong_total(const PerfRow *rows, size_t n)
{
    long long w = 0;
    for (size_t i = 0; i < n; i++)
        for (int pl = 0; pl < PERF_PLACE_COUNT; pl++)
            w += rows[i].side[pl].wrong > 0 ? rows[i].side[pl].wrong : 0;
    return w;
}

double perf_avg_busbw(const PerfRow *rows, size_t n)
{
    double sum = 0;
    size_t sides = 0;
    for (size_t i = 0; i < n; i++)
        for (int pl = 0; pl < PERF_PLACE_COUNT && rows[i].name; pl++)
            if (!rows[i].side[pl].skipped) {
                sum += rows[i].side[pl].busbw;
                sides++;
            }
    return sides ? sum / (double)sides : 0;
}

double perf_ratio(const PerfSide *s, MachineKind k)
{
    return s->model_s[k] > 0 ? s->time_s / s->model_s[k] : 0;
}

/* Whether both a[0..2) and b[0..2) hold a measured value. */
static int both_probed(const double *a, const double *b)
{
    return (a[0] > 0 || a[1] > 0) && (b[0] > 0 || b[1] > 0);
}

int perf_host_moved(const Calib *cal, const PerfRow *row)
{
    double ratio[2] = {cal->state_ratio, 0}, clean[2] = {cal->state_clean, 0};
    int state = cal->state_probes > 0;
    const double *cr = state ? ratio : cal->probe, *rr = row->probe;
    const double *cc = state ? clean : cal->probe_clean, *rc = row->probe_clean;
    double v[4] = {cr[0], cr[1], rr[0], rr[1]};
    double c[4] = {cc[0], cc[1], rc[0], rc[1]};
    int moved = 0;
    if (both_probed(cr, rr) && !probe_same_state(v, 4))
        moved |= PERF_HOST_CROSS;
    if (both_probed(cc, rc) && !probe_same_speed(c, 4))
        moved |= PERF_HOST_SPEED;
    return moved;
}

void perf_best(const PerfRow *rows, size_t nalgo, size_t stride,
               MachineKind l, size_t *measured, size_t *model)
{
    *measured = *model = 0;
    while (*model + 1 < nalgo && !rows[*model * stride].algo)
        ++*model;
    for (size_t i = 1; i < nalgo; i++) {
        const PerfRow *r = &rows[i * stride];
        const PerfSide *s = &r->side[PERF_OUT_OF_PLACE];
        if (s->time_s < rows[*measured * stride].side[0].time_s)
            *measured = i;
        if (r->algo && s->model_s[l] < rows[*model * stride].side[0].model_s[l])
            *model = i;
    }
}

bool perf_bw_low(double avg, double min)
{
    return min >= 0 && !(avg >= 0.9 * min);
}
