/* test_ui_worker.c - background work: a timed run gives verified, measured
 * times per step and in total; a sweep fills the chart's table (every
 * algorithm when comparing); cancelling stops it; a scene change drops the
 * old job's results. The worker alone (no App) posts its results in order,
 * each with its job's id, and drops a finished job's untaken results when
 * the next is queued. Quitting or cancelling stops a long job within a
 * second; sizes that do not fit are refused with perf's sentence; a
 * sweep's model is the scene's. Run under SAN=thread as well. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "measure/perf.h"
#include "threads/exec_threads.h"
#include "ui/app.h"
#include "ui/scene.h"
#include "ui/screen.h"
#include "ui/grid.h"
#include "ui/i18n.h"
#include "ui/worker.h"

#include "test_ui_fakes.h"

#include "sanitizer.h"

/* Seconds a cancelled job may take to end (a timed loop's chunk of the
 * jobs below lasts 6 s). */
#ifdef UNDER_TSAN
#define STOP_LIMIT_S 3.0
#else
#define STOP_LIMIT_S 1.0
#endif

static int setup(void **state)
{
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
    return 0;
}

static void open_app(App *app, CollKind k, int p, uint64_t bytes)
{
    AppOptions o = app_options(k, NULL, p, false);
    char why[200];
    o.bytes = bytes;
    assert_int_equal(app_init(app, &o, why, sizeof why), CV_OK);
    assert_non_null(app->bg.worker);
}

static void act(App *app, Action a)
{
    Request r = {.act = a};
    app_apply(app, &r);
}

/* Price the scene with a calibration held in memory (nothing saved), so
 * that a timed run starts at once instead of calibrating first. */
static void calibrated(App *app)
{
    Calib c = {.nranks = app->scene->call.nranks, .alpha = 2e-6,
               .npoints = 1, .machine = MACHINE_FULL, .quick = 1};
    snprintf(c.backend, sizeof c.backend, "%s", app->scene->backend->name);
    c.pt[0] = (CalibPoint){1e6, 2e-11, 1e-10, 1e-11, 4e-11, 0, 0};
    scene_use_calib(app->scene, &c);
}

/* Wait for the worker, then take its results as the main loop does. */
static void settle(App *app)
{
    worker_wait(app->bg.worker);
    app_poll(app, app_now());
}

static void test_bench(void **state)
{
    App app;
    open_app(&app, COLL_ALLREDUCE, 4, 256 << 10);
    calibrated(&app);
    act(&app, ACT_BENCH);
    assert_int_equal(app.bg.kind, WORKER_BENCH);
    settle(&app);
    assert_int_equal(app.bg.kind, WORKER_IDLE);
    assert_true(app.bg.total_s.valid);
    assert_true(app.bg.total_s.v > 0);
    assert_true(app.bg.verified);
    assert_int_equal(app.bg.bytes, 256 << 10);
    assert_true(app.bg.steps_ok);
    double sum = 0;
    for (size_t k = 0; k < app.scene->big_sched.nsteps; k++) {
        assert_true(app.bg.step_s[k] >= 0);
        sum += app.bg.step_s[k];
    }
    /* in seconds, as the whole is (a unit slip is a factor of 1e3 or
       1e6); how close the two are is the machine's business: the steps
       are timed in the first part of the run, the whole over all of it,
       and a busy machine can make either several times the other */
    assert_true(sum > 0 && sum < 100 * app.bg.total_s.v);
    assert_non_null(strstr(app.status.msg, "verified"));
    assert_false(app.status.error);
    /* the verdict in words: measured against the model's whole, within
       10% or slower or faster by the percentage d = measured / model - 1,
       as defined */
    assert_true(app.scene->pred_total_s.valid);
    double model = app.scene->pred_total_s.v;
    double d = app.bg.total_s.v / model - 1;
    char want[96];
    if (fabs(d) <= 0.10)
        snprintf(want, sizeof want, "; the model says %.3f ms: within 10%%",
                 model * 1e3);
    else
        snprintf(want, sizeof want, "; the model says %.3f ms: %.0f%% %s",
                 model * 1e3, fabs(d) * 100, d > 0 ? "slower" : "faster");
    if (!strstr(app.status.msg, want))
        fail_msg("'%s' not in '%s'", want, app.status.msg);
    app_fini(&app);
}

