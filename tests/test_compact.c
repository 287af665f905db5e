/* test_compact.c - compact schedules (one shape repeated, sched_repeat):
 * written out they are, step for step, what each generator writes out
 * itself; priced they cost what the written-out schedule costs on every
 * kind of machine; at cluster scale they stay small and cost what the
 * definition says; and what cannot take them refuses them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "core/model.h"
#include "core/sim.h"

static const char *describe(const AlgoInfo *a, const CollCall *c)
{
    static char buf[160];
    snprintf(buf, sizeof buf, "%s/%s p=%d count=%zu root=%d %s",
             coll_name(a->coll), a->name, c->nranks, c->count, c->root,
             c->in_place ? "in-place" : "out-of-place");
    return buf;
}

static int xfer_cmp(const void *a, const void *b)
{
    const Transfer *x = a, *y = b;
    int64_t k[2][8] = {
        {x->src, x->dst, x->src_buf, x->dst_buf, x->op, x->flags,
         (int64_t)x->src_off, (int64_t)x->dst_off},
        {y->src, y->dst, y->src_buf, y->dst_buf, y->op, y->flags,
         (int64_t)y->src_off, (int64_t)y->dst_off}};
    for (int i = 0; i < 8; i++)
        if (k[0][i] != k[1][i])
            return k[0][i] < k[1][i] ? -1 : 1;
    return (x->count > y->count) - (x->count < y->count);
}

/* Step k of a and of b hold the same transfers (in any order). */
static void same_step(const Schedule *a, const Schedule *b, size_t k,
                      const char *what)
{
    const Step *x = &a->steps[k], *y = &b->steps[k];
    if (x->n != y->n || strcmp(x->phase, y->phase) != 0)
        fail_msg("%s: step %zu: %zu transfers (%s) written out, %zu (%s) "
                 "from the compact form", what, k, y->n, y->phase, x->n,
                 x->phase);
    Transfer *p = malloc(x->n * sizeof *p), *q = malloc(x->n * sizeof *q);
    assert_true(x->n == 0 || (p && q));
    memcpy(p, a->xfers + x->first, x->n * sizeof *p);
    memcpy(q, b->xfers + y->first, x->n * sizeof *q);
    qsort(p, x->n, sizeof *p, xfer_cmp);
    qsort(q, x->n, sizeof *q, xfer_cmp);
    for (size_t i = 0; i < x->n; i++)
        if (xfer_cmp(&p[i], &q[i]) != 0)
            fail_msg("%s: step %zu: transfer %d>%d of the compact form is "
                     "not the written-out one's %d>%d", what, k, p[i].src,
                     p[i].dst, q[i].src, q[i].dst);
    free(p);
    free(q);
}

/* The compact form of every algorithm, written out, is its written-out
 * form, and the model prices both alike, on machines that rotation maps
 * onto itself (one price per entry) and on those it does not (each
 * repetition priced). */
