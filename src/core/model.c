/* model.c - alpha-beta-gamma costs of schedules on a machine's links
 * (a memory machine's steps: model_mem.c). */
#include "core/model.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/num.h"

int model_log2_ceil(int p)
{
    int k = 0;
    while (p > 1 && (1 << k) < p)
        k++;
    return k;
}


/* ------------------------------------------------------------- pricing */

/* A step's transfer between two ranks, for grouping by pair. */
typedef struct {
    int src, dst; /* ranks */
    size_t x;     /* index in the schedule */
    size_t roff;  /* a group's first pair: its route in Pricer.routes */
    int hops;     /* and its length */
} Pair;

/* A transfer's claim on a reducing switch's link, merged when equal. */
typedef struct {
    int link;      /* the link (-1: free slot) */
    int rank;      /* the destination (reduce) or source (multicast) */
    int buf;       /* its buffer */
    size_t off;    /* first element */
    size_t count;  /* elements */
} Claim;

CvError pricer_init(Pricer *pr, const Machine *m)
{
    *pr = (Pricer){.m = m, .maxhops = machine_max_hops(m)};
    pr->bytes = calloc((size_t)m->nlinks, sizeof *pr->bytes);
    pr->msgs = calloc((size_t)m->nlinks, sizeof *pr->msgs);
    pr->touched = malloc((size_t)m->nlinks * sizeof *pr->touched);
    pr->reduced = calloc((size_t)m->nranks, sizeof *pr->reduced);
    pr->copied = calloc((size_t)m->nranks, sizeof *pr->copied);
    pr->moved = calloc((size_t)m->nranks, sizeof *pr->moved);
    pr->rtouched = malloc((size_t)m->nranks * sizeof *pr->rtouched);
    pr->cnt = malloc(((size_t)m->nranks + 1) * sizeof *pr->cnt);
    pr->route = malloc((size_t)(pr->maxhops + 1) * sizeof *pr->route);
    pr->hop_used = malloc((size_t)(pr->maxhops + 1));
    pr->clock = malloc((size_t)m->nranks * sizeof *pr->clock);
    pr->flow_end = malloc((size_t)m->nranks * sizeof *pr->flow_end);
    if (!pr->bytes || !pr->msgs || !pr->touched || !pr->reduced ||
        !pr->copied || !pr->moved || !pr->rtouched || !pr->cnt || !pr->route ||
        !pr->hop_used || !pr->clock || !pr->flow_end) {
        pricer_fini(pr);
        return CV_ERR_NOMEM;
    }
    return CV_OK;
}

void pricer_fini(Pricer *pr)
{
    free(pr->bytes);
    free(pr->msgs);
    free(pr->touched);
    free(pr->reduced);
    free(pr->copied);
    free(pr->moved);
    free(pr->rtouched);
    free(pr->cnt);
    free(pr->rot);
    free(pr->scratch);
    free(pr->route);
    free(pr->hop_used);
    free(pr->routes);
    free(pr->memx);
    free(pr->clock);
    free(pr->flow_end);
    pricer_lines_free(pr);
    pricer_sym_free(pr);
    *pr = (Pricer){0};
}

/* ------------------------------------------------------------ data-flow */

const char *model_pricing_name(PricingMode mode)
{
    switch (mode) {
    case PRICING_LOCKSTEP: return "lockstep";
    case PRICING_DATAFLOW: return "dataflow";
    case PRICING_COUNT: break;
    }
    return "?";
}

int model_pricing_parse(const char *name)
{
    for (int i = 0; i < PRICING_COUNT; i++)
        if (!strcmp(name, model_pricing_name((PricingMode)i)))
            return i;
    return -1;
}

void pricer_flow_message(Pricer *pr, int src, int dst, double t)
{
    double end = num_dmax(pr->clock[src], pr->clock[dst]) + t;
    pr->flow_end[src] = num_dmax(pr->flow_end[src], end);
    pr->flow_end[dst] = num_dmax(pr->flow_end[dst], end);
}

void pricer_flow_rank(Pricer *pr, int r)
{
    if (pr->flow_end[r] < 0)
        return; /* settled */
    pr->clock[r] = pr->flow_end[r] + pr->reduced[r] * pr->m->gamma *
                                         machine_rank_slow(pr->m, r);
    pr->flow_end[r] = -1;
    pr->flow_time = num_dmax(pr->flow_time, pr->clock[r]);
}

/* The step's end on every rank that took part: the ranks of its
 * messages (pairs[0 .. n)) and those with local work (pr->rtouched), each
 * then reducing its bytes. */
