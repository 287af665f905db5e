/* exec_cuda.c - the cuda backend's operations and its ExecOps table.
 *
 * Ranks live on devices (gpu_dev.c: one each where there are enough,
 * else in blocks); every rank's buffers are device memory on its device.
 * A step is one launch of the step kernel per device over the step's
 * plan (gpu_plan.c), after a stage phase where the step overwrites
 * sources or reads a device without peer access; with several devices,
 * each device's part of a phase ends in an event, and before a phase a
 * device waits only for the devices whose earlier work touched memory
 * its part touches, one of the two writing it. A
 * timed run is captured once as a CUDA graph (across the devices where
 * there are several) and launched per iteration; CUDA events time the
 * loop and, in passes of their own, each step (gpu_run.c). read copies a rank's buffer to a host mirror once after a
 * change and serves reads from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/data.h"
#include "gpu/gpu_impl.h"

/* The kernel numbers datatypes and ops as the core does: every value. */
#define SAME(k, c) _Static_assert((int)(k) == (int)(c), #k " is " #c)
SAME(KT_INT8, DT_INT8);
SAME(KT_UINT8, DT_UINT8);
SAME(KT_INT32, DT_INT32);
SAME(KT_UINT32, DT_UINT32);
SAME(KT_INT64, DT_INT64);
SAME(KT_UINT64, DT_UINT64);
SAME(KT_HALF, DT_HALF);
SAME(KT_BFLOAT16, DT_BFLOAT16);
SAME(KT_FLOAT, DT_FLOAT);
SAME(KT_DOUBLE, DT_DOUBLE);
SAME(KT_COUNT, DT_COUNT);
SAME(KR_SUM, OP_SUM);
SAME(KR_PROD, OP_PROD);
SAME(KR_MIN, OP_MIN);
SAME(KR_MAX, OP_MAX);
SAME(KR_AVG, OP_AVG);
SAME(KR_COUNT, OP_COUNT);
#undef SAME

extern const ExecOps exec_cuda_ops;

static void gpu_close(Executor *ex);

static CvError cuda_open_ex(Executor **out, int nranks, const ExecOptions *opt,
                            char *why, size_t whylen)
{
    *out = NULL;
    if (nranks < 1 || nranks > COLL_MAX_RANKS) {
        snprintf(why, whylen, "the cuda backend runs 1 to %d ranks; %d were "
                 "asked for", COLL_MAX_RANKS, nranks);
        return CV_ERR_RANKS;
    }
    GpuExec *x = calloc(1, sizeof *x);
    int *rd = calloc((size_t)nranks, sizeof *rd);
    if (!x || !rd) {
        free(x), free(rd);
        snprintf(why, whylen, "out of memory starting %d ranks", nranks);
        return CV_ERR_NOMEM;
    }
    exec_base_init(&x->base, &exec_cuda_ops, nranks);
    x->rank_dev = rd;
    x->unalign = opt ? opt->unalign : 0;
    CvError e = gpu_open_devices(x, opt ? opt->params : NULL, why, whylen);
    if (!e)
        e = gpu_use(x, 0);
    if (!e)
        e = gpu_check(x, x->api.cuEventCreate(&x->ev_start, CU_EVENT_DEFAULT),
                      "to create an event");
    if (!e)
        e = gpu_check(x, x->api.cuEventCreate(&x->ev_end, CU_EVENT_DEFAULT),
                      "to create an event");
    for (int i = 0; !e && i < GPU_IN_FLIGHT; i++)
        e = gpu_check(x, x->api.cuEventCreate(&x->ev_iter[i], CU_EVENT_DISABLE_TIMING),
                      "to create an event");
    if (!e)
        e = gpu_probe_graph(x);
    if (e) {
        if (!why[0])
            snprintf(why, whylen, "%s", x->base.err);
        gpu_close(&x->base);
        return e;
    }
    *out = &x->base;
    return CV_OK;
}

/* ------------------------------------------------------------ memory */

static size_t nbufs(const GpuExec *x) { return (size_t)x->base.nranks * BUF_COUNT; }

static void free_events(GpuExec *x)
{
    for (size_t i = 0; i < x->nev_step; i++)
        x->api.cuEventDestroy(x->ev_step[i]);
    free(x->ev_step);
    x->ev_step = NULL;
    x->nev_step = 0;
}

/* Everything a load made but the device and pinned memory, which the
 * next load reuses where it is large enough. */
