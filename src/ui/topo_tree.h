/* topo_tree.h - the trees of a schedule, for the topology panel: which
 * rank is whose parent, derived from the transfers alone (no algorithm
 * says it). No drawing, no App. */
#ifndef COLLVIZ_UI_TOPO_TREE_H
#define COLLVIZ_UI_TOPO_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/sched.h"

/* Most ranks the topology draws (the picture's limit). */
#define TOPO_MAXR 64
/* Most trees drawn side by side (a double binary tree has two). */
#define TOPO_MAX_TREES 4

/* Parent/child edges derived from the schedule: every pair of ranks that
 * exchange data is an edge; its last use goes down the tree (root to
 * leaves) except in reduce and gather, which end going up. A rank with
 * several parents belongs to several trees, told apart by the part of the
 * data (source offset) their edges carry. */
typedef struct {
    int ntrees;                           /* trees */
    bool multi;                           /* trees told apart by data part */
    size_t key[TOPO_MAX_TREES];           /* each tree's data part, when
                                             multi */
    int par[TOPO_MAX_TREES][TOPO_MAXR];   /* parent per tree, -1 for none */
    int nkids[TOPO_MAX_TREES][TOPO_MAXR]; /* children per tree */
    bool member[TOPO_MAX_TREES][TOPO_MAXR]; /* the rank is in the tree */
} TopoForest;

/* The trees of schedule s on p ranks (at most TOPO_MAXR). */
void topo_tree_build(const Schedule *s, int p, TopoForest *f);

#endif
