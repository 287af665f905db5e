/* sched_file.h - `-a FILE`: schedule files (docs/schedule-format.md) read,
 * checked and kept for the rest of the process, since a scene, a worker's
 * job and the TUI's menu may hold their algorithms. Called from the
 * thread that parses options (the main one). */
#ifndef COLLVIZ_SCENE_SCHED_FILE_H
#define COLLVIZ_SCENE_SCHED_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "algos/algo.h"
#include "cli/cli.h"

#define SCENE_MAX_FILES 256 /* schedule files (and versions of one, as a
                              learner edits it) one process reads */

/* Whether -a's value names a file rather than a built-in algorithm: it
 * holds a '/' or a '.' (no built-in name does). */
bool sched_file_named(const char *name);

/* The algorithm of the schedule file at path: read (at most
 * SCHED_TEXT_MAX_BYTES), parsed and checked element by element. The same
 * path with the same contents gives the algorithm read before; changed
 * contents are read again. A schedule that is not its collective is
 * refused, or with keep_wrong kept (algo_file_wrong). 0 and *out, or -1
 * and one sentence in *e. */
int sched_file_load(const char *path, bool keep_wrong, const AlgoInfo **out,
                    CliErr *e);

/* The algorithms read so far, oldest first, into out (at most `most`);
 * returns how many. */
size_t sched_file_loaded(const AlgoInfo **out, size_t most);

#endif
