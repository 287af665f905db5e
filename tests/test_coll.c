/* test_coll.c - names, layouts, result definitions and sizes of calls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/coll.h"

static void test_names(void **state)
{
    (void)state;
    for (int k = 0; k < COLL_COUNT; k++)
        assert_int_equal(coll_parse(coll_name((CollKind)k)), k);
    for (int t = 0; t < DT_COUNT; t++) {
        assert_int_equal(dtype_parse(dtype_name((DataType)t)), t);
        assert_true(dtype_size((DataType)t) >= 1);
    }
    for (int o = 0; o < OP_COUNT; o++)
        assert_int_equal(redop_parse(redop_name((RedOp)o)), o);
    assert_int_equal(coll_parse("AllReduce"), COLL_ALLREDUCE);
    assert_int_equal(coll_parse("reduce_scatter"), COLL_REDUCESCATTER);
    assert_int_equal(coll_parse("bcast"), COLL_BROADCAST);
    assert_int_equal(coll_parse("allreduc"), -1);
    assert_int_equal(coll_parse(NULL), -1);
    assert_int_equal(dtype_parse("bf16"), DT_BFLOAT16);
    assert_int_equal(dtype_parse("float128"), -1);
    assert_int_equal(redop_parse("mean"), -1);
    assert_int_equal(dtype_size(DT_HALF), 2);
    assert_int_equal(dtype_size(DT_INT64), 8);
    assert_true(dtype_is_float(DT_BFLOAT16));
    assert_false(dtype_is_float(DT_UINT8));
}

/* Input and output regions lie inside their buffers, and every output
 * element's definition points at an input that exists. */
static void check_layouts(const CollCall *c)
{
    for (int r = 0; r < c->nranks; r++) {
        CollLayout l;
        coll_layout(c, r, &l);
        size_t in_size = l.in_buf == BUF_SEND ? l.send_count : l.recv_count;
        size_t out_size = l.out_buf == BUF_SEND ? l.send_count : l.recv_count;
        assert_true(l.in_off + l.in_count <= in_size);
        assert_true(l.out_off + l.out_count <= out_size);
        assert_int_equal(l.out_buf, BUF_RECV);
        if (c->in_place)
            assert_int_equal(l.send_count, 0);
        for (size_t j = 0; j < l.out_count; j++) {
            CollExpect e;
            coll_expect(c, r, j, &e);
            /* The run, by induction over j: the next element continues
             * the expectation with a run one shorter, or the run is 1 and
             * it does not. */
            assert_true(e.run >= 1);
            if (j + 1 < l.out_count) {
                CollExpect f;
                coll_expect(c, r, j + 1, &f);
                bool alike = f.pos == e.pos + 1 && f.all_ranks == e.all_ranks &&
                             (e.all_ranks || f.rank == e.rank);
                assert_true(alike == (e.run > 1));
                if (alike && e.run != SIZE_MAX)
                    assert_true(f.run == e.run - 1);
                if (alike && e.run == SIZE_MAX)
                    assert_true(f.run == SIZE_MAX);
            }
            if (e.all_ranks) {
                assert_true(coll_is_reducing(c->kind));
                continue;
            }
            assert_true(e.rank >= 0 && e.rank < c->nranks);
            CollLayout src;
            coll_layout(c, e.rank, &src);
            assert_true(e.pos < src.in_count);
        }
    }
}

static void test_layouts(void **state)
{
    (void)state;
    for (int k = 0; k < COLL_COUNT; k++)
        for (int p = 1; p <= 64; p++)
            for (size_t n = 0; n <= 5; n += 2)
                for (int ip = 0; ip < 2; ip++) {
                    CollCall c = {.kind = (CollKind)k, .nranks = p, .count = n,
                                  .root = (p * 7 + 3) % p, .in_place = ip};
                    check_layouts(&c);
                }
}

