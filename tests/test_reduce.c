/* test_reduce.c - reduction kernels against scalar references, the 16-bit
 * float conversions against a reference built from the formats' values
 * (every half and bfloat16, ties, overflow, subnormals), and avg's final
 * division. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/data.h"
#include "core/reduce.h"

/* ------------------------------------------------- 16-bit references */

/* The value of a half or bfloat16 pattern, computed from the definition
 * (sign, biased exponent, fraction) without the code under test. */
static double ref_value(uint16_t h, int expbits, int fracbits)
{
    int bias = (1 << (expbits - 1)) - 1, emax = (1 << expbits) - 1;
    int e = (h >> fracbits) & emax, f = h & ((1 << fracbits) - 1);
    double sign = h >> 15 ? -1.0 : 1.0;
    if (e == emax)
        return f ? NAN : sign * INFINITY;
    if (e == 0)
        return sign * ldexp(f, 1 - bias - fracbits);
    return sign * ldexp(f + (1 << fracbits), e - bias - fracbits);
}

/* Round |x| to the nearest positive pattern (ties to even), by binary
 * search over the positive patterns, which are ordered like their values.
 * The infinity pattern counts as the next power of two, as IEEE 754's
 * overflow rule says. */
static uint16_t ref_round(double x, int expbits, int fracbits)
{
    uint16_t inf = (uint16_t)(((1 << expbits) - 1) << fracbits);
    double top = ldexp(1, (1 << (expbits - 1)));
    uint16_t lo = 0, hi = inf; /* value(lo) <= x < value(hi) */
    if (x >= top)
        return inf;
    while (hi - lo > 1) {
        uint16_t mid = (uint16_t)((lo + hi) / 2);
        if (ref_value(mid, expbits, fracbits) <= x)
            lo = mid;
        else
            hi = mid;
    }
    double vl = ref_value(lo, expbits, fracbits);
    double vh = hi == inf ? top : ref_value(hi, expbits, fracbits);
    if (x - vl < vh - x)
        return lo;
    if (x - vl > vh - x)
        return hi;
    return lo % 2 == 0 ? lo : hi;
}

static uint16_t ref_from_float(float f, int expbits, int fracbits)
{
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    return (uint16_t)(sign | ref_round(fabs((double)f), expbits, fracbits));
}

/* Floats that probe a 16-bit format: every pattern's value, the midpoints
 * between neighbours, and values one float ulp either side of them. */
static void probe_format(int expbits, int fracbits, float (*widen)(uint16_t),
                         uint16_t (*narrow)(float))
{
    uint16_t inf = (uint16_t)(((1 << expbits) - 1) << fracbits);
    for (uint32_t h = 0; h < inf; h++) {
        double v = ref_value((uint16_t)h, expbits, fracbits);
        assert_true(widen((uint16_t)h) == (float)v);
        assert_true(widen((uint16_t)(h | 0x8000)) == (float)-v);
        double next = h + 1 == inf ? ldexp(1, 1 << (expbits - 1))
                                   : ref_value((uint16_t)(h + 1), expbits, fracbits);
        float mid = (float)((v + next) / 2);
        float probes[] = {(float)v, mid, nextafterf(mid, 0), nextafterf(mid, INFINITY),
                          -mid};
        for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
            uint16_t got = narrow(probes[i]);
            uint16_t want = ref_from_float(probes[i], expbits, fracbits);
            if (got != want)
                fail_msg("%.9g -> %#x, want %#x", (double)probes[i], got, want);
        }
    }
}

static void test_half_conversions(void **state)
{
    (void)state;
    probe_format(5, 10, reduce_half_to_float, reduce_float_to_half);
    assert_int_equal(reduce_float_to_half(65520.0f), 0x7c00);   /* tie -> inf */
    assert_int_equal(reduce_float_to_half(65519.0f), 0x7bff);
    assert_int_equal(reduce_float_to_half(1e10f), 0x7c00);
    assert_int_equal(reduce_float_to_half(-INFINITY), 0xfc00);
    assert_true(isnan(reduce_half_to_float(reduce_float_to_half(NAN))));
    assert_true(isinf(reduce_half_to_float(0x7c00)));
    assert_true(isnan(reduce_half_to_float(0x7c01)));
    assert_int_equal(reduce_float_to_half(ldexpf(1, -25)), 0);      /* tie */
    assert_int_equal(reduce_float_to_half(ldexpf(1.5f, -25)), 1);
}

