/* topo_serp.c - a ring or a chain: ranks counted from the root along a
 * line in serpentine rows (a ring closes it: a racetrack in two rows), an
 * ellipsis standing for the ranks that do not fit. */
#include "ui/topo.h"
#include "core/num.h"

#include <stdio.h>
#include <string.h>

/* Columns of v in decimal. */
static int digits(int v) { return snprintf(NULL, 0, "%d", v); }

/* Ranks along a line (chain) or a closed line (ring), in serpentine rows;
 * an ellipsis slot stands for the ranks that do not fit. */
typedef struct {
    bool ring;          /* the last slot links back to the first */
    int n;              /* slots */
    int pos[TOPO_MAXR + 1];  /* order position per slot, -1 for the ellipsis */
    int m;              /* slots per row */
    int rows;           /* node rows */
    int lw;             /* label width */
    int gap;            /* columns between labels */
    int pad;            /* blank columns either side of a link */
    int x0, y0;         /* first slot (left of row 0) */
} Serp;

/* Rank at position i of the line: counted from the root. */
static int order_rank(const TopoCtx *c, int i) { return (c->root + i) % c->lk.p; }

static int serp_width(const Serp *s, int rows)
{
    int m = (s->n + rows - 1) / rows;
    return (s->ring && rows > 2 ? 2 : 0) + m * s->lw + (m - 1) * s->gap;
}

static int serp_height(const Serp *s, int rows)
{
    return 2 * rows - 1 + (s->ring && rows == 1 && s->n > 1);
}

/* Rows for n slots in w x h: rings prefer the two-row racetrack. */
static int serp_rows(const Serp *s, int w, int h)
{
    if (s->ring && s->n >= 4 && serp_width(s, 2) <= w &&
        serp_height(s, 2) <= h)
        return 2;
    for (int rows = 1; serp_height(s, rows) <= h; rows++) {
        if (s->ring && rows > 2 && rows % 2)
            continue;
        if (serp_width(s, rows) <= w)
            return rows;
    }
    return 0;
}

/* Keep `n` slots: the first half of the line, the ellipsis, the rest. */
static void serp_slots(Serp *s, int p, int n)
{
    s->n = n;
    if (n >= p) {
        for (int i = 0; i < p; i++)
            s->pos[i] = i;
        s->n = p;
        return;
    }
    int head = n / 2, tail = n - 1 - head;
    for (int i = 0; i < head; i++)
        s->pos[i] = i;
    s->pos[head] = -1;
    for (int i = 0; i < tail; i++)
        s->pos[head + 1 + i] = p - tail + i;
}

/* Fit the line into w x h: fewer slots until it does. */
static bool serp_fit(Serp *s, int p, int w, int h)
{
    static const int gaps[3] = {5, 3, 2};
    s->lw = digits(p - 1);
    for (int n = p; n >= num_min(p, 3); n--) {
        if (n < p && n < 3)
            break;
        serp_slots(s, p, n);
        for (int g = 0; g < 3; g++)
            if ((s->gap = gaps[g], s->rows = serp_rows(s, w, h)) > 0) {
                s->m = (s->n + s->rows - 1) / s->rows;
                return true;
            }
    }
    return false;
}

static TopoPt serp_at(const Serp *s, int i)
{
    int row = i / s->m, col = i % s->m;
    if (row % 2)
        col = s->m - 1 - col;
    return (TopoPt){s->x0 + col * (s->lw + s->gap), s->y0 + 2 * row};
}

/* The link between slots i and j = i + 1: real ranks, or the link into
 * and out of the ellipsis (the ranks next to it). */
static TopoLink serp_link(TopoCtx *c, const Serp *s, int i, int j)
{
    int a = s->pos[i], b = s->pos[j], p = c->lk.p;
    if (a < 0)
        a = (b - 1 + p) % p;
    if (b < 0)
        b = (a + 1) % p;
    return topo_take(&c->lk, order_rank(c, a), order_rank(c, b));
}

