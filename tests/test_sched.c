/* test_sched.c - the schedule builder, validator and statistics, on
 * hand-made schedules whose every property is known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "algos/algo.h"
#include "core/grow.h"
#include "core/sched.h"

static CollCall call(CollKind k, int p, size_t n, bool in_place)
{
    return (CollCall){.kind = k, .nranks = p, .count = n, .dtype = DT_INT32,
                      .op = OP_SUM, .root = 0, .in_place = in_place};
}

/* A correct ring allgather built by hand: p - 1 steps on recv, after a
 * local copy-in step. */
static void ring_allgather(Schedule *s, int p, size_t n)
{
    CollCall c = call(COLL_ALLGATHER, p, n, false);
    assert_int_equal(sched_init(s, &c, "hand-ring"), CV_OK);
    sched_step(s, "copy-in");
    for (int r = 0; r < p; r++)
        sched_copy(s, r, BUF_SEND, 0, r, BUF_RECV, (size_t)r * n, n);
    for (int k = 0; k < p - 1; k++) {
        sched_step(s, "all-gather");
        for (int r = 0; r < p; r++) {
            int b = ((r - k) % p + p) % p;
            sched_copy(s, r, BUF_RECV, (size_t)b * n, (r + 1) % p, BUF_RECV,
                       (size_t)b * n, n);
        }
    }
    assert_int_equal(sched_end(s), CV_OK);
}

/* The bytes a schedule reads and writes, by hand: a ring allreduce of
 * n = 8 floats on p = 4 ranks reduces 2 floats per rank in each of 3
 * steps (12 x 2 floats, two read and one written: 288 B) and copies 2
 * floats per rank in each of 3 steps (12 x 2 floats: 192 B): 480 B; out
 * of place its copy-in (4 x 8 floats, 256 B) is no one's (each block of
 * it is reduced into, or sent from and overwritten: test_fuse), so 480 B
 * too. A ring allgather of 2 floats a block on 4 ranks copies 2 floats
 * per rank in each of 3 steps: 192 B; out of place the copy of each
 * rank's own block stays in its output: 4 x 2 floats more, 256 B. */
static void test_traffic(void **state)
{
    (void)state;
    for (int ip = 0; ip < 2; ip++) {
        CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 4, .count = 8,
                      .dtype = DT_FLOAT, .op = OP_SUM, .in_place = ip};
        Schedule s;
        assert_int_equal(algo_generate(algo_find(c.kind, "ring"), &c, &s),
                         CV_OK);
        assert_true(sched_traffic(&s) == 480.0);
        sched_fini(&s);
        c.kind = COLL_ALLGATHER, c.count = 2;
        assert_int_equal(algo_generate(algo_find(c.kind, "ring"), &c, &s),
                         CV_OK);
        assert_true(sched_traffic(&s) == (ip ? 192.0 : 256.0));
        sched_fini(&s);
    }
}

static void test_builder(void **state)
{
    (void)state;
    for (int p = 1; p <= 64; p++)
        for (size_t n = 0; n <= 3; n++) {
            Schedule s;
            ring_allgather(&s, p, n);
            /* count 0 drops every transfer and so every step */
            size_t want = n ? (size_t)p : 0;
            assert_int_equal(s.nsteps, want);
            assert_int_equal(s.nxfers, n ? (size_t)p * (size_t)p : 0);
            for (int r = 0; r < p; r++) {
                assert_int_equal(sched_bufsize(&s, r, BUF_SEND), n);
                assert_int_equal(sched_bufsize(&s, r, BUF_RECV), (size_t)p * n);
                assert_int_equal(sched_bufsize(&s, r, BUF_TMP), 0);
            }
            SchedCheck chk;
            assert_int_equal(sched_validate(&s, &chk, NULL), CV_OK);
            assert_int_equal(chk.overlaps, 0);
            sched_fini(&s);
        }
}

