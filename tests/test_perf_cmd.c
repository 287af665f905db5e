/* test_perf_cmd.c - the perf and calibrate commands driven as programs
 * (COLLVIZ, default build/collviz): tables, CSV, JSON, exit statuses, the
 * sentences for bad input, saved calibrations and how perf reads them. */
#define _GNU_SOURCE /* sched_getaffinity: the CPUs the ranks are pinned to */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure/perf.h"
#include "perf_fixture.h"
#include "sanitizer.h"
#include "exec/probe.h"
#include "json_reader.h"
#include <regex.h>

/* ------------------------------------------------------------ programs */

/* What a run of the binary gave. */
typedef struct {
    int status;  /* exit status, or -1 when killed */
    char *out;   /* stdout */
    char *err;   /* stderr */
} Ran;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf = calloc(1, 1 << 20);
    if (f && buf)
        fread(buf, 1, (1 << 20) - 1, f);
    if (f)
        fclose(f);
    return buf;
}

static const char *binary(void)
{
    const char *b = getenv("COLLVIZ");
    return b && *b ? b : "build/collviz";
}

/* Run the binary with args (NULL-terminated), at most `limit` seconds. */
static Ran run(const char *const *args, int limit)
{
    char *argv[48], outp[] = "/tmp/collviz-perf-outXXXXXX",
                    errp[] = "/tmp/collviz-perf-errXXXXXX";
    int fo = mkstemp(outp), fe = mkstemp(errp), n = 0;
    argv[n++] = (char *)binary();
    for (; args[n - 1] && n < 47; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    Ran r = {.status = -1};
    if (pid == 0) {
        dup2(fo, 1);
        dup2(fe, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    if (pid < 0)
        fail_msg("cannot fork to run %s", argv[0]);
    int st = 0;
    for (int ms = 0; waitpid(pid, &st, WNOHANG) == 0; ms += 10) {
        if (ms > limit * 1000) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            fail_msg("%s %s did not finish in %d s", argv[0], argv[1], limit);
        }
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (r.status == 127)
        fail_msg("cannot run %s (set COLLVIZ to the binary)", argv[0]);
    r.out = slurp(outp), r.err = slurp(errp);
    close(fo), close(fe);
    unlink(outp), unlink(errp);
    return r;
}

static void ran_free(Ran *r)
{
    free(r->out);
    free(r->err);
}

static int count_lines(const char *s, const char *prefix)
{
    int n = 0;
    size_t len = strlen(prefix);
    for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        n += !strncmp(l, prefix, len);
    return n;
}

/* A temporary XDG_CACHE_HOME holding a calibration of threads at p ranks
 * (so that perf does not calibrate first), or none when p == 0. */
static void fresh_cache(char *dir, size_t len, int p)
{
    snprintf(dir, len, "/tmp/collviz-test-perf-XXXXXX");
    assert_non_null(mkdtemp(dir));
    setenv("XDG_CACHE_HOME", dir, 1);
    if (p) {
        Calib c = test_calib(p);
        char why[512];
        assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
    }
}

/* Remove every file of directory dir, and dir. */
static void remove_dir(const char *dir)
{
    char path[1024];
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

static void drop_cache(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/collviz", dir);
    remove_dir(path);
    rmdir(dir);
}

/* The first columns of a table row, as nccl-tests prints them. */
/* The start of a table row of a collective that does not reduce: its
 * redop column says none, as nccl-tests' does. */
static const char *row_start(unsigned long long size, size_t count, int root)
{
    static char buf[128];
    snprintf(buf, sizeof buf, "%12llu  %12zu  %8s  %6s  %6d", size, count,
             "float", "none", root);
    return buf;
}

static void test_bad_input(void **state)
{
    (void)state;
    static const struct {
        const char *args[12]; /* the command line after the binary */
        const char *says;     /* part of the sentence on stderr */
    } cases[] = {
        {{"perf"}, "missing collective"},
        {{"perf", "allsum"}, "unknown collective 'allsum'"},
        {{"perf", "allreduce", "-a", "chain"}, "algorithm 'chain' is for broadcast"},
        {{"perf", "allreduce", "-a", "nosuch"}, "unknown algorithm 'nosuch'"},
        {{"perf", "allreduce", "-p", "0"}, "rank count 0 is out of range"},
        {{"perf", "allreduce", "-p", "two"}, "rank count 'two'"},
        {{"perf", "allreduce", "-p", "2", "-b", "1M", "-e", "1K"}, "larger than -e"},
        {{"perf", "allreduce", "-p", "2", "-b", "7"}, "not a multiple of the datatype"},
        {{"perf", "allreduce", "-p", "2", "-e", "12Q"}, "is not a size"},
        {{"perf", "allreduce", "-p", "2", "-f", "1"}, "-f '1' must be"},
        {{"perf", "allreduce", "-p", "2", "-f", "2", "-i", "8"}, "not both"},
        {{"perf", "allreduce", "-p", "2", "-n", "0"}, "-n '0' must be a whole number"},
        {{"perf", "allreduce", "-p", "2", "-w", "-1"}, "-w '-1' must be"},
        {{"perf", "allreduce", "-p", "2", "-c", "x"}, "-c 'x' must be"},
        {{"perf", "allreduce", "-p", "2", "--min-time", "-1"}, "--min-time '-1' must be"},
        {{"perf", "allreduce", "-p", "2", "--min-time", "61"}, "--min-time '61' must be"},
        {{"perf", "allreduce", "-p", "2", "--min-time", "1s"}, "--min-time '1s' must be"},
        {{"perf", "allreduce", "-p", "2", "--min-time", "nan"}, "--min-time 'nan' must be"},
        {{"perf", "allreduce", "-p", "2", "-d", "float128"}, "unknown datatype 'float128'"},
        {{"perf", "allreduce", "-p", "2", "-o", "xor"}, "unknown reduction op 'xor'"},
        {{"perf", "broadcast", "-p", "2", "-r", "2"}, "root 2 is out of range"},
        {{"perf", "allreduce", "-p", "2", "-r", "1"}, "allreduce has no root"},
        {{"perf", "allreduce", "-p", "2", "-B", "nosuch"}, "nosuch"},
        {{"perf", "allreduce", "-p", "2", "--bogus"}, "unknown option '--bogus'"},
        {{"perf", "allreduce", "gather"}, "unexpected argument 'gather'"},
        {{"perf", "allreduce", "-p", "2", "--json", "/nonexistent/dir/x.json"},
         "cannot write the --json file"},
        {{"calibrate", "-p", "0"}, "rank count 0 is out of range"},
        {{"calibrate", "--quick", "--show"}, "not both"},
        {{"calibrate", "-B", "nosuch"}, "nosuch"},
        {{"calibrate", "extra"}, "unexpected argument 'extra'"},
        /* the backend's own options (-B NAME:key=value,...) */
        {{"perf", "allreduce", "-p", "2", "-B", "threads:foo=1"},
         "the threads backend has no option 'foo'; its options are spin_us, "
         "eager_bytes, push_bytes"},
        {{"perf", "allreduce", "-p", "2", "-B", "threads:spin_us=50,eager_bytes=x"},
         "option eager_bytes takes a whole number of bytes"},
        {{"perf", "allreduce", "-p", "2", "-B", "nosuch:spin_us=1"},
         "there is no backend called 'nosuch'"},
        {{"calibrate", "-p", "2", "-B", "threads:spin_us"}, "'spin_us' is not one"},
        {{"calibrate", "-p", "2", "-B", "threads:push_bytes=-1"}, "not '-1'"},
        /* the straggler (slow=R:F): a rank that exists, a factor >= 1 */
        {{"perf", "allreduce", "-p", "2", "-B", "threads:slow=2:4"},
         "option slow names rank 2, but the ranks are 0 to 1"},
        {{"perf", "allreduce", "-p", "2", "-B", "threads:slow=1:0.5"},
         "takes a factor from 1 (no slowdown) to 1000 after the rank"},
        {{"perf", "allreduce", "-p", "2", "-B", "threads:slow=1:nan"},
         "not '1:nan'"},
        {{"perf", "allreduce", "-p", "2", "-B", "threads:slow=4"},
         "option slow takes RANK:FACTOR, such as slow=3:4"},
        /* U10: refused like threads:= rather than run without a word */
        {{"perf", "allreduce", "-p", "2", "-B", "threads:"},
         "-B threads: has no options after ':'"},
        {{"perf", "allreduce", "-p", "2", "-B", "threads:,,"},
         "hold an empty one"},
        {{"calibrate", "-p", "2", "-B", "threads:spin_us=1,"},
         "hold an empty one"},
        {{"perf", "allreduce", "-p", "2", "-B",
          "threads:spin_us=5,eager_bytes=8,spin_us=6"},
         "option spin_us is given twice"},
        /* sizes that do not fit in memory: said before anything runs */
        {{"perf", "allreduce", "-p", "2", "-b", "1000G", "-e", "1000G"},
         "ring cannot run: at 1073741824000 bytes the buffers need"},
        {{"perf", "alltoall", "-a", "all", "-p", "64", "-b", "1G", "-e", "1024G",
          "-f", "1024"}, "at 1099511627776 bytes the buffers need"},
        {{"perf", "broadcast", "-p", "3", "-b", "8", "-e", "1024G", "-f", "1024"},
         "but this machine has"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Ran r = run(cases[i].args, 30);
        if (r.status != 2 || !strstr(r.err, cases[i].says) || r.out[0] ||
            strncmp(r.err, "collviz: ", 9) || count_lines(r.err, "") != 1)
            fail_msg("case %zu (%s %s ...): status %d, stderr '%s', stdout '%s'",
                     i, cases[i].args[0], cases[i].args[1], r.status, r.err, r.out);
        ran_free(&r);
    }
}

static void test_csv_and_json(void **state)
{
    (void)state;
    char dir[64], json[128];
    fresh_cache(dir, sizeof dir, 2);
    snprintf(json, sizeof json, "%s/out.json", dir);
    const char *args[] = {"perf", "reducescatter", "-p", "2", "-b", "8", "-e", "8K",
                          "-f", "4", "-n", "3", "-w", "1", "--csv", "--json", json,
                          NULL};
    Ran r = run(args, 60);
    assert_int_equal(r.status, 0);
    assert_int_equal(count_lines(r.out, "algorithm,size,count,"), 1);
    assert_int_equal(count_lines(r.out, "ring,"), 6); /* 8 32 ... 8192 */
    for (const char *l = strchr(r.out, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
        int commas = 0;
        for (const char *c = l; *c && *c != '\n'; c++)
            commas += *c == ',';
        assert_int_equal(commas, 25); /* 26 columns: the header's */
        long long size, wrong, wrong_ip;
        int iters, iters_ip, moved;
        double before, after, clean0, clean1;
        assert_int_equal(sscanf(l, "ring,%lld,%*d,float,sum,-1,%*f,%*f,%*f,%lld,"
                                   "%*f,%*f,%*f,%lld,%*f,%*f,%d,%d,%lf,%lf,%d,"
                                   "%lf,%lf",
                                &size, &wrong, &wrong_ip, &iters, &iters_ip,
                                &before, &after, &moved, &clean0, &clean1), 10);
        /* probed where two CPUs can be pinned; the saved calibration was
         * not probed, so no row is flagged */
        assert_true(exec_cpus() < 2 ? before == 0 && after == 0
                                    : before > 0 && after > 0);
        assert_true(exec_cpus() < 2 ? clean0 == 0 && clean1 == 0
                                    : clean0 > 0 && clean1 > 0);
        assert_int_equal(moved, 0);
        assert_int_equal(iters, 3); /* -n 3, no --min-time */
        assert_int_equal(iters_ip, 3);
        assert_int_equal(size % 8, 0);
        assert_int_equal(wrong, 0);
        assert_int_equal(wrong_ip, 0);
    }
    assert_string_equal(r.err, ""); /* calibrated already: nothing to say */
    char *j = slurp(json);
    assert_non_null(strstr(j, "\"collective\": \"reducescatter\""));
    assert_int_equal(count_lines(j, "    {\"algorithm\": \"ring\""), 6);
    assert_non_null(strstr(j, "\"out_of_bounds\": 0"));
    assert_null(strstr(j, "\"host_moved\": true"));
    assert_non_null(strstr(j, "\"probe\": [0.0000, 0.0000], "
                              "\"probe_clean_us\": [0.000, 0.000], "
                              "\"state\": {\"ratio\": 0.0000, \"clean_us\": 0.000, "
                              "\"probes\": 0}, \"unsteady\": 0.0000, "
                              "\"retaken\": 0}")); /* calibration */
    int unmoved = 0;
    for (const char *m = j; (m = strstr(m, "\"host_moved\": false, "
                                         "\"host_moved_by\": []}")); m++)
        unmoved++;
    assert_int_equal(unmoved, 6);
    free(j);
    unlink(json);
    ran_free(&r);
    drop_cache(dir);
}

static void test_table_all(void **state)
{
    (void)state;
    char dir[64];
    fresh_cache(dir, sizeof dir, 3);
    const char *args[] = {"perf", "broadcast", "-a", "all", "-p", "3", "-r", "2",
                          "-b", "12", "-e", "1200", "-f", "10", "-n", "2", "-w",
                          "0", NULL};
    Ran r = run(args, 60);
    int nalgo = 0;
    for (size_t i = 0; i < algo_count(); i++)
        nalgo += algo_at(i)->coll == COLL_BROADCAST;
    assert_int_equal(r.status, 0);
    assert_int_equal(count_lines(r.out, "# collviz perf: broadcast, algorithm "), nalgo);
    assert_int_equal(count_lines(r.out, "# Out of bounds values : 0 OK"), nalgo);
    assert_int_equal(count_lines(r.out, "# Avg bus bandwidth    : "), nalgo);
    assert_int_equal(count_lines(r.out, row_start(12, 3, 2)), nalgo);
    assert_int_equal(count_lines(r.out, row_start(1200, 300, 2)), nalgo);
    assert_int_equal(count_lines(r.out, "# Summary, out of place"), nalgo > 1);
    if (nalgo > 1) /* one summary line per size: 12, 120, 1200 */
        assert_non_null(strstr(r.out, "# the model chose the fastest algorithm at "));
    /* the copy rate the summary sets the fastest against: the fixture's
       largest working set copies at 1 / 8e-11 s/B, read and written: 2 /
       8e-11 B/s = 25.0 GB/s; each row's share is its rw over that */
    assert_non_null(strstr(r.out, "calibration's copy, 25.0 GB/s read and "
                                  "written at 100000000 B"));
    const char *sum = strstr(r.out, "# Summary, out of place");
    assert_non_null(sum);
    const char *row = strstr(sum, "\n        1200  ");
    assert_non_null(row);
    double rw, share;
    char name[64], model[64], same[8];
    double t1, t2;
    assert_int_equal(sscanf(row, " %*s %63s %lf %63s %lf %7s %lf %lf%%",
                            name, &t1, model, &t2, same, &rw, &share), 7);
    /* (1200 bytes on a busy machine can read "0.00" GB/s: the rate is
       the machine's, the share's relation to it is the code's) */
    assert_true(rw >= 0);
    assert_true(fabs(share - 100 * rw / 25.0) <= 0.5 + 0.01 * share);
    ran_free(&r);
    drop_cache(dir);
}

/* The CSV row of `size` bytes in out: its algbw and busbw, out of place
 * and in place (-1 for an empty field: a place not measured). */
static void csv_bw(const char *out, unsigned long long size, double bw[4])
{
    char key[64];
    snprintf(key, sizeof key, ",%llu,", size);
    const char *l = strstr(out, key);
    if (!l)
        fail_msg("no CSV row of %llu bytes in:\n%s", size, out);
    /* algorithm,size,count,type,redop,root,time_us,algbw,busbw,wrong,
     * time_us_ip,algbw_ip,busbw_ip,wrong_ip,... */
    static const int cols[4] = {8, 9, 12, 13}; /* 1-based */
    for (int k = 0; k < 4; k++) {
        const char *f = l;
        for (int c = 1; c < cols[k] && f; c++)
            f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL;
        assert_non_null(f);
        bw[k] = *f == ',' ? -1 : strtod(f, NULL);
    }
}

/* nccl-tests' sendrecv_perf and hypercube_perf, as collviz perf prints
 * them: nccl-tests' columns; sendrecv's size is one block (count x 4 B)
 * and its busbw its algbw, with no in-place columns (N/A: it has none);
 * hypercube's size is p blocks, as allgather's, and its busbw 3/4 of its
 * algbw at 4 ranks; -a all runs their one algorithm. */
static void test_table_sendrecv_hypercube(void **state)
{
    (void)state;
    char dir[64];
    fresh_cache(dir, sizeof dir, 4);
    const char *sr[] = {"perf", "sendrecv", "-a", "all", "-p", "4", "-b",
                        "12", "-e", "1200", "-f", "10", "-n", "2", "-w", "0",
                        NULL};
    Ran r = run(sr, 60);
    assert_int_equal(r.status, 0);
    assert_int_equal(count_lines(r.out, "# collviz perf: sendrecv, algorithm shift,"), 1);
    assert_int_equal(count_lines(r.out, "#       size         count      type   "
                                        "redop    root     time   algbw   busbw  "
                                        "#wrong     time   algbw   busbw  #wrong"), 1);
    const unsigned long long sizes[] = {12, 120, 1200};
    for (int i = 0; i < 3; i++) {
        char row[160];
        snprintf(row, sizeof row, "%s", row_start(sizes[i], sizes[i] / 4, -1));
        assert_int_equal(count_lines(r.out, row), 1);
        const char *l = strstr(r.out, row);
        const char *nl = strchr(l, '\n');
        char *na = strstr(l, "     N/A     N/A     N/A     N/A");
        assert_true(na && na < nl);
    }
    assert_int_equal(count_lines(r.out, "# Out of bounds values : 0 OK"), 1);
    ran_free(&r);
    const char *src[] = {"perf", "sr", "-p", "4", "-b", "400K", "-e", "400K",
                         "-n", "2", "-w", "1", "--csv", NULL};
    r = run(src, 60);
    assert_int_equal(r.status, 0);
    double bw[4];
    csv_bw(r.out, 409600, bw);
    assert_true(bw[0] > 0 && fabs(bw[1] - bw[0]) <= 1e-4);
    assert_true(bw[2] == -1 && bw[3] == -1);
    ran_free(&r);
    const char *hc[] = {"perf", "hypercube", "-p", "4", "-b", "400K", "-e",
                        "400K", "-n", "2", "-w", "1", "--csv", NULL};
    r = run(hc, 60);
    assert_int_equal(r.status, 0);
    assert_int_equal(count_lines(r.out, "doubling,409600,25600,float,none,-1,"), 1);
    csv_bw(r.out, 409600, bw);
    for (int pl = 0; pl < 2; pl++)
        assert_true(bw[2 * pl] > 0 &&
                    fabs(bw[2 * pl + 1] - 0.75 * bw[2 * pl]) <= 1e-4);
    ran_free(&r);
    drop_cache(dir);
}

/* A calibration file as collviz kept them before it named the machine
 * (version 3, calib-threads-pP.txt) in the cache directory dir. */
static void write_old(const char *dir, int p)
{
    char path[512];
    snprintf(path, sizeof path, "%s/collviz", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/collviz/calib-threads-p%d.txt", dir, p);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "version 3\nbackend threads\nnranks %d\ncores 2\nalpha 1e-6\n"
               "point 1e6 1e-10 2e-10 0 0 3e-10\n", p);
    fclose(f);
}

/* `model -B threads` prints for every algorithm and size what calib_predict
 * gives under the saved calibration (perf's model column), and says in one
 * sentence when there is none, when the backend is unknown, and when
 * model parameters are given beside it. */
static void test_model_calibrated(void **state)
{
    (void)state;
    char dir[64];
    fresh_cache(dir, sizeof dir, 4);
    Calib cal = test_calib(4);
    const char *args[] = {"model", "allreduce", "-p", "4", "-B", "threads", "-b",
                          "1M", "-e", "16M", "-f", "4", NULL};
    Ran r = run(args, 30);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "# model: the calibration of threads at 4 ranks"));
    const AlgoInfo *algos[32];
    size_t na = 0;
    for (size_t i = 0; i < algo_count() && na < 32; i++)
        if (algo_at(i)->coll == COLL_ALLREDUCE && !algo_at(i)->fits)
            algos[na++] = algo_at(i); /* those made for full */
    int rows = 0;
    for (const char *l = r.out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        unsigned long long size;
        size_t count;
        int at;
        if (*l == '#' || sscanf(l, "%llu %zu%n", &size, &count, &at) != 2)
            continue;
        const char *cell = l + at;
        for (size_t i = 0; i < na; i++) {
            CollCall call = {.kind = COLL_ALLREDUCE, .nranks = 4, .count = count,
                             .dtype = DT_FLOAT, .op = OP_SUM};
            Schedule s;
            double want = 0, got = 0;
            int used = 0;
            assert_int_equal(algo_generate(algos[i], &call, &s), CV_OK);
            assert_int_equal(calib_predict(&cal, &s, cal.machine, &want), CV_OK);
            sched_fini(&s);
            assert_int_equal(sscanf(cell, "%lf%n", &got, &used), 1);
            cell += used + (cell[used] == '*');
            assert_rel(got, want * 1e6, 1e-5);
        }
        assert_non_null(strstr(l, "*"));
        rows++;
    }
    assert_int_equal(rows, 3); /* 1M 4M 16M */
    ran_free(&r);
    static const struct {
        const char *args[12];
        const char *says;
    } bad[] = {
        {{"model", "allreduce", "-p", "3", "-B", "threads"},
         "no usable calibration of threads at 3 ranks"},
        {{"model", "allreduce", "-p", "4", "-B", "nosuch"}, "no backend called 'nosuch'"},
        {{"model", "allreduce", "-p", "4", "-B", "threads", "--alpha", "2"}, "not both"},
        {{"model", "allreduce", "-p", "4", "-B", "threads", "--link", "p2p"}, "not both"},
        {{"model", "allreduce", "-p", "4", "-B", "threads:foo=1"},
         "the threads backend has no option 'foo'"},
        /* no driver (COLLVIZ_LIBCUDA below), or a build without it */
        {{"model", "allreduce", "-p", "4", "-B", "cuda"}, "cuda backend"},
        /* collviz before 0.1's machine keys: never read, said */
        {{"model", "allreduce", "-p", "5", "-B", "threads"},
         "calib-threads-p5.txt was saved by an older collviz; run 'collviz "
         "calibrate -B threads -p 5'"},
        {{"calibrate", "-p", "5", "-B", "threads:foo=1", "--show"},
         "the threads backend has no option 'foo'"},
    };
    write_old(dir, 5);
    setenv("COLLVIZ_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = run(bad[i].args, 30);
        if (r.status != 2 || !strstr(r.err, bad[i].says) || r.out[0] ||
            count_lines(r.err, "") != 1)
            fail_msg("case %zu: status %d, stderr '%s'", i, r.status, r.err);
        ran_free(&r);
    }
    drop_cache(dir);
}

static void test_calibrate_and_first_perf(void **state)
{
    (void)state;
    char dir[64];
    fresh_cache(dir, sizeof dir, 0);
    const char *show[] = {"calibrate", "-p", "2", "--show", NULL};
    Ran r = run(show, 30);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "no usable calibration of threads at 2 ranks"));
    ran_free(&r);
    /* perf without a calibration of this machine calibrates quickly and
     * says so, and why: an older collviz's file is not this machine's */
    write_old(dir, 2);
    const char *perf[] = {"perf", "alltoall", "-p", "2", "-b", "64", "-e", "64",
                          "-n", "2", NULL};
    r = run(perf, 300); /* a quick calibration: 14 s here, 10 times that
                           under ThreadSanitizer on a busy machine */
    assert_int_equal(r.status, 0);
    if (!strstr(r.err, "calib-threads-p2.txt was saved by an older collviz; "
                       "calibrating quickly (run 'collviz calibrate -B threads "
                       "-p 2' for a thorough one)"))
        fail_msg("stderr: %s", r.err);
    assert_int_equal(count_lines(r.out, row_start(64, 8, -1)), 1);
    ran_free(&r);
    r = run(show, 30);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "# calibration of backend threads at 2 ranks"));
    char machine[200];
    snprintf(machine, sizeof machine, "# machine: %s\n", test_calib(2).host);
    assert_non_null(strstr(r.out, machine));
    assert_non_null(strstr(r.out, "quick"));
    assert_non_null(strstr(r.out, "# machine that fits: "));
    ran_free(&r);
    /* up to 8 MB working sets (1 and 8 MB: two points), a fraction of a
       second (the whole quick one just ran in perf) */
    const char *quick[] = {"calibrate", "-p", "2", "--quick", "-e", "8M", NULL};
    r = run(quick, 120);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "# alpha (one step of one-element messages): "));
    Calib c, here = test_calib(2);
    char why[512];
    assert_int_equal(calib_load("threads", here.host, 2, &c, why, sizeof why),
                     CV_OK);
    assert_string_equal(c.host, here.host);
    assert_int_equal(c.cores, exec_cpus());
    assert_true(c.quick && c.npoints >= 2 && c.alpha > 0);
    ran_free(&r);
    drop_cache(dir);
}

