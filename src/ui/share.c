/* share.c - the App's screens as SVG and asciicast files. */
#include "ui/share.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "store/store.h"
#include "ui/chart_svg.h"
#include "ui/export.h"
#include "ui/i18n.h"
#include "ui/scene.h"
#include "ui/scene_str.h"
#include "ui/screen.h"

/* Write through fn to path, or to standard output for "-" (a stream:
 * nothing to rename). */
static CvError write_file(const char *path, StoreWriteFn fn, void *ctx,
                          char *why, size_t whylen)
{
    if (strcmp(path, "-"))
        return store_export_check(path, why, whylen)
                   ? CV_ERR_IO : store_write(path, fn, ctx, why, whylen);
    if (!fn(stdout, ctx) && !fflush(stdout) && !ferror(stdout))
        return CV_OK;
    snprintf(why, whylen, "cannot write the standard output: %s",
             strerror(errno ? errno : EIO));
    return CV_ERR_IO;
}

/* Whether path's folder exists; a sentence when not (the store would
 * make it, and a mistyped folder would then be made silently). */
static bool folder_exists(const char *path, char *why, size_t whylen)
{
    char dir[4096];
    struct stat st;
    const char *slash = strrchr(path, '/');
    if (!slash)
        return true;
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (!dir[0] || (!stat(dir, &st) && S_ISDIR(st.st_mode)))
        return true;
    snprintf(why, whylen, "cannot write %s: the folder %s does not exist",
             path, dir);
    return false;
}

CvError share_write(const char *path, StoreWriteFn fn, void *ctx,
                    char *why, size_t whylen)
{
    if (!folder_exists(path, why, whylen))
        return CV_ERR_IO;
    return write_file(path, fn, ctx, why, whylen);
}

/* ------------------------------------------------------------ SVG */

/* What a write of one screen needs. */
typedef struct {
    const Grid *g; /* the screen */
    int theme;     /* its theme */
} SvgJob;

static int write_svg(FILE *f, void *ctx)
{
    const SvgJob *j = ctx;
    return export_svg(f, j->g, j->theme) != CV_OK;
}

static CvError svg_of_grid(const Grid *g, const char *path, int theme,
                           char *why, size_t whylen)
{
    SvgJob j = {.g = g, .theme = theme};
    return share_write(path, write_svg, &j, why, whylen);
}

/* What a write of the chart needs. */
typedef struct {
    const App *app; /* the sweep and what is shown */
    int theme;      /* its theme */
} ChartJob;

static int write_chart(FILE *f, void *ctx)
{
    const ChartJob *j = ctx;
    return chart_svg(f, j->app, j->theme) != CV_OK;
}

CvError share_chart_svg(const App *app, const char *path, int theme,
                        char *why, size_t whylen)
{
    ChartJob j = {.app = app, .theme = theme};
    return share_write(path, write_chart, &j, why, whylen);
}

/* Draw the App's screen into g at its terminal size. */
static void draw(App *app, Grid *g)
{
    if (g->w != app->view.term_w || g->h != app->view.term_h)
        grid_resize(g, app->view.term_w, app->view.term_h);
    screen_draw(app, g);
}

CvError share_svg(App *app, Grid *g, const char *path, int theme, char *why,
                  size_t whylen)
{
    draw(app, g);
    return svg_of_grid(g, path, theme, why, whylen);
}

/* ------------------------------------------------------------ cast */

/* What a write of a range of steps needs. */
typedef struct {
    App *app;     /* the scene, moved from step to step */
    Grid *g;      /* the screen */
    size_t from;  /* first step shown */
    size_t to;    /* last step shown */
    double delay; /* seconds between screens */
    int theme;    /* colours */
    char why[200]; /* a step that failed */
} CastJob;

static int write_cast(FILE *f, void *ctx)
{
    CastJob *j = ctx;
    CastWriter c;
    char title[SCENE_STR_LEN];
    SceneStr s;
    scene_str_of(j->app->scene, j->app->view.present, &s);
    s.step = 0;
    scene_str_format(&s, title, sizeof title);
    if (cast_begin(&c, f, j->app->view.term_w, j->app->view.term_h, title,
                   (double)(j->to - j->from) * j->delay))
        return 1;
    for (size_t k = j->from; k <= j->to && !j->why[0]; k++) {
        if (scene_seek(j->app->scene, k, j->why, sizeof j->why) &&
            !j->why[0])
            snprintf(j->why, sizeof j->why, "step %zu could not be shown", k);
        draw(j->app, j->g);
        cast_frame(&c, (double)(k - j->from) * j->delay, j->g, j->theme);
    }
    return cast_end(&c) != CV_OK || j->why[0];
}

