/* linear.c - the linear family: flat (star) algorithms in which one rank
 * talks to everybody, and pairwise exchanges in which every rank talks to
 * every other rank, one partner per step. */
#include "algos/algo.h"
#include "algos/common.h"

/* ------------------------------------------------------------- helpers */

/* A place in one rank's buffers. */
typedef struct {
    BufId buf;  /* which buffer */
    size_t off; /* first element */
} Loc;

/* Where rank r's input (or output, when !input) starts. */
static Loc loc_of(const CollCall *c, int r, int input)
{
    CollLayout l;
    coll_layout(c, r, &l);
    return input ? (Loc){l.in_buf, l.in_off} : (Loc){l.out_buf, l.out_off};
}

/* Copy n elements from rank src at a to rank dst at b, unless they are
 * the same elements (a root's own block in place). */
static void move(Schedule *s, int src, Loc a, int dst, Loc b, size_t n)
{
    if (src == dst && a.buf == b.buf && a.off == b.off)
        return;
    sched_copy(s, src, a.buf, a.off, dst, b.buf, b.off, n);
}

/* Flags of a transfer of a compact spread step (sched_spread): which of
 * its offsets move one block per rank, as rank r's block r does. */
static uint8_t rot_flags(bool src_moves, bool dst_moves)
{
    return (uint8_t)((src_moves ? XF_ROT_SRC : 0) | (dst_moves ? XF_ROT_DST : 0));
}

/* Whether rank r's input (or output) sits at r count in its buffer, one
 * block further per rank (an in-place allgather's input), rather than at
 * the same place on every rank. */
static bool loc_moves(const CollCall *c, int input)
{
    return c->nranks > 1 &&
           loc_of(c, 1, input).off == loc_of(c, 0, input).off + c->count;
}

/* A compact schedule spreads a step in which every rank does what rank 0
 * does (Step.spread): only rank 0's transfers are listed. */
static bool spread_ok(const Schedule *s)
{
    return s->compact && s->call.nranks > 1;
}

/* Cost terms shared by the whole family: `a` messages and `b` and `g`
 * blocks of count elements on the critical path, over `steps` steps;
 * nothing moves when p == 1 or count == 0. */
static void lin_cost(const CollCall *c, double steps, double a, double b,
                     double g, CostTerms *out)
{
    double blk = (double)c->count * (double)dtype_size(c->dtype);
    *out = (CostTerms){0};
    if (c->nranks < 2 || c->count == 0)
        return;
    *out = (CostTerms){.a = a, .b = b * blk, .g = g * blk, .steps = steps};
}

/* ---------------------------------------------------- star: one step */

/* One step between the root and every rank r: count elements from the
 * root's input (at r * stride) to r's output, or, when `inward`, from r's
 * input to the root's output (at r * stride). */
static CvError star(const AlgoArgs *args, Schedule *s, const char *phase,
                    int inward, size_t stride)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "linear");
    if (e)
        return e;
    int root = c->root;
    sched_step(s, phase);
    for (int r = 0; r < c->nranks; r++) {
        Loc at = loc_of(c, root, !inward), far = loc_of(c, r, inward);
        at.off += (size_t)r * stride;
        if (inward)
            move(s, r, far, root, at, c->count);
        else
            move(s, root, at, r, far, c->count);
    }
    return sched_end(s);
}

static CvError gen_broadcast_linear(const AlgoArgs *args, Schedule *s)
{
    return star(args, s, "broadcast", 0, 0);
}

static CvError gen_scatter_linear(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    return star(args, s, "scatter", 0, c->count);
}

static CvError gen_gather_linear(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    return star(args, s, "gather", 1, c->count);
}

/* One step, the root sends p - 1 messages of a block each. */
static void cost_star(const CollCall *c, CostTerms *out)
{
    double p1 = c->nranks - 1;
    lin_cost(c, 1, p1, p1, 0, out);
}

static const AlgoInfo broadcast_linear = {
    .coll = COLL_BROADCAST,
    .name = "linear",
    .aliases = "flat",
    .summary = "the root sends the whole vector to every other rank in one "
               "step",
    .schedule = "one step: the root sends its whole input to every other "
                "rank at once; out of place it copies it to its own output "
                "in the same step",
    .formula = "(p-1)a + (p-1)nb",
    .constraints = "any p, any count",
    .shape = SHAPE_STAR,
    .generate = gen_broadcast_linear,
    .cost = cost_star,
};

static const AlgoInfo scatter_linear = {
    .coll = COLL_SCATTER,
    .name = "linear",
    .aliases = "flat",
    .summary = "the root sends every rank its block in one step",
    .schedule = "one step: the root sends block r of its input to each rank "
                "r at once (its own block a local copy in the same step)",
    .formula = "(p-1)a + (p-1)/p nb",
    .constraints = "any p, any count",
    .shape = SHAPE_STAR,
    .generate = gen_scatter_linear,
    .cost = cost_star,
};

