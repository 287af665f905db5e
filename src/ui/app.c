/* app.c - the TUI's state and the one function that changes it: life,
 * stepping, the scene's knobs, background work and its results, what is
 * shown, and the dispatch of requests (modes first, see app_mode.c). */
#include "ui/app.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ui/i18n.h"
#include "ui/keys.h"
#include "ui/scene.h"
#include "ui/scene_str.h"

double app_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void app_message(App *app, bool error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(app->status.msg, sizeof app->status.msg, fmt, ap);
    va_end(ap);
    app->status.error = error;
}

/* ------------------------------------------------------------ life */

void app_options_default(AppOptions *o)
{
    *o = (AppOptions){
        .kind = COLL_ALLREDUCE,
        .nranks = 8,
        .bytes = 64ull << 20,
        .dtype = DT_FLOAT,
        .op = OP_SUM,
    };
}

AppOptions app_options(CollKind k, const char *algo, int nranks,
                       bool no_worker)
{
    AppOptions o;
    app_options_default(&o);
    o.kind = k;
    o.algo = algo;
    o.nranks = nranks;
    o.no_worker = no_worker;
    return o;
}

/* Panels on at the start, play speed, terminal size until told. */
static void app_defaults(App *app)
{
    static const ViewId on[] = {VIEW_HEADER,   VIEW_BUFFERS, VIEW_TRANSFERS,
                                VIEW_TOPOLOGY, VIEW_TIMELINE, VIEW_COUNTERS,
                                VIEW_STATUS};
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++)
        app->view.show[on[i]] = true;
    app->view.sel_rank = -1;
    app->view.term_w = 100;
    app->view.term_h = 30;
    app->play.ms = 700;
}

/* The first scene's setup from the options; a sentence when it has none. */
static CvError first_setup(const AppOptions *o, SceneSetup *set, char *why,
                           size_t whylen)
{
    const char *bname = o->backend ? o->backend : "threads";
    char bwhy[160] = "";
    *set = (SceneSetup){.bytes = o->bytes, .cells = o->cells > 0 ? o->cells
                                                                 : 1,
                        .chunks = o->chunks, .pricing = o->pricing};
    if (o->machine)
        set->machine = *o->machine;
    if (!(set->backend = exec_find_spec(bname, &set->backend_params, bwhy,
                                        sizeof bwhy))) {
        snprintf(why, whylen, "The %s backend cannot be used: %s.", bname,
                 bwhy);
        return CV_ERR_UNAVAILABLE;
    }
    CliErr fe;
    if (sched_file_named(o->algo) &&
        sched_file_load(o->algo, true, &set->algo, &fe)) {
        snprintf(why, whylen, "%s.", fe.msg);
        return CV_ERR_ALGO;
    }
    if (!sched_file_named(o->algo))
        set->algo = o->algo ? algo_find(o->kind, o->algo)
                            : algo_default(o->kind);
    if (!set->algo) {
        snprintf(why, whylen, "%s has no algorithm called '%s'.",
                 coll_name(o->kind), o->algo);
        return CV_ERR_ALGO;
    }
    set->call = (CollCall){.kind = o->kind, .nranks = o->nranks,
                           .dtype = o->dtype, .op = o->op, .root = o->root,
                           .in_place = o->in_place,
                           .segment = o->segment};
    return CV_OK;
}

CvError app_init(App *app, const AppOptions *o, char *why, size_t whylen)
{
    SceneSetup set;
    memset(app, 0, sizeof *app);
    app_defaults(app);
    CvError e = first_setup(o, &set, why, whylen);
    if (!e)
        e = scene_new(&app->scene, &set, why, whylen);
    if (e)
        return e;
    app->view.present = o->present;
    app->view.root = o->root;
    if (why[0]) /* the backend could not load the picture */
        app_message(app, true, "%s", why);
    if (!o->no_worker && !(app->bg.worker = worker_new())) {
        snprintf(why, whylen, "The background thread cannot start.");
        return CV_ERR_NOMEM;
    }
    return CV_OK;
}

void app_fini(App *app)
{
    worker_free(app->bg.worker);
    app->bg.worker = NULL;
    scene_free(app->scene);
    app->scene = NULL;
    free(app->bg.step_s);
    app->bg.step_s = NULL;
}

/* ------------------------------------------------------------ the scene */

