/* torus.c - all-reduces, reduce-scatters and all-gathers made for
 * machines of several dimensions.
 *
 * - torus: the multi-dimensional ring all-reduce of tori and meshes:
 *   reduce-scatter along each dimension in turn on the data still live,
 *   then all-gather back in reverse (the order ASTRA-sim calls
 *   localBWAware; in two dimensions the torus all-reduce of Mikami et al.,
 *   "Massively distributed SGD", 2018, and of Horovod). On a mesh, whose
 *   lines have no wrap-around link, each line's ring runs in folded order
 *   (0, 2, 4, ..., 5, 3, 1): every hop crosses at most two links and no
 *   directed link carries two messages of one step.
 * - torus_naive: a whole ring all-reduce along every dimension in turn,
 *   the contrast that moves the whole vector in every dimension.
 * - torus_bidir: the vector's two halves round every ring line in
 *   opposite directions at once, so that both directions of every link
 *   carry bytes (a torus's links are full duplex).
 * - hier: the hierarchical all-reduce of nodes of GPUs (BlueConnect, Cho
 *   et al., SysML 2019): reduce-scatter inside each node, all-reduce
 *   across nodes of each GPU's share (every local rank at once, each with
 *   the ranks of its own index in the other nodes), all-gather inside the
 *   node; the same schedule as torus on the machine's two dimensions.
 * - hier_master: reduce to one rank per node (a binomial tree), a ring
 *   all-reduce among those across the nodes, a binomial broadcast back.
 * - torus as a reduce-scatter and as an all-gather: the two halves of the
 *   torus all-reduce on the call's p blocks (reduce-scatter along each
 *   dimension in turn; all-gather along them in reverse), the blocks laid
 *   out in scratch so that each rank keeps its own (block_pos).
 *
 * A generator takes the dimensions from the machine: a torus's, mesh's or
 * ring's own, a node machine's (the node, then the network), a file's.
 * None fits a flat machine (full, bus, switch); their closed forms on
 * full (AlgoInfo.cost, for lists) are those of the most nearly square two
 * dimensions of p (machine_square), ranks in blocks, on which shape_of
 * would build them too. */
#include "algos/common.h"
#include "core/num.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ shapes */

/* The dimensions an algorithm runs along and each rank's coordinates. */
typedef struct {
    int ndims;                   /* dimensions */
    int size[MACHINE_MAX_DIMS];  /* their sizes */
    bool fold[MACHINE_MAX_DIMS]; /* a mesh line: its ring folded */
    int p;                       /* ranks */
    int *coord;                  /* [p * ndims] rank r's coordinates */
} Shape;

/* Whether machine m is flat: one dimension with every pair of ranks one
 * hop or one medium apart (the algorithm then picks its own shape). */
static bool flat(const Machine *m)
{
    return m->ndims == 1 && m->dim[0].kind != DIM_RING &&
           m->dim[0].kind != DIM_MESH;
}

static CvError shape_of(const Machine *m, int p, Shape *sh)
{
    *sh = (Shape){.p = p};
    if (flat(m)) {
        sh->ndims = 2;
        machine_square(p, 2, sh->size);
    } else {
        sh->ndims = m->ndims;
        for (int d = 0; d < m->ndims; d++) {
            sh->size[d] = m->dim[d].size;
            sh->fold[d] = m->dim[d].kind == DIM_MESH && m->dim[d].size > 2;
        }
    }
    sh->coord = malloc((size_t)p * (size_t)sh->ndims * sizeof *sh->coord);
    if (!sh->coord)
        return CV_ERR_NOMEM;
    for (int r = 0; r < p; r++)
        for (int d = 0, q = r; d < sh->ndims; d++) {
            /* flat: rank r's place is r; else the machine's place */
            sh->coord[r * sh->ndims + d] =
                flat(m) ? q % sh->size[d] : machine_coord(m, r, d);
            q /= sh->size[d];
        }
    return CV_OK;
}

static void shape_fini(Shape *sh)
{
    free(sh->coord);
    sh->coord = NULL;
}

static int coord(const Shape *sh, int r, int d)
{
    return sh->coord[r * sh->ndims + d];
}

