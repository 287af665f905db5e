/* test_exec_threads.c - the threads backend: every registered algorithm on
 * p in {1, 2, 3, 4, 5, 7, 8, 16} ranks, every datatype and op, in place and
 * not, checked against the symbolic executor after every step and against
 * the collective's definition after timed runs (where the point-to-point
 * synchronisation, not the per-command barrier, orders the ranks); staging
 * of overwritten sources; bad input (rank limits, sizes beyond memory,
 * unknown and missing backends, calls out of order). Cancelling:
 * test_exec_cancel.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "algos/algo.h"
#include "core/data.h"
#include "exec/exec.h"
#include "exec/verify.h"

#include "call_fixture.h"
#include "conformance.h"
#include "threads/exec_threads.h"

#include "sanitizer.h"

static const int rank_counts[] = {1, 2, 3, 4, 5, 7, 8, 16};
#define NRANKCOUNTS (sizeof rank_counts / sizeof *rank_counts)

static const ExecOps *threads(void)
{
    char why[200];
    const ExecOps *ops = exec_find("threads", why, sizeof why);
    assert_non_null(ops);
    return ops;
}

static Executor *open_threads(int p, const ExecOptions *opt)
{
    char why[200] = "";
    Executor *ex = NULL;
    CvError e = threads()->open(&ex, p, opt, why, sizeof why);
    if (e)
        fail_msg("open %d ranks: %s: %s", p, cv_strerror(e), why);
    return ex;
}

/* Options for the threads backend (-B threads:...): eager_bytes, push_bytes
 * (-1 for 0: none) and spin_us (-1: the default). */
static const ExecOptions *params(int eager, long push, int spin_us)
{
    static char text[128];
    static ExecOptions o;
    int n = snprintf(text, sizeof text, "eager_bytes=%d,push_bytes=%ld",
                     eager < 0 ? 0 : eager, push < 0 ? 0 : push);
    if (spin_us >= 0)
        snprintf(text + n, sizeof text - (size_t)n, ",spin_us=%d", spin_us);
    o = (ExecOptions){.params = text};
    return &o;
}

static void expect_right(CvError e, const VerifyReport *rep, const char *what,
                         const char *when)
{
    if (e)
        fail_msg("%s, %s: %s: %zu of %zu elements wrong; first: rank %d %s[%zu] "
                 "= %#llx, want %#llx", what, when, cv_strerror(e), rep->wrong,
                 rep->checked, rep->bad_rank, buf_name(rep->bad_buf),
                 rep->bad_elem, (unsigned long long)rep->got,
                 (unsigned long long)rep->want);
}

/* ------------------------------------------------------------ backends */

static void test_find_backends(void **state)
{
    (void)state;
    char why[200];
    assert_non_null(exec_find("threads", why, sizeof why));
    assert_string_equal(threads()->name, "threads");
#ifdef COLLVIZ_WITH_CUDA /* built in: test_exec_cuda.c tests it */
    assert_non_null(exec_find("cuda", why, sizeof why));
#else
    assert_null(exec_find("cuda", why, sizeof why));
    assert_string_equal(why, "this collviz was built without the cuda backend "
                             "(CUDA=0, or no nvcc or clang to compile its "
                             "kernels); -B threads runs on this machine's cores");
#endif
    /* mpi is collviz-mpi's (exec_provide), never this program's */
    assert_null(exec_find("mpi", why, sizeof why));
#ifdef COLLVIZ_HAVE_MPI
    assert_non_null(strstr(why, "mpirun -np N collviz-mpi"));
#else
    assert_non_null(strstr(why, "built without MPI"));
#endif
    assert_null(exec_find("carrier-pigeon", why, sizeof why));
    assert_non_null(strstr(why, "carrier-pigeon"));
    assert_non_null(strstr(why, "threads, cuda, mpi"));
    assert_null(exec_find(NULL, why, sizeof why));
    size_t n = 0;
    while (exec_name_at(n))
        n++;
    assert_int_equal(n, 3);
    assert_string_equal(exec_name_at(0), "threads");
}

/* -B's spec: NAME, or NAME:PARAMS with PARAMS handed to the backend; the
 * options string splits into key=value items (exec_param_next). */
