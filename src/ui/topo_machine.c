/* topo_machine.c - the machine a what-if prices on (Scene.mach), each link
 * shaded by its load in the shown step. Zoomed (Z), a 2-D torus or mesh,
 * nodes and a switch fill the panel: nodes spread over it, each direction
 * of a link a lane of its own with its own shade and arrow head, a
 * torus's wrap-around links out to the edges, marked "↺3" (the rank at
 * the other end) at both ends; nodes as boxes of GPUs facing the network.
 * Otherwise, small: tori and meshes as a grid of
 * ranks (dimension x across, y down, z in slices side by side, the z
 * links of a row between two slices as one cell shaded by the busiest of
 * them; a torus's wrap-around links as stubs at the ends), nodes as rows of GPUs over
 * their switch and NICs, a switch or bus as a row of ranks over it; a
 * switch that reduces (NVLS) with two cells a port, an arrow down for the
 * loads into it and one up for the sums or multicast out of it, and its
 * bar saying what it does in the step.
 *
 * A link's shade is its bytes' time (bytes times its beta) over the
 * busiest link's: thin line idle, light, medium, dark shade, and a full
 * block for the busiest, so the load reads without colour too; both
 * directions of a pair share one cell (the larger load); a link that is
 * down (machine_fix_link) a cross mark, whatever the other carries. */
#include <stdio.h>
#include <string.h>

#include "core/num.h"
#include "ui/topo.h"
#include "ui/view.h"

/* A link cell: the glyph and role of a load level 0..4, or TOPO_DOWN. */
static void put_level(TopoCtx *c, int x, int y, int level, bool vertical)
{
    static const Glyph shade[TOPO_DOWN + 1] = {
        GL_HLINE, GL_SHADE1, GL_SHADE2, GL_SHADE3, GL_BLOCK, GL_CROSSMARK};
    Glyph gl = level == 0 && vertical ? GL_VLINE : shade[level];
    Role role = level == 0 ? ROLE_LINK : level >= 4 ? ROLE_WARN
                                                    : ROLE_LINK_ACTIVE;
    grid_putg(c->g, c->r, x, y, gl, role);
}

/* Link l's busy time in the step: its messages' alpha and its bytes'
 * beta (a bus's ports carry only messages, its medium only bytes). */
static double busy(const Scene *sc, int l)
{
    if (l < 0 || !sc->link_bytes)
        return 0;
    const LinkClass *k = &sc->machine.mach.cls[machine_link_class(&sc->machine.mach, l)];
    return sc->link_bytes[l] * k->beta + sc->link_msgs[l] * k->alpha;
}

/* The busiest link's busy time, once per drawing. */
static double busiest_busy(const Scene *sc)
{
    double top = 0;
    for (int l = 0; l < sc->machine.mach.nlinks && sc->link_bytes; l++)
        top = busy(sc, l) > top ? busy(sc, l) : top;
    return top;
}

/* The level of the larger load of links a and b (-1: none); TOPO_DOWN
 * where one of them is down. */
static int level2(const TopoCtx *c, int a, int b)
{
    const Scene *sc = c->sc;
    const Machine *m = &sc->machine.mach;
    if ((a >= 0 && machine_link_down(m, a)) ||
        (b >= 0 && machine_link_down(m, b)))
        return TOPO_DOWN;
    double top = c->link_top, ba = busy(sc, a), bb = busy(sc, b);
    double v = ba > bb ? ba : bb;
    if (!(v > 0) || !(top > 0))
        return 0;
    if (v >= top)
        return 4;
    return v <= top / 3 ? 1 : v <= 2 * top / 3 ? 2 : 3;
}

/* The one link from a to b (neighbours; down or not), or -1. */
static int hop(const Machine *m, int a, int b)
{
    int l[4];
    return machine_links_between(m, a, b, l, 4) >= 1 ? l[0] : -1;
}

/* Rank r's port links into and out of dimension i's switch. */
static void ports(const Machine *m, int r, int i, int *up, int *down)
{
    int l[4], d = m->dim[i].size, ci = machine_coord(m, r, i);
    int q = machine_place(m, r);
    int other = machine_rank_at(m, q + ((ci + 1) % d - ci) * m->stride[i]);
    *up = *down = -1;
    if (other == r)
        return;
    if (machine_route(m, r, other, l, 4) >= 1)
        *up = l[0];
    if (machine_route(m, other, r, l, 4) >= 2)
        *down = l[1];
}

/* ------------------------------------------------------------- grids */

static bool is_grid(const Machine *m)
{
    if (machine_has_medium(m) || m->ndims > 3)
        return false;
    for (int i = 0; i < m->ndims; i++)
        if (m->dim[i].kind != DIM_RING && m->dim[i].kind != DIM_MESH)
            return false;
    return true;
}

