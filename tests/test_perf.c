/* test_perf.c - the measurement engine on the threads backend (every
 * algorithm, rank counts, counts p does and does not divide, both places:
 * no wrong element, sizes, counts, busbw factors and model times as they
 * must be; a broken schedule is caught), its summaries, and the rule that
 * flags rows run while the machine was not as calibrated. The commands
 * are tested as programs in test_perf_cmd.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure/perf.h"
#include "perf_fixture.h"
#include "exec/probe.h"

#include "call_fixture.h"

/* ------------------------------------------------------------- helpers */

static Executor *open_threads(int p)
{
    char why[256] = "";
    const ExecOps *ops = exec_find("threads", why, sizeof why);
    if (!ops)
        fail_msg("no threads backend: %s", why);
    Executor *ex = NULL;
    ExecOptions o = {0};
    if (ops->open(&ex, p, &o, why, sizeof why))
        fail_msg("cannot open threads at %d ranks: %s", p, why);
    return ex;
}

/* Whether a's schedule for c has any transfer, and any between ranks. */
static void schedule_moves(const AlgoInfo *a, const CollCall *c, int *any,
                           int *remote)
{
    Schedule s;
    assert_int_equal(algo_generate(a, c, &s), CV_OK);
    *any = *remote = 0;
    for (size_t x = 0; x < s.nxfers; x++)
        *any = 1, *remote |= s.xfers[x].src != s.xfers[x].dst;
    sched_fini(&s);
}

/* Every property of one measured row. */
static void check_row(const PerfConfig *cfg, const Calib *cal, const PerfRow *r,
                      size_t count)
{
    CollCall c = cfg->call;
    c.count = count;
    assert_int_equal(r->count, count);
    assert_int_equal(r->bytes, coll_size_bytes(&c));
    for (int pl = 0; pl < PERF_PLACE_COUNT; pl++) {
        const PerfSide *s = &r->side[pl];
        /* a place the collective has no call for (sendrecv in place) is
         * not measured, and says so */
        assert_int_equal(s->skipped, !call_defined(c.kind, c.nranks, pl));
        if (s->skipped) {
            assert_true(s->wrong == -1 && s->time_s == 0 && s->busbw == 0);
            continue;
        }
        if (s->wrong != 0)
            fail_msg("%s/%s p=%d count=%zu %s: %lld wrong", coll_name(c.kind),
                     r->algo->name, c.nranks, count,
                     pl ? "in place" : "out of place", s->wrong);
        assert_true(s->time_s > 0);
        assert_rel(s->algbw, (double)r->bytes / s->time_s / 1e9, 1e-9);
        assert_rel(s->busbw, s->algbw * coll_busbw_factor(c.kind, c.nranks), 1e-9);
        int any, remote;
        c.in_place = pl == PERF_IN_PLACE;
        schedule_moves(r->algo, &c, &any, &remote);
        for (int l = 0; l <= MACHINE_BUS; l++) {
            /* p2p: only messages cost; shared: local transfers too. */
            int moves = l == MACHINE_FULL ? remote : any;
            if (moves != (s->model_s[l] > 0))
                fail_msg("%s/%s p=%d count=%zu: model %g", coll_name(c.kind),
                         r->algo->name, c.nranks, count, s->model_s[l]);
            assert_true(s->model_s[l] == 0 || s->model_s[l] >= cal->alpha ||
                        !remote);
        }
    }
}

/* ------------------------------------------------------- engine sweeps */

/* Every algorithm of the registry at p ranks, counts {0, 1, p-1, p, p+1,
 * an odd larger one}, a root that is not 0 where there is one. */
