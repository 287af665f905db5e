/* test_ui_script.c - the scripted mode: parsing (and its errors), keys,
 * clicks on header fields, hints, menu items and cells, resizing, play
 * ticks and quitting, all drawn into a grid without a terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "scene/scene_opts.h"
#include "ui/keys.h"
#include "ui/scene.h"
#include "ui/screen.h"
#include "ui/script.h"

static int setup(void **state)
{
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
    return 0;
}

static void test_parse(void **state)
{
    Script s;
    char why[200];
    assert_int_equal(script_parse("Right PgDn # comment q\n  a Enter tick 3 "
                                  "click 4 5 resize 90x30 wheel up act help "
                                  "seek 2 wait dump tick",
                                  &s, why, sizeof why), CV_OK);
    assert_int_equal(s.n, 15);
    assert_int_equal(s.items[0].key, keys_parse("Right"));
    assert_int_equal(s.items[1].key, keys_parse("PgDn"));
    assert_int_equal(s.items[2].key, 'a');
    for (int i = 4; i < 7; i++)
        assert_int_equal(s.items[i].kind, SCRIPT_TICK);
    assert_int_equal(s.items[7].kind, SCRIPT_CLICK);
    assert_int_equal(s.items[7].a, 4);
    assert_int_equal(s.items[7].b, 5);
    assert_int_equal(s.items[8].kind, SCRIPT_RESIZE);
    assert_int_equal(s.items[8].a, 90);
    assert_int_equal(s.items[9].a, -1);
    assert_int_equal(s.items[10].req.act, ACT_HELP);
    assert_int_equal(s.items[11].req.act, ACT_SEEK);
    assert_int_equal(s.items[11].req.a, 2);
    assert_int_equal(s.items[12].kind, SCRIPT_WAIT);
    assert_int_equal(s.items[13].kind, SCRIPT_DUMP);
    assert_int_equal(s.items[14].kind, SCRIPT_TICK);
    script_fini(&s);
    assert_int_equal(script_parse("", &s, why, sizeof why), CV_OK);
    assert_int_equal(s.n, 0);
    script_fini(&s);
}

static void test_parse_errors(void **state)
{
    static const char *const bad[] = {
        "Right\nBogus", "click 1", "click x 2", "resize 10", "resize 0x5",
        "wheel sideways", "act nosuch", "seek -1", "act none",
        "select 1 bogus 2", "select 1 recv",
    };
    Script s;
    char why[200];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        assert_int_equal(script_parse(bad[i], &s, why, sizeof why), CV_ERR_ARG);
        assert_non_null(strstr(why, "line "));
        assert_null(s.items);
    }
    script_parse("Right\n\nBogus", &s, why, sizeof why);
    assert_non_null(strstr(why, "line 3: 'Bogus'"));
}

/* A script is bounded: ticks and keys up to SCRIPT_MAX_FRAMES frames in
 * all are taken, one more is refused with a sentence naming its line (the
 * buffer filled with garbage first: the sentence must be written whole). */
static void test_parse_limit(void **state)
{
    size_t n = SCRIPT_MAX_FRAMES / 100000 + 1, len = 16 * n + 16;
    char *text = calloc(len, 1), why[200];
    Script s;
    assert_non_null(text);
    for (size_t i = 0; i + 1 < n; i++)
        strcat(text, "tick 100000\n");
    memset(why, 'E', sizeof why);
    assert_int_equal(script_parse(text, &s, why, sizeof why), CV_OK);
    assert_int_equal(s.n, (size_t)SCRIPT_MAX_FRAMES);
    script_fini(&s);
    strcat(text, "Right\n");
    memset(why, 'E', sizeof why);
    assert_int_equal(script_parse(text, &s, why, sizeof why), CV_ERR_LIMIT);
    assert_non_null(memchr(why, '\0', sizeof why));
    assert_non_null(strstr(why, "more than"));
    assert_true(!strncmp(why, "line ", 5));
    assert_null(s.items);
    free(text);
}

/* An App and a grid for a script. */
typedef struct {
    App app;  /* the state */
    Grid g;   /* the last frame */
    int drawn;/* frames drawn by the last run */
} Run;

