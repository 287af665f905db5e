/* learn_draw.c - the lesson player's screens (learn.h): the list of
 * lessons, a lesson's text reflowed by display columns beside its
 * picture (the buffers view over the lesson's scene), the answer prompt,
 * and the pager. Drawing only reads the Learn. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/learn.h"
#include "ui/scene.h"
#include "ui/view.h"

/* ------------------------------------------------------------- lines */

/* One line of the text pane. */
typedef struct {
    char *s;   /* UTF-8 text */
    Role role; /* its colour */
    unsigned attr; /* GRID_BOLD ... */
    bool block;    /* a line of an indented block: shown as it is, and
                      shifted sideways (cur.hshift) where it is wider */
} Line;

typedef struct {
    Line *l;   /* the lines */
    int n;     /* how many */
    int cap;   /* allocated */
} Lines;

static void add(Lines *ls, const char *s, size_t n, Role r, unsigned attr)
{
    if (ls->n == ls->cap) {
        int cap = ls->cap ? 2 * ls->cap : 64;
        Line *nl = realloc(ls->l, (size_t)cap * sizeof *nl);
        if (!nl)
            return;
        ls->l = nl, ls->cap = cap;
    }
    char *c = malloc(n + 1);
    if (!c)
        return;
    memcpy(c, s, n);
    c[n] = '\0';
    ls->l[ls->n++] = (Line){c, r, attr, false};
}

static void lines_free(Lines *ls)
{
    for (int i = 0; i < ls->n; i++)
        free(ls->l[i].s);
    free(ls->l);
}

/* The code point at s and its length in bytes (1 for a bad byte). */
static uint32_t cp_at(const char *s, int *len)
{
    const unsigned char *u = (const unsigned char *)s;
    int n = u[0] < 0x80 ? 1 : u[0] >= 0xF0 ? 4 : u[0] >= 0xE0 ? 3
          : u[0] >= 0xC0 ? 2 : 1;
    uint32_t c = n == 1 ? u[0] : u[0] & (0x3F >> (n - 1));
    for (int i = 1; i < n; i++) {
        if ((u[i] & 0xC0) != 0x80) {
            *len = 1;
            return '?';
        }
        c = c << 6 | (u[i] & 0x3F);
    }
    *len = n;
    return c;
}

static bool wide_at(const char *s)
{
    int n;
    return *s && grid_cp_width(cp_at(s, &n)) == 2;
}

/* Join the lines of a paragraph: a space where the break sits between
 * words, nothing where it sits next to a CJK character. */
static char *join(const char *t)
{
    size_t n = strlen(t);
    char *o = malloc(n + 1), *w = o;
    if (!o)
        return NULL;
    for (const char *s = t; *s; s++) {
        if (*s == '`') /* a lesson's `code` marks are not shown (P11) */
            continue;
        if (*s != '\n') {
            *w++ = *s;
            continue;
        }
        bool before = false;
        if (s > t) { /* the first byte of the character before the break */
            const char *q = s - 1;
            while (q > t && (((unsigned char)*q) & 0xC0) == 0x80)
                q--;
            before = wide_at(q);
        }
        if (!before && !wide_at(s + 1))
            *w++ = ' ';
    }
    *w = '\0';
    return o;
}

/* Wrap text to width columns as grid_wrap_line breaks it (at blanks, or
 * between two characters where one is CJK, never next to the wrong side
 * of punctuation), each line after `indent` blanks. */
static void wrap(Lines *ls, const char *text, int width, Role r,
                 unsigned attr, int indent)
{
    static const char pad[] = "        ";
    const char *s = text;
    while (*s) {
        const char *end, *next = grid_wrap_line(s, width - indent, &end);
        char buf[2048];
        snprintf(buf, sizeof buf, "%.*s%.*s", indent, pad, (int)(end - s), s);
        add(ls, buf, strlen(buf), r, attr);
        s = next;
    }
}

