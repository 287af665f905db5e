/* test_ui_e2e.c - the real binary in a real terminal: runs
 * tests/e2e_tmux.sh on $COLLVIZ (set by `make test`), which drives collviz
 * in tmux (start, step, change algorithm, resize, quit, Ctrl-C, SIGTERM,
 * no terminal) and checks the terminal is left sane. Skipped, with the
 * reason, when tmux is not installed. The script's output passes through;
 * a failure's reason (its last "e2e: FAIL:" line) is also the test's
 * failure message, so a log's last lines say what failed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sanitizer.h"

/* The run q cuts short, and the seconds within which collviz must be
 * gone: 16 MiB a rank (2 GiB of buffers at 64 ranks) and 2 s; under a
 * sanitizer, whose allocations and first touches cost several times the
 * plain build's and beside its other tests' memory (a load's allocation
 * is not cut: exec.h), 1 MiB and 10 s. */
#if defined(UNDER_ASAN) || defined(UNDER_TSAN)
#define QUIT_RUN "E2E_QUIT_SIZE=1M E2E_QUIT_LIMIT_S=10"
#else
#define QUIT_RUN "E2E_QUIT_SIZE=16M E2E_QUIT_LIMIT_S=2"
#endif

static void test_tmux(void **state)
{
    const char *bin = getenv("COLLVIZ");
    if (!bin || !*bin)
        bin = "build/collviz";
    if (access(bin, X_OK)) {
        print_message("e2e: SKIP: %s is not built (make sets COLLVIZ)\n", bin);
        skip();
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd, QUIT_RUN " sh tests/e2e_tmux.sh '%s' 2>&1", bin);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    char line[1024], reason[1024] = "";
    while (fgets(line, sizeof line, f)) {
        fputs(line, stdout);
        if (strncmp(line, "e2e: FAIL:", 10) == 0)
            snprintf(reason, sizeof reason, "%s", line);
    }
    fflush(stdout);
    int st = pclose(f);
    assert_true(WIFEXITED(st));
    if (WEXITSTATUS(st) == 77)
        skip();
    if (WEXITSTATUS(st) != 0)
        fail_msg("%s", reason[0] ? reason : "e2e_tmux.sh failed without a reason\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_tmux)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
