/* test_algos_groups.c - the shared emitters on groups of ranks: the lines
 * of a torus's dimensions run their rings (or their recursive halving and
 * doubling) in the same steps. A two-dimensional allreduce built from
 * them (reduce-scatter along x, allreduce along y of the block each rank
 * owns, all-gather along x) must compute allreduce by the symbolic
 * executor for every shape and count, take exactly the steps of one line
 * (2(X-1) + 2(Y-1) with rings), and never send across lines. So must the
 * master-based one from binomial trees: reduce along x to each row's
 * member r, allreduce (reduce and broadcast) along y among those, and
 * broadcast along x, in 2 ceil(log2 X) + 2 ceil(log2 Y) steps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "algos/common.h"
#include "core/sim.h"

/* Offsets and lengths of the y lines' vectors: line g (x = g % X) works
 * on block x of the row's n elements. */
static void column_blocks(int X, int ngroups, size_t n, size_t *off,
                          size_t *len)
{
    for (int g = 0; g < ngroups; g++) {
        off[g] = blk_off(n, X, g % X);
        len[g] = blk_len(n, X, g % X);
    }
}

static void build(Schedule *s, int X, int Y, size_t n, bool rings)
{
    int sizes[2] = {X, Y};
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = X * Y, .count = n,
                  .dtype = DT_INT32, .op = OP_SUM, .in_place = true};
    assert_int_equal(sched_init(s, &c, "torus2d"), CV_OK);
    RankGroups rows = groups_lines(sizes, 2, 0, n, 0);
    RankGroups cols = groups_lines(sizes, 2, 1, 0, 0);
    size_t *off = malloc((size_t)cols.ngroups * sizeof *off);
    size_t *len = malloc((size_t)cols.ngroups * sizeof *len);
    column_blocks(X, cols.ngroups, n, off, len);
    cols.off = off, cols.len = len;
    if (rings) {
        emit_ring_reducescatter_g(s, &rows, BUF_RECV, "rs-x");
        emit_ring_reducescatter_g(s, &cols, BUF_RECV, "rs-y");
        emit_ring_allgather_g(s, &cols, BUF_RECV, "ag-y");
        emit_ring_allgather_g(s, &rows, BUF_RECV, "ag-x");
    } else {
        emit_halving_reducescatter_g(s, &rows, BUF_RECV, "rs-x");
        emit_halving_reducescatter_g(s, &cols, BUF_RECV, "rs-y");
        emit_doubling_allgather_g(s, &cols, BUF_RECV, "ag-y");
        emit_doubling_allgather_g(s, &rows, BUF_RECV, "ag-x");
    }
    free(off);
    free(len);
    assert_int_equal(sched_end(s), CV_OK);
}

static void check_allreduce(const Schedule *s, int X, int Y, size_t n)
{
    SchedCheck chk;
    assert_int_equal(sched_validate(s, &chk, NULL), CV_OK);
    Sim sim;
    assert_int_equal(sim_init(&sim, s), CV_OK);
    assert_int_equal(sim_run(&sim), CV_OK);
    int br;
    size_t bj, nwrong;
    if (sim_check(&sim, &br, &bj, &nwrong))
        fail_msg("%dx%d count %zu: %zu wrong, first rank %d element %zu", X,
                 Y, n, nwrong, br, bj);
    sim_fini(&sim);
    /* every transfer stays in its line: same y (x steps) or same x */
    for (size_t i = 0; i < s->nxfers; i++) {
        const Transfer *t = &s->xfers[i];
        bool row = t->src / X == t->dst / X, col = t->src % X == t->dst % X;
        assert_true(row || col);
    }
}

static void test_rings_on_lines(void **state)
{
    (void)state;
    static const int shapes[][2] = {{1, 1}, {2, 2}, {4, 3}, {3, 5}, {1, 5},
                                    {5, 1}, {6, 4}, {8, 8}};
    static const size_t counts[] = {0, 1, 7, 97};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (size_t j = 0; j < 4; j++) {
            int X = shapes[i][0], Y = shapes[i][1];
            size_t n = counts[j];
            Schedule s;
            build(&s, X, Y, n, true);
            check_allreduce(&s, X, Y, n);
            /* the lines run at once: one line's steps, no more (empty
               steps, for counts too small, are dropped) */
            size_t want = n >= (size_t)(X * Y)
                              ? (size_t)(2 * (X - 1) + 2 * (Y - 1)) : 0;
            if (n >= (size_t)(X * Y))
                assert_int_equal(s.nsteps, want);
            else
                assert_true(s.nsteps <= (size_t)(2 * (X - 1) + 2 * (Y - 1)));
            sched_fini(&s);
        }
}

