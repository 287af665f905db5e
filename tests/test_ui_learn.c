/* test_ui_learn.c - the lesson player without a terminal: golden screens
 * (the list, a text page beside its picture, a checkpoint answered wrong
 * and right) in English and Chinese at 80x24 and 120x40, and what the
 * learner does: resuming, three wrong answers, skipping, switching
 * language at the same place, a corrupt progress file set aside, and a
 * state directory that cannot be written. COLLVIZ_UPDATE_GOLDEN=1 writes
 * new golden screens (review the diff of tests/golden/). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "golden_fixture.h"
#include "planted_fixture.h"
#include "lesson/lint.h"
#include "ui/learn.h"
#include "ui/term.h"
#include "ui/scene.h"


/* The lessons the tests play, by their place in the course:
 * 02-broadcast and 03-ring-allreduce. */
#define BROADCAST 1
#define RING 2
#define TORUS 14 /* 15-torus-and-mesh: scenes on -T machines */

static char root[64];  /* a fresh directory per test */
static char prog[128]; /* the progress file in it */

static int setup(void **state)
{
    snprintf(root, sizeof root, "/tmp/collviz-learn-XXXXXX");
    if (!mkdtemp(root))
        return -1;
    snprintf(prog, sizeof prog, "%s/lessons", root);
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
    return 0;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    ui_lang_use(UI_LANG_EN);
    return system(cmd);
}

static Learn *start(UiLang lang, const char *progress, int w, int h)
{
    Learn *l = malloc(sizeof *l);
    char why[600];
    assert_non_null(l);
    ui_lang_use(lang);
    if (learn_init(l, "lessons", lang, progress, why, sizeof why))
        fail_msg("learn_init: %s", why);
    l->w = w, l->h = h;
    return l;
}

static void stop(Learn *l)
{
    learn_fini(l);
    free(l);
}

static void open_lesson(Learn *l, int i)
{
    char why[600];
    if (learn_open(l, i, why, sizeof why))
        fail_msg("learn_open: %s", why);
}

/* Type s: '\n' is Enter, every other byte itself. */
static void type(Learn *l, const char *s)
{
    for (; *s; s++)
        learn_key(l, *s == '\n' ? '\n' : (unsigned char)*s);
}

/* Advance (Space) until the prompt of a checkpoint opens. */
static void to_check(Learn *l)
{
    for (int i = 0; i < 200 && !l->ask.open; i++)
        learn_key(l, ' ');
    assert_true(l->ask.open);
}

static char *screen(const Learn *l)
{
    Grid g;
    assert_int_equal(grid_init(&g, l->w, l->h, false), CV_OK);
    learn_draw(l, &g);
    char *t = grid_dump(&g, true);
    grid_fini(&g);
    return t;
}

static void golden(const Learn *l, const char *what)
{
    char name[128];
    snprintf(name, sizeof name, "learn_%s_%s_%dx%d", what,
             ui_lang_code(l->lang), l->w, l->h);
    char *got = screen(l);
    golden_check(name, got);
    free(got);
}

/* The whole text of a file ("" when it cannot be read). */
static char *read_file(const char *path)
{
    char *t = golden_read(path);
    return t ? t : calloc(1, 1);
}

static void test_goldens(void **state)
{
    static const int sizes[][2] = {{80, 24}, {120, 40}};
    for (int lang = 0; lang < 2; lang++)
        for (int s = 0; s < 2; s++) {
            remove(prog);
            Learn *l = start((UiLang)lang, prog, sizes[s][0], sizes[s][1]);
            /* the broadcast lesson's first checkpoint, wrong then right */
            open_lesson(l, BROADCAST);
            to_check(l);
            type(l, "200\n");
            assert_int_equal(l->ask.tries, 1);
            golden(l, "check_wrong");
            type(l, "224\n");
            assert_false(l->ask.open);
            golden(l, "check_right");
            learn_key(l, 'o');
            golden(l, "list");
            /* the ring allreduce lesson at its step 2, the transfers listed */
            open_lesson(l, RING);
            for (int i = 0; i < 40 && !(l->cur.step == 2 &&
                 l->cur.les.items[l->cur.pos - 1].kind == LI_BLOCK); i++)
                learn_key(l, ' ');
            assert_int_equal(l->cur.step, 2);
            assert_true(l->cur.picture);
            assert_int_equal(l->app.scene->step, 2);
            assert_int_equal(l->app.scene->call.count, 16);
            golden(l, "page");
            stop(l);
        }
}

/* The progress line of lesson name ("" when none). */
static void progress_line(const char *name, char *out, size_t n)
{
    char *t = read_file(prog);
    const char *p = t ? strstr(t, name) : NULL;
    snprintf(out, n, "%.*s", p ? (int)strcspn(p, "\n") : 0, p ? p : "");
    free(t);
}

static void test_resume(void **state)
{
    Learn *l = start(UI_LANG_EN, prog, 100, 30);
    open_lesson(l, BROADCAST);
    to_check(l);
    type(l, "7\n224\n");
    size_t pos = l->cur.pos;
    assert_int_equal(l->cur.les.items[pos - 1].kind, LI_PARA);
    char line[200];
    progress_line("02-broadcast", line, sizeof line);
    assert_string_equal(line + strcspn(line, "+."), "+......"); /* of 7 */
    learn_key(l, 'q');
    assert_true(l->quit);
    stop(l);
    l = start(UI_LANG_EN, prog, 100, 30);
    open_lesson(l, BROADCAST);
    assert_int_equal(l->cur.pos, pos);
    /* the text scrolls up as far as it goes, and back */
    int max = learn_scroll_max(l);
    assert_true(max > 0);
    for (int i = 0; i < max + 5; i++)
        learn_key(l, TERM_KEY_UP);
    assert_int_equal(l->cur.scroll, max);
    for (int i = 0; i < max + 5; i++)
        learn_key(l, TERM_KEY_DOWN);
    assert_int_equal(l->cur.scroll, 0);
    assert_false(l->ask.open);
    /* back one paragraph: the answered checkpoint is not asked again */
    learn_key(l, TERM_KEY_PPAGE);
    assert_int_equal(l->cur.les.items[l->cur.pos - 1].kind, LI_CHECK);
    learn_key(l, ' ');
    assert_false(l->ask.open);
    assert_int_equal(l->cur.pos, pos);
    stop(l);
}

static void test_wrong_skip_reveal(void **state)
{
    Learn *l = start(UI_LANG_EN, prog, 100, 30);
    open_lesson(l, BROADCAST);
    to_check(l);
    type(l, "1\n2\n");
    assert_true(l->ask.open);
    type(l, "3\n");
    assert_false(l->ask.open); /* shown after three tries */
    assert_non_null(strstr(l->msg, "The answer is 224"));
    learn_key(l, ' ');
    to_check(l);
    learn_key(l, 27);
    assert_false(l->ask.open);
    learn_key(l, 's');
    to_check(l);
    learn_key(l, 27);
    learn_key(l, 'r');
    assert_non_null(strstr(l->msg, "The answer is 5"));
    char line[200];
    progress_line("02-broadcast", line, sizeof line);
    assert_non_null(strstr(line, " rsr."));
    stop(l);
}

/* P9: at a checkpoint the prompt takes the keys, so s or r typed alone
 * and Enter skip the checkpoint or show its answer, as s and r do
 * outside it; neither counts as a try. */
static void test_prompt_s_r(void **state)
{
    Learn *l = start(UI_LANG_EN, prog, 100, 30);
    open_lesson(l, BROADCAST);
    to_check(l);
    assert_true(l->ask.open);
    type(l, " r \n");
    assert_false(l->ask.open);
    assert_non_null(strstr(l->msg, "The answer is 224"));
    assert_int_equal(l->ask.tries, 0);
    learn_key(l, ' ');
    to_check(l);
    assert_true(l->ask.open);
    type(l, "S\n");
    assert_non_null(strstr(l->msg, "Skipped"));
    char line[200];
    progress_line("02-broadcast", line, sizeof line);
    assert_non_null(strstr(line, " rs"));
    stop(l);
}

static void test_utf8_answer(void **state)
{
    Learn *l = start(UI_LANG_ZH, prog, 100, 30);
    open_lesson(l, BROADCAST);
    to_check(l);
    type(l, "两百");
    assert_string_equal(l->ask.text, "两百");
    learn_key(l, TERM_KEY_BACKSPACE);
    assert_string_equal(l->ask.text, "两");
    learn_key(l, TERM_KEY_BACKSPACE);
    learn_key(l, TERM_KEY_BACKSPACE);
    assert_int_equal(l->ask.len, 0);
    type(l, "224\n");
    assert_non_null(strstr(l->msg, "正确"));
    stop(l);
}

