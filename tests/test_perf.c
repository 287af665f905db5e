/* test_perf.c - the measurement engine on the threads backend (every
 * algorithm, rank counts, counts p does and does not divide, both places:
 * no wrong element, sizes, counts, busbw factors and model times as they
 * must be; a broken schedule is caught), its summaries, and the perf and
 * calibrate commands driven as programs (COLLVIZ, default build/collviz):
 * tables, CSV, JSON, exit statuses and the sentences for bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
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
#include "exec/probe.h"

/* ------------------------------------------------------------- helpers */

/* A calibration made up for the engine tests: the values are arbitrary
 * (the engine only has to carry them into the model column). */
static Calib test_calib(int p)
{
    Calib c = {.nranks = p, .alpha = 2e-6, .npoints = 2, .link = LINK_SHARED};
    char why[256];
    ExecHost h;
    if (exec_host_of("threads", p, &h, why, sizeof why))
        fail_msg("the threads backend says nothing of this machine: %s", why);
    snprintf(c.backend, sizeof c.backend, "threads");
    snprintf(c.host, sizeof c.host, "%s", h.fingerprint); /* this machine */
    c.pt[0] = (CalibPoint){1e6, 2e-11, 1e-10, 1e-11, 4e-11, 0};
    c.pt[1] = (CalibPoint){1e8, 8e-11, 2e-10, 2e-11, 5e-11, 0};
    return c;
}

static Executor *open_threads(int p)
{
    char why[256] = "";
    const ExecOps *ops = exec_find("threads", why, sizeof why);
    if (!ops)
        fail_msg("no threads backend: %s", why);
    Executor *ex = NULL;
    ExecOptions o = {0};
    if (ops->open(&ex, p, &o, why, sizeof why))
        fail_msg("cannot open threads at %d ranks: %s", p, why);
    return ex;
}

static void assert_rel(double got, double want, double tol)
{
    if (fabs(got - want) > tol * fabs(want) + 1e-300)
        fail_msg("%.9g is not %.9g", got, want);
}

/* Whether a's schedule for c has any transfer, and any between ranks. */
static void schedule_moves(const AlgoInfo *a, const CollCall *c, int *any,
                           int *remote)
{
    Schedule s;
    assert_int_equal(algo_generate(a, c, &s), CV_OK);
    *any = *remote = 0;
    for (size_t x = 0; x < s.nxfers; x++)
        *any = 1, *remote |= s.xfers[x].src != s.xfers[x].dst;
    sched_fini(&s);
}

/* Every property of one measured row. */
static void check_row(const PerfConfig *cfg, const Calib *cal, const PerfRow *r,
                      size_t count)
{
    CollCall c = cfg->call;
    c.count = count;
    assert_int_equal(r->count, count);
    assert_int_equal(r->bytes, coll_size_bytes(&c));
    for (int pl = 0; pl < PERF_PLACE_COUNT; pl++) {
        const PerfSide *s = &r->side[pl];
        if (s->wrong != 0)
            fail_msg("%s/%s p=%d count=%zu %s: %lld wrong", coll_name(c.kind),
                     r->algo->name, c.nranks, count,
                     pl ? "in place" : "out of place", s->wrong);
        assert_true(s->time_s > 0);
        assert_rel(s->algbw, (double)r->bytes / s->time_s / 1e9, 1e-9);
        assert_rel(s->busbw, s->algbw * coll_busbw_factor(c.kind, c.nranks), 1e-9);
        int any, remote;
        c.in_place = pl == PERF_IN_PLACE;
        schedule_moves(r->algo, &c, &any, &remote);
        for (int l = 0; l < LINK_COUNT; l++) {
            /* p2p: only messages cost; shared: local transfers too. */
            int moves = l == LINK_P2P ? remote : any;
            if (moves != (s->model_s[l] > 0))
                fail_msg("%s/%s p=%d count=%zu: model %g", coll_name(c.kind),
                         r->algo->name, c.nranks, count, s->model_s[l]);
            assert_true(s->model_s[l] == 0 || s->model_s[l] >= cal->alpha ||
                        !remote);
        }
    }
}

/* ------------------------------------------------------- engine sweeps */

/* Every algorithm of the registry at p ranks, counts {0, 1, p-1, p, p+1,
 * an odd larger one}, a root that is not 0 where there is one. */
