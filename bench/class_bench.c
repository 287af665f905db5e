/* class_bench.c - the classroom's targets, measured on this machine:
 *  - the sweep of every algorithm of allreduce at 8 ranks from 8 B to
 *    64 MiB on the threads backend, as `C` runs it in the TUI (the
 *    worker, its sizes and budget): target under 20 s, printed as a
 *    ratio to the target beside the load average, which the figure
 *    depends on;
 *  - how many progress updates the sweep gave (the screen moves).
 * Not a test: figures only (bench/results/).
 *
 * usage: class_bench [RANKS]   (default 8) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ui/app.h"
#include "ui/scene.h"

#define TARGET_S 20.0

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
