/* ring.c - the ring family: ranks pass blocks to their right neighbour.
 *
 * The ring emitters (all-gather, reduce-scatter) are shared with the other
 * families; on top of them: ring allgather, reducescatter and allreduce, the
 * pipelined chain broadcast, the scatter-allgather broadcast and
 * nccl-tests' sendrecv (one shift around the ring). */
#include "algos/algo.h"
#include "algos/common.h"

#include <math.h>
#include <stdlib.h>

/* ------------------------------------------------------------ emitters */

/* Whether the groups are all ranks in order (rank i is member i): a ring
 * step is then the one before it with every rank moved one along (each
 * block goes one further), and a compact schedule takes the p - 1 steps
 * as one entry repeated (sched_repeat). */
static bool ring_compact(const Schedule *s, const RankGroups *gr)
{
    return s->compact && gr->ngroups == 1 && !gr->member && gr->stride == 1 &&
           gr->first == 0 && gr->size == s->call.nranks;
}

/* The members i whose block (i - shift) mod p holds elements, in
 * increasing order, as ranges [a[0], a[1]) and [a[2], a[3]): every one,
 * or where a group has fewer elements n than members (blocks [0, n) of
 * one, the rest empty) the run of n from shift, wrapping. The others'
 * transfers are empty, and walking them cost p a step: p^2 at 65536
 * ranks for a handful of elements. */
static void live_members(size_t n, int p, int shift, int a[4])
{
    int s0 = ((shift % p) + p) % p, e = s0 + (int)n;
    if (n >= (size_t)p)
        a[0] = 0, a[1] = p, a[2] = a[3] = p;
    else if (e <= p)
        a[0] = s0, a[1] = e, a[2] = a[3] = p;
    else
        a[0] = 0, a[1] = e - p, a[2] = s0, a[3] = p;
}

/* The direction of group g's ring in the table of cycles mem/at (k ranks
 * each): 0 along them, 1 against them (the transfers then flagged
 * XF_BACK), -1 neither. */
static int ring_dir(const RankGroups *gr, int g, const int *mem,
                    const int *at)
{
    int k = gr->size, fwd = 1, bwd = 1;
    for (int i = 0; i < k && (fwd || bwd); i++) {
        int a = at[group_rank(gr, g, i)], nx = group_rank(gr, g, (i + 1) % k);
        fwd = fwd && a >= 0 && mem[a - a % k + (a % k + 1) % k] == nx;
        bwd = bwd && a >= 0 && mem[a - a % k + (a % k + k - 1) % k] == nx;
    }
    return fwd ? 0 : bwd ? 1 : -1;
}

/* Whether the groups of gr move along cycles for a compact schedule: the
 * rings of gr->cycles' groups (or of gr's), those listed first of any
 * that share ranks, must split the ranks, and each group of gr run along
 * one of them either way (back[g] = 1: against it, its transfers flagged
 * XF_BACK); the table's index (sched_cycles) into *c. Lines of a torus's
 * dimension are such groups (each part's of torus_bidir, the second's
 * reversed; hier_master's one line across); their ring step is then the
 * one before it with every rank moved one place along its line. */
static bool ring_cycles(Schedule *s, const RankGroups *gr, uint8_t *back,
                        int *c)
{
    const RankGroups *tg = gr->cycles ? gr->cycles : gr;
    int p = s->call.nranks, k = gr->size, n = 0;
    int *mem = malloc(2 * (size_t)p * sizeof *mem), *at = mem ? mem + p : NULL;
    bool ok = mem && tg->size == k;
    for (int r = 0; ok && r < p; r++)
        at[r] = -1;
    for (int g = 0; g < tg->ngroups && ok; g++) {
        if (at[group_rank(tg, g, 0)] >= 0)
            continue; /* one listed before, maybe reversed */
        for (int i = 0; i < k && ok; i++) {
            int r = group_rank(tg, g, i);
            ok = at[r] < 0 && n < p;
            if (ok)
                at[r] = n, mem[n++] = r;
        }
    }
    ok = ok && n == p;
    for (int g = 0; g < gr->ngroups && ok; g++) {
        int d = ring_dir(gr, g, mem, at);
        back[g] = d > 0;
        ok = d >= 0;
    }
    *c = ok ? sched_cycles(s, mem, k) : -1;
    free(mem);
    return *c >= 0;
}

