/* sink.c - buffered output (sink.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

#include "store/sink.h"

CvError sink_init(Sink *s, FILE *f, size_t cap)
{
    *s = (Sink){.f = f, .cap = cap};
    if (!cap)
        return CV_ERR_ARG;
    s->buf = malloc(cap);
    return s->buf ? CV_OK : CV_ERR_NOMEM;
}

void sink_fini(Sink *s)
{
    if (s->buf)
        sink_flush(s);
    free(s->buf);
    s->buf = NULL;
    s->n = s->cap = 0;
}

/* Remember the first failed write and its cause. */
static void sink_failed(Sink *s)
{
    if (!s->err)
        s->errnum = errno;
    s->err = true;
}

void sink_flush(Sink *s)
{
    if (s->n && fwrite(s->buf, 1, s->n, s->f) != s->n)
        sink_failed(s);
    if (fflush(s->f))
        sink_failed(s);
    s->n = 0;
}

void sink_mem_slow(Sink *s, const char *p, size_t n)
{
    sink_flush(s);
    if (n > s->cap) {
        if (fwrite(p, 1, n, s->f) != n)
            sink_failed(s);
        return;
    }
    memcpy(s->buf, p, n);
    s->n = n;
}

void sink_printf(Sink *s, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (k < 0) {
        sink_failed(s);
    } else if ((size_t)k < sizeof line) {
        sink_mem(s, line, (size_t)k);
    } else { /* a long line: straight to the FILE, after what is pending */
        sink_flush(s);
        va_start(ap, fmt);
        if (vfprintf(s->f, fmt, ap) < 0)
            sink_failed(s);
        va_end(ap);
    }
}

void sink_uint(Sink *s, unsigned long long v)
{
    char b[24];
    size_t i = sizeof b;
    do {
        b[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    sink_mem(s, b + i, sizeof b - i);
}

void sink_int(Sink *s, long long v)
{
    if (v < 0)
        sink_c(s, '-');
    sink_uint(s, v < 0 ? (unsigned long long)(-(v + 1)) + 1 : (unsigned long long)v);
}
