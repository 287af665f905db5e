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
 * is clipped to the panel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/view.h"

/* Most ranks the topology draws (the picture's limit). */
#define MAXR 64

/* ================================================================ links */

/* The links of the shown step, from the picture's schedule. */
typedef struct {
    int p;                  /* ranks */
    bool shown;             /* a step is shown (else the initial state) */
    size_t k;               /* the shown step */
    uint8_t op[MAXR][MAXR]; /* [src][dst]: 0, or 1 + XferOp */
    bool used[MAXR][MAXR];  /* the layout drew [src][dst] */
    size_t key[MAXR][MAXR]; /* source offset of [src][dst]'s transfer */
    bool busy[MAXR];        /* the rank sends, receives or works locally */
    int nlinks[2];          /* links by XferOp */
    int nlocal;             /* ranks with local work */
} Links;

static void links_init(const App *app, Links *lk)
{
    const Scene *sc = app->scene;
    memset(lk, 0, sizeof *lk);
    lk->p = sc->call.nranks;
    lk->shown = scene_shown(sc, &lk->k);
    if (!lk->shown)
        return;
    const Step *st = &sc->sched.steps[lk->k];
    for (size_t x = st->first; x < st->first + st->n; x++) {
        const Transfer *t = &sc->sched.xfers[x];
        if (t->src >= MAXR || t->dst >= MAXR)
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

/* State of the link between a and b: a -> b and b -> a. */
typedef struct {
    uint8_t fwd;  /* 0, or 1 + XferOp of a -> b */
    uint8_t back; /* 0, or 1 + XferOp of b -> a */
} LinkSt;

/* The state of a - b, marking both directions as drawn. */
static LinkSt link_take(Links *lk, int a, int b)
{
    if (a < 0 || b < 0 || a == b)
        return (LinkSt){0, 0};
    lk->used[a][b] = lk->used[b][a] = true;
    return (LinkSt){lk->op[a][b], lk->op[b][a]};
}

static bool st_active(LinkSt s) { return s.fwd || s.back; }
static bool st_reduce(LinkSt s)
{
    return s.fwd == 1 + XFER_REDUCE || s.back == 1 + XFER_REDUCE;
}
static Role st_role(LinkSt s)
{
    return !st_active(s) ? ROLE_LINK : st_reduce(s) ? ROLE_REDUCE : ROLE_COPY;
}
static unsigned st_attr(LinkSt s) { return st_active(s) ? GRID_BOLD : 0; }

/* ================================================================ glyphs */

/* Sides a line cell connects to. */
enum { SIDE_U = 1, SIDE_D = 2, SIDE_L = 4, SIDE_R = 8 };

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
static uint32_t line_glyph(const Grid *g, unsigned mask, bool reduce)
{
    mask &= 15;
    if (!g->ascii)
        return reduce ? box_double[mask] : box_thin[mask];
    bool h = mask & (SIDE_L | SIDE_R), v = mask & (SIDE_U | SIDE_D);
    if (h && v)
        return '+';
    if (v)
        return reduce ? '#' : '|';
    return reduce ? '=' : '-';
}

static int side_index(unsigned side)
{
    return side == SIDE_U ? 0 : side == SIDE_D ? 1 : side == SIDE_L ? 2 : 3;
}

/* An arrow head pointing to `side`. */
static uint32_t head_glyph(const Grid *g, unsigned side, bool reduce)
{
    int i = side_index(side);
    return g->ascii ? (uint32_t)head_ascii[reduce][i] : head_uni[reduce][i];
}

/* A one-cell link used both ways, vertical or horizontal. */
static uint32_t both_glyph(const Grid *g, bool vertical, bool reduce)
{
    if (g->ascii)
        return reduce ? '#' : '*';
    if (vertical)
        return reduce ? 0x21D5 : 0x2195;
    return reduce ? 0x21D4 : 0x2194;
}

/* The link text of a token: "->" for a -> b and so on. */
static const char *arrow_text(const Grid *g, LinkSt s)
{
    static const char *const uni[2][3] = {{"\u2192", "\u2190", "\u21C4"},
                                          {"\u21D2", "\u21D0", "\u21D4"}};
    static const char *const asc[2][3] = {{"->", "<-", "<>"},
                                          {"=>", "<=", "<=>"}};
    int i = s.fwd && s.back ? 2 : s.back ? 1 : 0;
    if (!st_active(s))
        return g->ascii ? "-" : "\u2500";
    return (g->ascii ? asc : uni)[st_reduce(s)][i];
}

/* ================================================================ drawing */

/* A drawn rank, for clicks. */
typedef struct {
    int x, y, w; /* where its label is */
    int rank;    /* the rank */
} Hit;

#define MAX_HITS (MAXR + 8)

/* Everything a layout needs while drawing. */
typedef struct {
    const App *app; /* the state drawn */
    Grid *g;        /* where */
    Rect r;         /* the panel (clip) */
    Links lk;       /* the shown step's links */
    int root;       /* the call's root (0 for unrooted kinds) */
    Hit hits[MAX_HITS]; /* ranks drawn */
    int nhits;      /* hits used */
} Ctx;

typedef struct {
    int x, y; /* column and row */
} Pt;

/* Columns of v in decimal. */
static int digits(int v) { return snprintf(NULL, 0, "%d", v); }

static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

/* Role and attributes of rank q's label. */
static Role node_role(const Ctx *c, int q, unsigned *attr)
{
    *attr = 0;
    if (q < 0)
        return ROLE_DIM;
    if (q < MAXR && c->lk.busy[q])
        *attr |= GRID_BOLD;
    if (coll_is_rooted(c->app->scene->call.kind) && q == c->root)
        *attr |= GRID_UNDER;
    return c->app->view.sel_rank == q ? ROLE_SELECT : ROLE_NODE;
}

/* Rank q's label (or text) at (x, y); returns its width. */
static int draw_node(Ctx *c, int x, int y, int q, const char *text)
{
    unsigned attr;
    Role role = node_role(c, q, &attr);
    char buf[16];
    if (!text) {
        snprintf(buf, sizeof buf, "%d", q);
        text = buf;
    }
    int w = grid_text(c->g, c->r, x, y, -1, role, attr, text);
    if (q >= 0 && c->nhits < MAX_HITS)
        c->hits[c->nhits++] = (Hit){x, y, (int)strspn(text, "0123456789"), q};
    return w;
}

/* Which side of `from` the adjacent (or aligned) point `to` is on. */
static unsigned side_of(Pt from, Pt to)
{
    if (to.y < from.y)
        return SIDE_U;
    if (to.y > from.y)
        return SIDE_D;
    return to.x < from.x ? SIDE_L : SIDE_R;
}

/* Most cells of one drawn link. */
#define MAX_PATH 512

/* A link along cells from node cell a to node cell b. */
typedef struct {
    Pt a, b;           /* the node cells at either end */
    Pt cell[MAX_PATH]; /* the line's cells, from a's side to b's */
    int n;             /* cells used */
} Path;

/* Extend the path in a straight line up to and including `to`. */
static void path_to(Path *p, Pt to)
{
    Pt at = p->n ? p->cell[p->n - 1] : p->a;
    if (p->n == 0 && at.x == to.x && at.y == to.y)
        return;
    while ((at.x != to.x || at.y != to.y) && p->n < MAX_PATH) {
        at.x += (to.x > at.x) - (to.x < at.x);
        at.y += (to.y > at.y) - (to.y < at.y);
        p->cell[p->n++] = at;
    }
}

/* Draw a path in the state s (fwd: a -> b). */
static void draw_path(Ctx *c, const Path *p, LinkSt s)
{
    bool red = st_reduce(s);
    Role role = st_role(s);
    unsigned attr = st_attr(s);
    for (int i = 0; i < p->n; i++) {
        Pt at = p->cell[i];
        Pt prev = i ? p->cell[i - 1] : p->a;
        Pt next = i + 1 < p->n ? p->cell[i + 1] : p->b;
        unsigned back = side_of(at, prev), fwd = side_of(at, next);
        uint32_t ch = line_glyph(c->g, back | fwd, red);
        bool hf = s.fwd && i == p->n - 1, hb = s.back && i == 0;
        if (hf && hb)
            ch = both_glyph(c->g, fwd & (SIDE_U | SIDE_D), red);
        else if (hf)
            ch = head_glyph(c->g, fwd, red);
        else if (hb)
            ch = head_glyph(c->g, back, red);
        grid_put(c->g, c->r, at.x, at.y, ch, role, attr);
    }
}

/* ================================================================ tokens */

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

/* One item of a flowed list: up to three pieces of text. */
typedef struct {
    char text[3][24]; /* pieces */
    Role role[3];     /* each piece's role */
    unsigned attr[3]; /* and attributes */
    int rank[3];      /* the rank a click on each piece selects, or -1 */
} Token;

/* A token of no pieces, nothing clickable. */
static Token token_empty(void)
{
    return (Token){.rank = {-1, -1, -1}};
}

static int token_width(const Token *t)
{
    int w = 0;
    for (int i = 0; i < 3; i++)
        w += grid_text_width(t->text[i]);
    return w;
}

/* Flow tokens into rows of area; when they do not all fit the last place
 * says how many are left out. Returns the rows used. */
static int flow_tokens(Ctx *c, Rect area, const Token *t, int n)
{
    int x = area.x, y = area.y;
    for (int i = 0; i < n; i++) {
        int w = token_width(&t[i]);
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
            if (t[i].rank[k] >= 0 && c->nhits < MAX_HITS)
                c->hits[c->nhits++] = (Hit){x, y, pw, t[i].rank[k]};
            x += pw;
        }
        x++;
    }
    return y - area.y + 1;
}

/* A token "a<arrow>b" for the link a - b. */
static Token pair_token(Ctx *c, int a, int b, LinkSt s)
{
    Token t = token_empty();
    unsigned at;
    t.rank[0] = a;
    t.rank[2] = b;
    t.role[0] = node_role(c, a, &at);
    t.attr[0] = at;
    t.role[2] = node_role(c, b, &at);
    t.attr[2] = at;
    snprintf(t.text[0], sizeof t.text[0], "%d", a);
    snprintf(t.text[1], sizeof t.text[1], "%s", arrow_text(c->g, s));
    snprintf(t.text[2], sizeof t.text[2], "%d", b);
    t.role[1] = st_role(s);
    t.attr[1] = st_attr(s);
    return t;
}

/* Tokens for every active link not drawn yet, by sender, marking them
 * drawn. Returns how many (at most cap). */
static int pair_tokens(Ctx *c, Token *t, int cap)
{
    int n = 0, p = imin(c->lk.p, MAXR);
    for (int a = 0; a < p; a++)
        for (int b = 0; b < p; b++) {
            if (a == b || c->lk.used[a][b] || !c->lk.op[a][b])
                continue;
            LinkSt s = link_take(&c->lk, a, b);
            if (n < cap)
                t[n++] = pair_token(c, a, b, s);
        }
    return n;
}

/* ================================================================ footer */

/* Lines under the shape: active links it has no line for, then the
 * step's counts and the legend; fewer in small panels. */
static int foot_rows(const Ctx *c)
{
    return c->r.h < 5 ? 0 : c->r.h < 8 ? 1 : 2;
}

/* Whether some active link of the step has not been drawn. */
static bool any_extra(const Ctx *c)
{
    int p = imin(c->lk.p, MAXR);
    for (int a = 0; a < p; a++)
        for (int b = 0; b < p; b++)
            if (a != b && c->lk.op[a][b] && !c->lk.used[a][b])
                return true;
    return false;
}

/* The step's links by kind (or the initial state), then the legend. */
static void draw_counts(Ctx *c, int y)
{
    Rect r = c->r;
    int x = r.x;
    if (!c->lk.shown) {
        x += grid_printf(c->g, r, x, y, -1, ROLE_DIM, 0, "%d ranks, initial "
                         "state  ", c->lk.p);
    } else {
        int nc = c->lk.nlinks[XFER_COPY], nr = c->lk.nlinks[XFER_REDUCE];
        x += grid_text(c->g, r, x, y, -1, ROLE_DIM, 0, "links:");
        if (nc)
            x += grid_printf(c->g, r, x, y, -1, ROLE_COPY, 0, " %d copy", nc);
        if (nr)
            x += grid_printf(c->g, r, x, y, -1, ROLE_REDUCE, 0, "%s %d reduce",
                             nc ? "," : "", nr);
        if (!nc && !nr)
            x += grid_text(c->g, r, x, y, -1, ROLE_DIM, 0, " none");
        if (c->lk.nlocal)
            x += grid_printf(c->g, r, x, y, -1, ROLE_DIM, 0, ", %d local",
                             c->lk.nlocal);
        x += grid_text(c->g, r, x, y, -1, ROLE_DIM, 0, "  ");
    }
    static const XferOp ops[2] = {XFER_COPY, XFER_REDUCE};
    for (int i = 0; i < 2 && x + 10 <= r.x + r.w; i++) {
        LinkSt s = {(uint8_t)(1 + ops[i]), 0};
        x += grid_text(c->g, r, x, y, -1, st_role(s), 0,
                       arrow_text(c->g, s));
        x += grid_printf(c->g, r, x, y, -1, ROLE_DIM, 0, " %s ",
                         xfer_op_name(ops[i]));
    }
}

/* "also 0->4 2->6": the active links the shape has no line for. */
static void draw_extras(Ctx *c, int y)
{
    Token t[MAXR * 2];
    int n = pair_tokens(c, t, MAXR * 2);
    Rect line = rect_clip((Rect){c->r.x, y, c->r.w, 1}, c->r);
    int x = line.x + grid_text(c->g, line, line.x, y, -1, ROLE_DIM, 0,
                               "also ");
    flow_tokens(c, (Rect){x, y, line.x + line.w - x, 1}, t, n);
}

/* ================================================================ ring, chain */

/* Ranks along a line (chain) or a closed line (ring), in serpentine rows;
 * an ellipsis slot stands for the ranks that do not fit. */
typedef struct {
    bool ring;          /* the last slot links back to the first */
    int n;              /* slots */
    int pos[MAXR + 1];  /* order position per slot, -1 for the ellipsis */
    int m;              /* slots per row */
    int rows;           /* node rows */
    int lw;             /* label width */
    int gap;            /* columns between labels */
    int pad;            /* blank columns either side of a link */
    int x0, y0;         /* first slot (left of row 0) */
} Serp;

/* Rank at position i of the line: counted from the root. */
static int order_rank(const Ctx *c, int i) { return (c->root + i) % c->lk.p; }

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
    for (int n = p; n >= imin(p, 3); n--) {
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

static Pt serp_at(const Serp *s, int i)
{
    int row = i / s->m, col = i % s->m;
    if (row % 2)
        col = s->m - 1 - col;
    return (Pt){s->x0 + col * (s->lw + s->gap), s->y0 + 2 * row};
}

/* The link between slots i and j = i + 1: real ranks, or the link into
 * and out of the ellipsis (the ranks next to it). */
static LinkSt serp_link(Ctx *c, const Serp *s, int i, int j)
{
    int a = s->pos[i], b = s->pos[j], p = c->lk.p;
    if (a < 0)
        a = (b - 1 + p) % p;
    if (b < 0)
        b = (a + 1) % p;
    return link_take(&c->lk, order_rank(c, a), order_rank(c, b));
}

/* Path from slot i to the next slot on its row, or down to the next row. */
static void serp_path(const Serp *s, int i, Path *pa)
{
    Pt a = serp_at(s, i), b = serp_at(s, i + 1);
    pa->n = 0;
    if (a.y != b.y) {
        pa->a = a, pa->b = b;
        path_to(pa, (Pt){a.x, a.y + 1});
        return;
    }
    bool right = b.x > a.x;
    int d = s->pad;
    pa->a = right ? (Pt){a.x + s->lw - 1 + d, a.y} : (Pt){a.x - d, a.y};
    pa->b = right ? (Pt){b.x - d, b.y} : (Pt){b.x + s->lw - 1 + d, b.y};
    path_to(pa, (Pt){right ? b.x - 1 - d : b.x + s->lw + d, a.y});
}

/* The ring's way back from the last slot to the first. */
static void serp_return(const Serp *s, Path *pa)
{
    Pt a = serp_at(s, s->n - 1), z = serp_at(s, 0);
    pa->n = 0;
    pa->a = a;
    pa->b = z;
    if (s->rows == 1) {
        path_to(pa, (Pt){a.x, a.y + 1});
        path_to(pa, (Pt){z.x, a.y + 1});
        path_to(pa, (Pt){z.x, z.y + 1});
        return;
    }
    int mx = s->rows > 2 ? z.x - 2 : z.x;
    if (a.x == mx && s->rows == 2) {
        path_to(pa, (Pt){a.x, a.y - 1});
        return;
    }
    pa->a.x -= s->pad;
    path_to(pa, (Pt){a.x - 1 - s->pad, a.y});
    path_to(pa, (Pt){mx, a.y});
    path_to(pa, (Pt){mx, s->rows > 2 ? z.y : z.y + 1});
    if (s->rows > 2)
        path_to(pa, (Pt){z.x - 1, z.y});
}

/* The ellipsis slot: active when a link it hides is. */
static void draw_ellipsis(Ctx *c, const Serp *s, int i)
{
    int from = s->pos[i - 1], to = s->pos[i + 1];
    LinkSt any = {0, 0};
    for (int k = from + 1; k < to; k++) {
        LinkSt l = link_take(&c->lk, order_rank(c, k), order_rank(c, k + 1));
        any.fwd = (uint8_t)imax(any.fwd, imax(l.fwd, l.back));
    }
    Pt at = serp_at(s, i);
    grid_put(c->g, c->r, at.x, at.y, grid_glyph(c->g, GL_ELLIPSIS),
             st_active(any) ? st_role(any) : ROLE_DIM, st_attr(any));
}

static int draw_serp(Ctx *c, Rect area, bool ring)
{
    Serp s = {.ring = ring};
    if (!serp_fit(&s, c->lk.p, area.w, area.h))
        return -1;
    s.pad = s.gap >= 5;
    s.x0 = area.x + (area.w - serp_width(&s, s.rows)) / 2 +
           (ring && s.rows > 2 ? 2 : 0);
    s.y0 = area.y + (area.h - serp_height(&s, s.rows)) / 2;
    Path pa;
    /* Two ranks in a ring: each of the two lines shows one direction. */
    bool one_way = ring && s.n == 2;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i + 1 < s.n; i++) {
            LinkSt l = serp_link(c, &s, i, i + 1);
            l.back = one_way ? 0 : l.back;
            serp_path(&s, i, &pa);
            if (st_active(l) == pass)
                draw_path(c, &pa, l);
        }
        if (ring && s.n > 1) {
            LinkSt l = serp_link(c, &s, s.n - 1, 0);
            l.back = one_way ? 0 : l.back;
            serp_return(&s, &pa);
            if (st_active(l) == pass)
                draw_path(c, &pa, l);
        }
    }
    for (int i = 0; i < s.n; i++) {
        Pt at = serp_at(&s, i);
        if (s.pos[i] < 0)
            draw_ellipsis(c, &s, i);
        else
            draw_node(c, at.x, at.y, order_rank(c, s.pos[i]), NULL);
    }
    return serp_height(&s, s.rows);
}

