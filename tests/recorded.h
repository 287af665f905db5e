/* recorded.h - a recorded perf run set against the model: the rows of
 * `collviz perf`'s tables as a run printed them (bench/results/raw/),
 * the parameters of a memory machine taken from its one-rank rows alone,
 * and how many rows the model prices within a band and in how many
 * (collective, ranks, size) groups it chooses the fastest algorithm.
 * Used by tests/test_recorded.c and bench/recorded.c. */
#ifndef COLLVIZ_TESTS_RECORDED_H
#define COLLVIZ_TESTS_RECORDED_H

#include <stdio.h>

#include "core/coll.h"
#include "core/machine.h"

/* One row of a perf table: out of place. */
typedef struct {
    CollKind kind;
    char algo[32];
    int p;
    unsigned long long size; /* bytes, nccl-tests' meaning */
    double time_us;          /* measured, out of place */
    double model_us;         /* the model column as recorded (0: none) */
} RecRow;

typedef struct {
    RecRow *rows;
    size_t n, cap;
    double alpha_us; /* the recorded calibration's alpha (one step of
                        one-element messages); 0: none in the files */
} RecRun;

/* Add the rows of the perf tables in the file at path (and a
 * calibration's alpha line). 0, or -1 when it cannot be read. */
int rec_read(const char *path, RecRun *run);
void rec_free(RecRun *run);

/* A gpu machine's level from the run's one-rank rows (linear broadcast:
 * one copy) and its calibration's alpha, for a device whose cache holds
 * `cache` bytes:
 *  - step: the calibration's alpha;
 *  - the floor: the median time of the copies of at most 64 KiB, all
 *    start; call: the floor less one step;
 *  - beta_mem: the slowest traffic rate (2 n bytes: read and write,
 *    over the time above the floor) of the copies whose footprint (2 n)
 *    is at least 4 times the cache;
 *  - beta_cache: the same of the largest copy whose footprint is at most
 *    half the cache;
 *  - shared reads.
 * -1 when the rows lack one of them. */
int rec_fit_gpu(const RecRun *run, double cache, MemLevel *out);

/* What a model scored on the rows of p >= 2 and size >= min_size that
 * have a schedule (not the libraries' own). */
typedef struct {
    int rows, within;    /* rows, and those with measured / model within
                            1 +- band */
    int groups, chosen;  /* (collective, p, size) groups of two
                            algorithms or more, and those where the
                            model's cheapest is the fastest measured */
} RecScore;

/* Score the model of ml (ml NULL: the model column the run recorded);
 * with `report`, a line per row and per group. -1 when a row's
 * schedule cannot be generated or priced. */
int rec_score(const RecRun *run, const MemLevel *ml, double band,
              unsigned long long min_size, FILE *report, RecScore *out);

#endif
