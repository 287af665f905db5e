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
    {'a', "algo", "ALGO|all|LIB", "algorithm; all: the collective's every algorithm, and the backend's library's own collective where it has one (nccl, mpi); LIB: that alone (default: the collective's default); 3, nccl-tests' -a 3: the default algorithm, each time the slowest rank's, as collviz always times (0, 1 and 2 are refused)"},
    CLI_OPT_RANKS,
    {'B', "backend", "NAME[:OPTS]", "backend (default threads); OPTS: its options, key=value,... (threads: spin_us, eager_bytes, push_bytes, slow=RANK:FACTOR, link=A>B:FACTOR; mpi, in collviz-mpi under mpirun: timeout)"},
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
    {'r', "root", "ROOT|all|-1", "root rank of broadcast, reduce, scatter, gather (default 0); all or -1: every rank in turn"},
    {'N', "run-cycles", "CYCLES", "run the whole sweep CYCLES times, each printed (default 1; 0: until interrupted), as nccl-tests' -N"},
    {'I', "per-iter-timing", "0|1", "1: time every iteration, and add nccl-tests' four columns to each place: their min, max, 99th percentile and coefficient of variation (%); inside the timed loop where the backend can (threads, mpi), else one call per iteration on the host's clock (default 0)"},
    {'M', "memory", "0|1", "1: say in the footer how much memory the buffers of all ranks take at the largest size (default 0)"},
    {'m', "agg-iters", "COUNT", "collectives per timed iteration, run back to back in one call (default 1); times are per collective, as nccl-tests' -m"},
    {'z', "blocking", "0|1|2|3", "as nccl-tests' -z: 0, the iterations back to back in one call (default); 1 or 2, every collective its own call, timed on the host's clock around it, its start and wait included; 3, every iteration (-m collectives) its own call, timed by the backend without its start"},
    {'C', "report-cputime", "0|1", "1: the time columns are the host's clock around the timed calls, per collective (cputime); algbw and busbw stay the backend's time (nccl-tests' -C)"},
    {'u', "unalign", "ELEMENTS", "every rank's buffers start ELEMENTS elements past their aligned start, to time the unaligned paths (default 0; nccl-tests' -u)"},
    {'S', "report-timestamps", "0|1", "1: each row ends with the time it was measured, YYYY-MM-DD hh:mm:ss local time (nccl-tests' -S)"},
    {0, "min-bw", "GBPS", "fail (exit 1, FAILED in the footer) where a table's average busbw is below 90% of GBPS, as nccl-tests does with NCCL_TESTS_MIN_BW, which is read where this is not given"},
    {0, "json", "FILE", "also write the results to FILE as collviz's JSON (collviz(1))"},
    {'J', "output-file", "FILE", "also write the results to FILE as nccl-tests' JSON (its -J: config, devices, results, out_of_bounds, average_bus_bandwidth)"},
    {0, "csv", NULL, "print CSV instead of the table"},
    {'T', "topo", "MACHINE", "the model lines on MACHINE, a what-if, instead of this machine's calibration (see 'collviz topo --help')"},
    CLI_OPT_SEGMENT,
    CLI_OPT_HELP,
};
enum { O_ALGO, O_RANKS, O_BACKEND, O_MIN, O_MAX, O_FACTOR, O_STEP, O_ITERS,
       O_WARMUP, O_MIN_TIME, O_CHECK, O_DTYPE, O_OP, O_ROOT, O_CYCLES,
       O_STATS, O_MEMORY, O_AGG, O_BLOCKING, O_CPUTIME, O_UNALIGN, O_STAMPS, O_MIN_BW, O_JSON, O_NCCL_JSON, O_CSV, O_TOPO, O_SEGMENT, O_HELP };

