/* output.c - quoted command output checked against the command
 * (output.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/sanitize.h"
#include "exec/mono.h"
#include "lesson/output.h"

int output_quotable(const RunCmd *c, char *why, size_t whylen)
{
    static const char *const computed[] = {"list", "trace", "model", "topo",
                                           "help"};
    if (c->kind != RUN_PRINTS || c->argc < 2) {
        snprintf(why, whylen, "only what a collviz command prints can be "
                 "quoted, and this command %s",
                 c->kind == RUN_TUI ? "opens the TUI" : "is not collviz's");
        return -1;
    }
    bool ok = false;
    for (size_t k = 0; k < sizeof computed / sizeof *computed; k++)
        ok |= !strcmp(c->argv[1], computed[k]);
    if (!ok) {
        snprintf(why, whylen, "what 'collviz %s' prints is measured on the "
                 "learner's machine, so it cannot be quoted as what it "
                 "prints; quote list, trace, model, topo or help",
                 c->argv[1]);
        return -1;
    }
    for (int i = 2; i < c->argc; i++)
        if (!strncmp(c->argv[i], "-B", 2) ||
            !strncmp(c->argv[i], "--backend", 9)) {
            snprintf(why, whylen, "with %s the model is the learner's "
                     "calibration, so its output cannot be quoted",
                     c->argv[i]);
            return -1;
        }
    return 0;
}

/* The next line of *s (blanks collapsed and trimmed) into buf; false at
 * the end. A line longer than buf is cut there. */
static bool next_line(const char **s, char *buf, size_t n)
{
    if (!**s)
        return false;
    size_t k = 0;
    bool gap = false;
    const char *p = *s;
    for (; *p && *p != '\n'; p++) {
        if (*p == ' ' || *p == '\t' || *p == '\r') {
            gap = k > 0;
            continue;
        }
        if (gap && k + 1 < n)
            buf[k++] = ' ';
        gap = false;
        if (k + 1 < n)
            buf[k++] = *p;
    }
    buf[k] = '\0';
    *s = *p ? p + 1 : p;
    return true;
}

int output_match(const char *quoted, const char *printed, int *bad,
                 char *why, size_t whylen)
{
    char q[1024], o[1024];
    const char *at = printed;
    int line = 0;
    *bad = 0;
    while (next_line(&quoted, q, sizeof q)) {
        line++;
        bool found = false;
        while (!found && next_line(&at, o, sizeof o))
            found = !strcmp(q, o);
        if (!found) {
            char safe[200];
            sanitize(safe, sizeof safe, q, 0);
            snprintf(why, whylen, "the command does not print the quote's "
                     "line %d%s, '%.*s'", line,
                     line > 1 ? " after its line before" : "",
                     utf8_prefix(safe, 120), safe);
            *bad = line;
            return -1;
        }
    }
    return 0;
}

char **output_child_env(void)
{
    extern char **environ;
    size_t n = 0;
    while (environ[n])
        n++;
    char **e = malloc((n + 2) * sizeof *e);
    if (!e)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "OMPI_", 5) &&
            strncmp(environ[i], "PMIX_", 5) &&
            strncmp(environ[i], "PMI_", 4) &&
            strncmp(environ[i], "COLLVIZ_NO_SAVE=", 16))
            e[k++] = environ[i];
    e[k++] = "COLLVIZ_NO_SAVE=1";
    e[k] = NULL;
    return e;
}

pid_t output_spawn(const char *self, char *const *argv, bool own_group,
                   unsigned alarm_s, int *out)
{
    int fd[2];
    char **envp = output_child_env();
    if (!envp) {
        errno = ENOMEM;
        return -1;
    }
    if (pipe(fd)) {
        free(envp);
        return -1;
    }
    fflush(NULL); /* nothing buffered is written twice by the child */
    pid_t pid = fork();
    if (pid == 0) {
        if (own_group)
            setpgid(0, 0);
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, STDIN_FILENO);
        dup2(fd[1], STDOUT_FILENO);
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        if (alarm_s)
            alarm(alarm_s);
        execve(self, argv, envp);
        static const char m[] = "collviz: cannot run this program\n";
        if (write(STDERR_FILENO, m, sizeof m - 1) < 0) {
            /* nothing more can be said */
        }
        _exit(127);
    }
    int e = errno;
    free(envp);
    close(fd[1]);
    if (pid < 0) {
        close(fd[0]);
        errno = e;
        return -1;
    }
    if (own_group)
        setpgid(pid, pid); /* as the child does: whichever runs first */
    *out = fd[0];
    return pid;
}

