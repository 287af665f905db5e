/* test_ui_class.c - the classroom (issue 22): golden screens of the
 * teacher's scene at 100x30 and 80x24, normal and presenter mode, English
 * and Chinese, each with its colour roles and how every cell looks in
 * monochrome (term_mono_mark: no colours, NO_COLOR); the backend menu
 * (the step sentences: test_ui_sentence.c). Chinese runs
 * under zh_CN.UTF-8, which the test generates where it is missing (as
 * root, with Debian's locales: /etc/locale.gen and locale-gen), else says
 * why it runs under the C.UTF-8 fallback. COLLVIZ_UPDATE_GOLDEN=1 accepts
 * new screens. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/exec.h"
#include "measure/perf.h"
#include "golden_fixture.h"
#include "golden_mono.h"
#include "sweep_fixture.h"
#include "ui/i18n.h"
#include "ui/menu.h"
#include "ui/scene.h"
#include "ui/screen.h"
#include "ui/script.h"
#include "ui/term.h"


/* zh_CN.UTF-8 as a Chinese user's machine has it: generated when missing
 * and we may (root, locale-gen present). */
static void need_zh_locale(void)
{
    if (setlocale(LC_ALL, "zh_CN.UTF-8")) {
        setlocale(LC_ALL, "C.UTF-8");
        return;
    }
    if (geteuid() != 0 || access("/usr/sbin/locale-gen", X_OK) ||
        access("/etc/locale.gen", W_OK)) {
        print_message("class: zh_CN.UTF-8 is not installed and cannot be "
                      "generated here (not root, or no locales package); "
                      "Chinese runs under the C.UTF-8 fallback\n");
        return;
    }
    int rc = system("sed -i 's/^# *zh_CN.UTF-8 UTF-8/zh_CN.UTF-8 UTF-8/' "
                    "/etc/locale.gen && (grep -q '^zh_CN.UTF-8 UTF-8' "
                    "/etc/locale.gen || echo 'zh_CN.UTF-8 UTF-8' >> "
                    "/etc/locale.gen) && locale-gen >/dev/null 2>&1");
    if (rc != 0 || !setlocale(LC_ALL, "zh_CN.UTF-8"))
        print_message("class: locale-gen could not make zh_CN.UTF-8 "
                      "(status %d); Chinese runs under C.UTF-8\n", rc);
    setlocale(LC_ALL, "C.UTF-8");
}

static int setup(void **state)
{
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
    need_zh_locale();
    return 0;
}

/* The scene of o in language l at w x h after the keys of the script
 * `keys`, compared with golden `name` (text, roles, monochrome). */
static void scripted_golden(const char *name, const AppOptions *o,
                            const char *keys, int w, int h, UiLang l)
{
    App app;
    char why[200];
    ui_lang_use(l);
    assert_int_equal(app_init(&app, o, why, sizeof why), CV_OK);
    app.view.term_w = w, app.view.term_h = h;
    Script s;
    assert_int_equal(script_parse(keys, &s, why, sizeof why), CV_OK);
    Grid g;
    grid_init(&g, w, h, false);
    ScriptRun run = {0};
    script_run(&app, &s, &run, &g);
    char *got = golden_dump_mono(&g);
    golden_check(name, got);
    free(got);
    grid_fini(&g);
    script_fini(&s);
    app_fini(&app);
    ui_lang_use(UI_LANG_EN);
}

/* One golden: the teacher's ring allreduce on 8 ranks after two steps. */
static void golden(const char *name, int w, int h, bool present, UiLang l)
{
    AppOptions o = app_options(COLL_ALLREDUCE, "ring", 8, true);
    o.present = present;
    scripted_golden(name, &o, "Right Right", w, h, l);
}

