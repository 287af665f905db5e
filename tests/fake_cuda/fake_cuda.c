/* fake_cuda.c - a CUDA driver for the tests (built as libcuda.so.1; the
 * backend opens it through COLLVIZ_LIBCUDA). It implements, on the host,
 * the driver entry points the cuda backend resolves through
 * cuGetProcAddress: device memory is host memory, a kernel launch runs
 * the step kernel's own code (src/gpu/kern.h) on the host, a graph is
 * the list of what its capture recorded.
 *
 * It is as strict as the driver's documentation, so that code which only
 * works because a fake runs everything at once fails here (README.md in
 * this folder lists each rule with the documentation it follows):
 * - work is deferred: each stream is a queue that runs only at a
 *   synchronisation point (stream, event or context synchronize, an
 *   event or stream query, a synchronous copy for the legacy stream,
 *   frees and destroys), following event waits between streams; which
 *   ready stream runs next is drawn from FAKE_CUDA_SEED;
 * - a synchronous host-to-device copy from pageable memory lands only at
 *   the legacy stream's next synchronisation (it is snapshotted first);
 * - events belong to the context current at creation, a record inside a
 *   stream capture without CU_EVENT_RECORD_EXTERNAL adds no node and
 *   marks the event captured (907 on timing it, or on waiting for it once
 *   its capture has ended); a stream that waits for such an event while
 *   its capture is under way joins the capture (its work goes into the
 *   same graph, nodes of its own device), and the capture ends only where
 *   the stream that began it has waited for every joined stream's last
 *   work (904 otherwise);
 * - launch limits, poisoned fresh allocations, memory accounting, a
 *   per-pair peer matrix with a peer limit, sticky errors per context
 *   until cuDevicePrimaryCtxReset, delivered at the next sync;
 * - a race detector over each launch; cuGetProcAddress that knows which
 *   version of each entry point the fake implements; a module loader that
 *   checks the PTX ISA version and the target.
 *
 * Environment: FAKE_CUDA=stub (cuInit fails as the toolkit's stub does,
 * 34) or nodev (100); FAKE_CUDA_DEVICES (default 1); FAKE_CUDA_PEER=0 (no
 * peer access), =1 (every pair, the default) or pairs "0-1,2-3" (each
 * both ways) and "0>1" (device 0 may reach device 1's memory, not the
 * other way); FAKE_CUDA_MAX_PEERS (peers a device may enable, default 8;
 * past it 711); FAKE_CUDA_MEM (bytes per device, default 4 GiB);
 * FAKE_CUDA_SMS (multiprocessors, default 4); FAKE_CUDA_L2 (bytes of L2
 * cache, default 4 MiB, as a GPU of 4 multiprocessors); FAKE_CUDA_CC (compute
 * capability as major*10+minor, default 90); FAKE_CUDA_FAULT=k (the k-th
 * kernel to run faults: 700, or FAKE_CUDA_FAULT_CODE's error; 721, 806
 * and 810 break every context for good, cuInit too); FAKE_CUDA_STRICT=0 runs everything at
 * submit as the first fake did (default 1: every rule above);
 * FAKE_CUDA_SEED (default 1; 0: the lowest-numbered ready stream runs
 * first); FAKE_CUDA_OLD (versions before 12.0 not found);
 * FAKE_CUDA_JOIN=0 (a stream of another device may not join a capture:
 * 905, as a driver that cannot capture across devices would refuse);
 * FAKE_CUDA_BROKEN, pairs as FAKE_CUDA_PEER's (peer access reported and
 * enabled, but a launch that touches the other device's memory over it
 * never completes: queries say 600, a synchronisation 999 and a
 * message). */
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
#define ERR_INVALID_IMAGE 200
#define ERR_INVALID_CONTEXT 201
#define ERR_NO_BINARY_FOR_GPU 209
#define ERR_PEER_UNSUPPORTED 217
#define ERR_UNSUPPORTED_PTX 222
#define ERR_INVALID_HANDLE 400
#define ERR_NOT_FOUND 500
#define ERR_NOT_READY 600
#define ERR_ILLEGAL_ADDRESS 700
#define ERR_TOO_MANY_PEERS 711
#define ERR_LAUNCH_FAILED 719
#define ERR_NOT_SUPPORTED 801
#define ERR_CAPTURE_UNSUPPORTED 900
#define ERR_CAPTURE_INVALIDATED 901
#define ERR_CAPTURE_MERGE 902
#define ERR_CAPTURE_UNMATCHED 903
#define ERR_CAPTURE_UNJOINED 904
#define ERR_CAPTURE_ISOLATION 905
#define ERR_CAPTURED_EVENT 907
#define ERR_UNKNOWN 999
#define EV_DISABLE_TIMING 0x2
#define EV_RECORD_EXTERNAL 0x1
#define PTX_ISA_MAX 90 /* CUDA 13.0's driver reads PTX ISA up to 9.0 */

/* What every driver object starts with: its kind and context, in one
 * list so that a context reset can free what it owned. */
enum { O_STREAM, O_EVENT, O_MODULE, O_GRAPH, O_EXEC };
typedef struct Obj {
    int kind;
    int dev;
    struct Obj *next;
} Obj;

struct CUctx_st { int dev; };
struct CUmod_st { Obj o; };
struct CUfunc_st { int dev; };
struct CUevent_st {
    Obj o;
    unsigned flags;
    int recorded;           /* recorded at least once since creation */
    int captured;           /* last recorded inside a capture, no node */
    unsigned long long cap_id; /* ... that capture's number */
    struct CUstream_st *cap_s; /* ... the stream it was recorded on */
    size_t cap_n;              /* ... after that stream's first cap_n nodes */
    struct CUstream_st *s;  /* where it was last recorded */
    unsigned long long seq; /* complete when s has run this many nodes */
    unsigned long long gen; /* records so far: only the last one counts */
    int done;               /* the last record has run */
    double t;               /* when it ran */
};

/* An operation on a stream (or in a graph). */
enum { N_LAUNCH, N_HTOD, N_DTOH, N_RECORD, N_WAIT, N_PEER };
typedef struct {
    int kind;
    CUfunction fn;
    unsigned grid, block;
    CUdeviceptr plan;
    unsigned nchunks, dtype, op, nranks;
    CUdeviceptr dptr;
    CUdeviceptr sptr;          /* N_PEER: the source */
    void *hptr;
    void *own;                 /* a snapshot the node frees (lazy HtoD) */
    size_t bytes;
    CUevent ev;                /* N_RECORD, N_WAIT */
    unsigned long long gen;    /* N_RECORD: the record it is */
    struct CUstream_st *ws;    /* N_WAIT: the stream waited for */
    unsigned long long wseq;   /* ... until it has run this many */
    int gdev;                  /* in a graph: its device + 1 */
} Node;

#define MAXJOIN 64
struct CUgraph_st {
    Obj o;
    Node *nodes;
    size_t n, cap;
    int invalid;
    unsigned long long id;           /* while captured: the capture's number */
    struct CUstream_st *origin;      /* the stream that began the capture */
    struct CUstream_st *join[MAXJOIN]; /* the streams that joined it */
    int njoin;
};
struct CUgraphExec_st { Obj o; Node *nodes; size_t n; };
struct CUstream_st {
    Obj o;
    unsigned flags;            /* CU_STREAM_NON_BLOCKING or 0 */
    int legacy;                /* a context's NULL stream */
    Node *q;                   /* pending: q[head..n) */
    size_t head, n, cap;
    unsigned long long issued, done;
    struct CUgraph_st *capture;
    size_t cap_n;              /* nodes it has added to its capture */
    size_t cap_joined;         /* ... of which the origin has waited for */
};

typedef struct Alloc {
    uintptr_t p;
    size_t n;
    int dev;   /* -1: pinned host memory */
    int ctx;   /* the context that allocated it */
    struct Alloc *next;
} Alloc;

/* The whole driver's state; one lock, held by every entry point that
 * touches it (the backend calls from one thread at a time, but the TUI
 * has two executors). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUctx_st ctxs[MAXDEV];
static struct CUstream_st legacy[MAXDEV];
static struct CUfunc_st fns[MAXDEV];
static int peer[MAXDEV][MAXDEV];
static Alloc *allocs;
static Obj *objs;
static long live;
static size_t used[MAXDEV];
static CUresult sticky[MAXDEV];
static int retained[MAXDEV]; /* primary contexts' reference counts */
static unsigned long long rng = 1;
static long launches;
static __thread int cur = -1;
#define MAXCAP 8
static __thread struct CUgraph_st *captures[MAXCAP]; /* this thread's */
static __thread int capturing;                       /* ... under way */
static unsigned long long capture_ids;               /* captures begun */

/* The capture under way on this thread with number id, or NULL. */
static struct CUgraph_st *capture_of(unsigned long long id)
{
    for (int i = 0; id && i < capturing; i++)
        if (captures[i]->id == id)
            return captures[i];
    return NULL;
}

