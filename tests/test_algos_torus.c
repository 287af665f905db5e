/* test_algos_torus.c - the algorithms made for machines (torus.c,
 * nvls.c, nccl_tree.c: all-reduces, and torus's reduce-scatter and
 * all-gather) on the machines they are made for: tori 2x2 to 4x4 and
 * 2x2x2, meshes (folded rings), rings, nodes 2x2, 2x4, 3x2, 4x2, 5x3 (in
 * blocks, dealt round, a NIC per node), switches that reduce and
 * multicast of 2 to 8. For each: the symbolic executor says the schedule
 * computes its collective (every count, in place and not); every transfer
 * joins ranks one dimension apart; on a machine of one class of links the
 * schedule's cost equals the closed form (cost_on), checked by hand for
 * some cases of each (for the reduce-scatter and all-gather, the formula
 * by hand on every grid); the threads backend runs a sample for real,
 * nothing wrong; and an algorithm is refused on a machine it is not made
 * for, in a sentence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algos/algo.h"
#include "core/sim.h"
#include "exec/exec.h"
#include "exec/verify.h"

/* The algorithms made for machines, by collective and name. */
static const struct {
    CollKind coll;
    const char *name;
} names[] = {{COLL_ALLREDUCE, "torus"},       {COLL_ALLREDUCE, "torus_naive"},
             {COLL_ALLREDUCE, "torus_bidir"}, {COLL_ALLREDUCE, "hier"},
             {COLL_ALLREDUCE, "hier_master"}, {COLL_ALLREDUCE, "nvls"},
             {COLL_REDUCESCATTER, "torus"},   {COLL_ALLGATHER, "torus"},
             {COLL_ALLREDUCE, "nccl_tree"}};
#define NNAMES (sizeof names / sizeof *names)

static const AlgoInfo *algo_of(CollKind k, const char *name)
{
    const AlgoInfo *a = algo_find(k, name);
    assert_non_null(a);
    return a;
}

static const AlgoInfo *algo(const char *name)
{
    return algo_of(COLL_ALLREDUCE, name);
}

static const AlgoInfo *algo_i(size_t i)
{
    return algo_of(names[i].coll, names[i].name);
}

/* The machines: every link of one class, alpha = beta = 1, no latency. */
typedef struct {
    const char *name;
    Machine m;
} Mach;

static int machines(Mach *out)
{
    int n = 0;
    static const int tori[][3] = {{2, 2, 1}, {3, 3, 1}, {4, 4, 1}, {4, 2, 1},
                                  {3, 4, 1}, {2, 2, 2}, {3, 2, 2}};
    for (size_t i = 0; i < sizeof tori / sizeof *tori; i++) {
        int nd = tori[i][2] > 1 ? 3 : 2;
        out[n].name = "torus";
        assert_int_equal(machine_grid(&out[n++].m, MACHINE_TORUS, nd, tori[i],
                                      false, 1, 1, 1), CV_OK);
    }
    static const int meshes[][2] = {{3, 3}, {4, 4}, {5, 2}};
    for (size_t i = 0; i < 3; i++) {
        out[n].name = "mesh";
        assert_int_equal(machine_grid(&out[n++].m, MACHINE_MESH, 2, meshes[i],
                                      false, 1, 1, 1), CV_OK);
    }
    int five = 5;
    out[n].name = "ring";
    assert_int_equal(machine_grid(&out[n++].m, MACHINE_RING, 1, &five, false,
                                  1, 1, 1), CV_OK);
    /* nodes G x L: in blocks, dealt round (cyclic), one NIC shared */
    static const int nodes[][4] = {{2, 2, 0, 0}, {2, 4, 0, 0}, {3, 2, 0, 0},
                                   {2, 4, 1, 0}, {4, 2, 0, 0}, {5, 3, 0, 0},
                                   {3, 3, 1, 0}, {2, 4, 0, 1}};
    for (size_t i = 0; i < sizeof nodes / sizeof *nodes; i++) {
        Machine *m = &out[n].m;
        out[n++].name = nodes[i][3] ? "nodes, shared NIC"
                        : nodes[i][2] ? "nodes, cyclic" : "nodes";
        assert_int_equal(machine_nodes(m, nodes[i][0], nodes[i][1],
                                       nodes[i][3], 1), CV_OK);
        m->cyclic = nodes[i][2];
        for (int c = 0; c < m->ncls; c++)
            m->cls[c].alpha = m->cls[c].beta = 1, m->cls[c].lat = 0;
    }
    static const int sw[] = {2, 3, 4, 8};
    for (size_t i = 0; i < 4; i++) {
        out[n].name = "switch, reducing";
        assert_int_equal(machine_grid(&out[n++].m, MACHINE_SWITCH, 1, &sw[i],
                                      true, 1, 1, 1), CV_OK);
    }
    return n;
}