static void unload(GpuExec *x)
{
    x->base.sched = NULL;
    gpu_drop_graphs(x);
    free_events(x);
    for (size_t i = 0; x->mirror && i < nbufs(x); i++) {
        free(x->mirror[i]);
        x->mirror[i] = NULL;
        x->mirror_ok[i] = false;
    }
    for (int m = 0; m < GPU_MODES; m++)
        gpu_plan_free(&x->plan[m], x->ndev);
}

/* The memory unload keeps, freed (at close). */
static void free_memory(GpuExec *x)
{
    CudaApi *a = &x->api;
    for (size_t i = 0; x->buf_base && i < nbufs(x); i++)
        if (x->buf_base[i]) {
            gpu_use(x, x->rank_dev[i / BUF_COUNT]);
            a->cuMemFree(x->buf_base[i]);
        }
    free(x->buf), free(x->buf_base), free(x->buf_bytes), free(x->mirror);
    free(x->mirror_ok);
    x->buf = x->buf_base = NULL, x->buf_bytes = NULL, x->mirror = NULL;
    x->mirror_ok = NULL;
    for (int d = 0; d < x->ndev; d++) {
        GpuDev *g = &x->dev[d];
        gpu_use(x, d);
        for (int m = 0; m < GPU_MODES; m++)
            if (g->plan[m])
                a->cuMemFree(g->plan[m]);
        if (g->stage)
            a->cuMemFree(g->stage);
        g->plan[0] = g->plan[1] = g->stage = 0;
        g->plan_bytes[0] = g->plan_bytes[1] = g->stage_bytes = 0;
    }
}

/* What holding n bytes where `have` are held adds to a device's use. */
static size_t growth(size_t n, size_t have) { return n > have ? n - have : 0; }

/* *p (holding *have bytes on device d) made to hold at least n: only a
 * larger need frees and allocates (after a probe's copies hung, the old
 * memory is left to the contexts' reset at close: cuMemFree would wait
 * for them). */
static CvError ensure(GpuExec *x, int d, CUdeviceptr *p, size_t *have, size_t n,
                      const char *what)
{
    if (n <= *have)
        return CV_OK;
    CvError e = gpu_use(x, d);
    if (e)
        return e;
    if (*p && !x->probe_hung)
        x->api.cuMemFree(*p);
    *p = 0, *have = 0;
    if ((e = gpu_check(x, x->api.cuMemAlloc(p, n), what)))
        return e;
    *have = n;
    return CV_OK;
}

/* Whether what a load still has to allocate fits in each device's free
 * memory: what the buffers of s need beyond those held (buffers), and
 * `extra` per device (plans and stages; NULL: none). Free memory already
 * excludes what is allocated, so nothing is counted twice. */
static CvError check_fits(GpuExec *x, const Schedule *s, bool buffers,
                          const size_t *extra)
{
    size_t need[GPU_MAX_DEVICES] = {0};
    for (int r = 0; buffers && r < s->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++) {
            size_t n = sched_bufsize(s, r, (BufId)b), es = dtype_size(s->call.dtype);
            size_t *at = &need[x->rank_dev[r]], i = (size_t)r * BUF_COUNT + (size_t)b;
            if (n > (SIZE_MAX - *at) / es)
                return exec_fail(&x->base, CV_ERR_NOMEM, "the buffers would be larger "
                                "than a device can address, let alone hold");
            *at += growth((n + x->unalign) * es,
                          x->buf_bytes ? x->buf_bytes[i] : 0);
        }
    for (int d = 0; d < x->ndev; d++) {
        size_t fr = 0, tot = 0, want = need[d] + (extra ? extra[d] : 0);
        CvError e = gpu_use(x, d);
        if (!e)
            e = gpu_check(x, x->api.cuMemGetInfo(&fr, &tot), "to say its free memory");
        if (e)
            return e;
        if (want > fr)
            return exec_fail(&x->base, CV_ERR_NOMEM, "the buffers need %.3g GiB on "
                            "CUDA device %d but it has %.3g GiB of memory free "
                            "(of %.3g GiB)", want / 1073741824.0,
                            x->dev[d].ordinal, fr / 1073741824.0,
                            tot / 1073741824.0);
    }
    return CV_OK;
}