/* The switches, read at cuInit. */
static struct {
    int strict;
    unsigned long long seed;
    long fault;
    CUresult fault_code;           /* FAKE_CUDA_FAULT_CODE, default 700 */
    unsigned long long proc_flags; /* the last cuGetProcAddress's flags */
    int join;                      /* other devices' streams may join */
    char broken[256];              /* FAKE_CUDA_BROKEN's pairs, "" none */
} cfg = {1, 1, 0, 700, 0, 1, ""};

/* A fault cuda.h says only a new process clears (721, 806, 810): every
 * call in every context returns it from then on, resets included. */
static CUresult fatal;

static int process_fault(CUresult r)
{
    return r == 721 || r == 806 || r == 810;
}

static long env_long(const char *k, long def)
{
    const char *v = getenv(k);
    return v && *v ? strtol(v, NULL, 10) : def;
}

static int ndev(void)
{
    long n = env_long("FAKE_CUDA_DEVICES", 1);
    return n < 0 ? 0 : n > MAXDEV ? MAXDEV : (int)n;
}

static size_t mem_limit(void)
{
    const char *v = getenv("FAKE_CUDA_MEM");
    return v && *v ? (size_t)strtoull(v, NULL, 10) : (size_t)4 << 30;
}

/* Whether the peer matrix lets d read p's memory (FAKE_CUDA_PEER). */
/* Whether a list of pairs ("0-1,2>3") names device d reaching device
 * p's memory: "a-b" both ways, "a>b" a reaching b's only. */
static int pair_listed(const char *v, int d, int p)
{
    while (*v) {
        char *e;
        long a = strtol(v, &e, 10);
        char how = *e;
        long b = how == '-' || how == '>' ? strtol(e + 1, &e, 10) : -1;
        if ((a == d && b == p) || (how == '-' && a == p && b == d))
            return 1;
        v = *e ? e + 1 : e;
    }
    return 0;
}

static int peer_allowed(int d, int p)
{
    const char *v = getenv("FAKE_CUDA_PEER");
    if (d == p)
        return 0;
    if (!v || !*v || !strcmp(v, "1"))
        return 1;
    if (!strcmp(v, "0"))
        return 0;
    return pair_listed(v, d, p);
}

/* ------------------------------------------------- for the tests */

/* Outstanding objects of every kind (the tests look for leaks). */
long fake_cuda_live(void);
long fake_cuda_live(void) { return live; }
/* The flags of the last cuGetProcAddress. */
unsigned long long fake_cuda_proc_flags(void);
unsigned long long fake_cuda_proc_flags(void) { return cfg.proc_flags; }
/* cuMemFree and cuMemFreeHost calls so far (each synchronises). */
static long frees;
long fake_cuda_frees(void);
long fake_cuda_frees(void) { return frees; }
/* Over the launches of 1 MiB and more run since the last call of
 * fake_cuda_balance_reset: the most bytes a block carried over the mean
 * of the launch's blocks (block b runs chunks b, b + grid, ...), the
 * worst, and the fewest blocks such a launch had. */
static long peer_copies; /* N_PEER nodes run */
static long host_allocs; /* cuMemAllocHost calls */
long fake_cuda_peer_copies(void);
long fake_cuda_peer_copies(void) { return peer_copies; }
long fake_cuda_host_allocs(void);
long fake_cuda_host_allocs(void) { return host_allocs; }

static double worst_balance = 0;
static unsigned least_grid = 0;
static size_t largest_piece = 0; /* the most bytes of one chunk */
void fake_cuda_balance_reset(void);
void fake_cuda_balance_reset(void)
{
    worst_balance = 0, least_grid = 0, largest_piece = 0;
}

/* The largest chunk of the launches fake_cuda_balance counts, in bytes. */
size_t fake_cuda_largest_piece(void);
size_t fake_cuda_largest_piece(void) { return largest_piece; }
double fake_cuda_balance(unsigned *grid);
double fake_cuda_balance(unsigned *grid)
{
    *grid = least_grid;
    return worst_balance;
}
/* Bytes the kernels run since the last call have read and written (a
 * copy reads and writes its bytes, a reduce reads two operands and
 * writes one); the call clears the count. */
static unsigned long long traffic = 0;
unsigned long long fake_cuda_traffic(void);
unsigned long long fake_cuda_traffic(void)
{
    pthread_mutex_lock(&lock);
    unsigned long long t = traffic;
    traffic = 0;
    pthread_mutex_unlock(&lock);
    return t;
}
/* cuLaunchKernel calls since the last call (a graph's launches are not
 * such calls); the call clears the count. */
static long launch_calls = 0;
long fake_cuda_launch_calls(void);
long fake_cuda_launch_calls(void)
{
    pthread_mutex_lock(&lock);
    long n = launch_calls;
    launch_calls = 0;
    pthread_mutex_unlock(&lock);
    return n;
}
/* cuStreamWaitEvent calls since the last call for a recorded event of
 * another device (in a capture: the graph's edges between devices); the
 * call clears the count. */
static long cross_waits = 0;
long fake_cuda_cross_waits(void);
long fake_cuda_cross_waits(void)
{
    pthread_mutex_lock(&lock);
    long n = cross_waits;
    cross_waits = 0;
    pthread_mutex_unlock(&lock);
    return n;
}
/* Bytes the kernels run since the last call read from and wrote to
 * another device's memory (over peer access); the call clears them. */
static unsigned long long remote_reads = 0, remote_writes = 0;
void fake_cuda_remote(unsigned long long *reads, unsigned long long *writes);
void fake_cuda_remote(unsigned long long *reads, unsigned long long *writes)
{
    pthread_mutex_lock(&lock);
    *reads = remote_reads, *writes = remote_writes;
    remote_reads = remote_writes = 0;
    pthread_mutex_unlock(&lock);
}
/* Nodes queued and not yet run, on every stream. */
long fake_cuda_pending(void);
long fake_cuda_pending(void)
{
    long n = 0;
    pthread_mutex_lock(&lock);
    for (Obj *o = objs; o; o = o->next)
        if (o->kind == O_STREAM)
            n += (long)(((struct CUstream_st *)o)->n - ((struct CUstream_st *)o)->head);
    for (int d = 0; d < MAXDEV; d++)
        n += (long)(legacy[d].n - legacy[d].head);
    pthread_mutex_unlock(&lock);
    return n;
}

/* ------------------------------------------------------- objects */

static void *obj_new(size_t size, int kind, int dev)
{
    Obj *o = calloc(1, size);
    if (!o)
        return NULL;
    o->kind = kind, o->dev = dev;
    o->next = objs;
    objs = o;
    live++;
    return o;
}

static void obj_unlink(Obj *x)
{
    for (Obj **at = &objs; *at; at = &(*at)->next)
        if (*at == x) {
            *at = x->next;
            live--;
            return;
        }
}

static int is_obj(const void *p, int kind)
{
    for (const Obj *o = objs; o; o = o->next)
        if (o == p && o->kind == kind)
            return 1;
    return 0;
}

static unsigned long long next_rand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* --------------------------------------------------------- memory */

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

static size_t rounded(size_t n) { return (n + 255) & ~(size_t)255; }