static void test_switch_language(void **state)
{
    Learn *l = start(UI_LANG_EN, prog, 100, 30);
    open_lesson(l, RING);
    to_check(l); /* the ring allreduce lesson's first checkpoint */
    learn_key(l, 27);
    long d0, t0, d1, t1;
    progress_position(&l->cur.les, l->cur.pos, &d0, &t0);
    long step = l->cur.step;
    learn_key(l, 'l');
    assert_int_equal(l->lang, UI_LANG_ZH);
    assert_non_null(strstr(l->cur.les.title, "环形"));
    progress_position(&l->cur.les, l->cur.pos, &d1, &t1);
    assert_int_equal(d0, d1);
    assert_int_equal(l->cur.step, step);
    assert_int_equal(l->app.scene->step, (size_t)step);
    learn_key(l, ' '); /* the same checkpoint, asked in Chinese */
    assert_true(l->ask.open);
    assert_non_null(strstr(l->cur.les.items[l->ask.item].text, "进程 2"));
    type(l, "2\n");
    assert_non_null(strstr(l->msg, "正确"));
    learn_key(l, 'l');
    assert_int_equal(l->lang, UI_LANG_EN);
    stop(l);
}

static void test_corrupt_progress(void **state)
{
    FILE *f = fopen(prog, "w");
    fputs("collviz lesson progress 1\n02-broadcast 4 x +\n", f);
    fclose(f);
    Learn *l = start(UI_LANG_EN, prog, 100, 30);
    assert_non_null(strstr(l->msg, "set aside as"));
    char bad[160];
    snprintf(bad, sizeof bad, "%s.bad", prog);
    assert_int_equal(access(bad, F_OK), 0);
    assert_int_equal(access(prog, F_OK), -1);
    open_lesson(l, BROADCAST);
    to_check(l);
    type(l, "224\n");
    stop(l);
    char line[200];
    progress_line("02-broadcast", line, sizeof line);
    assert_non_null(strstr(line, "+..."));
}

/* U2: at the player's smallest size the list scrolls: the highlight on
 * the last lesson is on screen, with that lesson's title. */
static void test_list_scrolls(void **state)
{
    Learn *l = start(UI_LANG_EN, prog, 80, 16);
    assert_true(l->nlist > 11); /* more lessons than rows */
    l->screen = LS_LIST;
    for (size_t i = 0; i < l->nlist; i++)
        l->sel = (int)i;
    char *t = screen(l), num[8];
    snprintf(num, sizeof num, "%2d", l->list[l->nlist - 1].number);
    if (!strstr(t, l->titles[l->nlist - 1]) || !strstr(t, num))
        fail_msg("the last lesson is not shown:\n%s", t);
    free(t);
    stop(l);
}

/* U12: Esc cancels and never quits: Esc Esc from a lesson goes back to
 * the list and stays there, with a sentence on how to quit; q quits. */
static void test_esc_stays(void **state)
{
    Learn *l = start(UI_LANG_EN, prog, 100, 30);
    open_lesson(l, BROADCAST);
    learn_key(l, 27); /* a second Esc after a prompt's keeps the lesson */
    assert_int_equal(l->screen, LS_LESSON);
    assert_non_null(strstr(l->msg, "o opens the lessons"));
    learn_key(l, 'o');
    assert_int_equal(l->screen, LS_LIST);
    learn_key(l, 27);
    assert_false(l->quit);
    assert_int_equal(l->screen, LS_LIST);
    assert_non_null(strstr(l->msg, "q quits the player"));
    learn_key(l, 'q');
    assert_true(l->quit);
    stop(l);
}

/* T12: the list opened from the visualizer (L) says what q and Esc do
 * there, go back to it, and both do; a number typed chooses the lesson of
 * that number (two digits in a row: 15, 20), and Enter opens it; alone,
 * the player's list keeps "q quit" and its Esc, and takes numbers too. */
static void test_list_numbers(void **state)
{
    static const struct { const char *keys; int number; } typed[] = {
        {"6\n", 6}, {"15\n", 15}, {"20\n", 20}, {"62\n", 2}, {"1\n", 1},
    };
    for (int lang = 0; lang < 2; lang++) {
        Learn *l = start((UiLang)lang, prog, 100, 30);
        l->back = true;
        char *t = screen(l);
        const char *hint = lang ? "q/Esc \u8fd4\u56de\u53ef\u89c6\u5316"
                                  "\u754c\u9762"
                                : "q/Esc back to the visualizer";
        if (!strstr(t, hint) || strstr(t, lang ? "q \u9000\u51fa" : "q quit"))
            fail_msg("the list's footer does not say '%s':\n%s", hint, t);
        free(t);
        for (size_t i = 0; i < sizeof typed / sizeof *typed; i++) {
            type(l, typed[i].keys);
            assert_int_equal(l->screen, LS_LESSON);
            assert_int_equal(l->list[l->cur.index].number, typed[i].number);
            if (i == 0) { /* a lesson's footer says where q goes too */
                t = screen(l);
                const char *q = lang ? "q \u8fd4\u56de\u53ef\u89c6\u5316"
                                       "\u754c\u9762"
                                     : "q back to the visualizer";
                if (!strstr(t, q) ||
                    strstr(t, lang ? "q \u9000\u51fa" : "q quit"))
                    fail_msg("the lesson's footer does not say '%s':\n%s",
                             q, t);
                free(t);
            }
            learn_key(l, 'o');
        }
        learn_key(l, 27);
        assert_true(l->quit);
        l->quit = false;
        learn_key(l, 'q');
        assert_true(l->quit);
        l->quit = false;
        l->back = false; /* alone: Esc stays, a number still chooses */
        t = screen(l);
        assert_non_null(strstr(t, lang ? "q \u9000\u51fa" : "q quit"));
        free(t);
        learn_key(l, 27);
        assert_false(l->quit);
        type(l, "8\n");
        assert_int_equal(l->list[l->cur.index].number, 8);
        stop(l);
    }
}

/* T12: a picture's title is cut before a number's word, never inside the
 * number: lesson 6's halving-doubling on 13 ranks at 100x30 never reads
 * "-p 1" as one rank. */
static void test_title_numbers(void **state)
{
    Learn *l = start(UI_LANG_EN, prog, 100, 30);
    open_lesson(l, 5);
    for (int k = 0; k < 100 && !(l->cur.picture &&
         l->app.scene->call.nranks == 13); k++) {
        if (l->ask.open)
            learn_key(l, 27), learn_key(l, 's');
        learn_key(l, ' ');
    }
    assert_int_equal(l->app.scene->call.nranks, 13);
    char *t = screen(l);
    if (strstr(t, "-p 1\u2026") || !strstr(t, "halving-doubling -p"))
        fail_msg("the title cuts the rank count:\n%s", t);
    free(t);
    stop(l);
}

/* L9: PgUp on a lesson's first page keeps it (no empty "0/N"). */
static void test_back_from_first_page(void **state)
{
    Learn *l = start(UI_LANG_EN, prog, 100, 30);
    open_lesson(l, BROADCAST);
    size_t first = l->cur.pos;
    assert_true(first > 0);
    learn_key(l, TERM_KEY_PPAGE);
    assert_int_equal(l->cur.pos, first);
    assert_non_null(strstr(l->msg, "first page"));
    learn_key(l, ' ');
    learn_key(l, TERM_KEY_PPAGE);
    assert_int_equal(l->cur.pos, first);
    stop(l);
}

/* D3: a lesson opened directly (collviz learn N) still shows why its
 * progress was set aside, or why none can be kept (no HOME, a path too
 * long), and the sentence is kept for the exit. */
static void test_open_says_progress(void **state)
{
    FILE *f = fopen(prog, "w");
    fputs("garbage\n", f);
    fclose(f);
    Learn *l = start(UI_LANG_EN, prog, 100, 30);
    open_lesson(l, BROADCAST);
    if (!strstr(l->msg, "set aside as"))
        fail_msg("after opening: '%s'", l->msg);
    stop(l);
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    unsetenv("HOME");
    unsetenv("XDG_STATE_HOME");
    l = start(UI_LANG_EN, NULL, 100, 30);
    open_lesson(l, BROADCAST);
    if (!strstr(l->msg, "HOME"))
        fail_msg("without HOME: '%s'", l->msg);
    assert_non_null(strstr(l->prog_why, "HOME"));
    stop(l);
    if (home)
        setenv("HOME", home, 1);
    free(home);
    char *longp = malloc(5001);
    assert_non_null(longp);
    memset(longp, 'a', 5000);
    longp[0] = '/', longp[5000] = '\0';
    setenv("XDG_STATE_HOME", longp, 1);
    free(longp);
    l = start(UI_LANG_EN, NULL, 100, 30);
    open_lesson(l, BROADCAST);
    if (!strstr(l->msg, "too long"))
        fail_msg("a long path: '%s'", l->msg);
    stop(l);
    unsetenv("XDG_STATE_HOME");
}

/* XDG_STATE_HOME is a file: nothing can be saved, one sentence says so,
 * and the lesson plays. */
static void test_state_unwritable(void **state)
{
    char file[160];
    snprintf(file, sizeof file, "%s/state", root);
    FILE *f = fopen(file, "w");
    fclose(f);
    setenv("XDG_STATE_HOME", file, 1);
    Learn *l = start(UI_LANG_EN, NULL, 100, 30);
    assert_false(l->prog_ok);
    assert_true(l->msg[0] != '\0');
    assert_null(strchr(l->msg, '\n'));
    open_lesson(l, BROADCAST);
    to_check(l);
    type(l, "224\n");
    assert_non_null(strstr(l->msg, "Right"));
    stop(l);
    unsetenv("XDG_STATE_HOME");
}

