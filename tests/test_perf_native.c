/* test_perf_native.c - a backend's library's own collective (ExecOps.native)
 * measured beside the schedules: timed by the same engine, checked
 * element by element against the collective's definition, named by the
 * backend, with no model time; a library that cannot run the call says
 * why. The "library" here wraps the threads backend: its native runs the
 * collective's default schedule in one go (correct), or does nothing
 * (every output element wrong), or refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "algos/algo.h"
#include "exec/exec.h"
#include "measure/measure.h"
#include "measure/perf.h"

#include "call_fixture.h"

typedef enum { LIB_RIGHT, LIB_NOTHING, LIB_REFUSES } LibKind;

static ExecOps lib_ops;        /* the threads backend's, with a native */
static const ExecOps *threads; /* the threads backend's own */
static LibKind lib_kind;
static int native_calls, native_iters;

static CvError lib_native(Executor *ex, int warmup, int iters, ExecTiming *t,
                          char *why, size_t whylen)
{
    native_calls++;
    native_iters += iters;
    if (lib_kind == LIB_REFUSES) {
        snprintf(why, whylen, "the library has no %s here",
                 coll_name(ex->sched->call.kind));
        return CV_ERR_UNAVAILABLE;
    }
    if (lib_kind == LIB_NOTHING) {
        t->iter_s = 1e-6;
        return CV_OK;
    }
    ExecTiming mine = {0}; /* a library has no steps: step_s stays */
    CvError e = threads->run(ex, warmup, iters, &mine);
    t->iter_s = mine.iter_s;
    return e;
}

static Executor *open_lib(int p)
{
    char why[256];
    threads = exec_find("threads", why, sizeof why);
    assert_non_null(threads);
    lib_ops = *threads;
    lib_ops.native = lib_native;
    lib_ops.native_name = "lib";
    Executor *ex = NULL;
    assert_int_equal(threads->open(&ex, p, &(ExecOptions){0}, why,
                                   sizeof why), CV_OK);
    ex->ops = &lib_ops;
    return ex;
}

/* Every collective, rank counts from 1 to 8 and counts the rank count
 * does not divide, both places: the right library checks with 0 wrong,
 * the idle one is caught with wrong elements, the row is named "lib" and
 * has no model time (doing nothing is right only for one rank in
 * place). */
static void test_rows_checked_and_named(void **state)
{
    static const int ranks[] = {1, 2, 3, 5, 8};
    static const unsigned long long sizes[] = {0, 8, 100, 4100};
    for (size_t pi = 0; pi < sizeof ranks / sizeof ranks[0]; pi++) {
        Executor *ex = open_lib(ranks[pi]);
        for (int k = 0; k < COLL_COUNT; k++)
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0] &&
                                call_defined((CollKind)k, ranks[pi], false);
                 si++)
                for (int kind = LIB_RIGHT; kind <= LIB_NOTHING; kind++) {
                    PerfConfig cfg = {.call = {.kind = (CollKind)k,
                                               .nranks = ranks[pi],
                                               .dtype = DT_INT32,
                                               .op = OP_SUM},
                                      .iters = 2, .warmup = 1, .check = 1};
                    PerfRow row;
                    char why[256] = "";
                    lib_kind = (LibKind)kind;
                    native_calls = 0;
                    CvError e = perf_measure(ex, &cfg, NULL, NULL, sizes[si],
                                             &row, why, sizeof why);
                    if (e)
                        fail_msg("%s p=%d %llu B: %s (%s)",
                                 coll_name((CollKind)k), ranks[pi], sizes[si],
                                 cv_strerror(e), why);
                    assert_null(row.algo);
                    assert_string_equal(row.name, "lib");
                    /* check + timed, in each place the collective has */
                    bool ip = call_defined((CollKind)k, ranks[pi], true);
                    assert_true(native_calls >= 2 * (1 + ip));
                    for (int pl = 0; pl < PERF_PLACE_COUNT; pl++) {
                        const PerfSide *s = &row.side[pl];
                        assert_int_equal(s->skipped, pl && !ip);
                        if (s->skipped)
                            continue;
                        for (int l = 0; l <= MACHINE_BUS; l++)
                            assert_true(s->model_s[l] == 0);
                        assert_true(s->iters >= 2);
                        /* one rank in place: doing nothing is right */
                        if (kind == LIB_RIGHT || row.count == 0 ||
                            (ranks[pi] == 1 && pl == PERF_IN_PLACE))
                            assert_int_equal(s->wrong, 0);
                        else if (s->wrong <= 0)
                            fail_msg("%s p=%d %llu B %s: an idle library "
                                     "passed the check",
                                     coll_name((CollKind)k), ranks[pi],
                                     sizes[si], pl ? "in place" : "out");
                    }
                }
        ex->ops->close(ex);
    }
}

