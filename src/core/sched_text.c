/* sched_text.c - reading collviz's schedule text (sched_text.h). */
#include "core/sched_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

/* Units of every rank's buffers a file may give: the symbolic check keeps
 * 4 bytes and a rank set per unit of recv and tmp. */
#define TEXT_MAX_CELLS ((size_t)1 << 26)
/* Units the transfers of a file may move in all (what its check costs). */
#define TEXT_MAX_MOVED ((size_t)1 << 26)

/* One side of a transfer: rR.BUF[a:b]. */
typedef struct {
    int rank;
    int buf;       /* BufId */
    size_t lo, hi; /* units [lo, hi) */
} End;

/* The state of one parse. */
typedef struct {
    int kind, ranks;       /* collective (-1: not yet), ranks (0: not yet) */
    int root;              /* root */
    bool root_given;       /* `root` was read */
    bool in_place;         /* `in-place` */
    size_t units;          /* parts K or count C (0: not yet) */
    bool parts;            /* `parts` (else `count`) */
    bool units_given;      /* `parts` or `count` was read */
    size_t *tmp;           /* [rank]: tmp units given (SIZE_MAX: none) */
    bool body;             /* a `step` was read */
    Transfer *x;           /* transfers */
    uint32_t *xline;       /* their lines */
    size_t nx, capx, capl;
    size_t moved;          /* units the transfers move */
    size_t *first;         /* [step]: its first transfer */
    uint32_t *sline;       /* [step]: its line */
    char (*phase)[SCHED_TEXT_PHASE_LEN];
    size_t ns, caps, capsl, capph;
    unsigned line;         /* the line being read */
    char *why;
    size_t whylen;
} Parse;

