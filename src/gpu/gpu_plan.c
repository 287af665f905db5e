/* gpu_plan.c - a schedule's plan on the devices (gpu_impl.h: GpuPlan).
 *
 * Each transfer is performed by its destination's device, which reads the
 * source in place: on its own memory, or a peer's over peer access. Where
 * the devices have no peer access, the source's device copies the range
 * to pinned host memory in the step's stage phase and the destination's
 * device copies it into its staging area before the main phase. A source
 * the same step overwrites (the validator's staged flag) is copied into
 * the destination's staging area in the stage phase. In timed runs
 * (GPU_RUN) a copy-in from the send buffer that the next step's reduce
 * can take over (sched_fuse_partner) is skipped and the reduce reads the
 * input itself (KOP_REDUCE3). The main phase's work on a device is cut
 * into chunks of about a quarter of its multiprocessors' share, so every
 * multiprocessor has work. */
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_impl.h"

#define MIN_CHUNK_BYTES (64u << 10)

void gpu_plan_free(GpuPlan *p, int ndev)
{
    for (int d = 0; p->chunks && d < ndev; d++)
        free(p->chunks[d]);
    for (size_t k = 0; p->steps && k <= p->nsteps; k++) {
        free(p->steps[k].stage_first);
        free(p->steps[k].stage_n);
        free(p->steps[k].main_first);
        free(p->steps[k].main_n);
    }
    free(p->chunks), free(p->nchunks), free(p->cap), free(p->steps);
    free(p->hc), free(p->stage_need);
    memset(p, 0, sizeof *p);
}

static bool push_chunk(GpuPlan *p, int d, KChunk c)
{
    if (p->nchunks[d] == p->cap[d]) {
        size_t n = p->cap[d] ? 2 * p->cap[d] : 64;
        KChunk *m = realloc(p->chunks[d], n * sizeof *m);
        if (!m)
            return false;
        p->chunks[d] = m;
        p->cap[d] = n;
    }
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

static bool push_hc(GpuPlan *p, GpuHostCopy h)
{
    if (p->nhc == p->cap_hc) {
        size_t n = p->cap_hc ? 2 * p->cap_hc : 16;
        GpuHostCopy *m = realloc(p->hc, n * sizeof *m);
        if (!m)
            return false;
        p->hc = m;
        p->cap_hc = n;
    }
    p->hc[p->nhc++] = h;
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
        if (!st->stage_first || !st->stage_n || !st->main_first || !st->main_n)
            return CV_ERR_NOMEM;
    }
    return CV_OK;
}

static CUdeviceptr addr(const GpuExec *x, int r, int b, size_t off, size_t es)
{
    return x->buf[(size_t)r * BUF_COUNT + (size_t)b] + off * es;
}

/* Whether transfer t of step k is a copy-in a reduce of step k + 1 takes
 * over (GPU_RUN), and the transfer of step k - 1 that t takes over. */
static const Transfer *fused_from(const Schedule *s, size_t k,
                                  const Transfer *t)
{
    if (k == 0 || t->op != XFER_REDUCE)
        return NULL;
    const Step *prev = &s->steps[k - 1];
    for (size_t i = 0; i < prev->n; i++) {
        const Transfer *c = &s->xfers[prev->first + i];
        if (sched_fuse_partner(s, k - 1, c) == t)
            return c;
    }
    return NULL;
}

/* Step k's chunks: the stage phase's (pass 0), then the main phase's
 * (pass 1), device after device; soff: where the next staged range goes
 * in each device's staging area; hoff: in pinned host memory. */
