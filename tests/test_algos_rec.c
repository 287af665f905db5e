/* test_algos_rec.c - the recursive family (src/algos/recursive.c): the
 * shared halving and doubling emitters on their own, the shape of every
 * schedule (partners, step counts, folds), closed forms equal to the
 * schedule's cost for every p and count, and p = 1000. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "algos/common.h"
#include "core/sim.h"

/* The family's entries, by collective and name. */
typedef struct {
    CollKind coll;    /* collective */
    const char *name; /* canonical name */
    const char *alias; /* one alias that must find it */
    bool staged;      /* some step reads what it also writes */
} Entry;

static const Entry entries[] = {
    {COLL_REDUCE, "rabenseifner", "rsg", false},
    {COLL_ALLGATHER, "recursive-doubling", "rd", false},
    {COLL_ALLGATHER, "bruck", "BRUCK", false},
    {COLL_REDUCESCATTER, "recursive-halving", "rh", false},
    {COLL_ALLREDUCE, "butterfly", "recursive-doubling", true},
    {COLL_ALLREDUCE, "halving-doubling", "rabenseifner", false},
    {COLL_ALLTOALL, "bruck", "bruck", true},
};
#define NENTRIES (sizeof entries / sizeof entries[0])

static const AlgoInfo *entry_algo(size_t i)
{
    const AlgoInfo *a = algo_find(entries[i].coll, entries[i].name);
    assert_non_null(a);
    return a;
}

static CollCall mkcall(CollKind k, int p, size_t count, int root, bool ip)
{
    return (CollCall){.kind = k, .nranks = p, .count = count,
                      .dtype = DT_INT32, .op = OP_SUM, .root = root,
                      .in_place = ip};
}

/* Execute s symbolically; every failure names the call. Returns the
 * number of staged transfers the validator found. */
static size_t run_sched(const Schedule *s, bool check_final)
{
    const CollCall *c = &s->call;
    SchedCheck chk;
    CvError e = sched_validate(s, &chk, NULL);
    if (e)
        fail_msg("%s/%s p=%d count=%zu ip=%d: invalid: %s (step %zu)",
                 coll_name(c->kind), s->algo, c->nranks, c->count,
                 c->in_place, cv_strerror(e), chk.step);
    Sim sim;
    assert_int_equal(sim_init(&sim, s), CV_OK);
    e = sim_run(&sim);
    if (!e && check_final)
        e = sim_check(&sim, NULL, NULL, NULL);
    if (e)
        fail_msg("%s/%s p=%d count=%zu root=%d ip=%d: %s", coll_name(c->kind),
                 s->algo, c->nranks, c->count, c->root, c->in_place,
                 cv_strerror(e));
    sim_fini(&sim);
    return chk.overlaps;
}

/* The closed form of a for c must equal the cost of schedule s. */
static void check_cost(const AlgoInfo *a, const CollCall *c, const Schedule *s)
{
    CostTerms got, want;
    assert_int_equal(model_schedule_cost(s, MACHINE_FULL, NULL, &got), CV_OK);
    a->cost(c, &want);
    if (got.a != want.a || got.b != want.b || got.g != want.g ||
        got.steps != want.steps)
        fail_msg("%s/%s p=%d count=%zu ip=%d: cost a=%g b=%g g=%g s=%g, "
                 "closed form a=%g b=%g g=%g s=%g", coll_name(c->kind),
                 a->name, c->nranks, c->count, c->in_place, got.a, got.b,
                 got.g, got.steps, want.a, want.b, want.g, want.steps);
}

/* Generate a's schedule for c, check its cost and (when run) its final
 * state; returns the staged transfers. */
static size_t check_algo(const AlgoInfo *a, const CollCall *c, bool run)
{
    Schedule s;
    assert_int_equal(algo_generate(a, c, &s), CV_OK);
    size_t staged = run ? run_sched(&s, true) : 0;
    check_cost(a, c, &s);
    sched_fini(&s);
    return staged;
}

/* -------------------------------------------------------------- emitters */

/* emit_halving_reducescatter alone on an allreduce call (in place, so the
 * vector is recv on every rank): rank r ends with block r of the p blocks
 * reduced over all ranks, for any p and n. */
