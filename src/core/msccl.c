/* msccl.c - reading MSCCL's algorithm XML (msccl.h): the elements, their
 * checks, and the threadblocks run round by round into collviz steps. */
#include "core/msccl.h"
#include "core/msccl_impl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

/* ------------------------------------------------------------- the XML */

#define XML_ATTRS 16  /* attributes of one element */
#define XML_WORD 64   /* bytes of a name or a value */

/* One tag: <name k="v" ...>, </name> or <name .../>. */
typedef struct {
    char name[XML_WORD];
    int n;                              /* attributes */
    char key[XML_ATTRS][XML_WORD];
    char val[XML_ATTRS][XML_WORD];
    bool close;                         /* </name> */
    bool empty;                         /* <name/> */
    unsigned line;
} Tag;

typedef struct {
    const char *p, *end;
    unsigned line;
    char *why;
    size_t whylen;
} Xml;

/* Move past n bytes, counting lines. */
static void skip(Xml *x, size_t n)
{
    for (; n && x->p < x->end; n--, x->p++)
        x->line += *x->p == '\n';
}

/* Move past the next occurrence of s; false when there is none. */
static bool skip_past(Xml *x, const char *s)
{
    size_t k = strlen(s);
    while (x->p + k <= x->end) {
        if (!memcmp(x->p, s, k)) {
            skip(x, k);
            return true;
        }
        if (!*x->p)
            return false;
        skip(x, 1);
    }
    return false;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '-' || c == ':' ||
           c == '.';
}

static void blanks(Xml *x)
{
    while (x->p < x->end && (*x->p == ' ' || *x->p == '\t' || *x->p == '\n' ||
                             *x->p == '\r'))
        skip(x, 1);
}

/* A name into w; false when there is none or it is too long. */
static bool read_name(Xml *x, char *w)
{
    size_t n = 0;
    while (x->p + n < x->end && name_char(x->p[n]))
        n++;
    if (!n || n >= XML_WORD)
        return false;
    memcpy(w, x->p, n);
    w[n] = 0;
    skip(x, n);
    return true;
}

/* k="v" into the tag. */
static CvError read_attr(Xml *x, Tag *t)
{
    if (t->n == XML_ATTRS)
        return msccl_fail(x->why, x->whylen, x->line, "<%s> has more than %d "
                     "attributes", t->name, XML_ATTRS);
    if (!read_name(x, t->key[t->n]))
        return msccl_fail(x->why, x->whylen, x->line,
                          "<%s> holds something that "
                          "is not an attribute", t->name);
    blanks(x);
    char q = x->p + 1 < x->end && *x->p == '=' ? x->p[1] : 0;
    if (q != '"' && q != '\'')
        return msccl_fail(x->why, x->whylen, x->line,
                          "attribute %s of <%s> has "
                          "no quoted value", t->key[t->n], t->name);
    skip(x, 2);
    size_t n = 0;
    while (x->p + n < x->end && x->p[n] != q && x->p[n] != '<' && x->p[n])
        n++;
    if (x->p + n >= x->end || x->p[n] != q || n >= XML_WORD)
        return msccl_fail(x->why, x->whylen, x->line,
                          "attribute %s of <%s> has "
                          "no closing quote within %d bytes", t->key[t->n],
                          t->name, XML_WORD - 1);
    memcpy(t->val[t->n], x->p, n);
    t->val[t->n++][n] = 0;
    skip(x, n + 1);
    return CV_OK;
}

/* The rest of a tag after '<': its name, attributes and end. */
static CvError read_tag(Xml *x, Tag *t)
{
    memset(t, 0, sizeof *t);
    t->line = x->line;
    if (x->p < x->end && *x->p == '/') {
        t->close = true;
        skip(x, 1);
    }
    if (!read_name(x, t->name))
        return msccl_fail(x->why, x->whylen, x->line, "a '<' that starts no "
                     "element");
    for (;;) {
        blanks(x);
        if (x->p >= x->end || !*x->p)
            return msccl_fail(x->why, x->whylen, t->line, "<%s> is not closed "
                         "with '>'", t->name);
        if (*x->p == '>' || (*x->p == '/' && x->p + 1 < x->end &&
                             x->p[1] == '>')) {
            t->empty = *x->p == '/';
            skip(x, t->empty ? 2 : 1);
            return CV_OK;
        }
        CvError e = read_attr(x, t);
        if (e)
            return e;
    }
}