static void describe(char *buf, size_t len, const AlgoInfo *a, const Mach *m,
                     const CollCall *c)
{
    char shape[128];
    machine_describe(&m->m, true, shape, sizeof shape);
    snprintf(buf, len, "%s on %s (%s) count %zu %s", a->name, shape, m->name,
             c->count, c->in_place ? "in place" : "out of place");
}

/* The symbolic executor computes all-reduce. */
static void check_sim(const Schedule *s, const char *what)
{
    SchedCheck chk;
    if (sched_validate(s, &chk, NULL))
        fail_msg("%s: invalid at step %zu transfer %zu", what, chk.step,
                 chk.xfer);
    Sim sim;
    assert_int_equal(sim_init(&sim, s), CV_OK);
    if (sim_run(&sim))
        fail_msg("%s: step %zu transfer %zu failed", what, sim.err_step,
                 sim.err_xfer);
    int br;
    size_t bj, nwrong;
    if (sim_check(&sim, &br, &bj, &nwrong))
        fail_msg("%s: %zu wrong, first rank %d element %zu", what, nwrong, br,
                 bj);
    sim_fini(&sim);
}

/* Ranks r and q differ in how many coordinates of machine m. */
static int dims_apart(const Machine *m, int r, int q)
{
    int n = 0;
    for (int d = 0; d < m->ndims; d++)
        n += machine_coord(m, r, d) != machine_coord(m, q, d);
    return n;
}

static void test_every_machine(void **state)
{
    (void)state;
    Mach ms[32];
    int nm = machines(ms), cases = 0;
    for (size_t ai = 0; ai < NNAMES; ai++)
        for (int mi = 0; mi < nm; mi++) {
            const AlgoInfo *a = algo_i(ai);
            const Machine *m = &ms[mi].m;
            int p = m->nranks;
            CollCall c = {.kind = a->coll, .nranks = p,
                          .dtype = DT_INT32, .op = OP_SUM};
            if (!algo_fits(a, &c, m, NULL, 0))
                continue;
            size_t counts[] = {0, 1, (size_t)p - 1, (size_t)p + 1, 97,
                               16 * (size_t)p};
            for (size_t ci = 0; ci < 6; ci++)
                for (int ip = 0; ip < 2; ip++) {
                    char what[256];
                    Schedule s;
                    c.count = counts[ci], c.in_place = ip;
                    describe(what, sizeof what, a, &ms[mi], &c);
                    if (algo_generate_on(a, &c, m, &s, NULL, 0))
                        fail_msg("%s: not generated", what);
                    check_sim(&s, what);
                    for (size_t x = 0; x < s.nxfers; x++) {
                        const Transfer *t = &s.xfers[x];
                        if (t->src != t->dst && dims_apart(m, t->src, t->dst) != 1)
                            fail_msg("%s: r%d -> r%d crosses dimensions", what,
                                     t->src, t->dst);
                    }
                    sched_fini(&s);
                    cases++;
                }
        }
    assert_true(cases > 300);
}

static int near(double x, double y)
{
    return fabs(x - y) <= 1e-9 * (fabs(x) + fabs(y)) + 1e-9;
}

/* a's schedule for c on m priced on m (its terms, *got) and a's closed
 * form there (*want). */
static void both_costs(const AlgoInfo *a, const CollCall *c, const Machine *m,
                       CostTerms *got, CostTerms *want)
{
    Schedule s;
    assert_int_equal(algo_generate_on(a, c, m, &s, NULL, 0), CV_OK);
    assert_int_equal(model_machine_cost(&s, m, true, got, NULL), CV_OK);
    AlgoArgs args = {c, m, a, false, false};
    a->cost_on(&args, want);
    sched_fini(&s);
}

/* On every machine each fits, at counts p divides (40000 p doubles: NCCL's
 * tree in 16 chunks a half, NVLS in 5), the schedule's terms on that
 * machine are the closed form's; on a node's shared NIC only
 * nccl_tree's (only its heads cross nodes): hier's closed form is that of
 * a NIC per GPU, and the shared one's load is what pricing by links adds. */