/* Step k of a ring pass by every group of gr (flags | XF_BACK for the
 * groups back[] names, where not NULL): all-gather (member i forwards
 * block i - k, the one it got last step) or reduce-scatter (member i
 * passes its partial sum of block i - k - 1 on; the right neighbour adds
 * its own share, so after size - 1 steps block i lands complete at member
 * i). */
static void ring_step(Schedule *s, const RankGroups *gr, BufId buf, int k,
                      bool red, const uint8_t *back)
{
    int p = gr->size;
    uint8_t f = s->flags;
    for (int g = 0; g < gr->ngroups; g++) {
        size_t n = group_len(gr, g), off = group_off(gr, g);
        int a[4];
        s->flags = (uint8_t)(f | (back && back[g] ? XF_BACK : 0));
        live_members(n, p, red ? k + 1 : k, a);
        for (int h = 0; h < 4; h += 2)
        for (int i = a[h]; i < a[h + 1]; i++) {
            int b = ((i - k - red) % p + p) % p;
            size_t at = off + blk_off(n, p, b);
            sched_xfer(s, red ? XFER_REDUCE : XFER_COPY, group_rank(gr, g, i),
                       buf, at, group_rank(gr, g, (i + 1) % p), buf, at,
                       blk_len(n, p, b));
        }
    }
    s->flags = f;
}

/* A ring pass (size - 1 steps) by every group of gr at once: compact, one
 * step repeated, where the groups are all ranks in order (rotated) or
 * split the ranks into cycles (moved along them). */
static void ring_pass(Schedule *s, const RankGroups *gr, BufId buf,
                      const char *phase, bool red)
{
    int p = gr->size, c = -1;
    uint8_t *back = NULL;
    bool rot = p > 1 && ring_compact(s, gr);
    if (!rot && s->compact && p > 2 && !s->err &&
        (back = malloc((size_t)gr->ngroups)) && !ring_cycles(s, gr, back, &c))
        free(back), back = NULL;
    int steps = rot || back ? 1 : p - 1;
    for (int k = 0; k < steps && !s->err; k++) { /* (past a limit: stop) */
        sched_step(s, phase);
        ring_step(s, gr, buf, k, red, back);
    }
    if (rot)
        sched_repeat(s, (size_t)p - 1, 1);
    else if (back)
        sched_repeat_cycles(s, (size_t)p - 1, c);
    free(back);
}

void emit_ring_allgather_g(Schedule *s, const RankGroups *gr, BufId buf,
                           const char *phase)
{
    ring_pass(s, gr, buf, phase, false);
}

void emit_ring_reducescatter_g(Schedule *s, const RankGroups *gr, BufId buf,
                               const char *phase)
{
    ring_pass(s, gr, buf, phase, true);
}

void emit_ring_allgather(Schedule *s, size_t n, BufId buf, size_t off,
                         const char *phase)
{
    RankGroups w = groups_world(s->call.nranks, n, off);
    emit_ring_allgather_g(s, &w, buf, phase);
}

void emit_ring_reducescatter(Schedule *s, size_t n, BufId buf, size_t off,
                             const char *phase)
{
    RankGroups w = groups_world(s->call.nranks, n, off);
    emit_ring_reducescatter_g(s, &w, buf, phase);
}

/* ------------------------------------------------------------- helpers */

/* Bytes of one element of the call. */
static double elem_bytes(const CollCall *c) { return (double)dtype_size(c->dtype); }

/* Ceiling of a / b for b > 0. */
static size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

/* Cost of `rounds` ring passes over a vector of n elements, `red` of them
 * reducing: every step moves one block per rank, the largest ceil(n / p). */
static void ring_cost(const CollCall *c, size_t n, int rounds, int red,
                      CostTerms *out)
{
    int p = c->nranks;
    *out = (CostTerms){0};
    if (p < 2 || n == 0)
        return;
    double steps = (double)rounds * (p - 1);
    double blk = (double)ceil_div(n, (size_t)p) * elem_bytes(c);
    out->a = steps;
    out->steps = steps;
    out->b = steps * blk;
    out->g = (double)red * (p - 1) * blk;
}

