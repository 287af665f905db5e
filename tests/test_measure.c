/* test_measure.c - the measuring engine's rules, on a recording backend
 * (which run calls it makes, with which warmup and iterations; how it
 * sizes a loop by the minimum time, caps it, splits it into chunks and
 * cancels between them, and between the steps of a checked run; per-step
 * means) and on the threads backend (the checked runs count wrong
 * elements, and none on a correct run). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algos/algo.h"
#include "exec/exec.h"
#include "measure/measure.h"

/* ------------------------------------------------- recording backend */

#define MAX_CALLS 256

/* An executor that does no work: each timed iteration "takes" iter_s, and
 * step k of it, in run call c (from 0), step_s0 * (k + 1) * (c + 1);
 * every run call is recorded. */
typedef struct {
    Executor base;          /* ops, schedule, ranks */
    double iter_s;          /* seconds each iteration reports */
    double step_s0;         /* step k of call c: step_s0 (k + 1) (c + 1) */
    int ncalls;             /* run calls made */
    int warmup[MAX_CALLS];  /* each call's warmup */
    int iters[MAX_CALLS];   /* each call's iterations */
    bool steps[MAX_CALLS];  /* whether the call was asked for step times */
    int nsteps_run;         /* steps executed (step calls) */
    int nreads;             /* read calls (the check's comparison) */
    int stop_after;         /* progress cancels at this call (0: never) */
    int progress_calls;     /* times progress was told */
    double last_done;       /* the fraction it was last told */
    const double *seq;      /* when set: call c reports seq[c % nseq] */
    int nseq;
    double sleep_s;         /* each iteration really takes this long */
    double warm_sleep_s;    /* and each warmup iteration this long */
    double start_s;         /* the fake clock: each call's start, which the
                               call's own times leave out */
    const double *each;     /* with rec_each_ops: iteration i of a call
                               reports each[i % neach] (iter_s their mean) */
    int neach;
} RecExec;

/* The fake host clock (MeasureOptions.clock): a call moves it by its
 * start, its warmup's and its iterations' times. */
static double fake_now;

static double fake_clock(void)
{
    return fake_now;
}

static void sleep_for(double s)
{
    if (s > 0)
        nanosleep(&(struct timespec){(time_t)s,
                                     (long)((s - (double)(time_t)s) * 1e9)},
                  NULL);
}

static CvError rec_run(Executor *ex, int warmup, int iters, ExecTiming *t)
{
    RecExec *x = (RecExec *)ex;
    if (x->ncalls < MAX_CALLS) {
        x->warmup[x->ncalls] = warmup;
        x->iters[x->ncalls] = iters;
        x->steps[x->ncalls] = t->step_s != NULL;
    }
    t->iter_s = x->seq ? x->seq[x->ncalls % x->nseq] : x->iter_s;
    if (x->each) { /* times_each: each iteration's, their mean */
        double sum = 0;
        for (int i = 0; i < iters; i++)
            sum += x->each[i % x->neach];
        for (int i = 0; t->each_s && i < iters; i++)
            t->each_s[i] = x->each[i % x->neach];
        t->iter_s = sum / iters;
    }
    fake_now += x->start_s + warmup * x->warm_sleep_s + iters * t->iter_s;
    x->ncalls++;
    sleep_for(warmup * x->warm_sleep_s + iters * x->sleep_s);
    for (size_t k = 0; t->step_s && k < ex->sched->nsteps; k++) /* call c: c + 1 times */
        t->step_s[k] = x->step_s0 * (double)(k + 1) * (double)x->ncalls;
    return CV_OK;
}

static CvError rec_reset(Executor *ex) { return CV_OK; }
static CvError rec_finish(Executor *ex) { return CV_OK; }

static CvError rec_step(Executor *ex, size_t k)
{
    ((RecExec *)ex)->nsteps_run++;
    return CV_OK;
}

static CvError rec_read(Executor *ex, int r, BufId b, size_t off, size_t n,
                        void *dst)
{
    ((RecExec *)ex)->nreads++;
    return CV_ERR_ARG; /* nothing to read: the tests stop before */
}

static const ExecOps rec_ops = {.name = "rec", .reset = rec_reset,
                                .step = rec_step, .finish = rec_finish,
                                .run = rec_run, .read = rec_read};
/* The same, timing each iteration inside its loop (as threads). */
static const ExecOps rec_each_ops = {.name = "rec", .reset = rec_reset,
                                     .step = rec_step, .finish = rec_finish,
                                     .run = rec_run, .read = rec_read,
                                     .times_each = 1};