void app_scene_said(App *app, const char *why)
{
    if (app->scene->broken) {
        app_message(app, true, "%s", why);
        app->status.exit_status = 1;
        app->status.quit = true;
    } else if (why[0]) {
        app_message(app, true, "%s", why);
    }
}

/* Whether the sweep's points are of the scene's call and backend (an
 * algorithm's change keeps them: the chart compares algorithms). */
static bool same_sweep(const App *app)
{
    const CollCall *a = &app->bg.sweep_call, *b = &app->scene->call;
    return a->kind == b->kind && a->nranks == b->nranks &&
           a->dtype == b->dtype && a->op == b->op && a->root == b->root &&
           a->in_place == b->in_place &&
           app->bg.sweep_backend == (const void *)app->scene->backend;
}

/* Drop the sweep's points of the algorithms a new sweep measures (all of
 * them when the call changed), keeping the others'. */
static void drop_points(App *app, bool compare)
{
    AppBg *bg = &app->bg;
    size_t n = 0;
    for (size_t i = 0; i < bg->nsweep && same_sweep(app); i++)
        if (!compare && bg->sweep[i].algo != app->scene->algo)
            bg->sweep[n++] = bg->sweep[i];
    bg->nsweep = n;
    bg->sweep_call = app->scene->call;
    bg->sweep_backend = app->scene->backend;
}

/* The sweep of another call: the one kept aside takes its place, and it
 * is kept aside in turn (so toggling in place and back, or any change
 * and back, finds the sweep as it was); dropped when the one kept aside
 * is not of the scene's call either. */
static void swap_sweep(App *app)
{
    AppBg *bg = &app->bg;
    size_t n = bg->nsweep > bg->nstash ? bg->nsweep : bg->nstash;
    for (size_t i = 0; i < n; i++) {
        SweepPoint t = bg->sweep[i];
        bg->sweep[i] = bg->stash[i], bg->stash[i] = t;
    }
    size_t tn = bg->nsweep;
    bg->nsweep = bg->nstash, bg->nstash = tn;
    CollCall tc = bg->sweep_call;
    bg->sweep_call = bg->stash_call, bg->stash_call = tc;
    const void *tb = bg->sweep_backend;
    bg->sweep_backend = bg->stash_backend, bg->stash_backend = tb;
    if (!same_sweep(app))
        bg->nsweep = 0;
}

/* Forget background results: they belong to the scene before. */
static void forget_results(App *app)
{
    AppBg *bg = &app->bg;
    bg->total_s.valid = false;
    bg->steps_ok = false;
    bg->kind = WORKER_IDLE;
    bg->job = 0; /* a job still running posts results that are not ours */
    bg->planned = 0;
    if (!same_sweep(app))
        swap_sweep(app);
}

bool app_remake(App *app, const SceneSetup *set, bool keep_step)
{
    char why[200], seek_why[200] = "";
    size_t old = app->scene->step;
    WorkerKind was = app->bg.kind;
    if (app->bg.worker)
        worker_cancel(app->bg.worker);
    if (scene_remake(&app->scene, set, why, sizeof why)) {
        app_message(app, true, "%s", why);
        return false;
    }
    forget_results(app);
    app->view.sel_rank = -1;
    app->play.on = false;
    if (!app->scene->broken && keep_step && old)
        scene_seek(app->scene, old, seek_why, sizeof seek_why);
    app_scene_said(app, seek_why[0] ? seek_why : why);
    /* say what the change cancelled, unless the scene had more to say */
    if (was != WORKER_IDLE && !seek_why[0] && !why[0])
        app_message(app, false, "%s",
                    was == WORKER_BENCH   ? _("The timed run was cancelled: "
                                              "the scene changed.")
                    : was == WORKER_CALIB ? _("The calibration was "
                                              "cancelled: the scene changed.")
                                          : _("The sweep was cancelled: the "
                                              "scene changed."));
    return true;
}

/* ------------------------------------------------------------ stepping */

static void seek(App *app, size_t k)
{
    char why[200];
    scene_seek(app->scene, k, why, sizeof why);
    app_scene_said(app, why);
}

static void do_next(App *app, const Request *r)
{
    if (app->scene->step < app->scene->sched.nsteps) {
        seek(app, app->scene->step + 1);
        return;
    }
    app->play.on = false;
    app_message(app, false,
                _("That was the last step; Home goes back to the start."));
}

