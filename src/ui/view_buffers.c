/* view_buffers.c - the main picture: one row per rank, its buffers split
 * into cells, each cell coloured by how many ranks' inputs it holds (from
 * the symbolic state), checked against the real buffers read back from the
 * backend, the cells of the shown step emphasised, and the selected cell's
 * contributions and history spelled out underneath.
 *
 * Wide cells show who contributed ("3": rank 3's input, "0-2+5": those
 * ranks' inputs combined, "#5": five inputs), as wide as their labels
 * with a blank between; when the cells do not fit they become one column
 * each (a shade per level) and scroll sideways. Ranks scroll vertically. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui/i18n.h"
#include "ui/view.h"
#include "core/num.h"

/* What one screen column of a rank row shows. */
typedef enum { COL_NONE, COL_CELL, COL_PAD, COL_SEP } ColKind;

typedef struct {
    uint8_t kind; /* ColKind */
    uint8_t buf;  /* BufId of a cell column */
    size_t elem;  /* element of a cell column */
} Col;

#define MAX_COLS 1024

/* Where everything of the picture goes inside the panel. */
typedef struct {
    int label_w;             /* columns of the rank labels */
    int cell_w;              /* columns of a wide cell's text */
    bool wide;               /* cells show text; else one column each */
    bool show[BUF_COUNT];    /* buffers drawn (send goes first when the
                                others only fit without it) */
    int ncols;               /* columns of cols[] in use */
    Col cols[MAX_COLS];      /* the row's columns after the label */
    size_t first_cell;       /* cells scrolled off to the left */
    size_t cells_shown;      /* cells that fit */
    size_t cells_total;      /* cells of a whole row */
    int first_rank;          /* first rank row shown */
    int rows;                /* rank rows that fit */
    int row_h;               /* screen rows per rank (2: presenter mode
                                where they fit) */
    bool details;            /* two detail lines fit under the ranks */
    bool legend;             /* presenter mode's one line of legend,
                                under the ranks (over the last rank's
                                second row where there is no line to
                                spare), where it hides no rank */
} Geom;

/* What a cell shows: the forms of its text, each with a note in the
 * legend; FORM_SHADE where no text fits. */
typedef enum {
    FORM_RANK,  /* "3": one rank's input */
    FORM_BLOCK, /* "3.1": a block of one rank's input */
    FORM_SET,   /* "0-2+5": those ranks' inputs combined */
    FORM_COUNT, /* "#7": seven ranks' inputs combined */
    FORM_ALL,   /* "all": every rank's */
    FORM_EMPTY, /* a dot: nothing yet */
    FORM_SHADE, /* no text fits: the cell's shade */
    FORM_KINDS
} CellForm;

