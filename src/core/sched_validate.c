/* sched_validate.c - checking a schedule's transfers: in bounds, no two
 * of a step writing one range or reading what another writes unless it
 * is staged, and the collective's outputs all written (sched.h's
 * sched_validate, sched_staged). */
#include "core/sched.h"

#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------- validation */

/* An element range [lo, hi) of one rank's buffer, tagged with its transfer. */
typedef struct {
    uint64_t key; /* rank * BUF_COUNT + buf */
    size_t lo;    /* first element */
    size_t hi;    /* one past the last element */
    size_t xfer;  /* transfer index */
    int write;    /* 1 for a write, 0 for a read */
} Span;

static int span_cmp(const void *a, const void *b)
{
    const Span *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->write < y->write) - (x->write > y->write); /* writes first */
}

/* Sort a run of spans of one key by lo, writes first. */
static void sort_run(Span *r, size_t n)
{
    if (n > 16) {
        qsort(r, n, sizeof *r, span_cmp);
        return;
    }
    for (size_t i = 1; i < n; i++) /* insertion sort: runs are tiny */
        for (size_t j = i; j > 0 && span_cmp(&r[j - 1], &r[j]) > 0; j--) {
            Span t = r[j];
            r[j] = r[j - 1], r[j - 1] = t;
        }
}

/* Sort sp[0..n) into out by (key, lo, writes first): a counting sort on the
 * key (< nkeys), then each key's run by lo. cnt has nkeys + 1 entries. This
 * keeps validation linear in practice (qsort alone was the bottleneck). */
static void sort_spans(const Span *sp, size_t n, Span *out, size_t *cnt,
                       size_t nkeys)
{
    memset(cnt, 0, (nkeys + 1) * sizeof *cnt);
    for (size_t i = 0; i < n; i++)
        cnt[sp[i].key + 1]++;
    for (size_t k = 0; k < nkeys; k++)
        cnt[k + 1] += cnt[k];
    for (size_t i = 0; i < n; i++)
        out[cnt[sp[i].key]++] = sp[i];
    for (size_t start = 0, i = 1; i <= n; i++)
        if (i == n || out[i].key != out[start].key) {
            sort_run(out + start, i - start);
            start = i;
        }
}

static int xfer_in_bounds(const Schedule *s, const Transfer *t)
{
    size_t sn = sched_bufsize(s, t->src, (BufId)t->src_buf);
    size_t dn = sched_bufsize(s, t->dst, (BufId)t->dst_buf);
    return t->src_off <= sn && t->count <= sn - t->src_off &&
           t->dst_off <= dn && t->count <= dn - t->dst_off;
}

/* Check one step's spans (sorted): two writes may not overlap; reads that
 * overlap a write are flagged as needing staging. Returns CV_OK or the
 * error, with the offending transfer in *bad. */
static CvError check_spans(const Span *sp, size_t n, uint8_t *staged,
                           size_t *overlaps, size_t *bad)
{
    for (size_t i = 0; i < n; i++) {
        /* Compare with the following spans that start before this ends. */
        for (size_t j = i + 1; j < n && sp[j].key == sp[i].key &&
                               sp[j].lo < sp[i].hi; j++) {
            if (sp[i].write && sp[j].write) {
                *bad = sp[j].xfer;
                return CV_ERR_ARG;
            }
            if (sp[i].write != sp[j].write) {
                size_t rd = sp[i].write ? sp[j].xfer : sp[i].xfer;
                if (!staged[rd]) {
                    staged[rd] = 1;
                    (*overlaps)++;
                }
            }
        }
    }
    return CV_OK;
}

/* Set bits [lo, hi) of a bitmap. */
static void set_bits(uint64_t *bm, size_t lo, size_t hi)
{
    while (lo < hi && lo % 64) {
        bm[lo / 64] |= 1ull << (lo % 64);
        lo++;
    }
    for (; lo + 64 <= hi; lo += 64)
        bm[lo / 64] = ~0ull;
    for (; lo < hi; lo++)
        bm[lo / 64] |= 1ull << (lo % 64);
}

/* Mark rank r's output elements that [lo, hi) of buffer b covers; the
 * rank's outputs start at bit first[r]. */
static void mark_output(uint64_t *bm, const size_t *first, const CollLayout *l,
                        int r, BufId b, size_t lo, size_t hi)
{
    const CollLayout *o = &l[r];
    size_t olo = o->out_off, ohi = o->out_off + o->out_count;
    if (b != o->out_buf || hi <= olo || lo >= ohi)
        return;
    lo = lo > olo ? lo : olo;
    hi = hi < ohi ? hi : ohi;
    set_bits(bm, first[r] + lo - olo, first[r] + hi - olo);
}

/* Output elements that neither a transfer writes nor the input (in place)
 * already holds; (size_t)-1 when out of memory. One bitmap over every
 * rank's output: linear in transfers plus outputs / 64. */
