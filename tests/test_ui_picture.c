/* test_ui_picture.c - the picture is the priced schedule (issue 50, item
 * 1): the counters' bytes per link against loads worked out by hand; a
 * reducing switch (NVLS) drawn with the loads into it, the sums out and
 * the multicast, in words from the algorithm's definition; the chunk
 * knob (key p) against the step counts the algorithms' closed forms give;
 * goldens of the three at 100x30, English and Chinese, colour and
 * NO_COLOR. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "golden_fixture.h"
#include "golden_mono.h"
#include "scene/scene_opts.h"
#include "ui/i18n.h"
#include "ui/scene.h"
#include "ui/scene_str.h"
#include "ui/screen.h"
#include "ui/script.h"
#include "ui/view.h"

static int setup(void **state)
{
    (void)state;
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
    return 0;
}

/* An App of k by algo on p ranks priced on topo at `bytes` (0: the
 * default size). */
static void open_at(App *app, CollKind k, const char *algo, int p,
                    const char *topo, uint64_t bytes)
{
    AppOptions o = app_options(k, algo, p, true);
    char why[200];
    SpecMachine sm;
    CliErr ce;
    assert_int_equal(spec_machine_name(&sm, topo, &ce), 0);
    o.machine = &sm;
    if (bytes)
        o.bytes = bytes;
    assert_int_equal(app_init(app, &o, why, sizeof why), CV_OK);
}


/* Link l's bytes as a hand count says, by its name. */
typedef struct {
    const char *name; /* machine_link_name's */
    double bytes;     /* the hand count */
} HandLoad;

/* Every link of sc's machine carries what `hand` says (0 when it is not
 * there), and the counters' order lists exactly the loaded ones, most
 * first. */
static void expect_loads(const Scene *sc, const HandLoad *hand, int n)
{
    const Machine *m = &sc->machine.mach;
    int loaded = 0;
    for (int l = 0; l < m->nlinks; l++) {
        char name[64];
        double want = 0;
        machine_link_name(m, l, name, sizeof name);
        for (int i = 0; i < n; i++)
            if (!strcmp(hand[i].name, name))
                want = hand[i].bytes;
        if (sc->link_bytes[l] != want)
            fail_msg("%s carries %.0f B, by hand %.0f B", name,
                     sc->link_bytes[l], want);
        loaded += want > 0;
    }
    assert_int_equal(sc->link_nloaded, loaded);
    for (int i = 0; i + 1 < sc->link_nloaded; i++)
        assert_true(sc->link_bytes[sc->link_order[i]] >=
                    sc->link_bytes[sc->link_order[i + 1]]);
}

/* Ring all-reduce on 4 ranks of `full` (each rank a port up to the
 * switch and one down from it) at 4 KiB: blocks of 1 KiB; step 2, the
 * first of the reduce-scatter (step 1 copies in), sends r to r + 1 mod 4
 * one block: its port up and r + 1's port down carry 1 KiB each, eight
 * links, nothing else. Linear broadcast from r0 at 4 KiB: r0's port up
 * carries the three copies, 12 KiB, each other rank's port down 4 KiB.
 * The counters list them, most first. */
static void test_link_bytes_by_hand(void **state)
{
    (void)state;
    static const HandLoad ring[] = {
        {"r0>sw.link", 1024}, {"sw.link>r1", 1024}, {"r1>sw.link", 1024},
        {"sw.link>r2", 1024}, {"r2>sw.link", 1024}, {"sw.link>r3", 1024},
        {"r3>sw.link", 1024}, {"sw.link>r0", 1024},
    };
    static const HandLoad linear[] = {
        {"r0>sw.link", 12288}, {"sw.link>r1", 4096},
        {"sw.link>r2", 4096},  {"sw.link>r3", 4096},
    };
    App app;
    open_at(&app, COLL_ALLREDUCE, "ring", 4, "full", 4096);
    char *t = golden_frame(&app, 160, 50, "Right\nRight\n", false);
    expect_loads(app.scene, ring, 8);
    for (int i = 0; i < 8; i++) {
        char want[64];
        snprintf(want, sizeof want, "%s 1 KiB", ring[i].name);
        if (!strstr(t, want))
            fail_msg("the counters do not say %s:\n%s", want, t);
    }
    free(t);
    app_fini(&app);
    open_at(&app, COLL_BROADCAST, "linear", 4, "full", 4096);
    t = golden_frame(&app, 160, 50, "Right\n", false);
    expect_loads(app.scene, linear, 4);
    assert_string_equal(linear[0].name, "r0>sw.link");
    const char *first = strstr(t, "links    r0>sw.link 12 KiB  sw.link>r1 4");
    if (!first)
        fail_msg("the busiest link is not listed first:\n%s", t);
    free(t);
    app_fini(&app);
}

