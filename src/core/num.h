/* num.h - the small arithmetic every layer writes again otherwise: the
 * smaller and larger of two ints (and the larger of two doubles), and an
 * int kept within bounds. */
#ifndef COLLVIZ_NUM_H
#define COLLVIZ_NUM_H

static inline int num_min(int a, int b) { return a < b ? a : b; }
static inline int num_max(int a, int b) { return a > b ? a : b; }
static inline double num_dmax(double a, double b) { return a > b ? a : b; }

/* v within lo .. hi: lo when below it, else hi when above it. */
static inline int num_clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

#endif
