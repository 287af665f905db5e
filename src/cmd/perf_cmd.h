/* perf_cmd.h - what `collviz perf`'s two files share (cmd_perf.c: the
 * options, the run, the table and CSV; perf_json.c: the --json file):
 * the run's options and state, and the columns' words. Private to
 * src/cmd/. */
#ifndef COLLVIZ_CMD_PERF_CMD_H
#define COLLVIZ_CMD_PERF_CMD_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "core/machine.h"
#include "measure/perf.h"
#include "store/json.h"
#include "store/store.h"

/* Everything one run of the command needs. */
typedef struct {
    PerfConfig cfg;         /* what to measure */
    const AlgoInfo *algo;   /* the algorithm, or NULL for all */
    int native_only;        /* -a LIB: the library's own collective alone */
    const char *native;     /* the backend's library's row name, or NULL */
    const char *native_note; /* how that row's calls are issued, for its
                                header (ExecOps.native_note), or NULL */
    const char *backend;    /* backend name */
    const char *json_path;  /* --json FILE, or NULL */
    int csv;                /* --csv given */
    bool all_dtypes;        /* -d all: every type, one after another */
    bool all_ops;           /* -o all: every op (reducing collectives) */
    bool all_roots;         /* -r all: every root (rooted collectives) */
    double min_bw;          /* --min-bw or NCCL_TESTS_MIN_BW, GB/s; -1:
                               none */
    int cycles;             /* -N: sweeps to run (0: until interrupted) */
    bool mem_report;        /* -M 1: the buffers' memory in the footer */
    bool each_in_loop;      /* -I 1 where the backend times each iteration
                               in its loop (ExecOps.times_each) */
    const char *nccl_json;  /* -J FILE: nccl-tests' JSON, or NULL */
    bool stamps;            /* -S 1: each row's time at its end */
    int unalign;            /* -u: elements past the buffers' start */
    Machine mach;           /* -T's machine (cfg.what_if points here) */
    int argc;               /* the command's words, for -J's args */
    char **argv;
} PerfArgs;

/* State of one run of the command, shared with the row callback. */
typedef struct {
    const PerfArgs *pa;   /* the options */
    const Calib *cal;     /* the calibration in use (NULL: none yet) */
    int tty;              /* stderr is a terminal: show progress there */
    int shown;            /* a progress line is on stderr now */
    double start;         /* when measuring began, s */
    long long started;    /* the same, seconds since the epoch */
    size_t done;          /* rows done over all algorithms */
    size_t total;         /* rows over all algorithms */
    bool bw_failed;       /* an average busbw fell below --min-bw */
    ExecRankWhere *where; /* [nranks] where each rank runs, or NULL where
                             the backend does not say */
    bool on_gpu;          /* the ranks' buffers are a GPU's (cuda) */
    bool held;            /* rows are printed after they are all measured
                             (-a all's interleaved run), not as they come */
    const AlgoInfo *const *algos; /* the algorithms run, in their order, */
    size_t nalgo;         /* ... and how many (NULL: the library's own) */
    size_t stride;        /* rows of one algorithm */
} Run;

/* The nccl-tests whose output and JSON perf follows. */
#define PERF_NCCL_TESTS_VERSION "2.19.6"

/* nccl-tests' getFloatStr: v in width characters with 2, 1 or 0
 * decimals, the first that fits, else in exponent form; buf holds n. */
void perf_float_str(double v, int width, char *buf, size_t n);

/* nccl-tests' program for collective k ("all_reduce_perf"). */
const char *perf_program_name(CollKind k);

/* Ranks per process, nccl-tests' nGpus (the threads and cuda backends
 * run every rank in one process, mpi one in each). */
int perf_ranks_per_process(const Run *r);

/* nccl-tests' device number and kind of a rank's unit ("cpu 3", "device 0
 * NAME"): the CPU or the device, else `rank`, its place in its process;
 * *kind "cpu" or "gpu". */
