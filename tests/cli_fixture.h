/* cli_fixture.h - what the tests of the commands as programs share:
 * running the binary ($COLLVIZ, default build/collviz) with its output
 * captured, the sentence bad input must give, and the JSON reader
 * (json_reader.h). */
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
#include "json_reader.h"

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