/* The timed run against a calibrated model with a band (the worst error
 * of the calibration's own check): the median and fastest of the timed
 * parts, the model's time and band, and a verdict by the definition:
 * within the band when |median / model - 1| <= band, else by how many
 * times, with the reason where the probes around the run found the
 * machine in another state than the calibration's. The calibration's
 * alpha of 0.5 s puts the model far above any measured time. */
static void test_bench_band(void **state)
{
    const double bands[] = {0.2, 2.0};
    for (int i = 0; i < 2; i++) {
        App app;
        char why[200];
        open_app(&app, COLL_ALLREDUCE, 3, 48 << 10);
        assert_int_equal(scene_set_backend(app.scene, &fake_ops, why,
                                           sizeof why), CV_OK);
        Calib c = {.nranks = 3, .alpha = 0.5, .npoints = 1,
                   .machine = MACHINE_FULL, .quick = 1,
                   .state_ratio = 1.0, .state_clean = 1e-3,
                   .state_probes = 50};
        c.fit_err[MACHINE_FULL] = bands[i];
        snprintf(c.backend, sizeof c.backend, "fake");
        c.pt[0] = (CalibPoint){1e6, 2e-11, 1e-10, 1e-11, 4e-11, 0, 0};
        scene_use_calib(app.scene, &c);
        fake_mode.probe_ratio = 10, fake_mode.probe_clean = 1e-3;
        act(&app, ACT_BENCH);
        settle(&app);
        fake_mode.probe_ratio = 0;
        assert_true(app.bg.total_s.valid && app.bg.verified);
        assert_int_equal(app.bg.runs, 10); /* the worker's ten parts */
        assert_true(app.bg.min_s > 0 && app.bg.min_s <= app.bg.total_s.v);
        assert_true(app.bg.moved & PERF_HOST_CROSS); /* ratio 10 against 1 */
        double med = app.bg.total_s.v, model = app.scene->pred_total_s.v;
        assert_true(model > 10 * med);
        char want[320];
        int n = snprintf(want, sizeof want,
                         "median %.3f ms, fastest %.3f ms of 10 runs; the "
                         "model says %.3f ms ±%.0f%%: ", med * 1e3,
                         app.bg.min_s * 1e3, model * 1e3, bands[i] * 100);
        if (fabs(med / model - 1) <= bands[i])
            snprintf(want + n, sizeof want - (size_t)n, "within its band.");
        else
            snprintf(want + n, sizeof want - (size_t)n,
                     "x%.2f faster than the model: the machine moved during "
                     "the run.",
                     model / med);
        if (!strstr(app.status.msg, want))
            fail_msg("'%s' not in '%s'", want, app.status.msg);
        /* At 100x30 the counters give the deviation against the band,
           and the message wraps onto a second row, whole. */
        app.view.term_w = 100, app.view.term_h = 30;
        Grid g;
        assert_int_equal(grid_init(&g, 100, 30, false), CV_OK);
        screen_draw(&app, &g);
        char *d = grid_dump(&g, false);
        /* d = median / model - 1, whole percent (near -100%: how near
           depends on the machine's speed) */
        char dev[64];
        double dpct = (med / model - 1) * 100;
        if (i == 0)
            snprintf(dev, sizeof dev, "%+.0f%% out ±20%%, moved", dpct);
        else
            snprintf(dev, sizeof dev, "%+.0f%%, in ±200%% band", dpct);
        assert_true(dpct < -90);
        if (!strstr(d, dev) || !strstr(d, "the model says") ||
            !strstr(d, i == 0 ? "during the run." : "within its band.")) {
            fprintf(stderr, "%s\n", d);
            fail_msg("no '%s' or the whole message in the screen above",
                     dev);
        }
        free(d);
        grid_fini(&g);
        app_fini(&app);
    }
}