/* The ring position of coordinate c on a line of k: c itself, or folded
 * (coordinates 0, 2, 4, ... going up, then the odd ones coming down). */
static int ring_pos(const Shape *sh, int d, int c)
{
    int k = sh->size[d];
    if (!sh->fold[d])
        return c;
    return c % 2 == 0 ? c / 2 : k - 1 - (c - 1) / 2;
}

/* The member index of rank r on its line of dimension d, going round it
 * one way (dir 1) or the other (dir -1). */
static int slot(const Shape *sh, int r, int d, int dir)
{
    int i = ring_pos(sh, d, coord(sh, r, d));
    return dir > 0 ? i : sh->size[d] - 1 - i;
}

/* Which line of dimension d rank r is on: its other coordinates. */
static int line_of(const Shape *sh, int r, int d)
{
    int l = 0;
    for (int j = sh->ndims - 1; j >= 0; j--)
        if (j != d)
            l = l * sh->size[j] + coord(sh, r, j);
    return l;
}

/* ------------------------------------------------------------- lines */

/* A part of the vector that goes round every line one way. */
typedef struct {
    size_t off, n; /* its elements in the buffer */
    int dir;       /* 1 or -1 */
} Part;

/* The groups of one dimension for every part: part h's lines are groups
 * h * nlines ... (h + 1) * nlines - 1, each line's members in ring order
 * for h's direction, its vector what the dimensions before it left live
 * (live: reduce-scatter has shrunk it; else the part's whole). */
typedef struct {
    RankGroups gr;
    int *member;
    size_t *off, *len;
} Lines;

static void lines_fini(Lines *ls)
{
    free(ls->member);
    free(ls->off);
    free(ls->len);
}

/* The live vector of part pt on the line of dimension d through rank r:
 * the block of it that r's line of each dimension before d reduced. */
static void live(const Shape *sh, const Part *pt, int r, int d, size_t *off,
                 size_t *n)
{
    *off = pt->off, *n = pt->n;
    for (int j = 0; j < d; j++) {
        int k = sh->size[j], i = slot(sh, r, j, pt->dir);
        *off += blk_off(*n, k, i);
        *n = blk_len(*n, k, i);
    }
}

static CvError lines_make(const Shape *sh, int d, const Part *parts,
                          int nparts, bool shrink, Lines *ls)
{
    int k = sh->size[d], nl = sh->p / k, ng = nl * nparts;
    *ls = (Lines){0};
    ls->member = malloc((size_t)ng * (size_t)k * sizeof *ls->member);
    ls->off = malloc((size_t)ng * sizeof *ls->off);
    ls->len = malloc((size_t)ng * sizeof *ls->len);
    if (!ls->member || !ls->off || !ls->len) {
        lines_fini(ls);
        return CV_ERR_NOMEM;
    }
    for (int h = 0; h < nparts; h++)
        for (int r = 0; r < sh->p; r++) {
            int g = h * nl + line_of(sh, r, d);
            ls->member[(size_t)g * k + slot(sh, r, d, parts[h].dir)] = r;
            if (shrink)
                live(sh, &parts[h], r, d, &ls->off[g], &ls->len[g]);
            else
                ls->off[g] = parts[h].off, ls->len[g] = parts[h].n;
        }
    ls->gr = (RankGroups){.ngroups = ng, .size = k, .stride = 1, .inner = 1,
                          .member = ls->member, .off = ls->off,
                          .len = ls->len};
    return CV_OK;
}

/* What the rings along the dimensions do: reduce-scatter along every
 * dimension in turn and all-gather back in reverse (an all-reduce), a
 * whole all-reduce along every dimension in turn (naive), or only the
 * reduce-scatters (in order) or only the all-gathers (in reverse). */
typedef enum { RINGS_ALL, RINGS_NAIVE, RINGS_RS, RINGS_AG } RingMode;

