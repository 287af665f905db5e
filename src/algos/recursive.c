/* recursive.c - the recursive family: partners at distance 2^k.
 *
 * Recursive halving (reduce-scatter) runs on a power-of-two group of p'
 * ranks, the largest power of two <= p. With rem = p - p' extra ranks,
 * ranks 2i and 2i + 1 (i < rem) pair up as MPICH does: in its allreduce
 * and reduce-scatter the even one folds its data into the odd one before
 * the hypercube phase and gets its result back after it, the odd one
 * taking part as virtual rank i; in its reduce the odd one folds into the
 * even one, which goes on (so that a root 0 holds a piece). Rank r >= 2 rem
 * is virtual rank r - rem. Recursive doubling (all-gather) needs no fold:
 * in MPICH's, the ranks that got a subtree p cuts short pass its blocks on
 * to those whose partner did not exist.
 *
 * On top of the shared emitters: recursive-doubling and Bruck allgather,
 * recursive-halving reducescatter, butterfly and halving-doubling
 * (Rabenseifner) allreduce, reduce-scatter-gather (Rabenseifner) reduce and
 * Bruck alltoall. Every closed form is computed from the same block
 * partition the generator uses, so it is exact for any p and count. */
#include "algos/algo.h"
#include "algos/common.h"
#include "algos/cube.h"
#include "core/num.h"

/* ---------------------------------------------------- local helpers */

/* A local step: every rank copies its input (where coll_layout puts it)
 * to (buf, r * stride) unless it is there already. */
static void copy_input(Schedule *s, BufId buf, size_t stride)
{
    sched_step(s, "copy-in");
    for (int r = 0; r < s->call.nranks; r++) {
        CollLayout l;
        coll_layout(&s->call, r, &l);
        size_t at = (size_t)r * stride;
        if (l.in_buf != buf || l.in_off != at)
            sched_copy(s, r, l.in_buf, l.in_off, r, buf, at, l.in_count);
    }
}

/* A local step: every rank copies its result from (buf, r * stride) to
 * where coll_layout wants it, unless it is there already. */
static void copy_output(Schedule *s, BufId buf, size_t stride)
{
    sched_step(s, "copy-out");
    for (int r = 0; r < s->call.nranks; r++) {
        CollLayout l;
        coll_layout(&s->call, r, &l);
        size_t at = (size_t)r * stride;
        if (l.out_buf != buf || l.out_off != at)
            sched_copy(s, r, buf, at, r, l.out_buf, l.out_off, l.out_count);
    }
}

/* Rank r copies p blocks of m elements from (sb, so) to (db, dof), block
 * j going to block (j + shift) mod p. */
static void rotate(Schedule *s, int r, BufId sb, size_t so, BufId db,
                   size_t dof, size_t m, int shift)
{
    int p = s->call.nranks;
    size_t sh = (size_t)(shift % p), head = ((size_t)p - sh) * m;
    sched_copy(s, r, sb, so, r, db, dof + sh * m, head);
    sched_copy(s, r, sb, so + head, r, db, dof, sh * m);
}

/* A call's vector in elements (all p blocks for the block-wise kinds). */
static size_t vec_elems(const CollCall *c)
{
    bool blockwise = c->kind == COLL_ALLGATHER ||
                     c->kind == COLL_REDUCESCATTER ||
                     c->kind == COLL_ALLTOALL || c->kind == COLL_HYPERCUBE;
    return blockwise ? (size_t)c->nranks * c->count : c->count;
}

/* What the algorithms built on the cube need. */
#define FOLD_CONSTRAINTS                                                      \
    "any p (2(p-p') extra ranks fold in and out: 2 more steps, p' the "      \
    "largest power of two <= p), any count"

/* ---------------------------------------------------------- allgather */

/* Also hypercube's: nccl-tests' hypercube is this all-gather on a power of
 * two ranks (the copy-in, then at mask 1, 2, 4, ... rank r swaps the mask
 * blocks it has with rank r ^ mask), where no rank folds in or out. */
static CvError gen_ag_doubling(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, args->self->name);
    if (e)
        return e;
    copy_input(s, BUF_RECV, c->count);
    emit_doubling_allgather(s, vec_elems(c), BUF_RECV, 0, "all-gather");
    return sched_end(s);
}

