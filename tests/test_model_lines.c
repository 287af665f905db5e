/* test_model_lines.c - cluster scale on machines: the ring steps of a
 * compact schedule moved along a torus's lines (Step.cyc) or rotated,
 * priced by the classes of their routes (model_lines.c). On small
 * machines of every kind the structured pricing gives what the written-out
 * schedule gives, bit for bit, step by step, for every algorithm; at 16
 * and 16384 ranks the torus all-reduce takes 2 sum(d_i - 1) steps, the
 * busiest rank sends 2 (p - 1) / p V bytes and the busiest link carries
 * 2 (d_0 - 1) / d_0 V, and its time is the formula's, as are ring's,
 * hier's and hier_master's at 16384 ranks on the machines they run on,
 * and hier's on fat trees, whose leaves' messages share its trunk. */
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

/* ------------------------------------------------------------ machines */

enum { NMACH = 14 };

/* Small machines of every kind the algorithms are made for; some with
 * two classes of links and hop latencies (the non-uniform pricing). */
static void small_machines(Machine *ms)
{
    int t44[] = {4, 4}, t84[] = {8, 4}, t234[] = {2, 3, 4}, m35[] = {3, 5};
    int r12 = 12, t53[] = {5, 3};
    assert_int_equal(machine_grid(&ms[0], MACHINE_TORUS, 2, t44, false, 1e-6,
                                  1e-10, 5e-11), CV_OK);
    assert_int_equal(machine_grid(&ms[1], MACHINE_TORUS, 2, t84, false, 1e-6,
                                  1e-10, 5e-11), CV_OK);
    assert_int_equal(machine_grid(&ms[2], MACHINE_MESH, 2, t44, false, 1e-6,
                                  1e-10, 5e-11), CV_OK);
    assert_int_equal(machine_grid(&ms[3], MACHINE_MESH, 2, m35, false, 1e-6,
                                  1e-10, 5e-11), CV_OK);
    assert_int_equal(machine_nodes(&ms[4], 4, 4, false, 5e-11), CV_OK);
    assert_int_equal(machine_nodes(&ms[5], 4, 4, true, 5e-11), CV_OK);
    assert_int_equal(machine_grid(&ms[6], MACHINE_TORUS, 3, t234, false,
                                  1e-6, 1e-10, 5e-11), CV_OK);
    assert_int_equal(machine_grid(&ms[7], MACHINE_RING, 1, &r12, false, 1e-6,
                                  1e-10, 5e-11), CV_OK);
    /* x and y apart: alphas, betas, latencies of their own */
    assert_int_equal(machine_grid(&ms[8], MACHINE_TORUS, 2, t84, false, 1e-6,
                                  1e-10, 5e-11), CV_OK);
    ms[8].cls[1] = (LinkClass){.name = "y", .alpha = 3e-6, .beta = 4e-10,
                               .lat = 2e-7};
    ms[8].cls[0].lat = 1e-7;
    assert_int_equal(machine_grid(&ms[9], MACHINE_MESH, 2, t53, false, 1e-6,
                                  1e-10, 5e-11), CV_OK);
    ms[9].cls[0] = (LinkClass){.name = "x", .alpha = 2e-6, .beta = 1e-10,
                               .lat = 3e-7};
    /* dealt round: a ring's neighbours far apart, routes that meet */
    assert_int_equal(machine_grid(&ms[10], MACHINE_TORUS, 2, t44, false, 1e-6,
                                  1e-10, 5e-11), CV_OK);
    ms[10].cyclic = true;
    /* a slow rank and a slow link: priced written out, every step */
    assert_int_equal(machine_grid(&ms[11], MACHINE_TORUS, 2, t84, false, 1e-6,
                                  1e-10, 5e-11), CV_OK);
    assert_int_equal(machine_fix_rank(&ms[11], 3, 2.5), CV_OK);
    assert_int_equal(machine_fix_link(&ms[11], 0, 1, 3, false), CV_OK);
    int a, b;
    assert_int_equal(machine_fix_check(&ms[11], &a, &b), CV_OK);
    /* fat trees: a leaf's ranks share its trunk (k messages a link), one
       2:1 with a core of its own rate and hop latencies */
    assert_int_equal(machine_fattree(&ms[12], 4, 4, 1, 1e-6, 1e-10, 5e-11),
                     CV_OK);
    assert_int_equal(machine_fattree(&ms[13], 3, 4, 2, 1e-6, 1e-10, 5e-11),
                     CV_OK);
    assert_int_equal(machine_backbone(&ms[13], 3e-10), CV_OK);
    ms[13].cls[0].lat = 1e-7, ms[13].cls[1].lat = 3e-7;
}

