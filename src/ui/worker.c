/* worker.c - the background thread: timed runs and bandwidth sweeps.
 *
 * The thread owns its executor; the main thread only queues jobs, asks for
 * cancellation and takes results, all under one mutex. Results wait in a
 * ring that one job cannot fill (at most WORKER_SWEEP_MAX points, a timed
 * run and its end), and a new job drops what the last one left, so posting
 * never blocks; how far a job is waits in one slot beside it. */
#include "ui/worker.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/calib.h"
#include "measure/measure.h"
#include "measure/perf.h"
#include "ui/i18n.h"
#include "ui/keys.h"
#include "ui/words.h"

/* Results the ring holds: a whole job's, and a few of a cancelled job's
 * that end after the next one was queued. */
#define QUEUE_CAP (WORKER_SWEEP_MAX + 16)

struct Worker {
    pthread_t thread;     /* the background thread */
    pthread_mutex_t mu;   /* guards everything below except ex, ops */
    pthread_cond_t cv;    /* signals a queued job, a stop, a job's end */
    bool stop;            /* the thread must exit */
    bool queued;          /* job holds a job not yet started */
    bool busy;            /* a job is running */
    bool cancel;          /* the running job should stop */
    unsigned next_id;     /* id of the next job submitted */
    WorkerJob job;        /* the queued job */
    unsigned job_id;      /* its id */
    unsigned run_id;      /* id of the job running or last run */
    size_t planned;       /* the running sweep's points in all */
    WorkerResult *ring;   /* [QUEUE_CAP] results not taken yet */
    size_t head;          /* ring index of the oldest */
    size_t count;         /* results in the ring */
    double progress;      /* 0..1 of the running job */
    bool progress_new;    /* progress changed since it was last taken */
    Executor *ex;         /* the thread's executor: the thread uses it
                             and changes it under the lock; others only
                             cancel it, under the lock (stop_executor) */
    const ExecOps *ops;   /* its backend (as ex) */
};

/* ------------------------------------------------------------ locking */

static void lock(Worker *w) { pthread_mutex_lock(&w->mu); }
static void unlock(Worker *w) { pthread_mutex_unlock(&w->mu); }

static bool cancelled(Worker *w)
{
    lock(w);
    bool c = w->cancel || w->stop || w->queued;
    unlock(w);
    return c;
}

/* Cut short the executor's call in progress for a job being cancelled
 * (under the lock; ExecOps.cancel). When the job has made its last call,
 * the next job's first load reports it instead (measure loads again). */
static void stop_executor(Worker *w)
{
    if (w->busy && w->ex)
        exec_cancel(w->ex);
}

static void set_progress(Worker *w, double f)
{
    lock(w);
    w->progress = f;
    w->progress_new = true;
    unlock(w);
}

/* ------------------------------------------------------------ results */

void worker_result_fini(WorkerResult *r)
{
    free(r->step_s);
    r->step_s = NULL;
    free(r->calib);
    r->calib = NULL;
}

/* Put r into the ring for job `id` (under the lock). Only a job's end is
 * sure to fit; it also settles the progress slot. */
static void push(Worker *w, WorkerResult *r, unsigned id)
{
    bool end = r->kind == WORKER_ERROR || r->kind == WORKER_DONE;
    r->job = id;
    r->progress = end ? 1 : w->progress;
    r->planned = w->planned;
    if (end)
        w->progress_new = false;
    if (w->count >= QUEUE_CAP - (end ? 0 : 1)) {
        worker_result_fini(r);
        return;
    }
    w->ring[(w->head + w->count++) % QUEUE_CAP] = *r;
}

/* Post a result of the running job. */
static void post(Worker *w, WorkerResult *r)
{
    lock(w);
    push(w, r, w->run_id);
    unlock(w);
}

/* Drop every result not taken (under the lock). */
static void drop_all(Worker *w)
{
    for (; w->count; w->count--, w->head = (w->head + 1) % QUEUE_CAP)
        worker_result_fini(&w->ring[w->head]);
    w->progress_new = false;
}

/* End the job with a sentence. */
static void finish_job(Worker *w, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void finish_job(Worker *w, bool error, const char *fmt, ...)
{
    WorkerResult r = {.kind = error ? WORKER_ERROR : WORKER_DONE,
                      .error = error};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r.msg, sizeof r.msg, fmt, ap);
    va_end(ap);
    post(w, &r);
}

/* ------------------------------------------------------------ measuring */

