/* test_sched_text.c - collviz's schedule text: every built-in algorithm
 * written and read back is the same schedule at p = 2..16; files written
 * by hand are checked element by element, with the first wrong element
 * or the line at fault in one sentence; a file's parts scale with the
 * call's count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "core/msccl.h"
#include "core/sched_text.h"

/* Parse text (a C string); the error, the sentence in why. */
static CvError parse(const char *text, SchedText *t, char *why, size_t len)
{
    return sched_text_parse(text, strlen(text), "test.cvs", t, why, len);
}

/* The machines an algorithm of p ranks may be made for. */
static int machines_for(int p, Machine *ms)
{
    int n = 0, dims[2] = {2, p / 2};
    assert_int_equal(machine_full(&ms[n++], p, 1e-6, 1e-10, 2e-10), CV_OK);
    assert_int_equal(machine_grid(&ms[n++], MACHINE_SWITCH, 1, &p, true,
                                  1e-6, 1e-10, 2e-10), CV_OK);
    if (p % 2 == 0 && p >= 4) {
        assert_int_equal(machine_grid(&ms[n++], MACHINE_TORUS, 2, dims,
                                      false, 1e-6, 1e-10, 2e-10), CV_OK);
        assert_int_equal(machine_grid(&ms[n++], MACHINE_MESH, 2, dims,
                                      false, 1e-6, 1e-10, 2e-10), CV_OK);
        assert_int_equal(machine_nodes(&ms[n++], 2, p / 2, false, 2e-10),
                         CV_OK);
    }
    return n;
}

/* s written as MSCCL XML, read back, checked and built: the same. */
static void msccl_round_trip(const Schedule *s)
{
    char *xml, why[512];
    size_t len;
    assert_int_equal(msccl_write(s, &xml, &len), CV_OK);
    SchedText t;
    if (msccl_parse(xml, len, s->algo, &t, why, sizeof why))
        fail_msg("%s p=%d (MSCCL): %s\n%s", s->algo, s->call.nranks, why,
                 xml);
    if (sched_text_check(&t, NULL, why, sizeof why))
        fail_msg("%s p=%d (MSCCL): %s", s->algo, s->call.nranks, why);
    Schedule b;
    assert_int_equal(sched_text_build(&t, &s->call, false, &b), CV_OK);
    bool same = false;
    assert_int_equal(sched_same(s, &b, &same), CV_OK);
    if (!same)
        fail_msg("%s p=%d count=%zu: not the same after MSCCL (%zu steps, "
                 "%zu back)", s->algo, s->call.nranks, s->call.count,
                 s->nsteps, b.nsteps);
    sched_fini(&b);
    sched_text_fini(&t);
    /* Without collviz's step numbers the runtime's order alone decides:
     * each transfer as early as its threadblocks allow, which may be
     * another schedule, but one as right. */
    for (char *c = xml; (c = strstr(c, " cvstep=\""));)
        memmove(c, strchr(c + 9, '"') + 1, strlen(strchr(c + 9, '"') + 1) + 1);
    assert_null(strstr(xml, "cvstep"));
    if (msccl_parse(xml, strlen(xml), s->algo, &t, why, sizeof why) ||
        sched_text_check(&t, NULL, why, sizeof why))
        fail_msg("%s p=%d (MSCCL, no cvstep): %s", s->algo, s->call.nranks,
                 why);
    sched_text_fini(&t);
    free(xml);
}

/* s written, read back, checked and built for its call: the same. */
static void round_trip(const Schedule *s)
{
    char *text, why[512];
    size_t len;
    assert_int_equal(sched_text_write(s, &text, &len), CV_OK);
    SchedText t;
    CvError e = sched_text_parse(text, len, s->algo, &t, why, sizeof why);
    if (e)
        fail_msg("%s p=%d: %s\n%s", s->algo, s->call.nranks, why, text);
    if (sched_text_check(&t, NULL, why, sizeof why))
        fail_msg("%s p=%d: %s", s->algo, s->call.nranks, why);
    assert_int_equal(sched_text_fits(&t, &s->call, why, sizeof why), CV_OK);
    Schedule b;
    assert_int_equal(sched_text_build(&t, &s->call, false, &b), CV_OK);
    bool same = false;
    assert_int_equal(sched_same(s, &b, &same), CV_OK);
    if (!same)
        fail_msg("%s p=%d count=%zu: not the same after the round trip",
                 s->algo, s->call.nranks, s->call.count);
    char *again;
    size_t len2;
    assert_int_equal(sched_text_write(&b, &again, &len2), CV_OK);
    assert_string_equal(again, text); /* the text is a fixed point */
    free(again);
    sched_fini(&b);
    sched_text_fini(&t);
    free(text);
    msccl_round_trip(s);
}

