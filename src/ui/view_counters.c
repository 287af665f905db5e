/* view_counters.c - live counters: bytes of the shown step, so far and in
 * total at the measured size; measured and predicted times; bandwidths;
 * the check of the real buffers; background progress. Values not measured
 * yet show as N/A. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/num.h"
#include "ui/i18n.h"
#include "ui/keys.h"
#include "ui/view.h"
#include "ui/words.h"

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

/* The longest text a row may hold: its forms, longest first. */
#define FORM_LEN 96

/* Draw at (x, y) the first of n forms of one text (the same values, each
 * shorter than the one before) that fits before the panel's right edge,
 * else the last: a value is shortened, never cut. Returns the columns
 * used. */
static int put_fit(Grid *g, Rect r, int x, int y, Role role,
                   char form[][FORM_LEN], int n)
{
    int k = 0;
    while (k + 1 < n && grid_text_width(form[k]) > r.x + r.w - x)
        k++;
    return grid_text(g, r, x, y, -1, role, 0, form[k]);
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
    /* each row's busiest rank's (the two columns may be two ranks') */
    row(g, r, y, _("bytes"), _("max sent"), _("max recvd"), ROLE_HEADER);
    if (sc->big_ok) {
        bytes_row(g, r, y + 1, _(" step"), shown, sc->step_sent,
                  sc->step_recvd);
        bytes_row(g, r, y + 2, _(" so far"), shown, sc->sofar_sent,
                  sc->sofar_recvd);
    } else { /* a pipeline: the measured size has other steps */
        grid_text(g, r, r.x, y + 1, LABEL_W, ROLE_HEADER, 0, _(" step"));
        grid_printf(g, r, r.x + LABEL_W, y + 1, -1, ROLE_DIM, 0,
                    _("%zu steps at this size"), sc->big_sched.nsteps);
    }
    bytes_row(g, r, y + 3, _(" whole"), true, sc->totals.max_sent,
              sc->totals.max_recvd);
}

static void draw_times(const App *app, Grid *g, Rect r, int y)
{
    const Scene *sc = app->scene;
    row(g, r, y, _("time"), _("measured"), _("model"), ROLE_HEADER);
    time_row(g, r, y + 1, _(" step"), measured_step(app), sc->pred_step_s);
    time_row(g, r, y + 2, _(" whole"), app->bg.total_s, sc->pred_total_s);
    grid_text(g, r, r.x, y + 3, LABEL_W, ROLE_HEADER, 0, _(" dev"));
    double band = predictor_band(&sc->model);
    if (app->bg.total_s.valid && sc->pred_total_s.valid &&
        sc->pred_total_s.v > 0 && band > 0) {
        /* the median's deviation against the model's band (the
           calibration's worst check error), and why where it is out */
        double d = app->bg.total_s.v / sc->pred_total_s.v - 1;
        bool in = fabs(d) <= band;
        const char *moved = !in && app->bg.moved ? _(", moved") : "";
        char f[3][FORM_LEN];
        snprintf(f[0], sizeof f[0], in ? _("%+.0f%%, in ±%.0f%% band")
                                       : _("%+.0f%%, out of ±%.0f%%%s"),
                 d * 100, band * 100, moved);
        snprintf(f[1], sizeof f[1], in ? _("%+.0f%% in ±%.0f%%")
                                       : _("%+.0f%% out ±%.0f%%%s"),
                 d * 100, band * 100, moved);
        snprintf(f[2], sizeof f[2], "%+.0f%%", d * 100);
        put_fit(g, r, r.x + LABEL_W, y + 3, in ? ROLE_VALUE : ROLE_WARN, f, 3);
    } else if (app->bg.total_s.valid && sc->pred_total_s.valid &&
               sc->pred_total_s.v > 0) {
        double d = app->bg.total_s.v / sc->pred_total_s.v - 1;
        grid_printf(g, r, r.x + LABEL_W, y + 3, -1,
                    fabs(d) > 0.5 ? ROLE_WARN : ROLE_VALUE, 0,
                    _("%+*.1f %% vs model"), COL_W - 3, d * 100);
    } else {
        grid_printf(g, r, r.x + LABEL_W, y + 3, -1, ROLE_DIM, 0, "%*s",
                    COL_W - 1, "N/A");
    }
}

/* A bandwidth in GB/s: 3 significant digits (0.16, 12.3, 10, 456), whole
 * from 1000 on. */
