/* view_chart.c - the trade-off between algorithms: measured time against
 * message size on log-log axes (or bus bandwidth against a log size axis,
 * ACT_CHART_VIEW), every algorithm of the collective that the sweep
 * measured in its own glyph and colour (the glyph alone tells them apart
 * in monochrome), the model's curve for each (predictor.h: one model), and
 * the sizes where the fastest algorithm changes (crossovers) marked on
 * the size axis. The sweep's points stay when the algorithm or the view
 * changes (app.c keeps them while the call is the same). Nothing is
 * plotted that was not measured or predicted: with no measurement the
 * chart says N/A and how to start a sweep. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui/i18n.h"
#include "ui/keys.h"
#include "ui/view.h"

/* ------------------------------------------------------------ data */

/* Most series (algorithms of one collective) and crossovers kept. */
#define MAX_SERIES 12
#define MAX_CROSS 8

/* Each algorithm's mark, by its place among its collective's algorithms
 * (so an algorithm keeps its mark whatever is shown), and its model
 * curve's glyph (each its own, so that the curves tell apart in
 * monochrome too). */
static const char glyphs[] = "ox+*#@%&=~^$";
static const char model_glyphs[] = ".-:',;\"`_|/\\";

/* A crossover is unsure where the new fastest leads by less than this on
 * either side: within the noise of a shared machine. */
#define UNSURE_LEAD 0.10
/* ... and its colour. */
static const Role series_roles[] = {ROLE_SERIES1, ROLE_SERIES2, ROLE_SERIES3,
                                    ROLE_SERIES4, ROLE_SERIES5, ROLE_SERIES6};

/* One algorithm's series. */
typedef struct {
    const AlgoInfo *algo; /* the algorithm */
    uint32_t glyph;       /* its mark */
    uint32_t mglyph;      /* its model curve's glyph */
    Role role;            /* its colour */
    int npts;             /* measured points */
    int nmodel;           /* model points */
} Series;

/* A size where the fastest algorithm changes. */
typedef struct {
    double lb;            /* log2 of the size (between two measured) */
    const AlgoInfo *from; /* fastest below */
    const AlgoInfo *to;   /* fastest above */
    bool unsure;          /* measured, and a lead under UNSURE_LEAD on
                             either side */
} Cross;

/* What the chart shows, gathered from the App. */
typedef struct {
    bool busbw;                /* busbw view (else time) */
    Series series[MAX_SERIES]; /* every algorithm of the collective */
    int nseries;               /* series used */
    int failed;                /* points whose run failed or was wrong */
    Cross cross[MAX_CROSS];    /* crossovers, by size */
    int ncross;                /* crossovers found */
    bool cross_model;          /* crossovers are the model's (nothing
                                  measured yet) */
    double lx0, lx1;           /* log2 sizes at the plot's edges */
    double ly0, ly1;           /* log10 values at the bottom and top */
} Data;

/* The value a point plots: measured, or the model's. */
static double point_value(const Data *d, const SweepPoint *p, bool model)
{
    if (model)
        return d->busbw ? p->model_busbw : p->model_s;
    return d->busbw ? p->busbw : p->time_s;
}

static bool usable(double v) { return v > 0 && isfinite(v); }

/* Whether a sweep point holds a measurement to plot. */
static bool measured(const Data *d, const SweepPoint *p)
{
    return p->ok && p->bytes > 0 && usable(point_value(d, p, false));
}

/* The series of algorithm a (NULL when a is not the collective's). */
static Series *series_of(Data *d, const AlgoInfo *a)
{
    for (int i = 0; i < d->nseries; i++)
        if (d->series[i].algo == a)
            return &d->series[i];
    return NULL;
}

/* Widen the axes to take value v at log2 size lb. */
static void extend(Data *d, double lb, double v)
{
    d->lx0 = fmin(d->lx0, lb);
    d->lx1 = fmax(d->lx1, lb);
    d->ly0 = fmin(d->ly0, log10(v));
    d->ly1 = fmax(d->ly1, log10(v));
}

