/* sentence_mach.c - the sentences of steps made for a machine (see
 * sentence_mach.h). Several sentences of one step are whole sentences of
 * the catalogue one after the other (a blank between them in English,
 * none in Chinese). */
#include "ui/sentence_mach.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/i18n.h"

/* ---------------------------------------------------------- helpers */

void sentence_ranks(const unsigned char *flags, int p, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    for (int q = 0; q < p && at + 1 < len; q++) {
        if (!flags[q])
            continue;
        int last = q;
        while (last + 1 < p && flags[last + 1])
            last++;
        int n = last == q ? snprintf(out + at, len - at, "%s%d",
                                     at ? "," : "", q)
                          : snprintf(out + at, len - at, "%s%d%s%d",
                                     at ? "," : "", q,
                                     last == q + 1 ? "," : "-", last);
        at = n > 0 && (size_t)n < len - at ? at + (size_t)n : len - 1;
        q = last;
    }
}

/* A share: "1/k", or "≈1/k" where it is not exact. */
static void frac_k(int k, bool exact, char *out, size_t len)
{
    snprintf(out, len, exact ? "1/%d" : "\xe2\x89\x88" "1/%d", k);
}

/* Parts of a whole: n of them, `sum` elements in all, from lo to hi
 * each. */
typedef struct {
    size_t n, sum, lo, hi;
} Parts;

static void parts_add(Parts *pt, size_t count)
{
    pt->lo = !pt->n || count < pt->lo ? count : pt->lo;
    pt->hi = count > pt->hi ? count : pt->hi;
    pt->n++, pt->sum += count;
}

/* The parts' share of the whole: "1/k" when every part is exactly 1/k of
 * it, else "≈1/k" for the parts' mean. */
static void share(const Parts *pt, size_t whole, char *out, size_t len)
{
    size_t k = pt->sum ? (whole * pt->n + pt->sum / 2) / pt->sum : 1;
    k = k ? k : 1;
    frac_k((int)k, pt->lo == pt->hi && k * pt->hi == whole, out, len);
}

/* Sentence `next` after those in out. */
static void join(char *out, size_t len, const char *next)
{
    size_t at = strlen(out);
    if (at + 1 >= len)
        return;
    snprintf(out + at, len - at, "%s%s",
             at && ui_lang_get() != UI_LANG_ZH ? " " : "", next);
}

/* ------------------------------------------------------------ lines */

/* The rings of one step along dimension d. */
typedef struct {
    int d, k;     /* the dimension, its size */
    int w;        /* transfers every sender sends: 1, or 2 (one each way) */
    int delta;    /* every transfer to coordinate c+1 (1), c-1 (-1), both
                     ways (2), or round another order (0) */
    bool exact;   /* every transfer exactly 1/(k w) of its line's total */
    bool every;   /* every rank sends */
    int *succ;    /* [k] the coordinate after c in the ring (delta 0) */
    int first;    /* the lowest rank that sends */
} Rings;

/* The one dimension in which ranks a and b differ, or -1. */
static int one_dim(const Machine *m, int a, int b)
{
    int d = -1;
    for (int i = 0; i < m->ndims; i++)
        if (machine_coord(m, a, i) != machine_coord(m, b, i)) {
            if (d >= 0)
                return -1;
            d = i;
        }
    return d;
}

/* The place of rank r's line of dimension d (its coordinate d at 0). */
static int line_key(const Machine *m, int r, int d)
{
    return machine_place(m, r) - machine_coord(m, r, d) * m->stride[d];
}

/* Senders, receivers and lines of the step: every remote transfer along
 * one dimension, every rank that sends also receiving as many, every
 * line of it whole or not at all. cnt: [3 p] scratch. */
