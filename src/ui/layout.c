/* layout.c - terminal size to panel rectangles.
 *
 *   +------------------------- header (2 rows) --------------------------+
 *   | buffers (the picture)               | counters                     |
 *   |                                     +------------------------------+
 *   +-------------------------------------+ topology                     |
 *   | transfers (the step in words)       +------------------------------+
 *   +-------------------------------------+ chart                        |
 *   | timeline                            |                              |
 *   +--------------- status (1 row; a long message 2 or 3) ---------------+
 * Help and menus are overlays on top of the body; the prompt of text
 * entry takes the status line. */
#include "ui/layout.h"
#include "core/num.h"

#define HEADER_ROWS 2
#define STATUS_ROWS 1
#define COUNTER_ROWS 20 /* frame + the counters' lines */
#define MIN_PANEL 4     /* a framed panel needs a frame and two lines */
#define MACHINE_MIN_COUNTERS 10 /* counter rows kept beside a machine */


/* Width of the right column for a terminal w columns wide. */
static int right_width(int w)
{
    if (w >= 120)
        return num_min(w * 2 / 5, 72);
    return 32;
}

int layout_right_width(int w) { return right_width(w); }

/* Stack panels ids[0..n) top to bottom in col with heights h[]; a panel
 * with h == 0 is off. The last panel on takes what is left. */
static void stack(Rect col, const int *ids, int *h, int n, Layout *out)
{
    int last = -1;
    for (int i = 0; i < n; i++)
        if (h[i] > 0)
            last = i;
    int y = col.y;
    for (int i = 0; i < n; i++) {
        if (h[i] <= 0)
            continue;
        int hh = i == last ? col.y + col.h - y : h[i];
        out->r[ids[i]] = (Rect){col.x, y, col.w, hh};
        y += hh;
    }
}

/* Left column: the picture gets the rows it wants first, then the
 * transfer list, then the timeline; the timeline appears only when the
 * picture has all its rows, the transfers when they get MIN_PANEL rows
 * and the picture twice that; rows of a dropped panel go to the one above. */
static void left_column(const LayoutIn *in, Rect col, Layout *out)
{
    int ids[3] = {VIEW_BUFFERS, VIEW_TRANSFERS, VIEW_TIMELINE};
    int want[3] = {in->buffer_rows + 2, in->transfer_rows + 2,
                   in->timeline_rows + 2};
    bool on1 = in->show[VIEW_TRANSFERS], on2 = in->show[VIEW_TIMELINE];
    int keep1 = on1 ? MIN_PANEL : 0, keep2 = on2 ? MIN_PANEL + 1 : 0;
    if (col.h - num_max(want[0], 2 * MIN_PANEL) - keep1 < keep2)
        keep2 = 0, on2 = false; /* the timeline only beside a whole picture */
    if (col.h - keep1 < 2 * MIN_PANEL)
        keep1 = 0, on1 = false;
    int h[3];
    h[0] = num_min(num_max(want[0], MIN_PANEL), col.h - keep1 - keep2);
    int rest = col.h - h[0];
    h[1] = on1 ? num_min(num_max(want[1], MIN_PANEL), rest - keep2) : 0;
    h[2] = on2 ? rest - h[1] : 0;
    stack(col, ids, h, 3, out);
}

