/* test_ui_zh.c - the TUI's own words in Chinese: every menu's title and
 * its words, every hint of the status line, the header's fields and the
 * stepping line come back different from the English message when the
 * language is Chinese, and the screens drawn in Chinese (status line,
 * header, each menu open) hold none of the English words; switching back
 * to English gives the English words again. A message left as a bare
 * string, or with no Chinese in po/zh_CN.po, fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "exec/exec.h"
#include "golden_fixture.h"
#include "scene/scene_opts.h"
#include "ui/action.h"
#include "ui/i18n.h"
#include "ui/menu.h"
#include "ui/scene.h"
#include "ui/screen.h"
#include "ui/script.h"
#include "ui/words.h"

/* The actions the status line hints (view_status.c's list). */
static const Action hinted[] = {
    ACT_NEXT,       ACT_PREV,      ACT_PLAY,  ACT_MENU_COLL, ACT_MENU_ALGO,
    ACT_MENU_RANKS, ACT_MENU_SIZE, ACT_BENCH, ACT_SWEEP,     ACT_HELP,
    ACT_QUIT,
};
#define NHINTED (sizeof hinted / sizeof hinted[0])

static int setup(void **state)
{
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
    return 0;
}

/* Row y of the grid's text dump (a static copy). */
static const char *row(const char *dump, int y)
{
    static char line[2048];
    const char *p = dump;
    for (int i = 0; i < y && p; i++)
        if ((p = strchr(p, '\n')))
            p++;
    assert_non_null(p);
    size_t n = strcspn(p, "\n");
    assert_true(n < sizeof line);
    memcpy(line, p, n);
    line[n] = '\0';
    return line;
}

/* Whether `word` stands in `text` as a whole word. */
static bool has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = text; (p = strstr(p, word)); p++) {
        bool before = p == text || !isalpha((unsigned char)p[-1]);
        bool after = !isalpha((unsigned char)p[n]);
        if (before && after)
            return true;
    }
    return false;
}

/* The screen of `keys` run on collective k with algorithm algo (NULL:
 * the default) on p ranks at w x h, with the roles when asked. */
static char *screen_call(CollKind k, const char *algo, int p,
                         const char *keys, int w, int h, bool roles)
{
    AppOptions o = app_options(k, algo, p, true);
    App app;
    char why[200];
    assert_int_equal(app_init(&app, &o, why, sizeof why), CV_OK);
    app.view.term_w = w, app.view.term_h = h;
    Script s;
    assert_int_equal(script_parse(keys, &s, why, sizeof why), CV_OK);
    Grid g;
    grid_init(&g, w, h, false);
    ScriptRun run = {0};
    script_run(&app, &s, &run, &g);
    char *t = grid_dump(&g, roles);
    grid_fini(&g);
    script_fini(&s);
    app_fini(&app);
    return t;
}

/* The screen of `keys` run on a reduce (rooted, with an op) scene at w x h. */
static char *screen_of(const char *keys, int w, int h)
{
    return screen_call(COLL_REDUCE, NULL, 6, keys, w, h, false);
}

/* Each hint's word and each menu's title differ from English in
 * Chinese and are English again after switching back. */
static void test_words(void **state)
{
    for (int pass = 0; pass < 2; pass++) {
        ui_lang_use(pass ? UI_LANG_EN : UI_LANG_ZH);
        for (size_t i = 0; i < NHINTED; i++) {
            const char *en = action_name(hinted[i]);
            const char *got = action_label(hinted[i]);
            if (!pass && !strcmp(got, en))
                fail_msg("hint '%s' is not translated", en);
            if (pass)
                assert_string_equal(got, en);
        }
        for (int k = MENU_NONE + 1; k < MENU_COUNT; k++) {
            ui_lang_use(UI_LANG_EN);
            char en[64];
            snprintf(en, sizeof en, "%s", menu_title((MenuKind)k));
            ui_lang_use(pass ? UI_LANG_EN : UI_LANG_ZH);
            const char *got = menu_title((MenuKind)k);
            assert_true(en[0] != '\0');
            if (!pass && !strcmp(got, en))
                fail_msg("menu title '%s' is not translated", en);
            if (pass)
                assert_string_equal(got, en);
        }
    }
    ui_lang_use(UI_LANG_EN);
}

