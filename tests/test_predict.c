/* test_predict.c - what a calibration predicts: the threads backend's
 * predictor on a flat memory (no cache effects) against a step-by-step
 * reference, and the effects it models one by one (caches, cores, cross
 * reads and writes, pushes, latencies, write misses); and calib_predict's
 * dispatch to a backend's predictor or the plain model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "algos/algo.h"
#include "measure/calib.h"
#include "threads/copy.h"
#include "threads/plan.h"

#include "call_fixture.h"

/* The machine the tests' calibrations name (ExecHost.fingerprint). */
#define HOST "Test CPU x4"

static void assert_close(double a, double b)
{
    if (fabs(a - b) > 1e-8 * fabs(b) + 1e-300)
        fail_msg("%.12g differs from %.12g", a, b);
}


/* Step k's time on one shared memory system with one bandwidth (no cache
 * effects), from the transfers as the executors run them (copy-ins fused
 * into the reduce that follows): alpha and the message latency for each
 * message beyond the first of the rank with the most, every byte moved and
 * every staged byte at beta (but no faster than the busiest destination's
 * bytes at one core's rate, beta_one), every byte reduced at gamma. */
static double flat_step_time(const Schedule *s, size_t k, const ModelParams *m,
                             double alpha_msg, const uint8_t *staged,
                             const uint8_t *skip, const Transfer **own,
                             double beta_one)
{
    const Step *st = &s->steps[k];
    int p = s->call.nranks, most = 0;
    double bytes = 0, red = 0, ts = (double)dtype_size(s->call.dtype);
    int *link = calloc((size_t)p * p, sizeof *link); /* [src * p + dst] */
    double *mine = calloc((size_t)p, sizeof *mine), busiest = 0;
    assert_non_null(link);
    assert_non_null(mine);
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &s->xfers[i];
        /* copy-in fusion (sched_fuse_map): a copy no one needs is
         * skipped, a reduce that starts from the input reads it too (half
         * a copy's bytes) */
        if (skip[i])
            continue;
        double extra = own[i] ? 0.5 * ts * (double)t->count : 0;
        bytes += ts * (double)t->count * (staged[i] ? 2 : 1) + extra;
        mine[t->dst] += ts * (double)t->count * (staged[i] ? 2 : 1) + extra;
        busiest = mine[t->dst] > busiest ? mine[t->dst] : busiest;
        red += t->op == XFER_REDUCE ? ts * (double)t->count : 0;
        if (t->src != t->dst)
            link[t->src * p + t->dst] = 1; /* a message from src to dst */
    }
    for (int r = 0; r < p; r++) {
        int o = 0, i = 0;
        for (int q = 0; q < p; q++)
            o += link[r * p + q], i += link[q * p + r];
        most = o > most ? o : most;
        most = i > most ? i : most;
    }
    free(link);
    free(mine);
    double moved = bytes * m->beta > busiest * beta_one ? bytes * m->beta
                                                         : busiest * beta_one;
    double lat = most ? m->alpha + (most - 1) * alpha_msg : 0;
    return lat + moved + red * m->gamma;
}

/* The flat shared-memory time of a whole schedule. */
static double flat_time(const Schedule *s, const ModelParams *m,
                        double alpha_msg, double beta_one)
{
    uint8_t *staged = malloc(s->nxfers + 1), *skip = calloc(s->nxfers + 1, 1);
    const Transfer **own = calloc(s->nxfers + 1, sizeof *own),
                   **via = calloc(s->nxfers + 1, sizeof *via);
    assert_true(staged && skip && own && via);
    assert_int_equal(sched_validate(s, &(SchedCheck){0}, staged), CV_OK);
    assert_int_equal(sched_fuse_map(s, own, via, skip), CV_OK);
    double t = 0;
    for (size_t k = 0; k < s->nsteps; k++)
        t += flat_step_time(s, k, m, alpha_msg, staged, skip, own, beta_one);
    free(staged), free(skip), free(own), free(via);
    return t;
}

/* One algorithm at p ranks and count n: footprint, and both predictions
 * with a calibration of one point (one bandwidth at every size). */
