/* topo_pairs.c - pairs: how the step pairs ranks (a hypercube's distance,
 * or an offset mod p), the step's pairs as tokens, then the idle ranks.
 * Every shape falls back on it when it does not fit. */
#include "ui/topo.h"
#include "core/num.h"
#include "ui/i18n.h"

#include <stdio.h>
#include <string.h>


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
static void draw_pattern(TopoCtx *c, Rect area)
{
    const Schedule *s = &c->sc->sched;
    int x = area.x, xd, off, seen[16], n = 0;
    if (c->lk.shown) {
        step_pattern(s, c->lk.k, &xd, &off);
        if (xd)
            grid_printf(c->g, area, x, area.y, -1, ROLE_DIM, 0,
                        _("pairs at distance %d"), xd);
        else if (off)
            grid_printf(c->g, area, x, area.y, -1, ROLE_DIM, 0,
                        _("r sends to r%+d mod %d"), signed_off(off, c->lk.p),
                        c->lk.p);
        else
            grid_text(c->g, area, x, area.y, -1, ROLE_DIM, 0,
                      _("pairs of this step"));
        return;
    }
    x += grid_text(c->g, area, x, area.y, -1, ROLE_DIM, 0,
                   _("pairs at distance"));
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
int topo_pairs(TopoCtx *c, Rect area)
{
    TopoToken t[TOPO_MAXR * 2 + TOPO_MAXR + 1];
    int p = num_min(c->lk.p, TOPO_MAXR);
    if (area.h < 2)
        return -1;
    draw_pattern(c, area);
    int n = topo_pair_tokens(c, t, TOPO_MAXR * 2), busy = 0;
    for (int r = 0; r < p; r++)
        busy += c->lk.busy[r];
    if (busy > 0 && busy < p) {
        t[n] = topo_token_empty();
        snprintf(t[n].text[0], sizeof t[n].text[0], "%s", _("idle:"));
        t[n++].role[0] = ROLE_DIM;
    }
    for (int r = 0; r < p; r++)
        if (!c->lk.busy[r]) {
            TopoToken *k = &t[n++];
            *k = topo_token_empty();
            k->rank[0] = r;
            unsigned at;
            k->role[0] = topo_node_role(c, r, &at);
            k->attr[0] = at;
            snprintf(k->text[0], sizeof k->text[0], "%d", r);
        }
    Rect rest = {area.x, area.y + 1, area.w, area.h - 1};
    return 1 + topo_flow(c, rest, t, n);
}
