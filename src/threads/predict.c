/* predict.c - the threads backend's predictor (predict.h): a schedule's
 * time from a calibration, walking the schedule as the backend runs it. */
#include "threads/predict.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "threads/copy.h"
#include "threads/plan.h"
#include "core/num.h"


/* ------------------------------------------------- the shared memory */

/* How a byte's cost depends on the cache. The shift benchmark touches
 * every byte of its footprint F once per iteration, so each byte comes
 * back after F other bytes: its reuse distance is F. The calibrated
 * bandwidth at F is therefore a mix, w(F) of the cache's speed (the
 * fastest small working set) and 1 - w(F) of memory's (the largest):
 * w = (beta_mem - beta(F)) / (beta_mem - beta_cache). A schedule's bytes
 * are then charged by their own reuse distance, which is what lets a ring
 * that keeps revisiting its recv buffer run at cache speed while a single
 * pass over the same footprint does not.
 *
 * Memory is one bandwidth for the whole machine (one core nearly fills
 * it), but caches are per core: the cache share of a byte is work for the
 * core of the rank that moves it (in the threads backend the destination,
 * which also stages). So a step whose bytes fall on fewer ranks than
 * there are cores takes longer than its bytes over the whole machine's
 * cache bandwidth. */
typedef struct {
    double beta_cache; /* s/B, all cores busy, data in cache */
    double beta_mem;   /* s/B, data in memory */
    double beta_one;   /* s/B, data in memory, moved by one core alone */
    int cores;         /* cores the ranks run on: min(p, Calib.cores) */
    int n;             /* points of the weight curve */
    double dist[CALIB_MAX_POINTS]; /* reuse distances, increasing */
    double w[CALIB_MAX_POINTS];    /* cache share at dist[i], decreasing */
} CacheCurve;

/* Whether the cross curve describes reads of what another rank wrote:
 * every point measured (files older than it have none: there the shared
 * curve stands in), and every rank on a core of its own. Where ranks
 * outnumber the cores they take turns at them, and the cross benchmark's
 * small working sets time those turns (charged already as the steps'
 * latency) more than the way lines travel between caches: measured over
 * two bench runs of 4 and 8 ranks on 2 cores, 13 algorithms were within
 * 25% of the model at every size with the shared curve alone that were
 * not with the cross one, and 6 the other way round (at 2 ranks, one per
 * core, the cross curve is what makes 23 of them fit). */
static int has_cross(const Calib *c)
{
    if (calib_crowded(c))
        return 0;
    for (int i = 0; i < c->npoints; i++)
        if (!(c->pt[i].beta_cross > 0))
            return 0;
    return c->npoints > 0;
}

/* The curve of the shared bandwidths (cross: the cross ones). The shared
 * curve only falls with distance (monotone_down). The cross one need not:
 * a line another core wrote a short while ago is still in that core's
 * own cache and comes from there, slower than from the shared cache (even
 * slower than from memory: a share below 0, down to -1, and the extra is
 * the cores' work); once evicted to the shared cache it comes fast. */
static void curve_init(const Calib *c, CacheCurve *cv, int cross)
{
    int n = c->npoints;
#define BETA(i) (cross ? c->pt[i].beta_cross : c->pt[i].beta_shared)
    cv->beta_cache = BETA(0);
    for (int i = 1; i < (n + 1) / 2; i++) /* fastest of the small half */
        cv->beta_cache = fmin(cv->beta_cache, BETA(i));
    /* Memory: the slowest of the largest three working sets (one run of
     * the largest can be lucky). */
    cv->beta_mem = cv->beta_cache;
    for (int i = n > 3 ? n - 3 : 0; i < n; i++)
        cv->beta_mem = fmax(cv->beta_mem, BETA(i));
    cv->beta_one = cv->beta_mem;
    for (int i = n > 3 ? n - 3 : 0; i < n; i++)
        cv->beta_one = fmax(cv->beta_one, c->pt[i].beta_p2p);
    cv->cores = c->cores > 0 && c->cores < c->nranks ? c->cores : c->nranks;
    cv->cores = cv->cores > 0 ? cv->cores : 1;
    double span = cv->beta_mem - cv->beta_cache;
    cv->n = n;
    for (int i = 0; i < n; i++) {
        /* One bandwidth at every size: nothing to tell the cache by. */
        double w = span > 0 ? (cv->beta_mem - BETA(i)) / span : 0;
        cv->w[i] = fmin(fmax(w, cross ? -1.0 : 0.0), 1.0);
        cv->dist[i] = c->pt[i].footprint;
    }
#undef BETA
    if (!cross)
        calib_monotone_down(cv->w, n);
}

