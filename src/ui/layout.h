/* layout.h - where each panel goes: a pure function from the terminal size
 * (and which panels are on) to rectangles. No drawing, no App: unit-tested
 * over many sizes. */
#ifndef COLLVIZ_UI_LAYOUT_H
#define COLLVIZ_UI_LAYOUT_H

#include <stdbool.h>

#include "ui/app.h"
#include "ui/grid.h"

/* The smallest terminal the TUI draws in; smaller shows a message. */
#define LAYOUT_MIN_W 80
#define LAYOUT_MIN_H 24

/* What the layout needs to know. */
typedef struct {
    int w;                 /* terminal columns */
    int h;                 /* terminal rows */
    bool show[VIEW_COUNT]; /* panels switched on (help, menu: overlays) */
    int buffer_rows;       /* rows the picture would like (inside) */
    int transfer_rows;     /* rows the transfer list would like */
    int timeline_rows;     /* rows the timeline would like */
    int menu_items;        /* items of the open menu (when shown) */
    int menu_width;        /* columns its widest item takes */
    int presenter_extra;   /* rows more the picture likes in presenter
                              mode (a second row per rank) */
    bool present;          /* presenter mode: the picture, the step's
                              transfers and a counter line, full width */
    bool chart_full;       /* the chart alone over the whole body (in
                              either mode) */
    bool topo_full;        /* the topology alone over it (not with
                              chart_full) */
    int machine_rows;      /* rows the what-if machine's drawing takes,
                              with its two footer lines (0: none drawn) */
    int machine_cols;      /* and its columns */
    int status_rows;       /* rows the status line's message needs, up to
                              3 (0: 1): a long one is wrapped, not cut */
} LayoutIn;

typedef struct {
    bool too_small;        /* below LAYOUT_MIN_W x LAYOUT_MIN_H */
    Rect r[VIEW_COUNT];    /* each panel's outer rectangle; w == 0: off */
} Layout;

void layout_compute(const LayoutIn *in, Layout *out);

/* Rows under a menu's items for the highlighted item's whole text where
 * some label is wider than the menu (a separator and two lines). */
#define MENU_DETAIL_ROWS 3

/* Columns of the right-hand column (counters, topology, chart) at a
 * terminal width of w. */
int layout_right_width(int w);

#endif
