/* tui.c - `collviz [tui] [COLL] [options]`: the interactive visualizer, or
 * with --script the same screens driven from a file without a terminal. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/scene_opts.h"
#include "ui/app.h"
#include "ui/keys.h"
#include "ui/scene.h"
#include "ui/screen.h"
#include "ui/script.h"
#include "ui/i18n.h"
#include "ui/term.h"

/* ------------------------------------------------------------ options */

/* The scene options (scene_opts.h) first, then the TUI's own. */
enum {
    O_BACKEND = SCENE_OPT_COUNT, O_CELLS, O_ASCII, O_PRESENT, O_SCRIPT,
    O_FRAMES,
    O_SCREEN, O_DUMP, O_ROLES, O_HELP, O_COUNT
};

static const CliOpt opts[O_COUNT] = {
    SCENE_OPTS("number of ranks, 1 to 64 (default 8)",
               "size measured by the counters and timed runs (default 64M); "
               "with --script, WxH is the screen size"),
    [O_BACKEND] = {'B', "backend", "NAME[:OPTS]", "where steps run: threads "
                   "(default), cuda, mpi; OPTS: the backend's key=value,... "
                   "(collviz(1))"},
    [O_CELLS] = {0, "cells", "N", "picture cells per block, 1 to 8 (default 1)"},
    [O_ASCII] = {0, "ascii", NULL, "ASCII line drawing instead of Unicode"},
    [O_PRESENT] = {0, "present", NULL, "start in presenter mode (P): big "
                   "cells, the step in words, one counter line"},
    [O_SCRIPT] = {0, "script", "FILE", "run without a terminal: keys and "
                  "commands from FILE (- for stdin)"},
    [O_FRAMES] = {0, "frames", "N", "with --script: frames to run (default: "
                  "one per key or command)"},
    [O_SCREEN] = {0, "screen", "WxH", "with --script: the screen size "
                  "(default 100x30)"},
    [O_DUMP] = {0, "dump", NULL, "with --script: print the last frame"},
    [O_ROLES] = {0, "roles", NULL, "with --dump: add the colour roles"},
    [O_HELP] = CLI_OPT_HELP,
};

static const CliCmd tui_cmd = {
    .name = "tui",
    .usage = "[tui] [COLL] [-a ALGO] [-p RANKS] [-s SIZE] [-B NAME[:OPTS]] ...",
    .about = "Step through a collective on 1 to 64 ranks, executed for real "
             "on the backend,\nwith live counters checked against the "
             "model. Press ? inside for the keys.\n\nWith --script the same "
             "screens run without a terminal. Script words:\nkey names as "
             "help shows them (Right, PgDn, a, Enter, Esc, Space, ...),\n"
             "click X Y, wheel up|down, resize WxH, tick [N], wait, dump, "
             "act NAME,\nseek K, select RANK BUF ELEM; '#' starts a comment.",
    .opts = opts,
    .nopts = O_COUNT,
    .max_pos = 1,
};

/* What the command line asked for. */
typedef struct {
    AppOptions app;     /* the first scene */
    char topo[SCENE_TOPO_LEN]; /* -T's machine, which app.topo names */
    const char *script; /* --script FILE, or NULL */
    int frames;         /* --frames */
    int w;              /* screen columns (scripted) */
    int h;              /* screen rows (scripted) */
    bool dump;          /* --dump */
    bool roles;         /* --roles */
    bool ascii;         /* --ascii */
} TuiArgs;

/* "WxH" (whole numbers as every option takes them, 1 to 1000) into *w,
 * *h; false, and neither touched, when it is not one. */
static bool parse_wxh(const char *s, int *w, int *h)
{
    char cols[16];
    const char *x = s ? strchr(s, 'x') : NULL;
    long cw, ch;
    if (!x || (size_t)(x - s) >= sizeof cols)
        return false;
    memcpy(cols, s, (size_t)(x - s));
    cols[x - s] = '\0';
    if (!cli_whole_number(cols, &cw) || !cli_whole_number(x + 1, &ch) ||
        cw < 1 || ch < 1 || cw > 1000 || ch > 1000)
        return false;
    *w = (int)cw, *h = (int)ch;
    return true;
}

/* One of the TUI's own integer options, by the one number parser. */
static int parse_int_opt(const char *name, const char *s, int lo, int hi,
                         int *out, CliErr *e)
{
    long v;
    if (cli_parse_int(name, s, lo, hi, &v, e))
        return -1;
    *out = (int)v;
    return 0;
}