static void flow_settle(Pricer *pr, const Pair *pairs, size_t n)
{
    for (int i = 0; i < pr->nrtouched; i++) { /* local work only */
        int r = pr->rtouched[i];
        pr->flow_end[r] = num_dmax(pr->flow_end[r], pr->clock[r]);
    }
    for (size_t i = 0; i < 2 * n + (size_t)pr->nrtouched; i++)
        pricer_flow_rank(pr, i >= 2 * n ? pr->rtouched[i - 2 * n]
                             : i % 2 ? pairs[i / 2].dst : pairs[i / 2].src);
}

static int pair_cmp(const void *a, const void *b)
{
    const Pair *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return x->x < y->x ? -1 : x->x > y->x;
}

/* Room for n pairs and 2n claims in pr->scratch. */
CvError pricer_scratch_fit(Pricer *pr, size_t n)
{
    if (n <= pr->scratch_cap)
        return CV_OK;
    size_t cap = n * 2;
    void *p = realloc(pr->scratch, cap * (sizeof(Pair) + 4 * sizeof(Claim)));
    if (!p)
        return CV_ERR_NOMEM;
    pr->scratch = p, pr->scratch_cap = cap;
    return CV_OK;
}

void pricer_clear_loads(Pricer *pr)
{
    for (int i = 0; i < pr->ntouched; i++) {
        pr->bytes[pr->touched[i]] = 0;
        pr->msgs[pr->touched[i]] = 0;
    }
    pr->ntouched = 0;
    for (int i = 0; i < pr->nrtouched; i++)
        pr->reduced[pr->rtouched[i]] = pr->copied[pr->rtouched[i]] =
            pr->moved[pr->rtouched[i]] = 0;
    pr->nrtouched = 0;
}

/* Add local work to rank r's reduced or copied bytes. */
void pricer_rank_work(Pricer *pr, double *at, int r, double bytes)
{
    if (pr->reduced[r] == 0 && pr->copied[r] == 0 && pr->moved[r] == 0)
        pr->rtouched[pr->nrtouched++] = r;
    at[r] += bytes;
}

/* Whether this claim on a switch link was made before in the step (it
 * then crosses the link merged with the first); records it if not. The
 * table has 4 * cap slots of which fewer than half are used. */
static bool claimed(Claim *tab, size_t slots, Claim c)
{
    size_t h = ((size_t)c.link * 0x9E3779B97F4A7C15ull) ^
               ((size_t)c.rank * 0xC2B2AE3D27D4EB4Full) ^ c.off * 31 ^
               c.count * 131 ^ (size_t)c.buf;
    for (size_t i = h % slots;; i = (i + 1) % slots) {
        Claim *t = &tab[i];
        if (t->link < 0) {
            *t = c;
            return false;
        }
        if (t->link == c.link && t->rank == c.rank && t->buf == c.buf &&
            t->off == c.off && t->count == c.count)
            return true;
    }
}

/* Add transfer t's bytes to the links of route[0 .. hops), a copy merged
 * where it meets an equal one entering a multicasting switch, and a copy
 * the switch sums (XF_SWITCH) where it leaves it with the others into the
 * same rank of the same size (pr->hop_used[h] set where it added bytes). */
static void load_xfer(Pricer *pr, const Transfer *t, double bytes,
                      const int *route, int hops, Claim *tab, size_t slots)
{
    const Machine *m = pr->m;
    for (int h = 0; h < hops; h++) {
        int l = route[h];
        if (tab && t->op == XFER_COPY && machine_link_multicasts(m, l) &&
            claimed(tab, slots, (Claim){l, t->src, t->src_buf, t->src_off,
                                        t->count}))
            continue;
        if (tab && t->op == XFER_COPY && (t->flags & XF_SWITCH) &&
            machine_link_reduces(m, l) &&
            claimed(tab, slots, (Claim){l, t->dst, BUF_COUNT + t->dst_buf, 0,
                                        t->count}))
            continue;
        if (pr->bytes[l] == 0 && pr->msgs[l] == 0)
            pr->touched[pr->ntouched++] = l;
        pr->bytes[l] += bytes;
        pr->hop_used[h] = 1;
    }
}

