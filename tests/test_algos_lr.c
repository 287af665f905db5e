/* test_algos_lr.c - the linear and ring families: the shapes of their
 * schedules (who talks to whom in which step), the shared ring emitters at
 * any place in any buffer, final states over a sweep, and closed forms that
 * equal the schedules' cost for every p and count where they claim to. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "algos/algo.h"
#include "algos/common.h"
#include "core/sim.h"

/* ------------------------------------------------------------ helpers */

/* The family's algorithms, by collective and name. */
typedef struct {
    CollKind coll;    /* collective */
    const char *name; /* canonical name */
    int exact;        /* closed form exact: 1 for every p and count, 2 for
                         counts p divides */
} Entry;

static const Entry entries[] = {
    {COLL_BROADCAST, "linear", 1},      {COLL_REDUCE, "linear", 1},
    {COLL_SCATTER, "linear", 1},        {COLL_GATHER, "linear", 1},
    {COLL_ALLREDUCE, "direct", 1},      {COLL_REDUCESCATTER, "pairwise", 1},
    {COLL_ALLTOALL, "pairwise", 1},     {COLL_ALLGATHER, "ring", 1},
    {COLL_REDUCESCATTER, "ring", 1},    {COLL_ALLREDUCE, "ring", 1},
    {COLL_BROADCAST, "chain", 1},       {COLL_BROADCAST, "scatter-allgather", 2},
};
#define NENTRIES (sizeof entries / sizeof entries[0])

static const AlgoInfo *entry_algo(size_t i)
{
    const AlgoInfo *a = algo_find(entries[i].coll, entries[i].name);
    if (!a)
        fail_msg("%s/%s is not registered", coll_name(entries[i].coll),
                 entries[i].name);
    return a;
}

static CollCall make_call(CollKind k, int p, size_t count, int root, int ip)
{
    return (CollCall){.kind = k, .nranks = p, .count = count,
                      .dtype = DT_INT32, .op = OP_SUM, .root = root,
                      .in_place = ip};
}

/* One line naming a case, datatype included (the cost sweeps vary it). */
static const char *describe(const AlgoInfo *a, const CollCall *c)
{
    static char line[192];
    snprintf(line, sizeof line, "%s %s, %d ranks, %zu x %s, root %d%s",
             a->name, coll_name(a->coll), c->nranks, c->count,
             dtype_name(c->dtype), c->root, c->in_place ? ", in place" : "");
    return line;
}

/* Execute a schedule symbolically and check it against the definition. */
static void check_sched(const Schedule *s, const char *what)
{
    SchedCheck chk;
    if (sched_validate(s, &chk, NULL))
        fail_msg("%s: validate: %s at step %zu", what, cv_strerror(chk.err),
                 chk.step);
    Sim sim;
    assert_int_equal(sim_init(&sim, s), CV_OK);
    if (sim_run(&sim))
        fail_msg("%s: step %zu: %s", what, sim.err_step, cv_strerror(sim.err));
    int br = 0;
    size_t bj = 0, nwrong = 0;
    if (sim_check(&sim, &br, &bj, &nwrong))
        fail_msg("%s: %zu wrong, first rank %d element %zu", what, nwrong, br, bj);
    sim_fini(&sim);
}

/* Generate, validate, execute and check one call. */
static void run_case(const AlgoInfo *a, const CollCall *c)
{
    Schedule s;
    CvError e = algo_generate(a, c, &s);
    if (e)
        fail_msg("%s: generate: %s", describe(a, c), cv_strerror(e));
    check_sched(&s, describe(a, c));
    sched_fini(&s);
}

/* Steps that move data between ranks. */
static size_t comm_steps(const Schedule *s)
{
    size_t n = 0;
    for (size_t k = 0; k < s->nsteps; k++)
        for (size_t i = 0; i < s->steps[k].n; i++)
            if (s->xfers[s->steps[k].first + i].src !=
                s->xfers[s->steps[k].first + i].dst) {
                n++;
                break;
            }
    return n;
}

static int near(double x, double y)
{
    return fabs(x - y) <= 1e-9 * (fabs(x) + fabs(y)) + 1e-9;
}