/* The scene: the shared scene options (with --script, -s WxH is the
 * screen size, not a scene option). */
static int scene_options(CliArgs a, TuiArgs *t, CliErr *e)
{
    const char *size = a.val[SCENE_OPT_SIZE];
    SceneSpec sc;
    if (size && t->script && parse_wxh(size, &t->w, &t->h))
        a.val[SCENE_OPT_SIZE] = NULL;
    if (scene_opts_parse(&a, &scene_limits_tui, &sc, e))
        return -1;
    t->app.kind = sc.call.kind;
    t->app.algo = sc.algo->name;
    t->app.nranks = sc.call.nranks;
    t->app.bytes = sc.bytes;
    t->app.dtype = sc.call.dtype;
    t->app.op = sc.call.op;
    t->app.root = sc.call.root;
    t->app.in_place = sc.call.in_place;
    snprintf(t->topo, sizeof t->topo, "%s", sc.topo);
    t->app.topo = t->topo[0] ? t->topo : NULL;
    return 0;
}

/* The TUI's own options. */
static int tui_options(const CliArgs *a, TuiArgs *t, CliErr *e)
{
    if (a->val[O_SCREEN] && !parse_wxh(a->val[O_SCREEN], &t->w, &t->h))
        return cli_fail(e, "--screen wants COLUMNSxROWS, e.g. 100x30, not '%s'",
                        a->val[O_SCREEN]);
    if (a->val[O_CELLS] &&
        parse_int_opt("--cells", a->val[O_CELLS], 1, SCENE_MAX_CELLS,
                      &t->app.cells, e))
        return -1;
    if (a->val[O_FRAMES] &&
        parse_int_opt("--frames", a->val[O_FRAMES], 1, SCRIPT_MAX_FRAMES, &t->frames, e))
        return -1;
    return 0;
}

static int parse_tui_args(int argc, char **argv, TuiArgs *t, CliErr *e)
{
    CliArgs a;
    if (cli_parse_args(&tui_cmd, argc, argv, &a, e))
        return -1;
    if (cli_has(&a, O_HELP))
        return 1;
    t->app.backend = a.val[O_BACKEND];
    t->script = a.val[O_SCRIPT];
    t->dump = cli_has(&a, O_DUMP);
    t->roles = cli_has(&a, O_ROLES);
    t->ascii = cli_has(&a, O_ASCII);
    t->app.present = cli_has(&a, O_PRESENT);
    if (scene_options(a, t, e))
        return -1;
    return tui_options(&a, t, e);
}

/* "collviz: " and the sentence, starting in lower case as every command's
 * errors do. */
static void say(const char *sentence)
{
    /* a capital that starts a word, not a name in capitals (LINES=...,
       TERM) or the pronoun I */
    char first = sentence[0], next = first ? sentence[1] : 0;
    if (first >= 'A' && first <= 'Z' && next >= 'a' && next <= 'z')
        first = (char)(first - 'A' + 'a');
    fprintf(stderr, "collviz: %c%s\n", first, first ? sentence + 1 : "");
}

/* ------------------------------------------------------------ scripted */

/* The whole of a file (or stdin for "-"), NUL-terminated; NULL on error. */
static char *read_all(const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f)
        return NULL;
    size_t n = 0, cap = 4096;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        char *b = realloc(buf, cap *= 2);
        if (!b)
            free(buf);
        buf = b;
    }
    bool err = ferror(f);
    if (f != stdin)
        fclose(f);
    if (buf && err) {
        free(buf);
        return NULL;
    }
    if (buf)
        buf[n] = '\0';
    return buf;
}

static int run_script(App *app, const TuiArgs *t)
{
    char why[200];
    char *text = read_all(t->script);
    if (!text) {
        fprintf(stderr, "collviz: cannot read the script '%s': %s\n",
                t->script, strerror(errno));
        return CLI_EXIT_USAGE;
    }
    Script s;
    CvError e = script_parse(text, &s, why, sizeof why);
    free(text);
    if (e) {
        fprintf(stderr, "collviz: %s: %s\n", t->script, why);
        return CLI_EXIT_USAGE;
    }
    Grid g;
    ui_lang_default(); /* the environment's language, as on a terminal */
    app->view.term_w = t->w;
    app->view.term_h = t->h;
    app->view.ascii = t->ascii;
    ScriptRun run = {.frames = t->frames, .dump = t->dump, .roles = t->roles,
                     .out = stdout};
    grid_init(&g, t->w, t->h, t->ascii);
    script_run(app, &s, &run, &g);
    grid_fini(&g);
    script_fini(&s);
    if (app->status.exit_status)
        say(app->status.msg);
    return app->status.exit_status;
}

