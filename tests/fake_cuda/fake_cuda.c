/* fake_cuda.c - a CUDA driver for the tests (built as libcuda.so.1; the
 * backend opens it through COLLVIZ_LIBCUDA). It implements, on the host,
 * the driver entry points the cuda backend resolves through
 * cuGetProcAddress: device memory is host memory, a kernel launch runs
 * the step kernel's own code (src/gpu/kern.h) thread by thread, a graph
 * is the list of what its capture recorded, events hold the time they
 * were reached. It checks what a driver would refuse or a device would
 * fault on: pointers outside allocations, a device reading another's
 * memory without peer access, unknown kernels, leaks (fake_cuda_live).
 *
 * Environment: FAKE_CUDA=stub (cuInit fails as the toolkit's stub does,
 * 34) or nodev (100); FAKE_CUDA_DEVICES (default 1); FAKE_CUDA_PEER=0
 * (no peer access between devices); FAKE_CUDA_MEM (bytes per device,
 * default 4 GiB). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/cuda_api.h"
#include "gpu/kern.h"

#define MAXDEV 16
#define ERR_INVALID_VALUE 1
#define ERR_INVALID_HANDLE 400
#define ERR_NOT_FOUND 500
#define ERR_ILLEGAL_ADDRESS 700
#define ERR_PEER_UNSUPPORTED 217
#define ERR_INVALID_IMAGE 200

struct CUctx_st { int dev; };
struct CUmod_st { int dev; int ok; };
struct CUfunc_st { int dev; };
struct CUevent_st { double t; int recorded; };

/* A captured operation. */
typedef struct {
    int kind; /* 0 launch, 1 HtoD, 2 DtoH, 3 event */
    CUfunction fn;
    unsigned grid, block;
    CUdeviceptr plan;
    unsigned nchunks, dtype, op, nranks;
    CUdeviceptr dptr;
    void *hptr;
    size_t bytes;
    CUevent ev;
} Node;

struct CUgraph_st { Node *nodes; size_t n, cap; int dev; };
struct CUgraphExec_st { struct CUgraph_st g; };
struct CUstream_st { int dev; struct CUgraph_st *capture; };

typedef struct Alloc {
    uintptr_t p;
    size_t n;
    int dev; /* -1: pinned host memory */
    struct Alloc *next;
} Alloc;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUctx_st ctxs[MAXDEV];
static int peer[MAXDEV][MAXDEV];
static Alloc *allocs;
static long live;
static size_t used[MAXDEV];
static CUresult sticky;
static __thread int cur = -1;

static int env_int(const char *k, long def)
{
    const char *v = getenv(k);
    return v && *v ? atoi(v) : (int)def;
}

static int ndev(void)
{
    int n = env_int("FAKE_CUDA_DEVICES", 1);
    return n < 0 ? 0 : n > MAXDEV ? MAXDEV : n;
}

static size_t mem_limit(void)
{
    const char *v = getenv("FAKE_CUDA_MEM");
    return v && *v ? (size_t)strtoull(v, NULL, 10) : (size_t)4 << 30;
}

/* Outstanding allocations of every kind (the tests look for leaks). */
long fake_cuda_live(void);
long fake_cuda_live(void) { return live; }

static Alloc *find(uintptr_t p, size_t n)
{
    for (Alloc *a = allocs; a; a = a->next)
        if (p >= a->p && p - a->p <= a->n && n <= a->n - (p - a->p))
            return a;
    return NULL;
}

/* Whether device d may touch [p, p + n). */
static int reachable(int d, uintptr_t p, size_t n)
{
    Alloc *a = find(p, n);
    return a && (a->dev < 0 || a->dev == d || peer[d][a->dev]);
}

