/* topo_machine.c - the machine a what-if prices on (Scene.mach), each link
 * shaded by its load in the shown step: tori and meshes as a grid of
 * ranks (dimension x across, y down, z in slices side by side, the z
 * links of a row between two slices as one cell shaded by the busiest of
 * them; a torus's wrap-around links as stubs at the ends), nodes as rows of GPUs over
 * their switch and NICs, a switch or bus as a row of ranks over it.
 *
 * A link's shade is its bytes' time (bytes times its beta) over the
 * busiest link's: thin line idle, light, medium, dark shade, and a full
 * block for the busiest, so the load reads without colour too; both
 * directions of a pair share one cell (the larger load). */
#include <stdio.h>
#include <string.h>

#include "core/num.h"
#include "ui/topo.h"
#include "ui/view.h"

/* A link cell: the glyph and role of a load level 0..4. */
static void put_level(TopoCtx *c, int x, int y, int level, bool vertical)
{
    static const Glyph shade[5] = {GL_HLINE, GL_SHADE1, GL_SHADE2,
                                     GL_SHADE3, GL_BLOCK};
    Glyph gl = level == 0 && vertical ? GL_VLINE : shade[level];
    Role role = level == 0 ? ROLE_LINK : level == 4 ? ROLE_WARN
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

/* The level of the larger load of links a and b (-1: none). */
static int level2(const TopoCtx *c, int a, int b)
{
    const Scene *sc = c->sc;
    double top = c->link_top, ba = busy(sc, a), bb = busy(sc, b);
    double v = ba > bb ? ba : bb;
    if (!(v > 0) || !(top > 0))
        return 0;
    if (v >= top)
        return 4;
    return v <= top / 3 ? 1 : v <= 2 * top / 3 ? 2 : 3;
}

/* The one link from a to b (neighbours), or -1. */
static int hop(const Machine *m, int a, int b)
{
    int l[4];
    return machine_route(m, a, b, l, 4) == 1 ? l[0] : -1;
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

/* The ranks at places first .. first + n in a row over their port glyphs
 * of dimension `dim`, then the switch's bar labelled `name`: for a
 * switch, bus and each node. */
static int draw_row(TopoCtx *c, int x0, int y0, int first, int n, int dim,
                    const char *name)
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
        put_level(c, x0 + i * pitch + lw - 1, y0 + 1, lv, true);
    }
    int w = n * pitch - 1;
    int lv = machine_has_medium(m) ? level2(c, 2 * m->nranks, -1) : top;
    for (int x = 0; x < w; x++)
        put_level(c, x0 + x, y0 + 2, lv, false);
    grid_printf(c->g, c->r, x0 + w + 1, y0 + 2, -1, ROLE_DIM, 0, "%s", name);
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
        draw_row(c, area.x + 4, y, g * L, L, 0, name);
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

static int draw_switch(TopoCtx *c, Rect area)
{
    const Machine *m = &c->sc->machine.mach;
    int lw = label_w(m), per = num_max(1, (area.w - 8) / (lw + 1));
    int p = m->nranks, rows = (p + per - 1) / per;
    if (rows * 3 > area.h)
        return -1;
    const char *name = machine_has_medium(m) ? _("medium")
                       : m->dim[0].reduce ? _("switch, multicasts")
                                          : _("switch");
    for (int i = 0; i < rows; i++)
        draw_row(c, area.x, area.y + 3 * i, i * per, num_min(per, p - i * per),
                 0, name);
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
        grid_text(c->g, r, x, y, -1, ROLE_DIM, 0,
                  c->lk.shown ? _("no link carries bytes in this step")
                              : _("links shaded by their load in the step"));
        return;
    }
    int l = sc->link_busiest;
    char name[64], bytes[24], line[160];
    machine_link_name(&sc->machine.mach, l, name, sizeof name);
    view_fmt_bytes(bytes, sizeof bytes, sc->link_bytes[l]);
    snprintf(line, sizeof line,
             sc->link_picture ? _("busiest %s %s %s in the picture, %.0f%%")
                              : _("busiest %s %s %s, %.0f%%"),
             name, sc->machine.mach.cls[machine_link_class(&sc->machine.mach, l)].name, bytes,
             sc->link_busy_share * 100);
    if (grid_text_width(line) > r.w - 2) /* the numbers before the words */
        snprintf(line, sizeof line, "%s %s %.0f%%", name, bytes,
                 sc->link_busy_share * 100);
    grid_putg(c->g, r, x, y, GL_BLOCK, ROLE_WARN);
    grid_text(c->g, r, x + 2, y, -1, ROLE_VALUE, 0, line);
}
