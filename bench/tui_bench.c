/* tui_bench.c - how fast the TUI is, measured without a terminal:
 *  - a frame: the whole screen drawn into the grid at 64 ranks x 64 cells
 *    (allreduce, every panel on) at several terminal sizes;
 *  - a step: execute it on the threads backend, read every rank's buffers
 *    back, check them against the symbolic state, and draw the frame, for
 *    every step forward, and every step back (reset and replay).
 * Targets: a frame under 2 ms, a step under 16 ms.
 *
 * usage: tui_bench [ITERATIONS]   (default 200 frames per size) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/app.h"
#include "ui/scene.h"
#include "ui/screen.h"

/* Mean, largest and 99th percentile of n samples (sorted in place). */
typedef struct {
    double mean; /* seconds */
    double p99;  /* seconds */
    double max;  /* seconds */
} Stats;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static Stats stats(double *v, size_t n)
{
    Stats s = {0, 0, 0};
    if (!n)
        return s;
    qsort(v, n, sizeof *v, cmp);
    for (size_t i = 0; i < n; i++)
        s.mean += v[i] / (double)n;
    s.p99 = v[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1];
    s.max = v[n - 1];
    return s;
}

static void report(const char *what, Stats s, double target_ms)
{
    printf("%-44s mean %7.3f ms  p99 %7.3f ms  max %7.3f ms  (target < %g ms: "
           "%s)\n", what, s.mean * 1e3, s.p99 * 1e3, s.max * 1e3, target_ms,
           s.max * 1e3 < target_ms ? "met" : "NOT met");
}

static int open_scene(App *app, CollKind k, const char *algo, int p)
{
    AppOptions o = app_options(k, algo, p, true);
    char why[200];
    if (app_init(app, &o, why, sizeof why)) {
        fprintf(stderr, "tui_bench: %s\n", why);
        return -1;
    }
    for (int v = 0; v < VIEW_COUNT; v++)
        app->view.show[v] = v != VIEW_HELP && v != VIEW_MENU;
    return 0;
}

/* Frames at one terminal size, in the middle of the schedule. */
static int bench_frames(int w, int h, int iters)
{
    App app;
    Grid g;
    if (open_scene(&app, COLL_ALLREDUCE, "ring", 64))
        return -1;
    app.view.term_w = w;
    app.view.term_h = h;
    Request r = {.act = ACT_SEEK, .a = (int)app.scene->sched.nsteps / 2};
    app_apply(&app, &r);
    grid_init(&g, w, h, false);
    double *t = malloc((size_t)iters * sizeof *t);
    for (int i = 0; i < iters; i++) {
        double t0 = app_now();
        screen_draw(&app, &g);
        t[i] = app_now() - t0;
    }
    char what[80];
    snprintf(what, sizeof what, "frame, 64 ranks x 64 cells, %dx%d", w, h);
    report(what, stats(t, (size_t)iters), 2.0);
    free(t);
    grid_fini(&g);
    app_fini(&app);
    return 0;
}

/* Every step forward, then every step back, each followed by a frame. */
static int bench_steps(CollKind k, const char *algo, int p)
{
    App app;
    Grid g;
    if (open_scene(&app, k, algo, p))
        return -1;
    app.view.term_w = 200;
    app.view.term_h = 60;
    grid_init(&g, 200, 60, false);
    size_t n = app.scene->sched.nsteps, wrong = 0;
    double *fwd = malloc((n + 1) * sizeof *fwd), *back = malloc((n + 1) * sizeof *back);
    for (size_t i = 0; i < n; i++) {
        double t0 = app_now();
        Request r = {.act = ACT_NEXT};
        app_apply(&app, &r);
        screen_draw(&app, &g);
        fwd[i] = app_now() - t0;
        wrong += app.scene->check.nwrong;
    }
    for (size_t i = 0; i < n; i++) {
        double t0 = app_now();
        Request r = {.act = ACT_PREV};
        app_apply(&app, &r);
        screen_draw(&app, &g);
        back[i] = app_now() - t0;
        wrong += app.scene->check.nwrong;
    }
    char what[96];
    snprintf(what, sizeof what, "step fwd %s %s p=%d (%zu steps)",
             coll_name(k), app.scene->algo->name, p, n);
    report(what, stats(fwd, n), 16.0);
    snprintf(what, sizeof what, "step back %s %s p=%d (replay)", coll_name(k),
             app.scene->algo->name, p);
    report(what, stats(back, n), 16.0);
    if (wrong || !app.scene->check.real_ok)
        printf("  WARNING: %zu wrong elements seen\n", wrong);
    free(fwd);
    free(back);
    grid_fini(&g);
    app_fini(&app);
    return 0;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 200;
    if (iters < 1)
        iters = 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    static const int sizes[][2] = {{80, 24}, {120, 40}, {200, 60}, {300, 80}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (bench_frames(sizes[i][0], sizes[i][1], iters))
            return 1;
    if (bench_steps(COLL_ALLREDUCE, "ring", 64) ||
        bench_steps(COLL_ALLREDUCE, "butterfly", 64) ||
        bench_steps(COLL_ALLGATHER, "ring", 64) ||
        bench_steps(COLL_ALLTOALL, "pairwise", 64) ||
        bench_steps(COLL_BROADCAST, "binomial", 64))
        return 1;
    return 0;
}
