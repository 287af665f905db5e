/* sched.c - building and measuring schedules (validating them:
 * sched_validate.c). */
#include "core/sched.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/grow.h"

/* ------------------------------------------------------------- building */

/* Size the send and recv buffers of every rank, tmp 0. */
static void sched_sizes(Schedule *s)
{
    const CollCall *call = &s->call;
    for (int r = 0; r < call->nranks; r++) {
        CollLayout l;
        coll_layout(call, r, &l);
        size_t *b = &s->bufsize[(size_t)r * BUF_COUNT];
        b[BUF_SEND] = l.send_count;
        b[BUF_RECV] = l.recv_count;
        b[BUF_TMP] = 0;
    }
}

CvError sched_init(Schedule *s, const CollCall *call, const char *algo)
{
    memset(s, 0, sizeof *s);
    return sched_reinit(s, call, algo);
}

CvError sched_reinit(Schedule *s, const CollCall *call, const char *algo)
{
    Schedule keep = *s;
    bool same = s->bufsize && s->call.nranks == call->nranks;
    memset(s, 0, sizeof *s);
    s->xfers = keep.xfers, s->cap_xfers = keep.cap_xfers;
    s->steps = keep.steps, s->cap_steps = keep.cap_steps;
    s->bufsize = same ? keep.bufsize : NULL;
    if (!same)
        free(keep.bufsize);
    for (int c = 0; c < SCHED_MAX_CYCLES; c++) { /* arrays kept, unused */
        s->cyc[c] = (SchedCycles){0, same ? keep.cyc[c].member : NULL,
                                  same ? keep.cyc[c].at : NULL};
        if (!same)
            free(keep.cyc[c].member), free(keep.cyc[c].at);
    }
    s->call = *call;
    s->algo = algo;
    if (call->nranks < 1 || call->nranks > SCHED_MAX_RANKS)
        return s->err = CV_ERR_RANKS;
    if (call->root < 0 || call->root >= call->nranks)
        return s->err = CV_ERR_ROOT;
    if (!s->bufsize)
        s->bufsize = calloc((size_t)call->nranks * BUF_COUNT, sizeof *s->bufsize);
    if (!s->bufsize)
        return s->err = CV_ERR_NOMEM;
    sched_sizes(s);
    return CV_OK;
}

void sched_fini(Schedule *s)
{
    for (int c = 0; c < SCHED_MAX_CYCLES; c++)
        free(s->cyc[c].member), free(s->cyc[c].at);
    free(s->bufsize);
    free(s->xfers);
    free(s->steps);
    memset(s, 0, sizeof *s);
}

void sched_tmp(Schedule *s, int r, size_t n)
{
    if (r < 0 || r >= s->call.nranks || !s->bufsize) {
        if (!s->err)
            s->err = CV_ERR_ARG;
        return;
    }
    size_t *t = &s->bufsize[(size_t)r * BUF_COUNT + BUF_TMP];
    if (*t < n)
        *t = n;
}

void sched_tmp_all(Schedule *s, size_t n)
{
    for (int r = 0; r < s->call.nranks; r++)
        sched_tmp(s, r, n);
}

void sched_step(Schedule *s, const char *phase)
{
    if (s->err)
        return;
    if (s->nsteps && s->steps[s->nsteps - 1].n == 0) { /* reuse empty */
        s->steps[s->nsteps - 1].phase = phase;
        return;
    }
    Step *st = grow_array(s->steps, &s->cap_steps, s->nsteps + 1,
                          sizeof *st, 64);
    if (!st) {
        s->err = CV_ERR_NOMEM;
        return;
    }
    s->steps = st;
    s->steps[s->nsteps++] =
        (Step){.first = s->nxfers, .n = 0, .phase = phase, .reps = 1};
}

