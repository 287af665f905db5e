/* test_trace.c - `collviz trace` as a program: every algorithm's trace,
 * as text and as JSON, against its schedule step by step; the caps on
 * the cells shown and tracked; the model's times finite at the
 * slowest parameters; a trace whose output cannot be written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "call_fixture.h"
#include "cli_fixture.h"

/* ---------------------------------------------------------------- trace */

/* The transfers of step k in JSON equal the schedule's, field by field. */
static void check_json_step(const Json *js, const Schedule *s, size_t k)
{
    static const char *const fields[] = {"src", "src_buf", "src_off", "dst",
                                         "dst_buf", "dst_off", "count", "op"};
    const Step *st = &s->steps[k];
    assert_int_equal(jnum(js, "step"), k);
    const Json *xs = jarr(js, "transfers"), *wr = jarr(js, "written");
    assert_int_equal(xs->n, st->n);
    assert_int_equal(wr->n, st->n);
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *t = &s->xfers[st->first + i];
        const Json *x = &xs->kid[i];
        assert_int_equal(x->n, 8);
        for (size_t f = 0; f < 8; f++)
            assert_string_equal(x->keys[f], fields[f]);
        assert_int_equal(jnum(x, "src"), t->src);
        assert_int_equal(jnum(x, "dst"), t->dst);
        assert_int_equal(jnum(x, "src_off"), t->src_off);
        assert_int_equal(jnum(x, "dst_off"), t->dst_off);
        assert_int_equal(jnum(x, "count"), t->count);
        assert_string_equal(jstr(x, "src_buf"), buf_name((BufId)t->src_buf));
        assert_string_equal(jstr(x, "dst_buf"), buf_name((BufId)t->dst_buf));
        assert_string_equal(jstr(x, "op"), xfer_op_name((XferOp)t->op));
        /* the written runs cover exactly the destination range */
        size_t covered = 0;
        for (size_t r = 0; r < wr->kid[i].n; r++) {
            const Json *run = &wr->kid[i].kid[r];
            assert_int_equal(jnum(run, "rank"), t->dst);
            assert_int_equal(jnum(run, "off"), t->dst_off + covered);
            covered += (size_t)jnum(run, "count");
        }
        assert_int_equal(covered, t->count);
    }
}

static void check_json_trace(const char *text, const Schedule *s)
{
    const CollCall *c = &s->call;
    Json j;
    json_parse(text, &j);
    assert_string_equal(jstr(&j, "collective"), coll_name(c->kind));
    assert_int_equal(jnum(&j, "ranks"), c->nranks);
    assert_int_equal(jnum(&j, "count"), c->count);
    assert_int_equal(jnum(&j, "root"), c->root);
    assert_int_equal(jnum(&j, "bytes"), coll_size_bytes(c));
    assert_int_equal(jget(&j, "in_place")->num, c->in_place);
    const Json *bufs = jget(&j, "buffers");
    for (int b = 0; b < BUF_COUNT; b++) {
        const Json *sizes = jarr(bufs, buf_name((BufId)b));
        assert_int_equal(sizes->n, c->nranks);
        for (int r = 0; r < c->nranks; r++)
            assert_int_equal(sizes->kid[r].num, sched_bufsize(s, r, (BufId)b));
    }
    const Json *steps = jarr(&j, "steps");
    assert_int_equal(steps->n, s->nsteps);
    for (size_t k = 0; k < s->nsteps; k++)
        check_json_step(&steps->kid[k], s, k);
    assert_int_equal(jnum(jget(&j, "totals"), "steps"), s->nsteps);
    assert_int_equal(jnum(jget(&j, "totals"), "transfers"), s->nxfers);
    assert_true(jget(jget(&j, "check"), "correct")->num == 1);
    json_free(&j);
}

