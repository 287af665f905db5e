/* test_model_dataflow.c - data-flow pricing beside lock-step (model.h):
 * hand-built and real schedules whose times in both modes are worked out
 * by hand below, the property that data-flow never exceeds lock-step, the
 * modes that cannot flow, and the --pricing option of model and trace. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "algos/algo.h"
#include "core/model.h"
#include "run_bin.h"

/* alpha 1 us, beta 1 GB/s (1 ns a byte), gamma 1 GB/s */
static const ModelParams US_GB = {1e-6, 1e-9, 1e-9};

/* The seconds of s on the flat machine full of p ranks under US_GB in
 * `mode`; *priced: the mode that priced. */
static double priced_as(const Schedule *s, PricingMode mode,
                        PricingMode *priced)
{
    Machine m;
    Pricer pr;
    CostTerms t;
    double sec = -1;
    assert_int_equal(model_flat_machine(&m, MACHINE_FULL, s->call.nranks,
                                        &US_GB), CV_OK);
    assert_int_equal(pricer_init(&pr, &m), CV_OK);
    pr.mode = mode;
    assert_int_equal(pricer_cost(&pr, s, false, &t, &sec), CV_OK);
    *priced = pr.priced;
    pricer_fini(&pr);
    return sec;
}

/* Both modes' seconds, each checked to have priced as asked. */
static void both(const Schedule *s, double *lock, double *flow)
{
    PricingMode by;
    *lock = priced_as(s, PRICING_LOCKSTEP, &by);
    assert_int_equal(by, PRICING_LOCKSTEP);
    *flow = priced_as(s, PRICING_DATAFLOW, &by);
    assert_int_equal(by, PRICING_DATAFLOW);
}

#define NEAR(x, want) assert_true(fabs((x) - (want)) < 1e-15)

/* s priced lock-step at `lock` and data-flow at `flow` seconds; s freed. */
static void expect_both(Schedule *s, double lock, double flow)
{
    double l, f;
    both(s, &l, &f);
    NEAR(l, lock);
    NEAR(f, flow);
    sched_fini(s);
}

/* Two steps on 4 ranks of floats in tmp: step 1 a big copy r0 -> r1 of
 * `big` elements and a small one r2 -> r3 of `small`; step 2 r2 -> r3's
 * `small` again, a reduce where `reduce`. */
static void two_pairs(Schedule *s, size_t big, size_t small, bool reduce)
{
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 4, .count = big,
                  .dtype = DT_FLOAT, .in_place = true};
    assert_int_equal(sched_init(s, &c, "two-pairs"), CV_OK);
    sched_tmp_all(s, big);
    sched_step(s, "one");
    sched_copy(s, 0, BUF_TMP, 0, 1, BUF_TMP, 0, big);
    sched_copy(s, 2, BUF_TMP, 0, 3, BUF_TMP, 0, small);
    sched_step(s, "two");
    if (reduce)
        sched_reduce(s, 2, BUF_TMP, 0, 3, BUF_TMP, 0, small);
    else
        sched_copy(s, 2, BUF_TMP, 0, 3, BUF_TMP, 0, small);
    assert_int_equal(sched_end(s), CV_OK);
}

/* On full each message has its own ports: one message, its bytes, so
 * a message of k bytes costs 1 us + k ns.
 * Copies: big 1000 floats = 4000 B: 5 us; small 250 floats = 1000 B: 2 us.
 *   lock-step: step 1 = max(5, 2) = 5, step 2 = 2: 7 us;
 *   data-flow: r0, r1 end at 5; r2, r3 end step 1 at 2, step 2 at 2 + 2
 *   = 4: max(5, 4) = 5 us.
 * A reduce in step 2: small 500 floats = 2000 B: 3 us, and r3 reduces
 * 2000 B at 1 GB/s: 2 us more.
 *   lock-step: 5 + (3 + 2) = 10 us;
 *   data-flow: r3 at 3 + 3 + 2 = 8, r0 and r1 at 5: 8 us. */
static void test_hand_two_pairs(void **state)
{
    (void)state;
    Schedule s;
    two_pairs(&s, 1000, 250, false);
    expect_both(&s, 7e-6, 5e-6);
    two_pairs(&s, 1000, 500, true);
    expect_both(&s, 10e-6, 8e-6);
}

