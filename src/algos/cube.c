/* cube.c - the hypercube (cube.h): its ranks, the steps of its fold,
 * halving and doubling phases, the shared emitters built on them
 * (common.h) and the closed-form terms of each phase. */
#include "algos/cube.h"

/* The cube of every group of gr (cube_group picks one). */
static Cube cube_groups(const RankGroups *gr, bool by_rank, BufId buf)
{
    Cube c = cube_make(gr->size, group_len(gr, 0), by_rank, buf,
                       group_off(gr, 0));
    c.gr = gr;
    return c;
}

/* Groups the cube runs on at once. */
static int cube_ngroups(const Cube *c) { return c->gr ? c->gr->ngroups : 1; }

/* c as group g's cube: its vector and ranks. */
static Cube cube_group(const Cube *c, int g)
{
    Cube x = *c;
    if (c->gr)
        x.g = g, x.n = group_len(c->gr, g), x.off = group_off(c->gr, g);
    return x;
}

/* Elements [lo, hi) of the vector move from rank src to the same place at
 * rank dst. */
void cube_move(Schedule *s, const Cube *c, XferOp op, int src, int dst,
               size_t lo, size_t hi)
{
    sched_xfer(s, op, cube_rank(c, src), c->buf, c->off + lo, cube_rank(c, dst),
               c->buf, c->off + lo, hi - lo);
}

/* One step between the pairs (2i, 2i + 1), i < rem: into the rank that
 * stays (fold-in) or back to the one folded out (fold-out). */
void cube_fold(Schedule *s, const Cube *cs, XferOp op, bool out,
               FoldPart part, const char *phase)
{
    if (!cs->rem)
        return;
    sched_step(s, phase);
    for (int g = 0; g < cube_ngroups(cs); g++) {
        Cube cg = cube_group(cs, g);
        const Cube *c = &cg;
        for (int even = 0; even < 2 * c->rem; even += 2) {
            int stay = even + !c->keep_even, gone = even + c->keep_even;
            int src = out ? stay : gone, dst = out ? gone : stay;
            size_t lo = blk_off(c->n, c->p, even);
            size_t hi = lo + blk_len(c->n, c->p, even);
            if (part == FOLD_OWN)
                cube_move(s, c, op, src, dst, lo, hi);
            else
                cube_move(s, c, op, src, dst, 0, c->n);
        }
    }
}

/* Recursive halving: at distance mask, v keeps the half of its window of
 * 2 mask virtual ranks that holds its own range and adds the other half
 * into its partner's copy. Afterwards v holds its range, fully reduced. */
void cube_halving(Schedule *s, const Cube *cs, const char *phase)
{
    for (int mask = cs->pp / 2; mask >= 1; mask /= 2) {
        sched_step(s, phase);
        for (int g = 0; g < cube_ngroups(cs); g++) {
            Cube cg = cube_group(cs, g);
            const Cube *c = &cg;
            for (int v = 0; v < c->pp; v++) {
                int give = (v & ~(2 * mask - 1)) + (v & mask ? 0 : mask);
                cube_move(s, c, XFER_REDUCE, cube_real(c, v),
                          cube_real(c, v ^ mask), cube_bound(c, give),
                          cube_bound(c, give + mask));
            }
        }
    }
}

/* Recursive doubling: at distance mask, v sends the ranges of its window
 * of mask virtual ranks to its partner, doubling what both hold. */
void cube_doubling(Schedule *s, const Cube *cs, const char *phase)
{
    for (int mask = 1; mask < cs->pp; mask *= 2) {
        sched_step(s, phase);
        for (int g = 0; g < cube_ngroups(cs); g++) {
            Cube cg = cube_group(cs, g);
            const Cube *c = &cg;
            for (int v = 0; v < c->pp; v++) {
                int first = v & ~(mask - 1);
                cube_move(s, c, XFER_COPY, cube_real(c, v),
                          cube_real(c, v ^ mask), cube_bound(c, first),
                          cube_bound(c, first + mask));
            }
        }
    }
}

/* ------------------------------------------------------------ emitters */

void emit_halving_reducescatter_g(Schedule *s, const RankGroups *gr,
                                  BufId buf, const char *phase)
{
    Cube c = cube_groups(gr, true, buf);
    cube_fold(s, &c, XFER_REDUCE, false, FOLD_ALL, "fold-in");
    cube_halving(s, &c, phase);
    cube_fold(s, &c, XFER_COPY, true, FOLD_OWN, "fold-out");
}

/* The blocks [lo, hi) of the p blocks of every group's vector move from
 * member src to member dst. */