static void check_case(const AlgoInfo *a, const CollCall *c,
                       const Machine *const *machines, int nm)
{
    const char *what = describe(a, c);
    Schedule full, comp, out;
    CvError e1 = algo_generate_as(a, c, NULL, 0, &full, NULL, 0);
    CvError e2 = algo_generate_as(a, c, NULL, ALGO_COMPACT, &comp, NULL, 0);
    if (e1 != e2)
        fail_msg("%s: written out %s, compact %s", what, cv_strerror(e1),
                 cv_strerror(e2));
    if (e1)
        return;
    assert_true(comp.compact);
    assert_int_equal(sched_expand(&comp, &out), CV_OK);
    assert_true(sched_written_out(&out));
    if (out.nsteps != full.nsteps || sched_nsteps(&comp) != full.nsteps)
        fail_msg("%s: %zu steps written out, %zu from the compact form", what,
                 full.nsteps, out.nsteps);
    assert_true(comp.nxfers <= full.nxfers);
    assert_int_equal(out.nxfers, full.nxfers);
    for (int r = 0; r < c->nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++)
            assert_int_equal(sched_bufsize(&out, r, (BufId)b),
                             sched_bufsize(&full, r, (BufId)b));
    for (size_t k = 0; k < full.nsteps; k++)
        same_step(&out, &full, k, what);
    /* the statistics: a compact schedule's are its written-out steps' */
    size_t np = (size_t)c->nranks;
    size_t *v = calloc(4 * np, sizeof *v);
    assert_non_null(v);
    SchedTotals tot_f, tot_c;
    assert_int_equal(sched_totals(&full, &tot_f, v, v + np), CV_OK);
    assert_int_equal(sched_totals(&comp, &tot_c, v + 2 * np, v + 3 * np), CV_OK);
    assert_memory_equal(&tot_f, &tot_c, sizeof tot_f);
    assert_memory_equal(v, v + 2 * np, 2 * np * sizeof *v);
    free(v);
    for (int i = 0; i < nm; i++) {
        if (machines[i]->nranks != c->nranks)
            continue;
        CostTerms tf, tc;
        double sf, sc;
        assert_int_equal(model_machine_cost(&full, machines[i], false, &tf, &sf),
                         CV_OK);
        assert_int_equal(model_machine_cost(&comp, machines[i], false, &tc, &sc),
                         CV_OK);
        if (machines[i]->kind == MACHINE_FULL) {
            /* the one switch is priced without routing; its twin dealt
               cyclically (the same places on one dimension) takes the
               general route and must agree */
            Machine twin = *machines[i];
            twin.cyclic = true;
            CostTerms tt;
            double st;
            assert_int_equal(model_machine_cost(&full, &twin, false, &tt, &st),
                             CV_OK);
            if (st != sf || tt.a != tf.a || tt.b != tf.b || tt.g != tf.g)
                fail_msg("%s: the full machine %.9g s, routed %.9g s", what,
                         sf, st);
        }
        double tol = 1e-9 * (fabs(sf) + 1e-12);
        if (fabs(sf - sc) > tol || fabs(tf.a - tc.a) > 1e-6 ||
            fabs(tf.b - tc.b) > 1e-6 * (tf.b + 1) ||
            fabs(tf.g - tc.g) > 1e-6 * (tf.g + 1) || tf.steps != tc.steps)
            fail_msg("%s on %s: written out %.9g s (%g a, %g b, %g g, %g "
                     "steps), compact %.9g s (%g a, %g b, %g g, %g steps)",
                     what, machine_kind_name(machines[i]->kind), sf, tf.a,
                     tf.b, tf.g, tf.steps, sc, tc.a, tc.b, tc.g, tc.steps);
    }
    sched_fini(&out);
    sched_fini(&comp);
    sched_fini(&full);
}

static void test_written_out_and_priced_alike(void **state)
{
    (void)state;
    static const int ps[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 24,
                             31, 32, 33, 48, 63, 64};
    for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++) {
        int p = ps[pi];
        Machine full, bus, ring, mesh, torus;
        assert_int_equal(machine_full(&full, p, 1e-6, 1e-10, 2e-10), CV_OK);
        assert_int_equal(machine_bus(&bus, p, 1e-6, 1e-10, 2e-10), CV_OK);
        assert_int_equal(machine_grid(&ring, MACHINE_RING, 1, &p, false, 1e-6,
                                      3e-10, 2e-10), CV_OK);
        assert_int_equal(machine_grid(&mesh, MACHINE_MESH, 1, &p, false, 1e-6,
                                      3e-10, 2e-10), CV_OK);
        int dims[2] = {p % 4 == 0 ? 4 : 1, p % 4 == 0 ? p / 4 : p};
        assert_int_equal(machine_grid(&torus, MACHINE_TORUS, 2, dims, false,
                                      1e-6, 3e-10, 2e-10), CV_OK);
        ring.cls[0].lat = 5e-7; /* hop latencies: the non-uniform pricing */
        const Machine *ms[] = {&full, &bus, &ring, &mesh, &torus};
        assert_true(machine_shift_invariant(&full));
        assert_true(machine_shift_invariant(&bus));
        assert_true(machine_shift_invariant(&ring));
        assert_false(p > 2 && machine_shift_invariant(&mesh));
        assert_false(p % 4 == 0 && p > 4 && machine_shift_invariant(&torus));
        size_t counts[] = {1, 7, (size_t)p * 3 + 1, 100};
        for (size_t i = 0; i < algo_count(); i++) {
            const AlgoInfo *a = algo_at(i);
            for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
                for (int ip = 0; ip < 2; ip++) {
                    CollCall c = {.kind = a->coll, .nranks = p,
                                  .count = counts[ci], .dtype = DT_FLOAT,
                                  .op = OP_SUM,
                                  .root = coll_is_rooted(a->coll) ? p / 2 : 0,
                                  .in_place = ip};
                    if (coll_check(&c) || !algo_fits(a, &c, NULL, NULL, 0))
                        continue;
                    check_case(a, &c, ms, 5);
                }
        }
    }
}