/* ------------------------------------------------- the same as written */

static const char *what(const AlgoInfo *a, const CollCall *c,
                        const Machine *m)
{
    static char buf[200];
    char mb[80];
    machine_describe(m, true, mb, sizeof mb);
    snprintf(buf, sizeof buf, "%s/%s p=%d count=%zu %s on %s%s",
             coll_name(a->coll), a->name, c->nranks, c->count,
             c->in_place ? "in place" : "out of place", mb,
             m->cyclic ? " dealt round" : "");
    return buf;
}

/* Prices x and y are the same, bit for bit. */
static void same_price(const StepPrice *x, const StepPrice *y,
                       const char *w, size_t step)
{
    if (x->time != y->time || x->terms.a != y->terms.a ||
        x->terms.b != y->terms.b || x->terms.g != y->terms.g ||
        x->terms.steps != y->terms.steps || x->t_alpha != y->t_alpha ||
        x->t_beta != y->t_beta || x->t_lat != y->t_lat ||
        x->busiest_time != y->busiest_time)
        fail_msg("%s: step %zu: written out %.17g s (%g a, %g b, %g g), "
                 "compact %.17g s (%g a, %g b, %g g)", w, step, x->time,
                 x->terms.a, x->terms.b, x->terms.g, y->time, y->terms.a,
                 y->terms.b, y->terms.g);
}

/* The links' loads of a step priced written out (pf) and compact (pc)
 * are the same; the compact ones added to tot. */
static void same_loads(const Pricer *pf, const Pricer *pc, const char *w,
                       size_t no, double *tot)
{
    if (pf->ntouched != pc->ntouched)
        fail_msg("%s: step %zu: %d links loaded written out, %d compact", w,
                 no, pf->ntouched, pc->ntouched);
    for (int i = 0; i < pf->ntouched; i++) {
        int l = pf->touched[i];
        assert_true(pf->bytes[l] == pc->bytes[l]);
        assert_true(pf->msgs[l] == pc->msgs[l]);
        tot[l] += pc->bytes[l];
    }
}

/* Every step of compact schedule comp priced as full's (written out),
 * both ways (terms only too), the links' loads alike (an entry priced by
 * its structure: all its repetitions' at once too, pricer_lines_links);
 * lines[0] counts the repeated entries priced by structure, lines[1]
 * those written out. */
static void same_steps(const Schedule *full, const Schedule *comp,
                       const Machine *m, const char *w, int *lines)
{
    Pricer pf, pc;
    assert_int_equal(pricer_init(&pf, m), CV_OK);
    assert_int_equal(pricer_init(&pc, m), CV_OK);
    size_t no = 0, nl = (size_t)m->nlinks;
    double *tot = calloc(2 * nl, sizeof *tot); /* an entry's, two ways */
    assert_non_null(tot);
    for (size_t k = 0; k < comp->nsteps; k++) {
        double work;
        bool st = pricer_lines_work(&pc, comp, k, &work);
        lines[0] += st;
        lines[1] += !st && comp->steps[k].reps > 1 && !comp->steps[k].spread;
        memset(tot, 0, 2 * nl * sizeof *tot);
        for (size_t j = 0; j < comp->steps[k].reps; j++, no++)
            for (int only = 0; only < 2; only++) {
                StepPrice x, y;
                assert_int_equal(price_step(&pf, full, no, only, &x), CV_OK);
                assert_int_equal(price_step_rep(&pc, comp, k, j, only, &y),
                                 CV_OK);
                same_price(&x, &y, w, no);
                if (!pc.orbits && !only)
                    same_loads(&pf, &pc, w, no, tot);
            }
        /* the entry's loads at once, as its repetitions' add up */
        if (st)
            assert_int_equal(pricer_lines_links(&pc, comp, k, tot + nl),
                             CV_OK);
        if (st && memcmp(tot, tot + nl, nl * sizeof *tot))
            fail_msg("%s: entry %zu: its links' loads at once are not "
                     "those of its steps", w, k);
    }
    assert_int_equal(no, full->nsteps);
    free(tot);
    pricer_fini(&pf);
    pricer_fini(&pc);
}