static int digits(int v)
{
    int d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/* Most cells any rank has in buffer b. */
static size_t max_cells(const App *app, BufId b)
{
    const Scene *sc = app->scene;
    size_t m = 0;
    for (int r = 0; r < sc->call.nranks; r++)
        if (scene_buf_cells(sc, r, b) > m)
            m = scene_buf_cells(sc, r, b);
    return m;
}

/* Columns a whole row would take with slots of `slot` columns. */
static size_t row_width(const App *app, const bool *show, int slot, int sep)
{
    size_t w = 0;
    int nb = 0;
    for (int b = 0; b < BUF_COUNT; b++)
        if (show[b]) {
            w += max_cells(app, (BufId)b) * (size_t)slot;
            nb++;
        }
    return w + (size_t)(nb > 1 ? (nb - 1) * sep : 0);
}

static void add_col(Geom *g, int avail, ColKind k, int buf, size_t e)
{
    if (g->ncols < avail && g->ncols < MAX_COLS)
        g->cols[g->ncols++] = (Col){(uint8_t)k, (uint8_t)buf, e};
}

/* Lay the row's columns out from the first shown cell. */
static void map_columns(const App *app, Geom *g, int avail)
{
    size_t skip = g->first_cell;
    int slot = g->wide ? g->cell_w + 1 : 1;
    bool any = false;
    for (int b = 0; b < BUF_COUNT; b++) {
        if (!g->show[b])
            continue;
        if (any && !skip) {
            add_col(g, avail, COL_SEP, b, 0);
            if (g->wide)
                add_col(g, avail, COL_PAD, b, 0);
        }
        any = true;
        for (size_t e = 0; e < max_cells(app, (BufId)b); e++) {
            if (skip) {
                skip--;
                continue;
            }
            if (g->ncols + slot > avail)
                return;
            for (int i = 0; i < slot; i++)
                add_col(g, avail, i < g->cell_w || !g->wide ? COL_CELL
                                                            : COL_PAD, b, e);
            g->cells_shown++;
        }
    }
}

/* The widest cells, from cap down to min columns, whose row of the
 * buffers in show fits avail with a column between cells; 0 when none
 * does. */
static int widest(const App *app, const bool *show, int min, int cap,
                  size_t avail)
{
    for (int w = cap; w >= min && w > 0; w--)
        if (row_width(app, show, w + 1, 2) <= avail)
            return w;
    return 0;
}

/* Whether an input of collective k is one vector (broadcast's, reduce's),
 * never labelled by block. */
static bool one_vector(CollKind k)
{
    return k == COLL_BROADCAST || k == COLL_REDUCE;
}

/* The columns a label of the scene needs to be whole: "r.b" (a rank's
 * block) where inputs have several blocks, else the widest rank. */
static int label_need(const App *app, int base)
{
    const Scene *sc = app->scene;
    int p = sc->call.nranks, need = base;
    if (one_vector(sc->call.kind) || sc->cells <= 0)
        return need;
    size_t most = 0;
    for (int r = 0; r < p; r++) {
        CollLayout l;
        coll_layout(&sc->call, r, &l);
        most = l.in_count > most ? l.in_count : most;
    }
    size_t blocks = (most + (size_t)sc->cells - 1) / (size_t)sc->cells;
    if (blocks > 1) {
        int w = digits(p - 1) + 1 + digits((int)blocks - 1);
        need = w > need ? w : need;
    }
    return need;
}

/* Whether buffer b holds nothing yet on any rank (the Sim's state). */
static bool buf_empty(const App *app, BufId b)
{
    const Scene *sc = app->scene;
    for (int r = 0; r < sc->call.nranks; r++)
        for (size_t e = 0; e < scene_buf_cells(sc, r, b); e++)
            if (sim_nranks_in(&sc->sim, r, b, e))
                return false;
    return true;
}

/* Which shown buffers go first when not all fit, in drop: the send
 * buffer (inputs only, never written); but before the first step, when
 * it is all there is to see and the others are still empty, those
 * others, so that the first picture shows what every rank starts with. */
static void first_to_go(const App *app, const bool *show, bool *drop)
{
    bool start = app->scene->step == 0 && show[BUF_SEND];
    for (int b = 0; b < BUF_COUNT; b++)
        if (b != BUF_SEND && show[b] && !buf_empty(app, (BufId)b))
            start = false;
    for (int b = 0; b < BUF_COUNT; b++)
        drop[b] = show[b] && (b == BUF_SEND) != start;
}

/* The first of these that fits, each with the widest cells it allows:
 * every buffer with cells wide enough for every label and a column
 * between them; the same without the buffers that go first (first_to_go:
 * the send buffer, or at step 0 the empty others); both again with cells
 * that show ranks and counts but may shorten "r.b"; without those, cells
 * down to one column and a blank, a cell whose text does not fit showing
 * its shade; one column per cell (a shade per level, which the legend
 * explains), with and without them (scrolling if need be). Never cells
 * side by side without the column between: "0.00.1" reads as one
 * number. */
static void choose_mode(const App *app, Geom *g, size_t avail, int base,
                        int need, int cap)
{
    enum { NEED, BASE, ONE }; /* the narrowest a mode's cells may be */
    static const struct { bool wide, less; int min; } modes[] = {
        {true, false, NEED}, {true, true, NEED},  {true, false, BASE},
        {true, true, BASE},  {true, true, ONE},   {false, false, ONE},
        {false, true, ONE},
    };
    bool all[BUF_COUNT], drop[BUF_COUNT], kept = false, less = false;
    first_to_go(app, g->show, drop);
    for (int b = 0; b < BUF_COUNT; b++) {
        all[b] = g->show[b];
        kept |= all[b] && !drop[b];
        less |= drop[b];
    }
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        bool last = m + 1 == sizeof modes / sizeof modes[0];
        if (modes[m].less && (!kept || !less))
            continue;
        for (int b = 0; b < BUF_COUNT; b++)
            g->show[b] = all[b] && !(modes[m].less && drop[b]);
        g->wide = modes[m].wide;
        if (!g->wide) {
            if (last || row_width(app, g->show, 1, 1) <= avail)
                return;
            continue;
        }
        int min = modes[m].min == NEED ? need
                : modes[m].min == BASE ? base : 1;
        int w = widest(app, g->show, min, cap > need ? cap : need, avail);
        if (w) {
            g->cell_w = w;
            return;
        }
    }
}

