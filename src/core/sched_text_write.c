/* sched_text_write.c - any schedule written as collviz's schedule text
 * (sched_text.h), which sched_text_parse reads back to the same one. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
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
    else
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

CvError sched_text_write(const Schedule *in, char **text, size_t *len)
{
    Schedule ex = {0};
    const Schedule *s = in;
    *text = NULL;
    *len = 0;
    if (!sched_written_out(in)) {
        CvError e = sched_expand(in, &ex);
        if (e) {
            sched_fini(&ex);
            return e;
        }
        s = &ex;
    }
    CvError e = CV_OK;
    size_t g = unit_of(s);
    if (s->nxfers > SCHED_TEXT_MAX_XFERS || s->nsteps > SCHED_TEXT_MAX_STEPS ||
        (s->call.count / g) > SCHED_TEXT_MAX_UNITS)
        e = CV_ERR_LIMIT;
    Out o = {0};
    if (!e) {
        header(&o, s, g);
        body(&o, s, g);
        e = o.nomem ? CV_ERR_NOMEM : CV_OK;
    }
    if (s == &ex)
        sched_fini(&ex);
    if (e || !o.s) {
        free(o.s);
        return e ? e : CV_ERR_NOMEM;
    }
    *text = o.s;
    *len = o.n;
    return CV_OK;
}
