/* osu_ref.c - MPI's own collective timed as the OSU micro-benchmarks time
 * it: the reference that bench/mpi_osu.sh sets collviz-mpi's `mpi` row
 * against.
 *
 * Every rank fills its buffers (floats holding small integers, so that
 * every sum is exact), runs WARMUP calls, meets the others at one
 * barrier, and then times ITERS calls back to back with MPI_Wtime: no
 * barrier, check or copy between them. A rank's time is its loop's
 * elapsed time over ITERS; the line printed is the slowest rank's (OSU's
 * "Max Latency", the same convention as collviz's rows). After the timed
 * loop every rank checks its output once against the collective's
 * definition, and a wrong element makes the exit status 1.
 *
 * Sizes are nccl-tests': BYTES is the whole buffer of a collective of p
 * blocks (allgather, gather, scatter, reducescatter, alltoall), each
 * rank's block BYTES / p; a broadcast, reduce or allreduce moves BYTES.
 * Out of place throughout (a broadcast has one buffer), float and sum,
 * root 0, as `collviz-mpi perf COLL -B mpi -a mpi -b BYTES -e BYTES`.
 *
 * usage: mpirun -np P osu_ref COLL BYTES [ITERS [WARMUP]]
 *   COLL: broadcast reduce scatter gather allgather reducescatter
 *   allreduce alltoall; ITERS default 20, WARMUP 5. Prints one line:
 *     osu_ref allreduce 1048576 B 2 ranks 20 iters: 123.45 us
 *   Exit status 2 on bad arguments, 1 on a wrong result. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The collectives, as collviz names them. */
typedef enum {
    K_BROADCAST,
    K_REDUCE,
    K_SCATTER,
    K_GATHER,
    K_ALLGATHER,
    K_REDUCESCATTER,
    K_ALLREDUCE,
    K_ALLTOALL,
    K_COUNT
} Kind;

static const char *const names[K_COUNT] = {
    [K_BROADCAST] = "broadcast",         [K_REDUCE] = "reduce",
    [K_SCATTER] = "scatter",             [K_GATHER] = "gather",
    [K_ALLGATHER] = "allgather",         [K_REDUCESCATTER] = "reducescatter",
    [K_ALLREDUCE] = "allreduce",         [K_ALLTOALL] = "alltoall",
};

/* One run's shape on this rank. */
typedef struct {
    Kind k;         /* the collective */
    int me, p;      /* this rank, the ranks */
    int n;          /* elements per block (per call for the unblocked) */
    float *in, *out; /* the input, the output */
} Run;

/* Whether kind k's size counts p blocks (nccl-tests' S). */
static int blocked(Kind k)
{
    return k == K_SCATTER || k == K_GATHER || k == K_ALLGATHER ||
           k == K_REDUCESCATTER || k == K_ALLTOALL;
}

/* Rank r's input element i: a small integer, so sums are exact. */
static float value(int r, long i)
{
    return (float)((r * 131 + i) % 61);
}

/* Elements of the input and the output, as the call reads and writes. */
static void sizes(const Run *r, long *in, long *out)
{
    long n = r->n, p = r->p;
    switch (r->k) {
    case K_BROADCAST: *in = n, *out = n; return;
    case K_REDUCE: *in = n, *out = n; return;
    case K_ALLREDUCE: *in = n, *out = n; return;
    case K_SCATTER: *in = n * p, *out = n; return;
    case K_REDUCESCATTER: *in = n * p, *out = n; return;
    case K_GATHER: *in = n, *out = n * p; return;
    case K_ALLGATHER: *in = n, *out = n * p; return;
    case K_ALLTOALL: *in = n * p, *out = n * p; return;
    case K_COUNT: break;
    }
    *in = *out = 0;
}

/* One call of the collective: the only thing the timed loop does. */
static int one_call(const Run *r)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int n = r->n;
    switch (r->k) {
    case K_BROADCAST: return MPI_Bcast(r->out, n, MPI_FLOAT, 0, w);
    case K_REDUCE:
        return MPI_Reduce(r->in, r->out, n, MPI_FLOAT, MPI_SUM, 0, w);
    case K_SCATTER:
        return MPI_Scatter(r->in, n, MPI_FLOAT, r->out, n, MPI_FLOAT, 0, w);
    case K_GATHER:
        return MPI_Gather(r->in, n, MPI_FLOAT, r->out, n, MPI_FLOAT, 0, w);
    case K_ALLGATHER:
        return MPI_Allgather(r->in, n, MPI_FLOAT, r->out, n, MPI_FLOAT, w);
    case K_REDUCESCATTER:
        return MPI_Reduce_scatter_block(r->in, r->out, n, MPI_FLOAT, MPI_SUM,
                                        w);
    case K_ALLREDUCE:
        return MPI_Allreduce(r->in, r->out, n, MPI_FLOAT, MPI_SUM, w);
    case K_ALLTOALL:
        return MPI_Alltoall(r->in, n, MPI_FLOAT, r->out, n, MPI_FLOAT, w);
    case K_COUNT: break;
    }
    return MPI_ERR_OTHER;
}