static void test_halving_emitter(void **state)
{
    (void)state;
    for (int p = 1; p <= 40; p++) {
        size_t ns[] = {0, 1, (size_t)p - 1, (size_t)p + 1, 2 * (size_t)p + 3};
        for (size_t ni = 0; ni < 5; ni++) {
            size_t n = ns[ni];
            CollCall c = mkcall(COLL_ALLREDUCE, p, n, 0, true);
            Schedule s;
            assert_int_equal(sched_init(&s, &c, "halving"), CV_OK);
            emit_halving_reducescatter(&s, n, BUF_RECV, 0, "rs");
            assert_int_equal(sched_end(&s), CV_OK);
            assert_int_equal(run_sched(&s, false), 0);
            Sim sim;
            assert_int_equal(sim_init(&sim, &s), CV_OK);
            assert_int_equal(sim_run(&sim), CV_OK);
            for (int r = 0; r < p; r++)
                for (size_t j = blk_off(n, p, r); j < blk_off(n, p, r + 1); j++) {
                    assert_int_equal(sim_pos(&sim, r, BUF_RECV, j), (int32_t)j);
                    assert_int_equal(sim_nranks_in(&sim, r, BUF_RECV, j), p);
                }
            sim_fini(&sim);
            sched_fini(&s);
        }
    }
}

/* emit_doubling_allgather alone on an in-place allgather call whose count
 * is 1: blocks of the vector are then the call's blocks, and the final
 * state must be the allgather's definition. MPICH's passing on gives
 * every rank each other block once: p - 1 elements received, and a power
 * of two takes log2 p steps, another p at least ceil(log2 p). */
static void test_doubling_emitter(void **state)
{
    (void)state;
    for (int p = 1; p <= 70; p++) {
        CollCall c = mkcall(COLL_ALLGATHER, p, 1, 0, true);
        Schedule s;
        assert_int_equal(sched_init(&s, &c, "doubling"), CV_OK);
        emit_doubling_allgather(&s, (size_t)p, BUF_RECV, 0, "ag");
        assert_int_equal(sched_end(&s), CV_OK);
        assert_int_equal(run_sched(&s, true), 0);
        if (pow2_floor(p) == p)
            assert_int_equal(s.nsteps, (size_t)log2_floor(p));
        else
            assert_true(s.nsteps >= (size_t)model_log2_ceil(p));
        for (int r = 0; r < p; r++) {
            size_t got = 0;
            for (size_t i = 0; i < s.nxfers; i++)
                got += s.xfers[i].dst == r ? s.xfers[i].count : 0;
            assert_int_equal(got, (size_t)p - 1);
        }
        sched_fini(&s);
    }
}

/* ---------------------------------------------------------------- shapes */

/* Whether x is a power of two. */
static bool is_pow2(int x) { return x > 0 && (x & (x - 1)) == 0; }

/* Hypercube steps: every remote transfer of a step labelled `phase` joins
 * ranks at a virtual distance that is one power of two for the whole step
 * (p a power of two, so virtual and real ranks agree). */
static void check_hypercube_steps(const Schedule *s, const char *phase,
                                  int want_steps)
{
    int found = 0;
    for (size_t k = 0; k < s->nsteps; k++) {
        const Step *st = &s->steps[k];
        if (strcmp(st->phase, phase))
            continue;
        found++;
        int dist = s->xfers[st->first].src ^ s->xfers[st->first].dst;
        assert_true(is_pow2(dist));
        assert_int_equal(st->n, (size_t)s->call.nranks);
        for (size_t i = 0; i < st->n; i++) {
            const Transfer *t = &s->xfers[st->first + i];
            assert_int_equal(t->src ^ t->dst, dist);
        }
    }
    assert_int_equal(found, want_steps);
}

/* Power-of-two p: halving halves the message every step, doubling doubles
 * it; partners are r ^ 2^k; no fold steps. */