/* Algorithm a's time at size b, measured or the model's (NaN: none). */
static double time_at(const App *app, const AlgoInfo *a, uint64_t b,
                      bool model)
{
    for (size_t k = 0; k < app->bg.nsweep; k++) {
        const SweepPoint *p = &app->bg.sweep[k];
        double t = model ? p->model_s : p->time_s;
        if (p->algo == a && p->bytes == b && (model || p->ok) && usable(t))
            return t;
    }
    return NAN;
}

/* The fastest algorithm at each size, measured (or the model's when
 * nothing is measured), and where it changes; a measured change is
 * unsure where either algorithm leads the other by less than
 * UNSURE_LEAD at the sizes around it. */
static void find_crossovers(const App *app, Data *d, bool model)
{
    const AlgoInfo *prev = NULL;
    double prev_lb = 0;
    uint64_t sizes[64];
    size_t ns = 0;
    for (size_t k = 0; k < app->bg.nsweep; k++) { /* distinct, sorted */
        uint64_t b = app->bg.sweep[k].bytes;
        size_t at = 0;
        while (at < ns && sizes[at] < b)
            at++;
        if ((at < ns && sizes[at] == b) || ns == 64)
            continue;
        memmove(sizes + at + 1, sizes + at, (ns++ - at) * sizeof *sizes);
        sizes[at] = b;
    }
    uint64_t prev_size = 0;
    for (size_t i = 0; i < ns; i++) {
        const AlgoInfo *best = NULL;
        double bt = INFINITY;
        for (size_t k = 0; k < app->bg.nsweep; k++) {
            const SweepPoint *p = &app->bg.sweep[k];
            double t = model ? p->model_s : p->time_s;
            if (p->bytes == sizes[i] && (model || p->ok) && usable(t) &&
                t < bt && series_of(d, p->algo))
                bt = t, best = p->algo;
        }
        if (!best)
            continue;
        double lb = log2((double)sizes[i]);
        if (prev && best != prev && d->ncross < MAX_CROSS) {
            /* how far the new fastest leads above, and the old below */
            double above = time_at(app, prev, sizes[i], model) / bt - 1;
            double below = time_at(app, best, prev_size, model) /
                               time_at(app, prev, prev_size, model) - 1;
            bool unsure = !model && !(fmin(above, below) >= UNSURE_LEAD);
            d->cross[d->ncross++] = (Cross){(lb + prev_lb) / 2, prev, best,
                                            unsure};
        }
        prev = best, prev_lb = lb, prev_size = sizes[i];
    }
    d->cross_model = model && d->ncross > 0;
}

static void gather(const App *app, const Grid *g, Data *d)
{
    const Scene *sc = app->scene;
    memset(d, 0, sizeof *d);
    d->busbw = app->view.chart_busbw;
    d->lx0 = log2((double)APP_SWEEP_MIN);
    d->lx1 = log2((double)(sc->bytes > 4 * APP_SWEEP_MIN ? sc->bytes
                                                          : 4 * APP_SWEEP_MIN));
    d->ly0 = INFINITY, d->ly1 = -INFINITY;
    for (size_t i = 0; i < algo_count() && d->nseries < MAX_SERIES; i++)
        if (algo_at(i)->coll == sc->call.kind &&
            algo_fits(algo_at(i), &sc->call, &sc->machine.mach, NULL, 0)) {
            int n = d->nseries++;
            d->series[n] = (Series){algo_at(i), (uint32_t)glyphs[n],
                                    (uint32_t)model_glyphs[n],
                                    series_roles[n % 6], 0, 0};
        }
    for (size_t i = 0; i < app->bg.nsweep; i++) {
        const SweepPoint *p = &app->bg.sweep[i];
        Series *s = series_of(d, p->algo);
        if (!s || !p->bytes)
            continue;
        d->failed += !p->ok;
        if (measured(d, p))
            s->npts++, extend(d, log2((double)p->bytes), point_value(d, p, 0));
        if (usable(point_value(d, p, true)))
            s->nmodel++, extend(d, log2((double)p->bytes),
                                point_value(d, p, true));
    }
    double b = (double)coll_size_bytes(&sc->big);
    if (sc->pred_total_s.valid && usable(sc->pred_total_s.v) && b > 0)
        extend(d, log2(b), d->busbw ? b / sc->pred_total_s.v / 1e9 *
                                          coll_busbw_factor(sc->call.kind,
                                                            sc->call.nranks)
                                    : sc->pred_total_s.v);
    find_crossovers(app, d, false);
    if (!d->ncross)
        find_crossovers(app, d, true);
    d->ly0 = floor(d->ly0), d->ly1 = ceil(d->ly1);
    if (d->ly1 - d->ly0 < 1)
        d->ly1 = d->ly0 + 1;
    (void)g;
}

