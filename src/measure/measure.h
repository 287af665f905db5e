/* measure.h - the one measuring engine: perf's rows, the calibration's
 * benchmarks and the TUI's timed runs and sweeps all time a loaded
 * schedule here, by one set of rules.
 *
 *  1. Check: up to `checks` runs from a fresh start, step by step, each
 *     compared with the collective's definition (verify_output), stopping
 *     at the first with wrong elements (nccl-tests' -c). Wrong results are
 *     a finding, not an error: they are counted and the timing goes on.
 *     The progress callback may stop it between steps.
 *  2. Size: with min_time_s, one timed iteration after the warmup
 *     estimates the iteration's time, and the loop gets as many
 *     iterations as make it last min_time_s (never fewer than `iters`,
 *     never more than MEASURE_MAX_ITERS), so a short collective's time is
 *     not one scheduling hiccup.
 *  3. Time: the executor's own timed loop (ExecOps.run, or with `native`
 *     the library's own collective, ExecOps.native), in `chunks`
 *     parts when a caller wants progress and a way to cancel between them
 *     (the TUI); the mean per iteration, and per step where asked: step
 *     times come from the first part (with host_time, from the call
 *     that runs the warmup), which then runs after a warmup of at least
 *     the executor's ExecOps.step_warmup, so that a backend that times
 *     steps on passes of their own (the cuda backend) takes them from the
 *     warmup, never from the timed iterations.
 * Nothing is printed; no globals. */
#ifndef COLLVIZ_MEASURE_H
#define COLLVIZ_MEASURE_H

#include "exec/exec.h"

#define MEASURE_MAX_ITERS 1000000 /* timed iterations of one measurement */
#define MEASURE_MAX_CHUNKS 100    /* parts a timed loop is split into */
#define MEASURE_MAX_EACH 65536    /* collectives of one call whose times
                                     the backend keeps one by one (each) */
#define MEASURE_MAX_PARTS 65536   /* calls whose means make the parts'
                                     spread (the first ones) */

/* Told between chunks with the fraction of the timed loop done, and with
 * 0 before each step of a checked run and before its comparison (so that
 * a check of many steps, or of a large output, can be stopped too);
 * returning nonzero cancels the measurement (CV_ERR_CANCELLED). A caller
 * that cancels from another thread also calls exec_cancel, which cuts
 * short the executor's call in progress. */
typedef int (*MeasureProgress)(void *ctx, double done);

/* How to measure. */
typedef struct {
    int checks;        /* checked runs before timing (0: none) */
    int warmup;        /* untimed iterations before timing, >= 0 (where
                          step times are asked, at least the executor's
                          ExecOps.step_warmup: rule 3) */
    int iters;         /* timed iterations at least, >= 1 */
    double min_time_s; /* > 0: more iterations, so that the timed loop
                          lasts at least this long; 0: exactly iters */
    int max_iters;     /* the most iterations min_time_s may ask for (0:
                          MEASURE_MAX_ITERS; the calibration, which times
                          hundreds of benchmarks, asks for fewer) */
    int chunks;        /* > 1: time in this many parts (at most
                          MEASURE_MAX_CHUNKS), with progress between */
    MeasureProgress progress; /* may be NULL */
    void *ctx;         /* progress's first argument */
    int native;        /* nonzero: time and check the backend's library's
                          own collective (ExecOps.native) on the loaded
                          schedule's buffers instead of the schedule */
    char *why;         /* native's sentence when it cannot run here (may
                          be NULL) */
    size_t whylen;
    int each;          /* nonzero: keep every iteration's time, for
                          MeasureResult's statistics; the mean stays their
                          mean. Inside the one loop where the backend
                          times them there (ExecOps.times_each), so that
                          the row measures what it does without; else
                          one executor call per iteration, each timed on
                          the host's clock around it (its start and wait
                          included, as blocking 1) */
    int agg;           /* collectives per timed iteration (nccl-tests'
                          -m, agg_iters; 0 or 1: one): an iteration runs
                          agg of them in one executor call, and every time
                          reported (the mean, each iteration's for the
                          statistics) is per collective, the iteration's
                          divided by agg */
    int blocking;      /* nccl-tests' -z: 0, the iterations back to back
                          in one call (or `chunks` calls); 1 or 2, every
                          collective its own executor call, which returns
                          when every rank is done, timed on the host's
                          clock around it: the call's start and the wait
                          are part of the time, as nccl-tests' -z 1 times
                          its synchronisation; 3, every iteration (agg
                          collectives) its own call, timed by the
                          backend, its start left out (nccl-tests' -z 3
                          leaves its barrier out) */
    int host_time;     /* nonzero: also time the timed calls on the host's
                          clock (MeasureResult.host_s); the warmup then
                          runs in a call of its own, outside that time */
    double (*clock)(void); /* the host's clock, seconds (NULL: the
                          monotonic clock, mono_now_s; a test's own) */
} MeasureOptions;

/* What was measured. */
typedef struct {
    double iter_s;   /* mean seconds per timed iteration (slowest rank) */
    int iters;       /* timed iterations run */
    long long wrong; /* wrong output elements of the checked runs; -1:
                        not checked */
    double *step_s;  /* [nsteps] or NULL, the caller's: mean seconds of
                        each step (rule 3: the first part's) */
    /* with MeasureOptions.each: the timed iterations' spread */
    double min_s, max_s; /* the fastest and the slowest */
    double p50_s, p95_s, p99_s; /* the median (the upper middle one) and
                            the 95th and 99th percentiles (nearest rank) */
    double sd_s;         /* the population standard deviation */
    double cv;           /* sd_s / mean */
    double *times;       /* each iteration's seconds in their order, n =
                            iters (malloc'd: the caller frees it; NULL
                            without each) */
    /* the timed parts (MeasureOptions.chunks; with each, every iteration):
     * each part's mean per iteration, the fastest and the median */
    double part_min_s, part_median_s;
    int parts;           /* parts timed */
    /* with MeasureOptions.host_time: the host's monotonic clock around the
     * timed executor calls, per collective (nccl-tests' -C cputime: where
     * the backend's time is its ranks' or its device's, this is what the
     * calling thread waited, launches and synchronisation included) */
    double host_s;
} MeasureResult;

/* The statistics of n iteration times v (sorted in place): min, max, the
 * median (v[n / 2] sorted), the nearest-rank 95th and 99th percentiles,
 * the population standard deviation and the coefficient of variation
 * (that over the mean), as nccl-tests' -I computes them. */
void measure_stats(double *v, int n, MeasureResult *r);

/* Check, size and time the schedule s loaded in ex (ExecOps.load) by the
 * rules above. r->step_s is filled when it is not NULL. On an executor
 * error r holds what was measured before it. */
CvError measure_loaded(Executor *ex, const Schedule *s,
                       const MeasureOptions *o, MeasureResult *r);

/* The two halves of measure_loaded, for a caller that times one sized
 * loop several times (the calibration keeps the fastest of a few runs):
 * the iterations o asks for (rule 2; with min_time_s this runs the warmup
 * and one timed iteration, and *warmup comes back 0), and the timed loop
 * of `iters` iterations after `warmup` untimed ones (rule 3). */
CvError measure_iters(Executor *ex, const MeasureOptions *o, int *iters,
                      int *warmup);
CvError measure_timed(Executor *ex, const Schedule *s,
                      const MeasureOptions *o, int warmup, int iters,
                      MeasureResult *r);

/* Run s once from a fresh start, step by step, apply the finish, and
 * count the output elements that differ from the collective's
 * definition. */
CvError measure_check(Executor *ex, const Schedule *s, long long *wrong);

#endif