void sched_xfer(Schedule *s, XferOp op, int src, BufId sbuf, size_t soff,
                int dst, BufId dbuf, size_t doff, size_t count)
{
    if (s->err || count == 0)
        return;
    int p = s->call.nranks;
    if (!s->nsteps) {
        s->err = CV_ERR_STEP;
        return;
    }
    if (src < 0 || src >= p || dst < 0 || dst >= p || sbuf >= BUF_COUNT ||
        dbuf >= BUF_COUNT || op >= XFER_OP_COUNT) {
        s->err = CV_ERR_ARG;
        return;
    }
    if (s->compact && s->nxfers >= SCHED_COMPACT_MAX_XFERS) {
        s->err = CV_ERR_LIMIT;
        return;
    }
    if (s->nxfers == s->cap_xfers) { /* (the call only when it grows) */
        Transfer *x = grow_array(s->xfers, &s->cap_xfers, s->nxfers + 1,
                                 sizeof *x, 64);
        if (!x) {
            s->err = CV_ERR_NOMEM;
            return;
        }
        s->xfers = x;
    }
    s->xfers[s->nxfers++] = (Transfer){
        .src = src, .dst = dst, .src_buf = (uint8_t)sbuf,
        .dst_buf = (uint8_t)dbuf, .op = (uint8_t)op, .flags = s->flags,
        .src_off = soff, .dst_off = doff, .count = count,
    };
    s->steps[s->nsteps - 1].n++;
}

void sched_copy(Schedule *s, int src, BufId sbuf, size_t soff, int dst,
                BufId dbuf, size_t doff, size_t count)
{
    sched_xfer(s, XFER_COPY, src, sbuf, soff, dst, dbuf, doff, count);
}

void sched_reduce(Schedule *s, int src, BufId sbuf, size_t soff, int dst,
                  BufId dbuf, size_t doff, size_t count)
{
    sched_xfer(s, XFER_REDUCE, src, sbuf, soff, dst, dbuf, doff, count);
}

/* off moved i blocks of blk along, mod p blocks. */
static size_t rot_off(size_t off, size_t i, size_t blk, int p)
{
    if (blk == 0)
        return off;
    return ((off / blk + i) % (size_t)p) * blk + off % blk;
}

/* t as rank i does it in a spread step (Step.spread): its ranks moved i
 * along, its XF_ROT_* offsets i blocks of blk; the flags cleared. */
static void spread_copy(Transfer *t, size_t i, size_t blk, int p)
{
    if (i > 0 && (t->flags & XF_ROT_SRC))
        t->src_off = rot_off(t->src_off, i, blk, p);
    if (i > 0 && (t->flags & XF_ROT_DST))
        t->dst_off = rot_off(t->dst_off, i, blk, p);
    t->src = sched_rot(t->src, i, 1, p);
    t->dst = sched_rot(t->dst, i, 1, p);
    t->flags &= (uint8_t)~(XF_ROT_SRC | XF_ROT_DST);
}

/* Append transfer t, flags and all, to the open step. */
static void append_xfer(Schedule *s, const Transfer *t)
{
    uint8_t f = s->flags;
    s->flags = t->flags;
    sched_xfer(s, (XferOp)t->op, t->src, (BufId)t->src_buf, t->src_off,
               t->dst, (BufId)t->dst_buf, t->dst_off, t->count);
    s->flags = f;
}

int sched_move(const Schedule *s, const Step *st, int r, size_t j,
               bool back)
{
    int p = s->call.nranks;
    if (!st->cyc)
        return sched_rot(r, j, back ? -st->shift : st->shift, p);
    const SchedCycles *c = &s->cyc[st->cyc - 1];
    size_t len = (size_t)c->len, a = (size_t)c->at[r], i = a % len;
    size_t by = j % len;
    return c->member[a - i + (i + (back ? len - by : by)) % len];
}

