/* test_msccl.c - MSCCL's algorithm XML: the files msccl-tools writes for
 * its examples (tests/msccl/, README there) are accepted as their
 * collective, priced as the definition says, drawn, and run on threads
 * with nothing wrong; one reduce turned into a copy is refused with the
 * first wrong element; every kind of bad file gets one sentence with its
 * line. */
#include "run_bin.h"

#include <math.h>

#include "core/model.h"
#include "core/msccl.h"

/* The file's bytes (malloc'd), *len of them. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *t = malloc(1 << 20);
    assert_non_null(t);
    *len = fread(t, 1, 1 << 20, f);
    fclose(f);
    return t;
}

static const char *const examples[] = {
    "allgather_recursive_doubling", "allgather_ring", "allreduce_allpairs",
    "allreduce_hierarchical", "allreduce_recursive_doubling_halving",
    "allreduce_ring_1ch", "allreduce_ring_4ch", "alltoall_allpairs",
};

static void read_example(const char *name, SchedText *t)
{
    char path[256], why[512];
    size_t len;
    snprintf(path, sizeof path, "tests/msccl/%s.xml", name);
    char *xml = slurp(path, &len);
    assert_true(msccl_is_xml(xml, len));
    if (msccl_parse(xml, len, name, t, why, sizeof why) ||
        sched_text_check(t, NULL, why, sizeof why))
        fail_msg("%s: %s", name, why);
    free(xml);
}

/* Each example is its collective, element by element. */
static void test_examples_accepted(void **state)
{
    (void)state;
    static const struct {
        CollKind kind;
        int ranks;
        size_t parts;
    } want[] = {
        {COLL_ALLGATHER, 8, 1}, {COLL_ALLGATHER, 4, 1},
        {COLL_ALLREDUCE, 4, 16}, {COLL_ALLREDUCE, 4, 4},
        {COLL_ALLREDUCE, 8, 8}, {COLL_ALLREDUCE, 4, 4},
        {COLL_ALLREDUCE, 4, 4}, {COLL_ALLTOALL, 4, 1},
    };
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        SchedText t;
        read_example(examples[i], &t);
        assert_int_equal(t.unit.call.kind, want[i].kind);
        assert_int_equal(t.unit.call.nranks, want[i].ranks);
        assert_int_equal(t.parts, want[i].parts);
        sched_text_fini(&t);
    }
}

/* The ring allgather and the all-pairs alltoall at one float a block, on
 * full and on a 2x2 torus (alpha 1 us, 10 GB/s): by hand, the ring is 3
 * steps of one 4-byte message a port, 3 (a + 4 b); every torus route of
 * the ring (r -> r + 1, ties going up) crosses links no other message of
 * its step does, so the same. The all-pairs is one step in which each
 * port sends 3 messages of 4 bytes: 3 a + 12 b on full. */
static void test_priced_by_hand(void **state)
{
    (void)state;
    const double a = 1e-6, b = 1e-10, ring = 3 * (a + 4 * b);
    int dims[2] = {2, 2};
    Machine full, torus;
    assert_int_equal(machine_full(&full, 4, a, b, 0), CV_OK);
    assert_int_equal(machine_grid(&torus, MACHINE_TORUS, 2, dims, false, a, b,
                                  0), CV_OK);
    const char *names[] = {"allgather_ring", "alltoall_allpairs"};
    for (int i = 0; i < 2; i++) {
        SchedText t;
        read_example(names[i], &t);
        CollCall c = t.unit.call;
        c.count = 1;
        c.dtype = DT_FLOAT;
        Schedule s;
        assert_int_equal(sched_text_build(&t, &c, false, &s), CV_OK);
        double sec = 0;
        CostTerms ct;
        assert_int_equal(model_machine_cost(&s, &full, false, &ct, &sec),
                         CV_OK);
        assert_true(fabs(sec - ring) < 1e-12);
        if (i == 0) {
            assert_int_equal(model_machine_cost(&s, &torus, false, &ct,
                                                &sec), CV_OK);
            assert_true(fabs(sec - ring) < 1e-12);
        }
        sched_fini(&s);
        sched_text_fini(&t);
    }
}

/* Every example priced on full and on a torus of its ranks (2x2, 2x4):
 * a time on each, at least its steps with messages times alpha. */
