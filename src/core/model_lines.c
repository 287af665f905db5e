/* model_lines.c - a repeated step of neighbours priced by its structure
 * (model.h, pricer_lines_rep).
 *
 * A compact schedule's ring steps repeat one shape: each transfer goes
 * from a rank to the next one along a cycle (a ring's p ranks rotated, a
 * torus's line) or to the one before, and repetition j moves every rank j
 * places along. Where no two of all those messages (every rank to its
 * next, every rank to its previous, as the entry uses them) share a link,
 * every message of every repetition is alone on its links: it costs its
 * route's alpha, its bytes times its route's beta and its latencies, the
 * same as the general rule computes from the loads. The routes of a
 * table's messages fall into a few classes of such (alpha, beta,
 * latency); a repetition's price is the dearest class a message of each
 * size meets, found from per-class counts over cycle positions: a few
 * operations a repetition instead of routing p messages. The result is
 * the general rule's, bit for bit; where the slowest messages of two
 * classes tie with other terms, the step is priced written out. Where
 * messages share links (a fat tree's trunk, a node's NIC), an entry whose
 * every rank sends one size each way loads each link with its k messages
 * that way: a route's class is then its links' (k, alpha, beta, latency),
 * priced so only where pr->lean. No I/O, no globals. */
#include "core/model.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

#define LINE_MAX_CLS 32 /* route classes a table may have */
#define LINE_UNIS 8     /* tables kept routed */
#define LINE_HOPS 8     /* links of a route whose links are shared */

/* A link of a route whose links are shared: the table's messages of the
 * route's direction through it, its class's alpha, beta and latency. */
typedef struct {
    double k, alpha, beta, lat;
} LineHop;

/* What a message alone on its route pays (price_message with one message
 * of b bytes on each link); on a table whose links are shared, its links
 * in order (price_message with k messages of b bytes on each). */
typedef struct {
    double a;    /* the largest alpha of a link with alpha > 0 (0: none) */
    double b;    /* the largest beta of a link with beta > 0 (0: none) */
    double lat;  /* the links' latencies summed in route order */
    double b1;   /* the first beta > 0 on the route (terms only: the
                    busiest link is that one, all carrying one size) */
    bool ha, hb; /* some link has alpha > 0, beta > 0 */
    int nh;      /* on a table whose links are shared: hop[0 .. nh) */
    LineHop hop[LINE_HOPS];
} LineCls;

/* One table's cycles, every rank's message to its next (dir 0) or
 * previous (dir 1) routed once. Indexed by position x in member. */
typedef struct {
    int len;             /* cycle length; 0: a free slot */
    int p;               /* ranks */
    int32_t *member;     /* [p] the cycles */
    int32_t *at;         /* [p] where each rank is */
    signed char ok[2];   /* per direction: -1 not tried, 0 shared links,
                            1 every link one message at most */
    signed char both;    /* the two directions' links apart (-1: not
                            known yet) */
    int ncls[2];         /* classes */
    LineCls cls[2][LINE_MAX_CLS];
    uint8_t *cl[2];      /* [p] the class of position x's message */
    int32_t *pre[2];     /* [ncls (p + 1)] positions of class c before x */
    uint32_t *cmask[2];  /* [p / len] classes of each whole cycle */
    int32_t *roff[2];    /* [p + 1] route of x: links[roff[x] .. x + 1) */
    int32_t *links[2];   /* the routes */
    int32_t *nuse[2];    /* [nlinks] messages of each direction there */
    bool shared[2];      /* some link carries two of a direction */
    unsigned long tick;  /* last use, for replacing */
    unsigned long gen;   /* which table the slot holds (entries check) */
} LineUni;

/* A run of an entry's sources: positions start .. start + n - 1 of the
 * cycle at base (mod len). */
typedef struct {
    int32_t base, start, n;
    bool full;  /* the whole cycle (its classes in LineGroup.full) */
} LineRun;

/* An entry's messages of one direction and size. */
typedef struct {
    int dir;        /* 0 forward, 1 back */
    double b;       /* bytes */
    uint32_t full;  /* classes of the whole cycles among its sources */
    size_t run0;    /* its partial runs: runs[run0 .. run0 + nrun) */
    size_t nrun;
} LineGroup;

/* What one entry of the schedule priced last is. */
typedef struct {
    bool tried, ok;
    size_t first, n, reps; /* the Step's, to know it again */
    int cyc, shift;
    int uni;            /* its table's slot ... */
    unsigned long gen;  /* ... while it holds that table */
    bool two;           /* both directions, some rank reducing from both
                           (not all alike): the reduce term per
                           repetition */
    bool shared;        /* its messages share links (priced so only where
                           pr->lean) */
    double red;         /* else the most bytes a rank reduces */
    LineGroup *g;
    size_t ng;
    double work;        /* what pricing all its repetitions costs */
} LineEntry;

