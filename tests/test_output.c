/* test_output.c - a command whose output cannot be written says so and
 * fails: every command is run with its standard output on /dev/full (a
 * device that refuses every write with "no space left") and must exit 1
 * with one line on standard error naming that cause, as coreutils do; the same commands
 * with a working output still exit 0.
 *
 * The binary is $COLLVIZ (default build/collviz). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run the binary with the blank-separated words of line, its standard
 * output on out_path; its status, and its standard error in err. */
static int run_to(const char *out_path, const char *line, char *err, size_t len)
{
    const char *bin = getenv("COLLVIZ") ? getenv("COLLVIZ") : "build/collviz";
    char copy[512], *argv[32] = {"collviz"}, *save = NULL;
    int argc = 1, pipefd[2];
    snprintf(copy, sizeof copy, "%s", line);
    for (char *w = strtok_r(copy, " ", &save); w && argc < 31;
         w = strtok_r(NULL, " ", &save))
        argv[argc++] = w;
    assert_int_equal(pipe(pipefd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(out_path, O_WRONLY);
        if (fd < 0)
            _exit(126);
        dup2(fd, 1);
        dup2(pipefd[1], 2);
        close(pipefd[0]);
        setenv("XDG_CACHE_HOME", "/tmp/collviz-test-output-cache", 1);
        execv(bin, argv);
        _exit(127);
    }
    close(pipefd[1]);
    size_t n = 0;
    for (ssize_t k; n + 1 < len && (k = read(pipefd[0], err + n, len - 1 - n)) > 0;)
        n += (size_t)k;
    err[n] = '\0';
    close(pipefd[0]);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Commands that write to standard output, each quick. */
static const char *const commands[] = {
    "list",
    "list allreduce",
    "--help",
    "-V",
    "help trace",
    "trace --help",
    "perf --help",
    "model allreduce -p 4",
    "model allreduce -p 4 -b 8 -e 1K",
    "trace allreduce -p 4 -s 64",
    "trace alltoall -p 3 -s 36 --json",
    "tui --script /dev/null --dump",
};

static void test_full_output_fails(void **state)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char err[4096];
        int rc = run_to("/dev/full", commands[i], err, sizeof err);
        const char *nl = strchr(err, '\n');
        if (rc != 1 || strncmp(err, "collviz: ", 9) ||
            !strstr(err, "No space left on device") || !nl || nl[1])
            fail_msg("collviz %s > /dev/full: exit %d, stderr:\n%s",
                     commands[i], rc, err);
    }
}

/* The same commands succeed where the output can be written, so the
 * failures above are the output's. */
static void test_working_output_succeeds(void **state)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char err[4096];
        int rc = run_to("/dev/null", commands[i], err, sizeof err);
        if (rc != 0)
            fail_msg("collviz %s > /dev/null: exit %d, stderr:\n%s",
                     commands[i], rc, err);
    }
}

int main(void)
{
    if (access("/dev/full", W_OK) != 0) {
        fprintf(stderr, "test_output: no /dev/full here\n");
        const struct CMUnitTest none[] = {
            cmocka_unit_test(test_working_output_succeeds)};
        return cmocka_run_group_tests(none, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_output_fails),
        cmocka_unit_test(test_working_output_succeeds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
