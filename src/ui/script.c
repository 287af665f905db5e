/* script.c - scripted mode: parse, apply, run frame by frame. */
#include "ui/script.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/sched.h"
#include "ui/keys.h"
#include "ui/screen.h"
#include "ui/share.h"
#include "ui/worker.h"

/* ------------------------------------------------------------ parsing */

/* A tokenizer over the script text. */
typedef struct {
    const char *p; /* next character */
    int line;      /* line of p, from 1 */
    char word[64]; /* the last word read */
} Lexer;

/* Read the next word into lx->word; false at the end. */
static bool next_word(Lexer *lx)
{
    for (;;) {
        while (*lx->p && isspace((unsigned char)*lx->p))
            lx->line += *lx->p++ == '\n';
        if (*lx->p != '#')
            break;
        while (*lx->p && *lx->p != '\n')
            lx->p++;
    }
    size_t n = 0;
    while (*lx->p && !isspace((unsigned char)*lx->p)) {
        if (n + 1 < sizeof lx->word)
            lx->word[n++] = *lx->p;
        lx->p++;
    }
    lx->word[n] = '\0';
    return n > 0;
}

static bool read_int(Lexer *lx, int *v)
{
    char *end;
    if (!next_word(lx))
        return false;
    long x = strtol(lx->word, &end, 10);
    if (*end || x < -100000 || x > 100000)
        return false;
    *v = (int)x;
    return true;
}

static CvError push(Script *s, const ScriptItem *it)
{
    if (s->n >= SCRIPT_MAX_FRAMES)
        return CV_ERR_LIMIT;
    ScriptItem *n = grow_array(s->items, &s->cap, s->n + 1, sizeof *n, 64);
    if (!n)
        return CV_ERR_NOMEM;
    s->items = n;
    s->items[s->n++] = *it;
    return CV_OK;
}

/* Parse the arguments of a command word into it; false when malformed. */
static bool parse_command(Lexer *lx, const char *cmd, ScriptItem *it)
{
    if (!strcmp(cmd, "click")) {
        it->kind = SCRIPT_CLICK;
        return read_int(lx, &it->a) && read_int(lx, &it->b);
    }
    if (!strcmp(cmd, "wheel")) {
        it->kind = SCRIPT_WHEEL;
        it->a = next_word(lx) && !strcmp(lx->word, "up") ? -1 : 1;
        return !strcmp(lx->word, "up") || !strcmp(lx->word, "down");
    }
    if (!strcmp(cmd, "resize")) {
        it->kind = SCRIPT_RESIZE;
        return next_word(lx) &&
               sscanf(lx->word, "%dx%d", &it->a, &it->b) == 2 && it->a > 0 &&
               it->b > 0 && it->a <= 1000 && it->b <= 1000;
    }
    if (!strcmp(cmd, "seek")) {
        it->kind = SCRIPT_ACT;
        it->req.act = ACT_SEEK;
        return read_int(lx, &it->req.a) && it->req.a >= 0;
    }
    if (!strcmp(cmd, "select")) {
        int b = -1;
        it->kind = SCRIPT_ACT;
        it->req.act = ACT_SELECT_CELL;
        bool ok = read_int(lx, &it->req.a) && next_word(lx) &&
                  (b = buf_parse(lx->word)) >= 0 && read_int(lx, &it->req.b);
        it->req.c = it->req.b;
        it->req.b = b;
        return ok;
    }
    if (!strcmp(cmd, "act")) {
        int a = next_word(lx) ? action_parse(lx->word) : -1;
        it->kind = SCRIPT_ACT;
        it->req.act = (Action)(a < 0 ? 0 : a);
        return a > 0;
    }
    return false;
}

static bool is_command(const char *w)
{
    static const char *const cmds[] = {"click", "wheel", "resize", "seek",
                                       "select", "act"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(w, cmds[i]))
            return true;
    return false;
}

/* "tick [N]": N ticks (the count is optional). */
static CvError parse_tick(Lexer *lx, Script *s)
{
    const char *save = lx->p;
    int line = lx->line, n = 1;
    char *end;
    if (next_word(lx)) {
        long v = strtol(lx->word, &end, 10);
        if (!*end && v > 0 && v <= 100000)
            n = (int)v;
        else
            lx->p = save, lx->line = line;
    }
    ScriptItem it = {.kind = SCRIPT_TICK};
    CvError e = CV_OK;
    for (int i = 0; i < n && !e; i++)
        e = push(s, &it);
    return e;
}

