#define _GNU_SOURCE /* sched_getcpu */
/* exec_threads.c - the threads backend (see exec_threads.h).
 *
 * Sections: waiting (flags, adaptive spin, futex), the plan (which
 * transfers are eager, who waits for whom; built once per schedule by the
 * caller's thread), rank work (what a worker thread does in a phase),
 * commands (how the caller's thread drives the workers), and the ExecOps
 * table. */
#include "threads/exec_threads.h"

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "threads/copy.h"
#include "core/data.h"
#include "threads/probe_cross.h"
#include "core/reduce.h"

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

#define CACHE_LINE 64
#define STACK_BYTES (256u * 1024u)
#define HUGE_PAGE ((size_t)2 << 20)
/* Per-rank step timestamps kept by one run (older iterations dropped). */
#define MAX_STAMPS (1u << 16)

/* ============================================================ waiting */

/* A counter that only grows, on its own cache line, the number of threads
 * asleep on it (so that a publisher calls the kernel only when somebody
 * sleeps), and the cpu it was last published from. */
typedef struct {
    alignas(CACHE_LINE) _Atomic uint32_t value; /* the counter */
    _Atomic uint32_t sleepers; /* threads in futex_wait on value */
    _Atomic int32_t cpu;       /* cpu of the last publish, -1 unknown */
} Flag;

/* How one thread waits: spin, then yield, then sleep on a futex. The spin
 * adapts: it doubles (up to max_ns) when it ends in success and halves
 * (down to max_ns / 4) when it runs out, because it only helps while the
 * thread that will publish is running on another core, which other load
 * on the machine, or more ranks than cores, make rare. */
typedef struct {
    long spin_ns; /* current spin budget, nanoseconds */
    long max_ns;  /* the longest spin */
    int yields;   /* sched_yield calls before sleeping */
} Waiter;

