/* view_timeline.c - the space-time diagram: one row per rank, one column
 * per step, so the shape of the whole algorithm shows at once. Each cell
 * says what the rank does in that step (send, receive, exchange, reduce,
 * local work or nothing) and, where the columns are wide enough, with whom.
 * The shown step's column is highlighted; steps scroll to keep it in view,
 * ranks scroll with the picture (App.scroll_rank). A click on a column
 * seeks to that step, a click on a rank label selects the rank. In
 * data-flow (key D) a rank whose clock is ahead of lock-step when a step
 * starts (the core's clocks: scene_ahead) has that cell underlined. */
#include <stdio.h>
#include <string.h>

#include "ui/view.h"
#include "ui/words.h"
#include "core/num.h"

#define FORM_TEXT 96 /* the longest text of the foot */

/* ------------------------------------------------------------ marks */

/* What one rank does in one step. */
typedef enum {
    MK_IDLE,     /* nothing */
    MK_LOCAL,    /* only local copies */
    MK_SEND,     /* sends to other ranks, receives nothing */
    MK_RECV,     /* receives copies, sends nothing */
    MK_EXCHANGE, /* sends and receives copies */
    MK_REDUCE,   /* reduces what it receives (or local data) */
    MK_SENDRED,  /* sends to the rank it reduces from (a swap) */
    MK_PASS,     /* receives a copy from one rank, sends to another */
    MK_PASSRED,  /* reduces from one rank, sends to another */
    MK_COUNT
} Mark;

/* Each mark's characters, role and legend word. */
static const struct {
    uint32_t uni;     /* Unicode character */
    char ascii;       /* ASCII character */
    Role role;        /* colour role */
    const char *word; /* legend text */
} marks[MK_COUNT] = {
    [MK_IDLE] = {0x00B7, '.', ROLE_DIM, N_("idle")},
    [MK_LOCAL] = {0x2218, 'o', ROLE_COPY, N_("local")},
    [MK_SEND] = {0x2192, '>', ROLE_COPY, N_("send")},
    [MK_RECV] = {0x2190, '<', ROLE_COPY, N_("recv")},
    [MK_EXCHANGE] = {0x21C4, 'x', ROLE_COPY, N_("both")},
    [MK_REDUCE] = {'+', '+', ROLE_REDUCE, N_("reduce")},
    [MK_SENDRED] = {0x00B1, '#', ROLE_REDUCE, N_("send+reduce")},
    [MK_PASS] = {0x21D2, ')', ROLE_COPY, N_("pass on")},
    [MK_PASSRED] = {0x21A6, '}', ROLE_REDUCE, N_("reduce, send on")},
};

#define PEER_NONE (-1) /* no peer */
#define PEER_MANY (-2) /* several peers */

/* What one rank does in one step, gathered from the step's transfers. */
typedef struct {
    uint8_t in;   /* 0, or 1 + XferOp of what it receives (reduce wins) */
    bool out;     /* sends to another rank */
    bool local;   /* copies locally */
    int in_peer;  /* the rank it receives from, or PEER_NONE/PEER_MANY */
    int out_peer; /* the rank it sends to, or PEER_NONE/PEER_MANY */
} Act;

static void add_peer(int *peer, int q)
{
    *peer = *peer == PEER_NONE || *peer == q ? q : PEER_MANY;
}

/* What ranks [r0, r0 + n) do in step k, into act[0 .. n). */
static void step_acts(const Schedule *s, size_t k, int r0, int n, Act *act)
{
    for (int i = 0; i < n; i++)
        act[i] = (Act){.in_peer = PEER_NONE, .out_peer = PEER_NONE};
    const Step *st = &s->steps[k];
    for (size_t x = st->first; x < st->first + st->n; x++) {
        const Transfer *t = &s->xfers[x];
        int si = t->src - r0, di = t->dst - r0;
        uint8_t op = (uint8_t)(1 + t->op);
        bool dst_in = di >= 0 && di < n;
        if (t->src == t->dst) {
            if (dst_in && t->op == XFER_REDUCE)
                act[di].in = op;
            else if (dst_in)
                act[di].local = true;
            continue;
        }
        if (si >= 0 && si < n) {
            act[si].out = true;
            add_peer(&act[si].out_peer, t->dst);
        }
        if (dst_in) {
            if (op > act[di].in)
                act[di].in = op;
            add_peer(&act[di].in_peer, t->src);
        }
    }
}

static Mark act_mark(const Act *a)
{
    /* sending on to a rank other than the one it hears from: the mark
     * points forward and names where the data goes */
    bool on = a->out && a->in && a->in_peer != a->out_peer;
    if (a->in == 1 + XFER_REDUCE)
        return on ? MK_PASSRED : a->out ? MK_SENDRED : MK_REDUCE;
    if (a->in)
        return on ? MK_PASS : a->out ? MK_EXCHANGE : MK_RECV;
    if (a->out)
        return MK_SEND;
    return a->local ? MK_LOCAL : MK_IDLE;
}

