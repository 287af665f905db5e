/* remodel.c - the model check of a kept bench run, with this build's model.
 *
 * bench/run.sh -k DIR keeps what a run measured: collviz perf's CSV of
 * every collective and rank count (DIR/cv-COLL-P.csv, one block per round)
 * and the calibration of every round (DIR/cache-rN/collviz/). This program
 * predicts every out-of-place row again with this build's model
 * (calib_predict) and its round's calibration, and checks what section 3
 * of bench/report.sh checks: for every algorithm, the median over the
 * rounds of measured / model within 25% at every size of at least 1 MiB.
 * A change of the model can then be set against runs already measured
 * (the timings and the calibrations stay as they were) before a new run
 * says whether it holds.
 *
 * usage: remodel [-v] DIR...
 *        remodel -c DIR DIR...
 *   -v: a line for every algorithm (the medians at each size), not only
 *       the misses
 *   -c: no model; how far the runs agree with one another instead. The
 *       same check with one run's medians in place of the model, for
 *       every pair of runs, and with the median over every round of all
 *       the runs: the best a prediction of one time per algorithm and
 *       size could do on these runs, fitted to them. A run that misses
 *       that one leaves the model nothing to fit: the machine did not
 *       repeat itself.
 * Each DIR's collectives and rank counts are those it has CSVs of; the
 * backend is threads (the one bench/run.sh measures). Prints one line per
 * DIR and one for all of them: algorithms within the band at every size,
 * out of all. Exit status 2 when a DIR has no CSV or a calibration is
 * missing or damaged. */
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "measure/calib.h"
#include "exec/probe.h"

#define MAX_ROUNDS 16  /* rounds of one run read at most */
#define MAX_ROWS 256   /* (algorithm, size) pairs of one CSV */
#define MIN_BYTES (1ull << 20) /* the check's smallest size */
#define BAND 0.25      /* within 25% of the model */
#define MAX_RUNS 16    /* DIRs compared by -c at most */

/* One algorithm at one size: the ratios measured / model, or (-c) the
 * measured times, of its rounds. */
typedef struct {
    char algo[32];
    unsigned long long size;
    double val[MAX_ROUNDS];
    int n;
} Row;

/* One CSV line's fields that the checks read. */
typedef struct {
    char algo[32], type[16], op[16];
    unsigned long long size;
    long long count;
    int root;
    double us; /* out-of-place time */
} CsvRow;

typedef struct {
    int verbose;  /* 1: a line for every algorithm; -1: none */
    int fit, all; /* algorithms within the band at every size, and all */
} Tally;

/* Load the calibration of round `round` of dir for p ranks: the file of
 * threads at p ranks in the round's cache (calib-threads-HASH-pP.txt, or
 * calib-threads-pP.txt as collviz kept them before it named the machine),
 * whatever machine it names (calib_read). */
static int load_round(const char *dir, int round, int p, Calib *c)
{
    char pat[PATH_MAX + 64], why[PATH_MAX + 128];
    const char *forms[] = {"calib-threads-*-p%d.txt", "calib-threads-p%d.txt"};
    int version, n = snprintf(pat, sizeof pat, "%s/cache-r%d/collviz/", dir,
                              round);
    for (size_t i = 0; i < 2; i++) {
        glob_t g;
        snprintf(pat + n, sizeof pat - (size_t)n, forms[i], p);
        int found = !glob(pat, 0, NULL, &g) && g.gl_pathc > 0;
        CvError e = found ? calib_read(g.gl_pathv[0], c, &version, why,
                                       sizeof why)
                          : CV_ERR_IO;
        globfree(&g);
        if (found && e)
            fprintf(stderr, "remodel: %s\n", why);
        if (found)
            return e ? -1 : 0;
    }
    pat[n] = '\0';
    fprintf(stderr, "remodel: no calibration of %d ranks in %s\n", p, pat);
    return -1;
}

/* The model of one CSV row under c; 0 when it cannot be predicted. */
static double model_of(const Calib *c, int kind, const char *algo, int p,
                       long long count, const char *type, const char *op,
                       int root)
{
    const AlgoInfo *a = algo_find((CollKind)kind, algo);
    int dt = dtype_parse(type), rop = redop_parse(op);
    if (!a || dt < 0 || rop < 0 || count < 0)
        return 0;
    CollCall call = {.kind = (CollKind)kind, .nranks = p,
                     .count = (size_t)count, .dtype = (DataType)dt,
                     .op = (RedOp)rop, .root = root > 0 ? root : 0};
                     /* the CSV's -1: a collective without a root */
    Schedule s;
    double t = 0;
    if (algo_generate(a, &call, &s))
        return 0;
    if (calib_predict(c, &s, c->machine, &t))
        t = 0;
    sched_fini(&s);
    return t;
}

