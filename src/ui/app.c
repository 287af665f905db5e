/* app.c - the TUI's state and the one function that changes it. */
#include "ui/app.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli/cli.h"
#include "ui/menu.h"
#include "ui/scene.h"
#include "ui/worker.h"

/* ------------------------------------------------------------ actions */

static const char *const action_names[ACT_COUNT] = {
#define X(id, name, help) [id] = name,
    APP_ACTIONS(X)
#undef X
};

static const char *const action_helps[ACT_COUNT] = {
#define X(id, name, help) [id] = help,
    APP_ACTIONS(X)
#undef X
};

const char *action_name(Action a) { return a < ACT_COUNT ? action_names[a] : "?"; }
const char *action_help(Action a) { return a < ACT_COUNT ? action_helps[a] : "?"; }

int action_parse(const char *s)
{
    for (int a = 0; s && a < ACT_COUNT; a++)
        if (!strcasecmp(s, action_names[a]))
            return a;
    return -1;
}

double app_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool app_buf_shown(const App *app, BufId b)
{
    for (int r = 0; r < app->call.nranks; r++)
        if (app_buf_cells(app, r, b))
            return true;
    return false;
}

void app_message(App *app, bool error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(app->msg, sizeof app->msg, fmt, ap);
    va_end(ap);
    app->msg_error = error;
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

/* Panels on at the start, play speed, model defaults. */
static void app_defaults(App *app, const AppOptions *o)
{
    static const ViewId on[] = {VIEW_HEADER,   VIEW_BUFFERS, VIEW_TRANSFERS,
                                VIEW_TOPOLOGY, VIEW_TIMELINE, VIEW_COUNTERS,
                                VIEW_STATUS};
    for (size_t i = 0; i < sizeof on / sizeof on[0]; i++)
        app->show[on[i]] = true;
    app->cells = o->cells > 0 ? o->cells : 1;
    app->bytes = o->bytes;
    app->play_ms = 700;
    app->sel_rank = -1;
    app->term_w = 100;
    app->term_h = 30;
    app->link = LINK_P2P;
    app->params = (ModelParams){.alpha = CLI_DEFAULT_ALPHA,
                                .beta = 1 / CLI_DEFAULT_BW,
                                .gamma = 1 / CLI_DEFAULT_GAMMA_BW};
}

CvError app_init(App *app, const AppOptions *o, char *why, size_t whylen)
{
    memset(app, 0, sizeof *app);
    app_defaults(app, o);
    const char *bname = o->backend ? o->backend : "threads";
    char bwhy[160] = "";
    app->backend = exec_find_spec(bname, &app->backend_params, bwhy,
                                  sizeof bwhy);
    if (!app->backend) {
        snprintf(why, whylen, "The %s backend cannot be used: %s.", bname,
                 bwhy);
        return CV_ERR_UNAVAILABLE;
    }
    const AlgoInfo *a = o->algo ? algo_find(o->kind, o->algo)
                                : algo_default(o->kind);
    if (!a) {
        snprintf(why, whylen, "%s has no algorithm called '%s'.",
                 coll_name(o->kind), o->algo);
        return CV_ERR_ALGO;
    }
    CollCall c = {.kind = o->kind, .nranks = o->nranks, .dtype = o->dtype,
                  .op = o->op, .root = o->root, .in_place = o->in_place};
    CvError e = scene_build(app, &c, a, why, whylen);
    if (!e && !o->no_worker && !(app->worker = worker_new())) {
        snprintf(why, whylen, "The background thread cannot start.");
        e = CV_ERR_NOMEM;
    }
    return e;
}

void app_fini(App *app)
{
    worker_free(app->worker);
    app->worker = NULL;
    scene_fini(app);
}

/* ------------------------------------------------------------ stepping */

static void seek(App *app, size_t k) { scene_seek(app, k); }

static void do_next(App *app, const Request *r)
{
    if (app->step < app->sched.nsteps) {
        seek(app, app->step + 1);
        return;
    }
    app->playing = false;
    app_message(app, false,
                "That was the last step; Home goes back to the start.");
}

static void do_prev(App *app, const Request *r)
{
    if (app->step > 0)
        seek(app, app->step - 1);
}

static void do_first(App *app, const Request *r) { seek(app, 0); }
static void do_last(App *app, const Request *r) { seek(app, app->sched.nsteps); }
static void do_seek(App *app, const Request *r)
{
    if (r->a >= 0)
        seek(app, (size_t)r->a);
}

static void do_play(App *app, const Request *r)
{
    app->playing = !app->playing;
    if (app->playing && app->step >= app->sched.nsteps)
        seek(app, 0);
    app->play_due = app_now() + app->play_ms / 1e3;
}

static void do_speed(App *app, const Request *r)
{
    int ms = r->act == ACT_FASTER ? app->play_ms * 2 / 3
                                  : app->play_ms * 3 / 2;
    app->play_ms = ms < 50 ? 50 : ms > 5000 ? 5000 : ms;
}

/* A tick while playing is one step (scripts send ticks; app_poll sends
 * them when a step is due). */
static void do_tick(App *app, const Request *r)
{
    if (!app->playing)
        return;
    if (app->step < app->sched.nsteps)
        seek(app, app->step + 1);
    if (app->step >= app->sched.nsteps)
        app->playing = false;
}

/* ------------------------------------------------------------ scene */

static void do_menu(App *app, const Request *r)
{
    static const MenuKind menus[ACT_COUNT] = {
        [ACT_MENU_COLL] = MENU_COLL,   [ACT_MENU_ALGO] = MENU_ALGO,
        [ACT_MENU_RANKS] = MENU_RANKS, [ACT_MENU_SIZE] = MENU_SIZE,
        [ACT_MENU_DTYPE] = MENU_DTYPE, [ACT_MENU_OP] = MENU_OP,
        [ACT_MENU_ROOT] = MENU_ROOT,   [ACT_MENU_BACKEND] = MENU_BACKEND,
    };
    MenuKind k = menus[r->act];
    if (k == MENU_OP && !coll_is_reducing(app->call.kind))
        app_message(app, false, "%s does not reduce; it has no op.",
                    coll_name(app->call.kind));
    else if (k == MENU_ROOT && !coll_is_rooted(app->call.kind))
        app_message(app, false, "%s has no root.",
                    coll_name(app->call.kind));
    else
        menu_open(app, k);
}

static void do_inplace(App *app, const Request *r)
{
    CollCall c = app->call;
    c.in_place = !c.in_place;
    menu_rebuild(app, &c, app->algo, false);
}

static void do_cells(App *app, const Request *r)
{
    int old = app->cells, n = old + (r->act == ACT_CELLS_MORE ? 1 : -1);
    if (n < 1 || n > SCENE_MAX_CELLS)
        return;
    app->cells = n;
    if (!menu_rebuild(app, &app->call, app->algo, false))
        app->cells = old;
}

/* ------------------------------------------------------------ background */

/* A job for the worker from the current scene. */
static void make_job(const App *app, BgKind kind, WorkerJob *j)
{
    *j = (WorkerJob){.kind = kind, .call = app->call, .algo = app->algo,
                     .compare = app->compare, .backend = app->backend,
                     .backend_params = app->backend_params,
                     .bytes = app->bytes, .min_bytes = 1024,
                     .link = app->link, .params = app->params,
                     .calibrated = app->params_calibrated,
                     .calib = app->calib,
                     .budget_s = kind == BG_BENCH ? 1.0 : 0.05};
}

static void start_job(App *app, BgKind kind)
{
    WorkerJob j;
    if (!app->worker || !app->backend) {
        app_message(app, true,
                    "Timed runs need a backend and the background thread.");
        return;
    }
    make_job(app, kind, &j);
    app->bg_job = worker_submit(app->worker, &j);
    app->bg = kind;
    app->bg_progress = 0;
    if (kind == BG_SWEEP) {
        app->nsweep = 0;
        app->show[VIEW_CHART] = true;
    }
}

static void do_bench(App *app, const Request *r) { start_job(app, BG_BENCH); }

static void do_sweep(App *app, const Request *r)
{
    if (r->act == ACT_COMPARE)
        app->compare = !app->compare;
    else if (app->bg == BG_SWEEP && app->worker) {
        worker_cancel(app->worker);
        return;
    }
    start_job(app, BG_SWEEP);
}

static void do_cancel(App *app, const Request *r)
{
    if (app->menu.kind != MENU_NONE || app->help) {
        app->menu.kind = MENU_NONE;
        app->help = false;
    } else if (app->bg != BG_IDLE && app->worker) {
        worker_cancel(app->worker);
    } else {
        app->sel_rank = -1;
        app->playing = false;
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
    app->show[panel[r->act]] = !app->show[panel[r->act]];
}

/* Cells of one picture row (every shown buffer). */
static int row_cells(const App *app)
{
    size_t n = 0;
    for (int b = 0; b < BUF_COUNT; b++)
        for (int r = 0, m = 0; r < app->call.nranks; r++)
            if ((int)app_buf_cells(app, r, (BufId)b) > m) {
                n += app_buf_cells(app, r, (BufId)b) - (size_t)m;
                m = (int)app_buf_cells(app, r, (BufId)b);
            }
    return (int)n;
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static void do_scroll(App *app, const Request *r)
{
    int dy = r->act == ACT_SCROLL_UP ? -1 : r->act == ACT_SCROLL_DOWN ? 1 : 0;
    int dx = r->act == ACT_SCROLL_LEFT ? -8 : r->act == ACT_SCROLL_RIGHT ? 8 : 0;
    if (app->menu.kind != MENU_NONE) {
        menu_move(app, dy);
        return;
    }
    app->scroll_rank = clampi(app->scroll_rank + dy, 0, app->call.nranks - 1);
    app->scroll_cell = clampi(app->scroll_cell + dx, 0, row_cells(app));
}

static void do_enter(App *app, const Request *r)
{
    if (app->menu.kind != MENU_NONE)
        menu_pick(app, app->menu.cur);
}

static void do_pick(App *app, const Request *r)
{
    if (r->act == ACT_MENU_HOVER && r->a >= 0 && r->a < app->menu.n)
        app->menu.cur = r->a;
    else if (r->act == ACT_MENU_PICK)
        menu_pick(app, r->a);
}

static void do_select(App *app, const Request *r)
{
    if (r->a < 0 || r->a >= app->call.nranks)
        return;
    app->sel_rank = r->a;
    app->sel_buf = -1;
    if (r->act == ACT_SELECT_CELL && r->b >= 0 && r->b < BUF_COUNT &&
        r->c >= 0 && (size_t)r->c < app_buf_cells(app, r->a, (BufId)r->b)) {
        app->sel_buf = r->b;
        app->sel_elem = (size_t)r->c;
    }
}

static void do_misc(App *app, const Request *r)
{
    switch (r->act) {
    case ACT_ASCII: app->ascii = !app->ascii; break;
    case ACT_THEME: app->theme++; break;
    case ACT_HELP:
        app->help = !app->help;
        app->help_top = 0;
        break;
    case ACT_REDRAW: app->redraw = true; break;
    case ACT_QUIT: app->quit = true; break;
    case ACT_RESIZE:
        app->term_w = r->a;
        app->term_h = r->b;
        break;
    default: break;
    }
}

/* ------------------------------------------------------------ dispatch */

typedef void (*Handler)(App *app, const Request *r);

static const Handler handlers[ACT_COUNT] = {
    [ACT_NEXT] = do_next,           [ACT_PREV] = do_prev,
    [ACT_FIRST] = do_first,         [ACT_LAST] = do_last,
    [ACT_PLAY] = do_play,           [ACT_FASTER] = do_speed,
    [ACT_SLOWER] = do_speed,        [ACT_MENU_COLL] = do_menu,
    [ACT_MENU_ALGO] = do_menu,      [ACT_MENU_RANKS] = do_menu,
    [ACT_MENU_SIZE] = do_menu,      [ACT_MENU_DTYPE] = do_menu,
    [ACT_MENU_OP] = do_menu,        [ACT_MENU_ROOT] = do_menu,
    [ACT_MENU_BACKEND] = do_menu,   [ACT_INPLACE] = do_inplace,
    [ACT_CELLS_MORE] = do_cells,    [ACT_CELLS_LESS] = do_cells,
    [ACT_BENCH] = do_bench,         [ACT_SWEEP] = do_sweep,
    [ACT_COMPARE] = do_sweep,       [ACT_CANCEL] = do_cancel,
    [ACT_TOGGLE_TOPO] = do_toggle,  [ACT_TOGGLE_TIMELINE] = do_toggle,
    [ACT_TOGGLE_CHART] = do_toggle, [ACT_TOGGLE_XFERS] = do_toggle,
    [ACT_SCROLL_UP] = do_scroll,    [ACT_SCROLL_DOWN] = do_scroll,
    [ACT_SCROLL_LEFT] = do_scroll,  [ACT_SCROLL_RIGHT] = do_scroll,
    [ACT_ENTER] = do_enter,         [ACT_ASCII] = do_misc,
    [ACT_THEME] = do_misc,          [ACT_HELP] = do_misc,
    [ACT_REDRAW] = do_misc,         [ACT_QUIT] = do_misc,
    [ACT_SELECT_CELL] = do_select,  [ACT_SELECT_RANK] = do_select,
    [ACT_SEEK] = do_seek,           [ACT_MENU_PICK] = do_pick,
    [ACT_MENU_HOVER] = do_pick,     [ACT_RESIZE] = do_misc,
    [ACT_TICK] = do_tick,
};

/* Whether act is what a user did (it clears the last message). */
static bool is_user(Action act)
{
    return act != ACT_TICK && act != ACT_RESIZE && act != ACT_NONE &&
           act != ACT_REDRAW;
}

/* With a menu or help open, keys mean something else. */
static bool overlay_eats(App *app, const Request *r)
{
    Action a = r->act;
    if (a == ACT_QUIT || a == ACT_TICK || a == ACT_RESIZE || a == ACT_REDRAW)
        return false;
    if (app->help) {
        if (a == ACT_SCROLL_UP || a == ACT_SCROLL_DOWN) {
            int top = app->help_top + (a == ACT_SCROLL_UP ? -1 : 1);
            app->help_top = top < 0 ? 0 : top > ACT_COUNT ? ACT_COUNT : top;
        } else {
            app->help = false; /* any other key closes help */
        }
        return true;
    }
    if (app->menu.kind == MENU_NONE)
        return false;
    if (a == ACT_PREV || a == ACT_NEXT) {
        menu_move(app, a == ACT_PREV ? -1 : 1);
        return true;
    }
    return false;
}

void app_apply(App *app, const Request *req)
{
    if (req->act >= ACT_COUNT || req->act == ACT_NONE)
        return;
    if (is_user(req->act)) {
        app->msg[0] = '\0';
        app->msg_error = false;
    }
    if (overlay_eats(app, req))
        return;
    bool menu_action = req->act == ACT_SCROLL_UP ||
                       req->act == ACT_SCROLL_DOWN || req->act == ACT_ENTER ||
                       req->act == ACT_CANCEL || req->act == ACT_MENU_PICK ||
                       req->act == ACT_MENU_HOVER;
    if (app->menu.kind != MENU_NONE && !menu_action && is_user(req->act))
        app->menu.kind = MENU_NONE;
    if (handlers[req->act])
        handlers[req->act](app, req);
}

bool app_poll(App *app, double now)
{
    bool changed = app->worker && app->bg_job &&
                   worker_sync(app->worker, app->bg_job, app);
    if (app->playing && now >= app->play_due) {
        Request t = {.act = ACT_TICK};
        app_apply(app, &t);
        app->play_due = now + app->play_ms / 1e3;
        changed = true;
    }
    return changed;
}
