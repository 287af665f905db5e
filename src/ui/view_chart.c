/* view_chart.c - bus bandwidth against message size for the current
 * collective: the points the background sweep measured (App.sweep), the
 * model's curve through its predictions (the sweep's model_busbw and the
 * prediction at the chosen size, both predictor.h's: one model), and,
 * after ACT_COMPARE, every algorithm of the collective, each with a glyph
 * of its own so the series differ without colour. Sizes go across on a log scale, GB/s up on a linear one.
 * Nothing is plotted that was not measured or predicted: with no
 * measurement the chart says N/A and how to start a sweep. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui/keys.h"
#include "ui/view.h"

/* ------------------------------------------------------------ data */

/* Most series (algorithms) and model points the chart keeps. */
#define MAX_SERIES 12
#define MAX_MODEL (WORKER_SWEEP_MAX + 1)

/* Glyphs of the other algorithms' series, in order. */
static const char other_glyphs[] = "x+*#%&@=$?~^";

/* One measured series: an algorithm's points. */
typedef struct {
    const AlgoInfo *algo; /* the algorithm */
    uint32_t glyph;       /* its mark */
    Role role;            /* ROLE_MEASURED (current) or ROLE_OTHER */
    int npts;             /* points it has */
} Series;

/* A model prediction. */
typedef struct {
    double lb;    /* log2 of the size in bytes */
    double busbw; /* predicted GB/s */
} ModelPt;

/* What the chart shows, gathered from the App. */
typedef struct {
    Series series[MAX_SERIES]; /* measured series, current algorithm first */
    int nseries;               /* series used */
    int failed;                /* points whose run failed or was wrong */
    ModelPt model[MAX_MODEL];  /* the model's points, by size */
    int nmodel;                /* model points */
    double lx0, lx1;           /* log2 sizes at the plot's edges */
    double top;                /* largest value, GB/s */
} Data;

/* Whether a sweep point holds a measured bandwidth to plot. */
static bool measured(const SweepPoint *p)
{
    return p->ok && p->busbw > 0 && isfinite(p->busbw) && p->bytes > 0;
}

/* The series of algorithm a, added when new (NULL when full). */
static Series *series_of(Data *d, const App *app, const AlgoInfo *a,
                         const Grid *g)
{
    const Scene *sc = app->scene;
    for (int i = 0; i < d->nseries; i++)
        if (d->series[i].algo == a)
            return &d->series[i];
    if (d->nseries == MAX_SERIES)
        return NULL;
    Series *s = &d->series[d->nseries++];
    bool mine = a == sc->algo;
    int others = d->nseries - 1 - (d->series[0].algo == sc->algo);
    *s = (Series){a, mine ? grid_glyph(g, GL_BULLET)
                          : (uint32_t)other_glyphs[others % 12],
                  mine ? ROLE_MEASURED : ROLE_OTHER, 0};
    return s;
}

/* Add a model point, keeping them sorted by size (one per size). */
static void model_add(Data *d, double bytes, double busbw)
{
    if (!(bytes > 0) || !(busbw > 0) || !isfinite(busbw) ||
        d->nmodel == MAX_MODEL)
        return;
    double lb = log2(bytes);
    int i = d->nmodel;
    for (int k = 0; k < d->nmodel; k++)
        if (d->model[k].lb == lb)
            return;
    while (i > 0 && d->model[i - 1].lb > lb) {
        d->model[i] = d->model[i - 1];
        i--;
    }
    d->model[i] = (ModelPt){lb, busbw};
    d->nmodel++;
}

/* Widen [lo, hi] and the top to take value v at log2 size lb. */
static void extend(Data *d, double lb, double v)
{
    d->lx0 = fmin(d->lx0, lb);
    d->lx1 = fmax(d->lx1, lb);
    d->top = fmax(d->top, v);
}

