/* test_exec_mpi.c - the mpi backend under mpirun: the correctness sweep
 * at 1 to 4 processes (tests/mpi/sweep.c: every collective x algorithm x
 * datatype x op, in and out of place, stepped, timed and MPI's own), perf
 * with MPI's own row, the TUI's scripted stepping on rank 0, and the
 * sentences and statuses of launching it wrong and of a process that
 * dies or hangs; and that the native row times MPI's collective alone.
 * Skipped, with the reason, where collviz-mpi was not built or mpirun is
 * missing. One mpirun per test: each costs about a second on a small
 * machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/calib.h"
#include "exec/exec.h"
#include "measure/calib.h"

/* (--bind-to none: a rank bound to a core that other work also takes
 * waits there while the other core idles: 20 times as long) */
#define MPIRUN "mpirun --bind-to none --mca btl self,vader,tcp -np "
/* without mpirun's own reports */
#define MPIRUNQ "mpirun -q --bind-to none --mca btl self,vader,tcp -np "

/* What one shell command gave. */
typedef struct {
    int rc;          /* exit status */
    double secs;     /* how long it ran */
    char out[65536]; /* stdout, cut */
    char err[65536]; /* stderr, cut */
} Run;

static void slurp_into(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
}

/* The build's folder: that of $COLLVIZ (scripts/run-tests.sh sets it),
 * else build. */
static const char *build_dir(void)
{
    static char dir[1024];
    const char *bin = getenv("COLLVIZ");
    const char *slash = bin ? strrchr(bin, '/') : NULL;
    if (!slash)
        return "build";
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - bin), bin);
    return dir;
}

/* A file of the build ("collviz-mpi"). */
static int have(const char *name)
{
    char path[1100];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", build_dir(), name);
    return !stat(path, &st);
}

/* Run `cmd` in sh with root allowed and oversubscription, as CI does, $B
 * the build's folder and $CV_OUT the file its output goes to. The jobs
 * have more processes than this machine has cores: a process that waits
 * for a message yields its core (mpi_yield_when_idle) instead of spinning
 * through the time slice the sender needs (a sweep at 4 ranks on 2 cores
 * took 36 times as long). */
static void sh(Run *r, const char *cmd)
{
    char line[4096];
    struct timespec t0, t1;
    /* Under ASan, Open MPI's own allocations held until exit (through
     * plugins the leak checker cannot name) are not ours: no leak check
     * in the job's processes; every other check stays. */
    snprintf(line, sizeof line, "B='%s'; CV_OUT=/tmp/collviz-mpi-test-%d.out; "
             "export B CV_OUT OMPI_ALLOW_RUN_AS_ROOT=1 "
             "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
             "OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1 "
             "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:detect_leaks=0\"; { %s\n} "
             ">\"$CV_OUT\" 2>/tmp/collviz-mpi-test-%d.err </dev/null",
             build_dir(), (int)getpid(), cmd, (int)getpid());
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int st = system(line);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r->rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r->secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
    char path[64];
    snprintf(path, sizeof path, "/tmp/collviz-mpi-test-%d.out", (int)getpid());
    slurp_into(path, r->out, sizeof r->out);
    unlink(path);
    snprintf(path, sizeof path, "/tmp/collviz-mpi-test-%d.err", (int)getpid());
    slurp_into(path, r->err, sizeof r->err);
    unlink(path);
}

/* Say why on stderr, then skip. */
static void skip_because(const char *why)
{
    fprintf(stderr, "test_exec_mpi: skipped: %s\n", why);
    skip();
}

/* Skip (saying why) where the backend cannot be tested. */
static void need_mpi(void)
{
    if (!have("collviz-mpi") || !have("tests/mpi_sweep"))
        skip_because("collviz-mpi was not built (MPI=0, or no mpicc)");
    if (system("command -v mpirun >/dev/null 2>&1"))
        skip_because("mpirun is not installed");
}

static void fail_run(const Run *r, const char *why)
{
    /* stderr first: cmocka cuts a long message */
    fail_msg("%s (status %d after %.1f s)\nstderr:\n%s\nstdout:\n%s", why,
             r->rc, r->secs, r->err, r->out);
}

/* ------------------------------------------------------------ the sweep */

