/* test_ui_grid.c - the in-memory screen: clipping, UTF-8, wide characters,
 * boxes, glyph fallbacks and the text dump the golden files use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ui/grid.h"

/* The text of row y (UTF-8, wide characters once). */
static char *row_text(const Grid *g, int y)
{
    char *all = grid_dump(g, false);
    assert_non_null(all);
    char *line = all;
    for (int i = 0; i < y; i++)
        line = strchr(line, '\n') + 1;
    *strchr(line, '\n') = '\0';
    char *out = strdup(line);
    free(all);
    return out;
}

static void test_init_clear(void **state)
{
    Grid g;
    assert_int_equal(grid_init(&g, 7, 3, false), CV_OK);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 7; x++) {
            const Cell *c = grid_cat(&g, x, y);
            assert_int_equal(c->ch, ' ');
            assert_int_equal(c->role, ROLE_NORMAL);
            assert_int_equal(c->attr, 0);
        }
    assert_null(grid_at(&g, 7, 0));
    assert_null(grid_at(&g, 0, 3));
    assert_null(grid_at(&g, -1, 0));
    assert_int_equal(grid_resize(&g, -1, 2), CV_ERR_ARG);
    assert_int_equal(grid_resize(&g, 0, 0), CV_OK);
    assert_int_equal(grid_resize(&g, 3, 2), CV_OK);
    grid_fini(&g);
}

/* Text is clipped to the rectangle and to maxw, at every offset. */
static void test_text_clip(void **state)
{
    Grid g;
    grid_init(&g, 20, 3, false);
    for (int x0 = -5; x0 < 25; x0++)
        for (int cw = 0; cw < 12; cw++) {
            grid_clear(&g);
            Rect clip = {4, 1, cw, 1};
            grid_text(&g, clip, x0, 1, 6, ROLE_VALUE, 0, "abcdefghij");
            for (int x = 0; x < 20; x++) {
                const Cell *c = grid_cat(&g, x, 1);
                bool inside = x >= 4 && x < 4 + cw && x >= x0 && x < x0 + 6;
                assert_int_equal(c->ch, inside ? (uint32_t)('a' + x - x0)
                                               : (uint32_t)' ');
                assert_int_equal(c->role, inside ? ROLE_VALUE : ROLE_NORMAL);
            }
            for (int x = 0; x < 20; x++) {
                assert_int_equal(grid_cat(&g, x, 0)->ch, ' ');
                assert_int_equal(grid_cat(&g, x, 2)->ch, ' ');
            }
        }
    grid_fini(&g);
}

static void test_utf8(void **state)
{
    Grid g;
    grid_init(&g, 12, 1, false);
    Rect all = grid_rect(&g);
    /* two-, three- and four-byte sequences, then invalid bytes */
    int n = grid_text(&g, all, 0, 0, -1, ROLE_NORMAL, 0,
                      "\xc3\xa9\xe2\x94\x80\xf0\x9f\x98\x80\xff\xc3x\x01");
    assert_int_equal(n, 8); /* the emoji takes two columns */
    assert_int_equal(grid_cat(&g, 0, 0)->ch, 0xE9);
    assert_int_equal(grid_cat(&g, 1, 0)->ch, 0x2500);
    assert_int_equal(grid_cat(&g, 2, 0)->ch, 0x1F600);
    assert_int_equal(grid_cat(&g, 3, 0)->ch, GRID_CONT);
    assert_int_equal(grid_cat(&g, 4, 0)->ch, '?');
    assert_int_equal(grid_cat(&g, 5, 0)->ch, '?');
    assert_int_equal(grid_cat(&g, 6, 0)->ch, 'x');
    assert_int_equal(grid_cat(&g, 7, 0)->ch, '?');
    /* overlong encodings and surrogates are not characters */
    grid_clear(&g);
    grid_text(&g, all, 0, 0, -1, ROLE_NORMAL, 0, "\xe0\x80\xaf\xed\xa0\x80");
    assert_int_equal(grid_cat(&g, 0, 0)->ch, '?');
    assert_int_equal(grid_cat(&g, 1, 0)->ch, '?');
    grid_fini(&g);
}

