/* cmd_perf.c - `collviz perf`: nccl-tests' table for collviz's schedules
 * on a backend, with the calibrated model's time beside each measurement,
 * CSV or JSON on request, and with -a all a summary of which algorithm was
 * fastest against the model's choice. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cmd/cmd.h"
#include "cmd/perf_cmd.h"
#include "scene/scene_opts.h"
#include "scene/spec.h"
#include "store/store.h"
#include "measure/perf.h"
#include "exec/mono.h"

/* ------------------------------------------------------------- options */

static const CliOpt opts[] = {
    {'a', "algo", "ALGO|all|LIB", "algorithm; all: the collective's every algorithm, and the backend's library's own collective where it has one (nccl, mpi); LIB: that alone (default: the collective's default)"},
    CLI_OPT_RANKS,
    {'B', "backend", "NAME[:OPTS]", "backend (default threads); OPTS: its options, key=value,... (threads: spin_us, eager_bytes, push_bytes; mpi, in collviz-mpi under mpirun: timeout)"},
    {'b', "minbytes", "MIN", "smallest size of the sweep (default 8; 0: one row of the empty collective)"},
    {'e', "maxbytes", "MAX", "largest size of the sweep (default 64M)"},
    CLI_OPT_FACTOR,
    CLI_OPT_STEP,
    {'n', "iters", "ITERS", "timed iterations per size (default 20)"},
    {'w', "warmup", "WARMUP", "untimed iterations before them (default 5)"},
    {0, "min-time", "SECONDS", "time runs of at least SECONDS: more iterations where ITERS take less (default 0)"},
    {'c', "check", "CHECK", "checked runs per size, 0 for none (default 1)"},
    {'d', "dtype", "TYPE|all", "datatype (default float); all: every type in turn, in one table"},
    {'o', "op", "OP|all", "reduction op: sum, prod, min, max, avg (default sum); all: every op in turn"},
    {'r', "root", "ROOT|all", "root rank of broadcast, reduce, scatter, gather (default 0); all: every rank in turn"},
    {'N', "run-cycles", "CYCLES", "run the whole sweep CYCLES times, each printed (default 1; 0: until interrupted), as nccl-tests' -N"},
    {'I', "iter-stats", NULL, "time every iteration on its own and print, under each row, their min, max, 99th percentile and coefficient of variation (also in the JSON)"},
    {'M', "memory-report", NULL, "say in each table's header how much memory the buffers of all ranks take at the largest size"},
    {'m', "agg-iters", "COUNT", "collectives per timed iteration, run back to back in one call (default 1); times are per collective, as nccl-tests' -m"},
    {'z', "blocking", "0|1", "1: every iteration its own call, waited for before the next (nccl-tests' -z); 0: the iterations back to back (default)"},
    {'C', "report-cputime", "0|1", "1: the time columns are the host's clock around the timed calls, per collective (cputime); algbw and busbw stay the backend's time (nccl-tests' -C)"},
    {'u', "unalign", "ELEMENTS", "every rank's buffers start ELEMENTS elements past their aligned start, to time the unaligned paths (default 0; nccl-tests' -u)"},
    {'S', "report-timestamps", "0|1", "1: each row ends with the time it was measured, YYYY-MM-DD hh:mm:ss local time (nccl-tests' -S)"},
    {0, "min-bw", "GBPS", "fail (exit 1, FAILED in the footer) where a table's average busbw is below 90% of GBPS, as nccl-tests does with NCCL_TESTS_MIN_BW, which is read where this is not given"},
    {0, "json", "FILE", "also write the results to FILE as JSON"},
    {0, "csv", NULL, "print CSV instead of the table"},
    {'T', "topo", "MACHINE", "the model column on MACHINE, a what-if, instead of this machine's calibration (see 'collviz topo --help')"},
    CLI_OPT_HELP,
};
enum { O_ALGO, O_RANKS, O_BACKEND, O_MIN, O_MAX, O_FACTOR, O_STEP, O_ITERS,
       O_WARMUP, O_MIN_TIME, O_CHECK, O_DTYPE, O_OP, O_ROOT, O_CYCLES,
       O_STATS, O_MEMORY, O_AGG, O_BLOCKING, O_CPUTIME, O_UNALIGN, O_STAMPS, O_MIN_BW, O_JSON, O_CSV, O_TOPO, O_HELP };

