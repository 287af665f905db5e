/* test_ui_learn_keys.c - the lesson player's key table (learn_keys.c):
 * no key is bound twice in a mode, every key a hint names acts where the
 * hint is shown, every hint has its Chinese, and the footers made from
 * the rows are, word for word, the ones the player's screens showed when
 * they were written by hand (both languages, wide and narrow); the
 * keys are taken in the mode the player's state says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/keys.h"
#include "ui/learn.h"
#include "ui/term.h"

/* The footers as the screens wrote them by hand (learn_draw.c before the
 * table), English and Chinese (po/zh_CN.po of the time). */
static const struct {
    LearnMode m;    /* the mode */
    bool narrow;    /* the screen too narrow for every hint */
    const char *en; /* English */
    const char *zh; /* Chinese */
} before[] = {
    {LM_LIST, false, "Up/Down choose   Enter open   l language   q quit",
     "上/下 选择   Enter 打开   l 语言   q 退出"},
    {LM_LESSON, false, "Space next  PgUp back  Left/Right step  x run  "
     "e scene  s skip  r answer  l language  o lessons  q quit",
     "空格 下一段  PgUp 上一段  左/右 单步  x 运行  e 场景  s 跳过  r 答案  "
     "l 语言  o 课程  q 退出"},
    {LM_LESSON, true, "Space next  PgUp back  x run  s skip  r answer  "
     "o lessons  q quit",
     "空格 下一段  PgUp 上一段  x 运行  s 跳过  r 答案  o 课程  q 退出"},
    {LM_PROMPT, false, "Enter check   s or r, Enter: skip or answer   "
     "Esc leave", "Enter 检查   s 或 r 加 Enter：跳过或看答案   Esc 离开"},
    {LM_PAGER_RUN, false, "Up/Down PgUp/PgDn Home/End scroll  / find  "
     "q or Esc stop the command",
     "上/下 PgUp/PgDn Home/End 滚动  / 查找  q 或 Esc 终止命令"},
    {LM_PAGER, false, "Up/Down PgUp/PgDn Home/End Left/Right scroll  "
     "/ find  q or Esc back",
     "上/下 PgUp/PgDn Home/End 左/右 滚动  / 查找  q 或 Esc 返回"},
};
#define NBEFORE (sizeof before / sizeof before[0])

static int teardown(void **state)
{
    ui_lang_use(UI_LANG_EN);
    return 0;
}

/* Each footer of the old screens, in lang: whole where it fits (also
 * exactly), its narrow form one column short of the whole one. */
static void check_footers(UiLang lang)
{
    ui_lang_use(lang);
    char got[512], whole[512];
    for (size_t i = 0; i < NBEFORE; i++) {
        const char *want = lang == UI_LANG_ZH ? before[i].zh : before[i].en;
        LearnMode m = before[i].m;
        learn_footer(m, 1000, whole, sizeof whole);
        int w = grid_text_width(whole);
        if (!before[i].narrow) {
            assert_string_equal(whole, want);
            assert_string_equal(learn_footer(m, w, got, sizeof got), want);
        } else {
            assert_string_equal(learn_footer(m, w - 1, got, sizeof got),
                                want);
        }
    }
    /* the pager and the prompt have nothing to leave out */
    assert_string_equal(learn_footer(LM_PAGER, 10, got, sizeof got),
                        lang == UI_LANG_ZH ? before[5].zh : before[5].en);
    assert_string_equal(learn_footer(LM_FIND, 100, got, sizeof got), "");
    /* a short buffer holds what fits, ended */
    learn_footer(LM_LESSON, 1000, got, 12);
    assert_int_equal(strlen(got), 11);
}

static void test_footers_en(void **state) { check_footers(UI_LANG_EN); }

static void test_footers_zh(void **state) { check_footers(UI_LANG_ZH); }

/* A key acts in one way per mode: no two rows of a mode share one. */
static void test_one_row_per_key(void **state)
{
    assert_true(learn_keys_count() > 20);
    assert_null(learn_keys_at(learn_keys_count()));
    for (size_t i = 0; i < learn_keys_count(); i++) {
        const LearnKey *a = learn_keys_at(i);
        assert_non_null(a->act);
        assert_int_not_equal(a->keys[0], 0);
        assert_int_not_equal(a->modes, 0);
        assert_int_equal(a->modes & ~(LM_BIT(LM_COUNT) - 1), 0);
        for (size_t j = i + 1; j < learn_keys_count(); j++) {
            const LearnKey *b = learn_keys_at(j);
            for (const int *k = a->keys; (a->modes & b->modes) && *k; k++)
                for (const int *q = b->keys; *q; q++)
                    if (*k == *q)
                        fail_msg("key %d is in rows %zu and %zu of one mode",
                                 *k, i, j);
        }
    }
}

