/* copy.c - see copy.h. */
#include "threads/copy.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>

void copy_stream(void *restrict dst, const void *restrict src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (n < head + 256) {
        memcpy(d, s, n);
        return;
    }
    memcpy(d, s, head); /* streaming stores need 16-byte aligned targets */
    d += head, s += head, n -= head;
    size_t blocks = n / 64;
    for (size_t i = 0; i < blocks; i++, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
    _mm_sfence(); /* order the streamed lines before the caller publishes */
    memcpy(d, s, n % 64);
}

/* The part a streamed reduce computes at a time (copy.h: 1-2 KiB). */
#define STREAM_PART 2048

void reduce_from_stream(ReduceFn red, Reduce3Fn red3, void *restrict dst,
                        const void *init, const void *src, size_t n,
                        size_t es)
{
    unsigned char *d = dst;
    const unsigned char *a = init, *b = src;
    /* buffers hold whole elements, so the head is whole elements too */
    size_t head = ((16 - ((uintptr_t)d & 15)) & 15) / es;
    if (n * es < head * es + STREAM_PART) {
        reduce_from(red, red3, d, a, b, n, es);
        return;
    }
    reduce_from(red, red3, d, a, b, head, es);
    d += head * es, a += head * es, b += head * es, n -= head;
    _Alignas(64) unsigned char part[STREAM_PART];
    size_t per = STREAM_PART / es;
    for (; n >= per; n -= per, d += STREAM_PART, a += STREAM_PART, b += STREAM_PART) {
        reduce_from(red, red3, part, a, b, per, es);
        for (size_t i = 0; i < STREAM_PART; i += 64) {
            __m128i w = _mm_load_si128((const __m128i *)(part + i));
            __m128i x = _mm_load_si128((const __m128i *)(part + i + 16));
            __m128i y = _mm_load_si128((const __m128i *)(part + i + 32));
            __m128i z = _mm_load_si128((const __m128i *)(part + i + 48));
            _mm_stream_si128((__m128i *)(d + i), w);
            _mm_stream_si128((__m128i *)(d + i + 16), x);
            _mm_stream_si128((__m128i *)(d + i + 32), y);
            _mm_stream_si128((__m128i *)(d + i + 48), z);
        }
    }
    _mm_sfence(); /* one fence for all (one a part: 20% slower) */
    reduce_from(red, red3, d, a, b, n, es);
}
#else
void copy_stream(void *restrict dst, const void *restrict src, size_t n)
{
    memcpy(dst, src, n);
}

void reduce_from_stream(ReduceFn red, Reduce3Fn red3, void *restrict dst,
                        const void *init, const void *src, size_t n,
                        size_t es)
{
    reduce_from(red, red3, dst, init, src, n, es);
}
#endif

/* Linux says it in sysfs ("32768K"); glibc's sysconf reads CPUID, which
 * some virtual machines fill wrongly (320 MiB for a 32 MiB L3 here). */
static long sysfs_cache_bytes(void)
{
    long best = -1;
    for (int i = 0; i < 8; i++) {
        char path[80], unit = 0;
        long n = 0;
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int got = fscanf(f, "%ld%c", &n, &unit);
        fclose(f);
        if (got >= 1 && n > 0) {
            n *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
            best = n > best ? n : best;
        }
    }
    return best;
}

size_t copy_cache_bytes(void)
{
    /* Looked up once; threads that race to it store the same value. */
    static _Atomic size_t cache;
    size_t c = atomic_load_explicit(&cache, memory_order_relaxed);
    if (c)
        return c;
    long n = sysfs_cache_bytes();
#ifdef _SC_LEVEL3_CACHE_SIZE
    if (n <= 0)
        n = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    c = n > 0 ? (size_t)n : (size_t)32 << 20;
    atomic_store_explicit(&cache, c, memory_order_relaxed);
    return c;
}

size_t copy_stream_min(size_t working)
{
    return working > copy_cache_bytes() ? (size_t)256 << 10 : SIZE_MAX;
}