struct PricerLines {
    LineUni uni[LINE_UNIS];
    unsigned long tick;
    const Schedule *s;  /* the schedule the entries describe */
    size_t nxfers;      /* its transfers then */
    LineEntry *e;       /* [cap] by step entry */
    size_t cap;
    LineRun *runs;      /* every entry's runs */
    size_t nruns, runs_cap;
    int32_t *tmp;       /* [p] a rotation's table */
};

/* ------------------------------------------------------------- tables */

static void uni_free(LineUni *u)
{
    free(u->member);
    free(u->at);
    for (int d = 0; d < 2; d++) {
        free(u->cl[d]);
        free(u->pre[d]);
        free(u->cmask[d]);
        free(u->roff[d]);
        free(u->links[d]);
        free(u->nuse[d]);
    }
    memset(u, 0, sizeof *u);
}

static void entries_free(PricerLines *pl)
{
    for (size_t k = 0; k < pl->cap; k++)
        free(pl->e[k].g);
    if (pl->cap) /* (none yet: e may be NULL) */
        memset(pl->e, 0, pl->cap * sizeof *pl->e);
    pl->nruns = 0;
    pl->s = NULL;
}

void pricer_lines_free(Pricer *pr)
{
    PricerLines *pl = pr->lines;
    if (!pl)
        return;
    for (int i = 0; i < LINE_UNIS; i++)
        uni_free(&pl->uni[i]);
    entries_free(pl);
    free(pl->e);
    free(pl->runs);
    free(pl->tmp);
    free(pl);
    pr->lines = NULL;
}

void pricer_lines_forget(Pricer *pr)
{
    if (pr->lines)
        entries_free(pr->lines);
}

static bool cls_eq(const LineCls *x, const LineCls *y)
{
    if (x->nh != y->nh)
        return false;
    for (int h = 0; h < x->nh; h++)
        if (x->hop[h].k != y->hop[h].k || x->hop[h].alpha != y->hop[h].alpha ||
            x->hop[h].beta != y->hop[h].beta || x->hop[h].lat != y->hop[h].lat)
            return false;
    return x->a == y->a && x->b == y->b && x->lat == y->lat &&
           x->b1 == y->b1 && x->ha == y->ha && x->hb == y->hb;
}

/* The class of a message alone on route[0 .. hops): its index among
 * u's of direction d (added where new), or -1 beyond LINE_MAX_CLS. */
static int route_class(const Machine *m, LineUni *u, int d,
                       const int32_t *route, int hops)
{
    LineCls c = {0};
    if (u->shared[d] && hops > LINE_HOPS)
        return -1;
    for (int h = 0; h < hops; h++) {
        const LinkClass *k = &m->cls[machine_link_class(m, route[h])];
        if (u->shared[d])
            c.hop[c.nh++] = (LineHop){u->nuse[d][route[h]], k->alpha,
                                      k->beta, k->lat};
        c.lat += k->lat;
        if (k->alpha > 0 && k->alpha > c.a)
            c.a = k->alpha, c.ha = true;
        if (k->beta > 0 && !c.hb)
            c.b1 = k->beta;
        if (k->beta > 0 && k->beta > c.b)
            c.b = k->beta, c.hb = true;
    }
    for (int i = 0; i < u->ncls[d]; i++)
        if (cls_eq(&u->cls[d][i], &c))
            return i;
    if (u->ncls[d] == LINE_MAX_CLS)
        return -1;
    u->cls[d][u->ncls[d]] = c;
    return u->ncls[d]++;
}

/* Position x's neighbour along its cycle: next (d 0) or previous. */
static int32_t nb_pos(const LineUni *u, int32_t x, int d)
{
    int32_t i = x % u->len;
    return x - i + (d ? (i + u->len - 1) : (i + 1)) % u->len;
}

/* Route every position's message of direction d, note its links and
 * how many of the direction's messages cross each (false: no memory for
 * the routes, or a class too many), class it. */
