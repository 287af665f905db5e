/* menu.c - menu items. */
#include "ui/menu.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ui/i18n.h"
#include "ui/scene.h"

static const char *const titles[MENU_COUNT] = {
#define X(id, title) [id] = title,
    MENU_KINDS(X)
#undef X
};

const char *menu_title(MenuKind k) { return k < MENU_COUNT && titles[k][0] ? _(titles[k]) : ""; }

/* Rank counts offered: every count to 16, then a few larger ones. */
static const int rank_choices[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,
                                   10, 11, 12, 13, 14, 15, 16, 20, 24,
                                   32, 48, 64};

static void add_item(Menu *m, long long value, bool current,
                     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void add_item(Menu *m, long long value, bool current,
                     const char *fmt, ...)
{
    if (m->n >= MENU_MAX)
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
static void fill_enums(const Scene *sc, Menu *m)
{
    const CollCall *c = &sc->call;
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
            add_item(m, r, r == c->root, _("rank %d"), r);
        break;
    default:
        break;
    }
}

/* The sizes offered: 1 KiB to 1 GiB by factors of 4, then "other...". */
static void fill_sizes(const Scene *sc, Menu *m)
{
    for (uint64_t b = 1024; b <= (1ull << 30); b *= 4)
        add_item(m, (long long)b, b == sc->bytes, "%llu %s",
                 (unsigned long long)(b >= (1u << 30) ? b >> 30
                                      : b >= (1u << 20) ? b >> 20 : b >> 10),
                 b >= (1u << 30) ? "GiB" : b >= (1u << 20) ? "MiB" : "KiB");
    add_item(m, MENU_OTHER, false, "%s", _("other... (or type a size)"));
}

static void fill_items(const Scene *sc, Menu *m)
{
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
    case MENU_SIZE: fill_sizes(sc, m); break;
    case MENU_BACKEND:
        for (size_t i = 0; exec_name_at(i); i++) {
            char why[160] = "";
            bool ok = exec_find(exec_name_at(i), why, sizeof why) != NULL;
            char *more = strchr(why, ';'); /* the reason, not the advice */
            if (more)
                *more = '\0';
            add_item(m, (long long)i,
                     sc->backend && !strcmp(sc->backend->name, exec_name_at(i)),
                     ok ? "%s" : "%-8s (%.60s)", exec_name_at(i), why);
            m->greyed[m->n - 1] = !ok;
        }
        break;
    default:
        fill_enums(sc, m);
        break;
    }
}

bool menu_open(Menu *m, MenuKind k, const Scene *sc)
{
    memset(m, 0, sizeof *m);
    m->kind = k;
    fill_items(sc, m);
    if (m->n == 0)
        m->kind = MENU_NONE;
    return m->n > 0;
}

void menu_move(Menu *m, int delta)
{
    m->cur += delta;
    if (m->cur < 0)
        m->cur = 0;
    if (m->cur >= m->n)
        m->cur = m->n - 1;
}
