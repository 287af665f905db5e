/* topo_tree.c - trees derived from a schedule's transfers. */
#include "ui/topo_tree.h"
#include "core/num.h"

#include <string.h>


/* One edge use: the pair, the data part, and who was the parent. */
typedef struct {
    int a, b;      /* the ranks, a < b */
    size_t key;    /* source offset of the transfer (the data part) */
    int parent;    /* a or b */
} EdgeUse;

#define MAX_EDGES (4 * TOPO_MAXR)

/* Record the last use of each (pair, part) into e[0 .. *n). */
static void edge_uses(const Schedule *s, EdgeUse *e, int *n)
{
    bool up = s->call.kind == COLL_REDUCE || s->call.kind == COLL_GATHER;
    *n = 0;
    for (size_t x = 0; x < s->nxfers; x++) {
        const Transfer *t = &s->xfers[x];
        if (t->src == t->dst || t->src >= TOPO_MAXR || t->dst >= TOPO_MAXR)
            continue;
        int a = num_min(t->src, t->dst), b = num_max(t->src, t->dst), i = 0;
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
    if (*ntrees == TOPO_MAX_TREES)
        return -1;
    keys[*ntrees] = key;
    return (*ntrees)++;
}

/* Whether making u the parent of v in tree t closes a cycle. */
static bool makes_cycle(const TopoForest *f, int t, int u, int v)
{
    for (int x = u, hops = 0; x >= 0 && hops <= TOPO_MAXR; x = f->par[t][x], hops++)
        if (x == v)
            return true;
    return false;
}

void topo_tree_build(const Schedule *s, int p, TopoForest *f)
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
