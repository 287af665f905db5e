/* calib.c - micro-benchmarks that calibrate the cost model on an executor,
 * and their persistence in the XDG cache directory. */
#include "measure/calib.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "algos/algo.h"
#include "threads/copy.h"
#include "threads/plan.h"
#include "exec/probe.h"

/* ------------------------------------------------------------ schedules */

/* The benchmarks' buffers: every rank has one buffer of 2n floats (an
 * in-place allreduce, so every output element holds data from the start);
 * transfers read the first half of one rank and write the second half of
 * another, so no step overwrites what it reads. */
static CvError bench_init(Schedule *s, int p, size_t n, const char *name)
{
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = p, .count = 2 * n,
                  .dtype = DT_FLOAT, .op = OP_SUM, .in_place = true};
    return sched_init(s, &c, name);
}

/* One step: ranks 0 .. senders - 1 each send n elements to their right
 * neighbour in a ring of `ring` ranks, copying or reducing. A rank that
 * only sends also copies one element of its own, so that it is not idle
 * in the step: an idle source would push part of the transfer
 * (plan_push_all), and these steps measure one core moving data. */
static void bench_step(Schedule *s, XferOp op, int senders, int ring)
{
    size_t n = s->call.count / 2;
    sched_step(s, op == XFER_COPY ? "copy" : "reduce");
    for (int r = 0; r < senders; r++)
        sched_xfer(s, op, r, BUF_RECV, 0, (r + 1) % ring, BUF_RECV, n, n);
    for (int r = 0; r < senders; r++)
        if ((r + ring - 1) % ring >= senders) /* its left neighbour is idle */
            sched_copy(s, r, BUF_RECV, 0, r, BUF_RECV, n, 1);
}

/* Two steps: every rank copies the first half of its buffer into the
 * second half of its right neighbour's, then the second half into the
 * first half of its right neighbour's. Each step reads what the step
 * before wrote on another rank (the whole buffer changes hands). */
static void bench_cross_steps(Schedule *s, int p)
{
    size_t n = s->call.count / 2;
    for (int half = 0; half < 2; half++) {
        sched_step(s, "cross");
        for (int r = 0; r < p; r++)
            sched_xfer(s, XFER_COPY, r, BUF_RECV, half ? n : 0, (r + 1) % p,
                       BUF_RECV, half ? 0 : n, n);
    }
}

/* One step: every rank sends one element to every other (n >= p: rank r
 * sends element r of its first half into element r of the second half of
 * every other rank). */
static void bench_exchange_step(Schedule *s, int p)
{
    size_t n = s->call.count / 2;
    sched_step(s, "exchange");
    for (int r = 0; r < p; r++)
        for (int q = 0; q < p; q++)
            if (q != r)
                sched_copy(s, r, BUF_RECV, (size_t)r, q, BUF_RECV,
                           n + (size_t)r, 1);
}

/* The kinds of benchmark schedules. */
typedef enum {
    BENCH_SHIFT,     /* every rank copies to its right neighbour */
    BENCH_SHIFT_RED, /* ... then reduces into it */
    BENCH_PAIR,      /* rank 0 copies to rank 1 */
    BENCH_PAIR_RED,  /* ... then reduces into it */
    BENCH_CROSS,     /* every rank copies to its right neighbour what its
                        left neighbour wrote the step before */
    BENCH_KIND_COUNT,  /* the kinds above are measured at every footprint */
    BENCH_EXCHANGE = BENCH_KIND_COUNT /* every rank sends to every other
                                         (p elements: the message latency) */
} BenchKind;

/* Whether benchmark k runs on a lone pair (it needs two ranks). */
static int is_pair(BenchKind k)
{
    return k == BENCH_PAIR || k == BENCH_PAIR_RED;
}

/* Whether benchmark k ends with a reducing step after its copying one. */
static int is_reducing(BenchKind k)
{
    return k == BENCH_SHIFT_RED || k == BENCH_PAIR_RED;
}

/* Build benchmark `k` on p ranks with n elements per rank and `steps`
 * copying steps. */
static CvError bench_build(Schedule *s, BenchKind k, int p, size_t n,
                           int steps)
{
    CvError e = bench_init(s, p, n, "calibration");
    if (e)
        return e;
    int senders = is_pair(k) ? 1 : p, ring = is_pair(k) ? 2 : p;
    for (int i = 0; i < steps; i++)
        if (k == BENCH_CROSS)
            bench_cross_steps(s, p);
        else if (k == BENCH_EXCHANGE)
            bench_exchange_step(s, p);
        else
            bench_step(s, XFER_COPY, senders, ring);
    if (k == BENCH_SHIFT_RED || k == BENCH_PAIR_RED)
        bench_step(s, XFER_REDUCE, senders, ring);
    e = sched_end(s);
    if (e)
        sched_fini(s);
    return e;
}

/* ---------------------------------------------------------------- timing */

#define CALIB_RETAKES 4 /* a timing taken again at most (time_sched) */
#define CALIB_MAX_PROBES 8192 /* probes a calibration keeps at most */

/* A measurement in progress: the executor and where errors go. */
typedef struct {
    Executor *ex;      /* the executor measured */
    double target_s;   /* seconds one timed run should last */
    int reps;          /* timed runs; the fastest is kept */
    char *why;         /* the executor's sentence on failure */
    size_t whylen;     /* bytes of why */
    CalibProgress progress; /* called after each measurement, or NULL */
    void *ctx;         /* progress's argument */
    int done;          /* measurements done */
    int total;         /* measurements planned */
    double clean;      /* the fastest clean time of the probes so far, s
                          (the machine's usual speed; 0: no probe) */
    int retaken;       /* timings taken again (time_sched) */
    int watch;         /* nonzero: probe around every timing and take it
                          again in a spell (full calibrations; a quick
                          one probes only at its two ends) */
    ProbeResult *probes; /* every probe taken (NULL: none kept) */
    int nprobes;       /* probes kept */
} Bench;

static CvError bench_fail(Bench *b, CvError e)
{
    if (b->why && b->whylen)
        snprintf(b->why, b->whylen, "%s", b->ex->ops->last_error(b->ex));
    return e;
}

/* Probe the machine (exec_probe), keep the probe for the calibration's
 * state and the fastest clean time so far; all zeros when the backend
 * cannot probe. */
static ProbeResult bench_probe(Bench *b)
{
    ProbeResult r = exec_probe(b->ex);
    if (!(r.clean_s > 0))
        return r;
    if (b->probes && b->nprobes < CALIB_MAX_PROBES)
        b->probes[b->nprobes++] = r;
    b->clean = b->clean > 0 && b->clean < r.clean_s ? b->clean : r.clean_s;
    return r;
}

/* Probe the machine: whether its clean time ran slower than the fastest
 * probe's so far by more than probe.h's PROBE_SLOWER (never when the
 * backend cannot probe). */
static int bench_slow(Bench *b)
{
    double c = bench_probe(b).clean_s;
    return c > 0 && !probe_same_speed((const double[]){b->clean, c}, 2);
}

/* The median over runs of what the last step of s took beyond the one
 * before it, from the runs' step times v[run * nsteps + step]; NAN when
 * the backend gives no step times. */
static double step_diff(const Schedule *s, double *v, int runs)
{
    size_t n = s->nsteps;
    if (n < 2 || !(v[n - 1] > 0))
        return NAN;
    for (int i = 0; i < runs; i++)
        v[i] = v[(size_t)i * n + n - 1] - v[(size_t)i * n + n - 2];
    return probe_median(v, (size_t)runs);
}

