/* golden_mono.h - a screen dumped for a golden with its colours and its
 * monochrome look: the grid's text and colour roles (grid_dump), then
 * each cell as NO_COLOR shows it (term_mono_mark), for the tests of
 * screens that must read without colour too; and the screen an App
 * shows after a script's keys (golden_frame). Include cmocka first. */
#ifndef COLLVIZ_TESTS_GOLDEN_MONO_H
#define COLLVIZ_TESTS_GOLDEN_MONO_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/app.h"
#include "ui/grid.h"
#include "ui/script.h"
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

/* The screen at w x h after script's keys: its text and roles, and with
 * mono its monochrome look too. */
static inline char *golden_frame(App *app, int w, int h, const char *script,
                                 bool mono)
{
    char why[200];
    Script s;
    app->view.term_w = w;
    app->view.term_h = h;
    assert_int_equal(script_parse(script, &s, why, sizeof why), CV_OK);
    Grid g;
    grid_init(&g, w, h, false);
    ScriptRun run = {0};
    script_run(app, &s, &run, &g);
    char *text = mono ? golden_dump_mono(&g) : grid_dump(&g, true);
    grid_fini(&g);
    script_fini(&s);
    return text;
}

#endif
