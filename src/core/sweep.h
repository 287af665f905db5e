/* sweep.h - a sweep of sizes as nccl-tests reads it: from MIN to MAX,
 * multiplying by a factor or adding a step between sizes. Parsed by the
 * command line (cli.h), walked by perf, model and the TUI's chart. */
#ifndef COLLVIZ_SWEEP_H
#define COLLVIZ_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/coll.h"

/* -b MIN -e MAX, -f FACTOR or -i STEP. */
typedef struct {
    unsigned long long min;    /* first size, bytes */
    unsigned long long max;    /* last size at most, bytes */
    unsigned long long factor; /* multiply by this (>= 2), or 0 */
    unsigned long long step;   /* or add this (>= 1) when factor is 0 */
} Sweep;

/* The size after `size` in the sweep; false when past the end. */
bool sweep_next(const Sweep *sw, unsigned long long *size);

/* How many sizes the sweep has (at least 1: its first). */
size_t sweep_len(const Sweep *sw);

/* The element counts per block of call c's collective at the sweep's
 * sizes, each rounded down to whole blocks (coll_count_floor), in order,
 * into out[0 ..) when out is not NULL; returns how many (1 to
 * sweep_len). A sweep never repeats a size: a count the size before
 * already gave is left out (-b 0 -e 64 on floats: 0, 4, 8, ..., not 0
 * three times for 0, 1 and 2 bytes). */
size_t sweep_counts(const Sweep *sw, const CollCall *c, size_t *out);

#endif