static CvError rings(Schedule *s, const Shape *sh, const Part *parts,
                     int nparts, RingMode mode, BufId buf)
{
    Lines ls[MACHINE_MAX_DIMS];
    CvError e = CV_OK;
    bool naive = mode == RINGS_NAIVE;
    memset(ls, 0, sizeof ls);
    for (int d = 0; d < sh->ndims && !e; d++)
        e = lines_make(sh, d, parts, nparts, !naive, &ls[d]);
    static const char *const rs[] = {"reduce-scatter x", "reduce-scatter y",
                                     "reduce-scatter z", "reduce-scatter w"};
    static const char *const ag[] = {"all-gather x", "all-gather y",
                                     "all-gather z", "all-gather w"};
    for (int d = 0; d < sh->ndims && !e && mode != RINGS_AG; d++) {
        emit_ring_reducescatter_g(s, &ls[d].gr, buf, rs[d]);
        if (naive)
            emit_ring_allgather_g(s, &ls[d].gr, buf, ag[d]);
    }
    for (int d = sh->ndims - 1; d >= 0 && !e && !naive && mode != RINGS_RS;
         d--)
        emit_ring_allgather_g(s, &ls[d].gr, buf, ag[d]);
    for (int d = 0; d < sh->ndims; d++)
        lines_fini(&ls[d]);
    return e;
}

/* Start schedule s named `name` for args and the shape it runs on. */
static CvError begin(const AlgoArgs *args, Schedule *s, const char *name,
                     Shape *sh)
{
    CvError e = algo_begin(args, s, name);
    if (!e && (e = shape_of(args->machine, args->call->nranks, sh)))
        sched_fini(s);
    return e;
}

/* Finish what begin started: the schedule, or nothing after error e. */
static CvError finish(Schedule *s, Shape *sh, CvError e)
{
    shape_fini(sh);
    if (!e)
        return sched_end(s);
    sched_fini(s);
    return e;
}

/* The two halves of the vector, cut at a multiple of p elements (the
 * second gets floor(count / p / 2) p, the first the rest), so that every
 * line's blocks are equal where p divides the count. */
static void halves(const CollCall *c, Part *parts)
{
    size_t p = (size_t)c->nranks, nb = c->count / p / 2 * p;
    parts[0] = (Part){0, c->count - nb, 1};
    parts[1] = (Part){c->count - nb, nb, -1};
}

/* An all-reduce of the call's vector along the shape's rings: one part
 * (bidir: two halves, opposite ways). */
static CvError gen_rings(const AlgoArgs *args, Schedule *s, const char *name,
                         bool bidir, bool naive)
{
    const CollCall *c = args->call;
    Shape sh;
    CvError e = begin(args, s, name, &sh);
    if (e)
        return e;
    Part parts[2] = {{0, c->count, 1}, {0, 0, -1}};
    if (bidir)
        halves(c, parts);
    emit_copy_in(s, BUF_RECV, 0, 0);
    e = rings(s, &sh, parts, bidir ? 2 : 1, naive ? RINGS_NAIVE : RINGS_ALL,
              BUF_RECV);
    return finish(s, &sh, e);
}

static CvError gen_torus(const AlgoArgs *args, Schedule *s)
{
    return gen_rings(args, s, "torus", false, false);
}

static CvError gen_torus_naive(const AlgoArgs *args, Schedule *s)
{
    return gen_rings(args, s, "torus_naive", false, true);
}

static CvError gen_torus_bidir(const AlgoArgs *args, Schedule *s)
{
    return gen_rings(args, s, "torus_bidir", true, false);
}

static CvError gen_hier(const AlgoArgs *args, Schedule *s)
{
    return gen_rings(args, s, "hier", false, false);
}

/* Reduce inside each node to its rank at coordinate 0, a ring all-reduce
 * among those across the nodes, broadcast back inside each node. */