/* ------------------------------------------------------------ axes */

/* Where the plot goes. */
typedef struct {
    Rect plot;   /* cells inside the axes */
    int label_w; /* columns of the value labels */
} Frame;

static int col_of(const Frame *f, const Data *d, double lb)
{
    double t = (lb - d->lx0) / (d->lx1 - d->lx0);
    return f->plot.x + (int)lround(t * (f->plot.w - 1));
}

static int row_of(const Frame *f, const Data *d, double v)
{
    double t = (log10(v) - d->ly0) / (d->ly1 - d->ly0);
    return f->plot.y + f->plot.h - 1 - (int)lround(t * (f->plot.h - 1));
}

/* A value at a power of ten as a short label: "10us", "1ms", "0.1". */
static void value_label(const Data *d, char *out, size_t len, int e)
{
    double v = pow(10, e);
    if (d->busbw) {
        if (e >= 0)
            snprintf(out, len, "%.0f", v);
        else
            snprintf(out, len, "%.*f", -e, v);
        return;
    }
    static const char *const units[] = {"ns", "us", "ms", "s"};
    int u = e < -9 ? 0 : e >= 0 ? 3 : (e + 9) / 3;
    double x = v / pow(10, 3 * u - 9);
    snprintf(out, len, x < 1 ? "%.1g%s" : "%.0f%s", x, units[u]);
}

/* The frame of panel r below `top` rows of legend. */
static void frame_of(const Data *d, Rect r, int top, Frame *f)
{
    char s[16];
    f->label_w = 1;
    for (int e = (int)d->ly0; e <= (int)d->ly1; e++) {
        value_label(d, s, sizeof s, e);
        f->label_w = (int)fmax(f->label_w, (double)strlen(s));
    }
    f->plot = (Rect){r.x + f->label_w + 1, r.y + top, r.w - f->label_w - 1,
                     r.h - 2 - top};
}

/* Labels at the powers of ten far enough apart. */
static void draw_yaxis(Grid *g, Rect r, const Frame *f, const Data *d)
{
    int x = f->plot.x - 1, last = -2;
    grid_vline(g, r, x, f->plot.y, f->plot.h, GL_VLINE, ROLE_AXIS);
    for (int e = (int)d->ly1; e >= (int)d->ly0; e--) {
        int y = row_of(f, d, pow(10, e));
        if (y <= last)
            continue;
        char s[16];
        value_label(d, s, sizeof s, e);
        grid_printf(g, r, r.x, y, f->label_w, ROLE_AXIS, 0, "%*s",
                    f->label_w, s);
        grid_putg(g, r, x, y, GL_TEE_R, ROLE_AXIS);
        last = y;
    }
}