static void test_find_spec(void **state)
{
    (void)state;
    char why[200];
    const char *params = "unset";
    assert_ptr_equal(exec_find_spec("threads", &params, why, sizeof why),
                     threads());
    assert_null(params);
    assert_ptr_equal(exec_find_spec("THREADS:spin_us=1,eager_bytes=0", &params,
                                    why, sizeof why), threads());
    assert_string_equal(params, "spin_us=1,eager_bytes=0");
    /* U10: no options after ':', an empty one or a key twice: refused */
    assert_null(exec_find_spec("threads:", &params, why, sizeof why));
    assert_non_null(strstr(why, "has no options after ':'"));
    assert_null(exec_find_spec("threads:,spin_us=1", &params, why, sizeof why));
    assert_non_null(strstr(why, "hold an empty one"));
    assert_null(exec_find_spec("threads:spin_us=1,spin_us", &params, why,
                               sizeof why));
    assert_non_null(strstr(why, "spin_us is given twice"));
    assert_null(exec_find_spec("nosuch:spin_us=1", &params, why, sizeof why));
    assert_non_null(strstr(why, "there is no backend called 'nosuch'"));
    /* mpi is collviz-mpi's: here a sentence, whatever the options */
    assert_null(exec_find_spec("mpi:x=1", NULL, why, sizeof why));
#ifdef COLLVIZ_HAVE_MPI
    assert_non_null(strstr(why, "mpirun -np N collviz-mpi"));
#else
    assert_non_null(strstr(why, "built without MPI"));
#endif
    assert_null(exec_find_spec(":spin_us=1", NULL, why, sizeof why));
    assert_null(exec_find_spec("a-name-longer-than-any-backend-has:x=1", NULL,
                               why, sizeof why));
    assert_non_null(strstr(why, "a-name-longer-than-any-backend-has:x=1"));
    /* the items of an options string */
    const char *at = ",a=1,,bb=,c,d=4,a-long-key-here=1,e=a-long-value";
    char key[8], val[6];
    static const struct { int r; const char *key, *val; } want[] = {
        {1, "a", "1"}, {1, "bb", ""}, {-1, "c", ""}, {1, "d", "4"},
        {-1, "a-long-", ""}, {-1, "e=a-lon", ""}, {0, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int r = exec_param_next(&at, key, sizeof key, val, sizeof val);
        assert_int_equal(r, want[i].r);
        if (r)
            assert_string_equal(key, want[i].key);
        if (r > 0)
            assert_string_equal(val, want[i].val);
    }
    assert_int_equal(exec_param_next(&at, key, sizeof key, val, sizeof val), 0);
    const char *none = NULL;
    assert_int_equal(exec_param_next(&none, key, sizeof key, val, sizeof val), 0);
}

/* The backend's own options (ExecOptions.params, -B threads:key=value,...):
 * its three, with whole numbers in range, open and run right; another
 * key, a value out of range or not a whole number, or an item without
 * '=' fail with CV_ERR_ARG and a sentence saying what is wrong. */
static void test_options(void **state)
{
    (void)state;
    static const char *const good[] = {
        NULL, "", ",", "spin_us=50,eager_bytes=0", "push_bytes=0",
        "push_bytes=1073741824,spin_us=1000000,", "eager_bytes=33554432",
        ",,spin_us=0,eager_bytes=7,push_bytes=1",
    };
    static const struct {
        const char *params; /* the options */
        const char *says;   /* part of the sentence */
    } bad[] = {
        {"foo=1", "the threads backend has no option 'foo'; its options are "
                  "spin_us, eager_bytes, push_bytes"},
        {"spin_us=50,SPIN_US=1", "has no option 'SPIN_US'"},
        {"=5", "has no option ''"},
        {"spin_us=x", "the threads backend's option spin_us takes a whole "
                      "number of microseconds from 0 to 1000000, not 'x'"},
        {"spin_us=-1", "not '-1'"},
        {"spin_us=1000001", "not '1000001'"},
        {"eager_bytes=", "eager_bytes takes a whole number of bytes from 0 to "
                         "33554432, not ''"},
        {"eager_bytes=33554433", "not '33554433'"},
        {"push_bytes=1e3", "not '1e3'"},
        {"push_bytes=+5", "not '+5'"},
        {"push_bytes= 5", "not ' 5'"},
        {"push_bytes=1073741825", "from 0 to 1073741824"},
        {"push_bytes=99999999999999999999", "not '99999999999999999999'"},
        {"spin_us", "the threads backend's options are key=value, separated "
                    "by commas; 'spin_us' is not one"},
        {"push_bytes=123456789012345678901234567890123",
         "not '123456789012345678901234567890123'"},
        {"push_bytes_push_bytes_push_bytes_push_bytes_push_bytes_push_bytes=1",
         "'push_bytes_push_bytes_push_bytes_push_bytes_push_bytes_push_byt' "
         "is not one"},
    };
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 2, .count = 1000,
                  .dtype = DT_INT32, .op = OP_SUM};
    Schedule s;
    assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "ring"), &c, &s),
                     CV_OK);
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        Executor *ex = open_threads(2, &(ExecOptions){.params = good[i]});
        ExecTiming t = {0};
        VerifyReport vr;
        assert_int_equal(ex->ops->load(ex, &s), CV_OK);
        assert_int_equal(ex->ops->run(ex, 1, 3, &t), CV_OK);
        expect_right(verify_output(ex, true, &vr), &vr, good[i] ? good[i] : "NULL",
                     "a timed run");
        ex->ops->close(ex);
    }
    sched_fini(&s);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char why[300] = "";
        Executor *ex = NULL;
        CvError e = threads()->open(&ex, 2, &(ExecOptions){.params = bad[i].params},
                                    why, sizeof why);
        if (e != CV_ERR_ARG || ex || !strstr(why, bad[i].says))
            fail_msg("'%s': %s, '%s'", bad[i].params, cv_strerror(e), why);
    }
}