static const CliCmd cmd = {
    .name = "perf",
    .usage = "perf COLL [-a ALGO|all|LIB] [-p RANKS] [-B NAME[:OPTS]] [-b MIN] [-e MAX]\n"
             "       [-f FACTOR | -i STEP] [-n ITERS] [-w WARMUP] [--min-time SECONDS]\n"
             "       [-c CHECK] [-d TYPE|all] [-o OP|all] [-r ROOT|all] [-N CYCLES]\n"
             "       [-I] [-M] [-m COUNT] [-z 0|1] [-C 0|1] [-u ELEMENTS] [-S 0|1]\n"
             "       [--min-bw GBPS]"
             " [--json FILE] [--csv] [-T MACHINE]",
    .about = "Measure a collective's schedules on a backend the way nccl-tests "
             "does: for every\nsize, out of place and in place, the time per "
             "iteration, algbw, busbw and the\nwrong elements; beside them the "
             "time the calibrated model predicts and the\nratio measured/model "
             "(out of place). Ranks default to the CPUs collviz may run on.\nSizes "
             "run while the machine was not as calibrated (a probe between sizes:\n"
             "its cross-core reads or its speed) are flagged: '# Host moved' in "
             "the footer,\nhost_moved in the CSV and JSON (collviz(1)).\nSizes are "
             "rounded down to whole blocks and none is measured twice.\n"
             "sendrecv has no in-place form: its in-place columns read N/A.\n"
             "Exit status 1 when any element is wrong, or an average busbw is "
             "below --min-bw.\nThe options are nccl-tests' where nccl-tests "
             "has them (-i is its step, not\nOSU's iterations); their long "
             "names are nccl-tests' too, with '_' or '-'.\ncollviz's timed "
             "calls return when the collective is done, so -C's cputime\n"
             "includes the wait that nccl-tests' leaves out without -z 1.",
    .opts = opts,
    .nopts = sizeof opts / sizeof opts[0],
    .max_pos = 1,
};