/* ================================================================ trees */

/* Most trees drawn side by side (a double binary tree has two). */
#define MAX_TREES 4

/* Parent/child edges derived from the schedule: every pair of ranks that
 * exchange data is an edge; its last use goes down the tree (root to
 * leaves) except in reduce and gather, which end going up. A rank with
 * several parents belongs to several trees, told apart by the part of the
 * data (source offset) their edges carry. */
typedef struct {
    int ntrees;                  /* trees */
    bool multi;                  /* trees told apart by data part */
    size_t key[MAX_TREES];       /* each tree's data part, when multi */
    int par[MAX_TREES][MAXR];    /* parent per tree, -1 for none */
    int nkids[MAX_TREES][MAXR];  /* children per tree */
    bool member[MAX_TREES][MAXR];/* the rank is in the tree */
} Forest;

/* One edge use: the pair, the data part, and who was the parent. */
typedef struct {
    int a, b;      /* the ranks, a < b */
    size_t key;    /* source offset of the transfer (the data part) */
    int parent;    /* a or b */
} EdgeUse;

#define MAX_EDGES (4 * MAXR)

/* Record the last use of each (pair, part) into e[0 .. *n). */
static void edge_uses(const Schedule *s, EdgeUse *e, int *n)
{
    bool up = s->call.kind == COLL_REDUCE || s->call.kind == COLL_GATHER;
    *n = 0;
    for (size_t x = 0; x < s->nxfers; x++) {
        const Transfer *t = &s->xfers[x];
        if (t->src == t->dst || t->src >= MAXR || t->dst >= MAXR)
            continue;
        int a = imin(t->src, t->dst), b = imax(t->src, t->dst), i = 0;
        while (i < *n && (e[i].a != a || e[i].b != b || e[i].key != t->src_off))
            i++;
        if (i == *n && *n == MAX_EDGES)
            continue;
        e[i] = (EdgeUse){a, b, t->src_off, up ? t->dst : t->src};
        *n += i == *n;
    }
}