static CvError alloc_buffers(GpuExec *x, const Schedule *s)
{
    size_t es = dtype_size(s->call.dtype);
    if (!x->buf) {
        x->buf = calloc(nbufs(x), sizeof *x->buf);
        x->buf_base = calloc(nbufs(x), sizeof *x->buf_base);
        x->buf_bytes = calloc(nbufs(x), sizeof *x->buf_bytes);
        x->mirror = calloc(nbufs(x), sizeof *x->mirror);
        x->mirror_ok = calloc(nbufs(x), sizeof *x->mirror_ok);
    }
    if (!x->buf || !x->buf_base || !x->buf_bytes || !x->mirror || !x->mirror_ok)
        return exec_fail(&x->base, CV_ERR_NOMEM, "out of memory loading the schedule");
    for (size_t i = 0; i < nbufs(x); i++) {
        size_t n = sched_bufsize(s, (int)(i / BUF_COUNT), (BufId)(i % BUF_COUNT));
        CvError e = ensure(x, x->rank_dev[i / BUF_COUNT], &x->buf_base[i],
                           &x->buf_bytes[i], (n + x->unalign) * es,
                           "to allocate a rank's buffer");
        if (e)
            return e;
        x->buf[i] = x->buf_base[i] + x->unalign * es; /* -u: past the start */
    }
    return CV_OK;
}

/* The plans of both modes: stepping, and timed runs with fusion fu. */
static CvError plans(GpuExec *x, const Schedule *s, const unsigned char *stg,
                     const SchedFuse *fu)
{
    CvError e = CV_OK;
    for (int m = 0; !e && m < GPU_MODES; m++)
        e = gpu_plan_build(x, &x->plan[m], s, stg, m == GPU_RUN ? fu : NULL);
    return e;
}

/* The plans of both modes, their stages, and their chunks on the devices. */
static CvError place_plans(GpuExec *x, const Schedule *s, const unsigned char *stg,
                           const SchedFuse *fu)
{
    size_t stage[GPU_MAX_DEVICES] = {0};
    CvError e = plans(x, s, stg, fu);
    for (int m = 0; !e && m < GPU_MODES; m++)
        for (int d = 0; d < x->ndev; d++)
            if (x->plan[m].stage_need[d] > stage[d])
                stage[d] = x->plan[m].stage_need[d];
    if (e)
        return exec_fail(&x->base, e, "out of memory planning the schedule");
    size_t extra[GPU_MAX_DEVICES];
    for (int d = 0; d < x->ndev; d++) {
        GpuDev *g = &x->dev[d];
        extra[d] = growth(stage[d], g->stage_bytes);
        for (int m = 0; m < GPU_MODES; m++) /* (a plan may grow by a chunk) */
            extra[d] += growth((x->plan[m].nchunks[d] + 1) * sizeof(KChunk),
                               g->plan_bytes[m]);
    }
    if ((e = check_fits(x, s, false, extra)))
        return e;
    for (int d = 0; !e && d < x->ndev; d++)
        e = ensure(x, d, &x->dev[d].stage, &x->dev[d].stage_bytes, stage[d],
                   "to allocate a staging area");
    if (e)
        return e;
    /* Again, now that the staging areas have their addresses. */
    for (int m = 0; m < GPU_MODES; m++)
        gpu_plan_free(&x->plan[m], x->ndev);
    if ((e = plans(x, s, stg, fu)))
        return exec_fail(&x->base, e, "out of memory planning the schedule");
    for (int m = 0; m < GPU_MODES; m++)
        for (int d = 0; d < x->ndev; d++) {
            size_t n = x->plan[m].nchunks[d];
            if (!n)
                continue;
            GpuDev *g = &x->dev[d];
            if ((e = ensure(x, d, &g->plan[m], &g->plan_bytes[m],
                            (n + 1) * sizeof(KChunk), "to allocate a plan")) ||
                (e = gpu_upload(x, d, g->plan[m], x->plan[m].chunks[d],
                                n * sizeof(KChunk))))
                return e;
        }
    return CV_OK;
}

static CvError build_plans(GpuExec *x, const Schedule *s, const unsigned char *stg)
{
    SchedFuse fu;
    if (sched_fuse_build(&fu, s))
        return exec_fail(&x->base, CV_ERR_NOMEM, "out of memory planning the schedule");
    CvError e = place_plans(x, s, stg, &fu);
    sched_fuse_free(&fu);
    return e;
}

/* A synchronous cuMemcpyHtoD from pageable memory runs on the legacy
 * stream, which the backend's non-blocking streams never wait for, and
 * may return before its DMA lands: the copy goes on the device's own
 * stream instead, and is waited for, since src is pageable and reused. */
