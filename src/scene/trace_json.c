/* trace_json.c - `collviz trace --json` (docs/trace-json.md): one compact
 * object, streamed step by step through the JSON writer, with a line
 * break before each transfer, each written array, each state run and
 * each top-level group, so that traces diff well. */
#include <stdint.h>

#include <stdlib.h>
#include <string.h>

#include "scene/trace.h"

/* Model times and parameters: as many digits as a double needs, nearly. */
#define TJ_DIGITS 15

/* A rank set as ascending inclusive ranges: [[0,3],[5,5]]. */
static void tj_set(JsonWriter *w, const uint64_t *set, size_t words)
{
    int lo, hi;
    json_array(w, "ranks");
    for (size_t from = 0; trace_set_range(set, words, from, &lo, &hi);
         from = (size_t)hi + 1) {
        json_array(w, NULL);
        json_int(w, NULL, lo);
        json_int(w, NULL, hi);
        json_close(w);
    }
    json_close(w);
}

static void tj_run(JsonWriter *w, const Sim *sim, int r, BufId b,
                   const CellRun *run)
{
    json_object(w, NULL);
    json_int(w, "rank", r);
    json_str(w, "buf", buf_name(b));
    json_uint(w, "off", run->off);
    json_uint(w, "count", run->n);
    json_int(w, "pos", run->pos);
    if (run->pos == SIM_EMPTY) {
        json_array(w, "ranks");
        json_close(w);
    } else {
        tj_set(w, run->set, sim->words);
    }
    json_close(w);
}

/* The runs of cells [lo, hi) of rank r's buffer b, each on its own line
 * when `lines`. */
static void tj_runs(Trace *t, int r, BufId b, size_t lo, size_t hi, bool lines)
{
    for (size_t i = lo; i < hi;) {
        CellRun run = trace_next_run(&t->sim, r, b, i, hi);
        if (lines)
            json_break(&t->js);
        tj_run(&t->js, &t->sim, r, b, &run);
        i += run.n;
    }
}

/* Every rank's cells, as member `label`. */
static void tj_state(Trace *t, const char *label)
{
    json_break(&t->js);
    json_array(&t->js, label);
    for (int r = 0; r < t->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++)
            tj_runs(t, r, (BufId)b, 0, sched_bufsize(&t->s, r, (BufId)b), true);
    json_close(&t->js);
}

/* The call: what traced, its sizes, datatype, op, root, place. */
static void tj_call(JsonWriter *w, const Trace *t)
{
    const CollCall *c = &t->call;
    json_str(w, "format", "collviz-trace");
    json_int(w, "version", 1);
    json_break(w);
    json_str(w, "collective", coll_name(c->kind));
    json_str(w, "algorithm", t->algo->name);
    json_int(w, "ranks", c->nranks);
    json_uint(w, "count", c->count);
    json_uint(w, "bytes", coll_size_bytes(c));
    json_str(w, "dtype", dtype_name(c->dtype));
    json_uint(w, "dtype_size", dtype_size(c->dtype));
    json_str(w, "op", redop_name(c->op));
    json_int(w, "root", c->root);
    json_bool(w, "in_place", c->in_place);
}

/* The machine: its kind, shape and link classes. */
static void tj_machine(JsonWriter *w, const Trace *t)
{
    const Machine *m = &t->mach;
    char shape[160];
    machine_describe(m, true, shape, sizeof shape);
    json_break(w);
    json_object(w, "machine");
    json_str(w, "kind", machine_kind_name(m->kind));
    json_str(w, "shape", shape);
    json_int(w, "links", m->nlinks);
    json_double(w, "gamma", m->gamma, TJ_DIGITS);
    json_array(w, "classes");
    for (int c = 0; c < m->ncls; c++) {
        json_object(w, NULL);
        json_str(w, "name", m->cls[c].name);
        json_double(w, "alpha", m->cls[c].alpha, TJ_DIGITS);
        json_double(w, "beta", m->cls[c].beta, TJ_DIGITS);
        json_double(w, "lat", m->cls[c].lat, TJ_DIGITS);
        json_close(w);
    }
    json_close(w);
    if (machine_is_memory(m)) { /* its level: what prices a step there */
        const MemLevel *ml = &m->mem;
        json_object(w, "memory");
        json_double(w, "step", ml->step, TJ_DIGITS);
        json_double(w, "call", ml->call, TJ_DIGITS);
        json_double(w, "beta", ml->beta_mem, TJ_DIGITS);
        json_double(w, "cache", ml->cache, TJ_DIGITS);
        json_double(w, "cache_beta", ml->beta_cache, TJ_DIGITS);
        json_bool(w, "shared_reads", ml->shared_reads);
        json_close(w);
    }
    json_close(w);
}

