/* plan.h - the threads backend's plan of a schedule: which transfers are
 * eager and through which channel, which are pushed in part, who waits for
 * whom before each phase (exec_threads.h). Built once per schedule by the
 * caller's thread, read-only while the workers run it.
 *
 * Private to src/threads/. */
#ifndef COLLVIZ_THREADS_PLAN_H
#define COLLVIZ_THREADS_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sched.h"

/* Bytes of a cache line: a channel's slots are whole lines, and each of
 * flag.h's counters has one of its own. */
#define CACHE_LINE 64


/* Wait until rank `rank` has completed the phase `lag` phases before the
 * current one (lag 0: the previous phase). */
typedef struct {
    int32_t rank; /* whose done counter */
    uint32_t lag; /* phases back */
} Wait;

/* Transfers of at most eager_bytes (the option) between two ranks are
 * eager, as MPI's small messages are: the source copies the data into a
 * ring of slots (a channel from it to the destination) at its own pace,
 * and the destination takes it from there. Neither waits for the other's
 * step, so ranks that share a core run several iterations per time slice
 * instead of switching threads at every step. Larger transfers are pulled
 * in place (zero copy). By default transfers up to EAGER_BYTES are eager
 * when ranks outnumber cores, or when data flows one way (plan_one_way:
 * a source that never hears from its destinations runs ahead, iterations
 * overlap; measured on 2 cores, p = 2, 8 bytes: broadcast 80-100 ns eager
 * against 140-150 pulled); otherwise all are pulled, which costs one
 * cache-line handoff less per transfer where ranks wait for each other
 * anyway (p = 2: allreduce 0.20 us pulled against 0.35 us eager). */
#define EAGER_BYTES 4096
#define EAGER_DEPTH 8                    /* slots per channel, at least */
#define EAGER_DEPTH_MAX 256              /* slots per channel, at most */
#define EAGER_RING ((size_t)64 << 10)    /* bytes a ring aims at */
#define EAGER_BUDGET ((size_t)32 << 20)  /* bytes of all rings, at most */

/* A small transfer the source puts into a channel. */
typedef struct {
    const Transfer *t; /* the transfer */
    int32_t chan;      /* its channel */
} Send;

/* What one rank does in one phase. */
typedef struct {
    size_t e0;     /* its eager sends: plan.sends[e0 .. e0 + ne) */
    size_t ne;     /* number of those */
    size_t x0;     /* its transfers: plan.xf[x0 .. x0 + nx) */
    size_t nx;     /* transfers it performs (it is their destination) */
    size_t w0;     /* its waits on done counters: plan.waits[w0 .. +nw) */
    size_t nw;     /* number of those waits */
    size_t s0;     /* ranks whose staging it waits for: plan.swaits[s0..] */
    size_t ns;     /* number of those ranks */
    size_t nstage; /* elements of sources it stages first */
    size_t p0;     /* its pushes (it is their source): plan.pushes[p0..] */
    size_t np;     /* number of those */
    size_t q0;     /* ranks pushing into it: plan.pushers[q0 .. q0 + nq) */
    size_t nq;     /* number of those (one per pushed transfer) */
} RankPhase;

/* Everything the workers need about a schedule, built by the caller's
 * thread at load and read-only afterwards.
 *
 * One iteration has nphases phases: the steps, avg's finish, and a return
 * phase. In the return phase a rank "writes" all its buffers (the caller
 * may reuse them once a collective returns), so it waits there for every
 * rank that read them, and a rank that reads them in the next iteration
 * waits for it to have returned: back-to-back timed iterations are
 * coupled as real calls are, and never overlap by more. */
typedef struct {
    size_t nsteps;          /* steps of the schedule */
    bool finish;            /* phase nsteps is avg's finish */
    size_t nphases;         /* steps, the finish, and the return phase */
    RankPhase *rp;          /* [rank * nphases + phase] */
    const Transfer **xf;    /* transfers grouped by (destination, phase) */
    uint8_t *xstaged;       /* parallel to xf: stage the source first */
    int32_t *xchan;         /* parallel to xf: its channel, -1: pulled */
    SchedFuse fuse;         /* copy-in fusion, in timed runs only: a
                               reduce whose destination still holds a
                               copy-in's copy starts from that copy's
                               source (own), a transfer whose source does
                               reads it there (via), a copy-in no one
                               needs is skipped (skip) */
    size_t *xpush;          /* [transfer]: elements at its end that its
                               source performs (plan_push_all) */
    const Transfer **pushes; /* pushed transfers by (source, phase) */
    int32_t *pushers;       /* their sources by (destination, phase) */
    Send *sends;            /* eager transfers grouped by (source, phase) */
    size_t nchans;          /* channels */
    size_t *chan_slot;      /* [channel]: bytes per slot */
    uint32_t *chan_depth;   /* [channel]: slots */
    Wait *waits;            /* grouped by (rank, phase) */
    int32_t *swaits;        /* grouped by (rank, phase) */
    size_t *stage_elems;    /* [rank]: stage elements it needs */
} Plan;

/* Build the plan of schedule s with the validator's staged flags; eager:
 * the largest eager transfer in bytes (0: none); push: the smallest
 * transfer an idle source may push in part (0: none), on `cores` cores.
 * 0, or -1 when out of memory (then pl holds nothing). */
int plan_build(Plan *pl, const Schedule *s, const uint8_t *stg, size_t eager,
               size_t push, int cores);

/* Free what plan_build allocated and zero pl. */
void plan_free(Plan *pl);

/* ------------------------------------------- the schedule, as run here */

/* Pushes. Ranks that pull (the destination performs a transfer) leave a rank that receives nothing in a step idle, and with
 * it a core, while its destination copies alone: a gather's root, a
 * reduce's root, a broadcast's first receiver. In a step where fewer
 * ranks receive than there are cores, such an idle source may perform the
 * tail of its transfer itself, writing into the destination's buffer, so
 * that both cores work (measured on 2 cores: 64 MiB streamed as two 32 MiB
 * halves in parallel 1.2-1.7 times faster than one thread alone). The
 * step's semantics do not change, only who moves which bytes.
 *
 * push[x] (an array of s->nxfers the caller zeroed) = the elements at the
 * end of transfer x that its source performs: transfers of at least
 * min_bytes between two ranks whose source receives nothing in the step,
 * sized so that the source's and the destination's elements balance
 * (taken in transfer order), the pushed part at least min_bytes / 2 and
 * starting on a boundary of min(64, min_bytes) bytes of the destination
 * buffer (no cache line written by both). No pushes when
 * cores < 2 or the step's receivers are as many as the cores. The
 * backend's rule, which its predictor (predict.c) mirrors. */
#define PLAN_PUSH_BYTES ((size_t)512 << 10)

CvError plan_push_all(const Schedule *s, int cores, size_t min_bytes,
                       size_t *push);

/* Whether data flows one way in s: no rank receives, directly or
 * through other ranks, from a rank it sends to (the graph of its
 * transfers between ranks has no cycle), as in trees and chains towards
 * or from a root. There a source never needs to hear from its
 * destinations, so the backend lets it run ahead (the eager channels,
 * as MPI's eager sends let a broadcast's root return at once). -1 when
 * out of memory. */
int plan_one_way(const Schedule *s);

#endif