static const CliCmd cmd = {
    .name = "perf",
    .usage = "perf COLL [-a ALGO|all|LIB] [-p RANKS] [-B NAME[:OPTS]] [-b MIN] [-e MAX]\n"
             "       [-f FACTOR | -i STEP] [-n ITERS] [-w WARMUP] [--min-time SECONDS]\n"
             "       [-c CHECK] [-d TYPE|all] [-o OP|all] [-r ROOT|all|-1] [-N CYCLES]\n"
             "       [-I 0|1] [-M 0|1] [-m COUNT] [-z 0|1|2|3] [-C 0|1] [-u ELEMENTS]\n"
             "       [-S 0|1] [--min-bw GBPS] [--json FILE] [-J FILE] [--csv]\n"
             "       [-T MACHINE] [--segment SIZE]",
    .about = "Measure a collective's schedules on a backend the way nccl-tests "
             "does: for every\nsize, out of place and in place, the time per "
             "iteration, algbw, busbw and the\nwrong elements, in nccl-tests' "
             "table (its 13 fields a row, its header and\nfooter lines); under "
             "each row a '#  model' line: the time the calibrated\nmodel "
             "predicts and the ratio measured/model (out of place). Ranks "
             "default to\nthe CPUs collviz may run on (-p is the rank count).\nSizes "
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
             "includes the wait that nccl-tests' leaves out without -z 1.\n"
             "Where a letter means something else (-a, -p, -T, -t, -g), collviz's "
             "meaning holds\nand nccl-tests' values are refused with a sentence.",
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

/* -a 0..3, nccl-tests' averaging over ranks, where collviz's -a names an
 * algorithm: 3 (the slowest rank's time, as collviz times every row) is
 * the default algorithm; 0, 1 and 2 are a sentence. */
static int parse_average(const char **algo, CliErr *e)
{
    const char *s = *algo;
    if (!(s[0] >= '0' && s[0] <= '9' && !s[1]))
        return 0;
    if (s[0] == '3') {
        *algo = NULL;
        return 0;
    }
    return cli_fail(e, "-a %s is nccl-tests' average over ranks (0: rank "
                    "0's, 1: the mean, 2: the fastest); collviz times the "
                    "slowest rank, nccl-tests' -a 3, and its -a names an "
                    "algorithm ('collviz list' shows them)", s);
}

/* -T MACHINE: the model's what-if machine, which the algorithm must fit. */
static int parse_what_if(const CliArgs *a, PerfArgs *pa, CliErr *e)
{
    SpecModel cm;
    if (spec_parse_model(NULL, NULL, NULL, NULL, &cm, e) ||
        spec_parse(a->val[O_TOPO], pa->cfg.call.nranks, &cm, &pa->mach, e))
        return -1;
    pa->cfg.what_if = &pa->mach;
    char fit[256];
    if (pa->algo && !algo_fits(pa->algo, &pa->cfg.call, &pa->mach, fit,
                               sizeof fit))
        return cli_fail(e, "%s", fit);
    return 0;
}

/* nccl-tests' switches of how rows are timed and shown: -m -z -I -M -C
 * -S -u -N. */
static int parse_modes(const CliArgs *a, PerfArgs *pa, CliErr *e)
{
    int z = 0, cpu = 0, st = 0, it = 0, mem = 0;
    pa->cfg.agg = 1, pa->cycles = 1;
    if ((a->val[O_AGG] &&
         parse_int("-m", a->val[O_AGG], 1, PERF_MAX_AGG, &pa->cfg.agg, e)) ||
        (a->val[O_BLOCKING] && parse_int("-z", a->val[O_BLOCKING], 0, 3, &z, e)) ||
        (a->val[O_STATS] && parse_int("-I", a->val[O_STATS], 0, 1, &it, e)) ||
        (a->val[O_MEMORY] && parse_int("-M", a->val[O_MEMORY], 0, 1, &mem, e)) ||
        (a->val[O_CPUTIME] && parse_int("-C", a->val[O_CPUTIME], 0, 1, &cpu, e)) ||
        (a->val[O_STAMPS] && parse_int("-S", a->val[O_STAMPS], 0, 1, &st, e)) ||
        (a->val[O_UNALIGN] &&
         parse_int("-u", a->val[O_UNALIGN], 0, PERF_MAX_UNALIGN, &pa->unalign, e)) ||
        (a->val[O_CYCLES] &&
         parse_int("-N", a->val[O_CYCLES], 0, 1000000, &pa->cycles, e)))
        return -1;
    pa->cfg.blocking = z, pa->cfg.cputime = cpu, pa->stamps = st;
    pa->cfg.iter_stats = it, pa->mem_report = mem;
    pa->cfg.keep_times = it && pa->nccl_json; /* -J's times_us */
    pa->each_in_loop = pa->each_in_loop && it && !z;
    const char *j = pa->json_path ? "--json" : "-J";
    if (pa->cycles != 1 && (pa->json_path || pa->nccl_json))
        return cli_fail(e, "%s holds one run's rows; give -N 1 (the "
                        "default) with it, or leave %s out", j, j);
    return 0;
}

/* The bandwidth a table must reach: --min-bw, else nccl-tests'
 * NCCL_TESTS_MIN_BW; -1 where neither is given. */
static int parse_min_bw(const CliArgs *a, PerfArgs *pa, CliErr *e)
{
    const char *bw = a->val[O_MIN_BW] ? a->val[O_MIN_BW]
                                      : getenv("NCCL_TESTS_MIN_BW");
    pa->min_bw = -1;
    if (!bw || !*bw)
        return 0;
    char *end;
    errno = 0;
    double v = strtod(bw, &end);
    if (*end || errno || !isfinite(v) || v < 0)
        return cli_fail(e, "%s takes a bandwidth in GB/s, a number of 0 or "
                        "more, not '%s'", a->val[O_MIN_BW] ? "--min-bw"
                        : "NCCL_TESTS_MIN_BW", bw);
    pa->min_bw = v;
    return 0;
}

static int parse_perf(const CliArgs *a, PerfArgs *pa, CliErr *e)
{
    /* -d all, -o all, -r all (-r -1): every type, op or root in turn, as
       nccl-tests runs them (the call is parsed with the defaults) */
    bool ad = a->val[O_DTYPE] && !strcmp(a->val[O_DTYPE], "all");
    bool ao = a->val[O_OP] && !strcmp(a->val[O_OP], "all");
    bool ar = a->val[O_ROOT] && (!strcmp(a->val[O_ROOT], "all") ||
                                 !strcmp(a->val[O_ROOT], "-1"));
    const char *algo = a->val[O_ALGO];
    if (algo && parse_average(&algo, e))
        return -1;
    SceneCallArgs ca = {.coll = a->npos ? a->pos[0] : NULL,
                      .algo = algo, .ranks = a->val[O_RANKS],
                      .dtype = ad ? NULL : a->val[O_DTYPE],
                      .op = ao ? NULL : a->val[O_OP],
                      .root = ar ? NULL : a->val[O_ROOT], .allow_all = true,
                      .segment = a->val[O_SEGMENT],
                      .def_ranks = cmd_default_ranks()};
    *pa = (PerfArgs){.backend = a->val[O_BACKEND] ? a->val[O_BACKEND]
                                                   : cmd_default_backend(),
                     .json_path = a->val[O_JSON], .csv = cli_has(a, O_CSV),
                     .nccl_json = a->val[O_NCCL_JSON],
                     .all_dtypes = ad, .all_ops = ao, .all_roots = ar};
    /* the backend's library's own row (an unknown backend is said when it
     * is opened) */
    char why[256];
    const ExecOps *ops = exec_find_spec(pa->backend, NULL, why, sizeof why);
    pa->native = ops && ops->native ? ops->native_name : NULL;
    pa->native_note = pa->native ? ops->native_note : NULL;
    pa->each_in_loop = ops && ops->times_each;
    if (pa->native && ca.algo && !strcmp(ca.algo, pa->native))
        pa->native_only = 1, ca.algo = "all";
    if (scene_opts_resolve_call(&ca, &pa->cfg.call, &pa->algo, e) ||
        cli_parse_sweep(a->val[O_MIN], a->val[O_MAX], a->val[O_FACTOR],
                        a->val[O_STEP], pa->cfg.call.dtype, 8, 64ull << 20,
                        &pa->cfg.sweep, e))
        return -1;
    if ((pa->json_path && !*pa->json_path) || (pa->nccl_json && !*pa->nccl_json))
        return cli_fail(e, "%s needs a file name", pa->json_path &&
                        !*pa->json_path ? "--json" : "-J");
    if ((cli_has(a, O_TOPO) && parse_what_if(a, pa, e)) ||
        parse_modes(a, pa, e) || parse_min_bw(a, pa, e))
        return -1;
    return parse_counts(a, &pa->cfg, e);
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
    if (!r->held && r->pa->csv)
        perf_print_csv_row(&r->pa->cfg, r->cal, row, r->pa->stamps);
    else if (!r->held)
        perf_print_row(r->pa, row, r->cal->machine);
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

/* The failure of algorithm a's rows (all: of -a all's): its sentence on
 * stderr and in failure; the exit status (-a LIB where the library
 * cannot run the call is bad input). */
static int failed(Run *r, const char *name, CvError e, const char *why,
                  char *failure, size_t len)
{
    fflush(stdout);
    snprintf(failure, len, "perf %s %s failed: %s",
             coll_name(r->pa->cfg.call.kind), name,
             why[0] ? why : cv_strerror(e));
    fprintf(stderr, "collviz: %s\n", failure);
    return e == CV_ERR_UNAVAILABLE ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
}

/* The run's configuration for one variant. */
static PerfConfig variant_cfg(const PerfArgs *pa, const Variant *v)
{
    PerfConfig cfg = pa->cfg;
    cfg.call.dtype = v->dtype;
    cfg.call.op = v->op;
    cfg.call.root = v->root;
    return cfg;
}

/* One algorithm: its head, then its rows as they are measured (each
 * variant in turn), then its foot. */
static int run_one(Executor *ex, Run *r, const AlgoInfo *a, const Variant *v,
                   size_t nv, size_t stride, PerfRow *rows, char *failure,
                   size_t len)
{
    char why[256] = "";
    ExecHost host = exec_host(ex);
    if (r->pa->csv)
        perf_print_csv_head();
    else
        perf_print_table_head(r, a, &host);
    fflush(stdout); /* the head before its first row, however slow */
    CvError e = CV_OK;
    for (size_t k = 0; k < nv && !e; k++) {
        PerfConfig cfg = variant_cfg(r->pa, &v[k]);
        e = perf_sweep(ex, &cfg, r->cal, a, rows + v[k].off, on_row, r, why,
                       sizeof why);
    }
    clear_progress(r);
    if (e)
        return failed(r, perf_row_name(r->pa, a), e, why, failure, len);
    if (!r->pa->csv)
        perf_print_table_foot(r, rows, stride);
    return CLI_EXIT_OK;
}

/* Whether algorithms a and b are one schedule at both sizes b[2]. */
static bool one_schedule(const PerfConfig *cfg, const AlgoInfo *a,
                         const AlgoInfo *b, const unsigned long long *bytes)
{
    bool same = a && b;
    for (int k = 0; k < 2 && same; k++)
        if (perf_same_schedule(cfg, a, b, bytes[k], &same) != CV_OK)
            same = false;
    return same;
}

/* Algorithms that are one schedule at the first variant's smallest and
 * largest sizes, out of place, in groups: their rows measure it twice. */
static void print_same(const Run *r, const AlgoInfo *const *algos,
                       size_t nalgo, const Variant *v)
{
    PerfConfig cfg = variant_cfg(r->pa, v);
    size_t n = perf_sweep_len(&cfg);
    size_t *c = n ? malloc(n * sizeof *c) : NULL;
    bool grouped[64] = {false};
    if (!c)
        return;
    sweep_counts(&cfg.sweep, &cfg.call, c);
    CollCall lo = cfg.call, hi = cfg.call;
    lo.count = c[0], hi.count = c[n - 1];
    unsigned long long b[2] = {coll_size_bytes(&lo), coll_size_bytes(&hi)};
    for (size_t i = 0; i < nalgo; i++) {
        int k = 0;
        for (size_t j = i + 1; j < nalgo && !grouped[i]; j++)
            if (!grouped[j] && one_schedule(&cfg, algos[i], algos[j], b)) {
                if (!k++)
                    printf("# one schedule here (at both ends of the sweep, "
                           "out of place): %s", algos[i]->name);
                printf(", %s", algos[j]->name);
                grouped[j] = true;
            }
        if (k)
            printf("\n#   their rows measure it %d times; the gaps between "
                   "them are the machine's\n", k + 1);
    }
    free(c);
}

/* The tables of an interleaved run: each algorithm's (or the CSV's
 * rows), the library's row said where it could not run, the summary. */
static void print_tables(Run *r, const AlgoInfo *const *algos, size_t nalgo,
                         const bool *gone, const char *why, const Variant *v,
                         size_t nv, size_t stride, const PerfRow *rows,
                         const ExecHost *host)
{
    const PerfArgs *pa = r->pa;
    if (pa->csv)
        perf_print_csv_head();
    else
        print_same(r, algos, nalgo, v);
    for (size_t i = 0; i < nalgo; i++) {
        const PerfRow *ri = rows + i * stride;
        if (gone[i] && !pa->csv) /* the library cannot run it here */
            printf("# no %s row: %s\n#\n", perf_row_name(pa, NULL), why);
        if (gone[i])
            continue;
        if (!pa->csv)
            perf_print_table_head(r, algos[i], host);
        for (size_t k = 0; k < stride; k++)
            if (pa->csv)
                perf_print_csv_row(&pa->cfg, r->cal, &ri[k], pa->stamps);
            else
                perf_print_row(pa, &ri[k], r->cal->machine);
        if (!pa->csv)
            perf_print_table_foot(r, ri, stride);
    }
    /* the library's rows, when measured, are the last: shown beside the
     * algorithms' fastest, not among them; a summary compares one
     * variant's rows, so several have none */
    bool lib = !algos[nalgo - 1] && !gone[nalgo - 1];
    size_t nsched = nalgo - !algos[nalgo - 1];
    if (!pa->csv && nv == 1)
        perf_print_summary(r, rows, nsched, stride,
                           lib ? rows + (nalgo - 1) * stride : NULL);
}

/* Several algorithms (-a all): measured interleaved, size by size, each
 * variant in turn (perf_sweep_all), then each one's table. */
static int run_interleaved(Executor *ex, Run *r, const AlgoInfo **algos,
                           size_t nalgo, const Variant *v, size_t nv,
                           size_t stride, PerfRow *rows, char *failure,
                           size_t len)
{
    char why[256] = "";
    bool gone[64] = {false};
    ExecHost host = exec_host(ex);
    CvError e = CV_OK;
    r->held = true; /* on_row: progress only, the tables come after */
    for (size_t k = 0; k < nv && !e; k++) {
        PerfConfig cfg = variant_cfg(r->pa, &v[k]);
        e = perf_sweep_all(ex, &cfg, r->cal, algos, nalgo, rows + v[k].off,
                           stride, gone, on_row, r, why, sizeof why);
    }
    clear_progress(r);
    r->held = false;
    r->done = nalgo * stride; /* the rows not measured have no name */
    if (e)
        return failed(r, "-a all", e, why, failure, len);
    print_tables(r, algos, nalgo, gone, why[0] ? why : "it cannot run here",
                 v, nv, stride, rows, &host);
    return CLI_EXIT_OK;
}

/* Measure and print every algorithm's rows (the library's own last, where
 * algos has it): 0 or an exit status (the failure's sentence on stderr
 * and in failure). */
static int run_all(Executor *ex, Run *r, const AlgoInfo **algos, size_t nalgo,
                   const Variant *v, size_t nv, size_t stride, PerfRow *rows,
                   char *failure, size_t len)
{
    if (nalgo > 1)
        return run_interleaved(ex, r, algos, nalgo, v, nv, stride, rows,
                               failure, len);
    return run_one(ex, r, algos[0], v, nv, stride, rows, failure, len);
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

/* What perf_main sets up before it measures. */
typedef struct {
    Executor *ex;
    Machine hosts;                /* the backend's hosts (hosts_machine) */
    const AlgoInfo *algos[64];    /* the algorithms to run */
    size_t nalgo, nsizes;         /* how many; an algorithm's rows */
    Variant *v;                   /* the types, ops and roots in turn */
    size_t nv;
    PerfRow *rows;                /* [(nalgo + 1) * nsizes + 1] */
    Calib cal;
} Setup;

/* Whether every algorithm's buffers fit (one sentence where not). */
static bool all_fit(const PerfArgs *pa, const Setup *s)
{
    char why[256];
    for (size_t i = 0; i < s->nalgo; i++)
        if (perf_check_fits(&pa->cfg, s->algos[i], why, sizeof why)) {
            fprintf(stderr, "collviz: perf %s %s cannot run: %s\n",
                    coll_name(pa->cfg.call.kind),
                    perf_row_name(pa, s->algos[i]), why);
            return false;
        }
    return true;
}

/* Open the backend, choose the algorithms and the variants, check that
 * they fit, and get the calibration: CLI_EXIT_OK, or the exit status
 * after one sentence (in failure too where the run failed). */
static int perf_setup(PerfArgs *pa, Setup *s, Run *r, char *failure,
                      size_t len)
{
    s->ex = cmd_exec_open_unaligned(pa->backend, pa->cfg.call.nranks,
                                    (size_t)pa->unalign);
    if (!s->ex)
        return CLI_EXIT_USAGE;
    if (hosts_machine(s->ex, pa, &s->hosts))
        pa->cfg.shape = &s->hosts;
    char why[256];
    const Machine *m = pa->cfg.what_if ? pa->cfg.what_if : pa->cfg.shape;
    CollCall call = pa->cfg.call; /* at a count the algorithm serves (a
                                     file's may serve one): the sizes are
                                     the sweep's, each row says its own */
    call.count = algo_file_count(pa->algo, call.count);
    if (pa->algo && !algo_fits(pa->algo, &call, m, why, sizeof why)) {
        fprintf(stderr, "collviz: %s\n", why);
        return CLI_EXIT_USAGE;
    }
    s->nalgo = algos_to_run(pa, s->algos, 64);
    if (!all_fit(pa, s))
        return CLI_EXIT_USAGE;
    s->nv = variants(pa, &s->v, &s->nsizes);
    size_t nrows = (s->nalgo + 1) * s->nsizes; /* + the library's own */
    if (!s->nv || !(s->rows = calloc(nrows + 1, sizeof *s->rows))) {
        snprintf(failure, len, "%s", cv_strerror(CV_ERR_NOMEM));
        fprintf(stderr, "collviz: %s\n", failure);
        return CLI_EXIT_FAIL;
    }
    r->total = s->ex->ops->native ? nrows : s->nalgo * s->nsizes;
    r->where = ranks_where(s->ex, pa->cfg.call.nranks);
    r->on_gpu = !strcmp(s->ex->ops->name, "cuda");
    r->algos = s->algos, r->nalgo = s->nalgo, r->stride = s->nsizes;
    int rc = cmd_calib_for(s->ex, &s->cal, failure, len);
    r->cal = rc == CLI_EXIT_OK ? &s->cal : NULL;
    return rc;
}

/* Measure and print every cycle (-N: the whole sweep again, each
 * printed), between nccl-tests' run head and its closing line; a wrong
 * element or a short bandwidth in any cycle fails the run. */
static int perf_cycles(Setup *s, Run *r, char *failure, size_t len)
{
    const PerfArgs *pa = r->pa;
    int rc = CLI_EXIT_OK;
    bool wrong = false;
    r->start = mono_now_s();
    r->started = (long long)time(NULL);
    if (!pa->csv)
        perf_print_run_head(r);
    for (int cycle = 0; rc == CLI_EXIT_OK &&
                        (!pa->cycles || cycle < pa->cycles); cycle++) {
        if (pa->cycles != 1 && !pa->csv)
            printf("# cycle %d%s\n#\n", cycle + 1, pa->cycles ? "" :
                   " (until interrupted)");
        r->done = 0;
        perf_rows_free(s->rows, (s->nalgo + 1) * s->nsizes);
        memset(s->rows, 0, (s->nalgo + 1) * s->nsizes * sizeof *s->rows);
        rc = run_all(s->ex, r, s->algos, s->nalgo, s->v, s->nv, s->nsizes,
                     s->rows, failure, len);
        wrong |= perf_wrong_total(s->rows, r->done) != 0;
    }
    if (rc == CLI_EXIT_OK && !pa->csv)
        perf_print_run_foot(r, s->algos, s->nalgo);
    return rc == CLI_EXIT_OK && (wrong || r->bw_failed) ? CLI_EXIT_FAIL : rc;
}

/* Set up, measure, report; the results into the JSON files too (NULL:
 * not asked for). */
static int perf_main(const PerfArgs *in, JsonOut *json, JsonOut *nccl)
{
    PerfArgs local = *in;
    Setup s = {.ex = NULL};
    char failure[CV_WHY_LEN] = "";
    Run r = {.pa = &local, .tty = isatty(STDERR_FILENO)};
    int rc = perf_setup(&local, &s, &r, failure, sizeof failure);
    if (rc == CLI_EXIT_OK)
        rc = perf_cycles(&s, &r, failure, sizeof failure);
    free(s.v);
    if (s.ex)
        s.ex->ops->close(s.ex);
    const char *f = failure[0] ? failure : NULL;
    if (json)
        rc = perf_json_close(json, &r, s.rows, rc, f);
    if (nccl)
        rc = perf_json_close(nccl, &r, s.rows, rc, f);
    perf_rows_free(s.rows, (s.nalgo + 1) * s.nsizes);
    free(s.rows);
    free(r.where);
    return rc;
}

int cmd_perf(int argc, char **argv)
{
    CliArgs a;
    CliErr err;
    PerfArgs pa;
    JsonOut json, nccl;
    int rc = cli_start(&cmd, O_HELP, argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (parse_perf(&a, &pa, &err))
        return cli_error(&err);
    pa.argc = argc, pa.argv = argv;
    if (pa.json_path &&
        (rc = perf_json_open(&json, pa.json_path, "--json", false)) >= 0)
        return rc;
    if (pa.nccl_json &&
        (rc = perf_json_open(&nccl, pa.nccl_json, "-J", true)) >= 0) {
        if (pa.json_path)
            perf_json_close(&json, NULL, NULL, CLI_EXIT_USAGE, NULL);
        return rc;
    }
    return perf_main(&pa, pa.json_path ? &json : NULL,
                     pa.nccl_json ? &nccl : NULL);
}
