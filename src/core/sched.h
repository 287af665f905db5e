/* sched.h - the Schedule IR: steps of simultaneous transfers between ranks'
 * buffers, a builder for algorithm generators, a validator and statistics.
 *
 * Step semantics: every read in a step sees the values from before the
 * step. A transfer with src == dst is local work (a copy or a local reduce).
 * Offsets and counts are in elements. No I/O, no globals. */
#ifndef COLLVIZ_SCHED_H
#define COLLVIZ_SCHED_H

#include "core/coll.h"
#include "core/error.h"

typedef enum {
    XFER_COPY,   /* dst = src */
    XFER_REDUCE, /* dst = dst op src */
    XFER_OP_COUNT
} XferOp;

/* Transfer.flags. */
enum {
    /* The work of a reducing switch (NVLS), done by the ranks: a copy that
     * is one of those the switch sums into its destination (they leave
     * the switch once: model.h), or a reduce at a rank that the switch
     * does instead (free on a machine with one). Executors ignore it. */
    XF_SWITCH = 1,
    /* In a spread step (Step.spread) of a compact schedule: the source's
     * (destination's) offset moves one block of Step.blk elements per rank
     * the transfer moves, mod p blocks (rank r's block r of a buffer of p
     * blocks). Written out, a schedule has none. */
    XF_ROT_SRC = 2,
    XF_ROT_DST = 4,
    /* In a step repeated along cycles (Step.cyc) of a compact schedule:
     * the transfer's ranks move the other way round their cycles (the
     * second half of a bidirectional ring). Written out, none has it. */
    XF_BACK = 8,
};

/* A permutation of the ranks as cycles of one length (the lines of a
 * torus's dimension, each in its ring's order): what a step repeated
 * along cycles (Step.cyc) moves its ranks by. */
typedef struct {
    int32_t len;     /* ranks in each cycle */
    int32_t *member; /* [p] the cycles one after another */
    int32_t *at;     /* [p] where rank r is in member */
} SchedCycles;

/* Cycle tables a schedule may hold (a torus's dimensions). */
#define SCHED_MAX_CYCLES 8

/* One transfer of `count` consecutive elements. */
typedef struct {
    int32_t src;     /* source rank */
    int32_t dst;     /* destination rank */
    uint8_t src_buf; /* BufId read at the source */
    uint8_t dst_buf; /* BufId written at the destination */
    uint8_t op;      /* XferOp */
    uint8_t flags;   /* XF_* */
    size_t src_off;  /* first element read */
    size_t dst_off;  /* first element written */
    size_t count;    /* elements, > 0 */
} Transfer;

/* A step: xfers[first .. first + n) of the schedule happen at once.
 *
 * In a compact schedule (Schedule.compact) one entry may stand for `reps`
 * steps in a row, one shape rotated: step j of them (0 <= j < reps) is the
 * entry's transfers with every rank, source and destination, moved
 * j * shift places along (mod p), offsets, buffers and counts kept (a
 * ring's p - 1 steps are one). Only those who ask for the compact form
 * see it (the model, trace's statistics); everything else gets each step
 * written out, and sched_expand writes a compact schedule out.
 *
 * An entry may also be spread: each of its transfers stands for p within
 * the step, its copies with every rank moved i = 0 .. p - 1 places along
 * and each offset flagged XF_ROT_SRC or XF_ROT_DST moved i blocks of blk
 * elements along, mod p blocks (every rank doing what rank 0 does, as in
 * a one-step all-to-all: p (p - 1) transfers written out, p - 1 here);
 * written out, copy i's transfers come after copy i - 1's. */
typedef struct {
    size_t first;      /* index of the step's first transfer */
    size_t n;          /* number of transfers */
    const char *phase; /* static label, e.g. "reduce-scatter" */
    size_t reps;       /* steps the entry stands for: 1, or more in a
                          compact schedule */
    int32_t shift;     /* ranks moved between two of them */
    bool spread;       /* each transfer stands for p (compact only) */
    size_t blk;        /* elements of a block its XF_ROT_* offsets move */
    int cyc;           /* 0: repetitions move ranks shift along, mod p;
                          c > 0: each moves every rank one place along
                          its cycle of Schedule.cyc[c - 1] (shift 1), a
                          transfer flagged XF_BACK one place back */
} Step;

