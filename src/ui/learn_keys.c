/* learn_keys.c - the lesson player's keys (learn.h): one table,
 * LEARN_KEYS, binds the keys of each mode (the list, a lesson, its
 * answer box, the pager ...) to what they do and gives them their hint;
 * the footers are made from its rows (learn_footer), so that the help on
 * the screen is the bindings themselves. Key codes are term.h's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ui/keys.h"
#include "ui/learn.h"
#include "ui/scene.h"
#include "ui/term.h"
#include "ui/words.h"

#define ESC_KEY 27
#define CTRL_U 21 /* clears the box, as a shell's line */
#define CTRL_E 5  /* edits a @start checkpoint's file */

static void dispatch(Learn *l, LearnMode m, int key);

/* -------------------------------------------------------------- list */

static void list_move(Learn *l, int key)
{
    if (key == TERM_KEY_UP && l->sel > 0)
        l->sel--;
    else if (key == TERM_KEY_DOWN && l->sel + 1 < (int)l->nlist)
        l->sel++;
}

static void list_open(Learn *l, int key)
{
    char why[600];
    if (learn_open(l, l->sel, why, sizeof why))
        learn_say(l, ROLE_ERROR, "%s", why);
}

/* A digit: the lesson of that number, or of the two digits typed in a
 * row where there is one ("1" then "5": lesson 15; "6" then "2": lesson
 * 2); Enter opens it. */
static void list_digit(Learn *l, int key)
{
    int d = key - '0', two = l->typed * 10 + d, at = -1;
    for (size_t i = 0; i < l->nlist; i++)
        if (l->list[i].number == two && l->typed)
            at = (int)i;
    for (size_t i = 0; at < 0 && i < l->nlist; i++)
        if (l->list[i].number == d)
            at = (int)i;
    l->typed = at >= 0 ? l->list[at].number : 0;
    if (at < 0) {
        learn_say(l, ROLE_WARN, _("There is no lesson %d."), d);
        return;
    }
    l->sel = at;
    learn_say(l, ROLE_DIM, _("Lesson %d: Enter opens it."), l->typed);
}

/* Esc cancels, as in the TUI: it never quits, so Esc Esc from a lesson
 * stays in the player. */
static void list_esc(Learn *l, int key)
{
    learn_say(l, ROLE_DIM, "%s",
              _("q quits the player; Enter opens a lesson."));
}

static void quit_key(Learn *l, int key)
{
    learn_save(l);
    l->quit = true;
}

static void lang_key(Learn *l, int key)
{
    learn_set_lang(l, l->lang == UI_LANG_EN ? UI_LANG_ZH : UI_LANG_EN);
}

/* ------------------------------------------------------------ lesson */

static void next_key(Learn *l, int key) { learn_next(l); }

static void back_key(Learn *l, int key) { learn_back(l); }

static void skip_key(Learn *l, int key) { learn_skip(l); }

static void reveal_key(Learn *l, int key) { learn_reveal(l); }

/* Up/k and Down/j: the text, as far as it goes. */
static void text_scroll(Learn *l, int key)
{
    bool up = key == TERM_KEY_UP || key == 'k';
    if (up && l->cur.scroll < learn_scroll_max(l))
        l->cur.scroll++;
    else if (!up && l->cur.scroll > 0)
        l->cur.scroll--;
}

/* > and < (also . and ,): the blocks sideways. */
static void text_shift(Learn *l, int key)
{
    LearnLesson *c = &l->cur;
    if (key == '>' || key == '.') {
        int most = learn_hshift_max(l);
        c->hshift = c->hshift + LEARN_HSHIFT_STEP < most
                    ? c->hshift + LEARN_HSHIFT_STEP : most;
    } else if (c->hshift > 0) {
        c->hshift = c->hshift > LEARN_HSHIFT_STEP
                    ? c->hshift - LEARN_HSHIFT_STEP : 0;
    }
}

