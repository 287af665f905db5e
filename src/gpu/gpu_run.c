/* gpu_run.c - the cuda backend's timed runs: the warmup, then the timed
 * iterations back to back between two CUDA events on the first device's
 * stream, which give the iteration's time. Where step times are asked
 * for, the last iterations of the warmup but its first (up to 16) run one
 * by one with an event after every step, and give the steps' times: a
 * stamped pass starts on an idle GPU, so it is not one of the timed
 * iterations (review finding 17), and the buffers see exactly warmup +
 * iters iterations. With a warmup of 1 or none the last of the timed
 * iterations (up to 16) are stamped and the others give the time; where
 * all are stamped, their mean does (the measuring engine asks for step
 * times with a warmup of ExecOps.step_warmup, 2, at least). An iteration is captured once as a CUDA
 * graph (and once more with the step events, recorded as external event
 * nodes) and each iteration is one graph launch. With several devices
 * the graph spans them (review finding 15): the other devices' streams
 * join the capture by waiting for an event of the first device's, each
 * phase's cross-device waits become the graph's edges, and the first
 * device waits for every other at the iteration's end (the join); where
 * the driver refuses that (tried at open: gpu_probe_graph), the steps are
 * issued one by one, and the placement line says so. Copy-ins are
 * fused (GPU_RUN's plan).
 *
 * At most GPU_IN_FLIGHT iterations are issued ahead of the GPU, and every
 * wait polls, so a cancel stops a run within a poll's sleep. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/gpu_impl.h"

/* Iterations with step events, at most: each is waited for on its own. */
#define STEP_PASSES 16
/* A wait looks at the event SPIN_POLLS times in a row (a step takes
 * microseconds), then sleeps POLL_NS between two looks. */
#define SPIN_POLLS 1000
#define POLL_NS 100000L

CvError gpu_wait_event(GpuExec *x, CUevent ev, const char *what,
                       CvError (*poll)(GpuExec *x))
{
    for (long i = 0;; i++) {
        CUresult r = x->api.cuEventQuery(ev);
        CvError e;
        if (r != CUDA_ERROR_NOT_READY)
            return gpu_check(x, r, what);
        if (atomic_exchange(&x->base.cancel, 0))
            return exec_fail(&x->base, CV_ERR_CANCELLED, "the timed run was cancelled");
        if (poll && (e = poll(x)))
            return e;
        if (i >= SPIN_POLLS)
            nanosleep(&(struct timespec){0, POLL_NS}, NULL);
    }
}

/* Events for the step times: one before the first step, one after each,
 * one after the finish; in device 0's context, where they are recorded. */
static CvError step_events(GpuExec *x, size_t n)
{
    if (x->nev_step == n)
        return CV_OK;
    for (size_t i = 0; i < x->nev_step; i++)
        x->api.cuEventDestroy(x->ev_step[i]);
    free(x->ev_step);
    x->nev_step = 0;
    if (!(x->ev_step = calloc(n, sizeof *x->ev_step)))
        return exec_fail(&x->base, CV_ERR_NOMEM, "out of memory for events");
    CvError e = gpu_use(x, 0);
    for (; !e && x->nev_step < n; x->nev_step++)
        e = gpu_check(x, x->api.cuEventCreate(&x->ev_step[x->nev_step], CU_EVENT_DEFAULT),
                      "to create an event");
    return e;
}

/* Record ev on device 0's stream; inside a capture as an external event
 * node (a plain record there adds no node, and timing it fails). */
static CvError record(GpuExec *x, CUevent ev)
{
    CUstream st = x->dev[0].stream;
    CvError e = gpu_use(x, 0);
    if (e)
        return e;
    return gpu_check(x, x->capturing
                            ? x->api.cuEventRecordWithFlags(ev, st, CU_EVENT_RECORD_EXTERNAL)
                            : x->api.cuEventRecord(ev, st),
                     "to record an event");
}

/* After step k of a stamped iteration, every device has waited for
 * every other one, so that device 0's step event stands after the whole
 * step. */
static CvError stamp_step(GpuExec *x, size_t k)
{
    CvError e = gpu_cross_wait(x);
    return e ? e : record(x, x->ev_step[k]);
}