static void test_closed_forms(void **state)
{
    (void)state;
    Mach ms[32];
    int nm = machines(ms);
    for (size_t ai = 0; ai < NNAMES; ai++)
        for (int mi = 0; mi < nm; mi++) {
            const AlgoInfo *a = algo_i(ai);
            const Machine *m = &ms[mi].m;
            int p = m->nranks;
            if (m->ndims == 2 && m->dim[1].shared &&
                strcmp(a->name, "nccl_tree"))
                continue;
            static const size_t mults[] = {1, 24, 40000};
            for (size_t mi2 = 0; mi2 < 3; mi2++) {
                CollCall c = {.kind = a->coll, .nranks = p,
                              .count = mults[mi2] * (size_t)p,
                              .dtype = DT_DOUBLE,
                              .op = OP_SUM};
                if (!algo_fits(a, &c, m, NULL, 0))
                    continue;
                char what[256];
                describe(what, sizeof what, a, &ms[mi], &c);
                CostTerms got, want;
                both_costs(a, &c, m, &got, &want);
                if (!near(got.a, want.a) || !near(got.b, want.b) ||
                    !near(got.g, want.g) || !near(got.steps, want.steps))
                    fail_msg("%s: schedule a=%g b=%g g=%g steps=%g, closed "
                             "form a=%g b=%g g=%g steps=%g", what, got.a, got.b,
                             got.g, got.steps, want.a, want.b, want.g,
                             want.steps);
            }
        }
}

/* By hand, 64 floats (256 bytes) on a torus 4x4: x: 3 reduce-scatter and 3
 * all-gather steps of 16 floats (64 B), y: the same of 4 (16 B): a = 12,
 * b = 6 64 + 6 16 = 480, g = 3 64 + 3 16 = 240. torus_naive: the whole 64
 * floats in both: b = 12 64 = 768, g = 6 64 = 384. torus_bidir: halves of
 * 32 floats, one each way: b = 6 32 + 6 8 = 240, a = 12, and every rank
 * reduces both halves' blocks: g = 3 64 + 3 16 = 240. hier_master on
 * nodes 2x4 (L 4, G 2): 2 log2 4 = 4 tree steps of 256 B, 2 ring steps of
 * 128 B: a = 6, b = 1024 + 256 = 1280, g = 512 + 128 = 640. */
static void test_by_hand(void **state)
{
    (void)state;
    static const struct {
        const char *algo;
        int nodes;
        double a, b, g;
    } want[] = {{"torus", 0, 12, 480, 240}, {"torus_naive", 0, 12, 768, 384},
                {"torus_bidir", 0, 12, 240, 240},
                {"hier_master", 1, 6, 1280, 640}};
    int four[2] = {4, 4};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        Machine m;
        if (want[i].nodes) {
            assert_int_equal(machine_nodes(&m, 2, 4, false, 1), CV_OK);
            for (int k = 0; k < m.ncls; k++)
                m.cls[k].alpha = m.cls[k].beta = 1, m.cls[k].lat = 0;
        } else {
            assert_int_equal(machine_grid(&m, MACHINE_TORUS, 2, four, false,
                                          1, 1, 1), CV_OK);
        }
        CollCall c = {.kind = COLL_ALLREDUCE, .nranks = m.nranks, .count = 64,
                      .dtype = DT_FLOAT, .op = OP_SUM};
        CostTerms t, cf;
        both_costs(algo(want[i].algo), &c, &m, &t, &cf);
        if (t.a != want[i].a || t.b != want[i].b || t.g != want[i].g ||
            cf.a != want[i].a || cf.b != want[i].b || cf.g != want[i].g)
            fail_msg("%s: schedule a=%g b=%g g=%g, closed form a=%g b=%g "
                     "g=%g, by hand a=%g b=%g g=%g", want[i].algo, t.a, t.b,
                     t.g, cf.a, cf.b, cf.g, want[i].a, want[i].b, want[i].g);
    }
}

/* NVLS on a reducing switch of 8, 8 chunks of 8 slices of 8192 doubles
 * (s = 64 KiB; the vector V = 64 s): L = 3, so steps 1-4 carry only the
 * load-reduce (a rank's link up: 7 slices, its link down 1, the switch's
 * sum), steps 9-12 only the multicast (7 down), steps 5-8 both (8 slices
 * each way): b = (2 4 7 + 4 8) s = 88 s = 1.375 V against the ring's
 * 2 (7/8) V = 112 s; a = 12 steps of 7 messages = 84; the sums are the
 * switch's, g = 0. On the machine full (no switch) the same schedule moves
 * every slice to its owner and back as the ring does, b = 4 7 + 4 14 + 4 7
 * = 112 s, and the owners do the sums, 7 of a slice a chunk: g = 56 s. */
