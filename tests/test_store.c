/* test_store.c - per-user files: where they live under the XDG rules,
 * atomic writes (a failed or abandoned write leaves the old file whole and
 * no temporary file), reads of regular files only (a FIFO is refused at
 * once, not waited on), setting aside, and cleaning the temporary files
 * of writers that died. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store.h"

static char root[64]; /* a fresh directory for each test */

static int setup(void **state)
{
    snprintf(root, sizeof root, "/tmp/collviz-store-XXXXXX");
    return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd);
}

/* The whole text of path ("" when it cannot be read). */
static void slurp(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(out, 1, len - 1, f) : 0;
    out[n] = '\0';
    if (f)
        fclose(f);
}

/* How many entries of dir start with prefix. */
static int count_prefix(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d));)
        n += !strncmp(de->d_name, prefix, strlen(prefix));
    if (d)
        closedir(d);
    return n;
}

static void test_paths(void **state)
{
    char out[512], why[256];
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    setenv("XDG_STATE_HOME", "/x/state", 1);
    setenv("HOME", "/home/u", 1);
    assert_int_equal(store_path(STORE_CACHE, "a.txt", out, sizeof out, why,
                                sizeof why), CV_OK);
    assert_string_equal(out, "/x/cache/collviz/a.txt");
    assert_int_equal(store_path(STORE_STATE, "b", out, sizeof out, why,
                                sizeof why), CV_OK);
    assert_string_equal(out, "/x/state/collviz/b");
    assert_null(store_ignored(STORE_CACHE));
    /* relative or empty: ignored, HOME's default instead */
    setenv("XDG_CACHE_HOME", "rel/dir", 1);
    setenv("XDG_STATE_HOME", "", 1);
    assert_int_equal(store_path(STORE_CACHE, "a", out, sizeof out, why,
                                sizeof why), CV_OK);
    assert_string_equal(out, "/home/u/.cache/collviz/a");
    assert_string_equal(store_ignored(STORE_CACHE), "XDG_CACHE_HOME");
    assert_int_equal(store_path(STORE_STATE, "a", out, sizeof out, why,
                                sizeof why), CV_OK);
    assert_string_equal(out, "/home/u/.local/state/collviz/a");
    assert_null(store_ignored(STORE_STATE)); /* empty is unset */
    /* neither: a sentence */
    unsetenv("HOME");
    why[0] = '\0';
    assert_int_equal(store_path(STORE_CACHE, "a", out, sizeof out, why,
                                sizeof why), CV_ERR_IO);
    assert_non_null(strstr(why, "HOME"));
    setenv("HOME", "/home/u", 1);
    /* names that are not plain names, and paths too long */
    static const char *const bad[] = {"", "a/b", "..", ".", "../x", "/etc"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why[0] = '\0';
        assert_int_equal(store_path(STORE_CACHE, bad[i], out, sizeof out, why,
                                    sizeof why), CV_ERR_ARG);
        assert_true(why[0] != '\0');
    }
    assert_int_equal(store_path(STORE_CACHE, "long-name", out, 20, why,
                                sizeof why), CV_ERR_ARG);
}

static int write_text(FILE *f, void *ctx)
{
    return fputs(ctx, f) < 0;
}

static int write_abandon(FILE *f, void *ctx)
{
    fputs("half", f);
    return 1;
}

static void test_atomic_write(void **state)
{
    char path[320], text[256], why[512], dir[128];
    snprintf(dir, sizeof dir, "%s/a/b", root);
    snprintf(path, sizeof path, "%s/file.txt", dir);
    /* directories made, contents written */
    assert_int_equal(store_write(path, write_text, "one\n", why, sizeof why),
                     CV_OK);
    slurp(path, text, sizeof text);
    assert_string_equal(text, "one\n");
    /* replaced whole */
    assert_int_equal(store_write(path, write_text, "two\n", why, sizeof why),
                     CV_OK);
    slurp(path, text, sizeof text);
    assert_string_equal(text, "two\n");
    /* an abandoned write: the old file stays, no temporary file */
    why[0] = '\0';
    assert_int_equal(store_write(path, write_abandon, NULL, why, sizeof why),
                     CV_ERR_IO);
    assert_true(why[0] != '\0');
    slurp(path, text, sizeof text);
    assert_string_equal(text, "two\n");
    assert_int_equal(count_prefix(dir, "file.txt.tmp."), 0);
    /* a directory that cannot be made: the real cause */
    char blocked[256];
    snprintf(blocked, sizeof blocked, "%s/plainfile", root);
    assert_int_equal(store_write(blocked, write_text, "x", why, sizeof why),
                     CV_OK);
    snprintf(path, sizeof path, "%s/plainfile/sub/f", root);
    assert_int_equal(store_write(path, write_text, "x", why, sizeof why),
                     CV_ERR_IO);
    assert_non_null(strstr(why, strerror(ENOTDIR)));
}

