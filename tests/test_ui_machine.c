/* test_ui_machine.c - the machine a what-if prices on, as the TUI draws it
 * (zoomed with Z too: goldens, its span, wrap marks, a lane per direction
 * against loads worked out by hand; and T4's spelled-out row):
 * goldens of a 4x4 torus, of 2 nodes of 4 GPUs and of a 2x2x3 torus (its
 * z links between the slices, the last one's wrap-around) under ring, of
 * the torus all-reduce on 4x4, hier on nodes 2x4 with a NIC per node,
 * NVLS on a switch of 8 that reduces, NCCL's tree on nodes 2x4 and the
 * torus reduce-scatter on 4x2, at 100x30 and 80x24,
 * in English and Chinese, the normal layout and presenter mode; the
 * machine menu (a shape made to hold the ranks); what the panel shades
 * against the links' loads computed by hand; and a rank count the
 * machine's shape does not hold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
    return 0;
}

static void open_coll(App *app, CollKind k, const char *algo, int p,
                      const char *topo)
{
    AppOptions o = app_options(k, algo, p, true);
    char why[200];
    SpecMachine sm;
    CliErr ce;
    if (topo) {
        assert_int_equal(spec_machine_name(&sm, topo, &ce), 0);
        o.machine = &sm;
    }
    assert_int_equal(app_init(app, &o, why, sizeof why), CV_OK);
}

static void open_algo(App *app, const char *algo, int p, const char *topo)
{
    open_coll(app, COLL_ALLREDUCE, algo, p, topo);
}

static void open_app(App *app, int p, const char *topo)
{
    open_algo(app, "ring", p, topo);
}


static char *frame(App *app, int w, int h, const char *script)
{
    return golden_frame(app, w, h, script, false);
}

static void test_goldens(void **state)
{
    (void)state;
    static const struct {
        const char *name, *topo;
        CollKind coll;
        const char *algo;
        int p;
        const char *keys; /* to the step shown */
    } scenes[] = {
        {"torus4x4", "torus:4x4,y.bw=2.5", COLL_ALLREDUCE, "ring", 16, "Right\nRight\nRight\nRight\n"},
        {"nodes2x4", "nodes:2x4", COLL_ALLREDUCE, "ring", 8, "Right\nRight\nRight\nRight\n"},
        {"torus2x2x3", "torus:2x2x3", COLL_ALLREDUCE, "ring", 12, "Right\nRight\nRight\nRight\n"},
        {"torus_ar4x4", "torus:4x4", COLL_ALLREDUCE, "torus", 16, "Right\nRight\nRight\nRight\n"},
        {"hier2x4", "nodes:2x4,nic=shared", COLL_ALLREDUCE, "hier", 8, "Right\nRight\nRight\nRight\n"},
        /* the load-reduce: seven slices up each link, one sum down */
        {"nvls8", "switch,reduce", COLL_ALLREDUCE, "nvls", 8, "Right\n"},
        /* the roots send down their chain and across at once */
        {"nccl_tree2x4", "nodes:2x4", COLL_ALLREDUCE, "nccl_tree", 8,
         "Right\nRight\nRight\nRight\nRight\nRight\n"},
        /* the reduce-scatter along y, on blocks x left live */
        {"torus_rs4x2", "torus:4x2", COLL_REDUCESCATTER, "torus", 8,
         "Right\nRight\nRight\nRight\nRight\n"},
        /* a slow link, the busiest; a cable down both ways, crossed */
        {"ring_fix4x2", "torus:4x2,link=r1>r2:slow=4,link=r5-r6:down",
         COLL_ALLREDUCE, "ring", 8, "Right\nRight\n"},
    };
    static const int sizes[2][2] = {{100, 30}, {80, 24}};
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++)
        for (int s = 0; s < 2; s++)
            for (int zh = 0; zh < 2; zh++)
                for (int present = 0; present < 2; present++) {
                    ui_lang_use(zh ? UI_LANG_ZH : UI_LANG_EN);
                    App app;
                    open_coll(&app, scenes[i].coll, scenes[i].algo,
                              scenes[i].p, scenes[i].topo);
                    app.view.present = present;
                    char *got = frame(&app, sizes[s][0], sizes[s][1],
                                      scenes[i].keys);
                    char name[96];
                    snprintf(name, sizeof name, "machine_%s_%dx%d_%s%s",
                             scenes[i].name, sizes[s][0], sizes[s][1],
                             zh ? "zh" : "en", present ? "_present" : "");
                    golden_check(name, got);
                    free(got);
                    app_fini(&app);
                }
    ui_lang_use(UI_LANG_EN);
}