/* The executor for job j, reopened when the backend or ranks changed.
 * w->ex changes under the lock: worker_cancel reads it from the main
 * thread, and must never see one that is being closed. */
static CvError need_executor(Worker *w, const WorkerJob *j, char *why,
                             size_t len)
{
    int p = j->call.nranks;
    Executor *old = NULL, *ex = NULL;
    lock(w);
    if (w->ex && (w->ops != j->backend || w->ex->nranks != p))
        old = w->ex, w->ex = NULL;
    unlock(w);
    if (old)
        w->ops->close(old);
    if (w->ex)
        return CV_OK;
    ExecOptions opt = {.check_steps = 1, .params = j->backend_params};
    why[0] = '\0';
    CvError e = j->backend->open(&ex, p, &opt, why, len);
    if (e && !why[0])
        snprintf(why, len, "%s.", words_error(e));
    lock(w);
    w->ops = j->backend;
    w->ex = e ? NULL : ex;
    unlock(w);
    return e;
}

/* Where a measurement's progress goes: its part [p0, p1] of the job's. */
typedef struct {
    Worker *w;     /* the worker */
    double p0, p1; /* the job's progress before and after it */
} Span;

/* measure.h's progress: how far the timed loop is, and whether the job
 * was cancelled (also told 0 between the checked run's steps). */
static int on_progress(void *ctx, double done)
{
    Span *sp = ctx;
    if (done > 0)
        set_progress(sp->w, sp->p0 + (sp->p1 - sp->p0) * done);
    return cancelled(sp->w);
}

/* Load schedule s, then check and time it by the one engine (measure.h):
 * one checked run (wrong results are counted and the timing goes on),
 * then timed iterations for about `budget` seconds after a warmup, in ten
 * chunks; the job's progress goes from p0 to p1. m->step_s, when not
 * NULL, gets each step's mean. */
static CvError measure(Worker *w, const Schedule *s, double budget,
                       MeasureResult *m, double p0, double p1)
{
    Span sp = {w, p0, p1};
    MeasureOptions o = {.checks = 1, .warmup = 1, .iters = WORKER_BENCH_RUNS,
                        .min_time_s = budget, .chunks = 10,
                        .progress = on_progress, .ctx = &sp};
    CvError e = cancelled(w) ? CV_ERR_CANCELLED : w->ops->load(w->ex, s);
    /* Cancelled, but not this job: the job before was cancelled after its
     * last executor call, and the executor reports it now; load again. */
    if (e == CV_ERR_CANCELLED && !cancelled(w))
        e = w->ops->load(w->ex, s);
    if (!e)
        e = measure_loaded(w->ex, s, &o, m);
    if (!e && cancelled(w)) /* after the last chunk */
        e = CV_ERR_CANCELLED;
    if (!e)
        set_progress(w, p1);
    return e;
}

/* A job's failure as a sentence. */
static void job_failed(Worker *w, CvError e, const char *what)
{
    if (e == CV_ERR_CANCELLED) {
        finish_job(w, false, _("The %s was cancelled."), _(what));
        return;
    }
    const char *why = w->ex ? w->ops->last_error(w->ex) : "";
    finish_job(w, true, _("The %s failed: %s"), _(what),
               why && *why ? why : words_error(e));
}

/* ------------------------------------------------------------ jobs */

/* Build the schedule of algo for j's call at `bytes`, refused, as perf
 * refuses it, when its buffers do not fit in this machine's memory
 * (exec_check_fits); a sentence on failure. */
static CvError job_schedule(const WorkerJob *j, const AlgoInfo *a,
                            uint64_t bytes, Schedule *s, char *why,
                            size_t len)
{
    CollCall c = j->call;
    char fits[160] = "";
    c.count = coll_count_floor(&c, bytes);
    CvError e = algo_generate_on(a, &c, j->model.what_if ? &j->model.mach
                                                         : NULL, s, NULL, 0);
    if (e) {
        snprintf(why, len, "%s cannot be built: %s.", a->name,
                 words_error(e));
        return e;
    }
    if ((e = exec_check_fits(s, 0, fits, sizeof fits))) {
        snprintf(why, len, "at %llu bytes %s.",
                 (unsigned long long)coll_size_bytes(&c), fits);
        sched_fini(s);
    }
    return e;
}