static void sweep_ranks(int p, DataType t, RedOp op)
{
    Executor *ex = open_threads(p);
    Calib cal = test_calib(p);
    const size_t counts[] = {0, 1, (size_t)p - 1, (size_t)p, (size_t)p + 1, 1237};
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        if (a->fits)
            continue; /* made for some machines: test_algos_torus */
        if (!call_defined(a->coll, p, false))
            continue; /* hypercube on p not a power of two */
        PerfConfig cfg = {.call = {.kind = a->coll, .nranks = p, .dtype = t,
                                   .op = op, .root = coll_is_rooted(a->coll) ? p / 2 : 0},
                          .iters = 2, .warmup = 1, .check = 1};
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            CollCall one = cfg.call;
            one.count = 1;
            unsigned long long bytes = counts[k] * coll_size_bytes(&one);
            PerfRow row;
            char why[256] = "";
            CvError e = perf_measure(ex, &cfg, &cal, a, bytes, &row, why, sizeof why);
            if (e)
                fail_msg("%s/%s p=%d: %s (%s)", coll_name(a->coll), a->name, p,
                         cv_strerror(e), why);
            assert_ptr_equal(row.algo, a);
            check_row(&cfg, &cal, &row, counts[k]);
        }
    }
    ex->ops->close(ex);
}

static void test_every_algorithm(void **state)
{
    (void)state;
    static const int ranks[] = {1, 2, 3, 5, 8};
    for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++)
        sweep_ranks(ranks[i], DT_FLOAT, OP_SUM);
}

static void test_types_and_ops(void **state)
{
    (void)state;
    sweep_ranks(4, DT_INT32, OP_MAX);
    sweep_ranks(3, DT_HALF, OP_AVG);
    sweep_ranks(6, DT_DOUBLE, OP_PROD);
    sweep_ranks(2, DT_UINT8, OP_MIN);
}

/* An allreduce that only copies each rank's input to its output: every
 * element that other ranks should have added to is wrong. */
static CvError broken_generate(const AlgoArgs *args, Schedule *s)
{
    const CollCall *call = args->call;
    CvError e = sched_init(s, call, "broken");
    if (e)
        return e;
    sched_step(s, "copy");
    for (int r = 0; r < call->nranks && !call->in_place; r++)
        sched_copy(s, r, BUF_SEND, 0, r, BUF_RECV, 0, call->count);
    return sched_end(s);
}

static void broken_cost(const CollCall *call, CostTerms *out)
{
    (void)call;
    *out = (CostTerms){0};
}

static void test_wrong_is_caught(void **state)
{
    (void)state;
    const AlgoInfo broken = {.coll = COLL_ALLREDUCE, .name = "broken",
                             .generate = broken_generate, .cost = broken_cost};
    for (int p = 2; p <= 4; p++) {
        Executor *ex = open_threads(p);
        Calib cal = test_calib(p);
        PerfConfig cfg = {.call = {.kind = COLL_ALLREDUCE, .nranks = p,
                                   .dtype = DT_INT32, .op = OP_SUM},
                          .iters = 1, .warmup = 0, .check = 2};
        PerfRow row;
        assert_int_equal(perf_measure(ex, &cfg, &cal, &broken, 4000, &row, NULL, 0),
                         CV_OK);
        for (int pl = 0; pl < PERF_PLACE_COUNT; pl++) {
            assert_true(row.side[pl].wrong > 0);
            assert_true(row.side[pl].wrong <= (long long)(p * 1000));
        }
        assert_true(perf_wrong_total(&row, 1) > 0);
        cfg.check = 0; /* -c 0: nothing is checked */
        assert_int_equal(perf_measure(ex, &cfg, &cal, &broken, 4000, &row, NULL, 0),
                         CV_OK);
        assert_int_equal(row.side[0].wrong, -1);
        assert_int_equal(row.side[1].wrong, -1);
        assert_int_equal(perf_wrong_total(&row, 1), 0);
        ex->ops->close(ex);
    }
}

/* Progress calls seen, and the row after which to cancel (0: never). */
typedef struct {
    size_t calls;     /* rows reported */
    size_t cancel_at; /* cancel after this many (0: never) */
    size_t total;     /* the total the engine announced */
} Seen;

static int count_rows(void *ctx, const PerfRow *row, size_t done, size_t total)
{
    Seen *s = ctx;
    (void)row;
    assert_int_equal(done, ++s->calls);
    s->total = total;
    return s->cancel_at && done == s->cancel_at;
}

