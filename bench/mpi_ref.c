/* mpi_ref.c - Open MPI's own collectives, measured the way `collviz perf`
 * measures its schedules, so bench/run.sh can print the two side by side.
 *
 * Build: mpicc -O2 -std=c11 -o mpi_ref bench/mpi_ref.c
 * Run:   mpirun -np P ./mpi_ref COLL [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS]
 *                              [-w WARMUP] [-T SECONDS] [-d TYPE] [-o OP]
 *                              [-r ROOT]
 *
 * Sizes mean what they mean in collviz and nccl-tests: the bytes of the
 * largest buffer (p blocks for allgather, gather, scatter, reducescatter,
 * alltoall), so count = size / typesize / blocks. Timing as nccl-tests:
 * before the sweep, WARMUP calls at the largest size and at the smallest;
 * per size, WARMUP untimed calls, a barrier, then ITERS calls timed as a
 * whole; each rank's mean per call is averaged over the ranks. With -T
 * (collviz perf --min-time), one timed call after the warmup sizes the
 * run: more calls where ITERS would take less than SECONDS (the slowest
 * rank's call decides, so that all ranks agree). After
 * timing, one more call on freshly filled buffers is checked element by
 * element. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------ options */

typedef enum { BCAST, REDUCE, SCATTER, GATHER, ALLGATHER, REDSCAT, ALLRED,
               ALLTOALL, NCOLL } Coll;

static const char *const coll_names[NCOLL] = {
    "broadcast", "reduce", "scatter", "gather", "allgather", "reducescatter",
    "allreduce", "alltoall",
};

typedef struct {
    Coll coll;            /* which collective */
    unsigned long long b; /* smallest size, bytes */
    unsigned long long e; /* largest size, bytes */
    unsigned long long f; /* multiplicative step (0: additive) */
    unsigned long long i; /* additive step, bytes */
    int iters;            /* timed calls per size */
    int warmup;           /* untimed calls per size */
    double min_time;      /* > 0: timed runs of at least this many s */
    int dtype;            /* index into types[] */
    int op;               /* index into ops[] */
    int root;             /* root of rooted collectives */
} Opts;

typedef struct {
    const char *name;  /* collviz's name for it */
    MPI_Datatype mpi;  /* the MPI datatype */
    size_t size;       /* bytes per element */
} TypeInfo;

static TypeInfo types[] = {
    {"float", 0, 4}, {"double", 0, 8}, {"int32", 0, 4}, {"int64", 0, 8},
};
#define NTYPES (int)(sizeof types / sizeof types[0])

static const char *const op_names[] = {"sum", "max", "min"};
#define NOPS (int)(sizeof op_names / sizeof op_names[0])

static int find(const char *s, const char *const *names, int n)
{
    for (int k = 0; k < n; k++)
        if (!strcasecmp(s, names[k]))
            return k;
    return -1;
}

/* "64M", "8", "1K": bytes; 0 on junk. */
static unsigned long long parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    return *end || end == s ? 0 : v;
}

static int parse_flag(Opts *o, char f, const char *v)
{
    const char *tn[NTYPES];
    for (int k = 0; k < NTYPES; k++)
        tn[k] = types[k].name;
    switch (f) {
    case 'b': o->b = parse_size(v); return o->b ? 0 : -1;
    case 'e': o->e = parse_size(v); return o->e ? 0 : -1;
    case 'f': o->f = strtoull(v, NULL, 10); return o->f > 1 ? 0 : -1;
    case 'i': o->i = parse_size(v), o->f = 0; return o->i ? 0 : -1;
    case 'n': o->iters = atoi(v); return o->iters > 0 ? 0 : -1;
    case 'w': o->warmup = atoi(v); return o->warmup >= 0 ? 0 : -1;
    case 'T': o->min_time = atof(v); return o->min_time >= 0 && o->min_time <= 60 ? 0 : -1;
    case 'd': o->dtype = find(v, tn, NTYPES); return o->dtype;
    case 'o': o->op = find(v, op_names, NOPS); return o->op;
    case 'r': o->root = atoi(v); return o->root >= 0 ? 0 : -1;
    default: return -1;
    }
}

static int parse_opts(Opts *o, int argc, char **argv)
{
    *o = (Opts){.b = 8, .e = 64ull << 20, .f = 2, .iters = 20, .warmup = 5};
    if (argc < 2 || (int)(o->coll = (Coll)find(argv[1], coll_names, NCOLL)) < 0)
        return -1;
    for (int a = 2; a < argc; a += 2) {
        if (argv[a][0] != '-' || !argv[a][1] || argv[a][2] || a + 1 >= argc)
            return -1;
        if (parse_flag(o, argv[a][1], argv[a + 1]) < 0)
            return -1;
    }
    return o->b <= o->e ? 0 : -1;
}

/* ------------------------------------------------------------ buffers */