static void test_nvls_by_hand(void **state)
{
    (void)state;
    int p = 8;
    Machine sw, full;
    assert_int_equal(machine_grid(&sw, MACHINE_SWITCH, 1, &p, true, 1, 1, 1),
                     CV_OK);
    assert_int_equal(machine_full(&full, p, 1, 1, 1), CV_OK);
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = p, .count = 8 * 8 * 8192,
                  .dtype = DT_DOUBLE, .op = OP_SUM};
    Schedule s;
    assert_int_equal(algo_generate_on(algo("nvls"), &c, &sw, &s, NULL, 0),
                     CV_OK);
    check_sim(&s, "nvls 8 chunks");
    CostTerms t;
    assert_int_equal(model_machine_cost(&s, &sw, true, &t, NULL), CV_OK);
    double sl = 65536;
    if (t.b != 88 * sl || t.a != 84 || t.g != 0 || t.steps != 12)
        fail_msg("nvls on switch,reduce 8: a=%g b=%g g=%g steps=%g, by hand "
                 "a=84 b=%g g=0 steps=12", t.a, t.b, t.g, t.steps, 88 * sl);
    assert_int_equal(model_machine_cost(&s, &full, true, &t, NULL), CV_OK);
    if (t.b != 112 * sl || t.g != 56 * sl)
        fail_msg("nvls on full 8: b=%g g=%g, by hand b=%g g=%g", t.b, t.g,
                 112 * sl, 56 * sl);
    sched_fini(&s);
}

/* NCCL's tree by hand (ranks in blocks: c_g the chain rank and h_g the
 * head of node g; h the bytes of one chunk of a half). Nodes 2x2, 8 floats
 * (one chunk, h = 16 B): tree 0 is h0 <- h1, tree 1 its mirror; step 1
 * c_g -> h_g both halves (2h), step 2 h1 -> h0 and h0 -> h1 (h), step 3
 * the roots send down to their chain and the other head, step 4 the other
 * heads to their chains: a = 4, b = 2h + 3h = 80, g = 2h + h = 48. Nodes
 * 2x4 (chains of 4): 3 chain steps up of 2h, 1 across, 4 down of h: a = 8,
 * b = 6h + 5h = 176, g = 6h + h = 112. Nodes 3x2 (odd: tree 0 is h0 <- h2
 * <- h1, tree 1 the same shifted, h1 <- h0 <- h2): step 1 the chains (2h),
 * steps 2 and 3 one head to another in each tree (h1 -> h2, h2 -> h0;
 * h2 -> h0, h0 -> h1), steps 4 to 6 down one level each: a = 6, b = 2h +
 * 5h = 112, g = 2h + h + h = 64. Nodes 2x2, 65536 floats: halves of two
 * chunks of 64 KiB (h = 65536 B): step 1 chunk 0 up the chains (2h),
 * step 2 chunk 1 up the chains (2h) while chunk 0 crosses (h0 reduces 3h),
 * step 3 chunk 1 crosses beside chunk 0 coming down the other tree (2h on
 * one link), step 4 chunk 0 of one tree and 1 of the other down one chain
 * (2h), step 5 the last chunk to the chains (h): a = 5, b = 9h, g = 2h +
 * 3h + h = 6h. */
static void test_nccl_tree_by_hand(void **state)
{
    (void)state;
    static const struct {
        int nodes, per;
        size_t count;
        double a, b, g;
    } want[] = {{2, 2, 8, 4, 80, 48}, {2, 4, 8, 8, 176, 112},
                {3, 2, 8, 6, 112, 64},
                {2, 2, 65536, 5, 9 * 65536.0, 6 * 65536.0}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        Machine m;
        assert_int_equal(machine_nodes(&m, want[i].nodes, want[i].per, false,
                                       1), CV_OK);
        for (int k = 0; k < m.ncls; k++)
            m.cls[k].alpha = m.cls[k].beta = 1, m.cls[k].lat = 0;
        CollCall c = {.kind = COLL_ALLREDUCE, .nranks = m.nranks,
                      .count = want[i].count, .dtype = DT_FLOAT,
                      .op = OP_SUM};
        CostTerms t, cf;
        both_costs(algo("nccl_tree"), &c, &m, &t, &cf);
        if (t.a != want[i].a || t.b != want[i].b || t.g != want[i].g ||
            cf.a != want[i].a || cf.b != want[i].b || cf.g != want[i].g)
            fail_msg("nccl_tree on nodes %dx%d, %zu floats: schedule a=%g "
                     "b=%g g=%g, closed form a=%g b=%g g=%g, by hand a=%g "
                     "b=%g g=%g", want[i].nodes, want[i].per, want[i].count,
                     t.a, t.b, t.g, cf.a, cf.b, cf.g, want[i].a, want[i].b,
                     want[i].g);
    }
}