static void test_pow2_shapes(void **state)
{
    (void)state;
    for (int p = 2; p <= 64; p *= 2) {
        int lg = log2_floor(p);
        const AlgoInfo *hd = algo_find(COLL_ALLREDUCE, "hd");
        CollCall c = mkcall(COLL_ALLREDUCE, p, 4 * (size_t)p, 0, false);
        Schedule s;
        assert_int_equal(algo_generate(hd, &c, &s), CV_OK);
        check_hypercube_steps(&s, "reduce-scatter", lg);
        check_hypercube_steps(&s, "all-gather", lg);
        check_hypercube_steps(&s, "fold-in", 0);
        /* Step 1 + k sends half of what step k sent (step 0 is copy-in). */
        for (int k = 0; k < lg; k++) {
            size_t want = c.count >> (k + 1);
            assert_int_equal(s.xfers[s.steps[1 + k].first].count, want);
            assert_int_equal(s.steps[1 + k].n, (size_t)p);
            assert_int_equal(s.xfers[s.steps[1 + lg + k].first].count,
                             (c.count / (size_t)p) << k);
        }
        sched_fini(&s);
        const AlgoInfo *bf = algo_find(COLL_ALLREDUCE, "butterfly");
        assert_int_equal(algo_generate(bf, &c, &s), CV_OK);
        check_hypercube_steps(&s, "exchange", lg);
        sched_fini(&s);
    }
}

/* Index of the first step labelled phase, or nsteps. */
static size_t find_step(const Schedule *s, const char *phase)
{
    size_t k = 0;
    while (k < s->nsteps && strcmp(s->steps[k].phase, phase))
        k++;
    return k;
}

/* Non-powers of two: fold-in joins 2i to 2i + 1 for i < p - p', the extra
 * ranks sit out the hypercube phase, fold-out returns to 2i. */
static void test_fold_shapes(void **state)
{
    (void)state;
    const AlgoInfo *rs = algo_find(COLL_REDUCESCATTER, "rh");
    for (int p = 3; p <= 40; p++) {
        int pp = pow2_floor(p), rem = p - pp;
        if (!rem)
            continue;
        CollCall c = mkcall(COLL_REDUCESCATTER, p, 2, 0, true);
        Schedule s;
        assert_int_equal(algo_generate(rs, &c, &s), CV_OK);
        size_t in = find_step(&s, "fold-in"), out = find_step(&s, "fold-out");
        assert_int_equal(in, 0);
        assert_int_equal(out, s.nsteps - 1);
        assert_int_equal(out - in - 1, (size_t)log2_floor(p));
        for (size_t i = 0; i < s.steps[in].n; i++) {
            const Transfer *t = &s.xfers[s.steps[in].first + i];
            assert_int_equal(t->src % 2, 0);
            assert_int_equal(t->dst, t->src + 1);
            assert_true(t->src < 2 * rem);
            assert_int_equal(t->op, XFER_REDUCE);
            assert_int_equal(t->count, (size_t)p * 2);
        }
        for (size_t k = in + 1; k < out; k++)
            for (size_t i = 0; i < s.steps[k].n; i++) {
                const Transfer *t = &s.xfers[s.steps[k].first + i];
                assert_false(t->src < 2 * rem && t->src % 2 == 0);
                assert_false(t->dst < 2 * rem && t->dst % 2 == 0);
            }
        sched_fini(&s);
    }
}

/* Bruck allgather and alltoall take ceil(log2 p) communication steps for
 * every p; allgather step k sends min(2^k, p - 2^k) blocks. */
static void test_bruck_shapes(void **state)
{
    (void)state;
    const AlgoInfo *ag = algo_find(COLL_ALLGATHER, "bruck");
    const AlgoInfo *aa = algo_find(COLL_ALLTOALL, "bruck");
    for (int p = 1; p <= 70; p++) {
        CollCall c = mkcall(COLL_ALLGATHER, p, 3, 0, false);
        Schedule s;
        CostTerms ct;
        assert_int_equal(algo_generate(ag, &c, &s), CV_OK);
        assert_int_equal(model_schedule_cost(&s, MACHINE_FULL, NULL, &ct), CV_OK);
        assert_int_equal((int)ct.steps, model_log2_ceil(p));
        assert_int_equal(s.nsteps, (size_t)model_log2_ceil(p) + 2);
        for (int k = 0; (1 << k) < p; k++) {
            const Step *st = &s.steps[1 + k];
            int d = 1 << k;
            assert_int_equal(st->n, (size_t)p);
            assert_int_equal(s.xfers[st->first].count, 3 * (size_t)(d < p - d ? d : p - d));
        }
        sched_fini(&s);
        c.kind = COLL_ALLTOALL;
        assert_int_equal(algo_generate(aa, &c, &s), CV_OK);
        assert_int_equal(model_schedule_cost(&s, MACHINE_FULL, NULL, &ct), CV_OK);
        assert_int_equal((int)ct.steps, model_log2_ceil(p));
        assert_int_equal((int)ct.a, model_log2_ceil(p));
        sched_fini(&s);
    }
}