static void check_flat(const AlgoInfo *a, int p, size_t n, bool in_place)
{
    Calib c = {.backend = "threads", .alpha = 1e-6, .alpha_msg = 3e-7,
               .npoints = 1};
    c.pt[0] = (CalibPoint){1e6, 1e-9, 3e-9, 2e-9, 5e-9, 0, 0};
    CollCall call = {.kind = a->coll, .nranks = p, .count = n, .dtype = DT_DOUBLE,
                     .op = OP_SUM, .root = p - 1, .in_place = in_place};
    Schedule s;
    assert_int_equal(algo_generate(a, &call, &s), CV_OK);
    double fp = 0;
    for (int r = 0; r < p; r++)
        for (int b = 0; b < BUF_COUNT; b++)
            fp += 8.0 * (double)sched_bufsize(&s, r, (BufId)b);
    assert_close(calib_footprint(&s), fp);
    for (int l = 0; l <= MACHINE_BUS; l++) {
        double t = -1;
        CostTerms ct;
        ModelParams m = calib_params(&c, (MachineKind)l, fp);
        assert_int_equal(calib_predict(&c, &s, (MachineKind)l, &t), CV_OK);
        assert_int_equal(model_schedule_cost(&s, (MachineKind)l, &m, &ct), CV_OK);
        /* one core alone moves bytes at the p2p rate (3e-9 s/B) */
        double want = l == MACHINE_FULL ? cost_time(&ct, &m)
                                    : flat_time(&s, &m, c.alpha_msg, 3e-9);
        if (fabs(t - want) > 1e-9 * want + 1e-300)
            fail_msg("%s/%s p=%d n=%zu %s: %s predicts %g, not %g",
                     coll_name(a->coll), a->name, p, n, in_place ? "in" : "out",
                     machine_kind_name((MachineKind)l), t, want);
    }
    sched_fini(&s);
}

static void test_predict_flat(void **state)
{
    (void)state;
    for (size_t i = 0; i < algo_count(); i++)
        for (int p = 1; p <= 9 && !algo_at(i)->fits; p += 2) /* fits: not
                                                              on flat ones */
            for (size_t n = 0; n <= 130; n += 26)
                if (call_defined(algo_at(i)->coll, p, (n / 26) % 2))
                    check_flat(algo_at(i), p, n, (n / 26) % 2);
}

/* Prediction of algorithm `name` of collective k, p ranks, n doubles. */
static double predict(const Calib *c, CollKind k, const char *name, int p,
                      size_t n)
{
    CollCall call = {.kind = k, .nranks = p, .count = n, .dtype = DT_DOUBLE};
    Schedule s;
    double t = -1;
    assert_int_equal(algo_generate(algo_find(k, name), &call, &s), CV_OK);
    assert_int_equal(calib_predict(c, &s, MACHINE_BUS, &t), CV_OK);
    sched_fini(&s);
    return t;
}

/* With a cache (fast below 1 MB of reuse distance, slow beyond 100 MB), a
 * small schedule runs at cache speed, a huge single pass at memory speed,
 * and everything lies between. */
static void test_predict_cache(void **state)
{
    (void)state;
    Calib two = {.backend = "threads", .alpha = 1e-6, .npoints = 2};
    Calib fast = two, slow = two;
    two.pt[0] = (CalibPoint){1e6, 1e-10, 1e-10, 1e-11, 1e-11, 0, 0};
    two.pt[1] = (CalibPoint){1e8, 1e-9, 1e-9, 1e-11, 1e-11, 0, 0};
    fast.pt[0] = fast.pt[1] = two.pt[0];
    slow.pt[0] = slow.pt[1] = two.pt[1];
    fast.pt[1].footprint = slow.pt[0].footprint = 1e6;
    fast.pt[0].footprint = slow.pt[0].footprint = 1e5;
    for (int p = 2; p <= 8; p *= 2) {
        assert_close(predict(&two, COLL_ALLREDUCE, "ring", p, 1000),
                     predict(&fast, COLL_ALLREDUCE, "ring", p, 1000));
        /* 400 MB once per iteration from the root: nothing comes back
         * (but for a few bytes where two buffers share a chunk). */
        double big = predict(&two, COLL_BROADCAST, "linear", p, 50000000);
        assert_true(fabs(big / predict(&slow, COLL_BROADCAST, "linear", p,
                                       50000000) - 1) < 1e-4);
        for (size_t n = 1000; n <= 10000000; n *= 10) {
            double t = predict(&two, COLL_ALLREDUCE, "ring", p, n);
            assert_true(t >= predict(&fast, COLL_ALLREDUCE, "ring", p, n) * (1 - 1e-12));
            assert_true(t <= predict(&slow, COLL_ALLREDUCE, "ring", p, n) * (1 + 1e-12));
        }
    }
}