/* A timed run priced by a calibration that was unsteady (T7): after a
 * quick one the sentence names the key of the full one (K, as the help
 * binds it), after a full one it says only how much the machine changed
 * speed; the counters at 100x30 show "unsteady x2.3" in English as in
 * Chinese. */
static void test_unsteady_calibration(void **state)
{
    static const char *const want[2][2] = {
        {" (the machine changed speed x2.3 while calibrating)",
         " (the quick calibration was unsteady, x2.3: K calibrates fully)"},
        {"\uff08\u6821\u51c6\u65f6\u673a\u5668\u901f\u5ea6\u53d8"
         "\u5316\u8fbe x2.3\uff09",
         "\uff08\u5feb\u901f\u6821\u51c6\u4e0d\u7a33\uff0cx2.3\uff1a"
         "\u6309 K \u505a\u5b8c\u6574\u6821\u51c6\uff09"}};
    static const char *const label[2] = {"unsteady x2.3",
                                         "\u4e0d\u7a33 x2.3"};
    for (int lang = 0; lang < 2; lang++)
        for (int quick = 0; quick < 2; quick++) {
            ui_lang_use(lang ? UI_LANG_ZH : UI_LANG_EN);
            App app;
            open_app(&app, COLL_ALLREDUCE, 3, 48 << 10);
            Calib c = {.nranks = 3, .alpha = 2e-6, .npoints = 1,
                       .machine = MACHINE_BUS, .quick = quick,
                       .unsteady = 2.3, .when = (long long)time(NULL)};
            c.fit_err[MACHINE_BUS] = 0.4;
            snprintf(c.backend, sizeof c.backend, "%s",
                     app.scene->backend->name);
            c.pt[0] = (CalibPoint){1e6, 2e-11, 1e-10, 1e-11, 4e-11, 0, 0};
            scene_use_calib(app.scene, &c);
            act(&app, ACT_BENCH);
            settle(&app);
            app.view.term_w = 100, app.view.term_h = 30;
            Grid g;
            assert_int_equal(grid_init(&g, 100, 30, false), CV_OK);
            screen_draw(&app, &g);
            char *d = grid_dump(&g, false);
            if (!strstr(app.status.msg, want[lang][quick]) ||
                !strstr(d, label[lang]))
                fail_msg("%s %s: no '%s' in '%s', or no '%s' in\n%s",
                         lang ? "zh" : "en", quick ? "quick" : "full",
                         want[lang][quick], app.status.msg, label[lang], d);
            free(d);
            grid_fini(&g);
            app_fini(&app);
        }
    ui_lang_use(UI_LANG_EN);
}

/* A timed run on a machine that gets one element wrong says so. */
static void test_bench_wrong(void **state)
{
    App app;
    char why[200];
    open_app(&app, COLL_REDUCESCATTER, 3, 3 << 10);
    assert_int_equal(scene_set_backend(app.scene, &fake_ops, why, sizeof why), CV_OK);
    calibrated(&app);
    fake_mode.corrupt_read = true;
    act(&app, ACT_BENCH);
    settle(&app);
    fake_mode.corrupt_read = false;
    assert_true(app.bg.total_s.valid);
    assert_false(app.bg.verified);
    assert_true(app.status.error);
    assert_non_null(strstr(app.status.msg, "WRONG"));
    app_fini(&app);
}

