/* tree.c - the tree family: binomial trees (broadcast, reduce, scatter,
 * gather, and reduce-then-broadcast allreduce) and NCCL's double binary
 * tree allreduce.
 *
 * Binomial trees are built on vranks (ranks relative to the root, see
 * vrank/rrank). Going down (broadcast, scatter) vrank v hands data to
 * v + m for m = 2^(L-1), ..., 2, 1 where v is a multiple of 2m, so the
 * biggest subtree is served first, as MPICH does; going up (reduce,
 * gather) the same edges are used in the opposite order, m = 1, 2, ...
 * The subtree of vrank v is vranks [v, v + subtree(v)). */
#include "algos/common.h"
#include "core/num.h"

#include <stdbool.h>
#include <stdlib.h>

/* =============================================================== helpers */


/* Size in ranks of the binomial subtree rooted at vrank v (v included). */
static int subtree(int v, int p)
{
    if (v == 0)
        return p;
    return num_min(v & -v, p - v);
}

/* Copy n elements within rank r, unless source and destination coincide. */
static void local_copy(Schedule *s, int r, BufId sb, size_t so, BufId db,
                       size_t dof, size_t n)
{
    if (sb != db || so != dof)
        sched_copy(s, r, sb, so, r, db, dof, n);
}

/* Closed-form terms of `steps` tree steps that each move `bytes` per
 * message (one message per step) and reduce `red` bytes. */
static void per_step_cost(CostTerms *out, int steps, double bytes,
                          double red)
{
    *out = (CostTerms){.a = steps, .b = steps * bytes, .g = steps * red,
                       .steps = steps};
}

/* Bytes of one rank's vector (count elements). */
static double vec_bytes(const CollCall *c)
{
    return (double)c->count * (double)dtype_size(c->dtype);
}

/* ======================================================= binomial walks */

/* How one walk over a binomial tree moves data. */
typedef struct {
    int root;   /* real rank at vrank 0 */
    size_t n;   /* elements of the whole vector (p blocks when !whole) */
    XferOp op;  /* copy (scatter, gather, broadcast) or reduce */
    bool whole; /* each edge moves the whole vector, not a subtree's blocks */
    bool coll;  /* collective placement (see holder) instead of (buf, off) */
    BufId buf;  /* where every rank keeps the vector when !coll */
    size_t off; /* its offset in buf when !coll */
    bool root_in; /* !coll going down: the root sends from its input (the
                     send buffer out of place) and copies it to (buf, off)
                     in the first step, so no step waits for that copy */
} Walk;

/* Where one rank keeps the blocks (or the vector) a walk moves. */
typedef struct {
    int rank;   /* real rank */
    BufId buf;  /* buffer */
    size_t off; /* offset of block 0 (natural order) or of block vbase */
    int vbase;  /* -1: block b at its natural place; else blocks in vrank
                   order starting with vrank vbase's (equal-length blocks) */
} Holder;

/* Holder of vrank v: with !coll the shared vector (or going down with
 * root_in, the root's input); with coll the root works at its layout
 * (input going down, output going up), ranks with a subtree keep it in tmp
 * in vrank order (with blocks, all but their own, which goes straight
 * between the walk and their layout: walk_edge), leaves use their layout
 * (output going down, input going up). */
static Holder holder(const Schedule *s, const Walk *w, bool up, int v)
{
    int p = s->call.nranks, r = rrank(v, w->root, p);
    CollLayout l;
    coll_layout(&s->call, r, &l);
    if (!w->coll && w->root_in && !up && v == 0)
        return (Holder){r, l.in_buf, l.in_off, -1};
    if (!w->coll)
        return (Holder){r, w->buf, w->off, -1};
    if (v != 0 && subtree(v, p) > 1)
        return (Holder){r, BUF_TMP, 0, w->whole ? v : v + 1};
    bool in = up != (v == 0);
    return (Holder){r, in ? l.in_buf : l.out_buf, in ? l.in_off : l.out_off,
                    v == 0 ? -1 : v};
}