/* The Chinese status line holds no hint's English word, the header no
 * English field word; the English ones do (so the check can fail). */
static void test_status_and_header(void **state)
{
    static const char *const header_words[] = {"ranks", "root", "place"};
    for (int pass = 0; pass < 2; pass++) {
        bool zh = pass == 0;
        ui_lang_use(zh ? UI_LANG_ZH : UI_LANG_EN);
        char *t = screen_of("", 200, 40);
        const char *status = row(t, 39);
        size_t found = 0;
        for (size_t i = 0; i < NHINTED; i++) {
            bool has = has_word(status, action_name(hinted[i]));
            if (zh && has)
                fail_msg("status line keeps '%s': %s",
                         action_name(hinted[i]), status);
            found += has;
        }
        if (!zh)
            assert_true(found >= NHINTED - 1);
        const char *head = row(t, 0);
        for (size_t i = 0; i < 3; i++)
            if (has_word(head, header_words[i]) == zh)
                fail_msg("%s header and '%s': %s", zh ? "Chinese" : "English",
                         header_words[i], head);
        /* the stepping line; the algorithm's summary after it is the
         * algorithm's own text */
        if (!strncmp(row(t, 1), "step 0 of", 9) == zh)
            fail_msg("%s stepping line: %s", zh ? "Chinese" : "English",
                     row(t, 1));
        free(t);
    }
    ui_lang_use(UI_LANG_EN);
}

/* Each menu opened in Chinese shows its Chinese title; the root menu's
 * items and the size menu's last item are Chinese too. */
static void test_menus(void **state)
{
    static const struct { const char *key; MenuKind k; const char *en; }
    menus[] = {{"c", MENU_COLL, NULL},     {"a", MENU_ALGO, NULL},
               {"r", MENU_RANKS, NULL},    {"s", MENU_SIZE, "other... (or"},
               {"d", MENU_DTYPE, NULL},    {"o", MENU_OP, NULL},
               {"R", MENU_ROOT, "rank 0"},
               {"B", MENU_BACKEND, NULL}};
    for (size_t i = 0; i < sizeof menus / sizeof menus[0]; i++) {
        ui_lang_use(UI_LANG_EN);
        char en_title[64];
        snprintf(en_title, sizeof en_title, "%s", menu_title(menus[i].k));
        char *en = screen_of(menus[i].key, 200, 40);
        ui_lang_use(UI_LANG_ZH);
        char *zh = screen_of(menus[i].key, 200, 40);
        if (!strstr(en, en_title))
            fail_msg("English menu %s not open", en_title);
        if (!strstr(zh, menu_title(menus[i].k)) || has_word(zh, en_title))
            fail_msg("Chinese menu %s: title '%s' missing or English kept",
                     en_title, menu_title(menus[i].k));
        if (menus[i].en) {
            assert_non_null(strstr(en, menus[i].en));
            /* the root menu's items: 进程 N */
            if (menus[i].k == MENU_ROOT ? !strstr(zh, "\xe8\xbf\x9b\xe7\xa8\x8b 0")
                                        : strstr(zh, menus[i].en) != NULL)
                fail_msg("Chinese menu %s keeps '%s'", en_title, menus[i].en);
        }
        free(en);
        free(zh);
    }
    ui_lang_use(UI_LANG_EN);
}

/* A message: the last step's note is Chinese in Chinese. */
static void test_message(void **state)
{
    ui_lang_use(UI_LANG_EN);
    char *en = screen_of("End Right", 200, 40);
    ui_lang_use(UI_LANG_ZH);
    char *zh = screen_of("End Right", 200, 40);
    assert_non_null(strstr(row(en, 39), "last step"));
    assert_null(strstr(row(zh, 39), "last step"));
    assert_non_null(strstr(row(zh, 39), "Home"));
    free(en);
    free(zh);
    ui_lang_use(UI_LANG_EN);
}

/* w added to out[] (*n of them, cap at most) unless it is there. */
static void add_word(const char **out, size_t *n, size_t cap, const char *w)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(out[i], w))
            return;
    assert_true(*n < cap);
    out[(*n)++] = w;
}

/* Whether algorithm a fits machine topo (NULL: full) at p ranks; the
 * phase names of its schedule there added to out[]. */
