/* nccl_tree.c - NCCL's tree all-reduce on machines of nodes (NCCL_ALGO_TREE:
 * NVIDIA/nccl src/graph/connect.cc, trees.cc; src/device/all_reduce.h).
 *
 * Inside each node the ranks form a chain, local index 0 at its head;
 * across the nodes the heads form a double binary tree (Sanders, Speck and
 * Traeff, "Two-tree algorithms for full bandwidth broadcast, reduction and
 * scan", 2009; NCCL 2.4; tree.c's dbt_parent): tree 0 is the binary tree
 * of the nodes in which node 0 is the root with one child, tree 1 its
 * mirror image (an even number of nodes) or the same shifted by one node
 * (odd), so that a node inner in one is a leaf in the other. Only the head
 * of a node talks across nodes, so one rank per node takes part there
 * (NCCL's TREE pattern, all of a node's network traffic through one GPU).
 * Each tree carries one half of the vector, cut into C chunks.
 *
 * Reduce up, broadcast down, pipelined and overlapped as NCCL's
 * runTreeSplit runs them (the root reduces and sends down at once):
 * chunk c leaves a rank for its parent at step up + c, and the root sends
 * chunk c down at step z + c, the moment it holds it whole; a rank at depth
 * d forwards it at z + c + d. A Schedule lets no two transfers of a step
 * write one range, so the children of one parent (the next rank of the
 * chain and up to two heads of other nodes) reduce into it at different
 * steps: each parent takes its children in the order they are ready, one a
 * step (NCCL's kernel reduces them in one pass); a rank is ready the step
 * after its last child reduced into it. Both trees run in the same steps.
 *
 * Its closed form is the tree's own timing (plan_step) priced per step:
 * the most peers one link serves and the most bytes it carries (a node's
 * chain through the node's switch, its head through the network), summed
 * over the z + C + D - 1 steps. For one node and for two it sums to the
 * expressions the formula gives (tests/test_algos_torus.c derives them). */
#include "algos/common.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Target bytes of one chunk of a half; at most TREE_MAX_CHUNKS chunks. */
#define TREE_CHUNK_BYTES ((size_t)64 * 1024)
#define TREE_MAX_CHUNKS 16
#define TREE_ARITY 3 /* children at most: the chain's next, two nodes' */

/* The two trees over the ranks and when each rank sends. */
typedef struct {
    int p, L, G;             /* ranks, ranks per node, nodes */
    size_t C;                /* chunks of each half */
    size_t off[2], len[2];   /* the halves: tree t's elements */
    int *node;               /* [p] a rank's node */
    int *par[2];             /* [p] its parent in tree t (-1: the root) */
    int *kids[2];            /* [p * TREE_ARITY] its children, -1 after */
    int *up[2];              /* [p] the step it sends chunk 0 up */
    int *depth[2];           /* [p] links between it and the root */
    int z[2];                /* the step the root sends chunk 0 down */
    int nsteps;              /* steps of the schedule */
    int *byup[2];            /* [p] the ranks by up (then rank) ... */
    int *bydepth[2];         /* [p] ... and by depth: a step's senders are
                                a run of each (plan_step) */
    int *act;                /* [2 p] room for one step's senders */
} TreePlan;

static void plan_fini(TreePlan *tp)
{
    free(tp->node);
    for (int t = 0; t < 2; t++) {
        free(tp->par[t]);
        free(tp->kids[t]);
        free(tp->up[t]);
        free(tp->depth[t]);
        free(tp->byup[t]);
        free(tp->bydepth[t]);
    }
    free(tp->act);
}

/* The ranks 0 .. p - 1 in order of key (-1 or more), rank order within
 * one, into out; false without memory. */
