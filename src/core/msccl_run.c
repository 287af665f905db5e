/* msccl_run.c - an MSCCL algorithm, read and checked (msccl.c), run as
 * its runtime runs it: its threadblocks round by round, each transfer in
 * the first collviz step it can happen in (msccl.h). */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/msccl_impl.h"

/* ------------------------------------------------------------- rounds */

/* A transfer and the round it happens in. */
typedef struct {
    long round;
    size_t seq;      /* order of emission, for a stable sort */
    Transfer x;
    unsigned line;
} Move;

/* A send posted and not yet received: what a connection holds. */
typedef struct {
    long round;      /* round it was posted in */
    int gpu, buf;    /* where its data lies */
    long off, cnt;
    unsigned line;
} Post;

typedef struct {
    Post *q;
    size_t head, n, cap;
} Fifo;

/* The run: transfers so far, each connection's posts (by receiving tb),
 * and the round each chunk of each buffer was last written in. */
typedef struct {
    Move *m;
    size_t n, cap;
    bool nomem;
    Fifo **fifo;     /* [gpu][tb] */
    int32_t **last;  /* [gpu * BUF_COUNT + buf][chunk] */
    int (*live)[2];  /* the threadblocks with steps left: gpu, tb */
    size_t nlive;
    size_t work;     /* threadblocks looked at so far (MSCCL_MAX_WORK) */
} Run;

/* Threadblocks a file's reading may look at in all: what bounds the time
 * a hostile file takes (a second or two). */
#define MSCCL_MAX_WORK ((size_t)1 << 27)

static void move(const Algo *a, Run *rn, long round, int src, int sb, long so,
                 int dst, int db, long doff, long cnt, XferOp op,
                 unsigned line)
{
    Move *m = grow_array(rn->m, &rn->cap, rn->n + 1, sizeof *m, 256);
    if (!m) {
        rn->nomem = true;
        return;
    }
    rn->m = m;
    m[rn->n] = (Move){round, rn->n,
                      {src, dst, (uint8_t)sb, (uint8_t)db, (uint8_t)op, 0,
                       (size_t)so, (size_t)doff, (size_t)cnt}, line};
    rn->n++;
    int32_t *w = rn->last[dst * BUF_COUNT + db];
    long have = msccl_buf_chunks(a, dst, db); /* staging beyond: fresh */
    for (long i = 0; w && i < cnt && doff + i < have; i++)
        w[doff + i] = w[doff + i] > round ? w[doff + i] : (int32_t)round;
}

/* The transfer just made is a reducing switch's work where op says so. */
static void mark_switch(Run *rn, const Op *op)
{
    if (op->sw && rn->n)
        rn->m[rn->n - 1].x.flags = XF_SWITCH;
}

/* Whether op may act in round k: the step it waits for finished before. */
static bool ready(const Algo *a, int g, const Op *op, long k)
{
    return k >= op->hint &&
           (op->depid < 0 ||
            a->gpus[g].tbs[op->depid].ops[op->deps].done < k);
}

static Op *current(Tb *tb)
{
    return tb->pc < tb->nops ? &tb->ops[tb->pc] : NULL;
}

/* Whether a receive reduces somewhere other than where its source lies
 * (rrs: nowhere), so that the source is copied there first. */
static bool staged(const Op *r)
{
    return r->kind == MS_RRS ||
           ((r->kind == MS_RRC || r->kind == MS_RRCS) &&
            (r->sbuf != r->dbuf || r->soff != r->doff));
}

/* Post the send of op (tb of gpu g) to its connection in round k. */
static void post(Algo *a, Run *rn, int g, const Tb *tb, const Op *op, long k)
{
    int p = tb->send, u = msccl_peer_tb(a, p, g, tb->chan, false);
    Fifo *f = &rn->fifo[p][u];
    Post *q = grow_array(f->q, &f->cap, f->n + 1, sizeof *q, 16);
    if (!q) {
        rn->nomem = true;
        return;
    }
    f->q = q;
    q[f->n++] = (Post){k, g, op->kind == MS_S ? op->sbuf
                             : op->kind == MS_RRS ? BUF_TMP : op->dbuf,
                       op->kind == MS_S ? op->soff
                       : op->kind == MS_RRS ? op->stage : op->doff,
                       op->cnt, op->line};
}

/* Whether op finishes at once in round k: a nop whose wait is over, or a
 * send whose data is there (it reads the state before round k, posts it
 * to its connection and lets its threadblock go on). */
static bool instant(const Algo *a, int g, const Op *op, long k)
{
    return ready(a, g, op, k) &&
           (op->kind == MS_NOP ||
            (msccl_sends(op->kind) &&
             (!msccl_receives(op->kind) || op->recvd < k)));
}

