/* chart_svg.c - the chart as a picture for a slide (the key w in the
 * full-screen chart): the shown algorithms' measured times as lines with
 * a marker at every measured size, each algorithm's model as a dashed
 * line of its colour, the scene's prediction at its size, log axes
 * labelled with sizes and times, the legend, the crossovers marked and
 * said in words. Everything comes from chart.h's gathering, so the
 * picture says what the panel says. */
#include "ui/chart_svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "store/sink.h"
#include "ui/chart.h"
#include "ui/export.h"
#include "ui/i18n.h"
#include "ui/theme.h"
#include "ui/view.h"

/* The picture's size and the plot's box in it, in pixels. */
enum {
    PIC_W = 1400, PIC_H = 900,
    PLOT_X = 130, PLOT_Y = 190, PLOT_W = 1160, PLOT_H = 600,
    FONT = 22, SMALL = 18
};

/* What a drawing needs. */
typedef struct {
    Sink *s;            /* the file */
    const App *app;     /* the sweep */
    const ChartData *d; /* what is shown */
    int theme;          /* colours */
} Pic;

/* Relative luminance (WCAG) of rgb. */
static double luminance(uint32_t rgb)
{
    double c[3];
    for (int i = 0; i < 3; i++) {
        double v = (double)((rgb >> (16 - 8 * i)) & 0xffu) / 255.0;
        c[i] = v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
    }
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

/* Role r's colour under the picture's theme; one of the eight system
 * colours too dark on the picture's ground to read on a projected slide
 * (xterm's blue is 2.2 to 1 against it, under WCAG's 3 for graphics) as
 * its bright variant. */
static uint32_t colour(const Pic *p, Role r)
{
    const ThemeStyle *st = theme_style(p->theme, r);
    if (st->fg < 0)
        return EXPORT_DEFAULT_FG;
    uint32_t rgb = theme_rgb(st->fg);
    double ground = luminance(EXPORT_DEFAULT_BG);
    if (st->fg < 8 && (luminance(rgb) + 0.05) / (ground + 0.05) < 3.0)
        rgb = theme_rgb(st->fg + 8);
    return rgb;
}

static double px_x(const ChartData *d, double lb)
{
    return PLOT_X + (lb - d->lx0) / (d->lx1 - d->lx0) * PLOT_W;
}

static double px_y(const ChartData *d, double v)
{
    return PLOT_Y + PLOT_H - (log10(v) - d->ly0) / (d->ly1 - d->ly0) * PLOT_H;
}

/* Text at (x, y), anchored, in role r's colour, its <>& escaped. */
static void text(const Pic *p, double x, double y, const char *anchor,
                 int size, Role r, const char *t)
{
    sink_printf(p->s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" "
                "font-size=\"%d\" fill=\"#%06x\">", x, y, anchor, size,
                (unsigned)colour(p, r));
    export_xml_text(p->s, t);
    sink_str(p->s, "</text>\n");
}

/* A value at 10^e as a label: "10 us", "1 ms", "0.1 GB/s". */
static void value_label(const ChartData *d, int e, char *out, size_t len)
{
    static const char *const units[] = {"ns", "us", "ms", "s"};
    if (d->busbw) {
        snprintf(out, len, "%g", pow(10, e));
        return;
    }
    int u = e < -9 ? 0 : e >= 0 ? 3 : (e + 9) / 3;
    snprintf(out, len, "%g %s", pow(10, e) / pow(10, 3 * u - 9), units[u]);
}

/* The value axis: a faint line and a label at every power of ten. */
static void y_axis(const Pic *p)
{
    const ChartData *d = p->d;
    char s[32];
    for (int e = (int)d->ly0; e <= (int)d->ly1; e++) {
        double y = px_y(d, pow(10, e));
        sink_printf(p->s, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" "
                    "x2=\"%d\" y2=\"%.1f\" stroke=\"#%06x\" "
                    "stroke-opacity=\"0.25\"/>\n", PLOT_X, y,
                    PLOT_X + PLOT_W, y, (unsigned)colour(p, ROLE_AXIS));
        value_label(d, e, s, sizeof s);
        text(p, PLOT_X - 12, y + 7, "end", FONT, ROLE_AXIS, s);
    }
    text(p, PLOT_X - 12, PLOT_Y - 16, "end", SMALL, ROLE_AXIS,
         d->busbw ? _("busbw GB/s") : _("time"));
}

/* The size axis: a tick at every power of two, a label at every second
 * one from the largest down, and at the smallest. */
static void x_axis(const Pic *p)
{
    const ChartData *d = p->d;
    char s[32];
    int y = PLOT_Y + PLOT_H;
    for (double lb = ceil(d->lx0); lb <= d->lx1; lb++) {
        double x = px_x(d, lb);
        bool label = fmod(d->lx1 - lb, 2) == 0 || lb == ceil(d->lx0);
        sink_printf(p->s, "<line class=\"tick\" x1=\"%.1f\" y1=\"%d\" "
                    "x2=\"%.1f\" y2=\"%d\" stroke=\"#%06x\"/>\n", x, y, x,
                    y + (label ? 10 : 5), (unsigned)colour(p, ROLE_AXIS));
        if (!label)
            continue;
        view_fmt_bytes(s, sizeof s, exp2(lb));
        text(p, x, y + 34, "middle", SMALL, ROLE_AXIS, s);
    }
    sink_printf(p->s, "<path class=\"axes\" d=\"M%d %dV%dH%d\" fill=\"none\" "
                "stroke=\"#%06x\" stroke-width=\"2\"/>\n", PLOT_X, PLOT_Y, y,
                PLOT_X + PLOT_W, (unsigned)colour(p, ROLE_AXIS));
    text(p, PLOT_X + PLOT_W / 2, y + 70, "middle", FONT, ROLE_AXIS,
         _("message size"));
}

/* Marker k (a shape per shown series, so they tell apart without
 * colour) at (x, y); a measured point's, or the legend's. */
static void marker(const Pic *p, int k, double x, double y, uint32_t rgb,
                   bool point)
{
    const char *cls = point ? "class=\"point\"" : "class=\"key\"";
    switch (k % 3) {
    case 0:
        sink_printf(p->s, "<circle %s cx=\"%.1f\" cy=\"%.1f\" r=\"6\"", cls,
                    x, y);
        break;
    case 1:
        sink_printf(p->s, "<rect %s x=\"%.1f\" y=\"%.1f\" width=\"12\" "
                    "height=\"12\"", cls, x - 6, y - 6);
        break;
    default:
        sink_printf(p->s, "<path %s d=\"M%.1f %.1fl7 7l-7 7l-7 -7z\"", cls,
                    x, y - 7);
        break;
    }
    sink_printf(p->s, " fill=\"#%06x\"/>\n", (unsigned)rgb);
}

/* Series s's name beside its last point (x, y), moved right of the
 * scene's prediction where that circle would cover it. */
static void end_label(const Pic *p, const ChartSeries *s, double x,
                      double y)
{
    double lb, v = chart_scene_value(p->app, p->d, &lb);
    double px = px_x(p->d, lb), py = chart_usable(v) ? px_y(p->d, v) : -99;
    if (fabs(py - y) < 16 && px >= x && px - x < 12 + 13 *
        (double)strlen(s->algo->name))
        x = px;
    text(p, x + 12, y + 7, "start", SMALL, s->role, s->algo->name);
}

/* Series s (the k-th shown): the model dashed, the measured line, its
 * markers and its name at its last point. */
static void series(const Pic *p, const ChartSeries *s, int k)
{
    double lb[64], v[64];
    uint32_t rgb = colour(p, s->role);
    for (int model = 1; model >= 0; model--) {
        int n = chart_points(p->app, p->d, s, model, lb, v, 64);
        if (n < 1)
            continue;
        sink_printf(p->s, "<polyline class=\"%s\" data-algo=\"%s\" "
                    "points=\"", model ? "model" : "measured", s->algo->name);
        for (int i = 0; i < n; i++)
            sink_printf(p->s, "%s%.1f,%.1f", i ? " " : "",
                        px_x(p->d, lb[i]), px_y(p->d, v[i]));
        sink_printf(p->s, "\" fill=\"none\" stroke=\"#%06x\" "
                    "stroke-width=\"%s\"%s/>\n", (unsigned)rgb,
                    model ? "2" : "3.5",
                    model ? " stroke-dasharray=\"10 7\"" : "");
        for (int i = 0; i < n && !model; i++)
            marker(p, k, px_x(p->d, lb[i]), px_y(p->d, v[i]), rgb, true);
        if (!model)
            end_label(p, s, px_x(p->d, lb[n - 1]), px_y(p->d, v[n - 1]));
    }
}

/* The legend over the plot: each shown algorithm's line and marker, the
 * model's dashes, the scene's prediction, how many are shown. */
static void legend(const Pic *p)
{
    const ChartData *d = p->d;
    double x = PLOT_X, y = 110;
    char t[160];
    for (int i = 0, k = 0; i < d->nseries; i++) {
        const ChartSeries *s = &d->series[i];
        if (!s->shown)
            continue;
        sink_printf(p->s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                    "y2=\"%.1f\" stroke=\"#%06x\" stroke-width=\"3.5\"/>\n",
                    x, y - 7, x + 40, y - 7, (unsigned)colour(p, s->role));
        marker(p, k++, x + 20, y - 7, colour(p, s->role), false);
        text(p, x + 50, y, "start", FONT, s->role, s->algo->name);
        x += 80 + 13 * (double)strlen(s->algo->name);
    }
    sink_printf(p->s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\""
                " stroke=\"#%06x\" stroke-width=\"2\" "
                "stroke-dasharray=\"10 7\"/>\n", x, y - 7, x + 40, y - 7,
                (unsigned)colour(p, ROLE_AXIS));
    text(p, x + 50, y, "start", SMALL, ROLE_AXIS, _("model"));
    double lb, v = chart_scene_value(p->app, d, &lb);
    if (chart_usable(v)) { /* the scene's own prediction */
        char size[24];
        view_fmt_bytes(size, sizeof size, exp2(lb));
        sink_printf(p->s, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" "
                    "fill=\"none\" stroke=\"#%06x\" stroke-width=\"2\"/>\n",
                    x + 130, y - 7, (unsigned)colour(p, ROLE_MODEL));
        snprintf(t, sizeof t, _("the model at %s"), size);
        text(p, x + 145, y, "start", SMALL, ROLE_AXIS, t);
    }
    snprintf(t, sizeof t, _("%d of %d algorithms measured"), d->nshown,
             d->measured);
    text(p, PIC_W - 20, y, "end", SMALL, ROLE_DIM, t);
}

/* Pixels text of `cols` terminal columns takes at font size `size` (a
 * column of Latin text is about 0.55 of the size; a CJK character two). */
static double text_px(int cols, int size)
{
    return cols * 0.55 * size;
}

/* The crossovers' sentences over the plot: on one row at FONT where they
 * fit, else packed whole on two rows at SMALL, those left counted. */
static void cross_rows(const Pic *p)
{
    const ChartData *d = p->d;
    char row[2][600] = {"", ""}, one[160];
    int cols[2] = {0, 0}, r = 0, left = 0;
    int size = FONT, rows = 1, total = 0;
    for (int i = 0; i < d->ncross; i++) {
        chart_cross_text(d, i, one, sizeof one);
        total += grid_text_width(one) + (i ? 2 : 0);
    }
    if (text_px(total, FONT) > PLOT_W)
        size = SMALL, rows = 2;
    for (int i = 0; i < d->ncross; i++) {
        chart_cross_text(d, i, one, sizeof one);
        int w = grid_text_width(one) + (cols[r] ? 2 : 0);
        if (text_px(cols[r] + w + 4, size) > PLOT_W && r + 1 < rows &&
            cols[r])
            r++, w -= 2;
        if (left || text_px(cols[r] + w + 4, size) > PLOT_W) {
            left++;
            continue;
        }
        snprintf(row[r] + strlen(row[r]), sizeof row[r] - strlen(row[r]),
                 "%s%s", cols[r] ? "; " : "", one);
        cols[r] += w;
    }
    if (left)
        snprintf(row[r] + strlen(row[r]), sizeof row[r] - strlen(row[r]),
                 " +%d", left);
    for (int k = 0; k < rows && row[k][0]; k++)
        text(p, PLOT_X, rows == 1 ? 150 : 144 + 24 * k, "start", size,
             ROLE_VALUE, row[k]);
}

/* The crossovers: a dashed line on the plot and the sentences over it,
 * with what '?' means under the axis. */
static void crossovers(const Pic *p)
{
    const ChartData *d = p->d;
    bool unsure = false;
    for (int i = 0; i < d->ncross; i++) {
        double x = px_x(d, d->cross[i].lb);
        sink_printf(p->s, "<line class=\"crossover\" x1=\"%.1f\" y1=\"%d\" "
                    "x2=\"%.1f\" y2=\"%d\" stroke=\"#%06x\" "
                    "stroke-dasharray=\"4 6\"/>\n", x, PLOT_Y, x,
                    PLOT_Y + PLOT_H, (unsigned)colour(p, ROLE_WARN));
        unsure |= d->cross[i].unsure;
    }
    if (d->ncross)
        cross_rows(p);
    if (unsure)
        text(p, PLOT_X, PIC_H - 12, "start", SMALL, ROLE_DIM,
             _("? the lead is under 10% there: within this machine's "
               "noise; rerun with more iterations"));
}

/* The title: the call and what is plotted. */
static void title(const Pic *p)
{
    const Scene *sc = p->app->scene;
    char t[200];
    snprintf(t, sizeof t, p->d->busbw
             ? _("%s, %d ranks (%s): bus bandwidth against message size")
             : _("%s, %d ranks (%s): time against message size"),
             coll_name(sc->call.kind), sc->call.nranks, sc->backend->name);
    text(p, PLOT_X, 50, "start", 28, ROLE_TITLE, t);
}

CvError chart_svg(FILE *f, const App *app, int theme)
{
    Sink s;
    ChartData d;
    chart_gather(app, &d);
    Pic p = {.s = &s, .app = app, .d = &d, .theme = theme};
    if (sink_init(&s, f, 1 << 16))
        return CV_ERR_NOMEM;
    sink_printf(&s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"'DejaVu "
                "Sans', 'Noto Sans CJK SC', sans-serif\">\n<rect width=\"%d\" "
                "height=\"%d\" fill=\"#%06x\"/>\n", PIC_W, PIC_H, PIC_W, PIC_H,
                PIC_W, PIC_H, (unsigned)EXPORT_DEFAULT_BG);
    title(&p);
    legend(&p);
    y_axis(&p);
    x_axis(&p);
    crossovers(&p);
    for (int i = 0, k = 0; i < d.nseries; i++)
        if (d.series[i].shown)
            series(&p, &d.series[i], k++);
    double lb, v = chart_scene_value(app, &d, &lb);
    if (chart_usable(v))
        sink_printf(&s, "<circle class=\"prediction\" cx=\"%.1f\" "
                    "cy=\"%.1f\" r=\"8\" fill=\"none\" stroke=\"#%06x\" "
                    "stroke-width=\"2\"/>\n", px_x(&d, lb), px_y(&d, v),
                    (unsigned)colour(&p, ROLE_MODEL));
    sink_str(&s, "</svg>\n");
    sink_fini(&s);
    return s.err ? CV_ERR_IO : CV_OK;
}