void emit_copy_in(Schedule *s, BufId buf, size_t off, int blockwise)
{
    const CollCall *c = &s->call;
    if (c->in_place)
        return;
    sched_step(s, "copy-in");
    for (int r = 0; r < c->nranks; r++) {
        CollLayout l;
        coll_layout(c, r, &l);
        size_t at = off + (blockwise ? (size_t)r * c->count : 0);
        sched_copy(s, r, BUF_SEND, 0, r, buf, at, l.in_count);
    }
}

/* ----------------------------------------------------------- allgather */

static CvError gen_allgather_ring(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "ring");
    if (e)
        return e;
    emit_copy_in(s, BUF_RECV, 0, 1);
    emit_ring_allgather(s, (size_t)c->nranks * c->count, BUF_RECV, 0, "all-gather");
    return sched_end(s);
}

static void cost_allgather_ring(const CollCall *c, CostTerms *out)
{
    ring_cost(c, (size_t)c->nranks * c->count, 1, 0, out);
}

static const AlgoInfo allgather_ring = {
    .coll = COLL_ALLGATHER,
    .name = "ring",
    .aliases = "",
    .summary = "each rank passes the block it got last to its right "
               "neighbour, p-1 steps",
    .schedule = "out of place a local step copies rank r's input to block r "
                "of its output; then in step k = 0, .., p-2 rank r sends "
                "block r-k, the one it received last, to rank r+1 and "
                "receives block r-k-1 from rank r-1 (ranks and blocks mod "
                "p): one direction, neighbours only",
    .formula = "(p-1)a + (p-1)/p nb",
    .constraints = "any p, any count",
    .shape = SHAPE_RING,
    .generate = gen_allgather_ring,
    .cost = cost_allgather_ring,
};

/* ------------------------------------------------------- reducescatter */

/* Out of place the send buffer is read-only, so the partial sums run in a
 * whole copy of it in tmp, and each rank's block is copied out at the end. */
static CvError gen_reducescatter_ring(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "ring");
    if (e)
        return e;
    int p = c->nranks;
    size_t n = c->count, pn = (size_t)p * n;
    BufId work = c->in_place ? BUF_RECV : BUF_TMP;
    if (!c->in_place)
        sched_tmp_all(s, pn);
    emit_copy_in(s, BUF_TMP, 0, 0);
    emit_ring_reducescatter(s, pn, work, 0, "reduce-scatter");
    if (!c->in_place) {
        sched_step(s, "copy-out");
        for (int r = 0; r < p; r++)
            sched_copy(s, r, BUF_TMP, (size_t)r * n, r, BUF_RECV, 0, n);
    }
    return sched_end(s);
}

static void cost_reducescatter_ring(const CollCall *c, CostTerms *out)
{
    ring_cost(c, (size_t)c->nranks * c->count, 1, 1, out);
}

static const AlgoInfo reducescatter_ring = {
    .coll = COLL_REDUCESCATTER,
    .name = "ring",
    .aliases = "",
    .summary = "partial sums of each block travel once around the ring, "
               "p-1 steps",
    .schedule = "the p blocks are summed in the buffer in place, out of "
                "place in a copy of the input in tmp (a local step); in step "
                "k = 0, .., p-2 rank r sends its partial sum of block r-k-1 "
                "to rank r+1, which adds its own share (ranks and blocks mod "
                "p); after step p-2 rank r holds block r whole, which out of "
                "place a local step copies to its output",
    .formula = "(p-1)a + (p-1)/p nb + (p-1)/p ng",
    .constraints = "any p, any count",
    .shape = SHAPE_RING,
    .generate = gen_reducescatter_ring,
    .cost = cost_reducescatter_ring,
};

/* ----------------------------------------------------------- allreduce */

static CvError gen_allreduce_ring(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "ring");
    if (e)
        return e;
    emit_copy_in(s, BUF_RECV, 0, 0);
    emit_ring_reducescatter(s, c->count, BUF_RECV, 0, "reduce-scatter");
    emit_ring_allgather(s, c->count, BUF_RECV, 0, "all-gather");
    return sched_end(s);
}