/* A device is written in place, never replaced by a file: /dev/full
 * fails with its cause and stays a device; /dev/null takes the text. */
static void test_write_device(void **state)
{
    char why[512];
    struct stat st;
    if (stat("/dev/full", &st) || !S_ISCHR(st.st_mode))
        skip();
    why[0] = '\0';
    assert_int_equal(store_write("/dev/full", write_text, "x", why, sizeof why),
                     CV_ERR_IO);
    assert_non_null(strstr(why, strerror(ENOSPC)));
    assert_int_equal(stat("/dev/full", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(count_prefix("/dev", "full.tmp."), 0);
    assert_int_equal(store_write("/dev/null", write_text, "x", why, sizeof why),
                     CV_OK);
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(store_write(root, write_text, "x", why, sizeof why),
                     CV_ERR_IO);
    assert_non_null(strstr(why, "is a directory"));
}

/* Whether path is a symbolic link. */
static bool is_link(const char *path)
{
    struct stat st;
    return !lstat(path, &st) && S_ISLNK(st.st_mode);
}

/* A symbolic link is never replaced by a file: a link to a file gets its
 * target replaced, a dangling one its target made, and one whose target
 * has no name (as /dev/stdout when standard output is a deleted file)
 * is written through. */
static void test_write_links(void **state)
{
    char target[160], link[160], why[512], text[64], fdlink[64];
    snprintf(target, sizeof target, "%s/target.txt", root);
    snprintf(link, sizeof link, "%s/link.txt", root);
    assert_int_equal(store_write(target, write_text, "old", why, sizeof why),
                     CV_OK);
    assert_int_equal(symlink(target, link), 0);
    assert_int_equal(store_write(link, write_text, "new", why, sizeof why),
                     CV_OK);
    assert_true(is_link(link));
    slurp(target, text, sizeof text);
    assert_string_equal(text, "new");
    /* dangling: the target is made */
    unlink(target);
    assert_int_equal(store_write(link, write_text, "made", why, sizeof why),
                     CV_OK);
    assert_true(is_link(link));
    slurp(target, text, sizeof text);
    assert_string_equal(text, "made");
    /* a deleted file behind /proc/self/fd */
    int fd = open(target, O_RDWR);
    assert_true(fd >= 0);
    unlink(target);
    snprintf(fdlink, sizeof fdlink, "/proc/self/fd/%d", fd);
    unlink(link);
    assert_int_equal(symlink(fdlink, link), 0);
    assert_int_equal(store_write(link, write_text, "fd!", why, sizeof why),
                     CV_OK);
    assert_true(is_link(link));
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    assert_true(n >= 3);
    assert_int_equal(memcmp(text, "fd!", 3), 0);
    close(fd);
}

static void test_open_regular_only(void **state)
{
    char path[256], why[512];
    FILE *f;
    int missing;
    snprintf(path, sizeof path, "%s/none", root);
    assert_int_equal(store_open(path, &f, &missing, why, sizeof why), CV_ERR_IO);
    assert_int_equal(missing, 1);
    assert_null(f);
    /* a FIFO with no writer: refused at once, not waited on */
    snprintf(path, sizeof path, "%s/fifo", root);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(store_open(path, &f, &missing, why, sizeof why), CV_ERR_IO);
    assert_int_equal(missing, 0);
    assert_non_null(strstr(why, "not a regular file"));
    /* a directory */
    assert_int_equal(store_open(root, &f, &missing, why, sizeof why), CV_ERR_IO);
    assert_non_null(strstr(why, "not a regular file"));
    /* a regular file reads normally (blocking again) */
    snprintf(path, sizeof path, "%s/ok", root);
    assert_int_equal(store_write(path, write_text, "hello", why, sizeof why),
                     CV_OK);
    assert_int_equal(store_open(path, &f, &missing, why, sizeof why), CV_OK);
    char buf[16] = "";
    assert_non_null(fgets(buf, sizeof buf, f));
    assert_string_equal(buf, "hello");
    fclose(f);
}

static void test_set_aside(void **state)
{
    char path[256], aside[300], text[64], why[512];
    snprintf(path, sizeof path, "%s/calib.txt", root);
    assert_int_equal(store_write(path, write_text, "junk", why, sizeof why),
                     CV_OK);
    assert_int_equal(store_set_aside(path, aside, sizeof aside), CV_OK);
    assert_true(strstr(aside, "calib.txt.bad") != NULL);
    assert_int_not_equal(access(path, F_OK), 0);
    slurp(aside, text, sizeof text);
    assert_string_equal(text, "junk");
    assert_int_equal(store_set_aside(path, aside, sizeof aside), CV_ERR_IO);
}

/* U12: a folder where no file can be made is named, not the temporary
 * file's name, which the user never sees. */
static void test_begin_names_folder(void **state)
{
    char path[256], dir[200], why[600];
    StoreTmp t;
    snprintf(dir, sizeof dir, "%s/no-such-folder", root);
    snprintf(path, sizeof path, "%s/lessons", dir);
    assert_int_equal(store_begin(&t, path, why, sizeof why), CV_ERR_IO);
    if (!strstr(why, dir) || strstr(why, ".tmp."))
        fail_msg("'%s'", why);
}

/* A pid that is surely not running: a child that has exited and been
 * reaped. */
static long dead_pid(void)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    waitpid(p, NULL, 0);
    return (long)p;
}

static void test_clean_stale(void **state)
{
    char path[256], tmp[300], why[512];
    snprintf(path, sizeof path, "%s/c.txt", root);
    assert_int_equal(store_write(path, write_text, "x", why, sizeof why), CV_OK);
    long pids[] = {dead_pid(), (long)getppid(), (long)getpid()};
    for (size_t i = 0; i < 3; i++) {
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, pids[i]);
        assert_int_equal(store_write(tmp, write_text, "t", why, sizeof why),
                         CV_OK);
    }
    snprintf(tmp, sizeof tmp, "%s/other.txt.tmp.%ld", root, pids[0]);
    assert_int_equal(store_write(tmp, write_text, "t", why, sizeof why), CV_OK);
    store_clean_stale(path);
    /* the dead writers' are gone, whatever file they were writing; a live
     * process's and our own stay */
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, pids[0]);
    assert_int_not_equal(access(tmp, F_OK), 0);
    for (size_t i = 1; i < 3; i++) {
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, pids[i]);
        assert_int_equal(access(tmp, F_OK), 0);
    }
    assert_int_equal(count_prefix(root, "other.txt.tmp."), 0);
    assert_int_equal(access(path, F_OK), 0);
}

