/* test_learn_check.c - `collviz learn --check` as a program: the lessons
 * of the source tree pass (what `make test` asks of every lesson), and a
 * lesson with each kind of problem is reported with file, line and one
 * sentence, exit 2, while its other language's file is compared with it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/sanitize.h"
#include "cli_fixture.h"
#include "lesson/output.h"
#include "exec/mono.h"

static char root[64];

static int setup(void **state)
{
    snprintf(root, sizeof root, "/tmp/collviz-learn-XXXXXX");
    if (!mkdtemp(root))
        return -1;
    char d[128];
    snprintf(d, sizeof d, "%s/en", root);
    mkdir(d, 0700);
    snprintf(d, sizeof d, "%s/zh", root);
    return mkdir(d, 0700);
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd);
}

static void put(const char *lang, const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s/%s", root, lang, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The lesson files (NN-name.txt) of the source tree in lang, their names
 * joined in order by '\n' into names. */
static int course(const char *lang, char *names, size_t n)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "ls lessons/%s | grep -E '^[0-9]{2}-.*\\.txt$'",
             lang);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    size_t len = fread(names, 1, n - 1, f);
    names[len] = '\0';
    pclose(f);
    int count = 0;
    for (size_t i = 0; i < len; i++)
        count += names[i] == '\n';
    return count;
}

static void test_lessons_pass(void **state)
{
    char en[4096], zh[4096], want[64];
    int nen = course("en", en, sizeof en), nzh = course("zh", zh, sizeof zh);
    /* the course: at least twelve lessons, the same files in both */
    assert_true(nen >= 12);
    assert_int_equal(nen, nzh);
    assert_string_equal(en, zh);
    Out o;
    run(&o, "learn --check");
    if (o.rc != 0)
        fail_msg("learn --check: %s%s", o.out, o.err);
    snprintf(want, sizeof want, "%d lesson files checked: no problems",
             nen + nzh);
    assert_non_null(strstr(o.out, want));
    out_free(&o);
}

static void test_problems(void **state)
{
    const char *good =
        "T\n@scene broadcast -a binomial -p 8 -s 32\n@step 3\n"
        "@check q\n@query count done 3\n@answer 8\n";
    const char *bad =
        "T\n@scene broadcast -a binomial -p 8 -s 30\n@step 4\n"
        "@check q\n@query count done 9\n@answer 8\n@hint h\n"
        "@check r\n@query steps on broadcast -a binomial -p 8 -s 32\n"
        "@answer 2\n@wrong\n";
    put("en", "01-a.txt", good);
    put("zh", "01-a.txt", bad);
    Out o;
    runf(&o, "learn --check %s/zh/01-a.txt", root);
    assert_int_equal(o.rc, 2);
    static const char *const want[] = {
        ":2: trace would refuse this scene: size 30 bytes",
        ":5: the query cannot be evaluated: its @scene, at line 2, is refused",
        ":10: @answer '2' disagrees with the query, which computes 3",
        ":11: unknown directive '@wrong'",
        ":2: this @scene differs from",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(o.out, want[i]))
            fail_msg("missing '%s' in:\n%s", want[i], o.out);
    assert_non_null(strstr(o.err, "collviz: 1 of 1 lesson files have problems"));
    out_free(&o);
    /* the step beyond the last, once the scene is right */
    put("zh", "01-a.txt", "T\n@scene broadcast -a binomial -p 8 -s 32\n"
        "@step 4\n@check q\n@query count done 3\n@answer 8\n");
    runf(&o, "learn --check %s/zh/01-a.txt", root);
    assert_int_equal(o.rc, 2);
    assert_non_null(strstr(o.out, ":3: step 4 is beyond the scene's last, 3"));
    assert_non_null(strstr(o.out, ":3: this @step differs"));
    out_free(&o);
    runf(&o, "learn --check %s/en/01-a.txt", root);
    assert_int_equal(o.rc, 2);
    assert_non_null(strstr(o.out, "en/01-a.txt:3: this @step differs"));
    out_free(&o);
    put("zh", "01-a.txt", good);
    runf(&o, "learn --check %s/en/01-a.txt %s/zh/01-a.txt", root, root);
    assert_int_equal(o.rc, 0);
    out_free(&o);
    /* any number of files, as a shell's glob gives them; options refused */
    char line[4096];
    size_t n = (size_t)snprintf(line, sizeof line, "learn --check");
    for (int i = 0; i < 12; i++)
        n += (size_t)snprintf(line + n, sizeof line - n, " %s/%s/01-a.txt",
                              root, i % 2 ? "en" : "zh");
    run(&o, line);
    assert_int_equal(o.rc, 0);
    assert_non_null(strstr(o.out, "12 lesson files checked"));
    out_free(&o);
    expect_usage_error("learn --check --lang en", "'--lang' is an option");
}