/* Cached bytes are work for the core of the rank that moves them: with
 * two cores, a step only the root works in (a linear reduce) takes twice
 * as long as with one, a ring whose ranks share the work evenly the same. */
static void test_predict_cores(void **state)
{
    (void)state;
    Calib one = {.backend = "threads", .npoints = 2, .nranks = 4, .cores = 1}, two = one;
    one.pt[0] = (CalibPoint){1e6, 1e-10, 1e-10, 0, 0, 0, 0};
    one.pt[1] = (CalibPoint){1e8, 1e-9, 1e-9, 0, 0, 0, 0};
    two.pt[0] = one.pt[0], two.pt[1] = one.pt[1];
    two.cores = 2;
    for (size_t n = 100; n <= 1000; n += 300) {
        double lin1 = predict(&one, COLL_REDUCE, "linear", 4, n);
        double lin2 = predict(&two, COLL_REDUCE, "linear", 4, n);
        assert_true(lin1 > 0);
        assert_close(lin2, 2 * lin1);
        assert_close(predict(&two, COLL_ALLREDUCE, "ring", 4, 4 * n),
                     predict(&one, COLL_ALLREDUCE, "ring", 4, 4 * n));
    }
}

/* Bytes a rank reads after another rank wrote them cost what the cross
 * bandwidth says, bytes it touched itself what the shared one says: a
 * slower cross bandwidth slows a ring allreduce down (its ranks forward
 * what they receive), but not one rank alone (all its bytes are its own);
 * a calibration without cross bandwidths predicts as if they were the
 * shared ones. */
static void test_predict_cross(void **state)
{
    (void)state;
    Calib none = {.backend = "threads", .alpha = 1e-6, .npoints = 2};
    Calib same = none, slow = none;
    none.pt[0] = (CalibPoint){1e6, 1e-10, 1e-10, 1e-11, 1e-11, 0, 0};
    none.pt[1] = (CalibPoint){1e8, 1e-9, 1e-9, 1e-11, 1e-11, 0, 0};
    for (int i = 0; i < 2; i++) {
        same.pt[i] = slow.pt[i] = none.pt[i];
        same.pt[i].beta_cross = none.pt[i].beta_shared;
        slow.pt[i].beta_cross = 4 * none.pt[i].beta_shared;
    }
    for (int p = 1; p <= 8; p *= 2)
        for (size_t n = 1000; n <= 1000000; n *= 10) {
            double t0 = predict(&none, COLL_ALLREDUCE, "ring", p, n);
            assert_close(predict(&same, COLL_ALLREDUCE, "ring", p, n), t0);
            double t1 = predict(&slow, COLL_ALLREDUCE, "ring", p, n);
            if (p == 1)
                assert_close(t1, t0);
            else if (!(t1 > 1.2 * t0))
                fail_msg("p=%d n=%zu: %g with a slow cross bandwidth, %g "
                         "without", p, n, t1, t0);
        }
}

/* Where ranks outnumber the cores the cross curve is not used (calib.h):
 * a slow cross bandwidth slows a ring allreduce down only while every
 * rank has a core of its own. */
static void test_predict_cross_cores(void **state)
{
    (void)state;
    for (int p = 2; p <= 8; p *= 2)
        for (int cores = 1; cores <= 9; cores++) {
            Calib same = {.backend = "threads", .alpha = 1e-6, .npoints = 2,
                          .nranks = p,
                          .cores = cores}, slow = same;
            same.pt[0] = (CalibPoint){1e6, 1e-10, 1e-10, 1e-11, 1e-11, 1e-10, 0};
            same.pt[1] = (CalibPoint){1e8, 1e-9, 1e-9, 1e-11, 1e-11, 1e-9, 0};
            for (int i = 0; i < 2; i++)
                slow.pt[i] = same.pt[i], slow.pt[i].beta_cross *= 4;
            for (size_t n = 1000; n <= 1000000; n *= 100) {
                double t0 = predict(&same, COLL_ALLREDUCE, "ring", p, n);
                double t1 = predict(&slow, COLL_ALLREDUCE, "ring", p, n);
                if (p > cores)
                    assert_close(t1, t0);
                else if (!(t1 > 1.2 * t0))
                    fail_msg("p=%d on %d cores, n=%zu: %g with a slow cross "
                             "bandwidth, %g without", p, cores, n, t1, t0);
            }
        }
}

