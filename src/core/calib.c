/* calib.c - what follows from a calibration alone (calib.h). */
#include "core/calib.h"

#include <math.h>
#include <stddef.h>

void calib_smooth(Calib *c)
{
    static const size_t field[] = {offsetof(CalibPoint, gamma_shared),
                                   offsetof(CalibPoint, gamma_p2p)};
    double v[CALIB_MAX_POINTS];
    int n = c->npoints < CALIB_MAX_POINTS ? c->npoints : CALIB_MAX_POINTS;
    for (size_t f = 0; f < sizeof field / sizeof field[0]; f++) {
#define GAMMA(i) (*(double *)((char *)&c->pt[i] + field[f]))
        for (int i = 0; i < n; i++) /* rising = falling, negated */
            v[i] = -GAMMA(i);
        calib_monotone_down(v, n);
        for (int i = 0; i < n; i++)
            GAMMA(i) = -v[i];
#undef GAMMA
    }
}

void calib_monotone_down(double *w, int n)
{
    double sum[CALIB_MAX_POINTS];
    int len[CALIB_MAX_POINTS], blocks = 0;
    for (int i = 0; i < n; i++) {
        sum[blocks] = w[i], len[blocks++] = 1;
        while (blocks > 1 && sum[blocks - 1] / len[blocks - 1] >
                                 sum[blocks - 2] / len[blocks - 2]) {
            sum[blocks - 2] += sum[blocks - 1];
            len[blocks - 2] += len[blocks - 1];
            blocks--;
        }
    }
    for (int b = 0, i = 0; b < blocks; b++)
        for (int k = 0; k < len[b]; k++)
            w[i++] = sum[b] / len[b];
}

double calib_spread(const double *v, int n)
{
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < n; i++) {
        if (!(v[i] > 0))
            return 0;
        lo = fmin(lo, v[i]), hi = fmax(hi, v[i]);
    }
    return n > 0 ? hi / lo : 0;
}

int calib_crowded(const Calib *c)
{
    return c->cores > 0 && c->nranks > c->cores;
}

double calib_footprint(const Schedule *s)
{
    return (double)sched_bytes(s);
}

/* Linear interpolation in log(footprint) of field `off` of the points. */
static double interp(const Calib *c, double f, size_t off)
{
    const CalibPoint *pt = c->pt;
#define FIELD(i) (*(const double *)((const char *)&pt[i] + off))
    if (c->npoints < 1)
        return 0;
    if (f <= pt[0].footprint || c->npoints == 1)
        return FIELD(0);
    for (int i = 1; i < c->npoints; i++) {
        if (f <= pt[i].footprint) {
            double w = log(f / pt[i - 1].footprint) /
                       log(pt[i].footprint / pt[i - 1].footprint);
            return FIELD(i - 1) + w * (FIELD(i) - FIELD(i - 1));
        }
    }
    return FIELD(c->npoints - 1);
#undef FIELD
}

ModelParams calib_params(const Calib *c, LinkModel l, double footprint)
{
    int sh = l == LINK_SHARED;
    ModelParams m = {.alpha = c->alpha};
    m.beta = interp(c, footprint, sh ? offsetof(CalibPoint, beta_shared)
                                     : offsetof(CalibPoint, beta_p2p));
    m.gamma = interp(c, footprint, sh ? offsetof(CalibPoint, gamma_shared)
                                      : offsetof(CalibPoint, gamma_p2p));
    return m;
}

CvError calib_machine(const Calib *c, double footprint, Machine *out)
{
    ModelParams m = calib_params(c, c->link, footprint);
    return model_flat_machine(out, c->link, c->nranks, &m);
}

const char *calib_machine_name(LinkModel l)
{
    return l == LINK_SHARED ? "bus" : "full";
}

CvError calib_model_cost(const Calib *c, const Schedule *s, LinkModel l,
                         double *seconds)
{
    ModelParams m = calib_params(c, l, calib_footprint(s));
    CostTerms t;
    CvError e = model_schedule_cost(s, l, &m, &t);
    *seconds = e ? 0 : cost_time(&t, &m);
    return e;
}
