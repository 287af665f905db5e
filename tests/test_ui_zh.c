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

#include "ui/action.h"
#include "ui/i18n.h"
#include "ui/menu.h"
#include "ui/scene.h"
#include "ui/screen.h"
#include "ui/script.h"

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

/* The screen of `keys` run on a reduce (rooted, with an op) scene at w x h. */
static char *screen_of(const char *keys, int w, int h)
{
    AppOptions o = app_options(COLL_REDUCE, NULL, 6, true);
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
    char *t = grid_dump(&g, false);
    grid_fini(&g);
    script_fini(&s);
    app_fini(&app);
    return t;
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
            /* the root menu's items: 进程 N; the step sentence beside it
               may name a rank as "rank N", the lessons' word */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_status_and_header),
        cmocka_unit_test(test_menus),
        cmocka_unit_test(test_message),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