static CUresult alloc(void **p, size_t n, int dev)
{
    if (!n)
        return ERR_INVALID_VALUE;
    if (dev >= 0 && (rounded(n) > mem_limit() || used[dev] > mem_limit() - rounded(n)))
        return CUDA_ERROR_OUT_OF_MEMORY;
    void *m = aligned_alloc(256, rounded(n));
    Alloc *a = malloc(sizeof *a);
    if (!m || !a) {
        free(m), free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (cfg.strict) /* fresh memory is whatever was there: never zeros */
        memset(m, 0xA5, rounded(n));
    *a = (Alloc){(uintptr_t)m, n, dev, cur, allocs};
    allocs = a;
    live++;
    if (dev >= 0)
        used[dev] += rounded(n);
    *p = m;
    return 0;
}

static void alloc_free(Alloc **at)
{
    Alloc *a = *at;
    *at = a->next;
    if (a->dev >= 0)
        used[a->dev] -= rounded(a->n);
    live--;
    free((void *)a->p);
    free(a);
}

/* ------------------------------------------------------ execution */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const size_t esize[KT_COUNT] = {1, 1, 4, 4, 8, 8, 2, 2, 4, 8};

static size_t chunk_bytes(const KChunk *c, unsigned dtype)
{
    return c->kind == KOP_COPY ? c->n : c->n * esize[dtype];
}

/* The balance of a launch's blocks, kept for fake_cuda_balance. */
static void note_balance(const KChunk *plan, unsigned n, unsigned dtype, unsigned grid)
{
    size_t t = 0, most = 0, piece = 0;
    for (unsigned b = 0; b < grid; b++) {
        size_t sum = 0;
        for (unsigned c = b; c < n; c += grid) {
            size_t k = chunk_bytes(&plan[c], dtype);
            sum += k;
            piece = k > piece ? k : piece;
        }
        t += sum;
        most = sum > most ? sum : most;
    }
    if (t < (1u << 20))
        return;
    largest_piece = piece > largest_piece ? piece : largest_piece;
    double r = (double)most / ((double)t / grid);
    worst_balance = r > worst_balance ? r : worst_balance;
    least_grid = !least_grid || grid < least_grid ? grid : least_grid;
}

/* A range a chunk writes or reads. */
typedef struct {
    uintptr_t lo, hi;
    unsigned chunk;
} Range;

static int by_lo(const void *a, const void *b)
{
    const Range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int race(unsigned i, unsigned j)
{
    fprintf(stderr, "fake_cuda: a race in one launch: chunk %u writes what "
            "chunk %u reads or writes\n", i, j);
    return 1;
}

/* Two chunks of one launch run at once on a GPU: a chunk that writes what
 * another reads or writes is a race (the result depends on the order).
 * The writes sorted by address: two that overlap are neighbours once
 * the farthest end so far is kept; each read is looked up among them. */
static int racy(const KChunk *plan, unsigned n, unsigned dtype)
{
    Range *w = malloc((n + 1) * sizeof *w);
    size_t nw = 0;
    int bad = 0;
    if (!w)
        return 0;
    for (unsigned i = 0; i < n; i++)
        if (chunk_bytes(&plan[i], dtype))
            w[nw++] = (Range){plan[i].dst, plan[i].dst + chunk_bytes(&plan[i], dtype), i};
    qsort(w, nw, sizeof *w, by_lo);
    uintptr_t far = 0;
    unsigned who = 0;
    for (size_t k = 0; k < nw && !bad; k++) {
        if (k && w[k].lo < far)
            bad = race(w[k].chunk, who);
        if (w[k].hi > far)
            far = w[k].hi, who = w[k].chunk;
    }
    for (unsigned j = 0; j < n && !bad; j++) {
        const KChunk *c = &plan[j];
        size_t len = chunk_bytes(c, dtype);
        uintptr_t src[2] = {c->kind != KOP_AVG ? c->b : 0,
                            c->kind == KOP_REDUCE3 ? c->a : 0};
        for (int r = 0; r < 2 && len && !bad; r++) {
            if (!src[r])
                continue;
            size_t lo = 0, hi = nw; /* the first write ending after the read's start */
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (w[mid].hi <= src[r])
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (size_t k = lo; k < nw && w[k].lo < src[r] + len && !bad; k++)
                if (w[k].chunk != j)
                    bad = race(w[k].chunk, j);
        }
    }
    free(w);
    return bad;
}

/* A launch, as the device would run it: blocks take chunks in turn (in
 * an order drawn from the seed), the threads of a block share each chunk. */
static CUresult run_launch(const Node *n, int dev)
{
    if (n->fn->dev != dev || n->dtype >= KT_COUNT ||
        (n->op & ~KF_PACKED) >= KR_COUNT || !n->nranks)
        return ERR_INVALID_VALUE;
    if (!reachable(dev, (uintptr_t)n->plan, n->nchunks * sizeof(KChunk)))
        return ERR_ILLEGAL_ADDRESS;
    const KChunk *plan = (const KChunk *)(uintptr_t)n->plan;
    for (unsigned i = 0; i < n->nchunks; i++) {
        const KChunk *c = &plan[i];
        size_t bytes = chunk_bytes(c, n->dtype);
        if (c->kind > KOP_AVG || !reachable(dev, (uintptr_t)c->dst, bytes) ||
            (c->kind != KOP_AVG && !reachable(dev, (uintptr_t)c->b, bytes)) ||
            (c->kind == KOP_REDUCE3 && !reachable(dev, (uintptr_t)c->a, bytes)))
            return ERR_ILLEGAL_ADDRESS;
    }
    if (cfg.fault && ++launches == cfg.fault)
        return cfg.fault_code;
    if (cfg.strict && racy(plan, n->nchunks, n->dtype))
        return ERR_LAUNCH_FAILED;
    note_balance(plan, n->nchunks, n->dtype, n->grid);
    for (unsigned i = 0; i < n->nchunks; i++) {
        const KChunk *c = &plan[i];
        size_t bytes = chunk_bytes(c, n->dtype);
        if (!bytes)
            continue;
        traffic += bytes * (c->kind == KOP_COPY || c->kind == KOP_AVG ? 2 : 3);
        Alloc *w = find((uintptr_t)c->dst, bytes);
        Alloc *r = c->kind != KOP_AVG ? find((uintptr_t)c->b, bytes) : NULL;
        Alloc *r3 = c->kind == KOP_REDUCE3 ? find((uintptr_t)c->a, bytes) : NULL;
        remote_writes += w->dev >= 0 && w->dev != dev ? bytes : 0;
        remote_reads += r && r->dev >= 0 && r->dev != dev ? bytes : 0;
        remote_reads += r3 && r3->dev >= 0 && r3->dev != dev ? bytes : 0;
    }
    /* A chunk's threads share its elements without overlap (kern.h), so
     * a host runs each chunk as thread 0 of 1: the same result, in one
     * sequential pass over its memory. */
    unsigned first = cfg.strict && cfg.seed ? (unsigned)(next_rand() % n->grid) : 0;
    for (unsigned k = 0; k < n->grid; k++) {
        unsigned b = (first + k) % n->grid;
        for (unsigned c = b; c < n->nchunks; c += n->grid)
            kern_chunk(&plan[c], n->dtype, n->op, n->nranks, 0, 1);
    }
    return 0;
}

static CUresult run_node(Node *n, int dev)
{
    CUresult r = 0;
    dev = n->gdev ? n->gdev - 1 : dev; /* a graph's node runs on its own */
    switch (n->kind) {
    case N_LAUNCH: return run_launch(n, dev);
    case N_HTOD:
        if (!find((uintptr_t)n->dptr, n->bytes))
            r = ERR_ILLEGAL_ADDRESS;
        else
            memcpy((void *)(uintptr_t)n->dptr, n->own ? n->own : n->hptr, n->bytes);
        free(n->own);
        n->own = NULL;
        return r;
    case N_DTOH:
        if (!find((uintptr_t)n->dptr, n->bytes))
            return ERR_ILLEGAL_ADDRESS;
        memcpy(n->hptr, (void *)(uintptr_t)n->dptr, n->bytes);
        return 0;
    case N_PEER:
        if (!find((uintptr_t)n->dptr, n->bytes) ||
            !find((uintptr_t)n->sptr, n->bytes))
            return ERR_ILLEGAL_ADDRESS;
        memcpy((void *)(uintptr_t)n->dptr, (void *)(uintptr_t)n->sptr, n->bytes);
        peer_copies++;
        return 0;
    case N_RECORD:
        if (n->gen == n->ev->gen) {
            n->ev->t = now();
            n->ev->done = 1;
        }
        return 0;
    case N_WAIT:
        return 0;
    }
    return ERR_INVALID_VALUE;
}

/* Whether launch n on device dev touches the memory of a device it
 * reaches over a pair FAKE_CUDA_BROKEN names: such a launch never
 * completes (peer access reported, and its copies hang). */
static int hangs(const Node *n, int dev)
{
    if (n->kind == N_PEER && cfg.broken[0]) { /* over the pair's peer
                                                  access, if enabled */
        Alloc *a = find((uintptr_t)n->sptr, 1);
        return a && a->dev >= 0 && a->dev != dev && peer[dev][a->dev] &&
               pair_listed(cfg.broken, dev, a->dev);
    }
    if (n->kind != N_LAUNCH || !cfg.broken[0] ||
        !find((uintptr_t)n->plan, n->nchunks * sizeof(KChunk)))
        return 0;
    const KChunk *plan = (const KChunk *)(uintptr_t)n->plan;
    for (unsigned i = 0; i < n->nchunks; i++) {
        const unsigned long long at[3] = {plan[i].dst, plan[i].a, plan[i].b};
        for (int k = 0; k < 3; k++) {
            Alloc *a = at[k] ? find((uintptr_t)at[k], 1) : NULL;
            if (a && a->dev >= 0 && a->dev != dev && pair_listed(cfg.broken, dev, a->dev))
                return 1;
        }
    }
    return 0;
}

/* Whether s's next node is a launch that never completes. */
static int head_hung(const struct CUstream_st *s)
{
    if (s->head == s->n)
        return 0;
    const Node *n = &s->q[s->head];
    return hangs(n, n->gdev ? n->gdev - 1 : s->o.dev);
}

static int head_ready(const struct CUstream_st *s)
{
    if (s->head == s->n || head_hung(s))
        return 0;
    const Node *n = &s->q[s->head];
    return n->kind != N_WAIT || n->ws->done >= n->wseq;
}

/* A context's queued work thrown away (after a fault, or a reset). */
static void drop_queue(struct CUstream_st *s)
{
    for (size_t i = s->head; i < s->n; i++)
        free(s->q[i].own);
    s->done += s->n - s->head;
    s->head = s->n = 0;
}

static void drop_context(int dev)
{
    for (Obj *o = objs; o; o = o->next)
        if (o->kind == O_STREAM && o->dev == dev)
            drop_queue((struct CUstream_st *)o);
    drop_queue(&legacy[dev]);
}

/* Run the next node of s. A fault is sticky in its context: the rest of
 * the context's work is dropped, and later calls there return it. */
static void run_one(struct CUstream_st *s)
{
    Node n = s->q[s->head++];
    s->done++;
    if (s->head == s->n)
        s->head = s->n = 0;
    int dev = n.gdev ? n.gdev - 1 : s->o.dev; /* a graph's node: its own */
    CUresult r = run_node(&n, s->o.dev);
    if (r && !sticky[dev]) {
        sticky[dev] = r;
        if (process_fault(r) && !fatal)
            for (int d = 0; d < MAXDEV; d++)
                sticky[d] = fatal = r;
        drop_context(dev);
    }
}

static void add_stream(struct CUstream_st **set, int *n, struct CUstream_st *s)
{
    for (int i = 0; i < *n; i++)
        if (set[i] == s)
            return;
    set[(*n)++] = s;
}

#define MAXSET 256

/* set[0..n) and every stream (in objs' order), and the legacy streams
 * where asked. */
static int all_streams(struct CUstream_st **set, int n, int with_legacy)
{
    for (Obj *o = objs; o && n < MAXSET - MAXDEV; o = o->next)
        if (o->kind == O_STREAM)
            add_stream(set, &n, (struct CUstream_st *)o);
    for (int d = 0; with_legacy && d < MAXDEV; d++)
        add_stream(set, &n, &legacy[d]);
    return n;
}

/* Nothing can run and the work asked for is not done: the context's
 * fault, or a query's "not ready" behind a launch that never completes,
 * or a synchronisation that would wait for ever (999 and a message). */
static CUresult stuck(struct CUstream_st **target, int ntarget, int hung, long budget)
{
    for (int i = 0; i < ntarget; i++)
        if (sticky[target[i]->o.dev])
            return sticky[target[i]->o.dev];
    if (hung && budget > 0)
        return ERR_NOT_READY;
    if (hung)
        fprintf(stderr, "fake_cuda: a synchronisation waits for a launch over a "
                "broken peer pair (FAKE_CUDA_BROKEN), which never completes: on "
                "a GPU it would hang\n");
    else
        fprintf(stderr, "fake_cuda: a synchronisation waits for work that "
                "can never run (a wait on an event no stream will reach)\n");
    return ERR_UNKNOWN;
}

/* Run queued work until done(): only what it needs (the target streams
 * and, through their waits, the streams they wait for), or on a coin
 * drawn from the seed any ready stream too (a GPU runs what it likes).
 * Among the ready ones the seed picks. budget > 0: at most that many
 * nodes, then ERR_NOT_READY. Without strict mode everything ran at
 * submit and this has nothing to do. */
static CUresult drain(struct CUstream_st **target, int ntarget,
                      int (*finished)(void *), void *arg, long budget)
{
    struct CUstream_st *set[MAXSET];
    int n = 0, wide = cfg.seed && next_rand() % 2;
    while (!finished(arg)) {
        n = 0;
        for (int i = 0; i < ntarget; i++)
            add_stream(set, &n, target[i]);
        if (wide) /* not the legacy streams: their copies wait for a sync */
            n = all_streams(set, n, 0);
        int hung = 0;
        for (int i = 0; i < n; i++) { /* what the needed ones wait for */
            hung |= head_hung(set[i]);
            if (set[i]->head < set[i]->n && set[i]->q[set[i]->head].kind == N_WAIT &&
                !head_ready(set[i]) && n < MAXSET)
                add_stream(set, &n, set[i]->q[set[i]->head].ws);
        }
        struct CUstream_st *ready[MAXSET];
        int nr = 0;
        for (int i = 0; i < n; i++)
            if (head_ready(set[i]))
                ready[nr++] = set[i];
        if (!nr)
            return stuck(target, ntarget, hung, budget);
        run_one(ready[cfg.seed ? next_rand() % (unsigned)nr : 0]);
        if (budget > 0 && --budget == 0 && !finished(arg))
            return ERR_NOT_READY;
    }
    for (int i = 0; i < ntarget; i++)
        if (sticky[target[i]->o.dev])
            return sticky[target[i]->o.dev];
    return 0;
}

static int streams_empty(void *arg)
{
    struct CUstream_st **s = arg;
    for (; *s; s++)
        if ((*s)->head < (*s)->n)
            return 0;
    return 1;
}

/* Every stream at its end or behind a launch that never completes. */
static int streams_settled(void *arg)
{
    struct CUstream_st **s = arg;
    for (; *s; s++)
        if ((*s)->head < (*s)->n && !head_hung(*s))
            return 0;
    return 1;
}

/* Every stream given (NULL-terminated) run to its end. */
static CUresult drain_streams(struct CUstream_st **s, int n, long budget)
{
    return drain(s, n, streams_empty, s, budget);
}

/* Everything, everywhere (frees, destroys), but what waits behind a
 * launch that never completes (the fake does not make these calls wait
 * for it). */
static void drain_all(void)
{
    struct CUstream_st *set[MAXSET + 1];
    int n = all_streams(set, 0, 1);
    set[n] = NULL;
    drain(set, n, streams_settled, set, 0);
}

/* Context d's NULL stream and its other streams (blocking_only: those
 * created without CU_STREAM_NON_BLOCKING) run to their ends (settle:
 * or to a launch that never completes). */
static CUresult ctx_drain_until(int d, int blocking_only, int settle)
{
    struct CUstream_st *set[MAXSET + 1];
    int n = 0;
    add_stream(set, &n, &legacy[d]);
    for (Obj *o = objs; o && n < MAXSET; o = o->next)
        if (o->kind == O_STREAM && o->dev == d &&
            !(blocking_only && ((struct CUstream_st *)o)->flags & CU_STREAM_NON_BLOCKING))
            add_stream(set, &n, (struct CUstream_st *)o);
    set[n] = NULL;
    return drain(set, n, settle ? streams_settled : streams_empty, set, 0);
}

static CUresult ctx_drain(int d, int blocking_only)
{
    return ctx_drain_until(d, blocking_only, 0);
}

/* A legacy-stream synchronisation: non-blocking streams are not touched. */
static CUresult legacy_sync(int d) { return ctx_drain(d, 1); }

/* Every stream of context d run to its end. */
static CUresult ctx_sync(int d) { return ctx_drain(d, 0); }

static int event_done(void *arg)
{
    CUevent e = arg;
    return !e->recorded || e->done;
}

/* An unsafe call while this thread captures (thread-local mode): refused,
 * and the captures it has under way are invalidated (cuStreamEndCapture
 * then gives 901 and no graph). */
static CUresult unsafe(void)
{
    for (int i = 0; i < capturing && i < MAXCAP; i++)
        captures[i]->invalid = 1;
    return ERR_CAPTURE_UNSUPPORTED;
}

/* ------------------------------------------------------ submission */

/* x appended to the growable list (*q, *n, *cap). */
static CUresult append(Node **q, size_t *n, size_t *cap, Node x)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        Node *m = realloc(*q, c * sizeof *m);
        if (!m)
            return CUDA_ERROR_OUT_OF_MEMORY;
        *q = m, *cap = c;
    }
    (*q)[(*n)++] = x;
    return 0;
}