/* Seconds per iteration of schedule s on b's executor: the fastest of
 * b->reps timed runs. The fastest, not the median: other programs on the
 * machine only ever slow a run down, and the model describes the machine,
 * not its neighbours. The machine slows itself down too: a virtual
 * machine runs for spells of tens of milliseconds to seconds at half its
 * speed (probe.h), longer than all b->reps runs together. So the runs
 * are probed before and after, and taken again, up to CALIB_RETAKES
 * times, while a probe says the machine was in such a spell (in a full
 * calibration: each probe takes 10 ms, and a quick one is meant to be
 * quick). With `diff`, also what its last step took beyond the one before
 * in the same runs (step_diff; NAN without step times): a difference of
 * two steps of one iteration, which a spell slows alike. */
static CvError time_sched(Bench *b, const Schedule *s, double *sec,
                          double *diff)
{
    const ExecOps *ops = b->ex->ops;
    ExecTiming t = {0};
    double *steps = NULL;
    if (diff && !(steps = calloc((size_t)b->reps * s->nsteps + 1, sizeof *steps)))
        return CV_ERR_NOMEM;
    CvError e = ops->load(b->ex, s);
    if (!e)
        e = ops->run(b->ex, 1, 1, &t);
    if (e) {
        free(steps);
        return bench_fail(b, e);
    }
    double est = t.iter_s > 1e-9 ? t.iter_s : 1e-9;
    int iters = (int)fmin(fmax(b->target_s / est, 2), 20000);
    double any = INFINITY; /* the fastest run of every take */
    for (int take = 0;; take++) {
        int slow = b->watch && bench_slow(b);
        *sec = INFINITY;
        for (int i = 0; i < b->reps; i++) {
            t.step_s = steps ? steps + (size_t)i * s->nsteps : NULL;
            if ((e = ops->run(b->ex, 1, iters, &t))) {
                free(steps);
                return bench_fail(b, e);
            }
            *sec = fmin(*sec, t.iter_s);
        }
        any = fmin(any, *sec);
        slow |= b->watch && bench_slow(b);
        if (!slow)
            break; /* a take in a spell is dropped: every timing is the
                      fastest of b->reps runs, so that a reducing
                      benchmark and the copying one it is set against
                      had as many chances */
        if (take == CALIB_RETAKES) {
            *sec = any;
            break;
        }
        b->retaken++;
    }
    if (diff)
        *diff = step_diff(s, steps, b->reps);
    free(steps);
    b->done++;
    if (b->progress && b->progress(b->ctx, b->done, b->total))
        return CV_ERR_CANCELLED;
    return CV_OK;
}

/* Build benchmark k and time it. */
static CvError time_bench(Bench *b, BenchKind k, size_t n, int steps,
                          double *sec, double *diff)
{
    Schedule s;
    CvError e = bench_build(&s, k, b->ex->nranks, n, steps);
    if (e)
        return e;
    e = time_sched(b, &s, sec, diff);
    sched_fini(&s);
    return e;
}

/* ------------------------------------------------------------ measuring */

#define ALPHA_STEPS 16 /* tiny steps in the alpha benchmark */
#define LAT_ELEMS (CALIB_LAT_BYTES / sizeof(float)) /* per latency message */
#define LAT_PAIRS 3    /* pairs of cross steps in the step latency's slope */
#define CALIB_ROUNDS 3 /* rounds of every measurement (Timings) */
#define CALIB_PROBES 3 /* probes at each end of a calibration */

/* Every timing of a calibration. The measurements are taken in rounds,
 * each round all of them once, and each timing is the median of its
 * rounds: a machine that is slow for a second or two (a virtual machine
 * whose host is busy) then spoils one round's timings, not every timing
 * of one benchmark, and a lucky moment (the host's memory less busy than
 * usual) does not become the model's idea of this machine either. */
typedef struct {
    double alpha_t;                 /* ALPHA_STEPS tiny steps */
    double exch_t;                  /* ALPHA_STEPS tiny exchanges (p > 2) */
    double lat[BENCH_KIND_COUNT];   /* copying benchmarks, LAT_ELEMS, one
                                       step (cross: two) */
    double lat_many;                /* cross, LAT_ELEMS, LAT_PAIRS pairs */
    double t[CALIB_MAX_POINTS][BENCH_KIND_COUNT]; /* each benchmark at
                                                     each footprint */
    double red[CALIB_MAX_POINTS][BENCH_KIND_COUNT]; /* of the reducing ones,
                                      the reducing step less the copying
                                      one in the same runs (step_diff) */
} Timings;

/* The median of n values (n <= CALIB_ROUNDS). */
static double median(const double *v, int n)
{
    double s[CALIB_ROUNDS];
    memcpy(s, v, (size_t)n * sizeof *s);
    return probe_median(s, (size_t)n);
}

/* Each timing of tm the median of its values in r[0 .. n). */
static void timings_median(const Timings *r, int n, Timings *tm)
{
    double v[CALIB_ROUNDS];
#define MEDIAN(field)                                                       \
    do {                                                                    \
        for (int i = 0; i < n; i++)                                         \
            v[i] = r[i].field;                                              \
        tm->field = median(v, n);                                           \
    } while (0)
    MEDIAN(alpha_t);
    MEDIAN(exch_t);
    MEDIAN(lat_many);
    for (int k = 0; k < BENCH_KIND_COUNT; k++) {
        MEDIAN(lat[k]);
        for (int p = 0; p < CALIB_MAX_POINTS; p++) {
            MEDIAN(t[p][k]);
            MEDIAN(red[p][k]);
        }
    }
#undef MEDIAN
}

/* One round of every measurement: alpha (one-element steps), the latency
 * parts (messages of nlat elements: a few KiB, too small for their bytes
 * to count, large enough to travel as large ones do; a backend may send
 * tiny messages another way, as the threads backend's eager channels do
 * when ranks outnumber cores, which alpha measures), and the benchmarks
 * at each of the npts counts cnt[]. Without a pair (one rank) the pair
 * benchmarks are the shift ones. */
static CvError measure_round(Bench *b, size_t nlat, const size_t *cnt,
                             int npts, Timings *tm)
{
    int pairs = b->ex->nranks > 1;
    *tm = (Timings){0};
    CvError e = time_bench(b, BENCH_SHIFT, 1, ALPHA_STEPS, &tm->alpha_t, NULL);
    if (!e && b->ex->nranks > 2)
        e = time_bench(b, BENCH_EXCHANGE, (size_t)b->ex->nranks, ALPHA_STEPS,
                       &tm->exch_t, NULL);
    static const BenchKind lat[] = {BENCH_SHIFT, BENCH_PAIR, BENCH_CROSS};
    for (size_t i = 0; !e && i < sizeof lat / sizeof lat[0]; i++)
        if (pairs || !is_pair(lat[i]))
            e = time_bench(b, lat[i], nlat, 1, &tm->lat[lat[i]], NULL);
    if (!e)
        e = time_bench(b, BENCH_CROSS, nlat, LAT_PAIRS, &tm->lat_many, NULL);
    for (int i = 0; !e && i < npts; i++)
        for (int k = 0; !e && k < BENCH_KIND_COUNT; k++)
            if (pairs || !is_pair((BenchKind)k))
                e = time_bench(b, (BenchKind)k, cnt[i], 1, &tm->t[i][k],
                               is_reducing((BenchKind)k) ? &tm->red[i][k]
                                                         : NULL);
    return e;
}

