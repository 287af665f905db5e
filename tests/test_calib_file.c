/* test_calib_file.c - calibration files as a careless or hostile user
 * leaves them: every value out of its range (times, counts, ranks, cores,
 * every double) refused with the line and the reason and the file set
 * aside, never misread (a number with bytes after it, a line split by its
 * length, a NUL byte, a line given twice); a FIFO or a directory at the
 * calibration path refused at once and set aside (calib_load is also the
 * TUI's reader, src/ui/scene.c); names that cannot be a backend's kept out
 * of file names; what calib_save writes always loads; temporary files of
 * killed writers cleaned; a failed save says its real cause. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "measure/calib.h"

/* The machine the tests' calibrations name (ExecHost.fingerprint). */
#define HOST "Test CPU x4"
/* The start of a file of threads at 4 ranks on HOST, format 4. */
#define V4 "version 4\nbackend threads\nhost " HOST "\nnranks 4\n"
/* A point in range. */
#define PT "point 1e6 1e-10 2e-10 2e-11 4e-11 3e-10\n"

/* ------------------------------------------------------------- fixtures */

/* A fresh temporary XDG_CACHE_HOME per test. */
static int cache_setup(void **state)
{
    char *dir = malloc(64);
    if (!dir)
        return -1;
    snprintf(dir, 64, "/tmp/collviz-test-cfile-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    setenv("XDG_CACHE_HOME", dir, 1);
    *state = dir;
    return 0;
}

static int cache_teardown(void **state)
{
    char *dir = *state, sub[128], path[512];
    snprintf(sub, sizeof sub, "%s/collviz", dir);
    DIR *d = opendir(sub);
    for (struct dirent *e; d && (e = readdir(d));) {
        snprintf(path, sizeof path, "%s/%s", sub, e->d_name);
        if (e->d_name[0] != '.' || strlen(e->d_name) > 2)
            if (unlink(path))
                rmdir(path);
    }
    if (d)
        closedir(d);
    rmdir(sub);
    rmdir(dir);
    free(dir);
    return 0;
}

/* The path of threads at 4 ranks on HOST, and its .bad. */
static void paths(char *path, char *bad, size_t len)
{
    char why[512];
    assert_int_equal(calib_path("threads", HOST, 4, path, len, why, sizeof why),
                     CV_OK);
    snprintf(bad, len, "%s.bad", path);
}

/* Write text (n bytes) as that file, its directory made. */
static void write_bytes(const char *text, size_t n)
{
    char path[512], bad[512], dir[512];
    paths(path, bad, sizeof path);
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    mkdir(dir, 0755);
    unlink(path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    fclose(f);
}

static void write_text(const char *text) { write_bytes(text, strlen(text)); }

/* Load it: CV_OK, or the refusal's sentence in why. */
static CvError load(Calib *c, char *why, size_t len)
{
    why[0] = '\0';
    return calib_load("threads", HOST, 4, c, why, len);
}

/* Read text as a file (calib_parse, no plausibility rule: the reader's
 * ranges alone): CV_OK, or the refusal's sentence in why. */
static CvError parse(const char *text, Calib *c, char *why, size_t len)
{
    int version;
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(f);
    CvError e = calib_parse(f, c, &version, why, len);
    fclose(f);
    return e;
}

/* The file holding text is refused with a sentence holding every one of
 * says[] (NULL-terminated), and set aside. */
static void expect_refused(const char *text, size_t n, const char *const *says)
{
    char why[2048], path[512], bad[512];
    Calib c;
    paths(path, bad, sizeof path);
    unlink(bad);
    write_bytes(text, n);
    if (load(&c, why, sizeof why) != CV_ERR_ARG)
        fail_msg("accepted (when %lld, alpha %g, nranks %d):\n%s", c.when,
                 c.alpha, c.nranks, text);
    for (const char *const *s = says; *s; s++)
        if (!strstr(why, *s))
            fail_msg("the sentence '%s' lacks '%s' for:\n%s", why, *s, text);
    if (!strstr(why, "could not be read: ") || !strstr(why, "it is kept as ") ||
        !strstr(why, bad))
        fail_msg("the sentence '%s' does not say it is set aside", why);
    if (access(path, F_OK) == 0 || access(bad, F_OK))
        fail_msg("not set aside: %s", text);
}

/* ---------------------------------------------------------------- ranges */

/* Each field at the edge of its range loads; one step beyond is refused,
 * naming the line and the value. */
/* A calibration saved before the memory machines (format 6, as the
 * threads backend wrote it on this machine) still loads as it was: its
 * machine bus, no memory machine, fitted to full and bus only. */
static void test_format6_loads(void **state)
{
    (void)state;
    const char *text =
        "version 6\nbackend threads\nhost " HOST "\nnranks 2\ncores 2\n"
        "when 1795876766\nquick 1\nalpha 2.88471875e-07\n"
        "msg 2.88471875e-07\nlat 4.39800434e-07 4.80152195e-07\nlink bus\n"
        "fit 0.876478 0.307792\nunsteady 1.17426\n"
        "probe 4.28373 4.03061 4.1384e-05 4.3723e-05\n"
        "state 4.02115 4.41015e-05 6\n"
        "point 1000000 4.81794076e-12 9.56950829e-12 2.73502402e-12 "
        "4.73849551e-12 2.57562656e-11\n"
        "point 256000000 2.8e-11 5.8e-11 3.5e-12 7.2e-12 3.5e-11\n";
    Calib c;
    char why[512];
    assert_int_equal(parse(text, &c, why, sizeof why), CV_OK);
    assert_int_equal(c.machine, MACHINE_BUS);
    assert_true(c.medium != MACHINE_GPU && c.medium != MACHINE_HOST);
    assert_true(c.cache == 0);
    MachineKind fits[CALIB_MAX_FITS];
    assert_int_equal(calib_fits(&c, fits), 2);
    Machine m;
    assert_int_equal(calib_machine(&c, 1e6, &m), CV_OK);
    assert_int_equal(m.kind, MACHINE_BUS);
}

static void test_ranges(void **state)
{
    (void)state;
    static const struct {
        const char *line;   /* a line added to a good file */
        const char *beyond; /* the same line out of range */
        const char *says;   /* part of the refusal */
    } cases[] = {
        {"when 0\n", "when -1\n", "line 5: when -1 is out of range (0 to 253402300799 s)"},
        {"when 253402300799\n", "when 99999999999999999\n", "when 99999999999999999 is out of range"},
        {"when 1700000000\n", "when -99999999999999999\n", "when -99999999999999999 is out of range"},
        {"when 1700000000\n", "when 9223372036854775807\n", "when 9223372036854775807 is out"},
        {"when 1700000000\n", "when 92233720368547758070\n", "is out of range"},
        {"cores 0\n", "cores -1\n", "cores -1 is out of range"},
        {"cores 1048576\n", "cores 1048577\n", "cores 1048577 is out of range"},
        {"cores 2\n", "cores 99999999999\n", "cores 99999999999 is out of range"},
        {"quick 1\n", "quick 2\n", "quick 2 is out of range"},
        {"alpha 1\n", "alpha 1e308\n",
         "alpha 1e308 is out of range (0, or 1e-12 to 1 s)"},
        /* F8: a denormal alpha priced every step at nothing */
        {"alpha 1e-12\n", "alpha 1e-320\n", "alpha 1e-320 is out of range"},
        {"memory gpu 1 0.2\n", "memory gpu 0.5 0.2\n",
         "'0.5', is not a size of bytes above 0"},
        {"alpha 0\n", "alpha -1e-9\n", "alpha -1e-9 is out of range"},
        {"alpha 1e-6\n", "alpha 1e999\n", "alpha 1e999 is out of range"},
        {"msg 1\n", "msg 1.5\n", "msg 1.5 is out of range"},
        {"lat 1 0\n", "lat 1 1e300\n", "lat 1e300 is out of range"},
        {"fit 1e9 0\n", "fit 1e10 0\n", "fit 1e10 is out of range"},
        {"unsteady 1e9\n", "unsteady 1e300\n", "unsteady 1e300 is out"},
        {"probe 1e9 0 1 1\n", "probe 1 1 2 1\n", "probe 2 is out of range (0, or 1e-12 to 1 s)"},
        {"state 1 1 8192\n", "state 1 1 8193\n", "state 8193 is out of range"},
        {"state 1 1 0\n", "state 1e300 1 0\n", "state 1e300 is out of range"},
        {"memory gpu 5e7 0.2\n", "memory gpu 0 0.2\n",
         "line 5: the cache of 'memory', '0', is not a size of bytes above 0"},
        {"memory host 1e6 0\n", "memory host -3e7 0\n", "'-3e7', is not a size"},
        {"memory host 1e6 0\n", "memory host big 0\n", "'big', is not a size"},
        {"memory host 1e6 0\n", "memory host 1e6 -1\n", "fit error of 'memory'"},
        {"memory gpu 1e6 1\n", "memory tpu 1e6 1\n", "takes gpu or host, not 'tpu'"},
        {"memory gpu 1e6 1\n", "memory gpu 1e6\n", "'memory' takes 3 values, not 2"},
        {"memory gpu 2e5 1\nlink gpu\nalpha 1e-6\n", "link host\n",
         "its machine is host, but it has no memory line of it"},
        /* the one point (1e6 bytes) must lie past 4 times the cache (F2:
           such a file priced nothing, every cell n/a) */
        {"memory gpu 2e5 1\nlink gpu\nalpha 1e-6\n",
         "memory gpu 1e6 1\nlink gpu\nalpha 1e-6\n",
         "its points cannot make one: none measures past 4 times"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512], why[1024];
        Calib c;
        snprintf(text, sizeof text, V4 "%s" PT, cases[i].line);
        if (parse(text, &c, why, sizeof why) != CV_OK)
            fail_msg("case %zu: in range, refused: %s", i, why);
        snprintf(text, sizeof text, V4 "%s" PT, cases[i].beyond);
        expect_refused(text, strlen(text),
                       (const char *const[]){cases[i].says, NULL});
    }
    /* every value of a point line, and the rank count */
    static const struct {
        const char *text;
        const char *says;
    } more[] = {
        {V4 "point 1e17 1e-10 2e-10 0 0 3e-10\n", "point 1e17 is out of range"},
        {V4 "point 0 1e-10 2e-10 0 0 3e-10\n", "point 0 is out of range"},
        {V4 "point 1e6 1e-16 2e-10 0 0 3e-10\n", "point 1e-16 is out of range"},
        {V4 "point 1e6 1e-10 1 0 0 3e-10\n", "point 1 is out of range (1e-15 to 0.001 s/B)"},
        {V4 "point 1e6 1e-10 2e-10 1e308 0 3e-10\n", "point 1e308 is out"},
        {V4 "point 1e6 1e-10 2e-10 0 -1e-12 3e-10\n", "point -1e-12 is out"},
        {V4 "point 1e6 1e-10 2e-10 0 0 1e-20\n", "(0, or 1e-15 to 0.001 s/B)"},
        {"version 4\nbackend threads\nhost " HOST "\nnranks 0\n" PT, "nranks 0 is out"},
        {"version 4\nbackend threads\nhost " HOST "\nnranks 1025\n" PT, "nranks 1025"},
        {"version 4\nbackend threads\nhost " HOST "\nnranks 4294967300\n" PT,
         "nranks 4294967300 is out of range"},
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        expect_refused(more[i].text, strlen(more[i].text),
                       (const char *const[]){more[i].says, NULL});
    /* beta_cross 0 means not measured: taken */
    char why[512];
    Calib c;
    write_text(V4 "alpha 1e-6\npoint 1e6 1e-10 2e-10 2e-11 4e-11 0\n");
    assert_int_equal(load(&c, why, sizeof why), CV_OK);
}

/* What is read is what the file says, or nothing: a value with bytes
 * after it, a line the reader would cut in two, a NUL byte, a line given
 * twice, a word too many, a plus sign, hexadecimal, inf and nan. */
static void test_never_misread(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *says;
    } cases[] = {
        {V4 "alpha 1e-6x\n" PT, "line 5: alpha '1e-6x' is not a number"},
        {V4 "cores 4.5\n" PT, "cores '4.5' is not a whole number"},
        {V4 "cores +4\n" PT, "cores '+4' is not a whole number"},
        {V4 "alpha +1e-6\n" PT, "alpha '+1e-6' is not a number"},
        {V4 "alpha 0x1p-20\n" PT, "alpha '0x1p-20' is not a number"},
        {V4 "alpha inf\n" PT, "alpha 'inf' is not a number"},
        {V4 "alpha nan\n" PT, "alpha 'nan' is not a number"},
        {V4 "alpha 1e-6 2e-6\n" PT, "'alpha' takes 1 value, not 2"},
        {V4 "alpha 1e-6\nalpha 2e-6\n" PT, "line 6: a second 'alpha' line"},
        {V4 "nranks 4\n" PT, "a second 'nranks' line"},
        {V4 "host other\n" PT, "a second 'host' line"},
        {V4 "version 4\n" PT, "a second 'version' line"},
        {V4 "probe 1 1 1\n" PT, "'probe' takes 2 or 4 values, not 3"},
        {V4 "link ring\n" PT, "'ring' is not a machine a calibration fits"},
        {V4 "when 1700000000 7\n" PT, "'when' takes 1 value, not 2"},
        {V4 "alpha\n" PT, "'alpha' takes 1 value, not 0"},
        {V4 "garbage 1\n" PT, "'garbage' is not a line of a calibration"},
        {"version 4\nbackend ../../x\nhost " HOST "\nnranks 4\n" PT,
         "line 2: '../../x' is not a backend's name"},
        {V4 PT "point 1e6 1e-10 2e-10 0 0 3e-10\n", "not larger than the one before"},
        {"version 4\nbackend threads\nnranks 4\n", "it has no point line"},
        {"version 4\nhost " HOST "\nnranks 4\n" PT, "it has no backend line"},
        {"version 4\nbackend threads\nhost " HOST "\n" PT, "it has no nranks line"},
        {"backend threads\nnranks 4\n" PT, "it has no version line"},
        {"version 2\nbackend threads\nnranks 4\n" PT, "version 2, is older"},
        {"version -4\n", "version '-4' is not a whole number from 1"},
        {"version 4\nbackend threads\nnranks 4\nhost \033]0;evil\007\n" PT,
         "line 4: the host holds a control character"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_refused(cases[i].text, strlen(cases[i].text),
                       (const char *const[]){cases[i].says, NULL});
    /* a host line longer than the reader's buffer must not smuggle in a
     * line of its own */
    char text[1200];
    int n = snprintf(text, sizeof text, "version 4\nbackend threads\nnranks 4\n"
                     PT "host ");
    memset(text + n, 'h', 600);
    snprintf(text + n + 600, sizeof text - (size_t)n - 600, "alpha 1e-3\n");
    expect_refused(text, strlen(text),
                   (const char *const[]){"line 5: the line is longer than 511", NULL});
    /* a NUL byte hides the rest of the line from string functions */
    static const char nul[] = V4 "alpha 1e-6\0 2e-6\n" PT;
    expect_refused(nul, sizeof nul - 1,
                   (const char *const[]){"line 5: the line holds a NUL byte", NULL});
    /* a file of 64 KiB and more is no calibration */
    size_t big = 70 << 10;
    char *huge = malloc(big + 1);
    assert_non_null(huge);
    memset(huge, '#', big);
    for (size_t i = 80; i < big; i += 81)
        huge[i] = '\n';
    memcpy(huge, V4, strlen(V4));
    expect_refused(huge, big, (const char *const[]){"longer than 64 KiB", NULL});
    free(huge);
}

/* ------------------------------------------------------------ not a file */

static void on_alarm(int sig) { (void)sig; }

/* A FIFO (or a directory) at the calibration path: calib_load, which
 * calibrate --show, model -B, perf and the TUI all read through, refuses it
 * at once (nothing is waited for), says why and sets it aside. */
static void test_not_a_file(void **state)
{
    (void)state;
    char path[512], bad[512], why[2048], dir[512];
    Calib c;
    paths(path, bad, sizeof path);
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    mkdir(dir, 0755);
    for (int kind = 0; kind < 2; kind++) {
        unlink(bad), rmdir(bad);
        assert_int_equal(kind ? mkdir(path, 0755) : mkfifo(path, 0644), 0);
        /* a reader that waits on the FIFO is stopped by the alarm */
        signal(SIGALRM, on_alarm);
        alarm(5);
        CvError e = load(&c, why, sizeof why);
        alarm(0);
        assert_int_equal(e, CV_ERR_IO);
        if (!strstr(why, "it is not a regular file") ||
            !strstr(why, "it is kept as ") || !strstr(why, bad))
            fail_msg("%s: '%s'", kind ? "directory" : "FIFO", why);
        struct stat st;
        assert_int_equal(lstat(bad, &st), 0);
        assert_true(kind ? S_ISDIR(st.st_mode) : S_ISFIFO(st.st_mode));
        assert_int_equal(access(path, F_OK), -1);
    }
    rmdir(bad);
}

/* ---------------------------------------------------------------- names */

/* A backend's name never makes a file name that is not one of collviz's:
 * empty, dots, slashes, blanks, too long. */
static void test_backend_names(void **state)
{
    (void)state;
    static const char *const bad[] = {"", ".", "..", "../../x", "a/b", "x y",
                                      "thr\neads",
                                      "a-name-longer-than-thirty-one-bytes"};
    char path[512], why[512];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        if (calib_path(bad[i], HOST, 4, path, sizeof path, why, sizeof why) !=
                CV_ERR_ARG || !why[0])
            fail_msg("'%s' made the path %s", bad[i], path);
        Calib c;
        if (calib_load(bad[i], HOST, 4, &c, why, sizeof why) != CV_ERR_ARG)
            fail_msg("'%s' was looked for", bad[i]);
    }
    assert_int_equal(calib_path("threads", HOST, 4, path, sizeof path, why,
                                sizeof why), CV_OK);
    assert_int_equal(calib_path("my_back-end2", HOST, 4, path, sizeof path, why,
                                sizeof why), CV_OK);
}

/* --------------------------------------------------------------- saving */

/* A calibration in range, every field set. */
static Calib sample(void)
{
    Calib c = {.nranks = 4, .cores = 2, .when = 1700000000, .quick = 1,
               .alpha = 2e-6, .alpha_msg = 1e-7, .lat_step = 3e-6,
               .lat_iter = 1e-7, .unsteady = 1.5, .probe = {1.1, 1.2},
               .probe_clean = {4.5e-5, 4.6e-5}, .state_ratio = 1.05,
               .state_clean = 4.4e-5, .state_probes = 100, .machine = MACHINE_FULL,
               .fit_err = {0.5, 0.03}, .npoints = 2};
    snprintf(c.backend, sizeof c.backend, "threads");
    snprintf(c.host, sizeof c.host, HOST);
    c.pt[0] = (CalibPoint){1e6, 1e-10, 2e-10, 3e-11, 7e-11, 4e-10, 0};
    c.pt[1] = (CalibPoint){1e8, 2e-10, 3e-10, 4e-11, 8e-11, 5e-10, 0};
    return c;
}

/* What calib_save writes always loads: a value out of range is refused
 * before anything is written (it would be refused when read). */
static void test_save_reads_back(void **state)
{
    (void)state;
    char path[512], bad[512], why[1024];
    paths(path, bad, sizeof path);
    Calib c = sample(), got;
    assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
    assert_int_equal(load(&got, why, sizeof why), CV_OK);
    assert_true(got.when == c.when && got.alpha == c.alpha);
    unlink(path);
    Calib wrong[5] = {sample(), sample(), sample(), sample(), sample()};
    wrong[0].alpha = 1e308;
    wrong[1].when = -5;
    wrong[2].pt[1].beta_p2p = INFINITY;
    wrong[3].fit_err[MACHINE_BUS] = NAN;
    wrong[4].pt[1].footprint = 1; /* below the point before */
    for (int i = 0; i < 5; i++) {
        why[0] = '\0';
        if (calib_save(&wrong[i], why, sizeof why) != CV_ERR_ARG ||
            !strstr(why, "would not read back") || access(path, F_OK) == 0)
            fail_msg("case %d was saved (%s)", i, why);
    }
}

/* A calibration of ranks on several hosts (nodes) reads back with its
 * hosts, pairs and network bandwidths; a file of an older format names
 * its flat machine by its link model's name (p2p: full, shared: bus); a
 * nodes machine without its hosts, hosts that are not its ranks, or a
 * word that names no machine are refused. */
static void test_nodes(void **state)
{
    (void)state;
    char path[512], bad[512], why[1024];
    paths(path, bad, sizeof path);
    Calib c = sample(), got;
    c.machine = MACHINE_NODES;
    c.nodes = 2, c.per_node = 2, c.cyclic = 1;
    c.alpha_host = 1.5e-6, c.alpha_net = 2.5e-5;
    c.fit_err[MACHINE_NODES] = 0.25;
    c.pt[0].beta_net = 1e-9, c.pt[1].beta_net = 2e-9;
    snprintf(c.level[0], sizeof c.level[0], "device");
    snprintf(c.level[1], sizeof c.level[1], "peer");
    assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
    assert_int_equal(load(&got, why, sizeof why), CV_OK);
    assert_int_equal(got.machine, MACHINE_NODES);
    assert_int_equal(got.nodes, 2);
    assert_int_equal(got.per_node, 2);
    assert_int_equal(got.cyclic, 1);
    assert_true(got.alpha_host == 1.5e-6 && got.alpha_net == 2.5e-5);
    assert_true(got.fit_err[MACHINE_NODES] == 0.25);
    assert_true(got.pt[0].beta_net == 1e-9 && got.pt[1].beta_net == 2e-9);
    assert_string_equal(got.level[0], "device");
    assert_string_equal(got.level[1], "peer");
    write_text(V4 "alpha 1e-6\nlink p2p\n" PT);
    assert_int_equal(load(&got, why, sizeof why), CV_OK);
    assert_int_equal(got.machine, MACHINE_FULL);
    write_text(V4 "alpha 1e-6\nlink shared\n" PT);
    assert_int_equal(load(&got, why, sizeof why), CV_OK);
    assert_int_equal(got.machine, MACHINE_BUS);
    expect_refused(V4 "link nodes\n" PT, strlen(V4 "link nodes\n" PT),
                   (const char *const[]){"machine is nodes", "no nodes line",
                                         NULL});
    expect_refused(V4 "link nodes\nnodes 3 2 0\n" PT,
                   strlen(V4 "link nodes\nnodes 3 2 0\n" PT),
                   (const char *const[]){"3 nodes of 2 ranks", "4 ranks",
                                         NULL});
    expect_refused(V4 "link torus\n" PT, strlen(V4 "link torus\n" PT),
                   (const char *const[]){"line 5", "'torus'", NULL});
    expect_refused(V4 "nodes 1 4 0\n" PT, strlen(V4 "nodes 1 4 0\n" PT),
                   (const char *const[]){"nodes 1 is out of range", NULL});
    expect_refused(V4 "levels host n/et\n" PT,
                   strlen(V4 "levels host n/et\n" PT),
                   (const char *const[]){"'n/et' cannot name a class", NULL});
    expect_refused(V4 "levels host\n" PT, strlen(V4 "levels host\n" PT),
                   (const char *const[]){"'levels' takes 2 values", NULL});
}

/* A temporary file a killed writer left, of this calibration or of any
 * other in the directory, is removed by the next save; one of a process
 * that still runs is not. */
static void test_stale_temporaries(void **state)
{
    const char *dir = *state;
    char path[512], bad[512], why[512], f[4][640];
    paths(path, bad, sizeof path);
    Calib c = sample();
    assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
    pid_t dead = fork(); /* a process that has ended */
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0);
    snprintf(f[0], sizeof f[0], "%s.tmp.%ld", path, (long)dead);
    snprintf(f[1], sizeof f[1], "%s/collviz/calib-threads-0badf00d-p8.txt.tmp.%ld",
             dir, (long)dead);
    snprintf(f[2], sizeof f[2], "%s/collviz/calib-cuda-00000000-p2.txt.tmp.%ld",
             dir, (long)getppid()); /* alive */
    snprintf(f[3], sizeof f[3], "%s/collviz/notes.txt", dir);
    for (int i = 0; i < 4; i++) {
        FILE *t = fopen(f[i], "w");
        assert_non_null(t);
        fclose(t);
    }
    assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
    for (int i = 0; i < 4; i++)
        if ((access(f[i], F_OK) == 0) != (i >= 2))
            fail_msg("%s %s", f[i], i >= 2 ? "was removed" : "was left");
    unlink(f[2]), unlink(f[3]);
}

/* A save that fails says its real cause: the directory is a file, the
 * file is too large to write. */
static void test_save_cause(void **state)
{
    const char *dir = *state;
    char sub[512], why[1024] = "";
    Calib c = sample();
    snprintf(sub, sizeof sub, "%s/collviz", dir);
    FILE *f = fopen(sub, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(calib_save(&c, why, sizeof why), CV_ERR_IO);
    if (!strstr(why, strerror(ENOTDIR)))
        fail_msg("'%s' does not say '%s'", why, strerror(ENOTDIR));
    unlink(sub);
    /* in a child whose files may not grow: the write fails */
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit l = {64, 64};
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &l);
        calib_save(&c, why, sizeof why);
        ssize_t w = write(fd[1], why, strlen(why) + 1);
        _exit(w > 0 ? 0 : 1);
    }
    close(fd[1]);
    char got[1024] = "";
    ssize_t n = read(fd[0], got, sizeof got - 1);
    close(fd[0]);
    waitpid(pid, NULL, 0);
    assert_true(n > 0);
    if (!strstr(got, strerror(EFBIG)) || !strstr(got, "cannot write "))
        fail_msg("'%s' does not say '%s'", got, strerror(EFBIG));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ranges, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_format6_loads, cache_setup,
                                        cache_teardown),
        cmocka_unit_test_setup_teardown(test_never_misread, cache_setup,
                                        cache_teardown),
        cmocka_unit_test_setup_teardown(test_not_a_file, cache_setup,
                                        cache_teardown),
        cmocka_unit_test_setup_teardown(test_backend_names, cache_setup,
                                        cache_teardown),
        cmocka_unit_test_setup_teardown(test_nodes, cache_setup,
                                        cache_teardown),
        cmocka_unit_test_setup_teardown(test_save_reads_back, cache_setup,
                                        cache_teardown),
        cmocka_unit_test_setup_teardown(test_stale_temporaries, cache_setup,
                                        cache_teardown),
        cmocka_unit_test_setup_teardown(test_save_cause, cache_setup,
                                        cache_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
