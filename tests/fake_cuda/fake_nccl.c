/* fake_nccl.c - NCCL for the tests (built as libnccl.so.2; the cuda
 * backend opens it through COLLVIZ_LIBNCCL). It checks how a program
 * calls NCCL, not what NCCL computes: collectives, sends and receives
 * move no data.
 *
 * One thread drives every rank of a communicator set (ncclCommInitAll),
 * as collviz does. NCCL's documentation: "When a single thread is
 * managing multiple devices, group semantics must be used. This is
 * because every NCCL call may have to block, waiting for other
 * threads/ranks to arrive". So, for a communicator of more than one
 * rank, the fake refuses what would wait for ever on real NCCL, with
 * ncclInvalidUsage (5) and a message instead of a hang, and counts it
 * (fake_nccl_stuck):
 * - a collective, send, receive or ncclCommFinalize outside a group;
 * - a group whose ranks do not meet: a collective issued on some ranks
 *   of a set and not on all, a send without its receive, or a finalize
 *   of some ranks of a set without the others (NCCL's own single-process
 *   example finalizes every rank in one group).
 * Also refused: a communicator that is not live (destroyed, aborted, or
 * never made: ncclInvalidArgument, 4), a call after its finalize (5),
 * ncclGroupEnd without ncclGroupStart (5), two ranks on one device in
 * ncclCommInitAll (5, "Duplicate GPU detected"). ncclCommDestroy and
 * ncclCommAbort are local: accepted one rank at a time, finalized or
 * not. ncclScatter, ncclGather and ncclAlltoAll are absent, as before
 * NCCL 2.28. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXRANKS 64
#define NCCL_OK 0
#define NCCL_INVALID_ARGUMENT 4
#define NCCL_INVALID_USAGE 5

typedef struct ncclComm Comm;
struct ncclComm {
    Comm *next;        /* every communicator ever made (never freed) */
    int set;           /* the ncclCommInitAll call that made it */
    int rank, nranks;  /* its rank in that set */
    int live;          /* not destroyed or aborted */
    int finalized;     /* a finalize has completed */
    int touched;       /* called in the open group */
    int finalizing;    /* finalized in the open group */
    long colls;        /* collectives in the open group */
    long sends[MAXRANKS], recvs[MAXRANKS]; /* in the open group, by peer */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Comm *all;
static int nsets;
static long nlive, nstuck, nfinalized;
static _Thread_local int depth; /* ncclGroupStart nesting */

long fake_nccl_live(void);
long fake_nccl_stuck(void);
long fake_nccl_finalized(void);
long fake_nccl_live(void) { return nlive; }     /* communicators not destroyed */
long fake_nccl_stuck(void) { return nstuck; }   /* calls that would never return */
long fake_nccl_finalized(void) { return nfinalized; } /* finalizes completed */

/* A call that would wait for ever on real NCCL: said, counted, 5. */
static int stuck(const Comm *c, const char *what)
{
    fprintf(stderr, "fake_nccl: %s (rank %d of %d) would wait for ever: "
            "NCCL's ranks of one thread meet only inside one group\n", what,
            c->rank, c->nranks);
    nstuck++;
    return NCCL_INVALID_USAGE;
}

/* Whether c is a communicator this library made and has not freed. */
static int is_live(const Comm *c)
{
    for (const Comm *a = all; a; a = a->next)
        if (a == c)
            return a->live;
    return 0;
}

/* ------------------------------------------------- communicators */