/* Step 4 of ring allreduce on a 4x2 torus: every rank sends one block of
 * 64 MiB / 8 to its right neighbour; r3 -> r4 and r7 -> r0 cross a y
 * link, the slowest (2.5 GB/s against 10): those are the busiest, each
 * with 8 MiB, and every x link but the wrap-arounds r3->r0, r7->r4 (which
 * those messages also cross) carries one block too. */
static void test_loads_by_hand(void **state)
{
    (void)state;
    App app;
    open_app(&app, 8, "torus:4x2,y.bw=2.5");
    char *t = frame(&app, 100, 30, "Right\nRight\nRight\nRight\n");
    free(t);
    const Scene *sc = app.scene;
    const Machine *m = &sc->machine.mach;
    double blk = 64.0 * 1024 * 1024 / 8;
    int l[4];
    assert_int_equal(machine_route(m, 3, 4, l, 4), 2);
    assert_true(sc->link_bytes[l[0]] == blk); /* r3 -> r0, x wrap */
    assert_true(sc->link_bytes[l[1]] == blk); /* r0 -> r4, y */
    /* the busiest: the first message, by ranks, whose slowest link is a y
       link: r3 -> r4's r0 -> r4 (r7 -> r0's r4 -> r0 ties, comes after) */
    assert_int_equal(sc->link_busiest, l[1]);
    MachineLink b = machine_link(m, sc->link_busiest);
    assert_int_equal(b.dim, 1);
    assert_int_equal(b.from, 0);
    assert_int_equal(b.to, 4);
    int msgs = 0;
    for (int i = 0; i < m->nlinks; i++)
        msgs += sc->link_msgs[i];
    assert_int_equal(msgs, 8 - 2 + 2 * 2); /* 6 one-hop + 2 two-hop */
    app_fini(&app);
}

static void test_menu_and_ranks(void **state)
{
    (void)state;
    App app;
    open_app(&app, 16, NULL);
    char *t = frame(&app, 100, 30, "M\n");
    assert_int_equal(app.mode.menu.kind, MENU_MACHINE);
    bool torus = false;
    for (int i = 0; i < app.mode.menu.n; i++)
        torus |= strstr(app.mode.menu.label[i], "torus:4x4 ") != NULL;
    assert_true(torus);
    free(t);
    /* pick torus:4x4, then 8 ranks: it becomes torus:4x2 and says so */
    t = frame(&app, 100, 30, "Down\nDown\nDown\nDown\nDown\nEnter\n");
    free(t);
    assert_string_equal(app.scene->machine.spec, "torus:4x4");
    assert_true(app.scene->model.what_if);
    SceneSetup set;
    scene_setup(app.scene, &set);
    set.call.nranks = 8;
    assert_true(app_remake(&app, &set, false));
    assert_string_equal(app.scene->machine.spec, "torus:4x2");
    assert_non_null(strstr(app.status.msg, "torus:4x4 does not hold 8 ranks"));
    app_fini(&app);
}

/* -T is parsed once per scene: the TUI's first scene takes the machine
 * its options built; a scene remade for the same ranks parses nothing,
 * one for other ranks parses its reshaped spec once. */
static void test_parsed_once(void **state)
{
    (void)state;
    SceneSpec sc;
    CliErr e;
    unsigned long n = spec_parse_count();
    assert_int_equal(scene_opts_parse_line("allreduce -a ring -p 8 -s 1K -T torus:4x2",
                                           &scene_limits_tui, &sc, &e), 0);
    assert_int_equal(spec_parse_count(), n + 1);
    AppOptions o = app_options(sc.call.kind, sc.algo->name, 8, true);
    o.machine = &sc.machine;
    App app;
    char why[200];
    assert_int_equal(app_init(&app, &o, why, sizeof why), CV_OK);
    assert_int_equal(spec_parse_count(), n + 1);
    assert_string_equal(app.scene->machine.spec, "torus:4x2");
    SceneSetup set;
    scene_setup(app.scene, &set);
    assert_true(app_remake(&app, &set, false));
    assert_int_equal(spec_parse_count(), n + 1);
    set.call.nranks = 16;
    assert_true(app_remake(&app, &set, false));
    assert_int_equal(spec_parse_count(), n + 2);
    assert_string_equal(app.scene->machine.spec, "torus:4x4");
    app_fini(&app);
}