/* A link as its number, its ends and its class. */
static void tj_link(JsonWriter *w, const Trace *t, int l)
{
    MachineLink ml = machine_link(&t->mach, l);
    char a[32], b[32];
    machine_endpoint_name(&t->mach, ml.from, a, sizeof a);
    machine_endpoint_name(&t->mach, ml.to, b, sizeof b);
    json_int(w, "link", l);
    json_str(w, "from", a);
    json_str(w, "to", b);
    json_str(w, "class", t->mach.cls[ml.cls].name);
}

/* --links: the step's loaded links and its busiest. */
static void tj_links(JsonWriter *w, Trace *t)
{
    Pricer *pr = &t->pr;
    json_array(w, "links");
    for (int i = 0; i < pr->ntouched; i++) {
        int l = pr->touched[i];
        json_object(w, NULL);
        tj_link(w, t, l);
        json_double(w, "bytes", pr->bytes[l], TJ_DIGITS);
        json_int(w, "messages", pr->msgs[l]);
        json_close(w);
    }
    json_close(w);
    if (t->sp.busiest < 0) {
        json_null(w, "busiest");
        return;
    }
    json_object(w, "busiest");
    tj_link(w, t, t->sp.busiest);
    json_double(w, "bytes", pr->bytes[t->sp.busiest], TJ_DIGITS);
    json_double(w, "time", t->sp.busiest_time, TJ_DIGITS);
    json_double(w, "share", t->sp.time > 0 ? t->sp.busiest_time / t->sp.time : 0,
                TJ_DIGITS);
    json_close(w);
}

/* The model's parameters, and the elements of every rank's buffers. */
static void tj_model_buffers(JsonWriter *w, const Trace *t)
{
    json_break(w);
    json_object(w, "model");
    json_str(w, "machine", machine_kind_name(t->model.link));
    json_double(w, "alpha", t->model.m.alpha, TJ_DIGITS);
    json_double(w, "beta", t->model.m.beta, TJ_DIGITS);
    json_double(w, "gamma", t->model.m.gamma, TJ_DIGITS);
    if (t->pricing_given)
        json_str(w, "pricing", model_pricing_name(t->priced));
    json_close(w);
    tj_machine(w, t);
    json_break(w);
    json_object(w, "buffers");
    for (int b = 0; b < BUF_COUNT; b++) {
        json_array(w, buf_name((BufId)b));
        for (int r = 0; r < t->call.nranks; r++)
            json_uint(w, NULL, sched_bufsize(&t->s, r, (BufId)b));
        json_close(w);
    }
    json_close(w);
}

/* Where each rank's input and output live. */
static void tj_layout(JsonWriter *w, const CollCall *c)
{
    json_break(w);
    json_array(w, "layout");
    for (int r = 0; r < c->nranks; r++) {
        CollLayout l;
        coll_layout(c, r, &l);
        json_break(w);
        json_object(w, NULL);
        json_int(w, "rank", r);
        json_str(w, "in_buf", buf_name(l.in_buf));
        json_uint(w, "in_off", l.in_off);
        json_uint(w, "in_count", l.in_count);
        json_str(w, "out_buf", buf_name(l.out_buf));
        json_uint(w, "out_off", l.out_off);
        json_uint(w, "out_count", l.out_count);
        json_close(w);
    }
    json_close(w);
}

/* Everything before the first step; leaves the "steps" array open. */
static void tj_begin(Trace *t)
{
    JsonWriter *w = &t->js;
    json_init(w, t->out, JSON_COMPACT);
    json_object(w, NULL);
    tj_call(w, t);
    tj_model_buffers(w, t);
    tj_layout(w, &t->call);
    json_break(w);
    json_bool(w, "cells", t->cells);
    json_fixed(w, "sim_bytes", t->sim_bytes, 0);
    if (t->cells)
        tj_state(t, "initial");
    json_break(w);
    json_array(w, "steps");
}

/* What each transfer's destination cells hold after the step. */
static void tj_written(Trace *t)
{
    json_array(&t->js, "written");
    for (size_t i = 0; i < t->ncur; i++) {
        const Transfer *x = &t->cur[i];
        json_break(&t->js);
        json_array(&t->js, NULL);
        tj_runs(t, x->dst, (BufId)x->dst_buf, x->dst_off, x->dst_off + x->count,
                false);
        json_close(&t->js);
    }
    json_close(&t->js);
}

/* A transfer with exactly the fields of the IR's Transfer. */
static void tj_transfer(JsonWriter *w, const Transfer *x)
{
    json_break(w);
    json_object(w, NULL);
    json_int(w, "src", x->src);
    json_str(w, "src_buf", buf_name((BufId)x->src_buf));
    json_uint(w, "src_off", x->src_off);
    json_int(w, "dst", x->dst);
    json_str(w, "dst_buf", buf_name((BufId)x->dst_buf));
    json_uint(w, "dst_off", x->dst_off);
    json_uint(w, "count", x->count);
    json_str(w, "op", xfer_op_name((XferOp)x->op));
    json_close(w);
}