static void do_prev(App *app, const Request *r)
{
    if (app->scene->step > 0)
        seek(app, app->scene->step - 1);
}

static void do_first(App *app, const Request *r) { seek(app, 0); }

static void do_last(App *app, const Request *r)
{
    seek(app, app->scene->sched.nsteps);
}

static void do_seek(App *app, const Request *r)
{
    if (r->a >= 0)
        seek(app, (size_t)r->a);
}

static void do_play(App *app, const Request *r)
{
    app->play.on = !app->play.on;
    if (app->play.on && app->scene->step >= app->scene->sched.nsteps)
        seek(app, 0);
    app->play.due = app_now() + app->play.ms / 1e3;
}

static void do_speed(App *app, const Request *r)
{
    int ms = r->act == ACT_FASTER ? app->play.ms * 2 / 3
                                  : app->play.ms * 3 / 2;
    app->play.ms = ms < 50 ? 50 : ms > 5000 ? 5000 : ms;
}

/* A tick while playing is one step (scripts send ticks; app_poll sends
 * them when a step is due). */
static void do_tick(App *app, const Request *r)
{
    if (!app->play.on)
        return;
    const Scene *sc = app->scene;
    if (sc->step < sc->sched.nsteps)
        seek(app, sc->step + 1);
    if (sc->step >= sc->sched.nsteps)
        app->play.on = false;
}

/* ------------------------------------------------------------ knobs */

static void do_menu(App *app, const Request *r)
{
    static const MenuKind menus[ACT_COUNT] = {
        [ACT_MENU_COLL] = MENU_COLL,   [ACT_MENU_ALGO] = MENU_ALGO,
        [ACT_MENU_RANKS] = MENU_RANKS, [ACT_MENU_SIZE] = MENU_SIZE,
        [ACT_MENU_DTYPE] = MENU_DTYPE, [ACT_MENU_OP] = MENU_OP,
        [ACT_MENU_ROOT] = MENU_ROOT,   [ACT_MENU_BACKEND] = MENU_BACKEND,
        [ACT_MENU_MACHINE] = MENU_MACHINE,
    };
    MenuKind k = menus[r->act];
    CollKind kind = app->scene->call.kind;
    if (k == MENU_OP && !coll_is_reducing(kind))
        app_message(app, false, _("%s does not reduce; it has no op."),
                    coll_name(kind));
    else if (k == MENU_ROOT && !coll_is_rooted(kind))
        app_message(app, false, _("%s has no root."), coll_name(kind));
    else if (menu_open(&app->mode.menu, k, app->scene, &app->mode.backends))
        app_mode_set(app, MODE_MENU);
}

static void do_inplace(App *app, const Request *r)
{
    SceneSetup set;
    scene_setup(app->scene, &set);
    set.call.in_place = !set.call.in_place;
    app_remake(app, &set, false);
}

/* Lock-step and data-flow in turn: the same scene and step priced the
 * other way (a remake: every time shown, the chart's too, is the new
 * mode's). A finished timed run stays: what was measured is the same
 * either way, and the verdict can be read against both. */
static void do_pricing(App *app, const Request *r)
{
    (void)r;
    SceneSetup set;
    scene_setup(app->scene, &set);
    set.pricing = set.pricing == PRICING_DATAFLOW ? PRICING_LOCKSTEP
                                                  : PRICING_DATAFLOW;
    AppBg *bg = &app->bg;
    bool idle = bg->kind == WORKER_IDLE, steps_ok = bg->steps_ok;
    Value total = bg->total_s;
    if (!app_remake(app, &set, true))
        return;
    if (idle) /* the same schedule: step_s still holds its steps */
        bg->total_s = total,
        bg->steps_ok = steps_ok && bg->nsteps == app->scene->big_sched.nsteps;
    if (!app->status.msg[0])
        app_message(app, false, "%s", set.pricing == PRICING_DATAFLOW
                    ? _("Data-flow: a rank goes on once its own messages "
                        "are done; the whole is the latest rank's.")
                    : _("Lock-step: every step waits for its slowest "
                        "message; the whole is the steps' sum."));
}