/* Written-out schedule s's lock-step cost summed step by step by the
 * general rule (pr->lean off: every link of every message, no
 * representatives), as pricer_cost adds the steps up. */
static void cost_by_steps(const Schedule *s, const Machine *m,
                          CostTerms *t, double *sec)
{
    Pricer pr;
    assert_int_equal(pricer_init(&pr, m), CV_OK);
    *t = (CostTerms){0};
    *sec = 0;
    for (size_t k = 0; k < s->nsteps; k++) {
        StepPrice sp;
        assert_int_equal(price_step(&pr, s, k, false, &sp), CV_OK);
        t->a += sp.terms.a, t->b += sp.terms.b, t->g += sp.terms.g;
        t->steps += sp.terms.steps;
        *sec += sp.time;
    }
    ModelParams mp;
    if (model_machine_uniform(m, &mp))
        *sec = cost_time(t, &mp);
    pricer_fini(&pr);
}

/* The whole schedule's cost in both modes, compact and written out, and
 * in lock-step the general rule's step by step. */
static void same_cost(const Schedule *full, const Schedule *comp,
                      const Machine *m, const char *w)
{
    for (int mode = 0; mode < PRICING_COUNT; mode++) {
        Pricer pf, pc;
        assert_int_equal(pricer_init(&pf, m), CV_OK);
        assert_int_equal(pricer_init(&pc, m), CV_OK);
        pf.mode = pc.mode = (PricingMode)mode;
        CostTerms tf, tc;
        double sf, sc;
        assert_int_equal(pricer_cost(&pf, full, false, &tf, &sf), CV_OK);
        assert_int_equal(pricer_cost(&pc, comp, false, &tc, &sc), CV_OK);
        if (sf != sc || tf.a != tc.a || tf.b != tc.b || tf.g != tc.g ||
            tf.steps != tc.steps)
            fail_msg("%s (%s): written out %.17g s, compact %.17g s", w,
                     model_pricing_name((PricingMode)mode), sf, sc);
        CostTerms tr;
        double sr;
        cost_by_steps(full, m, &tr, &sr);
        if (mode == PRICING_LOCKSTEP &&
            (sf != sr || tf.a != tr.a || tf.b != tr.b || tf.g != tr.g ||
             tf.steps != tr.steps))
            fail_msg("%s: priced %.17g s (%g a, %g b, %g g), step by step "
                     "%.17g s (%g a, %g b, %g g)", w, sf, tf.a, tf.b, tf.g,
                     sr, tr.a, tr.b, tr.g);
        pricer_fini(&pf);
        pricer_fini(&pc);
    }
}

/* Algorithm a's schedule for c on m, written out and compact: the same
 * schedule, the same totals, the same prices. */