static int label_w(const Machine *m)
{
    return m->nranks > 100 ? 3 : m->nranks > 10 ? 2 : 1;
}

/* Ranks a row of a line (one dimension) holds in `room` columns. */
static int line_per_row(const Machine *m, int room)
{
    int per = (room - 1) / (label_w(m) + 2);
    return num_clamp(per, 1, m->dim[0].size);
}

/* Rows and columns a grid takes in `room` columns (a line folds into
 * rows). */
static void grid_size(const Machine *m, int room, int *rows, int *cols)
{
    int x = m->dim[0].size, y = m->ndims > 1 ? m->dim[1].size : 1;
    int z = m->ndims > 2 ? m->dim[2].size : 1;
    int pitch = label_w(m) + 2;
    if (m->ndims == 1) {
        int per = line_per_row(m, room);
        *cols = per * pitch;
        *rows = (x + per - 1) / per;
        return;
    }
    *cols = z * (x * pitch + 1) + (z - 1) * 2;
    *rows = y * 2 + (m->ndims > 2 ? 1 : 0);
}

/* A line (ring or mesh of one dimension) folded into rows of `per`: each
 * rank followed by its link to the next (the last: the wrap-around). */
static int draw_line(TopoCtx *c, Rect area)
{
    const Scene *sc = c->sc;
    const Machine *m = &sc->machine.mach;
    int p = m->nranks, lw = label_w(m), per = line_per_row(m, area.w);
    bool wrap = m->dim[0].kind == DIM_RING && p > 2;
    for (int q = 0; q < p; q++) {
        int x = area.x + q % per * (lw + 2), y = area.y + q / per;
        int r = machine_rank_at(m, q), next = (q + 1) % p;
        char t[16];
        snprintf(t, sizeof t, "%*d", lw, r);
        topo_draw_node(c, x, y, r, t);
        if (q + 1 == p && !wrap)
            continue;
        int rn = machine_rank_at(m, next);
        int lv = level2(c, hop(m, r, rn), hop(m, rn, r));
        put_level(c, x + lw, y, lv, false);
        if (q % per + 1 < per && q + 1 < p)
            put_level(c, x + lw + 1, y, lv, false);
    }
    return (p + per - 1) / per;
}

/* Slice z of a grid at (x0, y0). */
static void draw_slice(TopoCtx *c, int x0, int y0, int z)
{
    const Scene *sc = c->sc;
    const Machine *m = &sc->machine.mach;
    int X = m->dim[0].size, Y = m->ndims > 1 ? m->dim[1].size : 1;
    int lw = label_w(m), pitch = lw + 2;
    bool wrapx = m->dim[0].kind == DIM_RING && X > 2;
    bool wrapy = m->ndims > 1 && m->dim[1].kind == DIM_RING && Y > 2;
    for (int y = 0; y < Y; y++)
        for (int x = 0; x < X; x++) {
            int q = x + X * (y + Y * z), cx = x0 + x * pitch, cy = y0 + 2 * y;
            int r = machine_rank_at(m, q);
            char t[16];
            snprintf(t, sizeof t, "%*d", lw, r);
            topo_draw_node(c, cx, cy, r, t);
            int right = machine_rank_at(m, x + 1 < X ? q + 1 : wrapx ? q - x : -1);
            if (right >= 0) {
                int lv = level2(c, hop(m, r, right), hop(m, right, r));
                put_level(c, cx + lw, cy, lv, false);
                if (x + 1 < X)
                    put_level(c, cx + lw + 1, cy, lv, false);
            }
            int below = machine_rank_at(m, y + 1 < Y ? q + X : wrapy ? q - X * y
                                                                 : -1);
            if (m->ndims > 1 && below >= 0)
                put_level(c, cx + lw - 1, cy + 1,
                          level2(c, hop(m, r, below), hop(m, below, r)), true);
        }
}

/* The z links from slice z to the next (the first, past the last: the
 * wrap-around): a cell per row y right of slice z, shaded by the busiest
 * of the row's X links. */
static void draw_zlinks(TopoCtx *c, int x0, int y0, int z)
{
    const Machine *m = &c->sc->machine.mach;
    int X = m->dim[0].size, Y = m->dim[1].size, Z = m->dim[2].size;
    int pitch = label_w(m) + 2, last = z + 1 == Z;
    if (Z < 2 || (last && !(m->dim[2].kind == DIM_RING && Z > 2)))
        return;
    for (int y = 0; y < Y; y++) {
        int lv = 0;
        for (int x = 0; x < X; x++) {
            int q = x + X * (y + Y * z), qn = last ? x + X * y : q + X * Y;
            int r = machine_rank_at(m, q), rn = machine_rank_at(m, qn);
            int l = level2(c, hop(m, r, rn), hop(m, rn, r));
            lv = l > lv ? l : lv;
        }
        put_level(c, x0 + X * pitch, y0 + 2 * y, lv, false);
        if (!last)
            put_level(c, x0 + X * pitch + 1, y0 + 2 * y, lv, false);
    }
}

