/* test_lesson.c - the lesson parser: items in reading order, checkpoints
 * with their lines, and every malformed input reported with its line and
 * never a crash (a mutation loop with a fixed seed over the real lessons
 * runs under the sanitizers in CI); a FIFO among the lessons is refused
 * at once, never waited on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lesson/lesson.h"
#include "lesson/library.h"
#include "lesson/lint.h"

static CvError parse(const char *s, Lesson *l, LessonDiags *d)
{
    *d = (LessonDiags){0};
    return lesson_parse(s, strlen(s), l, d);
}

/* Whether some problem is at `line` and mentions `word`. */
static int has_diag(const LessonDiags *d, int line, const char *word)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->d[i].line == line && strstr(d->d[i].msg, word))
            return 1;
    return 0;
}

static void test_items(void **state)
{
    const char *s =
        "Title line\n\nFirst para\nsecond line\n\n    block one\n"
        "    block two\n@scene allreduce -a ring -p 4 -s 64\n@run\n"
        "    collviz list\n    collviz trace x\n\n@step 2\n"
        "@check How many?\n@query steps\n@answer 7\n@answer seven\n"
        "@hint count them\nAfter.\n";
    Lesson l;
    LessonDiags d;
    assert_int_equal(parse(s, &l, &d), CV_OK);
    assert_int_equal(d.n, 0);
    assert_string_equal(l.title, "Title line");
    LessonKind want[] = {LI_PARA, LI_BLOCK, LI_SCENE, LI_RUN, LI_STEP,
                         LI_CHECK, LI_PARA};
    assert_int_equal(l.nitems, sizeof want / sizeof *want);
    for (size_t i = 0; i < l.nitems; i++)
        assert_int_equal(l.items[i].kind, want[i]);
    assert_string_equal(l.items[0].text, "First para\nsecond line");
    assert_int_equal(l.items[0].line, 3);
    assert_string_equal(l.items[1].text, "block one\nblock two");
    assert_string_equal(l.items[2].text, "allreduce -a ring -p 4 -s 64");
    assert_string_equal(l.items[3].text, "collviz list\ncollviz trace x");
    assert_int_equal(l.items[4].step, 2);
    assert_int_equal(l.items[4].scene, 2);
    const LessonItem *c = &l.items[5];
    assert_string_equal(c->text, "How many?");
    assert_string_equal(c->query, "steps");
    assert_int_equal(c->query_line, 15);
    assert_int_equal(c->nanswers, 2);
    assert_string_equal(c->answers[1], "seven");
    assert_int_equal(c->answer_lines[1], 17);
    assert_string_equal(c->hint, "count them");
    assert_int_equal(c->check, 0);
    assert_int_equal(l.nchecks, 1);
    lesson_fini(&l);
    lesson_diags_fini(&d);
}