static CvError gen_hier_master(const AlgoArgs *args, Schedule *s)
{
    const CollCall *c = args->call;
    Shape sh;
    CvError e = begin(args, s, "hier_master", &sh);
    if (e)
        return e;
    Part whole = {0, c->count, 1};
    Lines node, across;
    e = lines_make(&sh, 0, &whole, 1, false, &node);
    if (!e && (e = lines_make(&sh, 1, &whole, 1, false, &across)))
        lines_fini(&node);
    if (!e) {
        /* across: only the line of the nodes' ranks at coordinate 0 */
        RankGroups lead = across.gr;
        lead.ngroups = 1;
        lead.member = across.member + (size_t)line_of(&sh, 0, 1) * sh.size[1];
        lead.off = lead.len = NULL, lead.off0 = 0, lead.n0 = c->count;
        lead.cycles = &across.gr; /* compact: moved along every line */
        emit_copy_in(s, BUF_RECV, 0, 0);
        emit_binomial_reduce_g(s, &node.gr, 0, BUF_RECV, "reduce in node");
        emit_ring_reducescatter_g(s, &lead, BUF_RECV, "reduce-scatter across");
        emit_ring_allgather_g(s, &lead, BUF_RECV, "all-gather across");
        emit_binomial_bcast_g(s, &node.gr, 0, BUF_RECV, "broadcast in node");
        lines_fini(&node);
        lines_fini(&across);
    }
    return finish(s, &sh, e);
}

/* --------------------------------- reduce-scatter and all-gather */

/* Where rank r's block lies in the scratch vector that the rings of a
 * reduce-scatter or all-gather run on: by ring slot, dimension 0's most
 * significant, so that what each line's ring splits is contiguous and the
 * piece a rank keeps after the last dimension is its own block. */
static size_t block_pos(const Shape *sh, int r)
{
    size_t pos = 0;
    for (int d = 0; d < sh->ndims; d++)
        pos = pos * (size_t)sh->size[d] + (size_t)slot(sh, r, d, 1);
    return pos;
}

/* The p blocks of count elements run in scratch in block_pos order: a
 * reduce-scatter copies each rank's whole input there, reduce-scatters
 * along every dimension in turn on what is still live and copies out its
 * own block; an all-gather puts each rank's block there, all-gathers
 * along the dimensions in reverse and copies every block out to its
 * place. The local copies are free in the model. */
static CvError gen_blocks(const AlgoArgs *args, Schedule *s, bool gather)
{
    const CollCall *c = args->call;
    Shape sh;
    CvError e = begin(args, s, "torus", &sh);
    if (e)
        return e;
    int p = c->nranks;
    size_t n = c->count;
    sched_tmp_all(s, (size_t)p * n);
    sched_step(s, "copy-in");
    for (int r = 0; r < p; r++) {
        CollLayout l;
        coll_layout(c, r, &l);
        for (int b = gather ? r : 0; b < (gather ? r + 1 : p); b++)
            sched_copy(s, r, l.in_buf, l.in_off + (gather ? 0 : (size_t)b * n),
                       r, BUF_TMP, block_pos(&sh, b) * n, n);
    }
    Part whole = {0, (size_t)p * n, 1};
    e = rings(s, &sh, &whole, 1, gather ? RINGS_AG : RINGS_RS, BUF_TMP);
    sched_step(s, "copy-out");
    for (int r = 0; r < p && !e; r++) {
        CollLayout l;
        coll_layout(c, r, &l);
        for (int b = gather ? 0 : r; b < (gather ? p : r + 1); b++)
            sched_copy(s, r, BUF_TMP, block_pos(&sh, b) * n, r, l.out_buf,
                       l.out_off + (gather ? (size_t)b * n : 0), n);
    }
    return finish(s, &sh, e);
}

static CvError gen_rs_torus(const AlgoArgs *args, Schedule *s)
{
    return gen_blocks(args, s, false);
}

static CvError gen_ag_torus(const AlgoArgs *args, Schedule *s)
{
    return gen_blocks(args, s, true);
}

/* ---------------------------------------------------------- fitting */

/* torus, torus_naive: every dimension a ring or a mesh line. */
static bool fits_grid(const AlgoArgs *args, char *why, size_t whylen)
{
    const Machine *m = args->machine;
    bool grid = !flat(m);
    for (int d = 0; grid && d < m->ndims; d++)
        grid = m->dim[d].kind == DIM_RING || m->dim[d].kind == DIM_MESH;
    if (!grid)
        snprintf(why, whylen, "%s is made for tori, meshes and rings: give "
                 "one with -T (torus:AxB, mesh:AxB); on nodes, hier",
                 args->self->name);
    return grid;
}

/* torus_bidir: rings only (a mesh line's two directions would share its
 * links). */
