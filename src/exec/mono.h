/* mono.h - the monotonic clock, in seconds or nanoseconds: what every
 * timer of collviz (the threads backend's waits, its probe, perf's
 * progress, the TUI's frames) reads. Not in the core, which reads no
 * clock. */
#ifndef COLLVIZ_MONO_H
#define COLLVIZ_MONO_H

#include <time.h>

static inline double mono_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline long mono_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

#endif