/* A write to lines another rank's core holds (it read them) is cross too:
 * with a slow cross bandwidth an allgather at p = 2 in which rank 0
 * writes its recv block from its tmp buffer, where rank 1 read it the
 * iteration before, slows down; an in-place ring allgather at p = 2 and a linear broadcast
 * (every rank writes only lines of its own, and reads lines nobody wrote)
 * do not. */
static void test_predict_cross_write(void **state)
{
    (void)state;
    Calib same = {.backend = "threads", .alpha = 1e-6, .npoints = 2,
                  .nranks = 2, .cores = 2}, slow = same;
    same.pt[0] = (CalibPoint){1e6, 1e-10, 1e-10, 1e-11, 1e-11, 1e-10, 0};
    same.pt[1] = (CalibPoint){1e8, 1e-9, 1e-9, 1e-11, 1e-11, 1e-9, 0};
    for (int i = 0; i < 2; i++)
        slow.pt[i] = same.pt[i], slow.pt[i].beta_cross *= 4;
    /* Blocks of whole 4 KiB chunks (the model's unit of address space),
     * so that no chunk holds parts of two ranks' blocks. */
    for (size_t n = 1024; n <= 65536; n *= 8) {
        CollCall call = {.kind = COLL_ALLGATHER, .nranks = 2, .count = n,
                         .dtype = DT_DOUBLE};
        for (int in_place = 0; in_place < 2; in_place++) {
            call.in_place = in_place;
            Schedule s;
            double t0 = 0, t1 = 0;
            if (in_place) {
                assert_int_equal(algo_generate(algo_find(COLL_ALLGATHER, "ring"), &call, &s), CV_OK);
            } else {
                /* rank 0's block through its tmp buffer into its recv
                 * buffer, which rank 1 reads in the last step */
                assert_int_equal(sched_init(&s, &call, "write-then-read"), CV_OK);
                sched_tmp_all(&s, n);
                sched_step(&s, "copy-in");
                sched_copy(&s, 0, BUF_SEND, 0, 0, BUF_TMP, 0, n);
                sched_copy(&s, 1, BUF_SEND, 0, 1, BUF_RECV, n, n);
                sched_step(&s, "write");
                sched_copy(&s, 0, BUF_TMP, 0, 0, BUF_RECV, 0, n);
                sched_step(&s, "read");
                sched_copy(&s, 0, BUF_RECV, 0, 1, BUF_RECV, 0, n);
                sched_copy(&s, 1, BUF_RECV, n, 0, BUF_RECV, n, n);
                assert_int_equal(sched_end(&s), CV_OK);
            }
            assert_int_equal(calib_predict(&same, &s, MACHINE_BUS, &t0), CV_OK);
            assert_int_equal(calib_predict(&slow, &s, MACHINE_BUS, &t1), CV_OK);
            sched_fini(&s);
            if (in_place)
                assert_close(t1, t0);
            else if (!(t1 > 1.2 * t0))
                fail_msg("n=%zu: %g with a slow cross bandwidth, %g without", n, t1, t0);
        }
        assert_close(predict(&slow, COLL_BROADCAST, "linear", 2, n),
                     predict(&same, COLL_BROADCAST, "linear", 2, n));
    }
}

/* Pushes (plan_push_all): on two cores the idle rank of a 2-rank gather
 * moves its own block into the root's buffer, so with a memory that one
 * core alone fills half (beta_p2p twice beta_shared, everything from
 * memory) a large gather takes half the time it takes on one core, where
 * the root moves both blocks; blocks below PLAN_PUSH_BYTES are not
 * pushed and take the same time on either. */
static void test_predict_push(void **state)
{
    (void)state;
    Calib one = {.backend = "threads", .alpha = 1e-12, .npoints = 1,
                 .nranks = 2, .cores = 1}, two;
    one.pt[0] = (CalibPoint){1e6, 1e-10, 2e-10, 0, 0, 1e-10, 0};
    two = one;
    two.cores = 2;
    size_t big = 2 * PLAN_PUSH_BYTES / sizeof(double), small = big / 8;
    for (int in_place = 0; in_place < 2; in_place++) {
        CollCall call = {.kind = COLL_GATHER, .nranks = 2, .count = big,
                         .dtype = DT_DOUBLE, .in_place = in_place};
        double t1 = 0, t2 = 0;
        Schedule s;
        assert_int_equal(algo_generate(algo_find(COLL_GATHER, "linear"), &call, &s), CV_OK);
        assert_int_equal(calib_predict(&one, &s, MACHINE_BUS, &t1), CV_OK);
        assert_int_equal(calib_predict(&two, &s, MACHINE_BUS, &t2), CV_OK);
        sched_fini(&s);
        if (!(t2 < 0.6 * t1))
            fail_msg("in place %d: %g on two cores, %g on one", in_place, t2, t1);
        call.count = small;
        assert_int_equal(algo_generate(algo_find(COLL_GATHER, "linear"), &call, &s), CV_OK);
        assert_int_equal(calib_predict(&one, &s, MACHINE_BUS, &t1), CV_OK);
        assert_int_equal(calib_predict(&two, &s, MACHINE_BUS, &t2), CV_OK);
        sched_fini(&s);
        assert_close(t2, t1);
    }
}