static void sweep_ranks(int p, DataType t, RedOp op)
{
    Executor *ex = open_threads(p);
    Calib cal = test_calib(p);
    const size_t counts[] = {0, 1, (size_t)p - 1, (size_t)p, (size_t)p + 1, 1237};
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        PerfConfig cfg = {.call = {.kind = a->coll, .nranks = p, .dtype = t,
                                   .op = op, .root = coll_is_rooted(a->coll) ? p / 2 : 0},
                          .iters = 2, .warmup = 1, .check = 1};
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            CollCall one = cfg.call;
            one.count = 1;
            unsigned long long bytes = counts[k] * coll_size_bytes(&one);
            PerfRow row;
            char why[256] = "";
            CvError e = perf_measure(ex, &cfg, &cal, a, bytes, &row, why, sizeof why);
            if (e)
                fail_msg("%s/%s p=%d: %s (%s)", coll_name(a->coll), a->name, p,
                         cv_strerror(e), why);
            assert_ptr_equal(row.algo, a);
            check_row(&cfg, &cal, &row, counts[k]);
        }
    }
    ex->ops->close(ex);
}

static void test_every_algorithm(void **state)
{
    (void)state;
    static const int ranks[] = {1, 2, 3, 5, 8};
    for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++)
        sweep_ranks(ranks[i], DT_FLOAT, OP_SUM);
}

static void test_types_and_ops(void **state)
{
    (void)state;
    sweep_ranks(4, DT_INT32, OP_MAX);
    sweep_ranks(3, DT_HALF, OP_AVG);
    sweep_ranks(6, DT_DOUBLE, OP_PROD);
    sweep_ranks(2, DT_UINT8, OP_MIN);
}

/* An allreduce that only copies each rank's input to its output: every
 * element that other ranks should have added to is wrong. */
static CvError broken_generate(const CollCall *call, Schedule *s)
{
    CvError e = sched_init(s, call, "broken");
    if (e)
        return e;
    sched_step(s, "copy");
    for (int r = 0; r < call->nranks && !call->in_place; r++)
        sched_copy(s, r, BUF_SEND, 0, r, BUF_RECV, 0, call->count);
    return sched_end(s);
}

static void broken_cost(const CollCall *call, CostTerms *out)
{
    (void)call;
    *out = (CostTerms){0};
}

static void test_wrong_is_caught(void **state)
{
    (void)state;
    const AlgoInfo broken = {.coll = COLL_ALLREDUCE, .name = "broken",
                             .generate = broken_generate, .cost = broken_cost};
    for (int p = 2; p <= 4; p++) {
        Executor *ex = open_threads(p);
        Calib cal = test_calib(p);
        PerfConfig cfg = {.call = {.kind = COLL_ALLREDUCE, .nranks = p,
                                   .dtype = DT_INT32, .op = OP_SUM},
                          .iters = 1, .warmup = 0, .check = 2};
        PerfRow row;
        assert_int_equal(perf_measure(ex, &cfg, &cal, &broken, 4000, &row, NULL, 0),
                         CV_OK);
        for (int pl = 0; pl < PERF_PLACE_COUNT; pl++) {
            assert_true(row.side[pl].wrong > 0);
            assert_true(row.side[pl].wrong <= (long long)(p * 1000));
        }
        assert_true(perf_wrong_total(&row, 1) > 0);
        cfg.check = 0; /* -c 0: nothing is checked */
        assert_int_equal(perf_measure(ex, &cfg, &cal, &broken, 4000, &row, NULL, 0),
                         CV_OK);
        assert_int_equal(row.side[0].wrong, -1);
        assert_int_equal(row.side[1].wrong, -1);
        assert_int_equal(perf_wrong_total(&row, 1), 0);
        ex->ops->close(ex);
    }
}

/* Progress calls seen, and the row after which to cancel (0: never). */
typedef struct {
    size_t calls;     /* rows reported */
    size_t cancel_at; /* cancel after this many (0: never) */
    size_t total;     /* the total the engine announced */
} Seen;

static int count_rows(void *ctx, const PerfRow *row, size_t done, size_t total)
{
    Seen *s = ctx;
    (void)row;
    assert_int_equal(done, ++s->calls);
    s->total = total;
    return s->cancel_at && done == s->cancel_at;
}