static CUresult push(struct CUstream_st *s, Node n)
{
    CUresult r = append(&s->q, &s->n, &s->cap, n);
    s->issued += !r;
    return r;
}

static CUresult graph_add(struct CUgraph_st *g, Node n)
{
    return append(&g->nodes, &g->n, &g->cap, n);
}

/* Queue n on s (what a record or a wait means is fixed now, as the
 * driver fixes it at the call), or run it now where nothing is strict. */
static CUresult enqueue(struct CUstream_st *s, Node n)
{
    if (n.kind == N_RECORD) {
        n.gen = ++n.ev->gen;
        n.ev->recorded = 1, n.ev->captured = 0, n.ev->done = 0;
        n.ev->s = s;
        n.ev->seq = s->issued + 1;
    }
    if (n.kind == N_WAIT) {
        if (!n.ev->recorded)
            return 0; /* nothing to wait for */
        n.ws = n.ev->s, n.wseq = n.ev->seq;
    }
    /* a blocking stream waits for the legacy stream's work before it */
    if (s != &legacy[s->o.dev] && !(s->flags & CU_STREAM_NON_BLOCKING) &&
        legacy[s->o.dev].head < legacy[s->o.dev].n) {
        CUresult r = push(s, (Node){.kind = N_WAIT, .ws = &legacy[s->o.dev],
                                    .wseq = legacy[s->o.dev].issued});
        if (r)
            return r;
    }
    CUresult r = push(s, n);
    if (!r && !cfg.strict) {
        struct CUstream_st *one[2] = {s, NULL};
        r = drain_streams(one, 1, 0);
    }
    return r;
}

