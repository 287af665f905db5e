/* fuzz_script.c - the TUI's script parser (collviz tui --script FILE) on
 * any bytes: it must return CV_OK or an error with a sentence, never
 * crash, read out of bounds, leak or take unbounded memory or time.
 *
 * Built and run by `make fuzz` (libFuzzer, with AddressSanitizer and
 * UndefinedBehaviorSanitizer); seeds in tests/fuzz/seeds/script/. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ui/script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), why[256];
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    Script s = {0};
    why[0] = '\0';
    CvError e = script_parse(text, &s, why, sizeof why);
    if (e != CV_OK && !why[0] && e != CV_ERR_NOMEM)
        abort(); /* every refusal says why */
    script_fini(&s);
    free(text);
    return 0;
}