char *output_run(const char *self, const RunCmd *c, double limit_s,
                 int *status, char *why, size_t whylen)
{
    int fd;
    char *buf = malloc(OUTPUT_MAX_BYTES + 2); /* one byte past the limit
                                                 says it was passed */
    pid_t pid = buf ? output_spawn(self, c->argv, false, 0, &fd) : -1;
    if (pid < 0) {
        snprintf(why, whylen, "cannot start the command: %s",
                 strerror(buf ? errno : ENOMEM));
        free(buf);
        return NULL;
    }
    size_t len = 0;
    const char *stop = NULL;
    double end = mono_now_s() + limit_s;
    for (;;) {
        double left = end - mono_now_s();
        if (left <= 0) {
            stop = "ran past its limit";
            break;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, (int)(left * 1000) + 1) <= 0)
            continue; /* a signal or the time: looked at above */
        ssize_t got = read(fd, buf + len, OUTPUT_MAX_BYTES + 1 - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
        if (len > OUTPUT_MAX_BYTES) {
            stop = "printed more than its limit";
            break;
        }
    }
    close(fd);
    if (stop)
        kill(pid, SIGKILL);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    buf[len] = '\0';
    if (stop) {
        snprintf(why, whylen, "the command %s (%.0f s, %u MiB)", stop,
                 limit_s, OUTPUT_MAX_BYTES >> 20);
        free(buf);
        return NULL;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
        snprintf(why, whylen, "cannot run %s", self);
        free(buf);
        return NULL;
    }
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return buf;
}

/* Command k (from 1) of the @run item's commands, into line. */
static bool command(const LessonItem *run, int k, char *line, size_t n)
{
    size_t len;
    const char *c = lesson_run_command(run, k, &len);
    if (!c)
        return false;
    snprintf(line, n, "%.*s", (int)len, c);
    return len < n;
}

static void budget_spent(LessonDiags *d, int line)
{
    lesson_diag(d, line, "the quoted commands ran for %d s in all, learn "
                "--check's budget: this block and those after it are not "
                "checked", OUTPUT_BUDGET_S);
}

void output_runs_fini(OutputRuns *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->cmd[i]), free(r->out[i]);
    r->n = 0;
}

/* What command line cmd printed, kept in r, or NULL. */
static const char *kept(const OutputRuns *r, const char *cmd)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->cmd[i], cmd))
            return r->out[i];
    return NULL;
}

/* Run command k of @run item run, one whose output may be quoted, with
 * self under r's budget (output_lint's): what it printed (status 0; r
 * owns it) or NULL, with the reason said at `line` where there is one to
 * say (quoted: a command that may not be quoted is one; for the leak
 * check it is only left out). The command line into cmd. */
static const char *run_budgeted(const LessonItem *run, int k, const char *self,
                                OutputRuns *r, bool quoted, int line,
                                LessonDiags *d, char *cmd, size_t cmdlen)
{
    char why[600];
    RunCmd c;
    int st = 0;
    if (!command(run, k, cmd, cmdlen) || runcheck(cmd, &c, why, sizeof why))
        return NULL; /* the @run's own check says why */
    if (output_quotable(&c, why, sizeof why)) {
        if (quoted)
            lesson_diag(d, line, "%s", why);
        return NULL;
    }
    const char *before = kept(r, cmd);
    if (before)
        return before;
    if (r->left <= 0) { /* spent: said once, at the first not run */
        if (r->left == 0)
            budget_spent(d, line);
        r->left = -1;
        return NULL;
    }
    double t0 = mono_now_s();
    double limit = r->left < OUTPUT_LIMIT_S ? r->left : OUTPUT_LIMIT_S;
    char *out = output_run(self, &c, limit, &st, why, sizeof why);
    r->left -= mono_now_s() - t0;
    if (!out && limit < OUTPUT_LIMIT_S) { /* cut short by the budget */
        budget_spent(d, line);
        r->left = -1;
        return NULL;
    }
    if (r->left < 0)
        r->left = 0;
    if (!out || st) {
        if (!out)
            lesson_diag(d, line, "%s", why);
        else
            lesson_diag(d, line, "the %s command exits with status %d",
                        quoted ? "quoted" : "@run's", st);
        free(out);
        return NULL;
    }
    char *keep = r->n < OUTPUT_KEPT ? strdup(cmd) : NULL;
    if (!keep) { /* not kept: said as it is, then let go */
        lesson_diag(d, line, "%s", cv_strerror(CV_ERR_NOMEM));
        free(out);
        return NULL;
    }
    r->cmd[r->n] = keep, r->out[r->n] = out;
    return r->out[r->n++];
}

