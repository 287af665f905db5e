/* test_hostile_cli.c - the command line as a careless or hostile user
 * meets it: every command refuses the same bad input the same way (one
 * sentence, exit 2): an option given twice, a number with a blank or a
 * plus sign, an argument after one that takes none, a backend name that
 * could reach a file path; perf's usage says which options have
 * defaults, and its sweep never measures a size twice; trace refuses a
 * call too large to follow before any work, and an allocation that fails
 * is said as one, never as an invalid schedule; a date the system cannot
 * give is said as unknown.
 *
 * The binary is $COLLVIZ (default build/collviz). */
#include "run_bin.h"
#include "planted_fixture.h"

#include <limits.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "measure/calib.h"

/* ------------------------------------------------------------- fixtures */

/* A temporary XDG_CACHE_HOME holding a made-up calibration of threads at
 * 2 ranks on this machine, so that perf runs at once. */
static int cache_setup(void **state)
{
    char *dir = malloc(64), why[512];
    ExecHost h;
    if (!dir)
        return -1;
    snprintf(dir, 64, "/tmp/collviz-test-hcli-XXXXXX");
    if (!mkdtemp(dir) || exec_host_of("threads", 2, &h, why, sizeof why))
        return -1;
    setenv("XDG_CACHE_HOME", dir, 1);
    Calib c = {.nranks = 2, .alpha = 2e-6, .npoints = 2, .machine = MACHINE_BUS,
               .when = 1700000000};
    snprintf(c.backend, sizeof c.backend, "threads");
    snprintf(c.host, sizeof c.host, "%s", h.fingerprint);
    c.pt[0] = (CalibPoint){1e6, 2e-11, 1e-10, 1e-11, 4e-11, 0, 0};
    c.pt[1] = (CalibPoint){1e8, 8e-11, 2e-10, 2e-11, 5e-11, 0, 0};
    if (calib_save(&c, why, sizeof why))
        return -1;
    *state = dir;
    return 0;
}

static int cache_teardown(void **state)
{
    char *dir = *state, cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir); /* our mkdtemp's */
    if (system(cmd) != 0)
        return -1;
    free(dir);
    return 0;
}

/* ------------------------------------------------------------ bad input */

/* Bad input: one sentence holding `says`, exit 2, nothing on stdout. */
static void expect_bad(const char *const *args, const char *says)
{
    char what[256];
    Ran r = run_args(args);
    snprintf(what, sizeof what, "collviz %s %s %s", args[0],
             args[1] ? args[1] : "", args[1] && args[2] ? args[2] : "");
    run_expect_sentence(&r, what, 2, says);
    ran_free(&r);
}

/* An option given twice is refused by every command, in either
 * spelling, with the same sentence; the last no longer wins unseen. */
