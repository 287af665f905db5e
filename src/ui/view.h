/* view.h - the interface of a panel: draw the App's state into a Grid
 * rectangle, and turn a mouse click into a Request.
 *
 * One file per view (view_<name>.c) defines one const ViewOps with
 * designated initializers. A view only reads the App; it never keeps state
 * of its own (scroll positions and selections live in the App), so drawing
 * the same App twice gives the same Grid, and golden files can compare it. */
#ifndef COLLVIZ_UI_VIEW_H
#define COLLVIZ_UI_VIEW_H

#include <stdbool.h>

#include "ui/app.h"
#include "ui/grid.h"
#include "ui/i18n.h"
#include "ui/scene.h"

typedef struct ViewOps {
    const char *name;  /* short name, as in APP_VIEWS and scripts */
    const char *title; /* panel title drawn in its frame ("" for none) */
    bool framed;       /* the layout draws a frame around the panel and
                          passes draw() the inside */
    /* Draw the panel into r (inside the frame when framed). Everything
     * drawn is clipped to r. */
    void (*draw)(const App *app, Grid *g, Rect r);
    /* A mouse click at grid position (x, y), inside r (the same rectangle
     * draw() got). Fill *req and return true when the click means
     * something; NULL when the view ignores the mouse. */
    bool (*click)(const App *app, Rect r, int x, int y, Request *req);
} ViewOps;

/* The views, one per file. */
extern const ViewOps view_header;    /* view_header.c: scene and step */
extern const ViewOps view_buffers;   /* view_buffers.c: per-rank cells */
extern const ViewOps view_transfers; /* view_transfers.c: step in words */
extern const ViewOps view_topology;  /* view_topology.c: links of a step */
extern const ViewOps view_timeline;  /* view_timeline.c: ranks x steps */
extern const ViewOps view_counters;  /* view_counters.c: bytes, times */
extern const ViewOps view_chart;     /* view_chart.c: busbw vs size */
extern const ViewOps view_status;    /* view_status.c: message, hints */
extern const ViewOps view_help;      /* view_help.c: key bindings */
extern const ViewOps view_menu;      /* view_menu.c: the open menu */
extern const ViewOps view_prompt;    /* view_prompt.c: text entry */

/* The view of a panel. */
const ViewOps *view_get(ViewId id);

/* ---- helpers shared by views (view_util.c) */

/* The role a cell gets for holding `n` of `p` ranks' inputs (n == 0:
 * ROLE_EMPTY); `final` gives ROLE_FINAL. */
Role view_level_role(int n, int p, bool final);
/* Format a byte count with a binary unit: "64 MiB", "1.5 KiB", "12 B". */
void view_fmt_bytes(char *out, size_t len, double bytes);
/* Format seconds with a unit: "12.3 us", "4.56 ms", "1.23 s". */
void view_fmt_time(char *out, size_t len, double s);
/* Format a value, or "N/A" when !v.valid, with fmt for the value. */
void view_fmt_value(char *out, size_t len, Value v,
                    void (*fmt)(char *, size_t, double));

#endif