/* Offset in h's buffer of the block of real rank r (vrank v). */
static size_t holder_at(const Holder *h, const Walk *w, int p, int r, int v)
{
    if (h->vbase < 0)
        return h->off + blk_off(w->n, p, r);
    return h->off + (size_t)(v - h->vbase) * (w->n / (size_t)p);
}

/* One edge: vrank `from` hands vrank `to` the blocks of vranks [lo, hi)
 * (or the whole vector), as one message of up to three transfers: an
 * inner rank's own block, and the rest cut where blocks in natural order
 * wrap around at rank p-1. */
static void walk_edge(Schedule *s, const Walk *w, bool up, int from, int to,
                      int lo, int hi)
{
    int p = s->call.nranks;
    Holder a = holder(s, w, up, from), b = holder(s, w, up, to);
    if (w->whole) {
        sched_xfer(s, w->op, a.rank, a.buf, a.off, b.rank, b.buf, b.off, w->n);
        return;
    }
    const Holder *in = up ? &a : &b; /* the lower rank of the edge */
    if (w->coll && in->buf == BUF_TMP && lo == (up ? from : to)) {
        /* Its own block, kept out of tmp: to its output going down, from
         * its input going up. */
        CollLayout l;
        coll_layout(&s->call, in->rank, &l);
        if (up)
            sched_xfer(s, w->op, a.rank, l.in_buf, l.in_off, b.rank, b.buf,
                       holder_at(&b, w, p, a.rank, lo), l.in_count);
        else
            sched_xfer(s, w->op, a.rank, a.buf, holder_at(&a, w, p, b.rank, lo),
                       b.rank, l.out_buf, l.out_off, l.out_count);
        lo++;
    }
    while (lo < hi) {
        int r = rrank(lo, w->root, p), k = num_min(hi - lo, p - r);
        size_t len = blk_off(w->n, p, r + k) - blk_off(w->n, p, r);
        sched_xfer(s, w->op, a.rank, a.buf, holder_at(&a, w, p, r, lo),
                   b.rank, b.buf, holder_at(&b, w, p, r, lo), len);
        lo += k;
    }
}

/* The root's local work, done in the walk's first step beside its first
 * message (it reads only the root's input, which no step writes): with
 * root_in its input vector copied to (buf, off); with blocks its own
 * block between its input and its output. */
static void root_local(Schedule *s, const Walk *w, bool up)
{
    int p = s->call.nranks, r = w->root;
    CollLayout l;
    coll_layout(&s->call, r, &l);
    if (!w->coll && w->root_in && !up) {
        local_copy(s, r, l.in_buf, l.in_off, w->buf, w->off, w->n);
    } else if (w->coll && !w->whole) {
        Holder h = holder(s, w, up, 0);
        if (up)
            local_copy(s, r, l.in_buf, l.in_off, h.buf,
                       holder_at(&h, w, p, r, 0), l.in_count);
        else
            local_copy(s, r, h.buf, holder_at(&h, w, p, r, 0), l.out_buf,
                       l.out_off, l.out_count);
    }
}

/* Root to leaves: ceil(log2 p) steps, biggest subtree first (one local
 * step when p = 1 and the root has a copy to make). */
static void walk_down(Schedule *s, const Walk *w, const char *phase)
{
    int p = s->call.nranks;
    sched_step(s, phase);
    root_local(s, w, false);
    for (int m = p > 1 ? pow2_floor(p - 1) : 0; m >= 1; m /= 2) {
        for (int v = 0; v + m < p; v += 2 * m)
            walk_edge(s, w, false, v, v + m, v + m, num_min(v + 2 * m, p));
        if (m > 1)
            sched_step(s, phase);
    }
}

/* Leaves to root: ceil(log2 p) steps, each rank receiving from at most one
 * child per step. */
static void walk_up(Schedule *s, const Walk *w, const char *phase)
{
    int p = s->call.nranks;
    sched_step(s, phase);
    root_local(s, w, true);
    for (int m = 1; m < p; m *= 2) {
        for (int v = m; v < p; v += 2 * m)
            walk_edge(s, w, true, v, v - m, v, num_min(v + m, p));
        if (2 * m < p)
            sched_step(s, phase);
    }
}

