/* test_threads_slow.c - the threads backend's straggler, -B threads:slow=R:F,
 * and slow pair, link=A>B:F (exec_threads.h): results stay right with a
 * slowed rank (the
 * conformance suite, stepped and timed); each bad value is refused with
 * CV_ERR_ARG and one sentence; the busy waits fall on rank R and only on
 * it, one per copy or reduce it performs, F - 1 times what each took
 * (counted by the executor, threads_slowed: no test here reads how fast
 * the host is); a cancel ends a wait. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "algos/algo.h"
#include "exec/exec.h"
#include "exec/mono.h"
#include "exec/verify.h"
#include "threads/exec_threads.h"

#include "conformance.h"

/* Open p ranks of the threads backend with options params; the error
 * and its sentence in *e and why (NULL: fail on an error). */
static Executor *open_with(int p, const char *params, CvError *e, char *why,
                           size_t whylen)
{
    char own[300];
    Executor *ex = NULL;
    const ExecOps *ops = exec_find("threads", own, sizeof own);
    assert_non_null(ops);
    CvError got = ops->open(&ex, p, &(ExecOptions){.params = params},
                            why ? why : own, why ? whylen : sizeof own);
    if (e)
        *e = got;
    else if (got)
        fail_msg("open %d ranks with %s: %s", p, params, own);
    return ex;
}

static Schedule make(CollKind k, const char *algo, int p, size_t count,
                     int root)
{
    CollCall c = {.kind = k, .nranks = p, .count = count, .dtype = DT_INT32,
                  .op = OP_SUM, .root = root};
    Schedule s;
    assert_int_equal(algo_generate(algo_find(k, algo), &c, &s), CV_OK);
    return s;
}

/* ----------------------------------------------------------- results */

/* Ring allreduce and binomial broadcast (rooted at 0 and at p - 1) at
 * p = 4 and 5, counts 0, 1, 7 and 97, every datatype and op, stepped
 * (against the Sim after every step) and timed, with the first, a middle
 * and the last rank slowed. */
static void test_results_right(void **state)
{
    (void)state;
    static const struct { CollKind k; const char *algo; } algos[] = {
        {COLL_ALLREDUCE, "ring"}, {COLL_BROADCAST, "binomial"},
    };
    ConfTally t = {0};
    for (int p = 4; p <= 5; p++)
        for (int slow = 0; slow < p; slow += p / 2) {
            char params[64];
            snprintf(params, sizeof params, "slow=%d:1.5", slow);
            Executor *ex = open_with(p, params, NULL, NULL, 0);
            for (size_t a = 0; a < sizeof algos / sizeof *algos; a++)
                for (int n = 0; n < 4; n++)
                    for (int dt = 0; dt < DT_COUNT; dt++)
                        for (int root = 0; root < p; root += p - 1) {
                            CollCall c = {.kind = algos[a].k, .nranks = p,
                                          .dtype = (DataType)dt,
                                          .op = OP_SUM, .root = root};
                            c.count = conf_count_small(NULL, &c, n);
                            conf_call(ex, algo_find(c.kind, algos[a].algo),
                                      &c, NULL, CONF_STEPS | CONF_RUNS, NULL,
                                      &t);
                        }
            ex->ops->close(ex);
        }
    if (t.first[0])
        fail_msg("%s", t.first);
    assert_int_equal(t.wrong + t.failed, 0);
    /* by hand: (p = 4: ranks 0 and 2; p = 5: 0, 2 and 4) x 2 algorithms
     * x 4 counts x the datatypes x 2 roots */
    assert_int_equal(t.cases, 5 * 2 * 4 * DT_COUNT * 2);
}

/* ------------------------------------------------------------ errors */