static bool rings_lines(const Schedule *s, const Step *st, const Machine *m,
                        Rings *rg, int *cnt)
{
    int p = m->nranks;
    rg->d = -1;
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &s->xfers[i];
        int d = one_dim(m, t->src, t->dst);
        if (d < 0 || (rg->d >= 0 && d != rg->d))
            return false;
        rg->d = d;
        cnt[t->src]++, cnt[p + t->dst]++;
        cnt[2 * p + line_key(m, t->src, d)]++;
    }
    rg->k = m->dim[rg->d].size, rg->w = 0, rg->every = true;
    rg->first = -1;
    for (int r = 0; r < p; r++) {
        int key = line_key(m, r, rg->d);
        if (cnt[r] != cnt[p + r] || cnt[r] > 2)
            return false;
        if (!cnt[r] ? cnt[2 * p + key] != 0
                    : cnt[2 * p + key] != cnt[r] * rg->k)
            return false;
        rg->w = cnt[r] && !rg->w ? cnt[r] : rg->w;
        if (cnt[r] && cnt[r] != rg->w)
            return false;
        rg->every &= cnt[r] > 0;
        rg->first = rg->first < 0 && cnt[r] ? r : rg->first;
    }
    return rg->w > 0;
}

/* Which way the rings go: one coordinate up or down, both ways, or
 * round one order (succ) that every line keeps, a single cycle. */
static bool rings_order(const Schedule *s, const Step *st, const Machine *m,
                        Rings *rg)
{
    int k = rg->k, up = 0, down = 0;
    for (int c = 0; c < k; c++)
        rg->succ[c] = -1;
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &s->xfers[i];
        int a = machine_coord(m, t->src, rg->d);
        int b = machine_coord(m, t->dst, rg->d);
        up += b == (a + 1) % k, down += a == (b + 1) % k;
        if (rg->w == 1 && rg->succ[a] >= 0 && rg->succ[a] != b)
            return false;
        rg->succ[a] = b;
    }
    int n = (int)st->n;
    if (rg->w == 2) {
        rg->delta = 2;
        return k == 2 ? up == n : up == n / 2 && down == n / 2;
    }
    rg->delta = up == n ? 1 : down == n ? -1 : 0;
    int c = 0, len = 0;
    do
        c = rg->succ[c], len++;
    while (c > 0 && len <= k);
    return c == 0 && len == k;
}

/* Whether every transfer is exactly 1/(k w) of its line's total. */
static bool rings_exact(const Schedule *s, const Step *st, const Machine *m,
                        const Rings *rg, size_t *tot)
{
    for (size_t i = st->first; i < st->first + st->n; i++)
        tot[line_key(m, s->xfers[i].src, rg->d)] += s->xfers[i].count;
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &s->xfers[i];
        if (t->count * (size_t)(rg->k * rg->w) !=
            tot[line_key(m, t->src, rg->d)])
            return false;
    }
    return true;
}

/* The step's rings, or false. */
static bool rings_of(const Schedule *s, size_t k, const Machine *m,
                     Rings *rg)
{
    const Step *st = &s->steps[k];
    int p = m->nranks;
    int *cnt = calloc(3 * (size_t)p, sizeof *cnt);
    size_t *tot = calloc((size_t)p, sizeof *tot);
    bool ok = cnt && tot && rings_lines(s, st, m, rg, cnt);
    rg->succ = ok ? malloc((size_t)rg->k * sizeof *rg->succ) : NULL;
    ok = ok && rg->succ && rg->k > 1 && rings_order(s, st, m, rg);
    rg->exact = ok && rings_exact(s, st, m, rg, tot);
    free(cnt);
    free(tot);
    return ok;
}

/* How a coordinate of dimension d is named: the class of its links on a
 * grid (x, y, ..), r on a machine of one dimension. */
static const char *coord_name(const Machine *m, int d)
{
    return m->ndims == 1 ? "r" : m->cls[m->dim[d].cls].name;
}

/* Who runs the rings: the lines of the dimension as this machine names
 * them; a reduce-scatter's sentence, then an all-gather's. Each takes the
 * name of the dimension's links (a machine of one line needs none). */
typedef enum { WHO_ROW, WHO_COL, WHO_LINE, WHO_NODE, WHO_ACROSS,
               WHO_RING, WHO_MESH, WHO_COUNT } LineWho;

