/* test_ui_scene.c - a Scene on its own, with no App and no terminal, as a
 * lesson player would hold one: made from a setup, stepped and sought with
 * the real buffers checked after every move, remade (keeping its executor
 * when it can), run symbolically without a backend, and broken by a
 * backend that fails while stepping; its model: the calibrated predictor
 * when this machine's calibration is saved. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ui/scene.h"

#include "test_ui_fakes.h"

static int setup(void **state)
{
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
    return 0;
}

static SceneSetup setup_of(CollKind k, const char *algo, int p,
                           const ExecOps *backend)
{
    return (SceneSetup){
        .call = {.kind = k, .nranks = p, .dtype = DT_FLOAT, .op = OP_SUM},
        .algo = algo ? algo_find(k, algo) : algo_default(k),
        .bytes = 1 << 20, .cells = 1, .backend = backend,
    };
}

static Scene *open_scene(const SceneSetup *set)
{
    Scene *sc;
    char why[200] = "?";
    assert_int_equal(scene_new(&sc, set, why, sizeof why), CV_OK);
    assert_non_null(sc);
    assert_string_equal(why, "");
    return sc;
}

/* Forward step by step, back, and jumps: the real buffers match the
 * symbolic state after every move, and the counters follow the step. */
static void test_steps_and_seeks(void **state)
{
    SceneSetup set = setup_of(COLL_ALLREDUCE, "ring", 4, &exec_threads_ops);
    Scene *sc = open_scene(&set);
    char why[200];
    size_t n = sc->sched.nsteps;
    assert_true(n >= 6); /* 2(p-1) steps and perhaps a local copy */
    assert_int_equal(sc->step, 0);
    assert_true(sc->check.real_ok);
    for (size_t k = 1; k <= n + 1; k++) {
        assert_int_equal(scene_step(sc, 1, why, sizeof why), CV_OK);
        assert_int_equal(sc->step, k < n ? k : n);
        assert_true(sc->check.real_ok);
        assert_int_equal(sc->check.nwrong, 0);
        assert_true(sc->pred_step_s.valid);
    }
    assert_int_equal(sc->sofar_sent, sc->totals.max_sent);
    /* every output element is the sum of the 4 ranks' inputs */
    for (size_t i = 0; i < scene_buf_cells(sc, 2, BUF_RECV); i++) {
        double want = scene_expected(sc, 2, BUF_RECV, i);
        assert_false(isnan(want));
        assert_true(scene_real_value(sc, 2, BUF_RECV, i) == want);
    }
    assert_int_equal(scene_step(sc, -100, why, sizeof why), CV_OK);
    assert_int_equal(sc->step, 0);
    assert_false(sc->pred_step_s.valid);
    assert_int_equal(scene_seek(sc, 4, why, sizeof why), CV_OK);
    assert_int_equal(sc->step, 4);
    assert_true(sc->step_sent > 0);
    assert_int_equal(sc->check.nwrong, 0);
    assert_int_equal(scene_seek(sc, 2, why, sizeof why), CV_OK);
    assert_int_equal(sc->step, 2);
    assert_int_equal(sc->check.nwrong, 0);
    scene_free(sc);
}

/* A remade scene keeps the executor for the same backend and ranks, and
 * opens another for other ranks; a setup that cannot be built leaves the
 * scene as it was. */
static void test_remake(void **state)
{
    SceneSetup set = setup_of(COLL_ALLGATHER, NULL, 3, &exec_threads_ops);
    Scene *sc = open_scene(&set), *before = sc;
    char why[200];
    Executor *ex = sc->ex;
    SceneSetup got;
    scene_setup(sc, &got);
    assert_int_equal(got.call.kind, COLL_ALLGATHER);
    assert_int_equal(got.cells, 1);
    assert_int_equal(got.bytes, 1 << 20);
    got.call.in_place = true;
    got.cells = 3;
    assert_int_equal(scene_remake(&sc, &got, why, sizeof why), CV_OK);
    assert_ptr_not_equal(sc, before);
    assert_ptr_equal(sc->ex, ex);
    assert_true(sc->call.in_place);
    assert_int_equal(sc->call.count, 3);
    assert_int_equal(scene_step(sc, 100, why, sizeof why), CV_OK);
    assert_int_equal(sc->check.nwrong, 0);
    got.call.nranks = SCENE_MAX_RANKS + 1;
    before = sc;
    assert_int_equal(scene_remake(&sc, &got, why, sizeof why), CV_ERR_RANKS);
    assert_ptr_equal(sc, before);
    assert_non_null(strstr(why, "1 to 64 ranks"));
    got.call.nranks = 5;
    assert_int_equal(scene_remake(&sc, &got, why, sizeof why), CV_OK);
    assert_ptr_not_equal(sc->ex, ex);
    assert_int_equal(sc->ex->nranks, 5);
    scene_free(sc);
}

