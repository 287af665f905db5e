/* view_chart.c - the trade-off between algorithms: measured time against
 * message size on log-log axes (or bus bandwidth against a log size axis,
 * ACT_CHART_VIEW), the algorithms chart.h shows (the scene's and the two
 * fastest, or those V chose) each in its own glyph and colour (the glyph
 * alone tells them apart in monochrome), the model's curve for each
 * (predictor.h: one model), and the sizes where the fastest of them
 * changes (crossovers) marked on the size axis and said in words. The sweep's points stay when the algorithm or the view
 * changes (app.c keeps them while the call is the same). Nothing is
 * plotted that was not measured or predicted: with no measurement the
 * chart says N/A and how to start a sweep. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui/chart.h"
#include "ui/i18n.h"
#include "ui/keys.h"
#include "ui/view.h"

typedef ChartData Data;
typedef ChartSeries Series;

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

/* Each series' model curve, in its own glyph and colour, interpolated on
 * the log-log axes between its points. */
static void draw_models(const App *app, Grid *g, const Frame *f,
                        const Data *d)
{
    double lb[64], v[64];
    for (int s = 0; s < d->nseries; s++) {
        if (!d->series[s].shown)
            continue;
        int n = chart_points(app, d, &d->series[s], true, lb, v, 64);
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
    double lb, v = chart_scene_value(app, d, &lb);
    if (!chart_usable(v))
        return;
    grid_put(g, f->plot, col_of(f, d, lb), row_of(f, d, v),
             grid_glyph(g, GL_DOT), ROLE_MODEL, GRID_BOLD);
}

/* Columns series s's points move aside, so that algorithms measured at
 * the same size stay visible side by side where the sizes are 3 or more
 * columns apart. */
static int dodge(const Frame *f, const Data *d, const Series *s)
{
    double per = (f->plot.w - 1) / (d->lx1 - d->lx0) * 2; /* factor 4 */
    int k = 0; /* s's place among the shown */
    for (const Series *o = d->series; o < s; o++)
        k += o->shown;
    return per >= 3 ? k % 3 - 1 : 0;
}

/* The measured points, the current algorithm's last (on top). */
static void draw_points(const App *app, Grid *g, const Frame *f,
                        const Data *d)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < app->bg.nsweep; i++) {
            const SweepPoint *p = &app->bg.sweep[i];
            const Series *s = chart_series_of(d, p->algo);
            if (!s || !s->shown || !chart_measured(d, p) ||
                (p->algo == app->scene->algo) != pass)
                continue;
            grid_put(g, f->plot,
                     col_of(f, d, log2((double)p->bytes)) + dodge(f, d, s),
                     row_of(f, d, chart_value(d, p, false)), s->glyph,
                     s->role, GRID_BOLD);
        }
}

/* ------------------------------------------------------------ texts */

/* Whether series s goes in the legend: shown. */
static bool in_legend(const App *app, const Series *s)
{
    (void)app;
    return s->shown;
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
    char pick[160];
    chart_pick_text(d, pick, sizeof pick);
    if (pick[0] && x + 2 + grid_text_width(pick) > w && rows < max)
        rows++;
    return rows;
}

/* Which algorithms are shown and the key that changes it, after the
 * legend's names at (x, y), else on the next of its rows. */
static void draw_pick(Grid *g, Rect r, int x, int y, int rows,
                      const Data *d)
{
    char pick[160];
    chart_pick_text(d, pick, sizeof pick);
    if (!pick[0])
        return;
    int w = grid_text_width(pick);
    if (x + 2 + w > r.x + r.w && y + 1 < r.y + rows)
        x = r.x - 2, y++;
    if (x + 2 + w <= r.x + r.w)
        grid_text(g, r, x + 2, y, -1, ROLE_KEY, 0, pick);
}

/* The unit, every shown series' glyph and name, the model's dots, the
 * sweep, which are shown. */
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
        x += grid_printf(g, r, x, y, -1, ROLE_DIM, 0, _(" sweep %zu/%zu"),
                         app->bg.nsweep, app->bg.planned);
    draw_pick(g, r, x, y, rows, d);
}

/* Crossover i in words after a blank (the first) or "; ": " ring beats
 * tree from 256 KiB", '?' after an unsure one. */
static void cross_text(const Data *d, int i, char *out, size_t len)
{
    int n = snprintf(out, len, "%s", i ? "; " : " ");
    chart_cross_text(d, i, out + n, len - (size_t)n);
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
        const char *at = t;
        int w = grid_text_width(t);
        if (x + w > r.x + r.w - 4 && y < last) /* a new row: no "; " */
            x = r.x, y++, at = t + (i ? 2 : 1), w = grid_text_width(at);
        if (x + w > r.x + r.w - (i + 1 < d->ncross ? 4 : 0))
            break;
        x += grid_text(g, r, x, y, -1, d->cross[i].unsure ? ROLE_WARN
                                                          : ROLE_VALUE, 0, at);
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
        if (chart_measured(d, p) && p->algo == app->scene->algo &&
            (!best || p->bytes > best->bytes))
            best = p;
    }
    char sz[24];
    if (!best) {
        grid_text(g, r, r.x, r.y, -1, ROLE_DIM, 0, "busbw N/A");
        return;
    }
    size_label(sz, sizeof sz, log2((double)best->bytes));
    char meas[64], model[32] = "";
    snprintf(meas, sizeof meas, "busbw %.2f GB/s @ %s", best->busbw, sz);
    if (best->model_busbw > 0 && isfinite(best->model_busbw))
        snprintf(model, sizeof model, _(", model %.2f"), best->model_busbw);
    /* the model's number whole or not at all */
    if (grid_text_width(meas) + grid_text_width(model) > r.w)
        model[0] = '\0';
    int x = r.x + grid_text_cut(g, r, r.x, r.y, r.w, ROLE_MEASURED, 0, meas);
    grid_text(g, r, x, r.y, -1, ROLE_MODEL, 0, model);
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
        if (chart_measured(d, p) && p->bytes > top)
            top = p->bytes;
    }
    for (size_t i = 0; i < app->bg.nsweep; i++) {
        const SweepPoint *p = &app->bg.sweep[i];
        if (chart_measured(d, p) && p->bytes == top &&
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
    chart_gather(app, &d);
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
