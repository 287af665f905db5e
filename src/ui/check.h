/* check.h - the real buffers of a scene's picture: read back from the
 * backend and compared, element by element, with what the symbolic state
 * says they must hold. Used by scene.c; knows only the schedule (through
 * the Sim), the Sim and the executor. */
#ifndef COLLVIZ_UI_CHECK_H
#define COLLVIZ_UI_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sim.h"
#include "exec/exec.h"

/* The expected value of every element, cached between steps: only the
 * elements some step between two states wrote can differ between them. */
typedef struct CheckCache CheckCache;

/* The real buffers and how they compare with the symbolic state. Element i
 * of rank r's buffer b is at index sim->base[b][r] + i of each array. */
typedef struct {
    uint8_t *real[BUF_COUNT]; /* bytes read back (type size per element) */
    bool real_ok;             /* real holds the state after the last
                                 read-back */
    uint8_t *bad[BUF_COUNT];  /* per element: 1 when real differs */
    size_t nwrong;            /* elements that differ */
    CheckCache *cache;        /* expected values, kept between steps */
} Check;

/* Arrays sized for sim's buffers; on failure (no memory) c is left
 * finalizable. */
CvError check_init(Check *c, const Sim *sim);
void check_fini(Check *c);

/* Read every rank's buffers of sim's schedule from ex into c->real. */
CvError check_read_back(Check *c, const Sim *sim, const ExecOps *ops,
                        Executor *ex);

/* Compare c->real with sim after it moved from step `from` to `step`
 * (SIZE_MAX: from anywhere): c->bad, c->nwrong. */
void check_compare(Check *c, const Sim *sim, size_t step, size_t from);

/* The value sim says element i of rank r's buffer b holds after `step`
 * steps (NAN for an empty or mixed element). */
double check_want(const Sim *sim, size_t step, int r, BufId b, size_t i);

/* The real value of that element as a double (NAN when c->real is not
 * read back). */
double check_real(const Check *c, const Sim *sim, int r, BufId b, size_t i);

#endif