static const char *const who_say[WHO_COUNT][2] = {
    [WHO_ROW] = {N_("Each row runs a ring reduce-scatter on its %s "
                    "links."),
                 N_("Each row runs a ring all-gather on its %s links.")},
    [WHO_COL] = {N_("Each column runs a ring reduce-scatter on its %s "
                    "links."),
                 N_("Each column runs a ring all-gather on its %s "
                    "links.")},
    [WHO_LINE] = {N_("Each line along %s runs a ring reduce-scatter on "
                     "its links."),
                  N_("Each line along %s runs a ring all-gather on its "
                     "links.")},
    [WHO_NODE] = {N_("Each node runs a ring reduce-scatter over %s."),
                  N_("Each node runs a ring all-gather over %s.")},
    [WHO_ACROSS] = {N_("The ranks of each local index run a ring "
                       "reduce-scatter across the nodes, over %s."),
                    N_("The ranks of each local index run a ring "
                       "all-gather across the nodes, over %s.")},
    [WHO_RING] = {N_("The ranks run a ring reduce-scatter round the "
                     "machine's ring."),
                  N_("The ranks run a ring all-gather round the machine's "
                     "ring.")},
    [WHO_MESH] = {N_("The ranks run a ring reduce-scatter on the machine's "
                     "line of links."),
                  N_("The ranks run a ring all-gather on the machine's "
                     "line of links.")},
};

/* Where each rank sends: the neighbour one way, both neighbours (one
 * half each way; the one neighbour of a line of two), the next rank of a
 * ring round another order (folded: a mesh's). Each takes the share, then
 * the neighbours' coordinates or the order of one line's ranks. */
typedef enum { TO_NEIGH, TO_BOTH, TO_BOTH2, TO_NEXT, TO_FOLD,
               TO_COUNT } LineTo;

static const char *const to_say[TO_COUNT][2] = {
    [TO_NEIGH] = {N_("Each rank sends %s of what is still live to its "
                     "neighbour at %s."),
                  N_("Each rank passes %s of what its line gathers to its "
                     "neighbour at %s.")},
    [TO_BOTH] = {N_("Each rank sends %s of each half still live to its "
                    "neighbours at %s and %s, one half each way."),
                 N_("Each rank passes %s of each half its line gathers to "
                    "its neighbours at %s and %s, one half each way.")},
    [TO_BOTH2] = {N_("Each rank sends %s of each half still live to its "
                     "one neighbour, at %s."),
                  N_("Each rank passes %s of each half its line gathers to "
                     "its one neighbour, at %s.")},
    [TO_NEXT] = {N_("Each rank sends %s of what is still live to the next "
                    "rank of its ring (as %s)."),
                 N_("Each rank passes %s of what its line gathers to the "
                    "next rank of its ring (as %s).")},
    [TO_FOLD] = {N_("Each rank sends %s of what is still live to the next "
                    "rank of its folded ring (as %s)."),
                 N_("Each rank passes %s of what its line gathers to the "
                    "next rank of its folded ring (as %s).")},
};

static LineWho who_of(const Machine *m, int d)
{
    if (m->ndims == 1)
        return m->dim[0].kind == DIM_MESH ? WHO_MESH : WHO_RING;
    if (m->kind == MACHINE_NODES)
        return d == 0 ? WHO_NODE : WHO_ACROSS;
    return m->ndims == 2 ? (d == 0 ? WHO_ROW : WHO_COL) : WHO_LINE;
}

/* The ring of the first sender's line, as ranks: "0→2→3→1→0". */
static void ring_order(const Machine *m, const Rings *rg, char *out,
                       size_t len)
{
    int key = line_key(m, rg->first, rg->d), c = 0;
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i <= rg->k && at + 1 < len; i++) {
        int n = snprintf(out + at, len - at, i ? "\xe2\x86\x92%d" : "%d",
                         machine_rank_at(m, key + c * m->stride[rg->d]));
        at = n > 0 && (size_t)n < len - at ? at + (size_t)n : len - 1;
        c = rg->succ[c];
    }
}

