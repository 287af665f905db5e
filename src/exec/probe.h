/* probe.h - the state of the machine under a backend, measured in a few
 * milliseconds between runs (ExecOps.probe), and how to read it.
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
 * A probe gives two times: pulling data another core wrote once (clean),
 * and pulling what it has just written (dirty); their ratio tells the
 * cross-core state apart. The clean time itself tells a second change
 * apart: the same virtual machine also runs for spells of a few tens of milliseconds to seconds
 * at about half its speed (a 1 MiB copy between two cores' caches took
 * 88 us in them instead of 45; a 1 MiB reduce on two ranks 37 us instead
 * of 20, in the same spells: bench/results/README.md), while the ratio
 * stays near 1. No I/O. */
#ifndef COLLVIZ_EXEC_PROBE_H
#define COLLVIZ_EXEC_PROBE_H

#include <stddef.h>

#define PROBE_BLOCK ((size_t)1 << 20) /* bytes a probe copies at a time, so
                                         that calibrate can say it */
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