/* ------------------------------------------------------------ terminal */

/* One input event into the App; returns a stop signal's number or 0. */
static int handle_event(App *app, const TermEvent *ev)
{
    ScriptItem it = {.kind = SCRIPT_KEY, .key = ev->key};
    switch (ev->kind) {
    case TERM_KEY: break;
    case TERM_CLICK: it = (ScriptItem){.kind = SCRIPT_CLICK, .a = ev->x, .b = ev->y}; break;
    case TERM_WHEEL: it = (ScriptItem){.kind = SCRIPT_WHEEL, .a = ev->key}; break;
    case TERM_RESIZE: it = (ScriptItem){.kind = SCRIPT_RESIZE, .a = ev->x, .b = ev->y}; break;
    case TERM_STOP: app->status.quit = true; return ev->key;
    case TERM_NONE:
    case TERM_EV_COUNT: return 0;
    }
    script_apply(app, &it);
    return 0;
}

/* Draw, wait for input or a timer, apply; until quit. */
static int main_loop(App *app, Grid *g)
{
    bool dirty = true;
    int sig = 0;
    while (!app->status.quit) {
        if (dirty) {
            if (g->w != app->view.term_w || g->h != app->view.term_h)
                grid_resize(g, app->view.term_w, app->view.term_h);
            screen_draw(app, g);
            term_present(g, app->view.theme, app->view.redraw);
            app->view.redraw = false;
        }
        TermEvent ev = term_read(app->play.on || app->bg.kind ? 30 : 250);
        sig = handle_event(app, &ev);
        dirty = app_poll(app, app_now()) || ev.kind != TERM_NONE;
    }
    return sig;
}

static int run_terminal(App *app, const TuiArgs *t)
{
    char why[200];
    bool utf8;
    if (term_init(&utf8, why, sizeof why)) {
        term_fini();
        say(why);
        return CLI_EXIT_FAIL;
    }
    Grid g;
    term_size(&app->view.term_w, &app->view.term_h);
    app->view.ascii = t->ascii || !utf8;
    app->view.theme = term_default_theme();
    grid_init(&g, app->view.term_w, app->view.term_h, app->view.ascii);
    int sig = main_loop(app, &g);
    term_fini();
    grid_fini(&g);
    if (sig) {
        fprintf(stderr, "collviz: stopped by %s; the terminal is restored.\n",
                strsignal(sig));
        return 128 + sig;
    }
    if (app->status.exit_status)
        say(app->status.msg);
    return app->status.exit_status;
}

int cmd_tui(int argc, char **argv)
{
    CliErr e = {{0}};
    TuiArgs t = {.w = 100, .h = 30};
    app_options_default(&t.app);
    int rc = parse_tui_args(argc, argv, &t, &e);
    if (rc > 0)
        return cli_help(&tui_cmd);
    if (rc < 0)
        return cli_error(&e);
    char why[200] = "";
    if (t.app.backend &&
        !exec_find_spec(t.app.backend, NULL, why, sizeof why)) {
        fprintf(stderr, "collviz: -B %s: %s\n",
                t.app.backend, why);
        return CLI_EXIT_USAGE;
    }
    if (!t.script && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
        fprintf(stderr, "collviz: the TUI needs a terminal on stdin and "
                "stdout; 'collviz trace %s' prints the same steps as text.\n",
                coll_name(t.app.kind));
        return CLI_EXIT_USAGE;
    }
    App app;
    t.app.no_worker = false;
    if (app_init(&app, &t.app, why, sizeof why)) {
        app_fini(&app);
        say(why);
        return CLI_EXIT_USAGE;
    }
    rc = t.script ? run_script(&app, &t) : run_terminal(&app, &t);
    bool lessons = app.status.lessons && !t.script && rc == CLI_EXIT_OK;
    app_fini(&app);
    if (lessons) { /* L: the list of lessons, as `collviz learn` opens it */
        static char name[] = "learn";
        char *args[] = {name, NULL};
        return cmd_learn(1, args);
    }
    return rc;
}