/* The same, timing steps on warmup passes of their own (as cuda's). */
static const ExecOps rec_stamp_ops = {.name = "rec", .reset = rec_reset,
                                      .step = rec_step, .finish = rec_finish,
                                      .run = rec_run, .read = rec_read,
                                      .step_warmup = 2};

static int rec_progress(void *ctx, double done)
{
    RecExec *x = ctx;
    x->progress_calls++;
    assert_true(done > x->last_done && done < 1);
    x->last_done = done;
    return x->stop_after && x->progress_calls >= x->stop_after;
}

/* A schedule with a few steps for the recording backend to "run". */
static void rec_init(RecExec *x, Schedule *s, double iter_s)
{
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 4, .count = 8,
                  .dtype = DT_FLOAT, .op = OP_SUM};
    assert_int_equal(algo_generate(algo_find(c.kind, "ring"), &c, s), CV_OK);
    memset(x, 0, sizeof *x);
    x->base = (Executor){.ops = &rec_ops, .sched = s, .nranks = 4};
    x->iter_s = iter_s;
    x->step_s0 = 1e-6;
}

/* Without a minimum time: one call, with the warmup and exactly iters. */
static void test_exact_iters(void **state)
{
    RecExec x;
    Schedule s;
    for (int iters = 1; iters <= 1000; iters *= 7) {
        rec_init(&x, &s, 2e-6);
        MeasureOptions o = {.warmup = 3, .iters = iters};
        MeasureResult r = {0};
        assert_int_equal(measure_loaded(&x.base, &s, &o, &r), CV_OK);
        assert_int_equal(x.ncalls, 1);
        assert_int_equal(x.warmup[0], 3);
        assert_int_equal(x.iters[0], iters);
        assert_int_equal(r.iters, iters);
        assert_true(fabs(r.iter_s - 2e-6) < 1e-15);
        assert_int_equal(r.wrong, -1); /* not checked */
        sched_fini(&s);
    }
}

/* With a minimum time: one sizing iteration after the warmup, then enough
 * iterations (never fewer than iters, never more than the cap), no second
 * warmup. */
static void test_min_time_sizes_the_loop(void **state)
{
    static const struct {
        double iter_s, min_time;
        int iters, max_iters, want;
    } cases[] = {
        {1e-3, 0.1, 1, 0, 100},     /* 100 iterations make 0.1 s */
        {1e-3, 0.1, 500, 0, 500},   /* never fewer than asked */
        {3e-3, 0.01, 1, 0, 4},      /* rounded up */
        {1e-9, 60, 1, 0, MEASURE_MAX_ITERS}, /* capped */
        {1e-9, 60, 2, 20000, 20000},        /* the caller's cap */
        {1e-9, 60, 2, 2 * MEASURE_MAX_ITERS, MEASURE_MAX_ITERS}, /* not above
                                                                    the engine's */
        {1e-3, 0.1, 1, 50, 50},     /* the cap wins over the time */
        {1e-3, 0.1, 70, 50, 70},    /* but never fewer than asked */
        {0, 1, 7, 0, 7},            /* a backend that reports no time */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        RecExec x;
        Schedule s;
        rec_init(&x, &s, cases[i].iter_s);
        MeasureOptions o = {.warmup = 2, .iters = cases[i].iters,
                            .min_time_s = cases[i].min_time,
                            .max_iters = cases[i].max_iters};
        MeasureResult r = {0};
        assert_int_equal(measure_loaded(&x.base, &s, &o, &r), CV_OK);
        assert_int_equal(x.ncalls, 2);
        assert_int_equal(x.warmup[0], 2);
        assert_int_equal(x.iters[0], 1);
        assert_int_equal(x.warmup[1], 0);
        assert_int_equal(x.iters[1], cases[i].want);
        assert_int_equal(r.iters, cases[i].want);
        sched_fini(&s);
    }
}

/* Chunks: the iterations are split, progress is told between parts with
 * a growing fraction, the warmup goes with the first part only, and the
 * step times are the first part's alone (rec_run reports call c's step k
 * as 1e-6 (k + 1) (c + 1), so a mean over the parts would differ), after a
 * warmup of at least the executor's step_warmup where they are asked for;
 * without step times, or with a step_warmup of 0, the warmup is the one
 * asked for. */
