/* test_cli.c - the collviz binary as users and scripts meet it: bad input
 * of every kind gives exit 2, one line on stderr and nothing on stdout;
 * list and model print what the registry, the schedules and the
 * model say (checked against the library in this process); --help works
 * (trace: test_trace.c).
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

#include "call_fixture.h"
#include "cli_fixture.h"

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
        {"allreduce", " --link torus", "unknown flat machine 'torus'; valid: full, bus"},
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
        if (a->fits)
            continue; /* made for some machines: test_algos_torus */
        for (int k = 0; k < COLL_COUNT; k++) {
            if (algo_find((CollKind)k, a->name))
                continue;
            char line[256], want[128];
            snprintf(line, sizeof line, "trace %s -a %s -p 4 -s 64",
                     coll_name((CollKind)k), a->name);
            snprintf(want, sizeof want, "not %s; valid for %s: ",
                     coll_name((CollKind)k), coll_name((CollKind)k));
            Out o; /* (one run: 600 of them) */
            expect_usage_error_in(line, want, &o);
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
        /* trace and the model price up to 65536 ranks; perf runs 1024 */
        const char *big = strcmp(bad[i], "1025") ? bad[i] : "65537";
        snprintf(line, sizeof line, "trace allreduce -s 64 --ranks=%s", big);
        expect_usage_error(line, "rank count");
        if (!*bad[i])
            continue;
        snprintf(line, sizeof line, "model allgather -p%s", big);
        expect_usage_error(line, "rank count");
        snprintf(line, sizeof line, "trace allgather -s 64 -p %s", big);
        expect_usage_error(line, "rank count");
    }
    expect_usage_error("model allreduce", "missing rank count");
    expect_usage_error("model allreduce -p 65537", "valid: 1 to 65536");
    expect_usage_error("perf allreduce -b 64 -e 64 -p 1025", "valid: 1 to 1024");
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
            if (!call_defined((CollKind)k, p, false))
                continue; /* test_undefined_calls */
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

/* Calls a collective does not define, refused with one sentence and exit 2
 * by every command that takes a call (and by a lesson's scene, through the
 * same parser): sendrecv in place (nccl-tests' has two buffers), hypercube
 * on a rank count that is not a power of two, naming the two nearest. */
