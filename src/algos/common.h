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

/* ------------------------------------------------------- rank groups */

/* Groups of ranks that run one emitter in the same steps, each on its own
 * vector: the lines of one dimension of a torus (its rows, its columns),
 * or all ranks as one group. Member i of group g is rank
 * group_rank(gr, g, i): groups whose first members are `inner`
 * consecutive ranks, members `stride` ranks apart (a dimension's lines:
 * stride = inner = the product of the sizes before it), all shifted by
 * `first` (0: group 0's first member is rank 0); or any groups, listed
 * (member: member i of group g is member[g * size + i]). Group g's vector
 * is len[g] elements at off[g] of the buffer (NULL: n0 at off0 for all). */
typedef struct RankGroups {
    int ngroups;       /* groups */
    int size;          /* members of each: the p of the emitter */
    int stride;        /* ranks between consecutive members */
    int inner;         /* consecutive first members */
    int first;         /* rank of group 0's first member */
    const int *member; /* [ngroups * size] the members, or NULL */
    const size_t *off; /* [ngroups] each vector's offset, or NULL */
    const size_t *len; /* [ngroups] each vector's elements, or NULL */
    size_t off0, n0;   /* the one offset and length without the arrays */
    const struct RankGroups *cycles; /* groups splitting all ranks, among
                          whose rings each of these runs (a dimension's
                          lines, of which these are some): what a compact
                          ring pass moves along; NULL: these */
} RankGroups;

static inline int group_rank(const RankGroups *gr, int g, int i)
{
    if (gr->member)
        return gr->member[(size_t)g * (size_t)gr->size + (size_t)i];
    return gr->first + g % gr->inner + g / gr->inner * gr->inner * gr->size +
           i * gr->stride;
}
static inline size_t group_off(const RankGroups *gr, int g)
{
    return gr->off ? gr->off[g] : gr->off0;
}
static inline size_t group_len(const RankGroups *gr, int g)
{
    return gr->len ? gr->len[g] : gr->n0;
}
/* Start a generator's schedule: sched_init (sched_reinit where the caller
 * gives one to reuse), compact as the caller asked
 * (then sched_repeat records repeated steps, and the schedule holds at
 * most SCHED_COMPACT_MAX_XFERS transfers). */
static inline CvError algo_begin(const AlgoArgs *args, Schedule *s,
                                 const char *name)
{
    CvError e = args->reuse ? sched_reinit(s, args->call, name)
                            : sched_init(s, args->call, name);
    s->compact = args->compact;
    return e;
}

/* All p ranks as one group, its vector n elements at off. */
static inline RankGroups groups_world(int p, size_t n, size_t off)
{
    return (RankGroups){.ngroups = 1, .size = p, .stride = 1, .inner = 1,
                        .off0 = off, .n0 = n};
}
/* The lines of dimension d of shape sizes[0 .. ndims), dimension 0
 * varying fastest, every vector n elements at off. */
static inline RankGroups groups_lines(const int *sizes, int ndims, int d,
                                      size_t n, size_t off)
{
    int stride = 1, p = 1;
    for (int i = 0; i < ndims; i++)
        p *= sizes[i], stride *= i < d ? sizes[i] : 1;
    return (RankGroups){.ngroups = p / sizes[d], .size = sizes[d],
                        .stride = stride, .inner = stride, .off0 = off,
                        .n0 = n};
}

/* ---- emitters shared across families (each is defined where named) ---- */

/* ring.c: out of place, a free local step copying each rank's input (its
 * send buffer) to `buf` at `off` (+ r count with blockwise); nothing in
 * place. */
void emit_copy_in(Schedule *s, BufId buf, size_t off, int blockwise);

/* ring.c: every rank r holds block r; afterwards every rank holds every
 * block (p - 1 steps). */
void emit_ring_allgather(Schedule *s, size_t n, BufId buf, size_t off,
                         const char *phase);
/* ring.c: every rank holds its own contribution to the whole vector;
 * afterwards rank r holds block r reduced over all ranks (p - 1 steps). */
void emit_ring_reducescatter(Schedule *s, size_t n, BufId buf, size_t off,
                             const char *phase);
/* The same, by every group of gr at once in the same steps (size - 1
 * steps), each on its own vector. */
void emit_ring_allgather_g(Schedule *s, const RankGroups *gr, BufId buf,
                           const char *phase);
void emit_ring_reducescatter_g(Schedule *s, const RankGroups *gr, BufId buf,
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
/* tree.c: by every group of gr at once in the same steps (ceil(log2
 * size) steps), the whole vector of each group (in buf, at its offset):
 * from member `root` to every member (a binomial broadcast, biggest
 * subtree first), or reduced from every member into member `root`. */
void emit_binomial_bcast_g(Schedule *s, const RankGroups *gr, int root,
                           BufId buf, const char *phase);
void emit_binomial_reduce_g(Schedule *s, const RankGroups *gr, int root,
                            BufId buf, const char *phase);
/* tree.c: the parent of rank r in tree t (0 or 1) of NCCL's double binary
 * tree over p ranks (ncclGetDtree), -1 at the root. */
int dbt_parent(int t, int r, int p);
/* recursive.c: as emit_ring_reducescatter, by recursive halving (extra
 * ranks of a non-power-of-two p folded in first). */
void emit_halving_reducescatter(Schedule *s, size_t n, BufId buf,
                                size_t off, const char *phase);
/* recursive.c: as emit_ring_allgather, by MPICH's recursive doubling (off
 * a power of two, ranks whose partner does not exist get its blocks passed
 * on by those that got them). */
void emit_doubling_allgather(Schedule *s, size_t n, BufId buf, size_t off,
                             const char *phase);
/* The same two by every group of gr at once in the same steps. */
void emit_halving_reducescatter_g(Schedule *s, const RankGroups *gr,
                                  BufId buf, const char *phase);
void emit_doubling_allgather_g(Schedule *s, const RankGroups *gr, BufId buf,
                               const char *phase);

#endif