static void test_sweep_compare(void **state)
{
    App app;
    uint64_t sizes[40];
    open_app(&app, COLL_ALLREDUCE, 4, 16 << 10);
    size_t ns = worker_sweep_sizes(&app.scene->call, APP_SWEEP_MIN,
                                   app.scene->bytes, sizes, 40);
    assert_int_equal(ns, 6); /* 8, 32, 128, 512, 2K, 16K (not 8K) */
    assert_int_equal(sizes[0], 8);
    assert_int_equal(sizes[5], 16 << 10);
    size_t na = 0;
    for (size_t i = 0; i < algo_count(); i++) /* those made for full */
        na += algo_at(i)->coll == COLL_ALLREDUCE &&
              algo_fits(algo_at(i), &app.scene->call, NULL, NULL, 0);
    act(&app, ACT_COMPARE);
    assert_true(app.bg.compare);
    assert_true(app.view.show[VIEW_CHART]);
    settle(&app);
    assert_int_equal(app.bg.kind, WORKER_IDLE);
    assert_int_equal(app.bg.nsweep, ns * na);
    assert_int_equal(app.bg.planned, ns * na);
    for (size_t i = 0; i < app.bg.nsweep; i++) {
        const SweepPoint *p = &app.bg.sweep[i];
        assert_true(p->ok);
        assert_int_equal(p->algo->coll, COLL_ALLREDUCE);
        assert_int_equal(p->bytes, sizes[i / na]);
        assert_true(p->time_s > 0 && p->busbw > 0 && p->model_busbw > 0);
        assert_true(p->busbw == p->algbw * coll_busbw_factor(COLL_ALLREDUCE, 4));
    }
    /* another algorithm keeps the comparison; a sweep of one algorithm
     * replaces only its own points; other ranks drop them */
    SceneSetup set;
    scene_setup(app.scene, &set);
    set.algo = algo_find(COLL_ALLREDUCE, "butterfly");
    assert_true(app_remake(&app, &set, false));
    assert_int_equal(app.bg.nsweep, ns * na);
    act(&app, ACT_COMPARE); /* back to one algorithm */
    settle(&app);
    assert_int_equal(app.bg.nsweep, ns * na);
    assert_int_equal(app.bg.sweep[ns * na - 1].algo, set.algo);
    set.call.nranks = 5;
    assert_true(app_remake(&app, &set, false));
    assert_int_equal(app.bg.nsweep, 0);
    app_fini(&app);
}

static void test_cancel(void **state)
{
    App app;
    open_app(&app, COLL_ALLGATHER, 8, 64ull << 20);
    act(&app, ACT_SWEEP);
    assert_int_equal(app.bg.kind, WORKER_SWEEP);
    act(&app, ACT_CANCEL);
    settle(&app);
    assert_int_equal(app.bg.kind, WORKER_IDLE);
    assert_true(app.bg.nsweep == 0 || app.bg.nsweep < app.bg.planned);
    assert_non_null(strstr(app.status.msg, "cancelled"));
    /* a scene change while a job runs: its results are not this scene's */
    calibrated(&app);
    act(&app, ACT_BENCH);
    act(&app, ACT_INPLACE);
    settle(&app);
    assert_false(app.bg.total_s.valid);
    assert_int_equal(app.bg.kind, WORKER_IDLE);
    app_fini(&app);
}

/* ------------------------------------------------------------ no App */

/* A job as the App would make it, for p ranks of kind k at `bytes`. */
static WorkerJob job_of(WorkerKind kind, CollKind k, int p, uint64_t bytes)
{
    return (WorkerJob){
        .kind = kind, .call = {.kind = k, .nranks = p, .dtype = DT_FLOAT},
        .algo = algo_default(k), .backend = &exec_threads_ops,
        .bytes = bytes, .min_bytes = 1024,
        .model = {.machine = MACHINE_FULL,
                  .params = {.alpha = 1e-6, .beta = 1e-10, .gamma = 5e-11}},
        .budget_s = 0.01,
    };
}

/* Every result waiting, in order, into out (at most cap); how many. */
static size_t take_all(Worker *w, WorkerResult *out, size_t cap)
{
    size_t n = 0;
    while (n < cap && worker_take(w, &out[n]))
        n++;
    return n;
}

static void fini_all(WorkerResult *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        worker_result_fini(&r[i]);
}