/* Submit n to s: into the graph where s is capturing, else its queue. */
static CUresult submit(struct CUstream_st *s, Node n)
{
    if (sticky[s->o.dev])
        return sticky[s->o.dev];
    if (s->capture) {
        if (n.kind == N_WAIT)
            return 0; /* dependencies inside one capture: in order anyway */
        n.gdev = s->o.dev + 1;
        s->cap_n++;
        return graph_add(s->capture, n);
    }
    return enqueue(s, n);
}

/* The stream a handle names: NULL is the current context's legacy one. */
static struct CUstream_st *stream_of(CUstream s)
{
    if (!s)
        return cur >= 0 ? &legacy[cur] : NULL;
    return is_obj(s, O_STREAM) ? s : NULL;
}

#define LOCKED(expr)                                                          \
    do {                                                                      \
        pthread_mutex_lock(&lock);                                            \
        CUresult r_ = (expr);                                                 \
        pthread_mutex_unlock(&lock);                                          \
        return r_;                                                            \
    } while (0)

/* ------------------------------------------------------ entry points */

static CUresult f_cuInit(unsigned int flags)
{
    const char *m = getenv("FAKE_CUDA");
    (void)flags;
    if (m && !strcmp(m, "stub"))
        return CUDA_ERROR_STUB_LIBRARY;
    if (m && !strcmp(m, "nodev"))
        return CUDA_ERROR_NO_DEVICE;
    pthread_mutex_lock(&lock);
    if (fatal) {
        pthread_mutex_unlock(&lock);
        return fatal;
    }
    cfg.strict = env_long("FAKE_CUDA_STRICT", 1) != 0;
    cfg.seed = (unsigned long long)env_long("FAKE_CUDA_SEED", 1);
    cfg.fault = env_long("FAKE_CUDA_FAULT", 0);
    cfg.fault_code = (CUresult)env_long("FAKE_CUDA_FAULT_CODE", 700);
    cfg.join = env_long("FAKE_CUDA_JOIN", 1) != 0;
    const char *br = getenv("FAKE_CUDA_BROKEN");
    snprintf(cfg.broken, sizeof cfg.broken, "%s", br ? br : "");
    launches = 0;
    rng = cfg.seed * 0x9E3779B97F4A7C15ull | 1;
    for (int i = 0; i < MAXDEV; i++) {
        ctxs[i].dev = i;
        fns[i].dev = i;
        legacy[i].o.dev = i;
        legacy[i].legacy = 1;
    }
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

static CUresult f_cuDriverGetVersion(int *v) { *v = 13000; return 0; }

static CUresult f_cuGetErrorString(CUresult e, const char **s)
{
    static const struct { CUresult e; const char *s; } names[] = {
        {0, "no error"},
        {ERR_INVALID_VALUE, "invalid argument"},
        {CUDA_ERROR_OUT_OF_MEMORY, "out of memory"},
        {ERR_INVALID_CONTEXT, "invalid device context"},
        {ERR_NO_BINARY_FOR_GPU, "no kernel image is available for execution on the device"},
        {ERR_PEER_UNSUPPORTED, "peer access is not supported between these two devices"},
        {ERR_UNSUPPORTED_PTX, "the provided PTX was compiled with an unsupported toolchain."},
        {ERR_INVALID_HANDLE, "invalid resource handle"},
        {ERR_NOT_FOUND, "named symbol not found"},
        {ERR_NOT_READY, "device not ready"},
        {ERR_ILLEGAL_ADDRESS, "an illegal memory access was encountered"},
        {ERR_TOO_MANY_PEERS, "peer mapping resources exhausted"},
        {ERR_LAUNCH_FAILED, "unspecified launch failure"},
        {ERR_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing"},
        {ERR_CAPTURE_INVALIDATED, "operation failed due to a previous error during capture"},
        {ERR_CAPTURED_EVENT, "operation not permitted on an event last recorded in a capturing stream"},
        {ERR_UNKNOWN, "unknown error"},
        {710, "device-side assert triggered"},
        {810, "MPS client terminated"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].e == e) {
            *s = names[i].s;
            return 0;
        }
    *s = NULL;
    return ERR_INVALID_VALUE;
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
    long cc = env_long("FAKE_CUDA_CC", 90);
    if (d < 0 || d >= ndev())
        return ERR_INVALID_VALUE;
    *v = attr == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ? (int)env_long("FAKE_CUDA_SMS", 4)
       : attr == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? (int)(cc / 10)
       : attr == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ? (int)(cc % 10)
       : attr == CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE ? (int)env_long("FAKE_CUDA_L2", 4 << 20)
       : 0;
    return 0;
}

static CUresult f_cuDeviceCanAccessPeer(int *can, CUdevice d, CUdevice p)
{
    if (d < 0 || d >= ndev() || p < 0 || p >= ndev())
        return ERR_INVALID_VALUE;
    *can = peer_allowed(d, p);
    return 0;
}

static CUresult f_cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
    if (d < 0 || d >= ndev())
        return ERR_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    retained[d]++;
    pthread_mutex_unlock(&lock);
    *c = &ctxs[d];
    return 0;
}

/* A context's queued work (run first, as destroying a context waits for
 * it, unless a fault dropped it), peer access and error gone. */
static void ctx_clear(int d)
{
    if (!sticky[d])
        ctx_drain_until(d, 0, 1); /* a launch that never completes is dropped */
    drop_context(d);
    for (int i = 0; i < MAXDEV; i++)
        peer[d][i] = peer[i][d] = 0;
    sticky[d] = fatal;
}

/* The last release destroys the primary context: its peer access and
 * its error go (what it still holds stays counted, as a leak). */
static CUresult ctx_release(CUdevice d)
{
    if (d < 0 || d >= MAXDEV || !retained[d])
        return ERR_INVALID_CONTEXT;
    if (--retained[d] == 0)
        ctx_clear(d);
    return 0;
}

static CUresult f_cuDevicePrimaryCtxRelease(CUdevice d) { LOCKED(ctx_release(d)); }

/* Everything the context owned is gone, its error cleared. */
static CUresult ctx_reset(CUdevice d)
{
    if (d < 0 || d >= ndev())
        return ERR_INVALID_VALUE;
    ctx_clear(d);
    for (Obj **at = &objs; *at;) {
        Obj *o = *at;
        if (o->dev != d) {
            at = &o->next;
            continue;
        }
        *at = o->next;
        live--;
        if (o->kind == O_STREAM)
            free(((struct CUstream_st *)o)->q);
        if (o->kind == O_GRAPH)
            free(((struct CUgraph_st *)o)->nodes);
        if (o->kind == O_EXEC)
            free(((struct CUgraphExec_st *)o)->nodes);
        free(o);
    }
    for (Alloc **at = &allocs; *at;)
        if ((*at)->ctx == d)
            alloc_free(at);
        else
            at = &(*at)->next;
    return 0;
}

static CUresult f_cuDevicePrimaryCtxReset(CUdevice d) { LOCKED(ctx_reset(d)); }

static CUresult f_cuCtxSetCurrent(CUcontext c)
{
    cur = c ? c->dev : -1;
    return 0;
}

static CUresult enable_peer(CUcontext p)
{
    if (cur < 0)
        return ERR_INVALID_CONTEXT;
    if (sticky[cur])
        return sticky[cur];
    if (p->dev == cur || !peer_allowed(cur, p->dev))
        return ERR_PEER_UNSUPPORTED;
    if (peer[cur][p->dev])
        return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    int n = 0;
    for (int i = 0; i < MAXDEV; i++)
        n += peer[cur][i];
    if (n >= env_long("FAKE_CUDA_MAX_PEERS", 8))
        return ERR_TOO_MANY_PEERS;
    peer[cur][p->dev] = 1;
    return 0;
}

static CUresult f_cuCtxEnablePeerAccess(CUcontext p, unsigned int flags)
{
    if (flags)
        return ERR_INVALID_VALUE;
    LOCKED(enable_peer(p));
}

static CUresult disable_peer(CUcontext p)
{
    if (cur < 0)
        return ERR_INVALID_CONTEXT;
    if (!p || !peer[cur][p->dev])
        return 705; /* CUDA_ERROR_PEER_ACCESS_NOT_ENABLED */
    peer[cur][p->dev] = 0;
    return 0;
}

static CUresult f_cuCtxDisablePeerAccess(CUcontext p)
{
    LOCKED(disable_peer(p));
}

static CUresult f_cuCtxSynchronize(void)
{
    LOCKED(cur < 0 ? ERR_INVALID_CONTEXT : ctx_sync(cur));
}

/* -------------------------------------------------------- modules */

/* A PTX text's ".version M.m" and ".target sm_XY": the ISA and the
 * target as numbers (90, 70), 0 where absent. */
static void ptx_facts(const char *p, size_t n, int *isa, int *target)
{
    *isa = *target = 0;
    for (size_t i = 0; i + 16 < n; i++) {
        if (!memcmp(p + i, ".version ", 9) && !*isa)
            *isa = atoi(p + i + 9) * 10 + atoi(strchr(p + i + 9, '.') + 1);
        if (!memcmp(p + i, ".target sm_", 11) && !*target)
            *target = atoi(p + i + 11);
    }
}

/* A fatbin's entries: PTX that this device can compile, or SASS for its
 * major version at a minor it covers. */
static CUresult fatbin_fits(const unsigned char *p, size_t n, int cc)
{
    size_t at = 16;
    int ptx = 0, sass = 0;
    while (at + 32 <= n) {
        uint16_t kind;
        uint32_t hs, arch;
        uint64_t size;
        memcpy(&kind, p + at, 2);
        memcpy(&hs, p + at + 4, 4);
        memcpy(&size, p + at + 8, 8);
        memcpy(&arch, p + at + 28, 4);
        if (kind == 1 && (int)arch <= cc)
            ptx = 1;
        if (kind == 2 && (int)arch / 10 == cc / 10 && (int)arch <= cc)
            sass = 1;
        if (!hs)
            break;
        at += hs + size;
    }
    return ptx || sass ? 0 : ERR_NO_BINARY_FOR_GPU;
}

/* The image must be PTX this driver reads for a target the device has,
 * or a fatbin with something for it, and hold the step kernel. */
static CUresult module_load(CUmodule *m, const void *image)
{
    const unsigned char *p = image;
    int cc = (int)env_long("FAKE_CUDA_CC", 90);
    size_t n;
    uint32_t magic;
    if (cur < 0)
        return ERR_INVALID_CONTEXT;
    memcpy(&magic, p, 4);
    if (magic == 0xBA55ED50u) {
        uint16_t hs;
        uint64_t fs;
        memcpy(&hs, p + 6, 2);
        memcpy(&fs, p + 8, 8);
        n = hs + fs;
        CUresult r = cfg.strict ? fatbin_fits(p, n, cc) : 0;
        if (r)
            return r;
    } else if (!memcmp(p, "//", 2) || !memcmp(p, ".version", 8)) {
        int isa, target;
        n = strlen(image);
        ptx_facts(image, n, &isa, &target);
        if (cfg.strict && isa > PTX_ISA_MAX)
            return ERR_UNSUPPORTED_PTX;
        if (cfg.strict && target > cc)
            return ERR_NO_BINARY_FOR_GPU;
    } else
        return ERR_INVALID_IMAGE;
    size_t k = strlen(KERN_NAME);
    int found = 0;
    for (size_t i = 0; i + k <= n && !found; i++)
        found = !memcmp(p + i, KERN_NAME, k);
    if (!found)
        return ERR_INVALID_IMAGE;
    if (!(*m = obj_new(sizeof **m, O_MODULE, cur)))
        return CUDA_ERROR_OUT_OF_MEMORY;
    return 0;
}

static CUresult f_cuModuleLoadData(CUmodule *m, const void *image)
{
    LOCKED(module_load(m, image));
}

static CUresult f_cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
    if (!m)
        return ERR_INVALID_HANDLE;
    if (strcmp(name, KERN_NAME))
        return ERR_NOT_FOUND;
    *f = &fns[m->o.dev];
    return 0;
}