static void geometry(const App *app, Rect r, Geom *g)
{
    const Scene *sc = app->scene;
    int p = sc->call.nranks;
    memset(g, 0, sizeof *g);
    g->label_w = 2 + digits(p - 1);
    /* a cell holds one rank's input unless the collective reduces: then
       room for "#n" and "all" */
    int avail = r.w - g->label_w,
        base = coll_is_reducing(sc->call.kind) ? 1 + digits(p)
                                               : digits(p - 1);
    for (int b = 0; b < BUF_COUNT; b++)
        g->show[b] = scene_buf_shown(sc, (BufId)b);
    /* cells wide enough for "0-3+6" rank sets and "r.b" origins, wider
       in presenter mode; the layout that keeps every label whole first */
    g->cell_w = base;
    int set = 3 * digits(p - 1) + 2; /* "10-12+3" */
    choose_mode(app, g, (size_t)(avail > 0 ? avail : 0), base,
                label_need(app, base),
                app->view.present ? 9 : set > base + 2 ? set : base + 2);
    g->cells_total = row_width(app, g->show, 1, 0);
    size_t fit = (size_t)(avail > 0 ? avail : 0);
    size_t seps = row_width(app, g->show, 1, 1) - g->cells_total;
    size_t max_first = g->wide || g->cells_total + seps <= fit
                           ? 0 : g->cells_total + seps - fit;
    g->first_cell = (size_t)app->view.scroll_cell < max_first
                        ? (size_t)app->view.scroll_cell : max_first;
    map_columns(app, g, avail);
    g->details = r.h >= 6 && !app->view.present;
    g->row_h = app->view.present && r.h - 1 >= 2 * p ? 2 : 1;
    /* presenter mode's legend, where it hides no rank that would show
       without it (over the last rank's second row, which may give way) */
    int need = g->row_h == 2 ? 2 * p - 1 : p;
    g->legend = app->view.present && r.h >= 4 &&
                (r.h - 2 >= need || r.h - 1 < p);
    /* the last rank's second row may give way to the legend */
    int lines = r.h - 1 - (g->details ? 2 : g->legend ? 1 : 0);
    g->rows = num_clamp((lines + g->row_h - 1) / g->row_h, 0, p);
    g->first_rank = num_clamp(app->view.scroll_rank, 0, p - g->rows);
}

/* The line of presenter mode's legend: under the ranks, at most the
 * panel's last. */
static int legend_y(const Geom *g, Rect r)
{
    return num_min(r.y + 1 + g->rows * g->row_h, r.y + r.h - 1);
}

/* ------------------------------------------------------------ a cell */

/* Whether element e of rank r's buffer b is part of its output and holds
 * its final value. */
static bool is_final(const App *app, int r, BufId b, size_t e)
{
    const Scene *sc = app->scene;
    CollLayout l;
    coll_layout(&sc->call, r, &l);
    if (b != l.out_buf || e < l.out_off || e >= l.out_off + l.out_count)
        return false;
    return sim_is_final(&sc->sim, r, e - l.out_off) != 0;
}

/* The single contributor of a cell holding one rank's input. */
static int only_rank(const App *app, int r, BufId b, size_t e)
{
    const Scene *sc = app->scene;
    for (int q = 0; q < sc->call.nranks; q++)
        if (sim_has(&sc->sim, r, b, e, q))
            return q;
    return -1;
}

static size_t elem_index(const App *app, int r, BufId b, size_t e)
{
    return app->scene->sim.base[b][r] + e;
}

/* Role and attributes of a cell. */
static Role cell_role(const App *app, int r, BufId b, size_t e, int n,
                      unsigned *attr)
{
    const Scene *sc = app->scene;
    size_t i = elem_index(app, r, b, e);
    *attr = 0;
    if (sc->written[b] && sc->written[b][i])
        *attr |= GRID_BOLD | GRID_UNDER;
    const AppView *v = &app->view;
    if (v->sel_rank == r && v->sel_buf == (int)b && v->sel_elem == e)
        *attr |= GRID_REVERSE;
    if (sc->check.real_ok && sc->check.bad[b][i])
        return ROLE_WRONG;
    return view_level_role(n, sc->call.nranks, is_final(app, r, b, e));
}

