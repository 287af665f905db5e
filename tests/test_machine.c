/* test_machine.c - machines as values: routes by hand, links, pricing on
 * them against hand computations (the flat machines' textbook formulas, a
 * ring on a torus whose slow dimension paces it, a reducing switch), the
 * machine file and -T's shorthand with their sentences. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "algos/algo.h"
#include "scene/spec.h"
#include "core/machine.h"
#include "core/machine_file.h"
#include "core/model.h"

#define ALPHA 1e-6
#define BETA 1e-10
#define GAMMA 5e-11

/* The endpoints a route visits after src, by following its links. */
static int route_ends(const Machine *m, int src, int dst, int *ends)
{
    int links[256];
    int n = machine_route(m, src, dst, links, 256);
    int at = src;
    for (int i = 0; i < n; i++) {
        MachineLink l = machine_link(m, links[i]);
        assert_true(l.used);
        assert_int_equal(l.from, at); /* each link starts where the last ended */
        at = l.to;
        ends[i] = at;
    }
    return n;
}

static void expect_ranks(const Machine *m, int src, int dst, int n,
                         const int *want)
{
    int ends[256];
    assert_int_equal(route_ends(m, src, dst, ends), n);
    for (int i = 0; i < n; i++)
        if (want[i] >= 0)
            assert_int_equal(ends[i], want[i]);
}

static void test_routes_by_hand(void **state)
{
    (void)state;
    Machine m;
    int t42[] = {4, 2};
    /* 4x2 torus, r = x + 4y: r3 (3,0) to r4 (0,1) wraps in x, then y */
    assert_int_equal(machine_grid(&m, MACHINE_TORUS, 2, t42, false, ALPHA,
                                  BETA, GAMMA), CV_OK);
    assert_int_equal(m.nranks, 8);
    assert_int_equal(m.nlinks, 32);
    expect_ranks(&m, 3, 4, 2, (int[]){0, 4});
    expect_ranks(&m, 7, 0, 2, (int[]){4, 0});
    expect_ranks(&m, 5, 2, 2, (int[]){6, 2});
    /* a ring of 8: distance 4 is a tie, taken upwards; 5 goes down */
    int eight = 8;
    assert_int_equal(machine_grid(&m, MACHINE_RING, 1, &eight, false, ALPHA,
                                  BETA, GAMMA), CV_OK);
    expect_ranks(&m, 0, 4, 4, (int[]){1, 2, 3, 4});
    expect_ranks(&m, 0, 5, 3, (int[]){7, 6, 5});
    expect_ranks(&m, 6, 1, 3, (int[]){7, 0, 1});
    /* a mesh of 4 never wraps */
    int four = 4;
    assert_int_equal(machine_grid(&m, MACHINE_MESH, 1, &four, false, ALPHA,
                                  BETA, GAMMA), CV_OK);
    expect_ranks(&m, 0, 3, 3, (int[]){1, 2, 3});
    expect_ranks(&m, 3, 0, 3, (int[]){2, 1, 0});
    assert_false(machine_link(&m, 2 * 3).used);     /* r3 up: nothing */
    assert_false(machine_link(&m, 2 * 0 + 1).used); /* r0 down: nothing */
    /* full: up the sender's port, down the receiver's */
    assert_int_equal(machine_full(&m, 5, ALPHA, BETA, GAMMA), CV_OK);
    int links[4];
    assert_int_equal(machine_route(&m, 1, 3, links, 4), 2);
    assert_int_equal(links[0], 2);
    assert_int_equal(links[1], 7);
    assert_int_equal(machine_route(&m, 2, 2, links, 4), 0);
    /* bus: port, medium, port */
    assert_int_equal(machine_bus(&m, 5, ALPHA, BETA, GAMMA), CV_OK);
    assert_int_equal(machine_route(&m, 1, 3, links, 4), 3);
    assert_int_equal(links[0], 2);
    assert_int_equal(links[1], 10);
    assert_int_equal(links[2], 7);
}

