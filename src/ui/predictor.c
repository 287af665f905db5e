/* predictor.c - the one model the TUI shows (see predictor.h). */
#include "ui/predictor.h"

#include "cli/cli.h"

void predictor_defaults(Predictor *p)
{
    *p = (Predictor){.link = LINK_P2P,
                     .params = {.alpha = CLI_DEFAULT_ALPHA,
                                .beta = 1 / CLI_DEFAULT_BW,
                                .gamma = 1 / CLI_DEFAULT_GAMMA_BW}};
}

void predictor_calibrated(Predictor *p, const Calib *c)
{
    *p = (Predictor){.calibrated = true, .calib = *c, .link = c->link};
}

/* The plain model's parameters for s: the defaults, or the calibration's
 * at s's footprint. */
static ModelParams params_for(const Predictor *p, const Schedule *s)
{
    return p->calibrated
               ? calib_params(&p->calib, p->link, calib_footprint(s))
               : p->params;
}

Value predictor_total(const Predictor *p, const Schedule *s)
{
    double sec = 0;
    CvError e;
    if (p->calibrated) {
        e = calib_predict(&p->calib, s, p->link, &sec);
    } else {
        CostTerms t;
        e = model_schedule_cost(s, p->link, &p->params, &t);
        sec = e ? 0 : cost_time(&t, &p->params);
    }
    return (Value){e ? 0 : sec, !e};
}

Value predictor_step(const Predictor *p, const Schedule *s, size_t k)
{
    ModelParams m = params_for(p, s);
    if (k >= s->nsteps)
        return (Value){0, false};
    return (Value){model_step_time(s, k, p->link, &m), true};
}
