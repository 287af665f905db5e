/* test_machine_fix.c - links and ranks unlike their machine: slow links,
 * slow ranks and down links priced against hand computations, routes
 * around a down link, -T's and the machine file's sentences for bad
 * fixes, and every machine written as a file and read back alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algos/algo.h"
#include "core/machine.h"
#include "core/machine_file.h"
#include "core/model.h"
#include "scene/spec.h"

/* The machine of -T's spec for p ranks; fails the test when refused. */
static Machine machine_of(const char *spec, int p)
{
    SpecModel cm;
    CliErr e = {""};
    Machine m;
    assert_int_equal(spec_parse_model(NULL, NULL, NULL, NULL, &cm, &e), 0);
    if (spec_parse(spec, p, &cm, &m, &e))
        fail_msg("%s: %s", spec, e.msg);
    return m;
}

/* Seconds of algo's schedule for kind at count floats (an all-to-all's
 * count: a block's) on m. */
static double price(const Machine *m, CollKind kind, const char *algo,
                    size_t count)
{
    CollCall c = {.kind = kind, .nranks = m->nranks, .dtype = DT_FLOAT,
                  .op = OP_SUM, .count = count};
    Schedule s;
    CostTerms t;
    double sec;
    assert_int_equal(algo_generate(algo_find(kind, algo), &c, &s), CV_OK);
    assert_int_equal(model_machine_cost(&s, m, false, &t, &sec), CV_OK);
    sched_fini(&s);
    return sec;
}

static void near(double got, double want_us)
{
    if (fabs(got * 1e6 / want_us - 1) > 1e-9)
        fail_msg("%.6f us, by hand %.6f us", got * 1e6, want_us);
}

#define RING8 "ring:8,alpha=1us,bw=10,gamma=20"
#define MIB (1048576 / 4) /* floats of 1 MiB */

/* Ring allreduce of 1 MiB on a ring of 8 (alpha 1 us, 10 GB/s, reducing
 * at 20 GB/s): 14 steps of a block V/8 = 131072 B, 7 of them reducing
 * it. A step's message: 1 + 13.1072 us; a reduce 6.5536 us. One link
 * r5>r6 four times slower: every step waits on r5's message (4 times
 * 14.1072 us). Rank 3 four times slower: its messages and its reduces. */
static void test_slow_ring(void **state)
{
    (void)state;
    Machine m = machine_of(RING8, 8);
    near(price(&m, COLL_ALLREDUCE, "ring", MIB), 14 * 14.1072 + 7 * 6.5536);
    m = machine_of(RING8 ",link=r5>r6:slow=4", 8);
    near(price(&m, COLL_ALLREDUCE, "ring", MIB),
         14 * 4 * 14.1072 + 7 * 6.5536);
    m = machine_of(RING8 ",rank=3:slow=4", 8);
    near(price(&m, COLL_ALLREDUCE, "ring", MIB),
         14 * 4 * 14.1072 + 7 * 4 * 6.5536);
    /* the other way round the ring: r6>r5 carries nothing of it */
    m = machine_of(RING8 ",link=r6>r5:slow=4", 8);
    near(price(&m, COLL_ALLREDUCE, "ring", MIB), 14 * 14.1072 + 7 * 6.5536);
}

/* A binomial broadcast of 1 MiB from r0 on full:8 (0>4; 0>2, 4>6; 0>1,
 * 2>3, 4>5, 6>7): three steps of 1 + 104.8576 us. A slow r5 is waited
 * for in the last step alone, a slow r4 in all three. */
static void test_slow_tree(void **state)
{
    (void)state;
    double step = 1 + 104.8576;
    Machine m = machine_of("full:8,alpha=1us,bw=10", 8);
    near(price(&m, COLL_BROADCAST, "tree", MIB), 3 * step);
    m = machine_of("full:8,alpha=1us,bw=10,rank=5:slow=4", 8);
    near(price(&m, COLL_BROADCAST, "tree", MIB), 2 * step + 4 * step);
    m = machine_of("full:8,alpha=1us,bw=10,rank=4:slow=4", 8);
    near(price(&m, COLL_BROADCAST, "tree", MIB), 12 * step);
    /* no link joins r4 and r6 (a switch): their path, the second step */
    m = machine_of("full:8,alpha=1us,bw=10,link=r4>r6:slow=4", 8);
    near(price(&m, COLL_BROADCAST, "tree", MIB), 2 * step + 4 * step);
    m = machine_of("full:8,alpha=1us,bw=10,link=r6>r4:slow=4", 8);
    near(price(&m, COLL_BROADCAST, "tree", MIB), 3 * step);
}

