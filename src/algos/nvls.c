/* nvls.c - the all-reduce of a switch that reduces and multicasts: NVLS
 * (NVLink SHARP on NVSwitch 3, NCCL's NCCL_ALGO_NVLS; the multimem
 * kernel of nccl-tests' all_reduce.cu).
 *
 * Rank j owns slice j of every chunk of the vector. For each chunk:
 *  A (the switch's load-reduce): every rank i copies its slice j into
 *    rank j's scratch, at slot i; the copies are marked XF_SWITCH: on a
 *    machine with a reducing switch they leave the switch once, summed,
 *    so rank j's link down carries one slice (model.h);
 *  R (the sum, the switch's work done by rank j: "NVLS as modelled"):
 *    rank j adds its slots pairwise in ceil(log2 p) local steps, marked
 *    XF_SWITCH too (free where a switch reduces);
 *  B (the multicast): rank j copies the sum to every rank's output; the
 *    copies of one range enter a multicasting switch once.
 * Chunks are pipelined: the step that runs A of chunk k also runs the
 * sums of the chunks before it and B of chunk k - L - 1 (L = ceil(log2
 * p)), so that from then on every link carries bytes both ways in every
 * step: per rank and direction about the vector V once, against the
 * ring's 2(p-1)/p V. That is why NVLS's busbw (nccl-tests' formula,
 * 2(p-1)/p algbw) exceeds the link's rate.
 *
 * On threads, MPI and CUDA the schedule runs as it is: the ranks do the
 * switch's sums. */
#include "algos/common.h"
#include "core/num.h"

#include <stdio.h>

/* Target bytes of one rank's slice of a chunk; at most NVLS_MAX_CHUNKS. */
#define NVLS_SLICE_BYTES ((size_t)64 * 1024)
#define NVLS_MAX_CHUNKS 32

/* Chunks of call c: slices of about NVLS_SLICE_BYTES (chunks of
 * c->segment bytes where set), at most NVLS_MAX_CHUNKS, never a slice
 * under one element. */
static size_t chunks_of(const CollCall *c)
{
    size_t p = (size_t)c->nranks, es = dtype_size(c->dtype);
    size_t per = c->count / p; /* elements of a slice of the whole */
    size_t k = (per * es + NVLS_SLICE_BYTES - 1) / NVLS_SLICE_BYTES;
    if (c->segment)
        k = (c->count * es + c->segment - 1) / c->segment;
    k = k < 1 ? 1 : k > NVLS_MAX_CHUNKS ? NVLS_MAX_CHUNKS : k;
    return per ? (k < per ? k : per) : 1;
}

static CvError gen_nvls(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    CvError e = algo_begin(args, s, "nvls");
    if (e)
        return e;
    int p = c->nranks, L = model_log2_ceil(p);
    size_t nc = chunks_of(c), n = c->count;
    size_t smax = (blk_len(n, (int)nc, 0) + (size_t)p - 1) / (size_t)p;
    size_t region = (size_t)p * smax; /* one chunk's slots at a rank */
    sched_tmp_all(s, nc * region);
    CollLayout l0;
    coll_layout(c, 0, &l0);
    BufId in = l0.in_buf, out = l0.out_buf;
    for (size_t t = 0; t < nc + (size_t)L + 1; t++) {
        /* the switch's sums belong to the load-reduce; a step is the
           multicast's once it sends sums down (from t = L + 1) and loads
           no chunk */
        sched_step(s, t < nc || t < (size_t)L + 1 ? "load-reduce"
                                                  : "multicast");
        /* A: chunk t's slices into their owners' slots */
        sched_flags(s, XF_SWITCH);
        for (int j = 0; t < nc && j < p; j++)
            for (int i = 0; i < p; i++) {
                size_t co = blk_off(n, (int)nc, (int)t);
                size_t cl = blk_len(n, (int)nc, (int)t);
                sched_copy(s, i, in, co + blk_off(cl, p, j), j, BUF_TMP,
                           t * region + (size_t)i * smax, blk_len(cl, p, j));
            }
        /* R: level v of the pairwise sums of chunk t - v */
        for (int v = 1; v <= L; v++) {
            if (t < (size_t)v || t - (size_t)v >= nc)
                continue;
            size_t k = t - (size_t)v, half = (size_t)1 << (v - 1);
            size_t cl = blk_len(n, (int)nc, (int)k);
            for (int j = 0; j < p; j++)
                for (size_t i = 0; i + half < (size_t)p; i += 2 * half)
                    sched_reduce(s, j, BUF_TMP, k * region + (i + half) * smax,
                                 j, BUF_TMP, k * region + i * smax,
                                 blk_len(cl, p, j));
        }
        sched_flags(s, 0);
        /* B: chunk t - L - 1's sums to every rank */
        if (t >= (size_t)L + 1) {
            size_t k = t - (size_t)L - 1;
            size_t co = blk_off(n, (int)nc, (int)k);
            size_t cl = blk_len(n, (int)nc, (int)k);
            for (int j = 0; j < p; j++)
                for (int i = 0; i < p; i++) {
                    CollLayout l;
                    coll_layout(c, i, &l);
                    sched_copy(s, j, BUF_TMP, k * region, i, out,
                               l.out_off + co + blk_off(cl, p, j),
                               blk_len(cl, p, j));
                }
        }
    }
    return sched_end(s);
}