/* NCCL's tree in one node of L ranks: both trees are the chain, each half
 * in C chunks of h bytes (2 C 16384 floats: h = 64 KiB). Rank l sends
 * chunk c up at L - 1 - l + c (both halves: 2h to one peer) and, from the
 * root's z = L - 1 on, down at L - 1 + l + c, so there are 2L + C - 3
 * steps. Rank l both sends up and down (or receives from both sides) in a
 * step only when L >= 3 and C >= 3, in the C - 1 steps L - 1 .. L + C - 3
 * (rank 1 receives both at L - 1 .. L + C - 4 and sends both at L .. L + C
 * - 3): two peers and 4h on one link there, one peer and 2h elsewhere. So
 * a = 2L + C - 3 + (C - 1) = 2L + 2C - 4 and b = 2h a; a rank reduces 2h
 * in each of the L + C - 2 steps up: g = 2h (L + C - 2). With L = 2 no
 * link carries both ways: a = C + 1, b = 2h (C + 1), g = 2h C. */
static void test_nccl_tree_chain(void **state)
{
    (void)state;
    static const int Ls[] = {2, 3, 4, 6, 8}, Cs[] = {1, 2, 3, 4, 7, 16};
    double h = 65536;
    int cases = 0;
    for (size_t li = 0; li < sizeof Ls / sizeof *Ls; li++)
        for (size_t ci = 0; ci < sizeof Cs / sizeof *Cs; ci++) {
            int L = Ls[li], C = Cs[ci];
            bool both = L >= 3 && C >= 3;
            if (L > 2 && !both)
                continue; /* the formula above needs C >= 3 there */
            double a = L == 2 ? C + 1 : 2 * L + 2 * C - 4;
            double g = L == 2 ? 2 * h * C : 2 * h * (L + C - 2);
            Machine m;
            assert_int_equal(machine_nodes(&m, 1, L, false, 1), CV_OK);
            for (int k = 0; k < m.ncls; k++)
                m.cls[k].alpha = m.cls[k].beta = 1, m.cls[k].lat = 0;
            CollCall c = {.kind = COLL_ALLREDUCE, .nranks = L,
                          .count = 2 * (size_t)C * 16384, .dtype = DT_FLOAT,
                          .op = OP_SUM};
            CostTerms t, cf;
            both_costs(algo("nccl_tree"), &c, &m, &t, &cf);
            if (t.a != a || t.b != 2 * h * a || t.g != g || cf.a != a ||
                cf.b != 2 * h * a || cf.g != g)
                fail_msg("nccl_tree on one node of %d, %d chunks: schedule "
                         "a=%g b=%g g=%g, closed form a=%g b=%g g=%g, by "
                         "hand a=%g b=%g g=%g", L, C, t.a, t.b, t.g, cf.a,
                         cf.b, cf.g, a, 2 * h * a, g);
            cases++;
        }
    assert_int_equal(cases, 6 + 4 * 4);
}

/* NCCL's tree on two nodes of L ranks, each half in C chunks of h bytes:
 * tree 0 has node 0's head at its root and node 1's below, tree 1 the
 * mirror. Rank l of either chain sends up at L - 1 - l + c in both trees
 * (2h to one peer); the heads cross at L - 1 + c (h each way); the root
 * holds chunk c whole at z + c, z = L (its chain's next reduced at L - 2,
 * the other head at L - 1); rank l of the root's node sends down at L + l
 * + c in its tree and at L + l + 1 + c in the other: 2L + C - 1 steps. The
 * busiest link: 2h while the chains reduce (t < L); at t = L rank 1 gets
 * 2h from rank 2 and h from its head (3h); in t = L+1 .. L+C-3 rank 1's
 * links carry 2h up and 2h down (4h); then 2h down the chains to t = 2L +
 * C - 3 and h in the last step: b = 2hL + 3h + 4h(C-3) + 2hL + h =
 * 4h(L+C-2). Rank 1 serves two peers in t = L .. L+C-3: a = 2L+C-1 +
 * (C-2) = 2L+2C-3. The head reduces 2h from its chain and h from the
 * other head in t = L-1 .. L+C-3: g = 2h(L-1) + 3h(C-1) + h = h(2L+3C-4).
 * For L >= 3 and C >= 5; the same with the NIC shared (only heads cross)
 * and with the ranks dealt round the nodes. */