/* The peer a cell names: whom it sends to (the direction the data
 * goes), else whom it receives from. */
static int act_peer(const Act *a)
{
    return a->out_peer != PEER_NONE ? a->out_peer : a->in_peer;
}

/* ------------------------------------------------------------ geometry */

/* Where everything goes inside the panel. */
typedef struct {
    int label_w;       /* columns of the rank labels ("r12 ") */
    int cell_w;        /* columns per step */
    bool peers;        /* cells name the peer */
    bool phases;       /* a row of phase names on top */
    bool foot;         /* a legend / scroll line at the bottom */
    int top;           /* row of the first rank */
    int rows;          /* rank rows shown */
    int first_rank;    /* first rank shown */
    int cols;          /* step columns shown */
    size_t first_step; /* first step shown */
} Geom;

/* Columns of v in decimal. */
static int digits(int v) { return snprintf(NULL, 0, "%d", v); }


/* Column width: peers when every step fits with them, else marks with a
 * space, else bare marks (and the steps scroll). */
static void pick_width(Geom *gm, int avail, size_t nsteps, int p)
{
    size_t wide = 2 + (size_t)digits(p - 1), room = avail > 0 ? (size_t)avail : 0;
    gm->peers = room >= nsteps * wide;
    gm->cell_w = gm->peers ? (int)wide : room >= nsteps * 2 ? 2 : 1;
    gm->cols = (int)(room / (size_t)gm->cell_w);
    if ((size_t)gm->cols > nsteps)
        gm->cols = (int)nsteps;
}

static void geometry(const App *app, Rect r, Geom *gm)
{
    const Scene *sc = app->scene;
    int p = sc->call.nranks;
    size_t n = sc->sched.nsteps, k;
    memset(gm, 0, sizeof *gm);
    gm->label_w = 2 + digits(p - 1);
    pick_width(gm, r.w - gm->label_w, n, p);
    /* Every rank first; the legend and phase rows where room is left, or
     * when the ranks scroll anyway and a rank row is left beside the
     * legend (the marks explained before a second rank's row). */
    int need = p + 1;
    gm->foot = r.h >= need + 1 || (r.h >= 3 && r.h < need);
    gm->phases = r.h >= need + gm->foot + 1 ||
                 (r.h < need + gm->foot && r.h >= 10);
    gm->top = r.y + 1 + gm->phases;
    gm->rows = num_clamp(r.h - 1 - gm->phases - gm->foot, 0, p);
    gm->first_rank = num_clamp(app->view.scroll_rank, 0, p - gm->rows);
    if (gm->cols > 0 && (size_t)gm->cols < n && scene_shown(sc, &k)) {
        size_t half = (size_t)gm->cols / 2;
        gm->first_step = k > half ? k - half : 0;
        if (gm->first_step > n - (size_t)gm->cols)
            gm->first_step = n - (size_t)gm->cols;
    }
}

static int step_x(const Geom *gm, Rect r, size_t s)
{
    return r.x + gm->label_w + (int)(s - gm->first_step) * gm->cell_w;
}

/* ------------------------------------------------------------ drawing */

/* Whether step s is the shown one. */
static bool is_shown(const App *app, size_t s)
{
    size_t k;
    return scene_shown(app->scene, &k) && k == s;
}

static uint32_t mark_char(const Grid *g, Mark m)
{
    return g->ascii ? (uint32_t)marks[m].ascii : marks[m].uni;
}

/* Bit of `seen` (draw_rows) for a cell of a rank ahead of lock-step. */
#define SEEN_AHEAD (1u << MK_COUNT)
#define SEEN_MANY (1u << (MK_COUNT + 1))
#define SEEN_PEER (1u << (MK_COUNT + 2))

/* One cell: the mark, then the peer when there is room; `ahead`: the
 * rank starts the step ahead of lock-step (scene_ahead), underlined in
 * its own role. Returns what it drew: 1 << its mark, SEEN_PEER for a
 * peer's number, SEEN_MANY for the star of several peers. */
static unsigned draw_cell(const Geom *gm, Grid *g, Rect r, int x, int y,
                          const Act *a, bool cur, bool ahead)
{
    Mark m = act_mark(a);
    unsigned attr = (cur ? GRID_REVERSE : 0) | (ahead ? GRID_UNDER : 0);
    Role role = ahead ? ROLE_OK : marks[m].role;
    int w = gm->cell_w > 1 ? gm->cell_w - 1 : 1;
    if (cur)
        grid_fill(g, rect_clip((Rect){x, y, w, 1}, r), ' ', role, attr);
    grid_put(g, r, x, y, mark_char(g, m), role, attr);
    int peer = act_peer(a);
    if (!gm->peers || m == MK_IDLE || m == MK_LOCAL || peer == PEER_NONE)
        return 1u << m;
    if (peer == PEER_MANY) {
        grid_text(g, r, x + 1, y, w - 1, role, attr, "*");
        return 1u << m | SEEN_MANY;
    }
    grid_printf(g, r, x + 1, y, w - 1, role, attr, "%d", peer);
    return 1u << m | SEEN_PEER;
}