/* ExecOptions.unalign (perf -u, nccl-tests' -u): every rank's buffers
 * start that many elements past their allocation, which is aligned to
 * at least 16 bytes, so a buffer's address is u * size mod 16 past a
 * 16-byte boundary; the results stay right, stepped and timed, for
 * every type, at a count three ranks do not divide. */
static void test_unalign(void **state)
{
    (void)state;
    static const size_t us[] = {0, 1, 3, 7};
    for (size_t k = 0; k < sizeof us / sizeof us[0]; k++)
        for (int t = 0; t < DT_COUNT; t++) {
            CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 3, .count = 1001,
                          .dtype = (DataType)t, .op = OP_SUM};
            Schedule s;
            assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "ring"),
                                           &c, &s), CV_OK);
            Executor *ex = open_threads(3, &(ExecOptions){.unalign = us[k]});
            assert_int_equal(ex->ops->load(ex, &s), CV_OK);
            size_t es = dtype_size(c.dtype);
            for (int r = 0; r < 3; r++)
                for (int b = 0; b < BUF_COUNT; b++) {
                    const void *base;
                    const unsigned char *at =
                        threads_buffer(ex, r, (BufId)b, &base);
                    if (!base)
                        continue;
                    assert_int_equal(at - (const unsigned char *)base,
                                     us[k] * es);
                    assert_int_equal((uintptr_t)base % 16, 0);
                    assert_int_equal((uintptr_t)at % 16, us[k] * es % 16);
                }
            VerifyReport vr;
            assert_int_equal(ex->ops->reset(ex), CV_OK);
            for (size_t st = 0; st < s.nsteps; st++)
                assert_int_equal(ex->ops->step(ex, st), CV_OK);
            assert_int_equal(ex->ops->finish(ex), CV_OK);
            expect_right(verify_output(ex, true, &vr), &vr, dtype_name(c.dtype),
                         "stepped, unaligned");
            ExecTiming tm = {0};
            assert_int_equal(ex->ops->run(ex, 1, 2, &tm), CV_OK);
            assert_int_equal(ex->ops->reset(ex), CV_OK);
            assert_int_equal(ex->ops->run(ex, 0, 1, &tm), CV_OK);
            expect_right(verify_output(ex, true, &vr), &vr, dtype_name(c.dtype),
                         "timed, unaligned");
            ex->ops->close(ex);
            sched_fini(&s);
        }
}

/* Beyond COLL_MAX_RANKS (1024) threads, or below one, open refuses with a
 * sentence; the limit itself works. */