/* At distance m the busiest pair is ranks 0 and m (the first blocks, the
 * largest); each step of passing on moves the c blocks from t + m. */
static void cost_ag_doubling(const CollCall *c, CostTerms *out)
{
    int p = c->nranks;
    size_t n = vec_elems(c), ts = dtype_size(c->dtype);
    *out = (CostTerms){0};
    for (int m = 1; m < p; m *= 2) {
        cube_cost_step(out, blk_off(n, p, m) * ts, 0);
        int t, cut = cube_cut_subtree(p, m, &t);
        for (int d = m / 2; cut && 2 * d > cut; d /= 2)
            cube_cost_step(out, (n - blk_off(n, p, t + m)) * ts, 0);
    }
}

static const AlgoInfo ag_doubling = {
    .coll = COLL_ALLGATHER,
    .name = "recursive-doubling",
    .aliases = "rd doubling",
    .summary = "partners at distance 1, 2, 4, ... swap all they have",
    .schedule = "out of place a local step copies rank r's input to block r "
                "of its output. At distance m = 1, 2, 4, .. (the smallest "
                "first) rank r sends the blocks it holds, those of ranks r & "
                "~(m-1) .., up to m of them and < p, to rank r xor m where "
                "that rank is < p, and receives as many. For p not a power "
                "of two (MPICH's; no rank folds) a rank whose partner is >= "
                "p takes nothing at that distance; after distance m, where "
                "the m ranks from t = (p-1) & ~(2m-1) have a partner group "
                "cut to c = p-t-m ranks (0 < c < m), their first c pass the "
                "blocks t+m .., p-1 on: at d = m/2, m/4, .. while 2d > c, in "
                "every window of 2d ranks from t, member o < min(d, c) sends "
                "them to member o+d where o+d >= c",
    .formula = "log2(p)a + (p-1)/p nb",
    .formula_other = "p not a power of two (MPICH's): ceil(log2 p)a + "
                     "(2p'-1)/p nb for the swaps at distance m = 1, 2, .., "
                     "p' (p' the largest power of two <= p), plus a + c n/p "
                     "b for each step passing on, where the partner subtree "
                     "of the m ranks from t (the last multiple of 2m below "
                     "p) has c = p-t-m ranks, 0 < c < m: one step for each "
                     "2d = m, m/2, .. above c",
    .constraints = "any p (not a power of two: the ranks that got a cut "
                   "subtree pass it on, more steps), any count",
    .shape = SHAPE_HYPERCUBE,
    .generate = gen_ag_doubling,
    .cost = cost_ag_doubling,
};

static const AlgoInfo hc_doubling = {
    .coll = COLL_HYPERCUBE,
    .name = "doubling",
    .aliases = "recursive-doubling rd",
    .summary = "partners at distance 1, 2, 4, ... swap all they have "
               "(nccl-tests' hypercube)",
    .schedule = "allgather recursive-doubling on p a power of two: out of "
                "place a local step copies rank r's input to block r of its "
                "output; at distance m = 1, 2, .., p/2 (the smallest first) "
                "rank r swaps the m blocks it holds, r & ~(m-1) .., with "
                "rank r xor m",
    .formula = "log2(p)a + (p-1)/p nb",
    .constraints = "p a power of two, any count",
    .shape = SHAPE_HYPERCUBE,
    .generate = gen_ag_doubling,
    .cost = cost_ag_doubling,
};

/* Bruck: rank r keeps blocks r, r + 1, ... at the start of tmp; at
 * distance d it gets the d blocks after its own from rank r + d. */
static CvError gen_ag_bruck(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "bruck");
    if (e)
        return e;
    int p = c->nranks;
    size_t m = c->count;
    sched_tmp_all(s, (size_t)p * m);
    copy_input(s, BUF_TMP, 0);
    for (int d = 1; d < p; d *= 2) {
        size_t nb = (size_t)(d < p - d ? d : p - d);
        sched_step(s, "all-gather");
        for (int r = 0; r < p; r++)
            sched_copy(s, r, BUF_TMP, 0, (r - d + p) % p, BUF_TMP,
                       (size_t)d * m, nb * m);
    }
    sched_step(s, "rotate");
    for (int r = 0; r < p; r++)
        rotate(s, r, BUF_TMP, 0, BUF_RECV, 0, m, r);
    return sched_end(s);
}