static void test_cubes_on_lines(void **state)
{
    (void)state;
    static const int shapes[][2] = {{2, 2}, {4, 4}, {3, 5}, {6, 3}, {8, 2},
                                    {5, 7}};
    static const size_t counts[] = {0, 1, 7, 97};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (size_t j = 0; j < 4; j++) {
            int X = shapes[i][0], Y = shapes[i][1];
            Schedule s;
            build(&s, X, Y, counts[j], false);
            check_allreduce(&s, X, Y, counts[j]);
            sched_fini(&s);
        }
}

/* ceil(log2 n) */
static int clog2(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

static void test_trees_on_lines(void **state)
{
    (void)state;
    static const int shapes[][2] = {{1, 1}, {2, 2}, {4, 3}, {3, 5}, {1, 5},
                                    {5, 1}, {6, 4}, {8, 8}, {7, 2}};
    static const size_t counts[] = {1, 7, 97};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (size_t j = 0; j < 3; j++)
            for (int root = 0; root < shapes[i][0]; root += 2) {
                int X = shapes[i][0], Y = shapes[i][1], sizes[2] = {X, Y};
                size_t n = counts[j];
                Schedule s;
                CollCall c = {.kind = COLL_ALLREDUCE, .nranks = X * Y,
                              .count = n, .dtype = DT_INT32, .op = OP_SUM,
                              .in_place = true};
                assert_int_equal(sched_init(&s, &c, "master"), CV_OK);
                RankGroups rows = groups_lines(sizes, 2, 0, n, 0);
                /* the column of the rows' roots: ranks root + i X */
                RankGroups lead = {.ngroups = 1, .size = Y, .stride = X,
                                   .inner = 1, .first = root, .n0 = n};
                emit_binomial_reduce_g(&s, &rows, root, BUF_RECV, "reduce-x");
                emit_binomial_reduce_g(&s, &lead, Y / 2, BUF_RECV, "reduce-y");
                emit_binomial_bcast_g(&s, &lead, Y / 2, BUF_RECV, "bcast-y");
                emit_binomial_bcast_g(&s, &rows, root, BUF_RECV, "bcast-x");
                assert_int_equal(sched_end(&s), CV_OK);
                check_allreduce(&s, X, Y, n);
                assert_int_equal(s.nsteps, 2 * clog2(X) + 2 * clog2(Y));
                sched_fini(&s);
            }
}

/* Group members by hand: the columns of 4x3 are {0,4,8}, {1,5,9}, ...;
 * the y lines of 2x3x2 at z = 1 are {6,8,10} and {7,9,11}. */
static void test_members(void **state)
{
    (void)state;
    int s2[2] = {4, 3}, s3[3] = {2, 3, 2};
    RankGroups cols = groups_lines(s2, 2, 1, 0, 0);
    assert_int_equal(cols.ngroups, 4);
    assert_int_equal(group_rank(&cols, 1, 2), 9);
    RankGroups rows = groups_lines(s2, 2, 0, 0, 0);
    assert_int_equal(rows.ngroups, 3);
    assert_int_equal(group_rank(&rows, 2, 3), 11);
    RankGroups ys = groups_lines(s3, 3, 1, 0, 0);
    assert_int_equal(ys.ngroups, 4);
    assert_int_equal(group_rank(&ys, 2, 0), 6);
    assert_int_equal(group_rank(&ys, 2, 2), 10);
    assert_int_equal(group_rank(&ys, 3, 1), 9);
    RankGroups zs = groups_lines(s3, 3, 2, 0, 0);
    assert_int_equal(zs.ngroups, 6);
    assert_int_equal(group_rank(&zs, 5, 1), 11);
    /* a group shifted by first: column x = 1 of 4x3 is {1, 5, 9} */
    RankGroups col1 = {.ngroups = 1, .size = 3, .stride = 4, .inner = 1,
                       .first = 1};
    assert_int_equal(group_rank(&col1, 0, 0), 1);
    assert_int_equal(group_rank(&col1, 0, 2), 9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_members),
        cmocka_unit_test(test_rings_on_lines),
        cmocka_unit_test(test_cubes_on_lines),
        cmocka_unit_test(test_trees_on_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