static void test_goldens(void **state)
{
    static const struct { int w, h; } sizes[] = {{100, 30}, {80, 24}};
    for (int i = 0; i < 2; i++)
        for (int pr = 0; pr < 2; pr++)
            for (int l = 0; l < 2; l++) {
                char name[64];
                snprintf(name, sizeof name, "class_%s_%dx%d_%s",
                         pr ? "present" : "normal", sizes[i].w, sizes[i].h,
                         l ? "zh" : "en");
                golden(name, sizes[i].w, sizes[i].h, pr, l ? UI_LANG_ZH
                                                            : UI_LANG_EN);
            }
}

/* The teacher's reproductions (../shared/reviews/teacher-2026-11-25.md),
 * each a scene and the keys that reach the screen the finding was about,
 * as goldens in English and Chinese, with every cell's colour role and
 * monochrome look (NO_COLOR), at 100x30 and, where the finding names it,
 * 80x24. What each must show is said beside it; the goldens were read
 * against that when written. */
typedef struct {
    const char *name;  /* the golden's name, after "teacher_" */
    CollKind kind;
    const char *algo;
    int p;
    uint64_t bytes;    /* 0: the default (64 MiB) */
    int root;
    bool present;
    const char *keys;  /* the script */
    bool small;        /* 80x24 too */
} TeacherCase;

static const TeacherCase teacher[] = {
    /* P1: halving-doubling on 13 ranks in presenter mode, every cell's
       label whole and apart */
    {"p1_hd13_present", COLL_ALLREDUCE, "halving-doubling", 13, 0, 0, true,
     "Right Right", false},
    /* P2: the butterfly swaps whole vectors */
    {"p2_butterfly8_present", COLL_ALLREDUCE, "butterfly", 8, 0, 0, true,
     "Right Right", false},
    /* P3: the copy-in is local: the whole costs 14 a + 112M b + 56M g, as
       collviz model and trace say */
    {"p3_ring8_copyin", COLL_ALLREDUCE, "ring", 8, 0, 0, false, "Right",
     false},
    /* P6: the counters whole at 100x30, bytes and bandwidth rows at 80x24,
       'so far' labelled as maxima */
    {"p6_hd13_counters", COLL_ALLREDUCE, "halving-doubling", 13, 0, 0, false,
     "Right Right Right", true},
    /* P7: the double binary tree's steps 2 and 3, Bruck's alltoall, a chain
       rooted at 2, reducescatter's copy-out: sentences true */
    {"p7_dbt16_step3", COLL_ALLREDUCE, "double-binary-tree", 16, 0, 0, true,
     "Right Right Right", false},
    {"p7_bruck5_step2", COLL_ALLTOALL, "bruck", 5, 100, 0, true, "Right Right",
     false},
    {"p7_chain5_root2", COLL_BROADCAST, "chain", 5, 0, 2, true, "Right", false},
    {"p7_reducescatter4_last", COLL_REDUCESCATTER, "ring", 4, 0, 0, true, "End",
     false},
    /* P8, P15: the binomial broadcast on 13 ranks shows the root's send
       buffer in the initial state */
    {"p8_binomial13_initial", COLL_BROADCAST, "binomial", 13, 0, 0, true, "",
     false},
    /* P9: the tree drawn as a tree, every level, the step's edges lit */
    {"p9_binomial16_tree", COLL_BROADCAST, "binomial", 16, 0, 0, false,
     "Right Right Z", false},
    /* P14: changing the collective keeps a valid root (reduce at root 3,
       then scatter) */
    {"p14_root_kept", COLL_REDUCE, "binomial", 8, 0, 3, false,
     "c Down Enter", false},
    /* P15: h opens the help, wrapped, not cut; the algorithm menu wrapped;
       the footer shows help and quit */
    {"p15_help_h", COLL_ALLREDUCE, "ring", 8, 0, 0, false, "h", true},
    {"p15_algo_menu", COLL_ALLREDUCE, "ring", 8, 0, 0, false, "a", false},
};

