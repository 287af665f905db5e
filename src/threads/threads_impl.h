/* threads_impl.h - what the files of the threads backend share: the
 * commands the caller's thread gives the workers, a rank, a channel, the
 * executor (exec_threads.h).
 *
 * The backend's files: flag.h (waiting), plan.c (the plan of a schedule,
 * and the policies it follows), rank.c (what a worker thread does),
 * exec_threads.c (its options, the commands, the operations, its machine
 * and the ExecOps table), predict.c (its predictor), probe_cross.c (its
 * probe), copy.c (streaming copies). Private to src/threads/; a file that
 * includes it defines _GNU_SOURCE first (flag.h). */
#ifndef COLLVIZ_THREADS_IMPL_H
#define COLLVIZ_THREADS_IMPL_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/reduce.h"
#include "exec/exec.h"
#include "threads/flag.h"
#include "threads/plan.h"

#define STACK_BYTES (256u * 1024u)
#define HUGE_PAGE ((size_t)2 << 20)
/* Per-rank step timestamps kept by one run (older iterations dropped). */
#define MAX_STAMPS (1u << 16)

typedef enum {
    CMD_LOAD,   /* allocate buffers for the schedule, then CMD_RESET */
    CMD_RESET,  /* inputs filled, everything else poisoned */
    CMD_PHASE,  /* execute one phase (a step, or the finish) */
    CMD_RUN,    /* warmup + timed iterations of the whole schedule */
    CMD_QUIT,   /* free the rank's memory and end the thread */
    CMD_COUNT
} CmdKind;

/* A command from the caller's thread to every worker. */
typedef struct {
    CmdKind kind;   /* what to do */
    size_t phase;   /* CMD_PHASE: which phase */
    uint32_t epoch; /* phases executed before this command */
    int warmup;     /* CMD_RUN: untimed iterations */
    int iters;      /* CMD_RUN: timed iterations */
    size_t stamp_iters; /* CMD_RUN: iterations whose steps are stamped */
    size_t each_iters;  /* CMD_RUN: iterations whose ends are stamped
                           (ExecTiming.each_s) */
    uint32_t run;   /* CMD_RUN: its number, the gate's value */
} Cmd;

typedef struct ThreadsExec ThreadsExec;

/* A run's agreed stop (Cancel.stop): the ranks that agreed, in the bits
 * from STOP_SHIFT up, and below them the phase of the run (counted from
 * its first, 0) before which every rank stops. */
#define STOP_SHIFT 48
#define STOP_AT_MASK ((UINT64_C(1) << STOP_SHIFT) - 1)

/* Where a cancelled run stops, on a cache line of its own (the cancel
 * itself is the base's, Executor.cancel: the ranks read it before every
 * phase of a run, and nothing writes it until a cancel comes). */
typedef struct {
    alignas(CACHE_LINE) _Atomic uint64_t stop; /* CMD_RUN: where the ranks
                                                  stop (STOP_SHIFT); 0 at
                                                  the start of every run */
} Cancel;

/* A one-way channel for eager transfers from one rank to another. Each
 * side remembers the other's counter as it last read it and reads it
 * again only when that is not enough: a line the other side keeps
 * writing is a cache miss at every read. */
typedef struct {
    Flag produced;       /* messages the source has put in */
    Flag consumed;       /* messages the destination has taken out */
    alignas(CACHE_LINE) uint32_t seen_consumed; /* the source's copy */
    alignas(CACHE_LINE) uint32_t seen_produced; /* the destination's */
    unsigned char *ring; /* depth slots of slot bytes */
    size_t slot;         /* bytes per slot */
    uint32_t depth;      /* slots */
} Channel;