/* Where line s (n bytes) can break to fit width columns: the last " -> "
 * or " => " (a trace line's transfer and its result) whose text before
 * it fits, or for a command (words) the last blank before an option (the
 * last blank where none is); 0 where none does. */
static size_t line_break(const char *s, size_t n, int width, bool words)
{
    size_t at = 0, opt = 0;
    int cols = 0;
    for (size_t i = 0; i < n && cols <= width;) {
        if (words ? i > 0 && s[i] == ' '
                  : i > 0 && n - i > 4 && s[i] == ' ' && s[i + 2] == '>' &&
                        s[i + 3] == ' ' && (s[i + 1] == '-' || s[i + 1] == '='))
            at = i;
        if (words && i > 0 && s[i] == ' ' && s[i + 1] == '-')
            opt = i; /* before an option: it stays with its value */
        int k;
        cols += grid_cp_width(cp_at(s + i, &k));
        i += (size_t)k;
    }
    return opt ? opt : at;
}

/* Each line of a block as it is. A line wider than width is wrapped (P6):
 * a trace line before its " -> " and " => " where it can be, a command
 * (number: the commands of an @run, numbered) at its blanks, the rest
 * indented under it, so that a trace line's result and a command's last
 * options stay in view; what still does not fit scrolls sideways (the
 * drawing). */
static void block(Lines *ls, const char *t, Role r, int indent, int number,
                  int width)
{
    int k = 1;
    for (const char *s = t; *s;) {
        size_t n = strcspn(s, "\n");
        char buf[2048];
        const char *line = s;
        size_t len = n;
        int pad = indent, num = number ? k++ : 0;
        int lead = number ? snprintf(NULL, 0, "%d ", num) : 0;
        for (;;) {
            char piece[2048];
            snprintf(piece, sizeof piece, "%.*s", (int)len, line);
            size_t take = len, cut;
            if (pad + lead + grid_text_width(piece) > width &&
                (cut = line_break(line, len, width - pad - lead,
                                  number)) > 0)
                take = cut;
            if (num)
                snprintf(buf, sizeof buf, "%*s%d %.*s", pad, "", num,
                         (int)take, line);
            else
                snprintf(buf, sizeof buf, "%*s%.*s", pad + lead, "",
                         (int)take, line);
            add(ls, buf, strlen(buf), r, 0);
            if (ls->n)
                ls->l[ls->n - 1].block = true;
            if (take == len)
                break;
            line += take + 1, len -= take + 1; /* from the break on */
            pad = indent + 4, num = 0;
        }
        s += n + (s[n] == '\n');
    }
}

static const char *result_text(char r)
{
    switch ((CheckResult)r) {
    case CP_RIGHT: return _("answered right");
    case CP_SKIPPED: return _("skipped");
    case CP_REVEALED: return _("answer shown");
    case CP_OPEN: break;
    }
    return "";
}