/* The ring algorithms are the ones that repeat a shape: their compact
 * form holds one entry per phase, whatever p. */
static void test_ring_is_one_entry_per_phase(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_ALLREDUCE, "ring");
    for (int p = 2; p <= 64; p++) {
        CollCall c = {.kind = COLL_ALLREDUCE, .nranks = p, .count = 1000,
                      .dtype = DT_FLOAT, .op = OP_SUM, .in_place = true};
        Schedule s;
        assert_int_equal(algo_generate_as(a, &c, NULL, ALGO_COMPACT, &s, NULL, 0),
                         CV_OK);
        assert_int_equal(s.nsteps, 2); /* reduce-scatter, all-gather */
        assert_int_equal(s.steps[0].reps, (size_t)p - 1);
        assert_int_equal(s.steps[1].reps, (size_t)p - 1);
        assert_int_equal(s.steps[0].shift, p > 2); /* 1 step: no repeat */
        assert_int_equal(s.nxfers, 2 * (size_t)p);
        assert_int_equal(sched_nsteps(&s), 2 * ((size_t)p - 1));
        assert_int_equal(sched_written_out(&s), p == 2);
        sched_fini(&s);
    }
}

/* Ring allreduce on 16384 ranks, by hand: 2(p - 1) steps, in each every
 * rank sends one block of the p blocks of n elements (the first n mod p
 * are ceil(n / p) long) to its right neighbour, so on the full machine a
 * step costs alpha + ceil(n / p) 4 beta; the p - 1 reduce-scatter steps
 * also reduce a block at every rank: ceil(n / p) 4 gamma. */
static void test_ring_16384_by_hand(void **state)
{
    (void)state;
    int p = 16384;
    size_t n = (size_t)p * 3 + 5, blk = 4; /* ceil(n / p) elements */
    const AlgoInfo *a = algo_find(COLL_ALLREDUCE, "ring");
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = p, .count = n,
                  .dtype = DT_FLOAT, .op = OP_SUM, .in_place = true};
    Machine m;
    double alpha = 2e-6, beta = 1e-10, gamma = 3e-10;
    assert_int_equal(machine_full(&m, p, alpha, beta, gamma), CV_OK);
    Schedule s;
    assert_int_equal(algo_generate_as(a, &c, &m, ALGO_COMPACT, &s, NULL, 0),
                     CV_OK);
    assert_true(s.nxfers <= 2 * (size_t)p);
    CostTerms t;
    double sec;
    assert_int_equal(model_machine_cost(&s, &m, false, &t, &sec), CV_OK);
    double steps = 2.0 * (p - 1);
    assert_true(t.steps == steps);
    assert_true(t.a == steps);
    assert_true(t.b == steps * blk * 4);
    assert_true(t.g == (p - 1.0) * blk * 4);
    double want = steps * (alpha + blk * 4 * beta) + (p - 1.0) * blk * 4 * gamma;
    assert_true(fabs(sec - want) <= 1e-9 * want);
    /* out of place: one more step, a free local copy of the input */
    c.in_place = false;
    sched_fini(&s);
    assert_int_equal(algo_generate_as(a, &c, &m, ALGO_COMPACT, &s, NULL, 0),
                     CV_OK);
    assert_int_equal(sched_nsteps(&s), 2 * (size_t)(p - 1) + 1);
    assert_int_equal(model_machine_cost(&s, &m, false, &t, &sec), CV_OK);
    assert_true(fabs(sec - want) <= 1e-9 * want);
    sched_fini(&s);
}

/* The chain broadcast on 16384 ranks of 1500 elements, by hand: 1500
 * segments of one element (fewer segments than links: one each), entering
 * at the root one a step and moving one link a step, so the last leaves
 * the root in step S - 1 and reaches the last rank p - 2 steps later:
 * S + p - 2 steps; on the full machine each costs alpha + 4 beta (every
 * rank sends at most one segment and receives at most one). Steps S to
 * p - 2 are one shape rotated: the compact schedule holds at most
 * S^2 + 2S transfers, not S (p - 1). In place and not (the root's copies
 * are local and free). */