/* The next tag into t: 1, 0 at the end, -1 and a sentence. Text between
 * tags, declarations and comments are passed over. */
static int next_tag(Xml *x, Tag *t)
{
    for (;;) {
        while (x->p < x->end && *x->p != '<') {
            if (!*x->p)
                return msccl_fail(x->why, x->whylen, x->line,
                                  "a NUL byte: this "
                                  "is not text"), -1;
            skip(x, 1);
        }
        if (x->p >= x->end)
            return 0;
        skip(x, 1);
        const char *close = x->p < x->end && *x->p == '?' ? "?>"
                            : x->end - x->p >= 3 && !memcmp(x->p, "!--", 3)
                                ? "-->"
                            : x->p < x->end && *x->p == '!' ? ">" : NULL;
        unsigned at = x->line;
        if (close && !skip_past(x, close))
            return msccl_fail(x->why, x->whylen, at,
                              "a declaration or comment "
                              "that is never closed"), -1;
        if (!close)
            return read_tag(x, t) ? -1 : 1;
    }
}

/* ---------------------------------------------------------- the model */

const char *const msccl_op_names[MS_KIND_COUNT] = {
    "nop", "s", "r", "rcs", "rrs", "rrc", "rrcs", "cpy", "re"};

CvError msccl_fail(char *why, size_t len, unsigned line, const char *fmt,
                     ...)
{
    va_list ap;
    va_start(ap, fmt);
    sched_text_vsay(CV_ERR_ARG, why, len, line, fmt, ap);
    va_end(ap);
    return CV_ERR_ARG;
}

static const char *attr(const Tag *t, const char *key)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->key[i], key))
            return t->val[i];
    return NULL;
}

/* Attribute key of t as a whole number in [lo, hi] (def when absent and
 * def >= lo; else it is required). */
static CvError num_attr(Algo *a, const Tag *t, const char *key, long lo,
                        long hi, long def, long *out)
{
    const char *v = attr(t, key);
    if (!v && def >= lo) {
        *out = def;
        return CV_OK;
    }
    if (!v)
        return msccl_fail(a->why, a->whylen, t->line, "<%s> needs %s", t->name,
                     key);
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < lo || n > hi)
        return msccl_fail(a->why, a->whylen, t->line,
                          "%s=\"%s\" of <%s> is not a whole number from "
                          "%ld to %ld", key, v, t->name, lo, hi);
    *out = n;
    return CV_OK;
}

/* MSCCL's collective names. */
static int coll_of(const char *s)
{
    if (!strcmp(s, "reduce_scatter") || !strcmp(s, "reducescatter"))
        return COLL_REDUCESCATTER;
    return s && strcmp(s, "custom") ? coll_parse(s) : -1;
}

static CvError algo_tag(Algo *a, const Tag *t)
{
    long n, k, ip;
    const char *c = attr(t, "coll");
    int kind = c ? coll_of(c) : -1;
    CvError e;
    if (kind < 0)
        return msccl_fail(a->why, a->whylen, t->line,
                          "<algo coll=\"%s\"> is no "
                          "collective collviz knows", c ? c : "");
    if ((e = num_attr(a, t, "ngpus", 1, COLL_MAX_RANKS, -1, &n)) ||
        (e = num_attr(a, t, "nchunksperloop", 1, SCHED_TEXT_MAX_UNITS, -1,
                      &k)) ||
        (e = num_attr(a, t, "inplace", 0, 1, 0, &ip)))
        return e;
    size_t blocks = coll_size_blocks((CollKind)kind, (int)n);
    if (k % (long)blocks)
        return msccl_fail(a->why, a->whylen, t->line, "nchunksperloop=\"%ld\" "
                     "does not cut the %zu blocks of %s's largest buffer "
                     "into whole chunks", k, blocks, c);
    long root;
    if ((e = num_attr(a, t, "root", 0, n - 1, 0, &root)))
        return e;
    *a = (Algo){(CollKind)kind, (int)n, k, k / (long)blocks, ip != 0,
                (int)root, calloc((size_t)n, sizeof *a->gpus), 0, a->why,
                a->whylen};
    return a->gpus ? CV_OK : msccl_fail(a->why, a->whylen, 0, "out of memory");
}

