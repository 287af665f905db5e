/* exec_threads.h - the threads backend: one POSIX thread per rank, all in
 * one address space.
 *
 * A rank's buffers are allocated and first touched by its own thread. The
 * destination of a transfer performs it: it reads the source rank's buffer
 * in place (no copies through a mailbox) and writes only its own buffers,
 * so a buffer has exactly one writer. Ranks synchronise point to point
 * through per-rank phase counters (C11 atomics): before step k a rank waits
 * only for the ranks it reads from (their last writes before k) and, before
 * writing, for the ranks that read its buffers since its previous write
 * (write-after-read across steps). Sources that a step overwrites (the
 * validator's `staged` flags) are copied to a per-rank stage first and the
 * writer waits for that copy. A waiting rank spins briefly, then yields,
 * then sleeps on a futex, so 16 ranks on 2 cores stay fast.
 *
 * Rank limit: 1 .. COLL_MAX_RANKS (1024) threads. Buffers larger than the
 * machine's physical memory are refused with CV_ERR_NOMEM before anything
 * is allocated. */
#ifndef COLLVIZ_EXEC_THREADS_H
#define COLLVIZ_EXEC_THREADS_H

#include "exec.h"

extern const ExecOps exec_threads_ops;

#endif
