/* mpi_impl.h - the insides of the mpi backend, shared by its files and by
 * nothing else: the world of processes (world.c), one executor's state on
 * one process (rank.c, native.c) and the commands rank 0 sends the others
 * (exec_mpi.c sends them, world.c serves them).
 *
 * Every process holds the state of every open executor (MpiRank: its own
 * rank's buffers and its part of the loaded schedule). Rank 0 runs the
 * command; for each operation it broadcasts one MpiCmd on the control
 * communicator, every process (rank 0 too) does its part on the data
 * communicator, and where rank 0 needs an answer (an error, a time) the
 * processes reduce it to rank 0. */
#ifndef COLLVIZ_MPI_IMPL_H
#define COLLVIZ_MPI_IMPL_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/reduce.h"
#include "exec/exec.h"

/* What rank 0 asks of every process. */
typedef enum {
    MCMD_OPEN,   /* a new executor, id */
    MCMD_LOAD,   /* a schedule follows (rank.c: mpi_rank_load) */
    MCMD_RESET,  /* inputs filled, the rest poisoned */
    MCMD_STEP,   /* a[0]: the step */
    MCMD_FINISH, /* avg's division */
    MCMD_RUN,    /* a[0] warmup, a[1] iterations, a[2] per-step times,
                    a[3] each iteration's end */
    MCMD_NATIVE, /* a[0] warmup, a[1] iterations: MPI's own collective */
    MCMD_READ,   /* a[0] rank, a[1] buffer, a[2] offset, a[3] elements */
    MCMD_CLOSE,  /* the executor's state freed */
    MCMD_QUIT    /* the command is over: serving ends */
} MpiCmdKind;

/* One command, broadcast from rank 0. */
typedef struct {
    int32_t kind; /* MpiCmdKind */
    int32_t id;   /* the executor it is for */
    int64_t a[9]; /* its arguments */
} MpiCmd;

/* One executor's state on one process. */
typedef struct MpiRank {
    int id;               /* the executor's id, the same on every process */
    int me, p;            /* this process's rank, and the ranks */
    bool loaded;          /* a schedule is loaded */
    CollCall call;        /* the loaded schedule's call */
    size_t es;            /* bytes per element */
    size_t nsteps;        /* steps of the schedule */
    Transfer *xf;         /* this rank's transfers (as source or
                             destination), step after step */
    uint8_t *staged;      /* [per xf] its source is overwritten in its
                             step: read from the stage */
    size_t *at;           /* [nsteps + 1]: xf[at[k] .. at[k + 1]) is step k */
    size_t bufsize[BUF_COUNT];    /* elements of this rank's buffers */
    unsigned char *buf[BUF_COUNT]; /* this rank's buffers: base + the
                             load's unalign elements (nccl-tests' -u) */
    unsigned char *base[BUF_COUNT]; /* their allocations */
    unsigned char *stage; /* staged sources of one step */
    unsigned char *tmp;   /* received operands of one step's reduces */
    const unsigned char **src; /* [per xf] where a step reads it from */
    unsigned char **rtmp; /* [per xf] where a reduce's operand arrived */
    MPI_Request *req;     /* [per xf] requests of one step */
    ReduceFn red;         /* the kernel of (dtype, op) */
    Reduce3Fn red3;       /* its three-operand twin, or NULL */
    /* Copy-in fusion (sched_fuse_map over this rank's transfers), in
     * timed runs only: */
    uint8_t *skip;        /* [per xf] a local copy-in no one needs */
    const unsigned char **init; /* [per xf] a fused reduce's first operand
                             (the input its destination's copy holds)
                             instead of its destination's values, or NULL */
    const unsigned char **via; /* [per xf] where a send reads the input
                             its source's copy holds, or NULL */
    double call_s;        /* the slowest known call of MPI's own
                             collective for this load (native.c: the
                             watchdog's pace), 0: none yet */
    struct MpiRank *next; /* the process's other executors */
} MpiRank;

/* One process's host as the others learn it (world.c). */
typedef struct {
    char name[64]; /* MPI_Get_processor_name, cut */
    int cpus;      /* the CPUs online there */
    int pid;       /* its working process */
} MpiHostOf;