static void check_one(const AlgoInfo *a, const CollCall *c, const Machine *m,
                      int *lines)
{
    const char *w = what(a, c, m);
    Schedule full, comp, out;
    assert_int_equal(algo_generate_as(a, c, m, 0, &full, NULL, 0), CV_OK);
    assert_int_equal(algo_generate_as(a, c, m, ALGO_COMPACT, &comp, NULL, 0),
                     CV_OK);
    assert_int_equal(sched_expand(&comp, &out), CV_OK);
    bool same;
    assert_int_equal(sched_same(&full, &out, &same), CV_OK);
    if (!same)
        fail_msg("%s: the compact schedule written out is another", w);
    SchedTotals tf, tc;
    size_t np = (size_t)c->nranks;
    size_t *v = calloc(4 * np, sizeof *v);
    assert_non_null(v);
    assert_int_equal(sched_totals(&full, &tf, v, v + np), CV_OK);
    assert_int_equal(sched_totals(&comp, &tc, v + 2 * np, v + 3 * np), CV_OK);
    assert_memory_equal(&tf, &tc, sizeof tf);
    assert_memory_equal(v, v + 2 * np, 2 * np * sizeof *v);
    free(v);
    same_steps(&full, &comp, m, w, lines);
    same_cost(&full, &comp, m, w);
    sched_fini(&out);
    sched_fini(&comp);
    sched_fini(&full);
}

static void test_structured_is_written_out(void **state)
{
    (void)state;
    Machine ms[NMACH];
    small_machines(ms);
    int lines[NMACH][2] = {{0}};
    for (int i = 0; i < NMACH; i++) {
        int p = ms[i].nranks;
        size_t counts[] = {1, 7, 100, 4 * (size_t)p, 3 * (size_t)p + 1};
        for (size_t ai = 0; ai < algo_count(); ai++) {
            const AlgoInfo *a = algo_at(ai);
            for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++)
                for (int ip = 0; ip < 2; ip++) {
                    CollCall c = {.kind = a->coll, .nranks = p,
                                  .count = counts[ci], .dtype = DT_FLOAT,
                                  .op = OP_SUM,
                                  .root = coll_is_rooted(a->coll) ? p / 2 : 0,
                                  .in_place = ip};
                    if (coll_check(&c) || !algo_fits(a, &c, &ms[i], NULL, 0))
                        continue;
                    check_one(a, &c, &ms[i], lines[i]);
                }
        }
    }
    /* the structured pricing priced repeated entries on every machine
       but the fixed one (11), whose are all priced written out; on nodes
       sharing a NIC (5) and on fat trees (12, 13), whose messages between
       nodes or leaves meet at the NIC or the trunk, those that not every
       rank takes part in once a direction are priced written out: both
       ways were taken */
    for (int i = 0; i < NMACH; i++)
        if (!lines[i][0] != (i == 11) ||
            (i == 5 || i == 11 || i >= 12) != (lines[i][1] > 0))
            fail_msg("machine %d: %d entries priced by their structure, %d "
                     "written out", i, lines[i][0], lines[i][1]);
}

/* The dimensions a step is the same along (model_sym.c): a butterfly on
 * 8x8 exchanges with rank r ^ 1 first (in x: the same in every row, not
 * after a move along x), with r ^ 8 in its fourth step (in y: the same
 * in every column); on a torus and on a mesh (whose x exchange never
 * moves along y). Not without pr->lean (every link's load wanted). */
static void test_sym_dims(void **state)
{
    (void)state;
    int g[2] = {8, 8};
    for (int mesh = 0; mesh < 2; mesh++) {
        Machine m;
        assert_int_equal(machine_grid(&m, mesh ? MACHINE_MESH : MACHINE_TORUS,
                                      2, g, false, 1e-6, 1e-10, 5e-11),
                         CV_OK);
        CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 64, .count = 6400,
                      .dtype = DT_FLOAT, .op = OP_SUM, .in_place = true};
        Schedule s;
        assert_int_equal(algo_generate_as(algo_find(COLL_ALLREDUCE,
                                                    "butterfly"), &c, &m, 0,
                                          &s, NULL, 0), CV_OK);
        Pricer pr;
        assert_int_equal(pricer_init(&pr, &m), CV_OK);
        const Step *x = &s.steps[0], *y = &s.steps[3];
        assert_int_equal(s.xfers[x->first].dst ^ s.xfers[x->first].src, 1);
        assert_int_equal(s.xfers[y->first].dst ^ s.xfers[y->first].src, 8);
        assert_int_equal(pricer_sym_step(&pr, s.xfers + x->first, x->n),
                         CV_OK);
        assert_int_equal(pr.sym, 0); /* not lean */
        pr.lean = true;
        assert_int_equal(pricer_sym_step(&pr, s.xfers + x->first, x->n),
                         CV_OK);
        assert_int_equal(pr.sym, 2);
        assert_int_equal(pricer_sym_step(&pr, s.xfers + y->first, y->n),
                         CV_OK);
        assert_int_equal(pr.sym, 1);
        pricer_fini(&pr);
        sched_fini(&s);
    }
}