static CvError fail(Parse *ps, CvError e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

CvError sched_text_vsay(CvError e, char *why, size_t whylen, unsigned line,
                        const char *fmt, va_list ap)
{
    int n = line ? snprintf(why, whylen, "%u: ", line) : 0;
    if (n < 0 || (size_t)n >= whylen)
        n = 0;
    vsnprintf(why + n, whylen - (size_t)n, fmt, ap);
    return e;
}

CvError sched_text_say(CvError e, char *why, size_t whylen, unsigned line,
                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sched_text_vsay(e, why, whylen, line, fmt, ap);
    va_end(ap);
    return e;
}

/* One sentence into ps->why, after the line's number. */
static CvError fail(Parse *ps, CvError e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sched_text_vsay(e, ps->why, ps->whylen, ps->line, fmt, ap);
    va_end(ap);
    return e;
}

/* ---------------------------------------------------------------- words */

/* A whole number of at most `most` at *s; moves *s past it. */
static bool read_num(const char **s, size_t most, size_t *out)
{
    const char *c = *s;
    size_t v = 0;
    if (*c < '0' || *c > '9')
        return false;
    for (; *c >= '0' && *c <= '9'; c++) {
        size_t d = (size_t)(*c - '0');
        if (d > most || v > (most - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *s = c;
    *out = v;
    return true;
}

/* The word w (NUL-terminated) as a whole number of at most most. */
static bool word_num(const char *w, size_t most, size_t *out)
{
    return read_num(&w, most, out) && !*w;
}

/* The next blank-separated word of *s into w (at most len - 1 bytes; a
 * longer one is cut); false at the end. */
static bool next_word(const char **s, char *w, size_t len)
{
    const char *c = *s;
    while (*c == ' ' || *c == '\t')
        c++;
    size_t n = strcspn(c, " \t");
    if (!n)
        return false;
    size_t k = n < len ? n : len - 1;
    memcpy(w, c, k);
    w[k] = 0;
    *s = c + n;
    return true;
}

/* --------------------------------------------------------------- header */

static CvError need_body_order(Parse *ps, const char *key)
{
    return fail(ps, CV_ERR_ARG, "'%s' belongs in the header, before the "
                "first 'step'", key);
}

static CvError key_collective(Parse *ps, const char *v)
{
    int k = coll_parse(v);
    if (ps->kind >= 0)
        return fail(ps, CV_ERR_ARG, "the collective is given twice");
    if (k < 0)
        return fail(ps, CV_ERR_ARG, "'%s' is not a collective", v);
    ps->kind = k;
    return CV_OK;
}

static CvError key_ranks(Parse *ps, const char *v)
{
    size_t n;
    if (ps->ranks)
        return fail(ps, CV_ERR_ARG, "the ranks are given twice");
    if (!word_num(v, COLL_MAX_RANKS, &n) || n < 1)
        return fail(ps, CV_ERR_LIMIT, "ranks '%s' is not a whole number "
                    "from 1 to %d", v, COLL_MAX_RANKS);
    ps->ranks = (int)n;
    ps->tmp = malloc(n * sizeof *ps->tmp);
    if (!ps->tmp)
        return fail(ps, CV_ERR_NOMEM, "out of memory");
    for (size_t r = 0; r < n; r++)
        ps->tmp[r] = SIZE_MAX;
    return CV_OK;
}

static CvError key_units(Parse *ps, const char *key, const char *v)
{
    size_t n;
    bool parts = !strcmp(key, "parts");
    if (ps->units_given)
        return fail(ps, CV_ERR_ARG, "'parts' or 'count' is given twice");
    if (!word_num(v, SCHED_TEXT_MAX_UNITS, &n) || n < (size_t)parts)
        return fail(ps, CV_ERR_LIMIT, "%s '%s' is not a whole number from "
                    "%d to %u", key, v, parts, SCHED_TEXT_MAX_UNITS);
    ps->units = n; /* count 0: the empty call's schedule, of no steps */
    ps->parts = parts;
    ps->units_given = true;
    return CV_OK;
}

static CvError key_root(Parse *ps, const char *v)
{
    size_t n;
    if (ps->root_given)
        return fail(ps, CV_ERR_ARG, "the root is given twice");
    if (!ps->ranks)
        return fail(ps, CV_ERR_ARG, "give 'ranks' before 'root'");
    if (!word_num(v, (size_t)ps->ranks - 1, &n))
        return fail(ps, CV_ERR_ARG, "root '%s' is not a rank from 0 to %d",
                    v, ps->ranks - 1);
    ps->root = (int)n;
    ps->root_given = true;
    return CV_OK;
}

/* tmp N (every rank) or tmp rR N. */
static CvError key_tmp(Parse *ps, const char *v, const char *rest)
{
    size_t r = 0, n, all = 1;
    char w[1024];
    if (!ps->ranks)
        return fail(ps, CV_ERR_ARG, "give 'ranks' before 'tmp'");
    if (v[0] == 'r') {
        if (!word_num(v + 1, (size_t)ps->ranks - 1, &r))
            return fail(ps, CV_ERR_ARG, "'%s' is not a rank r0 to r%d", v,
                        ps->ranks - 1);
        all = 0;
        v = next_word(&rest, w, sizeof w) ? w : "";
    }
    if (!word_num(v, SCHED_TEXT_MAX_UNITS, &n))
        return fail(ps, CV_ERR_LIMIT, "tmp '%s' is not a whole number of "
                    "units up to %u", v, SCHED_TEXT_MAX_UNITS);
    for (size_t q = all ? 0 : r; q < (all ? (size_t)ps->ranks : r + 1); q++)
        ps->tmp[q] = n;
    return CV_OK;
}

/* A header line: key and its value. */
static CvError header_line(Parse *ps, const char *key, const char *rest)
{
    char v[1024]; /* a line's length: no word is cut */
    bool has = next_word(&rest, v, sizeof v);
    if (ps->body)
        return need_body_order(ps, key);
    if (!strcmp(key, "in-place")) {
        if (ps->in_place)
            return fail(ps, CV_ERR_ARG, "'in-place' is given twice");
        ps->in_place = true;
        return has ? fail(ps, CV_ERR_ARG, "'in-place' takes no value")
                   : CV_OK;
    }
    if (!has)
        return fail(ps, CV_ERR_ARG, "'%s' needs a value", key);
    if (!strcmp(key, "collective"))
        return key_collective(ps, v);
    if (!strcmp(key, "ranks"))
        return key_ranks(ps, v);
    if (!strcmp(key, "parts") || !strcmp(key, "count"))
        return key_units(ps, key, v);
    if (!strcmp(key, "root"))
        return key_root(ps, v);
    return key_tmp(ps, v, rest);
}

/* ----------------------------------------------------------------- body */

static CvError close_step(Parse *ps)
{
    if (ps->ns && ps->first[ps->ns - 1] == ps->nx) {
        unsigned at = ps->line;
        ps->line = ps->sline[ps->ns - 1];
        CvError e = fail(ps, CV_ERR_ARG, "this step has no transfers");
        ps->line = at;
        return e;
    }
    return CV_OK;
}

/* `step` and its label. */
static CvError step_line(Parse *ps, const char *rest)
{
    if (ps->kind < 0 || !ps->ranks || !ps->units_given)
        return fail(ps, CV_ERR_ARG, "the header needs 'collective', "
                    "'ranks' and 'parts' (or 'count') before the first "
                    "'step'");
    CvError e = close_step(ps);
    if (e)
        return e;
    if (ps->ns == SCHED_TEXT_MAX_STEPS)
        return fail(ps, CV_ERR_LIMIT, "more than %u steps",
                    SCHED_TEXT_MAX_STEPS);
    size_t *f = grow_array(ps->first, &ps->caps, ps->ns + 1, sizeof *f, 64);
    if (f)
        ps->first = f;
    uint32_t *l = grow_array(ps->sline, &ps->capsl, ps->ns + 1, sizeof *l,
                             64);
    if (l)
        ps->sline = l;
    void *ph = grow_array(ps->phase, &ps->capph, ps->ns + 1,
                          sizeof *ps->phase, 64);
    if (ph)
        ps->phase = ph;
    if (!f || !l || !ph)
        return fail(ps, CV_ERR_NOMEM, "out of memory");
    while (*rest == ' ' || *rest == '\t')
        rest++;
    if (strlen(rest) >= SCHED_TEXT_PHASE_LEN)
        return fail(ps, CV_ERR_LIMIT, "a step's label has at most %d bytes",
                    SCHED_TEXT_PHASE_LEN - 1);
    strcpy(ps->phase[ps->ns], rest);
    ps->first[ps->ns] = ps->nx;
    ps->sline[ps->ns++] = ps->line;
    ps->body = true;
    return CV_OK;
}

/* Units of rank r's buffer b in the file's schedule (tmp: SIZE_MAX when
 * none is given: it grows to what the transfers use). */
static size_t buf_units(const Parse *ps, int r, int b)
{
    if (b == BUF_TMP)
        return ps->tmp[r];
    CollCall c = {.kind = (CollKind)ps->kind, .nranks = ps->ranks,
                  .count = ps->units, .root = ps->root,
                  .in_place = ps->in_place};
    CollLayout l;
    coll_layout(&c, r, &l);
    return b == BUF_SEND ? l.send_count : l.recv_count;
}

/* rR.BUF[a:b] or rR.BUF[a] at *s. */
static CvError read_end(Parse *ps, const char **s, End *e)
{
    const char *c = *s;
    size_t r, lo, hi;
    char name[8];
    const char *form = "a transfer is rA.BUF[a:b] -> rB.BUF[c:d], BUF "
                       "send, recv or tmp";
    if (*c++ != 'r' || !read_num(&c, SIZE_MAX / 2, &r) ||
        *c++ != '.')
        return fail(ps, CV_ERR_ARG, "%s", form);
    size_t n = strcspn(c, "[");
    if (!c[n] || n >= sizeof name)
        return fail(ps, CV_ERR_ARG, "%s", form);
    memcpy(name, c, n);
    name[n] = 0;
    c += n + 1;
    if (!read_num(&c, SIZE_MAX / 2, &lo))
        return fail(ps, CV_ERR_ARG, "%s", form);
    hi = lo + 1;
    if (*c == ':' && (c++, !read_num(&c, SIZE_MAX / 2, &hi)))
        return fail(ps, CV_ERR_ARG, "%s", form);
    if (*c++ != ']')
        return fail(ps, CV_ERR_ARG, "%s", form);
    if (r >= (size_t)ps->ranks)
        return fail(ps, CV_ERR_ARG, "rank %zu is not one of the %d ranks "
                    "(r0 to r%d)", r, ps->ranks, ps->ranks - 1);
    int b = buf_parse(name);
    if (b < 0)
        return fail(ps, CV_ERR_ARG, "'%s' is not a buffer: send, recv or "
                    "tmp", name);
    if (hi <= lo)
        return fail(ps, CV_ERR_ARG, "the range [%zu:%zu] is empty; write "
                    "[a:b] with a < b", lo, hi);
    *e = (End){(int)r, b, lo, hi};
    *s = c;
    return CV_OK;
}

/* Whether end e lies in its buffer; one sentence when not. */
static CvError end_in_bounds(Parse *ps, const End *e)
{
    size_t have = buf_units(ps, e->rank, e->buf);
    if (e->buf == BUF_TMP && have == SIZE_MAX)
        return e->hi <= SCHED_TEXT_MAX_UNITS ? CV_OK
               : fail(ps, CV_ERR_LIMIT, "tmp goes past %u units",
                      SCHED_TEXT_MAX_UNITS);
    if (e->hi <= have)
        return CV_OK;
    return fail(ps, CV_ERR_ARG, "r%d.%s[%zu:%zu] ends past rank %d's %s "
                "buffer of %zu units%s", e->rank, buf_name((BufId)e->buf),
                e->lo, e->hi, e->rank, buf_name((BufId)e->buf), have,
                e->buf == BUF_SEND && ps->in_place
                    ? " (in place, the input is in recv)" : "");
}

/* The words after a transfer: reduce, copy, switch. */
static CvError xfer_words(Parse *ps, const char *rest, Transfer *t)
{
    char w[1024];
    while (next_word(&rest, w, sizeof w)) {
        if (!strcmp(w, "reduce"))
            t->op = XFER_REDUCE;
        else if (!strcmp(w, "copy"))
            t->op = XFER_COPY;
        else if (!strcmp(w, "switch"))
            t->flags |= XF_SWITCH;
        else
            return fail(ps, CV_ERR_ARG, "'%s' after a transfer is not "
                        "'reduce', 'copy' or 'switch'", w);
    }
    return CV_OK;
}

static CvError add_xfer(Parse *ps, const Transfer *t)
{
    if (ps->nx == SCHED_TEXT_MAX_XFERS)
        return fail(ps, CV_ERR_LIMIT, "more than %u transfers",
                    SCHED_TEXT_MAX_XFERS);
    if ((ps->moved += t->count) > TEXT_MAX_MOVED)
        return fail(ps, CV_ERR_LIMIT, "the transfers move more than %zu "
                    "units in all, more than collviz checks unit by unit; "
                    "use fewer parts", TEXT_MAX_MOVED);
    Transfer *x = grow_array(ps->x, &ps->capx, ps->nx + 1, sizeof *x, 256);
    if (x)
        ps->x = x;
    uint32_t *l = grow_array(ps->xline, &ps->capl, ps->nx + 1, sizeof *l,
                             256);
    if (l)
        ps->xline = l;
    if (!x || !l)
        return fail(ps, CV_ERR_NOMEM, "out of memory");
    ps->x[ps->nx] = *t;
    ps->xline[ps->nx++] = ps->line;
    return CV_OK;
}

/* A transfer line; arrow points at its "->". */
static CvError xfer_line(Parse *ps, const char *s, const char *arrow)
{
    if (!ps->body)
        return fail(ps, CV_ERR_ARG, "a transfer before the first 'step'");
    End a, b;
    const char *c = s, *d = arrow + 2;
    CvError e = read_end(ps, &c, &a);
    while (!e && (*c == ' ' || *c == '\t'))
        c++;
    if (!e && c != arrow)
        e = fail(ps, CV_ERR_ARG, "a transfer is rA.BUF[a:b] -> rB.BUF[c:d]");
    while (!e && (*d == ' ' || *d == '\t'))
        d++;
    if (e || (e = read_end(ps, &d, &b)))
        return e;
    if (a.hi - a.lo != b.hi - b.lo)
        return fail(ps, CV_ERR_ARG, "[%zu:%zu] holds %zu units and "
                    "[%zu:%zu] %zu; a transfer writes as many as it reads",
                    a.lo, a.hi, a.hi - a.lo, b.lo, b.hi, b.hi - b.lo);
    if (b.buf == BUF_SEND)
        return fail(ps, CV_ERR_ARG, "r%d.send is rank %d's input, which no "
                    "transfer may write", b.rank, b.rank);
    if ((e = end_in_bounds(ps, &a)) || (e = end_in_bounds(ps, &b)))
        return e;
    Transfer t = {a.rank, b.rank, (uint8_t)a.buf, (uint8_t)b.buf,
                  XFER_COPY, 0, a.lo, b.lo, a.hi - a.lo};
    return (e = xfer_words(ps, d, &t)) ? e : add_xfer(ps, &t);
}

/* One line, its comment cut and its blanks trimmed (s is writable). */
static CvError one_line(Parse *ps, char *s)
{
    char key[1024];
    const char *rest = s;
    s[strcspn(s, "#")] = 0;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = 0;
    const char *arrow = strstr(s, "->");
    if (arrow) {
        while (*s == ' ' || *s == '\t')
            s++;
        return xfer_line(ps, s, arrow);
    }
    if (!next_word(&rest, key, sizeof key))
        return CV_OK;
    if (!strcmp(key, "step"))
        return step_line(ps, rest);
    static const char *const keys[] = {"collective", "ranks", "parts",
                                       "count", "root", "in-place", "tmp"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (!strcmp(key, keys[k]))
            return header_line(ps, key, rest);
    return fail(ps, CV_ERR_ARG, "'%s' is neither a transfer (rA.BUF[a:b] -> "
                "rB.BUF[c:d]) nor one of: collective, ranks, parts, count, "
                "root, in-place, tmp, step", key);
}

/* ------------------------------------------------------------- building */

/* Every rank's tmp: as given, or what the transfers reach. */
static void tmp_sizes(const Parse *ps, Schedule *s)
{
    for (int r = 0; r < ps->ranks; r++) {
        size_t n = ps->tmp[r] == SIZE_MAX ? 0 : ps->tmp[r];
        for (size_t i = 0; ps->tmp[r] == SIZE_MAX && i < ps->nx; i++) {
            const Transfer *t = &ps->x[i];
            if (t->src == r && t->src_buf == BUF_TMP &&
                t->src_off + t->count > n)
                n = t->src_off + t->count;
            if (t->dst == r && t->dst_buf == BUF_TMP &&
                t->dst_off + t->count > n)
                n = t->dst_off + t->count;
        }
        sched_tmp(s, r, n);
    }
}

/* Whether the symbolic check can hold the file's buffers. */
static CvError cells_fit(Parse *ps, const Schedule *s)
{
    size_t cells = 0, words = ((size_t)ps->ranks + 63) / 64;
    for (int r = 0; r < ps->ranks; r++)
        for (int b = 0; b < BUF_COUNT; b++)
            cells += sched_bufsize(s, r, (BufId)b);
    if (cells / 4 * (4 + 8 * words) <= TEXT_MAX_CELLS)
        return CV_OK;
    return fail(ps, CV_ERR_LIMIT, "the buffers hold %zu units on %d ranks, "
                "more than collviz checks unit by unit; use fewer parts",
                cells, ps->ranks);
}

static CvError build_unit(Parse *ps, const char *name, SchedText *out)
{
    CollCall c = {.kind = (CollKind)ps->kind, .nranks = ps->ranks,
                  .count = ps->units, .root = ps->root,
                  .in_place = ps->in_place};
    ps->line = 0;
    CvError e = coll_check(&c);
    if (e == CV_ERR_IN_PLACE)
        return fail(ps, CV_ERR_ARG, "%s has no in-place form",
                    coll_name(c.kind));
    if (e)
        return fail(ps, CV_ERR_ARG, "%s needs a power of two ranks, not %d",
                    coll_name(c.kind), c.nranks);
    if ((e = sched_init(&out->unit, &c, name)))
        return fail(ps, e, "out of memory");
    tmp_sizes(ps, &out->unit);
    if ((e = cells_fit(ps, &out->unit)))
        return e;
    for (size_t k = 0; k < ps->ns; k++) {
        sched_step(&out->unit, ps->phase[k]);
        size_t end = k + 1 < ps->ns ? ps->first[k + 1] : ps->nx;
        for (size_t i = ps->first[k]; i < end; i++) {
            const Transfer *t = &ps->x[i];
            sched_flags(&out->unit, t->flags);
            sched_xfer(&out->unit, (XferOp)t->op, t->src, (BufId)t->src_buf,
                       t->src_off, t->dst, (BufId)t->dst_buf, t->dst_off,
                       t->count);
        }
    }
    if ((e = sched_end(&out->unit)))
        return fail(ps, e, "%s", cv_strerror(e));
    return CV_OK;
}

/* Check the tmp ranges the header gave against the transfers. */
static CvError tmp_bounds(Parse *ps)
{
    for (size_t i = 0; i < ps->nx; i++) {
        const Transfer *t = &ps->x[i];
        End e[2] = {{t->src, t->src_buf, t->src_off, t->src_off + t->count},
                    {t->dst, t->dst_buf, t->dst_off, t->dst_off + t->count}};
        ps->line = ps->xline[i];
        for (int k = 0; k < 2; k++)
            if (e[k].buf == BUF_TMP && ps->tmp[e[k].rank] != SIZE_MAX) {
                CvError err = end_in_bounds(ps, &e[k]);
                if (err)
                    return err;
            }
    }
    return CV_OK;
}

static CvError parse_lines(Parse *ps, const char *text, size_t len)
{
    char buf[1024];
    for (size_t at = 0; at < len;) {
        size_t n = 0;
        ps->line++;
        while (at + n < len && text[at + n] != '\n')
            n++;
        if (memchr(text + at, 0, n))
            return fail(ps, CV_ERR_ARG, "a NUL byte: this is not text");
        if (n >= sizeof buf)
            return fail(ps, CV_ERR_LIMIT, "a line has at most %zu bytes",
                        sizeof buf - 1);
        memcpy(buf, text + at, n);
        buf[n] = 0;
        at += n + 1;
        CvError e = one_line(ps, buf);
        if (e)
            return e;
    }
    CvError e = ps->body ? close_step(ps) : CV_OK;
    if (!e && (ps->kind < 0 || !ps->ranks || !ps->units_given))
        return ps->line = 0, fail(ps, CV_ERR_ARG, "the header needs "
                                  "'collective', 'ranks' and 'parts' (or "
                                  "'count')");
    return e ? e : tmp_bounds(ps);
}

static void parse_free(Parse *ps)
{
    free(ps->tmp), free(ps->x), free(ps->first), free(ps->phase);
}

CvError sched_text_parse(const char *text, size_t len, const char *name,
                         SchedText *out, char *why, size_t whylen)
{
    Parse ps = {.kind = -1, .why = why, .whylen = whylen};
    memset(out, 0, sizeof *out);
    *why = 0;
    if (len > SCHED_TEXT_MAX_BYTES)
        return fail(&ps, CV_ERR_LIMIT, "the file is larger than %u MiB",
                    SCHED_TEXT_MAX_BYTES >> 20);
    CvError e = parse_lines(&ps, text, len);
    if (!e)
        e = build_unit(&ps, name, out);
    if (!e) {
        for (size_t k = 0; k < ps.ns; k++) /* the schedule's labels */
            out->unit.steps[k].phase = ps.phase[k][0] ? ps.phase[k] : NULL;
        out->parts = ps.parts ? ps.units : 0;
        out->line = ps.xline, out->step_line = ps.sline;
        out->phase = ps.phase;
        ps.xline = NULL, ps.sline = NULL, ps.phase = NULL;
    } else {
        sched_fini(&out->unit);
        memset(out, 0, sizeof *out);
    }
    free(ps.xline), free(ps.sline);
    parse_free(&ps);
    return e;
}

void sched_text_fini(SchedText *t)
{
    sched_fini(&t->unit);
    free(t->line), free(t->step_line), free(t->phase);
    memset(t, 0, sizeof *t);
}
