/* tui.c - `collviz [tui] [COLL] [options]`: the interactive visualizer, or
 * with --script the same screens driven from a file without a terminal. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cmd/cmd.h"
#include "core/grow.h"
#include "scene/scene_opts.h"
#include "ui/app.h"
#include "ui/keys.h"
#include "ui/learn.h"
#include "ui/scene.h"
#include "ui/scene_str.h"
#include "ui/screen.h"
#include "ui/script.h"
#include "ui/share.h"
#include "ui/i18n.h"
#include "ui/term.h"
#include "ui/theme.h"

/* ------------------------------------------------------------ options */

/* The options of a scene string (scene_str.h: the scene options, the
 * step, cells and presenter mode) first, then the TUI's own. */
enum {
    O_BACKEND = SSTR_OPT_COUNT, O_SCENE, O_ASCII, O_THEME, O_EXPORT_SVG,
    O_EXPORT_CAST, O_EXPORT_FRAMES, O_LAST_STEP, O_DELAY, O_SCRIPT, O_FRAMES,
    O_SCREEN, O_DUMP, O_ROLES, O_HELP, O_COUNT
};

static const CliOpt opts[O_COUNT] = {
    SCENE_STR_OPTS("number of ranks, 1 to 64 (default 8)",
                   "size measured by the counters and timed runs (default "
                   "64M); with --script, WxH is the screen size"),
    [O_BACKEND] = {'B', "backend", "NAME[:OPTS]", "where steps run: threads "
                   "(default), cuda, mpi; OPTS: the backend's key=value,... "
                   "(collviz(1))"},
    [O_SCENE] = {0, "scene", "STRING", "the scene as the key u shows it, e.g. "
                 "'allreduce -a ring -p 8 --step 3', instead of the options "
                 "above"},
    [O_ASCII] = {0, "ascii", NULL, "ASCII line drawing instead of Unicode"},
    [O_THEME] = {0, "theme", "NAME", "colours: colour, deep or mono (default: "
                 "deep with 256 colours, mono with NO_COLOR)"},
    [O_EXPORT_SVG] = {0, "export-svg", "FILE", "write the screen at --step "
                      "as SVG to FILE (- for stdout) and exit; no terminal "
                      "needed"},
    [O_EXPORT_CAST] = {0, "export-cast", "FILE", "write the screens of --step "
                       "to --last-step as an asciicast v2 file (asciinema "
                       "play FILE) and exit"},
    [O_EXPORT_FRAMES] = {0, "export-frames", "FILE", "write the topology "
                         "of steps --step (at least 1) to --last-step as "
                         "one SVG, a frame per step with its link loads, "
                         "and exit"},
    [O_LAST_STEP] = {0, "last-step", "K", "with --export-cast or "
                     "--export-frames: the last step recorded (default: "
                     "the scene's last)"},
    [O_DELAY] = {0, "delay", "SECONDS", "with --export-cast: seconds between "
                 "steps (default 1.5)"},
    [O_SCRIPT] = {0, "script", "FILE", "run without a terminal: keys and "
                  "commands from FILE (- for stdin)"},
    [O_FRAMES] = {0, "frames", "N", "with --script: frames to run (default: "
                  "one per key or command)"},
    [O_SCREEN] = {0, "screen", "WxH", "with --script and the exports: the "
                  "screen size (default 100x30)"},
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
             "act NAME,\nseek K, select RANK BUF ELEM; '#' starts a comment.\n\n"
             "Pictures: --export-svg, --export-cast and --export-frames "
             "write the screens\nwithout a terminal; the key u shows the "
             "scene string that --scene reopens.",
    .opts = opts,
    .nopts = O_COUNT,
    .max_pos = 1,
};