static bool fits_rings(const AlgoArgs *args, char *why, size_t whylen)
{
    const Machine *m = args->machine;
    if (!fits_grid(args, why, whylen))
        return false;
    for (int d = 0; d < m->ndims; d++)
        if (m->dim[d].kind == DIM_MESH && m->dim[d].size > 2) {
            snprintf(why, whylen, "torus_bidir needs wrap-around links: on a "
                     "mesh its two directions would share every link "
                     "(torus is made for meshes)");
            return false;
        }
    return true;
}

/* hier: several dimensions (the node first). */
static bool fits_levels(const AlgoArgs *args, char *why, size_t whylen)
{
    const Machine *m = args->machine;
    if (m->ndims >= 2)
        return true;
    snprintf(why, whylen, "%s is made for machines of levels: give one with "
             "-T, such as nodes:GxL", args->self->name);
    return false;
}

/* hier_master: two levels exactly. */
static bool fits_two(const AlgoArgs *args, char *why, size_t whylen)
{
    const Machine *m = args->machine;
    if (m->ndims == 2)
        return true;
    snprintf(why, whylen, "hier_master is made for machines of two levels: "
             "give one with -T, such as nodes:GxL");
    return false;
}

/* ------------------------------------------------------- closed forms */

/* The sizes of the dimensions on machine m (NULL: full) for p ranks. */
static int dims_of(const Machine *m, int p, int *size)
{
    if (!m || flat(m)) {
        machine_square(p, 2, size);
        return 2;
    }
    for (int d = 0; d < m->ndims; d++)
        size[d] = m->dim[d].size;
    return m->ndims;
}

/* Terms of the rings along dimensions size[0 .. nd) on a vector of n0
 * elements: per dimension `passes` ring passes (2: reduce-scatter and
 * all-gather, 1: one of them), of which `red` reduce; each step one block
 * per rank and direction, the largest ceil(n_d / k) of the live vector
 * n_d (naive: every dimension on the whole vector); bidirectional: two
 * blocks (the halves') a step, over one link each way where the line is a
 * ring of more than two (per_way), else both through the rank's port (two
 * messages, or one on a line of two, whose neighbours are one rank). */
typedef struct {
    size_t n0;   /* elements of the vector */
    int passes;  /* ring passes per dimension */
    int red;     /* of which reduce */
    bool naive;  /* the whole vector in every dimension */
    bool bidir;  /* two halves, opposite ways */
} RingCost;

static void ring_terms(const CollCall *c, const RingCost *rc, const int *size,
                       int nd, const Machine *m, CostTerms *out)
{
    double es = (double)dtype_size(c->dtype);
    *out = (CostTerms){0};
    size_t live[2] = {rc->n0, 0};
    if (rc->bidir) {
        Part parts[2];
        halves(c, parts);
        live[0] = parts[0].n, live[1] = parts[1].n;
    }
    for (int d = 0; d < nd; d++) {
        int k = size[d];
        if (k < 2 || live[0] == 0)
            continue;
        size_t b0 = (live[0] + (size_t)k - 1) / (size_t)k;
        size_t b1 = (live[1] + (size_t)k - 1) / (size_t)k;
        bool per_way = rc->bidir && m && !flat(m) &&
                       m->dim[d].kind == DIM_RING && k > 2;
        double steps = (double)rc->passes * (k - 1);
        /* on a line of two both neighbours are one rank: one message */
        double msgs = rc->bidir && b1 && !per_way && k > 2 ? 2 : 1;
        double bytes = per_way ? (double)b0 : (double)(b0 + b1);
        out->steps += steps;
        out->a += steps * msgs;
        out->b += steps * bytes * es;
        /* a rank reduces both halves' blocks */
        out->g += rc->red * (k - 1) * (double)(b0 + b1) * es;
        if (!rc->naive)
            live[0] = b0, live[1] = b1;
    }
}

static void cost_on_grid(const AlgoArgs *args, bool naive, bool bidir,
                         CostTerms *out)
{
    int size[MACHINE_MAX_DIMS];
    int nd = dims_of(args->machine, args->call->nranks, size);
    RingCost rc = {args->call->count, 2, 1, naive, bidir};
    ring_terms(args->call, &rc, size, nd, args->machine, out);
}

