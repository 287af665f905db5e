/* gpu_plan.c - a schedule's plan on the devices (gpu_impl.h: GpuPlan).
 *
 * Each transfer is performed by its destination's device, which reads the
 * source in place: on its own memory, or a peer's over peer access; but a
 * plain copy between devices with peer access is pushed: its source's
 * device writes it into the destination (stores to a peer stream out,
 * where a load from one waits a round trip: review finding 16). Where
 * the devices have no peer access, the driver's peer copy takes the
 * range into the destination's staging area in the step's stage phase,
 * through host memory (GpuPeerCopy). A source
 * the same step overwrites (the validator's staged flag) is copied into
 * the destination's staging area in the stage phase. In timed runs
 * (GPU_RUN) copy-ins are fused over the whole schedule (sched_fuse_map):
 * a reduce into an untouched copy of the input combines the input with
 * its source (KOP_REDUCE3), a transfer reading such a copy reads the
 * input (never overwritten, so never staged), and a copy-in no one then
 * needs is left out: an out-of-place ring allreduce copies none of its
 * input.
 *
 * Each phase's work on a device is then dealt to its blocks by bytes
 * (balance): the kernel gives block b the chunks b, b + grid, ..., so the
 * phase's bytes, in order, are cut into `grid` equal runs (cuts at
 * multiples of 16 bytes from a chunk's start, so alignment is kept),
 * and the pieces are laid out in rounds, run b's r-th piece at r * grid
 * + b, with empty chunks where a run has fewer pieces. grid is as many
 * blocks as the device holds at once (its multiprocessors times the
 * driver's occupancy), fewer where the phase has under MIN_BLOCK_BYTES a
 * block. */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "gpu/gpu_impl.h"

#define MIN_CHUNK_BYTES (64u << 10)
#define MIN_BLOCK_BYTES 2048u /* a block's least share of a phase */
#define GPU_STRIDE_PIECE (32u << 10) /* layout=stride's pieces, at most */

void gpu_plan_free(GpuPlan *p, int ndev)
{
    for (int d = 0; p->chunks && d < ndev; d++)
        free(p->chunks[d]);
    for (size_t k = 0; p->steps && k <= p->nsteps; k++) {
        free(p->steps[k].stage_first);
        free(p->steps[k].stage_n);
        free(p->steps[k].main_first);
        free(p->steps[k].main_n);
        free(p->steps[k].stage_grid);
        free(p->steps[k].main_grid);
        free(p->steps[k].stage_touch);
        free(p->steps[k].main_touch);
    }
    free(p->chunks), free(p->nchunks), free(p->cap), free(p->steps);
    free(p->pc), free(p->stage_need);
    memset(p, 0, sizeof *p);
}

static bool push_chunk(GpuPlan *p, int d, KChunk c)
{
    KChunk *m = grow_array(p->chunks[d], &p->cap[d], p->nchunks[d] + 1,
                           sizeof *m, 64);
    if (!m)
        return false;
    p->chunks[d] = m;
    p->chunks[d][p->nchunks[d]++] = c;
    return true;
}

/* Chunk c cut into pieces of at most piece bytes (a multiple of 16). */
static bool push_cut(GpuPlan *p, int d, KChunk c, size_t es, size_t piece)
{
    size_t unit = c.kind == KOP_COPY ? 1 : es; /* what n counts */
    unsigned long long per = piece / unit;
    while (c.n > per) {
        KChunk h = c;
        h.n = per;
        if (!push_chunk(p, d, h))
            return false;
        unsigned long long adv = per * unit;
        c.dst += adv;
        c.b += adv;
        c.a += c.a ? adv : 0;
        c.n -= per;
    }
    return push_chunk(p, d, c);
}

static bool push_pc(GpuPlan *p, GpuPeerCopy h)
{
    GpuPeerCopy *m = grow_array(p->pc, &p->cap_pc, p->npc + 1, sizeof *m, 16);
    if (!m)
        return false;
    p->pc = m;
    p->pc[p->npc++] = h;
    return true;
}