/* One malformed line each: the problem is reported at its line. */
static void test_malformed(void **state)
{
    static const struct {
        const char *text;
        int line;
        const char *word;
    } cases[] = {
        {"T\n@bogus x\n", 2, "unknown directive '@bogus'; directives: @scene, "
         "@step, @run, @output, @check, @query, @answer, @hint, @within, "
         "@choice, @goal"},
        {"T\n@scenery x\n", 2, "unknown directive"},
        {"T\n@\n", 2, "unknown directive"},
        {"T\n@step\n", 2, "@step needs"},
        {"T\n@step -1\n", 2, "@step needs"},
        {"T\n@step 2x\n", 2, "@step needs"},
        {"T\n@step +3\n", 2, "@step needs"},
        {"T\n@step 99999999999999999999\n", 2, "@step needs"},
        {"T\n@scene\n", 2, "@scene needs"},
        {"T\n@run now\n    x\n", 2, "@run takes nothing"},
        {"T\n@run\ntext\n", 2, "no indented command"},
        {"T\n@check\n@query steps\n", 2, "@check needs"},
        {"T\n@answer 3\n", 2, "belongs right below a @check"},
        {"T\ntext\n@query steps\n", 3, "belongs right below"},
        {"T\n@check q\n@query steps\n@query steps\n", 4, "second"},
        {"T\n@check q\n@hint a\n@hint b\n@query steps\n", 4, "second"},
        {"T\n@check q\n@answer 3\n", 2, "no @query"},
        {"T\n@check q\n\n@query steps\n", 4, "belongs right below"},
        {"T\n@check q\n@query\n", 3, "needs a value"},
        {"@scene x\n", 1, "title"},
        {"\n", 1, "title"},
        {"", 0, "empty"},
        {"T\nbad \xff byte\n", 2, "UTF-8"},
        {"T\nover\xc0\xaflong\n", 2, "UTF-8"},
        {"T\nsurrogate \xed\xa0\x80\n", 2, "UTF-8"},
        {"T\ncut \xe4\xb8\n", 2, "UTF-8"},
        {"T\nbell \a\n", 2, "control"},
        {"T\n@within 5%\n", 2, "belongs right below a @check"},
        {"T\n@check q\n@query steps\n@within 5\n", 4, "in percent"},
        {"T\n@check q\n@query steps\n@within 0%\n", 4, "in percent"},
        {"T\n@check q\n@query steps\n@within 101%\n", 4, "in percent"},
        {"T\n@check q\n@query steps\n@within 5%x\n", 4, "in percent"},
        {"T\n@check q\n@query steps\n@within 5%\n@within 6%\n", 5,
         "second"},
        {"T\n@choice ring\n", 2, "belongs right below a @check"},
        {"T\n@check q\n@query steps\n@choice  | why\n", 4,
         "needs its text"},
        {"T\n@check q\n@query steps\n@choice a\n@choice b\n@choice c\n"
         "@choice d\n@choice e\n@choice f\n@choice g\n@choice h\n"
         "@choice i\n@choice j\n", 13, "at most 9 choices"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Lesson l;
        LessonDiags d;
        CvError e = parse(cases[i].text, &l, &d);
        if (e != CV_ERR_ARG || !has_diag(&d, cases[i].line, cases[i].word))
            fail_msg("case %zu (%s): %d problems, first '%s'", i,
                     cases[i].text, (int)d.n, d.n ? d.d[0].msg : "");
        lesson_fini(&l);
        lesson_diags_fini(&d);
    }
}

static void test_cjk_and_crlf(void **state)
{
    const char *s = "第一课\r\n\r\n中文段落\r\n第二行\r\n";
    Lesson l;
    LessonDiags d;
    assert_int_equal(parse(s, &l, &d), CV_OK);
    assert_string_equal(l.title, "第一课");
    assert_int_equal(l.nitems, 1);
    assert_string_equal(l.items[0].text, "中文段落\n第二行");
    lesson_fini(&l);
    lesson_diags_fini(&d);
}

static void test_too_large(void **state)
{
    size_t n = LESSON_MAX_BYTES + 1;
    char *b = malloc(n);
    assert_non_null(b);
    memset(b, 'a', n);
    Lesson l;
    LessonDiags d = {0};
    assert_int_equal(lesson_parse(b, n, &l, &d), CV_ERR_ARG);
    assert_int_equal(d.n, 1);
    free(b);
    lesson_fini(&l);
    lesson_diags_fini(&d);
}

/* A FIFO, as a lesson or as the other language's file of one, is refused
 * without waiting for a writer: the reads open it without blocking and
 * look at what it is first. alarm() turns a wait into a failed test. */
static void test_fifo(void **state)
{
    char dir[] = "/tmp/collviz-fifo-XXXXXX", path[128], why[512], *buf;
    size_t len;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/en", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/zh", dir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/zh/01-a.txt", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    signal(SIGALRM, SIG_DFL);
    alarm(10);
    assert_int_equal(library_read(path, &buf, &len, why, sizeof why),
                     CV_ERR_IO);
    assert_null(buf);
    assert_non_null(strstr(why, "not a regular file"));
    /* --check of a lesson whose zh sibling is a FIFO, and of the FIFO */
    snprintf(path, sizeof path, "%s/en/01-a.txt", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("T\n\nText.\n", f);
    fclose(f);
    const char *one[] = {path};
    fflush(stdout);
    assert_int_equal(lint_main(1, one), 0);
    snprintf(path, sizeof path, "%s/zh/01-a.txt", dir);
    assert_int_equal(lint_main(1, one), 2);
    alarm(0);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir); /* our mkdtemp's */
    assert_int_equal(system(cmd), 0);
}

/* The real lessons, mutated byte by byte with a fixed seed: any result
 * but a crash or a sanitizer report is fine; a clean parse must have a
 * title. */
static void test_mutations(void **state)
{
    const char *files[] = {"lessons/en/01-collectives.txt",
                           "lessons/zh/03-ring-allreduce.txt",
                           "lessons/en/05-latency-vs-bandwidth.txt",
                           "lessons/zh/08-double-binary-tree.txt"};
    unsigned seed = 20;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char *buf, why[256];
        size_t len;
        assert_int_equal(library_read(files[f], &buf, &len, why, sizeof why),
                         CV_OK);
        for (int round = 0; round < 300; round++) {
            char *m = malloc(len + 1);
            memcpy(m, buf, len + 1);
            for (int k = 0; k < 1 + round % 8; k++) {
                seed = seed * 1103515245u + 12345u;
                size_t at = (seed >> 8) % len;
                static const char pick[] = "@\n \t\xe4\xff" "0-";
                m[at] = pick[(seed >> 4) % (sizeof pick - 1)];
            }
            size_t ml = round % 5 ? len : (seed >> 3) % len;
            Lesson l;
            LessonDiags d = {0};
            if (lesson_parse(m, ml, &l, &d) == CV_OK) {
                assert_non_null(l.title);
                lint_lesson(&l, &d);
            }
            lesson_fini(&l);
            lesson_diags_fini(&d);
            free(m);
        }
        free(buf);
    }
}

