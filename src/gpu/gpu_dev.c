/* gpu_dev.c - the cuda backend's devices: its options, the devices it
 * opens (a primary context, a stream and the step kernel each), peer
 * access between them, and what reports its errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_impl.h"

/* Whether a primary context this executor uses was reset since it
 * opened it (by another executor in this process, after a fault): its
 * memory, streams and module went with the reset. */
static bool reset_under(const GpuExec *x)
{
    for (int d = 0; d < x->ndev; d++)
        if (x->dev[d].ctx &&
            cuda_resets(x->dev[d].ordinal) != x->dev[d].resets)
            return true;
    return false;
}

CvError gpu_check(GpuExec *x, CUresult r, const char *what)
{
    if (r == CUDA_SUCCESS)
        return CV_OK;
    if (x->base.dead)
        return CV_ERR_BACKEND; /* the first fault's sentence kept */
    CudaFault f = cuda_fault(r);
    if (f == CUDA_FAULT_PROCESS)
        cuda_note_fatal(r);
    if (f != CUDA_FAULT_NONE)
        exec_fail(&x->base, CV_ERR_BACKEND, "the GPU hit a fault (%s, CUDA "
                  "error %d) while trying %s; the device cannot run "
                  "anything more in this process: restart collviz",
                  cuda_errstr(&x->api, r), r, what);
    else if (reset_under(x))
        exec_fail(&x->base, CV_ERR_BACKEND, "the GPU hit a fault in another "
                  "of this process's runs, and its reset took this run's "
                  "memory (CUDA error %d while trying %s): restart collviz",
                  r, what);
    else
        return exec_fail(&x->base, r == CUDA_ERROR_OUT_OF_MEMORY ? CV_ERR_NOMEM
                                                                 : CV_ERR_IO,
                         "the GPU failed %s: %s (CUDA error %d)", what,
                         cuda_errstr(&x->api, r), r);
    x->base.dead = true;
    return CV_ERR_BACKEND;
}

CvError gpu_use(GpuExec *x, int d)
{
    return gpu_check(x, x->api.cuCtxSetCurrent(x->dev[d].ctx),
                     "to switch devices");
}

/* ------------------------------------------------------------ options */

/* The devices named by v ("0+1+3", ranges "0-3"), in order, into ords;
 * their number, -1 when v is not such a list, -2 when it names a device
 * past the last one collviz can use (GPU_MAX_DEVICES - 1). */
static int parse_devices(const char *v, int *ords)
{
    int n = 0;
    while (*v) {
        char *end;
        if (*v < '0' || *v > '9')
            return -1;
        long a = strtol(v, &end, 10), b = a;
        if (*end == '-') {
            if (end[1] < '0' || end[1] > '9')
                return -1;
            b = strtol(end + 1, &end, 10);
        }
        if (b >= GPU_MAX_DEVICES)
            return -2;
        if (a > b || (*end && *end != '+'))
            return -1;
        for (long i = a; i <= b; i++) {
            for (int j = 0; j < n; j++)
                if (ords[j] == i)
                    return -1;
            if (n == GPU_MAX_DEVICES)
                return -1;
            ords[n++] = (int)i;
        }
        v = *end ? end + 1 : end;
        if (*end && !*v)
            return -1;
    }
    return n ? n : -1;
}

/* The backend's options (-B cuda:key=value). */
typedef struct {
    int ords[GPU_MAX_DEVICES]; /* devices=: the devices, in rank order */
    int nords;                 /* ... how many (0: every one) */
    bool peer_off;             /* peer=0 */
    bool stride;               /* layout=stride */
    bool packed;               /* kernels=packed */
} GpuOptions;

static bool set_devices(void *opts, const char *val, char *why, size_t whylen)
{
    GpuOptions *o = opts;
    o->nords = parse_devices(val, o->ords);
    if (o->nords == -2)
        snprintf(why, whylen, "the cuda backend's option devices takes device "
                 "numbers from 0 to %d, not '%s'", GPU_MAX_DEVICES - 1, val);
    else if (o->nords < 0)
        snprintf(why, whylen, "the cuda backend's option devices takes device "
                 "numbers joined by '+' (ranges as 0-3), each once, such as "
                 "devices=0+1, not '%s'", val);
    return o->nords >= 0;
}

/* Option key of two values: *second is whether val is the second; any
 * other value is one sentence naming both with what each does. */