/* XDG_CACHE_HOME set to a relative path is ignored (the XDG rule), and
 * calibrate and perf say so once, with the directory used instead
 * ($HOME/.cache/collviz); an absolute or empty one draws no sentence. */
static void test_relative_cache(void **state)
{
    (void)state;
    static const struct {
        const char *xdg; /* NULL: the temporary directory itself */
        int told;
    } cases[] = {{"cache", 1}, {"./x/y", 1}, {"", 0}, {NULL, 0}};
    char dir[64], home[512], kept[640], *old = getenv("HOME");
    snprintf(home, sizeof home, "%s", old ? old : "");
    fresh_cache(dir, sizeof dir, 0);
    setenv("HOME", dir, 1);
    Calib c = test_calib(2);
    snprintf(kept, sizeof kept, "%s/.cache/collviz", dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("XDG_CACHE_HOME", cases[i].xdg ? cases[i].xdg : dir, 1);
        char why[512];
        assert_int_equal(calib_save(&c, why, sizeof why), CV_OK); /* where
                                                            collviz looks */
        const char *show[] = {"calibrate", "-p", "2", "--show", NULL};
        const char *perf[] = {"perf", "allgather", "-p", "2", "-b", "64",
                              "-e", "64", "-n", "1", "-w", "0", NULL};
        const char *const *cmds[] = {show, perf};
        for (int k = 0; k < 2; k++) {
            Ran r = run(cmds[k], 60);
            const char *at = strstr(r.err, "XDG_CACHE_HOME is not an absolute");
            int told = at != NULL;
            if (r.status || told != cases[i].told ||
                (told && (strstr(at + 1, "XDG_CACHE_HOME") ||
                          !strstr(at, kept) ||
                          !strstr(at, cases[i].xdg ? cases[i].xdg : dir))))
                fail_msg("case %zu, %s: status %d, stderr '%s'", i,
                         cmds[k][0], r.status, r.err);
            ran_free(&r);
        }
    }
    char path[700];
    remove_dir(kept);
    snprintf(path, sizeof path, "%s/.cache", dir);
    rmdir(path);
    setenv("XDG_CACHE_HOME", dir, 1);
    drop_cache(dir);
    if (old)
        setenv("HOME", home, 1);
}

