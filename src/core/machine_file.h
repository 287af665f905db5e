/* machine_file.h - a machine as text, in the subset of ASTRA-sim's network
 * description that collviz reads and writes:
 *
 *     topology: [ Ring, Switch ]   # per dimension: Ring, FullyConnected,
 *                                  # Switch; collviz adds Mesh (no wrap),
 *                                  # ReducingSwitch (NVLS's: it sums and
 *                                  # multicasts) and SharedSwitch (a
 *                                  # port per coordinate, shared by the
 *                                  # ranks at it: a NIC per node)
 *     npus_count: [ 4, 2 ]         # members of a line of each dimension
 *     bandwidth: [ 50.0, 25.0 ]    # GB/s per link per direction
 *     latency: [ 500.0, 2000.0 ]   # ns per hop
 *
 * and, as collviz's own keys (ASTRA-sim has no such terms), `collviz_alpha`
 * (us per message on a link, per dimension; default 0),
 * `collviz_gamma` (GB/s a rank reduces; default the caller's) and
 * `collviz_place` (block, the default: rank r at place r; or cyclic:
 * ranks dealt round the last dimension first). A memory machine
 * (machine.h) is `collviz_memory: gpu` or `host` with `npus_count` and
 * `bandwidth` (GB/s of memory traffic) of one value, `collviz_step` and
 * `collviz_call` (us), `collviz_cache` (bytes, above 0) with
 * `collviz_cache_bandwidth` (GB/s), and `collviz_gamma`; no topology,
 * latency, alpha or place; a key left out takes the kind's default
 * (machine_mem_default). Lists are
 * flow lists on one line; `#` starts a comment. Pure: text in, text out. */
#ifndef COLLVIZ_CORE_MACHINE_FILE_H
#define COLLVIZ_CORE_MACHINE_FILE_H

#include <stddef.h>

#include "core/machine.h"

/* Where a machine file is wrong: its line (0: the file as a whole) and
 * one sentence. */
typedef struct {
    int line;        /* 1-based, 0 when no line is to blame */
    char msg[200];   /* the sentence */
} MachineFileErr;

/* Parse text[0 .. len) into *m (kind MACHINE_DIMS); gamma is the ranks'
 * reduce cost in s/B unless the file gives collviz_gamma. */
CvError machine_file_parse(const char *text, size_t len, double gamma,
                           Machine *m, MachineFileErr *err);

/* Write m in that format into buf (as snprintf: returns the length the
 * whole text needs). A bus has no such description (one medium, not a
 * link per port): CV_ERR_ARG. */
CvError machine_file_write(const Machine *m, char *buf, size_t len,
                           size_t *need);

#endif
