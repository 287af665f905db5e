/* spells.c - does this machine change its speed on its own, and does
 * collviz's probe see it when it does?
 *
 * On the 2-core development virtual machine, the time of one collective
 * moves about twofold between runs a few milliseconds apart: a reduce of
 * 1 MiB on 2 ranks takes about 20 us, and for spells of tens of
 * milliseconds to seconds about 37 us. The probe that calibrate and perf
 * take (src/probe.c) times two threads copying data another core wrote
 * once; its time doubles in the same spells. This program alternates the
 * two for a while: a probe, a timed run of the collective on the threads
 * backend (RUN_SECONDS of iterations), a probe, ... and sorts the runs by
 * the probes on either side of them: "usual" when both ran within
 * PROBE_SLOWER of the fastest probe's time, "slow" otherwise. It prints,
 * for each, the number of runs and the medians of the collective's and the
 * probes' times, then how many runs took more than PROBE_SLOWER times the
 * usual runs' median, how many of those the probes marked slow, and how
 * many more had a probe beside them in the slow cross-core state.
 *
 * usage: spells [-t SECONDS] [-c COLL] [-a ALGO] [-p RANKS] [-s BYTES]
 *   -t: how long to watch (default 10)
 *   -c, -a: the collective and algorithm (default reduce, linear)
 *   -p: ranks (default 2)
 *   -s: size in bytes, nccl-tests' meaning (default 1 MiB)
 * Exit status 2 on bad options, fewer than two usable CPUs, or a failure
 * of the backend. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "algos/algo.h"
#include "exec/exec.h"
#include "exec/probe.h"
#include "threads/probe_cross.h" /* PROBE_SECONDS */

#define RUN_SECONDS 0.02 /* one timed run of the collective */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "spells: %s\n", why);
    fprintf(stderr, "usage: spells [-t SECONDS] [-c COLL] [-a ALGO] "
                    "[-p RANKS] [-s BYTES]\n");
    return 2;
}

/* One run: the collective's seconds per iteration and the clean times of
 * the probes before and after it. */
typedef struct {
    double t, before, after; /* collective's s/iteration; probes' clean_s */
    double ratio;            /* the larger probe ratio of the two */
} Run;

/* Whether a probe on either side of run r ran slower than the fastest
 * probe by more than PROBE_SLOWER. */
static int in_spell(const Run *r, double fastest)
{
    return !probe_same_speed((const double[]){fastest, r->before}, 2) ||
           !probe_same_speed((const double[]){fastest, r->after}, 2);
}

static int fail(const char *what, Executor *ex)
{
    fprintf(stderr, "spells: %s%s%s\n", what, ex ? ": " : "",
            ex ? ex->ops->last_error(ex) : "");
    return 2;
}