static bool sort_by(const int *key, int p, int *out)
{
    int most = -1;
    for (int r = 0; r < p; r++)
        most = key[r] > most ? key[r] : most;
    int *at = calloc((size_t)most + 3, sizeof *at);
    if (!at)
        return false;
    for (int r = 0; r < p; r++)
        at[key[r] + 2]++;
    for (int v = 0; v <= most + 1; v++)
        at[v + 1] += at[v];
    for (int r = 0; r < p; r++)
        out[at[key[r] + 1]++] = r;
    free(at);
    return true;
}

/* Chunks of call c: about TREE_CHUNK_BYTES each (where c->segment is set,
 * as many as chunks of the vector of that many bytes: a chunk of each
 * half), at most TREE_MAX_CHUNKS, never one under an element. */
static size_t chunks_of(const CollCall *c, size_t half)
{
    size_t es = dtype_size(c->dtype);
    size_t k = (half * es + TREE_CHUNK_BYTES - 1) / TREE_CHUNK_BYTES;
    if (c->segment)
        k = (c->count * es + c->segment - 1) / c->segment;
    k = k < 1 ? 1 : k > TREE_MAX_CHUNKS ? TREE_MAX_CHUNKS : k;
    return half ? (k < half ? k : half) : 1;
}

/* The ranks' children in tree t from their parents, in rank order. */
static void plan_kids(TreePlan *tp, int t)
{
    for (int r = 0; r < tp->p * TREE_ARITY; r++)
        tp->kids[t][r] = -1;
    for (int r = 0; r < tp->p; r++) {
        int q = tp->par[t][r], i = 0;
        if (q < 0)
            continue;
        while (tp->kids[t][q * TREE_ARITY + i] >= 0)
            i++;
        tp->kids[t][q * TREE_ARITY + i] = r;
    }
}

/* When rank q is ready (ready[q]): its children reduce into it one a step
 * in the order they are ready (ties: rank order), each no earlier than it
 * is ready itself; q is ready the step after the last. */
static void plan_slots(TreePlan *tp, int t, int q, int *ready)
{
    int *k = &tp->kids[t][q * TREE_ARITY], n = 0, s = -1;
    while (n < TREE_ARITY && k[n] >= 0)
        n++;
    for (int i = 1; i < n; i++) /* insertion sort, stable */
        for (int j = i; j > 0 && ready[k[j - 1]] > ready[k[j]]; j--) {
            int x = k[j];
            k[j] = k[j - 1], k[j - 1] = x;
        }
    for (int i = 0; i < n; i++) {
        s = ready[k[i]] > s + 1 ? ready[k[i]] : s + 1;
        tp->up[t][k[i]] = s;
    }
    ready[q] = s + 1;
}

/* Tree t's parents, depths and steps; the ranks in order of decreasing
 * depth in order[]. */
static void plan_tree(TreePlan *tp, int t, const int *at, int *ready,
                      int *order)
{
    int p = tp->p, L = tp->L, maxd = 0, root = 0;
    /* (linear in p: a node of 65536 ranks is one chain of that depth) */
    for (int i = 0; i < p; i++) /* each rank's place in its node, for now */
        order[at[i]] = i % L;
    for (int r = 0; r < p; r++) {
        int g = tp->node[r], l = order[r];
        int pn = dbt_parent(t, g, tp->G); /* tree.c */
        tp->par[t][r] = l > 0 ? at[g * L + l - 1] : pn < 0 ? -1 : at[pn * L];
        tp->up[t][r] = -1;
        tp->depth[t][r] = -1;
    }
    for (int r = 0; r < p; r++) {
        /* up to the first rank whose depth is known (or the root), then
           down again: each rank's depth is found once */
        int q = r, n = 0;
        while (q >= 0 && tp->depth[t][q] < 0)
            ready[n++] = q, q = tp->par[t][q];
        int d = q < 0 ? -1 : tp->depth[t][q];
        while (n > 0)
            tp->depth[t][ready[--n]] = ++d;
        d = tp->depth[t][r];
        maxd = d > maxd ? d : maxd;
        root = d == 0 ? r : root;
    }
    plan_kids(tp, t);
    /* the ranks by decreasing depth, rank order within one (counted) */
    int *start = calloc((size_t)maxd + 2, sizeof *start);
    if (start) {
        for (int r = 0; r < p; r++)
            start[maxd - tp->depth[t][r] + 1]++;
        for (int d = 0; d <= maxd; d++)
            start[d + 1] += start[d];
        for (int r = 0; r < p; r++)
            order[start[maxd - tp->depth[t][r]]++] = r;
        free(start);
    } else { /* without memory for the counts: the slow way */
        int n = 0;
        for (int d = maxd; d >= 0; d--)
            for (int r = 0; r < p; r++)
                if (tp->depth[t][r] == d)
                    order[n++] = r;
    }
    for (int i = 0; i < p; i++)
        plan_slots(tp, t, order[i], ready);
    tp->z[t] = ready[root];
    int last = tp->z[t] + (int)tp->C + maxd - 1;
    tp->nsteps = last > tp->nsteps ? last : tp->nsteps;
}

