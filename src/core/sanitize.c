/* sanitize.c - controls written as visible escapes (sanitize.h). */
#include "core/sanitize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool sanitize_is_control(uint32_t c)
{
    return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x200E ||
           c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
           (c >= 0x2066 && c <= 0x2069);
}

size_t sanitize_utf8(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned c = s[0];
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
               : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || len > n)
        return 0;
    uint32_t v = len == 1 ? c : c & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < least[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

/* The escape for the character at s (len bytes, code point c; len 0: the
 * byte s[0], not UTF-8) into e; its length. */
static size_t escape(const unsigned char *s, size_t len, uint32_t c, char *e)
{
    if (len && c == '\t')
        return (size_t)snprintf(e, 8, "\\t");
    if (len && c == '\n')
        return (size_t)snprintf(e, 8, "\\n");
    if (!len || c < 0x80)
        return (size_t)snprintf(e, 8, "\\x%02X", len ? (unsigned)c : s[0]);
    return (size_t)snprintf(e, 8, "\\u%04X", (unsigned)c);
}

size_t sanitize(char *out, size_t cap, const char *in, unsigned flags)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t n = strlen(in), o = 0, need = 0;
    for (size_t i = 0; i < n;) {
        uint32_t c = 0;
        size_t len = sanitize_utf8(s + i, n - i, &c);
        char e[8];
        const char *piece = e;
        size_t plen;
        if (len && (!sanitize_is_control(c) ||
                    (c == '\n' && (flags & SANITIZE_KEEP_NEWLINE)))) {
            piece = in + i, plen = len;
        } else {
            plen = escape(s + i, len, c, e);
        }
        i += len ? len : 1;
        if (o == need && cap && o + plen < cap) { /* whole pieces only */
            memcpy(out + o, piece, plen);
            o += plen;
        }
        need += plen;
    }
    if (cap)
        out[o] = '\0';
    return need;
}

void sanitize_inplace(char *buf, size_t cap, unsigned flags)
{
    char *copy = strdup(buf);
    if (!copy) { /* no memory for a copy: keep the visible prefix */
        for (char *p = buf; *p; p++)
            if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7F)
                *p = '?';
        return;
    }
    sanitize(buf, cap, copy, flags);
    free(copy);
}

int utf8_prefix(const char *s, int max)
{
    int n = 0;
    while (n < max && s[n]) {
        uint32_t c;
        size_t k = sanitize_utf8((const unsigned char *)s + n,
                                 strlen(s + n), &c);
        k = k ? k : 1; /* a byte that is not UTF-8 stands alone */
        if ((size_t)(max - n) < k)
            break;
        n += (int)k;
    }
    return n;
}