static CvError plan_alloc(GpuPlan *p, int ndev, size_t nsteps)
{
    memset(p, 0, sizeof *p);
    p->nsteps = nsteps;
    p->chunks = calloc((size_t)ndev, sizeof *p->chunks);
    p->nchunks = calloc((size_t)ndev, sizeof *p->nchunks);
    p->cap = calloc((size_t)ndev, sizeof *p->cap);
    p->stage_need = calloc((size_t)ndev, sizeof *p->stage_need);
    p->steps = calloc(nsteps + 1, sizeof *p->steps);
    if (!p->chunks || !p->nchunks || !p->cap || !p->stage_need || !p->steps)
        return CV_ERR_NOMEM;
    for (size_t k = 0; k <= nsteps; k++) {
        GpuStepPlan *st = &p->steps[k];
        st->stage_first = calloc((size_t)ndev, sizeof(size_t));
        st->stage_n = calloc((size_t)ndev, sizeof(size_t));
        st->main_first = calloc((size_t)ndev, sizeof(size_t));
        st->main_n = calloc((size_t)ndev, sizeof(size_t));
        st->stage_grid = calloc((size_t)ndev, sizeof(unsigned));
        st->main_grid = calloc((size_t)ndev, sizeof(unsigned));
        st->stage_touch = calloc((size_t)ndev, sizeof(GpuTouch));
        st->main_touch = calloc((size_t)ndev, sizeof(GpuTouch));
        if (!st->stage_first || !st->stage_n || !st->main_first || !st->main_n ||
            !st->stage_grid || !st->main_grid || !st->stage_touch || !st->main_touch)
            return CV_ERR_NOMEM;
    }
    return CV_OK;
}

static CUdeviceptr addr(const GpuExec *x, int r, int b, size_t off, size_t es)
{
    return x->buf[(size_t)r * BUF_COUNT + (size_t)b] + off * es;
}

/* The device that performs transfer t (its index xi): the destination's,
 * or the source's for a push; *stage: its source goes through the
 * destination's staging area first. Peer access may be one way only: a
 * plain copy that needs no staging is pushed where the source's device
 * may write the destination's memory, even if the destination's device
 * may not read the source's (review finding G4). */
static int performer(const GpuExec *x, const Schedule *s, const unsigned char *staged,
                     const SchedFuse *fu, size_t xi, bool *stage)
{
    const Transfer *t = &s->xfers[xi];
    int dd = x->rank_dev[t->dst], sd = x->rank_dev[t->src];
    bool overwritten = staged[xi] && !(fu && fu->via[xi]); /* the input is never written */
    bool push = t->op == XFER_COPY && sd != dd && !overwritten && x->peer[sd][dd];
    bool far = sd != dd && !push && !x->peer[dd][sd];
    *stage = far || overwritten;
    return push ? sd : dd;
}

/* ------------------------------------------------- balancing blocks */

static size_t kbytes(const KChunk *c, size_t es)
{
    return c->kind == KOP_COPY ? c->n : c->n * es;
}

/* Bytes [from, to) of chunk c (multiples of 16 from its start, or its
 * end), as a chunk. */
static KChunk part(KChunk c, size_t es, size_t from, size_t to)
{
    size_t unit = c.kind == KOP_COPY ? 1 : es;
    c.dst += from;
    c.b += c.kind == KOP_AVG ? 0 : from;
    c.a += c.a ? from : 0;
    c.n = (to - from) / unit;
    return c;
}

typedef struct {
    KChunk c;
    size_t run; /* the block that runs it */
} Piece;

/* Where run b (of g) starts in a phase of t bytes. */
static size_t run_start(size_t t, size_t g, size_t b)
{
    return t / g * b + t % g * b / g;
}

/* The phase's chunks cut at the runs' starts: into out (room for n + g
 * pieces), each with its run; their number. */
static size_t cut_runs(const KChunk *in, size_t n, size_t es, size_t t,
                       size_t g, Piece *out)
{
    size_t np = 0, pos = 0, run = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = kbytes(&in[i], es), off = 0;
        while (run + 1 < g && run_start(t, g, run + 1) < pos + len) {
            size_t b = run_start(t, g, run + 1);
            size_t cut = b > pos ? (b - pos) & ~(size_t)15 : 0;
            if (cut > off) {
                out[np++] = (Piece){part(in[i], es, off, cut), run};
                off = cut;
            }
            run++;
        }
        out[np++] = (Piece){part(in[i], es, off, len), run};
        pos += len;
    }
    return np;
}

