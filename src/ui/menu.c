/* menu.c - menu items and what picking them does. */
#include "ui/menu.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ui/scene.h"
#include "ui/worker.h"

/* Rank counts offered: every count to 16, then a few larger ones. */
static const int rank_choices[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,
                                   10, 11, 12, 13, 14, 15, 16, 20, 24,
                                   32, 48, 64};

static void add_item(AppMenu *m, long long value, bool current,
                     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void add_item(AppMenu *m, long long value, bool current,
                     const char *fmt, ...)
{
    if (m->n >= APP_MENU_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->label[m->n], sizeof m->label[m->n], fmt, ap);
    va_end(ap);
    m->value[m->n] = value;
    m->current[m->n] = current;
    if (current)
        m->cur = m->n;
    m->n++;
}

/* The items of menus whose values are small enumerations. */
static void fill_enums(const App *app, AppMenu *m)
{
    const CollCall *c = &app->scene->call;
    switch (m->kind) {
    case MENU_COLL:
        for (int k = 0; k < COLL_COUNT; k++)
            add_item(m, k, k == (int)c->kind, "%s", coll_name((CollKind)k));
        break;
    case MENU_DTYPE:
        for (int t = 0; t < DT_COUNT; t++)
            add_item(m, t, t == (int)c->dtype, "%s", dtype_name((DataType)t));
        break;
    case MENU_OP:
        for (int o = 0; o < OP_COUNT; o++)
            add_item(m, o, o == (int)c->op, "%s", redop_name((RedOp)o));
        break;
    case MENU_ROOT:
        for (int r = 0; r < c->nranks; r++)
            add_item(m, r, r == c->root, "rank %d", r);
        break;
    default:
        break;
    }
}

static void fill_items(const App *app, AppMenu *m)
{
    const Scene *sc = app->scene;
    const CollCall *c = &sc->call;
    switch (m->kind) {
    case MENU_ALGO:
        for (size_t i = 0; i < algo_count(); i++)
            if (algo_at(i)->coll == c->kind)
                add_item(m, (long long)i, algo_at(i) == sc->algo,
                         "%-16s %s", algo_at(i)->name, algo_at(i)->summary);
        break;
    case MENU_RANKS:
        for (size_t i = 0; i < sizeof rank_choices / sizeof rank_choices[0]; i++)
            add_item(m, rank_choices[i], rank_choices[i] == c->nranks, "%d",
                     rank_choices[i]);
        break;
    case MENU_SIZE:
        for (uint64_t b = 1024; b <= (1ull << 30); b *= 4)
            add_item(m, (long long)b, b == sc->bytes, "%llu %s",
                     (unsigned long long)(b >= (1u << 30) ? b >> 30
                                          : b >= (1u << 20) ? b >> 20 : b >> 10),
                     b >= (1u << 30) ? "GiB" : b >= (1u << 20) ? "MiB" : "KiB");
        break;
    case MENU_BACKEND:
        for (size_t i = 0; exec_name_at(i); i++)
            add_item(m, (long long)i,
                     sc->backend && !strcmp(sc->backend->name, exec_name_at(i)),
                     "%s", exec_name_at(i));
        break;
    default:
        fill_enums(app, m);
        break;
    }
}

void menu_open(App *app, MenuKind k)
{
    AppMenu *m = &app->menu;
    memset(m, 0, sizeof *m);
    m->kind = k;
    fill_items(app, m);
    if (m->n == 0)
        m->kind = MENU_NONE;
}

void menu_move(App *app, int delta)
{
    AppMenu *m = &app->menu;
    m->cur += delta;
    if (m->cur < 0)
        m->cur = 0;
    if (m->cur >= m->n)
        m->cur = m->n - 1;
}

/* ------------------------------------------------------------ picking */

bool menu_rebuild(App *app, const SceneSetup *set, bool keep_step)
{
    char why[200];
    size_t old = app->scene->step;
    if (app->worker)
        worker_cancel(app->worker);
    if (scene_remake(&app->scene, set, why, sizeof why)) {
        app_message(app, true, "%s", why);
        return false;
    }
    app->meas_total_s.valid = false;
    app->meas_steps_ok = false;
    app->sel_rank = -1;
    app->bg = WORKER_IDLE;
    app->bg_job = 0; /* results of the old scene's job are not ours */
    app->nsweep = 0;
    app->sweep_planned = 0;
    app->playing = false;
    char seek_why[200] = "";
    if (!app->scene->broken && keep_step && old)
        scene_seek(app->scene, old, seek_why, sizeof seek_why);
    app_scene_said(app, seek_why[0] ? seek_why : why);
    return true;
}

/* A new collective: its default algorithm, root 0. */
static void pick_coll(App *app, CollKind k)
{
    SceneSetup set;
    scene_setup(app->scene, &set);
    set.call.kind = k;
    set.call.root = 0;
    set.algo = algo_default(k);
    menu_rebuild(app, &set, false);
}

static void pick_backend(App *app, const char *name)
{
    char why[200] = "";
    const Scene *sc = app->scene;
    const ExecOps *ops = exec_find(name, why, sizeof why);
    if (!ops) {
        app_message(app, true, "The %s backend cannot be used: %s; keeping "
                    "%s.", name, why, sc->backend ? sc->backend->name : "none");
        return;
    }
    if (app->worker)
        worker_cancel(app->worker);
    if (scene_set_backend(app->scene, ops, why, sizeof why))
        app_message(app, true, "%s Keeping %s.", why,
                    sc->backend ? sc->backend->name : "none");
    else
        app_scene_said(app, why);
}

void menu_pick(App *app, int i)
{
    AppMenu *m = &app->menu;
    if (i < 0 || i >= m->n)
        return;
    MenuKind k = m->kind;
    long long v = m->value[i];
    m->kind = MENU_NONE;
    SceneSetup set;
    CollCall *c = &set.call;
    scene_setup(app->scene, &set);
    switch (k) {
    case MENU_COLL: pick_coll(app, (CollKind)v); return;
    case MENU_ALGO:
        set.algo = algo_at((size_t)v);
        menu_rebuild(app, &set, false);
        return;
    case MENU_RANKS:
        c->nranks = (int)v;
        c->root = c->root < c->nranks ? c->root : 0;
        menu_rebuild(app, &set, false);
        return;
    case MENU_SIZE: set.bytes = (uint64_t)v; break;
    case MENU_DTYPE: c->dtype = (DataType)v; break;
    case MENU_OP: c->op = (RedOp)v; break;
    case MENU_ROOT: c->root = (int)v; break;
    case MENU_BACKEND: pick_backend(app, exec_name_at((size_t)v)); return;
    default: return;
    }
    menu_rebuild(app, &set, true);
}