static void test_chunks_and_steps(void **state)
{
    static const struct {
        int warmup, chunks;
        bool steps, stamps; /* step times asked; rec_stamp_ops */
        int want_warmup;
    } cases[] = {
        {1, 2, true, true, 2},  {1, 7, true, true, 2},   {1, 12, true, true, 2},
        {0, 7, true, true, 2},  {5, 7, true, true, 5},   {1, 7, false, true, 1},
        {0, 7, false, true, 0}, {1, 7, true, false, 1},  {0, 12, true, false, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        RecExec x;
        Schedule s;
        rec_init(&x, &s, 5e-6);
        if (cases[i].stamps)
            x.base.ops = &rec_stamp_ops;
        double step[64] = {0};
        int chunks = cases[i].chunks;
        MeasureOptions o = {.warmup = cases[i].warmup, .iters = 100,
                            .chunks = chunks, .progress = rec_progress,
                            .ctx = &x};
        MeasureResult r = {.step_s = cases[i].steps ? step : NULL};
        assert_int_equal(measure_loaded(&x.base, &s, &o, &r), CV_OK);
        int total = 0;
        for (int c = 0; c < x.ncalls; c++) {
            total += x.iters[c];
            assert_int_equal(x.warmup[c], c == 0 ? cases[i].want_warmup : 0);
            assert_int_equal(x.steps[c], cases[i].steps && c == 0);
        }
        assert_int_equal(total, 100);
        assert_int_equal(x.ncalls, chunks);
        assert_int_equal(x.progress_calls, chunks - 1);
        assert_int_equal(r.iters, 100);
        for (size_t k = 0; cases[i].steps && k < s.nsteps; k++)
            assert_true(fabs(step[k] - 1e-6 * (double)(k + 1)) < 1e-15);
        sched_fini(&s);
    }
    /* with the host's clock the warmup is a call of its own, outside the
       time (2 - 1 untimed and one iteration): the step times are its */
    RecExec x;
    Schedule s;
    rec_init(&x, &s, 5e-6);
    x.base.ops = &rec_stamp_ops;
    double step[64] = {0};
    MeasureOptions o = {.warmup = 1, .iters = 10, .chunks = 5, .host_time = 1};
    MeasureResult r = {.step_s = step};
    assert_int_equal(measure_loaded(&x.base, &s, &o, &r), CV_OK);
    assert_int_equal(x.ncalls, 6);
    assert_int_equal(x.warmup[0], 1);
    assert_int_equal(x.iters[0], 1);
    assert_true(x.steps[0]);
    for (int c = 1; c < 6; c++) {
        assert_int_equal(x.warmup[c], 0);
        assert_int_equal(x.iters[c], 2);
        assert_false(x.steps[c]);
    }
    for (size_t k = 0; k < s.nsteps; k++)
        assert_true(fabs(step[k] - 1e-6 * (double)(k + 1)) < 1e-15);
    sched_fini(&s);
}

/* The parts' spread: each part's mean per iteration, the fastest and the
 * median (odd: the middle; even: the mean of the two middle ones). */
static void test_parts_spread(void **state)
{
    static const double odd[] = {5e-6, 1e-6, 4e-6, 2e-6, 3e-6};
    static const double even[] = {4e-6, 1e-6, 3e-6, 2e-6};
    const double *seqs[] = {odd, even};
    const int ns[] = {5, 4};
    const double want_med[] = {3e-6, 2.5e-6}, want_mean[] = {3e-6, 2.5e-6};
    for (int c = 0; c < 2; c++) {
        RecExec x;
        Schedule s;
        rec_init(&x, &s, 0);
        x.seq = seqs[c], x.nseq = ns[c];
        MeasureOptions o = {.iters = 20 * ns[c], .chunks = ns[c]};
        MeasureResult r = {0};
        assert_int_equal(measure_loaded(&x.base, &s, &o, &r), CV_OK);
        assert_int_equal(r.parts, ns[c]);
        assert_true(fabs(r.part_min_s - 1e-6) < 1e-15);
        assert_true(fabs(r.part_median_s - want_med[c]) < 1e-15);
        assert_true(fabs(r.iter_s - want_mean[c]) < 1e-15);
        sched_fini(&s);
    }
}

/* Cancelling from progress stops the loop with CV_ERR_CANCELLED and the
 * iterations done so far. */
static void test_cancel(void **state)
{
    RecExec x;
    Schedule s;
    rec_init(&x, &s, 5e-6);
    x.stop_after = 3;
    MeasureOptions o = {.iters = 100, .chunks = 10, .progress = rec_progress,
                        .ctx = &x};
    MeasureResult r = {0};
    assert_int_equal(measure_loaded(&x.base, &s, &o, &r), CV_ERR_CANCELLED);
    assert_int_equal(x.ncalls, 3);
    assert_int_equal(r.iters, 30);
    sched_fini(&s);
}

/* Progress that asks to stop at its stop_after-th call and notes how far
 * it was told the timed loop is (0 throughout a check). */
static int check_progress(void *ctx, double done)
{
    RecExec *x = ctx;
    x->progress_calls++;
    x->last_done = done;
    return x->progress_calls >= x->stop_after;
}

/* The checked run asks progress (told 0) before each step and before its
 * comparison: a cancel stops it there, before any timed iteration. */
static void test_cancel_in_check(void **state)
{
    RecExec x;
    Schedule s;
    rec_init(&x, &s, 5e-6);
    int stops[] = {1, 3, (int)s.nsteps, (int)s.nsteps + 1};
    for (size_t i = 0; i < sizeof stops / sizeof *stops; i++) {
        x.ncalls = x.nsteps_run = x.nreads = x.progress_calls = 0;
        x.stop_after = stops[i];
        MeasureOptions o = {.checks = 1, .iters = 100, .chunks = 10,
                            .progress = check_progress, .ctx = &x};
        MeasureResult r = {0};
        assert_int_equal(measure_loaded(&x.base, &s, &o, &r), CV_ERR_CANCELLED);
        assert_int_equal(x.nsteps_run, stops[i] - 1);
        assert_int_equal(x.nreads, 0);
        assert_int_equal(x.ncalls, 0);
        assert_true(x.last_done == 0);
    }
    sched_fini(&s);
}

/* ---------------------------------------------------- threads backend */

/* Checked runs on the real backend: no wrong element in a correct run,
 * for every datatype, with p not a power of two and a count p does not
 * divide. */
static void test_checks_on_threads(void **state)
{
    char why[256] = "";
    const ExecOps *ops = exec_find("threads", why, sizeof why);
    assert_non_null(ops);
    for (int t = 0; t < DT_COUNT; t++) {
        Executor *ex = NULL;
        Schedule s;
        CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 3, .count = 7,
                      .dtype = (DataType)t, .op = OP_SUM};
        assert_int_equal(ops->open(&ex, 3, &(ExecOptions){0}, why, sizeof why),
                         CV_OK);
        assert_int_equal(algo_generate(algo_find(c.kind, "ring"), &c, &s), CV_OK);
        assert_int_equal(ops->load(ex, &s), CV_OK);
        MeasureOptions o = {.checks = 2, .iters = 3};
        MeasureResult r = {0};
        assert_int_equal(measure_loaded(ex, &s, &o, &r), CV_OK);
        assert_int_equal(r.wrong, 0);
        assert_int_equal(r.iters, 3);
        assert_true(r.iter_s > 0);
        ops->close(ex);
        sched_fini(&s);
    }
}