static void test_sweep(void **state)
{
    (void)state;
    Executor *ex = open_threads(3);
    Calib cal = test_calib(3);
    PerfConfig cfg = {.call = {.kind = COLL_ALLGATHER, .nranks = 3, .dtype = DT_FLOAT},
                      .sweep = {.min = 8, .max = 1000, .factor = 3},
                      .iters = 1, .warmup = 0, .check = 1};
    /* 8 24 72 216 648: floored to whole blocks of 3 floats (12 bytes). */
    const unsigned long long want[] = {0, 24, 72, 216, 648};
    size_t n = sweep_len(&cfg.sweep);
    assert_int_equal(n, 5);
    PerfRow rows[5];
    Seen seen = {0};
    assert_int_equal(perf_sweep(ex, &cfg, &cal, algo_default(COLL_ALLGATHER), rows,
                                count_rows, &seen, NULL, 0), CV_OK);
    assert_int_equal(seen.calls, n);
    assert_int_equal(seen.total, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rows[i].bytes, want[i]);
        check_row(&cfg, &cal, &rows[i], (size_t)want[i] / 12);
    }
    cfg.sweep = (Sweep){.min = 4, .max = 40, .step = 4};
    assert_int_equal(sweep_len(&cfg.sweep), 10);
    Seen stop = {.cancel_at = 3};
    PerfRow more[10];
    assert_int_equal(perf_sweep(ex, &cfg, &cal, algo_default(COLL_ALLGATHER), more,
                                count_rows, &stop, NULL, 0), CV_ERR_CANCELLED);
    assert_int_equal(stop.calls, 3);
    ex->ops->close(ex);
}

/* The threads backend on a fake clock: every run does the real work, then
 * says each of its iterations took FAKE_ITER_S, so that a loop sized by
 * the minimum time has a size known by hand whatever the host's speed. */
#define FAKE_ITER_S (1.0 / 256)
static ExecOps fake_clock_ops;
static CvError (*real_run)(Executor *, int, int, ExecTiming *);

static CvError fake_clock_run(Executor *ex, int warmup, int iters, ExecTiming *t)
{
    CvError e = real_run(ex, warmup, iters, t);
    if (!e)
        t->iter_s = FAKE_ITER_S;
    return e;
}

static Executor *open_fake_clock(int p)
{
    Executor *ex = open_threads(p);
    fake_clock_ops = *ex->ops;
    real_run = ex->ops->run;
    fake_clock_ops.run = fake_clock_run;
    ex->ops = &fake_clock_ops;
    return ex;
}

/* --min-time: exactly `iters` timed iterations without it; with it, as
 * many as fill the minimum time (1/32 s of iterations of 1/256 s: 8), for
 * every algorithm, both places, and the results still right. */
static void test_min_time(void **state)
{
    (void)state;
    Executor *ex = open_fake_clock(2);
    Calib cal = test_calib(2);
    PerfConfig cfg = {.call = {.kind = COLL_ALLREDUCE, .nranks = 2, .dtype = DT_FLOAT},
                      .sweep = {.min = 8, .max = 8, .factor = 2},
                      .iters = 1, .warmup = 1, .check = 1};
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        if (a->fits)
            continue; /* made for some machines: test_algos_torus */
        if (a->coll != COLL_ALLREDUCE)
            continue;
        PerfRow row;
        cfg.min_time_s = 0;
        assert_int_equal(perf_measure(ex, &cfg, &cal, a, 8, &row, NULL, 0), CV_OK);
        for (int pl = 0; pl < PERF_PLACE_COUNT; pl++)
            assert_int_equal(row.side[pl].iters, 1);
        cfg.min_time_s = 1.0 / 32;
        assert_int_equal(perf_measure(ex, &cfg, &cal, a, 8, &row, NULL, 0), CV_OK);
        for (int pl = 0; pl < PERF_PLACE_COUNT; pl++) {
            assert_int_equal(row.side[pl].iters, 8);
            assert_int_equal(row.side[pl].wrong, 0);
            assert_true(row.side[pl].time_s == FAKE_ITER_S);
        }
    }
    ex->ops->close(ex);
}

