/* test_plan.c - how the threads backend runs a schedule (threads/plan.h):
 * which idle sources push part of a transfer and where data flows one
 * way (its copy-in fusion: test_fuse). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "algos/algo.h"
#include "threads/plan.h"

#include "call_fixture.h"

static CollCall call(CollKind k, int p, size_t n, bool in_place)
{
    return (CollCall){.kind = k, .nranks = p, .count = n, .dtype = DT_INT32,
                      .op = OP_SUM, .root = 0, .in_place = in_place};
}

/* One step into rank 0 (n elements from each of ranks 1 .. senders, plus
 * its own copy with `local`), and, with chained, rank 2 into rank 1. */
static void push_case(Schedule *s, int p, int senders, bool local,
                      bool chained, size_t n)
{
    CollCall c = call(COLL_GATHER, p, n, false);
    assert_int_equal(sched_init(s, &c, "hand-push"), CV_OK);
    sched_tmp_all(s, n);
    sched_step(s, "gather");
    if (local)
        sched_copy(s, 0, BUF_SEND, 0, 0, BUF_RECV, 0, n);
    for (int r = 1; r <= senders; r++)
        sched_copy(s, r, BUF_SEND, 0, 0, BUF_RECV, (size_t)r * n, n);
    if (chained)
        sched_copy(s, 2, BUF_SEND, 0, 1, BUF_TMP, 0, n);
    assert_int_equal(sched_end(s), CV_OK);
}

/* The pushes of s with cores and min_bytes; every pushed part ends the
 * transfer, starts on a 64-byte boundary and comes from a rank that
 * receives nothing in its step. */
static size_t *pushes(const Schedule *s, int cores, size_t min_bytes)
{
    size_t *push = calloc(s->nxfers + 1, sizeof *push);
    assert_non_null(push);
    assert_int_equal(plan_push_all(s, cores, min_bytes, push), CV_OK);
    for (size_t k = 0; k < s->nsteps; k++)
        for (size_t i = s->steps[k].first; i < s->steps[k].first + s->steps[k].n; i++) {
            const Transfer *t = &s->xfers[i];
            assert_true(push[i] <= t->count);
            if (!push[i])
                continue;
            assert_int_not_equal(t->src, t->dst);
            assert_int_equal((t->dst_off + t->count - push[i]) * 4 % 64, 0);
            for (size_t j = s->steps[k].first; j < s->steps[k].first + s->steps[k].n; j++)
                assert_int_not_equal(s->xfers[j].dst, t->src);
        }
    return push;
}

static void test_push(void **state)
{
    (void)state;
    Schedule s;
    /* gather on 2 ranks: the root copies its own block, rank 1 pushes
     * its whole block (the balance), less the line the cut falls in */
    push_case(&s, 2, 1, true, false, 1000);
    size_t *push = pushes(&s, 2, 64);
    assert_int_equal(push[0], 0);
    assert_int_equal(push[1], 992); /* 1000 .. 1008 stays with the root */
    free(push);
    push = pushes(&s, 1, 64); /* one core: nobody is idle for long */
    assert_int_equal(push[1], 0);
    free(push);
    push = pushes(&s, 2, 4001); /* smaller than min_bytes */
    assert_int_equal(push[1], 0);
    free(push);
    sched_fini(&s);
    /* a broadcast's receiver alone: the source pushes half */
    push_case(&s, 2, 1, false, false, 1024);
    push = pushes(&s, 2, 64);
    assert_int_equal(push[0], 512);
    free(push);
    sched_fini(&s);
    /* gather on 4 ranks, 2 cores: every block pushed whole */
    push_case(&s, 4, 3, true, false, 1024);
    push = pushes(&s, 2, 64);
    for (size_t i = 1; i < 4; i++)
        assert_int_equal(push[i], 1024);
    free(push);
    sched_fini(&s);
    /* two receivers: none on 2 cores; on 4, only rank 2 (rank 1
     * receives) pushes, half of rank 1's work */
    push_case(&s, 3, 1, false, true, 1024);
    push = pushes(&s, 2, 64);
    assert_int_equal(push[0] + push[1], 0);
    free(push);
    push = pushes(&s, 4, 64);
    assert_int_equal(push[0], 0);
    assert_int_equal(push[1], 512);
    free(push);
    sched_fini(&s);
}

/* Data flows one way in trees and chains, not in a ring or in a pair
 * that sends both ways (however far apart the two directions are). */
static void test_one_way(void **state)
{
    (void)state;
    for (int p = 1; p <= 64; p++) {
        Schedule s;
        CollCall c = call(COLL_ALLGATHER, p, 3, false);
        assert_int_equal(algo_generate(algo_find(COLL_ALLGATHER, "ring"), &c, &s),
                         CV_OK);
        assert_int_equal(plan_one_way(&s), p == 1);
        sched_fini(&s);
        c = call(COLL_BROADCAST, p, 4, true);
        assert_int_equal(sched_init(&s, &c, "hand-tree"), CV_OK);
        for (int span = 1; span < p; span *= 2) { /* binomial, root 0 */
            sched_step(&s, "tree");
            for (int r = 0; r < span && r + span < p; r++)
                sched_copy(&s, r, BUF_RECV, 0, r + span, BUF_RECV, 0, 4);
        }
        assert_int_equal(sched_end(&s), CV_OK);
        assert_int_equal(plan_one_way(&s), 1);
        if (p > 2) { /* the last rank answers the root, steps later */
            sched_step(&s, "back");
            sched_copy(&s, p - 1, BUF_RECV, 0, 0, BUF_RECV, 1, 1);
            assert_int_equal(sched_end(&s), CV_OK);
            assert_int_equal(plan_one_way(&s), 0);
        }
        sched_fini(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_push),
        cmocka_unit_test(test_one_way),
    };
    return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