/* Tree index of data part `key`, adding it when new; -1 when full. */
static int tree_of(size_t *keys, int *ntrees, size_t key)
{
    for (int t = 0; t < *ntrees; t++)
        if (keys[t] == key)
            return t;
    if (*ntrees == MAX_TREES)
        return -1;
    keys[*ntrees] = key;
    return (*ntrees)++;
}

/* Whether making u the parent of v in tree t closes a cycle. */
static bool makes_cycle(const Forest *f, int t, int u, int v)
{
    for (int x = u, hops = 0; x >= 0 && hops <= MAXR; x = f->par[t][x], hops++)
        if (x == v)
            return true;
    return false;
}

static void forest_build(const Schedule *s, int p, Forest *f)
{
    EdgeUse e[MAX_EDGES];
    int n;
    bool multi = false;
    edge_uses(s, e, &n);
    memset(f, 0, sizeof *f);
    memset(f->par, -1, sizeof f->par);
    for (int i = 0; i < n; i++) {
        int kid = e[i].parent == e[i].a ? e[i].b : e[i].a;
        multi |= f->par[0][kid] >= 0 && f->par[0][kid] != e[i].parent;
        f->par[0][kid] = e[i].parent;
    }
    memset(f->par, -1, sizeof f->par);
    f->ntrees = multi ? 0 : 1;
    f->multi = multi;
    for (int i = 0; i < n; i++) {
        int t = multi ? tree_of(f->key, &f->ntrees, e[i].key) : 0;
        int u = e[i].parent, v = u == e[i].a ? e[i].b : e[i].a;
        if (t < 0 || f->par[t][v] >= 0 || makes_cycle(f, t, u, v))
            continue;
        f->par[t][v] = u;
        f->nkids[t][u]++;
        f->member[t][u] = f->member[t][v] = true;
    }
    if (f->ntrees == 0)
        f->ntrees = 1;
    for (int r = 0; r < p && f->ntrees == 1; r++)
        f->member[0][r] = true;
}

