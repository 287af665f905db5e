/* ring.c - the ring family of algorithms. */
#include "algo.h"
#include "algos/common.h"

const AlgoInfo *const algos_ring[] = {
    NULL,
};