/* Chunks [first, end) of device d dealt to blocks by bytes, in place;
 * the grid to launch them with. Where a few runs would hold many more
 * pieces than the others (a huge transfer beside many tiny ones) the
 * empty chunks would outnumber the work: the chunks then stay as they
 * are, dealt in turn. With stride, the phase is cut into g * rounds
 * equal pieces of about GPU_STRIDE_PIECE bytes, piece i to block i mod g,
 * so that the blocks sweep the phase together (review finding G7: one
 * stretch per block opens as many streams in memory as blocks). */
static CvError balance(GpuPlan *p, int d, size_t first, size_t es,
                       const GpuDev *dev, bool stride, unsigned *grid)
{
    size_t n = p->nchunks[d] - first, t = 0;
    size_t most = (size_t)(dev->blocks_per_sm > 0 ? dev->blocks_per_sm : 1) *
                  (size_t)(dev->sms > 0 ? dev->sms : 1);
    for (size_t i = 0; i < n; i++)
        t += kbytes(&p->chunks[d][first + i], es);
    size_t g = (t + MIN_BLOCK_BYTES - 1) / MIN_BLOCK_BYTES;
    g = g < 1 ? 1 : g > most ? most : g;
    *grid = (unsigned)(n < most ? (n ? n : 1) : most);
    if (n < 2 || g < 2)
        return CV_OK;
    size_t cuts = stride ? g * ((t + g * GPU_STRIDE_PIECE - 1) /
                                (g * GPU_STRIDE_PIECE)) : g;
    Piece *pc = malloc((n + cuts) * sizeof *pc);
    size_t *count = calloc(g, sizeof *count), rounds = 0;
    if (!pc || !count) {
        free(pc), free(count);
        return CV_ERR_NOMEM;
    }
    size_t np = cut_runs(p->chunks[d] + first, n, es, t, cuts, pc);
    for (size_t i = 0; i < np; i++) {
        pc[i].run %= g;
        rounds = ++count[pc[i].run] > rounds ? count[pc[i].run] : rounds;
    }
    CvError e = CV_OK;
    if (rounds * g <= 2 * (np + g)) {
        KChunk empty = pc[0].c;
        empty.kind = KOP_COPY, empty.n = 0, empty.a = 0, empty.b = empty.dst;
        p->nchunks[d] = first;
        for (size_t i = 0; !e && i < rounds * g; i++)
            e = push_chunk(p, d, empty) ? CV_OK : CV_ERR_NOMEM;
        memset(count, 0, g * sizeof *count);
        for (size_t i = 0; !e && i < np; i++) {
            size_t b = pc[i].run;
            p->chunks[d][first + count[b]++ * g + b] = pc[i].c;
        }
        *grid = (unsigned)g;
    }
    free(pc), free(count);
    return e;
}

/* One step being planned: what its transfers are read against, and
 * where the next staged ranges go. */
typedef struct {
    GpuExec *x;                 /* the devices */
    GpuPlan *p;                 /* the plan the step's chunks go into */
    const Schedule *s;          /* the schedule */
    const unsigned char *staged; /* the validator's staged flags */
    const SchedFuse *fu;        /* the timed run's fusion, or NULL */
    size_t es;                  /* bytes of an element */
    size_t soff[GPU_MAX_DEVICES]; /* the next staged range in each
                                     device's staging area */
    size_t k;                   /* the step */
} StepPlanning;

/* Bit d of a set of devices. */
static uint64_t dev_bit(int d) { return (uint64_t)1 << d; }

/* Device d's part of the step's phase (pass 0: the stage phase, 1: the
 * main one) reads the memory of device rd and writes that of device wr. */
static void touch(StepPlanning *w, int pass, int d, int rd, int wr)
{
    GpuStepPlan *sp = &w->p->steps[w->k];
    GpuTouch *t = pass ? &sp->main_touch[d] : &sp->stage_touch[d];
    t->rd |= dev_bit(rd);
    t->wr |= dev_bit(wr);
}

