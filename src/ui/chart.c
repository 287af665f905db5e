/* chart.c - what the chart shows, gathered from the App's sweep. */
#include "ui/chart.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui/i18n.h"
#include "ui/keys.h"
#include "ui/scene.h"
#include "ui/view.h"

/* Each algorithm's mark, by its place among its collective's algorithms
 * (so an algorithm keeps its mark whatever is shown), and its model
 * curve's glyph (each its own, so that the curves tell apart in
 * monochrome too). */
static const char glyphs[] = "ox+*#@%&=~^$";
static const char model_glyphs[] = ".-:',;\"`_|/\\";
/* ... and its colour. */
static const Role series_roles[] = {ROLE_SERIES1, ROLE_SERIES2, ROLE_SERIES3,
                                    ROLE_SERIES4, ROLE_SERIES5, ROLE_SERIES6};

/* A crossover is unsure where the new fastest leads by less than this on
 * either side: within the noise of a shared machine. */
#define UNSURE_LEAD 0.10

/* Most distinct sizes a sweep holds. */
#define MAX_SIZES 64

bool chart_usable(double v) { return v > 0 && isfinite(v); }

double chart_value(const ChartData *d, const SweepPoint *p, bool model)
{
    if (model)
        return d->busbw ? p->model_busbw : p->model_s;
    return d->busbw ? p->busbw : p->time_s;
}

bool chart_measured(const ChartData *d, const SweepPoint *p)
{
    return p->ok && p->bytes > 0 && chart_usable(chart_value(d, p, false));
}

const ChartSeries *chart_series_of(const ChartData *d, const AlgoInfo *a)
{
    for (int i = 0; i < d->nseries; i++)
        if (d->series[i].algo == a)
            return &d->series[i];
    return NULL;
}

/* Whether algorithm a is shown. */
static bool shown(const ChartData *d, const AlgoInfo *a)
{
    const ChartSeries *s = chart_series_of(d, a);
    return s && s->shown;
}

/* Widen the axes to take value v at log2 size lb. */
static void extend(ChartData *d, double lb, double v)
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
        if (p->algo == a && p->bytes == b && (model || p->ok) &&
            chart_usable(t))
            return t;
    }
    return NAN;
}

/* The sweep's distinct sizes, sorted; how many. */
static size_t sweep_sizes(const App *app, uint64_t *sizes)
{
    size_t ns = 0;
    for (size_t k = 0; k < app->bg.nsweep; k++) {
        uint64_t b = app->bg.sweep[k].bytes;
        size_t at = 0;
        while (at < ns && sizes[at] < b)
            at++;
        if ((at < ns && sizes[at] == b) || ns == MAX_SIZES)
            continue;
        memmove(sizes + at + 1, sizes + at, (ns++ - at) * sizeof *sizes);
        sizes[at] = b;
    }
    return ns;
}

/* The fastest algorithm at size b among those `among` accepts (NULL:
 * none measured there), and its time in *bt. */
static const AlgoInfo *fastest(const App *app, const ChartData *d,
                               uint64_t b, bool model, bool all, double *bt)
{
    const AlgoInfo *best = NULL;
    *bt = INFINITY;
    for (size_t k = 0; k < app->bg.nsweep; k++) {
        const SweepPoint *p = &app->bg.sweep[k];
        double t = model ? p->model_s : p->time_s;
        if (p->bytes == b && (model || p->ok) && chart_usable(t) &&
            t < *bt && (all ? chart_series_of(d, p->algo) != NULL
                            : shown(d, p->algo)))
            *bt = t, best = p->algo;
    }
    return best;
}

/* The fastest shown algorithm at each size, measured (or the model's when
 * nothing is measured), and where it changes; a measured change is
 * unsure where either algorithm leads the other by less than
 * UNSURE_LEAD at the sizes around it. */