/* The schedule's p2p cost equals the closed form, term by term. */
static void check_cost(const AlgoInfo *a, const CollCall *c)
{
    Schedule s;
    assert_int_equal(algo_generate(a, c, &s), CV_OK);
    CostTerms got, want;
    assert_int_equal(model_schedule_cost(&s, MACHINE_FULL, NULL, &got), CV_OK);
    a->cost(c, &want);
    if (!near(got.a, want.a) || !near(got.b, want.b) || !near(got.g, want.g) ||
        !near(got.steps, want.steps))
        fail_msg("%s: schedule a=%g b=%g g=%g steps=%g, closed form a=%g "
                 "b=%g g=%g steps=%g", describe(a, c), got.a, got.b, got.g,
                 got.steps, want.a, want.b, want.g, want.steps);
    if ((double)comm_steps(&s) != got.steps)
        fail_msg("%s: %zu communication steps, model says %g", describe(a, c),
                 comm_steps(&s), got.steps);
    sched_fini(&s);
}

/* -------------------------------------------------------- the registry */

/* sendrecv's shift is nccl-tests' sendrecv (src/sendrecv.cu): one step in
 * which rank r sends its whole send buffer to recv of rank r + 1 (mod p);
 * on one rank a local copy. Its cost by hand: one message of n elements
 * per rank (none on one rank); at the end recv of rank r holds rank r - 1's
 * input, element j at position j. p = 1..64, counts 0, 1, 7, 97. */
static void test_shift_shape(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_default(COLL_SENDRECV);
    assert_string_equal(a->name, "shift");
    const size_t counts[] = {0, 1, 7, 97};
    for (int p = 1; p <= 64; p++)
        for (size_t ci = 0; ci < 4; ci++) {
            size_t n = counts[ci];
            CollCall c = make_call(COLL_SENDRECV, p, n, 0, 0);
            c.dtype = DT_UINT64;
            Schedule s;
            assert_int_equal(algo_generate(a, &c, &s), CV_OK);
            assert_int_equal(s.nsteps, n ? 1 : 0);
            assert_int_equal(s.nxfers, n ? (size_t)p : 0);
            for (size_t x = 0; x < s.nxfers; x++) {
                const Transfer *t = &s.xfers[x];
                assert_int_equal(t->dst, (t->src + 1) % p);
                assert_int_equal(t->src_buf, BUF_SEND);
                assert_int_equal(t->dst_buf, BUF_RECV);
                assert_int_equal(t->src_off + t->dst_off, 0);
                assert_int_equal(t->count, n);
            }
            CostTerms got;
            assert_int_equal(model_schedule_cost(&s, MACHINE_FULL, NULL, &got),
                             CV_OK);
            double msgs = p > 1 && n ? 1 : 0;
            assert_true(got.a == msgs && got.steps == msgs);
            assert_true(got.b == msgs * (double)n * 8 && got.g == 0);
            Sim sim;
            assert_int_equal(sim_init(&sim, &s), CV_OK);
            assert_int_equal(sim_run(&sim), CV_OK);
            for (int r = 0; r < p; r++)
                for (size_t j = 0; j < n; j++) {
                    assert_int_equal(sim_pos(&sim, r, BUF_RECV, j), (int32_t)j);
                    assert_int_equal(sim_nranks_in(&sim, r, BUF_RECV, j), 1);
                    assert_true(sim_has(&sim, r, BUF_RECV, j, (r + p - 1) % p));
                }
            sim_fini(&sim);
            sched_fini(&s);
        }
}

static void test_registry(void **state)
{
    (void)state;
    static const struct { CollKind k; const char *alias, *name; } al[] = {
        {COLL_BROADCAST, "flat", "linear"}, {COLL_REDUCE, "FLAT", "linear"},
        {COLL_SCATTER, "flat", "linear"}, {COLL_GATHER, "flat", "linear"},
        {COLL_ALLREDUCE, "ps", "direct"},
        {COLL_ALLREDUCE, "parameter-server", "direct"},
        {COLL_REDUCESCATTER, "pairwise-exchange", "pairwise"},
        {COLL_ALLTOALL, "pairwise-exchange", "pairwise"},
        {COLL_BROADCAST, "pipeline", "chain"},
        {COLL_BROADCAST, "pipelined-chain", "chain"},
        {COLL_BROADCAST, "vandegeijn", "scatter-allgather"},
        {COLL_BROADCAST, "scag", "scatter-allgather"},
    };
    for (size_t i = 0; i < sizeof al / sizeof *al; i++) {
        const AlgoInfo *a = algo_find(al[i].k, al[i].alias);
        assert_non_null(a);
        assert_string_equal(a->name, al[i].name);
    }
    for (size_t i = 0; i < NENTRIES; i++) {
        const AlgoInfo *a = entry_algo(i);
        assert_true(a->summary[0] && a->formula[0] && a->constraints[0]);
    }
    assert_int_equal(algo_find(COLL_BROADCAST, "chain")->shape, SHAPE_CHAIN);
    assert_int_equal(algo_find(COLL_ALLREDUCE, "ring")->shape, SHAPE_RING);
    assert_int_equal(algo_find(COLL_GATHER, "linear")->shape, SHAPE_STAR);
    assert_int_equal(algo_find(COLL_ALLTOALL, "pairwise")->shape, SHAPE_FULL);
}