/* The ranks of a cell as a compact set: "0-3+6" (ranks 0 to 3 and 6
 * combined: a '+', never a ',' that reads like the '.' of "0.6", rank 0's
 * block 6), given up (longer than max) as soon as it is longer than max
 * columns. */
static void rank_set(const App *app, int r, BufId b, size_t e, char *out,
                     size_t len, size_t max)
{
    const Scene *sc = app->scene;
    int p = sc->call.nranks;
    size_t at = 0;
    out[0] = '\0';
    for (int q = 0; q < p && at < len && at <= max; q++) {
        if (!sim_has(&sc->sim, r, b, e, q))
            continue;
        int last = q;
        while (last + 1 < p && sim_has(&sc->sim, r, b, e, last + 1))
            last++;
        int k = last > q ? snprintf(out + at, len - at, "%s%d%s%d",
                                    at ? "+" : "", q,
                                    last > q + 1 ? "-" : "+", last)
                         : snprintf(out + at, len - at, "%s%d",
                                    at ? "+" : "", q);
        at += k > 0 ? (size_t)k : 0;
        q = last;
    }
}

/* What a wide cell says, right-aligned in cell_w columns, and in which
 * form: a dot when empty; one rank's input as its rank, and as
 * "rank.block" where the origin's input has several blocks (not
 * broadcast's or reduce's one vector) and the cell is wide enough (so an
 * alltoall's transpose shows); several ranks as their set ("0-3+6")
 * where it fits, "all" for every rank, else their number as "#n" (as
 * perf's "#wrong" counts: never "+n", which reads as "and rank n").
 * FORM_SHADE when not even that fits: the cell then shows its shade. */
static CellForm cell_text(const App *app, const Geom *gm, bool ascii, int r,
                          BufId b, size_t e, int n, char *t, size_t len)
{
    const Scene *sc = app->scene;
    char s[64];
    int w = gm->cell_w < 16 ? gm->cell_w : 16;
    if (n == 0) {
        snprintf(t, len, "%*s", w, ascii ? "." : "\u00B7");
        return FORM_EMPTY;
    }
    if (n == 1) {
        int q = only_rank(app, r, b, e);
        int32_t pos = b == BUF_SEND ? (int32_t)e : sim_pos(&sc->sim, r, b, e);
        CollLayout l;
        coll_layout(&sc->call, q, &l);
        size_t blk = (size_t)sc->cells;
        if (!one_vector(sc->call.kind) && pos >= 0 && blk &&
            l.in_count > blk &&
            snprintf(s, sizeof s, "%d.%zu", q, (size_t)pos / blk) <= w) {
            snprintf(t, len, "%*s", w, s);
            return FORM_BLOCK;
        }
        snprintf(t, len, "%*d", w, q);
        return digits(q) <= w ? FORM_RANK : FORM_SHADE;
    }
    s[0] = '\0';
    if (n < sc->call.nranks)
        rank_set(app, r, b, e, s, sizeof s, (size_t)w);
    if (s[0] && (int)strlen(s) <= w) {
        snprintf(t, len, "%*s", w, s);
        return FORM_SET;
    }
    if (n == sc->call.nranks && w >= 3) {
        snprintf(t, len, "%*s", w, "all");
        return FORM_ALL;
    }
    if (digits(n) >= w)
        return FORM_SHADE;
    snprintf(t, len, "%*s%d", w - digits(n), "#", n);
    return FORM_COUNT;
}