static void blocks_move(Schedule *s, const Cube *cs, int src, int dst, int lo,
                        int hi)
{
    for (int g = 0; g < cube_ngroups(cs); g++) {
        Cube c = cube_group(cs, g);
        cube_move(s, &c, XFER_COPY, src, dst, blk_off(c.n, c.p, lo),
                  blk_off(c.n, c.p, hi));
    }
}

/* The subtree of m ranks from t (a multiple of 2m) whose partner subtree
 * from t + m is cut by p: its first c ranks had partners, c the blocks
 * they got; 0 where no subtree is so cut. */
int cube_cut_subtree(int p, int m, int *t)
{
    *t = (p - 1) & ~(2 * m - 1);
    int c = p - *t - m;
    return c > 0 && c < m ? c : 0;
}

/* After distance m, the c ranks of the cut subtree [t, t + m) that had a
 * partner hand the c blocks from t + m on to the others, as MPICH does:
 * at d = m/2, m/4, ..., 1, in every window of 2d ranks, member o < d
 * sends to o + d where o has them (o < c) and o + d has not (o + d >= c).
 * Each window then holds them at its first min(c, 2d) members, so the
 * steps stop once 2d <= c. */
static void doubling_pass_on(Schedule *s, const Cube *c, int m,
                             const char *phase)
{
    int t, n = cube_cut_subtree(c->p, m, &t);
    for (int d = m / 2; n && 2 * d > n; d /= 2) {
        sched_step(s, phase);
        for (int w = t; w < t + m; w += 2 * d)
            for (int o = 0; o < d && o < n; o++)
                if (o + d >= n)
                    blocks_move(s, c, w + o, w + o + d, t + m, c->p);
    }
}

/* MPICH's recursive doubling for any p (allgather_intra_recursive_
 * doubling.c): at distance m = 1, 2, 4, ... rank r sends the blocks of its
 * subtree (the m ranks from r & ~(m - 1) that exist) to r ^ m where that
 * rank exists; then a cut subtree's blocks are passed on. Every rank gets
 * every other block once; p a power of two needs no passing on. */
void emit_doubling_allgather_g(Schedule *s, const RankGroups *gr, BufId buf,
                               const char *phase)
{
    Cube c = cube_groups(gr, true, buf);
    for (int m = 1; m < c.p; m *= 2) {
        sched_step(s, phase);
        for (int r = 0; r < c.p; r++) {
            int first = r & ~(m - 1);
            if ((r ^ m) < c.p)
                blocks_move(s, &c, r, r ^ m, first, num_min(first + m, c.p));
        }
        doubling_pass_on(s, &c, m, "pass-on");
    }
}

void emit_halving_reducescatter(Schedule *s, size_t n, BufId buf,
                                size_t off, const char *phase)
{
    RankGroups w = groups_world(s->call.nranks, n, off);
    emit_halving_reducescatter_g(s, &w, buf, phase);
}

void emit_doubling_allgather(Schedule *s, size_t n, BufId buf, size_t off,
                             const char *phase)
{
    RankGroups w = groups_world(s->call.nranks, n, off);
    emit_doubling_allgather_g(s, &w, buf, phase);
}

/* ------------------------------------------------------------- costs */

/* Add one step whose busiest rank moves b bytes and reduces g bytes; a
 * step that moves nothing is no step. */
void cube_cost_step(CostTerms *t, size_t b, size_t g)
{
    if (!b)
        return;
    t->a += 1;
    t->b += (double)b;
    t->g += (double)g;
    t->steps += 1;
}

/* Elements the busiest pair moves in a fold step. Blocks never grow with
 * the index, so the first pair moves the most of its own block. */
static size_t fold_elems(const Cube *c, FoldPart part)
{
    if (!c->rem)
        return 0;
    if (part == FOLD_OWN)
        return blk_len(c->n, c->p, 0);
    return c->n;
}

/* Add a fold step: the busiest pair's elements of part, ts bytes each,
 * reduced where reduce. */
void cube_cost_fold(CostTerms *t, const Cube *c, FoldPart part, bool reduce,
                    size_t ts)
{
    size_t b = fold_elems(c, part) * ts;
    cube_cost_step(t, b, reduce ? b : 0);
}

/* Halving or doubling: at distance mask every rank exchanges one window of
 * mask virtual ranks; the first window is the largest. */
void cube_cost(CostTerms *t, const Cube *c, bool reduce, size_t ts)
{
    for (int mask = 1; mask < c->pp; mask *= 2) {
        size_t b = cube_bound(c, mask) * ts;
        cube_cost_step(t, b, reduce ? b : 0);
    }
}
