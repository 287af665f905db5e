/* test_ui_i18n.c - the TUI's language: names parsed strictly, the
 * environment's variables in their order of precedence, Chinese messages
 * and a UTF-8 character set where the environment names a Chinese locale
 * this machine does not have, and switching back and forth in place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "ui/i18n.h"

static void test_parse(void **state)
{
    static const struct {
        const char *name;
        int ok;
        UiLang lang;
    } cases[] = {
        {"en", 0, UI_LANG_EN},          {"zh", 0, UI_LANG_ZH},
        {"EN", 0, UI_LANG_EN},          {"Zh", 0, UI_LANG_ZH},
        {"zh_CN.UTF-8", 0, UI_LANG_ZH}, {"zh_TW", 0, UI_LANG_ZH},
        {"zh-Hans", 0, UI_LANG_ZH},     {"en_US.UTF-8", 0, UI_LANG_EN},
        {"en@euro", 0, UI_LANG_EN},     {"", -1, 0},
        {"e", -1, 0},                   {"eng", -1, 0},
        {"zhx", -1, 0},                 {"fr", -1, 0},
        {"fr_FR.UTF-8", -1, 0},         {"C", -1, 0},
        {"C.UTF-8", -1, 0},             {"POSIX", -1, 0},
        {" zh", -1, 0},                 {"zh ", -1, 0},
        {"zh!", -1, 0},                 {"z\xe4", -1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        UiLang l = (UiLang)99;
        int r = ui_lang_parse(cases[i].name, &l);
        if (r != cases[i].ok)
            fail_msg("'%s': %d, expected %d", cases[i].name, r, cases[i].ok);
        if (r == 0)
            assert_int_equal(l, cases[i].lang);
        else
            assert_int_equal(l, 99); /* untouched */
    }
    UiLang l;
    assert_int_equal(ui_lang_parse(NULL, &l), -1);
    assert_string_equal(ui_lang_code(UI_LANG_EN), "en");
    assert_string_equal(ui_lang_code(UI_LANG_ZH), "zh");
    assert_non_null(strstr(ui_lang_list(), "en"));
    assert_non_null(strstr(ui_lang_list(), "zh"));
}

/* Every combination of the three variables (unset, empty, English,
 * Chinese, another language): the first set and non-empty one decides. */
static void test_from_env(void **state)
{
    static const char *const vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    static const char *const vals[] = {NULL, "", "en_GB.UTF-8",
                                       "zh_CN.UTF-8", "de_DE.UTF-8"};
    const size_t nv = sizeof vals / sizeof vals[0];
    for (size_t a = 0; a < nv; a++)
        for (size_t b = 0; b < nv; b++)
            for (size_t c = 0; c < nv; c++) {
                const char *set[3] = {vals[a], vals[b], vals[c]};
                UiLang want = UI_LANG_EN;
                for (int v = 0; v < 3; v++) {
                    if (set[v])
                        setenv(vars[v], set[v], 1);
                    else
                        unsetenv(vars[v]);
                }
                for (int v = 0; v < 3; v++)
                    if (set[v] && *set[v]) {
                        want = !strncmp(set[v], "zh", 2) ? UI_LANG_ZH
                                                         : UI_LANG_EN;
                        break;
                    }
                assert_int_equal(ui_lang_from_env(), want);
            }
}

/* The environment names zh_CN.UTF-8, which this test makes sure is not
 * installed under that exact name by naming a territory nobody has: the
 * language still comes out Chinese, the characters UTF-8. */
static void test_missing_locale_still_chinese(void **state)
{
    unsetenv("LC_ALL");
    unsetenv("LC_MESSAGES");
    unsetenv("LANGUAGE");
    setenv("LANG", "zh_XX.UTF-8", 1);
    assert_int_equal(ui_lang_get(), UI_LANG_EN);
    ui_lang_default();
    assert_int_equal(ui_lang_get(), UI_LANG_ZH);
    assert_string_equal(nl_langinfo(CODESET), "UTF-8");
    if (!ui_lang_dir()[0])
        fail_msg("no message catalogue beside the test program");
    assert_string_equal(_("English"), "英文");
    assert_string_equal(ui_lang_name(UI_LANG_ZH), "中文");
    /* a message without a translation stays English */
    assert_string_equal(_("no such message"), "no such message");
    /* a second default does not override the choice */
    setenv("LANG", "en_US.UTF-8", 1);
    ui_lang_default();
    assert_int_equal(ui_lang_get(), UI_LANG_ZH);
}

/* Switching in place, several times: no translation is kept from the
 * language before. */
static void test_switch_in_place(void **state)
{
    for (int i = 0; i < 4; i++) {
        ui_lang_use(UI_LANG_EN);
        assert_int_equal(ui_lang_get(), UI_LANG_EN);
        assert_string_equal(_("English"), "English");
        assert_string_equal(ui_lang_name(UI_LANG_ZH), "Chinese");
        ui_lang_use(UI_LANG_ZH);
        assert_string_equal(_("English"), "英文");
        assert_string_equal(nl_langinfo(CODESET), "UTF-8");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_from_env),
        cmocka_unit_test(test_missing_locale_still_chinese),
        cmocka_unit_test(test_switch_in_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