static CvError gpu_tag(Algo *a, const Tag *t, int *g)
{
    long id, s;
    CvError e = num_attr(a, t, "id", 0, a->ngpus - 1, -1, &id);
    if (!e)
        e = num_attr(a, t, "s_chunks", 0, SCHED_TEXT_MAX_UNITS, 0, &s);
    if (e)
        return e;
    if (a->gpus[id].seen)
        return msccl_fail(a->why, a->whylen, t->line, "<gpu id=\"%ld\"> comes "
                     "twice", id);
    a->gpus[id].seen = true;
    a->gpus[id].s_chunks = a->gpus[id].stage = s;
    *g = (int)id;
    return CV_OK;
}

static CvError tb_tag(Algo *a, const Tag *t, Gpu *gpu)
{
    long id, send, recv, chan;
    CvError e;
    if ((e = num_attr(a, t, "id", 0, MSCCL_MAX_TBS - 1, -1, &id)) ||
        (e = num_attr(a, t, "send", -1, a->ngpus - 1, -1, &send)) ||
        (e = num_attr(a, t, "recv", -1, a->ngpus - 1, -1, &recv)) ||
        (e = num_attr(a, t, "chan", 0, MSCCL_MAX_CHAN, 0, &chan)))
        return e;
    if ((size_t)id != gpu->ntbs)
        return msccl_fail(a->why, a->whylen, t->line, "<tb id=\"%ld\"> is "
                     "threadblock %zu of its gpu; ids count from 0", id,
                     gpu->ntbs);
    Tb *tbs = grow_array(gpu->tbs, &gpu->cap, gpu->ntbs + 1, sizeof *tbs, 8);
    if (!tbs)
        return msccl_fail(a->why, a->whylen, 0, "out of memory");
    gpu->tbs = tbs;
    tbs[gpu->ntbs++] = (Tb){(int)send, (int)recv, (int)chan, NULL, 0, 0, 0,
                            -1, t->line};
    return CV_OK;
}

/* Buffer letter i, o, s as a BufId (the input is recv in place). */
static int buf_of(const Algo *a, const char *v)
{
    if (!v || v[1])
        return -1;
    return *v == 'i' ? (a->inplace ? BUF_RECV : BUF_SEND)
           : *v == 'o' ? BUF_RECV : *v == 's' ? BUF_TMP : -1;
}

static CvError step_fields(Algo *a, const Tag *t, Op *op)
{
    const char *ty = attr(t, "type");
    int k = 0;
    while (k < MS_KIND_COUNT && (!ty || strcmp(ty, msccl_op_names[k])))
        k++;
    if (k == MS_KIND_COUNT)
        return msccl_fail(a->why, a->whylen, t->line,
                          "type=\"%s\" is not a step MSCCL runs: s, r, "
                          "rcs, rrs, rrc, rrcs, cpy, re, nop", ty ? ty : "");
    long depid, deps;
    CvError e;
    op->kind = (MsOpKind)k;
    op->sbuf = buf_of(a, attr(t, "srcbuf"));
    op->dbuf = buf_of(a, attr(t, "dstbuf"));
    op->sl = attr(t, "srcbuf") ? attr(t, "srcbuf")[0] : 0;
    op->dl = attr(t, "dstbuf") ? attr(t, "dstbuf")[0] : 0;
    if ((e = num_attr(a, t, "srcoff", -1, SCHED_TEXT_MAX_UNITS, -1,
                      &op->soff)) ||
        (e = num_attr(a, t, "dstoff", -1, SCHED_TEXT_MAX_UNITS, -1,
                      &op->doff)) ||
        (e = num_attr(a, t, "cnt", 0, SCHED_TEXT_MAX_UNITS, 0, &op->cnt)) ||
        (e = num_attr(a, t, "depid", -1, MSCCL_MAX_TBS - 1, -1, &depid)) ||
        (e = num_attr(a, t, "deps", -1, (long)MSCCL_MAX_OPS, -1, &deps)))
        return e;
    op->depid = (int)depid, op->deps = (int)deps;
    op->line = t->line;
    op->done = op->recvd = LONG_MAX;
    op->stage = -1;
    op->prep = LONG_MAX;
    long sw;
    if ((e = num_attr(a, t, "cvswitch", 0, 1, 0, &sw)))
        return e;
    op->sw = sw;
    return num_attr(a, t, "cvstep", 0, 4L * SCHED_TEXT_MAX_STEPS, 0,
                    &op->hint);
}

