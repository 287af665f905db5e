/* hoststate.c - which state is this machine's cross-core data path in?
 *
 * On the 2-core development virtual machine, a core that reads data another
 * core has just written (what every pulled transfer of a collective does
 * after the step that wrote it) runs at one of two speeds, about 11 times
 * apart, and the machine switches between them every 5 to 40 seconds on its
 * own (the host places the two virtual CPUs; nothing in the guest changes).
 * Reading data nobody writes runs at one speed throughout. This program
 * measures both and prints their ratio, so that a benchmark report can say
 * which state each of its measurements met.
 *
 * The measurement is src/probe.c's (collviz calibrate and perf take the
 * same one, for a few milliseconds): two threads on the first two CPUs
 * this process may use pull each other's freshly written blocks ("dirty")
 * and blocks written once ("clean"); ratio = dirty / clean per iteration:
 * about 1 in the fast state, about 11 in the slow one.
 *
 * usage: hoststate [-t SECONDS] [-i INTERVAL] [-s BYTES] [-q]
 *   -t: how long to watch (default 10)
 *   -i: seconds per line of the timeline (default 1)
 *   -s: bytes per block (default 1 MiB; three blocks per thread)
 *   -q: one measurement of SECONDS, printed as "fast RATIO" or
 *       "slow RATIO" (for bench/run.sh)
 * Exit status 2 on bad options or fewer than two usable CPUs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "threads/probe_cross.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int usage(const char *why)
{
    if (why)
        fprintf(stderr, "hoststate: %s\n", why);
    fprintf(stderr, "usage: hoststate [-t SECONDS] [-i INTERVAL] [-s BYTES] [-q]\n");
    return 2;
}

static int positive(const char *arg, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(arg, &end);
    return errno == 0 && end != arg && *end == '\0' && *v > 0;
}

int main(int argc, char **argv)
{
    double total = 10, interval = 1, bytes = (double)PROBE_BLOCK;
    int quick = 0, c;
    while ((c = getopt(argc, argv, "t:i:s:q")) != -1) {
        switch (c) {
        case 't':
            if (!positive(optarg, &total))
                return usage("-t wants a positive number of seconds");
            break;
        case 'i':
            if (!positive(optarg, &interval))
                return usage("-i wants a positive number of seconds");
            break;
        case 's':
            if (!positive(optarg, &bytes) || bytes < 4096 || bytes > (1 << 30))
                return usage("-s wants bytes from 4096 to 1073741824");
            break;
        case 'q': quick = 1; break;
        default: return usage(NULL);
        }
    }
    if (optind < argc)
        return usage("no operands are taken");
    size_t block = (size_t)bytes / 64 * 64;
    if (!quick)
        printf("# hoststate: two threads on the first two CPUs, %zu-byte "
               "blocks; ratio = time per iteration pulling freshly written "
               "data / pulling data written once; slow above %.0f\n"
               "# %6s %10s %10s %7s  %s\n", block, PROBE_MOVED, "t(s)",
               "dirty(us)", "clean(us)", "ratio", "state");
    double start = now_s();
    int lines = 0, slow = 0;
    do {
        ProbeResult r;
        CvError e = probe_cross(block, quick ? total : interval, &r);
        if (e == CV_ERR_UNAVAILABLE) {
            fprintf(stderr, "hoststate: needs two CPUs to pin its threads "
                            "on, and this process may use fewer\n");
            return 2;
        }
        if (e) {
            fprintf(stderr, "hoststate: cannot measure: %s\n", cv_strerror(e));
            return 2;
        }
        const char *state = r.ratio > PROBE_MOVED ? "slow" : "fast";
        slow += r.ratio > PROBE_MOVED;
        lines++;
        if (quick)
            printf("%s %.2f\n", state, r.ratio);
        else
            printf("  %6.1f %10.1f %10.1f %7.2f  %s\n", now_s() - start,
                   r.dirty_s * 1e6, r.clean_s * 1e6, r.ratio, state);
        fflush(stdout);
    } while (!quick && now_s() - start < total);
    if (!quick)
        printf("# %d of %d intervals slow\n", slow, lines);
    return 0;
}