/* -------------------------------------------------------------- by hand */

/* The torus all-reduce of count elements (float) on a torus of sizes
 * d[0 .. nd), one class (alpha a, beta b, gamma g), by hand: per
 * dimension k (the vector n_k left by those before, n_k / k a block),
 * k - 1 reduce-scatter steps of alpha + 4 n_k/k (beta + gamma) and k - 1
 * all-gather steps of alpha + 4 n_k/k beta. */
static void torus_by_hand(const int *d, int nd, size_t count, double a,
                          double b, double g, CostTerms *t, double *sec)
{
    double n = (double)count;
    *t = (CostTerms){0};
    *sec = 0;
    for (int i = 0; i < nd; i++) {
        double blk = 4 * n / d[i], steps = d[i] - 1.0;
        t->a += 2 * steps, t->steps += 2 * steps;
        t->b += 2 * steps * blk, t->g += steps * blk;
        *sec += steps * (2 * a + 2 * blk * b + blk * g);
        n /= d[i];
    }
}

/* Each link's bytes over the whole schedule, the most of them. */
static double busiest_link(const Schedule *s, const Machine *m)
{
    Pricer pr;
    double *tot = calloc((size_t)m->nlinks, sizeof *tot), most = 0;
    assert_non_null(tot);
    assert_int_equal(pricer_init(&pr, m), CV_OK);
    for (size_t k = 0; k < s->nsteps; k++)
        for (size_t j = 0; j < s->steps[k].reps; j++) {
            StepPrice sp;
            assert_int_equal(price_step_rep(&pr, s, k, j, false, &sp), CV_OK);
            for (int i = 0; i < pr.ntouched; i++)
                tot[pr.touched[i]] += pr.bytes[pr.touched[i]];
        }
    for (int l = 0; l < m->nlinks; l++)
        most = tot[l] > most ? tot[l] : most;
    pricer_fini(&pr);
    free(tot);
    return most;
}

/* The torus all-reduce on torus:AxB of p = AB ranks, count a multiple of
 * p: 2 (A - 1 + B - 1) steps (in place), the busiest rank sends
 * 2 (p - 1) / p V bytes (V = 4 count), the busiest link (an x link)
 * carries 2 (A - 1) / A V, and the time is torus_by_hand's. */
static void torus_case(int A, int B, size_t count)
{
    int d[2] = {A, B}, p = A * B;
    double al = 2e-6, be = 1e-10, ga = 3e-11, V = 4.0 * (double)count;
    Machine m;
    assert_int_equal(machine_grid(&m, MACHINE_TORUS, 2, d, false, al, be, ga),
                     CV_OK);
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = p, .count = count,
                  .dtype = DT_FLOAT, .op = OP_SUM, .in_place = true};
    Schedule s;
    assert_int_equal(algo_generate_as(algo_find(COLL_ALLREDUCE, "torus"), &c,
                                      &m, ALGO_COMPACT, &s, NULL, 0), CV_OK);
    assert_int_equal(sched_nsteps(&s), (size_t)(2 * (A - 1 + B - 1)));
    assert_true(s.nxfers <= 4 * (size_t)p); /* one step per phase */
    SchedTotals tot;
    assert_int_equal(sched_totals(&s, &tot, NULL, NULL), CV_OK);
    assert_true((double)tot.max_sent == 2.0 * (p - 1) / p * V);
    assert_true(busiest_link(&s, &m) == 2.0 * (A - 1) / A * V);
    CostTerms t, want;
    double sec, wsec;
    assert_int_equal(model_machine_cost(&s, &m, false, &t, &sec), CV_OK);
    torus_by_hand(d, 2, count, al, be, ga, &want, &wsec);
    assert_true(t.steps == want.steps && t.a == want.a);
    assert_true(t.b == want.b && t.g == want.g);
    assert_true(fabs(sec - wsec) <= 1e-12 * wsec);
    sched_fini(&s);
}

