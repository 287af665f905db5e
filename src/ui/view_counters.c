/* view_counters.c - live counters: bytes of the shown step, so far and in
 * total at the measured size; measured and predicted times; bandwidths;
 * the check of the real buffers; background progress. Values not measured
 * yet show as N/A. */
#include <math.h>
#include <stdio.h>

#include "ui/view.h"

#define LABEL_W 9 /* columns of the row labels */
#define COL_W 10  /* columns of each value column */

/* A row of a label and two right-aligned values. */
static void row(Grid *g, Rect r, int y, const char *label, const char *a,
                const char *b, Role vrole)
{
    grid_text(g, r, r.x, y, LABEL_W, ROLE_HEADER, 0, label);
    grid_printf(g, r, r.x + LABEL_W, y, COL_W, vrole, 0, "%*s", COL_W - 1, a);
    grid_printf(g, r, r.x + LABEL_W + COL_W, y, COL_W, vrole, 0, "%*s",
                COL_W - 1, b);
}

static void bytes_row(Grid *g, Rect r, int y, const char *label, bool ok,
                      size_t sent, size_t recvd)
{
    char a[24] = "-", b[24] = "-";
    if (ok) {
        view_fmt_bytes(a, sizeof a, (double)sent);
        view_fmt_bytes(b, sizeof b, (double)recvd);
    }
    row(g, r, y, label, a, b, ok ? ROLE_VALUE : ROLE_DIM);
}

static void time_row(Grid *g, Rect r, int y, const char *label, Value m,
                     Value p)
{
    char a[24], b[24];
    view_fmt_value(a, sizeof a, m, view_fmt_time);
    view_fmt_value(b, sizeof b, p, view_fmt_time);
    row(g, r, y, label, a, b, m.valid || p.valid ? ROLE_VALUE : ROLE_DIM);
}

/* Measured time of the shown step, when a timed run measured it. */
static Value measured_step(const App *app)
{
    const Scene *sc = app->scene;
    size_t k;
    if (!app->bg.steps_ok || !sc->big_ok || !scene_shown(sc, &k) ||
        app->bg.nsteps != sc->big_sched.nsteps)
        return (Value){0, false};
    return (Value){app->bg.step_s[k], true};
}

static void draw_bytes(const App *app, Grid *g, Rect r, int y)
{
    const Scene *sc = app->scene;
    size_t k;
    bool shown = sc->big_ok && scene_shown(sc, &k);
    row(g, r, y, "bytes", "sent", "received", ROLE_HEADER);
    if (sc->big_ok) {
        bytes_row(g, r, y + 1, " step", shown, sc->step_sent,
                  sc->step_recvd);
        bytes_row(g, r, y + 2, " so far", shown, sc->sofar_sent,
                  sc->sofar_recvd);
    } else { /* a pipeline: the measured size has other steps */
        grid_text(g, r, r.x, y + 1, LABEL_W, ROLE_HEADER, 0, " step");
        grid_printf(g, r, r.x + LABEL_W, y + 1, -1, ROLE_DIM, 0,
                    "%zu steps at this size", sc->big_sched.nsteps);
    }
    bytes_row(g, r, y + 3, " whole", true, sc->totals.max_sent,
              sc->totals.max_recvd);
}

static void draw_times(const App *app, Grid *g, Rect r, int y)
{
    const Scene *sc = app->scene;
    row(g, r, y, "time", "measured", "model", ROLE_HEADER);
    time_row(g, r, y + 1, " step", measured_step(app), sc->pred_step_s);
    time_row(g, r, y + 2, " whole", app->bg.total_s, sc->pred_total_s);
    grid_text(g, r, r.x, y + 3, LABEL_W, ROLE_HEADER, 0, " dev");
    if (app->bg.total_s.valid && sc->pred_total_s.valid &&
        sc->pred_total_s.v > 0) {
        double d = app->bg.total_s.v / sc->pred_total_s.v - 1;
        grid_printf(g, r, r.x + LABEL_W, y + 3, -1,
                    fabs(d) > 0.5 ? ROLE_WARN : ROLE_VALUE, 0,
                    "%+*.1f %% vs model", COL_W - 3, d * 100);
    } else {
        grid_printf(g, r, r.x + LABEL_W, y + 3, -1, ROLE_DIM, 0, "%*s",
                    COL_W - 1, "N/A");
    }
}