/* Every bad value: CV_ERR_ARG, no executor, one sentence naming it. */
static void test_bad_values(void **state)
{
    (void)state;
    static const struct { const char *params, *says; } bad[] = {
        {"slow=4:4", "option slow names rank 4, but the ranks are 0 to 3"},
        {"slow=99999999999999999999:2", "takes RANK:FACTOR, such as "
                                        "slow=3:4"},
        {"slow=-1:4", "not '-1:4'"},
        {"slow=1:0.5", "takes a factor from 1 (no slowdown) to 1000 after "
                       "the rank, not '1:0.5'"},
        {"slow=1:0", "not '1:0'"},
        {"slow=1:-2", "not '1:-2'"},
        {"slow=1:nan", "a factor from 1"},
        {"slow=1:inf", "a factor from 1"},
        {"slow=1:1001", "a factor from 1"},
        {"slow=1:4x", "a factor from 1"},
        {"slow=1", "takes RANK:FACTOR"},
        {"slow=1:", "takes RANK:FACTOR"},
        {"slow=:4", "takes RANK:FACTOR"},
        {"slow=1: 4", "takes RANK:FACTOR"},
        {"slow=x:4", "takes RANK:FACTOR"},
        {"slow=", "takes RANK:FACTOR"},
        {"slow=1x:4", "takes RANK:FACTOR"},
        {"link=1>4:2", "option link names rank 4, but the ranks are 0 to 3"},
        {"link=1>1:2", "takes A>B:FACTOR"},
        {"link=1-2:2", "takes A>B:FACTOR"},
        {"link=1>2:0.5", "a factor from 1 to 1000"},
        {"link=1>2:nan", "not '1>2:nan'"},
        {"link=1>2", "takes A>B:FACTOR"},
        {"link=>2:2", "takes A>B:FACTOR"},
        {"link=1>2:2x", "takes A>B:FACTOR"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char why[300] = "";
        CvError e;
        Executor *ex = open_with(4, bad[i].params, &e, why, sizeof why);
        if (e != CV_ERR_ARG || ex || !strstr(why, bad[i].says) ||
            strchr(why, '\n') || strncmp(why, "the threads backend's", 21))
            fail_msg("%s: %s, '%s'", bad[i].params, cv_strerror(e), why);
    }
    static const char *const good[] = {"slow=0:1", "slow=3:1000",
                                       "slow=2:1.25", "slow=1:4,spin_us=0"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        Executor *ex = open_with(4, good[i], NULL, NULL, 0);
        ex->ops->close(ex);
    }
}

/* ------------------------------------------------- the rank that waits */

/* Each rank's busy waits so far, into w[p]. */
static void waits_of(Executor *ex, int p, ThreadsSlow *w)
{
    for (int r = 0; r < p; r++)
        assert_true(threads_slowed(ex, r, &w[r]));
    assert_false(threads_slowed(ex, p, &w[0]) || threads_slowed(ex, -1,
                                                                 &w[0]));
}

/* Step s through on ex (after a reset); each rank's waits into w. */
static void step_through(Executor *ex, const Schedule *s, ThreadsSlow *w)
{
    assert_int_equal(ex->ops->reset(ex), CV_OK);
    for (size_t k = 0; k < s->nsteps; k++)
        assert_int_equal(ex->ops->step(ex, k), CV_OK);
    assert_int_equal(ex->ops->finish(ex), CV_OK);
    waits_of(ex, s->call.nranks, w);
}

/* Transfers of s into rank r: what r performs, step by step, with
 * nothing eager, pushed or staged. */
static long into(const Schedule *s, int r)
{
    long n = 0;
    for (size_t i = 0; i < s->nxfers; i++)
        n += s->xfers[i].dst == r;
    return n;
}

/* Rank R waits once per transfer it performs, F - 1 = 3 times what each
 * took; every other rank never; F = 1 slows nobody. Then a timed run:
 * R waits more, the others still never. */
static void expect_waits(const Schedule *s, const char *extra)
{
    int p = s->call.nranks;
    for (int slow = 0; slow < p; slow++) {
        char params[96];
        snprintf(params, sizeof params, "eager_bytes=0,push_bytes=0,"
                 "slow=%d:%s%s", slow, extra ? "1" : "4", extra ? extra : "");
        Executor *ex = open_with(p, params, NULL, NULL, 0);
        assert_int_equal(ex->ops->load(ex, s), CV_OK);
        ThreadsSlow w[8], after[8];
        step_through(ex, s, w);
        ExecTiming t = {0};
        assert_int_equal(ex->ops->run(ex, 1, 3, &t), CV_OK);
        waits_of(ex, p, after);
        for (int r = 0; r < p; r++) {
            long want = r == slow && !extra ? into(s, r) : 0;
            assert_int_equal(w[r].waits, want);
            assert_int_equal(w[r].wait_ns, 3 * w[r].took_ns);
            assert_true(want ? after[r].waits > w[r].waits
                             : after[r].waits == 0);
        }
        ex->ops->close(ex);
    }
}

/* Transfers of s from rank a to rank b. */
static long pair_of(const Schedule *s, int a, int b)
{
    long n = 0;
    for (size_t i = 0; i < s->nxfers; i++)
        n += s->xfers[i].src == a && s->xfers[i].dst == b;
    return n;
}

/* link=A>B:4: B, which performs the transfers from A (nothing eager or
 * pushed), waits once per such transfer, 3 times what each took; every
 * other rank never, and B for no other transfer. Ring allreduce at p = 4:
 * 1 -> 2 carries 3 reduces and 3 copies (by hand); 2 -> 1 none. */
static void test_slow_pair(void **state)
{
    (void)state;
    Schedule s = make(COLL_ALLREDUCE, "ring", 4, 4096, 0);
    assert_int_equal(pair_of(&s, 1, 2), 3 + 3);
    assert_int_equal(pair_of(&s, 2, 1), 0);
    static const int pairs[][2] = {{1, 2}, {2, 1}, {3, 0}};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        int a = pairs[i][0], b = pairs[i][1];
        char params[96];
        snprintf(params, sizeof params, "eager_bytes=0,push_bytes=0,"
                 "link=%d>%d:4", a, b);
        Executor *ex = open_with(4, params, NULL, NULL, 0);
        assert_int_equal(ex->ops->load(ex, &s), CV_OK);
        ThreadsSlow w[4];
        step_through(ex, &s, w);
        for (int r = 0; r < 4; r++) {
            assert_int_equal(w[r].waits, r == b ? pair_of(&s, a, b) : 0);
            assert_int_equal(w[r].wait_ns, 3 * w[r].took_ns);
        }
        ExecHost h = exec_host(ex);
        assert_true(h.altered && h.slowed.link == 4 && h.slowed.from == a &&
                    h.slowed.to == b && strstr(h.placement, "slowed 4x"));
        ex->ops->close(ex);
    }
    sched_fini(&s);
}