static void tj_step(Trace *t, size_t k)
{
    JsonWriter *w = &t->js;
    json_break(w);
    json_object(w, NULL);
    json_uint(w, "step", k);
    json_str(w, "phase", strcmp(t->cur_phase, "-") ? t->cur_phase : "");
    json_double(w, "time", t->sp.time, TJ_DIGITS);
    if (t->links)
        tj_links(w, t);
    json_array(w, "transfers");
    for (size_t i = 0; i < t->ncur; i++)
        tj_transfer(w, &t->cur[i]);
    json_close(w);
    if (t->cells)
        tj_written(t);
    if (t->full && k + 1 < t->nsteps)
        tj_state(t, "state");
    json_close(w);
}

/* Cost terms and their time, as member `name`. */
static void tj_terms(JsonWriter *w, const char *name, const CostTerms *c,
                     double sec)
{
    json_object(w, name);
    json_double(w, "a", c->a, TJ_DIGITS);
    json_double(w, "b", c->b, TJ_DIGITS);
    json_double(w, "g", c->g, TJ_DIGITS);
    json_double(w, "steps", c->steps, TJ_DIGITS);
    json_double(w, "time", sec, TJ_DIGITS);
    json_close(w);
}

/* p numbers, as member `name`. */
static void tj_per_rank(JsonWriter *w, const char *name, const size_t *v,
                        int p)
{
    json_array(w, name);
    for (int r = 0; r < p; r++)
        json_uint(w, NULL, v[r]);
    json_close(w);
}

static void tj_totals(Trace *t, const Totals *to)
{
    JsonWriter *w = &t->js;
    json_break(w);
    json_object(w, "totals");
    json_uint(w, "steps", to->st.steps);
    json_uint(w, "transfers", to->st.xfers);
    json_uint(w, "total_bytes", to->st.total_bytes);
    json_uint(w, "max_sent", to->st.max_sent);
    json_uint(w, "max_recvd", to->st.max_recvd);
    json_uint(w, "max_reduced", to->st.max_reduced);
    tj_per_rank(w, "sent", to->sent, t->call.nranks);
    tj_per_rank(w, "recvd", to->recvd, t->call.nranks);
    tj_terms(w, "model", &to->cost, to->seconds);
    if (to->wire_link >= 0 && to->seconds > 0) {
        double size = (double)coll_size_bytes(&t->call);
        json_object(w, "wire");
        tj_link(w, t, to->wire_link);
        json_double(w, "bytes", to->wire_bytes, TJ_DIGITS);
        json_double(w, "bandwidth", to->wire_bytes / to->seconds, TJ_DIGITS);
        json_double(w, "busbw", size / to->seconds *
                    coll_busbw_factor(t->call.kind, t->call.nranks), TJ_DIGITS);
        json_close(w);
    }
    if (t->algo->cost)
        tj_terms(w, "closed_form", &to->closed,
                 trace_time_of(t, &to->closed));
    else /* a schedule file has none */
        json_null(w, "closed_form");
    tj_terms(w, "lower_bound", &to->bound, trace_time_of(t, &to->bound));
    json_close(w);
}

/* The summary's phases (consecutive steps of one label). */
static void tj_phases(Trace *t)
{
    JsonWriter *w = &t->js;
    json_break(w);
    json_array(w, "phases");
    for (size_t i = 0; i < t->nphases; i++) {
        const TracePhase *ph = &t->phases[i];
        json_break(w);
        json_object(w, NULL);
        json_str(w, "phase", strcmp(ph->phase, "-") ? ph->phase : "");
        json_uint(w, "first", ph->first);
        json_uint(w, "steps", ph->steps);
        json_uint(w, "transfers", ph->transfers);
        json_double(w, "time", ph->time, TJ_DIGITS);
        json_double(w, "slowest", ph->worst, TJ_DIGITS);
        json_close(w);
    }
    json_close(w);
}

/* Closes the steps, then the final cells, totals and check. */
static CvError tj_end(Trace *t, const Totals *to)
{
    JsonWriter *w = &t->js;
    json_close(w);
    json_bool(w, "listed", !t->summary);
    json_bool(w, "checked", t->checked);
    tj_phases(t);
    if (t->cells)
        tj_state(t, "final");
    tj_totals(t, to);
    json_break(w);
    json_object(w, "check");
    json_uint(w, "staged", t->chk.overlaps);
    json_str(w, "sim_error", t->cells && to->sim_err ? cv_strerror(to->sim_err) : NULL);
    if (t->cells) {
        json_bool(w, "correct", !to->sim_err && !to->check);
        json_uint(w, "wrong", to->nwrong);
    } else {
        json_null(w, "correct");
        json_null(w, "wrong");
    }
    json_close(w);
    json_close(w);
    return json_finish(w);
}

const TraceWriter trace_json = {
    .begin = tj_begin, .step = tj_step, .end = tj_end,
};