/* The ends a route visits after src, in order, into ends[]. */
static int route_ranks(const Machine *m, int src, int dst, int *ends)
{
    int links[32], n = machine_route(m, src, dst, links, 32);
    for (int h = 0; h < n; h++) {
        MachineLink l = machine_link(m, links[h]);
        assert_false(machine_link_down(m, links[h]));
        ends[h] = l.to;
    }
    return n;
}

/* r5>r6 down on the ring of 8 with 1 us a hop: r5's message to r6 goes
 * the other way round, 7 hops (r4 r3 r2 r1 r0 r7 r6); the others' routes
 * are as before. The ring allreduce then pays r5's 7 hops a step: 14
 * steps of 1 + 7 + 13.1072 us (the other way's links carry nothing
 * else: the ring sends upwards), 7 reduces of 6.5536 us. */
static void test_down_ring(void **state)
{
    (void)state;
    Machine m = machine_of(RING8 ",lat=1us,link=r5>r6:down", 8);
    int ends[32], want[] = {4, 3, 2, 1, 0, 7, 6};
    assert_int_equal(route_ranks(&m, 5, 6, ends), 7);
    assert_memory_equal(ends, want, sizeof want);
    assert_int_equal(route_ranks(&m, 6, 5, ends), 1);
    assert_int_equal(route_ranks(&m, 4, 6, ends), 6); /* 2 up, now 6 down */
    assert_int_equal(machine_max_hops(&m), 7);
    near(price(&m, COLL_ALLREDUCE, "ring", MIB),
         14 * (1 + 7 + 13.1072) + 7 * 6.5536);
}

/* A fully connected line of 4 (from a file) with r0>r1 down: r0 reaches
 * r1 through r2, the next member whose links are both up. */
static void test_down_full(void **state)
{
    (void)state;
    const char *text = "topology: [ FullyConnected ]\nnpus_count: [ 4 ]\n"
                       "bandwidth: [ 10 ]\nlatency: [ 0 ]\n"
                       "collviz_fix: [ link=r0>r1:down, link=r2>r1:down ]\n";
    Machine m;
    MachineFileErr e;
    int ends[32];
    assert_int_equal(machine_file_parse(text, strlen(text), 0, &m, &e), CV_OK);
    assert_int_equal(route_ranks(&m, 0, 1, ends), 2);
    assert_int_equal(ends[0], 3); /* r2's link to r1 is down too */
    assert_int_equal(ends[1], 1);
    assert_int_equal(route_ranks(&m, 2, 1, ends), 2);
    assert_int_equal(ends[0], 3);
}

/* Pairwise all-to-all of 64 KiB (blocks b = 8192 B) on fattree:2x4
 * (leaves r0-r3, r4-r7; links 1 us, 10 GB/s). In step s rank r sends to
 * r + s: c = 1, 2, 3, 4, 3, 2, 1 messages leave each leaf. Without
 * oversubscription a trunk of 4 links (0.25 us, 40 GB/s) never holds a
 * message back: 7 steps of 1 + 0.8192 us. At 2:1 (2 links: 0.5 us,
 * 20 GB/s) a step costs max(1, c 0.5) us + max(b/10, c b/20) GB/s:
 * c <= 2: 1.8192 us, c = 3: 1.5 + 1.2288, c = 4: 2 + 1.6384. */