static void cost_ag_bruck(const CollCall *c, CostTerms *out)
{
    int p = c->nranks;
    size_t blk = c->count * dtype_size(c->dtype);
    *out = (CostTerms){0};
    for (int d = 1; d < p; d *= 2)
        cube_cost_step(out, (size_t)(d < p - d ? d : p - d) * blk, 0);
}

static const AlgoInfo ag_bruck = {
    .coll = COLL_ALLGATHER,
    .name = "bruck",
    .aliases = "",
    .summary = "ceil(log2 p) steps for any p, then a local rotation",
    .schedule = "a local step copies rank r's input to slot 0 of tmp (p "
                "slots); at distance d = 1, 2, 4, .. < p rank r sends its "
                "first min(d, p-d) slots to rank r-d, into slots d .., and "
                "receives those of rank r+d (ranks mod p); slot j of rank r "
                "then holds block r+j, and a local rotation puts it at block "
                "r+j (mod p) of the output",
    .formula = "ceil(log2 p)a + (p-1)/p nb",
    .constraints = "any p, any count; tmp of p blocks",
    .shape = SHAPE_HYPERCUBE,
    .generate = gen_ag_bruck,
    .cost = cost_ag_bruck,
};

/* ------------------------------------------------------ reducescatter */

static CvError gen_rs_halving(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "recursive-halving");
    if (e)
        return e;
    BufId work = c->in_place ? BUF_RECV : BUF_TMP;
    if (work == BUF_TMP)
        sched_tmp_all(s, vec_elems(c));
    copy_input(s, work, 0);
    emit_halving_reducescatter(s, vec_elems(c), work, 0, "reduce-scatter");
    copy_output(s, work, c->count);
    return sched_end(s);
}

/* Recursive halving of a vector of n elements with its folds. */
static void cost_halving(const CollCall *c, size_t n, CostTerms *out)
{
    Cube cb = cube_make(c->nranks, n, true, BUF_RECV, 0);
    size_t ts = dtype_size(c->dtype);
    cube_cost_fold(out, &cb, FOLD_ALL, true, ts);
    cube_cost(out, &cb, true, ts);
    cube_cost_fold(out, &cb, FOLD_OWN, false, ts);
}

static void cost_rs_halving(const CollCall *c, CostTerms *out)
{
    *out = (CostTerms){0};
    cost_halving(c, vec_elems(c), out);
}

static const AlgoInfo rs_halving = {
    .coll = COLL_REDUCESCATTER,
    .name = "recursive-halving",
    .aliases = "rh halving",
    .summary = "partners at distance p/2, p/4, ... swap and reduce halves",
    .schedule = "the p blocks are summed in the buffer in place, out of "
                "place in a copy of the input in tmp (a local step). p' is "
                "the largest power of two <= p and e = p-p'; for i < e rank "
                "2i first adds its whole vector into rank 2i+1 (fold-in), "
                "which plays virtual rank i and owns blocks 2i and 2i+1; "
                "rank r >= 2e plays r-e and owns block r. Recursive halving: "
                "at distance m = p'/2, .., 2, 1 (the largest first) virtual "
                "rank v sends v xor m the half of its window of 2m virtual "
                "ranks' blocks that v xor m's half owns and adds the half it "
                "receives; then rank 2i+1 sends block 2i back to rank 2i "
                "(fold-out) and each rank copies its block to its output",
    .formula = "log2(p)a + (p-1)/p nb + (p-1)/p ng",
    .formula_other = "p not a power of two: (log2(p')+2)a + "
                     "(1 + (H+1)/p) nb + (1 + H/p) ng, p' the largest power "
                     "of two <= p, H = the sum over m = 1, 2, .., p'/2 of "
                     "m + min(m, p-p') (fold-in, halving by block owner, "
                     "fold-out)",
    .constraints = FOLD_CONSTRAINTS,
    .shape = SHAPE_HYPERCUBE,
    .generate = gen_rs_halving,
    .cost = cost_rs_halving,
};

