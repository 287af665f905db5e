/* main.c - the collviz binary: finds the subcommand and hands it the rest
 * of the command line. No command, a collective name or an option first
 * open the TUI. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cmd/cmd.h"
#include "core/coll.h"
#include "core/sanitize.h"
#include "exec/exec.h"

/* One subcommand. */
typedef struct {
    const char *name;                  /* what the user types */
    int (*run)(int argc, char **argv); /* its entry point (cmd.h) */
    const char *summary;               /* one line for collviz --help */
} Command;

static const Command commands[] = {
    {"list", cmd_list, "every collective and algorithm: constraints, cost formula"},
    {"trace", cmd_trace, "one schedule step by step: transfers and what each cell holds"},
    {"model", cmd_model, "predicted time of every algorithm over a size sweep"},
    {"perf", cmd_perf, "run and time algorithms on a backend, nccl-tests style"},
    {"topo", cmd_topo, "a machine: its links, classes and routes (-T of every command)"},
    {"calibrate", cmd_calibrate, "measure alpha, beta and gamma of a backend"},
    {"learn", cmd_learn, "lessons beside the picture, with checkpoints and saved progress"},
    {"tui", cmd_tui, "the interactive visualizer (also: no command, or a collective first)"},
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const Command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

static int usage(void)
{
    printf("usage: collviz [COMMAND] [ARGS...]\n"
           "       collviz [tui] [COLL] [-a ALGO] [-p RANKS] [-s SIZE] [-B BACKEND]\n"
           "       collviz --scene STRING [--export-svg FILE | --export-cast FILE]\n\n"
           "A terminal visualizer, tutorial and measuring tool for collective\n"
           "communication algorithms.\n\ncommands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        printf("  %-10s %s\n", commands[i].name, commands[i].summary);
    printf("  %-10s %s\n\n", "help CMD", "the help of one command (or: collviz CMD --help)");
    printf("With no command, or a collective name first, collviz opens the TUI.\n"
           "options: -h, --help  this help;  -V, --version  the version.\n"
           "Exit status: 0 success, 1 a run failed or found wrong results, 2 bad input.\n"
           "See collviz(1) for the details.\n");
    return CLI_EXIT_OK;
}

static int unknown_command(const char *name)
{
    char safe[1024];
    sanitize(safe, sizeof safe, name, 0); /* controls as escapes */
    fprintf(stderr, "collviz: unknown command '%s'; commands:", safe);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(stderr, "%s %s", i ? "," : "", commands[i].name);
    fprintf(stderr, ", help (a collective name opens the TUI)\n");
    return CLI_EXIT_USAGE;
}

/* An argument after one that takes none (-V x, help trace x): bad input
 * rather than ignored. */
static int extra_argument(const char *after, const char *extra)
{
    char a[1024], x[1024];
    sanitize(a, sizeof a, after, 0); /* controls as escapes */
    sanitize(x, sizeof x, extra, 0);
    fprintf(stderr, "collviz: unexpected argument '%s' after '%s'; it takes "
                    "no more arguments\n", x, a);
    return CLI_EXIT_USAGE;
}

/* collviz help [CMD] */
static int help(int argc, char **argv)
{
    if (argc > 2) {
        char after[64];
        snprintf(after, sizeof after, "help %s", argv[1]);
        return extra_argument(after, argv[2]);
    }
    if (argc < 2 || !strcmp(argv[1], "help")) /* help help: this help */
        return usage();
    const Command *c = find_command(argv[1]);
    if (!c)
        return unknown_command(argv[1]);
    char name[16], flag[] = "--help";
    snprintf(name, sizeof name, "%s", c->name);
    char *args[] = {name, flag, NULL};
    return c->run(2, args);
}

/* Started with stdin, stdout or stderr closed (>&-, 2>&-), the first file
 * opened would take its number: the table or a warning would then be
 * written into a --json file. Each closed one gets /dev/null opened the
 * other way round, so that its number is taken and its reads and writes
 * still fail (EBADF) as on a closed descriptor: the failed write is then
 * seen and said (finish_output). */
static void hold_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int got = open("/dev/null", fd ? O_RDONLY : O_WRONLY);
            if (got >= 0 && got != fd) { /* a lower one was free: not ours */
                dup2(got, fd);
                close(got);
            }
        }
}