/* X1 through a lesson: a @run of `-B cuda`, played from a folder that
 * holds planted copies of the driver's own libraries with an empty element
 * in LD_LIBRARY_PATH (planted_fixture.h), runs the fake driver with the
 * system's libraries and loads no planted one. */
static void test_run_driver_deps(void **state)
{
#ifdef COLLVIZ_WITH_CUDA
    Learn *l = start(UI_LANG_EN, prog, 100, 30);
    char bin[PATH_MAX];
    assert_non_null(realpath(getenv("COLLVIZ") ? getenv("COLLVIZ")
                                               : "build/collviz", bin));
    l->self = bin;
    Planted pl;
    if (!planted_setup(&pl)) {
        stop(l);
        skip(); /* the fake driver and the planted libraries are built */
    }
    unsetenv("COLLVIZ_LIBCUDA");
    learn_run(l, "collviz perf allreduce -p 1 -b 8 -e 8 -n 1 -w 0 -c 0 "
                 "-B cuda");
    learn_run_wait(l);
    bool loaded = planted_loaded(&pl);
    planted_teardown(&pl);
    if (loaded || !strstr(l->pager, "Fake CUDA") ||
        !strstr(l->pager, "[exit status 0 after "))
        fail_msg("planted library %s:\n%s", loaded ? "loaded" : "not loaded",
                 l->pager);
    stop(l);
#else
    skip();
#endif
}

/* @run's commands: one that prints runs as collviz and its output and
 * status fill the pager; one that opens the TUI is explained; anything
 * but collviz is refused. */
static void test_run(void **state)
{
    Learn *l = start(UI_LANG_EN, prog, 100, 30);
    l->self = getenv("COLLVIZ") ? getenv("COLLVIZ") : "build/collviz";
    open_lesson(l, 0);
    for (int i = 0; i < 20 && l->cur.les.items[l->cur.pos - 1].kind != LI_RUN;
         i++)
        learn_key(l, ' ');
    learn_key(l, 'x'); /* lesson 1's first @run: collviz list */
    assert_int_equal(l->screen, LS_PAGER);
    learn_run_wait(l);
    assert_string_equal(l->pager_title, "$ collviz list");
    assert_non_null(strstr(l->pager, "halving-doubling"));
    assert_non_null(strstr(l->pager, "[exit status 0 after "));
    learn_key(l, TERM_KEY_DOWN);
    assert_int_equal(l->pager_top, 1);
    learn_key(l, 'q');
    assert_int_equal(l->screen, LS_LESSON);
    assert_false(l->quit);
    learn_run(l, "collviz trace allreduce -p 3 -s 7");
    learn_run_wait(l);
    assert_non_null(strstr(l->pager, "[exit status 2 after "));
    learn_run(l, "collviz broadcast -a binomial -p 8");
    assert_non_null(strstr(l->pager, "opens the interactive TUI"));
    learn_run(l, "collviz");
    assert_non_null(strstr(l->pager, "opens the interactive TUI"));
    /* U6: the TUI's help only prints: it runs */
    static const char *const helps[] = {"collviz --help", "collviz -h",
        "collviz tui --help", "collviz allreduce --help", "collviz -V"};
    for (size_t i = 0; i < sizeof helps / sizeof *helps; i++) {
        learn_run(l, helps[i]);
        learn_run_wait(l);
        if (!strstr(l->pager, i < 4 ? "usage: collviz" : "collviz ") ||
            !strstr(l->pager, "[exit status 0 after "))
            fail_msg("%s:\n%s", helps[i], l->pager);
    }
    learn_run(l, "collviz allreduce -p 4 --help"); /* more than help */
    assert_non_null(strstr(l->pager, "opens the interactive TUI"));
    learn_run(l, "ls /");
    assert_non_null(strstr(l->pager, "Only collviz commands"));
    /* a lesson writes no file: --json is off the allow-list, also when
       blanks push it out of sight or past the old 511-byte cut */
    char json[160], cmd[1024];
    snprintf(json, sizeof json, "%s/written.json", root);
    snprintf(cmd, sizeof cmd, "collviz perf allreduce -p 1 -b 8 -e 8 -n 1 "
             "-w 0 -c 0 --json %s", json);
    learn_run(l, cmd);
    assert_non_null(strstr(l->pager, "A lesson may not run this command"));
    assert_non_null(strstr(l->pager, "'--json'"));
    snprintf(cmd, sizeof cmd, "collviz perf allreduce -p 1 -b 8 -e 8 -n 1 "
             "-w 0 -c 0%480s--json %s", "", json);
    learn_run(l, cmd);
    assert_non_null(strstr(l->pager, "A lesson may not run this command"));
    assert_string_equal(strstr(l->pager, "collviz perf"), cmd); /* whole */
    assert_int_equal(access(json, F_OK), -1);
    /* a calibration run from a lesson is measured and shown, not saved */
    char cache[160];
    snprintf(cache, sizeof cache, "%s/cache", root);
    setenv("XDG_CACHE_HOME", cache, 1);
    learn_run(l, "collviz calibrate -p 1 --quick");
    learn_run_wait(l);
    if (!strstr(l->pager, "not saved") || !strstr(l->pager, "[exit status 0 "))
        fail_msg("pager:\n%s", l->pager);
    assert_int_equal(access(cache, F_OK), -1);
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
    learn_key(l, 27);
    assert_int_equal(l->screen, LS_LESSON);
    /* P10: a digit alone runs nothing (an answer typed a paragraph too
       early); x then a digit picks one of several commands */
    learn_key(l, '9');
    assert_int_equal(l->screen, LS_LESSON);
    assert_non_null(strstr(l->msg, "Press x first"));
    stop(l);
    l = start(UI_LANG_EN, prog, 100, 30);
    l->self = getenv("COLLVIZ") ? getenv("COLLVIZ") : "build/collviz";
    open_lesson(l, RING);
    for (int i = 0; i < 40 && (l->cur.les.items[l->cur.pos - 1].kind != LI_RUN
                               || !strchr(l->cur.les.items[l->cur.pos - 1].text,
                                          '\n')); i++)
        learn_key(l, ' ');
    learn_key(l, 'x');
    assert_int_equal(l->screen, LS_LESSON);
    assert_non_null(strstr(l->msg, "Which command?"));
    learn_key(l, '9');
    assert_non_null(strstr(l->msg, "fewer commands"));
    learn_key(l, 'x');
    learn_key(l, 27); /* Esc cancels the choice, nothing runs */
    assert_int_equal(l->screen, LS_LESSON);
    learn_key(l, '2');
    assert_int_equal(l->screen, LS_LESSON);
    learn_key(l, 'x');
    learn_key(l, '2');
    assert_int_equal(l->screen, LS_PAGER);
    assert_non_null(strstr(l->pager_title, "$ collviz"));
    learn_run_wait(l);
    stop(l);
}

/* Whether the line at s (to its newline) holds pat, either case. */
static bool strncasestr_line(const char *s, const char *pat)
{
    size_t n = strcspn(s, "\n"), m = strlen(pat);
    for (size_t i = 0; i + m <= n; i++)
        if (!strncasecmp(s + i, pat, m))
            return true;
    return false;
}

/* H4: a lesson's command runs in the background. The player takes keys
 * while it runs and its output streams into the pager; q stops the
 * command, not the player, and keeps what it printed; a second q goes
 * back to the lesson. The time and output limits stop a command with a
 * sentence that names the limit. U6: the pager scrolls no further than
 * its end (PgDn a thousand times leaves the last page in view), and
 * sideways. */