static void cost_allreduce_ring(const CollCall *c, CostTerms *out)
{
    ring_cost(c, c->count, 2, 1, out);
}

static const AlgoInfo allreduce_ring = {
    .coll = COLL_ALLREDUCE,
    .name = "ring",
    .aliases = "",
    .summary = "ring reduce-scatter of the vector's p blocks, then ring "
               "all-gather of the reduced blocks",
    .schedule = "out of place a local step copies the input to the output; "
                "the vector is cut into p blocks (the first count mod p one "
                "element longer). Reduce-scatter: in step k = 0, .., p-2 "
                "rank r sends its partial sum of block r-k-1 to rank r+1, "
                "which adds its own; rank r then holds block r whole. "
                "All-gather: in step k = 0, .., p-2 rank r sends block r-k "
                "to rank r+1 (ranks and blocks mod p). Every message goes "
                "from r to r+1",
    .formula = "2(p-1)a + 2(p-1)/p nb + (p-1)/p ng",
    .constraints = "any p, any count (blocks of ceil(count/p) set the pace)",
    .shape = SHAPE_RING,
    .generate = gen_allreduce_ring,
    .cost = cost_allreduce_ring,
};

/* ----------------------------------------------------------- broadcast */

/* Target bytes per chain segment for large vectors. */
#define CHAIN_SEG_BYTES ((size_t)64 * 1024)

/* Segments of count elements cut into pieces of about seg_bytes: at
 * least one, never more than count. */
static size_t segments_of(const CollCall *c, size_t seg_bytes)
{
    size_t el = seg_bytes / dtype_size(c->dtype);
    size_t segs = ceil_div(c->count, el ? el : 1);
    return segs ? segs : (c->count ? 1 : 0);
}

/* Segments of the chain broadcast: c->segment's (--segment) where given;
 * else p - 1 fill the pipe once (every link busy in step p - 2) and large
 * vectors use segments of about CHAIN_SEG_BYTES; never more segments than
 * elements. */
static size_t chain_segments(const CollCall *c)
{
    if (c->segment)
        return segments_of(c, c->segment);
    size_t bytes = c->count * dtype_size(c->dtype);
    size_t segs = ceil_div(bytes, CHAIN_SEG_BYTES);
    if (segs < (size_t)c->nranks - 1)
        segs = (size_t)c->nranks - 1;
    return segs < c->count ? segs : c->count;
}

/* Segment i of n elements cut into k: the first n % k are one longer. */
static size_t seg_off(size_t n, size_t k, size_t i)
{
    return i * (n / k) + (i < n % k ? i : n % k);
}
static size_t seg_len(size_t n, size_t k, size_t i)
{
    return n / k + (i < n % k ? 1 : 0);
}

/* In step t the i-th link of the chain (root + i -> root + i + 1) carries
 * segment t - i: segments enter at the root one per step and move one
 * rank further each step. The root sends from its input and copies each
 * segment to its recv as it sends it, so no step waits for that copy.
 * With fewer segments than links (S <= p - 2), steps S to p - 2 carry
 * all S segments at once, each one link further than the step before:
 * one shape rotated (sched_repeat), so that a compact schedule holds
 * about S^2 + 2S transfers instead of S (p - 1). */