/* Wide characters take two cells and are never cut in half. */
static void test_wide(void **state)
{
    Grid g;
    grid_init(&g, 6, 1, false);
    const char *zh = "\xe4\xb8\xad\xe6\x96\x87"; /* two CJK characters */
    assert_int_equal(grid_text_width(zh), 4);
    assert_int_equal(grid_text(&g, grid_rect(&g), 1, 0, -1, ROLE_NORMAL, 0, zh), 4);
    assert_int_equal(grid_cat(&g, 1, 0)->ch, 0x4E2D);
    assert_int_equal(grid_cat(&g, 2, 0)->ch, GRID_CONT);
    assert_int_equal(grid_cat(&g, 3, 0)->ch, 0x6587);
    char *t = row_text(&g, 0);
    assert_string_equal(t, " \xe4\xb8\xad\xe6\x96\x87 ");
    free(t);
    /* maxw 3 fits one wide character, not a half of the second */
    grid_clear(&g);
    assert_int_equal(grid_text(&g, grid_rect(&g), 0, 0, 3, ROLE_NORMAL, 0, zh), 2);
    assert_int_equal(grid_cat(&g, 2, 0)->ch, ' ');
    /* at the clip edge a wide character becomes a space */
    grid_clear(&g);
    grid_text(&g, (Rect){0, 0, 2, 1}, 1, 0, -1, ROLE_NORMAL, 0, zh);
    assert_int_equal(grid_cat(&g, 1, 0)->ch, ' ');
    assert_int_equal(grid_cat(&g, 2, 0)->ch, ' ');
    /* a cell written over one half of a wide character blanks the other
       half (a menu's frame over Chinese text): "中文" at 1-4, then '|'
       over 中's right half (2) and over 文's left half (3) */
    grid_clear(&g);
    grid_text(&g, grid_rect(&g), 1, 0, -1, ROLE_NORMAL, 0, zh);
    grid_put(&g, grid_rect(&g), 2, 0, '|', ROLE_NORMAL, 0);
    t = row_text(&g, 0);
    assert_string_equal(t, "  |\xe6\x96\x87 ");
    free(t);
    grid_put(&g, grid_rect(&g), 3, 0, '|', ROLE_NORMAL, 0);
    t = row_text(&g, 0);
    assert_string_equal(t, "  ||  ");
    free(t);
    /* writing a wide character over another keeps both halves whole */
    grid_clear(&g);
    grid_text(&g, grid_rect(&g), 1, 0, -1, ROLE_NORMAL, 0, zh);
    grid_text(&g, grid_rect(&g), 1, 0, -1, ROLE_NORMAL, 0, zh + 3);
    t = row_text(&g, 0);
    assert_string_equal(t, " \xe6\x96\x87\xe6\x96\x87 ");
    free(t);
    grid_fini(&g);
}

/* U3: emoji take two columns (Unicode's East Asian Width W, as glibc's
 * wcwidth gives them), combining marks and zero-width characters none:
 * the grid leaves them out rather than give them a blank cell. */