static const AlgoInfo gather_linear = {
    .coll = COLL_GATHER,
    .name = "linear",
    .aliases = "flat",
    .summary = "every rank sends its block to the root in one step",
    .schedule = "one step: every rank r sends its input to the root at once, "
                "into block r of the root's output (the root's own a local "
                "copy in the same step)",
    .formula = "(p-1)a + (p-1)/p nb",
    .constraints = "any p, any count",
    .shape = SHAPE_STAR,
    .generate = gen_gather_linear,
    .cost = cost_star,
};

/* ------------------------------------------------- fan-in and fan-out */

/* Reduce every rank's input into the root's output, one rank per step (a
 * step may not write an element twice), after copying the root's own
 * input there. */
static void fan_in(Schedule *s, int root)
{
    const CollCall *c = &s->call;
    int p = c->nranks;
    Loc out = loc_of(c, root, 0);
    sched_step(s, "copy-in");
    move(s, root, loc_of(c, root, 1), root, out, c->count);
    for (int v = 1; v < p; v++) {
        int r = rrank(v, root, p);
        Loc in = loc_of(c, r, 1);
        sched_step(s, "reduce");
        sched_reduce(s, r, in.buf, in.off, root, out.buf, out.off, c->count);
    }
}

static CvError gen_reduce_linear(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "linear");
    if (e)
        return e;
    fan_in(s, c->root);
    return sched_end(s);
}

static void cost_reduce_linear(const CollCall *c, CostTerms *out)
{
    double p1 = c->nranks - 1;
    lin_cost(c, p1, p1, p1, p1, out);
}

static const AlgoInfo reduce_linear = {
    .coll = COLL_REDUCE,
    .name = "linear",
    .aliases = "flat",
    .summary = "the root receives and reduces the other ranks' vectors, one "
               "per step",
    .schedule = "a local step copies the root's input to its output; then in "
                "step k = 1, .., p-1 rank root+k (mod p) sends its whole "
                "input to the root, which adds it in: one rank a step, in "
                "rank order from the root",
    .formula = "(p-1)a + (p-1)nb + (p-1)ng",
    .constraints = "any p, any count",
    .shape = SHAPE_STAR,
    .generate = gen_reduce_linear,
    .cost = cost_reduce_linear,
};

/* Rank 0, the parameter server, reduces everybody's vector and sends the
 * sum back to everybody in one step. */
static CvError gen_allreduce_direct(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "direct");
    if (e)
        return e;
    fan_in(s, 0);
    sched_step(s, "broadcast");
    for (int r = 1; r < c->nranks; r++)
        sched_copy(s, 0, BUF_RECV, 0, r, BUF_RECV, 0, c->count);
    return sched_end(s);
}

static void cost_allreduce_direct(const CollCall *c, CostTerms *out)
{
    double p1 = c->nranks - 1;
    lin_cost(c, p1 + 1, 2 * p1, 2 * p1, p1, out);
}

static const AlgoInfo allreduce_direct = {
    .coll = COLL_ALLREDUCE,
    .name = "direct",
    .aliases = "parameter-server ps",
    .summary = "rank 0 reduces the vectors one per step, then sends the sum "
               "to everybody at once",
    .schedule = "rank 0 (whatever the root) copies its input to its output "
                "in a local step; in step k = 1, .., p-1 rank k sends its "
                "whole input to rank 0, which adds it in; in a last step "
                "rank 0 sends the sum to ranks 1, .., p-1 at once",
    .formula = "2(p-1)a + 2(p-1)nb + (p-1)ng",
    .constraints = "any p, any count",
    .shape = SHAPE_STAR,
    .generate = gen_allreduce_direct,
    .cost = cost_allreduce_direct,
};

/* ------------------------------------------------------------ pairwise */

/* Out of place, copy each rank's own block of its input (block r of the
 * send buffer) to recv at 0, or at r * count when `blockwise`: free. */
static void copy_own_block(Schedule *s, int blockwise)
{
    const CollCall *c = &s->call;
    if (c->in_place)
        return;
    sched_step(s, "copy-in");
    bool one = spread_ok(s);
    sched_flags(s, one ? rot_flags(true, blockwise) : 0);
    for (int r = 0; r < (one ? 1 : c->nranks); r++) {
        size_t own = (size_t)r * c->count;
        sched_copy(s, r, BUF_SEND, own, r, BUF_RECV, blockwise ? own : 0, c->count);
    }
    sched_flags(s, 0);
    if (one)
        sched_spread(s, c->count);
}