static inline int reached(uint32_t v, uint32_t target)
{
    return (int32_t)(v - target) >= 0; /* wraps safely */
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#if defined(__linux__) && defined(__GLIBC__)
static int current_cpu(void) { return sched_getcpu(); }
#else
static int current_cpu(void) { return -1; }
#endif

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void futex_wait(_Atomic uint32_t *w, uint32_t v)
{
#ifdef __linux__
    syscall(SYS_futex, (void *)w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
#else
    (void)w, (void)v;
    nanosleep(&(struct timespec){.tv_nsec = 20000}, NULL);
#endif
}

static void futex_wake(_Atomic uint32_t *w)
{
#ifdef __linux__
    syscall(SYS_futex, (void *)w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#else
    (void)w;
#endif
}

static inline int flag_ready(Flag *f, uint32_t target)
{
    return reached(atomic_load_explicit(&f->value, memory_order_acquire),
                   target);
}

/* Spin while the publisher may be running elsewhere; 1 when ready. */
static int flag_spin(Flag *f, uint32_t target, Waiter *w)
{
    int theirs = atomic_load_explicit(&f->cpu, memory_order_relaxed);
    if (w->spin_ns <= 0 || (theirs >= 0 && theirs == current_cpu()))
        return 0; /* it last ran here, where we run: it is not running */
    long start = now_ns();
    for (unsigned i = 1;; i++) {
        cpu_relax();
        if (flag_ready(f, target)) {
            w->spin_ns = w->spin_ns < w->max_ns / 2 ? 2 * w->spin_ns : w->max_ns;
            return 1;
        }
        if (i % 64 == 0 && now_ns() - start > w->spin_ns)
            break;
    }
    w->spin_ns = w->spin_ns / 2 > w->max_ns / 4 ? w->spin_ns / 2 : w->max_ns / 4;
    return 0;
}

/* Yield the core w->yields times; 1 when ready meanwhile. */
static int flag_yield(Flag *f, uint32_t target, const Waiter *w)
{
    for (int y = 0; y < w->yields; y++) {
        sched_yield();
        if (flag_ready(f, target))
            return 1;
    }
    return 0;
}

/* Wait until f->value reaches target. The sleeper count and the value are
 * seq_cst on both sides (Dekker): either the publisher sees the sleeper
 * or the sleeper sees the new value; the futex rechecks it atomically. */
static void flag_wait(Flag *f, uint32_t target, Waiter *w)
{
    if (flag_ready(f, target) || flag_spin(f, target, w) ||
        flag_yield(f, target, w))
        return;
    for (;;) {
        atomic_fetch_add(&f->sleepers, 1);
        uint32_t v = atomic_load(&f->value);
        if (!reached(v, target))
            futex_wait(&f->value, v);
        atomic_fetch_sub(&f->sleepers, 1);
        if (flag_ready(f, target))
            return;
    }
}

static void flag_wake_if_sleepers(Flag *f)
{
    if (atomic_load(&f->sleepers))
        futex_wake(&f->value);
}

static void flag_publish(Flag *f, uint32_t v)
{
    atomic_store_explicit(&f->cpu, current_cpu(), memory_order_relaxed);
    atomic_store(&f->value, v);
    flag_wake_if_sleepers(f);
}

/* =============================================================== plan */

/* Wait until rank `rank` has completed the phase `lag` phases before the
 * current one (lag 0: the previous phase). */
typedef struct {
    int32_t rank; /* whose done counter */
    uint32_t lag; /* phases back */
} Wait;

/* Transfers of at most eager_bytes (ExecOptions) between two ranks are
 * eager, as MPI's small messages are: the source copies the data into a
 * ring of slots (a channel from it to the destination) at its own pace,
 * and the destination takes it from there. Neither waits for the other's
 * step, so ranks that share a core run several iterations per time slice
 * instead of switching threads at every step. Larger transfers are pulled
 * in place (zero copy). By default transfers up to EAGER_BYTES are eager
 * when ranks outnumber cores, or when data flows one way (sched_one_way:
 * a source that never hears from its destinations runs ahead, iterations
 * overlap; measured on 2 cores, p = 2, 8 bytes: broadcast 80-100 ns eager
 * against 140-150 pulled); otherwise all are pulled, which costs one
 * cache-line handoff less per transfer where ranks wait for each other
 * anyway (p = 2: allreduce 0.20 us pulled against 0.35 us eager). */
#define EAGER_BYTES 4096
#define EAGER_DEPTH 8                    /* slots per channel, at least */
#define EAGER_DEPTH_MAX 256              /* slots per channel, at most */
#define EAGER_RING ((size_t)64 << 10)    /* bytes a ring aims at */
#define EAGER_BUDGET ((size_t)32 << 20)  /* bytes of all rings, at most */

/* A small transfer the source puts into a channel. */
typedef struct {
    const Transfer *t; /* the transfer */
    int32_t chan;      /* its channel */
} Send;

/* What one rank does in one phase. */
typedef struct {
    size_t e0;     /* its eager sends: plan.sends[e0 .. e0 + ne) */
    size_t ne;     /* number of those */
    size_t x0;     /* its transfers: plan.xf[x0 .. x0 + nx) */
    size_t nx;     /* transfers it performs (it is their destination) */
    size_t w0;     /* its waits on done counters: plan.waits[w0 .. +nw) */
    size_t nw;     /* number of those waits */
    size_t s0;     /* ranks whose staging it waits for: plan.swaits[s0..] */
    size_t ns;     /* number of those ranks */
    size_t nstage; /* elements of sources it stages first */
    size_t p0;     /* its pushes (it is their source): plan.pushes[p0..] */
    size_t np;     /* number of those */
    size_t q0;     /* ranks pushing into it: plan.pushers[q0 .. q0 + nq) */
    size_t nq;     /* number of those (one per pushed transfer) */
} RankPhase;

/* Everything the workers need about a schedule, built by the caller's
 * thread at load and read-only afterwards.
 *
 * One iteration has nphases phases: the steps, avg's finish, and a return
 * phase. In the return phase a rank "writes" all its buffers (the caller
 * may reuse them once a collective returns), so it waits there for every
 * rank that read them, and a rank that reads them in the next iteration
 * waits for it to have returned: back-to-back timed iterations are
 * coupled as real calls are, and never overlap by more. */
typedef struct {
    size_t nsteps;          /* steps of the schedule */
    bool finish;            /* phase nsteps is avg's finish */
    size_t nphases;         /* steps, the finish, and the return phase */
    RankPhase *rp;          /* [rank * nphases + phase] */
    const Transfer **xf;    /* transfers grouped by (destination, phase) */
    uint8_t *xstaged;       /* parallel to xf: stage the source first */
    int32_t *xchan;         /* parallel to xf: its channel, -1: pulled */
    const Transfer **xinit; /* [transfer]: in timed runs, a reduce whose
                               destination a local copy of the previous
                               step filled starts from that copy's source
                               instead (NULL: no such; sched_fuse_all) */
    uint8_t *xskip;         /* [transfer]: a copy the next step's reduce
                               takes over in timed runs */
    size_t *xpush;          /* [transfer]: elements at its end that its
                               source performs (sched_push_all) */
    const Transfer **pushes; /* pushed transfers by (source, phase) */
    int32_t *pushers;       /* their sources by (destination, phase) */
    Send *sends;            /* eager transfers grouped by (source, phase) */
    size_t nchans;          /* channels */
    size_t *chan_slot;      /* [channel]: bytes per slot */
    uint32_t *chan_depth;   /* [channel]: slots */
    Wait *waits;            /* grouped by (rank, phase) */
    int32_t *swaits;        /* grouped by (rank, phase) */
    size_t *stage_elems;    /* [rank]: stage elements it needs */
} Plan;

/* A wait attached to (owner, phase) while the plan is built. */
typedef struct {
    int32_t owner;  /* rank that waits */
    uint32_t phase; /* phase at which it waits */
    int32_t rank;   /* rank waited for */
    uint32_t lag;   /* as in Wait (unused for staging waits) */
} WaitRec;

/* A growing array of WaitRec. */
typedef struct {
    WaitRec *v;   /* records */
    size_t n;     /* used */
    size_t cap;   /* allocated */
    int oom;      /* an allocation failed */
} WaitList;

static void plan_free(Plan *pl)
{
    free(pl->rp);
    free(pl->xf);
    free(pl->xstaged);
    free(pl->xchan);
    free(pl->xinit);
    free(pl->xskip);
    free(pl->xpush);
    free(pl->pushes);
    free(pl->pushers);
    free(pl->sends);
    free(pl->chan_slot);
    free(pl->chan_depth);
    free(pl->waits);
    free(pl->swaits);
    free(pl->stage_elems);
    memset(pl, 0, sizeof *pl);
}

static void wl_push(WaitList *wl, int owner, size_t phase, int rank,
                    size_t lag)
{
    if (wl->n == wl->cap) {
        size_t cap = wl->cap ? 2 * wl->cap : 256;
        WaitRec *v = realloc(wl->v, cap * sizeof *v);
        if (!v) {
            wl->oom = 1;
            return;
        }
        wl->v = v, wl->cap = cap;
    }
    wl->v[wl->n++] = (WaitRec){owner, (uint32_t)phase, rank, (uint32_t)lag};
}

static int waitrec_cmp(const void *a, const void *b)
{
    const WaitRec *x = a, *y = b;
    if (x->owner != y->owner)
        return x->owner < y->owner ? -1 : 1;
    if (x->phase != y->phase)
        return x->phase < y->phase ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->lag > y->lag) - (x->lag < y->lag);
}

/* The phases each rank writes its own buffers in, and around every phase
 * its nearest such phases before and after (cyclically: iterations repeat
 * the phases). */
typedef struct {
    uint8_t *wr;    /* [r * L + k]: rank r writes in phase k */
    int32_t *prevw; /* [r * L + k]: last phase before k (cyclic) r writes
                       in, or -1 when it never writes */
    int32_t *nextw; /* [r * L + k]: first phase after k (cyclic) r writes
                       in, or -1 */
    size_t L;       /* phases per iteration */
} WriteMap;

/* Cyclic distance from phase a forward to phase b, in 1 .. L. */
static size_t cyc_dist(size_t a, size_t b, size_t L)
{
    size_t d = (b + L - a) % L;
    return d ? d : L;
}

/* Fill prevw and nextw of rank r from wr. */
static void writemap_rank(WriteMap *m, int r)
{
    size_t L = m->L, base = (size_t)r * L;
    int32_t last = -1, first = -1;
    for (size_t k = 0; k < L; k++)
        if (m->wr[base + k]) {
            last = (int32_t)k;
            first = first < 0 ? (int32_t)k : first;
        }
    for (size_t k = 0; k < L; k++) {
        m->prevw[base + k] = last;
        if (m->wr[base + k])
            last = (int32_t)k;
    }
    for (size_t k = L; k-- > 0;) {
        m->nextw[base + k] = first;
        if (m->wr[base + k])
            first = (int32_t)k;
    }
}

static int writemap_build(WriteMap *m, const Schedule *s, size_t L)
{
    int p = s->call.nranks;
    size_t n = (size_t)p * L + 1;
    m->L = L;
    m->wr = calloc(n, 1);
    m->prevw = malloc(n * sizeof *m->prevw);
    m->nextw = malloc(n * sizeof *m->nextw);
    if (!m->wr || !m->prevw || !m->nextw)
        return -1;
    for (size_t k = 0; k < s->nsteps; k++)
        for (size_t i = 0; i < s->steps[k].n; i++)
            m->wr[(size_t)s->xfers[s->steps[k].first + i].dst * L + k] = 1;
    for (int r = 0; L > s->nsteps + 1 && r < p; r++) { /* finish */
        CollLayout l;
        coll_layout(&s->call, r, &l);
        m->wr[(size_t)r * L + s->nsteps] = l.out_count > 0;
    }
    for (int r = 0; r < p; r++) /* return: the caller may touch them */
        m->wr[(size_t)r * L + L - 1] = 1;
    for (int r = 0; r < p; r++)
        writemap_rank(m, r);
    return 0;
}

static void writemap_free(WriteMap *m)
{
    free(m->wr);
    free(m->prevw);
    free(m->nextw);
}

/* Record the waits transfer t (in phase k) implies. Read after write: the
 * destination waits for the source's last write before k. Write after
 * read: the source's next write after k waits for the destination's read.
 * Staging: the source's write in k waits for the destination's copy. */
static void plan_xfer_waits(WaitList *done, WaitList *stg, const WriteMap *m,
                            const Transfer *t, size_t k, int staged)
{
    size_t L = m->L, s = (size_t)t->src;
    if (t->src == t->dst) /* local work: program order */
        return;
    int32_t pw = m->prevw[s * L + k], nw = m->nextw[s * L + k];
    if (pw >= 0)
        wl_push(done, t->dst, k, t->src, cyc_dist((size_t)pw, k, L) - 1);
    if (nw >= 0)
        wl_push(done, t->src, (size_t)nw, t->dst,
                cyc_dist(k, (size_t)nw, L) - 1);
    if (staged)
        wl_push(stg, t->src, k, t->dst, 0);
}

/* Sort and deduplicate (keeping the smallest lag), then store the ranks
 * and lags grouped by (owner, phase) into the plan. */
static int plan_store_waits(Plan *pl, WaitList *wl, int staging)
{
    if (wl->n)
        qsort(wl->v, wl->n, sizeof *wl->v, waitrec_cmp);
    size_t n = 0;
    for (size_t i = 0; i < wl->n; i++) {
        WaitRec *a = &wl->v[i], *b = n ? &wl->v[n - 1] : NULL;
        if (b && a->owner == b->owner && a->phase == b->phase &&
            a->rank == b->rank)
            continue; /* sorted by lag: the first kept is the smallest */
        wl->v[n++] = *a;
    }
    Wait *w = staging ? NULL : malloc((n + 1) * sizeof *w);
    int32_t *sw = staging ? malloc((n + 1) * sizeof *sw) : NULL;
    if (!w && !sw)
        return -1;
    for (size_t i = 0; i < n; i++) {
        RankPhase *ph = &pl->rp[(size_t)wl->v[i].owner * pl->nphases +
                                wl->v[i].phase];
        size_t *first = staging ? &ph->s0 : &ph->w0;
        size_t *cnt = staging ? &ph->ns : &ph->nw;
        if (!*cnt)
            *first = i;
        (*cnt)++;
        if (staging)
            sw[i] = wl->v[i].rank;
        else
            w[i] = (Wait){wl->v[i].rank, wl->v[i].lag};
    }
    if (staging)
        pl->swaits = sw;
    else
        pl->waits = w;
    return 0;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Channel of eager transfer t among the sorted keys, or -1 (pulled). */
static int32_t chan_find(const uint64_t *keys, size_t n, const Transfer *t,
                         int p)
{
    uint64_t key = (uint64_t)t->src * (uint64_t)p + (uint64_t)t->dst;
    const uint64_t *k = n ? bsearch(&key, keys, n, sizeof *keys, u64_cmp) : NULL;
    return k ? (int32_t)(k - keys) : -1;
}

/* Deepen the channels from their least depths (pl->chan_depth): a deeper
 * ring lets a source run further ahead of its destination, so that ranks
 * sharing a core switch less often (on 2 cores with 4 ranks a broadcast
 * of 8 bytes took 0.50 us per call with 8 slots, 0.17 us with 256). Each
 * ring aims at EAGER_RING bytes, all of them together stay within
 * EAGER_BUDGET; 1 when even the least depths do not fit. */
static int plan_deepen(Plan *pl)
{
    size_t n = pl->nchans;
    uint32_t *least = malloc((n + 1) * sizeof *least);
    if (!least)
        return -1;
    memcpy(least, pl->chan_depth, n * sizeof *least);
    for (size_t cap = EAGER_DEPTH_MAX;; cap /= 2) {
        size_t total = 0;
        for (size_t c = 0; c < n; c++) {
            size_t want = EAGER_RING / pl->chan_slot[c];
            want = want < cap ? want : cap;
            pl->chan_depth[c] = want > least[c] ? (uint32_t)want : least[c];
            total += pl->chan_depth[c] * pl->chan_slot[c];
        }
        if (total <= EAGER_BUDGET || cap <= 1) {
            free(least);
            return total > EAGER_BUDGET;
        }
    }
}

/* Size the channels: slots fit the largest message, and there are more
 * slots than messages a channel carries in one step (so a full ring only
 * ever waits for earlier steps). All pulled when over EAGER_BUDGET. */
static int plan_size_chans(Plan *pl, const Schedule *s, const int32_t *chan)
{
    size_t es = dtype_size(s->call.dtype), n = pl->nchans;
    size_t *last = malloc((n + 1) * sizeof *last), *cnt = calloc(n + 1, sizeof *cnt);
    pl->chan_slot = calloc(n + 1, sizeof *pl->chan_slot);
    pl->chan_depth = malloc((n + 1) * sizeof *pl->chan_depth);
    int bad = !last || !cnt || !pl->chan_slot || !pl->chan_depth;
    for (size_t c = 0; !bad && c < n; c++)
        last[c] = SIZE_MAX, pl->chan_depth[c] = EAGER_DEPTH;
    for (size_t k = 0; !bad && k < s->nsteps; k++)
        for (size_t i = 0; i < s->steps[k].n; i++) {
            size_t x = s->steps[k].first + i;
            int32_t c = chan[x];
            if (c < 0)
                continue;
            size_t bytes = (s->xfers[x].count * es + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
            pl->chan_slot[c] = bytes > pl->chan_slot[c] ? bytes : pl->chan_slot[c];
            cnt[c] = last[c] == k ? cnt[c] + 1 : 1;
            last[c] = k;
            if (cnt[c] >= pl->chan_depth[c])
                pl->chan_depth[c] = (uint32_t)cnt[c] + 1;
        }
    free(last);
    free(cnt);
    return bad ? -1 : plan_deepen(pl);
}

/* Which transfers are eager and through which channel: chan[x] for every
 * transfer x (-1: pulled). NULL when out of memory. */
static int32_t *plan_channels(Plan *pl, const Schedule *s, size_t eager)
{
    int p = s->call.nranks;
    size_t es = dtype_size(s->call.dtype), n = 0;
    int32_t *chan = malloc((s->nxfers + 1) * sizeof *chan);
    uint64_t *keys = malloc((s->nxfers + 1) * sizeof *keys);
    if (!chan || !keys) {
        free(chan), free(keys);
        return NULL;
    }
    for (size_t x = 0; x < s->nxfers; x++) {
        const Transfer *t = &s->xfers[x];
        if (t->src != t->dst && t->count * es <= eager)
            keys[n++] = (uint64_t)t->src * (uint64_t)p + (uint64_t)t->dst;
    }
    if (n)
        qsort(keys, n, sizeof *keys, u64_cmp);
    pl->nchans = 0;
    for (size_t i = 0; i < n; i++)
        if (!i || keys[i] != keys[i - 1])
            keys[pl->nchans++] = keys[i];
    for (size_t x = 0; x < s->nxfers; x++) {
        const Transfer *t = &s->xfers[x];
        chan[x] = t->src != t->dst && t->count * es <= eager
                      ? chan_find(keys, pl->nchans, t, p) : -1;
    }
    free(keys);
    int over = plan_size_chans(pl, s, chan);
    for (size_t x = 0; over > 0 && x < s->nxfers; x++)
        chan[x] = -1;
    if (over > 0)
        pl->nchans = 0;
    if (over < 0)
        free(chan);
    return over < 0 ? NULL : chan;
}

/* Place each transfer of the schedule into its (rank, phase) group: at
 * the destination (pl->xf), and when eager also at the source
 * (pl->sends). Counts first (ne, nx), then offsets, then the entries. */
static void plan_place(Plan *pl, const Schedule *s, const uint8_t *stg,
                       const int32_t *chan, int pass)
{
    size_t L = pl->nphases;
    for (size_t k = 0; k < s->nsteps; k++)
        for (size_t i = 0; i < s->steps[k].n; i++) {
            size_t x = s->steps[k].first + i;
            const Transfer *t = &s->xfers[x];
            RankPhase *dph = &pl->rp[(size_t)t->dst * L + k];
            RankPhase *sph = &pl->rp[(size_t)t->src * L + k];
            if (pass == 0) {
                dph->nx++;
                sph->ne += chan[x] >= 0;
                continue;
            }
            int staged = stg[x] && chan[x] < 0; /* eager: captured early */
            pl->xf[dph->x0 + dph->nx] = t;
            pl->xchan[dph->x0 + dph->nx] = chan[x];
            pl->xstaged[dph->x0 + dph->nx++] = (uint8_t)staged;
            if (chan[x] >= 0)
                pl->sends[sph->e0 + sph->ne++] = (Send){t, chan[x]};
            dph->nstage += staged ? t->count : 0;
            if (pl->stage_elems[t->dst] < dph->nstage)
                pl->stage_elems[t->dst] = dph->nstage;
        }
}

/* Group the transfers by (destination, phase) into pl->xf and the eager
 * ones also by (source, phase) into pl->sends. */
static int plan_group_xfers(Plan *pl, const Schedule *s, const uint8_t *stg,
                            const int32_t *chan)
{
    size_t n = (size_t)s->call.nranks * pl->nphases;
    pl->xf = malloc((s->nxfers + 1) * sizeof *pl->xf);
    pl->xstaged = malloc(s->nxfers + 1);
    pl->xchan = malloc((s->nxfers + 1) * sizeof *pl->xchan);
    pl->sends = malloc((s->nxfers + 1) * sizeof *pl->sends);
    pl->xinit = calloc(s->nxfers + 1, sizeof *pl->xinit);
    pl->xskip = calloc(s->nxfers + 1, 1);
    if (!pl->xf || !pl->xstaged || !pl->xchan || !pl->sends || !pl->xinit ||
        !pl->xskip)
        return -1;
    plan_place(pl, s, stg, chan, 0);
    size_t at = 0, et = 0;
    for (size_t i = 0; i < n; i++) {
        pl->rp[i].x0 = at, pl->rp[i].e0 = et;
        at += pl->rp[i].nx, et += pl->rp[i].ne;
        pl->rp[i].nx = 0, pl->rp[i].ne = 0;
    }
    plan_place(pl, s, stg, chan, 1);
    return 0;
}

/* The pushes (sched_push_all) of pulled transfers that are not staged:
 * at the source (pl->pushes, by (source, phase)) and at the destination,
 * which waits for the pushing ranks (pl->pushers). min_bytes 0: none. */
static int plan_pushes(Plan *pl, const Schedule *s, const uint8_t *stg,
                       const int32_t *chan, size_t min_bytes, int cores)
{
    size_t L = pl->nphases;
    pl->xpush = calloc(s->nxfers + 1, sizeof *pl->xpush);
    pl->pushes = malloc((s->nxfers + 1) * sizeof *pl->pushes);
    pl->pushers = malloc((s->nxfers + 1) * sizeof *pl->pushers);
    if (!pl->xpush || !pl->pushes || !pl->pushers ||
        (min_bytes && sched_push_all(s, cores, min_bytes, pl->xpush)))
        return -1;
    for (size_t x = 0; x < s->nxfers; x++)
        if (chan[x] >= 0 || stg[x])
            pl->xpush[x] = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; pass && i < (size_t)s->call.nranks * L; i++) {
            pl->rp[i].p0 = i ? pl->rp[i - 1].p0 + pl->rp[i - 1].np : 0;
            pl->rp[i].q0 = i ? pl->rp[i - 1].q0 + pl->rp[i - 1].nq : 0;
        }
        for (size_t i = 0; pass && i < (size_t)s->call.nranks * L; i++)
            pl->rp[i].np = pl->rp[i].nq = 0;
        for (size_t k = 0; k < s->nsteps; k++)
            for (size_t x = s->steps[k].first; x < s->steps[k].first + s->steps[k].n; x++) {
                const Transfer *t = &s->xfers[x];
                RankPhase *sph = &pl->rp[(size_t)t->src * L + k];
                RankPhase *dph = &pl->rp[(size_t)t->dst * L + k];
                if (!pl->xpush[x])
                    continue;
                if (pass) {
                    pl->pushes[sph->p0 + sph->np] = t;
                    pl->pushers[dph->q0 + dph->nq] = t->src;
                }
                sph->np++, dph->nq++;
            }
    }
    return 0;
}

/* Record the waits of every pulled transfer. */
static void plan_waits(WaitList *done, WaitList *stg, const WriteMap *m,
                       const Schedule *s, const uint8_t *staged,
                       const int32_t *chan)
{
    for (size_t k = 0; k < s->nsteps; k++)
        for (size_t i = 0; i < s->steps[k].n; i++) {
            size_t x = s->steps[k].first + i;
            if (chan[x] < 0)
                plan_xfer_waits(done, stg, m, &s->xfers[x], k, staged[x]);
        }
}

/* Build the plan of schedule s with the validator's staged flags; eager:
 * the largest eager transfer in bytes (0: none); push: the smallest
 * transfer an idle source may push in part (0: none), on `cores` cores. */
static int plan_build(Plan *pl, const Schedule *s, const uint8_t *stg,
                      size_t eager, size_t push, int cores)
{
    int p = s->call.nranks;
    bool fin = s->call.op == OP_AVG && coll_is_reducing(s->call.kind);
    memset(pl, 0, sizeof *pl);
    pl->nsteps = s->nsteps;
    pl->finish = fin;
    pl->nphases = s->nsteps + (fin ? 1 : 0) + 1;
    size_t L = pl->nphases;
    pl->rp = calloc((size_t)p * L, sizeof *pl->rp);
    pl->stage_elems = calloc((size_t)p, sizeof *pl->stage_elems);
    int32_t *chan = pl->rp && pl->stage_elems ? plan_channels(pl, s, eager) : NULL;
    WriteMap m = {0};
    WaitList done = {0}, staging = {0};
    int bad = !chan || plan_group_xfers(pl, s, stg, chan) ||
              plan_pushes(pl, s, stg, chan, push, cores) ||
              writemap_build(&m, s, L);
    if (!bad) {
        sched_fuse_all(s, pl->xinit, pl->xskip);
        plan_waits(&done, &staging, &m, s, stg, chan);
    }
    bad = bad || done.oom || staging.oom ||
          plan_store_waits(pl, &done, 0) || plan_store_waits(pl, &staging, 1);
    writemap_free(&m);
    free(done.v);
    free(staging.v);
    free(chan);
    if (bad)
        plan_free(pl);
    return bad ? -1 : 0;
}

/* ========================================================= rank work */

typedef enum {
    CMD_LOAD,   /* allocate buffers for the schedule, then CMD_RESET */
    CMD_RESET,  /* inputs filled, everything else poisoned */
    CMD_PHASE,  /* execute one phase (a step, or the finish) */
    CMD_RUN,    /* warmup + timed iterations of the whole schedule */
    CMD_QUIT,   /* free the rank's memory and end the thread */
    CMD_COUNT
} CmdKind;

/* A command from the caller's thread to every worker. */
typedef struct {
    CmdKind kind;   /* what to do */
    size_t phase;   /* CMD_PHASE: which phase */
    uint32_t epoch; /* phases executed before this command */
    int warmup;     /* CMD_RUN: untimed iterations */
    int iters;      /* CMD_RUN: timed iterations */
    size_t stamp_iters; /* CMD_RUN: iterations whose steps are stamped */
    uint32_t run;   /* CMD_RUN: its number, the gate's value */
} Cmd;

typedef struct ThreadsExec ThreadsExec;

/* A one-way channel for eager transfers from one rank to another. Each
 * side remembers the other's counter as it last read it and reads it
 * again only when that is not enough: a line the other side keeps
 * writing is a cache miss at every read. */
typedef struct {
    Flag produced;       /* messages the source has put in */
    Flag consumed;       /* messages the destination has taken out */
    alignas(CACHE_LINE) uint32_t seen_consumed; /* the source's copy */
    alignas(CACHE_LINE) uint32_t seen_produced; /* the destination's */
    unsigned char *ring; /* depth slots of slot bytes */
    size_t slot;         /* bytes per slot */
    uint32_t depth;      /* slots */
} Channel;

/* One rank: its flags, its buffers, its thread. */
typedef struct {
    Flag done;   /* phases this rank completed (since open) */
    Flag staged; /* phases whose staging copies it completed */
    Flag entered; /* phases whose waits and staging it completed, so that
                     ranks pushing into its buffers may write (published
                     only in phases with pushes into it) */
    alignas(CACHE_LINE) unsigned char *buf[BUF_COUNT]; /* its buffers */
    size_t cap[BUF_COUNT]; /* bytes allocated per buffer */
    unsigned char *stage;  /* copies of sources a step overwrites */
    size_t stage_cap;      /* bytes allocated for stage */
    long *stamps;          /* [iteration * nphases + phase]: end times, ns */
    size_t stamps_cap;     /* longs allocated for stamps */
    long t0;               /* CMD_RUN: start of the timed iterations, ns */
    long t1;               /* CMD_RUN: end of the timed iterations, ns */
    CvError err;           /* the last command's error */
    Waiter wait;           /* how it waits for other ranks */
    Waiter idle;           /* how it waits for a command */
    int id;                /* rank number */
    pthread_t thread;      /* the worker */
    ThreadsExec *ex;       /* the executor it belongs to */
} Rank;

struct ThreadsExec {
    Executor base;         /* ops, schedule, ranks */
    Rank *ranks;           /* [nranks], cache-line aligned */
    int started;           /* worker threads running */
    Flag cmd;              /* commands published so far */
    Flag acks;             /* commands completed, summed over workers */
    Flag gate;             /* CMD_RUN: timed iterations may begin */
    _Atomic int arrived;   /* CMD_RUN: ranks at the gate */
    Cmd c;                 /* the current command (read-only while it runs) */
    uint32_t ncmds;        /* commands issued */
    uint32_t epoch;        /* phases executed by every rank since open */
    uint32_t nruns;        /* CMD_RUN commands issued */
    Waiter main_wait;      /* how the caller waits for the workers */
    int check_steps;       /* ExecOptions.check_steps */
    int eager_opt;         /* ExecOptions.eager_bytes */
    size_t eager_bytes;    /* largest eager transfer of the schedule
                              loaded (0: none) */
    size_t push_bytes;     /* smallest pushed transfer (0: none) */
    int cpus;              /* CPUs it may use (exec_cpus), at open */
    ReduceFn red;          /* the loaded schedule's kernels (reduce.h) */
    Reduce3Fn red3;
    size_t stream_bytes;   /* copies of at least this many bytes stream
                              (copy.h); SIZE_MAX: none do */
    Plan plan;             /* of the loaded schedule */
    Channel *chans;        /* [plan.nchans] */
    unsigned char *rings;  /* the channels' slots, one allocation */
    char err[256];         /* last error sentence, "" when none */
};

static size_t es_of(const ThreadsExec *x)
{
    return dtype_size(x->base.sched->call.dtype);
}

static const RankPhase *phase_of(const Rank *me, size_t k)
{
    const Plan *pl = &me->ex->plan;
    return &pl->rp[(size_t)me->id * pl->nphases + k];
}

/* Put this phase's eager transfers into their channels. They read only
 * this rank's own buffers, which hold the state before the step (its
 * writes of the step come later), so no other rank is waited for, except
 * when a ring is full. */
static void phase_sends(Rank *me, const RankPhase *ph)
{
    ThreadsExec *x = me->ex;
    size_t es = es_of(x);
    const Send *sd = x->plan.sends + ph->e0;
    for (size_t i = 0; i < ph->ne; i++) {
        Channel *c = &x->chans[sd[i].chan];
        const Transfer *t = sd[i].t;
        uint32_t n = atomic_load_explicit(&c->produced.value, memory_order_relaxed);
        if (!reached(c->seen_consumed, n + 1 - c->depth)) {
            flag_wait(&c->consumed, n + 1 - c->depth, &me->wait);
            c->seen_consumed = atomic_load_explicit(&c->consumed.value,
                                                    memory_order_acquire);
        }
        memcpy(c->ring + (size_t)(n % c->depth) * c->slot,
               me->buf[t->src_buf] + t->src_off * es, t->count * es);
        flag_publish(&c->produced, n + 1);
    }
}

/* The next message of channel c, once it has arrived. */
static const unsigned char *chan_take(Rank *me, Channel *c)
{
    uint32_t n = atomic_load_explicit(&c->consumed.value, memory_order_relaxed);
    if (!reached(c->seen_produced, n + 1)) {
        flag_wait(&c->produced, n + 1, &me->wait);
        c->seen_produced = atomic_load_explicit(&c->produced.value,
                                                memory_order_acquire);
    }
    return c->ring + (size_t)(n % c->depth) * c->slot;
}

/* Wait for every rank this phase depends on. */
static void phase_waits(Rank *me, const RankPhase *ph, uint32_t e)
{
    ThreadsExec *x = me->ex;
    const Wait *w = x->plan.waits + ph->w0;
    for (size_t i = 0; i < ph->nw; i++)
        flag_wait(&x->ranks[w[i].rank].done, e - w[i].lag, &me->wait);
}

/* Copy the sources this phase overwrites into the stage, tell the ranks
 * whose writes wait for it, and wait for the copies of our own readers. */
static void phase_stage(Rank *me, const RankPhase *ph, uint32_t e)
{
    ThreadsExec *x = me->ex;
    size_t es = es_of(x), at = 0;
    for (size_t i = 0; ph->nstage && i < ph->nx; i++) {
        const Transfer *t = x->plan.xf[ph->x0 + i];
        if (!x->plan.xstaged[ph->x0 + i])
            continue;
        memcpy(me->stage + at, x->ranks[t->src].buf[t->src_buf] +
                                   t->src_off * es, t->count * es);
        at += t->count * es;
    }
    if (ph->nstage)
        flag_publish(&me->staged, e + 1);
    const int32_t *sw = x->plan.swaits + ph->s0;
    for (size_t i = 0; i < ph->ns; i++)
        flag_wait(&x->ranks[sw[i]].staged, e + 1, &me->wait);
}

/* Copy-in fusion (sched_fuse_all): in a timed run, a reduce whose
 * destination the previous step filled by a local copy from the send
 * buffer computes dst = init op src and the copy is skipped: one pass
 * over memory instead of two, the same operands in the same order, so the
 * results are the same bit for bit. Steps run one at a time (the TUI)
 * never fuse: after each of them the buffers hold what the schedule says.
 * With the three-operand kernel in one pass where there is one (red3),
 * else a block at a time, copied and reduced while it is in the cache. */
#define FUSE_BLOCK ((size_t)8 << 10)

static void reduce_from(ReduceFn red, Reduce3Fn red3, unsigned char *dst,
                        const unsigned char *init, const unsigned char *src,
                        size_t n, size_t es)
{
    if (red3) {
        red3(dst, init, src, n);
        return;
    }
    size_t per = FUSE_BLOCK / es;
    for (size_t i = 0; i < n; i += per) {
        size_t m = n - i < per ? n - i : per;
        memcpy(dst + i * es, init + i * es, m * es);
        red(dst + i * es, src + i * es, m);
    }
}

/* Elements [from, from + n) of transfer t, its source's elements at src
 * (the transfer's first), into its destination's buffer; fused: a timed
 * run (reduce_from). Performed by the destination, or for a pushed tail
 * by the source. */
static void xfer_part(ThreadsExec *x, const Transfer *t,
                      const unsigned char *src, size_t from, size_t n,
                      bool fused)
{
    const Schedule *s = x->base.sched;
    size_t es = es_of(x);
    const Transfer *init = fused ? x->plan.xinit[t - s->xfers] : NULL;
    unsigned char *const *db = x->ranks[t->dst].buf;
    unsigned char *dst = db[t->dst_buf] + (t->dst_off + from) * es;
    src += from * es;
    if (t->op == XFER_COPY && t->count * es >= x->stream_bytes)
        copy_stream(dst, src, n * es);
    else if (t->op == XFER_COPY)
        memcpy(dst, src, n * es);
    else if (init)
        reduce_from(x->red, x->red3, dst,
                    db[init->src_buf] + (init->src_off + from) * es, src, n,
                    es);
    else
        x->red(dst, src, n);
}

/* Perform the phase's transfers (this rank is their destination), all
 * but the tails their sources push; fused: a timed run (reduce_from). */
static void phase_xfers(Rank *me, const RankPhase *ph, bool fused)
{
    ThreadsExec *x = me->ex;
    const Schedule *s = x->base.sched;
    size_t es = es_of(x), at = 0;
    for (size_t i = 0; i < ph->nx; i++) {
        const Transfer *t = x->plan.xf[ph->x0 + i];
        size_t ti = (size_t)(t - s->xfers);
        int32_t ch = x->plan.xchan[ph->x0 + i];
        const unsigned char *src;
        if (fused && x->plan.xskip[ti])
            continue; /* a local copy, never eager or staged */
        if (ch >= 0) {
            src = chan_take(me, &x->chans[ch]);
        } else if (x->plan.xstaged[ph->x0 + i]) {
            src = me->stage + at;
            at += t->count * es;
        } else {
            src = x->ranks[t->src].buf[t->src_buf] + t->src_off * es;
        }
        xfer_part(x, t, src, 0, t->count - x->plan.xpush[ti], fused);
        if (ch >= 0) /* the slot may be reused */
            flag_publish(&x->chans[ch].consumed,
                         atomic_load_explicit(&x->chans[ch].consumed.value,
                                              memory_order_relaxed) + 1);
    }
}

/* Push the tails of this phase's pushed transfers (this rank is their
 * source and receives nothing in the phase, so its buffers hold the state
 * before the step), each once its destination may be written. */
static void phase_pushes(Rank *me, const RankPhase *ph, uint32_t e, bool fused)
{
    ThreadsExec *x = me->ex;
    size_t es = es_of(x);
    for (size_t i = 0; i < ph->np; i++) {
        const Transfer *t = x->plan.pushes[ph->p0 + i];
        size_t n = x->plan.xpush[t - x->base.sched->xfers];
        flag_wait(&x->ranks[t->dst].entered, e + 1, &me->wait);
        xfer_part(x, t, me->buf[t->src_buf] + t->src_off * es, t->count - n,
                  n, fused);
    }
}

/* Wait for the ranks pushing into this rank's buffers in this phase. */
static void phase_pushed(Rank *me, const RankPhase *ph, uint32_t e)
{
    ThreadsExec *x = me->ex;
    for (size_t i = 0; i < ph->nq; i++)
        flag_wait(&x->ranks[x->plan.pushers[ph->q0 + i]].done, e + 1,
                  &me->wait);
}

/* avg: divide this rank's outputs by p. */
static void phase_finish(Rank *me)
{
    const CollCall *c = &me->ex->base.sched->call;
    CollLayout l;
    coll_layout(c, me->id, &l);
    reduce_finish(c->dtype, c->op, me->buf[l.out_buf] + l.out_off * dtype_size(c->dtype),
                  l.out_count, c->nranks);
}

/* Execute phase k as the epoch-th phase since open; fused: in a timed
 * run (copy-in fusion, reduce_from). */
static void rank_phase(Rank *me, size_t k, uint32_t e, bool fused)
{
    const RankPhase *ph = phase_of(me, k);
    phase_sends(me, ph);
    phase_waits(me, ph, e);
    if (k < me->ex->plan.nsteps) {
        phase_stage(me, ph, e);
        if (ph->nq)
            flag_publish(&me->entered, e + 1);
        phase_pushes(me, ph, e, fused);
        phase_xfers(me, ph, fused);
        phase_pushed(me, ph, e);
    } else if (k == me->ex->plan.nsteps && me->ex->plan.finish) {
        phase_finish(me);
    }
    flag_publish(&me->done, e + 1);
}

/* Inputs filled, every other element poisoned. */
static void rank_reset(Rank *me)
{
    const Schedule *s = me->ex->base.sched;
    DataType t = s->call.dtype;
    for (int b = 0; b < BUF_COUNT; b++)
        data_fill_poison(t, me->buf[b], sched_bufsize(s, me->id, (BufId)b));
    CollLayout l;
    coll_layout(&s->call, me->id, &l);
    data_fill_input(&s->call, me->id, 0, l.in_count,
                    me->buf[l.in_buf] + l.in_off * dtype_size(t));
}

/* Memory for a buffer. Large ones are aligned to 2 MiB and asked for
 * transparent huge pages (on Linux): streaming copies and reductions run
 * about 1.5 times faster without a TLB miss every 4 KiB. */
static void *buf_alloc(size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (bytes >= HUGE_PAGE) {
        void *p = NULL;
        if (posix_memalign(&p, HUGE_PAGE, bytes))
            return NULL;
        madvise(p, bytes, MADV_HUGEPAGE); /* a hint: failure is harmless */
        return p;
    }
#endif
    return malloc(bytes ? bytes : 1);
}

/* Make *p hold at least `bytes` (contents not kept). */
static int ensure(unsigned char **p, size_t *cap, size_t bytes)
{
    if (bytes <= *cap && *p)
        return 0;
    free(*p);
    *cap = 0;
    *p = buf_alloc(bytes);
    if (!*p)
        return -1;
    *cap = bytes;
    return 0;
}

/* Allocate (first touch: by this thread, in rank_reset) the buffers. */
static void rank_load(Rank *me)
{
    const Schedule *s = me->ex->base.sched;
    size_t es = es_of(me->ex);
    me->err = CV_OK;
    for (int b = 0; b < BUF_COUNT && !me->err; b++)
        if (ensure(&me->buf[b], &me->cap[b],
                   sched_bufsize(s, me->id, (BufId)b) * es))
            me->err = CV_ERR_NOMEM;
    if (!me->err && ensure(&me->stage, &me->stage_cap,
                           me->ex->plan.stage_elems[me->id] * es))
        me->err = CV_ERR_NOMEM;
    if (!me->err)
        rank_reset(me);
}

static void rank_free(Rank *me)
{
    for (int b = 0; b < BUF_COUNT; b++) {
        free(me->buf[b]);
        me->buf[b] = NULL, me->cap[b] = 0;
    }
    free(me->stage);
    free(me->stamps);
    me->stage = NULL, me->stamps = NULL;
    me->stage_cap = me->stamps_cap = 0;
}

/* One iteration of the whole schedule from epoch e; stamps each phase's
 * end into row (or not when NULL). Returns the next epoch. */
static uint32_t rank_iteration(Rank *me, uint32_t e, long *row)
{
    size_t n = me->ex->plan.nphases;
    for (size_t k = 0; k < n; k++) {
        rank_phase(me, k, e++, true);
        if (row)
            row[k] = now_ns();
    }
    return e;
}

/* Every rank arrives; the last one opens the gate for this run. */
static void rank_gate(Rank *me, uint32_t run)
{
    ThreadsExec *x = me->ex;
    if (atomic_fetch_add(&x->arrived, 1) == x->base.nranks - 1) {
        atomic_store(&x->arrived, 0);
        flag_publish(&x->gate, run);
    } else {
        flag_wait(&x->gate, run, &me->wait);
    }
}

/* Room for n stamps; 0 on success. */
static int stamps_room(Rank *me, size_t n)
{
    if (n <= me->stamps_cap)
        return 0;
    free(me->stamps);
    me->stamps = malloc(n * sizeof *me->stamps);
    me->stamps_cap = me->stamps ? n : 0;
    return me->stamps ? 0 : -1;
}

static void rank_run(Rank *me, const Cmd *c)
{
    size_t n = me->ex->plan.nphases;
    uint32_t e = c->epoch;
    me->err = CV_OK;
    if (stamps_room(me, c->stamp_iters * n))
        me->err = CV_ERR_NOMEM; /* still run: the others depend on us */
    for (int i = 0; i < c->warmup; i++)
        e = rank_iteration(me, e, NULL);
    rank_gate(me, c->run);
    me->t0 = now_ns();
    for (size_t i = 0; i < (size_t)c->iters; i++) {
        bool stamp = i < c->stamp_iters && !me->err;
        e = rank_iteration(me, e, stamp ? me->stamps + i * n : NULL);
    }
    me->t1 = now_ns();
}

static void rank_command(Rank *me, const Cmd *c)
{
    me->err = CV_OK;
    switch (c->kind) {
    case CMD_LOAD: rank_load(me); break;
    case CMD_RESET: rank_reset(me); break;
    case CMD_PHASE: rank_phase(me, c->phase, c->epoch, false); break;
    case CMD_RUN: rank_run(me, c); break;
    default: break;
    }
}

/* While every rank can have a CPU of its own, rank r stays on the r-th
 * CPU it may use. Left to the scheduler, two ranks woken together were
 * sometimes put on the same CPU and stayed there, taking turns through
 * sched_yield (measured on 2 cores, p = 2: a step's latency 1.5 us
 * instead of 0.06 us in some runs). More ranks than CPUs: no pinning, the
 * scheduler balances them. */
static void pin_rank(const ThreadsExec *x, int r)
{
    if (x->cpus >= x->base.nranks)
        exec_pin(r); /* a hint: a failure leaves the rank to the scheduler */
}

static void *rank_main(void *arg)
{
    Rank *me = arg;
    ThreadsExec *x = me->ex;
    pin_rank(x, me->id);
    for (uint32_t seen = 1;; seen++) {
        flag_wait(&x->cmd, seen, &me->idle);
        Cmd c = x->c;
        if (c.kind == CMD_QUIT)
            rank_free(me);
        else
            rank_command(me, &c);
        /* Only the last worker to finish wakes the caller. */
        if (atomic_fetch_add(&x->acks.value, 1) + 1 == seen * (uint32_t)x->started)
            flag_wake_if_sleepers(&x->acks);
        if (c.kind == CMD_QUIT)
            return NULL;
    }
}

/* ========================================================== commands */

/* Publish command c to every worker and wait until all have done it;
 * returns the first rank error. */
static CvError command(ThreadsExec *x, Cmd c)
{
    x->c = c;
    x->ncmds++;
    flag_publish(&x->cmd, x->ncmds);
    flag_wait(&x->acks, x->ncmds * (uint32_t)x->started, &x->main_wait);
    for (int r = 0; r < x->started; r++)
        if (x->ranks[r].err)
            return x->ranks[r].err;
    return CV_OK;
}

static CvError fail(ThreadsExec *x, CvError e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->err, sizeof x->err, fmt, ap);
    va_end(ap);
    return e;
}

/* Spin only while every rank can have a core: with more ranks than cores
 * a spinning waiter mostly holds the core the rank it waits for needs, so
 * there ranks yield at once. While each has one, spin long (200 us): a
 * rank that sleeps lets its core go idle, and waking an idle core costs
 * tens of microseconds on a virtual machine (measured on the 2-core one,
 * p = 2, allreduce of 1 MiB: a rank woke 30 us after its partner
 * published; 121 us per call with a 20 us spin, 101 us with 300 us). */
static void set_policies(ThreadsExec *x, const ExecOptions *opt)
{
    int cpus = x->cpus, p = x->base.nranks;
    long spin = opt && opt->spin_us > 0 ? opt->spin_us * 1000L
                : p <= cpus ? 200000L : 0;
    Waiter rank = {.spin_ns = spin, .max_ns = spin, .yields = 100};
    Waiter idle = {.spin_ns = p < cpus ? 20000L : 0, .max_ns = 20000L,
                   .yields = 16};
    for (int r = 0; r < p; r++)
        x->ranks[r].wait = rank, x->ranks[r].idle = idle;
    x->main_wait = (Waiter){.spin_ns = p < cpus ? 20000L : 0,
                            .max_ns = 20000L, .yields = 64};
}

static void threads_close(Executor *ex);

static CvError start_workers(ThreadsExec *x, char *why, size_t whylen)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, STACK_BYTES);
    int rc = 0;
    for (int r = 0; r < x->base.nranks && !rc; r++) {
        x->ranks[r].id = r;
        x->ranks[r].ex = x;
        rc = pthread_create(&x->ranks[r].thread, &attr, rank_main, &x->ranks[r]);
        if (!rc)
            x->started++;
    }
    pthread_attr_destroy(&attr);
    if (!rc)
        return CV_OK;
    snprintf(why, whylen, "the system refused to start thread %d of %d "
             "(error %d); try fewer ranks", x->started + 1, x->base.nranks, rc);
    return CV_ERR_BACKEND;
}

