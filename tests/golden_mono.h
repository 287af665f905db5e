/* golden_mono.h - a screen dumped for a golden with its colours and its
 * monochrome look: the grid's text and colour roles (grid_dump), then
 * each cell as NO_COLOR shows it (term_mono_mark), for the tests of
 * screens that must read without colour too. */
#ifndef COLLVIZ_TESTS_GOLDEN_MONO_H
#define COLLVIZ_TESTS_GOLDEN_MONO_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/grid.h"
#include "ui/term.h"

/* The grid's text and roles, then each cell's monochrome look. */
static inline char *golden_dump_mono(const Grid *g)
{
    char *t = grid_dump(g, true);
    size_t n = strlen(t), cap = n + (size_t)(g->w + 1) * (size_t)g->h + 16;
    char *out = realloc(t, cap);
    assert_non_null(out);
    n += (size_t)snprintf(out + n, cap - n, "-- mono\n");
    for (int y = 0; y < g->h; y++) {
        for (int x = 0; x < g->w; x++) {
            const Cell *c = grid_cat(g, x, y);
            out[n++] = term_mono_mark((Role)c->role, c->attr);
        }
        out[n++] = '\n';
    }
    out[n] = '\0';
    return out;
}

#endif
