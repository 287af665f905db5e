/* scene.c - the scene of the TUI: the picture's schedule executed step by
 * step symbolically and on the backend, the measured size's schedule for the
 * counters, and the model's predictions. */
#include "ui/scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/calib.h"
#include "ui/check.h"

/* ------------------------------------------------------------ counts */

size_t scene_picture_count(CollKind k, int p, int cells)
{
    size_t c = (size_t)(cells < 1 ? 1 : cells);
    return coll_size_blocks(k, p) == 1 ? c * (size_t)p : c;
}


/* ------------------------------------------------------------ arrays */

static void free_arrays(App *app)
{
    for (int b = 0; b < BUF_COUNT; b++) {
        free(app->real[b]);
        free(app->bad[b]);
        free(app->written[b]);
        app->real[b] = app->bad[b] = app->written[b] = NULL;
    }
    free(app->stats);
    free(app->meas_step_s);
    check_cache_free(app->check);
    app->check = NULL;
    app->stats = NULL;
    app->meas_step_s = NULL;
}

/* Read-back, check and mark arrays sized by the symbolic state. */
static CvError alloc_arrays(App *app)
{
    size_t ts = dtype_size(app->call.dtype);
    for (int b = 0; b < BUF_COUNT; b++) {
        size_t n = app->sim.base[b][app->call.nranks] + 1;
        app->real[b] = calloc(n, ts);
        app->bad[b] = calloc(n, 1);
        app->written[b] = calloc(n, 1);
        if (!app->real[b] || !app->bad[b] || !app->written[b])
            return CV_ERR_NOMEM;
    }
    app->stats = calloc((size_t)app->call.nranks, sizeof *app->stats);
    app->meas_step_s = calloc(app->big_sched.nsteps + 1, sizeof(double));
    app->check = check_cache_new(app);
    return app->stats && app->meas_step_s && app->check ? CV_OK
                                                        : CV_ERR_NOMEM;
}

/* Drop the scene's schedules, state and arrays (the executor stays). */
static void drop_scene(App *app)
{
    sim_fini(&app->sim);
    sched_fini(&app->sched);
    sched_fini(&app->big_sched);
    free_arrays(app);
    app->step = 0;
    app->real_ok = false;
}

void scene_fini(App *app)
{
    drop_scene(app);
    if (app->ex)
        app->backend->close(app->ex);
    app->ex = NULL;
}

/* ------------------------------------------------------------ building */

/* Generate the picture's and the measured size's schedules. */
static CvError make_schedules(const App *app, const CollCall *call,
                              const AlgoInfo *algo, Schedule *ps,
                              Schedule *bs, char *why, size_t whylen)
{
    CollCall pc = *call, bc = *call;
    pc.count = scene_picture_count(call->kind, call->nranks, app->cells);
    bc.count = coll_count_floor(call, app->bytes);
    CvError e = algo_generate(algo, &pc, ps);
    if (!e && (e = algo_generate(algo, &bc, bs)))
        sched_fini(ps);
    if (e)
        snprintf(why, whylen, "%s %s on %d ranks cannot be built: %s.",
                 algo->name, coll_name(call->kind), call->nranks,
                 cv_strerror(e));
    return e;
}

/* An executor of ops for p ranks: the current one when it fits. */
static CvError open_executor(App *app, const ExecOps *ops, int p,
                             Executor **ex, char *why, size_t whylen)
{
    if (app->ex && app->backend == ops && app->ex->nranks == p) {
        *ex = app->ex;
        return CV_OK;
    }
    /* -B's options are the first backend's */
    ExecOptions opt = {.params = ops == app->backend ? app->backend_params
                                                     : NULL};
    why[0] = '\0';
    CvError e = ops->open(ex, p, &opt, why, whylen);
    if (e && !why[0])
        snprintf(why, whylen, "The %s backend cannot start %d ranks: %s.",
                 ops->name, p, cv_strerror(e));
    return e;
}

/* Take the new executor (closing the old one when it differs). */
static void adopt_executor(App *app, const ExecOps *ops, Executor *ex)
{
    if (app->ex && app->ex != ex)
        app->backend->close(app->ex);
    app->ex = ex;
    if (app->backend != ops)
        app->backend_params = NULL;
    app->backend = ops;
}

/* Load the picture's schedule on the executor; a failure leaves the scene
 * without real buffers and says why. */
static void load_executor(App *app)
{
    if (!app->ex)
        return;
    CvError e = app->backend->load(app->ex, &app->sched);
    if (e) {
        app_message(app, true, "The %s backend failed: %s",
                    app->backend->name, app->backend->last_error(app->ex));
        app->backend->close(app->ex);
        app->ex = NULL;
    }
}

CvError scene_build(App *app, const CollCall *call, const AlgoInfo *algo,
                    char *why, size_t whylen)
{
    if (call->nranks < 1 || call->nranks > SCENE_MAX_RANKS) {
        snprintf(why, whylen, "The picture shows 1 to %d ranks; 'collviz "
                 "trace' prints schedules of up to %d.", SCENE_MAX_RANKS,
                 COLL_MAX_RANKS);
        return CV_ERR_RANKS;
    }
    Schedule ps, bs;
    Executor *ex = NULL;
    CvError e = make_schedules(app, call, algo, &ps, &bs, why, whylen);
    if (e)
        return e;
    if (app->backend &&
        (e = open_executor(app, app->backend, call->nranks, &ex, why,
                           whylen))) {
        sched_fini(&ps);
        sched_fini(&bs);
        return e;
    }
    drop_scene(app);
    adopt_executor(app, app->backend, ex);
    app->call = *call;
    app->call.count = ps.call.count;
    app->big = bs.call;
    app->algo = algo;
    app->sched = ps;
    app->big_sched = bs;
    if ((e = sim_init(&app->sim, &app->sched)) || (e = alloc_arrays(app))) {
        snprintf(why, whylen, "The scene needs more memory than there is.");
        return e;
    }
    app->big_ok = bs.nsteps == ps.nsteps;
    sched_totals(&app->big_sched, &app->totals, NULL, NULL);
    load_executor(app);
    app->meas_total_s.valid = false;
    app->meas_steps_ok = false;
    app->sel_rank = -1;
    scene_model(app);
    return scene_seek(app, 0);
}