/* A checkpoint with a hint in one language has one in the other: each
 * side is reported at its own line, and a scene with more ranks than the
 * picture draws is refused by the player's rule. */
static void test_hints_and_pictures(void **state)
{
    const char *hinted =
        "T\n@scene broadcast -a binomial -p 8 -s 32\n@step 3\n"
        "@check q\n@query count done 3\n@answer 8\n@hint h\n"
        "@check r\n@query steps\n@answer 3\n";
    const char *plain =
        "T\n@scene broadcast -a binomial -p 8 -s 32\n@step 3\n"
        "@check q\n@query count done 3\n@answer 8\n"
        "@check r\n@query steps\n@answer 3\n@hint h\n";
    put("en", "01-a.txt", hinted);
    put("zh", "01-a.txt", plain);
    Out o;
    runf(&o, "learn --check %s/zh/01-a.txt", root);
    assert_int_equal(o.rc, 2);
    if (!strstr(o.out, "zh/01-a.txt:4: this @check has no @hint, but") ||
        !strstr(o.out, "zh/01-a.txt:10: this @hint has no counterpart in"))
        fail_msg("hints not compared:\n%s", o.out);
    out_free(&o);
    runf(&o, "learn --check %s/en/01-a.txt", root);
    assert_int_equal(o.rc, 2);
    if (!strstr(o.out, "en/01-a.txt:7: this @hint has no counterpart in") ||
        !strstr(o.out, "en/01-a.txt:8: this @check has no @hint, but"))
        fail_msg("hints not compared:\n%s", o.out);
    out_free(&o);
    put("zh", "01-a.txt", hinted);
    runf(&o, "learn --check %s/en/01-a.txt %s/zh/01-a.txt", root, root);
    assert_int_equal(o.rc, 0);
    out_free(&o);
    /* the picture's ranks: 64 are drawn, 65 are not */
    for (int p = 63; p <= 66; p++) {
        char text[200];
        snprintf(text, sizeof text, "T\n@scene allreduce -a ring -p %d "
                 "-s %d\n@step 1\n", p, 4 * p);
        put("en", "01-a.txt", text);
        put("zh", "01-a.txt", text);
        runf(&o, "learn --check %s/en/01-a.txt", root);
        if (p <= 64) {
            assert_int_equal(o.rc, 0);
        } else {
            assert_int_equal(o.rc, 2);
            if (!strstr(o.out, "en/01-a.txt:2: the player cannot draw this "
                        "scene: the picture shows at most 64 ranks"))
                fail_msg("p=%d not refused:\n%s", p, o.out);
        }
        out_free(&o);
    }
}

static void test_library(void **state)
{
    Out o;
    char env[128];
    put("en", "01-a.txt", "T\n");
    put("zh", "01-a.txt", "T\n@bad\n");
    snprintf(env, sizeof env, "COLLVIZ_LESSONS=%s", root);
    putenv(env);
    run(&o, "learn --check");
    assert_int_equal(o.rc, 2);
    assert_non_null(strstr(o.out, "zh/01-a.txt:2: unknown directive '@bad'"));
    out_free(&o);
    /* the player refuses the bad file with the same sentence, status 2 */
    expect_usage_error("learn 1 --lang zh", "zh/01-a.txt:2: unknown directive");
    expect_usage_error("learn z --lang zh", "unknown lesson 'z'; lessons: 01-a");
    expect_usage_error("learn 1 --lang xx", "unknown language 'xx'; languages: "
                       "en, zh");
    expect_usage_error("learn 1 2", "learn takes one lesson");
    /* U12: a file named is answered with how to play one */
    expect_usage_error("learn /tmp/my-lesson.txt", "COLLVIZ_LESSONS=DIR");
    expect_usage_error("learn --reset 1 2", "differ");
    /* a good lesson without a terminal: the files to read instead */
    expect_usage_error("learn 1 --lang en", "plain text files in");
    snprintf(env, sizeof env, "COLLVIZ_LESSONS=%s/none", root);
    run(&o, "learn --check");
    assert_int_equal(o.rc, 2);
    assert_non_null(strstr(o.err, "/none (from COLLVIZ_LESSONS)"));
    out_free(&o);
    unsetenv("COLLVIZ_LESSONS");
    runf(&o, "learn --check %s/en/missing.txt", root);
    assert_int_equal(o.rc, 2);
    assert_non_null(strstr(o.out, "cannot read"));
    out_free(&o);
}