/* A size as a short label: "8B", "4K", "64M". */
static void size_label(char *out, size_t len, double lb)
{
    static const char *const units[] = {"B", "K", "M", "G", "T"};
    int u = (int)fmin(4, fmax(0, floor(lb / 10)));
    double v = exp2(lb - 10 * u);
    snprintf(out, len, v < 10 && v != floor(v) ? "%.1f%s" : "%.0f%s", v,
             units[u]);
}

/* The size axis: ticks at powers of two far enough apart for labels,
 * crossovers as a mark of their own on the axis line. */
static void draw_xaxis(Grid *g, Rect r, const Frame *f, const Data *d)
{
    int y = f->plot.y + f->plot.h, next = f->plot.x;
    grid_putg(g, r, f->plot.x - 1, y, GL_BL, ROLE_AXIS);
    grid_hline(g, r, f->plot.x, y, f->plot.w, GL_HLINE, ROLE_AXIS);
    int every = 1;
    while (every < 40 && f->plot.w * every / (d->lx1 - d->lx0) < 5)
        every *= 2;
    for (double lb = ceil(d->lx0 / every) * every; lb <= d->lx1; lb += every) {
        char s[24];
        size_label(s, sizeof s, lb);
        int x = col_of(f, d, lb), w = (int)strlen(s);
        int lx = x - w / 2 < f->plot.x ? f->plot.x : x - w / 2;
        lx = lx + w > r.x + r.w ? r.x + r.w - w : lx;
        if (lx < next)
            continue;
        grid_putg(g, r, x, y, GL_TEE_B, ROLE_AXIS);
        grid_text(g, r, lx, y + 1, -1, ROLE_AXIS, 0, s);
        next = lx + w + 1;
    }
    for (int i = 0; i < d->ncross; i++)
        grid_put(g, r, col_of(f, d, d->cross[i].lb), y, 'X', ROLE_WARN,
                 GRID_BOLD);
}

/* ------------------------------------------------------------ plotting */

/* Series s's values (measured or the model's) by size, sorted. */
static int series_points(const App *app, const Data *d, const Series *s,
                         bool model, double *lb, double *v, int cap)
{
    int n = 0;
    for (size_t i = 0; i < app->bg.nsweep && n < cap; i++) {
        const SweepPoint *p = &app->bg.sweep[i];
        double x = point_value(d, p, model);
        if (p->algo != s->algo || !p->bytes || !usable(x) ||
            (!model && !p->ok))
            continue;
        int k = n++;
        while (k > 0 && lb[k - 1] > log2((double)p->bytes)) {
            lb[k] = lb[k - 1], v[k] = v[k - 1];
            k--;
        }
        lb[k] = log2((double)p->bytes), v[k] = x;
    }
    return n;
}

/* Each series' model curve, in its own glyph and colour, interpolated on
 * the log-log axes between its points. */
static void draw_models(const App *app, Grid *g, const Frame *f,
                        const Data *d)
{
    double lb[64], v[64];
    for (int s = 0; s < d->nseries; s++) {
        int n = series_points(app, d, &d->series[s], true, lb, v, 64);
        for (int i = 0; i + 1 < n; i++) {
            int x0 = col_of(f, d, lb[i]), x1 = col_of(f, d, lb[i + 1]);
            for (int x = x0; x <= x1; x++) {
                double t = x1 > x0 ? (double)(x - x0) / (x1 - x0) : 0;
                double y = pow(10, log10(v[i]) +
                                       t * (log10(v[i + 1]) - log10(v[i])));
                grid_put(g, f->plot, x, row_of(f, d, y),
                         d->series[s].mglyph, d->series[s].role, 0);
            }
        }
    }
}