CvError gpu_upload(GpuExec *x, int d, CUdeviceptr dptr, const void *src,
                   size_t n)
{
    CUstream st = x->dev[d].stream;
    CvError e = gpu_use(x, d);
    if (!e)
        e = gpu_check(x, x->api.cuMemcpyHtoDAsync(dptr, src, n, st),
                      "to copy to the device");
    return e ? e : gpu_check(x, x->api.cuStreamSynchronize(st),
                             "to copy to the device");
}

static CvError cuda_reset(Executor *ex);

static CvError cuda_load(Executor *ex, const Schedule *s)
{
    GpuExec *x = gx(ex);
    if (x->base.dead)
        return CV_ERR_BACKEND; /* the fault's sentence kept */
    x->base.err[0] = 0;
    unload(x);
    if (!s || s->call.nranks != ex->nranks)
        return exec_fail(&x->base, CV_ERR_ARG, "the schedule has %d ranks but the "
                        "executor was opened for %d", s ? s->call.nranks : 0,
                        ex->nranks);
    if (atomic_exchange(&x->base.cancel, 0))
        return exec_fail(&x->base, CV_ERR_CANCELLED, "the load was cancelled");
    CvError e = check_fits(x, s, true, NULL);
    if (e)
        return e;
    SchedCheck chk;
    unsigned char *stg = malloc(s->nxfers + 1);
    if (!stg)
        return exec_fail(&x->base, CV_ERR_NOMEM, "out of memory loading the schedule");
    e = sched_validate(s, &chk, stg);
    if (e) {
        free(stg);
        return exec_fail(&x->base, e, "the schedule is not valid: %s (step %zu, "
                        "transfer %zu)", cv_strerror(e), chk.step, chk.xfer);
    }
    x->finish = s->call.op == OP_AVG && coll_is_reducing(s->call.kind);
    e = alloc_buffers(x, s);
    if (!e)
        e = build_plans(x, s, stg);
    free(stg);
    if (!e) {
        ex->sched = s;
        e = cuda_reset(ex);
    }
    if (e) {
        char keep[sizeof x->base.err];
        memcpy(keep, x->base.err, sizeof keep);
        unload(x);
        memcpy(x->base.err, keep, sizeof keep);
    }
    return e;
}

/* The host's copies of the buffers are out of date. */
static void mirrors_stale(GpuExec *x)
{
    memset(x->mirror_ok, 0, nbufs(x) * sizeof *x->mirror_ok);
}

/* The base's guard (exec_guard) before a change of the buffers. */
static CvError need_sched(GpuExec *x, const char *what)
{
    CvError e = exec_guard(&x->base, what);
    if (!e)
        mirrors_stale(x);
    return e;
}

/* Inputs filled, every other element poisoned, copied to the devices. */
static CvError cuda_reset(Executor *ex)
{
    GpuExec *x = gx(ex);
    CvError e = need_sched(x, "the reset");
    if (e)
        return e;
    const Schedule *s = ex->sched;
    DataType t = s->call.dtype;
    size_t es = dtype_size(t), most = 0;
    for (size_t i = 0; i < nbufs(x); i++) {
        size_t n = sched_bufsize(s, (int)(i / BUF_COUNT), (BufId)(i % BUF_COUNT));
        most = n > most ? n : most;
    }
    unsigned char *h = malloc(most * es + 1);
    if (!h)
        return exec_fail(&x->base, CV_ERR_NOMEM, "out of memory filling the inputs");
    for (int r = 0; !e && r < ex->nranks; r++) {
        CollLayout l;
        coll_layout(&s->call, r, &l);
        for (int b = 0; !e && b < BUF_COUNT; b++) {
            size_t n = sched_bufsize(s, r, (BufId)b);
            if (!n)
                continue;
            data_fill_poison(t, h, n);
            if ((BufId)b == l.in_buf && l.in_count)
                data_fill_input(&s->call, r, 0, l.in_count, h + l.in_off * es);
            e = gpu_upload(x, x->rank_dev[r],
                           x->buf[(size_t)r * BUF_COUNT + (size_t)b], h, n * es);
        }
    }
    free(h);
    return e;
}

/* ------------------------------------------------------------- steps */

/* Launch chunks [first, first + n) of plan m on device d over grid
 * blocks (the plan's: gpu_plan.c balances their bytes). */