static void test_routes_nodes(void **state)
{
    (void)state;
    Machine m;
    int ends[8];
    /* 2 nodes of 4: r1 is GPU 1 of node 0, r6 GPU 2 of node 1. Rails:
       across the node's switch to GPU 2, then rail 2's switch to r6 */
    assert_int_equal(machine_nodes(&m, 2, 4, false, GAMMA), CV_OK);
    assert_int_equal(m.nranks, 8);
    assert_int_equal(route_ends(&m, 1, 6, ends), 4);
    assert_true(ends[0] < 0);
    assert_int_equal(ends[1], 2);
    assert_true(ends[2] < 0);
    assert_int_equal(ends[3], 6);
    int links[8];
    machine_route(&m, 1, 6, links, 8);
    assert_string_equal(m.cls[machine_link(&m, links[0]).cls].name, "nvlink");
    assert_string_equal(m.cls[machine_link(&m, links[2]).cls].name, "net");
    assert_true(fabs(m.cls[0].beta - 1 / 450e9) < 1e-20);
    assert_true(fabs(m.cls[1].beta - 1 / 50e9) < 1e-20);
    /* a NIC per node: every GPU of node 0 leaves through the same port */
    assert_int_equal(machine_nodes(&m, 2, 4, true, GAMMA), CV_OK);
    int a[8], b[8];
    assert_int_equal(machine_route(&m, 1, 6, a, 8), 2);
    assert_int_equal(machine_route(&m, 3, 5, b, 8), 2);
    assert_int_equal(a[0], b[0]);
    assert_int_equal(a[1], b[1]);
    /* inside a node, only the node's switch */
    assert_int_equal(machine_route(&m, 0, 3, a, 8), 2);
    assert_string_equal(m.cls[machine_link(&m, a[0]).cls].name, "nvlink");
}

/* mpirun --map-by node: ranks dealt round the nodes. With 2 nodes of 4,
 * ranks 0, 2, 4, 6 share node 0 and 1, 3, 5, 7 node 1 (by hand). */
static void test_cyclic_place(void **state)
{
    (void)state;
    Machine m;
    assert_int_equal(machine_nodes(&m, 2, 4, false, GAMMA), CV_OK);
    m.cyclic = true;
    static const int want[8] = {0, 4, 1, 5, 2, 6, 3, 7};
    for (int r = 0; r < 8; r++) {
        assert_int_equal(machine_place(&m, r), want[r]);
        assert_int_equal(machine_rank_at(&m, want[r]), r);
        assert_int_equal(machine_coord(&m, r, 1), r % 2); /* the node */
    }
    int l[8];
    assert_int_equal(machine_route(&m, 0, 2, l, 8), 2); /* same node */
    assert_string_equal(m.cls[machine_link(&m, l[0]).cls].name, "nvlink");
    assert_int_equal(machine_link(&m, l[0]).from, 0);
    assert_int_equal(machine_link(&m, l[1]).to, 2);
    assert_int_equal(machine_route(&m, 0, 1, l, 8), 2); /* the rail */
    assert_string_equal(m.cls[machine_link(&m, l[0]).cls].name, "net");
    assert_int_equal(machine_link(&m, l[1]).to, 1);
    /* a ring allreduce: every one of its 14 steps now crosses the network
       (block placement: only r3 -> r4 and r7 -> r0 do, and the ring's
       step is paced by them as well, at net's speed) */
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 8, .count = 800,
                  .dtype = DT_FLOAT, .op = OP_SUM};
    Schedule s;
    assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "ring"), &c, &s),
                     CV_OK);
    Pricer pr;
    StepPrice sp;
    assert_int_equal(pricer_init(&pr, &m), CV_OK);
    int net = 0;
    for (int i = 0; i < m.nlinks; i++)
        net += m.cls[machine_link_class(&m, i)].beta == 1 / 50e9;
    assert_int_equal(net, 16); /* 8 ports up, 8 down */
    assert_int_equal(price_step(&pr, &s, 1, false, &sp), CV_OK);
    int crossing = 0;
    for (int i = 0; i < pr.ntouched; i++)
        crossing += machine_link(&m, pr.touched[i]).cls == 1 &&
                    machine_link(&m, pr.touched[i]).from >= 0;
    assert_int_equal(crossing, 8); /* every rank's message enters the net */
    pricer_fini(&pr);
    sched_fini(&s);
    /* the file keeps it */
    char buf[1024];
    size_t need;
    Machine back;
    MachineFileErr e;
    assert_int_equal(machine_file_write(&m, buf, sizeof buf, &need), CV_OK);
    assert_non_null(strstr(buf, "collviz_place: cyclic"));
    assert_int_equal(machine_file_parse(buf, need, GAMMA, &back, &e), CV_OK);
    assert_true(back.cyclic);
}

