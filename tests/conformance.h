/* conformance.h - the backends' one conformance suite, run by the tests of
 * each backend (test_exec_threads, test_exec_cuda, tests/mpi/sweep.c under
 * mpirun) on its own executors: a schedule loaded on an executor is
 * checked on the ranks' real buffers, against the symbolic executor
 * (core/sim.h) after every step and against the collective's definition
 * (exec/verify.h) at the end of a stepped pass, a timed run and the
 * library's own collective; and the sweep that runs it over every
 * registered algorithm, both places, counts the ranks do not divide,
 * datatypes and ops. Each backend's test chooses what to sweep (a plan)
 * and how to report; the checks are the same for all. No cmocka here:
 * the mpi sweep runs in processes of its own and reports a tally. */
#ifndef COLLVIZ_TEST_CONFORMANCE_H
#define COLLVIZ_TEST_CONFORMANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "algos/algo.h"
#include "exec/exec.h"

/* What to check of one schedule (bits). */
enum {
    CONF_STEPS = 1,       /* stepped after a reset, the state compared with
                             the sim after the reset, every step and the
                             finish, then the output */
    CONF_STEPPED = 2,     /* stepped after a reset, only the output checked
                             (where the sim's copy of every buffer costs too
                             much) */
    CONF_RUNS = 4,        /* one timed run after a reset, the output */
    CONF_REPEAT = 8,      /* with CONF_RUNS, where the output state is an
                             input state again: two more runs (one warmup,
                             three timed), the output */
    CONF_STEP_TIMES = 16, /* with CONF_RUNS: runs time the steps too */
    CONF_NATIVE = 32,     /* the library's own collective after a reset
                             (ExecOps.native), the output */
};

/* What a suite found. */
typedef struct {
    long cases;     /* schedules checked */
    long refused;   /* calls the algorithm's generator refused */
    long wrong;     /* wrong elements over every check */
    long failed;    /* calls of the executor that failed */
    char first[600]; /* the first refusal, failure or wrong element: one
                        line naming the call and the check */
} ConfTally;

typedef struct ConfPlan ConfPlan;
/* Which sweep of the registry: the plan's callbacks decide per call. */
struct ConfPlan {
    bool full;                 /* the algorithms made for any machine */
    const Machine *machines;   /* also those made for some (AlgoInfo.fits)
                                  on these machines of the executor's ranks
                                  where they fit */
    int nmachines;
    int ncounts;               /* counts per call (n = 0 .. ncounts - 1) */
    bool root_last;            /* rooted collectives at root p - 1, else
                                  p / 2 */
    /* The n-th count of call c (its kind, ranks and datatype set). */
    size_t (*count)(const ConfPlan *pl, const CollCall *c, int n);
    /* The checks for call c (everything set) at its n-th count, after
       `cases` schedules of the sweep (for rotating choices); 0: skip it.
       NULL: pl->checks for every call. */
    unsigned (*take)(const ConfPlan *pl, const CollCall *c, int n,
                     long cases);
    unsigned checks;
    /* Each refusal, failure and wrong check, one line (NULL: none). */
    void (*report)(const ConfPlan *pl, const char *line);
    bool stop_first;           /* stop the sweep at the first of them */
    const void *arg;           /* the caller's */
};

/* The counts p + 1 (which p > 1 does not divide) and 2p - 1: a ConfPlan's
 * count for its ncounts = 2. */
size_t conf_count_odd(const ConfPlan *pl, const CollCall *c, int n);

/* The counts 0, 1, 7 and 97 (nccl-tests' sendrecv and hypercube sizes):
 * a ConfPlan's count for its ncounts = 4. */
size_t conf_count_small(const ConfPlan *pl, const CollCall *c, int n);

/* Load schedule s on ex and check it (checks: CONF_* bits), into t. */
void conf_check(Executor *ex, const Schedule *s, unsigned checks,
                const ConfPlan *pl, ConfTally *t);
/* Generate algorithm a's schedule for call c on machine m (NULL: full),
 * load it on ex and check it. */
void conf_call(Executor *ex, const AlgoInfo *a, const CollCall *c,
               const Machine *m, unsigned checks, const ConfPlan *pl,
               ConfTally *t);
/* The plan's sweep on ex, at ex's ranks, into t (which may hold an
 * earlier sweep's: cases goes on counting). */
void conf_sweep(Executor *ex, const ConfPlan *pl, ConfTally *t);

#endif
