/* flag.h - how the threads backend's threads wait for one another:
 * counters that only grow, each on its own cache line, and waiters that
 * spin, then yield, then sleep on a futex (exec_threads.h).
 *
 * Private to src/threads/. The functions are static, not inline: every
 * file of the backend that includes this one (the rank work, the commands)
 * gets its own copy, compiled as when they all lived in one file. A file
 * that includes it defines _GNU_SOURCE first (sched_getcpu). */
#ifndef COLLVIZ_THREADS_FLAG_H
#define COLLVIZ_THREADS_FLAG_H

#include <limits.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "exec/mono.h"
#include "threads/plan.h" /* CACHE_LINE */

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

/* A counter that only grows, on its own cache line, the number of threads
 * asleep on it (so that a publisher calls the kernel only when somebody
 * sleeps), and the cpu it was last published from. */
typedef struct {
    alignas(CACHE_LINE) _Atomic uint32_t value; /* the counter */
    _Atomic uint32_t sleepers; /* threads in futex_wait on value */
    _Atomic int32_t cpu;       /* cpu of the last publish, -1 unknown */
} Flag;

/* How one thread waits: spin, then yield, then sleep on a futex. The spin
 * adapts: it doubles (up to max_ns) when it ends in success and halves
 * (down to max_ns / 4) when it runs out, because it only helps while the
 * thread that will publish is running on another core, which other load
 * on the machine, or more ranks than cores, make rare.
 *
 * Another program's busy threads on the same cores turn both into waste:
 * a sched_yield hands the core to such a thread for its whole time slice
 * (milliseconds), and a spin burns the share of the core the scheduler
 * would give the rank's work. So a yield that takes longer than
 * WAIT_SLOW_YIELD_NS makes the next WAIT_SHY_WAITS waits sleep at once
 * (measured on the 2-core VM beside two busy loops, p = 4, allreduce of
 * 8 B: 4.4 ms a call yielding, below 1 ms sleeping). */
typedef struct {
    long spin_ns; /* current spin budget, nanoseconds */
    long max_ns;  /* the longest spin */
    int yields;   /* sched_yield calls before sleeping */
    int shy;      /* waits left that sleep at once (another program runs) */
} Waiter;

/* A sched_yield this long gave the core to a thread for a time slice. */
#define WAIT_SLOW_YIELD_NS 200000L
/* How many waits then sleep at once before spinning and yielding again. */
#define WAIT_SHY_WAITS 256

static inline int reached(uint32_t v, uint32_t target)
{
    return (int32_t)(v - target) >= 0; /* wraps safely */
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#if defined(__linux__) && defined(__GLIBC__)
static int current_cpu(void) { return sched_getcpu(); }
#else
static int current_cpu(void) { return -1; }
#endif

static void futex_wait(_Atomic uint32_t *w, uint32_t v)
{
#ifdef __linux__
    syscall(SYS_futex, (void *)w, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
#else
    (void)w, (void)v;
    nanosleep(&(struct timespec){.tv_nsec = 20000}, NULL);
#endif
}

static void futex_wake(_Atomic uint32_t *w)
{
#ifdef __linux__
    syscall(SYS_futex, (void *)w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#else
    (void)w;
#endif
}

static inline int flag_ready(Flag *f, uint32_t target)
{
    return reached(atomic_load_explicit(&f->value, memory_order_acquire),
                   target);
}

/* Spin while the publisher may be running elsewhere; 1 when ready. */
static int flag_spin(Flag *f, uint32_t target, Waiter *w)
{
    int theirs = atomic_load_explicit(&f->cpu, memory_order_relaxed);
    if (w->spin_ns <= 0 || (theirs >= 0 && theirs == current_cpu()))
        return 0; /* it last ran here, where we run: it is not running */
    long start = mono_now_ns();
    for (unsigned i = 1;; i++) {
        cpu_relax();
        if (flag_ready(f, target)) {
            w->spin_ns = w->spin_ns < w->max_ns / 2 ? 2 * w->spin_ns : w->max_ns;
            return 1;
        }
        if (i % 64 == 0 && mono_now_ns() - start > w->spin_ns)
            break;
    }
    w->spin_ns = w->spin_ns / 2 > w->max_ns / 4 ? w->spin_ns / 2 : w->max_ns / 4;
    return 0;
}

/* Yield the core w->yields times; 1 when ready meanwhile. A slow yield
 * (another program's thread ran) ends the yielding and makes w shy. */
static int flag_yield(Flag *f, uint32_t target, Waiter *w)
{
    for (int y = 0; y < w->yields; y++) {
        long t0 = mono_now_ns();
        sched_yield();
        if (flag_ready(f, target))
            return 1;
        if (mono_now_ns() - t0 > WAIT_SLOW_YIELD_NS) {
            w->shy = WAIT_SHY_WAITS;
            return 0;
        }
    }
    return 0;
}

/* Wait until f->value reaches target. The sleeper count and the value are
 * seq_cst on both sides (Dekker): either the publisher sees the sleeper
 * or the sleeper sees the new value; the futex rechecks it atomically. */
static void flag_wait(Flag *f, uint32_t target, Waiter *w)
{
    if (flag_ready(f, target))
        return;
    if (w->shy > 0)
        w->shy--;
    else if (flag_spin(f, target, w) || flag_yield(f, target, w))
        return;
    for (;;) {
        atomic_fetch_add(&f->sleepers, 1);
        uint32_t v = atomic_load(&f->value);
        if (!reached(v, target))
            futex_wait(&f->value, v);
        atomic_fetch_sub(&f->sleepers, 1);
        if (flag_ready(f, target))
            return;
    }
}

static void flag_wake_if_sleepers(Flag *f)
{
    if (atomic_load(&f->sleepers))
        futex_wake(&f->value);
}

static void flag_publish(Flag *f, uint32_t v)
{
    atomic_store_explicit(&f->cpu, current_cpu(), memory_order_relaxed);
    atomic_store(&f->value, v);
    flag_wake_if_sleepers(f);
}

#endif
