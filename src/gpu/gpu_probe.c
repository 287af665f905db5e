/* gpu_probe.c - peer access tried before it is trusted (finding G6 of
 * the 2026-11-28 review). Some platforms (PCIe with ACS or IOMMU
 * redirection, virtual machines) report peer access and enable it, and
 * then a copy over it never finishes. At open, each device copies a few
 * bytes from and to each peer's memory on a stream of its own and waits
 * at most PROBE_S for them; a pair whose copies do not finish loses its
 * peer access and goes through host memory (the driver's peer copy),
 * and the placement line names it. Such a
 * copy cannot be stopped: its stream, event and memory are left to it,
 * and close resets the devices' contexts instead of freeing. */
#include <stdio.h>
#include <time.h>

#include "gpu/gpu_impl.h"

#define PROBE_BYTES 65536 /* bytes copied each way */
#define PROBE_S 1.0       /* seconds a pair's copies may take */

/* Seconds on the monotonic clock. */
static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Wait for ev at most PROBE_S: *late where it has not completed by then. */
static CvError bounded_wait(GpuExec *x, CUevent ev, bool *late)
{
    double end = mono() + PROBE_S;
    for (long i = 0;; i++) {
        CUresult r = x->api.cuEventQuery(ev);
        if (r != CUDA_ERROR_NOT_READY)
            return gpu_check(x, r, "to try peer access");
        if (mono() > end) {
            *late = true;
            return CV_OK;
        }
        if (i >= 1000)
            nanosleep(&(struct timespec){0, 100000L}, NULL);
    }
}

/* Device d copies PROBE_BYTES from device s's memory into its own and as
 * many from its own into s's, in one launch on a new stream (mem[]: each
 * device's probe memory: the bytes read, the bytes written, a plan of
 * two chunks per peer); *late where they did not finish in time, and
 * then the stream and the event stay. */
static CvError probe_pair(GpuExec *x, const CUdeviceptr *mem, int d, int s, bool *late)
{
    CudaApi *a = &x->api;
    KChunk c[2] = {
        {.dst = mem[d] + PROBE_BYTES, .b = mem[s], .n = PROBE_BYTES, .kind = KOP_COPY},
        {.dst = mem[s] + PROBE_BYTES, .b = mem[d], .n = PROBE_BYTES, .kind = KOP_COPY},
    };
    CUdeviceptr plan = mem[d] + 2 * PROBE_BYTES + (size_t)s * sizeof c;
    unsigned int nc = 2, dt = DT_UINT8, op = OP_SUM, p = 1;
    void *args[] = {&plan, &nc, &dt, &op, &p};
    CUstream st = NULL;
    CUevent ev = NULL;
    CvError e = gpu_upload(x, d, plan, c, sizeof c);
    if (!e)
        e = gpu_check(x, a->cuStreamCreate(&st, CU_STREAM_NON_BLOCKING), "to try peer access");
    if (!e)
        e = gpu_check(x, a->cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING), "to try peer access");
    if (!e)
        e = gpu_check(x, a->cuLaunchKernel(x->dev[d].fn, 2, 1, 1, GPU_THREADS, 1, 1, 0,
                                           st, args, NULL), "to try peer access");
    if (!e)
        e = gpu_check(x, a->cuEventRecord(ev, st), "to try peer access");
    if (!e)
        e = bounded_wait(x, ev, late);
    if (*late)
        return e;
    if (ev)
        a->cuEventDestroy(ev);
    if (st)
        a->cuStreamDestroy(st);
    return e;
}

/* Whether device d's access to s's memory is to be tried: two devices
 * (not one listed twice) with peer access enabled. */
static bool to_try(const GpuExec *x, int d, int s)
{
    return d != s && x->dev[d].ordinal != x->dev[s].ordinal && x->peer[d][s];
}

/* Each pair tried in turn; one whose copies do not finish loses peer
 * access (x->peer_hung says which). */
static CvError probe_all(GpuExec *x, const CUdeviceptr *mem)
{
    CvError e = CV_OK;
    for (int d = 0; !e && d < x->ndev; d++)
        for (int s = 0; !e && s < x->ndev; s++) {
            bool late = false;
            if (!to_try(x, d, s))
                continue;
            if (!(e = gpu_use(x, d)))
                e = probe_pair(x, mem, d, s, &late);
            if (late) { /* and the driver's peer copies must not use it */
                x->peer[d][s] = false;
                x->peer_hung[d][s] = true;
                x->probe_hung = true;
                x->api.cuCtxDisablePeerAccess(x->dev[s].ctx);
            }
        }
    return e;
}

CvError gpu_probe_peers(GpuExec *x, char *why, size_t whylen)
{
    CUdeviceptr mem[GPU_MAX_DEVICES] = {0};
    bool any = false;
    for (int d = 0; d < x->ndev; d++)
        for (int s = 0; s < x->ndev; s++)
            any |= to_try(x, d, s);
    if (!any)
        return CV_OK;
    size_t bytes = 2 * PROBE_BYTES + (size_t)x->ndev * 2 * sizeof(KChunk);
    CvError e = CV_OK;
    for (int d = 0; !e && d < x->ndev; d++)
        if (!(e = gpu_use(x, d)))
            e = gpu_check(x, x->api.cuMemAlloc(&mem[d], bytes), "to try peer access");
    if (!e)
        e = probe_all(x, mem);
    for (int d = 0; !x->probe_hung && d < x->ndev; d++) /* else the copies may use it */
        if (mem[d] && !gpu_use(x, d))
            x->api.cuMemFree(mem[d]);
    if (e)
        snprintf(why, whylen, "%s", x->base.err);
    return e;
}