/* The sum over ranks of input element i. */
static float sum_of(const Run *r, long i)
{
    float s = 0;
    for (int q = 0; q < r->p; q++)
        s += value(q, i);
    return s;
}

/* What output element i of this rank must hold, or -1 where the call
 * leaves it undefined (a reduce's or gather's non-root output). */
static float expected(const Run *r, long i)
{
    long n = r->n;
    int root = r->me == 0;
    switch (r->k) {
    case K_BROADCAST: return value(0, i);
    case K_REDUCE: return root ? sum_of(r, i) : -1;
    case K_ALLREDUCE: return sum_of(r, i);
    case K_SCATTER: return value(0, r->me * n + i);
    case K_REDUCESCATTER: return sum_of(r, r->me * n + i);
    case K_GATHER: return root ? value((int)(i / n), i % n) : -1;
    case K_ALLGATHER: return value((int)(i / n), i % n);
    case K_ALLTOALL: return value((int)(i / n), r->me * n + i % n);
    case K_COUNT: break;
    }
    return -1;
}

/* This rank's wrong output elements. */
static long wrong(const Run *r)
{
    long in, out, bad = 0;
    sizes(r, &in, &out);
    for (long i = 0; i < out; i++) {
        float want = expected(r, i);
        bad += want >= 0 && r->out[i] != want;
    }
    return bad;
}

/* n floats at the start of a page, as OSU's allocate_memory places
 * them; NULL when out of memory. */
static float *page_floats(long n)
{
    void *p = NULL;
    return posix_memalign(&p, 4096, (size_t)(n ? n : 1) * sizeof(float))
               ? NULL : p;
}

/* Allocate and fill r's buffers (the root's broadcast output is its
 * input); 0 when out of memory. */
static int fill(Run *r)
{
    long in, out;
    sizes(r, &in, &out);
    r->in = page_floats(in);
    r->out = page_floats(out);
    if (!r->in || !r->out)
        return 0;
    for (long i = 0; i < in; i++)
        r->in[i] = value(r->me, i);
    for (long i = 0; i < out; i++)
        r->out[i] = r->k == K_BROADCAST && r->me == 0 ? r->in[i] : -2;
    return 1;
}

/* The arguments into r, *iters and *warmup; 0 when they are wrong. */
static int parse(int argc, char **argv, Run *r, int *iters, int *warmup)
{
    if (argc < 3 || argc > 5)
        return 0;
    r->k = K_COUNT;
    for (int k = 0; k < K_COUNT; k++)
        if (!strcmp(argv[1], names[k]))
            r->k = (Kind)k;
    long long bytes = atoll(argv[2]);
    *iters = argc > 3 ? atoi(argv[3]) : 20;
    *warmup = argc > 4 ? atoi(argv[4]) : 5;
    long long per = bytes / (long long)sizeof(float) /
                    (r->k != K_COUNT && blocked(r->k) ? r->p : 1);
    r->n = (int)per;
    return r->k != K_COUNT && bytes > 0 && per > 0 && per <= 0x7fffffff &&
           *iters > 0 && *warmup >= 0;
}

/* Warmup, one barrier, ITERS calls back to back: this rank's mean per
 * call (s), or a negative value where a call failed. */
static double timed(const Run *r, int iters, int warmup)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < warmup && rc == MPI_SUCCESS; i++)
        rc = one_call(r);
    if (rc == MPI_SUCCESS)
        rc = MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = one_call(r);
    double t = (MPI_Wtime() - t0) / iters;
    return rc == MPI_SUCCESS ? t : -1;
}

int main(int argc, char **argv)
{
    Run r = {.k = K_COUNT};
    int iters = 0, warmup = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r.me);
    MPI_Comm_size(MPI_COMM_WORLD, &r.p);
    if (!parse(argc, argv, &r, &iters, &warmup)) {
        if (r.me == 0)
            fprintf(stderr, "usage: mpirun -np P osu_ref COLL BYTES [ITERS "
                    "[WARMUP]] (BYTES: at least one float per block)\n");
        MPI_Finalize();
        return 2;
    }
    if (!fill(&r))
        MPI_Abort(MPI_COMM_WORLD, 2);
    double mine = timed(&r, iters, warmup), worst = 0;
    long bad = mine < 0 ? 1 : wrong(&r), all = 0;
    MPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bad, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (r.me == 0)
        printf("osu_ref %s %s B %d ranks %d iters: %.2f us%s\n", names[r.k],
               argv[2], r.p, iters, worst * 1e6, all ? " WRONG" : "");
    free(r.in);
    free(r.out);
    MPI_Finalize();
    return all ? 1 : 0;
}
