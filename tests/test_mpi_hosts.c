/* test_mpi_hosts.c - the mpi backend across two hosts made on this
 * machine (tests/mpi/two_hosts.sh: two network namespaces joined by a
 * veth pair, Open MPI started in one with a launch agent that runs the
 * other host's ranks in the other, TCP only between them): the quick
 * correctness sweep (and the full one under COLLVIZ_NIGHTLY=1, make
 * test-nightly) and perf with MPI's own row across them. Skipped,
 * with the script's reason, where namespaces cannot be made (not root, no
 * ip command) or collviz-mpi was not built. */
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

#include "core/calib.h"
#include "exec/exec.h"
#include "measure/calib.h"

/* The build's folder: that of $COLLVIZ (scripts/run-tests.sh), else build. */
static void build_dir(char *dir, size_t len)
{
    const char *bin = getenv("COLLVIZ");
    const char *slash = bin ? strrchr(bin, '/') : NULL;
    if (slash)
        snprintf(dir, len, "%.*s", (int)(slash - bin), bin);
    else
        snprintf(dir, len, "build");
}

/* A made-up calibration of mpi at 2 ranks on the script's two hosts, in
 * a temporary XDG_CACHE_HOME, so that perf does not calibrate first. */
static void made_up_calib(char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/collviz-test-hosts-XXXXXX");
    assert_non_null(mkdtemp(dir));
    setenv("XDG_CACHE_HOME", dir, 1);
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    Calib c = {.nranks = 2, .alpha = 2e-6, .npoints = 2, .machine = MACHINE_FULL,
               .cores = 2};
    snprintf(c.backend, sizeof c.backend, "mpi");
    snprintf(c.host, sizeof c.host, "cv-host-a x1 (%d CPUs), cv-host-b x1 "
             "(%d CPUs)", cpus, cpus);
    c.pt[0] = (CalibPoint){1e6, 2e-11, 1e-10, 1e-11, 4e-11, 0, 0};
    c.pt[1] = (CalibPoint){1e8, 8e-11, 2e-10, 2e-11, 5e-11, 0, 0};
    char why[512];
    assert_int_equal(calib_save(&c, why, sizeof why), CV_OK);
}

static void test_two_hosts(void **state)
{
    char b[512], dir[64], cmd[1024], log[16384] = "";
    (void)state;
    build_dir(b, sizeof b);
    made_up_calib(dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "timeout 600 sh tests/mpi/two_hosts.sh '%s' "
             ">%s/log 2>&1", b, dir);
    int st = system(cmd);
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    snprintf(cmd, sizeof cmd, "%s/log", dir);
    FILE *f = fopen(cmd, "r");
    size_t n = f ? fread(log, 1, sizeof log - 1, f) : 0;
    log[n] = '\0';
    if (f)
        fclose(f);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    if (rc == 77) {
        fprintf(stderr, "test_mpi_hosts: %s", log);
        skip();
    }
    if (rc || !strstr(log, "0 wrong, 0 failed") ||
        !strstr(log, "# mpi: the library's own allreduce") ||
        strstr(log, "calibrating"))
        fail_msg("two hosts failed (status %d):\n%s", rc, log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_hosts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