/* ------------------------------------------------------------- reduce */

/* The pieces of virtual ranks [lo, hi) counted from vroot (the range
 * wrapping around at pp) move from rank `from` to rank `to`: at most two
 * transfers, cut as tree.c's binomial gather cuts blocks. */
static void pieces_move(Schedule *s, const Cube *c, int vroot, int from,
                        int to, int lo, int hi)
{
    while (lo < hi) {
        int u = rrank(lo, vroot, c->pp), k = num_min(hi - lo, c->pp - u);
        cube_move(s, c, XFER_COPY, from, to, cube_bound(c, u),
                  cube_bound(c, u + k));
        lo += k;
    }
}

/* MPICH's gather after the halving: virtual rank v holds piece v; a
 * binomial tree among the pp ranks of the cube brings the pieces to the
 * root, at distance 1, 2, 4, ... (counted from the root's virtual rank).
 * A root folded out first gets piece 0 from rank 0 (virtual rank 0), then
 * plays virtual rank 0. */
static void cube_gather(Schedule *s, const Cube *c, int root)
{
    int vroot = cube_virt(c, root), as0 = cube_real(c, 0);
    if (vroot < 0) {
        sched_step(s, "to-root");
        cube_move(s, c, XFER_COPY, as0, root, 0, cube_bound(c, 1));
        vroot = 0, as0 = root;
    }
    for (int m = 1; m < c->pp; m *= 2) {
        sched_step(s, "gather");
        for (int w = m; w < c->pp; w += 2 * m) {
            int from = rrank(w, vroot, c->pp), to = rrank(w - m, vroot, c->pp);
            pieces_move(s, c, vroot, from ? cube_real(c, from) : as0,
                        to ? cube_real(c, to) : as0, w, num_min(w + m, c->pp));
        }
    }
}

/* The cube of MPICH's reduce: pp equal pieces, the even rank of a pair
 * staying (so that a root 0 takes part). */
static Cube reduce_cube(const CollCall *c)
{
    Cube cb = cube_make(c->nranks, c->count, false, BUF_TMP, 0);
    cb.keep_even = true;
    return cb;
}

/* Rabenseifner's reduce as MPICH's reduce_intra_reduce_scatter_gather:
 * the odd rank of each extra pair folds its whole vector into the even
 * one, recursive halving over pp equal pieces leaves piece v at virtual
 * rank v, a binomial gather among the pp ranks brings them to the root.
 * Every rank works in tmp, so the inputs of ranks other than the root
 * stay as they were. (MPICH halves at distance 1 first and gathers from
 * distance pp/2; the other order here moves the same bytes.) */
static CvError gen_reduce_rsg(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "rabenseifner");
    if (e)
        return e;
    Cube cb = reduce_cube(c);
    sched_tmp_all(s, c->count);
    copy_input(s, BUF_TMP, 0);
    cube_fold(s, &cb, XFER_REDUCE, false, FOLD_ALL, "fold-in");
    cube_halving(s, &cb, "reduce-scatter");
    cube_gather(s, &cb, c->root);
    copy_output(s, BUF_TMP, 0);
    return sched_end(s);
}

/* Elements of the pieces of virtual ranks [lo, hi) counted from vroot. */
static size_t pieces_elems(const Cube *c, int vroot, int lo, int hi)
{
    size_t e = 0;
    while (lo < hi) {
        int u = rrank(lo, vroot, c->pp), k = num_min(hi - lo, c->pp - u);
        e += cube_bound(c, u + k) - cube_bound(c, u);
        lo += k;
    }
    return e;
}

/* cube_gather's steps: at distance m the busiest sender's pieces. */
static void cost_gather(CostTerms *t, const Cube *c, int root, size_t ts)
{
    int vroot = cube_virt(c, root);
    if (vroot < 0) { /* piece 0 to the root first */
        cube_cost_step(t, cube_bound(c, 1) * ts, 0);
        vroot = 0;
    }
    for (int m = 1; m < c->pp; m *= 2) {
        size_t most = 0;
        for (int w = m; w < c->pp; w += 2 * m) {
            size_t e = pieces_elems(c, vroot, w, num_min(w + m, c->pp));
            most = e > most ? e : most;
        }
        cube_cost_step(t, most * ts, 0);
    }
}

