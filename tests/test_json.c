/* test_json.c - the JSON writer (src/store/json.h) and the sink under it:
 * escaping of every control character, the quote and the backslash, bytes
 * from 0x7f up passed through (UTF-8), random strings that decode back to
 * themselves, nesting and commas in both layouts, numbers at their limits,
 * non-finite doubles as null, calls out of order, and failed writes
 * remembered and reported. Each document is written through sinks of
 * several buffer sizes, so that the paths for bytes that do not fit run
 * too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/json.h"
#include "store/sink.h"

/* Sink buffer sizes every document is written with: one byte (every
 * write takes the slow path), a few, and the usual. */
static const size_t caps[] = {1, 3, 16, 1 << 16};
#define NCAPS (sizeof caps / sizeof caps[0])

/* ------------------------------------------------------------ helpers */

/* One document written into memory. */
typedef struct {
    char *text;   /* what was written (open_memstream's buffer) */
    size_t len;   /* its length */
    FILE *f;      /* the memory stream */
    Sink sink;    /* the sink over f */
    JsonWriter w; /* the writer on the sink */
} Doc;

static void doc_open(Doc *d, JsonStyle style, size_t cap)
{
    d->text = NULL;
    d->f = open_memstream(&d->text, &d->len);
    assert_non_null(d->f);
    assert_int_equal(sink_init(&d->sink, d->f, cap), CV_OK);
    json_init(&d->w, &d->sink, style);
}

/* Finish the document: json_finish's verdict; the text in d->text. */
static CvError doc_close(Doc *d)
{
    CvError e = json_finish(&d->w);
    sink_fini(&d->sink);
    assert_int_equal(fclose(d->f), 0);
    return e;
}

/* A document of fill(w) must read exactly `want` (and finish with e). */
static void expect_doc(JsonStyle style, void (*fill)(JsonWriter *w),
                       const char *want, CvError e)
{
    for (size_t i = 0; i < NCAPS; i++) {
        Doc d;
        doc_open(&d, style, caps[i]);
        fill(&d.w);
        assert_int_equal(doc_close(&d), e);
        if (strcmp(d.text, want))
            fail_msg("buffer %zu: wrote\n%s\nwant\n%s", caps[i], d.text, want);
        free(d.text);
    }
}

/* The JSON text of one top-level string s (without the final newline). */
static char *encode(const char *s, size_t cap)
{
    Doc d;
    doc_open(&d, JSON_COMPACT, cap);
    json_str(&d.w, NULL, s);
    assert_int_equal(doc_close(&d), CV_OK);
    assert_true(d.len >= 3 && d.text[d.len - 1] == '\n');
    d.text[d.len - 1] = '\0';
    return d.text;
}

/* Decode a JSON string literal made only of the escapes the writer uses
 * (\" \\ \u00XX); fails on anything else, raw control characters too. */
static char *decode(const char *j)
{
    size_t n = strlen(j), k = 0;
    char *out = malloc(n + 1);
    assert_non_null(out);
    assert_true(n >= 2 && j[0] == '"' && j[n - 1] == '"');
    for (size_t i = 1; i + 1 < n; i++) {
        unsigned char c = (unsigned char)j[i];
        if (c < 0x20 || c == '"')
            fail_msg("raw byte 0x%02x at %zu of %s", c, i, j);
        if (c != '\\') {
            out[k++] = (char)c;
            continue;
        }
        c = (unsigned char)j[++i];
        if (c == '"' || c == '\\') {
            out[k++] = (char)c;
        } else {
            unsigned v = 0;
            if (c != 'u' || sscanf(j + i + 1, "00%2x", &v) != 1 || v >= 0x20)
                fail_msg("bad escape at %zu of %s", i, j);
            out[k++] = (char)v;
            i += 4;
        }
    }
    out[k] = '\0';
    return out;
}

/* ----------------------------------------------------------- escaping */