static void rings_say(const Machine *m, const Rings *rg, bool red,
                      const StepShape *sh, char *out, size_t len)
{
    const char *dim = m->cls[m->dim[rg->d].cls].name;
    const char *cn = coord_name(m, rg->d);
    char who[96], f[16], a[160], b[24], act[400];
    if (rg->every) {
        snprintf(out, len, _(who_say[who_of(m, rg->d)][!red]), dim);
    } else {
        sentence_ranks(sh->src, sh->p, who, sizeof who);
        snprintf(out, len, red ? _("Ranks %s run a ring reduce-scatter on "
                                   "their %s links.")
                               : _("Ranks %s run a ring all-gather on "
                                   "their %s links."), who, dim);
    }
    frac_k(rg->k, rg->exact, f, sizeof f);
    DimKind dk = m->dim[rg->d].kind;
    bool line = dk == DIM_RING || dk == DIM_MESH; /* neighbours on links */
    LineTo to = rg->delta == 2 ? (rg->k == 2 ? TO_BOTH2 : TO_BOTH)
                : rg->delta && line ? TO_NEIGH
                : dk == DIM_MESH && rg->k > 2 ? TO_FOLD : TO_NEXT;
    snprintf(a, sizeof a, "%s%s", cn, rg->delta == -1 ? "-1" : "+1");
    snprintf(b, sizeof b, "%s-1", cn);
    if (to == TO_NEXT || to == TO_FOLD)
        ring_order(m, rg, a, sizeof a);
    snprintf(act, sizeof act, _(to_say[to][!red]), f, a, b);
    join(out, len, act);
}

bool sentence_lines(const Schedule *s, size_t k, const Machine *m,
                    const StepShape *sh, char *out, size_t len)
{
    if (!m || m->nranks != sh->p || machine_has_medium(m) || sh->nlocal ||
        !sh->n || (sh->nred && sh->ncopy) ||
        (m->ndims == 1 && m->dim[0].kind != DIM_RING &&
         m->dim[0].kind != DIM_MESH))
        return false;
    Rings rg = {0};
    bool ok = rings_of(s, k, m, &rg);
    if (ok)
        rings_say(m, &rg, sh->nred > 0, sh, out, len);
    free(rg.succ);
    return ok;
}

/* ------------------------------------------------------------- trees */

/* NCCL's tree on nodes: a chunk up a node's chain (reduced into local
 * rank l-1), up the trees of the nodes' heads, down a chain (to l+1),
 * down the trees. */
typedef enum { TR_UP_IN, TR_UP_X, TR_DOWN_IN, TR_DOWN_X, TR_COUNT } TreeWay;

/* Each way's sentence: [way][several senders][several chunks each]. */
static const char *const tree_say[TR_COUNT][2][2] = {
    [TR_UP_IN] = {
        {N_("In its node, rank %s sends a chunk (%s of the vector) up the "
            "chain to the rank before it, which adds it."),
         N_("In its node, rank %s sends chunks (%s of the vector each) up "
            "the chain to the rank before it, which adds them.")},
        {N_("In their nodes, ranks %s send a chunk (%s of the vector) up "
            "the chain, each to the rank before it, which adds it."),
         N_("In their nodes, ranks %s send chunks (%s of the vector each) "
            "up the chain, each to the rank before it, which adds them.")}},
    [TR_UP_X] = {
        {N_("Across the nodes, rank %s sends a chunk (%s of the vector) up "
            "the trees to its parent, which adds it."),
         N_("Across the nodes, rank %s sends chunks (%s of the vector "
            "each) up the trees to its parents, which add them.")},
        {N_("Across the nodes, ranks %s send a chunk (%s of the vector) up "
            "the trees, each to its parent, which adds it."),
         N_("Across the nodes, ranks %s send chunks (%s of the vector "
            "each) up the trees, each to its parents, which add them.")}},
    [TR_DOWN_IN] = {
        {N_("In its node, rank %s passes a chunk (%s of the vector) down "
            "the chain to the rank after it, which keeps it."),
         N_("In its node, rank %s passes chunks (%s of the vector each) "
            "down the chain to the rank after it, which keeps them.")},
        {N_("In their nodes, ranks %s pass a chunk (%s of the vector) down "
            "the chain, each to the rank after it, which keeps it."),
         N_("In their nodes, ranks %s pass chunks (%s of the vector each) "
            "down the chain, each to the rank after it, which keeps "
            "them.")}},
    [TR_DOWN_X] = {
        {N_("Across the nodes, rank %s sends a chunk (%s of the vector) "
            "down the trees to its children, which keep it."),
         N_("Across the nodes, rank %s sends chunks (%s of the vector "
            "each) down the trees to its children, which keep them.")},
        {N_("Across the nodes, ranks %s send a chunk (%s of the vector) "
            "down the trees to their children, which keep it."),
         N_("Across the nodes, ranks %s send chunks (%s of the vector "
            "each) down the trees to their children, which keep them.")}},
};