/* A few layouts spelt out, as MPI and NCCL define them. */
/* Every rank's send and receive elements together, by hand: out of
 * place, allgather of 3 a block on 4 ranks sends 3 and receives 12 on
 * each (4 x 15); allreduce of 3 sends and receives 3 (4 x 6); scatter's
 * root sends 12 and every rank receives 3 (12 + 4 x 3). */
static void test_cells(void **state)
{
    (void)state;
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 4, .count = 3};
    assert_int_equal(coll_cells(&c), 60);
    c.kind = COLL_ALLREDUCE;
    assert_int_equal(coll_cells(&c), 24);
    c.kind = COLL_SCATTER, c.root = 1;
    assert_int_equal(coll_cells(&c), 24);
    c.nranks = 1, c.kind = COLL_ALLREDUCE;
    assert_int_equal(coll_cells(&c), 6);
}

static void test_layout_examples(void **state)
{
    (void)state;
    CollLayout l;
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 4, .count = 3, .in_place = true};
    coll_layout(&c, 2, &l);
    assert_int_equal(l.recv_count, 12);
    assert_int_equal(l.in_off, 6);
    assert_int_equal(l.in_count, 3);
    assert_int_equal(l.out_count, 12);
    c.kind = COLL_REDUCESCATTER;
    coll_layout(&c, 3, &l);
    assert_int_equal(l.out_off, 9);
    assert_int_equal(l.out_count, 3);
    assert_int_equal(l.in_count, 12);
    c.kind = COLL_SCATTER, c.root = 1, c.in_place = false;
    coll_layout(&c, 1, &l);
    assert_int_equal(l.send_count, 12);
    coll_layout(&c, 0, &l);
    assert_int_equal(l.send_count, 0);
    assert_int_equal(l.in_count, 0);
    assert_int_equal(l.recv_count, 3);
    CollExpect e;
    c.kind = COLL_ALLTOALL;
    coll_expect(&c, 2, 4, &e); /* block 1 of rank 2 comes from rank 1 */
    assert_int_equal(e.rank, 1);
    assert_int_equal(e.pos, 2 * 3 + 1);
    assert_int_equal(e.run, 2); /* elements 4 and 5, then rank 2's block */
    c.kind = COLL_ALLGATHER;
    coll_expect(&c, 0, 6, &e); /* rank 2's whole block of 3 */
    assert_int_equal(e.rank, 2);
    assert_int_equal(e.run, 3);
    c.kind = COLL_ALLREDUCE;
    coll_expect(&c, 3, 1, &e);
    assert_true(e.all_ranks && e.run == SIZE_MAX);
}

static void test_sizes(void **state)
{
    (void)state;
    /* allreduce: per-rank buffer; allgather: total gathered bytes */
    assert_int_equal(coll_count_for_size(COLL_ALLREDUCE, 8, DT_FLOAT, 1024), 256);
    assert_int_equal(coll_count_for_size(COLL_ALLGATHER, 8, DT_FLOAT, 1024), 32);
    assert_int_equal(coll_count_for_size(COLL_ALLTOALL, 4, DT_DOUBLE, 64), 2);
    assert_int_equal(coll_count_for_size(COLL_ALLREDUCE, 8, DT_FLOAT, 6), -1);
    assert_int_equal(coll_count_for_size(COLL_BROADCAST, 3, DT_INT8, 7), 7);
    CollCall c = {.kind = COLL_REDUCESCATTER, .nranks = 4, .count = 5, .dtype = DT_HALF};
    assert_int_equal(coll_size_bytes(&c), 40);
    assert_true(coll_busbw_factor(COLL_ALLREDUCE, 4) == 1.5);
    assert_true(coll_busbw_factor(COLL_ALLGATHER, 4) == 0.75);
    assert_true(coll_busbw_factor(COLL_BROADCAST, 4) == 1.0);
    assert_true(coll_busbw_factor(COLL_ALLREDUCE, 1) == 0.0);
}

/* nccl-tests' sendrecv and hypercube, from their definitions and
 * nccl-tests' src/sendrecv.cu and src/hypercube.cu, by hand. */
