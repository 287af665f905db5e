/* test_cli.c - the collviz binary as users and scripts meet it: bad input
 * of every kind gives exit 2, one line on stderr and nothing on stdout;
 * list, trace and model print what the registry, the schedules and the
 * model say (checked against the library in this process); --help works.
 *
 * The binary is $COLLVIZ (default build/collviz). */
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
#include "core/model.h"
#include "core/sched.h"

/* ------------------------------------------------------------ running */

/* What one run of the binary gave. */
typedef struct {
    int rc;    /* exit status (128 + signal when killed) */
    char *out; /* all of stdout */
    char *err; /* all of stderr */
} Out;

static char *slurp(FILE *f)
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

static void out_free(Out *o)
{
    free(o->out);
    free(o->err);
}

/* Run the binary with the space-separated words of `line`, its stdout
 * into the file out_path (o->out then empty), or kept (NULL). */
static void run_to(Out *o, const char *line, const char *out_path)
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

static void run(Out *o, const char *line) { run_to(o, line, NULL); }

/* printf-style run. */
static void runf(Out *o, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    run(o, line);
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Bad input: exit 2, nothing on stdout, one "collviz: " line on stderr
 * that contains `want` (when not NULL). */
static void expect_usage_error(const char *line, const char *want)
{
    Out o;
    run(&o, line);
    if (o.rc != 2 || o.out[0] || count_lines(o.err) != 1 ||
        strncmp(o.err, "collviz: ", 9) || (want && !strstr(o.err, want)))
        fail_msg("'%s': rc %d, stdout %zu bytes, stderr '%s' (want '%s')", line,
                 o.rc, strlen(o.out), o.err, want ? want : "");
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

static void json_free(Json *j)
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

static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

static const char *json_value(const char *p, Json *j);

/* A string at p (after the quote); returns past the closing quote. */
static const char *json_string(const char *p, char **out)
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
static const char *json_items(const char *p, Json *j, char close)
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

static const char *json_value(const char *p, Json *j)
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

static void json_parse(const char *text, Json *j)
{
    const char *p = ws(json_value(text, j));
    assert_int_equal(*p, '\0');
}

static const Json *jget(const Json *j, const char *key)
{
    assert_int_equal(j->type, J_OBJ);
    for (size_t i = 0; i < j->n; i++)
        if (!strcmp(j->keys[i], key))
            return &j->kid[i];
    fail_msg("JSON member '%s' missing", key);
    return NULL;
}

static double jnum(const Json *j, const char *key)
{
    const Json *v = jget(j, key);
    assert_int_equal(v->type, J_NUM);
    return v->num;
}

static const char *jstr(const Json *j, const char *key)
{
    const Json *v = jget(j, key);
    assert_int_equal(v->type, J_STR);
    return v->str;
}

static const Json *jarr(const Json *j, const char *key)
{
    const Json *v = jget(j, key);
    assert_int_equal(v->type, J_ARR);
    return v;
}

/* -------------------------------------------------------------- helpers */

static CollCall make_call(CollKind k, int p, size_t count, bool in_place)
{
    return (CollCall){.kind = k, .nranks = p, .count = count, .dtype = DT_FLOAT,
                      .op = OP_SUM, .root = coll_is_rooted(k) ? p - 1 : 0,
                      .in_place = in_place};
}

/* The command line that traces call c with algorithm a. */
static void trace_line(char *buf, size_t n, const AlgoInfo *a, const CollCall *c,
                       const char *extra)
{
    snprintf(buf, n, "trace %s -a %s -p %d -s %zu -r %d%s %s", coll_name(c->kind),
             a->name, c->nranks, coll_size_bytes(c), c->root,
             c->in_place ? " --in-place" : "", extra);
}

static const char *find_line(const char *text, const char *prefix)
{
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (!strncmp(l, prefix, strlen(prefix)))
            return l;
    return NULL;
}

/* ------------------------------------------------------------ bad input */

static void test_bad_names(void **state)
{
    (void)state;
    static const char *const cmds[] = {"trace %s -p 4 -s 64%s", "model %s -p 4%s"};
    static const struct {
        const char *coll, *extra, *want; /* collective, options, sentence */
    } cases[] = {
        {"nosuch", "", "unknown collective 'nosuch'; valid: broadcast,"},
        {"allreduce", " -d quad", "unknown datatype 'quad'; valid: int8,"},
        {"allreduce", " --frob", "unknown option '--frob'"},
        {"allreduce", " -p", "needs a value"},
        {"allreduce", " --link bus", "unknown link model 'bus'; valid: p2p, shared"},
        {"allreduce", " --beta 0", "--beta"},
        {"allreduce", " --alpha -1us", "--alpha"},
        {"allreduce", " --alpha 1e308s", "longer than any message takes"},
        {"allreduce", " --alpha 2s", "is more than 1 s"},
        {"allreduce", " --beta 1e-300", "the bandwidths collviz can model"},
        {"allreduce", " --gamma 1e300", "the bandwidths collviz can model"},
        {"allreduce extra", "", "unexpected argument 'extra'"},
    };
    for (size_t i = 0; i < 2; i++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            char line[256];
            snprintf(line, sizeof line, cmds[i], cases[c].coll, cases[c].extra);
            expect_usage_error(line, cases[c].want);
        }
    expect_usage_error("trace allreduce -p 4 -s 64 -o xor", "unknown reduction op 'xor'; valid: sum");
    expect_usage_error("trace allreduce -a nosuch -p 4 -s 64", "unknown algorithm 'nosuch' for allreduce; valid: ");
    expect_usage_error("trace", "missing collective");
    expect_usage_error("model", "missing collective");
    expect_usage_error("list nosuch", "unknown collective 'nosuch'");
    expect_usage_error("list -x", "unknown option '-x'");
    expect_usage_error("frobnicate", "unknown command 'frobnicate'");
    expect_usage_error("help frobnicate", "unknown command 'frobnicate'");
    expect_usage_error("trace allreduce -p 4 -s 64 --json=yes", "takes no value");
}

/* Every algorithm named for a collective it does not belong to. */
static void test_bad_algo_fit(void **state)
{
    (void)state;
    for (size_t i = 0, n = algo_count(); i < n; i++) {
        const AlgoInfo *a = algo_at(i);
        for (int k = 0; k < COLL_COUNT; k++) {
            if (algo_find((CollKind)k, a->name))
                continue;
            char line[256], want[128];
            snprintf(line, sizeof line, "trace %s -a %s -p 4 -s 64",
                     coll_name((CollKind)k), a->name);
            snprintf(want, sizeof want, "not %s; valid for %s: ",
                     coll_name((CollKind)k), coll_name((CollKind)k));
            expect_usage_error(line, want);
            Out o;
            run(&o, line);
            assert_non_null(strstr(o.err, coll_name(a->coll)));
            /* The sentence lists every valid algorithm. */
            for (size_t j = 0; j < n; j++)
                if (algo_at(j)->coll == (CollKind)k)
                    assert_non_null(strstr(o.err, algo_at(j)->name));
            out_free(&o);
        }
    }
}

static void test_bad_ranks(void **state)
{
    (void)state;
    static const char *const bad[] = {"0", "-1", "1025", "99999999999", "x", "4x", "2.5", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char line[128];
        snprintf(line, sizeof line, "trace allreduce -s 64 --ranks=%s", bad[i]);
        expect_usage_error(line, "rank count");
        if (!*bad[i])
            continue;
        snprintf(line, sizeof line, "model allgather -p%s", bad[i]);
        expect_usage_error(line, "rank count");
        snprintf(line, sizeof line, "trace allgather -s 64 -p %s", bad[i]);
        expect_usage_error(line, "rank count");
    }
    expect_usage_error("model allreduce", "missing rank count");
}

static void test_bad_sizes(void **state)
{
    (void)state;
    expect_usage_error("trace allreduce -p 4 -s -64", "negative");
    expect_usage_error("trace allreduce -p 4 -s 64X", "is not a size");
    expect_usage_error("trace allreduce -p 4 -s K", "is not a size");
    expect_usage_error("trace allreduce -p 4 -s 2048G", "too large");
    expect_usage_error("trace allreduce -p 4 -s 99999999999999999999999", "too large");
    expect_usage_error("trace allreduce -p 4", "missing size");
    expect_usage_error("model allreduce -p 4 -b 1M -e 1K", "larger than");
    expect_usage_error("model allreduce -p 4 -f 1", "-f");
    expect_usage_error("model allreduce -p 4 -f 2 -i 8", "not both");
    expect_usage_error("model allreduce -p 4 -b 0 -e 1G -i 1", "more than");
    expect_usage_error("model allgather -p 8 -b 8 -e 16", "whole block");
    expect_usage_error("model allreduce -p 4 -b 6", "not a multiple of the datatype");
    /* Sizes that are not whole elements, or not whole blocks. */
    for (int k = 0; k < COLL_COUNT; k++)
        for (int p = 1; p <= 9; p += 4) {
            CollCall c = make_call((CollKind)k, p, 1, false);
            size_t blk = coll_size_bytes(&c);
            char line[160];
            snprintf(line, sizeof line, "trace %s -p %d -s %zu -d double",
                     coll_name(c.kind), p, 2 * blk + 4);
            expect_usage_error(line, "not a multiple of the datatype double (8 bytes)");
            if (blk == 4)
                continue;
            snprintf(line, sizeof line, "trace %s -p %d -s %zu", coll_name(c.kind), p,
                     blk + 4);
            expect_usage_error(line, "not a whole number of blocks");
        }
}

static void test_bad_root(void **state)
{
    (void)state;
    for (int k = 0; k < COLL_COUNT; k++)
        for (int p = 1; p <= 16; p *= 4) {
            char line[160];
            const char *name = coll_name((CollKind)k);
            snprintf(line, sizeof line, "trace %s -p %d -s 4096 -r %d", name, p, p);
            expect_usage_error(line, "out of range");
            snprintf(line, sizeof line, "trace %s -p %d -s 4096 -r -1", name, p);
            expect_usage_error(line, "out of range");
            snprintf(line, sizeof line, "model %s -p %d -r one", name, p);
            expect_usage_error(line, "not a whole number");
            if (!coll_is_rooted((CollKind)k) && p > 1) {
                snprintf(line, sizeof line, "trace %s -p %d -s 4096 -r 1", name, p);
                expect_usage_error(line, "has no root");
            }
        }
}

/* ----------------------------------------------------------------- help */

static void expect_help(const char *line, const char *usage)
{
    Out o;
    run(&o, line);
    if (o.rc != 0 || o.err[0] || strncmp(o.out, usage, strlen(usage)))
        fail_msg("'%s': rc %d, stderr '%s', stdout starts '%.40s'", line, o.rc,
                 o.err, o.out);
    out_free(&o);
}

/* The TUI takes -B's backend options as perf does: an option the backend
 * does not have is bad input, said before anything is drawn. */
static void test_tui_backend_options(void **state)
{
    (void)state;
    expect_usage_error("tui allreduce -p 2 -B threads:foo=1 --script /dev/null",
                       "the threads backend has no option 'foo'");
    expect_usage_error("tui allreduce -p 2 -B threads:spin_us=1x --script /dev/null",
                       "spin_us takes a whole number");
    expect_usage_error("tui allreduce -p 2 -B nosuch:spin_us=1 --script /dev/null",
                       "no backend called 'nosuch'");
}

static void test_help(void **state)
{
    (void)state;
    static const char *const cmds[] = {"list", "trace", "model"};
    for (size_t i = 0; i < 3; i++) {
        char line[64], usage[64];
        snprintf(usage, sizeof usage, "usage: collviz %s", cmds[i]);
        snprintf(line, sizeof line, "%s --help", cmds[i]);
        expect_help(line, usage);
        snprintf(line, sizeof line, "%s allreduce -h", cmds[i]);
        expect_help(line, usage);
        snprintf(line, sizeof line, "help %s", cmds[i]);
        expect_help(line, usage);
    }
    expect_help("--help", "usage: collviz [COMMAND]");
    expect_help("help", "usage: collviz [COMMAND]");
    Out o;
    run(&o, "--help");
    static const char *const all[] = {"list", "trace", "model", "perf", "calibrate", "tui"};
    for (size_t i = 0; i < 6; i++)
        assert_non_null(strstr(o.out, all[i]));
    out_free(&o);
    run(&o, "trace --help");
    static const char *const opts[] = {"--algo", "--ranks", "--size", "--dtype", "--op",
                                       "--root", "--in-place", "--json", "--alpha"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        assert_non_null(strstr(o.out, opts[i]));
    out_free(&o);
    run(&o, "--version");
    assert_int_equal(o.rc, 0);
    assert_string_equal(o.out, "collviz " COLLVIZ_VERSION "\n");
    out_free(&o);
}

/* The TUI, perf and calibrate get the arguments as typed: their help
 * reached every way equals their own --help. */
static void test_dispatch(void **state)
{
    (void)state;
    static const char *const same[][4] = {
        {"tui --help", "allreduce --help", "help tui", "-p 8 --help"},
        {"perf --help", "help perf", "perf allreduce -h", "perf --help"},
        {"calibrate --help", "help calibrate", "calibrate -h", "calibrate --help"},
    };
    for (size_t i = 0; i < 3; i++) {
        Out first;
        run(&first, same[i][0]);
        assert_int_equal(first.rc, 0);
        assert_true(strlen(first.out) > 0);
        for (size_t j = 1; j < 4; j++) {
            Out o;
            run(&o, same[i][j]);
            if (o.rc || strcmp(o.out, first.out))
                fail_msg("'%s' differs from '%s'", same[i][j], same[i][0]);
            out_free(&o);
        }
        out_free(&first);
    }
}

/* ----------------------------------------------------------------- list */

/* Data rows of `list`: lines that are neither headers nor continuations. */
static size_t list_rows(const char *text)
{
    size_t n = 0;
    for (const char *l = text; *l; l = strchr(l, '\n') + 1)
        n += *l != '#' && *l != ' ';
    return n;
}

static void test_list(void **state)
{
    (void)state;
    Out o;
    run(&o, "list");
    assert_int_equal(o.rc, 0);
    assert_int_equal(list_rows(o.out), algo_count());
    for (size_t i = 0, n = algo_count(); i < n; i++) {
        const AlgoInfo *a = algo_at(i);
        char head[96];
        snprintf(head, sizeof head, "%-13s  %s ", coll_name(a->coll), a->name);
        const char *l = find_line(o.out, head);
        if (!l)
            fail_msg("no row for %s %s", coll_name(a->coll), a->name);
        /* default column, formula, then the constraints line below */
        const char *dflt = algo_default(a->coll) == a ? "yes " : "no ";
        const char *eol = strchr(l, '\n'), *col = l + strlen(head);
        col += strspn(col, " ");
        assert_int_equal(strncmp(col, dflt, strlen(dflt)), 0);
        assert_true(strstr(l, a->formula) && strstr(l, a->formula) < eol);
        assert_int_equal(strncmp(eol + 1, "    needs: ", 11), 0);
        assert_int_equal(strncmp(eol + 12, a->constraints, strlen(a->constraints)), 0);
    }
    out_free(&o);
    for (int k = 0; k < COLL_COUNT; k++) {
        size_t want = 0;
        for (size_t i = 0, n = algo_count(); i < n; i++)
            want += algo_at(i)->coll == (CollKind)k;
        runf(&o, "list %s -v", coll_name((CollKind)k));
        assert_int_equal(o.rc, 0);
        assert_int_equal(list_rows(o.out), want);
        out_free(&o);
    }
}

/* ---------------------------------------------------------------- trace */

/* The transfers of step k in JSON equal the schedule's, field by field. */
static void check_json_step(const Json *js, const Schedule *s, size_t k)
{
    static const char *const fields[] = {"src", "src_buf", "src_off", "dst",
                                         "dst_buf", "dst_off", "count", "op"};
    const Step *st = &s->steps[k];
    assert_int_equal(jnum(js, "step"), k);
    const Json *xs = jarr(js, "transfers"), *wr = jarr(js, "written");
    assert_int_equal(xs->n, st->n);
    assert_int_equal(wr->n, st->n);
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *t = &s->xfers[st->first + i];
        const Json *x = &xs->kid[i];
        assert_int_equal(x->n, 8);
        for (size_t f = 0; f < 8; f++)
            assert_string_equal(x->keys[f], fields[f]);
        assert_int_equal(jnum(x, "src"), t->src);
        assert_int_equal(jnum(x, "dst"), t->dst);
        assert_int_equal(jnum(x, "src_off"), t->src_off);
        assert_int_equal(jnum(x, "dst_off"), t->dst_off);
        assert_int_equal(jnum(x, "count"), t->count);
        assert_string_equal(jstr(x, "src_buf"), buf_name((BufId)t->src_buf));
        assert_string_equal(jstr(x, "dst_buf"), buf_name((BufId)t->dst_buf));
        assert_string_equal(jstr(x, "op"), xfer_op_name((XferOp)t->op));
        /* the written runs cover exactly the destination range */
        size_t covered = 0;
        for (size_t r = 0; r < wr->kid[i].n; r++) {
            const Json *run = &wr->kid[i].kid[r];
            assert_int_equal(jnum(run, "rank"), t->dst);
            assert_int_equal(jnum(run, "off"), t->dst_off + covered);
            covered += (size_t)jnum(run, "count");
        }
        assert_int_equal(covered, t->count);
    }
}

static void check_json_trace(const char *text, const Schedule *s)
{
    const CollCall *c = &s->call;
    Json j;
    json_parse(text, &j);
    assert_string_equal(jstr(&j, "collective"), coll_name(c->kind));
    assert_int_equal(jnum(&j, "ranks"), c->nranks);
    assert_int_equal(jnum(&j, "count"), c->count);
    assert_int_equal(jnum(&j, "root"), c->root);
    assert_int_equal(jnum(&j, "bytes"), coll_size_bytes(c));
    assert_int_equal(jget(&j, "in_place")->num, c->in_place);
    const Json *bufs = jget(&j, "buffers");
    for (int b = 0; b < BUF_COUNT; b++) {
        const Json *sizes = jarr(bufs, buf_name((BufId)b));
        assert_int_equal(sizes->n, c->nranks);
        for (int r = 0; r < c->nranks; r++)
            assert_int_equal(sizes->kid[r].num, sched_bufsize(s, r, (BufId)b));
    }
    const Json *steps = jarr(&j, "steps");
    assert_int_equal(steps->n, s->nsteps);
    for (size_t k = 0; k < s->nsteps; k++)
        check_json_step(&steps->kid[k], s, k);
    assert_int_equal(jnum(jget(&j, "totals"), "steps"), s->nsteps);
    assert_int_equal(jnum(jget(&j, "totals"), "transfers"), s->nxfers);
    assert_true(jget(jget(&j, "check"), "correct")->num == 1);
    json_free(&j);
}

/* Text: "step k/n" headers, each followed by its transfers. */
static void check_text_trace(const char *text, const Schedule *s)
{
    char head[64];
    for (size_t k = 0; k < s->nsteps; k++) {
        snprintf(head, sizeof head, "step %zu/%zu ", k + 1, s->nsteps);
        const char *l = find_line(text, head);
        if (!l)
            fail_msg("no line '%s'", head);
        for (size_t i = 0; i < s->steps[k].n; i++) {
            l = strchr(l, '\n') + 1;
            const Transfer *t = &s->xfers[s->steps[k].first + i];
            char want[64];
            snprintf(want, sizeof want, "  r%d %s[%zu", (int)t->src,
                     buf_name((BufId)t->src_buf), t->src_off);
            assert_int_equal(strncmp(l, want, strlen(want)), 0);
        }
    }
    snprintf(head, sizeof head, "step %zu/", s->nsteps + 1);
    assert_null(find_line(text, head));
    assert_non_null(find_line(text, "# check: every rank's output matches"));
}

/* Every algorithm, a few rank counts, counts p does not divide, in place
 * and not, rooted at the last rank: JSON and text against the schedule. */
static void test_trace_sweep(void **state)
{
    (void)state;
    static const int ranks[] = {1, 3, 8};
    for (size_t i = 0, n = algo_count(); i < n; i++)
        for (size_t pi = 0; pi < 3; pi++) {
            int p = ranks[pi];
            size_t counts[] = {0, 1, (size_t)p + 1};
            for (size_t ci = 0; ci < 3; ci++) {
                const AlgoInfo *a = algo_at(i);
                CollCall c = make_call(a->coll, p, counts[ci], (ci + pi) % 2);
                Schedule s;
                assert_int_equal(algo_generate(a, &c, &s), CV_OK);
                char line[256];
                Out o;
                trace_line(line, sizeof line, a, &c, ci == 1 ? "--json" : "");
                run(&o, line);
                if (o.rc || o.err[0])
                    fail_msg("'%s': rc %d: %s", line, o.rc, o.err);
                if (ci == 1)
                    check_json_trace(o.out, &s);
                else
                    check_text_trace(o.out, &s);
                out_free(&o);
                sched_fini(&s);
            }
        }
}

/* Runs of one destination range: text shows 16 and says how many more. */
static void test_trace_caps(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_GATHER, "binomial");
    assert_non_null(a);
    CollCall c = make_call(COLL_GATHER, 64, 1, false);
    c.root = 0;
    Out oj, ot;
    char line[256];
    trace_line(line, sizeof line, a, &c, "--json");
    run(&oj, line);
    trace_line(line, sizeof line, a, &c, "");
    run(&ot, line);
    assert_int_equal(oj.rc, 0);
    assert_int_equal(ot.rc, 0);
    Json j;
    json_parse(oj.out, &j);
    const Json *steps = jarr(&j, "steps");
    size_t most = 0;
    for (size_t k = 0; k < steps->n; k++) {
        const Json *wr = jarr(&steps->kid[k], "written");
        for (size_t i = 0; i < wr->n; i++)
            most = wr->kid[i].n > most ? wr->kid[i].n : most;
    }
    assert_true(most > 16);
    char want[64];
    snprintf(want, sizeof want, " ... and %zu more runs", most - 16);
    assert_non_null(strstr(ot.out, want));
    /* the small case shows every rank after every step, this one not */
    assert_null(strstr(ot.out, "state after step 1:"));
    json_free(&j);
    out_free(&oj);
    out_free(&ot);
}

/* Too big to track symbolically: transfers and totals, said so. */
static void test_trace_untracked(void **state)
{
    (void)state;
    Out o;
    run(&o, "trace allreduce -a ring -p 2 -s 1G");
    assert_int_equal(o.rc, 0);
    assert_non_null(find_line(o.out, "# cells: not tracked"));
    assert_non_null(find_line(o.out, "# check: the final state was not computed"));
    out_free(&o);
    run(&o, "trace allreduce -a ring -p 2 -s 1G --json");
    Json j;
    json_parse(o.out, &j);
    assert_int_equal(jget(&j, "cells")->num, 0);
    assert_int_equal(jget(jget(&j, "check"), "correct")->type, J_NULL);
    json_free(&j);
    out_free(&o);
    run(&o, "trace allreduce -a ring -p 3 -s 12 --full");
    assert_non_null(find_line(o.out, "state after step 1:"));
    out_free(&o);
}

/* The model's parameters are bounded so that no time overflows: at the
 * slowest the options allow, on the largest trace, every time in the JSON
 * is a finite number (JSON has no inf; the writer would say null). */
static void test_trace_overflow(void **state)
{
    (void)state;
    Out o;
    run(&o, "trace allreduce -a ring -p 4 -s 1G --alpha 1s --beta 1e-6 "
            "--gamma 1e-6 --json");
    assert_int_equal(o.rc, 0);
    Json j;
    json_parse(o.out, &j);
    const char *terms[] = {"model", "closed_form", "lower_bound"};
    for (size_t i = 0; i < 3; i++) {
        const Json *t = jget(jget(&j, "totals"), terms[i]);
        assert_int_equal(jget(t, "time")->type, J_NUM);
        assert_true(jnum(t, "time") > 1e5 && isfinite(jnum(t, "time")));
    }
    assert_true(jnum(jget(&j, "model"), "alpha") == 1);
    json_free(&j);
    out_free(&o);
}

/* A trace that cannot be written (a full disk) ends with exit status 1
 * and one sentence, as text and as JSON, however large. */
static void test_trace_write_fails(void **state)
{
    (void)state;
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        skip();
    fclose(full);
    static const char *const lines[] = {
        "trace allreduce -p 4 -s 64", "trace allreduce -p 4 -s 64 --json",
        "trace alltoall -p 32 -s 64K --json", "trace alltoall -p 32 -s 64K",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        Out o;
        run_to(&o, lines[i], "/dev/full");
        if (o.rc != 1 || count_lines(o.err) != 1 ||
            strcmp(o.err, "collviz: cannot write the output: No space "
                          "left on device\n"))
            fail_msg("'%s' > /dev/full: rc %d, stderr '%s'", lines[i], o.rc, o.err);
        out_free(&o);
    }
}

/* ---------------------------------------------------------------- model */

/* The time (us) of algorithm a at count under the default parameters. */
static double model_us(const AlgoInfo *a, CollCall c, size_t count)
{
    ModelParams m = {CLI_DEFAULT_ALPHA, 1 / CLI_DEFAULT_BW, 1 / CLI_DEFAULT_GAMMA_BW};
    Schedule s;
    CostTerms t;
    c.count = count;
    assert_int_equal(algo_generate(a, &c, &s), CV_OK);
    assert_int_equal(model_schedule_cost(&s, LINK_P2P, &m, &t), CV_OK);
    sched_fini(&s);
    return cost_time(&t, &m) * 1e6;
}

/* The best algorithm at count: lowest time, ties to the first. */
static const AlgoInfo *model_best(const AlgoInfo **algos, size_t n, CollCall c,
                                  size_t count)
{
    const AlgoInfo *best = NULL;
    double bt = 0;
    for (size_t i = 0; i < n; i++) {
        double t = model_us(algos[i], c, count);
        if (!best || t < bt)
            best = algos[i], bt = t;
    }
    return best;
}

/* One row: size, count, a time per algorithm (the best starred), bound,
 * best name; times equal what the library computes. */
static const char *check_model_row(const char *l, const AlgoInfo **algos,
                                   size_t n, CollCall c, const AlgoInfo **best)
{
    char *end;
    unsigned long long size = strtoull(l, &end, 10);
    size_t count = strtoull(end, &end, 10);
    c.count = count;
    assert_int_equal(size, coll_size_bytes(&c));
    int stars = 0;
    const AlgoInfo *starred = NULL;
    for (size_t i = 0; i < n; i++) {
        double t = strtod(end, &end);
        assert_true(fabs(t - model_us(algos[i], c, count)) <= 0.0005 + 1e-9 * t);
        if (*end == '*')
            stars++, starred = algos[i], end++;
    }
    assert_int_equal(stars, 1);
    assert_ptr_equal(starred, model_best(algos, n, c, count));
    strtod(end, &end); /* bound */
    while (*end == ' ')
        end++;
    assert_int_equal(strncmp(end, starred->name, strlen(starred->name)), 0);
    *best = starred;
    return strchr(end, '\n') + 1;
}

/* A crossover line: the best really changes between its two counts. */
static void check_crossover(const char *l, const AlgoInfo **algos, size_t n,
                            CollCall c)
{
    char from[64], to[64];
    unsigned long long lo_b, hi_b;
    size_t lo, hi;
    assert_int_equal(sscanf(l, "# crossover %63s -> %63[^:]: %*s is best at %llu bytes "
                            "(count %zu), %*s at %llu bytes (count %zu)", from, to,
                            &lo_b, &lo, &hi_b, &hi), 6);
    assert_int_equal(hi, lo + 1);
    assert_string_equal(model_best(algos, n, c, lo)->name, from);
    assert_string_equal(model_best(algos, n, c, hi)->name, to);
}

/* The header's "#   NAME STEPS CLOSED-US formula" lines, at `count`. */
static size_t check_model_closed(const char *out, const AlgoInfo **algos,
                                 size_t n, CollCall c)
{
    ModelParams m = {CLI_DEFAULT_ALPHA, 1 / CLI_DEFAULT_BW, 1 / CLI_DEFAULT_GAMMA_BW};
    const char *l = find_line(out, "# at the largest count, ");
    assert_non_null(l);
    c.count = strtoull(l + 24, NULL, 10);
    for (size_t i = 0; i < n; i++) {
        char head[64], *end;
        snprintf(head, sizeof head, "#   %-20s ", algos[i]->name);
        l = find_line(out, head);
        assert_non_null(l);
        Schedule s;
        CostTerms closed;
        assert_int_equal(algo_generate(algos[i], &c, &s), CV_OK);
        assert_int_equal(strtoull(l + strlen(head), &end, 10), s.nsteps);
        algos[i]->cost(&c, &closed);
        assert_true(fabs(strtod(end, NULL) - cost_time(&closed, &m) * 1e6) < 0.0006);
        sched_fini(&s);
    }
    return c.count;
}

static void check_model(CollKind k, int p, const char *range)
{
    const AlgoInfo *algos[64];
    size_t n = 0;
    for (size_t i = 0, m = algo_count(); i < m; i++)
        if (algo_at(i)->coll == k)
            algos[n++] = algo_at(i);
    CollCall c = make_call(k, p, 0, false);
    Out o;
    runf(&o, "model %s -p %d -r %d %s", coll_name(k), p, c.root, range);
    if (o.rc || o.err[0])
        fail_msg("model %s -p %d: rc %d %s", coll_name(k), p, o.rc, o.err);
    size_t rows = 0, changes = 0, crossovers = 0, count = 0;
    size_t largest = check_model_closed(o.out, algos, n, c);
    const AlgoInfo *prev = NULL;
    for (const char *l = o.out; *l;) {
        if (*l == '#') {
            if (!strncmp(l, "# crossover ", 12)) {
                check_crossover(l, algos, n, c);
                crossovers++;
            }
            l = strchr(l, '\n') + 1;
            continue;
        }
        const AlgoInfo *b;
        count = strtoull(strchr(l + strspn(l, " "), ' '), NULL, 10);
        const char *next = check_model_row(l, algos, n, c, &b);
        changes += prev && b != prev;
        prev = b;
        rows++;
        l = next;
    }
    assert_true(rows > 0);
    assert_int_equal(count, largest);
    assert_int_equal(crossovers, changes);
    out_free(&o);
}

static void test_model(void **state)
{
    (void)state;
    for (int k = 0; k < COLL_COUNT; k++) {
        check_model((CollKind)k, 8, "-b 8 -e 1M -f 4");
        check_model((CollKind)k, 6, "-b 0 -e 512K -f 8");
    }
    Out o;
    run(&o, "model allreduce -p 4 --alpha 500ns --gamma 7 -e 64K");
    assert_int_equal(o.rc, 0);
    assert_non_null(strstr(o.out, "alpha 0.5 us (--alpha), beta 10 GB/s (default), "
                                  "gamma 7 GB/s (--gamma)"));
    out_free(&o);
    run(&o, "model allreduce -p 4 -b 1K -e 4K -i 1K");
    assert_int_equal(o.rc, 0);
    for (int kb = 1; kb <= 4; kb++) {
        char want[32];
        snprintf(want, sizeof want, "  %12d ", kb * 1024);
        assert_non_null(find_line(o.out, want));
    }
    out_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_names),
        cmocka_unit_test(test_bad_algo_fit),
        cmocka_unit_test(test_bad_ranks),
        cmocka_unit_test(test_bad_sizes),
        cmocka_unit_test(test_bad_root),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_tui_backend_options),
        cmocka_unit_test(test_dispatch),
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_trace_sweep),
        cmocka_unit_test(test_trace_caps),
        cmocka_unit_test(test_trace_untracked),
        cmocka_unit_test(test_trace_overflow),
        cmocka_unit_test(test_trace_write_fails),
        cmocka_unit_test(test_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