/* Text: "step k/n" headers, each followed by its transfers. */
static void check_text_trace(const char *text, const Schedule *s)
{
    char head[64];
    for (size_t k = 0; k < s->nsteps; k++) {
        snprintf(head, sizeof head, "step %zu/%zu ", k + 1, s->nsteps);
        const char *l = find_line(text, head);
        if (!l)
            fail_msg("no line '%s'", head);
        for (size_t i = 0; i < s->steps[k].n; i++) {
            l = strchr(l, '\n') + 1;
            const Transfer *t = &s->xfers[s->steps[k].first + i];
            char want[64];
            snprintf(want, sizeof want, "  r%d %s[%zu", (int)t->src,
                     buf_name((BufId)t->src_buf), t->src_off);
            assert_int_equal(strncmp(l, want, strlen(want)), 0);
        }
    }
    snprintf(head, sizeof head, "step %zu/", s->nsteps + 1);
    assert_null(find_line(text, head));
    assert_non_null(find_line(text, "# check: every rank's output matches"));
}

/* Every algorithm, a few rank counts, counts p does not divide, in place
 * and not, rooted at the last rank: JSON and text against the schedule. */
static void test_trace_sweep(void **state)
{
    (void)state;
    static const int ranks[] = {1, 3, 8};
    for (size_t i = 0, n = algo_count(); i < n; i++)
        for (size_t pi = 0; pi < 3; pi++) {
            int p = ranks[pi];
            size_t counts[] = {0, 1, (size_t)p + 1};
            for (size_t ci = 0; ci < 3; ci++) {
                const AlgoInfo *a = algo_at(i);
                if (a->fits)
                    continue; /* made for some machines: test_algos_torus */
                CollCall c = make_call(a->coll, p, counts[ci], (ci + pi) % 2);
                if (!call_defined(c.kind, p, c.in_place))
                    continue; /* no such call (call_fixture.h) */
                Schedule s;
                assert_int_equal(algo_generate(a, &c, &s), CV_OK);
                char line[256];
                Out o;
                trace_line(line, sizeof line, a, &c, ci == 1 ? "--json" : "");
                run(&o, line);
                if (o.rc || o.err[0])
                    fail_msg("'%s': rc %d: %s", line, o.rc, o.err);
                if (ci == 1)
                    check_json_trace(o.out, &s);
                else
                    check_text_trace(o.out, &s);
                out_free(&o);
                sched_fini(&s);
            }
        }
}

/* Runs of one destination range: text shows 16 and says how many more. */
static void test_trace_caps(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_GATHER, "binomial");
    assert_non_null(a);
    CollCall c = make_call(COLL_GATHER, 64, 1, false);
    c.root = 0;
    Out oj, ot;
    char line[256];
    trace_line(line, sizeof line, a, &c, "--json");
    run(&oj, line);
    trace_line(line, sizeof line, a, &c, "");
    run(&ot, line);
    assert_int_equal(oj.rc, 0);
    assert_int_equal(ot.rc, 0);
    Json j;
    json_parse(oj.out, &j);
    const Json *steps = jarr(&j, "steps");
    size_t most = 0;
    for (size_t k = 0; k < steps->n; k++) {
        const Json *wr = jarr(&steps->kid[k], "written");
        for (size_t i = 0; i < wr->n; i++)
            most = wr->kid[i].n > most ? wr->kid[i].n : most;
    }
    assert_true(most > 16);
    char want[64];
    snprintf(want, sizeof want, " ... and %zu more runs", most - 16);
    assert_non_null(strstr(ot.out, want));
    /* the small case shows every rank after every step, this one not */
    assert_null(strstr(ot.out, "state after step 1:"));
    json_free(&j);
    out_free(&oj);
    out_free(&ot);
}

/* trace --json on a memory machine carries its level: the values -T
 * gave, in seconds and bytes (7 us, 9 us, 1 KiB of cache; reads apart). */
static void test_trace_json_memory(void **state)
{
    (void)state;
    Out o;
    run(&o, "trace allreduce -p 4 -s 1K -T gpu,step=7us,call=9us,cache=1K,"
            "cachebw=3,reads=apart --json");
    assert_int_equal(o.rc, 0);
    Json j;
    json_parse(o.out, &j);
    const Json *m = jget(&j, "machine");
    assert_string_equal(jstr(m, "kind"), "gpu");
    const Json *ml = jget(m, "memory");
    assert_true(fabs(jnum(ml, "step") - 7e-6) < 1e-15);
    assert_true(fabs(jnum(ml, "call") - 9e-6) < 1e-15);
    assert_true(jnum(ml, "cache") == 1024);
    assert_true(fabs(jnum(ml, "cache_beta") - 1 / 3e9) < 1e-18);
    const Json *sr = jget(ml, "shared_reads");
    assert_true(sr->type == J_BOOL && sr->num == 0);
    json_free(&j);
    out_free(&o);
}