/* Post a finished bench measurement (its step times go with it). */
static void post_bench(Worker *w, const Schedule *s, MeasureResult *m,
                       int moved)
{
    WorkerResult r = {.kind = WORKER_TIMED,
                      .iter_s = m->part_median_s > 0 ? m->part_median_s
                                                     : m->iter_s,
                      .min_s = m->part_min_s, .runs = m->parts,
                      .moved = moved,
                      .step_s = m->step_s, .nsteps = s->nsteps,
                      .verified = m->wrong == 0,
                      .bytes = coll_size_bytes(&s->call)};
    m->step_s = NULL;
    post(w, &r);
}

/* What each job is called in sentences. */
static const char *job_name(WorkerKind k)
{
    return k == WORKER_BENCH ? N_("timed run")
           : k == WORKER_CALIB ? N_("calibration") : N_("sweep");
}

/* Why a run may be off the model, after the verdict: the machine moved
 * between the calibration and the run (moved: PERF_HOST_* bits, for a
 * run outside the band), or changed speed while calibrating; after a
 * quick calibration that did, the key of the full one. */
static void verdict_why(const Predictor *model, bool outside, int moved,
                        char *out, size_t len)
{
    int n = 0;
    if (outside && moved)
        n = snprintf(out, len, "%s", _(": the machine moved during the run"));
    if (n < 0 || (size_t)n >= len || !model->calibrated ||
        !(model->calib.unsteady > 2))
        return;
    out += n, len -= (size_t)n;
    char key[16];
    keys_names(ACT_CALIBRATE, "/", key, sizeof key);
    if (model->calib.quick)
        snprintf(out, len, _(" (the quick calibration was unsteady, x%.1f: "
                             "%s calibrates fully)"),
                 model->calib.unsteady, key);
    else
        snprintf(out, len,
                 _(" (the machine changed speed x%.1f while calibrating)"),
                 model->calib.unsteady);
}

/* The timed run in words: the median over its timed parts and the
 * fastest, then against the model: "; the model says 10.100 ms ±12%:
 * within its band" (or "x1.40 slower than the model", "x1.30 faster");
 * where the model has no band (no calibration, a what-if machine)
 * "within 10%" or the percentage; and why a run outside the band may be
 * so (verdict_why). One run alone is never judged: its time, and that it
 * is too few. */
static void bench_verdict(const Predictor *model, const Schedule *s,
                          const MeasureResult *m, int moved, char *out,
                          size_t len)
{
    double med = m->part_median_s > 0 ? m->part_median_s : m->iter_s;
    if (m->parts < 2) {
        snprintf(out, len, _("%.3f ms of 1 run, too few to judge the model"),
                 med * 1e3);
        return;
    }
    int n = snprintf(out, len, _("median %.3f ms, fastest %.3f ms of %d "
                                 "runs"), med * 1e3, m->part_min_s * 1e3,
                     m->parts);
    Value mv = predictor_total(model, s);
    if (n < 0 || (size_t)n >= len || !mv.valid || !(mv.v > 0) || !(med > 0))
        return;
    out += n, len -= (size_t)n;
    double band = predictor_band(model), r = med / mv.v;
    bool outside = fabs(r - 1) > (band > 0 ? band : 0.10);
    char how[96];
    if (!outside)
        snprintf(how, sizeof how, "%s",
                 band > 0 ? _("within its band") : _("within 10%"));
    else if (band > 0)
        snprintf(how, sizeof how, r > 1 ? _("x%.2f slower than the model")
                                        : _("x%.2f faster than the model"),
                 r > 1 ? r : 1 / r);
    else if (r > 1)
        snprintf(how, sizeof how, _("%.0f%% slower"), (r - 1) * 100);
    else
        snprintf(how, sizeof how, _("%.0f%% faster"), (1 - r) * 100);
    char bandtxt[32] = "";
    if (band > 0)
        snprintf(bandtxt, sizeof bandtxt, " ±%.0f%%", band * 100);
    n = snprintf(out, len, _("; the model says %.3f ms%s: %s"), mv.v * 1e3,
                 bandtxt, how);
    if (n >= 0 && (size_t)n < len)
        verdict_why(model, outside, moved, out + n, len - (size_t)n);
}

