/* json.h - one streaming JSON writer for every command that writes JSON
 * (trace --json, perf --json), over a buffered Sink.
 *
 * The writer keeps the nesting and puts the commas itself. Every value
 * call takes the member's key: a string inside an object, NULL inside an
 * array and for the top-level value. Strings are escaped (quote,
 * backslash, and every control character as \u00XX); other bytes, UTF-8
 * included, pass through as they are. A double that is not finite (inf,
 * nan) is written as null: JSON has no such numbers.
 *
 * Layout: JSON_COMPACT writes no spaces (trace); JSON_SPACED writes
 * "key": value, items apart by ", " (perf). Line breaks are where the
 * caller asks (json_break): before the next item or closing bracket,
 * after its comma, indented by two spaces a level in JSON_SPACED.
 *
 * Errors are remembered, not printed: a failed write (the sink's), or
 * calls that do not make one JSON value (a key in an array, a value
 * without key in an object, a close too many, nesting too deep). After a
 * wrong call the writer writes nothing more. json_finish says which. */
#ifndef COLLVIZ_JSON_H
#define COLLVIZ_JSON_H

#include <stdbool.h>

#include "store/sink.h"
#include "core/error.h"

/* Containers one document may nest. */
#define JSON_MAX_DEPTH 32

/* Where the writer puts spaces. */
typedef enum {
    JSON_COMPACT, /* {"key":1,"list":[1,2]} */
    JSON_SPACED,  /* {"key": 1, "list": [1, 2]} */
    JSON_STYLE_COUNT
} JsonStyle;

/* The state of one document being written. */
typedef struct {
    Sink *out;                        /* where the text goes */
    JsonStyle style;                  /* spaces */
    int depth;                        /* containers open */
    char close[JSON_MAX_DEPTH + 1];   /* [d]: '}' or ']' closes level d
                                         (level 0: the document) */
    bool items[JSON_MAX_DEPTH + 1];   /* [d]: level d has an item already */
    bool brk;                         /* a line break before what comes next */
    bool misuse;                      /* a call out of order: nothing more
                                         is written */
} JsonWriter;

/* Start a document on out. */
void json_init(JsonWriter *w, Sink *out, JsonStyle style);

/* Open an object or an array as member `key` (NULL in an array or at the
 * top); json_close closes the innermost one. */
void json_object(JsonWriter *w, const char *key);
void json_array(JsonWriter *w, const char *key);
void json_close(JsonWriter *w);

/* Values, as member `key` (NULL in an array or at the top). */
void json_str(JsonWriter *w, const char *key, const char *s); /* NULL: null */
void json_int(JsonWriter *w, const char *key, long long v);
void json_uint(JsonWriter *w, const char *key, unsigned long long v);
/* printf's %.*g with `digits` significant digits (1 to 40). */
void json_double(JsonWriter *w, const char *key, double v, int digits);
/* printf's %.*f with `decimals` decimals (0 to 40). */
void json_fixed(JsonWriter *w, const char *key, double v, int decimals);
void json_bool(JsonWriter *w, const char *key, bool v);
void json_null(JsonWriter *w, const char *key);

/* A line break before the next item or closing bracket. */
void json_break(JsonWriter *w);

/* After the top-level value: end its line and flush the sink. CV_OK;
 * CV_ERR_IO when a write failed; CV_ERR_ARG when the calls did not make
 * one complete value. */
CvError json_finish(JsonWriter *w);
/* The same verdict so far, without finishing. */
CvError json_error(const JsonWriter *w);

#endif