static void fmt_bw(char *out, size_t len, double v)
{
    snprintf(out, len, v >= 999.5 ? "%.0f" : "%.3g", v);
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
    char a[24], b[24], f[3][FORM_LEN];
    fmt_bw(a, sizeof a, alg);
    fmt_bw(b, sizeof b, bus);
    snprintf(f[0], sizeof f[0], "algbw %s  busbw %s", a, b);
    snprintf(f[1], sizeof f[1], "algbw %s busbw %s", a, b);
    snprintf(f[2], sizeof f[2], "alg %s bus %s", a, b);
    put_fit(g, r, r.x + LABEL_W, y, ROLE_VALUE, f, 3);
}

/* A byte count for a formula: "512", "1.5K", "8M" (binary units). */
static void fmt_coef(char *out, size_t len, double b)
{
    static const char *const u[] = {"", "K", "M", "G", "T"};
    int k = 0;
    while (b >= 1024 && k < 4)
        b /= 1024, k++;
    snprintf(out, len, b == floor(b) || b >= 100 ? "%.0f%s" : "%.1f%s", b,
             u[k]);
}

/* A term's time in the unit of the largest: 3 digits at most. */
static void fmt_num(char *out, size_t len, double v)
{
    snprintf(out, len, v >= 99.5 ? "%.0f" : v >= 9.95 ? "%.1f" : "%.2f", v);
}

/* In data-flow (the key D), the model line's second row: the mode that
 * priced the whole, or lock-step's and why data-flow could not. In
 * lock-step, the default, the row stays as it was. */
static void draw_pricing(const App *app, Grid *g, Rect r, int y)
{
    const Scene *sc = app->scene;
    static const char *const why[PRED_LOCK_COUNT][3] = {
        [PRED_FLOWS] = {N_("data-flow; %s: lock-step"),
                        N_("data-flow, %s toggles"), N_("data-flow")},
        [PRED_LOCK_CALIB] = {N_("lock-step: calibrated"),
                             N_("lock-step"), N_("lock-step")},
        [PRED_LOCK_MEMORY] = {N_("lock-step: memory machine"),
                              N_("lock-step: memory"), N_("lock-step")},
        [PRED_LOCK_LARGE] = {N_("lock-step: too large"), N_("lock-step"),
                             N_("lock-step")},
    };
    if (sc->model.pricing != PRICING_DATAFLOW)
        return;
    PredLock w = sc->split_whole_ok
                     ? predictor_lock_why(&sc->model, &sc->split_whole)
                     : PRED_LOCK_LARGE;
    char keys[16], f[3][FORM_LEN];
    keys_names(ACT_PRICING, "/", keys, sizeof keys);
    for (int i = 0; i < 3; i++) /* a form without %s ignores the key */
        snprintf(f[i], sizeof f[i], _(why[w][i]), keys);
    grid_fill(g, (Rect){r.x + LABEL_W, y, r.w - LABEL_W, 1}, ' ',
              ROLE_NORMAL, 0);
    put_fit(g, r, r.x + LABEL_W, y, w == PRED_FLOWS ? ROLE_VALUE : ROLE_WARN,
            f, 3);
}

/* Where the model's parameters come from: this machine's calibration
 * (when, how long, how steady) or the defaults, and the key that
 * calibrates. */
