/* reduce.h - reduction kernels: dst[i] = dst[i] op src[i] for every datatype
 * and op, written so compilers vectorise them, and avg's final scaling.
 *
 * Integers wrap (signed sums and products are computed in the unsigned
 * type, so they are defined and identical in any order). half and bfloat16
 * are reduced through float and rounded back to nearest even. avg reduces
 * as sum; reduce_finish divides by the number of ranks afterwards
 * (integers: truncating division, as NCCL does). No I/O, no globals. */
#ifndef COLLVIZ_REDUCE_H
#define COLLVIZ_REDUCE_H

#include "core/coll.h"
#include "core/error.h"

/* dst[i] = dst[i] op src[i] for i < n; dst and src must not overlap. */
typedef void (*ReduceFn)(void *restrict dst, const void *restrict src,
                         size_t n);

/* The kernel of (t, op), or NULL when either is out of range: the fastest
 * this processor runs (on x86 with AVX2, half and bfloat16 have faster
 * ones), and the portable one, which every processor runs (tests compare
 * the two). */
ReduceFn reduce_fn(DataType t, RedOp op);
ReduceFn reduce_fn_portable(DataType t, RedOp op);

/* dst[i] = a[i] op b[i] for i < n, the same value the two-operand kernel
 * leaves in dst after dst = a (a copy-in fused with the reduce that
 * follows it); no two of them may overlap. */
typedef void (*Reduce3Fn)(void *restrict dst, const void *restrict a,
                          const void *restrict b, size_t n);

/* The three-operand kernel of (t, op), or NULL when (t, op) is out of
 * range or this processor's fastest kernel for it has no three-operand
 * twin (half on x86 with F16C: copy, then reduce_fn's kernel, is faster
 * than the portable three-operand one). */
Reduce3Fn reduce3_fn(DataType t, RedOp op);
Reduce3Fn reduce3_fn_portable(DataType t, RedOp op);

/* dst[i] = init[i] op src[i] for i < n elements of es bytes (a copy-in
 * fused with the reduce that follows it): with red3 in one pass where
 * there is one (it may be NULL), else a block at a time, copied and
 * reduced by red while it is in the cache; no two may overlap. */
void reduce_from(ReduceFn red, Reduce3Fn red3, void *dst, const void *init,
                 const void *src, size_t n, size_t es);

/* Apply the kernel of (t, op); CV_ERR_ARG when either is out of range. */
CvError reduce_apply(DataType t, RedOp op, void *dst, const void *src,
                     size_t n);

/* The final scaling of op over nranks ranks applied to buf[0..n): avg
 * divides by nranks; other ops leave buf alone. */
CvError reduce_finish(DataType t, RedOp op, void *buf, size_t n, int nranks);

/* Conversions, rounding to nearest even; NaNs stay NaN (quiet). */
float reduce_half_to_float(uint16_t h);
uint16_t reduce_float_to_half(float f);
float reduce_bf16_to_float(uint16_t h);
uint16_t reduce_float_to_bf16(float f);

#endif