static CvError launch(GpuExec *x, int m, int d, size_t first, size_t n,
                      unsigned grid)
{
    if (!n)
        return CV_OK;
    GpuDev *g = &x->dev[d];
    const CollCall *c = &x->base.sched->call;
    CUdeviceptr plan = g->plan[m] + first * sizeof(KChunk);
    unsigned int nc = (unsigned int)n, dt = (unsigned int)c->dtype,
                 op = (unsigned int)c->op | (x->packed ? KF_PACKED : 0u),
                 p = (unsigned int)c->nranks;
    void *args[] = {&plan, &nc, &dt, &op, &p};
    return gpu_check(x, x->api.cuLaunchKernel(g->fn, grid, 1, 1, GPU_THREADS, 1, 1,
                                              0, g->stream, args, NULL),
                     "to launch the step kernel");
}

/* Every device records its phase event; the first `waiters` devices
 * then wait for every other one's. */
static CvError wait_others(GpuExec *x, int waiters)
{
    CvError e = CV_OK;
    if (x->ndev < 2)
        return CV_OK;
    for (int d = 0; !e && d < x->ndev; d++)
        if (!(e = gpu_use(x, d)))
            e = gpu_check(x, x->api.cuEventRecord(x->dev[d].phase, x->dev[d].stream),
                          "to record an event");
    for (int d = 0; !e && d < waiters; d++) {
        for (int o = 0; !e && o < x->ndev; o++)
            if (o != d && !(e = gpu_use(x, d)))
                e = gpu_check(x, x->api.cuStreamWaitEvent(x->dev[d].stream,
                                                          x->dev[o].phase, 0),
                              "to wait for another device");
        if (!e)
            memset(x->since[d], 0, (size_t)x->ndev * sizeof x->since[d][0]);
    }
    return e;
}

void gpu_deps_clear(GpuExec *x)
{
    for (int d = 0; d < x->ndev; d++)
        memset(x->since[d], 0, (size_t)x->ndev * sizeof x->since[d][0]);
}

CvError gpu_cross_wait(GpuExec *x) { return wait_others(x, x->ndev); }

CvError gpu_join(GpuExec *x) { return wait_others(x, 1); }

/* Whether work that touched a and work that touches b must not overlap:
 * one writes memory the other reads or writes. */
static bool conflict(const GpuTouch *a, const GpuTouch *b)
{
    return (a->wr & (b->rd | b->wr)) || (a->rd & b->wr);
}

/* Before a phase (next: what each device's part touches): each device
 * waits for the other devices whose work since its last wait for them
 * conflicts with its part (review finding G3: not for every device). */
static CvError phase_waits(GpuExec *x, const GpuTouch *next)
{
    CvError e = CV_OK;
    for (int d = 0; !e && d < x->ndev; d++)
        for (int o = 0; !e && o < x->ndev; o++) {
            if (o == d || !conflict(&x->since[d][o], &next[d]))
                continue;
            if (!(e = gpu_use(x, d)))
                e = gpu_check(x, x->api.cuStreamWaitEvent(x->dev[d].stream,
                                                          x->dev[o].phase, 0),
                              "to wait for another device");
            x->since[d][o] = (GpuTouch){0};
        }
    return e;
}

/* After a phase (done: what each device's part touched): each device
 * that had a part records its phase event, which then stands after all
 * its work, and the other devices have that part to wait for. */
static CvError phase_done(GpuExec *x, const GpuTouch *done)
{
    CvError e = CV_OK;
    for (int d = 0; !e && x->ndev > 1 && d < x->ndev; d++) {
        const GpuTouch *t = &done[d];
        if (!t->rd && !t->wr)
            continue;
        if (!(e = gpu_use(x, d)))
            e = gpu_check(x, x->api.cuEventRecord(x->dev[d].phase, x->dev[d].stream),
                          "to record an event");
        for (int w = 0; w < x->ndev; w++) {
            GpuTouch *s = &x->since[w][d];
            s->rd |= t->rd, s->wr |= t->wr;
        }
    }
    return e;
}

/* The stage phase's copies between devices without peer access, each on
 * its destination's stream. */