/* Every algorithm on the first machine it is made for, at p = 2..16,
 * two counts (one p does not divide), rooted off rank 0, in and out of
 * place. */
static void test_every_algorithm_round_trips(void **state)
{
    (void)state;
    size_t cases = 0;
    for (int p = 2; p <= 16; p++) {
        Machine ms[5];
        int nm = machines_for(p, ms);
        for (size_t i = 0; i < algo_count(); i++) {
            const AlgoInfo *a = algo_at(i);
            size_t counts[] = {(size_t)p * 2, (size_t)p + 1};
            for (int ci = 0; ci < 2; ci++)
                for (int ip = 0; ip < 2; ip++) {
                    CollCall c = {.kind = a->coll, .nranks = p,
                                  .count = counts[ci], .dtype = DT_FLOAT,
                                  .root = coll_is_rooted(a->coll) ? p - 1 : 0,
                                  .in_place = ip};
                    if (coll_check(&c))
                        continue;
                    int m = 0;
                    while (m < nm && !algo_fits(a, &c, &ms[m], NULL, 0))
                        m++;
                    if (m == nm)
                        continue;
                    Schedule s;
                    assert_int_equal(algo_generate_on(a, &c, &ms[m], &s,
                                                      NULL, 0), CV_OK);
                    round_trip(&s);
                    sched_fini(&s);
                    cases++;
                }
        }
    }
    /* Every algorithm took part: 38 of them, most at every p. */
    assert_true(cases > 38 * 15 * 2);
}

/* A ring allgather written by hand, 4 ranks, a block one part. */
static const char ring_ag[] =
    "# ring allgather\n"
    "collective allgather\n"
    "ranks 4\n"
    "parts 1\n"
    "step copy in\n"
    "r0.send[0:1] -> r0.recv[0:1]\n"
    "r1.send[0:1] -> r1.recv[1:2]\n"
    "r2.send[0:1] -> r2.recv[2:3]\n"
    "r3.send[0:1] -> r3.recv[3:4]\n"
    "step\n"
    "r0.recv[0] -> r1.recv[0]\n"
    "r1.recv[1] -> r2.recv[1]\n"
    "r2.recv[2] -> r3.recv[2]\n"
    "r3.recv[3] -> r0.recv[3]\n"
    "step\n"
    "r0.recv[3] -> r1.recv[3]\n"
    "r1.recv[0] -> r2.recv[0]\n"
    "r2.recv[1] -> r3.recv[1]\n"
    "r3.recv[2] -> r0.recv[2]\n"
    "step\n"
    "r0.recv[2] -> r1.recv[2]\n"
    "r1.recv[3] -> r2.recv[3]\n"
    "r2.recv[0] -> r3.recv[0]\n"
    "r3.recv[1] -> r0.recv[1]   # the last one\n";

static void test_hand_written_ring(void **state)
{
    (void)state;
    SchedText t;
    char why[512];
    assert_int_equal(parse(ring_ag, &t, why, sizeof why), CV_OK);
    assert_int_equal(t.unit.nsteps, 4);
    assert_int_equal(t.unit.nxfers, 16);
    assert_int_equal(t.parts, 1);
    assert_string_equal(t.unit.steps[0].phase, "copy in");
    assert_null(t.unit.steps[1].phase);
    assert_int_equal(t.line[15], 24);
    assert_int_equal(sched_text_check(&t, NULL, why, sizeof why), CV_OK);
    /* At 3 elements a block, each part is 3 elements: rank 3's last
     * transfer moves recv[3:6], written out in elements. */
    CollCall c = {.kind = COLL_ALLGATHER, .nranks = 4, .count = 3};
    Schedule s;
    assert_int_equal(sched_text_fits(&t, &c, why, sizeof why), CV_OK);
    assert_int_equal(sched_text_build(&t, &c, false, &s), CV_OK);
    const Transfer *x = &s.xfers[15];
    assert_int_equal(x->src, 3);
    assert_int_equal(x->dst, 0);
    assert_int_equal(x->src_off, 3);
    assert_int_equal(x->dst_off, 3);
    assert_int_equal(x->count, 3);
    assert_int_equal(sched_bufsize(&s, 0, BUF_RECV), 12);
    sched_fini(&s);
    /* What the call must be. */
    c.nranks = 8;
    assert_int_equal(sched_text_fits(&t, &c, why, sizeof why), CV_ERR_ALGO);
    assert_string_equal(why, "the schedule is for 4 ranks, not 8");
    c.nranks = 4;
    c.kind = COLL_ALLREDUCE;
    assert_int_equal(sched_text_fits(&t, &c, why, sizeof why), CV_ERR_ALGO);
    assert_string_equal(why, "the schedule is for allgather, not allreduce");
    sched_text_fini(&t);
}

