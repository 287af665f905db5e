/* test_copy.c - the streaming copy against memcpy: every head alignment of
 * source and destination, lengths around its block and threshold edges,
 * and bytes outside the destination range left alone; the streamed fused
 * reduce against its definition, likewise, every datatype and op. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/coll.h"
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

/* reduce_from_stream(dst, init, src) of n elements of type t, dst `at`
 * bytes past a 16-byte boundary, against dst = init, then dst = dst op src
 * with the portable two-operand kernel; the guard bytes kept. Bytes below
 * 0x40 make finite values of every floating type. */
static void check_reduce(DataType t, RedOp op, size_t n, size_t at)
{
    size_t es = dtype_size(t), bytes = n * es;
    if (bytes > ((size_t)1 << 30) || at > 16)
        return; /* not a case of this file (and gcc then knows it is small) */
    size_t room = bytes + 2 * GUARD + 16;
    unsigned char *a = malloc(room), *b = malloc(room), *got = malloc(room),
                  *want = malloc(room);
    assert_true(a && b && got && want);
    for (size_t i = 0; i < room; i++) {
        a[i] = (unsigned char)(((i * 131u + 7u) >> 1) & 0x3F);
        b[i] = (unsigned char)(((i * 37u + 3u) >> 2) & 0x3F);
    }
    memset(got, 0xA5, room);
    memset(want, 0xA5, room);
    /* malloc's 16-byte alignment: GUARD + at is `at` past a boundary */
    memcpy(want + GUARD + at, a, bytes);
    if (n)
        reduce_fn_portable(t, op)(want + GUARD + at, b, n);
    reduce_from_stream(reduce_fn(t, op), reduce3_fn(t, op), got + GUARD + at,
                       a, b, n, es);
    if (memcmp(got, want, room))
        fail_msg("type %d op %d, %zu elements %zu bytes past a 16-byte "
                 "boundary: differs", (int)t, (int)op, n, at);
    free(a), free(b), free(got), free(want);
}

/* Every datatype and op, destinations 0 to 16 bytes past a 16-byte
 * boundary (whole elements), lengths around its 2 KiB parts. */
static void test_reduce_stream(void **state)
{
    (void)state;
    for (int t = 0; t < DT_COUNT; t++)
        for (int op = 0; op < OP_COUNT; op++) {
            size_t es = dtype_size((DataType)t), per = 2048 / es;
            size_t lens[] = {0, 1, per - 1, per, per + 1, 2 * per + 3,
                             5 * per + 7, 100000 + 3};
            for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
                for (size_t at = 0; at <= 16; at += es)
                    check_reduce((DataType)t, (RedOp)op, lens[l], at);
        }
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
        cmocka_unit_test(test_reduce_stream),
        cmocka_unit_test(test_cache_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
