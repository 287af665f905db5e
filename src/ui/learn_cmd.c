/* learn_cmd.c - `collviz learn`: the lesson player (learn.h), the list of
 * lessons, progress, and --check for lesson authors (lesson/lint.h). */
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cmd/cmd.h"
#include "core/sanitize.h"
#include "lesson/lint.h"
#include "ui/learn.h"
#include "ui/term.h"
#include "ui/words.h"

enum { L_LANG, L_RESET, L_CHECK, L_HELP, L_COUNT };

static const CliOpt learn_opts[L_COUNT] = {
    [L_LANG] = {0, "lang", "LANG", "the language: en or zh (default: from "
                "LC_ALL, LC_MESSAGES or LANG; zh_* gives zh)"},
    [L_RESET] = {0, "reset", "LESSON|all", "forget the progress of LESSON "
                 "(all: of every lesson) and start it again"},
    [L_CHECK] = {0, "check", NULL, "check the lesson files given (default: "
                 "every lesson) and report each problem; exit 2 on any"},
    [L_HELP] = CLI_OPT_HELP,
};

static const CliCmd learn_cmd = {
    .name = "learn",
    .usage = "learn [LESSON] [--lang en|zh] [--reset LESSON|all]\n"
             "       collviz learn --check [FILE...]",
    .about = "Play the lessons beside the picture: text, scenes, steps, "
             "commands and\ncheckpoints whose answers collviz computes. "
             "LESSON is a number or a name\n(1, 01-broadcast, broadcast); "
             "without one, the list of lessons opens.\nProgress is kept in "
             "$XDG_STATE_HOME/collviz (default ~/.local/state/collviz).",
    .opts = learn_opts,
    .nopts = L_COUNT,
    .max_pos = CLI_MAX_POS,
};

/* What the command line asked for. */
typedef struct {
    UiLang lang;        /* the language */
    const char *lesson; /* LESSON, or NULL */
    const char *reset;  /* --reset LESSON, or NULL */
} LearnArgs;

/* One sentence on stderr; what it quotes (lesson names, paths, the
 * command line) came from files and arguments, so its controls are shown
 * as escapes (core/sanitize.h), never sent to the terminal. */
static int fail(const char *fmt, const char *a, const char *b)
{
    int n = snprintf(NULL, 0, fmt, a, b);
    char *msg = malloc(n > 0 ? (size_t)n + 1 : 1), *safe = NULL;
    if (msg && n >= 0)
        snprintf(msg, (size_t)n + 1, fmt, a, b);
    size_t need = msg && n >= 0 ? sanitize(NULL, 0, msg, 0) + 1 : 0;
    if (need && (safe = malloc(need)))
        sanitize(safe, need, msg, 0);
    fprintf(stderr, "collviz: %s\n", safe ? safe : words_error(CV_ERR_NOMEM));
    free(msg);
    free(safe);
    return CLI_EXIT_USAGE;
}

/* The index of the lesson key names; -1 after saying which exist. */
static int find_lesson(const Learn *l, const char *key)
{
    int i = library_find(l->list, l->nlist, key);
    if (i >= 0)
        return i;
    size_t kl = strlen(key);
    if (strchr(key, '/') || (kl > 4 && !strcmp(key + kl - 4, ".txt"))) {
        fail("'%s' is a file, and learn plays lessons by number or name; to "
             "play your own, put it as NN-name.txt in DIR/en/ (and DIR/zh/) "
             "and run COLLVIZ_LESSONS=DIR collviz learn NN%s", key, "");
        return -1;
    }
    char names[1024] = "";
    size_t n = 0;
    for (size_t k = 0; k < l->nlist && n < sizeof names; k++)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s",
                              k ? ", " : "", l->list[k].name);
    fail("unknown lesson '%s'; lessons: %s", key, names);
    return -1;
}

/* The first lesson that is not done, for the list's highlight. */
static int first_open(const Learn *l)
{
    for (size_t i = 0; i < l->nlist; i++) {
        ProgressEntry *e = progress_get((Progress *)&l->prog, l->list[i].name,
                                        false);
        if (!e || e->dirs < l->end[i][0] ||
            (e->dirs == l->end[i][0] && e->texts < l->end[i][1]))
            return (int)i;
    }
    return 0;
}

/* Draw, read, apply until the player quits; a stop signal's number. */
static int loop(Learn *l)
{
    Grid g;
    bool utf8;
    char why[200];
    if (term_init(&utf8, why, sizeof why)) {
        term_fini();
        fail("%s%s", why, "");
        return -1;
    }
    term_size(&l->w, &l->h);
    l->ascii = !utf8;
    if (l->have_app)
        l->app.view.ascii = l->ascii;
    int theme = term_default_theme(), sig = 0;
    grid_init(&g, l->w, l->h, l->ascii);
    bool all = true;
    while (!l->quit) {
        if (g.w != l->w || g.h != l->h)
            grid_resize(&g, l->w, l->h);
        learn_draw(l, &g);
        term_present(&g, theme, all);
        all = false;
        /* a lesson's command streams into the pager: look at it ten
           times a second while it runs, keys taken between */
        TermEvent ev = term_read(learn_running(l) ? 100 : 1000);
        if (ev.kind == TERM_KEY && ev.key == 12) /* ^L */
            all = true;
        else if (ev.kind == TERM_KEY)
            learn_key(l, ev.key);
        else if (ev.kind == TERM_RESIZE)
            l->w = ev.x, l->h = ev.y, all = true;
        else if (ev.kind == TERM_STOP)
            sig = ev.key, l->quit = true;
        if (l->quit)
            learn_run_stop(l); /* the player ends: its command first */
        else
            learn_run_poll(l, 0);
    }
    learn_save(l);
    term_fini();
    grid_fini(&g);
    return sig;
}