/* The steps that finish at once in round k, before it. */
static bool instants(Algo *a, Run *rn, long k, size_t *left)
{
    bool any = false, more = true;
    while (more && rn->work <= MSCCL_MAX_WORK) {
        more = false;
        for (size_t j = 0; j < rn->nlive; j++, rn->work++) {
            int g = rn->live[j][0];
            Tb *tb = &a->gpus[g].tbs[rn->live[j][1]];
            Op *op;
            while ((op = current(tb)) && instant(a, g, op, k)) {
                if (op->kind != MS_NOP)
                    post(a, rn, g, tb, op, k);
                op->done = k - 1;
                tb->pc++, (*left)--;
                more = any = true;
            }
        }
    }
    return any;
}

/* Round k's local steps and staging copies, for tb of gpu g. */
static bool act(Algo *a, Run *rn, int g, size_t t, long k)
{
    Tb *tb = &a->gpus[g].tbs[t];
    Op *op = current(tb);
    if (!op || !ready(a, g, op, k) || op->done != LONG_MAX)
        return false;
    if (op->kind == MS_CPY || op->kind == MS_RE) {
        move(a, rn, k, g, op->sbuf, op->soff, g, op->dbuf, op->doff, op->cnt,
             op->kind == MS_RE ? XFER_REDUCE : XFER_COPY, op->line);
        mark_switch(rn, op);
        op->done = k;
        return true;
    }
    if (staged(op) && op->stage < 0) { /* the source where it reduces */
        op->stage = op->kind == MS_RRS ? a->gpus[g].stage : op->doff;
        a->gpus[g].stage += op->kind == MS_RRS ? op->cnt : 0;
        op->prep = k;
        move(a, rn, k, g, op->sbuf, op->soff, g,
             op->kind == MS_RRS ? BUF_TMP : op->dbuf, op->stage, op->cnt,
             XFER_COPY, op->line);
        return true;
    }
    return false;
}

/* Whether post p's data was overwritten after it was posted, before k. */
static bool overwritten(const Algo *a, const Run *rn, const Post *p, long k)
{
    const int32_t *w = rn->last[p->gpu * BUF_COUNT + p->buf];
    long n = msccl_buf_chunks(a, p->gpu, p->buf); /* a staged one: fresh */
    for (long i = 0; w && i < p->cnt && p->off + i < n; i++)
        if (w[p->off + i] >= p->round && w[p->off + i] < k)
            return true;
    return false;
}

/* Round k's receive for tb of gpu g: the connection's oldest post. */
static CvError receive(Algo *a, Run *rn, int g, size_t t, long k,
                       bool *acted)
{
    Tb *tb = &a->gpus[g].tbs[t];
    Op *r = current(tb);
    Fifo *f = &rn->fifo[g][t];
    if (!r || !msccl_receives(r->kind) || r->recvd != LONG_MAX ||
        !ready(a, g, r, k) || (staged(r) && r->prep >= k) ||
        f->head == f->n || f->q[f->head].round > k)
        return CV_OK;
    Post p = f->q[f->head++];
    if (p.cnt != r->cnt)
        return msccl_fail(a->why, a->whylen, r->line, "this step receives %ld "
                     "chunks, and the send it meets (line %u) sends %ld",
                     r->cnt, p.line, p.cnt);
    if (overwritten(a, rn, &p, k)) { /* what the runtime sent: a copy */
        long at = a->gpus[p.gpu].stage;
        a->gpus[p.gpu].stage += p.cnt;
        move(a, rn, p.round, p.gpu, p.buf, p.off, p.gpu, BUF_TMP, at, p.cnt,
             XFER_COPY, p.line);
        p.buf = BUF_TMP, p.off = at;
    }
    bool red = r->kind == MS_RRS || r->kind == MS_RRC || r->kind == MS_RRCS;
    move(a, rn, k, p.gpu, p.buf, p.off, g, r->kind == MS_RRS ? BUF_TMP
         : r->dbuf, r->kind == MS_RRS ? r->stage : r->doff, r->cnt,
         red ? XFER_REDUCE : XFER_COPY, r->line);
    mark_switch(rn, r);
    r->recvd = k;
    if (!msccl_sends(r->kind))
        r->done = k;
    *acted = true;
    return CV_OK;
}

/* Every threadblock past the step it finished in round k; those with
 * none left leave the live list. */
static bool finish(Algo *a, Run *rn, long k, size_t *left)
{
    bool any = false;
    size_t n = 0;
    for (size_t j = 0; j < rn->nlive; j++, rn->work++) {
        Tb *tb = &a->gpus[rn->live[j][0]].tbs[rn->live[j][1]];
        Op *op = current(tb);
        if (op && op->done <= k) {
            tb->pc++, (*left)--;
            any = true;
        }
        if (current(tb))
            memcpy(rn->live[n++], rn->live[j], sizeof rn->live[j]);
    }
    rn->nlive = n;
    return any;
}