/* One iteration issued step by step; stamp: with the step events. It
 * ends with device 0 waiting for every other device (the join of a
 * capture; the events recorded on device 0 after it cover the whole
 * iteration). */
static CvError issue_iteration(GpuExec *x, bool stamp)
{
    size_t n = x->base.sched->nsteps;
    CvError e = stamp ? record(x, x->ev_step[0]) : CV_OK;
    for (size_t k = 0; !e && k < n; k++) {
        e = gpu_issue(x, GPU_RUN, k);
        if (!e && stamp)
            e = stamp_step(x, k + 1);
    }
    if (!e && x->finish)
        e = gpu_issue(x, GPU_RUN, n);
    if (!e && stamp)
        e = stamp_step(x, n + 1);
    return e ? e : gpu_join(x);
}

/* The other devices' streams join the capture begun on the first's: each
 * waits for an event recorded there (the iteration ends with the first
 * device waiting for every other one's work: the join). Inside the graph
 * nothing comes before that event. */
static CvError fork_devices(GpuExec *x)
{
    CvError e = CV_OK;
    gpu_deps_clear(x);
    if (x->ndev < 2)
        return CV_OK;
    if (!(e = gpu_use(x, 0)))
        e = gpu_check(x, x->api.cuEventRecord(x->dev[0].phase, x->dev[0].stream),
                      "to record an event");
    for (int d = 1; !e && d < x->ndev; d++)
        if (!(e = gpu_use(x, d)))
            e = gpu_check(x, x->api.cuStreamWaitEvent(x->dev[d].stream, x->dev[0].phase, 0),
                          "to capture a graph across devices");
    return e;
}

/* An iteration captured as a graph begun on the first device's stream,
 * and uploaded, so that its first launch does not pay for that
 * (iterate false: only the other devices' fork and join, no steps). */
static CvError capture(GpuExec *x, bool stamp, bool iterate, CUgraphExec *out)
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
    x->capturing = true;
    CvError ei = fork_devices(x);
    if (!ei)
        ei = iterate ? issue_iteration(x, stamp) : gpu_join(x);
    x->capturing = false;
    gpu_deps_clear(x); /* events recorded in a capture are not waited on outside */
    CvError ec = gpu_use(x, 0);
    if (!ec)
        ec = gpu_check(x, a->cuStreamEndCapture(st, &g), "to capture a graph");
    e = ei ? ei : ec;
    if (!e)
        e = gpu_check(x, a->cuGraphInstantiateWithFlags(out, g, 0),
                      "to instantiate a graph");
    if (!e && (e = gpu_check(x, a->cuGraphUpload(*out, st), "to upload a graph"))) {
        a->cuGraphExecDestroy(*out);
        *out = NULL;
    }
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

/* Iteration i issued after waiting for iteration i - GPU_IN_FLIGHT, and
 * its end marked (device 0's stream has waited for every device by the
 * end of an iteration's last step). */
static CvError bounded_iteration(GpuExec *x, int i)
{
    CUevent ev = x->ev_iter[i % GPU_IN_FLIGHT];
    CvError e = i >= GPU_IN_FLIGHT ? gpu_wait_event(x, ev, "to run the schedule", NULL)
                                   : CV_OK;
    if (!e && atomic_exchange(&x->base.cancel, 0))
        e = exec_fail(&x->base, CV_ERR_CANCELLED, "the timed run was cancelled");
    if (!e)
        e = iteration(x, false);
    return e ? e : record(x, ev);
}

/* n iterations, at most GPU_IN_FLIGHT of them queued at a time. */
static CvError iterations(GpuExec *x, int n)
{
    CvError e = CV_OK;
    for (int i = 0; !e && i < n; i++)
        e = bounded_iteration(x, i);
    return e;
}

/* `passes` iterations one by one with the step events: each step's mean
 * time into step_s; where ms is not NULL, the passes' time added to it. */
