/* fuzz_progress.c - the lesson progress file's parser (progress_read,
 * which every load reads the file with) on any bytes: it must accept a
 * file or refuse it, never crash, read out of bounds, leak or take
 * unbounded time; what it accepts has names that can be lessons' and
 * results of the four kinds only, and writing it back and reading that
 * gives the same entries (names with any bytes survive their encoding).
 *
 * Built and run by `make fuzz`; seeds in tests/fuzz/seeds/progress/. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/progress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const Progress *a, const Progress *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const ProgressEntry *x = &a->e[i], *y = &b->e[i];
        const char *rx = x->results[0] ? x->results : ".";
        if (strcmp(x->name, y->name) || x->dirs != y->dirs ||
            x->texts != y->texts || strcmp(rx, y->results))
            return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char empty[1];
    FILE *f = fmemopen(size ? (void *)data : empty, size, "r");
    if (!f)
        return 0;
    Progress p = {0}, q = {0};
    int bad = progress_read(&p, f);
    fclose(f);
    for (size_t i = 0; !bad && i < p.n; i++)
        if (!p.e[i].name[0] || strchr(p.e[i].name, '/') ||
            strspn(p.e[i].results, ".+sr") != strlen(p.e[i].results) ||
            p.e[i].dirs < 0 || p.e[i].texts < 0)
            abort(); /* an entry no save could have written */
    char *buf = NULL;
    size_t len = 0;
    FILE *w = bad ? NULL : open_memstream(&buf, &len);
    if (w) {
        progress_write(w, &p);
        fclose(w);
        FILE *r = fmemopen(len ? buf : empty, len, "r");
        if (r && (progress_read(&q, r) || !same(&p, &q)))
            abort(); /* written, it does not read back the same */
        if (r)
            fclose(r);
    }
    free(buf);
    progress_fini(&p);
    progress_fini(&q);
    return 0;
}
