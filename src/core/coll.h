/* coll.h - the vocabulary of collective calls: kinds, datatypes, reduction
 * operations, the call descriptor, and where each rank's input and output
 * live in its buffers.
 *
 * Pure data and pure functions: no I/O, no globals beyond const tables. */
#ifndef COLLVIZ_COLL_H
#define COLLVIZ_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* The most ranks any schedule may have; the command layer enforces it. */
#define COLL_MAX_RANKS 1024

/* Collective kinds, with MPI semantics; count is always elements per block.
 * The last two are nccl-tests' point-to-point tests: sendrecv, rank r
 * sends its block to r+1 and receives r-1's (mod p; out of place only);
 * hypercube, an all-gather by recursive doubling (p a power of two). */
#define COLL_KINDS(X)                                                         \
    X(COLL_BROADCAST, "broadcast", "bcast")                                   \
    X(COLL_REDUCE, "reduce", "reduce")                                        \
    X(COLL_SCATTER, "scatter", "scatter")                                     \
    X(COLL_GATHER, "gather", "gather")                                        \
    X(COLL_ALLGATHER, "allgather", "ag")                                      \
    X(COLL_REDUCESCATTER, "reducescatter", "rs")                              \
    X(COLL_ALLREDUCE, "allreduce", "ar")                                      \
    X(COLL_ALLTOALL, "alltoall", "a2a")                                       \
    X(COLL_SENDRECV, "sendrecv", "sr")                                        \
    X(COLL_HYPERCUBE, "hypercube", "hc")

typedef enum {
#define X(id, name, alias) id,
    COLL_KINDS(X)
#undef X
    COLL_COUNT
} CollKind;

/* Element types; half and bfloat16 are stored as 16-bit patterns. */
#define DTYPES(X)                                                             \
    X(DT_INT8, "int8", 1)                                                     \
    X(DT_UINT8, "uint8", 1)                                                   \
    X(DT_INT32, "int32", 4)                                                   \
    X(DT_UINT32, "uint32", 4)                                                 \
    X(DT_INT64, "int64", 8)                                                   \
    X(DT_UINT64, "uint64", 8)                                                 \
    X(DT_HALF, "half", 2)                                                     \
    X(DT_BFLOAT16, "bfloat16", 2)                                             \
    X(DT_FLOAT, "float", 4)                                                   \
    X(DT_DOUBLE, "double", 8)

typedef enum {
#define X(id, name, size) id,
    DTYPES(X)
#undef X
    DT_COUNT
} DataType;

/* Reduction operations. */
#define REDOPS(X)                                                             \
    X(OP_SUM, "sum")                                                          \
    X(OP_PROD, "prod")                                                        \
    X(OP_MIN, "min")                                                          \
    X(OP_MAX, "max")                                                          \
    X(OP_AVG, "avg")

typedef enum {
#define X(id, name) id,
    REDOPS(X)
#undef X
    OP_COUNT
} RedOp;

/* One collective call, as a user or a lesson asks for it. */
typedef struct {
    CollKind kind;  /* which collective */
    int nranks;     /* p, number of ranks, 1..COLL_MAX_RANKS */
    size_t count;   /* elements per block (MPI semantics, see coll_layout) */
    DataType dtype; /* element type; only sizes matter to schedules */
    RedOp op;       /* reduction operation (ignored by non-reducing kinds) */
    int root;       /* root rank for rooted kinds, 0 otherwise */
    bool in_place;  /* one buffer (recv) holds both input and output */
    size_t segment; /* bytes per segment (chunk) of the vector for a
                       pipelined algorithm (AlgoInfo.pipelined: the
                       chain broadcast's --segment; the TUI's chunk
                       knob); 0: its own rule */
} CollCall;

/* The per-rank buffers every schedule talks about. */
typedef enum {
    BUF_SEND, /* the rank's input (read-only); empty when in place */
    BUF_RECV, /* the rank's output (and input when in place) */
    BUF_TMP,  /* scratch, sized by the algorithm */
    BUF_COUNT
} BufId;

/* Where one rank's input and output live, and how big send and recv are.
 * Input element j of rank r is at in_buf[in_off + j] for j < in_count;
 * output element j is at out_buf[out_off + j] for j < out_count. */
typedef struct {
    size_t send_count; /* elements in the send buffer */
    size_t recv_count; /* elements in the recv buffer */
    BufId in_buf;      /* buffer that holds the input at the start */
    size_t in_off;     /* offset of the input in in_buf */
    size_t in_count;   /* input elements (0 for ranks without input) */
    BufId out_buf;     /* buffer that holds the result at the end */
    size_t out_off;    /* offset of the result in out_buf */
    size_t out_count;  /* result elements (0 for ranks without result) */
} CollLayout;

/* What a result element must hold: the op over inputs of `ranks` at origin
 * position `pos` (all ranks when all_ranks, else exactly one rank). */
typedef struct {
    size_t pos;     /* origin position in each contributing rank's input */
    int rank;       /* the single contributing rank, when !all_ranks */
    bool all_ranks; /* a reduction over every rank */
    size_t run;     /* elements from this one on (>= 1) whose expectation
                       goes on alike: positions pos, pos + 1, ..., the
                       same ranks (SIZE_MAX: up to the output's end) */
} CollExpect;

const char *coll_name(CollKind k);
const char *dtype_name(DataType t);
size_t dtype_size(DataType t);
bool dtype_is_float(DataType t);
const char *redop_name(RedOp op);

/* Parse a name (or alias, case-insensitive); return -1 when unknown. */
int coll_parse(const char *s);
int dtype_parse(const char *s);
int redop_parse(const char *s);

bool coll_is_rooted(CollKind k);
bool coll_is_reducing(CollKind k);

/* Fill *l for rank r of call c. */
void coll_layout(const CollCall *c, int r, CollLayout *l);

/* Elements of every rank's send and receive buffers of call c together
 * (coll_layout's counts, summed: known before a schedule exists). */
unsigned long long coll_cells(const CollCall *c);

/* What output element j of rank r must hold (j < out_count). */
void coll_expect(const CollCall *c, int r, size_t j, CollExpect *e);

/* Bytes nccl-tests reports as the size for this call. */
size_t coll_size_bytes(const CollCall *c);

/* Elements per block for a size in bytes (nccl-tests meaning); returns -1
 * when the size is not a whole number of blocks of the datatype. */
long long coll_count_for_size(CollKind k, int nranks, DataType t,
                              unsigned long long bytes);

/* How many blocks the size counts: p for allgather, gather,
 * reducescatter, scatter, alltoall and hypercube, else 1 (nccl-tests). */
size_t coll_size_blocks(CollKind k, int nranks);
/* Bytes of the size per element of a block: dtype size x blocks. */
size_t coll_block_bytes(const CollCall *c);
/* Elements per block for the largest whole number of blocks <= bytes. */
size_t coll_count_floor(const CollCall *c, unsigned long long bytes);

/* busbw = algbw * factor (nccl-tests). */
double coll_busbw_factor(CollKind k, int nranks);

/* Whether the collective defines call c: CV_OK; CV_ERR_IN_PLACE for
 * sendrecv in place (it sends one buffer and receives into another, and
 * nccl-tests checks no in-place sendrecv); CV_ERR_RANKS for hypercube on
 * a rank count that is not a power of two (its partners are r xor 2^k). */
CvError coll_check(const CollCall *c);
/* The powers of two nearest p >= 1: *below <= p < *above. */
void coll_pow2_around(int p, int *below, int *above);

#endif
