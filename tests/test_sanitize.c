/* test_sanitize.c - the one function that makes text from files,
 * arguments and command output safe for a terminal (core/sanitize.h):
 * each control the header names becomes a visible escape, the characters
 * next to them stay, and a result cut to fit ends at a whole piece. The
 * expected strings are written from the header's definition: C0 and DEL
 * as \xHH, C1 and the bidirectional controls as \uHHHH, a byte that is
 * not UTF-8 as \xHH. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/sanitize.h"

static void expect(const char *in, unsigned flags, const char *want)
{
    char out[256];
    size_t n = sanitize(out, sizeof out, in, flags);
    if (strcmp(out, want) || n != strlen(want))
        fail_msg("sanitize gave '%s' (%zu), want '%s'", out, n, want);
}

static void test_controls(void **state)
{
    expect("plain text, 中文, é", 0, "plain text, 中文, é");
    /* C0: ESC of a colour and of a title (OSC ... BEL), NUL never seen */
    expect("a\x1b[31mb", 0, "a\\x1B[31mb");
    expect("\x1b]0;PWNED\a", 0, "\\x1B]0;PWNED\\x07");
    expect("x\x01y\x1f", 0, "x\\x01y\\x1F");
    expect("tab\there\nline", 0, "tab\\there\\nline");
    expect("tab\there\nline", SANITIZE_KEEP_NEWLINE, "tab\\there\nline");
    expect("del\x7f", 0, "del\\x7F");
    /* C1 in UTF-8 (C2 80 .. C2 9F), and the bytes alone (not UTF-8) */
    expect("\xc2\x80|\xc2\x9b|\xc2\x9f|\xc2\xa0", 0,
           "\\u0080|\\u009B|\\u009F|\xc2\xa0");
    expect("\x9b" "31m", 0, "\\x9B31m");
    expect("\xc2", 0, "\\xC2");
    /* overlong '/' (C0 AF) and a surrogate (ED A0 80) are not UTF-8 */
    expect("\xc0\xaf", 0, "\\xC0\\xAF");
    expect("\xed\xa0\x80", 0, "\\xED\\xA0\\x80");
    /* bidirectional controls: LRM, RLM, LRE..RLO, LRI..PDI */
    expect("\xe2\x80\x8e\xe2\x80\x8f", 0, "\\u200E\\u200F");
    expect("\xe2\x80\xaa\xe2\x80\xae", 0, "\\u202A\\u202E");
    expect("\xe2\x81\xa6\xe2\x81\xa9", 0, "\\u2066\\u2069");
    /* their neighbours are ordinary characters: ZWSP, LS, U+206A */
    expect("\xe2\x80\x8b\xe2\x80\xa8\xe2\x81\xaa", 0,
           "\xe2\x80\x8b\xe2\x80\xa8\xe2\x81\xaa");
}

static void test_is_control(void **state)
{
    static const uint32_t yes[] = {0x00, 0x1B, 0x1F, 0x7F, 0x80, 0x9B, 0x9F,
                                   0x200E, 0x200F, 0x202A, 0x202E, 0x2066,
                                   0x2069};
    static const uint32_t no[] = {0x20, 0x7E, 0xA0, 0xE9, 0x200B, 0x200D,
                                  0x2029, 0x202F, 0x2065, 0x206A, 0x4E2D,
                                  0x1F600};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        if (!sanitize_is_control(yes[i]))
            fail_msg("U+%04X is a control", (unsigned)yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (sanitize_is_control(no[i]))
            fail_msg("U+%04X is not a control", (unsigned)no[i]);
}

/* Cut to fit: whole characters and whole escapes, the length it needs. */
static void test_cut(void **state)
{
    char out[8];
    assert_int_equal(sanitize(out, 5, "ab\x1b", 0), 6);
    assert_string_equal(out, "ab");
    assert_int_equal(sanitize(out, 4, "a中", 0), 4);
    assert_string_equal(out, "a");
    assert_int_equal(sanitize(NULL, 0, "\xc2\x9b", 0), 6);
    char buf[16] = "a\x1b" "b";
    sanitize_inplace(buf, sizeof buf, 0);
    assert_string_equal(buf, "a\\x1Bb");
}

/* U8: a prefix for "%.*s" never ends inside a character. */
static void test_utf8_prefix(void **state)
{
    const char *zh = "\xe5\xb9\xbf\xe6\x92\xad"; /* two 3-byte chars */
    assert_int_equal(utf8_prefix(zh, 0), 0);
    assert_int_equal(utf8_prefix(zh, 2), 0);
    assert_int_equal(utf8_prefix(zh, 3), 3);
    assert_int_equal(utf8_prefix(zh, 5), 3);
    assert_int_equal(utf8_prefix(zh, 6), 6);
    assert_int_equal(utf8_prefix(zh, 60), 6);
    assert_int_equal(utf8_prefix("ab\xf0\x9f\x98\x80", 5), 2);
    assert_int_equal(utf8_prefix("ab\xf0\x9f\x98\x80", 6), 6);
    assert_int_equal(utf8_prefix("a\xff" "b", 2), 2); /* a stray byte alone */
    /* every cut of a long mixed text at every width is whole UTF-8 */
    const char *mix = "x\xc3\xa9\xe5\xb9\xbf\xf0\x9f\x98\x80" "y";
    for (int m = 0; m <= 12; m++) {
        int n = utf8_prefix(mix, m);
        assert_true(n <= m);
        for (int i = 0; i < n;) {
            uint32_t c;
            size_t k = sanitize_utf8((const unsigned char *)mix + i,
                                     (size_t)(n - i), &c);
            assert_true(k > 0);
            i += (int)k;
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_controls),
        cmocka_unit_test(test_is_control),
        cmocka_unit_test(test_cut),
        cmocka_unit_test(test_utf8_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