/* Per-byte time of a step that took t, alpha of it latency; 0 when the
 * bytes took less than three quarters of t: then they cannot be told
 * apart from the latency. With more ranks than cores, the latency of a
 * small step is thread switching, which varies from run to run, and grows
 * with the step: a rank that waits longer than it spins sleeps and is
 * woken. Measured with 8 ranks on 2 cores: the copies of 256 KB and 1 MB
 * working sets took 53% and 69% of their steps, and what was left of the
 * latency made them 23 and 45 GB/s against 53 at 4 MB (88%) and 64 at
 * 8 MB, so the model priced the caches of a 1 MiB gather or chain
 * broadcast by memory's (they ran 0.65-0.75x of it). */
static double per_byte(double t, double alpha, double bytes)
{
    double moved = t - alpha;
    return moved > 0.75 * t ? moved / bytes : 0;
}

/* Whether c's ranks outnumber the cores they ran on (when known): then
 * they take turns at the cores. */
static int crowded(const Calib *c)
{
    return c->cores > 0 && c->nranks > c->cores;
}

/* What the reducing step of benchmark k (at point i) costs beyond the
 * copying one. Where every rank has a core of its own (own), from the
 * step times of the same runs (Timings.red): a spell of the machine at
 * half its speed slows both steps alike, and the difference is taken
 * once. Otherwise, and where the backend gives no step times, from the
 * whole benchmarks (t: k's time less twice its copying one's), which
 * counts the copying benchmark's noise twice and each from other runs:
 * measured with 2 ranks at footprints of 1 and 4 MB, the step times gave
 * 50-54 and 72 GB/s from run to run where the whole times gave 1-186 and
 * 4-72 (2026-11-22). With ranks taking turns at the cores, the end of a
 * step is only the last rank's turn. */
static double reduce_extra(const Timings *tm, int i, BenchKind k, int own,
                           const double *t)
{
    double d = tm->red[i][k];
    if (own && isfinite(d))
        return d;
    return t[k] - 2 * t[k == BENCH_SHIFT_RED ? BENCH_SHIFT : BENCH_PAIR];
}

/* Points whose bandwidth drowned in the latency take the bandwidth of the
 * next larger working set (caches only ever make small ones faster). */
static void fill_undetermined(Calib *c)
{
    for (int i = c->npoints - 1; i >= 0; i--) {
        CalibPoint *p = &c->pt[i], *next = i + 1 < c->npoints ? p + 1 : NULL;
        double sh = next ? next->beta_shared : 1e-15, pp = next ? next->beta_p2p : 1e-15;
        double cr = next ? next->beta_cross : 1e-15;
        if (!(p->beta_shared > 0))
            p->beta_shared = sh;
        if (!(p->beta_p2p > 0))
            p->beta_p2p = pp;
        if (!(p->beta_cross > 0))
            p->beta_cross = cr;
    }
}

/* The parameters from the timings. alpha: the whole time per step of the
 * tiny benchmark (the slope between 1 and many steps would leave out the
 * fixed cost of starting a run, which the model has no other term for).
 * Step latency: the slope of the cross benchmark (each step reads what
 * the step before wrote on another rank, as in a ring) over its steps,
 * less its messages' bytes at the smallest working set's cross bandwidth;
 * the rest of its time is the iteration's (where more ranks than cores
 * share them, a step waits for the one before on another rank, and a rank
 * returns only once its readers are done). Bandwidths: what is left of a
 * benchmark's step beyond its latency part; gamma: what a reducing step
 * costs beyond copying. The largest point always gets bandwidths (its
 * bytes cannot drown in the latency). */
static void derive(const Timings *tm, size_t nlat, const size_t *cnt,
                   int npts, int p, Calib *c)
{
    double lat[BENCH_KIND_COUNT];
    memcpy(lat, tm->lat, sizeof lat);
    if (p < 2)
        lat[BENCH_PAIR] = lat[BENCH_SHIFT];
    lat[BENCH_CROSS] /= 2;
    c->alpha = tm->alpha_t / ALPHA_STEPS;
    /* between free (a message only a flag) and a whole alpha each */
    c->alpha_msg = p > 2 ? fmin(fmax((tm->exch_t / ALPHA_STEPS - c->alpha) /
                                         (p - 2), 0), c->alpha)
                         : c->alpha;
    c->npoints = npts;
    int own = c->cores > 0 && !crowded(c);
    for (int i = 0; i < npts; i++) {
        double t[BENCH_KIND_COUNT], bytes = (double)cnt[i] * sizeof(float);
        memcpy(t, tm->t[i], sizeof t);
        if (p < 2)
            t[BENCH_PAIR] = t[BENCH_SHIFT], t[BENCH_PAIR_RED] = t[BENCH_SHIFT_RED];
        CalibPoint *pt = &c->pt[i];
        pt->footprint = 2.0 * p * bytes;
        pt->beta_shared = per_byte(t[BENCH_SHIFT], lat[BENCH_SHIFT], p * bytes);
        pt->beta_p2p = per_byte(t[BENCH_PAIR], lat[BENCH_PAIR], bytes);
        pt->gamma_shared = fmax(0, reduce_extra(tm, i, BENCH_SHIFT_RED, own,
                                                t) / (p * bytes));
        pt->gamma_p2p = fmax(0, reduce_extra(tm, i, p < 2 ? BENCH_SHIFT_RED
                                                          : BENCH_PAIR_RED,
                                             own, t) / bytes);
        pt->beta_cross = per_byte(t[BENCH_CROSS] / 2, lat[BENCH_CROSS], p * bytes);
        if (i < npts - 1)
            continue;
        if (!(pt->beta_shared > 0) && !(pt->beta_p2p > 0))
            pt->beta_shared = t[BENCH_SHIFT] / (p * bytes),
            pt->beta_p2p = t[BENCH_PAIR] / bytes;
        if (!(pt->beta_cross > 0))
            pt->beta_cross = t[BENCH_CROSS] / 2 / (p * bytes);
    }
    fill_undetermined(c);
    calib_smooth(c);
    /* The slope includes the latency messages' own bytes: not latency. */
    double one = tm->lat[BENCH_CROSS], lat_bytes = (double)p * nlat * sizeof(float);
    double slope = (tm->lat_many - one) / (2 * (LAT_PAIRS - 1));
    c->lat_step = fmax(slope - lat_bytes * c->pt[0].beta_cross, 0.1 * slope);
    c->lat_iter = fmax(one - 2 * slope, 0);
}

static void monotone_down(double *w, int n);

void calib_smooth(Calib *c)
{
    static const size_t field[] = {offsetof(CalibPoint, gamma_shared),
                                   offsetof(CalibPoint, gamma_p2p)};
    double v[CALIB_MAX_POINTS];
    int n = c->npoints < CALIB_MAX_POINTS ? c->npoints : CALIB_MAX_POINTS;
    for (size_t f = 0; f < sizeof field / sizeof field[0]; f++) {
#define GAMMA(i) (*(double *)((char *)&c->pt[i] + field[f]))
        for (int i = 0; i < n; i++) /* rising = falling, negated */
            v[i] = -GAMMA(i);
        monotone_down(v, n);
        for (int i = 0; i < n; i++)
            GAMMA(i) = -v[i];
#undef GAMMA
    }
}

/* Footprints measured: a ladder from inside the caches to well beyond. */
static int footprints(const CalibOptions *o, double *out)
{
    static const double full[] = {256e3, 1e6, 4e6, 8e6, 16e6, 32e6, 64e6,
                                  128e6, 256e6, 1e9};
    static const double quick[] = {1e6, 8e6, 32e6, 256e6};
    const double *f = o->quick ? quick : full;
    int n = o->quick ? 4 : 10, m = 0;
    double max = o->max_bytes > 0 ? o->max_bytes : 1e300;
    for (int i = 0; i < n && m < CALIB_MAX_POINTS; i++)
        if (f[i] <= max || i == 0)
            out[m++] = f[i];
    return m;
}