typedef struct {
    CollCall call;      /* the call this schedule implements */
    const char *algo;   /* algorithm name (static string) */
    size_t *bufsize;    /* [rank * BUF_COUNT + buf]: elements per buffer */
    Transfer *xfers;    /* all transfers, step after step */
    size_t nxfers;      /* transfers used */
    size_t cap_xfers;   /* transfers allocated */
    Step *steps;        /* all steps */
    size_t nsteps;      /* steps used */
    size_t cap_steps;   /* steps allocated */
    CvError err;        /* sticky builder error (allocation, bad argument) */
    uint8_t flags;      /* Transfer.flags of the transfers added next */
    bool compact;       /* sched_repeat records repeated steps as one entry
                           (Step.reps) instead of writing them out */
    SchedCycles cyc[SCHED_MAX_CYCLES]; /* the cycles Step.cyc names */
    int ncyc;           /* tables in use (their arrays are kept) */
} Schedule;

/* Ranks a schedule may have: the model and trace's statistics price
 * schedules this large (compact where an algorithm repeats a shape);
 * running one keeps COLL_MAX_RANKS. */
#define SCHED_MAX_RANKS 65536
/* Transfers a compact schedule may hold (what pricing one of them may
 * cost in memory: 160 MiB); beyond, building it fails with CV_ERR_LIMIT.
 * A schedule written out has no such limit below its memory. */
#define SCHED_COMPACT_MAX_XFERS ((size_t)1 << 22)

/* ------------------------------------------------------------- building */

/* Start an empty schedule for `call`: send and recv sized by coll_layout,
 * tmp empty. Returns CV_OK or CV_ERR_NOMEM. */
CvError sched_init(Schedule *s, const CollCall *call, const char *algo);
/* The same for a schedule that sched_init (or this) made before, or one
 * zeroed: its arrays are kept for the new one (no allocation where they
 * fit: the model builds thousands). */
CvError sched_reinit(Schedule *s, const CollCall *call, const char *algo);
void sched_fini(Schedule *s);

/* Grow rank r's tmp buffer to at least n elements (never shrinks). */
void sched_tmp(Schedule *s, int r, size_t n);
/* Grow every rank's tmp buffer to at least n elements. */
void sched_tmp_all(Schedule *s, size_t n);

/* Open a new step; following transfers belong to it. An empty step is
 * dropped when the next one opens or the schedule ends. */
void sched_step(Schedule *s, const char *phase);

/* Append a transfer to the open step; count == 0 is a no-op. Errors (no
 * open step, ranks out of range) are recorded in s->err. */
void sched_xfer(Schedule *s, XferOp op, int src, BufId sbuf, size_t soff,
                int dst, BufId dbuf, size_t doff, size_t count);
void sched_copy(Schedule *s, int src, BufId sbuf, size_t soff, int dst,
                BufId dbuf, size_t doff, size_t count);
void sched_reduce(Schedule *s, int src, BufId sbuf, size_t soff, int dst,
                  BufId dbuf, size_t doff, size_t count);

/* The open step stands for `reps` steps (reps >= 1): itself and reps - 1
 * more, the j-th of them its transfers with every rank moved j * shift
 * places along, mod p (Step). A compact schedule records that in the
 * step; any other gets the steps written out, each after the open one. */
void sched_repeat(Schedule *s, size_t reps, int shift);

/* The cycles of member[0 .. p) (len ranks each, one after another) as a
 * table of s (an equal one found is reused): its index, or -1 (the
 * member list is no permutation of the ranks in cycles of len, or no
 * room: SCHED_MAX_CYCLES; CV_ERR_NOMEM in s->err). */
int sched_cycles(Schedule *s, const int *member, int len);

/* The open step stands for `reps` steps (reps >= 1): itself and reps - 1
 * more, the j-th of them its transfers with every rank moved j places
 * along its cycle of table c (sched_cycles), back for those flagged
 * XF_BACK (Step.cyc). A compact schedule records that in the step; any
 * other gets the steps written out (without the flag). */
void sched_repeat_cycles(Schedule *s, size_t reps, int c);

/* Rank r as repetition j of step entry st moves it (Step.shift, Step.cyc;
 * back: a transfer flagged XF_BACK). */
int sched_move(const Schedule *s, const Step *st, int r, size_t j,
               bool back);

/* The open step's transfers stand for themselves done by every rank: their
 * copies with every rank moved i = 1 .. p - 1 places along, offsets
 * flagged XF_ROT_SRC / XF_ROT_DST moved i blocks of blk elements (Step).
 * A compact schedule records that in the step; any other gets the copies
 * written out into it (without the flags). */
void sched_spread(Schedule *s, size_t blk);