/* A whole number in [min, max] for option `what` (cli_parse_int). */
static int parse_int(const char *what, const char *s, int min, int max,
                     int *out, CliErr *e)
{
    long v;
    if (cli_parse_int(what, s, min, max, &v, e))
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_counts(const CliArgs *a, PerfConfig *c, CliErr *e)
{
    c->iters = 20, c->warmup = 5, c->check = 1;
    return (a->val[O_ITERS] &&
            parse_int("-n", a->val[O_ITERS], 1, PERF_MAX_ITERS, &c->iters, e)) ||
           (a->val[O_WARMUP] &&
            parse_int("-w", a->val[O_WARMUP], 0, PERF_MAX_ITERS, &c->warmup, e)) ||
           (a->val[O_MIN_TIME] &&
            cli_parse_seconds("--min-time", a->val[O_MIN_TIME],
                              PERF_MAX_MIN_TIME, &c->min_time_s, e)) ||
           (a->val[O_CHECK] &&
            parse_int("-c", a->val[O_CHECK], 0, 1000, &c->check, e));
}

static int parse_perf(const CliArgs *a, PerfArgs *pa, CliErr *e)
{
    /* -d all, -o all, -r all: every type, op or root in turn, as
       nccl-tests runs them (the call is parsed with the defaults) */
    bool ad = a->val[O_DTYPE] && !strcmp(a->val[O_DTYPE], "all");
    bool ao = a->val[O_OP] && !strcmp(a->val[O_OP], "all");
    bool ar = a->val[O_ROOT] && !strcmp(a->val[O_ROOT], "all");
    SceneCallArgs ca = {.coll = a->npos ? a->pos[0] : NULL,
                      .algo = a->val[O_ALGO], .ranks = a->val[O_RANKS],
                      .dtype = ad ? NULL : a->val[O_DTYPE],
                      .op = ao ? NULL : a->val[O_OP],
                      .root = ar ? NULL : a->val[O_ROOT], .allow_all = true,
                      .def_ranks = cmd_default_ranks()};
    *pa = (PerfArgs){.backend = a->val[O_BACKEND] ? a->val[O_BACKEND]
                                                   : cmd_default_backend(),
                     .json_path = a->val[O_JSON], .csv = cli_has(a, O_CSV),
                     .all_dtypes = ad, .all_ops = ao, .all_roots = ar};
    /* the backend's library's own row (an unknown backend is said when it
     * is opened) */
    char why[256];
    const ExecOps *ops = exec_find_spec(pa->backend, NULL, why, sizeof why);
    pa->native = ops && ops->native ? ops->native_name : NULL;
    if (pa->native && ca.algo && !strcmp(ca.algo, pa->native))
        pa->native_only = 1, ca.algo = "all";
    if (scene_opts_resolve_call(&ca, &pa->cfg.call, &pa->algo, e) ||
        cli_parse_sweep(a->val[O_MIN], a->val[O_MAX], a->val[O_FACTOR],
                        a->val[O_STEP], pa->cfg.call.dtype, 8, 64ull << 20,
                        &pa->cfg.sweep, e))
        return -1;
    if (pa->json_path && !*pa->json_path)
        return cli_fail(e, "--json needs a file name");
    if (cli_has(a, O_TOPO)) {
        SpecModel cm;
        if (spec_parse_model(NULL, NULL, NULL, NULL, &cm, e) ||
            spec_parse(a->val[O_TOPO], pa->cfg.call.nranks, &cm,
                              &pa->mach, e))
            return -1;
        pa->cfg.what_if = &pa->mach;
        char fit[256];
        if (pa->algo && !algo_fits(pa->algo, &pa->cfg.call, &pa->mach, fit,
                                   sizeof fit))
            return cli_fail(e, "%s", fit);
    }
    pa->cycles = 1;
    pa->mem_report = cli_has(a, O_MEMORY);
    pa->cfg.iter_stats = cli_has(a, O_STATS);
    int z = 0, cpu = 0, st = 0;
    pa->cfg.agg = 1;
    if ((a->val[O_AGG] &&
         parse_int("-m", a->val[O_AGG], 1, PERF_MAX_AGG, &pa->cfg.agg, e)) ||
        (a->val[O_BLOCKING] && parse_int("-z", a->val[O_BLOCKING], 0, 1, &z, e)) ||
        (a->val[O_CPUTIME] && parse_int("-C", a->val[O_CPUTIME], 0, 1, &cpu, e)) ||
        (a->val[O_STAMPS] && parse_int("-S", a->val[O_STAMPS], 0, 1, &st, e)) ||
        (a->val[O_UNALIGN] &&
         parse_int("-u", a->val[O_UNALIGN], 0, PERF_MAX_UNALIGN, &pa->unalign, e)))
        return -1;
    pa->cfg.blocking = z, pa->cfg.cputime = cpu, pa->stamps = st;
    if (a->val[O_CYCLES] &&
        parse_int("-N", a->val[O_CYCLES], 0, 1000000, &pa->cycles, e))
        return -1;
    if (pa->cycles != 1 && pa->json_path)
        return cli_fail(e, "--json holds one run's rows; give -N 1 (the "
                        "default) with it, or leave --json out%s", "");
    /* the bandwidth a table must reach: the flag, else nccl-tests'
       variable */
    const char *bw = a->val[O_MIN_BW] ? a->val[O_MIN_BW]
                                      : getenv("NCCL_TESTS_MIN_BW");
    pa->min_bw = -1;
    if (bw && *bw) {
        char *end;
        errno = 0;
        double v = strtod(bw, &end);
        if (*end || errno || !isfinite(v) || v < 0)
            return cli_fail(e, "%s takes a bandwidth in GB/s, a number of 0 "
                            "or more, not '%s'", a->val[O_MIN_BW] ? "--min-bw"
                            : "NCCL_TESTS_MIN_BW", bw);
        pa->min_bw = v;
    }
    return parse_counts(a, &pa->cfg, e);
}

/* ------------------------------------------------------------- the table */

/* nccl-tests' time column: fewer decimals for longer times. */
static void fmt_time(char *buf, size_t n, double us)
{
    snprintf(buf, n, us >= 10000 ? "%7.0f" : us >= 100 ? "%7.1f" : "%7.2f", us);
}

/* The name of algorithm a's rows: its own, or for NULL the library's. */
static const char *row_name(const PerfArgs *pa, const AlgoInfo *a)
{
    return a ? a->name : pa->native ? pa->native : "native";
}

/* Rank lines shown in full up to this many ranks; beyond, the first
 * RANK_LINES_SHOWN and a count (the JSON's devices list holds them all). */
#define RANK_LINES_ALL 64
#define RANK_LINES_SHOWN 16

/* nccl-tests' rank lines: each rank's process, host and unit. */
static void print_rank_lines(const ExecRankWhere *w, int n)
{
    int shown = n <= RANK_LINES_ALL ? n : RANK_LINES_SHOWN;
    for (int r = 0; w && r < shown; r++)
        printf("#  Rank %2d Pid %6ld on %10s %s\n", r, w[r].pid, w[r].host,
               w[r].unit);
    if (w && shown < n)
        printf("#  ... ranks %d to %d likewise (--json lists every one)\n",
               shown, n - 1);
}

/* The run's title, who ran it and what its buffers take. */
static void print_head_who(const PerfArgs *pa, const AlgoInfo *a,
                           const ExecHost *host,
                           const ExecRankWhere *where)
{
    const PerfConfig *c = &pa->cfg;
    printf("# collviz perf: %s, algorithm %s, backend %s, %d ranks\n",
           coll_name(c->call.kind), row_name(pa, a), pa->backend,
           c->call.nranks);
    /* who ran it, as nccl-tests' rank lines say: this process, its host
       and what the backend reports of the machine */
    char name[256];
    exec_host_name(name, sizeof name);
    printf("# host %s, pid %ld: %s\n", name, (long)getpid(),
           host->fingerprint[0] ? host->fingerprint : "(the backend says "
           "nothing of it)");
    if (host->placement[0])
        printf("# placement: %s\n", host->placement);
    print_rank_lines(where, c->call.nranks);
    unsigned long long mem;
    if (pa->mem_report && perf_bytes_needed(c, a, &mem) == CV_OK)
        printf("# memory: %llu bytes (%.1f MiB) for the buffers of all %d "
               "ranks at the largest size, out of place\n", mem,
               mem / 1048576.0, c->call.nranks);
    if (!a)
        printf("# %s: the library's own %s on the same buffers, timed and "
               "checked the same way;\n#   it has no schedule, so no model "
               "time\n", row_name(pa, a), coll_name(c->call.kind));
}

/* How the sizes are run: nccl-tests' sweep line, then each setting
 * that changes what a row means. */
static void print_head_run(const PerfArgs *pa)
{
    const PerfConfig *c = &pa->cfg;
    printf("# minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d "
           "iters: %d agg iters: %d validation: %d\n", c->sweep.min,
           c->sweep.max, c->sweep.factor ? c->sweep.factor : c->sweep.step,
           c->sweep.factor ? "factor" : "bytes", c->warmup, c->iters,
           c->agg, c->check);
    if (pa->unalign)
        printf("# unalign: every rank's buffers start %d element%s past their "
               "aligned start (-u)\n", pa->unalign, pa->unalign == 1 ? "" : "s");
    if (c->blocking)
        printf("# blocking: every iteration its own call, waited for before "
               "the next (-z 1)\n");
    if (c->cputime)
        printf("# cputime: the host's clock around the timed calls, per "
               "collective (-C 1); algbw and busbw\n#   from the backend's "
               "own time\n");
    if (c->min_time_s > 0)
        printf("# min time: %g s per size and place (more iterations where "
               "%d take less)\n", c->min_time_s, c->iters);
}

/* What the model column is: the machine and calibration it prices
 * with, and what is wrong with that calibration. */
static void print_head_model(const PerfConfig *c, const Calib *cal)
{
    char when[32], mach[256];
    cli_date_text(cal->when, when, sizeof when);
    if (c->what_if) {
        machine_describe(c->what_if, false, mach, sizeof mach);
        printf("# model: on the machine given with -T, a what-if: %s;\n#   "
               "the time of the out-of-place schedule there; ratio = measured "
               "/ model\n#\n", mach);
    } else {
        printf("# model: this machine (%s), calibrated on %s: the time the "
               "calibration of %s at %d ranks\n#   (%s) predicts for the "
               "out-of-place schedule; ratio = measured / model\n#\n",
               machine_kind_name(cal->machine), when, cal->backend,
               cal->nranks, cal->quick ? "quick" : "full");
    }
    if (cal->unsteady > CALIB_UNSTEADY)
        printf("# unsteady calibration: reading what another rank had just "
               "written took %.1f times as long\n#   in one of its rounds as "
               "in another, so the model fits only while the machine is as\n"
               "#   it then was; 'collviz calibrate -B %s -p %d' again when it "
               "holds still\n#\n", cal->unsteady, cal->backend, cal->nranks);
    if (cal->drowned > 0)
        printf("# calibration: %d bandwidths of its largest working set "
               "drowned in the latency and are\n#   bounds the machine beats "
               "(the whole step per byte); 'collviz calibrate -B %s\n#   -p %d "
               "-e SIZE' with a larger SIZE measures them\n#\n", cal->drowned,
               cal->backend, cal->nranks);
}

/* The column heads, nccl-tests' with the model's beside them. */
static void print_head_columns(const PerfArgs *pa)
{
    const PerfConfig *c = &pa->cfg;
    printf("# %10s  %12s  %8s  %6s  %6s           out-of-place              "
           "         in-place                 model\n", "", "", "", "", "");
    const char *tl = c->cputime ? "cputime" : "time";
    printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s"
           "  %7s  %6s%s\n", "size", "count", "type", "redop", "root", tl,
           "algbw", "busbw", "#wrong", tl, "algbw", "busbw", "#wrong",
           "time", "ratio", pa->stamps ? "  timestamp" : "");
    printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s"
           "  %7s  %6s%s\n", "(B)", "(elements)", "", "", "", "(us)", "(GB/s)",
           "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "",
           pa->stamps ? "  YYYY-MM-DD hh:mm:ss" : "");
}