static void cost_torus_on(const AlgoArgs *a, CostTerms *o) { cost_on_grid(a, false, false, o); }
static void cost_naive_on(const AlgoArgs *a, CostTerms *o) { cost_on_grid(a, true, false, o); }
static void cost_bidir_on(const AlgoArgs *a, CostTerms *o) { cost_on_grid(a, false, true, o); }

/* The closed forms on the machine full. */
static void cost_full(const CollCall *c, bool naive, bool bidir,
                      CostTerms *out)
{
    AlgoArgs a = {.call = c};
    cost_on_grid(&a, naive, bidir, out);
}

static void cost_torus(const CollCall *c, CostTerms *o) { cost_full(c, false, false, o); }
static void cost_naive(const CollCall *c, CostTerms *o) { cost_full(c, true, false, o); }
static void cost_bidir(const CollCall *c, CostTerms *o) { cost_full(c, false, true, o); }

/* Reduce-scatter (red) or all-gather of p blocks of count: one ring pass
 * per dimension on the live blocks; on full, the square shape's. */
static void cost_blocks_on(const AlgoArgs *args, int red, CostTerms *out)
{
    int size[MACHINE_MAX_DIMS];
    int nd = dims_of(args->machine, args->call->nranks, size);
    RingCost rc = {(size_t)args->call->nranks * args->call->count, 1, red,
                   false, false};
    ring_terms(args->call, &rc, size, nd, args->machine, out);
}

static void cost_rs_on(const AlgoArgs *a, CostTerms *o) { cost_blocks_on(a, 1, o); }
static void cost_ag_on(const AlgoArgs *a, CostTerms *o) { cost_blocks_on(a, 0, o); }

static void cost_rs(const CollCall *c, CostTerms *o)
{
    AlgoArgs a = {.call = c};
    cost_blocks_on(&a, 1, o);
}

static void cost_ag(const CollCall *c, CostTerms *o)
{
    AlgoArgs a = {.call = c};
    cost_blocks_on(&a, 0, o);
}

/* Master-based on L x G: a binomial reduce of the whole vector in the
 * node (ceil log2 L steps), a ring reduce-scatter and all-gather across
 * (2(G-1) steps of ceil(n/G)), a binomial broadcast back. */
static void master_terms(const CollCall *c, int L, int G, CostTerms *out)
{
    double es = (double)dtype_size(c->dtype), v = (double)c->count * es;
    int t = model_log2_ceil(L);
    *out = (CostTerms){0};
    if (c->count == 0)
        return;
    double blk = (double)((c->count + (size_t)G - 1) / (size_t)G) * es;
    out->steps = 2.0 * t + (G > 1 ? 2.0 * (G - 1) : 0);
    out->a = out->steps;
    out->b = 2.0 * t * v + (G > 1 ? 2.0 * (G - 1) * blk : 0);
    out->g = t * v + (G > 1 ? (G - 1) * blk : 0);
}

static void cost_master_on(const AlgoArgs *args, CostTerms *out)
{
    int size[MACHINE_MAX_DIMS];
    dims_of(args->machine, args->call->nranks, size);
    master_terms(args->call, size[0], size[1], out);
}

static void cost_master(const CollCall *c, CostTerms *out)
{
    AlgoArgs a = {.call = c};
    cost_master_on(&a, out);
}

/* ------------------------------------------------------------ entries */

static const AlgoInfo ar_torus = {
    .coll = COLL_ALLREDUCE,
    .name = "torus",
    .aliases = "torus2d mesh2d torus3d",
    .summary = "ring reduce-scatter along each dimension in turn on what is "
               "still live, then all-gather back (Mikami et al. 2018; "
               "ASTRA-sim localBWAware); folded rings on a mesh",
    .schedule = "a line of dimension d is the k ranks that differ only in "
                "coordinate d; its ring runs through coordinates 0, 1, .., "
                "k-1 and back to 0 (on a mesh line of k > 2 folded: 0, 2, 4, "
                ".., 5, 3, 1), member i its i-th rank. A local step copies "
                "the input to the output (out of place). Reduce-scatter "
                "along dimension 0 (x), then 1, ..: on every line at once, "
                "in step s = 0, .., k-2 member i sends its partial sum of "
                "piece i-s-1 (mod k) of what it still holds to member i+1, "
                "which adds its own; member i keeps piece i. Then "
                "all-gathers from the last dimension back to x: in step s "
                "member i sends piece i-s to member i+1",
    .formula = "sum over dims k: 2(k-1)a + 2(k-1)/k n_k b + (k-1)/k n_k g, "
               "n_k the vector left by the dims before",
    .constraints = "a torus, mesh or ring (-T)",
    .shape = SHAPE_RING,
    .generate = gen_torus,
    .fits = fits_grid,
    .cost = cost_torus,
    .cost_on = cost_torus_on,
};