static void draw_origin(const App *app, Grid *g, Rect r, int y)
{
    const Predictor *m = &app->scene->model;
    char keys[16];
    keys_names(ACT_CALIBRATE, "/", keys, sizeof keys);
    grid_text(g, r, r.x, y, LABEL_W, ROLE_HEADER, 0, _("model"));
    if (m->what_if) {
        char f[3][FORM_LEN]; /* "nodes 2x4, a NIC per GPU", "nodes 2x4" */
        words_machine_shape(&m->mach, true, f[0], sizeof f[0]);
        words_machine_shape(&m->mach, false, f[1], sizeof f[1]);
        snprintf(f[2], sizeof f[2], "%s", words_machine(m->mach.kind));
        put_fit(g, r, r.x + LABEL_W, y, ROLE_WARN, f, 3);
        keys_names(ACT_MENU_MACHINE, "/", keys, sizeof keys);
        grid_printf(g, r, r.x + LABEL_W, y + 1, -1, ROLE_DIM, 0,
                    _("what-if; %s: machine"), keys);
        return;
    }
    if (!m->calibrated) {
        grid_printf(g, r, r.x + LABEL_W, y, -1, ROLE_WARN, 0,
                    _("defaults, %s"), words_machine(m->machine));
        grid_printf(g, r, r.x + LABEL_W, y + 1, -1, ROLE_DIM, 0,
                    _("%s: calibrate here"), keys);
        return;
    }
    char when[32] = "?";
    time_t t = (time_t)m->calib.when, now = time(NULL);
    struct tm tm;
    if (localtime_r(&t, &tm))
        strftime(when, sizeof when, now - t < 12 * 3600 ? "%H:%M"
                 : "%Y-%m-%d", &tm);
    grid_printf(g, r, r.x + LABEL_W, y, -1, ROLE_VALUE, 0, _("calibrated %s"),
                when);
    /* how much the machine changed speed while calibrating, named */
    double u = m->calib.unsteady;
    const char *q = m->calib.quick ? _("quick") : _("full");
    const char *k = words_machine(m->machine);
    char f[3][FORM_LEN];
    int n = u > 0 ? 3 : 1;
    if (u > 0) { /* the unsteadiness before the machine's kind */
        snprintf(f[0], sizeof f[0], _("%s, %s, unsteady x%.1f"), q, k, u);
        snprintf(f[1], sizeof f[1], _("%s, unsteady x%.1f"), q, u);
    }
    snprintf(f[n - 1], sizeof f[n - 1], "%s, %s", q, k);
    put_fit(g, r, r.x + LABEL_W, y + 1, u > 2 ? ROLE_WARN : ROLE_DIM, f, n);
}

/* The model's source, and in data-flow its mode instead of the second
 * row. */
static void draw_source(const App *app, Grid *g, Rect r, int y)
{
    draw_origin(app, g, r, y);
    draw_pricing(app, g, r, y + 1);
}

/* alpha, beta (as a bandwidth) and gamma (as a bandwidth) in use. */
static void draw_params(const App *app, Grid *g, Rect r, int y)
{
    const Scene *sc = app->scene;
    ModelParams m = sc->params;
    char a[24];
    if (sc->model.what_if) {
        const Machine *mc = &sc->model.mach;
        int x = r.x + LABEL_W;
        grid_text(g, r, r.x, y, LABEL_W, ROLE_HEADER, 0, _(" GB/s"));
        for (int c = 0; c < mc->ncls; c++)
            if (mc->cls[c].beta > 0)
                x += grid_printf(g, r, x, y, -1, ROLE_VALUE, 0, "%s %.3g ",
                                 mc->cls[c].name, 1e-9 / mc->cls[c].beta);
        return;
    }
    view_fmt_time(a, sizeof a, m.alpha);
    grid_text(g, r, r.x, y, LABEL_W, ROLE_HEADER, 0, _(" a b g"));
    char bw[24], gw[24], f[3][FORM_LEN], *sp = strchr(a, ' ');
    fmt_bw(bw, sizeof bw, m.beta > 0 ? 1e-9 / m.beta : 0);
    fmt_bw(gw, sizeof gw, m.gamma > 0 ? 1e-9 / m.gamma : 0);
    snprintf(f[0], sizeof f[0], "%s %s %s GB/s", a, bw, gw);
    if (sp) /* "2.27us" */
        memmove(sp, sp + 1, strlen(sp));
    snprintf(f[1], sizeof f[1], "%s %s %s GB/s", a, bw, gw);
    snprintf(f[2], sizeof f[2], "%s %s/%s GB/s", a, bw, gw);
    put_fit(g, r, r.x + LABEL_W, y, ROLE_VALUE, f, 3);
}

/* "busiest r3->r7 y": a what-if machine's link that took longest. */
static void draw_busiest(Grid *g, Rect r, int x, int y, const Machine *m,
                         int l)
{
    if (l < 0) {
        grid_text(g, r, x, y, -1, ROLE_DIM, 0, _("no link busy"));
        return;
    }
    char name[64], text[96];
    machine_link_name(m, l, name, sizeof name);
    snprintf(text, sizeof text, _("busiest %s %s"), name,
             m->cls[machine_link_class(m, l)].name);
    if (grid_text_width(text) > r.x + r.w - x) /* the link before the words */
        snprintf(text, sizeof text, "%s", name);
    grid_text(g, r, x, y, -1, ROLE_VALUE, 0, text);
}

/* A cost split into its terms on two rows: the coefficients, and what
 * each term costs, in the unit of the largest. */
