/* test_sched_file.c - -a FILE from the command line, as a user meets it:
 * a built-in exported with --export text runs again from the file in
 * trace, model and perf with the same results; bad files, wrong
 * schedules and calls the file does not serve get one sentence and exit
 * status 2; a lesson's scene names no file. */
#include "run_bin.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "scene/scene_opts.h"

/* A file in a fresh folder, holding text; its path in path. */
static void write_file(char *path, size_t len, const char *name,
                       const char *text)
{
    char dir[] = "/tmp/cvz-sched-XXXXXX";
    assert_non_null(mkdtemp(dir));
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Run collviz with args: exit status 0 and `says` in what it prints. */
static void expect_run(const char *const *args, const char *says)
{
    Ran r = run_args(args);
    if (r.status || !strstr(r.out, says))
        fail_msg("collviz %s %s: status %d, want '%s' in\n%s%s", args[0],
                 args[1], r.status, says, r.out, r.err);
    ran_free(&r);
}

/* The ring allreduce exported, read back: the same trace at another
 * size, and model and perf take it. */
static void test_export_and_run(void **state)
{
    (void)state;
    const char *exp[] = {"trace", "allreduce", "-a", "ring", "-p", "4", "-s",
                         "64", "--export", "text", NULL};
    Ran r = run_args(exp);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "collective allreduce\nranks 4\nparts 4\n"));
    char path[256];
    write_file(path, sizeof path, "ring.cvs", r.out);
    ran_free(&r);
    /* At 1 KiB (256 floats: parts of 64) the file's trace is the ring's,
     * line for line, but for the algorithm's name and the closed form. */
    const char *mine[] = {"trace", "-a", path, "-s", "1K", NULL};
    const char *ring[] = {"trace", "allreduce", "-a", "ring", "-p", "4",
                          "-s", "1K", NULL};
    Ran a = run_args(mine), b = run_args(ring);
    assert_int_equal(a.status, 0);
    assert_int_equal(b.status, 0);
    const char *sa = strstr(a.out, "step 1/7"), *sb = strstr(b.out, "step 1/7");
    assert_non_null(sa);
    assert_non_null(sb);
    size_t n = (size_t)(strstr(sa, "# totals") - sa);
    assert_int_equal(strncmp(sa, sb, n), 0);
    assert_non_null(strstr(a.out, "# check: every rank's output matches"));
    ran_free(&a), ran_free(&b);
    const char *model[] = {"model", "-a", path, "-b", "64", "-e", "1K", NULL};
    expect_run(model, "none (a schedule from a file)");
    const char *perf[] = {"perf", "-a", path, "-b", "64", "-e", "256", "-n",
                          "1", "-w", "0", NULL};
    expect_run(perf, "# Out of bounds values : 0 OK");
}

/* The N/A fields of the row of out that starts with `row`; -1: none. */
static int nas(const char *out, const char *row)
{
    const char *at = strstr(out, row);
    if (!at)
        return -1;
    const char *end = strchr(at + 1, '\n');
    int n = 0;
    for (const char *p = at; (p = strstr(p, "N/A")) && (!end || p < end);
         p += 3)
        n++;
    return n;
}

/* A file of one count (4 floats a block on 2 ranks: an allgather of 32
 * bytes) in a sweep of 8 to 64 bytes: perf measures the one size it
 * serves, the others and the in-place column read N/A, and the header
 * says why; it was refused at the start ("not 0"). */
static void test_perf_one_count(void **state)
{
    (void)state;
    char path[256];
    write_file(path, sizeof path, "ag4.cvs",
               "collective allgather\nranks 2\ncount 4\nstep\n"
               "r0.send[0:4] -> r0.recv[0:4]\nr1.send[0:4] -> r1.recv[4:8]\n"
               "step\nr0.send[0:4] -> r1.recv[0:4]\n"
               "r1.send[0:4] -> r0.recv[4:8]\n");
    const char *perf[] = {"perf", "-a", path, "-p", "2", "-b", "8", "-e",
                          "64", "-n", "1", "-w", "0", NULL};
    Ran r = run_args(perf);
    if (r.status || !strstr(r.out, "a schedule file for 2 ranks, 4 elements "
                            "a block, out of place; the sizes and place it "
                            "does not serve read N/A") ||
        nas(r.out, "\n          32             4     float") != 4 ||
        nas(r.out, "\n          16             2     float") != 8)
        fail_msg("status %d:\n%s%s", r.status, r.out, r.err);
    ran_free(&r);
}