static CvError stamped(GpuExec *x, int passes, double *step_s, double *ms)
{
    size_t n = x->base.sched->nsteps;
    CvError e = CV_OK;
    for (size_t k = 0; k < n; k++)
        step_s[k] = 0;
    for (int i = 0; !e && i < passes; i++) {
        if (atomic_exchange(&x->base.cancel, 0))
            return exec_fail(&x->base, CV_ERR_CANCELLED, "the timed run was cancelled");
        e = iteration(x, true);
        if (!e)
            e = gpu_wait_event(x, x->ev_step[n + 1], "to run the schedule", NULL);
        for (size_t k = 0; !e && k < n; k++)
            step_s[k] += elapsed_ms(x, x->ev_step[k], x->ev_step[k + 1], &e) *
                         1e-3 / passes;
        if (ms)
            *ms += elapsed_ms(x, x->ev_step[0], x->ev_step[n + 1], &e);
    }
    return e;
}

void gpu_drop_graphs(GpuExec *x)
{
    if (x->graph)
        x->api.cuGraphExecDestroy(x->graph);
    if (x->graph_stamp)
        x->api.cuGraphExecDestroy(x->graph_stamp);
    x->graph = x->graph_stamp = NULL;
}

/* e, a capture's outcome, where the driver refused a graph across
 * devices: no error, and the steps issued one by one from then on
 * (no_graph), with neither graph (a device's own stream does not wait
 * for a graph launched on the first device's); a fault, a cancel or no
 * memory is an error still. */
static CvError refused(GpuExec *x, CvError e)
{
    if (e && x->ndev > 1 && !x->base.dead && e != CV_ERR_CANCELLED &&
        e != CV_ERR_NOMEM) {
        gpu_drop_graphs(x);
        x->no_graph = true;
        x->base.err[0] = 0;
        return CV_OK;
    }
    return e;
}

/* Graph g captured unless it is there or graphs were refused. */
static CvError graph(GpuExec *x, bool stamp, CUgraphExec *g)
{
    if (*g || x->no_graph)
        return CV_OK;
    return refused(x, capture(x, stamp, true, g));
}

CvError gpu_probe_graph(GpuExec *x)
{
    CUgraphExec ge = NULL;
    if (x->ndev < 2)
        return CV_OK;
    CvError e = capture(x, false, false, &ge);
    if (ge)
        x->api.cuGraphExecDestroy(ge);
    return refused(x, e);
}

static CvError prepare(GpuExec *x, bool stamps)
{
    const Schedule *s = x->base.sched;
    bool work = s->nsteps || x->finish;
    CvError e = step_events(x, s->nsteps + 2);
    if (!e && work)
        e = graph(x, false, &x->graph);
    if (!e && work && stamps)
        e = graph(x, true, &x->graph_stamp);
    return e;
}

CvError gpu_run(Executor *ex, int warmup, int iters, ExecTiming *t)
{
    GpuExec *x = gx(ex);
    CvError e0 = exec_guard_run(ex, warmup, iters, t, "the timed run");
    if (e0)
        return e0;
    memset(x->mirror_ok, 0, (size_t)ex->nranks * BUF_COUNT * sizeof *x->mirror_ok);
    const Schedule *s = ex->sched;
    /* the stamped passes: the warmup's last (its first stays plain, on a
     * cold GPU), or without a warmup the timed iterations' last */
    int from = warmup > 1 ? warmup - 1 : iters;
    int passes = t->step_s && s->nsteps ? (from < STEP_PASSES ? from : STEP_PASSES) : 0;
    int wpass = warmup > 1 ? passes : 0, ipass = passes - wpass;
    double ms = 0;
    CvError e = prepare(x, passes > 0);
    if (!e)
        e = iterations(x, warmup - wpass);
    if (!e && wpass)
        e = stamped(x, wpass, t->step_s, NULL);
    if (!e)
        e = gpu_sync_all(x);
    if (!e && iters > ipass) {
        if (!(e = record(x, x->ev_start)) && !(e = iterations(x, iters - ipass)) &&
            !(e = record(x, x->ev_end)) &&
            !(e = gpu_wait_event(x, x->ev_end, "to run the schedule", NULL)))
            e = gpu_sync_all(x);
        ms = elapsed_ms(x, x->ev_start, x->ev_end, &e);
    }
    if (!e && ipass)
        e = stamped(x, ipass, t->step_s, iters > ipass ? NULL : &ms);
    if (e == CV_ERR_CANCELLED)
        gpu_sync_all(x); /* at most GPU_IN_FLIGHT iterations to finish */
    if (e)
        return e;
    t->iter_s = ms * 1e-3 / (iters > ipass ? iters - ipass : ipass);
    return CV_OK;
}