/* n communicators of one set, rank r on device devs[r] (r when NULL). */
static int init_all(Comm **comms, int n, const int *devs)
{
    if (!comms || n < 1 || n > MAXRANKS)
        return NCCL_INVALID_ARGUMENT;
    for (int r = 0; devs && r < n; r++)
        for (int q = 0; q < r; q++)
            if (devs[q] == devs[r]) {
                fprintf(stderr, "fake_nccl: Duplicate GPU detected: ranks %d "
                        "and %d on device %d\n", q, r, devs[r]);
                return NCCL_INVALID_USAGE;
            }
    for (int r = 0; r < n; r++) {
        Comm *c = calloc(1, sizeof *c);
        if (!c)
            return 2; /* ncclSystemError */
        *c = (Comm){.next = all, .set = nsets, .rank = r, .nranks = n, .live = 1};
        all = c;
        comms[r] = c;
        nlive++;
    }
    nsets++;
    return NCCL_OK;
}

int ncclCommInitAll(Comm **comms, int n, const int *devs);
int ncclCommInitAll(Comm **comms, int n, const int *devs)
{
    pthread_mutex_lock(&lock);
    int r = init_all(comms, n, devs);
    pthread_mutex_unlock(&lock);
    return r;
}

/* Destroy or abort: local, accepted for a live communicator. */
static int free_comm(Comm *c)
{
    pthread_mutex_lock(&lock);
    int ok = is_live(c);
    if (ok) {
        c->live = 0;
        nlive--;
    }
    pthread_mutex_unlock(&lock);
    return ok ? NCCL_OK : NCCL_INVALID_ARGUMENT;
}

int ncclCommDestroy(Comm *c);
int ncclCommDestroy(Comm *c) { return free_comm(c); }
int ncclCommAbort(Comm *c);
int ncclCommAbort(Comm *c) { return free_comm(c); }

int ncclCommGetAsyncError(Comm *c, int *e);
int ncclCommGetAsyncError(Comm *c, int *e)
{
    pthread_mutex_lock(&lock);
    int ok = is_live(c) && e;
    pthread_mutex_unlock(&lock);
    if (ok)
        *e = NCCL_OK;
    return ok ? NCCL_OK : NCCL_INVALID_ARGUMENT;
}

const char *ncclGetErrorString(int r);
const char *ncclGetErrorString(int r)
{
    return r == NCCL_OK ? "no error"
         : r == NCCL_INVALID_ARGUMENT ? "invalid argument"
         : r == NCCL_INVALID_USAGE ? "invalid usage"
         : "an error";
}

/* ------------------------------------------------- calls and groups */

/* The checks every call on c makes; then, outside a group, a call of a
 * set of several ranks is one that would wait for ever. */
static int enter(Comm *c, const char *what)
{
    if (!is_live(c))
        return NCCL_INVALID_ARGUMENT;
    if (c->finalized)
        return NCCL_INVALID_USAGE;
    if (!depth && c->nranks > 1)
        return stuck(c, what);
    c->touched = 1;
    return NCCL_OK;
}

/* A collective: one more in c's group (a set of one rank meets itself). */
static int coll(Comm *c, const char *what)
{
    pthread_mutex_lock(&lock);
    int r = enter(c, what);
    if (!r)
        c->colls++;
    pthread_mutex_unlock(&lock);
    return r;
}

/* A send (send != 0) or receive between c's rank and peer. */
static int p2p(Comm *c, int peer, int send)
{
    pthread_mutex_lock(&lock);
    int r = c && (peer < 0 || peer >= c->nranks) ? NCCL_INVALID_ARGUMENT
                                                 : enter(c, send ? "ncclSend" : "ncclRecv");
    if (!r)
        (send ? c->sends : c->recvs)[peer]++;
    pthread_mutex_unlock(&lock);
    return r;
}

int ncclBroadcast(const void *s, void *r, size_t n, int t, int root, Comm *c, void *st);
int ncclBroadcast(const void *s, void *r, size_t n, int t, int root, Comm *c, void *st)
{
    (void)s, (void)r, (void)n, (void)t, (void)root, (void)st;
    return coll(c, "ncclBroadcast");
}

int ncclReduce(const void *s, void *r, size_t n, int t, int op, int root, Comm *c, void *st);
int ncclReduce(const void *s, void *r, size_t n, int t, int op, int root, Comm *c, void *st)
{
    (void)s, (void)r, (void)n, (void)t, (void)op, (void)root, (void)st;
    return coll(c, "ncclReduce");
}

