/* test_probe.c - the cross-core probe (probe.h): its measurement where two
 * CPUs can be pinned, its refusal where they cannot, and the rule that
 * says whether ratios describe one state. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "exec/exec.h"
#include "threads/probe_cross.h"

/* Both timings positive and the ratio their quotient, whatever the block
 * size (rounded to whole lines, at least one) and the time asked for
 * (none: the fewest iterations). */
static void test_measures(void **state)
{
    (void)state;
    if (exec_cpus() < 2)
        skip();
    static const struct {
        size_t block;
        double seconds;
    } cases[] = {{PROBE_BLOCK, PROBE_SECONDS}, {0, 0}, {63, 0}, {100, 0.001},
                 {4096, -1}, {3 << 20, 0.002}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ProbeResult r = {.ratio = -1};
        assert_int_equal(probe_cross(cases[i].block, cases[i].seconds, &r), CV_OK);
        if (!(r.dirty_s > 0 && r.clean_s > 0 && isfinite(r.ratio)) ||
            fabs(r.ratio - r.dirty_s / r.clean_s) > 1e-12 * r.ratio)
            fail_msg("case %zu: dirty %g s, clean %g s, ratio %g", i, r.dirty_s,
                     r.clean_s, r.ratio);
    }
}

/* Asked for a time, it takes about that long: not much less (it measured
 * until then), not far more. */
static void test_takes_its_time(void **state)
{
    (void)state;
    if (exec_cpus() < 2)
        skip();
    struct timespec a, b;
    ProbeResult r;
    clock_gettime(CLOCK_MONOTONIC, &a);
    assert_int_equal(probe_cross(PROBE_BLOCK, 0.05, &r), CV_OK);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double took = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    if (took < 0.05 || took > 5)
        fail_msg("asked for 0.05 s, took %g s", took);
}

/* With one CPU to run on, there is no other core to probe: the result is
 * CV_ERR_UNAVAILABLE and zeros, and nothing hangs. */
static void test_one_cpu(void **state)
{
    (void)state;
    /* the raw system calls: src/sched.h shadows <sched.h> on this
     * project's include path */
    enum { WORDS = 16, BITS = 8 * sizeof(unsigned long) };
    unsigned long old[WORDS] = {0}, one[WORDS] = {0};
    if (syscall(SYS_sched_getaffinity, 0, sizeof old, old) <= 0)
        skip();
    for (size_t c = 0; c < WORDS * BITS; c++)
        if (old[c / BITS] >> (c % BITS) & 1) {
            one[c / BITS] = 1UL << (c % BITS);
            break;
        }
    assert_int_equal(syscall(SYS_sched_setaffinity, 0, sizeof one, one), 0);
    ProbeResult r = {.ratio = 7};
    CvError e = probe_cross(PROBE_BLOCK, PROBE_SECONDS, &r);
    assert_int_equal(syscall(SYS_sched_setaffinity, 0, sizeof old, old), 0);
    assert_int_equal(e, CV_ERR_UNAVAILABLE);
    assert_true(r.ratio == 0 && r.dirty_s == 0 && r.clean_s == 0);
}

/* A case of probe_same_state or probe_same_speed. */
typedef struct {
    double v[4];
    int n, same;
} SameCase;

/* Every case of `cases` gives its answer under `same`. */
static void check_same(int (*same)(const double *, int), const SameCase *cases,
                       size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (same(cases[i].v, cases[i].n) != cases[i].same)
            fail_msg("case %zu: same %d, want %d", i,
                     same(cases[i].v, cases[i].n), cases[i].same);
}

static void test_same_state(void **state)
{
    (void)state;
    static const SameCase cases[] = {
        {{0}, 0, 1},
        {{5}, 1, 1},
        {{1, PROBE_MOVED}, 2, 1},  /* exactly PROBE_MOVED apart */
        {{1, PROBE_MOVED + 0.001}, 2, 0},
        {{PROBE_MOVED + 0.001, 1}, 2, 0}, /* in any order */
        {{1.1, 0.62, 1.3, 1.0}, 4, 1}, /* the fast state's spread here */
        {{1.1, 0.9, 11, 1.0}, 4, 0},
        {{11, 10, 12, 9}, 4, 1},   /* slow throughout: one state too */
        {{0, 1, 0, 11}, 4, 0},     /* unmeasured values are skipped */
        {{0, 1, -3, 1.5}, 4, 1},
        {{0, 0, 0, 11}, 4, 1},     /* one measured value */
        {{NAN, 1, 1.2, 1}, 4, 1},  /* a failed measure is not one */
    };
    check_same(probe_same_state, cases, sizeof cases / sizeof cases[0]);
}

/* probe_same_speed: the same rule at PROBE_SLOWER, on clean times. */
static void test_same_speed(void **state)
{
    (void)state;
    static const SameCase cases[] = {
        {{0}, 0, 1},
        {{45e-6}, 1, 1},
        {{40e-6, 40e-6 * PROBE_SLOWER}, 2, 1}, /* exactly PROBE_SLOWER */
        {{40e-6, 40e-6 * PROBE_SLOWER * 1.001}, 2, 0},
        {{88e-6, 45e-6}, 2, 0},                /* a spell, in any order */
        {{43e-6, 52e-6, 45e-6, 47e-6}, 4, 1},  /* the usual spread here */
        {{45e-6, 46e-6, 88e-6, 44e-6}, 4, 0},
        {{88e-6, 86e-6, 87e-6, 89e-6}, 4, 1},  /* slow throughout */
        {{0, 45e-6, -1, 88e-6}, 4, 0},         /* unmeasured skipped */
        {{0, 45e-6, NAN, 46e-6}, 4, 1},
        {{0, 0, 0, 88e-6}, 4, 1},
        {{1, PROBE_MOVED, 1, 1}, 4, 0}, /* a ratio's band is not a speed's */
    };
    check_same(probe_same_speed, cases, sizeof cases / sizeof cases[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_measures),
        cmocka_unit_test(test_takes_its_time),
        cmocka_unit_test(test_one_cpu),
        cmocka_unit_test(test_same_state),
        cmocka_unit_test(test_same_speed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