static void gather(const App *app, const Grid *g, Data *d)
{
    const Scene *sc = app->scene;
    memset(d, 0, sizeof *d);
    d->lx0 = INFINITY;
    d->lx1 = -INFINITY;
    series_of(d, app, sc->algo, g);
    for (size_t i = 0; i < app->bg.nsweep; i++) {
        const SweepPoint *p = &app->bg.sweep[i];
        if (p->algo == sc->algo)
            model_add(d, (double)p->bytes, p->model_busbw);
        Series *s = measured(p) ? series_of(d, app, p->algo, g) : NULL;
        d->failed += !p->ok;
        if (s) {
            s->npts++;
            extend(d, log2((double)p->bytes), p->busbw);
        }
    }
    double b = (double)coll_size_bytes(&sc->big);
    if (sc->pred_total_s.valid && sc->pred_total_s.v > 0)
        model_add(d, b, b / sc->pred_total_s.v / 1e9 *
                            coll_busbw_factor(sc->call.kind, sc->call.nranks));
    for (int i = 0; i < d->nmodel; i++)
        extend(d, d->model[i].lb, d->model[i].busbw);
    if (d->lx1 - d->lx0 < 2) { /* one size: a little room either side */
        double mid = (d->lx0 + d->lx1) / 2;
        d->lx0 = mid - 3, d->lx1 = mid + 3;
    }
}

/* ------------------------------------------------------------ axes */

/* Where the plot goes and how values map to cells. */
typedef struct {
    Rect plot;    /* cells inside the axes */
    double step;  /* GB/s between labelled rows */
    double top;   /* GB/s at the top row */
    int decimals; /* of the value labels */
    int label_w;  /* columns of the value labels */
} Frame;

/* A 1-2-5 step that splits `top` into at most n parts. */
static double nice_step(double top, int n)
{
    double base = pow(10, floor(log10(top / (n > 0 ? n : 1))));
    static const double mult[] = {1, 2, 5, 10};
    for (int i = 0; i < 4; i++)
        if (top / (base * mult[i]) <= n)
            return base * mult[i];
    return base * 10;
}

/* The frame of a panel r whose top `legend` rows hold the legend. */
static void frame_of(const Data *d, Rect r, int legend, Frame *f)
{
    int rows = r.h - 2 - legend;
    f->step = nice_step(d->top, rows > 3 ? rows / 2 : 1);
    f->top = ceil(d->top / f->step - 1e-9) * f->step;
    f->decimals = f->step >= 1 ? 0 : (int)fmin(4, ceil(-log10(f->step)));
    char s[32];
    snprintf(s, sizeof s, "%.*f", f->decimals, f->top);
    f->label_w = (int)strlen(s);
    f->plot = (Rect){r.x + f->label_w + 1, r.y + legend,
                     r.w - f->label_w - 1, rows};
}

static int col_of(const Frame *f, const Data *d, double lb)
{
    double t = (lb - d->lx0) / (d->lx1 - d->lx0);
    return f->plot.x + (int)lround(t * (f->plot.w - 1));
}

static int row_of(const Frame *f, double v)
{
    double t = f->top > 0 ? v / f->top : 0;
    return f->plot.y + f->plot.h - 1 - (int)lround(t * (f->plot.h - 1));
}

/* Value labels every `step`, on the rows they fall on. */
static void draw_yaxis(Grid *g, Rect r, const Frame *f)
{
    int x = f->plot.x - 1, last = -1;
    grid_vline(g, r, x, f->plot.y, f->plot.h, GL_VLINE, ROLE_AXIS);
    for (double v = 0; v <= f->top + f->step / 2; v += f->step) {
        int y = row_of(f, v);
        if (y == last)
            continue;
        grid_printf(g, r, r.x, y, f->label_w, ROLE_AXIS, 0, "%*.*f",
                    f->label_w, f->decimals, v);
        grid_putg(g, r, x, y, GL_TEE_R, ROLE_AXIS);
        last = y;
    }
}

/* A size as a short label: "512B", "4KiB", "64MiB". */
static void size_label(char *out, size_t len, double lb)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = (int)fmin(4, fmax(0, floor(lb / 10)));
    double v = exp2(lb - 10 * u);
    snprintf(out, len, v < 10 && v != floor(v) ? "%.1f%s" : "%.0f%s", v,
             units[u]);
}

