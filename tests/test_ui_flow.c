/* test_ui_flow.c - the TUI's two pricing modes (key D): lock-step stays
 * the default (the lessons' scenes too) and its screen comes back
 * unchanged; data-flow's whole time, the counters' model line and the
 * timeline's ranks ahead of lock-step against values worked out by hand;
 * a memory machine says it priced lock-step and why; goldens of the
 * data-flow screens in English and Chinese. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_fixture.h"
#include "golden_mono.h"
#include "scene/spec.h"
#include "ui/app.h"
#include "ui/i18n.h"
#include "ui/keys.h"
#include "ui/learn.h"
#include "ui/scene.h"
#include "ui/scene_str.h"
#include "ui/screen.h"
#include "ui/script.h"

static int setup(void **state)
{
    (void)state;
    /* no calibration from this machine's cache: the default parameters */
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
    return 0;
}

/* MPICH's recursive-doubling allgather on 11 ranks, 44 bytes (one float a
 * rank), on full with the TUI's defaults: alpha 1 us, 10 GB/s (0.4 ns a
 * float), no reduction. Its steps, as test_model_dataflow.c lists them at
 * 1 GB/s: a free copy-in, then messages of 1, 2, 1 (the pass-on r8 -> r9),
 * 4, 8, 3, 3 blocks: lock-step 7 us + 22 x 0.4 ns = 7.0088 us. In
 * data-flow the pass-on (1.0004 us) runs beside step 5: 6.0084 us. */
#define LOCK_S 7.0088e-6
#define FLOW_S 6.0084e-6

static void open_rd(App *app, const char *topo)
{
    AppOptions o = app_options(COLL_ALLGATHER, "recursive-doubling", 11,
                               true);
    SpecMachine sm;
    CliErr ce;
    char why[200];
    o.bytes = 44;
    if (topo) {
        assert_int_equal(spec_machine_name(&sm, topo, &ce), 0);
        o.machine = &sm;
    }
    assert_int_equal(app_init(app, &o, why, sizeof why), CV_OK);
}

/* The screen at w x h after script's keys, as text and roles. */
static char *frame(App *app, int w, int h, const char *script)
{
    return golden_frame(app, w, h, script, false);
}

#define NEAR(x, want) assert_true(fabs((x) - (want)) < 1e-15)

/* The line of text holding `what`, or fail. */
static void has(const char *text, const char *what)
{
    if (!strstr(text, what))
        fail_msg("no '%s' on the screen:\n%s", what, text);
}

/* D toggles: the whole becomes data-flow's, the model line says so, the
 * steps' terms are labelled with their lock-step sum, the shown step
 * keeps its lock-step price; D again gives back the very same screen. */
static void test_toggle_by_hand(void **state)
{
    (void)state;
    App app;
    open_rd(&app, NULL);
    assert_int_equal(keys_action('D'), ACT_PRICING);
    assert_int_equal(app.scene->model.pricing, PRICING_LOCKSTEP);
    NEAR(app.scene->pred_total_s.v, LOCK_S);
    char *lock = frame(&app, 100, 30, "Right\nRight\nRight\ndump\n");
    assert_null(strstr(lock, "data-flow"));
    has(lock, " whole         N/A   7.01 us");

    char *flow = frame(&app, 100, 30, "D\ndump\n");
    assert_int_equal(app.scene->model.pricing, PRICING_DATAFLOW);
    assert_int_equal(app.scene->step, 3); /* the same step */
    assert_true(app.scene->pred_total_s.valid);
    NEAR(app.scene->pred_total_s.v, FLOW_S);
    assert_int_equal(app.scene->split_whole.priced, PRICING_DATAFLOW);
    NEAR(app.scene->split_whole.lockstep, LOCK_S);
    NEAR(app.scene->pred_step_s.v, 1.0008e-6); /* 2 blocks, lock-step */
    has(flow, " whole         N/A   6.01 us");
    has(flow, "data-flow, D toggles");
    has(flow, " steps   7 a + 88 b + 0 g");
    has(flow, "lock-step, summed: 7.01 us");
    has(flow, "Data-flow: a rank goes on");
    golden_check("flow_rd11_100x30_en", flow);

    /* presenter mode's one line: the whole without a sum of terms */
    char *one = frame(&app, 100, 30, "P\nHome\ndump\n");
    has(one, "whole measured N/A  model 6.01 us  (defaults, data-flow)");
    free(one);
    char *back = frame(&app, 100, 30, "P\nRight\nRight\nRight\nD\n"
                                      "Right\nLeft\ndump\n");
    assert_int_equal(app.scene->model.pricing, PRICING_LOCKSTEP);
    NEAR(app.scene->pred_total_s.v, LOCK_S);
    assert_string_equal(back, lock);
    free(lock);
    free(flow);
    free(back);
    app_fini(&app);
}