static CvError threads_open(Executor **out, int nranks,
                            const ExecOptions *opt, char *why, size_t whylen)
{
    *out = NULL;
    if (nranks < 1 || nranks > COLL_MAX_RANKS) {
        snprintf(why, whylen, "the threads backend runs 1 to %d ranks (one "
                 "thread each); %d were asked for", COLL_MAX_RANKS, nranks);
        return CV_ERR_RANKS;
    }
    ThreadsExec *x = aligned_alloc(CACHE_LINE, sizeof *x);
    Rank *ranks = aligned_alloc(CACHE_LINE, (size_t)nranks * sizeof *ranks);
    if (!x || !ranks) {
        free(x), free(ranks);
        snprintf(why, whylen, "out of memory starting %d ranks", nranks);
        return CV_ERR_NOMEM;
    }
    memset(x, 0, sizeof *x);
    memset(ranks, 0, (size_t)nranks * sizeof *ranks);
    x->base = (Executor){.ops = &exec_threads_ops, .nranks = nranks};
    x->ranks = ranks;
    x->cpus = exec_cpus();
    set_policies(x, opt);
    x->check_steps = opt ? opt->check_steps : 0;
    x->eager_opt = opt ? opt->eager_bytes : 0;
    long push = opt && opt->push_bytes ? opt->push_bytes
                                       : (long)SCHED_PUSH_BYTES;
    x->push_bytes = push < 0 ? 0 : (size_t)push;
    CvError e = start_workers(x, why, whylen);
    if (e) {
        threads_close(&x->base);
        return e;
    }
    *out = &x->base;
    return CV_OK;
}