/* ------------------------------------------------------------- shapes */

/* Every remote transfer of the ring algorithms goes to the right
 * neighbour, one per rank and step; allreduce takes 2(p-1) steps. */
static void test_ring_shape(void **state)
{
    (void)state;
    static const CollKind kinds[] = {COLL_ALLGATHER, COLL_REDUCESCATTER,
                                     COLL_ALLREDUCE};
    for (size_t ki = 0; ki < 3; ki++)
        for (int p = 2; p <= 9; p++) {
            CollCall c = make_call(kinds[ki], p, 2 * (size_t)p, 0, 0);
            Schedule s;
            assert_int_equal(algo_generate(algo_find(kinds[ki], "ring"), &c, &s), CV_OK);
            size_t want = (size_t)(p - 1) * (kinds[ki] == COLL_ALLREDUCE ? 2 : 1);
            assert_int_equal(comm_steps(&s), want);
            for (size_t x = 0; x < s.nxfers; x++) {
                const Transfer *t = &s.xfers[x];
                if (t->src != t->dst)
                    assert_int_equal(t->dst, (t->src + 1) % p);
            }
            sched_fini(&s);
        }
}

/* Flat algorithms: one step of p - 1 messages at the root (broadcast,
 * scatter, gather); reduce takes one rank per step. */
static void test_linear_shape(void **state)
{
    (void)state;
    static const CollKind one[] = {COLL_BROADCAST, COLL_SCATTER, COLL_GATHER};
    for (int p = 1; p <= 12; p++)
        for (int root = 0; root < p; root++) {
            for (size_t ki = 0; ki < 3; ki++) {
                CollCall c = make_call(one[ki], p, 3, root, root % 2);
                Schedule s;
                assert_int_equal(algo_generate(algo_find(one[ki], "linear"), &c, &s), CV_OK);
                assert_int_equal(comm_steps(&s), p > 1);
                for (size_t x = 0; x < s.nxfers; x++)
                    assert_int_equal(one[ki] == COLL_GATHER ? s.xfers[x].dst
                                                            : s.xfers[x].src, root);
                sched_fini(&s);
            }
            CollCall c = make_call(COLL_REDUCE, p, 3, root, root % 2);
            Schedule s;
            assert_int_equal(algo_generate(algo_find(COLL_REDUCE, "linear"), &c, &s), CV_OK);
            assert_int_equal(comm_steps(&s), p - 1);
            for (size_t x = 0; x < s.nxfers; x++)
                assert_int_equal(s.xfers[x].dst, root);
            sched_fini(&s);
        }
}

/* Pairwise: in step k rank r talks to r + k only (reducescatter: its
 * block goes to r + k; alltoall: block r + k to rank r + k). */
static void test_pairwise_shape(void **state)
{
    (void)state;
    static const CollKind kinds[] = {COLL_REDUCESCATTER, COLL_ALLTOALL};
    for (size_t ki = 0; ki < 2; ki++)
        for (int p = 2; p <= 11; p++)
            for (int ip = 0; ip < 2; ip++) {
                CollCall c = make_call(kinds[ki], p, 2, 0, ip);
                Schedule s;
                assert_int_equal(algo_generate(algo_find(kinds[ki], "pairwise"), &c, &s), CV_OK);
                int k = 0;
                for (size_t st = 0; st < s.nsteps; st++) {
                    const Step *sp = &s.steps[st];
                    if (s.xfers[sp->first].src == s.xfers[sp->first].dst)
                        continue; /* local copy-in or save */
                    k++;
                    assert_int_equal(sp->n, p);
                    for (size_t i = 0; i < sp->n; i++) {
                        const Transfer *t = &s.xfers[sp->first + i];
                        assert_int_equal(t->dst, (t->src + k) % p);
                    }
                }
                assert_int_equal(k, p - 1);
                size_t tmp = sched_bufsize(&s, 0, BUF_TMP);
                size_t want = kinds[ki] == COLL_ALLTOALL && ip
                                  ? (size_t)(p - 1 - p / 2) * 2 : 0;
                assert_int_equal(tmp, want);
                sched_fini(&s);
            }
}