/* An H100's limits: 2048 threads and 32 blocks a multiprocessor
 * (registers and shared memory are not modelled). */
static CUresult f_cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction f,
                                                              int block, size_t shared)
{
    if (!f || block < 1 || block > 1024 || shared > 48 * 1024)
        return ERR_INVALID_VALUE;
    *blocks = 2048 / block < 32 ? 2048 / block : 32;
    return 0;
}

static CUresult module_unload(CUmodule m)
{
    if (!is_obj(m, O_MODULE))
        return ERR_INVALID_HANDLE;
    drain_all();
    obj_unlink(&m->o);
    free(m);
    return 0;
}

static CUresult f_cuModuleUnload(CUmodule m) { LOCKED(module_unload(m)); }

/* --------------------------------------------------------- memory */

static CUresult f_cuMemGetInfo(size_t *fr, size_t *tot)
{
    if (cur < 0)
        return ERR_INVALID_CONTEXT;
    *tot = mem_limit();
    *fr = used[cur] < *tot ? *tot - used[cur] : 0;
    return 0;
}

static CUresult mem_alloc(CUdeviceptr *p, size_t n)
{
    void *m = NULL;
    if (cur < 0)
        return ERR_INVALID_CONTEXT;
    if (sticky[cur])
        return sticky[cur];
    CUresult r = alloc(&m, n, cur);
    *p = (CUdeviceptr)(uintptr_t)m;
    return r;
}

static CUresult f_cuMemAlloc(CUdeviceptr *p, size_t n) { LOCKED(mem_alloc(p, n)); }

/* cuMemFree and cuMemFreeHost synchronise: everything queued runs first. */
static CUresult release(uintptr_t p, int host)
{
    frees++;
    if (cur >= 0 && sticky[cur])
        return sticky[cur];
    drain_all();
    for (Alloc **at = &allocs; *at; at = &(*at)->next)
        if ((*at)->p == p && ((*at)->dev < 0) == host) {
            alloc_free(at);
            return 0;
        }
    return ERR_INVALID_VALUE;
}

static CUresult f_cuMemFree(CUdeviceptr p) { LOCKED(release((uintptr_t)p, 0)); }
static CUresult f_cuMemFreeHost(void *p) { LOCKED(release((uintptr_t)p, 1)); }

static CUresult mem_alloc_host(void **p, size_t n)
{
    if (cur < 0)
        return ERR_INVALID_CONTEXT;
    host_allocs++;
    return alloc(p, n, -1);
}

static CUresult f_cuMemAllocHost(void **p, size_t n) { LOCKED(mem_alloc_host(p, n)); }

/* A synchronous copy: on the current context's legacy stream, which first
 * runs to its end (with the blocking streams). From pageable memory to
 * the device it returns once the source is staged; the data lands at the
 * legacy stream's next synchronisation. */
static CUresult sync_copy(Node n)
{
    if (cur < 0)
        return ERR_INVALID_CONTEXT;
    if (sticky[cur])
        return sticky[cur];
    if (capturing)
        return unsafe();
    CUresult r = legacy_sync(cur);
    if (r)
        return r;
    int pinned = find((uintptr_t)n.hptr, n.bytes) != NULL;
    if (cfg.strict && n.kind == N_HTOD && !pinned) {
        if (!find((uintptr_t)n.dptr, n.bytes))
            return ERR_INVALID_VALUE;
        if (!(n.own = malloc(n.bytes ? n.bytes : 1)))
            return CUDA_ERROR_OUT_OF_MEMORY;
        memcpy(n.own, n.hptr, n.bytes);
        return push(&legacy[cur], n);
    }
    if (!find((uintptr_t)n.dptr, n.bytes))
        return ERR_INVALID_VALUE;
    return run_node(&n, cur);
}

static CUresult f_cuMemcpyHtoD(CUdeviceptr d, const void *h, size_t n)
{
    LOCKED(sync_copy((Node){.kind = N_HTOD, .dptr = d, .hptr = (void *)(uintptr_t)h,
                            .bytes = n}));
}

static CUresult f_cuMemcpyDtoH(void *h, CUdeviceptr d, size_t n)
{
    LOCKED(sync_copy((Node){.kind = N_DTOH, .dptr = d, .hptr = h, .bytes = n}));
}

/* An asynchronous copy reads (or writes) host memory when it runs: the
 * caller keeps it valid until a synchronisation says it has. */
static CUresult async_copy(CUstream hs, Node n)
{
    struct CUstream_st *s = stream_of(hs);
    if (!s)
        return ERR_INVALID_HANDLE;
    if (!find((uintptr_t)n.dptr, n.bytes))
        return ERR_INVALID_VALUE;
    return submit(s, n);
}

static CUresult f_cuMemcpyHtoDAsync(CUdeviceptr d, const void *h, size_t n, CUstream s)
{
    LOCKED(async_copy(s, (Node){.kind = N_HTOD, .dptr = d,
                                .hptr = (void *)(uintptr_t)h, .bytes = n}));
}

static CUresult f_cuMemcpyDtoHAsync(void *h, CUdeviceptr d, size_t n, CUstream s)
{
    LOCKED(async_copy(s, (Node){.kind = N_DTOH, .dptr = d, .hptr = h, .bytes = n}));
}

/* A copy between two contexts' device memory, on a stream: through peer
 * access where the destination's context has it to the source's, else
 * staged through host memory by the driver; either way each pointer must
 * be its context's. */
static CUresult peer_copy(CUdeviceptr d, CUcontext dc, CUdeviceptr sp,
                          CUcontext sc, size_t n, CUstream hs)
{
    struct CUstream_st *s = stream_of(hs);
    if (!s)
        return ERR_INVALID_HANDLE;
    Alloc *a = find((uintptr_t)d, n), *b = find((uintptr_t)sp, n);
    if (!dc || !sc || !a || !b || a->dev != dc->dev || b->dev != sc->dev)
        return ERR_INVALID_VALUE;
    return submit(s, (Node){.kind = N_PEER, .dptr = d, .sptr = sp,
                            .bytes = n});
}

static CUresult f_cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc,
                                    CUdeviceptr sp, CUcontext sc, size_t n,
                                    CUstream s)
{
    LOCKED(peer_copy(d, dc, sp, sc, n, s));
}