/* The lines of items [0, pos) at width. */
static void lesson_lines(const Learn *l, const ProgressEntry *e, int width,
                         Lines *ls)
{
    const LearnLesson *c = &l->cur;
    for (size_t i = 0; i < c->pos; i++) {
        const LessonItem *it = &c->les.items[i];
        char *j = NULL, buf[512];
        switch (it->kind) {
        case LI_PARA:
            if ((j = join(it->text)) != NULL)
                wrap(ls, j, width, ROLE_NORMAL, 0, 0);
            free(j);
            break;
        case LI_BLOCK:
            block(ls, it->text, ROLE_VALUE, 2, 0, width);
            break;
        case LI_RUN: {
            const char *try = strchr(it->text, '\n')
                ? _("Try (x, then the command's number):")
                : _("Try (x runs it):");
            add(ls, try, strlen(try), ROLE_DIM, 0);
            block(ls, it->text, ROLE_KEY, 2, 1, width);
            break;
        }
        case LI_SCENE:
            snprintf(buf, sizeof buf, "%s %s", _("Scene:"), it->text);
            wrap(ls, buf, width, ROLE_DIM, 0, 0);
            continue;
        case LI_STEP:
            continue;
        case LI_CHECK: {
            snprintf(buf, sizeof buf, "? %s", it->text);
            wrap(ls, buf, width, ROLE_FOCUS, GRID_BOLD, 0);
            /* its choices, one a line: a letter or the text answers */
            for (size_t ch = 0; ch < it->nchoices; ch++) {
                snprintf(buf, sizeof buf, "%c) %s", (char)('a' + ch),
                         it->choices[ch]);
                wrap(ls, buf, width, ROLE_FOCUS, 0, 2);
            }
            int k = it->check;
            char r = e && k >= 0 && (size_t)k < strlen(e->results)
                     ? e->results[k] : 0;
            const char *rt = result_text(r);
            if (*rt) {
                snprintf(buf, sizeof buf, "  %s", rt);
                add(ls, buf, strlen(buf), r == CP_RIGHT ? ROLE_OK : ROLE_DIM, 0);
            }
            break;
        }
        case LI_COUNT:
            continue;
        }
        add(ls, "", 0, ROLE_NORMAL, 0);
    }
}

/* ---------------------------------------------------------------- frame */

static void header(Grid *g, const char *left, const char *right)
{
    Rect r = {0, 0, g->w, 1};
    grid_fill(g, r, ' ', ROLE_HEADER, GRID_REVERSE);
    int rw = grid_text_width(right);
    grid_text(g, r, 1, 0, g->w - rw - 3, ROLE_HEADER, GRID_REVERSE | GRID_BOLD,
              left);
    grid_text(g, r, g->w - rw - 1, 0, rw, ROLE_HEADER, GRID_REVERSE, right);
}

/* The most rows the status sentence takes, wrapped. */
#define MSG_MAX_ROWS 3

/* Rows the status sentence takes at the bottom (at least one). */
static int msg_rows(const Learn *l, const Grid *g)
{
    Lines ls = {0};
    wrap(&ls, l->msg, g->w - 2, ROLE_NORMAL, 0, 0);
    int n = ls.n < 1 ? 1 : ls.n > MSG_MAX_ROWS ? MSG_MAX_ROWS : ls.n;
    lines_free(&ls);
    return n;
}

/* The status sentence, wrapped above the key hints on the last row. */
static void footer(const Learn *l, Grid *g, const char *hints)
{
    Rect r = {0, 0, g->w, g->h};
    Lines ls = {0};
    wrap(&ls, l->msg, g->w - 2, l->msg_role, 0, 0);
    int n = msg_rows(l, g);
    for (int i = 0; i < ls.n && i < n; i++)
        grid_text(g, r, 1, g->h - 1 - n + i, g->w - 2, l->msg_role, 0,
                  ls.l[i].s);
    lines_free(&ls);
    grid_text(g, r, 1, g->h - 1, g->w - 2, ROLE_KEY, 0, hints);
}

static void too_small(const Learn *l, Grid *g)
{
    char a[160];
    snprintf(a, sizeof a, _("The terminal is %dx%d; collviz learn needs at "
                            "least %dx%d."), g->w, g->h, LEARN_MIN_W,
             LEARN_MIN_H);
    const char *b = _("Make it larger, or press q to quit.");
    Rect r = grid_rect(g);
    for (int i = 0; i < 2; i++) {
        const char *t = i ? b : a;
        int x = (r.w - grid_text_width(t)) / 2;
        grid_text(g, r, x < 0 ? 0 : x, r.h / 2 - 1 + i, r.w,
                  i ? ROLE_DIM : ROLE_WARN, 0, t);
    }
}

/* --------------------------------------------------------------- list */

