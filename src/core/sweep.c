/* sweep.c - sizes of a sweep (see sweep.h). */
#include "core/sweep.h"

bool sweep_next(const Sweep *sw, unsigned long long *size)
{
    unsigned long long s = *size, next;
    if (!sw->factor && !sw->step)
        return false;
    if (sw->factor)
        next = s == 0 ? 1 : (s > sw->max / sw->factor ? sw->max + 1 : s * sw->factor);
    else
        next = s > sw->max - sw->step ? sw->max + 1 : s + sw->step;
    if (next > sw->max || sw->max < s)
        return false;
    *size = next;
    return true;
}

size_t sweep_len(const Sweep *sw)
{
    size_t n = 1;
    for (unsigned long long s = sw->min; sweep_next(sw, &s);)
        n++;
    return n;
}

size_t sweep_counts(const Sweep *sw, const CollCall *c, size_t *out)
{
    size_t n = 0, last = 0;
    unsigned long long size = sw->min;
    do {
        size_t k = coll_count_floor(c, size);
        if (n == 0 || k != last) {
            if (out)
                out[n] = k;
            last = k;
            n++;
        }
    } while (sweep_next(sw, &size));
    return n;
}