static void test_right_rank(void **state)
{
    (void)state;
    Schedule ring = make(COLL_ALLREDUCE, "ring", 4, 4096, 0);
    Schedule bcast = make(COLL_BROADCAST, "binomial", 4, 4096, 0);
    /* by hand, out of place: the copy-in, p - 1 reduces, p - 1 copies */
    assert_int_equal(into(&ring, 2), 1 + 3 + 3);
    assert_int_equal(into(&bcast, 3), 1); /* a leaf: one receive */
    assert_int_equal(into(&bcast, 0), 1); /* the root: its copy-in */
    expect_waits(&ring, NULL);
    expect_waits(&bcast, NULL);
    expect_waits(&ring, ".0,spin_us=0"); /* slow=R:1.0: nobody */
    sched_fini(&ring);
    sched_fini(&bcast);
}

/* ------------------------------------------------------------ cancel */

static void *cancel_soon(void *arg)
{
    Executor *ex = arg;
    nanosleep(&(struct timespec){.tv_nsec = 50000000L}, NULL);
    ex->ops->cancel(ex);
    return NULL;
}

/* A run whose straggler waits 999 times each transfer's time (seconds
 * for a copy of 16 MiB) is cancelled 50 ms in: it stops before the waits
 * the straggler asked for have passed, by the clock the waits read. No
 * speed of the host is assumed: without the cancel's check the run lasts
 * at least those waits, on any host. */
static void test_cancel_ends_wait(void **state)
{
    (void)state;
    Schedule s = make(COLL_ALLREDUCE, "ring", 2, 1 << 23, 0);
    Executor *ex = open_with(2, "slow=1:1000", NULL, NULL, 0);
    assert_int_equal(ex->ops->load(ex, &s), CV_OK);
    pthread_t th;
    long t0 = mono_now_ns();
    assert_int_equal(pthread_create(&th, NULL, cancel_soon, ex), 0);
    ExecTiming t = {0};
    assert_int_equal(ex->ops->run(ex, 0, 1000000, &t), CV_ERR_CANCELLED);
    long took = mono_now_ns() - t0;
    pthread_join(th, NULL);
    ThreadsSlow w;
    assert_true(threads_slowed(ex, 1, &w) && w.waits > 0);
    if (took >= w.wait_ns)
        fail_msg("the run took %ld ns, the waits asked for %ld ns", took,
                 w.wait_ns);
    ex->ops->close(ex);
    sched_fini(&s);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_results_right),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_right_rank),
        cmocka_unit_test(test_slow_pair),
        cmocka_unit_test(test_cancel_ends_wait),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
