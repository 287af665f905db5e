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

#include <dirent.h>
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
    assert_null(progress_get(&p, "../x", true));
    assert_null(progress_get(&p, "", true));
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
static int count_tmp(void);

static void test_killed_writer(void **state)
{
    for (int round = 0; round < 20; round++) {
        unlink(path); /* a record another player left would be merged */
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            Progress p = {0};
            char why[600];
            snprintf(p.path, sizeof p.path, "%s", path);
            for (long i = 0;; i++) {
                /* a save may move the entries: get it again each time */
                ProgressEntry *e = progress_get(&p, "01-broadcast", true);
                if (!e || progress_set_checks(e, 2))
                    _exit(1);
                e->dirs = i % 2 ? 7 : 3; /* (no answer goes back to '.') */
                memcpy(e->results, i % 2 ? "+s" : "r+", 2);
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
                        (e->dirs == 3 && !strcmp(e->results, "r+")));
        progress_fini(&p);
    }
    /* the killed writers' temporary files go at the next save (D7) */
    Progress p;
    char why[600];
    assert_int_equal(progress_load(&p, path, why, sizeof why), CV_OK);
    progress_get(&p, "02-ring", true);
    assert_int_equal(progress_save(&p, why, sizeof why), CV_OK);
    progress_fini(&p);
    assert_int_equal(count_tmp(), 0);
}