void learn_score(const Learn *l, size_t i, LearnScore *sc)
{
    ProgressEntry *e = progress_get((Progress *)&l->prog, l->list[i].name,
                                    false);
    *sc = (LearnScore){.checks = l->nchecks[i], .started = e != NULL};
    if (!e)
        return;
    sc->done = e->dirs > l->end[i][0] ||
               (e->dirs == l->end[i][0] && e->texts >= l->end[i][1]);
    for (size_t k = 0; e->results[k] && k < sc->checks; k++) {
        sc->right += e->results[k] == CP_RIGHT;
        sc->skipped += e->results[k] == CP_SKIPPED;
        sc->shown += e->results[k] == CP_REVEALED;
    }
}

/* A lesson's line in the list: not started, in progress (right k of n)
 * or done (right k of n, and what was skipped or shown). */
static void status_of(const Learn *l, size_t i, char *out, size_t n)
{
    LearnScore sc;
    learn_score(l, i, &sc);
    if (!sc.started) {
        snprintf(out, n, "%s", _("not started"));
        return;
    }
    if (!sc.checks) {
        snprintf(out, n, "%s", sc.done ? _("done") : _("in progress"));
        return;
    }
    int k = snprintf(out, n, sc.done ? _("done: %zu/%zu right")
                                     : _("in progress: %zu/%zu right"),
                     sc.right, sc.checks);
    if (sc.done && sc.skipped && k > 0 && (size_t)k < n)
        k += snprintf(out + k, n - (size_t)k, _(", %zu skipped"), sc.skipped);
    if (sc.done && sc.shown && k > 0 && (size_t)k < n)
        snprintf(out + k, n - (size_t)k, _(", %zu shown"), sc.shown);
}

static void draw_list(const Learn *l, Grid *g)
{
    Rect r = grid_rect(g);
    /* the score of the whole course beside the language */
    size_t right = 0, checks = 0;
    for (size_t i = 0; i < l->nlist; i++) {
        LearnScore sc;
        learn_score(l, i, &sc);
        right += sc.right, checks += sc.checks;
    }
    char score[120];
    snprintf(score, sizeof score, _("right %zu of %zu   %s"), right, checks,
             ui_lang_name(l->lang));
    header(g, _("collviz learn: lessons"), score);
    /* the status column as wide as its widest line, the titles the rest */
    int sw = 8, rows = g->h - 5; /* rows 2 .. h - 4 */
    for (size_t i = 0; i < l->nlist; i++) {
        char st[80];
        status_of(l, i, st, sizeof st);
        int w = grid_text_width(st) + 2;
        sw = w > sw ? w : sw;
    }
    sw = sw < g->w / 2 ? sw : g->w / 2;
    /* the list scrolls so that the highlight is always shown */
    size_t top = rows > 0 && l->sel >= rows ? (size_t)(l->sel - rows + 1) : 0;
    for (size_t i = top; i < l->nlist && (int)(i - top) < rows; i++) {
        int y = (int)(i - top) + 2;
        bool sel = (int)i == l->sel;
        Role role = sel ? ROLE_MENU_SEL : ROLE_MENU;
        if (sel)
            grid_fill(g, (Rect){1, y, g->w - 2, 1}, ' ', role, 0);
        char num[16], st[80];
        snprintf(num, sizeof num, "%2d", l->list[i].number);
        grid_text(g, r, 2, y, 3, role, GRID_BOLD, num);
        grid_text_cut(g, r, 6, y, g->w - sw - 8, role, 0, l->titles[i]);
        status_of(l, i, st, sizeof st);
        grid_text(g, r, g->w - sw - 1, y, sw, sel ? role : ROLE_DIM, 0, st);
    }
    char keys[512];
    footer(l, g, learn_footer(learn_mode(l), g->w - 2, keys, sizeof keys));
}

/* -------------------------------------------------------------- lesson */

/* Whether the checkpoint being asked counts steps (its query is steps or
 * msgsteps, not answered yet): the picture's title then keeps the total
 * to itself, or it would stand beside the question as its answer. */