static size_t count_missing(const Schedule *s)
{
    int p = s->call.nranks;
    CollLayout *l = malloc((size_t)p * sizeof *l);
    size_t *first = malloc(((size_t)p + 1) * sizeof *first);
    if (!l || !first) {
        free(l), free(first);
        return (size_t)-1;
    }
    first[0] = 0;
    for (int r = 0; r < p; r++) {
        coll_layout(&s->call, r, &l[r]);
        first[r + 1] = first[r] + l[r].out_count;
    }
    uint64_t *bm = calloc(first[p] / 64 + 1, sizeof *bm);
    if (!bm) {
        free(l), free(first);
        return (size_t)-1;
    }
    for (int r = 0; r < p; r++)
        mark_output(bm, first, l, r, l[r].in_buf, l[r].in_off,
                    l[r].in_off + l[r].in_count);
    for (size_t x = 0; x < s->nxfers; x++) {
        const Transfer *t = &s->xfers[x];
        mark_output(bm, first, l, t->dst, (BufId)t->dst_buf, t->dst_off,
                    t->dst_off + t->count);
    }
    size_t have = 0;
    for (size_t w = 0; w < first[p] / 64 + 1; w++)
        have += (size_t)__builtin_popcountll(bm[w]);
    size_t missing = first[p] - have;
    free(bm), free(l), free(first);
    return missing;
}

/* The validator could not run (out of memory): a finding about no step
 * and no transfer of s. */
static CvError no_check(const Schedule *s, SchedCheck *chk)
{
    chk->step = s->nsteps;
    chk->xfer = s->nxfers;
    chk->missing = 0;
    return chk->err = CV_ERR_NOMEM;
}

/* sched_validate's step by step part: bounds, writes of send buffers and
 * overlaps, the staged flags into staged (s->nxfers of them). */
static CvError validate_steps(const Schedule *s, SchedCheck *chk,
                              uint8_t *staged)
{
    memset(staged, 0, s->nxfers);
    size_t maxn = 0;
    for (size_t k = 0; k < s->nsteps; k++)
        if (s->steps[k].n > maxn)
            maxn = s->steps[k].n;
    size_t nkeys = (size_t)s->call.nranks * BUF_COUNT;
    Span *sp = malloc((4 * maxn + 1) * sizeof *sp), *sorted = sp + 2 * maxn;
    size_t *cnt = malloc((nkeys + 1) * sizeof *cnt);
    if (!sp || !cnt) {
        free(sp), free(cnt);
        return no_check(s, chk);
    }
    for (size_t k = 0; k < s->nsteps && !chk->err; k++) {
        const Step *st = &s->steps[k];
        for (size_t i = 0; i < st->n; i++) {
            size_t x = st->first + i;
            const Transfer *t = &s->xfers[x];
            CvError e = !xfer_in_bounds(s, t) ? CV_ERR_BOUNDS
                        : t->dst_buf == BUF_SEND ? CV_ERR_SENDWRITE : CV_OK;
            if (e) {
                chk->err = e, chk->step = k, chk->xfer = x;
                break;
            }
            sp[2 * i] = (Span){(uint64_t)t->src * BUF_COUNT + t->src_buf,
                               t->src_off, t->src_off + t->count, x, 0};
            sp[2 * i + 1] = (Span){(uint64_t)t->dst * BUF_COUNT + t->dst_buf,
                                   t->dst_off, t->dst_off + t->count, x, 1};
        }
        size_t bad = 0;
        if (chk->err)
            break;
        sort_spans(sp, 2 * st->n, sorted, cnt, nkeys);
        if (check_spans(sorted, 2 * st->n, staged, &chk->overlaps, &bad))
            chk->err = CV_ERR_ARG, chk->step = k, chk->xfer = bad;
    }
    free(sp);
    free(cnt);
    return chk->err;
}

/* Whether s can be checked at all: written out, and no builder's error
 * (CV_OK, or chk's error). */
static CvError checkable(const Schedule *s, SchedCheck *chk)
{
    memset(chk, 0, sizeof *chk);
    if (s->err == CV_ERR_NOMEM)
        return no_check(s, chk);
    if (!sched_written_out(s)) /* sched_expand it first */
        return chk->err = CV_ERR_ARG;
    if (s->err) { /* the builder's: no one step's */
        chk->step = s->nsteps, chk->xfer = s->nxfers;
        return chk->err = s->err;
    }
    return CV_OK;
}

CvError sched_validate(const Schedule *s, SchedCheck *chk, uint8_t *staged)
{
    if (checkable(s, chk))
        return chk->err;
    uint8_t *own = staged ? NULL : malloc(s->nxfers + 1);
    if (!staged && !own)
        return no_check(s, chk);
    validate_steps(s, chk, staged ? staged : own);
    free(own);
    if (!chk->err) {
        chk->missing = count_missing(s);
        if (chk->missing == (size_t)-1)
            no_check(s, chk);
        else if (chk->missing)
            chk->err = CV_ERR_MISSING;
    }
    return chk->err;
}

CvError sched_staged(const Schedule *s, uint8_t *staged)
{
    SchedCheck chk;
    if (checkable(s, &chk))
        return chk.err;
    return validate_steps(s, &chk, staged);
}