/* Transfers from the root of a chain broadcast = its segments. */
static size_t chain_segs_sent(const Schedule *s)
{
    size_t n = 0;
    for (size_t x = 0; x < s->nxfers; x++)
        n += s->xfers[x].src == s->call.root && s->xfers[x].dst != s->call.root;
    return n;
}

/* Chain: link i carries segment t - i in step t; S = max(p - 1, bytes /
 * 64 KiB) but never more than count, and S + p - 2 steps. */
static void test_chain_shape(void **state)
{
    (void)state;
    static const struct { int p; size_t count, segs; } cases[] = {
        {2, 100, 1},  {8, 5, 5},      {8, 100, 7},     {5, 4, 4},
        {4, 1 << 20, 64},  /* 4 MiB of int32: 64 segments of 64 KiB */
        {4, (1 << 20) + 1, 65},  {64, 1 << 16, 63},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int p = cases[i].p;
        CollCall c = make_call(COLL_BROADCAST, p, cases[i].count, p - 1, 0);
        Schedule s;
        assert_int_equal(algo_generate(algo_find(COLL_BROADCAST, "chain"), &c, &s), CV_OK);
        assert_int_equal(chain_segs_sent(&s), cases[i].segs);
        assert_int_equal(comm_steps(&s), cases[i].segs + (size_t)p - 2);
        for (size_t x = 0; x < s.nxfers; x++) {
            const Transfer *t = &s.xfers[x];
            assert_true(t->src == t->dst || t->dst == (t->src + 1) % p);
            assert_int_equal(t->src_off, t->dst_off);
        }
        sched_fini(&s);
    }
}

/* --segment B: segments of B / es whole elements, so S = ceil(count /
 * (B / es)) whatever p, one at least; S + p - 2 steps, the output right
 * and the closed form the schedule's, over p 2..64 and counts p does not
 * divide. */
static void test_chain_segment(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_BROADCAST, "chain");
    static const size_t counts[] = {1, 7, 100, 1001};
    static const size_t segs_b[] = {4, 12, 400, 4096}; /* int32: 1, 3, 100, 1024 */
    for (int p = 2; p <= 64; p += p < 8 ? 1 : 7)
        for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 4; j++) {
                CollCall c = make_call(COLL_BROADCAST, p, counts[i], p / 2, 0);
                c.segment = segs_b[j];
                size_t el = segs_b[j] / 4, want = (counts[i] + el - 1) / el;
                Schedule s;
                assert_int_equal(algo_generate(a, &c, &s), CV_OK);
                if (chain_segs_sent(&s) != want ||
                    comm_steps(&s) != want + (size_t)p - 2)
                    fail_msg("%s, --segment %zu: %zu segments in %zu steps, "
                             "want %zu in %zu", describe(a, &c), segs_b[j],
                             chain_segs_sent(&s), comm_steps(&s), want,
                             want + (size_t)p - 2);
                check_sched(&s, describe(a, &c));
                sched_fini(&s);
                check_cost(a, &c);
            }
}

/* The segments that minimise (S + p - 2)(a + n b / S), worked by hand.
 * p = 16, 1 KiB, alpha 10 us, beta 1 ns/B: S* = sqrt(14 * 1024 * 1e-9 /
 * 1e-5) = 1.197; S = 1 prices 15 (10 + 1.024) = 165.36 us, S = 2 16 (10 +
 * 0.512) = 168.19. p = 8, 1 MiB of int32 (262144), alpha 1 us, beta 0.1
 * ns/B: S* = sqrt(6 * 1048576 * 1e-4) = 25.08; S = 25 takes segments of
 * ceil(262144 / 25) = 10486 elements (41944 bytes): 262144 = 25 * 10485 +
 * 19, 31 steps, (31 * 10485 + 19 + 6) * 4 = 1300240 bytes, 161.024 us;
 * S = 26: (32 * 10082 + 12 + 6) * 4 = 1290568 bytes, 32 + 129.0568 =
 * 161.0568 us. */