/* The main phase's bytes of step st per device, into bytes (zeroed), for
 * the size of its pieces. */
static void main_bytes(const StepPlanning *w, const Step *st, size_t *bytes)
{
    const Schedule *s = w->s;
    for (size_t i = 0; i < st->n; i++) {
        bool stage;
        int d = performer(w->x, s, w->staged, w->fu, st->first + i, &stage);
        if (!w->fu || !w->fu->skip[st->first + i])
            bytes[d] += s->xfers[st->first + i].count * w->es;
    }
}

/* Transfer t's source through device d's staging area: its range there
 * and, in the stage pass (pass 0), the copy into it (the driver's peer
 * copy where the devices have no peer access); *src becomes the range. */
static CvError plan_stage(StepPlanning *w, int d, const Transfer *t,
                          int pass, size_t piece, CUdeviceptr *src)
{
    GpuExec *x = w->x;
    int dd = x->rank_dev[t->dst], sd = x->rank_dev[t->src];
    size_t n = t->count * w->es;
    bool far = sd != dd && !x->peer[dd][sd];
    CUdeviceptr at = x->dev[d].stage + w->soff[d];
    w->soff[d] += (n + 255) & ~(size_t)255;
    if (pass == 0 && far) {
        touch(w, 0, dd, sd, dd);
        if (!push_pc(w->p, (GpuPeerCopy){.dev = dd, .src_dev = sd,
                                         .dst = at, .src = *src, .bytes = n}))
            return CV_ERR_NOMEM;
    } else if (pass == 0) {
        touch(w, 0, d, sd, d);
        if (!push_cut(w->p, d, (KChunk){.dst = at, .b = *src, .n = n,
                                        .kind = KOP_COPY}, w->es, piece))
            return CV_ERR_NOMEM;
    }
    *src = at;
    return CV_OK;
}

/* Transfer xi's chunks on device d in pass pass (0: staging it, 1: the
 * transfer itself); none where another device performs it. */
static CvError plan_xfer(StepPlanning *w, int d, size_t xi, int pass,
                         size_t piece)
{
    GpuExec *x = w->x;
    const SchedFuse *fu = w->fu;
    const Transfer *t = &w->s->xfers[xi];
    size_t es = w->es;
    bool stage;
    if (performer(x, w->s, w->staged, fu, xi, &stage) != d || (fu && fu->skip[xi]))
        return CV_OK; /* another's, or a copy-in the timed run leaves out */
    const Transfer *v = fu ? fu->via[xi] : NULL, *in = fu ? fu->own[xi] : NULL;
    size_t n = t->count * es;
    CUdeviceptr src = v ? addr(x, t->src, v->src_buf, sched_fuse_at(v, t->src_off), es)
                        : addr(x, t->src, t->src_buf, t->src_off, es);
    if (stage) {
        CvError e = plan_stage(w, d, t, pass, piece, &src);
        if (e)
            return e;
    }
    if (pass == 0)
        return CV_OK;
    int dd = x->rank_dev[t->dst];
    touch(w, 1, d, stage ? d : x->rank_dev[t->src], dd);
    if (t->op != XFER_COPY)
        touch(w, 1, d, dd, dd); /* a reduce reads its destination (or its input) */
    KChunk c = {.dst = addr(x, t->dst, t->dst_buf, t->dst_off, es),
                .b = src, .n = t->op == XFER_COPY ? n : t->count,
                .kind = t->op == XFER_COPY ? KOP_COPY : KOP_REDUCE};
    if (in) {
        c.kind = KOP_REDUCE3;
        c.a = addr(x, t->dst, in->src_buf, sched_fuse_at(in, t->dst_off), es);
    }
    return push_cut(w->p, d, c, es, piece) ? CV_OK : CV_ERR_NOMEM;
}

/* Step k's chunks on device d in pass pass (0: the stage phase, 1: the
 * main one; bytes: the main phase's on d), dealt to its blocks, and where
 * they are in the step's plan. */
