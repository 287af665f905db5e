/* plan.c - the threads backend's plan of a schedule (plan.h). */
#include "threads/plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

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

void plan_free(Plan *pl)
{
    free(pl->rp);
    free(pl->xf);
    free(pl->xstaged);
    free(pl->xchan);
    sched_fuse_free(&pl->fuse);
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
    WaitRec *v = grow_array(wl->v, &wl->cap, wl->n + 1, sizeof *v, 256);
    if (!v) {
        wl->oom = 1;
        return;
    }
    wl->v = v;
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
    if (!pl->xf || !pl->xstaged || !pl->xchan || !pl->sends)
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

/* The pushes (plan_push_all) of pulled transfers that are not staged:
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
        (min_bytes && plan_push_all(s, cores, min_bytes, pl->xpush)))
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

int plan_build(Plan *pl, const Schedule *s, const uint8_t *stg, size_t eager,
               size_t push, int cores)
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
    bad = bad || sched_fuse_build(&pl->fuse, s) != CV_OK;
    if (!bad)
        plan_waits(&done, &staging, &m, s, stg, chan);
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

/* ------------------------------------------- the schedule, as run here */

/* Pushes of step k (plan_push_all); load[r] = elements rank r performs
 * and recv[r] = it receives, both zero on entry and on return. */
static void push_step(const Schedule *s, size_t k, int cores, size_t min_bytes,
                      double *load, uint8_t *recv, size_t *push)
{
    size_t first = s->steps[k].first, end = first + s->steps[k].n;
    size_t es = dtype_size(s->call.dtype);
    size_t line = (min_bytes < 64 ? min_bytes : 64) / es;
    line = line ? line : 1;
    int busy = 0;
    for (size_t i = first; i < end; i++) {
        const Transfer *t = &s->xfers[i];
        busy += !recv[t->dst];
        recv[t->dst] = 1;
        load[t->dst] += (double)t->count;
    }
    for (size_t i = first; busy < cores && i < end; i++) {
        const Transfer *t = &s->xfers[i];
        if (t->src == t->dst || recv[t->src] || t->count * es < min_bytes)
            continue;
        double half = (load[t->dst] - load[t->src]) / 2;
        size_t n = half < (double)t->count ? (size_t)fmax(half, 0) : t->count;
        /* the destination's part ends on a line boundary */
        size_t cut = t->dst_off + t->count - n;
        cut = (cut + line - 1) / line * line;
        n = cut < t->dst_off + t->count ? t->dst_off + t->count - cut : 0;
        if (!n || n * es < min_bytes / 2)
            continue;
        push[i] = n;
        load[t->dst] -= (double)n;
        load[t->src] += (double)n;
    }
    for (size_t i = first; i < end; i++) {
        const Transfer *t = &s->xfers[i];
        load[t->src] = load[t->dst] = 0;
        recv[t->dst] = 0;
    }
}

CvError plan_push_all(const Schedule *s, int cores, size_t min_bytes,
                       size_t *push)
{
    size_t p = (size_t)s->call.nranks;
    if (cores < 2 || p < 2)
        return CV_OK;
    double *load = calloc(p, sizeof *load);
    uint8_t *recv = calloc(p, 1);
    if (!load || !recv) {
        free(load), free(recv);
        return CV_ERR_NOMEM;
    }
    for (size_t k = 0; k < s->nsteps; k++)
        push_step(s, k, cores, min_bytes ? min_bytes : 1, load, recv, push);
    free(load);
    free(recv);
    return CV_OK;
}

/* Kahn's algorithm: take ranks nobody left sends to, one at a time; a
 * cycle is what is left. The edges (one per transfer between ranks) are
 * grouped by source: first[r] .. first[r + 1] in dst[]. */
int plan_one_way(const Schedule *s)
{
    size_t p = (size_t)s->call.nranks;
    size_t *first = calloc(p + 2, sizeof *first), *indeg = calloc(p, sizeof *indeg);
    size_t *queue = malloc((p + 1) * sizeof *queue);
    int32_t *dst = malloc((s->nxfers + 1) * sizeof *dst);
    int ok = first && indeg && queue && dst;
    for (size_t i = 0; ok && i < s->nxfers; i++)
        if (s->xfers[i].src != s->xfers[i].dst) {
            first[s->xfers[i].src + 2]++;
            indeg[s->xfers[i].dst]++;
        }
    for (size_t r = 2; ok && r <= p; r++)
        first[r] += first[r - 1];
    for (size_t i = 0; ok && i < s->nxfers; i++) /* first[r + 1]: filling */
        if (s->xfers[i].src != s->xfers[i].dst)
            dst[first[s->xfers[i].src + 1]++] = s->xfers[i].dst;
    size_t head = 0, tail = 0;
    for (size_t r = 0; ok && r < p; r++)
        if (!indeg[r])
            queue[tail++] = r;
    while (ok && head < tail) {
        size_t r = queue[head++];
        for (size_t i = first[r]; i < first[r + 1]; i++)
            if (--indeg[dst[i]] == 0)
                queue[tail++] = (size_t)dst[i];
    }
    free(first), free(indeg), free(queue), free(dst);
    return ok ? tail == p : -1;
}
