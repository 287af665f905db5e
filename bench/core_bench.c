/* core_bench.c - how long generating, validating and symbolically executing
 * a schedule takes at large rank counts (target: ring allreduce at
 * p = 1024 in under 1 s), and how that compares with a plain memset of the
 * same symbolic state, the floor for touching it once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algos/algo.h"
#include "core/sim.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Time one algorithm at p ranks and count elements; 0 on success. */
static int bench_one(CollKind k, const char *name, int p, size_t count)
{
    const AlgoInfo *a = algo_find(k, name);
    if (!a) {
        fprintf(stderr, "core_bench: no %s algorithm '%s'\n", coll_name(k), name);
        return 1;
    }
    CollCall c = {.kind = k, .nranks = p, .count = count, .dtype = DT_FLOAT,
                  .op = OP_SUM};
    Schedule s;
    Sim sim;
    SchedCheck chk;
    double t0 = now();
    CvError e = algo_generate(a, &c, &s);
    double t1 = now();
    if (!e)
        e = sched_validate(&s, &chk, NULL);
    double t2 = now();
    if (!e)
        e = sim_init(&sim, &s);
    double t3 = now();
    if (!e)
        e = sim_run(&sim);
    if (!e)
        e = sim_check(&sim, NULL, NULL, NULL);
    double t4 = now();
    if (e) {
        fprintf(stderr, "core_bench: %s/%s p=%d: %s\n", coll_name(k), name, p,
                cv_strerror(e));
        return 1;
    }
    size_t cells = sim.base[BUF_SEND][p] + sim.base[BUF_RECV][p] + sim.base[BUF_TMP][p];
    size_t state = cells * (sizeof(int32_t) + sim.words * sizeof(uint64_t));
    /* The reference: writing the same amount of state once, then reading a
     * byte of every page back so the writes cannot be optimised away. */
    volatile unsigned char sink = 0;
    unsigned char *floor = malloc(state);
    double t5 = now();
    if (floor) {
        memset(floor, 1, state);
        for (size_t i = 0; i < state; i += 4096)
            sink ^= floor[i];
    }
    double t6 = now();
    (void)sink;
    printf("%-13s %-18s %5d %8zu %8zu %9zu %8.3f %8.3f %8.3f %8.3f %8.3f %7.1f\n",
           coll_name(k), name, p, count, s.nsteps, s.nxfers, t1 - t0, t2 - t1,
           t3 - t2, t4 - t3, t4 - t0, floor ? (t4 - t0) / (t6 - t5) : 0.0);
    free(floor);
    sim_fini(&sim);
    sched_fini(&s);
    return 0;
}

int main(void)
{
    printf("# core_bench: generate, validate, symbolic execution (seconds)\n");
    printf("# target: ring allreduce at p = 1024 in under 1 s in total\n");
    printf("# ratio: total time / time to write the symbolic state once\n");
    printf("%-13s %-18s %5s %8s %8s %9s %8s %8s %8s %8s %8s %7s\n", "# collective",
           "algorithm", "p", "count", "steps", "xfers", "gen", "valid", "init",
           "run", "total", "ratio");
    int bad = 0;
    bad |= bench_one(COLL_ALLREDUCE, "ring", 1024, 1024);
    bad |= bench_one(COLL_ALLREDUCE, "halving-doubling", 1024, 1024);
    bad |= bench_one(COLL_ALLGATHER, "ring", 1024, 16);
    bad |= bench_one(COLL_ALLTOALL, "bruck", 1024, 4);
    bad |= bench_one(COLL_ALLREDUCE, "ring", 64, 4096);
    return bad;
}