/* ------------------------------------------------------ fitting the link */

/* Time schedule s and record each link model's relative error. */
static CvError fit_one(Bench *b, Calib *c, const Schedule *s)
{
    double meas = 0;
    CvError e = time_sched(b, s, &meas, NULL);
    for (int l = 0; !e && l < LINK_COUNT; l++) {
        double pred;
        e = calib_predict(c, s, (LinkModel)l, &pred);
        double err = pred > 0 ? fabs(meas / pred - 1) : 1e9;
        if (!e && err > c->fit_err[l])
            c->fit_err[l] = err;
    }
    return e;
}

/* Count per rank for a validation schedule of collective k: a footprint of
 * about `bytes` over every rank's send and recv. */
static size_t fit_count(CollKind k, int p, double bytes)
{
    double per_rank = bytes / p / sizeof(float);
    double blocks = k == COLL_BROADCAST || k == COLL_ALLREDUCE ? 2 : 2.0 * p;
    size_t n = (size_t)(per_rank / blocks);
    return n ? n : 1;
}

/* Time the defaults of broadcast and allreduce and pick the link model
 * whose worst error is smaller. */
static CvError fit_link(Bench *b, Calib *c, double bytes)
{
    static const CollKind kinds[] = {COLL_BROADCAST, COLL_ALLREDUCE};
    for (int l = 0; l < LINK_COUNT; l++)
        c->fit_err[l] = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        const AlgoInfo *a = algo_default(kinds[i]);
        CollCall call = {.kind = kinds[i], .nranks = c->nranks,
                         .count = fit_count(kinds[i], c->nranks, bytes),
                         .dtype = DT_FLOAT, .op = OP_SUM};
        Schedule s;
        CvError e = a ? algo_generate(a, &call, &s) : CV_ERR_ALGO;
        if (e)
            return e;
        e = fit_one(b, c, &s);
        sched_fini(&s);
        if (e)
            return e;
    }
    c->link = c->fit_err[LINK_SHARED] <= c->fit_err[LINK_P2P] ? LINK_SHARED
                                                              : LINK_P2P;
    return CV_OK;
}

double calib_spread(const double *v, int n)
{
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < n; i++) {
        if (!(v[i] > 0))
            return 0;
        lo = fmin(lo, v[i]), hi = fmax(hi, v[i]);
    }
    return n > 0 ? hi / lo : 0;
}

/* The state the calibration measured in, from every probe it took: the
 * median ratio, and the median clean time of the probes at the machine's
 * usual speed (within PROBE_SLOWER of the fastest: the timings taken in
 * a spell were taken again). The probes at its two ends alone do not
 * say it: one of them often falls into another state than most of the
 * calibration's minutes (measured: 5 of 15 calibrations of a bench ended
 * or began in the slow cross-core state, and then flagged every size of
 * their round). */
static void probe_state(const Bench *b, Calib *out)
{
    int n = b->nprobes, usual = 0;
    double *v = n ? malloc((size_t)n * sizeof *v) : NULL;
    if (!v)
        return;
    for (int i = 0; i < n; i++)
        v[i] = b->probes[i].ratio;
    out->state_ratio = probe_median(v, (size_t)n);
    for (int i = 0; i < n; i++)
        if (probe_same_speed((const double[]){b->clean, b->probes[i].clean_s}, 2))
            v[usual++] = b->probes[i].clean_s;
    out->state_clean = probe_median(v, (size_t)usual);
    out->state_probes = n;
    free(v);
}

/* The state at one end of the calibration: of CALIB_PROBES probes, the
 * one that ran fastest (a single probe may fall into a spell). */
static void probe_end(Bench *b, double *ratio, double *clean_s)
{
    *ratio = *clean_s = 0;
    for (int i = 0; i < CALIB_PROBES; i++) {
        ProbeResult r = bench_probe(b);
        if (r.clean_s > 0 && (!(*clean_s > 0) || r.clean_s < *clean_s))
            *ratio = r.ratio, *clean_s = r.clean_s;
    }
}

CvError calib_measure(Executor *ex, const CalibOptions *o, Calib *out,
                      CalibProgress progress, void *ctx, char *why,
                      size_t whylen)
{
    double fp[CALIB_MAX_POINTS];
    size_t cnt[CALIB_MAX_POINTS];
    int n = footprints(o, fp), p = ex->nranks;
    int cores = exec_cpus();
    int per_round = 5 + (p > 2) + BENCH_KIND_COUNT * n;
    Bench b = {.ex = ex, .target_s = 0.0005, .reps = o->quick ? 3 : 5,
               .watch = !o->quick,
               .why = why, .whylen = whylen, .progress = progress,
               .ctx = ctx, .total = CALIB_ROUNDS * per_round + 2};
    *out = (Calib){.nranks = p, .when = (long long)time(NULL),
                   .quick = o->quick, .link = LINK_SHARED,
                   .cores = cores};
    snprintf(out->backend, sizeof out->backend, "%s", ex->ops->name);
    for (int i = 0; i < n; i++) {
        cnt[i] = (size_t)(fp[i] / (2.0 * p * sizeof(float)));
        cnt[i] = cnt[i] ? cnt[i] : 1;
    }
    size_t nlat = cnt[0] / 4 < LAT_ELEMS ? (cnt[0] / 4 ? cnt[0] / 4 : 1)
                                         : LAT_ELEMS;
    Timings r[CALIB_ROUNDS], tm;
    CvError e = CV_OK;
    b.probes = malloc(CALIB_MAX_PROBES * sizeof *b.probes); /* NULL: the
                                                    state is not kept */
    probe_end(&b, &out->probe[0], &out->probe_clean[0]);
    for (int i = 0; !e && i < CALIB_ROUNDS; i++)
        e = measure_round(&b, nlat, cnt, n, &r[i]);
    if (!e) {
        probe_end(&b, &out->probe[1], &out->probe_clean[1]);
        timings_median(r, CALIB_ROUNDS, &tm);
        derive(&tm, nlat, cnt, n, p, out);
        for (int i = 0; i < n; i++) {
            double v[CALIB_ROUNDS];
            for (int k = 0; k < CALIB_ROUNDS; k++)
                v[k] = r[k].t[i][BENCH_CROSS];
            out->unsteady = fmax(out->unsteady, calib_spread(v, CALIB_ROUNDS));
        }
        e = fit_link(&b, out, fp[n - 1] / 2);
    }
    if (!e)
        probe_state(&b, out);
    out->retaken = b.retaken;
    free(b.probes);
    return e;
}

/* ------------------------------------------------------------ the model */

static int imax(int a, int b) { return a > b ? a : b; }

double calib_footprint(const Schedule *s)
{
    double elems = 0;
    for (int r = 0; r < s->call.nranks; r++)
        for (int k = 0; k < BUF_COUNT; k++)
            elems += (double)sched_bufsize(s, r, (BufId)k);
    return elems * (double)dtype_size(s->call.dtype);
}