static void test_bf16_conversions(void **state)
{
    (void)state;
    probe_format(8, 7, reduce_bf16_to_float, reduce_float_to_bf16);
    assert_int_equal(reduce_float_to_bf16(3.4e38f), 0x7f80); /* rounds up */
    assert_true(isnan(reduce_bf16_to_float(reduce_float_to_bf16(NAN))));
    /* A NaN whose payload lies only in the low bits stays a NaN. */
    float nan_low;
    uint32_t u = 0x7f800001u;
    memcpy(&nan_low, &u, 4);
    assert_true(isnan(reduce_bf16_to_float(reduce_float_to_bf16(nan_low))));
}

/* ------------------------------------------------------ kernel checks */

static uint64_t rng_state = 0x1234567887654321ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A random element of t as bits: any bits for integers; finite values of
 * mixed magnitude for floats (so sums, products, min and max all vary). */
static uint64_t random_elem(DataType t)
{
    double v = (double)(int64_t)(rnd() % 2001) - 1000;
    v = ldexp(v, (int)(rnd() % 9) - 4);
    return dtype_is_float(t) ? data_from_double(t, (float)v) : rnd();
}

static int64_t sext(uint64_t v, int bits)
{
    uint64_t m = 1ull << (bits - 1);
    v &= bits == 64 ? ~0ull : (1ull << bits) - 1;
    return (int64_t)((v ^ m) - m);
}

/* Integer reference: exact in 64-bit unsigned arithmetic, then wrapped. */
static uint64_t ref_int(RedOp op, uint64_t a, uint64_t b, int bits, int sgn)
{
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    int64_t x = sgn ? sext(a, bits) : (int64_t)(a & mask);
    int64_t y = sgn ? sext(b, bits) : (int64_t)(b & mask);
    uint64_t ux = a & mask, uy = b & mask;
    switch (op) {
    case OP_PROD: return (ux * uy) & mask;
    case OP_MIN: return sgn ? (uint64_t)(x < y ? x : y) & mask : (ux < uy ? ux : uy);
    case OP_MAX: return sgn ? (uint64_t)(x > y ? x : y) & mask : (ux > uy ? ux : uy);
    default: return (ux + uy) & mask;
    }
}

static double ref_op(RedOp op, double a, double b)
{
    switch (op) {
    case OP_PROD: return a * b;
    case OP_MIN: return a < b ? a : b;
    case OP_MAX: return a > b ? a : b;
    default: return a + b;
    }
}

/* Float reference: the op in float (half, bfloat16 and float) or double,
 * rounded to the type by the (separately tested) conversions. */
static uint64_t ref_float(DataType t, RedOp op, uint64_t a, uint64_t b)
{
    float fa, fb;
    uint32_t ua = (uint32_t)a, ub = (uint32_t)b, u;
    double da, db, d;
    switch (t) {
    case DT_HALF:
        return reduce_float_to_half((float)ref_op(op, reduce_half_to_float((uint16_t)a),
                                                  reduce_half_to_float((uint16_t)b)));
    case DT_BFLOAT16:
        return reduce_float_to_bf16((float)ref_op(op, reduce_bf16_to_float((uint16_t)a),
                                                  reduce_bf16_to_float((uint16_t)b)));
    case DT_FLOAT:
        memcpy(&fa, &ua, 4), memcpy(&fb, &ub, 4);
        fa = (float)ref_op(op, fa, fb); /* exact in double, then rounded */
        memcpy(&u, &fa, 4);
        return u;
    default:
        memcpy(&da, &a, 8), memcpy(&db, &b, 8);
        d = ref_op(op, da, db);
        memcpy(&a, &d, 8);
        return a;
    }
}

static uint64_t ref_combine(DataType t, RedOp op, uint64_t a, uint64_t b)
{
    int bits = (int)dtype_size(t) * 8;
    if (dtype_is_float(t))
        return ref_float(t, op, a, b);
    return ref_int(op, a, b, bits, t == DT_INT8 || t == DT_INT32 || t == DT_INT64);
}

static uint64_t load(DataType t, const unsigned char *p, size_t i)
{
    uint64_t v = 0;
    memcpy(&v, p + i * dtype_size(t), dtype_size(t)); /* little endian */
    return v;
}

static void store(DataType t, unsigned char *p, size_t i, uint64_t v)
{
    memcpy(p + i * dtype_size(t), &v, dtype_size(t));
}

/* Check kernel f of (t, op) on arrays a, b for every length in lens. */
static void check_kernel(ReduceFn f, DataType t, RedOp op, const char *which)
{
    enum { N = 200 };
    static unsigned char a[N * 8], b[N * 8], d[N * 8];
    size_t lens[] = {0, 1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 100, N};
    for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
        size_t n = lens[li];
        for (size_t i = 0; i < N; i++) {
            store(t, a, i, random_elem(t));
            store(t, b, i, random_elem(t));
        }
        memcpy(d, a, sizeof d);
        f(d, b, n);
        for (size_t i = 0; i < N; i++) {
            uint64_t want = i < n ? ref_combine(t, op == OP_AVG ? OP_SUM : op,
                                                load(t, a, i), load(t, b, i))
                                  : load(t, a, i);
            if (load(t, d, i) != want)
                fail_msg("%s %s %s n=%zu elem %zu: %#llx, want %#llx", which,
                         dtype_name(t), redop_name(op), n, i,
                         (unsigned long long)load(t, d, i),
                         (unsigned long long)want);
        }
    }
}