static void draw_split(const App *app, Grid *g, Rect r, int y,
                       const char *label, size_t k)
{
    const Scene *sc = app->scene;
    const PredSplit *spp = scene_split(sc, k);
    grid_text(g, r, r.x, y, LABEL_W, ROLE_HEADER, 0, label);
    if (!spp) {
        grid_text(g, r, r.x + LABEL_W, y, -1, ROLE_DIM, 0, "N/A");
        return;
    }
    PredSplit sp = *spp;
    char b[16], c[16];
    double bytes = sp.t.b;
    fmt_coef(b, sizeof b, bytes);
    fmt_coef(c, sizeof c, sp.t.g);
    char f[3][FORM_LEN];
    if (sc->model.what_if) {
        draw_busiest(g, r, r.x + LABEL_W, y, &sc->model.mach, sp.busiest);
    } else {
        snprintf(f[0], sizeof f[0], "%.0f a + %s b + %s g", sp.t.a, b, c);
        snprintf(f[1], sizeof f[1], "%.0fa + %sb + %sg", sp.t.a, b, c);
        snprintf(f[2], sizeof f[2], "%.0fa+%sb+%sg", sp.t.a, b, c);
        put_fit(g, r, r.x + LABEL_W, y, ROLE_VALUE, f, 3);
    }
    /* (a part taken from the whole minus the others can round below 0) */
    double ta = fmax(sp.part[0], 0), tb = fmax(sp.part[1], 0),
           tg = fmax(sp.part[2], 0), top = fmax(ta, fmax(tb, tg));
    double scale = top >= 1 ? 1 : top >= 1e-3 ? 1e3 : top >= 1e-6 ? 1e6 : 1e9;
    const char *unit = top >= 1 ? "s" : top >= 1e-3 ? "ms"
                       : top >= 1e-6 ? "us" : "ns";
    char na[12], nb[12], nc[12];
    fmt_num(na, sizeof na, ta * scale);
    fmt_num(nb, sizeof nb, tb * scale);
    fmt_num(nc, sizeof nc, tg * scale);
    snprintf(f[0], sizeof f[0], "= %s + %s + %s %s", na, nb, nc, unit);
    snprintf(f[1], sizeof f[1], "=%s+%s+%s %s", na, nb, nc, unit);
    put_fit(g, r, r.x + LABEL_W - 3, y + 1, ROLE_DIM, f, 2);
}

/* Whether the real buffers matched the symbolic state. */
static void draw_check(const App *app, Grid *g, Rect r, int y)
{
    const Scene *sc = app->scene;
    grid_text(g, r, r.x, y, LABEL_W, ROLE_HEADER, 0, _("check"));
    int x = r.x + LABEL_W;
    if (!sc->ex) {
        grid_text(g, r, x, y, -1, ROLE_DIM, 0, _("N/A (no backend)"));
    } else if (!sc->check.real_ok) {
        grid_text(g, r, x, y, -1, ROLE_DIM, 0, _("N/A (not read)"));
    } else if (sc->check.nwrong == 0) {
        grid_putg(g, r, x, y, GL_CHECK, ROLE_OK);
        grid_printf(g, r, x + 2, y, -1, ROLE_OK, 0, _("real = expected"));
    } else {
        grid_putg(g, r, x, y, GL_CROSSMARK, ROLE_ERROR);
        grid_printf(g, r, x + 2, y, -1, ROLE_ERROR, 0, _("%zu cells wrong"),
                    sc->check.nwrong);
    }
}

/* Background job and its progress bar. */
static void draw_background(const App *app, Grid *g, Rect r, int y)
{
    grid_text(g, r, r.x, y, LABEL_W, ROLE_HEADER, 0, _("running"));
    int x = r.x + LABEL_W;
    if (app->bg.kind == WORKER_IDLE) {
        grid_text(g, r, x, y, -1, ROLE_DIM, 0, _("nothing (m: time it)"));
        return;
    }
    const char *what = app->bg.kind == WORKER_BENCH   ? _("timed run")
                       : app->bg.kind == WORKER_CALIB ? _("calibrating")
                                                      : _("sweep");
    x += grid_printf(g, r, x, y, -1, ROLE_VALUE, 0, "%s ", what);
    int bar = r.x + r.w - x - 5, fill = (int)(app->bg.progress * bar + 0.5);
    for (int i = 0; i < bar; i++)
        grid_putg(g, r, x + i, y, i < fill ? GL_BLOCK : GL_SHADE1,
                  ROLE_MEASURED);
    grid_printf(g, r, x + (bar > 0 ? bar : 0), y, -1, ROLE_VALUE, 0, "%4.0f%%",
                app->bg.progress * 100);
}