/* Without a backend the picture runs symbolically: no real buffers. */
static void test_symbolic_only(void **state)
{
    SceneSetup set = setup_of(COLL_BROADCAST, "binomial", 7, NULL);
    set.call.root = 6;
    Scene *sc = open_scene(&set);
    char why[200];
    assert_null(sc->ex);
    assert_int_equal(scene_seek(sc, 100, why, sizeof why), CV_OK);
    assert_int_equal(sc->step, sc->sched.nsteps);
    assert_false(sc->check.real_ok);
    assert_true(isnan(scene_real_value(sc, 0, BUF_RECV, 0)));
    assert_int_equal(sc->sim.err, CV_OK);
    assert_true(sc->pred_total_s.valid && sc->pred_total_s.v > 0);
    scene_free(sc);
}

/* A backend that fails at the third step breaks the scene and says how;
 * one that reads back wrong is caught. */
static void test_backend_failures(void **state)
{
    SceneSetup set = setup_of(COLL_ALLREDUCE, "ring", 4, &fake_ops);
    Scene *sc = open_scene(&set);
    char why[200];
    fake_mode.fail_step = 2;
    assert_int_equal(scene_seek(sc, 2, why, sizeof why), CV_OK);
    assert_false(sc->broken);
    assert_int_not_equal(scene_step(sc, 1, why, sizeof why), CV_OK);
    assert_true(sc->broken);
    assert_string_equal(why, "The fake backend failed: the device went "
                             "away at step 3");
    fake_mode.fail_step = SIZE_MAX;
    scene_free(sc);
    fake_mode.corrupt_read = true;
    sc = open_scene(&set);
    assert_true(sc->check.real_ok);
    assert_int_equal(sc->check.nwrong, 1); /* rank 1's first send element */
    fake_mode.corrupt_read = false;
    scene_free(sc);
}

/* With a calibration of this machine saved, the whole prediction is the
 * calibrated predictor's (as perf's model line), and a step's the plain
 * model's at the calibration's parameters for the schedule's footprint;
 * without one both are the plain model's with the defaults. */
static void test_calibrated_model(void **state)
{
    char dir[64], why[200];
    Calib c = fake_calib_saved(4, dir, sizeof dir);
    SceneSetup set = setup_of(COLL_ALLREDUCE, "ring", 4, &exec_threads_ops);
    Scene *sc = open_scene(&set);
    double want;
    assert_true(sc->model.calibrated);
    assert_int_equal(sc->model.machine, MACHINE_BUS);
    assert_int_equal(calib_predict(&c, &sc->big_sched, c.machine, &want), CV_OK);
    assert_true(sc->pred_total_s.valid && sc->pred_total_s.v == want);
    CostTerms t;
    ModelParams m = calib_params(&c, c.machine, calib_footprint(&sc->big_sched));
    assert_int_equal(model_schedule_cost(&sc->big_sched, c.machine, &m, &t), CV_OK);
    assert_true(want != cost_time(&t, &m)); /* the threads predictor's own */
    assert_int_equal(scene_step(sc, 2, why, sizeof why), CV_OK);
    assert_true(sc->pred_step_s.valid);
    assert_true(sc->pred_step_s.v ==
                model_step_time(&sc->big_sched, 1, c.machine, &m));
    scene_free(sc);
    fake_calib_remove(dir);
    sc = open_scene(&set);
    assert_false(sc->model.calibrated);
    scene_free(sc);
}

static void test_bad_setup(void **state)
{
    SceneSetup set = setup_of(COLL_ALLREDUCE, "ring", 0, &exec_threads_ops);
    Scene *sc = (Scene *)&set;
    char why[200];
    assert_int_equal(scene_new(&sc, &set, why, sizeof why), CV_ERR_RANKS);
    assert_null(sc);
    assert_non_null(strstr(why, "collviz trace"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steps_and_seeks),
        cmocka_unit_test(test_remake),
        cmocka_unit_test(test_symbolic_only),
        cmocka_unit_test(test_backend_failures),
        cmocka_unit_test(test_bad_setup),
        cmocka_unit_test(test_calibrated_model),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