static void find_crossovers(const App *app, ChartData *d, bool model)
{
    const AlgoInfo *prev = NULL;
    double prev_lb = 0, bt;
    uint64_t sizes[MAX_SIZES], prev_size = 0;
    size_t ns = sweep_sizes(app, sizes);
    for (size_t i = 0; i < ns; i++) {
        const AlgoInfo *best = fastest(app, d, sizes[i], model, false, &bt);
        if (!best)
            continue;
        double lb = log2((double)sizes[i]);
        if (prev && best != prev && d->ncross < CHART_MAX_CROSS) {
            /* how far the new fastest leads above, and the old below */
            double above = time_at(app, prev, sizes[i], model) / bt - 1;
            double below = time_at(app, best, prev_size, model) /
                               time_at(app, prev, prev_size, model) - 1;
            bool unsure = !model && !(fmin(above, below) >= UNSURE_LEAD);
            d->cross[d->ncross++] = (ChartCross){(lb + prev_lb) / 2, sizes[i],
                                                 prev, best, unsure};
        }
        prev = best, prev_lb = lb, prev_size = sizes[i];
    }
    d->cross_model = model && d->ncross > 0;
}

/* How often each series is the fastest measured at a size (wins) and
 * its time at the largest size (INFINITY: not measured there). */
static void standing(const App *app, const ChartData *d, int *wins,
                     double *last)
{
    uint64_t sizes[MAX_SIZES];
    size_t ns = sweep_sizes(app, sizes);
    double bt;
    for (int i = 0; i < d->nseries; i++) {
        wins[i] = 0;
        last[i] = ns ? time_at(app, d->series[i].algo, sizes[ns - 1], false)
                     : NAN;
        last[i] = isnan(last[i]) ? INFINITY : last[i];
    }
    for (size_t k = 0; k < ns; k++) {
        const AlgoInfo *a = fastest(app, d, sizes[k], false, true, &bt);
        for (int i = 0; i < d->nseries && a; i++)
            wins[i] += d->series[i].algo == a;
    }
}

/* Show the best CHART_OTHERS of the measured others (at most m, listed
 * in o): the most wins first, then the fastest at the largest size. */
static void show_best(const App *app, ChartData *d, const int *o, int m)
{
    int wins[CHART_MAX_SERIES];
    double last[CHART_MAX_SERIES];
    standing(app, d, wins, last);
    for (int n = 0; n < CHART_OTHERS && n < m; n++) {
        int best = -1;
        for (int i = 0; i < m; i++) {
            int s = o[i];
            if (d->series[s].shown)
                continue;
            if (best < 0 || wins[s] > wins[best] ||
                (wins[s] == wins[best] && last[s] < last[best]))
                best = s;
        }
        d->series[best].shown = true;
    }
}

/* Mark the series AppView.chart_pick shows: the scene's algorithm, and
 * the best others, a page of them, or all. */
static void choose(const App *app, ChartData *d)
{
    int o[CHART_MAX_SERIES], m = 0;
    for (int i = 0; i < d->nseries; i++) {
        ChartSeries *s = &d->series[i];
        s->shown = s->algo == app->scene->algo;
        d->measured += s->npts > 0;
        if (s->npts > 0 && !s->shown)
            o[m++] = i;
    }
    d->npages = (m + CHART_OTHERS - 1) / CHART_OTHERS;
    int choices = m <= CHART_OTHERS ? 1 : d->npages + 2;
    int c = app->view.chart_pick % choices;
    d->pick = choices == 1 || c == d->npages + 1 ? CHART_PICK_ALL
              : c == 0 ? CHART_PICK_BEST : CHART_PICK_PAGE;
    d->page = c;
    if (d->pick == CHART_PICK_BEST)
        show_best(app, d, o, m);
    for (int i = 0; i < m; i++)
        d->series[o[i]].shown |= d->pick == CHART_PICK_ALL ||
                                 (d->pick == CHART_PICK_PAGE &&
                                  i / CHART_OTHERS == c - 1);
    for (int i = 0; i < d->nseries; i++)
        d->nshown += d->series[i].shown;
}

double chart_scene_value(const App *app, const ChartData *d, double *lb)
{
    const Scene *sc = app->scene;
    double b = (double)coll_size_bytes(&sc->big);
    *lb = b > 0 ? log2(b) : 0;
    if (!sc->pred_total_s.valid || !chart_usable(sc->pred_total_s.v) ||
        !(b > 0))
        return NAN;
    return d->busbw ? b / sc->pred_total_s.v / 1e9 *
                          coll_busbw_factor(sc->call.kind, sc->call.nranks)
                    : sc->pred_total_s.v;
}

/* The collective's algorithms that fit the scene's machine, each with
 * its mark, model glyph and colour by its place among them. */