/* The split of the shown step and of the whole run. */
static void draw_splits(const App *app, Grid *g, Rect r, int y)
{
    size_t k;
    if (scene_shown(app->scene, &k)) {
        draw_split(app, g, r, y, _(" step"), k);
    } else {
        grid_text(g, r, r.x, y, LABEL_W, ROLE_HEADER, 0, _(" step"));
        grid_text(g, r, r.x + LABEL_W, y, -1, ROLE_DIM, 0, _("- (none yet)"));
    }
    /* with a calibration the whole is the backend's own model (as perf's
       model column), the split the plain model's steps: say so when they
       differ */
    const Scene *sc = app->scene;
    if (sc->model.calibrated && !sc->model.what_if && sc->pred_total_s.valid &&
        sc->split_whole_ok &&
        fabs(sc->split_whole.time / sc->pred_total_s.v - 1) > 0.01) {
        draw_split(app, g, r, y + 2, _(" steps"), PREDICTOR_WHOLE);
        grid_fill(g, (Rect){r.x, y + 3, r.w, 1}, ' ', ROLE_NORMAL, 0);
        grid_text(g, r, r.x + 1, y + 3, -1, ROLE_DIM, 0,
                  _("whole: the backend's model"));
        return;
    }
    if (sc->split_whole_ok && sc->split_whole.priced == PRICING_DATAFLOW) {
        /* the terms are the steps' lock-step prices, the whole above the
           latest data-flow clock: say so, with the steps' sum */
        char t[24];
        draw_split(app, g, r, y + 2, _(" steps"), PREDICTOR_WHOLE);
        grid_fill(g, (Rect){r.x, y + 3, r.w, 1}, ' ', ROLE_NORMAL, 0);
        view_fmt_time(t, sizeof t, sc->split_whole.lockstep);
        grid_printf(g, r, r.x + 1, y + 3, -1, ROLE_DIM, 0,
                    _("lock-step, summed: %s"), t);
        return;
    }
    draw_split(app, g, r, y + 2, _(" whole"), PREDICTOR_WHOLE);
}

/* "r0>r1 1 KiB", or with short "r0>r1 1KiB": link l and its bytes. */
static void link_entry(const Machine *m, int l, double bytes, bool shrt,
                       char *out, size_t len)
{
    char name[64], b[24], *sp;
    machine_link_name(m, l, name, sizeof name);
    view_fmt_bytes(b, sizeof b, bytes);
    if (shrt && (sp = strchr(b, ' ')))
        memmove(sp, sp + 1, strlen(sp));
    snprintf(out, len, "%s %s", name, b);
}

/* "links    r0>r1 1 KiB  r1>r2 1 KiB": the bytes the model loads on each
 * link the shown step's transfers cross, most first, as many as fit in
 * `rows` rows (the first after the label, the others from the panel's
 * left), then how many more; a pipeline's picture's, dim and said to be
 * at the picture's size (its steps are not the chosen size's). */