static bool uni_route(Pricer *pr, LineUni *u, int d)
{
    const Machine *m = pr->m;
    int p = m->nranks;
    size_t cap = 0, n = 0;
    u->roff[d][0] = 0;
    if (!(u->nuse[d] = calloc((size_t)m->nlinks, sizeof *u->nuse[d])))
        return false;
    for (int32_t x = 0; x < p; x++) {
        int hops = machine_route(m, u->member[x], u->member[nb_pos(u, x, d)],
                                 pr->route, pr->maxhops + 1);
        int32_t *l = grow_array(u->links[d], &cap, n + (size_t)hops + 1,
                                sizeof *l, 1024);
        if (!l)
            return false;
        u->links[d] = l;
        for (int h = 0; h < hops; h++) {
            int k = pr->route[h];
            u->shared[d] |= u->nuse[d][k]++ > 0;
            l[n++] = k;
        }
        u->roff[d][x + 1] = (int32_t)n;
    }
    for (int32_t x = 0; x < p; x++) { /* (with every link's k known) */
        int32_t r0 = u->roff[d][x];
        int c = route_class(m, u, d, u->links[d] + r0, u->roff[d][x + 1] - r0);
        if (c < 0)
            return false;
        u->cl[d][x] = (uint8_t)c;
    }
    return true;
}

/* Counts of each class before each position, and each cycle's classes. */
static void uni_count(LineUni *u, int d, int p)
{
    size_t np1 = (size_t)p + 1;
    for (int c = 0; c < u->ncls[d]; c++) {
        int32_t *pc = u->pre[d] + (size_t)c * np1;
        pc[0] = 0;
        for (int32_t x = 0; x < p; x++)
            pc[x + 1] = pc[x] + (u->cl[d][x] == c);
    }
    for (int32_t x = 0; x < p; x++) {
        if (x % u->len == 0)
            u->cmask[d][x / u->len] = 0;
        u->cmask[d][x / u->len] |= 1u << u->cl[d][x];
    }
}

/* Set up direction d of table u (once): ok[d] says how it went. */
static CvError uni_dir(Pricer *pr, LineUni *u, int d)
{
    int p = pr->m->nranks;
    if (u->ok[d] >= 0)
        return CV_OK;
    u->cl[d] = malloc((size_t)p);
    u->roff[d] = malloc(((size_t)p + 1) * sizeof *u->roff[d]);
    u->cmask[d] = malloc((size_t)(p / u->len) * sizeof *u->cmask[d]);
    if (!u->cl[d] || !u->roff[d] || !u->cmask[d])
        return CV_ERR_NOMEM;
    u->ok[d] = 0;
    if (!uni_route(pr, u, d))
        return CV_OK; /* no memory for the routes, or too many classes */
    u->pre[d] = malloc((size_t)u->ncls[d] * ((size_t)p + 1) *
                       sizeof *u->pre[d]);
    if (!u->pre[d])
        return CV_ERR_NOMEM;
    uni_count(u, d, p);
    u->ok[d] = 1;
    return CV_OK;
}

/* Whether no link carries messages of both directions (each set up). */
static bool uni_both(const Pricer *pr, LineUni *u)
{
    if (u->both < 0) {
        u->both = 1;
        for (int l = 0; l < pr->m->nlinks && u->both; l++)
            u->both = !u->nuse[0][l] || !u->nuse[1][l];
    }
    return u->both;
}

/* The table of member[0 .. p), cycles of len: a kept one, or a new one
 * in the least recently used slot. Its index, or -1 (CV_ERR_NOMEM). */
static int uni_find(Pricer *pr, const int32_t *member, int len)
{
    PricerLines *pl = pr->lines;
    int p = pr->m->nranks, old = 0;
    size_t np = (size_t)p;
    for (int i = 0; i < LINE_UNIS; i++) {
        LineUni *u = &pl->uni[i];
        if (u->len == len && !memcmp(u->member, member, np * sizeof *member)) {
            u->tick = ++pl->tick;
            return i;
        }
        if (u->tick < pl->uni[old].tick)
            old = i;
    }
    LineUni *u = &pl->uni[old];
    uni_free(u);
    u->member = malloc(np * sizeof *u->member);
    u->at = malloc(np * sizeof *u->at);
    if (!u->member || !u->at) {
        uni_free(u);
        return -1;
    }
    memcpy(u->member, member, np * sizeof *member);
    for (int32_t x = 0; x < p; x++)
        u->at[member[x]] = x;
    u->len = len, u->p = p, u->ok[0] = u->ok[1] = u->both = -1;
    u->tick = ++pl->tick, u->gen = u->tick;
    return old;
}

/* The cycles entry st moves ranks along: its table, or a rotation's by
 * shift (cycles i, i + shift, ...) built in pl->tmp. */