static bool steps_asked(const Learn *l)
{
    const LearnLesson *c = &l->cur;
    if (!c->pos || c->les.items[c->pos - 1].kind != LI_CHECK)
        return false;
    const LessonItem *it = &c->les.items[c->pos - 1];
    ProgressEntry *e = c->index >= 0
        ? progress_get((Progress *)&l->prog, l->list[c->index].name, false)
        : NULL;
    if (!it->query || (e && it->check >= 0 &&
                       (size_t)it->check < strlen(e->results) &&
                       e->results[it->check] != CP_OPEN))
        return false;
    size_t n = strcspn(it->query, " \t");
    return (n == 5 && !strncmp(it->query, "steps", 5)) ||
           (n == 8 && !strncmp(it->query, "msgsteps", 8));
}

static void draw_picture(const Learn *l, Grid *g, Rect r)
{
    const LearnLesson *c = &l->cur;
    char title[700], total[24] = "?";
    if (c->picture) {
        /* the scene shown: the learner's in the sandbox (X11) */
        const char *shown = c->sandbox ? c->sandbox_line
                                       : c->les.items[c->scene].text;
        if (!steps_asked(l))
            snprintf(total, sizeof total, "%zu", l->app.scene->sched.nsteps);
        snprintf(title, sizeof title, " %s %zu/%s%s: %s ", _("step"),
                 l->app.scene->step, total, c->sandbox ? _(" (yours)") : "",
                 shown);
    } else
        snprintf(title, sizeof title, " %s ", _("picture"));
    Rect in = grid_box(g, r, ROLE_BORDER, title, ROLE_TITLE);
    if (c->picture && c->pic_scale[0]) {
        Lines ls = {0};
        wrap(&ls, c->pic_scale, in.w > 2 ? in.w - 2 : 1, ROLE_WARN, 0, 0);
        int n = ls.n < in.h / 2 ? ls.n : in.h / 2;
        for (int i = 0; i < n; i++)
            grid_text(g, in, in.x + 1, in.y + i, in.w - 2, ls.l[i].role, 0,
                      ls.l[i].s);
        lines_free(&ls);
        in.y += n, in.h -= n;
    }
    if (c->picture) {
        view_buffers.draw(&l->app, g, in);
        return;
    }
    const char *note = c->pic_note[0] ? c->pic_note
                       : _("(No picture for this part of the lesson.)");
    Lines ls = {0};
    wrap(&ls, note, in.w > 2 ? in.w - 2 : 1, ROLE_DIM, 0, 0);
    for (int i = 0; i < ls.n && i < in.h; i++)
        grid_text(g, in, in.x + 1, in.y + i, in.w - 2, ls.l[i].role, 0,
                  ls.l[i].s);
    lines_free(&ls);
}

/* The columns of the text pane on a screen w columns wide. */
static int text_width(int w)
{
    return (w >= 120 ? w * 9 / 20 : w / 2) - 2;
}

/* Lines of the text shown, trailing blank lines left out. */
static int text_lines(const Learn *l, int width, Lines *ls)
{
    ProgressEntry *e = l->cur.index >= 0
        ? progress_get((Progress *)&l->prog, l->list[l->cur.index].name, false)
        : NULL;
    lesson_lines(l, e, width, ls);
    int n = ls->n;
    while (n > 0 && !ls->l[n - 1].s[0])
        n--;
    return n;
}

int learn_scroll_max(const Learn *l)
{
    Lines ls = {0};
    int n = text_lines(l, text_width(l->w), &ls);
    lines_free(&ls);
    int body = l->h - 4; /* the least the pane has */
    return n > body ? n - body : 0;
}

/* The columns the widest block line of lines [from, to) goes beyond
 * width. */
