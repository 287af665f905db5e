/* test_algos_tree.c - the tree family: the shared binomial emitters, tree
 * shapes and step counts, NCCL's double binary tree edges, buffers the
 * algorithms must leave alone, and closed forms that are exact for every
 * p (not only powers of two). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "algos/algo.h"
#include "algos/common.h"
#include "core/sim.h"

/* Every algorithm of the family. */
static const struct {
    CollKind kind; /* collective */
    const char *name; /* name in the registry */
} family[] = {
    {COLL_BROADCAST, "binomial"}, {COLL_REDUCE, "binomial"},
    {COLL_SCATTER, "binomial"},   {COLL_GATHER, "binomial"},
    {COLL_ALLREDUCE, "tree"},     {COLL_ALLREDUCE, "double-binary-tree"},
};
#define NFAMILY (sizeof family / sizeof family[0])

static const AlgoInfo *member(size_t i)
{
    const AlgoInfo *a = algo_find(family[i].kind, family[i].name);
    assert_non_null(a);
    return a;
}

/* Generate or fail. */
static void gen(const AlgoInfo *a, const CollCall *c, Schedule *s)
{
    CvError e = algo_generate(a, c, s);
    if (e)
        fail_msg("%s/%s p=%d count=%zu: %s", coll_name(c->kind), a->name,
                 c->nranks, c->count, cv_strerror(e));
}

/* Steps with at least one transfer between two ranks. */
static double remote_steps(const Schedule *s)
{
    CostTerms t;
    assert_int_equal(model_schedule_cost(s, MACHINE_FULL, NULL, &t), CV_OK);
    return t.steps;
}

/* ------------------------------------------------------------ emitters */

/* Whether every element of rank r's recv in [lo, hi) holds element i of
 * rank `from`'s input. */
static bool holds(const Sim *sim, int r, size_t lo, size_t hi, int from)
{
    for (size_t i = lo; i < hi; i++)
        if (sim_pos(sim, r, BUF_RECV, i) != (int32_t)i ||
            sim_nranks_in(sim, r, BUF_RECV, i) != 1 ||
            !sim_has(sim, r, BUF_RECV, i, from))
            return false;
    return true;
}

/* A schedule on a broadcast call (root a holds n elements in recv): the
 * scatter emitter from a, then, when b >= 0, the gather emitter to b. */
static void emit_both(Schedule *s, int p, size_t n, int a, int b)
{
    CollCall c = {.kind = COLL_BROADCAST, .nranks = p, .count = n,
                  .dtype = DT_INT32, .root = a, .in_place = true};
    assert_int_equal(sched_init(s, &c, "test"), CV_OK);
    emit_binomial_scatter(s, a, n, BUF_RECV, 0, false, "scatter");
    if (b >= 0)
        emit_binomial_gather(s, b, n, BUF_RECV, 0, "gather");
    assert_int_equal(sched_end(s), CV_OK);
}

/* Scatter n elements from root a, then gather them to root b: after the
 * scatter rank r holds exactly its block (and b not the others), after
 * the gather b holds the whole vector. With n >= p each emitter takes
 * ceil(log2 p) steps. */
static void scatter_gather(int p, size_t n, int a, int b)
{
    Schedule s;
    Sim sim;
    emit_both(&s, p, n, a, -1);
    size_t mid = s.nsteps;
    assert_int_equal(sim_init(&sim, &s), CV_OK);
    assert_int_equal(sim_run(&sim), CV_OK);
    for (int r = 0; r < p; r++)
        assert_true(holds(&sim, r, blk_off(n, p, r), blk_off(n, p, r + 1), a));
    if (p > 1 && n >= (size_t)p && b != a)
        assert_false(holds(&sim, b, 0, n, a));
    sim_fini(&sim);
    sched_fini(&s);
    emit_both(&s, p, n, a, b);
    if (n >= (size_t)p) {
        assert_int_equal(mid, model_log2_ceil(p));
        assert_int_equal(s.nsteps, 2 * mid);
    }
    assert_int_equal(sim_init(&sim, &s), CV_OK);
    assert_int_equal(sim_run(&sim), CV_OK);
    assert_true(holds(&sim, b, 0, n, a));
    sim_fini(&sim);
    sched_fini(&s);
}