/* ======================================================= operations */

static ThreadsExec *tx(Executor *ex) { return (ThreadsExec *)ex; }

/* Bytes of pl's stages (none without pl), or SIZE_MAX on overflow. */
static size_t stage_bytes(const Schedule *s, const Plan *pl)
{
    size_t es = dtype_size(s->call.dtype), total = 0;
    for (int r = 0; pl && r < s->call.nranks; r++) {
        if (pl->stage_elems[r] > (SIZE_MAX - total) / es)
            return SIZE_MAX;
        total += pl->stage_elems[r] * es;
    }
    return total;
}

/* Bytes the schedule's buffers (and, with pl, the stages) need in all, or
 * SIZE_MAX on overflow. */
static size_t bytes_needed(const Schedule *s, const Plan *pl)
{
    return exec_bytes_needed(s, stage_bytes(s, pl));
}

/* CV_OK when the buffers (and, with pl, the stages) fit in the machine's
 * memory (exec_check_fits). */
static CvError check_fits(ThreadsExec *x, const Schedule *s, const Plan *pl)
{
    char why[160];
    CvError e = exec_check_fits(s, stage_bytes(s, pl), why, sizeof why);
    return e ? fail(x, e, "%s", why) : CV_OK;
}

static void chans_free(ThreadsExec *x)
{
    free(x->chans);
    free(x->rings);
    x->chans = NULL, x->rings = NULL;
}