CvError share_cast(App *app, Grid *g, const char *path, size_t from,
                   size_t to, double delay, int theme, char *why,
                   size_t whylen)
{
    size_t n = app->scene->sched.nsteps;
    CastJob j = {.app = app, .g = g, .from = from < n ? from : n,
                 .to = to < n ? to : n, .delay = delay, .theme = theme};
    if (j.to < j.from)
        j.to = j.from;
    CvError e = share_write(path, write_cast, &j, why, whylen);
    if (e && j.why[0])
        snprintf(why, whylen, "%s", j.why);
    return e;
}

/* ------------------------------------------------------------ the key */

/* W's cast: the steps from the one shown to the last, 1.5 s apart, on
 * a grid of the screen's size. */
static CvError cast_from_here(App *app, const Grid *screen, const char *path,
                              int theme, char *why, size_t whylen)
{
    Grid g;
    if (grid_init(&g, screen->w, screen->h, screen->ascii)) {
        snprintf(why, whylen, "there is not enough memory for the screens");
        return CV_ERR_NOMEM;
    }
    CvError e = share_cast(app, &g, path, app->scene->step,
                           app->scene->sched.nsteps, SHARE_DELAY_S, theme,
                           why, whylen);
    grid_fini(&g);
    return e;
}

/* What the key w or W writes. */
typedef enum {
    PENDING_SCREEN, /* w: the screen */
    PENDING_CHART,  /* w in the full-screen chart: its lines */
    PENDING_FRAMES, /* w in the full-screen topology: frames of steps */
    PENDING_CAST    /* W: the steps from here as a cast */
} Pending;

/* The steps w's frames take: from the shown one (at least 1) to the
 * last, at most SHARE_FRAMES_MAX. */
static void frames_range(const Scene *sc, size_t *from, size_t *to)
{
    size_t n = sc->sched.nsteps;
    *from = sc->step ? sc->step : 1;
    *from = *from < n ? *from : n;
    *to = *from + SHARE_FRAMES_MAX - 1 < n ? *from + SHARE_FRAMES_MAX - 1
                                          : n;
}

/* Write what w or W asked for; a range of steps leaves the scene at the
 * step shown before. */
static CvError write_pending(App *app, const Grid *g, Pending k,
                             const char *path, int theme, char *why,
                             size_t whylen)
{
    char seek_why[200];
    size_t step = app->scene->step, from, to;
    CvError e = CV_OK;
    switch (k) {
    case PENDING_SCREEN:
        return svg_of_grid(g, path, theme, why, whylen);
    case PENDING_CHART:
        return share_chart_svg(app, path, theme, why, whylen);
    case PENDING_FRAMES:
        frames_range(app->scene, &from, &to);
        e = share_frames(app, path, from, to, theme, why, whylen);
        break;
    case PENDING_CAST:
        e = cast_from_here(app, g, path, theme, why, whylen);
        break;
    }
    if (scene_seek(app->scene, step, seek_why, sizeof seek_why))
        app_scene_said(app, seek_why);
    return e;
}

/* On the status line: what was written. */
static void say_written(App *app, const Grid *g, Pending k,
                        const char *path)
{
    size_t from = app->scene->step, n = app->scene->sched.nsteps, to;
    switch (k) {
    case PENDING_SCREEN:
        app_message(app, false, _("Wrote the screen (%dx%d) as SVG to %s."),
                    g->w, g->h, path);
        break;
    case PENDING_CHART:
        app_message(app, false, _("Wrote the chart as an SVG of lines to "
                                  "%s."), path);
        break;
    case PENDING_FRAMES:
        frames_range(app->scene, &from, &to);
        app_message(app, false, _("Wrote the topology of steps %zu to %zu "
                                  "as SVG frames to %s."), from, to, path);
        break;
    case PENDING_CAST:
        app_message(app, false, _("Wrote steps %zu to %zu (%dx%d) as an "
                                  "asciicast to %s."), from, n, g->w, g->h,
                    path);
        break;
    }
}

bool share_pending(App *app, const Grid *g, int theme)
{
    char why[300], path[sizeof app->status.export_to];
    if (!app->status.export_to[0])
        return false;
    snprintf(path, sizeof path, "%s", app->status.export_to);
    app->status.export_to[0] = '\0';
    Pending k = app->status.export_cast ? PENDING_CAST
                : app->view.chart_full ? PENDING_CHART
                : app->view.topo_full ? PENDING_FRAMES : PENDING_SCREEN;
    if (write_pending(app, g, k, path, theme, why, sizeof why))
        app_message(app, true, "%c%s.", why[0] >= 'a' && why[0] <= 'z'
                    ? why[0] - 'a' + 'A' : why[0], why + 1);
    else
        say_written(app, g, k, path);
    return true;
}