/* U5: `learn --check FILE > log 2>&1`: every problem line whole, and the
 * summary last, on a line of its own. */
static void test_one_log(void **state)
{
    char text[8192] = "T\n\n", cmd[512], log[128];
    for (int i = 0; i < 300; i++)
        strcat(text, "@nope\n");
    put("en", "01-a.txt", text);
    snprintf(log, sizeof log, "%s/log", root);
    const char *bin = getenv("COLLVIZ") ? getenv("COLLVIZ") : "build/collviz";
    snprintf(cmd, sizeof cmd, "'%s' learn --check '%s/en/01-a.txt' > '%s' 2>&1",
             bin, root, log);
    int st = system(cmd);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    FILE *f = fopen(log, "r");
    assert_non_null(f);
    char line[1024], last[1024] = "";
    int problems = 0;
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "unknown directive")) {
            problems++;
            if (strstr(line, "lesson files have problems"))
                fail_msg("spliced: %s", line);
        }
        snprintf(last, sizeof last, "%s", line);
    }
    fclose(f);
    assert_int_equal(problems, 300);
    assert_string_equal(last, "collviz: 1 of 1 lesson files have problems\n");
}

/* D6: `collviz learn N` without a terminal is refused before it reads
 * or writes any progress: a damaged file is neither set aside nor
 * replaced, and no file is created where there was none. */