/* The three-operand kernel f3 of (t, op): d = a op b for the first n
 * elements, d untouched beyond, a and b unchanged. */
static void check_kernel3(Reduce3Fn f3, DataType t, RedOp op, const char *which)
{
    enum { N = 200 };
    static unsigned char a[N * 8], b[N * 8], d[N * 8], a0[N * 8], b0[N * 8];
    size_t lens[] = {0, 1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 100, N};
    for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
        size_t n = lens[li];
        for (size_t i = 0; i < N; i++) {
            store(t, a, i, random_elem(t));
            store(t, b, i, random_elem(t));
            store(t, d, i, random_elem(t));
        }
        memcpy(a0, a, sizeof a);
        memcpy(b0, b, sizeof b);
        unsigned char before[N * 8];
        memcpy(before, d, sizeof d);
        f3(d, a, b, n);
        assert_memory_equal(a, a0, sizeof a);
        assert_memory_equal(b, b0, sizeof b);
        for (size_t i = 0; i < N; i++) {
            uint64_t want = i < n ? ref_combine(t, op == OP_AVG ? OP_SUM : op,
                                                load(t, a, i), load(t, b, i))
                                  : load(t, before, i);
            if (load(t, d, i) != want)
                fail_msg("%s three-operand %s %s n=%zu elem %zu: %#llx, "
                         "want %#llx", which, dtype_name(t), redop_name(op),
                         n, i, (unsigned long long)load(t, d, i),
                         (unsigned long long)want);
        }
    }
}

/* Every datatype x op x length (the vector body and every tail length):
 * the kernel this processor runs and the portable one equal the scalar
 * reference element for element, and so do the three-operand kernels
 * (where this processor has none, the portable one still exists). */
static void test_kernels(void **state)
{
    (void)state;
    for (int t = 0; t < DT_COUNT; t++)
        for (int op = 0; op < OP_COUNT; op++) {
            check_kernel(reduce_fn(t, op), t, op, "fastest");
            check_kernel(reduce_fn_portable(t, op), t, op, "portable");
            Reduce3Fn f3 = reduce3_fn(t, op);
            if (f3)
                check_kernel3(f3, t, op, "fastest");
            else
                assert_int_equal(t, DT_HALF); /* F16C's two-operand wins */
            assert_non_null(reduce3_fn_portable(t, op));
            check_kernel3(reduce3_fn_portable(t, op), t, op, "portable");
        }
}

/* Signed integers wrap instead of overflowing (UBSan watches this). */
static void test_signed_wrap(void **state)
{
    (void)state;
    int32_t x[2] = {INT32_MAX, INT32_MIN}, y[2] = {1, -1};
    reduce_apply(DT_INT32, OP_SUM, x, y, 2);
    assert_int_equal(x[0], INT32_MIN);
    assert_int_equal(x[1], INT32_MAX);
    int64_t p[1] = {INT64_MAX}, q[1] = {3};
    reduce_apply(DT_INT64, OP_PROD, p, q, 1);
    assert_true(p[0] == (int64_t)((uint64_t)INT64_MAX * 3u));
    int8_t c[1] = {-128}, e[1] = {-1};
    reduce_apply(DT_INT8, OP_PROD, c, e, 1);
    assert_int_equal(c[0], -128);
}

/* ------------------------------------------------------------- avg */

static void test_finish_integers(void **state)
{
    (void)state;
    for (int p = 1; p <= COLL_MAX_RANKS; p += p < 20 ? 1 : 97) {
        int32_t v[6] = {7, -7, INT32_MAX, INT32_MIN, 0, -1};
        int32_t w[6];
        memcpy(w, v, sizeof v);
        assert_int_equal(reduce_finish(DT_INT32, OP_AVG, w, 6, p), CV_OK);
        for (int i = 0; i < 6; i++)
            assert_int_equal(w[i], v[i] / p); /* C truncates toward zero */
        uint32_t u[3] = {UINT32_MAX, 5, UINT32_MAX - 1};
        uint32_t uw[3];
        memcpy(uw, u, sizeof u);
        reduce_finish(DT_UINT32, OP_AVG, uw, 3, p);
        for (int i = 0; i < 3; i++)
            assert_int_equal(uw[i], u[i] / (uint32_t)p);
        int64_t l[2] = {INT64_MIN, INT64_MAX - 3};
        int64_t lw[2];
        memcpy(lw, l, sizeof l);
        reduce_finish(DT_INT64, OP_AVG, lw, 2, p);
        assert_true(lw[0] == l[0] / p && lw[1] == l[1] / p);
        int8_t s[2] = {-128, 127};
        reduce_finish(DT_INT8, OP_AVG, s, 2, p);
        assert_true(s[0] == -128 / p && s[1] == 127 / p);
    }
}