static void test_summaries(void **state)
{
    (void)state;
    static const AlgoInfo algos[3] = {{.name = "a"}, {.name = "b"}, {.name = "c"}};
    /* rows[algo * 2 + size]: two sizes, three algorithms. */
    const double meas[3][2] = {{3, 1}, {2, 5}, {4, 2}};
    const double model[3][2] = {{5, 2}, {6, 1}, {1, 3}};
    PerfRow rows[6] = {0};
    for (int a = 0; a < 3; a++)
        for (int s = 0; s < 2; s++) {
            PerfRow *r = &rows[a * 2 + s];
            r->algo = &algos[a];
            r->name = algos[a].name; /* measured */
            for (int pl = 0; pl < PERF_PLACE_COUNT; pl++) {
                r->side[pl] = (PerfSide){.time_s = meas[a][s], .busbw = a + s + pl,
                                         .wrong = a == 1 && pl ? 2 : (s ? -1 : 0)};
                r->side[pl].model_s[MACHINE_BUS] = model[a][s];
                r->side[pl].model_s[MACHINE_FULL] = meas[a][s];
            }
        }
    size_t m, p;
    perf_best(rows, 3, 2, MACHINE_BUS, &m, &p);
    assert_int_equal(m, 1);
    assert_int_equal(p, 2);
    perf_best(rows + 1, 3, 2, MACHINE_BUS, &m, &p);
    assert_int_equal(m, 0);
    assert_int_equal(p, 1);
    perf_best(rows + 1, 3, 2, MACHINE_FULL, &m, &p);
    assert_int_equal(m, p);
    assert_int_equal(perf_wrong_total(rows, 6), 4);
    /* busbw sums to 2 * (0+1+1+2+2+3) + 6 * 1 = 24 over 12 sides. */
    assert_rel(perf_avg_busbw(rows, 6), 2.0, 1e-12);
    rows[5].name = NULL; /* a row not measured (-a all's failed run) counts
                            not: 24 - (3 + 4) over 10 sides */
    assert_rel(perf_avg_busbw(rows, 6), 1.7, 1e-12);
    rows[5].name = algos[2].name;
    assert_rel(perf_ratio(&rows[0].side[0], MACHINE_BUS), 3.0 / 5.0, 1e-12);
    PerfSide none = {.time_s = 1};
    assert_true(perf_ratio(&none, MACHINE_BUS) == 0);
}

/* perf_host_moved: a row is flagged PERF_HOST_CROSS exactly when its
 * probe ratios and the calibration's are more than PROBE_MOVED apart,
 * PERF_HOST_SPEED when its clean times and the calibration's are more
 * than PROBE_SLOWER apart, and neither when that side was not probed. */
