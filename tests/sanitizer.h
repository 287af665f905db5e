/* sanitizer.h - which sanitizer a test is built with, for the sweeps that
 * take a sample under one (their code paths are the plain build's; the
 * plain build takes every case): UNDER_TSAN, UNDER_ASAN. */
#ifndef COLLVIZ_TESTS_SANITIZER_H
#define COLLVIZ_TESTS_SANITIZER_H

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#endif