static bool two_way(const char *key, const char *val, const char *first,
                    const char *first_does, const char *second_,
                    const char *second_does, bool *second, char *why,
                    size_t whylen)
{
    if (strcmp(val, first) && strcmp(val, second_)) {
        snprintf(why, whylen, "the cuda backend's option %s takes %s (%s) "
                 "or %s (%s), not '%s'", key, first, first_does, second_,
                 second_does, val);
        return false;
    }
    *second = !strcmp(val, second_);
    return true;
}

static bool set_peer(void *opts, const char *val, char *why, size_t whylen)
{
    return two_way("peer", val, "1", "read other devices directly where "
                   "the driver allows", "0", "always through host memory",
                   &((GpuOptions *)opts)->peer_off, why, whylen);
}

static bool set_layout(void *opts, const char *val, char *why,
                       size_t whylen)
{
    return two_way("layout", val, "runs", "each block one stretch of a "
                   "phase's bytes", "stride", "pieces dealt to the blocks in "
                   "turn", &((GpuOptions *)opts)->stride, why, whylen);
}

static bool set_kernels(void *opts, const char *val, char *why,
                        size_t whylen)
{
    return two_way("kernels", val, "lanes", "every element on its own",
                   "packed", "two halves or bfloat16s in one instruction, "
                   "eight int8s in one add", &((GpuOptions *)opts)->packed,
                   why, whylen);
}

static const ExecParam gpu_params[] = {
    {"devices", NULL, 0, 0, 0, set_devices},
    {"peer", NULL, 0, 0, 0, set_peer},
    {"layout", NULL, 0, 0, 0, set_layout},
    {"kernels", NULL, 0, 0, 0, set_kernels},
};

/* ------------------------------------------------------------ devices */

/* Open device ordinal ord as x->dev[d]. */
static CvError open_device(GpuExec *x, int d, int ord, char *why,
                           size_t whylen)
{
    CudaApi *a = &x->api;
    GpuDev *g = &x->dev[d];
    size_t len;
    const unsigned char *img = gpu_image(&len);
    g->ordinal = ord;
    CUresult r = a->cuDeviceGet(&g->dev, ord);
    if (!r)
        r = a->cuDevicePrimaryCtxRetain(&g->ctx, g->dev);
    g->resets = cuda_resets(ord);
    if (!r)
        r = a->cuCtxSetCurrent(g->ctx);
    if (!r)
        r = a->cuDeviceGetAttribute(&g->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                    g->dev);
    if (!r && a->cuDeviceGetAttribute(&g->l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, g->dev))
        g->l2 = 0; /* not said: unknown */
    int cc[2] = {0, 0};
    if (!r)
        r = a->cuDeviceGetAttribute(&cc[0], CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                    g->dev);
    if (!r)
        r = a->cuDeviceGetAttribute(&cc[1], CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                    g->dev);
    if (!r && cc[0] * 10 + cc[1] < 75) { /* the PTX is for compute_75 */
        snprintf(why, whylen, "CUDA device %d (compute capability %d.%d) is "
                 "too old for collviz's kernels, which need 7.5 or newer",
                 ord, cc[0], cc[1]);
        return CV_ERR_UNAVAILABLE;
    }
    if (!r)
        r = a->cuStreamCreate(&g->stream, CU_STREAM_NON_BLOCKING);
    if (!r)
        r = a->cuEventCreate(&g->phase, CU_EVENT_DISABLE_TIMING); /* ordering only */
    if (r) {
        snprintf(why, whylen, "could not start CUDA device %d: %s (CUDA error "
                 "%d)", ord, cuda_errstr(a, r), r);
        return CV_ERR_UNAVAILABLE;
    }
    r = a->cuModuleLoadData(&g->mod, img);
    if (!r)
        r = a->cuModuleGetFunction(&g->fn, g->mod, KERN_NAME);
    /* how many blocks of it a multiprocessor holds at once (its
     * registers decide: 8 of 256 threads on an H100), for the grid */
    if (!r && (a->cuOccupancyMaxActiveBlocksPerMultiprocessor(
                   &g->blocks_per_sm, g->fn, GPU_THREADS, 0) ||
               g->blocks_per_sm < 1))
        g->blocks_per_sm = 1;
    if (r) {
        snprintf(why, whylen, "CUDA device %d could not load collviz's "
                 "kernels: %s (CUDA error %d); the driver may be older than "
                 "the toolkit they were built with", ord, cuda_errstr(a, r), r);
        return CV_ERR_UNAVAILABLE;
    }
    return CV_OK;
}