CvError scene_backend(App *app, const ExecOps *ops, char *why, size_t whylen)
{
    Executor *ex = NULL;
    CvError e = open_executor(app, ops, app->call.nranks, &ex, why, whylen);
    if (e)
        return e;
    adopt_executor(app, ops, ex);
    load_executor(app);
    scene_model(app);
    return scene_seek(app, app->step);
}

/* ------------------------------------------------------------ the model */

void scene_model(App *app)
{
    Calib c;
    char why[4400];
    const char *name = app->backend ? app->backend->name : "threads";
    ExecHost host = app->ex ? exec_host(app->ex) : (ExecHost){.cores = 0};
    app->params_calibrated =
        app->ex && calib_load(name, host.fingerprint, app->call.nranks, &c,
                              why, sizeof why) == CV_OK;
    if (app->params_calibrated) {
        app->calib = c;
        app->link = c.link;
        app->params = calib_params(&c, c.link,
                                   calib_footprint(&app->big_sched));
    }
    CostTerms t;
    CvError e = model_schedule_cost(&app->big_sched, app->link, &app->params,
                                    &t);
    app->pred_total_s = (AppValue){e ? 0 : cost_time(&t, &app->params), !e};
}

/* ------------------------------------------------------------ stepping */

/* Which elements the shown step wrote, and how (1 + XferOp). */
static void mark_written(App *app)
{
    for (int b = 0; b < BUF_COUNT; b++)
        memset(app->written[b], 0, app->sim.base[b][app->call.nranks]);
    size_t k;
    if (!app_shown(app, &k))
        return;
    const Step *st = &app->sched.steps[k];
    for (size_t x = st->first; x < st->first + st->n; x++) {
        const Transfer *t = &app->sched.xfers[x];
        uint8_t *w = app->written[t->dst_buf] +
                     app->sim.base[t->dst_buf][t->dst] + t->dst_off;
        memset(w, 1 + t->op, t->count);
    }
}

/* Byte counters and the model's step time for the shown step. */
static void count_bytes(App *app)
{
    int p = app->call.nranks;
    size_t k;
    app->step_sent = app->step_recvd = 0;
    app->sofar_sent = app->sofar_recvd = 0;
    app->pred_step_s.valid = false;
    if (!app->big_ok || !app_shown(app, &k))
        return;
    size_t *acc = calloc(2 * (size_t)p, sizeof *acc);
    for (size_t s = 0; acc && s <= k; s++) {
        sched_step_stats(&app->big_sched, s, app->stats);
        for (int r = 0; r < p; r++) {
            acc[r] += app->stats[r].sent;
            acc[p + r] += app->stats[r].recvd;
        }
    }
    for (int r = 0; r < p && acc; r++) {
        if (app->stats[r].sent > app->step_sent)
            app->step_sent = app->stats[r].sent;
        if (app->stats[r].recvd > app->step_recvd)
            app->step_recvd = app->stats[r].recvd;
        if (acc[r] > app->sofar_sent)
            app->sofar_sent = acc[r];
        if (acc[p + r] > app->sofar_recvd)
            app->sofar_recvd = acc[p + r];
    }
    free(acc);
    app->pred_step_s = (AppValue){
        model_step_time(&app->big_sched, k, app->link, &app->params), true};
}

/* Execute steps until app->step == k on the sim and the executor. The
 * symbolic executor's findings stay in sim.err (the header shows them);
 * only a backend error is returned. */
static CvError advance(App *app, size_t k)
{
    const ExecOps *ops = app->backend;
    CvError e = CV_OK;
    while (app->step < k && !e) {
        sim_step(&app->sim);
        if (app->sim.next_step != app->step + 1)
            break; /* a transfer out of bounds: the schedule stops here */
        if (app->ex && (e = ops->step(app->ex, app->step)))
            break;
        app->step++;
        if (app->ex && app->step == app->sched.nsteps)
            e = ops->finish(app->ex);
    }
    return e;
}

/* Restart from the initial state on both executors. */
static CvError rewind_all(App *app)
{
    sim_reset(&app->sim);
    app->step = 0;
    return app->ex ? app->backend->reset(app->ex) : CV_OK;
}

/* A backend failure while stepping ends the session with its sentence. */
static CvError backend_failed(App *app, CvError e)
{
    const char *why = app->ex ? app->backend->last_error(app->ex) : "";
    app_message(app, true, "The %s backend failed: %s",
                app->backend ? app->backend->name : "?",
                why && *why ? why : cv_strerror(e));
    app->exit_status = 1;
    app->quit = true;
    return e;
}

CvError scene_seek(App *app, size_t k)
{
    double t0 = app_now();
    size_t from = app->step;
    if (k > app->sched.nsteps)
        k = app->sched.nsteps;
    CvError e = CV_OK;
    if (k < app->step || k == 0)
        e = rewind_all(app);
    if (!e)
        e = advance(app, k);
    if (e)
        return backend_failed(app, e);
    app->real_ok = false;
    if (app->ex && (e = check_read_back(app)))
        return backend_failed(app, e);
    check_compare(app, from);
    mark_written(app);
    count_bytes(app);
    app->last_step_ms = (app_now() - t0) * 1e3;
    return CV_OK;
}