static void test_control_characters(void **state)
{
    (void)state;
    for (int c = 1; c < 0x20; c++) {
        char s[4] = {'a', (char)c, 'b', '\0'}, want[16];
        snprintf(want, sizeof want, "\"a\\u%04xb\"", c);
        for (size_t i = 0; i < NCAPS; i++) {
            char *j = encode(s, caps[i]);
            if (strcmp(j, want))
                fail_msg("0x%02x, buffer %zu: %s, want %s", c, caps[i], j, want);
            free(j);
        }
    }
}

static void test_quote_backslash(void **state)
{
    (void)state;
    static const struct {
        const char *s;    /* the string */
        const char *want; /* its JSON */
    } cases[] = {
        {"", "\"\""},
        {"\"", "\"\\\"\""},
        {"\\", "\"\\\\\""},
        {"say \"hi\"\\n", "\"say \\\"hi\\\"\\\\n\""},
        {"\\\"\n", "\"\\\\\\\"\\u000a\""},
        {"/ and ' stay", "\"/ and ' stay\""},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (size_t i = 0; i < NCAPS; i++) {
            char *j = encode(cases[k].s, caps[i]);
            if (strcmp(j, cases[k].want))
                fail_msg("case %zu, buffer %zu: %s, want %s", k, caps[i], j,
                         cases[k].want);
            free(j);
        }
}

/* Bytes from 0x7f up are not escaped: UTF-8 text (and anything else the
 * caller gives) passes through unchanged. */
static void test_utf8_passes(void **state)
{
    (void)state;
    const char *texts[] = {
        "r\xc3\xa9sum\xc3\xa9",                  /* two-byte sequences */
        "\xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac", /* three-byte ones */
        "\xf0\x9f\x98\x80",                      /* a four-byte one */
        "\x7f\x80\xff",                          /* DEL, bytes not UTF-8 */
    };
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++)
        for (size_t i = 0; i < NCAPS; i++) {
            char *j = encode(texts[k], caps[i]);
            assert_int_equal(strlen(j), strlen(texts[k]) + 2);
            assert_memory_equal(j + 1, texts[k], strlen(texts[k]));
            free(j);
        }
}

/* Random strings of every byte but NUL, short and longer than the
 * buffers: the JSON holds no raw control character and decodes back. */
static void test_random_strings(void **state)
{
    (void)state;
    uint32_t x = 12345;
    char s[700];
    for (int k = 0; k < 300; k++) {
        size_t n = (size_t)k * 7 % sizeof s;
        for (size_t i = 0; i < n; i++) {
            x = x * 1664525u + 1013904223u;
            s[i] = (char)(1 + (x >> 24) % 255);
        }
        s[n] = '\0';
        char *j = encode(s, caps[(size_t)k % NCAPS]);
        char *back = decode(j);
        assert_string_equal(back, s);
        free(back);
        free(j);
    }
}

/* Keys are escaped like values. */
static void fill_keys(JsonWriter *w)
{
    json_object(w, NULL);
    json_int(w, "a\"b", 1);
    json_int(w, "c\\d\x01", 2);
    json_close(w);
}

static void test_keys_escaped(void **state)
{
    (void)state;
    expect_doc(JSON_COMPACT, fill_keys, "{\"a\\\"b\":1,\"c\\\\d\\u0001\":2}\n", CV_OK);
}

/* ------------------------------------------------------------ nesting */

static void fill_nested(JsonWriter *w)
{
    json_object(w, NULL);
    json_int(w, "a", 1);
    json_array(w, "b");
    json_int(w, NULL, 1);
    json_uint(w, NULL, 2);
    json_array(w, NULL);
    json_close(w);
    json_object(w, NULL);
    json_close(w);
    json_close(w);
    json_object(w, "c");
    json_null(w, "d");
    json_bool(w, "e", true);
    json_bool(w, "f", false);
    json_close(w);
    json_str(w, "g", "s");
    json_str(w, "h", NULL);
    json_close(w);
}