/* The header above an algorithm's rows. */
static void print_table_head(const PerfArgs *pa, const AlgoInfo *a,
                             const Calib *cal, const ExecHost *host,
                             const ExecRankWhere *where)
{
    print_head_who(pa, a, host, where);
    print_head_run(pa);
    print_head_model(&pa->cfg, cal);
    print_head_columns(pa);
}

static void print_side(const PerfConfig *c, const PerfSide *s)
{
    char t[32];
    if (s->skipped) {
        printf("  %7s  %6s  %6s  %5s", "N/A", "N/A", "N/A", "N/A");
        return;
    }
    fmt_time(t, sizeof t, (c->cputime ? s->host_s : s->time_s) * 1e6);
    printf("  %7s  %6.2f  %6.2f", t, s->algbw, s->busbw);
    if (s->wrong < 0)
        printf("    N/A");
    else
        printf("  %5lld", s->wrong);
}

static void print_row(const PerfConfig *c, const PerfRow *r, MachineKind l,
                      bool stamps)
{
    char t[32], when[32] = "";
    if (stamps)
        perf_fmt_stamp(when, sizeof when, r->when);
    const PerfSide *o = &r->side[PERF_OUT_OF_PLACE];
    printf("%12llu  %12zu  %8s  %6s  %6d", r->bytes, r->count,
           dtype_name(r->dtype), perf_redop_column(c->call.kind, r->op),
           perf_root_column(c->call.kind, r->root));
    print_side(c, o);
    print_side(c, &r->side[PERF_IN_PLACE]);
    fmt_time(t, sizeof t, o->model_s[l] * 1e6);
    if (o->model_s[l] > 0)
        printf("  %7s  %6.2f", t, perf_ratio(o, l));
    else
        printf("  %7s  %6s", "-", "-");
    printf("%s%s\n", stamps ? "  " : "", when);
    /* -I: each place's iterations, on a comment line of their own */
    for (int pl = 0; c->iter_stats && pl < PERF_PLACE_COUNT; pl++) {
        const PerfSide *d = &r->side[pl];
        if (!d->skipped)
            printf("#   %s iterations (us): min %.2f  max %.2f  p99 %.2f  "
                   "cv %.3f\n", pl ? "in-place" : "out-of-place",
                   d->min_s * 1e6, d->max_s * 1e6, d->p99_s * 1e6, d->cv);
    }
}