static void test_no_terminal_no_progress(void **state)
{
    char env[128], env2[128], dir[128], file[160];
    put("en", "01-a.txt", "T\n\nSome text.\n");
    put("zh", "01-a.txt", "T\n\nSome text.\n");
    snprintf(env, sizeof env, "COLLVIZ_LESSONS=%s", root);
    snprintf(env2, sizeof env2, "XDG_STATE_HOME=%s/state", root);
    putenv(env);
    putenv(env2);
    expect_usage_error("learn 1 --lang en", "plain text files in");
    snprintf(dir, sizeof dir, "%s/state", root);
    assert_int_equal(access(dir, F_OK), -1); /* nothing created */
    mkdir(dir, 0700);
    snprintf(dir, sizeof dir, "%s/state/collviz", root);
    mkdir(dir, 0700);
    snprintf(file, sizeof file, "%s/lessons", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("garbage\n", f);
    fclose(f);
    expect_usage_error("learn 1 --lang en", "plain text files in");
    char *text = slurp(fopen(file, "r"));
    assert_string_equal(text, "garbage\n");
    free(text);
    snprintf(file, sizeof file, "%s/lessons.bad", dir);
    assert_int_equal(access(file, F_OK), -1);
    unsetenv("COLLVIZ_LESSONS");
    unsetenv("XDG_STATE_HOME");
}

/* Names of lesson files and what --check quotes come from files: a name
 * holding a colour and a title escape (ESC ... BEL) and a C1 CSI reaches
 * the terminal as visible escapes, never as the bytes; a lesson line
 * holding a C1 or bidirectional control is refused. */
static void test_escapes(void **state)
{
    static const char name[] = "01-\x1b[31mRED\x1b]0;PWNED\a\xc2\x9b" "2J.txt";
    static const char shown[] = "01-\\x1B[31mRED\\x1B]0;PWNED\\x07\\u009B2J";
    Out o;
    char env[128];
    put("en", name, "T\n@bad\n");
    put("zh", name, "T\n@bad\n");
    put("en", "02-c1.txt", "T\n\nA C1 \xc2\x9b" "31m control.\n");
    put("zh", "02-c1.txt", "T\n\nA bidi \xe2\x80\xae override.\n");
    snprintf(env, sizeof env, "COLLVIZ_LESSONS=%s", root);
    putenv(env);
    run(&o, "learn nosuch");
    assert_int_equal(o.rc, 2);
    if (strchr(o.err, 0x1b) || strchr(o.err, '\a') || strstr(o.err, "\xc2\x9b") ||
        !strstr(o.err, shown))
        fail_msg("stderr: '%s'", o.err);
    out_free(&o);
    run(&o, "learn --check");
    assert_int_equal(o.rc, 2);
    if (strchr(o.out, 0x1b) || strchr(o.out, '\a') || strstr(o.out, "\xc2\x9b") ||
        !strstr(o.out, shown) || !strstr(o.out, "en/02-c1.txt:3: ") ||
        !strstr(o.out, "zh/02-c1.txt:3: "))
        fail_msg("stdout: '%s'", o.out);
    out_free(&o);
    unsetenv("COLLVIZ_LESSONS");
    run(&o, "\x1b]0;PWNED\a");
    assert_int_equal(o.rc, 2);
    if (strchr(o.err, 0x1b) || !strstr(o.err, "'\\x1B]0;PWNED\\x07'"))
        fail_msg("stderr: '%s'", o.err);
    out_free(&o);
}

/* @run commands: a lesson is data. --check refuses every collviz
 * command that writes or reads a file or takes an option off the
 * lessons' allow-list, and every line the player would not run exactly as
 * it is shown (padded, tabs, too long, too many words), each at its own
 * line; commands that print, TUI commands and shell commands pass. */
static void test_run_commands(void **state)
{
    char text[4096], pad[300], big[460], many[200];
    memset(pad, ' ', sizeof pad - 1);
    pad[sizeof pad - 1] = '\0';
    snprintf(big, sizeof big, "collviz list%0440d", 0);
    strcpy(many, "collviz list");
    for (int i = 0; i < 32; i++)
        strcat(many, " -v");
    snprintf(text, sizeof text,
             "T\n\n@run\n"
             "    collviz perf allreduce -p 1 -b 8 -e 8 --json /tmp/x.json\n" /* 4 */
             "    collviz perf allreduce -p 1 --json=out.json\n"             /* 5 */
             "    collviz topo torus:4x4 --file\n"                           /* 6 */
             "    collviz trace allreduce -p 4 -s 64 -T dir/m.yml\n"          /* 7 */
             "    collviz topo /etc/passwd\n"                                /* 8 */
             "    collviz perf allreduce -p 1 -c 0%s--json ~/.bashrc\n"      /* 9 */
             "    collviz\tlist\n"                                           /* 10 */
             "    %s\n"                                                      /* 11 */
             "    %s\n"                                                      /* 12 */
             "    collviz learn 1\n"                                         /* 13 */
             "    collviz perf allreduce -p 1 --future-option\n"             /* 14 */
             "    collviz list -v\n"                                         /* 15 */
             "    collviz trace allreduce -a ring -p 4 -s 64 -T torus:2x2\n"  /* 16 */
             "    collviz perf allreduce -B cuda -p 2 -b 1K -e 1M -f 8\n"     /* 17 */
             "    collviz calibrate -p 2\n"                                  /* 18 */
             "    collviz model allreduce -p 8 --alpha=10us\n"               /* 19 */
             "    collviz broadcast -a binomial -p 8\n"                      /* 20 */
             "    nproc\n",                                                  /* 21 */
             pad, big, many);
    put("en", "01-run.txt", text);
    put("zh", "01-run.txt", text);
    Out o;
    runf(&o, "learn --check %s/en/01-run.txt", root);
    assert_int_equal(o.rc, 2);
    static const struct { int line; const char *says; } want[] = {
        {4, "option '--json' of 'collviz perf' is not one a lesson may use"},
        {5, "option '--json=out.json' of 'collviz perf'"},
        {6, "option '--file' of 'collviz topo'"},
        {7, "'dir/m.yml' is a machine file"},
        {8, "'/etc/passwd' is a machine file"},
        {9, "two blanks in a row"},
        {10, "a tab"},
        {11, "over the 400"},
        {12, "more than 32 words"},
        {13, "'collviz learn' is not a command a lesson may run"},
        {14, "option '--future-option'"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        char at[160];
        snprintf(at, sizeof at, "01-run.txt:%d: the player would not run this "
                 "command: ", want[i].line);
        const char *p = strstr(o.out, at);
        if (!p || !strstr(p, want[i].says) ||
            (strchr(p, '\n') && strstr(p, want[i].says) > strchr(p, '\n')))
            fail_msg("line %d does not say '%s':\n%s", want[i].line,
                     want[i].says, o.out);
    }
    for (int line = 15; line <= 21; line++) {
        char at[64];
        snprintf(at, sizeof at, "01-run.txt:%d:", line);
        if (strstr(o.out, at))
            fail_msg("line %d is refused:\n%s", line, o.out);
    }
    out_free(&o);
}

/* U8: --check's sentences are whole: one longer than the old 240-byte
 * cap (a refused scene) ends as written, a quoted answer of wide
 * characters is cut at a whole character, and an empty file name is
 * named as such. */
static void test_whole_sentences(void **state)
{
    char ans[400] = "", text[1024], path[160];
    for (int i = 0; i < 40; i++)
        strcat(ans, "\xe5\xb9\xbf"); /* 40 three-byte characters */
    snprintf(text, sizeof text, "Lesson 1: Q\n\nText.\n\n@scene alltoall "
             "-a pairwise -p 64 -s 4G\n\nMore.\n\n@scene allreduce -a ring "
             "-p 4 -s 64\n\n@check Q?\n@query steps\n@answer %s\n@hint h\n",
             ans);
    put("en", "01-q.txt", text);
    put("zh", "01-q.txt", text);
    snprintf(path, sizeof path, "%s/en/01-q.txt", root);
    Out o;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "learn --check %s", path);
    run(&o, cmd);
    assert_int_equal(o.rc, 2);
    if (!strstr(o.out, "(about 512 MiB to validate the schedule); give a "
                "smaller size or fewer ranks\n"))
        fail_msg("the long sentence is cut:\n%s", o.out);
    /* the answer quoted: 60 bytes at most, whole characters (20) */
    char want[200];
    snprintf(want, sizeof want, "@answer '%.60s' disagrees", ans);
    if (!strstr(o.out, want))
        fail_msg("the answer is not quoted whole-charactered:\n%s", o.out);
    for (const char *p = o.out; *p;) {
        uint32_t c;
        size_t k = sanitize_utf8((const unsigned char *)p, strlen(p), &c);
        if (!k)
            fail_msg("not UTF-8 at byte %td:\n%s", p - o.out, o.out);
        p += k;
    }
    out_free(&o);
    /* an empty argument: through a shell, which can give one */
    snprintf(cmd, sizeof cmd, "'%s' learn --check '' 2>/dev/null",
             getenv("COLLVIZ") ? getenv("COLLVIZ") : "build/collviz");
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    char line[256] = "";
    assert_non_null(fgets(line, sizeof line, f));
    assert_int_equal(WEXITSTATUS(pclose(f)), 2);
    assert_string_equal(line, "'': an empty file name names no lesson file\n");
}

/* A checkpoint's answer must not stand in the text just before it (since
 * the scene or checkpoint before) or in its own question; whole words
 * only ("48" is not in "480", "1,048" or "0.48"), answers of two
 * characters or more, numbers and lists, not names. */
static void test_answer_leak(void **state)
{
    static const struct {
        const char *before;  /* the paragraph before the checkpoint */
        const char *ask;     /* its question */
        bool leak;
    } cases[] = {
        {"Every rank sends 48 bytes.", "Bytes each rank receives?", true},
        {"Every rank sends 480 bytes.", "Bytes each rank receives?", false},
        {"It is 1,048 or 0.48 of it.", "Bytes each rank receives?", false},
        {"Nothing here.", "Is it 48 bytes?", true},
        {"48: that is all.", "Bytes each rank receives?", true},
        {"Ends in 48.", "Bytes each rank receives?", true},
        {"A version 48.1 of it.", "Bytes each rank receives?", false},
    };
    char text[1024], path[160], cmd[256];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(text, sizeof text, "Lesson 1: Leak\n\n@scene reducescatter "
                 "-a ring -p 4 -s 64\n\n%s\n\n@check %s\n@query recvd max\n"
                 "@answer 48\n", cases[i].before, cases[i].ask);
        put("en", "01-leak.txt", text);
        put("zh", "01-leak.txt", text);
        snprintf(path, sizeof path, "%s/en/01-leak.txt", root);
        snprintf(cmd, sizeof cmd, "learn --check %s", path);
        Out o;
        run(&o, cmd);
        bool said = strstr(o.out, "@answer '48' stands in") != NULL;
        if (said != cases[i].leak || o.rc != (cases[i].leak ? 2 : 0))
            fail_msg("case %zu (rc %d): %s", i, o.rc, o.out);
        out_free(&o);
    }
    /* a single digit and a name are left alone */
    put("en", "01-leak.txt", "Lesson 1: Leak\n\nThe ring takes 7 steps, and "
        "ring is its name.\n\n@check Steps?\n@query steps on allreduce -a "
        "ring -p 4 -s 64\n@answer 7\n\n@check Best at 1M?\n@query best 1M "
        "on allreduce -p 4 -s 64\n@answer ring\n");
    put("zh", "01-leak.txt", "Lesson 1: Leak\n\nThe ring takes 7 steps, and "
        "ring is its name.\n\n@check Steps?\n@query steps on allreduce -a "
        "ring -p 4 -s 64\n@answer 7\n\n@check Best at 1M?\n@query best 1M "
        "on allreduce -p 4 -s 64\n@answer ring\n");
    Out o;
    snprintf(cmd, sizeof cmd, "learn --check %s", path);
    run(&o, cmd);
    if (strstr(o.out, "stands in"))
        fail_msg("%s", o.out);
    out_free(&o);
}