/* The scene's own prediction at the chosen size (the counters' whole). */
static void draw_scene_model(const App *app, Grid *g, const Frame *f,
                             const Data *d)
{
    const Scene *sc = app->scene;
    double b = (double)coll_size_bytes(&sc->big);
    if (!sc->pred_total_s.valid || !usable(sc->pred_total_s.v) || !(b > 0))
        return;
    double v = d->busbw ? b / sc->pred_total_s.v / 1e9 *
                              coll_busbw_factor(sc->call.kind, sc->call.nranks)
                        : sc->pred_total_s.v;
    grid_put(g, f->plot, col_of(f, d, log2(b)), row_of(f, d, v),
             grid_glyph(g, GL_DOT), ROLE_MODEL, GRID_BOLD);
}

/* Columns series s's points move aside, so that algorithms measured at
 * the same size stay visible side by side where the sizes are 3 or more
 * columns apart. */
static int dodge(const Frame *f, const Data *d, const Series *s)
{
    double per = (f->plot.w - 1) / (d->lx1 - d->lx0) * 2; /* factor 4 */
    return per >= 3 ? (int)(s - d->series) % 3 - 1 : 0;
}

/* The measured points, the current algorithm's last (on top). */
static void draw_points(const App *app, Grid *g, const Frame *f,
                        const Data *d)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < app->bg.nsweep; i++) {
            const SweepPoint *p = &app->bg.sweep[i];
            const Series *s = series_of((Data *)d, p->algo);
            if (!s || !measured(d, p) || (p->algo == app->scene->algo) != pass)
                continue;
            grid_put(g, f->plot,
                     col_of(f, d, log2((double)p->bytes)) + dodge(f, d, s),
                     row_of(f, d, point_value(d, p, false)), s->glyph,
                     s->role, GRID_BOLD);
        }
}

/* ------------------------------------------------------------ texts */

/* Whether series s goes in the legend: measured, or the current one. */
static bool in_legend(const App *app, const Series *s)
{
    return s->npts > 0 || s->algo == app->scene->algo;
}

/* Rows the legend needs at width w (at most max). */
static int legend_rows(const App *app, const Data *d, int w, int max)
{
    int rows = 1, x = 12;
    for (int s = 0; s < d->nseries; s++) {
        int n = 4 + grid_text_width(d->series[s].algo->name);
        if (!in_legend(app, &d->series[s]))
            continue;
        if (x + n > w && rows < max)
            rows++, x = 0;
        x += n;
    }
    return rows;
}

/* The unit, every series' glyph and name, the model's dots, the sweep. */
static void draw_legend(const App *app, Grid *g, Rect r, const Data *d,
                        int rows)
{
    int y = r.y, i = 0, shown = 0, want = 0;
    int x = r.x + grid_text(g, r, r.x, y, -1, ROLE_AXIS, 0,
                            d->busbw ? "GB/s" : _("time"));
    grid_put(g, r, x + 1, y, grid_glyph(g, GL_DOT), ROLE_MODEL, 0);
    x += 2 + grid_text(g, r, x + 2, y, -1, ROLE_DIM, 0, _("model"));
    for (; i < d->nseries; i++) {
        const Series *s = &d->series[i];
        if (!in_legend(app, s))
            continue;
        want++;
        int w = 4 + grid_text_width(s->algo->name);
        if (x + w > r.x + r.w && y + 1 < r.y + rows)
            x = r.x, y++;
        if (x + w > r.x + r.w)
            continue;
        grid_put(g, r, x + 1, y, s->glyph, s->role, GRID_BOLD);
        grid_put(g, r, x + 2, y, s->mglyph, s->role, 0);
        x += 4 + grid_text(g, r, x + 4, y, -1,
                           s->algo == app->scene->algo ? ROLE_VALUE
                                                       : ROLE_DIM,
                           0, s->algo->name);
        shown++;
    }
    if (shown < want)
        x += grid_printf(g, r, x, y, -1, ROLE_DIM, 0, " +%d", want - shown);
    if (d->failed)
        x += grid_printf(g, r, x, y, -1, ROLE_ERROR, 0, _(" %d failed"),
                         d->failed);
    if (app->bg.kind == WORKER_SWEEP)
        grid_printf(g, r, x, y, -1, ROLE_DIM, 0, _(" sweep %zu/%zu"),
                    app->bg.nsweep, app->bg.planned);
}