/* Every route of every pair is a chain of links from src to dst, no
 * longer than machine_max_hops says. */
static void test_routes_chain(void **state)
{
    (void)state;
    int t442[] = {4, 4, 2}, m35[] = {3, 5}, r7 = 7, s6 = 6;
    Machine ms[6];
    assert_int_equal(machine_grid(&ms[0], MACHINE_TORUS, 3, t442, false, 1, 1, 1), CV_OK);
    assert_int_equal(machine_grid(&ms[1], MACHINE_MESH, 2, m35, false, 1, 1, 1), CV_OK);
    assert_int_equal(machine_grid(&ms[2], MACHINE_RING, 1, &r7, false, 1, 1, 1), CV_OK);
    assert_int_equal(machine_grid(&ms[3], MACHINE_SWITCH, 1, &s6, true, 1, 1, 1), CV_OK);
    assert_int_equal(machine_nodes(&ms[4], 3, 4, false, 1), CV_OK);
    assert_int_equal(machine_full(&ms[5], 9, 1, 1, 1), CV_OK);
    for (int i = 0; i < 6; i++) {
      for (int cyc = 0; cyc < 2; cyc++) {
        ms[i].cyclic = cyc;
        const Machine *m = &ms[i];
        for (int s = 0; s < m->nranks; s++)
            for (int d = 0; d < m->nranks; d++) {
                int ends[256];
                int n = route_ends(m, s, d, ends);
                assert_true(n <= machine_max_hops(m));
                if (n)
                    assert_int_equal(ends[n - 1], d);
                else
                    assert_int_equal(s, d);
            }
      }
    }
}

/* ------------------------------------------------------------- pricing */

/* One step: r0 sends 100 bytes to each of r1, r2, r3 and r3 sends 50 to
 * r0 (25 and 12.5 floats: 100 bytes is 25 floats). */
static void one_step(Schedule *s)
{
    CollCall c = {.kind = COLL_ALLTOALL, .nranks = 4, .count = 25,
                  .dtype = DT_FLOAT};
    assert_int_equal(sched_init(s, &c, "hand"), CV_OK);
    sched_step(s, "x");
    for (int r = 1; r < 4; r++)
        sched_copy(s, 0, BUF_SEND, (size_t)r * 25, r, BUF_RECV, 0, 25);
    sched_copy(s, 3, BUF_SEND, 0, 0, BUF_RECV, 0, 12);
    sched_copy(s, 3, BUF_SEND, 12, 0, BUF_RECV, 12, 1); /* same pair */
    assert_int_equal(sched_end(s), CV_OK);
}

static void test_price_flat_by_hand(void **state)
{
    (void)state;
    Schedule s;
    Machine m;
    CostTerms t;
    double sec;
    one_step(&s);
    /* full: r0's port out carries 3 messages and 300 bytes */
    assert_int_equal(machine_full(&m, 4, ALPHA, BETA, GAMMA), CV_OK);
    assert_int_equal(model_machine_cost(&s, &m, false, &t, &sec), CV_OK);
    assert_true(fabs(sec - (3 * ALPHA + 300 * BETA)) < 1e-15);
    assert_true(t.a == 3 && t.b == 300 && t.g == 0 && t.steps == 1);
    /* bus: the medium carries all 352 bytes; r3's two transfers to r0
       are one message */
    assert_int_equal(machine_bus(&m, 4, ALPHA, BETA, GAMMA), CV_OK);
    assert_int_equal(model_machine_cost(&s, &m, false, &t, &sec), CV_OK);
    assert_true(fabs(sec - (3 * ALPHA + 352 * BETA)) < 1e-15);
    assert_int_equal(model_machine_cost(&s, &m, true, &t, NULL), CV_OK);
    assert_true(t.a == 3 && t.b == 352);
    sched_fini(&s);
}

/* Ring allreduce of 8 ranks on a 4x2 torus whose y links are 4 times
 * slower: r3 -> r4 and r7 -> r0 cross one y link each, so every one of
 * the 14 steps moves its block V/8 at y's speed (hand computation:
 * 14 alpha + 14 (V/8) 4 beta + 7 (V/8) gamma). */