void sched_rep_xfer(const Schedule *s, size_t k, size_t j, size_t x,
                    Transfer *out)
{
    const Step *st = &s->steps[k];
    int p = s->call.nranks;
    *out = s->xfers[st->first + (st->spread ? x % st->n : x)];
    spread_copy(out, st->spread ? x / st->n : 0, st->blk, p);
    bool back = out->flags & XF_BACK;
    out->flags &= (uint8_t)~XF_BACK;
    if (j == 0)
        return;
    out->src = sched_move(s, st, out->src, j, back);
    out->dst = sched_move(s, st, out->dst, j, back);
}

size_t sched_entry_n(const Schedule *s, size_t k)
{
    const Step *st = &s->steps[k];
    return st->spread ? st->n * (size_t)s->call.nranks : st->n;
}

CvError sched_entry_fill(const Schedule *s, size_t k, size_t j,
                         Transfer **buf, size_t *cap, const Transfer **xs,
                         size_t *n)
{
    const Step *st = &s->steps[k];
    *n = sched_entry_n(s, k);
    *xs = s->xfers + st->first;
    if (j == 0 && !st->spread && !st->cyc)
        return CV_OK;
    if (*n > SCHED_COMPACT_MAX_XFERS)
        return CV_ERR_LIMIT;
    if (*n > *cap) {
        Transfer *b = realloc(*buf, *n * sizeof *b);
        if (!b)
            return CV_ERR_NOMEM;
        *buf = b, *cap = *n;
    }
    for (size_t x = 0; x < *n; x++)
        sched_rep_xfer(s, k, j, x, &(*buf)[x]);
    *xs = *buf;
    return CV_OK;
}

void sched_spread(Schedule *s, size_t blk)
{
    if (s->err || !s->nsteps || s->steps[s->nsteps - 1].n == 0)
        return;
    size_t k = s->nsteps - 1, n = s->steps[k].n;
    int p = s->call.nranks;
    s->steps[k].blk = blk;
    if (s->compact) {
        s->steps[k].spread = p > 1;
        return;
    }
    for (size_t i = 1; i < (size_t)p && !s->err; i++)
        for (size_t b = 0; b < n && !s->err; b++) {
            Transfer t = s->xfers[s->steps[k].first + b]; /* may move */
            spread_copy(&t, i, blk, p);
            append_xfer(s, &t);
        }
    for (size_t b = 0; b < n; b++) /* copy 0 keeps its offsets */
        s->xfers[s->steps[k].first + b].flags &=
            (uint8_t)~(XF_ROT_SRC | XF_ROT_DST);
}

void sched_repeat(Schedule *s, size_t reps, int shift)
{
    if (s->err || !s->nsteps || s->steps[s->nsteps - 1].n == 0 || reps < 2)
        return;
    size_t k = s->nsteps - 1;
    if (s->compact) {
        s->steps[k].reps = reps, s->steps[k].shift = shift;
        return;
    }
    Step base = s->steps[k];
    int p = s->call.nranks;
    for (size_t j = 1; j < reps && !s->err; j++) {
        sched_step(s, base.phase);
        for (size_t i = 0; i < base.n && !s->err; i++) {
            Transfer t = s->xfers[base.first + i]; /* sched_xfer may move it */
            t.src = sched_rot(t.src, j, shift, p);
            t.dst = sched_rot(t.dst, j, shift, p);
            append_xfer(s, &t);
        }
    }
}

/* Whether member[0 .. p) lists every rank once; at[r] then says where. */
static bool cycles_fill(const int *member, int p, int32_t *at)
{
    for (int r = 0; r < p; r++)
        at[r] = -1;
    for (int i = 0; i < p; i++) {
        if (member[i] < 0 || member[i] >= p || at[member[i]] >= 0)
            return false;
        at[member[i]] = i;
    }
    return true;
}

