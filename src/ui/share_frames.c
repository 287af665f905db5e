/* share_frames.c - the topology panel over a range of steps as one SVG,
 * one frame per step side by side (FRAMES_COLS to a row), each titled
 * with its step and phase and carrying its link loads in a <desc>, so a
 * slide shows the loads step by step (torus against torus_bidir on
 * -T torus:4x4). The frames are the panel exactly as the terminal draws
 * it (view_topology), written through export.c. */
#include <stdio.h>
#include <string.h>

#include "core/num.h"
#include "ui/export.h"
#include "ui/i18n.h"
#include "ui/scene.h"
#include "ui/share.h"
#include "ui/topo.h"
#include "ui/view.h"
#include "ui/words.h"

/* Frames to a row, and pixels between frames and around them. */
#define FRAMES_COLS 3
#define FRAMES_GAP 20

/* What a write of the frames needs. */
typedef struct {
    App *app;      /* the scene, moved from step to step */
    Grid g;        /* one frame */
    size_t from;   /* first step shown */
    size_t to;     /* last step shown */
    int theme;     /* colours */
    char why[200]; /* a step that failed */
} FramesJob;

/* The title of the frame of step k, with the model's time of the step
 * when `timed` (the scene's size, on its machine; the scene shows step
 * k): "step 3 of 13: reduce-scatter x, 1.68 ms". */
static void frame_title(const Scene *sc, size_t k, bool timed, char *out,
                        size_t len)
{
    char t[32];
    if (k == 0)
        snprintf(out, len, _("step 0 of %zu: initial state"),
                 sc->sched.nsteps);
    else if (!timed || !sc->pred_step_s.valid)
        snprintf(out, len, _("step %zu of %zu: %s"), k, sc->sched.nsteps,
                 words_phase(sc->sched.steps[k - 1].phase));
    else {
        view_fmt_time(t, sizeof t, sc->pred_step_s.v);
        snprintf(out, len, _("step %zu of %zu: %s, %s"), k,
                 sc->sched.nsteps, words_phase(sc->sched.steps[k - 1].phase),
                 t);
    }
}

/* Columns a frame's title takes besides its words: the frame's corners
 * and blanks, ", " and a time ("420.4 us"). */
#define TITLE_MORE 16

/* A frame's cells: the machine's drawing (topo_machine_size), its two
 * lines of footer and the frame, or the algorithm's shape without one;
 * wide enough for the longest title of steps from..to. */
static void frame_size(const App *app, size_t from, size_t to, int *w,
                       int *h)
{
    int rows = 0, cols = 0;
    char title[160];
    if (app->scene->machine.spec[0])
        topo_machine_size(app->scene, 76, &rows, &cols);
    *w = cols ? num_max(cols + 2, 44) : 60;
    *h = rows ? rows + 4 : 18;
    for (size_t k = from; k <= to; k++) {
        frame_title(app->scene, k, false, title, sizeof title);
        *w = num_max(*w, grid_text_width(title) + TITLE_MORE);
    }
}

/* The step's link loads as text: "r0>r1 x 16 B, r1>r0 x 16 B". */
static void frame_loads(Sink *s, const Scene *sc)
{
    const Machine *m = &sc->machine.mach;
    bool any = false;
    for (int l = 0; sc->link_bytes && l < m->nlinks; l++) {
        char name[64], bytes[24], one[100];
        if (!(sc->link_bytes[l] > 0))
            continue;
        machine_link_name(m, l, name, sizeof name);
        view_fmt_bytes(bytes, sizeof bytes, sc->link_bytes[l]);
        snprintf(one, sizeof one, "%s%s %s", any ? ", " : "", name, bytes);
        export_xml_text(s, one);
        any = true;
    }
}

/* The frame of step k at pixel (x, y). */
static void frame(Sink *s, FramesJob *j, size_t k, int x, int y)
{
    char title[160];
    const Scene *sc = j->app->scene;
    frame_title(sc, k, true, title, sizeof title);
    grid_clear(&j->g);
    Rect in = grid_box(&j->g, grid_rect(&j->g), ROLE_BORDER, title,
                       ROLE_TITLE);
    view_topology.draw(j->app, &j->g, in);
    sink_printf(s, "<g class=\"frame\" data-step=\"%zu\">\n<title>", k);
    export_xml_text(s, title);
    sink_str(s, "</title>\n<desc class=\"loads\">");
    frame_loads(s, sc);
    sink_str(s, "</desc>\n");
    export_svg_at(s, &j->g, j->theme, x, y);
    sink_str(s, "</g>\n");
}

static int write_frames(FILE *f, void *ctx)
{
    FramesJob *j = ctx;
    Sink s;
    int n = (int)(j->to - j->from + 1), cols = num_min(n, FRAMES_COLS);
    int rows = (n + cols - 1) / cols;
    int fw = j->g.w * EXPORT_CELL_W, fh = j->g.h * EXPORT_CELL_H;
    if (sink_init(&s, f, 1 << 16))
        return 1;
    export_svg_begin(&s, cols * (fw + FRAMES_GAP) + FRAMES_GAP,
                     rows * (fh + FRAMES_GAP) + FRAMES_GAP);
    for (size_t k = j->from; k <= j->to && !j->why[0]; k++) {
        int i = (int)(k - j->from);
        if (scene_seek(j->app->scene, k, j->why, sizeof j->why) &&
            !j->why[0])
            snprintf(j->why, sizeof j->why, "step %zu could not be shown", k);
        frame(&s, j, k, FRAMES_GAP + i % cols * (fw + FRAMES_GAP),
              FRAMES_GAP + i / cols * (fh + FRAMES_GAP));
    }
    sink_str(&s, "</svg>\n");
    sink_fini(&s);
    return s.err || j->why[0];
}

CvError share_frames(App *app, const char *path, size_t from, size_t to,
                     int theme, char *why, size_t whylen)
{
    size_t n = app->scene->sched.nsteps;
    FramesJob j = {.app = app, .from = from < n ? from : n,
                   .to = to < n ? to : n, .theme = theme};
    int w, h;
    j.to = j.to < j.from ? j.from : j.to;
    frame_size(app, j.from, j.to, &w, &h);
    if (grid_init(&j.g, w, h, app->view.ascii)) {
        snprintf(why, whylen, "there is not enough memory for the frames");
        return CV_ERR_NOMEM;
    }
    CvError e = share_write(path, write_frames, &j, why, whylen);
    if (e && j.why[0])
        snprintf(why, whylen, "%s", j.why);
    grid_fini(&j.g);
    return e;
}
