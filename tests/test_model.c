/* test_model.c - costs of hand-made schedules under both link models, and
 * lower bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "core/model.h"

/* Linear broadcast from rank 0 in one step, then a local copy step. */
static void star(Schedule *s, int p, size_t n)
{
    CollCall c = {.kind = COLL_BROADCAST, .nranks = p, .count = n,
                  .dtype = DT_FLOAT, .in_place = true};
    assert_int_equal(sched_init(s, &c, "star"), CV_OK);
    sched_tmp_all(s, n);
    sched_step(s, "broadcast");
    for (int r = 1; r < p; r++)
        sched_copy(s, 0, BUF_RECV, 0, r, BUF_RECV, 0, n);
    sched_step(s, "local");
    for (int r = 0; r < p; r++)
        sched_copy(s, r, BUF_RECV, 0, r, BUF_TMP, 0, n);
    sched_step(s, "local-reduce");
    sched_reduce(s, 1 % p, BUF_RECV, 0, 1 % p, BUF_TMP, 0, n);
    assert_int_equal(sched_end(s), CV_OK);
}

static void test_p2p_and_shared(void **state)
{
    (void)state;
    for (int p = 2; p <= 33; p++) {
        Schedule s;
        star(&s, p, 10);
        CostTerms t;
        assert_int_equal(model_schedule_cost(&s, MACHINE_FULL, NULL, &t), CV_OK);
        assert_true(t.a == p - 1);      /* the root sends p - 1 messages */
        assert_true(t.b == (p - 1) * 40.0);
        assert_true(t.g == 40.0);       /* the local reduce */
        assert_true(t.steps == 1);      /* local steps are not communication */
        assert_int_equal(model_schedule_cost(&s, MACHINE_BUS, NULL, &t), CV_OK);
        assert_true(t.b == (p - 1) * 40.0);
        ModelParams m = {.alpha = 1e-6, .beta = 1e-9, .gamma = 1e-10};
        assert_int_equal(model_schedule_cost(&s, MACHINE_FULL, &m, &t), CV_OK);
        double want = (p - 1) * 1e-6 + (p - 1) * 40e-9 + 40e-10;
        assert_true(fabs(cost_time(&t, &m) - want) < 1e-15);
        assert_true(fabs(model_step_time(&s, 0, MACHINE_FULL, &m) -
                         ((p - 1) * 1e-6 + (p - 1) * 40e-9)) < 1e-15);
        assert_true(model_step_time(&s, 1, MACHINE_FULL, &m) == 0);
        sched_fini(&s);
    }
}

/* Shared links: a ring step moves p blocks through one bandwidth. */
static void test_shared_ring(void **state)
{
    (void)state;
    for (int p = 2; p <= 16; p++) {
        Schedule s;
        CollCall c = {.kind = COLL_ALLREDUCE, .nranks = p, .count = 4,
                      .dtype = DT_DOUBLE, .in_place = true};
        assert_int_equal(sched_init(&s, &c, "ring-step"), CV_OK);
        sched_step(&s, "shift");
        for (int r = 0; r < p; r++)
            sched_reduce(&s, r, BUF_RECV, 0, (r + 1) % p, BUF_RECV, 0, 1);
        assert_int_equal(sched_end(&s), CV_OK);
        CostTerms t;
        assert_int_equal(model_schedule_cost(&s, MACHINE_FULL, NULL, &t), CV_OK);
        assert_true(t.a == 1 && t.b == 8 && t.g == 8);
        assert_int_equal(model_schedule_cost(&s, MACHINE_BUS, NULL, &t), CV_OK);
        assert_true(t.a == 1 && t.b == 8.0 * p && t.g == 8);
        sched_fini(&s);
    }
}

static void test_lower_bounds(void **state)
{
    (void)state;
    int want_log[] = {0, 0, 1, 2, 2, 3, 3, 3, 3, 4};
    for (int p = 1; p < 10; p++)
        assert_int_equal(model_log2_ceil(p), want_log[p]);
    assert_int_equal(model_log2_ceil(1024), 10);
    assert_int_equal(model_log2_ceil(1025), 11);
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 8, .count = 100, .dtype = DT_FLOAT};
    CostTerms lb;
    model_lower_bound(&c, &lb);
    assert_true(lb.a == 3);
    assert_true(fabs(lb.b - 2 * 7.0 / 8 * 400) < 1e-9);
    assert_true(fabs(lb.g - 7.0 / 8 * 400) < 1e-9);
    c.kind = COLL_ALLGATHER;
    model_lower_bound(&c, &lb);
    assert_true(fabs(lb.b - 7.0 * 400) < 1e-9);
    assert_true(lb.g == 0);
    c.nranks = 1;
    model_lower_bound(&c, &lb);
    assert_true(lb.a == 0 && lb.b == 0 && lb.g == 0);
}

/* The flat machines are full and bus, and no other kind is one. */
static void test_names(void **state)
{
    (void)state;
    Machine m;
    for (int k = 0; k < MACHINE_KIND_COUNT; k++) {
        bool flat = k == MACHINE_FULL || k == MACHINE_BUS;
        assert_int_equal(model_flat_kind((MachineKind)k), flat);
        assert_int_equal(model_flat_machine(&m, (MachineKind)k, 4, NULL),
                         flat ? CV_OK : CV_ERR_ARG);
        if (flat)
            assert_int_equal(m.kind, k);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p2p_and_shared),
        cmocka_unit_test(test_shared_ring),
        cmocka_unit_test(test_lower_bounds),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