/* calibrate --show and perf's table say that a calibration is unsteady
 * exactly when its cross benchmark's rounds moved by more than
 * CALIB_UNSTEADY, with the ratio; perf's JSON gives the ratio always. */
static void test_show_unsteady(void **state)
{
    (void)state;
    static const struct {
        double unsteady;
        const char *says; /* NULL: no such line */
    } cases[] = {
        {0, NULL}, {1.7, NULL}, {CALIB_UNSTEADY, NULL},
        {3.2, "took 3.2 times as long"}, {14.04, "took 14.0 times as long"},
    };
    char dir[64];
    fresh_cache(dir, sizeof dir, 0);
    const char *show[] = {"calibrate", "-p", "2", "--show", NULL};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Calib c = test_calib(2);
        c.unsteady = cases[i].unsteady;
        char why[512];
        assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
        Ran r = run(show, 30);
        assert_int_equal(r.status, 0);
        int lines = count_lines(r.out, "# unsteady: ");
        if (lines != (cases[i].says != NULL) ||
            (cases[i].says && !strstr(r.out, cases[i].says)))
            fail_msg("case %zu: %d unsteady lines in:\n%s", i, lines, r.out);
        ran_free(&r);
        char json[128], want[64];
        snprintf(json, sizeof json, "%s/perf.json", dir);
        const char *perf[] = {"perf", "broadcast", "-p", "2", "-b", "64",
                              "-e", "64", "-n", "1", "-w", "0", "--json",
                              json, NULL};
        r = run(perf, 60);
        assert_int_equal(r.status, 0);
        lines = count_lines(r.out, "# unsteady calibration: ");
        const char *says = strstr(r.out, "# unsteady calibration: ");
        if (lines != (cases[i].says != NULL) ||
            (says && !strstr(says, cases[i].says + 5))) /* "3.2 times ..." */
            fail_msg("case %zu: perf has %d unsteady lines in:\n%s", i, lines,
                     r.out);
        ran_free(&r);
        char *j = slurp(json);
        snprintf(want, sizeof want, "\"unsteady\": %.4f,", cases[i].unsteady);
        if (!strstr(j, want))
            fail_msg("case %zu: no '%s' in %s", i, want, j);
        free(j);
        unlink(json);
    }
    drop_cache(dir);
}