/* The cache share of a byte that comes back after d bytes. */
static double curve_weight(const CacheCurve *cv, double d)
{
    if (d <= cv->dist[0])
        return cv->w[0];
    for (int i = 1; i < cv->n; i++)
        if (d <= cv->dist[i]) {
            double f = log(d / cv->dist[i - 1]) / log(cv->dist[i] / cv->dist[i - 1]);
            return cv->w[i - 1] + f * (cv->w[i] - cv->w[i - 1]);
        }
    return cv->w[cv->n - 1];
}

/* Every rank's buffers, and the stage where the executor copies sources
 * that a step overwrites, as one address space cut into chunks, each with
 * the byte clock of its last touch. */
#define MEM_STAGE BUF_COUNT     /* the stage's slot after a rank's buffers */
#define MEM_SLOTS (BUF_COUNT + 1)

typedef struct {
    const Schedule *s;     /* the schedule */
    const uint8_t *staged; /* the validator's flags: source staged first */
    SchedFuse fuse;        /* the timed runs' copy-in fusion */
    size_t *push;          /* [transfer]: elements at its end its source
                              performs (plan_push_all) */
    const CacheCurve *cv;  /* the costs of bytes the toucher touched last */
    const CacheCurve *cx;  /* ... and of bytes another rank touched last */
    size_t ts;             /* bytes per element */
    size_t chunk;          /* bytes per chunk */
    size_t *base;          /* [r * MEM_SLOTS + slot]: first byte of region */
    double *last;          /* [chunk]: clock of its last touch, < 0: never */
    int32_t *owner;        /* [chunk]: r >= 0: written by rank r (dirty in
                              its core's cache); -2 - r: read last by rank
                              r (a clean copy there); -1: in no core */
    double clock;          /* bytes touched so far */
    size_t stream_min;     /* copies of this many bytes and more stream
                              (copy_stream_min) */
    int misses;            /* nonzero: the working set does not fit the
                              last-level cache, so a write that misses it
                              reads the line first (memmap_touch) */
    size_t *at;            /* [rank]: elements of its stage used this step */
    double *core;          /* [rank]: cache seconds of this step's bytes */
    double mem;            /* memory seconds of this step's bytes */
    double *memr;          /* [rank]: ... of its bytes, at one core's rate */
    MachineSlow slowed;    /* a straggler and a slow pair (Calib.slowed) */
} MemMap;

/* Elements of rank r's stage: the most any step stages into it. */
static size_t stage_elems(const Schedule *s, const uint8_t *staged, int r)
{
    size_t most = 0;
    for (size_t k = 0; k < s->nsteps; k++) {
        size_t n = 0, end = s->steps[k].first + s->steps[k].n;
        for (size_t i = s->steps[k].first; i < end; i++)
            n += staged[i] && s->xfers[i].dst == r ? s->xfers[i].count : 0;
        most = n > most ? n : most;
    }
    return most;
}

/* The copy-in fusion of s (sched_fuse_map) and its pushes (plan_push_all)
 * on `cores` cores, as the executors run them. */
static CvError memmap_fuse(MemMap *mm, const Schedule *s, int cores)
{
    mm->push = calloc(s->nxfers + 1, sizeof *mm->push);
    if (!mm->push || sched_fuse_build(&mm->fuse, s))
        return CV_ERR_NOMEM;
    return plan_push_all(s, cores, PLAN_PUSH_BYTES, mm->push);
}

