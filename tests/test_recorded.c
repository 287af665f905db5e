/* test_recorded.c - the model against a run measured on a GPU, without a
 * GPU: the H100 run of bench/results/raw/2026-11-26-gpu-h100/ (every
 * collective at p = 4 and 2, sizes by factors of 4). The gpu machine's
 * level comes from that run's one-rank copies and its calibration's
 * alpha only (recorded.h), never from the rows it is scored on; the
 * counts expected are the targets, and the recorded model column
 * (the bus it priced then) must miss them, so the test tells the two
 * models apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "recorded.h"

#define RAW "bench/results/raw/2026-11-26-gpu-h100/"
#define H100_L2 50e6      /* bytes: the H100 SXM's L2 (its datasheet) */
#define MIN_SIZE (1ull << 20)
#define BAND 0.25

static RecRun run;

static int setup(void **state)
{
    (void)state;
    if (rec_read(RAW "run1-gpu-sh-p1.txt", &run) ||
        rec_read(RAW "run2-gpu-sh-p4-p2.txt", &run))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rec_free(&run);
    return 0;
}

/* The files hold what the results file says: 204 rows of p = 2 and 4 at
 * 1 MiB and above with a schedule, in 60 groups of two algorithms or
 * more; the recorded model put 68 rows within 25% and chose the fastest
 * in 26 groups. */
static void test_recorded_model(void **state)
{
    (void)state;
    RecScore sc;
    assert_int_equal(rec_score(&run, NULL, BAND, MIN_SIZE, NULL, &sc), 0);
    assert_int_equal(sc.rows, 204);
    assert_int_equal(sc.groups, 60);
    assert_true(sc.within < 170);
    assert_true(sc.chosen < 45);
}

/* The parameters, by hand from the one-rank rows: the floor is the
 * upper median of the 14 copies of 8 B to 64 KiB (3.67 3.73 3.74 3.74
 * 3.75 3.75 3.75 3.76 ...: 3.76 us), the call 3.76 - 1.504 us; memory:
 * 2 x 256 MiB over 216.2 - 3.76 us (2.527 TB/s; 128 MiB gave 2.646, the
 * slower is kept); the cache: 2 x 8 MiB over 5.40 - 3.76 us (10.23
 * TB/s, the largest copy within half of 50 MB). */
static void test_fit(void **state)
{
    (void)state;
    MemLevel ml;
    assert_int_equal(rec_fit_gpu(&run, H100_L2, &ml), 0);
    assert_true(fabs(ml.step - 1.504e-6) < 1e-12);
    assert_true(fabs(ml.call - (3.76 - 1.504) * 1e-6) < 1e-12);
    assert_true(fabs(1 / ml.beta_mem - 2.0 * 268435456 / 212.44e-6) < 1e6);
    assert_true(fabs(1 / ml.beta_cache - 2.0 * 8388608 / 1.64e-6) < 1e6);
    assert_true(ml.shared_reads);
}

/* The memory machine meets the targets: at least 170 of the 204 rows
 * within 25%, the fastest chosen in at least 45 of the 60 groups. */
static void test_gpu_model(void **state)
{
    (void)state;
    MemLevel ml;
    RecScore sc;
    assert_int_equal(rec_fit_gpu(&run, H100_L2, &ml), 0);
    FILE *rep = getenv("RECORDED_VERBOSE") ? stderr : NULL;
    assert_int_equal(rec_score(&run, &ml, BAND, MIN_SIZE, rep, &sc), 0);
    print_message("gpu model: %d of %d rows within 25%%, fastest chosen in "
                  "%d of %d groups\n", sc.within, sc.rows, sc.chosen,
                  sc.groups);
    assert_int_equal(sc.rows, 204);
    assert_true(sc.within >= 170);
    assert_true(sc.chosen >= 45);
}

/* A table of today's layout (nccl-tests' 13 fields, the model on the
 * "#  model" line under each row; a library's row has none) reads as the
 * recorded one did: each row's size, time and model. */
static void test_read_nccl_layout(void **state)
{
    (void)state;
    char path[] = "/tmp/collviz-test-recorded-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("# collviz perf: allreduce, algorithm ring, backend cuda, 2 ranks\n"
          "#       size         count      type   redop    root     time\n"
          "     1048576        262144     float     sum      -1    12.50"
          "   83.89   83.89       0    12.00   87.38   87.38       0\n"
          "#  model   10.00 us  ratio 1.25\n"
          "     4194304       1048576     float     sum      -1    40.25"
          "  104.21  104.21       0    40.00  104.86  104.86       0\n"
          "#  model   41.00 us  ratio 0.98\n"
          "# collviz perf: allreduce, algorithm nccl, backend cuda, 2 ranks\n"
          "     1048576        262144     float     sum      -1    11.00"
          "   95.33   95.33       0    11.00   95.33   95.33       0\n", f);
    fclose(f);
    RecRun r = {0};
    assert_int_equal(rec_read(path, &r), 0);
    unlink(path);
    assert_int_equal(r.n, 3);
    const double size[] = {1048576, 4194304, 1048576};
    const double time_us[] = {12.5, 40.25, 11}, model[] = {10, 41, 0};
    for (size_t i = 0; i < 3; i++) {
        assert_true(r.rows[i].size == size[i] && r.rows[i].p == 2);
        assert_true(fabs(r.rows[i].time_us - time_us[i]) < 1e-9);
        assert_true(fabs(r.rows[i].model_us - model[i]) < 1e-9);
    }
    assert_string_equal(r.rows[2].algo, "nccl");
    rec_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded_model),
        cmocka_unit_test(test_fit),
        cmocka_unit_test(test_gpu_model),
        cmocka_unit_test(test_read_nccl_layout),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