/* Linear interpolation in log(footprint) of field `off` of the points. */
static double interp(const Calib *c, double f, size_t off)
{
    const CalibPoint *pt = c->pt;
#define FIELD(i) (*(const double *)((const char *)&pt[i] + off))
    if (c->npoints < 1)
        return 0;
    if (f <= pt[0].footprint || c->npoints == 1)
        return FIELD(0);
    for (int i = 1; i < c->npoints; i++) {
        if (f <= pt[i].footprint) {
            double w = log(f / pt[i - 1].footprint) /
                       log(pt[i].footprint / pt[i - 1].footprint);
            return FIELD(i - 1) + w * (FIELD(i) - FIELD(i - 1));
        }
    }
    return FIELD(c->npoints - 1);
#undef FIELD
}

ModelParams calib_params(const Calib *c, LinkModel l, double footprint)
{
    int sh = l == LINK_SHARED;
    ModelParams m = {.alpha = c->alpha};
    m.beta = interp(c, footprint, sh ? offsetof(CalibPoint, beta_shared)
                                     : offsetof(CalibPoint, beta_p2p));
    m.gamma = interp(c, footprint, sh ? offsetof(CalibPoint, gamma_shared)
                                      : offsetof(CalibPoint, gamma_p2p));
    return m;
}

/* ------------------------------------------------- the shared memory */

/* How a byte's cost depends on the cache. The shift benchmark touches
 * every byte of its footprint F once per iteration, so each byte comes
 * back after F other bytes: its reuse distance is F. The calibrated
 * bandwidth at F is therefore a mix, w(F) of the cache's speed (the
 * fastest small working set) and 1 - w(F) of memory's (the largest):
 * w = (beta_mem - beta(F)) / (beta_mem - beta_cache). A schedule's bytes
 * are then charged by their own reuse distance, which is what lets a ring
 * that keeps revisiting its recv buffer run at cache speed while a single
 * pass over the same footprint does not.
 *
 * Memory is one bandwidth for the whole machine (one core nearly fills
 * it), but caches are per core: the cache share of a byte is work for the
 * core of the rank that moves it (in the threads backend the destination,
 * which also stages). So a step whose bytes fall on fewer ranks than
 * there are cores takes longer than its bytes over the whole machine's
 * cache bandwidth. */
typedef struct {
    double beta_cache; /* s/B, all cores busy, data in cache */
    double beta_mem;   /* s/B, data in memory */
    double beta_one;   /* s/B, data in memory, moved by one core alone */
    int cores;         /* cores the ranks run on: min(p, exec_cpus) */
    int n;             /* points of the weight curve */
    double dist[CALIB_MAX_POINTS]; /* reuse distances, increasing */
    double w[CALIB_MAX_POINTS];    /* cache share at dist[i], decreasing */
} CacheCurve;

/* Replace w[0..n) by the closest non-increasing sequence (least squares:
 * pool adjacent violators): a farther working set is never faster, so a
 * share that rises with distance is noise, averaged out with its
 * neighbours. */
static void monotone_down(double *w, int n)
{
    double sum[CALIB_MAX_POINTS];
    int len[CALIB_MAX_POINTS], blocks = 0;
    for (int i = 0; i < n; i++) {
        sum[blocks] = w[i], len[blocks++] = 1;
        while (blocks > 1 && sum[blocks - 1] / len[blocks - 1] >
                                 sum[blocks - 2] / len[blocks - 2]) {
            sum[blocks - 2] += sum[blocks - 1];
            len[blocks - 2] += len[blocks - 1];
            blocks--;
        }
    }
    for (int b = 0, i = 0; b < blocks; b++)
        for (int k = 0; k < len[b]; k++)
            w[i++] = sum[b] / len[b];
}

/* Whether the cross curve describes reads of what another rank wrote:
 * every point measured (files older than it have none: there the shared
 * curve stands in), and every rank on a core of its own. Where ranks
 * outnumber the cores they take turns at them, and the cross benchmark's
 * small working sets time those turns (charged already as the steps'
 * latency) more than the way lines travel between caches: measured over
 * two bench runs of 4 and 8 ranks on 2 cores, 13 algorithms were within
 * 25% of the model at every size with the shared curve alone that were
 * not with the cross one, and 6 the other way round (at 2 ranks, one per
 * core, the cross curve is what makes 23 of them fit). */
static int has_cross(const Calib *c)
{
    if (crowded(c))
        return 0;
    for (int i = 0; i < c->npoints; i++)
        if (!(c->pt[i].beta_cross > 0))
            return 0;
    return c->npoints > 0;
}

/* The curve of the shared bandwidths (cross: the cross ones). The shared
 * curve only falls with distance (monotone_down). The cross one need not:
 * a line another core wrote a short while ago is still in that core's
 * own cache and comes from there, slower than from the shared cache (even
 * slower than from memory: a share below 0, down to -1, and the extra is
 * the cores' work); once evicted to the shared cache it comes fast. */
static void curve_init(const Calib *c, CacheCurve *cv, int cross)
{
    int n = c->npoints;
#define BETA(i) (cross ? c->pt[i].beta_cross : c->pt[i].beta_shared)
    cv->beta_cache = BETA(0);
    for (int i = 1; i < (n + 1) / 2; i++) /* fastest of the small half */
        cv->beta_cache = fmin(cv->beta_cache, BETA(i));
    /* Memory: the slowest of the largest three working sets (one run of
     * the largest can be lucky). */
    cv->beta_mem = cv->beta_cache;
    for (int i = n > 3 ? n - 3 : 0; i < n; i++)
        cv->beta_mem = fmax(cv->beta_mem, BETA(i));
    cv->beta_one = cv->beta_mem;
    for (int i = n > 3 ? n - 3 : 0; i < n; i++)
        cv->beta_one = fmax(cv->beta_one, c->pt[i].beta_p2p);
    cv->cores = c->cores > 0 && c->cores < c->nranks ? c->cores : c->nranks;
    cv->cores = cv->cores > 0 ? cv->cores : 1;
    double span = cv->beta_mem - cv->beta_cache;
    cv->n = n;
    for (int i = 0; i < n; i++) {
        /* One bandwidth at every size: nothing to tell the cache by. */
        double w = span > 0 ? (cv->beta_mem - BETA(i)) / span : 0;
        cv->w[i] = fmin(fmax(w, cross ? -1.0 : 0.0), 1.0);
        cv->dist[i] = c->pt[i].footprint;
    }
#undef BETA
    if (!cross)
        monotone_down(cv->w, n);
}

/* The cache share of a byte that comes back after d bytes. */
static double curve_weight(const CacheCurve *cv, double d)
{
    if (d <= cv->dist[0])
        return cv->w[0];
    for (int i = 1; i < cv->n; i++)
        if (d <= cv->dist[i]) {
            double f = log(d / cv->dist[i - 1]) / log(cv->dist[i] / cv->dist[i - 1]);
            return cv->w[i - 1] + f * (cv->w[i] - cv->w[i - 1]);
        }
    return cv->w[cv->n - 1];
}

/* Every rank's buffers, and the stage where the executor copies sources
 * that a step overwrites, as one address space cut into chunks, each with
 * the byte clock of its last touch. */
#define MEM_STAGE BUF_COUNT     /* the stage's slot after a rank's buffers */
#define MEM_SLOTS (BUF_COUNT + 1)