static int draw_grid(TopoCtx *c, Rect area)
{
    const Machine *m = &c->sc->machine.mach;
    int rows, cols;
    grid_size(m, area.w, &rows, &cols);
    if (rows > area.h || cols > area.w)
        return -1;
    if (m->ndims == 1)
        return draw_line(c, area);
    int Z = m->ndims > 2 ? m->dim[2].size : 1;
    int X = m->dim[0].size, pitch = label_w(m) + 2;
    for (int z = 0; z < Z; z++) {
        int x0 = area.x + z * (X * pitch + 3);
        if (Z > 1)
            grid_printf(c->g, c->r, x0, area.y + rows - 1, -1, ROLE_DIM, 0,
                        "z=%d", z);
        draw_slice(c, x0, area.y, z);
        if (m->ndims > 2)
            draw_zlinks(c, x0, area.y, z);
    }
    return rows;
}

/* ------------------------------------------------------ nodes, switch */

/* What a switch's or bus's bar is called. */
static const char *switch_name(const Machine *m)
{
    return machine_has_medium(m) ? _("medium")
           : m->dim[0].reduce ? _("switch, multicasts") : _("switch");
}

/* A switch that reduces and multicasts (NVLS's): its ports are drawn a
 * lane each way, its bar says what it does in the step. */
static bool is_reducing(const Machine *m)
{
    return !machine_has_medium(m) && m->ndims == 1 &&
           m->dim[0].kind == DIM_SWITCH && m->dim[0].reduce;
}

/* What a reducing switch does in the shown step, from the transfers of
 * the schedule whose loads are shown: the loads it sums (XF_SWITCH copies
 * between ranks) and the owners their sums go down to, its sums (XF_SWITCH
 * reduces, the ranks' stand-in for its work), and the multicast (the
 * other copies between ranks: each source's range enters once, leaves
 * to every destination). */
typedef struct {
    int loads;     /* copies summed into the switch */
    int owners;    /* ranks a sum goes down to */
    int sums;      /* the switch's reduces */
    int senders;   /* ranks whose sums it multicasts */
    int receivers; /* ranks the multicast reaches */
} SwitchWork;

static int bits(uint64_t v)
{
    int n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

/* Whether copy t sends the range of the last copy from its source, last,
 * to another rank: a multicast (the two then count). */
static bool same_range(const Transfer *t, const Transfer *last)
{
    return last && last->src_buf == t->src_buf &&
           last->src_off == t->src_off && last->count == t->count &&
           last->dst != t->dst;
}

static void switch_work(const Scene *sc, SwitchWork *w)
{
    const Schedule *s = sc->link_picture ? &sc->sched : &sc->big_sched;
    const Transfer *last[64] = {NULL}; /* each source's last copy out */
    uint64_t own = 0, from = 0, to = 0;
    size_t k;
    *w = (SwitchWork){0};
    if (!scene_shown(sc, &k) || k >= s->nsteps)
        return;
    const Step *st = &s->steps[k];
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &s->xfers[i];
        uint64_t d = (uint64_t)1 << (t->dst & 63);
        if ((t->flags & XF_SWITCH) && t->src != t->dst)
            w->loads++, own |= d;
        else if (t->flags & XF_SWITCH)
            w->sums += t->op == XFER_REDUCE;
        else if (t->src != t->dst && t->op == XFER_COPY) {
            const Transfer **l = &last[t->src & 63];
            if (same_range(t, *l))
                from |= (uint64_t)1 << (t->src & 63),
                to |= d | (uint64_t)1 << ((*l)->dst & 63);
            *l = t;
        }
    }
    w->owners = bits(own);
    w->senders = bits(from);
    w->receivers = bits(to);
}

/* The bar's words for a reducing switch in the shown step, and in `terse`
 * (where not NULL) a shorter form for a narrow panel. */
static void switch_words(const Scene *sc, char *out, size_t len, char *terse,
                         size_t tlen)
{
    SwitchWork w;
    char t[48] = "";
    switch_work(sc, &w);
    if (w.loads && w.senders) {
        snprintf(out, len, _("%d loads in, %d sums out, multicast"),
                 w.loads, w.owners);
        snprintf(t, sizeof t, _("%d in, %d out, multicast"), w.loads,
                 w.owners);
    } else if (w.loads) {
        snprintf(out, len, _("%d loads in, %d sums out"),
                 w.loads, w.owners);
        snprintf(t, sizeof t, _("%d in, %d out"), w.loads, w.owners);
    } else if (w.senders) {
        snprintf(out, len, _("%d sums in, multicast to %d ranks"),
                 w.senders, w.receivers);
        snprintf(t, sizeof t, "%s", _("multicast"));
    } else if (w.sums)
        snprintf(out, len, "%s", _("the switch sums the loads"));
    else
        snprintf(out, len, "%s", switch_name(&sc->machine.mach));
    if (terse)
        snprintf(terse, tlen, "%s", t[0] ? t : out);
}