/* Steps with messages like the step latency's cost at least lat_step for
 * every round of receiving ranks the cores take turns at, and the
 * iteration lat_iter more; steps of small messages cost alpha, and
 * alpha_msg for each message beyond the first of the rank with the most.
 * With bytes free, 4 ranks on 2 cores: a ring allgather's three
 * exchange steps (every rank receives) cost lat_step each, a binomial
 * broadcast's two steps (1 and 2 receivers: one round of the two a full
 * step takes) half of it each. */
static void test_predict_latency(void **state)
{
    (void)state;
    Calib c = {.backend = "threads", .alpha = 1e-9, .lat_step = 1e-3, .lat_iter = 5e-4,
               .npoints = 1, .nranks = 4, .cores = 2};
    c.pt[0] = (CalibPoint){1e6, 1e-18, 1e-18, 0, 0, 1e-18, 0};
    size_t big = 2 * CALIB_LAT_BYTES / sizeof(double), small = 16;
    double t = predict(&c, COLL_ALLGATHER, "ring", 4, big);
    assert_true(fabs(t - 3.5e-3) < 1e-5);
    t = predict(&c, COLL_BROADCAST, "binomial", 4, big);
    assert_true(fabs(t - 1.5e-3) < 1e-5);
    assert_true(predict(&c, COLL_ALLGATHER, "ring", 4, small) < 1e-7);
    /* Ranks no more than cores: one round per step. */
    c.cores = 4;
    t = predict(&c, COLL_BROADCAST, "binomial", 4, big);
    assert_true(fabs(t - 2.5e-3) < 1e-5);
    /* Not measured (older files, made-up calibrations): alpha alone. */
    c.lat_step = c.lat_iter = 0;
    assert_true(predict(&c, COLL_ALLGATHER, "ring", 4, big) < 1e-7);
    /* Small messages: a gather's root takes 3 of them in one step, and so
     * does every rank of a linear allgather; a ring moves one per step. */
    c.alpha = 1e-3, c.alpha_msg = 1e-4;
    for (int p = 2; p <= 9; p++) {
        double one = 1e-3 + (p - 2) * 1e-4;
        assert_true(fabs(predict(&c, COLL_GATHER, "linear", p, small) - one) < 1e-6);
        assert_true(fabs(predict(&c, COLL_ALLGATHER, "linear", p, small) - one) < 1e-6);
        assert_true(fabs(predict(&c, COLL_ALLGATHER, "ring", p, small) -
                         (p - 1) * 1e-3) < 1e-6);
    }
}

/* A copy the executor does not stream, in a working set that does not
 * fit the last-level cache, writes to memory after reading the line it
 * stores to (copy.h), while the calibration's memory bandwidth is a
 * streamed copy's: with every byte in memory and nothing else to pay, a
 * 2-rank chain broadcast (segments of 64 KiB, not streamed) takes 1.5
 * times a linear one (one streamed copy each of the root and the other
 * rank). In a working set the cache holds, nothing streams and both take
 * the same. A working set exactly as large as the cache does not fit it
 * either (though nothing streams there yet): an in-place chain whose
 * buffers come to the cache's size pays 1.5 times per element what one
 * element less pays. */
