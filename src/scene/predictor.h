/* predictor.h - the one model the TUI shows. Every predicted time on the
 * screen (the counters' step and whole, the chart's curve through the
 * chosen size and through every point of a sweep) comes from here, by one
 * rule: with a calibration of this machine loaded, the calibrated
 * predictor (calib_predict: the backend's own, ExecOps.predict, else the
 * plain model at the schedule's footprint), as perf's model line; else
 * the plain model (model.h) with the documented default parameters
 * (spec.h's SPEC_DEFAULT_*) on the machine full.
 * With a machine the user named (-T, the machine menu) every time is that
 * machine's, a what-if, calibrated or not. A Scene holds one and hands a
 * copy to each background job. Pure: no I/O, no globals. */
#ifndef COLLVIZ_SCENE_PREDICTOR_H
#define COLLVIZ_SCENE_PREDICTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "core/model.h"
#include "core/sched.h"
#include "measure/calib.h"
#include "scene/value.h"

/* Which model, and its parameters. */
typedef struct {
    bool calibrated;    /* calib holds this machine's calibration */
    Calib calib;        /* the calibration, when calibrated */
    MachineKind machine; /* the calibration's machine (calib_machine), else
                           MACHINE_FULL */
    ModelParams params; /* without a calibration: the default alpha, beta,
                           gamma (with one: unused, calib_params gives them
                           at each schedule's footprint) */
    bool what_if;       /* price on mach, a machine the user named */
    Machine mach;       /* with what_if */
    PricingMode pricing; /* how the whole's steps add up (model.h; 0:
                            lock-step): predictor_total and the whole's
                            split; a step is priced alone either way */
} Predictor;

/* A predicted time split into the terms of the formula, so that the one
 * that dominates can be pointed at. Steps are priced as model.h prices
 * them for `collviz model` and `trace`: local copies (a rank copying its
 * input into place) cross no link and are free. */
typedef struct {
    CostTerms t;  /* latencies, bytes moved, bytes reduced */
    ModelParams m;/* alpha, beta, gamma they are priced with */
    double time;  /* t.a alpha + t.b beta + t.g gamma (+ hop latencies on
                     a what-if machine), s */
    double part[3]; /* time's alpha part (with hop latencies), beta part,
                       gamma part, s */
    int busiest;  /* a what-if machine's link whose bytes took longest
                     (over the steps: in all), or -1 */
    double lockstep; /* the steps' times summed, s: time in lock-step;
                        with the terms and parts, lock-step's either way */
    PricingMode priced; /* the mode that priced time (the whole in
                           data-flow where the core can: pricer_flow_start;
                           else lock-step) */
} PredSplit;

/* The plain model with the default parameters. */
void predictor_defaults(Predictor *p);
/* The calibrated predictor of calibration c. */
void predictor_calibrated(Predictor *p, const Calib *c);
/* Price on machine m from now on (what_if), or stop (m == NULL). */
void predictor_machine(Predictor *p, const Machine *m);

/* The model's band, relative (0.12: +-12%): the worst error of the
 * calibration's own check of the machine it fitted (Calib.fit_err), or
 * -1 where there is none (the defaults, a what-if machine, a file
 * without it). */
double predictor_band(const Predictor *p);

/* Predicted seconds of the whole schedule s (not valid when the model
 * cannot price it), in p->pricing where it can price so: with a
 * calibration of this machine (not a what-if) calib_predict's, which is
 * lock-step. */
Value predictor_total(const Predictor *p, const Schedule *s);

/* Predicted seconds of step k of s. calib_predict prices a whole schedule
 * only, so with a calibration a step's time is the plain model's with the
 * calibration's parameters at s's footprint (calib_params): the steps'
 * breakdown, while the whole is predictor_total's. Without one both are
 * the plain model's, and the steps add up to the whole; local-only steps
 * as PredSplit says. */
Value predictor_step(const Predictor *p, const Schedule *s, size_t k);

/* Why data-flow gives way to lock-step for the whole of s under p (in
 * data-flow mode), or PRED_FLOWS where it does not. */
typedef enum {
    PRED_FLOWS,      /* data-flow prices (or lock-step was asked) */
    PRED_LOCK_CALIB, /* the calibration predicts the steps lock-step */
    PRED_LOCK_MEMORY, /* a memory machine: its steps have no messages */
    PRED_LOCK_LARGE, /* a schedule too large to write out */
    PRED_LOCK_COUNT
} PredLock;
PredLock predictor_lock_why(const Predictor *p, const PredSplit *whole);

/* The data-flow clocks of s after each step under p in p->pricing, as
 * pricer_flow_clocks gives them (at: [nsteps * nranks], lock: [nsteps]),
 * on the machine predictor_split prices on; *priced says which mode
 * priced. */
CvError predictor_clocks(const Predictor *p, const Schedule *s, double *at,
                         double *lock, PricingMode *priced);

/* alpha, beta and gamma the predictor prices s with. */
ModelParams predictor_params(const Predictor *p, const Schedule *s);

/* Step k's split (k == PREDICTOR_WHOLE: the sum over every step). */
#define PREDICTOR_WHOLE ((size_t)-1)
CvError predictor_split(const Predictor *p, const Schedule *s, size_t k,
                        PredSplit *out);

#endif