/* Draw cell e of rank r's buffer b at (x, y). */
static void draw_cell(const App *app, const Geom *gm, Grid *g, Rect clip,
                      int x, int y, int r, BufId b, size_t e)
{
    int n = sim_nranks_in(&app->scene->sim, r, b, e);
    unsigned attr;
    Role role = cell_role(app, r, b, e, n, &attr);
    char t[32];
    bool text = gm->wide && cell_text(app, gm, g->ascii, r, b, e, n, t,
                                      sizeof t) != FORM_SHADE;
    if (gm->wide)
        grid_fill(g, rect_clip((Rect){x, y, gm->cell_w, 1}, clip), ' ', role,
                  attr);
    if (text) {
        grid_text(g, clip, x, y, gm->cell_w, role, attr, t);
        return;
    }
    /* the cell's shade, at the right of a wide cell */
    static const Glyph shade[] = {GL_DOT, GL_SHADE1, GL_SHADE2, GL_SHADE3,
                                  GL_BLOCK, GL_CHECK};
    int lvl = role == ROLE_FINAL ? 5
            : role == ROLE_EMPTY ? 0 : (int)(role - ROLE_LEVEL1) + 1;
    grid_put(g, clip, x + (gm->wide ? gm->cell_w - 1 : 0), y,
             grid_glyph(g, role == ROLE_WRONG ? GL_CROSSMARK : shade[lvl]),
             role, attr);
}

/* ------------------------------------------------------------ rows */

/* Whether column c begins a cell of rank's row (one the rank has). */
static bool cell_starts(const App *app, const Geom *gm, int c, int rank)
{
    const Col *col = &gm->cols[c];
    bool start = c == 0 || col->kind != gm->cols[c - 1].kind ||
                 col->elem != gm->cols[c - 1].elem ||
                 col->buf != gm->cols[c - 1].buf;
    return col->kind == COL_CELL && start &&
           col->elem < scene_buf_cells(app->scene, rank, (BufId)col->buf);
}

static void draw_row(const App *app, const Geom *gm, Grid *g, Rect r, int y,
                     int rank)
{
    Role lr = app->view.sel_rank == rank ? ROLE_SELECT : ROLE_NODE;
    grid_printf(g, r, r.x, y, gm->label_w, lr, 0, "r%d", rank);
    int x0 = r.x + gm->label_w;
    for (int c = 0; c < gm->ncols; c++) {
        const Col *col = &gm->cols[c];
        if (col->kind == COL_SEP)
            grid_putg(g, r, x0 + c, y, GL_VLINE, ROLE_BORDER);
        else if (cell_starts(app, gm, c, rank))
            draw_cell(app, gm, g, r, x0 + c, y, rank, (BufId)col->buf,
                      col->elem);
    }
}

/* What the drawn cells show: which forms of text, and whether the shown
 * step wrote one of them (emphasised). */
typedef struct {
    bool form[FORM_KINDS];
    bool written;
} Shown;

static void cells_shown(const App *app, const Geom *gm, bool ascii,
                        Shown *out)
{
    const Scene *sc = app->scene;
    memset(out, 0, sizeof *out);
    for (int i = 0; i < gm->rows; i++) {
        int rank = gm->first_rank + i;
        for (int c = 0; c < gm->ncols; c++) {
            if (!cell_starts(app, gm, c, rank))
                continue;
            BufId b = (BufId)gm->cols[c].buf;
            size_t e = gm->cols[c].elem, k = elem_index(app, rank, b, e);
            char t[32];
            int n = sim_nranks_in(&sc->sim, rank, b, e);
            out->form[gm->wide ? cell_text(app, gm, ascii, rank, b, e, n, t,
                                           sizeof t)
                               : FORM_SHADE] = true;
            out->written |= sc->written[b] && sc->written[b][k];
        }
    }
}

/* The buffers left out: "send hidden", or before the first step the
 * empty ones left out for the send buffer ("recv empty"). */
static void hidden_note(const App *app, const Geom *gm, char *out,
                        size_t len)
{
    char names[32] = "";
    out[0] = '\0';
    for (int b = 0; b < BUF_COUNT; b++) {
        size_t n = strlen(names);
        if (gm->show[b] || !scene_buf_shown(app->scene, (BufId)b))
            continue;
        if (b == BUF_SEND)
            snprintf(out, len, "%s", _("send hidden"));
        else
            snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "",
                     _(buf_name((BufId)b)));
    }
    if (names[0])
        snprintf(out, len, _("%s empty"), names);
}

