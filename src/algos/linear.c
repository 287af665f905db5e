/* linear.c - the linear family of algorithms. */
#include "algo.h"
#include "algos/common.h"

const AlgoInfo *const algos_linear[] = {
    NULL,
};