/* learn --check FILE...: any number of files (a shell's glob of every
 * lesson), not the option parser's few positionals. Returns -1 when
 * --check is not among the arguments. */
static int check_files(int argc, char **argv)
{
    int at = -1;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--check"))
            at = i;
    if (at < 0)
        return -1;
    int n = 0;
    bool files_only = false;
    for (int i = 1; i < argc; i++) {
        if (i == at)
            continue;
        if (!files_only && !strcmp(argv[i], "--")) {
            files_only = true;
            continue;
        }
        if (!files_only && argv[i][0] == '-' && argv[i][1])
            return fail("learn --check takes lesson files; '%s' is an "
                        "option%s", argv[i], "");
        argv[n++] = argv[i]; /* argv[0] is done with */
    }
    return lint_main(n, (const char *const *)argv);
}

static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return true;
    return false;
}

static int parse(int argc, char **argv, LearnArgs *la, CliArgs *a, int *rc)
{
    /* help wins, as for every command */
    if (!wants_help(argc, argv) && (*rc = check_files(argc, argv)) >= 0)
        return -1;
    *rc = cli_start(&learn_cmd, L_HELP, argc, argv, a);
    if (*rc >= 0)
        return -1;
    la->lang = ui_lang_from_env();
    if (cli_has(a, L_LANG) && ui_lang_parse(a->val[L_LANG], &la->lang)) {
        *rc = fail("unknown language '%s'; languages: %s", a->val[L_LANG],
                   ui_lang_list());
        return -1;
    }
    if (a->npos > 1) {
        *rc = fail("learn takes one lesson; '%s' is one more%s", a->pos[1], "");
        return -1;
    }
    la->lesson = a->npos ? a->pos[0] : NULL;
    la->reset = a->val[L_RESET];
    if (la->reset && la->lesson && strcmp(la->reset, la->lesson)) {
        *rc = fail("--reset %s and lesson %s differ; give one of them",
                   la->reset, la->lesson);
        return -1;
    }
    return 0;
}

/* The command; back: opened from the visualizer (Learn.back). */
static int learn_main(int argc, char **argv, bool back)
{
    CliArgs a;
    LearnArgs la = {0};
    int rc;
    if (parse(argc, argv, &la, &a, &rc))
        return rc;
    char dir[4096], why[4600];
    if (library_dir(dir, sizeof dir, why, sizeof why))
        return fail("%s%s", why, "");
    ui_lang_use(la.lang);
    /* without a terminal the player is refused below, after the lesson
       named is checked: it reads no progress, so it sets no file aside
       and saves nothing */
    bool tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
    Learn *l = malloc(sizeof *l);
    if (!l || learn_init(l, dir, la.lang, tty ? NULL : "", why, sizeof why)) {
        if (l)
            learn_fini(l);
        free(l);
        return fail("%s%s", l ? why : words_error(CV_ERR_NOMEM), "");
    }
    bool all = la.reset && !strcmp(la.reset, "all") && !la.lesson;
    const char *key = la.reset && !all ? la.reset : la.lesson;
    int i = key ? find_lesson(l, key) : first_open(l);
    rc = CLI_EXIT_USAGE;
    size_t first = all ? 0 : (size_t)i, end = all ? l->nlist : (size_t)i + 1;
    for (size_t k = first; i >= 0 && la.reset && k < end; k++)
        progress_reset(&l->prog, l->list[k].name);
    if (all && tty && l->prog_ok &&
        progress_save(&l->prog, l->prog_why, sizeof l->prog_why))
        l->prog_ok = false; /* said at exit, as any failed save */
    if (i >= 0 && key && learn_open(l, i, why, sizeof why))
        fail("%s%s", why, "");
    else if (i >= 0 && !tty)
        fail("the lesson player needs a terminal on stdin and stdout; the "
             "lessons are plain text files in %s/%s/", dir,
             ui_lang_code(la.lang));
    else if (i >= 0)
        rc = CLI_EXIT_OK;
    if (rc == CLI_EXIT_OK) {
        l->sel = i;
        l->back = back;
        if (la.reset && !all)
            learn_save(l);
        int sig = loop(l);
        rc = sig < 0 ? CLI_EXIT_FAIL : sig ? 128 + sig : CLI_EXIT_OK;
        if (sig > 0)
            fprintf(stderr, "collviz: stopped by %s; the terminal is "
                    "restored.\n", strsignal(sig));
        if (l->prog_why[0]) /* said on screen; the screen is gone now */
            fail("%s%s", l->prog_why, "");
    }
    learn_fini(l);
    free(l);
    return rc;
}

int cmd_learn(int argc, char **argv) { return learn_main(argc, argv, false); }

int learn_from_visualizer(void)
{
    static char name[] = "learn";
    char *args[] = {name, NULL};
    return learn_main(1, args, true);
}