static void test_sweep(void **state)
{
    (void)state;
    Executor *ex = open_threads(3);
    Calib cal = test_calib(3);
    PerfConfig cfg = {.call = {.kind = COLL_ALLGATHER, .nranks = 3, .dtype = DT_FLOAT},
                      .sweep = {.min = 8, .max = 1000, .factor = 3},
                      .iters = 1, .warmup = 0, .check = 1};
    /* 8 24 72 216 648: floored to whole blocks of 3 floats (12 bytes). */
    const unsigned long long want[] = {0, 24, 72, 216, 648};
    size_t n = sweep_len(&cfg.sweep);
    assert_int_equal(n, 5);
    PerfRow rows[5];
    Seen seen = {0};
    assert_int_equal(perf_sweep(ex, &cfg, &cal, algo_default(COLL_ALLGATHER), rows,
                                count_rows, &seen, NULL, 0), CV_OK);
    assert_int_equal(seen.calls, n);
    assert_int_equal(seen.total, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rows[i].bytes, want[i]);
        check_row(&cfg, &cal, &rows[i], (size_t)want[i] / 12);
    }
    cfg.sweep = (Sweep){.min = 4, .max = 40, .step = 4};
    assert_int_equal(sweep_len(&cfg.sweep), 10);
    Seen stop = {.cancel_at = 3};
    PerfRow more[10];
    assert_int_equal(perf_sweep(ex, &cfg, &cal, algo_default(COLL_ALLGATHER), more,
                                count_rows, &stop, NULL, 0), CV_ERR_CANCELLED);
    assert_int_equal(stop.calls, 3);
    ex->ops->close(ex);
}

/* --min-time: exactly `iters` timed iterations without it; with it, more
 * where they would take less (a 2-rank allreduce of 8 bytes takes
 * microseconds, far from 20 ms even under a sanitizer), every algorithm,
 * both places, and the results still right. */
static void test_min_time(void **state)
{
    (void)state;
    Executor *ex = open_threads(2);
    Calib cal = test_calib(2);
    PerfConfig cfg = {.call = {.kind = COLL_ALLREDUCE, .nranks = 2, .dtype = DT_FLOAT},
                      .sweep = {.min = 8, .max = 8, .factor = 2},
                      .iters = 1, .warmup = 1, .check = 1};
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        if (a->coll != COLL_ALLREDUCE)
            continue;
        PerfRow row;
        cfg.min_time_s = 0;
        assert_int_equal(perf_measure(ex, &cfg, &cal, a, 8, &row, NULL, 0), CV_OK);
        for (int pl = 0; pl < PERF_PLACE_COUNT; pl++)
            assert_int_equal(row.side[pl].iters, 1);
        cfg.min_time_s = 0.02;
        assert_int_equal(perf_measure(ex, &cfg, &cal, a, 8, &row, NULL, 0), CV_OK);
        for (int pl = 0; pl < PERF_PLACE_COUNT; pl++) {
            assert_true(row.side[pl].iters > 1);
            assert_true(row.side[pl].iters <= PERF_MAX_ITERS);
            assert_int_equal(row.side[pl].wrong, 0);
            assert_true(row.side[pl].time_s > 0);
        }
    }
    ex->ops->close(ex);
}

