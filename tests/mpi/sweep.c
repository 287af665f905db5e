/* sweep.c - the mpi backend's correctness sweep, run by test_exec_mpi.c
 * under mpirun (one launch per rank count): every collective x algorithm
 * x datatype x op, out of place and in place, at counts the rank count
 * does not divide (the calls each collective defines: no in-place
 * sendrecv, hypercube on a power of two ranks), checked three ways on the
 * real processes' buffers: stepped (against the symbolic state after
 * every step, for one datatype and op, as the TUI checks; and against
 * the collective's definition at the end), one timed iteration
 * (ExecOps.run), and MPI's own collective (ExecOps.native).
 * usage: mpirun -np P mpi_sweep P [quick | big]
 * quick (across hosts with more ranks than cores, where a rank waits for
 * a core at every message): int32 and half, sum and max, count 7 only.
 * big: the reducing collectives only, at counts whose reduces' operands
 * travel in pieces (1 MiB and more, not a whole number of pieces), 1-,
 * 2-, 4- and 8-byte types, sums (and int32's max): the pieces reduced as
 * they arrive, stepped and in a timed run (where copy-ins are fused);
 * half of these cases (each pair at both counts and in both places), all
 * of them with COLLVIZ_NIGHTLY=1 (make test-nightly) outside
 * AddressSanitizer.
 * Prints one summary line; exit 1 when anything was wrong or failed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "core/sim.h"
#include "exec/exec.h"
#include "exec/verify.h"
#include "mpi/launch.h"

#include "../call_fixture.h"
#include "../sanitizer.h"

/* What the sweep found. */
typedef struct {
    long cases;   /* schedules run */
    long skipped; /* (algorithm, call) pairs the algorithm does not take */
    long wrong;   /* wrong elements over every check */
    long failed;  /* executor errors */
} Tally;

/* Step through s, comparing with the Sim after every step when sim_each. */
static long stepped(Executor *ex, const Schedule *s, bool sim_each)
{
    Sim sim;
    VerifyReport rep;
    long wrong = 0;
    if (sim_each && sim_init(&sim, s))
        return 1;
    for (size_t k = 0; k < s->nsteps; k++) {
        if (ex->ops->step(ex, k))
            return -1;
        if (sim_each && !sim_step(&sim) &&
            verify_state(ex, &sim, false, &rep) == CV_ERR_WRONG)
            wrong += (long)rep.wrong;
    }
    if (sim_each)
        sim_fini(&sim);
    if (ex->ops->finish(ex))
        return -1;
    CvError e = verify_output(ex, true, &rep);
    return e == CV_ERR_WRONG ? wrong + (long)rep.wrong : e ? -1 : wrong;
}

/* After a reset: one timed iteration (native: MPI's own), then the check. */
static long timed(Executor *ex, bool native)
{
    ExecTiming t = {0};
    VerifyReport rep;
    char why[200];
    CvError e = ex->ops->reset(ex);
    if (!e)
        e = native ? ex->ops->native(ex, 0, 1, &t, why, sizeof why)
                   : ex->ops->run(ex, 0, 1, &t);
    if (!e)
        e = verify_output(ex, true, &rep);
    return e == CV_ERR_WRONG ? (long)rep.wrong : e ? -1 : 0;
}

static void add(Tally *t, long r, const Schedule *s, const char *what)
{
    if (r == 0)
        return;
    if (r < 0)
        t->failed++;
    else
        t->wrong += r;
    if (t->wrong + t->failed < 10 || getenv("SWEEP_ALL"))
        fprintf(stderr, "mpi_sweep: %s %s %s %s count %zu %s: %s\n",
                coll_name(s->call.kind), s->algo, dtype_name(s->call.dtype),
                redop_name(s->call.op), s->call.count,
                s->call.in_place ? "in place" : "out of place",
                r < 0 ? "failed" : what);
}

static void one(Executor *ex, const AlgoInfo *a, const CollCall *c,
                const Machine *m, Tally *t)
{
    Schedule s;
    if (algo_generate_on(a, c, m, &s, NULL, 0)) {
        t->skipped++;
        return;
    }
    t->cases++;
    bool sim_each = c->dtype == DT_INT32 && c->op == OP_SUM && c->count < 1000;
    if (ex->ops->load(ex, &s)) {
        add(t, -1, &s, "load");
        fprintf(stderr, "mpi_sweep: %s\n", ex->ops->last_error(ex));
    } else {
        add(t, stepped(ex, &s, sim_each), &s, "wrong when stepped");
        add(t, timed(ex, false), &s, "wrong after a timed run");
        add(t, timed(ex, true), &s, "wrong after MPI's own collective");
    }
    sched_fini(&s);
}