/* One timed run is never judged alone (T10): a run whose budget one
 * iteration outlasts (a budget of 0: no sizing) still times several
 * parts, reports their median "of N runs" (N > 1, the plural), and sets
 * it against the model. */
static void test_bench_samples(void **state)
{
    Worker *w = worker_new();
    WorkerJob j = job_of(WORKER_BENCH, COLL_ALLREDUCE, 3, 3 << 10);
    j.budget_s = 0;
    worker_submit(w, &j);
    worker_wait(w);
    WorkerResult r[8];
    size_t n = take_all(w, r, 8);
    assert_int_equal(n, 2);
    assert_int_equal(r[0].kind, WORKER_TIMED);
    if (r[0].runs < 2)
        fail_msg("the verdict rests on %d run: %s", r[0].runs, r[1].msg);
    char want[64];
    snprintf(want, sizeof want, " of %d runs; the model says ", r[0].runs);
    if (!strstr(r[1].msg, want) || strstr(r[1].msg, "of 1 run"))
        fail_msg("'%s' not in '%s'", want, r[1].msg);
    fini_all(r, n);
    worker_free(w);
}

/* A timed run posts its measurement, then its end; nothing else is left. */
static void test_results_of_a_run(void **state)
{
    Worker *w = worker_new();
    WorkerJob j = job_of(WORKER_BENCH, COLL_ALLREDUCE, 3, 3 << 10);
    unsigned id = worker_submit(w, &j);
    worker_wait(w);
    WorkerResult r[8];
    size_t n = take_all(w, r, 8);
    assert_int_equal(n, 2);
    assert_int_equal(r[0].kind, WORKER_TIMED);
    assert_int_equal(r[0].job, id);
    assert_true(r[0].iter_s > 0 && r[0].verified);
    assert_int_equal(r[0].bytes, 3 << 10);
    assert_non_null(r[0].step_s);
    assert_true(r[0].nsteps > 0);
    assert_int_equal(r[1].kind, WORKER_DONE);
    assert_int_equal(r[1].job, id);
    assert_false(r[1].error);
    assert_true(r[1].progress == 1);
    assert_non_null(strstr(r[1].msg, "verified"));
    assert_false(worker_take(w, &r[2]));
    fini_all(r, n);
    worker_free(w);
}

/* A sweep posts as many points as it planned, in size order, then its end;
 * a new job drops what the last one left untaken. */
static void test_results_of_a_sweep(void **state)
{
    Worker *w = worker_new();
    WorkerJob j = job_of(WORKER_SWEEP, COLL_ALLGATHER, 4, 64 << 10);
    unsigned first = worker_submit(w, &j);
    worker_wait(w);
    unsigned id = worker_submit(w, &j);
    assert_true(id > first);
    worker_wait(w);
    WorkerResult r[16];
    size_t n = take_all(w, r, 16);
    assert_int_equal(n, 5); /* 1K, 4K, 16K, 64K, and the end */
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(r[i].job, id);
        assert_int_equal(r[i].planned, 4);
        assert_int_equal(r[i].kind, i < 4 ? WORKER_POINT : WORKER_DONE);
        if (i < 4) {
            assert_true(r[i].point.ok);
            assert_int_equal(r[i].point.bytes, 1024u << (2 * i));
        }
    }
    fini_all(r, n);
    worker_free(w);
}

/* Cancelling stops a sweep between measurements and says so; a job
 * cancelled before it starts ends there. */