/* The channels of plan pl, empty, replacing the previous ones. */
static CvError chans_alloc(ThreadsExec *x, const Plan *pl)
{
    size_t n = pl->nchans, bytes = 0;
    for (size_t c = 0; c < n; c++)
        bytes += pl->chan_slot[c] * pl->chan_depth[c];
    chans_free(x);
    x->chans = n ? aligned_alloc(CACHE_LINE, n * sizeof *x->chans) : NULL;
    x->rings = n ? malloc(bytes) : NULL;
    if (n && (!x->chans || !x->rings)) {
        chans_free(x);
        return fail(x, CV_ERR_NOMEM, "out of memory for the eager channels");
    }
    if (n)
        memset(x->chans, 0, n * sizeof *x->chans);
    for (size_t c = 0, at = 0; c < n; c++) {
        x->chans[c].ring = x->rings + at;
        x->chans[c].slot = pl->chan_slot[c];
        x->chans[c].depth = pl->chan_depth[c];
        at += pl->chan_slot[c] * pl->chan_depth[c];
    }
    return CV_OK;
}

/* The largest eager transfer of schedule s (the comment at EAGER_BYTES). */
static size_t eager_for(const ThreadsExec *x, const Schedule *s)
{
    if (x->eager_opt)
        return x->eager_opt < 0 ? 0 : (size_t)x->eager_opt;
    if (x->base.nranks > x->cpus || sched_one_way(s) > 0)
        return EAGER_BYTES;
    return 0;
}

