/* sentence_mach.h - below sentence.c: what a step's transfers have in
 * common (StepShape), rank sets in words, and the sentences of steps made
 * for a machine (sentence_mach.c): rings along one dimension of a torus,
 * a mesh or a machine of nodes; NCCL's chains and trees on nodes; NVLS's
 * switch. Each reads the step's transfers and the machine's coordinates,
 * never the step's label, and returns false where its shape does not
 * hold. */
#ifndef COLLVIZ_UI_SENTENCE_MACH_H
#define COLLVIZ_UI_SENTENCE_MACH_H

#include <stdbool.h>
#include <stddef.h>

#include "core/machine.h"
#include "core/sched.h"

/* How a transfer's source got what it sends, in the step before. */
typedef enum {
    SRC_NONE,     /* not written in the step before (the input, or older) */
    SRC_REDUCED,  /* a reduce wrote it: it holds a sum just made */
    SRC_RECEIVED, /* another rank's copy wrote it: just received */
    SRC_COPIED,   /* the rank's own copy wrote it (a copy-in) */
    SRC_MIXED,    /* not the same for every transfer */
} SrcKind;

/* What step k's transfers have in common. */
typedef struct {
    int p;            /* ranks */
    size_t n;         /* transfers */
    size_t nlocal;    /* of them, on one rank */
    size_t nred, ncopy; /* remote ones that reduce, that copy */
    size_t lred, lcopy; /* local ones that reduce, that copy */
    bool local_in;    /* every local copy: send buffer into receive */
    bool local_out;   /* every local copy: tmp into receive */
    bool sw;          /* some transfer is marked as a switch's (XF_SWITCH) */
    int shift;        /* (dst - src) mod p of every remote transfer, or -1 */
    int xor_mask;     /* src ^ dst of every remote transfer, or -1 */
    int part;         /* every remote transfer carries 1/part of the
                         receiving buffer (1: all of it), or 0 */
    int blocks;       /* where the collective has blocks of call.count
                         elements (alltoall, allgather, ...): how many every
                         remote transfer carries (1 elsewhere), or -1 */
    SrcKind src_kind; /* how the remote transfers' sources got their data */
    int nsrc, ndst;   /* ranks that send, that receive (remote) */
    int nany;         /* ranks that take part at all */
    bool overlap;     /* some rank both sends and receives */
    unsigned char *src, *dst, *any; /* [p] flags */
} StepShape;

/* A set of ranks (flags[p]) as "0-3,6". */
void sentence_ranks(const unsigned char *flags, int p, char *out,
                    size_t len);

/* Rings along one dimension d of m: every remote transfer joins two
 * ranks that differ only in their coordinate d, each line of d that takes
 * part runs one ring (or two, one each way), and the sentence names the
 * lines, the links, the share of what is live and the partner. */
bool sentence_lines(const Schedule *s, size_t k, const Machine *m,
                    const StepShape *sh, char *out, size_t len);

/* NCCL's tree on a machine of nodes: chunks up and down each node's
 * chain and between the nodes' heads, a sentence for each of the four. */
bool sentence_tree(const Schedule *s, size_t k, const Machine *m,
                   const StepShape *sh, char *out, size_t len);

/* A step with the switch's transfers (XF_SWITCH, NVLS): the load-reduce
 * of a chunk, the switch's sums, the multicast, a sentence for each. */
bool sentence_switch(const Schedule *s, size_t k, const Machine *m,
                     const StepShape *sh, char *out, size_t len);

/* The sentence of a step of NVLS's sums alone (nothing crosses). */
const char *sentence_switch_sums(const Machine *m);

#endif