static void test_chain_best_segment(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_BROADCAST, "chain");
    SegmentChoice sc;
    CostTerms t;
    CollCall c = make_call(COLL_BROADCAST, 16, 256, 0, 0);
    ModelParams slow = {10e-6, 1e-9, 0};
    assert_true(a->segments(&c, &slow, &sc));
    assert_int_equal(sc.now, 15); /* the default rule: p - 1 */
    assert_int_equal(sc.best, 1);
    assert_int_equal(sc.best_bytes, 1024);
    c.segment = sc.best_bytes;
    a->cost(&c, &t);
    assert_true(fabs(cost_time(&t, &slow) - 165.36e-6) < 1e-12);
    c = make_call(COLL_BROADCAST, 8, 262144, 0, 0);
    ModelParams fast = {1e-6, 1e-10, 0};
    assert_true(a->segments(&c, &fast, &sc));
    assert_int_equal(sc.now, 16); /* 1 MiB in 64 KiB */
    assert_int_equal(sc.best, 25);
    assert_int_equal(sc.best_bytes, 41944);
    c.segment = sc.best_bytes;
    a->cost(&c, &t);
    assert_true(fabs(cost_time(&t, &fast) - 161.024e-6) < 1e-12);
    assert_true(fabs(t.b - 1300240) < 1e-6 && t.a == 31);
    c.segment = 10083 * 4; /* S = 26 */
    a->cost(&c, &t);
    assert_true(fabs(cost_time(&t, &fast) - 161.0568e-6) < 1e-12);
    /* one rank cuts nothing; the algorithms without segments say none */
    c.nranks = 1;
    assert_false(a->segments(&c, &fast, &sc));
    assert_null(algo_find(COLL_BROADCAST, "binomial")->segments);
}

/* Scatter-allgather: ceil(log2 p) scatter steps (the root sends in each),
 * then p - 1 ring steps to the right neighbour. */
static void test_scag_shape(void **state)
{
    (void)state;
    for (int p = 2; p <= 17; p++) {
        CollCall c = make_call(COLL_BROADCAST, p, 3 * (size_t)p, p / 2, p % 2);
        Schedule s;
        assert_int_equal(algo_generate(algo_find(COLL_BROADCAST, "scag"), &c, &s), CV_OK);
        size_t lg = (size_t)model_log2_ceil(p), k = 0;
        assert_int_equal(comm_steps(&s), lg + (size_t)p - 1);
        for (size_t st = 0; st < s.nsteps; st++) {
            const Step *sp = &s.steps[st];
            if (s.xfers[sp->first].src == s.xfers[sp->first].dst)
                continue;
            int root_sends = 0, ring = 1;
            for (size_t i = 0; i < sp->n; i++) {
                const Transfer *t = &s.xfers[sp->first + i];
                root_sends |= t->src == c.root;
                ring &= t->dst == (t->src + 1) % p;
            }
            assert_true(k < lg ? root_sends : ring);
            k++;
        }
        sched_fini(&s);
    }
}

/* count == 0 schedules move nothing; p == 1 schedules only copy locally. */
static void test_trivial(void **state)
{
    (void)state;
    for (size_t i = 0; i < NENTRIES; i++) {
        const AlgoInfo *a = entry_algo(i);
        for (int ip = 0; ip < 2; ip++) {
            CollCall c = make_call(a->coll, 6, 0, 5, ip);
            Schedule s;
            assert_int_equal(algo_generate(a, &c, &s), CV_OK);
            assert_int_equal(s.nxfers, 0);
            assert_int_equal(s.nsteps, 0);
            sched_fini(&s);
            c = make_call(a->coll, 1, 7, 0, ip);
            assert_int_equal(algo_generate(a, &c, &s), CV_OK);
            assert_int_equal(comm_steps(&s), 0);
            if (ip)
                assert_int_equal(s.nxfers, 0);
            check_sched(&s, describe(a, &c));
            sched_fini(&s);
        }
    }
}

