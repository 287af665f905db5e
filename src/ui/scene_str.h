/* scene_str.h - a scene as one line of text that reopens it: the TUI's
 * own options, "allreduce -a ring -p 8 -s 1M -T torus:4x2 --step 3", so
 * that the line pasted after `collviz` or given to `collviz --scene`
 * shows the same picture at the same step. It holds the collective, the
 * algorithm, the ranks, the measured size, datatype, op, root, in place,
 * the machine (-T), the step, the picture's cells per block and chunks,
 * the model's pricing and presenter mode; values that are the TUI's defaults are left out, the
 * collective, algorithm and ranks always written. The backend is not part
 * of it: a line pasted on another machine shows the same scene there. */
#ifndef COLLVIZ_UI_SCENE_STR_H
#define COLLVIZ_UI_SCENE_STR_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/cli.h"
#include "scene/scene_opts.h"
#include "ui/scene.h"

/* The options of a scene string after the scene options (scene_opts.h);
 * the TUI's option table starts with them and numbers its own from
 * SSTR_OPT_COUNT on. */
enum {
    SSTR_OPT_STEP = SCENE_OPT_COUNT, /* --step K */
    SSTR_OPT_CELLS,                  /* --cells N */
    SSTR_OPT_CHUNKS,                 /* --chunks N */
    SSTR_OPT_PRICING,                /* --pricing MODE */
    SSTR_OPT_PRESENT,                /* --present */
    SSTR_OPT_COUNT
};

/* Their table entries (the scene options' included). */
#define SCENE_STR_OPTS(ranks_help, size_help)                                 \
    SCENE_OPTS(ranks_help, size_help),                                        \
    [SSTR_OPT_STEP] = {0, "step", "K", "show the scene after K steps (0: "   \
                       "the initial state, the default)"},                    \
    [SSTR_OPT_CELLS] = {0, "cells", "N", "picture cells per block, 1 to 8 "  \
                        "(default 1)"},                                       \
    [SSTR_OPT_CHUNKS] = {0, "chunks", "N", "a pipelined algorithm's "        \
                         "picture in N chunks, 1 to 16 (key p; default: "     \
                         "its own rule)"},                                    \
    [SSTR_OPT_PRICING] = {0, "pricing", "MODE", "how the model adds the "    \
                          "steps up: lockstep (the default) or dataflow, "    \
                          "each rank going on once its own messages are "     \
                          "done (key D)"},                                    \
    [SSTR_OPT_PRESENT] = {0, "present", NULL, "start in presenter mode (P): " \
                          "big cells, the step in words, one counter line"}

/* The most bytes a scene string takes (with a machine file's path). */
#define SCENE_STR_LEN 320

/* A scene as a scene string holds it. */
typedef struct {
    SceneSpec spec; /* call (its count unused), algorithm, size, machine */
    int step;       /* steps executed: 0 is the initial state */
    int cells;      /* picture cells per block, 1 to SCENE_MAX_CELLS */
    int chunks;     /* the picture's chunks (SceneSetup.chunks), 0: the
                       algorithm's own rule */
    PricingMode pricing; /* the model's (SceneSetup.pricing) */
    bool present;   /* presenter mode */
} SceneStr;

/* The scene string of what sc shows (present: presenter mode is on). */
void scene_str_of(const Scene *sc, bool present, SceneStr *out);

/* s as text into out (at most len bytes, always ended); the length the
 * whole text needs, as snprintf. */
size_t scene_str_format(const SceneStr *s, char *out, size_t len);

/* The scene options and SSTR_OPT_* of a (an option table that starts with
 * SCENE_STR_OPTS), checked as the TUI checks them. 0, or -1 and the
 * sentence. The step is checked against the schedule by whoever builds
 * the scene. */
int scene_str_from_args(const CliArgs *a, SceneStr *out, CliErr *e);

/* A scene string read back: the words of text parsed as those options
 * (and no other). 0, or -1 and the sentence. */
int scene_str_parse(const char *text, SceneStr *out, CliErr *e);

/* A file name for a picture of what sc shows that no file has in the
 * current folder: "collviz-allreduce-ring-p8-step3.svg" (ext "svg"), then
 * -2, -3, ... before the dot when taken. */
void scene_str_file_name(const Scene *sc, const char *ext, char *out,
                         size_t len);

#endif