/* The plan for call c on L ranks a node and G nodes, rank at[g L + l] at
 * place l of node g. */
static CvError plan_make(TreePlan *tp, const CollCall *c, int L, int G,
                         const int *at)
{
    int p = c->nranks;
    *tp = (TreePlan){.p = p, .L = L, .G = G};
    tp->len[0] = c->count - c->count / 2, tp->len[1] = c->count / 2;
    tp->off[1] = tp->len[0];
    tp->C = chunks_of(c, tp->len[0]);
    tp->node = malloc((size_t)p * sizeof *tp->node);
    int *ready = malloc((size_t)p * sizeof *ready);
    int *order = malloc((size_t)p * sizeof *order);
    bool ok = tp->node && ready && order;
    for (int t = 0; t < 2 && ok; t++) {
        tp->par[t] = malloc((size_t)p * sizeof *tp->par[t]);
        tp->kids[t] = malloc((size_t)p * TREE_ARITY * sizeof *tp->kids[t]);
        tp->up[t] = malloc((size_t)p * sizeof *tp->up[t]);
        tp->depth[t] = malloc((size_t)p * sizeof *tp->depth[t]);
        ok = tp->par[t] && tp->kids[t] && tp->up[t] && tp->depth[t];
    }
    for (int i = 0; ok && i < p; i++)
        tp->node[at[i]] = i / L;
    for (int t = 0; t < 2 && ok; t++)
        plan_tree(tp, t, at, ready, order);
    tp->act = ok ? malloc(2 * (size_t)p * sizeof *tp->act) : NULL;
    ok = ok && tp->act;
    for (int t = 0; t < 2 && ok; t++) {
        tp->byup[t] = malloc((size_t)p * sizeof *tp->byup[t]);
        tp->bydepth[t] = malloc((size_t)p * sizeof *tp->bydepth[t]);
        ok = tp->byup[t] && tp->bydepth[t] &&
             sort_by(tp->up[t], p, tp->byup[t]) &&
             sort_by(tp->depth[t], p, tp->bydepth[t]);
    }
    if (p < 2 || c->count == 0)
        tp->nsteps = 0;
    free(ready);
    free(order);
    if (ok)
        return CV_OK;
    plan_fini(tp);
    return CV_ERR_NOMEM;
}

/* What step k of the plan does, one transfer at a time: from src to dst
 * of elements [off, off + n), reduced into dst or copied; across nodes or
 * inside one. */
typedef void (*TreeVisit)(void *ctx, int src, int dst, size_t off, size_t n,
                          bool reduce, bool across);

/* Append to act (n so far) the ranks of by (sorted by key) whose key is
 * from lo to hi; the new n. */