/* Right and Left: the picture a step on or back. */
static void step_key(Learn *l, int key)
{
    size_t nsteps = l->cur.picture ? l->app.scene->sched.nsteps : 0;
    size_t step = l->cur.picture ? l->app.scene->step : 0;
    if (key == TERM_KEY_RIGHT && step < nsteps)
        learn_seek(l, (long)step + 1);
    else if (key == TERM_KEY_LEFT && step > 0)
        learn_seek(l, (long)step - 1);
}

/* Home: back from the learner's scene to the lesson's, else to the step
 * the text asked for. */
static void home_key(Learn *l, int key)
{
    if (l->cur.sandbox) {
        learn_replay(l);
        l->msg[0] = '\0';
    } else {
        learn_seek(l, l->cur.step);
    }
}

/* e: a box for a scene of the learner's own, filled with the one the
 * picture shows; Enter shows it, Home comes back to the lesson's. */
static void sandbox_key(Learn *l, int key)
{
    if (l->cur.scene < 0)
        return;
    LearnAsk *a = &l->ask;
    const char *now = l->cur.sandbox ? l->cur.sandbox_line
                      : l->cur.les.items[l->cur.scene].text;
    *a = (LearnAsk){.item = -1, .open = true, .scene_box = true,
                    .valued = true};
    snprintf(a->text, sizeof a->text, "%s", now);
    a->len = strlen(a->text);
    learn_say(l, ROLE_STATUS, "%s", _("Change the scene (algorithm, ranks, "
              "size, machine) and press Enter to see it; Esc leaves it as "
              "it is."));
}

/* o and Esc: the list of lessons. */
/* Esc in a lesson leaves nothing (an answer's prompt is left by its own
 * Esc, and a second one must not drop the lesson): it says where the
 * keys are. */
static void lesson_esc(Learn *l, int key)
{
    learn_say(l, ROLE_DIM, "%s", _("o opens the lessons, q quits; Esc "
                                   "leaves an answer's prompt."));
}

static void lessons_key(Learn *l, int key)
{
    learn_save(l);
    l->screen = LS_LIST;
    l->msg[0] = '\0';
}

/* ---------------------------------------------------- a lesson's @run */

/* The commands of the last @run shown: its item, or -1. */
static int last_run(const Learn *l)
{
    for (size_t i = l->cur.pos; i-- > 0;)
        if (l->cur.les.items[i].kind == LI_RUN)
            return (int)i;
    return -1;
}

/* Run command n (from 1) of the last @run shown. */
static void run_nth(Learn *l, int n)
{
    int r = last_run(l);
    if (r < 0) {
        learn_say(l, ROLE_DIM, "%s", _("No commands to run here yet."));
        return;
    }
    size_t len;
    const char *s = lesson_run_command(&l->cur.les.items[r], n, &len);
    if (!s) {
        learn_say(l, ROLE_DIM, "%s",
                  _("That @run block has fewer commands."));
        return;
    }
    /* the line whole, never cut: learn_run refuses one too long */
    char *cmd = malloc(len + 1);
    if (!cmd) {
        learn_say(l, ROLE_ERROR, "%s", words_error(CV_ERR_NOMEM));
        return;
    }
    memcpy(cmd, s, len);
    cmd[len] = '\0';
    learn_run(l, cmd); /* starts it, or says why not */
    l->msg[0] = '\0';
    free(cmd);
}

/* x: run the last @run's command, or, where it has several, ask which
 * (P10: a digit runs one only after x, so an answer typed one paragraph
 * too early runs nothing). */
static void run_key(Learn *l, int key)
{
    int r = last_run(l);
    int n = r < 0 ? 0 : lesson_run_count(&l->cur.les.items[r]);
    if (n <= 1) {
        run_nth(l, 1);
        return;
    }
    l->run_pick = true;
    learn_say(l, ROLE_STATUS, _("Which command? Press its number, 1 to %d; "
              "Esc cancels."), n < 9 ? n : 9);
}

static void digit_key(Learn *l, int key)
{
    learn_say(l, ROLE_DIM, "%s",
              _("Press x first, then the command's number."));
}

