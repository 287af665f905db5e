/* test_algos.c - every registered algorithm, swept over rank counts, counts,
 * roots and in-place: the schedule validates, the symbolic final state is
 * the collective's definition, the cost equals the closed form where the
 * closed form is exact, and nothing beats the lower bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "algos/algo.h"
#include "core/sim.h"

#include "call_fixture.h"
#include "sanitizer.h"

/* Describe a case for failure messages. */
static const char *describe(const AlgoInfo *a, const CollCall *c)
{
    static char buf[160];
    snprintf(buf, sizeof buf, "%s/%s p=%d count=%zu root=%d %s",
             coll_name(a->coll), a->name, c->nranks, c->count, c->root,
             c->in_place ? "in-place" : "out-of-place");
    return buf;
}

/* Generate, validate and execute one case; fail loudly on any problem. */
static void check_case(const AlgoInfo *a, const CollCall *c)
{
    Schedule s;
    CvError e = algo_generate(a, c, &s);
    if (e)
        fail_msg("%s: generate: %s", describe(a, c), cv_strerror(e));
    SchedCheck chk;
    e = sched_validate(&s, &chk, NULL);
    if (e)
        fail_msg("%s: validate: %s at step %zu transfer %zu (%zu missing)",
                 describe(a, c), cv_strerror(e), chk.step, chk.xfer, chk.missing);
    Sim sim;
    e = sim_init(&sim, &s);
    if (e)
        fail_msg("%s: sim_init: %s", describe(a, c), cv_strerror(e));
    e = sim_run(&sim);
    if (e)
        fail_msg("%s: step %zu transfer %zu: %s", describe(a, c), sim.err_step,
                 sim.err_xfer, cv_strerror(e));
    int br = 0;
    size_t bj = 0, nwrong = 0;
    e = sim_check(&sim, &br, &bj, &nwrong);
    if (e)
        fail_msg("%s: %zu wrong elements, first rank %d element %zu",
                 describe(a, c), nwrong, br, bj);
    sim_fini(&sim);
    sched_fini(&s);
}

/* Roots worth trying for p ranks. */
static int roots_for(const AlgoInfo *a, int p, int *roots)
{
    if (!coll_is_rooted(a->coll) || p == 1) {
        roots[0] = 0;
        return 1;
    }
    roots[0] = 0, roots[1] = p - 1;
    if (p > 2) {
        roots[2] = p / 2 + (p > 4);
        return 3;
    }
    return 2;
}

/* Whether the sweep takes p ranks: every p from 1 to 64; under
 * AddressSanitizer (the same code paths, at several times the cost) 1 to
 * 17 and the powers of two beyond with their neighbours. */
static bool sweep_takes(int p)
{
#ifdef UNDER_ASAN
    return p <= 17 || p == 31 || p == 32 || p == 33 || p == 63 || p == 64;
#else
    return p >= 1;
#endif
}

/* Every algorithm x p in 1..64 x counts x roots x in-place. */
static void test_sweep(void **state)
{
    (void)state;
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        if (a->fits)
            continue; /* made for some machines: test_algos_torus */
        for (int p = 1; p <= 64; p++) {
            if (!sweep_takes(p))
                continue;
            size_t counts[] = {0, 1, (size_t)p - 1, (size_t)p, (size_t)p + 1, 97};
            int roots[3], nr = roots_for(a, p, roots);
            for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++)
                for (int ri = 0; ri < nr; ri++)
                    for (int ip = 0; ip < 2; ip++) {
                        CollCall c = {.kind = a->coll, .nranks = p,
                                      .count = counts[ci], .dtype = DT_INT32,
                                      .op = OP_SUM, .root = roots[ri],
                                      .in_place = ip};
                        if (call_defined(a->coll, p, ip))
                            check_case(a, &c);
                    }
        }
    }
}

/* Broadcast, scatter and gather never idle every rank but one for a local
 * copy: with p > 1 each step moves data between ranks (the root copies
 * its own data beside its first message, inner tree ranks take their own
 * block straight to or from their layout). */
