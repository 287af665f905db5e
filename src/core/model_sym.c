/* model_sym.c - a step priced by representatives of its translations
 * (model.h, pricer_sym_step).
 *
 * Moving every rank one place along dimension d (its coordinate c_d to
 * c_d + 1 mod d_d, the others kept) maps a torus onto itself, links,
 * classes and routes; so does it a node machine's switches, and a mesh's
 * links for messages that never move along d (their routes stay in the
 * lines of the other dimensions). Where a step's transfers are the same
 * after such a move (a butterfly's exchanges in x are the same in every
 * row), every link's load is its translates' loads, and every message
 * costs what its translates cost: the loads of one link of each orbit
 * (the one whose owner has coordinate 0 in those dimensions) come from
 * the messages of the ranks there alone, each adding its bytes to the
 * orbit of every link it crosses, and the slowest message is among those
 * ranks' (the first of a price in rank order, as the general rule names
 * it). The result is the general rule's bit for bit, at a fraction of the
 * routing. No I/O, no globals. */
#include "core/model.h"

#include <stdlib.h>
#include <string.h>

/* A transfer's key and how many of the step's have it. */
typedef struct {
    int32_t src, dst; /* src -1: a free slot */
    uint8_t op, flags;
    uint32_t mult;
    size_t count;
} SymKey;

struct PricerSym {
    SymKey *tab;   /* [cap] open addressing */
    size_t cap;
};

void pricer_sym_free(Pricer *pr)
{
    if (pr->sym_tab)
        free(pr->sym_tab->tab);
    free(pr->sym_tab);
    pr->sym_tab = NULL;
}

/* Whether m's links and routes allow it: dimensions of rings, meshes,
 * full lines and switches of a port per rank, ranks at their places, no
 * link or rank fixed, no fat tree's core. */
static bool sym_machine(const Machine *m)
{
    if (m->ndims < 2 || m->cyclic || machine_has_medium(m) ||
        machine_has_reducing_switch(m) || m->nfix || m->backbone)
        return false; /* (a fixed link or rank is unlike its translates) */
    for (int d = 0; d < m->ndims; d++)
        if (m->dim[d].kind == DIM_SWITCH && m->dim[d].shared)
            return false;
    return true;
}

static int coord_of(const Machine *m, int r, int d)
{
    return r / m->stride[d] % m->dim[d].size;
}

/* Rank r moved one place along dimension d. */
static int sym_move(const Machine *m, int r, int d)
{
    int c = coord_of(m, r, d);
    return r + ((c + 1) % m->dim[d].size - c) * m->stride[d];
}

static size_t key_hash(const SymKey *k, size_t cap)
{
    size_t h = (size_t)k->src * 0x9E3779B97F4A7C15ull ^
               (size_t)k->dst * 0xC2B2AE3D27D4EB4Full ^ k->count * 31 ^
               (size_t)k->op * 7 ^ (size_t)k->flags * 131;
    return (h ^ (h >> 29)) & (cap - 1);
}

/* The slot of key k (its own, or the free one where it would go). */
static SymKey *key_find(const struct PricerSym *ps, const SymKey *k)
{
    for (size_t i = key_hash(k, ps->cap);; i = (i + 1) & (ps->cap - 1)) {
        SymKey *t = &ps->tab[i];
        if (t->src < 0 || (t->src == k->src && t->dst == k->dst &&
                           t->count == k->count && t->op == k->op &&
                           t->flags == k->flags))
            return t;
    }
}

static SymKey key_of(const Transfer *t)
{
    return (SymKey){t->src, t->dst, t->op, t->flags, 0, t->count};
}

/* The step's messages' transfers xs[0 .. nx) into the table, counted. */
static CvError sym_fill(Pricer *pr, const Transfer *xs, size_t nx)
{
    struct PricerSym *ps = pr->sym_tab;
    if (!ps && !(ps = pr->sym_tab = calloc(1, sizeof *ps)))
        return CV_ERR_NOMEM;
    size_t cap = 64;
    while (cap < 2 * nx)
        cap *= 2;
    if (cap > ps->cap) {
        SymKey *t = realloc(ps->tab, cap * sizeof *t);
        if (!t)
            return CV_ERR_NOMEM;
        ps->tab = t, ps->cap = cap;
    }
    for (size_t i = 0; i < ps->cap; i++)
        ps->tab[i].src = -1;
    for (size_t i = 0; i < nx; i++) {
        if (xs[i].src == xs[i].dst)
            continue; /* local work crosses no link */
        SymKey k = key_of(&xs[i]), *t = key_find(ps, &k);
        if (t->src < 0)
            *t = k;
        t->mult++;
    }
    return CV_OK;
}

/* Whether moving every rank along d maps the step onto itself (and, on a
 * dimension whose lines a move does not map onto themselves, no message
 * moves along it). */
static bool sym_dim(const Pricer *pr, const Transfer *xs, size_t nx, int d)
{
    const Machine *m = pr->m;
    const MachineDim *md = &m->dim[d];
    bool moves = md->kind == DIM_RING || md->kind == DIM_SWITCH;
    for (size_t i = 0; i < nx; i++) {
        const Transfer *t = &xs[i];
        if (t->src == t->dst)
            continue;
        if (!moves && coord_of(m, t->src, d) != coord_of(m, t->dst, d))
            return false;
        SymKey k = key_of(t), y = k;
        y.src = sym_move(m, t->src, d), y.dst = sym_move(m, t->dst, d);
        const SymKey *a = key_find(pr->sym_tab, &k);
        const SymKey *b = key_find(pr->sym_tab, &y);
        if (b->src < 0 || b->mult != a->mult)
            return false;
    }
    return true;
}

CvError pricer_sym_step(Pricer *pr, const Transfer *xs, size_t nx)
{
    const Machine *m = pr->m;
    pr->sym = 0;
    if (!pr->lean || pr->flowing || pr->expand || nx < 16 || !sym_machine(m))
        return CV_OK;
    CvError e = sym_fill(pr, xs, nx);
    for (int d = 0; d < m->ndims && !e; d++)
        if (m->dim[d].size > 1 && sym_dim(pr, xs, nx, d))
            pr->sym |= 1 << d;
    return e;
}

bool pricer_sym_rep(const Pricer *pr, int r)
{
    for (int d = 0; d < pr->m->ndims; d++)
        if ((pr->sym & (1 << d)) && coord_of(pr->m, r, d))
            return false;
    return true;
}

/* Link l as the one of its orbit whose owner has coordinate 0 in the
 * dimensions of pr->sym: links of dimension e are, from its first, w per
 * rank (2: up and down, or into a switch and out; a full line's: one to
 * each coordinate), so l's owner is (l - base) / w. */
static int sym_link(const Pricer *pr, int l)
{
    const Machine *m = pr->m;
    long long base = 0, p = m->nranks;
    for (int e = 0; e < m->ndims; e++) {
        const MachineDim *md = &m->dim[e];
        long long w = md->kind == DIM_FULL ? md->size : 2;
        if (l >= base + w * p) {
            base += w * p;
            continue;
        }
        long long own = (l - base) / w, k = (l - base) % w, o = own;
        for (int d = 0; d < m->ndims; d++)
            if (pr->sym & (1 << d))
                o -= (long long)coord_of(m, (int)own, d) * m->stride[d];
        return (int)(base + o * w + k);
    }
    return l;
}

void pricer_sym_route(const Pricer *pr, int *route, int hops)
{
    for (int h = 0; h < hops; h++)
        route[h] = sym_link(pr, route[h]);
}