static void test_run_async(void **state)
{
    Learn *l = start(UI_LANG_EN, prog, 100, 30);
    l->self = getenv("COLLVIZ") ? getenv("COLLVIZ") : "build/collviz";
    open_lesson(l, 0);
    /* the command's program, a stand-in that prints and then waits, as a
       long timed run does; the command line is a real one of a lesson */
    const char *self = l->self;
    char slowbin[160];
    snprintf(slowbin, sizeof slowbin, "%s/slow.sh", root);
    FILE *f = fopen(slowbin, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\necho \"started $*\"\nexec sleep 100\n", f);
    fclose(f);
    chmod(slowbin, 0700);
    l->self = slowbin;
    const char *slow = "collviz perf allreduce -p 2 -b 1M -e 1M -n 1000000 "
                       "-w 0 -c 0";
    learn_run(l, slow);
    assert_int_equal(l->screen, LS_PAGER);
    assert_true(learn_running(l));
    for (int i = 0; i < 300 && !strstr(l->pager, "started perf"); i++)
        learn_run_poll(l, 100);
    if (!strstr(l->pager, "started perf allreduce -p 2"))
        fail_msg("no output streamed in 30 s:\n%s", l->pager);
    assert_true(learn_running(l)); /* it waits */
    learn_key(l, TERM_KEY_UP); /* keys are taken while it runs */
    learn_key(l, 'q');
    assert_false(learn_running(l));
    assert_int_equal(l->screen, LS_PAGER); /* the output stays */
    assert_false(l->quit);
    assert_non_null(strstr(l->pager, "started perf"));
    assert_non_null(strstr(l->pager, "[stopped by you after "));
    learn_key(l, 'q');
    assert_int_equal(l->screen, LS_LESSON);

    /* the time limit, made short: the command is ended and the sentence
       says why */
    l->job.limit_s = 1;
    learn_run(l, slow);
    learn_run_wait(l);
    if (!strstr(l->pager, "a lesson's command may run at most 1 s]"))
        fail_msg("time limit:\n%s", l->pager);
    l->job.limit_s = RUN_MAX_SECONDS;
    l->self = self;

    /* the output limit, made small: what fits is kept, whole lines */
    l->job.max_out = 1024;
    learn_run(l, "collviz list");
    learn_run_wait(l);
    if (!strstr(l->pager, "[stopped: its output passed 1 KiB"))
        fail_msg("output limit:\n%s", l->pager);
    assert_true(strlen(l->pager) < 1024 + 200);
    assert_true(l->job.len <= 1024 && l->job.raw[l->job.len - 1] == '\n');
    l->job.max_out = RUN_MAX_OUT;

    /* the pager stops at its end: the last line in view, not a blank page */
    learn_run(l, "collviz list");
    learn_run_wait(l);
    int lines = 0;
    for (const char *s = l->pager; *s; s++)
        lines += *s == '\n';
    lines++; /* the closing line has no newline after it */
    assert_true(lines > 30 - 3); /* more than one page at 100x30 */
    for (int i = 0; i < 1000; i++)
        learn_key(l, TERM_KEY_NPAGE);
    assert_int_equal(l->pager_top, lines - (30 - 3));
    Grid g;
    grid_init(&g, 100, 30, false);
    learn_draw(l, &g);
    char *screen = grid_dump(&g, false);
    assert_non_null(screen);
    /* row 27 of 30 (the last of text, above status and keys) */
    const char *row = screen;
    for (int y = 0; y < 30 - 3 && row; y++)
        if ((row = strchr(row, '\n')) != NULL)
            row++;
    assert_non_null(row);
    assert_memory_equal(row + strspn(row, " "), "[exit status 0 after ", 21);
    free(screen);
    learn_key(l, TERM_KEY_HOME);
    assert_int_equal(l->pager_top, 0);
    learn_key(l, TERM_KEY_END);
    assert_int_equal(l->pager_top, lines - (30 - 3));
    /* / finds a line and n the next one; a miss is said */
    learn_key(l, TERM_KEY_HOME);
    type(l, "/bruck\n");
    int at = l->pager_top;
    const char *line = l->pager;
    for (int k = 0; k < at; k++)
        line = strchr(line, '\n') + 1;
    if (!strncasestr_line(line, "bruck") && at < lines - (30 - 3))
        fail_msg("'/bruck' went to line %d: %.60s", at, line);
    learn_key(l, 'n');
    assert_true(l->pager_top != at || at == lines - (30 - 3));
    type(l, "/no such text\n");
    assert_non_null(strstr(l->msg, "Not found: no such text"));
    /* sideways: no further than the widest line needs */
    learn_key(l, TERM_KEY_RIGHT);
    assert_int_equal(l->pager_left, learn_pager_wide(l) < LEARN_HSHIFT_STEP
                     ? learn_pager_wide(l) : LEARN_HSHIFT_STEP);
    grid_fini(&g);
    stop(l);
}

static void test_too_small(void **state)
{
    Learn *l = start(UI_LANG_EN, prog, 59, 20);
    char *t = screen(l);
    assert_non_null(strstr(t, "needs at least 60x16"));
    free(t);
    stop(l);
}

/* Write a one-lesson course into root/course (both languages): text,
 * then scene, then "@step 2" and a paragraph. Returns its folder. */
static const char *one_lesson(const char *scene, const char *text)
{
    static char dir[128];
    char path[256];
    snprintf(dir, sizeof dir, "%s/course", root);
    mkdir(dir, 0700);
    for (int lang = 0; lang < 2; lang++) {
        snprintf(path, sizeof path, "%s/%s", dir, lang ? "zh" : "en");
        mkdir(path, 0700);
        snprintf(path, sizeof path, "%s/%s/01-one.txt", dir,
                 lang ? "zh" : "en");
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "Lesson 1: One\n\n%s\n\n@scene %s\n\nA step.\n\n"
                "@step 2\n\nThe end.\n", text, scene);
        fclose(f);
    }
    return dir;
}

static Learn *start_in(const char *dir, int w, int h)
{
    Learn *l = malloc(sizeof *l);
    char why[600];
    assert_non_null(l);
    ui_lang_use(UI_LANG_EN);
    if (learn_init(l, dir, UI_LANG_EN, prog, why, sizeof why))
        fail_msg("learn_init: %s", why);
    l->w = w, l->h = h;
    return l;
}

/* Scenes --check accepts at sizes far beyond what a picture can follow
 * element by element: the picture is built from at most
 * LINT_PICTURE_MAX_CELLS elements (the symbolic state the player keeps
 * and redraws on every key), says that it follows fewer, and steps. */
static void test_large_scenes(void **state)
{
    static const char *const scenes[] = {
        "allreduce -a ring -p 16 -s 32M",
        "allreduce -a ring -p 13 -s 4000012",
        "allreduce -a halving-doubling -p 8 -s 1G",
        "broadcast -a binomial -p 7 -s 64M",
        "allgather -a ring -p 16 -s 16M",
        "reducescatter -a ring -p 5 -s 20M",
        "alltoall -a pairwise -p 64 -s 4M",
        "allreduce -a ring -p 2 -s 256K",
    };
    for (size_t i = 0; i < sizeof scenes / sizeof *scenes; i++) {
        remove(prog);
        Learn *l = start_in(one_lesson(scenes[i], "Big."), 100, 30);
        open_lesson(l, 0);
        learn_key(l, ' '); /* the scene */
        if (!l->cur.picture)
            fail_msg("%s: no picture: %s", scenes[i], l->cur.pic_note);
        const Scene *sc = l->app.scene;
        /* the buffers within the bound; the algorithm's scratch is sized
           by the same count */
        unsigned long long cells = 0, all = 0;
        for (int b = 0; b < BUF_COUNT; b++) {
            all += sc->sim.base[b][sc->call.nranks];
            if (b != BUF_TMP)
                cells += sc->sim.base[b][sc->call.nranks];
        }
        if (cells > LINT_PICTURE_MAX_CELLS || all > 4 * LINT_PICTURE_MAX_CELLS)
            fail_msg("%s: the picture keeps %llu elements (%llu with "
                     "scratch)", scenes[i], cells, all);
        assert_int_equal(sc->call.count, lint_picture_count(&l->cur.spec));
        /* the counters are of the scene's whole size */
        assert_int_equal(sc->big.count, l->cur.spec.call.count);
        bool fewer = sc->call.count < l->cur.spec.call.count;
        char *t = screen(l);
        if (fewer != (strstr(t, "The picture follows") != NULL))
            fail_msg("%s: the picture does not say what it follows:\n%s",
                     scenes[i], t);
        free(t);
        learn_key(l, ' '), learn_key(l, ' '); /* @step 2 */
        assert_int_equal(l->app.scene->step, 2);
        learn_key(l, TERM_KEY_RIGHT);
        assert_int_equal(l->app.scene->step, 3);
        stop(l);
    }
}

/* A lesson with more checkpoints than any fixed table: every one of 70
 * can be answered and passed, and the results are saved and read back
 * (checkpoint 65 stayed open for ever when progress kept 64). */
/* A scene on a -T machine is drawn on it: lesson 15's torus allreduce on
 * torus:4x4, not the sentence that it is not made for a flat machine. */
static void test_machine_scene(void **state)
{
    Learn *l = start(UI_LANG_EN, prog, 100, 30);
    open_lesson(l, TORUS);
    to_check(l);
    char *t = screen(l);
    /* (its first checkpoint asks the steps: the total is hidden, X3) */
    if (!strstr(t, "step 0/?: allreduce -a torus") || strstr(t, "not made for"))
        fail_msg("the torus scene is not drawn:\n%s", t);
    free(t);
    stop(l);
}