static void test_no_local_steps(void **state)
{
    (void)state;
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        if (a->fits)
            continue; /* made for some machines: test_algos_torus */
        if (a->coll != COLL_BROADCAST && a->coll != COLL_SCATTER &&
            a->coll != COLL_GATHER)
            continue;
        for (int p = 2; p <= 64; p++) {
            int roots[3], nr = roots_for(a, p, roots);
            for (int ri = 0; ri < nr; ri++)
                for (int ip = 0; ip < 2; ip++) {
                    CollCall c = {.kind = a->coll, .nranks = p, .count = 97,
                                  .dtype = DT_INT32, .op = OP_SUM,
                                  .root = roots[ri], .in_place = ip};
                    Schedule s;
                    assert_int_equal(algo_generate(a, &c, &s), CV_OK);
                    for (size_t k = 0; k < s.nsteps; k++) {
                        size_t remote = 0;
                        for (size_t x = 0; x < s.steps[k].n; x++) {
                            const Transfer *t = &s.xfers[s.steps[k].first + x];
                            remote += t->src != t->dst;
                        }
                        if (!remote)
                            fail_msg("%s: step %zu is local only",
                                     describe(a, &c), k + 1);
                    }
                    sched_fini(&s);
                }
        }
    }
}

/* Large p once per algorithm: p = 600 (past 512, the rank sets of the
 * symbolic state nine words and a part; p^3 / 64 words move through it
 * for the block collectives, so 1000 took four times as long), with a
 * count 600 does not divide for the vector collectives and one element
 * per block for the others (test_algos_rec runs its family at 1000). */
static void test_large_p(void **state)
{
    (void)state;
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        if (a->fits)
            continue; /* made for some machines: test_algos_torus */
        int vec = a->coll == COLL_ALLREDUCE || a->coll == COLL_BROADCAST ||
                  a->coll == COLL_REDUCE;
        int p = call_defined(a->coll, 600, false) ? 600 : 512;
        CollCall c = {.kind = a->coll, .nranks = p, .count = vec ? 601 : 1,
                      .dtype = DT_FLOAT, .op = OP_SUM,
                      .root = (p - 1) * coll_is_rooted(a->coll),
                      .in_place = false};
        check_case(a, &c);
    }
}

static int near(double x, double y)
{
    return fabs(x - y) <= 1e-9 * (fabs(x) + fabs(y)) + 1e-9;
}

/* For power-of-two p and counts p divides, the p2p cost of the generated
 * schedule equals the closed form, term by term. */
static void test_closed_forms(void **state)
{
    (void)state;
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        if (a->fits)
            continue; /* made for some machines: test_algos_torus */
        for (int p = 1; p <= 256; p *= 2) {
            size_t counts[] = {(size_t)p, 3 * (size_t)p, 16 * (size_t)p};
            for (size_t ci = 0; ci < 3; ci++)
                for (int ip = 0; ip < 2; ip++) {
                    CollCall c = {.kind = a->coll, .nranks = p, .count = counts[ci],
                                  .dtype = DT_DOUBLE, .op = OP_SUM,
                                  .root = coll_is_rooted(a->coll) ? p - 1 : 0,
                                  .in_place = ip};
                    if (!call_defined(a->coll, p, ip))
                        continue;
                    Schedule s;
                    assert_int_equal(algo_generate(a, &c, &s), CV_OK);
                    CostTerms got, want;
                    assert_int_equal(model_schedule_cost(&s, MACHINE_FULL, NULL, &got), CV_OK);
                    a->cost(&c, &want);
                    if (!near(got.a, want.a) || !near(got.b, want.b) ||
                        !near(got.g, want.g) || !near(got.steps, want.steps))
                        fail_msg("%s: schedule a=%g b=%g g=%g steps=%g, closed form "
                                 "a=%g b=%g g=%g steps=%g", describe(a, &c), got.a,
                                 got.b, got.g, got.steps, want.a, want.b, want.g,
                                 want.steps);
                    sched_fini(&s);
                }
        }
    }
}

