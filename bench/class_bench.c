/* class_bench.c - the classroom's targets, measured on this machine:
 *  - the sweep of every algorithm of allreduce at 8 ranks from 8 B to
 *    64 MiB on the threads backend, as `C` runs it in the TUI (the
 *    worker, its sizes and budget): target under 20 s, printed as a
 *    ratio to the target beside the load average, which the figure
 *    depends on;
 *  - how many progress updates the sweep gave (the screen moves);
 *  - a frame of presenter mode at 64 ranks (allreduce ring, midway, the
 *    whole screen drawn into the grid) at 100x30 and 200x70: target under
 *    2 ms, printed as a ratio to the target beside a frame of the normal
 *    layout measured in the same run.
 * Not a test: figures only (bench/results/).
 *
 * usage: class_bench [RANKS]   (default 8) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ui/app.h"
#include "ui/scene.h"
#include "ui/screen.h"

#define TARGET_S 20.0
#define FRAME_TARGET_S 2e-3
#define FRAMES 300

/* Mean seconds of a frame of app at w x h. */
static double frame_s(App *app, int w, int h)
{
    Grid g;
    if (grid_init(&g, w, h, false))
        return -1;
    app->view.term_w = w, app->view.term_h = h;
    double t0 = app_now();
    for (int i = 0; i < FRAMES; i++)
        screen_draw(app, &g);
    double t = (app_now() - t0) / FRAMES;
    grid_fini(&g);
    return t;
}

/* Presenter mode at 64 ranks against the normal layout. */
static int frames(void)
{
    AppOptions o = app_options(COLL_ALLREDUCE, "ring", 64, true);
    App app;
    char why[200];
    static const int sizes[][2] = {{100, 30}, {200, 70}};
    if (app_init(&app, &o, why, sizeof why)) {
        fprintf(stderr, "class_bench: %s\n", why);
        return 1;
    }
    scene_seek(app.scene, app.scene->sched.nsteps / 2, why, sizeof why);
    for (int i = 0; i < 2; i++) {
        app.view.present = false;
        double normal = frame_s(&app, sizes[i][0], sizes[i][1]);
        app.view.present = true;
        double pres = frame_s(&app, sizes[i][0], sizes[i][1]);
        printf("presenter frame, allreduce ring, 64 ranks, %dx%d: %.3f ms "
               "(normal layout %.3f ms); target %.0f ms, ratio %.2f\n",
               sizes[i][0], sizes[i][1], pres * 1e3, normal * 1e3,
               FRAME_TARGET_S * 1e3, pres / FRAME_TARGET_S);
    }
    app_fini(&app);
    return 0;
}

static double load_average(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

int main(int argc, char **argv)
{
    int p = argc > 1 ? atoi(argv[1]) : 8;
    if (frames())
        return 1;
    AppOptions o = app_options(COLL_ALLREDUCE, "ring", p > 0 ? p : 8, false);
    App app;
    char why[200];
    if (app_init(&app, &o, why, sizeof why)) {
        fprintf(stderr, "class_bench: %s\n", why);
        return 1;
    }
    double load = load_average(), t0 = app_now();
    Request r = {.act = ACT_COMPARE};
    app_apply(&app, &r);
    int updates = 0;
    while (app.bg.kind != WORKER_IDLE) {
        updates += app_poll(&app, app_now());
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    double t = app_now() - t0;
    printf("sweep of allreduce, every algorithm, %d ranks, 8 B to 64 MiB: "
           "%zu points in %.2f s (%d screen updates); target %.0f s, "
           "ratio %.2f; load average before %.2f\n%s\n",
           o.nranks, app.bg.nsweep, t, updates, TARGET_S, t / TARGET_S, load,
           app.status.msg);
    app_fini(&app);
    return 0;
}
