/* check.c - the picture's real buffers against the theory: after each step
 * every element is compared with what the symbolic state says it holds.
 * Inputs are exactly verifiable (data.h), so the comparison is bit for bit
 * (avg's final division aside). Unlike verify_state() (verify.h), it keeps
 * a flag per element for the picture and caches the expected values, so a
 * step costs only the elements it wrote. */
#include "ui/check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/data.h"

/* ------------------------------------------------------------ picture */

CvError check_read_back(App *app)
{
    const Schedule *s = &app->sched;
    size_t ts = dtype_size(s->call.dtype);
    for (int r = 0; r < s->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++) {
            size_t n = sched_bufsize(s, r, (BufId)b);
            uint8_t *dst = app->real[b] + app->sim.base[b][r] * ts;
            CvError e = n ? app->backend->read(app->ex, r, (BufId)b, 0, n,
                                               dst)
                          : CV_OK;
            if (e)
                return e;
        }
    app->real_ok = true;
    return CV_OK;
}

/* Whether element i of rank r's buffer b has had avg's final division:
 * the run is complete and the element is part of the rank's output. */
static bool finished(const App *app, int r, BufId b, size_t i)
{
    if (app->step < app->sched.nsteps || !coll_is_reducing(app->call.kind))
        return false;
    CollLayout l;
    coll_layout(&app->call, r, &l);
    return b == l.out_buf && i >= l.out_off && i < l.out_off + l.out_count;
}

/* The bits the symbolic state says the element holds; false when it holds
 * nothing checkable (empty, or positions mixed by a broken schedule). */
static bool expected_bits(const App *app, int r, BufId b, size_t i,
                          uint64_t *bits)
{
    int32_t pos = sim_pos(&app->sim, r, b, i);
    if (pos < 0)
        return false;
    *bits = data_expect(&app->sched.call, (size_t)pos,
                        sim_set(&app->sim, r, b, i), app->sim.words,
                        finished(app, r, b, i));
    return true;
}

double check_expected(const App *app, int r, BufId b, size_t i)
{
    uint64_t bits;
    if (!expected_bits(app, r, b, i, &bits))
        return NAN;
    return data_to_double(app->call.dtype, bits);
}

/* Expected bits per element, valid for the state after `step` steps. */
struct CheckCache {
    uint64_t *want[BUF_COUNT]; /* [elem_base + i]: expected bits */
    uint8_t *ok[BUF_COUNT];    /* [elem_base + i]: 1 when want is checkable */
    uint8_t *dirty[BUF_COUNT]; /* scratch: elements to recompute */
    bool valid;                /* want holds the state after `step` */
};

CheckCache *check_cache_new(const App *app)
{
    CheckCache *c = calloc(1, sizeof *c);
    for (int b = 0; c && b < BUF_COUNT; b++) {
        size_t n = app->sim.base[b][app->call.nranks] + 1;
        c->want[b] = malloc(n * sizeof(uint64_t));
        c->ok[b] = calloc(n, 1);
        c->dirty[b] = calloc(n, 1);
        if (!c->want[b] || !c->ok[b] || !c->dirty[b]) {
            check_cache_free(c);
            return NULL;
        }
    }
    return c;
}

void check_cache_free(CheckCache *c)
{
    for (int b = 0; c && b < BUF_COUNT; b++) {
        free(c->want[b]);
        free(c->ok[b]);
        free(c->dirty[b]);
    }
    free(c);
}

/* Mark what steps [lo, hi) wrote; with avg, crossing the end also changes
 * the outputs (the final division). */
static void mark_dirty(App *app, size_t lo, size_t hi)
{
    const Schedule *s = &app->sched;
    CheckCache *c = app->check;
    for (size_t k = lo; k < hi; k++)
        for (size_t x = s->steps[k].first;
             x < s->steps[k].first + s->steps[k].n; x++) {
            const Transfer *t = &s->xfers[x];
            memset(c->dirty[t->dst_buf] + app->sim.base[t->dst_buf][t->dst] +
                   t->dst_off, 1, t->count);
        }
    if (app->call.op != OP_AVG || hi < s->nsteps)
        return;
    for (int r = 0; r < s->call.nranks; r++) {
        CollLayout l;
        coll_layout(&s->call, r, &l);
        memset(c->dirty[l.out_buf] + app->sim.base[l.out_buf][r] + l.out_off,
               1, l.out_count);
    }
}

/* Recompute the expected bits of the dirty elements (all when `all`). */
static void refresh(App *app, bool all)
{
    const Schedule *s = &app->sched;
    CheckCache *c = app->check;
    for (int r = 0; r < s->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++)
            for (size_t i = 0; i < sched_bufsize(s, r, (BufId)b); i++) {
                size_t at = app->sim.base[b][r] + i;
                if (!all && !c->dirty[b][at])
                    continue;
                c->dirty[b][at] = 0;
                c->ok[b][at] = expected_bits(app, r, (BufId)b, i,
                                             &c->want[b][at]);
            }
}

void check_compare(App *app, size_t from)
{
    const Schedule *s = &app->sched;
    CheckCache *c = app->check;
    size_t lo = from < app->step ? from : app->step;
    size_t hi = from < app->step ? app->step : from;
    bool all = !c->valid || from == SIZE_MAX || hi > s->nsteps;
    if (!all)
        mark_dirty(app, lo, hi);
    refresh(app, all);
    c->valid = true;
    app->nwrong = 0;
    for (int b = 0; b < BUF_COUNT; b++)
        memset(app->bad[b], 0, app->sim.base[b][s->call.nranks]);
    if (!app->real_ok)
        return;
    for (int r = 0; r < s->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++)
            for (size_t i = 0; i < sched_bufsize(s, r, (BufId)b); i++) {
                size_t at = app->sim.base[b][r] + i;
                uint64_t got = data_load(s->call.dtype, app->real[b], at);
                if (c->ok[b][at] &&
                    !data_equal(&s->call, got, c->want[b][at],
                                finished(app, r, (BufId)b, i))) {
                    app->bad[b][at] = 1;
                    app->nwrong++;
                }
            }
}

double app_real_value(const App *app, int r, BufId b, size_t i)
{
    if (!app->real_ok)
        return NAN;
    return data_to_double(app->call.dtype,
                          data_load(app->call.dtype, app->real[b],
                                    app->sim.base[b][r] + i));
}
