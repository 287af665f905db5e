/* fuse.c - copy-in fusion over a whole schedule (sched_fuse_map).
 *
 * One pass over the steps. Each copy-in (a local copy from BUF_SEND) keeps
 * the parts of its destination that still hold its copy untouched: sorted,
 * disjoint, never adjacent intervals. In each step every read is judged
 * against the state before the step (the step semantics), then the
 * step's writes take their ranges away, then the step's own copy-ins
 * start. A read that lies inside one untouched interval may read the send
 * buffer instead (via); a reduce into one may start from it (own); a read
 * or a reduce that touches untouched parts any other way needs the copy,
 * and so does what is still untouched at the end of a buffer other than
 * the tmp buffer (the output may hold it; what the tmp buffer holds at
 * the end is no one's). */
#include "core/sched.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

typedef struct {
    size_t lo, hi; /* elements [lo, hi) */
} Span;

typedef struct {
    size_t key;    /* rank * BUF_COUNT + buffer of the destination */
    size_t lo, hi; /* its destination range */
    size_t xi;     /* the copy's transfer index */
    size_t step;   /* its step */
    size_t ord;    /* its place among the copy-ins in step order */
    bool disjoint; /* no two copy-ins on its key overlap */
    bool need;     /* some of it is read as written, or is output */
    Span *left;    /* untouched intervals, sorted */
    size_t n, cap;
} CopyIn;

/* By key, then by range (a key's copy-ins one after another where they
 * are disjoint: a chain's root copies each segment it sends). */
static int cmp_copyin(const void *a, const void *b)
{
    const CopyIn *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->xi < y->xi ? -1 : x->xi > y->xi;
}