static void test_rank_limits(void **state)
{
    (void)state;
    int bad[] = {0, -1, COLL_MAX_RANKS + 1, 1 << 30};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char why[200] = "";
        Executor dummy, *ex = &dummy; /* must be reset to NULL */
        assert_int_equal(threads()->open(&ex, bad[i], NULL, why, sizeof why),
                         CV_ERR_RANKS);
        assert_null(ex);
        assert_non_null(strstr(why, "1 to 1024 ranks"));
    }
    Executor *ex = open_threads(COLL_MAX_RANKS, NULL);
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = COLL_MAX_RANKS, .count = 3,
                  .dtype = DT_INT32, .op = OP_SUM};
    Schedule s;
    assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "ring"), &c, &s), CV_OK);
    assert_int_equal(ex->ops->load(ex, &s), CV_OK);
    ExecTiming t = {0};
    assert_int_equal(ex->ops->run(ex, 0, 1, &t), CV_OK);
    VerifyReport rep;
    expect_right(verify_output(ex, true, &rep), &rep, "ring 1024 ranks", "run");
    ex->ops->close(ex);
    sched_fini(&s);
}

/* ----------------------------------------------------------- bad input */

static void test_calls_before_load(void **state)
{
    (void)state;
    Executor *ex = open_threads(3, NULL);
    const ExecOps *o = ex->ops;
    ExecTiming t = {0};
    int v;
    assert_string_equal(o->last_error(ex), "");
    assert_int_equal(o->step(ex, 0), CV_ERR_ARG);
    assert_true(strlen(o->last_error(ex)) > 0);
    assert_int_equal(o->finish(ex), CV_ERR_ARG);
    assert_int_equal(o->reset(ex), CV_ERR_ARG);
    assert_int_equal(o->run(ex, 0, 1, &t), CV_ERR_ARG);
    assert_int_equal(o->read(ex, 0, BUF_RECV, 0, 1, &v), CV_ERR_ARG);
    o->close(ex);
}

static void test_bad_loads_and_reads(void **state)
{
    (void)state;
    Executor *ex = open_threads(4, NULL);
    const ExecOps *o = ex->ops;
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 3, .count = 5,
                  .dtype = DT_FLOAT, .op = OP_SUM};
    Schedule s;
    assert_int_equal(algo_generate(algo_find(COLL_ALLGATHER, "ring"), &c, &s), CV_OK);
    assert_int_equal(o->load(ex, &s), CV_ERR_ARG); /* 3 ranks into 4 */
    assert_non_null(strstr(o->last_error(ex), "3 ranks"));
    sched_fini(&s);
    /* Two transfers writing the same elements in one step. */
    c.nranks = 4;
    assert_int_equal(sched_init(&s, &c, "bad"), CV_OK);
    sched_step(&s, "clash");
    sched_copy(&s, 0, BUF_SEND, 0, 1, BUF_RECV, 0, 5);
    sched_copy(&s, 2, BUF_SEND, 0, 1, BUF_RECV, 2, 5);
    sched_end(&s);
    assert_int_not_equal(o->load(ex, &s), CV_OK);
    assert_non_null(strstr(o->last_error(ex), "not valid"));
    sched_fini(&s);
    /* A good one, then steps, reads and runs out of range. */
    assert_int_equal(algo_generate(algo_find(COLL_ALLGATHER, "ring"), &c, &s), CV_OK);
    assert_int_equal(o->load(ex, &s), CV_OK);
    float f[20];
    ExecTiming t = {0};
    assert_int_equal(o->step(ex, s.nsteps), CV_ERR_ARG);
    assert_int_equal(o->read(ex, 0, BUF_RECV, 0, 20, f), CV_OK);
    assert_int_equal(o->read(ex, 0, BUF_RECV, 1, 20, f), CV_ERR_BOUNDS);
    assert_int_equal(o->read(ex, 0, BUF_RECV, 21, 0, f), CV_ERR_BOUNDS);
    assert_int_equal(o->read(ex, 4, BUF_RECV, 0, 1, f), CV_ERR_ARG);
    assert_int_equal(o->read(ex, 0, BUF_COUNT, 0, 1, f), CV_ERR_ARG);
    assert_int_equal(o->run(ex, 0, 0, &t), CV_ERR_ARG);
    assert_int_equal(o->run(ex, -1, 1, &t), CV_ERR_ARG);
    o->close(ex);
    sched_fini(&s);
}

/* Sizes beyond memory (and beyond size_t) fail cleanly with NOMEM and a
 * sentence; the executor stays usable. */