/* w's and W's file names say the machine (its spec, ':' and ',' as '-')
 * and, for a schedule file, the file's name without folder or
 * extension. */
static void test_file_names(void **state)
{
    (void)state;
    App app;
    char name[300], path[] = "/tmp/cvz-names-XXXXXX", file[400];
    open_algo(&app, "torus", 16, "torus:4x4");
    scene_str_file_name(app.scene, "svg", name, sizeof name);
    assert_string_equal(name, "collviz-allreduce-torus-torus-4x4-p16-step0.svg");
    app_fini(&app);
    open_algo(&app, "nvls", 4, "switch,reduce");
    scene_str_file_name(app.scene, "cast", name, sizeof name);
    assert_string_equal(name, "collviz-allreduce-nvls-switch-reduce-p4-step0"
                        ".cast");
    app_fini(&app);
    assert_non_null(mkdtemp(path));
    snprintf(file, sizeof file, "%s/my ring.cvs", path);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("collective allgather\nranks 2\nparts 1\nstep\n"
          "r0.send[0] -> r0.recv[0]\nr0.send[0] -> r1.recv[0]\n"
          "r1.send[0] -> r1.recv[1]\nr1.send[0] -> r0.recv[1]\n", f);
    fclose(f);
    open_coll(&app, COLL_ALLGATHER, file, 2, NULL);
    scene_str_file_name(app.scene, "svg", name, sizeof name);
    assert_string_equal(name, "collviz-allgather-my-ring-p2-step0.svg");
    app_fini(&app);
    remove(file);
    rmdir(path);
}

/* The lecture's machine half as slides, at 100x30, English and Chinese,
 * each with its colour roles and its monochrome look (NO_COLOR): NVLS on
 * a reducing switch of 8 step by step (the load-reduce, the switch's
 * sums, the multicast, over its 5 steps), NCCL's tree on nodes:2x8 where
 * the chains and the trees run at once, and the ring on 8 ranks at step
 * 0, the first slide (every rank's send buffer shown). */
static void test_lecture_goldens(void **state)
{
    (void)state;
    static const struct {
        const char *name, *topo, *algo;
        int p, steps;
    } scenes[] = {
        {"nvls8_step", "switch,reduce", "nvls", 8, 5},
        {"nccl_tree2x8_step", "nodes:2x8", "nccl_tree", 16, 6},
        {"ring8_step", NULL, "ring", 8, 0},
    };
    for (size_t i = 0; i < sizeof scenes / sizeof *scenes; i++)
        for (int k = scenes[i].steps == 6 ? 6 : scenes[i].steps ? 1 : 0;
             k <= scenes[i].steps; k++)
            for (int zh = 0; zh < 2; zh++) {
                ui_lang_use(zh ? UI_LANG_ZH : UI_LANG_EN);
                App app;
                open_algo(&app, scenes[i].algo, scenes[i].p, scenes[i].topo);
                char keys[64] = "";
                for (int j = 0; j < k; j++)
                    strcat(keys, "Right\n");
                char *got = golden_frame(&app, 100, 30, keys, true), name[96];
                snprintf(name, sizeof name, "machine_%s%d_100x30_%s",
                         scenes[i].name, k, zh ? "zh" : "en");
                golden_check(name, got);
                free(got);
                app_fini(&app);
            }
    ui_lang_use(UI_LANG_EN);
}

/* The picture is drawn at a small count; the counters and the model
 * price the chosen size, whose schedule may have other steps (chunks
 * pipelined: NVLS, NCCL's tree, a chain). For every algorithm, on the
 * first of full, torus:2x4, mesh:2x4, nodes:2x4 and switch,reduce that
 * it runs on, at 8 ranks and every size the size menu offers (1 KiB to 1
 * GiB by 4): the steps drawn are the steps priced, or the stepping line
 * says at what size the picture is drawn and in how many steps the
 * chosen size is priced (T1 of the 2026-11-28 teacher review); such an
 * algorithm is pipelined (AlgoInfo.pipelined), so the key p draws its
 * chunks. Steps drawn as priced move as many transfers (torus_bidir drew
 * one way round at one element a block: AlgoInfo.parts). */
