/* registry.c - every algorithm, grouped by collective, from the family
 * tables (linear.c, ring.c, tree.c, recursive.c, torus.c, nvls.c,
 * nccl_tree.c). */
#include "algos/algo.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const AlgoInfo *const *const families[] = {
    algos_linear, algos_ring, algos_tree, algos_recursive, algos_torus,
    algos_switch, algos_nodes,
};

#define NFAMILIES (sizeof families / sizeof families[0])

/* Default algorithm per collective: what a user gets without -a. */
static const char *const default_names[COLL_COUNT] = {
    [COLL_BROADCAST] = "binomial",   [COLL_REDUCE] = "binomial",
    [COLL_SCATTER] = "binomial",     [COLL_GATHER] = "binomial",
    [COLL_ALLGATHER] = "ring",       [COLL_REDUCESCATTER] = "ring",
    [COLL_ALLREDUCE] = "ring",       [COLL_ALLTOALL] = "pairwise",
    [COLL_SENDRECV] = "shift",       [COLL_HYPERCUBE] = "doubling",
};

/* Visit the entries grouped by collective, then in family order; stop and
 * return the entry when `want` is reached (SIZE_MAX: count them all). */
static const AlgoInfo *walk(size_t want, size_t *seen)
{
    size_t n = 0;
    for (int k = 0; k < COLL_COUNT; k++)
        for (size_t f = 0; f < NFAMILIES; f++)
            for (const AlgoInfo *const *a = families[f]; *a; a++)
                if ((*a)->coll == (CollKind)k && n++ == want)
                    return *a;
    *seen = n;
    return NULL;
}

size_t algo_count(void)
{
    size_t n = 0;
    walk(SIZE_MAX, &n);
    return n;
}

const AlgoInfo *algo_at(size_t i)
{
    size_t n;
    return walk(i, &n);
}

/* Whether `name` is a's name or one of its space-separated aliases. */
static int matches(const AlgoInfo *a, const char *name)
{
    if (!strcasecmp(a->name, name))
        return 1;
    size_t len = strlen(name);
    for (const char *p = a->aliases; p && *p;) {
        size_t w = strcspn(p, " ");
        if (w == len && !strncasecmp(p, name, len))
            return 1;
        p += w;
        p += strspn(p, " ");
    }
    return 0;
}

const char *algo_formula(const AlgoInfo *a, int p)
{
    bool pow2 = p > 0 && (p & (p - 1)) == 0;
    return !pow2 && a->formula_other ? a->formula_other : a->formula;
}

bool algo_segment_text(const AlgoInfo *a, const CollCall *call,
                       const ModelParams *mp, char *buf, size_t len)
{
    SegmentChoice sc;
    if (len)
        buf[0] = '\0';
    if (!a->segments || !a->segments(call, mp, &sc))
        return false;
    char now[64];
    if (call->segment)
        snprintf(now, sizeof now, "--segment %zu", call->segment);
    else
        snprintf(now, sizeof now, "the rule above");
    snprintf(buf, len, "S = %zu segments (%s); S = %zu minimises the "
             "closed form at these alpha and beta: --segment %zu", sc.now,
             now, sc.best, sc.best_bytes);
    return true;
}

const AlgoInfo *algo_find(CollKind k, const char *name)
{
    for (size_t f = 0; name && f < NFAMILIES; f++)
        for (const AlgoInfo *const *a = families[f]; *a; a++)
            if ((*a)->coll == k && matches(*a, name))
                return *a;
    return NULL;
}

const AlgoInfo *algo_find_any(const char *name)
{
    for (int k = 0; k < COLL_COUNT; k++) {
        const AlgoInfo *a = algo_find((CollKind)k, name);
        if (a)
            return a;
    }
    return NULL;
}

const AlgoInfo *algo_default(CollKind k)
{
    if ((unsigned)k >= COLL_COUNT)
        return NULL;
    const AlgoInfo *a = algo_find(k, default_names[k]);
    if (!a) { /* fall back to the first registered one */
        for (size_t i = 0, n = algo_count(); i < n; i++)
            if (algo_at(i)->coll == k)
                return algo_at(i);
    }
    return a;
}

bool algo_fits(const AlgoInfo *a, const CollCall *call, const Machine *m,
               char *why, size_t whylen)
{
    char none[8];
    if (!why)
        why = none, whylen = sizeof none;
    if (m && m->nranks != call->nranks) {
        snprintf(why, whylen, "the machine has %d ranks, the call %d",
                 m->nranks, call->nranks);
        return false;
    }
    Machine full;
    if (!m && machine_full(&full, call->nranks, 1, 1, 1) == CV_OK)
        m = &full;
    AlgoArgs args = {call, m, a, false, false};
    return !a->fits || a->fits(&args, why, whylen);
}

CvError algo_generate_on(const AlgoInfo *a, const CollCall *call,
                         const Machine *m, Schedule *out, char *why,
                         size_t whylen)
{
    return algo_generate_as(a, call, m, 0, out, why, whylen);
}

CvError algo_generate_as(const AlgoInfo *a, const CollCall *call,
                         const Machine *m, unsigned how, Schedule *out,
                         char *why, size_t whylen)
{
    if (!(how & ALGO_REUSE))
        memset(out, 0, sizeof *out);
    if (!a || !call || a->coll != call->kind)
        return CV_ERR_ALGO;
    if (call->nranks < 1 || call->nranks > SCHED_MAX_RANKS)
        return CV_ERR_RANKS;
    if (call->root < 0 || call->root >= call->nranks)
        return CV_ERR_ROOT;
    CvError e = coll_check(call);
    if (e)
        return e;
    if (!algo_fits(a, call, m, why, whylen))
        return CV_ERR_ALGO;
    Machine full;
    if (!m && machine_full(&full, call->nranks, 1, 1, 1) == CV_OK)
        m = &full;
    AlgoArgs args = {call, m, a, how & ALGO_COMPACT, how & ALGO_REUSE};
    return a->generate(&args, out);
}

CvError algo_generate(const AlgoInfo *a, const CollCall *call, Schedule *out)
{
    return algo_generate_on(a, call, NULL, out, NULL, 0);
}
