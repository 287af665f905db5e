/* msccl.c - reading MSCCL's algorithm XML (msccl.h): the elements, their
 * checks, and the threadblocks run round by round into collviz steps. */
#include "core/msccl.h"

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

static CvError xfail(char *why, size_t len, unsigned line, const char *fmt,
                     ...) __attribute__((format(printf, 4, 5)));

static CvError xfail(char *why, size_t len, unsigned line, const char *fmt,
                     ...)
{
    int n = line ? snprintf(why, len, "%u: ", line) : 0;
    if (n < 0 || (size_t)n >= len)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why + n, len - (size_t)n, fmt, ap);
    va_end(ap);
    return CV_ERR_ARG;
}

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
        return xfail(x->why, x->whylen, x->line, "<%s> has more than %d "
                     "attributes", t->name, XML_ATTRS);
    if (!read_name(x, t->key[t->n]))
        return xfail(x->why, x->whylen, x->line, "<%s> holds something that "
                     "is not an attribute", t->name);
    blanks(x);
    char q = x->p + 1 < x->end && *x->p == '=' ? x->p[1] : 0;
    if (q != '"' && q != '\'')
        return xfail(x->why, x->whylen, x->line, "attribute %s of <%s> has "
                     "no quoted value", t->key[t->n], t->name);
    skip(x, 2);
    size_t n = 0;
    while (x->p + n < x->end && x->p[n] != q && x->p[n] != '<' && x->p[n])
        n++;
    if (x->p + n >= x->end || x->p[n] != q || n >= XML_WORD)
        return xfail(x->why, x->whylen, x->line, "attribute %s of <%s> has "
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
        return xfail(x->why, x->whylen, x->line, "a '<' that starts no "
                     "element");
    for (;;) {
        blanks(x);
        if (x->p >= x->end || !*x->p)
            return xfail(x->why, x->whylen, t->line, "<%s> is not closed "
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
                return xfail(x->why, x->whylen, x->line, "a NUL byte: this "
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
            return xfail(x->why, x->whylen, at, "a declaration or comment "
                         "that is never closed"), -1;
        if (!close)
            return read_tag(x, t) ? -1 : 1;
    }
}

/* ---------------------------------------------------------- the model */

typedef enum {
    OP_NOP, OP_S, OP_R, OP_RCS, OP_RRS, OP_RRC, OP_RRCS, OP_CPY, OP_RE,
    OP_KIND_COUNT
} OpKind;

static const char *const op_names[OP_KIND_COUNT] = {
    "nop", "s", "r", "rcs", "rrs", "rrc", "rrcs", "cpy", "re"};

/* One <step>. */
typedef struct {
    OpKind kind;
    int sbuf, dbuf;        /* BufId, after the in-place mapping */
    long soff, doff, cnt;  /* chunks */
    int depid, deps;       /* the step waited for (-1: none) */
    unsigned line;
    long done;             /* round it finished in (LONG_MAX: not yet) */
    long recvd;            /* round its receive finished in (or LONG_MAX) */
    long stage;            /* chunk a staged receive reduces into (-1) */
    long prep;             /* round its source was copied there in */
    long hint;             /* cvstep: the round it waits for (0: none) */
    bool sw;               /* cvswitch: a reducing switch's work */
} Op;

typedef struct {
    int send, recv, chan;  /* peers (-1: none), channel */
    Op *ops;
    size_t nops, cap;
    size_t pc;             /* the step it is at */
    int from;              /* the tb of gpu `recv` that sends to it (-1) */
    unsigned line;
} Tb;

typedef struct {
    Tb *tbs;
    size_t ntbs, cap;
    long s_chunks;         /* its scratch */
    long stage;            /* next free tmp chunk for staging */
    bool seen;
} Gpu;

typedef struct {
    CollKind kind;
    int ngpus;
    long nchunks;          /* nchunksperloop */
    long parts;            /* chunks per block */
    bool inplace;
    int root;              /* root: collviz's attribute (MSCCL has none) */
    Gpu *gpus;
    size_t nops;
    char *why;
    size_t whylen;
} Algo;

/* An attribute of t, or NULL. */
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
        return xfail(a->why, a->whylen, t->line, "<%s> needs %s", t->name,
                     key);
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < lo || n > hi)
        return xfail(a->why, a->whylen, t->line, "%s=\"%s\" of <%s> is not "
                     "a whole number from %ld to %ld", key, v, t->name, lo,
                     hi);
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
        return xfail(a->why, a->whylen, t->line, "<algo coll=\"%s\"> is no "
                     "collective collviz knows", c ? c : "");
    if ((e = num_attr(a, t, "ngpus", 1, COLL_MAX_RANKS, -1, &n)) ||
        (e = num_attr(a, t, "nchunksperloop", 1, SCHED_TEXT_MAX_UNITS, -1,
                      &k)) ||
        (e = num_attr(a, t, "inplace", 0, 1, 0, &ip)))
        return e;
    size_t blocks = coll_size_blocks((CollKind)kind, (int)n);
    if (k % (long)blocks)
        return xfail(a->why, a->whylen, t->line, "nchunksperloop=\"%ld\" "
                     "does not cut the %zu blocks of %s's largest buffer "
                     "into whole chunks", k, blocks, c);
    long root;
    if ((e = num_attr(a, t, "root", 0, n - 1, 0, &root)))
        return e;
    *a = (Algo){(CollKind)kind, (int)n, k, k / (long)blocks, ip != 0,
                (int)root, calloc((size_t)n, sizeof *a->gpus), 0, a->why,
                a->whylen};
    return a->gpus ? CV_OK : xfail(a->why, a->whylen, 0, "out of memory");
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
        return xfail(a->why, a->whylen, t->line, "<gpu id=\"%ld\"> comes "
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
        (e = num_attr(a, t, "chan", 0, 255, 0, &chan)))
        return e;
    if ((size_t)id != gpu->ntbs)
        return xfail(a->why, a->whylen, t->line, "<tb id=\"%ld\"> is "
                     "threadblock %zu of its gpu; ids count from 0", id,
                     gpu->ntbs);
    Tb *tbs = grow_array(gpu->tbs, &gpu->cap, gpu->ntbs + 1, sizeof *tbs, 8);
    if (!tbs)
        return xfail(a->why, a->whylen, 0, "out of memory");
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
    while (k < OP_KIND_COUNT && (!ty || strcmp(ty, op_names[k])))
        k++;
    if (k == OP_KIND_COUNT)
        return xfail(a->why, a->whylen, t->line, "type=\"%s\" is not a step "
                     "MSCCL runs: s, r, rcs, rrs, rrc, rrcs, cpy, re, nop",
                     ty ? ty : "");
    long depid, deps;
    CvError e;
    op->kind = (OpKind)k;
    op->sbuf = buf_of(a, attr(t, "srcbuf"));
    op->dbuf = buf_of(a, attr(t, "dstbuf"));
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
        return xfail(a->why, a->whylen, t->line, "<step s=\"%ld\"> is step "
                     "%zu of its threadblock; steps count from 0", s,
                     tb->nops);
    if (++a->nops > MSCCL_MAX_OPS)
        return xfail(a->why, a->whylen, t->line, "more than %u steps",
                     MSCCL_MAX_OPS);
    Op *ops = grow_array(tb->ops, &tb->cap, tb->nops + 1, sizeof *ops, 16);
    if (!ops)
        return xfail(a->why, a->whylen, 0, "out of memory");
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
            return xfail(a->why, a->whylen, t.line, "<%s%s> where %s", t.close
                         ? "/" : "", t.name, want >= 0 && want <= 3 && !t.close
                         ? (want ? "a child of the element above goes"
                                 : "<algo> must begin")
                         : "the element open there must close");
        if (t.close) {
            depth--;
            continue;
        }
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
        return xfail(a->why, a->whylen, 0, "no <algo> element: this is no "
                     "MSCCL algorithm");
    if (depth)
        return xfail(a->why, a->whylen, x->line, "the file ends inside an "
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

static bool sends(OpKind k)
{
    return k == OP_S || k == OP_RCS || k == OP_RRS || k == OP_RRCS;
}

static bool receives(OpKind k)
{
    return k == OP_R || k == OP_RCS || k == OP_RRS || k == OP_RRC ||
           k == OP_RRCS;
}

static bool reads_src(OpKind k)
{
    return k == OP_S || k == OP_RRS || k == OP_RRC || k == OP_RRCS ||
           k == OP_CPY || k == OP_RE;
}

static bool writes_dst(OpKind k)
{
    return k == OP_R || k == OP_RCS || k == OP_RRC || k == OP_RRCS ||
           k == OP_CPY || k == OP_RE;
}

/* Chunks of gpu g's buffer b. */
static long buf_chunks(const Algo *a, int g, int b)
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
        return xfail(a->why, a->whylen, op->line, "%sbuf is not i, o or s",
                     w);
    have = buf_chunks(a, g, b);
    if (off < 0 || off + op->cnt > have)
        return xfail(a->why, a->whylen, op->line, "%soff=\"%ld\" cnt=\"%ld\" "
                     "reaches past gpu %d's %s buffer of %ld chunks", w, off,
                     op->cnt, g, b == BUF_TMP ? "scratch" : b == BUF_SEND
                     ? "input" : a->inplace ? "input and output" : "output",
                     have);
    if (dst && b == BUF_SEND)
        return xfail(a->why, a->whylen, op->line, "the step writes gpu %d's "
                     "input, which an out-of-place call only reads", g);
    return CV_OK;
}

static CvError op_ok(Algo *a, int g, const Tb *tb, const Op *op)
{
    const Gpu *gpu = &a->gpus[g];
    if (sends(op->kind) && tb->send < 0)
        return xfail(a->why, a->whylen, op->line, "a %s step in a threadblock "
                     "with no send peer", op_names[op->kind]);
    if (receives(op->kind) && tb->recv < 0)
        return xfail(a->why, a->whylen, op->line, "a %s step in a threadblock "
                     "with no receive peer", op_names[op->kind]);
    if (op->kind != OP_NOP && op->cnt < 1)
        return xfail(a->why, a->whylen, op->line, "a %s step of no chunks",
                     op_names[op->kind]);
    if ((op->depid < 0) != (op->deps < 0) ||
        (op->depid >= 0 && ((size_t)op->depid >= gpu->ntbs ||
                            (size_t)op->deps >= gpu->tbs[op->depid].nops)))
        return xfail(a->why, a->whylen, op->line, "depid=\"%d\" deps=\"%d\" "
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
static int peer_tb(const Algo *a, int p, int g, int c, bool send)
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
        s = s || sends(tb->ops[i].kind);
        r = r || receives(tb->ops[i].kind);
    }
    if (tb->send == g || tb->recv == g)
        return xfail(a->why, a->whylen, tb->line, "gpu %d's threadblock "
                     "talks to its own gpu", g);
    int to = s ? peer_tb(a, tb->send, g, tb->chan, false) : 0;
    int from = r ? peer_tb(a, tb->recv, g, tb->chan, true) : 0;
    if (to < 0 || from < 0) {
        int p = to < 0 ? tb->send : tb->recv, n = to < 0 ? to : from;
        return xfail(a->why, a->whylen, tb->line, "gpu %d %s gpu %d on "
                     "channel %d, and %s threadblock of gpu %d %s it there",
                     g, to < 0 ? "sends to" : "receives from", p, tb->chan,
                     n == -1 ? "no" : "more than one", p,
                     to < 0 ? "receives from" : "sends to");
    }
    tb->from = r ? from : -1;
    return CV_OK;
}

static CvError algo_ok(Algo *a)
{
    for (int g = 0; g < a->ngpus; g++) {
        if (!a->gpus[g].seen)
            return xfail(a->why, a->whylen, 0, "the algorithm has no "
                         "<gpu id=\"%d\">, and ngpus is %d", g, a->ngpus);
        for (size_t i = 0; i < a->gpus[g].ntbs; i++) {
            CvError e = tb_ok(a, g, &a->gpus[g].tbs[i]);
            if (e)
                return e;
        }
    }
    return CV_OK;
}

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
} Run;

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
    for (long i = 0; w && i < cnt && doff + i < buf_chunks(a, dst, db); i++)
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
    return r->kind == OP_RRS ||
           ((r->kind == OP_RRC || r->kind == OP_RRCS) &&
            (r->sbuf != r->dbuf || r->soff != r->doff));
}

