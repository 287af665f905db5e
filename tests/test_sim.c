/* test_sim.c - the symbolic executor on hand-made schedules: correct ones
 * reach the collective's definition, broken ones are caught. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/sim.h"

static CollCall call(CollKind k, int p, size_t n, bool in_place)
{
    return (CollCall){.kind = k, .nranks = p, .count = n, .dtype = DT_FLOAT,
                      .op = OP_SUM, .root = 0, .in_place = in_place};
}

/* Ring reduce-scatter then ring all-gather, in place, blocks of n / p
 * (p divides n here; the registry's generators cover the rest). */
static void ring_allreduce(Schedule *s, int p, size_t n)
{
    CollCall c = call(COLL_ALLREDUCE, p, n, true);
    size_t b = n / (size_t)p;
    assert_int_equal(sched_init(s, &c, "hand-ring"), CV_OK);
    for (int k = 0; k < p - 1; k++) {
        sched_step(s, "reduce-scatter");
        for (int r = 0; r < p; r++) {
            size_t blk = (size_t)((r - k - 1 + 2 * p) % p);
            sched_reduce(s, r, BUF_RECV, blk * b, (r + 1) % p, BUF_RECV, blk * b, b);
        }
    }
    for (int k = 0; k < p - 1; k++) {
        sched_step(s, "all-gather");
        for (int r = 0; r < p; r++) {
            size_t blk = (size_t)((r - k + 2 * p) % p);
            sched_copy(s, r, BUF_RECV, blk * b, (r + 1) % p, BUF_RECV, blk * b, b);
        }
    }
    assert_int_equal(sched_end(s), CV_OK);
}

/* Send buffers cost no memory and read as the rank's own input. */
static void test_send_implied(void **state)
{
    (void)state;
    for (int p = 1; p <= 70; p += 23) {
        Schedule s;
        CollCall c = call(COLL_ALLGATHER, p, 3, false);
        assert_int_equal(sched_init(&s, &c, "copy-in"), CV_OK);
        sched_step(&s, "copy-in");
        for (int r = 0; r < p; r++)
            sched_copy(&s, r, BUF_SEND, 1, r, BUF_RECV, (size_t)r * 3 + 1, 2);
        assert_int_equal(sched_end(&s), CV_OK);
        Sim sim;
        assert_int_equal(sim_init(&sim, &s), CV_OK);
        assert_null(sim.set[BUF_SEND]);
        assert_int_equal(sim_run(&sim), CV_OK);
        for (int r = 0; r < p; r++) {
            assert_int_equal(sim_pos(&sim, r, BUF_SEND, 2), 2);
            assert_int_equal(sim_nranks_in(&sim, r, BUF_SEND, 2), 1);
            assert_true(sim_has(&sim, r, BUF_SEND, 0, r));
            assert_int_equal(sim_pos(&sim, r, BUF_RECV, (size_t)r * 3), SIM_EMPTY);
            assert_int_equal(sim_pos(&sim, r, BUF_RECV, (size_t)r * 3 + 2), 2);
            assert_true(sim_has(&sim, r, BUF_RECV, (size_t)r * 3 + 2, r));
            assert_int_equal(sim_nranks_in(&sim, r, BUF_RECV, (size_t)r * 3 + 2), 1);
        }
        sim_fini(&sim);
        sched_fini(&s);
    }
}

static void test_ring_allreduce(void **state)
{
    (void)state;
    for (int p = 1; p <= 130; p += (p < 10 ? 1 : 29)) {
        Schedule s;
        ring_allreduce(&s, p, 2 * (size_t)p);
        Sim sim;
        assert_int_equal(sim_init(&sim, &s), CV_OK);
        assert_int_equal(sim.words, ((size_t)p + 63) / 64);
        /* Initially rank r holds only its own input at every position. */
        for (int r = 0; r < p; r++)
            for (size_t j = 0; j < 2 * (size_t)p; j++) {
                assert_int_equal(sim_pos(&sim, r, BUF_RECV, j), (int32_t)j);
                assert_int_equal(sim_nranks_in(&sim, r, BUF_RECV, j), 1);
                assert_true(sim_has(&sim, r, BUF_RECV, j, r));
            }
        size_t nwrong = 0;
        assert_int_equal(sim_check(&sim, NULL, NULL, &nwrong), p == 1 ? CV_OK : CV_ERR_WRONG);
        assert_int_equal(sim_run(&sim), CV_OK);
        assert_int_equal(sim_check(&sim, NULL, NULL, &nwrong), CV_OK);
        assert_int_equal(nwrong, 0);
        for (int r = 0; r < p; r++)
            assert_true(sim_is_final(&sim, r, 0));
        /* Half way, the reduce-scatter is done: rank r owns block r. */
        assert_int_equal(sim_seek(&sim, (size_t)p - 1), CV_OK);
        for (int r = 0; r < p; r++) {
            size_t own = (size_t)r * 2;
            assert_int_equal(sim_nranks_in(&sim, r, BUF_RECV, own), p);
            assert_true(sim_is_final(&sim, r, own));
        }
        sim_fini(&sim);
        sched_fini(&s);
    }
}