typedef struct {
    const Schedule *s;     /* the schedule */
    const uint8_t *staged; /* the validator's flags: source staged first */
    const Transfer **init; /* [transfer]: a fused reduce's copy (executors
                              fuse copy-ins in timed runs: sched.h) */
    uint8_t *skip;         /* [transfer]: a copy a fused reduce replaces */
    size_t *push;          /* [transfer]: elements at its end its source
                              performs (plan_push_all) */
    const CacheCurve *cv;  /* the costs of bytes the toucher touched last */
    const CacheCurve *cx;  /* ... and of bytes another rank touched last */
    size_t ts;             /* bytes per element */
    size_t chunk;          /* bytes per chunk */
    size_t *base;          /* [r * MEM_SLOTS + slot]: first byte of region */
    double *last;          /* [chunk]: clock of its last touch, < 0: never */
    int32_t *owner;        /* [chunk]: r >= 0: written by rank r (dirty in
                              its core's cache); -2 - r: read last by rank
                              r (a clean copy there); -1: in no core */
    double clock;          /* bytes touched so far */
    size_t stream_min;     /* copies of this many bytes and more stream
                              (copy_stream_min) */
    int misses;            /* nonzero: the working set does not fit the
                              last-level cache, so a write that misses it
                              reads the line first (memmap_touch) */
    size_t *at;            /* [rank]: elements of its stage used this step */
    double *core;          /* [rank]: cache seconds of this step's bytes */
    double mem;            /* memory seconds of this step's bytes */
    double *memr;          /* [rank]: ... of its bytes, at one core's rate */
} MemMap;

/* Elements of rank r's stage: the most any step stages into it. */
static size_t stage_elems(const Schedule *s, const uint8_t *staged, int r)
{
    size_t most = 0;
    for (size_t k = 0; k < s->nsteps; k++) {
        size_t n = 0, end = s->steps[k].first + s->steps[k].n;
        for (size_t i = s->steps[k].first; i < end; i++)
            n += staged[i] && s->xfers[i].dst == r ? s->xfers[i].count : 0;
        most = n > most ? n : most;
    }
    return most;
}

/* The fused pairs of s (sched_fuse_partner) and its pushes
 * (plan_push_all) on `cores` cores, as the executors run them. */
static CvError memmap_fuse(MemMap *mm, const Schedule *s, int cores)
{
    mm->init = calloc(s->nxfers + 1, sizeof *mm->init);
    mm->skip = calloc(s->nxfers + 1, 1);
    mm->push = calloc(s->nxfers + 1, sizeof *mm->push);
    if (!mm->init || !mm->skip || !mm->push)
        return CV_ERR_NOMEM;
    plan_fuse_all(s, mm->init, mm->skip);
    return plan_push_all(s, cores, PLAN_PUSH_BYTES, mm->push);
}

static CvError memmap_init(MemMap *mm, const Schedule *s,
                           const uint8_t *staged, const CacheCurve *cv,
                           const CacheCurve *cx, int cores)
{
    size_t total = 0, p = (size_t)s->call.nranks;
    *mm = (MemMap){.s = s, .staged = staged, .cv = cv, .cx = cx,
                   .ts = dtype_size(s->call.dtype)};
    if (memmap_fuse(mm, s, cores))
        return CV_ERR_NOMEM;
    mm->base = malloc(p * MEM_SLOTS * sizeof *mm->base);
    for (size_t r = 0; mm->base && r < p; r++)
        for (size_t b = 0; b < MEM_SLOTS; b++) {
            mm->base[r * MEM_SLOTS + b] = total;
            total += mm->ts * (b == MEM_STAGE ? stage_elems(s, staged, (int)r)
                                              : s->bufsize[r * BUF_COUNT + b]);
        }
    mm->chunk = total / 262144 > 4096 ? total / 262144 : 4096;
    mm->stream_min = copy_stream_min(total);
    /* One as large as the cache does not fit either: the cache also holds
     * everything else (code, stacks, and on a shared cache the other
     * programs' data). Measured with 4 ranks, where every rank's buffers
     * come to 32 MiB together (the cache's size here): a linear gather of
     * 16 MiB and a pairwise alltoall of 4 MiB ran 1.40x and 1.82x a model
     * that had their writes hit, and run 1.06x and 1.38x this one (medians
     * of ten rounds in two bench runs). */
    mm->misses = total >= copy_cache_bytes();
    size_t chunks = total / mm->chunk + 1;
    mm->last = mm->base ? malloc(chunks * sizeof *mm->last) : NULL;
    mm->owner = malloc(chunks * sizeof *mm->owner);
    mm->at = malloc(p * sizeof *mm->at);
    mm->core = malloc(p * sizeof *mm->core);
    mm->memr = malloc(p * sizeof *mm->memr);
    for (size_t i = 0; mm->last && mm->owner && i < chunks; i++)
        mm->last[i] = -1, mm->owner[i] = -1;
    return mm->last && mm->owner && mm->at && mm->core && mm->memr
               ? CV_OK : CV_ERR_NOMEM;
}

static void memmap_fini(MemMap *mm)
{
    free(mm->base);
    free(mm->last);
    free(mm->owner);
    free(mm->init);
    free(mm->skip);
    free(mm->push);
    free(mm->at);
    free(mm->core);
    free(mm->memr);
}

/* How a transfer touches bytes. */
typedef enum {
    TOUCH_READ,   /* a read */
    TOUCH_WRITE,  /* a write: a store into a line not in the cache first
                     reads the line (copy.h), in a working set that does
                     not fit the last-level cache a read from memory more */
    TOUCH_RESULT, /* a reduction's write (the calibrated gamma holds what
                     it costs beyond a copy's) */
    TOUCH_STREAM  /* a streaming copy's write (copy.h): to memory, and
                     gone from the caches */
} Touch;

/* Rank `who` touches n elements of rank r's region `slot` from off, as
 * one side (half the cost) of a copy. A byte never touched before comes
 * from memory. A byte is cross (costs what the cross curve says) when
 * another rank's core holds its line and the touch needs that core: a
 * read of a line that core wrote (the line comes from there), a write to
 * a line that core has (its copy must go first, as when a rank overwrites
 * what its neighbour read the step before). Lines a rank reads are then
 * in its core's cache, clean. Memory's beta is a streamed copy's (the
 * calibration's largest working sets stream: copy.h's rule), so where the
 * working set does not fit the last-level cache, a copy's ordinary write
 * that misses the caches costs a second half, the line's read. */
static void memmap_touch(MemMap *mm, int who, int r, int slot, size_t off,
                         size_t n, Touch how)
{
    int write = how != TOUCH_READ, streamed = how == TOUCH_STREAM;
    double own = how == TOUCH_WRITE && mm->misses ? 2 : 1;
    size_t lo = mm->base[(size_t)r * MEM_SLOTS + (size_t)slot] + off * mm->ts;
    size_t hi = lo + n * mm->ts;
    for (size_t c = lo / mm->chunk; c * mm->chunk < hi; c++) {
        size_t a = c * mm->chunk > lo ? c * mm->chunk : lo;
        size_t e = (c + 1) * mm->chunk < hi ? (c + 1) * mm->chunk : hi;
        double d = mm->last[c] < 0 ? INFINITY : mm->clock - mm->last[c];
        int32_t o = mm->owner[c], held = o >= 0 ? o : o <= -2 ? -2 - o : -1;
        int cross = held >= 0 && held != who && (write || o >= 0);
        const CacheCurve *cv = cross ? mm->cx : mm->cv;
        double w = streamed ? 0 : curve_weight(cv, d);
        double half = 0.5 * (double)(e - a);
        mm->owner[c] = streamed ? -1 : write ? who : o == who ? o : -2 - who;
        /* w < 0 (cross, slower than memory): memory's cost, and the
         * rest is the core's */
        double wm = fmax(w, 0);
        mm->core[who] += half * (w >= 0 ? w * cv->beta_cache
                                        : w * (cv->beta_cache - cv->beta_mem));
        mm->mem += own * half * (1 - wm) * cv->beta_mem;
        mm->memr[who] += own * half * (1 - wm) * cv->beta_one;
        mm->clock += (double)(e - a);
        mm->last[c] = streamed ? -1 : mm->clock;
    }
}

