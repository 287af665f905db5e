/* data.h - exactly verifiable inputs, and the value every element must hold.
 *
 * As in nccl-tests, inputs are chosen so that every reduction is exact in
 * any order: integers wrap identically in any order; floating-point inputs
 * are small integers (sum, avg) or +-1, +-2 with few 2s per position
 * (prod), scaled to the datatype's significand (bfloat16 8 bits, half 11,
 * float 24, double 53) so that every partial result over any subset of up
 * to COLL_MAX_RANKS ranks is representable. Results are therefore compared
 * bit for bit; only avg's final division on floats gets a rounding
 * tolerance. Element values travel as bit patterns in the low
 * dtype_size(t) bytes of a uint64_t. No I/O, no globals. */
#ifndef COLLVIZ_DATA_H
#define COLLVIZ_DATA_H

#include "core/coll.h"

/* Element i of a packed array of t, as bits, and back. */
uint64_t data_load(DataType t, const void *buf, size_t i);
void data_store(DataType t, void *buf, size_t i, uint64_t bits);

/* Input element j (origin position j) of rank q for call c. */
uint64_t data_input(const CollCall *c, int q, size_t j);
/* Inputs j0 .. j0 + n - 1 of rank q, packed into dst. */
void data_fill_input(const CollCall *c, int q, size_t j0, size_t n,
                     void *dst);

/* The bits of an element no transfer has written (a NaN for floats). */
uint64_t data_poison(DataType t);
void data_fill_poison(DataType t, void *dst, size_t n);

/* a op b for one element of t. */
uint64_t data_combine(DataType t, RedOp op, uint64_t a, uint64_t b);

/* What an element must hold when the symbolic executor says it holds the
 * inputs at origin position pos of the ranks in set (`words` uint64 words,
 * bit q for rank q): c->op over them (one rank: its input; none: poison).
 * final: avg's division by c->nranks applied (reducing kinds only). */
uint64_t data_expect(const CollCall *c, size_t pos, const uint64_t *set,
                     size_t words, bool final);
/* The same for positions pos .. pos + n - 1 with one rank set, packed into
 * dst; scratch holds n elements. Vectorised: for verifying large runs. */
void data_fill_expect(const CollCall *c, size_t pos, size_t n,
                      const uint64_t *set, size_t words, bool final,
                      void *dst, void *scratch);

/* Whether got matches want: bit for bit, or within two units in the last
 * place for a final avg of a floating-point type. */
bool data_equal(const CollCall *c, uint64_t got, uint64_t want, bool final);

/* The value of bits of t as a double (for display and messages), and the
 * bits of t nearest to v (floats: to nearest even; integers: truncated,
 * saturated at the 64-bit range, then wrapped to t's width). */
double data_to_double(DataType t, uint64_t bits);
uint64_t data_from_double(DataType t, double v);

#endif