static void run_bench(Worker *w, const WorkerJob *j)
{
    char why[200];
    Schedule s;
    CvError e = need_executor(w, j, why, sizeof why);
    if (e || (e = job_schedule(j, j->algo, j->bytes, &s, why, sizeof why))) {
        finish_job(w, true, _("The timed run cannot start: %s"), why);
        return;
    }
    MeasureResult m = {.step_s = calloc(s.nsteps + 1, sizeof(double))};
    ProbeResult before = exec_probe(w->ex);
    e = m.step_s ? measure(w, &s, j->budget_s, &m, 0, 1) : CV_ERR_NOMEM;
    if (!e) {
        ProbeResult after = exec_probe(w->ex);
        PerfRow row = {.probe = {before.ratio, after.ratio},
                       .probe_clean = {before.clean_s, after.clean_s}};
        int moved = j->model.calibrated
                        ? perf_host_moved(&j->model.calib, &row) : 0;
        char verdict[288] = ""; /* every clause, within a result's msg */
        bench_verdict(&j->model, &s, &m, moved, verdict, sizeof verdict);
        post_bench(w, &s, &m, moved); /* takes m.step_s */
        finish_job(w, m.wrong != 0, _("Timed run, results %s: %s."),
                   m.wrong ? _("WRONG") : _("verified"), verdict);
    } else {
        job_failed(w, e, N_("timed run"));
    }
    free(m.step_s);
    sched_fini(&s);
}

/* A sweep point from a measurement of s by algorithm a (e: how it went)
 * and the job's model. */
static SweepPoint sweep_point_of(const WorkerJob *j, const AlgoInfo *a,
                                 const Schedule *s, const MeasureResult *m,
                                 CvError e)
{
    Value model = predictor_total(&j->model, s);
    SweepPoint pt = {.algo = a, .bytes = coll_size_bytes(&s->call),
                     .time_s = m->iter_s, .model_s = model.valid ? model.v : 0,
                     .ok = !e && m->wrong <= 0};
    double f = coll_busbw_factor(s->call.kind, s->call.nranks);
    pt.algbw = pt.time_s > 0 ? (double)pt.bytes / pt.time_s / 1e9 : 0;
    pt.busbw = pt.algbw * f;
    pt.model_busbw =
        pt.model_s > 0 ? (double)pt.bytes / pt.model_s / 1e9 * f : 0;
    return pt;
}

/* Sizes at most this are timed several times, keeping the fastest: at
 * small sizes a step is microseconds, and the mean carries every
 * interruption of a loaded machine; the minimum is the schedule's cost. */
#define SWEEP_SMALL (1u << 20)
#define SWEEP_REPEATS 5
/* Sizes at most this are checked before they are timed; larger ones run
 * the schedule already checked at the smaller sizes, and checking one
 * (every step, then every output element read and compared) costs
 * seconds: 64 MiB on 8 ranks is half a gigabyte of outputs. */
#define SWEEP_CHECKED (4u << 20)

/* Check and time a sweep point of s (loaded as measure() loads): one
 * checked run, then small sizes SWEEP_REPEATS short loops (the fastest
 * loop's mean kept), large ones a loop of few iterations (each is long
 * already); progress from p0 to p1. */
static CvError sweep_measure(Worker *w, const Schedule *s, double budget,
                             MeasureResult *m, double p0, double p1)
{
    Span sp = {w, p0, p1};
    bool small = coll_size_bytes(&s->call) <= SWEEP_SMALL;
    /* large: one iteration after a warmup (each is long already) */
    MeasureOptions o = {.checks = 1, .warmup = 1, .iters = 1,
                        .min_time_s = small ? budget / SWEEP_REPEATS : 0,
                        .chunks = 1, .progress = on_progress, .ctx = &sp};
    CvError e = cancelled(w) ? CV_ERR_CANCELLED : w->ops->load(w->ex, s);
    if (e == CV_ERR_CANCELLED && !cancelled(w))
        e = w->ops->load(w->ex, s);
    m->wrong = -1; /* not checked */
    if (!e && coll_size_bytes(&s->call) <= SWEEP_CHECKED)
        e = measure_check(w->ex, s, &m->wrong);
    int iters = 1, warmup = 0;
    if (!e)
        e = measure_iters(w->ex, &o, &iters, &warmup);
    double best = INFINITY;
    for (int i = 0; !e && i < (small ? SWEEP_REPEATS : 1); i++) {
        MeasureResult one = {0};
        e = cancelled(w) ? CV_ERR_CANCELLED
                         : measure_timed(w->ex, s, &o, warmup, iters, &one);
        best = !e && one.iter_s < best ? one.iter_s : best;
        set_progress(w, p0 + (p1 - p0) * (i + 1) / SWEEP_REPEATS);
    }
    m->iter_s = isfinite(best) ? best : 0;
    if (!e)
        set_progress(w, p1);
    return e;
}

