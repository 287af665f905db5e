/* perf.h - the measurement engine behind `collviz perf`: for each size of a
 * sweep it builds the schedule (out of place, then in place), loads it into
 * an executor, times it the way nccl-tests does (warmup, then the timed
 * iterations as a whole, the mean per iteration), checks the results
 * element by element against the collective's definition, and sets beside
 * each measurement the time the calibrated model predicts.
 *
 * Rows come back as structs; nothing is printed. */
#ifndef COLLVIZ_PERF_H
#define COLLVIZ_PERF_H

#include "algos/algo.h"
#include "measure/calib.h"
#include "core/sweep.h"
#include "exec/exec.h"
#include "measure/measure.h"

#define PERF_MAX_ITERS MEASURE_MAX_ITERS /* timed iterations of one row */
#define PERF_MAX_AGG 1000 /* collectives per timed iteration (-m) */
#define PERF_MAX_UNALIGN 4096 /* elements past the buffers' start (-u) */
#define PERF_MAX_MIN_TIME 60.0 /* seconds: the largest min_time_s */

/* What to measure. */
typedef struct {
    CollCall call; /* kind, nranks, dtype, op, root; count and in_place are
                      set per measurement */
    Sweep sweep;   /* the sizes, in bytes (nccl-tests meaning) */
    int iters;     /* timed iterations per measurement, >= 1 */
    double min_time_s; /* > 0: more iterations where iters would take
                          less than this (measured on one timed iteration
                          after the warmup), so that a short run's time is
                          not one scheduling hiccup; 0: exactly iters */
    int warmup;    /* untimed iterations before them, >= 0 */
    int check;     /* checked runs per measurement (0: no check) */
    bool iter_stats; /* keep every iteration's time and their spread
                        (PerfSide.min_s ...; MeasureOptions.each) */
    bool keep_times; /* with iter_stats: and the times themselves
                        (PerfSide.times, perf_rows_free) */
    int agg;       /* collectives per timed iteration (nccl-tests' -m;
                      0 or 1: one; MeasureOptions.agg) */
    int blocking;  /* nccl-tests' -z, 0 to 3 (MeasureOptions.blocking) */
    bool cputime;  /* also time the calls on the host's clock
                      (PerfSide.host_s; -C) */
    const Machine *what_if; /* price the model lines on this machine
                               (-T) instead of by the calibration; NULL:
                               the calibration */
    const Machine *shape;   /* without what_if, the machine the schedules
                               are built for: the backend's hosts as nodes
                               (ExecHost.nodes), which its calibration
                               measures; NULL: full */
} PerfConfig;

/* Out of place or in place. */
typedef enum { PERF_OUT_OF_PLACE, PERF_IN_PLACE, PERF_PLACE_COUNT } PerfPlace;

/* One measurement. */
typedef struct {
    double time_s;              /* mean seconds per iteration */
    double traffic;             /* bytes the schedule reads and writes
                                   (sched_traffic; 0 for the library's
                                   own collective) */
    int iters;                  /* iterations timed (min_time_s) */
    double host_s;              /* with PerfConfig.cputime: seconds per
                                   collective on the host's clock around
                                   the timed calls (MeasureResult.host_s) */
    double algbw;               /* size / time, GB/s (1e9 B/s) */
    double busbw;               /* algbw * coll_busbw_factor, GB/s */
    long long wrong;            /* wrong elements; -1 when not checked */
    bool skipped;               /* not measured: the collective has no
                                   call of this place (coll_check:
                                   sendrecv in place); nccl-tests shows
                                   its columns unchecked, collviz N/A */
    double min_s, max_s, p99_s, cv; /* with PerfConfig.iter_stats: the
                                   timed iterations' fastest, slowest,
                                   99th percentile and coefficient of
                                   variation (measure_stats) */
    double p50_s, p95_s, sd_s;  /* and their median, 95th percentile and
                                   standard deviation */
    double *times;              /* with PerfConfig.keep_times: each
                                   iteration's seconds in their order,
                                   `iters` of them (perf_rows_free) */
    double model_s[MACHINE_KIND_COUNT]; /* the calibrated model's time on
                                   each machine it was fitted to
                                   (calib_fits), s; 0 when no cost is
                                   predicted */
} PerfSide;

/* One size of one algorithm. */
typedef struct {
    const AlgoInfo *algo;             /* the algorithm measured; NULL: the
                                         backend's library's own
                                         collective (ExecOps.native) */
    const char *name;                 /* the row's name: the algorithm's,
                                         or ExecOps.native_name */
    DataType dtype;                   /* the call's type, op and root */
    RedOp op;                         /* (perf -d/-o/-r all run several */
    int root;                         /* in one table) */
    unsigned long long bytes;         /* size column: coll_size_bytes */
    size_t count;                     /* elements per block */
    PerfSide side[PERF_PLACE_COUNT];  /* out of place, in place */
    double probe[2];                  /* the backend's cross-core probe
                                         (ExecOps.probe) just before and
                                         just after the row (perf_sweep);
                                         0: not measured */
    double probe_clean[2];            /* the same probes' clean times, s:
                                         the machine's speed */
    long long when;                   /* when it was measured (seconds
                                         since the epoch; -S's timestamp) */
} PerfRow;

/* Told after each row (done of total rows); may be NULL. Returning
 * nonzero stops the sweep with CV_ERR_CANCELLED. */
typedef int (*PerfProgress)(void *ctx, const PerfRow *row, size_t done,
                            size_t total);


