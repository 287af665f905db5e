/* topo_star.c - a star: the centre (the root, or the rank with the most
 * peers) and its spokes, each a token with the state of its link, or runs
 * of equal state as ranges when one each does not fit. */
#include "ui/topo.h"
#include "core/num.h"

#include <stdio.h>
#include <string.h>


/* Code point ch (below 0x10000) as UTF-8 text into out[4]. */
static void utf8_of(uint32_t ch, char *out)
{
    if (ch < 0x80) {
        out[0] = (char)ch, out[1] = 0;
    } else if (ch < 0x800) {
        out[0] = (char)(0xC0 | (ch >> 6));
        out[1] = (char)(0x80 | (ch & 0x3F)), out[2] = 0;
    } else {
        out[0] = (char)(0xE0 | (ch >> 12));
        out[1] = (char)(0x80 | ((ch >> 6) & 0x3F));
        out[2] = (char)(0x80 | (ch & 0x3F)), out[3] = 0;
    }
}

/* The star's centre: the root, else the rank with the most peers. */
static int star_centre(const TopoCtx *c)
{
    const Schedule *s = &c->sc->sched;
    int p = num_min(c->lk.p, TOPO_MAXR), best = 0, most = -1;
    if (coll_is_rooted(s->call.kind))
        return c->root;
    int peers[TOPO_MAXR] = {0};
    uint64_t seen[TOPO_MAXR] = {0};
    for (size_t x = 0; x < s->nxfers; x++) {
        const Transfer *t = &s->xfers[x];
        if (t->src == t->dst || t->src >= p || t->dst >= p)
            continue;
        uint64_t bit = (uint64_t)1 << t->dst;
        peers[t->src] += !(seen[t->src] & bit);
        seen[t->src] |= bit;
    }
    for (int r = 0; r < p; r++)
        if (peers[r] > most)
            most = peers[r], best = r;
    return best;
}

/* A spoke: its state glyph, then the leaf (or range of leaves). */
static TopoToken spoke_token(TopoCtx *c, int lo, int hi, TopoLink s)
{
    TopoToken t = topo_token_empty();
    t.rank[1] = lo == hi ? lo : -1;
    uint32_t ch = s.fwd && s.back ? topo_both_glyph(c->g, true, topo_reduce(s))
                : s.fwd ? topo_head_glyph(c->g, TOPO_D, topo_reduce(s))
                : s.back ? topo_head_glyph(c->g, TOPO_U, topo_reduce(s))
                         : grid_glyph(c->g, GL_DOT);
    utf8_of(ch, t.text[0]);
    t.role[0] = topo_role(s);
    t.attr[0] = topo_attr(s);
    unsigned at;
    t.role[1] = lo == hi ? topo_node_role(c, lo, &at) : ROLE_NODE;
    t.attr[1] = lo == hi ? at : 0;
    if (lo == hi)
        snprintf(t.text[1], sizeof t.text[1], "%d", lo);
    else
        snprintf(t.text[1], sizeof t.text[1], "%d-%d", lo, hi);
    return t;
}

/* Rows n tokens take in width w. */
static int flow_rows(const TopoToken *t, int n, int w)
{
    int x = 0, rows = n > 0;
    for (int i = 0; i < n; i++) {
        int tw = topo_token_width(&t[i]);
        if (x > 0 && x + tw > w)
            x = 0, rows++;
        x += tw + 1;
    }
    return rows;
}

/* The spokes, one token each, or runs of equal state as ranges when one
 * each does not fit. */
static int spoke_tokens(TopoCtx *c, int ctr, TopoToken *t, Rect area)
{
    int p = num_min(c->lk.p, TOPO_MAXR), n = 0;
    TopoLink st[TOPO_MAXR];
    for (int l = 0; l < p; l++)
        st[l] = l == ctr ? (TopoLink){0, 0} : topo_take(&c->lk, ctr, l);
    for (int l = 0; l < p; l++)
        if (l != ctr)
            t[n++] = spoke_token(c, l, l, st[l]);
    if (flow_rows(t, n, area.w) <= area.h)
        return n;
    n = 0;
    for (int l = 0; l < p; l++) {
        if (l == ctr)
            continue;
        int hi = l;
        while (hi + 1 < p && hi + 1 != ctr && st[hi + 1].fwd == st[l].fwd &&
               st[hi + 1].back == st[l].back)
            hi++;
        t[n++] = spoke_token(c, l, hi, st[l]);
        l = hi;
    }
    return n;
}

int topo_star(TopoCtx *c, Rect area)
{
    int ctr = star_centre(c), x = area.x;
    TopoToken t[TOPO_MAXR];
    if (area.h < 2)
        return -1;
    x += topo_draw_node(c, x, area.y, ctr, NULL);
    grid_printf(c->g, area, x, area.y, -1, ROLE_DIM, 0, " centre, %d spokes",
                c->lk.p - 1);
    Rect rest = {area.x, area.y + 1, area.w, area.h - 1};
    int n = spoke_tokens(c, ctr, t, rest);
    return 1 + topo_flow(c, rest, t, n);
}