typedef struct {
    int rank;      /* this process */
    int p;         /* processes */
    size_t count;  /* elements per block */
    size_t ts;     /* bytes per element */
    void *send;    /* send buffer */
    void *recv;    /* receive buffer */
    size_t scount; /* elements in send */
    size_t rcount; /* elements in recv */
} Bufs;

/* Whether the collective's send (s) or receive (!s) side holds p blocks. */
static int wide(Coll c, int s)
{
    switch (c) {
    case SCATTER: case REDSCAT: return s;
    case GATHER: case ALLGATHER: return !s;
    case ALLTOALL: return 1;
    default: return 0;
    }
}

/* Blocks of `count` elements in the size column: p, or 1. */
static size_t blocks_of(Coll c, int p)
{
    return c == BCAST || c == REDUCE || c == ALLRED ? 1 : (size_t)p;
}

/* Input element j of rank r: small integers, so every sum is exact. */
static double input_value(int r, size_t j) { return (double)((r * 7 + j) % 13); }

static void set_elem(void *buf, int t, size_t j, double v)
{
    switch (t) {
    case 0: ((float *)buf)[j] = (float)v; break;
    case 1: ((double *)buf)[j] = v; break;
    case 2: ((int32_t *)buf)[j] = (int32_t)v; break;
    default: ((int64_t *)buf)[j] = (int64_t)v; break;
    }
}

static double get_elem(const void *buf, int t, size_t j)
{
    switch (t) {
    case 0: return ((const float *)buf)[j];
    case 1: return ((const double *)buf)[j];
    case 2: return ((const int32_t *)buf)[j];
    default: return (double)((const int64_t *)buf)[j];
    }
}

static void fill(Bufs *b, const Opts *o)
{
    for (size_t j = 0; j < b->scount; j++)
        set_elem(b->send, o->dtype, j, input_value(b->rank, j));
    for (size_t j = 0; j < b->rcount; j++)
        set_elem(b->recv, o->dtype, j, -1);
    if (o->coll == BCAST)
        for (size_t j = 0; j < b->rcount; j++)
            set_elem(b->recv, o->dtype, j,
                     b->rank == o->root ? input_value(o->root, j) : -1);
}

static int bufs_init(Bufs *b, unsigned long long max_bytes)
{
    size_t n = max_bytes / b->ts + 1;
    b->send = b->recv = NULL;
    if (posix_memalign(&b->send, 64, n * b->ts) ||
        posix_memalign(&b->recv, 64, n * b->ts))
        return -1;
    memset(b->send, 0, n * b->ts); /* first touch */
    memset(b->recv, 0, n * b->ts);
    return 0;
}

/* ---------------------------------------------------------- the calls */

static MPI_Op mpi_op(int op)
{
    return op == 0 ? MPI_SUM : op == 1 ? MPI_MAX : MPI_MIN;
}

static int call(const Bufs *b, const Opts *o)
{
    int n = (int)b->count;
    MPI_Datatype t = types[o->dtype].mpi;
    MPI_Comm w = MPI_COMM_WORLD;
    void *s = b->send, *r = b->recv;
    switch (o->coll) {
    case BCAST: return MPI_Bcast(r, n, t, o->root, w);
    case REDUCE: return MPI_Reduce(s, r, n, t, mpi_op(o->op), o->root, w);
    case SCATTER: return MPI_Scatter(s, n, t, r, n, t, o->root, w);
    case GATHER: return MPI_Gather(s, n, t, r, n, t, o->root, w);
    case ALLGATHER: return MPI_Allgather(s, n, t, r, n, t, w);
    case REDSCAT: return MPI_Reduce_scatter_block(s, r, n, t, mpi_op(o->op), w);
    case ALLRED: return MPI_Allreduce(s, r, n, t, mpi_op(o->op), w);
    default: return MPI_Alltoall(s, n, t, r, n, t, w);
    }
}

/* ---------------------------------------------------------- the check */

/* The reduction of every rank's input element j. */
static double reduced(int p, size_t j, int op)
{
    double v = input_value(0, j);
    for (int q = 1; q < p; q++) {
        double x = input_value(q, j);
        v = op == 0 ? v + x : op == 1 ? (x > v ? x : v) : (x < v ? x : v);
    }
    return v;
}

/* What element j of this rank's result must hold; NAN-free: -2 when the
 * rank has no result there. */
static double expected(const Bufs *b, const Opts *o, size_t j)
{
    size_t n = b->count;
    int root = b->rank == o->root;
    switch (o->coll) {
    case BCAST: return input_value(o->root, j);
    case REDUCE: return root ? reduced(b->p, j, o->op) : -2;
    case SCATTER: return input_value(o->root, (size_t)b->rank * n + j);
    case GATHER:
        return root ? input_value((int)(j / n), j % n) : -2;
    case ALLGATHER: return input_value((int)(j / n), j % n);
    case REDSCAT: return reduced(b->p, (size_t)b->rank * n + j, o->op);
    case ALLRED: return reduced(b->p, j, o->op);
    default: return input_value((int)(j / n), (size_t)b->rank * n + j % n);
    }
}