/* A forest drawn down to depth `fold`: deeper ranks fold into their
 * ancestor at that depth, which shows as "4(+15)". */
typedef struct {
    const Forest *f;   /* the trees */
    int fold;          /* deepest level drawn */
    int depth[MAX_TREES][MAXR]; /* distance from the root */
    int below[MAX_TREES][MAXR]; /* ranks under it */
    int height;        /* deepest level of any tree */
    int x[MAXR];       /* column of each drawn rank (current tree) */
} TreeLay;

static void tree_measure(const Forest *f, int p, TreeLay *tl)
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
            tl->height = imax(tl->height, d);
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
    int own = label_w(tl, t, v) + 1, sum = 0;
    if (folded(tl, t, v) || tl->f->nkids[t][v] == 0)
        return own;
    for (int c = 0; c < p; c++)
        if (tl->f->par[t][c] == v)
            sum += sub_width(tl, t, p, c);
    return imax(own, sum);
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
    tl->x[v] = imin(tl->x[v], x0 + w - 1 - label_w(tl, t, v));
}

static bool is_root(const Forest *f, int t, int v)
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
            *h = imax(*h, imin(tl->depth[t][v], tl->fold));
    *h = 2 * *h + 1 + (tl->f->ntrees > 1);
    if (tl->f->ntrees > 1) /* room for the title "tree N" */
        *w = imax(*w, 7);
}

