/* probe_cross.h - the threads backend's probe of the machine's state
 * (exec/probe.h says what it measures and how to read it).
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
 * No I/O. */
#ifndef COLLVIZ_PROBE_CROSS_H
#define COLLVIZ_PROBE_CROSS_H

#include <stddef.h>

#include "core/error.h"
#include "exec/probe.h"

#define PROBE_SECONDS 0.01            /* a quick probe's measuring time */

/* Measure for about `seconds` (at least three counted iterations of each
 * kind, after three of each to warm up) with blocks of `block` bytes (rounded down to
 * whole 64-byte lines, at least one). CV_ERR_UNAVAILABLE when the process
 * may use fewer than two CPUs or a thread cannot be pinned; CV_ERR_NOMEM;
 * CV_ERR_BACKEND when a thread cannot be started. */
CvError probe_cross(size_t block, double seconds, ProbeResult *out);

#endif
