/* learn_run.c - running a command of a lesson's @run block for the pager
 * (learn.h): a collviz command that prints, with options on the lessons'
 * allow-list (lesson/runcheck.h, checked here again right before it
 * runs), runs as this program in the background, with COLLVIZ_NO_SAVE set
 * so that it saves no calibration either. Its output streams into the
 * pager while the player keeps taking keys; q or Esc stops it (not the
 * player), and the player stops it at its limits (RUN_MAX_SECONDS,
 * RUN_MAX_OUT) with a sentence that says which. A command that opens the
 * TUI is explained instead of run, since the player holds the terminal;
 * any other is refused with the reason. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/sanitize.h"
#include "lesson/output.h"
#include "ui/learn.h"
#include "ui/term.h"

/* A backstop for a command the player can no longer stop (the player
 * killed with SIGKILL): the child's own alarm, a little past the limit. */
#define RUN_ALARM_SECONDS (RUN_MAX_SECONDS + 10)

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}


/* The pager's text: the output so far with its controls as escapes
 * (core/sanitize.h), lines kept, then tail (may be ""). */
static void pager_set(Learn *l, const char *tail)
{
    LearnJob *j = &l->job;
    const char *raw = j->raw ? j->raw : "";
    size_t need = sanitize(NULL, 0, raw, SANITIZE_KEEP_NEWLINE) + 1;
    size_t tl = strlen(tail);
    char *t = malloc(need + tl);
    if (!t)
        return; /* the last text stays */
    sanitize(t, need, raw, SANITIZE_KEEP_NEWLINE);
    memcpy(t + strlen(t), tail, tl + 1);
    free(l->pager);
    l->pager = t;
    /* a command that runs for a while is followed to the end of its
       output, as a terminal would; a quick one is shown from its top */
    int most = learn_pager_max(l);
    if ((j->follow && learn_running(l) && now_s() - j->t0 >= 1.0) ||
        l->pager_top > most)
        l->pager_top = most;
}