/* One word (and its arguments). */
static CvError parse_word(Lexer *lx, Script *s, char *why, size_t len)
{
    char w[64];
    int line = lx->line;
    snprintf(w, sizeof w, "%s", lx->word);
    ScriptItem it = {.kind = SCRIPT_KEY};
    if (!strcmp(w, "tick"))
        return parse_tick(lx, s);
    if (!strcmp(w, "wait") || !strcmp(w, "dump")) {
        it.kind = w[0] == 'w' ? SCRIPT_WAIT : SCRIPT_DUMP;
        return push(s, &it);
    }
    if (is_command(w)) {
        if (!parse_command(lx, w, &it)) {
            snprintf(why, len, "line %d: '%s' needs valid arguments "
                     "(see collviz tui --help).", line, w);
            return CV_ERR_ARG;
        }
        return push(s, &it);
    }
    if ((it.key = keys_parse(w)) < 0) {
        snprintf(why, len, "line %d: '%s' is neither a key nor a command.",
                 line, w);
        return CV_ERR_ARG;
    }
    return push(s, &it);
}

CvError script_parse(const char *text, Script *out, char *why, size_t len)
{
    Lexer lx = {.p = text, .line = 1};
    CvError e = CV_OK;
    memset(out, 0, sizeof *out);
    if (len)
        why[0] = '\0';
    while (!e && next_word(&lx))
        e = parse_word(&lx, out, why, len);
    if (e == CV_ERR_LIMIT)
        snprintf(why, len, "line %d: the script would run more than %d "
                 "frames, the most a script may run.", lx.line,
                 SCRIPT_MAX_FRAMES);
    else if (e == CV_ERR_NOMEM)
        snprintf(why, len, "line %d: there is not enough memory to hold "
                 "the script.", lx.line);
    if (e)
        script_fini(out);
    return e;
}

void script_fini(Script *s)
{
    free(s->items);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------ running */

void script_apply(App *app, const ScriptItem *it)
{
    Request r = {.act = ACT_NONE};
    switch (it->kind) {
    case SCRIPT_KEY: r = app_key(app, it->key); break;
    case SCRIPT_CLICK:
        if (!screen_click(app, it->a, it->b, &r))
            r.act = ACT_NONE;
        break;
    case SCRIPT_WHEEL:
        r.act = it->a < 0 ? ACT_SCROLL_UP : ACT_SCROLL_DOWN;
        break;
    case SCRIPT_RESIZE: r = (Request){.act = ACT_RESIZE, .a = it->a, .b = it->b}; break;
    case SCRIPT_TICK: r.act = ACT_TICK; break;
    case SCRIPT_WAIT:
        if (app->bg.worker)
            worker_wait(app->bg.worker);
        break;
    case SCRIPT_ACT: r = it->req; break;
    case SCRIPT_DUMP:
    case SCRIPT_KIND_COUNT: break;
    }
    app_apply(app, &r);
    app_poll(app, 0);
}

/* Draw a frame at the App's size and write it when asked. */
static void frame(App *app, Grid *g, const ScriptRun *run, bool write)
{
    if (g->w != app->view.term_w || g->h != app->view.term_h)
        grid_resize(g, app->view.term_w, app->view.term_h);
    screen_draw(app, g);
    if (share_pending(app, g, app->view.theme)) /* e's picture, then */
        screen_draw(app, g);                    /* what was written */
    if (!write || !run->out)
        return;
    char *t = grid_dump(g, run->roles);
    if (t) {
        fputs(t, run->out);
        fputs("--\n", run->out);
    }
    free(t);
}

int script_run(App *app, const Script *s, const ScriptRun *run, Grid *g)
{
    int frames = run->frames > 0 ? run->frames : (int)s->n;
    int drawn = 0;
    app->view.placed = screen_placed; /* (its frames are the screen's) */
    for (int f = 0; f < frames && !app->status.quit; f++) {
        ScriptItem tick = {.kind = SCRIPT_TICK};
        const ScriptItem *it = (size_t)f < s->n ? &s->items[f] : &tick;
        script_apply(app, it);
        frame(app, g, run, it->kind == SCRIPT_DUMP);
        drawn++;
    }
    if (!drawn || app->status.quit)
        frame(app, g, run, false);
    if (run->dump)
        frame(app, g, run, true);
    return drawn;
}