static void test_sendrecv_hypercube(void **state)
{
    (void)state;
    assert_int_equal(coll_parse("sendrecv"), COLL_SENDRECV);
    assert_int_equal(coll_parse("SR"), COLL_SENDRECV);
    assert_int_equal(coll_parse("send_recv"), COLL_SENDRECV);
    assert_int_equal(coll_parse("hypercube"), COLL_HYPERCUBE);
    assert_int_equal(coll_parse("hc"), COLL_HYPERCUBE);
    assert_false(coll_is_rooted(COLL_SENDRECV) || coll_is_rooted(COLL_HYPERCUBE));
    assert_false(coll_is_reducing(COLL_SENDRECV) ||
                 coll_is_reducing(COLL_HYPERCUBE));
    /* sendrecv, 5 ranks of 3 doubles: size = one block, 24 B; rank 0
     * receives rank 4's input; algbw = busbw (factor 1) */
    CollCall c = {.kind = COLL_SENDRECV, .nranks = 5, .count = 3,
                  .dtype = DT_DOUBLE};
    assert_int_equal(coll_size_bytes(&c), 24);
    assert_int_equal(coll_count_for_size(COLL_SENDRECV, 5, DT_DOUBLE, 24), 3);
    assert_true(coll_busbw_factor(COLL_SENDRECV, 5) == 1.0);
    CollLayout l;
    coll_layout(&c, 0, &l);
    assert_int_equal(l.send_count, 3);
    assert_int_equal(l.recv_count, 3);
    assert_int_equal(l.in_buf, BUF_SEND);
    assert_int_equal(l.out_buf, BUF_RECV);
    assert_int_equal(l.out_count, 3);
    CollExpect e;
    coll_expect(&c, 0, 2, &e);
    assert_int_equal(e.rank, 4);
    assert_int_equal(e.pos, 2);
    assert_false(e.all_ranks);
    coll_expect(&c, 3, 0, &e);
    assert_int_equal(e.rank, 2);
    assert_int_equal(coll_check(&c), CV_OK);
    c.in_place = true;
    assert_int_equal(coll_check(&c), CV_ERR_IN_PLACE);
    /* hypercube, 4 ranks of 3 floats: size = p blocks, 48 B, as
     * allgather; busbw = algbw (p-1)/p = 0.75, which is nccl-tests'
     * hypercube busbw, count x (p-1) x 4 B over the time */
    c = (CollCall){.kind = COLL_HYPERCUBE, .nranks = 4, .count = 3,
                   .dtype = DT_FLOAT, .in_place = true};
    assert_int_equal(coll_size_bytes(&c), 48);
    assert_true(coll_busbw_factor(COLL_HYPERCUBE, 4) == 0.75);
    assert_true(48 * coll_busbw_factor(COLL_HYPERCUBE, 4) == 3 * 3 * 4);
    coll_layout(&c, 2, &l);
    assert_int_equal(l.recv_count, 12);
    assert_int_equal(l.in_buf, BUF_RECV);
    assert_int_equal(l.in_off, 6); /* its own block, as allgather's */
    assert_int_equal(l.out_count, 12);
    coll_expect(&c, 1, 7, &e);
    assert_int_equal(e.rank, 2);
    assert_int_equal(e.pos, 1);
    assert_int_equal(coll_check(&c), CV_OK);
    static const int p[] = {1, 2, 3, 5, 6, 7, 12, 1000, 1024};
    static const int below[] = {1, 2, 2, 4, 4, 4, 8, 512, 1024};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) {
        int b, a;
        c.nranks = p[i];
        assert_int_equal(coll_check(&c), p[i] == below[i] ? CV_OK : CV_ERR_RANKS);
        coll_pow2_around(p[i], &b, &a);
        assert_int_equal(b, below[i]);
        assert_int_equal(a, 2 * below[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_layout_examples),
        cmocka_unit_test(test_cells),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_sendrecv_hypercube),
    };
    return cmocka_run_group_tests_name("coll", tests, NULL, NULL);
}