static void test_many_checks(void **state)
{
    enum { NCHECKS = 70 };
    char dir[128], path[256];
    snprintf(dir, sizeof dir, "%s/course", root);
    mkdir(dir, 0700);
    for (int lang = 0; lang < 2; lang++) {
        snprintf(path, sizeof path, "%s/%s", dir, lang ? "zh" : "en");
        mkdir(path, 0700);
        snprintf(path, sizeof path, "%s/%s/01-many.txt", dir,
                 lang ? "zh" : "en");
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        /* ring allreduce on 4 ranks, out of place: a copy-in step, then
           p - 1 reduce-scatter and p - 1 allgather steps, 7 */
        fprintf(f, "Lesson 1: Many\n\n@scene allreduce -a ring -p 4 -s 64\n");
        for (int k = 0; k < NCHECKS; k++)
            fprintf(f, "\n@check Steps?\n@query steps\n@answer 7\n");
        fclose(f);
    }
    Learn *l = start_in(dir, 100, 30);
    open_lesson(l, 0);
    for (int k = 0; k < NCHECKS; k++) {
        to_check(l);
        size_t pos = l->cur.pos;
        type(l, "7\n");
        if (!strstr(l->msg, "Right"))
            fail_msg("checkpoint %d: '%s'", k + 1, l->msg);
        learn_key(l, ' ');
        if (l->cur.pos <= pos && k + 1 < NCHECKS)
            fail_msg("checkpoint %d is not passed: still at item %zu", k + 1,
                     pos);
    }
    learn_save(l);
    stop(l);
    char *t = read_file(prog);
    char want[NCHECKS + 1];
    memset(want, '+', NCHECKS);
    want[NCHECKS] = '\0';
    if (!strstr(t, want))
        fail_msg("progress file:\n%s", t);
    free(t);
}

/* U3: a paragraph of emoji is wrapped by its display width and never
 * drawn over the picture's frame, at every size; a tab inside a block is
 * shown as blanks to the next stop of 8, not as '?'. */
static void test_emoji_tabs(void **state)
{
    static const int sizes[][2] = {{60, 16}, {61, 17}, {80, 24}, {99, 30},
                                   {100, 30}, {121, 40}};
    char text[4096] = "Intro ";
    for (int i = 0; i < 300; i++)
        strcat(text, "\xf0\x9f\x98\x80");
    strcat(text, "\n\n    a\tb\tc");
    const char *dir = one_lesson("allreduce -a ring -p 4 -s 64", text);
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        remove(prog);
        Learn *l = start_in(dir, sizes[z][0], sizes[z][1]);
        open_lesson(l, 0);
        learn_key(l, ' ');
        learn_key(l, ' ');
        Grid g;
        grid_init(&g, l->w, l->h, false);
        learn_draw(l, &g);
        /* the picture's frame: its top-left corner and the column below
           it, wherever the layout put it, are intact */
        int fx = -1, fy = -1;
        for (int y = 0; y < l->h && fx < 0; y++)
            for (int x = 1; x < l->w && fx < 0; x++)
                if (grid_cat(&g, x, y)->ch == 0x250C) /* box corner */
                    fx = x, fy = y;
        if (fx < 0)
            fail_msg("%dx%d: no picture frame", l->w, l->h);
        for (int y = fy + 1; y < l->h - 3; y++) {
            uint32_t c = grid_cat(&g, fx, y)->ch;
            if (c != 0x2502 && c != 0x251C && c != 0x2514) /* │ ├ └ */
                fail_msg("%dx%d: the frame at row %d holds U+%04X", l->w,
                         l->h, y, (unsigned)c);
        }
        char *t = grid_dump(&g, false);
        if (!strstr(t, "a       b       c") || strchr(t, '?'))
            fail_msg("%dx%d: the tabbed block:\n%s", l->w, l->h, t);
        free(t);
        grid_fini(&g);
        stop(l);
    }
}

/* P1: two checkpoints back to back: a right answer to the first says the
 * first's value, never the second's, which stays unanswered. */
static void test_no_answer_leak(void **state)
{
    const char *dir = one_lesson("allreduce -a ring -p 4 -s 64",
        "Intro.\n\n@check Steps of the ring on 4 ranks?\n"
        "@query steps on allreduce -a ring -p 4 -s 64\n@answer 7\n\n"
        "@check And on 8?\n@query steps on allreduce -a ring -p 8 -s 64\n"
        "@answer 15");
    Learn *l = start_in(dir, 100, 30);
    open_lesson(l, 0);
    for (int i = 0; i < 5 && !l->ask.open; i++)
        learn_key(l, ' ');
    assert_true(l->ask.open);
    type(l, "7\n");
    if (!strstr(l->msg, "Right: 7.") || strstr(l->msg, "15"))
        fail_msg("after the first answer: '%s'", l->msg);
    assert_true(l->ask.open); /* the second is asked */
    char *t = screen(l);
    if (strstr(t, "15"))
        fail_msg("the second answer is on screen:\n%s", t);
    free(t);
    type(l, "15\n");
    assert_non_null(strstr(l->msg, "Right: 15."));
    stop(l);
}

/* P7: Chinese text never leaves an opening bracket or quote at the end of
 * a line (nor a closing one at the start), at every width of the text
 * pane from the smallest screen to a wide one. */
static void test_cjk_brackets(void **state)
{
    const char *para =
        "阶段 p-1 步：先做 reduce-scatter（归约-散发），让每个 rank 得到一块"
        "完整的和；再做 all-gather（全收集），让这些求和完成的块沿环传一圈。"
        "这就是 halving-doubling（Rabenseifner 算法）里的“折入”与《集合通信》"
        "中【环形】算法的区别（见 collviz trace --help）。";
    const char *dir = one_lesson("allreduce -a ring -p 4 -s 64", para);
    static const char *const opens[] = {"\xef\xbc\x88", "\xe2\x80\x9c",
                                        "\xe3\x80\x8a", "\xe3\x80\x90"};
    static const char *const closes[] = {"\xef\xbc\x89", "\xef\xbc\x8c",
                                         "\xe3\x80\x82", "\xe2\x80\x9d"};
    for (int w = 60; w <= 130; w++) {
        remove(prog);
        Learn *l = start_in(dir, w, 30);
        open_lesson(l, 0);
        Grid g;
        grid_init(&g, w, 30, false);
        learn_draw(l, &g);
        char *t = grid_dump(&g, false);
        /* each row's text pane: from column 1 up to the picture's frame */
        for (char *row = t, *next; row && *row != '-'; row = next) {
            next = strchr(row, '\n');
            if (next)
                *next++ = '\0';
            char *frame = strstr(row, "\xe2\x94\x82"); /* │ */
            char *corner = strstr(row, "\xe2\x94\x8c"); /* ┌ */
            char *end = frame && (!corner || frame < corner) ? frame : corner;
            if (end)
                *end = '\0';
            size_t n = strlen(row);
            while (n && row[n - 1] == ' ')
                row[--n] = '\0';
            const char *first = row + strspn(row, " ");
            for (size_t k = 0; k < 4; k++) {
                if (n >= 3 && !strcmp(row + n - 3, opens[k]))
                    fail_msg("width %d: a line ends in an opening mark: "
                             "'%s'", w, row);
                if (*first && !strncmp(first, closes[k], 3))
                    fail_msg("width %d: a line starts with a closing mark: "
                             "'%s'", w, row);
            }
        }
        free(t);
        grid_fini(&g);
        stop(l);
    }
}

/* P11: a learner never sees the lesson's authoring syntax: the reveal
 * gives the lesson's reason (its hint) or the scene, not the query; a
 * paragraph's `code` marks are not drawn; a part with no picture says so
 * in plain words, not "@scene". */
static void test_no_authoring_syntax(void **state)
{
    const char *dir = one_lesson("allreduce -a ring -p 4 -s 64",
        "Run `collviz list` first.\n\n@check Steps of the ring on 4 "
        "ranks?\n@query steps on allreduce -a ring -p 4 -s 64\n@answer 7\n"
        "@hint Two phases of p - 1 steps after the copy.\n\n@check Steps "
        "on 8?\n@query steps on allreduce -a ring -p 8 -s 64\n@answer 15");
    Learn *l = start_in(dir, 100, 30);
    open_lesson(l, 0);
    char *t = screen(l);
    if (!strstr(t, "Run collviz list first.") || strchr(t, '`') ||
        !strstr(t, "(No picture for this part of the lesson.)") ||
        strstr(t, "@scene"))
        fail_msg("the first page:\n%s", t);
    free(t);
    for (int i = 0; i < 5 && !l->ask.open; i++)
        learn_key(l, ' ');
    type(l, "r\n");
    if (!strstr(l->msg, "The answer is 7. Why: Two phases of p - 1 steps") ||
        strstr(l->msg, "steps on") || strstr(l->msg, "@"))
        fail_msg("the first reveal: '%s'", l->msg);
    learn_key(l, ' ');
    type(l, "r\n"); /* no hint: the scene it was computed for */
    if (!strstr(l->msg, "The answer is 15, as collviz computes it for "
                "allreduce -a ring -p 8 -s 64.") || strstr(l->msg, "steps on"))
        fail_msg("the second reveal: '%s'", l->msg);
    stop(l);
}

/* P12: the list says not started, in progress (right k of n) and done
 * (right k of n, skipped s, shown r), with the course's score in the
 * header; a done lesson opens from its start for review and keeps its
 * record; at a lesson's end Space opens the next one. */