/* A writer killed with SIGKILL halfway leaves the old file as it was and
 * no temporary file (a long perf --json run holds its file for the whole
 * run); the file's mode is the umask's, as a named file's would be. */
static void test_killed_writer(void **state)
{
    char path[320], text[256], why[512];
    snprintf(path, sizeof path, "%s/out.json", root);
    assert_int_equal(store_write(path, write_text, "old\n", why, sizeof why),
                     CV_OK);
    for (int round = 0; round < 3; round++) {
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            StoreTmp t;
            if (store_begin(&t, path, why, sizeof why))
                _exit(3);
            fputs("half of a new fi", t.f);
            fflush(t.f);
            kill(getpid(), SIGKILL);
            _exit(4);
        }
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
        slurp(path, text, sizeof text);
        assert_string_equal(text, "old\n");
        assert_int_equal(count_prefix(root, "out.json.tmp."), 0);
    }
    /* and a complete one lands, with the umask's mode */
    mode_t old = umask(027);
    StoreTmp t;
    assert_int_equal(store_begin(&t, path, why, sizeof why), CV_OK);
    fputs("new\n", t.f);
    assert_int_equal(store_commit(&t, why, sizeof why), CV_OK);
    umask(old);
    slurp(path, text, sizeof text);
    assert_string_equal(text, "new\n");
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0640);
    assert_int_equal(count_prefix(root, "out.json.tmp."), 0);
}

/* store_read: the whole file up to its limit, one byte more refused;
 * a file that is not there, and a folder, said as store_open says them;
 * a file far larger than its first read's room read whole. */
static void test_read(void **state)
{
    (void)state;
    char path[128], why[300], *t;
    size_t n;
    int missing = 0;
    snprintf(path, sizeof path, "%s/f", root);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("0123456789", f);
    fclose(f);
    assert_int_equal(store_read(path, 10, &t, &n, &missing, why, sizeof why),
                     CV_OK);
    assert_int_equal(n, 10);
    assert_string_equal(t, "0123456789");
    free(t);
    assert_int_equal(store_read(path, 9, &t, &n, &missing, why, sizeof why),
                     CV_ERR_LIMIT);
    assert_null(t);
    snprintf(path, sizeof path, "%s/none", root);
    assert_int_equal(store_read(path, 9, &t, &n, &missing, why, sizeof why),
                     CV_ERR_IO);
    assert_int_equal(missing, 1);
    assert_int_equal(store_read(root, 9, &t, &n, &missing, why, sizeof why),
                     CV_ERR_IO);
    assert_int_equal(missing, 0);
    assert_non_null(strstr(why, "not a regular file"));
    snprintf(path, sizeof path, "%s/big", root);
    f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 100000; i++)
        fputc('a' + i % 26, f);
    fclose(f);
    assert_int_equal(store_read(path, 1 << 20, &t, &n, &missing, why,
                                sizeof why), CV_OK);
    assert_int_equal(n, 100000);
    assert_int_equal(t[99999], 'a' + 99999 % 26);
    assert_int_equal(t[100000], '\0');
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_atomic_write, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_regular_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_aside, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clean_stale, setup, teardown),
        cmocka_unit_test_setup_teardown(test_killed_writer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_begin_names_folder, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