/* Size tmp for the ranks that keep a subtree there: the whole vector, or
 * the blocks of their subtree but their own. */
static void walk_tmp(Schedule *s, const Walk *w, bool up)
{
    int p = s->call.nranks;
    for (int v = 0; v < p; v++) {
        Holder h = holder(s, w, up, v);
        size_t keep = (size_t)(subtree(v, p) - 1) * (w->n / (size_t)p);
        if (h.buf == BUF_TMP)
            sched_tmp(s, h.rank, w->whole ? w->n : keep);
    }
}

/* Whole vectors going up (reduce): size tmp, and (local step) copy every
 * rank's input to its holder, where its children's partials are folded in
 * (executors may fuse the copy with the first fold: sched_fuse_map). */
static void walk_prepare(Schedule *s, const Walk *w)
{
    int p = s->call.nranks;
    walk_tmp(s, w, true);
    sched_step(s, "copy-in");
    for (int v = 0; v < p; v++) {
        Holder h = holder(s, w, true, v);
        CollLayout l;
        coll_layout(&s->call, h.rank, &l);
        if (l.in_count)
            local_copy(s, h.rank, l.in_buf, l.in_off, h.buf, h.off, w->n);
    }
}

/* ====================================================== shared emitters */

void emit_binomial_scatter(Schedule *s, int root, size_t n, BufId buf,
                           size_t off, bool root_in, const char *phase)
{
    Walk w = {.root = root, .n = n, .op = XFER_COPY, .buf = buf, .off = off,
              .root_in = root_in};
    walk_down(s, &w, phase);
}

void emit_binomial_gather(Schedule *s, int root, size_t n, BufId buf,
                          size_t off, const char *phase)
{
    Walk w = {.root = root, .n = n, .op = XFER_COPY, .buf = buf, .off = off};
    walk_up(s, &w, phase);
}

/* ========================================================= rank groups */

/* One binomial walk of the whole vector of every group of gr at once (in
 * buf, at each group's offset): down from member `root` (copies) or up to
 * it (reduces), ceil(log2 size) steps, every group in the same steps. */
static void walk_groups(Schedule *s, const RankGroups *gr, int root,
                        BufId buf, bool up, const char *phase)
{
    int p = gr->size;
    for (int m = up ? 1 : (p > 1 ? pow2_floor(p - 1) : 0); m >= 1 && m < p;
         m = up ? 2 * m : m / 2) {
        sched_step(s, phase);
        for (int g = 0; g < gr->ngroups; g++) {
            size_t off = group_off(gr, g), n = group_len(gr, g);
            for (int v = 0; n && v + m < p; v += 2 * m) {
                int hi = group_rank(gr, g, rrank(v + m, root, p));
                int lo = group_rank(gr, g, rrank(v, root, p));
                sched_xfer(s, up ? XFER_REDUCE : XFER_COPY, up ? hi : lo, buf,
                           off, up ? lo : hi, buf, off, n);
            }
        }
    }
}

void emit_binomial_bcast_g(Schedule *s, const RankGroups *gr, int root,
                           BufId buf, const char *phase)
{
    walk_groups(s, gr, root, buf, false, phase);
}

void emit_binomial_reduce_g(Schedule *s, const RankGroups *gr, int root,
                            BufId buf, const char *phase)
{
    walk_groups(s, gr, root, buf, true, phase);
}

/* ================================================ binomial collectives */

/* A collective made of one binomial walk (a reduce's inputs first copied
 * to where the partial results grow). */
static CvError binomial(const AlgoArgs *args, Schedule *s, Walk w, bool up,
                        const char *phase)
{
    CvError e = algo_begin(args, s, "binomial");
    if (e)
        return e;
    if (w.whole && up)
        walk_prepare(s, &w);
    else
        walk_tmp(s, &w, up);
    if (up)
        walk_up(s, &w, phase);
    else
        walk_down(s, &w, phase);
    return sched_end(s);
}

/* Broadcast: the vector goes down from the root's input; the root copies
 * it to its recv meanwhile. */