/* The terms and time of the message along route[0 .. hops). */
static void price_message(const Pricer *pr, const int *route, int hops,
                          bool terms_only,
                          CostTerms *c, double part[3], int *busiest,
                          double *busiest_t)
{
    const Machine *m = pr->m;
    double ta = 0, tb = 0, lat = 0;
    *c = (CostTerms){0};
    *busiest = -1, *busiest_t = 0;
    for (int h = 0; h < hops; h++) {
        int l = route[h];
        const LinkClass *k = &m->cls[machine_link_class(m, l)];
        lat += k->lat;
        if (k->alpha > 0 && (terms_only ? pr->msgs[l] > c->a
                                        : pr->msgs[l] * k->alpha > ta))
            c->a = pr->msgs[l], ta = pr->msgs[l] * k->alpha;
        if (k->beta > 0 && (terms_only ? pr->bytes[l] > c->b
                                       : pr->bytes[l] * k->beta > tb))
            c->b = pr->bytes[l], tb = pr->bytes[l] * k->beta, *busiest = l;
    }
    *busiest_t = tb;
    part[0] = ta, part[1] = tb, part[2] = lat;
}

/* Group the step's transfers between ranks by pair into pairs[0 .. *n);
 * local work goes to the ranks' reduced and copied bytes (a reduce that a
 * reducing switch does, XF_SWITCH, costs no rank where there is one). */
/* Sort a step's pairs by (src, dst, x) (pair_cmp's order). Many of them
 * (a quarter of the ranks or more): counted by source into the scratch
 * behind them (free until the claims), each source's run then by
 * destination; few: qsort. The pairs come in x order. */
static void sort_pairs(Pricer *pr, Pair *pairs, size_t n)
{
    int p = pr->m->nranks;
    if (n < (size_t)p / 4 + 16 || !pr->cnt) {
        qsort(pairs, n, sizeof *pairs, pair_cmp);
        return;
    }
    Pair *tmp = pairs + pr->scratch_cap; /* the claims' room: 4 cap */
    memset(pr->cnt, 0, ((size_t)p + 1) * sizeof *pr->cnt);
    for (size_t i = 0; i < n; i++)
        pr->cnt[pairs[i].src + 1]++;
    for (int r = 0; r < p; r++)
        pr->cnt[r + 1] += pr->cnt[r];
    for (size_t i = 0; i < n; i++)
        tmp[pr->cnt[pairs[i].src]++] = pairs[i];
    memcpy(pairs, tmp, n * sizeof *pairs);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && pairs[j].src == pairs[i].src)
            j++;
        if (j - i > 16) {
            qsort(pairs + i, j - i, sizeof *pairs, pair_cmp);
        } else {
            for (size_t a = i + 1; a < j; a++) { /* stable: x stays in order */
                Pair v = pairs[a];
                size_t b = a;
                for (; b > i && pairs[b - 1].dst > v.dst; b--)
                    pairs[b] = pairs[b - 1];
                pairs[b] = v;
            }
        }
        i = j;
    }
}

static void step_pairs(Pricer *pr, const Transfer *xs, size_t nx,
                       double ts, bool sw, Pair *pairs, size_t *n)
{
    *n = 0;
    for (size_t x = 0; x < nx; x++) {
        const Transfer *t = &xs[x];
        if (t->op == XFER_REDUCE && !(sw && (t->flags & XF_SWITCH)))
            pricer_rank_work(pr, pr->reduced, t->dst, (double)t->count * ts);
        if (t->src == t->dst) {
            if (t->op == XFER_COPY)
                pricer_rank_work(pr, pr->copied, t->dst, (double)t->count * ts);
            continue;
        }
        pairs[(*n)++] = (Pair){t->src, t->dst, x, 0, 0};
    }
    for (size_t i = 1; i < *n; i++)
        if (pair_cmp(&pairs[i - 1], &pairs[i]) > 0) {
            sort_pairs(pr, pairs, *n);
            break;
        }
}

/* Room for n more route links in pr->routes. */
static CvError routes_fit(Pricer *pr, size_t n)
{
    if (pr->nroutes + n <= pr->routes_cap)
        return CV_OK; /* room enough (routes may still be NULL) */
    int *r = grow_array(pr->routes, &pr->routes_cap, pr->nroutes + n,
                        sizeof *r, 64);
    if (!r)
        return CV_ERR_NOMEM;
    pr->routes = r;
    return CV_OK;
}

/* Route links kept per step at most (16 MiB): beyond, price_pairs routes
 * each pair again instead (a step of all pairs on a long ring). */
#define ROUTES_KEPT (1u << 22)

/* Route each pair once (kept in pr->routes for price_pairs while they
 * fit); load its links with its transfers and count it once as a message
 * on each. */
