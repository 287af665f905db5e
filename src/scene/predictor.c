/* predictor.c - the one model the TUI shows (see predictor.h). */
#include "scene/predictor.h"

#include <math.h>
#include <stdlib.h>

#include "scene/spec.h"

void predictor_defaults(Predictor *p)
{
    *p = (Predictor){.machine = MACHINE_FULL,
                     .params = {.alpha = SPEC_DEFAULT_ALPHA,
                                .beta = 1 / SPEC_DEFAULT_BW,
                                .gamma = 1 / SPEC_DEFAULT_GAMMA_BW}};
}

void predictor_calibrated(Predictor *p, const Calib *c)
{
    bool w = p->what_if;
    Machine m = p->mach;
    PricingMode pm = p->pricing;
    *p = (Predictor){.calibrated = true, .calib = *c, .machine = c->machine,
                     .what_if = w, .mach = m, .pricing = pm};
}

double predictor_band(const Predictor *p)
{
    if (!p->calibrated || p->what_if)
        return -1;
    double e = p->calib.fit_err[p->machine];
    return e > 0 && isfinite(e) ? e : -1;
}

void predictor_machine(Predictor *p, const Machine *m)
{
    p->what_if = m != NULL;
    if (m)
        p->mach = *m;
}

ModelParams predictor_params(const Predictor *p, const Schedule *s)
{
    return p->calibrated
               ? calib_params(&p->calib, p->machine, calib_footprint(s))
               : p->params;
}

/* Steps k0 .. k1 (exclusive) on machine m, one pricer for them all, the
 * whole (every step) in `mode`; busy (nlinks) sums each link's busy time
 * to name the busiest. */
static CvError add_steps(const Machine *m, const Schedule *s, size_t k0,
                         size_t k1, PricingMode mode, PredSplit *out)
{
    Pricer pr;
    double *busy = calloc((size_t)m->nlinks + 1, sizeof *busy), top = 0;
    CvError e = busy ? pricer_init(&pr, m) : CV_ERR_NOMEM;
    if (e) {
        free(busy);
        return e;
    }
    /* the clocks move with each step priced: every step, written out */
    bool whole = k0 == 0 && k1 == s->nsteps && !s->compact;
    pricer_flow_start(&pr, s, whole ? mode : PRICING_LOCKSTEP);
    for (size_t k = k0; k < k1 && !e; k++) {
        StepPrice sp;
        e = price_step(&pr, s, k, false, &sp);
        out->t.a += sp.terms.a, out->t.b += sp.terms.b, out->t.g += sp.terms.g;
        out->t.steps += sp.terms.steps;
        out->part[0] += sp.t_alpha + sp.t_lat;
        out->part[1] += sp.t_beta;
        out->part[2] += sp.time - sp.t_alpha - sp.t_lat - sp.t_beta;
        out->time += sp.time;
        for (int i = 0; i < pr.ntouched; i++) {
            int l = pr.touched[i];
            busy[l] += pr.bytes[l] * m->cls[machine_link_class(m, l)].beta;
        }
    }
    out->lockstep = out->time;
    if (pr.flowing)
        out->time = pr.flow_time, out->priced = PRICING_DATAFLOW;
    for (int l = 0; l < m->nlinks; l++)
        if (busy[l] > top)
            top = busy[l], out->busiest = l;
    pricer_fini(&pr);
    free(busy);
    return e;
}

/* The machine p prices s on: the what-if's, else the calibration's at
 * s's footprint or full's under *mp (*m filled; *out points at it). */
static CvError pred_machine(const Predictor *p, const Schedule *s,
                            const ModelParams *mp, Machine *m,
                            const Machine **out)
{
    *out = p->what_if ? &p->mach : m;
    if (p->what_if)
        return p->mach.nranks == s->call.nranks ? CV_OK : CV_ERR_ARG;
    return p->calibrated ? calib_machine_of(&p->calib, p->machine,
                                            calib_footprint(s), m)
                         : model_flat_machine(m, p->machine, s->call.nranks,
                                              mp);
}

/* The mode p prices the whole in: a calibration of this machine predicts
 * it lock-step (predictor_total's calib_predict). */
static PricingMode pred_mode(const Predictor *p)
{
    return p->calibrated && !p->what_if ? PRICING_LOCKSTEP : p->pricing;
}

CvError predictor_split(const Predictor *p, const Schedule *s, size_t k,
                        PredSplit *out)
{
    *out = (PredSplit){.m = predictor_params(p, s), .busiest = -1,
                       .priced = PRICING_LOCKSTEP};
    if (k != PREDICTOR_WHOLE && k >= s->nsteps)
        return CV_ERR_ARG;
    size_t k0 = k == PREDICTOR_WHOLE ? 0 : k;
    size_t k1 = k == PREDICTOR_WHOLE ? s->nsteps : k + 1;
    Machine mc; /* the calibration's at s's footprint, or full's */
    const Machine *m;
    CvError e = pred_machine(p, s, &out->m, &mc, &m);
    return e ? e : add_steps(m, s, k0, k1, pred_mode(p), out);
}

CvError predictor_clocks(const Predictor *p, const Schedule *s, double *at,
                         double *lock, PricingMode *priced)
{
    ModelParams mp = predictor_params(p, s);
    Machine mc;
    const Machine *m;
    Pricer pr;
    *priced = PRICING_LOCKSTEP;
    CvError e = pred_machine(p, s, &mp, &mc, &m);
    if (!e && !(e = pricer_init(&pr, m))) {
        e = pricer_flow_clocks(&pr, s, pred_mode(p), at, lock, priced);
        pricer_fini(&pr);
    }
    return e;
}

PredLock predictor_lock_why(const Predictor *p, const PredSplit *whole)
{
    if (p->pricing == PRICING_LOCKSTEP || whole->priced == p->pricing)
        return PRED_FLOWS;
    if (p->calibrated && !p->what_if)
        return PRED_LOCK_CALIB;
    return p->what_if && machine_is_memory(&p->mach) ? PRED_LOCK_MEMORY
                                                      : PRED_LOCK_LARGE;
}

Value predictor_total(const Predictor *p, const Schedule *s)
{
    double sec = 0;
    CvError e;
    if (p->calibrated && !p->what_if) {
        e = calib_predict(&p->calib, s, p->machine, &sec);
    } else {
        PredSplit sp;
        e = predictor_split(p, s, PREDICTOR_WHOLE, &sp);
        sec = sp.time;
    }
    return (Value){e ? 0 : sec, !e};
}

Value predictor_step(const Predictor *p, const Schedule *s, size_t k)
{
    PredSplit sp;
    if (predictor_split(p, s, k, &sp))
        return (Value){0, false};
    return (Value){sp.time, true};
}
