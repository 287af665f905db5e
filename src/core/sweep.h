/* sweep.h - a sweep of sizes as nccl-tests reads it: from MIN to MAX,
 * multiplying by a factor or adding a step between sizes. Parsed by the
 * command line (cli.h), walked by perf, model and the TUI's chart. */
#ifndef COLLVIZ_SWEEP_H
#define COLLVIZ_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