/* No algorithm beats the lower bound in any term, for any p and count. */
static void test_lower_bound(void **state)
{
    (void)state;
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        if (a->fits)
            continue; /* made for some machines: test_algos_torus */
        for (int p = 1; p <= 40; p++) {
            size_t counts[] = {1, (size_t)p + 1, 5 * (size_t)p};
            for (size_t ci = 0; ci < 3; ci++) {
                CollCall c = {.kind = a->coll, .nranks = p, .count = counts[ci],
                              .dtype = DT_FLOAT, .op = OP_SUM, .root = 0};
                if (!call_defined(a->coll, p, false))
                    continue;
                Schedule s;
                assert_int_equal(algo_generate(a, &c, &s), CV_OK);
                CostTerms got, lb;
                assert_int_equal(model_schedule_cost(&s, MACHINE_FULL, NULL, &got), CV_OK);
                model_lower_bound(&c, &lb);
                if (got.a < lb.a - 1e-9 || got.b < lb.b * (1 - 1e-12) - 1e-9 ||
                    got.g < lb.g * (1 - 1e-12) - 1e-9)
                    fail_msg("%s: a=%g b=%g g=%g below the bound a=%g b=%g g=%g",
                             describe(a, &c), got.a, got.b, got.g, lb.a, lb.b, lb.g);
                sched_fini(&s);
            }
        }
    }
}

/* The registry itself: every collective has algorithms and a default, every
 * entry is complete, names are unique within a collective and findable. */
static void test_registry(void **state)
{
    (void)state;
    assert_true(algo_count() > 0);
    for (int k = 0; k < COLL_COUNT; k++) {
        const AlgoInfo *d = algo_default((CollKind)k);
        assert_non_null(d);
        assert_int_equal(d->coll, k);
    }
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        assert_non_null(a->name);
        assert_non_null(a->summary);
        assert_true(a->schedule && *a->schedule);
        assert_non_null(a->formula);
        assert_non_null(a->constraints);
        assert_non_null(a->aliases);
        assert_non_null(a->generate);
        assert_non_null(a->cost);
        assert_true(a->shape < SHAPE_COUNT);
        assert_ptr_equal(algo_find(a->coll, a->name), a);
        if (i > 0)
            assert_true(algo_at(i - 1)->coll <= a->coll);
    }
    assert_null(algo_find(COLL_ALLREDUCE, "no-such-algorithm"));
    assert_null(algo_at(algo_count()));
}

/* Calls the registry must refuse before generating anything. */
static void test_bad_calls(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_default(COLL_BROADCAST);
    Schedule s;
    CollCall c = {.kind = COLL_BROADCAST, .nranks = 0, .count = 4};
    assert_int_equal(algo_generate(a, &c, &s), CV_ERR_RANKS);
    c.nranks = SCHED_MAX_RANKS + 1; /* the model's most; running: 1024 */
    assert_int_equal(algo_generate(a, &c, &s), CV_ERR_RANKS);
    c.nranks = 4, c.root = 4;
    assert_int_equal(algo_generate(a, &c, &s), CV_ERR_ROOT);
    c.root = -1;
    assert_int_equal(algo_generate(a, &c, &s), CV_ERR_ROOT);
    c.root = 0, c.kind = COLL_ALLREDUCE;
    assert_int_equal(algo_generate(a, &c, &s), CV_ERR_ALGO);
    /* calls the collective does not define: sendrecv in place, hypercube
     * on 3, 6 and 1000 ranks (2 and 1024 are fine) */
    c = (CollCall){.kind = COLL_SENDRECV, .nranks = 4, .count = 4,
                   .in_place = true};
    assert_int_equal(algo_generate(algo_default(COLL_SENDRECV), &c, &s),
                     CV_ERR_IN_PLACE);
    c.in_place = false;
    assert_int_equal(algo_generate(algo_default(COLL_SENDRECV), &c, &s), CV_OK);
    sched_fini(&s);
    c.kind = COLL_HYPERCUBE;
    const int bad[] = {3, 6, 1000}, good[] = {1, 2, 1024};
    for (int i = 0; i < 3; i++) {
        c.nranks = bad[i];
        assert_int_equal(algo_generate(algo_default(COLL_HYPERCUBE), &c, &s),
                         CV_ERR_RANKS);
        c.nranks = good[i];
        assert_int_equal(algo_generate(algo_default(COLL_HYPERCUBE), &c, &s),
                         CV_OK);
        sched_fini(&s);
    }
}

/* An optional argument runs only the tests matching it. */
int main(int argc, char **argv)
{
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_bad_calls),
        cmocka_unit_test(test_closed_forms),
        cmocka_unit_test(test_lower_bound),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_no_local_steps),
        cmocka_unit_test(test_large_p),
    };
    return cmocka_run_group_tests_name("algos", tests, NULL, NULL);
}
