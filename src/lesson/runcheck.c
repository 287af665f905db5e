/* runcheck.c - the allow-list of lessons' commands (runcheck.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "scene/spec.h"
#include "core/coll.h"
#include "core/sanitize.h"
#include "lesson/runcheck.h"

/* An option a lesson may give. */
typedef struct {
    char short_name;       /* 'p', or 0 */
    const char *long_name; /* "ranks", or NULL */
    bool value;            /* it takes a value */
    bool machine;          /* its value is a machine: no file */
} RunOpt;

/* A command that prints, with the options a lesson may give it. */
typedef struct {
    const char *name;   /* "trace" */
    int max_pos;        /* positional words it takes */
    bool pos_machine;   /* its positional is a machine (topo): no file */
    const RunOpt *opts; /* the options, {0} last */
} RunCmdRule;

#define O_HELP {'h', "help", false, false}
#define O_RANKS {'p', "ranks", true, false}
#define O_ALGO {'a', "algo", true, false}
#define O_DTYPE {'d', "dtype", true, false}
#define O_OP {'o', "op", true, false}
#define O_ROOT {'r', "root", true, false}
#define O_TOPO {'T', "topo", true, true}
#define O_BACKEND {'B', "backend", true, false}
#define O_MODEL {0, "alpha", true, false}, {0, "beta", true, false}, \
                {0, "gamma", true, false}
#define O_SEGMENT {0, "segment", true, false}
#define O_SWEEP {'b', "minbytes", true, false}, {'e', "maxbytes", true, false}, \
                {'f', "stepfactor", true, false}, {'i', "stepbytes", true, false}

/* Left out on purpose: perf --json FILE (writes FILE), trace --json (a
   form for programs), topo --file (a file's form), and every option not
   named here. */
static const RunOpt list_opts[] = {{'v', "verbose", false, false}, O_HELP, {0}};
static const RunOpt trace_opts[] = {
    O_ALGO, O_RANKS, {'s', "size", true, false}, O_DTYPE, O_OP, O_ROOT,
    {0, "in-place", false, false}, O_TOPO, {0, "full", false, false}, O_MODEL,
    {0, "link", true, false}, {0, "links", false, false},
    {0, "summary", false, false}, {0, "steps", false, false}, O_SEGMENT,
    O_HELP, {0}};
static const RunOpt model_opts[] = {
    O_RANKS, O_DTYPE, O_ROOT, O_SWEEP, O_BACKEND, O_MODEL,
    {0, "link", true, false}, O_TOPO, O_SEGMENT, O_HELP, {0}};
static const RunOpt perf_opts[] = {
    O_ALGO, O_RANKS, O_BACKEND, O_SWEEP, {'n', "iters", true, false},
    {'w', "warmup", true, false}, {0, "min-time", true, false},
    {'c', "check", true, false}, O_DTYPE, O_OP, O_ROOT,
    {0, "csv", false, false}, O_TOPO, O_SEGMENT, O_HELP, {0}};
static const RunOpt calibrate_opts[] = {
    O_BACKEND, O_RANKS, {0, "quick", false, false}, {0, "show", false, false},
    O_HELP, {0}};
static const RunOpt topo_opts[] = {
    O_TOPO, O_RANKS, O_MODEL, {0, "links", false, false},
    {0, "route", true, false}, {0, "routes", false, false}, O_HELP, {0}};
static const RunOpt help_opts[] = {{0}};

static const RunCmdRule rules[] = {
    {"list", 1, false, list_opts},
    {"trace", 1, false, trace_opts},
    {"model", 1, false, model_opts},
    {"perf", 1, false, perf_opts},
    {"calibrate", 0, false, calibrate_opts},
    {"topo", 1, true, topo_opts},
    {"help", 1, false, help_opts},
};

/* Split line at single spaces into c; 0, or -1 and why. */
static int split(const char *line, RunCmd *c, char *why, size_t whylen)
{
    size_t n = strlen(line);
    if (n > RUNCHECK_MAX_BYTES) {
        snprintf(why, whylen, "the command is %zu bytes long, over the %d a "
                 "lesson's command may have", n, RUNCHECK_MAX_BYTES);
        return -1;
    }
    if (!n || line[0] == ' ' || line[n - 1] == ' ' || strchr(line, '\t') ||
        strstr(line, "  ")) {
        snprintf(why, whylen, "the command has a tab, two blanks in a row or "
                 "a blank at an end: its words must be split by single "
                 "spaces, so that what is shown is what runs");
        return -1;
    }
    memcpy(c->buf, line, n + 1);
    c->argc = 0;
    for (char *w = c->buf; w; c->argc++) {
        if (c->argc == RUNCHECK_MAX_WORDS) {
            snprintf(why, whylen, "the command has more than %d words, the "
                     "most a lesson's command may have", RUNCHECK_MAX_WORDS);
            return -1;
        }
        c->argv[c->argc] = w;
        if ((w = strchr(w, ' ')) != NULL)
            *w++ = '\0';
    }
    c->argv[c->argc] = NULL;
    return 0;
}