static void test_emitters(void **state)
{
    (void)state;
    for (int p = 1; p <= 40; p++) {
        size_t ns[] = {0, 1, (size_t)p - 1, (size_t)p + 1, 5 * (size_t)p + 3};
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
            scatter_gather(p, ns[i], 0, p - 1);
            scatter_gather(p, ns[i], p / 2, p / 3);
        }
    }
    scatter_gather(1000, 1003, 999, 1);
}

/* The scatter emitter alone costs lg p a + (p-1)/p nb for p = 2^L and n a
 * multiple of p (what broadcast by scatter-allgather builds on). */
static void test_emitter_cost(void **state)
{
    (void)state;
    for (int p = 1; p <= 64; p *= 2) {
        size_t n = 3 * (size_t)p;
        CollCall c = {.kind = COLL_BROADCAST, .nranks = p, .count = n,
                      .dtype = DT_DOUBLE, .root = p / 2, .in_place = true};
        Schedule s;
        assert_int_equal(sched_init(&s, &c, "test"), CV_OK);
        emit_binomial_scatter(&s, c.root, n, BUF_RECV, 0, false, "scatter");
        assert_int_equal(sched_end(&s), CV_OK);
        CostTerms got;
        assert_int_equal(model_schedule_cost(&s, MACHINE_FULL, NULL, &got), CV_OK);
        assert_true(got.a == model_log2_ceil(p));
        assert_true(got.b == (double)(p - 1) / p * (double)n * 8);
        sched_fini(&s);
    }
}

/* ------------------------------------------------------------- shapes */

/* Binomial broadcast from root 3 on 8 ranks: three steps of 1, 2, 4
 * messages, the root's first one to vrank 4 (rank 7). */
static void test_bcast_shape(void **state)
{
    (void)state;
    CollCall c = {.kind = COLL_BROADCAST, .nranks = 8, .count = 5,
                  .dtype = DT_INT32, .root = 3, .in_place = true};
    Schedule s;
    gen(member(0), &c, &s);
    assert_int_equal(s.nsteps, 3);
    for (size_t k = 0; k < 3; k++)
        assert_int_equal(s.steps[k].n, (size_t)1 << k);
    assert_int_equal(s.xfers[0].src, 3);
    assert_int_equal(s.xfers[0].dst, 7);
    assert_int_equal(s.xfers[0].count, 5);
    sched_fini(&s);
}

/* Scatter on 8 ranks from root 5, second step: the root sends vranks 2
 * and 3 (ranks 7 and 0) to rank 7, its own block straight to its output
 * and rank 0's to its tmp. The blocks wrap around the end of the root's
 * buffer: two transfers, one message. No step follows the remote ones. */
static void test_scatter_wrap(void **state)
{
    (void)state;
    CollCall c = {.kind = COLL_SCATTER, .nranks = 8, .count = 2,
                  .dtype = DT_INT32, .root = 5, .in_place = true};
    Schedule s;
    gen(member(2), &c, &s);
    assert_int_equal(s.nsteps, 3);
    const Step *st = &s.steps[1];
    int from_root = 0;
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *x = &s.xfers[st->first + i];
        if (x->src != 5)
            continue;
        assert_int_equal(x->dst, 7);
        assert_int_equal(x->dst_buf, x->src_off == 14 ? BUF_RECV : BUF_TMP);
        assert_int_equal(x->dst_off, 0);
        assert_int_equal(x->src_off, x->dst_buf == BUF_RECV ? 14 : 0);
        from_root++;
    }
    assert_int_equal(from_root, 2);
    RankStepStats rs[8];
    assert_int_equal(sched_step_stats(&s, 1, rs), CV_OK);
    assert_int_equal(rs[5].msgs_out, 1);
    assert_int_equal(rs[5].sent, 16);
    sched_fini(&s);
}