/* The state of tree t's edge u - v: of trees told apart by data part,
 * only the transfers of t's part. */
static LinkSt tree_link(Ctx *c, const Forest *f, int t, int u, int v)
{
    LinkSt s = link_take(&c->lk, u, v);
    if (f->multi && s.fwd && c->lk.key[u][v] != f->key[t])
        s.fwd = 0;
    if (f->multi && s.back && c->lk.key[v][u] != f->key[t])
        s.back = 0;
    return s;
}

/* Whether w hangs (somewhere) below v in tree t. */
static bool hangs_below(const Forest *f, int t, int w, int v)
{
    for (int u = f->par[t][w], hops = 0; u >= 0 && hops <= MAXR;
         u = f->par[t][u], hops++)
        if (u == v)
            return true;
    return false;
}

/* The state of every edge folded into v, marking them drawn. */
static LinkSt folded_state(Ctx *c, const TreeLay *tl, int t, int p, int v)
{
    LinkSt any = {0, 0};
    for (int w = 0; w < p; w++) {
        if (tl->f->par[t][w] < 0 || !hangs_below(tl->f, t, w, v))
            continue;
        LinkSt l = tree_link(c, tl->f, t, tl->f->par[t][w], w);
        any.fwd = (uint8_t)imax(any.fwd, imax(l.fwd, l.back));
    }
    return any;
}