static CUresult f_cuInit(unsigned int flags)
{
    const char *m = getenv("FAKE_CUDA");
    (void)flags;
    if (m && !strcmp(m, "stub"))
        return CUDA_ERROR_STUB_LIBRARY;
    if (m && !strcmp(m, "nodev"))
        return CUDA_ERROR_NO_DEVICE;
    for (int i = 0; i < MAXDEV; i++)
        ctxs[i].dev = i;
    return CUDA_SUCCESS;
}

static CUresult f_cuDriverGetVersion(int *v) { *v = 13000; return 0; }

static CUresult f_cuGetErrorString(CUresult e, const char **s)
{
    switch (e) {
    case 0: *s = "no error"; break;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "out of memory"; break;
    case ERR_ILLEGAL_ADDRESS: *s = "an illegal memory access was encountered"; break;
    case ERR_PEER_UNSUPPORTED: *s = "peer access is not supported between these two devices"; break;
    default: *s = "fake driver error"; break;
    }
    return 0;
}

static CUresult f_cuDeviceGetCount(int *n)
{
    const char *m = getenv("FAKE_CUDA");
    if (m && !strcmp(m, "stub"))
        return CUDA_ERROR_STUB_LIBRARY;
    *n = m && !strcmp(m, "nodev") ? 0 : ndev();
    return *n ? 0 : CUDA_ERROR_NO_DEVICE;
}

static CUresult f_cuDeviceGet(CUdevice *d, int o)
{
    if (o < 0 || o >= ndev())
        return ERR_INVALID_VALUE;
    *d = o;
    return 0;
}

static CUresult f_cuDeviceGetName(char *name, int len, CUdevice d)
{
    snprintf(name, (size_t)len, "Fake CUDA Device %d", d);
    return 0;
}

static CUresult f_cuDeviceGetAttribute(int *v, int attr, CUdevice d)
{
    (void)d;
    *v = attr == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ? 4
       : attr == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9 : 0;
    return 0;
}

static CUresult f_cuDeviceCanAccessPeer(int *can, CUdevice d, CUdevice p)
{
    *can = d != p && env_int("FAKE_CUDA_PEER", 1) != 0;
    return 0;
}

static CUresult f_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
    *c = &ctxs[d];
    return 0;
}

static CUresult f_cuDevicePrimaryCtxRelease(CUdevice d) { (void)d; return 0; }

static CUresult f_cuCtxSetCurrent(CUcontext c)
{
    cur = c ? c->dev : -1;
    return 0;
}

static CUresult f_cuCtxEnablePeerAccess(CUcontext p, unsigned int flags)
{
    (void)flags;
    if (cur < 0 || p->dev == cur || !env_int("FAKE_CUDA_PEER", 1))
        return ERR_PEER_UNSUPPORTED;
    pthread_mutex_lock(&lock);
    CUresult r = peer[cur][p->dev] ? CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED : 0;
    peer[cur][p->dev] = 1;
    pthread_mutex_unlock(&lock);
    return r;
}

/* The image must be PTX or a fatbin that holds the step kernel. */
static CUresult f_cuModuleLoadData(CUmodule *m, const void *image)
{
    const unsigned char *p = image;
    size_t n;
    uint32_t magic;
    memcpy(&magic, p, 4);
    if (magic == 0xBA55ED50u) {
        uint16_t hs;
        uint64_t fs;
        memcpy(&hs, p + 6, 2);
        memcpy(&fs, p + 8, 8);
        n = hs + fs;
    } else if (!memcmp(p, "//", 2) || !memcmp(p, ".version", 8))
        n = strlen(image);
    else
        return ERR_INVALID_IMAGE;
    size_t k = strlen(KERN_NAME);
    int found = 0;
    for (size_t i = 0; i + k <= n && !found; i++)
        found = !memcmp(p + i, KERN_NAME, k);
    if (!found)
        return ERR_INVALID_IMAGE;
    *m = calloc(1, sizeof **m);
    (*m)->dev = cur;
    (*m)->ok = 1;
    __atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
    return 0;
}