static void test_too_big(void **state)
{
    (void)state;
    Executor *ex = open_threads(4, NULL);
    const ExecOps *o = ex->ops;
    size_t counts[] = {(size_t)1 << 40, SIZE_MAX / 8};
    for (size_t i = 0; i < 2; i++) {
        CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 4, .count = counts[i],
                      .dtype = DT_DOUBLE, .op = OP_SUM};
        Schedule s;
        assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "ring"), &c, &s),
                         CV_OK);
        assert_int_equal(o->load(ex, &s), CV_ERR_NOMEM);
        assert_non_null(strstr(o->last_error(ex), "memory"));
        assert_int_equal(o->step(ex, 0), CV_ERR_ARG); /* nothing loaded */
        sched_fini(&s);
    }
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 4, .count = 9,
                  .dtype = DT_DOUBLE, .op = OP_SUM};
    Schedule s;
    assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "ring"), &c, &s), CV_OK);
    assert_int_equal(o->load(ex, &s), CV_OK);
    ExecTiming t = {0};
    assert_int_equal(o->run(ex, 1, 2, &t), CV_OK);
    o->close(ex);
    sched_fini(&s);
}

/* -------------------------------------------------------------- staging */

/* p = 2 in place: each rank reduces the other's buffer into its own in
 * the same step, so both sources are overwritten while being read. */
static void test_staging_between_ranks(void **state)
{
    (void)state;
    for (int dt = 0; dt < DT_COUNT; dt++) {
        CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 2, .count = 1000,
                      .dtype = dt, .op = OP_SUM, .in_place = true};
        Schedule s;
        assert_int_equal(sched_init(&s, &c, "swap"), CV_OK);
        sched_step(&s, "exchange");
        sched_reduce(&s, 1, BUF_RECV, 0, 0, BUF_RECV, 0, 1000);
        sched_reduce(&s, 0, BUF_RECV, 0, 1, BUF_RECV, 0, 1000);
        assert_int_equal(sched_end(&s), CV_OK);
        uint8_t staged[2];
        SchedCheck chk;
        assert_int_equal(sched_validate(&s, &chk, staged), CV_OK);
        assert_true(staged[0] && staged[1]);
        Executor *ex = open_threads(2, NULL);
        assert_int_equal(ex->ops->load(ex, &s), CV_OK);
        for (int rep = 0; rep < 50; rep++) {
            VerifyReport vr;
            assert_int_equal(ex->ops->reset(ex), CV_OK);
            assert_int_equal(ex->ops->step(ex, 0), CV_OK);
            expect_right(verify_output(ex, true, &vr), &vr, "swap", "step");
            ExecTiming t = {0};
            assert_int_equal(ex->ops->reset(ex), CV_OK);
            assert_int_equal(ex->ops->run(ex, 0, 1, &t), CV_OK);
            expect_right(verify_output(ex, true, &vr), &vr, "swap", "run");
        }
        ex->ops->close(ex);
        sched_fini(&s);
    }
}

/* One rank shifts its own buffer by one element in place: a local copy
 * whose source the same copy overwrites. Checked against the sim. */
static void test_staging_within_rank(void **state)
{
    (void)state;
    CollCall c = {.kind = COLL_BROADCAST, .nranks = 1, .count = 100,
                  .dtype = DT_INT32, .in_place = true};
    Schedule s;
    assert_int_equal(sched_init(&s, &c, "shift"), CV_OK);
    sched_step(&s, "shift");
    sched_copy(&s, 0, BUF_RECV, 0, 0, BUF_RECV, 1, 99);
    sched_step(&s, "shift back");
    sched_copy(&s, 0, BUF_RECV, 1, 0, BUF_RECV, 0, 99);
    assert_int_equal(sched_end(&s), CV_OK);
    Sim sim;
    assert_int_equal(sim_init(&sim, &s), CV_OK);
    Executor *ex = open_threads(1, NULL);
    assert_int_equal(ex->ops->load(ex, &s), CV_OK);
    VerifyReport vr;
    for (size_t k = 0; k < s.nsteps; k++) {
        assert_int_equal(ex->ops->step(ex, k), CV_OK);
        sim_step(&sim);
        expect_right(verify_state(ex, &sim, false, &vr), &vr, "shift", "step");
    }
    int32_t v[100];
    ex->ops->read(ex, 0, BUF_RECV, 0, 100, v);
    assert_true((uint32_t)v[5] == data_input(&c, 0, 5));
    ex->ops->close(ex);
    sim_fini(&sim);
    sched_fini(&s);
}

/* ------------------------------------------------------ registry sweep */

typedef enum { SWEEP_STEPS, SWEEP_RUNS } SweepKind;

/* Transfers up to this many bytes eager: all those of the sweep. */
#define EAGER 4096
/* Transfers of up to 3 elements of 4 bytes eager, longer ones pulled. */
#define MIXED 12

