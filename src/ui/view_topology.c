/* view_topology.c - the ranks in the shape the algorithm talks in, with the
 * links of the shown step marked: a ring (a racetrack of ranks), a chain (a
 * line from the root), trees (derived from the schedule's transfers), a
 * star (the centre and its spokes), hypercube partners (the pairs of the
 * step) and all-to-all (a sender x receiver matrix).
 *
 * Links: idle ones are thin lines; a copy is a thin line with an arrow head
 * at the receiver, a reduce a double line with a double arrow, both bold,
 * so they differ without colour too. What does not fit is abbreviated (an
 * ellipsis in a ring or chain, folded subtrees "4(+15)", ranges of ranks),
 * transfers the shape has no line for are listed under it, and everything
 * is clipped to the panel.
 *
 * This file picks the shape and draws the footer; the shapes are drawn by
 * topo_serp.c (ring, chain), topo_forest.c (trees, which topo_tree.c
 * derives), topo_star.c, topo_pairs.c and topo_matrix.c, with what they
 * share in topo.c. */
#include <stdio.h>
#include <string.h>

#include "ui/topo.h"
#include "ui/view.h"
#include "core/num.h"


/* Lines under the shape: active links it has no line for, then the
 * step's counts and the legend; fewer in small panels. */
static int foot_rows(const TopoCtx *c)
{
    return c->r.h < 5 ? 0 : c->r.h < 8 ? 1 : 2;
}

/* Whether some active link of the step has not been drawn. */
static bool any_extra(const TopoCtx *c)
{
    int p = num_min(c->lk.p, TOPO_MAXR);
    for (int a = 0; a < p; a++)
        for (int b = 0; b < p; b++)
            if (a != b && c->lk.op[a][b] && !c->lk.used[a][b])
                return true;
    return false;
}

/* The step's links by kind (or the initial state), then the legend. */
static void draw_counts(TopoCtx *c, int y)
{
    Rect r = c->r;
    int x = r.x;
    if (!c->lk.shown) {
        x += grid_printf(c->g, r, x, y, -1, ROLE_DIM, 0, _("%d ranks, initial state  "),
                         c->lk.p);
    } else {
        int nc = c->lk.nlinks[XFER_COPY], nr = c->lk.nlinks[XFER_REDUCE];
        x += grid_text(c->g, r, x, y, -1, ROLE_DIM, 0, _("links:"));
        if (nc)
            x += grid_printf(c->g, r, x, y, -1, ROLE_COPY, 0, _(" %d copy"), nc);
        if (nr)
            x += grid_printf(c->g, r, x, y, -1, ROLE_REDUCE, 0, _("%s %d reduce"),
                             nc ? "," : "", nr);
        if (!nc && !nr)
            x += grid_text(c->g, r, x, y, -1, ROLE_DIM, 0, _(" none"));
        if (c->lk.nlocal)
            x += grid_printf(c->g, r, x, y, -1, ROLE_DIM, 0,  _(", %d local"),
                             c->lk.nlocal);
        x += grid_text(c->g, r, x, y, -1, ROLE_DIM, 0, "  ");
    }
    static const XferOp ops[2] = {XFER_COPY, XFER_REDUCE};
    for (int i = 0; i < 2 && x + 10 <= r.x + r.w; i++) {
        TopoLink s = {(uint8_t)(1 + ops[i]), 0};
        x += grid_text(c->g, r, x, y, -1, topo_role(s), 0,
                       topo_arrow_text(c->g, s));
        x += grid_printf(c->g, r, x, y, -1, ROLE_DIM, 0, " %s ",
                         _(xfer_op_name(ops[i])));
    }
}

/* "also 0->4 2->6": the active links the shape has no line for. */
static void draw_extras(TopoCtx *c, int y)
{
    TopoToken t[TOPO_MAXR * 2];
    int n = topo_pair_tokens(c, t, TOPO_MAXR * 2);
    Rect line = rect_clip((Rect){c->r.x, y, c->r.w, 1}, c->r);
    int x = line.x + grid_text(c->g, line, line.x, y, -1, ROLE_DIM, 0,
                               _("also "));
    topo_flow(c, (Rect){x, y, line.x + line.w - x, 1}, t, n);
}