/* The processes of the job, as every process sees them (world.c). */
typedef struct {
    int rank, size;       /* this process and how many; size 0: not
                             started by mpirun */
    MPI_Comm ctl;         /* commands from rank 0 */
    MPI_Comm dat;         /* the ranks' transfers and collectives */
    char fingerprint[CALIB_HOST_LEN]; /* the hosts and ranks per host */
    int cores;            /* ranks that run at once: per host, its ranks
                             or its CPUs, whichever is fewer */
    int nodes, per_node;  /* the hosts, where several and each runs as
                             many ranks (0: one host, or uneven) ... */
    int cyclic;           /* ... ranks dealt round them, else in blocks
                             (ExecHost's) */
    bool broken;          /* an MPI call failed: the job cannot finish
                             cleanly */
    MpiRank *execs;       /* the open executors' states */
    MpiHostOf *hosts;     /* rank 0: every rank's host and process, by
                             rank (NULL elsewhere) */
} MpiWorld;

extern MpiWorld mpi_world;

#define MPI_WATCH_PIDS 256

/* Rank 0's watchdog, in memory rank 0 shares with its keeper (keeper.c),
 * which watches: no thread of rank 0 runs beside its MPI calls (one
 * sleeping thread made a 64 MiB MPI_Bcast at 4 ranks on 2 cores take
 * 27 ms instead of 16). exec_mpi.c arms and pushes it. */
typedef struct {
    atomic_llong deadline; /* ns on CLOCK_MONOTONIC; 0: nothing running */
    atomic_long timeout_s; /* the running operation's patience */
    char what[96];         /* what is running, for the sentence */
    atomic_int nlocal;     /* the other ranks' working processes on rank
                              0's host (world.c), which the keeper ends
                              at once with a hung job: a rank that mpirun
                              later continues would read the memory of a
                              rank 0 that is gone, and Open MPI would
                              print its own line beside collviz's one */
    int local_pids[MPI_WATCH_PIDS];
} MpiWatch;

/* keeper.c: rank 0's watchdog state; NULL on the other processes and
 * where rank 0 has no keeper (its fork failed): no watchdog then. */
extern MpiWatch *mpi_watch;

/* exec_mpi.c: the backend's operations on rank 0. */
extern const ExecOps exec_mpi_ops;

/* What rank 0 hands mpi_do beside the command (servers: all zeros). */
typedef struct {
    const Schedule *sched;  /* MCMD_LOAD: the schedule */
    const uint8_t *staged;  /* MCMD_LOAD: sched_validate's flags */
    double *times;          /* MCMD_RUN, MCMD_NATIVE: the slowest rank's
                               mean per iteration, then per step, then
                               each iteration's end (mpi_rank_run) */
    size_t ntimes;          /* places in times */
    void *dst;              /* MCMD_READ: where the elements go */
    MpiRank *made;          /* MCMD_OPEN: rank 0's new state */
} MpiDoArgs;

/* Do command c on this process (every process, rank 0 too, after the
 * broadcast); rank 0 gets back the first error of any process. */
CvError mpi_do(const MpiCmd *c, MpiDoArgs *arg);
/* Broadcast n bytes at p from rank 0 on comm, in parts MPI's int counts
 * can say. */
int mpi_bcast_big(void *p, size_t n, MPI_Comm comm);

/* rank.c: one rank's part of the operations. */
CvError mpi_rank_load(MpiRank *m, const MpiCmd *c, const Schedule *s,
                      const uint8_t *staged);
CvError mpi_rank_reset(MpiRank *m);
CvError mpi_rank_step(MpiRank *m, size_t k);
CvError mpi_rank_finish(MpiRank *m);
/* Timed loop; times[0] the mean per iteration, times[1 + k] step k's
 * mean where per_step, and after them with each iteration i's end, from
 * the loop's start (times has 1 + nsteps (per_step) + iters (each)
 * places). */
CvError mpi_rank_run(MpiRank *m, int warmup, int iters, bool per_step,
                     bool each, double *times);
void mpi_rank_unload(MpiRank *m);
/* The MPI error's words, for sentences. */
void mpi_error_text(int code, char *out, size_t len);

/* native.c: MPI's own collective for the loaded call, timed. */
CvError mpi_rank_native(MpiRank *m, int warmup, int iters, double *times);
/* Why MPI's own collective cannot run call c ("" when it can). */
void mpi_native_why(const CollCall *c, char *why, size_t len);

/* exec_mpi.c: rank 0 tells its watchdog that the job moves on (no-op
 * without one). */
void mpi_watch_poke(void);
/* exec_mpi.c: rank 0's watchdog waits `calls` times per_call_s (or, where
 * that is 0, the timeout per call) more than the timeout from now: a loop
 * that does not poke it. No-op without a watchdog. */
void mpi_watch_allow(double per_call_s, int calls);

/* Under mpirun, before MPI starts: fork; the parent keeps the child
 * (keeper.c) and never returns, the child returns and does the work. */
void mpi_keeper(void);

#endif