static int run_of(const int *by, const int *key, int p, long lo, long hi,
                  int *act, int n)
{
    int a = 0, b = p;
    while (a < b) { /* the first whose key is lo or more */
        int m = a + (b - a) / 2;
        if (key[by[m]] < lo)
            a = m + 1;
        else
            b = m;
    }
    for (; a < p && key[by[a]] <= hi; a++)
        act[n++] = by[a];
    return n;
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Step k: each rank that sends in it (a run of byup and one of bydepth,
 * in rank order, each once), as a walk over every rank would visit them:
 * linear in the step's transfers, not in the ranks (a node of 65536 ranks
 * has as many steps). */
static void plan_step(const TreePlan *tp, int k, TreeVisit visit, void *ctx)
{
    long C = (long)tp->C;
    for (int t = 0; t < 2; t++) {
        int n = run_of(tp->byup[t], tp->up[t], tp->p, k - C + 1, k, tp->act, 0);
        n = run_of(tp->bydepth[t], tp->depth[t], tp->p, k - tp->z[t] - C + 1,
                   k - tp->z[t], tp->act, n);
        qsort(tp->act, (size_t)n, sizeof *tp->act, int_cmp);
        for (int i = 0; i < n; i++) {
            int r = tp->act[i];
            if (i && r == tp->act[i - 1])
                continue;
            int q = tp->par[t][r];
            long c = (long)k - tp->up[t][r];
            if (q >= 0 && c >= 0 && c < (long)tp->C)
                visit(ctx, r, q,
                      tp->off[t] + blk_off(tp->len[t], (int)tp->C, (int)c),
                      blk_len(tp->len[t], (int)tp->C, (int)c), true,
                      tp->node[r] != tp->node[q]);
            c = (long)k - tp->z[t] - tp->depth[t][r];
            for (int j = 0; c >= 0 && c < (long)tp->C && j < TREE_ARITY; j++) {
                int d = tp->kids[t][r * TREE_ARITY + j];
                if (d >= 0)
                    visit(ctx, r, d,
                          tp->off[t] + blk_off(tp->len[t], (int)tp->C, (int)c),
                          blk_len(tp->len[t], (int)tp->C, (int)c), false,
                          tp->node[r] != tp->node[d]);
            }
        }
    }
}

/* at[g L + l]: the rank at place l of node g; on a machine of nodes its
 * coordinates, else (flat: full, for lists) ranks in blocks of L. */
static int *places(const Machine *m, int p, int L)
{
    int *at = malloc((size_t)p * sizeof *at);
    for (int r = 0; at && r < p; r++) {
        bool nodes = m && m->ndims == 2;
        int l = nodes ? machine_coord(m, r, 0) : r % L;
        int g = nodes ? machine_coord(m, r, 1) : r / L;
        at[g * L + l] = r;
    }
    return at;
}

/* L and G of machine m: its two levels, or on one switch (NULL: full)
 * every rank a node of its own (L = 1: the double binary tree alone,
 * pipelined in chunks, as NCCL runs it across nodes). */
static void levels(const Machine *m, int p, int *L, int *G)
{
    if (m && m->ndims == 2)
        *L = m->dim[0].size, *G = m->dim[1].size;
    else
        *L = 1, *G = p;
}

/* ---------------------------------------------------------- generate */

static void emit(void *ctx, int src, int dst, size_t off, size_t n,
                 bool reduce, bool across)
{
    (void)across;
    if (reduce)
        sched_reduce(ctx, src, BUF_RECV, off, dst, BUF_RECV, off, n);
    else
        sched_copy(ctx, src, BUF_RECV, off, dst, BUF_RECV, off, n);
}