static long long count_wrong(const Bufs *b, const Opts *o)
{
    long long wrong = 0;
    for (size_t j = 0; j < b->rcount; j++) {
        double want = expected(b, o, j);
        if (want != -2 && get_elem(b->recv, o->dtype, j) != want)
            wrong++;
    }
    return wrong;
}

/* ----------------------------------------------------------- the loop */

static void size_bufs(Bufs *b, const Opts *o, unsigned long long bytes)
{
    size_t blocks = blocks_of(o->coll, b->p);
    b->count = bytes / b->ts / blocks;
    b->scount = b->count * (wide(o->coll, 1) ? (size_t)b->p : 1);
    b->rcount = b->count * (wide(o->coll, 0) ? (size_t)b->p : 1);
    if (o->coll == BCAST)
        b->scount = 0;
}

/* Mean seconds per call, averaged over ranks. */
static double time_calls(const Bufs *b, const Opts *o)
{
    int iters = o->iters;
    for (int k = 0; k < o->warmup; k++)
        call(b, o);
    if (o->min_time > 0) {
        double one, slowest = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        one = MPI_Wtime();
        call(b, o);
        one = MPI_Wtime() - one;
        MPI_Allreduce(&one, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        double want = slowest > 0 ? o->min_time / slowest + 1 : 1;
        iters = want > iters ? (want < 1e6 ? (int)want : 1000000) : iters;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int k = 0; k < iters; k++)
        call(b, o);
    double mine = (MPI_Wtime() - t0) / iters, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum / b->p;
}

/* Untimed calls at one size. */
static void warm_up(Bufs *b, const Opts *o, unsigned long long bytes)
{
    size_bufs(b, o, bytes);
    for (int k = 0; k < o->warmup; k++)
        call(b, o);
    MPI_Barrier(MPI_COMM_WORLD);
}

static double busbw_factor(Coll c, int p)
{
    if (c == ALLRED)
        return 2.0 * (p - 1) / p;
    return c == BCAST || c == REDUCE ? 1.0 : (double)(p - 1) / p;
}

static long long one_size(Bufs *b, const Opts *o, unsigned long long bytes)
{
    size_bufs(b, o, bytes);
    double t = time_calls(b, o);
    fill(b, o);
    MPI_Barrier(MPI_COMM_WORLD);
    call(b, o);
    long long mine = count_wrong(b, o), wrong = 0;
    MPI_Allreduce(&mine, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    size_t blocks = blocks_of(o->coll, b->p);
    double sz = (double)(b->count * b->ts * blocks);
    double algbw = t > 0 ? sz / t / 1e9 : 0;
    if (b->rank == 0)
        printf("%12.0f  %12zu  %8s  %6s  %6d  %9.2f  %7.3f  %7.3f  %6lld\n",
               sz, b->count, types[o->dtype].name, op_names[o->op],
               o->coll <= GATHER ? o->root : -1, t * 1e6, algbw,
               algbw * busbw_factor(o->coll, b->p), wrong);
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    types[0].mpi = MPI_FLOAT, types[1].mpi = MPI_DOUBLE;
    types[2].mpi = MPI_INT32_T, types[3].mpi = MPI_INT64_T;
    Opts o;
    Bufs b = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.p);
    if (parse_opts(&o, argc, argv) || o.root >= b.p) {
        if (b.rank == 0)
            fprintf(stderr, "usage: mpi_ref COLL [-b MIN] [-e MAX] [-f FACTOR | "
                            "-i STEP] [-n ITERS] [-w WARMUP] [-T SECONDS] [-d float|double|"
                            "int32|int64] [-o sum|max|min] [-r ROOT]\n");
        MPI_Finalize();
        return 2;
    }
    b.ts = types[o.dtype].size;
    if (bufs_init(&b, o.e)) {
        fprintf(stderr, "mpi_ref: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (b.rank == 0)
        printf("# mpi_ref %s, %d processes, Open MPI's own collective\n"
               "# %10s  %12s  %8s  %6s  %6s  %9s  %7s  %7s  %6s\n",
               coll_names[o.coll], b.p, "size(B)", "count", "type", "redop",
               "root", "time(us)", "algbw", "busbw", "#wrong");
    long long wrong = 0;
    unsigned long long last = o.b;
    while (o.f ? last * o.f <= o.e : last + o.i <= o.e)
        last = o.f ? last * o.f : last + o.i;
    warm_up(&b, &o, last); /* as nccl-tests: the largest size, then the */
    warm_up(&b, &o, o.b);  /* smallest, before the first timed row */
    for (unsigned long long s = o.b; s <= o.e; s = o.f ? s * o.f : s + o.i)
        wrong += one_size(&b, &o, s);
    free(b.send);
    free(b.recv);
    MPI_Finalize();
    return wrong ? 1 : 0;
}