/* Sides the connector cell at column x under parent v joins. */
static unsigned kid_mask(const TreeLay *tl, int t, int p, int v, int x,
                         int lo, int hi)
{
    unsigned m = (x > lo ? SIDE_L : 0) | (x < hi ? SIDE_R : 0) |
                 (x == tl->x[v] ? SIDE_U : 0);
    for (int k = 0; k < p; k++)
        if (tl->f->par[t][k] == v && tl->x[k] == x)
            m |= SIDE_D;
    return m;
}

/* The connector row under parent v: a line over its children, the edges
 * the step uses marked, with the arrow head over the child. */
static void draw_kids(Ctx *c, const TreeLay *tl, int t, int p, int v, int y)
{
    int lo = tl->x[v], hi = tl->x[v];
    for (int k = 0; k < p; k++)
        if (tl->f->par[t][k] == v)
            lo = imin(lo, tl->x[k]), hi = imax(hi, tl->x[k]);
    for (int x = lo; x <= hi; x++)
        grid_put(c->g, c->r, x, y,
                 line_glyph(c->g, kid_mask(tl, t, p, v, x, lo, hi), false),
                 ROLE_LINK, 0);
    for (int k = 0; k < p; k++) {
        LinkSt s = tl->f->par[t][k] == v ? tree_link(c, tl->f, t, v, k)
                                         : (LinkSt){0, 0};
        if (!st_active(s))
            continue;
        bool red = st_reduce(s);
        int dir = tl->x[k] > tl->x[v] ? 1 : -1;
        for (int x = tl->x[v]; x != tl->x[k]; x += dir)
            grid_put(c->g, c->r, x, y,
                     line_glyph(c->g, kid_mask(tl, t, p, v, x, lo, hi), red),
                     st_role(s), GRID_BOLD);
        uint32_t ch = s.fwd && s.back ? both_glyph(c->g, true, red)
                    : head_glyph(c->g, s.fwd ? SIDE_D : SIDE_U, red);
        grid_put(c->g, c->r, tl->x[k], y, ch, st_role(s), GRID_BOLD);
    }
}

/* Draw tree t with its top-left corner at (x0, y0). */
static void draw_tree(Ctx *c, TreeLay *tl, int t, int x0, int y0)
{
    int p = imin(c->lk.p, MAXR), x = x0;
    if (tl->f->ntrees > 1)
        grid_printf(c->g, c->r, x0, y0++, -1, ROLE_TITLE, 0, "tree %d", t + 1);
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
        LinkSt hid = folded(tl, t, v) ? folded_state(c, tl, t, p, v)
                                      : (LinkSt){0, 0};
        draw_node(c, tl->x[v], y0 + 2 * d, v, text);
        if (st_active(hid))
            grid_paint(c->g, rect_clip((Rect){tl->x[v] + digits(v), y0 + 2 * d,
                                              label_w(tl, t, v) - digits(v), 1},
                                       c->r), st_role(hid), GRID_BOLD);
    }
}

/* Fit the forest: the deepest fold that fits, trees side by side or one
 * above the other. Returns the rows used, or -1. */