static void test_builder_errors(void **state)
{
    (void)state;
    Schedule s;
    CollCall c = call(COLL_ALLREDUCE, 4, 8, false);
    assert_int_equal(sched_init(&s, &c, "x"), CV_OK);
    sched_copy(&s, 0, BUF_SEND, 0, 1, BUF_RECV, 0, 1); /* no step open */
    assert_int_equal(sched_end(&s), CV_ERR_STEP);
    sched_fini(&s);

    assert_int_equal(sched_init(&s, &c, "x"), CV_OK);
    sched_step(&s, "a");
    sched_copy(&s, 0, BUF_SEND, 0, 4, BUF_RECV, 0, 1); /* rank 4 of 4 */
    assert_int_equal(sched_end(&s), CV_ERR_ARG);
    sched_fini(&s);

    c.nranks = 0;
    assert_int_equal(sched_init(&s, &c, "x"), CV_ERR_RANKS);
    sched_fini(&s);
    c.nranks = 3, c.root = 3;
    assert_int_equal(sched_init(&s, &c, "x"), CV_ERR_ROOT);
    sched_fini(&s);
}

/* tmp grows, never shrinks, per rank or for all. */
static void test_tmp(void **state)
{
    (void)state;
    Schedule s;
    CollCall c = call(COLL_ALLREDUCE, 5, 8, true);
    assert_int_equal(sched_init(&s, &c, "x"), CV_OK);
    sched_tmp(&s, 2, 10);
    sched_tmp(&s, 2, 4);
    sched_tmp_all(&s, 6);
    for (int r = 0; r < 5; r++)
        assert_int_equal(sched_bufsize(&s, r, BUF_TMP), r == 2 ? 10 : 6);
    assert_int_equal(sched_bufsize(&s, 0, BUF_SEND), 0); /* in place */
    sched_fini(&s);
}

/* Build a one-step allreduce-shaped schedule with a single transfer. */
static void one_xfer(Schedule *s, XferOp op, int src, BufId sb, size_t so,
                     int dst, BufId db, size_t doff, size_t n)
{
    CollCall c = call(COLL_ALLREDUCE, 2, 4, false);
    assert_int_equal(sched_init(s, &c, "x"), CV_OK);
    sched_step(s, "a");
    sched_xfer(s, op, src, sb, so, dst, db, doff, n);
    assert_int_equal(sched_end(s), CV_OK);
}

static void test_validate_errors(void **state)
{
    (void)state;
    Schedule s;
    SchedCheck chk;
    one_xfer(&s, XFER_COPY, 0, BUF_SEND, 1, 1, BUF_RECV, 0, 4); /* reads 1..5 */
    assert_int_equal(sched_validate(&s, &chk, NULL), CV_ERR_BOUNDS);
    assert_int_equal(chk.step, 0);
    sched_fini(&s);
    one_xfer(&s, XFER_COPY, 0, BUF_SEND, 0, 1, BUF_RECV, 1, 4); /* writes 1..5 */
    assert_int_equal(sched_validate(&s, &chk, NULL), CV_ERR_BOUNDS);
    sched_fini(&s);
    one_xfer(&s, XFER_COPY, 0, BUF_SEND, 0, 1, BUF_SEND, 0, 4);
    assert_int_equal(sched_validate(&s, &chk, NULL), CV_ERR_SENDWRITE);
    sched_fini(&s);
    one_xfer(&s, XFER_COPY, 0, BUF_SEND, 0, 1, BUF_TMP, 0, 1); /* tmp empty */
    assert_int_equal(sched_validate(&s, &chk, NULL), CV_ERR_BOUNDS);
    sched_fini(&s);
    /* In bounds but rank 0's result and part of rank 1's never written. */
    one_xfer(&s, XFER_COPY, 0, BUF_SEND, 0, 1, BUF_RECV, 0, 3);
    assert_int_equal(sched_validate(&s, &chk, NULL), CV_ERR_MISSING);
    assert_int_equal(chk.missing, 4 + 1);
    sched_fini(&s);
}

/* Two writes of one step to the same element are refused; a read that a
 * write of the same step overlaps is counted and flagged for staging. */
