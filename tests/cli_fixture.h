/* cli_fixture.h - what the tests of the commands as programs share:
 * running the binary ($COLLVIZ, default build/collviz) with its output
 * captured, the sentence bad input must give, and a small JSON reader. */
#ifndef COLLVIZ_TEST_CLI_FIXTURE_H
#define COLLVIZ_TEST_CLI_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "algos/algo.h"
#include "cli/cli.h"
#include "scene/scene_opts.h"
#include "scene/spec.h"
#include "core/model.h"
#include "core/sched.h"

/* ------------------------------------------------------------ running */

/* What one run of the binary gave. */
typedef struct {
    int rc;    /* exit status (128 + signal when killed) */
    char *out; /* all of stdout */
    char *err; /* all of stderr */
} Out;

static inline char *slurp(FILE *f)
{
    long n;
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

static inline void out_free(Out *o)
{
    free(o->out);
    free(o->err);
}

/* Run the binary with the space-separated words of `line`, its stdout
 * into the file out_path (o->out then empty), or kept (NULL). */
static inline void run_to(Out *o, const char *line, const char *out_path)
{
    const char *bin = getenv("COLLVIZ") ? getenv("COLLVIZ") : "build/collviz";
    char *copy = strdup(line), *argv[64] = {"collviz"}, *save = NULL;
    int argc = 1;
    assert_non_null(copy);
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        assert_true(argc < 63);
        argv[argc++] = w;
    }
    FILE *fo = out_path ? fopen(out_path, "w") : tmpfile(), *fe = tmpfile();
    assert_true(fo && fe);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fileno(fo), 1);
        dup2(fileno(fe), 2);
        execv(bin, argv);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    o->rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (out_path) {
        fclose(fo);
        o->out = strdup("");
    } else {
        o->out = slurp(fo);
    }
    o->err = slurp(fe);
    free(copy);
    if (o->rc == 127)
        fail_msg("could not run %s (set COLLVIZ to the binary)", bin);
}

static inline void run(Out *o, const char *line) { run_to(o, line, NULL); }

/* printf-style run. */
static inline void runf(Out *o, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    run(o, line);
}

static inline size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Bad input: exit 2, nothing on stdout, one "collviz: " line on stderr
 * that contains `want` (when not NULL). */
/* The same, the run kept in *o for more checks (out_free it). */
static inline void expect_usage_error_in(const char *line, const char *want,
                                         Out *o)
{
    run(o, line);
    if (o->rc != 2 || o->out[0] || count_lines(o->err) != 1 ||
        strncmp(o->err, "collviz: ", 9) || (want && !strstr(o->err, want)))
        fail_msg("'%s': rc %d, stdout %zu bytes, stderr '%s' (want '%s')", line,
                 o->rc, strlen(o->out), o->err, want ? want : "");
}

static inline void expect_usage_error(const char *line, const char *want)
{
    Out o;
    expect_usage_error_in(line, want, &o);
    out_free(&o);
}

/* ----------------------------------------------------------------- JSON */

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

/* -------------------------------------------------------------- helpers */

static inline CollCall make_call(CollKind k, int p, size_t count, bool in_place)
{
    return (CollCall){.kind = k, .nranks = p, .count = count, .dtype = DT_FLOAT,
                      .op = OP_SUM, .root = coll_is_rooted(k) ? p - 1 : 0,
                      .in_place = in_place};
}

/* The command line that traces call c with algorithm a. */
static inline void trace_line(char *buf, size_t n, const AlgoInfo *a, const CollCall *c,
                       const char *extra)
{
    snprintf(buf, n, "trace %s -a %s -p %d -s %zu -r %d%s %s", coll_name(c->kind),
             a->name, c->nranks, coll_size_bytes(c), c->root,
             c->in_place ? " --in-place" : "", extra);
}

static inline const char *find_line(const char *text, const char *prefix)
{
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (!strncmp(l, prefix, strlen(prefix)))
            return l;
    return NULL;
}

#endif