static CvError plan_step(GpuExec *x, GpuPlan *p, const Schedule *s,
                         const unsigned char *staged, int mode, size_t k)
{
    const Step *st = &s->steps[k];
    GpuStepPlan *sp = &p->steps[k];
    size_t es = dtype_size(s->call.dtype), hoff = 0;
    size_t soff[GPU_MAX_DEVICES] = {0}, bytes[GPU_MAX_DEVICES] = {0};
    /* the main phase's bytes per device, for the size of its pieces */
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *t = &s->xfers[st->first + i];
        bytes[x->rank_dev[t->dst]] += t->count * es;
    }
    size_t hc0 = p->nhc;
    sp->hc_first = hc0;
    for (int pass = 0; pass < 2; pass++)
        for (int d = 0; d < x->ndev; d++) {
            size_t first = p->nchunks[d];
            size_t piece = bytes[d] / (4 * (size_t)(x->dev[d].sms > 0 ? x->dev[d].sms : 1));
            piece = piece < MIN_CHUNK_BYTES ? MIN_CHUNK_BYTES : (piece + 15) & ~(size_t)15;
            for (size_t i = 0; i < st->n; i++) {
                size_t xi = st->first + i;
                const Transfer *t = &s->xfers[xi];
                int dd = x->rank_dev[t->dst], sd = x->rank_dev[t->src];
                if (dd != d)
                    continue;
                if (mode == GPU_RUN && t->op == XFER_COPY && k + 1 < s->nsteps &&
                    sched_fuse_partner(s, k, t))
                    continue; /* the next step's reduce does it */
                size_t n = t->count * es;
                CUdeviceptr src = addr(x, t->src, t->src_buf, t->src_off, es);
                bool far = sd != dd && !x->peer[dd][sd];
                if (far || staged[xi]) {
                    CUdeviceptr at = x->dev[d].stage + soff[d];
                    soff[d] += (n + 255) & ~(size_t)255;
                    if (pass == 0 && far) {
                        if (!push_hc(p, (GpuHostCopy){.dev = sd, .to_device = 0,
                                                      .dptr = src, .host_off = hoff,
                                                      .bytes = n}) ||
                            !push_hc(p, (GpuHostCopy){.dev = dd, .to_device = 1,
                                                      .dptr = at, .host_off = hoff,
                                                      .bytes = n}))
                            return CV_ERR_NOMEM;
                        hoff += (n + 255) & ~(size_t)255;
                    } else if (pass == 0 &&
                               !push_cut(p, d, (KChunk){.dst = at, .b = src, .n = n,
                                                        .kind = KOP_COPY}, es, piece))
                        return CV_ERR_NOMEM;
                    src = at;
                }
                if (pass == 0)
                    continue;
                KChunk c = {.dst = addr(x, t->dst, t->dst_buf, t->dst_off, es),
                            .b = src, .n = t->op == XFER_COPY ? n : t->count,
                            .kind = t->op == XFER_COPY ? KOP_COPY : KOP_REDUCE};
                const Transfer *in = mode == GPU_RUN ? fused_from(s, k, t) : NULL;
                if (in) {
                    c.kind = KOP_REDUCE3;
                    c.a = addr(x, in->src, in->src_buf, in->src_off, es);
                }
                if (!push_cut(p, d, c, es, piece))
                    return CV_ERR_NOMEM;
            }
            if (pass == 0) {
                sp->stage_first[d] = first;
                sp->stage_n[d] = p->nchunks[d] - first;
                sp->staged |= sp->stage_n[d] > 0;
                if (soff[d] > p->stage_need[d])
                    p->stage_need[d] = soff[d];
                soff[d] = 0; /* the main pass walks the same ranges again */
            } else {
                sp->main_first[d] = first;
                sp->main_n[d] = p->nchunks[d] - first;
            }
        }
    sp->hc_n = p->nhc - hc0;
    sp->staged |= sp->hc_n > 0;
    if (hoff > p->host_need)
        p->host_need = hoff;
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
                if (!push_cut(p, d, c, es, 1u << 20))
                    return CV_ERR_NOMEM;
            }
        sp->main_n[d] = p->nchunks[d] - sp->main_first[d];
    }
    return CV_OK;
}

CvError gpu_plan_build(GpuExec *x, GpuPlan *p, const Schedule *s,
                       const unsigned char *staged, int mode)
{
    CvError e = plan_alloc(p, x->ndev, s->nsteps);
    for (size_t k = 0; !e && k < s->nsteps; k++)
        e = plan_step(x, p, s, staged, mode, k);
    if (!e)
        e = plan_finish(x, p, s);
    if (e)
        gpu_plan_free(p, x->ndev);
    return e;
}
