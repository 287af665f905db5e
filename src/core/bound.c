/* bound.c - the least time any schedule of a call can take (model.h):
 * Chan et al.'s on the textbook's machines, and the bound of the machine
 * at hand. */
#include "core/model.h"

#include <math.h>
#include <stdint.h>

void model_lower_bound(const CollCall *c, CostTerms *out)
{
    double p = c->nranks, ts = (double)dtype_size(c->dtype);
    double blk = (double)c->count * ts;  /* one block */
    double frac = (p - 1) / p;
    *out = (CostTerms){0};
    if (c->nranks <= 1 || c->count == 0)
        return;
    out->a = model_log2_ceil(c->nranks);
    out->steps = out->a;
    switch (c->kind) {
    case COLL_BROADCAST: out->b = blk; break;
    case COLL_REDUCE: out->b = blk; out->g = frac * blk; break;
    case COLL_SCATTER:
    case COLL_GATHER:
    case COLL_ALLGATHER: out->b = frac * p * blk; break;
    case COLL_REDUCESCATTER:
        out->b = frac * p * blk;
        out->g = frac * p * blk;
        break;
    case COLL_ALLREDUCE:
        out->b = 2 * frac * blk;
        out->g = frac * blk;
        break;
    case COLL_ALLTOALL: out->b = frac * p * blk; break;
    case COLL_HYPERCUBE: out->b = frac * p * blk; break; /* an allgather */
    case COLL_SENDRECV:
        /* From the definition, not from Chan et al.: each rank needs one
         * block that only its left neighbour holds, so one message of blk
         * bytes is needed and enough (one alpha, one step). */
        out->a = 1;
        out->steps = 1;
        out->b = blk;
        break;
    case COLL_COUNT: break;
    }
}

/* ------------------------------------------------ a machine's bound */

/* Output elements of c that some transfer must write: every output
 * element but those that hold their value from the start (in place, a
 * rank's own input already where its output wants it). */
static double writes_needed(const CollCall *c)
{
    double w = 0;
    for (int r = 0; r < c->nranks; r++) {
        CollLayout l;
        coll_layout(c, r, &l);
        for (size_t j = 0; j < l.out_count;) {
            CollExpect e;
            coll_expect(c, r, j, &e);
            size_t run = e.run == SIZE_MAX || e.run > l.out_count - j
                             ? l.out_count - j : e.run;
            bool there = c->in_place && !e.all_ranks && e.rank == r &&
                         l.in_buf == l.out_buf &&
                         l.out_off + j == l.in_off + e.pos;
            w += there ? 0 : (double)run;
            j += run ? run : 1;
        }
    }
    return w;
}

/* The least seconds per byte of traffic a schedule of c can see on ml:
 * its buffers take at least the call's own, and the rate at any
 * footprint from there on is no faster than the fastest of the curve
 * beyond it (the two rates: the one at f, which only slows beyond). */
static double mem_beta_floor(const MemLevel *ml, double f)
{
    double lo = machine_mem_beta(ml, f);
    lo = lo < ml->beta_mem ? lo : ml->beta_mem;
    for (int i = 0; i < ml->npts && i < MEM_MAX_PTS; i++)
        if (ml->fp[i] >= f && ml->beta[i] < lo)
            lo = ml->beta[i];
    return lo;
}

/* Links into one rank: a ring's or mesh line's 2 (1 for 2 members), a
 * fully connected line's d - 1, a switch's 1. */
static int rank_links(const Machine *m)
{
    int l = 0;
    for (int i = 0; i < m->ndims; i++) {
        const MachineDim *d = &m->dim[i];
        if (d->size < 2)
            continue;
        switch (d->kind) {
        case DIM_RING:
        case DIM_MESH: l += d->size == 2 ? 1 : 2; break;
        case DIM_FULL: l += d->size - 1; break;
        case DIM_SWITCH: l += 1; break;
        case DIM_KIND_COUNT: break;
        }
    }
    return l > 0 ? l : 1;
}

bool model_machine_bound(const CollCall *c, const Machine *m, double *seconds)
{
    CostTerms lb;
    ModelParams mp;
    *seconds = 0;
    if (machine_is_memory(m)) {
        double es = (double)dtype_size(c->dtype), w = writes_needed(c);
        double f = (double)coll_cells(c) * es;
        if (w > 0)
            *seconds = m->mem.call + m->mem.step +
                       w * es * mem_beta_floor(&m->mem, f);
        return true;
    }
    model_lower_bound(c, &lb);
    if ((m->kind == MACHINE_FULL || m->kind == MACHINE_BUS) &&
        model_machine_uniform(m, &mp)) {
        *seconds = cost_time(&lb, &mp);
        return true;
    }
    if (machine_has_reducing_switch(m) || m->kind == MACHINE_BUS)
        return false; /* a switch's sums: no honest bound here */
    /* a rank's L links: information reaches at most L + 1 times as many
       ranks a step, and its bytes spread over L links at best */
    double alpha = INFINITY, beta = INFINITY;
    for (int i = 0; i < m->ncls; i++) {
        alpha = m->cls[i].alpha < alpha ? m->cls[i].alpha : alpha;
        beta = m->cls[i].beta < beta ? m->cls[i].beta : beta;
    }
    int L = rank_links(m), steps = 0;
    for (long long reach = 1; reach < c->nranks; reach *= L + 1)
        steps++;
    /* (Chan's count where it is fewer: a sendrecv's one step) */
    *seconds = (lb.a < steps ? lb.a : steps) * alpha + lb.b / L * beta +
               lb.g * m->gamma;
    return true;
}