/* The size axis: a line with ticks at powers of two far enough apart for
 * their labels. */
static void draw_xaxis(Grid *g, Rect r, const Frame *f, const Data *d)
{
    int y = f->plot.y + f->plot.h, next = f->plot.x;
    grid_putg(g, r, f->plot.x - 1, y, GL_BL, ROLE_AXIS);
    grid_hline(g, r, f->plot.x, y, f->plot.w, GL_HLINE, ROLE_AXIS);
    double span = d->lx1 - d->lx0;
    int every = 1;
    while (every < 40 && f->plot.w * every / span < 8)
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
}

/* ------------------------------------------------------------ plotting */

/* Model busbw at log2 size lb, interpolated between its points (NAN
 * outside them). */
static double model_at(const Data *d, double lb)
{
    for (int i = 0; i + 1 < d->nmodel; i++) {
        const ModelPt *a = &d->model[i], *b = &d->model[i + 1];
        if (lb >= a->lb && lb <= b->lb)
            return a->busbw + (b->busbw - a->busbw) * (lb - a->lb) /
                                  (b->lb - a->lb);
    }
    return d->nmodel == 1 && fabs(lb - d->model[0].lb) < 1e-9
               ? d->model[0].busbw : NAN;
}

/* The model's curve: a dotted line, continuous from column to column. */
static void draw_model(Grid *g, const Frame *f, const Data *d)
{
    uint32_t dot = grid_glyph(g, GL_DOT);
    int prev = -1;
    if (d->nmodel == 1) {
        grid_put(g, f->plot, col_of(f, d, d->model[0].lb),
                 row_of(f, d->model[0].busbw), dot, ROLE_MODEL, GRID_BOLD);
        return;
    }
    for (int x = f->plot.x; x < f->plot.x + f->plot.w; x++) {
        double t = (double)(x - f->plot.x) / (f->plot.w > 1 ? f->plot.w - 1 : 1);
        double v = model_at(d, d->lx0 + t * (d->lx1 - d->lx0));
        if (isnan(v)) {
            prev = -1;
            continue;
        }
        int y = row_of(f, v), y0 = prev < 0 ? y : prev;
        for (int yy = y0 < y ? y0 + 1 : y; yy <= (y0 < y ? y : y0 - 1); yy++)
            grid_put(g, f->plot, x, yy, dot, ROLE_MODEL, 0);
        grid_put(g, f->plot, x, y, dot, ROLE_MODEL, 0);
        prev = y;
    }
}

/* The measured points, the current algorithm's last (on top). */
static void draw_points(const App *app, Grid *g, const Frame *f,
                        const Data *d)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < app->bg.nsweep; i++) {
            const SweepPoint *p = &app->bg.sweep[i];
            if (!measured(p) || (p->algo == app->scene->algo) != pass)
                continue;
            for (int s = 0; s < d->nseries; s++)
                if (d->series[s].algo == p->algo)
                    grid_put(g, f->plot, col_of(f, d, log2((double)p->bytes)),
                             row_of(f, p->busbw), d->series[s].glyph,
                             d->series[s].role, GRID_BOLD);
        }
}

/* ------------------------------------------------------------ texts */

/* One legend entry: a glyph and a name. */
typedef struct {
    uint32_t glyph;   /* the series' mark */
    Role role;        /* its role */
    const char *name; /* algorithm name, or "model" */
} Entry;

/* The legend's entries: series with points (the current one always),
 * then the model. */
static int legend_entries(const Grid *g, const Data *d, Entry *e)
{
    int n = 0;
    for (int s = 0; s < d->nseries; s++)
        if (s == 0 || d->series[s].npts > 0)
            e[n++] = (Entry){d->series[s].glyph, d->series[s].role,
                             d->series[s].algo->name};
    if (d->nmodel)
        e[n++] = (Entry){grid_glyph(g, GL_DOT), ROLE_MODEL, "model"};
    return n;
}