static void test_overlaps(void **state)
{
    (void)state;
    Schedule s;
    SchedCheck chk;
    CollCall c = call(COLL_ALLREDUCE, 2, 4, true);
    assert_int_equal(sched_init(&s, &c, "x"), CV_OK);
    sched_step(&s, "swap"); /* ranks swap their vectors: reads before writes */
    sched_copy(&s, 0, BUF_RECV, 0, 1, BUF_RECV, 0, 4);
    sched_copy(&s, 1, BUF_RECV, 0, 0, BUF_RECV, 0, 4);
    sched_step(&s, "shift"); /* a local shift by one: overlaps itself */
    sched_copy(&s, 0, BUF_RECV, 0, 0, BUF_RECV, 1, 3);
    sched_copy(&s, 1, BUF_RECV, 0, 1, BUF_RECV, 0, 4);
    assert_int_equal(sched_end(&s), CV_OK);
    uint8_t staged[4];
    assert_int_equal(sched_validate(&s, &chk, staged), CV_OK);
    assert_int_equal(chk.overlaps, 4);
    assert_memory_equal(staged, ((uint8_t[]){1, 1, 1, 1}), 4);
    sched_step(&s, "clash");
    sched_copy(&s, 0, BUF_RECV, 0, 1, BUF_RECV, 2, 2);
    sched_copy(&s, 1, BUF_RECV, 0, 1, BUF_RECV, 3, 1);
    assert_int_equal(sched_end(&s), CV_OK);
    assert_int_equal(sched_validate(&s, &chk, NULL), CV_ERR_ARG);
    assert_int_equal(chk.step, 2);
    assert_int_equal(chk.xfer, 5);
    sched_fini(&s);
}

/* Bytes and messages per rank and step, and totals. */
static void test_stats(void **state)
{
    (void)state;
    for (int p = 1; p <= 16; p++) {
        Schedule s;
        ring_allgather(&s, p, 3);
        RankStepStats st[16];
        assert_int_equal(sched_step_stats(&s, 0, st), CV_OK);
        for (int r = 0; r < p; r++) { /* copy-in: local only */
            assert_int_equal(st[r].copied, 12);
            assert_int_equal(st[r].sent + st[r].recvd + st[r].msgs_out, 0);
        }
        for (size_t k = 1; k < s.nsteps; k++) {
            assert_int_equal(sched_step_stats(&s, k, st), CV_OK);
            for (int r = 0; r < p; r++) {
                assert_int_equal(st[r].sent, 12);
                assert_int_equal(st[r].recvd, 12);
                assert_int_equal(st[r].msgs_out, 1);
                assert_int_equal(st[r].msgs_in, 1);
                assert_int_equal(st[r].reduced, 0);
            }
        }
        SchedTotals t;
        size_t sent[16];
        assert_int_equal(sched_totals(&s, &t, sent, NULL), CV_OK);
        assert_int_equal(t.steps, (size_t)p);
        assert_int_equal(t.max_sent, (size_t)(p - 1) * 12);
        assert_int_equal(t.total_bytes, (size_t)p * (size_t)(p - 1) * 12);
        for (int r = 0; r < p; r++)
            assert_int_equal(sent[r], (size_t)(p - 1) * 12);
        sched_fini(&s);
    }
}

/* Several transfers between the same pair in one step are one message. */
static void test_messages(void **state)
{
    (void)state;
    Schedule s;
    CollCall c = call(COLL_ALLREDUCE, 3, 6, true);
    assert_int_equal(sched_init(&s, &c, "x"), CV_OK);
    sched_step(&s, "a");
    sched_copy(&s, 0, BUF_RECV, 0, 1, BUF_RECV, 0, 1);
    sched_copy(&s, 0, BUF_RECV, 1, 2, BUF_RECV, 1, 1);
    sched_reduce(&s, 0, BUF_RECV, 2, 1, BUF_RECV, 2, 2);
    assert_int_equal(sched_end(&s), CV_OK);
    RankStepStats st[3];
    assert_int_equal(sched_step_stats(&s, 0, st), CV_OK);
    assert_int_equal(st[0].msgs_out, 2);
    assert_int_equal(st[1].msgs_in, 1);
    assert_int_equal(st[2].msgs_in, 1);
    assert_int_equal(st[1].reduced, 8);
    assert_int_equal(st[0].sent, 16);
    sched_fini(&s);
}