/* -------------------------------------------------------- streams */

static CUresult stream_create(CUstream *s, unsigned int flags)
{
    if (cur < 0)
        return ERR_INVALID_CONTEXT;
    if (flags & ~(unsigned)CU_STREAM_NON_BLOCKING)
        return ERR_INVALID_VALUE;
    if (!(*s = obj_new(sizeof **s, O_STREAM, cur)))
        return CUDA_ERROR_OUT_OF_MEMORY;
    (*s)->flags = flags;
    return 0;
}

static CUresult f_cuStreamCreate(CUstream *s, unsigned int flags)
{
    LOCKED(stream_create(s, flags));
}

static CUresult stream_destroy(CUstream s)
{
    if (!is_obj(s, O_STREAM))
        return ERR_INVALID_HANDLE;
    drain_all(); /* its work completes first; then it is gone */
    if (s->capture)
        return ERR_CAPTURE_UNSUPPORTED;
    obj_unlink(&s->o);
    free(s->q);
    free(s);
    return 0;
}

static CUresult f_cuStreamDestroy(CUstream s) { LOCKED(stream_destroy(s)); }

static CUresult stream_sync(CUstream hs, long budget)
{
    struct CUstream_st *s = stream_of(hs);
    if (!s)
        return ERR_INVALID_HANDLE;
    if (s->capture)
        return unsafe();
    if (sticky[s->o.dev])
        return sticky[s->o.dev];
    if (s->legacy)
        return legacy_sync(s->o.dev);
    struct CUstream_st *one[2] = {s, NULL};
    return drain_streams(one, 1, budget);
}

static CUresult f_cuStreamSynchronize(CUstream s) { LOCKED(stream_sync(s, 0)); }

/* A query lets the device run a little (as time passes on a GPU) and says
 * whether the stream is done. */
static CUresult f_cuStreamQuery(CUstream s) { LOCKED(stream_sync(s, 16)); }

static CUresult stream_wait(CUstream hs, CUevent e, unsigned int flags)
{
    struct CUstream_st *s = stream_of(hs);
    if (!s || !is_obj(e, O_EVENT))
        return ERR_INVALID_HANDLE;
    if (flags)
        return ERR_INVALID_VALUE;
    struct CUgraph_st *g = e->captured ? capture_of(e->cap_id) : NULL;
    if (e->captured && !g && !s->capture)
        return ERR_CAPTURED_EVENT; /* its capture has ended */
    if (g && s->capture && s->capture != g)
        return ERR_CAPTURE_MERGE;
    if (g && !s->capture) { /* a fork: s joins the capture */
        if (s->legacy || g->njoin == MAXJOIN)
            return ERR_CAPTURE_UNSUPPORTED;
        if (!cfg.join && s->o.dev != g->origin->o.dev) {
            g->invalid = 1;
            return ERR_CAPTURE_ISOLATION;
        }
        s->capture = g, s->cap_n = s->cap_joined = 0;
        g->join[g->njoin++] = s;
    }
    if (g && s == g->origin && e->cap_s != s && e->cap_n > e->cap_s->cap_joined)
        e->cap_s->cap_joined = e->cap_n; /* a join */
    cross_waits += e->recorded && e->o.dev != s->o.dev; /* e's device's stream recorded it */
    return submit(s, (Node){.kind = N_WAIT, .ev = e});
}

static CUresult f_cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags)
{
    LOCKED(stream_wait(s, e, flags));
}

/* --------------------------------------------------------- events */

static CUresult event_create(CUevent *e, unsigned int flags)
{
    if (cur < 0 && cfg.strict)
        return ERR_INVALID_CONTEXT;
    if (flags & ~(unsigned)(EV_DISABLE_TIMING | 0x1 | 0x4))
        return ERR_INVALID_VALUE;
    if (!(*e = obj_new(sizeof **e, O_EVENT, cur < 0 ? 0 : cur)))
        return CUDA_ERROR_OUT_OF_MEMORY;
    (*e)->flags = flags;
    return 0;
}

static CUresult f_cuEventCreate(CUevent *e, unsigned int flags)
{
    LOCKED(event_create(e, flags));
}

static CUresult event_destroy(CUevent e)
{
    if (!is_obj(e, O_EVENT))
        return ERR_INVALID_HANDLE;
    drain_all();
    obj_unlink(&e->o);
    free(e);
    return 0;
}

static CUresult f_cuEventDestroy(CUevent e) { LOCKED(event_destroy(e)); }

/* A record: on a stream of the event's own context. Inside a capture it
 * is a graph node only with CU_EVENT_RECORD_EXTERNAL; otherwise it only
 * marks the event captured. */
static CUresult event_record(CUevent e, CUstream hs, unsigned int flags)
{
    struct CUstream_st *s = stream_of(hs);
    if (!s || !is_obj(e, O_EVENT))
        return ERR_INVALID_HANDLE;
    if (flags & ~(unsigned)EV_RECORD_EXTERNAL)
        return ERR_INVALID_VALUE;
    if (cfg.strict && e->o.dev != s->o.dev)
        return ERR_INVALID_HANDLE;
    if (sticky[s->o.dev])
        return sticky[s->o.dev];
    if (s->capture && cfg.strict && !(flags & EV_RECORD_EXTERNAL)) {
        e->captured = 1;
        e->recorded = 1;
        e->cap_id = s->capture->id, e->cap_s = s, e->cap_n = s->cap_n;
        return 0;
    }
    return submit(s, (Node){.kind = N_RECORD, .ev = e});
}

static CUresult f_cuEventRecord(CUevent e, CUstream s) { LOCKED(event_record(e, s, 0)); }

static CUresult f_cuEventRecordWithFlags(CUevent e, CUstream s, unsigned int flags)
{
    LOCKED(event_record(e, s, flags));
}

static CUresult event_wait(CUevent e, long budget)
{
    if (!is_obj(e, O_EVENT))
        return ERR_INVALID_HANDLE;
    if (e->captured)
        return ERR_CAPTURED_EVENT;
    if (capturing)
        return unsafe();
    if (event_done(e))
        return e->s && sticky[e->s->o.dev] ? sticky[e->s->o.dev] : 0;
    struct CUstream_st *one[1] = {e->s};
    return drain(one, 1, event_done, e, budget);
}

static CUresult f_cuEventSynchronize(CUevent e) { LOCKED(event_wait(e, 0)); }
static CUresult f_cuEventQuery(CUevent e) { LOCKED(event_wait(e, 16)); }

static CUresult elapsed(float *ms, CUevent a, CUevent b)
{
    if (!is_obj(a, O_EVENT) || !is_obj(b, O_EVENT))
        return ERR_INVALID_HANDLE;
    if (a->captured || b->captured)
        return ERR_CAPTURED_EVENT;
    if (!a->recorded || !b->recorded || ((a->flags | b->flags) & EV_DISABLE_TIMING))
        return ERR_INVALID_HANDLE;
    if (!a->done || !b->done)
        return ERR_NOT_READY;
    *ms = (float)((b->t - a->t) * 1e3);
    return 0;
}

static CUresult f_cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
    LOCKED(elapsed(ms, a, b));
}

/* -------------------------------------------------------- launches */

static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                       unsigned bx, unsigned by, unsigned bz, unsigned shared,
                       CUstream hs, void **p)
{
    struct CUstream_st *s = stream_of(hs);
    launch_calls++;
    if (!f || !p)
        return ERR_INVALID_VALUE;
    /* the device's limits: 1024 threads a block, 2^31 - 1 blocks in x,
     * 65535 in y and z, 48 KiB of static shared memory */
    if (!gx || !gy || !gz || !bx || !by || !bz || (unsigned long long)bx * by * bz > 1024 ||
        bz > 64 || gx > 0x7fffffffu || gy > 65535 || gz > 65535 || shared > 48 * 1024)
        return ERR_INVALID_VALUE;
    if (gy != 1 || gz != 1 || by != 1 || bz != 1) /* the step kernel is 1-D */
        return ERR_INVALID_VALUE;
    if (!s || f->dev != s->o.dev)
        return ERR_INVALID_HANDLE;
    Node n = {.kind = N_LAUNCH, .fn = f, .grid = gx, .block = bx};
    memcpy(&n.plan, p[0], sizeof n.plan);
    memcpy(&n.nchunks, p[1], 4);
    memcpy(&n.dtype, p[2], 4);
    memcpy(&n.op, p[3], 4);
    memcpy(&n.nranks, p[4], 4);
    return submit(s, n);
}

static CUresult f_cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz,
                                 unsigned shared, CUstream s, void **p, void **extra)
{
    if (extra)
        return ERR_INVALID_VALUE;
    LOCKED(launch(f, gx, gy, gz, bx, by, bz, shared, s, p));
}

/* --------------------------------------------------------- graphs */

static CUresult graph_destroy(CUgraph g);

