/* common.h - what the algorithm families share: block partitions, rank
 * arithmetic, and the emitters one family offers the others.
 *
 * An "emitter" appends steps to a schedule under construction. The shared
 * emitters work on a vector of n elements that every rank keeps whole at
 * (buf, off), split into p blocks; block b is [blk_off(n,p,b),
 * blk_off + blk_len). */
#ifndef COLLVIZ_ALGOS_COMMON_H
#define COLLVIZ_ALGOS_COMMON_H

#include "algos/algo.h"

#include <stdbool.h>

/* Block b of n elements split into p blocks; the first n % p blocks are one
 * element longer, so any n and p work. */
static inline size_t blk_off(size_t n, int p, int b)
{
    size_t q = n / (size_t)p, r = n % (size_t)p, bb = (size_t)b;
    return bb * q + (bb < r ? bb : r);
}
static inline size_t blk_len(size_t n, int p, int b)
{
    return n / (size_t)p + ((size_t)b < n % (size_t)p ? 1 : 0);
}

/* Rank relative to a root and back. */
static inline int vrank(int r, int root, int p) { return (r - root + p) % p; }
static inline int rrank(int v, int root, int p) { return (v + root) % p; }

/* Largest power of two <= p (p >= 1), and ceil/floor log2. */
static inline int pow2_floor(int p)
{
    int q = 1;
    while (q * 2 <= p)
        q *= 2;
    return q;
}
static inline int log2_floor(int p)
{
    int k = 0;
    while ((1 << (k + 1)) <= p)
        k++;
    return k;
}

/* ---- emitters shared across families (each is defined where named) ---- */

/* ring.c: every rank r holds block r; afterwards every rank holds every
 * block (p - 1 steps). */
void emit_ring_allgather(Schedule *s, size_t n, BufId buf, size_t off,
                         const char *phase);
/* ring.c: every rank holds its own contribution to the whole vector;
 * afterwards rank r holds block r reduced over all ranks (p - 1 steps). */
void emit_ring_reducescatter(Schedule *s, size_t n, BufId buf, size_t off,
                             const char *phase);
/* tree.c: the root holds every block; afterwards rank r holds block r
 * (inner ranks of the tree also pass through their subtree's blocks at
 * their places in the vector). ceil(log2 p) steps. With root_in the root
 * holds them in its input instead (the collective's layout) and copies
 * the whole vector to (buf, off) in the first step. */
void emit_binomial_scatter(Schedule *s, int root, size_t n, BufId buf,
                           size_t off, bool root_in, const char *phase);
/* tree.c: rank r holds block r; afterwards the root holds every block. */
void emit_binomial_gather(Schedule *s, int root, size_t n, BufId buf,
                          size_t off, const char *phase);
/* recursive.c: as emit_ring_reducescatter, by recursive halving (extra
 * ranks of a non-power-of-two p folded in first). */
void emit_halving_reducescatter(Schedule *s, size_t n, BufId buf,
                                size_t off, const char *phase);
/* recursive.c: as emit_ring_allgather, by recursive doubling (extra ranks
 * served last). */
void emit_doubling_allgather(Schedule *s, size_t n, BufId buf, size_t off,
                             const char *phase);

#endif