/* Lesson file NAME written as en and zh (zh: en's text where NULL), then
 * `learn --check` of the English one: status 2 and word in its output,
 * or status 0 where word is NULL; what names the case in a failure. */
static void lint_expect(const char *name, const char *en, const char *zh,
                         const char *word, const char *what)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "learn --check %s/en/%s", root, name);
    put("en", name, en);
    put("zh", name, zh ? zh : en);
    Out o;
    run(&o, cmd);
    if (word ? !strstr(o.out, word) || o.rc != 2 : o.rc != 0)
        fail_msg("%s (rc %d): %s", what, o.rc, o.out);
    out_free(&o);
}

/* Multiple choice: two choices or more, exactly one of them what the
 * query computes; the languages offer as many. */
static void test_choices(void **state)
{
    static const struct {
        const char *choices;
        const char *word; /* the problem, or NULL */
    } cases[] = {
        {"@choice 5\n@choice 7 | the copy-in is a step too\n@choice 9\n",
         NULL},
        {"@choice 7\n", "two or more"},
        {"@choice 5\n@choice 9\n", "0 of the 2 choices match"},
        {"@choice 7\n@choice 7.0\n", "2 of the 2 choices match"},
    };
    char text[512], what[32];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(text, sizeof text, "Lesson 1: MC\n\nHow many?\n\n@check "
                 "Steps of the ring on 4 ranks?\n@query steps on allreduce -a "
                 "ring -p 4 -s 64\n%s@answer 7\n", cases[i].choices);
        snprintf(what, sizeof what, "case %zu", i);
        lint_expect("01-mc.txt", text, NULL, cases[i].word, what);
    }
    snprintf(text, sizeof text, "Lesson 1: MC\n\nHow many?\n\n@check "
             "Steps of the ring on 4 ranks?\n@query steps on allreduce -a "
             "ring -p 4 -s 64\n%s@answer 7\n", cases[0].choices);
    lint_expect("01-mc.txt", text, "Lesson 1: MC\n\nHow many?\n\n@check "
                 "Steps?\n@query steps on allreduce -a ring -p 4 -s 64\n"
                 "@choice 7\n@choice 9\n@answer 7\n",
                 "the languages must have the same",
                 "languages with 3 and 2 choices");
}