/* Rank rows gathered at once (more are drawn chunk by chunk). */
#define CHUNK 64

/* The rank rows, step column by step column. Returns the marks drawn
 * (bit 1 << Mark). */
static unsigned draw_rows(const App *app, const Geom *gm, Grid *g, Rect r)
{
    Act act[CHUNK];
    unsigned seen = 0;
    for (int i = 0; i < gm->rows; i++) {
        int rank = gm->first_rank + i;
        Role lr = app->view.sel_rank == rank ? ROLE_SELECT : ROLE_NODE;
        grid_printf(g, r, r.x, gm->top + i, gm->label_w - 1, lr, 0, "r%d",
                    rank);
    }
    for (int i0 = 0; i0 < gm->rows; i0 += CHUNK) {
        int n = gm->rows - i0 < CHUNK ? gm->rows - i0 : CHUNK;
        for (int c = 0; c < gm->cols; c++) {
            size_t s = gm->first_step + (size_t)c;
            step_acts(&app->scene->sched, s, gm->first_rank + i0, n, act);
            for (int i = 0; i < n; i++) {
                int rank = gm->first_rank + i0 + i;
                bool ahead = scene_ahead(app->scene, rank, s) > 0;
                seen |= draw_cell(gm, g, r, step_x(gm, r, s),
                                  gm->top + i0 + i, &act[i],
                                  is_shown(app, s), ahead);
                seen |= ahead ? SEEN_AHEAD : 0;
            }
        }
    }
    return seen;
}

/* Step numbers on the heading row: the shown step always, others where
 * they do not crowd it. */
static void draw_numbers(const App *app, const Geom *gm, Grid *g, Rect r,
                         int y)
{
    size_t k;
    int cur0 = -1, cur1 = -1, next = r.x + gm->label_w;
    grid_text(g, r, r.x, y, gm->label_w, ROLE_HEADER, 0,
              gm->label_w > 4 ? _("step") : "#");
    if (scene_shown(app->scene, &k) && k >= gm->first_step &&
        k < gm->first_step + (size_t)gm->cols) {
        cur0 = step_x(gm, r, k);
        cur1 = cur0 + grid_printf(g, r, cur0, y, -1, ROLE_HEADER,
                                  GRID_REVERSE, "%zu", k + 1);
    }
    for (int c = 0; c < gm->cols; c++) {
        size_t s = gm->first_step + (size_t)c;
        int x = step_x(gm, r, s), w = digits((int)s + 1);
        if (x < next || (x + w >= cur0 && x <= cur1))
            continue;
        grid_printf(g, r, x, y, -1, ROLE_DIM, 0, "%zu", s + 1);
        next = x + w + 1;
    }
}

/* A phase name in at most w columns: whole (in the language in use)
 * where it fits, else the initials of its English words
 * ("reduce-scatter": "RS", "all-gather": "AG"), else cut. */
