/* probe.c - see probe.h. */
#include "probe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec.h" /* exec_cpus, exec_pin */

enum { MODE_CLEAN, MODE_DIRTY, MODE_STOP };

typedef struct {
    unsigned char *src; /* written once, at the start */
    unsigned char *dst; /* two blocks: its own half, then the other's */
} Side;

typedef struct {
    Side side[2];
    size_t block;
    double seconds;
    _Atomic unsigned met[2]; /* meetings each thread has arrived at */
    _Atomic int mode;        /* the next iteration's kind (thread 0 sets) */
    _Atomic int failed;      /* the first error of a thread (CvError) */
    ProbeResult res;
} Probe;

typedef struct {
    Probe *p;
    int me;
} Arg;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pause_cpu(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Both threads arrive before either leaves; false when the other failed. */
static int meet(Probe *p, int me, unsigned *n)
{
    atomic_store_explicit(&p->met[me], ++*n, memory_order_release);
    while (atomic_load_explicit(&p->met[1 - me], memory_order_acquire) < *n)
        if (atomic_load_explicit(&p->failed, memory_order_relaxed))
            return 0;
        else
            pause_cpu();
    return 1;
}

static void fail(Probe *p, CvError e)
{
    int none = CV_OK;
    atomic_compare_exchange_strong(&p->failed, &none, (int)e);
}

/* Thread 0 chooses each iteration's kind and times it: clean iterations
 * for the first fifth of `seconds`, then dirty ones to the end, each kind
 * at least twice after one to warm up. The dirty ones run back to back:
 * on the development virtual machine the slow state shows in a run of
 * them, and hardly in dirty iterations taken one or two at a time between
 * clean ones. */
static int next_mode(double now, double t, int last, double *acc, int *cnt,
                     double start, double seconds)
{
    if (last >= 0 && cnt[last]++ >= 0)
        acc[last] += t;
    if (cnt[MODE_CLEAN] < 2 || (cnt[MODE_DIRTY] < 0 && now < start + 0.2 * seconds))
        return MODE_CLEAN;
    if (cnt[MODE_DIRTY] < 2 || now < start + seconds)
        return MODE_DIRTY;
    return MODE_STOP;
}

static void *side_main(void *arg)
{
    Probe *p = ((Arg *)arg)->p;
    int me = ((Arg *)arg)->me;
    Side *s = &p->side[me], *o = &p->side[1 - me];
    size_t b = p->block;
    unsigned n = 0;
    if (!exec_pin(me)) {
        fail(p, CV_ERR_UNAVAILABLE);
        return NULL;
    }
    s->src = aligned_alloc(4096, (b + 4095) / 4096 * 4096);
    s->dst = aligned_alloc(4096, (2 * b + 4095) / 4096 * 4096);
    if (!s->src || !s->dst) {
        fail(p, CV_ERR_NOMEM);
        return NULL;
    }
    memset(s->src, 1 + me, b); /* first touched by the core that uses it */
    memset(s->dst, 0, 2 * b);
    double acc[2] = {0, 0}, start = 0, t0 = 0;
    int cnt[2] = {-1, -1}, last = -1;
    for (;;) {
        if (me == 0) {
            double t = now_s();
            if (last < 0)
                start = t;
            int m = next_mode(t, t - t0, last, acc, cnt, start, p->seconds);
            atomic_store_explicit(&p->mode, m, memory_order_relaxed);
            last = m, t0 = t;
        }
        if (!meet(p, me, &n))
            return NULL;
        int m = atomic_load_explicit(&p->mode, memory_order_relaxed);
        if (m == MODE_STOP)
            break;
        memcpy(s->dst + (size_t)me * b, s->src, b);
        if (!meet(p, me, &n))
            return NULL;
        memcpy(s->dst + (size_t)(1 - me) * b,
               m == MODE_DIRTY ? o->dst + (size_t)(1 - me) * b : o->src, b);
    }
    if (me == 0) {
        p->res.clean_s = acc[MODE_CLEAN] / cnt[MODE_CLEAN];
        p->res.dirty_s = acc[MODE_DIRTY] / cnt[MODE_DIRTY];
        p->res.ratio = p->res.dirty_s / p->res.clean_s;
    }
    return NULL;
}

CvError probe_cross(size_t block, double seconds, ProbeResult *out)
{
    *out = (ProbeResult){0};
    if (exec_cpus() < 2)
        return CV_ERR_UNAVAILABLE;
    block = block / 64 * 64;
    Probe *p = calloc(1, sizeof *p);
    if (!p)
        return CV_ERR_NOMEM;
    p->block = block ? block : 64;
    p->seconds = seconds > 0 ? seconds : 0;
    pthread_t t[2];
    Arg arg[2] = {{p, 0}, {p, 1}};
    int started = 0;
    for (; started < 2; started++)
        if (pthread_create(&t[started], NULL, side_main, &arg[started])) {
            fail(p, CV_ERR_BACKEND);
            break;
        }
    for (int k = 0; k < started; k++)
        pthread_join(t[k], NULL);
    CvError e = (CvError)atomic_load(&p->failed);
    if (!e)
        *out = p->res;
    for (int k = 0; k < 2; k++) {
        free(p->side[k].src);
        free(p->side[k].dst);
    }
    free(p);
    return e;
}

int probe_same_state(const double *v, int n)
{
    double lo = 0, hi = 0;
    for (int i = 0; i < n; i++) {
        if (!(v[i] > 0))
            continue;
        lo = lo > 0 && lo < v[i] ? lo : v[i];
        hi = hi > v[i] ? hi : v[i];
    }
    return lo <= 0 || hi <= PROBE_MOVED * lo;
}