static void test_steps_drawn_priced(void **state)
{
    (void)state;
    static const char *const machines[] = {NULL, "torus:2x4", "mesh:2x4",
                                           "nodes:2x4", "switch,reduce"};
    int differ = 0;
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        App app;
        char why[200];
        size_t mi = 0;
        for (uint64_t b = 1024; b <= (1ull << 30); b *= 4) {
            AppOptions o = app_options(a->coll, a->name, 8, true);
            SpecMachine sm;
            CliErr ce;
            o.bytes = b;
            for (; mi < sizeof machines / sizeof *machines; mi++) {
                o.machine = NULL;
                if (machines[mi]) {
                    assert_int_equal(spec_machine_name(&sm, machines[mi],
                                                       &ce), 0);
                    o.machine = &sm;
                }
                if (app_init(&app, &o, why, sizeof why) == CV_OK)
                    break;
                app_fini(&app);
            }
            if (mi == sizeof machines / sizeof *machines)
                fail_msg("%s %s: on none of the machines", coll_name(a->coll),
                         a->name);
            const Scene *sc = app.scene;
            if (sc->big_sched.nsteps != sc->sched.nsteps) {
                char *t = frame(&app, 100, 30, "");
                char want[120];
                snprintf(want, sizeof want, "is priced in %zu steps",
                         sc->big_sched.nsteps);
                if (!strstr(t, "picture at ") || !strstr(t, want))
                    fail_msg("%s %s at %llu B: %zu steps drawn, %zu priced, "
                             "and the screen does not say so:\n%s",
                             coll_name(a->coll), a->name,
                             (unsigned long long)b, sc->sched.nsteps,
                             sc->big_sched.nsteps, t);
                free(t);
                /* and the chunk knob (key p) can draw its chunks */
                if (!a->pipelined)
                    fail_msg("%s %s: its steps follow the size, and it is "
                             "not marked pipelined", coll_name(a->coll),
                             a->name);
                differ++;
            } else /* the same transfers, fewer elements (torus_bidir's
                      halves: its parts) */
                for (size_t k = 0; k < sc->sched.nsteps; k++)
                    if (sc->sched.steps[k].n != sc->big_sched.steps[k].n)
                        fail_msg("%s %s at %llu B: step %zu draws %zu "
                                 "transfers, %zu priced", coll_name(a->coll),
                                 a->name, (unsigned long long)b, k + 1,
                                 sc->sched.steps[k].n,
                                 sc->big_sched.steps[k].n);
            app_fini(&app);
        }
    }
    assert_true(differ > 0); /* nvls and the chains at least */
}

/* Zoomed (Z): torus all-reduce on torus:4x4, hier on nodes:2x8 and ring
 * on a ring of 8 with a slow link (one row across the middle, its wraps
 * marked) after two steps, at 100x30 and 80x24, English and Chinese, each
 * with its colour roles and monochrome look (NO_COLOR). */
static void test_zoom_goldens(void **state)
{
    (void)state;
    static const struct {
        const char *name, *topo, *algo;
        int p;
    } scenes[] = {
        {"torus4x4", "torus:4x4", "torus", 16},
        {"hier2x8", "nodes:2x8", "hier", 16},
        {"ring8_slow", "ring:8,link=r5-r6:slow=4", "ring", 8},
    };
    static const int sizes[2][2] = {{100, 30}, {80, 24}};
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++)
        for (int s = 0; s < 2; s++)
            for (int zh = 0; zh < 2; zh++) {
                ui_lang_use(zh ? UI_LANG_ZH : UI_LANG_EN);
                App app;
                open_algo(&app, scenes[i].algo, scenes[i].p, scenes[i].topo);
                char *got = golden_frame(&app, sizes[s][0], sizes[s][1],
                                     "Right\nRight\nZ\n", true), name[96];
                snprintf(name, sizeof name, "machine_zoom_%s_%dx%d_%s",
                         scenes[i].name, sizes[s][0], sizes[s][1],
                         zh ? "zh" : "en");
                golden_check(name, got);
                free(got);
                app_fini(&app);
            }
    ui_lang_use(UI_LANG_EN);
}

/* Where each rank's label is on the screen, found as a click does: the
 * first column whose click selects it (-1: not drawn). */