static int entry_uni(Pricer *pr, const Schedule *s, const Step *st)
{
    int p = s->call.nranks;
    if (st->cyc)
        return uni_find(pr, s->cyc[st->cyc - 1].member,
                        s->cyc[st->cyc - 1].len);
    PricerLines *pl = pr->lines;
    if (!pl->tmp && !(pl->tmp = malloc((size_t)p * sizeof *pl->tmp)))
        return -1;
    long long sh = ((long long)st->shift % p + p) % p;
    bool *seen = calloc((size_t)p, 1);
    if (!seen)
        return -1;
    int n = 0, len = 0;
    for (int c = 0; c < p; c++)
        for (long long r = c; !seen[r]; r = (r + sh) % p)
            seen[r] = true, pl->tmp[n++] = (int32_t)r, len += c == 0;
    free(seen);
    return uni_find(pr, pl->tmp, len);
}

/* ------------------------------------------------------------ entries */

/* A transfer of an entry, for grouping. */
typedef struct {
    int dir;
    double b;
    int32_t x; /* its source's position */
} LineSrc;

static int src_cmp(const void *pa, const void *pb)
{
    const LineSrc *a = pa, *b = pb;
    if (a->dir != b->dir)
        return a->dir - b->dir;
    if (a->b != b->b)
        return a->b < b->b ? -1 : 1;
    return (a->x > b->x) - (a->x < b->x);
}

/* The most bytes a rank reduces in any repetition where that does not
 * depend on the repetition: one direction (each rank receives one
 * message a direction), or both where each reduces one size into every
 * rank (n[d] of them, of bytes lo[d] .. hi[d]); -1 otherwise. */
static double entry_red(int p, const size_t n[2], const double lo[2],
                        const double hi[2])
{
    if (!n[0] || !n[1])
        return hi[0] > hi[1] ? hi[0] : hi[1];
    if (n[0] == (size_t)p && n[1] == (size_t)p && lo[0] == hi[0] &&
        lo[1] == hi[1])
        return hi[0] + hi[1];
    return -1;
}

/* The entry's transfers as sources into v, by direction, size and
 * position (false: one is local, or goes to no neighbour, or two leave
 * one rank one way); which directions occur into *dirs, entry_red's
 * answer into *red. */
static bool entry_sources(const Schedule *s, const Step *st, const LineUni *u,
                          LineSrc *v, int *dirs, double *red)
{
    double ts = (double)dtype_size(s->call.dtype), lo[2] = {0}, hi[2] = {0};
    size_t n[2] = {0};
    uint8_t *seen = calloc((size_t)u->p, 1);
    bool ok = seen != NULL;
    *dirs = 0;
    for (size_t i = 0; i < st->n && ok; i++) {
        const Transfer *t = &s->xfers[st->first + i];
        int d = (t->flags & XF_BACK) ? 1 : 0;
        int32_t x = u->at[t->src];
        /* local work, no neighbour, or a second transfer of one message
           (its bytes then add up on the links) */
        ok = t->src != t->dst && u->member[nb_pos(u, x, d)] == t->dst &&
             !(seen[x] & (1 << d));
        seen[x] |= (uint8_t)(1 << d);
        v[i] = (LineSrc){d, (double)t->count * ts, x};
        *dirs |= 1 << d;
        if (t->op != XFER_REDUCE)
            continue;
        lo[d] = !n[d] || v[i].b < lo[d] ? v[i].b : lo[d];
        hi[d] = v[i].b > hi[d] ? v[i].b : hi[d];
        n[d]++;
    }
    free(seen);
    if (ok)
        qsort(v, st->n, sizeof *v, src_cmp);
    *red = entry_red(u->p, n, lo, hi);
    return ok;
}

/* Append run r to pl->runs. */
static bool run_add(PricerLines *pl, LineRun r)
{
    LineRun *v = grow_array(pl->runs, &pl->runs_cap, pl->nruns + 1,
                            sizeof *v, 256);
    if (!v)
        return false;
    pl->runs = v;
    pl->runs[pl->nruns++] = r;
    return true;
}

/* Group v[i0 .. i1) (one direction and size, by position) into runs
 * along the cycles; whole cycles into g->full. */
static bool group_runs(PricerLines *pl, const LineUni *u, const LineSrc *v,
                       size_t i0, size_t i1, LineGroup *g)
{
    *g = (LineGroup){v[i0].dir, v[i0].b, 0, pl->nruns, 0};
    for (size_t i = i0; i < i1;) {
        size_t j = i + 1;
        while (j < i1 && v[j].x == v[j - 1].x + 1 && v[j].x % u->len)
            j++;
        int32_t base = v[i].x - v[i].x % u->len;
        bool full = j - i == (size_t)u->len;
        if (full)
            g->full |= u->cmask[g->dir][base / u->len];
        if (!run_add(pl, (LineRun){base, v[i].x - base, (int32_t)(j - i),
                                   full}))
            return false;
        i = j;
    }
    g->nrun = pl->nruns - g->run0;
    return true;
}