/* Rank `who` copies (or reduces: how) n elements from (sr, ss, so) to
 * (dr, ds, dof). */
static void memmap_copy(MemMap *mm, int who, int sr, int ss, size_t so,
                        int dr, int ds, size_t dof, size_t n, Touch how)
{
    memmap_touch(mm, who, sr, ss, so, n, TOUCH_READ);
    memmap_touch(mm, who, dr, ds, dof, n, how);
}

/* Elements [from, from + n) of transfer x, not staged, moved by rank
 * `who` (its destination, or its source for a pushed tail). */
static void memmap_part(MemMap *mm, const Transfer *x, const Transfer *in,
                        int who, size_t from, size_t n, Touch how)
{
    if (!n)
        return;
    if (in) /* the fused reduce also reads the copy's source */
        memmap_touch(mm, who, x->dst, in->src_buf, in->src_off + from, n,
                     TOUCH_READ);
    memmap_copy(mm, who, x->src, x->src_buf, x->src_off + from, x->dst,
                x->dst_buf, x->dst_off + from, n, how);
}

/* Transfer i of a step, pass 0 (staging: the destination copies a source
 * the step overwrites into its stage) or pass 1 (the transfer itself). */
static void memmap_xfer(MemMap *mm, size_t i, int pass)
{
    const Transfer *x = &mm->s->xfers[i], *in = mm->init[i];
    int d = x->dst;
    Touch how = x->op != XFER_COPY                     ? TOUCH_RESULT
                : x->count * mm->ts >= mm->stream_min ? TOUCH_STREAM
                                                      : TOUCH_WRITE;
    if (mm->skip[i])
        return;
    if (!mm->staged[i]) {
        size_t pushed = mm->push[i];
        if (pass) {
            memmap_part(mm, x, in, d, 0, x->count - pushed, how);
            memmap_part(mm, x, in, x->src, x->count - pushed, pushed, how);
        }
        return;
    }
    if (in && pass) /* the fused reduce also reads the copy's source */
        memmap_touch(mm, d, d, in->src_buf, in->src_off, in->count, TOUCH_READ);
    if (pass)
        memmap_copy(mm, d, d, MEM_STAGE, mm->at[d], d, x->dst_buf, x->dst_off,
                    x->count, how);
    else /* memcpy (exec_threads.c) */
        memmap_copy(mm, d, x->src, x->src_buf, x->src_off, d, MEM_STAGE,
                    mm->at[d], x->count, TOUCH_WRITE);
    mm->at[d] += x->count;
}

/* Seconds of step k's bytes: the cache part spread over the cores but no
 * faster than its busiest rank on one core, plus the memory part. */
static double memory_step_bytes(MemMap *mm, size_t k)
{
    const Step *step = &mm->s->steps[k];
    int p = mm->s->call.nranks;
    double sum = 0, most = 0;
    mm->mem = 0;
    memset(mm->core, 0, (size_t)p * sizeof *mm->core);
    memset(mm->memr, 0, (size_t)p * sizeof *mm->memr);
    for (int pass = 0; pass < 2; pass++) {
        memset(mm->at, 0, (size_t)p * sizeof *mm->at);
        for (size_t i = step->first; i < step->first + step->n; i++)
            memmap_xfer(mm, i, pass);
    }
    double mem = mm->mem;
    for (int r = 0; r < p; r++) {
        sum += mm->core[r], most = fmax(most, mm->core[r]);
        mem = fmax(mem, mm->memr[r]);
    }
    return fmax(sum, most * mm->cv->cores) + mem;
}

/* Latency of step k: alpha, and the message latency for every message
 * beyond the first of the rank that sends or receives the most; with
 * messages like those the step latency was measured with (more than half
 * CALIB_LAT_BYTES), at least that latency for every round of receiving
 * ranks the cores take turns at (a step every rank receives in was
 * measured). *pulled: such a step. */
static double step_latency(const MemMap *mm, const Calib *c, double alpha,
                           size_t k, const RankStepStats *st, int *pulled)
{
    const Schedule *s = mm->s;
    const Step *step = &s->steps[k];
    int p = s->call.nranks, msgs = 0, receivers = 0;
    size_t largest = 0;
    for (int r = 0; r < p; r++) {
        msgs = imax(msgs, imax(st[r].msgs_out, st[r].msgs_in));
        receivers += st[r].msgs_in > 0;
    }
    for (size_t i = step->first; i < step->first + step->n; i++) {
        const Transfer *x = &s->xfers[i];
        if (x->src != x->dst && x->count * mm->ts > largest)
            largest = x->count * mm->ts;
    }
    double lat = msgs ? alpha + (msgs - 1) * c->alpha_msg : 0;
    if (!(c->lat_step > 0) || largest <= CALIB_LAT_BYTES / 2 || !receivers)
        return lat;
    int cores = mm->cv->cores;
    *pulled = 1;
    double rounds = ceil((double)receivers / cores) / ceil((double)p / cores);
    return fmax(lat, c->lat_step * rounds);
}

/* Seconds of step k on one shared memory system: its latency
 * (step_latency), its bytes (memory_step_bytes), and every byte reduced
 * anywhere (gamma each). */
static double memory_step_time(MemMap *mm, const Calib *c,
                               const ModelParams *m, size_t k,
                               RankStepStats *st, int *pulled)
{
    const Schedule *s = mm->s;
    const Step *step = &s->steps[k];
    double red = 0;
    if (sched_step_stats(s, k, st))
        return 0;
    for (size_t i = step->first; i < step->first + step->n; i++)
        if (s->xfers[i].op == XFER_REDUCE)
            red += (double)(s->xfers[i].count * mm->ts);
    return step_latency(mm, c, m->alpha, k, st, pulled) +
           memory_step_bytes(mm, k) + red * m->gamma;
}

/* The shared-memory prediction: the schedule run twice through the cache
 * curve, the second run timed (a timed run follows warm-up runs), plus
 * the iteration's latency when its messages are large enough. */
static CvError predict_shared(const Calib *c, const Schedule *s,
                              const ModelParams *m, double *seconds)
{
    CacheCurve cv, cx;
    MemMap mm = {0};
    curve_init(c, &cv, 0);
    curve_init(c, &cx, has_cross(c));
    uint8_t *staged = malloc(s->nxfers + 1);
    RankStepStats *st = malloc((size_t)s->call.nranks * sizeof *st);
    CvError e = staged && st ? CV_OK : CV_ERR_NOMEM;
    if (!e)
        e = sched_validate(s, &(SchedCheck){0}, staged);
    if (!e)
        e = memmap_init(&mm, s, staged, &cv, &cx, c->cores);
    for (int run = 0; run < 2 && !e; run++) {
        int pulled = 0;
        *seconds = 0;
        for (size_t k = 0; k < s->nsteps; k++)
            *seconds += memory_step_time(&mm, c, m, k, st, &pulled);
        *seconds += pulled ? c->lat_iter : 0;
    }
    memmap_fini(&mm);
    free(staged);
    free(st);
    return e;
}

CvError calib_predict(const Calib *c, const Schedule *s, LinkModel l,
                      double *seconds)
{
    ModelParams m = calib_params(c, l, calib_footprint(s));
    *seconds = 0;
    if (l == LINK_SHARED)
        return c->npoints ? predict_shared(c, s, &m, seconds) : CV_ERR_ARG;
    CostTerms t;
    CvError e = model_schedule_cost(s, l, &m, &t);
    *seconds = e ? 0 : cost_time(&t, &m);
    return e;
}