/* Per-iteration timing (MeasureOptions.each), on the fake clock: a call
 * starts in 50 us that its own time leaves out. Where the backend times
 * each iteration in its loop, one call as without -I, the row's mean
 * the same, the iterations' own from it; elsewhere one call per
 * iteration, each on the host's clock (its start included, so never
 * below what the loop measures); and the statistics by their
 * definitions: min, max, the nearest-rank 99th percentile and the
 * population standard deviation over the mean. */
static void test_each_iteration(void **state)
{
    static const double each[] = {5e-6, 1e-6, 3e-6, 2e-6, 4e-6};
    RecExec x;
    Schedule s;
    rec_init(&x, &s, 0);
    x.base.ops = &rec_each_ops, x.each = each, x.neach = 5, x.start_s = 50e-6;
    MeasureOptions o = {.warmup = 2, .iters = 5, .each = 1,
                        .clock = fake_clock};
    MeasureResult r = {0};
    assert_int_equal(measure_loaded(&x.base, &s, &o, &r), CV_OK);
    assert_int_equal(x.ncalls, 1); /* the loop of -I is the loop without */
    assert_int_equal(x.warmup[0], 2);
    assert_int_equal(x.iters[0], 5);
    assert_true(fabs(r.iter_s - 3e-6) < 1e-15);
    assert_true(fabs(r.min_s - 1e-6) < 1e-15 && fabs(r.max_s - 5e-6) < 1e-15);
    assert_true(fabs(r.p99_s - 5e-6) < 1e-15);
    assert_true(fabs(r.cv - sqrt(2.0) / 3) < 1e-9); /* sd sqrt(2) us / 3 us */
    assert_true(fabs(r.p50_s - 3e-6) < 1e-15 && fabs(r.p95_s - 5e-6) < 1e-15);
    assert_true(fabs(r.sd_s - sqrt(2.0) * 1e-6) < 1e-15);
    for (int i = 0; i < 5; i++) /* in their order */
        assert_true(fabs(r.times[i] - each[i]) < 1e-15);
    free(r.times);
    sched_fini(&s);
    /* a backend that cannot: the warmup apart, then 7 calls of one, each
       3 us + its 50 us start on the host's clock */
    rec_init(&x, &s, 3e-6);
    x.start_s = 50e-6;
    o = (MeasureOptions){.warmup = 2, .iters = 7, .each = 1,
                         .clock = fake_clock};
    assert_int_equal(measure_loaded(&x.base, &s, &o, &r), CV_OK);
    assert_int_equal(x.ncalls, 8);
    assert_int_equal(x.warmup[0] + x.iters[0], 2);
    for (int i = 1; i < 8; i++)
        assert_true(x.iters[i] == 1 && x.warmup[i] == 0);
    assert_true(fabs(r.iter_s - 53e-6) < 1e-12);
    assert_true(fabs(r.min_s - 53e-6) < 1e-12 && r.cv < 1e-9);
    free(r.times);
    sched_fini(&s);
    /* 5, 1, 3, 2, 4: mean 3, variance (4+1+0+1+4)/5 = 2, cv sqrt(2)/3 */
    double v[5] = {5, 1, 3, 2, 4};
    MeasureResult st = {0};
    measure_stats(v, 5, &st);
    assert_true(st.min_s == 1 && st.max_s == 5 && st.p99_s == 5);
    assert_true(fabs(st.cv - sqrt(2.0) / 3) < 1e-12);
    /* 1 .. 200: the 99th percentile is the 198th value (ceil(0.99 * 200)) */
    double w[200];
    for (int i = 0; i < 200; i++)
        w[i] = 200 - i;
    measure_stats(w, 200, &st);
    assert_true(st.min_s == 1 && st.max_s == 200 && st.p99_s == 198);
    /* the median the upper middle (101st), the 95th the 190th */
    assert_true(st.p50_s == 101 && st.p95_s == 190);
}