/* The terms stay lock-step's in either mode (pricer_cost). */
static void test_terms_lockstep(void **state)
{
    (void)state;
    Schedule s;
    Machine m;
    Pricer pr;
    CostTerms lock, flow;
    double sec;
    two_pairs(&s, 1000, 250, false);
    assert_int_equal(model_flat_machine(&m, MACHINE_FULL, 4, &US_GB), CV_OK);
    assert_int_equal(pricer_init(&pr, &m), CV_OK);
    assert_int_equal(pricer_cost(&pr, &s, false, &lock, &sec), CV_OK);
    pr.mode = PRICING_DATAFLOW;
    assert_int_equal(pricer_cost(&pr, &s, false, &flow, &sec), CV_OK);
    assert_true(lock.a == 2 && lock.b == 5000 && lock.steps == 2);
    assert_true(flow.a == lock.a && flow.b == lock.b && flow.g == lock.g &&
                flow.steps == lock.steps);
    pricer_fini(&pr);
    sched_fini(&s);
}

/* The ring allreduce on 4 ranks, 1000 floats: chunks of 250 floats
 * (1000 B). Every rank sends one chunk to r + 1 and receives one from
 * r - 1 in every step, so every clock moves alike and data-flow is
 * lock-step: 3 reduce-scatter steps of 1 us + 1000 ns + 1000 B at
 * 1 GB/s = 3 us, 3 all-gather steps of 2 us (the copy-in, local, is
 * free): 15 us in both modes, written out or compact. */
static void test_ring_equal(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_ALLREDUCE, "ring");
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 4, .count = 1000,
                  .dtype = DT_FLOAT, .op = OP_SUM};
    Machine m;
    assert_non_null(a);
    assert_int_equal(model_flat_machine(&m, MACHINE_FULL, 4, &US_GB), CV_OK);
    for (int compact = 0; compact < 2; compact++) {
        Schedule s = {0};
        assert_int_equal(algo_generate_as(a, &c, &m, compact ? ALGO_COMPACT
                                                             : 0,
                                          &s, NULL, 0), CV_OK);
        expect_both(&s, 15e-6, 15e-6);
    }
}

/* The binomial broadcast from rank 0 on 4 ranks, 250 floats (1000 B):
 * step 1 r0 -> r2, step 2 r0 -> r1 and r2 -> r3, each message 2 us. Both
 * step-2 senders finish step 1 at 2 us, so data-flow is lock-step here:
 * 2 + 2 = 4 us. (A binomial tree keeps every step on its critical path;
 * data-flow gains where a step's ranks need not wait, below.) */
static void test_binomial_equal(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_BROADCAST, "binomial");
    CollCall c = {.kind = COLL_BROADCAST, .nranks = 4, .count = 250,
                  .dtype = DT_FLOAT};
    Schedule s = {0};
    assert_non_null(a);
    assert_int_equal(algo_generate(a, &c, &s), CV_OK);
    expect_both(&s, 4e-6, 4e-6);
}

/* MPICH's recursive-doubling allgather on 11 ranks, one float a rank
 * (a message of k blocks: 1 us + 4k ns). Its communicating steps (after a
 * free copy-in):
 *   2: pairs (0,1) .. (8,9) swap 1 block            1.004
 *   3: 0..7 swap 2 blocks at distance 2; r8 -> r10 2 blocks, r10 -> r8
 *      1 block                                      1.008
 *   4: pass-on r8 -> r9, 1 block                    1.004
 *   5: 0..7 swap 4 blocks at distance 4             1.016
 *   6: r0,r1,r2 -> r8,r9,r10 8 blocks, back 3       1.032
 *   7: r0,r1,r2 -> r4,r5,r6 3 blocks                1.012
 *   8: r1 -> r3, r5 -> r7 3 blocks                  1.012
 * lock-step: their sum, 7.088 us. Data-flow: r0..r9 at 1.004 after 2;
 * after 3 r0..r8 and r10 at 2.012; step 4 moves r8, r9 to 3.016 while
 * step 5, on r0..r7 only, takes them to 3.028; step 6 starts at
 * max(3.028, 3.016) and ends at 4.060 (r0..r2, r8..r10); step 7 from
 * r0..r2 ends at 5.072, step 8 from r1 and r5 at 6.084 us: the pass-on
 * of step 4 runs beside step 5, 1.004 us saved. */
