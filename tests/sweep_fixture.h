/* sweep_fixture.h - a sweep of every allreduce algorithm on full as the
 * worker would post it, with times chosen by hand (never the host's), for
 * the tests of the chart and its picture. a + b x bytes from 8 B to
 * 32 MiB, factor 4: direct 2 us + 1 ns/B (fastest to 2 KiB), tree
 * 5 us + 0.4 ns/B (fastest at 8 and 32 KiB: 8.3 us against direct's
 * 10.2 us at 8 KiB, 23%), ring 20 us + 0.12 ns/B (fastest from 128 KiB:
 * 35.7 us against tree's 57.4 us), the others 30 us + 0.5 ns/B; the model
 * 1.1 times the measured. The crossovers: "tree beats direct from 8 KiB;
 * ring beats tree from 128 KiB", both sure. */
#ifndef COLLVIZ_TESTS_SWEEP_FIXTURE_H
#define COLLVIZ_TESTS_SWEEP_FIXTURE_H

#include <string.h>

#include "ui/app.h"

#define SWEEP3_SIZES 12

/* The measured time of algorithm a at `bytes`. */
static inline double sweep3_time(const AlgoInfo *a, double bytes)
{
    if (!strcmp(a->name, "direct"))
        return 2e-6 + bytes * 1e-9;
    if (!strcmp(a->name, "tree"))
        return 5e-6 + bytes * 4e-10;
    if (!strcmp(a->name, "ring"))
        return 2e-5 + bytes * 1.2e-10;
    return 3e-5 + bytes * 5e-10;
}

/* Fill app's sweep with every allreduce algorithm on full. */
static inline void sweep3_fill(App *app)
{
    app->bg.compare = true;
    app->bg.nsweep = 0;
    for (int i = 0; i < SWEEP3_SIZES; i++)
        for (size_t k = 0; k < algo_count(); k++) {
            const AlgoInfo *a = algo_at(k);
            if (a->coll != COLL_ALLREDUCE || a->fits)
                continue;
            double bytes = 8.0 * (1 << (2 * i)), s = sweep3_time(a, bytes);
            app->bg.sweep[app->bg.nsweep++] = (SweepPoint){
                .algo = a, .bytes = (uint64_t)bytes, .time_s = s,
                .model_s = 1.1 * s, .ok = true, .algbw = bytes / s / 1e9,
                .busbw = bytes / s / 1e9 * 1.75,
                .model_busbw = bytes / s / 1e9 * 1.75 / 1.1};
        }
    app->bg.planned = app->bg.nsweep;
}

#endif