static CvError peer_copies(GpuExec *x, const GpuStepPlan *sp,
                           const GpuPlan *p)
{
    CvError e = CV_OK;
    for (size_t i = 0; !e && i < sp->pc_n; i++) {
        const GpuPeerCopy *h = &p->pc[sp->pc_first + i];
        const GpuDev *d = &x->dev[h->dev], *s = &x->dev[h->src_dev];
        if (!(e = gpu_use(x, h->dev)))
            e = gpu_check(x, x->api.cuMemcpyPeerAsync(h->dst, d->ctx, h->src,
                                                      s->ctx, h->bytes,
                                                      d->stream),
                          "to copy between devices");
    }
    return e;
}

/* Issue step k (nsteps: the finish) of plan m on every device: its stage
 * phase (stage kernels, peer copies) where it has one, then its main
 * phase (main kernels), each after the waits it needs. */
CvError gpu_issue(GpuExec *x, int m, size_t k)
{
    const GpuPlan *p = &x->plan[m];
    const GpuStepPlan *sp = &p->steps[k];
    CvError e = CV_OK;
    if (sp->staged) {
        e = phase_waits(x, sp->stage_touch);
        for (int d = 0; !e && d < x->ndev; d++)
            if (!(e = gpu_use(x, d)))
                e = launch(x, m, d, sp->stage_first[d], sp->stage_n[d],
                           sp->stage_grid[d]);
        if (!e)
            e = peer_copies(x, sp, p);
        if (!e)
            e = phase_done(x, sp->stage_touch);
    }
    if (!e)
        e = phase_waits(x, sp->main_touch);
    for (int d = 0; !e && d < x->ndev; d++)
        if (!(e = gpu_use(x, d)))
            e = launch(x, m, d, sp->main_first[d], sp->main_n[d], sp->main_grid[d]);
    return e ? e : phase_done(x, sp->main_touch);
}

CvError gpu_sync_all(GpuExec *x)
{
    CvError e = CV_OK;
    for (int d = 0; !e && d < x->ndev; d++)
        if (!(e = gpu_use(x, d)))
            e = gpu_check(x, x->api.cuStreamSynchronize(x->dev[d].stream),
                          "to run a step");
    if (!e)
        gpu_deps_clear(x);
    return e;
}

static CvError cuda_step(Executor *ex, size_t k)
{
    GpuExec *x = gx(ex);
    CvError e = exec_guard_step(ex, k, "the step");
    if (e)
        return e;
    mirrors_stale(x);
    e = gpu_issue(x, GPU_STEP, k);
    return e ? e : gpu_sync_all(x);
}

static CvError cuda_finish(Executor *ex)
{
    GpuExec *x = gx(ex);
    CvError e = need_sched(x, "the finish");
    if (e || !x->finish)
        return e;
    e = gpu_issue(x, GPU_STEP, ex->sched->nsteps);
    return e ? e : gpu_sync_all(x);
}

/* ------------------------------------------------------------- reads */

static CvError cuda_read(Executor *ex, int r, BufId b, size_t off, size_t n,
                         void *dst)
{
    GpuExec *x = gx(ex);
    CvError e = exec_guard_read(ex, r, b, off, n);
    if (e)
        return e;
    size_t have = sched_bufsize(ex->sched, r, b);
    size_t es = dtype_size(ex->sched->call.dtype), i = (size_t)r * BUF_COUNT + b;
    if (!n)
        return CV_OK;
    if (!x->mirror_ok[i]) { /* the whole buffer, once after a change */
        if (!x->mirror[i] && !(x->mirror[i] = malloc(have * es)))
            return exec_fail(&x->base, CV_ERR_NOMEM, "out of memory reading a buffer");
        e = gpu_use(x, x->rank_dev[r]);
        if (!e)
            e = gpu_check(x, x->api.cuMemcpyDtoH(x->mirror[i], x->buf[i], have * es),
                          "to copy a buffer to the host");
        if (e)
            return e;
        x->mirror_ok[i] = true;
    }
    memcpy(dst, x->mirror[i] + off * es, n * es);
    return CV_OK;
}

/* ------------------------------------------------------ the machine */

/* Whether device d reaches s's memory through host memory: its probe's
 * copies hung (hung), or the driver gave it no peer access (refused). */
static bool hung(const GpuExec *x, int d, int s)
{
    return x->peer_hung[d][s];
}

static bool refused(const GpuExec *x, int d, int s)
{
    return d != s && !x->peer[d][s] && !x->peer_hung[d][s];
}

/* "; HEAD: 0>1, 2-3": the pairs pick takes (d>s: device d reaching
 * device s's memory, by their numbers; with both, d-s where the other
 * way is taken too), or nothing. */
