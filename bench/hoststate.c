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
 * Two threads, pinned to the first two CPUs this process may use, repeat:
 * each copies a block of its own into its half of its output (so those
 * lines are freshly written, in its cache), both meet, each copies the
 * other's freshly written half into its own output ("dirty" pulls), both
 * meet. The same loop with the other's source block instead, written once
 * at the start ("clean" pulls), is the reference. ratio = dirty / clean per
 * iteration: about 1 in the fast state, about 11 in the slow one.
 *
 * usage: hoststate [-t SECONDS] [-i INTERVAL] [-s BYTES] [-q]
 *   -t: how long to watch (default 10)
 *   -i: seconds per line of the timeline (default 1)
 *   -s: bytes per block (default 1 MiB; three blocks per thread)
 *   -q: one measurement of SECONDS, printed as "fast RATIO" or
 *       "slow RATIO" (for bench/run.sh)
 * Exit status 2 on bad options or fewer than two usable CPUs. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exec.h" /* exec_cpus, exec_pin */

#define SLOW_RATIO 3.0 /* dirty / clean above this: the slow state */

typedef struct {
    unsigned char *src;    /* written once at the start */
    unsigned char *dst;    /* two blocks: its own half, the other's */
} Side;

static Side side[2];
static size_t block;
static _Atomic unsigned met[2];   /* barrier arrivals of each thread */
static _Atomic int cmd;           /* iterations to run; < 0: quit */
static _Atomic unsigned gen;      /* commands published */
static _Atomic unsigned finished; /* commands completed by thread 1 */
static int dirty;                 /* what the next command pulls */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pause_cpu(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Both threads arrive before either leaves. */
static void meet(int me, unsigned *n)
{
    atomic_store_explicit(&met[me], ++*n, memory_order_release);
    while (atomic_load_explicit(&met[1 - me], memory_order_acquire) < *n)
        pause_cpu();
}

static void iterations(int me, int iters, unsigned *n)
{
    Side *s = &side[me], *o = &side[1 - me];
    for (int i = 0; i < iters; i++) {
        memcpy(s->dst + (size_t)me * block, s->src, block);
        meet(me, n);
        const unsigned char *from = dirty ? o->dst + (size_t)(1 - me) * block
                                          : o->src;
        memcpy(s->dst + (size_t)(1 - me) * block, from, block);
        meet(me, n);
    }
}

/* Thread 1 runs each command the main thread (thread 0) publishes. */
static void *second(void *arg)
{
    unsigned n = 0, seen = 0;
    (void)arg;
    exec_pin(1); /* the second CPU this process may use */
    memset(side[1].src, 1, block);
    memset(side[1].dst, 2, 2 * block);
    for (;;) {
        while (atomic_load_explicit(&gen, memory_order_acquire) == seen)
            pause_cpu();
        seen++;
        int iters = atomic_load(&cmd);
        if (iters < 0)
            return NULL;
        iterations(1, iters, &n);
        atomic_store_explicit(&finished, seen, memory_order_release);
    }
}

static unsigned n0; /* thread 0's barrier count */

/* Seconds per iteration of `iters` iterations, dirty or clean pulls. */
static double run(int pull_dirty, int iters)
{
    dirty = pull_dirty;
    atomic_store(&cmd, iters);
    unsigned g = atomic_fetch_add_explicit(&gen, 1, memory_order_acq_rel) + 1;
    double t = now_s();
    iterations(0, iters, &n0);
    t = now_s() - t;
    while (atomic_load_explicit(&finished, memory_order_acquire) != g)
        pause_cpu();
    return t / iters;
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
    double total = 10, interval = 1, bytes = 1 << 20;
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
    if (exec_cpus() < 2) {
        fprintf(stderr, "hoststate: needs two CPUs, and this process may use "
                        "fewer\n");
        return 2;
    }
    block = (size_t)bytes / 64 * 64;
    for (int k = 0; k < 2; k++) {
        side[k].src = aligned_alloc(4096, (block + 4095) / 4096 * 4096);
        side[k].dst = aligned_alloc(4096, (2 * block + 4095) / 4096 * 4096);
        if (!side[k].src || !side[k].dst) {
            fprintf(stderr, "hoststate: out of memory for %zu-byte blocks\n", block);
            return 2;
        }
    }
    pthread_t t; /* created first: it inherits every CPU to pick from */
    if (pthread_create(&t, NULL, second, NULL)) {
        fprintf(stderr, "hoststate: cannot start a second thread\n");
        return 2;
    }
    exec_pin(0);
    memset(side[0].src, 1, block);
    memset(side[0].dst, 2, 2 * block);
    /* Size the measurements from a clean iteration: a tenth of each
     * interval (or of the quick measurement) pulls clean data, the rest
     * dirty data. */
    run(0, 4);
    double it = run(0, 16), span = quick ? total : interval;
    int nclean = (int)(span * 0.1 / it) + 1;
    int chunk = nclean / 10 + 1; /* dirty runs short, so a slow state ends them */
    if (!quick)
        printf("# hoststate: two threads on the first two CPUs, %zu-byte "
               "blocks; ratio = time per iteration pulling freshly written "
               "data / pulling data written once; slow above %.0f\n"
               "# %6s %10s %10s %7s  %s\n", block, SLOW_RATIO, "t(s)",
               "dirty(us)", "clean(us)", "ratio", "state");
    double start = now_s();
    int lines = 0, slow = 0;
    do {
        double clean = run(0, nclean), d = 0;
        int nd = 0;
        double until = now_s() + span * 0.9;
        while (now_s() < until) {
            d += run(1, chunk) * chunk;
            nd += chunk;
        }
        double dirty_s = nd ? d / nd : run(1, 1), r = dirty_s / clean;
        const char *state = r > SLOW_RATIO ? "slow" : "fast";
        slow += r > SLOW_RATIO;
        lines++;
        if (quick)
            printf("%s %.2f\n", state, r);
        else
            printf("  %6.1f %10.1f %10.1f %7.2f  %s\n", now_s() - start,
                   dirty_s * 1e6, clean * 1e6, r, state);
        fflush(stdout);
    } while (!quick && now_s() - start < total);
    if (!quick)
        printf("# %d of %d intervals slow\n", slow, lines);
    atomic_store(&cmd, -1);
    atomic_fetch_add(&gen, 1);
    pthread_join(t, NULL);
    for (int k = 0; k < 2; k++) {
        free(side[k].src);
        free(side[k].dst);
    }
    return 0;
}