/* Crossover i in words: " ~16K ring>halving-doubling", '?' after an
 * unsure one. */
static void cross_text(const Data *d, int i, char *out, size_t len)
{
    char s[16];
    size_label(s, sizeof s, d->cross[i].lb);
    snprintf(out, len, " ~%s %s>%s%s", s, d->cross[i].from->name,
             d->cross[i].to->name, d->cross[i].unsure ? "?" : "");
}

static bool any_unsure(const Data *d)
{
    for (int i = 0; i < d->ncross; i++)
        if (d->cross[i].unsure)
            return true;
    return false;
}

/* Rows the crossovers take at width w (at most max), with the note on
 * unsure ones on a row of its own where one is left. */
static int cross_rows(const Data *d, int w, int max)
{
    int rows = 1, x = 1 + (d->cross_model ? 7 : 0);
    for (int i = 0; i < d->ncross; i++) {
        char t[128];
        cross_text(d, i, t, sizeof t);
        int n = grid_text_width(t);
        if (x + n > w && rows < max)
            rows++, x = 0;
        x += n;
    }
    return rows + (any_unsure(d) && rows < max);
}

/* The crossovers in words under the legend, each whole (those that do
 * not fit counted), and what '?' means. */
static void draw_crossings(Grid *g, Rect r, int y, int rows, const Data *d)
{
    int x = r.x, y0 = y, shown = 0;
    if (!d->ncross)
        return;
    bool note = any_unsure(d) && rows > 1;
    int last = y0 + rows - 1 - note;
    grid_put(g, r, x, y, 'X', ROLE_WARN, GRID_BOLD);
    x += 1 + grid_text(g, r, x + 1, y, -1, ROLE_DIM, 0,
                       d->cross_model ? _(" model:") : "");
    for (int i = 0; i < d->ncross; i++) {
        char t[128];
        cross_text(d, i, t, sizeof t);
        int w = grid_text_width(t);
        if (x + w > r.x + r.w - 4 && y < last)
            x = r.x, y++;
        if (x + w > r.x + r.w - (i + 1 < d->ncross ? 4 : 0))
            break;
        x += grid_text(g, r, x, y, -1, d->cross[i].unsure ? ROLE_WARN
                                                          : ROLE_VALUE, 0, t);
        shown++;
    }
    if (shown < d->ncross)
        grid_printf(g, r, x, y, -1, ROLE_DIM, 0, " +%d", d->ncross - shown);
    if (note)
        grid_text(g, r, r.x, last + 1, -1, ROLE_DIM, 0,
                  r.w >= 70 ? _("? the lead is under 10% there: within this "
                                "machine's noise; rerun with more iterations")
                            : _("? lead under 10%: noise"));
}

/* Inside an empty plot: N/A, and the keys that start a sweep. */
static void draw_empty(const App *app, Grid *g, const Frame *f)
{
    char keys[32], cmp[32];
    keys_names(ACT_SWEEP, "/", keys, sizeof keys);
    keys_names(ACT_COMPARE, "/", cmp, sizeof cmp);
    Rect pl = f->plot;
    int y = pl.y + (pl.h > 2 ? pl.h - 2 : 0);
    grid_text(g, pl, pl.x + 1, y, -1, ROLE_DIM, 0,
              app->bg.kind == WORKER_SWEEP ? _("measuring...") : _("measured: N/A"));
    grid_printf(g, pl, pl.x + 1, y + 1, -1, ROLE_DIM, 0,
                _("%s: sweep sizes, %s: all algorithms"), keys, cmp);
}