/* Measure one sweep point; false when the sweep should stop. */
static bool sweep_point(Worker *w, const WorkerJob *j, const AlgoInfo *a,
                        uint64_t bytes, double p0, double p1)
{
    char why[200];
    Schedule s;
    CvError e = job_schedule(j, a, bytes, &s, why, sizeof why);
    if (e) {
        finish_job(w, true, _("The sweep stopped: %s"), why);
        return false;
    }
    MeasureResult m = {0};
    e = sweep_measure(w, &s, j->budget_s, &m, p0, p1);
    WorkerResult r = {.kind = WORKER_POINT,
                      .point = sweep_point_of(j, a, &s, &m, e)};
    sched_fini(&s);
    if (e) {
        job_failed(w, e, N_("sweep"));
        return false;
    }
    post(w, &r);
    return true;
}

/* The algorithms a sweep measures. */
static size_t sweep_algos(const WorkerJob *j, const AlgoInfo **out,
                          size_t cap)
{
    if (!j->compare) {
        out[0] = j->algo;
        return 1;
    }
    size_t n = 0;
    for (size_t i = 0; i < algo_count() && n < cap; i++) /* those made for
                                                              its machine */
        if (algo_at(i)->coll == j->call.kind &&
            algo_fits(algo_at(i), &j->call,
                      j->model.what_if ? &j->model.mach : NULL, NULL, 0))
            out[n++] = algo_at(i);
    return n;
}

static void run_sweep(Worker *w, const WorkerJob *j)
{
    char why[200];
    if (need_executor(w, j, why, sizeof why)) {
        finish_job(w, true, _("The sweep cannot start: %s"), why);
        return;
    }
    uint64_t sizes[40];
    const AlgoInfo *algos[32];
    size_t ns = worker_sweep_sizes(&j->call, j->min_bytes, j->bytes, sizes,
                                   40);
    size_t na = sweep_algos(j, algos, 32), total = ns * na, done = 0;
    lock(w);
    w->planned = total < WORKER_SWEEP_MAX ? total : WORKER_SWEEP_MAX;
    unlock(w);
    for (size_t i = 0; i < ns; i++)
        for (size_t a = 0; a < na; a++, done++)
            if (done >= WORKER_SWEEP_MAX ||
                !sweep_point(w, j, algos[a], sizes[i],
                             (double)done / (double)total,
                             (double)(done + 1) / (double)total))
                return;
    finish_job(w, false, _("Sweep done: %zu measurements."), done);
}

/* calib.h's progress: how far, and whether the job was cancelled. */
static int on_calib_progress(void *ctx, int done, int total)
{
    Span *sp = ctx;
    if (total > 0)
        set_progress(sp->w, sp->p0 + (sp->p1 - sp->p0) * done / total);
    return cancelled(sp->w);
}

/* Calibrate (calib.h's quick or full measurement) on the worker's
 * executor, save it where perf and the TUI find it, post it; then the
 * timed run when the job asks for one. */
static void run_calib(Worker *w, const WorkerJob *j)
{
    char why[CV_WHY_LEN] = "";
    Calib *c = calloc(1, sizeof *c);
    CvError e = c ? need_executor(w, j, why, 200) : CV_ERR_NOMEM;
    Span sp = {w, 0, j->then_bench ? 0.5 : 1};
    CalibOptions o = {.quick = j->quick};
    if (!e)
        e = calib_measure(w->ex, &o, c, on_calib_progress, &sp, why,
                          sizeof why);
    if (e) {
        free(c);
        if (e == CV_ERR_CANCELLED || why[0] == '\0')
            job_failed(w, e, N_("calibration"));
        else
            finish_job(w, true, _("The calibration failed: %.150s"), why);
        return;
    }
    WorkerResult r = {.kind = WORKER_CALIBRATED, .calib = c};
    /* a backend told to run unlike the machine (a straggler) measured
       this run, not the machine: never saved */
    bool altered = exec_host(w->ex).altered;
    if (altered)
        snprintf(why, sizeof why, "%s", _("the backend runs unlike the "
                                          "machine (a slowed rank)"));
    bool saved = !altered && calib_save(c, why, sizeof why) == CV_OK;
    snprintf(r.msg, sizeof r.msg, saved ? _("Calibrated (%s) and saved.")
             : _("Calibrated (%s); not saved: %.120s"),
             j->quick ? _("quick") : _("full"), why);
    WorkerJob b = *j;
    predictor_calibrated(&b.model, c);
    post(w, &r); /* the ring owns c now */
    if (!j->then_bench) {
        finish_job(w, !saved, "%s", r.msg);
        return;
    }
    b.kind = WORKER_BENCH;
    run_bench(w, &b);
}