int perf_unit_number(const ExecRankWhere *w, int rank, const char **kind);

/* Each algorithm's average busbw (its stride rows of rows[0 .. n); rows
 * not measured have no name) as members of object `key`. */
void perf_json_algo_avgs(JsonWriter *w, const char *key, const Run *r,
                         const PerfRow *rows, size_t n);

/* -J's document (perf_json_nccl.c): rows[0 .. n), the failure's
 * sentence (NULL: none), in nccl-tests' schema. */
void perf_json_nccl(JsonWriter *w, const Run *r, const PerfRow *rows,
                    size_t n, const char *failure);

/* The name of algorithm a's rows: its own, or for NULL the library's. */
const char *perf_row_name(const PerfArgs *pa, const AlgoInfo *a);

/* The table (perf_table.c): the run's head once (nccl-tests' version,
 * starting, settings and rank lines), each algorithm's head, its rows
 * (each with the model's line under it), its foot (wrong elements and
 * the average busbw; bw_failed set where it is short of --min-bw), the
 * summary of -a all, and the run's foot (the concluded line, -M 1's
 * memory); and the CSV's head and rows. */
void perf_print_run_head(const Run *r);
void perf_print_table_head(const Run *r, const AlgoInfo *a,
                           const ExecHost *host);
void perf_print_row(const PerfArgs *pa, const PerfRow *row, MachineKind l);
void perf_print_table_foot(Run *r, const PerfRow *rows, size_t n);
void perf_print_summary(const Run *r, const PerfRow *rows, size_t nalgo,
                        size_t nsizes, const PerfRow *lib);
void perf_print_run_foot(const Run *r, const AlgoInfo *const *algos,
                         size_t nalgo);
void perf_print_csv_head(void);
void perf_print_csv_row(const PerfConfig *c, const Calib *cal,
                        const PerfRow *r, bool stamps);

/* The root column: the root of a rooted collective, else -1. */
static inline int perf_root_column(CollKind k, int root)
{
    return coll_is_rooted(k) ? root : -1;
}

/* The redop column: the op of a reducing collective, else "none" (as
 * nccl-tests prints it). */
static inline const char *perf_redop_column(CollKind k, RedOp op)
{
    return coll_is_reducing(k) ? redop_name(op) : "none";
}

/* -S's timestamp of a row: local time, nccl-tests' format. */
static inline void perf_fmt_stamp(char *buf, size_t n, long long when)
{
    time_t t = (time_t)when;
    struct tm tm;
    if (!localtime_r(&t, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M:%S", &tm))
        snprintf(buf, n, "-");
}

/* --json FILE: written beside FILE and renamed over it when the run ends
 * (store.h), so that a run that fails or is killed never leaves FILE
 * empty. A FILE that is not a plain file (a FIFO, a terminal,
 * /dev/stdout) is written in place, as there is nothing in it to keep;
 * one that is a link to a plain file is written beside its target. */
typedef struct {
    const char *path; /* FILE as given */
    const char *opt;  /* the option that named it: "--json" or "-J" */
    bool nccl;        /* -J: nccl-tests' schema; else collviz's own */
    StoreTmp tmp;     /* the file written, when it is renamed into place */
    FILE *direct;     /* FILE itself, when it is not */
} JsonOut;

/* Open FILE for the results (opt: the option that names it; nccl:
 * nccl-tests' schema): -1, or the exit status after one sentence. */
int perf_json_open(JsonOut *j, const char *path, const char *opt, bool nccl);

/* The run is over: a run that found bad input (rc 2) leaves FILE as it
 * was; any other writes what was measured (rows[0 .. r->done)), with the
 * failure's sentence when there is one, and puts it in place. Returns the
 * exit status. */
int perf_json_close(JsonOut *j, const Run *r, const PerfRow *rows, int rc,
                    const char *failure);

#endif
