/* scene.h - one scene: a collective call by an algorithm, shown as a
 * picture and measured at a size. A Scene stands alone (no App, no
 * terminal): the TUI holds one, a lesson player can hold one.
 *
 * Two versions of the same call exist side by side:
 *  - the picture: `call` with a small count (a few cells per rank),
 *    executed step by step symbolically (`sim`) and on the backend (`ex`),
 *    whose buffers are read back and checked against the Sim after every
 *    step (`check`);
 *  - the measurement: `big` at the chosen size (`bytes`), whose schedule
 *    gives the byte counters and the model's predictions (`model`, the
 *    one predictor of predictor.h, which background jobs take too).
 *
 * Every function that can fail says why in one sentence (why, whylen). A
 * backend that fails while stepping leaves the scene `broken`: whoever
 * holds it should stop with that sentence. */
#ifndef COLLVIZ_UI_SCENE_H
#define COLLVIZ_UI_SCENE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algos/algo.h"
#include "core/coll.h"
#include "core/sched.h"
#include "core/sim.h"
#include "scene/scene_opts.h"
#include "exec/exec.h"
#include "ui/check.h"
#include "scene/predictor.h"
#include "scene/value.h"

/* Most ranks the picture shows (one row each); more belong to `trace`. */
#define SCENE_MAX_RANKS 64
/* Most cells per block the picture's count knob allows. */
#define SCENE_MAX_CELLS 8

/* What a scene is made from. */
typedef struct SceneSetup {
    CollCall call;          /* the collective (its count is not used) */
    const AlgoInfo *algo;   /* its algorithm */
    uint64_t bytes;         /* the measured size (nccl-tests meaning) */
    int cells;              /* picture cells per block, 1..SCENE_MAX_CELLS */
    size_t count;           /* the picture's elements per block exactly,
                               as trace's -s gives them (a lesson's
                               scene); 0: from cells */
    const ExecOps *backend; /* where the picture runs; NULL: only
                               symbolically */
    const char *backend_params; /* its options (-B NAME:PARAMS, borrowed
                                   from the command line), or NULL */
    SpecMachine machine;    /* the machine the model prices on (-T's
                               spec; given "": full, the default, not a
                               what-if); a shape that does not hold the
                               ranks is made to. Built already for the
                               call's ranks, it is not parsed again */
    PricingMode pricing;    /* how the model adds the steps up (model.h;
                               0: lock-step, what the lessons rely on) */
    int chunks;             /* the picture's chunks for a pipelined
                               algorithm (AlgoInfo.pipelined; the key p):
                               its count is that many times the cells'
                               and each chunk one cell-sized piece; 0:
                               the algorithm's own rule */
} SceneSetup;

typedef struct Scene {
    /* ---- the picture */
    CollCall call;            /* the picture's call (small count) */
    const AlgoInfo *algo;     /* its algorithm */
    int cells;                /* cells per block (the count knob) */
    size_t count;             /* SceneSetup.count: an exact count, or 0 */
    int chunks;               /* SceneSetup.chunks where the algorithm
                                 takes them, else 0 */
    Schedule sched;           /* schedule of call by algo */
    Sim sim;                  /* symbolic state after `step` steps */
    size_t step;              /* steps executed: 0 .. sched.nsteps */
    uint8_t *written[BUF_COUNT]; /* per element: 0, or 1 + XferOp when the
                                    shown step wrote it */
    /* ---- real execution of the picture */
    const ExecOps *backend;   /* backend in use, or NULL */
    const char *backend_params; /* its options (SceneSetup), or NULL */
    Executor *ex;             /* its executor, loaded with sched; NULL
                                 when there is none or it failed to load */
    Check check;              /* real buffers read back and compared */
    bool broken;              /* the backend failed while stepping */
    double last_step_ms;      /* wall time of the last seek (execute, read
                                 back, check) on this machine */
    /* ---- the measured size */
    uint64_t bytes;           /* chosen size for counters and timed runs */
    CollCall big;             /* the call at that size */
    Schedule big_sched;       /* its schedule (counters, model) */
    bool big_ok;              /* big_sched has the picture's steps (a
                                 pipeline's steps depend on the size) */
    /* ---- counters of the shown step (from big_sched) */
    RankStepStats *stats;     /* [nranks] bytes of the shown step */
    size_t step_sent;         /* max bytes one rank sent in the step */
    size_t step_recvd;        /* max bytes one rank received in the step */
    size_t sofar_sent;        /* max over ranks of bytes sent up to now */
    size_t sofar_recvd;       /* max over ranks of bytes received so far */
    SchedTotals totals;       /* totals of the whole big schedule */
    /* ---- the model (predictor.h: every model number the TUI shows) */
    Predictor model;          /* the backend's calibration of this machine
                                 for these ranks when one is saved, else
                                 the plain model with the defaults */
    Value pred_step_s;        /* model time of the shown step of big_sched */
    Value pred_total_s;       /* model time of the whole big_sched */
    /* The predictor's answers the views draw, computed when the scene,
     * its calibration or its shown step changes, never while drawing. */
    PredSplit split_step;     /* the shown step's terms (pred_step_s.valid) */
    PredSplit split_whole;    /* every step's (split_whole_ok) */
    bool split_whole_ok;      /* split_whole could be priced */
    ModelParams params;       /* alpha, beta, gamma for big_sched */
    /* In data-flow (model.pricing) where it prices big_sched with the
     * picture's steps: each rank's clock after each step and the
     * lock-step time at each step's end (predictor_clocks), so the
     * timeline shows the ranks that run ahead; NULL otherwise. */
    double *flow_at;          /* [nsteps * nranks] the clocks, s */
    double *flow_lock;        /* [nsteps] lock-step's, s */
    /* ---- the machine (a what-if when the user named one) */
    SpecMachine machine;      /* it, for the call's ranks: .spec its name
                                 as -T gives it ("": full), .mach it */
    double *link_bytes;       /* [mach.nlinks] bytes on each link in the
                                 shown step of big_sched (NULL: full) */
    int *link_msgs;           /* [mach.nlinks] messages on each */
    int *link_order;          /* [mach.nlinks] the links carrying bytes in
                                 the shown step, most bytes first (then
                                 link order): the counters' per-link row */
    int link_nloaded;         /* how many of link_order there are */
    int link_busiest;         /* the link whose bytes took longest, -1 */
    double link_busy_share;   /* its bytes' time over the step's time */
    bool link_picture;        /* the loads are the picture's schedule's
                                 (its steps are not the size's: a
                                 pipeline's chunks follow the size) */
} Scene;