int main(int argc, char **argv)
{
    double total = 10, bytes = 1 << 20;
    const char *coll = "reduce", *algo = "linear";
    int p = 2, c;
    char *end;
    while ((c = getopt(argc, argv, "t:c:a:p:s:")) != -1) {
        switch (c) {
        case 't':
            total = strtod(optarg, &end);
            if (*end || !(total > 0))
                return usage("-t wants a positive number of seconds");
            break;
        case 'c': coll = optarg; break;
        case 'a': algo = optarg; break;
        case 'p':
            p = (int)strtol(optarg, &end, 10);
            if (*end || p < 1 || p > 64)
                return usage("-p wants ranks from 1 to 64");
            break;
        case 's':
            bytes = strtod(optarg, &end);
            if (*end || !(bytes >= 8) || bytes > (1 << 30))
                return usage("-s wants bytes from 8 to 1073741824");
            break;
        default: return usage(NULL);
        }
    }
    if (optind < argc)
        return usage("no operands are taken");
    int k = coll_parse(coll);
    if (k < 0)
        return usage("-c wants a collective ('collviz list' names them)");
    const AlgoInfo *a = algo_find((CollKind)k, algo);
    if (!a)
        return usage("-a wants an algorithm of that collective");
    long long count = coll_count_for_size((CollKind)k, p, DT_FLOAT,
                                          (unsigned long long)bytes);
    if (count <= 0)
        return usage("-s wants a whole number of blocks of floats");
    if (exec_cpus() < 2) {
        fprintf(stderr, "spells: needs two CPUs to pin its probe's threads "
                        "on, and this process may use fewer\n");
        return 2;
    }

    char why[256];
    const ExecOps *ops = exec_find("threads", why, sizeof why);
    Executor *ex = NULL;
    if (!ops || ops->open(&ex, p, &(ExecOptions){0}, why, sizeof why)) {
        fprintf(stderr, "spells: %s\n", why);
        return 2;
    }
    CollCall call = {.kind = (CollKind)k, .nranks = p, .count = (size_t)count,
                     .dtype = DT_FLOAT, .op = OP_SUM};
    Schedule s;
    if (algo_generate(a, &call, &s))
        return fail("cannot generate the schedule", NULL);
    ExecTiming t = {0};
    if (ops->load(ex, &s) || ops->run(ex, 3, 1, &t))
        return fail("cannot run the collective", ex);
    int iters = (int)(RUN_SECONDS / (t.iter_s > 1e-7 ? t.iter_s : 1e-7)) + 1;

    size_t cap = 1024, n = 0;
    Run *runs = malloc(cap * sizeof *runs);
    double fastest = 0, start = now_s();
    ProbeResult pb = exec_probe(ex), pa;
    while (runs && now_s() - start < total) {
        if (ops->run(ex, 1, iters, &t))
            return fail("a run failed", ex);
        pa = exec_probe(ex);
        double before = pb.clean_s, after = pa.clean_s;
        if (!(before > 0) || !(after > 0))
            return fail("the probe failed", NULL);
        if (n == cap) {
            Run *more = realloc(runs, 2 * cap * sizeof *runs);
            if (!more)
                break;
            runs = more, cap *= 2;
        }
        runs[n++] = (Run){t.iter_s, before, after,
                          pb.ratio > pa.ratio ? pb.ratio : pa.ratio};
        fastest = fastest > 0 && fastest < before ? fastest : before;
        fastest = fastest < after ? fastest : after;
        pb = pa;
    }
    if (!runs || !n)
        return fail("out of memory", NULL);

    /* [0]: usual, [1]: slow; the collective's times and the probes' */
    double *tv[2], *pv[2];
    size_t tn[2] = {0}, pn[2] = {0};
    for (int g = 0; g < 2; g++) {
        tv[g] = malloc(n * sizeof(double));
        pv[g] = malloc(2 * n * sizeof(double));
        if (!tv[g] || !pv[g])
            return fail("out of memory", NULL);
    }
    for (size_t i = 0; i < n; i++) {
        int slow = in_spell(&runs[i], fastest);
        tv[slow][tn[slow]++] = runs[i].t;
        pv[slow][pn[slow]++] = runs[i].before;
        pv[slow][pn[slow]++] = runs[i].after;
    }
    double usual = probe_median(tv[0], tn[0]);
    size_t long_runs = 0, long_in_spell = 0, long_cross = 0;
    for (size_t i = 0; i < n; i++) {
        int slow = in_spell(&runs[i], fastest);
        if (usual > 0 && runs[i].t > PROBE_SLOWER * usual) {
            long_runs++, long_in_spell += slow;
            long_cross += !slow && runs[i].ratio > PROBE_MOVED;
        }
    }
    printf("# spells: %s (%s) on %d ranks, %.0f B, runs of %d iterations "
           "between %.0f ms probes, %.0f s\n", coll, a->name, p, bytes, iters,
           PROBE_SECONDS * 1e3, total);
    printf("# probes: slow when their copy of data written once took more "
           "than %.1f times the fastest's %.1f us\n", PROBE_SLOWER,
           fastest * 1e6);
    printf("# %-6s %6s %16s %16s\n", "probes", "runs", "collective(us)",
           "probe(us)");
    static const char *const name[2] = {"usual", "slow"};
    for (int g = 0; g < 2; g++)
        printf("  %-6s %6zu %16.2f %16.1f\n", name[g], tn[g],
               probe_median(tv[g], tn[g]) * 1e6,
               probe_median(pv[g], pn[g]) * 1e6);
    printf("# runs beyond %.1f times the usual runs' median: %zu; %zu of them "
           "between slow probes,\n#   %zu more beside a probe in the slow "
           "cross-core state (ratio above %.0f)\n", PROBE_SLOWER, long_runs,
           long_in_spell, long_cross, PROBE_MOVED);
    for (int g = 0; g < 2; g++)
        free(tv[g]), free(pv[g]);
    free(runs);
    sched_fini(&s);
    ops->close(ex);
    return 0;
}
