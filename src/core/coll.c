/* coll.c - names, layouts and result definitions of collective calls. */
#include "core/coll.h"

#include <stdint.h>

#include <strings.h>

/* ---------------------------------------------------------------- names */

static const char *const coll_names[COLL_COUNT] = {
#define X(id, name, alias) [id] = name,
    COLL_KINDS(X)
#undef X
};

static const char *const coll_aliases[COLL_COUNT] = {
#define X(id, name, alias) [id] = alias,
    COLL_KINDS(X)
#undef X
};

static const char *const dtype_names[DT_COUNT] = {
#define X(id, name, size) [id] = name,
    DTYPES(X)
#undef X
};

static const size_t dtype_sizes[DT_COUNT] = {
#define X(id, name, size) [id] = size,
    DTYPES(X)
#undef X
};

static const char *const redop_names[OP_COUNT] = {
#define X(id, name) [id] = name,
    REDOPS(X)
#undef X
};

const char *coll_name(CollKind k) { return k < COLL_COUNT ? coll_names[k] : "?"; }
const char *dtype_name(DataType t) { return t < DT_COUNT ? dtype_names[t] : "?"; }
size_t dtype_size(DataType t) { return t < DT_COUNT ? dtype_sizes[t] : 0; }
const char *redop_name(RedOp op) { return op < OP_COUNT ? redop_names[op] : "?"; }

bool dtype_is_float(DataType t)
{
    return t == DT_HALF || t == DT_BFLOAT16 || t == DT_FLOAT || t == DT_DOUBLE;
}

static int parse_in(const char *s, const char *const *names,
                    const char *const *aliases, int n)
{
    if (!s)
        return -1;
    for (int i = 0; i < n; i++)
        if (!strcasecmp(s, names[i]) || (aliases && !strcasecmp(s, aliases[i])))
            return i;
    return -1;
}

int coll_parse(const char *s)
{
    int k = parse_in(s, coll_names, coll_aliases, COLL_COUNT);
    if (k < 0 && s) { /* common spellings from MPI and NCCL */
        if (!strcasecmp(s, "reduce_scatter") || !strcasecmp(s, "reduce-scatter"))
            return COLL_REDUCESCATTER;
        if (!strcasecmp(s, "all_gather") || !strcasecmp(s, "all-gather"))
            return COLL_ALLGATHER;
        if (!strcasecmp(s, "all_reduce") || !strcasecmp(s, "all-reduce"))
            return COLL_ALLREDUCE;
        if (!strcasecmp(s, "all_to_all") || !strcasecmp(s, "all-to-all"))
            return COLL_ALLTOALL;
        if (!strcasecmp(s, "send_recv") || !strcasecmp(s, "send-recv"))
            return COLL_SENDRECV;
    }
    return k;
}

int dtype_parse(const char *s)
{
    static const char *const alt[DT_COUNT] = {
        [DT_INT8] = "char", [DT_INT32] = "int", [DT_HALF] = "float16",
        [DT_BFLOAT16] = "bf16", [DT_FLOAT] = "float32", [DT_DOUBLE] = "float64",
        [DT_UINT8] = "u8", [DT_UINT32] = "u32", [DT_INT64] = "i64",
        [DT_UINT64] = "u64",
    };
    for (int i = 0; s && i < DT_COUNT; i++)
        if (!strcasecmp(s, dtype_names[i]) || (alt[i] && !strcasecmp(s, alt[i])))
            return i;
    return -1;
}

int redop_parse(const char *s) { return parse_in(s, redop_names, NULL, OP_COUNT); }

bool coll_is_rooted(CollKind k)
{
    return k == COLL_BROADCAST || k == COLL_REDUCE || k == COLL_SCATTER ||
           k == COLL_GATHER;
}

bool coll_is_reducing(CollKind k)
{
    return k == COLL_REDUCE || k == COLL_REDUCESCATTER || k == COLL_ALLREDUCE;
}

/* -------------------------------------------------------------- layouts */

