/* test_doc_idents.c - scripts/doc-idents.sh, the check that a document
 * names only identifiers and paths the tree has, on small trees made for
 * each case: a document whose names all exist passes; an identifier the
 * sources lack (or hold only inside a longer word, or only in a README),
 * and a path that does not exist, each fail, naming the document's line;
 * commands and options in back quotes are not names and are skipped;
 * several documents are checked in one run. Then the project's own map
 * and folder READMEs pass.
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

/* Run the check on the documents `docs` (names without blanks, separated
 * by one) of tree dir: its exit status, and its output in out. */
static int check(const char *dir, const char *docs, char *out, size_t len)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "sh scripts/doc-idents.sh '%s' %s 2>&1", dir,
             docs);
    return tree_run(cmd, out, len);
}

/* A small tree: a source file, a header, a script and a folder README
 * whose words are not code. */
static void small_tree(const char *dir)
{
    put(dir, "src/core/sched.h", "/* the schedule */\nint sched_init(void);\n");
    put(dir, "src/core/sched.c",
        "#include \"core/sched.h\"\n"
        "int sched_init(void) { return SCHED_MAX_RANKS_LONGER; }\n");
    put(dir, "scripts/check.sh", "#!/bin/sh\n");
    put(dir, "src/core/README.md", "`only_in_readme` is not code\n");
}

/* docs/MAP.md holding doc in the small tree passes, saying nothing. */
static void expect_passes(const char *doc)
{
    char dir[64], out[4096];
    tree_new(dir, sizeof dir, "docids");
    small_tree(dir);
    put(dir, "docs/MAP.md", doc);
    assert_int_equal(check(dir, "docs/MAP.md", out, sizeof out), 0);
    assert_string_equal(out, "");
    tree_free(dir);
}

/* Names that exist pass: identifiers (with and without "()") as whole
 * words of a source, and paths from the root, from src/ and from the
 * document's folder, a glob among them. */
static void test_existing_names_pass(void **state)
{
    expect_passes("# A map\n"
                  "\n"
                  "`sched_init()` builds a schedule (`sched_init`, "
                  "`src/core/sched.c`,\n"
                  "`core/sched.h`, `src/core/`, `scripts/check.sh`, `MAP.md`,\n"
                  "`src/core/*.c`).\n");
}

/* Each missing name fails, named with the document and its line. */
static void test_missing_names_fail(void **state)
{
    static const struct {
        const char *doc, *says;
    } cases[] = {
        /* an identifier no source has */
        {"text\n\nand `no_such_name` here\n",
         "docs/MAP.md:3: `no_such_name` is not in src/"},
        {"`no_such_call()`\n", "docs/MAP.md:1: `no_such_call` is not in src/"},
        /* only inside a longer word: not a whole word */
        {"`SCHED_MAX_RANKS`\n", "docs/MAP.md:1: `SCHED_MAX_RANKS` is not in src/"},
        /* only in a README, which is not code */
        {"x\n`only_in_readme`\n", "docs/MAP.md:2: `only_in_readme` is not in src/"},
        /* a path that is not there, from the root or by a name alone */
        {"a\nb\n`src/core/gone.c`\n", "docs/MAP.md:3: `src/core/gone.c`: no such file"},
        {"`gone.h`\n", "docs/MAP.md:1: `gone.h`: no such file"},
        {"`scripts/gone.sh`\n", "docs/MAP.md:1: `scripts/gone.sh`: no such file"},
        {"`src/core/*.cu`\n", "docs/MAP.md:1: `src/core/*.cu`: no such file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[64], out[4096];
        tree_new(dir, sizeof dir, "docids");
        small_tree(dir);
        put(dir, "docs/MAP.md", cases[i].doc);
        int rc = check(dir, "docs/MAP.md", out, sizeof out);
        if (rc != 1 || !strstr(out, cases[i].says))
            fail_msg("case %zu: exit %d, output:\n%s", i, rc, out);
        tree_free(dir);
    }
}

/* Back-quoted spans that are neither an identifier nor a path are not
 * names: commands, options, placeholders, paths of the system, and
 * whatever a ``` fence holds. */
static void test_other_spans_skipped(void **state)
{
    expect_passes("Run `make test` or `sh scripts/gone.sh`, with `-T` and\n"
                  "`-B NAME:key=value`; lessons are `lessons/<lang>/NN-name.txt`,\n"
                  "the system's `/usr/lib/gone.h`, the default `full|bus`.\n"
                  "\n"
                  "```\n"
                  "`not_checked_in_a_fence`\n"
                  "```\n");
}

/* A document that cannot be read is said, with status 2. */
static void test_missing_document(void **state)
{
    char dir[64], out[4096];
    tree_new(dir, sizeof dir, "docids");
    small_tree(dir);
    assert_int_equal(check(dir, "docs/NONE.md", out, sizeof out), 2);
    assert_non_null(strstr(out, "docs/NONE.md"));
    tree_free(dir);
}

/* Several documents in one run: each miss named with its own document. */
static void test_several_documents(void **state)
{
    char dir[64], out[4096];
    tree_new(dir, sizeof dir, "docids");
    small_tree(dir);
    put(dir, "docs/A.md", "`sched_init`\n`gone_a`\n");
    put(dir, "src/core/B.md", "`sched.h` and\n\n`gone_b`\n");
    int rc = check(dir, "docs/A.md src/core/B.md", out, sizeof out);
    if (rc != 1 || !strstr(out, "docs/A.md:2: `gone_a` is not in src/") ||
        !strstr(out, "src/core/B.md:3: `gone_b` is not in src/"))
        fail_msg("exit %d, output:\n%s", rc, out);
    tree_free(dir);
}

/* The project's map (the script's default document), and the folder
 * READMEs it sends readers to, name only what the tree has. */
static void test_project_passes(void **state)
{
    char out[16384];
    if (check(".", "", out, sizeof out) != 0)
        fail_msg("scripts/doc-idents.sh found:\n%s", out);
    if (check(".", "docs/ARCHITECTURE.md src/threads/README.md "
              "src/measure/README.md src/ui/README.md src/gpu/README.md "
              "src/mpi/README.md lessons/README.md",
              out, sizeof out) != 0)
        fail_msg("scripts/doc-idents.sh found:\n%s", out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_existing_names_pass),
        cmocka_unit_test(test_missing_names_fail),
        cmocka_unit_test(test_other_spans_skipped),
        cmocka_unit_test(test_missing_document),
        cmocka_unit_test(test_several_documents),
        cmocka_unit_test(test_project_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