/* Peer access between every two devices used, where the driver allows
 * it and the options do not refuse it. */
static void enable_peers(GpuExec *x)
{
    for (int d = 0; d < x->ndev; d++)
        for (int s = 0; s < x->ndev; s++) {
            int can = 0;
            if (s == d || x->dev[d].ordinal == x->dev[s].ordinal) {
                x->peer[d][s] = true;
                continue;
            }
            if (x->peer_off ||
                x->api.cuDeviceCanAccessPeer(&can, x->dev[d].dev, x->dev[s].dev) ||
                !can)
                continue;
            CUresult r = x->api.cuCtxSetCurrent(x->dev[d].ctx);
            if (!r)
                r = x->api.cuCtxEnablePeerAccess(x->dev[s].ctx, 0);
            /* Any refusal but "already enabled" (too many peers on PCIe,
             * 711; no P2P on this platform) leaves the pair to pinned host
             * memory, as if the driver had said it cannot. */
            x->peer[d][s] = !r || r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
        }
}

CvError gpu_open_devices(GpuExec *x, const char *params, char *why,
                         size_t whylen)
{
    GpuOptions o = {.nords = 0};
    CvError e = exec_params_parse("cuda", gpu_params,
                                  sizeof gpu_params / sizeof *gpu_params,
                                  params, &o, why, whylen);
    if (e)
        return e;
    x->peer_off = o.peer_off;
    x->stride = o.stride;
    x->packed = o.packed;
    int *ords = o.ords;
    int nords = o.nords;
    size_t len;
    gpu_image(&len);
    CudaWhy w = len ? cuda_open(&x->api, why, whylen) : CUDA_NO_KERNELS;
    if (w == CUDA_NO_KERNELS)
        cuda_why(w, NULL, why, whylen);
    if (w != CUDA_OK)
        return CV_ERR_UNAVAILABLE;
    if (x->api.cuDeviceGetCount(&x->avail) || x->avail < 1) {
        cuda_why(CUDA_NO_DEVICE, NULL, why, whylen);
        return CV_ERR_UNAVAILABLE;
    }
    if (!nords) { /* all of them */
        nords = x->avail < GPU_MAX_DEVICES ? x->avail : GPU_MAX_DEVICES;
        for (int i = 0; i < nords; i++)
            ords[i] = i;
    }
    for (int i = 0; i < nords; i++)
        if (ords[i] >= x->avail) {
            snprintf(why, whylen, "there is no CUDA device %d: this machine "
                     "has %d (0 to %d)", ords[i], x->avail, x->avail - 1);
            return CV_ERR_ARG;
        }
    /* One device per rank where there are enough; else ranks in blocks. */
    int p = x->base.nranks;
    x->ndev = nords < p ? nords : p;
    for (int d = 0; d < x->ndev; d++)
        if ((e = open_device(x, d, ords[d], why, whylen)))
            return e;
    for (int r = 0; r < p; r++)
        x->rank_dev[r] = (int)((long long)r * x->ndev / p);
    enable_peers(x);
    return gpu_probe_peers(x, why, whylen);
}

void gpu_close_devices(GpuExec *x)
{
    CudaApi *a = &x->api;
    if (!a->lib)
        return;
    if (x->base.dead || x->probe_hung) { /* everything the contexts held
                                          goes with their reset */
        for (int d = 0; d < x->ndev; d++)
            if (x->dev[d].ctx) {
                a->cuDevicePrimaryCtxReset(x->dev[d].dev);
                a->cuDevicePrimaryCtxRelease(x->dev[d].dev);
                cuda_note_reset(x->dev[d].ordinal);
            }
        cuda_close(a);
        return;
    }
    for (int d = 0; d < x->ndev; d++) {
        GpuDev *g = &x->dev[d];
        if (g->ctx)
            a->cuCtxSetCurrent(g->ctx);
        for (int m = 0; m < GPU_MODES; m++)
            if (g->plan[m])
                a->cuMemFree(g->plan[m]);
        if (g->stage)
            a->cuMemFree(g->stage);
        if (g->phase)
            a->cuEventDestroy(g->phase);
        if (g->stream)
            a->cuStreamDestroy(g->stream);
        if (g->mod)
            a->cuModuleUnload(g->mod);
        if (g->ctx)
            a->cuDevicePrimaryCtxRelease(g->dev);
    }
    cuda_close(a);
}