/* The sweep at p ranks; mode "" or "big" (tests/mpi/sweep.c). */
static void sweep(int p, const char *mode)
{
    static Run r;
    char cmd[256];
    need_mpi();
    snprintf(cmd, sizeof cmd, MPIRUN "%d $B/tests/mpi_sweep %d %s", p, p, mode);
    sh(&r, cmd);
    char want[64];
    snprintf(want, sizeof want, "mpi sweep p=%d: ", p);
    if (r.rc || !strstr(r.out, want) || !strstr(r.out, " 0 wrong, 0 failed") ||
        strstr(r.out, " 0 cases"))
        fail_run(&r, "the sweep found wrong elements or failed");
}

static void test_sweep_p1(void **s) { (void)s; sweep(1, ""); }
static void test_sweep_p2(void **s) { (void)s; sweep(2, ""); }
static void test_sweep_p3(void **s) { (void)s; sweep(3, ""); }
static void test_sweep_p4(void **s) { (void)s; sweep(4, ""); }

/* ------------------------------------------------------- perf and the TUI */

/* A temporary XDG_CACHE_HOME with a made-up calibration of mpi at p
 * ranks on this machine as the job names it (one host), so that perf
 * does not calibrate first. */
static void made_up_calib(char *dir, size_t len, int p)
{
    char host[64] = "";
    snprintf(dir, len, "/tmp/collviz-test-mpi-XXXXXX");
    assert_non_null(mkdtemp(dir));
    setenv("XDG_CACHE_HOME", dir, 1);
    gethostname(host, sizeof host - 1);
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    Calib c = {.nranks = p, .alpha = 2e-6, .npoints = 2, .machine = MACHINE_FULL,
               .cores = p < cpus ? p : cpus};
    snprintf(c.backend, sizeof c.backend, "mpi");
    snprintf(c.host, sizeof c.host, "%s x%d (%d CPUs)", host, p, cpus);
    c.pt[0] = (CalibPoint){1e6, 2e-11, 1e-10, 1e-11, 4e-11, 0, 0};
    c.pt[1] = (CalibPoint){1e8, 8e-11, 2e-10, 2e-11, 5e-11, 0, 0};
    char why[512];
    assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
}

/* perf -a all on the mpi backend: every algorithm and MPI's own row,
 * nothing wrong, the model column from the saved calibration. */
