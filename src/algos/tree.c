/* tree.c - the tree family of algorithms. */
#include "algo.h"
#include "algos/common.h"

const AlgoInfo *const algos_tree[] = {
    NULL,
};