/* The label after a bar at (x, y): whole where it fits, else its terse
 * form (where given), cut with an ellipsis at the panel's edge; a
 * reducing switch's work in the shown step stands out. */
static void bar_label(TopoCtx *c, int x, int y, const char *name,
                      const char *terse)
{
    size_t k;
    bool work = is_reducing(&c->sc->machine.mach) && scene_shown(c->sc, &k);
    int room = c->r.x + c->r.w - x;
    if (terse && grid_text_width(name) > room)
        name = terse;
    if (room > 0)
        grid_text_cut(c->g, c->r, x, y, room, work ? ROLE_VALUE : ROLE_DIM, 0,
                      name);
}

/* A reducing switch's port at (x, y): into the switch (the rank's link
 * up, the loads) an arrow down, out of it (its link down: a sum, the
 * multicast) an arrow up beside it, each in its load's role; an idle way
 * a thin line, or nothing. */
static void put_ports(TopoCtx *c, int x, int y, int up, int down)
{
    int lu = level2(c, up, -1), ld = level2(c, down, -1);
    Role ru = lu == 4 ? ROLE_WARN : ROLE_LINK_ACTIVE;
    Role rd = ld == 4 ? ROLE_WARN : ROLE_LINK_ACTIVE;
    if (lu)
        grid_putg(c->g, c->r, x, y, GL_ARROW_D, ru);
    else
        grid_putg(c->g, c->r, x, y, GL_VLINE, ROLE_LINK);
    if (ld)
        grid_putg(c->g, c->r, x + 1, y, GL_ARROW_U, rd);
}

/* The ranks at places first .. first + n in a row over their port glyphs
 * of dimension `dim`, then the switch's bar labelled `name`: for a
 * switch, bus and each node. */
static int draw_row(TopoCtx *c, int x0, int y0, int first, int n, int dim,
                    const char *name, const char *terse)
{
    const Scene *sc = c->sc;
    const Machine *m = &sc->machine.mach;
    int lw = label_w(m), pitch = lw + 1, top = 0;
    for (int i = 0; i < n; i++) {
        int r = machine_rank_at(m, first + i), up, down;
        char t[16];
        snprintf(t, sizeof t, "%*d", lw, r);
        topo_draw_node(c, x0 + i * pitch, y0, r, t);
        if (machine_has_medium(m))
            up = 2 * r, down = 2 * r + 1;
        else
            ports(m, r, dim, &up, &down);
        int lv = level2(c, up, down);
        top = num_max(top, lv);
        if (is_reducing(m))
            put_ports(c, x0 + i * pitch + lw - 1, y0 + 1, up, down);
        else
            put_level(c, x0 + i * pitch + lw - 1, y0 + 1, lv, true);
    }
    int w = n * pitch - !is_reducing(m);
    int lv = machine_has_medium(m) ? level2(c, 2 * m->nranks, -1) : top;
    for (int x = 0; x < w; x++)
        put_level(c, x0 + x, y0 + 2, lv, false);
    bar_label(c, x0 + w + 1, y0 + 2, name, terse);
    return 3;
}

/* Nodes: each node's GPUs over their NVLink ports and switch, then their
 * NICs (one per GPU, or one per node) into the network. */
static int draw_nodes(TopoCtx *c, Rect area)
{
    const Machine *m = &c->sc->machine.mach;
    int L = m->dim[0].size, G = m->dim[1].size, lw = label_w(m);
    int w = 4 + L * (lw + 1) + 3, h = 4 * G + 1;
    if (h > area.h || w > area.w)
        return -1;
    int y = area.y;
    for (int g = 0; g < G; g++, y += 4) {
        char name[16];
        grid_printf(c->g, c->r, area.x, y, -1, ROLE_DIM, 0, "n%d", g);
        snprintf(name, sizeof name, "%s", m->cls[0].name);
        draw_row(c, area.x + 4, y, g * L, L, 0, name, NULL);
        for (int i = 0; i < L; i++) {
            int r = machine_rank_at(m, g * L + i), up, down;
            if (m->dim[1].shared && i > 0)
                break;
            ports(m, r, 1, &up, &down);
            put_level(c, area.x + 4 + i * (lw + 1) + lw - 1, y + 3,
                      level2(c, up, down), true);
        }
    }
    grid_printf(c->g, c->r, area.x + 4, y, -1, ROLE_DIM, 0, "%s %s",
                m->cls[1].name, m->dim[1].shared ? _("(a NIC per node)")
                                                 : _("(a NIC per GPU)"));
    return h;
}

