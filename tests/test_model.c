/* test_model.c - costs of hand-made schedules under both link models, and
 * lower bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "core/model.h"
#include "golden_fixture.h"
#include "scene/spec.h"
#include "run_bin.h"

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

/* ------------------------------------------------ a memory machine */

#define MEM_STEP 1e-6
#define MEM_CALL 3e-6
#define MEM_BETA 1e-9

static Machine mem_machine(int p, bool shared, MemFuse fuse)
{
    MemLevel ml = {.step = MEM_STEP, .call = MEM_CALL, .beta_mem = MEM_BETA,
                   .shared_reads = shared, .fuse = fuse};
    Machine m;
    assert_int_equal(machine_memory(&m, MACHINE_GPU, p, &ml, 0), CV_OK);
    return m;
}

static bool near(double a, double b) { return fabs(a - b) <= 1e-15 + 1e-12 * fabs(b); }

/* star's three steps by hand, 10 floats: the root's range goes to p - 1
 * ranks (read once with shared reads: 10 + 10 (p - 1) elements, else
 * 20 (p - 1)); p local copies (20 p); one reduce (reads two, writes one:
 * 30). Each step one start, the first also the call's. */
static void test_memory_star(void **state)
{
    (void)state;
    for (int p = 2; p <= 33; p++) {
        Schedule s;
        star(&s, p, 10);
        for (int shared = 0; shared < 2; shared++) {
            Machine m = mem_machine(p, shared, MEM_FUSE_WHOLE);
            double elems0 = shared ? 10.0 * p : 20.0 * (p - 1);
            double want = MEM_CALL + 3 * MEM_STEP +
                          4 * (elems0 + 20.0 * p + 30) * MEM_BETA, got;
            CostTerms t;
            assert_int_equal(model_machine_cost(&s, &m, false, &t, &got), CV_OK);
            assert_true(near(got, want));
            assert_true(t.a == 3 && t.b == 4 * (elems0 + 20.0 * p + 30));
            assert_true(t.g == 40 && t.steps == 1);
            Pricer pr;
            StepPrice sp;
            assert_int_equal(pricer_init(&pr, &m), CV_OK);
            assert_int_equal(price_step(&pr, &s, 2, false, &sp), CV_OK);
            assert_true(near(sp.time, MEM_STEP + 120 * MEM_BETA));
            assert_int_equal(sp.busiest, 2 * p); /* the medium */
            pricer_fini(&pr);
        }
        sched_fini(&s);
    }
}

/* Two ranks swap their scratch in one step: both sources are
 * overwritten, so both are staged: reads 8, writes 8, the stage's copies
 * 16 elements, and two starts. Then the allgather's outputs: reads 8,
 * writes 8, one start. */
static void test_memory_staged(void **state)
{
    (void)state;
    Schedule s;
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 2, .count = 4,
                  .dtype = DT_FLOAT, .in_place = true};
    assert_int_equal(sched_init(&s, &c, "swap"), CV_OK);
    sched_tmp_all(&s, 4);
    sched_step(&s, "swap");
    sched_copy(&s, 0, BUF_TMP, 0, 1, BUF_TMP, 0, 4);
    sched_copy(&s, 1, BUF_TMP, 0, 0, BUF_TMP, 0, 4);
    sched_step(&s, "gather");
    sched_copy(&s, 0, BUF_RECV, 0, 1, BUF_RECV, 0, 4);
    sched_copy(&s, 1, BUF_RECV, 4, 0, BUF_RECV, 4, 4);
    assert_int_equal(sched_end(&s), CV_OK);
    SchedCheck chk;
    uint8_t staged[4] = {0};
    assert_int_equal(sched_validate(&s, &chk, staged), CV_OK);
    assert_true(staged[0] && staged[1] && !staged[2] && !staged[3]);
    Machine m = mem_machine(2, true, MEM_FUSE_WHOLE);
    double got;
    CostTerms t;
    assert_int_equal(model_machine_cost(&s, &m, false, &t, &got), CV_OK);
    assert_true(near(got, MEM_CALL + 3 * MEM_STEP + 192 * MEM_BETA));
    sched_fini(&s);
}

