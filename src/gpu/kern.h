/* kern.h - what one launch of the step kernel does, shared by the CUDA
 * kernel (kernels.cu, compiled for the device by nvcc or clang) and any
 * host that runs the same plan (the test suite's driver): the format of a
 * plan (KChunk) and the code that performs one chunk of it.
 *
 * A plan is an array of chunks in device memory; the kernel gives each
 * block of threads chunks in turn (chunk c to block c mod the grid), and
 * the threads of a block share its elements (thread t takes t, t + nt,
 * ...). kern_chunk is that share: a host runs a whole chunk as thread 0
 * of 1. Reductions are those of src/core/reduce.c written for both sides
 * (integers wrap in their unsigned type, half and bfloat16 go through
 * float rounded to nearest even, by hand on the host and by the
 * hardware's cvt on the device, avg divides as reduce_finish does), so
 * results match the threads backend bit for bit.
 *
 * Plain C that is also CUDA C++: no includes, no library calls, no
 * casts C++ refuses. */
#ifndef COLLVIZ_GPU_KERN_H
#define COLLVIZ_GPU_KERN_H

#if defined(__CUDACC__) || defined(__CUDA__)
#define KDEV __device__ static __inline__
#define K_UNROLL _Pragma("unroll") /* lanes in registers, not memory */
#else
#define KDEV static inline
#define K_UNROLL
#endif
/* Units of 16 bytes a thread has in flight before it stores any: a
 * reduce's pairs of operands (K_DEPTH) and a copy's units
 * (K_COPY_DEPTH). On an H100 (bench/results/2026-11-26-gpu-h100.txt)
 * four copy units took a 256 MiB copy from 216.4 to 209.0 us; two reduce
 * pairs made a 4-rank direct allreduce of 256 MiB 2.7% slower (56
 * registers a thread instead of 40, so fewer blocks resident), so a
 * reduce keeps one. */
#define K_DEPTH 1
#define K_COPY_DEPTH 4

/* Reductions 16 bytes at a time (K_LOOP): with nvcc (no stack, 39
 * registers) and on the host (the tests' driver runs this code), not in
 * clang's CUDA build, where the lanes' union goes through 80 bytes of
 * stack (clang 14); that build keeps one element at a time. */
#if defined(__CUDA__) && !defined(__NVCC__)
#define K_WIDE 0
#else
#define K_WIDE 1
#endif

/* What a chunk does (KChunk.kind). */
enum {
    KOP_COPY = 0,    /* dst = b, bytes (n counts bytes) */
    KOP_REDUCE = 1,  /* dst = dst op b, n elements */
    KOP_REDUCE3 = 2, /* dst = a op b, n elements (a fused copy-in) */
    KOP_AVG = 3,     /* dst = dst / nranks (avg's finish), n elements */
};

/* Datatypes and ops, numbered as core/coll.h numbers them (exec_cuda.c
 * checks that the numbers agree). */
enum {
    KT_INT8, KT_UINT8, KT_INT32, KT_UINT32, KT_INT64, KT_UINT64, KT_HALF,
    KT_BFLOAT16, KT_FLOAT, KT_DOUBLE, KT_COUNT
};
enum { KR_SUM, KR_PROD, KR_MIN, KR_MAX, KR_AVG, KR_COUNT };

/* One piece of a step's work; 40 bytes, 8-aligned. Addresses are device
 * addresses (unified: any device's, or pinned host memory's). */
typedef struct {
    unsigned long long dst; /* written */
    unsigned long long a;   /* KOP_REDUCE3's first operand, else 0 */
    unsigned long long b;   /* read: the source */
    unsigned long long n;   /* elements (KOP_COPY: bytes) */
    unsigned int kind;      /* KOP_* */
    unsigned int pad;
} KChunk;

/* The step kernel's name and parameters: (const KChunk *plan, unsigned
 * nchunks, unsigned dtype, unsigned op, unsigned nranks). op's bits
 * above KR_BITS are flags: KF_PACKED sums and multiplies two halves or
 * bfloat16s at once (add.rn.f16x2 and the like: a correctly rounded
 * result, as float then rounded to nearest is, since float has more than
 * twice their bits plus two) and adds int8 and uint8 eight at a time in
 * 64-bit words (carries kept in their byte); the same results either
 * way, the A/B's other arm (-B cuda:kernels=packed). */