/* Scatter and gather: ceil(log2 p) steps, none local (the root's own
 * block moves in the first); a rank whose subtree (vranks [v, v +
 * lowbit(v)) cut at p) has more than itself keeps exactly the subtree's
 * other blocks in tmp (its own goes straight to or from its layout),
 * leaves and the root need no scratch. */
static void test_blocks_tmp(void **state)
{
    (void)state;
    for (int p = 1; p <= 33; p++)
        for (int i = 0; i < 4; i++) {
            CollCall c = {.kind = i < 2 ? COLL_SCATTER : COLL_GATHER,
                          .nranks = p, .count = 3, .dtype = DT_INT32,
                          .root = p - 1, .in_place = i % 2};
            Schedule s;
            gen(member(i < 2 ? 2 : 3), &c, &s);
            assert_true(remote_steps(&s) == model_log2_ceil(p));
            assert_int_equal(s.nsteps, p > 1 || c.in_place ? (size_t)model_log2_ceil(p) : 1);
            for (int v = 1; v < p; v++) {
                int r = rrank(v, c.root, p);
                int end = v + (v & -v) < p ? v + (v & -v) : p;
                size_t want = (size_t)(end - v - 1) * c.count;
                assert_int_equal(sched_bufsize(&s, r, BUF_TMP), want);
            }
            assert_int_equal(sched_bufsize(&s, c.root, BUF_TMP), 0);
            sched_fini(&s);
        }
}

/* Reduce and gather never write a rank's input, in place included (the
 * in-place input of a non-root rank is its recv buffer). */
static void test_inputs_untouched(void **state)
{
    (void)state;
    size_t pick[] = {1, 3};
    for (int p = 1; p <= 20; p++)
        for (size_t i = 0; i < 2; i++) {
            CollCall c = {.kind = COLL_REDUCE, .nranks = p, .count = 4,
                          .dtype = DT_INT32, .root = p / 2, .in_place = true};
            c.kind = member(pick[i])->coll;
            Schedule s;
            gen(member(pick[i]), &c, &s);
            for (size_t x = 0; x < s.nxfers; x++)
                if (s.xfers[x].dst != c.root)
                    assert_int_not_equal(s.xfers[x].dst_buf, BUF_RECV);
            sched_fini(&s);
        }
}

/* ------------------------------------------------- double binary tree */

/* Edges (parent, child) of tree t: the broadcast transfers of half t. */
static int dbt_edges(int p, size_t count, int t, int (*edge)[2], int max)
{
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = p, .count = count,
                  .dtype = DT_INT32, .in_place = true};
    Schedule s;
    gen(member(5), &c, &s);
    int n = 0;
    for (size_t k = 0; k < s.nsteps; k++) {
        if (strcmp(s.steps[k].phase, "broadcast"))
            continue;
        for (size_t i = 0; i < s.steps[k].n; i++) {
            const Transfer *x = &s.xfers[s.steps[k].first + i];
            if ((x->dst_off == 0) == (t == 0) && n < max) {
                edge[n][0] = x->src;
                edge[n][1] = x->dst;
                n++;
            }
        }
    }
    sched_fini(&s);
    return n;
}

/* Whether (u, v) is among the n edges. */
static bool has_edge(int (*edge)[2], int n, int u, int v)
{
    for (int i = 0; i < n; i++)
        if (edge[i][0] == u && edge[i][1] == v)
            return true;
    return false;
}

/* NCCL's trees for 12 and 13 ranks (the pictures in its trees.cc): tree 0
 * is the binary tree, tree 1 its mirror (even p) or shift by one (odd). */
