/* screen.c - layout + views + the open mode's panel = one frame in the
 * grid. */
#include "ui/screen.h"

#include "core/num.h"
#include "ui/topo.h"

#include <stdio.h>

#include "ui/i18n.h"
#include "ui/view.h"

/* Whether panel v belongs to a mode (drawn only while that mode is open,
 * on top of the others). */
static bool mode_panel(ViewId v)
{
    for (int k = 0; k < MODE_COUNT; k++)
        if (app_mode_ops((ModeKind)k)->panel == v)
            return true;
    return false;
}

/* Rows the transfer list would like: its heading, the step's sentence
 * (two rows) and the busiest step's transfers written compactly (about
 * eight columns each, "r12+>r13 ") in the left column's width: the rest
 * goes to the timeline, so that it shows ranks. */
static int transfer_rows(const App *app)
{
    const Scene *sc = app->scene;
    size_t m = 0;
    for (size_t k = 0; k < sc->sched.nsteps; k++)
        if (sc->sched.steps[k].n > m)
            m = sc->sched.steps[k].n;
    int w = app->view.term_w - 34, per = w > 8 ? w / 8 : 1;
    int compact = 3 + (int)((m + (size_t)per - 1) / (size_t)per);
    return (int)(m < 64 ? m : 64) + 1 < compact ? (int)(m < 64 ? m : 64) + 1
                                                : compact;
}

/* Columns of the open menu's widest item. */
static int menu_width(const App *app)
{
    int w = grid_text_width(menu_title(app->mode.menu.kind)) + 4;
    for (int i = 0; i < app->mode.menu.n; i++) {
        int t = grid_text_width(app->mode.menu.label[i]);
        w = t > w ? t : w;
    }
    return w;
}

void screen_layout(const App *app, Layout *out)
{
    const Scene *sc = app->scene;
    LayoutIn in = {
        .w = app->view.term_w,
        .h = app->view.term_h,
        .buffer_rows = sc->call.nranks + 3,
        .transfer_rows = transfer_rows(app),
        .timeline_rows = sc->call.nranks + 2,
        .menu_items = app->mode.menu.n,
        .menu_width = menu_width(app),
        .present = app->view.present,
        .chart_full = app->view.chart_full,
        .topo_full = app->view.topo_full,
        .presenter_extra = sc->call.nranks - 1, /* 2 rows a rank and a
                                                   line of legend, no
                                                   details */
    };
    if (sc->machine.spec[0]) { /* a what-if machine: drawn in the right column,
                          or beside the picture in presenter mode */
        int room = app->view.present ? in.w - 44
                                     : layout_right_width(in.w) - 2;
        topo_machine_size(sc, room, &in.machine_rows, &in.machine_cols);
        in.machine_rows += in.machine_rows ? 2 : 0; /* its footer */
        if (app->view.present)
            in.machine_cols = num_max(in.machine_cols, 34);
    }
    if (app->status.msg[0] && !app->view.show[VIEW_PROMPT]) {
        /* a message wider than the line wraps at blanks: a row for each
           width less a margin for the words moved down, up to 3 */
        int tw = grid_text_width(app->status.msg);
        in.status_rows = tw <= in.w ? 1 : 1 + tw / num_max(in.w - 12, 20);
    }
    for (int v = 0; v < VIEW_COUNT; v++)
        in.show[v] = app->view.show[v] && !mode_panel((ViewId)v);
    if (app_mode_panel(app) < VIEW_COUNT)
        in.show[app_mode_panel(app)] = true;
    layout_compute(&in, out);
}

bool screen_placed(const App *app, ViewId v)
{
    Layout lay;
    if (app->view.term_w <= 0 || app->view.term_h <= 0)
        return true; /* (no terminal: nothing to say) */
    screen_layout(app, &lay);
    return lay.too_small || lay.r[v].w > 0;
}

/* The title of panel v (menus are titled by their kind). */
static const char *title_of(const App *app, ViewId v)
{
    if (v == VIEW_MENU)
        return menu_title(app->mode.menu.kind);
    const char *t = view_get(v)->title;
    return t[0] ? _(t) : t;
}

/* The rectangle a view draws into: inside its frame when framed. */
static Rect inner(const ViewOps *ops, Rect r)
{
    return ops->framed ? rect_inset(r, 1) : r;
}

static void draw_panel(const App *app, Grid *g, ViewId v, Rect r)
{
    const ViewOps *ops = view_get(v);
    if (r.w <= 0 || r.h <= 0)
        return;
    if (mode_panel(v))
        grid_fill(g, r, ' ', ROLE_NORMAL, 0);
    if (ops->framed)
        grid_box(g, r, ROLE_BORDER, title_of(app, v), ROLE_TITLE);
    Rect in = inner(ops, r);
    if (in.w > 0 && in.h > 0)
        ops->draw(app, g, in);
}

static void draw_too_small(const App *app, Grid *g)
{
    char a[96], b[96];
    snprintf(a, sizeof a, _("The terminal is %dx%d; collviz needs at least "
                            "%dx%d."), app->view.term_w, app->view.term_h, LAYOUT_MIN_W,
             LAYOUT_MIN_H);
    snprintf(b, sizeof b, "%s", _("Make it larger, or press q to quit."));
    Rect r = grid_rect(g);
    int y = r.h / 2 - 1;
    for (int i = 0; i < 2; i++) {
        const char *t = i ? b : a;
        int w = grid_text_width(t), x = (r.w - w) / 2;
        grid_text(g, r, x < 0 ? 0 : x, y + i, r.w, i ? ROLE_DIM : ROLE_WARN,
                  0, t);
    }
}

void screen_draw(const App *app, Grid *g)
{
    Layout lay;
    g->ascii = app->view.ascii;
    grid_clear(g);
    screen_layout(app, &lay);
    if (lay.too_small) {
        draw_too_small(app, g);
        return;
    }
    for (int v = 0; v < VIEW_COUNT; v++)
        if (!mode_panel((ViewId)v))
            draw_panel(app, g, (ViewId)v, lay.r[v]);
    ViewId m = app_mode_panel(app);
    if (m < VIEW_COUNT)
        draw_panel(app, g, m, lay.r[m]);
}

/* A click inside panel v's rectangle. */
static bool click_panel(const App *app, ViewId v, Rect r, int x, int y,
                        Request *req)
{
    const ViewOps *ops = view_get(v);
    Rect in = inner(ops, r);
    if (!ops->click || !rect_has(in, x, y))
        return false;
    return ops->click(app, in, x, y, req);
}

bool screen_click(const App *app, int x, int y, Request *req)
{
    Layout lay;
    screen_layout(app, &lay);
    if (lay.too_small)
        return false;
    /* A mode's panel takes every click; outside it a click closes it. */
    ViewId m = app_mode_panel(app);
    if (m < VIEW_COUNT) {
        if (rect_has(lay.r[m], x, y))
            return click_panel(app, m, lay.r[m], x, y, req);
        *req = (Request){.act = ACT_CANCEL};
        return true;
    }
    for (int v = 0; v < VIEW_COUNT; v++)
        if (rect_has(lay.r[v], x, y))
            return click_panel(app, (ViewId)v, lay.r[v], x, y, req);
    return false;
}