static void print_csv_head(void)
{
    printf("algorithm,size,count,type,redop,root,time_us,algbw,busbw,wrong,"
           "time_us_ip,algbw_ip,busbw_ip,wrong_ip,model_us,ratio,iters,"
           "iters_ip,probe_before,probe_after,host_moved,clean_before_us,"
           "clean_after_us,cputime_us,cputime_us_ip,timestamp\n");
}

static void print_csv_row(const PerfConfig *c, const Calib *cal,
                          const PerfRow *r, bool stamps)
{
    MachineKind l = cal->machine;
    printf("%s,%llu,%zu,%s,%s,%d", r->name, r->bytes, r->count,
           dtype_name(r->dtype), perf_redop_column(c->call.kind, r->op),
           perf_root_column(c->call.kind, r->root));
    for (int pl = 0; pl < PERF_PLACE_COUNT; pl++) {
        const PerfSide *s = &r->side[pl];
        if (s->skipped)
            printf(",,,,");
        else
            printf(",%.3f,%.4f,%.4f,%lld", s->time_s * 1e6, s->algbw,
                   s->busbw, s->wrong);
    }
    const PerfSide *o = &r->side[PERF_OUT_OF_PLACE];
    printf(",%.3f,%.4f,%d,%d,%.3f,%.3f,%d,%.2f,%.2f", o->model_s[l] * 1e6,
           perf_ratio(o, l), o->iters, r->side[PERF_IN_PLACE].iters,
           r->probe[0], r->probe[1], perf_host_moved(cal, r),
           r->probe_clean[0] * 1e6, r->probe_clean[1] * 1e6);
    /* -C's cputime per place, -S's timestamp (empty without them) */
    for (int pl = 0; pl < PERF_PLACE_COUNT; pl++)
        if (c->cputime && !r->side[pl].skipped)
            printf(",%.3f", r->side[pl].host_s * 1e6);
        else
            printf(",");
    char when[32] = "";
    if (stamps)
        perf_fmt_stamp(when, sizeof when, r->when);
    printf(",%s\n", when);
}

/* The smallest and the largest measured (> 0) of the rows' values
 * v[2] (at offset off in PerfRow) over the rows flagged with `bit`;
 * returns how many rows that is. */
static size_t moved_range(const Calib *cal, const PerfRow *rows, size_t n,
                          int bit, size_t off, double *lo, double *hi)
{
    size_t moved = 0;
    *lo = *hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(perf_host_moved(cal, &rows[i]) & bit))
            continue;
        const double *v = (const double *)((const char *)&rows[i] + off);
        for (int k = 0; k < 2; k++) {
            *lo = v[k] > 0 && (*lo <= 0 || v[k] < *lo) ? v[k] : *lo;
            *hi = v[k] > *hi ? v[k] : *hi;
        }
        moved++;
    }
    return moved;
}

/* When the machine moved away from the calibration's state around some
 * rows (its cross-core reads or its speed), which ones and how far: the
 * model column does not describe them. */
static void print_host_moved(const Calib *cal, const PerfRow *rows, size_t n)
{
    size_t moved = 0;
    for (size_t i = 0; i < n; i++)
        moved += perf_host_moved(cal, &rows[i]) != 0;
    if (!moved)
        return;
    printf("# Host moved           : %zu of %zu sizes:", moved, n);
    for (size_t i = 0, shown = 0; i < n && shown < 8; i++)
        if (perf_host_moved(cal, &rows[i]))
            printf(" %llu", rows[i].bytes), shown++;
    printf("%s\n", moved > 8 ? " ..." : "");
    double lo, hi;
    size_t k = moved_range(cal, rows, n, PERF_HOST_CROSS,
                           offsetof(PerfRow, probe), &lo, &hi);
    int state = cal->state_probes > 0;
    char during[64];
    if (k) {
        snprintf(during, sizeof during, state ? "%.2f" : "%.2f and %.2f",
                 state ? cal->state_ratio : cal->probe[0], cal->probe[1]);
        printf("#   (%zu: reading what another core had just written took %.2f "
               "to %.2f times\n#   as long as data written once around them, "
               "%s during the calibration)\n", k, lo, hi, during);
    }
    k = moved_range(cal, rows, n, PERF_HOST_SPEED,
                    offsetof(PerfRow, probe_clean), &lo, &hi);
    if (k) {
        snprintf(during, sizeof during, state ? "%.1f" : "%.1f and %.1f",
                 (state ? cal->state_clean : cal->probe_clean[0]) * 1e6,
                 cal->probe_clean[1] * 1e6);
        printf("#   (%zu: the probe's copy of data written once took %.1f to "
               "%.1f us around them,\n#   %s during the calibration: the "
               "machine ran at another speed)\n", k, lo * 1e6, hi * 1e6,
               during);
    }
    printf("#   (the model describes the machine as calibrated, not these "
           "sizes)\n");
}

/* The footer: wrong elements, and the average busbw, with nccl-tests'
 * verdict where a least one is asked (--min-bw or NCCL_TESTS_MIN_BW):
 * FAILED below 90% of it, as nccl-tests judges it. */