static void test_nesting(void **state)
{
    (void)state;
    expect_doc(JSON_COMPACT, fill_nested,
               "{\"a\":1,\"b\":[1,2,[],{}],\"c\":{\"d\":null,\"e\":true,"
               "\"f\":false},\"g\":\"s\",\"h\":null}\n", CV_OK);
    expect_doc(JSON_SPACED, fill_nested,
               "{\"a\": 1, \"b\": [1, 2, [], {}], \"c\": {\"d\": null, \"e\": true, "
               "\"f\": false}, \"g\": \"s\", \"h\": null}\n", CV_OK);
}

/* Line breaks where asked: after the comma, indented in JSON_SPACED (as
 * perf's file), not in JSON_COMPACT (as trace's), before a closing bracket
 * too. */
static void fill_breaks(JsonWriter *w)
{
    json_object(w, NULL);
    json_break(w);
    json_int(w, "x", 1);
    json_array(w, "y");
    json_int(w, NULL, 1);
    json_int(w, NULL, 2);
    json_close(w);
    json_break(w);
    json_array(w, "list");
    for (int i = 1; i <= 2; i++) {
        json_break(w);
        json_object(w, NULL);
        json_int(w, "a", i);
        json_close(w);
    }
    json_break(w);
    json_close(w);
    json_break(w);
    json_array(w, "e");
    json_close(w);
    json_break(w);
    json_close(w);
}

static void test_breaks(void **state)
{
    (void)state;
    expect_doc(JSON_SPACED, fill_breaks,
               "{\n  \"x\": 1, \"y\": [1, 2],\n  \"list\": [\n    {\"a\": 1},\n"
               "    {\"a\": 2}\n  ],\n  \"e\": []\n}\n", CV_OK);
    expect_doc(JSON_COMPACT, fill_breaks,
               "{\n\"x\":1,\"y\":[1,2],\n\"list\":[\n{\"a\":1},\n{\"a\":2}\n],\n"
               "\"e\":[]\n}\n", CV_OK);
}

/* ------------------------------------------------------------ numbers */

static void fill_numbers(JsonWriter *w)
{
    json_array(w, NULL);
    json_int(w, NULL, LLONG_MIN);
    json_int(w, NULL, LLONG_MAX);
    json_uint(w, NULL, ULLONG_MAX);
    json_int(w, NULL, 0);
    json_int(w, NULL, -1);
    json_double(w, NULL, 1e-6, 15);
    json_double(w, NULL, 0.1, 15);
    json_double(w, NULL, 1.0 / 3, 15);
    json_double(w, NULL, 1.0 / 3, 6);
    json_fixed(w, NULL, 2.5, 4);
    json_fixed(w, NULL, 1234.5678, 0);
    json_close(w);
}

static void test_numbers(void **state)
{
    (void)state;
    expect_doc(JSON_COMPACT, fill_numbers,
               "[-9223372036854775808,9223372036854775807,18446744073709551615,"
               "0,-1,1e-06,0.1,0.333333333333333,0.333333,2.5000,1235]\n", CV_OK);
}

/* inf and nan are not JSON: null, in arrays and as members. */
static void fill_nonfinite(JsonWriter *w)
{
    json_object(w, NULL);
    json_array(w, "v");
    json_double(w, NULL, NAN, 6);
    json_double(w, NULL, INFINITY, 15);
    json_fixed(w, NULL, -INFINITY, 4);
    json_fixed(w, NULL, 1.0, 1);
    json_close(w);
    json_fixed(w, "nan", -NAN, 3);
    json_double(w, "inf", HUGE_VAL, 6);
    json_fixed(w, "big", 1e300, 0);
    json_close(w);
}

static void test_nonfinite(void **state)
{
    (void)state;
    char want[512];
    int k = snprintf(want, sizeof want,
                     "{\"v\": [null, null, null, 1.0], \"nan\": null, "
                     "\"inf\": null, \"big\": %.0f}\n", 1e300);
    assert_true(k > 0 && (size_t)k < sizeof want);
    expect_doc(JSON_SPACED, fill_nonfinite, want, CV_OK);
}