static void test_price_torus_ring(void **state)
{
    (void)state;
    int sz[] = {4, 2};
    Machine m;
    assert_int_equal(machine_grid(&m, MACHINE_TORUS, 2, sz, false, ALPHA,
                                  BETA, GAMMA), CV_OK);
    m.cls[1].beta = 4 * BETA;
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 8, .count = 1 << 21,
                  .dtype = DT_FLOAT, .op = OP_SUM};
    Schedule s;
    assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "ring"), &c, &s),
                     CV_OK);
    double blk = (double)(1 << 21) * 4 / 8, sec;
    CostTerms t;
    assert_int_equal(model_machine_cost(&s, &m, false, &t, &sec), CV_OK);
    double want = 14 * ALPHA + 14 * blk * 4 * BETA + 7 * blk * GAMMA;
    assert_true(fabs(sec / want - 1) < 1e-12);
    /* uniform links: the textbook ring, 2(p-1) a + 2(p-1)/p V b + ... */
    m.cls[1].beta = BETA;
    assert_int_equal(model_machine_cost(&s, &m, false, &t, &sec), CV_OK);
    want = 14 * ALPHA + 14 * blk * BETA + 7 * blk * GAMMA;
    assert_true(fabs(sec / want - 1) < 1e-12);
    sched_fini(&s);
}

/* r0 copies one range to r1, r2 and r3 in one step (a schedule lets no
 * two transfers of a step write one range, so reduces cannot meet in a
 * switch; copies can leave one source at once). A multicasting switch
 * takes r0's range in once, as one message; a plain one carries each. */
static void test_price_multicast_switch(void **state)
{
    (void)state;
    CollCall c = {.kind = COLL_BROADCAST, .nranks = 4, .count = 100,
                  .dtype = DT_FLOAT, .in_place = true};
    Schedule s;
    assert_int_equal(sched_init(&s, &c, "hand"), CV_OK);
    sched_step(&s, "out");
    for (int r = 1; r < 4; r++)
        sched_copy(&s, 0, BUF_RECV, 0, r, BUF_RECV, 0, 100);
    assert_int_equal(sched_end(&s), CV_OK);
    SchedCheck chk;
    assert_int_equal(sched_validate(&s, &chk, NULL), CV_OK);
    int four = 4;
    Machine plain, nvls;
    assert_int_equal(machine_grid(&plain, MACHINE_SWITCH, 1, &four, false,
                                  ALPHA, BETA, GAMMA), CV_OK);
    assert_int_equal(machine_grid(&nvls, MACHINE_SWITCH, 1, &four, true,
                                  ALPHA, BETA, GAMMA), CV_OK);
    Pricer pr;
    StepPrice sp;
    assert_int_equal(pricer_init(&pr, &plain), CV_OK);
    assert_int_equal(price_step(&pr, &s, 0, false, &sp), CV_OK);
    assert_true(fabs(sp.time - (3 * ALPHA + 1200 * BETA)) < 1e-15);
    assert_int_equal(pr.msgs[0], 3);     /* r0 into the switch */
    pricer_fini(&pr);
    assert_int_equal(pricer_init(&pr, &nvls), CV_OK);
    assert_int_equal(price_step(&pr, &s, 0, false, &sp), CV_OK);
    assert_true(fabs(sp.time - (ALPHA + 400 * BETA)) < 1e-15);
    assert_int_equal(pr.msgs[0], 1);     /* once */
    assert_true(pr.bytes[0] == 400);
    for (int r = 1; r < 4; r++)          /* each down port its own copy */
        assert_true(pr.bytes[2 * r + 1] == 400);
    pricer_fini(&pr);
    sched_fini(&s);
}

/* Every algorithm on full and bus prices as the link models' formulas
 * say per rank, for steps where one rank is the slowest in every term:
 * here checked through the terms, each term's maximum over the ranks
 * computed from the step's statistics by the definition. */