static void test_summaries(void **state)
{
    (void)state;
    static const AlgoInfo algos[3] = {{.name = "a"}, {.name = "b"}, {.name = "c"}};
    /* rows[algo * 2 + size]: two sizes, three algorithms. */
    const double meas[3][2] = {{3, 1}, {2, 5}, {4, 2}};
    const double model[3][2] = {{5, 2}, {6, 1}, {1, 3}};
    PerfRow rows[6] = {0};
    for (int a = 0; a < 3; a++)
        for (int s = 0; s < 2; s++) {
            PerfRow *r = &rows[a * 2 + s];
            r->algo = &algos[a];
            for (int pl = 0; pl < PERF_PLACE_COUNT; pl++) {
                r->side[pl] = (PerfSide){.time_s = meas[a][s], .busbw = a + s + pl,
                                         .wrong = a == 1 && pl ? 2 : (s ? -1 : 0)};
                r->side[pl].model_s[LINK_SHARED] = model[a][s];
                r->side[pl].model_s[LINK_P2P] = meas[a][s];
            }
        }
    size_t m, p;
    perf_best(rows, 3, 2, LINK_SHARED, &m, &p);
    assert_int_equal(m, 1);
    assert_int_equal(p, 2);
    perf_best(rows + 1, 3, 2, LINK_SHARED, &m, &p);
    assert_int_equal(m, 0);
    assert_int_equal(p, 1);
    perf_best(rows + 1, 3, 2, LINK_P2P, &m, &p);
    assert_int_equal(m, p);
    assert_int_equal(perf_wrong_total(rows, 6), 4);
    /* busbw sums to 2 * (0+1+1+2+2+3) + 6 * 1 = 24 over 12 sides. */
    assert_rel(perf_avg_busbw(rows, 6), 2.0, 1e-12);
    assert_rel(perf_ratio(&rows[0].side[0], LINK_SHARED), 3.0 / 5.0, 1e-12);
    PerfSide none = {.time_s = 1};
    assert_true(perf_ratio(&none, LINK_SHARED) == 0);
}

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
static const char *row_start(unsigned long long size, size_t count, int root)
{
    static char buf[128];
    snprintf(buf, sizeof buf, "%12llu  %12zu  %8s  %6s  %6d", size, count,
             "float", "sum", root);
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
        assert_int_equal(commas, 22);
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
        if (algo_at(i)->coll == COLL_ALLREDUCE)
            algos[na++] = algo_at(i);
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
            assert_int_equal(calib_predict(&cal, &s, cal.link, &want), CV_OK);
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
        {{"model", "allreduce", "-p", "4", "-B", "cuda"}, "the cuda backend is not part"},
        /* collviz before 0.1's machine keys: never read, said */
        {{"model", "allreduce", "-p", "5", "-B", "threads"},
         "calib-threads-p5.txt was saved by an older collviz; run 'collviz "
         "calibrate -B threads -p 5'"},
        {{"calibrate", "-p", "5", "-B", "threads:foo=1", "--show"},
         "the threads backend has no option 'foo'"},
    };
    write_old(dir, 5);
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
    r = run(perf, 120);
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
    assert_non_null(strstr(r.out, "# link model that fits: "));
    ran_free(&r);
    const char *quick[] = {"calibrate", "-p", "2", "--quick", NULL};
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
    c.fit_err[LINK_P2P] = INFINITY;
    c.fit_err[LINK_SHARED] = NAN;
    assert_int_equal(calib_save(&c, why, sizeof why), CV_ERR_ARG);
    c.fit_err[LINK_P2P] = 0.25;
    c.fit_err[LINK_SHARED] = 0.5;
    assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
    snprintf(json, sizeof json, "%s/perf.json", dir);
    const char *args[] = {"perf", "broadcast", "-p", "2", "-b", "64", "-e", "64",
                          "-n", "1", "-w", "0", "--json", json, NULL};
    Ran r = run(args, 60);
    assert_int_equal(r.status, 0);
    ran_free(&r);
    char *j = slurp(json);
    if (!strstr(j, "\"fit_error\": {\"p2p\": 0.2500, \"shared\": 0.5000}, ") ||
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

/* perf_host_moved: a row is flagged PERF_HOST_CROSS exactly when its
 * probe ratios and the calibration's are more than PROBE_MOVED apart,
 * PERF_HOST_SPEED when its clean times and the calibration's are more
 * than PROBE_SLOWER apart, and neither when that side was not probed. */
static void test_host_moved(void **state)
{
    (void)state;
    enum { C = PERF_HOST_CROSS, S = PERF_HOST_SPEED };
    static const struct {
        double cal[2], row[2];
        int moved;
    } ratios[] = {
        {{0, 0}, {11, 11}, 0},         /* calibration not probed */
        {{1.1, 1.0}, {0, 0}, 0},       /* row not probed */
        {{1.1, 1.0}, {1.2, 0.9}, 0},   /* one state */
        {{1.0, 1.0}, {PROBE_MOVED, 1.5}, 0}, /* exactly PROBE_MOVED */
        {{1.0, 1.0}, {PROBE_MOVED + 0.01, 1.5}, C},
        {{1.1, 1.0}, {0.62, 1.2}, 0},  /* the fast state's spread here */
        {{1.1, 1.0}, {1.2, 11.0}, C},  /* moved during the row */
        {{1.1, 1.0}, {10.5, 11.0}, C}, /* slow throughout the row */
        {{11, 10.2}, {10.5, 11.0}, 0}, /* calibrated slow, ran slow */
        {{11, 10.2}, {1.0, 1.1}, C},
        {{1.1, 11}, {1.0, 1.1}, C},    /* the calibration straddled */
        {{0, 1.1}, {0, 1.0}, 0},       /* one probe each */
        {{0, 1.1}, {11, 0}, C},
    }, cleans[] = { /* microseconds */
        {{0, 0}, {88, 88}, 0},         /* calibration without clean times */
        {{45, 46}, {0, 0}, 0},
        {{45, 46}, {43, 52}, 0},       /* the usual spread here */
        {{40, 40}, {40 * PROBE_SLOWER, 41}, 0}, /* exactly PROBE_SLOWER */
        {{40, 40}, {40 * PROBE_SLOWER + 0.1, 41}, S},
        {{45, 46}, {45, 88}, S},       /* a spell began during the row */
        {{45, 46}, {88, 87}, S},
        {{88, 87}, {45, 46}, S},       /* calibrated in a spell */
        {{88, 87}, {89, 86}, 0},
        {{30, 0}, {0, 44}, 0},         /* one probe each */
        {{30, 0}, {0, 46}, S},
    };
    for (size_t i = 0; i < sizeof ratios / sizeof ratios[0]; i++) {
        Calib c = test_calib(2);
        PerfRow r = {.probe = {ratios[i].row[0], ratios[i].row[1]}};
        c.probe[0] = ratios[i].cal[0], c.probe[1] = ratios[i].cal[1];
        if (perf_host_moved(&c, &r) != ratios[i].moved)
            fail_msg("ratio case %zu: moved %d, want %d", i,
                     perf_host_moved(&c, &r), ratios[i].moved);
    }
    for (size_t i = 0; i < sizeof cleans / sizeof cleans[0]; i++) {
        Calib c = test_calib(2);
        PerfRow r = {.probe_clean = {cleans[i].row[0] * 1e-6,
                                     cleans[i].row[1] * 1e-6}};
        c.probe_clean[0] = cleans[i].cal[0] * 1e-6;
        c.probe_clean[1] = cleans[i].cal[1] * 1e-6;
        for (int both = 0; both < 2; both++) { /* alone, and with a ratio */
            int want = cleans[i].moved | (both ? C : 0);
            c.probe[0] = both ? 1 : 0, r.probe[0] = both ? 11 : 0;
            if (perf_host_moved(&c, &r) != want)
                fail_msg("clean case %zu (%d): moved %d, want %d", i, both,
                         perf_host_moved(&c, &r), want);
        }
    }
}

/* A calibration that knows the state it measured in (Calib.state_*):
 * rows are set against that, not against its probes at both ends, one of
 * which may have fallen into another state. */
static void test_host_moved_state(void **state)
{
    (void)state;
    enum { C = PERF_HOST_CROSS, S = PERF_HOST_SPEED };
    static const struct {
        double ratio, clean_us;  /* the calibration's state */
        double row[2], row_us[2];
        int moved;
    } cases[] = {
        {1.1, 45, {1.0, 1.2}, {44, 50}, 0},
        {1.1, 45, {12, 1.2}, {44, 50}, C},
        {1.1, 45, {1.0, 1.2}, {44, 88}, S},
        {11, 45, {1.0, 1.2}, {88, 50}, C | S},
        {11, 88, {10, 12}, {89, 87}, 0},  /* calibrated slow, ran slow */
        {1.1, 45, {0, 0}, {0, 0}, 0},     /* the row not probed */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Calib c = test_calib(2);
        /* ends in another state than the calibration's minutes */
        c.probe[0] = 1.0, c.probe[1] = 13;
        c.probe_clean[0] = 45e-6, c.probe_clean[1] = 90e-6;
        c.state_ratio = cases[i].ratio;
        c.state_clean = cases[i].clean_us * 1e-6;
        c.state_probes = 500;
        PerfRow r = {.probe = {cases[i].row[0], cases[i].row[1]},
                     .probe_clean = {cases[i].row_us[0] * 1e-6,
                                     cases[i].row_us[1] * 1e-6}};
        if (perf_host_moved(&c, &r) != cases[i].moved)
            fail_msg("case %zu: moved %d, want %d", i, perf_host_moved(&c, &r),
                     cases[i].moved);
    }
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
 * threads backend's own (no spinning, nothing eager, nothing pushed) and
 * says them in its header; the results are right. */
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
        !strstr(r.out, "# Out of bounds values : 0 OK"))
        fail_msg("status %d, stdout '%s', stderr '%s'", r.status, r.out, r.err);
    ran_free(&r);
    drop_cache(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_algorithm),
        cmocka_unit_test(test_types_and_ops),
        cmocka_unit_test(test_wrong_is_caught),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_min_time),
        cmocka_unit_test(test_summaries),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_csv_and_json),
        cmocka_unit_test(test_table_all),
        cmocka_unit_test(test_backend_options),
        cmocka_unit_test(test_calibrate_and_first_perf),
        cmocka_unit_test(test_model_calibrated),
        cmocka_unit_test(test_show_unsteady),
        cmocka_unit_test(test_json_nonfinite),
        cmocka_unit_test(test_relative_cache),
        cmocka_unit_test(test_host_moved),
        cmocka_unit_test(test_host_moved_state),
        cmocka_unit_test(test_host_moved_shown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