static void draw_bandwidth(const App *app, Grid *g, Rect r, int y)
{
    const Scene *sc = app->scene;
    grid_text(g, r, r.x, y, LABEL_W, ROLE_HEADER, 0, "GB/s");
    if (!app->bg.total_s.valid || app->bg.total_s.v <= 0) {
        grid_text(g, r, r.x + LABEL_W, y, -1, ROLE_DIM, 0,
                  "algbw N/A  busbw N/A");
        return;
    }
    double alg = (double)app->bg.bytes / app->bg.total_s.v / 1e9;
    double bus = alg * coll_busbw_factor(sc->call.kind, sc->call.nranks);
    grid_printf(g, r, r.x + LABEL_W, y, -1, ROLE_VALUE, 0,
                "algbw %.2f  busbw %.2f", alg, bus);
}

/* Where the model's parameters come from. */
static void draw_model(const App *app, Grid *g, Rect r, int y)
{
    const Scene *sc = app->scene;
    grid_text(g, r, r.x, y, LABEL_W, ROLE_HEADER, 0, "model");
    if (sc->model.calibrated)
        grid_printf(g, r, r.x + LABEL_W, y, -1, ROLE_VALUE, 0,
                    "calibrated, %s", link_name(sc->model.link));
    else
        grid_printf(g, r, r.x + LABEL_W, y, -1, ROLE_DIM, 0,
                    "defaults, %s", link_name(sc->model.link));
}

/* Whether the real buffers matched the symbolic state. */
static void draw_check(const App *app, Grid *g, Rect r, int y)
{
    const Scene *sc = app->scene;
    grid_text(g, r, r.x, y, LABEL_W, ROLE_HEADER, 0, "check");
    int x = r.x + LABEL_W;
    if (!sc->ex) {
        grid_text(g, r, x, y, -1, ROLE_DIM, 0, "N/A (no backend)");
    } else if (!sc->check.real_ok) {
        grid_text(g, r, x, y, -1, ROLE_DIM, 0, "N/A (not read)");
    } else if (sc->check.nwrong == 0) {
        grid_putg(g, r, x, y, GL_CHECK, ROLE_OK);
        grid_printf(g, r, x + 2, y, -1, ROLE_OK, 0, "real = expected");
    } else {
        grid_putg(g, r, x, y, GL_CROSSMARK, ROLE_ERROR);
        grid_printf(g, r, x + 2, y, -1, ROLE_ERROR, 0, "%zu cells wrong",
                    sc->check.nwrong);
    }
}

/* Background job and its progress bar. */
static void draw_background(const App *app, Grid *g, Rect r, int y)
{
    grid_text(g, r, r.x, y, LABEL_W, ROLE_HEADER, 0, "running");
    int x = r.x + LABEL_W;
    if (app->bg.kind == WORKER_IDLE) {
        grid_text(g, r, x, y, -1, ROLE_DIM, 0, "nothing (m: time it)");
        return;
    }
    const char *what = app->bg.kind == WORKER_BENCH ? "timed run" : "sweep";
    x += grid_printf(g, r, x, y, -1, ROLE_VALUE, 0, "%s ", what);
    int bar = r.x + r.w - x - 5, fill = (int)(app->bg.progress * bar + 0.5);
    for (int i = 0; i < bar; i++)
        grid_putg(g, r, x + i, y, i < fill ? GL_BLOCK : GL_SHADE1,
                  ROLE_MEASURED);
    grid_printf(g, r, x + (bar > 0 ? bar : 0), y, -1, ROLE_VALUE, 0, "%4.0f%%",
                app->bg.progress * 100);
}

static void counters_draw(const App *app, Grid *g, Rect r)
{
    draw_bytes(app, g, r, r.y);
    draw_times(app, g, r, r.y + 4);
    draw_bandwidth(app, g, r, r.y + 8);
    draw_model(app, g, r, r.y + 9);
    draw_check(app, g, r, r.y + 10);
    draw_background(app, g, r, r.y + 11);
}

const ViewOps view_counters = {
    .name = "counters",
    .title = "Counters",
    .framed = true,
    .draw = counters_draw,
    .click = NULL,
};