/* An out-of-place reduce of 2 ranks as written: the root's copy-in, then
 * rank 1's range reduced into it. Fused (whole, next step) the copy is
 * left out: one start and 3 n elements; as written two starts and 2 n +
 * 3 n. */
static void test_memory_fusion(void **state)
{
    (void)state;
    size_t n = 1000;
    Schedule s;
    CollCall c = {.kind = COLL_REDUCE, .nranks = 2, .count = n,
                  .dtype = DT_FLOAT, .op = OP_SUM};
    assert_int_equal(sched_init(&s, &c, "copy-in"), CV_OK);
    sched_step(&s, "copy-in");
    sched_copy(&s, 0, BUF_SEND, 0, 0, BUF_RECV, 0, n);
    sched_step(&s, "reduce");
    sched_reduce(&s, 1, BUF_SEND, 0, 0, BUF_RECV, 0, n);
    assert_int_equal(sched_end(&s), CV_OK);
    const MemFuse how[] = {MEM_FUSE_WHOLE, MEM_FUSE_NEXT, MEM_FUSE_NONE};
    const double want[] = {
        MEM_CALL + MEM_STEP + 4 * 3.0 * n * MEM_BETA,
        MEM_CALL + MEM_STEP + 4 * 3.0 * n * MEM_BETA,
        MEM_CALL + 2 * MEM_STEP + 4 * 5.0 * n * MEM_BETA};
    for (int i = 0; i < 3; i++) {
        Machine m = mem_machine(2, true, how[i]);
        double got;
        CostTerms t;
        assert_int_equal(model_machine_cost(&s, &m, false, &t, &got), CV_OK);
        assert_true(near(got, want[i]));
    }
    sched_fini(&s);
}

/* Fresh reads by hand, a host of 2 ranks (1 ns a byte of traffic, 3 ns
 * for a fresh read, no call): rank 0's input goes to rank 1 (in place:
 * it lies in rank 0's output, written by no step yet: 8 elements of
 * traffic at 1 ns), then rank 1 sends it back into rank 0's scratch,
 * reading what step 0 wrote into its own output (8 at 3 ns). */
static void test_memory_fresh(void **state)
{
    (void)state;
    Schedule s;
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 2, .count = 4,
                  .dtype = DT_FLOAT, .in_place = true};
    assert_int_equal(sched_init(&s, &c, "there and back"), CV_OK);
    sched_tmp_all(&s, 4);
    sched_step(&s, "there");
    sched_copy(&s, 0, BUF_RECV, 0, 1, BUF_RECV, 0, 4);
    sched_copy(&s, 1, BUF_RECV, 4, 0, BUF_RECV, 4, 4);
    sched_step(&s, "back");
    sched_copy(&s, 1, BUF_RECV, 0, 0, BUF_TMP, 0, 4);
    assert_int_equal(sched_end(&s), CV_OK);
    MemLevel ml = {.step = 1e-6, .beta_mem = 1e-9, .beta_fresh = 3e-9,
                   .shared_reads = true};
    Machine m;
    assert_int_equal(machine_memory(&m, MACHINE_HOST, 2, &ml, 0), CV_OK);
    double got;
    CostTerms t;
    assert_int_equal(model_machine_cost(&s, &m, false, &t, &got), CV_OK);
    /* step 0: 16 elements of traffic (64 B) at 1 ns; step 1: 8 (32 B)
       fresh at 3 ns */
    assert_true(near(got, 2e-6 + 64e-9 + 32 * 3e-9));
    sched_fini(&s);
}

/* The rate by working set: the cache's at half the cache and below, the
 * memory's at twice it and above, halfway (in log size) at the cache. */