/* The timeline in data-flow: how far each rank starts a step ahead of
 * lock-step, from the clocks worked out by hand (test_model_dataflow.c's
 * at 10 GB/s): step 3 finds r10 at 0 against 1.0004 us; step 4 (the
 * pass-on) r9 at 1.0004 against 2.0012; step 5 r0..r7 and r10 at 2.0012
 * against 3.0016, r8 and r9 on time. Lock-step has no one ahead. */
static void test_ahead_by_hand(void **state)
{
    (void)state;
    App app;
    open_rd(&app, NULL);
    for (int r = 0; r < 11; r++)
        assert_true(scene_ahead(app.scene, r, 4) == 0);
    char *flow = frame(&app, 100, 40, "D\n4\nRight\nRight\nRight\nRight\n"
                                      "Right\ndump\n");
    const Scene *sc = app.scene;
    for (int r = 0; r < 11; r++) {
        NEAR(scene_ahead(sc, r, 1), 0);
        NEAR(scene_ahead(sc, r, 2), r == 10 ? 1.0004e-6 : 0);
        NEAR(scene_ahead(sc, r, 3), r == 9 ? 1.0008e-6 : 0);
        NEAR(scene_ahead(sc, r, 4), r == 8 || r == 9 ? 0 : 1.0004e-6);
    }
    has(flow, "step 5: 9 of 11 ranks start up to 1.00 us early");
    golden_check("flow_rd11_timeline_100x40_en", flow);
    ui_lang_use(UI_LANG_ZH);
    char *zh = frame(&app, 100, 40, "dump\n");
    golden_check("flow_rd11_timeline_100x40_zh", zh);
    ui_lang_use(UI_LANG_EN);
    free(flow);
    free(zh);
    app_fini(&app);
}

/* On a memory machine data-flow cannot price: the line says lock-step
 * and why, and the whole is lock-step's. */
static void test_memory_says_lockstep(void **state)
{
    (void)state;
    App app;
    open_rd(&app, "gpu");
    Value lock = app.scene->pred_total_s;
    assert_true(lock.valid);
    char *t = frame(&app, 100, 30, "D\ndump\n");
    assert_int_equal(app.scene->model.pricing, PRICING_DATAFLOW);
    assert_int_equal(app.scene->split_whole.priced, PRICING_LOCKSTEP);
    assert_true(app.scene->pred_total_s.v == lock.v);
    assert_null(app.scene->flow_at);
    has(t, "lock-step: memory");
    free(t);
    app_fini(&app);
}

