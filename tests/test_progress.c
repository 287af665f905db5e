/* test_progress.c - lesson progress in the state directory: a round trip,
 * every kind of damaged file set aside with one sentence (never parsed
 * half), reset, positions that mean the same place in every language, and
 * atomic saves: a writer killed with SIGKILL at any moment leaves the old
 * file or the new one, whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lesson/lesson.h"
#include "lesson/progress.h"

static char root[64];
static char path[128];

static int setup(void **state)
{
    snprintf(root, sizeof root, "/tmp/collviz-progress-XXXXXX");
    if (!mkdtemp(root))
        return -1;
    snprintf(path, sizeof path, "%s/lessons", root);
    return 0;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd);
}

static void put(const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_round_trip(void **state)
{
    Progress p;
    char why[600];
    assert_int_equal(progress_load(&p, path, why, sizeof why), CV_OK);
    assert_string_equal(why, "");
    assert_int_equal(p.n, 0);
    ProgressEntry *e = progress_get(&p, "01-broadcast", true);
    e->dirs = 12, e->texts = 3;
    assert_int_equal(progress_set_checks(e, 4), CV_OK);
    memcpy(e->results, "+s.r", 4);
    progress_get(&p, "02-ring", true)->dirs = 1;
    assert_null(progress_get(&p, "bad name", true));
    assert_null(progress_get(&p, "../x", true));
    assert_int_equal(progress_save(&p, why, sizeof why), CV_OK);
    progress_fini(&p);
    assert_int_equal(progress_load(&p, path, why, sizeof why), CV_OK);
    assert_int_equal(p.n, 2);
    e = progress_get(&p, "01-broadcast", false);
    assert_non_null(e);
    assert_int_equal(e->dirs, 12);
    assert_int_equal(e->texts, 3);
    assert_string_equal(e->results, "+s.r");
    progress_reset(&p, "01-broadcast");
    assert_null(progress_get(&p, "01-broadcast", false));
    assert_int_equal(p.n, 1);
    progress_fini(&p);
}

static void test_damaged(void **state)
{
    static const char *const bad[] = {
        "",
        "collviz lesson progress 2\n",
        "collviz lesson progress 1\n01-broadcast 1 2\n",
        "collviz lesson progress 1\n01-broadcast 1 2 +x\n",
        "collviz lesson progress 1\n01-broadcast -1 2 +\n",
        "collviz lesson progress 1\n01-broadcast 1 +2 +\n",
        "collviz lesson progress 1\n01-broadcast 1 2 + extra\n",
        "collviz lesson progress 1\n01 broadcast 1 2 +\n",
        "collviz lesson progress 1\n01-broadcast 99999999 2 +\n",
        "collviz lesson progress 1\n01-broadcast 1 2 +\n01-broadcast 1 2 +\n",
        "collviz lesson progress 1\n01-broadcast 1 2 +",
        "collviz lesson progress 1\n01-b/x 1 2 +\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        put(bad[i]);
        Progress p;
        char why[600], aside[160];
        assert_int_equal(progress_load(&p, path, why, sizeof why), CV_OK);
        if (!strstr(why, "set aside as") || strchr(why, '\n'))
            fail_msg("case %zu: '%s'", i, why);
        assert_int_equal(p.n, 0);
        snprintf(aside, sizeof aside, "%s.bad", path);
        assert_int_equal(access(aside, F_OK), 0);
        assert_int_equal(access(path, F_OK), -1);
        progress_fini(&p);
    }
}

/* A directory where the file belongs: set aside too, with its cause. */
static void test_unreadable(void **state)
{
    assert_int_equal(mkdir(path, 0700), 0);
    Progress p;
    char why[600], aside[160];
    assert_int_equal(progress_load(&p, path, why, sizeof why), CV_OK);
    assert_non_null(strstr(why, "set aside as"));
    snprintf(aside, sizeof aside, "%s.bad", path);
    struct stat st;
    assert_int_equal(stat(aside, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_true(p.path[0] != '\0');
    progress_get(&p, "01-broadcast", true);
    assert_int_equal(progress_save(&p, why, sizeof why), CV_OK);
    progress_fini(&p);
}

static void test_positions(void **state)
{
    const char *en = "T\n\nA\n\nB\n@scene allreduce -p 4 -s 16\nC\n\nD\n"
                     "@check q\n@query steps\nE\n";
    const char *zh = "T\n\n甲\n@scene allreduce -p 4 -s 16\n乙\n\n丙\n\n丁\n"
                     "@check q\n@query steps\n";
    Lesson a, b;
    LessonDiags d = {0};
    assert_int_equal(lesson_parse(en, strlen(en), &a, &d), CV_OK);
    assert_int_equal(lesson_parse(zh, strlen(zh), &b, &d), CV_OK);
    for (size_t i = 0; i <= a.nitems; i++) {
        long dirs, texts;
        progress_position(&a, i, &dirs, &texts);
        size_t back = progress_index(&a, dirs, texts);
        assert_int_equal(back, i);
        size_t j = progress_index(&b, dirs, texts);
        long d2, t2;
        progress_position(&b, j, &d2, &t2);
        assert_int_equal(d2, dirs); /* the same directives passed */
    }
    lesson_fini(&a);
    lesson_fini(&b);
    lesson_diags_fini(&d);
}

/* A writer saving again and again, killed at random moments: the file is
 * always one of the two versions, whole. */
static void test_killed_writer(void **state)
{
    for (int round = 0; round < 20; round++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            Progress p = {0};
            char why[600];
            snprintf(p.path, sizeof p.path, "%s", path);
            ProgressEntry *e = progress_get(&p, "01-broadcast", true);
            if (!e || progress_set_checks(e, 2))
                _exit(1);
            for (long i = 0;; i++) {
                e->dirs = i % 2 ? 7 : 3;
                memcpy(e->results, i % 2 ? "+s" : "..", 2);
                progress_save(&p, why, sizeof why);
            }
        }
        usleep(2000 + (useconds_t)(round * 1500));
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        Progress p;
        char why[600];
        assert_int_equal(progress_load(&p, path, why, sizeof why), CV_OK);
        if (why[0])
            fail_msg("round %d: %s", round, why);
        ProgressEntry *e = progress_get(&p, "01-broadcast", false);
        if (e) /* the first save may not have happened yet */
            assert_true((e->dirs == 7 && !strcmp(e->results, "+s")) ||
                        (e->dirs == 3 && !strcmp(e->results, "..")));
        progress_fini(&p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unreadable, setup, teardown),
        cmocka_unit_test(test_positions),
        cmocka_unit_test_setup_teardown(test_killed_writer, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
