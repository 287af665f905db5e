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
    const CollCall *c = &app->call;
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
    const CollCall *c = &app->call;
    switch (m->kind) {
    case MENU_ALGO:
        for (size_t i = 0; i < algo_count(); i++)
            if (algo_at(i)->coll == c->kind)
                add_item(m, (long long)i, algo_at(i) == app->algo,
                         "%-16s %s", algo_at(i)->name, algo_at(i)->summary);
        break;
    case MENU_RANKS:
        for (size_t i = 0; i < sizeof rank_choices / sizeof rank_choices[0]; i++)
            add_item(m, rank_choices[i], rank_choices[i] == c->nranks, "%d",
                     rank_choices[i]);
        break;
    case MENU_SIZE:
        for (uint64_t b = 1024; b <= (1ull << 30); b *= 4)
            add_item(m, (long long)b, b == app->bytes, "%llu %s",
                     (unsigned long long)(b >= (1u << 30) ? b >> 30
                                          : b >= (1u << 20) ? b >> 20 : b >> 10),
                     b >= (1u << 30) ? "GiB" : b >= (1u << 20) ? "MiB" : "KiB");
        break;
    case MENU_BACKEND:
        for (size_t i = 0; exec_name_at(i); i++)
            add_item(m, (long long)i,
                     app->backend && !strcmp(app->backend->name, exec_name_at(i)),
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

bool menu_rebuild(App *app, const CollCall *call, const AlgoInfo *algo,
                  bool keep_step)
{
    char why[200];
    size_t old = app->step;
    if (app->worker)
        worker_cancel(app->worker);
    if (scene_build(app, call, algo, why, sizeof why)) {
        app_message(app, true, "%s", why);
        return false;
    }
    app->bg = BG_IDLE;
    app->bg_job = 0; /* results of the old scene's job are not ours */
    app->nsweep = 0;
    app->sweep_planned = 0;
    app->playing = false;
    if (keep_step && old)
        scene_seek(app, old);
    return true;
}

/* A new collective: its default algorithm, root 0. */
static void pick_coll(App *app, CollKind k)
{
    CollCall c = app->call;
    c.kind = k;
    c.root = 0;
    menu_rebuild(app, &c, algo_default(k), false);
}

static void pick_backend(App *app, const char *name)
{
    char why[200] = "";
    const ExecOps *ops = exec_find(name, why, sizeof why);
    if (!ops) {
        app_message(app, true, "The %s backend cannot be used: %s; keeping "
                    "%s.", name, why, app->backend ? app->backend->name : "none");
        return;
    }
    if (app->worker)
        worker_cancel(app->worker);
    if (scene_backend(app, ops, why, sizeof why)) {
        app_message(app, true, "%s Keeping %s.", why,
                    app->backend ? app->backend->name : "none");
    }
}

void menu_pick(App *app, int i)
{
    AppMenu *m = &app->menu;
    if (i < 0 || i >= m->n)
        return;
    MenuKind k = m->kind;
    long long v = m->value[i];
    m->kind = MENU_NONE;
    CollCall c = app->call;
    switch (k) {
    case MENU_COLL: pick_coll(app, (CollKind)v); return;
    case MENU_ALGO: menu_rebuild(app, &c, algo_at((size_t)v), false); return;
    case MENU_RANKS:
        c.nranks = (int)v;
        c.root = c.root < c.nranks ? c.root : 0;
        menu_rebuild(app, &c, app->algo, false);
        return;
    case MENU_SIZE: {
        uint64_t old = app->bytes;
        app->bytes = (uint64_t)v;
        if (!menu_rebuild(app, &c, app->algo, true))
            app->bytes = old;
        return;
    }
    case MENU_DTYPE: c.dtype = (DataType)v; break;
    case MENU_OP: c.op = (RedOp)v; break;
    case MENU_ROOT: c.root = (int)v; break;
    case MENU_BACKEND: pick_backend(app, exec_name_at((size_t)v)); return;
    default: return;
    }
    menu_rebuild(app, &c, app->algo, true);
}