static void test_cancel_results(void **state)
{
    Worker *w = worker_new();
    WorkerJob j = job_of(WORKER_SWEEP, COLL_ALLREDUCE, 8, 256ull << 20);
    j.budget_s = 0.5;
    unsigned id = worker_submit(w, &j);
    worker_cancel(w);
    worker_wait(w);
    WorkerResult r[64];
    size_t n = take_all(w, r, 64), done = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].job == id && r[i].kind == WORKER_DONE) {
            done++;
            assert_non_null(strstr(r[i].msg, "cancelled"));
            assert_int_equal(i, n - 1);
        }
    assert_int_equal(done, 1);
    assert_true(n < 1 + 10); /* far fewer than the sweep's 10 sizes */
    fini_all(r, n);
    worker_free(w);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* A timed run of 128 MiB of buffers and a minute of iterations, stopped
 * while it loads, checks or times: worker_free (quitting) and
 * worker_cancel (Esc) return, and the job ends, within STOP_LIMIT_S,
 * however long the executor's call in progress would last. */
static void test_stop_a_long_job(void **state)
{
    static const double after[] = {0.05, 0.5, 2.0};
    for (size_t i = 0; i < 2 * sizeof after / sizeof *after; i++) {
        Worker *w = worker_new();
        WorkerJob j = job_of(WORKER_BENCH, COLL_ALLREDUCE, 4, 16u << 20);
        j.budget_s = 60;
        worker_submit(w, &j);
        sleep_s(after[i / 2]);
        double t0 = now_s();
        if (i % 2) {
            worker_cancel(w);
            worker_wait(w);
        } else {
            worker_free(w);
        }
        double took = now_s() - t0;
        if (took > STOP_LIMIT_S)
            fail_msg("%s after %.2f s: %.2f s", i % 2 ? "cancel" : "free",
                     after[i / 2], took);
        WorkerResult r[8];
        size_t n = i % 2 ? take_all(w, r, 8) : 0;
        if (i % 2)
            assert_non_null(strstr(r[n - 1].msg, "cancelled"));
        fini_all(r, n);
        if (i % 2)
            worker_free(w);
    }
}

/* A size whose buffers do not fit in this machine's memory is refused as
 * perf refuses it: exec_check_fits's rule and sentence. */
static void test_refused_like_perf(void **state)
{
    Worker *w = worker_new();
    WorkerJob j = job_of(WORKER_BENCH, COLL_ALLREDUCE, 4, 1ull << 50);
    CollCall c = j.call;
    c.count = coll_count_floor(&c, j.bytes);
    Schedule s;
    char fits[160] = "";
    assert_int_equal(algo_generate(j.algo, &c, &s), CV_OK);
    assert_int_equal(exec_check_fits(&s, 0, fits, sizeof fits), CV_ERR_NOMEM);
    sched_fini(&s);
    worker_submit(w, &j);
    worker_wait(w);
    WorkerResult r[4];
    size_t n = take_all(w, r, 4);
    assert_int_equal(n, 1);
    assert_int_equal(r[0].kind, WORKER_ERROR);
    assert_non_null(strstr(r[0].msg, "cannot start: at 1125899906842624 bytes"));
    /* the rule's sentence up to the free memory, which moves between the
       two calls (page cache, other programs) */
    char *free_at = strstr(fits, " GiB of memory free");
    assert_non_null(free_at);
    free_at = strstr(fits, "this machine has ");
    assert_non_null(free_at);
    free_at[strlen("this machine has ")] = '\0';
    assert_non_null(strstr(r[0].msg, fits));
    worker_free(w);
}

/* One model: with this machine's calibration saved, the sweep's model
 * points are the calibrated predictor's, and the one at the chosen size
 * is the scene's prediction (counters and chart), on one curve. */
static void test_one_model(void **state)
{
    char dir[64];
    Calib c = fake_calib_saved(4, dir, sizeof dir);
    App app;
    open_app(&app, COLL_ALLREDUCE, 4, 16 << 10);
    assert_true(app.scene->model.calibrated);
    act(&app, ACT_SWEEP);
    settle(&app);
    assert_int_equal(app.bg.nsweep, 6); /* 8 B .. 16K */
    for (size_t i = 0; i < app.bg.nsweep; i++) {
        const SweepPoint *p = &app.bg.sweep[i];
        CollCall call = app.scene->call;
        call.count = coll_count_floor(&call, p->bytes);
        Schedule s;
        double want;
        assert_int_equal(algo_generate(p->algo, &call, &s), CV_OK);
        assert_int_equal(calib_predict(&c, &s, c.machine, &want), CV_OK);
        sched_fini(&s);
        assert_true(p->model_s == want);
    }
    assert_true(app.bg.sweep[app.bg.nsweep - 1].bytes == app.scene->bytes);
    assert_true(app.bg.sweep[app.bg.nsweep - 1].model_s == app.scene->pred_total_s.v);
    app_fini(&app);
    fake_calib_remove(dir);
}