static CvError load_pairs(Pricer *pr, const Transfer *xs, Pair *pairs,
                          size_t n, double ts, Claim *tab, size_t slots)
{
    pr->nroutes = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int hops = machine_route(pr->m, pairs[i].src, pairs[i].dst,
                                 pr->route, pr->maxhops + 1);
        if (pr->sym) /* each link's orbit's */
            pricer_sym_route(pr, pr->route, hops);
        pairs[i].hops = hops, pairs[i].roff = SIZE_MAX;
        if (pr->nroutes + (size_t)hops <= ROUTES_KEPT) {
            if (routes_fit(pr, (size_t)hops))
                return CV_ERR_NOMEM;
            memcpy(pr->routes + pr->nroutes, pr->route,
                   (size_t)hops * sizeof *pr->route);
            pairs[i].roff = pr->nroutes;
            pr->nroutes += (size_t)hops;
        }
        memset(pr->hop_used, 0, (size_t)hops);
        for (; j < n && pairs[j].src == pairs[i].src &&
               pairs[j].dst == pairs[i].dst; j++) {
            const Transfer *t = &xs[pairs[j].x];
            load_xfer(pr, t, (double)t->count * ts, pr->route, hops, tab, slots);
        }
        for (int h = 0; h < hops; h++)
            pr->msgs[pr->route[h]] += pr->hop_used[h];
        i = j;
    }
    return CV_OK;
}

/* On one switch (the full machine: a message goes up its source's port,
 * 2 src, and down its destination's, 2 dst + 1, one class of links) the
 * loads and prices of load_pairs and price_pairs, without routing. */
static bool one_switch(const Machine *m)
{
    return !machine_has_medium(m) && m->ndims == 1 && !m->nfix &&
           m->dim[0].kind == DIM_SWITCH && !m->dim[0].shared &&
           !m->dim[0].reduce && !m->cyclic;
}

void pricer_touch(Pricer *pr, int l)
{
    if (pr->bytes[l] == 0 && pr->msgs[l] == 0)
        pr->touched[pr->ntouched++] = l;
}

static void switch_pairs(Pricer *pr, const Transfer *xs, const Pair *pairs,
                         size_t n, double ts, bool terms_only, StepPrice *out)
{
    const LinkClass *k = &pr->m->cls[pr->m->dim[0].cls];
    for (size_t i = 0; i < n;) { /* loads: one message per pair */
        int up = 2 * pairs[i].src, down = 2 * pairs[i].dst + 1;
        double b = 0;
        size_t j = i;
        for (; j < n && pairs[j].src == pairs[i].src &&
               pairs[j].dst == pairs[i].dst; j++)
            b += (double)xs[pairs[j].x].count * ts;
        pricer_touch(pr, up);
        pricer_touch(pr, down);
        pr->bytes[up] += b, pr->bytes[down] += b;
        pr->msgs[up]++, pr->msgs[down]++;
        i = j;
    }
    double worst = -1, worst_busy = -1;
    for (size_t i = 0; i < n; i++) {
        if (i && pairs[i].src == pairs[i - 1].src &&
            pairs[i].dst == pairs[i - 1].dst)
            continue;
        int up = 2 * pairs[i].src, down = 2 * pairs[i].dst + 1;
        double ma = pr->msgs[up], md = pr->msgs[down];
        double ba = pr->bytes[up], bd = pr->bytes[down];
        double a = k->alpha > 0 ? (md > ma ? md : ma) : 0;
        double b = k->beta > 0 ? (bd > ba ? bd : ba) : 0;
        int busiest = k->beta > 0 && b > 0 ? (bd > ba ? down : up) : -1;
        double ta = a * k->alpha, tb = b * k->beta;
        double t = ta + tb + 2 * k->lat;
        if (pr->flowing && !terms_only)
            pricer_flow_message(pr, pairs[i].src, pairs[i].dst, t);
        if (terms_only) {
            out->terms.a = num_dmax(out->terms.a, a);
            out->terms.b = num_dmax(out->terms.b, b);
        } else if (t > worst) {
            worst = t;
            out->terms.a = a, out->terms.b = b;
            out->crit_src = pairs[i].src, out->crit_dst = pairs[i].dst;
            out->t_alpha = ta, out->t_beta = tb, out->t_lat = 2 * k->lat;
        }
        if (busiest >= 0 && tb > worst_busy)
            worst_busy = tb, out->busiest = busiest, out->busiest_time = tb;
    }
    out->time = worst > 0 ? worst : 0;
}