static void test_perf_native_row(void **state)
{
    static Run r;
    char dir[64];
    (void)state;
    need_mpi();
    made_up_calib(dir, sizeof dir, 3);
    sh(&r, MPIRUN "3 $B/collviz-mpi perf allreduce -a all -B mpi -p 3 "
           "-b 8 -e 4K -f 512 -n 3 -w 1 -d int32");
    if (r.rc || !strstr(r.out, "# mpi: the library's own allreduce") ||
        !strstr(r.out, "lib(us)") || strstr(r.out, "FAILED") ||
        strstr(r.err, "calibrating"))
        fail_run(&r, "perf -B mpi -a all did not give MPI's row cleanly");
    /* nccl-tests' rank lines: each rank its own process on this host */
    long pid[3] = {0};
    for (int k = 0; k < 3; k++) {
        char want[64], host[256] = "", on[300];
        snprintf(want, sizeof want, "#  Rank %2d Group  0 Pid ", k);
        const char *l = strstr(r.out, want);
        gethostname(host, sizeof host - 1); /* one rank a process: its 0th */
        snprintf(on, sizeof on, " on %10s device  0 [cpu] one of ", host);
        if (!l || !(pid[k] = strtol(l + strlen(want), NULL, 10)) ||
            !strstr(l, on) || strstr(l, on) > strchr(l, '\n'))
            fail_run(&r, "perf -B mpi: no rank line of its process on this host");
    }
    if (pid[0] == pid[1] || pid[1] == pid[2] || pid[0] == pid[2])
        fail_run(&r, "perf -B mpi: two ranks' lines name one process");
    if (!strstr(r.out, "# nThread 1 nGpus 1 minBytes 8 ")) /* a rank each */
        fail_run(&r, "perf -B mpi: nccl-tests' nGpus is not 1 rank a process");
    /* -u 1: every rank's buffers one element past their start, results
       right for a type of one byte and one of eight */
    sh(&r, MPIRUN "3 $B/collviz-mpi perf allreduce -a all -B mpi -p 3 -u 1 "
           "-b 8 -e 4K -f 512 -n 2 -w 0 -d int8");
    if (r.rc || !strstr(r.out, "# Out of bounds values : 0 OK") ||
        !strstr(r.out, " graph: 0 unalign: 1\n"))
        fail_run(&r, "perf -B mpi -u 1 (int8) was not right");
    sh(&r, MPIRUN "3 $B/collviz-mpi perf reduce -a all -B mpi -p 3 -u 1 "
           "-b 24 -e 24K -f 1024 -n 2 -w 0 -d double");
    if (r.rc || strstr(r.out, "FAILED"))
        fail_run(&r, "perf -B mpi -u 1 (double) was not right");
    /* -a mpi: MPI's own alone */
    sh(&r, MPIRUN "3 $B/collviz-mpi perf gather -r 2 -a mpi -B mpi -p 3 --csv "
           "-b 8 -e 64 -n 2 -w 0 -d half");
    if (r.rc || !strstr(r.out, "\nmpi,6,") || strstr(r.out, "\nlinear,") ||
        r.err[0])
        fail_run(&r, "perf --csv -a mpi -B mpi is not MPI's row alone");
    /* -I 1: each iteration timed inside the loop that times the row (the
       slowest rank's end of each), the row's time their mean: between
       their min and max (printed to 0.01) */
    sh(&r, MPIRUN "3 $B/collviz-mpi perf allreduce -B mpi -p 3 -b 4K -e 4K "
           "-n 6 -w 1 -I 1");
    const char *row = strstr(r.out, "\n        4096  ");
    double v[8];
    if (r.rc || !strstr(r.out, "# Per-Iteration Report: each iteration inside "
                        "the timed loop") || !row ||
        sscanf(row, "%*s %*s %*s %*s %*s %lf %lf %lf %lf %lf %lf %lf %lf",
               &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8 ||
        !(v[4] <= v[0] + 0.01 && v[0] <= v[5] + 0.01 && v[4] <= v[6]))
        fail_run(&r, "perf -B mpi -I 1: not each iteration of the row's loop");
    /* under mpirun without -B, the job's ranks are the backend (not
       threads of rank 0 on its one core) */
    sh(&r, MPIRUN "3 $B/collviz-mpi perf allreduce -p 3 -b 64 -e 64 -n 2 "
           "-w 0");
    if (r.rc || !strstr(r.out, "backend mpi, 3 ranks") ||
        strstr(r.out, "backend threads"))
        fail_run(&r, "perf under mpirun without -B did not run on mpi");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* The native row's timed loop is MPI's collective back to back and
 * nothing else (tests/mpi/loop_trace.c, by the calls every process
 * makes, not by their times): every kind, in and out of place, at 2 and
 * 3 ranks (a root other than 0). */
static void test_native_loop_is_the_collective(void **state)
{
    static Run r;
    (void)state;
    need_mpi();
    if (!have("tests/mpi_loop_trace"))
        skip_because("tests/mpi_loop_trace was not built");
    for (int p = 2; p <= 3; p++) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, MPIRUN "%d $B/tests/mpi_loop_trace", p);
        sh(&r, cmd);
        if (r.rc || !strstr(r.out, "windows checked") ||
            strstr(r.out, ": 0 windows") || strstr(r.err, "loop_trace:"))
            fail_run(&r, "the native row's timed loop holds more than MPI's "
                     "collective");
    }
}

/* Field k (1-based) of the CSV line at `line`, or NULL. */
static const char *csv_field(const char *line, int k)
{
    for (int f = 1; line && f < k; f++) {
        line = strpbrk(line, ",\n");
        line = line && *line == ',' ? line + 1 : NULL;
    }
    return line;
}

/* Reduces of 1 MiB and more travel in pieces, each reduced as it
 * arrives (src/mpi/rank.c): every reducing collective and algorithm at 3
 * ranks, operands that are not a whole number of pieces, elements of 1,
 * 2, 4 and 8 bytes, in and out of place, nothing wrong: perf's checks
 * (stepped) and the big sweep (stepped and timed). */