static void test_torus_16_by_hand(void **state)
{
    (void)state;
    torus_case(4, 4, 16 * 5);
    torus_case(4, 4, 16 * 1024);
}

static void test_torus_16384_by_hand(void **state)
{
    (void)state;
    torus_case(128, 128, 16384 * 4);
    torus_case(128, 128, (size_t)16384 * 2048);
}

/* Every algorithm made for torus:128x128, mesh:128x128 and nodes:2048x8
 * (and every one for all machines) prices at 16384 ranks: a time, no
 * limit. */
static void test_every_algorithm_at_16384(void **state)
{
    (void)state;
    Machine ms[3];
    int g[2] = {128, 128};
    assert_int_equal(machine_grid(&ms[0], MACHINE_TORUS, 2, g, false, 1e-6,
                                  1e-10, 5e-11), CV_OK);
    assert_int_equal(machine_grid(&ms[1], MACHINE_MESH, 2, g, false, 1e-6,
                                  1e-10, 5e-11), CV_OK);
    assert_int_equal(machine_nodes(&ms[2], 2048, 8, false, 5e-11), CV_OK);
    for (int i = 0; i < 3; i++)
        for (size_t ai = 0; ai < algo_count(); ai++) {
            const AlgoInfo *a = algo_at(ai);
            CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 16384,
                          .count = (size_t)1 << 22, .dtype = DT_FLOAT,
                          .op = OP_SUM};
            if (a->coll != COLL_ALLREDUCE ||
                !algo_fits(a, &c, &ms[i], NULL, 0))
                continue;
            Schedule s;
            CostTerms t;
            double sec;
            assert_int_equal(algo_generate_as(a, &c, &ms[i], ALGO_COMPACT, &s,
                                              NULL, 0), CV_OK);
            CvError e = model_machine_cost(&s, &ms[i], false, &t, &sec);
            if (e || !(sec > 0))
                fail_msg("%s on machine %d: %s", a->name, i, cv_strerror(e));
            sched_fini(&s);
        }
}

/* Ring on torus:128x128 and the torus all-reduce on mesh:128x128, count
 * 4 p: every message alone on its links (a row's end crosses the x wrap
 * and a y link; a folded mesh ring's hop two x links), one class: each
 * step alpha + 16 beta, plus 16 gamma where it reduces: ring 2 (p - 1)
 * steps, the torus one the torus's time. */
static void test_ring_and_mesh_by_hand(void **state)
{
    (void)state;
    int g[2] = {128, 128}, p = 16384;
    double al = 1e-6, be = 1e-10, ga = 5e-11;
    Machine torus, mesh;
    assert_int_equal(machine_grid(&torus, MACHINE_TORUS, 2, g, false, al, be,
                                  ga), CV_OK);
    assert_int_equal(machine_grid(&mesh, MACHINE_MESH, 2, g, false, al, be,
                                  ga), CV_OK);
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = p, .count = 4 * (size_t)p,
                  .dtype = DT_FLOAT, .op = OP_SUM, .in_place = true};
    Schedule s;
    CostTerms t, want;
    double sec, wsec;
    assert_int_equal(algo_generate_as(algo_find(COLL_ALLREDUCE, "ring"), &c,
                                      &torus, ALGO_COMPACT, &s, NULL, 0),
                     CV_OK);
    assert_int_equal(model_machine_cost(&s, &torus, false, &t, &sec), CV_OK);
    assert_true(t.a == 2.0 * (p - 1) && t.b == 2.0 * (p - 1) * 16);
    assert_true(t.g == (p - 1.0) * 16);
    wsec = 2.0 * (p - 1) * (al + 16 * be) + (p - 1.0) * 16 * ga;
    assert_true(fabs(sec - wsec) <= 1e-12 * wsec);
    sched_fini(&s);
    assert_int_equal(algo_generate_as(algo_find(COLL_ALLREDUCE, "torus"), &c,
                                      &mesh, ALGO_COMPACT, &s, NULL, 0),
                     CV_OK);
    assert_int_equal(model_machine_cost(&s, &mesh, false, &t, &sec), CV_OK);
    torus_by_hand(g, 2, c.count, al, be, ga, &want, &wsec);
    assert_true(t.a == want.a && t.b == want.b && t.g == want.g);
    assert_true(fabs(sec - wsec) <= 1e-12 * wsec);
    sched_fini(&s);
}