static void test_recursive_doubling_less(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_ALLGATHER, "recursive-doubling");
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 11, .count = 1,
                  .dtype = DT_FLOAT};
    Schedule s = {0};
    assert_non_null(a);
    assert_int_equal(algo_generate(a, &c, &s), CV_OK);
    expect_both(&s, 7.088e-6, 6.084e-6);
}

/* Every clock stays within the steps' summed times (model.h): data-flow
 * never exceeds lock-step, for every algorithm that fits p ranks. */
static void test_never_more(void **state)
{
    (void)state;
    for (int p = 2; p <= 12; p++)
        for (size_t i = 0; i < algo_count(); i++)
            for (size_t n = 1; n <= 7; n += 6) {
                const AlgoInfo *a = algo_at(i);
                CollCall c = {.kind = a->coll, .nranks = p, .count = n,
                              .dtype = DT_FLOAT, .op = OP_SUM};
                Schedule s = {0};
                double lock, flow;
                if (algo_generate(a, &c, &s) == CV_OK) {
                    both(&s, &lock, &flow);
                    if (flow > lock * (1 + 1e-12))
                        fail_msg("%s %s p=%d n=%zu: %g > %g",
                                 coll_name(a->coll), a->name, p, n, flow,
                                 lock);
                }
                sched_fini(&s);
            }
}

/* A memory machine's steps have no messages: data-flow asked, lock-step
 * prices, and says so, at lock-step's time. */
static void test_memory_lockstep(void **state)
{
    (void)state;
    Schedule s;
    Machine m;
    Pricer pr;
    CostTerms t;
    double lock, flow;
    two_pairs(&s, 1000, 250, false);
    MemLevel ml = machine_mem_default(MACHINE_GPU);
    assert_int_equal(machine_memory(&m, MACHINE_GPU, 4, &ml, 0), CV_OK);
    assert_int_equal(pricer_init(&pr, &m), CV_OK);
    assert_int_equal(pricer_cost(&pr, &s, false, &t, &lock), CV_OK);
    pr.mode = PRICING_DATAFLOW;
    assert_int_equal(pricer_cost(&pr, &s, false, &t, &flow), CV_OK);
    assert_int_equal(pr.priced, PRICING_LOCKSTEP);
    assert_true(flow == lock);
    pricer_fini(&pr);
    sched_fini(&s);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(model_pricing_name(PRICING_LOCKSTEP), "lockstep");
    assert_string_equal(model_pricing_name(PRICING_DATAFLOW), "dataflow");
    for (int i = 0; i < PRICING_COUNT; i++)
        assert_int_equal(model_pricing_parse(
                             model_pricing_name((PricingMode)i)), i);
    assert_int_equal(model_pricing_parse("lock-step"), -1);
}

/* model and trace: the header names the mode; the recursive-doubling
 * allgather above, 44 bytes on 11 ranks, at its two times; a bad mode is
 * one sentence and status 2. */
static void test_cli(void **state)
{
    (void)state;
    const char *model[] = {"model", "allgather", "-p", "11", "-b", "44",
                           "-e", "44", "--alpha", "1us", "--beta", "1",
                           "--pricing", "dataflow", NULL};
    Ran r = run_args(model);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\n# pricing: dataflow ("));
    assert_non_null(strstr(r.out, " 6.084 "));
    ran_free(&r);
    model[13] = "lockstep";
    r = run_args(model);
    assert_non_null(strstr(r.out, "\n# pricing: lockstep ("));
    assert_non_null(strstr(r.out, " 7.088 "));
    ran_free(&r);
    const char *trace[] = {"trace", "allgather", "-a", "recursive-doubling",
                           "-p", "11", "-s", "44", "--alpha", "1us",
                           "--beta", "1", "--pricing", "dataflow", NULL};
    r = run_args(trace);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\n# pricing: dataflow ("));
    assert_non_null(strstr(r.out, "dataflow: the latest rank's clock): "
                                  "6.084 us; lockstep 7.088 us\n"));
    ran_free(&r);
    const char *bad_model[] = {"model", "allgather", "-p", "4",
                               "--pricing", "eager", NULL};
    r = run_args(bad_model);
    run_expect_sentence(&r, "model --pricing eager", 2,
                        "unknown pricing mode 'eager'");
    ran_free(&r);
    trace[13] = "eager";
    r = run_args(trace);
    run_expect_sentence(&r, "trace --pricing eager", 2,
                        "unknown pricing mode 'eager'");
    ran_free(&r);
}