/* The line above the ranks: buffer names and what is scrolled away. */
static void draw_heading(const App *app, const Geom *gm, Grid *g, Rect r)
{
    const Scene *sc = app->scene;
    int x0 = r.x + gm->label_w, last = -1;
    for (int c = 0; c < gm->ncols; c++) {
        const Col *col = &gm->cols[c];
        if (col->kind != COL_CELL || col->buf == last)
            continue;
        last = col->buf;
        grid_text(g, r, x0 + c, r.y, -1, ROLE_HEADER, 0,
                  _(buf_name((BufId)col->buf)));
    }
    /* what is out of sight, most important first, as far as it fits */
    char part[3][40] = {"", "", ""}, info[128] = "";
    int p = sc->call.nranks, room = r.w - gm->label_w - 6;
    if (gm->rows < p)
        snprintf(part[0], sizeof part[0], _("ranks %d-%d/%d"), gm->first_rank,
                 gm->first_rank + gm->rows - 1, p);
    if (gm->cells_shown < gm->cells_total)
        snprintf(part[1], sizeof part[1], _("cells %zu-%zu/%zu"), gm->first_cell,
                 gm->first_cell + gm->cells_shown - 1, gm->cells_total);
    hidden_note(app, gm, part[2], sizeof part[2]);
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(info);
        if (part[i][0] && (int)(n + strlen(part[i]) + 2) <= room)
            snprintf(info + n, sizeof info - n, "%s%s", n ? "  " : "", part[i]);
    }
    int w = grid_text_width(info);
    if (w)
        grid_text(g, r, r.x + r.w - w, r.y, -1, ROLE_DIM, 0, info);
}

/* ------------------------------------------------------------ details */

/* "0-3,5" for the ranks whose inputs element e holds. */
static void rank_list(const App *app, int r, BufId b, size_t e, char *out,
                      size_t len)
{
    const Scene *sc = app->scene;
    size_t n = 0;
    int p = sc->call.nranks;
    out[0] = '\0';
    for (int q = 0; q < p && n + 12 < len; q++) {
        if (!sim_has(&sc->sim, r, b, e, q))
            continue;
        int end = q;
        while (end + 1 < p && sim_has(&sc->sim, r, b, e, end + 1))
            end++;
        n += (size_t)snprintf(out + n, len - n, n ? ",%d" : "%d", q);
        if (end > q)
            n += (size_t)snprintf(out + n, len - n, "-%d", end);
        q = end;
    }
}

/* First line: what the selected cell holds, real and expected. */
static void draw_selected(const App *app, Grid *g, Rect r, int y)
{
    const Scene *sc = app->scene;
    int rk = app->view.sel_rank;
    BufId b = (BufId)app->view.sel_buf;
    size_t e = app->view.sel_elem;
    char ranks[160];
    rank_list(app, rk, b, e, ranks, sizeof ranks);
    int32_t pos = sim_pos(&sc->sim, rk, b, e);
    int x = r.x + grid_printf(g, r, r.x, y, -1, ROLE_SELECT, 0, "r%d %s[%zu]",
                              rk, buf_name(b), e);
    if (pos == SIM_EMPTY) {
        grid_text(g, r, x, y, -1, ROLE_DIM, 0, _(": holds no data yet"));
        return;
    }
    bool many = ranks[1] || strchr(ranks, ',');
    x += grid_printf(g, r, x, y, -1, ROLE_NORMAL, 0,
                     many ? _(": ranks %s at %d") : _(": rank %s at %d"),
                     ranks, (int)pos);
    if (!sc->check.real_ok)
        return;
    size_t i = elem_index(app, rk, b, e);
    double real = scene_real_value(sc, rk, b, e);
    double want = scene_expected(sc, rk, b, e);
    grid_printf(g, r, x, y, -1, sc->check.bad[b][i] ? ROLE_ERROR : ROLE_OK, 0,
                _("; real %g, want %g %s"), real, want,
                sc->check.bad[b][i] ? _("WRONG") : _("ok"));
}

/* Second line: the steps so far that wrote the selected cell. */
static void draw_history(const App *app, Grid *g, Rect r, int y)
{
    const Scene *sc = app->scene;
    const Schedule *s = &sc->sched;
    int rk = app->view.sel_rank, x = r.x;
    size_t e = app->view.sel_elem, hits = 0;
    x += grid_text(g, r, x, y, -1, ROLE_DIM, 0, _("history:"));
    for (size_t k = 0; k < sc->step; k++) {
        const Step *st = &s->steps[k];
        for (size_t t = st->first; t < st->first + st->n; t++) {
            const Transfer *tr = &s->xfers[t];
            if (tr->dst != rk || tr->dst_buf != app->view.sel_buf ||
                e < tr->dst_off || e >= tr->dst_off + tr->count)
                continue;
            x += grid_printf(g, r, x, y, -1, tr->op == XFER_REDUCE
                             ? ROLE_REDUCE : ROLE_COPY, 0,
                             _("%s step %zu %s from r%d %s[%zu]"),
                             hits ? ";" : "", k + 1,
                             _(xfer_op_name((XferOp)tr->op)), tr->src,
                             buf_name((BufId)tr->src_buf),
                             tr->src_off + (e - tr->dst_off));
            hits++;
        }
    }
    if (!hits)
        grid_text(g, r, x, y, -1, ROLE_DIM, 0, _(" not written yet (input)"));
}