static void draw_links_rows(const App *app, Grid *g, Rect r, int y, int rows)
{
    const Scene *sc = app->scene;
    const Machine *m = &sc->machine.mach;
    size_t k;
    int lw = grid_text(g, r, r.x, y, LABEL_W, ROLE_HEADER, 0, _("links"));
    int x = r.x + LABEL_W, end = r.x + r.w, i = 0, n = sc->link_nloaded;
    if (!scene_shown(sc, &k) || n == 0) {
        grid_text(g, r, x, y, -1, ROLE_DIM, 0, scene_shown(sc, &k)
                  ? _("no link busy") : _("- (none yet)"));
        return;
    }
    Role role = sc->link_picture ? ROLE_DIM : ROLE_VALUE;
    char first[96];
    link_entry(m, sc->link_order[0], sc->link_bytes[sc->link_order[0]], true,
               first, sizeof first);
    if (grid_text_width(first) + (n > 1 ? 4 : 0) > end - x)
        x = r.x + lw + 1; /* the first link after the label's word */
    if (sc->link_picture) { /* a pipeline's: its steps are not the size's */
        char pic[24], at[48], e[96];
        view_fmt_bytes(pic, sizeof pic, (double)coll_size_bytes(&sc->call));
        snprintf(at, sizeof at, _("at %s:"), pic);
        link_entry(m, sc->link_order[0], sc->link_bytes[sc->link_order[0]],
                   true, e, sizeof e);
        /* where it leaves room for the first link (the header says it) */
        if (grid_text_width(at) + grid_text_width(e) + 5 <= end - x)
            x += 1 + grid_text(g, r, x, y, -1, ROLE_DIM, 0, at);
    }
    for (int row = 0, gap = 0; i < n; i++, gap = 2) {
        char e[96], more[16];
        link_entry(m, sc->link_order[i], sc->link_bytes[sc->link_order[i]],
                   false, e, sizeof e);
        snprintf(more, sizeof more, "+%d", n - i - 1);
        /* the last row keeps room for " +N" unless this link is the last */
        int keep = i + 1 < n ? grid_text_width(more) + 1 : 0;
        int room = end - x - gap - (row == rows - 1 ? keep : 0);
        if (grid_text_width(e) > room && row + 1 < rows && gap) {
            row++, y++, x = r.x + 1, gap = 0; /* the next row, at the left */
            room = end - x - (row == rows - 1 ? keep : 0);
        }
        if (grid_text_width(e) > room) /* "2MiB" for "2 MiB" */
            link_entry(m, sc->link_order[i],
                       sc->link_bytes[sc->link_order[i]], true, e, sizeof e);
        if (grid_text_width(e) > room)
            break;
        x += gap + grid_text(g, r, x + gap, y, -1, role, 0, e);
    }
    if (i < n)
        grid_printf(g, r, x + (i > 0), y, -1, ROLE_DIM, 0, "+%d", n - i);
}

/* The panel's sections in the order drawn; when the panel is short the
 * sections of least priority (a larger number) are left out, and rows
 * left over go to a section that can grow. */
typedef struct {
    void (*draw)(const App *app, Grid *g, Rect r, int y, int rows);
    bool (*on)(const App *app); /* whether it is drawn; NULL: always */
    int rows;     /* rows it takes */
    int grow;     /* rows more it takes when they are left over */
    int priority; /* 1: kept first */
} Section;

/* Sections of a fixed height. */
#define FIXED(name)                                                        \
    static void name##_rows(const App *app, Grid *g, Rect r, int y,        \
                            int rows)                                      \
    {                                                                      \
        (void)rows;                                                        \
        name(app, g, r, y);                                                \
    }
FIXED(draw_bytes)
FIXED(draw_times)
FIXED(draw_bandwidth)
FIXED(draw_source)
FIXED(draw_params)
FIXED(draw_splits)
FIXED(draw_check)
FIXED(draw_background)
#undef FIXED

/* A job in the background keeps its row (its progress and that Esc
 * cancels it) before the others; an idle one's row comes last. */
static bool bg_busy(const App *app)
{
    return app->bg.kind != WORKER_IDLE;
}

static bool bg_idle(const App *app)
{
    return app->bg.kind == WORKER_IDLE;
}

/* Per-link loads exist on a machine the user named (a what-if). */
static bool links_on(const App *app)
{
    return app->scene->link_bytes != NULL;
}

static const Section sections[] = {
    {draw_bytes_rows, NULL, 4, 0, 2},
    {draw_times_rows, NULL, 4, 0, 1},
    {draw_bandwidth_rows, NULL, 1, 0, 3},
    {draw_source_rows, NULL, 2, 0, 4},
    {draw_params_rows, NULL, 1, 0, 5},
    {draw_splits_rows, NULL, 4, 0, 6},
    {draw_links_rows, links_on, 1, 8, 7},
    {draw_check_rows, NULL, 1, 0, 7},
    {draw_background_rows, bg_busy, 1, 0, 1},
    {draw_background_rows, bg_idle, 1, 0, 8},
};
#define NSECTIONS (sizeof sections / sizeof sections[0])

/* The one line's tail: the machine or where the parameters come from,
 * and in data-flow (key D) the mode that priced. Returns its role. */