static void test_fattree(void **state)
{
    (void)state;
    Machine m = machine_of("fattree:2x4,alpha=1us,bw=10", 8);
    near(price(&m, COLL_ALLTOALL, "pairwise", 2048), 7 * 1.8192);
    m = machine_of("fattree:2x4,over=2,alpha=1us,bw=10", 8);
    near(price(&m, COLL_ALLTOALL, "pairwise", 2048),
         4 * 1.8192 + 2 * (1.5 + 1.2288) + 2 + 1.6384);
    int ends[32];
    assert_int_equal(route_ranks(&m, 1, 2, ends), 2);
    assert_int_equal(route_ranks(&m, 1, 6, ends), 4);
    assert_int_equal(ends[3], 6);
    /* the machine menu's shape for p ranks: leaves of 8, 4, 2 or all */
    static const struct { int p; const char *want; } shapes[] = {
        {16, "fattree:2x8,over=2"}, {8, "fattree:2x4,over=2"},
        {6, "fattree:3x2,over=2"}, {13, "fattree:1x13,over=2"},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        char got[SPEC_LEN];
        spec_for("fattree:1x1,over=2", shapes[i].p, got, sizeof got);
        assert_string_equal(got, shapes[i].want);
        machine_of(got, shapes[i].p);
    }
}

/* Parallel links: ring:8 with links=2 (each 1 us, 10 GB/s) is a ring
 * of trunks of 0.5 us and 20 GB/s: the ring allreduce of 1 MiB takes 14
 * steps of 0.5 + 6.5536 us and 7 reduces of 6.5536 us (at 20 GB/s). A
 * fat tree's core of 15 GB/s (backbone=15) carries both leaves' trunks'
 * bytes: pairwise all-to-all of 8 KiB blocks on fattree:2x4,over=2, step
 * of c messages each way: max(1, c 0.5) us + max(b/10, c b/20, 2 c b/15)
 * GB/s, the core's the largest: c 1.0922667 us. */
static void test_lanes_backbone(void **state)
{
    (void)state;
    Machine m = machine_of(RING8 ",links=2", 8);
    near(price(&m, COLL_ALLREDUCE, "ring", MIB),
         14 * (0.5 + 6.5536) + 7 * 6.5536);
    m = machine_of("ring:8,links=2,alpha=1us,bw=10,gamma=20", 8); /* any order */
    near(price(&m, COLL_ALLREDUCE, "ring", MIB),
         14 * (0.5 + 6.5536) + 7 * 6.5536);
    m = machine_of("fattree:2x4,over=2,backbone=15,alpha=1us,bw=10", 8);
    double core = 2 * 8192 / 15e3; /* us per message each way */
    near(price(&m, COLL_ALLTOALL, "pairwise", 2048),
         2 * (1 + core) + 2 * (1 + 2 * core) + 2 * (1.5 + 3 * core) +
             (2 + 4 * core));
    int ends[32];
    assert_int_equal(route_ranks(&m, 1, 6, ends), 5); /* up, trunk, core,
                                                         trunk, down */
}

static void expect_refused(const char *spec, int p, const char *words)
{
    SpecModel cm;
    CliErr e = {""};
    Machine m;
    assert_int_equal(spec_parse_model(NULL, NULL, NULL, NULL, &cm, &e), 0);
    if (spec_parse(spec, p, &cm, &m, &e) != -1)
        fail_msg("%s was taken", spec);
    if (!strstr(e.msg, words))
        fail_msg("%s: '%s' does not say '%s'", spec, e.msg, words);
}