static void phase_label(const char *name, int w, char *out, size_t len)
{
    size_t n = 0;
    const char *shown = words_phase(name);
    if (grid_text_width(shown) <= w) {
        snprintf(out, len, "%s", shown);
        return;
    }
    for (const char *p = name; *p && n + 1 < len; p++)
        if ((p == name || p[-1] == '-' || p[-1] == ' ') && *p != '-' &&
            *p != ' ')
            out[n++] = (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
    out[n] = '\0';
    if ((int)n > w || n < 2)
        snprintf(out, len, "%.*s", w > 0 ? w : 0, name);
}

/* Phase names over the runs of steps that share one. */
static void draw_phases(const App *app, const Geom *gm, Grid *g, Rect r,
                        int y)
{
    const Schedule *s = &app->scene->sched;
    size_t end = gm->first_step + (size_t)gm->cols;
    for (size_t a = gm->first_step; a < end;) {
        size_t b = a + 1;
        const char *pa = s->steps[a].phase ? s->steps[a].phase : "";
        while (b < end && !strcmp(s->steps[b].phase ? s->steps[b].phase : "",
                                  pa)) /* a file's steps may have none */
            b++;
        int x = step_x(gm, r, a), w = (int)(b - a) * gm->cell_w - 1;
        char label[64];
        phase_label(pa, w, label, sizeof label);
        if (w >= 2)
            grid_text(g, r, x, y, w, ROLE_TITLE, 0, label);
        a = b;
    }
}

/* The ranks ahead of lock-step at the shown step in words, else the
 * underline's meaning, where it fits at x on row y. Returns the next x. */
static int draw_ahead(const App *app, Grid *g, Rect r, int x, int y)
{
    const Scene *sc = app->scene;
    size_t k;
    int n = 0;
    double most = 0;
    for (int q = 0; scene_shown(sc, &k) && q < sc->call.nranks; q++) {
        double a = scene_ahead(sc, q, k);
        n += a > 0;
        most = a > most ? a : most;
    }
    char t[24], text[FORM_TEXT];
    view_fmt_time(t, sizeof t, most);
    if (n)
        snprintf(text, sizeof text, _("step %zu: %d of %d ranks start up "
                 "to %s early"), k + 1, n, sc->call.nranks, t);
    else
        snprintf(text, sizeof text, "%s", _("ahead of lock-step"));
    if (x + 1 + grid_text_width(text) > r.x + r.w)
        return x;
    return x + 1 + grid_text(g, r, x, y, -1, ROLE_OK, GRID_UNDER, text);
}

/* Bottom line: what scrolled away, then the legend of the marks drawn
 * (`seen`) where it fits. */
static void draw_foot(const App *app, const Geom *gm, Grid *g, Rect r,
                      unsigned seen)
{
    const Scene *sc = app->scene;
    int y = r.y + r.h - 1, p = sc->call.nranks, x = r.x;
    size_t n = sc->sched.nsteps;
    if (gm->rows == 1 && p > 1)
        x += grid_printf(g, r, x, y, -1, ROLE_DIM, 0, _("rank %d/%d "),
                         gm->first_rank, p);
    else if (gm->rows < p)
        x += grid_printf(g, r, x, y, -1, ROLE_DIM, 0, _("ranks %d-%d/%d "),
                         gm->first_rank, gm->first_rank + gm->rows - 1, p);
    if ((size_t)gm->cols < n && gm->cols > 0)
        x += grid_printf(g, r, x, y, -1, ROLE_DIM, 0, _("steps %zu-%zu/%zu "),
                         gm->first_step + 1,
                         gm->first_step + (size_t)gm->cols, n);
    if (seen & SEEN_AHEAD)
        x = draw_ahead(app, g, r, x, y);
    for (int m = 0; m < MK_COUNT; m++) {
        const char *w = _(marks[m].word);
        if (!(seen & 1u << m))
            continue;
        if (x + 3 + grid_text_width(w) > r.x + r.w)
            break;
        grid_put(g, r, x, y, mark_char(g, (Mark)m), marks[m].role, 0);
        x += 3 + grid_text(g, r, x + 2, y, -1, ROLE_DIM, 0, w);
    }
    const char *peer = _("n=the peer rank"), *many = _("*=several peers");
    if ((seen & SEEN_PEER) && x + grid_text_width(peer) <= r.x + r.w)
        x += 1 + grid_text(g, r, x, y, -1, ROLE_DIM, 0, peer);
    if ((seen & SEEN_MANY) && x + grid_text_width(many) <= r.x + r.w)
        grid_text(g, r, x, y, -1, ROLE_DIM, 0, many);
}

static void timeline_draw(const App *app, Grid *g, Rect r)
{
    Geom gm;
    if (r.w < 4 || r.h < 2)
        return;
    if (app->scene->sched.nsteps == 0) {
        grid_text(g, r, r.x, r.y, r.w, ROLE_DIM, 0,
                  _("no steps: nothing to move"));
        return;
    }
    geometry(app, r, &gm);
    draw_numbers(app, &gm, g, r, r.y);
    if (gm.phases)
        draw_phases(app, &gm, g, r, r.y + 1);
    unsigned seen = draw_rows(app, &gm, g, r);
    if (gm.foot)
        draw_foot(app, &gm, g, r, seen);
}

static bool timeline_click(const App *app, Rect r, int x, int y,
                           Request *req)
{
    Geom gm;
    if (app->scene->sched.nsteps == 0 || r.w < 4 || r.h < 2)
        return false;
    geometry(app, r, &gm);
    int row = y - gm.top, c = x - r.x - gm.label_w;
    bool on_rows = row >= 0 && row < gm.rows; /* else headings (seek too) */
    if (on_rows && c < 0) {
        *req = (Request){.act = ACT_SELECT_RANK, .a = gm.first_rank + row};
        return true;
    }
    if ((!on_rows && y >= gm.top) || c < 0 || c / gm.cell_w >= gm.cols)
        return false;
    *req = (Request){.act = ACT_SEEK,
                     .a = (int)gm.first_step + c / gm.cell_w + 1};
    return true;
}

const ViewOps view_timeline = {
    .name = "timeline",
    .title = N_("Timeline"),
    .framed = true,
    .draw = timeline_draw,
    .click = timeline_click,
};