static CUresult f_cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    static struct CUfunc_st fns[MAXDEV];
    if (strcmp(name, KERN_NAME))
        return ERR_NOT_FOUND;
    fns[m->dev].dev = m->dev;
    *f = &fns[m->dev];
    return 0;
}

static CUresult f_cuModuleUnload(CUmodule m)
{
    free(m);
    __atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
    return 0;
}

static CUresult f_cuMemGetInfo(size_t *fr, size_t *tot)
{
    *tot = mem_limit();
    *fr = cur >= 0 && used[cur] < *tot ? *tot - used[cur] : 0;
    return 0;
}

static CUresult alloc(void **p, size_t n, int dev)
{
    if (dev >= 0 && (n > mem_limit() || used[dev] > mem_limit() - n))
        return CUDA_ERROR_OUT_OF_MEMORY;
    void *m = aligned_alloc(256, (n + 255) & ~(size_t)255);
    Alloc *a = malloc(sizeof *a);
    if (!m || !a) {
        free(m), free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&lock);
    *a = (Alloc){(uintptr_t)m, n, dev, allocs};
    allocs = a;
    live++;
    if (dev >= 0)
        used[dev] += n;
    pthread_mutex_unlock(&lock);
    *p = m;
    return 0;
}

static CUresult release(uintptr_t p, int host)
{
    pthread_mutex_lock(&lock);
    for (Alloc **at = &allocs; *at; at = &(*at)->next)
        if ((*at)->p == p && ((*at)->dev < 0) == host) {
            Alloc *a = *at;
            *at = a->next;
            if (a->dev >= 0)
                used[a->dev] -= a->n;
            live--;
            pthread_mutex_unlock(&lock);
            free((void *)a->p);
            free(a);
            return 0;
        }
    pthread_mutex_unlock(&lock);
    return ERR_INVALID_VALUE;
}

static CUresult f_cuMemAlloc(CUdeviceptr *p, size_t n)
{
    void *m = NULL;
    if (cur < 0)
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = alloc(&m, n, cur);
    *p = (CUdeviceptr)(uintptr_t)m;
    return r;
}

static CUresult f_cuMemFree(CUdeviceptr p) { return release((uintptr_t)p, 0); }
static CUresult f_cuMemAllocHost(void **p, size_t n) { return alloc(p, n, -1); }
static CUresult f_cuMemFreeHost(void *p) { return release((uintptr_t)p, 1); }

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const size_t esize[KT_COUNT] = {1, 1, 4, 4, 8, 8, 2, 2, 4, 8};

/* A launch, as the device would run it: blocks take chunks in turn, the
 * threads of a block share each chunk. */
static CUresult run_launch(const Node *n, int dev)
{
    if (n->fn->dev != dev || n->dtype >= KT_COUNT || n->op >= KR_COUNT || !n->nranks)
        return ERR_INVALID_VALUE;
    if (!reachable(dev, (uintptr_t)n->plan, n->nchunks * sizeof(KChunk)))
        return ERR_ILLEGAL_ADDRESS;
    const KChunk *plan = (const KChunk *)(uintptr_t)n->plan;
    for (unsigned i = 0; i < n->nchunks; i++) {
        const KChunk *c = &plan[i];
        size_t bytes = c->kind == KOP_COPY ? c->n : c->n * esize[n->dtype];
        if (c->kind > KOP_AVG || !reachable(dev, (uintptr_t)c->dst, bytes) ||
            (c->kind != KOP_AVG && !reachable(dev, (uintptr_t)c->b, bytes)) ||
            (c->kind == KOP_REDUCE3 && !reachable(dev, (uintptr_t)c->a, bytes)))
            return ERR_ILLEGAL_ADDRESS;
    }
    for (unsigned b = 0; b < n->grid; b++)
        for (unsigned c = b; c < n->nchunks; c += n->grid)
            for (unsigned t = 0; t < n->block; t++)
                kern_chunk(&plan[c], n->dtype, n->op, n->nranks, t, n->block);
    return 0;
}