static void test_chain_16384_by_hand(void **state)
{
    (void)state;
    int p = 16384;
    size_t n = 1500;
    const AlgoInfo *a = algo_find(COLL_BROADCAST, "chain");
    Machine m;
    double alpha = 2e-6, beta = 1e-10;
    assert_int_equal(machine_full(&m, p, alpha, beta, 3e-10), CV_OK);
    for (int ip = 0; ip < 2; ip++) {
        CollCall c = {.kind = COLL_BROADCAST, .nranks = p, .count = n,
                      .dtype = DT_FLOAT, .op = OP_SUM, .root = 5, .in_place = ip};
        Schedule s;
        assert_int_equal(algo_generate_as(a, &c, &m, ALGO_COMPACT, &s, NULL, 0),
                         CV_OK);
        assert_true(s.nxfers <= n * n + 2 * n);
        CostTerms t;
        double sec, steps = (double)n + p - 2;
        assert_int_equal(model_machine_cost(&s, &m, false, &t, &sec), CV_OK);
        assert_true(t.steps == steps);
        assert_true(t.a == steps);
        assert_true(t.b == steps * 4);
        double want = steps * (alpha + 4 * beta);
        assert_true(fabs(sec - want) <= 1e-9 * want);
        sched_fini(&s);
    }
}

/* A compact schedule holds at most SCHED_COMPACT_MAX_XFERS transfers:
 * the chain broadcast's pipeline of p - 1 segments on 4096 ranks moves
 * each segment over each link in a step of its own, (p - 1)^2 transfers,
 * more than that; on 1024 ranks it fits. */
static void test_too_many_transfers(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_BROADCAST, "chain");
    CollCall c = {.kind = COLL_BROADCAST, .nranks = 4096, .count = 4096,
                  .dtype = DT_FLOAT, .op = OP_SUM, .in_place = true};
    Schedule s;
    assert_true((size_t)4095 * 4095 > SCHED_COMPACT_MAX_XFERS);
    assert_int_equal(algo_generate_as(a, &c, NULL, ALGO_COMPACT, &s, NULL, 0),
                     CV_ERR_LIMIT);
    sched_fini(&s);
    c.nranks = 1024, c.count = 1024;
    assert_int_equal(algo_generate_as(a, &c, NULL, ALGO_COMPACT, &s, NULL, 0),
                     CV_OK);
    assert_int_equal(s.nxfers, (size_t)1023 * 1023);
    sched_fini(&s);
}

/* Pricing a compact ring on a machine that rotation does not map onto
 * itself, each of its 2(p - 1) steps of p transfers written out, would be
 * on a torus of 16384 ranks 2 16383 16384 of them, each with its route,
 * more than MODEL_MAX_PRICE_WORK (model_price_work); but every message of
 * every step is alone on its links, so pricer_price_work counts a few
 * operations a repetition (model_lines.c) and the torus prices it, as the
 * full machine does with one entry per phase: each step alpha + 16 beta
 * (blocks of 4 floats), the reduce-scatter's 16 gamma more. */