/* perf's --json file is JSON whatever the calibration holds: fit errors
 * that are not finite cannot come from a file (calib_save refuses them,
 * the loader sets such a file aside), so the JSON has no inf or nan; a
 * file that cannot be written is said with its cause, exit status 1. */
static void test_json_nonfinite(void **state)
{
    (void)state;
    char dir[64], json[128];
    fresh_cache(dir, sizeof dir, 0);
    Calib c = test_calib(2);
    char why[4400];
    c.fit_err[MACHINE_FULL] = INFINITY;
    c.fit_err[MACHINE_BUS] = NAN;
    assert_int_equal(calib_save(&c, why, sizeof why), CV_ERR_ARG);
    c.fit_err[MACHINE_FULL] = 0.25;
    c.fit_err[MACHINE_BUS] = 0.5;
    assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
    snprintf(json, sizeof json, "%s/perf.json", dir);
    const char *args[] = {"perf", "broadcast", "-p", "2", "-b", "64", "-e", "64",
                          "-n", "1", "-w", "0", "--json", json, NULL};
    Ran r = run(args, 60);
    assert_int_equal(r.status, 0);
    ran_free(&r);
    char *j = slurp(json);
    if (!strstr(j, "\"fit_error\": {\"full\": 0.2500, \"bus\": 0.5000}, ") ||
        strstr(j, "inf") || strstr(j, "nan"))
        fail_msg("fit errors written as:\n%s", j);
    free(j);
    unlink(json);
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        fclose(full);
        args[13] = "/dev/full";
        r = run(args, 60);
        assert_int_equal(r.status, 1);
        char want[200];
        snprintf(want, sizeof want, "collviz: could not write the --json file "
                 "/dev/full: %s\n", strerror(ENOSPC));
        assert_string_equal(r.err, want);
        ran_free(&r);
    }
    drop_cache(dir);
}

