/* reduce.c - reduction kernels for every datatype and op.
 *
 * Every kernel is one loop over restrict-qualified arrays whose body has no
 * branches (selects only), so gcc and clang vectorise all of them at -O2,
 * the 16-bit float conversions included. */
#include "core/reduce.h"

#include <string.h>

/* ------------------------------------------------------- bit punning */

static inline uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* c ? a : b with c in {0, 1}, as bit masks: written as a select, gcc turns
 * a choice between floating-point results into a branch (the operation
 * might trap), and a branch stops vectorisation. */
static inline uint32_t pick(uint32_t c, uint32_t a, uint32_t b)
{
    uint32_t m = 0u - c;
    return (a & m) | (b & ~m);
}

/* ---------------------------------------------- 16-bit float formats */

#define F32_INF 0x7f800000u
#define H_EXP_AT_F32 (0x7c00u << 13) /* half's exponent field, shifted */

/* half -> float, exact (normals, subnormals, zeros, infinities, NaNs). */
static inline float h2f(uint16_t h)
{
    uint32_t em = (uint32_t)(h & 0x7fffu) << 13;
    uint32_t exp = em & H_EXP_AT_F32;
    uint32_t o = em + ((127u - 15u) << 23);
    o += exp == H_EXP_AT_F32 ? (128u - 16u) << 23 : 0; /* inf, NaN */
    /* Subnormal or zero: let a float subtraction renormalise it. */
    uint32_t sub = f2u(u2f(o + (1u << 23)) - u2f(113u << 23));
    o = pick(exp == 0, sub, o);
    return u2f(o | (uint32_t)(h & 0x8000u) << 16);
}

/* float -> half, round to nearest even; overflow gives infinity. */
static inline uint16_t f2h(float f)
{
    uint32_t u = f2u(f), sign = u & 0x80000000u;
    u ^= sign;
    uint32_t big = u > F32_INF ? 0x7e00u : 0x7c00u; /* NaN : inf */
    /* Half subnormals: adding 0.5 aligns the 10 mantissa bits at the
     * bottom, and the float addition rounds to nearest even for us. */
    float magic = u2f(126u << 23);
    uint32_t sub = f2u(u2f(u) + magic) - f2u(magic);
    uint32_t odd = (u >> 13) & 1u;
    uint32_t nrm = (u + ((uint32_t)(15 - 127) << 23) + 0xfffu + odd) >> 13;
    uint32_t o = pick(u >= (143u << 23), big, pick(u < (113u << 23), sub, nrm));
    return (uint16_t)(o | sign >> 16);
}

static inline float b2f(uint16_t b) { return u2f((uint32_t)b << 16); }

/* float -> bfloat16, round to nearest even; NaNs stay quiet NaNs. */
static inline uint16_t f2b(float f)
{
    uint32_t u = f2u(f);
    uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    uint32_t nan = (u >> 16) | 0x40u;
    return (uint16_t)((u & 0x7fffffffu) > F32_INF ? nan : r);
}

float reduce_half_to_float(uint16_t h) { return h2f(h); }
uint16_t reduce_float_to_half(float f) { return f2h(f); }
float reduce_bf16_to_float(uint16_t h) { return b2f(h); }
uint16_t reduce_float_to_bf16(float f) { return f2b(f); }

/* ------------------------------------------------------------ kernels */

/* Elements per inner block. gcc's -O2 cost model vectorises only loops
 * whose trip count is a known multiple of the vector length, so the body
 * runs over fixed blocks of VBLOCK (vectorised) and then the tail. */
#define VBLOCK 32

/* A kernel over elements of type T: d[i] = EXPR(a = d[i], b = s[i]),
 * compiled with the function attributes ATTR (empty: the baseline ISA),
 * and its three-operand twin name##3: d[i] = EXPR(a = x[i], b = s[i]). */