static void test_examples_priced(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        SchedText t;
        read_example(examples[i], &t);
        CollCall c = t.unit.call;
        c.count = t.parts * 1024;
        Schedule s;
        assert_int_equal(sched_text_build(&t, &c, false, &s), CV_OK);
        int dims[2] = {2, c.nranks / 2};
        Machine full, torus;
        assert_int_equal(machine_full(&full, c.nranks, 1e-6, 1e-10, 1e-10),
                         CV_OK);
        assert_int_equal(machine_grid(&torus, MACHINE_TORUS, 2, dims, false,
                                      1e-6, 1e-10, 1e-10), CV_OK);
        double f = 0, tt = 0;
        CostTerms ct;
        assert_int_equal(model_machine_cost(&s, &full, false, &ct, &f), CV_OK);
        assert_int_equal(model_machine_cost(&s, &torus, false, &ct, &tt),
                         CV_OK);
        size_t msg = 0;
        for (size_t k = 0; k < s.nsteps; k++)
            for (size_t x = 0; x < s.steps[k].n; x++)
                if (s.xfers[s.steps[k].first + x].src !=
                    s.xfers[s.steps[k].first + x].dst) {
                    msg++;
                    break;
                }
        assert_true(isfinite(f) && isfinite(tt));
        assert_true(f >= msg * 1e-6 && tt >= msg * 1e-6 && msg > 0);
        sched_fini(&s);
        sched_text_fini(&t);
    }
}

/* Run on threads (perf, the real backend): nothing wrong; drawn as an
 * SVG. */
static void test_examples_run_and_drawn(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        char path[256], svg[] = "/tmp/cvz-msccl-XXXXXX";
        snprintf(path, sizeof path, "tests/msccl/%s.xml", examples[i]);
        const char *perf[] = {"perf", "-a", path, "-b", "1K", "-e", "4K",
                              "-n", "1", "-w", "0", NULL};
        Ran r = run_args(perf);
        if (r.status || !strstr(r.out, "# Out of bounds values : 0 OK"))
            fail_msg("%s: status %d\n%s%s", path, r.status, r.out, r.err);
        ran_free(&r);
        int fd = mkstemp(svg);
        assert_true(fd >= 0);
        close(fd);
        const char *draw[] = {"-a", path, "--export-svg", svg, NULL};
        r = run_args(draw);
        assert_int_equal(r.status, 0);
        size_t len;
        char *text = slurp(svg, &len);
        text[len < (1 << 20) ? len : 0] = 0;
        assert_true(len > 1000 && strstr(text, "<svg xmlns"));
        free(text);
        unlink(svg);
        ran_free(&r);
    }
}

/* The ring allreduce with gpu 0's rrcs (reduce its own part in, store,
 * send on) turned into rcs (store and send on what came): chunk 1 ends
 * without rank 0's input, first seen at rank 0, where line 7 wrote it. */
static void test_copy_for_reduce_refused(void **state)
{
    (void)state;
    size_t len;
    char *xml = slurp("tests/msccl/allreduce_ring_1ch.xml", &len), why[512];
    xml[len] = 0;
    char *r = strstr(xml, "type=\"rrcs\"");
    assert_non_null(r);
    memmove(r + 7, r + 8, strlen(r + 8) + 1); /* "rrcs" -> "rcs" */
    SchedText t;
    assert_int_equal(msccl_parse(xml, strlen(xml), "x", &t, why, sizeof why),
                     CV_OK);
    assert_int_equal(sched_text_check(&t, NULL, why, sizeof why),
                     CV_ERR_WRONG);
    assert_non_null(strstr(why, "not allreduce: after the last step "
                           "r0.recv[1] holds the reduction of ranks 1-3's "
                           "unit 1, and it should hold the reduction of "
                           "every rank's unit 1"));
    assert_non_null(strstr(why, "line 7)"));
    sched_text_fini(&t);
    free(xml);
}

/* Files the runtime reads that a first reading got wrong: an in-place
 * allgather reading its input as i (gpu g's block of o: i[0] is o[g]),
 * and a step whose cvstep is beyond any other (nothing happens until
 * then: no deadlock). */