static void test_dbt_trees(void **state)
{
    (void)state;
    static const int bt[][2] = {{0, 8}, {8, 4}, {4, 2}, {4, 6}, {2, 1},
                                {2, 3}, {6, 5}, {6, 7}, {10, 9}, {10, 11}};
    int edge[64][2];
    for (int p = 12; p <= 13; p++) {
        int n0 = dbt_edges(p, 10, 0, edge, 64);
        assert_int_equal(n0, p - 1);
        for (size_t i = 0; i < sizeof bt / sizeof *bt; i++)
            assert_true(has_edge(edge, n0, bt[i][0], bt[i][1]));
        assert_true(has_edge(edge, n0, 8, p == 12 ? 10 : 12));
        if (p == 13)
            assert_true(has_edge(edge, n0, 12, 10));
        int n1 = dbt_edges(p, 10, 1, edge, 64);
        assert_int_equal(n1, p - 1);
        for (size_t i = 0; i < sizeof bt / sizeof *bt; i++) {
            int u = bt[i][0], v = bt[i][1];
            if (p == 12)
                assert_true(has_edge(edge, n1, 11 - u, 11 - v));
            else
                assert_true(has_edge(edge, n1, (u + 1) % 13, (v + 1) % 13));
        }
    }
}

/* For even p every rank is a leaf in one tree: it sends in the first
 * reduce step. */
static void test_dbt_leaves(void **state)
{
    (void)state;
    for (int p = 2; p <= 64; p += 2) {
        CollCall c = {.kind = COLL_ALLREDUCE, .nranks = p, .count = 2,
                      .dtype = DT_INT32};
        Schedule s;
        gen(member(5), &c, &s);
        size_t k = 0;
        while (s.steps[k].phase[0] != 'r')
            k++;
        RankStepStats st[64];
        assert_int_equal(sched_step_stats(&s, k, st), CV_OK);
        for (int r = 0; r < p; r++)
            assert_int_equal(st[r].msgs_out, 1);
        sched_fini(&s);
    }
}

/* ------------------------------------------------------- closed forms */

/* The closed form equals the schedule's cost for every p, count, root and
 * in-place (the tree family's forms are exact beyond powers of two). */
static void check_cost(const AlgoInfo *a, const CollCall *c)
{
    Schedule s;
    gen(a, c, &s);
    CostTerms got, want;
    assert_int_equal(model_schedule_cost(&s, MACHINE_FULL, NULL, &got), CV_OK);
    a->cost(c, &want);
    if (got.a != want.a || got.b != want.b || got.g != want.g ||
        got.steps != want.steps)
        fail_msg("%s/%s p=%d count=%zu root=%d: schedule a=%g b=%g g=%g "
                 "steps=%g, closed form a=%g b=%g g=%g steps=%g",
                 coll_name(c->kind), a->name, c->nranks, c->count, c->root,
                 got.a, got.b, got.g, got.steps, want.a, want.b, want.g,
                 want.steps);
    sched_fini(&s);
}

static void test_closed_forms_any_p(void **state)
{
    (void)state;
    for (size_t i = 0; i < NFAMILY; i++)
        for (int p = 1; p <= 64; p++) {
            size_t counts[] = {0, 1, 2, (size_t)p + 1, 4 * (size_t)p + 3};
            for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++) {
                CollKind k = family[i].kind;
                int root = coll_is_rooted(k) ? (p / 3 + (int)ci) % p : 0;
                CollCall c = {.kind = k, .nranks = p,
                              .count = counts[ci], .dtype = DT_FLOAT,
                              .root = root,
                              .in_place = ci % 2};
                check_cost(member(i), &c);
            }
        }
}

/* The same at the largest sizes: p = 1000 and p = 1024. */
static void test_closed_forms_large(void **state)
{
    (void)state;
    for (size_t i = 0; i < NFAMILY; i++)
        for (int p = 1000; p <= 1024; p += 24) {
            CollCall c = {.kind = family[i].kind, .nranks = p, .count = 3,
                          .dtype = DT_HALF, .root = p - 1};
            check_cost(member(i), &c);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_emitters),
        cmocka_unit_test(test_emitter_cost),
        cmocka_unit_test(test_bcast_shape),
        cmocka_unit_test(test_scatter_wrap),
        cmocka_unit_test(test_blocks_tmp),
        cmocka_unit_test(test_inputs_untouched),
        cmocka_unit_test(test_dbt_trees),
        cmocka_unit_test(test_dbt_leaves),
        cmocka_unit_test(test_closed_forms_any_p),
        cmocka_unit_test(test_closed_forms_large),
    };
    return cmocka_run_group_tests_name("algos_tree", tests, NULL, NULL);
}