/* ------------------------------------------------------ sweeps and costs */

/* Counts worth trying for collective k on p ranks: a vector's counts p
 * does and does not divide; block-wise kinds always split evenly. */
static size_t counts_for(CollKind k, int p, size_t *out)
{
    size_t vec[] = {0, 1, (size_t)p - 1, (size_t)p, (size_t)p + 1,
                    2 * (size_t)p + 3};
    size_t blk[] = {0, 1, 2, 5};
    bool v = k == COLL_ALLREDUCE || k == COLL_REDUCE;
    size_t n = v ? 6 : 4;
    memcpy(out, v ? vec : blk, n * sizeof *out);
    return n;
}

/* Every entry, p 1..64 and some larger, in place and not: correct final
 * state, and the closed form equals the schedule's cost exactly (the forms
 * follow the generators' partitions). Only the entries that exchange whole
 * slots need staging. */
static void test_exact_costs(void **state)
{
    (void)state;
    int ps[72], np = 0;
    for (int p = 1; p <= 64; p++)
        ps[np++] = p;
    ps[np++] = 96, ps[np++] = 127, ps[np++] = 129;
    for (size_t i = 0; i < NENTRIES; i++) {
        const AlgoInfo *a = entry_algo(i);
        for (int pi = 0; pi < np; pi++) {
            size_t counts[6], nc = counts_for(a->coll, ps[pi], counts);
            for (size_t ci = 0; ci < nc; ci++)
                for (int ip = 0; ip < 6; ip++) {
                    int root = (ip / 2) * (ps[pi] - 1) / 2; /* 0, mid, last */
                    if (root && a->coll != COLL_REDUCE)
                        break;
                    CollCall c = mkcall(a->coll, ps[pi], counts[ci], root, ip % 2);
                    size_t staged = check_algo(a, &c, true);
                    if (!entries[i].staged || ps[pi] == 1 || counts[ci] == 0)
                        assert_int_equal(staged, 0);
                    else
                        assert_true(staged > 0);
                }
        }
    }
}

/* Power-of-two p, counts p divides: the textbook closed forms. */
static void test_textbook_forms(void **state)
{
    (void)state;
    for (int p = 1; p <= 1024; p *= 2) {
        double lg = log2_floor(p), blk = 8.0 * 4; /* count 8 of int32 */
        CollCall c = mkcall(COLL_ALLREDUCE, p, 8 * (size_t)p, 0, false);
        double n = blk * p, f = (p - 1.0) / p;
        CostTerms t;
        algo_find(COLL_ALLREDUCE, "hd")->cost(&c, &t);
        assert_true(t.a == 2 * lg && t.b == 2 * f * n && t.g == f * n);
        algo_find(COLL_ALLREDUCE, "butterfly")->cost(&c, &t);
        assert_true(t.a == lg && t.b == lg * n && t.g == lg * n);
        c.kind = COLL_REDUCE;
        c.root = p / 3;
        algo_find(c.kind, "rsg")->cost(&c, &t);
        assert_true(t.a == 2 * lg && t.b == 2 * f * n && t.g == f * n);
        c.count = 8;
        c.kind = COLL_REDUCESCATTER;
        algo_find(c.kind, "rh")->cost(&c, &t);
        assert_true(t.a == lg && t.b == f * n && t.g == f * n);
        c.kind = COLL_ALLGATHER;
        algo_find(c.kind, "rd")->cost(&c, &t);
        assert_true(t.a == lg && t.b == f * n && t.g == 0);
        algo_find(c.kind, "bruck")->cost(&c, &t);
        assert_true(t.a == lg && t.b == f * n && t.g == 0);
        c.kind = COLL_ALLTOALL;
        algo_find(c.kind, "bruck")->cost(&c, &t);
        assert_true(t.a == lg && t.b == lg * n / 2 && t.g == 0);
    }
}