static CvError gen_bcast(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    Walk w = {.root = c->root, .n = c->count, .op = XFER_COPY, .whole = true,
              .buf = BUF_RECV, .root_in = true};
    return binomial(args, s, w, false, "broadcast");
}

/* Reduce: inner ranks gather partial results in tmp, the root in recv;
 * each step a rank folds in the partial result of one child. */
static CvError gen_reduce(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    Walk w = {.root = c->root, .n = c->count, .op = XFER_REDUCE, .whole = true,
              .coll = true};
    return binomial(args, s, w, true, "reduce");
}

/* Scatter: each rank receives its subtree's blocks (a leaf straight into
 * its output, an inner rank into tmp) and passes the rest on. */
static CvError gen_scatter(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    Walk w = {.root = c->root, .n = (size_t)c->nranks * c->count,
              .op = XFER_COPY, .coll = true};
    return binomial(args, s, w, false, "scatter");
}

/* Gather: each rank collects its subtree's blocks (in tmp, or the root in
 * recv) and sends them up in one message. */
static CvError gen_gather(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    Walk w = {.root = c->root, .n = (size_t)c->nranks * c->count,
              .op = XFER_COPY, .coll = true};
    return binomial(args, s, w, true, "gather");
}

/* Binomial broadcast and reduce: one message of the whole vector per step
 * on the critical path. */
static void cost_bcast(const CollCall *c, CostTerms *out)
{
    int l = c->count ? model_log2_ceil(c->nranks) : 0;
    per_step_cost(out, l, vec_bytes(c), 0);
}

static void cost_reduce(const CollCall *c, CostTerms *out)
{
    int l = c->count ? model_log2_ceil(c->nranks) : 0;
    per_step_cost(out, l, vec_bytes(c), vec_bytes(c));
}

/* Scatter and gather: the root's edge carries the most blocks in every
 * step, p - 1 blocks in all, for any p. */
static void cost_blocks(const CollCall *c, CostTerms *out)
{
    int l = c->count ? model_log2_ceil(c->nranks) : 0;
    per_step_cost(out, l, 0, 0);
    out->b = (c->nranks - 1) * vec_bytes(c);
}

/* Allreduce: binomial reduce to rank 0 in recv, then broadcast back. */
static CvError gen_allreduce_tree(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "tree");
    if (e)
        return e;
    Walk w = {.root = 0, .n = c->count, .op = XFER_REDUCE, .whole = true,
              .buf = BUF_RECV};
    walk_prepare(s, &w);
    walk_up(s, &w, "reduce");
    w.op = XFER_COPY;
    walk_down(s, &w, "broadcast");
    return sched_end(s);
}

/* Twice the binomial tree's steps, reducing the vector in half of them. */
static void cost_allreduce_tree(const CollCall *c, CostTerms *out)
{
    int l = c->count ? model_log2_ceil(c->nranks) : 0;
    per_step_cost(out, 2 * l, vec_bytes(c), vec_bytes(c) / 2);
}

/* ================================================== double binary tree */

/* Parent of rank r in NCCL's binary tree over p ranks (ncclGetBtree): rank
 * 0 is the root with the single child 2^(ceil(log2 p) - 1); rank r > 0
 * with lowest set bit b hangs below (r ^ b) | 2b, or r ^ b when that does
 * not exist. Odd ranks are leaves. Returns -1 for the root. */
static int btree_parent(int r, int p)
{
    if (r == 0)
        return -1;
    int bit = r & -r, up = (r ^ bit) | (bit << 1);
    return up < p ? up : r ^ bit;
}

/* Parent of rank r in tree t of the double binary tree (ncclGetDtree):
 * tree 0 is the binary tree, tree 1 its mirror image (r -> p-1-r) for
 * even p, or the tree shifted by one rank for odd p, so the leaves of one
 * are the inner ranks of the other. */
int dbt_parent(int t, int r, int p)
{
    if (t == 0)
        return btree_parent(r, p);
    if (p % 2 == 0) {
        int u = btree_parent(p - 1 - r, p);
        return u < 0 ? -1 : p - 1 - u;
    }
    int u = btree_parent((r - 1 + p) % p, p);
    return u < 0 ? -1 : (u + 1) % p;
}