/* Right column: counters, then topology and chart sharing the rest. */
static void right_column(const LayoutIn *in, Rect col, Layout *out)
{
    int ids[3] = {VIEW_COUNTERS, VIEW_TOPOLOGY, VIEW_CHART};
    bool topo = in->show[VIEW_TOPOLOGY], chart = in->show[VIEW_CHART];
    /* the counters leave the panels below room to be seen (they drop
     * their least needed lines) */
    int keep = topo && chart ? 2 * MIN_PANEL : topo || chart ? 7 : 0;
    int h[3] = {num_min(COUNTER_ROWS, num_max(col.h - keep, MIN_PANEL)), 0,
                0};
    int rest = col.h - h[0];
    if (topo && in->machine_rows > 0 && in->machine_cols <= col.w - 2) {
        /* the machine, the counters short */
        h[1] = num_clamp(in->machine_rows + 2, MIN_PANEL,
                         col.h - MACHINE_MIN_COUNTERS);
        h[2] = chart && col.h - h[1] - COUNTER_ROWS >= MIN_PANEL
                   ? col.h - h[1] - COUNTER_ROWS : 0;
        h[0] = col.h - h[1] - h[2];
    } else if (topo && chart && rest >= 2 * MIN_PANEL) {
        h[1] = rest / 2;
        h[2] = rest - h[1];
    } else if (rest >= MIN_PANEL) {
        h[topo ? 1 : 2] = topo || chart ? rest : 0;
    }
    if (!h[1] && !h[2])
        h[0] = col.h;
    stack(col, ids, h, 3, out);
}

/* Menu: a box at the top left of the body, as tall as its items. */
static Rect menu_rect(const LayoutIn *in, Rect body)
{
    int w = num_min(num_max(in->menu_width + 6, 24), body.w - 4);
    /* where the widest label does not fit (view_menu.c: wider than w - 5),
       two rows more for the highlighted item's whole text, wrapped */
    int more = in->menu_width > w - 5 ? MENU_DETAIL_ROWS : 0;
    int h = num_min(in->menu_items + 2 + more, body.h - 2);
    return (Rect){body.x + 2, body.y + 1, w, h};
}

/* Presenter mode: the picture over the whole width, under it the step's
 * sentence and transfers, then one line of counters. */
static void present(const LayoutIn *in, Rect body, Layout *out)
{
    Rect rest, bottom;
    int pic = num_min(in->buffer_rows + in->presenter_extra + 2,
                      body.h - 3 - 5);
    int xfer = num_min(body.h - 3 - pic, 8);
    rect_cut_top(body, body.h - 3 - xfer, &out->r[VIEW_BUFFERS], &rest);
    rect_cut_top(rest, xfer, &out->r[VIEW_TRANSFERS], &bottom);
    out->r[VIEW_COUNTERS] = bottom;
    /* a what-if machine beside the picture, when both fit */
    Rect pic_r = out->r[VIEW_BUFFERS];
    int mw = in->machine_cols + 2;
    if (in->machine_rows > 0 && pic_r.w - mw >= 40 &&
        in->machine_rows + 2 <= pic_r.h) {
        Rect left, right;
        rect_cut_left(pic_r, pic_r.w - mw, &left, &right);
        out->r[VIEW_BUFFERS] = left;
        out->r[VIEW_TOPOLOGY] = right;
    }
}

void layout_compute(const LayoutIn *in, Layout *out)
{
    *out = (Layout){0};
    if (in->w < LAYOUT_MIN_W || in->h < LAYOUT_MIN_H) {
        out->too_small = true;
        return;
    }
    Rect all = {0, 0, in->w, in->h}, body, status, left, right;
    rect_cut_top(all, HEADER_ROWS, &out->r[VIEW_HEADER], &body);
    int srows = num_min(num_max(in->status_rows, STATUS_ROWS), 3);
    rect_cut_top(body, body.h - srows, &body, &status);
    out->r[VIEW_STATUS] = status;
    if (in->chart_full) {
        out->r[VIEW_CHART] = body;
    } else if (in->topo_full) {
        out->r[VIEW_TOPOLOGY] = body;
    } else if (in->present) {
        present(in, body, out);
    } else {
        rect_cut_left(body, in->w - right_width(in->w), &left, &right);
        left_column(in, left, out);
        right_column(in, right, out);
    }
    if (in->show[VIEW_HELP])
        out->r[VIEW_HELP] = rect_inset(body, 1);
    if (in->show[VIEW_MENU] && in->menu_items > 0)
        out->r[VIEW_MENU] = menu_rect(in, body);
    if (in->show[VIEW_PROMPT])
        out->r[VIEW_PROMPT] = status;
}