/* What the levels' glyphs and colours mean, as far as they fit. */
static void draw_levels(Grid *g, Rect r, int y)
{
    /* a glyph per level as well as a colour: monochrome tells them
     * apart (the one-column cells use the same glyphs) */
    static const struct { Role role; Glyph gl; const char *text; } items[] = {
        {ROLE_EMPTY, GL_DOT, N_("empty")},
        {ROLE_LEVEL1, GL_SHADE1, N_("one input")},
        {ROLE_LEVEL2, GL_SHADE2, N_("few")},
        {ROLE_LEVEL3, GL_SHADE3, N_("half")},
        {ROLE_LEVEL4, GL_BLOCK, N_("most")},
        {ROLE_FINAL, GL_CHECK, N_("final")},
        {ROLE_WRONG, GL_CROSSMARK, N_("wrong")},
    };
    int x = r.x;
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        const char *t = _(items[i].text);
        int w = 3 + grid_text_width(t);
        if (x + w > r.x + r.w)
            break;
        grid_putg(g, r, x, y, items[i].gl, items[i].role);
        grid_printf(g, r, x + 1, y, -1, ROLE_DIM, 0, " %s ", t);
        x += w;
    }
}

/* What the cell texts mean, each note whole or not at all: first those
 * of what the drawn cells show ("#7=7 ranks combined" where a "#n" is
 * drawn), then the others in this order as far as they fit. */
static void draw_notes(const App *app, const Geom *gm, Grid *g, Rect r,
                       int y)
{
    static const struct { int form; const char *text; } notes[] = {
        {FORM_RANK, N_("3=rank 3's input")},
        {FORM_BLOCK, N_("3.1=r3's block 1")},
        {FORM_SET, N_("0-2+5=those ranks combined")},
        {FORM_COUNT, N_("#7=7 ranks combined")},
        {FORM_ALL, N_("all=every rank")},
        {-1, N_("_=just written")}, /* the emphasis, not a form */
    };
    Shown sh;
    cells_shown(app, gm, g->ascii, &sh);
    int x = r.x;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < sizeof notes / sizeof *notes; i++) {
            bool on = notes[i].form < 0 ? sh.written
                                        : sh.form[notes[i].form];
            const char *t = _(notes[i].text);
            int w = grid_text_width(t) + (x > r.x);
            if (on != (pass == 0) || x + w > r.x + r.w)
                continue;
            grid_text(g, r, x + (x > r.x), y, -1, ROLE_DIM, 0, t);
            x += w;
        }
}

/* Whether cells e and f of rank r's buffer b hold the same ranks. */
static bool same_ranks(const App *app, int r, BufId b, size_t e, size_t f)
{
    const Sim *sim = &app->scene->sim;
    for (int q = 0; q < app->scene->call.nranks; q++)
        if (!sim_has(sim, r, b, e, q) != !sim_has(sim, r, b, f, q))
            return false;
    return true;
}

/* The row the shown step writes first where a cell it wrote says only
 * how many ranks it holds ("#2"): "→ r1 holds {0+1} at 8..11", the cells
 * from the transfer's first that hold the same ranks. False (nothing
 * drawn) when every written cell names its ranks. */
