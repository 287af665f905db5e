/* test_exec_cancel.c - cancelling the threads backend from another thread
 * (ExecOps.cancel): a long run, in its warmup or its timed iterations, for
 * collectives whose ranks run far apart; a reset filling large buffers;
 * a cancel between calls, reported once by the next. Each returns
 * CV_ERR_CANCELLED soon after the cancel, and the executor works on. Run
 * under SAN=thread as well. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "algos/algo.h"
#include "exec/exec.h"
#include "exec/verify.h"

#include "sanitizer.h"

static Executor *open_threads(int p)
{
    char why[200] = "";
    Executor *ex = NULL;
    const ExecOps *ops = exec_find("threads", why, sizeof why);
    if (!ops || ops->open(&ex, p, &(ExecOptions){0}, why, sizeof why))
        fail_msg("threads at %d ranks: %s", p, why);
    assert_non_null(ops->cancel);
    return ex;
}

/* Cancel latency allowed (from the cancel to the call's return). */
#ifdef UNDER_TSAN
#define CANCEL_LIMIT_S 2.0
#else
#define CANCEL_LIMIT_S 0.5
#endif

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Another thread that cancels an executor after a delay. */
typedef struct {
    Executor *ex;   /* to cancel */
    double delay_s; /* after this long */
    double at;      /* when it did (now_s) */
} Canceller;

static void *cancel_later(void *arg)
{
    Canceller *c = arg;
    struct timespec ts = {(time_t)c->delay_s,
                          (long)(fmod(c->delay_s, 1) * 1e9)};
    nanosleep(&ts, NULL);
    c->at = now_s();
    c->ex->ops->cancel(c->ex);
    return NULL;
}

/* Call f(ex) while another thread cancels ex after delay_s; returns f's
 * result, and in *late the seconds from the cancel to f's return. */
static CvError cancelled_call(Executor *ex, double delay_s,
                              CvError (*f)(Executor *ex, void *arg),
                              void *arg, double *late)
{
    Canceller c = {ex, delay_s, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, cancel_later, &c), 0);
    CvError e = f(ex, arg);
    double end = now_s();
    pthread_join(th, NULL);
    *late = end - c.at;
    return e;
}

/* After a cancel: reset, every step, the finish, the outputs right; a
 * short run. */
static void still_works(Executor *ex, const Schedule *s, const char *what)
{
    VerifyReport rep;
    ExecTiming t = {0};
    assert_int_equal(ex->ops->reset(ex), CV_OK);
    for (size_t k = 0; k < s->nsteps; k++)
        assert_int_equal(ex->ops->step(ex, k), CV_OK);
    assert_int_equal(ex->ops->finish(ex), CV_OK);
    if (verify_output(ex, true, &rep))
        fail_msg("%s: %zu elements wrong after a cancel", what, rep.wrong);
    assert_int_equal(ex->ops->run(ex, 1, 3, &t), CV_OK);
    assert_true(t.iter_s > 0);
}

/* A run: args[0] warmup, args[1] iterations. */
static CvError long_run(Executor *ex, void *arg)
{
    const int *n = arg;
    ExecTiming t = {0};
    return ex->ops->run(ex, n[0], n[1], &t);
}

/* A run that would last about 8 seconds, cancelled after 50 ms, in its
 * warmup or its timed iterations: CV_ERR_CANCELLED soon after, with every
 * rank stopped before the same step (ranks run apart: a broadcast's root,
 * eager with more ranks than cores, far ahead of the others), and the
 * executor works on. */