static void test_widths(void **state)
{
    static const struct {
        const char *s;
        int w;
    } cases[] = {
        {"\xf0\x9f\x98\x80", 2},          /* U+1F600 grinning face */
        {"\xf0\x9f\x9a\x80", 2},          /* U+1F680 rocket */
        {"\xe2\x9c\x85", 2},               /* U+2705 check mark button */
        {"\xe2\x9c\x93", 1},               /* U+2713 check mark: narrow */
        {"e\xcc\x81", 1},                   /* e + U+0301 combining acute */
        {"\xe2\x80\x8b", 0},               /* U+200B zero width space */
        {"a\xe2\x80\x8d" "b", 2},             /* U+200D zero width joiner */
        {"\xef\xb8\x8f", 0},               /* U+FE0F variation selector */
        {"\xea\xb0\x80", 2},               /* U+AC00 Hangul */
        {"\xe3\x80\x80", 2},               /* U+3000 ideographic space */
        {"\xc3\xa9", 1},                    /* U+00E9 precomposed */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (grid_text_width(cases[i].s) != cases[i].w)
            fail_msg("case %zu: width %d, want %d", i,
                     grid_text_width(cases[i].s), cases[i].w);
    Grid g;
    grid_init(&g, 8, 1, false);
    /* "e\u0301e\u0301e" drawn as three cells, not five */
    assert_int_equal(grid_text(&g, grid_rect(&g), 0, 0, -1, ROLE_NORMAL, 0,
                               "e\xcc\x81" "e\xcc\x81" "e"), 3);
    char *t = row_text(&g, 0);
    assert_string_equal(t, "eee     ");
    free(t);
    /* a row of emoji never goes past maxw */
    grid_clear(&g);
    assert_int_equal(grid_text(&g, grid_rect(&g), 0, 0, 5, ROLE_NORMAL, 0,
                               "\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
                               "\xf0\x9f\x98\x80"), 4);
    assert_int_equal(grid_cat(&g, 4, 0)->ch, ' ');
    grid_fini(&g);
}

/* A box in both modes: corners, edges, title, inside. */
static void test_box(void **state)
{
    for (int ascii = 0; ascii < 2; ascii++) {
        Grid g;
        grid_init(&g, 10, 4, ascii);
        Rect in = grid_box(&g, (Rect){1, 0, 8, 4}, ROLE_BORDER, "Title!!",
                           ROLE_TITLE);
        assert_int_equal(in.x, 2);
        assert_int_equal(in.y, 1);
        assert_int_equal(in.w, 6);
        assert_int_equal(in.h, 2);
        char *t = grid_dump(&g, false);
        if (ascii)
            assert_string_equal(t, " + Tit~ + \n |      | \n |      | \n +------+ \n");
        else
            assert_string_equal(t, " ┌ Tit… ┐ \n │      │ \n │      │ \n └──────┘ \n");
        free(t);
        assert_int_equal(grid_cat(&g, 3, 0)->role, ROLE_TITLE);
        assert_int_equal(grid_cat(&g, 1, 1)->role, ROLE_BORDER);
        Rect none = grid_box(&g, (Rect){0, 0, 1, 5}, ROLE_BORDER, NULL, ROLE_TITLE);
        assert_int_equal(none.w, 0);
        grid_fini(&g);
    }
}

/* Every glyph has an ASCII form that is printable ASCII. */
/* A cut never falls inside a number (T12): the teacher's picture title
 * cut at every width shows a prefix of it and an ellipsis, and no digit,
 * or '.' or ',' between digits, of the title on both sides of the cut;
 * at the width that cut "-p 13" to "-p 1", it ends at "-p". A word that
 * is all one number keeps what is before it. */
static void test_cut_numbers(void **state)
{
    static const char *const texts[] = {
        " step 2/9: allreduce -a halving-doubling -p 13 ",
        "quick, bus, unsteady x2.35", "size 1,835,008 bytes", "abc123456",
    };
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
        const char *s = texts[t];
        int len = (int)strlen(s);
        for (int w = 1; w < len; w++) {
            Grid g;
            assert_int_equal(grid_init(&g, 60, 1, false), CV_OK);
            grid_text_cut(&g, (Rect){0, 0, 60, 1}, 0, 0, w, ROLE_NORMAL, 0,
                          s);
            char *got = row_text(&g, 0);
            char *dots = strstr(got, "\u2026");
            assert_non_null(dots);
            size_t k = (size_t)(dots - got);
            if (strncmp(got, s, k))
                fail_msg("'%s' is not a prefix of '%s'", got, s);
            char a = k ? s[k - 1] : ' ', b = s[k];
            bool na = a >= '0' && a <= '9', nb = b >= '0' && b <= '9';
            bool sa = (a == '.' || a == ',') && k > 1 && s[k - 2] >= '0' &&
                      s[k - 2] <= '9';
            bool sb = (b == '.' || b == ',') && s[k + 1] >= '0' &&
                      s[k + 1] <= '9';
            if ((na || sa) && (nb || sb))
                fail_msg("'%s' cuts a number of '%s' at %d columns", got, s,
                         w);
            free(got);
            grid_fini(&g);
        }
    }
    Grid g;
    assert_int_equal(grid_init(&g, 60, 1, false), CV_OK);
    grid_text_cut(&g, (Rect){0, 0, 60, 1}, 0, 0, 46, ROLE_NORMAL, 0,
                  texts[0]);
    char *got = row_text(&g, 0);
    assert_non_null(strstr(got, "halving-doubling -p\u2026"));
    free(got);
    grid_fini(&g);
}