static void cost_reduce_rsg(const CollCall *c, CostTerms *out)
{
    Cube cb = reduce_cube(c);
    size_t ts = dtype_size(c->dtype);
    *out = (CostTerms){0};
    cube_cost_fold(out, &cb, FOLD_ALL, true, ts);
    cube_cost(out, &cb, true, ts);
    cost_gather(out, &cb, c->root, ts);
}

static const AlgoInfo reduce_rsg = {
    .coll = COLL_REDUCE,
    .name = "rabenseifner",
    .aliases = "reduce-scatter-gather rsg",
    .summary = "recursive-halving reduce-scatter, binomial gather to the "
               "root",
    .schedule = "every rank works on a copy of its input in tmp. p' is the "
                "largest power of two <= p and e = p-p'; for i < e rank 2i+1 "
                "first adds its whole vector into rank 2i (fold-in), which "
                "plays virtual rank i; rank r >= 2e plays r-e. The vector is "
                "cut into p' equal pieces. Reduce-scatter by recursive "
                "halving: at distance m = p'/2, .., 2, 1 (the largest first, "
                "where MPICH's starts at 1) virtual rank v sends v xor m the "
                "half of its window of 2m pieces that holds piece v xor m "
                "and adds the half it receives; v ends with piece v reduced. "
                "Gather: a root folded out (odd, < 2e) first takes piece 0 "
                "from rank 0 and then plays virtual rank 0; with u the "
                "root's virtual rank, at distance m = 1, 2, 4, .. virtual "
                "rank u+w (w an odd multiple of m, mod p') sends the pieces "
                "u+w .., u+w+m-1 to u+w-m; the root copies the result to its "
                "output",
    .formula = "2log2(p)a + 2(p-1)/p nb + (p-1)/p ng",
    .formula_other = "p not a power of two: (2F+1)a + "
                     "(2(p'-1)/p' + 1) nb + (1 + (p'-1)/p') ng, p' the "
                     "largest power of two <= p, F = log2 p'; a root folded "
                     "out (odd, < 2(p-p')) adds a + n/p' b",
    .constraints = "any p (the first 2(p-p') ranks fold in pairs: 1 more "
                   "step, 2 with the root folded out; p' the largest power "
                   "of two <= p), any count, any root",
    .shape = SHAPE_HYPERCUBE,
    .generate = gen_reduce_rsg,
    .cost = cost_reduce_rsg,
};

/* ---------------------------------------------------------- allreduce */

/* An allreduce over pp equal blocks: extra ranks fold their whole vector
 * in, `middle` runs on the power-of-two group, the result folds out. */
static CvError gen_ar_cube(const AlgoArgs *args, Schedule *s,
                           const char *name,
                           void (*middle)(Schedule *, const Cube *))
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, name);
    if (e)
        return e;
    Cube cb = cube_make(c->nranks, c->count, false, BUF_RECV, 0);
    copy_input(s, BUF_RECV, 0);
    cube_fold(s, &cb, XFER_REDUCE, false, FOLD_ALL, "fold-in");
    middle(s, &cb);
    cube_fold(s, &cb, XFER_COPY, true, FOLD_ALL, "fold-out");
    return sched_end(s);
}

/* The closed form of gen_ar_cube, `middle` giving the group's terms. */
static void cost_ar_cube(const CollCall *c, CostTerms *out,
                         void (*middle)(CostTerms *, const Cube *, size_t))
{
    Cube cb = cube_make(c->nranks, c->count, false, BUF_RECV, 0);
    size_t ts = dtype_size(c->dtype);
    *out = (CostTerms){0};
    cube_cost_fold(out, &cb, FOLD_ALL, true, ts);
    middle(out, &cb, ts);
    cube_cost_fold(out, &cb, FOLD_ALL, false, ts);
}

/* Butterfly: at distance 1, 2, 4, ... partners add their whole vectors
 * into each other's (the executor stages what a step reads and writes). */