/* Whether key, which hint r names, acts in each mode r acts in. */
static int named_key(const LearnKey *r, int key, const char *name)
{
    for (int m = 0; key >= 0 && m < LM_COUNT; m++)
        if ((r->modes & LM_BIT(m)) && !learn_keys_find(m, key))
            fail_msg("'%s' names %s, which does nothing in mode %d",
                     r->label, name, m);
    return key >= 0;
}

/* Every key a hint names ("Up/Down", "Enter", "s", "/") acts in each
 * mode whose footer shows the hint, and every hint names one at least. */
static void test_hints_name_bound_keys(void **state)
{
    for (size_t i = 0; i < learn_keys_count(); i++) {
        const LearnKey *r = learn_keys_at(i);
        if (!r->label)
            continue;
        char words[160];
        snprintf(words, sizeof words, "%s", r->label);
        /* a '/' alone is the key, elsewhere it parts two keys */
        int named = r->label[0] == '/' && r->label[1] == ' '
                    ? named_key(r, '/', "/") : 0;
        for (char *w = strtok(words, " /,:"); w; w = strtok(NULL, " /,:"))
            named += named_key(r, keys_parse(w), w);
        if (!named)
            fail_msg("'%s' names no key", r->label);
    }
}

/* Every hint has its Chinese in po/zh_CN.po. */
static void test_hints_in_chinese(void **state)
{
    ui_lang_use(UI_LANG_ZH);
    for (size_t i = 0; i < learn_keys_count(); i++) {
        const char *s = learn_keys_at(i)->label;
        if (s && !strcmp(_(s), s))
            fail_msg("'%s' has no Chinese in po/zh_CN.po", s);
    }
}

/* The mode comes from the state: the screen, then the pager's find and
 * command, the prompt, the pick of a command. */
static void test_modes(void **state)
{
    static Learn l;
    l.job.fd = -1;
    l.screen = LS_LIST;
    l.run_pick = l.ask.open = true; /* a lesson's, not the list's */
    assert_int_equal(learn_mode(&l), LM_LIST);
    l.back = true; /* opened from the visualizer: its own q and Esc */
    assert_int_equal(learn_mode(&l), LM_LIST_BACK);
    assert_ptr_not_equal(learn_keys_find(LM_LIST_BACK, 'q'),
                         learn_keys_find(LM_LIST, 'q'));
    assert_ptr_equal(learn_keys_find(LM_LIST_BACK, 27),
                     learn_keys_find(LM_LIST_BACK, 'q'));
    l.back = false;
    l.screen = LS_LESSON;
    assert_int_equal(learn_mode(&l), LM_PROMPT);
    l.ask.open = false;
    assert_int_equal(learn_mode(&l), LM_PICK);
    l.run_pick = false;
    assert_int_equal(learn_mode(&l), LM_LESSON);
    l.screen = LS_PAGER;
    assert_int_equal(learn_mode(&l), LM_PAGER);
    l.job.pid = 1; /* as if a command ran: the mode only looks */
    assert_int_equal(learn_mode(&l), LM_PAGER_RUN);
    l.pager_finding = true;
    assert_int_equal(learn_mode(&l), LM_FIND);
    /* what the keys of a mode do, by row */
    assert_null(learn_keys_find(LM_LESSON, 'z'));
    assert_ptr_equal(learn_keys_find(LM_LESSON, 'n'),
                     learn_keys_find(LM_LESSON, TERM_KEY_NPAGE));
    assert_ptr_not_equal(learn_keys_find(LM_PAGER, 'q'),
                         learn_keys_find(LM_PAGER_RUN, 'q'));
}

/* After x at a @run of several commands, a key that picks nothing
 * cancels the pick and does what it does in the lesson (Space goes on);
 * Esc only cancels. */
static void test_pick_then_other(void **state)
{
    static Learn l;
    char why[600];
    if (learn_init(&l, "lessons", UI_LANG_EN, "", why, sizeof why) ||
        learn_open(&l, 2, why, sizeof why)) /* 03-ring-allreduce */
        fail_msg("%s", why);
    for (int i = 0; i < 40 && (l.cur.les.items[l.cur.pos - 1].kind != LI_RUN
                               || !strchr(l.cur.les.items[l.cur.pos - 1].text,
                                          '\n')); i++)
        learn_key(&l, ' ');
    learn_key(&l, 'x');
    assert_int_equal(learn_mode(&l), LM_PICK);
    learn_key(&l, 27);
    assert_int_equal(learn_mode(&l), LM_LESSON);
    assert_int_equal(l.screen, LS_LESSON);
    size_t pos = l.cur.pos;
    learn_key(&l, 'x');
    learn_key(&l, ' ');
    assert_int_equal(learn_mode(&l), LM_LESSON);
    assert_true(l.cur.pos > pos);
    learn_fini(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_footers_en, teardown),
        cmocka_unit_test_teardown(test_footers_zh, teardown),
        cmocka_unit_test(test_one_row_per_key),
        cmocka_unit_test(test_hints_name_bound_keys),
        cmocka_unit_test_teardown(test_hints_in_chinese, teardown),
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_pick_then_other),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