/* ----------------------------------------------------------- emitters */

/* The ring emitters work on any buffer at any offset: an allreduce done
 * in tmp at offset `off`, then copied to recv, is correct. */
static void test_emitters_anywhere(void **state)
{
    (void)state;
    for (int p = 1; p <= 13; p++)
        for (size_t n = 0; n <= 2 * (size_t)p + 1; n += (size_t)p / 2 + 1) {
            CollCall c = make_call(COLL_ALLREDUCE, p, n, 0, 0);
            Schedule s;
            size_t off = 3;
            assert_int_equal(sched_init(&s, &c, "test"), CV_OK);
            sched_tmp_all(&s, off + n);
            sched_step(&s, "in");
            for (int r = 0; r < p; r++)
                sched_copy(&s, r, BUF_SEND, 0, r, BUF_TMP, off, n);
            emit_ring_reducescatter(&s, n, BUF_TMP, off, "reduce-scatter");
            emit_ring_allgather(&s, n, BUF_TMP, off, "all-gather");
            sched_step(&s, "out");
            for (int r = 0; r < p; r++)
                sched_copy(&s, r, BUF_TMP, off, r, BUF_RECV, 0, n);
            assert_int_equal(sched_end(&s), CV_OK);
            assert_int_equal(comm_steps(&s), n ? 2 * (size_t)(p - 1) : 0);
            check_sched(&s, "emitters in tmp");
            sched_fini(&s);
        }
}

/* After emit_ring_reducescatter alone, rank r's block r holds the sum
 * over every rank (checked through the reducescatter definition: the
 * vector of p * count elements has blocks of exactly count). */
static void test_reducescatter_blocks(void **state)
{
    (void)state;
    for (int p = 1; p <= 10; p++) {
        CollCall c = make_call(COLL_REDUCESCATTER, p, 3, 0, 1);
        Schedule s;
        assert_int_equal(sched_init(&s, &c, "test"), CV_OK);
        emit_ring_reducescatter(&s, (size_t)p * 3, BUF_RECV, 0, "rs");
        assert_int_equal(sched_end(&s), CV_OK);
        assert_int_equal(s.nsteps, (size_t)p - 1);
        check_sched(&s, "emit_ring_reducescatter");
        sched_fini(&s);
    }
}

/* -------------------------------------------------------------- sweeps */

/* Every algorithm of the families, p 1..33, counts around p, every kind
 * of root, in place and not. */
static void test_sweep(void **state)
{
    (void)state;
    for (size_t i = 0; i < NENTRIES; i++) {
        const AlgoInfo *a = entry_algo(i);
        for (int p = 1; p <= 33; p++) {
            size_t counts[] = {1, (size_t)p - 1, (size_t)p + 1, 2 * (size_t)p + 3};
            int roots[] = {0, p - 1, p / 2};
            for (size_t ci = 0; ci < 4; ci++)
                for (int ri = 0; ri < (coll_is_rooted(a->coll) ? 3 : 1); ri++)
                    for (int ip = 0; ip < 2; ip++) {
                        CollCall c = make_call(a->coll, p, counts[ci], roots[ri], ip);
                        run_case(a, &c);
                    }
        }
    }
}

/* The closed forms are exact for every p and count (not only powers of
 * two and counts p divides; some only for counts p divides), in place or
 * not, for any root and datatype. */
static void test_cost_exact(void **state)
{
    (void)state;
    for (size_t i = 0; i < NENTRIES; i++) {
        const AlgoInfo *a = entry_algo(i);
        for (int p = 1; p <= 64; p++) {
            size_t q = (size_t)p;
            size_t any[] = {0, 1, q - 1, q, q + 1, 3 * q + 2, 97};
            size_t div[] = {0, q, 2 * q, 3 * q, 5 * q, 16 * q, 97 * q};
            const size_t *counts = entries[i].exact == 1 ? any : div;
            for (size_t ci = 0; ci < 7; ci++)
                for (int ip = 0; ip < 2; ip++) {
                    CollCall c = make_call(a->coll, p, counts[ci], p / 3, ip);
                    c.dtype = (DataType)((ci + (size_t)p) % DT_COUNT);
                    check_cost(a, &c);
                }
        }
    }
}

/* Large vectors: the allreduce, allgather and chain closed forms hold at
 * sizes where blocks and segments are long. */