static void butterfly(Schedule *s, const Cube *c)
{
    for (int mask = 1; mask < c->pp; mask *= 2) {
        sched_step(s, "exchange");
        for (int v = 0; v < c->pp; v++)
            cube_move(s, c, XFER_REDUCE, cube_real(c, v),
                      cube_real(c, v ^ mask), 0, c->n);
    }
}

static void cost_butterfly(CostTerms *t, const Cube *c, size_t ts)
{
    for (int mask = 1; mask < c->pp; mask *= 2)
        cube_cost_step(t, c->n * ts, c->n * ts);
}

static CvError gen_ar_butterfly(const AlgoArgs *args, Schedule *s)
{
    return gen_ar_cube(args, s, "butterfly", butterfly);
}

static void cost_ar_butterfly(const CollCall *c, CostTerms *out)
{
    cost_ar_cube(c, out, cost_butterfly);
}

static const AlgoInfo ar_butterfly = {
    .coll = COLL_ALLREDUCE,
    .name = "butterfly",
    .aliases = "recursive-doubling rd",
    .summary = "partners at distance 1, 2, 4, ... swap and reduce it all",
    .schedule = "a local step copies each input to its output (out of "
                "place). p' is the largest power of two <= p and e = p-p'; "
                "for i < e rank 2i first adds its whole vector into rank "
                "2i+1 (fold-in), which plays virtual rank i; rank r >= 2e "
                "plays r-e. At distance m = 1, 2, .., p'/2 (partner v xor 1 "
                "first) virtual ranks v and v xor m send each other their "
                "whole vector and each adds the other's; then rank 2i+1 "
                "sends the result to rank 2i (fold-out)",
    .formula = "log2(p)a + log2(p) nb + log2(p) ng",
    .formula_other = "p not a power of two: (F+2)a + (F+2) nb + "
                     "(F+1) ng, F = log2 p', p' the largest power of two <= p",
    .constraints = FOLD_CONSTRAINTS,
    .shape = SHAPE_HYPERCUBE,
    .generate = gen_ar_butterfly,
    .cost = cost_ar_butterfly,
};

/* Rabenseifner: recursive halving over pp equal blocks, then recursive
 * doubling. */
static void halving_doubling(Schedule *s, const Cube *c)
{
    cube_halving(s, c, "reduce-scatter");
    cube_doubling(s, c, "all-gather");
}

static void cost_halving_doubling(CostTerms *t, const Cube *c, size_t ts)
{
    cube_cost(t, c, true, ts);
    cube_cost(t, c, false, ts);
}

static CvError gen_ar_hd(const AlgoArgs *args, Schedule *s)
{
    return gen_ar_cube(args, s, "halving-doubling", halving_doubling);
}

static void cost_ar_hd(const CollCall *c, CostTerms *out)
{
    cost_ar_cube(c, out, cost_halving_doubling);
}

static const AlgoInfo ar_hd = {
    .coll = COLL_ALLREDUCE,
    .name = "halving-doubling",
    .aliases = "rabenseifner hd",
    .summary = "recursive-halving reduce-scatter, recursive-doubling "
               "all-gather",
    .schedule = "a local step copies each input to its output (out of "
                "place). p' is the largest power of two <= p and e = p-p'; "
                "for i < e rank 2i first adds its whole vector into rank "
                "2i+1 (fold-in), which plays virtual rank i; rank r >= 2e "
                "plays r-e. The vector is cut into p' equal blocks. "
                "Reduce-scatter by recursive halving: at distance m = p'/2, "
                ".., 2, 1 (partner v xor p'/2 first) virtual rank v sends v "
                "xor m the half of its window of 2m blocks that holds block "
                "v xor m and adds the half it receives; v ends with block v "
                "reduced. All-gather by recursive doubling: at distance m = "
                "1, 2, .., p'/2 (partner v xor 1 first) v sends v xor m the "
                "m blocks it holds, v & ~(m-1) onwards. Then rank 2i+1 sends "
                "the whole result to rank 2i (fold-out)",
    .formula = "2log2(p)a + 2(p-1)/p nb + (p-1)/p ng",
    .formula_other = "p not a power of two: (2F+2)a + "
                     "(2(p'-1)/p' + 2) nb + (1 + (p'-1)/p') ng, F = log2 p', "
                     "p' the largest power of two <= p",
    .constraints = FOLD_CONSTRAINTS,
    .shape = SHAPE_HYPERCUBE,
    .generate = gen_ar_hd,
    .cost = cost_ar_hd,
};