/* Too big to track symbolically: transfers and totals, said so. */
static void test_trace_untracked(void **state)
{
    (void)state;
    Out o;
    run(&o, "trace allreduce -a ring -p 2 -s 1G");
    assert_int_equal(o.rc, 0);
    assert_non_null(find_line(o.out, "# cells: not tracked"));
    assert_non_null(find_line(o.out, "# check: the final state was not computed"));
    out_free(&o);
    run(&o, "trace allreduce -a ring -p 2 -s 1G --json");
    Json j;
    json_parse(o.out, &j);
    assert_int_equal(jget(&j, "cells")->num, 0);
    assert_int_equal(jget(jget(&j, "check"), "correct")->type, J_NULL);
    json_free(&j);
    out_free(&o);
    run(&o, "trace allreduce -a ring -p 3 -s 12 --full");
    assert_non_null(find_line(o.out, "state after step 1:"));
    out_free(&o);
}

/* The model's parameters are bounded so that no time overflows: at the
 * slowest the options allow, on the largest trace, every time in the JSON
 * is a finite number (JSON has no inf; the writer would say null). */
static void test_trace_overflow(void **state)
{
    (void)state;
    Out o;
    run(&o, "trace allreduce -a ring -p 4 -s 1G --alpha 1s --beta 1e-6 "
            "--gamma 1e-6 --json");
    assert_int_equal(o.rc, 0);
    Json j;
    json_parse(o.out, &j);
    const char *terms[] = {"model", "closed_form", "lower_bound"};
    for (size_t i = 0; i < 3; i++) {
        const Json *t = jget(jget(&j, "totals"), terms[i]);
        assert_int_equal(jget(t, "time")->type, J_NUM);
        assert_true(jnum(t, "time") > 1e5 && isfinite(jnum(t, "time")));
    }
    assert_true(jnum(jget(&j, "model"), "alpha") == 1);
    json_free(&j);
    out_free(&o);
}

/* Above 1024 ranks trace summarises: ring allreduce on 16384 ranks of
 * n = 3p + 5 floats, by hand. The vector's p blocks are 4 elements (the
 * first 5) or 3; rank r sends every block but r in the reduce-scatter and
 * every block but r + 1 in the all-gather, so it sends 2n minus blocks r
 * and r + 1: least at r = 0 (two long blocks), most first at r = 5 (two
 * short ones), whose link to the switch is the busiest; it reduces every
 * block but r - 1, most n - 3 elements. */