static CUresult run_node(const Node *n, int dev)
{
    switch (n->kind) {
    case 0: return run_launch(n, dev);
    case 1:
        if (!find((uintptr_t)n->dptr, n->bytes))
            return ERR_ILLEGAL_ADDRESS;
        memcpy((void *)(uintptr_t)n->dptr, n->hptr, n->bytes);
        return 0;
    case 2:
        if (!find((uintptr_t)n->dptr, n->bytes))
            return ERR_ILLEGAL_ADDRESS;
        memcpy(n->hptr, (void *)(uintptr_t)n->dptr, n->bytes);
        return 0;
    default:
        n->ev->t = now();
        n->ev->recorded = 1;
        return 0;
    }
}

/* Run n on stream s now, or record it where s is capturing. */
static CUresult submit(CUstream s, Node n)
{
    if (!s)
        return ERR_INVALID_HANDLE;
    if (sticky)
        return sticky;
    if (s->capture) {
        struct CUgraph_st *g = s->capture;
        if (g->n == g->cap) {
            g->cap = g->cap ? 2 * g->cap : 16;
            g->nodes = realloc(g->nodes, g->cap * sizeof *g->nodes);
        }
        g->nodes[g->n++] = n;
        return 0;
    }
    pthread_mutex_lock(&lock);
    CUresult r = run_node(&n, s->dev);
    if (r == ERR_ILLEGAL_ADDRESS)
        sticky = r;
    pthread_mutex_unlock(&lock);
    return r;
}

static CUresult f_cuMemcpyHtoD(CUdeviceptr d, const void *h, size_t n)
{
    struct CUstream_st s = {cur, NULL};
    return submit(&s, (Node){.kind = 1, .dptr = d, .hptr = (void *)(uintptr_t)h, .bytes = n});
}

static CUresult f_cuMemcpyDtoH(void *h, CUdeviceptr d, size_t n)
{
    struct CUstream_st s = {cur, NULL};
    return submit(&s, (Node){.kind = 2, .dptr = d, .hptr = h, .bytes = n});
}

static CUresult f_cuMemcpyHtoDAsync(CUdeviceptr d, const void *h, size_t n, CUstream s)
{
    return submit(s, (Node){.kind = 1, .dptr = d, .hptr = (void *)(uintptr_t)h, .bytes = n});
}

static CUresult f_cuMemcpyDtoHAsync(void *h, CUdeviceptr d, size_t n, CUstream s)
{
    return submit(s, (Node){.kind = 2, .dptr = d, .hptr = h, .bytes = n});
}

static CUresult f_cuStreamCreate(CUstream *s, unsigned int flags)
{
    (void)flags;
    if (cur < 0)
        return CUDA_ERROR_NOT_INITIALIZED;
    *s = calloc(1, sizeof **s);
    (*s)->dev = cur;
    __atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
    return 0;
}

static CUresult f_cuStreamDestroy(CUstream s)
{
    free(s);
    __atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
    return 0;
}

static CUresult f_cuStreamSynchronize(CUstream s)
{
    return !s ? ERR_INVALID_HANDLE : s->capture ? ERR_INVALID_VALUE : sticky;
}

static CUresult f_cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags)
{
    (void)flags;
    return !s || !e ? ERR_INVALID_HANDLE : 0;
}

static CUresult f_cuEventCreate(CUevent *e, unsigned int flags)
{
    (void)flags;
    *e = calloc(1, sizeof **e);
    __atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
    return 0;
}

static CUresult f_cuEventDestroy(CUevent e)
{
    free(e);
    __atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
    return 0;
}

static CUresult f_cuEventRecord(CUevent e, CUstream s)
{
    return submit(s, (Node){.kind = 3, .ev = e});
}

