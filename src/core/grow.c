/* grow.c - arrays that grow by doubling (grow.h). */
#include "core/grow.h"

#include <stdint.h>
#include <stdlib.h>

void *grow_array(void *p, size_t *cap, size_t need, size_t size,
                 size_t first)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap : first ? first : 1;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return NULL;
        n *= 2;
    }
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *q = realloc(p, n * size);
    if (q)
        *cap = n;
    return q;
}
