/* test_data.c - inputs are exactly verifiable: every reduction over any
 * subset of up to COLL_MAX_RANKS ranks, in any order, gives the same bits
 * and the exact mathematical value; expected values follow rank sets;
 * poison is recognisable; the avg tolerance is tight. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/data.h"

static const int rank_counts[] = {1, 2, 3, 5, 8, 16, 31, 64, 100, 255, 256,
                                  257, 511, 512, 700, 1000, 1024};
#define NRANKCOUNTS (sizeof rank_counts / sizeof *rank_counts)
#define NPOS 24 /* positions tried per case */

static CollCall call_of(CollKind k, int p, DataType t, RedOp op)
{
    return (CollCall){.kind = k, .nranks = p, .count = NPOS, .dtype = t,
                      .op = op};
}

/* The exact value of op over the inputs of ranks [0, p) at pos, in double
 * (exact for the float types' input ranges: all partial results are
 * integers below 2^53 or powers of two). */
static double exact_reduce(const CollCall *c, size_t pos, int lo, int hi)
{
    double acc = data_to_double(c->dtype, data_input(c, lo, pos));
    for (int q = lo + 1; q < hi; q++) {
        double v = data_to_double(c->dtype, data_input(c, q, pos));
        switch (c->op) {
        case OP_PROD: acc *= v; break;
        case OP_MIN: acc = v < acc ? v : acc; break;
        case OP_MAX: acc = v > acc ? v : acc; break;
        default: acc += v; break;
        }
    }
    return acc;
}

/* Reduce ranks [lo, hi) at pos in the element type, as a tree. */
static uint64_t tree_reduce(const CollCall *c, size_t pos, int lo, int hi)
{
    if (hi - lo == 1)
        return data_input(c, lo, pos);
    int mid = lo + (hi - lo) / 2;
    return data_combine(c->dtype, c->op, tree_reduce(c, pos, lo, mid),
                        tree_reduce(c, pos, mid, hi));
}

/* One (type, op, p): forward partial results are exact at every prefix,
 * and forward, backward and tree orders agree bit for bit. */
static void check_exact(DataType t, RedOp op, int p)
{
    CollCall c = call_of(COLL_ALLREDUCE, p, t, op);
    for (size_t pos = 0; pos < NPOS; pos++) {
        uint64_t fwd = data_input(&c, 0, pos), bwd = data_input(&c, p - 1, pos);
        double exact = data_to_double(t, fwd);
        for (int q = 1; q < p; q++) {
            fwd = data_combine(t, op, fwd, data_input(&c, q, pos));
            bwd = data_combine(t, op, bwd, data_input(&c, p - 1 - q, pos));
            /* Float prefixes are exact (integers wrap, in any order). */
            if (dtype_is_float(t) && (q % 61 == 0 || q == p - 1)) {
                exact = exact_reduce(&c, pos, 0, q + 1);
                if (data_to_double(t, fwd) != exact)
                    fail_msg("%s %s p=%d pos %zu prefix %d: %g, exact %g",
                             dtype_name(t), redop_name(op), p, pos, q + 1,
                             data_to_double(t, fwd), exact);
            }
        }
        assert_true(fwd == bwd);
        assert_true(fwd == tree_reduce(&c, pos, 0, p));
        if (dtype_is_float(t))
            assert_false(isinf(data_to_double(t, fwd)));
    }
}

static void test_exact_in_any_order(void **state)
{
    (void)state;
    for (int t = 0; t < DT_COUNT; t++)
        for (int op = 0; op < OP_COUNT; op++)
            for (size_t i = 0; i < NRANKCOUNTS; i++)
                check_exact(t, op, rank_counts[i]);
}

/* Sums of floats see every rank (inputs are nonzero) wherever the type
 * leaves room for it, so a missing contribution changes the result. */
static void test_sum_inputs_nonzero(void **state)
{
    (void)state;
    for (int t = DT_HALF; t < DT_COUNT; t++)
        for (int p = 1; p <= 256; p *= 2) {
            CollCall c = call_of(COLL_REDUCE, p, t, OP_SUM);
            for (int q = 0; q < p; q++)
                for (size_t j = 0; j < NPOS; j++)
                    assert_true(data_to_double(t, data_input(&c, q, j)) >= 1);
        }
}

/* Inputs of copy-only collectives tell ranks and positions apart, so a
 * block copied from the wrong place is caught. */