static void test_progress_list(void **state)
{
    const char *dir = one_lesson("allreduce -a ring -p 4 -s 64",
        "Intro.\n\n@check Steps of the ring on 4 ranks?\n"
        "@query steps on allreduce -a ring -p 4 -s 64\n@answer 7\n\n"
        "Between.\n\n@check And on 8?\n@query steps on allreduce -a ring "
        "-p 8 -s 64\n@answer 15\n\n@check And on 2?\n@query steps on "
        "allreduce -a ring -p 2 -s 64\n@answer 3");
    /* a second lesson, the same file under the next number */
    char from[256], to[256], cmd[600];
    for (int z = 0; z < 2; z++) {
        snprintf(from, sizeof from, "%s/%s/01-one.txt", dir, z ? "zh" : "en");
        snprintf(to, sizeof to, "%s/%s/02-two.txt", dir, z ? "zh" : "en");
        snprintf(cmd, sizeof cmd, "sed 's/Lesson 1: One/Lesson 2: Two/' "
                 "'%s' > '%s'", from, to);
        assert_int_equal(system(cmd), 0);
    }
    remove(prog);
    Learn *l = start_in(dir, 100, 30);
    l->screen = LS_LIST;
    char *t = screen(l);
    if (!strstr(t, "right 0 of 6") || !strstr(t, "not started"))
        fail_msg("fresh:\n%s", t);
    free(t);
    open_lesson(l, 0);
    for (int i = 0; i < 5 && !l->ask.open; i++)
        learn_key(l, ' ');
    type(l, "7\n");
    learn_key(l, 'o');
    t = screen(l);
    if (!strstr(t, "in progress: 1/3 right") || !strstr(t, "right 1 of 6"))
        fail_msg("in progress:\n%s", t);
    free(t);
    open_lesson(l, 0); /* resumes at the second checkpoint */
    for (int i = 0; i < 5 && !l->ask.open; i++)
        learn_key(l, ' ');
    type(l, "s\n"); /* skipped */
    for (int i = 0; i < 5 && !l->ask.open; i++)
        learn_key(l, ' ');
    type(l, "r\n"); /* shown */
    for (int i = 0; i < 10 && !strstr(l->msg, "The end of the lesson"); i++)
        learn_key(l, ' ');
    assert_non_null(strstr(l->msg, "Press Space for the next one"));
    learn_key(l, ' ');
    assert_int_equal(l->cur.index, 1); /* the next lesson */
    learn_key(l, 'o');
    t = screen(l);
    if (!strstr(t, "done: 1/3 right, 1 skipped, 1 shown"))
        fail_msg("done:\n%s", t);
    free(t);
    char before[200], after[200];
    progress_line("01-one", before, sizeof before);
    open_lesson(l, 0); /* done: review from the start */
    assert_true(l->cur.review);
    assert_non_null(strstr(l->msg, "Review"));
    for (int i = 0; i < 20 && !strstr(l->msg, "The end of the lesson"); i++) {
        learn_key(l, ' ');
        assert_false(l->ask.open); /* its checkpoints are not asked again */
    }
    assert_int_equal(l->cur.index, 0);
    learn_save(l);
    progress_line("01-one", after, sizeof after);
    assert_string_equal(before, after);
    stop(l);
}

/* P8: the player tells a right but coarse answer from a wrong one, and
 * takes sizes as the course writes them. */
static void test_checker_forms(void **state)
{
    const char *dir = one_lesson("allreduce -a ring -p 4 -s 64",
        "Intro.\n\n@check Step 9's time?\n@query steptime 9 on allreduce "
        "-a ring -p 8 -s 1M\n@answer 14.11\n\n@check Bytes a rank sends?\n"
        "@query sent max on allreduce -a ring -p 8 -s 1M\n@answer 1835008");
    Learn *l = start_in(dir, 100, 30);
    open_lesson(l, 0);
    for (int i = 0; i < 5 && !l->ask.open; i++)
        learn_key(l, ' ');
    type(l, "14.1\n");
    assert_non_null(strstr(l->msg, "Right to 1 decimal; give 2."));
    assert_int_equal(l->ask.tries, 0);
    assert_true(l->ask.open);
    type(l, "14.11\n");
    assert_non_null(strstr(l->msg, "Right: 14.11."));
    type(l, "1.75M\n");
    assert_non_null(strstr(l->msg, "Right: 1835008."));
    stop(l);
    /* a prediction with @within 1%: 129840 (10 x 12984) for 129748 is
       right, and the value is said; 1.1% off is not */
    dir = one_lesson("allreduce -a ring -p 4 -s 64",
        "Intro.\n\n@check Predict, within 1%: bytes?\n@query sent max on "
        "allreduce -a ring -p 8 -s 1M\n@within 1%\n@answer 1835008");
    remove(prog); /* a fresh record: the lesson above was done */
    l = start_in(dir, 100, 30);
    open_lesson(l, 0);
    for (int i = 0; i < 5 && !l->ask.open; i++)
        learn_key(l, ' ');
    type(l, "1855000\n"); /* 1.09% above */
    if (!strstr(l->msg, "Not right"))
        fail_msg("1855000: '%s' (open %d)", l->msg, l->ask.open);
    type(l, "1820000\n"); /* 0.82% below */
    if (!strstr(l->msg, "Right: 1835008 (yours is within 1%)."))
        fail_msg("%s", l->msg);
    stop(l);
    /* L1, L2: allgather's busbw factor at 8 ranks, 7/8: "1" is the
       misconception, a try with the reason; a time for it is understood
       and costs none; 87.5% and full-width digits are taken */
    dir = one_lesson("allgather -a ring -p 8 -s 64",
        "Intro.\n\n@check busbw/algbw?\n@query busbw on allgather -a ring "
        "-p 8 -s 64\n@answer 0.875\n\n@check Steps?\n@query msgsteps on "
        "allgather -a ring -p 8 -s 64\n@answer 7");
    remove(prog);
    l = start_in(dir, 100, 30);
    open_lesson(l, 0);
    for (int i = 0; i < 5 && !l->ask.open; i++)
        learn_key(l, ' ');
    type(l, "1\n");
    if (!strstr(l->msg, "Not right (try 1 of 3): a factor is not rounded"))
        fail_msg("1 for 0.875: '%s'", l->msg);
    assert_int_equal(l->ask.tries, 1);
    type(l, "0.875 us\n");
    if (!strstr(l->msg, "This asks a factor"))
        fail_msg("0.875 us: '%s'", l->msg);
    assert_int_equal(l->ask.tries, 1);
    type(l, "87.5%\n");
    if (!strstr(l->msg, "Right: 0.88."))
        fail_msg("87.5%%: '%s'", l->msg);
    type(l, "\xef\xbc\x97 \xe6\xad\xa5\n"); /* ７ 步 */
    if (!strstr(l->msg, "Right: 7."))
        fail_msg("7 steps in full width: '%s'", l->msg);
    stop(l);
}

/* P6: a trace line in a block wraps before its -> and => so that its
 * result stays in view at 80x24, with no note of a cut; the note of a
 * cut block goes once the block has scrolled out of view. */
static void test_trace_lines_wrap(void **state)
{
    char text[4096] = "Intro.\n\n    r0 recv[12..15] -> r1 recv[12..15] "
        "reduce => {0-1}@12..15\n\nA wide one.\n\n    "
        "WIDEBLOCK_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_END";
    for (int i = 0; i < 30; i++)
        strcat(text, "\n\nA paragraph of plain words to scroll the block "
               "away.");
    const char *dir = one_lesson("allreduce -a ring -p 4 -s 64", text);
    Learn *l = start_in(dir, 80, 24);
    open_lesson(l, 0);
    learn_key(l, ' ');
    char *t = screen(l);
    if (!strstr(t, "=> {0-1}@12..15") || strstr(t, "A block is cut"))
        fail_msg("the trace line:\n%s", t);
    free(t);
    learn_key(l, ' ');
    learn_key(l, ' ');
    t = screen(l);
    assert_non_null(strstr(t, "A block is cut"));
    free(t);
    learn_key(l, '>');
    for (int i = 0; i < 30; i++)
        learn_key(l, ' ');
    t = screen(l);
    if (strstr(t, "WIDEBLOCK") || strstr(t, "A block is cut") ||
        strstr(t, "The block's end"))
        fail_msg("the note outlived its block:\n%s", t);
    free(t);
    stop(l);
}

/* P6: an @run's command wider than the pane wraps at its blanks, its
 * number on the first line only, so that its last options stay in view
 * and nothing is cut; at 80x24 and 100x30. */
static void test_commands_wrap(void **state)
{
    (void)state;
    const char *dir = one_lesson("allreduce -a ring -p 4 -s 64",
        "Intro.\n\n@run\n    collviz model allreduce -p 16 -T torus:4x4 -b "
        "64M -e 64M --beta 25\n    collviz model allreduce -p 16 -T "
        "torus:4x4 -b 64M -e 64M --beta 12\n");
    static const int sizes[][2] = {{80, 24}, {100, 30}};
    for (size_t z = 0; z < 2; z++) {
        remove(prog);
        Learn *l = start_in(dir, sizes[z][0], sizes[z][1]);
        open_lesson(l, 0);
        learn_key(l, ' ');
        char *t = screen(l);
        if (!strstr(t, "1 collviz model") || !strstr(t, "2 collviz model") ||
            !strstr(t, "--beta 25") || !strstr(t, "--beta 12") ||
            strstr(t, "A block is cut") || learn_hshift_max(l) != 0)
            fail_msg("%dx%d: a command is cut:\n%s", l->w, l->h, t);
        free(t);
        stop(l);
    }
}