/* After x: a digit picks, Esc and x cancel, any other key cancels and
 * does what it does in the lesson. */
static void pick_cancel(Learn *l, int key)
{
    l->run_pick = false;
    l->msg[0] = '\0';
}

static void pick_run(Learn *l, int key)
{
    pick_cancel(l, key);
    run_nth(l, key - '0');
}

static void pick_other(Learn *l, int key)
{
    pick_cancel(l, key);
    dispatch(l, l->back ? LM_LESSON_BACK : LM_LESSON, key);
}

/* ------------------------------------------------------ the answer box */

static void prompt_enter(Learn *l, int key) { learn_submit(l); }

static void prompt_leave(Learn *l, int key)
{
    l->ask.open = false;
    learn_say(l, ROLE_STATUS, "%s", _("Space or Enter answers, s skips, r "
              "shows the answer."));
}

static void prompt_clear(Learn *l, int key)
{
    l->ask.len = 0;
    l->ask.text[0] = '\0';
}

/* Ctrl-E: the learner's editor on their copy of a @start file. */
static void prompt_edit(Learn *l, int key)
{
    char why[200];
    if (!l->ask.file[0]) {
        learn_say(l, ROLE_STATUS, "%s", _("Ctrl-E edits the schedule file of "
                  "a checkpoint that asks you to write one."));
        return;
    }
    if (term_edit(l->ask.file, why, sizeof why))
        learn_say(l, ROLE_WARN, _("Your file was not edited: %s."), why);
    else
        learn_say(l, ROLE_STATUS, "%s", _("Press Enter to check your file."));
}

/* A key typed into the box: erase the character before the cursor (a
 * UTF-8 sequence whole), or add the byte. */
static void prompt_type(Learn *l, int key)
{
    LearnAsk *a = &l->ask;
    if (keys_is_erase(key)) {
        while (a->len && ((unsigned char)a->text[a->len - 1] & 0xC0) == 0x80)
            a->len--;
        if (a->len)
            a->len--;
        a->text[a->len] = '\0';
    } else if (key >= 0x20 && key <= 0xFF && key != 0x7F &&
               a->len + 1 < sizeof a->text) {
        a->text[a->len++] = (char)key;
        a->text[a->len] = '\0';
    }
}

/* ----------------------------------------------------------- the pager */

/* The first line after line `from` of the pager holding what is to be
 * found (ASCII letters in either case), or -1. */
static int pager_search(const Learn *l, int from)
{
    const char *s = l->pager ? l->pager : "", *pat = l->pager_find;
    size_t m = strlen(pat);
    for (int line = 0; *s && m; line++) {
        size_t n = strcspn(s, "\n");
        for (size_t i = 0; line > from && i + m <= n; i++)
            if (!strncasecmp(s + i, pat, m))
                return line;
        s += n + (s[n] == '\n');
    }
    return -1;
}

/* Go to the next line holding what is to be found, or say there is none. */
static void pager_next(Learn *l)
{
    int at = pager_search(l, l->pager_top);
    if (at < 0)
        at = pager_search(l, -1); /* from the top again */
    if (at < 0) {
        learn_say(l, ROLE_WARN, _("Not found: %s"), l->pager_find);
        return;
    }
    int most = learn_pager_max(l);
    l->pager_top = at < most ? at : most;
    l->msg[0] = '\0';
}

/* The pager's first line at top, never past the end; the end followed
 * again once it is in view, left when scrolled up. */
static void pager_to(Learn *l, int top)
{
    int most = learn_pager_max(l);
    l->pager_top = top < 0 ? 0 : top > most ? most : top;
    l->job.follow = learn_running(l) && l->pager_top == most;
}

/* A key no row of the pager binds: it only keeps to the end. */
static void pager_other(Learn *l, int key) { pager_to(l, l->pager_top); }

/* Lines and pages up and down, Home and End, and sideways by
 * LEARN_HSHIFT_STEP columns. */