static CUresult f_cuEventSynchronize(CUevent e) { return e ? sticky : ERR_INVALID_HANDLE; }

static CUresult f_cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
    if (!a->recorded || !b->recorded)
        return ERR_INVALID_HANDLE;
    *ms = (float)((b->t - a->t) * 1e3);
    return 0;
}

static CUresult f_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz,
                                 unsigned shared, CUstream s, void **p, void **extra)
{
    (void)shared, (void)extra;
    if (!f || !gx || !bx || gy != 1 || gz != 1 || by != 1 || bz != 1 || !p)
        return ERR_INVALID_VALUE;
    if (!s || f->dev != s->dev)
        return ERR_INVALID_HANDLE;
    Node n = {.kind = 0, .fn = f, .grid = gx, .block = bx};
    memcpy(&n.plan, p[0], sizeof n.plan);
    memcpy(&n.nchunks, p[1], 4);
    memcpy(&n.dtype, p[2], 4);
    memcpy(&n.op, p[3], 4);
    memcpy(&n.nranks, p[4], 4);
    return submit(s, n);
}

static CUresult f_cuStreamBeginCapture(CUstream s, int mode)
{
    (void)mode;
    if (s->capture)
        return ERR_INVALID_VALUE;
    s->capture = calloc(1, sizeof *s->capture);
    s->capture->dev = s->dev;
    __atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
    return 0;
}

static CUresult f_cuStreamEndCapture(CUstream s, CUgraph *g)
{
    if (!s->capture)
        return ERR_INVALID_VALUE;
    *g = s->capture;
    s->capture = NULL;
    return 0;
}

static CUresult f_cuGraphInstantiateWithFlags(CUgraphExec *ge, CUgraph g,
                                              unsigned long long flags)
{
    (void)flags;
    *ge = calloc(1, sizeof **ge);
    (*ge)->g = *g;
    (*ge)->g.nodes = malloc((g->n + 1) * sizeof *g->nodes);
    memcpy((*ge)->g.nodes, g->nodes, g->n * sizeof *g->nodes);
    __atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
    return 0;
}

static CUresult f_cuGraphLaunch(CUgraphExec ge, CUstream s)
{
    if (!s || s->capture || s->dev != ge->g.dev)
        return ERR_INVALID_HANDLE;
    for (size_t i = 0; i < ge->g.n; i++) {
        CUresult r = submit(s, ge->g.nodes[i]);
        if (r)
            return r;
    }
    return 0;
}

static CUresult f_cuGraphExecDestroy(CUgraphExec ge)
{
    free(ge->g.nodes);
    free(ge);
    __atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
    return 0;
}

static CUresult f_cuGraphDestroy(CUgraph g)
{
    free(g->nodes);
    free(g);
    __atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
    return 0;
}

/* ----------------------------------------------- cuGetProcAddress */

static const struct {
    const char *name;
    void (*fn)(void);
} table[] = {
#define X(name, args) {#name, (void (*)(void))f_##name},
    CUDA_FUNCS(X)
#undef X
};

CUresult cuGetProcAddress_v2(const char *sym, void **fn, int version,
                             unsigned long long flags, int *status);
CUresult cuGetProcAddress_v2(const char *sym, void **fn, int version,
                             unsigned long long flags, int *status)
{
    (void)flags;
    if (status)
        *status = 0;
    if (version < 12000 && getenv("FAKE_CUDA_OLD"))
        return ERR_NOT_FOUND;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(sym, table[i].name)) {
            memcpy(fn, &table[i].fn, sizeof *fn);
            return 0;
        }
    *fn = NULL;
    return ERR_NOT_FOUND;
}

CUresult cuGetProcAddress(const char *sym, void **fn, int version,
                          unsigned long long flags);
CUresult cuGetProcAddress(const char *sym, void **fn, int version,
                          unsigned long long flags)
{
    return cuGetProcAddress_v2(sym, fn, version, flags, NULL);
}