static void test_host_moved(void **state)
{
    (void)state;
    enum { C = PERF_HOST_CROSS, S = PERF_HOST_SPEED };
    static const struct {
        double cal[2], row[2];
        int moved;
    } ratios[] = {
        {{0, 0}, {11, 11}, 0},         /* calibration not probed */
        {{1.1, 1.0}, {0, 0}, 0},       /* row not probed */
        {{1.1, 1.0}, {1.2, 0.9}, 0},   /* one state */
        {{1.0, 1.0}, {PROBE_MOVED, 1.5}, 0}, /* exactly PROBE_MOVED */
        {{1.0, 1.0}, {PROBE_MOVED + 0.01, 1.5}, C},
        {{1.1, 1.0}, {0.62, 1.2}, 0},  /* the fast state's spread here */
        {{1.1, 1.0}, {1.2, 11.0}, C},  /* moved during the row */
        {{1.1, 1.0}, {10.5, 11.0}, C}, /* slow throughout the row */
        {{11, 10.2}, {10.5, 11.0}, 0}, /* calibrated slow, ran slow */
        {{11, 10.2}, {1.0, 1.1}, C},
        {{1.1, 11}, {1.0, 1.1}, C},    /* the calibration straddled */
        {{0, 1.1}, {0, 1.0}, 0},       /* one probe each */
        {{0, 1.1}, {11, 0}, C},
    }, cleans[] = { /* microseconds */
        {{0, 0}, {88, 88}, 0},         /* calibration without clean times */
        {{45, 46}, {0, 0}, 0},
        {{45, 46}, {43, 52}, 0},       /* the usual spread here */
        {{40, 40}, {40 * PROBE_SLOWER, 41}, 0}, /* exactly PROBE_SLOWER */
        {{40, 40}, {40 * PROBE_SLOWER + 0.1, 41}, S},
        {{45, 46}, {45, 88}, S},       /* a spell began during the row */
        {{45, 46}, {88, 87}, S},
        {{88, 87}, {45, 46}, S},       /* calibrated in a spell */
        {{88, 87}, {89, 86}, 0},
        {{30, 0}, {0, 44}, 0},         /* one probe each */
        {{30, 0}, {0, 46}, S},
    };
    for (size_t i = 0; i < sizeof ratios / sizeof ratios[0]; i++) {
        Calib c = test_calib(2);
        PerfRow r = {.probe = {ratios[i].row[0], ratios[i].row[1]}};
        c.probe[0] = ratios[i].cal[0], c.probe[1] = ratios[i].cal[1];
        if (perf_host_moved(&c, &r) != ratios[i].moved)
            fail_msg("ratio case %zu: moved %d, want %d", i,
                     perf_host_moved(&c, &r), ratios[i].moved);
    }
    for (size_t i = 0; i < sizeof cleans / sizeof cleans[0]; i++) {
        Calib c = test_calib(2);
        PerfRow r = {.probe_clean = {cleans[i].row[0] * 1e-6,
                                     cleans[i].row[1] * 1e-6}};
        c.probe_clean[0] = cleans[i].cal[0] * 1e-6;
        c.probe_clean[1] = cleans[i].cal[1] * 1e-6;
        for (int both = 0; both < 2; both++) { /* alone, and with a ratio */
            int want = cleans[i].moved | (both ? C : 0);
            c.probe[0] = both ? 1 : 0, r.probe[0] = both ? 11 : 0;
            if (perf_host_moved(&c, &r) != want)
                fail_msg("clean case %zu (%d): moved %d, want %d", i, both,
                         perf_host_moved(&c, &r), want);
        }
    }
}

/* A calibration that knows the state it measured in (Calib.state_*):
 * rows are set against that, not against its probes at both ends, one of
 * which may have fallen into another state. */
static void test_host_moved_state(void **state)
{
    (void)state;
    enum { C = PERF_HOST_CROSS, S = PERF_HOST_SPEED };
    static const struct {
        double ratio, clean_us;  /* the calibration's state */
        double row[2], row_us[2];
        int moved;
    } cases[] = {
        {1.1, 45, {1.0, 1.2}, {44, 50}, 0},
        {1.1, 45, {12, 1.2}, {44, 50}, C},
        {1.1, 45, {1.0, 1.2}, {44, 88}, S},
        {11, 45, {1.0, 1.2}, {88, 50}, C | S},
        {11, 88, {10, 12}, {89, 87}, 0},  /* calibrated slow, ran slow */
        {1.1, 45, {0, 0}, {0, 0}, 0},     /* the row not probed */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Calib c = test_calib(2);
        /* ends in another state than the calibration's minutes */
        c.probe[0] = 1.0, c.probe[1] = 13;
        c.probe_clean[0] = 45e-6, c.probe_clean[1] = 90e-6;
        c.state_ratio = cases[i].ratio;
        c.state_clean = cases[i].clean_us * 1e-6;
        c.state_probes = 500;
        PerfRow r = {.probe = {cases[i].row[0], cases[i].row[1]},
                     .probe_clean = {cases[i].row_us[0] * 1e-6,
                                     cases[i].row_us[1] * 1e-6}};
        if (perf_host_moved(&c, &r) != cases[i].moved)
            fail_msg("case %zu: moved %d, want %d", i, perf_host_moved(&c, &r),
                     cases[i].moved);
    }
}