static void pager_scroll(Learn *l, int key)
{
    int page = l->h - 3 > 1 ? l->h - 3 : 1, top = l->pager_top;
    int wide = learn_pager_wide(l), left = l->pager_left;
    if (key == TERM_KEY_UP || key == 'k')
        top--;
    else if (key == TERM_KEY_DOWN || key == 'j')
        top++;
    else if (key == TERM_KEY_NPAGE || key == ' ')
        top += page;
    else if (key == TERM_KEY_PPAGE)
        top -= page;
    else if (key == TERM_KEY_HOME || key == 'g')
        top = 0, l->pager_left = 0;
    else if (key == TERM_KEY_END || key == 'G')
        top = learn_pager_max(l);
    else if (key == TERM_KEY_RIGHT || key == '>' || key == '.')
        l->pager_left = left + LEARN_HSHIFT_STEP < wide
                        ? left + LEARN_HSHIFT_STEP : wide;
    else if (key == TERM_KEY_LEFT || key == '<' || key == ',')
        l->pager_left = left > LEARN_HSHIFT_STEP
                        ? left - LEARN_HSHIFT_STEP : 0;
    pager_to(l, top);
}

static void pager_find(Learn *l, int key)
{
    l->pager_finding = true;
    l->pager_find[0] = '\0';
}

/* n: the next line holding what / found; nothing to find, no move. */
static void pager_again(Learn *l, int key)
{
    if (!l->pager_find[0]) {
        pager_other(l, key);
        return;
    }
    l->job.follow = false;
    pager_next(l);
}

/* q, Esc or Enter: the running command stopped (its output stays). */
static void pager_stop(Learn *l, int key) { learn_run_stop(l); }

/* q, Esc or Enter once it has ended: back to the lesson. */
static void pager_back(Learn *l, int key) { l->screen = LS_LESSON; }

/* While / takes what to find: Enter finds, Esc leaves. */
static void find_enter(Learn *l, int key)
{
    l->pager_finding = false;
    l->job.follow = false;
    pager_next(l);
}

static void find_leave(Learn *l, int key) { l->pager_finding = false; }

static void find_type(Learn *l, int key)
{
    size_t n = strlen(l->pager_find);
    if (keys_is_erase(key)) {
        if (n)
            l->pager_find[n - 1] = '\0';
    } else if (key >= 0x20 && key < 0x7F && n + 1 < sizeof l->pager_find) {
        l->pager_find[n] = (char)key;
        l->pager_find[n + 1] = '\0';
    }
}

/* ----------------------------------------------------------- the table */

#define KEYS(...) {__VA_ARGS__}
#define IN(m) LM_BIT(LM_##m)
#define ENTER_KEYS '\n', '\r', TERM_KEY_ENTER
#define DIGIT_KEYS '1', '2', '3', '4', '5', '6', '7', '8', '9'
#define PAGER_UPDOWN TERM_KEY_UP, 'k', TERM_KEY_DOWN, 'j', TERM_KEY_PPAGE, \
    TERM_KEY_NPAGE, ' ', TERM_KEY_HOME, 'g', TERM_KEY_END, 'G'
#define PAGER_SIDEWAYS TERM_KEY_RIGHT, '>', '.', TERM_KEY_LEFT, '<', ','

#define LIST_BOTH (IN(LIST) | IN(LIST_BACK))
#define LESSONS (IN(LESSON) | IN(LESSON_BACK))
#define NUMBER_KEYS '0', DIGIT_KEYS

/* keys, the modes they act in, flags, the hint (N_(): xgettext takes it,
 * learn_footer translates it), what they do. No key is in two rows of
 * one mode; a footer shows its mode's hints in this order. A hint names
 * the row's keys a learner needs (Space for Space, Enter, PgDn and n);
 * every key it names acts in the row's modes. The pager's sideways keys
 * act while its command runs too, without a hint: that footer is full
 * with "stop the command". */