#define KERNEL_ATTR(name, ATTR, T, EXPR)                                      \
    ATTR static void name##_at(T *restrict d, const T *restrict s, size_t n)  \
    {                                                                         \
        for (size_t i = 0; i < n; i++) {                                      \
            T a = d[i], b = s[i];                                             \
            d[i] = (EXPR);                                                    \
        }                                                                     \
    }                                                                         \
    ATTR static void name(void *restrict dv, const void *restrict sv,         \
                          size_t n)                                           \
    {                                                                         \
        T *restrict d = dv;                                                   \
        const T *restrict s = sv;                                             \
        size_t i = 0;                                                         \
        for (; n - i >= VBLOCK; i += VBLOCK)                                  \
            name##_at(d + i, s + i, VBLOCK);                                  \
        name##_at(d + i, s + i, n - i);                                       \
    }                                                                         \
    ATTR static void name##_at3(T *restrict d, const T *restrict x,           \
                                const T *restrict s, size_t n)                \
    {                                                                         \
        for (size_t i = 0; i < n; i++) {                                      \
            T a = x[i], b = s[i];                                             \
            d[i] = (EXPR);                                                    \
        }                                                                     \
    }                                                                         \
    ATTR static void name##3(void *restrict dv, const void *restrict xv,      \
                             const void *restrict sv, size_t n)               \
    {                                                                         \
        T *restrict d = dv;                                                   \
        const T *restrict x = xv, *restrict s = sv;                           \
        size_t i = 0;                                                         \
        for (; n - i >= VBLOCK; i += VBLOCK)                                  \
            name##_at3(d + i, x + i, s + i, VBLOCK);                          \
        name##_at3(d + i, x + i, s + i, n - i);                               \
    }

#define KERNEL(name, T, EXPR) KERNEL_ATTR(name, , T, EXPR)