/* The bar's label: a reducing switch's work in the shown step (and its
 * terse form, where not NULL), else what the bar is. */
static void bar_name(const Scene *sc, char *out, size_t len, char *terse,
                     size_t tlen)
{
    size_t k;
    if (is_reducing(&sc->machine.mach) && scene_shown(sc, &k))
        switch_words(sc, out, len, terse, tlen);
    else {
        snprintf(out, len, "%s", switch_name(&sc->machine.mach));
        if (terse)
            snprintf(terse, tlen, "%s", out);
    }
}

static int draw_switch(TopoCtx *c, Rect area)
{
    const Machine *m = &c->sc->machine.mach;
    int lw = label_w(m), per = num_max(1, (area.w - 8) / (lw + 1));
    int p = m->nranks, rows = (p + per - 1) / per;
    if (rows * 3 > area.h)
        return -1;
    char name[96], terse[48];
    bar_name(c->sc, name, sizeof name, terse, sizeof terse);
    for (int i = 0; i < rows; i++)
        draw_row(c, area.x, area.y + 3 * i, i * per, num_min(per, p - i * per),
                 0, name, terse);
    return rows * 3;
}

/* ---------------------------------------------------------------- entry */

static bool is_nodes(const Machine *m)
{
    return m->ndims == 2 && m->dim[0].kind == DIM_SWITCH &&
           m->dim[1].kind == DIM_SWITCH;
}

static bool is_switch(const Machine *m)
{
    return machine_has_medium(m) ||
           (m->ndims == 1 && m->dim[0].kind == DIM_SWITCH);
}

/* ------------------------------------------------- zoomed (Z): scaled */

/* A lane of link l (straight, from (x0, y0) to (x1, y1)): its cells
 * shaded by l's own load, an arrow head at the far end, so each direction
 * of a pair has a lane, a shade and a head of its own. */
static void lane(TopoCtx *c, TopoPt a, TopoPt b, int l)
{
    int lv = level2(c, l, -1);
    int dx = (b.x > a.x) - (b.x < a.x), dy = (b.y > a.y) - (b.y < a.y);
    Glyph head = dx > 0 ? GL_ARROW_R : dx < 0 ? GL_ARROW_L
               : dy > 0 ? GL_ARROW_D : GL_ARROW_U;
    Role role = lv == 0 ? ROLE_LINK : lv >= 4 ? ROLE_WARN : ROLE_LINK_ACTIVE;
    for (TopoPt p = a; p.x != b.x || p.y != b.y; p.x += dx, p.y += dy)
        put_level(c, p.x, p.y, lv, dx == 0);
    grid_putg(c->g, c->r, b.x, b.y, head, role);
}

/* "↺3": a wrap-around link's end, naming the rank at its other end. */
static void wrap_mark(TopoCtx *c, int x, int y, int rank)
{
    grid_putg(c->g, c->r, x, y, GL_WRAP, ROLE_DIM);
    grid_printf(c->g, c->r, x + 1, y, -1, ROLE_DIM, 0, "%d", rank);
}

/* Where a zoomed grid puts its nodes: first node, pitch, margins. */
typedef struct {
    int x0, y0;   /* the first node's label */
    int sx, sy;   /* pitch across and down */
    int lw;       /* label width */
    bool wx, wy;  /* wrap-around links along x, along y */
} BigGrid;

/* Dimension i's size, 1 beyond the machine's (a ring is a row). */
static int dim_size(const Machine *m, int i)
{
    return i < m->ndims ? m->dim[i].size : 1;
}

/* The zoomed layout of a 1-D or 2-D grid in area (a row alone across its
 * middle); false when it does not fit. */
static bool big_grid_at(const Machine *m, Rect area, BigGrid *b)
{
    int X = m->dim[0].size, Y = dim_size(m, 1), lw = label_w(m);
    b->lw = lw;
    b->wx = m->dim[0].kind == DIM_RING && X > 2;
    b->wy = m->ndims > 1 && m->dim[1].kind == DIM_RING && Y > 2;
    int side = b->wx ? lw + 5 : 0, top = b->wy ? 3 : 0;
    int bottom = b->wy ? 4 : 2;
    b->sx = X > 1 ? (area.w - 2 * side - lw) / (X - 1) : 0;
    b->sy = Y > 1 ? (area.h - top - bottom) / (Y - 1) : 0;
    b->x0 = area.x + side;
    b->y0 = area.y + (Y > 1 ? top : (area.h - 2) / 2);
    return (X < 2 || b->sx >= lw + 5) && (Y < 2 || b->sy >= 3) &&
           area.h >= top + bottom;
}