static void start(Run *r, CollKind k, int p, int w, int h)
{
    AppOptions o = app_options(k, NULL, p, true);
    char why[200];
    assert_int_equal(app_init(&r->app, &o, why, sizeof why), CV_OK);
    r->app.view.term_w = w;
    r->app.view.term_h = h;
    /* these panels are tested on their own; text here is the picture's */
    r->app.view.show[VIEW_TOPOLOGY] = r->app.view.show[VIEW_TIMELINE] = false;
    grid_init(&r->g, w, h, false);
}

static void play(Run *r, const char *text, int frames)
{
    Script s;
    char why[200];
    assert_int_equal(script_parse(text, &s, why, sizeof why), CV_OK);
    ScriptRun run = {.frames = frames};
    r->drawn = script_run(&r->app, &s, &run, &r->g);
    script_fini(&s);
}

static void stop(Run *r)
{
    grid_fini(&r->g);
    app_fini(&r->app);
}

/* Where text first appears on the screen; false when it does not. */
static bool find(const Grid *g, const char *text, int *x, int *y)
{
    size_t n = strlen(text);
    for (*y = 0; *y < g->h; (*y)++)
        for (*x = 0; *x + (int)n <= g->w; (*x)++) {
            size_t i = 0;
            while (i < n && grid_cat(g, *x + (int)i, *y)->ch ==
                                (uint32_t)(unsigned char)text[i])
                i++;
            if (i == n)
                return true;
        }
    return false;
}

static void test_keys_and_frames(void **state)
{
    Run r;
    start(&r, COLL_ALLREDUCE, 8, 100, 30);
    play(&r, "Right Right PgDn Left", 0);
    assert_int_equal(r.drawn, 4);
    assert_int_equal(r.app.scene->step, 2);
    int x, y;
    assert_true(find(&r.g, "step 2 of 15", &x, &y));
    assert_int_equal(y, 1);
    play(&r, "Space", 6); /* one key, then five ticks of play */
    assert_int_equal(r.drawn, 6);
    assert_int_equal(r.app.scene->step, 7);
    play(&r, "End Right", 0);
    assert_true(find(&r.g, "That was the last step", &x, &y));
    assert_int_equal(y, r.g.h - 1);
    play(&r, "Home q Right Right", 0);
    assert_int_equal(r.drawn, 2); /* q ends the run */
    assert_int_equal(r.app.scene->step, 0);
    stop(&r);
}

/* Clicks: a header field opens its menu, a menu item is picked, a status
 * hint acts, a buffer cell is selected, a click elsewhere closes menus. */
static void test_clicks(void **state)
{
    Run r;
    char cmd[64];
    int x, y;
    start(&r, COLL_ALLREDUCE, 8, 120, 40);
    play(&r, "Right", 0);
    assert_true(find(&r.g, "ring", &x, &y));
    snprintf(cmd, sizeof cmd, "click %d %d", x + 1, y);
    play(&r, cmd, 0);
    assert_int_equal(r.app.mode.menu.kind, MENU_ALGO);
    assert_true(find(&r.g, "butterfly", &x, &y));
    snprintf(cmd, sizeof cmd, "click %d %d", x, y);
    play(&r, cmd, 0);
    assert_int_equal(r.app.mode.menu.kind, MENU_NONE);
    assert_string_equal(r.app.scene->algo->name, "butterfly");
    assert_true(find(&r.g, "c collective", &x, &y));
    snprintf(cmd, sizeof cmd, "click %d %d", x + 3, y);
    play(&r, cmd, 0);
    assert_int_equal(r.app.mode.menu.kind, MENU_COLL);
    play(&r, "click 119 38", 0); /* outside the menu */
    assert_int_equal(r.app.mode.menu.kind, MENU_NONE);
    play(&r, "Right", 0);
    assert_true(find(&r.g, "r2 ", &x, &y));
    snprintf(cmd, sizeof cmd, "click %d %d", x + 4, y);
    play(&r, cmd, 0);
    assert_int_equal(r.app.view.sel_rank, 2);
    assert_int_equal(r.app.view.sel_buf, BUF_SEND);
    assert_int_equal(r.app.view.sel_elem, 0);
    assert_true(find(&r.g, "r2 send[0]: rank 2 at 0", &x, &y));
    assert_true(find(&r.g, "history: not written yet (input)", &x, &y));
    stop(&r);
}