/* Build the groups of entry e from its sources v[0 .. n). */
static CvError entry_groups(PricerLines *pl, const LineUni *u, LineSrc *v,
                            size_t n, LineEntry *e)
{
    size_t ng = 0;
    for (size_t i = 0; i < n; i++)
        ng += !i || v[i].dir != v[i - 1].dir || v[i].b != v[i - 1].b;
    e->g = malloc((ng ? ng : 1) * sizeof *e->g);
    if (!e->g)
        return CV_ERR_NOMEM;
    e->ng = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && v[j].dir == v[i].dir && v[j].b == v[i].b)
            j++;
        if (!group_runs(pl, u, v, i, j, &e->g[e->ng++]))
            return CV_ERR_NOMEM;
        i = j;
    }
    return CV_OK;
}

/* Whether each direction dirs has of entry e is one size sent by every
 * one of the table's p ranks: on links its messages share, each then
 * carries k messages of that size. */
static bool every_rank_once(const PricerLines *pl, const LineEntry *e,
                            int dirs, int p)
{
    size_t n[2] = {0};
    int groups[2] = {0};
    for (size_t i = 0; i < e->ng; i++) {
        const LineGroup *g = &e->g[i];
        groups[g->dir]++;
        for (size_t r = 0; r < g->nrun; r++)
            n[g->dir] += (size_t)pl->runs[g->run0 + r].n;
    }
    for (int d = 0; d < 2; d++)
        if ((dirs & (1 << d)) && (groups[d] != 1 || n[d] != (size_t)p))
            return false;
    return true;
}

/* Analyse entry k of s into e: e->ok where it can be priced so. */
static CvError entry_make(Pricer *pr, const Schedule *s, size_t k,
                          LineEntry *e)
{
    const Step *st = &s->steps[k];
    *e = (LineEntry){.tried = true, .first = st->first, .n = st->n,
                     .reps = st->reps, .cyc = st->cyc, .shift = st->shift};
    e->uni = entry_uni(pr, s, st);
    if (e->uni < 0)
        return CV_ERR_NOMEM;
    LineUni *u = &pr->lines->uni[e->uni];
    e->gen = u->gen;
    LineSrc *v = malloc((st->n ? st->n : 1) * sizeof *v);
    int dirs = 0;
    CvError err = v ? CV_OK : CV_ERR_NOMEM;
    bool ok = !err && entry_sources(s, st, u, v, &dirs, &e->red);
    for (int d = 0; d < 2 && ok && !err; d++)
        if (dirs & (1 << d) && !(err = uni_dir(pr, u, d)))
            ok = u->ok[d] == 1;
    e->two = e->red < 0;
    ok = ok && (dirs != 3 || uni_both(pr, u));
    if (ok && !err)
        err = entry_groups(pr->lines, u, v, st->n, e);
    free(v);
    e->shared = u->shared[0] || u->shared[1];
    e->ok = ok && !err &&
            (!e->shared || every_rank_once(pr->lines, e, dirs, u->p));
    size_t nrun = 0;
    for (size_t i = 0; e->ok && i < e->ng; i++)
        nrun += e->g[i].nrun + 1;
    e->work = (double)st->n * (e->two ? (double)st->reps : 1) +
              (double)st->reps * (double)nrun * (1 + u->ncls[0] + u->ncls[1]) +
              (double)s->call.nranks; /* its routes, once a table */
    return err;
}

/* The analysis of entry k of s (made where not yet), or NULL where the
 * entry is not one for this pricing. */
static LineEntry *entry_get(Pricer *pr, const Schedule *s, size_t k,
                            CvError *err)
{
    PricerLines *pl = pr->lines;
    *err = CV_OK;
    if (!pl && !(pl = pr->lines = calloc(1, sizeof *pl))) {
        *err = CV_ERR_NOMEM;
        return NULL;
    }
    if (pl->s != s || pl->nxfers != s->nxfers)
        entries_free(pl);
    pl->s = s, pl->nxfers = s->nxfers;
    if (k >= pl->cap) {
        size_t old = pl->cap;
        LineEntry *v = grow_array(pl->e, &pl->cap, k + 1, sizeof *v, 16);
        if (!v) {
            *err = CV_ERR_NOMEM;
            return NULL;
        }
        pl->e = v;
        memset(v + old, 0, (pl->cap - old) * sizeof *v);
    }
    LineEntry *e = &pl->e[k];
    const Step *st = &s->steps[k];
    if (e->tried && (e->first != st->first || e->n != st->n ||
                     e->reps != st->reps || e->cyc != st->cyc ||
                     e->shift != st->shift ||
                     (e->ok && pl->uni[e->uni].gen != e->gen)))
        free(e->g), e->g = NULL, e->tried = false;
    if (!e->tried)
        *err = entry_make(pr, s, k, e);
    return !*err && e->ok ? e : NULL;
}