static void test_nccl_tree_two_nodes(void **state)
{
    (void)state;
    static const int Ls[] = {3, 4, 6, 8}, Cs[] = {5, 7, 16};
    double h = 65536;
    int cases = 0;
    for (size_t li = 0; li < sizeof Ls / sizeof *Ls; li++)
        for (size_t ci = 0; ci < sizeof Cs / sizeof *Cs; ci++)
            for (int var = 0; var < 3; var++) {
                int L = Ls[li], C = Cs[ci];
                double a = 2 * L + 2 * C - 3, b = 4 * h * (L + C - 2);
                double g = h * (2 * L + 3 * C - 4);
                Machine m;
                assert_int_equal(machine_nodes(&m, 2, L, var == 1, 1), CV_OK);
                m.cyclic = var == 2;
                for (int k = 0; k < m.ncls; k++)
                    m.cls[k].alpha = m.cls[k].beta = 1, m.cls[k].lat = 0;
                CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 2 * L,
                              .count = 2 * (size_t)C * 16384,
                              .dtype = DT_FLOAT, .op = OP_SUM};
                CostTerms t, cf;
                both_costs(algo("nccl_tree"), &c, &m, &t, &cf);
                if (t.a != a || t.b != b || t.g != g || cf.a != a ||
                    cf.b != b || cf.g != g)
                    fail_msg("nccl_tree on nodes 2x%d (%s), %d chunks: "
                             "schedule a=%g b=%g g=%g, closed form a=%g b=%g "
                             "g=%g, by hand a=%g b=%g g=%g", L,
                             var == 1 ? "shared NIC" : var ? "cyclic" : "blocks",
                             C, t.a, t.b, t.g, cf.a, cf.b, cf.g, a, b, g);
                cases++;
            }
    assert_int_equal(cases, 4 * 3 * 3);
}

/* nccl_tree's closed form on full (AlgoInfo.cost, what lists show) is its
 * schedule on full, every rank a node of its own (the double binary tree
 * pipelined), priced there, one port per rank; and that schedule is the
 * one on nodes Gx1, G = p, whose network is a switch too. */
static void test_nccl_tree_on_full(void **state)
{
    (void)state;
    static const int ps[] = {2, 3, 4, 6, 8, 9, 12, 16, 30};
    const AlgoInfo *a = algo("nccl_tree");
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++)
        for (size_t mult = 8; mult <= 20000; mult *= 50) {
            int p = ps[i];
            Machine nodes, full;
            assert_int_equal(machine_nodes(&nodes, p, 1, false, 1), CV_OK);
            assert_int_equal(machine_full(&full, p, 1, 1, 1), CV_OK);
            CollCall c = {.kind = COLL_ALLREDUCE, .nranks = p,
                          .count = mult * (size_t)p, .dtype = DT_FLOAT,
                          .op = OP_SUM};
            Schedule s, sn;
            assert_int_equal(algo_generate_on(a, &c, &full, &s, NULL, 0),
                             CV_OK);
            assert_int_equal(algo_generate_on(a, &c, &nodes, &sn, NULL, 0),
                             CV_OK);
            assert_int_equal(s.nsteps, sn.nsteps);
            assert_int_equal(s.nxfers, sn.nxfers);
            for (size_t x = 0; x < s.nxfers; x++) {
                assert_int_equal(s.xfers[x].src, sn.xfers[x].src);
                assert_int_equal(s.xfers[x].dst, sn.xfers[x].dst);
                assert_int_equal(s.xfers[x].src_off, sn.xfers[x].src_off);
                assert_int_equal(s.xfers[x].count, sn.xfers[x].count);
            }
            sched_fini(&sn);
            CostTerms t, cf;
            assert_int_equal(model_machine_cost(&s, &full, true, &t, NULL),
                             CV_OK);
            int sq[2] = {1, p};
            a->cost(&c, &cf);
            if (t.a != cf.a || t.b != cf.b || t.g != cf.g)
                fail_msg("nccl_tree, %d ranks as %dx%d, count %zu, on full: "
                         "schedule a=%g b=%g g=%g, closed form a=%g b=%g g=%g",
                         p, sq[1], sq[0], c.count, t.a, t.b, t.g, cf.a, cf.b,
                         cf.g);
            sched_fini(&s);
        }
}