/* The first round after k that a live threadblock's step waits for with
 * its cvstep alone (LONG_MAX: none). */
static long next_hint(Algo *a, Run *rn, long k)
{
    long next = LONG_MAX;
    for (size_t j = 0; j < rn->nlive; j++) {
        Op *op = current(&a->gpus[rn->live[j][0]].tbs[rn->live[j][1]]);
        if (op && op->hint > k && op->hint < next)
            next = op->hint;
    }
    return next;
}

/* No threadblock moves: one sentence about the first that waits. */
static CvError stuck(Algo *a)
{
    for (int g = 0; g < a->ngpus; g++)
        for (size_t i = 0; i < a->gpus[g].ntbs; i++) {
            Tb *tb = &a->gpus[g].tbs[i];
            Op *op = current(tb);
            if (!op)
                continue;
            const char *why = op->depid >= 0 &&
                              !ready(a, g, op, LONG_MAX - 1)
                ? "the step it waits for (depid, deps) never finishes: a "
                  "cycle of dependencies"
                : "its peer never sends to it: a deadlock, or a receive "
                  "with no send";
            return msccl_fail(a->why, a->whylen, op->line,
                              "gpu %d's threadblock "
                              "%zu never gets past this %s step: %s", g, i,
                              msccl_op_names[op->kind], why);
        }
    return CV_ERR_ARG;
}

/* Sends no receive took: one sentence about the first. */
static CvError unreceived(Algo *a, Run *rn)
{
    for (int g = 0; g < a->ngpus; g++)
        for (size_t i = 0; i < a->gpus[g].ntbs; i++) {
            Fifo *f = &rn->fifo[g][i];
            if (f->head < f->n)
                return msccl_fail(a->why, a->whylen, f->q[f->head].line, "gpu "
                             "%d never receives what this step sends it",
                             g);
        }
    return CV_OK;
}

static CvError rounds(Algo *a, Run *rn)
{
    size_t left = a->nops;
    for (long k = 0; left; k++) {
        bool acted = instants(a, rn, k, &left);
        if (k > 4 * (long)SCHED_TEXT_MAX_STEPS)
            return msccl_fail(a->why, a->whylen, 0, "more than %u steps",
                              SCHED_TEXT_MAX_STEPS);
        for (size_t j = 0; j < rn->nlive; j++, rn->work++)
            acted = act(a, rn, rn->live[j][0], (size_t)rn->live[j][1], k) ||
                    acted;
        for (size_t j = 0; j < rn->nlive; j++, rn->work++) {
            CvError e = receive(a, rn, rn->live[j][0],
                                (size_t)rn->live[j][1], k, &acted);
            if (e)
                return e;
        }
        if (rn->nomem)
            return msccl_fail(a->why, a->whylen, 0, "out of memory");
        if (rn->work > MSCCL_MAX_WORK)
            return msccl_fail(a->why, a->whylen, 0, "following its "
                              "threadblocks would take more than %zu looks "
                              "at them, more than collviz spends on one "
                              "file", (size_t)MSCCL_MAX_WORK);
        acted = finish(a, rn, k, &left) || acted;
        long hint = acted || !left ? LONG_MAX : next_hint(a, rn, k);
        if (hint != LONG_MAX) /* rounds where nothing can happen */
            k = hint - 1;
        else if (!acted && left)
            return stuck(a);
    }
    return unreceived(a, rn);
}

/* Allocate the run's connections and write rounds; then run it. */
static CvError run_rounds(Algo *a, Run *rn)
{
    size_t chunks = 0, ng = a->ngpus > 0 ? (size_t)a->ngpus : 0;
    rn->fifo = calloc(ng, sizeof *rn->fifo);
    rn->last = calloc(ng * BUF_COUNT, sizeof *rn->last);
    bool ok = rn->fifo && rn->last;
    for (int g = 0; ok && g < a->ngpus; g++) {
        Gpu *gpu = &a->gpus[g];
        rn->fifo[g] = calloc(gpu->ntbs + 1, sizeof **rn->fifo);
        ok = rn->fifo[g] != NULL;
        for (int b = 0; ok && b < BUF_COUNT; b++) {
            long n = msccl_buf_chunks(a, g, b); /* staging beyond: fresh */
            size_t un = n > 0 ? (size_t)n : 0;
            chunks += un;
            if (chunks > (size_t)1 << 24)
                return msccl_fail(a->why, a->whylen, 0,
                                  "the buffers hold more "
                                  "than %d chunks in all", 1 << 24);
            rn->last[g * BUF_COUNT + b] = malloc((un + 1) * sizeof(int32_t));
            ok = rn->last[g * BUF_COUNT + b] != NULL;
            for (long i = 0; ok && i < n; i++)
                rn->last[g * BUF_COUNT + b][i] = -1;
        }
    }
    size_t ntbs = 0;
    for (int g = 0; g < a->ngpus; g++)
        ntbs += a->gpus[g].ntbs;
    rn->live = ok ? malloc((ntbs + 1) * sizeof *rn->live) : NULL;
    for (int g = 0; rn->live && g < a->ngpus; g++)
        for (size_t i = 0; i < a->gpus[g].ntbs; i++)
            if (a->gpus[g].tbs[i].nops) {
                rn->live[rn->nlive][0] = g;
                rn->live[rn->nlive++][1] = (int)i;
            }
    return rn->live ? rounds(a, rn)
                    : msccl_fail(a->why, a->whylen, 0, "out of memory");
}

