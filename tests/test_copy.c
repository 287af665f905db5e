/* test_copy.c - the streaming copy against memcpy: every head alignment of
 * source and destination, lengths around its block and threshold edges,
 * and bytes outside the destination range left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "threads/copy.h"

#define GUARD 64

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 131u + seed * 7u) >> 1);
}

static void check_one(size_t doff, size_t soff, size_t n)
{
    if (n > ((size_t)1 << 30) || doff > 32 || soff > 32)
        return; /* not a case of this file (and gcc then knows n is small) */
    size_t room = n + 2 * GUARD + 32;
    unsigned char *src = malloc(room), *dst = malloc(room), *want = malloc(room);
    assert_non_null(src);
    assert_non_null(dst);
    assert_non_null(want);
    fill(src, room, (unsigned)n);
    memset(dst, 0xA5, room);
    memset(want, 0xA5, room);
    memcpy(want + GUARD + doff, src + soff, n);
    copy_stream(dst + GUARD + doff, src + soff, n);
    if (memcmp(dst, want, room) != 0) {
        size_t i = 0;
        while (dst[i] == want[i])
            i++;
        fail_msg("dst offset %zu, src offset %zu, %zu bytes: byte %zu differs "
                 "(%u, want %u)", doff, soff, n, i, dst[i], want[i]);
    }
    free(src);
    free(dst);
    free(want);
}

static void test_alignments_and_lengths(void **state)
{
    (void)state;
    static const size_t lens[] = {0, 1, 15, 16, 63, 64, 255, 256, 257, 270,
                                  271, 272, 319, 320, 321, 1000, 4095, 4096,
                                  4097, 65536 + 7};
    for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
        for (size_t d = 0; d < 17; d++)
            for (size_t s = 0; s < 17; s += 3)
                check_one(d, s, lens[l]);
}

static void test_large(void **state)
{
    (void)state;
    check_one(5, 9, ((size_t)3 << 20) + 33);
}

static void test_cache_bytes(void **state)
{
    (void)state;
    size_t n = copy_cache_bytes();
    assert_true(n >= 4096);
    assert_true(n <= ((size_t)1 << 40));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alignments_and_lengths),
        cmocka_unit_test(test_large),
        cmocka_unit_test(test_cache_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