/* Both trees as arrays of p: parent, height (leaves 0) and depth (root 0);
 * got[] marks the step in which a rank last took a child's partial. */
typedef struct {
    int *par[2];    /* parent per tree, -1 at the root */
    int *height[2]; /* longest path down to a leaf */
    int *depth[2];  /* distance from the root */
    int *got[2];    /* 1 + reduce step of the last child received */
    int levels;     /* largest height: steps each way */
    int *mem;       /* the one allocation behind the arrays */
} Dbt;

static CvError dbt_init(Dbt *d, int p)
{
    *d = (Dbt){0};
    d->mem = calloc((size_t)p * 8, sizeof *d->mem);
    if (!d->mem)
        return CV_ERR_NOMEM;
    for (int t = 0; t < 2; t++) {
        int *base = d->mem + (size_t)p * 4 * (size_t)t;
        d->par[t] = base, d->height[t] = base + p;
        d->depth[t] = base + 2 * p, d->got[t] = base + 3 * p;
        for (int r = 0; r < p; r++)
            d->par[t][r] = dbt_parent(t, r, p);
        /* Walk up from every rank: depth, and heights of its ancestors. */
        for (int r = 0; r < p; r++) {
            int h = 0;
            for (int x = r; d->par[t][x] >= 0; x = d->par[t][x]) {
                h++;
                if (d->height[t][d->par[t][x]] < h)
                    d->height[t][d->par[t][x]] = h;
            }
            d->depth[t][r] = h;
            if (h > d->levels)
                d->levels = h;
        }
    }
    return CV_OK;
}

/* Elements of tree t's half of the vector: offset and length. */
static size_t half_off(const CollCall *c, int t)
{
    return blk_off(c->count, 2, t);
}
static size_t half_len(const CollCall *c, int t)
{
    return blk_len(c->count, 2, t);
}

/* Reduce step k: ranks of height k send their partial result of their
 * tree's half up. A parent takes the first child straight into recv and a
 * second one of the same step into tmp (two writes of one element may not
 * share a step); a local step then folds tmp in. */
static void dbt_reduce_step(Schedule *s, Dbt *d, int k)
{
    const CollCall *c = &s->call;
    int p = c->nranks;
    sched_step(s, "reduce");
    for (int t = 0; t < 2; t++)
        for (int r = 0; r < p; r++) {
            int u = d->par[t][r];
            size_t o = half_off(c, t), n = half_len(c, t);
            if (u < 0 || d->height[t][r] != k)
                continue;
            if (d->got[t][u] == k + 1) {
                sched_tmp(s, u, c->count);
                sched_copy(s, r, BUF_RECV, o, u, BUF_TMP, o, n);
                d->got[t][u] = -(k + 1);
            } else {
                sched_reduce(s, r, BUF_RECV, o, u, BUF_RECV, o, n);
                d->got[t][u] = k + 1;
            }
        }
    sched_step(s, "reduce");
    for (int t = 0; t < 2; t++)
        for (int u = 0; u < p; u++)
            if (d->got[t][u] == -(k + 1))
                sched_reduce(s, u, BUF_TMP, half_off(c, t), u, BUF_RECV,
                             half_off(c, t), half_len(c, t));
}

/* Broadcast step k: ranks at depth k + 1 get their tree's half. */
static void dbt_bcast_step(Schedule *s, const Dbt *d, int k)
{
    const CollCall *c = &s->call;
    sched_step(s, "broadcast");
    for (int t = 0; t < 2; t++)
        for (int r = 0; r < c->nranks; r++)
            if (d->depth[t][r] == k + 1)
                sched_copy(s, d->par[t][r], BUF_RECV, half_off(c, t), r,
                           BUF_RECV, half_off(c, t), half_len(c, t));
}

/* Allreduce on two binary trees at once, each over half of the vector:
 * reduce up both (a rank sends when its subtree is complete), then
 * broadcast down both. */
