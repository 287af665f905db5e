/* topo_forest.c - trees (topo_tree.c derives them): each drawn from its
 * root down, subtrees below the deepest level that fits folded into their
 * ancestor ("4(+15)"), several trees side by side or one above another. */
#include "ui/topo.h"
#include "core/num.h"
#include "ui/i18n.h"

#include <stdio.h>
#include <string.h>

/* Columns of v in decimal. */
static int digits(int v) { return snprintf(NULL, 0, "%d", v); }

/* A forest drawn down to depth `fold`: deeper ranks fold into their
 * ancestor at that depth, which shows as "4(+15)". */
typedef struct {
    const TopoForest *f;   /* the trees */
    int fold;          /* deepest level drawn */
    int gap;           /* columns after each leaf's label (1 and up: a
                          large pane spreads the tree for the room) */
    int depth[TOPO_MAX_TREES][TOPO_MAXR]; /* distance from the root */
    int below[TOPO_MAX_TREES][TOPO_MAXR]; /* ranks under it */
    int height;        /* deepest level of any tree */
    int x[TOPO_MAXR];       /* column of each drawn rank (current tree) */
} TreeLay;

static void tree_measure(const TopoForest *f, int p, TreeLay *tl)
{
    memset(tl, 0, sizeof *tl);
    tl->f = f;
    for (int t = 0; t < f->ntrees; t++)
        for (int v = 0; v < p; v++) {
            int d = 0;
            for (int u = f->par[t][v]; u >= 0 && d <= p; u = f->par[t][u]) {
                tl->below[t][u]++;
                d++;
            }
            tl->depth[t][v] = d;
            tl->height = num_max(tl->height, d);
        }
}

static bool folded(const TreeLay *tl, int t, int v)
{
    return tl->depth[t][v] >= tl->fold && tl->below[t][v] > 0;
}

static int label_w(const TreeLay *tl, int t, int v)
{
    return digits(v) + (folded(tl, t, v) ? 3 + digits(tl->below[t][v]) : 0);
}

/* Columns of v's subtree (a column of space after each leaf). */
static int sub_width(const TreeLay *tl, int t, int p, int v)
{
    int own = label_w(tl, t, v) + tl->gap, sum = 0;
    if (folded(tl, t, v) || tl->f->nkids[t][v] == 0)
        return own;
    for (int c = 0; c < p; c++)
        if (tl->f->par[t][c] == v)
            sum += sub_width(tl, t, p, c);
    return num_max(own, sum);
}

/* Place v's subtree from column x0. */
static void place(TreeLay *tl, int t, int p, int v, int x0)
{
    int first = -1, last = -1, x = x0;
    if (!folded(tl, t, v))
        for (int c = 0; c < p; c++)
            if (tl->f->par[t][c] == v) {
                place(tl, t, p, c, x);
                x += sub_width(tl, t, p, c);
                first = first < 0 ? c : first;
                last = c;
            }
    int w = sub_width(tl, t, p, v);
    tl->x[v] = first < 0 ? x0 : (tl->x[first] + tl->x[last]) / 2;
    tl->x[v] = num_min(tl->x[v], x0 + w - 1 - label_w(tl, t, v));
}

static bool is_root(const TopoForest *f, int t, int v)
{
    return f->member[t][v] && f->par[t][v] < 0;
}

/* Width and height of tree t at the current fold. */
static void tree_size(const TreeLay *tl, int t, int p, int *w, int *h)
{
    *w = 0;
    *h = 0;
    for (int v = 0; v < p; v++)
        if (is_root(tl->f, t, v))
            *w += sub_width(tl, t, p, v);
    for (int v = 0; v < p; v++)
        if (tl->f->member[t][v])
            *h = num_max(*h, num_min(tl->depth[t][v], tl->fold));
    *h = 2 * *h + 1 + (tl->f->ntrees > 1);
    if (tl->f->ntrees > 1) /* room for the title "tree N" */
        *w = num_max(*w, 7);
}

/* The state of tree t's edge u - v: of trees told apart by data part,
 * only the transfers of t's part. */
static TopoLink tree_link(TopoCtx *c, const TopoForest *f, int t, int u, int v)
{
    TopoLink s = topo_take(&c->lk, u, v);
    if (f->multi && s.fwd && c->lk.key[u][v] != f->key[t])
        s.fwd = 0;
    if (f->multi && s.back && c->lk.key[v][u] != f->key[t])
        s.back = 0;
    return s;
}

/* Whether w hangs (somewhere) below v in tree t. */
static bool hangs_below(const TopoForest *f, int t, int w, int v)
{
    for (int u = f->par[t][w], hops = 0; u >= 0 && hops <= TOPO_MAXR;
         u = f->par[t][u], hops++)
        if (u == v)
            return true;
    return false;
}

/* The state of every edge folded into v, marking them drawn. */
static TopoLink folded_state(TopoCtx *c, const TreeLay *tl, int t, int p, int v)
{
    TopoLink any = {0, 0};
    for (int w = 0; w < p; w++) {
        if (tl->f->par[t][w] < 0 || !hangs_below(tl->f, t, w, v))
            continue;
        TopoLink l = tree_link(c, tl->f, t, tl->f->par[t][w], w);
        any.fwd = (uint8_t)num_max(any.fwd, num_max(l.fwd, l.back));
    }
    return any;
}