/* ---------------------------------------------------------- persistence */

#define CALIB_VERSION 3 /* format of the saved file */

CvError calib_path(const char *backend, int nranks, char *out, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && *xdg == '/')
        n = snprintf(out, len, "%s/collviz/calib-%s-p%d.txt", xdg, backend,
                     nranks);
    else if (home && *home)
        n = snprintf(out, len, "%s/.cache/collviz/calib-%s-p%d.txt", home,
                     backend, nranks);
    else
        return CV_ERR_IO;
    return n < 0 || (size_t)n >= len ? CV_ERR_ARG : CV_OK;
}

/* mkdir -p of the directory part of path. */
static CvError make_dirs(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *q = dir + 1; *q; q++) {
        if (*q != '/')
            continue;
        *q = '\0';
        if (mkdir(dir, 0755) && errno != EEXIST)
            return CV_ERR_IO;
        *q = '/';
    }
    return CV_OK;
}

static void write_calib(FILE *f, const Calib *c)
{
    fprintf(f, "# collviz calibration (alpha s, beta and gamma s/B)\n");
    fprintf(f, "version %d\nbackend %s\nnranks %d\ncores %d\nwhen %lld\n"
            "quick %d\n", CALIB_VERSION, c->backend, c->nranks, c->cores,
            c->when, c->quick);
    fprintf(f, "alpha %.9g\nmsg %.9g\nlat %.9g %.9g\nlink %s\nfit %.6g %.6g\n",
            c->alpha, c->alpha_msg, c->lat_step, c->lat_iter,
            link_name(c->link), c->fit_err[LINK_P2P], c->fit_err[LINK_SHARED]);
    fprintf(f, "unsteady %.6g\nprobe %.6g %.6g %.6g %.6g\n", c->unsteady,
            c->probe[0], c->probe[1], c->probe_clean[0], c->probe_clean[1]);
    fprintf(f, "state %.6g %.6g %d\n", c->state_ratio, c->state_clean,
            c->state_probes);
    for (int i = 0; i < c->npoints; i++) {
        const CalibPoint *p = &c->pt[i];
        fprintf(f, "point %.9g %.9g %.9g %.9g %.9g %.9g\n", p->footprint,
                p->beta_shared, p->beta_p2p, p->gamma_shared, p->gamma_p2p,
                p->beta_cross);
    }
}

CvError calib_save(const Calib *c)
{
    char path[4096], tmp[4200];
    CvError e = calib_path(c->backend, c->nranks, path, sizeof path);
    if (e || (e = make_dirs(path)))
        return e;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return CV_ERR_IO;
    write_calib(f, c);
    int bad = ferror(f);
    bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        remove(tmp);
        return CV_ERR_IO;
    }
    return CV_OK;
}

/* A "probe" line: the ratios at the start and the end, then their clean
 * times (files before those have only the ratios). */
static int probe_line(Calib *c, const char *line)
{
    char end;
    double v[4] = {0};
    int n = sscanf(line, "probe %lf %lf %lf %lf %c", &v[0], &v[1], &v[2],
                   &v[3], &end);
    if (n != 2 && n != 4)
        return 0;
    c->probe[0] = v[0], c->probe[1] = v[1];
    c->probe_clean[0] = v[2], c->probe_clean[1] = v[3];
    return 1;
}

/* Parse one "key values" line into c; -1 on a malformed line. */
static int parse_line(Calib *c, const char *line)
{
    char word[64];
    int v;
    if (line[0] == '#' || line[0] == '\n')
        return 0;
    if (sscanf(line, "version %d", &v) == 1)
        return v == CALIB_VERSION ? 0 : -1;
    if (sscanf(line, "backend %31s", c->backend) == 1 ||
        sscanf(line, "nranks %d", &c->nranks) == 1 ||
        sscanf(line, "cores %d", &c->cores) == 1 ||
        sscanf(line, "when %lld", &c->when) == 1 ||
        sscanf(line, "quick %d", &c->quick) == 1 ||
        sscanf(line, "alpha %lf", &c->alpha) == 1 ||
        sscanf(line, "msg %lf", &c->alpha_msg) == 1 ||
        sscanf(line, "lat %lf %lf", &c->lat_step, &c->lat_iter) == 2 ||
        sscanf(line, "unsteady %lf", &c->unsteady) == 1 ||
        probe_line(c, line) ||
        sscanf(line, "state %lf %lf %d", &c->state_ratio, &c->state_clean,
               &c->state_probes) == 3 ||
        sscanf(line, "fit %lf %lf", &c->fit_err[LINK_P2P],
               &c->fit_err[LINK_SHARED]) == 2)
        return 0;
    if (sscanf(line, "link %63s", word) == 1) {
        int l = link_parse(word);
        c->link = l < 0 ? LINK_SHARED : (LinkModel)l;
        return l < 0 ? -1 : 0;
    }
    if (c->npoints < CALIB_MAX_POINTS) {
        CalibPoint *p = &c->pt[c->npoints];
        if (sscanf(line, "point %lf %lf %lf %lf %lf %lf", &p->footprint,
                   &p->beta_shared, &p->beta_p2p, &p->gamma_shared,
                   &p->gamma_p2p, &p->beta_cross) == 6)
            return c->npoints++, 0;
    }
    return -1;
}

static int nonneg(double x) { return x >= 0 && isfinite(x); }

/* Whether a loaded calibration is usable for (backend, nranks). */
static int calib_sane(const Calib *c, const char *backend, int nranks)
{
    if (strcmp(c->backend, backend) || c->nranks != nranks || c->cores < 0 ||
        c->npoints < 1 || !nonneg(c->alpha) || !nonneg(c->alpha_msg) ||
        !nonneg(c->lat_step) || !nonneg(c->lat_iter) ||
        !nonneg(c->unsteady) || !nonneg(c->probe[0]) ||
        !nonneg(c->probe[1]) || !nonneg(c->probe_clean[0]) ||
        !nonneg(c->probe_clean[1]) || !nonneg(c->state_ratio) ||
        !nonneg(c->state_clean) || c->state_probes < 0)
        return 0;
    for (int i = 0; i < c->npoints; i++) {
        const CalibPoint *p = &c->pt[i];
        if (!(p->footprint > 0) || !(p->beta_shared > 0) || !(p->beta_p2p > 0) ||
            !(p->gamma_shared >= 0) || !(p->gamma_p2p >= 0) ||
            !(p->beta_cross >= 0) ||
            (i && p->footprint <= p[-1].footprint))
            return 0;
    }
    return 1;
}

CvError calib_load(const char *backend, int nranks, Calib *out)
{
    char path[4096], line[256];
    CvError e = calib_path(backend, nranks, path, sizeof path);
    if (e)
        return e;
    FILE *f = fopen(path, "r");
    if (!f)
        return CV_ERR_IO;
    *out = (Calib){.link = LINK_SHARED};
    int bad = 0, msg = 0;
    while (!bad && fgets(line, sizeof line, f)) {
        bad = parse_line(out, line);
        msg |= !strncmp(line, "msg ", 4);
    }
    if (!msg) /* saved before it was measured: a latency per message */
        out->alpha_msg = out->alpha;
    bad |= ferror(f);
    fclose(f);
    return bad || !calib_sane(out, backend, nranks) ? CV_ERR_ARG : CV_OK;
}