static bool draw_spelled(const App *app, const Geom *gm, Grid *g, Rect r,
                         int y)
{
    const Scene *sc = app->scene;
    if (!gm->wide || sc->step == 0)
        return false;
    const Step *st = &sc->sched.steps[sc->step - 1];
    for (size_t t = st->first; t < st->first + st->n; t++) {
        const Transfer *tr = &sc->sched.xfers[t];
        BufId b = (BufId)tr->dst_buf;
        size_t e = tr->dst_off, end = e;
        char txt[32], set[64];
        int n = sim_nranks_in(&sc->sim, tr->dst, b, e);
        if (cell_text(app, gm, g->ascii, tr->dst, b, e, n, txt, sizeof txt)
            != FORM_COUNT)
            continue;
        while (end + 1 < tr->dst_off + tr->count &&
               same_ranks(app, tr->dst, b, e, end + 1))
            end++;
        rank_set(app, tr->dst, b, e, set, sizeof set, sizeof set - 1);
        /* an arrow first: not read as one more rank row */
        grid_putg(g, r, r.x, y, GL_ARROW_R, ROLE_DIM);
        if (end > e)
            grid_printf(g, r, r.x + 2, y, -1, ROLE_NORMAL, 0,
                        _("r%d holds {%s} at %zu..%zu"), tr->dst, set, e,
                        end);
        else
            grid_printf(g, r, r.x + 2, y, -1, ROLE_NORMAL, 0,
                        _("r%d holds {%s} at %zu"), tr->dst, set, e);
        return true;
    }
    return false;
}

/* Without a selection: what the cells mean, on two lines (the first
 * spelling out a row the step wrote where its cells only count their
 * ranks); presenter mode's one line: the notes where the cells show
 * text, else the levels. */
static void draw_legend(const App *app, const Geom *gm, Grid *g, Rect r,
                        int y)
{
    if (gm->legend) {
        grid_fill(g, rect_clip((Rect){r.x, y, r.w, 1}, r), ' ', ROLE_NORMAL,
                  0);
        if (gm->wide)
            draw_notes(app, gm, g, r, y);
        else
            draw_levels(g, r, y);
        return;
    }
    if (!draw_spelled(app, gm, g, r, y))
        draw_levels(g, r, y);
    draw_notes(app, gm, g, r, y + 1);
}

static void buffers_draw(const App *app, Grid *g, Rect r)
{
    Geom gm;
    geometry(app, r, &gm);
    if (r.h < 2 || r.w < gm.label_w + 2)
        return;
    draw_heading(app, &gm, g, r);
    for (int i = 0; i < gm.rows; i++) {
        int y = r.y + 1 + i * gm.row_h;
        draw_row(app, &gm, g, r, y, gm.first_rank + i);
        for (int x = r.x + gm.label_w; gm.row_h == 2 && x < r.x + r.w; x++) {
            Cell c = *grid_cat(g, x, y); /* the cell's second row */
            if (c.role != ROLE_BORDER && c.role != ROLE_NORMAL)
                grid_put(g, r, x, y + 1, ' ', (Role)c.role, c.attr);
            else if (c.role == ROLE_BORDER)
                grid_put(g, r, x, y + 1, c.ch, (Role)c.role, c.attr);
        }
    }
    if (gm.legend) {
        draw_legend(app, &gm, g, r, legend_y(&gm, r));
        return;
    }
    if (!gm.details)
        return;
    int y = r.y + r.h - 2;
    if (app->view.sel_rank >= 0 && app->view.sel_buf >= 0) {
        draw_selected(app, g, r, y);
        draw_history(app, g, r, y + 1);
    } else {
        draw_legend(app, &gm, g, r, y);
    }
}

static bool buffers_click(const App *app, Rect r, int x, int y, Request *req)
{
    Geom gm;
    geometry(app, r, &gm);
    int row = (y - r.y - 1) / gm.row_h;
    if (y - r.y - 1 < 0 || row >= gm.rows ||
        (gm.legend && y == legend_y(&gm, r)))
        return false;
    int rank = gm.first_rank + row, c = x - r.x - gm.label_w;
    if (c < 0) {
        *req = (Request){.act = ACT_SELECT_RANK, .a = rank};
        return true;
    }
    if (c >= gm.ncols || gm.cols[c].kind == COL_SEP ||
        gm.cols[c].kind == COL_NONE)
        return false;
    const Col *col = &gm.cols[c];
    if (col->elem >= scene_buf_cells(app->scene, rank, (BufId)col->buf))
        return false;
    *req = (Request){.act = ACT_SELECT_CELL, .a = rank, .b = col->buf,
                     .c = (long long)col->elem};
    return true;
}

const ViewOps view_buffers = {
    .name = "buffers",
    .title = N_("Buffers"),
    .framed = true,
    .draw = buffers_draw,
    .click = buffers_click,
};