#define LEARN_KEYS(X)                                                         \
    X(KEYS(TERM_KEY_UP, TERM_KEY_DOWN), LIST_BOTH, 0,                         \
      N_("Up/Down choose"), list_move)                                        \
    X(KEYS(NUMBER_KEYS), LIST_BOTH, 0, NULL, list_digit)                      \
    X(KEYS(' ', ENTER_KEYS, TERM_KEY_RIGHT), LIST_BOTH, 0,                    \
      N_("Enter open"), list_open)                                            \
    X(KEYS(ESC_KEY), IN(LIST), 0, NULL, list_esc)                             \
    X(KEYS(' ', ENTER_KEYS, TERM_KEY_NPAGE, 'n'), LESSONS, 0,                 \
      N_("Space next"), next_key)                                             \
    X(KEYS(TERM_KEY_PPAGE, 'p'), LESSONS, 0, N_("PgUp back"), back_key)       \
    X(KEYS(TERM_KEY_UP, 'k', TERM_KEY_DOWN, 'j'), LESSONS, 0, NULL,           \
      text_scroll)                                                            \
    X(KEYS(TERM_KEY_LEFT, TERM_KEY_RIGHT), LESSONS, LK_WIDE,                  \
      N_("Left/Right step"), step_key)                                        \
    X(KEYS(TERM_KEY_HOME), LESSONS, 0, NULL, home_key)                        \
    X(KEYS('x'), LESSONS, 0, N_("x run"), run_key)                            \
    X(KEYS('e'), LESSONS, LK_WIDE, N_("e scene"), sandbox_key)                \
    X(KEYS('>', '.', '<', ','), LESSONS, 0, NULL, text_shift)                 \
    X(KEYS('s'), LESSONS, 0, N_("s skip"), skip_key)                          \
    X(KEYS('r'), LESSONS, 0, N_("r answer"), reveal_key)                      \
    X(KEYS(DIGIT_KEYS), LESSONS, 0, NULL, digit_key)                          \
    X(KEYS(DIGIT_KEYS), IN(PICK), 0, NULL, pick_run)                          \
    X(KEYS(ESC_KEY, 'x'), IN(PICK), 0, NULL, pick_cancel)                     \
    X(KEYS('l'), LIST_BOTH | LESSONS | IN(PICK), LK_WIDE,                     \
      N_("l language"), lang_key)                                             \
    X(KEYS('o'), LESSONS, 0, N_("o lessons"), lessons_key)                    \
    X(KEYS(ESC_KEY), LESSONS, 0, NULL, lesson_esc)                            \
    X(KEYS('q'), IN(LIST) | IN(LESSON) | IN(PICK), 0, N_("q quit"),           \
      quit_key)                                                               \
    X(KEYS('q', ESC_KEY), IN(LIST_BACK), 0,                                   \
      N_("q/Esc back to the visualizer"), quit_key)                           \
    X(KEYS('q'), IN(LESSON_BACK), 0, N_("q back to the visualizer"),          \
      quit_key)                                                               \
    X(KEYS(ENTER_KEYS), IN(PROMPT), 0, N_("Enter check"), prompt_enter)       \
    X(KEYS('s', 'r'), IN(PROMPT), 0, N_("s or r, Enter: skip or answer"),     \
      prompt_type)                                                            \
    X(KEYS(ESC_KEY), IN(PROMPT), 0, N_("Esc leave"), prompt_leave)            \
    X(KEYS(CTRL_U), IN(PROMPT), 0, NULL, prompt_clear)                        \
    X(KEYS(CTRL_E), IN(PROMPT), 0, NULL, prompt_edit)                         \
    X(KEYS(PAGER_UPDOWN), IN(PAGER_RUN), 0,                                   \
      N_("Up/Down PgUp/PgDn Home/End scroll"), pager_scroll)                  \
    X(KEYS(PAGER_UPDOWN, PAGER_SIDEWAYS), IN(PAGER), 0,                       \
      N_("Up/Down PgUp/PgDn Home/End Left/Right scroll"), pager_scroll)       \
    X(KEYS(PAGER_SIDEWAYS), IN(PAGER_RUN), 0, NULL, pager_scroll)             \
    X(KEYS('/'), IN(PAGER) | IN(PAGER_RUN), 0, N_("/ find"), pager_find)      \
    X(KEYS('n'), IN(PAGER) | IN(PAGER_RUN), 0, NULL, pager_again)             \
    X(KEYS('q', ESC_KEY, ENTER_KEYS), IN(PAGER_RUN), 0,                       \
      N_("q or Esc stop the command"), pager_stop)                            \
    X(KEYS('q', ESC_KEY, ENTER_KEYS), IN(PAGER), 0, N_("q or Esc back"),      \
      pager_back)                                                             \
    X(KEYS(ENTER_KEYS), IN(FIND), 0, NULL, find_enter)                        \
    X(KEYS(ESC_KEY), IN(FIND), 0, NULL, find_leave)