/* Large p once per entry: p = 1000 runs with one element per block (3
 * for reduce and allreduce: most of their blocks empty); for p = 1024 the
 * cost of a larger count equals the closed form. */
static void test_large_p(void **state)
{
    (void)state;
    for (size_t i = 0; i < NENTRIES; i++) {
        const AlgoInfo *a = entry_algo(i);
        bool vec = a->coll == COLL_ALLREDUCE || a->coll == COLL_REDUCE;
        CollCall c = mkcall(a->coll, 1000, vec ? 3 : 1, vec ? 999 : 0, i % 2);
        check_algo(a, &c, true);
        c = mkcall(a->coll, 1024, vec ? 2053 : 2, vec ? 1000 : 0, i % 2);
        check_algo(a, &c, false);
    }
}

/* hypercube's doubling is nccl-tests' hypercube (src/hypercube.cu): out
 * of place a local copy-in of rank r's block to block r of recv, then at
 * mask m = 1, 2, 4, ... rank r sends the m blocks from block r & ~(m - 1)
 * to rank r ^ m, at the same place. Its cost by hand: log2 p messages,
 * (p - 1) blocks per rank; at the end block q of every rank's recv holds
 * rank q's input, element j at position j. p = 1..64 powers of two,
 * counts 0, 1, 7, 97, in place and not. */
static void test_hypercube(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_default(COLL_HYPERCUBE);
    assert_string_equal(a->name, "doubling");
    const size_t counts[] = {0, 1, 7, 97};
    for (int p = 1, lg = 0; p <= 64; p *= 2, lg++)
        for (size_t ci = 0; ci < 4; ci++)
            for (int ip = 0; ip < 2; ip++) {
                size_t n = counts[ci];
                CollCall c = mkcall(COLL_HYPERCUBE, p, n, 0, ip);
                c.dtype = DT_DOUBLE;
                Schedule s;
                assert_int_equal(algo_generate(a, &c, &s), CV_OK);
                size_t k = 0;
                if (!ip && n) { /* the copy-in */
                    assert_int_equal(s.steps[0].n, (size_t)p);
                    for (int r = 0; r < p; r++) {
                        const Transfer *t = &s.xfers[r];
                        assert_int_equal(t->src, r);
                        assert_int_equal(t->dst, r);
                        assert_int_equal(t->dst_off, (size_t)r * n);
                    }
                    k = 1;
                }
                for (int m = 1; n && m < p; m *= 2, k++) {
                    assert_int_equal(s.steps[k].n, (size_t)p);
                    for (size_t x = 0; x < (size_t)p; x++) {
                        const Transfer *t = &s.xfers[s.steps[k].first + x];
                        size_t from = (size_t)(t->src & ~(m - 1)) * n;
                        assert_int_equal(t->dst, t->src ^ m);
                        assert_int_equal(t->src_buf, BUF_RECV);
                        assert_int_equal(t->src_off, from);
                        assert_int_equal(t->dst_off, from);
                        assert_int_equal(t->count, (size_t)m * n);
                    }
                }
                assert_int_equal(s.nsteps, k);
                CostTerms got;
                assert_int_equal(model_schedule_cost(&s, MACHINE_FULL, NULL,
                                                     &got), CV_OK);
                double msgs = n ? lg : 0;
                assert_true(got.a == msgs && got.steps == msgs);
                assert_true(got.b == (double)(p - 1) * (double)n * 8);
                assert_true(got.g == 0);
                Sim sim;
                assert_int_equal(sim_init(&sim, &s), CV_OK);
                assert_int_equal(sim_run(&sim), CV_OK);
                for (int r = 0; r < p; r++)
                    for (size_t j = 0; j < (size_t)p * n; j++) {
                        assert_int_equal(sim_pos(&sim, r, BUF_RECV, j),
                                         (int32_t)(j % n));
                        assert_int_equal(sim_nranks_in(&sim, r, BUF_RECV, j), 1);
                        assert_true(sim_has(&sim, r, BUF_RECV, j, (int)(j / n)));
                    }
                sim_fini(&sim);
                sched_fini(&s);
            }
}

/* ------------------------------------------------ MPICH's forms by hand */

