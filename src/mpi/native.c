/* native.c - MPI's own collectives (MPI_Bcast ... MPI_Alltoall) on the
 * loaded schedule's buffers, timed as the OSU micro-benchmarks time them:
 * the mpi backend's `native` row.
 *
 * Each rank passes the places coll_layout gives its input and output, so
 * that after one call the outputs hold the collective's result where the
 * schedules leave it. The timed loop is MPI's collective and nothing
 * else: warmup calls, one barrier, then the calls back to back between
 * two reads of MPI_Wtime (a rank's time is the loop's over its calls; the
 * row is the slowest rank's, world.c). Where MPI's meaning differs, the
 * difference is made up outside the loop: an out-of-place broadcast's
 * root copies its input to its output once before (MPI_Bcast has one
 * buffer and leaves the root's untouched); MPI has no avg, so avg is
 * MPI_SUM, divided once after the loop (as the schedules' finish); in
 * place, MPI_Reduce_scatter_block leaves a rank's result at the start of
 * its buffer, and it is moved to the rank's own block after the loop. So
 * one call leaves the collective's result; repeated calls in place leave
 * what they leave, as the schedules' do. half and bfloat16, which MPI
 * does not know, and sums of 8-bit integers reduce with user-defined
 * operations made from collviz's own kernels. sendrecv is MPI_Sendrecv
 * (to the right, from the left); hypercube, which MPI has no call for, is
 * MPI_Allgather: the same operation and layout, by whichever algorithm
 * the MPI library picks.
 *
 * Nothing in the loop tells rank 0's watchdog (exec_mpi.c) that the job
 * moves on: before the loop it is given the loop's length at the pace of
 * the slowest warmup call (or of the last loop's), NATIVE_PATIENCE times
 * over, on top of the backend's timeout. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "mpi/mpi_impl.h"

/* How many times the slowest warmup call each call of the timed loop may
 * take before rank 0's watchdog counts the loop as hung. */
#define NATIVE_PATIENCE 8.0

/* MPI operations from reduce.c's kernels (inout = inout op in): over
 * half and bfloat16, which MPI does not know, and the sums of 8-bit
 * integers, which Open MPI 4.1's AVX reductions saturate (an int8
 * MPI_Reduce_scatter_block at 3 ranks gives 127 where the sum wraps; the
 * mpi sweep found it) while collviz's wrap as C's unsigned arithmetic
 * does. Every other type and operation is MPI's own. */
#define USER_OP(name, t, o)                                                   \
    static void name(void *in, void *inout, int *len, MPI_Datatype *dt)      \
    {                                                                         \
        (void)dt;                                                             \
        reduce_fn(t, o)(inout, in, (size_t)*len);                             \
    }
USER_OP(half_sum, DT_HALF, OP_SUM)
USER_OP(half_prod, DT_HALF, OP_PROD)
USER_OP(half_min, DT_HALF, OP_MIN)
USER_OP(half_max, DT_HALF, OP_MAX)
USER_OP(bf16_sum, DT_BFLOAT16, OP_SUM)
USER_OP(bf16_prod, DT_BFLOAT16, OP_PROD)
USER_OP(bf16_min, DT_BFLOAT16, OP_MIN)
USER_OP(bf16_max, DT_BFLOAT16, OP_MAX)
USER_OP(i8_sum, DT_INT8, OP_SUM)
USER_OP(u8_sum, DT_UINT8, OP_SUM)

/* The user-defined operation for (t, op: not avg), or NULL: MPI's own. */
static MPI_User_function *user_fn(DataType t, RedOp op)
{
    static MPI_User_function *const half[4] = {half_sum, half_prod, half_min,
                                               half_max},
                             *const bf16[4] = {bf16_sum, bf16_prod, bf16_min,
                                               bf16_max};
    if (t == DT_HALF)
        return half[op];
    if (t == DT_BFLOAT16)
        return bf16[op];
    if (op == OP_SUM && (t == DT_INT8 || t == DT_UINT8))
        return t == DT_INT8 ? i8_sum : u8_sum;
    return NULL;
}

