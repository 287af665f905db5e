/* verify.h - compare an executor's real buffers with what they must hold:
 * the symbolic state after any step (so what the screen shows is what the
 * machine computed), or the collective's definition after the last step.
 *
 * Works on any backend through ExecOps.read. Values come from data.h, so
 * the comparison is bit for bit (avg's final division on floats: within
 * rounding). No I/O, no globals. */
#ifndef COLLVIZ_VERIFY_H
#define COLLVIZ_VERIFY_H

#include "exec/exec.h"
#include "core/sim.h"

/* The outcome of a comparison: how many elements differ, and the first. */
typedef struct {
    size_t checked;  /* elements compared */
    size_t wrong;    /* elements that differ (nccl-tests' #wrong) */
    int bad_rank;    /* first wrong element's rank, -1 when none is wrong */
    BufId bad_buf;   /* its buffer */
    size_t bad_elem; /* its index in that buffer */
    uint64_t got;    /* the bits found there */
    uint64_t want;   /* the bits that should be there */
} VerifyReport;

/* Compare every buffer of every rank of ex with sim, which must have
 * executed the same schedule to the same step (sim->next_step steps).
 * finished: the executor's finish has been applied (after the last step),
 * so outputs hold avg's division. Elements the sim holds empty (or mixed)
 * are skipped. Returns CV_OK when everything matches, CV_ERR_WRONG when
 * some element differs, or the executor's error. */
CvError verify_state(Executor *ex, const Sim *sim, bool finished,
                     VerifyReport *rep);

/* Compare every rank's output with the collective's definition, after all
 * steps (finished: and the finish). Needs no Sim, so it suits large runs.
 * Returns as verify_state. */
CvError verify_output(Executor *ex, bool finished, VerifyReport *rep);

#endif