static void test_price_flat_terms_sweep(void **state)
{
    (void)state;
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        if (a->fits)
            continue; /* made for some machines: test_algos_torus */
        for (int p = 1; p <= 13; p += 3) {
            CollCall c = {.kind = a->coll, .nranks = p, .count = 7,
                          .dtype = DT_INT32, .op = OP_SUM};
            Schedule s;
            if (algo_generate(a, &c, &s))
                continue;
            Machine full, bus;
            assert_int_equal(machine_full(&full, p, 1, 1, 1), CV_OK);
            assert_int_equal(machine_bus(&bus, p, 1, 1, 1), CV_OK);
            Pricer pf, pb;
            assert_int_equal(pricer_init(&pf, &full), CV_OK);
            assert_int_equal(pricer_init(&pb, &bus), CV_OK);
            RankStepStats st[16];
            for (size_t k = 0; k < s.nsteps; k++) {
                StepPrice f, b;
                assert_int_equal(sched_step_stats(&s, k, st), CV_OK);
                double a_max = 0, b_max = 0, moved = 0, g = 0;
                for (int r = 0; r < p; r++) {
                    a_max = fmax(a_max, fmax(st[r].msgs_out, st[r].msgs_in));
                    b_max = fmax(b_max, fmax(st[r].sent, st[r].recvd));
                    moved += st[r].sent;
                    g = fmax(g, st[r].reduced);
                }
                assert_int_equal(price_step(&pf, &s, k, true, &f), CV_OK);
                assert_int_equal(price_step(&pb, &s, k, true, &b), CV_OK);
                assert_true(f.terms.a == a_max && f.terms.b == b_max);
                assert_true(b.terms.a == a_max && b.terms.b == moved);
                assert_true(f.terms.g == g && b.terms.g == g);
            }
            pricer_fini(&pf);
            pricer_fini(&pb);
            sched_fini(&s);
        }
    }
}

/* ---------------------------------------------------------------- text */

static void test_file_roundtrip(void **state)
{
    (void)state;
    const char *text =
        "# a 4x2 torus\n"
        "topology: [ Ring, Switch ]\n"
        "npus_count: [ 4, 2 ]   # per dimension\n"
        "bandwidth: [ 50.0, 25.0 ]\n"
        "latency: [ 500, 2000 ]\n";
    Machine m, back;
    MachineFileErr e;
    assert_int_equal(machine_file_parse(text, strlen(text), GAMMA, &m, &e), CV_OK);
    assert_int_equal(m.nranks, 8);
    assert_int_equal(m.dim[0].kind, DIM_RING);
    assert_int_equal(m.dim[1].kind, DIM_SWITCH);
    assert_true(fabs(m.cls[0].beta - 1 / 50e9) < 1e-22);
    assert_true(fabs(m.cls[1].lat - 2e-6) < 1e-15);
    char buf[1024];
    size_t need;
    assert_int_equal(machine_file_write(&m, buf, sizeof buf, &need), CV_OK);
    assert_true(need < sizeof buf);
    assert_int_equal(machine_file_parse(buf, need, 0, &back, &e), CV_OK);
    assert_memory_equal(&m.dim, &back.dim, sizeof m.dim);
    for (int c = 0; c < m.ncls; c++) {
        assert_true(m.cls[c].beta == back.cls[c].beta);
        assert_true(m.cls[c].lat == back.cls[c].lat);
    }
    assert_true(back.gamma == m.gamma);
}

/* Every machine of nodes, the shared NIC's too, is written as a machine
 * file and read back to a machine that prices alike (issue 49): the ring
 * allreduce of 1 MiB and the all-to-all of 64 KiB on nodes:2x4 and
 * nodes:2x4,nic=shared cost the same on the machine read back, and the
 * shared NIC's file names its dimension SharedSwitch. */
static void test_file_roundtrip_nodes(void **state)
{
    (void)state;
    for (int shared = 0; shared < 2; shared++) {
        Machine m, back;
        MachineFileErr e;
        assert_int_equal(machine_nodes(&m, 2, 4, shared, GAMMA), CV_OK);
        char buf[1024];
        size_t need;
        assert_int_equal(machine_file_write(&m, buf, sizeof buf, &need), CV_OK);
        assert_true(need < sizeof buf);
        assert_true(!shared || strstr(buf, "topology: [ Switch, SharedSwitch ]"));
        assert_int_equal(machine_file_parse(buf, need, 0, &back, &e), CV_OK);
        assert_int_equal(back.dim[1].shared, shared);
        static const CollKind kinds[] = {COLL_ALLREDUCE, COLL_ALLTOALL};
        static const char *const algos[] = {"ring", "pairwise"};
        for (int k = 0; k < 2; k++) {
            CollCall c = {.kind = kinds[k], .nranks = 8, .dtype = DT_FLOAT,
                          .op = OP_SUM, .count = k ? 2048 : 262144};
            Schedule sch;
            assert_int_equal(algo_generate(algo_find(kinds[k], algos[k]), &c,
                                           &sch), CV_OK);
            CostTerms t1, t2;
            double s1, s2;
            assert_int_equal(model_machine_cost(&sch, &m, false, &t1, &s1), CV_OK);
            assert_int_equal(model_machine_cost(&sch, &back, false, &t2, &s2),
                             CV_OK);
            if (fabs(s1 - s2) > 1e-12 * s1)
                fail_msg("nic %s, %s: %g s built, %g s read back",
                         shared ? "shared" : "per GPU", algos[k], s1, s2);
            sched_fini(&sch);
        }
    }
}