static const RunOpt *find_opt(const RunOpt *o, char s, const char *l,
                              size_t llen)
{
    for (; o->short_name || o->long_name; o++)
        if ((s && o->short_name == s) ||
            (l && o->long_name && strlen(o->long_name) == llen &&
             !strncmp(o->long_name, l, llen)))
            return o;
    return NULL;
}

/* Whether value v of an option or positional that names a machine is a
 * file (a lesson may not make collviz read one). */
static int machine_file(const char *v, char *why, size_t whylen)
{
    if (!spec_is_file(v))
        return 0;
    snprintf(why, whylen, "'%.*s' is a machine file: a lesson's command may "
             "name only built-in machines (see 'collviz topo --help')",
             utf8_prefix(v, 80), v);
    return -1;
}

/* Check the words after the command's name against its rule. */
static int check_args(const RunCmdRule *r, char **argv, int argc, char *why,
                      size_t whylen)
{
    int npos = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        if (a[0] != '-' || !a[1]) {
            if (++npos > r->max_pos) {
                snprintf(why, whylen, "'%.*s' is one word more than "
                         "'collviz %s' takes", utf8_prefix(a, 80), a, r->name);
                return -1;
            }
            if (r->pos_machine && machine_file(a, why, whylen))
                return -1;
            continue;
        }
        const RunOpt *o;
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
            o = len ? find_opt(r->opts, 0, a + 2, len) : NULL;
            val = eq ? eq + 1 : NULL;
        } else {
            o = find_opt(r->opts, a[1], NULL, 0);
            val = a[2] ? a + 2 : NULL;
        }
        if (!o) {
            snprintf(why, whylen, "option '%.*s' of 'collviz %s' is not one "
                     "a lesson may use: a lesson's commands only print, and "
                     "write and read no file", utf8_prefix(a, 80), a, r->name);
            return -1;
        }
        if (o->value && !val) {
            if (i + 1 == argc) {
                snprintf(why, whylen, "option '%.*s' needs a value",
                         utf8_prefix(a, 80), a);
                return -1;
            }
            val = argv[++i];
        } else if (!o->value && val) {
            snprintf(why, whylen, "option '%.*s' takes no value",
                     utf8_prefix(a, 80), a);
            return -1;
        }
        if (o->machine && machine_file(val, why, whylen))
            return -1;
    }
    return 0;
}

int runcheck(const char *line, RunCmd *c, char *why, size_t whylen)
{
    if (split(line, c, why, whylen))
        return -1;
    c->kind = RUN_SHELL;
    if (strcmp(c->argv[0], "collviz") && strcmp(c->argv[0], "./build/collviz"))
        return 0;
    const char *sub = c->argc > 1 ? c->argv[1] : "";
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        if (!strcmp(sub, rules[i].name)) {
            c->kind = RUN_PRINTS;
            return check_args(&rules[i], c->argv + 2, c->argc - 2, why,
                              whylen);
        }
    /* the TUI's help prints: collviz --help, collviz tui --help,
       collviz COLLECTIVE --help, and nothing more on the line; so does
       collviz --version */
    bool tui = !*sub || sub[0] == '-' || !strcmp(sub, "tui") ||
               coll_parse(sub) >= 0;
    const char *last = c->argv[c->argc - 1];
    bool version = c->argc == 2 && (!strcmp(sub, "-V") ||
                                    !strcmp(sub, "--version"));
    if (version || (tui && (!strcmp(last, "--help") || !strcmp(last, "-h")) &&
                    (c->argc == 2 || (c->argc == 3 && sub[0] != '-')))) {
        c->kind = RUN_PRINTS;
        return 0;
    }
    /* the TUI: no command, a collective first, or tui; the player
       explains it and runs nothing */
    if (tui) {
        c->kind = RUN_TUI;
        return 0;
    }
    snprintf(why, whylen, "'collviz %.*s' is not a command a lesson may run; "
             "it may run list, trace, model, perf, calibrate, topo and help",
             utf8_prefix(sub, 40), sub);
    return -1;
}