static void teacher_golden(const TeacherCase *t, int w, int h, UiLang l)
{
    AppOptions o = app_options(t->kind, t->algo, t->p, true);
    char name[96];
    o.present = t->present;
    o.root = t->root;
    if (t->bytes)
        o.bytes = t->bytes;
    snprintf(name, sizeof name, "teacher_%s_%dx%d_%s", t->name, w, h,
             l == UI_LANG_ZH ? "zh" : "en");
    scripted_golden(name, &o, t->keys, w, h, l);
}

/* P4 and P5, whose screens come from measurements: the teacher's ring
 * allreduce on 8 ranks priced by a calibration of a shared bus made up by
 * hand (alpha 2 us, 10 GB/s, the worst check error 12%), with a timed run
 * and a sweep of every algorithm set as the worker would post them:
 * direct fastest at every size (times a + b x bytes by hand), a run of
 * the whole at 1.5 times the model's time, which the probes found on a
 * machine that changed speed. The counters give '+50% out ±12%, moved';
 * the full-screen chart (F) says why the parameter server wins. */
static void teacher_measured(bool chart, int w, int h, UiLang l)
{
    AppOptions o = app_options(COLL_ALLREDUCE, "ring", 8, true);
    App app;
    char why[200], name[96];
    ui_lang_use(l);
    o.bytes = 1 << 20;
    assert_int_equal(app_init(&app, &o, why, sizeof why), CV_OK);
    app.view.term_w = w, app.view.term_h = h;
    Calib c = {.nranks = 8, .alpha = 2e-6, .npoints = 1, .quick = 0,
               .machine = MACHINE_BUS,
               .when = 1795176000}; /* 2026-11-20 12:00 UTC */
    c.fit_err[MACHINE_BUS] = 0.12, c.fit_err[MACHINE_FULL] = 0.40;
    snprintf(c.backend, sizeof c.backend, "%s", app.scene->backend->name);
    c.pt[0] = (CalibPoint){1e6, 1e-10, 1e-10, 1e-11, 1e-11, 0, 0};
    scene_use_calib(app.scene, &c);
    assert_true(app.scene->pred_total_s.valid);
    app.bg.total_s = (Value){1.5 * app.scene->pred_total_s.v, true};
    app.bg.min_s = 1.2 * app.scene->pred_total_s.v;
    app.bg.runs = 10, app.bg.moved = PERF_HOST_SPEED;
    app.bg.bytes = 1 << 20, app.bg.verified = true;
    app.bg.compare = true;
    app.bg.nsweep = 0;
    static const char *const algos[] = {"direct", "ring", "tree",
                                        "halving-doubling"};
    for (int i = 0; i < 6; i++)
        for (int k = 0; k < 4; k++) {
            double bytes = 1024.0 * (1 << (2 * i)),
                   t = (2 + 3 * k) * 1e-6 + bytes * (1 + 0.5 * k) * 1e-10;
            app.bg.sweep[app.bg.nsweep++] = (SweepPoint){
                .algo = algo_find(COLL_ALLREDUCE, algos[k]),
                .bytes = (uint64_t)bytes, .time_s = t, .model_s = 1.1 * t,
                .ok = true, .algbw = bytes / t / 1e9,
                .busbw = bytes / t / 1e9 * 1.75,
                .model_busbw = bytes / t / 1e9 * 1.75 / 1.1};
        }
    app.view.chart_full = chart;
    Grid g;
    grid_init(&g, w, h, false);
    screen_draw(&app, &g);
    char *got = golden_dump_mono(&g);
    snprintf(name, sizeof name, "teacher_%s_%dx%d_%s",
             chart ? "p5_chart_full" : "p4_theory_check", w, h,
             l == UI_LANG_ZH ? "zh" : "en");
    golden_check(name, got);
    free(got);
    grid_fini(&g);
    app_fini(&app);
    ui_lang_use(UI_LANG_EN);
}