/* Torus reduce-scatter and all-gather of p blocks of n elements on a grid
 * k_0 x ... x k_(d-1) (research note, section 1.1, one half of the
 * all-reduce): along dimension i, k_i - 1 ring steps, each moving the
 * block of the live vector, pn / (k_0 ... k_i) elements, over a link of
 * its own (a folded mesh line too): a = sum (k_i - 1), b = sum (k_i - 1)
 * pn / (k_0 ... k_i) bytes, and the reduce-scatter reduces what it
 * receives (g = b), the all-gather nothing. Every count, since p is the
 * product of the sizes. By hand on a torus 4x4, one float a block (pn =
 * 16 floats, 64 B): x: 3 steps of 16 B, y: 3 of 4 B: a = 6, b = 60. */
static void test_blocks_formula(void **state)
{
    (void)state;
    Mach ms[32];
    int nm = machines(ms), cases = 0;
    for (int mi = 0; mi < nm; mi++) {
        const Machine *m = &ms[mi].m;
        int p = m->nranks;
        size_t counts[] = {1, 3, (size_t)p - 1, 97};
        for (int gather = 0; gather < 2; gather++)
            for (size_t ci = 0; ci < 4; ci++) {
                CollKind k = gather ? COLL_ALLGATHER : COLL_REDUCESCATTER;
                const AlgoInfo *a = algo_of(k, "torus");
                CollCall c = {.kind = k, .nranks = p, .count = counts[ci],
                              .dtype = DT_FLOAT, .op = OP_SUM};
                if (!algo_fits(a, &c, m, NULL, 0) || c.count == 0)
                    continue;
                double want_a = 0, want_b = 0, live = (double)p * c.count * 4;
                for (int d = 0; d < m->ndims; d++) {
                    int kd = m->dim[d].size;
                    live /= kd;
                    want_a += kd - 1, want_b += (kd - 1) * live;
                }
                double want_g = gather ? 0 : want_b;
                char what[256];
                describe(what, sizeof what, a, &ms[mi], &c);
                CostTerms t, cf;
                both_costs(a, &c, m, &t, &cf);
                if (t.a != want_a || t.b != want_b || t.g != want_g ||
                    cf.a != want_a || cf.b != want_b || cf.g != want_g)
                    fail_msg("%s %s: schedule a=%g b=%g g=%g, closed form "
                             "a=%g b=%g g=%g, by hand a=%g b=%g g=%g", what,
                             coll_name(k), t.a, t.b, t.g, cf.a, cf.b, cf.g,
                             want_a, want_b, want_g);
                if (m->ndims == 2 && m->dim[0].size == 4 &&
                    m->dim[1].size == 4 && m->kind == MACHINE_TORUS &&
                    c.count == 1)
                    assert_true(want_a == 6 && want_b == 60); /* 4x4, 1 float */
                cases++;
            }
    }
    assert_true(cases >= 60);
}

/* Each algorithm on each machine runs on the threads backend, every
 * datatype, the ops in turn (sum, prod, min, max, avg), in place and not,
 * nothing wrong. */
static void test_threads(void **state)
{
    (void)state;
    char why[200];
    const ExecOps *ops = exec_find("threads", why, sizeof why);
    assert_non_null(ops);
    Mach ms[32];
    int nm = machines(ms);
    for (int mi = 0; mi < nm; mi++) {
        const Machine *m = &ms[mi].m;
        Executor *ex = NULL;
        assert_int_equal(ops->open(&ex, m->nranks, NULL, why, sizeof why),
                         CV_OK);
        for (size_t ai = 0; ai < NNAMES; ai++)
            for (int dt = 0; dt < DT_COUNT; dt++)
                for (int ip = 0; ip < 2; ip++) {
                    const AlgoInfo *a = algo_i(ai);
                    CollCall c = {.kind = a->coll, .nranks = m->nranks,
                                  .count = 2 * (size_t)m->nranks + 3,
                                  .dtype = (DataType)dt,
                                  .op = (RedOp)((dt + ip) % OP_COUNT),
                                  .in_place = ip};
                    if (!algo_fits(a, &c, m, NULL, 0))
                        continue;
                    Schedule s;
                    char what[256];
                    describe(what, sizeof what, a, &ms[mi], &c);
                    assert_int_equal(algo_generate_on(a, &c, m, &s, NULL, 0),
                                     CV_OK);
                    CvError e = ops->load(ex, &s);
                    for (size_t k = 0; !e && k < s.nsteps; k++)
                        e = ops->step(ex, k);
                    if (!e)
                        e = ops->finish(ex);
                    VerifyReport rep;
                    if (!e)
                        e = verify_output(ex, true, &rep);
                    if (e)
                        fail_msg("%s %s %s: %s (%zu wrong)", what,
                                 dtype_name(c.dtype), redop_name(c.op),
                                 cv_strerror(e), e ? rep.wrong : 0);
                    sched_fini(&s);
                }
        ops->close(ex);
    }
}