static CvError gen_broadcast_chain(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "chain");
    if (e)
        return e;
    int p = c->nranks, root = c->root;
    size_t n = c->count, segs = chain_segments(c);
    /* each segment crosses each of the p - 1 links in a step of its own
       (but for the rotated ones): a compact schedule that cannot hold
       them says so before building */
    bool window = segs + 2 <= (size_t)p;
    size_t held = window ? segs * segs + 2 * segs : segs * (size_t)(p - 1);
    if (s->compact && held > SCHED_COMPACT_MAX_XFERS) {
        sched_fini(s);
        return CV_ERR_LIMIT;
    }
    CollLayout l;
    coll_layout(c, root, &l);
    if (p == 1 && !c->in_place) {
        sched_step(s, "copy");
        sched_copy(s, root, BUF_SEND, 0, root, BUF_RECV, 0, n);
    }
    for (size_t t = 0; p > 1 && segs && !s->err && t + 2 < segs + (size_t)p; t++) {
        sched_step(s, "pipeline");
        if (t < segs && !c->in_place) /* the root keeps what it sends */
            sched_copy(s, root, BUF_SEND, seg_off(n, segs, t), root, BUF_RECV,
                       seg_off(n, segs, t), seg_len(n, segs, t));
        /* link i carries segment t - i, where there is one */
        size_t i = t >= segs ? t - segs + 1 : 0;
        for (; i < (size_t)p - 1 && i <= t; i++) {
            size_t g = t - i;
            size_t at = seg_off(n, segs, g);
            sched_copy(s, rrank((int)i, root, p), i ? BUF_RECV : l.in_buf, at,
                       rrank((int)i + 1, root, p), BUF_RECV, at, seg_len(n, segs, g));
        }
        if (window && t == segs) { /* steps S .. p - 2: this one rotated */
            sched_repeat(s, (size_t)p - 1 - segs, 1);
            t = (size_t)p - 2;
        }
    }
    return sched_end(s);
}

/* S + p - 2 steps, each as long as its longest segment in flight: the
 * n % S long segments are in flight in the first n % S + p - 2 steps. */
static void chain_cost(const CollCall *c, size_t segs, CostTerms *out)
{
    int p = c->nranks;
    *out = (CostTerms){0};
    if (p < 2 || segs == 0)
        return;
    double steps = (double)segs + p - 2;
    size_t rem = c->count % segs;
    double longer = rem ? (double)rem + p - 2 : 0;
    out->a = steps;
    out->steps = steps;
    out->b = (steps * (double)(c->count / segs) + longer) * elem_bytes(c);
}

static void cost_broadcast_chain(const CollCall *c, CostTerms *out)
{
    chain_cost(c, chain_segments(c), out);
}

/* The closed form's minimum over S is near S* = sqrt((p - 2) n b / a);
 * of the segment sizes around it (whole elements), the one whose count
 * prices least at mp. */
static bool chain_segment_choice(const CollCall *c, const ModelParams *mp,
                                 SegmentChoice *out)
{
    size_t es = dtype_size(c->dtype);
    double n = (double)c->count * (double)es;
    /* (on 1 or 2 ranks the pipe has nothing to fill: one segment) */
    double star = c->nranks <= 2 ? 1
                  : mp->alpha > 0 ? sqrt((c->nranks - 2) * n * mp->beta /
                                         mp->alpha)
                                  : (double)c->count;
    *out = (SegmentChoice){.now = chain_segments(c),
                           .now_bytes = c->segment ? c->segment
                                                   : CHAIN_SEG_BYTES};
    double best_t = INFINITY;
    for (int k = 0; k < 2 && c->count; k++) {
        double cand = k ? ceil(star) : floor(star);
        size_t want = !(cand >= 1) ? 1 : cand > (double)c->count
                                             ? c->count : (size_t)cand;
        size_t seg = ceil_div(c->count, want) * es, segs = segments_of(c, seg);
        CostTerms t;
        chain_cost(c, segs, &t);
        double time = cost_time(&t, mp);
        if (time < best_t)
            best_t = time, out->best = segs, out->best_bytes = seg;
    }
    return c->nranks > 1 && c->count > 0;
}

static const AlgoInfo broadcast_chain = {
    .coll = COLL_BROADCAST,
    .name = "chain",
    .aliases = "pipeline pipelined-chain",
    .summary = "the vector cut into S segments flows down the chain root, "
               "root+1, ... one rank per step",
    .schedule = "the chain is root, root+1, .., root+p-1 (mod p) and the "
                "vector is cut into S segments (the first count mod S one "
                "element longer); in step t = 0, .., S+p-3 the i-th rank of "
                "the chain sends segment t-i to the next, for each i = 0, "
                ".., p-2 with 0 <= t-i < S; the root sends from its input "
                "and, out of place, copies segment t to its output in step t",
    .formula = "(S+p-2)a + (S+p-2)/S nb, S = max(p-1, n/64KiB) segments "
               "(n/SIZE with --segment SIZE), at most count",
    .constraints = "any p, any count",
    .shape = SHAPE_CHAIN,
    .generate = gen_broadcast_chain,
    .cost = cost_broadcast_chain,
    .segments = chain_segment_choice,
    .pipelined = true,
};

