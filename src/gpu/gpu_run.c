/* gpu_run.c - the cuda backend's timed runs: the warmup, then the timed
 * loop between two CUDA events on the first device's stream, its last
 * few iterations (where step times are asked for) one by one with an
 * event after every step. On one
 * device an iteration is captured once as a CUDA graph (and once more
 * with the step events) and each iteration is one graph launch; with
 * several devices the steps are issued one by one (a graph would have to
 * span the devices' streams). Copy-ins are fused (GPU_RUN's plan). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_impl.h"

/* Iterations with step events, at most: each is waited for on its own. */
#define STEP_PASSES 16

/* Events for the step times: one before the first step, one after each,
 * one after the finish. */
static CvError step_events(GpuExec *x, size_t n)
{
    if (x->nev_step == n)
        return CV_OK;
    for (size_t i = 0; i < x->nev_step; i++)
        x->api.cuEventDestroy(x->ev_step[i]);
    free(x->ev_step);
    x->nev_step = 0;
    if (!(x->ev_step = calloc(n, sizeof *x->ev_step)))
        return gpu_fail(x, CV_ERR_NOMEM, "out of memory for events");
    for (; x->nev_step < n; x->nev_step++)
        if (x->api.cuEventCreate(&x->ev_step[x->nev_step], CU_EVENT_DEFAULT))
            return gpu_fail(x, CV_ERR_IO, "the GPU could not create an event");
    return CV_OK;
}

static CvError record(GpuExec *x, CUevent ev)
{
    CvError e = gpu_use(x, 0);
    return e ? e : gpu_check(x, x->api.cuEventRecord(ev, x->dev[0].stream),
                             "to record an event");
}

/* One iteration issued step by step; stamp: with the step events. */
static CvError issue_iteration(GpuExec *x, bool stamp)
{
    size_t n = x->base.sched->nsteps;
    CvError e = stamp ? record(x, x->ev_step[0]) : CV_OK;
    for (size_t k = 0; !e && k < n; k++) {
        e = gpu_issue(x, GPU_RUN, k);
        if (!e && stamp)
            e = record(x, x->ev_step[k + 1]);
    }
    if (!e && x->finish)
        e = gpu_issue(x, GPU_RUN, n);
    if (!e && stamp)
        e = record(x, x->ev_step[n + 1]);
    return e;
}

/* An iteration captured as a graph on the one device's stream. */
static CvError capture(GpuExec *x, bool stamp, CUgraphExec *out)
{
    CudaApi *a = &x->api;
    CUstream st = x->dev[0].stream;
    CUgraph g = NULL;
    CvError e = gpu_use(x, 0);
    if (!e)
        e = gpu_check(x, a->cuStreamBeginCapture(st, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                      "to capture a graph");
    if (e)
        return e;
    CvError ei = issue_iteration(x, stamp);
    CvError ec = gpu_check(x, a->cuStreamEndCapture(st, &g), "to capture a graph");
    e = ei ? ei : ec;
    if (!e)
        e = gpu_check(x, a->cuGraphInstantiateWithFlags(out, g, 0),
                      "to instantiate a graph");
    if (g)
        a->cuGraphDestroy(g);
    return e;
}

static CvError iteration(GpuExec *x, bool stamp)
{
    CUgraphExec ge = stamp ? x->graph_stamp : x->graph;
    if (!ge)
        return issue_iteration(x, stamp);
    CvError e = gpu_use(x, 0);
    return e ? e : gpu_check(x, x->api.cuGraphLaunch(ge, x->dev[0].stream),
                             "to launch a graph");
}

static float elapsed_ms(GpuExec *x, CUevent a, CUevent b, CvError *e)
{
    float ms = 0;
    if (!*e)
        *e = gpu_check(x, x->api.cuEventElapsedTime(&ms, a, b), "to time events");
    return ms;
}

/* The last `passes` iterations of a timed loop, one by one with the step
 * events: each step's mean time into step_s, the iterations' time added
 * to *ms. */
static CvError stamped(GpuExec *x, int passes, double *step_s, double *ms)
{
    size_t n = x->base.sched->nsteps;
    CvError e = CV_OK;
    for (size_t k = 0; k < n; k++)
        step_s[k] = 0;
    for (int i = 0; !e && i < passes; i++) {
        if (atomic_exchange(&x->cancel, 0))
            return gpu_fail(x, CV_ERR_CANCELLED, "the timed run was cancelled");
        e = iteration(x, true);
        if (!e)
            e = gpu_sync_all(x);
        for (size_t k = 0; !e && k < n; k++)
            step_s[k] += elapsed_ms(x, x->ev_step[k], x->ev_step[k + 1], &e) *
                         1e-3 / passes;
        *ms += elapsed_ms(x, x->ev_step[0], x->ev_step[n + 1], &e);
    }
    return e;
}

static CvError cancelled(GpuExec *x)
{
    gpu_sync_all(x);
    return gpu_fail(x, CV_ERR_CANCELLED, "the timed run was cancelled");
}

CvError gpu_run(Executor *ex, int warmup, int iters, ExecTiming *t)
{
    GpuExec *x = gx(ex);
    if (!ex->sched)
        return gpu_fail(x, CV_ERR_ARG, "no schedule is loaded");
    if (atomic_exchange(&x->cancel, 0))
        return gpu_fail(x, CV_ERR_CANCELLED, "the timed run was cancelled");
    if (warmup < 0 || iters < 1 || !t)
        return gpu_fail(x, CV_ERR_ARG, "a run needs at least one timed iteration");
    memset(x->mirror_ok, 0, (size_t)ex->nranks * BUF_COUNT * sizeof *x->mirror_ok);
    const Schedule *s = ex->sched;
    CvError e = step_events(x, s->nsteps + 2);
    int passes = t->step_s && s->nsteps ? (iters < STEP_PASSES ? iters : STEP_PASSES) : 0;
    bool work = s->nsteps || x->finish;
    if (!e && x->ndev == 1 && work && !x->graph)
        e = capture(x, false, &x->graph);
    if (!e && x->ndev == 1 && work && !x->graph_stamp)
        e = capture(x, true, &x->graph_stamp);
    for (int i = 0; !e && i < warmup; i++) {
        if (atomic_exchange(&x->cancel, 0))
            return cancelled(x);
        e = iteration(x, false);
    }
    if (!e)
        e = gpu_sync_all(x);
    if (!e)
        e = record(x, x->ev_start);
    for (int i = 0; !e && i < iters - passes; i++) {
        if (atomic_exchange(&x->cancel, 0))
            return cancelled(x);
        e = iteration(x, false);
    }
    if (!e)
        e = record(x, x->ev_end);
    if (!e)
        e = gpu_check(x, x->api.cuEventSynchronize(x->ev_end), "to run the schedule");
    if (!e)
        e = gpu_sync_all(x);
    double ms = elapsed_ms(x, x->ev_start, x->ev_end, &e);
    if (!e && passes)
        e = stamped(x, passes, t->step_s, &ms);
    if (e == CV_ERR_CANCELLED)
        gpu_sync_all(x);
    if (e)
        return e;
    t->iter_s = ms * 1e-3 / iters;
    return CV_OK;
}