static void test_price_work(void **state)
{
    (void)state;
    int p = 16384, dims[2] = {128, 128};
    const AlgoInfo *a = algo_find(COLL_ALLREDUCE, "ring");
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = p, .count = 4 * (size_t)p,
                  .dtype = DT_FLOAT, .op = OP_SUM, .in_place = true};
    Machine torus, full;
    assert_int_equal(machine_grid(&torus, MACHINE_TORUS, 2, dims, false, 1e-6,
                                  1e-10, 1e-10), CV_OK);
    assert_int_equal(machine_full(&full, p, 1e-6, 1e-10, 1e-10), CV_OK);
    Schedule s;
    assert_int_equal(algo_generate_as(a, &c, &torus, ALGO_COMPACT, &s, NULL, 0),
                     CV_OK);
    /* on the torus each transfer crosses 1 link (a row's neighbour) or 2
       (a row's end to the next row's start: the x wrap and a y link): a
       transfer and its hops weigh 2 or 3; on the full machine every one
       crosses 2 (up to the switch, down), so one entry per phase weighs
       2 p (1 + 2) */
    double w = model_price_work(&s, &torus), n = 2.0 * (p - 1) * p;
    assert_true(w >= 2 * n && w <= 3 * n && w > MODEL_MAX_PRICE_WORK);
    assert_true(model_price_work(&s, &full) == 2.0 * p * 3);
    Pricer pr;
    assert_int_equal(pricer_init(&pr, &torus), CV_OK);
    assert_true(pricer_price_work(&pr, &s) < 16.0 * p);
    pricer_fini(&pr);
    CostTerms t;
    double sec, want = 2.0 * (p - 1) * (1e-6 + 16e-10) + (p - 1.0) * 16e-10;
    assert_int_equal(model_machine_cost(&s, &torus, false, &t, &sec), CV_OK);
    assert_true(fabs(sec - want) <= 1e-12 * want);
    assert_int_equal(model_machine_cost(&s, &full, false, &t, &sec), CV_OK);
    assert_true(fabs(sec - want) <= 1e-12 * want);
    sched_fini(&s);
}

/* The one-step allgather on 16384 ranks, spread: rank 0's p transfers
 * listed, and by hand on the full machine every rank's port carries p - 1
 * messages of a block each way: (p - 1) alpha + (p - 1) 4 count beta. */
static void test_spread_by_hand(void **state)
{
    (void)state;
    int p = 16384;
    size_t count = 3;
    const AlgoInfo *a = algo_find(COLL_ALLGATHER, "linear");
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = p, .count = count,
                  .dtype = DT_FLOAT, .op = OP_SUM};
    Machine m;
    double alpha = 1e-6, beta = 1e-10;
    assert_int_equal(machine_full(&m, p, alpha, beta, 1e-10), CV_OK);
    Schedule s;
    assert_int_equal(algo_generate_as(a, &c, &m, ALGO_COMPACT, &s, NULL, 0),
                     CV_OK);
    assert_int_equal(s.nsteps, 1);
    assert_true(s.steps[0].spread);
    assert_int_equal(s.nxfers, (size_t)p); /* its own block a local copy */
    assert_int_equal(sched_entry_n(&s, 0), (size_t)p * (size_t)p);
    CostTerms t;
    double sec;
    assert_int_equal(model_machine_cost(&s, &m, false, &t, &sec), CV_OK);
    assert_true(t.a == p - 1.0);
    assert_true(t.b == (p - 1.0) * 4 * count);
    double want = (p - 1.0) * (alpha + 4 * count * beta);
    assert_true(fabs(sec - want) <= 1e-9 * want);
    SchedTotals to;
    assert_int_equal(sched_totals(&s, &to, NULL, NULL), CV_OK);
    assert_int_equal(to.max_sent, (size_t)(p - 1) * 4 * count);
    assert_int_equal(to.xfers, (size_t)p * (size_t)p);
    sched_fini(&s);
}

/* Generating into a schedule made before (ALGO_REUSE) gives what a fresh
 * one gets, whatever was there: other ranks, other algorithms. */
static void test_reuse(void **state)
{
    (void)state;
    Schedule r = {0};
    static const int ps[] = {8, 3, 64, 64, 1, 17};
    for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++)
        for (size_t i = 0; i < algo_count(); i++) {
            const AlgoInfo *a = algo_at(i);
            CollCall c = {.kind = a->coll, .nranks = ps[pi], .count = 33,
                          .dtype = DT_INT32, .op = OP_SUM};
            if (coll_check(&c) || !algo_fits(a, &c, NULL, NULL, 0))
                continue;
            Schedule f;
            CvError e1 = algo_generate(a, &c, &f);
            CvError e2 = algo_generate_as(a, &c, NULL, ALGO_REUSE, &r, NULL, 0);
            assert_int_equal(e1, e2);
            if (e1)
                continue;
            assert_int_equal(r.nsteps, f.nsteps);
            assert_int_equal(r.nxfers, f.nxfers);
            for (size_t x = 0; x < f.nxfers; x++)
                assert_int_equal(xfer_cmp(&r.xfers[x], &f.xfers[x]), 0);
            assert_memory_equal(r.bufsize, f.bufsize,
                                (size_t)c.nranks * BUF_COUNT * sizeof *f.bufsize);
            sched_fini(&f);
        }
    sched_fini(&r);
}