/* Set one side of a layout. */
static void side(CollLayout *l, bool input, BufId b, size_t off, size_t n)
{
    if (input) {
        l->in_buf = b, l->in_off = off, l->in_count = n;
    } else {
        l->out_buf = b, l->out_off = off, l->out_count = n;
    }
}

/* Out of place: input in send, output in recv, both at offset 0. */
static void layout_out_of_place(const CollCall *c, int r, CollLayout *l)
{
    size_t n = c->count, pn = (size_t)c->nranks * n;
    bool root = r == c->root;
    size_t in = 0, out = 0;
    switch (c->kind) {
    case COLL_BROADCAST: in = root ? n : 0; out = n; break;
    case COLL_REDUCE: in = n; out = root ? n : 0; break;
    case COLL_SCATTER: in = root ? pn : 0; out = n; break;
    case COLL_GATHER: in = n; out = root ? pn : 0; break;
    case COLL_ALLGATHER:
    case COLL_HYPERCUBE: in = n; out = pn; break;
    case COLL_REDUCESCATTER: in = pn; out = n; break;
    case COLL_ALLREDUCE:
    case COLL_SENDRECV: in = n; out = n; break;
    case COLL_ALLTOALL: in = pn; out = pn; break;
    case COLL_COUNT: break;
    }
    l->send_count = in;
    l->recv_count = out;
    side(l, true, BUF_SEND, 0, in);
    side(l, false, BUF_RECV, 0, out);
}

/* In place: one recv buffer; block-wise inputs and outputs sit at the
 * rank's own block (the NCCL convention; MPI_IN_PLACE for rooted kinds). */
static void layout_in_place(const CollCall *c, int r, CollLayout *l)
{
    size_t n = c->count, pn = (size_t)c->nranks * n, own = (size_t)r * n;
    bool root = r == c->root;
    l->send_count = 0;
    switch (c->kind) {
    case COLL_BROADCAST:
        l->recv_count = n;
        side(l, true, BUF_RECV, 0, root ? n : 0);
        side(l, false, BUF_RECV, 0, n);
        break;
    case COLL_REDUCE:
        l->recv_count = n;
        side(l, true, BUF_RECV, 0, n);
        side(l, false, BUF_RECV, 0, root ? n : 0);
        break;
    case COLL_SCATTER:
        l->recv_count = root ? pn : n;
        side(l, true, BUF_RECV, 0, root ? pn : 0);
        side(l, false, BUF_RECV, root ? own : 0, n);
        break;
    case COLL_GATHER:
        l->recv_count = root ? pn : n;
        side(l, true, BUF_RECV, root ? own : 0, n);
        side(l, false, BUF_RECV, 0, root ? pn : 0);
        break;
    case COLL_ALLGATHER:
    case COLL_HYPERCUBE:
        l->recv_count = pn;
        side(l, true, BUF_RECV, own, n);
        side(l, false, BUF_RECV, 0, pn);
        break;
    case COLL_REDUCESCATTER:
        l->recv_count = pn;
        side(l, true, BUF_RECV, 0, pn);
        side(l, false, BUF_RECV, own, n);
        break;
    case COLL_ALLREDUCE:
    case COLL_SENDRECV: /* refused by coll_check; one buffer, as allreduce */
        l->recv_count = n;
        side(l, true, BUF_RECV, 0, n);
        side(l, false, BUF_RECV, 0, n);
        break;
    case COLL_ALLTOALL:
        l->recv_count = pn;
        side(l, true, BUF_RECV, 0, pn);
        side(l, false, BUF_RECV, 0, pn);
        break;
    case COLL_COUNT:
        break;
    }
}

void coll_layout(const CollCall *c, int r, CollLayout *l)
{
    *l = (CollLayout){0};
    if (c->in_place)
        layout_in_place(c, r, l);
    else
        layout_out_of_place(c, r, l);
}

unsigned long long coll_cells(const CollCall *c)
{
    unsigned long long n = 0;
    for (int r = 0; r < c->nranks; r++) {
        CollLayout l;
        coll_layout(c, r, &l);
        n += (unsigned long long)l.send_count + l.recv_count;
    }
    return n;
}

