/* data.c - verifiable inputs and expected values. */
#include "core/data.h"

#include <math.h>
#include <string.h>

#include "core/reduce.h"

/* ------------------------------------------------------- bit patterns */

uint64_t data_load(DataType t, const void *buf, size_t i)
{
    const unsigned char *p = (const unsigned char *)buf + i * dtype_size(t);
    uint8_t b1;
    uint16_t b2;
    uint32_t b4;
    uint64_t b8 = 0;
    switch (dtype_size(t)) {
    case 1: memcpy(&b1, p, 1); return b1;
    case 2: memcpy(&b2, p, 2); return b2;
    case 4: memcpy(&b4, p, 4); return b4;
    case 8: memcpy(&b8, p, 8); return b8;
    default: return 0;
    }
}

void data_store(DataType t, void *buf, size_t i, uint64_t bits)
{
    unsigned char *p = (unsigned char *)buf + i * dtype_size(t);
    uint8_t b1 = (uint8_t)bits;
    uint16_t b2 = (uint16_t)bits;
    uint32_t b4 = (uint32_t)bits;
    switch (dtype_size(t)) {
    case 1: memcpy(p, &b1, 1); break;
    case 2: memcpy(p, &b2, 2); break;
    case 4: memcpy(p, &b4, 4); break;
    case 8: memcpy(p, &bits, 8); break;
    default: break;
    }
}

/* Bits of t kept from a uint64_t. */
static uint64_t low_bits(DataType t, uint64_t v)
{
    size_t n = dtype_size(t);
    return n >= 8 ? v : v & ((1ull << (8 * n)) - 1);
}

uint64_t data_from_double(DataType t, double v)
{
    float f = (float)v;
    uint32_t u;
    uint64_t w;
    switch (t) {
    case DT_HALF: return reduce_float_to_half(f);
    case DT_BFLOAT16: return reduce_float_to_bf16(f);
    case DT_FLOAT: memcpy(&u, &f, 4); return u;
    case DT_DOUBLE: memcpy(&w, &v, 8); return w;
    case DT_INT8:
    case DT_UINT8:
    case DT_INT32:
    case DT_UINT32:
    case DT_INT64:
    case DT_UINT64:
    case DT_COUNT: break;
    }
    if (!(v > -0x1p63)) /* NaN too */
        return low_bits(t, (uint64_t)INT64_MIN);
    if (v >= 0x1p64)
        return low_bits(t, UINT64_MAX);
    return low_bits(t, v < 0 ? (uint64_t)(int64_t)v : (uint64_t)v);
}

double data_to_double(DataType t, uint64_t bits)
{
    float f;
    uint32_t u = (uint32_t)bits;
    double d;
    switch (t) {
    case DT_INT8: return (int8_t)bits;
    case DT_UINT8: return (uint8_t)bits;
    case DT_INT32: return (int32_t)bits;
    case DT_UINT32: return (uint32_t)bits;
    case DT_INT64: return (double)(int64_t)bits;
    case DT_UINT64: return (double)bits;
    case DT_HALF: return reduce_half_to_float((uint16_t)bits);
    case DT_BFLOAT16: return reduce_bf16_to_float((uint16_t)bits);
    case DT_FLOAT: memcpy(&f, &u, 4); return f;
    case DT_DOUBLE: memcpy(&d, &bits, 8); return d;
    case DT_COUNT: break;
    }
    return 0;
}

/* Significand bits (implicit bit included) of a floating-point type. */
static int sig_bits(DataType t)
{
    switch (t) {
    case DT_HALF: return 11;
    case DT_BFLOAT16: return 8;
    case DT_FLOAT: return 24;
    case DT_INT8:
    case DT_UINT8:
    case DT_INT32:
    case DT_UINT32:
    case DT_INT64:
    case DT_UINT64:
    case DT_DOUBLE:
    case DT_COUNT: break;
    }
    return 53;
}

/* The largest power of two k with 2^k finite in t (products of 2s). */
static int max_exp(DataType t)
{
    return t == DT_HALF ? 15 : t == DT_DOUBLE ? 1023 : 127;
}

/* ------------------------------------------------------------- inputs */