/* A switch that reduces and multicasts joins every rank. */
static bool fits_nvls(const AlgoArgs *args, char *why, size_t whylen)
{
    const Machine *m = args->machine;
    if (m->ndims == 1 && m->dim[0].kind == DIM_SWITCH && m->dim[0].reduce &&
        !machine_has_medium(m))
        return true;
    snprintf(why, whylen, "nvls is made for a switch that reduces and "
             "multicasts: give -T switch,reduce");
    return false;
}

/* On a reducing switch of one class of links, chunks equal (p nc divides
 * the count), slices of s bytes: nA = min(nc, L + 1) steps of A alone and
 * as many of B alone, each p - 1 messages and slices on the busiest link (a
 * rank's link up in A, down in B: the others merge); the nc - nA steps of
 * A and B together carry p slices each way, in p - 1 messages (a pair's A
 * and B copies are one message); the sums are the switch's. */
static void nvls_terms(const CollCall *c, CostTerms *out)
{
    int p = c->nranks;
    *out = (CostTerms){0};
    if (p < 2 || c->count == 0)
        return;
    double nc = (double)chunks_of(c), L = model_log2_ceil(p);
    double s = (double)((c->count + (size_t)p * (size_t)nc - 1) /
                        ((size_t)p * (size_t)nc)) * (double)dtype_size(c->dtype);
    double na = nc < L + 1 ? nc : L + 1, both = nc - na;
    out->steps = 2 * na + both;
    out->a = out->steps * (p - 1);
    out->b = (2 * na * (p - 1) + both * p) * s;
}

static void cost_nvls_on(const AlgoArgs *args, CostTerms *out)
{
    nvls_terms(args->call, out);
}

static const AlgoInfo ar_nvls = {
    .coll = COLL_ALLREDUCE,
    .name = "nvls",
    .pipelined = true,
    .aliases = "sharp multimem",
    .summary = "the switch sums each rank's slices and multicasts the sums "
               "(NVLink SHARP: NCCL's NVLS), chunks pipelined; the ranks do "
               "the switch's sums where there is none",
    .schedule = "the vector is cut into nc chunks (slices of about 64 KiB, 1 "
                "to 32 chunks), each chunk into p slices, rank j owning "
                "slice j; L = ceil(log2 p). In step t = 0, .., nc+L: every "
                "rank i sends slice j of chunk t to slot i of rank j, for "
                "every j (through the switch, which sums them where it "
                "reduces); rank j adds chunk t-v's slots pairwise for v = 1, "
                ".., L (slot i+2^(v-1) into slot i); rank j sends its summed "
                "slice of chunk t-L-1 to every rank",
    .formula = "(nc+L+1)(p-1)a + (nc + (L+1)(p-2)) V/(p nc) b for nc >= L+1 "
               "chunks, L = ceil(log2 p): about V per link and direction, "
               "against the ring's 2(p-1)/p V",
    .constraints = "a switch that reduces (-T switch,reduce)",
    .shape = SHAPE_STAR,
    .generate = gen_nvls,
    .fits = fits_nvls,
    .cost = nvls_terms,
    .cost_on = cost_nvls_on,
};

const AlgoInfo *const algos_switch[] = {&ar_nvls, NULL};