static void test_repeated_options(void **state)
{
    (void)state;
    static const struct {
        const char *args[12];
        const char *says;
    } cases[] = {
        {{"trace", "allreduce", "-p", "2", "-p", "4", "-s", "64"}, "option -p (--ranks)"},
        {{"trace", "allreduce", "-p", "2", "--ranks=4", "-s", "64"}, "option -p (--ranks)"},
        {{"trace", "allreduce", "-p", "2", "-s", "64", "--json", "--json"}, "option --json"},
        {{"model", "allreduce", "-p", "2", "--beta", "1", "--beta", "2"}, "option --beta"},
        {{"perf", "allreduce", "-p", "2", "-n", "1", "--iters", "5"}, "option -n (--iters)"},
        {{"perf", "allreduce", "-p", "2", "--csv", "--csv"}, "option --csv"},
        {{"calibrate", "-p", "2", "-p", "3", "--show"}, "option -p (--ranks)"},
        {{"calibrate", "-B", "threads", "-B", "nosuch", "--show"}, "option -B (--backend)"},
        {{"list", "-v", "--verbose"}, "option -v (--verbose)"},
        {{"tui", "-p", "2", "-p", "3", "--script", "/dev/null"}, "option -p (--ranks)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char says[128];
        snprintf(says, sizeof says, "%s is given more than once; give it once",
                 cases[i].says);
        expect_bad(cases[i].args, says);
    }
}

/* One rule for every number: digits after an optional '-', no blank, no
 * plus sign, for each command's integer options (and its decimals). */
static void test_numbers(void **state)
{
    (void)state;
    static const struct {
        const char *args[12];
        const char *says;
    } cases[] = {
        {{"perf", "allreduce", "-p", "2", "-n", " 5"}, "-n ' 5' must be a whole number"},
        {{"perf", "allreduce", "-p", "2", "-n", "+5"}, "-n '+5' must be a whole number"},
        {{"perf", "allreduce", "-p", "2", "-n", "5 "}, "-n '5 ' must be a whole number"},
        {{"perf", "allreduce", "-p", "2", "-w", "+1"}, "-w '+1' must be"},
        {{"perf", "allreduce", "-p", "2", "-c", " 1"}, "-c ' 1' must be"},
        {{"perf", "allreduce", "-p", "2", "-c", "-"}, "-c '-' must be"},
        {{"perf", "allreduce", "-p", "2", "--min-time", "+1"}, "--min-time '+1' must be"},
        {{"perf", "allreduce", "-p", "2", "--min-time", " 1"}, "--min-time ' 1' must be"},
        {{"perf", "allreduce", "-p", " 4"}, "rank count ' 4' is not a whole number"},
        {{"perf", "allreduce", "-p", "+4"}, "rank count '+4' is not a whole number"},
        {{"trace", "allreduce", "-p", "+4", "-s", "64"}, "rank count '+4'"},
        {{"trace", "broadcast", "-p", "4", "-s", "64", "-r", "+1"}, "root '+1'"},
        {{"model", "allreduce", "-p", "2", "-f", "+2"}, "-f '+2' must be"},
        {{"model", "allreduce", "-p", "2", "--alpha", "+1"}, "--alpha '+1' is not"},
        {{"model", "allreduce", "-p", "2", "--beta", "\t10"}, "--beta '\\t10' is not"},
        {{"calibrate", "-p", "+2", "--show"}, "rank count '+2'"},
        {{"tui", "--script", "/dev/null", "--cells", " 5"}, "--cells ' 5' must be"},
        {{"tui", "--script", "/dev/null", "--cells", "+5"}, "--cells '+5' must be"},
        {{"tui", "--script", "/dev/null", "--frames", "+3"}, "--frames '+3' must be"},
        {{"tui", "--script", "/dev/null", "--screen", "+100x30"}, "--screen wants"},
        {{"tui", "--script", "/dev/null", "--screen", "100x 30"}, "--screen wants"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_bad(cases[i].args, cases[i].says);
}

/* Arguments that nothing takes are refused, not ignored; backend names
 * are checked the same way whether measuring or showing. */
static void test_extra_and_names(void **state)
{
    (void)state;
    static const struct {
        const char *args[8];
        const char *says;
    } cases[] = {
        {{"-V", "x"}, "unexpected argument 'x' after '-V'"},
        {{"--version", "x"}, "unexpected argument 'x' after '--version'"},
        {{"-h", "x"}, "unexpected argument 'x' after '-h'"},
        {{"--help", "trace"}, "unexpected argument 'trace' after '--help'"},
        {{"help", "trace", "extra"}, "unexpected argument 'extra' after 'help trace'"},
        {{"calibrate", "-B", "foo", "--show"}, "there is no backend called 'foo'"},
        {{"calibrate", "-B", "foo"}, "there is no backend called 'foo'"},
        {{"calibrate", "-B", "", "--show"}, "there is no backend called ''"},
        {{"calibrate", "-B", "../../x", "--show"}, "no backend called '../../x'"},
        {{"model", "allreduce", "-p", "2", "-B", "../../x"}, "no backend called"},
        {{"perf", "allreduce", "-p", "2", "-B", ""}, "there is no backend called ''"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_bad(cases[i].args, cases[i].says);
    /* nothing named after them was made in the cache */
    char path[256];
    snprintf(path, sizeof path, "%s/collviz/calib--", getenv("XDG_CACHE_HOME"));
    assert_int_equal(access(path, F_OK), -1);
}

/* ---------------------------------------------------------------- perf */

/* perf's usage shows -b and -e as optional, and their defaults. */
static void test_perf_usage(void **state)
{
    (void)state;
    Ran r = run_args((const char *const[]){"perf", "--help", NULL});
    assert_int_equal(r.status, 0);
    if (!strstr(r.out, "[-b MIN] [-e MAX]") || strstr(r.out, "] -b MIN") ||
        !strstr(r.out, "smallest size of the sweep (default 8") ||
        !strstr(r.out, "largest size of the sweep (default 64M)"))
        fail_msg("perf --help:\n%s", r.out);
    ran_free(&r);
}

/* The sizes of perf's table rows (lines not starting with '#'). */
static size_t row_sizes(const char *out, unsigned long long *sizes, size_t max)
{
    size_t n = 0;
    for (const char *l = out; *l && n < max;) {
        unsigned long long s;
        if (*l != '#' && sscanf(l, "%llu", &s) == 1)
            sizes[n++] = s;
        const char *nl = strchr(l, '\n');
        l = nl ? nl + 1 : l + strlen(l);
    }
    return n;
}

/* A sweep never repeats a size: -b 0 is one row of the empty collective
 * (nccl-tests' size 0), a factor sweep goes on from 1 byte, and sizes
 * that round down to a whole block already measured are left out. */
static void test_sweep_no_repeats(void **state)
{
    (void)state;
    static const struct {
        const char *args[16];
        bool csv;
        unsigned long long want[8];
        size_t n;
    } cases[] = {
        {{"perf", "allreduce", "-p", "2", "-b", "0", "-e", "64", "-n", "1", "-w",
          "0", NULL}, false, {0, 4, 8, 16, 32, 64}, 6},
        {{"perf", "allgather", "-p", "2", "-b", "8", "-e", "32", "-i", "4", "-n",
          "1", "-w", "0", NULL}, false, {8, 16, 24, 32}, 4},
        {{"perf", "allgather", "-p", "2", "-b", "0", "-e", "16", "-i", "4", "-n",
          "1", "-w", "0", "--csv", NULL}, true, {0, 8, 16}, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Ran r = run_args(cases[i].args);
        unsigned long long got[32];
        size_t n = cases[i].csv ? 0 : row_sizes(r.out, got, 32);
        if (cases[i].csv) { /* algorithm,size,... after the head line */
            for (const char *l = strchr(r.out, '\n'); l && l[1] && n < 32;
                 l = strchr(l + 1, '\n'))
                if (sscanf(l + 1, "%*[^,],%llu", &got[n]) == 1)
                    n++;
        }
        assert_int_equal(r.status, 0);
        if (n != cases[i].n || memcmp(got, cases[i].want, n * sizeof *got))
            fail_msg("case %zu: %zu rows:\n%s", i, n, r.out);
        ran_free(&r);
    }
}

/* --------------------------------------------------------------- trace */

/* A call whose buffers trace cannot follow within its bounds is refused
 * at once (it used 4.3 GB and 33 s at p = 1024 and 128M, and called the
 * schedule invalid at 1G); one below them runs. */
static void test_trace_bounded(void **state)
{
    (void)state;
    static const char *const big[][12] = {
        {"trace", "allreduce", "-a", "ring", "-p", "1024", "-s", "128M", NULL},
        {"trace", "alltoall", "-p", "1024", "-s", "1G", NULL},
        {"trace", "broadcast", "-a", "chain", "-p", "64", "-s", "16G", NULL},
        {"trace", "allgather", "-p", "1024", "-s", "1G", "-d", "int8", "--json", NULL},
    };
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        Ran r = run_opts(&(RunOpts){.limit_s = 20}, big[i]);
        run_expect_sentence(&r, big[i][1], 2, "trace cannot follow ");
        if (!strstr(r.err, "trace keeps state for at most 4294967296") ||
            r.secs > 5)
            fail_msg("%s: %.1f s, '%s'", big[i][1], r.secs, r.err);
        ran_free(&r);
    }
    Ran r = run_args((const char *const[]){"trace", "allreduce", "-a", "ring",
                                           "-p", "4", "-s", "1G", NULL});
    assert_int_equal(r.status, 0);
    ran_free(&r);
}

/* X9: model on large what-if machines answers at once: the work bound
 * counts each transfer's route (an all-to-all on torus:64x64, a broadcast
 * on ring:65536: n/a with the sentence), and a memory machine's pricing no
 * longer checks the output element by element at every size (an
 * all-to-all on gpu:256 at 64 MiB) nor walks every rank's buffers at
 * every step (an allreduce on host:8192); the generators do not walk
 * every rank at every step of a node of 65536. A limit of 60 s says "it hung"; each
 * takes under a second here. */
static void test_model_bounded(void **state)
{
    (void)state;
    static const struct {
        const char *args[12];
        const char *want;
    } cases[] = {
        {{"model", "alltoall", "-p", "4096", "-T", "torus:64x64", NULL},
         "transfer hops"},
        {{"model", "broadcast", "-p", "65536", "-T", "ring:65536", "-b", "8",
          "-e", "1G", NULL}, "transfer hops"},
        {{"model", "alltoall", "-p", "256", "-T", "gpu:256", "-b", "64M",
          "-e", "64M", NULL}, "pairwise"},
        /* the buffers' bytes once a schedule, not once a step (18 s) */
        {{"model", "allreduce", "-p", "8192", "-T", "host:8192", "-b", "8",
          "-e", "1M", NULL}, "tree"},
        /* a node of 65536 ranks: the ring's empty blocks and the tree's
           idle ranks are not walked at every step (past 120 s) */
        {{"model", "allreduce", "-p", "65536", "-T", "nodes:1x65536,nic=shared",
          "-b", "64K", "-e", "64K", NULL}, "nccl_tree"},
        {{"trace", "allreduce", "-a", "nccl_tree", "-p", "65536", "-T",
          "nodes:1x65536,nic=shared", "-s", "64K", "--summary", NULL},
         "nccl_tree"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Ran r = run_opts(&(RunOpts){.limit_s = 60}, cases[i].args);
        if (r.status != 0 || !strstr(r.out, cases[i].want))
            fail_msg("%s %s: status %d after %.1f s: %s%s", cases[i].args[1],
                     cases[i].args[5], r.status, r.secs, r.out, r.err);
        ran_free(&r);
    }
}

/* An allocation that fails is said as such: never "invalid", never a
 * step and a transfer it has nothing to do with. */
static void test_trace_no_memory(void **state)
{
    (void)state;
    if (RUN_SANITIZED)
        skip(); /* a sanitizer cannot start under an address space limit */
    static const struct {
        unsigned long long as;
        const char *says;
    } cases[] = {
        {200ull << 20, "there is not enough memory to validate the ring schedule"},
        {60ull << 20, "there is not enough memory to generate the ring schedule"},
    };
    for (size_t i = 0; i < 2; i++) {
        Ran r = run_opts(&(RunOpts){.as = cases[i].as},
                         (const char *const[]){"trace", "allreduce", "-a", "ring",
                                               "-p", "1024", "-s", "8M", NULL});
        if (r.status != 1 || strstr(r.err, "invalid") || strstr(r.err, "step") ||
            !strstr(r.err, cases[i].says) || run_lines(r.err) != 1)
            fail_msg("under %llu MiB: status %d, '%s'", cases[i].as >> 20,
                     r.status, r.err);
        ran_free(&r);
    }
}

/* ---------------------------------------------------------------- dates */

/* A time the system cannot turn into a date (localtime gives NULL) is
 * said as unknown, never handed to strftime. */
static void test_date_text(void **state)
{
    (void)state;
    char buf[64];
    setenv("TZ", "UTC", 1);
    tzset();
    cli_date_text(0, buf, sizeof buf);
    assert_string_equal(buf, "1970-01-01 00:00");
    cli_date_text(1700000000, buf, sizeof buf);
    assert_string_equal(buf, "2023-11-14 22:13");
    static const long long odd[] = {LLONG_MAX, LLONG_MIN, 99999999999999999LL,
                                    -99999999999999999LL};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        cli_date_text(odd[i], buf, sizeof buf);
        if (strcmp(buf, "an unknown date"))
            fail_msg("%lld: '%s'", odd[i], buf);
    }
}

/* A libcuda.so.1 in the current folder is never loaded through an empty
 * element of LD_LIBRARY_PATH ('/usr/local/cuda/lib64:' with the variable
 * empty before): here the tests' fake driver, which runs perf, is put in
 * a fresh folder and perf -B cuda is run from there. A relative
 * COLLVIZ_LIBCUDA is refused too. */
static void test_libcuda_from_cwd(void **state)
{
#ifdef COLLVIZ_WITH_CUDA
    char dir[] = "/tmp/collviz-test-dl-XXXXXX", lib[128], bin[PATH_MAX],
         here[PATH_MAX];
    assert_non_null(mkdtemp(dir));
    snprintf(lib, sizeof lib, "%s/libcuda.so.1", dir);
    if (access(FAKE_CUDA_LIB, R_OK))
        skip(); /* make build/tests/fake_cuda/libcuda.so.1 */
    assert_int_equal(symlink(FAKE_CUDA_LIB, lib), 0);
    assert_non_null(realpath(run_binary(), bin));
    assert_non_null(getcwd(here, sizeof here));
    char *old = getenv("LD_LIBRARY_PATH") ? strdup(getenv("LD_LIBRARY_PATH"))
                                          : NULL;
    setenv("COLLVIZ", bin, 1);
    unsetenv("COLLVIZ_LIBCUDA");
    assert_int_equal(chdir(dir), 0);
    const char *const perf[] = {"perf", "allreduce", "-B", "cuda", "-p", "1",
                                "-b", "8", "-e", "8", "-n", "1", "-w", "0",
                                NULL};
    static const char *const paths[] = {"/nonexistent:", ":/nonexistent",
                                        "/nonexistent::/x", "."};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        setenv("LD_LIBRARY_PATH", paths[i], 1);
        Ran r = run_args(perf);
        /* the fake driver runs perf and names "Fake CUDA Device 0" */
        if (r.status == 0 || strstr(r.out, "Fake CUDA") || strstr(r.err, "Fake CUDA"))
            fail_msg("LD_LIBRARY_PATH=%s: status %d, the current folder's "
                     "library was loaded:\n%s%s", paths[i], r.status, r.out,
                     r.err);
        ran_free(&r);
    }
    setenv("LD_LIBRARY_PATH", "/nonexistent", 1);
    setenv("COLLVIZ_LIBCUDA", "libcuda.so.1", 1);
    Ran r = run_args(perf);
    if (r.status != 2 || !strstr(r.err, "COLLVIZ_LIBCUDA must name the "
                                        "library by its absolute path"))
        fail_msg("status %d: %s", r.status, r.err);
    ran_free(&r);
    /* named by its absolute path, the fake driver is used */
    setenv("COLLVIZ_LIBCUDA", FAKE_CUDA_LIB, 1);
    r = run_args(perf);
    if (r.status != 0)
        fail_msg("COLLVIZ_LIBCUDA absolute: status %d: %s", r.status, r.err);
    ran_free(&r);
    unsetenv("COLLVIZ_LIBCUDA");
    if (old)
        setenv("LD_LIBRARY_PATH", old, 1), free(old);
    else
        unsetenv("LD_LIBRARY_PATH");
    assert_int_equal(chdir(here), 0);
    unlink(lib);
    rmdir(dir);
#else
    skip();
#endif
}

/* X1: a driver's own dependencies never come from the current folder.
 * The fake driver needs libdl.so.2 and librt.so.1; planted copies lie in
 * the current folder (planted_fixture.h), and LD_LIBRARY_PATH names the
 * driver's folder with an empty or relative element beside it, or the
 * driver is named by COLLVIZ_LIBCUDA. collviz starts again without those
 * elements: the fake driver then runs perf with the system's libraries,
 * and no planted one is loaded. */
static void test_driver_deps_from_cwd(void **state)
{
#ifdef COLLVIZ_WITH_CUDA
    Planted pl;
    char bin[PATH_MAX], path[PATH_MAX + 8];
    assert_non_null(realpath(run_binary(), bin));
    if (!planted_setup(&pl))
        skip(); /* make build/tests/fake_cuda/libcuda.so.1 and the planted */
    setenv("COLLVIZ", bin, 1);
    unsetenv("COLLVIZ_LIBCUDA");
    const char *const perf[] = {"perf", "allreduce", "-B", "cuda", "-p", "1",
                                "-b", "8", "-e", "8", "-n", "1", "-w", "0",
                                "-c", "0", NULL};
    char drv[PATH_MAX];
    snprintf(drv, sizeof drv, "%s", FAKE_CUDA_LIB);
    *strrchr(drv, '/') = '\0';
    /* (the loader splits at ';' too; /proc/self/cwd is the current
       folder by another name) */
    const char *forms[] = {"%s:", ":%s", "%s::/nonexistent", ".:%s",
                           "%s:lib", "%s;.", "%s;", "/proc/self/cwd:%s"};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        snprintf(path, sizeof path, forms[i], drv);
        setenv("LD_LIBRARY_PATH", path, 1);
        Ran r = run_args(perf);
        if (planted_loaded(&pl) || r.status != 0 || !strstr(r.out, "Fake CUDA"))
            fail_msg("LD_LIBRARY_PATH=%s: status %d, planted library %s:\n"
                     "%s%s", path, r.status,
                     planted_loaded(&pl) ? "loaded" : "not loaded", r.out,
                     r.err);
        ran_free(&r);
    }
    /* named by its absolute path, beside an empty element */
    setenv("LD_LIBRARY_PATH", "/nonexistent:", 1);
    setenv("COLLVIZ_LIBCUDA", FAKE_CUDA_LIB, 1);
    Ran r = run_args(perf);
    if (planted_loaded(&pl) || r.status != 0)
        fail_msg("COLLVIZ_LIBCUDA: status %d, planted library %s: %s",
                 r.status, planted_loaded(&pl) ? "loaded" : "not loaded",
                 r.err);
    ran_free(&r);
    unsetenv("COLLVIZ_LIBCUDA");
    planted_teardown(&pl);
#else
    skip();
#endif
}

/* X4: no export follows a symbolic link at its name: --export-svg,
 * --export-cast, --export-frames and perf's --json at a dangling link are
 * one sentence and create nothing where it points. */
static void test_export_links(void **state)
{
    char dir[] = "/tmp/collviz-test-links-XXXXXX", link[128], target[128];
    assert_non_null(mkdtemp(dir));
    snprintf(link, sizeof link, "%s/out", dir);
    snprintf(target, sizeof target, "%s/planted", dir);
    assert_int_equal(symlink(target, link), 0);
    const char *const svg[] = {"--scene", "allreduce -p 4", "--export-svg",
                               link, NULL};
    const char *const cast[] = {"--scene", "allreduce -p 4", "--export-cast",
                                link, NULL};
    const char *const json[] = {"perf", "allreduce", "-p", "1", "-b", "8",
                                "-e", "8", "-n", "1", "-w", "0", "--json",
                                link, NULL};
    char viaproc[160]; /* a /proc path that names the same link */
    snprintf(viaproc, sizeof viaproc, "/proc/..%s", link);
    const char *const svg2[] = {"--scene", "allreduce -p 4", "--export-svg",
                                viaproc, NULL};
    const char *const frames[] = {"--scene", "allreduce -p 4",
                                  "--export-frames", link, NULL};
    const char *const *runs[] = {svg, cast, json, svg2, frames};
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        Ran r = run_args(runs[i]);
        if (r.status == 0 || !strstr(r.err, "is a symbolic link") ||
            !access(target, F_OK))
            fail_msg("%s: status %d: %s", runs[i][2], r.status, r.err);
        ran_free(&r);
    }
    unlink(link);
    rmdir(dir);
}

/* X5, X7: sentences that lead somewhere: --scene's bad option points at
 * tui's help (not at itself), an empty -T option is named as one, a link
 * class on a memory machine is named whole; both exports at once are
 * refused with status 2 and nothing on stdout. */
static void test_messages(void **state)
{
    static const struct {
        const char *args[8];
        const char *want;
    } cases[] = {
        {{"--scene", "--help"}, "see 'collviz tui --help'"},
        {{"--scene", "allreduce --export-svg F"}, "see 'collviz tui --help'"},
        {{"topo", "nodes:2x8,,,"}, "-T has an empty option in 'nodes:2x8,,,'"},
        {{"topo", "gpu:4,memory.bw=5"},
         "a memory machine has no link classes: 'memory.bw' names one"},
        {{"--scene", "allreduce -p 8", "--export-svg", "-", "--export-cast",
          "-"}, "--export-svg, --export-cast and --export-frames do not go "
         "together"},
        {{"--scene", "allreduce -p 8", "--export-frames", "-",
          "--export-svg", "-"}, "do not go together"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Ran r = run_args(cases[i].args);
        if (r.status != 2 || !strstr(r.err, cases[i].want) || r.out[0] ||
            strstr(r.err, "--scene --help"))
            fail_msg("%s %s: status %d, out %zu bytes: %s", cases[i].args[0],
                     cases[i].args[1], r.status, strlen(r.out), r.err);
        ran_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_libcuda_from_cwd),
        cmocka_unit_test(test_driver_deps_from_cwd),
        cmocka_unit_test(test_messages),
        cmocka_unit_test_setup_teardown(test_export_links, cache_setup,
                                        cache_teardown),
        cmocka_unit_test_setup_teardown(test_repeated_options, cache_setup,
                                        cache_teardown),
        cmocka_unit_test_setup_teardown(test_numbers, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_extra_and_names, cache_setup,
                                        cache_teardown),
        cmocka_unit_test(test_perf_usage),
        cmocka_unit_test_setup_teardown(test_sweep_no_repeats, cache_setup,
                                        cache_teardown),
        cmocka_unit_test(test_trace_bounded),
        cmocka_unit_test(test_model_bounded),
        cmocka_unit_test(test_trace_no_memory),
        cmocka_unit_test(test_date_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