/* The ring with its third step left out: rank 1 never gets rank 3's
 * part. The sentence names rank, buffer, element, what it holds and
 * what it should, and the step after which it stays wrong. */
static void test_missing_step_names_first_wrong_element(void **state)
{
    (void)state;
    char text[sizeof ring_ag];
    strcpy(text, ring_ag);
    char *third = strstr(text, "step\nr0.recv[3]");
    memmove(third, third + 5, strlen(third + 5) + 1); /* drop the "step" */
    SchedText t;
    char why[512];
    /* Steps 2 and 3 are one now (every read sees the state before the
     * step): rank 0's recv[3], empty before it, goes on to rank 1, and so
     * on. Rank 0's recv[1] comes in the last step from rank 3's, which
     * was to arrive in the lost step: the first wrong element by rank
     * and place. */
    assert_int_equal(parse(text, &t, why, sizeof why), CV_OK);
    size_t bad = 0;
    assert_int_equal(sched_text_check(&t, &bad, why, sizeof why),
                     CV_ERR_WRONG);
    assert_string_equal(why, "not allgather: after the last step r0.recv[1] "
                        "holds nothing, and it should hold rank 1's unit 0 "
                        "(its last write is step 3, line 23)");
    assert_int_equal(bad, 2);
    sched_text_fini(&t);
}

/* An allreduce on 2 ranks, one reduce turned into a copy. */
static void test_copy_for_reduce_refused(void **state)
{
    (void)state;
    const char *ok =
        "collective allreduce\nranks 2\nparts 2\nin-place\n"
        "step reduce-scatter\n"
        "r1.recv[0:1] -> r0.recv[0:1] reduce\n"
        "r0.recv[1:2] -> r1.recv[1:2] reduce\n"
        "step all-gather\n"
        "r0.recv[0:1] -> r1.recv[0:1]\n"
        "r1.recv[1:2] -> r0.recv[1:2]\n";
    SchedText t;
    char why[512], bad_text[512];
    assert_int_equal(parse(ok, &t, why, sizeof why), CV_OK);
    assert_int_equal(sched_text_check(&t, NULL, why, sizeof why), CV_OK);
    sched_text_fini(&t);
    strcpy(bad_text, ok);
    char *r = strstr(bad_text, " reduce\nr0.recv[1:2]");
    memmove(r, r + 7, strlen(r + 7) + 1);
    assert_int_equal(parse(bad_text, &t, why, sizeof why), CV_OK);
    assert_int_equal(sched_text_check(&t, NULL, why, sizeof why),
                     CV_ERR_WRONG);
    assert_string_equal(why, "not allreduce: after the last step r0.recv[0] "
                        "holds rank 1's unit 0, and it should hold the "
                        "reduction of every rank's unit 0 (its last write "
                        "is step 1, line 6)");
    sched_text_fini(&t);
}

/* Reductions the symbolic run refuses, each at its line. */
static void test_bad_reductions(void **state)
{
    (void)state;
    static const struct {
        const char *body, *why;
    } cases[] = {
        {"step\nr0.recv[0:1] -> r1.tmp[0:1] reduce\n",
         "6: step 1 reduces r0.recv[0] into r1.tmp[0], which holds "
         "nothing yet; copy into it first"},
        {"step\nr0.recv[0:1] -> r1.recv[0:1] reduce\n"
         "step\nr0.recv[0:1] -> r1.recv[0:1] reduce\n",
         "8: step 2 reduces r0.recv[0] (rank 0's unit 0) into "
         "r1.recv[0], which already holds the reduction of every rank's "
         "unit 0: an input would count twice"},
        {"step\nr0.recv[1:2] -> r1.recv[0:1] reduce\n",
         "6: step 1 reduces r0.recv[1] (rank 0's unit 1) into "
         "r1.recv[0] (rank 1's unit 0): different elements of the "
         "inputs"},
        /* the second unit of a range is the one refused, and named */
        {"step\nr1.recv[0:1] -> r1.tmp[0:1]\nstep\n"
         "r0.recv[0:2] -> r1.tmp[0:2] reduce\n",
         "8: step 2 reduces r0.recv[1] into r1.tmp[1], which holds nothing "
         "yet; copy into it first"},
        {"step\nr0.recv[0:1] -> r1.recv[0:1]\nr1.recv[0:1] -> r1.recv[0:1]\n",
         "7: step 1 writes r1.recv[0:1], which line 6 writes in the same "
         "step; one step writes an element once"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512], why[512];
        snprintf(text, sizeof text, "collective allreduce\nranks 2\n"
                 "parts 2\nin-place\n%s", cases[i].body);
        SchedText t;
        assert_int_equal(parse(text, &t, why, sizeof why), CV_OK);
        assert_int_not_equal(sched_text_check(&t, NULL, why, sizeof why),
                             CV_OK);
        assert_string_equal(why, cases[i].why);
        sched_text_fini(&t);
    }
}