static const LearnKey rows[] = {
#define X(keys, modes, flags, label, act) {keys, modes, flags, label, act},
    LEARN_KEYS(X)
#undef X
};

#define NROWS (sizeof rows / sizeof rows[0])

/* Each mode: how its footer's hints are set apart, and what a key no row
 * binds does there (NULL: nothing). */
static const struct {
    const char *sep;                  /* between two hints */
    void (*other)(Learn *l, int key); /* any other key */
} modes[LM_COUNT] = {
    [LM_LIST] = {"   ", NULL},
    [LM_LIST_BACK] = {"   ", NULL},
    [LM_LESSON] = {"  ", NULL},
    [LM_LESSON_BACK] = {"  ", NULL},
    [LM_PICK] = {"  ", pick_other},
    [LM_PROMPT] = {"   ", prompt_type},
    [LM_PAGER] = {"  ", pager_other},
    [LM_PAGER_RUN] = {"  ", pager_other},
    [LM_FIND] = {"", find_type},
};

size_t learn_keys_count(void) { return NROWS; }

const LearnKey *learn_keys_at(size_t i)
{
    return i < NROWS ? &rows[i] : NULL;
}

const LearnKey *learn_keys_find(LearnMode m, int key)
{
    for (size_t i = 0; i < NROWS; i++) {
        if (!(rows[i].modes & LM_BIT(m)))
            continue;
        for (const int *k = rows[i].keys; *k; k++)
            if (*k == key)
                return &rows[i];
    }
    return NULL;
}

LearnMode learn_mode(const Learn *l)
{
    if (l->screen == LS_PAGER)
        return l->pager_finding ? LM_FIND
               : learn_running(l) ? LM_PAGER_RUN : LM_PAGER;
    if (l->screen == LS_LIST)
        return l->back ? LM_LIST_BACK : LM_LIST;
    return l->ask.open    ? LM_PROMPT
           : l->run_pick  ? LM_PICK
           : l->back      ? LM_LESSON_BACK
                          : LM_LESSON;
}

static void dispatch(Learn *l, LearnMode m, int key)
{
    const LearnKey *k = learn_keys_find(m, key);
    if (k)
        k->act(l, key);
    else if (modes[m].other)
        modes[m].other(l, key);
}

void learn_key(Learn *l, int key)
{
    if (key < '0' || key > '9')
        l->typed = 0; /* a lesson's number is digits in a row */
    dispatch(l, learn_mode(l), key);
}

/* The hints of mode m's rows, the LK_WIDE ones only when wide. */
static void hints(LearnMode m, bool wide, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < NROWS && n + 1 < len; i++) {
        const LearnKey *k = &rows[i];
        if (!k->label || !(k->modes & LM_BIT(m)) ||
            (!wide && (k->flags & LK_WIDE)))
            continue;
        int w = snprintf(out + n, len - n, "%s%s", n ? modes[m].sep : "",
                         _(k->label));
        if (w < 0)
            break;
        n += (size_t)w < len - n ? (size_t)w : len - n - 1;
    }
}

const char *learn_footer(LearnMode m, int width, char *out, size_t len)
{
    if (!len)
        return out;
    hints(m, true, out, len);
    if (grid_text_width(out) > width)
        hints(m, false, out, len);
    return out;
}