/* hier on nodes:2048x8 by hand: each step's messages cross two links of
 * one class (up to the node's switch and down, or up to the rail's and
 * down): alpha + b beta + 2 lat of that class; the node's 7 reduce-scatter
 * steps of V/8, the rails' 2047 of V/8/2048, the all-gathers back. */
static void test_hier_16384_by_hand(void **state)
{
    (void)state;
    int L = 8, G = 2048, p = L * G;
    double ga = 5e-11;
    Machine m;
    assert_int_equal(machine_nodes(&m, G, L, false, ga), CV_OK);
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = p,
                  .count = (size_t)p * 64, .dtype = DT_FLOAT, .op = OP_SUM,
                  .in_place = true};
    Schedule s;
    CostTerms t;
    double sec;
    assert_int_equal(algo_generate_as(algo_find(COLL_ALLREDUCE, "hier"), &c,
                                      &m, ALGO_COMPACT, &s, NULL, 0), CV_OK);
    assert_int_equal(model_machine_cost(&s, &m, false, &t, &sec), CV_OK);
    const LinkClass *nv = &m.cls[m.dim[0].cls], *net = &m.cls[m.dim[1].cls];
    double V = 4.0 * (double)c.count, b0 = V / L, b1 = b0 / G;
    double want = (L - 1.0) * (2 * (nv->alpha + 2 * nv->lat) +
                               2 * b0 * nv->beta + b0 * ga) +
                  (G - 1.0) * (2 * (net->alpha + 2 * net->lat) +
                               2 * b1 * net->beta + b1 * ga);
    assert_true(t.steps == 2.0 * (L - 1 + G - 1));
    assert_true(fabs(sec - want) <= 1e-12 * want);
    sched_fini(&s);
}

/* hier on fat trees of G leaves of L ranks, 2:1, by hand (at 16 and 16384
 * ranks): a leaf's step crosses a rank's link up and the other's down,
 * alpha + b beta; a step between leaves crosses the two leaves' trunks
 * too, each carrying the L messages of its leaf on L/2 lanes of alpha
 * and beta 2/L of a link's: 2 alpha + 2 b beta. The leaf's L-1
 * reduce-scatter steps of V/L and the trunks' G-1 of V/L/G (each
 * reducing its bytes), the all-gathers back. Every repeated entry is
 * priced by its structure (the trunks' loads k messages at once). */
