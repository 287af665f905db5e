/* sanitize.h - text that came from a file, an argument or a command's
 * output, made safe to reach a terminal: every character that could steer
 * the terminal instead of being shown is written as a visible escape.
 * Those are C0 controls (U+0000..U+001F), DEL (U+007F), C1 controls
 * (U+0080..U+009F, in UTF-8 as C2 80..C2 9F), the bidirectional controls
 * (U+200E, U+200F, U+202A..U+202E, U+2066..U+2069), and bytes that are
 * not valid UTF-8 (a lone 0x9B is CSI to a terminal in 8-bit mode).
 * Pure string functions: no I/O, no globals. */
#ifndef COLLVIZ_SANITIZE_H
#define COLLVIZ_SANITIZE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Flags of sanitize(). */
enum {
    SANITIZE_KEEP_NEWLINE = 1 /* '\n' passes (text of many lines) */
};

/* Whether code point c is one of the controls above. */
bool sanitize_is_control(uint32_t c);

/* Length of the valid UTF-8 sequence at s (n bytes left; overlong forms,
 * surrogates and values past U+10FFFF are invalid) and its code point in
 * *cp; 0 when it is not one. */
size_t sanitize_utf8(const unsigned char *s, size_t n, uint32_t *cp);

/* Copy the NUL-terminated in to out (cap bytes, NUL-terminated when cap
 * > 0, cut at a whole character or escape) with every control written as
 * \xHH (C0, DEL, a byte that is not UTF-8; '\t' and '\n' as \t and \n)
 * or \uHHHH (C1, bidirectional), and everything else as it is. Returns
 * the length the whole result has (as snprintf: >= cap means cut). */
size_t sanitize(char *out, size_t cap, const char *in, unsigned flags);

/* The bytes of s's longest prefix of at most max bytes that ends on a
 * whole UTF-8 character, for printf's "%.*s" (a plain "%.60s" can cut a
 * character in two). */
int utf8_prefix(const char *s, int max);

/* sanitize() in place into a buffer of cap bytes holding a string (the
 * result cut to fit). */
void sanitize_inplace(char *buf, size_t cap, unsigned flags);
#endif
