/* topo.c - what the topology's renderers share: the shown step's links,
 * line and arrow glyphs (Unicode box drawing, or ASCII), rank labels that
 * remember where they are for clicks, paths, and flowed token lists. */
#include "ui/topo.h"
#include "core/num.h"

#include <stdio.h>
#include <string.h>


/* ================================================================ links */

void topo_links_init(const Scene *sc, TopoLinks *lk)
{
    memset(lk, 0, sizeof *lk);
    lk->p = sc->call.nranks;
    lk->shown = scene_shown(sc, &lk->k);
    if (!lk->shown)
        return;
    const Step *st = &sc->sched.steps[lk->k];
    for (size_t x = st->first; x < st->first + st->n; x++) {
        const Transfer *t = &sc->sched.xfers[x];
        if (t->src >= TOPO_MAXR || t->dst >= TOPO_MAXR)
            continue;
        lk->busy[t->src] = lk->busy[t->dst] = true;
        uint8_t *o = &lk->op[t->src][t->dst];
        if (t->op + 1 > *o)
            *o = (uint8_t)(t->op + 1);
        lk->key[t->src][t->dst] = t->src_off;
    }
    for (int a = 0; a < lk->p; a++) {
        lk->nlocal += lk->op[a][a] != 0;
        for (int b = 0; b < lk->p; b++)
            if (a != b && lk->op[a][b])
                lk->nlinks[lk->op[a][b] - 1]++;
    }
}

/* The state of a - b, marking both directions as drawn. */
TopoLink topo_take(TopoLinks *lk, int a, int b)
{
    if (a < 0 || b < 0 || a == b)
        return (TopoLink){0, 0};
    lk->used[a][b] = lk->used[b][a] = true;
    return (TopoLink){lk->op[a][b], lk->op[b][a]};
}

bool topo_active(TopoLink s) { return s.fwd || s.back; }
bool topo_reduce(TopoLink s)
{
    return s.fwd == 1 + XFER_REDUCE || s.back == 1 + XFER_REDUCE;
}
Role topo_role(TopoLink s)
{
    return !topo_active(s) ? ROLE_LINK : topo_reduce(s) ? ROLE_REDUCE : ROLE_COPY;
}
unsigned topo_attr(TopoLink s) { return topo_active(s) ? GRID_BOLD : 0; }

/* ================================================================ glyphs */

/* Box drawing by side mask: thin lines (idle, copy), double (reduce). */
static const uint32_t box_thin[16] = {
    ' ', 0x2502, 0x2502, 0x2502, 0x2500, 0x2518, 0x2510, 0x2524,
    0x2500, 0x2514, 0x250C, 0x251C, 0x2500, 0x2534, 0x252C, 0x253C,
};
static const uint32_t box_double[16] = {
    ' ', 0x2551, 0x2551, 0x2551, 0x2550, 0x255D, 0x2557, 0x2563,
    0x2550, 0x255A, 0x2554, 0x2560, 0x2550, 0x2569, 0x2566, 0x256C,
};

/* Arrow heads by the side they point to: [reduce][U, D, L, R]. */
static const uint32_t head_uni[2][4] = {
    {0x2191, 0x2193, 0x2190, 0x2192},
    {0x21D1, 0x21D3, 0x21D0, 0x21D2},
};
static const char head_ascii[2][4] = {{'^', 'v', '<', '>'},
                                      {'A', 'V', '<', '>'}};

/* A line cell connecting `mask` sides. */
uint32_t topo_line_glyph(const Grid *g, unsigned mask, bool reduce)
{
    mask &= 15;
    if (!g->ascii)
        return reduce ? box_double[mask] : box_thin[mask];
    bool h = mask & (TOPO_L | TOPO_R), v = mask & (TOPO_U | TOPO_D);
    if (h && v)
        return '+';
    if (v)
        return reduce ? '#' : '|';
    return reduce ? '=' : '-';
}