#define KERN_NAME "collviz_step"
#define KR_BITS 8u
#define KF_PACKED (1u << KR_BITS)

/* ------------------------------------------------ float bit patterns */

typedef union {
    float f;
    unsigned int u;
} KF32;

KDEV float k_u2f(unsigned int u)
{
    KF32 v;
    v.u = u;
    return v.f;
}

KDEV unsigned int k_f2u(float f)
{
    KF32 v;
    v.f = f;
    return v.u;
}

/* half -> float, exact (as reduce.c's h2f). */
KDEV float k_h2f_soft(unsigned short h)
{
    unsigned int em = (unsigned int)(h & 0x7fffu) << 13;
    unsigned int exp = em & (0x7c00u << 13);
    unsigned int o = em + ((127u - 15u) << 23);
    if (exp == (0x7c00u << 13))
        o += (128u - 16u) << 23; /* inf, NaN */
    if (exp == 0) /* subnormal or zero: renormalised by a subtraction */
        o = k_f2u(k_u2f(o + (1u << 23)) - k_u2f(113u << 23));
    return k_u2f(o | (unsigned int)(h & 0x8000u) << 16);
}

/* float -> half, round to nearest even; overflow gives infinity. */
KDEV unsigned short k_f2h_soft(float f)
{
    unsigned int u = k_f2u(f), sign = u & 0x80000000u, o;
    u ^= sign;
    if (u >= (143u << 23))
        o = u > 0x7f800000u ? 0x7e00u : 0x7c00u;
    else if (u < (113u << 23)) {
        float magic = k_u2f(126u << 23);
        o = k_f2u(k_u2f(u) + magic) - k_f2u(magic);
    } else
        o = (u + ((unsigned int)(15 - 127) << 23) + 0xfffu + ((u >> 13) & 1u)) >> 13;
    return (unsigned short)(o | sign >> 16);
}

KDEV float k_b2f(unsigned short b) { return k_u2f((unsigned int)b << 16); }

/* float -> bfloat16, round to nearest even; NaNs stay quiet NaNs. */
KDEV unsigned short k_f2b_soft(float f)
{
    unsigned int u = k_f2u(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (unsigned short)((u >> 16) | 0x40u);
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* On the device the conversions are the hardware's (cvt: one instruction
 * where the code above takes some 30, review finding 11), which rounds
 * to nearest even and keeps subnormals as that code does; only a NaN's
 * bits are the hardware's own, so a NaN converted goes the code's way
 * (half to float keeps sign and payload; float to half is 0x7e00 with
 * the sign; float to bfloat16 keeps the top bits, quieted). The float
 * arithmetic between may still make a NaN of another sign than the
 * host's; collviz's inputs never make one (data.h). bfloat16's cvt needs
 * compute capability 8.0. */
#if defined(__CUDA_ARCH__)
KDEV float k_h2f(unsigned short h)
{
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    if ((h & 0x7fffu) > 0x7c00u)
        f = k_u2f((unsigned int)(h & 0x8000u) << 16 | 0x7f800000u |
                  (unsigned int)(h & 0x3ffu) << 13);
    return f;
}

KDEV unsigned short k_f2h(float f)
{
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return f == f ? h : (unsigned short)(0x7e00u | (k_f2u(f) >> 16 & 0x8000u));
}
#else
KDEV float k_h2f(unsigned short h) { return k_h2f_soft(h); }
KDEV unsigned short k_f2h(float f) { return k_f2h_soft(f); }
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
KDEV unsigned short k_f2b(float f)
{
    unsigned short b;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b) : "f"(f));
    return f == f ? b : (unsigned short)(k_f2u(f) >> 16 | 0x40u);
}
#else
KDEV unsigned short k_f2b(float f) { return k_f2b_soft(f); }
#endif

/* ------------------------------------------------------ the chunk code */

/* dst[i] = EXPR(a, b) over this thread's share, with a from dst (or from
 * x for three operands) and b from the source. Where the operands share
 * their alignment modulo 16, the elements before dst is 16-aligned and
 * after the last whole 16 bytes go one by one and the body 16 bytes of
 * every operand at a time (one wide load each in flight, not one element:
 * review finding 11); the same element-wise EXPR, so the same results.
 * K_LOOPW computes the body in lanes of W with WEXPR (two halves, eight
 * bytes), which must give what EXPR gives each element. */
