/* golden_fixture.h - comparing a screen dumped as text (grid_dump) with its
 * golden file under tests/golden/, for the tests of screens. With
 * COLLVIZ_UPDATE_GOLDEN=1 the file is written first: review the diff of
 * tests/golden/ before committing it. */
#ifndef COLLVIZ_TESTS_GOLDEN_FIXTURE_H
#define COLLVIZ_TESTS_GOLDEN_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_DIR "tests/golden/"

static inline char *golden_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)(n > 0 ? n : 0) + 1);
    size_t got = buf && n > 0 ? fread(buf, 1, (size_t)n, f) : 0;
    if (buf)
        buf[got] = '\0';
    fclose(f);
    return buf;
}

/* Report the first line where got and want differ. */
static inline void golden_difference(const char *name, const char *got,
                                     const char *want)
{
    int line = 1;
    const char *a = got, *b = want;
    while (*a && *a == *b) {
        line += *a == '\n';
        a++, b++;
    }
    const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
    print_error("%s: line %d differs\n  got:  %.*s\n  want: %.*s\n"
                "(COLLVIZ_UPDATE_GOLDEN=1 accepts the new screen)\n", name,
                line, ea ? (int)(ea - a) : (int)strlen(a), a,
                eb ? (int)(eb - b) : (int)strlen(b), b);
}

/* Compare got with tests/golden/NAME.txt (written first when
 * COLLVIZ_UPDATE_GOLDEN is set and not 0). */
static inline void golden_check(const char *name, const char *got)
{
    char path[256];
    snprintf(path, sizeof path, GOLDEN_DIR "%s.txt", name);
    const char *upd = getenv("COLLVIZ_UPDATE_GOLDEN");
    if (upd && *upd && strcmp(upd, "0")) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fputs(got, f);
        fclose(f);
    }
    char *want = golden_read(path);
    if (!want)
        fail_msg("%s is missing (COLLVIZ_UPDATE_GOLDEN=1 writes it)", path);
    if (strcmp(got, want))
        golden_difference(name, got, want);
    assert_string_equal(got, want);
    free(want);
}

#endif