/* The root scatters the vector's p blocks down a binomial tree from its
 * input (copying it to its recv in the first step), then a ring
 * all-gather completes everybody's copy (van de Geijn). */
static CvError gen_broadcast_scag(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "scatter-allgather");
    if (e)
        return e;
    emit_binomial_scatter(s, c->root, c->count, BUF_RECV, 0, true, "scatter");
    emit_ring_allgather(s, c->count, BUF_RECV, 0, "all-gather");
    return sched_end(s);
}

/* The root's edge carries the most blocks in every scatter step, p - 1
 * blocks in all; exact when p divides count (the scatter moves less when
 * blocks differ in length). */
static void cost_broadcast_scag(const CollCall *c, CostTerms *out)
{
    ring_cost(c, c->count, 1, 0, out);
    if (out->steps == 0)
        return;
    double lg = model_log2_ceil(c->nranks);
    out->a += lg;
    out->steps += lg;
    out->b *= 2;
}

static const AlgoInfo broadcast_scag = {
    .coll = COLL_BROADCAST,
    .name = "scatter-allgather",
    .aliases = "vandegeijn scag",
    .summary = "binomial scatter of the vector's p blocks from the root, "
               "then ring all-gather",
    .schedule = "the vector is cut into p blocks, block b rank b's (the "
                "first count mod p one element longer). Binomial scatter, "
                "vrank v = r-root (mod p): at distance m = 2^(ceil(log2 "
                "p)-1), .., 2, 1 each vrank v that is a multiple of 2m sends "
                "vrank v+m (if < p) the blocks of vranks v+m .., v+2m-1 "
                "(those < p) in one message; out of place the root copies "
                "its input to its output in the first step. Then allgather "
                "ring's steps: in step k = 0, .., p-2 rank r sends block r-k "
                "to rank r+1 (mod p)",
    .formula = "(ceil(log2 p)+p-1)a + 2(p-1)/p nb",
    .constraints = "any p, any count (closed form exact when p divides count)",
    .shape = SHAPE_RING,
    .generate = gen_broadcast_scag,
    .cost = cost_broadcast_scag,
};

/* ------------------------------------------------------------- tables */

/* ------------------------------------------------------------ sendrecv */

/* nccl-tests' sendrecv: in one step rank r sends its block to r + 1 and
 * receives r - 1's (mod p); on one rank a local copy. */
static CvError gen_sendrecv_shift(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, args->self->name);
    if (e)
        return e;
    int p = c->nranks;
    sched_step(s, "shift");
    for (int r = 0; r < p; r++)
        sched_copy(s, r, BUF_SEND, 0, (r + 1) % p, BUF_RECV, 0, c->count);
    return sched_end(s);
}

/* One message of the whole block per rank; nothing between ranks (a free
 * local copy) on one rank. */
static void cost_sendrecv_shift(const CollCall *c, CostTerms *out)
{
    *out = (CostTerms){0};
    if (c->nranks < 2 || c->count == 0)
        return;
    out->a = out->steps = 1;
    out->b = (double)c->count * elem_bytes(c);
}

static const AlgoInfo sendrecv_shift = {
    .coll = COLL_SENDRECV,
    .name = "shift",
    .aliases = "ring",
    .summary = "every rank sends its block to its right neighbour and "
               "receives its left one's, one step (nccl-tests' sendrecv)",
    .schedule = "one step: rank r sends its input to rank r+1 and receives "
                "rank r-1's (mod p); on one rank a local copy",
    .formula = "a + nb",
    .constraints = "any p, any count, out of place only",
    .shape = SHAPE_RING,
    .generate = gen_sendrecv_shift,
    .cost = cost_sendrecv_shift,
};

const AlgoInfo *const algos_ring[] = {
    &broadcast_chain,
    &broadcast_scag,
    &allgather_ring,
    &reducescatter_ring,
    &allreduce_ring,
    &sendrecv_shift,
    NULL,
};