/* ----------------------------------------------------------- alltoall */

/* Bruck: tmp block j of rank r holds what goes to rank r + j; at distance
 * 2^k every block whose index has bit k set moves on to rank r + 2^k (same
 * slot: the executor stages what a step both reads and writes). At the
 * end tmp block j of rank r came from rank r - j. */
static CvError gen_a2a_bruck(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "bruck");
    if (e)
        return e;
    int p = c->nranks;
    size_t m = c->count;
    sched_tmp_all(s, (size_t)p * m);
    sched_step(s, "rotate");
    for (int r = 0; r < p; r++) {
        CollLayout l;
        coll_layout(c, r, &l);
        rotate(s, r, l.in_buf, l.in_off, BUF_TMP, 0, m, p - r);
    }
    /* compact: every rank does what rank 0 does in the exchanges (the
       same slots) and in the last rotation (from the block r - i, which
       moves along with the rank): rank 0's transfers, spread */
    int ranks = s->compact && p > 1 ? 1 : p;
    for (int d = 1; d < p && !s->err; d *= 2) {
        sched_step(s, "exchange");
        for (int r = 0; r < ranks; r++)
            for (int j = d; j < p; j += 2 * d)
                sched_copy(s, r, BUF_TMP, (size_t)j * m, (r + d) % p, BUF_TMP,
                           (size_t)j * m, (size_t)(j + d < p ? d : p - j) * m);
        if (ranks == 1)
            sched_spread(s, m);
    }
    sched_step(s, "rotate");
    sched_flags(s, ranks == 1 ? XF_ROT_SRC : 0);
    for (int r = 0; r < ranks && !s->err; r++)
        for (int i = 0; i < p; i++)
            sched_copy(s, r, BUF_TMP, (size_t)((r - i + p) % p) * m, r,
                       BUF_RECV, (size_t)i * m, m);
    sched_flags(s, 0);
    if (ranks == 1)
        sched_spread(s, m);
    return sched_end(s);
}

static void cost_a2a_bruck(const CollCall *c, CostTerms *out)
{
    int p = c->nranks;
    size_t blk = c->count * dtype_size(c->dtype);
    *out = (CostTerms){0};
    for (int d = 1; d < p; d *= 2) {
        size_t nb = 0; /* block indices below p with this bit set */
        for (int j = d; j < p; j += 2 * d)
            nb += (size_t)(j + d < p ? d : p - j);
        cube_cost_step(out, nb * blk, 0);
    }
}

static const AlgoInfo a2a_bruck = {
    .coll = COLL_ALLTOALL,
    .name = "bruck",
    .aliases = "",
    .summary = "rotate, ceil(log2 p) steps of the blocks with bit k set, "
               "rotate back",
    .schedule = "a local rotation puts block r+j of rank r's input at slot j "
                "of tmp (p slots); at distance d = 1, 2, 4, .. < p rank r "
                "sends every slot j with j & d != 0 to rank r+d, into the "
                "same slot, and receives those of rank r-d (ranks and blocks "
                "mod p); slot j of rank r then holds what rank r-j had for "
                "it, and a local rotation puts it at block r-j of the output",
    .formula = "ceil(log2 p)a + log2(p) n/2 b",
    .formula_other = "p not a power of two: ceil(log2 p)a + B n/p b, "
                     "B the set bits of 0, 1, .., p-1 (the blocks step k "
                     "sends: those whose index has bit k set)",
    .constraints = "any p, any count; tmp of p blocks",
    .shape = SHAPE_HYPERCUBE,
    .generate = gen_a2a_bruck,
    .cost = cost_a2a_bruck,
};

/* ------------------------------------------------------------ registry */

const AlgoInfo *const algos_recursive[] = {
    &reduce_rsg, &ag_doubling, &ag_bruck, &rs_halving, &ar_butterfly,
    &ar_hd, &a2a_bruck, &hc_doubling, NULL,
};