static bool phases_of(const AlgoInfo *a, const char *topo, int p,
                      const char **out, size_t *n, size_t cap)
{
    AppOptions o = app_options(a->coll, a->name, p, true);
    SpecMachine sm;
    CliErr ce;
    if (topo) {
        assert_int_equal(spec_machine_name(&sm, topo, &ce), 0);
        o.machine = &sm;
    }
    App app;
    char why[200];
    if (app_init(&app, &o, why, sizeof why) != CV_OK) {
        app_fini(&app);
        return false;
    }
    bool ok = app.scene->algo == a;
    for (size_t k = 0; ok && k < app.scene->sched.nsteps; k++)
        add_word(out, n, cap, app.scene->sched.steps[k].phase);
    app_fini(&app);
    return ok;
}

/* The scene layer's sentences refusing a call its collective does not
 * define (the in-place key and the menus show them): English as the
 * scene layer says them, and their Chinese. */
static void test_scene_sentences(void **state)
{
    static const CollCall undefined[] = {
        {.kind = COLL_SENDRECV, .nranks = 4, .in_place = true},
        {.kind = COLL_HYPERCUBE, .nranks = 6},
    };
    for (size_t i = 0; i < sizeof undefined / sizeof *undefined; i++) {
        char en[200], said[200];
        assert_int_not_equal(scene_opts_call_why(&undefined[i], NULL, en,
                                                 sizeof en), CV_OK);
        ui_lang_use(UI_LANG_EN);
        scene_opts_call_why(&undefined[i], words_sentence, said, sizeof said);
        assert_string_equal(said, en);
        ui_lang_use(UI_LANG_ZH);
        scene_opts_call_why(&undefined[i], words_sentence, said, sizeof said);
        if (!strcmp(said, en))
            fail_msg("'%s' has no Chinese (src/ui/words.c, po/zh_CN.po)", en);
    }
    ui_lang_use(UI_LANG_EN);
}

/* L8: the core's reasons (an algorithm that does not fit the machine,
 * a shape -T cannot read), made by the core itself, are Chinese in
 * Chinese and as the core wrote them in English. */