static void test_memory_rate(void **state)
{
    (void)state;
    MemLevel ml = {.beta_mem = 4e-12, .beta_cache = 1e-12, .cache = 50e6};
    assert_true(machine_mem_beta(&ml, 1e3) == 1e-12);
    assert_true(machine_mem_beta(&ml, 25e6) == 1e-12);
    assert_true(near(machine_mem_beta(&ml, 50e6), 2.5e-12));
    assert_true(machine_mem_beta(&ml, 100e6) == 4e-12);
    assert_true(machine_mem_beta(&ml, 1e12) == 4e-12);
    ml.cache = 0; /* no cache: memory's everywhere */
    assert_true(machine_mem_beta(&ml, 1e3) == 4e-12);
    Machine m;
    MemLevel bad = {.beta_mem = 0};
    assert_int_equal(machine_memory(&m, MACHINE_GPU, 4, &bad, 0), CV_ERR_ARG);
    bad = (MemLevel){.beta_mem = 1e-9, .step = -1};
    assert_int_equal(machine_memory(&m, MACHINE_HOST, 4, &bad, 0), CV_ERR_ARG);
    bad.step = 0;
    assert_int_equal(machine_memory(&m, MACHINE_BUS, 4, &bad, 0), CV_ERR_ARG);
    assert_int_equal(machine_memory(&m, MACHINE_HOST, 4, &bad, 0), CV_OK);
    assert_true(machine_is_memory(&m) && machine_has_medium(&m));
}

/* A compact schedule costs what its written-out form does, the call once:
 * ring allreduce in place (no copy-ins), p = 2 to 16. */
static void test_memory_compact(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_ALLREDUCE, "ring");
    assert_non_null(a);
    for (int p = 2; p <= 16; p++) {
        CollCall c = {.kind = COLL_ALLREDUCE, .nranks = p, .count = 3 * p + 1,
                      .dtype = DT_FLOAT, .op = OP_SUM, .in_place = true};
        Machine m = mem_machine(p, true, MEM_FUSE_WHOLE);
        Schedule w, k;
        assert_int_equal(algo_generate_as(a, &c, &m, 0, &w, NULL, 0), CV_OK);
        assert_int_equal(algo_generate_as(a, &c, &m, ALGO_COMPACT, &k, NULL, 0),
                         CV_OK);
        double tw, tk;
        CostTerms t;
        assert_int_equal(model_machine_cost(&w, &m, false, &t, &tw), CV_OK);
        assert_int_equal(model_machine_cost(&k, &m, false, &t, &tk), CV_OK);
        assert_true(near(tw, tk));
        /* 2 (p - 1) steps, each one start */
        assert_true(tw > MEM_CALL + 2 * (p - 1) * MEM_STEP);
        sched_fini(&w);
        sched_fini(&k);
    }
}

/* ------------------------------------------------ a machine's bound */

static void spec_machine(const char *spec, int p, Machine *m)
{
    SpecModel cm;
    CliErr e;
    assert_int_equal(spec_parse_model(NULL, NULL, NULL, NULL, &cm, &e), 0);
    if (spec_parse(spec, p, &cm, m, &e))
        fail_msg("%s: %s", spec, e.msg);
}

/* By hand: allgather on torus:4x4 (alpha 1 us, 10 GB/s a link): 4 links
 * a rank, ceil(log5 16) = 2 steps, 15 blocks of 8 B over 4 links: 2 us +
 * 30 B x 0.1 ns. On gpu:4, broadcast of 2 floats out of place: 8 output
 * elements to write (32 B) at the cache's 6000 GB/s, after the call's
 * 2.3 us and a step's 1.5 us; in place the root's output holds its
 * input: 6 elements. On a switch that sums: none. */