/* A lesson's scene is priced lock-step: what its text and queries say. */
static void test_lessons_lockstep(void **state)
{
    (void)state;
    Learn l;
    char why[600];
    ui_lang_use(UI_LANG_EN);
    if (learn_init(&l, "lessons", UI_LANG_EN, "/dev/null/collviz-progress",
                   why, sizeof why))
        fail_msg("learn_init: %s", why);
    l.w = 100, l.h = 30;
    if (learn_open(&l, 2, why, sizeof why)) /* the ring all-reduce */
        fail_msg("learn_open: %s", why);
    for (int i = 0; i < 20 && !l.have_app; i++)
        learn_key(&l, ' ');
    assert_true(l.have_app);
    assert_int_equal(l.app.scene->model.pricing, PRICING_LOCKSTEP);
    assert_int_equal(l.app.scene->split_whole.priced, PRICING_LOCKSTEP);
    learn_fini(&l);
}

/* A step's split into its terms' times never shows a negative part:
 * step 5 of this scene, lock-step and data-flow, read "-0.00" for its
 * gamma, the rounding left when the other parts are taken from the
 * whole (it reduces nothing). */
static void test_split_not_negative(void **state)
{
    (void)state;
    App app;
    open_rd(&app, NULL);
    for (int flow = 0; flow < 2; flow++) {
        char *t = frame(&app, 100, 30, flow ? "D\nHome\nRight\nRight\n"
                        "Right\nRight\nRight\ndump\n"
                        : "Right\nRight\nRight\nRight\nRight\ndump\n");
        has(t, "step 5 of 8");
        if (strstr(t, "-0.0") || strstr(t, "+ -"))
            fail_msg("a negative part:\n%s", t);
        free(t);
    }
    app_fini(&app);
}

/* The scene string carries the pricing: after D it says --pricing
 * dataflow, which opens a scene priced so (the whole data-flow's by
 * hand, FLOW_S); lock-step writes nothing; a bad mode is one sentence. */
static void test_scene_string(void **state)
{
    (void)state;
    App app;
    SceneStr s;
    char text[SCENE_STR_LEN];
    CliErr e;
    open_rd(&app, NULL);
    scene_str_of(app.scene, false, &s);
    scene_str_format(&s, text, sizeof text);
    assert_null(strstr(text, "--pricing"));
    free(frame(&app, 100, 30, "D\n"));
    scene_str_of(app.scene, false, &s);
    scene_str_format(&s, text, sizeof text);
    has(text, " --pricing dataflow");
    app_fini(&app);
    assert_int_equal(scene_str_parse(text, &s, &e), 0);
    assert_int_equal(s.pricing, PRICING_DATAFLOW);
    AppOptions o = app_options(COLL_ALLGATHER, "recursive-doubling", 11,
                               true);
    char why[200];
    o.bytes = 44, o.pricing = s.pricing;
    assert_int_equal(app_init(&app, &o, why, sizeof why), CV_OK);
    NEAR(app.scene->pred_total_s.v, FLOW_S);
    app_fini(&app);
    assert_int_not_equal(scene_str_parse("allreduce -a ring -p 4 --pricing "
                                         "fast", &s, &e), 0);
    has(e.msg, "fast");
}

/* D keeps a finished timed run: the measured whole (set here as a
 * worker's result would be) is still shown after D, and after D again. */
static void test_keeps_measured(void **state)
{
    (void)state;
    App app;
    open_rd(&app, NULL);
    app.bg.total_s = (Value){2.5e-6, true};
    app.bg.runs = 5;
    char *got = frame(&app, 100, 30, "D\n");
    assert_int_equal(app.scene->model.pricing, PRICING_DATAFLOW);
    assert_true(app.bg.total_s.valid);
    has(got, " whole     2.50 us");
    free(got);
    got = frame(&app, 100, 30, "D\n");
    assert_true(app.bg.total_s.valid && app.bg.total_s.v == 2.5e-6);
    free(got);
    app_fini(&app);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_toggle_by_hand),
        cmocka_unit_test(test_scene_string),
        cmocka_unit_test(test_keeps_measured),
        cmocka_unit_test(test_ahead_by_hand),
        cmocka_unit_test(test_memory_says_lockstep),
        cmocka_unit_test(test_lessons_lockstep),
        cmocka_unit_test(test_split_not_negative),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
