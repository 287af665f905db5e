/* json.c - the streaming JSON writer (json.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "store/json.h"

void json_init(JsonWriter *w, Sink *out, JsonStyle style)
{
    *w = (JsonWriter){.out = out, .style = style};
}

/* A line break and the indent of level d. */
static void newline(JsonWriter *w, int d)
{
    sink_c(w->out, '\n');
    if (w->style == JSON_SPACED)
        for (int i = 0; i < d; i++)
            sink_mem(w->out, "  ", 2);
    w->brk = false;
}

/* The bytes a JSON string cannot hold as they are, and the string's end:
 * the 32 control characters (NUL among them), the quote, the backslash. */
#define ONE4 1, 1, 1, 1,
#define ONE16 ONE4 ONE4 ONE4 ONE4
static const unsigned char special[256] = {ONE16 ONE16 ['"'] = 1, ['\\'] = 1};
#undef ONE16
#undef ONE4

/* How many bytes at the start of s need no escape. */
static size_t plain_len(const char *s)
{
    size_t n = 0;
    while (!special[(unsigned char)s[n]])
        n++;
    return n;
}

/* s between quotes, escaped: runs of bytes that need no escape are
 * written whole. Not inlined: it would burden put_str's common case. */
__attribute__((noinline)) static void quoted(Sink *o, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    sink_c(o, '"');
    for (;;) {
        size_t n = plain_len(s);
        sink_mem(o, s, n);
        unsigned char c = (unsigned char)s[n];
        if (!c)
            break;
        if (c == '"' || c == '\\') {
            sink_c(o, '\\');
            sink_c(o, c);
        } else {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            sink_mem(o, u, sizeof u);
        }
        s += n + 1;
    }
    sink_c(o, '"');
}

/* s between quotes, then tail's tn bytes after the closing quote (tail
 * starts with that quote). Copied straight into the sink's buffer when s
 * needs no escape and all fits there, which is nearly always: keys and
 * names are short. */
static void put_str(Sink *o, const char *s, const char *tail, size_t tn)
{
    size_t room = o->cap - o->n, i = 0;
    if (room > tn + 1) {
        char *b = o->buf + o->n + 1;
        size_t max = room - tn - 1;
        while (i < max && !special[(unsigned char)s[i]]) {
            b[i] = s[i];
            i++;
        }
        if (!s[i]) {
            b[-1] = '"';
            for (size_t k = 0; k < tn; k++)
                b[i + k] = tail[k];
            o->n += 1 + i + tn;
            return;
        }
    }
    quoted(o, s);
    sink_mem(o, tail + 1, tn - 1);
}

/* What goes before a value or an opening bracket: the comma, a line break
 * or a space, and the key. False when the call is out of order (then it
 * is remembered and nothing is written). Inlined into every value call:
 * a trace makes millions. */
__attribute__((always_inline)) static inline bool item(JsonWriter *w,
                                                      const char *key)
{
    int d = w->depth;
    bool in_object = w->close[d] == '}';
    if (in_object != (key != NULL) || w->misuse || (!d && w->items[0])) {
        w->misuse = true;
        return false;
    }
    if (w->items[d]) {
        sink_c(w->out, ',');
        if (w->style == JSON_SPACED && !w->brk)
            sink_c(w->out, ' ');
    }
    w->items[d] = true;
    if (w->brk)
        newline(w, d);
    if (key && w->style == JSON_SPACED)
        put_str(w->out, key, "\": ", 3);
    else if (key)
        put_str(w->out, key, "\":", 2);
    return true;
}

/* An opening bracket; `close` will close it. */
static void opening(JsonWriter *w, const char *key, char c, char close)
{
    if (!item(w, key))
        return;
    if (w->depth == JSON_MAX_DEPTH) {
        w->misuse = true;
        return;
    }
    sink_c(w->out, c);
    w->depth++;
    w->close[w->depth] = close;
    w->items[w->depth] = false;
}

void json_object(JsonWriter *w, const char *key) { opening(w, key, '{', '}'); }

void json_array(JsonWriter *w, const char *key) { opening(w, key, '[', ']'); }

void json_close(JsonWriter *w)
{
    if (w->misuse || !w->depth) {
        w->misuse = true;
        return;
    }
    char c = w->close[w->depth--];
    if (w->brk)
        newline(w, w->depth);
    sink_c(w->out, c);
}

void json_str(JsonWriter *w, const char *key, const char *s)
{
    if (!item(w, key))
        return;
    if (s)
        put_str(w->out, s, "\"", 1);
    else
        sink_mem(w->out, "null", 4);
}

void json_int(JsonWriter *w, const char *key, long long v)
{
    if (item(w, key))
        sink_int(w->out, v);
}

void json_uint(JsonWriter *w, const char *key, unsigned long long v)
{
    if (item(w, key))
        sink_uint(w->out, v);
}

/* v through printf's format fmt ("%.*g" or "%.*f") at precision prec. */
static void number(JsonWriter *w, const char *key, double v, const char *fmt,
                   int prec)
{
    char b[400]; /* %.40f of the largest double: 351 bytes */
    if (prec < 0 || prec > 40)
        w->misuse = true;
    if (!item(w, key))
        return;
    if (!isfinite(v)) {
        sink_mem(w->out, "null", 4);
        return;
    }
    int k = snprintf(b, sizeof b, fmt, prec, v);
    if (k < 0 || (size_t)k >= sizeof b)
        w->misuse = true;
    else
        sink_mem(w->out, b, (size_t)k);
}

void json_double(JsonWriter *w, const char *key, double v, int digits)
{
    number(w, key, v, "%.*g", digits);
}

void json_fixed(JsonWriter *w, const char *key, double v, int decimals)
{
    number(w, key, v, "%.*f", decimals);
}

void json_bool(JsonWriter *w, const char *key, bool v)
{
    if (item(w, key))
        sink_str(w->out, v ? "true" : "false");
}

void json_null(JsonWriter *w, const char *key)
{
    if (item(w, key))
        sink_mem(w->out, "null", 4);
}

void json_break(JsonWriter *w) { w->brk = true; }

CvError json_finish(JsonWriter *w)
{
    if (w->depth || !w->items[0])
        w->misuse = true;
    if (!w->misuse)
        sink_c(w->out, '\n');
    sink_flush(w->out);
    return json_error(w);
}

CvError json_error(const JsonWriter *w)
{
    return w->out->err ? CV_ERR_IO : w->misuse ? CV_ERR_ARG : CV_OK;
}
