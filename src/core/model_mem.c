/* model_mem.c - a memory machine's steps (machine.h's MemLevel): the
 * ranks share one memory system, and a step costs its start and its
 * memory traffic over the medium (model.h's pricing of a step). */
#include "core/model.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"


/* A range of one rank's buffer that a step reads. */
typedef struct {
    int rank, buf;
    size_t lo, hi; /* elements [lo, hi) */
} Span;

static int span_cmp(const void *a, const void *b)
{
    const Span *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->buf != y->buf)
        return x->buf < y->buf ? -1 : 1;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Elements the spans cover: each element once (sorted and merged). */
static double spans_union(Span *sp, size_t n)
{
    qsort(sp, n, sizeof *sp, span_cmp);
    double total = 0;
    size_t lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        bool same = i && sp[i].rank == sp[i - 1].rank &&
                    sp[i].buf == sp[i - 1].buf;
        if (same && sp[i].lo <= hi) {
            hi = sp[i].hi > hi ? sp[i].hi : hi;
            continue;
        }
        total += (double)(hi - lo);
        lo = sp[i].lo, hi = sp[i].hi;
    }
    return total + (double)(hi - lo);
}

/* Whether ranges [a, a + n) and [b, b + m) of one rank's buffer meet. */
static bool meets(const Transfer *t, bool dst, int rank, int buf, size_t off,
                  size_t n)
{
    int r = dst ? t->dst : t->src, bf = dst ? t->dst_buf : t->src_buf;
    size_t o = dst ? t->dst_off : t->src_off;
    return r == rank && bf == buf && o < off + n && off < o + t->count;
}

/* MEM_FUSE_NEXT: a local copy from the send buffer in step k is left out
 * where a reduce of step k + 1 writes exactly its destination range and
 * no other transfer of that step reads or writes any of it. */
static void memx_next(Pricer *pr, const Schedule *s)
{
    for (size_t k = 0; k + 1 < s->nsteps; k++) {
        const Step *st = &s->steps[k], *nx = &s->steps[k + 1];
        for (size_t i = st->first; i < st->first + st->n; i++) {
            const Transfer *x = &s->xfers[i];
            if (x->src != x->dst || x->src_buf != BUF_SEND ||
                x->op != XFER_COPY)
                continue;
            int owners = 0, others = 0;
            for (size_t j = nx->first; j < nx->first + nx->n; j++) {
                const Transfer *y = &s->xfers[j];
                bool same = y->op == XFER_REDUCE && y->dst == x->dst &&
                            y->dst_buf == x->dst_buf &&
                            y->dst_off == x->dst_off && y->count == x->count;
                if (same)
                    owners++;
                else if (meets(y, true, x->dst, x->dst_buf, x->dst_off,
                               x->count) ||
                         meets(y, false, x->dst, x->dst_buf, x->dst_off,
                               x->count))
                    others++;
            }
            if (owners == 1 && others == 0)
                pr->memx[i] = MEMX_SKIP;
        }
    }
}

/* MEMX_FRESH: a transfer of step k reading another rank's buffer that a
 * step before k wrote (the writer's core holds its lines: its
 * destination does a transfer's work). Out of memory: none marked. */
static void memx_fresh(Pricer *pr, const Schedule *s)
{
    size_t n = (size_t)s->call.nranks * BUF_COUNT;
    size_t *first = malloc(n * sizeof *first);
    if (!first)
        return;
    for (size_t i = 0; i < n; i++)
        first[i] = SIZE_MAX;
    for (size_t k = 0; k < s->nsteps; k++) {
        const Step *st = &s->steps[k];
        for (size_t i = st->first; i < st->first + st->n; i++) {
            const Transfer *t = &s->xfers[i];
            size_t w = (size_t)t->src * BUF_COUNT + t->src_buf;
            if (t->src != t->dst && first[w] < k)
                pr->memx[i] |= MEMX_FRESH;
        }
        for (size_t i = st->first; i < st->first + st->n; i++) {
            size_t w = (size_t)s->xfers[i].dst * BUF_COUNT + s->xfers[i].dst_buf;
            first[w] = first[w] < k ? first[w] : k;
        }
    }
    free(first);
}

