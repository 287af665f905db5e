/* check.c - the picture's real buffers against the theory: after each step
 * every element is compared with what the symbolic state says it holds.
 * Inputs are exactly verifiable (data.h), so the comparison is bit for bit
 * (avg's final division aside). Unlike verify_state() (verify.h), it keeps
 * a flag per element for the picture and caches the expected values, so a
 * step costs only the elements it wrote. */
#include "ui/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/data.h"

/* Expected bits per element, valid for the state after `step` steps. */
struct CheckCache {
    uint64_t *want[BUF_COUNT]; /* [elem_base + i]: expected bits */
    uint8_t *ok[BUF_COUNT];    /* [elem_base + i]: 1 when want is checkable */
    uint8_t *dirty[BUF_COUNT]; /* scratch: elements to recompute */
    bool valid;                /* want holds the state after `step` */
};

/* ------------------------------------------------------------ life */

static void cache_free(CheckCache *c)
{
    for (int b = 0; c && b < BUF_COUNT; b++) {
        free(c->want[b]);
        free(c->ok[b]);
        free(c->dirty[b]);
    }
    free(c);
}

static CheckCache *cache_new(const Sim *sim)
{
    CheckCache *c = calloc(1, sizeof *c);
    for (int b = 0; c && b < BUF_COUNT; b++) {
        size_t n = sim->base[b][sim->nranks] + 1;
        c->want[b] = malloc(n * sizeof(uint64_t));
        c->ok[b] = calloc(n, 1);
        c->dirty[b] = calloc(n, 1);
        if (!c->want[b] || !c->ok[b] || !c->dirty[b]) {
            cache_free(c);
            return NULL;
        }
    }
    return c;
}

CvError check_init(Check *c, const Sim *sim)
{
    size_t ts = dtype_size(sim->sched->call.dtype);
    memset(c, 0, sizeof *c);
    for (int b = 0; b < BUF_COUNT; b++) {
        size_t n = sim->base[b][sim->nranks] + 1;
        c->real[b] = calloc(n, ts);
        c->bad[b] = calloc(n, 1);
        if (!c->real[b] || !c->bad[b])
            return CV_ERR_NOMEM;
    }
    c->cache = cache_new(sim);
    return c->cache ? CV_OK : CV_ERR_NOMEM;
}

void check_fini(Check *c)
{
    for (int b = 0; b < BUF_COUNT; b++) {
        free(c->real[b]);
        free(c->bad[b]);
    }
    cache_free(c->cache);
    memset(c, 0, sizeof *c);
}

/* ------------------------------------------------------------ reading */

CvError check_read_back(Check *c, const Sim *sim, const ExecOps *ops,
                        Executor *ex)
{
    const Schedule *s = sim->sched;
    size_t ts = dtype_size(s->call.dtype);
    c->real_ok = false;
    for (int r = 0; r < s->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++) {
            size_t n = sched_bufsize(s, r, (BufId)b);
            uint8_t *dst = c->real[b] + sim->base[b][r] * ts;
            CvError e = n ? ops->read(ex, r, (BufId)b, 0, n, dst) : CV_OK;
            if (e)
                return e;
        }
    c->real_ok = true;
    return CV_OK;
}

double check_real(const Check *c, const Sim *sim, int r, BufId b, size_t i)
{
    DataType t = sim->sched->call.dtype;
    if (!c->real_ok)
        return NAN;
    return data_to_double(t, data_load(t, c->real[b], sim->base[b][r] + i));
}

/* ------------------------------------------------------------ expecting */

/* Whether element i of rank r's buffer b has had avg's final division:
 * the run is complete and the element is part of the rank's output. */
static bool finished(const Sim *sim, size_t step, int r, BufId b, size_t i)
{
    const CollCall *call = &sim->sched->call;
    if (step < sim->sched->nsteps || !coll_is_reducing(call->kind))
        return false;
    CollLayout l;
    coll_layout(call, r, &l);
    return b == l.out_buf && i >= l.out_off && i < l.out_off + l.out_count;
}

