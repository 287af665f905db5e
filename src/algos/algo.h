/* algo.h - the registry of algorithm generators.
 *
 * A generator is a pure function from a call to a Schedule. Every generator
 * works for every p in 1..COLL_MAX_RANKS (non-powers of two included), any
 * count >= 0 (counts p does not divide included), any root, in place or not.
 * Each entry carries its closed-form alpha-beta-gamma cost. */
#ifndef COLLVIZ_ALGO_H
#define COLLVIZ_ALGO_H

#include "core/coll.h"
#include "core/model.h"
#include "core/sched.h"

/* The shape the TUI draws an algorithm's topology in. */
typedef enum {
    TOPO_RING,      /* ranks on a circle, neighbours linked */
    TOPO_TREE,      /* rooted tree(s) */
    TOPO_HYPERCUBE, /* partners at distance 2^k (butterfly, halving) */
    TOPO_STAR,      /* one centre talks to everybody */
    TOPO_CHAIN,     /* a line of ranks (pipelines) */
    TOPO_FULL,      /* everybody talks to everybody */
    TOPO_COUNT
} TopoKind;

typedef struct AlgoInfo {
    CollKind coll;           /* the collective it implements */
    const char *name;        /* canonical name, e.g. "ring" */
    const char *aliases;     /* other names, space separated, or "" */
    const char *summary;     /* one line for lists and the UI */
    const char *formula;     /* closed form in words, e.g. "2(p-1)a + ..." */
    const char *constraints; /* what it needs, e.g. "any p, any count" */
    TopoKind topo;           /* how the TUI draws its links */
    /* Build the schedule for call into *out (sched_init is done by the
     * generator). Returns CV_OK or an error; *out is then empty. */
    CvError (*generate)(const CollCall *call, Schedule *out);
    /* Closed-form cost terms for call (alpha count, beta bytes, gamma
     * bytes, steps) under the p2p link model. */
    void (*cost)(const CollCall *call, CostTerms *out);
} AlgoInfo;

/* Number of registered algorithms, and the i-th (grouped by collective). */
size_t algo_count(void);
const AlgoInfo *algo_at(size_t i);

/* Find an algorithm of collective k by name or alias (case-insensitive). */
const AlgoInfo *algo_find(CollKind k, const char *name);
/* Find by name in any collective (for "does not fit" messages). */
const AlgoInfo *algo_find_any(const char *name);
/* The default algorithm of collective k. */
const AlgoInfo *algo_default(CollKind k);

/* Check the call (ranks, root) and generate. */
CvError algo_generate(const AlgoInfo *a, const CollCall *call, Schedule *out);

/* Each family file exports a NULL-terminated table of its entries. */
extern const AlgoInfo *const algos_linear[];
extern const AlgoInfo *const algos_ring[];
extern const AlgoInfo *const algos_tree[];
extern const AlgoInfo *const algos_recursive[];

#endif