static void rank_spots(const App *app, Rect r, int *x, int *y, int p)
{
    for (int q = 0; q < p; q++)
        x[q] = y[q] = -1;
    for (int j = r.y; j < r.y + r.h; j++)
        for (int i = r.x; i < r.x + r.w; i++) {
            Request req;
            if (screen_click(app, i, j, &req) &&
                req.act == ACT_SELECT_RANK && req.a >= 0 && req.a < p &&
                x[req.a] < 0)
                x[req.a] = i, y[req.a] = j;
        }
}

/* The topology panel's inside. */
static Rect topo_inside(const App *app)
{
    Layout lo;
    screen_layout(app, &lo);
    Rect r = lo.r[VIEW_TOPOLOGY];
    return (Rect){r.x + 1, r.y + 1, r.w - 2, r.h - 2};
}

/* Rows from the top of r down to the last drawn (not blank) one above
 * the panel's 2-row footer. */
static int drawn_rows(App *app, Rect r, const int *size)
{
    Grid g;
    grid_init(&g, size[0], size[1], false);
    screen_draw(app, &g);
    int last = 0;
    for (int j = r.y; j < r.y + r.h - 2; j++)
        for (int i = r.x; i < r.x + r.w; i++)
            if (grid_cat(&g, i, j)->ch != ' ' && grid_cat(&g, i, j)->ch)
                last = j - r.y + 1;
    grid_fini(&g);
    return last;
}

/* In Z the machine spans the panel: some rank beyond 3/4 of its width
 * and below half its height (nodes' GPUs face the network in the
 * middle), the drawing down to beyond 3/4 of it (both sizes, torus and
 * nodes); unzoomed, the torus keeps
 * its small form (nodes within 16 columns). */
static void test_zoom_spans(void **state)
{
    (void)state;
    static const char *const topo[2] = {"torus:4x4", "nodes:2x8"};
    static const char *const algo[2] = {"torus", "hier"};
    static const int sizes[2][2] = {{100, 30}, {80, 24}};
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 2; s++) {
            App app;
            open_algo(&app, algo[t], 16, topo[t]);
            free(frame(&app, sizes[s][0], sizes[s][1], "Right\nZ\n"));
            Rect r = topo_inside(&app);
            int x[16], y[16], far_x = 0, far_y = 0;
            rank_spots(&app, r, x, y, 16);
            for (int q = 0; q < 16; q++) {
                assert_true(x[q] >= 0);
                far_x = x[q] - r.x > far_x ? x[q] - r.x : far_x;
                far_y = y[q] - r.y > far_y ? y[q] - r.y : far_y;
            }
            assert_true(4 * far_x > 3 * r.w);
            assert_true(2 * far_y > r.h - 2); /* less its 2-row footer */
            assert_true(4 * (drawn_rows(&app, r, sizes[s]) - 1) >
                        3 * (r.h - 2));
            free(frame(&app, sizes[s][0], sizes[s][1], "Z\n"));
            r = topo_inside(&app);
            rank_spots(&app, r, x, y, 16);
            for (int q = 0; t == 0 && s == 0 && q < 16; q++) {
                assert_true(x[q] >= 0 && x[q] - r.x < 16);
            }
            app_fini(&app);
        }
}

/* The text of row y from column x, as UTF-8 (at most n cells). */
static void row_text(const Grid *g, int x, int y, int n, char *out,
                     size_t len)
{
    size_t k = 0;
    for (int i = x; i < x + n && i < g->w && k + 5 < len; i++) {
        uint32_t ch = grid_cat(g, i, y)->ch;
        if (ch == 0)
            continue;
        if (ch < 0x80)
            out[k++] = (char)ch;
        else if (ch < 0x800)
            out[k++] = (char)(0xC0 | ch >> 6),
            out[k++] = (char)(0x80 | (ch & 0x3F));
        else
            out[k++] = (char)(0xE0 | ch >> 12),
            out[k++] = (char)(0x80 | (ch >> 6 & 0x3F)),
            out[k++] = (char)(0x80 | (ch & 0x3F));
    }
    out[k] = '\0';
}

/* Every wrap-around link of torus:4x4 is drawn in Z, both ends marked
 * with the rank at the other end: row y's ranks 4y and 4y+3 ("↺3" left
 * of rank 0's line, "↺0" right of it), column x's ranks x and 12+x
 * ("↺12" over rank 0's column, "↺0" under it). */