/* Post the send of op (tb of gpu g) to its connection in round k. */
static void post(Algo *a, Run *rn, int g, const Tb *tb, const Op *op, long k)
{
    int p = tb->send, u = peer_tb(a, p, g, tb->chan, false);
    Fifo *f = &rn->fifo[p][u];
    Post *q = grow_array(f->q, &f->cap, f->n + 1, sizeof *q, 16);
    if (!q) {
        rn->nomem = true;
        return;
    }
    f->q = q;
    q[f->n++] = (Post){k, g, op->kind == OP_S ? op->sbuf
                             : op->kind == OP_RRS ? BUF_TMP : op->dbuf,
                       op->kind == OP_S ? op->soff
                       : op->kind == OP_RRS ? op->stage : op->doff,
                       op->cnt, op->line};
}

/* Whether op finishes at once in round k: a nop whose wait is over, or a
 * send whose data is there (it reads the state before round k, posts it
 * to its connection and lets its threadblock go on). */
static bool instant(const Algo *a, int g, const Op *op, long k)
{
    return ready(a, g, op, k) &&
           (op->kind == OP_NOP ||
            (sends(op->kind) && (!receives(op->kind) || op->recvd < k)));
}

/* The steps that finish at once in round k, before it. */
static bool instants(Algo *a, Run *rn, long k, size_t *left)
{
    bool any = false, more = true;
    while (more) {
        more = false;
        for (int g = 0; g < a->ngpus; g++)
            for (size_t i = 0; i < a->gpus[g].ntbs; i++) {
                Tb *tb = &a->gpus[g].tbs[i];
                Op *op;
                while ((op = current(tb)) && instant(a, g, op, k)) {
                    if (op->kind != OP_NOP)
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
    if (op->kind == OP_CPY || op->kind == OP_RE) {
        move(a, rn, k, g, op->sbuf, op->soff, g, op->dbuf, op->doff, op->cnt,
             op->kind == OP_RE ? XFER_REDUCE : XFER_COPY, op->line);
        mark_switch(rn, op);
        op->done = k;
        return true;
    }
    if (staged(op) && op->stage < 0) { /* the source where it reduces */
        op->stage = op->kind == OP_RRS ? a->gpus[g].stage : op->doff;
        a->gpus[g].stage += op->kind == OP_RRS ? op->cnt : 0;
        op->prep = k;
        move(a, rn, k, g, op->sbuf, op->soff, g,
             op->kind == OP_RRS ? BUF_TMP : op->dbuf, op->stage, op->cnt,
             XFER_COPY, op->line);
        return true;
    }
    return false;
}

/* Whether post p's data was overwritten after it was posted, before k. */
static bool overwritten(const Algo *a, const Run *rn, const Post *p, long k)
{
    const int32_t *w = rn->last[p->gpu * BUF_COUNT + p->buf];
    long n = buf_chunks(a, p->gpu, p->buf); /* a staged one: fresh */
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
    if (!r || !receives(r->kind) || r->recvd != LONG_MAX ||
        !ready(a, g, r, k) || (staged(r) && r->prep >= k) ||
        f->head == f->n || f->q[f->head].round > k)
        return CV_OK;
    Post p = f->q[f->head++];
    if (p.cnt != r->cnt)
        return xfail(a->why, a->whylen, r->line, "this step receives %ld "
                     "chunks, and the send it meets (line %u) sends %ld",
                     r->cnt, p.line, p.cnt);
    if (overwritten(a, rn, &p, k)) { /* what the runtime sent: a copy */
        long at = a->gpus[p.gpu].stage;
        a->gpus[p.gpu].stage += p.cnt;
        move(a, rn, p.round, p.gpu, p.buf, p.off, p.gpu, BUF_TMP, at, p.cnt,
             XFER_COPY, p.line);
        p.buf = BUF_TMP, p.off = at;
    }
    bool red = r->kind == OP_RRS || r->kind == OP_RRC || r->kind == OP_RRCS;
    move(a, rn, k, p.gpu, p.buf, p.off, g, r->kind == OP_RRS ? BUF_TMP
         : r->dbuf, r->kind == OP_RRS ? r->stage : r->doff, r->cnt,
         red ? XFER_REDUCE : XFER_COPY, r->line);
    mark_switch(rn, r);
    r->recvd = k;
    if (!sends(r->kind))
        r->done = k;
    *acted = true;
    return CV_OK;
}

/* Every threadblock past the step it finished in round k. */
static bool finish(Algo *a, long k, size_t *left)
{
    bool any = false;
    for (int g = 0; g < a->ngpus; g++)
        for (size_t i = 0; i < a->gpus[g].ntbs; i++) {
            Tb *tb = &a->gpus[g].tbs[i];
            Op *op = current(tb);
            if (op && op->done <= k) {
                tb->pc++, (*left)--;
                any = true;
            }
        }
    return any;
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
            return xfail(a->why, a->whylen, op->line, "gpu %d's threadblock "
                         "%zu never gets past this %s step: %s", g, i,
                         op_names[op->kind], why);
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
                return xfail(a->why, a->whylen, f->q[f->head].line, "gpu "
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
            return xfail(a->why, a->whylen, 0, "more than %u steps",
                         SCHED_TEXT_MAX_STEPS);
        for (int g = 0; g < a->ngpus; g++)
            for (size_t i = 0; i < a->gpus[g].ntbs; i++)
                acted = act(a, rn, g, i, k) || acted;
        for (int g = 0; g < a->ngpus; g++)
            for (size_t i = 0; i < a->gpus[g].ntbs; i++) {
                CvError e = receive(a, rn, g, i, k, &acted);
                if (e)
                    return e;
            }
        if (rn->nomem)
            return xfail(a->why, a->whylen, 0, "out of memory");
        acted = finish(a, k, &left) || acted;
        if (!acted && left)
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
            long n = buf_chunks(a, g, b); /* staging beyond: fresh */
            size_t un = n > 0 ? (size_t)n : 0;
            chunks += un;
            if (chunks > (size_t)1 << 24)
                return xfail(a->why, a->whylen, 0, "the buffers hold more "
                             "than %d chunks in all", 1 << 24);
            rn->last[g * BUF_COUNT + b] = malloc((un + 1) * sizeof(int32_t));
            ok = rn->last[g * BUF_COUNT + b] != NULL;
            for (long i = 0; ok && i < n; i++)
                rn->last[g * BUF_COUNT + b][i] = -1;
        }
    }
    return ok ? rounds(a, rn) : xfail(a->why, a->whylen, 0, "out of memory");
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
    free(rn->fifo), free(rn->last), free(rn->m);
}

/* ------------------------------------------------------ into the text */

static int by_round(const void *pa, const void *pb)
{
    const Move *x = pa, *y = pb;
    if (x->round != y->round)
        return x->round < y->round ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The moves, round by round, as collviz's schedule text. */
static char *as_text(const Algo *a, const Run *mv, size_t *len)
{
    size_t cap = 512 + mv->n * 104 + (size_t)a->ngpus * 40, n = 0;
    char *t = malloc(cap);
    if (!t)
        return NULL;
    n += (size_t)snprintf(t + n, cap - n, "collective %s\nranks %d\nparts "
                          "%ld\nroot %d\n%s", coll_name(a->kind), a->ngpus,
                          a->parts, a->root, a->inplace ? "in-place\n" : "");
    for (int g = 0; g < a->ngpus; g++)
        n += (size_t)snprintf(t + n, cap - n, "tmp r%d %ld\n", g,
                              a->gpus[g].stage);
    for (size_t i = 0; i < mv->n; i++) {
        const Transfer *x = &mv->m[i].x;
        if (!i || mv->m[i].round != mv->m[i - 1].round)
            n += (size_t)snprintf(t + n, cap - n, "step\n");
        n += (size_t)snprintf(t + n, cap - n, "r%d.%s[%zu:%zu] -> "
                              "r%d.%s[%zu:%zu]%s%s\n", x->src,
                              buf_name((BufId)x->src_buf), x->src_off,
                              x->src_off + x->count, x->dst,
                              buf_name((BufId)x->dst_buf), x->dst_off,
                              x->dst_off + x->count,
                              x->op == XFER_REDUCE ? " reduce" : "",
                              x->flags & XF_SWITCH ? " switch" : "");
    }
    *len = n;
    return t;
}

/* The moves as a SchedText, each transfer's line the XML's. */
static CvError into_text(Algo *a, Run *mv, const char *name,
                         SchedText *out)
{
    qsort(mv->m, mv->n, sizeof *mv->m, by_round);
    size_t len;
    char *text = as_text(a, mv, &len), why[CV_WHY_LEN];
    if (!text)
        return xfail(a->why, a->whylen, 0, "out of memory");
    CvError e = sched_text_parse(text, len, name, out, why, sizeof why);
    free(text);
    if (e) { /* a limit of the format: the text's line means nothing */
        const char *w = why + strspn(why, "0123456789");
        return xfail(a->why, a->whylen, 0, "%s", *w == ':' ? w + 2 : w), e;
    }
    for (size_t i = 0; i < mv->n; i++)
        out->line[i] = mv->m[i].line;
    for (size_t k = 0; k < out->unit.nsteps; k++)
        out->step_line[k] = out->line[out->unit.steps[k].first];
    return CV_OK;
}

CvError msccl_parse(const char *xml, size_t len, const char *name,
                    SchedText *out, char *why, size_t whylen)
{
    Algo a = {.why = why, .whylen = whylen};
    Xml x = {xml, xml + len, 1, why, whylen};
    Run mv = {0};
    memset(out, 0, sizeof *out);
    *why = 0;
    CvError e = len > SCHED_TEXT_MAX_BYTES
        ? xfail(why, whylen, 0, "the file is larger than %u MiB",
                SCHED_TEXT_MAX_BYTES >> 20)
        : read_elements(&a, &x);
    if (!e)
        e = algo_ok(&a);
    if (!e)
        e = run_rounds(&a, &mv);
    if (!e)
        e = into_text(&a, &mv, name, out);
    run_free(&a, &mv);
    algo_free(&a);
    return e;
}
