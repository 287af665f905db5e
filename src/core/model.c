/* model.c - alpha-beta-gamma costs of schedules, and lower bounds. */
#include "core/model.h"

#include <stdlib.h>
#include <strings.h>

static const char *const link_names[LINK_COUNT] = {
    [LINK_P2P] = "p2p", [LINK_SHARED] = "shared",
};

const char *link_name(LinkModel l) { return l < LINK_COUNT ? link_names[l] : "?"; }

int link_parse(const char *s)
{
    for (int l = 0; s && l < LINK_COUNT; l++)
        if (!strcasecmp(s, link_names[l]))
            return l;
    return -1;
}

int model_log2_ceil(int p)
{
    int k = 0;
    while (p > 1 && (1 << k) < p)
        k++;
    return k;
}

static double dmax(double a, double b) { return a > b ? a : b; }

/* One rank's terms in a step under link model l; `moved` is the step's
 * bytes moved between ranks (for LINK_SHARED). */
static CostTerms rank_terms(const RankStepStats *r, LinkModel l, double moved)
{
    CostTerms c = {0};
    c.a = r->msgs_out > r->msgs_in ? r->msgs_out : r->msgs_in;
    c.b = l == LINK_SHARED ? (c.a > 0 ? moved : 0)
                           : dmax((double)r->sent, (double)r->recvd);
    c.g = (double)r->reduced;
    return c;
}

/* The terms step k adds: from its slowest rank under m, or each term's
 * maximum when m is NULL. */
static CostTerms step_terms(const RankStepStats *st, int p, LinkModel l,
                            const ModelParams *m)
{
    double moved = 0;
    int remote = 0;
    for (int r = 0; r < p; r++) {
        moved += (double)st[r].sent;
        remote |= st[r].msgs_out > 0;
    }
    CostTerms best = {0};
    double best_t = -1;
    for (int r = 0; r < p; r++) {
        CostTerms c = rank_terms(&st[r], l, moved);
        if (m) {
            double t = cost_time(&c, m);
            if (t > best_t)
                best_t = t, best = c;
        } else {
            best.a = dmax(best.a, c.a);
            best.b = dmax(best.b, c.b);
            best.g = dmax(best.g, c.g);
        }
    }
    best.steps = remote ? 1 : 0;
    return best;
}

CvError model_schedule_cost(const Schedule *s, LinkModel l,
                            const ModelParams *m, CostTerms *out)
{
    int p = s->call.nranks;
    *out = (CostTerms){0};
    RankStepStats *st = malloc((size_t)p * sizeof *st);
    if (!st)
        return CV_ERR_NOMEM;
    CvError e = CV_OK;
    for (size_t k = 0; k < s->nsteps && !e; k++) {
        e = sched_step_stats(s, k, st);
        CostTerms c = step_terms(st, p, l, m);
        out->a += c.a, out->b += c.b, out->g += c.g, out->steps += c.steps;
    }
    free(st);
    return e;
}

CvError model_step_cost(const Schedule *s, size_t k, LinkModel l,
                        const ModelParams *m, CostTerms *out, double *copy)
{
    int p = s->call.nranks;
    *out = (CostTerms){0};
    *copy = 0;
    RankStepStats *st = malloc((size_t)p * sizeof *st);
    if (!st)
        return CV_ERR_NOMEM;
    CvError e = k < s->nsteps ? sched_step_stats(s, k, st) : CV_ERR_ARG;
    if (!e) {
        *out = step_terms(st, p, l, m);
        for (int r = 0; r < p && out->steps == 0; r++)
            *copy = dmax(*copy, (double)st[r].copied);
    }
    free(st);
    return e;
}

double model_step_time(const Schedule *s, size_t k, LinkModel l,
                       const ModelParams *m)
{
    CostTerms c;
    double copy;
    if (model_step_cost(s, k, l, m, &c, &copy))
        return -1;
    return cost_time(&c, m);
}

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
    default: break;
    }
}