/* Which datatype x op pairs a case covers. With eager transfers, all of
 * them. Other thresholds synchronise the same way whatever the type and
 * op, so there about a seventh of the pairs per case, rotating through
 * all of them over the sweep; the same for the step-by-step checks under
 * ThreadSanitizer, and for every case under AddressSanitizer: both are
 * slow, and the plain build's run (make test) takes every pair. */
static bool pair_wanted(SweepKind kind, int eager, int dt, int op,
                        size_t cases)
{
    size_t pair = (size_t)(dt * OP_COUNT + op), prime = 7;
#ifdef UNDER_TSAN
    if (kind == SWEEP_STEPS)
        return pair % prime == cases % prime;
#endif
#ifdef UNDER_ASAN
    bool every = false;
#else
    bool every = eager == EAGER;
#endif
    (void)kind, (void)eager;
    return every || pair % prime == cases % prime;
}

/* One sweep: what is checked, the eager threshold and the pushes. */
typedef struct {
    SweepKind kind; /* step by step against the sim, or timed runs */
    int eager;      /* the eager_bytes option (-1: 0, none) */
    long push;      /* the push_bytes option (-1: 0, none) */
    bool oversubscribe; /* the rank counts above 8 too: 16 threads on
                           a few cores, half of the sweep's time, taken
                           once stepped and once timed (the two ways a
                           rank waits: a step's barrier, a transfer's) */
} SweepConfig;

static const SweepConfig sweep_steps_eager = {SWEEP_STEPS, EAGER, 1, true};
static const SweepConfig sweep_steps_pulled = {SWEEP_STEPS, -1, 1, false};
static const SweepConfig sweep_steps_mixed = {SWEEP_STEPS, MIXED, -1, false};
static const SweepConfig sweep_runs_eager = {SWEEP_RUNS, EAGER, 1, false};
static const SweepConfig sweep_runs_pulled = {SWEEP_RUNS, -1, 1, false};
static const SweepConfig sweep_runs_mixed = {SWEEP_RUNS, MIXED, -1, true};

/* The checks of the conformance suite a sweep of cfg takes for call c
 * after `cases` (pair_wanted's choice of datatypes and ops). */
static unsigned checks_of(const SweepConfig *cfg, const CollCall *c,
                          long cases)
{
    if (!pair_wanted(cfg->kind, cfg->eager, c->dtype, c->op, (size_t)cases))
        return 0;
    return cfg->kind == SWEEP_STEPS ? CONF_STEPS : CONF_RUNS | CONF_REPEAT;
}

static unsigned take(const ConfPlan *pl, const CollCall *c, int n, long cases)
{
    (void)n;
    return checks_of(pl->arg, c, cases);
}

/* Every algorithm x p x in-place x counts (p + 1, which p > 1 does not
 * divide, and 2p - 1) x every datatype and op, through the conformance
 * suite; eager: the threshold for copying transfers through channels
 * (EAGER: all of these small transfers go through channels; -1: every
 * transfer is read in place by its destination, with the write-after-read
 * waits and staging that needs; MIXED: both kinds in one schedule). The
 * default is EAGER with more ranks than cores, -1 otherwise. push: the
 * push_bytes option (1: every pulled transfer whose source is idle in its
 * step pushes a part, as large ones do by default; -1: none). */
static void test_registry(void **state)
{
    const SweepConfig *cfg = *state;
#ifdef UNDER_TSAN
    /* Slow there; the timed runs of these thresholds check the same
     * synchronisation more closely. */
    if (cfg->kind == SWEEP_STEPS && cfg->eager != EAGER)
        skip();
#endif
    ConfPlan pl = {.full = true, .ncounts = 2, .count = conf_count_odd,
                   .take = take, .stop_first = true, .arg = cfg};
    ConfTally t = {0};
    for (size_t pi = 0; pi < NRANKCOUNTS && !t.first[0]; pi++) {
        if (rank_counts[pi] > 8 && !cfg->oversubscribe)
            continue;
        Executor *ex = open_threads(rank_counts[pi],
                                    params(cfg->eager, cfg->push, -1));
        conf_sweep(ex, &pl, &t);
        ex->ops->close(ex);
    }
    if (t.first[0])
        fail_msg("%s", t.first);
    assert_true(t.cases > 0);
}