/* The words of the switch's bar at step k of NVLS on 8 ranks of a switch
 * that reduces (nvls.c): step 1 loads every rank's slice into its owner's
 * sum, 8 x 7 copies between ranks, one sum down to each of the 8 owners;
 * steps 2 to 4 are the switch's sums (log2 8 levels), no link busy; step
 * 5 multicasts each owner's sum to the 7 others (8 ranks receive). The
 * ports: an arrow down (into the switch) under every rank in step 1, an
 * arrow up (out of it) too; none in a step of sums. */
static void test_switch_words(void **state)
{
    (void)state;
    static const struct {
        const char *seek, *words;
        int down, up; /* ports into and out of the switch, lit */
    } steps[] = {
        {"seek 1\nZ\n", "56 loads in, 8 sums out", 8, 8},
        {"seek 2\nZ\n", "the switch sums the loads", 0, 0},
        {"seek 4\nZ\n", "the switch sums the loads", 0, 0},
        {"seek 5\nZ\n", "8 sums in, multicast to 8 ranks", 8, 8},
    };
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
        App app;
        open_at(&app, COLL_ALLREDUCE, "nvls", 8, "switch,reduce", 0);
        char *t = golden_frame(&app, 100, 30, steps[i].seek, false);
        if (!strstr(t, steps[i].words))
            fail_msg("step %s: not '%s':\n%s", steps[i].seek,
                     steps[i].words, t);
        free(t);
        /* the small picture's port row: r0 .. r7 at columns 0, 2, .. */
        t = golden_frame(&app, 100, 30, "Z\n", false);
        const char *row = strstr(t, "\u25020 1 2 3 4 5 6 7");
        assert_non_null(row);
        const char *ports = strchr(row, '\n') + 1 + strlen("\u2502");
        int down = 0, up = 0;
        for (const char *c = ports; *c && *c != '\n'; c++) {
            down += !strncmp(c, "\u2193", 3);
            up += !strncmp(c, "\u2191", 3);
        }
        assert_int_equal(down, steps[i].down);
        assert_int_equal(up, steps[i].up);
        free(t);
        app_fini(&app);
    }
}

/* Steps drawn with c chunks (the key p pressed n times), by the closed
 * forms: NCCL's tree z + C + D - 1 (one step more per chunk), NVLS
 * nc + log2 p + 1, the chain S + p - 2. */
static size_t steps_with(App *app, int presses)
{
    char keys[64] = "";
    for (int i = 0; i < presses; i++)
        strcat(keys, "p\n");
    free(golden_frame(app, 100, 30, keys, false));
    return app->scene->sched.nsteps;
}

static void test_chunk_knob(void **state)
{
    (void)state;
    static const struct {
        CollKind k;
        const char *algo, *topo;
        int p;
        long extra; /* steps beyond the chunks: nc + extra */
    } algos[] = {
        {COLL_ALLREDUCE, "nvls", "switch,reduce", 8, 3 + 1},
        {COLL_BROADCAST, "chain", "full", 8, 8 - 2},
    };
    static const int cycle[] = {1, 2, 4, 8, 16, 0};
    for (size_t a = 0; a < sizeof algos / sizeof *algos; a++) {
        App app;
        open_at(&app, algos[a].k, algos[a].algo, algos[a].p, algos[a].topo,
                0);
        assert_int_equal(app.scene->chunks, 0);
        for (int i = 0; i < 5; i++) {
            size_t n = steps_with(&app, 1);
            assert_int_equal(app.scene->chunks, cycle[i]);
            assert_int_equal((long)n, cycle[i] + algos[a].extra);
        }
        steps_with(&app, 1);
        assert_int_equal(app.scene->chunks, 0); /* its own rule again */
        app_fini(&app);
    }
    /* NCCL's tree on 2 nodes of 8: one step more per chunk; 64 MiB takes
       16 chunks (32 MiB halves of 64 KiB chunks, at most 16), so the
       fifth press draws the priced steps, and the header says so */
    App app;
    open_at(&app, COLL_ALLREDUCE, "nccl_tree", 16, "nodes:2x8", 0);
    size_t one = steps_with(&app, 1);
    for (int i = 1; i < 5; i++)
        assert_int_equal(steps_with(&app, 1), one + (size_t)cycle[i] - 1);
    assert_int_equal(app.scene->sched.nsteps, app.scene->big_sched.nsteps);
    char *t = golden_frame(&app, 100, 30, "", false);
    assert_non_null(strstr(t, "chunks 16: drawn = priced at 64 MiB"));
    free(t);
    t = golden_frame(&app, 100, 30, "p\np\n", false); /* own rule, then 1 */
    assert_non_null(strstr(t, "chunks 1: drawn != priced, 64 MiB is "
                              "priced in 32 steps"));
    free(t);
    app_fini(&app);
    /* an algorithm without chunks: the knob says so, the scene stays */
    open_at(&app, COLL_ALLREDUCE, "ring", 8, "full", 0);
    t = golden_frame(&app, 100, 30, "p\n", false);
    assert_int_equal(app.scene->chunks, 0);
    assert_non_null(strstr(t, "ring cuts the vector into no chunks"));
    free(t);
    app_fini(&app);
}