int sched_cycles(Schedule *s, const int *member, int len)
{
    int p = s->call.nranks;
    size_t np = (size_t)p;
    if (s->err || len < 1 || p % len)
        return -1;
    for (int c = 0; c < s->ncyc; c++)
        if (s->cyc[c].len == len &&
            !memcmp(s->cyc[c].member, member, np * sizeof *member))
            return c;
    if (s->ncyc == SCHED_MAX_CYCLES)
        return -1;
    SchedCycles *c = &s->cyc[s->ncyc];
    if (!c->member)
        c->member = malloc(np * sizeof *c->member);
    if (!c->at)
        c->at = malloc(np * sizeof *c->at);
    if (!c->member || !c->at) {
        s->err = CV_ERR_NOMEM;
        return -1;
    }
    if (!cycles_fill(member, p, c->at))
        return -1;
    memcpy(c->member, member, np * sizeof *member);
    c->len = len;
    return s->ncyc++;
}

void sched_repeat_cycles(Schedule *s, size_t reps, int c)
{
    if (s->err || !s->nsteps || s->steps[s->nsteps - 1].n == 0 || reps < 2 ||
        c < 0 || c >= s->ncyc)
        return;
    size_t k = s->nsteps - 1;
    Step base = s->steps[k];
    base.cyc = c + 1, base.shift = 1;
    if (s->compact) {
        s->steps[k].reps = reps, s->steps[k].shift = 1;
        s->steps[k].cyc = c + 1;
        return;
    }
    for (size_t j = 1; j < reps && !s->err; j++) {
        sched_step(s, base.phase);
        for (size_t i = 0; i < base.n && !s->err; i++) {
            Transfer t = s->xfers[base.first + i]; /* sched_xfer may move it */
            bool back = t.flags & XF_BACK;
            t.src = sched_move(s, &base, t.src, j, back);
            t.dst = sched_move(s, &base, t.dst, j, back);
            t.flags &= (uint8_t)~XF_BACK;
            append_xfer(s, &t);
        }
    }
    for (size_t i = 0; i < base.n; i++)
        s->xfers[base.first + i].flags &= (uint8_t)~XF_BACK;
}

bool sched_written_out(const Schedule *s)
{
    for (size_t k = 0; s->compact && k < s->nsteps; k++)
        if (s->steps[k].reps > 1 || s->steps[k].spread)
            return false;
    return true;
}

static int cmp_xfer(const void *pa, const void *pb)
{
    const Transfer *a = pa, *b = pb;
    long long d[] = {a->src - b->src, a->dst - b->dst,
                     a->src_buf - b->src_buf, a->dst_buf - b->dst_buf,
                     a->op - b->op, a->flags - b->flags};
    for (size_t k = 0; k < sizeof d / sizeof d[0]; k++)
        if (d[k])
            return d[k] < 0 ? -1 : 1;
    const size_t u[][2] = {{a->src_off, b->src_off}, {a->dst_off, b->dst_off},
                           {a->count, b->count}};
    for (size_t k = 0; k < 3; k++)
        if (u[k][0] != u[k][1])
            return u[k][0] < u[k][1] ? -1 : 1;
    return 0;
}

/* Whether the calls, buffers and step sizes of a and b agree. */
static bool same_shape(const Schedule *a, const Schedule *b)
{
    const CollCall *x = &a->call, *y = &b->call;
    if (x->kind != y->kind || x->nranks != y->nranks || x->count != y->count ||
        x->dtype != y->dtype || x->op != y->op || x->root != y->root ||
        x->in_place != y->in_place || a->nsteps != b->nsteps ||
        !sched_written_out(a) || !sched_written_out(b))
        return false;
    size_t nb = (size_t)x->nranks * BUF_COUNT;
    if (memcmp(a->bufsize, b->bufsize, nb * sizeof *a->bufsize))
        return false;
    for (size_t k = 0; k < a->nsteps; k++)
        if (a->steps[k].n != b->steps[k].n)
            return false;
    return true;
}