static int side_index(unsigned side)
{
    return side == TOPO_U ? 0 : side == TOPO_D ? 1 : side == TOPO_L ? 2 : 3;
}

/* An arrow head pointing to `side`. */
uint32_t topo_head_glyph(const Grid *g, unsigned side, bool reduce)
{
    int i = side_index(side);
    return g->ascii ? (uint32_t)head_ascii[reduce][i] : head_uni[reduce][i];
}

/* A one-cell link used both ways, vertical or horizontal. */
uint32_t topo_both_glyph(const Grid *g, bool vertical, bool reduce)
{
    if (g->ascii)
        return reduce ? '#' : '*';
    if (vertical)
        return reduce ? 0x21D5 : 0x2195;
    return reduce ? 0x21D4 : 0x2194;
}

/* The link text of a token: "->" for a -> b and so on. */
const char *topo_arrow_text(const Grid *g, TopoLink s)
{
    static const char *const uni[2][3] = {{"\u2192", "\u2190", "\u21C4"},
                                          {"\u21D2", "\u21D0", "\u21D4"}};
    static const char *const asc[2][3] = {{"->", "<-", "<>"},
                                          {"=>", "<=", "<=>"}};
    int i = s.fwd && s.back ? 2 : s.back ? 1 : 0;
    if (!topo_active(s))
        return g->ascii ? "-" : "\u2500";
    return (g->ascii ? asc : uni)[topo_reduce(s)][i];
}

/* ================================================================ drawing */

/* Role and attributes of rank q's label. */
Role topo_node_role(const TopoCtx *c, int q, unsigned *attr)
{
    *attr = 0;
    if (q < 0)
        return ROLE_DIM;
    if (q < TOPO_MAXR && c->lk.busy[q])
        *attr |= GRID_BOLD;
    if (coll_is_rooted(c->sc->call.kind) && q == c->root)
        *attr |= GRID_UNDER;
    return c->sel_rank == q ? ROLE_SELECT : ROLE_NODE;
}

/* Rank q's label (or text) at (x, y); returns its width. */
int topo_draw_node(TopoCtx *c, int x, int y, int q, const char *text)
{
    unsigned attr;
    Role role = topo_node_role(c, q, &attr);
    char buf[16];
    if (!text) {
        snprintf(buf, sizeof buf, "%d", q);
        text = buf;
    }
    int w = grid_text(c->g, c->r, x, y, -1, role, attr, text);
    int lead = (int)strspn(text, " "); /* " 3": padded to the label */
    if (q >= 0 && c->nhits < TOPO_MAX_HITS)
        c->hits[c->nhits++] = (TopoHit){
            x + lead, y, (int)strspn(text + lead, "0123456789"), q};
    return w;
}

/* Which side of `from` the adjacent (or aligned) point `to` is on. */
static unsigned side_of(TopoPt from, TopoPt to)
{
    if (to.y < from.y)
        return TOPO_U;
    if (to.y > from.y)
        return TOPO_D;
    return to.x < from.x ? TOPO_L : TOPO_R;
}

/* Extend the path in a straight line up to and including `to`. */
void topo_path_to(TopoPath *p, TopoPt to)
{
    TopoPt at = p->n ? p->cell[p->n - 1] : p->a;
    if (p->n == 0 && at.x == to.x && at.y == to.y)
        return;
    while ((at.x != to.x || at.y != to.y) && p->n < TOPO_MAX_PATH) {
        at.x += (to.x > at.x) - (to.x < at.x);
        at.y += (to.y > at.y) - (to.y < at.y);
        p->cell[p->n++] = at;
    }
}