/* Transfers step entry k stands for in one step: n, or n p when spread. */
size_t sched_entry_n(const Schedule *s, size_t k);

/* Steps a schedule stands for: nsteps, or the sum of its entries' reps
 * when compact. */
size_t sched_nsteps(const Schedule *s);

/* Rank r moved j * shift places along on p ranks (a repeated step's). */
static inline int sched_rot(int r, size_t j, int shift, int p)
{
    long long v = ((long long)r + (long long)(j % (size_t)p) * shift) % p;
    return (int)(v < 0 ? v + p : v);
}

/* Transfer x (0 <= x < sched_entry_n) of repetition j of step entry k
 * into *out, written out (no XF_ROT_* flags). */
void sched_rep_xfer(const Schedule *s, size_t k, size_t j, size_t x,
                    Transfer *out);

/* Repetition j of entry k's transfers, written out: *xs points at the
 * schedule's own when that is what they are, else at *buf (grown, *cap
 * transfers); *n of them. CV_ERR_LIMIT beyond SCHED_COMPACT_MAX_XFERS,
 * CV_ERR_NOMEM. */
CvError sched_entry_fill(const Schedule *s, size_t k, size_t j,
                         Transfer **buf, size_t *cap, const Transfer **xs,
                         size_t *n);

/* Whether every entry is one step of its own transfers (nothing repeated
 * or spread): what the validator, the Sim and the executors take. */
bool sched_written_out(const Schedule *s);

/* Whether written-out schedules a and b are one schedule: the same call,
 * buffers and steps, each step the same transfers in any order (two
 * algorithms that coincide at some rank count, ring and halving-doubling
 * at 2). *same false where it cannot tell (CV_ERR_NOMEM). */
CvError sched_same(const Schedule *a, const Schedule *b, bool *same);

/* Write a (compact) schedule out: *out gets every step of in as its own
 * entry, in order, each repetition's transfers in its entry's order.
 * Returns CV_OK, CV_ERR_NOMEM or CV_ERR_LIMIT (more than SIZE_MAX). */
CvError sched_expand(const Schedule *in, Schedule *out);

/* The flags (XF_*) of the transfers added from now on (0: none). */
static inline void sched_flags(Schedule *s, uint8_t flags) { s->flags = flags; }

/* Close the schedule: drop a trailing empty step. Returns s->err. */
CvError sched_end(Schedule *s);

/* Elements of rank r's buffer b. */
static inline size_t sched_bufsize(const Schedule *s, int r, BufId b)
{
    return s->bufsize[(size_t)r * BUF_COUNT + b];
}

/* Bytes of every rank's buffers of s together (what executors allocate
 * for it, and the working set the calibrated model reads its parameters
 * at); SIZE_MAX when that does not fit a size_t. */
size_t sched_bytes(const Schedule *s);

/* Bytes s's transfers read and write in memory, all steps and ranks: a
 * copy reads its elements once and writes them once, a reduce reads both
 * operands and writes one (dst = dst op src, or from the input: the same
 * bytes); copy-ins that sched_fuse_map finds no one needs are left out,
 * as every backend's timed runs leave them (out of memory for that:
 * every transfer counted). */
double sched_traffic(const Schedule *s);

/* ----------------------------------------------------------- validation */

/* What the validator found; the first problem is described in detail. */
typedef struct {
    CvError err;           /* CV_OK or the first problem's kind */
    size_t step;           /* step of the first problem */
    size_t xfer;           /* transfer index of the first problem */
    size_t overlaps;       /* transfers whose source some write of the same
                              step overwrites (executors must stage them) */
    size_t missing;        /* output elements no transfer ever wrote */
} SchedCheck;

/* Bounds, send buffers never written, every output element written by some
 * transfer (or already holding the input), overlaps counted. `staged` (may
 * be NULL) gets one flag per transfer: 1 when its source is overwritten in
 * its step. CV_ERR_NOMEM says that the check could not be made for want
 * of memory, nothing of the schedule: chk->step and chk->xfer are then
 * past its end (nsteps, nxfers), and a caller must not call the schedule
 * invalid. */
CvError sched_validate(const Schedule *s, SchedCheck *chk, uint8_t *staged);
/* sched_validate's staged flags alone (the output's coverage, which costs
 * a bit per element of every rank, is not looked at): CV_OK, or the first
 * problem's kind (CV_ERR_NOMEM: not known). */
CvError sched_staged(const Schedule *s, uint8_t *staged);

/* ----------------------------------------------------------- statistics */