static void test_reduces_in_pieces(void **state)
{
    /* (perf's path end to end, checked and timed once; the sweep below
       takes the types and ops) */
    static const char *const runs[] = {
        "reduce -d int32 -b 4000008 -e 4000008",
        "reducescatter -d double -b 7200000 -e 7200000",
    };
    static Run r;
    char dir[64], cmd[256];
    (void)state;
    need_mpi();
    made_up_calib(dir, sizeof dir, 3);
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        snprintf(cmd, sizeof cmd, MPIRUN "3 $B/collviz-mpi perf %s -a all "
                 "-B mpi -p 3 -n 1 -w 0 --csv", runs[i]);
        sh(&r, cmd);
        /* every row's #wrong out of and in place: fields 10 and 14 */
        int rows = 0, bad = 0;
        for (const char *l = strchr(r.out, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
            const char *f = csv_field(l + 1, 10), *g = csv_field(l + 1, 14);
            rows++;
            bad += !f || !g || atoi(f) != 0 || atoi(g) != 0;
        }
        if (r.rc || rows < 3 || bad || !strstr(r.out, "\nmpi,"))
            fail_run(&r, "a reduce in pieces went wrong");
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    /* stepped, and in a timed run, whose copy-ins are fused with the
     * reduces that follow them (src/mpi/rank.c) */
    sweep(3, "big");
}

/* calibrate -B mpi measures between the job's processes and saves the
 * calibration under the job's fingerprint (its host, ranks and CPUs) and
 * rank count; --show finds it in the same job shape and not in another;
 * perf's model line then uses it without calibrating first. */
static void test_calibrate(void **state)
{
    static Run r;
    char dir[64], host[64] = "", fp[128];
    (void)state;
    need_mpi();
    snprintf(dir, sizeof dir, "/tmp/collviz-test-mpi-XXXXXX");
    assert_non_null(mkdtemp(dir));
    setenv("XDG_CACHE_HOME", dir, 1);
    gethostname(host, sizeof host - 1);
    snprintf(fp, sizeof fp, "%s x2 (%d CPUs)", host,
             (int)sysconf(_SC_NPROCESSORS_ONLN));
    /* (working sets of 1 and 8 MB: two points, as many as a fit needs) */
    sh(&r, MPIRUN "2 $B/collviz-mpi calibrate -B mpi -p 2 --quick -e 8M");
    if (r.rc || !strstr(r.out, "alpha") || !strstr(r.out, fp))
        fail_run(&r, "calibrate -B mpi did not measure the job");
    sh(&r, "ls \"$XDG_CACHE_HOME\"/collviz/ | grep -c mpi");
    if (r.rc || atoi(r.out) != 1)
        fail_run(&r, "calibrate -B mpi did not save one calibration");
    sh(&r, MPIRUN "2 $B/collviz-mpi calibrate -B mpi -p 2 --show");
    if (r.rc || !strstr(r.out, "alpha") || !strstr(r.out, fp))
        fail_run(&r, "calibrate --show did not find the job's calibration");
    /* another rank count is another calibration */
    sh(&r, MPIRUN "3 $B/collviz-mpi calibrate -B mpi -p 3 --show");
    if (r.rc != 1 || !strstr(r.err, "no usable calibration of mpi at 3 ranks"))
        fail_run(&r, "a calibration at 2 ranks served 3");
    sh(&r, MPIRUN "2 $B/collviz-mpi perf reduce -a all -B mpi -p 2 -b 1K "
           "-e 1K -n 2 -w 0 --csv");
    /* the linear row's model_us, the 15th field */
    const char *row = strstr(r.out, "\nlinear,");
    row = row ? csv_field(row + 1, 15) : NULL;
    if (r.rc || r.err[0] || !row || !(atof(row) > 0))
        fail_run(&r, "perf -B mpi did not use the saved calibration");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* The TUI's scripted mode on rank 0 while the others serve: stepping
 * checks every process's buffers against the symbolic state. */
static void test_tui_script(void **state)
{
    static Run r;
    char dir[64];
    (void)state;
    need_mpi();
    made_up_calib(dir, sizeof dir, 4);
    FILE *f = fopen("/tmp/collviz-mpi-test-tui.script", "w");
    assert_non_null(f);
    fputs("Right Right Right Right Right Right dump\n", f);
    fclose(f);
    sh(&r, MPIRUN "4 $B/collviz-mpi tui allreduce -a ring -p 4 -B mpi "
           "--script /tmp/collviz-mpi-test-tui.script --screen 100x30 --dump");
    if (r.rc || !strstr(r.out, "| mpi") || !strstr(r.out, "real = expected") ||
        !strstr(r.out, "step 6 of 7"))
        fail_run(&r, "the TUI did not step on the mpi backend");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* ----------------------------------------------------------- launching */

/* One sentence on stderr, status 2. */
static void refused(const char *cmd, const char *words)
{
    static Run r;
    sh(&r, cmd);
    if (r.rc != 2 || !strstr(r.err, words) || r.out[0])
        fail_run(&r, "not refused with one sentence and status 2");
}

static void test_launch_sentences(void **state)
{
    (void)state;
    if (have("collviz"))
        refused("$B/collviz perf allreduce -B mpi -p 2",
                have("collviz-mpi") ? "mpirun -np N collviz-mpi"
                                          : "built without MPI");
    need_mpi();
    refused("$B/collviz-mpi perf allreduce -B mpi -p 2",
            "mpirun -np N collviz-mpi");
    refused(MPIRUN "2 $B/collviz-mpi perf allreduce -B mpi -p 3",
            "mpirun started 2 but 3 ranks were asked for");
    refused(MPIRUN "2 $B/collviz-mpi perf allreduce -B mpi:timeout=0 -p 2",
            "timeout takes a whole number of seconds");
}

/* stderr's lines. */
static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* stderr without Open MPI's own "[host:pid] Read -1, expected N, errno
 * = 3" lines: its shared-memory transport prints one, in the surviving
 * process, when the peer it was copying from dies in the middle of a copy
 * (a race with the fault these tests inject; collviz cannot silence it
 * without turning that transport's single-copy path off). */
static void without_vader_reads(const char *err, char *out, size_t len)
{
    size_t n = 0;
    for (const char *l = err; *l;) {
        const char *end = strchr(l, '\n');
        size_t k = end ? (size_t)(end - l) + 1 : strlen(l);
        bool vader = l[0] == '[' && strstr(l, "] Read -1, expected ") &&
                     strstr(l, "] Read -1, expected ") < l + k;
        if (!vader && n + k < len) {
            memcpy(out + n, l, k);
            n += k;
        }
        l += k;
    }
    out[n] = '\0';
}

/* Whether a run ended with status 1 within a bounded time and one
 * sentence on stderr (mpirun -q: without its own report) that says want. */
static void one_sentence(const Run *r, const char *want, const char *what)
{
    static char err[sizeof r->err];
    without_vader_reads(r->err, err, sizeof err);
    if (r->rc != 1 || r->secs > 60 || lines(err) != 1 ||
        strncmp(err, "collviz: ", 9) || !strstr(err, want))
        fail_run(r, what);
}

/* A long run of rank 0 (1 MiB for 60 s: it outlasts the start before the
 * fault however slow the machine), and the same command line in the
 * other process. */
#define LONG_RUN "$B/collviz-mpi perf allreduce -a ring -p 2 -b 1M -e 1M " \
                 "--min-time 60 -B mpi"
/* Wait (in a process of the job) until rank 0 measures: its table's head,
 * whose rank lines come once every process has started MPI, is in the
 * job's output (sh: $CV_OUT), polled for up to 60 s, then a second more
 * for its check run to end and its timed loop to begin. Exit 4: the head
 * never came. */
#define MEASURING "n=0; until grep -q \"^#  Rank  1 \" \"$CV_OUT\"; do " \
                  "[ $n -lt 600 ] || exit 4; n=$((n+1)); sleep 0.1; done; sleep 1; "
/* A process of the job (a shell that starts the keeper) whose working
 * child, once rank 0 measures, is sent SIG. The keeper runs in a
 * session of its own, which mpirun's signals to the shell's group
 * (SIGCONT first) do not reach, so that a stopped child stays stopped;
 * the shell kills the keeper when mpirun ends the job, and the child dies
 * with it. Exit 3: there was no child to send it to. */
#define HIT(SIG, CMD) "sh -c 'setsid " CMD " & k=$!; trap \"kill -KILL $k\" TERM; " \
                      MEASURING "pkill -" SIG " -P $k || exit 3; wait $k'"
/* mpirun, ended after 2 minutes whatever happens */
#define JOB "timeout -s KILL 120 " MPIRUNQ
/* Whatever a failed case left of its job. */
static void end_long_runs(void)
{
    static Run r;
    sh(&r, "pkill -KILL -f -- '--min-time 6[0] -B mp[i]'; true");
}

/* A process that dies, or hangs, while rank 0 measures: the run ends
 * within a bounded time with status 1 and one sentence from rank 0,
 * whichever process it was and however it died. */
static void test_rank_dies(void **state)
{
    static Run r;
    char dir[64];
    (void)state;
    need_mpi();
    if (system("{ command -v pkill && command -v pgrep && command -v setsid "
               "&& command -v timeout; } >/dev/null") != 0)
        skip_because("pkill, pgrep, setsid or timeout is missing (procps, "
                      "util-linux, coreutils)");
    made_up_calib(dir, sizeof dir, 2);
    sh(&r, JOB "1 " LONG_RUN ":timeout=5 : -np 1 " HIT("KILL", LONG_RUN));
    end_long_runs();
    one_sentence(&r, "another of its processes died",
                 "rank 1 killed: not status 1 and one sentence");
    sh(&r, JOB "1 " LONG_RUN ":timeout=5 : -np 1 " HIT("TERM", LONG_RUN));
    end_long_runs();
    one_sentence(&r, "another of its processes died",
                 "rank 1 terminated: not status 1 and one sentence");
    /* (under AddressSanitizer, its own report of a SIGSEGV off: the crash
     * is what is tested, not the sanitizer) */
    sh(&r, "ASAN_OPTIONS=\"$ASAN_OPTIONS:handle_segv=0\" " JOB "1 "
           HIT("SEGV", LONG_RUN ":timeout=5") " : -np 1 " LONG_RUN);
    end_long_runs();
    one_sentence(&r, "rank 0 was ended by signal 11",
                 "rank 0 crashed: not status 1 and one sentence");
    sh(&r, JOB "1 " LONG_RUN ":timeout=2 : -np 1 " HIT("STOP", LONG_RUN));
    end_long_runs();
    one_sentence(&r, "made no progress for 2 s",
                 "a hung process did not end the run with status 1");
    /* the keeper itself killed (kill -9 of the process mpirun started), in
     * a session of its own, where no signal to a process group reaches its
     * child: mpirun reports the keeper's 137, rank 0 says its sentence,
     * and nothing of the job is left running */
    sh(&r, JOB "1 " LONG_RUN ":timeout=5 : -np 1 sh -c 'setsid " LONG_RUN
           " -w 7 & k=$!; " MEASURING "pgrep -P $k >/dev/null || exit 3; "
           "kill -KILL $k; wait $k 2>/dev/null'; rc=$?; sleep 1; "
           "! pgrep -ax collviz-mpi | grep -q -- '-B mpi -w 7' || exit 9; "
           "exit $rc");
    end_long_runs();
    static char err[sizeof r.err];
    without_vader_reads(r.err, err, sizeof err);
    if (r.rc != 137 || r.secs > 60 || lines(err) != 1 ||
        !strstr(err, "another of its processes died"))
        fail_run(&r, "a killed keeper: not mpirun's 137 and one sentence, "
                     "or a process of the job left running (status 9)");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* An optional argument runs only the tests matching it ("test_rank*"). */
int main(int argc, char **argv)
{
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_p1),
        cmocka_unit_test(test_sweep_p2),
        cmocka_unit_test(test_sweep_p3),
        cmocka_unit_test(test_sweep_p4),
        cmocka_unit_test(test_perf_native_row),
        cmocka_unit_test(test_native_loop_is_the_collective),
        cmocka_unit_test(test_reduces_in_pieces),
        cmocka_unit_test(test_calibrate),
        cmocka_unit_test(test_tui_script),
        cmocka_unit_test(test_launch_sentences),
        cmocka_unit_test(test_rank_dies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