#define K_ONE(T, EXPR, i)                                                     \
    do {                                                                      \
        T a = x[i], b = s[i];                                                 \
        d[i] = (EXPR);                                                        \
    } while (0)
#define K_LOOPW(T, EXPR, W, WEXPR)                                                       \
    do {                                                                      \
        T *d = (T *)c->dst;                                                   \
        const T *s = (const T *)c->b;                                         \
        const T *x = three ? (const T *)c->a : d;                             \
        unsigned long long n = c->n, i = tid, head = 0, units = 0;            \
        const unsigned long long lanes = 16 / sizeof(T);                      \
        const unsigned long long wl = 16 / sizeof(W);                         \
        unsigned long long rel = (c->dst ^ c->b) |                            \
                                 (c->dst ^ (unsigned long long)x);            \
        if (K_WIDE && !(rel & 15)) {                                          \
            head = ((16 - (c->dst & 15)) & 15) / sizeof(T);                   \
            head = head < n ? head : n;                                       \
            units = (n - head) / lanes;                                       \
        }                                                                     \
        for (; i < head; i += nt)                                             \
            K_ONE(T, EXPR, i);                                                \
        const KU128 *vx = (const KU128 *)(x + head);                          \
        const KU128 *vs = (const KU128 *)(s + head);                          \
        KU128 *vdst = (KU128 *)(d + head);                                    \
        unsigned long long u = tid;                                           \
        for (; u + (K_DEPTH - 1) * nt < units; u += K_DEPTH * nt) {           \
            union { KU128 v; W e[16 / sizeof(W)]; } va[K_DEPTH], vb[K_DEPTH]; \
            K_UNROLL                                                          \
            for (int g = 0; g < K_DEPTH; g++) {                               \
                va[g].v = three ? k_ldg(&vx[u + g * nt]) : vx[u + g * nt];    \
                vb[g].v = k_ldg(&vs[u + g * nt]);                             \
            }                                                                 \
            K_UNROLL                                                          \
            for (int g = 0; g < K_DEPTH; g++) {                               \
                K_UNROLL                                                      \
                for (unsigned long long l = 0; l < wl; l++) {                 \
                    W a = va[g].e[l], b = vb[g].e[l];                         \
                    va[g].e[l] = (WEXPR);                                     \
                }                                                             \
                vdst[u + g * nt] = va[g].v;                                   \
            }                                                                 \
        }                                                                     \
        for (; u < units; u += nt) {                                          \
            union { KU128 v; W e[16 / sizeof(W)]; } va, vb;                   \
            va.v = three ? k_ldg(&vx[u]) : vx[u];                             \
            vb.v = k_ldg(&vs[u]);                                             \
            K_UNROLL                                                          \
            for (unsigned long long l = 0; l < wl; l++) {                     \
                W a = va.e[l], b = vb.e[l];                                   \
                va.e[l] = (WEXPR);                                            \
            }                                                                 \
            vdst[u] = va.v;                                                   \
        }                                                                     \
        for (i = head + units * lanes + tid; i < n; i += nt)                  \
            K_ONE(T, EXPR, i);                                                \
    } while (0)

#define K_LOOP(T, EXPR) K_LOOPW(T, EXPR, T, EXPR)

/* ---------------------------------------------------- packed lanes */

/* Eight bytes added at once, each wrapping in its byte: the low seven
 * bits add without reaching the next byte, the top bit is their carry
 * xor both top bits. */
KDEV unsigned long long k_add8x8(unsigned long long a, unsigned long long b)
{
    const unsigned long long lo = 0x7f7f7f7f7f7f7f7full;
    return ((a & lo) + (b & lo)) ^ ((a ^ b) & ~lo);
}

/* Two halves (or bfloat16s) in a 32-bit word, each as OUT(IN(x) OP
 * IN(y)): the host's way, and the device's where it has no packed
 * instruction. */
#define K_PAIR(IN, OUT, OP, a, b)                                             \
    ((unsigned int)OUT(IN((unsigned short)(a)) OP IN((unsigned short)(b))) |  \
     (unsigned int)OUT(IN((unsigned short)((a) >> 16))                        \
                       OP IN((unsigned short)((b) >> 16))) << 16)

