/* worker.h - the TUI's background thread: timed runs at the chosen size and
 * the bandwidth sweep, on an executor of its own, so the screen never
 * freezes. The worker knows no App: it posts what it finds (a timed run, a
 * sweep point, how far it is, an error, the end of a job) as WorkerResults
 * into a queue under its own lock; the main thread takes them out
 * (worker_take) and applies them. Every job can be cancelled; a new job
 * cancels the running one, whose results are then stale (another job id). */
#ifndef COLLVIZ_UI_WORKER_H
#define COLLVIZ_UI_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algos/algo.h"
#include "core/coll.h"
#include "exec/exec.h"
#include "scene/predictor.h"

typedef struct Worker Worker;

/* What a job does (and, for whoever watches, what runs). */
typedef enum {
    WORKER_IDLE,  /* nothing running */
    WORKER_BENCH, /* timed run at the chosen size */
    WORKER_SWEEP, /* bandwidth sweep over sizes (and algorithms) */
    WORKER_CALIB, /* calibrate the backend at the call's ranks (and
                     save it), then, with then_bench, a timed run */
    WORKER_KIND_COUNT
} WorkerKind;

/* Most points one sweep makes (sizes x algorithms). */
#define WORKER_SWEEP_MAX 512
/* Timed parts a timed run takes at least, however long one iteration
 * is: its median is never one run's time. */
#define WORKER_BENCH_RUNS 3

/* A job for the worker. */
typedef struct {
    WorkerKind kind;        /* WORKER_BENCH or WORKER_SWEEP */
    CollCall call;          /* the scene's call (count set per size) */
    const AlgoInfo *algo;   /* the algorithm (sweeps: unless compare) */
    bool compare;           /* sweep every algorithm of call.kind */
    const ExecOps *backend; /* where to run */
    const char *backend_params; /* its options (ExecOptions.params), or NULL;
                                   must outlive the job */
    uint64_t bytes;         /* bench: the size; sweep: the largest size */
    uint64_t min_bytes;     /* sweep: the smallest size */
    Predictor model;        /* the scene's model (predictor.h): the sweep's
                               model points come from it, as the scene's */
    double budget_s;        /* seconds of timed iterations per measurement */
    bool quick;             /* calib: the quick calibration */
    bool then_bench;        /* calib: a timed run at `bytes` follows, priced
                               by the new calibration */
} WorkerJob;

/* One point of the bandwidth sweep (the chart's data). */
typedef struct {
    const AlgoInfo *algo; /* algorithm measured */
    uint64_t bytes;       /* message size (nccl-tests meaning) */
    double time_s;        /* measured seconds per iteration */
    double algbw;         /* measured GB/s: bytes / time */
    double busbw;         /* measured algbw * busbw factor */
    double model_s;       /* model's prediction in seconds */
    double model_busbw;   /* busbw the model predicts */
    bool ok;              /* measured and verified; else failed */
} SweepPoint;

/* What a result says. */
typedef enum {
    WORKER_TIMED,    /* a timed run's measurement */
    WORKER_POINT,    /* one more sweep point */
    WORKER_PROGRESS, /* only how far the job is */
    WORKER_ERROR,    /* the job failed; msg says how */
    WORKER_DONE,     /* the job ended (or was cancelled); msg says so */
    WORKER_CALIBRATED, /* a calibration measured (and saved: msg says
                          whether) */
    WORKER_RESULT_COUNT
} WorkerResultKind;

/* One result of a job. */
typedef struct WorkerResult {
    WorkerResultKind kind; /* what it says */
    unsigned job;          /* id of the job it belongs to */
    double progress;       /* 0..1: how far the job is */
    size_t planned;        /* a sweep's points in all (0: not known) */
    double iter_s;         /* TIMED: seconds per iteration, the median
                              of the timed parts' means */
    double min_s;          /* TIMED: the fastest part's mean */
    int runs;              /* TIMED: parts timed (min_s, iter_s over them) */
    int moved;             /* TIMED: how the machine moved between the
                              calibration and the run (PERF_HOST_* bits) */
    double *step_s;        /* TIMED: [nsteps] seconds per step, or NULL;
                              whoever takes the result owns it */
    size_t nsteps;         /* TIMED: entries of step_s */
    bool verified;         /* TIMED: the outputs checked right */
    uint64_t bytes;        /* TIMED: the size measured */
    SweepPoint point;      /* POINT: the point */
    Calib *calib;          /* CALIBRATED: the calibration; whoever takes
                              the result owns it */
    bool error;            /* ERROR, DONE: msg reports a failure (wrong
                              results included) */
    char msg[320];         /* ERROR, DONE: one sentence */
} WorkerResult;

/* Start the thread; NULL when it cannot start (no memory, no thread). */
Worker *worker_new(void);
/* Cancel the job (as worker_cancel), stop the thread, free everything. */
void worker_free(Worker *w);

/* Queue job j (cancelling the running one, dropping results not taken
 * yet); returns its id (> 0). */
unsigned worker_submit(Worker *w, const WorkerJob *j);
/* Ask the running or queued job to stop: its measurement stops between
 * steps or chunks, and the executor's call in progress is cut short
 * (ExecOps.cancel), so that it ends within a second. */
void worker_cancel(Worker *w);
/* Wait until no job is running or queued (scripts, tests). */
void worker_wait(Worker *w);

/* Take the oldest result not taken yet into *out; false when there is
 * none. Free what it owns with worker_result_fini. */
bool worker_take(Worker *w, WorkerResult *out);
void worker_result_fini(WorkerResult *r);

/* Sizes of a sweep from min to max bytes (factor 4, whole blocks only),
 * into out (at most cap); returns how many. */
size_t worker_sweep_sizes(const CollCall *c, uint64_t min, uint64_t max,
                          uint64_t *out, size_t cap);

#endif