/* The first interval of c whose end lies beyond lo. */
static size_t first_after(const CopyIn *c, size_t lo)
{
    size_t a = 0, b = c->n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (c->left[m].hi <= lo)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* 1 when [lo, hi) lies inside one untouched interval of c. */
static int untouched(const CopyIn *c, size_t lo, size_t hi)
{
    size_t i = first_after(c, lo);
    return i < c->n && c->left[i].lo <= lo && hi <= c->left[i].hi;
}

/* 1 when some of [lo, hi) is untouched. */
static int touches(const CopyIn *c, size_t lo, size_t hi)
{
    size_t i = first_after(c, lo);
    return i < c->n && c->left[i].lo < hi;
}

/* Take [lo, hi) out of c's untouched intervals; -1 out of memory. */
static int take(CopyIn *c, size_t lo, size_t hi)
{
    size_t i = first_after(c, lo), j = i;
    while (j < c->n && c->left[j].lo < hi)
        j++;
    if (i == j)
        return 0;
    Span keep[2];
    size_t nk = 0;
    if (c->left[i].lo < lo)
        keep[nk++] = (Span){c->left[i].lo, lo};
    if (c->left[j - 1].hi > hi)
        keep[nk++] = (Span){hi, c->left[j - 1].hi};
    size_t n = c->n - (j - i) + nk;
    Span *v = grow_array(c->left, &c->cap, n, sizeof *v, 4);
    if (!v)
        return -1;
    c->left = v;
    memmove(c->left + i + nk, c->left + j, (c->n - j) * sizeof *c->left);
    memcpy(c->left + i, keep, nk * sizeof *keep);
    c->n = n;
    return 0;
}

/* The copy-ins on (rank, buffer) key that may overlap [lo, hi):
 * cin[*from .. *to); where the key's are disjoint, from the first whose
 * range ends beyond lo (the caller stops at the first starting at hi). */
static void on_key(const CopyIn *cin, size_t ncin, size_t key, size_t lo,
                   size_t *from, size_t *to)
{
    size_t a = 0, b = ncin, e = ncin;
    while (a < b) { /* the first of the key */
        size_t m = a + (b - a) / 2;
        if (cin[m].key < key)
            a = m + 1;
        else
            b = m;
    }
    for (b = a; b < e;) { /* the first after it */
        size_t m = b + (e - b) / 2;
        if (cin[m].key <= key)
            b = m + 1;
        else
            e = m;
    }
    *to = e;
    if (a < e && cin[a].disjoint) { /* ranges sorted, ends too */
        b = e;
        while (a < b) {
            size_t m = a + (b - a) / 2;
            if (cin[m].hi <= lo)
                a = m + 1;
            else
                b = m;
        }
    }
    *from = a;
}

/* Judge transfer t of step k reading [lo, lo + n) of (rank, buf): via, or
 * the copies it touches are needed. Reduce: t's destination as its own
 * operand. */
static void judge(const Schedule *s, CopyIn *cin, size_t ncin, size_t k,
                  size_t ti, int32_t rank, uint8_t buf, size_t lo, size_t n,
                  bool reduce, const Transfer **own, const Transfer **via)
{
    size_t a, b;
    on_key(cin, ncin, (size_t)rank * BUF_COUNT + buf, lo, &a, &b);
    for (size_t i = a; i < b && !(cin[i].disjoint && cin[i].lo >= lo + n); i++) {
        CopyIn *c = &cin[i];
        if (c->step >= k || !touches(c, lo, lo + n))
            continue;
        const Transfer **to = reduce ? own : via;
        if (untouched(c, lo, lo + n) && !to[ti])
            to[ti] = &s->xfers[c->xi];
        else
            c->need = true;
    }
}

/* A write of step k to [lo, lo + n) of (rank, buf). */
static int written(CopyIn *cin, size_t ncin, size_t k, int32_t rank,
                   uint8_t buf, size_t lo, size_t n)
{
    size_t a, b;
    on_key(cin, ncin, (size_t)rank * BUF_COUNT + buf, lo, &a, &b);
    for (size_t i = a; i < b && !(cin[i].disjoint && cin[i].lo >= lo + n); i++)
        if (cin[i].step < k && take(&cin[i], lo, lo + n))
            return -1;
    return 0;
}

static int is_copyin(const Transfer *t)
{
    return t->op == XFER_COPY && t->src == t->dst &&
           t->src_buf == BUF_SEND && t->dst_buf != BUF_SEND;
}

/* The schedule's ncin copy-ins into cin, sorted by key and range, each
 * key's marked disjoint or not; by_step[i]: where the i-th in step order
 * went. */
static void collect(const Schedule *s, CopyIn *cin, size_t ncin,
                    size_t *by_step)
{
    size_t at = 0;
    for (size_t k = 0; k < s->nsteps; k++)
        for (size_t i = s->steps[k].first; i < s->steps[k].first + s->steps[k].n; i++) {
            const Transfer *x = &s->xfers[i];
            if (is_copyin(x)) {
                cin[at] = (CopyIn){
                    .key = (size_t)x->dst * BUF_COUNT + x->dst_buf,
                    .lo = x->dst_off, .hi = x->dst_off + x->count,
                    .xi = i, .step = k, .ord = at, .disjoint = true};
                at++;
            }
        }
    qsort(cin, ncin, sizeof *cin, cmp_copyin);
    for (size_t c = 0; c < ncin; c++)
        by_step[cin[c].ord] = c;
    for (size_t c = 0, e; c < ncin; c = e) { /* each key's: disjoint? */
        bool disjoint = true;
        for (e = c + 1; e < ncin && cin[e].key == cin[c].key; e++)
            disjoint = disjoint && cin[e - 1].hi <= cin[e].lo;
        for (size_t i = c; i < e; i++)
            cin[i].disjoint = disjoint;
    }
}

CvError sched_fuse_map(const Schedule *s, const Transfer **own,
                       const Transfer **via, uint8_t *skip)
{
    size_t ncin = 0;
    for (size_t i = 0; i < s->nxfers; i++) {
        if (s->xfers[i].dst_buf == BUF_SEND)
            return CV_OK; /* a send buffer written: not an input's copy */
        ncin += (size_t)is_copyin(&s->xfers[i]);
    }
    if (!ncin || s->compact)
        return CV_OK;
    CopyIn *cin = calloc(ncin, sizeof *cin);
    size_t *by_step = malloc(ncin * sizeof *by_step);
    if (!cin || !by_step) {
        free(cin), free(by_step);
        return CV_ERR_NOMEM;
    }
    collect(s, cin, ncin, by_step);
    int bad = 0;
    size_t at = 0; /* by_step[at]: the next copy-in to start */
    for (size_t k = 0; k < s->nsteps && !bad; k++) {
        size_t first = s->steps[k].first, end = first + s->steps[k].n;
        for (size_t i = first; i < end; i++) {
            const Transfer *t = &s->xfers[i];
            judge(s, cin, ncin, k, i, t->src, t->src_buf, t->src_off,
                  t->count, false, own, via);
            if (t->op == XFER_REDUCE)
                judge(s, cin, ncin, k, i, t->dst, t->dst_buf, t->dst_off,
                      t->count, true, own, via);
        }
        for (size_t i = first; i < end && !bad; i++) {
            const Transfer *t = &s->xfers[i];
            bad = written(cin, ncin, k, t->dst, t->dst_buf, t->dst_off, t->count);
        }
        for (; at < ncin && !bad && cin[by_step[at]].step == k; at++) {
            CopyIn *c = &cin[by_step[at]]; /* the step's copies start */
            c->left = malloc(sizeof *c->left);
            bad = !c->left;
            if (!bad) {
                c->left[0] = (Span){c->lo, c->hi};
                c->n = c->cap = 1;
            }
        }
    }
    for (size_t c = 0; c < ncin; c++) {
        bool left = cin[c].n && cin[c].key % BUF_COUNT != BUF_TMP;
        if (!bad && !cin[c].need && !left)
            skip[cin[c].xi] = 1;
        free(cin[c].left);
    }
    free(cin);
    free(by_step);
    return bad ? CV_ERR_NOMEM : CV_OK;
}

void sched_fuse_free(SchedFuse *f)
{
    free(f->own), free(f->via), free(f->skip);
    *f = (SchedFuse){0};
}

CvError sched_fuse_build(SchedFuse *f, const Schedule *s)
{
    f->own = calloc(s->nxfers + 1, sizeof *f->own);
    f->via = calloc(s->nxfers + 1, sizeof *f->via);
    f->skip = calloc(s->nxfers + 1, 1);
    if (f->own && f->via && f->skip && !sched_fuse_map(s, f->own, f->via, f->skip))
        return CV_OK;
    sched_fuse_free(f);
    return CV_ERR_NOMEM;
}