/* The host_moved column (the 21st) of every CSV row of algorithm `algo`
 * in out equals want. */
static void assert_moved_column(const char *out, const char *algo, int want)
{
    char key[64];
    snprintf(key, sizeof key, "\n%s,", algo);
    int rows = 0;
    for (const char *l = strstr(out, key); l; l = strstr(l + 1, key), rows++) {
        const char *f = l + 1;
        for (int k = 0; k < 20 && f; k++)
            f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL;
        if (!f || atoi(f) != want)
            fail_msg("a row's host_moved is not %d:\n%s", want, out);
    }
    assert_true(rows > 0);
}

/* A calibration whose probes are far from anything this machine shows
 * (where two CPUs can be pinned): every row is flagged, in the CSV
 * column and in the table's footer, which names the sizes and says how
 * the machine moved: its cross-core reads, its speed, or both. */
static void test_host_moved_shown(void **state)
{
    (void)state;
    if (exec_cpus() < 2)
        skip();
    char dir[64];
    fresh_cache(dir, sizeof dir, 0);
    const char *csv[] = {"perf", "allgather", "-p", "2", "-b", "64", "-e", "1K",
                         "-f", "4", "-n", "2", "-w", "0", "--csv", NULL};
    const char *table[] = {"perf", "allgather", "-p", "2", "-b", "64", "-e", "1K",
                           "-f", "4", "-n", "2", "-w", "0", NULL};
    static const struct {
        double ratio, clean; /* the calibration's probes */
        int moved;
    } cases[] = {
        {1000, 0, PERF_HOST_CROSS},
        {0, 1.0, PERF_HOST_SPEED}, /* a second to copy a block */
        {1000, 1.0, PERF_HOST_CROSS | PERF_HOST_SPEED},
        {0, 0, 0},                 /* not probed: nothing is said */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Calib c = test_calib(2);
        c.probe[0] = c.probe[1] = cases[i].ratio;
        c.probe_clean[0] = c.probe_clean[1] = cases[i].clean;
        char why[512];
        assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
        Ran r = run(csv, 60);
        assert_int_equal(r.status, 0);
        assert_int_equal(count_lines(r.out, "ring,"), 3); /* 64 256 1024 */
        assert_moved_column(r.out, "ring", cases[i].moved);
        ran_free(&r);
        r = run(table, 60);
        assert_int_equal(r.status, 0);
        int cross = cases[i].moved & PERF_HOST_CROSS;
        int speed = cases[i].moved & PERF_HOST_SPEED;
        assert_int_equal(count_lines(r.out, "# Host moved           : 3 of 3 "
                                            "sizes: 64 256 1024"),
                         cases[i].moved ? 1 : 0);
        assert_int_equal(strstr(r.out, "1000.00 and 1000.00 during the "
                                       "calibration") != NULL, cross != 0);
        assert_int_equal(strstr(r.out, "1000000.0 and 1000000.0 during the "
                                       "calibration") != NULL, speed != 0);
        assert_int_equal(count_lines(r.out, "# Host moved"), cases[i].moved != 0);
        ran_free(&r);
    }
    drop_cache(dir);
}

/* -B NAME:OPTS hands the options to the backend: perf runs with the
 * threads backend's own (no spinning, nothing eager, nothing pushed; then
 * a straggler, which its placement line names) and says them in its
 * header; the results are right. */
static void test_backend_options(void **state)
{
    (void)state;
    char dir[64];
    fresh_cache(dir, sizeof dir, 2);
    const char *args[] = {"perf", "allgather", "-p", "2", "-B",
                          "threads:spin_us=0,eager_bytes=0,push_bytes=0",
                          "-b", "64", "-e", "1K", "-f", "4", "-n", "2", "-w",
                          "1", NULL};
    Ran r = run(args, 60);
    if (r.status != 0 ||
        !strstr(r.out, "backend threads:spin_us=0,eager_bytes=0,push_bytes=0, 2 ranks") ||
        !strstr(r.out, "# Out of bounds values : 0 OK") ||
        strstr(r.out, "slowed"))
        fail_msg("status %d, stdout '%s', stderr '%s'", r.status, r.out, r.err);
    ran_free(&r);
    /* a straggler: said in the head, the results still right */
    args[5] = "threads:slow=1:2.5";
    r = run(args, 60);
    if (r.status != 0 ||
        !strstr(r.out, "\n# placement: rank 1 slowed 2.5x (threads:slow=1:2.5: "
                "each copy or reduce it performs is followed by a busy wait "
                "of 1.5 times its time)\n") ||
        !strstr(r.out, "# Out of bounds values : 0 OK"))
        fail_msg("status %d, stdout '%s', stderr '%s'", r.status, r.out, r.err);
    ran_free(&r);
    drop_cache(dir);
}

/* A slowed backend is not the machine: perf with no calibration saved
 * calibrates quickly for its own run and saves nothing (a later run
 * without the straggler would have taken it for the machine's; not
 * under ThreadSanitizer, where it takes minutes), and
 * calibrate refuses it with one sentence, status 2. */
static void test_slowed_not_saved(void **state)
{
    (void)state;
    char dir[64], path[128];
    fresh_cache(dir, sizeof dir, 0);
#ifndef UNDER_TSAN /* a quick calibration: 14 s here, minutes under TSan
                      (the plain and ASan runs take this half) */
    const char *args[] = {"perf", "allreduce", "-p", "2", "-B",
                          "threads:slow=1:2", "-b", "1K", "-e", "1K", "-n",
                          "2", "-w", "1", NULL};
    Ran r = run(args, 300);
    snprintf(path, sizeof path, "%s/collviz", dir);
    DIR *d = opendir(path);
    int files = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        files += e->d_name[0] != '.';
    if (d)
        closedir(d);
    if (r.status != 0 || files ||
        !strstr(r.err, "this calibration prices this run only and is not "
                "saved"))
        fail_msg("status %d, %d files saved, stderr '%s'", r.status, files,
                 r.err);
    ran_free(&r);
#else
    (void)path;
    Ran r;
#endif
    const char *cal[] = {"calibrate", "-B", "threads:slow=1:2", "-p", "2",
                         "--quick", NULL};
    r = run(cal, 60);
    if (r.status != 2 || !strstr(r.err, "calibrate measures the machine, "
                                 "and -B threads:slow=1:2 runs it otherwise"))
        fail_msg("status %d, stderr '%s'", r.status, r.err);
    ran_free(&r);
    drop_cache(dir);
}

/* nccl-tests' -d all, -o all and -r all: every type, every op of a
 * reducing collective and every root of a rooted one, in one table, each
 * combination's rows with its own type, redop and root columns and no
 * wrong element. The combinations are counted from the definition: 10
 * types (int8 .. double), 5 ops, p roots. */