/* In step k rank r reduces block r of rank r - k's input into its result:
 * every rank sends one block and reduces one block per step. */
static CvError gen_reducescatter_pairwise(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "pairwise");
    if (e)
        return e;
    int p = c->nranks;
    bool one = spread_ok(s);
    copy_own_block(s, 0);
    for (int k = 1; k < p && !s->err; k++) {
        sched_step(s, "exchange");
        /* compact: rank 0's reduce, every rank's the same moved along */
        sched_flags(s, one ? rot_flags(true, loc_moves(c, 0)) : 0);
        for (int r = 0; r < (one ? 1 : p); r++) {
            int src = (r - k + p) % p;
            Loc in = loc_of(c, src, 1), out = loc_of(c, r, 0);
            sched_reduce(s, src, in.buf, in.off + (size_t)r * c->count, r,
                         out.buf, out.off, c->count);
        }
        sched_flags(s, 0);
        if (one)
            sched_spread(s, c->count);
    }
    return sched_end(s);
}

/* p - 1 steps of one block out and one block in per rank. */
static void cost_pairwise(const CollCall *c, CostTerms *out)
{
    double p1 = c->nranks - 1;
    lin_cost(c, p1, p1, p1, c->kind == COLL_REDUCESCATTER ? p1 : 0, out);
}

static const AlgoInfo reducescatter_pairwise = {
    .coll = COLL_REDUCESCATTER,
    .name = "pairwise",
    .aliases = "pairwise-exchange",
    .summary = "in step k rank r sends block r+k to rank r+k, which adds it "
               "to its result",
    .schedule = "out of place a local step copies block r of rank r's input "
                "to its output; then in step k = 1, .., p-1 rank r sends "
                "block r+k of its input to rank r+k, which adds it into its "
                "result, and takes block r from rank r-k (ranks and blocks "
                "mod p): partners k apart, for every p, never r xor k",
    .formula = "(p-1)a + (p-1)/p nb + (p-1)/p ng",
    .constraints = "any p, any count",
    .shape = SHAPE_FULL,
    .generate = gen_reducescatter_pairwise,
    .cost = cost_pairwise,
};

/* In place, block r + k of rank r is overwritten in step p - k; when that
 * comes before step k (2k > p) it is saved to tmp first. Where rank r
 * reads the block it sends in step k from. */
static Loc alltoall_src(const CollCall *c, int r, int k)
{
    int p = c->nranks, h = p / 2;
    size_t d = (size_t)((r + k) % p) * c->count;
    if (!c->in_place)
        return (Loc){BUF_SEND, d};
    if (2 * k <= p)
        return (Loc){BUF_RECV, d};
    return (Loc){BUF_TMP, (size_t)(k - h - 1) * c->count};
}

/* In place, save the blocks alltoall_src reads from tmp: a free step. */
static void alltoall_save(Schedule *s)
{
    const CollCall *c = &s->call;
    int p = c->nranks, h = p / 2;
    if (!c->in_place || p - 1 - h <= 0)
        return;
    sched_tmp_all(s, (size_t)(p - 1 - h) * c->count);
    sched_step(s, "save");
    bool one = spread_ok(s);
    sched_flags(s, one ? rot_flags(true, false) : 0);
    for (int r = 0; r < (one ? 1 : p); r++)
        for (int k = h + 1; k < p; k++)
            sched_copy(s, r, BUF_RECV, (size_t)((r + k) % p) * c->count, r,
                       BUF_TMP, (size_t)(k - h - 1) * c->count, c->count);
    sched_flags(s, 0);
    if (one)
        sched_spread(s, c->count);
}

/* In step k rank r sends block r + k to rank r + k and receives block r
 * from rank r - k. */
static CvError gen_alltoall_pairwise(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "pairwise");
    if (e)
        return e;
    int p = c->nranks;
    bool one = spread_ok(s);
    copy_own_block(s, 1);
    alltoall_save(s);
    for (int k = 1; k < p && !s->err; k++) {
        sched_step(s, "exchange");
        /* compact: rank 0's send; the block it sends moves along with the
           rank unless it was saved to tmp (the same place on every rank) */
        sched_flags(s, one ? rot_flags(alltoall_src(c, 0, k).buf != BUF_TMP,
                                       true) : 0);
        for (int r = 0; r < (one ? 1 : p); r++) {
            Loc a = alltoall_src(c, r, k);
            sched_copy(s, r, a.buf, a.off, (r + k) % p, BUF_RECV,
                       (size_t)r * c->count, c->count);
        }
        sched_flags(s, 0);
        if (one)
            sched_spread(s, c->count);
    }
    return sched_end(s);
}