/* Refused where not made for, in a sentence: torus on nodes, torus_bidir
 * on a mesh, hier on a ring, hier_master on a 3-D torus, each on full. */
static void test_refused(void **state)
{
    (void)state;
    Machine nodes, mesh, ring, cube, full;
    int m33[2] = {3, 3}, r5 = 5, c222[3] = {2, 2, 2};
    assert_int_equal(machine_nodes(&nodes, 2, 4, false, 1), CV_OK);
    assert_int_equal(machine_grid(&mesh, MACHINE_MESH, 2, m33, false, 1, 1, 1),
                     CV_OK);
    assert_int_equal(machine_grid(&ring, MACHINE_RING, 1, &r5, false, 1, 1, 1),
                     CV_OK);
    assert_int_equal(machine_grid(&cube, MACHINE_TORUS, 3, c222, false, 1, 1,
                                  1), CV_OK);
    assert_int_equal(machine_full(&full, 8, 1, 1, 1), CV_OK);
    static const struct {
        const char *algo;
        int mach;
        const char *says;
    } no[] = {{"torus", 0, "made for tori, meshes and rings"},
              {"torus_bidir", 1, "needs wrap-around links"},
              {"hier", 2, "machines of levels"},
              {"hier_master", 3, "two levels"},
              {"torus", 4, "give one with -T"},
              {"torus_naive", 4, "made for tori"},
              {"torus_bidir", 4, "made for tori"},
              {"hier", 4, "machines of levels"},
              {"hier_master", 4, "two levels"},
              {"nccl_tree", 1, "made for machines of nodes"},
              {"nccl_tree", 3, "made for machines of nodes"}};
    const Machine *mm[] = {&nodes, &mesh, &ring, &cube, &full};
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
        char why[256] = "";
        CollCall c = {.kind = COLL_ALLREDUCE, .nranks = mm[no[i].mach]->nranks,
                      .count = 8, .dtype = DT_FLOAT, .op = OP_SUM};
        Schedule s;
        assert_false(algo_fits(algo(no[i].algo), &c, mm[no[i].mach], why,
                               sizeof why));
        assert_non_null(strstr(why, no[i].says));
        assert_int_equal(algo_generate_on(algo(no[i].algo), &c, mm[no[i].mach],
                                          &s, NULL, 0), CV_ERR_ALGO);
    }
    /* nccl_tree where a node's ranks would share one port of its switch */
    Machine shared0;
    assert_int_equal(machine_nodes(&shared0, 2, 4, false, 1), CV_OK);
    shared0.dim[0].shared = true;
    assert_int_equal(machine_finish(&shared0), CV_OK);
    CollCall c8 = {.kind = COLL_ALLREDUCE, .nranks = 8, .count = 8,
                   .dtype = DT_FLOAT, .op = OP_SUM};
    assert_true(algo_fits(algo("nccl_tree"), &c8, &nodes, NULL, 0));
    assert_false(algo_fits(algo("nccl_tree"), &c8, &shared0, NULL, 0));
    /* the torus reduce-scatter and all-gather on nodes and on full */
    for (int k = 0; k < 2; k++)
        for (int mi = 0; mi < 5; mi += 4) {
            char why[256] = "";
            CollKind kind = k ? COLL_ALLGATHER : COLL_REDUCESCATTER;
            CollCall c = {.kind = kind, .nranks = 8, .count = 8,
                          .dtype = DT_FLOAT, .op = OP_SUM};
            assert_false(algo_fits(algo_of(kind, "torus"), &c, mm[mi], why,
                                   sizeof why));
            assert_non_null(strstr(why, "made for tori, meshes and rings"));
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_machine),
        cmocka_unit_test(test_closed_forms),
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_nvls_by_hand),
        cmocka_unit_test(test_blocks_formula),
        cmocka_unit_test(test_nccl_tree_by_hand),
        cmocka_unit_test(test_nccl_tree_chain),
        cmocka_unit_test(test_nccl_tree_two_nodes),
        cmocka_unit_test(test_nccl_tree_on_full),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
