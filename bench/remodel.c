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
 *   -v: a line for every algorithm (the medians at each size), not only
 *       the misses
 * Each DIR's collectives and rank counts are those it has CSVs of; the
 * backend is threads (the one bench/run.sh measures). Prints one line per
 * DIR and one for all of them: algorithms within the band at every size,
 * out of all. Exit status 2 when a DIR has no CSV or a calibration is
 * missing or damaged. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "calib.h"
#include "probe.h"

#define MAX_ROUNDS 16  /* rounds of one run read at most */
#define MAX_ROWS 256   /* (algorithm, size) pairs of one CSV */
#define MIN_BYTES (1ull << 20) /* the check's smallest size */
#define BAND 0.25      /* within 25% of the model */

/* The ratios measured / model of one algorithm at one size. */
typedef struct {
    char algo[32];
    unsigned long long size;
    double ratio[MAX_ROUNDS];
    int n;
} Row;

typedef struct {
    int verbose;
    int fit, all; /* algorithms within the band at every size, and all */
} Tally;

/* Load the calibration of round `round` of dir for p ranks. */
static int load_round(const char *dir, int round, int p, Calib *c)
{
    char env[PATH_MAX + 32], abs[PATH_MAX];
    /* calib_path takes XDG_CACHE_HOME only when it is an absolute path */
    snprintf(env, sizeof env, "%s/cache-r%d",
             realpath(dir, abs) ? abs : dir, round);
    if (setenv("XDG_CACHE_HOME", env, 1) || calib_load("threads", p, c)) {
        fprintf(stderr, "remodel: no calibration of %d ranks in %s/collviz/\n",
                p, env);
        return -1;
    }
    return 0;
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
    if (calib_predict(c, &s, c->link, &t))
        t = 0;
    sched_fini(&s);
    return t;
}

/* Read one CSV into rows; -1 on a missing calibration. */
static int read_csv(FILE *f, const char *dir, int kind, int p, Row *rows,
                    int *nrows)
{
    char line[1024];
    int round = 0, have = 0;
    Calib c;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "algorithm,", 10)) {
            if (++round > MAX_ROUNDS)
                break;
            if (load_round(dir, round, p, &c))
                return -1;
            have = 1;
            continue;
        }
        char algo[32], type[16], op[16];
        unsigned long long size;
        long long count;
        int root;
        double us;
        if (!have || sscanf(line, "%31[^,],%llu,%lld,%15[^,],%15[^,],%d,%lf",
                            algo, &size, &count, type, op, &root, &us) != 7 ||
            size < MIN_BYTES)
            continue;
        double m = model_of(&c, kind, algo, p, count, type, op, root);
        if (!(m > 0))
            continue;
        int j = 0;
        while (j < *nrows && (strcmp(rows[j].algo, algo) || rows[j].size != size))
            j++;
        if (j == *nrows) {
            if (j == MAX_ROWS)
                continue;
            rows[j] = (Row){.size = size};
            snprintf(rows[j].algo, sizeof rows[j].algo, "%s", algo);
            (*nrows)++;
        }
        if (rows[j].n < MAX_ROUNDS)
            rows[j].ratio[rows[j].n++] = us * 1e-6 / m;
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
            double m = probe_median(rows[q].ratio, (size_t)rows[q].n);
            lo = fmin(lo, m), hi = fmax(hi, m);
            if (used < sizeof sizes)
                used += (size_t)snprintf(sizes + used, sizeof sizes - used,
                                         " %.2f", m);
        }
        int ok = lo >= 1 - BAND && hi <= 1 + BAND;
        t->all++, t->fit += ok;
        if (t->verbose || !ok)
            printf("  %-14s %2d  %-20s %5.2f %5.2f  %-6s |%s\n", coll, p,
                   rows[j].algo, lo, hi, ok ? "ok" : "MISSED", sizes);
    }
}

/* Check every CSV of dir; -1 when it has none or a calibration is
 * missing. */
static int remodel(const char *dir, Tally *t)
{
    int files = 0;
    static Row rows[MAX_ROWS];
    for (int k = 0; k < COLL_COUNT; k++)
        for (int p = 1; p <= 1024; p++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/cv-%s-%d.csv", dir,
                     coll_name((CollKind)k), p);
            FILE *f = fopen(path, "r");
            if (!f)
                continue;
            int nrows = 0;
            int e = read_csv(f, dir, k, p, rows, &nrows);
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

int main(int argc, char **argv)
{
    Tally all = {0};
    int i = 1;
    if (i < argc && !strcmp(argv[i], "-v"))
        all.verbose = 1, i++;
    if (i >= argc || argv[i][0] == '-') {
        fprintf(stderr, "usage: remodel [-v] DIR...\n");
        return 2;
    }
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
