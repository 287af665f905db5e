/* test_layers.c - scripts/layers.sh, the check that includes run one way,
 * on small trees made for each case: a clean tree passes; an include from
 * a layer below into one above, one between folders beside each other,
 * a backend's header from outside its folder, a system header outside
 * the folder that owns it, and a folder the table does not know each
 * fail, naming the file and line. Then the project's own tree passes.
 *
 * Runs from the project's root (make check does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tree_fixture.h"

/* Run the check on dir: its exit status, and its output in out. */
static int check(const char *dir, char *out, size_t len)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "sh scripts/layers.sh '%s' 2>&1", dir);
    return tree_run(cmd, out, len);
}

/* A small tree that keeps every rule. */
static void clean_tree(const char *dir)
{
    put(dir, "src/core/a.h", "#include <stdio.h>\n");
    put(dir, "src/core/a.c", "#include \"core/a.h\"\n#include \"a.h\"\n");
    put(dir, "src/exec/e.c", "#include \"core/a.h\"\n");
    put(dir, "src/threads/t.c", "#include \"exec/e.h\"\n#include \"threads/t.h\"\n");
    put(dir, "src/measure/m.c", "#include \"exec/e.h\"\n#include \"store/s.h\"\n");
    put(dir, "src/cli/o.c", "#include \"algos/a.h\"\n");
    put(dir, "src/scene/s.c", "#include \"cli/o.h\"\n#include \"measure/m.h\"\n");
    put(dir, "src/cmd/c.c", "#include \"scene/s.h\"\n#include \"measure/m.h\"\n");
    put(dir, "src/lesson/l.c", "#include \"scene/s.h\"\n#include \"cli/o.h\"\n");
    put(dir, "src/ui/u.c", "#include \"cmd/c.h\"\n");
    put(dir, "src/ui/term.c", "#include <curses.h>\n");
    put(dir, "src/main.c", "#include \"ui/u.h\"\n#include \"cmd/c.h\"\n");
}

static void test_clean_tree_passes(void **state)
{
    char dir[64], out[4096];
    tree_new(dir, sizeof dir, "layers");
    clean_tree(dir);
    assert_int_equal(check(dir, out, sizeof out), 0);
    assert_string_equal(out, "");
    tree_free(dir);
}

/* Each planted include fails the check and is named by file and line. */
static void test_planted_includes_fail(void **state)
{
    static const struct {
        const char *file, *text, *says;
    } cases[] = {
        {"src/core/up.c", "#include <stdlib.h>\n#include \"exec/e.h\"\n",
         "src/core/up.c:2: #include \"exec/e.h\""},
        {"src/core/ui.c", "#include \"ui/app.h\"\n", "src/core/ui.c:1:"},
        {"src/measure/up.c", "#include \"cli/cli.h\"\n", "src/measure/up.c:1:"},
        {"src/cli/up.c", "#include \"ui/app.h\"\n", "src/cli/up.c:1:"},
        /* the option tables know no scene, the scene no command, and a
         * lesson no command */
        {"src/cli/up.c", "#include \"scene/s.h\"\n", "src/cli/up.c:1:"},
        {"src/scene/up.c", "#include \"cmd/c.h\"\n", "src/scene/up.c:1:"},
        {"src/lesson/up.c", "#include \"cmd/cmd.h\"\n", "src/lesson/up.c:1:"},
        {"src/store/side.c", "#include \"exec/e.h\"\n", "src/store/side.c:1:"},
        {"src/measure/be.c", "#include \"threads/t.h\"\n",
         "only src/threads/ includes the threads backend's headers"},
        {"src/exec/be.c", "  #  include \"gpu/g.h\"\n", "src/exec/be.c:1:"},
        {"src/threads/other.c", "#include \"mpi/m.h\"\n", "src/threads/other.c:1:"},
        {"src/core/tty.c", "#include <curses.h>\n", "only src/ui/term.c includes it"},
        {"src/ui/keys.c", "#include <curses.h>\n", "only src/ui/term.c includes it"},
        {"src/threads/cu.c", "#include <cuda.h>\n", "only src/gpu/ includes it"},
        {"src/cli/mpi.c", "#include <mpi.h>\n", "only src/mpi/ includes it"},
        {"src/nowhere/x.c", "\n", "not in scripts/layers.sh's table"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[64], out[4096];
        tree_new(dir, sizeof dir, "layers");
        clean_tree(dir);
        put(dir, cases[i].file, cases[i].text);
        int rc = check(dir, out, sizeof out);
        if (rc != 1 || !strstr(out, cases[i].says))
            fail_msg("case %zu (%s): exit %d, output:\n%s", i, cases[i].file,
                     rc, out);
        tree_free(dir);
    }
}

/* The project itself keeps the rules. */
static void test_project_passes(void **state)
{
    char out[8192];
    if (check(".", out, sizeof out) != 0)
        fail_msg("scripts/layers.sh found:\n%s", out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_tree_passes),
        cmocka_unit_test(test_planted_includes_fail),
        cmocka_unit_test(test_project_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
