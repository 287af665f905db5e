/* copyrate.c - the machine's copy rate with p threads at once: the
 * reference that bench/choice.sh sets collviz's out-of-place collectives
 * against ("the bytes a schedule reads and writes at N% of the copy
 * rate").
 *
 * Each of p threads, on the k-th CPU this process may use (as the threads
 * backend pins rank k), copies a buffer of its own of SIZE bytes into
 * another of its own, both first written by that thread, with glibc's
 * memcpy and with streaming stores (src/threads/copy.h's copy_stream,
 * which writes whole lines without reading them first), in alternate
 * rounds: the machine's copy rate is the faster of the two. The
 * threads start together (a barrier) and a round takes as long as the
 * slowest. Every round reads and writes 2 p SIZE bytes; the rate is that
 * over the round's time. The best and the median of ROUNDS rounds of each
 * copy are printed, one line each, the faster copy's last:
 *     copyrate: memcpy, 2 threads x 67108864 B: best 30.3 GB/s, median 25.2 GB/s
 *     copyrate: stream, 2 threads x 67108864 B: best 61.2 GB/s, median 58.9 GB/s
 * (GB/s: 1e9 bytes read and written per second).
 *
 * usage: copyrate [-p THREADS] [-s BYTES] [-r ROUNDS]
 *   defaults: 2 threads, 64 MiB each, 10 rounds. Exit status 2 on bad
 *   options or a failed allocation. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/exec.h"
#include "exec/mono.h"
#include "threads/copy.h"

#define MAX_THREADS 64
#define MAX_ROUNDS 1000

typedef struct {
    int k;                 /* which CPU (the k-th usable) */
    size_t bytes;          /* its buffers' size */
    int rounds;            /* rounds to run */
    pthread_barrier_t *go; /* all threads start each round together */
    double *t;             /* [2 rounds] this thread's time of each round:
                              memcpy's, then copy_stream's */
    int ok;                /* its buffers were allocated */
} Worker;

static void *work(void *arg)
{
    Worker *w = arg;
    exec_pin(w->k);
    unsigned char *src = malloc(w->bytes), *dst = malloc(w->bytes);
    w->ok = src && dst;
    if (w->ok) { /* first touched here, by the thread that copies */
        memset(src, 1 + w->k, w->bytes);
        memset(dst, 0, w->bytes);
    }
    for (int r = 0; r < 2 * w->rounds; r++) { /* alternate rounds */
        pthread_barrier_wait(w->go);
        double t0 = mono_now_s();
        if (w->ok && r % 2)
            copy_stream(dst, src, w->bytes);
        else if (w->ok)
            memcpy(dst, src, w->bytes);
        w->t[r % 2 * w->rounds + r / 2] = mono_now_s() - t0;
        if (w->ok) /* keep the copy */
            src[(size_t)r % w->bytes] ^= dst[((size_t)r * 7) % w->bytes];
    }
    free(src);
    free(dst);
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int p = 2, rounds = 10, o;
    size_t bytes = (size_t)64 << 20;
    while ((o = getopt(argc, argv, "p:s:r:")) != -1) {
        if (o == '?') {
            fprintf(stderr, "usage: copyrate [-p THREADS] [-s BYTES] [-r ROUNDS]\n");
            return 2;
        }
        char *end;
        long long v = strtoll(optarg, &end, 10);
        if (*end || v < 1 || (o == 'p' && v > MAX_THREADS) ||
            (o == 'r' && v > MAX_ROUNDS) || (o == 's' && v > (1LL << 34))) {
            fprintf(stderr, "copyrate: -%c '%s' is out of range\n", o, optarg);
            return 2;
        }
        if (o == 'p')
            p = (int)v;
        else if (o == 'r')
            rounds = (int)v;
        else
            bytes = (size_t)v;
    }
    if (optind < argc) {
        fprintf(stderr, "usage: copyrate [-p THREADS] [-s BYTES] [-r ROUNDS]\n");
        return 2;
    }
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, (unsigned)p);
    Worker w[MAX_THREADS];
    pthread_t th[MAX_THREADS];
    double *t = calloc((size_t)p * 2 * (size_t)rounds, sizeof *t);
    double *rate = calloc((size_t)rounds, sizeof *rate);
    if (!t || !rate) {
        fprintf(stderr, "copyrate: out of memory\n");
        return 2;
    }
    for (int k = 0; k < p; k++) {
        w[k] = (Worker){.k = k, .bytes = bytes, .rounds = rounds, .go = &go,
                        .t = t + (size_t)k * 2 * (size_t)rounds};
        if (pthread_create(&th[k], NULL, work, &w[k])) {
            fprintf(stderr, "copyrate: cannot start thread %d\n", k);
            return 2;
        }
    }
    int ok = 1;
    for (int k = 0; k < p; k++) {
        pthread_join(th[k], NULL);
        ok &= w[k].ok;
    }
    if (!ok) {
        fprintf(stderr, "copyrate: cannot allocate 2 x %zu bytes per thread\n",
                bytes);
        return 2;
    }
    double best[2];
    for (int m = 0; m < 2; m++) {
        for (int r = 0; r < rounds; r++) {
            double slowest = 0;
            for (int k = 0; k < p; k++)
                slowest = w[k].t[m * rounds + r] > slowest
                              ? w[k].t[m * rounds + r] : slowest;
            rate[r] = slowest > 0 ? 2.0 * p * (double)bytes / slowest / 1e9 : 0;
        }
        qsort(rate, (size_t)rounds, sizeof *rate, cmp);
        best[m] = rate[rounds - 1];
        printf("copyrate: %s, %d threads x %zu B: best %.2f GB/s, median "
               "%.2f GB/s\n", m ? "stream" : "memcpy", p, bytes,
               rate[rounds - 1], rate[rounds / 2]);
    }
    printf("copyrate: the copy rate: %.2f GB/s (%s)\n",
           best[1] > best[0] ? best[1] : best[0],
           best[1] > best[0] ? "stream" : "memcpy");
    free(t);
    free(rate);
    pthread_barrier_destroy(&go);
    return 0;
}