static void print_table_foot(Run *r, const PerfRow *rows, size_t n)
{
    long long w = perf_wrong_total(rows, n);
    double avg = perf_avg_busbw(rows, n), min = r->pa->min_bw;
    printf("# Out of bounds values : %lld %s\n", w, w ? "FAILED" : "OK");
    if (min >= 0) {
        bool low = perf_bw_low(avg, min);
        r->bw_failed |= low;
        printf("# Avg bus bandwidth    : %g %s\n", avg, low ? "FAILED" : "OK");
    } else {
        printf("# Avg bus bandwidth    : %g\n", avg);
    }
    print_host_moved(r->cal, rows, n);
    printf("#\n");
}

/* ------------------------------------------------------------- progress */


static void clear_progress(Run *r)
{
    if (r->shown)
        fputs("\r\033[K", stderr);
    r->shown = 0;
}

/* Print the row as soon as it is measured; on a terminal, after the first
 * second, keep one line on stderr saying how far the run is. */
static int on_row(void *ctx, const PerfRow *row, size_t done, size_t total)
{
    Run *r = ctx;
    clear_progress(r);
    if (r->pa->csv)
        print_csv_row(&r->pa->cfg, r->cal, row, r->pa->stamps);
    else
        print_row(&r->pa->cfg, row, r->cal->machine, r->pa->stamps);
    fflush(stdout);
    r->done++;
    if (r->tty && r->done < r->total && mono_now_s() - r->start > 1.0) {
        fprintf(stderr, "perf %s %s: %llu bytes done, %zu/%zu sizes, "
                "%zu/%zu in all\033[K", coll_name(r->pa->cfg.call.kind),
                row->name, row->bytes, done, total, r->done, r->total);
        r->shown = 1;
    }
    return 0;
}

/* ------------------------------------------------------------- summary */

/* lib: the library's rows after the algorithms' (NULL: none), shown
 * beside the fastest algorithm's. */
static void print_summary(const Run *r, const PerfRow *rows, size_t nalgo,
                          size_t nsizes, const PerfRow *lib)
{
    MachineKind l = r->cal->machine;
    size_t agree = 0;
    /* the copy rate: the calibration's at its largest working set, as
       bytes read and written a second (a copy reads and writes each) */
    const CalibPoint *big = r->cal->npoints > 0
                                ? &r->cal->pt[r->cal->npoints - 1] : NULL;
    double copy_rw = big && big->beta_shared > 0
                         ? 2 / big->beta_shared / 1e9 : 0;
    char mach[96]; /* -T's machine where given, else the calibration's */
    if (r->pa->cfg.what_if)
        machine_describe(r->pa->cfg.what_if, true, mach, sizeof mach);
    else
        snprintf(mach, sizeof mach, "%s", machine_kind_name(l));
    printf("# Summary, out of place: the fastest measured algorithm and the "
           "model's choice (machine %s)%s%s\n", mach,
           lib ? "; the library's own: " : "", lib ? lib->name : "");
    if (copy_rw > 0)
        printf("# rw: the bytes the fastest's schedule reads and writes a "
               "second, and their share of the calibration's copy, %.1f GB/s "
               "read and written at %.0f B\n", copy_rw, big->footprint);
    printf("# %10s  %-16s %9s  %-16s %9s  %s%s%s\n", "size(B)", "fastest",
           "time(us)", "model's choice", "time(us)", "same",
           lib ? "  lib(us)  fastest/lib" : "",
           copy_rw > 0 ? "  rw(GB/s)  of copy" : "");
    for (size_t s = 0; s < nsizes; s++) {
        size_t m, p;
        perf_best(rows + s, nalgo, nsizes, l, &m, &p);
        const PerfRow *rm = &rows[m * nsizes + s], *rp = &rows[p * nsizes + s];
        agree += m == p;
        printf("  %10llu  %-16s %9.2f  %-16s %9.2f  %-4s", rm->bytes,
               rm->name, rm->side[0].time_s * 1e6, rp->name,
               rp->side[0].time_s * 1e6, m == p ? "yes" : "no");
        if (lib && lib[s].side[0].time_s > 0)
            printf("  %7.2f  %11.2f", lib[s].side[0].time_s * 1e6,
                   rm->side[0].time_s / lib[s].side[0].time_s);
        else if (lib && copy_rw > 0)
            printf("  %7s  %11s", "-", "-");
        const PerfSide *f = &rm->side[0];
        if (copy_rw > 0 && f->traffic > 0 && f->time_s > 0)
            printf("  %8.2f  %6.0f%%", f->traffic / f->time_s / 1e9,
                   100 * f->traffic / f->time_s / 1e9 / copy_rw);
        printf("\n");
    }
    printf("# the model chose the fastest algorithm at %zu of %zu sizes\n",
           agree, nsizes);
}

/* ---------------------------------------------------------------- run */

/* The algorithms to run: the one asked for, or all of the collective
 * that are made for the machine the schedules are built for. */