/* Without a calibration of this machine the first timed run calibrates
 * quickly first, as perf does, and says so; K starts a full calibration;
 * Esc cancels either, and nothing is saved. */
static void test_calibrate_first(void **state)
{
    App app;
    char dir[] = "/tmp/collviz-test-calib-XXXXXX", sub[64];
    assert_non_null(mkdtemp(dir));
    setenv("XDG_CACHE_HOME", dir, 1);
    open_app(&app, COLL_ALLREDUCE, 4, 64 << 10);
    assert_false(app.scene->model.calibrated);
    for (int k = 0; k < 2; k++) {
        act(&app, k ? ACT_CALIBRATE : ACT_BENCH);
        assert_int_equal(app.bg.kind, WORKER_CALIB);
        assert_true(app.bg.bench_next == (k == 0));
        if (k == 0)
            assert_non_null(strstr(app.status.msg, "a quick one first"));
        act(&app, ACT_CANCEL);
        settle(&app);
        assert_int_equal(app.bg.kind, WORKER_IDLE);
        assert_non_null(strstr(app.status.msg, "cancelled"));
        assert_false(app.scene->model.calibrated);
        assert_false(app.bg.total_s.valid);
    }
    app_fini(&app);
    snprintf(sub, sizeof sub, "%s/collviz", dir);
    rmdir(sub); /* empty: nothing was saved */
    assert_int_equal(rmdir(dir), 0);
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
}

static void test_sweep_sizes(void **state)
{
    uint64_t s[40];
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 3, .dtype = DT_DOUBLE};
    size_t n = worker_sweep_sizes(&c, 1000, 100000, s, 40);
    assert_true(n >= 3);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(s[i] % 24, 0); /* whole blocks of 3 doubles */
        assert_true(s[i] >= 24 && s[i] <= 100000);
        if (i)
            assert_true(s[i] > s[i - 1]);
    }
    /* the largest whole size is always the last, and nothing is more
     * than a factor 4 from the one before (the last: 8, in place of one
     * that would be more than half of it) */
    for (uint64_t max = 24; max < (1u << 22); max = max * 3 + 7) {
        n = worker_sweep_sizes(&c, 8, max, s, 40);
        assert_true(n >= 1);
        assert_int_equal(s[n - 1], max / 24 * 24);
        for (size_t i = 1; i < n; i++)
            assert_true(s[i] > s[i - 1] &&
                        s[i] <= (i + 1 < n ? 4 : 8) * s[i - 1] + 24);
    }
    assert_int_equal(worker_sweep_sizes(&c, 1, 10, s, 40), 0);
    assert_int_equal(worker_sweep_sizes(&c, 1, 1ull << 40, s, 4), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bench),
        cmocka_unit_test(test_bench_band),
        cmocka_unit_test(test_bench_samples),
        cmocka_unit_test(test_unsteady_calibration),
        cmocka_unit_test(test_bench_wrong),
        cmocka_unit_test(test_sweep_compare),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_sweep_sizes),
        cmocka_unit_test(test_calibrate_first),
        cmocka_unit_test(test_results_of_a_run),
        cmocka_unit_test(test_results_of_a_sweep),
        cmocka_unit_test(test_cancel_results),
        cmocka_unit_test(test_stop_a_long_job),
        cmocka_unit_test(test_refused_like_perf),
        cmocka_unit_test(test_one_model),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