static CvError step_tag(Algo *a, const Tag *t, Tb *tb)
{
    long s;
    CvError e = num_attr(a, t, "s", 0, (long)MSCCL_MAX_OPS, -1, &s);
    if (e)
        return e;
    if ((size_t)s != tb->nops)
        return msccl_fail(a->why, a->whylen, t->line,
                          "<step s=\"%ld\"> is step "
                          "%zu of its threadblock; steps count from 0", s,
                          tb->nops);
    if (++a->nops > MSCCL_MAX_OPS)
        return msccl_fail(a->why, a->whylen, t->line, "more than %u steps",
                     MSCCL_MAX_OPS);
    Op *ops = grow_array(tb->ops, &tb->cap, tb->nops + 1, sizeof *ops, 16);
    if (!ops)
        return msccl_fail(a->why, a->whylen, 0, "out of memory");
    tb->ops = ops;
    return step_fields(a, t, &ops[tb->nops++]);
}

/* The elements in their places: algo, gpu, tb, step. */
static CvError read_elements(Algo *a, Xml *x)
{
    Tag t;
    int depth = 0, g = -1, r;
    while ((r = next_tag(x, &t)) == 1) {
        static const char *const names[] = {"algo", "gpu", "tb", "step"};
        int want = t.close ? depth - 1 : depth;
        if (want < 0 || want > 3 || strcmp(t.name, names[want]))
            return msccl_fail(a->why, a->whylen, t.line, "<%s%s> where %s",
                              t.close ? "/" : "", t.name,
                              want >= 0 && want <= 3 && !t.close
                                  ? (want ? "a child of the element above "
                                            "goes"
                                          : "<algo> must begin")
                                  : "the element open there must close");
        if (t.close) {
            depth--;
            continue;
        }
        if (!depth && a->gpus)
            return msccl_fail(a->why, a->whylen, t.line, "a second <algo>: "
                              "a file holds one algorithm");
        Gpu *gpu = g >= 0 ? &a->gpus[g] : NULL;
        CvError e = depth == 0 ? algo_tag(a, &t)
                    : depth == 1 ? gpu_tag(a, &t, &g)
                    : depth == 2 ? tb_tag(a, &t, gpu)
                    : step_tag(a, &t, &gpu->tbs[gpu->ntbs - 1]);
        if (e)
            return e;
        depth += !t.empty;
    }
    if (r < 0)
        return CV_ERR_ARG;
    if (!a->gpus)
        return msccl_fail(a->why, a->whylen, 0,
                          "no <algo> element: this is no "
                          "MSCCL algorithm");
    if (depth)
        return msccl_fail(a->why, a->whylen, x->line,
                          "the file ends inside an "
                          "open element");
    return CV_OK;
}

static void algo_free(Algo *a)
{
    for (int g = 0; a->gpus && g < a->ngpus; g++) {
        for (size_t i = 0; i < a->gpus[g].ntbs; i++)
            free(a->gpus[g].tbs[i].ops);
        free(a->gpus[g].tbs);
    }
    free(a->gpus);
}