static void pair_list(const GpuExec *x,
                      bool (*pick)(const GpuExec *, int, int), bool both,
                      const char *head, char *out, size_t len)
{
    size_t at = 0;
    int n = 0;
    for (int d = 0; d < x->ndev; d++)
        for (int s = 0; s < x->ndev && at < len; s++) {
            bool two = both && pick(x, s, d);
            if (!pick(x, d, s) || (two && s < d))
                continue;
            n = snprintf(out + at, len - at, "%s%d%c%d", at ? ", " : head,
                         x->dev[d].ordinal, two ? '-' : '>',
                         x->dev[s].ordinal);
            at += n > 0 ? (size_t)n : 0;
        }
}

/* "4 ranks on 2 devices (0, 1), 2 each; peer access": the devices, the
 * ranks on each, and how data crosses between them. */
static void gpu_placement(const GpuExec *x, char *out, size_t len)
{
    int p = x->base.nranks, at = 0, n;
    bool all_peer = true, no_peer = true;
    n = snprintf(out, len, "%d rank%s on %d device%s (", p, p == 1 ? "" : "s",
                 x->ndev, x->ndev == 1 ? "" : "s");
    for (int d = 0; n > 0 && (size_t)(at += n) < len && d < x->ndev; d++)
        n = snprintf(out + at, len - (size_t)at, "%s%d", d ? ", " : "",
                     x->dev[d].ordinal);
    for (int d = 0; d < x->ndev; d++)
        for (int s = 0; s < x->ndev; s++)
            if (s != d) {
                all_peer &= x->peer[d][s];
                no_peer &= !x->peer[d][s];
            }
    if ((size_t)at >= len)
        return;
    snprintf(out + at, len - (size_t)at, ")%s%s",
             x->ndev == p ? ", one each"
             : x->ndev == 1 ? ", all on one"
             : ", in blocks of consecutive ranks",
             x->ndev == 1 ? ""
             : all_peer ? "; between devices over peer access"
             : no_peer ? "; between devices through pinned host memory"
             : "; between devices over peer access where the driver allows, "
               "else through pinned host memory");
    size_t used = strlen(out); /* each snprintf above ends it in out */
    if (!all_peer && !no_peer) /* which pairs, of a mixed machine */
        pair_list(x, refused, true, "; no peer access: ", out + used,
                  len - used);
    used = strlen(out);
    pair_list(x, hung, false, "; peer copies hung, pinned instead: ",
              out + used, len - used);
    used = strlen(out);
    if (x->no_graph)
        snprintf(out + used, len - used, "; not graphed: the driver refused a "
                 "graph across the devices, steps issued from the host");
    used = strlen(out);
    const char *by = gpu_image_by();
    snprintf(out + used, len - used, "; kernels by %s%s", by,
             strncmp(by, "clang", 5) ? ""
             : " (PTX for sm_70 that the driver compiles again, reducing "
               "one element at a time: slower than nvcc's)");
}

/* The devices as the hosts of a machine of nodes (ExecHost.nodes): where
 * there are several, each with as many ranks (in blocks, as gpu_dev.c
 * deals them), the links within one device's memory ("device") and
 * between devices ("peer" where every pair has peer access, else
 * "pinned": through pinned host memory, both ways or one). */
static void gpu_nodes(const GpuExec *x, ExecHost *out)
{
    int p = x->base.nranks, per = x->ndev > 1 && p % x->ndev == 0
                                      ? p / x->ndev : 0;
    bool all_peer = true;
    for (int r = 0; per && r < p; r++)
        per = x->rank_dev[r] == r / per ? per : 0;
    if (!per)
        return;
    for (int d = 0; d < x->ndev; d++)
        for (int s = 0; s < x->ndev; s++)
            all_peer &= s == d || x->peer[d][s];
    out->nodes = x->ndev;
    out->per_node = per;
    snprintf(out->level[0], sizeof out->level[0], "device");
    snprintf(out->level[1], sizeof out->level[1], "%s",
             all_peer ? "peer" : "pinned");
}

/* "NVIDIA H100 80GB HBM3 x2": the first device's name and how many are
 * used. cores: the devices. */
