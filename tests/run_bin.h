/* run_bin.h - running the collviz binary ($COLLVIZ, default build/collviz)
 * from a cmocka test, as a user would: its exit status, all of its
 * stdout and stderr, a time limit (a run that hangs fails the test, it
 * never hangs the suite), and optionally a limit on its address space
 * (to make allocations fail) or on the size of the files it writes.
 * Header-only, for the test programs that drive the binary. */
#ifndef COLLVIZ_TEST_RUN_BIN_H
#define COLLVIZ_TEST_RUN_BIN_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sanitizer.h"

/* Sanitizers reserve terabytes of address space: a run under an address
 * space limit cannot start with them. */
#if defined(UNDER_ASAN) || defined(UNDER_TSAN)
#define RUN_SANITIZED 1
#else
#define RUN_SANITIZED 0
#endif

/* How to run it. */
typedef struct {
    int limit_s;            /* seconds before the run is killed and the
                               test fails (0: 60) */
    unsigned long long as;  /* RLIMIT_AS in bytes (0: none) */
    unsigned long long fsize; /* RLIMIT_FSIZE in bytes, SIGXFSZ ignored
                                 (0: none) */
} RunOpts;

/* What one run gave. */
typedef struct {
    int status;  /* exit status; 128 + signal when killed by one */
    double secs; /* how long it ran */
    char *out;   /* all of stdout */
    char *err;   /* all of stderr */
} Ran;

static inline const char *run_binary(void)
{
    const char *b = getenv("COLLVIZ");
    return b && *b ? b : "build/collviz";
}

/* The whole contents of the open file fd (rewound), NUL-terminated. */
static inline char *run_slurp_fd(int fd)
{
    off_t n = lseek(fd, 0, SEEK_END);
    char *s = malloc(n > 0 ? (size_t)n + 1 : 1);
    assert_non_null(s);
    size_t got = n > 0 && lseek(fd, 0, SEEK_SET) == 0
                     ? (size_t)pread(fd, s, (size_t)n, 0) : 0;
    s[got] = '\0';
    return s;
}

static inline double run_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* In the child: the limits, then the binary. */
static inline void run_child(const RunOpts *o, char **argv, int fo, int fe)
{
    dup2(fo, 1);
    dup2(fe, 2);
    if (o && o->as) {
        struct rlimit l = {o->as, o->as};
        setrlimit(RLIMIT_AS, &l);
    }
    if (o && o->fsize) {
        struct rlimit l = {o->fsize, o->fsize};
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &l);
    }
    execv(argv[0], argv);
    _exit(127);
}

/* Run the binary with args (NULL-terminated) under o (may be NULL). */
static inline Ran run_opts(const RunOpts *o, const char *const *args)
{
    char *argv[64], outp[] = "/tmp/collviz-run-outXXXXXX",
                    errp[] = "/tmp/collviz-run-errXXXXXX";
    int fo = mkstemp(outp), fe = mkstemp(errp), n = 0, limit;
    assert_true(fo >= 0 && fe >= 0);
    unlink(outp), unlink(errp);
    argv[n++] = (char *)run_binary();
    for (; args[n - 1] && n < 63; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    limit = o && o->limit_s ? o->limit_s : 60;
    fflush(NULL);
    double start = run_now();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        run_child(o, argv, fo, fe);
    int st = 0;
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (run_now() - start > limit) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            fail_msg("collviz %s %s ... did not finish in %d s", argv[1],
                     argv[2] ? argv[2] : "", limit);
        }
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    Ran r = {.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
             .secs = run_now() - start};
    if (r.status == 127)
        fail_msg("cannot run %s (set COLLVIZ to the binary)", argv[0]);
    r.out = run_slurp_fd(fo), r.err = run_slurp_fd(fe);
    close(fo), close(fe);
    return r;
}

static inline Ran run_args(const char *const *args)
{
    return run_opts(NULL, args);
}

static inline void ran_free(Ran *r)
{
    free(r->out);
    free(r->err);
}

/* Lines of s (each ending in '\n'). */
static inline int run_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The run said one sentence on stderr ("collviz: ..." on one line)
 * holding `says`, exited with `status`, and printed nothing on stdout. */
static inline void run_expect_sentence(const Ran *r, const char *what,
                                       int status, const char *says)
{
    if (r->status != status || r->out[0] || run_lines(r->err) != 1 ||
        strncmp(r->err, "collviz: ", 9) || !strstr(r->err, says))
        fail_msg("%s: status %d (want %d), stdout '%.200s', stderr '%s' "
                 "(want one sentence with '%s')", what, r->status, status,
                 r->out, r->err, says);
}

#endif