static CvError gen_nccl_tree(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    int L, G;
    levels(args->machine, c->nranks, &L, &G);
    int *at = places(args->machine, c->nranks, L);
    TreePlan tp;
    CvError e = at ? plan_make(&tp, c, L, G, at) : CV_ERR_NOMEM;
    free(at);
    if (!e && (e = algo_begin(args, s, "nccl_tree")))
        plan_fini(&tp);
    if (e)
        return e;
    emit_copy_in(s, BUF_RECV, 0, 0);
    int first_down = tp.z[0] < tp.z[1] ? tp.z[0] : tp.z[1];
    int last_up = (tp.z[0] > tp.z[1] ? tp.z[0] : tp.z[1]) + (int)tp.C - 2;
    for (int k = 0; k < tp.nsteps; k++) {
        sched_step(s, k < first_down ? "reduce up"
                      : k > last_up  ? "broadcast down"
                                     : "reduce up, broadcast down");
        plan_step(&tp, k, emit, s);
    }
    plan_fini(&tp);
    return sched_end(s);
}

/* ------------------------------------------------------- closed form */

/* A step's loads on each rank's links: [r * 4 + 0] into its node's switch,
 * 1 out of it, 2 into the network, 3 out of it (with one port per rank,
 * ports: 0 and 1 only); the peers each serves, its bytes; what each rank
 * reduces. */
#define TREE_PEERS 8 /* peers of one link in a step at most */
typedef struct {
    bool ports;      /* one port per rank (the machine full) */
    double es;       /* bytes per element */
    double *bytes;   /* [4p] */
    int *npeer;      /* [4p] */
    int *peer;       /* [4p * TREE_PEERS] */
    double *reduced; /* [p] */
    bool moved;      /* the step moved bytes between ranks */
} TreeLoad;

static void load_link(TreeLoad *ld, int link, int peer, double bytes)
{
    int *pe = &ld->peer[link * TREE_PEERS], i = 0;
    while (i < ld->npeer[link] && pe[i] != peer)
        i++;
    if (i == ld->npeer[link] && i < TREE_PEERS)
        pe[ld->npeer[link]++] = peer;
    ld->bytes[link] += bytes;
}

static void load(void *ctx, int src, int dst, size_t off, size_t n,
                 bool reduce, bool across)
{
    (void)off;
    TreeLoad *ld = ctx;
    double b = (double)n * ld->es;
    int net = across && !ld->ports ? 2 : 0;
    if (n == 0)
        return;
    load_link(ld, src * 4 + net, dst, b);
    load_link(ld, dst * 4 + net + 1, src, b);
    if (reduce)
        ld->reduced[dst] += b;
    ld->moved = true;
}

/* The terms of the plan for c on L x G (ports: the machine full). */
static void tree_terms(const CollCall *c, const Machine *m, bool ports,
                       CostTerms *out)
{
    int p = c->nranks, L, G;
    *out = (CostTerms){0};
    levels(m, p, &L, &G);
    int *at = places(m, p, L);
    TreePlan tp;
    TreeLoad ld = {.ports = ports, .es = (double)dtype_size(c->dtype)};
    ld.bytes = malloc((size_t)p * 4 * sizeof *ld.bytes);
    ld.npeer = malloc((size_t)p * 4 * sizeof *ld.npeer);
    ld.peer = malloc((size_t)p * 4 * TREE_PEERS * sizeof *ld.peer);
    ld.reduced = malloc((size_t)p * sizeof *ld.reduced);
    if (at && ld.bytes && ld.npeer && ld.peer && ld.reduced &&
        plan_make(&tp, c, L, G, at) == CV_OK) {
        for (int k = 0; k < tp.nsteps; k++) {
            memset(ld.bytes, 0, (size_t)p * 4 * sizeof *ld.bytes);
            memset(ld.npeer, 0, (size_t)p * 4 * sizeof *ld.npeer);
            memset(ld.reduced, 0, (size_t)p * sizeof *ld.reduced);
            ld.moved = false;
            plan_step(&tp, k, load, &ld);
            double a = 0, b = 0, g = 0;
            for (int i = 0; i < 4 * p; i++) {
                a = ld.npeer[i] > a ? ld.npeer[i] : a;
                b = ld.bytes[i] > b ? ld.bytes[i] : b;
            }
            for (int r = 0; r < p; r++)
                g = ld.reduced[r] > g ? ld.reduced[r] : g;
            out->a += a, out->b += b, out->g += g, out->steps += ld.moved;
        }
        plan_fini(&tp);
    }
    free(at);
    free(ld.bytes);
    free(ld.npeer);
    free(ld.peer);
    free(ld.reduced);
}