/* The way transfer t goes on a machine of nodes, or -1: inside a node
 * only between neighbours of its chain, across only between heads. */
static int tree_way(const Machine *m, const Transfer *t)
{
    int ls = machine_coord(m, t->src, 0), ld = machine_coord(m, t->dst, 0);
    bool red = t->op == XFER_REDUCE;
    if (machine_coord(m, t->src, 1) != machine_coord(m, t->dst, 1))
        return ls || ld ? -1 : red ? TR_UP_X : TR_DOWN_X;
    return red && ld == ls - 1 ? TR_UP_IN
           : !red && ld == ls + 1 ? TR_DOWN_IN : -1;
}

/* What one way of the step moves: its senders, transfers, sizes. */
typedef struct {
    unsigned char *from; /* [p] its senders */
    int nfrom;           /* how many */
    Parts sz;            /* its transfers' sizes */
} TreePart;

static void tree_say_all(const Schedule *s, const TreePart *tp, int p,
                         char *out, size_t len)
{
    char who[96], f[16], one[400];
    out[0] = '\0';
    for (int w = 0; w < TR_COUNT; w++) {
        if (!tp[w].sz.n)
            continue;
        sentence_ranks(tp[w].from, p, who, sizeof who);
        share(&tp[w].sz, s->call.count, f, sizeof f);
        snprintf(one, sizeof one,
                 _(tree_say[w][tp[w].nfrom > 1]
                           [tp[w].sz.n > (size_t)tp[w].nfrom]), who, f);
        join(out, len, one);
    }
}

bool sentence_tree(const Schedule *s, size_t k, const Machine *m,
                   const StepShape *sh, char *out, size_t len)
{
    int p = sh->p;
    if (!m || m->kind != MACHINE_NODES || m->nranks != p || sh->nlocal ||
        !sh->n)
        return false;
    const Step *st = &s->steps[k];
    TreePart tp[TR_COUNT] = {{0}};
    unsigned char *from = calloc(TR_COUNT * (size_t)p, 1);
    bool ok = from != NULL;
    for (int w = 0; w < TR_COUNT && ok; w++)
        tp[w].from = from + (size_t)w * p;
    for (size_t i = st->first; ok && i < st->first + st->n; i++) {
        const Transfer *t = &s->xfers[i];
        int w = tree_way(m, t);
        ok = w >= 0 && t->count < s->call.count;
        if (!ok)
            break;
        tp[w].nfrom += !tp[w].from[t->src];
        tp[w].from[t->src] = 1;
        parts_add(&tp[w].sz, t->count);
    }
    if (ok)
        tree_say_all(s, tp, p, out, len);
    free(from);
    return ok;
}

/* ------------------------------------------------------------ switch */

/* NVLS's parts of a step: the loads (copies marked as the switch's), its
 * sums (local reduces marked so), the multicast (the other copies). */
typedef enum { SW_LOAD, SW_SUM, SW_CAST, SW_COUNT } SwPart;

/* What one part moves. */
typedef struct {
    unsigned char *from;  /* [p] the ranks that send */
    Parts sz;             /* its transfers' sizes */
    int *fan;             /* [p] transfers each rank sends (load, cast) or
                             receives (load: its slice's loads) */
    int nfrom;            /* ranks that send */
} SwLoad;

static int sw_part(const Transfer *t)
{
    bool sw = (t->flags & XF_SWITCH) != 0, red = t->op == XFER_REDUCE;
    if (sw)
        return red ? (t->src == t->dst ? SW_SUM : -1) : SW_LOAD;
    return red ? -1 : SW_CAST;
}

const char *sentence_switch_sums(const Machine *m)
{
    return m && machine_has_reducing_switch(m)
           ? _("The switch sums the loads it took (drawn at each slice's "
               "owner); nothing crosses between ranks.")
           : _("Ranks add parts they hold on their own; nothing crosses "
               "between ranks.");
}

/* The fewest transfers any rank of `from` sends (f: [p] per rank). */
static int fewest(const unsigned char *from, const int *f, int p)
{
    int lo = -1;
    for (int r = 0; r < p; r++)
        if (from[r] && (lo < 0 || f[r] < lo))
            lo = f[r];
    return lo;
}

