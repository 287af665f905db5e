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

ModelParams predictor_params(const Predictor *p, const Schedule *s)
{
    return p->calibrated
               ? calib_params(&p->calib, p->link, calib_footprint(s))
               : p->params;
}

/* Add step k's terms to *out. */
static CvError add_step(const Predictor *p, const Schedule *s, size_t k,
                        PredSplit *out)
{
    CostTerms t;
    double copy;
    CvError e = model_step_cost(s, k, p->link, &out->m, &t, &copy);
    if (e)
        return e;
    out->t.a += t.a, out->t.b += t.b, out->t.g += t.g;
    out->t.steps += t.steps;
    out->time += cost_time(&t, &out->m);
    return CV_OK;
}

CvError predictor_split(const Predictor *p, const Schedule *s, size_t k,
                        PredSplit *out)
{
    *out = (PredSplit){.m = predictor_params(p, s)};
    if (k != PREDICTOR_WHOLE)
        return k < s->nsteps ? add_step(p, s, k, out) : CV_ERR_ARG;
    CvError e = CV_OK;
    for (size_t i = 0; i < s->nsteps && !e; i++)
        e = add_step(p, s, i, out);
    return e;
}

Value predictor_total(const Predictor *p, const Schedule *s)
{
    double sec = 0;
    CvError e;
    if (p->calibrated) {
        e = calib_predict(&p->calib, s, p->link, &sec);
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