/* Draw the shape of the algorithm in area; the pairs list when it does
 * not fit. */
static void draw_shape(TopoCtx *c, Rect area)
{
    int used = -1;
    switch (c->sc->algo->shape) {
    case SHAPE_RING:
        used = topo_serp(c, area, true);
        break;
    case SHAPE_CHAIN:
        used = topo_serp(c, area, false);
        break;
    case SHAPE_TREE:
        used = topo_forest(c, area);
        break;
    case SHAPE_STAR:
        used = topo_star(c, area);
        break;
    case SHAPE_FULL:
        used = topo_matrix(c, area);
        break;
    case SHAPE_HYPERCUBE:
    case SHAPE_COUNT:
        break;
    }
    if (used < 0) {
        c->nhits = 0;
        grid_fill(c->g, area, ' ', ROLE_NORMAL, 0);
        topo_pairs(c, area);
    }
}

/* The zoomed machine's lanes and wrap marks, each note whole where it
 * fits after the shades at x. */
static void big_legend(TopoCtx *c, int x, int y)
{
    Rect r = c->r;
    const char *each = _("one lane each way");
    const char *wrap = _("n: wraps to rank n");
    int w = 3 + grid_text_width(each);
    if (x + w > r.x + r.w)
        return;
    grid_putg(c->g, r, x, y, GL_ARROW_R, ROLE_DIM);
    grid_putg(c->g, r, x + 1, y, GL_ARROW_L, ROLE_DIM);
    grid_text(c->g, r, x + 3, y, -1, ROLE_DIM, 0, each);
    x += w + 1;
    if (!c->wraps || x + 1 + grid_text_width(wrap) > r.x + r.w)
        return;
    grid_putg(c->g, r, x, y, GL_WRAP, ROLE_DIM);
    grid_text(c->g, r, x + 1, y, -1, ROLE_DIM, 0, wrap);
}

/* The shades' legend on row y, and a cross for a down link where the
 * machine has one: each shade named where that fits, else the three load
 * shades under one word, so that the cross is explained. Returns the
 * column after it. */
static int load_legend(TopoCtx *c, int y)
{
    static const Glyph sh[4] = {GL_HLINE, GL_SHADE1, GL_SHADE3, GL_BLOCK};
    static const Role role[4] = {ROLE_LINK, ROLE_LINK_ACTIVE,
                                 ROLE_LINK_ACTIVE, ROLE_WARN};
    static const char *const words[4] = {N_("idle"), N_("light"),
                                         N_("heavy"), N_("max")};
    Rect r = c->r;
    bool down = c->sc->machine.mach.ndown > 0;
    int full = 0, x = r.x;
    for (int i = 0; i < 4; i++)
        full += 3 + grid_text_width(_(words[i]));
    if (down)
        full += 2 + grid_text_width(_("down"));
    bool terse = down && full > r.w;
    for (int i = 0; i < 4; i++) {
        grid_putg(c->g, r, x++, y, sh[i], role[i]);
        if (terse && (i == 1 || i == 2))
            continue; /* ░▓█ load */
        const char *w = terse && i == 3 ? _("load") : _(words[i]);
        x += 1 + grid_printf(c->g, r, x + 1, y, -1, ROLE_DIM, 0, "%s ", w);
    }
    if (down && x + 2 + grid_text_width(_("down")) <= r.x + r.w) {
        grid_putg(c->g, r, x, y, GL_CROSSMARK, ROLE_WARN);
        x += 2 + grid_printf(c->g, r, x + 2, y, -1, ROLE_DIM, 0, "%s ",
                             _("down"));
    }
    return x;
}