static void test_all_types_ops_roots(void **state)
{
    (void)state;
    static const char *const types[] = {"int8", "uint8", "int32", "uint32",
        "int64", "uint64", "half", "bfloat16", "float", "double"};
    static const char *const ops[] = {"sum", "prod", "min", "max", "avg"};
    char dir[64];
    fresh_cache(dir, sizeof dir, 3);
    const char *args[] = {"perf", "reduce", "-p", "3", "-b", "96", "-e", "96",
                          "-n", "1", "-w", "0", "-d", "all", "-o", "all",
                          "-r", "all", NULL};
    Ran r = run(args, 120);
    assert_int_equal(r.status, 0);
    assert_int_equal(count_lines(r.out, "# Out of bounds values : 0 OK"), 1);
    for (size_t d = 0; d < 10; d++)
        for (size_t o = 0; o < 5; o++)
            for (int root = 0; root < 3; root++) {
                /* 96 bytes: 96 / size-of-type elements, all of them */
                static const int size[] = {1, 1, 4, 4, 8, 8, 2, 2, 4, 8};
                char row[160];
                snprintf(row, sizeof row, "%12d  %12d  %8s  %6s  %6d", 96,
                         96 / size[d], types[d], ops[o], root);
                if (count_lines(r.out, row) != 1)
                    fail_msg("no single row '%s' in:\n%s", row, r.out);
            }
    ran_free(&r);
    /* a collective that neither reduces nor has a root: -o all and -r all
       change nothing, -d all gives ten rows */
    /* at the 3 ranks calibrated above, so that nothing calibrates first:
       a calibration under a sanitiser on a loaded machine takes minutes */
    const char *ag[] = {"perf", "allgather", "-p", "3", "-b", "96", "-e", "96",
                        "-n", "1", "-w", "0", "-d", "all", "-o", "all", "-r",
                        "all", NULL};
    r = run(ag, 60);
    assert_int_equal(r.status, 0);
    int rows = 0;
    for (const char *l = r.out; l && *l;
         l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        rows += *l == ' ' && strstr(l, "  none      -1") != NULL;
    assert_int_equal(rows, 10);
    ran_free(&r);
    drop_cache(dir);
}

/* nccl-tests' bandwidth threshold: with NCCL_TESTS_MIN_BW (or --min-bw,
 * which wins) the footer's average says OK or FAILED, FAILED below 90% of
 * the threshold, and a FAILED run exits 1; without either the line has no
 * verdict. */
static void test_min_bw(void **state)
{
    (void)state;
    char dir[64];
    fresh_cache(dir, sizeof dir, 2);
    const char *base[] = {"perf", "allreduce", "-p", "2", "-b", "1K", "-e",
                          "1K", "-n", "2", "-w", "0", NULL, NULL, NULL};
    Ran r = run(base, 60);
    assert_int_equal(r.status, 0);
    /* the run says who ran it, as nccl-tests' rank lines: host and pid */
    char host[300], name[256] = "";
    assert_int_equal(gethostname(name, sizeof name - 1), 0);
    snprintf(host, sizeof host, "# host %s, pid ", name);
    assert_int_equal(count_lines(r.out, host), 1);
    const char *l = strstr(r.out, "# Avg bus bandwidth    : ");
    assert_non_null(l);
    double avg = strtod(l + 25, NULL);
    assert_true(avg > 0);
    /* no verdict: nccl-tests' "%g %s" with "" */
    assert_memory_equal(l + 25 + strcspn(l + 25, " \n"), " \n", 2);
    ran_free(&r);
    /* a threshold far above: FAILED, status 1 */
    setenv("NCCL_TESTS_MIN_BW", "1000000", 1);
    r = run(base, 60);
    assert_int_equal(r.status, 1);
    assert_int_equal(count_lines(r.out, "# Avg bus bandwidth    : "), 1);
    assert_non_null(strstr(r.out, " FAILED\n#"));
    ran_free(&r);
    /* the flag wins over the variable: 0 is always met */
    base[12] = "--min-bw", base[13] = "0";
    r = run(base, 60);
    assert_int_equal(r.status, 0);
    l = strstr(r.out, "# Avg bus bandwidth    : ");
    assert_non_null(l);
    assert_non_null(strstr(l, " OK\n"));
    ran_free(&r);
    unsetenv("NCCL_TESTS_MIN_BW");
    /* a thousand times this machine's average: FAILED by the flag too
       (the 90% rule itself: test_perf's test_bw_verdict) */
    char thr[32];
    snprintf(thr, sizeof thr, "%g", avg * 1000);
    base[13] = thr;
    r = run(base, 60);
    assert_int_equal(r.status, 1);
    ran_free(&r);
    base[13] = "-1";
    r = run(base, 60);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--min-bw takes a bandwidth in GB/s"));
    ran_free(&r);
    drop_cache(dir);
}

/* nccl-tests' -N (run cycles): the whole sweep again, each cycle printed
 * under its number, and refused with --json, which holds one run; -M:
 * the header says the buffers' memory at the largest size, out of place:
 * for allreduce on p ranks every rank holds a send and a receive buffer
 * of the size (the ring needs no scratch), p * 2 * 4096 bytes at 4 KiB. */
static void test_cycles_memory(void **state)
{
    (void)state;
    char dir[64];
    fresh_cache(dir, sizeof dir, 2);
    const char *args[] = {"perf", "allreduce", "-p", "2", "-b", "1K", "-e",
                          "4K", "-f", "4", "-n", "1", "-w", "0", "-N", "3",
                          "-M", "1", NULL};
    Ran r = run(args, 60);
    assert_int_equal(r.status, 0);
    assert_int_equal(count_lines(r.out, "# cycle "), 3);
    assert_int_equal(count_lines(r.out, "# cycle 3"), 1);
    assert_int_equal(count_lines(r.out, "# Out of bounds values : 0 OK"), 3);
    /* nccl-tests' footer, once at the end: 16384 B is 16.0 KB */
    assert_int_equal(count_lines(r.out, "# Host memory usage    : User-Allocated "
                                 "16.0 KB | Total  16.0 KB"), 1);
    ran_free(&r);
    /* -I 1: each place's iterations in nccl-tests' four columns after
       its own four: min <= p99 <= max, and the row's time (their mean)
       between min and max */
    const char *st[] = {"perf", "allreduce", "-p", "2", "-b", "4K", "-e",
                        "4K", "-n", "9", "-w", "0", "-I", "1", NULL};
    r = run(st, 60);
    assert_int_equal(r.status, 0);
    const char *row = strstr(r.out, "        4096          1024     float     sum "
                                    "     -1  ");
    assert_non_null(row);
    double v[2][8];
    assert_int_equal(sscanf(row, "%*s %*s %*s %*s %*s %lf %lf %lf %lf %lf %lf "
                            "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf",
                            &v[0][0], &v[0][1], &v[0][2], &v[0][3], &v[0][4],
                            &v[0][5], &v[0][6], &v[0][7], &v[1][0], &v[1][1],
                            &v[1][2], &v[1][3], &v[1][4], &v[1][5], &v[1][6],
                            &v[1][7]), 16);
    for (int pl = 0; pl < 2; pl++) { /* time, algbw, busbw, wrong, i_* */
        double t = v[pl][0], mn = v[pl][4], mx = v[pl][5], p99 = v[pl][6];
        assert_true(mn > 0 && mn <= p99 && p99 <= mx && v[pl][7] >= 0);
        assert_true(mn <= t + 0.01 && t <= mx + 0.01); /* printed to 0.01 */
    }
    ran_free(&r);
    const char *json[] = {"perf", "allreduce", "-p", "2", "-N", "2",
                          "--json", "/tmp/collviz-test-cycles.json", NULL};
    r = run(json, 60);
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "--json holds one run's rows"));
    assert_int_equal(access("/tmp/collviz-test-cycles.json", F_OK), -1);
    ran_free(&r);
    drop_cache(dir);
}

/* A -S timestamp at s: nccl-tests' "%Y-%m-%d %H:%M:%S", local time, between
 * lo and hi (seconds since the epoch, a second either side). */