static void test_reasons(void **state)
{
    (void)state;
    static const struct { const char *algo, *topo; int p; } misfit[] = {
        {"torus_bidir", "mesh:4x4", 16}, {"torus", "full", 16},
        {"hier", "full", 16}, {"hier_master", "bus", 16},
        {"nvls", "full", 8}, {"nccl_tree", "torus:4x4", 16},
    };
    for (size_t i = 0; i < sizeof misfit / sizeof *misfit; i++) {
        SceneSpec sc;
        CliErr e = {{0}};
        char line[128], en[300], said[300];
        snprintf(line, sizeof line, "allreduce -a %s -p %d -s 64 -T %s",
                 misfit[i].algo, misfit[i].p, misfit[i].topo);
        assert_int_equal(scene_opts_parse_line(line, &scene_limits_lesson,
                                               &sc, &e), 0);
        assert_false(algo_fits(sc.algo, &sc.call, &sc.machine.mach, en,
                               sizeof en));
        ui_lang_use(UI_LANG_EN);
        words_reason(en, said, sizeof said);
        assert_string_equal(said, en);
        ui_lang_use(UI_LANG_ZH);
        words_reason(en, said, sizeof said);
        if (!strcmp(said, en) || !strstr(said, misfit[i].algo))
            fail_msg("'%s' has no Chinese: '%s'", en, said);
    }
    SceneSpec sc;
    CliErr e = {{0}};
    /* a machine of other ranks than the call's */
    assert_int_equal(scene_opts_parse_line("allreduce -a ring -p 16 -s 64 -T "
                                           "torus:4x4", &scene_limits_lesson,
                                           &sc, &e), 0);
    CollCall eight = sc.call;
    eight.nranks = 8;
    char en[300], zh[300];
    assert_false(algo_fits(sc.algo, &eight, &sc.machine.mach, en, sizeof en));
    ui_lang_use(UI_LANG_ZH);
    words_reason(en, zh, sizeof zh);
    if (!strcmp(zh, en) || !strstr(zh, "16") || !strstr(zh, "8"))
        fail_msg("'%s' has no Chinese: '%s'", en, zh);
    ui_lang_use(UI_LANG_EN);
    /* a scene's options, as a lesson's sandbox meets them */
    static const struct { const char *line, *arg; } bad[] = {
        {"allreduc -p 4 -s 64", "'allreduc'"},
        {"allreduce -a rng -p 4 -s 64", "'rng'"},
        {"allreduce -a bruck -p 4 -s 64", "'bruck'"},
        {"allreduce -p 4 -s 64 -T cube", "'cube'"},
        {"allreduce -s 64", "1024"},
        {"allreduce -p 0 -s 64", " 0 "},
        {"allreduce -p 4 -s 64X", "'64X'"},
        {"allreduce -p 4 -s 6 -d int32", "int32"},
        {"allreduce -p 4", "-s SIZE"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CliErr be = {{0}};
        char zhs[600];
        assert_int_equal(scene_opts_parse_line(bad[i].line, &scene_limits_lesson,
                                               &sc, &be), -1);
        ui_lang_use(UI_LANG_ZH);
        words_reason(be.msg, zhs, sizeof zhs);
        ui_lang_use(UI_LANG_EN);
        if (!strcmp(zhs, be.msg) || !strstr(zhs, bad[i].arg))
            fail_msg("'%s': '%s' has no Chinese: '%s'", bad[i].line, be.msg,
                     zhs);
    }
    assert_int_equal(scene_opts_parse_line("allreduce -p 16 -s 64 -T torus:4x4r",
                                           &scene_limits_lesson, &sc, &e), -1);
    char said[300];
    ui_lang_use(UI_LANG_ZH);
    words_reason(e.msg, said, sizeof said);
    if (!strstr(said, "'4x4r' \xe4\xb8\x8d\xe6\x98\xaf")) /* 不是 */
        fail_msg("'%s' has no Chinese: '%s'", e.msg, said);
    ui_lang_use(UI_LANG_EN);
}

/* Every algorithm's summary and needs, every phase name of its schedules
 * (on each machine of the machine menu it fits, at 8, 13 and 16 ranks)
 * and every machine kind is one of the core's listed words, Chinese in
 * Chinese and English in English. A phase an algorithm gains without a
 * line in words.c and po/zh_CN.po fails here. */
static void test_core_words(void **state)
{
    static const char *seen[512];
    size_t n = 0;
    static const int ps[] = {8, 13, 16};
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        bool fits = false;
        for (size_t j = 0; j < sizeof ps / sizeof *ps; j++) {
            char topo[64];
            for (int m = 0; menu_machine(m, ps[j], topo, sizeof topo); m++)
                fits |= phases_of(a, topo[0] ? topo : NULL, ps[j], seen, &n,
                                  sizeof seen / sizeof *seen);
        }
        if (!fits)
            fail_msg("%s fits no machine of the menu", a->name);
        add_word(seen, &n, sizeof seen / sizeof *seen, a->summary);
        add_word(seen, &n, sizeof seen / sizeof *seen, a->constraints);
    }
    for (size_t i = 0; i < n; i++) {
        if (!words_listed(seen[i]))
            fail_msg("'%s' is not in src/ui/words.c", seen[i]);
        ui_lang_use(UI_LANG_ZH);
        if (!strcmp(words_phase(seen[i]), seen[i]))
            fail_msg("'%s' has no Chinese in po/zh_CN.po", seen[i]);
        ui_lang_use(UI_LANG_EN);
        assert_string_equal(words_phase(seen[i]), seen[i]);
    }
    for (int k = 0; k < MACHINE_KIND_COUNT; k++) {
        ui_lang_use(UI_LANG_ZH);
        if (!strcmp(words_machine((MachineKind)k),
                    machine_kind_name((MachineKind)k)))
            fail_msg("machine %s has no Chinese",
                     machine_kind_name((MachineKind)k));
        ui_lang_use(UI_LANG_EN);
        assert_string_equal(words_machine((MachineKind)k),
                            machine_kind_name((MachineKind)k));
    }
    /* every error's fragment: English as cv_strerror says it, and its
       Chinese */
    for (int k = 0; k < CV_ERR_COUNT; k++) {
        ui_lang_use(UI_LANG_EN);
        assert_string_equal(words_error((CvError)k), cv_strerror((CvError)k));
        ui_lang_use(UI_LANG_ZH);
        if (!strcmp(words_error((CvError)k), cv_strerror((CvError)k)))
            fail_msg("error '%s' has no Chinese", cv_strerror((CvError)k));
    }
    /* a backend's reason as the menu cuts it: mpi's here (collviz-mpi
       provides the backend; this program does not) has its Chinese */
    char why[400] = "";
    assert_null(exec_find("mpi", why, sizeof why));
    char *cut = strchr(why, ';');
    if (cut)
        *cut = '\0';
    if ((cut = strstr(why, " (")))
        *cut = '\0';
    ui_lang_use(UI_LANG_EN);
    assert_string_equal(words_backend_why(why), why);
    ui_lang_use(UI_LANG_ZH);
    if (!strcmp(words_backend_why(why), why))
        fail_msg("the mpi backend's reason '%s' has no Chinese", why);
    assert_string_equal(words_backend_why("no such reason"), "no such reason");
    assert_string_equal(words_error(CV_ERR_NOMEM),
                        "\xe5\x86\x85\xe5\xad\x98\xe4\xb8\x8d\xe8\xb6\xb3"); /* 内存不足 */
    ui_lang_use(UI_LANG_EN);
    /* the machine "full" and the calibration "full" are two words */
    ui_lang_use(UI_LANG_ZH);
    assert_string_equal(words_machine(MACHINE_FULL),
                        "\xe7\x82\xb9\xe5\xaf\xb9\xe7\x82\xb9"); /* 点对点 */
    assert_string_equal(_("full"), "\xe5\xae\x8c\xe6\x95\xb4"); /* 完整 */
    /* a what-if machine's kind and shape (the counters'): in English as
       machine_describe's short form, in Chinese with its kind and notes
       in Chinese */
    Machine m;
    char en[120], zh[120], core[120];
    assert_int_equal(machine_grid(&m, MACHINE_TORUS, 2, (int[]){4, 2}, false,
                                  1e-6, 1e-10, 1e-10), CV_OK);
    ui_lang_use(UI_LANG_EN);
    words_machine_shape(&m, true, en, sizeof en);
    machine_describe(&m, true, core, sizeof core);
    assert_string_equal(en, core);
    assert_string_equal(en, "torus 4x2");
    ui_lang_use(UI_LANG_ZH);
    words_machine_shape(&m, true, zh, sizeof zh);
    assert_string_equal(zh, "\xe7\x8e\xaf\xe9\x9d\xa2 4x2"); /* 环面 */
    assert_int_equal(machine_nodes(&m, 2, 4, true, 1e-10), CV_OK);
    ui_lang_use(UI_LANG_EN);
    words_machine_shape(&m, true, en, sizeof en);
    machine_describe(&m, true, core, sizeof core);
    assert_string_equal(en, core);
    assert_string_equal(en, "nodes 2x4, a NIC per node");
    words_machine_shape(&m, false, en, sizeof en);
    assert_string_equal(en, "nodes 2x4");
    ui_lang_use(UI_LANG_ZH);
    words_machine_shape(&m, true, zh, sizeof zh);
    /* 多节点 2x4，每节点一块网卡 */
    assert_string_equal(zh, "\xe5\xa4\x9a\xe8\x8a\x82\xe7\x82\xb9 2x4"
                            "\xef\xbc\x8c\xe6\xaf\x8f\xe8\x8a\x82\xe7\x82\xb9"
                            "\xe4\xb8\x80\xe5\x9d\x97\xe7\xbd\x91\xe5\x8d\xa1");
    ui_lang_use(UI_LANG_EN);
}