/* A what-if machine: its drawing, the busiest link, the legend; the
 * algorithm's shape when it does not fit. */
static bool render_machine(TopoCtx *c)
{
    Rect r = c->r;
    int foot = num_min(2, r.h - 1);
    /* without the legend, when that makes it fit */
    while (topo_machine(c, (Rect){r.x, r.y, r.w, r.h - foot}) < 0) {
        grid_fill(c->g, (Rect){r.x, r.y, r.w, r.h - foot}, ' ', ROLE_NORMAL, 0);
        c->nhits = 0;
        if (foot-- == 0)
            return false;
    }
    if (foot >= 1)
        topo_machine_footer(c, r.y + r.h - foot);
    if (foot >= 2) {
        int x = load_legend(c, r.y + r.h - 1);
        if (c->big_drawn)
            big_legend(c, x, r.y + r.h - 1);
    }
    return true;
}

static void topo_render_shape(TopoCtx *c);

static void topo_render(TopoCtx *c)
{
    Rect r = c->r;
    if (r.w < 3 || r.h < 1)
        return;
    if (c->sc->machine.spec[0] && render_machine(c))
        return;
    if (c->sc->machine.spec[0]) { /* the algorithm's shape, and why not the machine */
        TopoCtx shape = *c;
        shape.r.h -= 1;
        topo_render_shape(&shape);
        c->nhits = shape.nhits;
        memcpy(c->hits, shape.hits, sizeof c->hits);
        grid_text(c->g, r, r.x, r.y + r.h - 1, -1, ROLE_WARN, 0,
                  _("machine too big: Z draws it"));
        return;
    }
    topo_render_shape(c);
}

/* The algorithm's shape, its extra links and counts. */
static void topo_render_shape(TopoCtx *c)
{
    Rect r = c->r;
    if (c->lk.p > TOPO_MAXR) {
        grid_printf(c->g, r, r.x, r.y, -1, ROLE_DIM, 0,
                    _("the topology shows up to %d ranks"), TOPO_MAXR);
        return;
    }
    int foot = foot_rows(c);
    draw_shape(c, (Rect){r.x, r.y, r.w, r.h - foot});
    bool extra = any_extra(c);
    if (foot >= 1 && extra)
        draw_extras(c, r.y + r.h - foot);
    if (foot >= 2 || (foot == 1 && !extra))
        draw_counts(c, r.y + r.h - 1);
}

static void ctx_init(TopoCtx *c, const App *app, Grid *g, Rect r)
{
    const Scene *sc = app->scene;
    c->sc = sc;
    c->sel_rank = app->view.sel_rank;
    c->g = g;
    c->r = r;
    c->nhits = 0;
    c->big = app->view.topo_full;
    c->big_drawn = c->wraps = false;
    c->root = coll_is_rooted(sc->call.kind) ? sc->call.root : 0;
    topo_links_init(sc, &c->lk);
}

static void topology_draw(const App *app, Grid *g, Rect r)
{
    TopoCtx c;
    ctx_init(&c, app, g, r);
    topo_render(&c);
}

/* A click on a rank selects it: the panel is drawn again off screen to
 * find what is where. */
static bool topology_click(const App *app, Rect r, int x, int y,
                           Request *req)
{
    Grid g;
    TopoCtx c;
    if (grid_init(&g, r.x + r.w, r.y + r.h, app->view.ascii) != CV_OK)
        return false;
    ctx_init(&c, app, &g, r);
    topo_render(&c);
    grid_fini(&g);
    for (int i = 0; i < c.nhits; i++)
        if (y == c.hits[i].y && x >= c.hits[i].x &&
            x < c.hits[i].x + c.hits[i].w) {
            *req = (Request){.act = ACT_SELECT_RANK, .a = c.hits[i].rank};
            return true;
        }
    return false;
}

const ViewOps view_topology = {
    .name = "topology",
    .title = N_("Topology"),
    .framed = true,
    .draw = topology_draw,
    .click = topology_click,
};