/* ------------------------------------------------------------- misuse */

static void fill_key_in_array(JsonWriter *w)
{
    json_array(w, NULL);
    json_int(w, "k", 1);
    json_int(w, NULL, 2); /* nothing more is written */
    json_close(w);
}

static void fill_no_key_in_object(JsonWriter *w)
{
    json_object(w, NULL);
    json_int(w, "k", 1);
    json_str(w, NULL, "v");
    json_close(w);
}

static void fill_close_too_many(JsonWriter *w)
{
    json_array(w, NULL);
    json_close(w);
    json_close(w);
}

static void fill_two_values(JsonWriter *w)
{
    json_int(w, NULL, 1);
    json_int(w, NULL, 2);
}

static void fill_unclosed(JsonWriter *w) { json_object(w, NULL); }

static void fill_nothing(JsonWriter *w) { (void)w; }

static void fill_bad_precision(JsonWriter *w)
{
    json_array(w, NULL);
    json_fixed(w, NULL, 1, 41);
    json_close(w);
}

static void fill_deepest(JsonWriter *w)
{
    for (int i = 0; i < JSON_MAX_DEPTH; i++)
        json_array(w, NULL);
    for (int i = 0; i < JSON_MAX_DEPTH; i++)
        json_close(w);
}

static void fill_too_deep(JsonWriter *w)
{
    for (int i = 0; i <= JSON_MAX_DEPTH; i++)
        json_array(w, NULL);
    for (int i = 0; i <= JSON_MAX_DEPTH; i++)
        json_close(w);
}

static void test_misuse(void **state)
{
    (void)state;
    char open[JSON_MAX_DEPTH + 1], both[2 * JSON_MAX_DEPTH + 2];
    memset(open, '[', JSON_MAX_DEPTH);
    open[JSON_MAX_DEPTH] = '\0';
    snprintf(both, sizeof both, "%s", open);
    memset(both + JSON_MAX_DEPTH, ']', JSON_MAX_DEPTH);
    both[2 * JSON_MAX_DEPTH] = '\n';
    both[2 * JSON_MAX_DEPTH + 1] = '\0';
    expect_doc(JSON_COMPACT, fill_key_in_array, "[", CV_ERR_ARG);
    expect_doc(JSON_COMPACT, fill_no_key_in_object, "{\"k\":1", CV_ERR_ARG);
    expect_doc(JSON_COMPACT, fill_close_too_many, "[]", CV_ERR_ARG);
    expect_doc(JSON_COMPACT, fill_two_values, "1", CV_ERR_ARG);
    expect_doc(JSON_COMPACT, fill_unclosed, "{", CV_ERR_ARG);
    expect_doc(JSON_COMPACT, fill_nothing, "", CV_ERR_ARG);
    expect_doc(JSON_COMPACT, fill_bad_precision, "[", CV_ERR_ARG);
    expect_doc(JSON_COMPACT, fill_deepest, both, CV_OK);
    expect_doc(JSON_COMPACT, fill_too_deep, open, CV_ERR_ARG);
}

/* ------------------------------------------------------ failed writes */

/* A disk that is full: the failure shows when the sink hands its bytes
 * on (at the latest json_finish), for every buffer size. */
static void test_write_fails(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCAPS; i++) {
        FILE *f = fopen("/dev/full", "w");
        if (!f)
            skip();
        Sink s;
        JsonWriter w;
        assert_int_equal(sink_init(&s, f, caps[i]), CV_OK);
        json_init(&w, &s, JSON_SPACED);
        json_array(&w, NULL);
        for (int k = 0; k < 100; k++)
            json_str(&w, NULL, "some text");
        json_close(&w);
        assert_int_equal(json_error(&w), caps[i] < 1000 ? CV_ERR_IO : CV_OK);
        assert_int_equal(json_finish(&w), CV_ERR_IO);
        sink_fini(&s);
        assert_true(s.err);
        fclose(f);
    }
}