/* A swap in one step must read the values from before the step. */
static void test_step_semantics(void **state)
{
    (void)state;
    Schedule s;
    CollCall c = call(COLL_ALLTOALL, 2, 1, true);
    assert_int_equal(sched_init(&s, &c, "swap"), CV_OK);
    sched_step(&s, "exchange");
    sched_copy(&s, 0, BUF_RECV, 1, 1, BUF_RECV, 0, 1);
    sched_copy(&s, 1, BUF_RECV, 0, 0, BUF_RECV, 1, 1);
    assert_int_equal(sched_end(&s), CV_OK);
    Sim sim;
    assert_int_equal(sim_init(&sim, &s), CV_OK);
    assert_int_equal(sim_run(&sim), CV_OK);
    assert_int_equal(sim_check(&sim, NULL, NULL, NULL), CV_OK);
    assert_true(sim_has(&sim, 0, BUF_RECV, 1, 1));
    assert_int_equal(sim_pos(&sim, 0, BUF_RECV, 1), 0);
    sim_fini(&sim);
    sched_fini(&s);
}

/* Build a 2-rank allreduce with one step of the given transfer. */
static CvError run_one(XferOp op, int src, BufId sb, size_t so, int dst,
                       BufId db, size_t doff, size_t n, bool in_place)
{
    Schedule s;
    CollCall c = call(COLL_ALLREDUCE, 2, 4, in_place);
    assert_int_equal(sched_init(&s, &c, "x"), CV_OK);
    sched_tmp_all(&s, 4);
    sched_step(&s, "a");
    sched_xfer(&s, op, src, sb, so, dst, db, doff, n);
    sched_step(&s, "b");
    sched_reduce(&s, src, sb, so, dst, db, doff, n); /* a second time */
    assert_int_equal(sched_end(&s), CV_OK);
    Sim sim;
    assert_int_equal(sim_init(&sim, &s), CV_OK);
    CvError e = sim_run(&sim);
    sim_fini(&sim);
    sched_fini(&s);
    return e;
}

static void test_errors(void **state)
{
    (void)state;
    /* reducing into recv that holds nothing yet (out of place) */
    assert_int_equal(run_one(XFER_REDUCE, 0, BUF_SEND, 0, 1, BUF_RECV, 0, 4, false),
                     CV_ERR_UNINIT);
    /* reducing rank 0's input twice into rank 1 */
    assert_int_equal(run_one(XFER_REDUCE, 0, BUF_RECV, 0, 1, BUF_RECV, 0, 4, true),
                     CV_ERR_TWICE);
    /* reducing position 1.. into position 0.. */
    assert_int_equal(run_one(XFER_REDUCE, 0, BUF_RECV, 1, 1, BUF_RECV, 0, 3, true),
                     CV_ERR_MIXED);
    /* reading tmp that holds nothing */
    assert_int_equal(run_one(XFER_COPY, 0, BUF_TMP, 0, 1, BUF_RECV, 0, 4, true),
                     CV_ERR_UNINIT);
    /* send buffers are read-only */
    assert_int_equal(run_one(XFER_COPY, 0, BUF_SEND, 0, 1, BUF_SEND, 0, 4, false),
                     CV_ERR_SENDWRITE);
    /* out of bounds is caught even without the validator */
    assert_int_equal(run_one(XFER_COPY, 0, BUF_TMP, 2, 1, BUF_RECV, 0, 4, true),
                     CV_ERR_BOUNDS);
}

/* A schedule that ends before the result is complete is wrong, and the
 * first wrong element is named. */
static void test_check_wrong(void **state)
{
    (void)state;
    Schedule s;
    CollCall c = call(COLL_ALLGATHER, 3, 2, false);
    assert_int_equal(sched_init(&s, &c, "partial"), CV_OK);
    sched_step(&s, "copy-in");
    for (int r = 0; r < 3; r++)
        sched_copy(&s, r, BUF_SEND, 0, r, BUF_RECV, (size_t)r * 2, 2);
    assert_int_equal(sched_end(&s), CV_OK);
    Sim sim;
    assert_int_equal(sim_init(&sim, &s), CV_OK);
    assert_int_equal(sim_run(&sim), CV_OK);
    int br = -1;
    size_t bj = 99, nwrong = 0;
    assert_int_equal(sim_check(&sim, &br, &bj, &nwrong), CV_ERR_WRONG);
    assert_int_equal(br, 0);
    assert_int_equal(bj, 2);
    assert_int_equal(nwrong, 3 * 4);
    assert_int_equal(sim_step(&sim), CV_ERR_ARG); /* past the end */
    assert_int_equal(sim_seek(&sim, 2), CV_ERR_ARG);
    assert_int_equal(sim_seek(&sim, 0), CV_OK);
    assert_int_equal(sim.next_step, 0);
    assert_int_equal(sim_pos(&sim, 1, BUF_RECV, 2), SIM_EMPTY);
    sim_fini(&sim);
    sched_fini(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_send_implied),
        cmocka_unit_test(test_ring_allreduce),
        cmocka_unit_test(test_step_semantics),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_check_wrong),
    };
    return cmocka_run_group_tests_name("sim", tests, NULL, NULL);
}