static void test_resize_and_help(void **state)
{
    Run r;
    int x, y;
    start(&r, COLL_GATHER, 5, 100, 30);
    play(&r, "resize 79x30", 0);
    assert_true(r.app.view.term_w == 79 && r.g.w == 79);
    assert_true(find(&r.g, "needs at least 80x24", &x, &y));
    play(&r, "Right resize 80x24", 0);
    assert_false(find(&r.g, "needs at least", &x, &y));
    assert_true(find(&r.g, "step 1 of", &x, &y));
    play(&r, "?", 0);
    assert_true(find(&r.g, "Help", &x, &y));
    assert_true(find(&r.g, action_help(ACT_NEXT), &x, &y));
    play(&r, "Down Down", 0);
    assert_int_equal(r.app.mode.kind, MODE_HELP);
    assert_int_equal(r.app.mode.help_top, 2);
    play(&r, "n", 0); /* any other key closes help, and does nothing else */
    assert_int_equal(r.app.mode.kind, MODE_NONE);
    assert_int_equal(r.app.scene->step, 1);
    play(&r, "? q", 0); /* q too: it closes help, collviz goes on */
    assert_int_equal(r.app.mode.kind, MODE_NONE);
    assert_false(r.app.status.quit);
    play(&r, "wheel down wheel down wheel up", 0);
    assert_int_equal(r.app.view.scroll_rank, 1);
    stop(&r);
}

/* Text entry in the size menu: a digit starts the prompt on the status
 * line, Backspace erases, Enter sets the size (the step stays); a size
 * the scene cannot take is refused with the command line's sentence;
 * Esc drops the text; "other..." opens an empty prompt. */
static void test_type_a_size(void **state)
{
    Run r;
    int x, y;
    start(&r, COLL_ALLGATHER, 3, 100, 30);
    play(&r, "Right s 6 4 X", 0);
    assert_int_equal(r.app.mode.kind, MODE_TEXT);
    assert_true(find(&r.g, "Size in bytes, e.g. 64K or 3M", &x, &y));
    assert_int_equal(y, r.g.h - 1);
    assert_true(find(&r.g, "64X", &x, &y));
    play(&r, "Backspace K q Enter", 0); /* q is typed, not quit */
    assert_false(r.app.status.quit);
    assert_true(r.app.status.error);
    assert_non_null(strstr(r.app.status.msg, "Size '64Kq' is not a size"));
    play(&r, "s 9 6 K Enter", 0);
    assert_int_equal(r.app.mode.kind, MODE_NONE);
    assert_int_equal(r.app.scene->bytes, 96 << 10);
    assert_int_equal(r.app.scene->step, 1);
    assert_true(find(&r.g, "| 96 KiB |", &x, &y));
    play(&r, "s 6 4 Enter", 0); /* 64 bytes: not 3 blocks of floats */
    assert_int_equal(r.app.scene->bytes, 96 << 10);
    assert_string_equal(r.app.status.msg,
                        "Size 64 bytes is not a whole number of blocks: the "
                        "size of allgather on 3 ranks is 3 equal blocks, so "
                        "it must be a multiple of 12 bytes (3 float); the "
                        "nearest are 60 and 72.");
    assert_true(find(&r.g, "Size 64 bytes is not", &x, &y));
    play(&r, "s 1 Esc", 0);
    assert_int_equal(r.app.mode.kind, MODE_NONE);
    assert_int_equal(r.app.scene->bytes, 96 << 10);
    assert_false(find(&r.g, "Size in bytes", &x, &y));
    play(&r, "s", 0);
    assert_string_equal(r.app.mode.menu.label[r.app.mode.menu.n - 1],
                        "other... (or type a size)");
    char click[32];
    assert_true(find(&r.g, "other...", &x, &y));
    snprintf(click, sizeof click, "click %d %d", x, y);
    play(&r, click, 0);
    assert_int_equal(r.app.mode.kind, MODE_TEXT);
    assert_string_equal(r.app.mode.text.text, "");
    play(&r, "2 4 0 Enter", 0);
    assert_int_equal(r.app.scene->bytes, 240);
    assert_false(r.app.status.error);
    stop(&r);
}