static void test_glyphs(void **state)
{
    Grid u, a;
    grid_init(&u, 1, 1, false);
    grid_init(&a, 1, 1, true);
    for (int gl = 0; gl < GL_COUNT; gl++) {
        uint32_t c = grid_glyph(&a, (Glyph)gl);
        assert_true(c > ' ' && c < 0x7f);
        assert_true(grid_glyph(&u, (Glyph)gl) > 0x7f);
    }
    assert_int_equal(grid_glyph(&a, GL_COUNT), '?');
    grid_fini(&u);
    grid_fini(&a);
}

/* Role codes are distinct, so the role layer of a golden file is exact. */
static void test_role_codes(void **state)
{
    for (int a = 0; a < ROLE_COUNT; a++) {
        assert_true(grid_role_code((Role)a) > ' ');
        assert_true(strlen(grid_role_what((Role)a)) > 0);
        for (int b = a + 1; b < ROLE_COUNT; b++)
            assert_int_not_equal(grid_role_code((Role)a), grid_role_code((Role)b));
    }
}

static void test_dump_layers(void **state)
{
    Grid g;
    grid_init(&g, 3, 2, false);
    grid_put(&g, grid_rect(&g), 1, 0, 'x', ROLE_FINAL, GRID_BOLD | GRID_UNDER);
    grid_paint(&g, (Rect){0, 1, 9, 9}, ROLE_ERROR, 0);
    char *t = grid_dump(&g, true);
    assert_string_equal(t, " x \n   \n-- roles\n.F.\neee\n-- attrs\n.5.\n...\n");
    free(t);
    grid_put(&g, grid_rect(&g), 1, 0, 'x', ROLE_FINAL, 0);
    t = grid_dump(&g, true);
    assert_null(strstr(t, "-- attrs"));
    free(t);
    grid_fini(&g);
}

static void test_rects(void **state)
{
    Rect a = {2, 3, 10, 5}, t, b;
    for (int n = -2; n < 9; n++) {
        rect_cut_top(a, n, &t, &b);
        assert_int_equal(t.h + b.h, a.h);
        assert_true(t.h >= 0 && b.h >= 0);
        assert_int_equal(b.y, t.y + t.h);
        rect_cut_left(a, n + 3, &t, &b);
        assert_int_equal(t.w + b.w, a.w);
        assert_int_equal(b.x, t.x + t.w);
    }
    Rect c = rect_clip(a, (Rect){0, 0, 5, 5});
    assert_int_equal(c.x, 2);
    assert_int_equal(c.w, 3);
    assert_int_equal(c.h, 2);
    Rect e = rect_clip(a, (Rect){50, 50, 5, 5});
    assert_int_equal(e.w * e.h, 0);
    assert_true(rect_has(a, 2, 3));
    assert_false(rect_has(a, 12, 3));
    assert_int_equal(rect_inset((Rect){0, 0, 1, 1}, 1).w, 0);
}

/* Wrapping: at blanks, between CJK characters but never before closing
 * punctuation, a word wider than the line cut at the line, every
 * character kept (Grid.lost stays 0). The lines are written by hand. */