/* The MPI type of t's elements. */
static MPI_Datatype mpi_type(DataType t)
{
    switch (t) {
    case DT_INT8: return MPI_INT8_T;
    case DT_UINT8: return MPI_UINT8_T;
    case DT_INT32: return MPI_INT32_T;
    case DT_UINT32: return MPI_UINT32_T;
    case DT_INT64: return MPI_INT64_T;
    case DT_UINT64: return MPI_UINT64_T;
    case DT_HALF:
    case DT_BFLOAT16: return MPI_UINT16_T;
    case DT_FLOAT: return MPI_FLOAT;
    case DT_DOUBLE: return MPI_DOUBLE;
    case DT_COUNT: break;
    }
    return MPI_BYTE;
}

/* The MPI operation of (t, op) (avg: sum); *made when it was created
 * here and must be freed. */
static int mpi_op(DataType t, RedOp op, MPI_Op *out, bool *made)
{
    static const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_SUM};
    MPI_User_function *fn = user_fn(t, op == OP_AVG ? OP_SUM : op);
    *made = fn != NULL;
    if (!fn) {
        *out = ops[op];
        return MPI_SUCCESS;
    }
    int rc = MPI_Op_create(fn, 1, out);
    *made = rc == MPI_SUCCESS;
    return rc;
}

void mpi_native_why(const CollCall *c, char *why, size_t len)
{
    size_t blocks = coll_size_blocks(c->kind, c->nranks);
    why[0] = '\0';
    if (c->count > (size_t)INT_MAX || (blocks && c->count > INT_MAX / blocks))
        snprintf(why, len, "MPI's own %s takes at most %d elements (an int) "
                 "per call; this one has %zu per rank", coll_name(c->kind),
                 INT_MAX, c->count);
}

/* Pointers to rank r's input and output, as coll_layout places them. */
typedef struct {
    unsigned char *in, *out; /* input and output */
    bool same;      /* the input is the output (MPI_IN_PLACE) */
    size_t out_off; /* the output's offset in its buffer */
} Places;

static Places places(const MpiRank *m)
{
    CollLayout l;
    coll_layout(&m->call, m->me, &l);
    Places p = {.in = m->buf[l.in_buf] + l.in_off * m->es,
                .out = m->buf[l.out_buf] + l.out_off * m->es,
                .out_off = l.out_off};
    p.same = l.in_buf == l.out_buf && l.in_off == l.out_off;
    return p;
}

/* One call of MPI's collective for m's call: the only thing the timed
 * loop does (tests/mpi/loop_trace.c checks it). */
static int one_call(const MpiRank *m, const Places *pl, MPI_Datatype t,
                    MPI_Op op)
{
    const CollCall *c = &m->call;
    MPI_Comm w = mpi_world.dat;
    int n = (int)c->count, root = c->root, me = m->me;
    void *in = c->in_place && (me == root || !coll_is_rooted(c->kind))
                   ? MPI_IN_PLACE : (void *)pl->in;
    switch (c->kind) {
    case COLL_BROADCAST: /* the root's output filled before (below) */
        return MPI_Bcast(pl->out, n, t, root, w);
    case COLL_REDUCE:
        return MPI_Reduce(pl->same && me == root ? MPI_IN_PLACE : pl->in,
                          pl->out, n, t, op, root, w);
    case COLL_SCATTER:
        return MPI_Scatter(pl->in, n, t, in == MPI_IN_PLACE ? in : pl->out,
                           n, t, root, w);
    case COLL_GATHER:
        return MPI_Gather(in, n, t, pl->out, n, t, root, w);
    case COLL_ALLGATHER:
    case COLL_HYPERCUBE: /* the same operation: MPI has no hypercube */
        return MPI_Allgather(in, n, t, pl->out, n, t, w);
    case COLL_REDUCESCATTER: /* in place: the result at the buffer's start */
        return MPI_Reduce_scatter_block(
            in, in == MPI_IN_PLACE ? pl->out - pl->out_off * m->es : pl->out,
            n, t, op, w);
    case COLL_ALLREDUCE:
        return MPI_Allreduce(in, pl->out, n, t, op, w);
    case COLL_ALLTOALL:
        return MPI_Alltoall(in, n, t, pl->out, n, t, w);
    case COLL_SENDRECV: { /* out of place only (coll_check) */
        int p = c->nranks;
        return MPI_Sendrecv(pl->in, n, t, (me + 1) % p, 0, pl->out, n, t,
                            (me + p - 1) % p, 0, w, MPI_STATUS_IGNORE);
    }
    case COLL_COUNT:
        break;
    }
    return MPI_ERR_OTHER;
}