bool msccl_is_xml(const char *text, size_t len)
{
    Xml x = {text, text + len, 1, (char[160]){0}, 160};
    Tag t;
    return next_tag(&x, &t) == 1 && !t.close && !strcmp(t.name, "algo");
}

/* ------------------------------------------------------------- checks */

bool msccl_sends(MsOpKind k)
{
    return k == MS_S || k == MS_RCS || k == MS_RRS || k == MS_RRCS;
}

bool msccl_receives(MsOpKind k)
{
    return k == MS_R || k == MS_RCS || k == MS_RRS || k == MS_RRC ||
           k == MS_RRCS;
}

static bool reads_src(MsOpKind k)
{
    return k == MS_S || k == MS_RRS || k == MS_RRC || k == MS_RRCS ||
           k == MS_CPY || k == MS_RE;
}

static bool writes_dst(MsOpKind k)
{
    return k == MS_R || k == MS_RCS || k == MS_RRC || k == MS_RRCS ||
           k == MS_CPY || k == MS_RE;
}

/* Chunks of gpu g's buffer b. */
long msccl_buf_chunks(const Algo *a, int g, int b)
{
    CollCall c = {.kind = a->kind, .nranks = a->ngpus,
                  .count = (size_t)a->parts, .in_place = a->inplace,
                  .root = a->root};
    CollLayout l;
    coll_layout(&c, g, &l);
    return b == BUF_SEND ? (long)l.send_count
           : b == BUF_RECV ? (long)l.recv_count : a->gpus[g].s_chunks;
}

/* One side of an op: its buffer known, in range; dst never the input. */
static CvError side_ok(Algo *a, int g, const Op *op, bool dst)
{
    int b = dst ? op->dbuf : op->sbuf;
    long off = dst ? op->doff : op->soff, have;
    const char *w = dst ? "dst" : "src";
    if (b < 0)
        return msccl_fail(a->why, a->whylen, op->line,
                          "%sbuf is not i, o or s",
                          w);
    have = msccl_buf_chunks(a, g, b);
    if (off < 0 || off + op->cnt > have)
        return msccl_fail(a->why, a->whylen, op->line,
                          "%soff=\"%ld\" cnt=\"%ld\" reaches past gpu %d's "
                          "%s buffer of %ld chunks", w, off, op->cnt, g,
                          b == BUF_TMP ? "scratch"
                          : b == BUF_SEND ? "input"
                          : a->inplace ? "input and output" : "output",
                          have);
    if (dst && b == BUF_SEND)
        return msccl_fail(a->why, a->whylen, op->line,
                          "the step writes gpu %d's "
                          "input, which an out-of-place call only reads", g);
    return CV_OK;
}

static CvError op_ok(Algo *a, int g, const Tb *tb, const Op *op)
{
    const Gpu *gpu = &a->gpus[g];
    if (msccl_sends(op->kind) && tb->send < 0)
        return msccl_fail(a->why, a->whylen, op->line,
                          "a %s step in a threadblock "
                          "with no send peer", msccl_op_names[op->kind]);
    if (msccl_receives(op->kind) && tb->recv < 0)
        return msccl_fail(a->why, a->whylen, op->line,
                          "a %s step in a threadblock "
                          "with no receive peer", msccl_op_names[op->kind]);
    if (op->kind != MS_NOP && op->cnt < 1)
        return msccl_fail(a->why, a->whylen, op->line,
                          "a %s step of no chunks",
                          msccl_op_names[op->kind]);
    if ((op->depid < 0) != (op->deps < 0) ||
        (op->depid >= 0 && ((size_t)op->depid >= gpu->ntbs ||
                            (size_t)op->deps >= gpu->tbs[op->depid].nops)))
        return msccl_fail(a->why, a->whylen, op->line,
                          "depid=\"%d\" deps=\"%d\" "
                          "names no step of gpu %d", op->depid, op->deps, g);
    CvError e = CV_OK;
    if (reads_src(op->kind))
        e = side_ok(a, g, op, false);
    if (!e && writes_dst(op->kind))
        e = side_ok(a, g, op, true);
    return e;
}