static CvError gen_allreduce_dbt(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "double-binary-tree");
    if (e)
        return e;
    Dbt d;
    if (dbt_init(&d, c->nranks))
        return CV_ERR_NOMEM;
    Walk w = {.n = c->count, .whole = true, .buf = BUF_RECV};
    walk_prepare(s, &w);
    for (int k = 0; k < d.levels; k++)
        dbt_reduce_step(s, &d, k);
    for (int k = 0; k < d.levels; k++)
        dbt_bcast_step(s, &d, k);
    free(d.mem);
    return sched_end(s);
}

/* Levels of the double binary tree (L = ceil(log2 p), P = 2^L) in which
 * some rank takes two children's halves at once: going up every level but
 * the root's, less one more when p <= 3P/4; going down likewise, less one
 * more when p = P/2 + 1. Each tree's root has a single child. */
static void dbt_doubles(int p, int l, int *up, int *down)
{
    int big = 1 << l;
    *up = *down = l - 1;
    if (p > 2 && 4 * p <= 3 * big)
        (*up)--;
    if (p > 2 && p == big / 2 + 1)
        (*down)--;
}

/* With h the larger half in bytes, a level costs a + hb (+ hg going up),
 * or 2a + 2hb (+ 2hg) when a rank takes two halves: for power-of-two p
 * (4L-2)a + (2L-1)nb + (2L-1)/2 ng. */
static void cost_allreduce_dbt(const CollCall *c, CostTerms *out)
{
    int p = c->nranks, l = c->count ? model_log2_ceil(p) : 0, up, down;
    double h = (double)half_len(c, 0) * (double)dtype_size(c->dtype);
    *out = (CostTerms){0};
    if (l == 0)
        return;
    dbt_doubles(p, l, &up, &down);
    out->a = 2 * l + up + down;
    out->b = out->a * h;
    out->g = (l + up) * h;
    out->steps = 2 * l;
}

/* ==================================================== registry entries */

static const AlgoInfo bcast_binomial = {
    .coll = COLL_BROADCAST,
    .name = "binomial",
    .aliases = "tree binomial-tree",
    .summary = "binomial tree: whoever holds the vector sends it on; the "
               "holders double each step",
    .schedule = "vrank v = r-root (mod p); at distance m = 2^(ceil(log2 "
                "p)-1), .., 2, 1 (the largest first) each vrank v that is a "
                "multiple of 2m sends the whole vector to vrank v+m where "
                "v+m < p; the root sends from its input and, out of place, "
                "copies it to its output in the first step",
    .formula = "ceil(log2 p)(a + nb)",
    .constraints = "any p, any count, any root",
    .shape = SHAPE_TREE,
    .generate = gen_bcast,
    .cost = cost_bcast,
};

static const AlgoInfo reduce_binomial = {
    .coll = COLL_REDUCE,
    .name = "binomial",
    .aliases = "tree binomial-tree",
    .summary = "binomial tree: each step the ranks still holding a partial "
               "result pair up; one sends it, the other folds it in",
    .schedule = "vrank v = r-root (mod p); a local step copies the root's "
                "input to its output and each inner rank's to tmp, where "
                "their partial results grow; at distance m = 1, 2, 4, .. "
                "(the smallest first) each vrank v that is an odd multiple "
                "of m sends its whole partial result to vrank v-m, which "
                "adds it to its own: the root takes vrank 1's first and "
                "vrank 2^(ceil(log2 p)-1)'s last",
    .formula = "ceil(log2 p)(a + nb + ng)",
    .constraints = "any p, any count, any root; commutative op",
    .shape = SHAPE_TREE,
    .generate = gen_reduce,
    .cost = cost_reduce,
};

static const AlgoInfo scatter_binomial = {
    .coll = COLL_SCATTER,
    .name = "binomial",
    .aliases = "tree",
    .summary = "binomial tree: each rank receives its subtree's blocks and "
               "passes on the half that belongs to the next subtree",
    .schedule = "broadcast binomial's tree, vrank v = r-root (mod p): at "
                "distance m = 2^(ceil(log2 p)-1), .., 2, 1 each vrank v that "
                "is a multiple of 2m sends vrank v+m (if < p) the blocks of "
                "vranks v+m .., v+2m-1 (those < p) in one message, vrank u's "
                "block being block u+root (mod p); an inner rank keeps the "
                "blocks it passes on in tmp, its own goes to its output",
    .formula = "ceil(log2 p)a + (p-1)/p nb (n = p blocks)",
    .constraints = "any p, any count, any root",
    .shape = SHAPE_TREE,
    .generate = gen_scatter,
    .cost = cost_blocks,
};

