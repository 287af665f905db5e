/* menu.c - menu items. */
#include "ui/menu.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ui/i18n.h"
#include "ui/scene.h"
#include "ui/words.h"

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
    case MENU_NONE:
    case MENU_ALGO:
    case MENU_RANKS:
    case MENU_SIZE:
    case MENU_BACKEND:
    case MENU_MACHINE:
    case MENU_COUNT:
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

/* Whether backend i runs here: built (exec_find), and the scene's own
 * or able to open for 1 rank (then closed again); why gets the reason
 * when not. Kept in av once asked. */
static bool backend_usable(size_t i, const Scene *sc, MenuBackends *av,
                           char *why, size_t len)
{
    const ExecOps *ops = exec_find(exec_name_at(i), why, len);
    if (!ops)
        return false;
    if (sc->backend == ops) /* it runs the scene already */
        return true;
    if (av && i < MENU_BACKENDS && av->asked[i]) {
        snprintf(why, len, "%s", av->why[i]);
        return av->ok[i];
    }
    Executor *ex = NULL;
    ExecOptions o = {0};
    why[0] = '\0';
    bool ok = ops->open(&ex, 1, &o, why, len) == CV_OK;
    if (ok && ex)
        ops->close(ex);
    if (!ok && !why[0])
        snprintf(why, len, _("the %s backend cannot start here"),
                 exec_name_at(i));
    if (av && i < MENU_BACKENDS) {
        av->asked[i] = true;
        av->ok[i] = ok;
        snprintf(av->why[i], sizeof av->why[i], "%s", ok ? "" : why);
    }
    return ok;
}

/* The machine menu: each kind, shaped for the scene's ranks. */
static const struct {
    const char *spec; /* -T's syntax; a shape of 1s is made to fit */
    const char *what; /* what it is */
} machines[] = {
    {"", N_("a port per rank, the textbook (default)")},
    {"bus", N_("one shared medium, a CPU's memory")},
    {"switch", N_("one switch")},
    {"switch,reduce", N_("a switch that multicasts (NVLS)")},
    {"ring", N_("a bidirectional ring")},
    {"torus:1x1", N_("rings in x and y")},
    {"torus:1x1x1", N_("rings in x, y and z")},
    {"mesh:1x1", N_("x and y lines, no wrap-around")},
    {"nodes:1x1", N_("GPUs on NVLink, a NIC each")},
    {"nodes:1x1,nic=shared", N_("GPUs on NVLink, a NIC per node")},
    {"fattree:1x1,over=2", N_("leaves of ranks, half as many uplinks")},
    {"gpu", N_("slices of one GPU: a launch a step, memory traffic")},
    {"host", N_("cores of one host: a barrier a step, memory traffic")},
};

bool menu_machine(int i, int p, char *out, size_t len)
{
    if (i < 0 || (size_t)i >= sizeof machines / sizeof *machines)
        return false;
    spec_for(machines[i].spec, p, out, len);
    return true;
}

static void fill_machines(const Scene *sc, Menu *m)
{
    char spec[SPEC_LEN];
    for (int i = 0; menu_machine(i, sc->call.nranks, spec, sizeof spec); i++)
        add_item(m, i, !strcmp(spec, sc->machine.spec), "%-22s %s",
                 spec[0] ? spec : "full", _(machines[i].what));
}

/* The schedule files read (-a FILE) of the scene's collective, after the
 * built-in algorithms: value algo_count() + their place among those
 * read. */
static void fill_files(const Scene *sc, Menu *m)
{
    const AlgoInfo *f[SCENE_MAX_FILES];
    size_t n = sched_file_loaded(f, SCENE_MAX_FILES);
    for (size_t i = 0; i < n; i++) {
        bool newer = false; /* an edited file: its last version only */
        for (size_t j = i + 1; j < n && !newer; j++)
            newer = !strcmp(f[j]->name, f[i]->name);
        if (!newer && f[i]->coll == sc->call.kind) {
            bool fits = algo_fits(f[i], &sc->call, &sc->machine.mach, NULL, 0);
            add_item(m, (long long)(algo_count() + i), f[i] == sc->algo,
                     "%-16s %s %s", f[i]->name, fits ? "" : _("needs"),
                     fits ? words_summary(f[i]) : words_needs(f[i]));
            m->greyed[m->n - 1] = !fits;
        }
    }
}

static void fill_items(const Scene *sc, Menu *m, MenuBackends *av)
{
    const CollCall *c = &sc->call;
    switch (m->kind) {
    case MENU_ALGO:
        for (size_t i = 0; i < algo_count(); i++)
            if (algo_at(i)->coll == c->kind) {
                char t[sizeof m->label[0]]; /* the name and its summary
                                               (cut where the box ends), or
                                               what machine it needs */
                bool fits = algo_fits(algo_at(i), c, &sc->machine.mach, NULL, 0);
                if (fits)
                    snprintf(t, sizeof t, "%-16s %s", algo_at(i)->name,
                             words_summary(algo_at(i)));
                else
                    snprintf(t, sizeof t, "%-16s %s %s", algo_at(i)->name,
                             _("needs"), words_needs(algo_at(i)));
                add_item(m, (long long)i, algo_at(i) == sc->algo, "%s", t);
                m->greyed[m->n - 1] = !fits;
            }
        fill_files(sc, m);
        break;
    case MENU_RANKS:
        for (size_t i = 0; i < sizeof rank_choices / sizeof rank_choices[0]; i++)
            add_item(m, rank_choices[i], rank_choices[i] == c->nranks, "%d",
                     rank_choices[i]);
        break;
    case MENU_SIZE: fill_sizes(sc, m); break;
    case MENU_MACHINE: fill_machines(sc, m); break;
    case MENU_BACKEND:
        for (size_t i = 0; exec_name_at(i); i++) {
            char why[160] = "";
            bool ok = backend_usable(i, sc, av, why, sizeof why);
            char *more = strchr(why, ';'); /* the reason, not the advice */
            if (more)
                *more = '\0';
            if ((more = strstr(why, " ("))) /* nor the library's detail */
                *more = '\0';
            add_item(m, (long long)i,
                     sc->backend && !strcmp(sc->backend->name, exec_name_at(i)),
                     ok ? "%s" : "%-8s (%.110s)", exec_name_at(i),
                     words_backend_why(why));
            m->greyed[m->n - 1] = !ok;
        }
        break;
    case MENU_NONE:
    case MENU_COLL:
    case MENU_DTYPE:
    case MENU_OP:
    case MENU_ROOT:
    case MENU_COUNT:
        fill_enums(sc, m);
        break;
    }
}

bool menu_open(Menu *m, MenuKind k, const Scene *sc, MenuBackends *avail)
{
    memset(m, 0, sizeof *m);
    m->kind = k;
    fill_items(sc, m, avail);
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
