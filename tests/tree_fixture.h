/* tree_fixture.h - small source trees under /tmp for the tests of the
 * project's check scripts (test_layers, test_doc_idents): make one, write
 * files into it, run a script and read its status and output, remove it.
 * Include after cmocka.h. */
#ifndef COLLVIZ_TESTS_TREE_FIXTURE_H
#define COLLVIZ_TESTS_TREE_FIXTURE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* A fresh tree under /tmp (its name says `what`); its path in dir. */
static void tree_new(char *dir, size_t len, const char *what)
{
    snprintf(dir, len, "/tmp/collviz-%s-XXXXXX", what);
    assert_non_null(mkdtemp(dir));
}

/* Write `text` to dir/rel, creating its folders (mkdir -p, without a
 * shell: a tree is a dozen files). */
static void put(const char *dir, const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    for (char *s = path + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
        *s = '\0';
        assert_true(mkdir(path, 0700) == 0 || errno == EEXIST);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Run shell command cmd: its exit status, and its output (stdout and
 * whatever it sends there) in out. */
static int tree_run(const char *cmd, char *out, size_t len)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void tree_free(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

#endif