/* Multiple choice in the player: the choices drawn a line each under the
 * question; a wrong choice's own reason said; a letter or the choice's
 * text answers. */
static void test_choices_play(void **state)
{
    const char *dir = one_lesson("allreduce -a ring -p 4 -s 64",
        "Intro.\n\n@check Steps of the ring on 4 ranks?\n@query steps on "
        "allreduce -a ring -p 4 -s 64\n@choice 6 | the copy-in is a step "
        "too\n@choice 7\n@choice 8 | only 2(p-1) steps move data, after "
        "the copy\n@answer 7\n\n@check Again?\n@query steps on allreduce "
        "-a ring -p 4 -s 64\n@choice 6\n@choice 7\n@answer 7");
    remove(prog);
    Learn *l = start_in(dir, 100, 30);
    open_lesson(l, 0);
    for (int i = 0; i < 5 && !l->ask.open; i++)
        learn_key(l, ' ');
    assert_true(l->ask.open);
    char *t = screen(l);
    if (!strstr(t, "a) 6") || !strstr(t, "b) 7") || !strstr(t, "c) 8"))
        fail_msg("the choices:\n%s", t);
    free(t);
    type(l, "a\n");
    if (!strstr(l->msg, "Not right (try 1 of 3): the copy-in is a step too"))
        fail_msg("%s", l->msg);
    type(l, "B\n");
    assert_non_null(strstr(l->msg, "Right: 7."));
    type(l, "7\n"); /* the text of a choice answers too */
    assert_non_null(strstr(l->msg, "Right: 7."));
    stop(l);
}

/* Goal exercises and the sandbox: at a goal checkpoint the box holds the
 * scene, filled with the lesson's; a scene that misses the goal is shown
 * with what it reaches; one that reaches it is right; e opens the same
 * box outside a checkpoint and Home brings the lesson's scene back. */
static void test_goals_sandbox(void **state)
{
    const char *dir = one_lesson("allreduce -a ring -p 8 -s 64",
        "Intro.\n\n@scene allreduce -a ring -p 8 -s 64\n\nThe ring.\n\n"
        "@check Make it take at most 4 steps with messages.\n@goal msgsteps "
        "<= 4\n@answer allreduce -a butterfly -p 8 -s 64\n@hint log2 p "
        "exchanges of the whole vector");
    remove(prog);
    Learn *l = start_in(dir, 100, 30);
    open_lesson(l, 0);
    for (int i = 0; i < 6 && !l->ask.open; i++)
        learn_key(l, ' ');
    assert_true(l->ask.open);
    assert_true(l->ask.scene_box);
    assert_string_equal(l->ask.text, "allreduce -a ring -p 8 -s 64");
    char *t = screen(l);
    assert_non_null(strstr(t, "Your scene: allreduce -a ring -p 8 -s 64"));
    free(t);
    /* halving-doubling: 2 log2 8 = 6 steps with messages, not yet */
    while (l->ask.len)
        learn_key(l, TERM_KEY_BACKSPACE);
    type(l, "allreduce -a halving-doubling -p 8 -s 64\n");
    if (!strstr(l->msg, "Not yet: the steps that move messages is 6 there; "
                        "the goal is <= 4."))
        fail_msg("%s", l->msg);
    assert_true(l->cur.sandbox);
    assert_string_equal(l->app.scene->algo->name, "halving-doubling");
    while (l->ask.len)
        learn_key(l, TERM_KEY_BACKSPACE);
    type(l, "allreduce -a butterfly -p 8 -s 64\n");
    if (!strstr(l->msg, "Goal reached: the steps that move messages = 3."))
        fail_msg("%s", l->msg);
    char line[200];
    progress_line("01-one", line, sizeof line);
    assert_non_null(strstr(line, " +"));
    /* the sandbox: e, a scene, Enter; Home back to the lesson's */
    learn_key(l, 'e');
    assert_true(l->ask.open && l->ask.scene_box && l->ask.item == -1);
    while (l->ask.len)
        learn_key(l, TERM_KEY_BACKSPACE);
    type(l, "allreduce -a butterfly -p 4 -s 64\n");
    assert_false(l->ask.open);
    assert_int_equal(l->app.scene->sched.call.nranks, 4);
    assert_non_null(strstr(l->msg, "Home returns"));
    /* X11: the picture's title names the scene shown, as the learner's */
    t = screen(l);
    if (!strstr(t, "step 0/3 (yours): allreduce -a butterfly -p"))
        fail_msg("%s", t);
    free(t);
    learn_key(l, TERM_KEY_HOME);
    assert_false(l->cur.sandbox);
    assert_int_equal(l->app.scene->sched.call.nranks, 8);
    assert_string_equal(l->app.scene->algo->name, "ring");
    /* a scene the player cannot draw is said, the box stays */
    learn_key(l, 'e');
    while (l->ask.len)
        learn_key(l, TERM_KEY_BACKSPACE);
    type(l, "allreduce -a ring -p 999\n");
    assert_non_null(strstr(l->msg, "That scene cannot be shown"));
    assert_true(l->ask.open);
    stop(l);
}

/* Write it yourself (@start): the box holds the learner's copy of the
 * lesson's file, made in the state folder (here one whose path has a
 * blank: the box quotes it) and never written over; a
 * built-in algorithm is not the answer; Ctrl-E runs $VISUAL on the copy
 * (here a script that writes recursive doubling into it), after which
 * Enter checks the file and reaches the goal. */
static void test_write_it_yourself(void **state)
{
    const char *dir = one_lesson("allgather -a ring -p 4 -s 64",
        "Intro.\n\n@scene allgather -a ring -p 4 -s 64\n\n@check Write it "
        "in 2 steps with messages.\n@start ag.cvs\n@goal msgsteps <= 2\n"
        "@answer -a files/rd.cvs -s 64");
    char path[512], state_dir[300], copy[600];
    snprintf(path, sizeof path, "%s/files", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/files/ag.cvs", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("collective allgather\nranks 4\nparts 1\nstep\n"
          "r0.send[0] -> r0.recv[0]\nr1.send[0] -> r1.recv[1]\n"
          "r2.send[0] -> r2.recv[2]\nr3.send[0] -> r3.recv[3]\n"
          "step\nr0.recv[0] -> r1.recv[0]\nr1.recv[1] -> r2.recv[1]\n"
          "r2.recv[2] -> r3.recv[2]\nr3.recv[3] -> r0.recv[3]\n"
          "step\nr0.recv[3] -> r1.recv[3]\nr1.recv[0] -> r2.recv[0]\n"
          "r2.recv[1] -> r3.recv[1]\nr3.recv[2] -> r0.recv[2]\n"
          "step\nr0.recv[2] -> r1.recv[2]\nr1.recv[3] -> r2.recv[3]\n"
          "r2.recv[0] -> r3.recv[0]\nr3.recv[1] -> r0.recv[1]\n", f);
    fclose(f);
    /* a state folder with a blank in its path: the box quotes it */
    snprintf(state_dir, sizeof state_dir, "%s/my state", root);
    setenv("XDG_STATE_HOME", state_dir, 1);
    snprintf(copy, sizeof copy, "%s/collviz/exercise-ag.cvs", state_dir);
    remove(prog);
    Learn *l = start_in(dir, 100, 30);
    open_lesson(l, 0);
    for (int i = 0; i < 6 && !l->ask.open; i++)
        learn_key(l, ' ');
    assert_true(l->ask.open && l->ask.scene_box);
    assert_string_equal(l->ask.file, copy);
    char want[700];
    snprintf(want, sizeof want, "-a '%s' -s 64", copy);
    assert_string_equal(l->ask.text, want);
    assert_non_null(strstr(l->msg, "a copy of the lesson's, made now"));
    /* the ring as given: 3 steps with messages, not yet */
    learn_key(l, '\n');
    if (!strstr(l->msg, "Not yet: the steps that move messages is 3 there"))
        fail_msg("%s", l->msg);
    /* a built-in is not the learner's schedule */
    while (l->ask.len)
        learn_key(l, TERM_KEY_BACKSPACE);
    type(l, "allgather -a recursive-doubling -p 4 -s 64\n");
    assert_non_null(strstr(l->msg, "This checkpoint checks a schedule you "
                           "write"));
    /* the editor: a script in place of vi writes recursive doubling */
    char script[600];
    snprintf(script, sizeof script, "%s/ed.sh", root);
    f = fopen(script, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\ncat > \"$1\" <<'E'\ncollective allgather\nranks 4\n"
          "parts 1\nstep\nr0.send[0] -> r0.recv[0]\nr1.send[0] -> r1.recv[1]\n"
          "r2.send[0] -> r2.recv[2]\nr3.send[0] -> r3.recv[3]\nstep\n"
          "r0.recv[0] -> r1.recv[0]\nr1.recv[1] -> r0.recv[1]\n"
          "r2.recv[2] -> r3.recv[2]\nr3.recv[3] -> r2.recv[3]\nstep\n"
          "r0.recv[0:2] -> r2.recv[0:2]\nr1.recv[0:2] -> r3.recv[0:2]\n"
          "r2.recv[2:4] -> r0.recv[2:4]\nr3.recv[2:4] -> r1.recv[2:4]\nE\n",
          f);
    fclose(f);
    chmod(script, 0700);
    setenv("VISUAL", script, 1);
    learn_key(l, 5); /* Ctrl-E */
    unsetenv("VISUAL");
    assert_non_null(strstr(l->msg, "Press Enter to check your file."));
    while (l->ask.len)
        learn_key(l, TERM_KEY_BACKSPACE);
    type(l, want);
    learn_key(l, '\n');
    if (!strstr(l->msg, "Goal reached: the steps that move messages = 2."))
        fail_msg("%s", l->msg);
    stop(l);
    /* again, from the start: the learner's file stays as they left it */
    remove(prog);
    l = start_in(dir, 100, 30);
    open_lesson(l, 0);
    for (int i = 0; i < 6 && !l->ask.open; i++)
        learn_key(l, ' ');
    assert_non_null(strstr(l->msg, "yours, as you left it"));
    size_t n;
    f = fopen(copy, "r");
    assert_non_null(f);
    char body[2048];
    n = fread(body, 1, sizeof body - 1, f);
    body[n] = 0;
    fclose(f);
    assert_non_null(strstr(body, "r0.recv[0:2] -> r2.recv[0:2]"));
    stop(l);
    unsetenv("XDG_STATE_HOME");
}

