/* mpi_main.c - the collviz-mpi binary: collviz with the mpi backend, one
 * process of an mpirun job. Rank 0 runs the command line as collviz does
 * (src/main.c, built a second time as collviz_main); the other processes
 * serve its -B mpi executors and print nothing. A second binary, so that
 * collviz itself never links libmpi (docs/ARCHITECTURE.md). */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "core/coll.h"
#include "mpi/launch.h"

/* src/main.c's main, under another name in this binary. */
int collviz_main(int argc, char **argv);

/* Whether the command line opens the interactive TUI (no command, "tui",
 * a collective or an option first; not --script, not --help). */
static bool interactive_tui(int argc, char **argv)
{
    const char *a = argc > 1 ? argv[1] : NULL;
    if (a && (!strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "-V") ||
              !strcmp(a, "--version")))
        return false;
    if (a && strcmp(a, "tui") && a[0] != '-' && coll_parse(a) < 0)
        return false;
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--script", 8) || !strcmp(argv[i], "--help"))
            return false;
    return true;
}

/* mpirun hands rank 0 pipes, not the terminal, and starts it in a
 * process group of its own: the TUI takes the terminal mpirun was
 * started from (its controlling terminal), when there is one, as the
 * foreground, and gives the foreground back when it ends. */
static int body(int argc, char **argv)
{
    pid_t fg = -1;
    if (interactive_tui(argc, argv) &&
        (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
        int tty = open("/dev/tty", O_RDWR);
        if (tty >= 0) {
            dup2(tty, STDIN_FILENO);
            dup2(tty, STDOUT_FILENO);
            close(tty);
            fg = tcgetpgrp(STDIN_FILENO);
            signal(SIGTTOU, SIG_IGN); /* a background group may set it */
            tcsetpgrp(STDIN_FILENO, getpgrp());
        }
    }
    int rc = collviz_main(argc, argv);
    if (fg > 0)
        tcsetpgrp(STDIN_FILENO, fg);
    return rc;
}

/* Whether the command uses the backend from one thread only: perf and
 * calibrate measure in the thread that runs them (the TUI and the
 * commands that may open it do not). */
static bool one_thread(int argc, char **argv)
{
    return argc > 1 &&
           (!strcmp(argv[1], "perf") || !strcmp(argv[1], "calibrate"));
}

int main(int argc, char **argv)
{
    return mpi_launch(argc, argv, body, one_thread(argc, argv));
}