static void test_trace_summary_by_hand(void **state)
{
    (void)state;
    const int p = 16384;
    const size_t n = 3 * (size_t)p + 5;
    char line[160], want[200];
    Out o;
    snprintf(line, sizeof line, "trace allreduce -a ring -p %d -s %zu", p, 4 * n);
    run(&o, line);
    assert_int_equal(o.rc, 0);
    snprintf(want, sizeof want, "# bytes sent per rank: least %zu (r0), most "
             "%zu (r5)", (2 * n - 8) * 4, (2 * n - 6) * 4);
    assert_non_null(find_line(o.out, want));
    snprintf(want, sizeof want, "# most by one rank: sent %zu, received %zu, "
             "reduced %zu bytes", (2 * n - 6) * 4, (2 * n - 6) * 4, (n - 3) * 4);
    assert_non_null(find_line(o.out, want));
    snprintf(want, sizeof want, "# wire: the busiest link, r5>sw.link (link), "
             "carried %zu bytes", (2 * n - 6) * 4);
    assert_non_null(find_line(o.out, want));
    /* 1 + 2 (p - 1) steps, p transfers each */
    snprintf(want, sizeof want, "# totals: %d steps, %zu transfers", 2 * p - 1,
             (size_t)(2 * p - 1) * (size_t)p);
    assert_non_null(find_line(o.out, want));
    snprintf(want, sizeof want, "  reduce-scatter: %d steps (2-%d), %zu "
             "transfers", p - 1, p, (size_t)(p - 1) * (size_t)p);
    assert_non_null(find_line(o.out, want));
    assert_non_null(find_line(o.out, "# check: not made"));
    assert_null(strstr(o.out, "\nstep 1/"));
    out_free(&o);
    /* JSON at 2048 ranks (the test's reader is slow on 16384-long arrays):
       the same formulas, m = 3 2048 + 5 */
    const int q = 2048;
    const size_t m = 3 * (size_t)q + 5;
    snprintf(line, sizeof line, "trace allreduce -a ring -p %d -s %zu --json",
             q, 4 * m);
    run(&o, line);
    assert_int_equal(o.rc, 0);
    Json j;
    json_parse(o.out, &j);
    assert_int_equal(jget(&j, "listed")->type, J_BOOL);
    assert_int_equal(jget(&j, "listed")->num, 0);
    assert_int_equal(jget(&j, "checked")->num, 0);
    assert_int_equal(jarr(&j, "steps")->n, 0);
    assert_int_equal(jarr(&j, "phases")->n, 3);
    const Json *to = jget(&j, "totals");
    assert_true(jnum(to, "max_sent") == (double)(2 * m - 6) * 4);
    assert_true(jnum(to, "max_reduced") == (double)(m - 3) * 4);
    const Json *sent = jarr(to, "sent");
    assert_int_equal(sent->n, (size_t)q);
    assert_true(sent->kid[0].num == (double)(2 * m - 8) * 4);
    assert_true(sent->kid[5].num == (double)(2 * m - 6) * 4);
    assert_true(sent->kid[q - 1].num == (double)(2 * m - 7) * 4);
    assert_true(jnum(jget(to, "wire"), "bytes") == (double)(2 * m - 6) * 4);
    assert_int_equal(jget(jget(&j, "check"), "correct")->type, J_NULL);
    json_free(&j);
    out_free(&o);
}

/* On a switch that sums (NVLS's), no lower bound is printed: the bound of
 * ranks sending and reducing on their own (14.68 ms for 64 MiB on 8
 * ranks) is above what NVLS takes there (7.592 ms); and the wire line
 * says why a rank sent more than its link carried. On a plain switch the
 * bound is printed as before. */
static void test_no_bound_on_reducing_switch(void **state)
{
    (void)state;
    Out o;
    run(&o, "trace allreduce -a nvls -p 8 -T switch,reduce -s 64M --summary");
    assert_int_equal(o.rc, 0);
    const char *b = find_line(o.out, "# lower bound");
    assert_non_null(b);
    assert_true(!strncmp(b, "# lower bound: none honest on a switch that "
                            "sums", 48));
    assert_non_null(strstr(o.out, "= 7.592 ms"));
    /* r0 sends 7/8 of 64 MiB as loads and its eighth to 7 receivers,
       2 x 58720256 B; its link carries the multicast once: 64 MiB */
    assert_non_null(strstr(o.out, "carried 67108864 bytes"));
    assert_non_null(strstr(o.out, "#   a rank's bytes sent (117440512 at "
                                  "most) count a multicast once per "
                                  "receiver"));
    out_free(&o);
    run(&o, "trace allreduce -a ring -p 8 -T switch -s 64M --summary");
    assert_int_equal(o.rc, 0);
    assert_non_null(find_line(o.out, "# lower bound (on full): "));
    out_free(&o);
}

/* --summary leaves the steps out and nothing else: its totals, model
 * time, wire and check are the listed trace's, for every algorithm. */
static void test_trace_summary_same(void **state)
{
    (void)state;
    static const char *const keep[] = {"# totals", "# most by one rank",
                                       "# model time", "# wire", "# closed",
                                       "# lower bound", "# check"};
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        CollCall c = make_call(a->coll, 8, 5, false);
        if (coll_check(&c) || !algo_fits(a, &c, NULL, NULL, 0))
            continue;
        char line[200];
        trace_line(line, sizeof line, a, &c, "");
        Out l, sm;
        run(&l, line);
        strcat(line, " --summary");
        run(&sm, line);
        assert_int_equal(l.rc, 0);
        assert_int_equal(sm.rc, 0);
        for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++) {
            const char *x = find_line(l.out, keep[k]);
            const char *y = find_line(sm.out, keep[k]);
            if (!x)
                continue;
            assert_non_null(y);
            size_t nx = strcspn(x, "\n"), ny = strcspn(y, "\n");
            if (nx != ny || memcmp(x, y, nx))
                fail_msg("%s: '%.*s' listed, '%.*s' summarised", line, (int)nx,
                         x, (int)ny, y);
        }
        assert_null(strstr(sm.out, "\nstep 1/"));
        assert_non_null(find_line(sm.out, "# phases:"));
        out_free(&l);
        out_free(&sm);
    }
}