static size_t algos_to_run(const PerfArgs *pa, const AlgoInfo **out,
                           size_t max)
{
    size_t n = 0;
    const Machine *m = pa->cfg.what_if ? pa->cfg.what_if : pa->cfg.shape;
    if (pa->native_only || pa->algo) {
        out[n++] = pa->algo; /* NULL: the library's own */
        return n;
    }
    for (size_t i = 0; i < algo_count() && n + 1 < max; i++)
        if (algo_at(i)->coll == pa->cfg.call.kind &&
            algo_fits(algo_at(i), &pa->cfg.call, m, NULL, 0))
            out[n++] = algo_at(i);
    if (pa->native) /* last, so that the rows measured stay in one piece */
        out[n++] = NULL;
    return n;
}

/* One type, op and root of the run (-d/-o/-r all run several), and where
 * its rows lie in an algorithm's. */
typedef struct {
    DataType dtype;
    RedOp op;
    int root;
    size_t nsizes;   /* rows of its sweep */
    size_t off;      /* its first row in an algorithm's rows */
} Variant;

/* The run's variants into *out (malloc'd): every type for -d all, every
 * op of a reducing collective for -o all, every root of a rooted one for
 * -r all, in nccl-tests' order (type, then op, then root); their count,
 * 0 without memory. *stride: the rows of one algorithm. */
static size_t variants(const PerfArgs *pa, Variant **out, size_t *stride)
{
    const CollCall *c = &pa->cfg.call;
    int nd = pa->all_dtypes ? DT_COUNT : 1;
    int no = pa->all_ops && coll_is_reducing(c->kind) ? OP_COUNT : 1;
    int nr = pa->all_roots && coll_is_rooted(c->kind) ? c->nranks : 1;
    size_t n = (size_t)nd * (size_t)no * (size_t)nr;
    Variant *v = *out = calloc(n, sizeof *v);
    if (!v)
        return 0;
    size_t k = 0, off = 0;
    for (int d = 0; d < nd; d++)
        for (int o = 0; o < no; o++)
            for (int r = 0; r < nr; r++, k++) {
                PerfConfig cfg = pa->cfg;
                v[k].dtype = cfg.call.dtype = nd > 1 ? (DataType)d : c->dtype;
                v[k].op = cfg.call.op = no > 1 ? (RedOp)o : c->op;
                v[k].root = cfg.call.root = nr > 1 ? r : c->root;
                v[k].nsizes = perf_sweep_len(&cfg);
                v[k].off = off;
                off += v[k].nsizes;
            }
    *stride = off;
    return n;
}

/* Where each of ex's p ranks runs (exec_rank_where), or NULL where its
 * backend does not say. */
static ExecRankWhere *ranks_where(Executor *ex, int p)
{
    ExecRankWhere *w = calloc((size_t)p, sizeof *w);
    for (int k = 0; w && k < p; k++)
        if (!exec_rank_where(ex, k, &w[k])) {
            free(w);
            return NULL;
        }
    return w;
}

/* Measure every algorithm's sweep, each variant in turn, into rows (an
 * algorithm's stride rows after the one before; the library's own
 * collective last, where algos has it); 0 or an exit status (the
 * failure's sentence on stderr and in failure). */
static int run_all(Executor *ex, Run *r, const AlgoInfo **algos, size_t nalgo,
                   const Variant *v, size_t nv, size_t stride, PerfRow *rows,
                   char *failure, size_t len)
{
    char why[256] = "";
    ExecHost host = exec_host(ex);
    if (r->pa->csv)
        print_csv_head();
    size_t done = 0;
    for (size_t i = 0; i < nalgo; i++) {
        if (!r->pa->csv)
            print_table_head(r->pa, algos[i], r->cal, &host, r->where);
        fflush(stdout); /* the head before its first row, however slow */
        CvError e = CV_OK;
        for (size_t k = 0; k < nv && !e; k++) {
            PerfConfig cfg = r->pa->cfg;
            cfg.call.dtype = v[k].dtype;
            cfg.call.op = v[k].op;
            cfg.call.root = v[k].root;
            e = perf_sweep(ex, &cfg, r->cal, algos[i],
                           rows + i * stride + v[k].off, on_row, r, why,
                           sizeof why);
        }
        clear_progress(r);
        if (e == CV_ERR_UNAVAILABLE && !algos[i] && nalgo > 1 &&
            r->done == i * stride) {
            /* -a all: the library cannot run this call here (fewer
             * devices than ranks, a type it lacks); the schedules' rows
             * stand without it */
            printf("# no %s row: %s\n#\n", row_name(r->pa, NULL),
                   why[0] ? why : cv_strerror(e));
            break;
        }
        if (e) {
            fflush(stdout);
            snprintf(failure, len, "perf %s %s failed: %s",
                     coll_name(r->pa->cfg.call.kind), row_name(r->pa, algos[i]),
                     why[0] ? why : cv_strerror(e));
            fprintf(stderr, "collviz: %s\n", failure);
            /* -a LIB where the library cannot run the call: bad input */
            return e == CV_ERR_UNAVAILABLE ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
        }
        if (!r->pa->csv)
            print_table_foot(r, rows + i * stride, stride);
        done++;
    }
    /* the library's rows, when measured, are the last: shown beside the
     * algorithms' fastest, not among them; a summary compares one
     * variant's rows, so several have none */
    const PerfRow *lib = done > 1 && !rows[(done - 1) * stride].algo
                             ? rows + (done - 1) * stride : NULL;
    size_t nsched = done - (lib != NULL);
    if (!r->pa->csv && nv == 1 && (nsched > 1 || lib))
        print_summary(r, rows, nsched, stride, lib);
    return CLI_EXIT_OK;
}