/* Ring all-reduce on 8 ranks, its first reduce-scatter step (step 2), in
 * Chinese at 80x24: the header names the phase and the algorithm in
 * Chinese, the transfers panel's sentence breaks between two CJK
 * characters (its first line full to the panel's edge, 46 columns), the
 * counters say "a b g" as the English screen does, and no word "rank",
 * "shared" or the English summary is left anywhere. The lines below are
 * written out by hand from the catalogue's sentences. */
static void test_ring_screen(void **state)
{
    ui_lang_use(UI_LANG_ZH);
    char *t = screen_call(COLL_ALLREDUCE, "ring", 8, "Right Right", 80, 24,
                          false);
    const char *l1 = "\xe7\xac\xac 2 \xe6\xad\xa5\xef\xbc\x8c\xe5\x85\xb1 "
                     "15 \xe6\xad\xa5  \xe5\xbd\x92\xe7\xba\xa6\xe6\x95\xa3"
                     "\xe5\xb0\x84  "; /* 第 2 步，共 15 步  归约散射 */
    if (strncmp(row(t, 1), l1, strlen(l1)))
        fail_msg("stepping line: %s", row(t, 1));
    /* │每个进程把自己数据中的一块发给右邻居，右邻居再│ */
    const char *s1 = "\xe2\x94\x82\xe6\xaf\x8f\xe4\xb8\xaa\xe8\xbf\x9b\xe7"
                     "\xa8\x8b\xe6\x8a\x8a\xe8\x87\xaa\xe5\xb7\xb1\xe6\x95"
                     "\xb0\xe6\x8d\xae\xe4\xb8\xad\xe7\x9a\x84\xe4\xb8\x80"
                     "\xe5\x9d\x97\xe5\x8f\x91\xe7\xbb\x99\xe5\x8f\xb3\xe9"
                     "\x82\xbb\xe5\xb1\x85\xef\xbc\x8c\xe5\x8f\xb3\xe9\x82"
                     "\xbb\xe5\xb1\x85\xe5\x86\x8d\xe2\x94\x82";
    /* │加上自己的那一份。 (and blanks to the panel's edge) */
    const char *s2 = "\xe2\x94\x82\xe5\x8a\xa0\xe4\xb8\x8a\xe8\x87\xaa\xe5"
                     "\xb7\xb1\xe7\x9a\x84\xe9\x82\xa3\xe4\xb8\x80\xe4\xbb"
                     "\xbd\xe3\x80\x82                            \xe2\x94\x82";
    bool found = false;
    for (int y = 0; y + 1 < 24 && !found; y++)
        found = !strncmp(row(t, y), s1, strlen(s1)) &&
                !strncmp(row(t, y + 1), s2, strlen(s2));
    if (!found)
        fail_msg("the sentence is not wrapped between CJK characters:\n%s",
                 t);
    assert_non_null(strstr(t, " a b g "));
    static const char *const english[] = {"rank", "shared",
                                          "reduce-scatter of",
                                          "\xce\xb1 \xce\xb2"}; /* α β */
    for (size_t i = 0; i < sizeof english / sizeof *english; i++)
        if (strstr(t, english[i]))
            fail_msg("Chinese screen keeps '%s':\n%s", english[i], t);
    free(t);
    ui_lang_use(UI_LANG_EN);
}