/* Files in root whose name holds ".tmp.". */
static int count_tmp(void)
{
    DIR *d = opendir(root);
    int n = 0;
    assert_non_null(d);
    for (struct dirent *de; (de = readdir(d));)
        n += strstr(de->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}

/* Save lesson `name` at dirs from a fresh load, as a player does. */
static void save_one(const char *name, long dirs)
{
    Progress p;
    char why[600];
    if (progress_load(&p, path, why, sizeof why))
        _exit(3);
    ProgressEntry *e = progress_get(&p, name, true);
    if (!e)
        _exit(4);
    e->dirs = dirs;
    if (progress_save(&p, why, sizeof why))
        _exit(5);
    progress_fini(&p);
}

/* D1: two players that loaded the same file, each saving its own lesson,
 * again and again at the same time: both lessons are in the file after,
 * with each player's last position. */
static void test_two_players(void **state)
{
    pid_t pid[2];
    static const char *const names[2] = {"01-collectives", "02-broadcast"};
    for (int k = 0; k < 2; k++) {
        pid[k] = fork();
        assert_true(pid[k] >= 0);
        if (pid[k] == 0) {
            for (long i = 1; i <= 200; i++)
                save_one(names[k], i);
            _exit(0);
        }
    }
    for (int k = 0; k < 2; k++) {
        int st;
        assert_int_equal(waitpid(pid[k], &st, 0), pid[k]);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    Progress p;
    char why[600];
    assert_int_equal(progress_load(&p, path, why, sizeof why), CV_OK);
    assert_int_equal(p.n, 2);
    for (int k = 0; k < 2; k++) {
        ProgressEntry *e = progress_get(&p, names[k], false);
        assert_non_null(e);
        assert_int_equal(e->dirs, 200);
    }
    progress_fini(&p);
}

/* D1: a player that loaded before another saved keeps the other's lesson,
 * and one it reset stays forgotten though the file still had it. */
static void test_merge_and_reset(void **state)
{
    put("collviz lesson progress 1\n01-a 1 0 .\n02-b 2 0 +\n");
    Progress a, b;
    char why[600];
    assert_int_equal(progress_load(&a, path, why, sizeof why), CV_OK);
    assert_int_equal(progress_load(&b, path, why, sizeof why), CV_OK);
    progress_get(&b, "03-c", true)->dirs = 3;
    assert_int_equal(progress_save(&b, why, sizeof why), CV_OK);
    progress_reset(&a, "01-a");
    progress_get(&a, "02-b", true)->dirs = 9;
    assert_int_equal(progress_save(&a, why, sizeof why), CV_OK);
    assert_null(progress_get(&a, "01-a", false));
    assert_int_equal(progress_get(&a, "02-b", false)->dirs, 9);
    assert_int_equal(progress_get(&a, "03-c", false)->dirs, 3);
    progress_fini(&a);
    progress_fini(&b);
    assert_int_equal(progress_load(&a, path, why, sizeof why), CV_OK);
    assert_int_equal(a.n, 2);
    assert_null(progress_get(&a, "01-a", false));
    progress_fini(&a);
}

/* The record of lesson 01-a in the file at path: "DIRS TEXTS RESULTS". */
static void record_of(char *out, size_t n)
{
    Progress p;
    char why[600];
    assert_int_equal(progress_load(&p, path, why, sizeof why), CV_OK);
    ProgressEntry *e = progress_get(&p, "01-a", false);
    assert_non_null(e);
    snprintf(out, n, "%ld %ld %s", e->dirs, e->texts, e->results);
    progress_fini(&p);
}

/* X2: two players on the same lesson, each answering its own checkpoints,
 * keep every answer whatever order they save in; an answer never goes
 * back to not answered; the position is the one who moved, the furthest
 * where both did. */
static void test_same_lesson(void **state)
{
    char why[600], got[64];
    for (int order = 0; order < 2; order++) {
        put("collviz lesson progress 1\n01-a 3 1 s...\n");
        Progress a, b;
        assert_int_equal(progress_load(&a, path, why, sizeof why), CV_OK);
        assert_int_equal(progress_load(&b, path, why, sizeof why), CV_OK);
        ProgressEntry *ea = progress_get(&a, "01-a", true);
        ProgressEntry *eb = progress_get(&b, "01-a", true);
        ea->results[1] = CP_RIGHT, ea->results[2] = CP_REVEALED;
        ea->dirs = 7, ea->texts = 0; /* a went on */
        eb->results[0] = CP_RIGHT, eb->results[3] = CP_SKIPPED;
        eb->dirs = 5, eb->texts = 2; /* b too, less far */
        Progress *first = order ? &b : &a, *second = order ? &a : &b;
        assert_int_equal(progress_save(first, why, sizeof why), CV_OK);
        assert_int_equal(progress_save(second, why, sizeof why), CV_OK);
        record_of(got, sizeof got);
        assert_string_equal(got, "7 0 ++rs");
        /* the second holds the merge; the first, saving again without a
           change, takes it too */
        ProgressEntry *e = progress_get(second, "01-a", false);
        assert_string_equal(e->results, "++rs");
        assert_int_equal(progress_save(first, why, sizeof why), CV_OK);
        assert_string_equal(progress_get(first, "01-a", false)->results,
                            "++rs");
        record_of(got, sizeof got);
        assert_string_equal(got, "7 0 ++rs");
        progress_fini(&a);
        progress_fini(&b);
    }
    /* a player that only read keeps the other's changes, and one that
       went back alone is where it went */
    put("collviz lesson progress 1\n01-a 6 0 +s..\n");
    Progress a, b;
    assert_int_equal(progress_load(&a, path, why, sizeof why), CV_OK);
    assert_int_equal(progress_load(&b, path, why, sizeof why), CV_OK);
    ProgressEntry *ea = progress_get(&a, "01-a", true);
    ea->results[1] = CP_RIGHT, ea->results[2] = CP_SKIPPED;
    assert_int_equal(progress_save(&a, why, sizeof why), CV_OK);
    ProgressEntry *eb = progress_get(&b, "01-a", true);
    eb->dirs = 2, eb->texts = 1;
    eb->results[2] = CP_RIGHT, eb->results[3] = CP_REVEALED;
    assert_int_equal(progress_save(&b, why, sizeof why), CV_OK);
    /* both changed checkpoint 2 (a skipped it, b answered it right): the
       answer wins whoever saves last */
    record_of(got, sizeof got);
    assert_string_equal(got, "2 1 +++r");
    assert_int_equal(progress_save(&a, why, sizeof why), CV_OK);
    record_of(got, sizeof got);
    assert_string_equal(got, "2 1 +++r");
    progress_fini(&a);
    progress_fini(&b);
}

/* D4: any file name saves and reads back, and is one word in the file;
 * files written with plain names only read as before. */
static void test_names(void **state)
{
    static const char *const names[] = {
        "01-broad cast \xc3\xa9", "02-(draft)", "03-100%", "04-a\tb",
        "05-\xe5\xb9\xbf\xe6\x92\xad", "06-x%41",
    };
    size_t n = sizeof names / sizeof *names;
    Progress p;
    char why[600];
    assert_int_equal(progress_load(&p, path, why, sizeof why), CV_OK);
    for (size_t i = 0; i < n; i++) {
        ProgressEntry *e = progress_get(&p, names[i], true);
        assert_non_null(e);
        e->dirs = (long)i + 1;
    }
    assert_int_equal(progress_save(&p, why, sizeof why), CV_OK);
    progress_fini(&p);
    assert_int_equal(progress_load(&p, path, why, sizeof why), CV_OK);
    assert_string_equal(why, "");
    assert_int_equal(p.n, n);
    for (size_t i = 0; i < n; i++) {
        ProgressEntry *e = progress_get(&p, names[i], false);
        if (!e)
            fail_msg("'%s' did not come back", names[i]);
        assert_int_equal(e->dirs, (long)i + 1);
    }
    progress_fini(&p);
    /* one line per lesson, four words each */
    FILE *f = fopen(path, "r");
    char line[400];
    int lines = 0;
    assert_non_null(f);
    while (fgets(line, sizeof line, f)) {
        int words = 0;
        for (char *t = strtok(line, " \n"); t; t = strtok(NULL, " \n"))
            words++;
        assert_int_equal(words, 4); /* the magic line has four too */
        lines++;
    }
    fclose(f);
    assert_int_equal(lines, (int)n + 1);
    put("collviz lesson progress 1\n01-old_name.v2 4 1 +.\n");
    assert_int_equal(progress_load(&p, path, why, sizeof why), CV_OK);
    assert_string_equal(why, "");
    assert_non_null(progress_get(&p, "01-old_name.v2", false));
    progress_fini(&p);
    put("collviz lesson progress 1\n01-x%4 4 1 +.\n");
    assert_int_equal(progress_load(&p, path, why, sizeof why), CV_OK);
    assert_non_null(strstr(why, "set aside"));
    progress_fini(&p);
}

/* D5: a second unreadable file is set aside beside the first, which is
 * kept: lessons.bad, lessons.bad.1, lessons.bad.2. */
static void test_aside_numbered(void **state)
{
    static const char *const text[] = {"first\n", "second\n", "third\n"};
    for (int i = 0; i < 3; i++) {
        put(text[i]);
        Progress p;
        char why[600];
        assert_int_equal(progress_load(&p, path, why, sizeof why), CV_OK);
        progress_fini(&p);
    }
    for (int i = 0; i < 3; i++) {
        char aside[200], got[32] = "";
        if (i)
            snprintf(aside, sizeof aside, "%s.bad.%d", path, i);
        else
            snprintf(aside, sizeof aside, "%s.bad", path);
        FILE *f = fopen(aside, "r");
        assert_non_null(f);
        assert_non_null(fgets(got, sizeof got, f));
        fclose(f);
        assert_string_equal(got, text[i]);
    }
}

/* D7: a progress file that is a symbolic link is written through to its
 * target; the link stays a link. */
static void test_symlink(void **state)
{
    char target[200];
    snprintf(target, sizeof target, "%s/dotfiles-lessons", root);
    FILE *f = fopen(target, "w");
    assert_non_null(f);
    fputs("collviz lesson progress 1\n", f);
    fclose(f);
    assert_int_equal(symlink(target, path), 0);
    Progress p;
    char why[600];
    assert_int_equal(progress_load(&p, path, why, sizeof why), CV_OK);
    progress_get(&p, "01-a", true)->dirs = 5;
    assert_int_equal(progress_save(&p, why, sizeof why), CV_OK);
    progress_fini(&p);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    p = (Progress){0};
    assert_int_equal(progress_load(&p, target, why, sizeof why), CV_OK);
    assert_non_null(progress_get(&p, "01-a", false));
    progress_fini(&p);
}

/* H6: a file over the size limit is set aside with a sentence saying so,
 * not read. */
static void test_too_big(void **state)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("collviz lesson progress 1\n", f);
    assert_int_equal(fseek(f, PROGRESS_MAX_BYTES, SEEK_CUR), 0);
    fputs("\n", f);
    fclose(f);
    Progress p;
    char why[600];
    assert_int_equal(progress_load(&p, path, why, sizeof why), CV_OK);
    assert_non_null(strstr(why, "larger than"));
    assert_non_null(strstr(why, "set aside"));
    progress_fini(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unreadable, setup, teardown),
        cmocka_unit_test(test_positions),
        cmocka_unit_test_setup_teardown(test_killed_writer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_players, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge_and_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_lesson, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_aside_numbered, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_big, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