/* Row y's links: x to x+1 on two lanes (x -> x+1 on the node's line,
 * back under it), and the wrap-around out to both edges. */
static void big_row(TopoCtx *c, Rect area, const BigGrid *b, int y)
{
    const Machine *m = &c->sc->machine.mach;
    int X = m->dim[0].size, row = b->y0 + y * b->sy, lw = b->lw;
    for (int x = 0; x < X; x++) {
        int q = x + X * y, r = machine_rank_at(m, q);
        int cx = b->x0 + x * b->sx;
        topo_draw_node(c, cx, row, r, NULL);
        if (x + 1 < X) {
            int rn = machine_rank_at(m, q + 1), nx = cx + b->sx;
            lane(c, (TopoPt){cx + lw + 1, row}, (TopoPt){nx - 2, row},
                 hop(m, r, rn));
            lane(c, (TopoPt){nx - 2, row + 1}, (TopoPt){cx + lw + 1, row + 1},
                 hop(m, rn, r));
        }
    }
    if (!b->wx)
        return;
    int first = machine_rank_at(m, X * y);
    int last = machine_rank_at(m, X * y + X - 1);
    int xl = b->x0 + (X - 1) * b->sx + lw + 1, xe = area.x + area.w - lw - 1;
    lane(c, (TopoPt){xl, row}, (TopoPt){xe - 2, row}, hop(m, last, first));
    lane(c, (TopoPt){xe - 2, row + 1}, (TopoPt){xl, row + 1},
         hop(m, first, last));
    wrap_mark(c, xe, row, first);
    int xf = area.x + lw + 2;
    lane(c, (TopoPt){xf, row}, (TopoPt){b->x0 - 2, row}, hop(m, last, first));
    lane(c, (TopoPt){b->x0 - 2, row + 1}, (TopoPt){xf, row + 1},
         hop(m, first, last));
    wrap_mark(c, area.x, row, last);
}

/* Column x's links: y to y+1 on two lanes (down in the node's column, up
 * beside it), and the wrap-around out to the top and bottom. */
static void big_col(TopoCtx *c, Rect area, const BigGrid *b, int x)
{
    const Machine *m = &c->sc->machine.mach;
    int X = m->dim[0].size, Y = dim_size(m, 1), col = b->x0 + x * b->sx;
    for (int y = 0; y + 1 < Y; y++) {
        int r = machine_rank_at(m, x + X * y);
        int rn = machine_rank_at(m, x + X * (y + 1));
        int top = b->y0 + y * b->sy + 1, bot = top + b->sy - 2;
        lane(c, (TopoPt){col, top}, (TopoPt){col, bot}, hop(m, r, rn));
        lane(c, (TopoPt){col + 1, bot}, (TopoPt){col + 1, top},
             hop(m, rn, r));
    }
    if (!b->wy)
        return;
    int first = machine_rank_at(m, x);
    int last = machine_rank_at(m, x + X * (Y - 1));
    int yl = b->y0 + (Y - 1) * b->sy + 1, ye = area.y + area.h - 1;
    lane(c, (TopoPt){col, yl}, (TopoPt){col, ye - 1}, hop(m, last, first));
    lane(c, (TopoPt){col + 1, ye - 1}, (TopoPt){col + 1, yl},
         hop(m, first, last));
    wrap_mark(c, col, ye, first);
    lane(c, (TopoPt){col, area.y + 1}, (TopoPt){col, b->y0 - 1},
         hop(m, last, first));
    lane(c, (TopoPt){col + 1, b->y0 - 1}, (TopoPt){col + 1, area.y + 1},
         hop(m, first, last));
    wrap_mark(c, col, area.y, last);
}

/* A ring, or a 2-D torus or mesh, over the whole area; -1 when it does
 * not fit. */
static int big_grid(TopoCtx *c, Rect area)
{
    const Machine *m = &c->sc->machine.mach;
    BigGrid b;
    if (m->ndims > 2 || !big_grid_at(m, area, &b))
        return -1;
    for (int x = 0; x < m->dim[0].size; x++)
        big_col(c, area, &b, x);
    for (int y = 0; y < dim_size(m, 1); y++)
        big_row(c, area, &b, y);
    c->wraps = b.wx || b.wy;
    return area.h;
}

/* Where a zoomed node machine puts things: boxes of nodes above and
 * below the network's bar, each box's GPUs facing it. */
typedef struct {
    int cols;     /* boxes side by side */
    int bw;       /* a box's width */
    int px;       /* GPU pitch in a box */
    int k;        /* rows of a port's lanes to the node's switch */
    int n;        /* rows of a NIC's lanes to the network */
    int f;        /* 1: boxes framed */
    int net;      /* the network bar's row */
} BigNodes;