/* @output: the block below quotes what a command of the @run above
 * prints, and --check runs the command and refuses the lesson where a
 * quoted line is not printed (a stale lesson), the command's output is
 * measured (perf) or a calibration's (-B), or the block is not there. The
 * expected lines are trace's own definition of the linear broadcast on 4
 * ranks: one step, the root copying its 4 elements to every rank. */
static void test_output(void **state)
{
    static const struct {
        const char *body;
        const char *word; /* the problem, or NULL */
    } cases[] = {
        {"@output\n    r0 send[0..3] -> r2 recv[0..3]   copy => {0}@0..3\n"
         "    r0 send[0..3] -> r3 recv[0..3] copy => {0}@0..3\n", NULL},
        {"@output 2\n    # collviz list: 10 collectives, 38 algorithms\n",
         NULL},
        /* stale: rank 9 does not exist, and order counts */
        {"@output\n    r0 send[0..3] -> r9 recv[0..3] copy => {0}@0..3\n",
         ":11: the command does not print the quote's line 1"},
        {"@output\n    r0 send[0..3] -> r3 recv[0..3] copy => {0}@0..3\n"
         "    r0 send[0..3] -> r1 recv[0..3] copy => {0}@0..3\n",
         ":12: the command does not print the quote's line 2 after"},
        {"@output 4\n    x\n", "that @run has 3 commands"},
        {"@output 3x\n    x\n", "@output takes the number"},
        {"@output 3\n    1 passed\n", "measured on the learner's machine"},
        {"@output\n\n    r0 send[0..3] -> r1 recv[0..3] copy => {0}@0..3\n",
         ":10: @output needs the quoted lines right below it"},
        {"@output\nText.\n", "@output needs the quoted lines"},
    };
    char text[1024], what[32];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(text, sizeof text, "Lesson 1: Output\n\nRun:\n\n@run\n"
                 "    collviz trace broadcast -a linear -p 4 -s 16\n"
                 "    collviz list\n    collviz perf allreduce -p 2\n\n%s",
                 cases[i].body);
        snprintf(what, sizeof what, "case %zu", i);
        lint_expect("01-out.txt", text, NULL, cases[i].word, what);
    }
    /* a calibration's model is the learner's machine's */
    lint_expect("01-out.txt", "Lesson 1: Output\n\nRun:\n\n@run\n"
                 "    collviz model allreduce -p 2 -B threads\n\n@output\n"
                 "    x\n", NULL, "with -B the model is the learner's", "-B");
    /* the languages quote the same lines of the same command */
    lint_expect("01-out.txt", "Lesson 1: Output\n\nRun:\n\n@run\n"
                 "    collviz list\n\n@output\n"
                 "    # ops: sum prod min max avg\n",
                 "Lesson 1: Output\n\nRun:\n\n@run\n    collviz list\n\n"
                 "@output\n    # ops: sum prod\n",
                 "this @output differs from", "languages");
}