/* Sendrecv and hypercube, step by step and timed. */
static unsigned take_p2p(const ConfPlan *pl, const CollCall *c, int n,
                         long cases)
{
    static const SweepConfig steps = {SWEEP_STEPS, EAGER, 1, false},
                             timed = {SWEEP_RUNS, EAGER, 1, false};
    (void)pl, (void)n;
    if (c->kind != COLL_SENDRECV && c->kind != COLL_HYPERCUBE)
        return 0;
    return checks_of(&steps, c, cases) | checks_of(&timed, c, cases);
}

/* nccl-tests' sendrecv and hypercube: counts 0, 1, 7 and 97, every
 * datatype, step by step and timed, pulled and eager, at every rank count
 * of the sweep that the collective defines (and 64 for sendrecv). */
static void test_sendrecv_hypercube(void **state)
{
    (void)state;
    static const int ps[] = {1, 2, 3, 4, 7, 8, 16, 64};
    ConfPlan pl = {.full = true, .ncounts = 4, .count = conf_count_small,
                   .take = take_p2p, .stop_first = true};
    ConfTally t = {0};
    for (size_t pi = 0; pi < sizeof ps / sizeof *ps; pi++)
        for (int eager = -1; eager <= EAGER; eager += EAGER + 1) {
            Executor *ex = open_threads(ps[pi], params(eager, 1, -1));
            conf_sweep(ex, &pl, &t);
            ex->ops->close(ex);
        }
    if (t.first[0])
        fail_msg("%s", t.first);
    /* by hand: sendrecv at 8 ranks x 2 thresholds, hypercube at 6 of
     * them x 2 places, 4 counts, 10 datatypes (under AddressSanitizer a
     * seventh of them; under ThreadSanitizer every one is timed and a
     * seventh stepped too) */
    long calls = (8 * 2 + 6 * 2 * 2) * 4 * DT_COUNT;
#if defined(UNDER_ASAN)
    assert_true(t.cases > calls / 8 && t.cases < calls);
#else
    assert_int_equal(t.cases, calls);
#endif
}

/* The suite itself: a backend that skips its last step, times runs that
 * do nothing, or fails a step is caught, with the call and the check
 * named (threads' table with those operations swapped in). */
static const ExecOps *honest;
static CvError lazy_step(Executor *ex, size_t k)
{
    return k + 1 == ex->sched->nsteps ? CV_OK : honest->step(ex, k);
}
static CvError lazy_run(Executor *ex, int warmup, int iters, ExecTiming *t)
{
    (void)ex, (void)warmup, (void)iters;
    t->iter_s = 1e-6;
    return CV_OK;
}
static CvError broken_step(Executor *ex, size_t k)
{
    return k ? CV_ERR_BACKEND : honest->step(ex, k);
}

static void test_conformance_catches(void **state)
{
    (void)state;
    static const struct {
        unsigned checks;
        bool broken;        /* broken_step, else lazy_step and lazy_run */
        long wrong, failed; /* wrong: at least this many */
        const char *says;
    } cases[] = {
        {CONF_STEPS, false, 1, 0, NULL}, /* after the last step */
        {CONF_STEPPED, false, 1, 0, "the output after the finish"},
        {CONF_RUNS, false, 1, 0, "the output after a run"},
        {CONF_STEPS, true, 0, 1, "step 1: backend failure"},
    };
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 4, .count = 9,
                  .dtype = DT_INT32, .op = OP_SUM};
    Schedule s;
    assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "ring"), &c, &s),
                     CV_OK);
    char last[32];
    snprintf(last, sizeof last, "after step %zu:", s.nsteps - 1);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Executor *ex = open_threads(4, NULL);
        ExecOps liar = *ex->ops;
        honest = ex->ops;
        liar.step = cases[i].broken ? broken_step : lazy_step;
        liar.run = lazy_run;
        ex->ops = &liar;
        ConfTally t = {0};
        conf_check(ex, &s, cases[i].checks, NULL, &t);
        ex->ops = honest;
        ex->ops->close(ex);
        assert_int_equal(t.cases, 1);
        assert_true(t.wrong >= cases[i].wrong);
        assert_true(cases[i].wrong || !t.wrong);
        assert_int_equal(t.failed, cases[i].failed);
        if (!strstr(t.first, "allreduce/ring p=4 count=9 int32 sum") ||
            !strstr(t.first, cases[i].says ? cases[i].says : last))
            fail_msg("case %zu says: %s", i, t.first);
    }
    sched_fini(&s);
}