static void test_find(void **state)
{
    LessonEntry e[3] = {{"01-broadcast", 1}, {"02-ring-allreduce", 2},
                        {"10-extra", 10}};
    assert_int_equal(library_find(e, 3, "1"), 0);
    assert_int_equal(library_find(e, 3, "01"), 0);
    assert_int_equal(library_find(e, 3, "10"), 2);
    assert_int_equal(library_find(e, 3, "ring-allreduce"), 1);
    assert_int_equal(library_find(e, 3, "02-ring-allreduce"), 1);
    assert_int_equal(library_find(e, 3, "3"), -1);
    assert_int_equal(library_find(e, 3, "ring"), -1);
    assert_int_equal(library_find(e, 3, ""), -1);
    assert_int_equal(library_find(e, 3, "1x"), -1);
}

/* lessons/README.md's directive table is the parser's (between its two
 * markers), and every directive the table names parses: a known one is
 * never "unknown". */
static void test_directive_table(void **state)
{
    (void)state;
    FILE *f = fopen("lessons/README.md", "r");
    assert_non_null(f);
    static char readme[1 << 16];
    size_t n = fread(readme, 1, sizeof readme - 1, f);
    fclose(f);
    readme[n] = '\0';
    const char *from = "(src/lesson/lesson.c); test_lesson compares the two -->\n";
    const char *a = strstr(readme, from), *b = strstr(readme,
                                                      "<!-- end of the directive table -->");
    assert_non_null(a);
    assert_non_null(b);
    a += strlen(from);
    char table[4096];
    size_t len = lesson_directive_table(table, sizeof table);
    assert_true(len < sizeof table);
    if ((size_t)(b - a) != len || memcmp(a, table, len))
        fail_msg("lessons/README.md's directive table is not the parser's; "
                 "it should read:\n%s", table);
    assert_int_equal(lesson_directive_count(), 12); /* scene .. goal, start */
    for (size_t i = 0; i < lesson_directive_count(); i++) {
        const LessonDirective *d = lesson_directive_at(i);
        char text[200];
        snprintf(text, sizeof text, "T\n@%s\n", d->name);
        Lesson l;
        LessonDiags diags;
        parse(text, &l, &diags);
        for (size_t k = 0; k < diags.n; k++)
            assert_null(strstr(diags.d[k].msg, "unknown directive"));
        lesson_fini(&l);
        lesson_diags_fini(&diags);
    }
    assert_null(lesson_directive_at(lesson_directive_count()));
}

/* A scene line's lessons' file, in each spelling of the algorithm
 * option (-a, --algo, --algo=, -aNAME), becomes a path in the lessons'
 * folder; other values of the option and other options' files/ stay;
 * a name outside the folder's alphabet is refused. */
static void test_resolve_files(void **state)
{
    (void)state;
    static const struct { const char *in, *out; int r; } cs[] = {
        {"-a files/rd.cvs -s 64", "-a /L/files/rd.cvs -s 64", 1},
        {"allreduce --algo files/rd.cvs -p 4", "allreduce --algo "
         "/L/files/rd.cvs -p 4", 1},
        {"--algo=files/rd.cvs", "--algo=/L/files/rd.cvs", 1},
        {"-afiles/rd.cvs", "-a/L/files/rd.cvs", 1},
        {"-a ring -T files/m.txt", "-a ring -T files/m.txt", 0},
        {"allreduce -a ring", "allreduce -a ring", 0},
    };
    char out[256], why[200];
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        int r = lint_resolve_files("/L", cs[i].in, out, sizeof out, why,
                                   sizeof why);
        if (r != cs[i].r || strcmp(out, cs[i].out))
            fail_msg("'%s': %d '%s'", cs[i].in, r, out);
    }
    assert_int_equal(lint_resolve_files("/L", "--algo files/../x", out,
                                        sizeof out, why, sizeof why), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_items),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_directive_table),
        cmocka_unit_test(test_resolve_files),
        cmocka_unit_test(test_cjk_and_crlf),
        cmocka_unit_test(test_too_large),
        cmocka_unit_test(test_fifo),
        cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_find),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