static void cost_tree_on(const AlgoArgs *args, CostTerms *out)
{
    tree_terms(args->call, args->machine, false, out);
}

static void cost_tree(const CollCall *c, CostTerms *out)
{
    tree_terms(c, NULL, true, out);
}

/* Machines of nodes: two levels, each joined by a switch that neither
 * sums nor multicasts (a node's, with a port per rank; the network's: one
 * NIC per GPU or one shared, which only the head uses); or one such
 * switch (full), every rank a node of its own. */
static bool fits_tree(const AlgoArgs *args, char *why, size_t whylen)
{
    const Machine *m = args->machine;
    bool ok = (m->ndims == 2 || m->ndims == 1) && !machine_has_medium(m) &&
              !m->dim[0].shared;
    for (int d = 0; ok && d < m->ndims; d++)
        ok = m->dim[d].kind == DIM_SWITCH && !m->dim[d].reduce;
    if (!ok)
        snprintf(why, whylen, "nccl_tree is made for machines of nodes or "
                 "one switch: give one with -T, such as nodes:GxL, or full");
    return ok;
}

static const AlgoInfo ar_nccl_tree = {
    .coll = COLL_ALLREDUCE,
    .name = "nccl_tree",
    .pipelined = true,
    .aliases = "nccltree chain-dbt",
    .summary = "NCCL's tree: a chain in each node, a double binary tree of "
               "the nodes' heads, each tree on half the vector, reduce up "
               "and broadcast down pipelined in chunks (NCCL "
               "NCCL_ALGO_TREE; Sanders et al. 2009)",
    .schedule = "a local step copies the input to the output (out of place). "
                "Inside each node a chain: local rank l's parent is local "
                "rank l-1, local rank 0 the node's head; the heads form "
                "double-binary-tree's two trees over the node indices (on "
                "full every rank is a node). Tree 0 carries the first "
                "ceil(count/2) elements, tree 1 the rest, each cut into C "
                "chunks (about 64 KiB, 1 to 16). Up: a rank that sends chunk "
                "0 to its parent at step u sends chunk c at u+c; a leaf is "
                "ready at step 0, a parent the step after the last of its "
                "children's u, and the children of one parent take u at "
                "their ready step or later, one a step, in the order they "
                "are ready (ties: the lower rank first). Down: the root, "
                "holding chunk 0 whole at step z, sends chunk c to all its "
                "children at step z+c; a rank at depth d forwards it at "
                "z+c+d. Both trees run in the same steps, up and down "
                "overlapping",
    .formula = "z + C + D - 1 steps, chunks V/2C (C <= 16), z the reduce's "
               "fill, D = L - 1 + the trees' depth; each step the busiest "
               "link's peers a and bytes b (about 2V b for C >> z + D); one "
               "node of L >= 3, C >= 3: (2L+2C-4)(a + V/C b) + (L+C-2) V/C g; "
               "two nodes of L >= 3, C >= 5: (2L+2C-3)a + 2(L+C-2) V/C b + "
               "(2L+3C-4) V/2C g",
    .constraints = "nodes GxL (-T), or one switch (full, the default: every "
                   "rank a node, the double binary tree pipelined)",
    .shape = SHAPE_TREE,
    .generate = gen_nccl_tree,
    .fits = fits_tree,
    .cost = cost_tree,
    .cost_on = cost_tree_on,
};

const AlgoInfo *const algos_nodes[] = {&ar_nccl_tree, NULL};