/* Bad fixes: one sentence each. */
static void test_refused(void **state)
{
    (void)state;
    expect_refused("ring:8,link=r5>r6:down,link=r2>r1:down", 8,
                   "no route from r2 to r0");
    expect_refused("mesh:4x2,link=r0>r1:down", 8, "no route from r0 to r1");
    expect_refused("nodes:2x4,link=r1>sw.nvlink0:down", 8, "no route from");
    expect_refused("full:8,link=r9>r1:down", 8, "'r9' is not a rank");
    expect_refused("ring:8,link=r0>r2:down", 8, "no link goes from r0 to r2");
    expect_refused("torus:1x8,link=r4>r4:slow=2", 8, "from r4 to r4");
    expect_refused("ring:8,rank=3:slow=0", 8, "a number from 1 to");
    expect_refused("ring:8,rank=3:slow=nan", 8, "not 'nan'");
    expect_refused("ring:8,rank=3:slow=inf", 8, "not 'inf'");
    expect_refused("ring:8,rank=8:slow=2", 8, "a rank from 0 to 7");
    expect_refused("ring:8,rank=-1:slow=2", 8, "a rank from 0 to 7");
    expect_refused("gpu:8,rank=1:slow=2", 8, "goes with a network");
    expect_refused("bus:8,link=r1>medium:slow=2", 8, "goes with a network");
    expect_refused("ring:8,link=r1>r2:fast", 8, "slow=F or down");
    expect_refused("ring:8,link=r1>r2", 8, "needs :slow=F or :down");
    expect_refused("fattree:2x4,over=5", 8, "give at most 4");
    expect_refused("fattree:2x4,over=0.5", 8, "a number from 1");
    expect_refused("torus:4x2,over=2", 8, "over= goes with fattree");
    expect_refused("fattree:8", 8, "fattree takes GxL");
    expect_refused("torus:4x2,backbone=5", 8, "backbone= goes with fattree");
    expect_refused("ring:8,links=0", 8, "a whole number from 1 to 1024");
    expect_refused("ring:8,links=2.5", 8, "a whole number from 1 to 1024");
    expect_refused("fattree:2x4,link=leaf0.up>core:down", 8, "no route");
    expect_refused("ring:300,link=r1>r2:down", 300, "lines of up to 256");
    char many[400] = "ring:40";
    for (int r = 0; r <= MACHINE_MAX_FIXES; r++)
        snprintf(many + strlen(many), sizeof many - strlen(many),
                 ",rank=%d:slow=2", r);
    expect_refused(many, 40, "16 fixed links and ranks at most");
}

/* Every machine -T builds, fixes too, written as a file and read back:
 * the same kind, words and prices (ring allreduce of 1 MiB, pairwise
 * all-to-all of 8 KiB blocks). */
static void test_roundtrip(void **state)
{
    (void)state;
    static const char *const specs[] = {
        "full:8", "bus:8", "switch:8,reduce", "ring:8", "torus:4x2",
        "mesh:4x2", "nodes:2x4", "nodes:2x4,nic=shared,intra=pcie",
        "torus:4x2,place=cyclic,lat=1us,y.bw=3",
        "ring:8,link=r5>r6:down,rank=2:slow=3,link=r1-r2:slow=2",
        "full:8,rank=0:slow=1.5", "fattree:2x4,over=2",
        "full:8,link=r2-r5:slow=3",
        "fattree:4x2,link=r1>leaf0:slow=3,link=leaf1.up>core:slow=2",
        "fattree:2x4,over=2,backbone=15,lat=1us", "torus:4x2,x.links=2,bw=5",
        "gpu:8", "host:8,cache=8M,reads=apart", "nodes:2x4,place=cyclic",
    };
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        Machine m = machine_of(specs[i], 8), back;
        char buf[2048], a[256], b[256];
        size_t need;
        MachineFileErr e;
        assert_int_equal(machine_file_write(&m, buf, sizeof buf, &need), CV_OK);
        if (machine_file_parse(buf, need, 0, &back, &e))
            fail_msg("%s: line %d: %s\n%s", specs[i], e.line, e.msg, buf);
        machine_describe(&m, false, a, sizeof a);
        machine_describe(&back, false, b, sizeof b);
        if (strcmp(a, b) || m.kind != back.kind)
            fail_msg("%s: '%s' read back as '%s'", specs[i], a, b);
        double s1 = price(&m, COLL_ALLREDUCE, "ring", MIB);
        double s2 = price(&back, COLL_ALLREDUCE, "ring", MIB);
        double t1 = price(&m, COLL_ALLTOALL, "pairwise", 2048);
        double t2 = price(&back, COLL_ALLTOALL, "pairwise", 2048);
        if (fabs(s1 - s2) > 1e-12 * s1 || fabs(t1 - t2) > 1e-12 * t1)
            fail_msg("%s: %g %g s built, %g %g read back", specs[i], s1, t1,
                     s2, t2);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slow_ring),
        cmocka_unit_test(test_slow_tree),
        cmocka_unit_test(test_down_ring),
        cmocka_unit_test(test_down_full),
        cmocka_unit_test(test_fattree),
        cmocka_unit_test(test_lanes_backbone),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