/* -B's predictors are lock-step: data-flow with it is refused; a ring on
 * 4096 ranks written out would be 8190 steps of 4096 transfers, more
 * than MODEL_MAX_PRICE_WORK: lock-step prices it, and says so. */
static void test_cli_lockstep(void **state)
{
    (void)state;
    const char *calib[] = {"model", "allreduce", "-p", "4", "-B", "threads",
                           "--pricing", "dataflow", NULL};
    Ran r = run_args(calib);
    run_expect_sentence(&r, "model -B --pricing dataflow", 2,
                        "--pricing dataflow");
    ran_free(&r);
    const char *big[] = {"trace", "allreduce", "-a", "ring", "-p", "4096",
                         "-s", "64M", "--pricing", "dataflow", NULL};
    r = run_args(big);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\n# pricing: lockstep (each step waits "
                                  "for its slowest message; not dataflow"));
    ran_free(&r);
}

/* The clocks of the recursive-doubling allgather above after each step
 * (pricer_flow_clocks), as worked out there: after 2 r0..r9 at 1.004 and
 * r10 at 0; after 3 all but r9 at 2.012; the pass-on (4) takes r8, r9 to
 * 3.016 while the others keep 2.012 (they start step 5 ahead of
 * lock-step's 3.016); after 5 r0..r7 at 3.028; at the end the latest
 * clock is 6.084 and lock-step's sum 7.088. In lock-step mode every clock
 * is the lock-step time. */
static void test_clocks_by_hand(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_ALLGATHER, "recursive-doubling");
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 11, .count = 1,
                  .dtype = DT_FLOAT};
    Schedule s = {0};
    Machine m;
    Pricer pr;
    PricingMode by;
    double at[8 * 11], lock[8], most = 0;
    assert_non_null(a);
    assert_int_equal(algo_generate(a, &c, &s), CV_OK);
    assert_int_equal(s.nsteps, 8);
    assert_int_equal(model_flat_machine(&m, MACHINE_FULL, 11, &US_GB), CV_OK);
    assert_int_equal(pricer_init(&pr, &m), CV_OK);
    assert_int_equal(pricer_flow_clocks(&pr, &s, PRICING_DATAFLOW, at, lock,
                                        &by), CV_OK);
    assert_int_equal(by, PRICING_DATAFLOW);
    NEAR(lock[0], 0);
    NEAR(lock[3], 3.016e-6);
    NEAR(lock[7], 7.088e-6);
    NEAR(at[1 * 11 + 0], 1.004e-6);
    NEAR(at[1 * 11 + 10], 0);
    NEAR(at[2 * 11 + 9], 1.004e-6);
    NEAR(at[2 * 11 + 10], 2.012e-6);
    for (int r = 0; r < 8; r++) {
        NEAR(at[3 * 11 + r], 2.012e-6);
        NEAR(at[4 * 11 + r], 3.028e-6);
    }
    NEAR(at[3 * 11 + 8], 3.016e-6);
    NEAR(at[3 * 11 + 9], 3.016e-6);
    for (int r = 0; r < 11; r++)
        most = fmax(most, at[7 * 11 + r]);
    NEAR(most, 6.084e-6);
    assert_int_equal(pricer_flow_clocks(&pr, &s, PRICING_LOCKSTEP, at, lock,
                                        &by), CV_OK);
    assert_int_equal(by, PRICING_LOCKSTEP);
    for (int r = 0; r < 11; r++)
        NEAR(at[3 * 11 + r], 3.016e-6);
    pricer_fini(&pr);
    sched_fini(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_two_pairs),
        cmocka_unit_test(test_terms_lockstep),
        cmocka_unit_test(test_ring_equal),
        cmocka_unit_test(test_binomial_equal),
        cmocka_unit_test(test_recursive_doubling_less),
        cmocka_unit_test(test_clocks_by_hand),
        cmocka_unit_test(test_never_more),
        cmocka_unit_test(test_memory_lockstep),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_cli_lockstep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