static void test_zoom_wraps(void **state)
{
    (void)state;
    for (int s = 0; s < 2; s++) {
        App app;
        int w = s ? 80 : 100, h = s ? 24 : 30;
        open_algo(&app, "torus", 16, "torus:4x4");
        app.view.term_w = w, app.view.term_h = h;
        Grid g;
        grid_init(&g, w, h, false);
        app_apply(&app, &(Request){.act = ACT_TOPO_FULL});
        screen_draw(&app, &g);
        Rect r = topo_inside(&app);
        int x[16], y[16], marks = 0;
        rank_spots(&app, r, x, y, 16);
        char line[512], want[16];
        for (int i = 0; i < 4; i++) {
            row_text(&g, r.x, y[4 * i], x[4 * i] - r.x, line, sizeof line);
            snprintf(want, sizeof want, "\u21BA%d", 4 * i + 3);
            assert_non_null(strstr(line, want));
            row_text(&g, x[4 * i + 3] + 2, y[4 * i], r.w, line, sizeof line);
            snprintf(want, sizeof want, "\u21BA%d", 4 * i);
            assert_non_null(strstr(line, want));
            row_text(&g, x[i], r.y, 3, line, sizeof line);
            snprintf(want, sizeof want, "\u21BA%d", 12 + i);
            assert_non_null(strstr(line, want));
            /* the bottom: over the panel's 2-row footer */
            row_text(&g, x[i], r.y + r.h - 3, 3, line, sizeof line);
            snprintf(want, sizeof want, "\u21BA%d", i);
            assert_non_null(strstr(line, want));
        }
        for (int j = r.y; j < r.y + r.h - 2; j++) /* not the legend */
            for (int i = r.x; i < r.x + r.w; i++)
                marks += grid_cat(&g, i, j)->ch == 0x21BA;
        assert_int_equal(marks, 2 * (4 + 4));
        grid_fini(&g);
        app_fini(&app);
    }
}

/* Step 2 of ring all-reduce on torus:4x4 (x across, rank 4y+x; step 1
 * copies the inputs in place), by hand: every rank sends one block to
 * rank+1, routed x first: within a row on the x link x -> x+1; 3 -> 4 over the x wrap 3 -> 0, then y 0 -> 4;
 * likewise 7 -> 4, 4 -> 8; 11 -> 8, 8 -> 12; 15 -> 12, 12 -> 0 (y wrap).
 * So in each row the links x -> x+1 and the wrap 3 -> 0 carry a block
 * each (all equal: the busiest), the reverse x -> x-1 nothing; in
 * column 0 the links down (0 -> 4 -> 8 -> 12 -> 0) carry one, up none;
 * columns 1-3 nothing. In Z each direction has its lane: r0>r1 on rank
 * 0's line (full block, arrow right), r1>r0 under it (idle line, arrow
 * left); down in the rank's column, up beside it. */
static bool hand_loaded(int a, int b)
{
    int ax = a % 4, ay = a / 4, bx = b % 4, by = b / 4;
    if (ay == by)
        return bx == (ax + 1) % 4;
    return ax == 0 && bx == 0 && by == (ay + 1) % 4;
}

