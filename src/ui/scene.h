/* scene.h - building and stepping the scene of an App: schedules, the
 * symbolic state, the executor, the read-back buffers and the counters.
 * Only app.c calls these (they change the App). */
#ifndef COLLVIZ_UI_SCENE_H
#define COLLVIZ_UI_SCENE_H

#include <stddef.h>

#include "ui/app.h"

/* Most ranks the picture shows (one row each); more belong to `trace`. */
#define SCENE_MAX_RANKS 64
/* Most cells per block the picture's count knob allows. */
#define SCENE_MAX_CELLS 8

/* Elements per block of the picture for kind k on p ranks with `cells`
 * cells per block: vector kinds get cells * p elements (so every block of
 * an algorithm's partition is whole), per-block kinds get `cells`. */
size_t scene_picture_count(CollKind k, int p, int cells);

/* Replace the scene by (call, algo): the picture's count comes from
 * app->cells, the measured one from app->bytes. On error the old scene is
 * kept and *why says why in one sentence. */
CvError scene_build(App *app, const CollCall *call, const AlgoInfo *algo,
                    char *why, size_t whylen);

/* Go to step k (0 .. nsteps): forward by executing, backward by reset and
 * replay, on the symbolic executor and the backend; then read back, check
 * and recompute the counters. */
CvError scene_seek(App *app, size_t k);

/* Recompute the model's parameters and predictions (after a size, rank or
 * backend change). */
void scene_model(App *app);

/* Switch to backend ops (opened for the scene's ranks); on failure the
 * current one stays and *why says why. */
CvError scene_backend(App *app, const ExecOps *ops, char *why,
                      size_t whylen);

/* Free everything the scene holds. */
void scene_fini(App *app);

#endif