/* ------------------------------------------------------------- timings */

/* Many ranks on few cores, many iterations, larger buffers: stresses the
 * waits (spin, yield, sleep), the write-after-read ordering, and (one-way
 * collectives, whose sources run ahead) full channel rings. */
static void test_oversubscribed_runs(void **state)
{
    (void)state;
    struct { CollKind k; const char *name; } cases[] = {
        {COLL_ALLREDUCE, "ring"}, {COLL_ALLREDUCE, "rabenseifner"},
        {COLL_ALLREDUCE, "butterfly"}, {COLL_BROADCAST, "linear"},
        {COLL_BROADCAST, "binomial"}, {COLL_REDUCE, "binomial"},
        {COLL_SCATTER, "linear"}, {COLL_GATHER, "binomial"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *name = cases[i].name;
        const AlgoInfo *a = algo_find(cases[i].k, name);
        if (!a)
            fail_msg("no %s %s", coll_name(cases[i].k), name);
        CollCall c = {.kind = cases[i].k, .nranks = 16, .count = 4099,
                      .dtype = DT_FLOAT, .op = OP_SUM, .root = 5};
        Schedule s;
        assert_int_equal(algo_generate(a, &c, &s), CV_OK);
        for (int eager = -1; eager <= EAGER; eager += EAGER + 1) {
            /* pulled: every idle source pushes (push_bytes 1) */
            Executor *ex = open_threads(16, params(eager, 1, 1));
            assert_int_equal(ex->ops->load(ex, &s), CV_OK);
            ExecTiming t = {0};
            assert_int_equal(ex->ops->run(ex, 5, 50, &t), CV_OK);
            VerifyReport vr;
            expect_right(verify_output(ex, true, &vr), &vr, name, "50 iterations");
            ex->ops->close(ex);
        }
        sched_fini(&s);
    }
}

static void test_step_times(void **state)
{
    (void)state;
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 4, .count = 1 << 14,
                  .dtype = DT_FLOAT, .op = OP_AVG};
    Schedule s;
    assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "ring"), &c, &s), CV_OK);
    Executor *ex = open_threads(4, &(ExecOptions){.check_steps = 1});
    assert_int_equal(ex->ops->load(ex, &s), CV_OK);
    double step_s[64];
    assert_true(s.nsteps <= 64);
    ExecTiming t = {.step_s = step_s};
    assert_int_equal(ex->ops->run(ex, 2, 20, &t), CV_OK);
    double sum = 0;
    for (size_t k = 0; k < s.nsteps; k++) {
        assert_true(step_s[k] > 0);
        sum += step_s[k];
    }
    assert_true(t.iter_s > 0);
    assert_true(sum <= t.iter_s * 1.0001); /* the finish is the rest */
    ExecTiming t2 = {0};                      /* no step_s: only iter_s */
    assert_int_equal(ex->ops->run(ex, 0, 3, &t2), CV_OK);
    assert_true(t2.iter_s > 0);
    ex->ops->close(ex);
    sched_fini(&s);
}

/* An optional argument runs only the tests matching it (e.g. "registry*"). */
int main(int argc, char **argv)
{
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_backends),
        cmocka_unit_test(test_find_spec),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_unalign),
        cmocka_unit_test(test_rank_limits),
        cmocka_unit_test(test_calls_before_load),
        cmocka_unit_test(test_bad_loads_and_reads),
        cmocka_unit_test(test_too_big),
        cmocka_unit_test(test_staging_between_ranks),
        cmocka_unit_test(test_staging_within_rank),
        {"registry step by step, eager", test_registry, NULL, NULL,
         (void *)&sweep_steps_eager},
        {"registry step by step, pulled", test_registry, NULL, NULL,
         (void *)&sweep_steps_pulled},
        {"registry step by step, mixed", test_registry, NULL, NULL,
         (void *)&sweep_steps_mixed},
        {"registry timed runs, eager", test_registry, NULL, NULL,
         (void *)&sweep_runs_eager},
        {"registry timed runs, pulled", test_registry, NULL, NULL,
         (void *)&sweep_runs_pulled},
        {"registry timed runs, mixed", test_registry, NULL, NULL,
         (void *)&sweep_runs_mixed},
        cmocka_unit_test(test_sendrecv_hypercube),
        cmocka_unit_test(test_conformance_catches),
        cmocka_unit_test(test_oversubscribed_runs),
        cmocka_unit_test(test_step_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
