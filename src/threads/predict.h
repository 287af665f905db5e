/* predict.h - the threads backend's predictor (ExecOps.predict): the time
 * of a schedule under a calibration, from the schedule walked as this
 * backend runs it.
 *
 * On the machines a calibration is fitted to (calib_fits):
 *  - full (and nodes): model.h's cost (full duplex links, local copies
 *    free) with the lone pair's parameters (calib_model_cost);
 *  - bus: one memory system carries everything, as the ranks of
 *    one machine share it. A step costs alpha, and the message latency for
 *    each message beyond the first of the rank with the most (with
 *    messages of more than half CALIB_LAT_BYTES: at
 *    least the step latency for each round of receiving ranks the cores
 *    take turns at, and the iteration its latency once), plus every byte
 *    any transfer moves (local ones too: a
 *    rank copying its input into place uses the same memory; sources the
 *    step overwrites are copied aside first, as the executor does), plus
 *    every byte reduced anywhere times gamma. A byte's beta depends on
 *    where it is: the schedule is walked twice over one address space of
 *    every rank's buffers, and each byte is charged by its reuse distance
 *    (the bytes touched since it was last touched) on the curve the
 *    footprint ladder measured, between the cache's speed and memory's:
 *    the cross curve when another rank's core holds its line and the
 *    touch needs that core (a read of what that rank wrote, a write over
 *    what it read), the shared curve otherwise (and always where ranks
 *    outnumber cores: the cross benchmark then times the ranks' turns at
 *    the cores more than lines moving between caches).
 *    The cached part of a step's bytes is work for the cores of the ranks
 *    that move them (the destination, or for a pushed tail the source:
 *    plan_push_all), so a step only one rank works in is not spread over
 *    the others' cores; likewise its memory part takes at least the
 *    busiest rank's memory bytes at one core's rate (the point-to-point
 *    bandwidth of the largest working set: one core cannot keep as many
 *    lines in flight as all of them). Copies the executor streams
 *    (copy.h's rule) write to memory and leave the caches; the memory
 *    beta is a streamed copy's, and where the working set does not fit
 *    the last-level cache (as large as it or larger) a copy that is not
 *    streamed and writes to memory pays its destination twice, as the
 *    store reads the line first (measured: a 2-rank chain broadcast at
 *    64 MiB, 64 KiB copies, ran 1.4x the model without it; 4-rank
 *    collectives whose buffers come to exactly the cache's 32 MiB,
 *    1.3-1.8x). (model.h's
 *    shared model leaves local transfers free, charges only the largest
 *    reduction of one rank, and has one beta for every byte: none of that
 *    holds for cores that share caches and memory.) */
#ifndef COLLVIZ_THREADS_PREDICT_H
#define COLLVIZ_THREADS_PREDICT_H

#include "core/calib.h"

/* Predicted seconds of schedule s under c on its machine k (above). */
CvError threads_predict(const Calib *c, const Schedule *s, MachineKind k,
                        double *seconds);

#endif