/* X6: a lesson whose title is refused (a bidirectional control) is listed
 * by its file name, and a control in that name is drawn as an escape,
 * never as itself. */
static void test_list_name_controls(void **state)
{
    const char *dir = one_lesson("allreduce -p 4", "Intro.");
    char path[300];
    for (int lang = 0; lang < 2; lang++) {
        snprintf(path, sizeof path, "%s/%s/02-\xe2\x80\xae" "evil.txt", dir,
                 lang ? "zh" : "en");
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs("T\xe2\x80\xae" "3\n\nText.\n", f);
        fclose(f);
    }
    Learn *l = start_in(dir, 100, 30);
    char *t = screen(l);
    if (strstr(t, "\xe2\x80\xae") || !strstr(t, "02-\\u202Eevil"))
        fail_msg("%s", t);
    free(t);
    stop(l);
}

/* X3: while a checkpoint asks how many steps, the picture's title does
 * not give the total away ("step 0/?"); answered, it shows it again. */
static void test_steps_hidden(void **state)
{
    const char *dir = one_lesson("broadcast -a chain -p 4 -s 16",
        "Intro.\n\n@scene broadcast -a chain -p 4 -s 16\n\nThe chain.\n\n"
        "@check Chain, 4 ranks, -s 16: how many steps in all?\n@query steps\n"
        "@answer 5\n\nAfter.");
    remove(prog);
    Learn *l = start_in(dir, 100, 30);
    open_lesson(l, 0);
    for (int i = 0; i < 6 && !l->ask.open; i++)
        learn_key(l, ' ');
    assert_true(l->ask.open);
    char *t = screen(l);
    if (!strstr(t, "step 0/?: broadcast -a chain -p 4 -s 16") ||
        strstr(t, "0/5"))
        fail_msg("%s", t);
    free(t);
    learn_key(l, 27); /* Esc: the prompt closed, the question open */
    t = screen(l);
    assert_non_null(strstr(t, "step 0/?:"));
    free(t);
    learn_key(l, ' ');
    type(l, "5\n");
    assert_non_null(strstr(l->msg, "Right"));
    t = screen(l);
    assert_non_null(strstr(t, "/5: broadcast -a chain -p 4 -s 16"));
    free(t);
    stop(l);
}

/* Whether the line at row holds the label "r" or "r.b" (rank r's input,
 * its block b). */
static bool own_label(const char *row, int r)
{
    char own[16];
    int n = snprintf(own, sizeof own, " %d", r);
    const char *end = strchr(row, '\n');
    for (const char *q = row; (q = strstr(q, own)) && (!end || q < end);
         q++)
        if (q[n] == ' ' || q[n] == '.')
            return true;
    return false;
}

/* T5: a lesson's picture before its first step shows what the ranks
 * start with, as the TUI does: lesson 6's fold on 13 ranks and lesson
 * 15's torus on 16 (rank 5's row holds its own input), never "send
 * hidden". */
static void test_first_picture(void **state)
{
    static const struct { int lesson, p; } ls[] = {{5, 13}, {TORUS, 16}};
    for (size_t i = 0; i < sizeof ls / sizeof *ls; i++) {
        remove(prog);
        Learn *l = start(UI_LANG_EN, prog, 100, 30);
        open_lesson(l, ls[i].lesson);
        for (int k = 0; k < 100 && !(l->cur.picture &&
             l->app.scene->call.nranks == ls[i].p); k++) {
            if (l->ask.open) /* a checkpoint before: Esc, then skip it */
                learn_key(l, 27), learn_key(l, 's');
            learn_key(l, ' ');
        }
        assert_int_equal(l->app.scene->call.nranks, ls[i].p);
        assert_int_equal(l->app.scene->step, 0);
        char *t = screen(l);
        const char *row = strstr(t, "\u2502r5 ");
        if (strstr(t, "send hidden") || !row || !own_label(row + 4, 5))
            fail_msg("lesson %d: the first picture hides the inputs:\n%s",
                     ls[i].lesson + 1, t);
        free(t);
        stop(l);
    }
}

/* A block wider than the pane: the pane says it is cut and how to see
 * the rest, > scrolls it sideways until its end shows, < brings it back;
 * at every screen size, with CJK characters (two columns) in it. */
static void test_wide_block(void **state)
{
    static const int sizes[][2] = {{60, 16}, {80, 24}, {100, 30}, {120, 40}};
    const char *dir = one_lesson("allreduce -a ring -p 4 -s 64",
        "Intro.\n\n    BEGIN r0 recv[12..15] -> r1 recv[12..15] reduce "
        "=> {0-1}@12..15 广播与归约 and then some more words to be wide "
        "END\n    short");
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        remove(prog);
        Learn *l = start_in(dir, sizes[z][0], sizes[z][1]);
        open_lesson(l, 0);
        learn_key(l, ' '); /* the block */
        char *t = screen(l);
        if (!strstr(t, "BEGIN") || strstr(t, "END") ||
            !strstr(t, "A block is cut"))
            fail_msg("%dx%d: the cut is not said:\n%s", l->w, l->h, t);
        free(t);
        int most = learn_hshift_max(l), presses = 0;
        assert_true(most > 0);
        while (l->cur.hshift < most && presses++ < 100)
            learn_key(l, '>');
        learn_key(l, '>'); /* no further than the end */
        assert_int_equal(l->cur.hshift, most);
        t = screen(l);
        if (strstr(t, "BEGIN") || !strstr(t, "END") ||
            !strstr(t, "The block's end") || strstr(t, "A block is cut"))
            fail_msg("%dx%d: the block's end is not shown:\n%s", l->w, l->h,
                     t);
        free(t);
        while (l->cur.hshift > 0 && presses-- > -100)
            learn_key(l, '<');
        t = screen(l);
        assert_non_null(strstr(t, "BEGIN"));
        free(t);
        /* the paragraphs are reflowed, never shifted */
        learn_key(l, '>');
        t = screen(l);
        assert_non_null(strstr(t, "Intro."));
        free(t);
        stop(l);
    }
    /* a lesson whose blocks fit says nothing and does not scroll */
    remove(prog);
    Learn *l = start_in(one_lesson("allreduce -a ring -p 4 -s 64",
                                   "Intro.\n\n    narrow"), 100, 30);
    open_lesson(l, 0);
    learn_key(l, ' ');
    assert_int_equal(learn_hshift_max(l), 0);
    learn_key(l, '>');
    assert_int_equal(l->cur.hshift, 0);
    char *t = screen(l);
    assert_null(strstr(t, "A block is cut"));
    free(t);
    stop(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_goldens, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_skip_reveal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_utf8_answer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prompt_s_r, setup, teardown),
        cmocka_unit_test_setup_teardown(test_switch_language, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_progress, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_scrolls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_esc_stays, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_says_progress, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_state_unwritable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_driver_deps, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_async, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_small, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_scenes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wide_block, setup, teardown),
        cmocka_unit_test_setup_teardown(test_goals_sandbox, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_it_yourself, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_steps_hidden, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_name_controls, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_choices_play, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trace_lines_wrap, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_checker_forms, setup, teardown),
        cmocka_unit_test_setup_teardown(test_progress_list, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_authoring_syntax, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_cjk_brackets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_answer_leak, setup, teardown),
        cmocka_unit_test_setup_teardown(test_emoji_tabs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_machine_scene, setup, teardown),
        cmocka_unit_test_setup_teardown(test_first_picture, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_title_numbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commands_wrap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_back_from_first_page, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
