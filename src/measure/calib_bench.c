/* calib_bench.c - the micro-benchmarks that calibrate the cost model on
 * an executor, fitting the link model, and predictions (calib.h). */
#include "measure/calib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "algos/algo.h"
#include "exec/probe.h"
#include "measure/measure.h"

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

/* One step: every rank sends n elements to its right neighbour, copying
 * or reducing. */
static void bench_step(Schedule *s, XferOp op)
{
    size_t n = s->call.count / 2;
    int p = s->call.nranks;
    sched_step(s, op == XFER_COPY ? "copy" : "reduce");
    for (int r = 0; r < p; r++)
        sched_xfer(s, op, r, BUF_RECV, 0, (r + 1) % p, BUF_RECV, n, n);
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

/* One step of a lone pair: rank 0 sends n elements to rank q, copying or
 * reducing, and copies one element of its own, so that it is not idle in
 * the step: an idle source would push part of the transfer
 * (plan_push_all), and these steps measure one core moving data. */
static void bench_pair_step(Schedule *s, XferOp op, int q)
{
    size_t n = s->call.count / 2;
    sched_step(s, op == XFER_COPY ? "copy" : "reduce");
    sched_xfer(s, op, 0, BUF_RECV, 0, q, BUF_RECV, n, n);
    sched_copy(s, 0, BUF_RECV, 0, 0, BUF_RECV, n, 1);
}

/* The kinds of benchmark schedules. */
typedef enum {
    BENCH_SHIFT,     /* every rank copies to its right neighbour */
    BENCH_SHIFT_RED, /* ... then reduces into it */
    BENCH_PAIR,      /* rank 0 copies to a rank of its host (Peers) */
    BENCH_PAIR_RED,  /* ... then reduces into it */
    BENCH_CROSS,     /* every rank copies to its right neighbour what its
                        left neighbour wrote the step before */
    BENCH_NET,       /* rank 0 copies to a rank on another host (only
                        where the ranks run on several) */
    BENCH_KIND_COUNT,  /* the kinds above are measured at every footprint */
    BENCH_EXCHANGE = BENCH_KIND_COUNT /* every rank sends to every other
                                         (p elements: the message latency) */
} BenchKind;

/* Whether benchmark k runs on a lone pair (it needs two ranks). */
static int is_pair(BenchKind k)
{
    return k == BENCH_PAIR || k == BENCH_PAIR_RED || k == BENCH_NET;
}

/* The partners of rank 0 in the pair benchmarks: a rank of its host
 * (where the ranks run on several hosts and none shares rank 0's, one on
 * another: then the pair's link is the network's) and, where there are
 * several hosts, one on another host (net; 0: none). */
typedef struct {
    int host, net;
} Peers;

/* Rank 0's partners on p ranks placed as h says (ExecHost). */
static Peers peers_of(const ExecHost *h, int p)
{
    Peers pe = {.host = 1};
    if (h->nodes < 2 || h->per_node < 1 || h->nodes * h->per_node != p)
        return pe;
    pe.net = h->cyclic ? 1 : h->per_node;
    if (h->per_node > 1)
        pe.host = h->cyclic ? h->nodes : 1;
    return pe;
}

/* Whether benchmark k ends with a reducing step after its copying one. */
static int is_reducing(BenchKind k)
{
    return k == BENCH_SHIFT_RED || k == BENCH_PAIR_RED;
}

/* Build benchmark `k` on p ranks with n elements per rank and `steps`
 * copying steps, the pairs with rank 0's partners pe. */
static CvError bench_build(Schedule *s, BenchKind k, int p, size_t n,
                           int steps, Peers pe)
{
    CvError e = bench_init(s, p, n, "calibration");
    if (e)
        return e;
    int q = k == BENCH_NET ? pe.net : pe.host;
    for (int i = 0; i < steps; i++)
        if (k == BENCH_CROSS)
            bench_cross_steps(s, p);
        else if (k == BENCH_EXCHANGE)
            bench_exchange_step(s, p);
        else if (is_pair(k))
            bench_pair_step(s, XFER_COPY, q);
        else
            bench_step(s, XFER_COPY);
    if (k == BENCH_SHIFT_RED)
        bench_step(s, XFER_REDUCE);
    if (k == BENCH_PAIR_RED)
        bench_pair_step(s, XFER_REDUCE, q);
    e = sched_end(s);
    if (e)
        sched_fini(s);
    return e;
}

/* ---------------------------------------------------------------- timing */

#define CALIB_RETAKES 4 /* a timing taken again at most (time_sched) */
#define CALIB_MAX_ITERS 20000 /* iterations of one timed run at most */

/* A measurement in progress: the executor and where errors go. */
typedef struct {
    Executor *ex;      /* the executor measured */
    Peers peers;       /* rank 0's partners in the pair benchmarks */
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
    /* the measuring engine's loop: sized once to last target_s (at
     * least 2 iterations, at most CALIB_MAX_ITERS), each run after one
     * untimed iteration (with step times, the backend's step_warmup at
     * least: measure.h) */
    MeasureOptions o = {.warmup = 1, .iters = 2, .min_time_s = b->target_s,
                        .max_iters = CALIB_MAX_ITERS};
    double *steps = NULL;
    int iters, warmup;
    if (diff && !(steps = calloc((size_t)b->reps * s->nsteps + 1, sizeof *steps)))
        return CV_ERR_NOMEM;
    CvError e = b->ex->ops->load(b->ex, s);
    if (!e)
        e = measure_iters(b->ex, &o, &iters, &warmup);
    if (e) {
        free(steps);
        return bench_fail(b, e);
    }
    double any = INFINITY; /* the fastest run of every take */
    for (int take = 0;; take++) {
        int slow = b->watch && bench_slow(b);
        *sec = INFINITY;
        for (int i = 0; i < b->reps; i++) {
            MeasureResult r = {.step_s = steps ? steps + (size_t)i * s->nsteps
                                               : NULL};
            if ((e = measure_timed(b->ex, s, &o, 1, iters, &r))) {
                free(steps);
                return bench_fail(b, e);
            }
            *sec = fmin(*sec, r.iter_s);
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
    CvError e = bench_build(&s, k, b->ex->nranks, n, steps, b->peers);
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
    double alpha_host_t;            /* ... of the pair of one host, and */
    double alpha_net_t;             /* ... of the pair of two hosts (only
                                       where the ranks run on several) */
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
    MEDIAN(alpha_host_t);
    MEDIAN(alpha_net_t);
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
/* Whether benchmark k is taken on b's ranks: a pair needs two, the
 * network's pair two hosts. */
static int bench_taken(const Bench *b, BenchKind k)
{
    if (k == BENCH_NET)
        return b->peers.net > 0;
    return b->ex->nranks > 1 || !is_pair(k);
}

/* The latency part of a round: alpha, the exchange, the pairs' alphas
 * and the messages of nlat elements. */
static CvError measure_lat(Bench *b, size_t nlat, Timings *tm)
{
    CvError e = time_bench(b, BENCH_SHIFT, 1, ALPHA_STEPS, &tm->alpha_t, NULL);
    if (!e && b->ex->nranks > 2)
        e = time_bench(b, BENCH_EXCHANGE, (size_t)b->ex->nranks, ALPHA_STEPS,
                       &tm->exch_t, NULL);
    if (!e && b->peers.net > 0)
        e = time_bench(b, BENCH_NET, 1, ALPHA_STEPS, &tm->alpha_net_t, NULL);
    if (!e && b->peers.net > 0 && b->peers.host != b->peers.net)
        e = time_bench(b, BENCH_PAIR, 1, ALPHA_STEPS, &tm->alpha_host_t, NULL);
    static const BenchKind lat[] = {BENCH_SHIFT, BENCH_PAIR, BENCH_CROSS,
                                    BENCH_NET};
    for (size_t i = 0; !e && i < sizeof lat / sizeof lat[0]; i++)
        if (bench_taken(b, lat[i]))
            e = time_bench(b, lat[i], nlat, 1, &tm->lat[lat[i]], NULL);
    if (!e)
        e = time_bench(b, BENCH_CROSS, nlat, LAT_PAIRS, &tm->lat_many, NULL);
    return e;
}

/* The benchmarks of point i (count n) in a round. */
static CvError measure_point(Bench *b, size_t n, int i, Timings *tm)
{
    CvError e = CV_OK;
    for (int k = 0; !e && k < BENCH_KIND_COUNT; k++)
        if (bench_taken(b, (BenchKind)k))
            e = time_bench(b, (BenchKind)k, n, 1, &tm->t[i][k],
                           is_reducing((BenchKind)k) ? &tm->red[i][k] : NULL);
    return e;
}

static CvError measure_round(Bench *b, size_t nlat, const size_t *cnt,
                             int npts, Timings *tm)
{
    *tm = (Timings){0};
    CvError e = measure_lat(b, nlat, tm);
    for (int i = 0; !e && i < npts; i++)
        e = measure_point(b, cnt[i], i, tm);
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
    /* the largest point has all of them (derive); were a step's time 0,
       the slowest rate a file may hold stands in, never a free one */
    for (int i = c->npoints - 1; i >= 0; i--) {
        CalibPoint *p = &c->pt[i], *next = i + 1 < c->npoints ? p + 1 : NULL;
        double sh = next ? next->beta_shared : CALIB_MAX_SPB;
        double pp = next ? next->beta_p2p : CALIB_MAX_SPB;
        double cr = next ? next->beta_cross : CALIB_MAX_SPB;
        double net = next ? next->beta_net : CALIB_MAX_SPB;
        if (c->nodes > 1 && !(p->beta_net > 0))
            p->beta_net = net;
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
    c->drowned = 0;
    c->alpha = tm->alpha_t / ALPHA_STEPS;
    c->alpha_net = tm->alpha_net_t / ALPHA_STEPS;
    c->alpha_host = tm->alpha_host_t / ALPHA_STEPS;
    /* between free (a message only a flag) and a whole alpha each */
    c->alpha_msg = p > 2 ? fmin(fmax((tm->exch_t / ALPHA_STEPS - c->alpha) /
                                         (p - 2), 0), c->alpha)
                         : c->alpha;
    c->npoints = npts;
    int own = c->cores > 0 && !calib_crowded(c);
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
        if (c->nodes > 1)
            pt->beta_net = per_byte(t[BENCH_NET], lat[BENCH_NET], bytes);
        if (i < npts - 1)
            continue;
        /* the largest point: each bandwidth whose bytes drowned in the
           latency is the whole step per byte, a bound the machine is at
           least as fast as (each on its own: with many ranks the pair's
           one message drowns where the shift's p do not, and a free
           placeholder made transfers cost nothing) */
        if (c->nodes > 1 && !(pt->beta_net > 0))
            pt->beta_net = t[BENCH_NET] / bytes, c->drowned++;
        if (!(pt->beta_shared > 0))
            pt->beta_shared = t[BENCH_SHIFT] / (p * bytes), c->drowned++;
        if (!(pt->beta_p2p > 0))
            pt->beta_p2p = t[BENCH_PAIR] / bytes, c->drowned++;
        if (!(pt->beta_cross > 0))
            pt->beta_cross = t[BENCH_CROSS] / 2 / (p * bytes), c->drowned++;
    }
    fill_undetermined(c);
    calib_smooth(c);
    /* The slope includes the latency messages' own bytes: not latency. */
    double one = tm->lat[BENCH_CROSS], lat_bytes = (double)p * nlat * sizeof(float);
    double slope = (tm->lat_many - one) / (2 * (LAT_PAIRS - 1));
    c->lat_step = fmax(slope - lat_bytes * c->pt[0].beta_cross, 0.1 * slope);
    c->lat_iter = fmax(one - 2 * slope, 0);
}

#define FAR_MAX 8e9 /* bytes: the largest footprint a full calibration
                       adds to reach 4 times the cache */

/* Bytes of memory this host has (0: unknown). */
static double host_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0;
}

/* Footprints measured: a ladder from inside the caches to well beyond.
 * A quick one ends at 256 MB, or where the backend knows the cache the
 * ranks' data passes through (`cache` bytes: the GPUs' L2), at the first
 * rung at least 4 times that (a GPU with 4 MB of L2: 32 MB; an H100's 50
 * MB: 256 MB). A full one adds 4 times the cache where its ladder ends
 * below that. */
static int footprints(const CalibOptions *o, size_t cache, double *out)
{
    static const double full[] = {256e3, 1e6, 4e6, 8e6, 16e6, 32e6, 64e6,
                                  128e6, 256e6, 1e9};
    static const double quick[] = {1e6, 8e6, 32e6, 256e6};
    const double *f = o->quick ? quick : full;
    int n = o->quick ? 4 : 10, m = 0;
    double max = o->max_bytes > 0 ? o->max_bytes : 1e300;
    for (int i = 0; o->quick && !(o->max_bytes > 0) && cache && i < n; i++)
        if (f[i] >= 4.0 * (double)cache) {
            max = f[i];
            break;
        }
    for (int i = 0; i < n && m < CALIB_MAX_POINTS; i++)
        if (f[i] <= max || i == 0)
            out[m++] = f[i];
    /* a full one reaches 4 times the cache, where memory's rate is (a
       host whose last-level cache is large), within a quarter of the
       host's memory and FAR_MAX */
    double far = 4.0 * (double)cache;
    if (!o->quick && cache && far > out[m - 1] && far <= max &&
        far <= FAR_MAX && far <= host_memory() / 4 && m < CALIB_MAX_POINTS)
        out[m++] = far;
    return m;
}

/* ------------------------------------------------------ fitting the link */

/* Time schedule s and record each fitted machine's relative error. */
static CvError fit_one(Bench *b, Calib *c, const Schedule *s)
{
    double meas = 0;
    MachineKind fits[CALIB_MAX_FITS];
    int nfits = calib_fits(c, fits);
    CvError e = time_sched(b, s, &meas, NULL);
    for (int i = 0; !e && i < nfits; i++) {
        double pred;
        e = calib_predict(c, s, fits[i], &pred);
        /* no prediction, or one off by more: the most a file may hold */
        double err = pred > 0 ? fmin(fabs(meas / pred - 1), CALIB_MAX_RATIO)
                              : CALIB_MAX_RATIO;
        if (!e && err > c->fit_err[fits[i]])
            c->fit_err[fits[i]] = err;
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

/* Time the defaults of broadcast and allreduce and pick the flat machine
 * whose worst error is smaller; where the ranks ran on several hosts, the
 * machine is theirs (nodes), its error recorded beside the flat ones'. */
static CvError fit_link(Bench *b, Calib *c, double bytes)
{
    static const CollKind kinds[] = {COLL_BROADCAST, COLL_ALLREDUCE};
    for (int k = 0; k < MACHINE_KIND_COUNT; k++)
        c->fit_err[k] = 0;
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
    /* the least worst error; ties to the first (full, bus, memory) */
    MachineKind fits[CALIB_MAX_FITS];
    int nfits = calib_fits(c, fits);
    c->machine = MACHINE_BUS;
    for (int i = 0; i < nfits; i++)
        if (fits[i] != MACHINE_NODES &&
            c->fit_err[fits[i]] < c->fit_err[c->machine])
            c->machine = fits[i];
    if (c->nodes > 1)
        c->machine = MACHINE_NODES;
    return CV_OK;
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

/* The values of c that break a plausibility rule (calib_check) are
 * measured again once: every round of their benchmarks (the latency part
 * for a time, all benchmarks of a working set for one of its values),
 * then c derived again from the new medians; what still breaks a rule is
 * replaced (calib_amend), each refusal saying both measurements. A time
 * that nothing can stand in for fails the calibration (CV_ERR_BACKEND,
 * the sentence in b->why). */
static CvError remeasure(Bench *b, size_t nlat, const size_t *cnt, int n,
                         Timings *r, Calib *c)
{
    CalibRefusal first[CALIB_MAX_REFUSED];
    int nfirst = calib_check(c, first, CALIB_MAX_REFUSED), lat = 0;
    CvError e = CV_OK;
    int point[CALIB_MAX_POINTS] = {0};
    nfirst = nfirst < CALIB_MAX_REFUSED ? nfirst : CALIB_MAX_REFUSED;
    if (nfirst == 0)
        return CV_OK;
    for (int k = 0; k < nfirst; k++) {
        if (first[k].point < 0)
            lat = 1;
        else
            point[first[k].point] = 1;
    }
    /* planned now, as calib_measure's count: progress stays below 1 */
    const Peers *pe = &b->peers;
    int kinds = BENCH_KIND_COUNT - !pe->net, npoint = 0;
    for (int i = 0; i < n; i++)
        npoint += point[i];
    b->total += CALIB_ROUNDS * (kinds * npoint +
                                (lat ? 5 + (b->ex->nranks > 2) +
                                           (pe->net ? 2 + (pe->host != pe->net)
                                                    : 0)
                                     : 0));
    for (int round = 0; !e && round < CALIB_ROUNDS; round++) {
        if (lat)
            e = measure_lat(b, nlat, &r[round]);
        for (int i = 0; !e && i < n; i++)
            if (point[i])
                e = measure_point(b, cnt[i], i, &r[round]);
    }
    if (e)
        return e;
    Timings tm;
    timings_median(r, CALIB_ROUNDS, &tm);
    derive(&tm, nlat, cnt, n, c->nranks, c);
    if (calib_amend(c, first, nfirst) >= 0)
        return CV_OK;
    if (b->why && b->whylen && c->nrefused > 0)
        calib_refusal_text(&c->refused[c->nrefused - 1], b->why, b->whylen);
    return CV_ERR_BACKEND;
}

/* What a calibration of ex on host says of itself before it measures:
 * its ranks, time, backend, host and (net: across nodes) the nodes. */
static void calib_head(Calib *out, const Executor *ex, const CalibOptions *o,
                       const ExecHost *host, bool net)
{
    *out = (Calib){.nranks = ex->nranks, .when = (long long)time(NULL),
                   .quick = o->quick, .machine = MACHINE_BUS,
                   .cores = host->cores, .medium = host->memory,
                   .cache = (double)host->cache_bytes};
    if (net) {
        out->nodes = host->nodes;
        out->per_node = host->per_node;
        out->cyclic = host->cyclic;
        for (int i = 0; i < 2; i++)
            if (calib_level_ok(host->level[i]))
                snprintf(out->level[i], sizeof out->level[i], "%s",
                         host->level[i]);
    }
    snprintf(out->backend, sizeof out->backend, "%s", ex->ops->name);
    snprintf(out->host, sizeof out->host, "%s", host->fingerprint);
}

CvError calib_measure(Executor *ex, const CalibOptions *o, Calib *out,
                      CalibProgress progress, void *ctx, char *why,
                      size_t whylen)
{
    double fp[CALIB_MAX_POINTS];
    size_t cnt[CALIB_MAX_POINTS];
    ExecHost host = exec_host(ex);
    int n = footprints(o, host.cache_bytes, fp), p = ex->nranks;
    Peers pe = peers_of(&host, p);
    int per_round = 5 + (p > 2) + (BENCH_KIND_COUNT - !pe.net) * n +
                    (pe.net ? 1 + (pe.host != pe.net) + 1 : 0);
    Bench b = {.ex = ex, .peers = pe, .target_s = 0.0005,
               .reps = o->quick ? 3 : 5,
               .watch = !o->quick,
               .why = why, .whylen = whylen, .progress = progress,
               .ctx = ctx, .total = CALIB_ROUNDS * per_round + 2};
    calib_head(out, ex, o, &host, pe.net != 0);
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
        timings_median(r, CALIB_ROUNDS, &tm);
        derive(&tm, nlat, cnt, n, p, out);
        e = remeasure(&b, nlat, cnt, n, r, out);
    }
    if (!e) {
        probe_end(&b, &out->probe[1], &out->probe_clean[1]);
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

/* ----------------------------------------------------------- predicting */

CvError calib_predict(const Calib *c, const Schedule *s, MachineKind k,
                      double *seconds)
{
    const ExecOps *ops = exec_find(c->backend, NULL, 0);
    if (ops && ops->predict)
        return ops->predict(c, s, k, seconds);
    return calib_model_cost(c, s, k, seconds);
}