/* nccl-tests' NCCL_TESTS_MIN_BW verdict: FAILED where the average busbw
 * is below 90% of the threshold (nccl-tests' common.cu: bw < 0.9 *
 * check_avg_bw), OK at 90% and above; no verdict without a threshold. */
static void test_bw_verdict(void **state)
{
    (void)state;
    assert_false(perf_bw_low(90.0, 100.0));
    assert_true(perf_bw_low(89.99, 100.0));
    assert_false(perf_bw_low(95.0, 100.0));
    assert_false(perf_bw_low(250.0, 100.0));
    assert_true(perf_bw_low(0.0, 1e-9));
    assert_false(perf_bw_low(0.0, 0.0)); /* 0 is always met */
    assert_false(perf_bw_low(0.0, -1.0)); /* none asked */
    assert_true(perf_bw_low(NAN, 10.0)); /* no bandwidth measured */
}

/* The threads backend recording the algorithm of each schedule loaded. */
static ExecOps order_ops;
static CvError (*real_load)(Executor *, const Schedule *);
static const char *loaded[64];
static int nloaded;

static CvError order_load(Executor *ex, const Schedule *s)
{
    if (nloaded < 64)
        loaded[nloaded++] = s->algo;
    return real_load(ex, s);
}

/* -a all interleaved (perf_sweep_all): at the k-th size the algorithms in
 * turn from the k-th on (3 algorithms, 3 sizes: ring direct hd, direct hd
 * ring, hd ring direct), each place loaded in turn, each row where its
 * algorithm's rows are (rows + i * stride) and right. */
static void test_interleaved(void **state)
{
    (void)state;
    Executor *ex = open_threads(2);
    order_ops = *ex->ops;
    real_load = ex->ops->load;
    order_ops.load = order_load;
    ex->ops = &order_ops;
    Calib cal = test_calib(2);
    PerfConfig cfg = {.call = {.kind = COLL_ALLREDUCE, .nranks = 2,
                               .dtype = DT_FLOAT},
                      .sweep = {.min = 8, .max = 32, .factor = 2},
                      .iters = 1, .warmup = 0, .check = 1};
    const char *names[3] = {"ring", "direct", "halving-doubling"};
    const AlgoInfo *algos[3];
    for (int i = 0; i < 3; i++)
        assert_non_null(algos[i] = algo_find(COLL_ALLREDUCE, names[i]));
    PerfRow rows[9] = {{0}};
    bool gone[3] = {false};
    nloaded = 0;
    assert_int_equal(perf_sweep_all(ex, &cfg, &cal, algos, 3, rows, 3, gone,
                                    NULL, NULL, NULL, 0), CV_OK);
    static const int want[3][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}};
    assert_int_equal(nloaded, 18); /* 9 rows, two places each */
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 3; j++)
            for (int pl = 0; pl < 2; pl++)
                assert_string_equal(loaded[(k * 3 + j) * 2 + pl],
                                    names[want[k][j]]);
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            const PerfRow *r = &rows[i * 3 + k];
            assert_string_equal(r->name, names[i]);
            assert_int_equal(r->bytes, 8u << k);
            assert_int_equal(r->side[0].wrong, 0);
            assert_int_equal(r->side[1].wrong, 0);
        }
    assert_false(gone[0] || gone[1] || gone[2]);
    ex->ops->close(ex);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interleaved),
        cmocka_unit_test(test_every_algorithm),
        cmocka_unit_test(test_types_and_ops),
        cmocka_unit_test(test_wrong_is_caught),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_min_time),
        cmocka_unit_test(test_summaries),
        cmocka_unit_test(test_host_moved),
        cmocka_unit_test(test_host_moved_state),
        cmocka_unit_test(test_bw_verdict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