static void do_cells(App *app, const Request *r)
{
    SceneSetup set;
    scene_setup(app->scene, &set);
    set.cells += r->act == ACT_CELLS_MORE ? 1 : -1;
    if (set.cells >= 1 && set.cells <= SCENE_MAX_CELLS)
        app_remake(app, &set, true); /* the same step, finer */
}

/* The picture's chunks of a pipelined algorithm in turn (1, 2, 4, 8, and
 * back to its own rule), so its steps are the chunks themselves; from
 * the first step, as the steps are others. */
static void do_chunks(App *app, const Request *r)
{
    (void)r;
    SceneSetup set;
    scene_setup(app->scene, &set);
    if (!set.algo->pipelined || set.count) {
        app_message(app, false, _("%s cuts the vector into no chunks the "
                                  "picture can set."), set.algo->name);
        return;
    }
    set.chunks = scene_next_chunks(set.algo, set.chunks);
    if (!app_remake(app, &set, false) || app->status.msg[0])
        return;
    if (set.chunks)
        app_message(app, false, _("The picture in chunks, %d: each step "
                                  "moves whole chunks."), set.chunks);
    else
        app_message(app, false, _("The picture's chunks by the "
                                  "algorithm's own rule."));
}

/* ------------------------------------------------------------ background */

/* A job for the worker from the current scene. */
static void make_job(const App *app, WorkerKind kind, WorkerJob *j)
{
    const Scene *sc = app->scene;
    *j = (WorkerJob){.kind = kind, .call = sc->call, .algo = sc->algo,
                     .compare = app->bg.compare, .backend = sc->backend,
                     .backend_params = sc->backend_params,
                     .bytes = sc->bytes,
                     .min_bytes = APP_SWEEP_MIN, .model = sc->model,
                     .budget_s = kind == WORKER_BENCH ? 1.0 : 0.02};
}

/* Whether background work can run here; a sentence when not. */
static bool can_run(App *app)
{
    if (app->bg.worker && app->scene->backend)
        return true;
    app_message(app, true,
                _("Timed runs need a backend and the background thread."));
    return false;
}

static void start_job(App *app, WorkerKind kind)
{
    AppBg *bg = &app->bg;
    WorkerJob j;
    if (!can_run(app))
        return;
    make_job(app, kind, &j);
    bg->job = worker_submit(bg->worker, &j);
    bg->kind = kind;
    bg->progress = 0;
    bg->planned = 0;
    if (kind == WORKER_SWEEP) {
        drop_points(app, bg->compare);
        app->view.show[VIEW_CHART] = true;
    }
}

/* Calibrate in the background: K a full calibration, before the first
 * timed run without one a quick one (then_bench), as perf does. */
static void start_calib(App *app, bool quick, bool then_bench)
{
    AppBg *bg = &app->bg;
    WorkerJob j;
    if (!can_run(app))
        return;
    make_job(app, WORKER_CALIB, &j);
    j.quick = quick;
    j.then_bench = then_bench;
    bg->job = worker_submit(bg->worker, &j);
    bg->kind = WORKER_CALIB;
    bg->bench_next = then_bench;
    bg->progress = 0;
    bg->planned = 0;
}

static void do_bench(App *app, const Request *r)
{
    const Scene *sc = app->scene;
    if (sc->model.calibrated || !sc->backend || !app->bg.worker) {
        start_job(app, WORKER_BENCH);
        return;
    }
    start_calib(app, true, true);
    if (app->bg.kind == WORKER_CALIB)
        app_message(app, false, _("No calibration of %s at %d ranks here "
                                  "yet: a quick one first (K for a "
                                  "thorough one)."),
                    sc->backend->name, sc->call.nranks);
}

static void do_calibrate(App *app, const Request *r)
{
    if (app->bg.kind == WORKER_CALIB && app->bg.worker) {
        worker_cancel(app->bg.worker);
        return;
    }
    start_calib(app, false, false);
}

static void do_sweep(App *app, const Request *r)
{
    if (r->act == ACT_COMPARE)
        app->bg.compare = !app->bg.compare;
    else if (app->bg.kind == WORKER_SWEEP && app->bg.worker) {
        worker_cancel(app->bg.worker);
        return;
    }
    start_job(app, WORKER_SWEEP);
}

/* Esc without a mode: cancel background work, else the selection and
 * play. */