CvError sched_same(const Schedule *a, const Schedule *b, bool *same)
{
    *same = same_shape(a, b);
    size_t most = 0;
    for (size_t k = 0; *same && k < a->nsteps; k++)
        most = a->steps[k].n > most ? a->steps[k].n : most;
    Transfer *x = *same && most ? malloc(2 * most * sizeof *x) : NULL;
    if (*same && most && !x) {
        *same = false;
        return CV_ERR_NOMEM;
    }
    for (size_t k = 0; *same && k < a->nsteps; k++) {
        size_t n = a->steps[k].n;
        memcpy(x, a->xfers + a->steps[k].first, n * sizeof *x);
        memcpy(x + n, b->xfers + b->steps[k].first, n * sizeof *x);
        qsort(x, n, sizeof *x, cmp_xfer);
        qsort(x + n, n, sizeof *x, cmp_xfer);
        for (size_t i = 0; i < n && *same; i++)
            *same = !cmp_xfer(&x[i], &x[n + i]);
    }
    free(x);
    return CV_OK;
}

size_t sched_nsteps(const Schedule *s)
{
    if (!s->compact)
        return s->nsteps;
    size_t n = 0;
    for (size_t k = 0; k < s->nsteps; k++)
        n += s->steps[k].reps;
    return n;
}

CvError sched_expand(const Schedule *in, Schedule *out)
{
    CvError e = sched_init(out, &in->call, in->algo);
    if (e)
        return e;
    int p = in->call.nranks;
    memcpy(out->bufsize, in->bufsize,
           (size_t)p * BUF_COUNT * sizeof *out->bufsize);
    for (size_t k = 0; k < in->nsteps && !out->err; k++) {
        const Step *st = &in->steps[k];
        size_t reps = in->compact ? st->reps : 1;
        for (size_t j = 0; j < reps && !out->err; j++) {
            sched_step(out, st->phase);
            size_t n = sched_entry_n(in, k);
            for (size_t i = 0; i < n && !out->err; i++) {
                Transfer t;
                sched_rep_xfer(in, k, j, i, &t);
                append_xfer(out, &t);
            }
        }
    }
    e = sched_end(out);
    if (e)
        sched_fini(out);
    return e;
}

CvError sched_end(Schedule *s)
{
    if (s->nsteps && s->steps[s->nsteps - 1].n == 0)
        s->nsteps--;
    return s->err;
}

/* ----------------------------------------------------------- statistics */

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Count distinct (src, dst) pairs of remote transfers as messages. */
static CvError count_msgs(const Schedule *s, const Step *st, RankStepStats *out)
{
    uint64_t p = (uint64_t)s->call.nranks, *key = malloc((st->n + 1) * sizeof *key);
    size_t n = 0;
    if (!key)
        return CV_ERR_NOMEM;
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *t = &s->xfers[st->first + i];
        if (t->src != t->dst)
            key[n++] = (uint64_t)t->src * p + (uint64_t)t->dst;
    }
    qsort(key, n, sizeof *key, u64_cmp);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || key[i] != key[i - 1]) {
            out[key[i] / p].msgs_out++;
            out[key[i] % p].msgs_in++;
        }
    free(key);
    return CV_OK;
}

CvError sched_step_stats(const Schedule *s, size_t k, RankStepStats *out)
{
    size_t ts = dtype_size(s->call.dtype);
    const Step *st = &s->steps[k];
    memset(out, 0, (size_t)s->call.nranks * sizeof *out);
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *t = &s->xfers[st->first + i];
        size_t bytes = t->count * ts;
        if (t->op == XFER_REDUCE)
            out[t->dst].reduced += bytes;
        if (t->src == t->dst) {
            if (t->op == XFER_COPY)
                out[t->dst].copied += bytes;
            continue;
        }
        out[t->src].sent += bytes;
        out[t->dst].recvd += bytes;
    }
    return count_msgs(s, st, out);
}

/* gcd of a, b >= 0. */
static size_t gcd(size_t a, size_t b)
{
    while (b) {
        size_t r = a % b;
        a = b, b = r;
    }
    return a;
}