/* A panel too small for axes: one line of numbers. */
static void draw_line(const App *app, Grid *g, Rect r, const Data *d)
{
    const SweepPoint *best = NULL;
    for (size_t i = 0; i < app->bg.nsweep; i++) {
        const SweepPoint *p = &app->bg.sweep[i];
        if (measured(d, p) && p->algo == app->scene->algo &&
            (!best || p->bytes > best->bytes))
            best = p;
    }
    char sz[24];
    if (!best) {
        grid_text(g, r, r.x, r.y, -1, ROLE_DIM, 0, "busbw N/A");
        return;
    }
    size_label(sz, sizeof sz, log2((double)best->bytes));
    int x = r.x + grid_printf(g, r, r.x, r.y, -1, ROLE_MEASURED, 0,
                              "busbw %.2f GB/s @ %s", best->busbw, sz);
    if (best->model_busbw > 0 && isfinite(best->model_busbw))
        grid_printf(g, r, x, r.y, -1, ROLE_MODEL, 0, ", model %.2f",
                    best->model_busbw);
}

/* Whether the parameter server (allreduce's `direct`) measured fastest
 * at the largest size of a sweep of every algorithm on a machine the
 * calibration found to be one shared bus: the lecture's "the ring beats
 * the parameter server" is then false here, and the chart says why. */
static bool server_wins(const App *app, const Data *d)
{
    const Scene *sc = app->scene;
    if (!app->bg.compare || sc->call.kind != COLL_ALLREDUCE ||
        !sc->model.calibrated || sc->model.what_if ||
        sc->model.machine != MACHINE_BUS)
        return false;
    uint64_t top = 0;
    const SweepPoint *best = NULL;
    for (size_t i = 0; i < app->bg.nsweep; i++) {
        const SweepPoint *p = &app->bg.sweep[i];
        if (measured(d, p) && p->bytes > top)
            top = p->bytes;
    }
    for (size_t i = 0; i < app->bg.nsweep; i++) {
        const SweepPoint *p = &app->bg.sweep[i];
        if (measured(d, p) && p->bytes == top &&
            (!best || p->time_s < best->time_s))
            best = p;
    }
    return best && !strcmp(best->algo->name, "direct");
}

static void draw_server_note(Grid *g, Rect r, int y)
{
    grid_text(g, r, r.x, y, -1, ROLE_DIM, 0,
              r.w >= 98 ? _("direct fastest here: every algorithm's bytes "
                            "cross one shared memory bus, so the fewest "
                            "steps win")
                        : _("direct: one shared bus, fewest steps win"));
}

static void chart_draw(const App *app, Grid *g, Rect r)
{
    Data d;
    Frame f;
    if (r.w < 1 || r.h < 1)
        return;
    gather(app, g, &d);
    if (r.h < 5 || r.w < 20 || !isfinite(d.ly0)) {
        draw_line(app, g, r, &d);
        return;
    }
    bool full = app->view.chart_full;
    int legend = legend_rows(app, &d, r.w, full ? 4 : r.h >= 10 ? 2 : 1);
    int cross = d.ncross && r.h >= 8
                    ? cross_rows(&d, r.w, full ? 4 : r.h >= 14 ? 2 : 1) : 0;
    int why = r.h >= 14 && server_wins(app, &d);
    frame_of(&d, r, legend + cross + why, &f);
    draw_legend(app, g, r, &d, legend);
    if (cross)
        draw_crossings(g, r, r.y + legend, cross, &d);
    if (why)
        draw_server_note(g, r, r.y + legend + cross);
    draw_yaxis(g, r, &f, &d);
    draw_xaxis(g, r, &f, &d);
    bool any = false;
    for (int s = 0; s < d.nseries; s++)
        any |= d.series[s].npts > 0;
    if (!any)
        draw_empty(app, g, &f);
    draw_models(app, g, &f, &d);
    draw_scene_model(app, g, &f, &d);
    draw_points(app, g, &f, &d);
}

const ViewOps view_chart = {
    .name = "chart",
    .title = N_("Chart"),
    .framed = true,
    .draw = chart_draw,
    .click = NULL,
};