/* An empty or relative element of LD_LIBRARY_PATH names the current
 * folder for every library the loader opens, the driver's and NCCL's own
 * dependencies included (exec_libpath_unsafe), and the loader reads the
 * variable only when a program starts: such elements are dropped and the
 * program started again before it loads anything. Where it cannot start
 * again the variable is put back, and the backends then open no library
 * (gpu_lib_open says why). collviz-mpi does not start again (its
 * processes are mpirun's): its backends refuse the same way. */
#ifndef COLLVIZ_MAIN
static void drop_unsafe_library_path(char **argv)
{
    extern char **environ;
    const char *llp = getenv("LD_LIBRARY_PATH");
    int given = 0; /* (twice in the environment: the loader reads one,
                      getenv another) */
    for (char **e = environ; *e; e++)
        given += !strncmp(*e, "LD_LIBRARY_PATH=", 16);
    if (!llp || (given < 2 && !exec_libpath_unsafe(llp)))
        return;
    size_t n = strlen(llp) + 1;
    char *old = strdup(llp), *clean = malloc(n);
    if (old && clean) {
        exec_libpath_clean(llp, clean, n);
        unsetenv("LD_LIBRARY_PATH"); /* every copy */
        if (!clean[0] || !setenv("LD_LIBRARY_PATH", clean, 1))
            execv("/proc/self/exe", argv);
        setenv("LD_LIBRARY_PATH", old, 1);
    }
    free(old);
    free(clean);
}
#endif

/* Whether e is what a failed write of standard output sets. */
static int write_error(int e)
{
    return e == ENOSPC || e == EPIPE || e == EIO || e == EFBIG ||
           e == EBADF || e == EDQUOT || e == EAGAIN;
}

/* As coreutils do at exit: the command's output must have reached its
 * file. A failed write (a full disk, /dev/full, a closed descriptor) is
 * said with its cause and makes the status 1, even for --help. */
static int finish_output(int rc)
{
    int seen = errno;
    errno = 0;
    int flush_failed = fflush(stdout) != 0;
    if (!flush_failed && !ferror(stdout))
        return ferror(stderr) && rc == CLI_EXIT_OK ? CLI_EXIT_FAIL : rc;
    int e = flush_failed ? errno : write_error(seen) ? seen : 0;
    if (e)
        fprintf(stderr, "collviz: cannot write the output: %s\n", strerror(e));
    else
        fprintf(stderr, "collviz: cannot write the output\n");
    return rc == CLI_EXIT_OK ? CLI_EXIT_FAIL : rc;
}

static int run(int argc, char **argv)
{
    static char tui[] = "tui";
    const char *a = argc > 1 ? argv[1] : NULL;
    bool help_opt = a && (!strcmp(a, "-h") || !strcmp(a, "--help"));
    bool version = a && (!strcmp(a, "-V") || !strcmp(a, "--version"));
    if ((help_opt || version) && argc > 2)
        return extra_argument(a, argv[2]);
    if (help_opt)
        return usage();
    if (version) {
        printf("collviz %s\n", COLLVIZ_VERSION);
        return CLI_EXIT_OK;
    }
    if (a && !strcmp(a, "help"))
        return help(argc - 1, argv + 1);
    const Command *c = a ? find_command(a) : NULL;
    if (c)
        return c->run(argc - 1, argv + 1);
    if (a && a[0] != '-' && coll_parse(a) < 0)
        return unknown_command(a);
    /* The TUI's argv[0] is its name; the rest is passed on unchanged. */
    argv[0] = tui;
    return cmd_tui(argc, argv);
}

/* collviz-mpi (src/mpi/mpi_main.c) builds this file again with
 * COLLVIZ_MAIN=collviz_main and calls it on the job's rank 0. */
#ifndef COLLVIZ_MAIN
#define COLLVIZ_MAIN main
#define COLLVIZ_STARTS_AGAIN 1 /* drop_unsafe_library_path */
#endif
int COLLVIZ_MAIN(int argc, char **argv);

int COLLVIZ_MAIN(int argc, char **argv)
{
#ifdef COLLVIZ_STARTS_AGAIN
    drop_unsafe_library_path(argv);
#endif
    hold_std_fds();
    return finish_output(run(argc, argv));
}
