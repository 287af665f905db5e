/* call_fixture.h - which calls the collectives define, for the tests that
 * sweep every collective or algorithm over rank counts and places. Written
 * out from the definitions (nccl-tests'), not asked of coll_check, the code
 * under test: sendrecv sends from one buffer and receives into another, so
 * it has no in-place form; hypercube pairs rank r with r xor 2^k, so it
 * runs on a power of two ranks only. */
#ifndef COLLVIZ_TEST_CALL_FIXTURE_H
#define COLLVIZ_TEST_CALL_FIXTURE_H

#include <stdbool.h>

#include "core/coll.h"

static inline bool call_defined(CollKind k, int nranks, bool in_place)
{
    if (k == COLL_SENDRECV && in_place)
        return false;
    if (k == COLL_HYPERCUBE && (nranks < 1 || (nranks & (nranks - 1))))
        return false;
    return true;
}

#endif
