/* probe.h - the state of this machine's cross-core data path, measured in
 * a few milliseconds.
 *
 * Every collective reads, in each step, what another rank wrote in the
 * step before. On some machines the speed of such reads is not a property
 * of the hardware alone: on a virtual machine whose host moves its virtual
 * CPUs (onto cores that share a cache, or not), a core reading what
 * another has just written runs at one of two speeds about ten times
 * apart, and switches between them on its own every few seconds to
 * minutes, while reading data written once keeps one speed
 * (bench/results/README.md). A model calibrated in one state does not
 * describe runs in the other. The probe tells them apart, so that
 * calibrate records the state it measured in and perf says which sizes
 * ran in another.
 *
 * Two threads, pinned to the first two CPUs the process may use, repeat:
 * each copies a block of its own into one half of its output (those lines
 * are then freshly written, in its cache), both meet, each copies a block
 * of the other's into the other half, both meet. "Dirty" iterations copy
 * the half the other has just written; "clean" ones a block the other
 * wrote once, at the start. ratio = dirty / clean time per iteration:
 * near 1 where cores share their fresh data fast, about 11 in the slow
 * state of the development virtual machine.
 *
 * The clean time itself tells a second change apart: the same virtual
 * machine also runs for spells of a few tens of milliseconds to seconds
 * at about half its speed (a 1 MiB copy between two cores' caches took
 * 88 us in them instead of 45; a 1 MiB reduce on two ranks 37 us instead
 * of 20, in the same spells: bench/results/README.md), while the ratio
 * stays near 1. No I/O. */
#ifndef COLLVIZ_PROBE_H
#define COLLVIZ_PROBE_H

#include <stddef.h>

#include "error.h"

#define PROBE_BLOCK ((size_t)1 << 20) /* bytes per block by default */
#define PROBE_SECONDS 0.01            /* a quick probe's measuring time */
#define PROBE_MOVED 3.0 /* ratios further apart than this factor: the
                           machine was not in the same state */
#define PROBE_SLOWER 1.5 /* clean times further apart than this factor:
                            the machine did not run at the same speed */

/* One measurement. */
typedef struct {
    double dirty_s; /* median seconds per iteration pulling fresh data */
    double clean_s; /* the same pulling data written once */
    double ratio;   /* dirty_s / clean_s */
} ProbeResult;

/* Measure for about `seconds` (at least three counted iterations of each
 * kind, after three of each to warm up) with blocks of `block` bytes (rounded down to
 * whole 64-byte lines, at least one). CV_ERR_UNAVAILABLE when the process
 * may use fewer than two CPUs or a thread cannot be pinned; CV_ERR_NOMEM;
 * CV_ERR_BACKEND when a thread cannot be started. */
CvError probe_cross(size_t block, double seconds, ProbeResult *out);

/* The median of v[0 .. n) (sorts v in place); 0 when n is 0. */
double probe_median(double *v, size_t n);

/* Whether the ratios v[0 .. n) describe one state: the largest at most
 * PROBE_MOVED times the smallest. Values <= 0 (not measured) are skipped;
 * fewer than two measured values count as one state. */
int probe_same_state(const double *v, int n);

/* Whether the clean times v[0 .. n) describe one speed: the largest at
 * most PROBE_SLOWER times the smallest, skipping values <= 0 as above. */
int probe_same_speed(const double *v, int n);

#endif
