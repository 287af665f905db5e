/* copy.h - the bulk copy of the executors: memcpy for data that is read
 * again soon, and a streaming copy for transfers larger than the caches.
 *
 * A normal store first reads the destination's line into the cache (to own
 * it), so copying n bytes moves 3n through the memory bus, and the copy
 * evicts data that is still to be used. Streaming (non-temporal) stores
 * write whole lines straight to memory: 2n. On this project's 2-core
 * machine two threads copying 64 MiB each reach 18 GB/s together with
 * glibc's memcpy and 23-26 GB/s streaming; at 4 MiB (in the 32 MiB L3)
 * memcpy reaches 49 GB/s and streaming 30. So the executor streams only
 * when its working set is larger than the last-level cache. No I/O. */
#ifndef COLLVIZ_COPY_H
#define COLLVIZ_COPY_H

#include <stddef.h>

#include "core/reduce.h"

/* The smallest copy, in bytes, that streams in a working set of `working`
 * bytes (every rank's buffers together): 256 KiB when the working set is
 * larger than the last-level cache (what those copies write is not read
 * again before it would be evicted anyway), else SIZE_MAX (none). The
 * executors' rule, which the cost model mirrors. */
size_t copy_stream_min(size_t working);

/* Copy n bytes with streaming stores where the processor has them (x86:
 * SSE2), else memcpy; dst and src must not overlap. */
void copy_stream(void *restrict dst, const void *restrict src, size_t n);

/* dst = init op src for n elements of es bytes (reduce_from, core's
 * reduce.h), the results written with streaming stores where the
 * processor has them: computed a few lines at a time into the first-level
 * cache, then streamed out. A fused reduce (copy-in fusion) writes a
 * destination it does not read; with normal stores each of its lines is
 * read in first: four streams through memory where the in-place reduce
 * has three. Measured on this project's 2-core machine, float sum of
 * 32 MiB on one core: 3.1-3.3 ms with normal stores, 2.6-2.9 streamed,
 * 2.1-2.5 in place; 8 KiB parts were slower than normal stores, 1-2 KiB
 * the fastest. */
void reduce_from_stream(ReduceFn red, Reduce3Fn red3, void *restrict dst,
                        const void *init, const void *src, size_t n,
                        size_t es);

/* Bytes of the largest cache (the last level), or 32 MiB when the system
 * does not say; looked up once. */
size_t copy_cache_bytes(void);

#endif