/* One rank: its flags, its buffers, its thread. */
typedef struct {
    Flag done;   /* phases this rank completed (since open) */
    Flag staged; /* phases whose staging copies it completed */
    Flag entered; /* phases whose waits and staging it completed, so that
                     ranks pushing into its buffers may write (published
                     only in phases with pushes into it) */
    alignas(CACHE_LINE) unsigned char *buf[BUF_COUNT]; /* its buffers:
                              base + the executor's unalign elements */
    unsigned char *base[BUF_COUNT]; /* their allocations */
    size_t cap[BUF_COUNT]; /* bytes allocated per buffer */
    unsigned char *stage;  /* copies of sources a step overwrites */
    size_t stage_cap;      /* bytes allocated for stage */
    long *stamps;          /* [iteration * nphases + phase]: end times, ns */
    size_t stamps_cap;     /* longs allocated for stamps */
    long *ends;            /* [iteration]: each timed iteration's end, ns
                              (CMD_RUN's each_iters) */
    size_t ends_cap;       /* longs allocated for ends */
    long t0;               /* CMD_RUN: start of the timed iterations, ns */
    long t1;               /* CMD_RUN: end of the timed iterations, ns */
    CvError err;           /* the last command's error */
    double slow_extra;     /* slow=R:F on this rank: F - 1, else 0 */
    long slow_waits;       /* its busy waits since open (slow_end) */
    long slow_took_ns;     /* what the copies and reduces before them
                              took, summed */
    long slow_wait_ns;     /* the waits asked for, summed */
    Waiter wait;           /* how it waits for other ranks */
    Waiter idle;           /* how it waits for a command */
    int id;                /* rank number */
    pthread_t thread;      /* the worker */
    ThreadsExec *ex;       /* the executor it belongs to */
} Rank;

struct ThreadsExec {
    Executor base;         /* ops, schedule, ranks, error, cancel */
    Rank *ranks;           /* [nranks], cache-line aligned */
    int started;           /* worker threads running */
    Cancel cancel;         /* where a cancelled run stops */
    Flag cmd;              /* commands published so far */
    Flag acks;             /* commands completed, summed over workers */
    Flag gate;             /* CMD_RUN: timed iterations may begin */
    _Atomic int arrived;   /* CMD_RUN: ranks at the gate */
    Cmd c;                 /* the current command (read-only while it runs) */
    uint32_t ncmds;        /* commands issued */
    uint32_t epoch;        /* phases executed by every rank since open */
    uint32_t nruns;        /* CMD_RUN commands issued */
    Waiter main_wait;      /* how the caller waits for the workers */
    int check_steps;       /* ExecOptions.check_steps */
    size_t unalign;        /* ExecOptions.unalign */
    long eager_opt;        /* the eager_bytes option; -1: the default
                              (eager_for) */
    size_t eager_bytes;    /* largest eager transfer of the schedule
                              loaded (0: none) */
    size_t push_bytes;     /* smallest pushed transfer (0: none) */
    int cpus;              /* CPUs it may use (exec_cpus), at open */
    int link_src, link_dst; /* link=A>B:F: transfers from rank A to rank
                               B ... (-1: none) */
    double link_extra;     /* ... are followed by a busy wait of F - 1
                              times their time, whoever performs them */
    ReduceFn red;          /* the loaded schedule's kernels (reduce.h) */
    Reduce3Fn red3;
    size_t stream_bytes;   /* copies of at least this many bytes stream
                              (copy.h); SIZE_MAX: none do */
    Plan plan;             /* of the loaded schedule */
    Channel *chans;        /* [plan.nchans] */
    unsigned char *rings;  /* the channels' slots, one allocation */
};

static size_t es_of(const ThreadsExec *x)
{
    return dtype_size(x->base.sched->call.dtype);
}

/* Whether a cancel was asked (ExecOps.cancel) and not reported yet. */
static inline bool cancel_asked(ThreadsExec *x)
{
    return exec_cancel_asked(&x->base);
}

/* A worker thread's body: rank `arg` (a Rank *) carries out the commands
 * the caller's thread publishes until CMD_QUIT (rank.c). */
void *threads_rank_main(void *arg);

#endif