/* a's schedule for c on full with alpha 10 us, beta 1 ns per byte (1 GB/s)
 * and gamma 0.5 ns per byte (2 GB/s): its final state checked, the model's
 * time in us and its terms in *t. */
static double full_us(const AlgoInfo *a, const CollCall *c, CostTerms *t)
{
    Machine m;
    Schedule s;
    double sec;
    assert_int_equal(machine_full(&m, c->nranks, 10e-6, 1e-9, 0.5e-9), CV_OK);
    assert_int_equal(algo_generate_on(a, c, &m, &s, NULL, 0), CV_OK);
    run_sched(&s, true);
    assert_int_equal(model_machine_cost(&s, &m, false, t, &sec), CV_OK);
    sched_fini(&s);
    return sec * 1e6;
}

/* The terms and time (us) a schedule must have, by hand. */
static void want_full(const AlgoInfo *a, const CollCall *c, double ta,
                      double tb, double tg, double us)
{
    CostTerms t;
    double got = full_us(a, c, &t);
    if (t.a != ta || fabs(t.b - tb) > 1e-6 || fabs(t.g - tg) > 1e-6 ||
        fabs(got - us) > 1e-6)
        fail_msg("%s/%s p=%d root=%d: %g a + %g b + %g g = %.6f us, by hand "
                 "%g a + %g b + %g g = %.6f us", coll_name(c->kind), a->name,
                 c->nranks, c->root, t.a, t.b, t.g, got, ta, tb, tg, us);
}

/* Rabenseifner's reduce as MPICH's reduce_intra_reduce_scatter_gather
 * (Thakur, Rabenseifner and Gropp 2005) on n = 1572864 bytes, a = 10 us,
 * nb = 1572.864 us, ng = 786.432 us. p' the largest power of two <= p,
 * F = log2 p': (2F+1)a + (2(p'-1)/p' + 1)nb + (1 + (p'-1)/p')ng.
 * p = 6 (p' = 4): 5a + 2.5nb + 1.75ng = 50 + 3932.16 + 1376.256.
 * p = 13 (p' = 8): 7a + 2.75nb + 1.875ng = 70 + 4325.376 + 1474.56.
 * p = 6, root 1 (odd, folded out): rank 0 hands it piece 0 first,
 * + a + nb/4: 6a + 2.75nb + 1.75ng = 60 + 4325.376 + 1376.256.
 * p = 8, as before: 6a + 1.75nb + 0.875ng = 60 + 2752.512 + 688.128. */
static void test_reduce_by_hand(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_REDUCE, "rabenseifner");
    const double n = 1572864;
    CollCall c = mkcall(COLL_REDUCE, 6, 393216, 0, false);
    want_full(a, &c, 5, 2.5 * n, 1.75 * n, 5358.416);
    c.nranks = 13;
    want_full(a, &c, 7, 2.75 * n, 1.875 * n, 5869.936);
    c.nranks = 6, c.root = 1;
    want_full(a, &c, 6, 2.75 * n, 1.75 * n, 5761.632);
    c.nranks = 8, c.root = 0;
    want_full(a, &c, 6, 1.75 * n, 0.875 * n, 3500.64);
}

/* MPICH's recursive doubling all-gather (allgather_intra_recursive_
 * doubling.c), n the whole gathered vector, blocks of n/p.
 * p = 6: swaps of 1, 2, 4 blocks at distances 1, 2, 4; at distance 4
 * ranks 2 and 3 have no partner, so 0 and 1 pass the 2 blocks of 4 and 5
 * on to them: 4 steps, 9 blocks = 4a + 1.5nb; count 65536 (n = 1572864
 * bytes): 40 + 2359.296 us. Every rank still receives 5 blocks.
 * p = 13: swaps of 1, 2, 4, 8 blocks; at distance 4 only rank 8 of 8..11
 * has a partner (12): 8 -> 10, then 8 -> 9 and 10 -> 11 pass block 12
 * on; at distance 8 ranks 0..4 have partners 8..12: 1 -> 5, 2 -> 6,
 * 3 -> 7 pass the 5 blocks 8..12 on. 7 steps, 1 + 2 + 4 + 1 + 1 + 8 + 5 =
 * 22 blocks = 7a + 22/13 nb; count 30247 (n = 1572844 bytes, blocks of
 * 120988): 70 + 2661.736 us.
 * p = 8, as before: 3a + 7/8 nb; count 49152: 30 + 1376.256 us. */