/* pr's view of s (Pricer.memx, Pricer.fp): what the backends do with a
 * written-out schedule as a whole (a compact one: nothing known, every
 * transfer as it stands), and the bytes of its buffers. Kept while s and
 * its transfers and count are the same. */
static CvError view_build(Pricer *pr, const Schedule *s)
{
    if (pr->view_of == s && pr->view_n == s->nxfers &&
        pr->view_count == s->call.count)
        return CV_OK;
    pr->view_of = NULL;
    if (s->nxfers + 1 > pr->memx_cap) {
        unsigned char *f = realloc(pr->memx, s->nxfers + 1);
        if (!f)
            return CV_ERR_NOMEM;
        pr->memx = f, pr->memx_cap = s->nxfers + 1;
    }
    memset(pr->memx, 0, s->nxfers + 1);
    if (!s->compact) {
        SchedFuse fu;
        MemFuse how = pr->m->mem.fuse;
        if (how == MEM_FUSE_NEXT)
            memx_next(pr, s);
        if (how == MEM_FUSE_WHOLE && sched_fuse_build(&fu, s) == CV_OK) {
            for (size_t i = 0; i < s->nxfers; i++)
                pr->memx[i] = fu.skip[i] ? MEMX_SKIP : 0;
            sched_fuse_free(&fu);
        }
        uint8_t *staged = calloc(s->nxfers + 1, 1);
        if (staged && sched_staged(s, staged) == CV_OK)
            for (size_t i = 0; i < s->nxfers; i++)
                pr->memx[i] |= staged[i] ? MEMX_STAGED : 0;
        free(staged);
        memx_fresh(pr, s);
    }
    pr->fp = (double)sched_bytes(s);
    pr->view_of = s, pr->view_n = s->nxfers, pr->view_count = s->call.count;
    return CV_OK;
}

/* A step on a memory machine (machine.h's MemLevel): one start whatever
 * its transfers, then its memory traffic over the medium. A copy reads
 * its source and writes its destination; a reduce reads both operands and
 * writes one; with shared reads each element a step reads is read once.
 * The traffic's rate follows the call's working set (the bytes of its
 * buffers: timed runs repeat the call, so whether they stay in the cache
 * is the whole call's question). The first step pays the call's start.
 * As the backends run a whole schedule, a copy-in that the fusion leaves
 * out costs nothing, and a transfer whose source the step overwrites is
 * staged first: a copy more (its bytes read and written) and a second
 * start for the step.
 * A transfer reading from another rank a buffer an earlier step of the
 * call wrote moves at the fresh rate where the level has one: a host's
 * core fetches those lines from the writer's cache.
 * Where a rank's work has a rate of its own (a core moves less than the
 * host's memory can: MemLevel's core rate), the traffic of the rank that
 * does the most (a transfer's destination does it) at that rate bounds
 * the step from below too.
 * Terms: a = the starts, b = the traffic's bytes, g = the most bytes a
 * rank reduces (gamma: what a rank's reducing costs beyond its traffic). */
/* What a memory step's live transfers do (memory_walk). */
typedef struct {
    double reads, writes; /* elements read (each once with shared reads)
                             and written, the stages' copies included */
    double fresh;         /* of those, the traffic of transfers reading
                             what another rank wrote in the call
                             (MEMX_FRESH) */
    size_t live;          /* transfers not fused away */
    bool staged;          /* a source staged first: a second start */
    bool between;         /* a transfer between two ranks */
} MemWalk;

/* Walk the transfers xs[0 .. nx) of a step of s: the ranks' reduced,
 * copied and moved bytes into pr, the slowest transfer's ranks into
 * out, the traffic into *w. */
