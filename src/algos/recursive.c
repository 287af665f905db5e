/* recursive.c - the recursive family of algorithms. */
#include "algo.h"
#include "algos/common.h"

const AlgoInfo *const algos_recursive[] = {
    NULL,
};
