/* msccl_impl.h - what the MSCCL reader's two files share (msccl.c reads
 * and checks the XML, msccl_run.c runs its threadblocks round by round
 * into collviz steps): the algorithm as read, private to src/core. */
#ifndef COLLVIZ_CORE_MSCCL_IMPL_H
#define COLLVIZ_CORE_MSCCL_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/sched_text.h"

/* ---------------------------------------------------------- the model */

typedef enum {
    MS_NOP, MS_S, MS_R, MS_RCS, MS_RRS, MS_RRC, MS_RRCS, MS_CPY, MS_RE,
    MS_KIND_COUNT
} MsOpKind;

extern const char *const msccl_op_names[MS_KIND_COUNT];

/* One <step>. */
typedef struct {
    MsOpKind kind;
    int sbuf, dbuf;        /* BufId, after the in-place mapping */
    long soff, doff, cnt;  /* chunks */
    int depid, deps;       /* the step waited for (-1: none) */
    unsigned line;
    long done;             /* round it finished in (LONG_MAX: not yet) */
    long recvd;            /* round its receive finished in (or LONG_MAX) */
    long stage;            /* chunk a staged receive reduces into (-1) */
    long prep;             /* round its source was copied there in */
    long hint;             /* cvstep: the round it waits for (0: none) */
    bool sw;               /* cvswitch: a reducing switch's work */
    char sl, dl;           /* srcbuf's and dstbuf's letters: i, o, s */
} Op;

typedef struct {
    int send, recv, chan;  /* peers (-1: none), channel */
    Op *ops;
    size_t nops, cap;
    size_t pc;             /* the step it is at */
    int from;              /* the tb of gpu `recv` that sends to it (-1) */
    unsigned line;
} Tb;

typedef struct {
    Tb *tbs;
    size_t ntbs, cap;
    long s_chunks;         /* its scratch */
    long stage;            /* next free tmp chunk for staging */
    bool seen;
} Gpu;

typedef struct {
    CollKind kind;
    int ngpus;
    long nchunks;          /* nchunksperloop */
    long parts;            /* chunks per block */
    bool inplace;
    int root;              /* root: collviz's attribute (MSCCL has none) */
    Gpu *gpus;
    size_t nops;
    char *why;
    size_t whylen;
} Algo;

/* An attribute of t, or NULL. */
/* One sentence into why, after line's number when it is not 0;
 * CV_ERR_ARG. */
CvError msccl_fail(char *why, size_t len, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* What each kind of step does. */
bool msccl_sends(MsOpKind k);
bool msccl_receives(MsOpKind k);

/* Chunks of gpu g's buffer b (BufId). */
long msccl_buf_chunks(const Algo *a, int g, int b);

/* The threadblock of gpu p that talks to gpu g on channel c, sending
 * (send) or receiving; -1 none, -2 more than one. */
int msccl_peer_tb(const Algo *a, int p, int g, int c, bool send);

/* Run the checked algorithm's threadblocks round by round into *out,
 * the schedule named name. */
CvError msccl_run(Algo *a, const char *name, SchedText *out);

#endif