static void test_in_place_input_and_late_step(void **state)
{
    (void)state;
    static const char *const ok[] = {
        "<algo name=\"agip\" nchunksperloop=\"2\" ngpus=\"2\" "
        "coll=\"allgather\" inplace=\"1\">\n"
        "<gpu id=\"0\"><tb id=\"0\" send=\"1\" recv=\"1\" chan=\"0\">\n"
        "<step s=\"0\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" cnt=\"1\"/>\n"
        "<step s=\"1\" type=\"r\" dstbuf=\"o\" dstoff=\"1\" cnt=\"1\"/>\n"
        "</tb></gpu>\n"
        "<gpu id=\"1\"><tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\">\n"
        "<step s=\"0\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" cnt=\"1\"/>\n"
        "<step s=\"1\" type=\"r\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\"/>\n"
        "</tb></gpu>\n</algo>\n",
        "<algo name=\"h\" nchunksperloop=\"1\" ngpus=\"1\" "
        "coll=\"allreduce\" inplace=\"1\">\n<gpu id=\"0\" s_chunks=\"1\">\n"
        "<tb id=\"0\" send=\"-1\" recv=\"-1\" chan=\"0\">\n"
        "<step s=\"0\" type=\"cpy\" srcbuf=\"o\" srcoff=\"0\" "
        "dstbuf=\"s\" dstoff=\"0\" cnt=\"1\" cvstep=\"3\"/>\n"
        "</tb></gpu>\n</algo>\n",
    };
    for (size_t i = 0; i < 2; i++) {
        SchedText t;
        char why[512];
        if (msccl_parse(ok[i], strlen(ok[i]), "t", &t, why, sizeof why) ||
            sched_text_check(&t, NULL, why, sizeof why))
            fail_msg("case %zu: %s", i, why);
        if (i == 1) /* the copy in round 3, the only step */
            assert_int_equal(t.unit.nsteps, 1);
        sched_text_fini(&t);
    }
}

/* Two gpus; body is their <gpu> elements. */
#define ALGO2(coll, body)                                                    \
    "<algo name=\"t\" nchunksperloop=\"2\" ngpus=\"2\" coll=\"" coll         \
    "\" inplace=\"1\">\n" body "</algo>\n"
#define TB(id, s, r) "<tb id=\"" #id "\" send=\"" #s "\" recv=\"" #r       \
    "\" chan=\"0\">\n"
#define STEP(n, ty, so, dof, cnt, dep, deps)                                 \
    "<step s=\"" #n "\" type=\"" ty "\" srcbuf=\"i\" srcoff=\"" #so          \
    "\" dstbuf=\"i\" dstoff=\"" #dof "\" cnt=\"" #cnt "\" depid=\"" #dep     \
    "\" deps=\"" #deps "\" hasdep=\"0\"/>\n"