void coll_expect(const CollCall *c, int r, size_t j, CollExpect *e)
{
    size_t n = c->count ? c->count : 1;
    *e = (CollExpect){.pos = j, .rank = c->root, .all_ranks = false,
                      .run = SIZE_MAX};
    switch (c->kind) {
    case COLL_BROADCAST: break;
    case COLL_REDUCE:
    case COLL_ALLREDUCE: e->all_ranks = true; break;
    case COLL_SCATTER: e->pos = (size_t)r * c->count + j; break;
    case COLL_GATHER:
    case COLL_ALLGATHER:
    case COLL_HYPERCUBE:
        e->pos = j % n;
        e->rank = (int)(j / n);
        e->run = n - j % n; /* to the end of rank j / n's block */
        break;
    case COLL_REDUCESCATTER:
        e->pos = (size_t)r * c->count + j;
        e->all_ranks = true;
        break;
    case COLL_ALLTOALL:
        e->rank = (int)(j / n);
        e->pos = (size_t)r * c->count + j % n;
        e->run = n - j % n;
        break;
    case COLL_SENDRECV: e->rank = (r + c->nranks - 1) % c->nranks; break;
    case COLL_COUNT: break;
    }
}

/* ---------------------------------------------------------------- sizes */

/* Blocks of `count` elements that make up nccl-tests' size. */
size_t coll_size_blocks(CollKind k, int nranks)
{
    switch (k) {
    case COLL_ALLGATHER:
    case COLL_GATHER:
    case COLL_REDUCESCATTER:
    case COLL_SCATTER:
    case COLL_ALLTOALL:
    case COLL_HYPERCUBE: return (size_t)nranks;
    case COLL_BROADCAST:
    case COLL_REDUCE:
    case COLL_ALLREDUCE:
    case COLL_SENDRECV:
    case COLL_COUNT: break;
    }
    return 1;
}

size_t coll_size_bytes(const CollCall *c)
{
    return c->count * dtype_size(c->dtype) * coll_size_blocks(c->kind, c->nranks);
}

long long coll_count_for_size(CollKind k, int nranks, DataType t,
                              unsigned long long bytes)
{
    size_t ts = dtype_size(t);
    if (!ts || nranks <= 0 || bytes % ts)
        return -1;
    return (long long)(bytes / ts / coll_size_blocks(k, nranks));
}

size_t coll_block_bytes(const CollCall *c)
{
    return dtype_size(c->dtype) * coll_size_blocks(c->kind, c->nranks);
}

size_t coll_count_floor(const CollCall *c, unsigned long long bytes)
{
    size_t unit = coll_block_bytes(c);
    return unit ? (size_t)(bytes / unit) : 0;
}

double coll_busbw_factor(CollKind k, int nranks)
{
    double p = nranks;
    switch (k) {
    case COLL_ALLREDUCE: return 2.0 * (p - 1) / p;
    case COLL_ALLGATHER:
    case COLL_REDUCESCATTER:
    case COLL_ALLTOALL:
    case COLL_SCATTER:
    case COLL_GATHER:
    case COLL_HYPERCUBE: return (p - 1) / p;
    case COLL_BROADCAST:
    case COLL_REDUCE:
    case COLL_SENDRECV:
    case COLL_COUNT: break;
    }
    return 1.0;
}

/* ---------------------------------------------------------------- calls */

CvError coll_check(const CollCall *c)
{
    int p = c->nranks;
    if (c->kind == COLL_SENDRECV && c->in_place)
        return CV_ERR_IN_PLACE;
    if (c->kind == COLL_HYPERCUBE && (p < 1 || (p & (p - 1))))
        return CV_ERR_RANKS;
    return CV_OK;
}

void coll_pow2_around(int p, int *below, int *above)
{
    int b = 1;
    while (b <= p / 2)
        b *= 2;
    *below = b;
    *above = 2 * b;
}