/* Whether entry k of s is one this file prices: compact, repeated, on a
 * machine of links, no rank slowed (its messages cost more than their
 * routes say; a slow or down link is in its route's class or route), a
 * few links a rank (a table notes each link's directions: not for a
 * fully connected line of thousands). */
static bool entry_kind(const Pricer *pr, const Schedule *s, size_t k)
{
    const Step *st = &s->steps[k];
    return s->compact && st->reps > 1 && !st->spread && st->n > 0 &&
           !machine_is_memory(pr->m) && !machine_has_reducing_switch(pr->m) &&
           !pr->m->nfix && s->call.nranks == pr->m->nranks &&
           (long long)pr->m->nlinks <= 16LL * pr->m->nranks;
}

bool pricer_lines_work(Pricer *pr, const Schedule *s, size_t k, double *work)
{
    CvError err;
    LineEntry *e = entry_kind(pr, s, k) ? entry_get(pr, s, k, &err) : NULL;
    if (e)
        *work = e->work;
    return e != NULL;
}

/* ---------------------------------------------------------- repetitions */

/* Classes of direction d among positions lo .. lo + n - 1 (mod len) of
 * the cycle at base, added to mask. */
static uint32_t run_classes(const LineUni *u, int d, int32_t base,
                            int32_t lo, int32_t n, uint32_t mask)
{
    int32_t a0 = base + lo, a1 = base + (lo + n < u->len ? lo + n : u->len);
    int32_t b1 = base + (lo + n > u->len ? lo + n - u->len : 0);
    for (int c = 0; c < u->ncls[d]; c++) {
        const int32_t *pc = u->pre[d] + (size_t)c * ((size_t)u->p + 1);
        if (!(mask & (1u << c)) &&
            (pc[a1] > pc[a0] || pc[b1] > pc[base]))
            mask |= 1u << c;
    }
    return mask;
}

/* The price of a message of class c carrying b bytes (as price_message
 * computes it: alone, or on a table whose links are shared with each
 * link's k messages of b bytes) and its terms (terms only: each term's
 * largest on the route, as price_message takes them then). */
static double cls_price(const LineCls *c, double b, bool terms_only,
                        CostTerms *t)
{
    if (c->nh) {
        double ta = 0, tb = 0, lat = 0;
        *t = (CostTerms){0};
        for (int h = 0; h < c->nh; h++) {
            const LineHop *l = &c->hop[h];
            double kb = l->k * b;
            lat += l->lat;
            if (l->alpha > 0 && (terms_only ? l->k > t->a
                                            : l->k * l->alpha > ta))
                t->a = l->k, ta = l->k * l->alpha;
            if (l->beta > 0 && (terms_only ? kb > t->b : kb * l->beta > tb))
                t->b = kb, tb = kb * l->beta;
        }
        return ta + tb + lat;
    }
    double ta = c->ha ? c->a : 0, tb = c->hb && b * c->b > 0 ? b * c->b : 0;
    t->a = c->ha ? 1 : 0;
    t->b = tb > 0 ? b : 0;
    return ta + tb + c->lat;
}

/* The slowest message of repetition j and the one of most beta time. */
typedef struct {
    double worst;  /* its price (-1: none yet) */
    bool tie;      /* another class as slow with other terms */
    int wc;        /* its class and group */
    size_t wg;
    double tb;     /* the largest beta time (-1: none yet) */
    int bc;        /* its class and group */
    size_t bg;
} RepWorst;

/* Class c of group g (gi) in the repetition: into w and the terms. */
static void rep_class(const LineUni *u, const LineGroup *g, size_t gi, int c,
                      bool terms_only, StepPrice *out, RepWorst *w)
{
    CostTerms t;
    const LineCls *k = &u->cls[g->dir][c];
    double tt = cls_price(k, g->b, terms_only, &t);
    double tb = t.b * (terms_only ? k->b1 : k->b);
    if (tb > 0 && tb > w->tb)
        w->tb = tb, w->bc = c, w->bg = gi;
    if (terms_only) {
        out->terms.a = t.a > out->terms.a ? t.a : out->terms.a;
        out->terms.b = t.b > out->terms.b ? t.b : out->terms.b;
    } else if (tt > w->worst) {
        w->worst = tt, w->wc = c, w->wg = gi, w->tie = false;
        out->terms.a = t.a, out->terms.b = t.b;
    } else if (tt == w->worst && (t.a != out->terms.a ||
                                  t.b != out->terms.b)) {
        w->tie = true;
    }
}

