/* exec_threads.h - the threads backend: one POSIX thread per rank, all in
 * one address space.
 *
 * A rank's buffers are allocated and first touched by its own thread
 * (large ones on transparent huge pages). The destination of a transfer
 * performs it. Three ways to move data:
 *  - pulled (transfers above the eager_bytes option: by default 4 KiB,
 *    or 0 where ranks wait for each other anyway): the destination reads
 *    the source's buffer in place, zero copy;
 *  - pushed in part (pulled transfers of the push_bytes option, 512 KiB
 *    by default, and more, in steps where fewer ranks receive than there
 *    are cores, from a source that receives nothing in the step:
 *    plan_push_all): the source writes the transfer's tail into the
 *    destination's buffer once the destination has done its waits for the
 *    step, while the destination performs the rest; the destination ends
 *    the step when its sources have, so both cores work;
 *  - eager (smaller ones, when ranks outnumber cores or data flows one
 *    way): the source copies the data into a ring of slots towards the
 *    destination at its own pace, as MPI does with small messages, so
 *    ranks sharing a core run several iterations per time slice instead
 *    of switching threads at every step, and a broadcast's root runs
 *    ahead of its receivers.
 * Ranks synchronise point to point through per-rank phase counters (C11
 * atomics), never with a global barrier: before step k a rank waits only
 * for the ranks it pulls from (their last writes before k); before writing,
 * for the ranks that pulled from its buffers since its previous write
 * (write-after-read across steps); sources that a step overwrites (the
 * validator's `staged` flags) are copied to a per-rank stage first and the
 * writer waits for that copy. Timed iterations end with a return phase in
 * which a rank waits for the readers of its buffers, as a real collective
 * returns only when its buffers may be reused. A waiting thread spins
 * (adaptively, and only while the thread it waits for may be running on
 * another core), then yields, then sleeps on a futex, so 16 ranks on 2
 * cores stay fast.
 *
 * Options (ExecOptions.params, -B threads:key=value,...), whole numbers:
 *  - spin_us: how long a waiting rank spins before it yields (default 200
 *    while every rank has a CPU of its own, else 0);
 *  - eager_bytes: transfers up to this many bytes are eager (default
 *    above; 0: none);
 *  - push_bytes: pulled transfers of this many bytes and more may be
 *    pushed in part (default 524288; 0: none);
 *  - slow=R:F, a straggler: rank R (0 to p - 1) follows every copy and
 *    reduce it performs (its transfers, the tails it pushes, its eager
 *    sends and staging copies, an average's division) with a busy wait of
 *    F - 1 times what that took by the monotonic clock, so its work takes
 *    F times as long (F a number from 1 to 1000; 1: no slowdown). A
 *    cancel ends the wait. The host's placement line says so;
 *  - link=A>B:F, a slow pair: every copy or reduce of a transfer from
 *    rank A to rank B is followed by such a wait, whichever rank
 *    performs it (A and B two different ranks, F as slow's).
 * Another key, or a value out of range, fails open with CV_ERR_ARG.
 *
 * Rank limit: 1 .. COLL_MAX_RANKS (1024) threads. Buffers larger than the
 * machine's physical memory are refused with CV_ERR_NOMEM before anything
 * is allocated. A failed load leaves no schedule loaded. With
 * ExecOptions.unalign every buffer starts that many elements past its
 * allocation (aligned to 16 bytes at least, large ones to 2 MiB). */
#ifndef COLLVIZ_EXEC_THREADS_H
#define COLLVIZ_EXEC_THREADS_H

#include "exec/exec.h"

extern const ExecOps exec_threads_ops;

/* Where rank r's buffer b of the loaded schedule starts, and where its
 * allocation does (*base): ExecOptions.unalign elements apart. NULL when
 * nothing is loaded or r or b is out of range. */
const void *threads_buffer(Executor *ex, int r, BufId b, const void **base);

/* What slow=R:F made rank r do since the executor was opened. */
typedef struct {
    long waits;   /* copies and reduces followed by a busy wait */
    long took_ns; /* what they took, summed, nanoseconds */
    long wait_ns; /* the waits asked for, summed: F - 1 times took_ns,
                     each rounded down (a cancel may cut one short) */
} ThreadsSlow;

/* Rank r's busy waits (zero for every rank but the slowed one); false
 * when r is out of range. For tests: which rank waited, never how fast
 * the host is. Read between commands. */
bool threads_slowed(Executor *ex, int r, ThreadsSlow *out);

#endif