/* The Chinese screens as golden files: the ring all-reduce on 8 ranks
 * after its first and second step, the algorithm menu and the help box,
 * each at 100x30 and 80x24. */
static void test_goldens(void **state)
{
    static const struct { const char *name, *keys; } shots[] = {
        {"ring8_step1", "Right"},
        {"ring8_step2", "Right Right"},
        {"ring8_algo_menu", "a"},
        {"ring8_help", "?"},
    };
    static const int sizes[][2] = {{100, 30}, {80, 24}};
    ui_lang_use(UI_LANG_ZH);
    for (size_t i = 0; i < sizeof shots / sizeof *shots; i++)
        for (size_t j = 0; j < 2; j++) {
            char name[96];
            snprintf(name, sizeof name, "zh_%s_%dx%d", shots[i].name,
                     sizes[j][0], sizes[j][1]);
            char *t = screen_call(COLL_ALLREDUCE, "ring", 8, shots[i].keys,
                                  sizes[j][0], sizes[j][1], true);
            golden_check(name, t);
            free(t);
        }
    ui_lang_use(UI_LANG_EN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_status_and_header),
        cmocka_unit_test(test_menus),
        cmocka_unit_test(test_message),
        cmocka_unit_test(test_core_words),
        cmocka_unit_test(test_scene_sentences),
        cmocka_unit_test(test_reasons),
        cmocka_unit_test(test_ring_screen),
        cmocka_unit_test(test_goldens),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
