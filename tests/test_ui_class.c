/* test_ui_class.c - the classroom (issue 22): golden screens of the
 * teacher's scene at 100x30 and 80x24, normal and presenter mode, English
 * and Chinese, each with its colour roles and how every cell looks in
 * monochrome (term_mono_mark: no colours, NO_COLOR); the step sentences
 * made from every algorithm's schedule; compact rank sets. Chinese runs
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
#include "golden_fixture.h"
#include "ui/i18n.h"
#include "ui/menu.h"
#include "ui/scene.h"
#include "ui/screen.h"
#include "ui/script.h"
#include "ui/sentence.h"
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

/* The grid's text and roles, then each cell's monochrome look. */
static char *dump(const Grid *g)
{
    char *t = grid_dump(g, true);
    size_t n = strlen(t), cap = n + (size_t)(g->w + 1) * (size_t)g->h + 16;
    char *out = realloc(t, cap);
    assert_non_null(out);
    n += (size_t)snprintf(out + n, cap - n, "-- mono\n");
    for (int y = 0; y < g->h; y++) {
        for (int x = 0; x < g->w; x++) {
            const Cell *c = grid_cat(g, x, y);
            out[n++] = term_mono_mark((Role)c->role, c->attr);
        }
        out[n++] = '\n';
    }
    out[n] = '\0';
    return out;
}

/* One golden: the teacher's ring allreduce on 8 ranks after two steps. */
static void golden(const char *name, int w, int h, bool present, UiLang l)
{
    AppOptions o = app_options(COLL_ALLREDUCE, "ring", 8, true);
    App app;
    char why[200];
    ui_lang_use(l);
    o.present = present;
    assert_int_equal(app_init(&app, &o, why, sizeof why), CV_OK);
    app.view.term_w = w, app.view.term_h = h;
    Script s;
    assert_int_equal(script_parse("Right Right", &s, why, sizeof why), CV_OK);
    Grid g;
    grid_init(&g, w, h, false);
    ScriptRun run = {0};
    script_run(&app, &s, &run, &g);
    char *got = dump(&g);
    golden_check(name, got);
    free(got);
    grid_fini(&g);
    script_fini(&s);
    app_fini(&app);
    ui_lang_use(UI_LANG_EN);
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

/* Every step of every algorithm at several rank counts has a sentence;
 * the ones the issue names read as it says. */
static void test_sentences(void **state)
{
    static const int ps[] = {1, 2, 3, 5, 8, 13};
    char out[400];
    for (size_t a = 0; a < algo_count(); a++)
        for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
            const AlgoInfo *al = algo_at(a);
            CollCall c = {.kind = al->coll, .nranks = ps[i], .dtype = DT_FLOAT,
                          .op = OP_SUM, .count = (size_t)ps[i] * 3};
            Schedule s;
            if (algo_generate(al, &c, &s))
                continue;
            for (size_t k = 0; k < s.nsteps; k++) {
                step_sentence(&s, k, out, sizeof out);
                if (!out[0])
                    fail_msg("%s p=%d step %zu: no sentence", al->name,
                             ps[i], k);
            }
            sched_fini(&s);
        }
    Schedule s;
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 8, .dtype = DT_FLOAT,
                  .op = OP_SUM, .count = 64};
    assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "ring"), &c, &s),
                     CV_OK);
    step_sentence(&s, 0, out, sizeof out);
    assert_non_null(strstr(out, "copies its input"));
    step_sentence(&s, 2, out, sizeof out);
    assert_string_equal(out, "Every rank sends the block it reduced in the "
                             "last step to its right neighbour, which adds "
                             "its own part.");
    sched_fini(&s);
    assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "butterfly"), &c,
                                   &s), CV_OK);
    int pairs = 0;
    for (size_t k = 0; k < s.nsteps; k++) {
        step_sentence(&s, k, out, sizeof out);
        pairs += strstr(out, "apart (r xor") != NULL;
    }
    assert_int_equal(pairs, 3); /* log2 8 exchanges */
    sched_fini(&s);
}

static void test_rank_sets(void **state)
{
    unsigned char f[16] = {1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 1};
    char out[64];
    sentence_ranks(f, 16, out, sizeof out);
    assert_string_equal(out, "0-3,6,8,9,15");
    memset(f, 0, sizeof f);
    sentence_ranks(f, 16, out, sizeof out);
    assert_string_equal(out, "");
    memset(f, 1, sizeof f);
    sentence_ranks(f, 16, out, 4); /* cut, never overrun */
    assert_true(strlen(out) <= 3);
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
        cmocka_unit_test(test_sentences),
        cmocka_unit_test(test_rank_sets),
        cmocka_unit_test(test_backend_menu),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