/* How inputs of one call are drawn. */
typedef enum {
    GEN_INT,    /* integers: any bits (odd for prod: products stay odd) */
    GEN_SUM,    /* floats: 1 .. mask + 1, or sparse 0/1 (sum, avg) */
    GEN_PROD,   /* floats: +-1 or +-2, a 2 at every stride-th rank */
    GEN_WIDE,   /* floats: integers in [-mask/2 - 1, mask/2] (copies,
                   min, max) */
    GEN_COUNT
} GenKind;

/* Parameters of the inputs of one call. */
typedef struct {
    GenKind kind;   /* how values are drawn */
    DataType t;     /* element type */
    uint64_t orbit; /* GEN_INT: bits or-ed in (1 for prod) */
    uint64_t mask;  /* GEN_SUM, GEN_WIDE: random bits kept */
    uint64_t every; /* GEN_SUM sparse, GEN_PROD: stride mask (2^k - 1);
                       GEN_SUM dense: 0 */
    uint64_t bits[17]; /* GEN_SUM: bits of the values 0 .. 16; GEN_PROD:
                          bits of 1, -1, 2, -2 */
} Gen;

static uint64_t pow2_ceil(uint64_t x)
{
    uint64_t q = 1;
    while (q < x)
        q *= 2;
    return q;
}

static uint64_t pow2_floor(uint64_t x)
{
    uint64_t q = 1;
    while (q * 2 <= x)
        q *= 2;
    return q;
}

/* Sums: every partial sum over any subset stays <= 2^sig, so it is exact:
 * values 1 .. m with m p <= 2^sig, or (bfloat16 beyond 256 ranks) 0/1
 * with at most 2^sig ones per position. */
static void gen_sum(Gen *g, uint64_t p, uint64_t room)
{
    uint64_t m = room / p;
    g->kind = GEN_SUM;
    if (m >= 1) {
        g->mask = pow2_floor(m < 16 ? m : 16) - 1;
        g->every = 0;
    } else {
        g->mask = 0;
        g->every = pow2_ceil((p + room - 1) / room) - 1;
    }
}

static void gen_init(const CollCall *c, Gen *g)
{
    uint64_t p = (uint64_t)(c->nranks > 0 ? c->nranks : 1);
    bool red = coll_is_reducing(c->kind);
    *g = (Gen){.kind = GEN_WIDE, .t = c->dtype};
    if (!dtype_is_float(c->dtype)) {
        g->kind = GEN_INT;
        g->orbit = red && c->op == OP_PROD;
        return;
    }
    uint64_t room = 1ull << sig_bits(c->dtype);
    if (red && (c->op == OP_SUM || c->op == OP_AVG)) {
        gen_sum(g, p, room);
        for (int v = 0; v <= 16; v++)
            g->bits[v] = data_from_double(c->dtype, v);
    } else if (red && c->op == OP_PROD) {
        uint64_t e = (uint64_t)max_exp(c->dtype), s = (p + e - 1) / e;
        g->kind = GEN_PROD;
        g->every = pow2_ceil(s < 2 ? 2 : s) - 1;
        for (int v = 0; v < 4; v++)
            g->bits[v] = data_from_double(c->dtype, (v / 2 + 1) * (v % 2 ? -1 : 1));
    } else {
        uint64_t half = room / 2 < (1u << 20) ? room / 2 : (1u << 20);
        g->mask = 2 * half - 1;
    }
}

/* A well-mixed 64-bit hash of (q, j). */
static uint64_t mix(int q, size_t j)
{
    uint64_t x = (uint64_t)j * 0x9E3779B97F4A7C15ull +
                 ((uint64_t)q + 1) * 0xD1B54A32D192ED03ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return x;
}

static inline uint64_t gen_value(const Gen *g, int q, size_t j)
{
    uint64_t h = mix(q, j);
    bool hit = (((uint64_t)q + j) & g->every) == 0;
    switch (g->kind) {
    case GEN_INT: return h | g->orbit;
    case GEN_SUM: return g->bits[g->every ? hit : 1 + (h & g->mask)];
    case GEN_PROD: return g->bits[2 * hit + ((h >> 40) & 1)];
    case GEN_WIDE:
    case GEN_COUNT: break;
    }
    return data_from_double(g->t, (double)(int64_t)(h & g->mask) -
                                      (double)(g->mask / 2) - 1);
}