/* Every way a file is refused on the command line: one sentence, 2. */
static void test_refused(void **state)
{
    (void)state;
    char bad[256], wrong[256], ok[256];
    write_file(bad, sizeof bad, "bad.cvs",
               "collective allgather\nranks 2\nparts 1\nstep\n"
               "r0.send[0] -> r1.recv[0] redcue\n");
    write_file(wrong, sizeof wrong, "wrong.cvs",
               "collective allgather\nranks 2\nparts 1\nstep\n"
               "r0.send[0] -> r0.recv[0]\nr1.send[0] -> r1.recv[1]\n");
    write_file(ok, sizeof ok, "ok.cvs",
               "collective allgather\nranks 2\nparts 2\nstep\n"
               "r0.send[0:2] -> r0.recv[0:2]\nr0.send[0:2] -> r1.recv[0:2]\n"
               "r1.send[0:2] -> r1.recv[2:4]\nr1.send[0:2] -> r0.recv[2:4]\n");
    char said[512];
    struct {
        const char *args[8];
        const char *says;
    } cases[] = {
        {{"trace", "-a", bad, NULL}, "bad.cvs:5: 'redcue' after a transfer"},
        {{"trace", "-a", wrong, NULL}, "wrong.cvs: not allgather: after the "
         "last step r0.recv[1] holds nothing, and it should hold rank 1's "
         "unit 0 (no transfer writes it)"},
        {{"trace", "-a", ok, "-p", "4", NULL}, "ok.cvs is a schedule for 2 "
         "ranks, not 4"},
        {{"trace", "allreduce", "-a", ok, NULL}, "ok.cvs is a schedule of "
         "allgather, not allreduce"},
        {{"trace", "-a", ok, "--in-place", NULL}, "ok.cvs is a schedule out "
         "of place; drop --in-place"},
        {{"trace", "-a", ok, "-s", "24", NULL}, "ok.cvs: the schedule cuts a "
         "block into 2 parts, and 3 elements are not a whole number of them"},
        {{"trace", "-a", "/nonexistent/x.cvs", NULL}, "the schedule file "
         "/nonexistent/x.cvs does not exist"},
        {{"trace", "-a", "/tmp/", NULL}, "the schedule file /tmp/:"},
        {{"model", "-a", "ring", "-p", "4", NULL}, "-a names a schedule file"},
        {{"trace", "allgather", "-a", ok, "--export", "xml", NULL},
         "--export writes the schedule as 'text'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Ran r = run_args(cases[i].args);
        snprintf(said, sizeof said, "case %zu", i);
        run_expect_sentence(&r, said, 2, cases[i].says);
        ran_free(&r);
    }
}

/* The example of docs/schedule-format.md, as a reader copies it: trace
 * checks it, model prices it, perf runs it with nothing wrong and the TUI
 * draws it. */
static void test_docs_example(void **state)
{
    (void)state;
    FILE *f = fopen("docs/schedule-format.md", "r");
    assert_non_null(f);
    char doc[16384], path[256];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = 0;
    char *a = strstr(doc, "```\n"), *b = a ? strstr(a + 4, "```\n") : NULL;
    assert_non_null(b);
    *b = 0;
    write_file(path, sizeof path, "ring.cvs", a + 4);
    const char *trace[] = {"trace", "-a", path, NULL};
    expect_run(trace, "# check: every rank's output matches the definition "
               "of allgather");
    const char *model[] = {"model", "-a", path, "-b", "16", "-e", "1K", NULL};
    expect_run(model, "ring.cvs");
    const char *perf[] = {"perf", "-a", path, "-b", "64", "-e", "256", "-n",
                          "1", "-w", "0", NULL};
    expect_run(perf, "# Out of bounds values : 0 OK");
    char svg[300];
    snprintf(svg, sizeof svg, "%s.svg", path);
    const char *tui[] = {"-a", path, "--export-svg", svg, NULL};
    Ran r = run_args(tui);
    assert_int_equal(r.status, 0);
    struct stat st;
    assert_int_equal(stat(svg, &st), 0);
    assert_true(st.st_size > 1000);
    ran_free(&r);
}

/* An MSCCL file that deadlocks, from the command line: one sentence with
 * its line, exit 2. */
static void test_msccl_refused(void **state)
{
    (void)state;
    char path[256];
    write_file(path, sizeof path, "dead.xml",
               "<algo name=\"d\" nchunksperloop=\"2\" ngpus=\"2\" "
               "coll=\"allreduce\" inplace=\"1\">\n<gpu id=\"0\">\n"
               "<tb id=\"0\" send=\"1\" recv=\"1\" chan=\"0\">\n"
               "<step s=\"0\" type=\"r\" dstbuf=\"o\" dstoff=\"0\" "
               "cnt=\"1\"/>\n</tb>\n</gpu>\n<gpu id=\"1\">\n"
               "<tb id=\"0\" send=\"0\" recv=\"0\" chan=\"0\">\n"
               "<step s=\"0\" type=\"r\" dstbuf=\"o\" dstoff=\"0\" "
               "cnt=\"1\"/>\n</tb>\n</gpu>\n</algo>\n");
    const char *args[] = {"trace", "-a", path, NULL};
    Ran r = run_args(args);
    run_expect_sentence(&r, "a deadlock", 2, "dead.xml:4: gpu 0's "
                        "threadblock 0 never gets past this r step: its "
                        "peer never sends to it");
    ran_free(&r);
}

/* A schedule that is not its collective: trace refuses it, the TUI opens
 * it where it first goes wrong (the ring allreduce of tests/msccl with
 * gpu 0's rrcs made rcs: step 5 of 8) and says why. */
static void test_tui_opens_where_wrong(void **state)
{
    (void)state;
    FILE *f = fopen("tests/msccl/allreduce_ring_1ch.xml", "r");
    assert_non_null(f);
    char xml[8192], path[256], svg[300];
    size_t n = fread(xml, 1, sizeof xml - 1, f);
    fclose(f);
    xml[n] = 0;
    char *r = strstr(xml, "type=\"rrcs\"");
    assert_non_null(r);
    memmove(r + 7, r + 8, strlen(r + 8) + 1);
    write_file(path, sizeof path, "wrong.xml", xml);
    const char *trace[] = {"trace", "-a", path, NULL};
    Ran t = run_args(trace);
    run_expect_sentence(&t, "trace of a wrong schedule", 2, "wrong.xml: not "
                        "allreduce: after the last step r0.recv[1]");
    ran_free(&t);
    snprintf(svg, sizeof svg, "%s.svg", path);
    const char *tui[] = {"-a", path, "--export-svg", svg, NULL};
    t = run_args(tui);
    assert_int_equal(t.status, 0);
    ran_free(&t);
    f = fopen(svg, "r");
    assert_non_null(f);
    static char pic[1 << 20];
    n = fread(pic, 1, sizeof pic - 1, f);
    fclose(f);
    pic[n] = 0;
    assert_non_null(strstr(pic, "step 5 of 8"));
    assert_non_null(strstr(pic, "not allreduce: after the last step "
                           "r0.recv[1]"));
}

/* A lesson's scene line names built-in algorithms only: it reads no file
 * a lesson names. */
static void test_scene_line_names_no_file(void **state)
{
    (void)state;
    SceneSpec sc;
    CliErr e;
    assert_int_equal(scene_opts_parse_line("allreduce -a ../x.cvs -p 4 -s 64",
                                           &scene_limits_lesson, &sc, &e), -1);
    assert_string_equal(e.msg, "a scene names a built-in algorithm (ring, "
                        "tree, ...), not a schedule file");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_and_run),
        cmocka_unit_test(test_perf_one_count),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_docs_example),
        cmocka_unit_test(test_msccl_refused),
        cmocka_unit_test(test_tui_opens_where_wrong),
        cmocka_unit_test(test_scene_line_names_no_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