/* Draw a path in the state s (fwd: a -> b). */
void topo_draw_path(TopoCtx *c, const TopoPath *p, TopoLink s)
{
    bool red = topo_reduce(s);
    Role role = topo_role(s);
    unsigned attr = topo_attr(s);
    for (int i = 0; i < p->n; i++) {
        TopoPt at = p->cell[i];
        TopoPt prev = i ? p->cell[i - 1] : p->a;
        TopoPt next = i + 1 < p->n ? p->cell[i + 1] : p->b;
        unsigned back = side_of(at, prev), fwd = side_of(at, next);
        uint32_t ch = topo_line_glyph(c->g, back | fwd, red);
        bool hf = s.fwd && i == p->n - 1, hb = s.back && i == 0;
        if (hf && hb)
            ch = topo_both_glyph(c->g, fwd & (TOPO_U | TOPO_D), red);
        else if (hf)
            ch = topo_head_glyph(c->g, fwd, red);
        else if (hb)
            ch = topo_head_glyph(c->g, back, red);
        grid_put(c->g, c->r, at.x, at.y, ch, role, attr);
    }
}

/* ================================================================ tokens */

/* A token of no pieces, nothing clickable. */
TopoToken topo_token_empty(void)
{
    return (TopoToken){.rank = {-1, -1, -1}};
}

int topo_token_width(const TopoToken *t)
{
    int w = 0;
    for (int i = 0; i < 3; i++)
        w += grid_text_width(t->text[i]);
    return w;
}

/* Flow tokens into rows of area; when they do not all fit the last place
 * says how many are left out. Returns the rows used. */
int topo_flow(TopoCtx *c, Rect area, const TopoToken *t, int n)
{
    int x = area.x, y = area.y;
    for (int i = 0; i < n; i++) {
        int w = topo_token_width(&t[i]);
        if (x > area.x && x + w > area.x + area.w) {
            x = area.x;
            y++;
        }
        bool last_row = y == area.y + area.h - 1;
        if (y >= area.y + area.h ||
            (last_row && i + 1 < n && x + w + 6 > area.x + area.w)) {
            if (y < area.y + area.h)
                grid_printf(c->g, area, x, y, -1, ROLE_DIM, 0, "+%d", n - i);
            return area.h;
        }
        for (int k = 0; k < 3; k++) {
            int pw = grid_text(c->g, area, x, y, -1, t[i].role[k],
                               t[i].attr[k], t[i].text[k]);
            if (t[i].rank[k] >= 0 && c->nhits < TOPO_MAX_HITS)
                c->hits[c->nhits++] = (TopoHit){x, y, pw, t[i].rank[k]};
            x += pw;
        }
        x++;
    }
    return y - area.y + 1;
}

/* A token "a<arrow>b" for the link a - b. */
static TopoToken pair_token(TopoCtx *c, int a, int b, TopoLink s)
{
    TopoToken t = topo_token_empty();
    unsigned at;
    t.rank[0] = a;
    t.rank[2] = b;
    t.role[0] = topo_node_role(c, a, &at);
    t.attr[0] = at;
    t.role[2] = topo_node_role(c, b, &at);
    t.attr[2] = at;
    snprintf(t.text[0], sizeof t.text[0], "%d", a);
    snprintf(t.text[1], sizeof t.text[1], "%s", topo_arrow_text(c->g, s));
    snprintf(t.text[2], sizeof t.text[2], "%d", b);
    t.role[1] = topo_role(s);
    t.attr[1] = topo_attr(s);
    return t;
}

/* Tokens for every active link not drawn yet, by sender, marking them
 * drawn. Returns how many (at most cap). */
int topo_pair_tokens(TopoCtx *c, TopoToken *t, int cap)
{
    int n = 0, p = num_min(c->lk.p, TOPO_MAXR);
    for (int a = 0; a < p; a++)
        for (int b = 0; b < p; b++) {
            if (a == b || c->lk.used[a][b] || !c->lk.op[a][b])
                continue;
            TopoLink s = topo_take(&c->lk, a, b);
            if (n < cap)
                t[n++] = pair_token(c, a, b, s);
        }
    return n;
}