/* Open the backend, get the calibration, measure, report; the results
 * into json too when it is not NULL. */
/* Without -T, the backend's hosts as a machine of nodes where its ranks
 * run on several (ExecHost.nodes: what its calibration measures), so that
 * the schedules made for such a machine are built for it; false when
 * there is one host. */
static bool hosts_machine(Executor *ex, const PerfArgs *pa, Machine *out)
{
    ExecHost h = exec_host(ex);
    if (pa->cfg.what_if || h.nodes < 2 ||
        machine_nodes(out, h.nodes, h.per_node, true, 1) != CV_OK)
        return false;
    out->cyclic = h.cyclic != 0;
    return true;
}

static int perf_main(const PerfArgs *in, JsonOut *json)
{
    PerfArgs local = *in;
    const PerfArgs *pa = &local;
    Machine hosts;
    const AlgoInfo *algos[64];
    size_t nalgo = 0, nsizes = 0;
    char failure[CV_WHY_LEN] = "";
    Calib cal;
    Run r = {.pa = pa, .tty = isatty(STDERR_FILENO)};
    PerfRow *rows = NULL;
    Executor *ex = cmd_exec_open_unaligned(pa->backend, pa->cfg.call.nranks,
                                           (size_t)pa->unalign);
    int rc = ex ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    if (ex && hosts_machine(ex, pa, &hosts))
        local.cfg.shape = &hosts;
    char why[256];
    const Machine *m = pa->cfg.what_if ? pa->cfg.what_if : pa->cfg.shape;
    if (ex && pa->algo && !algo_fits(pa->algo, &pa->cfg.call, m, why, sizeof why)) {
        fprintf(stderr, "collviz: %s\n", why);
        rc = CLI_EXIT_USAGE;
    }
    if (rc == CLI_EXIT_OK)
        nalgo = algos_to_run(pa, algos, 64);
    Variant *v = NULL;
    size_t nv = variants(pa, &v, &nsizes);
    if (!nv && rc == CLI_EXIT_OK) {
        fprintf(stderr, "collviz: %s\n", cv_strerror(CV_ERR_NOMEM));
        rc = CLI_EXIT_FAIL;
    }
    size_t nrows = (nalgo + 1) * nsizes; /* + the library's own */
    r.total = nalgo * nsizes;
    for (size_t i = 0; i < nalgo && rc == CLI_EXIT_OK; i++) {
        if (perf_check_fits(&pa->cfg, algos[i], why, sizeof why) == CV_OK)
            continue;
        fprintf(stderr, "collviz: perf %s %s cannot run: %s\n",
                coll_name(pa->cfg.call.kind), row_name(pa, algos[i]), why);
        rc = CLI_EXIT_USAGE;
    }
    if (ex && ex->ops->native)
        r.total = nrows;
    if (rc == CLI_EXIT_OK && !(rows = calloc(nrows + 1, sizeof *rows))) {
        snprintf(failure, sizeof failure, "%s", cv_strerror(CV_ERR_NOMEM));
        fprintf(stderr, "collviz: %s\n", failure);
        rc = CLI_EXIT_FAIL;
    }
    if (rc == CLI_EXIT_OK &&
        (rc = cmd_calib_for(ex, &cal, failure, sizeof failure)) == CLI_EXIT_OK)
        r.cal = &cal;
    r.start = mono_now_s();
    /* -N: the whole sweep again, each cycle printed; a wrong element or
       a short bandwidth in any cycle fails the run */
    bool wrong = false;
    if (ex)
        r.where = ranks_where(ex, pa->cfg.call.nranks);
    for (int cycle = 0; rc == CLI_EXIT_OK &&
                        (!pa->cycles || cycle < pa->cycles); cycle++) {
        if (pa->cycles != 1 && !pa->csv)
            printf("# cycle %d%s\n#\n", cycle + 1, pa->cycles ? "" :
                   " (until interrupted)");
        r.done = 0;
        rc = run_all(ex, &r, algos, nalgo, v, nv, nsizes, rows, failure,
                     sizeof failure);
        wrong |= perf_wrong_total(rows, r.done) != 0;
    }
    free(v);
    if (ex)
        ex->ops->close(ex);
    if (rc == CLI_EXIT_OK && (wrong || r.bw_failed))
        rc = CLI_EXIT_FAIL;
    if (json)
        rc = perf_json_close(json, &r, rows, rc, failure[0] ? failure : NULL);
    free(rows);
    free(r.where);
    return rc;
}

int cmd_perf(int argc, char **argv)
{
    CliArgs a;
    CliErr err;
    PerfArgs pa;
    JsonOut json;
    int rc = cli_start(&cmd, O_HELP, argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (parse_perf(&a, &pa, &err))
        return cli_error(&err);
    if (pa.json_path && (rc = perf_json_open(&json, pa.json_path)) >= 0)
        return rc;
    return perf_main(&pa, pa.json_path ? &json : NULL);
}