static void test_names(void **state)
{
    (void)state;
    for (int b = 0; b < BUF_COUNT; b++)
        assert_int_equal(buf_parse(buf_name((BufId)b)), b);
    assert_int_equal(buf_parse("nope"), -1);
    assert_string_equal(xfer_op_name(XFER_COPY), "copy");
    assert_string_equal(xfer_op_name(XFER_REDUCE), "reduce");
}

/* A reduce to rank 0 of n elements (out of place): the copy-in step,
 * then `variant` decides step 2 around rank 1's reduce into recv[0, n). */
/* grow_array by hand: from nothing with a first room of 4, a 1st item
 * takes 4, a 5th 8, a 17th 32; what fits keeps the block; a room whose
 * bytes overflow is refused with the array and its room as they were. */
static void test_grow(void **state)
{
    (void)state;
    size_t cap = 0;
    int *v = grow_array(NULL, &cap, 1, sizeof *v, 4);
    assert_non_null(v);
    assert_int_equal(cap, 4);
    v[3] = 7;
    assert_ptr_equal(grow_array(v, &cap, 4, sizeof *v, 4), v);
    assert_int_equal(cap, 4);
    v = grow_array(v, &cap, 5, sizeof *v, 4);
    assert_non_null(v);
    assert_int_equal(cap, 8);
    assert_int_equal(v[3], 7);
    v = grow_array(v, &cap, 17, sizeof *v, 4);
    assert_non_null(v);
    assert_int_equal(cap, 32);
    assert_null(grow_array(v, &cap, SIZE_MAX / 2, sizeof *v, 4));
    assert_int_equal(cap, 32);
    assert_int_equal(v[3], 7);
    free(v);
}

/* sched_same by hand: two schedules built with the same transfers in
 * another order are one; ring and halving-doubling allreduce at 2 ranks
 * both swap halves and reduce, then swap the reduced halves (one
 * schedule), and at 4 ranks take 6 and 4 steps (two); a count, a buffer
 * size or one offset apart is two. */
static void test_same(void **state)
{
    (void)state;
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 2, .count = 4,
                  .dtype = DT_FLOAT, .op = OP_SUM};
    Schedule a, b;
    bool same;
    for (int order = 0; order < 2; order++) {
        Schedule *s = order ? &b : &a;
        assert_int_equal(sched_init(s, &c, "by hand"), CV_OK);
        sched_step(s, "swap");
        for (int k = 0; k < 2; k++) {
            int src = order ? 1 - k : k;
            sched_copy(s, src, BUF_SEND, 0, 1 - src, BUF_RECV,
                       (size_t)src * 4, 4);
        }
        assert_int_equal(sched_end(s), CV_OK);
    }
    assert_int_equal(sched_same(&a, &b, &same), CV_OK);
    assert_true(same);
    b.xfers[0].dst_off = 1; /* one offset apart */
    assert_int_equal(sched_same(&a, &b, &same), CV_OK);
    assert_false(same);
    sched_fini(&a), sched_fini(&b);
    const AlgoInfo *ring = algo_find(COLL_ALLREDUCE, "ring");
    const AlgoInfo *hd = algo_find(COLL_ALLREDUCE, "halving-doubling");
    for (int p = 2; p <= 4; p += 2) {
        c = (CollCall){.kind = COLL_ALLREDUCE, .nranks = p, .count = 64,
                       .dtype = DT_FLOAT, .op = OP_SUM};
        assert_int_equal(algo_generate(ring, &c, &a), CV_OK);
        assert_int_equal(algo_generate(hd, &c, &b), CV_OK);
        assert_int_equal(sched_same(&a, &b, &same), CV_OK);
        assert_true(same == (p == 2));
        sched_fini(&b);
        c.count = 65; /* the same algorithm at another count */
        assert_int_equal(algo_generate(ring, &c, &b), CV_OK);
        assert_int_equal(sched_same(&a, &b, &same), CV_OK);
        assert_false(same);
        sched_fini(&a), sched_fini(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_traffic),
        cmocka_unit_test(test_same),
        cmocka_unit_test(test_grow),
        cmocka_unit_test(test_builder),
        cmocka_unit_test(test_builder_errors),
        cmocka_unit_test(test_tmp),
        cmocka_unit_test(test_validate_errors),
        cmocka_unit_test(test_overlaps),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_messages),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests_name("sched", tests, NULL, NULL);
}