/* Whether the quick sweep takes datatype d, op o and count n. */
static bool in_quick(int d, int o, size_t n)
{
    return (d == DT_INT32 || d == DT_HALF) && (o == OP_SUM || o == OP_MAX) &&
           n == 7;
}

/* Whether the big sweep takes datatype d and op o at count n (0 or 1),
 * in place or not (ip). It takes half of each pair's four cases,
 * alternating (the same code paths: each pair at both counts and in both
 * places); all four with COLLVIZ_NIGHTLY=1, except under AddressSanitizer
 * (whose inputs and expected values cost several times the plain
 * build's). */
static bool in_big(int d, int o, size_t n, int ip)
{
    const char *nightly = getenv("COLLVIZ_NIGHTLY");
    bool all = nightly && !strcmp(nightly, "1");
#ifdef UNDER_ASAN
    all = false;
#endif
    if (!all && ((size_t)d + (size_t)o + n + (size_t)ip) % 2)
        return false;
    return ((d == DT_INT8 || d == DT_HALF || d == DT_DOUBLE) && o == OP_SUM) ||
           (d == DT_INT32 && (o == OP_SUM || o == OP_MAX));
}

/* The sweep's counts: 1 and 7, or for big, blocks of about 5 MiB and
 * 2 MiB (algorithms that cut a block into p parts send some parts in
 * pieces and some whole), odd so that no operand is a whole number of
 * pieces. */
static size_t sweep_count(bool big, int d, size_t n)
{
    static const size_t counts[] = {1, 7};
    if (!big)
        return counts[n];
    size_t bytes = n ? (size_t)2 << 20 : (size_t)5 << 20;
    return (bytes + 4099) / dtype_size((DataType)d) | 1;
}

static int sweep(int argc, char **argv)
{
    int p = argc > 1 ? atoi(argv[1]) : 0;
    bool quick = argc > 2 && !strcmp(argv[2], "quick");
    bool big = argc > 2 && !strcmp(argv[2], "big");
    char why[300] = "";
    const ExecOps *ops = exec_find("mpi", why, sizeof why);
    Executor *ex = NULL;
    if (!ops || ops->open(&ex, p, NULL, why, sizeof why)) {
        fprintf(stderr, "mpi_sweep: %s\n", why);
        return 2;
    }
    Tally t = {0};
    /* the machines of p ranks the algorithms made for some are run on:
       the most nearly square torus, mesh and nodes (from 4 ranks) */
    Machine ms[3];
    int sq[2], nm = 0;
    machine_square(p, 2, sq);
    if (sq[1] > 1 &&
        !machine_grid(&ms[nm], MACHINE_TORUS, 2, sq, false, 1, 1, 1))
        nm++;
    if (sq[1] > 1 &&
        !machine_grid(&ms[nm], MACHINE_MESH, 2, sq, false, 1, 1, 1))
        nm++;
    if (sq[1] > 1 && !machine_nodes(&ms[nm], sq[1], sq[0], false, 1))
        nm++;
    for (size_t i = 0; i < algo_count(); i++)
        for (int mi = -1; mi < nm; mi++) {
            const AlgoInfo *a = algo_at(i);
            const Machine *m = mi < 0 ? NULL : &ms[mi];
            CollCall any = {.kind = a->coll, .nranks = p};
            if (!!a->fits != (m != NULL) || !algo_fits(a, &any, m, NULL, 0))
                continue; /* each on full, or on the machines it is made for */
            int nops = coll_is_reducing(a->coll) ? OP_COUNT : 1;
            if (big && !coll_is_reducing(a->coll))
                continue;
            for (int d = 0; d < DT_COUNT; d++)
                for (int o = 0; o < nops; o++)
                    for (size_t n = 0; n < 2; n++)
                        for (int ip = 0; ip < 2; ip++) {
                            size_t count = sweep_count(big, d, n);
                            if ((quick && !in_quick(d, o, count)) ||
                                (big && !in_big(d, o, n, ip)))
                                continue;
                            CollCall c = {.kind = a->coll, .nranks = p,
                                          .count = count, .dtype = (DataType)d,
                                          .op = (RedOp)o, .root = p - 1,
                                          .in_place = ip};
                            if (call_defined(c.kind, p, ip))
                                one(ex, a, &c, m, &t);
                        }
        }
    ex->ops->close(ex);
    printf("mpi sweep p=%d: %ld cases, %ld skipped, %ld wrong, %ld failed\n",
           p, t.cases, t.skipped, t.wrong, t.failed);
    return t.wrong || t.failed || !t.cases;
}

int main(int argc, char **argv)
{
    return mpi_launch(argc, argv, sweep);
}