/* A library that cannot run the call: CV_ERR_UNAVAILABLE with its own
 * sentence, from the sweep's warmup on. */
static void test_refusal_says_why(void **state)
{
    Executor *ex = open_lib(4);
    PerfConfig cfg = {.call = {.kind = COLL_ALLREDUCE, .nranks = 4,
                               .dtype = DT_FLOAT, .op = OP_SUM},
                      .sweep = {.min = 8, .max = 64, .factor = 2},
                      .iters = 1, .warmup = 1, .check = 1};
    PerfRow rows[8];
    char why[256] = "";
    lib_kind = LIB_REFUSES;
    assert_int_equal(perf_sweep(ex, &cfg, NULL, NULL, rows, NULL, NULL, why,
                                sizeof why), CV_ERR_UNAVAILABLE);
    assert_string_equal(why, "the library has no allreduce here");
    why[0] = '\0';
    assert_int_equal(perf_measure(ex, &cfg, NULL, NULL, 64, rows, why,
                                  sizeof why), CV_ERR_UNAVAILABLE);
    assert_string_equal(why, "the library has no allreduce here");
    ex->ops->close(ex);
}

/* The engine asked for the library on a backend without one. */
static void test_no_library(void **state)
{
    char why[256] = "";
    const ExecOps *t = exec_find("threads", why, sizeof why);
    Executor *ex = NULL;
    assert_int_equal(t->open(&ex, 2, &(ExecOptions){0}, why, sizeof why), CV_OK);
    Schedule s;
    CollCall call = {.kind = COLL_BROADCAST, .nranks = 2, .count = 4,
                     .dtype = DT_FLOAT, .op = OP_SUM};
    assert_int_equal(algo_generate(algo_default(call.kind), &call, &s), CV_OK);
    assert_int_equal(t->load(ex, &s), CV_OK);
    MeasureOptions o = {.iters = 1, .native = 1, .why = why,
                        .whylen = sizeof why};
    MeasureResult r = {0};
    assert_int_equal(measure_loaded(ex, &s, &o, &r), CV_ERR_UNAVAILABLE);
    assert_non_null(strstr(why, "threads backend has no library"));
    t->close(ex);
    sched_fini(&s);
}

/* perf_best never takes a library's row (no model time) as the model's
 * choice, but may find it the fastest measured. */
static void test_best_skips_library_for_model(void **state)
{
    const AlgoInfo *a = algo_default(COLL_ALLREDUCE);
    PerfRow rows[3] = {
        {.algo = a, .name = a->name},
        {.algo = a, .name = a->name},
        {.algo = NULL, .name = "lib"},
    };
    rows[0].side[0].time_s = 3e-6, rows[0].side[0].model_s[0] = 2e-6;
    rows[1].side[0].time_s = 2e-6, rows[1].side[0].model_s[0] = 1e-6;
    rows[2].side[0].time_s = 1e-6; /* model 0: would be "fastest" */
    size_t m, p;
    perf_best(rows, 3, 1, (MachineKind)0, &m, &p);
    assert_int_equal(m, 2);
    assert_int_equal(p, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_checked_and_named),
        cmocka_unit_test(test_refusal_says_why),
        cmocka_unit_test(test_no_library),
        cmocka_unit_test(test_best_skips_library_for_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