static void add_series(const App *app, ChartData *d)
{
    const Scene *sc = app->scene;
    for (size_t i = 0; i < algo_count() && d->nseries < CHART_MAX_SERIES; i++)
        if (algo_at(i)->coll == sc->call.kind &&
            algo_fits(algo_at(i), &sc->call, &sc->machine.mach, NULL, 0)) {
            int n = d->nseries++;
            d->series[n] = (ChartSeries){algo_at(i), (uint32_t)glyphs[n],
                                         (uint32_t)model_glyphs[n],
                                         series_roles[n % 6], 0, 0, false};
        }
}

/* Count each series' points, then widen the axes to the shown ones. */
static void count_points(const App *app, ChartData *d, bool axes)
{
    for (size_t i = 0; i < app->bg.nsweep; i++) {
        const SweepPoint *p = &app->bg.sweep[i];
        ChartSeries *s = (ChartSeries *)chart_series_of(d, p->algo);
        if (!s || !p->bytes || (axes && !s->shown))
            continue;
        double lb = log2((double)p->bytes);
        if (!axes) {
            d->failed += !p->ok;
            s->npts += chart_measured(d, p);
            s->nmodel += chart_usable(chart_value(d, p, true));
            continue;
        }
        if (chart_measured(d, p))
            extend(d, lb, chart_value(d, p, false));
        if (chart_usable(chart_value(d, p, true)))
            extend(d, lb, chart_value(d, p, true));
    }
}

void chart_gather(const App *app, ChartData *d)
{
    const Scene *sc = app->scene;
    memset(d, 0, sizeof *d);
    d->busbw = app->view.chart_busbw;
    d->lx0 = log2((double)APP_SWEEP_MIN);
    d->lx1 = log2((double)(sc->bytes > 4 * APP_SWEEP_MIN ? sc->bytes
                                                          : 4 * APP_SWEEP_MIN));
    d->ly0 = INFINITY, d->ly1 = -INFINITY;
    add_series(app, d);
    count_points(app, d, false);
    choose(app, d);
    count_points(app, d, true);
    double lb, v = chart_scene_value(app, d, &lb);
    if (chart_usable(v))
        extend(d, lb, v);
    find_crossovers(app, d, false);
    if (!d->ncross)
        find_crossovers(app, d, true);
    d->ly0 = floor(d->ly0), d->ly1 = ceil(d->ly1);
    if (d->ly1 - d->ly0 < 1)
        d->ly1 = d->ly0 + 1;
}

int chart_points(const App *app, const ChartData *d, const ChartSeries *s,
                 bool model, double *lb, double *v, int cap)
{
    int n = 0;
    for (size_t i = 0; i < app->bg.nsweep && n < cap; i++) {
        const SweepPoint *p = &app->bg.sweep[i];
        double x = chart_value(d, p, model);
        if (p->algo != s->algo || !p->bytes || !chart_usable(x) ||
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

void chart_cross_text(const ChartData *d, int i, char *out, size_t len)
{
    char s[24];
    const ChartCross *c = &d->cross[i];
    view_fmt_bytes(s, sizeof s, (double)c->at);
    /* TRANSLATORS: the faster algorithm, the slower one, a size */
    int n = snprintf(out, len, _("%s beats %s from %s"), c->to->name,
                     c->from->name, s);
    if (c->unsure && n > 0 && (size_t)n + 1 < len)
        snprintf(out + n, len - (size_t)n, "?");
}

void chart_pick_text(const ChartData *d, char *out, size_t len)
{
    char key[32];
    keys_names(ACT_CHART_PICK, "/", key, sizeof key);
    out[0] = '\0';
    switch (d->pick) {
    case CHART_PICK_BEST:
        snprintf(out, len, _("%d of %d: the best; %s: others"), d->nshown,
                 d->measured, key);
        break;
    case CHART_PICK_PAGE:
        snprintf(out, len, _("%d of %d: others %d/%d; %s: next"), d->nshown,
                 d->measured, d->page, d->npages, key);
        break;
    case CHART_PICK_ALL:
        if (d->measured > 1 + CHART_OTHERS)
            snprintf(out, len, _("all %d; %s: the best"), d->measured, key);
        break;
    case CHART_PICK_COUNT:
        break;
    }
}