static void test_bound_by_hand(void **state)
{
    (void)state;
    Machine m;
    double t;
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 16, .count = 2,
                  .dtype = DT_FLOAT};
    spec_machine("torus:4x4", 16, &m);
    assert_true(model_machine_bound(&c, &m, &t));
    assert_true(near(t, 2e-6 + 30 * 1e-10));
    c = (CollCall){.kind = COLL_BROADCAST, .nranks = 4, .count = 2,
                   .dtype = DT_FLOAT};
    spec_machine("gpu", 4, &m);
    assert_true(model_machine_bound(&c, &m, &t));
    assert_true(near(t, 3.8e-6 + 32 / 6e12));
    c.in_place = true;
    assert_true(model_machine_bound(&c, &m, &t));
    assert_true(near(t, 3.8e-6 + 24 / 6e12));
    spec_machine("switch,reduce", 4, &m);
    assert_false(model_machine_bound(&c, &m, &t));
}

/* And no schedule beats it: every algorithm that fits, every collective,
 * on the network and memory machines, counts the ranks do not divide. */
static void test_bound_holds(void **state)
{
    (void)state;
    static const char *const specs[] = {
        "torus:4x4", "mesh:4x4", "ring", "switch", "nodes:2x8",
        "nodes:2x8,nic=shared", "full,lat=1us", "gpu", "host",
        "host,cache=1K,cachebw=1000", "gpu,reads=apart"};
    static const size_t counts[] = {1, 7, 1000, 100003};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        Machine m;
        spec_machine(specs[i], 16, &m);
        for (size_t a = 0; a < algo_count(); a++) {
            const AlgoInfo *al = algo_at(a);
            for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
                for (int ip = 0; ip < 2; ip++) {
                    CollCall c = {.kind = al->coll, .nranks = 16,
                                  .count = counts[k], .dtype = DT_FLOAT,
                                  .op = OP_SUM, .in_place = ip};
                    Schedule s;
                    double t, b;
                    CostTerms terms;
                    if (coll_check(&c) != CV_OK ||
                        algo_generate_as(al, &c, &m, 0, &s, NULL, 0))
                        continue;
                    assert_int_equal(model_machine_cost(&s, &m, false,
                                                        &terms, &t), CV_OK);
                    assert_true(model_machine_bound(&c, &m, &b));
                    if (t < b * (1 - 1e-9))
                        fail_msg("%s on %s, count %zu%s: %g us beats the "
                                 "bound %g us", al->name, specs[i], counts[k],
                                 ip ? " in place" : "", t * 1e6, b * 1e6);
                    sched_fini(&s);
                }
        }
    }
}

/* ------------------------------------------- the textbook, unchanged */

/* collviz model without -B and -T, and on -T bus, prints what it printed
 * before the memory machines came (tests/golden/model_textbook.txt was
 * that build's output, f8e5e4c); on a torus, nodes and a switch that
 * sums every number but the bound column is that build's too (the bound
 * is since the machine's own, model_machine_bound). Since then,
 * Rabenseifner's reduce and the recursive-doubling all-gather off a power
 * of two are MPICH's (their rows at 6 and 13 ranks), and each algorithm
 * prints its closed form for the row's p, and the chain its segments. */