#define K_PAIR_FN(NAME, IN, OUT, OP)                                          \
    KDEV unsigned int NAME(unsigned int a, unsigned int b)                    \
    {                                                                         \
        return K_PAIR(IN, OUT, OP, a, b);                                     \
    }
#define K_PAIR_PTX(NAME, INSN)                                                \
    KDEV unsigned int NAME(unsigned int a, unsigned int b)                    \
    {                                                                         \
        unsigned int r;                                                       \
        asm(INSN " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                  \
        return r;                                                             \
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 530
K_PAIR_PTX(k_hadd2, "add.rn.f16x2")
K_PAIR_PTX(k_hmul2, "mul.rn.f16x2")
#else
K_PAIR_FN(k_hadd2, k_h2f, k_f2h, +)
K_PAIR_FN(k_hmul2, k_h2f, k_f2h, *)
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
K_PAIR_PTX(k_badd2, "add.rn.bf16x2")
K_PAIR_PTX(k_bmul2, "mul.rn.bf16x2")
#else
K_PAIR_FN(k_badd2, k_b2f, k_f2b, +)
K_PAIR_FN(k_bmul2, k_b2f, k_f2b, *)
#endif

#define K_INT(T, U)                                                           \
    switch (op) {                                                             \
    case KR_PROD: K_LOOP(T, (T)(U)((U)a * (U)b)); break;                      \
    case KR_MIN: K_LOOP(T, a < b ? a : b); break;                             \
    case KR_MAX: K_LOOP(T, a > b ? a : b); break;                             \
    default: K_LOOP(T, (T)(U)((U)a + (U)b)); break;                           \
    }

#define K_FLOAT(T)                                                            \
    switch (op) {                                                             \
    case KR_PROD: K_LOOP(T, a * b); break;                                    \
    case KR_MIN: K_LOOP(T, a < b ? a : b); break;                             \
    case KR_MAX: K_LOOP(T, a > b ? a : b); break;                             \
    default: K_LOOP(T, a + b); break;                                         \
    }

#define K_SHORT(IN, OUT, ADD2, MUL2)                                          \
    switch (op) {                                                             \
    case KR_PROD:                                                             \
        if (packed)                                                           \
            K_LOOPW(unsigned short, OUT(IN(a) * IN(b)), unsigned int,         \
                    MUL2(a, b));                                              \
        else                                                                  \
            K_LOOP(unsigned short, OUT(IN(a) * IN(b)));                       \
        break;                                                                \
    case KR_MIN: K_LOOP(unsigned short, IN(a) < IN(b) ? a : b); break;        \
    case KR_MAX: K_LOOP(unsigned short, IN(a) > IN(b) ? a : b); break;        \
    default:                                                                  \
        if (packed)                                                           \
            K_LOOPW(unsigned short, OUT(IN(a) + IN(b)), unsigned int,         \
                    ADD2(a, b));                                              \
        else                                                                  \
            K_LOOP(unsigned short, OUT(IN(a) + IN(b)));                       \
        break;                                                                \
    }

/* int8 and uint8: sums eight at a time where packed. */
#define K_BYTE(T)                                                             \
    if (packed && (op == KR_SUM || op == KR_AVG))                             \
        K_LOOPW(T, (T)(unsigned char)((unsigned char)a + (unsigned char)b),   \
                unsigned long long, k_add8x8(a, b));                          \
    else                                                                      \
        K_INT(T, unsigned char)

/* dst[i] = EXPR(a = dst[i]) over this thread's share (avg's division):
 * K_SCALE one element at a time; K_SCALEW the elements before dst is
 * 16-aligned and after its last whole 16 bytes one by one, the body 16
 * bytes at a time (one wide load and store, as K_LOOP), for the integer
 * types (int8's pass took a load a byte). Not for the floating types:
 * their divisions unrolled take the kernel from 40 registers a thread
 * to 48 with nvcc for sm_90, fewer blocks resident for every step. */
#define K_SCALE(T, EXPR)                                                      \
    do {                                                                      \
        T *d = (T *)c->dst;                                                   \
        for (unsigned long long i = tid; i < c->n; i += nt) {                 \
            T a = d[i];                                                       \
            d[i] = (EXPR);                                                    \
        }                                                                     \
    } while (0)

#define K_SCALEW(T, EXPR)                                                     \
    do {                                                                      \
        T *d = (T *)c->dst;                                                   \
        unsigned long long n = c->n, i = tid, head = 0, units = 0;            \
        const unsigned long long lanes = 16 / sizeof(T);                      \
        if (K_WIDE) {                                                         \
            head = ((16 - (c->dst & 15)) & 15) / sizeof(T);                   \
            head = head < n ? head : n;                                       \
            units = (n - head) / lanes;                                       \
        }                                                                     \
        for (; i < head; i += nt) {                                           \
            T a = d[i];                                                       \
            d[i] = (EXPR);                                                    \
        }                                                                     \
        KU128 *vd = (KU128 *)(d + head);                                      \
        for (unsigned long long u = tid; u < units; u += nt) {                \
            union { KU128 v; T e[16 / sizeof(T)]; } va;                       \
            va.v = vd[u];                                                     \
            K_UNROLL                                                          \
            for (unsigned long long l = 0; l < lanes; l++) {                  \
                T a = va.e[l];                                                \
                va.e[l] = (EXPR);                                             \
            }                                                                 \
            vd[u] = va.v;                                                     \
        }                                                                     \
        for (i = head + units * lanes + tid; i < n; i += nt) {                \
            T a = d[i];                                                       \
            d[i] = (EXPR);                                                    \
        }                                                                     \
    } while (0)

/* Copy n bytes in units of U (dst, src and n multiples of its size):
 * K_COPY_DEPTH units of a thread loaded before any is stored, so that
 * that many loads are in flight (the stores may alias the loads as far
 * as the compiler knows, so it would not reorder them by itself; a plan
 * never has a launch read what it writes). */
#define K_COPY(U, LD)                                                         \
    do {                                                                      \
        U *d = (U *)c->dst;                                                   \
        const U *s = (const U *)c->b;                                         \
        unsigned long long m = c->n / sizeof(U), i = tid;                     \
        for (; i + (K_COPY_DEPTH - 1) * nt < m; i += K_COPY_DEPTH * nt) {     \
            U v[K_COPY_DEPTH];                                                \
            K_UNROLL                                                          \
            for (int g = 0; g < K_COPY_DEPTH; g++)                            \
                v[g] = LD(&s[i + g * nt]);                                    \
            K_UNROLL                                                          \
            for (int g = 0; g < K_COPY_DEPTH; g++)                            \
                d[i + g * nt] = v[g];                                         \
        }                                                                     \
        for (; i < m; i += nt)                                                \
            d[i] = LD(&s[i]);                                                 \
    } while (0)
#define K_PLAIN(p) (*(p))

/* 16 bytes copied as one unit. clang's CUDA compiles this struct's copy
 * as two 8-byte loads and stores, one after the other (half the bytes
 * in flight: review finding 14), a vector type as one 16-byte access
 * (ld.v4.u32); nvcc and host compilers take the struct as it is. */
#if defined(__CUDA__) && !defined(__NVCC__)
typedef unsigned int KU128 __attribute__((ext_vector_type(4)));
#else
typedef struct {
    unsigned long long lo, hi;
} __attribute__((aligned(16))) KU128;
#endif

/* 16 bytes of a source: on the device through the read-only data path
 * (ld.global.nc, review finding 11), which a launch may take for what
 * none of its chunks writes (a plan never has a launch write what it
 * reads: the fake driver's race check); on the host a plain load. */
KDEV KU128 k_ldg(const KU128 *p)
{
#if defined(__CUDA_ARCH__) && defined(__NVCC__)
    KU128 v;
    asm("ld.global.nc.v2.u64 {%0, %1}, [%2];" : "=l"(v.lo), "=l"(v.hi) : "l"(p));
    return v;
#elif defined(__CUDA_ARCH__)
    unsigned int a, b, c, d;
    asm("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p));
    KU128 v = {a, b, c, d};
    return v;
#else
    return *p;
#endif
}

/* A copy in the widest unit that dst, src and n all allow. */
KDEV void kern_copy_units(const KChunk *c, unsigned long long tid,
                          unsigned long long nt)
{
    unsigned long long al = c->dst | c->b | c->n;
    if (!(al & 15))
        K_COPY(KU128, k_ldg);
    else if (!(al & 7))
        K_COPY(unsigned long long, K_PLAIN);
    else if (!(al & 3))
        K_COPY(unsigned int, K_PLAIN);
    else
        K_COPY(unsigned char, K_PLAIN);
}

/* A copy whose ends are not aligned (int8 or half blocks at offsets p
 * does not divide) in the widest unit dst and src agree on modulo 16:
 * the bytes before dst reaches that alignment and after the last whole
 * unit one by one, the body in units (review finding 13: a whole chunk
 * went byte by byte). */
KDEV void kern_copy(const KChunk *c, unsigned long long tid,
                    unsigned long long nt)
{
    unsigned long long rel = c->dst ^ c->b;
    unsigned long long k = !(rel & 15) ? 16 : !(rel & 7) ? 8 : !(rel & 3) ? 4 : 1;
    unsigned long long head = (k - (c->dst & (k - 1))) & (k - 1);
    if (k == 1 || head + k > c->n) {
        kern_copy_units(c, tid, nt);
        return;
    }
    unsigned long long body = (c->n - head) & ~(k - 1);
    KChunk m = *c;
    m.dst += head, m.b += head, m.n = body;
    kern_copy_units(&m, tid, nt);
    unsigned char *d = (unsigned char *)c->dst;
    const unsigned char *s = (const unsigned char *)c->b;
    for (unsigned long long i = tid; i < head; i += nt)
        d[i] = s[i];
    for (unsigned long long i = head + body + tid; i < c->n; i += nt)
        d[i] = s[i];
}

KDEV void kern_avg(const KChunk *c, unsigned int t, unsigned int p,
                   unsigned long long tid, unsigned long long nt)
{
    switch (t) {
    case KT_INT8: K_SCALEW(signed char, (signed char)(a / (int)p)); break;
    case KT_UINT8: K_SCALEW(unsigned char, (unsigned char)(a / p)); break;
    case KT_INT32: K_SCALEW(int, a / (int)p); break;
    case KT_UINT32: K_SCALEW(unsigned int, a / p); break;
    case KT_INT64: K_SCALEW(long long, a / (long long)p); break;
    case KT_UINT64: K_SCALEW(unsigned long long, a / p); break;
    case KT_HALF: K_SCALE(unsigned short, k_f2h(k_h2f(a) / (float)p)); break;
    case KT_BFLOAT16: K_SCALE(unsigned short, k_f2b(k_b2f(a) / (float)p)); break;
    case KT_FLOAT: K_SCALE(float, a / (float)p); break;
    default: K_SCALE(double, a / p); break;
    }
}

/* This thread's share (tid of nt threads) of chunk c for datatype t, op
 * (with its flags: KF_PACKED) over p ranks. */
KDEV void kern_chunk(const KChunk *c, unsigned int t, unsigned int opf,
                     unsigned int p, unsigned long long tid,
                     unsigned long long nt)
{
    int three = c->kind == KOP_REDUCE3, packed = (opf & KF_PACKED) != 0;
    unsigned int op = opf & (KF_PACKED - 1u);
    if (c->kind == KOP_COPY) {
        kern_copy(c, tid, nt);
        return;
    }
    if (c->kind == KOP_AVG) {
        kern_avg(c, t, p, tid, nt);
        return;
    }
    switch (t) {
    case KT_INT8: K_BYTE(signed char) break;
    case KT_UINT8: K_BYTE(unsigned char) break;
    case KT_INT32: K_INT(int, unsigned int) break;
    case KT_UINT32: K_INT(unsigned int, unsigned int) break;
    case KT_INT64: K_INT(long long, unsigned long long) break;
    case KT_UINT64: K_INT(unsigned long long, unsigned long long) break;
    case KT_HALF: K_SHORT(k_h2f, k_f2h, k_hadd2, k_hmul2) break;
    case KT_BFLOAT16: K_SHORT(k_b2f, k_f2b, k_badd2, k_bmul2) break;
    case KT_FLOAT: K_FLOAT(float) break;
    default: K_FLOAT(double) break;
    }
}

#endif