/* The slowest message of the step (each term's max when terms_only). */
static void price_pairs(Pricer *pr, const Pair *pairs, size_t n,
                        bool terms_only, StepPrice *out)
{
    double worst = -1, worst_busy = -1;
    for (size_t i = 0; i < n; i++) {
        if (i && pairs[i].src == pairs[i - 1].src &&
            pairs[i].dst == pairs[i - 1].dst)
            continue;
        int hops = pairs[i].hops, busiest;
        const int *route = pr->route;
        if (pairs[i].roff == SIZE_MAX) { /* not kept: route it again */
            machine_route(pr->m, pairs[i].src, pairs[i].dst, pr->route,
                          pr->maxhops + 1);
            if (pr->sym)
                pricer_sym_route(pr, pr->route, hops);
        } else
            route = pr->routes + pairs[i].roff;
        CostTerms c;
        double part[3], bt;
        price_message(pr, route, hops, terms_only, &c, part, &busiest, &bt);
        if (pr->m->nfix) { /* a slow rank's or path's messages */
            double f = machine_msg_slow(pr->m, pairs[i].src, pairs[i].dst);
            part[0] *= f, part[1] *= f, bt *= f;
        }
        double t = part[0] + part[1] + part[2];
        if (pr->flowing && !terms_only)
            pricer_flow_message(pr, pairs[i].src, pairs[i].dst, t);
        if (terms_only) {
            out->terms.a = num_dmax(out->terms.a, c.a);
            out->terms.b = num_dmax(out->terms.b, c.b);
        } else if (t > worst) {
            worst = t;
            out->terms.a = c.a, out->terms.b = c.b;
            out->crit_src = pairs[i].src, out->crit_dst = pairs[i].dst;
            out->t_alpha = part[0], out->t_beta = part[1], out->t_lat = part[2];
        }
        if (busiest >= 0 && bt > worst_busy)
            worst_busy = bt, out->busiest = busiest, out->busiest_time = bt;
    }
    out->time = worst > 0 ? worst : 0;
}

/* Keep the pairs of pairs[0 .. n) that leave a representative rank
 * (pricer_sym_rep), in order; their number. */
static size_t sym_pairs(const Pricer *pr, Pair *pairs, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (pricer_sym_rep(pr, pairs[i].src))
            pairs[k++] = pairs[i];
    return k;
}

/* Price the transfers xs[0 .. nx) of a step of s. */
static CvError price_xfers(Pricer *pr, const Schedule *s, const Transfer *xs,
                           size_t nx, bool terms_only, StepPrice *out)
{
    const Machine *m = pr->m;
    double ts = (double)dtype_size(s->call.dtype);
    if (pricer_scratch_fit(pr, nx))
        return CV_ERR_NOMEM;
    pricer_clear_loads(pr);
    Pair *pairs = pr->scratch;
    Claim *tab = NULL;
    size_t n, slots = 4 * pr->scratch_cap;
    bool sw = machine_has_reducing_switch(m);
    step_pairs(pr, xs, nx, ts, sw, pairs, &n);
    size_t all = n;
    if (pricer_sym_step(pr, xs, nx))
        return CV_ERR_NOMEM;
    if (pr->sym) /* the messages of the representatives' ranks */
        n = sym_pairs(pr, pairs, n);
    if (sw) {
        tab = (Claim *)(pairs + pr->scratch_cap);
        for (size_t i = 0; i < slots; i++)
            tab[i].link = -1;
    }
    if (one_switch(m))
        switch_pairs(pr, xs, pairs, n, ts, terms_only, out);
    else if (load_pairs(pr, xs, pairs, n, ts, tab, slots))
        return CV_ERR_NOMEM;
    else
        price_pairs(pr, pairs, n, terms_only, out);
    double gt = 0; /* the slowest rank's reducing, in bytes at gamma */
    for (int i = 0; i < pr->nrtouched; i++) {
        int r = pr->rtouched[i];
        out->terms.g = num_dmax(out->terms.g, pr->reduced[r]);
        out->copied = num_dmax(out->copied, pr->copied[r]);
        gt = num_dmax(gt, pr->reduced[r] *
                              (m->nfix ? machine_rank_slow(m, r) : 1));
    }
    out->terms.steps = all > 0;
    if (!terms_only)
        out->time += gt * m->gamma;
    if (pr->flowing && !terms_only)
        flow_settle(pr, pairs, n);
    pr->sym = 0;
    return CV_OK;
}

/* A delta's group of a spread step: its transfers between ranks all go
 * from some rank r to r + delta, one message orbit. */
typedef struct {
    int delta;    /* dst - src mod p */
    double bytes; /* the orbit's bytes per message */
} Orbit;

