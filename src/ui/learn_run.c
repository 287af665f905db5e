/* learn_run.c - running a command of a lesson's @run block for the pager
 * (learn.h): a collviz command that prints, with options on the lessons'
 * allow-list (lesson/runcheck.h, checked here again right before it
 * runs), runs as this program, its output and status captured, with
 * COLLVIZ_NO_SAVE set so that it saves no calibration either. A command
 * that opens the TUI is explained instead of run, since the player holds
 * the terminal; any other is refused with the reason. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/sanitize.h"
#include "ui/learn.h"
#include "ui/term.h"

#define RUN_MAX_OUT (1u << 20) /* the most output the pager keeps */
#define RUN_MAX_SECONDS 120    /* a command running longer is stopped */
#define RUN_POLL_MS 100        /* how often a stop signal is looked for */

/* Read fd to its end into a malloc'd string (at most RUN_MAX_OUT), or
 * until a stop signal (SIGHUP when the terminal closes, SIGINT, SIGTERM)
 * asks the player to end: then *stopped is set and the command is the
 * caller's to kill. The pipe is polled, so a signal that comes between
 * two reads is seen within RUN_POLL_MS. */
static char *drain(int fd, bool *stopped)
{
    size_t len = 0, cap = 4096;
    char *b = malloc(cap + 1);
    while (b) {
        if ((*stopped = term_stop_signal() != 0))
            break;
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int r = poll(&pf, 1, RUN_POLL_MS);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue; /* a signal, or nothing yet: look at the flag */
        if (len == cap && cap < RUN_MAX_OUT) {
            char *nb = realloc(b, 2 * cap + 1);
            if (!nb)
                break;
            b = nb, cap *= 2;
        }
        if (len == cap) { /* full: keep reading, drop the rest */
            char sink[4096];
            if (read(fd, sink, sizeof sink) <= 0)
                break;
            continue;
        }
        ssize_t n = read(fd, b + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    if (b)
        b[len] = '\0';
    return b;
}

static void child(const char *self, int out, char **argv)
{
    /* its own process group: the player ends it, and whatever it started,
       with one kill; the terminal's signals go to the player alone */
    setpgid(0, 0);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
        dup2(null, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(out, STDERR_FILENO);
    alarm(RUN_MAX_SECONDS);
    setenv("COLLVIZ_NO_SAVE", "1", 1); /* a lesson's command saves nothing */
    execv(self, argv);
    fprintf(stderr, "collviz: cannot run: %s\n", strerror(errno));
    _exit(127);
}

static void show(Learn *l, const char *cmd, char *text)
{
    /* a command's output reaches the terminal with its controls as
       escapes (core/sanitize.h), lines kept */
    size_t need = text ? sanitize(NULL, 0, text, SANITIZE_KEEP_NEWLINE) + 1 : 0;
    char *safe = need ? malloc(need) : NULL;
    if (safe) {
        sanitize(safe, need, text, SANITIZE_KEEP_NEWLINE);
        free(text);
        text = safe;
    }
    free(l->pager);
    l->pager = text;
    snprintf(l->pager_title, sizeof l->pager_title, "$ %s", cmd);
    l->pager_top = 0;
    l->screen = LS_PAGER;
}

/* The pager's text for a command that is not run: text, then the command
 * whole (malloc'd; NULL without memory). */
static char *not_run(const char *text, const char *cmd)
{
    size_t n = strlen(text) + strlen(cmd) + 8;
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%s\n\n    %s", text, cmd);
    return t;
}

void learn_run(Learn *l, const char *cmd)
{
    RunCmd c;
    char why[400], msg[800];
    if (runcheck(cmd, &c, why, sizeof why)) {
        snprintf(msg, sizeof msg, "%s\n\n%s", _("A lesson may not run this "
                 "command, so it is not run:"), why);
        show(l, cmd, not_run(msg, cmd));
        return;
    }
    if (c.kind == RUN_SHELL) {
        show(l, cmd, not_run(_("Only collviz commands that print run here; "
                               "try this one in a shell."), cmd));
        return;
    }
    if (c.kind == RUN_TUI) {
        show(l, cmd, not_run(_("This command opens the interactive TUI: quit "
                               "the lesson (q) and run it in a shell."), cmd));
        return;
    }
    char **argv = c.argv;
    int fd[2];
    if (pipe(fd)) {
        show(l, cmd, strdup(strerror(errno)));
        return;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        show(l, cmd, strdup(strerror(errno)));
        return;
    }
    if (pid == 0) {
        close(fd[0]);
        child(l->self ? l->self : "/proc/self/exe", fd[1], argv);
    }
    setpgid(pid, pid); /* as the child does: whichever runs first */
    close(fd[1]);
    bool stopped = false;
    char *out = drain(fd[0], &stopped);
    close(fd[0]);
    if (stopped) /* the player is ending: its command with it, now */
        kill(-pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    size_t n = out ? strlen(out) : 0;
    char *full = malloc(n + 120);
    if (!full) {
        free(out);
        return;
    }
    snprintf(full, n + 120, "%s\n[%s %d]", out ? out : "",
             WIFSIGNALED(st) ? _("stopped by signal") : _("exit status"),
             WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    free(out);
    show(l, cmd, full);
}