/* Parse a CSV data line of a size the check covers; 0 otherwise. */
static int parse_row(const char *line, CsvRow *x)
{
    return sscanf(line, "%31[^,],%llu,%lld,%15[^,],%15[^,],%d,%lf", x->algo,
                  &x->size, &x->count, x->type, x->op, &x->root,
                  &x->us) == 7 &&
           x->size >= MIN_BYTES;
}

/* The row of algo at size in rows; NULL when there is none. */
static Row *find_row(Row *rows, int nrows, const char *algo,
                     unsigned long long size)
{
    for (int j = 0; j < nrows; j++)
        if (rows[j].size == size && !strcmp(rows[j].algo, algo))
            return &rows[j];
    return NULL;
}

/* Add a round's value v of algo at size to rows. */
static void add_row(Row *rows, int *nrows, const char *algo,
                    unsigned long long size, double v)
{
    Row *r = find_row(rows, *nrows, algo, size);
    if (!r) {
        if (*nrows == MAX_ROWS)
            return;
        r = &rows[(*nrows)++];
        *r = (Row){.size = size};
        snprintf(r->algo, sizeof r->algo, "%s", algo);
    }
    if (r->n < MAX_ROUNDS)
        r->val[r->n++] = v;
}

/* Read one CSV into rows: measured / model under each round's
 * calibration, or (c_of 0) the measured times (us); -1 on a missing
 * calibration. */
static int read_csv(FILE *f, const char *dir, int kind, int p, int c_of,
                    Row *rows, int *nrows)
{
    char line[1024];
    int round = 0, have = 0;
    Calib c;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "algorithm,", 10)) {
            if (++round > MAX_ROUNDS)
                break;
            if (c_of && load_round(dir, round, p, &c))
                return -1;
            have = 1;
            continue;
        }
        CsvRow x;
        if (!have || !parse_row(line, &x))
            continue;
        if (!c_of) {
            add_row(rows, nrows, x.algo, x.size, x.us);
            continue;
        }
        double m = model_of(&c, kind, x.algo, p, x.count, x.type, x.op,
                            x.root);
        if (m > 0)
            add_row(rows, nrows, x.algo, x.size, x.us * 1e-6 / m);
    }
    return 0;
}

/* Check every algorithm of rows (sizes in the CSV's order). */
static void check(const char *coll, int p, Row *rows, int nrows, Tally *t)
{
    for (int j = 0; j < nrows; j++) {
        int first = 1;
        for (int q = 0; q < j && first; q++)
            first = strcmp(rows[q].algo, rows[j].algo) != 0;
        if (!first)
            continue;
        double lo = INFINITY, hi = 0;
        char sizes[512] = "";
        size_t used = 0;
        for (int q = j; q < nrows; q++) {
            if (strcmp(rows[q].algo, rows[j].algo))
                continue;
            double m = probe_median(rows[q].val, (size_t)rows[q].n);
            lo = fmin(lo, m), hi = fmax(hi, m);
            if (used < sizeof sizes)
                used += (size_t)snprintf(sizes + used, sizeof sizes - used,
                                         " %.2f", m);
        }
        int ok = lo >= 1 - BAND && hi <= 1 + BAND;
        t->all++, t->fit += ok;
        if (t->verbose > 0 || (!ok && !t->verbose))
            printf("  %-14s %2d  %-20s %5.2f %5.2f  %-6s |%s\n", coll, p,
                   rows[j].algo, lo, hi, ok ? "ok" : "MISSED", sizes);
    }
}

/* dir's CSV of collective k at p ranks. */
static FILE *open_csv(const char *dir, int k, int p)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/cv-%s-%d.csv", dir,
             coll_name((CollKind)k), p);
    return fopen(path, "r");
}

/* Check every CSV of dir; -1 when it has none or a calibration is
 * missing. */
static int remodel(const char *dir, Tally *t)
{
    int files = 0;
    static Row rows[MAX_ROWS];
    for (int k = 0; k < COLL_COUNT; k++)
        for (int p = 1; p <= 1024; p++) {
            FILE *f = open_csv(dir, k, p);
            if (!f)
                continue;
            int nrows = 0;
            int e = read_csv(f, dir, k, p, 1, rows, &nrows);
            fclose(f);
            if (e)
                return -1;
            check(coll_name((CollKind)k), p, rows, nrows, t);
            files++;
        }
    if (!files)
        fprintf(stderr, "remodel: no collviz perf CSV (cv-COLL-P.csv) in %s\n",
                dir);
    return files ? 0 : -1;
}

/* The CSVs (collective, ranks) that every run compared by -c has. */
typedef struct {
    int k, p;
} Csv;

static Csv common[COLL_COUNT * 1024];
static int ncommon;

static void find_common(char **dirs, int n)
{
    for (int k = 0; k < COLL_COUNT; k++)
        for (int p = 1; p <= 1024; p++) {
            int all = 1;
            for (int d = 0; all && d < n; d++) {
                FILE *f = open_csv(dirs[d], k, p);
                all = f != NULL;
                if (f)
                    fclose(f);
            }
            if (all)
                common[ncommon++] = (Csv){k, p};
        }
}