/* What a summary cannot do is refused in one sentence. */
static void test_trace_summary_refusals(void **state)
{
    (void)state;
    expect_usage_error("trace allreduce -p 8 -s 64 --summary --steps", "give one");
    expect_usage_error("trace allreduce -p 2048 -s 64K --links", "--steps");
    expect_usage_error("trace allreduce -p 2048 -s 64K --full", "1024");
    expect_usage_error("trace allreduce -p 65537 -s 64K", "1 to 65536");
    /* the chain's pipeline moves each segment over each link in a step
       of its own: (p - 1)^2 transfers */
    expect_usage_error("trace broadcast -a chain -p 16384 -s 64M", "transfers");
    expect_usage_error("trace broadcast -a chain -p 16384 -s 64M",
                       "another algorithm");
    /* pairwise's 16383 steps, each its own shift, each written out */
    expect_usage_error("trace alltoall -a pairwise -p 16384 -s 1M "
                       "-T torus:128x128", "one by one");
    /* the one-step allgather is p - 1 transfers compact, p p written out:
       too many to list at 4096 ranks, a summary at once */
    Out o;
    run(&o, "trace allgather -a linear -p 4096 -s 64K --steps");
    assert_int_equal(o.rc, 1);
    assert_int_equal(count_lines(o.err), 1);
    assert_non_null(strstr(o.err, "give --summary"));
    out_free(&o);
    run(&o, "trace allgather -a linear -p 4096 -s 64K");
    assert_int_equal(o.rc, 0);
    assert_non_null(find_line(o.out, "# totals: 1 steps, 16777216 transfers, "
                              "268369920 bytes between ranks"));
    out_free(&o);
}

/* Ring all-reduce on torus:64x64 of 4096 ranks, 1 MiB (blocks of 64
 * floats), by hand: its 2 (p - 1) ring steps each one message of 256
 * bytes a rank, alone on its links (a row's end crosses the x wrap and a
 * y link), priced by the classes of the routes (written out they came to
 * more transfer hops than trace prices); the copy-in is free. */
static void test_trace_ring_on_torus_by_hand(void **state)
{
    (void)state;
    Out o;
    run(&o, "trace allreduce -p 4096 -s 1M -T torus:64x64 --summary");
    assert_int_equal(o.rc, 0);
    assert_non_null(find_line(o.out, "# totals: 8191 steps, 33550336 "
                              "transfers"));
    assert_non_null(find_line(o.out, "# model time (schedule, a = alpha, b = "
                              "beta bytes, g = gamma bytes): 8190 a + "
                              "2096640 b + 1048320 g"));
    out_free(&o);
}

/* The torus all-reduce on torus:128x128 of 16384 ranks, 64 MiB (V =
 * 67108864 bytes), by hand: a free copy-in and 2 (127 + 127) = 508 ring
 * steps; the busiest rank sends 2 (p - 1) / p V = 134209536 bytes and
 * reduces half that, and its x link carries 2 (127 / 128) V = 133169152. */
static void test_trace_torus_16384_by_hand(void **state)
{
    (void)state;
    Out o;
    run(&o, "trace allreduce -a torus -p 16384 -T torus:128x128 -s 64M "
            "--summary");
    assert_int_equal(o.rc, 0);
    assert_non_null(find_line(o.out, "# totals: 509 steps, "));
    assert_non_null(find_line(o.out, "# most by one rank: sent 134209536, "
                              "received 134209536, reduced 67104768 bytes"));
    assert_non_null(find_line(o.out, "# model time (schedule, a = alpha, b = "
                              "beta bytes, g = gamma bytes): 508 a + "
                              "134209536 b + 67104768 g"));
    assert_non_null(find_line(o.out, "# wire: the busiest link, r0>r1 (x), "
                              "carried 133169152 bytes"));
    out_free(&o);
}