/* The validator and the Sim take schedules written out, and refuse a
 * compact one rather than run one step of each repeated entry. */
static void test_refused_where_not_taken(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_ALLGATHER, "ring");
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 4, .count = 5,
                  .dtype = DT_FLOAT, .op = OP_SUM};
    Schedule s, w;
    assert_int_equal(algo_generate_as(a, &c, NULL, ALGO_COMPACT, &s, NULL, 0),
                     CV_OK);
    SchedCheck chk;
    assert_int_equal(sched_validate(&s, &chk, NULL), CV_ERR_ARG);
    Sim sim;
    assert_int_equal(sim_init(&sim, &s), CV_ERR_ARG);
    sim_fini(&sim);
    assert_int_equal(sched_expand(&s, &w), CV_OK);
    assert_int_equal(sched_validate(&w, &chk, NULL), CV_OK);
    assert_int_equal(sim_init(&sim, &w), CV_OK);
    assert_int_equal(sim_run(&sim), CV_OK);
    int br;
    size_t be, nw;
    assert_int_equal(sim_check(&sim, &br, &be, &nw), CV_OK);
    sim_fini(&sim);
    sched_fini(&w);
    sched_fini(&s);
}

/* sched_add_rotations against its definition, summed term by term. */
static void test_add_rotations(void **state)
{
    (void)state;
    unsigned seed = 12345;
    for (int p = 1; p <= 40; p++)
        for (int shift = -p - 1; shift <= p + 1; shift++)
            for (size_t reps = 0; reps <= 3 * (size_t)p + 1; reps += 1 + reps / 4) {
                size_t in[40], got[40], want[40];
                for (int q = 0; q < p; q++) {
                    seed = seed * 1103515245u + 12345u;
                    in[q] = seed >> 20;
                    got[q] = want[q] = q; /* it adds */
                }
                for (int q = 0; q < p; q++)
                    for (size_t j = 0; j < reps; j++) {
                        long long from = ((long long)q - (long long)j * shift) % p;
                        want[q] += in[from < 0 ? from + p : from];
                    }
                assert_int_equal(sched_add_rotations(in, p, reps, shift, got),
                                 CV_OK);
                for (int q = 0; q < p; q++)
                    if (got[q] != want[q])
                        fail_msg("p %d shift %d reps %zu: rank %d got %zu, "
                                 "want %zu", p, shift, reps, q, got[q], want[q]);
            }
}

/* sched_repeat written out: the j-th copy moves every rank j * shift
 * along, mod p, with negative shifts too. */
static void test_repeat_written_out(void **state)
{
    (void)state;
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 5, .count = 4,
                  .dtype = DT_FLOAT, .op = OP_SUM};
    for (int shift = -7; shift <= 7; shift++) {
        Schedule s;
        assert_int_equal(sched_init(&s, &c, "test"), CV_OK);
        sched_step(&s, "x");
        sched_copy(&s, 0, BUF_RECV, 0, 3, BUF_RECV, 4, 2);
        sched_repeat(&s, 4, shift);
        assert_int_equal(sched_end(&s), CV_OK);
        assert_int_equal(s.nsteps, 4);
        for (int j = 0; j < 4; j++) {
            const Transfer *t = &s.xfers[s.steps[j].first];
            int d = ((j * shift) % 5 + 5) % 5;
            assert_int_equal(t->src, d);
            assert_int_equal(t->dst, (3 + d) % 5);
            assert_int_equal(t->src_off, 0);
            assert_int_equal(t->dst_off, 4);
            assert_int_equal(t->count, 2);
        }
        sched_fini(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repeat_written_out),
        cmocka_unit_test(test_add_rotations),
        cmocka_unit_test(test_ring_is_one_entry_per_phase),
        cmocka_unit_test(test_ring_16384_by_hand),
        cmocka_unit_test(test_chain_16384_by_hand),
        cmocka_unit_test(test_too_many_transfers),
        cmocka_unit_test(test_spread_by_hand),
        cmocka_unit_test(test_price_work),
        cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_refused_where_not_taken),
        cmocka_unit_test(test_written_out_and_priced_alike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
