/* view_header.c - two lines on top: the scene (each field opens its menu
 * when clicked) and where the stepping stands. */
#include <stdio.h>

#include "ui/view.h"
#include "ui/words.h"

/* One clickable field of the scene line. */
typedef struct {
    char text[40]; /* what it shows */
    Action act;    /* what a click asks for */
} Field;

#define MAX_FIELDS 10

/* The scene line's fields, in order. */
static int scene_fields(const App *app, Field *f)
{
    const Scene *sc = app->scene;
    const CollCall *c = &sc->call;
    int n = 0;
    char size[24];
    view_fmt_bytes(size, sizeof size, (double)coll_size_bytes(&sc->big));
#define ADD(act_, ...)                                                        \
    do {                                                                      \
        snprintf(f[n].text, sizeof f[n].text, __VA_ARGS__);                   \
        f[n++].act = act_;                                                    \
    } while (0)
    ADD(ACT_MENU_COLL, "%s", coll_name(c->kind));
    ADD(ACT_MENU_ALGO, "%s", sc->algo->name);
    ADD(ACT_MENU_RANKS, _("%d ranks"), c->nranks);
    ADD(ACT_MENU_SIZE, "%s", size);
    ADD(ACT_MENU_DTYPE, "%s", dtype_name(c->dtype));
    if (coll_is_reducing(c->kind))
        ADD(ACT_MENU_OP, "%s", redop_name(c->op));
    if (coll_is_rooted(c->kind))
        ADD(ACT_MENU_ROOT, _("root %d"), c->root);
    ADD(ACT_INPLACE, "%s", c->in_place ? _("in place") : _("out of place"));
    ADD(ACT_MENU_BACKEND, "%s", sc->backend ? sc->backend->name : _("no backend"));
#undef ADD
    return n;
}

#define PREFIX "collviz "
#define SEP " | "

/* Columns all fields take, with separators. */
static int fields_width(const Field *f, int n)
{
    int w = 0;
    for (int i = 0; i < n; i++)
        w += grid_text_width(f[i].text) + (i ? (int)sizeof SEP - 1 : 0);
    return w;
}

/* Column where field i starts; the prefix goes when space is short. */
static int field_x(const Rect r, const Field *f, int n, int i)
{
    int x = r.x;
    if (fields_width(f, n) + (int)sizeof PREFIX - 1 <= r.w)
        x += (int)sizeof PREFIX - 1;
    for (int k = 0; k < i; k++)
        x += grid_text_width(f[k].text) + (int)sizeof SEP - 1;
    return x;
}

static void draw_scene(const App *app, Grid *g, Rect r)
{
    Field f[MAX_FIELDS];
    int n = scene_fields(app, f);
    if (field_x(r, f, n, 0) > r.x)
        grid_text(g, r, r.x, r.y, -1, ROLE_TITLE, GRID_BOLD, PREFIX);
    for (int i = 0; i < n; i++) {
        int x = field_x(r, f, n, i);
        if (x + grid_text_width(f[i].text) > r.x + r.w)
            break; /* a field is shown whole or not at all */
        if (i)
            grid_text(g, r, x - 3, r.y, -1, ROLE_DIM, 0, SEP);
        grid_text(g, r, x, r.y, -1, ROLE_VALUE, 0, f[i].text);
    }
}

/* Whether the steps drawn are the steps priced: where they differ (a
 * pipeline's chunks follow the size), at what size the picture is drawn;
 * with the chunk knob (key p), its chunks and whether they are the
 * priced steps. Returns the columns used. */
static int draw_drawn_priced(const Scene *sc, Grid *g, Rect r, int x, int y)
{
    char pic[32], big[32];
    view_fmt_bytes(pic, sizeof pic, (double)coll_size_bytes(&sc->call));
    view_fmt_bytes(big, sizeof big, (double)sc->bytes);
    if (sc->chunks && sc->big_ok)
        return grid_printf(g, r, x, y, -1, ROLE_OK, 0,
                           _("  chunks %d: drawn = priced at %s"),
                           sc->chunks, big);
    if (sc->chunks)
        return grid_printf(g, r, x, y, -1, ROLE_WARN, 0,
                           _("  chunks %d: drawn != priced, %s is priced "
                             "in %zu steps"), sc->chunks, big,
                           sc->big_sched.nsteps);
    if (sc->big_ok)
        return 0;
    /* the picture's steps are not the priced ones */
    return grid_printf(g, r, x, y, -1, ROLE_WARN, 0,
                       _("  picture at %s; %s is priced in %zu steps"),
                       pic, big, sc->big_sched.nsteps);
}

/* The stepping line: step k of N, its phase, play state, findings. */
static void draw_step(const App *app, Grid *g, Rect r)
{
    const Scene *sc = app->scene;
    size_t k, n = sc->sched.nsteps;
    int y = r.y + 1, x = r.x;
    if (scene_shown(sc, &k)) {
        x += grid_printf(g, r, x, y, -1, ROLE_HEADER, 0, _("step %zu of %zu"),
                         k + 1, n);
        x += grid_printf(g, r, x, y, -1, ROLE_VALUE, 0, "  %s",
                         words_phase(sc->sched.steps[k].phase));
    } else {
        x += grid_printf(g, r, x, y, -1, ROLE_HEADER, 0,
                         _("step 0 of %zu  initial state"), n);
    }
    if (sc->step == n && n > 0)
        x += grid_text(g, r, x, y, -1, ROLE_OK, 0, _("  (done)"));
    x += draw_drawn_priced(sc, g, r, x, y);
    if (app->play.on)
        x += grid_printf(g, r, x, y, -1, ROLE_KEY, 0, _("  %s playing, %d ms/step"),
                         app->view.ascii ? ">" : "\u25B6", app->play.ms);
    if (sc->sim.err)
        grid_printf(g, r, x, y, -1, ROLE_ERROR, 0, _("  schedule error at step %zu: %s"),
                    sc->sim.err_step + 1, words_error(sc->sim.err));
    else if (x + 2 < r.x + r.w) /* what does not fit ends in an ellipsis */
        grid_text_cut(g, r, x + 2, y, r.x + r.w - x - 2, ROLE_DIM, 0,
                      words_summary(sc->algo));
}

static void header_draw(const App *app, Grid *g, Rect r)
{
    grid_fill(g, (Rect){r.x, r.y, r.w, 1}, ' ', ROLE_HEADER, 0);
    draw_scene(app, g, r);
    draw_step(app, g, r);
}

static bool header_click(const App *app, Rect r, int x, int y, Request *req)
{
    Field f[MAX_FIELDS];
    int n = scene_fields(app, f);
    if (y != r.y)
        return false;
    for (int i = 0; i < n; i++) {
        int x0 = field_x(r, f, n, i);
        if (x0 + grid_text_width(f[i].text) > r.x + r.w)
            break; /* not shown */
        if (x >= x0 && x < x0 + grid_text_width(f[i].text)) {
            *req = (Request){.act = f[i].act};
            return true;
        }
    }
    return false;
}

const ViewOps view_header = {
    .name = "header",
    .title = "",
    .framed = false,
    .draw = header_draw,
    .click = header_click,
};