/* What the command line asked for. */
typedef struct {
    AppOptions app;     /* the first scene */
    SpecMachine machine; /* -T's machine, which app.machine names */
    const char *script; /* --script FILE, or NULL */
    int frames;         /* --frames */
    int w;              /* screen columns (scripted) */
    int h;              /* screen rows (scripted) */
    bool dump;          /* --dump */
    bool roles;         /* --roles */
    bool ascii;         /* --ascii */
    int step;           /* --step: steps executed before the first frame */
    int theme;          /* --theme (ThemeId), or -1: the terminal's */
    const char *svg;    /* --export-svg FILE, or NULL */
    const char *cast;   /* --export-cast FILE, or NULL */
    const char *frames_svg; /* --export-frames FILE, or NULL */
    long last_step;     /* --last-step, or -1: the scene's last */
    double delay;       /* --delay: seconds between a cast's screens */
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

/* The scene, from a scene string's options: the command line's or
 * --scene's. */
static void take_scene(const SceneStr *ss, TuiArgs *t)
{
    const SceneSpec *sc = &ss->spec;
    t->app.kind = sc->call.kind;
    t->app.algo = sc->algo->name;
    t->app.nranks = sc->call.nranks;
    t->app.bytes = sc->bytes;
    t->app.dtype = sc->call.dtype;
    t->app.op = sc->call.op;
    t->app.root = sc->call.root;
    t->app.in_place = sc->call.in_place;
    t->app.segment = sc->call.segment;
    t->app.cells = ss->cells;
    t->app.chunks = ss->chunks;
    t->app.pricing = ss->pricing;
    t->app.present = ss->present;
    t->step = ss->step;
    t->machine = sc->machine;
    t->app.machine = t->machine.given[0] ? &t->machine : NULL;
}

/* --scene holds the whole scene: none of its options may come beside it. */
static int scene_given_twice(const CliArgs *a, CliErr *e)
{
    bool any = a->npos > 0;
    for (int i = 0; i < SSTR_OPT_COUNT; i++)
        any = any || cli_has(a, i);
    if (!any)
        return 0;
    return cli_fail(e, "--scene holds the whole scene; give the collective "
                    "and its options in it or on the command line, not both");
}

/* The scene: a scene string's options (with --script, -s WxH is the
 * screen size, not a scene option), or --scene. */
static int scene_options(CliArgs a, TuiArgs *t, CliErr *e)
{
    const char *size = a.val[SCENE_OPT_SIZE];
    SceneStr ss;
    if (size && t->script && parse_wxh(size, &t->w, &t->h))
        a.val[SCENE_OPT_SIZE] = NULL;
    if (cli_has(&a, O_SCENE)) {
        if (scene_given_twice(&a, e) ||
            scene_str_parse(a.val[O_SCENE], &ss, e))
            return -1;
    } else if (scene_str_from_args(&a, &ss, e)) {
        return -1;
    }
    take_scene(&ss, t);
    return 0;
}

/* An option that only means something beside another. */
static int needs(const CliArgs *a, int opt, int other, CliErr *e)
{
    if (!cli_has(a, opt) || cli_has(a, other))
        return 0;
    return cli_fail(e, "--%s goes with --%s", opts[opt].long_name,
                    opts[other].long_name);
}

/* --theme, the exports and what goes with them. */
static int export_options(const CliArgs *a, TuiArgs *t, CliErr *e)
{
    if (a->val[O_THEME] && (t->theme = theme_parse(a->val[O_THEME])) < 0)
        return cli_fail(e, "--theme must be colour, deep or mono, not '%s'",
                        a->val[O_THEME]);
    if ((!t->frames_svg && needs(a, O_LAST_STEP, O_EXPORT_CAST, e)) ||
        needs(a, O_DELAY, O_EXPORT_CAST, e))
        return -1;
    if (t->script && (t->svg || t->cast || t->frames_svg))
        return cli_fail(e, "--script and the exports do not go together; a "
                        "script's 'dump' prints its screens");
    if (!!t->svg + !!t->cast + !!t->frames_svg > 1)
        return cli_fail(e, "--export-svg, --export-cast and --export-frames "
                        "do not go together; give one, and run again for "
                        "another");
    if (a->val[O_LAST_STEP] &&
        cli_parse_int("--last-step", a->val[O_LAST_STEP], 0, 1000000,
                      &t->last_step, e))
        return -1;
    if (a->val[O_DELAY] &&
        cli_parse_seconds("--delay", a->val[O_DELAY], 60, &t->delay, e))
        return -1;
    return 0;
}

/* The TUI's own options. */
static int tui_options(const CliArgs *a, TuiArgs *t, CliErr *e)
{
    if (a->val[O_SCREEN] && !parse_wxh(a->val[O_SCREEN], &t->w, &t->h))
        return cli_fail(e, "--screen wants COLUMNSxROWS, e.g. 100x30, not '%s'",
                        a->val[O_SCREEN]);
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
    t->svg = a.val[O_EXPORT_SVG];
    t->cast = a.val[O_EXPORT_CAST];
    t->frames_svg = a.val[O_EXPORT_FRAMES];
    if (scene_options(a, t, e) || export_options(&a, t, e))
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
        char *b = grow_array(buf, &cap, cap + 1, 1, 0);
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
    const char *nozh = ui_lang_missing();
    if (nozh && !app->status.msg[0]) /* (as on a terminal) */
        app_message(app, false, "%s", nozh);
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

/* ------------------------------------------------------------ exports */

/* The theme of a picture written without a terminal: --theme, else deep,
 * or mono where NO_COLOR asks for no colours (as the terminal would). */
static int export_theme(const TuiArgs *t)
{
    const char *nc = getenv("NO_COLOR");
    return t->theme >= 0 ? t->theme : nc && *nc ? THEME_MONO : THEME_DEEP;
}

/* --export-svg, --export-cast and --export-frames: the screens at
 * --screen's size (the frames at their own), written
 * without a terminal. */
static int run_export(App *app, const TuiArgs *t)
{
    char why[400];
    Grid g;
    ui_lang_default(); /* the environment's language, as on a terminal */
    app->view.term_w = t->w;
    app->view.term_h = t->h;
    app->view.ascii = t->ascii;
    if (grid_init(&g, t->w, t->h, t->ascii)) {
        say("There is not enough memory for the screen.");
        return CLI_EXIT_FAIL;
    }
    CvError e = CV_OK;
    size_t last = t->last_step < 0 ? app->scene->sched.nsteps
                                   : (size_t)t->last_step;
    if (t->frames_svg)
        e = share_frames(app, t->frames_svg, t->step ? (size_t)t->step : 1,
                         last, export_theme(t), why, sizeof why);
    if (t->svg)
        e = share_svg(app, &g, t->svg, export_theme(t), why, sizeof why);
    if (!e && t->cast)
        e = share_cast(app, &g, t->cast, (size_t)t->step, last, t->delay,
                       export_theme(t), why, sizeof why);
    grid_fini(&g);
    if (e)
        say(why);
    return e ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/* A step option past the scene's last step: bad input. */
static int past_last(const char *opt, long k, size_t n)
{
    fprintf(stderr, "collviz: %s %ld is past the last step of this scene, "
            "%zu\n", opt, k, n);
    return CLI_EXIT_USAGE;
}

/* --step: the scene shown after that many steps (and --last-step's
 * range), checked against the schedule. */
static int first_step(App *app, const TuiArgs *t)
{
    char why[200];
    size_t n = app->scene->sched.nsteps;
    if ((size_t)t->step > n)
        return past_last("--step", t->step, n);
    if (t->last_step >= 0 && (size_t)t->last_step > n)
        return past_last("--last-step", t->last_step, n);
    if (t->last_step >= 0 && t->last_step < t->step) {
        fprintf(stderr, "collviz: --last-step %ld comes before --step %d\n",
                t->last_step, t->step);
        return CLI_EXIT_USAGE;
    }
    size_t bad;
    const char *wrong;
    int step = t->step;
    if (algo_file_wrong(app->scene->algo, &bad, &wrong)) {
        if (!step && bad < n) /* where it first goes wrong */
            step = (int)bad + 1;
        app_message(app, true, "%s", wrong);
    }
    if (step && scene_seek(app->scene, (size_t)step, why, sizeof why)) {
        say(why);
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
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
        if (share_pending(app, g, term_theme_effective(app->view.theme)))
            continue; /* say what was written: draw again */
        TermEvent ev = term_read(app->play.on || app->bg.kind ? 30 : 250);
        sig = handle_event(app, &ev);
        dirty = app_poll(app, app_now()) || ev.kind != TERM_NONE;
    }
    return sig;
}

/* The terminal session of the TUI; again: back from the lessons, with
 * the App as it was (its theme and line drawing kept). */
static int run_terminal(App *app, const TuiArgs *t, bool again)
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
    if (!again) {
        app->view.ascii = t->ascii || !utf8;
        app->view.theme = t->theme >= 0 ? t->theme : term_default_theme();
        const char *nozh = ui_lang_missing();
        if (nozh && !app->status.msg[0])
            app_message(app, false, "%s", nozh);
    }
    app->view.redraw = true;
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
    TuiArgs t = {.w = 100, .h = 30, .theme = -1, .last_step = -1,
                 .delay = SHARE_DELAY_S};
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
    bool headless = t.script || t.svg || t.cast || t.frames_svg;
    if (!headless && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
        fprintf(stderr, "collviz: the TUI needs a terminal on stdin and "
                "stdout; 'collviz trace %s' prints the same steps as text.\n",
                coll_name(t.app.kind));
        return CLI_EXIT_USAGE;
    }
    App app;
    /* nothing runs in the background */
    t.app.no_worker = t.svg || t.cast || t.frames_svg;
    if (app_init(&app, &t.app, why, sizeof why)) {
        app_fini(&app);
        say(why);
        return CLI_EXIT_USAGE;
    }
    app.view.placed = screen_placed;
    if ((rc = first_step(&app, &t)) != CLI_EXIT_OK) {
        app_fini(&app);
        return rc;
    }
    rc = t.svg || t.cast || t.frames_svg ? run_export(&app, &t)
         : t.script ? run_script(&app, &t) : run_terminal(&app, &t, false);
    /* L: the list of lessons, as `collviz learn` opens it; quitting the
       lessons comes back to this scene with its step, sweep and
       measurements (the worker went on meanwhile) */
    while (app.status.lessons && !t.script && !t.svg && !t.cast &&
           !t.frames_svg &&
           rc == CLI_EXIT_OK) {
        app.status.lessons = app.status.quit = false;
        if (learn_from_visualizer() != CLI_EXIT_OK)
            app_message(&app, true, "%s", _("The lessons could not open: "
                                            "'collviz learn' says why."));
        rc = run_terminal(&app, &t, true);
    }
    app_fini(&app);
    return rc;
}
