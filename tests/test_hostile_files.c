/* test_hostile_files.c - collviz's files as a careless or hostile user
 * leaves them, through the binary: a calibration file holding a value out
 * of range (a date localtime cannot give crashed calibrate --show and
 * perf; alpha 1e308 made perf's model inf) is refused with its line and
 * set aside; a FIFO at the calibration path is refused by calibrate
 * --show, model -B and perf at once and set aside; perf's --json file is
 * replaced only when the run ends, with what was measured and the
 * failure, and left as it was on bad input; a calibration that cannot be
 * saved says why and makes calibrate exit 1; Chinese asked for without
 * its catalogue is said, not silently English.
 *
 * The binary is $COLLVIZ (default build/collviz). */
#include "run_bin.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "measure/calib.h"

/* ------------------------------------------------------------- fixtures */

/* A temporary XDG_CACHE_HOME; its calibration file of threads at 2 ranks
 * on this machine. */
typedef struct {
    char dir[64];    /* the cache directory */
    char path[512];  /* the calibration's file */
    char bad[520];   /* where it is set aside */
    char host[CALIB_HOST_LEN]; /* this machine's fingerprint */
} Cache;

static int cache_setup(void **state)
{
    Cache *c = calloc(1, sizeof *c);
    char why[512];
    ExecHost h;
    if (!c)
        return -1;
    snprintf(c->dir, sizeof c->dir, "/tmp/collviz-test-hfile-XXXXXX");
    if (!mkdtemp(c->dir) || exec_host_of("threads", 2, &h, why, sizeof why))
        return -1;
    setenv("XDG_CACHE_HOME", c->dir, 1);
    snprintf(c->host, sizeof c->host, "%s", h.fingerprint);
    if (calib_path("threads", c->host, 2, c->path, sizeof c->path, why,
                   sizeof why))
        return -1;
    snprintf(c->bad, sizeof c->bad, "%s.bad", c->path);
    *state = c;
    return 0;
}

static int cache_teardown(void **state)
{
    Cache *c = *state;
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", c->dir); /* our mkdtemp's */
    int rc = system(cmd);
    free(c);
    return rc ? -1 : 0;
}

/* A made-up calibration of threads at 2 ranks on this machine, saved. */
static void save_calib(const Cache *cc)
{
    Calib c = {.nranks = 2, .alpha = 2e-6, .npoints = 2, .machine = MACHINE_BUS,
               .when = 1700000000};
    char why[512];
    snprintf(c.backend, sizeof c.backend, "threads");
    snprintf(c.host, sizeof c.host, "%s", cc->host);
    c.pt[0] = (CalibPoint){1e6, 2e-11, 1e-10, 1e-11, 4e-11, 0, 0};
    c.pt[1] = (CalibPoint){1e8, 8e-11, 2e-10, 2e-11, 5e-11, 0, 0};
    assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
}

/* The saved calibration with the line starting with `key` replaced. */
static void save_with(const Cache *cc, const char *key, const char *line)
{
    save_calib(cc);
    FILE *f = fopen(cc->path, "r");
    char text[4096] = "", l[512];
    assert_non_null(f);
    while (fgets(l, sizeof l, f))
        strcat(text, strncmp(l, key, strlen(key)) ? l : line);
    fclose(f);
    f = fopen(cc->path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "r");
    char *s = calloc(1, 1 << 20);
    assert_non_null(s);
    if (f) {
        size_t n = fread(s, 1, (1 << 20) - 1, f);
        s[n] = '\0';
        fclose(f);
    }
    return s;
}

/* Whether a file of dir's name starts with `prefix`. */
static int any_file(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    int found = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        found |= !strncmp(e->d_name, prefix, strlen(prefix));
    if (d)
        closedir(d);
    return found;
}

static const char *const show[] = {"calibrate", "-p", "2", "--show", NULL};
static const char *const perf[] = {"perf", "allreduce", "-p", "2", "-b", "64",
                                   "-e", "64", "-n", "1", "-w", "0", NULL};

/* perf calibrated quickly after saying `says` and that the file was set
 * aside (not that there was no calibration); its table's model column is
 * a finite time. */