static void cuda_host(Executor *ex, ExecHost *out)
{
    GpuExec *x = gx(ex);
    char name[96] = "";
    if (x->api.cuDeviceGetName(name, (int)sizeof name, x->dev[0].dev) || !name[0])
        snprintf(name, sizeof name, "CUDA device");
    name[sizeof name - 1] = '\0';
    out->cores = x->ndev;
    /* the ranks' buffers spread over the devices: as many L2 caches */
    for (int d = 0; d < x->ndev; d++)
        if (x->dev[d].l2 > 0 && (!out->cache_bytes || (size_t)x->dev[d].l2 < out->cache_bytes))
            out->cache_bytes = (size_t)x->dev[d].l2;
    out->cache_bytes *= (size_t)x->ndev;
    out->memory = x->ndev == 1 ? MACHINE_GPU : MACHINE_FULL;
    snprintf(out->fingerprint, sizeof out->fingerprint, "%s x%d", name, x->ndev);
    gpu_placement(x, out->placement, sizeof out->placement);
    gpu_nodes(x, out);
}

/* Rank r: this process, the device it was dealt (its ordinal and name). */
static void cuda_rank_where(Executor *ex, int r, ExecRankWhere *out)
{
    GpuExec *x = gx(ex);
    const GpuDev *d = &x->dev[x->rank_dev[r]];
    char name[96] = "";
    if (x->api.cuDeviceGetName(name, (int)sizeof name, d->dev) || !name[0])
        snprintf(name, sizeof name, "CUDA device");
    name[sizeof name - 1] = '\0';
    out->pid = (long)getpid();
    exec_host_name(out->host, sizeof out->host);
    snprintf(out->unit, sizeof out->unit, "device %d %s", d->ordinal, name);
}


/* After a sticky fault: every driver handle forgotten (the primary
 * contexts' reset at close frees them), host memory freed. */
static void forget(GpuExec *x)
{
    free(x->ev_step);
    x->ev_step = NULL, x->nev_step = 0;
    x->graph = x->graph_stamp = NULL;
    x->ev_start = x->ev_end = NULL;
    memset(x->ev_iter, 0, sizeof x->ev_iter);
    if (x->buf)
        memset(x->buf, 0, nbufs(x) * sizeof *x->buf);
    if (x->buf_base)
        memset(x->buf_base, 0, nbufs(x) * sizeof *x->buf_base);
    for (int d = 0; d < x->ndev; d++) {
        GpuDev *g = &x->dev[d];
        g->plan[0] = g->plan[1] = g->stage = 0;
        g->stream = NULL, g->phase = NULL, g->mod = NULL;
    }
}

static void gpu_close(Executor *ex)
{
    if (!ex)
        return;
    GpuExec *x = gx(ex);
    if (x->api.lib && (x->base.dead || x->probe_hung)) /* the context reset
                                                          frees the driver's side */
        forget(x);
    if (x->api.lib) {
        gpu_native_close(x);
        for (int d = 0; d < x->ndev; d++)
            if (x->dev[d].stream) {
                gpu_use(x, d);
                x->api.cuStreamSynchronize(x->dev[d].stream);
            }
        unload(x);
        free_memory(x);
        if (x->ev_start)
            x->api.cuEventDestroy(x->ev_start);
        if (x->ev_end)
            x->api.cuEventDestroy(x->ev_end);
        for (int i = 0; i < GPU_IN_FLIGHT; i++)
            if (x->ev_iter[i])
                x->api.cuEventDestroy(x->ev_iter[i]);
    }
    gpu_close_devices(x);
    free(x->rank_dev);
    free(x);
}

const ExecOps exec_cuda_ops = {
    .name = "cuda",
    .summary = "NVIDIA GPUs: a rank per device, or ranks as slices of one",
    .open = cuda_open_ex,
    .load = cuda_load,
    .reset = cuda_reset,
    .step = cuda_step,
    .finish = cuda_finish,
    .run = gpu_run,
    .step_warmup = 2, /* one cold iteration, then the stamped passes */
    .native = gpu_native, /* NCCL's collective, where it can run */
    .native_name = "nccl",
    /* its header says NCCL's row is not a graph launch (review G2) */
    .native_note = "not graphed: its calls are issued from the host each "
                   "iteration, a schedule's row launches one CUDA graph; small "
                   "sizes time the host's issue too",
    .read = cuda_read,
    /* .probe: none, the cross-core probe is the threads backend's */
    /* .predict: none, the plain calibrated model */
    .host = cuda_host,
    .rank_where = cuda_rank_where,
    .cancel = exec_base_cancel,
    .last_error = exec_base_last_error,
    .close = gpu_close,
};