static int orbit_cmp(const void *a, const void *b)
{
    const Orbit *x = a, *y = b;
    return (x->delta > y->delta) - (x->delta < y->delta);
}

/* Whether a spread step can be priced by its orbits on pr's machine: one
 * that rotation maps onto itself, links moving with their rank, no switch
 * that merges copies (those compare offsets across ranks); not while the
 * data-flow clocks move (each rank's messages move its own). */
static bool orbit_pricing(const Pricer *pr)
{
    return !pr->expand && !pr->flowing && machine_shift_invariant(pr->m) &&
           machine_links_move(pr->m) && !machine_has_reducing_switch(pr->m);
}

/* A spread entry priced by its orbits: every rank does what the entry
 * lists, so rank r's links 2 r + d carry what the entry's messages put on
 * links of direction d (each (orbit, hop) pair lands on every rank's link
 * once), a link of nobody's (a bus's medium) p times that, and every rank
 * reduces and copies what the entry lists. Loads of the rank links stay in
 * pr->orbit_bytes[d], pr->orbit_msgs[d]; the others in bytes[]/msgs[]. */
/* The orbits of step st into pr->scratch, equal deltas merged (one
 * message); their number. The bytes reduced and copied in place go to
 * *red and *copied. */
static size_t step_orbits(Pricer *pr, const Schedule *s, const Step *st,
                          double *red, double *copied)
{
    int p = pr->m->nranks;
    double ts = (double)dtype_size(s->call.dtype);
    Orbit *o = pr->scratch;
    size_t n = 0;
    *red = *copied = 0;
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *t = &s->xfers[st->first + i];
        double b = (double)t->count * ts;
        if (t->op == XFER_REDUCE)
            *red += b;
        if (t->src == t->dst) {
            *copied += t->op == XFER_COPY ? b : 0;
            continue;
        }
        o[n++] = (Orbit){((t->dst - t->src) % p + p) % p, b};
    }
    qsort(o, n, sizeof *o, orbit_cmp);
    size_t g = 0;
    for (size_t i = 0; i < n; i++)
        if (g && o[g - 1].delta == o[i].delta)
            o[g - 1].bytes += o[i].bytes;
        else
            o[g++] = o[i];
    return g;
}

static CvError price_orbits(Pricer *pr, const Schedule *s, const Step *st,
                            bool terms_only, StepPrice *out)
{
    const Machine *m = pr->m;
    int p = m->nranks;
    double red, copied;
    if (pricer_scratch_fit(pr, st->n))
        return CV_ERR_NOMEM;
    pricer_clear_loads(pr);
    Orbit *o = pr->scratch;
    size_t g = step_orbits(pr, s, st, &red, &copied);
    pr->orbit_bytes[0] = pr->orbit_bytes[1] = 0;
    pr->orbit_msgs[0] = pr->orbit_msgs[1] = 0;
    pr->orbits = true;
    for (size_t i = 0; i < g; i++) {
        int hops = machine_route(m, 0, o[i].delta, pr->route, pr->maxhops + 1);
        for (int h = 0; h < hops; h++) {
            int l = pr->route[h];
            if (l < 2 * p) {
                pr->orbit_bytes[l % 2] += o[i].bytes;
                pr->orbit_msgs[l % 2]++;
                continue;
            }
            pricer_touch(pr, l);
            pr->bytes[l] += (double)p * o[i].bytes;
            pr->msgs[l] += p;
        }
    }
    /* the rank links the orbits' routes from rank 0 cross hold their
       direction's load (every rank's alike); then each orbit is one
       message, priced as any step's */
    Pair *pairs = (Pair *)pr->scratch + pr->scratch_cap; /* claims' room */
    for (size_t i = 0; i < g; i++) {
        int hops = machine_route(m, 0, o[i].delta, pr->route, pr->maxhops + 1);
        for (int h = 0; h < hops; h++) {
            int l = pr->route[h];
            if (l < 2 * p) {
                pricer_touch(pr, l);
                pr->bytes[l] = pr->orbit_bytes[l % 2];
                pr->msgs[l] = pr->orbit_msgs[l % 2];
            }
        }
        pairs[i] = (Pair){0, o[i].delta, i, SIZE_MAX, hops};
    }
    price_pairs(pr, pairs, g, terms_only, out);
    out->terms.g = red;
    out->copied = copied;
    out->terms.steps = g > 0;
    if (!terms_only)
        out->time += out->terms.g * m->gamma;
    return CV_OK;
}