static void test_wrap(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int w;
        const char *want[4];
    } cases[] = {
        {"Mouse: click a cell for its history", 12,
         {"Mouse: click", "a cell for", "its history"}},
        {"one", 12, {"one"}},
        {"abcdefghij klm", 4, {"abcd", "efgh", "ij", "klm"}},
        /* 8 columns: four CJK characters, but a line never starts with
           the comma: the fourth goes down with it */
        {"\u4E00\u4E8C\u4E09\u56DB\uFF0C\u4E94", 8,
         {"\u4E00\u4E8C\u4E09", "\u56DB\uFF0C\u4E94"}},
        {"\u4E00\u4E8C\u4E09\u56DB\u4E94\u516D", 8,
         {"\u4E00\u4E8C\u4E09\u56DB", "\u4E94\u516D"}},
        /* a line narrower than a character: each on a row of its own,
           shown as the blank a half wide character is (no endless loop) */
        {"\u4E00\u4E8C", 1, {"", ""}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Grid g;
        assert_int_equal(grid_init(&g, 20, 6, false), CV_OK);
        int rows = grid_text_wrap(&g, grid_rect(&g), 0, 0, cases[i].w,
                                  ROLE_NORMAL, 0, cases[i].text);
        int want = 0;
        while (want < 4 && cases[i].want[want])
            want++;
        assert_int_equal(rows, want);
        if (cases[i].want[0][0]) /* (a half wide character is lost) */
            assert_int_equal(g.lost, 0);
        for (int y = 0; y < want; y++) {
            char *t = row_text(&g, y);
            size_t n = strlen(t);
            while (n && t[n - 1] == ' ')
                t[--n] = '\0';
            if (strcmp(t, cases[i].want[y]))
                fail_msg("case %zu line %d: '%s', want '%s'", i, y, t,
                         cases[i].want[y]);
            free(t);
        }
        grid_fini(&g);
    }
}

/* Chinese text wraps between any two characters, but never leaves an
 * opening bracket at a line's end, never starts a line with closing
 * punctuation, and never starts a continuation line with "- " (it would
 * read as a bullet); English still breaks only at blanks. The lines are
 * written out by hand (widths: a CJK character 2 columns, ” 1). */
static void test_wrap_cjk(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int w;
        const char *want[4];
    } cases[] = {
        /* 一二三（ is 8 columns, but （ goes down with what it opens */
        {"一二三（四）", 8, {"一二三", "（四）"}},
        {"一二三四（五）", 10, {"一二三四", "（五）"}},
        /* 》 and ” close: the character before goes down with them */
        {"读《算法》一书", 8, {"读《算", "法》一书"}},
        {"一二三四”五", 8, {"一二三", "四”五"}},
        /* 13 - 8: the break before "- " would make a bullet */
        {"多出 13 - 8 = 5 个进程", 8, {"多出", "13 - 8 =", "5 个进程"}},
        /* the review's sentence at the 80x24 transfers panel's width */
        {"每个 rank 把上一步归约好的块发给右邻居，右邻居再加上自己的那一份。",
         46,
         {"每个 rank 把上一步归约好的块发给右邻居，右邻居",
          "再加上自己的那一份。"}},
        /* English: at blanks only, brackets as they come */
        {"see (a) and [b] here", 8, {"see (a)", "and [b]", "here"}},
        {"two - three", 5, {"two -", "three"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Grid g;
        assert_int_equal(grid_init(&g, 60, 6, false), CV_OK);
        int rows = grid_text_wrap(&g, grid_rect(&g), 0, 0, cases[i].w,
                                  ROLE_NORMAL, 0, cases[i].text);
        int want = 0;
        while (want < 4 && cases[i].want[want])
            want++;
        for (int y = 0; y < want || y < rows; y++) {
            char *t = row_text(&g, y);
            size_t n = strlen(t);
            while (n && t[n - 1] == ' ')
                t[--n] = '\0';
            if (y >= want || strcmp(t, cases[i].want[y]))
                fail_msg("case %zu line %d: '%s', want '%s'", i, y, t,
                         y < want ? cases[i].want[y] : "(none)");
            free(t);
        }
        assert_int_equal(rows, want);
        assert_int_equal(g.lost, 0);
        grid_fini(&g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_clear), cmocka_unit_test(test_text_clip),
        cmocka_unit_test(test_utf8),       cmocka_unit_test(test_wide),
        cmocka_unit_test(test_widths),
        cmocka_unit_test(test_box),        cmocka_unit_test(test_glyphs),
        cmocka_unit_test(test_cut_numbers),
        cmocka_unit_test(test_role_codes), cmocka_unit_test(test_dump_layers),
        cmocka_unit_test(test_rects),      cmocka_unit_test(test_wrap),
        cmocka_unit_test(test_wrap_cjk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