static void do_cancel(App *app, const Request *r)
{
    if (app->bg.kind != WORKER_IDLE && app->bg.worker) {
        worker_cancel(app->bg.worker);
    } else {
        app->view.sel_rank = -1;
        app->play.on = false;
    }
}

/* A timed run's measurement; its step times become the App's. */
static void take_timed(AppBg *bg, WorkerResult *res)
{
    free(bg->step_s);
    bg->step_s = res->step_s;
    bg->nsteps = res->nsteps;
    bg->steps_ok = res->step_s != NULL;
    res->step_s = NULL;
    bg->total_s = (Value){res->iter_s, true};
    bg->min_s = res->min_s;
    bg->runs = res->runs;
    bg->moved = res->moved;
    bg->bytes = res->bytes;
    bg->verified = res->verified;
}

/* A result of the job in the background (another job's are stale). */
static void do_result(App *app, const Request *r)
{
    AppBg *bg = &app->bg;
    WorkerResult *res = r->result;
    if (!res || !bg->job || res->job != bg->job)
        return;
    bg->progress = res->progress;
    bg->planned = res->planned;
    switch (res->kind) {
    case WORKER_TIMED: take_timed(bg, res); break;
    case WORKER_CALIBRATED:
        scene_use_calib(app->scene, res->calib);
        app_message(app, false, "%s", res->msg);
        if (bg->kind == WORKER_CALIB && bg->bench_next)
            bg->kind = WORKER_BENCH; /* the timed run follows */
        break;
    case WORKER_POINT:
        if (bg->nsweep < WORKER_SWEEP_MAX)
            bg->sweep[bg->nsweep++] = res->point;
        break;
    case WORKER_ERROR:
    case WORKER_DONE:
        bg->kind = WORKER_IDLE;
        app_message(app, res->error, "%s", res->msg);
        break;
    case WORKER_PROGRESS:
    case WORKER_RESULT_COUNT: break;
    }
}

/* ------------------------------------------------------------ view */

static void do_toggle(App *app, const Request *r)
{
    static const ViewId panel[ACT_COUNT] = {
        [ACT_TOGGLE_TOPO] = VIEW_TOPOLOGY,
        [ACT_TOGGLE_TIMELINE] = VIEW_TIMELINE,
        [ACT_TOGGLE_CHART] = VIEW_CHART,
        [ACT_TOGGLE_XFERS] = VIEW_TRANSFERS,
    };
    ViewId v = panel[r->act];
    app->view.show[v] = !app->view.show[v];
    if (!app->view.show[v] || !app->view.placed || app->view.placed(app, v))
        return;
    /* on, but the layout has no room for it: said, with what shows it */
    int w = app->view.term_w, h = app->view.term_h;
    if (v == VIEW_CHART)
        app_message(app, false, _("No room for the chart at %dx%d: F draws "
                                  "it over the whole screen."), w, h);
    else if (v == VIEW_TOPOLOGY)
        app_message(app, false, _("No room for the topology at %dx%d: Z "
                                  "draws it over the whole screen."), w, h);
    else
        app_message(app, false, _("No room for that panel at %dx%d: a "
                                  "larger terminal shows it."), w, h);
}