static void test_inputs_distinguish(void **state)
{
    (void)state;
    for (int t = 0; t < DT_COUNT; t++) {
        CollCall c = call_of(COLL_ALLGATHER, 16, t, OP_SUM);
        int same = 0, n = 0;
        for (int q = 0; q < 16; q++)
            for (size_t j = 0; j < 64; j++, n++)
                same += data_input(&c, q, j) == data_input(&c, (q + 1) % 16, j) ||
                        data_input(&c, q, j) == data_input(&c, q, j + 1);
        /* bfloat16 has 256 small integers; the others far more. */
        assert_true(same * (dtype_size(t) == 1 || t == DT_BFLOAT16 ? 20 : 200) < n);
    }
}

static void test_fill_matches_elements(void **state)
{
    (void)state;
    unsigned char buf[64 * 8];
    for (int t = 0; t < DT_COUNT; t++)
        for (int op = 0; op < OP_COUNT; op++) {
            CollCall c = call_of(COLL_REDUCESCATTER, 7, t, op);
            data_fill_input(&c, 3, 1000, 64, buf);
            for (size_t i = 0; i < 64; i++)
                assert_true(data_load(t, buf, i) == data_input(&c, 3, 1000 + i));
        }
}

static void test_load_store(void **state)
{
    (void)state;
    unsigned char buf[4 * 8];
    for (int t = 0; t < DT_COUNT; t++) {
        uint64_t mask = dtype_size(t) == 8 ? ~0ull : (1ull << (8 * dtype_size(t))) - 1;
        memset(buf, 0x33, sizeof buf);
        data_store(t, buf, 1, 0x0123456789abcdefull);
        assert_true(data_load(t, buf, 1) == (0x0123456789abcdefull & mask));
        assert_true(data_load(t, buf, 0) == (0x3333333333333333ull & mask));
        assert_true(data_load(t, buf, 2) == (0x3333333333333333ull & mask));
    }
}

static void test_from_double(void **state)
{
    (void)state;
    for (int t = 0; t < DT_COUNT; t++)
        for (double v = -100; v <= 100; v += 0.5) {
            double back = data_to_double(t, data_from_double(t, v));
            double want = dtype_is_float(t) ? v : (double)(int64_t)v;
            if (t == DT_UINT8 || t == DT_UINT32 || t == DT_UINT64)
                want = want < 0 ? back : want; /* wraps: checked below */
            assert_true(back == want);
        }
    assert_true(data_from_double(DT_UINT8, 300) == 44);
    assert_true(data_from_double(DT_INT8, -129) == 127);
    assert_true(data_from_double(DT_UINT32, -1) == UINT32_MAX);
    assert_true(data_from_double(DT_INT64, 1e300) == UINT64_MAX);
    assert_true(data_from_double(DT_INT64, -1e300) == (uint64_t)INT64_MIN);
    assert_true(data_from_double(DT_HALF, 1e6) == 0x7c00);
    assert_true(data_from_double(DT_BFLOAT16, -2) == 0xc000);
}

static void test_poison(void **state)
{
    (void)state;
    for (int t = 0; t < DT_COUNT; t++) {
        uint64_t poison = data_poison(t);
        if (dtype_is_float(t))
            assert_true(isnan(data_to_double(t, poison)));
        unsigned char buf[16 * 8];
        data_fill_poison(t, buf, 16);
        for (size_t i = 0; i < 16; i++)
            assert_true(data_load(t, buf, i) == poison);
        /* a count that is no power of two: exactly its elements */
        memset(buf, 0, sizeof buf);
        data_fill_poison(t, buf, 13);
        for (size_t i = 0; i < 16; i++)
            assert_true(data_load(t, buf, i) == (i < 13 ? poison : 0));
        /* Float inputs are never NaN, hence never poison. */
        for (int op = 0; dtype_is_float(t) && op < OP_COUNT; op++) {
            CollCall c = call_of(COLL_ALLREDUCE, 8, t, op);
            for (size_t j = 0; j < NPOS; j++)
                assert_false(data_input(&c, 5, j) == poison);
        }
    }
}

/* A rank set of p ranks with bits set where keep(q). */
static uint64_t *make_set(int p, int stride, size_t *words)
{
    *words = ((size_t)p + 63) / 64;
    uint64_t *set = calloc(*words, sizeof *set);
    assert_non_null(set);
    for (int q = 0; q < p; q += stride)
        set[q / 64] |= 1ull << (q % 64);
    return set;
}

