/* chart_svg.h - the chart as an SVG picture for slides: lines, not
 * characters (chart_svg.c). */
#ifndef COLLVIZ_UI_CHART_SVG_H
#define COLLVIZ_UI_CHART_SVG_H

#include <stdio.h>

#include "core/error.h"
#include "ui/app.h"

/* Write the App's chart (the algorithms AppView.chart_pick shows) as an
 * SVG document under theme (ThemeId). CV_ERR_IO when a write failed. */
CvError chart_svg(FILE *f, const App *app, int theme);

#endif