/* The chunks go into the scene string (key u) and come back from it;
 * --chunks takes 1 to 16; the knob after 3 chunks (--chunks 3) doubles
 * to 6, 12, then the algorithm's own rule. */
static void test_chunks_in_scene_string(void **state)
{
    (void)state;
    App app;
    open_at(&app, COLL_ALLREDUCE, "nvls", 8, "switch,reduce", 0);
    free(golden_frame(&app, 100, 30, "p\np\np\nRight\n", false));
    SceneStr s;
    char text[SCENE_STR_LEN];
    CliErr e;
    scene_str_of(app.scene, false, &s);
    scene_str_format(&s, text, sizeof text);
    assert_non_null(strstr(text, " --chunks 4"));
    assert_int_equal(scene_str_parse(text, &s, &e), 0);
    assert_int_equal(s.chunks, 4);
    app_fini(&app);
    assert_int_not_equal(scene_str_parse("allreduce -a nvls --chunks 17", &s,
                                         &e), 0);
    assert_non_null(strstr(e.msg, "--chunks"));
    const AlgoInfo *nvls = algo_find(COLL_ALLREDUCE, "nvls");
    assert_int_equal(scene_next_chunks(nvls, 3), 6);
    assert_int_equal(scene_next_chunks(nvls, 12), 0);
    assert_int_equal(scene_next_chunks(algo_find(COLL_ALLREDUCE, "ring"), 0),
                     0);
}

/* The three at 100x30, English and Chinese, colour and NO_COLOR: the
 * counters' bytes per link (ring on full at 4 KiB, the topology hidden
 * so the counters have rows for them), NVLS's loads into the switch
 * (zoomed, and the small picture), the chunk knob on NCCL's tree on 2
 * nodes of 8 (4 chunks, and 16: the priced steps). */
static void test_goldens(void **state)
{
    (void)state;
    static const struct {
        const char *name, *topo, *algo, *keys;
        CollKind k;
        int p;
        uint64_t bytes;
    } scenes[] = {
        {"links_ring4", "full", "ring", "Right\nRight\n1\n", COLL_ALLREDUCE,
         4, 4096},
        {"nvls8_loads", "switch,reduce", "nvls", "Right\n", COLL_ALLREDUCE,
         8, 0},
        {"nvls8_loads_zoom", "switch,reduce", "nvls", "Right\nZ\n",
         COLL_ALLREDUCE, 8, 0},
        {"chunks4_nccl_tree2x8", "nodes:2x8", "nccl_tree",
         "p\np\np\nRight\nRight\nRight\nRight\nRight\nRight\n",
         COLL_ALLREDUCE, 16, 0},
        {"chunks16_nccl_tree2x8", "nodes:2x8", "nccl_tree",
         "p\np\np\np\np\nRight\nRight\nRight\nRight\nRight\nRight\n",
         COLL_ALLREDUCE, 16, 0},
    };
    for (size_t i = 0; i < sizeof scenes / sizeof *scenes; i++)
        for (int zh = 0; zh < 2; zh++)
            for (int mono = 0; mono < 2; mono++) {
                ui_lang_use(zh ? UI_LANG_ZH : UI_LANG_EN);
                App app;
                open_at(&app, scenes[i].k, scenes[i].algo, scenes[i].p,
                        scenes[i].topo, scenes[i].bytes);
                char *got = golden_frame(&app, 100, 30, scenes[i].keys, mono);
                char name[96];
                snprintf(name, sizeof name, "picture_%s_100x30_%s%s",
                         scenes[i].name, zh ? "zh" : "en",
                         mono ? "_mono" : "");
                golden_check(name, got);
                free(got);
                app_fini(&app);
            }
    ui_lang_use(UI_LANG_EN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_link_bytes_by_hand),
        cmocka_unit_test(test_switch_words),
        cmocka_unit_test(test_chunk_knob),
        cmocka_unit_test(test_chunks_in_scene_string),
        cmocka_unit_test(test_goldens),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
