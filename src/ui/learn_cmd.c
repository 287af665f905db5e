/* learn_cmd.c - `collviz learn`: the lesson player (learn.h), the list of
 * lessons, progress, and --check for lesson authors (lesson/lint.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "lesson/lint.h"

enum { L_LANG, L_RESET, L_CHECK, L_HELP, L_COUNT };

static const CliOpt learn_opts[L_COUNT] = {
    [L_LANG] = {0, "lang", "LANG", "the language: en or zh (default: from "
                "LC_ALL, LC_MESSAGES or LANG; zh_* gives zh)"},
    [L_RESET] = {0, "reset", "LESSON", "forget the progress of LESSON and "
                 "start it again"},
    [L_CHECK] = {0, "check", NULL, "check the lesson files given (default: "
                 "every lesson) and report each problem; exit 2 on any"},
    [L_HELP] = CLI_OPT_HELP,
};

static const CliCmd learn_cmd = {
    .name = "learn",
    .usage = "learn [LESSON] [--lang en|zh] [--reset LESSON]\n"
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

int cmd_learn(int argc, char **argv)
{
    CliArgs a;
    int rc = cli_start(&learn_cmd, L_HELP, argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (cli_has(&a, L_CHECK))
        return lint_main(a.npos, a.pos);
    fprintf(stderr, "collviz: the lesson player is not built yet\n");
    return CLI_EXIT_USAGE;
}