static void test_textbook_unchanged(void **state)
{
    (void)state;
    static const char *const colls[] = {
        "broadcast", "reduce", "scatter", "gather", "allgather",
        "reducescatter", "allreduce", "alltoall", "sendrecv", "hypercube"};
    static const char *const topos[] = {"bus", "torus:4x4", "nodes:2x8",
                                        "switch,reduce"};
    size_t cap = 1 << 20, len = 0;
    char *all = calloc(cap, 1);
    assert_non_null(all);
#define ADD(r)                                                              \
    do {                                                                    \
        len += (size_t)snprintf(all + len, cap - len, "%s%s", (r).out,      \
                                (r).err);                                   \
        assert_true(len < cap);                                             \
        ran_free(&(r));                                                     \
    } while (0)
    for (size_t i = 0; i < sizeof colls / sizeof *colls; i++)
        for (int p = 6; p <= 16; p += 10) {
            char ps[8];
            snprintf(ps, sizeof ps, "%d", p);
            const char *args[] = {"model", colls[i], "-p", ps,
                                  "-f", "4", NULL};
            Ran r = run_args(args);
            ADD(r);
        }
    for (size_t i = 0; i < sizeof topos / sizeof *topos; i++) {
        const char *args[] = {"model", "allreduce", "-p", "16",
                              "-f", "16", "-T", topos[i], NULL};
        Ran r = run_args(args);
        ADD(r);
    }
    const char *args[] = {"model", "allgather", "-p", "13",
                          "-f", "16", "--link", "bus", NULL};
    Ran r = run_args(args);
    ADD(r);
#undef ADD
    char *want = golden_read(GOLDEN_DIR "model_textbook.txt");
    assert_non_null(want);
    if (strcmp(all, want))
        golden_difference("model_textbook", all, want);
    assert_string_equal(all, want);
    free(want);
    free(all);
}

/* A flat machine of -T prices the closed form at its own parameters
 * (issue 49): ring allreduce on full,alpha=5us,bw=50,gamma=100, 8 ranks,
 * 1 MiB, by hand: 14 x 5 us + 1835008 B / 50 GB/s + 917504 B / 100 GB/s
 * = 70 + 36.70016 + 9.17504 = 115.8752 us, the schedule's time too. */
static void test_closed_form_on_flat(void **state)
{
    (void)state;
    const char *model[] = {"model", "allreduce", "-p", "8", "-b", "1M", "-e",
                           "1M", "-T", "full,alpha=5us,bw=50,gamma=100", NULL};
    Ran r = run_args(model);
    if (r.status || !strstr(r.out, "  ring                     15        "
                                   "115.875  2(p-1)a"))
        fail_msg("model: %s%s", r.out, r.err);
    ran_free(&r);
    const char *trace[] = {"trace", "allreduce", "-a", "ring", "-p", "8", "-s",
                           "1M", "-T", "full,alpha=5us,bw=50,gamma=100", NULL};
    r = run_args(trace);
    if (r.status || !strstr(r.out, "# closed form: 14 a + 1835008 b + "
                                   "917504 g = 115.9 us"))
        fail_msg("trace: %s%s", r.out, r.err);
    ran_free(&r);
}

/* topo counts the links a machine has (issue 49): mesh:4x4, by hand,
 * 4 rows of 3 neighbour pairs, both ways, in each dimension: 2 x 4 x 3 x
 * 2 = 48, where the torus's wrap-around makes 64; the mesh's 16 numbered
 * ends are said apart. */
static void test_topo_links(void **state)
{
    (void)state;
    const char *mesh[] = {"topo", "mesh:4x4", NULL};
    Ran r = run_args(mesh);
    if (r.status || !strstr(r.out, "\n# 16 ranks, 48 links (and 16 numbered "
                                   "that join nothing"))
        fail_msg("mesh: %s%s", r.out, r.err);
    ran_free(&r);
    const char *torus[] = {"topo", "torus:4x4", NULL};
    r = run_args(torus);
    if (r.status || !strstr(r.out, "\n# 16 ranks, 64 links\n"))
        fail_msg("torus: %s%s", r.out, r.err);
    ran_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_p2p_and_shared),
        cmocka_unit_test(test_closed_form_on_flat),
        cmocka_unit_test(test_topo_links),
        cmocka_unit_test(test_shared_ring),
        cmocka_unit_test(test_lower_bounds),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_memory_star),
        cmocka_unit_test(test_memory_staged),
        cmocka_unit_test(test_memory_fusion),
        cmocka_unit_test(test_memory_fresh),
        cmocka_unit_test(test_memory_rate),
        cmocka_unit_test(test_memory_compact),
        cmocka_unit_test(test_bound_by_hand),
        cmocka_unit_test(test_bound_holds),
        cmocka_unit_test(test_textbook_unchanged),
    };
    return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