static void switch_say(const Schedule *s, const Machine *m,
                       const SwLoad *sl, int p, char *out, size_t len)
{
    bool sw = m && machine_has_reducing_switch(m);
    char f[16], one[400];
    out[0] = '\0';
    if (sl[SW_LOAD].sz.n) {
        share(&sl[SW_LOAD].sz, s->call.count, f, sizeof f);
        int owners = fewest(sl[SW_LOAD].from, sl[SW_LOAD].fan, p);
        int loads = sl[SW_LOAD].nfrom; /* each slice: one from each */
        snprintf(one, sizeof one, sw
                 ? _("Load-reduce: every rank loads its slice of a chunk for "
                     "each of the %d ranks (%s of the vector each) into the "
                     "switch; the %d loads of each slice are drawn arriving "
                     "at its owner, and the switch's one sum of them, sent "
                     "down to the owner, is drawn in the steps after.")
                 : _("Every rank sends its slice of a chunk for each of the "
                     "%d ranks (%s of the vector each) to that rank, to be "
                     "summed there with the other %d."), owners, f,
                 sw ? loads : loads - 1);
        join(out, len, one);
    }
    if (sl[SW_SUM].sz.n)
        join(out, len, sw ? _("The switch sums the loads of earlier chunks "
                              "(drawn at each slice's owner, on no link).")
                          : _("Each slice's owner adds up the loads of "
                              "earlier chunks on its own."));
    if (sl[SW_CAST].sz.n) {
        share(&sl[SW_CAST].sz, s->call.count, f, sizeof f);
        snprintf(one, sizeof one, sw
                 ? _("Multicast: every rank stores its summed slice of a "
                     "chunk (%s of the vector) once into the switch, which "
                     "copies it to all %d ranks.")
                 : _("Every rank sends its summed slice of a chunk (%s of "
                     "the vector) to all %d ranks."), f,
                 fewest(sl[SW_CAST].from, sl[SW_CAST].fan, p));
        join(out, len, one);
    }
}

/* Whether each rank's copies not marked as the switch's read one range
 * (a multicast's). */
static bool one_range(const Schedule *s, const Step *st)
{
    for (size_t i = st->first; i < st->first + st->n; i++)
        for (size_t j = st->first; j < i; j++) {
            const Transfer *a = &s->xfers[i], *b = &s->xfers[j];
            if (a->src == b->src && !(a->flags & XF_SWITCH) &&
                !(b->flags & XF_SWITCH) &&
                (a->src_off != b->src_off || a->count != b->count ||
                 a->src_buf != b->src_buf))
                return false;
        }
    return true;
}

/* Count transfer t into its part. */
static void sw_count(SwLoad *l, const Transfer *t)
{
    l->nfrom += !l->from[t->src];
    l->from[t->src] = 1, l->fan[t->src]++;
    parts_add(&l->sz, t->count);
}

bool sentence_switch(const Schedule *s, size_t k, const Machine *m,
                     const StepShape *sh, char *out, size_t len)
{
    int p = sh->p;
    if ((!sh->sw && !(m && machine_has_reducing_switch(m))) ||
        sh->nlocal == sh->n)
        return false;
    const Step *st = &s->steps[k];
    SwLoad sl[SW_COUNT] = {{0}};
    unsigned char *from = calloc(SW_COUNT * (size_t)p, 1);
    int *fan = calloc(SW_COUNT * (size_t)p, sizeof *fan);
    bool ok = from && fan;
    for (int w = 0; w < SW_COUNT && ok; w++)
        sl[w].from = from + (size_t)w * p, sl[w].fan = fan + (size_t)w * p;
    for (size_t i = st->first; ok && i < st->first + st->n; i++) {
        int w = sw_part(&s->xfers[i]);
        if (!(ok = w >= 0))
            break;
        sw_count(&sl[w], &s->xfers[i]);
    }
    /* every rank loads and multicasts (one range to several), where
       the step does */
    ok = ok && (!sl[SW_LOAD].sz.n || sl[SW_LOAD].nfrom == p) &&
         (!sl[SW_CAST].sz.n || (sl[SW_CAST].nfrom == p &&
                             fewest(sl[SW_CAST].from, sl[SW_CAST].fan, p) > 1
                             && one_range(s, st)));
    if (ok)
        switch_say(s, m, sl, p, out, len);
    free(from);
    free(fan);
    return ok;
}