CvError sched_add_rotations(const size_t *in, int p, size_t reps, int shift,
                            size_t *out)
{
    size_t n = (size_t)p, sh = (size_t)(((long long)shift % p + p) % p);
    if (sh == 0 || reps == 0) {
        for (size_t q = 0; q < n; q++)
            out[q] += reps * in[q];
        return CV_OK;
    }
    /* the ranks fall into g cycles of L = p / g, each the orbit q, q + sh,
       q + 2 sh, ...: rank c_i of a cycle gets reps / L times the cycle's
       sum and the last reps % L values before and at it (a window) */
    size_t g = gcd(sh, n), len = n / g, full = reps / len, w = reps % len;
    size_t *pre = malloc((2 * len + 1) * sizeof *pre);
    if (!pre)
        return CV_ERR_NOMEM;
    for (size_t c = 0; c < g; c++) {
        pre[0] = 0;
        for (size_t i = 0; i < 2 * len; i++)
            pre[i + 1] = pre[i] + in[(c + (i % len) * sh) % n];
        size_t cyc = pre[len];
        for (size_t i = 0; i < len; i++) {
            size_t at = i + len; /* window (at - w, at] in the doubled cycle */
            out[(c + i * sh) % n] += full * cyc + pre[at + 1] - pre[at + 1 - w];
        }
    }
    free(pre);
    return CV_OK;
}

CvError sched_add_moves(const Schedule *s, const Step *st, const size_t *in,
                        size_t reps, bool back, size_t *out)
{
    int p = s->call.nranks;
    if (!st->cyc)
        return sched_add_rotations(in, p, reps, back ? -st->shift : st->shift,
                                   out);
    const SchedCycles *cy = &s->cyc[st->cyc - 1];
    size_t len = (size_t)cy->len, full = reps / len, w = reps % len;
    size_t *pre = malloc((2 * len + 1) * sizeof *pre);
    if (!pre)
        return CV_ERR_NOMEM;
    /* position i of a cycle (read backwards when back) gets reps / len
       times the cycle's sum and the window of the last reps % len values
       before and at it, as sched_add_rotations */
    for (size_t b = 0; b < (size_t)p; b += len) {
        pre[0] = 0;
        for (size_t i = 0; i < 2 * len; i++) {
            size_t q = back ? len - 1 - i % len : i % len;
            pre[i + 1] = pre[i] + in[cy->member[b + q]];
        }
        for (size_t i = 0; i < len; i++) {
            size_t at = i + len, q = back ? len - 1 - i : i;
            out[cy->member[b + q]] +=
                full * pre[len] + pre[at + 1] - pre[at + 1 - w];
        }
    }
    free(pre);
    return CV_OK;
}

/* A spread entry's totals: every rank does what the entry lists. */
static void totals_spread(const Schedule *s, const Step *st, size_t reps,
                          SchedTotals *t, size_t *snt)
{
    size_t ts = dtype_size(s->call.dtype), np = (size_t)s->call.nranks;
    size_t *rcv = snt + np, *red = snt + 2 * np, out = 0, red1 = 0;
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *tr = &s->xfers[st->first + i];
        size_t bytes = tr->count * ts;
        red1 += tr->op == XFER_REDUCE ? bytes : 0;
        out += tr->src != tr->dst ? bytes : 0;
    }
    for (size_t r = 0; r < np; r++)
        snt[r] += reps * out, rcv[r] += reps * out, red[r] += reps * red1;
    t->total_bytes += reps * np * out;
    t->steps += reps;
    t->xfers += reps * np * st->n;
}

/* An entry's totals: its own per rank into bs (sent, received, reduced;
 * for transfers flagged XF_BACK into bs + 3 p), moved over its
 * repetitions into snt. */