static CvError plan_phase(StepPlanning *w, size_t k, int pass, int d,
                          size_t bytes)
{
    GpuExec *x = w->x;
    GpuPlan *p = w->p;
    const Step *st = &w->s->steps[k];
    GpuStepPlan *sp = &p->steps[k];
    size_t first = p->nchunks[d];
    size_t piece = bytes / (4 * (size_t)(x->dev[d].sms > 0 ? x->dev[d].sms : 1));
    piece = piece < MIN_CHUNK_BYTES ? MIN_CHUNK_BYTES : (piece + 15) & ~(size_t)15;
    for (size_t i = 0; i < st->n; i++) {
        CvError e = plan_xfer(w, d, st->first + i, pass, piece);
        if (e)
            return e;
    }
    CvError e = balance(p, d, first, w->es, &x->dev[d], x->stride,
                        pass == 0 ? &sp->stage_grid[d] : &sp->main_grid[d]);
    if (e)
        return e;
    if (pass == 0) {
        sp->stage_first[d] = first;
        sp->stage_n[d] = p->nchunks[d] - first;
        sp->staged |= sp->stage_n[d] > 0;
        if (w->soff[d] > p->stage_need[d])
            p->stage_need[d] = w->soff[d];
        w->soff[d] = 0; /* the main pass walks the same ranges again */
    } else {
        sp->main_first[d] = first;
        sp->main_n[d] = p->nchunks[d] - first;
    }
    return CV_OK;
}

/* Step k's chunks: the stage phase's (pass 0), then the main phase's
 * (pass 1), device after device; the staging areas they need. */
static CvError plan_step(GpuExec *x, GpuPlan *p, const Schedule *s,
                         const unsigned char *staged, const SchedFuse *fu,
                         size_t k)
{
    StepPlanning w = {.x = x, .p = p, .s = s, .staged = staged, .fu = fu,
                      .es = dtype_size(s->call.dtype), .k = k};
    GpuStepPlan *sp = &p->steps[k];
    size_t bytes[GPU_MAX_DEVICES] = {0};
    main_bytes(&w, &s->steps[k], bytes);
    sp->pc_first = p->npc;
    for (int pass = 0; pass < 2; pass++)
        for (int d = 0; d < x->ndev; d++) {
            CvError e = plan_phase(&w, k, pass, d, bytes[d]);
            if (e)
                return e;
        }
    sp->pc_n = p->npc - sp->pc_first;
    sp->staged |= sp->pc_n > 0;
    return CV_OK;
}

/* avg's finish: every rank's output divided by p, on its device. */
static CvError plan_finish(GpuExec *x, GpuPlan *p, const Schedule *s)
{
    GpuStepPlan *sp = &p->steps[s->nsteps];
    size_t es = dtype_size(s->call.dtype);
    for (int d = 0; d < x->ndev; d++) {
        sp->main_first[d] = p->nchunks[d];
        if (s->call.op == OP_AVG && coll_is_reducing(s->call.kind))
            for (int r = 0; r < s->call.nranks; r++) {
                CollLayout l;
                coll_layout(&s->call, r, &l);
                if (x->rank_dev[r] != d || !l.out_count)
                    continue;
                KChunk c = {.dst = addr(x, r, l.out_buf, l.out_off, es),
                            .b = 0, .n = l.out_count, .kind = KOP_AVG};
                sp->main_touch[d].rd |= dev_bit(d);
                sp->main_touch[d].wr |= dev_bit(d);
                if (!push_cut(p, d, c, es, 1u << 20))
                    return CV_ERR_NOMEM;
            }
        CvError e = balance(p, d, sp->main_first[d], es, &x->dev[d],
                            x->stride, &sp->main_grid[d]);
        if (e)
            return e;
        sp->main_n[d] = p->nchunks[d] - sp->main_first[d];
    }
    return CV_OK;
}

CvError gpu_plan_build(GpuExec *x, GpuPlan *p, const Schedule *s,
                       const unsigned char *staged, const SchedFuse *fuse)
{
    CvError e = plan_alloc(p, x->ndev, s->nsteps);
    for (size_t k = 0; !e && k < s->nsteps; k++)
        e = plan_step(x, p, s, staged, fuse, k);
    if (!e)
        e = plan_finish(x, p, s);
    if (e)
        gpu_plan_free(p, x->ndev);
    return e;
}