static void test_bad_files(void **state)
{
    (void)state;
    static const struct {
        const char *xml, *why;
    } cases[] = {
        {"<?xml version=\"1.0\"?>\n<!-- nothing -->\n",
         "no <algo> element: this is no MSCCL algorithm"},
        {"<algo ngpus=\"2\" nchunksperloop=\"2\" coll=\"custom\">",
         "1: <algo coll=\"custom\"> is no collective collviz knows"},
        {"<algo nchunksperloop=\"2\" coll=\"allreduce\">",
         "1: <algo> needs ngpus"},
        {"<algo ngpus=\"2\" nchunksperloop=\"3\" coll=\"allgather\">",
         "1: nchunksperloop=\"3\" does not cut the 2 blocks of allgather's "
         "largest buffer into whole chunks"},
        {ALGO2("allreduce", "<gpu id=\"0\">\n<foo/>\n</gpu>\n"),
         "3: <foo> where a child of the element above goes"},
        {ALGO2("allreduce", "<gpu id=\"0\">\n" TB(0, 1, -1)
               STEP(0, "sx", 0, 0, 1, -1, -1) "</tb>\n</gpu>\n"),
         "4: type=\"sx\" is not a step MSCCL runs: s, r, rcs, rrs, rrc, "
         "rrcs, cpy, re, nop"},
        {ALGO2("allreduce", "<gpu id=\"0\">\n</gpu>\n"),
         "the algorithm has no <gpu id=\"1\">, and ngpus is 2"},
        {ALGO2("allreduce", "<gpu id=\"0\">\n" TB(0, 1, -1)
               STEP(0, "s", 0, 0, 1, -1, -1) "</tb>\n</gpu>\n"
               "<gpu id=\"1\">\n</gpu>\n"),
         "3: gpu 0 sends to gpu 1 on channel 0, and no threadblock of gpu 1 "
         "receives from it there"},
        {ALGO2("allreduce", "<gpu id=\"0\">\n" TB(0, 1, 1)
               STEP(0, "s", 1, 1, 2, -1, -1) "</tb>\n</gpu>\n"
               "<gpu id=\"1\">\n" TB(0, 0, 0) "</tb>\n</gpu>\n"),
         "4: srcoff=\"1\" cnt=\"2\" reaches past gpu 0's input and output "
         "buffer of 2 chunks"},
        {ALGO2("allreduce", "<gpu id=\"0\">\n" TB(0, 1, 1)
               STEP(0, "r", 0, 0, 1, -1, -1) STEP(1, "s", 1, 1, 1, -1, -1)
               "</tb>\n</gpu>\n<gpu id=\"1\">\n" TB(0, 0, 0)
               STEP(0, "r", 1, 1, 1, -1, -1) STEP(1, "s", 0, 0, 1, -1, -1)
               "</tb>\n</gpu>\n"),
         "4: gpu 0's threadblock 0 never gets past this r step: its peer "
         "never sends to it: a deadlock, or a receive with no send"},
        {ALGO2("allreduce", "<gpu id=\"0\">\n" TB(0, 1, -1)
               STEP(0, "s", 0, 0, 1, 1, 0) "</tb>\n" TB(1, -1, -1)
               STEP(0, "nop", -1, -1, 0, 0, 0) "</tb>\n</gpu>\n"
               "<gpu id=\"1\">\n" TB(0, -1, 0)
               STEP(0, "r", 0, 0, 1, -1, -1) "</tb>\n</gpu>\n"),
         "4: gpu 0's threadblock 0 never gets past this s step: the step it "
         "waits for (depid, deps) never finishes: a cycle of dependencies"},
        {ALGO2("allreduce", "<gpu id=\"0\">\n" TB(0, 1, -1)
               STEP(0, "s", 0, 0, 2, -1, -1) "</tb>\n</gpu>\n"
               "<gpu id=\"1\">\n" TB(0, -1, 0)
               STEP(0, "r", 0, 0, 1, -1, -1) "</tb>\n</gpu>\n"),
         "9: this step receives 1 chunks, and the send it meets (line 4) "
         "sends 2"},
        {ALGO2("allreduce", "<gpu id=\"0\">\n" TB(0, 1, -1)
               STEP(0, "s", 0, 0, 1, -1, -1) STEP(1, "s", 1, 1, 1, -1, -1)
               "</tb>\n</gpu>\n<gpu id=\"1\">\n" TB(0, -1, 0)
               STEP(0, "r", 0, 0, 1, -1, -1) "</tb>\n</gpu>\n"),
         "5: gpu 1 never receives what this step sends it"},
        {"<algo ngpus=\"2\" nchunksperloop=\"2\" coll=\"allreduce\"><gpu id="
         "\"0\" s_chunks=\"1\">\n<tb id=\"0\" send=\"1\" recv=\"1\" chan=\"0"
         "\">\n<step s=\"0\" type=\"s\" srcbuf=\"i\" srcoff=\"0\" cnt=\"1\"",
         "3: <step> is not closed with '>'"},
        {ALGO2("allreduce", "<gpu id=\"0\"/>\n<gpu id=\"1\"/>\n")
         "<algo ngpus=\"2\" nchunksperloop=\"2\" coll=\"allreduce\"/>\n",
         "5: a second <algo>: a file holds one algorithm"},
        {"<algo ngpus=\"2\" nchunksperloop=\"2\" coll=\"allreduce\" name=\"a"
         "\0\">", "1: attribute name of <algo> has no closing quote within "
         "63 bytes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        SchedText t;
        char why[512];
        size_t len = strlen(cases[i].xml);
        if (strstr(cases[i].why, "closing quote"))
            len += 2; /* the NUL and the quote after it */
        CvError e = msccl_parse(cases[i].xml, len, "t", &t, why, sizeof why);
        if (!e)
            fail_msg("case %zu accepted", i);
        if (strcmp(why, cases[i].why))
            fail_msg("case %zu: '%s'\n  want '%s'", i, why, cases[i].why);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples_accepted),
        cmocka_unit_test(test_priced_by_hand),
        cmocka_unit_test(test_examples_priced),
        cmocka_unit_test(test_examples_run_and_drawn),
        cmocka_unit_test(test_copy_for_reduce_refused),
        cmocka_unit_test(test_in_place_input_and_late_step),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