/* Check that the buffers fit (first: before anything sized by them is
 * allocated), validate s and build its plan. */
static CvError prepare(ThreadsExec *x, const Schedule *s)
{
    CvError e = check_fits(x, s, NULL);
    if (e)
        return e;
    SchedCheck chk;
    uint8_t *stg = malloc(s->nxfers + 1);
    if (!stg)
        return fail(x, CV_ERR_NOMEM, "out of memory loading the schedule");
    e = sched_validate(s, &chk, stg);
    if (e) {
        free(stg);
        return fail(x, e, "the schedule is not valid: %s (step %zu, transfer "
                    "%zu)", cv_strerror(e), chk.step, chk.xfer);
    }
    Plan pl;
    x->eager_bytes = eager_for(x, s);
    int bad = plan_build(&pl, s, stg, x->eager_bytes, x->push_bytes,
                         x->cpus);
    free(stg);
    if (bad)
        return fail(x, CV_ERR_NOMEM, "out of memory planning the schedule");
    if ((e = check_fits(x, s, &pl)) || (e = chans_alloc(x, &pl))) {
        plan_free(&pl);
        return e;
    }
    plan_free(&x->plan);
    x->plan = pl;
    x->stream_bytes = copy_stream_min(bytes_needed(s, &pl));
    x->red = reduce_fn(s->call.dtype, s->call.op);
    x->red3 = reduce3_fn(s->call.dtype, s->call.op);
    return CV_OK;
}