/* Cells of one picture row (every shown buffer). */
static int row_cells(const Scene *sc)
{
    size_t n = 0;
    for (int b = 0; b < BUF_COUNT; b++)
        for (int r = 0, m = 0; r < sc->call.nranks; r++)
            if ((int)scene_buf_cells(sc, r, (BufId)b) > m) {
                n += scene_buf_cells(sc, r, (BufId)b) - (size_t)m;
                m = (int)scene_buf_cells(sc, r, (BufId)b);
            }
    return (int)n;
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static void do_scroll(App *app, const Request *r)
{
    int dy = r->act == ACT_SCROLL_UP ? -1 : r->act == ACT_SCROLL_DOWN ? 1 : 0;
    int dx = r->act == ACT_SCROLL_LEFT ? -8 : r->act == ACT_SCROLL_RIGHT ? 8 : 0;
    AppView *v = &app->view;
    v->scroll_rank = clampi(v->scroll_rank + dy, 0,
                            app->scene->call.nranks - 1);
    v->scroll_cell = clampi(v->scroll_cell + dx, 0, row_cells(app->scene));
}

static void do_select(App *app, const Request *r)
{
    AppView *v = &app->view;
    if (r->a < 0 || r->a >= app->scene->call.nranks)
        return;
    v->sel_rank = r->a;
    v->sel_buf = -1;
    if (r->act == ACT_SELECT_CELL && r->b >= 0 && r->b < BUF_COUNT &&
        r->c >= 0 &&
        (size_t)r->c < scene_buf_cells(app->scene, r->a, (BufId)r->b)) {
        v->sel_buf = r->b;
        v->sel_elem = (size_t)r->c;
    }
}

static void do_ascii(App *app, const Request *r) { app->view.ascii = !app->view.ascii; }
static void do_present(App *app, const Request *r) { app->view.present = !app->view.present; }
/* A new theme repaints every cell (a terminal keeps the old colours of
 * cells whose colour pair was redefined). */
static void do_theme(App *app, const Request *r)
{
    app->view.theme++;
    app->view.redraw = true;
}
static void do_redraw(App *app, const Request *r) { app->view.redraw = true; }
static void do_quit(App *app, const Request *r) { app->status.quit = true; }

static void do_chart_view(App *app, const Request *r)
{
    app->view.chart_busbw = !app->view.chart_busbw;
    app->view.show[VIEW_CHART] = true;
}

static void do_chart_pick(App *app, const Request *r)
{
    app->view.chart_pick = (app->view.chart_pick + 1) % 1000;
    app->view.show[VIEW_CHART] = true;
    const AlgoInfo *one = NULL;
    for (size_t i = 0; i < app->bg.nsweep; i++)
        if (!one)
            one = app->bg.sweep[i].algo;
        else if (app->bg.sweep[i].algo != one)
            return; /* two algorithms or more to pick from */
    char all[32], pick[32];
    keys_names(ACT_COMPARE, "/", all, sizeof all);
    keys_names(ACT_CHART_PICK, "/", pick, sizeof pick);
    if (one)
        app_message(app, false, _("The chart has %s alone to show: %s "
                                  "sweeps every algorithm, then %s picks "
                                  "which it shows."), one->name, all, pick);
    else
        app_message(app, false, _("The chart has nothing to show yet: %s "
                                  "sweeps every algorithm, then %s picks "
                                  "which it shows."), all, pick);
}

static void do_chart_full(App *app, const Request *r)
{
    app->view.chart_full = !app->view.chart_full;
    app->view.topo_full = false;
}

static void do_topo_full(App *app, const Request *r)
{
    app->view.topo_full = !app->view.topo_full;
    app->view.chart_full = false;
}

static void do_help(App *app, const Request *r)
{
    app->mode.help_top = 0;
    app_mode_set(app, MODE_HELP);
}

static void do_lessons(App *app, const Request *r)
{
    app->status.lessons = app->status.quit = true;
}

/* w (the screen as SVG), W (the steps from here as a cast): ask for the
 * file, with a free name in the current folder typed already; Enter
 * leaves it in status.export_to for whoever draws. */
static void do_export(App *app, const Request *r)
{
    char name[TEXT_MAX + 1];
    bool cast = r->act == ACT_EXPORT_CAST;
    scene_str_file_name(app->scene, cast ? "cast" : "svg", name, sizeof name);
    text_open(&app->mode.text,
              cast ? _("Write the steps from here as an asciicast to "
                       "(Enter writes): ")
              : app->view.chart_full ? _("Write the chart as SVG lines to "
                                         "(Enter writes, Esc cancels): ")
              : app->view.topo_full ? _("SVG frames of the topology to "
                                        "(Enter writes, Esc cancels): ")
              : _("Write the screen as SVG to (Enter writes, Esc "
                  "cancels): "), name);
    app->mode.text_for = cast ? TEXT_FOR_CAST : TEXT_FOR_SVG;
    app_mode_set(app, MODE_TEXT);
}

/* u: the scene string on the status line, to copy into slides or chat. */
static void do_scene_str(App *app, const Request *r)
{
    SceneStr s;
    char text[SCENE_STR_LEN];
    scene_str_of(app->scene, app->view.present, &s);
    scene_str_format(&s, text, sizeof text);
    app_message(app, false, _("Scene: %s  (collviz --scene '...' reopens "
                              "it)"), text);
}

static void do_resize(App *app, const Request *r)
{
    app->view.term_w = r->a;
    app->view.term_h = r->b;
}

/* ------------------------------------------------------------ dispatch */

typedef void (*Handler)(App *app, const Request *r);

/* What each request does when no mode took it. Requests only a mode
 * understands (picking, typing) have none. */
static const Handler handlers[ACT_COUNT] = {
    [ACT_NEXT] = do_next,           [ACT_PREV] = do_prev,
    [ACT_FIRST] = do_first,         [ACT_LAST] = do_last,
    [ACT_PLAY] = do_play,           [ACT_FASTER] = do_speed,
    [ACT_SLOWER] = do_speed,        [ACT_MENU_COLL] = do_menu,
    [ACT_MENU_ALGO] = do_menu,      [ACT_MENU_RANKS] = do_menu,
    [ACT_MENU_SIZE] = do_menu,      [ACT_MENU_DTYPE] = do_menu,
    [ACT_MENU_OP] = do_menu,        [ACT_MENU_ROOT] = do_menu,
    [ACT_MENU_BACKEND] = do_menu,   [ACT_INPLACE] = do_inplace,
    [ACT_MENU_MACHINE] = do_menu,
    [ACT_CELLS_MORE] = do_cells,    [ACT_CELLS_LESS] = do_cells,
    [ACT_CHUNKS] = do_chunks,
    [ACT_BENCH] = do_bench,         [ACT_SWEEP] = do_sweep,
    [ACT_COMPARE] = do_sweep,       [ACT_CANCEL] = do_cancel,
    [ACT_CALIBRATE] = do_calibrate, [ACT_PRICING] = do_pricing,
    [ACT_TOGGLE_TOPO] = do_toggle,  [ACT_TOGGLE_TIMELINE] = do_toggle,
    [ACT_TOGGLE_CHART] = do_toggle, [ACT_TOGGLE_XFERS] = do_toggle,
    [ACT_SCROLL_UP] = do_scroll,    [ACT_SCROLL_DOWN] = do_scroll,
    [ACT_SCROLL_LEFT] = do_scroll,  [ACT_SCROLL_RIGHT] = do_scroll,
    [ACT_ASCII] = do_ascii,         [ACT_THEME] = do_theme,
    [ACT_CHART_VIEW] = do_chart_view, [ACT_PRESENT] = do_present,
    [ACT_CHART_FULL] = do_chart_full, [ACT_TOPO_FULL] = do_topo_full,
    [ACT_CHART_PICK] = do_chart_pick,
    [ACT_HELP] = do_help,           [ACT_REDRAW] = do_redraw,
    [ACT_QUIT] = do_quit,           [ACT_LESSONS] = do_lessons,
    [ACT_EXPORT_SVG] = do_export,   [ACT_SCENE_STR] = do_scene_str,
    [ACT_EXPORT_CAST] = do_export,
    [ACT_SELECT_CELL] = do_select,
    [ACT_SELECT_RANK] = do_select,  [ACT_SEEK] = do_seek,
    [ACT_RESIZE] = do_resize,       [ACT_TICK] = do_tick,
    [ACT_RESULT] = do_result,
};

/* Whether act is what a user did: it clears the last message, and the
 * open mode sees it first. */
static bool is_user(Action act)
{
    return act != ACT_TICK && act != ACT_RESIZE && act != ACT_NONE &&
           act != ACT_REDRAW && act != ACT_RESULT;
}

void app_apply(App *app, const Request *req)
{
    if (req->act >= ACT_COUNT || req->act == ACT_NONE)
        return;
    if (is_user(req->act)) {
        app->status.msg[0] = '\0';
        app->status.error = false;
        const ModeOps *m = app_mode_ops(app->mode.kind);
        if (m->apply && m->apply(app, req))
            return;
    }
    if (handlers[req->act])
        handlers[req->act](app, req);
}

bool app_poll(App *app, double now)
{
    bool changed = false;
    WorkerResult res;
    while (app->bg.worker && worker_take(app->bg.worker, &res)) {
        Request r = {.act = ACT_RESULT, .result = &res};
        app_apply(app, &r);
        worker_result_fini(&res);
        changed = true;
    }
    if (app->play.on && now >= app->play.due) {
        Request t = {.act = ACT_TICK};
        app_apply(app, &t);
        app->play.due = now + app->play.ms / 1e3;
        changed = true;
    }
    return changed;
}