static const AlgoInfo ar_torus_naive = {
    .coll = COLL_ALLREDUCE,
    .name = "torus_naive",
    .aliases = "",
    .summary = "a whole ring all-reduce along each dimension in turn: the "
               "contrast to torus, the whole vector in every dimension "
               "(ASTRA-sim's baseline)",
    .schedule = "allreduce torus's lines and rings; for each dimension in "
                "turn, x first, every line does a ring all-reduce of the "
                "whole vector cut into k pieces: in step s = 0, .., k-2 "
                "member i sends its partial sum of piece i-s-1 (mod k) to "
                "member i+1, which adds its own, then in step s = 0, .., k-2 "
                "member i sends piece i-s to member i+1",
    .formula = "sum over dims k: 2(k-1)a + 2(k-1)/k nb + (k-1)/k ng",
    .constraints = "a torus, mesh or ring (-T)",
    .shape = SHAPE_RING,
    .generate = gen_torus_naive,
    .fits = fits_grid,
    .cost = cost_naive,
    .cost_on = cost_naive_on,
};

static const AlgoInfo ar_torus_bidir = {
    .coll = COLL_ALLREDUCE,
    .name = "torus_bidir",
    .aliases = "bidir",
    .summary = "torus with the vector's two halves round every ring in "
               "opposite directions at once: both ways of each link busy "
               "(the bidirectional rings of TPU pods: Ying et al. 2018)",
    .schedule = "allreduce torus's steps on two parts at once: the first "
                "count-f elements go round every line's ring from member i "
                "to i+1 (coordinate c to c+1), the last f = floor(count/2p) "
                "p the other way (coordinate c to c-1), each part cut into "
                "pieces of its own; reduce-scatters along x, y, .., then "
                "all-gathers from the last dimension back to x",
    .formula = "torus's steps, two messages of half blocks each; on a torus "
               "of rings over 2, one per direction: half torus's nb",
    .constraints = "a torus or ring (-T)",
    .shape = SHAPE_RING,
    .generate = gen_torus_bidir,
    .parts = 2,
    .fits = fits_rings,
    .cost = cost_bidir,
    .cost_on = cost_bidir_on,
};

static const AlgoInfo ar_hier = {
    .coll = COLL_ALLREDUCE,
    .name = "hier",
    .aliases = "hierarchical blueconnect",
    .summary = "reduce-scatter in each node, all-reduce across nodes of each "
               "GPU's share, all-gather in the node (BlueConnect, Cho et al. "
               "2019)",
    .schedule = "allreduce torus's schedule on the machine's levels, the "
                "node first: in each node a ring reduce-scatter of the "
                "vector in L pieces (in step s = 0, .., L-2 local rank i "
                "sends piece i-s-1, mod L, to local rank i+1, which adds its "
                "own); then across the nodes, on the G ranks of each local "
                "index (node g its member g), a ring reduce-scatter and a "
                "ring all-gather of the piece kept; then a ring all-gather "
                "in each node (local rank i sends piece i-s to i+1); a "
                "further level nests the same way",
    .formula = "L-1 and G-1 ring steps twice: 2(L-1)a + 2(L-1)/L nb + "
               "2(G-1)a + 2(G-1)/(GL) nb (+ gamma on the reduce-scatters)",
    .constraints = "nodes GxL or another machine of levels (-T)",
    .shape = SHAPE_RING,
    .generate = gen_hier,
    .fits = fits_levels,
    .cost = cost_torus,
    .cost_on = cost_torus_on,
};