static Role one_line_tail(const Scene *sc, char *tail, size_t len)
{
    bool asked = sc->model.pricing == PRICING_DATAFLOW;
    bool flows = asked && sc->split_whole_ok &&
                 sc->split_whole.priced == PRICING_DATAFLOW;
    const char *mode = flows ? _("data-flow") : _("lock-step");
    if (sc->model.what_if) {
        char shape[64];
        words_machine_shape(&sc->model.mach, true, shape, sizeof shape);
        if (asked)
            snprintf(tail, len, flows ? _("  (on %s, a what-if, data-flow)")
                                      : _("  (on %s, a what-if, lock-step)"),
                     shape);
        else
            snprintf(tail, len, _("  (on %s, a what-if)"), shape);
        return ROLE_WARN;
    }
    const char *src = sc->model.calibrated ? _("calibrated") : _("defaults");
    if (asked)
        snprintf(tail, len, "  (%s, %s)", src, mode);
    else
        snprintf(tail, len, "  (%s)", src);
    return sc->model.calibrated ? ROLE_DIM : ROLE_WARN;
}

/* Presenter mode's one line: the step's measured and model time, its
 * split into terms, and where the parameters come from; where the line
 * does not fit, the split gets compact and then the source and the split
 * are left out, whole. */
static void draw_one_line(const App *app, Grid *g, Rect r)
{
    const Scene *sc = app->scene;
    size_t k;
    const PredSplit *sp;
    char m[24], p[24], b[16], c[16], head[48], meas[96];
    char split[2][FORM_LEN] = {"", ""}, tail[FORM_LEN];
    bool shown = scene_shown(sc, &k);
    view_fmt_value(m, sizeof m, shown ? measured_step(app)
                                      : app->bg.total_s, view_fmt_time);
    view_fmt_value(p, sizeof p, shown ? sc->pred_step_s : sc->pred_total_s,
                   view_fmt_time);
    snprintf(head, sizeof head, "%s ", shown ? _("step") : _("whole"));
    snprintf(meas, sizeof meas, _("measured %s  model %s"), m, p);
    /* a data-flow whole is no sum of terms: its split is left out */
    if (sc->big_ok && !sc->model.what_if &&
        (sp = scene_split(sc, shown ? k : PREDICTOR_WHOLE)) &&
        (shown || sp->priced == PRICING_LOCKSTEP)) {
        fmt_coef(b, sizeof b, sp->t.b);
        fmt_coef(c, sizeof c, sp->t.g);
        snprintf(split[0], sizeof split[0], " = %.0f a + %s b + %s g",
                 sp->t.a, b, c);
        snprintf(split[1], sizeof split[1], " = %.0fa+%sb+%sg", sp->t.a, b,
                 c);
    }
    Role trole = one_line_tail(sc, tail, sizeof tail);
    int base = grid_text_width(head) + grid_text_width(meas), room = r.w;
    int s0 = grid_text_width(split[0]), s1 = grid_text_width(split[1]),
        t = grid_text_width(tail);
    const char *sp_text = base + s0 + t <= room   ? split[0]
                          : base + s1 + t <= room ? split[1]
                          : base + s1 <= room     ? split[1] : "";
    bool with_tail = base + grid_text_width(sp_text) + t <= room;
    int x = r.x + grid_text(g, r, r.x, r.y, -1, ROLE_HEADER, 0, head);
    x += grid_text(g, r, x, r.y, -1, ROLE_VALUE, 0, meas);
    x += grid_text(g, r, x, r.y, -1, ROLE_VALUE, 0, sp_text);
    if (with_tail)
        grid_text(g, r, x, r.y, -1, trole, 0, tail);
}

static void counters_draw(const App *app, Grid *g, Rect r)
{
    int rows[NSECTIONS] = {0};
    if (r.h == 1) {
        draw_one_line(app, g, r);
        return;
    }
    int left = r.h;
    for (int pr = 1; pr <= 9; pr++)
        for (size_t i = 0; i < NSECTIONS; i++)
            if (sections[i].priority == pr && sections[i].rows <= left &&
                (!sections[i].on || sections[i].on(app))) {
                rows[i] = sections[i].rows;
                left -= rows[i];
            }
    for (size_t i = 0; i < NSECTIONS; i++)
        if (rows[i] > 0) {
            int more = num_min(sections[i].grow, left);
            rows[i] += more;
            left -= more;
        }
    int y = r.y;
    for (size_t i = 0; i < NSECTIONS; i++)
        if (rows[i] > 0) {
            sections[i].draw(app, g, r, y, rows[i]);
            y += rows[i];
        }
}

const ViewOps view_counters = {
    .name = "counters",
    .title = N_("Counters"),
    .framed = true,
    .draw = counters_draw,
    .click = NULL,
};