void output_lint(const Lesson *l, const char *self, OutputRuns *r,
                 LessonDiags *d)
{
    for (size_t i = 0; i < l->nitems; i++) {
        const LessonItem *it = &l->items[i];
        if (it->kind != LI_BLOCK || !it->quotes || it->quotes_run < 0)
            continue;
        char line[RUNCHECK_MAX_BYTES + 2], why[600];
        int bad;
        const char *out = run_budgeted(&l->items[it->quotes_run], it->quotes,
                                       self, r, true, it->quotes_line, d,
                                       line, sizeof line);
        if (out && output_match(it->text, out, &bad, why, sizeof why))
            lesson_diag(d, it->line + bad - 1, "%s (%s, at line %d)", why,
                        line, l->items[it->quotes_run].line);
    }
}

/* The decimals of a plain number's text ("1273.77": 2), or -1 when s is
 * none (digits with at most one '.'). */
static int plain_decimals(const char *s)
{
    size_t d = strspn(s, "0123456789");
    if (!d)
        return -1;
    if (!s[d])
        return 0;
    if (s[d] != '.' || !s[d + 1] || strspn(s + d + 1, "0123456789") !=
                                        strlen(s + d + 1))
        return -1;
    return (int)strlen(s + d + 1);
}

/* Whether out holds number a (its text, dec decimals) as a number that
 * rounds to it: "1273.765" holds 1273.77; a digit or '.' on either side
 * makes another number. */
static bool number_in(const char *out, const char *a, int dec)
{
    double want = strtod(a, NULL), unit = pow(10, dec);
    for (const char *p = out; *p; p++) {
        if (!isdigit((unsigned char)*p) ||
            (p > out && (isdigit((unsigned char)p[-1]) || p[-1] == '.')))
            continue;
        char *end;
        double x = strtod(p, &end);
        const char *dot = memchr(p, '.', (size_t)(end - p));
        int xd = dot ? (int)(end - dot - 1) : 0;
        if (xd >= dec && fabs(round(x * unit) - want * unit) < 0.5)
            return true;
        p = end - 1;
    }
    return false;
}

/* Whether an answer of checkpoint it stands in out; the first that does,
 * or NULL. A number of four characters or more (a shorter one stands by
 * chance in many outputs) as a number that rounds to it, other answers
 * but names as lint's leak check takes them. */
static const char *answer_in(const LessonItem *it, const char *out)
{
    for (size_t k = 0; k < it->nanswers; k++) {
        const char *a = it->answers[k];
        int dec = plain_decimals(a);
        if (strlen(a) < 4 || isalpha((unsigned char)a[0]))
            continue;
        if (dec >= 0 ? number_in(out, a, dec) : lesson_holds_word(out, a))
            return a;
    }
    return NULL;
}

void output_leaks(const Lesson *l, const char *self, OutputRuns *r,
                  LessonDiags *d)
{
    size_t since = 0; /* the first item after the checkpoint before */
    for (size_t i = 0; i < l->nitems; i++) {
        const LessonItem *it = &l->items[i];
        if (it->kind != LI_CHECK)
            continue;
        bool think = it->within > 0 || it->nchoices > 0;
        for (size_t j = since; think && it->nanswers && j < i; j++) {
            const LessonItem *run = &l->items[j];
            for (int k = 1; run->kind == LI_RUN &&
                            k <= lesson_run_count(run); k++) {
                char cmd[RUNCHECK_MAX_BYTES + 2];
                const char *out = run_budgeted(run, k, self, r, false,
                                               run->line, d, cmd, sizeof cmd);
                const char *a = out ? answer_in(it, out) : NULL;
                if (a)
                    lesson_diag(d, it->line, "the @run at line %d prints "
                                "this checkpoint's answer '%.*s' (%s): the "
                                "learner reads it before giving it; ask "
                                "first, then run", run->line,
                                utf8_prefix(a, 60), a, cmd);
            }
        }
        since = i + 1;
    }
}