static const AlgoInfo alltoall_pairwise = {
    .coll = COLL_ALLTOALL,
    .name = "pairwise",
    .aliases = "pairwise-exchange",
    .summary = "in step k rank r sends block r+k to rank r+k and receives "
               "from rank r-k",
    .schedule = "out of place a local step copies block r of rank r's input "
                "to block r of its output; then in step k = 1, .., p-1 rank "
                "r sends block r+k of its input to rank r+k, into block r "
                "there, and takes block r of rank r-k's input into its block "
                "r-k (ranks and blocks mod p): partners k apart, for every "
                "p, never r xor k. In place a local step first saves to tmp "
                "the blocks r+k, k > p/2, that step p-k overwrites before "
                "step k sends them",
    .formula = "(p-1)a + (p-1)/p nb",
    .constraints = "any p, any count; in place keeps up to p/2 blocks in tmp",
    .shape = SHAPE_FULL,
    .generate = gen_alltoall_pairwise,
    .cost = cost_pairwise,
};

/* One step: every rank r takes block q of its output from rank q at once,
 * all ranks in the same order (q = 0 first): from block r of q's input
 * when blockwise (alltoall), else q's whole input (allgather). */
static CvError one_step_all(const AlgoArgs *args, Schedule *s,
                            const char *phase, bool blockwise)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "linear");
    if (e)
        return e;
    sched_step(s, phase);
    /* compact: what rank 0 takes; every rank takes the same moved along */
    bool one = spread_ok(s);
    sched_flags(s, one ? rot_flags(blockwise || loc_moves(c, 1), true) : 0);
    for (int r = 0; r < (one ? 1 : c->nranks) && !s->err; r++)
        for (int q = 0; q < c->nranks; q++) {
            Loc from = loc_of(c, q, 1), to = loc_of(c, r, 0);
            from.off += blockwise ? (size_t)r * c->count : 0;
            to.off += (size_t)q * c->count;
            move(s, q, from, r, to, c->count);
        }
    sched_flags(s, 0);
    if (one)
        sched_spread(s, c->count);
    return sched_end(s);
}

/* One step: every rank takes its block from every other rank at once. In
 * place, each block a rank sends is one its partner overwrites in the same
 * step, which the step semantics allow (executors stage those reads). */
static CvError gen_alltoall_linear(const AlgoArgs *args, Schedule *s)
{
    return one_step_all(args, s, "exchange", true);
}

/* One step; p - 1 messages and blocks out and in per rank (alltoall and
 * allgather, linear). */
static void cost_one_step_all(const CollCall *c, CostTerms *out)
{
    double p1 = c->nranks - 1;
    lin_cost(c, 1, p1, p1, 0, out);
}

static const AlgoInfo alltoall_linear = {
    .coll = COLL_ALLTOALL,
    .name = "linear",
    .aliases = "flat direct",
    .summary = "one step: every rank takes its block from every other rank "
               "at once",
    .schedule = "one step: every rank r takes block r of every rank q's "
                "input into block q of its output, all at once, q = 0 first "
                "on every rank (in place each block is read and overwritten "
                "in that step)",
    .formula = "(p-1)a + (p-1)/p nb",
    .constraints = "any p, any count; in place, every block is read and "
                   "overwritten in the same step",
    .shape = SHAPE_FULL,
    .generate = gen_alltoall_linear,
    .cost = cost_one_step_all,
};

/* ------------------------------------------------------------ allgather */

/* One step: every rank takes every block from its owner at once, all in
 * the same order (block 0 first), so that on one machine the ranks that
 * run together read the same block while it is in the shared cache. */
static CvError gen_allgather_linear(const AlgoArgs *args, Schedule *s)
{
    return one_step_all(args, s, "gather-all", false);
}

static const AlgoInfo allgather_linear = {
    .coll = COLL_ALLGATHER,
    .name = "linear",
    .aliases = "flat direct",
    .summary = "one step: every rank takes every block from its owner at "
               "once",
    .schedule = "one step: every rank takes each rank q's input into block q "
                "of its output, all at once, q = 0 first on every rank (its "
                "own a local copy)",
    .formula = "(p-1)a + (p-1)/p nb",
    .constraints = "any p, any count",
    .shape = SHAPE_FULL,
    .generate = gen_allgather_linear,
    .cost = cost_one_step_all,
};

/* ------------------------------------------------------------- tables */

const AlgoInfo *const algos_linear[] = {
    &broadcast_linear,
    &reduce_linear,
    &scatter_linear,
    &gather_linear,
    &allreduce_direct,
    &reducescatter_pairwise,
    &allgather_linear,
    &alltoall_pairwise,
    &alltoall_linear,
    NULL,
};