static CvError memmap_init(MemMap *mm, const Schedule *s,
                           const uint8_t *staged, const CacheCurve *cv,
                           const CacheCurve *cx, int cores)
{
    size_t total = 0, p = (size_t)s->call.nranks;
    *mm = (MemMap){.s = s, .staged = staged, .cv = cv, .cx = cx,
                   .ts = dtype_size(s->call.dtype)};
    if (memmap_fuse(mm, s, cores))
        return CV_ERR_NOMEM;
    mm->base = malloc(p * MEM_SLOTS * sizeof *mm->base);
    for (size_t r = 0; mm->base && r < p; r++)
        for (size_t b = 0; b < MEM_SLOTS; b++) {
            mm->base[r * MEM_SLOTS + b] = total;
            total += mm->ts * (b == MEM_STAGE ? stage_elems(s, staged, (int)r)
                                              : s->bufsize[r * BUF_COUNT + b]);
        }
    mm->chunk = total / 262144 > 4096 ? total / 262144 : 4096;
    mm->stream_min = copy_stream_min(total);
    /* One as large as the cache does not fit either: the cache also holds
     * everything else (code, stacks, and on a shared cache the other
     * programs' data). Measured with 4 ranks, where every rank's buffers
     * come to 32 MiB together (the cache's size here): a linear gather of
     * 16 MiB and a pairwise alltoall of 4 MiB ran 1.40x and 1.82x a model
     * that had their writes hit, and run 1.06x and 1.38x this one (medians
     * of ten rounds in two bench runs). */
    mm->misses = total >= copy_cache_bytes();
    size_t chunks = total / mm->chunk + 1;
    mm->last = mm->base ? malloc(chunks * sizeof *mm->last) : NULL;
    mm->owner = malloc(chunks * sizeof *mm->owner);
    mm->at = malloc(p * sizeof *mm->at);
    mm->core = malloc(p * sizeof *mm->core);
    mm->memr = malloc(p * sizeof *mm->memr);
    for (size_t i = 0; mm->last && mm->owner && i < chunks; i++)
        mm->last[i] = -1, mm->owner[i] = -1;
    return mm->last && mm->owner && mm->at && mm->core && mm->memr
               ? CV_OK : CV_ERR_NOMEM;
}

static void memmap_fini(MemMap *mm)
{
    free(mm->base);
    free(mm->last);
    free(mm->owner);
    sched_fuse_free(&mm->fuse);
    free(mm->push);
    free(mm->at);
    free(mm->core);
    free(mm->memr);
}

/* How a transfer touches bytes. */
typedef enum {
    TOUCH_READ,   /* a read */
    TOUCH_WRITE,  /* a write: a store into a line not in the cache first
                     reads the line (copy.h), in a working set that does
                     not fit the last-level cache a read from memory more */
    TOUCH_RESULT, /* a reduction's write (the calibrated gamma holds what
                     it costs beyond a copy's) */
    TOUCH_STREAM  /* a streaming copy's write (copy.h): to memory, and
                     gone from the caches */
} Touch;

/* Rank `who` touches n elements of rank r's region `slot` from off, as
 * one side (half the cost) of a copy. A byte never touched before comes
 * from memory. A byte is cross (costs what the cross curve says) when
 * another rank's core holds its line and the touch needs that core: a
 * read of a line that core wrote (the line comes from there), a write to
 * a line that core has (its copy must go first, as when a rank overwrites
 * what its neighbour read the step before). Lines a rank reads are then
 * in its core's cache, clean. Memory's beta is a streamed copy's (the
 * calibration's largest working sets stream: copy.h's rule), so where the
 * working set does not fit the last-level cache, a copy's ordinary write
 * that misses the caches costs a second half, the line's read. */