static void test_zoom_directions(void **state)
{
    (void)state;
    App app;
    open_app(&app, 16, "torus:4x4");
    free(frame(&app, 100, 30, "Right\nRight\nZ\n"));
    const Scene *sc = app.scene;
    const Machine *m = &sc->machine.mach;
    Grid g;
    grid_init(&g, 100, 30, false);
    screen_draw(&app, &g);
    Rect r = topo_inside(&app);
    int x[16], y[16], l[4];
    rank_spots(&app, r, x, y, 16);
    for (int a = 0; a < 16; a++)
        for (int b = 0; b < 16; b++) {
            bool nb = (a / 4 == b / 4) != (a % 4 == b % 4) &&
                      (abs(a - b) == 1 || abs(a - b) == 3 ||
                       abs(a - b) == 4 || abs(a - b) == 12);
            if (!nb)
                continue;
            assert_int_equal(machine_route(m, a, b, l, 4), 1);
            /* the model agrees with the hand count */
            assert_int_equal(sc->link_bytes[l[0]] > 0, hand_loaded(a, b));
        }
    for (int row = 0; row < 4; row++)
        for (int i = 0; i + 1 < 4; i++) {
            int a = 4 * row + i, b = a + 1, body = x[b] - 3;
            const Cell *fw = grid_cat(&g, body, y[a]);
            const Cell *bk = grid_cat(&g, body, y[a] + 1);
            assert_int_equal(fw->ch, 0x2588); /* a block each, the most */
            assert_int_equal(fw->role, ROLE_WARN);
            assert_int_equal(grid_cat(&g, x[b] - 2, y[a])->ch, 0x2192);
            assert_int_equal(bk->ch, 0x2500); /* idle */
            assert_int_equal(bk->role, ROLE_LINK);
            assert_int_equal(grid_cat(&g, x[a] + 3, y[a] + 1) /* lw 2 */
                             ->ch, 0x2190);
        }
    for (int col = 0; col < 4; col++)
        for (int j = 0; j + 1 < 4; j++) {
            int a = col + 4 * j, b = a + 4;
            uint32_t down = grid_cat(&g, x[a], y[a] + 2)->ch;
            uint32_t up = grid_cat(&g, x[a] + 1, y[a] + 2)->ch;
            assert_int_equal(down, col == 0 ? 0x2588u : 0x2502u);
            assert_int_equal(up, 0x2502u);
            assert_int_equal(grid_cat(&g, x[a], y[b] - 1)->ch, 0x2193);
            assert_int_equal(grid_cat(&g, x[a] + 1, y[a] + 1)->ch, 0x2191);
        }
    grid_fini(&g);
    app_fini(&app);
}

/* T4: at 100x30 torus all-reduce on torus:4x4 after two steps has cells
 * two columns wide, too narrow for "0+1": they say "#2", and the line
 * under the picture spells out the row the step's first transfer (r0 to
 * r1) wrote: the cells of r1 from that transfer's first that hold the
 * same ranks, and which, read from the Sim. At 130x35 the cells are
 * three wide: r1's say "0+1" themselves (the Sim: r1 holds {0, 1}
 * there), and no line spells them out. */
static void test_cell_sets(void **state)
{
    (void)state;
    App app;
    open_algo(&app, "torus", 16, "torus:4x4");
    char *t = frame(&app, 100, 30, "Right\nRight\n");
    const Scene *sc = app.scene;
    const Step *st = &sc->sched.steps[1];
    const Transfer *tr = &sc->sched.xfers[st->first];
    assert_int_equal(tr->src, 0);
    assert_int_equal(tr->dst, 1);
    size_t e = tr->dst_off, end = e;
    for (int q = 0; q < 16; q++)
        assert_int_equal(sim_has(&sc->sim, 1, tr->dst_buf, e, q) != 0,
                         q <= 1);
    while (end + 1 < tr->dst_off + tr->count &&
           sim_nranks_in(&sc->sim, 1, tr->dst_buf, end + 1) == 2 &&
           sim_has(&sc->sim, 1, tr->dst_buf, end + 1, 0) &&
           sim_has(&sc->sim, 1, tr->dst_buf, end + 1, 1))
        end++;
    char want[64];
    snprintf(want, sizeof want, "r1 holds {0+1} at %zu..%zu", e, end);
    assert_non_null(strstr(t, want));
    assert_non_null(strstr(t, "#2"));
    assert_non_null(strstr(t, "#7=7 ranks combined"));
    free(t);
    t = frame(&app, 130, 35, "");
    const char *row = strstr(t, "\n\u2502r1 ");
    assert_non_null(row);
    const char *eol = strchr(row + 1, '\n');
    char line[600];
    snprintf(line, sizeof line, "%.*s", (int)(eol - row), row);
    const char *at = line;
    int sets = 0;
    while ((at = strstr(at, " 0+1")) != NULL)
        sets++, at++;
    assert_int_equal(sets, (int)(end - e + 1));
    assert_null(strstr(t, "r1 holds"));
    free(t);
    app_fini(&app);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_goldens),
        cmocka_unit_test(test_zoom_goldens),
        cmocka_unit_test(test_zoom_spans),
        cmocka_unit_test(test_zoom_wraps),
        cmocka_unit_test(test_zoom_directions),
        cmocka_unit_test(test_cell_sets),
        cmocka_unit_test(test_file_names),
        cmocka_unit_test(test_loads_by_hand),
        cmocka_unit_test(test_menu_and_ranks),
        cmocka_unit_test(test_parsed_once),
        cmocka_unit_test(test_steps_drawn_priced),
        cmocka_unit_test(test_lecture_goldens),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
