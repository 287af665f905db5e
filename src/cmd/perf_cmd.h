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
#include "store/store.h"

/* Everything one run of the command needs. */
typedef struct {
    PerfConfig cfg;         /* what to measure */
    const AlgoInfo *algo;   /* the algorithm, or NULL for all */
    int native_only;        /* -a LIB: the library's own collective alone */
    const char *native;     /* the backend's library's row name, or NULL */
    const char *backend;    /* backend name */
    const char *json_path;  /* --json FILE, or NULL */
    int csv;                /* --csv given */
    bool all_dtypes;        /* -d all: every type, one after another */
    bool all_ops;           /* -o all: every op (reducing collectives) */
    bool all_roots;         /* -r all: every root (rooted collectives) */
    double min_bw;          /* --min-bw or NCCL_TESTS_MIN_BW, GB/s; -1:
                               none */
    int cycles;             /* -N: sweeps to run (0: until interrupted) */
    bool mem_report;        /* -M: the buffers' memory in the header */
    bool stamps;            /* -S 1: each row's time at its end */
    int unalign;            /* -u: elements past the buffers' start */
    Machine mach;           /* -T's machine (cfg.what_if points here) */
} PerfArgs;

/* State of one run of the command, shared with the row callback. */
typedef struct {
    const PerfArgs *pa;   /* the options */
    const Calib *cal;     /* the calibration in use (NULL: none yet) */
    int tty;              /* stderr is a terminal: show progress there */
    int shown;            /* a progress line is on stderr now */
    double start;         /* when measuring began, s */
    size_t done;          /* rows done over all algorithms */
    size_t total;         /* rows over all algorithms */
    bool bw_failed;       /* an average busbw fell below --min-bw */
    ExecRankWhere *where; /* [nranks] where each rank runs, or NULL where
                             the backend does not say */
} Run;

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
    StoreTmp tmp;     /* the file written, when it is renamed into place */
    FILE *direct;     /* FILE itself, when it is not */
} JsonOut;

/* Open FILE for the results: -1, or the exit status after one sentence. */
int perf_json_open(JsonOut *j, const char *path);

/* The run is over: a run that found bad input (rc 2) leaves FILE as it
 * was; any other writes what was measured (rows[0 .. r->done)), with the
 * failure's sentence when there is one, and puts it in place. Returns the
 * exit status. */
int perf_json_close(JsonOut *j, const Run *r, const PerfRow *rows, int rc,
                    const char *failure);

#endif