/* Open the pager on cmd with text (malloc'd, taken; NULL: empty). */
static void show(Learn *l, const char *cmd, char *text)
{
    LearnJob *j = &l->job;
    free(j->raw);
    j->raw = text, j->len = text ? strlen(text) : 0, j->cap = j->len;
    j->follow = false;
    snprintf(l->pager_title, sizeof l->pager_title, "$ %s", cmd);
    l->pager_top = 0;
    l->pager_left = 0;
    l->screen = LS_PAGER;
    pager_set(l, "");
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

bool learn_running(const Learn *l) { return l->job.pid > 0; }

void learn_run(Learn *l, const char *cmd)
{
    RunCmd c;
    char why[400], msg[800];
    if (learn_running(l))
        learn_run_stop(l);
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
    int fd;
    pid_t pid = output_spawn(l->self ? l->self : "/proc/self/exe", c.argv,
                             true, RUN_ALARM_SECONDS, &fd);
    if (pid < 0) {
        show(l, cmd, strdup(strerror(errno)));
        return;
    }
    term_child_group((int)pid); /* a fatal signal ends it with the player */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    show(l, cmd, NULL);
    LearnJob *j = &l->job;
    j->pid = pid, j->fd = fd, j->t0 = now_s(), j->elapsed = 0;
    j->follow = true;
    j->end = LJ_RUNNING;
}

/* The command has ended (its status in st, or killed by the player for
 * j->end): the closing line, the pager's text whole. */
static void finish(Learn *l, int st)
{
    LearnJob *j = &l->job;
    term_child_group(0);
    if (j->fd >= 0)
        close(j->fd);
    j->fd = -1, j->pid = 0;
    char tail[300];
    double t = j->elapsed;
    switch (j->end) {
    case LJ_RUNNING:
        if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
            snprintf(tail, sizeof tail, _("\n[stopped after %.1f s: a "
                     "lesson's command may run at most %d s]"), t,
                     RUN_MAX_SECONDS);
        else if (WIFSIGNALED(st))
            snprintf(tail, sizeof tail, _("\n[stopped by signal %d (%s) "
                     "after %.1f s]"), WTERMSIG(st), strsignal(WTERMSIG(st)),
                     t);
        else
            snprintf(tail, sizeof tail, _("\n[exit status %d after %.1f s]"),
                     WEXITSTATUS(st), t);
        break;
    case LJ_CANCELLED:
        snprintf(tail, sizeof tail, _("\n[stopped by you after %.1f s; the "
                 "output so far is above]"), t);
        break;
    case LJ_TIME:
        snprintf(tail, sizeof tail, _("\n[stopped after %.1f s: a lesson's "
                 "command may run at most %d s]"), t, j->limit_s);
        break;
    case LJ_OUTPUT:
        snprintf(tail, sizeof tail, _("\n[stopped: its output passed %zu "
                 "KiB, the most the pager keeps; the first %zu KiB are "
                 "above]"), j->max_out / 1024, j->max_out / 1024);
        break;
    }
    j->end = LJ_RUNNING;
    pager_set(l, tail);
}

/* End the running command now (its whole process group), for why. */
static void kill_job(Learn *l, LearnJobEnd why)
{
    LearnJob *j = &l->job;
    int st = 0;
    kill(-j->pid, SIGKILL);
    while (waitpid(j->pid, &st, 0) < 0 && errno == EINTR)
        ;
    j->elapsed = now_s() - j->t0;
    j->end = why;
    finish(l, st);
}

void learn_run_stop(Learn *l)
{
    if (learn_running(l))
        kill_job(l, LJ_CANCELLED);
}

/* Read what the command has printed; false at its end of output. */
static bool take(Learn *l)
{
    LearnJob *j = &l->job;
    bool more = false;
    for (;;) {
        if (j->len == j->cap) {
            size_t cap = j->cap ? 2 * j->cap : 4096;
            cap = cap < j->max_out ? cap : j->max_out;
            char *nb = cap > j->cap ? realloc(j->raw, cap + 1) : NULL;
            if (!nb)
                return true; /* full (or no memory): the caller stops it */
            j->raw = nb, j->cap = cap;
        }
        ssize_t n = read(j->fd, j->raw + j->len, j->cap - j->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) /* EAGAIN: nothing more now */
            break;
        if (n == 0) {
            close(j->fd);
            j->fd = -1;
            break;
        }
        j->len += (size_t)n;
        j->raw[j->len] = '\0';
        more = true;
    }
    if (more)
        pager_set(l, "");
    return j->len == j->cap && j->cap >= j->max_out;
}

void learn_run_poll(Learn *l, int wait_ms)
{
    LearnJob *j = &l->job;
    if (!learn_running(l))
        return;
    if (j->fd >= 0) {
        struct pollfd pf = {.fd = j->fd, .events = POLLIN};
        if (poll(&pf, 1, wait_ms) > 0 && take(l)) {
            /* cut back to a whole character and line end of what is kept */
            size_t k = j->len;
            while (k > 0 && j->raw[k - 1] != '\n')
                k--;
            j->len = k ? k : j->len;
            j->raw[j->len] = '\0';
            kill_job(l, LJ_OUTPUT);
            return;
        }
    } else if (wait_ms > 0) {
        poll(NULL, 0, wait_ms);
    }
    j->elapsed = now_s() - j->t0;
    if (term_stop_signal()) { /* the player is ending: its command too */
        kill_job(l, LJ_CANCELLED);
        return;
    }
    if (j->elapsed >= j->limit_s) {
        kill_job(l, LJ_TIME);
        return;
    }
    int st = 0;
    if (j->fd < 0 && waitpid(j->pid, &st, WNOHANG) == j->pid)
        finish(l, st);
}

void learn_run_wait(Learn *l)
{
    while (learn_running(l))
        learn_run_poll(l, 100);
}

void learn_run_fini(Learn *l)
{
    learn_run_stop(l);
    free(l->job.raw);
    l->job.raw = NULL;
}
