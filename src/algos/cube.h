/* cube.h - the hypercube that the recursive algorithms and the shared
 * emitters run on (cube.c): a power-of-two group of virtual ranks over p
 * real ones, the extra ranks folded in pairs as MPICH does, and the steps
 * and closed-form terms of its phases. Private to src/algos. */
#ifndef COLLVIZ_ALGOS_CUBE_H
#define COLLVIZ_ALGOS_CUBE_H

#include "algos/common.h"
#include "core/num.h"

/* A vector of n elements every rank keeps at (buf, off), and the
 * power-of-two group that works on it. Virtual rank v owns the element
 * range [cube_bound(v), cube_bound(v + 1)). */
typedef struct {
    int p;        /* ranks (of each group) */
    int pp;       /* ranks in the hypercube phase: largest power of 2 <= p */
    int rem;      /* p - pp: ranks 2i (i < rem) fold into rank 2i + 1 */
    size_t n;     /* elements of the vector */
    bool by_rank; /* ranges are the real ranks' blocks of p (the odd rank
                     of a pair owns both blocks); else pp equal blocks */
    bool keep_even; /* the even rank of a pair stays in the cube (MPICH's
                       reduce); else the odd one (its allreduce) */
    BufId buf;    /* buffer holding the vector on every rank */
    size_t off;   /* offset of the vector in buf */
    const RankGroups *gr; /* the groups that run it at once (NULL: all
                             ranks, one group) */
    int g;        /* the group n, off and ranks are of */
} Cube;

/* What a fold step moves between the ranks of a pair. */
typedef enum {
    FOLD_ALL,  /* the whole vector */
    FOLD_OWN,  /* the even rank's block */
    FOLD_COUNT
} FoldPart;

/* The cube of p ranks over a vector of n elements at (buf, off). */
static inline Cube cube_make(int p, size_t n, bool by_rank, BufId buf,
                             size_t off)
{
    int pp = pow2_floor(p);
    return (Cube){.p = p, .pp = pp, .rem = p - pp, .n = n,
                  .by_rank = by_rank, .buf = buf, .off = off};
}

/* The rank of the group's member i. */
static inline int cube_rank(const Cube *c, int i)
{
    return c->gr ? group_rank(c->gr, c->g, i) : i;
}

/* The real rank playing virtual rank v. */
static inline int cube_real(const Cube *c, int v)
{
    return v < c->rem ? 2 * v + !c->keep_even : v + c->rem;
}

/* The virtual rank real rank r plays, or -1 for a rank folded out. */
static inline int cube_virt(const Cube *c, int r)
{
    if (r >= 2 * c->rem)
        return r - c->rem;
    return r % 2 == !c->keep_even ? r / 2 : -1;
}

/* First element of virtual rank v's range; cube_bound(pp) == n. */
static inline size_t cube_bound(const Cube *c, int v)
{
    if (!c->by_rank)
        return blk_off(c->n, c->pp, v);
    return blk_off(c->n, c->p, v < c->rem ? 2 * v : v + c->rem);
}

/* Elements [lo, hi) of the vector move from rank src to the same place at
 * rank dst. */
void cube_move(Schedule *s, const Cube *c, XferOp op, int src, int dst,
               size_t lo, size_t hi);

/* One step between the pairs (2i, 2i + 1), i < rem: into the rank that
 * stays (fold-in) or back to the one folded out (fold-out). */
void cube_fold(Schedule *s, const Cube *cs, XferOp op, bool out,
               FoldPart part, const char *phase);

/* Recursive halving: at distance mask, v keeps the half of its window of
 * 2 mask virtual ranks that holds its own range and adds the other half
 * into its partner's copy. Afterwards v holds its range, fully reduced. */
void cube_halving(Schedule *s, const Cube *cs, const char *phase);

/* Recursive doubling: at distance mask, v sends the ranges of its window
 * of mask virtual ranks to its partner, doubling what both hold. */
void cube_doubling(Schedule *s, const Cube *cs, const char *phase);

/* The subtree of m ranks from t (a multiple of 2m) whose partner subtree
 * from t + m is cut by p: its first c ranks had partners, c the blocks
 * they got; 0 where no subtree is so cut. */
int cube_cut_subtree(int p, int m, int *t);

/* Add one step whose busiest rank moves b bytes and reduces g bytes; a
 * step that moves nothing is no step. */
void cube_cost_step(CostTerms *t, size_t b, size_t g);

/* Add a fold step: the busiest pair's elements of part, ts bytes each,
 * reduced where reduce. */
void cube_cost_fold(CostTerms *t, const Cube *c, FoldPart part, bool reduce,
                    size_t ts);

/* Halving or doubling: at distance mask every rank exchanges one window of
 * mask virtual ranks; the first window is the largest. */
void cube_cost(CostTerms *t, const Cube *c, bool reduce, size_t ts);

#endif