static CvError totals_entry(const Schedule *s, const Step *st, size_t reps,
                            SchedTotals *t, size_t *snt, size_t *bs)
{
    size_t ts = dtype_size(s->call.dtype), np = (size_t)s->call.nranks;
    CvError e = CV_OK;
    if (reps > 1)
        memset(bs, 0, 6 * np * sizeof *bs);
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *tr = &s->xfers[st->first + i];
        size_t bytes = tr->count * ts;
        size_t *b = reps > 1 && (tr->flags & XF_BACK) ? bs + 3 * np
                    : reps > 1 ? bs : snt;
        if (tr->op == XFER_REDUCE)
            b[2 * np + (size_t)tr->dst] += bytes;
        if (tr->src == tr->dst)
            continue;
        b[tr->src] += bytes;
        b[np + (size_t)tr->dst] += bytes;
        t->total_bytes += reps * bytes;
    }
    for (int d = 0; d < 2 && reps > 1; d++)
        for (size_t a = 0; a < 3 && !e; a++)
            e = sched_add_moves(s, st, bs + (3 * (size_t)d + a) * np, reps,
                                d == 1, snt + a * np);
    t->steps += reps;
    t->xfers += reps * st->n;
    return e;
}

CvError sched_totals(const Schedule *s, SchedTotals *t, size_t *sent,
                     size_t *recvd)
{
    int p = s->call.nranks;
    size_t np = (size_t)p;
    memset(t, 0, sizeof *t);
    /* totals, and one repeated entry's own (moved into the totals) */
    size_t *snt = calloc(np * 9, sizeof *snt);
    if (!snt)
        return CV_ERR_NOMEM;
    size_t *rcv = snt + np, *red = snt + 2 * np;
    CvError e = CV_OK;
    for (size_t k = 0; k < s->nsteps && !e; k++) {
        const Step *st = &s->steps[k];
        size_t reps = s->compact ? st->reps : 1;
        if (st->spread)
            totals_spread(s, st, reps, t, snt);
        else
            e = totals_entry(s, st, reps, t, snt, snt + 3 * np);
    }
    for (int r = 0; r < p; r++) {
        if (snt[r] > t->max_sent) t->max_sent = snt[r];
        if (rcv[r] > t->max_recvd) t->max_recvd = rcv[r];
        if (red[r] > t->max_reduced) t->max_reduced = red[r];
        if (sent) sent[r] = snt[r];
        if (recvd) recvd[r] = rcv[r];
    }
    free(snt);
    return e;
}

/* ---------------------------------------------------------------- names */

const char *xfer_op_name(XferOp op)
{
    return op == XFER_COPY ? "copy" : op == XFER_REDUCE ? "reduce" : "?";
}

static const char *const buf_names[BUF_COUNT] = {
    [BUF_SEND] = "send", [BUF_RECV] = "recv", [BUF_TMP] = "tmp",
};

const char *buf_name(BufId b) { return b < BUF_COUNT ? buf_names[b] : "?"; }

int buf_parse(const char *s)
{
    for (int b = 0; s && b < BUF_COUNT; b++)
        if (!strcasecmp(s, buf_names[b]))
            return b;
    return -1;
}

size_t sched_bytes(const Schedule *s)
{
    size_t es = dtype_size(s->call.dtype), total = 0;
    for (int r = 0; r < s->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++) {
            size_t n = sched_bufsize(s, r, (BufId)b);
            if (n > (SIZE_MAX - total) / es)
                return SIZE_MAX;
            total += n * es;
        }
    return total;
}

double sched_traffic(const Schedule *s)
{
    double es = (double)dtype_size(s->call.dtype), t = 0;
    SchedFuse f; /* out of memory: none known, every one counted */
    bool fused = sched_fuse_build(&f, s) == CV_OK;
    for (size_t i = 0; i < s->nxfers; i++)
        if (!fused || !f.skip[i])
            t += (double)s->xfers[i].count * es *
                 (s->xfers[i].op == XFER_REDUCE ? 3 : 2);
    sched_fuse_free(&f);
    return t;
}