uint64_t data_input(const CollCall *c, int q, size_t j)
{
    Gen g;
    gen_init(c, &g);
    return low_bits(c->dtype, gen_value(&g, q, j));
}

/* dst[i] = gen_value(j0 + i) as elements of type T. */
#define FILL(T, g, q, j0, n, dst)                                             \
    do {                                                                      \
        T *d_ = (dst);                                                        \
        for (size_t i_ = 0; i_ < (n); i_++)                                   \
            d_[i_] = (T)gen_value((g), (q), (j0) + i_);                       \
    } while (0)

void data_fill_input(const CollCall *c, int q, size_t j0, size_t n,
                     void *dst)
{
    Gen g;
    gen_init(c, &g);
    switch (dtype_size(c->dtype)) {
    case 1: FILL(uint8_t, &g, q, j0, n, dst); break;
    case 2: FILL(uint16_t, &g, q, j0, n, dst); break;
    case 4: FILL(uint32_t, &g, q, j0, n, dst); break;
    default: FILL(uint64_t, &g, q, j0, n, dst); break;
    }
}

/* ------------------------------------------------------------- poison */

uint64_t data_poison(DataType t)
{
    switch (t) {
    case DT_HALF: return 0x7e5a;
    case DT_BFLOAT16: return 0x7fa5;
    case DT_FLOAT: return 0x7fa5a5a5;
    case DT_DOUBLE: return 0x7ffa5a5a5a5a5a5aull;
    case DT_INT8:
    case DT_UINT8:
    case DT_INT32:
    case DT_UINT32:
    case DT_INT64:
    case DT_UINT64:
    case DT_COUNT: break;
    }
    return low_bits(t, 0xa5a5a5a5a5a5a5a5ull);
}

/* One element stored, then the filled part copied onto the rest, doubling
 * (a backend's reset poisons every buffer: 256 MB at a time in a
 * calibration, where an element at a time took most of its time). */
void data_fill_poison(DataType t, void *dst, size_t n)
{
    size_t es = dtype_size(t);
    if (!n)
        return;
    data_store(t, dst, 0, data_poison(t));
    for (size_t done = 1; done < n;) {
        size_t k = done < n - done ? done : n - done;
        memcpy((char *)dst + done * es, dst, k * es);
        done += k;
    }
}

/* ----------------------------------------------------------- expected */

uint64_t data_combine(DataType t, RedOp op, uint64_t a, uint64_t b)
{
    uint64_t x = 0, y = 0;
    data_store(t, &x, 0, a);
    data_store(t, &y, 0, b);
    reduce_apply(t, op, &x, &y, 1);
    return data_load(t, &x, 0);
}

/* Whether the final avg division applies to call c. */
static bool avg_applies(const CollCall *c, bool final)
{
    return final && c->op == OP_AVG && coll_is_reducing(c->kind);
}

uint64_t data_expect(const CollCall *c, size_t pos, const uint64_t *set,
                     size_t words, bool final)
{
    uint64_t v = 0, scratch = 0;
    data_fill_expect(c, pos, 1, set, words, final, &v, &scratch);
    return data_load(c->dtype, &v, 0);
}

void data_fill_expect(const CollCall *c, size_t pos, size_t n,
                      const uint64_t *set, size_t words, bool final,
                      void *dst, void *scratch)
{
    bool first = true;
    for (size_t w = 0; w < words; w++) {
        for (uint64_t bits = set[w]; bits; bits &= bits - 1) {
            int q = (int)(w * 64) + __builtin_ctzll(bits);
            data_fill_input(c, q, pos, n, first ? dst : scratch);
            if (!first)
                reduce_apply(c->dtype, c->op, dst, scratch, n);
            first = false;
        }
    }
    if (first)
        data_fill_poison(c->dtype, dst, n);
    else if (avg_applies(c, final))
        reduce_finish(c->dtype, OP_AVG, dst, n, c->nranks);
}

bool data_equal(const CollCall *c, uint64_t got, uint64_t want, bool final)
{
    if (got == want)
        return true;
    if (!avg_applies(c, final) || !dtype_is_float(c->dtype))
        return false;
    double g = data_to_double(c->dtype, got), w = data_to_double(c->dtype, want);
    return fabs(g - w) <= ldexp(fabs(w), 1 - sig_bits(c->dtype));
}