static void expect_file_error(const char *text, int line, const char *words)
{
    Machine m;
    MachineFileErr e;
    assert_int_equal(machine_file_parse(text, strlen(text), GAMMA, &m, &e),
                     CV_ERR_ARG);
    assert_int_equal(e.line, line);
    if (!strstr(e.msg, words))
        fail_msg("'%s' does not say '%s'", e.msg, words);
}

static void test_file_errors(void **state)
{
    (void)state;
    expect_file_error("topology: [Ring]\nnpus: [4]\n", 2, "unknown key 'npus'");
    expect_file_error("topology: [Ring, Ring]\nnpus_count: [4]\nbandwidth: [1, 1]\n"
                      "latency: [0, 0]\n", 2, "npus_count has 1 value but topology has 2");
    expect_file_error("topology: [Hyper]\nnpus_count: [4]\nbandwidth: [1]\n"
                      "latency: [0]\n", 1, "'Hyper' is not a topology");
    expect_file_error("topology: [Ring]\nnpus_count: [4]\nbandwidth: [0]\n"
                      "latency: [0]\n", 3, "bandwidth must be from 1e-06");
    expect_file_error("topology: [Ring\n", 1, "no closing");
    expect_file_error("topology: [Ring]\ntopology: [Ring]\n", 2, "given twice");
    expect_file_error("npus_count: [4]\n", 0, "no topology");
    expect_file_error("topology: [Ring]\nnpus_count: [4.5]\nbandwidth: [1]\n"
                      "latency: [0]\n", 2, "whole numbers");
    expect_file_error("topology: [Ring, Ring]\nnpus_count: [65536, 2]\n"
                      "bandwidth: [1, 1]\nlatency: [0, 0]\n", 2, "more than");
    expect_file_error("topology: [Ring]\nnpus_count: [4]\nbandwidth: [1]\n",
                      0, "no latency line");
    expect_file_error("topology: [Ring]\nnpus_count: [4]\nbandwidth: [1e-308]\n"
                      "latency: [0]\n", 3, "from 1e-06 to 1e+06 GB/s");
    expect_file_error("topology: [FullyConnected]\nnpus_count: [65536]\n"
                      "bandwidth: [1]\nlatency: [1]\n", 1, "more than 268435456 links");
    expect_file_error("topology: [Ring]\nnpus_count: [4]\nbandwidth: [1]\n"
                      "latency: [0]\ncollviz_gamma: [1, 2]\n", 5, "takes one value");
}

static void expect_spec(const char *spec, int p, int rc, const char *words)
{
    SpecModel cm;
    CliErr e = {""};
    Machine m;
    assert_int_equal(spec_parse_model(NULL, NULL, NULL, NULL, &cm, &e), 0);
    int got = spec_parse(spec, p, &cm, &m, &e);
    if (got != rc)
        fail_msg("%s: %d, '%s'", spec, got, e.msg);
    if (words && !strstr(e.msg, words))
        fail_msg("%s: '%s' does not say '%s'", spec, e.msg, words);
}

