/* test_ui_screens.c - whole screens compared with golden files: text, colour
 * roles and attributes of several scenes at several terminal sizes, in
 * Unicode and ASCII. Every scene is driven by a script, as `collviz tui
 * --script` would. To accept new screens after a deliberate change, run
 * with COLLVIZ_UPDATE_GOLDEN=1 and review the diff of tests/golden/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_fixture.h"
#include "ui/screen.h"
#include "ui/script.h"


static int setup(void **state)
{
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
    return 0;
}

/* One golden scene. */
typedef struct {
    const char *name;   /* file name under tests/golden/, without .txt */
    CollKind kind;      /* collective */
    const char *algo;   /* algorithm, NULL for the default */
    int nranks;         /* ranks */
    int root;           /* root */
    bool in_place;      /* in place */
    int w, h;           /* terminal size */
    bool ascii;         /* ASCII line drawing */
    bool all_panels;    /* topology, timeline and chart on too */
    const char *script; /* what happens before the frame is taken */
} Golden;

static char *render(const Golden *sc)
{
    AppOptions o = app_options(sc->kind, sc->algo, sc->nranks, true);
    App app;
    char why[200];
    o.root = sc->root;
    o.in_place = sc->in_place;
    assert_int_equal(app_init(&app, &o, why, sizeof why), CV_OK);
    app.view.term_w = sc->w;
    app.view.term_h = sc->h;
    app.view.ascii = sc->ascii;
    if (!sc->all_panels)
        app.view.show[VIEW_TOPOLOGY] = app.view.show[VIEW_TIMELINE] = false;
    Script s;
    assert_int_equal(script_parse(sc->script, &s, why, sizeof why), CV_OK);
    Grid g;
    grid_init(&g, sc->w, sc->h, sc->ascii);
    ScriptRun run = {0};
    script_run(&app, &s, &run, &g);
    char *text = grid_dump(&g, true);
    grid_fini(&g);
    script_fini(&s);
    app_fini(&app);
    return text;
}

static void check_scene(const Golden *sc)
{
    char *got = render(sc);
    golden_check(sc->name, got);
    free(got);
}

static const Golden scenes[] = {
    {"ring8_step2_80x24", COLL_ALLREDUCE, "ring", 8, 0, false, 80, 24, false,
     false, "Right Right"},
    {"ring8_select_120x40_ascii", COLL_ALLREDUCE, "ring", 8, 0, false, 120,
     40, true, false, "Right Right Right select 1 recv 7"},
    {"bcast_binomial16_last_100x30", COLL_BROADCAST, "binomial", 16, 3,
     false, 100, 30, false, false, "End Right"},
    {"alltoall64_step1_100x30", COLL_ALLTOALL, "pairwise", 64, 0, false, 100,
     30, false, false, "Right Down Down >"},
    {"reducescatter64_200x70", COLL_REDUCESCATTER, "recursive-halving", 64,
     0, false, 200, 70, false, false, "Right Right Right"},
    {"allgather4_inplace_80x24_ascii", COLL_ALLGATHER, "ring", 4, 0, true, 80,
     24, true, false, "Right"},
    {"too_small_79x30", COLL_ALLREDUCE, NULL, 8, 0, false, 100, 30, false,
     false, "resize 79x30"},
    {"help_100x30", COLL_ALLREDUCE, NULL, 8, 0, false, 100, 30, false, false,
     "?"},
    {"help_160x50", COLL_ALLREDUCE, NULL, 8, 0, false, 160, 50, true, false,
     "?"},
    {"menu_algo_100x30", COLL_ALLREDUCE, NULL, 8, 0, false, 100, 30, false,
     false, "a Down Down"},
    {"reduce_op_message_80x24", COLL_ALLGATHER, NULL, 3, 0, false, 80, 24,
     false, false, "o"},
    {"full_120x40", COLL_ALLREDUCE, "ring", 8, 0, false, 120, 40, false, true,
     "Right Right Right Right"},
    {"menu_coll_100x30", COLL_ALLREDUCE, NULL, 8, 0, false, 100, 30, false,
     false, "c Down Down"},
    {"sendrecv8_inplace_refused_80x24", COLL_SENDRECV, NULL, 8, 0, false, 80,
     24, false, false, "Right i"},
    {"hypercube8_step2_100x30", COLL_HYPERCUBE, NULL, 8, 0, false, 100, 30,
     false, true, "Right Right"},
    /* the teacher's projector scenes (issue 34, P1): presenter mode at
       100x30, every label whole with a blank between */
    {"hd13_present_step5_100x30", COLL_ALLREDUCE, "halving-doubling", 13, 0,
     false, 100, 30, false, false, "P Right Right Right Right Right"},
    {"bcast_binomial13_present_100x30", COLL_BROADCAST, "binomial", 13, 0,
     false, 100, 30, false, false, "P Right"},
    {"dbt16_present_step3_100x30", COLL_ALLREDUCE, "double-binary-tree", 16,
     0, false, 100, 30, false, false, "P Right Right Right"},
    {"ring16_present_step9_100x30", COLL_ALLREDUCE, "ring", 16, 0, false, 100,
     30, false, false, "P End Left Left Left Left Left Left Left Left Left "
     "Left Left Left Left Left Left Left Left Left Left Left Left"},
};

static void test_scene(void **state) { check_scene(*state); }

int main(void)
{
    struct CMUnitTest tests[sizeof scenes / sizeof scenes[0]];
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++)
        tests[i] = (struct CMUnitTest){.name = scenes[i].name,
                                       .test_func = test_scene,
                                       .initial_state = (void *)&scenes[i]};
    return cmocka_run_group_tests(tests, setup, NULL);
}