CvError price_step_rep(Pricer *pr, const Schedule *s, size_t k, size_t j,
                       bool terms_only, StepPrice *out)
{
    int p = s->call.nranks;
    *out = (StepPrice){.busiest = -1, .crit_src = -1, .crit_dst = -1};
    pr->orbits = false;
    if (k >= s->nsteps || p != pr->m->nranks ||
        j >= (s->compact ? s->steps[k].reps : 1))
        return CV_ERR_ARG;
    const Step *st = &s->steps[k];
    bool mem = machine_is_memory(pr->m);
    if (st->spread && !mem && orbit_pricing(pr))
        return price_orbits(pr, s, st, terms_only, out);
    bool done;
    CvError e = pricer_lines_rep(pr, s, k, j, terms_only, out, &done);
    if (e || done)
        return e;
    const Transfer *xs;
    size_t n;
    e = sched_entry_fill(s, k, j, &pr->rot, &pr->rot_cap, &xs, &n);
    if (!e && mem)
        return pricer_memory_step(pr, s, xs, n, k == 0 && j == 0, terms_only,
                                  out);
    return e ? e : price_xfers(pr, s, xs, n, terms_only, out);
}

CvError price_step(Pricer *pr, const Schedule *s, size_t k, bool terms_only,
                   StepPrice *out)
{
    return price_step_rep(pr, s, k, 0, terms_only, out);
}

bool model_machine_uniform(const Machine *m, ModelParams *mp)
{
    const LinkClass *c = m->cls;
    if (machine_is_memory(m) || m->nfix)
        return false;
    for (int i = 0; i < m->ncls; i++)
        if (c[i].lat > 0)
            return false;
    if (m->kind == MACHINE_BUS) {
        *mp = (ModelParams){c[0].alpha, c[1].beta, m->gamma};
        return c[0].beta == 0 && c[1].alpha == 0;
    }
    *mp = (ModelParams){c[0].alpha, c[0].beta, m->gamma};
    for (int i = 1; i < m->ncls; i++)
        if (c[i].alpha != c[0].alpha || c[i].beta != c[0].beta)
            return false;
    return true;
}

/* The mean of the links a transfer of s crosses on m, from at most 256
 * transfers spread over its entries (routing them all is the pricing's
 * own cost). */
static double mean_hops(const Schedule *s, const Machine *m)
{
    enum { SAMPLES = 256 };
    size_t stride = s->nsteps / SAMPLES + 1, n = 0;
    size_t each = s->nsteps < SAMPLES ? SAMPLES / (s->nsteps + 1) + 1 : 1;
    double hops = 0;
    for (size_t k = 0; k < s->nsteps; k += stride) {
        size_t en = sched_entry_n(s, k);
        for (size_t i = 0; i < each && i < en; i++) {
            Transfer t; /* spread over the entry's transfers */
            sched_rep_xfer(s, k, 0, (i * en / each + k) % en, &t);
            hops += machine_route(m, t.src, t.dst, NULL, 0);
            n++;
        }
    }
    return n ? hops / (double)n : 0;
}

/* model_price_work's, a repeated entry priced once where `same` (else
 * each repetition written out). */
static double price_work(const Schedule *s, const Machine *m, bool same)
{
    double work = 0;
    for (size_t k = 0; k < s->nsteps; k++) {
        const Step *st = &s->steps[k];
        size_t reps = s->compact ? st->reps : 1;
        double n = st->spread && same && machine_links_move(m)
                       ? (double)st->n : (double)sched_entry_n(s, k);
        work += (same && !st->cyc ? 1 : (double)reps) * n;
    }
    return work * (1 + mean_hops(s, m));
}

double pricer_price_work(Pricer *pr, const Schedule *s)
{
    const Machine *m = pr->m;
    bool same = machine_shift_invariant(m);
    double work = 0, lines = 0, w;
    for (size_t k = 0; k < s->nsteps; k++) {
        const Step *st = &s->steps[k];
        size_t reps = s->compact ? st->reps : 1;
        if (pricer_lines_work(pr, s, k, &w)) {
            lines += w;
            continue;
        }
        double n = st->spread && same && machine_links_move(m)
                       ? (double)st->n : (double)sched_entry_n(s, k);
        work += (same && !st->cyc ? 1 : (double)reps) * n;
    }
    return lines + (work > 0 ? work * (1 + mean_hops(s, m)) : 0);
}

double model_price_work(const Schedule *s, const Machine *m)
{
    return price_work(s, m, machine_shift_invariant(m));
}

