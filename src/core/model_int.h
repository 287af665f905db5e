/* model_int.h - what the two files of the model's pricing share
 * (model.c: the links; model_mem.c: a memory machine's steps). Not for
 * use outside src/core. */
#ifndef COLLVIZ_CORE_MODEL_INT_H
#define COLLVIZ_CORE_MODEL_INT_H

#include "core/model.h"

static inline double dmax(double a, double b) { return a > b ? a : b; }

/* Room for n pairs and 2n claims in pr->scratch (2 spans a transfer). */
CvError pricer_scratch_fit(Pricer *pr, size_t n);
/* Forget the last step's loads of links and ranks. */
void pricer_clear_loads(Pricer *pr);
/* Add local work to rank r's reduced, copied or moved bytes (at). */
void pricer_rank_work(Pricer *pr, double *at, int r, double bytes);
/* Note link l as loaded in this step (before its first bytes). */
void pricer_touch(Pricer *pr, int l);

/* Price the transfers xs[0 .. nx) of a step of s on pr's memory machine
 * (first: the call's first step, which pays its start). */
CvError pricer_memory_step(Pricer *pr, const Schedule *s, const Transfer *xs,
                           size_t nx, bool first, bool terms_only,
                           StepPrice *out);

#endif