static int draw_forest(Ctx *c, Rect area)
{
    int p = imin(c->lk.p, MAXR);
    Forest f;
    TreeLay tl;
    forest_build(&c->app->scene->sched, p, &f);
    tree_measure(&f, p, &tl);
    for (tl.fold = tl.height; tl.fold >= 0; tl.fold--) {
        int w[MAX_TREES], h[MAX_TREES], sw = 0, sh = 0, tw = 0, th = 0;
        for (int t = 0; t < f.ntrees; t++) {
            tree_size(&tl, t, p, &w[t], &h[t]);
            sw += w[t] + (t ? 1 : 0), sh = imax(sh, h[t]);
            tw = imax(tw, w[t]), th += h[t];
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

/* ================================================================ star */

/* The star's centre: the root, else the rank with the most peers. */
static int star_centre(const Ctx *c)
{
    const Schedule *s = &c->app->scene->sched;
    int p = imin(c->lk.p, MAXR), best = 0, most = -1;
    if (coll_is_rooted(s->call.kind))
        return c->root;
    int peers[MAXR] = {0};
    uint64_t seen[MAXR] = {0};
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
static Token spoke_token(Ctx *c, int lo, int hi, LinkSt s)
{
    Token t = token_empty();
    t.rank[1] = lo == hi ? lo : -1;
    uint32_t ch = s.fwd && s.back ? both_glyph(c->g, true, st_reduce(s))
                : s.fwd ? head_glyph(c->g, SIDE_D, st_reduce(s))
                : s.back ? head_glyph(c->g, SIDE_U, st_reduce(s))
                         : grid_glyph(c->g, GL_DOT);
    utf8_of(ch, t.text[0]);
    t.role[0] = st_role(s);
    t.attr[0] = st_attr(s);
    unsigned at;
    t.role[1] = lo == hi ? node_role(c, lo, &at) : ROLE_NODE;
    t.attr[1] = lo == hi ? at : 0;
    if (lo == hi)
        snprintf(t.text[1], sizeof t.text[1], "%d", lo);
    else
        snprintf(t.text[1], sizeof t.text[1], "%d-%d", lo, hi);
    return t;
}

/* Rows n tokens take in width w. */
static int flow_rows(const Token *t, int n, int w)
{
    int x = 0, rows = n > 0;
    for (int i = 0; i < n; i++) {
        int tw = token_width(&t[i]);
        if (x > 0 && x + tw > w)
            x = 0, rows++;
        x += tw + 1;
    }
    return rows;
}

/* The spokes, one token each, or runs of equal state as ranges when one
 * each does not fit. */
static int spoke_tokens(Ctx *c, int ctr, Token *t, Rect area)
{
    int p = imin(c->lk.p, MAXR), n = 0;
    LinkSt st[MAXR];
    for (int l = 0; l < p; l++)
        st[l] = l == ctr ? (LinkSt){0, 0} : link_take(&c->lk, ctr, l);
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

static int draw_star(Ctx *c, Rect area)
{
    int ctr = star_centre(c), x = area.x;
    Token t[MAXR];
    if (area.h < 2)
        return -1;
    x += draw_node(c, x, area.y, ctr, NULL);
    grid_printf(c->g, area, x, area.y, -1, ROLE_DIM, 0, " centre, %d spokes",
                c->lk.p - 1);
    Rect rest = {area.x, area.y + 1, area.w, area.h - 1};
    int n = spoke_tokens(c, ctr, t, rest);
    return 1 + flow_tokens(c, rest, t, n);
}

/* ================================================================ pairs */

/* How the step pairs ranks: every link a -> b at the same xor distance
 * (a hypercube dimension), or the same offset b - a mod p; 0 when mixed
 * or idle. */
static void step_pattern(const Schedule *s, size_t k, int *xor_d, int *off)
{
    const Step *st = &s->steps[k];
    int p = s->call.nranks, x = -1, o = -1;
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &s->xfers[i];
        if (t->src == t->dst)
            continue;
        int tx = t->src ^ t->dst, to = ((t->dst - t->src) % p + p) % p;
        x = x == -1 || x == tx ? tx : 0;
        o = o == -1 || o == to ? to : 0;
    }
    *xor_d = x > 0 && (x & (x - 1)) == 0 ? x : 0;
    *off = o > 0 ? o : 0;
}

/* An offset mod p as the shorter way round: p - 2 is -2. */
static int signed_off(int off, int p) { return 2 * off > p ? off - p : off; }

/* One line on the pairing: this step's, or every step's in the initial
 * state. */
static void draw_pattern(Ctx *c, Rect area)
{
    const Schedule *s = &c->app->scene->sched;
    int x = area.x, xd, off, seen[16], n = 0;
    if (c->lk.shown) {
        step_pattern(s, c->lk.k, &xd, &off);
        if (xd)
            grid_printf(c->g, area, x, area.y, -1, ROLE_DIM, 0,
                        "pairs at distance %d", xd);
        else if (off)
            grid_printf(c->g, area, x, area.y, -1, ROLE_DIM, 0,
                        "r sends to r%+d mod %d", signed_off(off, c->lk.p),
                        c->lk.p);
        else
            grid_text(c->g, area, x, area.y, -1, ROLE_DIM, 0,
                      "pairs of this step");
        return;
    }
    x += grid_text(c->g, area, x, area.y, -1, ROLE_DIM, 0, "pairs at distance");
    for (size_t k = 0; k < s->nsteps; k++) {
        step_pattern(s, k, &xd, &off);
        int v = xd ? xd : off, i = 0;
        while (i < n && seen[i] != v)
            i++;
        if (v == 0 || i < n || n == 16)
            continue;
        seen[n++] = v;
        x += grid_printf(c->g, area, x, area.y, -1, ROLE_DIM, 0,
                         xd ? " %d" : " %+d", xd ? v : signed_off(v, c->lk.p));
    }
}

/* The step's pairs as tokens "3->7", then the idle ranks. */
static int draw_pairs(Ctx *c, Rect area)
{
    Token t[MAXR * 2 + MAXR + 1];
    int p = imin(c->lk.p, MAXR);
    if (area.h < 2)
        return -1;
    draw_pattern(c, area);
    int n = pair_tokens(c, t, MAXR * 2), busy = 0;
    for (int r = 0; r < p; r++)
        busy += c->lk.busy[r];
    if (busy > 0 && busy < p) {
        t[n] = token_empty();
        snprintf(t[n].text[0], sizeof t[n].text[0], "idle:");
        t[n++].role[0] = ROLE_DIM;
    }
    for (int r = 0; r < p; r++)
        if (!c->lk.busy[r]) {
            Token *k = &t[n++];
            *k = token_empty();
            k->rank[0] = r;
            unsigned at;
            k->role[0] = node_role(c, r, &at);
            k->attr[0] = at;
            snprintf(k->text[0], sizeof k->text[0], "%d", r);
        }
    Rect rest = {area.x, area.y + 1, area.w, area.h - 1};
    return 1 + flow_tokens(c, rest, t, n);
}

/* ================================================================ matrix */

/* Everybody with everybody: senders down, receivers across. */
static int draw_matrix(Ctx *c, Rect area)
{
    int p = imin(c->lk.p, MAXR), lw = 1 + digits(p - 1);
    int cw = lw + 1 + 2 * p <= area.w ? 2 : 1;
    if (p + 1 > area.h || lw + 1 + cw * p > area.w)
        return -1;
    area = rect_clip((Rect){area.x + (area.w - (lw + 1 + cw * p)) / 2,
                            area.y + (area.h - (p + 1)) / 2, lw + 1 + cw * p,
                            p + 1}, area);
    int x0 = area.x + lw + 1;
    grid_text(c->g, area, area.x, area.y, lw + 1, ROLE_DIM, 0, "to");
    for (int d = 0; d < p; d++)
        grid_printf(c->g, area, x0 + cw * d, area.y, 1, ROLE_DIM, 0, "%d",
                    d % 10);
    for (int s = 0; s < p; s++) {
        int y = area.y + 1 + s;
        unsigned at;
        Role role = node_role(c, s, &at);
        int w = grid_printf(c->g, area, area.x, y, lw, role, at, "r%d", s);
        if (c->nhits < MAX_HITS)
            c->hits[c->nhits++] = (Hit){area.x, y, w, s};
        for (int d = 0; d < p; d++) {
            LinkSt l = link_take(&c->lk, s, d);
            l.back = 0;
            uint32_t ch = s == d ? (c->lk.op[s][s] ? grid_glyph(c->g, GL_BULLET)
                                                   : ' ')
                        : st_active(l) ? head_glyph(c->g, SIDE_R, st_reduce(l))
                                       : grid_glyph(c->g, GL_DOT);
            Role rr = s == d ? ROLE_COPY : st_role(l);
            grid_put(c->g, area, x0 + cw * d, y, ch, rr, st_attr(l));
        }
    }
    return p + 1;
}

/* ================================================================ panel */

/* Draw the shape of the algorithm in area; the pairs list when it does
 * not fit. */
static void draw_shape(Ctx *c, Rect area)
{
    int used = -1;
    switch (c->app->scene->algo->topo) {
    case TOPO_RING:
        used = draw_serp(c, area, true);
        break;
    case TOPO_CHAIN:
        used = draw_serp(c, area, false);
        break;
    case TOPO_TREE:
        used = draw_forest(c, area);
        break;
    case TOPO_STAR:
        used = draw_star(c, area);
        break;
    case TOPO_FULL:
        used = draw_matrix(c, area);
        break;
    case TOPO_HYPERCUBE:
    case TOPO_COUNT:
        break;
    }
    if (used < 0) {
        c->nhits = 0;
        grid_fill(c->g, area, ' ', ROLE_NORMAL, 0);
        draw_pairs(c, area);
    }
}

static void topo_render(Ctx *c)
{
    Rect r = c->r;
    if (r.w < 3 || r.h < 1)
        return;
    if (c->lk.p > MAXR) {
        grid_printf(c->g, r, r.x, r.y, -1, ROLE_DIM, 0,
                    "the topology shows up to %d ranks", MAXR);
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

static void ctx_init(Ctx *c, const App *app, Grid *g, Rect r)
{
    const Scene *sc = app->scene;
    c->app = app;
    c->g = g;
    c->r = r;
    c->nhits = 0;
    c->root = coll_is_rooted(sc->call.kind) ? sc->call.root : 0;
    links_init(app, &c->lk);
}

static void topology_draw(const App *app, Grid *g, Rect r)
{
    Ctx c;
    ctx_init(&c, app, g, r);
    topo_render(&c);
}

/* A click on a rank selects it: the panel is drawn again off screen to
 * find what is where. */
static bool topology_click(const App *app, Rect r, int x, int y,
                           Request *req)
{
    Grid g;
    Ctx c;
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
    .title = "Topology",
    .framed = true,
    .draw = topology_draw,
    .click = topology_click,
};