static void check_stamp(const char *s, time_t lo, time_t hi)
{
    struct tm tm = {0};
    int n = 0;
    assert_int_equal(sscanf(s, "%4d-%2d-%2d %2d:%2d:%2d%n", &tm.tm_year,
                            &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                            &tm.tm_sec, &n), 6);
    assert_int_equal(n, 19);
    assert_true(s[4] == '-' && s[7] == '-' && s[10] == ' ' && s[13] == ':');
    tm.tm_year -= 1900, tm.tm_mon -= 1, tm.tm_isdst = -1;
    time_t t = mktime(&tm);
    assert_true(t >= lo - 1 && t <= hi + 1);
}

/* nccl-tests' -m, -z, -C and -S with its values and long names ('_'):
 * the header says agg iters and blocking, the time columns are named
 * cputime, every row ends with the time it was measured; the JSON has
 * nccl-tests' keys (aggregated_iterations, blocking_collectives) and
 * each place's cputime_us; CSV's cputime_us is empty without -C; values
 * outside nccl-tests' (0/1, a count of at least 1) are one sentence. */
static void test_nccl_flags(void **state)
{
    (void)state;
    char dir[64];
    fresh_cache(dir, sizeof dir, 2);
    const char *json = "/tmp/collviz-test-flags.json";
    const char *args[] = {"perf", "allreduce", "-p", "2", "-b", "1K", "-e",
                          "4K", "-f", "4", "-n", "3", "--warmup_iters", "1",
                          "--agg_iters", "3", "-z", "1", "--report_cputime",
                          "1", "-S", "1", "--datatype", "float", "--json",
                          json, NULL};
    time_t t0 = time(NULL);
    Ran r = run(args, 60);
    time_t t1 = time(NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, " warmup iters: 1 iters: 3 agg iters: 3 "
                                  "validation: 1 graph: 0 unalign: 0\n"));
    assert_int_equal(count_lines(r.out, "# Blocking Enabled: wait and barrier "
                                 "after each inner iteration (-m) "), 1);
    assert_int_equal(count_lines(r.out, "# cputime: "), 1);
    const char *h = strstr(r.out, "#       size");
    assert_non_null(h);
    assert_non_null(strstr(h, "cputime   algbw"));
    assert_non_null(strstr(h, "#wrong           timestamp\n"));
    int rows = 0;
    for (const char *l = r.out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (*l == '#' || *l == '\n')
            continue;
        const char *nl = strchr(l, '\n');
        assert_non_null(nl);
        assert_true(nl - l > 19);
        check_stamp(nl - 19, t0, t1);
        rows++;
    }
    assert_int_equal(rows, 2); /* 1 KiB and 4 KiB */
    ran_free(&r);
    char *j = slurp(json);
    assert_non_null(strstr(j, "\"aggregated_iterations\": 3"));
    assert_non_null(strstr(j, "\"blocking_collectives\": true"));
    assert_non_null(strstr(j, "\"report_cputime\": true"));
    int cpu = 0;
    for (const char *c = j; (c = strstr(c, "\"cputime_us\": ")); c++) {
        assert_true(strtod(c + 14, NULL) > 0);
        cpu++;
    }
    assert_int_equal(cpu, 4); /* two sizes, two places */
    const char *ts = strstr(j, "\"timestamp\": \"");
    assert_non_null(ts);
    check_stamp(ts + 14, t0, t1);
    free(j);
    unlink(json);
    /* CSV: the cputime columns empty without -C, a number with it */
    const char *csv[] = {"perf", "allreduce", "-p", "2", "-b", "1K", "-e",
                         "1K", "-n", "1", "-w", "0", "--csv", "-C", "0", NULL};
    for (int c = 0; c < 2; c++) {
        csv[14] = c ? "1" : "0";
        r = run(csv, 60);
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.out, ",cputime_us,cputime_us_ip,timestamp\n"));
        const char *row = strstr(r.out, "\nring,");
        assert_non_null(row);
        const char *nl = strchr(row + 1, '\n');
        /* the last three fields: cputime_us, cputime_us_ip, timestamp */
        const char *f = nl;
        for (int k = 0; k < 3; k++)
            while (*--f != ',')
                ;
        if (c)
            assert_true(strtod(f + 1, NULL) > 0 && f[1] != ',');
        else
            assert_memory_equal(f, ",,,\n", 4);
        ran_free(&r);
    }
    static const char *bad[][3] = {
        {"-z", "4", "-z '4' must be a whole number from 0 to 3"},
        {"-I", "2", "-I '2' must be a whole number from 0 to 1"},
        {"-M", "yes", "-M 'yes' must be a whole number from 0 to 1"},
        {"-a", "0", "-a 0 is nccl-tests' average over ranks"},
        {"-C", "yes", "-C 'yes' must be a whole number from 0 to 1"},
        {"-S", "-1", "-S '-1' must be a whole number from 0 to 1"},
        {"-m", "0", "-m '0' must be a whole number from 1 to 1000"},
        {"-u", "-1", "-u '-1' must be a whole number from 0 to 4096"},
        {"-u", "4097", "-u '4097' must be a whole number from 0 to 4096"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *b[] = {"perf", "allreduce", "-p", "2", bad[i][0],
                           bad[i][1], NULL};
        r = run(b, 60);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, bad[i][2]));
        ran_free(&r);
    }
    /* -u 3 (nccl-tests' unalign): said in the header and the JSON, and
       every type's results right (the buffers' addresses themselves:
       test_exec_threads test_unalign) */
    const char *un[] = {"perf", "allreduce", "-p", "2", "-b", "8", "-e", "8K",
                        "-f", "32", "-n", "1", "-w", "0", "-u", "3", "-d", "all",
                        "--json", json, NULL};
    r = run(un, 60);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, " graph: 0 unalign: 3\n")); /* nccl-tests' */
    assert_int_equal(count_lines(r.out, "# Out of bounds values : 0 OK"), 1);
    ran_free(&r);
    j = slurp(json);
    assert_non_null(strstr(j, "\"unalign\": 3"));
    free(j);
    unlink(json);
    drop_cache(dir);
}

/* nccl-tests' rank lines: under the header's host line, one line per
 * rank with its process, host and unit; on the threads backend every
 * rank is a thread of the perf process (the pid of the header's host
 * line) on this host, and while every rank has a CPU, rank r is on the
 * r-th CPU the process may use (sched_getaffinity, by definition of the
 * pinning); with more ranks than CPUs, on any of them. The JSON's devices
 * list holds the same. */
static void test_rank_lines(void **state)
{
    (void)state;
    char dir[64], name[256] = "";
    assert_int_equal(gethostname(name, sizeof name - 1), 0);
    cpu_set_t set;
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    int cpus = CPU_COUNT(&set), ids[2] = {-1, -1};
    for (int c = 0, k = 0; c < CPU_SETSIZE && k < 2; c++)
        if (CPU_ISSET(c, &set))
            ids[k++] = c;
    const char *json = "/tmp/collviz-test-ranks.json";
    for (int p = 2; p <= 3; p++) {
        fresh_cache(dir, sizeof dir, p);
        char ps[8];
        snprintf(ps, sizeof ps, "%d", p);
        const char *args[] = {"perf", "allgather", "-p", ps, "-b", "1K", "-e",
                              "1K", "-n", "1", "-w", "0", "--json", json, NULL};
        Ran r = run(args, 60);
        assert_int_equal(r.status, 0);
        const char *h = strstr(r.out, "# host ");
        assert_non_null(h);
        long pid = strtol(strstr(h, ", pid ") + 6, NULL, 10);
        assert_true(pid > 0);
        for (int k = 0; k < p; k++) {
            char want[512];
            if (p <= cpus) /* nccl-tests' device: the cpu */
                snprintf(want, sizeof want, "#  Rank %2d Group  0 Pid %6ld on "
                         "%10s device %2d [cpu] cpu %d\n", k, pid, name,
                         ids[k], ids[k]);
            else /* its place in the process */
                snprintf(want, sizeof want, "#  Rank %2d Group  0 Pid %6ld on "
                         "%10s device %2d [cpu] a thread on any of %d cpus\n",
                         k, pid, name, k, cpus);
            assert_non_null(strstr(r.out, want));
        }
        assert_int_equal(count_lines(r.out, "#  Rank "), p);
        ran_free(&r);
        char *j = slurp(json);
        assert_non_null(strstr(j, "\"devices\": ["));
        char want[128];
        snprintf(want, sizeof want, "{\"rank\": %d, \"pid\": %ld, ", p - 1, pid);
        assert_non_null(strstr(j, want));
        free(j);
        unlink(json);
        drop_cache(dir);
    }
}