static void run_free(const Algo *a, Run *rn)
{
    for (int g = 0; rn->fifo && g < a->ngpus; g++) {
        for (size_t i = 0; rn->fifo[g] && i < a->gpus[g].ntbs; i++)
            free(rn->fifo[g][i].q);
        free(rn->fifo[g]);
    }
    for (int i = 0; rn->last && i < a->ngpus * BUF_COUNT; i++)
        free(rn->last[i]);
    free(rn->fifo), free(rn->last), free(rn->m), free(rn->live);
}

/* ------------------------------------------------------ into the text */

static int by_round(const void *pa, const void *pb)
{
    const Move *x = pa, *y = pb;
    if (x->round != y->round)
        return x->round < y->round ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Text at the end of t (cap bytes, *n used); false when it does not
 * fit. */
static bool addf(char *t, size_t cap, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool addf(char *t, size_t cap, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = *n < cap ? vsnprintf(t + *n, cap - *n, fmt, ap) : -1;
    va_end(ap);
    if (k < 0 || (size_t)k >= cap - *n)
        return false;
    *n += (size_t)k;
    return true;
}

/* The moves, round by round, as collviz's schedule text (NULL: no
 * memory). A line is at most 128 bytes (two ends of 4-digit ranks and
 * 20-digit offsets, reduce, switch). */
static char *as_text(const Algo *a, const Run *mv, size_t *len)
{
    size_t cap = 512 + mv->n * 136 + (size_t)a->ngpus * 48, n = 0;
    char *t = malloc(cap);
    bool ok = t && addf(t, cap, &n, "collective %s\nranks %d\nparts %ld\n"
                        "root %d\n%s", coll_name(a->kind), a->ngpus,
                        a->parts, a->root, a->inplace ? "in-place\n" : "");
    for (int g = 0; ok && g < a->ngpus; g++)
        ok = addf(t, cap, &n, "tmp r%d %ld\n", g, a->gpus[g].stage);
    for (size_t i = 0; ok && i < mv->n; i++) {
        const Transfer *x = &mv->m[i].x;
        if (!i || mv->m[i].round != mv->m[i - 1].round)
            ok = addf(t, cap, &n, "step\n");
        ok = ok && addf(t, cap, &n, "r%d.%s[%zu:%zu] -> r%d.%s[%zu:%zu]%s%s\n",
                        x->src, buf_name((BufId)x->src_buf), x->src_off,
                        x->src_off + x->count, x->dst,
                        buf_name((BufId)x->dst_buf), x->dst_off,
                        x->dst_off + x->count,
                        x->op == XFER_REDUCE ? " reduce" : "",
                        x->flags & XF_SWITCH ? " switch" : "");
    }
    if (!ok) {
        free(t);
        return NULL;
    }
    *len = n;
    return t;
}

/* The moves as a SchedText, each transfer's line the XML's. */
static CvError into_text(Algo *a, Run *mv, const char *name,
                         SchedText *out)
{
    if (mv->n) /* none: an algorithm of no steps */
        qsort(mv->m, mv->n, sizeof *mv->m, by_round);
    size_t len;
    char *text = as_text(a, mv, &len), why[CV_WHY_LEN];
    if (!text)
        return msccl_fail(a->why, a->whylen, 0, "out of memory");
    CvError e = sched_text_parse(text, len, name, out, why, sizeof why);
    free(text);
    if (e) { /* a limit of the format: the text's line means nothing */
        const char *w = why + strspn(why, "0123456789");
        return msccl_fail(a->why, a->whylen, 0,
                          "%s", *w == ':' ? w + 2 : w), e;
    }
    for (size_t i = 0; i < mv->n; i++)
        out->line[i] = mv->m[i].line;
    for (size_t k = 0; k < out->unit.nsteps; k++)
        out->step_line[k] = out->line[out->unit.steps[k].first];
    return CV_OK;
}

CvError msccl_run(Algo *a, const char *name, SchedText *out)
{
    Run rn = {0};
    CvError e = run_rounds(a, &rn);
    if (!e)
        e = into_text(a, &rn, name, out);
    run_free(a, &rn);
    return e;
}