int ncclAllGather(const void *s, void *r, size_t n, int t, Comm *c, void *st);
int ncclAllGather(const void *s, void *r, size_t n, int t, Comm *c, void *st)
{
    (void)s, (void)r, (void)n, (void)t, (void)st;
    return coll(c, "ncclAllGather");
}

int ncclReduceScatter(const void *s, void *r, size_t n, int t, int op, Comm *c, void *st);
int ncclReduceScatter(const void *s, void *r, size_t n, int t, int op, Comm *c, void *st)
{
    (void)s, (void)r, (void)n, (void)t, (void)op, (void)st;
    return coll(c, "ncclReduceScatter");
}

int ncclAllReduce(const void *s, void *r, size_t n, int t, int op, Comm *c, void *st);
int ncclAllReduce(const void *s, void *r, size_t n, int t, int op, Comm *c, void *st)
{
    (void)s, (void)r, (void)n, (void)t, (void)op, (void)st;
    return coll(c, "ncclAllReduce");
}

int ncclSend(const void *s, size_t n, int t, int peer, Comm *c, void *st);
int ncclSend(const void *s, size_t n, int t, int peer, Comm *c, void *st)
{
    (void)s, (void)n, (void)t, (void)st;
    return p2p(c, peer, 1);
}

int ncclRecv(void *r, size_t n, int t, int peer, Comm *c, void *st);
int ncclRecv(void *r, size_t n, int t, int peer, Comm *c, void *st)
{
    (void)r, (void)n, (void)t, (void)st;
    return p2p(c, peer, 0);
}

/* A finalize: at once for a set of one rank, else at its group's end. */
int ncclCommFinalize(Comm *c);
int ncclCommFinalize(Comm *c)
{
    pthread_mutex_lock(&lock);
    int r = enter(c, "ncclCommFinalize");
    if (!r && depth)
        c->finalizing = 1;
    else if (!r) {
        c->finalized = 1;
        nfinalized++;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

int ncclGroupStart(void);
int ncclGroupStart(void)
{
    depth++;
    return NCCL_OK;
}

/* Whether the ranks of c's set meet in the open group: the same number
 * of collectives on each, every send with its receive (a send to itself
 * too), every rank finalizing or none. A rank destroyed takes no part. */
static int meets(const Comm *c)
{
    if (c->sends[c->rank] != c->recvs[c->rank])
        return 0;
    for (const Comm *q = all; q; q = q->next) {
        if (q->set != c->set || q == c)
            continue;
        if (!q->live || q->colls != c->colls || q->finalizing != c->finalizing ||
            c->sends[q->rank] != q->recvs[c->rank] ||
            c->recvs[q->rank] != q->sends[c->rank])
            return 0;
    }
    return 1;
}

/* The open group ends: each touched communicator's ranks must meet; its
 * finalize completes; its group counts start again. */
static int group_end(void)
{
    int r = NCCL_OK;
    for (Comm *c = all; c; c = c->next)
        if (c->touched && c->live && !meets(c) && !r)
            r = stuck(c, "a group whose ranks do not all take part");
    for (Comm *c = all; c; c = c->next) {
        if (c->touched && c->finalizing && !r) {
            c->finalized = 1;
            nfinalized++;
        }
        c->touched = c->finalizing = 0;
        c->colls = 0;
        for (int q = 0; q < c->nranks; q++)
            c->sends[q] = c->recvs[q] = 0;
    }
    return r;
}

int ncclGroupEnd(void);
int ncclGroupEnd(void)
{
    if (depth < 1)
        return NCCL_INVALID_USAGE;
    if (--depth)
        return NCCL_OK;
    pthread_mutex_lock(&lock);
    int r = group_end();
    pthread_mutex_unlock(&lock);
    return r;
}