static CvError threads_load(Executor *ex, const Schedule *s)
{
    ThreadsExec *x = tx(ex);
    x->err[0] = 0;
    ex->sched = NULL; /* a failed load leaves nothing loaded */
    if (!s || s->call.nranks != ex->nranks)
        return fail(x, CV_ERR_ARG, "the schedule has %d ranks but the "
                    "executor was opened for %d", s ? s->call.nranks : 0,
                    ex->nranks);
    CvError e = prepare(x, s);
    if (e)
        return e;
    ex->sched = s;
    e = command(x, (Cmd){.kind = CMD_LOAD});
    if (e) {
        ex->sched = NULL;
        return fail(x, e, "could not allocate the ranks' buffers: %s",
                    cv_strerror(e));
    }
    return CV_OK;
}

static CvError need_sched(ThreadsExec *x)
{
    return x->base.sched ? CV_OK
                         : fail(x, CV_ERR_ARG, "no schedule is loaded");
}

static CvError threads_reset(Executor *ex)
{
    CvError e = need_sched(tx(ex));
    return e ? e : command(tx(ex), (Cmd){.kind = CMD_RESET});
}

static CvError run_phase(ThreadsExec *x, size_t k)
{
    CvError e = command(x, (Cmd){.kind = CMD_PHASE, .phase = k,
                                 .epoch = x->epoch});
    x->epoch++;
    return e;
}