static void test_spec(void **state)
{
    (void)state;
    expect_spec("torus:4x4", 16, 0, NULL);
    expect_spec("torus:4x4", 8, -1, "has 16 ranks but the call has 8 (-p)");
    expect_spec("torus", 16, -1, "needs its shape");
    expect_spec("mesh:0x4", 0, -1, "is not a shape");
    expect_spec("mesh:4x", 0, -1, "is not a shape");
    expect_spec("ring,reduce", 8, -1, "only a switch reduces");
    expect_spec("torus:4x4,z.bw=3", 16, -1, "no link class 'z' (it has x, y)");
    expect_spec("torus:4x4,y.bw=-3", 16, -1, "y.bw '-3'");
    expect_spec("nodes:2x4,nic=shared,net.bw=25", 8, 0, NULL);
    expect_spec("nodes:2x4,nic=wide", 8, -1, "nic= takes rail");
    expect_spec("nodes:8", 8, -1, "GxL");
    expect_spec("switch,reduce,alpha=2us", 8, 0, NULL);
    expect_spec("switch,alpha=2us,reduce", 8, -1, "before the link parameters");
    expect_spec("banana", 8, -1, "not a machine");
    expect_spec("full", 0, -1, "give -p");
    expect_spec("/nonexistent/m.yml", 8, -1, "does not exist");
    expect_spec("torus:256x256x2", 0, -1, "more than the 65536");
    expect_spec("torus:", 16, -1, "'' is not a shape");
    expect_spec("torus:1x1x1x1x1", 1, -1, "1 to 4 sizes");
    expect_spec("torus:4x4,x.bw=1,x.bw=2", 16, -1, "gives x.bw twice");
    expect_spec("nodes:2x4,nic=shared,nic=rail", 8, -1, "gives nic twice");
    /* parameters land where they are named */
    SpecModel cm;
    CliErr e;
    Machine m;
    spec_parse_model(NULL, NULL, NULL, NULL, &cm, &e);
    assert_int_equal(spec_parse("torus:4x2,y.bw=2.5,lat=100ns", 8, &cm,
                                       &m, &e), 0);
    assert_true(fabs(m.cls[1].beta - 1 / 2.5e9) < 1e-22);
    assert_true(fabs(m.cls[0].beta - 1 / 10e9) < 1e-22);
    assert_true(fabs(m.cls[0].lat - 100e-9) < 1e-18);
    assert_true(fabs(m.cls[1].lat - 100e-9) < 1e-18);
    /* alpha= for every class, even where --alpha 0 set none; a bus's
       medium takes no alpha, its ports no beta */
    assert_int_equal(spec_parse_model("0", NULL, NULL, NULL, &cm, &e), 0);
    assert_int_equal(spec_parse("torus:4x4,alpha=2us", 16, &cm, &m, &e), 0);
    assert_true(fabs(m.cls[0].alpha - 2e-6) < 1e-18 && fabs(m.cls[1].alpha - 2e-6) < 1e-18);
    assert_int_equal(spec_parse("bus:4,alpha=3us,bw=20", 4, &cm, &m, &e), 0);
    assert_true(fabs(m.cls[0].alpha - 3e-6) < 1e-18 && m.cls[0].beta == 0);
    assert_true(m.cls[1].alpha == 0 && fabs(m.cls[1].beta - 1 / 20e9) < 1e-22);
}

/* The memory machines by -T and by file: the defaults, each option
 * where it lands, a file written and read back, and what is refused with
 * its line. */