/* Whether line (up to its newline) matches the extended regex re. */
static bool line_matches(const char *line, const char *re)
{
    regex_t rx;
    char buf[1024];
    size_t n = strcspn(line, "\n");
    assert_true(n < sizeof buf);
    memcpy(buf, line, n);
    buf[n] = '\0';
    assert_int_equal(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), 0);
    bool m = regexec(&rx, buf, 0, NULL, 0) == 0;
    regfree(&rx);
    return m;
}

/* The whitespace-separated fields of line (up to its newline). */
static int fields(const char *line)
{
    int n = 0;
    for (const char *c = line; *c && *c != '\n'; c++)
        n += *c != ' ' && (c == line || c[-1] == ' ');
    return n;
}

/* A field of nccl-tests' row: getFloatStr's number or N/A. */
#define NUM "[0-9.e+-]+"
#define SIDE "  +" NUM "  +" NUM "  +" NUM "  +(" NUM "|N/A)"
#define ITER "  +" NUM "  +" NUM "  +" NUM "  +" NUM

/* nccl-tests' parsers on collviz's output, each written from nccl-tests
 * 2.19.6's format strings (src/util.cu): every row has exactly 13 fields
 * (21 with -I 1) and matches a regex anchored at both ends; the run
 * header's "# nThread ... unalign: N" line, with this run's values; one
 * "#  Rank N Group N Pid N on HOST device N [..] NAME" line per rank; the
 * "# Collective test concluded: all_reduce_perf" line after every row.
 * And the -J file as nccl-tests' tools/analyze_perf_json.py reads it:
 * version 3, config.iterations, each result's places with time, alg_bw,
 * bus_bw and nwrong, the -I 1 statistics (min <= p99 <= max, avg their
 * times' mean: the row's own time), out_of_bounds and the table's
 * average bus bandwidth. */
/* The table of an allreduce run (2 ranks, 1K to 64K by 8, -n 7 -w 1,
 * with -I `it`) read by the parsers above; its average busbw. */
static double check_nccl_table(const char *out, int it)
{
    int rows = 0, ranks = 0, heads = 0, ended = 0;
    for (const char *l = out; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
        if (*l != '#') {
            assert_false(ended); /* no row after the closing line */
            assert_int_equal(fields(l), it ? 21 : 13);
            assert_true(line_matches(l, it ? "^ *[0-9]+  +[0-9]+  +float  +sum  +-1"
                                     SIDE ITER SIDE ITER "$"
                                     : "^ *[0-9]+  +[0-9]+  +float  +sum  +-1"
                                     SIDE SIDE "$"));
            rows++;
        }
        heads += line_matches(l, "^# nThread 1 nGpus 2 minBytes 1024 maxBytes "
                              "65536 step: 8\\(factor\\) warmup iters: 1 "
                              "iters: 7 agg iters: 1 validation: 1 graph: "
                              "[0-9]+ unalign: 0$");
        ranks += line_matches(l, "^#  Rank +[0-9]+ Group +[0-9]+ Pid +[0-9]+ "
                              "on +[^ ]+ device +[0-9]+ \\[[^]]*\\] .+$");
        ended += line_matches(l, "^# Collective test concluded: "
                              "all_reduce_perf$");
    }
    assert_int_equal(rows, 3); /* 1K, 8K, 64K */
    assert_int_equal(heads, 1);
    assert_int_equal(ranks, 2);
    assert_int_equal(ended, 1);
    const char *avg = strstr(out, "# Avg bus bandwidth    : ");
    assert_non_null(avg);
    return strtod(avg + 25, NULL);
}

/* One place of a -J result, and with -I 1 its iterations. */
static void check_nccl_place(const Json *x, int pl, int it)
{
    const Json *o = jget(x, pl ? "in_place" : "out_of_place");
    assert_true(jnum(o, "time") > 0 && jnum(o, "alg_bw") > 0);
    assert_true(jnum(o, "bus_bw") > 0 && jnum(o, "nwrong") == 0);
    if (!it)
        return;
    const Json *pi = jget(x, pl ? "in_place_per_iter" : "out_of_place_per_iter");
    double mn = jnum(pi, "min_us"), mx = jnum(pi, "max_us");
    double p99 = jnum(pi, "p99_us"), mean = jnum(pi, "avg_us");
    assert_true(mn > 0 && mn <= p99 && p99 <= mx);
    assert_true(mn <= mean && mean <= mx && jnum(pi, "cv_pct") >= 0);
    const Json *t = jarr(pi, "times_us");
    assert_int_equal(t->n, 7);
    double sum = 0;
    for (size_t k = 0; k < t->n; k++)
        sum += t->kid[k].num;
    assert_rel(sum / 7, mean, 1e-4);
    assert_rel(mean, jnum(o, "time"), 1e-4); /* the row's own time */
}

/* The -J file of that run, as analyze_perf_json.py reads it. */
static void check_nccl_json(const char *path, int it, double table_avg)
{
    char *text = slurp(path);
    Json j;
    json_parse(text, &j);
    assert_int_equal(jnum(&j, "version"), 3);
    assert_int_equal(jnum(jget(&j, "config"), "iterations"), 7);
    const Json *res = jarr(&j, "results");
    assert_int_equal(res->n, 3);
    for (size_t i = 0; i < res->n; i++) {
        assert_int_equal(jnum(&res->kid[i], "size"), 1024 << (3 * i));
        for (int pl = 0; pl < 2; pl++)
            check_nccl_place(&res->kid[i], pl, it);
    }
    assert_int_equal(jnum(jget(&j, "out_of_bounds"), "count"), 0);
    assert_rel(jnum(jget(&j, "average_bus_bandwidth"), "bandwidth"),
               table_avg, 1e-4);
    json_free(&j);
    free(text);
}

static void test_nccl_parsers(void **state)
{
    (void)state;
    char dir[64];
    fresh_cache(dir, sizeof dir, 2);
    const char *json = "/tmp/collviz-test-nccl.json";
    for (int it = 0; it < 2; it++) {
        const char *args[] = {"perf", "allreduce", "-p", "2", "-b", "1K", "-e",
                              "64K", "-f", "8", "-n", "7", "-w", "1", "-I",
                              it ? "1" : "0", "-J", json, NULL};
        Ran r = run(args, 60);
        assert_int_equal(r.status, 0);
        check_nccl_json(json, it, check_nccl_table(r.out, it));
        ran_free(&r);
        unlink(json);
    }
    drop_cache(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_csv_and_json),
        cmocka_unit_test(test_table_all),
        cmocka_unit_test(test_all_types_ops_roots),
        cmocka_unit_test(test_min_bw),
        cmocka_unit_test(test_cycles_memory),
        cmocka_unit_test(test_nccl_flags),
        cmocka_unit_test(test_rank_lines),
        cmocka_unit_test(test_nccl_parsers),
        cmocka_unit_test(test_table_sendrecv_hypercube),
        cmocka_unit_test(test_backend_options),
        cmocka_unit_test(test_slowed_not_saved),
        cmocka_unit_test(test_calibrate_and_first_perf),
        cmocka_unit_test(test_model_calibrated),
        cmocka_unit_test(test_show_unsteady),
        cmocka_unit_test(test_json_nonfinite),
        cmocka_unit_test(test_relative_cache),
        cmocka_unit_test(test_host_moved_shown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