static bool big_nodes_at(const Machine *m, Rect area, BigNodes *b)
{
    int L = m->dim[0].size, G = m->dim[1].size, lw = label_w(m);
    int name = grid_text_width(m->cls[0].name);
    b->cols = (G + 1) / 2;
    b->bw = area.w / b->cols;
    b->px = L > 1 ? (b->bw - 8 - lw - name) / (L - 1) : 0;
    for (b->f = 1; b->f >= 0; b->f--) {
        int rest = area.h - (2 * (2 + 2 * b->f) + 1);
        b->n = rest / 4;
        b->k = (rest - 2 * b->n) / 2;
        if (b->n >= 2 && b->k >= 2)
            break;
    }
    b->net = area.y + 2 + 2 * b->f + b->k + b->n;
    return b->f >= 0 && (L < 2 || b->px >= 3);
}

/* Node g's box: its GPUs at row `gy`, the switch's bar at `bar`, two
 * lanes per GPU between them (up to the switch, down from it), and two
 * per NIC from the GPUs to the network's bar (at row `net`). Returns the
 * busiest NIC lane's level. */
static int big_node(TopoCtx *c, const BigNodes *b, int x0, int g, int gy,
                    int bar)
{
    const Machine *m = &c->sc->machine.mach;
    int L = m->dim[0].size, lw = label_w(m), dir = bar < gy ? -1 : 1;
    int top = 0, nic = 0;
    for (int i = 0; i < L; i++) {
        int r = machine_rank_at(m, g * L + i), x = x0 + i * b->px, up, down;
        topo_draw_node(c, x, gy, r, NULL);
        ports(m, r, 0, &up, &down);
        top = num_max(top, num_max(level2(c, up, -1), level2(c, down, -1)));
        lane(c, (TopoPt){x, gy + dir}, (TopoPt){x, bar - dir}, up);
        lane(c, (TopoPt){x + 1, bar - dir}, (TopoPt){x + 1, gy + dir}, down);
        if (m->dim[1].shared && i > 0)
            continue;
        ports(m, r, 1, &up, &down);
        nic = num_max(nic, num_max(level2(c, up, -1), level2(c, down, -1)));
        int from = gy - dir * (1 + b->f), to = b->net + dir;
        lane(c, (TopoPt){x, from}, (TopoPt){x, to}, up);
        lane(c, (TopoPt){x + 1, to}, (TopoPt){x + 1, from}, down);
    }
    int w = (L - 1) * b->px + lw + 1;
    for (int x = 0; x < w; x++)
        put_level(c, x0 + x, bar, top, false);
    grid_printf(c->g, c->r, x0 + w + 1, bar, -1, ROLE_DIM, 0, "%s",
                m->cls[0].name);
    return nic;
}

/* Nodes over the whole area: boxes of GPUs around the network; -1 when
 * they do not fit. */
static int big_nodes(TopoCtx *c, Rect area)
{
    const Machine *m = &c->sc->machine.mach;
    BigNodes b;
    if (!is_nodes(m) || !big_nodes_at(m, area, &b))
        return -1;
    int G = m->dim[1].size, nic = 0, hb = 2 + 2 * b.f + b.k;
    for (int g = 0; g < G; g++) {
        bool below = g >= b.cols;
        int bx = area.x + (g % b.cols) * b.bw;
        int by = below ? b.net + b.n + 1 : b.net - b.n - hb;
        char title[16]; /* a node, or a fat tree's leaf */
        snprintf(title, sizeof title, m->kind == MACHINE_FATTREE ? "leaf%d"
                                                                 : "n%d", g);
        if (b.f)
            grid_box(c->g, (Rect){bx, by, b.bw - 1, hb}, ROLE_BORDER, title,
                     ROLE_DIM);
        else
            grid_text(c->g, c->r, bx, below ? by : by + hb - 1, -1, ROLE_DIM,
                      0, title);
        int gy = below ? by + b.f : by + hb - 1 - b.f;
        int bar = below ? gy + b.k + 1 : gy - b.k - 1;
        nic = num_max(nic, big_node(c, &b, bx + 3, g, gy, bar));
    }
    int w = area.w - 2 - grid_text_width(m->cls[1].name);
    for (int x = 0; x < w; x++)
        put_level(c, area.x + x, b.net, nic, false);
    grid_printf(c->g, c->r, area.x + w + 1, b.net, -1, ROLE_DIM, 0, "%s",
                m->cls[1].name);
    return area.h;
}

/* A switch or bus over the whole width: the ranks spread over it, two
 * lanes each down to the bar (to it, from it); -1 when they do not fit
 * on one row. */