/* The measured times of every round of one common CSV in each of the n
 * dirs into runs[d] (nrun[d] rows). */
static Row runs[MAX_RUNS][MAX_ROWS];
static int nrun[MAX_RUNS];

static void load_runs(char **dirs, int n, Csv c)
{
    for (int d = 0; d < n; d++) {
        FILE *f = open_csv(dirs[d], c.k, c.p);
        nrun[d] = 0;
        if (f) {
            read_csv(f, dirs[d], c.k, c.p, 0, runs[d], &nrun[d]);
            fclose(f);
        }
    }
}

/* The median of row (algo, size) over every round of all n runs. */
static double pooled_median(int n, const char *algo, unsigned long long size)
{
    double v[MAX_RUNS * MAX_ROUNDS];
    size_t m = 0;
    for (int d = 0; d < n; d++) {
        const Row *r = find_row(runs[d], nrun[d], algo, size);
        for (int i = 0; r && i < r->n; i++)
            v[m++] = r->val[i];
    }
    return m ? probe_median(v, m) : NAN;
}

/* Check run a against run b (b < 0: against the median of every round of
 * all n runs), over the common CSVs. */
static void agree_one(char **dirs, int n, int a, int b, Tally *t)
{
    static Row cmp[MAX_ROWS];
    for (int i = 0; i < ncommon; i++) {
        load_runs(dirs, n, common[i]);
        int m = 0;
        for (int j = 0; j < nrun[a]; j++) {
            Row *x = &runs[a][j], *y;
            double ref = NAN;
            if (b < 0)
                ref = pooled_median(n, x->algo, x->size);
            else if ((y = find_row(runs[b], nrun[b], x->algo, x->size)))
                ref = probe_median(y->val, (size_t)y->n);
            if (!(ref > 0))
                continue;
            cmp[m] = (Row){.size = x->size, .n = 1};
            memcpy(cmp[m].algo, x->algo, sizeof cmp[m].algo);
            cmp[m++].val[0] = probe_median(x->val, (size_t)x->n) / ref;
        }
        check(coll_name((CollKind)common[i].k), common[i].p, cmp, m, t);
    }
}

/* -c: how far the n runs agree with one another. */
static int agree(char **dirs, int n, int verbose)
{
    Tally all = {0};
    find_common(dirs, n);
    if (!ncommon) {
        fprintf(stderr, "remodel: the runs have no collviz perf CSV"
                        " (cv-COLL-P.csv) in common\n");
        return 2;
    }
    printf("# how far kept bench runs agree with one another: the model check"
           " with\n# another run's medians, or the median of every round of"
           " all the runs, as the model\n"
           "# (within %.0f%% at every size >= 1 MiB)\n", BAND * 100);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            Tally t = {.verbose = -1};
            agree_one(dirs, n, a, b, &t);
            printf("# %s against %s: %d of %d algorithms fit\n", dirs[a],
                   dirs[b], t.fit, t.all);
        }
    printf("#   collective      p  algorithm              min   max         "
           "| run / all rounds at each size\n");
    for (int d = 0; d < n; d++) {
        Tally t = {.verbose = verbose};
        agree_one(dirs, n, d, -1, &t);
        printf("# %s against the median of all %d runs' rounds: %d of %d"
               " algorithms fit\n", dirs[d], n, t.fit, t.all);
        all.fit += t.fit, all.all += t.all;
    }
    printf("# all: %d of %d algorithms fit the median of all rounds\n",
           all.fit, all.all);
    return 0;
}

int main(int argc, char **argv)
{
    Tally all = {0};
    int i = 1, runs_only = 0;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (!strcmp(argv[i], "-v"))
            all.verbose = 1;
        else if (!strcmp(argv[i], "-c"))
            runs_only = 1;
        else
            break;
    }
    if (i >= argc || argv[i][0] == '-' ||
        (runs_only && (argc - i < 2 || argc - i > MAX_RUNS))) {
        fprintf(stderr, "usage: remodel [-v] DIR...\n"
                        "       remodel -c [-v] DIR DIR... (2 to %d)\n",
                MAX_RUNS);
        return 2;
    }
    if (runs_only)
        return agree(argv + i, argc - i, all.verbose);
    printf("# the model check of kept bench runs, with this build's model:\n"
           "# median over the rounds of measured / model within %.0f%% at every"
           " size >= 1 MiB\n"
           "#   collective      p  algorithm              min   max         "
           "| median at each size\n", BAND * 100);
    for (; i < argc; i++) {
        Tally t = {.verbose = all.verbose};
        if (remodel(argv[i], &t))
            return 2;
        printf("# %s: %d of %d algorithms fit\n", argv[i], t.fit, t.all);
        all.fit += t.fit, all.all += t.all;
    }
    printf("# all: %d of %d algorithms fit\n", all.fit, all.all);
    return 0;
}
