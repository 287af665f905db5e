/* worker.h - the TUI's background thread: timed runs at the chosen size and
 * the bandwidth sweep, on an executor of its own, so the screen never
 * freezes. Results sit in a mutex-protected table that app_poll() copies
 * into the App (views read the App, never the worker). Every job can be
 * cancelled; a new job cancels the running one. */
#ifndef COLLVIZ_UI_WORKER_H
#define COLLVIZ_UI_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "measure/calib.h"
#include "ui/app.h"

/* A job for the worker. */
typedef struct {
    BgKind kind;            /* BG_BENCH or BG_SWEEP */
    CollCall call;          /* the scene's call (count set per size) */
    const AlgoInfo *algo;   /* the algorithm (sweeps: unless compare) */
    bool compare;           /* sweep every algorithm of call.kind */
    const ExecOps *backend; /* where to run */
    const char *backend_params; /* its options (ExecOptions.params), or NULL;
                                   must outlive the job */
    uint64_t bytes;         /* bench: the size; sweep: the largest size */
    uint64_t min_bytes;     /* sweep: the smallest size */
    LinkModel link;         /* link model of the predictions */
    ModelParams params;     /* model parameters without a calibration */
    bool calibrated;        /* calib holds a calibration */
    Calib calib;            /* calibration for the predictions */
    double budget_s;        /* seconds of timed iterations per measurement */
} WorkerJob;

/* Start the thread; NULL when it cannot start (no memory, no thread). */
Worker *worker_new(void);
/* Cancel the job, stop the thread, free everything. */
void worker_free(Worker *w);

/* Queue job j (cancelling the running one); returns its id (> 0). */
unsigned worker_submit(Worker *w, const WorkerJob *j);
/* Ask the running job to stop at its next measurement. */
void worker_cancel(Worker *w);
/* Wait until no job is running or queued (scripts, tests). */
void worker_wait(Worker *w);

/* Copy the state and results of job `id` into the App (bg, bg_progress,
 * measurements, sweep points, and a message when the job ended). Returns
 * true when something changed since the last call. */
bool worker_sync(Worker *w, unsigned id, App *app);

/* Sizes of a sweep from min to max bytes (factor 4, whole blocks only),
 * into out (at most cap); returns how many. */
size_t worker_sweep_sizes(const CollCall *c, uint64_t min, uint64_t max,
                          uint64_t *out, size_t cap);

#endif
