/* nccl.c - NCCL beside the schedules (ExecOps.native): libnccl.so.2
 * opened with dlopen (COLLVIZ_LIBNCCL names another), one communicator
 * per rank (ncclCommInitAll over the ranks' devices), the library's own
 * collective on the ranks' buffers, timed with the same events as a
 * schedule's run. NCCL refuses two ranks on one device ("Duplicate GPU
 * detected") and offers no mode for it, so with fewer devices than ranks
 * there is no NCCL row, and the sentence says why. Scatter, gather and
 * alltoall are NCCL's own calls where the library has them (2.28 and
 * later), else grouped sends and receives, as nccl-tests does them;
 * sendrecv and hypercube, which NCCL has no call for, are always those.
 * The wait for a timed loop polls: a cancel, or an asynchronous error of
 * a communicator, aborts the communicators (ncclCommAbort) instead of
 * waiting for ever, and the next call starts NCCL again. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_impl.h"
#include "gpu/libpath.h"

typedef struct NcclComm *NcclComm;
typedef int NcclResult;

#define NCCL_FUNCS(X)                                                         \
    X(ncclCommInitAll, (NcclComm * comms, int n, const int *devs))            \
    X(ncclCommDestroy, (NcclComm c))                                          \
    X(ncclGroupStart, (void))                                                 \
    X(ncclGroupEnd, (void))                                                   \
    X(ncclBroadcast, (const void *s, void *r, size_t n, int t, int root,     \
                      NcclComm c, CUstream st))                               \
    X(ncclReduce, (const void *s, void *r, size_t n, int t, int op, int root, \
                   NcclComm c, CUstream st))                                  \
    X(ncclAllGather, (const void *s, void *r, size_t n, int t, NcclComm c,   \
                      CUstream st))                                           \
    X(ncclReduceScatter, (const void *s, void *r, size_t n, int t, int op,   \
                          NcclComm c, CUstream st))                           \
    X(ncclAllReduce, (const void *s, void *r, size_t n, int t, int op,       \
                      NcclComm c, CUstream st))                               \
    X(ncclSend, (const void *s, size_t n, int t, int peer, NcclComm c,       \
                 CUstream st))                                                \
    X(ncclRecv, (void *r, size_t n, int t, int peer, NcclComm c, CUstream st))

typedef struct {
    void *lib;
#define X(name, args) NcclResult (*name) args;
    NCCL_FUNCS(X)
#undef X
    const char *(*ncclGetErrorString)(NcclResult r);
    /* optional: NULL in a library without them */
    NcclResult (*ncclScatter)(const void *s, void *r, size_t n, int t, int root,
                              NcclComm c, CUstream st);
    NcclResult (*ncclGather)(const void *s, void *r, size_t n, int t, int root,
                             NcclComm c, CUstream st);
    NcclResult (*ncclAlltoAll)(const void *s, void *r, size_t n, int t,
                               NcclComm c, CUstream st);
    NcclResult (*ncclCommFinalize)(NcclComm c);
    NcclResult (*ncclCommAbort)(NcclComm c);
    NcclResult (*ncclCommGetAsyncError)(NcclComm c, NcclResult *e);
    NcclComm *comms; /* [nranks] */
    int ncomms;
} Nccl;

/* collviz's datatypes and ops in NCCL's numbers. */
static const int nccl_type[DT_COUNT] = {0, 1, 2, 3, 4, 5, 6, 9, 7, 8};
static const int nccl_op[OP_COUNT] = {0, 1, 3, 2, 4};

/* The communicators finalized (their work flushed before they are
 * freed), then destroyed. The finalizes are one group, as in NCCL's
 * single-process example: a finalize may wait for the other ranks of its
 * communicator, so one at a time from one thread could wait for ever
 * (review finding G1). A destroy is local: one at a time. */
void gpu_native_close(GpuExec *x)
{
    Nccl *n = x->nccl;
    if (!n)
        return;
    if (n->ncclCommFinalize && n->ncomms > 0) {
        n->ncclGroupStart();
        for (int r = 0; r < n->ncomms; r++)
            if (n->comms[r])
                n->ncclCommFinalize(n->comms[r]);
        n->ncclGroupEnd();
    }
    for (int r = 0; r < n->ncomms; r++)
        if (n->comms[r])
            n->ncclCommDestroy(n->comms[r]);
    free(n->comms);
    if (n->lib)
        dlclose(n->lib);
    free(n);
    x->nccl = NULL;
}

/* n's entry points from its library: every one NCCL_FUNCS names (false
 * and why where one is missing), and the optional ones it has. */