/* The bits the symbolic state says the element holds; false when it holds
 * nothing checkable (empty, or positions mixed by a broken schedule). */
static bool expected_bits(const Sim *sim, size_t step, int r, BufId b,
                          size_t i, uint64_t *bits)
{
    int32_t pos = sim_pos(sim, r, b, i);
    if (pos < 0)
        return false;
    *bits = data_expect(&sim->sched->call, (size_t)pos,
                        sim_set(sim, r, b, i), sim->words,
                        finished(sim, step, r, b, i));
    return true;
}

double check_want(const Sim *sim, size_t step, int r, BufId b, size_t i)
{
    uint64_t bits;
    if (!expected_bits(sim, step, r, b, i, &bits))
        return NAN;
    return data_to_double(sim->sched->call.dtype, bits);
}

/* ------------------------------------------------------------ comparing */

/* Mark what steps [lo, hi) wrote; with avg, crossing the end also changes
 * the outputs (the final division). */
static void mark_dirty(CheckCache *c, const Sim *sim, size_t lo, size_t hi)
{
    const Schedule *s = sim->sched;
    for (size_t k = lo; k < hi; k++)
        for (size_t x = s->steps[k].first;
             x < s->steps[k].first + s->steps[k].n; x++) {
            const Transfer *t = &s->xfers[x];
            memset(c->dirty[t->dst_buf] + sim->base[t->dst_buf][t->dst] +
                   t->dst_off, 1, t->count);
        }
    if (s->call.op != OP_AVG || hi < s->nsteps)
        return;
    for (int r = 0; r < s->call.nranks; r++) {
        CollLayout l;
        coll_layout(&s->call, r, &l);
        memset(c->dirty[l.out_buf] + sim->base[l.out_buf][r] + l.out_off, 1,
               l.out_count);
    }
}

/* Recompute the expected bits of the dirty elements (all when `all`). */
static void refresh(CheckCache *c, const Sim *sim, size_t step, bool all)
{
    const Schedule *s = sim->sched;
    for (int r = 0; r < s->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++)
            for (size_t i = 0; i < sched_bufsize(s, r, (BufId)b); i++) {
                size_t at = sim->base[b][r] + i;
                if (!all && !c->dirty[b][at])
                    continue;
                c->dirty[b][at] = 0;
                c->ok[b][at] = expected_bits(sim, step, r, (BufId)b, i,
                                             &c->want[b][at]);
            }
}

/* Flag every element whose real value differs from the cached one. */
static void flag_wrong(Check *c, const Sim *sim, size_t step)
{
    const Schedule *s = sim->sched;
    const CheckCache *cc = c->cache;
    for (int r = 0; r < s->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++)
            for (size_t i = 0; i < sched_bufsize(s, r, (BufId)b); i++) {
                size_t at = sim->base[b][r] + i;
                uint64_t got = data_load(s->call.dtype, c->real[b], at);
                if (cc->ok[b][at] &&
                    !data_equal(&s->call, got, cc->want[b][at],
                                finished(sim, step, r, (BufId)b, i))) {
                    c->bad[b][at] = 1;
                    c->nwrong++;
                }
            }
}

void check_compare(Check *c, const Sim *sim, size_t step, size_t from)
{
    const Schedule *s = sim->sched;
    size_t lo = from < step ? from : step, hi = from < step ? step : from;
    bool all = !c->cache->valid || from == SIZE_MAX || hi > s->nsteps;
    if (!all)
        mark_dirty(c->cache, sim, lo, hi);
    refresh(c->cache, sim, step, all);
    c->cache->valid = true;
    c->nwrong = 0;
    for (int b = 0; b < BUF_COUNT; b++)
        memset(c->bad[b], 0, sim->base[b][s->call.nranks]);
    if (c->real_ok)
        flag_wrong(c, sim, step);
}
