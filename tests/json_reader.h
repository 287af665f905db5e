/* json_reader.h - a small JSON reader for the tests: parse a document
 * into a tree (json_parse, json_free) and look members up (jget, jnum,
 * jstr, jarr), failing the test on anything malformed or missing. */
#ifndef COLLVIZ_TEST_JSON_READER_H
#define COLLVIZ_TEST_JSON_READER_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } JType;

/* A parsed JSON value. */
typedef struct Json {
    JType type;        /* kind of value */
    double num;        /* J_NUM value, J_BOOL 0 or 1 */
    char *str;         /* J_STR value */
    char **keys;       /* J_OBJ member names */
    struct Json *kid;  /* J_ARR elements or J_OBJ member values */
    size_t n;          /* elements or members */
} Json;

static inline void json_free(Json *j)
{
    for (size_t i = 0; i < j->n; i++) {
        json_free(&j->kid[i]);
        if (j->keys)
            free(j->keys[i]);
    }
    free(j->kid);
    free(j->keys);
    free(j->str);
}

static inline const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

static inline const char *json_value(const char *p, Json *j);

/* A string at p (after the quote); returns past the closing quote. */
static inline const char *json_string(const char *p, char **out)
{
    size_t n = 0;
    char *s = malloc(strlen(p) + 1);
    assert_non_null(s);
    for (; *p && *p != '"'; p++) {
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                assert_true(strlen(p) >= 5);
                p += 4;
                s[n++] = '?';
                continue;
            }
        }
        assert_true(*p != '\0');
        s[n++] = *p;
    }
    assert_int_equal(*p, '"');
    s[n] = '\0';
    *out = s;
    return p + 1;
}

/* Elements of an array or members of an object, up to `close`. */
static inline const char *json_items(const char *p, Json *j, char close)
{
    p = ws(p);
    while (*p != close) {
        j->kid = realloc(j->kid, (j->n + 1) * sizeof *j->kid);
        assert_non_null(j->kid);
        if (close == '}') {
            j->keys = realloc(j->keys, (j->n + 1) * sizeof *j->keys);
            assert_non_null(j->keys);
            p = ws(p);
            assert_int_equal(*p, '"');
            p = ws(json_string(p + 1, &j->keys[j->n]));
            assert_int_equal(*p, ':');
            p++;
        }
        p = ws(json_value(p, &j->kid[j->n++]));
        assert_true(*p == ',' || *p == close);
        if (*p == ',')
            p = ws(p + 1);
    }
    return p + 1;
}

static inline const char *json_value(const char *p, Json *j)
{
    memset(j, 0, sizeof *j);
    p = ws(p);
    if (*p == '{' || *p == '[') {
        j->type = *p == '{' ? J_OBJ : J_ARR;
        return json_items(p + 1, j, *p == '{' ? '}' : ']');
    }
    if (*p == '"') {
        j->type = J_STR;
        return json_string(p + 1, &j->str);
    }
    static const struct { const char *word; JType t; double v; } words[] = {
        {"null", J_NULL, 0}, {"true", J_BOOL, 1}, {"false", J_BOOL, 0},
    };
    for (size_t i = 0; i < 3; i++)
        if (!strncmp(p, words[i].word, strlen(words[i].word))) {
            j->type = words[i].t, j->num = words[i].v;
            return p + strlen(words[i].word);
        }
    char *end;
    j->type = J_NUM;
    j->num = strtod(p, &end);
    assert_true(end != p);
    return end;
}

static inline void json_parse(const char *text, Json *j)
{
    const char *p = ws(json_value(text, j));
    assert_int_equal(*p, '\0');
}

static inline const Json *jget(const Json *j, const char *key)
{
    assert_int_equal(j->type, J_OBJ);
    for (size_t i = 0; i < j->n; i++)
        if (!strcmp(j->keys[i], key))
            return &j->kid[i];
    fail_msg("JSON member '%s' missing", key);
    return NULL;
}

static inline double jnum(const Json *j, const char *key)
{
    const Json *v = jget(j, key);
    assert_int_equal(v->type, J_NUM);
    return v->num;
}

static inline const char *jstr(const Json *j, const char *key)
{
    const Json *v = jget(j, key);
    assert_int_equal(v->type, J_STR);
    return v->str;
}

static inline const Json *jarr(const Json *j, const char *key)
{
    const Json *v = jget(j, key);
    assert_int_equal(v->type, J_ARR);
    return v;
}

#endif
