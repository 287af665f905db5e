/* sweep.c - the mpi backend's correctness sweep, run by test_exec_mpi.c
 * under mpirun (one launch per rank count): every collective x algorithm
 * x datatype x op, out of place and in place, at counts the rank count
 * does not divide (the calls each collective defines: no in-place
 * sendrecv, hypercube on a power of two ranks), checked by the backends'
 * conformance suite (../conformance.h) three ways on the real processes'
 * buffers: stepped (against the symbolic state after
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
#include "exec/exec.h"
#include "mpi/launch.h"

#include "../conformance.h"
#include "../sanitizer.h"

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

/* The sweep's counts: 1 and 7, or for big (at 3 ranks), blocks of about
 * 3.25 MiB, whose thirds still travel in pieces (1 MiB and more), and
 * 1.5 MiB, whose thirds go whole while the block goes in pieces; odd, so
 * that no operand is a whole number of pieces. */
static size_t sweep_count(bool big, int d, size_t n)
{
    static const size_t counts[] = {1, 7};
    if (!big)
        return counts[n];
    size_t bytes = n ? (size_t)3 << 19 : (size_t)13 << 18;
    return (bytes + 4099) / dtype_size((DataType)d) | 1;
}

/* The sweep's arguments: quick or big (neither: the whole sweep). */
typedef struct {
    bool quick, big;
} Mode;

static size_t count_of(const ConfPlan *pl, const CollCall *c, int n)
{
    const Mode *m = pl->arg;
    return sweep_count(m->big, c->dtype, (size_t)n);
}

/* The checks of call c at its n-th count: stepped (against the sim after
 * every step for int32 sums of fewer than 1000 elements, as the TUI
 * checks; else the output only), one timed run and MPI's own collective;
 * 0 where the mode leaves c out. */
static unsigned take(const ConfPlan *pl, const CollCall *c, int n, long cases)
{
    const Mode *m = pl->arg;
    (void)cases;
    if ((m->quick && !in_quick(c->dtype, c->op, c->count)) ||
        (m->big && (!coll_is_reducing(c->kind) ||
                    !in_big(c->dtype, c->op, (size_t)n, c->in_place))))
        return 0;
    bool sim_each = c->dtype == DT_INT32 && c->op == OP_SUM && c->count < 1000;
    return (sim_each ? CONF_STEPS : CONF_STEPPED) | CONF_RUNS | CONF_NATIVE;
}

/* The first 10 troubles (all with SWEEP_ALL set), one line each. */
static void report(const ConfPlan *pl, const char *line)
{
    static int said;
    (void)pl;
    if (said++ < 10 || getenv("SWEEP_ALL"))
        fprintf(stderr, "mpi_sweep: %s\n", line);
}

static int sweep(int argc, char **argv)
{
    int p = argc > 1 ? atoi(argv[1]) : 0;
    Mode mode = {.quick = argc > 2 && !strcmp(argv[2], "quick"),
                 .big = argc > 2 && !strcmp(argv[2], "big")};
    char why[300] = "";
    const ExecOps *ops = exec_find("mpi", why, sizeof why);
    Executor *ex = NULL;
    if (!ops || ops->open(&ex, p, NULL, why, sizeof why)) {
        fprintf(stderr, "mpi_sweep: %s\n", why);
        return 2;
    }
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
    ConfPlan pl = {.full = true, .machines = ms, .nmachines = nm,
                   .ncounts = 2, .root_last = true, .count = count_of,
                   .take = take, .report = report, .arg = &mode};
    ConfTally t = {0};
    conf_sweep(ex, &pl, &t);
    ex->ops->close(ex);
    printf("mpi sweep p=%d: %ld cases, %ld skipped, %ld wrong, %ld failed\n",
           p, t.cases, t.refused, t.wrong, t.failed);
    return t.wrong || t.failed || t.refused || !t.cases;
}

int main(int argc, char **argv)
{
    return mpi_launch(argc, argv, sweep, true);
}