static void test_undefined_calls(void **state)
{
    (void)state;
    const char *in_place = "sendrecv runs out of place only: it sends one "
                           "buffer into another; drop --in-place";
    expect_usage_error("trace sendrecv -p 4 -s 64 --in-place", in_place);
    expect_usage_error("trace sendrecv -p 1 -s 0 --in-place", in_place);
    expect_usage_error("tui sendrecv -p 4 --in-place --script /dev/null", in_place);
    static const struct { int p; const char *want; } cube[] = {
        {3, "hypercube needs a power of two ranks; 3 is not one: choose 2 "
            "or 4"},
        {6, "6 is not one: choose 4 or 8"},
        {1000, "1000 is not one: choose 512 or 1024"},
    };
    for (size_t i = 0; i < 3; i++) {
        char line[160];
        snprintf(line, sizeof line, "trace hypercube -p %d -s 0", cube[i].p);
        expect_usage_error(line, cube[i].want);
        snprintf(line, sizeof line, "model hc -p %d", cube[i].p);
        expect_usage_error(line, cube[i].want);
        snprintf(line, sizeof line, "perf hypercube -p %d -a all", cube[i].p);
        expect_usage_error(line, cube[i].want);
    }
    Out o;
    run(&o, "trace hypercube -p 8 -s 64 --in-place");
    assert_int_equal(o.rc, 0);
    out_free(&o);
    run(&o, "trace sendrecv -p 6 -s 64");
    assert_int_equal(o.rc, 0);
    out_free(&o);
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
    expect_help("help help", "usage: collviz [COMMAND]"); /* U7 */
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
        /* the form for p not a power of two, where it differs, below */
        const char *next = strchr(eol + 1, '\n') + 1;
        if (a->formula_other)
            assert_true(!strncmp(next, "    ", 4) &&
                        !strncmp(next + 4, a->formula_other,
                                 strlen(a->formula_other)));
        else
            assert_true(strncmp(next, "    p not", 9));
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

/* The schedule `list -v` prints under the row at l: the words after
 * "    schedule:" and on the lines of six spaces below, joined by one space,
 * into buf; each of those lines at most 79 columns. */
static void listed_schedule(const char *l, char *buf, size_t len)
{
    const char *eol = strchr(l, '\n');
    while (eol && strncmp(eol + 1, "    schedule: ", 14)) {
        l = eol + 1;
        eol = *l == ' ' ? strchr(l, '\n') : NULL;
    }
    assert_non_null(eol);
    l = eol + 1 + 14;
    buf[0] = '\0';
    for (size_t at = 0;; l += 6) {
        eol = strchr(l, '\n');
        assert_non_null(eol);
        assert_true(eol - l + (at ? 6 : 14) <= 79);
        at += (size_t)snprintf(buf + at, len - at, "%s%.*s", at ? " " : "",
                               (int)(eol - l), l);
        assert_true(at < len);
        l = eol + 1;
        if (strncmp(l, "      ", 6) || l[6] == ' ')
            break;
    }
}

/* With -v every algorithm's row goes on with its schedule, wrapped to 79
 * columns, word for word the registry's; without -v there is none. */
static void test_list_schedules(void **state)
{
    (void)state;
    Out o;
    run(&o, "list -v");
    assert_int_equal(o.rc, 0);
    for (size_t i = 0, n = algo_count(); i < n; i++) {
        const AlgoInfo *a = algo_at(i);
        char head[96], got[2048];
        snprintf(head, sizeof head, "%-13s  %s ", coll_name(a->coll), a->name);
        const char *l = find_line(o.out, head);
        assert_non_null(l);
        listed_schedule(l, got, sizeof got);
        if (strcmp(got, a->schedule))
            fail_msg("%s %s: list -v says\n%s\nthe registry\n%s",
                     coll_name(a->coll), a->name, got, a->schedule);
    }
    out_free(&o);
    run(&o, "list");
    assert_null(strstr(o.out, "schedule:"));
    out_free(&o);
}

/* ---------------------------------------------------------------- model */

/* The time (us) of algorithm a at count under the default parameters. */
static double model_us(const AlgoInfo *a, CollCall c, size_t count)
{
    ModelParams m = {SPEC_DEFAULT_ALPHA, 1 / SPEC_DEFAULT_BW, 1 / SPEC_DEFAULT_GAMMA_BW};
    Schedule s;
    CostTerms t;
    c.count = count;
    assert_int_equal(algo_generate(a, &c, &s), CV_OK);
    assert_int_equal(model_schedule_cost(&s, MACHINE_FULL, &m, &t), CV_OK);
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
    ModelParams m = {SPEC_DEFAULT_ALPHA, 1 / SPEC_DEFAULT_BW, 1 / SPEC_DEFAULT_GAMMA_BW};
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
    CollCall c = make_call(k, p, 0, false);
    for (size_t i = 0, m = algo_count(); i < m; i++)
        if (algo_at(i)->coll == k && algo_fits(algo_at(i), &c, NULL, NULL, 0))
            algos[n++] = algo_at(i); /* those made for full */
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
        if (call_defined((CollKind)k, 6, false))
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

/* model's summary lines agree with its table: every change of the best
 * algorithm between two rows has its crossover lines, chained from the
 * one best to the next (the best can change twice between two rows: on
 * nodes 4x8 with fast reduction, butterfly to halving-doubling to hier),
 * and the "at SIZE" line quotes the last row's times (it quoted those of
 * the last bisection). */
static void test_model_summary(void **state)
{
    Out o;
    run(&o, "model allreduce -p 32 -T nodes:4x8,gamma=1000");
    assert_int_equal(o.rc, 0);
    /* the table: size and the best column of each row; the last row */
    char best[64][32], last[1024] = "";
    int nrows = 0;
    for (const char *l = o.out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (*l == '#' || *l == '\n')
            continue;
        size_t n = strcspn(l, "\n");
        const char *e = l + n;
        while (e > l && e[-1] == ' ')
            e--;
        const char *b = e;
        while (b > l && b[-1] != ' ')
            b--;
        assert_true(nrows < 64);
        snprintf(best[nrows++], 32, "%.*s", (int)(e - b), b);
        snprintf(last, sizeof last, "%.*s", (int)n, l);
    }
    assert_true(nrows > 10);
    /* the crossovers, in order, walk from each row's best to the next's */
    const char *c = o.out;
    char at[32];
    snprintf(at, sizeof at, "%s", best[0]);
    int changes = 0;
    for (int i = 1; i < nrows; i++) {
        while (strcmp(at, best[i])) {
            c = strstr(c, "# crossover ");
            if (!c)
                fail_msg("no crossover from %s towards %s:\n%s", at, best[i],
                         o.out);
            char from[32], to[32];
            assert_int_equal(sscanf(c, "# crossover %31s -> %31[^:]:", from,
                                    to), 2);
            if (strcmp(from, at))
                fail_msg("crossover from %s where the best is %s", from, at);
            snprintf(at, sizeof at, "%s", to);
            c++;
            changes++;
        }
    }
    assert_true(changes >= 2);
    /* the "at SIZE" line: the last row's best time, and the ring's */
    const char *s = strstr(o.out, "# at 134217728 bytes: ");
    assert_non_null(s);
    char name[32];
    double t_best, ratio, t_ring;
    assert_int_equal(sscanf(s, "# at 134217728 bytes: %31s takes %lf us, "
                            "%lfx faster than ring (the default) at %lf us",
                            name, &t_best, &ratio, &t_ring), 4);
    assert_string_equal(name, best[nrows - 1]);
    char tb[32], tr[32];
    snprintf(tb, sizeof tb, "%.3f*", t_best);
    snprintf(tr, sizeof tr, " %.3f ", t_ring);
    if (!strstr(last, tb) || !strstr(last, tr))
        fail_msg("'%s' does not quote the last row:\n%s", s, last);
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
        cmocka_unit_test(test_undefined_calls),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_tui_backend_options),
        cmocka_unit_test(test_dispatch),
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_list_schedules),
        cmocka_unit_test(test_model),
        cmocka_unit_test(test_model_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