/* Integers: sums and products in the unsigned type U (wrap, never UB). */
#define INT_KERNELS(tag, T, U)                                                \
    KERNEL(tag##_sum, T, (T)(U)((U)a + (U)b))                                 \
    KERNEL(tag##_prod, T, (T)(U)((U)a * (U)b))                                \
    KERNEL(tag##_min, T, a < b ? a : b)                                       \
    KERNEL(tag##_max, T, a > b ? a : b)

#define FLOAT_KERNELS(tag, T)                                                 \
    KERNEL(tag##_sum, T, a + b)                                               \
    KERNEL(tag##_prod, T, a * b)                                              \
    KERNEL(tag##_min, T, a < b ? a : b)                                       \
    KERNEL(tag##_max, T, a > b ? a : b)

/* 16-bit floats: widen with IN, combine in float, narrow with OUT. */
#define SHORT_FLOAT_KERNELS_ATTR(tag, ATTR, IN, OUT)                          \
    KERNEL_ATTR(tag##_sum, ATTR, uint16_t, OUT(IN(a) + IN(b)))                \
    KERNEL_ATTR(tag##_prod, ATTR, uint16_t, OUT(IN(a) * IN(b)))               \
    KERNEL_ATTR(tag##_min, ATTR, uint16_t, IN(a) < IN(b) ? a : b)             \
    KERNEL_ATTR(tag##_max, ATTR, uint16_t, IN(a) > IN(b) ? a : b)

#define SHORT_FLOAT_KERNELS(tag, IN, OUT) SHORT_FLOAT_KERNELS_ATTR(tag, , IN, OUT)

INT_KERNELS(i8, int8_t, uint8_t)
INT_KERNELS(u8, uint8_t, uint8_t)
INT_KERNELS(i32, int32_t, uint32_t)
INT_KERNELS(u32, uint32_t, uint32_t)
INT_KERNELS(i64, int64_t, uint64_t)
INT_KERNELS(u64, uint64_t, uint64_t)
SHORT_FLOAT_KERNELS(f16, h2f, f2h)
SHORT_FLOAT_KERNELS(bf16, b2f, f2b)
FLOAT_KERNELS(f32, float)
FLOAT_KERNELS(f64, double)

/* One row of the table; avg reduces as sum. */
#define ROW(tag)                                                              \
    {                                                                         \
        [OP_SUM] = tag##_sum, [OP_PROD] = tag##_prod, [OP_MIN] = tag##_min,   \
        [OP_MAX] = tag##_max, [OP_AVG] = tag##_sum,                           \
    }

static const ReduceFn kernels[DT_COUNT][OP_COUNT] = {
    [DT_INT8] = ROW(i8),     [DT_UINT8] = ROW(u8),   [DT_INT32] = ROW(i32),
    [DT_UINT32] = ROW(u32),  [DT_INT64] = ROW(i64),  [DT_UINT64] = ROW(u64),
    [DT_HALF] = ROW(f16),    [DT_BFLOAT16] = ROW(bf16),
    [DT_FLOAT] = ROW(f32),   [DT_DOUBLE] = ROW(f64),
};

#define ROW3(tag)                                                             \
    {                                                                         \
        [OP_SUM] = tag##_sum3, [OP_PROD] = tag##_prod3,                       \
        [OP_MIN] = tag##_min3, [OP_MAX] = tag##_max3, [OP_AVG] = tag##_sum3,  \
    }

static const Reduce3Fn kernels3[DT_COUNT][OP_COUNT] = {
    [DT_INT8] = ROW3(i8),    [DT_UINT8] = ROW3(u8),  [DT_INT32] = ROW3(i32),
    [DT_UINT32] = ROW3(u32), [DT_INT64] = ROW3(i64), [DT_UINT64] = ROW3(u64),
    [DT_HALF] = ROW3(f16),   [DT_BFLOAT16] = ROW3(bf16),
    [DT_FLOAT] = ROW3(f32),  [DT_DOUBLE] = ROW3(f64),
};

/* ------------------------------------------------- x86 fast paths */

/* The 16-bit float kernels are bound by their conversions (about 1 GB/s
 * for half, 4 GB/s for bfloat16 with the baseline's SSE2). On x86 with
 * AVX2 the same code compiled for AVX2 doubles bfloat16, and half uses
 * the F16C conversion instructions (vcvtph2ps, vcvtps2ph with round to
 * nearest even), which every AVX2 processor has (Intel since Ivy Bridge,
 * AMD since Piledriver); both then run at memory speed. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define X86_AVX2 __attribute__((target("avx2,f16c")))

SHORT_FLOAT_KERNELS_ATTR(bf16_avx2, X86_AVX2, b2f, f2b)

/* half: 8 elements per F16C conversion, then the portable tail. */
#define F16C_KERNEL(name, VOP, tail)                                          \
    X86_AVX2 static void name(void *restrict dv, const void *restrict sv,     \
                              size_t n)                                       \
    {                                                                         \
        uint16_t *d = dv;                                                     \
        const uint16_t *s = sv;                                               \
        size_t i = 0;                                                         \
        for (; n - i >= 8; i += 8) {                                          \
            __m256 a = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(d + i))); \
            __m256 b = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + i))); \
            _mm_storeu_si128((__m128i *)(d + i),                              \
                             _mm256_cvtps_ph(VOP(a, b), _MM_FROUND_TO_NEAREST_INT)); \
        }                                                                     \
        tail(d + i, s + i, n - i);                                            \
    }

/* _mm256_min_ps(a, b) is a < b ? a : b, like the portable kernels. */
F16C_KERNEL(f16c_sum, _mm256_add_ps, f16_sum_at)
F16C_KERNEL(f16c_prod, _mm256_mul_ps, f16_prod_at)
F16C_KERNEL(f16c_min, _mm256_min_ps, f16_min_at)
F16C_KERNEL(f16c_max, _mm256_max_ps, f16_max_at)

static const ReduceFn x86_kernels[DT_COUNT][OP_COUNT] = {
    [DT_HALF] = ROW(f16c),
    [DT_BFLOAT16] = ROW(bf16_avx2),
};

/* No three-operand half kernel: reduce3_fn says so (NULL), and callers
 * use the two-operand F16C one, which is faster than the portable. */
static const Reduce3Fn x86_kernels3[DT_COUNT][OP_COUNT] = {
    [DT_BFLOAT16] = ROW3(bf16_avx2),
};

static ReduceFn x86_fn(DataType t, RedOp op)
{
    return __builtin_cpu_supports("avx2") ? x86_kernels[t][op] : NULL;
}

/* The three-operand twin of x86_fn's kernel (call only when it has one). */
static Reduce3Fn x86_fn3(DataType t, RedOp op)
{
    return x86_kernels3[t][op];
}
#else
static ReduceFn x86_fn(DataType t, RedOp op)
{
    (void)t, (void)op;
    return NULL;
}

static Reduce3Fn x86_fn3(DataType t, RedOp op)
{
    (void)t, (void)op;
    return NULL;
}
#endif

/* Whether (t, op) names a type and an op (the tables' bounds). */
static bool known(DataType t, RedOp op)
{
    return (unsigned)t < DT_COUNT && (unsigned)op < OP_COUNT;
}

ReduceFn reduce_fn_portable(DataType t, RedOp op)
{
    return known(t, op) ? kernels[t][op] : NULL;
}

ReduceFn reduce_fn(DataType t, RedOp op)
{
    if (!known(t, op))
        return NULL;
    ReduceFn fast = x86_fn(t, op);
    return fast ? fast : kernels[t][op];
}

Reduce3Fn reduce3_fn_portable(DataType t, RedOp op)
{
    return known(t, op) ? kernels3[t][op] : NULL;
}

Reduce3Fn reduce3_fn(DataType t, RedOp op)
{
    if (!known(t, op))
        return NULL;
    /* Where a faster two-operand kernel runs, its twin or none. */
    return x86_fn(t, op) ? x86_fn3(t, op) : kernels3[t][op];
}

/* The block a fused reduce without a three-operand kernel copies and
 * reduces at a time: small enough to stay in the first-level cache. */
#define FUSE_BLOCK ((size_t)8 << 10)

void reduce_from(ReduceFn red, Reduce3Fn red3, void *dst, const void *init,
                 const void *src, size_t n, size_t es)
{
    if (red3) {
        red3(dst, init, src, n);
        return;
    }
    unsigned char *d = dst;
    const unsigned char *a = init, *b = src;
    size_t per = FUSE_BLOCK / es;
    for (size_t i = 0; i < n; i += per) {
        size_t m = n - i < per ? n - i : per;
        memcpy(d + i * es, a + i * es, m * es);
        red(d + i * es, b + i * es, m);
    }
}

CvError reduce_apply(DataType t, RedOp op, void *dst, const void *src,
                     size_t n)
{
    ReduceFn f = reduce_fn(t, op);
    if (!f)
        return CV_ERR_ARG;
    if (n)
        f(dst, src, n);
    return CV_OK;
}

/* -------------------------------------------------------- avg scaling */

/* d[i] = EXPR(a = d[i]) with the rank count p in scope; blocked as
 * KERNEL is. */
#define SCALER(name, T, EXPR)                                                 \
    static void name##_at(T *restrict d, size_t n, int p)                     \
    {                                                                         \
        for (size_t i = 0; i < n; i++) {                                      \
            T a = d[i];                                                       \
            d[i] = (EXPR);                                                    \
        }                                                                     \
    }                                                                         \
    static void name(void *dv, size_t n, int p)                               \
    {                                                                         \
        T *d = dv;                                                            \
        size_t i = 0;                                                         \
        for (; n - i >= VBLOCK; i += VBLOCK)                                  \
            name##_at(d + i, VBLOCK, p);                                      \
        name##_at(d + i, n - i, p);                                           \
    }

/* Up to 32 bits a double quotient truncates exactly like integer division
 * (|a| < 2^32, p <= 2^10: a quotient just below an integer stays below it)
 * and, unlike an integer division, it vectorises. */
SCALER(i8_avg, int8_t, (int8_t)((double)a / p))
SCALER(u8_avg, uint8_t, (uint8_t)((double)a / p))
SCALER(i32_avg, int32_t, (int32_t)((double)a / p))
SCALER(u32_avg, uint32_t, (uint32_t)((double)a / p))
SCALER(i64_avg, int64_t, a / (int64_t)p)
SCALER(u64_avg, uint64_t, a / (uint64_t)p)
SCALER(f16_avg, uint16_t, f2h(h2f(a) / (float)p))
SCALER(bf16_avg, uint16_t, f2b(b2f(a) / (float)p))
SCALER(f32_avg, float, a / (float)p)
SCALER(f64_avg, double, a / p)

typedef void (*ScaleFn)(void *buf, size_t n, int p);

static const ScaleFn avg_scalers[DT_COUNT] = {
    [DT_INT8] = i8_avg,    [DT_UINT8] = u8_avg,       [DT_INT32] = i32_avg,
    [DT_UINT32] = u32_avg, [DT_INT64] = i64_avg,      [DT_UINT64] = u64_avg,
    [DT_HALF] = f16_avg,   [DT_BFLOAT16] = bf16_avg,  [DT_FLOAT] = f32_avg,
    [DT_DOUBLE] = f64_avg,
};

CvError reduce_finish(DataType t, RedOp op, void *buf, size_t n, int nranks)
{
    if (!known(t, op) || nranks < 1 ||
        nranks > COLL_MAX_RANKS)
        return CV_ERR_ARG;
    if (op == OP_AVG && n)
        avg_scalers[t](buf, n, nranks);
    return CV_OK;
}