static int overflow(const Lines *ls, int from, int to, int width)
{
    int most = 0;
    for (int i = from; i < to && i < ls->n; i++) {
        int w = ls->l[i].block ? grid_text_width(ls->l[i].s) - width : 0;
        if (w > most)
            most = w;
    }
    return most;
}

int learn_hshift_max(const Learn *l)
{
    Lines ls = {0};
    int w = text_width(l->w);
    int n = text_lines(l, w, &ls);
    int most = overflow(&ls, 0, n, w - 1); /* a column for the mark */
    lines_free(&ls);
    return most;
}

/* s past its first cols display columns. */
static const char *skip_cols(const char *s, int cols)
{
    int n;
    while (*s && cols > 0) {
        cols -= grid_cp_width(cp_at(s, &n));
        s += n;
    }
    return s;
}

/* One block line shifted sideways by shift columns, with a mark where it
 * goes on to the left or to the right of the pane. */
static void block_line(Grid *g, Rect r, int y,
                       const Line *ln, int shift)
{
    int w = grid_text_width(ln->s);
    const char *s = skip_cols(ln->s, shift);
    bool left = shift > 0 && w > 0, right = w - shift > r.w;
    int x = r.x + left;
    grid_text(g, r, x, y, r.w - left - right, ln->role, ln->attr, s);
    if (left)
        grid_text(g, r, r.x, y, 1, ROLE_WARN, GRID_BOLD, "<");
    if (right)
        grid_text(g, r, r.x + r.w - 1, y, 1, ROLE_WARN, GRID_BOLD, ">");
}

static void draw_text(const Learn *l, Grid *g, Rect r)
{
    Lines ls = {0};
    int n = text_lines(l, r.w, &ls);
    int first = n - r.h - l->cur.scroll;
    if (first < 0)
        first = 0;
    /* a block wider than the pane on screen: the last rows say so */
    int shift = l->cur.hshift;
    int most = overflow(&ls, 0, n, r.w - 1);
    if (shift > most)
        shift = most;
    int end = first + r.h < n ? first + r.h : n;
    Lines note = {0};
    /* said only while such a block is in view (P6) */
    int vis = overflow(&ls, first, end, r.w - 1);
    if (r.h > 3 && vis > 0)
        wrap(&note, shift < vis ? _("A block is cut at the pane's edge: > "
                                    "scrolls it sideways, < back.")
                                : _("The block's end: < scrolls back."),
             r.w, ROLE_WARN, 0, 0);
    int rows = r.h - (note.n < 2 ? note.n : 2);
    if (note.n && (first = n - rows - l->cur.scroll) < 0)
        first = 0;
    for (int i = first, y = r.y; i < n && y < r.y + rows; i++, y++) {
        if (ls.l[i].block)
            block_line(g, r, y, &ls.l[i], shift);
        else
            grid_text(g, r, r.x, y, r.w, ls.l[i].role, ls.l[i].attr,
                      ls.l[i].s);
    }
    for (int i = 0; i < note.n && rows + i < r.h; i++)
        grid_text(g, r, r.x, r.y + rows + i, r.w, ROLE_WARN, 0, note.l[i].s);
    lines_free(&note);
    lines_free(&ls);
}

static void draw_lesson(const Learn *l, Grid *g)
{
    const LearnLesson *c = &l->cur;
    char right[80];
    snprintf(right, sizeof right, "%s  %zu/%zu", ui_lang_name(l->lang),
             c->pos, c->les.nitems);
    header(g, c->les.title, right);
    int nmsg = msg_rows(l, g);
    int body = g->h - 2 - nmsg - l->ask.open; /* the prompt takes a row */
    int tw = text_width(g->w) + 2;
    draw_text(l, g, (Rect){1, 1, tw - 2, body});
    draw_picture(l, g, (Rect){tw, 1, g->w - tw, body});
    char keys[512];
    if (l->ask.open) {
        Rect r = grid_rect(g);
        char p[700];
        snprintf(p, sizeof p, "%s %s", l->ask.scene_box ? _("Your scene:")
                                                      : _("Your answer:"),
                 l->ask.text);
        int y = g->h - 2 - nmsg;
        int x = 1 + grid_text(g, r, 1, y, g->w - 3, ROLE_VALUE, GRID_BOLD, p);
        grid_put(g, r, x, y, ' ', ROLE_VALUE, GRID_REVERSE);
        footer(l, g, learn_footer(LM_PROMPT, g->w - 2, keys, sizeof keys));
        return;
    }
    /* the keys, fewer of them where the screen is narrow: q quit always
       shown (P13) */
    footer(l, g, learn_footer(l->back ? LM_LESSON_BACK : LM_LESSON, g->w - 2,
                              keys, sizeof keys));
}