static int big_switch(TopoCtx *c, Rect area, const char *name)
{
    const Machine *m = &c->sc->machine.mach;
    int p = m->nranks, lw = label_w(m), nw = grid_text_width(name);
    int px = p > 1 ? (area.w - lw - 2 - nw) / (p - 1) : 0;
    int k = num_min(area.h - 2, 8), top = 0, bar = area.y + k + 1;
    if ((p > 1 && px < 3) || k < 2)
        return -1;
    for (int i = 0; i < p; i++) {
        int r = machine_rank_at(m, i), x = area.x + i * px, up, down;
        topo_draw_node(c, x, area.y, r, NULL);
        if (machine_has_medium(m))
            up = 2 * r, down = 2 * r + 1;
        else
            ports(m, r, 0, &up, &down);
        top = num_max(top, num_max(level2(c, up, -1), level2(c, down, -1)));
        lane(c, (TopoPt){x, area.y + 1}, (TopoPt){x, bar - 1}, up);
        lane(c, (TopoPt){x + 1, bar - 1}, (TopoPt){x + 1, area.y + 1}, down);
    }
    int lv = machine_has_medium(m) ? level2(c, 2 * m->nranks, -1) : top;
    int w = (p - 1) * px + lw + 1;
    for (int x = 0; x < w; x++)
        put_level(c, area.x + x, bar, lv, false);
    bar_label(c, area.x + w + 1, bar, name, NULL);
    return k + 2;
}

/* big_switch with its bar's label. */
static int big_switch_named(TopoCtx *c, Rect area)
{
    char name[96];
    bar_name(c->sc, name, sizeof name, NULL, 0);
    return big_switch(c, area, name);
}

/* ---------------------------------------------------------------- size */

void topo_machine_size(const Scene *sc, int room, int *rows, int *cols)
{
    const Machine *m = &sc->machine.mach;
    int lw = label_w(m), per = num_max(1, (room - 8) / (lw + 1));
    *rows = *cols = 0;
    if (is_grid(m))
        grid_size(m, room, rows, cols);
    else if (is_nodes(m))
        *rows = 4 * m->dim[1].size + 1, *cols = 7 + m->dim[0].size * (lw + 1);
    else if (is_switch(m))
        *rows = 3 * ((m->nranks + per - 1) / per),
        *cols = num_min(m->nranks, per) * (lw + 1) + 8;
    if (*cols > room)
        *rows = *cols = 0; /* it does not fit: the panel says so */
}

int topo_machine(TopoCtx *c, Rect area)
{
    const Machine *m = &c->sc->machine.mach;
    c->link_top = busiest_busy(c->sc);
    c->wraps = false;
    int big = -1;
    if (c->big && is_grid(m))
        big = big_grid(c, area);
    else if (c->big && is_nodes(m))
        big = big_nodes(c, area);
    else if (c->big && is_switch(m))
        big = big_switch_named(c, area);
    c->big_drawn = big >= 0;
    if (big >= 0)
        return big;
    if (is_grid(m))
        return draw_grid(c, area);
    if (is_nodes(m))
        return draw_nodes(c, area);
    if (is_switch(m))
        return draw_switch(c, area);
    return -1;
}

/* "busiest 3>7 y: 8 MiB, 73% of the step" */
void topo_machine_footer(TopoCtx *c, int y)
{
    const Scene *sc = c->sc;
    Rect r = c->r;
    int x = r.x;
    if (sc->link_busiest < 0) {
        const char *say = c->lk.shown ? _("no link carries bytes in this step")
                                      : _("links shaded by their load in the "
                                          "step");
        if (grid_text_width(say) > r.w)
            say = c->lk.shown ? _("no bytes on any link")
                              : _("links shaded by load");
        grid_text_cut(c->g, r, x, y, r.w, ROLE_DIM, 0, say);
        return;
    }
    int l = sc->link_busiest;
    const Machine *m = &sc->machine.mach;
    char name[64], bytes[24], share[16] = "", line[160];
    machine_link_name(m, l, name, sizeof name);
    view_fmt_bytes(bytes, sizeof bytes, sc->link_bytes[l]);
    /* a picture's steps are not priced: no share of a step's time */
    if (!sc->link_picture)
        snprintf(share, sizeof share, _(", %.0f%%"),
                 sc->link_busy_share * 100);
    snprintf(line, sizeof line,
             sc->link_picture ? _("busiest %s %s %s in the picture")
                              : _("busiest %s %s %s%s"),
             name, m->cls[machine_link_class(m, l)].name, bytes, share);
    if (grid_text_width(line) > r.w - 2 && sc->link_picture)
        snprintf(line, sizeof line, "%s %s ", name, bytes); /* numbers first */
    else if (grid_text_width(line) > r.w - 2)
        snprintf(line, sizeof line, "%s %s %.0f%%", name, bytes,
                 sc->link_busy_share * 100);
    grid_putg(c->g, r, x, y, GL_BLOCK, ROLE_WARN);
    grid_text_cut(c->g, r, x + 2, y, r.w - 2, ROLE_VALUE, 0, line);
}