/* ------------------------------------------------------------ thread */

/* Take the queued job and reset the results for it. */
static void start_job(Worker *w, WorkerJob *j, unsigned *id)
{
    *j = w->job;
    *id = w->job_id;
    w->queued = false;
    w->busy = true;
    w->cancel = false;
    w->run_id = *id;
    w->planned = 0;
    w->progress = 0;
}

static void *worker_main(void *arg)
{
    Worker *w = arg;
    WorkerJob j;
    unsigned id;
    lock(w);
    for (;;) {
        while (!w->stop && !w->queued)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->stop)
            break;
        start_job(w, &j, &id);
        unlock(w);
        if (j.kind == WORKER_BENCH)
            run_bench(w, &j);
        else if (j.kind == WORKER_CALIB)
            run_calib(w, &j);
        else
            run_sweep(w, &j);
        lock(w);
        w->busy = false;
        pthread_cond_broadcast(&w->cv);
    }
    unlock(w);
    if (w->ex)
        w->ops->close(w->ex);
    return NULL;
}

Worker *worker_new(void)
{
    Worker *w = calloc(1, sizeof *w);
    if (!w || !(w->ring = calloc(QUEUE_CAP, sizeof *w->ring))) {
        free(w);
        return NULL;
    }
    w->next_id = 1;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->thread, NULL, worker_main, w)) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        free(w->ring);
        free(w);
        return NULL;
    }
    return w;
}

void worker_free(Worker *w)
{
    if (!w)
        return;
    lock(w);
    w->stop = true;
    w->cancel = true;
    stop_executor(w);
    pthread_cond_broadcast(&w->cv);
    unlock(w);
    pthread_join(w->thread, NULL);
    drop_all(w);
    free(w->ring);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

unsigned worker_submit(Worker *w, const WorkerJob *j)
{
    lock(w);
    drop_all(w); /* results of older jobs: nobody wants them now */
    w->job = *j;
    w->job_id = w->next_id++;
    w->queued = true;
    w->cancel = true;
    stop_executor(w);
    pthread_cond_broadcast(&w->cv);
    unsigned id = w->job_id;
    unlock(w);
    return id;
}

void worker_cancel(Worker *w)
{
    lock(w);
    w->cancel = true;
    stop_executor(w);
    if (w->queued) { /* never started: it ends here, cancelled */
        WorkerResult r = {.kind = WORKER_DONE};
        snprintf(r.msg, sizeof r.msg, _("The %s was cancelled."),
                 _(job_name(w->job.kind)));
        w->queued = false;
        w->planned = 0;
        push(w, &r, w->job_id);
        pthread_cond_broadcast(&w->cv);
    }
    unlock(w);
}

void worker_wait(Worker *w)
{
    lock(w);
    while (w->busy || w->queued)
        pthread_cond_wait(&w->cv, &w->mu);
    unlock(w);
}

bool worker_take(Worker *w, WorkerResult *out)
{
    bool got = true;
    lock(w);
    if (w->count) {
        *out = w->ring[w->head];
        w->head = (w->head + 1) % QUEUE_CAP;
        w->count--;
    } else if (w->progress_new) {
        *out = (WorkerResult){.kind = WORKER_PROGRESS, .job = w->run_id,
                              .progress = w->progress,
                              .planned = w->planned};
        w->progress_new = false;
    } else {
        got = false;
    }
    unlock(w);
    return got;
}

size_t worker_sweep_sizes(const CollCall *c, uint64_t min, uint64_t max,
                          uint64_t *out, size_t cap)
{
    CollCall one = *c;
    one.count = 1;
    uint64_t unit = coll_size_bytes(&one), n = 0;
    if (!unit)
        return 0;
    uint64_t s = min > unit ? min / unit * unit : unit;
    while (s <= max && n < cap) {
        out[n++] = s;
        if (s > UINT64_MAX / 4)
            break;
        s = s * 4 / unit * unit;
    }
    /* the largest size is always one, in place of the one below it when
     * that is more than half of it (the largest sizes cost the most) */
    uint64_t top = max / unit * unit;
    if (n > 1 && out[n - 1] < top && out[n - 1] * 2 >= top)
        n--;
    if (n && n < cap && out[n - 1] < top)
        out[n++] = top;
    return (size_t)n;
}