/* Bytes and messages of one rank in one step. */
typedef struct {
    size_t sent;     /* bytes sent to other ranks */
    size_t recvd;    /* bytes received from other ranks */
    size_t reduced;  /* bytes combined by a reduction at this rank */
    size_t copied;   /* bytes copied locally (src == dst) */
    int msgs_out;    /* distinct peers sent to */
    int msgs_in;     /* distinct peers received from */
} RankStepStats;

/* Fill out[r] for every rank r (array of call.nranks) for step k. */
CvError sched_step_stats(const Schedule *s, size_t k, RankStepStats *out);

/* Copy-in fusion. Many schedules start with a local step that copies a
 * rank's input from its send buffer into the buffer later steps reduce
 * into or send from (out-of-place reduce and allreduce). A reduce updates
 * its destination in place, so the copy is what the step semantics need,
 * but an executor that runs the schedule as a whole may instead have the
 * reduce combine the input with its source, read the input where the
 * copy would be read, and skip the copy (one pass over memory instead of
 * two; the same operands in the same order, so the same results bit for
 * bit).
 *
 * Copy-in fusion over the whole schedule (fuse.c), for an executor that
 * can also read a rank's input where the schedule reads a copy of it. A
 * copy-in is a local copy from BUF_SEND into another buffer; written-out
 * schedules whose send buffers no transfer writes. Arrays of s->nxfers
 * that the caller zeroed:
 * - own[y] = x: the destination range of reduce y holds, before y's step,
 *   what copy-in x wrote there, untouched since; y may compute
 *   dst = (x's source at the same place) op src, the same operands in the
 *   same order, so the same results bit for bit;
 * - via[t] = x: the source range of t likewise holds x's copy untouched;
 *   t may read x's source at the same place instead;
 * - skip[x] = 1: with every own and via taken, nothing reads what copy-in
 *   x writes before it is overwritten, and all of it is overwritten, or
 *   left in the tmp buffer, whose end state is no one's: x need not run
 *   (an out-of-place ring allreduce then reads its input where it lies
 *   and copies none of it). Skip only with own and via.
 * CV_ERR_NOMEM (the arrays then hold part of the answer, each
 * entry right, and no skip), or CV_OK. */
CvError sched_fuse_map(const Schedule *s, const Transfer **own,
                       const Transfer **via, uint8_t *skip);

/* sched_fuse_map's arrays, allocated together ([s->nxfers + 1] each). */
typedef struct {
    const Transfer **own, **via;
    uint8_t *skip;
} SchedFuse;

/* Allocate f's arrays for s and fill them with sched_fuse_map; on
 * CV_ERR_NOMEM f holds nothing (all NULL). sched_fuse_free frees them. */
CvError sched_fuse_build(SchedFuse *f, const Schedule *s);
void sched_fuse_free(SchedFuse *f);

/* Element off of copy-in x's destination range: the element of its
 * source that x copied there (where own and via read instead). */
static inline size_t sched_fuse_at(const Transfer *x, size_t off)
{
    return x->src_off + (off - x->dst_off);
}

/* Totals over the whole schedule. */
typedef struct {
    size_t steps;        /* steps */
    size_t xfers;        /* transfers */
    size_t max_sent;     /* largest bytes sent by one rank in total */
    size_t max_recvd;    /* largest bytes received by one rank in total */
    size_t total_bytes;  /* bytes moved between ranks, all ranks */
    size_t max_reduced;  /* largest bytes reduced by one rank in total */
} SchedTotals;

/* Per-rank totals go to sent/recvd (arrays of nranks, may be NULL). A
 * compact schedule's are its steps' written out. */
CvError sched_totals(const Schedule *s, SchedTotals *t, size_t *sent,
                     size_t *recvd);

/* out[sched_move(s, st, q, j, back)] += in[q] summed over j = 0 ..
 * reps - 1: the same for an entry repeated along cycles (Step.cyc), in
 * O(p). CV_ERR_NOMEM or CV_OK. */
CvError sched_add_moves(const Schedule *s, const Step *st, const size_t *in,
                        size_t reps, bool back, size_t *out);

/* out[q] += in[q - j shift] summed over j = 0 .. reps - 1 (ranks mod p):
 * what a repeated entry's per-rank amounts add up to over its
 * repetitions, in O(p). CV_ERR_NOMEM or CV_OK. */
CvError sched_add_rotations(const size_t *in, int p, size_t reps, int shift,
                            size_t *out);

const char *xfer_op_name(XferOp op);
const char *buf_name(BufId b);
int buf_parse(const char *s);

#endif
