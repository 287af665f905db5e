/* probe.c - reading probes of the machine's state (see probe.h). */
#include "exec/probe.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double probe_median(double *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Whether the measured values of v[0 .. n) lie within `factor` of each
 * other. */
static int within(const double *v, int n, double factor)
{
    double lo = 0, hi = 0;
    for (int i = 0; i < n; i++) {
        if (!(v[i] > 0))
            continue;
        lo = lo > 0 && lo < v[i] ? lo : v[i];
        hi = hi > v[i] ? hi : v[i];
    }
    return lo <= 0 || hi <= factor * lo;
}

int probe_same_state(const double *v, int n) { return within(v, n, PROBE_MOVED); }

int probe_same_speed(const double *v, int n) { return within(v, n, PROBE_SLOWER); }
