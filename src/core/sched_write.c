/* sched_write.c - any schedule written as collviz's schedule text
 * (sched_text.h), which sched_text_parse reads back to the same one. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/msccl.h"
#include "core/sched_text.h"

/* Text being written. */
typedef struct {
    char *s;
    size_t n, cap;
    bool nomem;
} Out;

static void put(Out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(Out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = o->nomem || n < 0 ? NULL
              : grow_array(o->s, &o->cap, o->n + (size_t)n + 1, 1, 4096);
    if (!s) {
        o->nomem = true;
        return;
    }
    o->s = s;
    va_start(ap, fmt);
    vsnprintf(o->s + o->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    o->n += (size_t)n;
}

static size_t gcd(size_t a, size_t b)
{
    while (b) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The largest unit that divides the call's count, every tmp size, offset
 * and count (1 when the count is 0). */
static size_t unit_of(const Schedule *s)
{
    size_t g = s->call.count;
    if (!g) /* count 0: written in elements ("count 0"), whatever tmp is */
        return 1;
    for (int r = 0; r < s->call.nranks; r++)
        g = gcd(g, sched_bufsize(s, r, BUF_TMP));
    for (size_t i = 0; i < s->nxfers && g != 1; i++) {
        const Transfer *x = &s->xfers[i];
        g = gcd(gcd(g, x->src_off), gcd(x->dst_off, x->count));
    }
    return g ? g : 1;
}

static void header(Out *o, const Schedule *s, size_t g)
{
    const CollCall *c = &s->call;
    put(o, "# %s -a %s -p %d: %zu steps\n", coll_name(c->kind),
        s->algo ? s->algo : "?", c->nranks, s->nsteps);
    put(o, "collective %s\nranks %d\n", coll_name(c->kind), c->nranks);
    if (c->count)
        put(o, "parts %zu\n", c->count / g);
    else /* the empty call: no steps */
        put(o, "count 0\n");
    if (coll_is_rooted(c->kind))
        put(o, "root %d\n", c->root);
    if (c->in_place)
        put(o, "in-place\n");
    size_t t0 = sched_bufsize(s, 0, BUF_TMP);
    bool same = true;
    for (int r = 1; r < c->nranks; r++)
        same = same && sched_bufsize(s, r, BUF_TMP) == t0;
    if (same)
        put(o, "tmp %zu\n", t0 / g);
    for (int r = 0; !same && r < c->nranks; r++)
        put(o, "tmp r%d %zu\n", r, sched_bufsize(s, r, BUF_TMP) / g);
}

static void body(Out *o, const Schedule *s, size_t g)
{
    for (size_t k = 0; k < s->nsteps; k++) {
        const Step *st = &s->steps[k];
        put(o, "\nstep%s%s\n", st->phase && *st->phase ? " " : "",
            st->phase ? st->phase : "");
        for (size_t i = st->first; i < st->first + st->n; i++) {
            const Transfer *x = &s->xfers[i];
            put(o, "r%d.%s[%zu:%zu] -> r%d.%s[%zu:%zu]%s%s\n", x->src,
                buf_name((BufId)x->src_buf), x->src_off / g,
                (x->src_off + x->count) / g, x->dst,
                buf_name((BufId)x->dst_buf), x->dst_off / g,
                (x->dst_off + x->count) / g,
                x->op == XFER_REDUCE ? " reduce" : "",
                x->flags & XF_SWITCH ? " switch" : "");
        }
    }
}

/* What writes a written-out schedule into o: the text or the XML. */
typedef CvError (*WriteFn)(const Schedule *s, Out *o);

/* Schedule in, written out first when compact, written by fn into *out
 * (malloc'd, NUL-terminated, *len bytes). */
static CvError write_with(const Schedule *in, WriteFn fn, char **out,
                          size_t *len)
{
    Schedule ex = {0};
    const Schedule *s = in;
    *out = NULL;
    *len = 0;
    if (!sched_written_out(in)) {
        CvError e = sched_expand(in, &ex);
        if (e) {
            sched_fini(&ex);
            return e;
        }
        s = &ex;
    }
    Out o = {0};
    CvError e = fn(s, &o);
    if (!e && o.nomem)
        e = CV_ERR_NOMEM;
    if (s == &ex)
        sched_fini(&ex);
    if (e || !o.s) {
        free(o.s);
        return e ? e : CV_ERR_NOMEM;
    }
    *out = o.s;
    *len = o.n;
    return CV_OK;
}

static CvError text_build(const Schedule *s, Out *o)
{
    size_t g = unit_of(s);
    if (s->nxfers > SCHED_TEXT_MAX_XFERS || s->nsteps > SCHED_TEXT_MAX_STEPS ||
        (s->call.count / g) > SCHED_TEXT_MAX_UNITS)
        return CV_ERR_LIMIT;
    for (int r = 0; r < s->call.nranks; r++)
        if (sched_bufsize(s, r, BUF_TMP) / g > SCHED_TEXT_MAX_UNITS)
            return CV_ERR_LIMIT;
    header(o, s, g);
    body(o, s, g);
    return CV_OK;
}

CvError sched_text_write(const Schedule *in, char **text, size_t *len)
{
    return write_with(in, text_build, text, len);
}

/* ----------------------------------------------------------- MSCCL XML */

/* A step of a threadblock being written. */
typedef struct {
    const char *type;     /* s, r, rrc, cpy, re, nop */
    const Transfer *x;    /* its transfer (NULL: a nop) */
    int depid, deps;      /* the step it waits for (-1: none) */
    bool hasdep;          /* another waits for it */
    size_t step;          /* the schedule's step (cvstep) */
} WOp;

typedef struct {
    int send, recv, chan; /* peers (-1: none), channel */
    WOp *ops;
    size_t n, cap;
} WTb;

/* A GPU being written: its threadblocks, which one talks to a peer on a
 * channel, and the steps of its last busy schedule step. */
typedef struct {
    WTb *tbs;
    size_t n, cap;
    int **chan_tb;        /* [peer][chan]: tb (-1: none); peer p: local */
    int *nchan;           /* [peer]: channels made */
    size_t gstep;         /* the schedule step of group (SIZE_MAX: none) */
    int (*group)[2];      /* its steps: tb, index */
    size_t ngroup, capg;
    int bar[2];           /* what the next step waits for (-1: nothing) */
    int bar_tb;           /* the tb of nops that join a step (-1: none) */
} WGpu;

typedef struct {
    const Schedule *s;
    int p;
    WGpu *g;
    bool nomem;
    bool limit;  /* more threadblocks or channels than MSCCL reads */
} W;

static int new_tb(W *w, int g, int send, int recv, int chan)
{
    WGpu *gp = &w->g[g];
    if (gp->n >= MSCCL_MAX_TBS) {
        w->limit = true;
        return -1;
    }
    WTb *t = grow_array(gp->tbs, &gp->cap, gp->n + 1, sizeof *t, 8);
    if (!t) {
        w->nomem = true;
        return -1;
    }
    gp->tbs = t;
    t[gp->n] = (WTb){send, recv, chan, NULL, 0, 0};
    return (int)gp->n++;
}

/* Gpu g's threadblock for peer q (g itself: its local work) on chan. */
static int tb_for(W *w, int g, int q, int chan)
{
    WGpu *gp = &w->g[g];
    if (chan > MSCCL_MAX_CHAN) {
        w->limit = true;
        return -1;
    }
    if (chan >= gp->nchan[q]) {
        int *c = realloc(gp->chan_tb[q], (size_t)(chan + 1) * sizeof *c);
        if (!c) {
            w->nomem = true;
            return -1;
        }
        for (int i = gp->nchan[q]; i <= chan; i++)
            c[i] = -1;
        gp->chan_tb[q] = c, gp->nchan[q] = chan + 1;
    }
    if (gp->chan_tb[q][chan] < 0)
        gp->chan_tb[q][chan] = q == g ? new_tb(w, g, -1, -1, chan)
                                      : new_tb(w, g, q, q, chan);
    return gp->chan_tb[q][chan];
}

static void add_op(W *w, int g, int tb, const char *type, const Transfer *x,
                   size_t step, int dep_tb, int dep_op)
{
    WTb *t = &w->g[g].tbs[tb];
    WOp *o = grow_array(t->ops, &t->cap, t->n + 1, sizeof *o, 8);
    if (!o) {
        w->nomem = true;
        return;
    }
    t->ops = o;
    bool dep = dep_tb >= 0 && dep_tb != tb;
    o[t->n++] = (WOp){type, x, dep ? dep_tb : -1, dep ? dep_op : -1, false,
                      step};
    if (dep)
        w->g[g].tbs[dep_tb].ops[dep_op].hasdep = true;
}

/* Close gpu g's last busy step: what its next one waits for is that
 * step's one op, or a nop after nops that wait for each of them. */
static void join(W *w, int g)
{
    WGpu *gp = &w->g[g];
    if (gp->ngroup == 1) {
        gp->bar[0] = gp->group[0][0], gp->bar[1] = gp->group[0][1];
    } else if (gp->ngroup > 1) {
        if (gp->bar_tb < 0 && (gp->bar_tb = new_tb(w, g, -1, -1, 0)) < 0)
            return;
        for (size_t i = 0; i < gp->ngroup && !w->nomem; i++)
            add_op(w, g, gp->bar_tb, "nop", NULL, gp->gstep, gp->group[i][0],
                   gp->group[i][1]);
        gp->bar[0] = gp->bar_tb;
        gp->bar[1] = (int)gp->tbs[gp->bar_tb].n - 1;
    }
    gp->ngroup = 0;
}

/* One step of gpu g's threadblock tb for transfer x, in schedule step k,
 * waiting for the gpu's last busy step. */
static void place(W *w, int g, int tb, const char *type, const Transfer *x,
                  size_t k)
{
    WGpu *gp = &w->g[g];
    if (tb < 0)
        return;
    if (gp->gstep != k) {
        join(w, g);
        gp->gstep = k;
    }
    add_op(w, g, tb, type, x, k, gp->bar[0], gp->bar[1]);
    int (*gr)[2] = grow_array(gp->group, &gp->capg, gp->ngroup + 1,
                              sizeof *gr, 8);
    if (!gr) {
        w->nomem = true;
        return;
    }
    gp->group = gr;
    gr[gp->ngroup][0] = tb;
    gr[gp->ngroup++][1] = (int)gp->tbs[tb].n - 1;
}

static int by_pair(const void *pa, const void *pb)
{
    const Transfer *x = *(const Transfer *const *)pa,
                   *y = *(const Transfer *const *)pb;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Schedule step k: each transfer of a pair of ranks on its own channel
 * (the n-th of the step between the two on channel n); every send of the
 * step before the receives and local steps. */
static void one_step(W *w, size_t k, const Transfer **xs, int *chan)
{
    const Step *st = &w->s->steps[k];
    for (size_t i = 0; i < st->n; i++)
        xs[i] = &w->s->xfers[st->first + i];
    qsort(xs, st->n, sizeof *xs, by_pair);
    for (size_t i = 0; i < st->n; i++)
        chan[i] = i && xs[i]->src == xs[i - 1]->src &&
                  xs[i]->dst == xs[i - 1]->dst ? chan[i - 1] + 1 : 0;
    for (size_t i = 0; i < st->n; i++)
        if (xs[i]->src != xs[i]->dst)
            place(w, xs[i]->src, tb_for(w, xs[i]->src, xs[i]->dst, chan[i]),
                  "s", xs[i], k);
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *x = xs[i];
        bool red = x->op == XFER_REDUCE;
        place(w, x->dst, tb_for(w, x->dst, x->src, chan[i]),
              x->src == x->dst ? (red ? "re" : "cpy") : (red ? "rrc" : "r"),
              x, k);
    }
}

/* The letter of buffer b in MSCCL's XML: in place, recv is the larger of
 * NCCL's two overlapping buffers, o but for reducescatter (its input, i;
 * msccl.c moves the smaller one's offsets). */
static char buf_letter(const CollCall *c, int b)
{
    if (b == BUF_RECV && c->in_place && c->kind == COLL_REDUCESCATTER)
        return 'i';
    return b == BUF_SEND ? 'i' : b == BUF_RECV ? 'o' : 's';
}

/* One <step> of gpu g's threadblock. */
static void put_op(Out *o, const W *w, int g, size_t i, const WOp *op,
                   size_t unit)
{
    const Transfer *x = op->x;
    bool nop = !x, send = x && !strcmp(op->type, "s"),
         red_here = x && !strcmp(op->type, "rrc");
    int sb = nop ? BUF_SEND : red_here ? x->dst_buf : x->src_buf;
    long so = nop ? -1 : (long)((red_here ? x->dst_off : x->src_off) / unit);
    long doff = nop ? -1 : (long)(x->dst_off / unit);
    put(o, "      <step s=\"%zu\" type=\"%s\" srcbuf=\"%c\" srcoff=\"%ld\" "
        "dstbuf=\"%c\" dstoff=\"%ld\" cnt=\"%zu\" depid=\"%d\" deps=\"%d\" "
        "hasdep=\"%d\" cvstep=\"%zu\"%s/>\n", i, op->type, buf_letter(&w->s->call, sb),
        so, nop ? 'o' : buf_letter(&w->s->call, x->dst_buf), doff,
        nop ? 0 : x->count / unit, op->depid, op->deps, op->hasdep,
        op->step, x && !send && (x->flags & XF_SWITCH) ? " cvswitch=\"1\""
                                                       : "");
    (void)g;
}

/* Attribute text: the characters XML reserves escaped. */
static void put_attr(Out *o, const char *s)
{
    for (; s && *s; s++)
        put(o, "%s", *s == '&' ? "&amp;" : *s == '<' ? "&lt;"
                     : *s == '>' ? "&gt;" : *s == '"' ? "&quot;"
                     : (char[2]){*s, 0});
}

static void put_xml(Out *o, const W *w, size_t unit)
{
    const CollCall *c = &w->s->call;
    int nch = 1;
    for (int g = 0; g < w->p; g++)
        for (size_t t = 0; t < w->g[g].n; t++)
            nch = w->g[g].tbs[t].chan + 1 > nch ? w->g[g].tbs[t].chan + 1
                                                : nch;
    put(o, "<algo name=\"");
    put_attr(o, w->s->algo);
    put(o, "\" proto=\"Simple\" nchannels=\"%d\" nchunksperloop=\"%zu\" "
        "ngpus=\"%d\" coll=\"%s\" inplace=\"%d\"", nch,
        (c->count ? c->count / unit : 1) * coll_size_blocks(c->kind, w->p),
        w->p, c->kind == COLL_REDUCESCATTER ? "reduce_scatter"
                                            : coll_name(c->kind),
        c->in_place);
    if (coll_is_rooted(c->kind))
        put(o, " root=\"%d\"", c->root);
    put(o, ">\n");
    for (int g = 0; g < w->p; g++) {
        put(o, "  <gpu id=\"%d\" i_chunks=\"%zu\" o_chunks=\"%zu\" "
            "s_chunks=\"%zu\">\n", g,
            sched_bufsize(w->s, g, BUF_SEND) / unit,
            sched_bufsize(w->s, g, BUF_RECV) / unit,
            sched_bufsize(w->s, g, BUF_TMP) / unit);
        for (size_t t = 0; t < w->g[g].n; t++) {
            const WTb *tb = &w->g[g].tbs[t];
            put(o, "    <tb id=\"%zu\" send=\"%d\" recv=\"%d\" chan=\"%d\">\n",
                t, tb->send, tb->recv, tb->chan);
            for (size_t i = 0; i < tb->n; i++)
                put_op(o, w, g, i, &tb->ops[i], unit);
            put(o, "    </tb>\n");
        }
        put(o, "  </gpu>\n");
    }
    put(o, "</algo>\n");
}

static void w_free(W *w)
{
    for (int g = 0; w->g && g < w->p; g++) {
        WGpu *gp = &w->g[g];
        for (size_t t = 0; t < gp->n; t++)
            free(gp->tbs[t].ops);
        for (int q = 0; gp->chan_tb && q < w->p; q++)
            free(gp->chan_tb[q]);
        free(gp->tbs), free(gp->chan_tb), free(gp->nchan), free(gp->group);
    }
    free(w->g);
}

static CvError w_init(W *w, const Schedule *s)
{
    *w = (W){.s = s, .p = s->call.nranks,
             .g = calloc((size_t)s->call.nranks, sizeof *w->g)};
    for (int g = 0; w->g && g < w->p; g++) {
        WGpu *gp = &w->g[g];
        gp->chan_tb = calloc((size_t)w->p, sizeof *gp->chan_tb);
        gp->nchan = calloc((size_t)w->p, sizeof *gp->nchan);
        gp->gstep = SIZE_MAX;
        gp->bar[0] = gp->bar[1] = gp->bar_tb = -1;
        if (!gp->chan_tb || !gp->nchan)
            return CV_ERR_NOMEM;
    }
    return w->g ? CV_OK : CV_ERR_NOMEM;
}

static CvError msccl_build(const Schedule *s, Out *o)
{
    W w;
    size_t most = 1;
    for (size_t k = 0; k < s->nsteps; k++)
        most = s->steps[k].n > most ? s->steps[k].n : most;
    const Transfer **xs = malloc(most * sizeof *xs);
    int *chan = malloc(most * sizeof *chan);
    CvError e = xs && chan ? w_init(&w, s) : CV_ERR_NOMEM;
    for (size_t k = 0; !e && k < s->nsteps && !w.nomem && !w.limit; k++)
        one_step(&w, k, xs, chan);
    if (!e && !w.nomem && !w.limit)
        put_xml(o, &w, unit_of(s));
    e = e ? e : w.limit ? CV_ERR_LIMIT
        : w.nomem || o->nomem ? CV_ERR_NOMEM : CV_OK;
    if (xs && chan)
        w_free(&w);
    free(xs), free(chan);
    return e;
}

CvError msccl_write(const Schedule *in, char **xml, size_t *len)
{
    *xml = NULL;
    *len = 0;
    if (in->call.nranks > COLL_MAX_RANKS)
        return CV_ERR_LIMIT;
    return write_with(in, msccl_build, xml, len);
}
