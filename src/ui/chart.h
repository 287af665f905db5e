/* chart.h - what the chart shows, gathered once from the App's sweep:
 * the algorithms of the collective as series, which of them are shown
 * (AppView.chart_pick: the scene's algorithm and the best two, a page of
 * the others, or all), the plot's ranges and the sizes where the fastest
 * shown algorithm changes. The panel (view_chart.c) and the chart's SVG
 * (chart_svg.c) both draw from it, so they say the same. Everything here
 * is a measurement of the sweep or the model's price of it. */
#ifndef COLLVIZ_UI_CHART_H
#define COLLVIZ_UI_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/app.h"
#include "ui/grid.h"

/* Most series (algorithms of one collective) and crossovers kept. */
#define CHART_MAX_SERIES 12
#define CHART_MAX_CROSS 8
/* Algorithms besides the scene's that a choice shows. */
#define CHART_OTHERS 2

/* One algorithm's series. */
typedef struct {
    const AlgoInfo *algo; /* the algorithm */
    uint32_t glyph;       /* its mark */
    uint32_t mglyph;      /* its model curve's glyph */
    Role role;            /* its colour */
    int npts;             /* measured points */
    int nmodel;           /* model points */
    bool shown;           /* in the chart (AppView.chart_pick) */
} ChartSeries;

/* A size where the fastest shown algorithm changes. */
typedef struct {
    double lb;            /* log2 of the size (between two measured) */
    uint64_t at;          /* the first size measured where `to` leads */
    const AlgoInfo *from; /* fastest below */
    const AlgoInfo *to;   /* fastest above */
    bool unsure;          /* measured, and a lead under UNSURE_LEAD on
                             either side */
} ChartCross;

/* Which algorithms a choice shows. */
typedef enum {
    CHART_PICK_BEST, /* the scene's and the best CHART_OTHERS */
    CHART_PICK_PAGE, /* the scene's and a page of the others */
    CHART_PICK_ALL,  /* every measured algorithm */
    CHART_PICK_COUNT
} ChartPickKind;

/* What the chart shows. */
typedef struct {
    bool busbw;                           /* busbw (else time) */
    ChartSeries series[CHART_MAX_SERIES]; /* the collective's algorithms */
    int nseries;                          /* series used */
    int measured;                         /* series with measured points */
    int nshown;                           /* series shown */
    ChartPickKind pick;                   /* the choice in force */
    int page;                             /* with CHART_PICK_PAGE: which,
                                             from 1 */
    int npages;                           /* pages of the others */
    int failed;                 /* points whose run failed or was wrong */
    ChartCross cross[CHART_MAX_CROSS];    /* crossovers, by size */
    int ncross;                           /* crossovers found */
    bool cross_model; /* crossovers are the model's (nothing measured) */
    double lx0, lx1;  /* log2 sizes at the plot's edges */
    double ly0, ly1;  /* log10 values at the bottom and top */
} ChartData;

/* Gather what the App's sweep gives the chart. */
void chart_gather(const App *app, ChartData *d);

/* Whether v can be plotted on a log axis. */
bool chart_usable(double v);
/* Whether p holds a measurement to plot in d's view. */
bool chart_measured(const ChartData *d, const SweepPoint *p);
/* The value p plots: measured, or the model's. */
double chart_value(const ChartData *d, const SweepPoint *p, bool model);
/* The series of algorithm a (NULL when a is not the collective's). */
const ChartSeries *chart_series_of(const ChartData *d, const AlgoInfo *a);

/* Series s's values (measured, or the model's) by size: log2 sizes in
 * lb, values in v, in order of size; how many (at most cap). */
int chart_points(const App *app, const ChartData *d, const ChartSeries *s,
                 bool model, double *lb, double *v, int cap);

/* Crossover i as a sentence: "ring beats tree from 256 KiB", with '?'
 * after one the measurements do not settle. */
void chart_cross_text(const ChartData *d, int i, char *out, size_t len);

/* Which algorithms are shown, and the key that changes it: "best 3 of
 * 7, V: others". */
void chart_pick_text(const ChartData *d, char *out, size_t len);

/* The scene's prediction at its chosen size in d's view (NaN: none). */
double chart_scene_value(const App *app, const ChartData *d, double *lb);

#endif
