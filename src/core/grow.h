/* grow.h - arrays that grow by doubling, so that n appends cost O(n). */
#ifndef COLLVIZ_CORE_GROW_H
#define COLLVIZ_CORE_GROW_H

#include <stddef.h>

/* Array p, room for *cap items of `size` bytes, made to hold at least
 * `need`: p itself when it does; else a larger block, its room doubled
 * from `first` (or from *cap) until need fits, and *cap set to it; NULL
 * without memory, when p is still valid and *cap unchanged. The caller
 * stores the result: `T *v = grow_array(a->v, &a->cap, a->n + 1,
 * sizeof *v, 16); if (!v) ...; a->v = v;`. */
void *grow_array(void *p, size_t *cap, size_t need, size_t size,
                 size_t first);

#endif