static void memmap_touch(MemMap *mm, int who, int r, int slot, size_t off,
                         size_t n, Touch how)
{
    int write = how != TOUCH_READ, streamed = how == TOUCH_STREAM;
    double own = how == TOUCH_WRITE && mm->misses ? 2 : 1;
    size_t lo = mm->base[(size_t)r * MEM_SLOTS + (size_t)slot] + off * mm->ts;
    size_t hi = lo + n * mm->ts;
    for (size_t c = lo / mm->chunk; c * mm->chunk < hi; c++) {
        size_t a = c * mm->chunk > lo ? c * mm->chunk : lo;
        size_t e = (c + 1) * mm->chunk < hi ? (c + 1) * mm->chunk : hi;
        double d = mm->last[c] < 0 ? INFINITY : mm->clock - mm->last[c];
        int32_t o = mm->owner[c], held = o >= 0 ? o : o <= -2 ? -2 - o : -1;
        int cross = held >= 0 && held != who && (write || o >= 0);
        const CacheCurve *cv = cross ? mm->cx : mm->cv;
        double w = streamed ? 0 : curve_weight(cv, d);
        double half = 0.5 * (double)(e - a);
        mm->owner[c] = streamed ? -1 : write ? who : o == who ? o : -2 - who;
        /* w < 0 (cross, slower than memory): memory's cost, and the
         * rest is the core's */
        double wm = fmax(w, 0);
        mm->core[who] += half * (w >= 0 ? w * cv->beta_cache
                                        : w * (cv->beta_cache - cv->beta_mem));
        mm->mem += own * half * (1 - wm) * cv->beta_mem;
        mm->memr[who] += own * half * (1 - wm) * cv->beta_one;
        mm->clock += (double)(e - a);
        mm->last[c] = streamed ? -1 : mm->clock;
    }
}

/* Rank `who` copies (or reduces: how) n elements from (sr, ss, so) to
 * (dr, ds, dof). */
static void memmap_copy(MemMap *mm, int who, int sr, int ss, size_t so,
                        int dr, int ds, size_t dof, size_t n, Touch how)
{
    memmap_touch(mm, who, sr, ss, so, n, TOUCH_READ);
    memmap_touch(mm, who, dr, ds, dof, n, how);
}

/* Where transfer i reads: *buf and the offset of its first element (its
 * source, or the input a copy-in copied there: via). */
static size_t memmap_src(const MemMap *mm, size_t i, int *buf)
{
    const Transfer *x = &mm->s->xfers[i], *v = mm->fuse.via[i];
    *buf = v ? v->src_buf : x->src_buf;
    return v ? sched_fuse_at(v, x->src_off) : x->src_off;
}

/* Elements [from, from + n) of transfer i, not staged, moved by rank
 * `who` (its destination, or its source for a pushed tail). */
static void memmap_part(MemMap *mm, size_t i, int who, size_t from, size_t n,
                        Touch how)
{
    const Transfer *x = &mm->s->xfers[i], *in = mm->fuse.own[i];
    if (!n)
        return;
    if (in) /* the fused reduce also reads the copy's source */
        memmap_touch(mm, who, x->dst, in->src_buf,
                     sched_fuse_at(in, x->dst_off) + from, n, TOUCH_READ);
    int sb;
    size_t so = memmap_src(mm, i, &sb);
    memmap_copy(mm, who, x->src, sb, so + from, x->dst, x->dst_buf,
                x->dst_off + from, n, how);
}

/* Transfer i of a step, pass 0 (staging: the destination copies a source
 * the step overwrites into its stage) or pass 1 (the transfer itself). */
