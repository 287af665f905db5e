/* flat.c - the textbook's two flat machines, full and bus (model.h):
 * building them and pricing a schedule's steps on them by the one rule. */
#include "core/model.h"

/* ---------------------------------------------------- the flat machines */

bool model_flat_kind(MachineKind k)
{
    return k == MACHINE_FULL || k == MACHINE_BUS;
}

CvError model_flat_machine(Machine *mc, MachineKind k, int p,
                           const ModelParams *m)
{
    ModelParams one = {1, 1, 1};
    if (!m)
        m = &one;
    if (!model_flat_kind(k))
        return CV_ERR_ARG;
    return k == MACHINE_BUS ? machine_bus(mc, p, m->alpha, m->beta, m->gamma)
                            : machine_full(mc, p, m->alpha, m->beta, m->gamma);
}

CvError model_schedule_cost(const Schedule *s, MachineKind k,
                            const ModelParams *m, CostTerms *out)
{
    Machine mc;
    CvError e = model_flat_machine(&mc, k, s->call.nranks, m);
    if (e) {
        *out = (CostTerms){0};
        return e;
    }
    return model_machine_cost(s, &mc, m == NULL, out, NULL);
}

CvError model_step_cost(const Schedule *s, size_t k, MachineKind f,
                        const ModelParams *m, CostTerms *out, double *copy)
{
    Machine mc;
    Pricer pr;
    StepPrice sp = {0};
    CvError e = model_flat_machine(&mc, f, s->call.nranks, m);
    if (!e)
        e = pricer_init(&pr, &mc);
    if (!e) {
        e = price_step(&pr, s, k, m == NULL, &sp);
        pricer_fini(&pr);
    }
    *out = sp.terms;
    *copy = sp.terms.steps ? 0 : sp.copied;
    return e;
}

double model_step_time(const Schedule *s, size_t k, MachineKind f,
                       const ModelParams *m)
{
    CostTerms c;
    double copy;
    if (model_step_cost(s, k, f, m, &c, &copy))
        return -1;
    return cost_time(&c, m);
}