/* Files that are not schedules: one sentence each, with the line. */
static void test_bad_files(void **state)
{
    (void)state;
    static const struct {
        const char *text, *why;
    } cases[] = {
        {"collective allgather\nranks 4\n", "the header needs 'collective', "
         "'ranks' and 'parts' (or 'count')"},
        {"collective allgahter\n", "1: 'allgahter' is not a collective"},
        /* a header line given twice: which one holds would be a guess */
        {"collective allgather\ncollective allreduce\n",
         "2: the collective is given twice"},
        {"collective reduce\nranks 4\nroot 1\nroot 2\n",
         "4: the root is given twice"},
        {"collective allgather\nin-place\nin-place\n",
         "3: 'in-place' is given twice"},
        /* one rank: no rank 1 (a bound of 0 once let any digit through) */
        {"collective reduce\nranks 1\nroot 1\n",
         "3: root '1' is not a rank from 0 to 0"},
        {"collective reduce\nranks 1\ntmp r1 1\n",
         "3: 'r1' is not a rank r0 to r0"},
        {"ranks 0\n", "1: ranks '0' is not a whole number from 1 to 1024"},
        {"ranks 99999999999999999999\n", "1: ranks '99999999999999999999' "
         "is not a whole number from 1 to 1024"},
        {"collective allgather\nranks 4\nparts 1\nr0.send[0] -> r1.recv[0]\n",
         "4: a transfer before the first 'step'"},
        {"collective allgather\nranks 4\nstep\n", "3: the header needs "
         "'collective', 'ranks' and 'parts' (or 'count') before the first "
         "'step'"},
        {"collective allgather\nranks 4\nparts 1\nstep\nstep\n"
         "r0.send[0] -> r1.recv[0]\n", "4: this step has no transfers"},
        {"collective allgather\nranks 4\nparts 1\nstep\n"
         "r4.send[0] -> r1.recv[0]\n",
         "5: rank 4 is not one of the 4 ranks (r0 to r3)"},
        {"collective allgather\nranks 4\nparts 1\nstep\n"
         "r0.send[0:2] -> r1.recv[0:2]\n",
         "5: r0.send[0:2] ends past rank 0's send buffer of 1 units"},
        {"collective allgather\nranks 4\nparts 1\nstep\n"
         "r0.send[0:1] -> r1.recv[0:2]\n", "5: [0:1] holds 1 units and "
         "[0:2] 2; a transfer writes as many as it reads"},
        {"collective allgather\nranks 4\nparts 1\nstep\n"
         "r0.recv[0] -> r1.send[0]\n",
         "5: r1.send is rank 1's input, which no transfer may write"},
        {"collective allgather\nranks 4\nparts 1\nstep\n"
         "r0.send[1:1] -> r1.recv[0:0]\n",
         "5: the range [1:1] is empty; write [a:b] with a < b"},
        {"collective allgather\nranks 4\nparts 1\nstep\n"
         "r0.sned[0] -> r1.recv[0]\n",
         "5: 'sned' is not a buffer: send, recv or tmp"},
        {"collective allgather\nranks 4\nparts 1\nstep\n"
         "r0.send[0] => r1.recv[0]\n", "5: 'r0.send[0]' is neither a "
         "transfer (rA.BUF[a:b] -> rB.BUF[c:d]) nor one of: collective, "
         "ranks, parts, count, root, in-place, tmp, step"},
        {"collective allgather\nranks 4\nparts 1\nstep\n"
         "r0.send[0] -> r1.recv[0] reduc\n", "5: 'reduc' after a transfer "
         "is not 'reduce', 'copy' or 'switch'"},
        {"collective allgather\nranks 4\nparts 1\nstep\n"
         "r0.send[0] -> r1.recv[0]\nranks 4\n",
         "6: 'ranks' belongs in the header, before the first 'step'"},
        {"collective allgather\nranks 4\nparts 1\ntmp 1\nstep\n"
         "r0.send[0] -> r1.tmp[1:2]\n",
         "6: r1.tmp[1:2] ends past rank 1's tmp buffer of 1 units"},
        {"collective sendrecv\nranks 4\nparts 1\nin-place\nstep\n"
         "r0.recv[0] -> r1.recv[0]\n", "sendrecv has no in-place form"},
        /* 1024 ranks of 2^24 + 1024 * 2^24 units: 2^34 (1 + 2^10) */
        {"collective allgather\nranks 1024\ncount 16777216\n",
         "the buffers hold 17609365913600 units on 1024 ranks, more than "
         "collviz checks unit by unit; use fewer parts"},
        {"collective allgather\nranks 4\nparts 1\nstep\n"
         "r0.send[0] -> r1.recv[0]\x00\n", "5: a NUL byte: this is not text"},
        /* five transfers of 16 million units: 80 million > 2^26 */
        {"collective allgather\nranks 1\ncount 16000000\nstep\n"
         "r0.send[0:16000000] -> r0.recv[0:16000000]\n"
         "r0.send[0:16000000] -> r0.recv[0:16000000]\n"
         "r0.send[0:16000000] -> r0.recv[0:16000000]\n"
         "r0.send[0:16000000] -> r0.recv[0:16000000]\n"
         "r0.send[0:16000000] -> r0.recv[0:16000000]\n",
         "9: the transfers move more than 67108864 units in all, more than "
         "collviz checks unit by unit; use fewer parts"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        SchedText t;
        char why[512];
        size_t len = strlen(cases[i].text);
        if (strstr(cases[i].why, "NUL"))
            len += 2; /* the NUL and the newline after it */
        CvError e = sched_text_parse(cases[i].text, len, "bad.cvs", &t, why,
                                     sizeof why);
        assert_int_not_equal(e, CV_OK);
        assert_string_equal(why, cases[i].why);
    }
}

/* Parts scale: a 2-rank allreduce in 2 parts at 10 elements a block moves
 * 5 elements a transfer; at 7 it does not fit. */
static void test_parts_scale(void **state)
{
    (void)state;
    const char *text =
        "collective allreduce\nranks 2\nparts 2\n"
        "step\nr0.send[0:2] -> r0.recv[0:2]\nr1.send[0:2] -> r1.recv[0:2]\n"
        "step\nr1.send[1:2] -> r0.tmp[0:1]\nr0.send[0:1] -> r1.tmp[0:1]\n"
        "step\nr0.tmp[0:1] -> r0.recv[1:2] reduce\n"
        "r1.tmp[0:1] -> r1.recv[0:1] reduce\n"
        "step\nr0.recv[1:2] -> r1.recv[1:2]\nr1.recv[0:1] -> r0.recv[0:1]\n";
    SchedText t;
    char why[512];
    assert_int_equal(parse(text, &t, why, sizeof why), CV_OK);
    assert_int_equal(sched_text_check(&t, NULL, why, sizeof why), CV_OK);
    assert_int_equal(sched_bufsize(&t.unit, 0, BUF_TMP), 1);
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 2, .count = 10};
    Schedule s;
    assert_int_equal(sched_text_build(&t, &c, false, &s), CV_OK);
    assert_int_equal(sched_bufsize(&s, 1, BUF_TMP), 5);
    assert_int_equal(s.xfers[2].src_off, 5);
    assert_int_equal(s.xfers[2].count, 5);
    assert_int_equal(s.xfers[4].dst_off, 5);
    sched_fini(&s);
    c.count = 7;
    assert_int_equal(sched_text_fits(&t, &c, why, sizeof why), CV_ERR_ALGO);
    assert_string_equal(why, "the schedule cuts a block into 2 parts, and 7 "
                        "elements are not a whole number of them");
    sched_text_fini(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_algorithm_round_trips),
        cmocka_unit_test(test_hand_written_ring),
        cmocka_unit_test(test_missing_step_names_first_wrong_element),
        cmocka_unit_test(test_copy_for_reduce_refused),
        cmocka_unit_test(test_bad_reductions),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_parts_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
