/* probe_cross.c - the threads backend's probe (see probe_cross.h). */
#include "threads/probe_cross.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/exec.h" /* exec_cpus, exec_pin */
#include "exec/mono.h"

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

enum {
    WARM = 3,     /* iterations of each kind not counted: the first pulls
                     after a change of kind run between the two speeds */
    MIN_KEPT = 3, /* counted iterations of each kind at least */
    MAX_KEPT = 1 << 14 /* counted iterations of each kind at most */
};

/* Thread 0's record of the iterations' times. */
typedef struct {
    double *t[2]; /* [kind][MAX_KEPT] seconds per counted iteration */
    int n[2];     /* iterations of each kind run, warm-up included */
    double start, seconds;
} Clock;

static int kept(const Clock *c, int kind)
{
    int k = c->n[kind] - WARM;
    return k < 0 ? 0 : k < MAX_KEPT ? k : MAX_KEPT;
}

/* Record the last iteration (of kind `last`, t seconds) and choose the
 * next: clean iterations for the first fifth of the time, then dirty ones
 * to the end, each kind at least WARM + MIN_KEPT times. The dirty ones run
 * back to back: on the development virtual machine the slow state shows
 * in a run of them, and hardly in dirty iterations taken one or two at a
 * time between clean ones. */
static int next_mode(Clock *c, double now, double t, int last)
{
    if (last >= 0) {
        int i = c->n[last]++ - WARM;
        if (i >= 0 && i < MAX_KEPT)
            c->t[last][i] = t;
    }
    if (kept(c, MODE_CLEAN) < MIN_KEPT ||
        (c->n[MODE_DIRTY] == 0 && now < c->start + 0.2 * c->seconds))
        return MODE_CLEAN;
    if (kept(c, MODE_DIRTY) < MIN_KEPT || now < c->start + c->seconds)
        return MODE_DIRTY;
    return MODE_STOP;
}

/* The median of the counted iterations of one kind: robust to a thread
 * preempted for an iteration or two, in either state. */
static double median(Clock *c, int kind)
{
    return probe_median(c->t[kind], (size_t)kept(c, kind));
}

static void *side_main(void *arg)
{
    Probe *p = ((Arg *)arg)->p;
    int me = ((Arg *)arg)->me;
    Side *s = &p->side[me], *o = &p->side[1 - me];
    size_t b = p->block;
    unsigned n = 0;
    Clock c = {.seconds = p->seconds};
    if (!exec_pin(me)) {
        fail(p, CV_ERR_UNAVAILABLE);
        return NULL;
    }
    s->src = aligned_alloc(4096, (b + 4095) / 4096 * 4096);
    s->dst = aligned_alloc(4096, (2 * b + 4095) / 4096 * 4096);
    if (me == 0) {
        c.t[0] = malloc(MAX_KEPT * sizeof(double));
        c.t[1] = malloc(MAX_KEPT * sizeof(double));
    }
    if (!s->src || !s->dst || (me == 0 && (!c.t[0] || !c.t[1]))) {
        fail(p, CV_ERR_NOMEM);
        goto out;
    }
    memset(s->src, 1 + me, b); /* first touched by the core that uses it */
    memset(s->dst, 0, 2 * b);
    double t0 = 0;
    int last = -1;
    for (;;) {
        if (me == 0) {
            double t = mono_now_s();
            if (last < 0)
                c.start = t;
            int m = next_mode(&c, t, t - t0, last);
            atomic_store_explicit(&p->mode, m, memory_order_relaxed);
            last = m, t0 = t;
        }
        if (!meet(p, me, &n))
            goto out;
        int m = atomic_load_explicit(&p->mode, memory_order_relaxed);
        if (m == MODE_STOP)
            break;
        memcpy(s->dst + (size_t)me * b, s->src, b);
        if (!meet(p, me, &n))
            goto out;
        memcpy(s->dst + (size_t)(1 - me) * b,
               m == MODE_DIRTY ? o->dst + (size_t)(1 - me) * b : o->src, b);
    }
    if (me == 0) {
        p->res.clean_s = median(&c, MODE_CLEAN);
        p->res.dirty_s = median(&c, MODE_DIRTY);
        p->res.ratio = p->res.dirty_s / p->res.clean_s;
    }
out:
    free(c.t[0]);
    free(c.t[1]);
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