static bool nccl_resolve(Nccl *n, char *why, size_t whylen)
{
    void *f;
#define X(name, args)                                                         \
    if (!(f = dlsym(n->lib, #name))) {                                        \
        snprintf(why, whylen, "the NCCL here is too old: it has no " #name);  \
        return false;                                                         \
    }                                                                         \
    memcpy(&n->name, &f, sizeof f);
    NCCL_FUNCS(X)
#undef X
#define OPTIONAL(name)                                                        \
    if ((f = dlsym(n->lib, #name)))                                           \
        memcpy(&n->name, &f, sizeof f);
    OPTIONAL(ncclGetErrorString)
    OPTIONAL(ncclScatter)
    OPTIONAL(ncclGather)
    OPTIONAL(ncclAlltoAll)
    OPTIONAL(ncclCommFinalize)
    OPTIONAL(ncclCommAbort)
    OPTIONAL(ncclCommGetAsyncError)
#undef OPTIONAL
    return true;
}

/* NCCL opened with a communicator per rank, or why not. */
static CvError nccl_start(GpuExec *x, char *why, size_t whylen)
{
    if (x->nccl)
        return CV_OK;
    int p = x->base.nranks;
    if (x->ndev < p) {
        snprintf(why, whylen, "NCCL runs one rank per device and refuses two "
                 "on one (\"Duplicate GPU detected\"); these %d ranks share %d "
                 "device%s", p, x->ndev, x->ndev == 1 ? "" : "s");
        return CV_ERR_UNAVAILABLE;
    }
    Nccl *n = calloc(1, sizeof *n);
    if (!n || !(n->comms = calloc((size_t)p, sizeof *n->comms))) {
        free(n);
        snprintf(why, whylen, "out of memory starting NCCL");
        return CV_ERR_NOMEM;
    }
    x->nccl = n;
    char d[600];
    GpuLib got = gpu_lib_open("libnccl.so.2", "COLLVIZ_LIBNCCL", &n->lib, d,
                              sizeof d);
    if (got != GPU_LIB_OK) {
        if (got == GPU_LIB_MISSING)
            snprintf(why, whylen, "NCCL is not installed here (libnccl.so.2: "
                     "%s)", d);
        else
            snprintf(why, whylen, "NCCL's library cannot be opened: %s", d);
        gpu_native_close(x);
        return CV_ERR_UNAVAILABLE;
    }
    if (!nccl_resolve(n, why, whylen)) {
        gpu_native_close(x);
        return CV_ERR_UNAVAILABLE;
    }
    int devs[COLL_MAX_RANKS];
    for (int r = 0; r < p; r++)
        devs[r] = x->dev[x->rank_dev[r]].ordinal;
    NcclResult res = n->ncclCommInitAll(n->comms, p, devs);
    if (res) {
        snprintf(why, whylen, "NCCL could not start on these devices: %s",
                 n->ncclGetErrorString ? n->ncclGetErrorString(res) : "an error");
        memset(n->comms, 0, (size_t)p * sizeof *n->comms);
        gpu_native_close(x);
        return CV_ERR_UNAVAILABLE;
    }
    n->ncomms = p;
    return CV_OK;
}

static void *at(GpuExec *x, int r, BufId b, size_t off)
{
    size_t es = dtype_size(x->base.sched->call.dtype);
    return (void *)(uintptr_t)(x->buf[(size_t)r * BUF_COUNT + b] + off * es);
}

/* Round `mask` of nccl-tests' hypercube (an all-gather by recursive
 * doubling on a power of two ranks), one group: rank r swaps the mask
 * blocks it has, from block r & ~(mask - 1), with rank r ^ mask; round 0
 * puts each rank's input in its block of the output (a send to itself),
 * out of place only. */
static NcclResult hypercube_round(GpuExec *x, int mask)
{
    Nccl *n = x->nccl;
    const CollCall *c = &x->base.sched->call;
    int t = nccl_type[c->dtype];
    size_t cnt = c->count;
    NcclResult e = n->ncclGroupStart();
    for (int r = 0; !e && r < c->nranks; r++) {
        CollLayout l;
        coll_layout(c, r, &l);
        NcclComm cm = n->comms[r];
        CUstream st = x->dev[x->rank_dev[r]].stream;
        int have = mask ? r & ~(mask - 1) : r, peer = mask ? r ^ mask : r;
        int get = mask ? have ^ mask : r, blocks = mask ? mask : 1;
        void *from = mask ? at(x, r, l.out_buf, (size_t)have * cnt)
                          : at(x, r, l.in_buf, l.in_off);
        e = n->ncclSend(from, cnt * (size_t)blocks, t, peer, cm, st);
        if (!e)
            e = n->ncclRecv(at(x, r, l.out_buf, (size_t)get * cnt),
                            cnt * (size_t)blocks, t, peer, cm, st);
    }
    NcclResult g = n->ncclGroupEnd();
    return e ? e : g;
}

/* A rank's part of an alltoall as sends and receives: block q of in to
 * rank q, from rank q into block q of out (blocks of cnt elements, bytes
 * apart). */
static NcclResult all_pairs(Nccl *n, void *in, void *out, size_t bytes,
                            size_t cnt, int t, int p, NcclComm cm, CUstream st)
{
    NcclResult e = 0;
    for (int q = 0; !e && q < p; q++) {
        e = n->ncclSend((char *)in + (size_t)q * bytes, cnt, t, q, cm, st);
        if (!e)
            e = n->ncclRecv((char *)out + (size_t)q * bytes, cnt, t, q, cm, st);
    }
    return e;
}

/* Rank r's part of a scatter: NCCL's own where the library has it, else
 * the root's sends and each rank's receive (none from the root to
 * itself where its block already lies in place). */
static NcclResult scatter_part(const Nccl *n, const CollCall *c, int r,
                               void *in, void *out, NcclComm cm, CUstream st)
{
    int t = nccl_type[c->dtype];
    size_t cnt = c->count, es = dtype_size(c->dtype);
    if (n->ncclScatter)
        return n->ncclScatter(in, out, cnt, t, c->root, cm, st);
    NcclResult e = 0;
    for (int q = 0; !e && r == c->root && q < c->nranks; q++) {
        char *src = (char *)in + (size_t)q * cnt * es;
        if (q != r || src != (char *)out)
            e = n->ncclSend(src, cnt, t, q, cm, st);
    }
    if (!e && (r != c->root || (char *)in + (size_t)r * cnt * es != (char *)out))
        e = n->ncclRecv(out, cnt, t, c->root, cm, st);
    return e;
}

/* Rank r's part of a gather, the same way round. */
static NcclResult gather_part(const Nccl *n, const CollCall *c, int r,
                              void *in, void *out, NcclComm cm, CUstream st)
{
    int t = nccl_type[c->dtype];
    size_t cnt = c->count, es = dtype_size(c->dtype);
    if (n->ncclGather)
        return n->ncclGather(in, out, cnt, t, c->root, cm, st);
    NcclResult e = 0;
    if (r != c->root || (char *)out + (size_t)r * cnt * es != (char *)in)
        e = n->ncclSend(in, cnt, t, c->root, cm, st);
    for (int q = 0; !e && r == c->root && q < c->nranks; q++) {
        char *dst = (char *)out + (size_t)q * cnt * es;
        if (q != r || dst != (char *)in)
            e = n->ncclRecv(dst, cnt, t, q, cm, st);
    }
    return e;
}

/* Every rank's part of one call, in one group. */
static NcclResult call_group(GpuExec *x)
{
    Nccl *n = x->nccl;
    const CollCall *c = &x->base.sched->call;
    int p = c->nranks, t = nccl_type[c->dtype], op = nccl_op[c->op];
    size_t cnt = c->count, es = dtype_size(c->dtype);
    NcclResult e = n->ncclGroupStart();
    for (int r = 0; !e && r < p; r++) {
        CollLayout l;
        coll_layout(c, r, &l);
        void *in = l.in_count ? at(x, r, l.in_buf, l.in_off) : NULL;
        void *out = l.out_count ? at(x, r, l.out_buf, l.out_off) : NULL;
        NcclComm cm = n->comms[r];
        CUstream st = x->dev[x->rank_dev[r]].stream;
        switch (c->kind) {
        case COLL_BROADCAST: e = n->ncclBroadcast(in, out, cnt, t, c->root, cm, st); break;
        case COLL_REDUCE: e = n->ncclReduce(in, out, cnt, t, op, c->root, cm, st); break;
        case COLL_ALLGATHER: e = n->ncclAllGather(in, out, cnt, t, cm, st); break;
        case COLL_REDUCESCATTER: e = n->ncclReduceScatter(in, out, cnt, t, op, cm, st); break;
        case COLL_ALLREDUCE: e = n->ncclAllReduce(in, out, cnt, t, op, cm, st); break;
        case COLL_SCATTER:
            e = scatter_part(n, c, r, in, out, cm, st);
            break;
        case COLL_GATHER:
            e = gather_part(n, c, r, in, out, cm, st);
            break;
        case COLL_SENDRECV: /* nccl-tests' sendrecv: a shift to the right */
            e = n->ncclSend(in, cnt, t, (r + 1) % p, cm, st);
            if (!e)
                e = n->ncclRecv(out, cnt, t, (r + p - 1) % p, cm, st);
            break;
        case COLL_ALLTOALL:
            e = n->ncclAlltoAll ? n->ncclAlltoAll(in, out, cnt, t, cm, st)
                                : all_pairs(n, in, out, cnt * es, cnt, t, p, cm, st);
            break;
        case COLL_HYPERCUBE: /* never here: call_once runs it in rounds */
        case COLL_COUNT:
            e = all_pairs(n, in, out, cnt * es, cnt, t, p, cm, st);
            break;
        }
    }
    NcclResult g = n->ncclGroupEnd();
    return e ? e : g;
}

/* One call of the collective: every rank's part, in one group (the
 * hypercube in a group a round). */
static NcclResult call_once(GpuExec *x)
{
    const CollCall *c = &x->base.sched->call;
    if (c->kind != COLL_HYPERCUBE)
        return call_group(x);
    NcclResult e = c->in_place ? 0 : hypercube_round(x, 0);
    for (int mask = 1; !e && mask < c->nranks; mask *= 2)
        e = hypercube_round(x, mask);
    return e;
}


/* Asked while waiting: an asynchronous error of a communicator ends the
 * wait (NCCL reports a failed peer or network so, never by returning). */
static CvError nccl_poll(GpuExec *x)
{
    Nccl *n = x->nccl;
    for (int r = 0; n->ncclCommGetAsyncError && r < n->ncomms; r++) {
        NcclResult ae = 0;
        if (n->comms[r] && !n->ncclCommGetAsyncError(n->comms[r], &ae) && ae)
            return exec_fail(&x->base, CV_ERR_IO, "NCCL failed: %s", n->ncclGetErrorString
                            ? n->ncclGetErrorString(ae) : "an asynchronous error");
    }
    return CV_OK;
}

/* After a cancel or an error, the communicators aborted (their work
 * stopped, they are freed) and NCCL closed: the next call starts again. */
static void nccl_abort(GpuExec *x)
{
    Nccl *n = x->nccl;
    for (int r = 0; n && n->ncclCommAbort && r < n->ncomms; r++)
        if (n->comms[r]) {
            n->ncclCommAbort(n->comms[r]);
            n->comms[r] = NULL;
        }
    gpu_native_close(x);
}

/* Every device's stream done up to here, waited for by polling. */
static CvError nccl_wait(GpuExec *x, CUevent ev)
{
    CvError e = gpu_cross_wait(x);
    if (!e)
        e = gpu_use(x, 0);
    if (!e)
        e = gpu_check(x, x->api.cuEventRecord(ev, x->dev[0].stream),
                      "to record an event");
    if (!e)
        e = gpu_wait_event(x, ev, "to run NCCL", nccl_poll);
    return e;
}

CvError gpu_native(Executor *ex, int warmup, int iters, ExecTiming *t,
                   char *why, size_t whylen)
{
    GpuExec *x = gx(ex);
    CvError e0 = exec_guard_run(ex, warmup, iters, t, "NCCL's collective");
    if (e0)
        return e0;
    if (ex->sched->call.in_place && ex->sched->call.kind == COLL_ALLTOALL) {
        snprintf(why, whylen, "NCCL has no in-place alltoall");
        return CV_ERR_UNAVAILABLE;
    }
    CvError e = nccl_start(x, why, whylen);
    if (e)
        return e;
    memset(x->mirror_ok, 0, (size_t)ex->nranks * BUF_COUNT * sizeof *x->mirror_ok);
    NcclResult r = 0;
    for (int i = 0; !r && i < warmup; i++)
        r = call_once(x);
    e = r ? CV_ERR_IO : nccl_wait(x, x->ev_start);
    if (!e)
        e = gpu_check(x, x->api.cuEventRecord(x->ev_start, x->dev[0].stream),
                      "to record an event");
    for (int i = 0; !e && !r && i < iters; i++)
        r = call_once(x);
    if (!e && !r)
        e = nccl_wait(x, x->ev_end);
    float ms = 0;
    if (!e && !r)
        e = gpu_check(x, x->api.cuEventElapsedTime(&ms, x->ev_start, x->ev_end),
                      "to time events");
    if (r) {
        snprintf(why, whylen, "NCCL failed: %s", x->nccl && ((Nccl *)x->nccl)->ncclGetErrorString
                 ? ((Nccl *)x->nccl)->ncclGetErrorString(r) : "an error");
        e = exec_fail(&x->base, CV_ERR_IO, "%s", why);
    }
    if (e && !x->base.dead)
        nccl_abort(x); /* a failed call leaves a partial group: start again */
    if (e)
        return e;
    t->iter_s = ms * 1e-3 / iters;
    return CV_OK;
}