/* --------------------------------------------------------------- pager */

/* The pager's rows of text (between its header and its two lines of
 * status and keys). */
static int pager_rows(const Learn *l) { return l->h - 3 > 1 ? l->h - 3 : 1; }

/* The pager's lines; the widest one's width in *wide (may be NULL). */
static int pager_lines(const Learn *l, int *wide)
{
    const char *s = l->pager ? l->pager : "";
    int n = 0, most = 0;
    while (*s) {
        size_t k = strcspn(s, "\n");
        if (wide) {
            char buf[4096];
            snprintf(buf, sizeof buf, "%.*s", (int)(k < 4095 ? k : 4095), s);
            int w = grid_text_width(buf);
            most = w > most ? w : most;
        }
        n++;
        s += k + (s[k] == '\n');
    }
    if (wide)
        *wide = most;
    return n;
}

int learn_pager_max(const Learn *l)
{
    int n = pager_lines(l, NULL) - pager_rows(l);
    return n > 0 ? n : 0;
}

int learn_pager_wide(const Learn *l)
{
    int w;
    pager_lines(l, &w);
    w -= l->w;
    return w > 0 ? w : 0;
}

static void draw_pager(const Learn *l, Grid *g)
{
    char right[80] = "";
    int n = pager_lines(l, NULL), rows = pager_rows(l);
    if (learn_running(l))
        snprintf(right, sizeof right, _("running %.0f s"), l->job.elapsed);
    else if (n > rows)
        snprintf(right, sizeof right, _("lines %d-%d of %d"),
                 l->pager_top + 1, l->pager_top + rows < n
                 ? l->pager_top + rows : n, n);
    header(g, l->pager_title, right);
    Rect r = grid_rect(g);
    const char *s = l->pager ? l->pager : "";
    for (int k = 0; k < l->pager_top && *s; k++)
        s += strcspn(s, "\n") + (s[strcspn(s, "\n")] == '\n');
    for (int y = 1; y <= rows && *s; y++) {
        size_t k = strcspn(s, "\n");
        char buf[4096];
        snprintf(buf, sizeof buf, "%.*s", (int)(k < 4095 ? k : 4095), s);
        Line ln = {.s = buf, .role = ROLE_NORMAL};
        block_line(g, r, y, &ln, l->pager_left);
        s += k + (s[k] == '\n');
    }
    /* what / is finding as it is typed, else the keys */
    char keys[512];
    LearnMode m = learn_mode(l);
    if (m == LM_FIND)
        snprintf(keys, sizeof keys, "%s %s_", _("Find:"), l->pager_find);
    else
        learn_footer(m, g->w - 2, keys, sizeof keys);
    footer(l, g, keys);
}

void learn_draw(const Learn *l, Grid *g)
{
    g->ascii = l->ascii;
    grid_clear(g);
    if (g->w < LEARN_MIN_W || g->h < LEARN_MIN_H)
        too_small(l, g);
    else if (l->screen == LS_LIST)
        draw_list(l, g);
    else if (l->screen == LS_PAGER)
        draw_pager(l, g);
    else
        draw_lesson(l, g);
}