static void expect_recalibrated(const Cache *c, const Ran *r, const char *says)
{
    if (r->status != 0 || !strstr(r->err, says) ||
        strstr(r->err, "no calibration") ||
        !strstr(r->err, "it is kept as ") || !strstr(r->err, c->bad) ||
        !strstr(r->err, "calibrating quickly") || strstr(r->out, "inf") ||
        !strstr(r->out, "          64            16"))
        fail_msg("perf: status %d, stderr '%s', stdout '%s'", r->status,
                 r->err, r->out);
}

/* ------------------------------------------------------- out of range */

/* A date localtime cannot give, alpha 1e308, a word for a number:
 * refused with the line and the reason, set aside; calibrate --show says
 * so (exit 1), perf says so (not "no calibration yet") and calibrates
 * anew. */
static void test_out_of_range(void **state)
{
    Cache *c = *state;
    static const struct {
        const char *key, *line, *says;
        bool perf; /* run perf on it too (a quick calibration: seconds) */
    } cases[] = {
        {"when", "when 99999999999999999\n", "when 99999999999999999 is out of range", false},
        {"when", "when -99999999999999999\n", "when -99999999999999999 is out", false},
        {"when", "when 9223372036854775807\n", "when 9223372036854775807 is out", true},
        {"alpha", "alpha 1e308\n", "alpha 1e308 is out of range (0, or 1e-12 to 1 s)", false},
        {"nranks", "nranks two\n", "line 5: nranks 'two' is not a whole number", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        save_with(c, cases[i].key, cases[i].line);
        unlink(c->bad);
        Ran r = run_args(show);
        run_expect_sentence(&r, cases[i].line, 1, cases[i].says);
        if (!strstr(r.err, "it is kept as ") || access(c->bad, F_OK) ||
            access(c->path, F_OK) == 0)
            fail_msg("%s: not set aside: %s", cases[i].line, r.err);
        ran_free(&r);
        if (!cases[i].perf)
            continue;
        save_with(c, cases[i].key, cases[i].line);
        r = run_args(perf);
        expect_recalibrated(c, &r, cases[i].says);
        ran_free(&r);
    }
}

/* ----------------------------------------------------------------- FIFO */

/* A FIFO at the calibration path: every reader refuses it at once (no
 * writer is waited for), says it is not a regular file, and sets it
 * aside, so that perf's quick calibration is saved in its place. */
static void test_fifo(void **state)
{
    Cache *c = *state;
    static const char *const model[] = {"model", "allreduce", "-p", "2", "-B",
                                        "threads", "-e", "64", NULL};
    const char *const *cmds[] = {show, model, perf};
    save_calib(c); /* the directory */
    for (int i = 0; i < 3; i++) {
        unlink(c->path), unlink(c->bad);
        assert_int_equal(mkfifo(c->path, 0644), 0);
        Ran r = run_opts(&(RunOpts){.limit_s = 60}, cmds[i]);
        if (i < 2)
            run_expect_sentence(&r, cmds[i][0], i ? 2 : 1,
                                "is not a regular file; it is kept as ");
        else
            expect_recalibrated(c, &r, "it is not a regular file");
        struct stat st;
        if (lstat(c->bad, &st) || !S_ISFIFO(st.st_mode))
            fail_msg("%s: the FIFO was not set aside", cmds[i][0]);
        ran_free(&r);
    }
    Calib got;
    char why[512];
    assert_int_equal(calib_load("threads", c->host, 2, &got, why, sizeof why),
                     CV_OK); /* perf's */
}

/* --------------------------------------------------------------- --json */

/* perf --json FILE: bad input leaves FILE as it was; a run that fails
 * puts there what it measured and the failure; one that succeeds, the
 * results. No temporary file is left either way. */
static void test_json_replaced_at_the_end(void **state)
{
    Cache *c = *state;
    char json[128], arg[160];
    static const char old[] = "{\"earlier\": \"results\"}\n";
    save_calib(c);
    snprintf(json, sizeof json, "%s/out.json", c->dir);
    snprintf(arg, sizeof arg, "--json=%s", json);
    FILE *f = fopen(json, "w");
    assert_non_null(f);
    fputs(old, f);
    fclose(f);
    /* bad input found after the file was opened: 1000G cannot fit */
    Ran r = run_args((const char *const[]){"perf", "allreduce", "-p", "2", "-b",
                                           "1000G", "-e", "1000G", arg, NULL});
    run_expect_sentence(&r, "perf 1000G", 2, "cannot run");
    char *now = read_all(json);
    assert_string_equal(now, old);
    free(now);
    ran_free(&r);
    assert_false(any_file(c->dir, "out.json.tmp."));
    if (!RUN_SANITIZED) {
        /* a run that fails for want of memory at its largest size */
        r = run_opts(&(RunOpts){.as = 300ull << 20},
                     (const char *const[]){"perf", "allreduce", "-p", "2", "-b",
                                           "8", "-e", "128M", "-f", "64", "-n",
                                           "1", "-w", "0", arg, NULL});
        now = read_all(json);
        if (r.status != 1 || !strstr(r.err, "perf allreduce ring failed: ") ||
            !strstr(now, "\"error\": \"perf allreduce ring failed: ") ||
            !strstr(now, "{\"algorithm\": \"ring\", \"size\": 8,") ||
            !strstr(now, "{\"algorithm\": \"ring\", \"size\": 32768,") ||
            strstr(now, "\"size\": 134217728") || strstr(now, "earlier"))
            fail_msg("status %d, stderr '%s', file:\n%s", r.status, r.err, now);
        free(now);
        ran_free(&r);
        assert_false(any_file(c->dir, "out.json.tmp."));
    }
    r = run_args((const char *const[]){"perf", "allreduce", "-p", "2", "-b", "8",
                                       "-e", "16", "-n", "1", "-w", "0", arg,
                                       NULL});
    now = read_all(json);
    assert_int_equal(r.status, 0);
    if (!strstr(now, "\"size\": 16,") || strstr(now, "\"error\""))
        fail_msg("file:\n%s", now);
    free(now);
    ran_free(&r);
    assert_false(any_file(c->dir, "out.json.tmp."));
}

/* Run the binary with args and descriptor `closed` (1 or 2) closed, as a
 * shell's >&- or 2>&- leave it; its exit status (-1: it hung). */
static int run_closed(int closed, const char *const *args)
{
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)run_binary();
    for (; args[n - 1]; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 3 - closed); /* the other stream: out of the test's way */
        close(null);
        close(closed);
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    for (int i = 0; i < 1200 && waitpid(pid, &st, WNOHANG) == 0; i++)
        usleep(50000);
    if (waitpid(pid, &st, WNOHANG) == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        return -1;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* perf --json FILE with stdout or stderr closed: the file is written only
 * from the JSON, and only when every stream could be written; a stream
 * that could not be written is exit 1 and FILE stays as it was. (The
 * temporary file took descriptor 1 or 2: the table or the warning went
 * into FILE, and with 2>&- the status was 0.) */
static void test_json_closed_streams(void **state)
{
    Cache *c = *state;
    char json[128], arg[160];
    static const char old[] = "{\"precious\": true}\n";
    snprintf(json, sizeof json, "%s/out.json", c->dir);
    snprintf(arg, sizeof arg, "--json=%s", json);
    const char *const args[] = {"perf", "allreduce", "-p", "2", "-b", "8",
                                "-e", "64", "-n", "1", "-w", "0", arg, NULL};
    /* no calibration: the warning that one is taken goes to stderr
       (that run saves one: stdout's turn comes second) */
    for (int closed = 2; closed >= 1; closed--) {
        FILE *f = fopen(json, "w");
        assert_non_null(f);
        fputs(old, f);
        fclose(f);
        int rc = run_closed(closed, args);
        char *now = read_all(json);
        if (rc != 1 || strcmp(now, old))
            fail_msg("fd %d closed: status %d, file:\n%s", closed, rc, now);
        free(now);
        assert_false(any_file(c->dir, "out.json.tmp."));
    }
    /* with a calibration nothing goes to stderr: 2>&- writes the JSON */
    save_calib(c);
    assert_int_equal(run_closed(2, args), 0);
    char *now = read_all(json);
    if (now[0] != '{' || !strstr(now, "\"size\": 64,"))
        fail_msg("file:\n%s", now);
    free(now);
}

/* ------------------------------------------------------------- messages */

/* A calibration that cannot be saved: the real cause, and calibrate
 * exits 1 (still showing what it measured). (A damaged file's sentence:
 * test_out_of_range.) */
static void test_save_fails(void **state)
{
    Cache *c = *state;
    Ran r;
    /* the cache directory's place taken by a file */
    char sub[128];
    snprintf(sub, sizeof sub, "%s/collviz", c->dir);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && touch '%s'", sub, sub);
    assert_int_equal(system(cmd), 0);
    /* (two points, -e 8M: what is saved does not matter, only that it
       cannot be) */
    r = run_args((const char *const[]){"calibrate", "-p", "2", "--quick", "-e",
                                       "8M", NULL});
    /* besides the values a plausibility rule did not believe, one line */
    int believed = run_lines(r.err);
    for (const char *p = r.err; (p = strstr(p, "collviz: not believed: ")); p++)
        believed--;
    if (r.status != 1 || believed != 1 ||
        !strstr(r.err, "could not save the calibration: ") ||
        !strstr(r.err, strerror(ENOTDIR)) ||
        !strstr(r.out, "# calibration of backend threads at 2 ranks"))
        fail_msg("status %d, stderr '%s'", r.status, r.err);
    ran_free(&r);
    unlink(sub);
}

/* ------------------------------------------------------------ catalogue */

/* Chinese asked for where no catalogue was installed (the binary copied
 * alone to a folder of its own): the screen says so in English, once,
 * instead of silently speaking English; beside its catalogue (build/) it
 * speaks Chinese and says nothing of it. */
static void test_no_catalogue(void **state)
{
    (void)state;
    char dir[64] = "/tmp/collviz-test-nocat-XXXXXX", cmd[600], bin[128];
    char script[128];
    assert_non_null(mkdtemp(dir));
    snprintf(bin, sizeof bin, "%s/collviz", dir);
    snprintf(script, sizeof script, "%s/s", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && echo dump > '%s'",
             run_binary(), bin, script);
    assert_int_equal(system(cmd), 0);
    const char *old = getenv("COLLVIZ");
    char *keep = old ? strdup(old) : NULL, *lc = getenv("LC_ALL");
    char *keep_lc = lc ? strdup(lc) : NULL;
    const char *const args[] = {"tui", "allreduce", "-p", "4", "--script",
                                script, "--dump", NULL};
    setenv("LC_ALL", "zh_CN.UTF-8", 1);
    for (int alone = 1; alone >= 0; alone--) {
        if (alone)
            setenv("COLLVIZ", bin, 1);
        else if (keep)
            setenv("COLLVIZ", keep, 1);
        else
            unsetenv("COLLVIZ");
        Ran r = run_args(args);
        bool says = strstr(r.out, "No Chinese text is installed") != NULL;
        bool zh = strstr(r.out, "\xe4\xb8\x8b\xe4\xb8\x80\xe6\xad\xa5")
                  != NULL; /* 下一步 */
        if (r.status != 0 || says != alone || zh == alone)
            fail_msg("%s: status %d, said %d, Chinese %d:\n%s",
                     alone ? "alone" : "beside its catalogue", r.status,
                     says, zh, r.out);
        ran_free(&r);
    }
    if (keep_lc)
        setenv("LC_ALL", keep_lc, 1);
    else
        unsetenv("LC_ALL");
    free(keep);
    free(keep_lc);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* An optional argument runs only the tests matching it. */
int main(int argc, char **argv)
{
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_out_of_range, cache_setup,
                                        cache_teardown),
        cmocka_unit_test_setup_teardown(test_fifo, cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_json_replaced_at_the_end,
                                        cache_setup, cache_teardown),
        cmocka_unit_test_setup_teardown(test_json_closed_streams, cache_setup,
                                        cache_teardown),
        cmocka_unit_test_setup_teardown(test_save_fails, cache_setup,
                                        cache_teardown),
        cmocka_unit_test(test_no_catalogue),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