static void test_memory_spec(void **state)
{
    (void)state;
    SpecModel cm;
    CliErr e;
    Machine m, back;
    spec_parse_model(NULL, NULL, NULL, NULL, &cm, &e);
    assert_int_equal(spec_parse("gpu", 4, &cm, &m, &e), 0);
    assert_int_equal(m.kind, MACHINE_GPU);
    assert_int_equal(m.nranks, 4);
    assert_true(fabs(m.mem.step - 1.5e-6) < 1e-18);
    assert_true(fabs(m.mem.beta_mem - 1 / 2.5e12) < 1e-25);
    assert_true(m.mem.cache == 50e6 && m.mem.shared_reads);
    assert_int_equal(spec_parse("host:8,step=3us,call=1us,bw=40,cache=16M,"
                                "cachebw=200,reads=apart", 8, &cm, &m, &e), 0);
    assert_int_equal(m.kind, MACHINE_HOST);
    assert_true(fabs(m.mem.step - 3e-6) < 1e-18);
    assert_true(fabs(m.mem.call - 1e-6) < 1e-18);
    assert_true(fabs(m.mem.beta_mem - 1 / 40e9) < 1e-22);
    assert_true(fabs(m.mem.beta_cache - 1 / 200e9) < 1e-22);
    assert_true(m.mem.cache == 16.0 * (1 << 20) && !m.mem.shared_reads);
    expect_spec("gpu,alpha=1us", 4, -1, "not an option of a memory machine");
    expect_spec("gpu,reads=twice", 4, -1, "reads= takes shared");
    expect_spec("gpu,bw=-1", 4, -1, "bw '-1'");
    expect_spec("gpu:4x2", 8, -1, "takes one number");
    /* a file: written and read back */
    size_t need;
    char buf[1024];
    assert_int_equal(spec_parse("gpu,cache=40M,cachebw=5000,call=1us", 4,
                                &cm, &m, &e), 0);
    assert_int_equal(machine_file_write(&m, buf, sizeof buf, &need), CV_OK);
    assert_true(need < sizeof buf);
    MachineFileErr fe;
    assert_int_equal(machine_file_parse(buf, need, GAMMA, &back, &fe), CV_OK);
    assert_int_equal(back.kind, MACHINE_GPU);
    assert_int_equal(back.nranks, 4);
    assert_true(fabs(back.mem.beta_mem / m.mem.beta_mem - 1) < 1e-12);
    assert_true(fabs(back.mem.beta_cache / m.mem.beta_cache - 1) < 1e-12);
    assert_true(fabs(back.mem.step / m.mem.step - 1) < 1e-12);
    assert_true(fabs(back.mem.call / m.mem.call - 1) < 1e-12);
    assert_true(back.mem.cache == m.mem.cache);
    assert_true(back.mem.shared_reads);
    /* reads=apart and the largest cache -T takes come back too (they were
       dropped, or refused by the reader) */
    assert_int_equal(spec_parse("host,reads=apart,cache=1024G,cachebw=50", 4,
                                &cm, &m, &e), 0);
    assert_int_equal(machine_file_write(&m, buf, sizeof buf, &need), CV_OK);
    assert_int_equal(machine_file_parse(buf, need, GAMMA, &back, &fe), CV_OK);
    assert_false(back.mem.shared_reads);
    assert_true(back.mem.cache == 1099511627776.0);
    expect_spec("gpu,place=cyclic", 4, -1, "place= goes with a network");
#define MEM_FILE "collviz_memory: gpu\nnpus_count: [4]\n"
    expect_file_error(MEM_FILE "bandwidth: [0]\n", 3, "bandwidth must be from");
    expect_file_error(MEM_FILE "bandwidth: [-2]\n", 3, "is not a number");
    expect_file_error(MEM_FILE "bandwidth: [fast]\n", 3, "is not a number");
    expect_file_error(MEM_FILE "bandwidth: [2500]\ncollviz_cache: 0\n"
                      "collviz_cache_bandwidth: 6000\n", 4,
                      "collviz_cache must be a size of bytes above 0");
    expect_file_error(MEM_FILE "bandwidth: [2500]\ncollviz_cache: -1\n", 4,
                      "is not a number");
    expect_file_error(MEM_FILE "bandwidth: [2500]\ncollviz_cache: big\n", 4,
                      "is not a number");
    expect_file_error(MEM_FILE "bandwidth: [2500]\ncollviz_cache: 1e6\n", 4,
                      "go together");
    expect_file_error(MEM_FILE "bandwidth: [2500]\ntopology: [Ring]\n", 4,
                      "a memory machine has no topology");
    expect_file_error("collviz_memory: tpu\n", 1, "gpu or host");
    expect_file_error(MEM_FILE "bandwidth: [2500]\ncollviz_reads: twice\n",
                      4, "collviz_reads is shared or apart");
    expect_file_error("topology: [Ring]\nnpus_count: [4]\nbandwidth: [1]\n"
                      "latency: [0]\ncollviz_step: 2\n", 5,
                      "goes with collviz_memory");
#undef MEM_FILE
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routes_by_hand),
        cmocka_unit_test(test_routes_nodes),
        cmocka_unit_test(test_routes_chain),
        cmocka_unit_test(test_cyclic_place),
        cmocka_unit_test(test_price_flat_by_hand),
        cmocka_unit_test(test_price_torus_ring),
        cmocka_unit_test(test_price_multicast_switch),
        cmocka_unit_test(test_price_flat_terms_sweep),
        cmocka_unit_test(test_file_roundtrip),
        cmocka_unit_test(test_file_roundtrip_nodes),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_spec),
        cmocka_unit_test(test_memory_spec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
