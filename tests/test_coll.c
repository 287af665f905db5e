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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_layouts),
        cmocka_unit_test(test_layout_examples),
        cmocka_unit_test(test_sizes),
    };
    return cmocka_run_group_tests_name("coll", tests, NULL, NULL);
}
