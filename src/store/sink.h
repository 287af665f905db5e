/* sink.h - buffered output for the commands that write a lot: bytes are
 * gathered in memory and handed to a FILE in large writes. The loops that
 * write a trace's transfers and cell runs write a few bytes at a time; one
 * stdio call each would cost more than the rest of the trace, so the
 * common case (the bytes fit) is inline here.
 *
 * A failed write is remembered (`err`) and later writes still go on, so a
 * command checks once, at the end, and says one sentence. */
#ifndef COLLVIZ_SINK_H
#define COLLVIZ_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"

/* A buffer in front of a FILE. */
typedef struct {
    FILE *f;    /* destination */
    char *buf;  /* pending bytes */
    size_t n;   /* bytes pending */
    size_t cap; /* bytes buf holds (at least 1) */
    bool err;   /* a write failed */
    int errnum; /* errno of the first failed write (0: none seen) */
} Sink;

/* A sink over f with a buffer of cap bytes (cap >= 1): CV_OK, CV_ERR_ARG
 * for cap 0, CV_ERR_NOMEM. */
CvError sink_init(Sink *s, FILE *f, size_t cap);
/* Flush and free the buffer (the FILE stays open; check s->err after). */
void sink_fini(Sink *s);
/* Hand the pending bytes to the FILE and flush the FILE, so that a write
 * that fails (a full disk) sets err now, not at fclose. */
void sink_flush(Sink *s);
/* n bytes that do not fit in what is left of the buffer. */
void sink_mem_slow(Sink *s, const char *p, size_t n);
/* printf into the sink (a line longer than 511 bytes goes straight to the
 * FILE after what is pending). */
void sink_printf(Sink *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A whole number in decimal, without printf. */
void sink_uint(Sink *s, unsigned long long v);
void sink_int(Sink *s, long long v);

/* n bytes from p. */
static inline void sink_mem(Sink *s, const char *p, size_t n)
{
    if (s->cap - s->n < n) {
        sink_mem_slow(s, p, n);
        return;
    }
    memcpy(s->buf + s->n, p, n);
    s->n += n;
}

static inline void sink_str(Sink *s, const char *str)
{
    sink_mem(s, str, strlen(str));
}

static inline void sink_c(Sink *s, int c)
{
    if (s->n == s->cap)
        sink_flush(s);
    s->buf[s->n++] = (char)c;
}

#endif