static void test_allgather_by_hand(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_ALLGATHER, "recursive-doubling");
    CollCall c = mkcall(COLL_ALLGATHER, 6, 65536, 0, false);
    want_full(a, &c, 4, 1.5 * 1572864, 0, 2399.296);
    c = mkcall(COLL_ALLGATHER, 13, 30247, 0, true);
    want_full(a, &c, 7, 22.0 * 120988, 0, 2731.736);
    c = mkcall(COLL_ALLGATHER, 8, 49152, 0, false);
    want_full(a, &c, 3, 7.0 / 8 * 1572864, 0, 1406.256);
}

/* Bruck's all-to-all at p = 6 sends, at distances 1, 2, 4, the blocks
 * whose index has that bit set: {1, 3, 5}, {2, 3}, {4, 5}, 7 blocks of
 * n/6: 3a + 7/6 nb = 30 + 1835.008 us (n = 1572864 bytes); its printed
 * form for p not a power of two says so, the power-of-two one does not
 * apply (3a + log2(6) n/2 b would give 2062.9 us). */
static void test_a2a_bruck_by_hand(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_ALLTOALL, "bruck");
    CollCall c = mkcall(COLL_ALLTOALL, 6, 65536, 0, false);
    want_full(a, &c, 3, 7.0 / 6 * 1572864, 0, 1865.008);
    assert_ptr_equal(algo_formula(a, 6), a->formula_other);
    assert_ptr_equal(algo_formula(a, 8), a->formula);
    assert_non_null(strstr(a->formula_other, "set bits of 0, 1, .., p-1"));
}

/* Each entry whose schedule changes shape off a power of two has its
 * form for those p, and algo_formula gives it there and only there. */
static void test_formula_other(void **state)
{
    (void)state;
    for (size_t i = 0; i < NENTRIES; i++) {
        const AlgoInfo *a = entry_algo(i);
        bool any_p = !strcmp(a->name, "bruck") && a->coll == COLL_ALLGATHER;
        assert_true(any_p == (a->formula_other == NULL));
        for (int p = 1; p <= 64; p++) {
            bool pow2 = pow2_floor(p) == p;
            assert_ptr_equal(algo_formula(a, p),
                             pow2 || any_p ? a->formula : a->formula_other);
        }
    }
}

/* Every entry is registered once, findable by its aliases, drawn as a
 * hypercube, and refuses nothing the registry accepts. */
static void test_registry_entries(void **state)
{
    (void)state;
    size_t mine = 0;
    for (const AlgoInfo *const *a = algos_recursive; *a; a++) {
        mine += (*a)->coll != COLL_HYPERCUBE; /* test_hypercube's */
        assert_int_equal((*a)->shape, SHAPE_HYPERCUBE);
        assert_true(strlen((*a)->formula) > 0);
        assert_ptr_equal(algo_find((*a)->coll, (*a)->name), *a);
    }
    assert_int_equal(mine, NENTRIES);
    for (size_t i = 0; i < NENTRIES; i++)
        assert_ptr_equal(algo_find(entries[i].coll, entries[i].alias),
                         entry_algo(i));
    assert_null(algo_find(COLL_BROADCAST, "butterfly"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry_entries),
        cmocka_unit_test(test_hypercube),
        cmocka_unit_test(test_halving_emitter),
        cmocka_unit_test(test_doubling_emitter),
        cmocka_unit_test(test_pow2_shapes),
        cmocka_unit_test(test_fold_shapes),
        cmocka_unit_test(test_bruck_shapes),
        cmocka_unit_test(test_textbook_forms),
        cmocka_unit_test(test_exact_costs),
        cmocka_unit_test(test_large_p),
        cmocka_unit_test(test_reduce_by_hand),
        cmocka_unit_test(test_allgather_by_hand),
        cmocka_unit_test(test_a2a_bruck_by_hand),
        cmocka_unit_test(test_formula_other),
    };
    return cmocka_run_group_tests_name("algos_rec", tests, NULL, NULL);
}
