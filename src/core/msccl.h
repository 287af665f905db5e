/* msccl.h - MSCCL's algorithm XML (msccl-tools' old format, which NCCL's
 * MSCCL runtime executes): read into collviz's schedule text, and any
 * schedule written as one.
 *
 * An <algo> names the collective, its ngpus and nchunksperloop, the parts
 * its largest buffer is cut into; each <gpu> holds threadblocks <tb>, each
 * with a send and a receive peer and a channel, running its <step>s in
 * order and waiting for the one step another threadblock of its GPU that
 * `depid` and `deps` name. A send pairs with the receive of the peer's
 * threadblock that receives from this GPU on the same channel, in order.
 * Read, each transfer goes in the first collviz step in which its data,
 * its two threadblocks and their dependencies are ready (as the runtime
 * would run it, every step one round); a receive that reduces into a
 * place other than its source's, or that reduces and sends on without
 * storing (rrs), goes through tmp and takes a further step. No I/O, no
 * globals. */
#ifndef COLLVIZ_CORE_MSCCL_H
#define COLLVIZ_CORE_MSCCL_H

#include "core/sched_text.h"

#define MSCCL_MAX_TBS 1024      /* threadblocks of one GPU */
#define MSCCL_MAX_OPS (1u << 20) /* steps of the whole file */
#define MSCCL_MAX_CHAN 255      /* the highest channel */

/* Read MSCCL XML (len bytes) into *out, the schedule named `name` (kept:
 * it must outlive *out); out->line gives each transfer the line of the
 * XML step that received or did it. CV_OK, or the error and one sentence
 * in why ("12: ..." where one line is at fault). */
CvError msccl_parse(const char *xml, size_t len, const char *name,
                    SchedText *out, char *why, size_t whylen);

/* Whether text looks like MSCCL XML (its first tag is <algo>, after any
 * declaration or comment). */
bool msccl_is_xml(const char *text, size_t len);

/* Write schedule s as MSCCL XML into *xml (malloc'd, NUL-terminated, *len
 * bytes): per GPU a threadblock for each peer and channel it talks on
 * (the n-th transfer between two ranks in a step on channel n) and for
 * its local work, its steps in the schedule's order, each waiting for the
 * work of the GPU's last busy step; collviz's step as cvstep, a reducing
 * switch's work as cvswitch. CV_ERR_NOMEM, or CV_ERR_LIMIT: more than
 * 1024 ranks, MSCCL_MAX_TBS threadblocks on a GPU or MSCCL_MAX_CHAN + 1
 * channels. */
CvError msccl_write(const Schedule *s, char **xml, size_t *len);

#endif
