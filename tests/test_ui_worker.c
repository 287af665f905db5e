/* test_ui_worker.c - background work: a timed run gives verified, measured
 * times per step and in total; a sweep fills the chart's table (every
 * algorithm when comparing); cancelling stops it; a scene change drops the
 * old job's results. Run under SAN=thread as well. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "ui/app.h"
#include "ui/scene.h"
#include "ui/worker.h"

#include "test_ui_fakes.h"

static int setup(void **state)
{
    setenv("XDG_CACHE_HOME", "/nonexistent/collviz-test-cache", 1);
    return 0;
}

static void open_app(App *app, CollKind k, int p, uint64_t bytes)
{
    AppOptions o = app_options(k, NULL, p, false);
    char why[200];
    o.bytes = bytes;
    assert_int_equal(app_init(app, &o, why, sizeof why), CV_OK);
    assert_non_null(app->worker);
}

static void act(App *app, Action a)
{
    Request r = {.act = a};
    app_apply(app, &r);
}

/* Wait for the worker, then take its results as the main loop does. */
static void settle(App *app)
{
    worker_wait(app->worker);
    app_poll(app, app_now());
}

static void test_bench(void **state)
{
    App app;
    open_app(&app, COLL_ALLREDUCE, 4, 256 << 10);
    act(&app, ACT_BENCH);
    assert_int_equal(app.bg, BG_BENCH);
    settle(&app);
    assert_int_equal(app.bg, BG_IDLE);
    assert_true(app.meas_total_s.valid);
    assert_true(app.meas_total_s.v > 0);
    assert_true(app.meas_verified);
    assert_int_equal(app.meas_bytes, 256 << 10);
    assert_true(app.meas_steps_ok);
    double sum = 0;
    for (size_t k = 0; k < app.scene->big_sched.nsteps; k++) {
        assert_true(app.meas_step_s[k] >= 0);
        sum += app.meas_step_s[k];
    }
    assert_true(sum > 0 && sum < 3 * app.meas_total_s.v);
    assert_non_null(strstr(app.msg, "verified"));
    assert_false(app.msg_error);
    app_fini(&app);
}

/* A timed run on a machine that gets one element wrong says so. */
static void test_bench_wrong(void **state)
{
    App app;
    char why[200];
    open_app(&app, COLL_REDUCESCATTER, 3, 3 << 10);
    assert_int_equal(scene_set_backend(app.scene, &fake_ops, why, sizeof why), CV_OK);
    fake_mode.corrupt_read = true;
    act(&app, ACT_BENCH);
    settle(&app);
    fake_mode.corrupt_read = false;
    assert_true(app.meas_total_s.valid);
    assert_false(app.meas_verified);
    assert_true(app.msg_error);
    assert_non_null(strstr(app.msg, "WRONG"));
    app_fini(&app);
}

static void test_sweep_compare(void **state)
{
    App app;
    uint64_t sizes[40];
    open_app(&app, COLL_ALLREDUCE, 4, 16 << 10);
    size_t ns = worker_sweep_sizes(&app.scene->call, 1024, app.scene->bytes, sizes, 40);
    assert_int_equal(ns, 3); /* 1K, 4K, 16K */
    size_t na = 0;
    for (size_t i = 0; i < algo_count(); i++)
        na += algo_at(i)->coll == COLL_ALLREDUCE;
    act(&app, ACT_COMPARE);
    assert_true(app.compare);
    assert_true(app.show[VIEW_CHART]);
    settle(&app);
    assert_int_equal(app.bg, BG_IDLE);
    assert_int_equal(app.nsweep, ns * na);
    assert_int_equal(app.sweep_planned, ns * na);
    for (size_t i = 0; i < app.nsweep; i++) {
        const SweepPoint *p = &app.sweep[i];
        assert_true(p->ok);
        assert_int_equal(p->algo->coll, COLL_ALLREDUCE);
        assert_int_equal(p->bytes, sizes[i / na]);
        assert_true(p->time_s > 0 && p->busbw > 0 && p->model_busbw > 0);
        assert_true(p->busbw == p->algbw * coll_busbw_factor(COLL_ALLREDUCE, 4));
    }
    app_fini(&app);
}

static void test_cancel(void **state)
{
    App app;
    open_app(&app, COLL_ALLGATHER, 8, 64ull << 20);
    act(&app, ACT_SWEEP);
    assert_int_equal(app.bg, BG_SWEEP);
    act(&app, ACT_CANCEL);
    settle(&app);
    assert_int_equal(app.bg, BG_IDLE);
    assert_true(app.nsweep == 0 || app.nsweep < app.sweep_planned);
    assert_non_null(strstr(app.msg, "cancelled"));
    /* a scene change while a job runs: its results are not this scene's */
    act(&app, ACT_BENCH);
    act(&app, ACT_INPLACE);
    settle(&app);
    assert_false(app.meas_total_s.valid);
    assert_int_equal(app.bg, BG_IDLE);
    app_fini(&app);
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
    assert_int_equal(worker_sweep_sizes(&c, 1, 10, s, 40), 0);
    assert_int_equal(worker_sweep_sizes(&c, 1, 1ull << 40, s, 4), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bench),
        cmocka_unit_test(test_bench_wrong),
        cmocka_unit_test(test_sweep_compare),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_sweep_sizes),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