/* Sides the connector cell at column x under parent v joins. */
static unsigned kid_mask(const TreeLay *tl, int t, int p, int v, int x,
                         int lo, int hi)
{
    unsigned m = (x > lo ? TOPO_L : 0) | (x < hi ? TOPO_R : 0) |
                 (x == tl->x[v] ? TOPO_U : 0);
    for (int k = 0; k < p; k++)
        if (tl->f->par[t][k] == v && tl->x[k] == x)
            m |= TOPO_D;
    return m;
}

/* The connector row under parent v: a line over its children, the edges
 * the step uses marked, with the arrow head over the child. */
static void draw_kids(TopoCtx *c, const TreeLay *tl, int t, int p, int v, int y)
{
    int lo = tl->x[v], hi = tl->x[v];
    for (int k = 0; k < p; k++)
        if (tl->f->par[t][k] == v)
            lo = num_min(lo, tl->x[k]), hi = num_max(hi, tl->x[k]);
    for (int x = lo; x <= hi; x++)
        grid_put(c->g, c->r, x, y,
                 topo_line_glyph(c->g, kid_mask(tl, t, p, v, x, lo, hi), false),
                 ROLE_LINK, 0);
    for (int k = 0; k < p; k++) {
        TopoLink s = tl->f->par[t][k] == v ? tree_link(c, tl->f, t, v, k)
                                         : (TopoLink){0, 0};
        if (!topo_active(s))
            continue;
        bool red = topo_reduce(s);
        int dir = tl->x[k] > tl->x[v] ? 1 : -1;
        for (int x = tl->x[v]; x != tl->x[k]; x += dir)
            grid_put(c->g, c->r, x, y,
                     topo_line_glyph(c->g, kid_mask(tl, t, p, v, x, lo, hi), red),
                     topo_role(s), GRID_BOLD);
        uint32_t ch = s.fwd && s.back ? topo_both_glyph(c->g, true, red)
                    : topo_head_glyph(c->g, s.fwd ? TOPO_D : TOPO_U, red);
        grid_put(c->g, c->r, tl->x[k], y, ch, topo_role(s), GRID_BOLD);
    }
}

/* Draw tree t with its top-left corner at (x0, y0). */
static void draw_tree(TopoCtx *c, TreeLay *tl, int t, int x0, int y0)
{
    int p = num_min(c->lk.p, TOPO_MAXR), x = x0;
    if (tl->f->ntrees > 1)
        grid_printf(c->g, c->r, x0, y0++, -1, ROLE_TITLE, 0, _("tree %d"), t + 1);
    for (int v = 0; v < p; v++)
        if (is_root(tl->f, t, v)) {
            place(tl, t, p, v, x);
            x += sub_width(tl, t, p, v);
        }
    for (int v = 0; v < p; v++) {
        int d = tl->depth[t][v];
        if (!tl->f->member[t][v] || d > tl->fold)
            continue;
        if (!folded(tl, t, v) && tl->f->nkids[t][v] > 0)
            draw_kids(c, tl, t, p, v, y0 + 2 * d + 1);
    }
    for (int v = 0; v < p; v++) {
        int d = tl->depth[t][v];
        if (!tl->f->member[t][v] || d > tl->fold)
            continue;
        char text[24];
        snprintf(text, sizeof text, folded(tl, t, v) ? "%d(+%d)" : "%d", v,
                 tl->below[t][v]);
        TopoLink hid = folded(tl, t, v) ? folded_state(c, tl, t, p, v)
                                      : (TopoLink){0, 0};
        topo_draw_node(c, tl->x[v], y0 + 2 * d, v, text);
        if (topo_active(hid))
            grid_paint(c->g, rect_clip((Rect){tl->x[v] + digits(v), y0 + 2 * d,
                                              label_w(tl, t, v) - digits(v), 1},
                                       c->r), topo_role(hid), GRID_BOLD);
    }
}

/* Fit the forest: the deepest fold that fits, trees side by side or one
 * above the other, spread as wide as the area allows (up to 4 columns
 * after a leaf). Returns the rows used, or -1. */
int topo_forest(TopoCtx *c, Rect area)
{
    int p = num_min(c->lk.p, TOPO_MAXR);
    TopoForest f;
    TreeLay tl;
    topo_tree_build(&c->sc->sched, p, &f);
    tree_measure(&f, p, &tl);
    for (int k = 0; k <= 4 * (tl.height + 1); k++) {
        tl.fold = tl.height - k / 4, tl.gap = 4 - k % 4;
        int w[TOPO_MAX_TREES], h[TOPO_MAX_TREES], sw = 0, sh = 0, tw = 0, th = 0;
        for (int t = 0; t < f.ntrees; t++) {
            tree_size(&tl, t, p, &w[t], &h[t]);
            sw += w[t] + (t ? 1 : 0), sh = num_max(sh, h[t]);
            tw = num_max(tw, w[t]), th += h[t];
        }
        bool side = sw <= area.w && sh <= area.h;
        if (!side && !(tw <= area.w && th <= area.h))
            continue;
        int x = area.x + (area.w - (side ? sw : tw)) / 2;
        int y = area.y + (area.h - (side ? sh : th)) / 2;
        for (int t = 0; t < f.ntrees; t++) {
            draw_tree(c, &tl, t, x, y);
            x += side ? w[t] + 1 : 0;
            y += side ? 0 : h[t];
        }
        return side ? sh : th;
    }
    return -1;
}