PricingMode pricer_flow_start(Pricer *pr, const Schedule *s,
                              PricingMode mode)
{
    const Machine *m = pr->m;
    pr->flowing = mode == PRICING_DATAFLOW && !machine_is_memory(m) &&
                  (!s->compact ||
                   price_work(s, m, false) <= MODEL_MAX_PRICE_WORK);
    pr->flow_time = 0;
    for (int r = 0; r < pr->m->nranks; r++)
        pr->clock[r] = 0, pr->flow_end[r] = -1;
    return pr->flowing ? PRICING_DATAFLOW : PRICING_LOCKSTEP;
}

CvError pricer_flow_clocks(Pricer *pr, const Schedule *s, PricingMode mode,
                           double *at, double *lock, PricingMode *priced)
{
    int p = pr->m->nranks;
    CvError e = s->compact || s->call.nranks != p ? CV_ERR_ARG : CV_OK;
    *priced = PRICING_LOCKSTEP;
    if (e)
        return e;
    *priced = pricer_flow_start(pr, s, mode);
    pr->view_of = NULL; /* s may be a new schedule where the last was */
    double sum = 0;
    for (size_t k = 0; k < s->nsteps && !e; k++) {
        StepPrice sp;
        e = price_step(pr, s, k, false, &sp);
        sum += sp.time;
        lock[k] = sum;
        for (int r = 0; r < p; r++)
            at[k * (size_t)p + (size_t)r] = pr->flowing ? pr->clock[r] : sum;
    }
    pr->flowing = false;
    return e;
}

/* Entry k of s added to *out and *seconds (may be NULL): each of its
 * repetitions priced, or the first `reps` times over where `same` (a
 * machine that rotation maps onto itself, the entry rotated). */
static CvError cost_entry(Pricer *pr, const Schedule *s, size_t k, bool same,
                          bool terms_only, CostTerms *out, double *seconds)
{
    const Machine *m = pr->m;
    CvError e = CV_OK;
    size_t reps = s->compact ? s->steps[k].reps : 1;
    /* a repeated entry on a machine that rotation maps onto itself:
       every repetition costs the first's (not one moved along cycles) */
    bool once = same && !(s->compact && s->steps[k].cyc);
    double times = once ? (double)reps : 1;
    for (size_t j = 0; j < (once ? 1 : reps) && !e; j++) {
        StepPrice sp;
        e = price_step_rep(pr, s, k, j, terms_only, &sp);
        out->a += times * sp.terms.a, out->b += times * sp.terms.b;
        out->g += times * sp.terms.g;
        out->steps += times * sp.terms.steps;
        if (seconds)
            *seconds += times * sp.time;
        if (seconds && k == 0 && times > 1 && machine_is_memory(m))
            *seconds -= (times - 1) * m->mem.call; /* the call once */
    }
    return e;
}

CvError pricer_cost(Pricer *pr, const Schedule *s, bool terms_only,
                    CostTerms *out, double *seconds)
{
    const Machine *m = pr->m;
    CvError e = CV_OK;
    *out = (CostTerms){0};
    if (seconds)
        *seconds = 0;
    pr->priced = PRICING_LOCKSTEP;
    pr->flowing = false;
    pricer_lines_forget(pr); /* s may be a new schedule where the last was */
    if (s->compact && pricer_price_work(pr, s) > MODEL_MAX_PRICE_WORK)
        return CV_ERR_LIMIT;
    /* data-flow moves every rank's clock: each repetition written out */
    PricingMode by = pricer_flow_start(pr, s, terms_only ? PRICING_LOCKSTEP
                                                         : pr->mode);
    bool same = machine_shift_invariant(m) && by == PRICING_LOCKSTEP;
    bool lean = pr->lean;
    pr->view_of = NULL; /* s may be a new schedule where the last was */
    pr->lean = true; /* only the prices are read */
    for (size_t k = 0; k < s->nsteps && !e; k++)
        e = cost_entry(pr, s, k, same, terms_only, out, seconds);
    ModelParams mp = {0};
    pr->lean = lean;
    pr->priced = by;
    if (seconds && pr->flowing)
        *seconds = pr->flow_time;
    else if (seconds && !terms_only && model_machine_uniform(m, &mp))
        *seconds = cost_time(out, &mp);
    pr->flowing = false;
    return e;
}

CvError model_machine_cost(const Schedule *s, const Machine *m,
                           bool terms_only, CostTerms *out, double *seconds)
{
    Pricer pr;
    CvError e = pricer_init(&pr, m);
    *out = (CostTerms){0};
    if (seconds)
        *seconds = 0;
    if (!e)
        e = pricer_cost(&pr, s, terms_only, out, seconds);
    pricer_fini(&pr);
    return e;
}