/* The slowest message of the groups' classes in repetition j (terms
 * only: each term's max) into w, out->time (before the reduce term) and
 * terms a and b. */
static void rep_worst(const LineUni *u, const LineEntry *e,
                      const LineRun *runs, size_t j, bool terms_only,
                      StepPrice *out, RepWorst *w)
{
    *w = (RepWorst){.worst = -1, .wc = -1, .tb = -1, .bc = -1};
    int32_t by = (int32_t)(j % (size_t)u->len);
    for (size_t gi = 0; gi < e->ng; gi++) {
        const LineGroup *g = &e->g[gi];
        uint32_t mask = g->full;
        for (size_t r = 0; r < g->nrun; r++) {
            const LineRun *ru = &runs[g->run0 + r];
            int32_t lo = (ru->start + (g->dir ? u->len - by : by)) % u->len;
            if (!ru->full)
                mask = run_classes(u, g->dir, ru->base, lo, ru->n, mask);
        }
        for (int c = 0; c < u->ncls[g->dir]; c++)
            if (mask & (1u << c))
                rep_class(u, g, gi, c, terms_only, out, w);
    }
    out->time = w->worst > 0 ? w->worst : 0;
}

/* Position x moved j places along its cycle (back: the other way). */
static int32_t pos_move(const LineUni *u, int32_t x, size_t j, int back)
{
    int32_t i = x % u->len, by = (int32_t)(j % (size_t)u->len);
    return x - i + (i + (back ? u->len - by : by)) % u->len;
}

/* A source position of group g's class c in repetition j (-1: none). */
static int32_t rep_find(const Pricer *pr, const LineUni *u,
                        const LineEntry *e, size_t gi, int c, size_t j)
{
    const LineGroup *g = &e->g[gi];
    const LineRun *runs = pr->lines->runs;
    const uint8_t *cl = u->cl[g->dir];
    for (size_t r = 0; r < g->nrun; r++) {
        const LineRun *ru = &runs[g->run0 + r];
        if (ru->full && !(u->cmask[g->dir][ru->base / u->len] & (1u << c)))
            continue;
        for (int32_t i = 0; i < ru->n; i++) {
            int32_t x = pos_move(u, ru->base + ru->start + i, j, g->dir);
            if (cl[x] == c)
                return x;
        }
    }
    return -1;
}

/* Every message of repetition j on its links (bytes, one message each)
 * and, with both directions, what each rank reduces into pr->reduced:
 * the loads the general rule leaves, for those who read them. */
static void rep_loads(Pricer *pr, const Schedule *s, const LineUni *u,
                      const Step *st, size_t j, bool links)
{
    double ts = (double)dtype_size(s->call.dtype);
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *t = &s->xfers[st->first + i];
        int d = (t->flags & XF_BACK) ? 1 : 0;
        int32_t x = pos_move(u, u->at[t->src], j, d);
        double b = (double)t->count * ts;
        if (t->op == XFER_REDUCE)
            pricer_rank_work(pr, pr->reduced, u->member[nb_pos(u, x, d)], b);
        for (int32_t h = u->roff[d][x]; links && h < u->roff[d][x + 1];
             h++) {
            int l = u->links[d][h];
            pricer_touch(pr, l);
            pr->bytes[l] += b;
            pr->msgs[l] = 1;
        }
    }
}

/* The link where repetition j's busiest message (class c of group g)
 * meets its beta b first. */
static int busiest_on(const Pricer *pr, const LineUni *u, const LineEntry *e,
                      size_t g, int c, size_t j, double b)
{
    int d = e->g[g].dir;
    int32_t x = rep_find(pr, u, e, g, c, j);
    for (int32_t h = x < 0 ? 0 : u->roff[d][x];
         x >= 0 && h < u->roff[d][x + 1]; h++) {
        int l = u->links[d][h];
        if (pr->m->cls[machine_link_class(pr->m, l)].beta == b)
            return l;
    }
    return -1;
}

/* The slowest message's ranks and parts, and the busiest link (a message
 * of the slowest class and of the most beta time, not always the first
 * of them in rank order that the general rule names). */
static void rep_detail(const Pricer *pr, const LineUni *u,
                       const LineEntry *e, size_t j, const RepWorst *w,
                       bool terms_only, StepPrice *out)
{
    if (w->wc >= 0 && !terms_only) {
        const LineGroup *g = &e->g[w->wg];
        const LineCls *k = &u->cls[g->dir][w->wc];
        int32_t x = rep_find(pr, u, e, w->wg, w->wc, j);
        CostTerms t;
        out->crit_src = x < 0 ? -1 : u->member[x];
        out->crit_dst = x < 0 ? -1 : u->member[nb_pos(u, x, g->dir)];
        cls_price(k, g->b, false, &t);
        out->t_alpha = k->ha ? k->a : 0;
        out->t_beta = t.b * k->b, out->t_lat = k->lat;
    }
    if (w->bc < 0)
        return;
    const LineCls *k = &u->cls[e->g[w->bg].dir][w->bc];
    out->busiest = busiest_on(pr, u, e, w->bg, w->bc, j,
                              terms_only ? k->b1 : k->b);
    out->busiest_time = out->busiest >= 0 ? w->tb : 0;
}