/* Rows the legend needs in r: two when one is not enough and the panel
 * is tall. */
static int legend_rows(const Grid *g, Rect r, const Data *d)
{
    Entry e[MAX_SERIES + 1];
    int n = legend_entries(g, d, e), w = 4;
    for (int i = 0; i < n; i++)
        w += 3 + grid_text_width(e[i].name);
    return w > r.w && r.h >= 10 ? 2 : 1;
}

/* The top lines: unit, legend, and the state of the sweep. */
static void draw_legend(const App *app, Grid *g, Rect r, const Data *d,
                        int rows)
{
    Entry e[MAX_SERIES + 1];
    int n = legend_entries(g, d, e), y = r.y, i = 0;
    int x = r.x + grid_text(g, r, r.x, r.y, -1, ROLE_AXIS, 0, "GB/s");
    for (; i < n; i++) {
        int w = 3 + grid_text_width(e[i].name);
        if (x + w > r.x + r.w && y + 1 < r.y + rows)
            x = r.x + 4, y++;
        if (x + w > r.x + r.w)
            break;
        grid_put(g, r, x + 1, y, e[i].glyph, e[i].role, GRID_BOLD);
        x += 3 + grid_text(g, r, x + 3, y, -1, ROLE_DIM, 0, e[i].name);
    }
    if (i < n)
        x += grid_printf(g, r, x, y, -1, ROLE_DIM, 0, " +%d", n - i);
    if (d->failed)
        x += grid_printf(g, r, x, y, -1, ROLE_ERROR, 0, " %d failed",
                         d->failed);
    if (app->bg.kind == WORKER_SWEEP)
        grid_printf(g, r, x, y, -1, ROLE_DIM, 0, " sweep %zu/%zu",
                    app->bg.nsweep, app->bg.planned);
}

/* Inside an empty plot: N/A, and the keys that start a sweep, near the
 * bottom, where the model's one point (its top value) is not. */
static void draw_empty(const App *app, Grid *g, const Frame *f)
{
    char keys[32], cmp[32];
    keys_names(ACT_SWEEP, "/", keys, sizeof keys);
    keys_names(ACT_COMPARE, "/", cmp, sizeof cmp);
    Rect pl = f->plot;
    int y = pl.y + (pl.h > 2 ? pl.h - 2 : 0); /* low: the model is high */
    grid_text(g, pl, pl.x + 1, y, -1, ROLE_DIM, 0,
              app->bg.kind == WORKER_SWEEP ? "measuring..." : "measured: N/A");
    grid_printf(g, pl, pl.x + 1, y + 1, -1, ROLE_DIM, 0,
                "%s: sweep sizes, %s: all algorithms", keys, cmp);
}

/* A panel too small for axes: one line of numbers. */
static void draw_line(const App *app, Grid *g, Rect r, const Data *d)
{
    const SweepPoint *best = NULL;
    for (size_t i = 0; i < app->bg.nsweep; i++) {
        const SweepPoint *p = &app->bg.sweep[i];
        if (measured(p) && p->algo == app->scene->algo &&
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

static void chart_draw(const App *app, Grid *g, Rect r)
{
    Data d;
    Frame f;
    if (r.w < 1 || r.h < 1)
        return;
    gather(app, g, &d);
    if (r.h < 5 || r.w < 20 || !(d.top > 0)) {
        draw_line(app, g, r, &d);
        return;
    }
    int legend = legend_rows(g, r, &d);
    frame_of(&d, r, legend, &f);
    draw_legend(app, g, r, &d, legend);
    draw_yaxis(g, r, &f);
    draw_xaxis(g, r, &f, &d);
    if (d.series[0].npts == 0 && d.nseries == 1)
        draw_empty(app, g, &f);
    draw_model(g, &f, &d);
    draw_points(app, g, &f, &d);
}

const ViewOps view_chart = {
    .name = "chart",
    .title = "Bus bandwidth vs size",
    .framed = true,
    .draw = chart_draw,
    .click = NULL,
};