static CUresult begin_capture(CUstream hs, int mode)
{
    struct CUstream_st *s = stream_of(hs);
    if (!s)
        return ERR_INVALID_HANDLE;
    if (s->legacy) /* the legacy stream cannot be captured */
        return ERR_CAPTURE_UNSUPPORTED;
    if (s->capture || mode < 0 || mode > 2 || capturing == MAXCAP)
        return ERR_INVALID_VALUE;
    if (!(s->capture = obj_new(sizeof *s->capture, O_GRAPH, s->o.dev)))
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->capture->id = ++capture_ids;
    s->capture->origin = s;
    s->cap_n = s->cap_joined = 0;
    captures[capturing++] = s->capture;
    return 0;
}

static CUresult f_cuStreamBeginCapture(CUstream s, int mode)
{
    LOCKED(begin_capture(s, mode));
}

static CUresult end_capture(CUstream hs, CUgraph *g)
{
    struct CUstream_st *s = stream_of(hs);
    if (!s || !s->capture)
        return ERR_INVALID_VALUE;
    struct CUgraph_st *c = s->capture;
    if (c->origin != s)
        return ERR_CAPTURE_UNMATCHED;
    s->capture = NULL;
    int unjoined = 0;
    for (int i = 0; i < c->njoin; i++) { /* every fork ends with the capture */
        unjoined |= c->join[i]->cap_n > c->join[i]->cap_joined;
        c->join[i]->capture = NULL;
    }
    for (int i = 0; i < capturing; i++)
        if (captures[i] == c)
            captures[i] = captures[--capturing];
    c->id = 0;
    *g = NULL;
    if (c->invalid || unjoined) {
        graph_destroy(c);
        return unjoined ? ERR_CAPTURE_UNJOINED : ERR_CAPTURE_INVALIDATED;
    }
    *g = c;
    return 0;
}

static CUresult f_cuStreamEndCapture(CUstream s, CUgraph *g) { LOCKED(end_capture(s, g)); }

static CUresult instantiate(CUgraphExec *ge, CUgraph g)
{
    if (!is_obj(g, O_GRAPH))
        return ERR_INVALID_HANDLE;
    if (!(*ge = obj_new(sizeof **ge, O_EXEC, g->o.dev)))
        return CUDA_ERROR_OUT_OF_MEMORY;
    (*ge)->nodes = malloc((g->n + 1) * sizeof *g->nodes);
    if (!(*ge)->nodes)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (g->n) /* (a capture of plain records only has no node) */
        memcpy((*ge)->nodes, g->nodes, g->n * sizeof *g->nodes);
    (*ge)->n = g->n;
    return 0;
}

static CUresult f_cuGraphInstantiateWithFlags(CUgraphExec *ge, CUgraph g,
                                              unsigned long long flags)
{
    if (flags)
        return ERR_INVALID_VALUE;
    LOCKED(instantiate(ge, g));
}

static CUresult graph_launch(CUgraphExec ge, CUstream hs)
{
    struct CUstream_st *s = stream_of(hs);
    if (!s || !is_obj(ge, O_EXEC) || s->o.dev != ge->o.dev)
        return ERR_INVALID_HANDLE;
    if (s->capture)
        return ERR_CAPTURE_UNSUPPORTED;
    for (size_t i = 0; i < ge->n; i++) {
        CUresult r = submit(s, ge->nodes[i]);
        if (r)
            return r;
    }
    return 0;
}

static CUresult f_cuGraphLaunch(CUgraphExec ge, CUstream s) { LOCKED(graph_launch(ge, s)); }

static CUresult graph_upload(CUgraphExec ge, CUstream hs)
{
    struct CUstream_st *s = stream_of(hs);
    return !s || !is_obj(ge, O_EXEC) || s->o.dev != ge->o.dev ? ERR_INVALID_HANDLE : 0;
}

static CUresult f_cuGraphUpload(CUgraphExec ge, CUstream s) { LOCKED(graph_upload(ge, s)); }

static CUresult exec_destroy(CUgraphExec ge)
{
    if (!is_obj(ge, O_EXEC))
        return ERR_INVALID_HANDLE;
    drain_all();
    obj_unlink(&ge->o);
    free(ge->nodes);
    free(ge);
    return 0;
}

static CUresult f_cuGraphExecDestroy(CUgraphExec ge) { LOCKED(exec_destroy(ge)); }

static CUresult graph_destroy(CUgraph g)
{
    if (!is_obj(g, O_GRAPH))
        return ERR_INVALID_HANDLE;
    obj_unlink(&g->o);
    free(g->nodes);
    free(g);
    return 0;
}

static CUresult f_cuGraphDestroy(CUgraph g) { LOCKED(graph_destroy(g)); }

/* ----------------------------------------------- cuGetProcAddress */

/* An entry point resolved at a version whose prototype is not the one
 * the fake implements (cuMemAlloc before 3.2 took 32-bit sizes): a
 * caller that asked for it gets this, and it says so loudly. */
static CUresult wrong_version(void)
{
    fprintf(stderr, "fake_cuda: called an entry point resolved at a version "
            "whose prototype differs from the one the caller declares\n");
    return ERR_NOT_SUPPORTED;
}

/* Each entry point: the version it appeared in, the version of the
 * prototype implemented here (cudaTypedefs.h's PFN_<name>_v<N>), and the
 * next version with another prototype (0: none yet). */
#define FAKE_EXTRA(X) X(cuCtxSynchronize, (void))
static const struct {
    const char *name;
    void (*fn)(void);
    int first, abi, next;
} table[] = {
#define X(name, args) {#name, (void (*)(void))f_##name, 0, 0, 0},
    CUDA_FUNCS(X) FAKE_EXTRA(X)
#undef X
};

static const struct {
    const char *name;
    int first, abi, next;
} versions[] = {
    {"cuDriverGetVersion", 2020, 2020, 0},
    {"cuGetErrorString", 6000, 6000, 0},
    {"cuDeviceCanAccessPeer", 4000, 4000, 0},
    {"cuDevicePrimaryCtxRetain", 7000, 7000, 0},
    {"cuDevicePrimaryCtxRelease", 7000, 11000, 0},
    {"cuDevicePrimaryCtxReset", 7000, 11000, 0},
    {"cuCtxSetCurrent", 4000, 4000, 0},
    {"cuCtxEnablePeerAccess", 4000, 4000, 0},
    {"cuCtxSynchronize", 2000, 2000, 13000},
    {"cuMemGetInfo", 2000, 3020, 0},
    {"cuMemAlloc", 2000, 3020, 0},
    {"cuMemFree", 2000, 3020, 0},
    {"cuMemAllocHost", 2000, 3020, 0},
    {"cuMemcpyHtoD", 2000, 3020, 0},
    {"cuMemcpyDtoH", 2000, 3020, 0},
    {"cuMemcpyHtoDAsync", 2000, 3020, 0},
    {"cuMemcpyDtoHAsync", 2000, 3020, 0},
    {"cuMemcpyPeerAsync", 4000, 4000, 0},
    {"cuCtxDisablePeerAccess", 4000, 4000, 0},
    {"cuStreamDestroy", 2000, 4000, 0},
    {"cuStreamWaitEvent", 3020, 3020, 0},
    {"cuEventDestroy", 2000, 4000, 0},
    {"cuEventRecordWithFlags", 11010, 11010, 0},
    {"cuLaunchKernel", 4000, 4000, 0},
    {"cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050, 6050, 0},
    {"cuStreamBeginCapture", 10000, 10010, 0},
    {"cuStreamEndCapture", 10000, 10000, 0},
    {"cuGraphInstantiateWithFlags", 11040, 11040, 0},
    {"cuGraphLaunch", 10000, 10000, 0},
    {"cuGraphUpload", 11010, 11010, 0},
    {"cuGraphExecDestroy", 10000, 10000, 0},
    {"cuGraphDestroy", 10000, 10000, 0},
};

CUresult cuGetProcAddress_v2(const char *sym, void **fn, int version,
                             unsigned long long flags, int *status);
CUresult cuGetProcAddress_v2(const char *sym, void **fn, int version,
                             unsigned long long flags, int *status)
{
    cfg.proc_flags = flags;
    if (status)
        *status = 0;
    *fn = NULL;
    if (version < 12000 && getenv("FAKE_CUDA_OLD"))
        return ERR_NOT_FOUND;
    int first = 2000, abi = 2000, next = 0;
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
        if (!strcmp(sym, versions[i].name))
            first = versions[i].first, abi = versions[i].abi, next = versions[i].next;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(sym, table[i].name)) {
            if (version < first)
                return ERR_NOT_FOUND;
            void (*f)(void) = version < abi || (next && version >= next)
                                  ? (void (*)(void))wrong_version : table[i].fn;
            memcpy(fn, &f, sizeof *fn);
            return 0;
        }
    return ERR_NOT_FOUND;
}

CUresult cuGetProcAddress(const char *sym, void **fn, int version,
                          unsigned long long flags);
CUresult cuGetProcAddress(const char *sym, void **fn, int version,
                          unsigned long long flags)
{
    return cuGetProcAddress_v2(sym, fn, version, flags, NULL);
}