static const AlgoInfo gather_binomial = {
    .coll = COLL_GATHER,
    .name = "binomial",
    .aliases = "tree",
    .summary = "binomial tree: each rank collects its subtree's blocks and "
               "sends them up in one message",
    .schedule = "reduce binomial's tree, vrank v = r-root (mod p): at "
                "distance m = 1, 2, 4, .. each vrank v that is an odd "
                "multiple of m sends vrank v-m the blocks of vranks v .., "
                "v+m-1 (those < p) in one message; inner ranks collect them "
                "in tmp, the root in its output",
    .formula = "ceil(log2 p)a + (p-1)/p nb (n = p blocks)",
    .constraints = "any p, any count, any root",
    .shape = SHAPE_TREE,
    .generate = gen_gather,
    .cost = cost_blocks,
};

static const AlgoInfo allreduce_tree = {
    .coll = COLL_ALLREDUCE,
    .name = "tree",
    .aliases = "binomial reduce-bcast",
    .summary = "binomial reduce to rank 0, then binomial broadcast from it",
    .schedule = "a local step copies each input to its output (out of "
                "place); binomial reduce to rank 0: at distance m = 1, 2, 4, "
                ".. each rank v that is an odd multiple of m sends its whole "
                "partial result to rank v-m, which adds it; then binomial "
                "broadcast from rank 0: at distance m = 2^(ceil(log2 p)-1), "
                ".., 2, 1 each rank v that is a multiple of 2m sends the sum "
                "to rank v+m (if < p)",
    .formula = "2ceil(log2 p)(a + nb) + ceil(log2 p)ng",
    .constraints = "any p, any count; commutative op",
    .shape = SHAPE_TREE,
    .generate = gen_allreduce_tree,
    .cost = cost_allreduce_tree,
};

static const AlgoInfo allreduce_dbt = {
    .coll = COLL_ALLREDUCE,
    .name = "double-binary-tree",
    .aliases = "dbt dbtree",
    .summary = "NCCL's double binary tree: two binary trees (the second "
               "mirrored, or shifted for odd p), each rank a leaf in one; "
               "each tree reduces then broadcasts half of the vector",
    .schedule = "tree 0 (NCCL's ncclGetBtree): rank 0 is the root, its one "
                "child 2^(ceil(log2 p)-1); rank r > 0 whose lowest set bit "
                "is b hangs below (r xor b) | 2b, or below r xor b where "
                "that is >= p; odd ranks are leaves. Tree 1 is tree 0 "
                "mirrored (rank r in the place of p-1-r) for even p, shifted "
                "by one (rank r in the place of r-1, mod p) for odd p. Tree "
                "0 carries the first ceil(count/2) elements, tree 1 the "
                "rest. Reduce: in level h = 0, 1, .. the ranks of height h "
                "in either tree send their half's partial result to their "
                "parent, which adds it (a parent with two children in one "
                "level takes the lower rank's straight in, the other's into "
                "tmp, added in a local step after). Broadcast: in level d = "
                "1, 2, .. the ranks at depth d take their half from their "
                "parent",
    .formula = "(2L+u+d)(a + n/2 b) + (L+u)n/2 g, L = ceil(log2 p), u and "
               "d levels up and down where a rank takes two children (both "
               "L-1 for p = 2^L: (4L-2)a + (2L-1)nb + (2L-1)/2 ng)",
    .constraints = "any p, any count; commutative op",
    .shape = SHAPE_TREE,
    .generate = gen_allreduce_dbt,
    .cost = cost_allreduce_dbt,
};

const AlgoInfo *const algos_tree[] = {
    &bcast_binomial, &reduce_binomial, &scatter_binomial, &gather_binomial,
    &allreduce_tree, &allreduce_dbt, NULL,
};