static CvError memory_walk(Pricer *pr, const Schedule *s, const Transfer *xs,
                           size_t nx, StepPrice *out, MemWalk *w)
{
    double ts = (double)dtype_size(s->call.dtype), biggest = -1;
    Span *sp = pr->scratch; /* room: 2 spans a transfer */
    size_t n = 0;
    bool mine = xs >= s->xfers && xs < s->xfers + s->nxfers;
    *w = (MemWalk){0};
    for (size_t i = 0; i < nx; i++) {
        const Transfer *t = &xs[i];
        unsigned f = mine ? pr->memx[t - s->xfers] : 0;
        double b = (double)t->count * ts, c = (double)t->count;
        if (f & MEMX_SKIP)
            continue;
        w->live++;
        double own = 2 * c; /* read and written */
        if (f & MEMX_STAGED) /* read into the stage, written there */
            w->staged = true, w->writes += 2 * c, own *= 2;
        own += t->op == XFER_REDUCE ? c : 0;
        pricer_rank_work(pr, pr->moved, t->dst, own * ts);
        if (f & MEMX_FRESH)
            w->fresh += own;
        w->writes += c;
        sp[n++] = (Span){t->src, t->src_buf, t->src_off, t->src_off + t->count};
        if (t->op == XFER_REDUCE) {
            sp[n++] = (Span){t->dst, t->dst_buf, t->dst_off,
                             t->dst_off + t->count};
            pricer_rank_work(pr, pr->reduced, t->dst, b);
        } else if (t->src == t->dst) {
            pricer_rank_work(pr, pr->copied, t->dst, b);
        }
        w->between |= t->src != t->dst;
        if (b > biggest)
            biggest = b, out->crit_src = t->src, out->crit_dst = t->dst;
    }
    if (pr->m->mem.shared_reads)
        w->reads = spans_union(sp, n);
    else
        for (size_t i = 0; i < n; i++)
            w->reads += (double)(sp[i].hi - sp[i].lo);
    return CV_OK;
}

CvError pricer_memory_step(Pricer *pr, const Schedule *s, const Transfer *xs,
                           size_t nx, bool first, bool terms_only,
                           StepPrice *out)
{
    const Machine *m = pr->m;
    const MemLevel *ml = &m->mem;
    MemWalk w;
    if (pricer_scratch_fit(pr, nx) || view_build(pr, s))
        return CV_ERR_NOMEM;
    pricer_clear_loads(pr);
    CvError e = memory_walk(pr, s, xs, nx, out, &w);
    if (e)
        return e;
    double busiest = 0;
    for (int i = 0; i < pr->nrtouched; i++) {
        int r = pr->rtouched[i];
        out->terms.g = num_dmax(out->terms.g, pr->reduced[r]);
        out->copied = num_dmax(out->copied, pr->copied[r]);
        busiest = num_dmax(busiest, pr->moved[r]);
    }
    double traffic = (w.reads + w.writes) * (double)dtype_size(s->call.dtype);
    int medium = 2 * m->nranks;
    out->terms.a = w.live ? 1 + w.staged : 0;
    out->terms.b = traffic;
    out->terms.steps = w.between;
    if (w.live) {
        pricer_touch(pr, medium);
        pr->bytes[medium] = traffic;
        pr->msgs[medium] = (int)(w.live < INT_MAX ? w.live : INT_MAX);
    }
    if (terms_only)
        return CV_OK;
    double fp = pr->fp;
    out->t_alpha = out->terms.a * ml->step + (first ? ml->call : 0);
    /* the medium's rate, or one rank's where one does the most alone */
    double es = (double)dtype_size(s->call.dtype);
    double fresh = num_dmax(0, w.fresh * es < traffic ? w.fresh * es : traffic);
    out->t_beta = num_dmax((traffic - fresh) * machine_mem_beta(ml, fp) +
                           fresh * machine_mem_fresh_beta(ml, fp),
                       busiest * machine_mem_core_beta(ml, fp));
    out->busiest = w.live ? medium : -1;
    out->busiest_time = out->t_beta;
    out->time = out->t_alpha + out->t_beta + out->terms.g * m->gamma;
    return CV_OK;
}