static void test_hier_fattree_by_hand(void **state)
{
    (void)state;
    static const int shape[2][2] = {{4, 4}, {128, 128}};
    for (int i = 0; i < 2; i++) {
        int G = shape[i][0], L = shape[i][1], p = L * G;
        double al = 1e-6, be = 1e-10, ga = 5e-11;
        Machine m;
        Pricer pr;
        assert_int_equal(machine_fattree(&m, G, L, 2, al, be, ga), CV_OK);
        CollCall c = {.kind = COLL_ALLREDUCE, .nranks = p,
                      .count = (size_t)p * 64, .dtype = DT_FLOAT,
                      .op = OP_SUM, .in_place = true};
        Schedule s;
        CostTerms t;
        double sec, w;
        assert_int_equal(algo_generate_as(algo_find(COLL_ALLREDUCE, "hier"),
                                          &c, &m, ALGO_COMPACT, &s, NULL, 0),
                         CV_OK);
        assert_int_equal(model_machine_cost(&s, &m, false, &t, &sec), CV_OK);
        double V = 4.0 * (double)c.count, b0 = V / L, b1 = b0 / G;
        double want = (L - 1.0) * (2 * al + 2 * b0 * be + b0 * ga) +
                      (G - 1.0) * (4 * al + 4 * b1 * be + b1 * ga);
        assert_true(t.steps == 2.0 * (L - 1 + G - 1));
        if (!(fabs(sec - want) <= 1e-12 * want))
            fail_msg("hier on fattree %dx%d: %.17g s, by hand %.17g", G, L,
                     sec, want);
        assert_int_equal(pricer_init(&pr, &m), CV_OK);
        for (size_t k = 0; k < s.nsteps; k++)
            if (s.steps[k].reps > 1 && !pricer_lines_work(&pr, &s, k, &w))
                fail_msg("fattree %dx%d: entry %zu not priced by its "
                         "structure", G, L, k);
        pricer_fini(&pr);
        sched_fini(&s);
    }
}

/* A step repeated along cycles by hand: ranks 0..5 in two cycles of 3,
 * (0 2 4) and (1 3 5); rank 0 sends 1 element to 2, rank 1 sends 2 to
 * 5 (its previous, the transfer flagged XF_BACK), repeated twice. Written
 * out, the second step is 2 sending 1 to 4 and 5 sending 2 to 3; the
 * totals per rank are those of the four transfers. */
static void test_cycles_by_hand(void **state)
{
    (void)state;
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 6, .count = 4,
                  .dtype = DT_FLOAT, .op = OP_SUM};
    for (int compact = 0; compact < 2; compact++) {
        Schedule s, w;
        assert_int_equal(sched_init(&s, &c, "hand"), CV_OK);
        s.compact = compact;
        int mem[6] = {0, 2, 4, 1, 3, 5};
        int cy = sched_cycles(&s, mem, 3);
        assert_int_equal(cy, 0);
        sched_step(&s, "x");
        sched_copy(&s, 0, BUF_RECV, 0, 2, BUF_RECV, 0, 1);
        sched_flags(&s, XF_BACK);
        sched_copy(&s, 1, BUF_RECV, 0, 5, BUF_RECV, 0, 2);
        sched_flags(&s, 0);
        sched_repeat_cycles(&s, 2, cy);
        assert_int_equal(sched_end(&s), CV_OK);
        assert_int_equal(sched_nsteps(&s), 2);
        assert_int_equal(sched_expand(&s, &w), CV_OK);
        assert_int_equal(w.nsteps, 2);
        const Transfer *t = w.xfers + w.steps[1].first;
        assert_int_equal(t[0].src, 2);
        assert_int_equal(t[0].dst, 4);
        assert_int_equal(t[1].src, 5);
        assert_int_equal(t[1].dst, 3);
        assert_int_equal(t[1].flags, 0);
        size_t sent[6], recvd[6];
        size_t ws[6] = {4, 8, 4, 0, 0, 8}, wr[6] = {0, 0, 4, 8, 4, 8};
        SchedTotals tot;
        assert_int_equal(sched_totals(&s, &tot, sent, recvd), CV_OK);
        assert_memory_equal(sent, ws, sizeof ws);
        assert_memory_equal(recvd, wr, sizeof wr);
        sched_fini(&w);
        sched_fini(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cycles_by_hand),
        cmocka_unit_test(test_sym_dims),
        cmocka_unit_test(test_structured_is_written_out),
        cmocka_unit_test(test_torus_16_by_hand),
        cmocka_unit_test(test_torus_16384_by_hand),
        cmocka_unit_test(test_ring_and_mesh_by_hand),
        cmocka_unit_test(test_hier_16384_by_hand),
        cmocka_unit_test(test_hier_fattree_by_hand),
        cmocka_unit_test(test_every_algorithm_at_16384),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