static void memmap_xfer(MemMap *mm, size_t i, int pass)
{
    const Transfer *x = &mm->s->xfers[i], *in = mm->fuse.own[i];
    int d = x->dst;
    /* a fused reduce writes a destination it did not read: streamed where
       a copy would be (reduce_from_stream), else an ordinary write */
    bool streams = x->count * mm->ts >= mm->stream_min;
    Touch how = x->op != XFER_COPY && !in ? TOUCH_RESULT
                : streams                 ? TOUCH_STREAM
                                          : TOUCH_WRITE;
    if (mm->fuse.skip[i])
        return;
    if (!mm->staged[i]) {
        size_t pushed = mm->push[i];
        if (pass) {
            memmap_part(mm, i, d, 0, x->count - pushed, how);
            memmap_part(mm, i, x->src, x->count - pushed, pushed, how);
        }
        return;
    }
    if (in && pass) /* the fused reduce also reads the copy's source */
        memmap_touch(mm, d, d, in->src_buf,
                     in->src_off + (x->dst_off - in->dst_off), x->count,
                     TOUCH_READ);
    int sb;
    size_t so = memmap_src(mm, i, &sb);
    if (pass)
        memmap_copy(mm, d, d, MEM_STAGE, mm->at[d], d, x->dst_buf, x->dst_off,
                    x->count, how);
    else /* memcpy (exec_threads.c) */
        memmap_copy(mm, d, x->src, sb, so, d, MEM_STAGE, mm->at[d], x->count,
                    TOUCH_WRITE);
    mm->at[d] += x->count;
}

/* Step k's bytes' seconds t (the busiest rank's own: own) with what runs
 * slower: a straggler's busy wait is slow - 1 times what its work took
 * in the step, where it shares the machine with the others, so it takes
 * the busiest rank's share of the step's time, its own in proportion; a
 * slow pair's transfers make their performer's (the destination's) part
 * for them link times as long, its bytes' share of its work. */
static double slowed_bytes(const MemMap *mm, size_t k, double t, double own)
{
    const MachineSlow *s = &mm->slowed;
    const Step *st = &mm->s->steps[k];
    int p = mm->s->call.nranks, r = s->rank, b = s->to;
    double most = t;
    if (!(own > 0))
        return t;
    if (s->slow > 1 && r >= 0 && r < p)
        most = fmax(most, s->slow * t * (mm->core[r] + mm->memr[r]) / own);
    if (s->link > 1 && b >= 0 && b < p) {
        double in = 0, pair = 0; /* bytes into b; of them from `from` */
        for (size_t i = st->first; i < st->first + st->n; i++) {
            const Transfer *x = &mm->s->xfers[i];
            if (x->dst == b && x->src != b)
                in += (double)x->count, pair += x->src == s->from
                                                    ? (double)x->count : 0;
        }
        double mine = t * (mm->core[b] + mm->memr[b]) / own;
        if (in > 0)
            most = fmax(most, mine * (1 + (s->link - 1) * pair / in));
    }
    return most;
}

/* Seconds of step k's bytes: the cache part spread over the cores but no
 * faster than its busiest rank on one core, plus the memory part. */
static double memory_step_bytes(MemMap *mm, size_t k)
{
    const Step *step = &mm->s->steps[k];
    int p = mm->s->call.nranks;
    double sum = 0, most = 0;
    mm->mem = 0;
    memset(mm->core, 0, (size_t)p * sizeof *mm->core);
    memset(mm->memr, 0, (size_t)p * sizeof *mm->memr);
    for (int pass = 0; pass < 2; pass++) {
        memset(mm->at, 0, (size_t)p * sizeof *mm->at);
        for (size_t i = step->first; i < step->first + step->n; i++)
            memmap_xfer(mm, i, pass);
    }
    double mem = mm->mem, own = 0; /* the busiest rank's own seconds */
    for (int r = 0; r < p; r++) {
        sum += mm->core[r], most = fmax(most, mm->core[r]);
        mem = fmax(mem, mm->memr[r]);
        own = fmax(own, mm->core[r] + mm->memr[r]);
    }
    double t = fmax(sum, most * mm->cv->cores) + mem;
    return slowed_bytes(mm, k, t, own);
}

/* Latency of step k: alpha, and the message latency for every message
 * beyond the first of the rank that sends or receives the most; with
 * messages like those the step latency was measured with (more than half
 * CALIB_LAT_BYTES), at least that latency for every round of receiving
 * ranks the cores take turns at (a step every rank receives in was
 * measured). *pulled: such a step. */