/* Check v / p for int32 and uint32 against C's integer division. */
static void check_quotient(int64_t v, int p)
{
    if (v < INT32_MIN || v > INT32_MAX)
        return;
    int32_t x = (int32_t)v;
    reduce_finish(DT_INT32, OP_AVG, &x, 1, p);
    assert_int_equal(x, (int32_t)v / p);
    uint32_t ux = (uint32_t)v;
    reduce_finish(DT_UINT32, OP_AVG, &ux, 1, p);
    assert_int_equal(ux, (uint32_t)v / (uint32_t)p);
}

/* Values at and next to multiples of p, where a quotient rounded the wrong
 * way would show (a multiply by 1/p fails here), for every p: the largest
 * magnitudes (where rounding errors are largest) and a sweep between. */
static void test_finish_int_near_multiples(void **state)
{
    (void)state;
    for (int p = 1; p <= COLL_MAX_RANKS; p++) {
        int64_t top = (int64_t)INT32_MAX / p, bottom = (int64_t)INT32_MIN / p;
        for (int64_t k = 0; k < 64; k++)
            for (int d = -1; d <= 1; d++) {
                check_quotient((top - k) * p + d, p);
                check_quotient((bottom + k) * p + d, p);
                check_quotient((int64_t)UINT32_MAX - k * p - d, p);
            }
        for (int64_t k = bottom; k <= top; k += 1 + (top - bottom) / 512)
            for (int d = -1; d <= 1; d++)
                check_quotient(k * p + d, p);
    }
}

static void test_finish_floats(void **state)
{
    (void)state;
    float f[3] = {10, -3, 1e-3f};
    reduce_finish(DT_FLOAT, OP_AVG, f, 3, 4);
    assert_true(f[0] == 2.5f && f[1] == -0.75f && f[2] == 1e-3f / 4);
    double g[1] = {1};
    reduce_finish(DT_DOUBLE, OP_AVG, g, 1, 3);
    assert_true(g[0] == 1.0 / 3);
    uint16_t h[1] = {reduce_float_to_half(6)};
    reduce_finish(DT_HALF, OP_AVG, h, 1, 4);
    assert_true(reduce_half_to_float(h[0]) == 1.5f);
    uint16_t b[1] = {reduce_float_to_bf16(1)};
    reduce_finish(DT_BFLOAT16, OP_AVG, b, 1, 3);
    assert_int_equal(b[0], reduce_float_to_bf16(1.0f / 3));
    /* Ops other than avg leave the buffer alone. */
    for (int op = 0; op < OP_COUNT; op++) {
        float v[1] = {8};
        reduce_finish(DT_FLOAT, op, v, 1, 2);
        assert_true(v[0] == (op == OP_AVG ? 4 : 8));
    }
}

static void test_bad_arguments(void **state)
{
    (void)state;
    int32_t x[1] = {0};
    assert_null(reduce_fn(DT_COUNT, OP_SUM));
    assert_null(reduce_fn(DT_INT32, OP_COUNT));
    assert_null(reduce_fn_portable(DT_COUNT, OP_SUM));
    assert_null(reduce3_fn(DT_COUNT, OP_SUM));
    assert_null(reduce3_fn(DT_INT32, OP_COUNT));
    assert_null(reduce3_fn_portable(DT_INT32, OP_COUNT));
    assert_non_null(reduce_fn(DT_INT32, OP_AVG));
    assert_int_equal(reduce_apply(DT_COUNT, OP_SUM, x, x, 1), CV_ERR_ARG);
    assert_int_equal(reduce_finish(DT_INT32, OP_AVG, x, 1, 0), CV_ERR_ARG);
    assert_int_equal(reduce_finish(DT_INT32, OP_AVG, x, 1, COLL_MAX_RANKS + 1),
                     CV_ERR_ARG);
    assert_int_equal(reduce_finish((DataType)-1, OP_AVG, x, 1, 2), CV_ERR_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_half_conversions),
        cmocka_unit_test(test_bf16_conversions),
        cmocka_unit_test(test_kernels),
        cmocka_unit_test(test_signed_wrap),
        cmocka_unit_test(test_finish_integers),
        cmocka_unit_test(test_finish_int_near_multiples),
        cmocka_unit_test(test_finish_floats),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