/* L4: a prediction or a choice whose answer the @run above it prints
 * (since the checkpoint before) is refused; the same @run after it, or
 * before an open question that asks what it shows, is not. Step 9 of the
 * ring allreduce on 8 ranks with 1 MiB, by hand: 1 us + 131072 B at 10
 * GB/s = 14.1072 us, printed as 14.11 by the trace. L3: a "best" whose
 * next is within 1% is a tie: on switch:8 (450 GB/s, gamma 1000) at 256
 * MiB ring pays 2(p-1) = 14 latencies and halving-doubling 2 log2 p = 6,
 * 8 us more on 1284.797 us, 0.62%; at 16 MiB the same 8 us are 9.3%. */
static void test_run_leak_and_tie(void **state)
{
    (void)state;
    static const char head[] = "Lesson 1: Leak\n\n@scene allreduce -a ring "
                               "-p 8 -s 1M\n\nText.\n\n";
    static const char run[] = "@run\n    collviz trace allreduce -a ring -p 8 "
                              "-s 1M\n\n";
    static const char predict[] = "@check Predict: step 9, in us?\n@query "
                                  "steptime 9\n@within 5%\n@answer 14.11\n\n";
    static const char open_q[] = "@check Step 9, in us?\n@query steptime 9\n"
                                 "@answer 14.11\n\n";
    char text[2048];
    snprintf(text, sizeof text, "%s%s%s", head, run, predict);
    lint_expect("01-leak.txt", text, NULL, ":10: the @run at line 7 prints "
                "this checkpoint's answer '14.11'", "a prediction after its run");
    snprintf(text, sizeof text, "%s%s%s", head, predict, run);
    lint_expect("01-leak.txt", text, NULL, NULL, "a prediction before its run");
    snprintf(text, sizeof text, "%s%s%s", head, run, open_q);
    lint_expect("01-leak.txt", text, NULL, NULL, "an open question after it");
    /* a checkpoint between: the run belongs to the one before */
    snprintf(text, sizeof text, "%s%s%s%s", head, run, open_q, predict);
    lint_expect("01-leak.txt", text, NULL, NULL, "a checkpoint between");
    static const char tie[] = "Lesson 1: Tie\n\nText.\n\n@check Best?\n"
        "@query best %s on allreduce -a ring -p 8 -s 64 -T "
        "switch:8,bw=450,gamma=1000\n@answer halving-doubling\n";
    snprintf(text, sizeof text, tie, "256M");
    lint_expect("01-tie.txt", text, NULL, "a tie: ring takes only 0.62% "
                "longer than halving-doubling", "a tie at 256 MiB");
    snprintf(text, sizeof text, tie, "16M");
    lint_expect("01-tie.txt", text, NULL, NULL, "no tie at 16 MiB");
}

/* X10: the quoted commands of one learn --check share a budget: the
 * block where it runs out says so once, and no later block is run (here
 * a twentieth of a second, and commands that take about half a second
 * on a fast machine: half a second of budget let them finish there). */