static CvError threads_step(Executor *ex, size_t k)
{
    ThreadsExec *x = tx(ex);
    CvError e = need_sched(x);
    if (e)
        return e;
    if (k >= x->plan.nsteps)
        return fail(x, CV_ERR_ARG, "step %zu does not exist (the schedule "
                    "has %zu steps)", k, x->plan.nsteps);
    return run_phase(x, k);
}

static CvError threads_finish(Executor *ex)
{
    ThreadsExec *x = tx(ex);
    CvError e = need_sched(x);
    if (e || !x->plan.finish)
        return e;
    return run_phase(x, x->plan.nsteps);
}

/* Mean over the stamped iterations of each step's time, from the slowest
 * rank's end of the previous phase to the slowest rank's end of this one. */
static void step_times(ThreadsExec *x, size_t iters, double *step_s)
{
    size_t n = x->plan.nphases, ns = x->plan.nsteps;
    int p = x->base.nranks;
    long prev = LONG_MAX;
    for (int r = 0; r < p; r++)
        prev = x->ranks[r].t0 < prev ? x->ranks[r].t0 : prev;
    for (size_t k = 0; k < ns; k++)
        step_s[k] = 0;
    for (size_t i = 0; i < iters; i++)
        for (size_t k = 0; k < n; k++) {
            long end = 0;
            for (int r = 0; r < p; r++) {
                long v = x->ranks[r].stamps[i * n + k];
                end = v > end ? v : end;
            }
            if (k < ns)
                step_s[k] += (double)(end - prev) * 1e-9 / (double)iters;
            prev = end;
        }
}

static CvError threads_run(Executor *ex, int warmup, int iters, ExecTiming *t)
{
    ThreadsExec *x = tx(ex);
    CvError e = need_sched(x);
    if (e)
        return e;
    if (warmup < 0 || iters < 1 || !t)
        return fail(x, CV_ERR_ARG, "a run needs at least one timed iteration");
    size_t n = x->plan.nphases;
    bool stamp = t->step_s || x->check_steps;
    size_t si = stamp ? (MAX_STAMPS / n < (size_t)iters ? MAX_STAMPS / n : (size_t)iters) : 0;
    x->nruns++;
    e = command(x, (Cmd){.kind = CMD_RUN, .epoch = x->epoch, .warmup = warmup,
                         .iters = iters, .stamp_iters = si, .run = x->nruns});
    x->epoch += (uint32_t)((size_t)(warmup + iters) * x->plan.nphases);
    if (e)
        return fail(x, e, "the timed run failed: %s", cv_strerror(e));
    long t0 = LONG_MAX, t1 = 0;
    for (int r = 0; r < ex->nranks; r++) {
        t0 = x->ranks[r].t0 < t0 ? x->ranks[r].t0 : t0;
        t1 = x->ranks[r].t1 > t1 ? x->ranks[r].t1 : t1;
    }
    t->iter_s = (double)(t1 - t0) * 1e-9 / iters;
    if (t->step_s && si)
        step_times(x, si, t->step_s);
    return CV_OK;
}

static CvError threads_read(Executor *ex, int r, BufId b, size_t off,
                            size_t n, void *dst)
{
    ThreadsExec *x = tx(ex);
    CvError e = need_sched(x);
    if (e)
        return e;
    if (r < 0 || r >= ex->nranks || (unsigned)b >= BUF_COUNT)
        return fail(x, CV_ERR_ARG, "no buffer %d of rank %d", (int)b, r);
    size_t have = sched_bufsize(ex->sched, r, b);
    if (off > have || n > have - off)
        return fail(x, CV_ERR_BOUNDS, "elements %zu..%zu are outside rank "
                    "%d's %s buffer of %zu", off, off + n, r, buf_name(b), have);
    size_t es = es_of(x);
    if (n)
        memcpy(dst, x->ranks[r].buf[b] + off * es, n * es);
    return CV_OK;
}

static const char *threads_last_error(const Executor *ex)
{
    return ((const ThreadsExec *)ex)->err;
}

static void threads_close(Executor *ex)
{
    if (!ex)
        return;
    ThreadsExec *x = tx(ex);
    if (x->started)
        command(x, (Cmd){.kind = CMD_QUIT});
    for (int r = 0; r < x->started; r++)
        pthread_join(x->ranks[r].thread, NULL);
    plan_free(&x->plan);
    chans_free(x);
    free(x->ranks);
    free(x);
}

/* The machine's cross-core state, by probe.h's two threads pinned to the
 * first two CPUs (where ranks 0 and 1 run while every rank has a CPU of
 * its own): called between runs, while the ranks' threads wait idle. */
static CvError threads_probe(Executor *ex, ProbeResult *out)
{
    (void)ex;
    return probe_cross(PROBE_BLOCK, PROBE_SECONDS, out);
}

const ExecOps exec_threads_ops = {
    .name = "threads",
    .summary = "one thread per rank on this machine's cores",
    .open = threads_open,
    .load = threads_load,
    .reset = threads_reset,
    .step = threads_step,
    .finish = threads_finish,
    .run = threads_run,
    .read = threads_read,
    .probe = threads_probe,
    .last_error = threads_last_error,
    .close = threads_close,
};