static void test_teacher(void **state)
{
    for (int l = 0; l < 2; l++) {
        UiLang lang = l ? UI_LANG_ZH : UI_LANG_EN;
        teacher_measured(false, 100, 30, lang);
        teacher_measured(false, 80, 24, lang);
        teacher_measured(true, 100, 30, lang);
    }
    for (size_t i = 0; i < sizeof teacher / sizeof teacher[0]; i++)
        for (int l = 0; l < 2; l++) {
            UiLang lang = l ? UI_LANG_ZH : UI_LANG_EN;
            teacher_golden(&teacher[i], 100, 30, lang);
            if (teacher[i].small)
                teacher_golden(&teacher[i], 80, 24, lang);
        }
}

/* T3 (teacher-2026-11-28): the full-screen chart after a sweep of
 * every algorithm of the teacher's ring allreduce on 8 ranks
 * (sweep_fixture.h: times by hand) shows three, the ring and the two
 * fastest at the most sizes (direct, tree), and says the crossovers in
 * words. */
static void chart3(UiLang l, const char *want)
{
    AppOptions o = app_options(COLL_ALLREDUCE, "ring", 8, true);
    App app;
    char why[200], name[64];
    ui_lang_use(l);
    assert_int_equal(app_init(&app, &o, why, sizeof why), CV_OK);
    app.view.term_w = 100, app.view.term_h = 30;
    sweep3_fill(&app);
    app.view.chart_full = true;
    Grid g;
    grid_init(&g, 100, 30, false);
    screen_draw(&app, &g);
    char *got = golden_dump_mono(&g);
    if (!strstr(got, want))
        fail_msg("no '%s' in\n%s", want, got);
    assert_null(strstr(got, "halving-doubling"));
    assert_null(strstr(got, "butterfly"));
    snprintf(name, sizeof name, "chart3_100x30_%s",
             l == UI_LANG_ZH ? "zh" : "en");
    golden_check(name, got);
    free(got);
    grid_fini(&g);
    app_fini(&app);
    ui_lang_use(UI_LANG_EN);
}

static void test_chart3(void **state)
{
    chart3(UI_LANG_EN, "tree beats direct from 8 KiB; ring beats tree from "
                       "128 KiB");
    chart3(UI_LANG_ZH, "ring 从 128 KiB 起快于 tree");
}

/* The backend menu offers every backend; those not built and those that
 * cannot start here stay, greyed, with the reason beside them; the ones
 * that run here are not greyed. */
static void test_backend_menu(void **state)
{
    AppOptions o = app_options(COLL_ALLREDUCE, "ring", 4, true);
    App app;
    char why[200];
    Menu m;
    assert_int_equal(app_init(&app, &o, why, sizeof why), CV_OK);
    assert_true(menu_open(&m, MENU_BACKEND, app.scene, NULL));
    size_t n = 0;
    for (; exec_name_at(n); n++) {
        char reason[160] = "";
        const ExecOps *ops = exec_find(exec_name_at(n), reason, sizeof reason);
        bool ok = ops != NULL;
        Executor *ex = NULL;
        ExecOptions eo = {0};
        if (ops && ops->open(&ex, 1, &eo, reason, sizeof reason) == CV_OK)
            ops->close(ex);
        else if (ops) /* built, cannot start here: greyed with its reason */
            ok = false;
        assert_true(m.greyed[n] == !ok);
        assert_non_null(strstr(m.label[n], exec_name_at(n)));
        if (!ok) /* the reason beside it: not built, how to launch it
                    (mpi), or why it cannot start here */
            assert_non_null(strchr(m.label[n], '('));
    }
    assert_int_equal(m.n, (int)n);
    assert_false(m.greyed[0]); /* threads runs everywhere */
    app_fini(&app);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_goldens),
        cmocka_unit_test(test_teacher),
        cmocka_unit_test(test_chart3),
        cmocka_unit_test(test_backend_menu),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