/* TopoPath from slot i to the next slot on its row, or down to the next row. */
static void serp_path(const Serp *s, int i, TopoPath *pa)
{
    TopoPt a = serp_at(s, i), b = serp_at(s, i + 1);
    pa->n = 0;
    if (a.y != b.y) {
        pa->a = a, pa->b = b;
        topo_path_to(pa, (TopoPt){a.x, a.y + 1});
        return;
    }
    bool right = b.x > a.x;
    int d = s->pad;
    pa->a = right ? (TopoPt){a.x + s->lw - 1 + d, a.y} : (TopoPt){a.x - d, a.y};
    pa->b = right ? (TopoPt){b.x - d, b.y} : (TopoPt){b.x + s->lw - 1 + d, b.y};
    topo_path_to(pa, (TopoPt){right ? b.x - 1 - d : b.x + s->lw + d, a.y});
}

/* The ring's way back from the last slot to the first. */
static void serp_return(const Serp *s, TopoPath *pa)
{
    TopoPt a = serp_at(s, s->n - 1), z = serp_at(s, 0);
    pa->n = 0;
    pa->a = a;
    pa->b = z;
    if (s->rows == 1) {
        topo_path_to(pa, (TopoPt){a.x, a.y + 1});
        topo_path_to(pa, (TopoPt){z.x, a.y + 1});
        topo_path_to(pa, (TopoPt){z.x, z.y + 1});
        return;
    }
    int mx = s->rows > 2 ? z.x - 2 : z.x;
    if (a.x == mx && s->rows == 2) {
        topo_path_to(pa, (TopoPt){a.x, a.y - 1});
        return;
    }
    pa->a.x -= s->pad;
    topo_path_to(pa, (TopoPt){a.x - 1 - s->pad, a.y});
    topo_path_to(pa, (TopoPt){mx, a.y});
    topo_path_to(pa, (TopoPt){mx, s->rows > 2 ? z.y : z.y + 1});
    if (s->rows > 2)
        topo_path_to(pa, (TopoPt){z.x - 1, z.y});
}

/* The ellipsis slot: active when a link it hides is. */
static void draw_ellipsis(TopoCtx *c, const Serp *s, int i)
{
    int from = s->pos[i - 1], to = s->pos[i + 1];
    TopoLink any = {0, 0};
    for (int k = from + 1; k < to; k++) {
        TopoLink l = topo_take(&c->lk, order_rank(c, k), order_rank(c, k + 1));
        any.fwd = (uint8_t)num_max(any.fwd, num_max(l.fwd, l.back));
    }
    TopoPt at = serp_at(s, i);
    grid_put(c->g, c->r, at.x, at.y, grid_glyph(c->g, GL_ELLIPSIS),
             topo_active(any) ? topo_role(any) : ROLE_DIM, topo_attr(any));
}

int topo_serp(TopoCtx *c, Rect area, bool ring)
{
    Serp s = {.ring = ring};
    if (!serp_fit(&s, c->lk.p, area.w, area.h))
        return -1;
    s.pad = s.gap >= 5;
    s.x0 = area.x + (area.w - serp_width(&s, s.rows)) / 2 +
           (ring && s.rows > 2 ? 2 : 0);
    s.y0 = area.y + (area.h - serp_height(&s, s.rows)) / 2;
    TopoPath pa;
    /* Two ranks in a ring: each of the two lines shows one direction. */
    bool one_way = ring && s.n == 2;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i + 1 < s.n; i++) {
            TopoLink l = serp_link(c, &s, i, i + 1);
            l.back = one_way ? 0 : l.back;
            serp_path(&s, i, &pa);
            if (topo_active(l) == pass)
                topo_draw_path(c, &pa, l);
        }
        if (ring && s.n > 1) {
            TopoLink l = serp_link(c, &s, s.n - 1, 0);
            l.back = one_way ? 0 : l.back;
            serp_return(&s, &pa);
            if (topo_active(l) == pass)
                topo_draw_path(c, &pa, l);
        }
    }
    for (int i = 0; i < s.n; i++) {
        TopoPt at = serp_at(&s, i);
        if (s.pos[i] < 0)
            draw_ellipsis(c, &s, i);
        else
            topo_draw_node(c, at.x, at.y, order_rank(c, s.pos[i]), NULL);
    }
    return serp_height(&s, s.rows);
}