/* Measure algorithm a at one size (bytes, rounded down to whole blocks) in
 * both places. On an executor error, `why` gets its sentence.
 *
 * a == NULL measures the backend's library's own collective (its native
 * row, ExecOps.native) the same way, on the buffers the collective's
 * default algorithm's schedule sizes and fills; no model time is set
 * beside it. CV_ERR_UNAVAILABLE and native's sentence when the library
 * cannot run the call here. Here and in perf_check_fits and perf_sweep. */
CvError perf_measure(Executor *ex, const PerfConfig *cfg, const Calib *cal,
                     const AlgoInfo *a, unsigned long long bytes,
                     PerfRow *row, char *why, size_t whylen);

/* CV_OK when a's buffers at the sweep's largest size fit in this
 * machine's memory (exec_check_fits); else CV_ERR_NOMEM, or the error
 * that generating the schedule gave, and a sentence in why (starting "at
 * N bytes"). perf asks before it runs anything. */
CvError perf_check_fits(const PerfConfig *cfg, const AlgoInfo *a, char *why,
                        size_t whylen);

/* The rows perf_sweep measures: the sweep's sizes rounded down to whole
 * blocks, none repeated (sweep_counts: a size that rounds to the size
 * before it is left out; size 0, asked for or rounded to, is one row of
 * the empty collective, as in nccl-tests). */
size_t perf_sweep_len(const PerfConfig *cfg);

/* The bytes of every rank's buffers for a's out-of-place schedule at the
 * sweep's largest size (exec_bytes_needed; a NULL: the collective's
 * default algorithm's, for the library's own row). */
CvError perf_bytes_needed(const PerfConfig *cfg, const AlgoInfo *a,
                          unsigned long long *bytes);

/* Measure every size of the sweep into rows[0 .. perf_sweep_len), after
 * warming up (cfg->warmup runs at the largest size, then the smallest) as
 * nccl-tests does, so that the first row is not the executor's first.
 * The backend's probe runs before the first row and after each. */
CvError perf_sweep(Executor *ex, const PerfConfig *cfg, const Calib *cal,
                   const AlgoInfo *a, PerfRow *rows, PerfProgress progress,
                   void *ctx, char *why, size_t whylen);

/* perf_sweep for nalgo algorithms at once, interleaved: at the sweep's
 * k-th size each algorithm in turn, from algorithm k mod nalgo on, so
 * that none always runs first or after the same one (in -a all, two
 * identical schedules measured 1.5-2.6x apart by their place in the
 * order). Algorithm i's rows go to rows[i * stride ...]; each is warmed
 * up first (the largest size, then the smallest). A library row (algos[i]
 * NULL) that cannot run the call here is left out: gone[i] set (nalgo of
 * them, false on entry), its sentence in why. progress is told after
 * each row (done of every algorithm's rows). */
CvError perf_sweep_all(Executor *ex, const PerfConfig *cfg, const Calib *cal,
                       const AlgoInfo *const *algos, size_t nalgo,
                       PerfRow *rows, size_t stride, bool *gone,
                       PerfProgress progress, void *ctx, char *why,
                       size_t whylen);

/* Whether algorithms a and b make one schedule for cfg's call at `bytes`
 * out of place (sched_same): their rows then measure it twice. */
CvError perf_same_schedule(const PerfConfig *cfg, const AlgoInfo *a,
                           const AlgoInfo *b, unsigned long long bytes,
                           bool *same);

/* ------------------------------------------------------------ summaries */

/* Free the iteration times n rows keep (PerfConfig.keep_times) and set
 * them NULL; rows calloc'd or measured. */
void perf_rows_free(PerfRow *rows, size_t n);

/* Wrong elements over n rows (both places); unchecked sides count 0. */
long long perf_wrong_total(const PerfRow *rows, size_t n);

/* Mean busbw over every measured side of n rows, as nccl-tests' footer
 * (a row without a name was not measured). */
double perf_avg_busbw(const PerfRow *rows, size_t n);

/* Whether an average busbw falls short of min (GB/s; < 0: none asked) as
 * nccl-tests judges NCCL_TESTS_MIN_BW: below 90% of it. */
bool perf_bw_low(double avg, double min);

/* measured / model time for one side on the calibration's machine k; 0
 * when the model predicts no time. */
double perf_ratio(const PerfSide *s, MachineKind k);

/* How the machine around a row differed from the calibration's. */
typedef enum {
    PERF_HOST_SAME = 0,  /* as calibrated, or not known */
    PERF_HOST_CROSS = 1, /* the cross-core state: the row's probe ratios
                            and the calibration's are not one state
                            (probe_same_state) */
    PERF_HOST_SPEED = 2  /* the speed: the row's clean times and the
                            calibration's are not one speed
                            (probe_same_speed) */
} PerfHostMoved;

/* How the machine around the row differed from the calibration's, a set
 * of PerfHostMoved bits; 0 when either side was not probed. The
 * calibration's side is the state it measured in (Calib.state_ratio,
 * state_clean), or in files without it its probes at both ends. The model
 * describes the machine as calibrated, so its time does not apply to such
 * a row. */
int perf_host_moved(const Calib *cal, const PerfRow *row);

/* Among rows[0], rows[stride], ... (nalgo rows of the same size), the index
 * of the fastest measured out of place, and of the one the model (machine l)
 * predicts fastest (among the schedules' rows: a library's own row has no
 * model). */
void perf_best(const PerfRow *rows, size_t nalgo, size_t stride,
               MachineKind l, size_t *measured, size_t *model);

#endif
