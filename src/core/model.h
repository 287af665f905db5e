/* model.h - the alpha-beta-gamma cost model.
 *
 * alpha: latency of one message (seconds); beta: seconds per byte moved;
 * gamma: seconds per byte reduced. Two link models:
 *  - LINK_P2P: each rank sends and receives at once at 1/beta (textbook);
 *    a step costs max over ranks of
 *      max(msgs_out, msgs_in) alpha + max(sent, recvd) beta + reduced gamma.
 *  - LINK_SHARED: all bytes of a step share one bandwidth 1/beta:
 *      max msgs alpha + (bytes moved by all ranks) beta + max reduced gamma.
 * Local copies (src == dst) are free in both. No I/O, no globals. */
#ifndef COLLVIZ_MODEL_H
#define COLLVIZ_MODEL_H

#include "core/sched.h"

typedef enum { LINK_P2P, LINK_SHARED, LINK_COUNT } LinkModel;

/* Machine parameters, in seconds and seconds per byte. */
typedef struct {
    double alpha; /* per message latency, s */
    double beta;  /* per byte transfer time, s/B */
    double gamma; /* per byte reduction time, s/B */
} ModelParams;

/* A cost as coefficients: time = a alpha + b beta + g gamma. */
typedef struct {
    double a;     /* number of latencies on the critical path */
    double b;     /* bytes on the critical path */
    double g;     /* bytes reduced on the critical path */
    double steps; /* steps of the schedule */
} CostTerms;

static inline double cost_time(const CostTerms *c, const ModelParams *m)
{
    return c->a * m->alpha + c->b * m->beta + c->g * m->gamma;
}

const char *link_name(LinkModel l);
int link_parse(const char *s);

/* Cost terms of a schedule under link model l, summed over its steps.
 * With m, each step contributes the terms of its slowest rank under m, so
 * cost_time(out, m) is the schedule's predicted time. With m == NULL each
 * term is the maximum over ranks taken separately (what closed forms
 * describe). */
CvError model_schedule_cost(const Schedule *s, LinkModel l,
                            const ModelParams *m, CostTerms *out);

/* The terms step k adds under l and m (as model_schedule_cost adds them),
 * and in *copy the bytes the busiest rank copies locally when the step
 * moves nothing between ranks (a local-only step, such as a copy-in:
 * free in the terms, priced by whoever knows the copy bandwidth). */
CvError model_step_cost(const Schedule *s, size_t k, LinkModel l,
                        const ModelParams *m, CostTerms *out, double *copy);

/* Time of one step k of a schedule (seconds) under l and m. */
double model_step_time(const Schedule *s, size_t k, LinkModel l,
                       const ModelParams *m);

/* Lower bound (Chan et al. 2007) for the call: ceil(log2 p) alpha and the
 * least bytes any algorithm must move and reduce per rank. */
void model_lower_bound(const CollCall *c, CostTerms *out);

/* ceil(log2(p)) for p >= 1. */
int model_log2_ceil(int p);

#endif