static void test_output_budget(void **state)
{
    const char *text =
        "Lesson 1: Slow\n\nRun:\n\n@run\n"
        "    collviz model allreduce -p 65536 -T nodes:1x65536,nic=shared -b 1M -e 1M\n"
        "\n@output\n    x\n\nAgain:\n\n@run\n"
        "    collviz model allreduce -p 65536 -T nodes:1x65536,nic=shared -b 2M -e 2M\n"
        "\n@output\n    y\n";
    Lesson l;
    LessonDiags d = {0};
    assert_int_equal(lesson_parse(text, strlen(text), &l, &d), CV_OK);
    const char *self = getenv("COLLVIZ") ? getenv("COLLVIZ") : "build/collviz";
    OutputRuns runs = {.left = 0.05};
    double t0 = mono_now_s();
    output_lint(&l, self, &runs, &d);
    double took = mono_now_s() - t0;
    if (d.n != 1 || d.d[0].line != 8 || !strstr(d.d[0].msg, "budget") ||
        runs.left >= 0 || took > 20)
        fail_msg("%zu problems in %.1f s, the first: %d: %s", d.n, took,
                 d.n ? d.d[0].line : 0, d.n ? d.d[0].msg : "");
    /* spent before: nothing runs, nothing more is said */
    lesson_diags_fini(&d);
    output_lint(&l, self, &runs, &d);
    assert_int_equal(d.n, 0);
    lesson_diags_fini(&d);
    output_runs_fini(&runs);
    lesson_fini(&l);
}

/* Goal checkpoints: '@goal QUERY OP NUMBER' lines, evaluated on the
 * scene in effect, must not hold there already; each @answer is a scene
 * that reaches them. The goal here: every rank ends with the sum in at
 * most 4 steps with messages on 8 ranks (the ring takes 2(p-1) = 14,
 * halving-doubling 2 log2 8 = 6, the butterfly log2 8 = 3). */
static void test_goals(void **state)
{
    static const struct {
        const char *goal;
        const char *answer;
        const char *word; /* the problem, or NULL */
    } cases[] = {
        {"msgsteps <= 4", "allreduce -a butterfly -p 8 -s 64", NULL},
        {"msgsteps <= 4", "allreduce -a halving-doubling -p 8 -s 64",
         "does not reach the goal 'msgsteps <= 4' (6 there)"},
        {"msgsteps <= 20", "allreduce -a butterfly -p 8 -s 64",
         "already hold"},
        {"msgsteps about 4", "allreduce -a butterfly -p 8 -s 64",
         "a comparison"},
        {"best 4K <= 4", "allreduce -a butterfly -p 8 -s 64",
         "compares a number"},
        {"msgsteps <= 4", "allreduce -a butterfly -p 99 -s 64",
         "@answer of a goal is a scene"},
    };
    char text[640], what[32];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(text, sizeof text, "Lesson 1: Goal\n\n@scene allreduce -a "
                 "ring -p 8 -s 64\n\nThe ring.\n\n@check Make it take at "
                 "most 4 steps with messages.\n@goal %s\n@answer %s\n",
                 cases[i].goal, cases[i].answer);
        snprintf(what, sizeof what, "case %zu", i);
        lint_expect("01-goal.txt", text, NULL, cases[i].word, what);
    }
}

/* A scene on a -T machine is built on it: the torus allreduce, made only
 * for tori and meshes, is a scene whose steps and queries check. */
static void test_machine_scenes(void **state)
{
    const char *text = "Lesson 1: Torus\n\n@scene allreduce -a torus -p 16 "
        "-s 64 -T torus:4x4\n@step 13\n\nCount them.\n\n@check Steps "
        "with messages?\n@query msgsteps\n@answer 12\n";
    put("en", "01-torus.txt", text);
    put("zh", "01-torus.txt", text);
    char path[160], cmd[256];
    snprintf(path, sizeof path, "%s/en/01-torus.txt", root);
    snprintf(cmd, sizeof cmd, "learn --check %s", path);
    Out o;
    run(&o, cmd);
    if (o.rc != 0)
        fail_msg("rc %d: %s", o.rc, o.out);
    out_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lessons_pass),
        cmocka_unit_test_setup_teardown(test_problems, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hints_and_pictures, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_library, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_terminal_no_progress, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_escapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_commands, setup, teardown),
        cmocka_unit_test_setup_teardown(test_whole_sentences, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_answer_leak, setup, teardown),
        cmocka_unit_test_setup_teardown(test_choices, setup, teardown),
        cmocka_unit_test_setup_teardown(test_goals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_output, setup, teardown),
        cmocka_unit_test_setup_teardown(test_output_budget, setup, teardown),
        cmocka_unit_test_setup_teardown(test_run_leak_and_tie, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_machine_scenes, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