static const AlgoInfo ar_hier_master = {
    .coll = COLL_ALLREDUCE,
    .name = "hier_master",
    .aliases = "master",
    .summary = "reduce to one GPU per node (binomial), ring all-reduce "
               "across the nodes among those, broadcast back (binomial): "
               "Horovod's hierarchical all-reduce before horovod#411 (2018)",
    .schedule = "a local step copies the input to the output (out of place); "
                "in each node a binomial reduce to local rank 0 (at distance "
                "m = 1, 2, 4, .. local rank l, an odd multiple of m, sends "
                "its partial result to l-m, which adds it); then the ranks "
                "of local index 0, node g as member g, do a ring all-reduce "
                "of the vector in G pieces (in step s = 0, .., G-2 member g "
                "sends its partial sum of piece g-s-1, mod G, to g+1, which "
                "adds its own; then in step s piece g-s); then in each node "
                "a binomial broadcast from local rank 0 (at distance m = "
                "2^(ceil(log2 L)-1), .., 1 local rank l, a multiple of 2m, "
                "sends the sum to l+m)",
    .formula = "2 ceil(log2 L)(a + nb) + ceil(log2 L) ng + 2(G-1)a + "
               "2(G-1)/G nb + (G-1)/G ng",
    .constraints = "nodes GxL or another machine of two levels (-T)",
    .shape = SHAPE_TREE,
    .generate = gen_hier_master,
    .fits = fits_two,
    .cost = cost_master,
    .cost_on = cost_master_on,
};

static const AlgoInfo rs_torus = {
    .coll = COLL_REDUCESCATTER,
    .name = "torus",
    .aliases = "torus2d mesh2d torus3d",
    .summary = "ring reduce-scatter along each dimension in turn on the "
               "blocks still live (the first half of the torus all-reduce: "
               "Mikami et al. 2018; ASTRA-sim localBWAware); folded rings "
               "on a mesh",
    .schedule = "a local step copies the input's p blocks to tmp, block b at "
                "the position whose digits are rank b's members in the rings "
                "of dimensions 0, 1, .. (dimension 0 the most significant), "
                "so that every line's pieces lie together; then along "
                "dimension 0 (x), 1, .. in turn, on every line at once, a "
                "ring reduce-scatter of what is still live: in step s = 0, "
                ".., k-2 member i sends its partial sum of piece i-s-1 (mod "
                "k) to member i+1, which adds its own, member i keeping "
                "piece i (rings as allreduce torus's); a local step copies "
                "each rank's block out",
    .formula = "sum over dims k: (k-1)a + (k-1)/k n_k (b + g), n_k = n "
               "over the product of the dims before",
    .constraints = "a torus, mesh or ring (-T)",
    .shape = SHAPE_RING,
    .generate = gen_rs_torus,
    .fits = fits_grid,
    .cost = cost_rs,
    .cost_on = cost_rs_on,
};

static const AlgoInfo ag_torus = {
    .coll = COLL_ALLGATHER,
    .name = "torus",
    .aliases = "torus2d mesh2d torus3d",
    .summary = "ring all-gather along each dimension in reverse, the blocks "
               "growing (the second half of the torus all-reduce: Mikami et "
               "al. 2018; ASTRA-sim localBWAware); folded rings on a mesh",
    .schedule = "a local step puts rank r's block in tmp at the position "
                "whose digits are r's members in the rings of dimensions 0, "
                "1, .. (dimension 0 the most significant); then from the "
                "last dimension back to x, on every line at once, a ring "
                "all-gather: in step s = 0, .., k-2 member i sends piece i-s "
                "(mod k) to member i+1, the pieces growing from one block "
                "(rings as allreduce torus's); a local step copies the p "
                "blocks out",
    .formula = "sum over dims k: (k-1)a + (k-1)/k n_k b, n_k = n over the "
               "product of the dims before",
    .constraints = "a torus, mesh or ring (-T)",
    .shape = SHAPE_RING,
    .generate = gen_ag_torus,
    .fits = fits_grid,
    .cost = cost_ag,
    .cost_on = cost_ag_on,
};

const AlgoInfo *const algos_torus[] = {
    &ar_torus, &ar_torus_naive, &ar_torus_bidir, &ar_hier, &ar_hier_master,
    &rs_torus, &ag_torus, NULL,
};