/* A stream open for reading only refuses every write, a string longer
 * than the buffer (which goes to it directly) too. */
static void test_write_refused(void **state)
{
    (void)state;
    char text[100];
    memset(text, 'x', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    for (size_t i = 0; i < NCAPS; i++) {
        FILE *f = fopen("/dev/null", "r");
        assert_non_null(f);
        Sink s;
        JsonWriter w;
        assert_int_equal(sink_init(&s, f, caps[i]), CV_OK);
        json_init(&w, &s, JSON_COMPACT);
        json_str(&w, NULL, text);
        if (caps[i] < sizeof text)
            assert_int_equal(json_error(&w), CV_ERR_IO);
        assert_int_equal(json_finish(&w), CV_ERR_IO);
        sink_fini(&s);
        fclose(f);
    }
}

/* A failed write is remembered though later writes succeed. */
static void test_failure_remembered(void **state)
{
    (void)state;
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        skip();
    Doc d;
    doc_open(&d, JSON_COMPACT, 4);
    FILE *mem = d.sink.f;
    d.sink.f = full;
    json_array(&d.w, NULL);
    json_str(&d.w, NULL, "more than four bytes");
    assert_int_equal(json_error(&d.w), CV_ERR_IO);
    d.sink.f = mem;
    json_int(&d.w, NULL, 1);
    json_close(&d.w);
    assert_int_equal(doc_close(&d), CV_ERR_IO);
    assert_true(strstr(d.text, ",1]\n") != NULL);
    free(d.text);
    fclose(full);
}

/* ---------------------------------------------------------------- sink */

static void test_sink(void **state)
{
    (void)state;
    Sink s;
    assert_int_equal(sink_init(&s, stdout, 0), CV_ERR_ARG);
    sink_fini(&s);
    for (size_t i = 0; i < NCAPS; i++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        assert_non_null(f);
        assert_int_equal(sink_init(&s, f, caps[i]), CV_OK);
        sink_uint(&s, 0);
        sink_c(&s, ' ');
        sink_int(&s, LLONG_MIN);
        sink_str(&s, " x ");
        sink_uint(&s, ULLONG_MAX);
        sink_printf(&s, " %d%s", 42, "!");
        sink_printf(&s, "%0600d.", 7); /* longer than sink_printf's line */
        sink_c(&s, '$');
        sink_fini(&s);
        assert_false(s.err);
        fclose(f);
        const char *want = "0 -9223372036854775808 x 18446744073709551615 42!";
        size_t n = strlen(want);
        assert_int_equal(len, n + 602);
        assert_memory_equal(text, want, n);
        assert_int_equal(strspn(text + n, "0"), 599);
        assert_string_equal(text + n + 599, "7.$");
        free(text);
    }
}

/* Bytes that go past the buffer straight to the FILE (a long string, a
 * long printf) report their failure too. */
static void test_sink_direct_fails(void **state)
{
    (void)state;
    char text[600];
    memset(text, 'x', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    for (int how = 0; how < 2; how++) {
        FILE *f = fopen("/dev/null", "r");
        assert_non_null(f);
        Sink s;
        assert_int_equal(sink_init(&s, f, 16), CV_OK);
        if (how)
            sink_printf(&s, "%s", text);
        else
            sink_str(&s, text);
        assert_true(s.err);
        sink_fini(&s);
        fclose(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_control_characters),
        cmocka_unit_test(test_quote_backslash),
        cmocka_unit_test(test_utf8_passes),
        cmocka_unit_test(test_random_strings),
        cmocka_unit_test(test_keys_escaped),
        cmocka_unit_test(test_nesting),
        cmocka_unit_test(test_breaks),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_nonfinite),
        cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_write_fails),
        cmocka_unit_test(test_write_refused),
        cmocka_unit_test(test_failure_remembered),
        cmocka_unit_test(test_sink),
        cmocka_unit_test(test_sink_direct_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