/* Pairwise all-to-all on 16384 ranks by hand: p - 1 exchange steps after
 * the free copy-in, each rank sending one block of 16 floats a step. */
static void test_trace_pairwise_by_hand(void **state)
{
    (void)state;
    Out o;
    run(&o, "trace alltoall -a pairwise -p 16384 -s 1M");
    assert_int_equal(o.rc, 0);
    assert_non_null(find_line(o.out, "  exchange: 16383 steps (2-16384), "
                              "268419072 transfers"));
    assert_non_null(find_line(o.out, "# most by one rank: sent 1048512, "
                              "received 1048512, reduced 0 bytes"));
    assert_non_null(find_line(o.out, "# model time (schedule, a = alpha, b = "
                              "beta bytes, g = gamma bytes): 16383 a + "
                              "1048512 b + 0 g"));
    out_free(&o);
}

/* The closed form's line and the formula under it are for the trace's p:
 * Rabenseifner's reduce of 384 bytes at p = 6 is MPICH's 5a + 2.5nb +
 * 1.75ng (960 b, 672 g) under the form for p not a power of two, at p = 8
 * 6a + 1.75nb + 0.875ng (672 b, 336 g) under the power-of-two one. */
static void test_trace_formula_for_p(void **state)
{
    (void)state;
    const AlgoInfo *a = algo_find(COLL_REDUCE, "rabenseifner");
    char want[1024];
    Out o;
    run(&o, "trace reduce -a rabenseifner -p 6 -s 384 --summary");
    assert_int_equal(o.rc, 0);
    const char *l = find_line(o.out, "# closed form: 5 a + 960 b + 672 g");
    assert_non_null(l);
    snprintf(want, sizeof want, "#   %s\n", a->formula_other);
    assert_int_equal(strncmp(strchr(l, '\n') + 1, want, strlen(want)), 0);
    out_free(&o);
    run(&o, "trace reduce -a rabenseifner -p 8 -s 384 --summary");
    assert_int_equal(o.rc, 0);
    l = find_line(o.out, "# closed form: 6 a + 672 b + 336 g");
    assert_non_null(l);
    snprintf(want, sizeof want, "#   %s\n", a->formula);
    assert_int_equal(strncmp(strchr(l, '\n') + 1, want, strlen(want)), 0);
    out_free(&o);
}

/* A trace that cannot be written (a full disk) ends with exit status 1
 * and one sentence, as text and as JSON, however large. */
static void test_trace_write_fails(void **state)
{
    (void)state;
    FILE *full = fopen("/dev/full", "w");
    if (!full)
        skip();
    fclose(full);
    static const char *const lines[] = {
        "trace allreduce -p 4 -s 64", "trace allreduce -p 4 -s 64 --json",
        "trace alltoall -p 32 -s 64K --json", "trace alltoall -p 32 -s 64K",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        Out o;
        run_to(&o, lines[i], "/dev/full");
        if (o.rc != 1 || count_lines(o.err) != 1 ||
            strcmp(o.err, "collviz: cannot write the output: No space "
                          "left on device\n"))
            fail_msg("'%s' > /dev/full: rc %d, stderr '%s'", lines[i], o.rc, o.err);
        out_free(&o);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_sweep),
        cmocka_unit_test(test_trace_caps),
        cmocka_unit_test(test_trace_json_memory),
        cmocka_unit_test(test_trace_untracked),
        cmocka_unit_test(test_trace_overflow),
        cmocka_unit_test(test_trace_write_fails),
        cmocka_unit_test(test_trace_summary_by_hand),
        cmocka_unit_test(test_trace_summary_same),
        cmocka_unit_test(test_no_bound_on_reducing_switch),
        cmocka_unit_test(test_trace_summary_refusals),
        cmocka_unit_test(test_trace_pairwise_by_hand),
        cmocka_unit_test(test_trace_ring_on_torus_by_hand),
        cmocka_unit_test(test_trace_torus_16384_by_hand),
        cmocka_unit_test(test_trace_formula_for_p),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