/* The threadblock of gpu p that talks to gpu g on channel c, sending
 * (send) or receiving; -1 none, -2 more than one. */
int msccl_peer_tb(const Algo *a, int p, int g, int c, bool send)
{
    int found = -1;
    for (size_t i = 0; i < a->gpus[p].ntbs; i++) {
        const Tb *u = &a->gpus[p].tbs[i];
        if ((send ? u->send : u->recv) == g && u->chan == c)
            found = found == -1 ? (int)i : -2;
    }
    return found;
}

static CvError tb_ok(Algo *a, int g, Tb *tb)
{
    bool s = false, r = false;
    for (size_t i = 0; i < tb->nops; i++) {
        CvError e = op_ok(a, g, tb, &tb->ops[i]);
        if (e)
            return e;
        s = s || msccl_sends(tb->ops[i].kind);
        r = r || msccl_receives(tb->ops[i].kind);
    }
    if (tb->send == g || tb->recv == g)
        return msccl_fail(a->why, a->whylen, tb->line, "gpu %d's threadblock "
                     "talks to its own gpu", g);
    int to = s ? msccl_peer_tb(a, tb->send, g, tb->chan, false) : 0;
    int from = r ? msccl_peer_tb(a, tb->recv, g, tb->chan, true) : 0;
    if (to < 0 || from < 0) {
        int p = to < 0 ? tb->send : tb->recv, n = to < 0 ? to : from;
        return msccl_fail(a->why, a->whylen, tb->line, "gpu %d %s gpu %d on "
                     "channel %d, and %s threadblock of gpu %d %s it there",
                     g, to < 0 ? "sends to" : "receives from", p, tb->chan,
                     n == -1 ? "no" : "more than one", p,
                     to < 0 ? "receives from" : "sends to");
    }
    tb->from = r ? from : -1;
    return CV_OK;
}

/* In place, NCCL's buffers overlap: an allgather's input (i) is gpu g's
 * block of its output, a reducescatter's output (o) gpu g's block of its
 * input; collviz's recv is the whole, so the smaller one's offsets move
 * g blocks along. */
static void in_place_offsets(Algo *a, int g, Tb *tb)
{
    char moved = a->kind == COLL_ALLGATHER ? 'i'
                 : a->kind == COLL_REDUCESCATTER ? 'o' : 0;
    for (size_t i = 0; a->inplace && moved && i < tb->nops; i++) {
        Op *op = &tb->ops[i];
        if (op->sl == moved && op->soff >= 0)
            op->soff += (long)g * a->parts;
        if (op->dl == moved && op->doff >= 0)
            op->doff += (long)g * a->parts;
    }
}

static CvError algo_ok(Algo *a)
{
    for (int g = 0; g < a->ngpus; g++) {
        for (size_t i = 0; i < a->gpus[g].ntbs; i++)
            in_place_offsets(a, g, &a->gpus[g].tbs[i]);
        if (!a->gpus[g].seen)
            return msccl_fail(a->why, a->whylen, 0, "the algorithm has no "
                         "<gpu id=\"%d\">, and ngpus is %d", g, a->ngpus);
        for (size_t i = 0; i < a->gpus[g].ntbs; i++) {
            CvError e = tb_ok(a, g, &a->gpus[g].tbs[i]);
            if (e)
                return e;
        }
    }
    return CV_OK;
}

CvError msccl_parse(const char *xml, size_t len, const char *name,
                    SchedText *out, char *why, size_t whylen)
{
    Algo a = {.why = why, .whylen = whylen};
    Xml x = {xml, xml + len, 1, why, whylen};
    memset(out, 0, sizeof *out);
    *why = 0;
    CvError e = len > SCHED_TEXT_MAX_BYTES
        ? msccl_fail(why, whylen, 0, "the file is larger than %u MiB",
                SCHED_TEXT_MAX_BYTES >> 20)
        : read_elements(&a, &x);
    if (!e)
        e = algo_ok(&a);
    if (!e)
        e = msccl_run(&a, name, out);
    algo_free(&a);
    return e;
}