static double step_latency(const MemMap *mm, const Calib *c, double alpha,
                           size_t k, const RankStepStats *st, int *pulled)
{
    const Schedule *s = mm->s;
    const Step *step = &s->steps[k];
    int p = s->call.nranks, msgs = 0, receivers = 0;
    size_t largest = 0;
    for (int r = 0; r < p; r++) {
        msgs = num_max(msgs, num_max(st[r].msgs_out, st[r].msgs_in));
        receivers += st[r].msgs_in > 0;
    }
    for (size_t i = step->first; i < step->first + step->n; i++) {
        const Transfer *x = &s->xfers[i];
        if (x->src != x->dst && x->count * mm->ts > largest)
            largest = x->count * mm->ts;
    }
    double lat = msgs ? alpha + (msgs - 1) * c->alpha_msg : 0;
    if (!(c->lat_step > 0) || largest <= CALIB_LAT_BYTES / 2 || !receivers)
        return lat;
    int cores = mm->cv->cores;
    *pulled = 1;
    double rounds = ceil((double)receivers / cores) / ceil((double)p / cores);
    return fmax(lat, c->lat_step * rounds);
}

/* Seconds of step k on one shared memory system: its latency
 * (step_latency), its bytes (memory_step_bytes), and every byte reduced
 * anywhere (gamma each). */
static double memory_step_time(MemMap *mm, const Calib *c,
                               const ModelParams *m, size_t k,
                               RankStepStats *st, int *pulled)
{
    const Schedule *s = mm->s;
    const Step *step = &s->steps[k];
    double red = 0, slow_red = 0; /* bytes reduced; the straggler's */
    int slow_rank = mm->slowed.slow > 1 ? mm->slowed.rank : -1;
    if (sched_step_stats(s, k, st))
        return 0;
    for (size_t i = step->first; i < step->first + step->n; i++)
        if (s->xfers[i].op == XFER_REDUCE) {
            double b = (double)(s->xfers[i].count * mm->ts);
            red += b;
            slow_red += s->xfers[i].dst == slow_rank ? b : 0;
        }
    if (slow_rank >= 0)
        red += (mm->slowed.slow - 1) * slow_red;
    return step_latency(mm, c, m->alpha, k, st, pulled) +
           memory_step_bytes(mm, k) + red * m->gamma;
}

/* The shared-memory prediction: the schedule run twice through the cache
 * curve, the second run timed (a timed run follows warm-up runs), plus
 * the iteration's latency when its messages are large enough. */
static CvError predict_shared(const Calib *c, const Schedule *s,
                              const ModelParams *m, double *seconds)
{
    CacheCurve cv, cx;
    MemMap mm = {0};
    curve_init(c, &cv, 0);
    curve_init(c, &cx, has_cross(c));
    uint8_t *staged = malloc(s->nxfers + 1);
    RankStepStats *st = malloc((size_t)s->call.nranks * sizeof *st);
    CvError e = staged && st ? CV_OK : CV_ERR_NOMEM;
    if (!e)
        e = sched_validate(s, &(SchedCheck){0}, staged);
    if (!e)
        e = memmap_init(&mm, s, staged, &cv, &cx, c->cores);
    mm.slowed = c->slowed;
    for (int run = 0; run < 2 && !e; run++) {
        int pulled = 0;
        *seconds = 0;
        for (size_t k = 0; k < s->nsteps; k++)
            *seconds += memory_step_time(&mm, c, m, k, st, &pulled);
        *seconds += pulled ? c->lat_iter : 0;
    }
    memmap_fini(&mm);
    free(staged);
    free(st);
    return e;
}

CvError threads_predict(const Calib *c, const Schedule *s, MachineKind k,
                        double *seconds)
{
    if (k != MACHINE_BUS)
        return calib_model_cost(c, s, k, seconds);
    ModelParams m = calib_params(c, k, calib_footprint(s));
    *seconds = 0;
    return c->npoints ? predict_shared(c, s, &m, seconds) : CV_ERR_ARG;
}