static void test_cost_large(void **state)
{
    (void)state;
    static const struct { CollKind k; const char *name; } big[] = {
        {COLL_ALLREDUCE, "ring"}, {COLL_BROADCAST, "chain"},
        {COLL_BROADCAST, "linear"}, {COLL_ALLREDUCE, "direct"},
    };
    for (size_t i = 0; i < sizeof big / sizeof *big; i++)
        for (int p = 2; p <= 24; p += 7) {
            CollCall c = make_call(big[i].k, p, (3u << 16) + (size_t)p + 5, 1, 0);
            c.dtype = DT_DOUBLE;
            check_cost(algo_find(big[i].k, big[i].name), &c);
        }
}

/* The schedules meet the textbook numbers for a power of two. */
static void test_textbook(void **state)
{
    (void)state;
    CollCall c = make_call(COLL_ALLREDUCE, 8, 64, 0, 0); /* n = 256 B */
    CostTerms t;
    algo_find(COLL_ALLREDUCE, "ring")->cost(&c, &t);
    assert_true(near(t.a, 14) && near(t.b, 2 * 7 * 256 / 8.0) && near(t.g, 7 * 256 / 8.0));
    algo_find(COLL_ALLREDUCE, "direct")->cost(&c, &t);
    assert_true(near(t.a, 14) && near(t.b, 14 * 256) && near(t.g, 7 * 256));
    c.kind = COLL_ALLTOALL; /* n = 8 * 64 * 4 */
    algo_find(COLL_ALLTOALL, "pairwise")->cost(&c, &t);
    assert_true(near(t.a, 7) && near(t.b, 7 * 2048 / 8.0) && near(t.g, 0));
}

/* Nothing beats the lower bound. */
static void test_lower_bound(void **state)
{
    (void)state;
    for (size_t i = 0; i < NENTRIES; i++) {
        const AlgoInfo *a = entry_algo(i);
        for (int p = 1; p <= 64; p++) {
            CollCall c = make_call(a->coll, p, 2 * (size_t)p + 1, 0, 0);
            CostTerms got, lb;
            a->cost(&c, &got);
            model_lower_bound(&c, &lb);
            if (got.a < lb.a || got.b < lb.b * (1 - 1e-12) || got.g < lb.g * (1 - 1e-12))
                fail_msg("%s: below the lower bound", describe(a, &c));
        }
    }
}

/* Large p in place (the registry sweep runs p = 1000 out of place), with
 * counts p does not divide: every algorithm executed at p = 257 (the
 * symbolic state of the block collectives grows as p^3), and its closed
 * form checked at p = 1000. */
static void test_large_p(void **state)
{
    (void)state;
    for (size_t i = 0; i < NENTRIES; i++) {
        const AlgoInfo *a = entry_algo(i);
        int vec = a->coll == COLL_ALLREDUCE || a->coll == COLL_BROADCAST ||
                  a->coll == COLL_REDUCE;
        int rooted = coll_is_rooted(a->coll);
        CollCall c = make_call(a->coll, 257, vec ? 1000 : 3, 200 * rooted, 1);
        run_case(a, &c);
        c = make_call(a->coll, 1000, vec ? 1003 : 1, 999 * rooted, 1);
        if (entries[i].exact == 2)
            c.count = 3000; /* a count 1000 divides */
        check_cost(a, &c);
    }
}

/* An optional argument runs only the tests matching it (e.g. "*sweep"). */
int main(int argc, char **argv)
{
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_shift_shape),
        cmocka_unit_test(test_ring_shape),
        cmocka_unit_test(test_linear_shape),
        cmocka_unit_test(test_pairwise_shape),
        cmocka_unit_test(test_chain_shape),
        cmocka_unit_test(test_chain_segment),
        cmocka_unit_test(test_chain_best_segment),
        cmocka_unit_test(test_scag_shape),
        cmocka_unit_test(test_trivial),
        cmocka_unit_test(test_emitters_anywhere),
        cmocka_unit_test(test_reducescatter_blocks),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_cost_exact),
        cmocka_unit_test(test_cost_large),
        cmocka_unit_test(test_textbook),
        cmocka_unit_test(test_lower_bound),
        cmocka_unit_test(test_large_p),
    };
    return cmocka_run_group_tests_name("algos_lr", tests, NULL, NULL);
}