/* nccl-tests' -z on the fake clock: a call starts in 40 us, which the
 * backend's own 4 us per collective leave out. -z 0: one call, the
 * backend's 4 us, and the host's clock per collective 4 + 40/12 us (the
 * start spread over the call); -z 1 and -z 2: every collective its own
 * call timed on the host's clock, 44 us, never below -z 0's or the
 * host's; -z 3: every iteration (-m 3) its own call, the backend's 4 us,
 * the starts left out as nccl-tests leaves its barrier out. */
static void test_blocking_modes(void **state)
{
    static const struct {
        int z;
        int calls, per_call; /* timed calls, collectives each */
        double time_us, host_us;
    } cases[] = {
        {0, 1, 12, 4, 4 + 40.0 / 12},
        {1, 12, 1, 44, 44},
        {2, 12, 1, 44, 44},
        {3, 4, 3, 4, 4 + 40.0 / 3},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        RecExec x;
        Schedule s;
        rec_init(&x, &s, 4e-6);
        x.start_s = 40e-6;
        MeasureOptions o = {.warmup = 2, .iters = 4, .agg = 3,
                            .blocking = cases[c].z, .host_time = 1,
                            .clock = fake_clock};
        MeasureResult r = {0};
        assert_int_equal(measure_loaded(&x.base, &s, &o, &r), CV_OK);
        assert_int_equal(x.ncalls, cases[c].calls + 1); /* + the warmup */
        assert_int_equal(x.warmup[0] + x.iters[0], 2);
        for (int k = 1; k <= cases[c].calls; k++)
            assert_true(x.warmup[k] == 0 && x.iters[k] == cases[c].per_call);
        assert_int_equal(r.iters, 4);
        assert_true(fabs(r.iter_s - cases[c].time_us * 1e-6) < 1e-12);
        assert_true(fabs(r.host_s - cases[c].host_us * 1e-6) < 1e-12);
        assert_true(r.iter_s <= r.host_s + 1e-15);
        sched_fini(&s);
    }
}