static void test_expect_follows_sets(void **state)
{
    (void)state;
    for (int t = 0; t < DT_COUNT; t++)
        for (int op = 0; op < OP_COUNT; op++) {
            int p = 130;
            CollCall c = call_of(COLL_ALLREDUCE, p, t, op);
            size_t words;
            uint64_t *all = make_set(p, 1, &words), *odd = make_set(p, 2, &words);
            uint64_t none[3] = {0, 0, 0}, one[3] = {0, 0, 1ull << 1}; /* 129 */
            assert_true(data_expect(&c, 4, one, words, false) == data_input(&c, 129, 4));
            assert_true(data_expect(&c, 4, none, words, false) == data_poison(t));
            assert_true(data_expect(&c, 4, all, words, false) == tree_reduce(&c, 4, 0, p));
            uint64_t acc = data_input(&c, 0, 9);
            for (int q = 2; q < p; q += 2)
                acc = data_combine(t, op, acc, data_input(&c, q, 9));
            assert_true(data_expect(&c, 9, odd, words, false) == acc);
            /* final: avg divides by p, the others do not change. */
            uint64_t fin = data_expect(&c, 4, all, words, true);
            double want = data_to_double(t, tree_reduce(&c, 4, 0, p)) / (op == OP_AVG ? p : 1);
            if (dtype_is_float(t))
                assert_true(fabs(data_to_double(t, fin) - want) <= fabs(want) * 0x1p-7);
            else if (op != OP_AVG)
                assert_true(fin == tree_reduce(&c, 4, 0, p));
            free(all);
            free(odd);
        }
}

static void test_fill_expect_matches_expect(void **state)
{
    (void)state;
    unsigned char dst[40 * 8], scratch[40 * 8];
    for (int t = 0; t < DT_COUNT; t++)
        for (int op = 0; op < OP_COUNT; op++)
            for (int fin = 0; fin < 2; fin++) {
                size_t words;
                uint64_t *set = make_set(70, 3, &words);
                CollCall c = call_of(COLL_REDUCE, 70, t, op);
                data_fill_expect(&c, 11, 40, set, words, fin, dst, scratch);
                for (size_t i = 0; i < 40; i++)
                    assert_true(data_load(t, dst, i) ==
                                data_expect(&c, 11 + i, set, words, fin));
                free(set);
            }
}

/* Integer avg: the wrapped sum, then C's truncating division. */
static void test_int_avg(void **state)
{
    (void)state;
    CollCall c = call_of(COLL_ALLREDUCE, 5, DT_INT8, OP_AVG);
    size_t words;
    uint64_t *all = make_set(5, 1, &words);
    for (size_t j = 0; j < NPOS; j++) {
        uint8_t sum = 0;
        for (int q = 0; q < 5; q++)
            sum = (uint8_t)(sum + (uint8_t)data_input(&c, q, j));
        int8_t want = (int8_t)((int8_t)sum / 5);
        assert_true(data_expect(&c, j, all, words, true) == (uint8_t)want);
    }
    free(all);
}

static void test_equal_tolerance(void **state)
{
    (void)state;
    CollCall avg = call_of(COLL_ALLREDUCE, 3, DT_FLOAT, OP_AVG);
    CollCall sum = call_of(COLL_ALLREDUCE, 3, DT_FLOAT, OP_SUM);
    float w = 1.0f / 3, near = nextafterf(w, 1), far = w * (1 + 1e-5f);
    uint32_t uw, un, uf;
    memcpy(&uw, &w, 4), memcpy(&un, &near, 4), memcpy(&uf, &far, 4);
    assert_true(data_equal(&avg, uw, uw, true));
    assert_true(data_equal(&avg, un, uw, true));
    assert_false(data_equal(&avg, uf, uw, true));
    assert_false(data_equal(&avg, un, uw, false)); /* not final: exact */
    assert_false(data_equal(&sum, un, uw, true));  /* not avg: exact */
    CollCall iavg = call_of(COLL_ALLREDUCE, 3, DT_INT32, OP_AVG);
    assert_false(data_equal(&iavg, 5, 6, true));
    CollCall havg = call_of(COLL_ALLREDUCE, 3, DT_HALF, OP_AVG);
    assert_false(data_equal(&havg, data_poison(DT_HALF), 0x3c00, true));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_in_any_order),
        cmocka_unit_test(test_sum_inputs_nonzero),
        cmocka_unit_test(test_inputs_distinguish),
        cmocka_unit_test(test_fill_matches_elements),
        cmocka_unit_test(test_load_store),
        cmocka_unit_test(test_from_double),
        cmocka_unit_test(test_poison),
        cmocka_unit_test(test_expect_follows_sets),
        cmocka_unit_test(test_fill_expect_matches_expect),
        cmocka_unit_test(test_int_avg),
        cmocka_unit_test(test_equal_tolerance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