/* After the calls, what MPI's meaning leaves to do: an in-place
 * reduce-scatter's result moved from the buffer's start to the rank's
 * block, avg's division. */
static CvError settle(MpiRank *m, const Places *pl)
{
    const CollCall *c = &m->call;
    if (c->kind == COLL_REDUCESCATTER && c->in_place && pl->out_off)
        memmove(pl->out, pl->out - pl->out_off * m->es, c->count * m->es);
    return mpi_rank_finish(m);
}

/* The warmup calls, each timed: the slowest into *slowest (unchanged
 * where there is none). */
static int warm(const MpiRank *m, const Places *pl, MPI_Datatype t,
                MPI_Op op, int warmup, double *slowest)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < warmup && rc == MPI_SUCCESS; i++) {
        double t0 = MPI_Wtime();
        rc = one_call(m, pl, t, op);
        double d = MPI_Wtime() - t0;
        *slowest = i == 0 || d > *slowest ? d : *slowest;
    }
    return rc;
}

/* The timed loop: iters calls back to back after one barrier; this rank's
 * mean per call into *mean. */
static int timed_calls(const MpiRank *m, const Places *pl, MPI_Datatype t,
                       MPI_Op op, int iters, double *mean)
{
    int rc = MPI_Barrier(mpi_world.dat);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = one_call(m, pl, t, op);
    *mean = (MPI_Wtime() - t0) / iters;
    return rc;
}

CvError mpi_rank_native(MpiRank *m, int warmup, int iters, double *times)
{
    char why[160];
    mpi_native_why(&m->call, why, sizeof why);
    if (why[0])
        return CV_ERR_UNAVAILABLE;
    Places pl = places(m);
    MPI_Datatype t = mpi_type(m->call.dtype);
    MPI_Op op;
    bool made;
    int rc = mpi_op(m->call.dtype, m->call.op, &op, &made);
    /* out of place, a broadcast's root copies its input to its output once,
       untimed: MPI_Bcast has one buffer and leaves the root's as it is */
    if (m->call.kind == COLL_BROADCAST && m->me == m->call.root && !pl.same)
        memcpy(pl.out, pl.in, m->call.count * m->es);
    if (rc == MPI_SUCCESS)
        rc = warm(m, &pl, t, op, warmup, &m->call_s);
    /* the watchdog's patience: the loop at the pace of its slowest known
       call (0: none known yet, the timeout per call) */
    mpi_watch_allow(NATIVE_PATIENCE * m->call_s, iters);
    times[0] = 0;
    if (rc == MPI_SUCCESS)
        rc = timed_calls(m, &pl, t, op, iters, &times[0]);
    mpi_watch_poke();
    if (made)
        MPI_Op_free(&op);
    if (rc != MPI_SUCCESS)
        mpi_world.broken = true;
    m->call_s = times[0] > m->call_s ? times[0] : m->call_s;
    return rc == MPI_SUCCESS ? settle(m, &pl) : CV_ERR_BACKEND;
}