static void test_predict_write_miss(void **state)
{
    (void)state;
    Calib c = {.backend = "threads", .npoints = 1, .nranks = 2, .cores = 2};
    c.pt[0] = (CalibPoint){1e6, 1e-10, 1.5e-10, 0, 0, 0, 0};
    size_t cache = copy_cache_bytes(), small = cache / 16 / sizeof(double);
    size_t big = 4 * cache / sizeof(double);
    for (int i = 0; i < 2; i++) {
        size_t n = i ? small : big;
        double chain = predict(&c, COLL_BROADCAST, "chain", 2, n);
        double linear = predict(&c, COLL_BROADCAST, "linear", 2, n);
        if (fabs(chain / linear - (i ? 1.0 : 1.5)) > 1e-6)
            fail_msg("%zu doubles: chain %g s, linear %g s", n, chain, linear);
    }
    /* In place, every rank has one buffer: 16 bytes per element of the
     * two ranks, which a cache of whole KiB is a multiple of. */
    double at = 0, below = 0;
    size_t fits = cache / 16;
    assert_int_equal(cache % 16, 0);
    for (int i = 0; i < 2; i++) {
        CollCall call = {.kind = COLL_BROADCAST, .nranks = 2,
                         .count = fits - (size_t)i, .dtype = DT_DOUBLE,
                         .in_place = 1};
        Schedule s;
        double t = 0;
        assert_int_equal(algo_generate(algo_find(COLL_BROADCAST, "chain"), &call, &s),
                         CV_OK);
        if (!i)
            assert_true(calib_footprint(&s) == (double)cache);
        assert_int_equal(calib_predict(&c, &s, MACHINE_BUS, &t), CV_OK);
        sched_fini(&s);
        *(i ? &below : &at) = t / (double)call.count;
    }
    if (fabs(at / below - 1.5) > 1e-6)
        fail_msg("cache %zu B: %zu doubles %g s each, one less %g s each", cache,
                 fits, at, below);
}

/* calib_predict asks the calibration's backend for its prediction
 * (ExecOps.predict: the threads backend walks the schedule as it runs
 * it) and, for a backend without a predictor here (not built in, or not
 * known), uses the plain model: model.h's cost with calib_params at the
 * schedule's footprint (calib_model_cost). */
static void test_predict_dispatch(void **state)
{
    (void)state;
    char why[200];
    const ExecOps *threads = exec_find("threads", why, sizeof why);
    assert_non_null(threads);
    assert_non_null(threads->predict);
    Calib c = {.backend = "threads", .alpha = 1e-6, .alpha_msg = 1e-7,
               .npoints = 2, .nranks = 4, .cores = 2};
    c.pt[0] = (CalibPoint){1e6, 1e-10, 2e-10, 1e-11, 2e-11, 3e-10, 0};
    c.pt[1] = (CalibPoint){1e8, 1e-9, 2e-9, 1e-11, 2e-11, 3e-9, 0};
    CollCall call = {.kind = COLL_ALLREDUCE, .nranks = 4, .count = 100000,
                     .dtype = DT_FLOAT, .op = OP_SUM};
    Schedule s;
    assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "ring"), &call, &s),
                     CV_OK);
    static const char *const others[] = {"cuda", "mpi", "nosuch", ""};
    for (int l = 0; l <= MACHINE_BUS; l++) {
        double own = -1, plain = -1, got = -1;
        CostTerms t;
        ModelParams m = calib_params(&c, (MachineKind)l, calib_footprint(&s));
        assert_int_equal(model_schedule_cost(&s, (MachineKind)l, &m, &t), CV_OK);
        plain = cost_time(&t, &m);
        assert_int_equal(threads->predict(&c, &s, (MachineKind)l, &own), CV_OK);
        assert_int_equal(calib_predict(&c, &s, (MachineKind)l, &got), CV_OK);
        assert_true(got == own);
        /* the walk is not the plain model (else this test could not
         * tell the two apart) */
        if (l == MACHINE_BUS && !(fabs(own / plain - 1) > 0.01))
            fail_msg("threads predicts %g, the plain model %g", own, plain);
        assert_int_equal(calib_model_cost(&c, &s, (MachineKind)l, &got), CV_OK);
        assert_true(got == plain);
        for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
            Calib o = c;
            snprintf(o.backend, sizeof o.backend, "%s", others[i]);
            got = -1;
            assert_int_equal(calib_predict(&o, &s, (MachineKind)l, &got), CV_OK);
            if (got != plain)
                fail_msg("backend '%s', %s: %g, not the plain model's %g",
                         others[i], machine_kind_name((MachineKind)l), got, plain);
        }
    }
    sched_fini(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_predict_flat),
        cmocka_unit_test(test_predict_cache),
        cmocka_unit_test(test_predict_cores),
        cmocka_unit_test(test_predict_cross_cores),
        cmocka_unit_test(test_predict_push),
        cmocka_unit_test(test_predict_cross),
        cmocka_unit_test(test_predict_cross_write),
        cmocka_unit_test(test_predict_latency),
        cmocka_unit_test(test_predict_write_miss),
        cmocka_unit_test(test_predict_dispatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