/* A prompt and its text wider than the line (w at 80 columns, the screen's
 * file name, then the same with a prompt made longer): the name's end
 * shows after an ellipsis up to the cursor in the last column, and the
 * prompt is whole where it leaves the name 20 columns, else cut with an
 * ellipsis. */
static void test_prompt_cut(void **state)
{
    Run r;
    int x, y;
    start(&r, COLL_ALLREDUCE, 4, 80, 24);
    play(&r, "w", 0);
    assert_int_equal(r.app.mode.kind, MODE_TEXT);
    const char *name = r.app.mode.text.text, *tail;
    size_t n = strlen(name);
    const char *whole = "Write the screen as SVG to (Enter writes, Esc "
                        "cancels): ";
    assert_true(strlen(whole) + n > 79 && n > 20);
    tail = name + n - 12;
    assert_true(find(&r.g, whole, &x, &y));
    assert_true(x == 0 && y == r.g.h - 1);
    assert_true(find(&r.g, tail, &x, &y));
    assert_int_equal(x + 12, 79); /* the cursor after it */
    int ell = 0, at = -1;
    for (int i = 0; i < r.g.w; i++)
        if (grid_cat(&r.g, i, y)->ch == 0x2026)
            ell++, at = i;
    assert_int_equal(ell, 1);                       /* the name's */
    assert_int_equal(at, (int)strlen(whole));       /* after the prompt */
    /* a prompt of 70 columns: cut in 59 (its ellipsis last), a blank, the
       name's ellipsis and its last 18 */
    snprintf(r.app.mode.text.prompt, sizeof r.app.mode.text.prompt,
             "%s", "Write the topology of every step from this one as SVG "
             "frames, to here: ");
    play(&r, "End", 0);
    ell = 0;
    for (int i = 0; i < r.g.w; i++)
        ell += grid_cat(&r.g, i, y)->ch == 0x2026;
    assert_int_equal(ell, 2);
    assert_int_equal(grid_cat(&r.g, 60, y)->ch, 0x2026);
    assert_true(find(&r.g, name + n - 18, &x, &y));
    assert_int_equal(x, 61);
    stop(&r);
}

/* A panel switched on where the layout has no room for it says so and
 * names the key that shows it: the chart (3) beside torus:4x4's drawing
 * at 100x30 (F draws it over the whole screen); at 160x50 it shows, and
 * nothing is said. */
static void test_no_room_said(void **state)
{
    Run r;
    int x, y;
    AppOptions o = app_options(COLL_ALLREDUCE, "torus", 16, true);
    SpecMachine sm;
    CliErr ce;
    char why[200];
    assert_int_equal(spec_machine_name(&sm, "torus:4x4", &ce), 0);
    o.machine = &sm;
    assert_int_equal(app_init(&r.app, &o, why, sizeof why), CV_OK);
    r.app.view.term_w = 100, r.app.view.term_h = 30;
    grid_init(&r.g, 100, 30, false);
    play(&r, "3", 0);
    assert_true(r.app.view.show[VIEW_CHART]);
    assert_string_equal(r.app.status.msg, "No room for the chart at 100x30: "
                                          "F draws it over the whole screen.");
    play(&r, "3 resize 160x50", 0);
    r.app.status.msg[0] = '\0';
    play(&r, "3", 0);
    assert_true(find(&r.g, "Chart", &x, &y));
    assert_string_equal(r.app.status.msg, "");
    stop(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_limit),
        cmocka_unit_test(test_keys_and_frames),
        cmocka_unit_test(test_clicks),
        cmocka_unit_test(test_resize_and_help),
        cmocka_unit_test(test_type_a_size),
        cmocka_unit_test(test_prompt_cut),
        cmocka_unit_test(test_no_room_said),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