/* Repetition j's messages on the data-flow clocks, each at its price
 * alone (what price_pairs gives them), then every rank of them settled
 * with what it reduces (pr->reduced, rep_loads's). */
static void rep_flow(Pricer *pr, const Schedule *s, const LineUni *u,
                     const Step *st, size_t j)
{
    double ts = (double)dtype_size(s->call.dtype);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < st->n; i++) {
            const Transfer *t = &s->xfers[st->first + i];
            int d = (t->flags & XF_BACK) ? 1 : 0;
            int32_t x = pos_move(u, u->at[t->src], j, d);
            int src = u->member[x], dst = u->member[nb_pos(u, x, d)];
            CostTerms c;
            if (pass == 0)
                pricer_flow_message(pr, src, dst,
                                    cls_price(&u->cls[d][u->cl[d][x]],
                                              (double)t->count * ts, false,
                                              &c));
            else
                pricer_flow_rank(pr, src), pricer_flow_rank(pr, dst);
        }
}

CvError pricer_lines_rep(Pricer *pr, const Schedule *s, size_t k, size_t j,
                         bool terms_only, StepPrice *out, bool *done)
{
    CvError err = CV_OK;
    *done = false;
    LineEntry *e = entry_kind(pr, s, k) ? entry_get(pr, s, k, &err) : NULL;
    bool flow = pr->flowing && !terms_only; /* (as price_pairs) */
    if (!e || (e->shared && (!pr->lean || flow)))
        return err; /* (shared links: the loads, the ranks as written) */
    const LineUni *u = &pr->lines->uni[e->uni];
    StepPrice sp = *out;
    RepWorst w;
    rep_worst(u, e, pr->lines->runs, j, terms_only, &sp, &w);
    if (w.tie)
        return CV_OK; /* the general rule says which terms */
    pricer_clear_loads(pr);
    if (e->two || !pr->lean || flow)
        rep_loads(pr, s, u, &s->steps[k], j, !pr->lean);
    sp.terms.g = e->two ? 0 : e->red;
    for (int i = 0; e->two && i < pr->nrtouched; i++)
        if (pr->reduced[pr->rtouched[i]] > sp.terms.g)
            sp.terms.g = pr->reduced[pr->rtouched[i]];
    sp.copied = 0;
    sp.terms.steps = 1;
    if (!pr->lean)
        rep_detail(pr, u, e, j, &w, terms_only, &sp);
    if (!terms_only)
        sp.time += sp.terms.g * pr->m->gamma;
    if (flow)
        rep_flow(pr, s, u, &s->steps[k], j);
    *out = sp;
    *done = true;
    return CV_OK;
}

CvError pricer_lines_links(Pricer *pr, const Schedule *s, size_t k,
                           double *tot)
{
    CvError err = CV_OK;
    LineEntry *e = entry_kind(pr, s, k) ? entry_get(pr, s, k, &err) : NULL;
    if (!e)
        return err ? err : CV_ERR_ARG;
    const LineUni *u = &pr->lines->uni[e->uni];
    const Step *st = &s->steps[k];
    size_t np = (size_t)u->p, ts = dtype_size(s->call.dtype);
    size_t *in = calloc(2 * np, sizeof *in), *out = in ? in + np : NULL;
    if (!in)
        return CV_ERR_NOMEM;
    for (int d = 0; d < 2 && !err; d++) {
        memset(in, 0, 2 * np * sizeof *in);
        for (size_t i = 0; i < st->n; i++) { /* bytes a source sends */
            const Transfer *t = &s->xfers[st->first + i];
            if (((t->flags & XF_BACK) ? 1 : 0) == d)
                in[t->src] += t->count * ts;
        }
        /* over the repetitions, the bytes each rank sends that way: each
           on the links of its message that way, alone there */
        err = sched_add_moves(s, st, in, st->reps, d == 1, out);
        for (size_t r = 0; r < np && !err; r++) {
            int32_t x = u->at[r];
            for (int32_t h = out[r] ? u->roff[d][x] : 0;
                 out[r] && h < u->roff[d][x + 1]; h++)
                tot[u->links[d][h]] += (double)out[r];
        }
    }
    free(in);
    return err;
}