static void test_cancel_run(void **state)
{
    (void)state;
    struct { CollKind k; const char *name; int p; } cases[] = {
        {COLL_ALLREDUCE, "ring", 4}, {COLL_BROADCAST, "binomial", 5},
        {COLL_BROADCAST, "linear", 3}, {COLL_REDUCE, "binomial", 8},
        {COLL_ALLGATHER, "ring", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CollCall c = {.kind = cases[i].k, .nranks = cases[i].p,
                      .count = 4099, .dtype = DT_FLOAT, .op = OP_SUM,
                      .root = cases[i].p - 1};
        Schedule s;
        assert_int_equal(algo_generate(algo_find(c.kind, cases[i].name), &c, &s),
                         CV_OK);
        Executor *ex = open_threads(c.nranks);
        ExecTiming t = {0};
        assert_int_equal(ex->ops->load(ex, &s), CV_OK);
        /* the fastest of three rounds after a warmup, and never fewer
           than 20000 iterations (100 ms at 5 us each): on a loaded
           machine one slow round would make the run shorter than the
           50 ms before the cancel */
        double fastest = 1e9;
        for (int round = 0; round < 3; round++) {
            assert_int_equal(ex->ops->run(ex, round ? 0 : 5, 20, &t), CV_OK);
            fastest = fmin(fastest, t.iter_s);
        }
        int n = (int)fmin(fmax(8 / fmax(fastest, 1e-7), 20000), 1e9);
        int args[2] = {i % 2 ? n : 0, i % 2 ? 1 : n}; /* odd: the warmup */
        double late;
        assert_int_equal(cancelled_call(ex, 0.05, long_run, args, &late),
                         CV_ERR_CANCELLED);
        assert_non_null(strstr(ex->ops->last_error(ex), "cancelled"));
        if (late > CANCEL_LIMIT_S)
            fail_msg("%s: %.3f s from the cancel to the return", cases[i].name,
                     late);
        still_works(ex, &s, cases[i].name);
        ex->ops->close(ex);
        sched_fini(&s);
    }
}

static CvError do_reset(Executor *ex, void *arg)
{
    (void)arg;
    return ex->ops->reset(ex);
}

/* A reset filling 128 MiB stops between its parts. */
static void test_cancel_reset(void **state)
{
    (void)state;
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 4, .count = 4u << 20,
                  .dtype = DT_FLOAT};
    Schedule s;
    assert_int_equal(algo_generate(algo_find(c.kind, "ring"), &c, &s), CV_OK);
    Executor *ex = open_threads(4);
    assert_int_equal(ex->ops->load(ex, &s), CV_OK);
    double t0 = now_s(), late;
    assert_int_equal(ex->ops->reset(ex), CV_OK);
    double took = now_s() - t0;
    if (took < 0.05) { /* too fast to cut here */
        print_message("reset in %.3f s: not cut\n", took);
    } else {
        assert_int_equal(cancelled_call(ex, took / 10, do_reset, NULL, &late),
                         CV_ERR_CANCELLED);
        if (late > took / 2)
            fail_msg("%.3f s from the cancel to the return of a %.3f s reset",
                     late, took);
    }
    still_works(ex, &s, "allgather 128 MiB");
    ex->ops->close(ex);
    sched_fini(&s);
}

/* A cancel while nothing runs is reported by the next call, once: a load
 * (which then leaves nothing loaded), a step, a read, a reset, a run; the
 * call after each works. */
static void test_cancel_between_calls(void **state)
{
    (void)state;
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 3, .count = 5,
                  .dtype = DT_FLOAT};
    Schedule s;
    assert_int_equal(algo_generate(algo_find(c.kind, "ring"), &c, &s), CV_OK);
    Executor *ex = open_threads(3);
    const ExecOps *o = ex->ops;
    float f[15];
    ExecTiming t = {0};
    o->cancel(ex);
    assert_int_equal(o->load(ex, &s), CV_ERR_CANCELLED);
    assert_null(ex->sched);
    assert_int_equal(o->load(ex, &s), CV_OK);
    o->cancel(ex);
    assert_int_equal(o->step(ex, 0), CV_ERR_CANCELLED);
    assert_int_equal(o->step(ex, 0), CV_OK);
    o->cancel(ex);
    assert_int_equal(o->read(ex, 0, BUF_RECV, 0, 15, f), CV_ERR_CANCELLED);
    assert_int_equal(o->read(ex, 0, BUF_RECV, 0, 15, f), CV_OK);
    o->cancel(ex);
    o->cancel(ex); /* two before a call: one report */
    assert_int_equal(o->reset(ex), CV_ERR_CANCELLED);
    assert_int_equal(o->reset(ex), CV_OK);
    o->cancel(ex);
    assert_int_equal(o->run(ex, 0, 1, &t), CV_ERR_CANCELLED);
    still_works(ex, &s, "allgather after cancels");
    o->close(ex);
    sched_fini(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cancel_run),
        cmocka_unit_test(test_cancel_reset),
        cmocka_unit_test(test_cancel_between_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