/* nccl-tests' -m (agg_iters): an iteration is agg collectives in one
 * call, and every time is per collective (nccl-tests divides each
 * iteration's time by agg_iters); -z (blocking): every iteration its own
 * call; -C (cputime): the host's clock around the timed calls only, per
 * collective, the warmup in a call of its own outside it. */
static void test_agg_blocking_host_time(void **state)
{
    RecExec x;
    Schedule s;
    /* -m 3 -n 5 -w 2: one call of 15 collectives after 2 warmups */
    rec_init(&x, &s, 4e-6);
    MeasureOptions o = {.warmup = 2, .iters = 5, .agg = 3};
    MeasureResult r = {0};
    assert_int_equal(measure_loaded(&x.base, &s, &o, &r), CV_OK);
    assert_int_equal(x.ncalls, 1);
    assert_int_equal(x.warmup[0], 2);
    assert_int_equal(x.iters[0], 15);
    assert_int_equal(r.iters, 5);
    assert_true(fabs(r.iter_s - 4e-6) < 1e-15); /* per collective */
    sched_fini(&s);
    /* -m 3 -z 3 -n 4: four calls of 3, the warmup in the first only */
    rec_init(&x, &s, 4e-6);
    o = (MeasureOptions){.warmup = 2, .iters = 4, .agg = 3, .blocking = 3};
    assert_int_equal(measure_loaded(&x.base, &s, &o, &r), CV_OK);
    assert_int_equal(x.ncalls, 4);
    for (int c = 0; c < 4; c++) {
        assert_int_equal(x.iters[c], 3);
        assert_int_equal(x.warmup[c], c ? 0 : 2);
    }
    assert_int_equal(r.iters, 4);
    sched_fini(&s);
    /* -m 2 -I: each iteration's time per collective (the backend's mean
       over its 2), their spread as without -m */
    static const double seq[] = {1e-6, 3e-6, 2e-6};
    rec_init(&x, &s, 0);
    x.seq = seq, x.nseq = 3;
    o = (MeasureOptions){.iters = 3, .agg = 2, .each = 1, .clock = fake_clock};
    assert_int_equal(measure_loaded(&x.base, &s, &o, &r), CV_OK);
    assert_int_equal(x.ncalls, 3);
    assert_int_equal(x.iters[0], 2);
    assert_true(fabs(r.min_s - 1e-6) < 1e-15 && fabs(r.max_s - 3e-6) < 1e-15);
    assert_true(fabs(r.iter_s - 2e-6) < 1e-15);
    free(r.times);
    sched_fini(&s);
    /* -C: a backend that says 1 s per collective but takes 2 ms, and
       200 ms per warmup iteration: the host's time is about 2 ms per
       collective (-m 2 -n 3: 6 of them in 12 ms), not the backend's 1 s,
       and not the warmup's 400 ms (which would add 67 ms to each) */
    rec_init(&x, &s, 1.0);
    x.sleep_s = 2e-3, x.warm_sleep_s = 0.2;
    o = (MeasureOptions){.warmup = 2, .iters = 3, .agg = 2, .host_time = 1};
    assert_int_equal(measure_loaded(&x.base, &s, &o, &r), CV_OK);
    assert_int_equal(x.ncalls, 2); /* the warmup's call, then the timed one */
    assert_int_equal(x.warmup[0] + x.iters[0], 2); /* 2 untimed in all */
    assert_int_equal(x.warmup[1], 0);
    assert_int_equal(x.iters[1], 6);
    assert_true(r.host_s >= 2e-3);
    assert_true(r.host_s < 30e-3);
    assert_true(fabs(r.iter_s - 1.0) < 1e-12); /* the backend's own */
    sched_fini(&s);
    /* without -C no host time is kept */
    rec_init(&x, &s, 1.0);
    o = (MeasureOptions){.iters = 2};
    assert_int_equal(measure_loaded(&x.base, &s, &o, &r), CV_OK);
    assert_true(r.host_s == 0);
    sched_fini(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_iteration),
        cmocka_unit_test(test_blocking_modes),
        cmocka_unit_test(test_agg_blocking_host_time),
        cmocka_unit_test(test_parts_spread),
        cmocka_unit_test(test_exact_iters),
        cmocka_unit_test(test_min_time_sizes_the_loop),
        cmocka_unit_test(test_chunks_and_steps),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_cancel_in_check),
        cmocka_unit_test(test_checks_on_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