/* Elements per block of the picture for kind k on p ranks with `cells`
 * cells per block: vector kinds get cells * p elements (so every block of
 * an algorithm's partition is whole), per-block kinds get `cells`. */
size_t scene_picture_count(CollKind k, int p, int cells);

/* The chunk counts the key p steps through (1, 2, 4, 8, 16; 0: its own
 * rule), and the one after `chunks` for algorithm a (0 for one that is
 * not pipelined). */
#define SCENE_MAX_CHUNKS 16
int scene_next_chunks(const AlgoInfo *a, int chunks);

/* A new scene at step 0 in *out; on failure *out is NULL and *why says
 * why. A backend that opens but cannot load the picture leaves the scene
 * without an executor (it runs symbolically) and *why saying so; otherwise
 * *why is "" on success. */
CvError scene_new(Scene **out, const SceneSetup *set, char *why,
                  size_t whylen);
void scene_free(Scene *sc);

/* Replace *sc by a scene made from set, at step 0, reusing *sc's executor
 * when the backend and ranks are the same. Returns CV_OK once *sc is the
 * new scene (look at broken and *why as after scene_new and scene_seek);
 * otherwise *sc is unchanged and *why says why. */
CvError scene_remake(Scene **sc, const SceneSetup *set, char *why,
                     size_t whylen);

/* Price everything with calibration c from now on (the predictor of
 * predictor.h, the whole and the shown step's predictions). */
void scene_use_calib(Scene *sc, const Calib *c);

/* How far ahead of lock-step rank r starts step k, s: that step's
 * lock-step start less the rank's data-flow clock after step k - 1; 0
 * where it is not ahead (within rounding) or the scene has no clocks
 * (flow_at). */
double scene_ahead(const Scene *sc, int r, size_t k);

/* The setup *sc was made from. */
void scene_setup(const Scene *sc, SceneSetup *out);

/* The predictor's split of the shown step k (the one scene_shown gives)
 * or of the whole (PREDICTOR_WHOLE), as computed when the scene or its
 * step changed; NULL where it has none (N/A). */
const PredSplit *scene_split(const Scene *sc, size_t k);

/* Go to step k (clamped to 0 .. nsteps): forward by executing, backward by
 * reset and replay, symbolically and on the backend; then read back,
 * check, and recompute the counters. A backend failure breaks the scene. */
CvError scene_seek(Scene *sc, size_t k, char *why, size_t whylen);
/* Move by delta steps (clamped), as scene_seek. */
CvError scene_step(Scene *sc, int delta, char *why, size_t whylen);

/* Run the picture on backend ops instead (opened for the scene's ranks);
 * on failure the current one stays and *why says why. As with scene_new,
 * *why may report a backend that opened but could not load. */
CvError scene_set_backend(Scene *sc, const ExecOps *ops, char *why,
                          size_t whylen);

/* ------------------------------------------------------------ reading */

/* The step the picture shows: the last executed one. Returns false in the
 * initial state (step 0), when nothing has been executed yet. */
static inline bool scene_shown(const Scene *sc, size_t *k)
{
    if (sc->step == 0)
        return false;
    *k = sc->step - 1;
    return true;
}

/* Cells of rank r's buffer b in the picture (0 when the buffer is empty). */
static inline size_t scene_buf_cells(const Scene *sc, int r, BufId b)
{
    return sched_bufsize(&sc->sched, r, b);
}

/* Whether buffer b is drawn (send only out of place, tmp when used). */
bool scene_buf_shown(const Scene *sc, BufId b);

/* Real value of element i of rank r's buffer b (NAN when the real buffers
 * are not available), and the value the symbolic state says it holds
 * (NAN for an empty or mixed element). */
double scene_real_value(const Scene *sc, int r, BufId b, size_t i);
double scene_expected(const Scene *sc, int r, BufId b, size_t i);

#endif
