/* fuzz_runcheck.c - the check of a lesson's @run command line
 * (runcheck.h) on any bytes: it must accept the line or refuse it with a
 * sentence, never crash or read out of bounds, and what it accepts must be
 * exactly what the lesson shows: the words joined by single spaces give
 * the line back byte for byte, no word is empty or holds a blank, there
 * are at most RUNCHECK_MAX_WORDS of them, and a command the player runs
 * carries no option that writes a file.
 *
 * Built and run by `make fuzz`; seeds in tests/fuzz/seeds/runcheck/. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/runcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether c's words, joined by single spaces, are line. */
static int same_line(const RunCmd *c, const char *line)
{
    size_t at = 0;
    for (int i = 0; i < c->argc; i++) {
        size_t n = strlen(c->argv[i]);
        if (!n || strchr(c->argv[i], ' ') || strchr(c->argv[i], '\t') ||
            strncmp(line + at, c->argv[i], n))
            return 0;
        at += n;
        if (i + 1 < c->argc && line[at++] != ' ')
            return 0;
    }
    return line[at] == '\0' && c->argv[c->argc] == NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = malloc(size + 1), why[400] = "";
    if (!line)
        return 0;
    memcpy(line, data, size);
    line[size] = '\0'; /* a line is a C string: it ends at its first NUL */
    RunCmd c;
    if (runcheck(line, &c, why, sizeof why)) {
        if (!why[0])
            abort(); /* every refusal says why */
        free(line);
        return 0;
    }
    if (c.kind >= RUN_KIND_COUNT || c.argc < 1 ||
        c.argc > RUNCHECK_MAX_WORDS || !same_line(&c, line))
        abort(); /* what runs is not what is shown */
    for (int i = 2; c.kind == RUN_PRINTS && i < c.argc; i++) {
        /* a word after one that cannot take it as its value ("-b --json"
           gives -b the value "--json", which is harmless) */
        const char *prev = c.argv[i - 1];
        bool option = prev[0] != '-' || strchr(prev, '=');
        if (option && (!strncmp(c.argv[i], "--json", 6) ||
                       !strncmp(c.argv[i], "--file", 6)))
            abort(); /* an option that writes a file got through */
    }
    free(line);
    return 0;
}
