#define _GNU_SOURCE /* sched_getcpu, in flag.h */
/* rank.c - the rank work of the threads backend: what a worker thread
 * does in a phase, a timed run, a load or a reset (exec_threads.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/data.h"
#include "threads/copy.h"
#include "threads/threads_impl.h"

static const RankPhase *phase_of(const Rank *me, size_t k)
{
    const Plan *pl = &me->ex->plan;
    return &pl->rp[(size_t)me->id * pl->nphases + k];
}

/* F - 1 of the copy or reduce this rank performs of transfer t (NULL:
 * an average's division): slow=R:F's on the straggler, link=A>B:F's on a
 * transfer from A to B (exec_threads.h), the larger; 0: none. */
static double slow_extra(const Rank *me, const Transfer *t)
{
    const ThreadsExec *x = me->ex;
    double e = me->slow_extra;
    if (t && x->link_extra > e && t->src == x->link_src &&
        t->dst == x->link_dst)
        e = x->link_extra;
    return e;
}

/* The start of that copy or reduce, by the monotonic clock where it is
 * slowed, else 0. */
static long slow_start(const Rank *me, const Transfer *t)
{
    return slow_extra(me, t) > 0 ? mono_now_ns() : 0;
}

/* The end of the copy or reduce begun at t0 (slow_start): where it is
 * slowed, a busy wait of F - 1 times what it took, so that it takes F
 * times as long; a cancel (ExecOps.cancel) ends the wait. Counted for
 * threads_slowed. */
static void slow_end(Rank *me, const Transfer *t, long t0)
{
    double extra = slow_extra(me, t);
    if (extra <= 0)
        return;
    long now = mono_now_ns(), took = now - t0;
    long wait = (long)(extra * (double)took);
    me->slow_waits++;
    me->slow_took_ns += took;
    me->slow_wait_ns += wait;
    for (long end = now + wait; now < end && !cancel_asked(me->ex);
         now = mono_now_ns())
        cpu_relax();
}

/* Where transfer t reads its first element: its source's buffer, or in a
 * timed run (fused) the input a copy-in copied there (plan.fuse.via). */
static const unsigned char *src_of(const ThreadsExec *x, const Transfer *t,
                                   bool fused)
{
    const Transfer *v = fused ? x->plan.fuse.via[t - x->base.sched->xfers] : NULL;
    const Rank *r = &x->ranks[t->src];
    if (v)
        return r->buf[v->src_buf] + sched_fuse_at(v, t->src_off) * es_of(x);
    return r->buf[t->src_buf] + t->src_off * es_of(x);
}

/* Put this phase's eager transfers into their channels. They read only
 * this rank's own buffers, which hold the state before the step (its
 * writes of the step come later), so no other rank is waited for, except
 * when a ring is full. */
static void phase_sends(Rank *me, const RankPhase *ph, bool fused)
{
    ThreadsExec *x = me->ex;
    size_t es = es_of(x);
    const Send *sd = x->plan.sends + ph->e0;
    for (size_t i = 0; i < ph->ne; i++) {
        Channel *c = &x->chans[sd[i].chan];
        const Transfer *t = sd[i].t;
        uint32_t n = atomic_load_explicit(&c->produced.value, memory_order_relaxed);
        if (!reached(c->seen_consumed, n + 1 - c->depth)) {
            flag_wait(&c->consumed, n + 1 - c->depth, &me->wait);
            c->seen_consumed = atomic_load_explicit(&c->consumed.value,
                                                    memory_order_acquire);
        }
        long t0 = slow_start(me, t);
        memcpy(c->ring + (size_t)(n % c->depth) * c->slot, src_of(x, t, fused),
               t->count * es);
        slow_end(me, t, t0);
        flag_publish(&c->produced, n + 1);
    }
}

/* The next message of channel c, once it has arrived. */
static const unsigned char *chan_take(Rank *me, Channel *c)
{
    uint32_t n = atomic_load_explicit(&c->consumed.value, memory_order_relaxed);
    if (!reached(c->seen_produced, n + 1)) {
        flag_wait(&c->produced, n + 1, &me->wait);
        c->seen_produced = atomic_load_explicit(&c->produced.value,
                                                memory_order_acquire);
    }
    return c->ring + (size_t)(n % c->depth) * c->slot;
}

/* Wait for every rank this phase depends on. */
static void phase_waits(Rank *me, const RankPhase *ph, uint32_t e)
{
    ThreadsExec *x = me->ex;
    const Wait *w = x->plan.waits + ph->w0;
    for (size_t i = 0; i < ph->nw; i++)
        flag_wait(&x->ranks[w[i].rank].done, e - w[i].lag, &me->wait);
}

/* Copy the sources this phase overwrites into the stage, tell the ranks
 * whose writes wait for it, and wait for the copies of our own readers. */
static void phase_stage(Rank *me, const RankPhase *ph, uint32_t e, bool fused)
{
    ThreadsExec *x = me->ex;
    size_t es = es_of(x), at = 0;
    for (size_t i = 0; ph->nstage && i < ph->nx; i++) {
        const Transfer *t = x->plan.xf[ph->x0 + i];
        if (!x->plan.xstaged[ph->x0 + i])
            continue;
        long t0 = slow_start(me, t);
        memcpy(me->stage + at, src_of(x, t, fused), t->count * es);
        slow_end(me, t, t0);
        at += t->count * es;
    }
    if (ph->nstage)
        flag_publish(&me->staged, e + 1);
    const int32_t *sw = x->plan.swaits + ph->s0;
    for (size_t i = 0; i < ph->ns; i++)
        flag_wait(&x->ranks[sw[i]].staged, e + 1, &me->wait);
}

/* Copy-in fusion (sched_fuse_map): in a timed run, a reduce whose
 * destination still holds what a local copy from the send buffer put
 * there computes dst = init op src, a transfer whose source does reads
 * the send buffer (src_of), and a copy then left unread is skipped: one
 * pass over memory instead of two, the same operands in the same order,
 * so the results are the same bit for bit. Steps run one at a time (the TUI)
 * never fuse: after each of them the buffers hold what the schedule says.
 * The reduce: reduce_from (core/reduce.h). */

/* Elements [from, from + n) of transfer t, its source's elements at src
 * (the transfer's first), into its destination's buffer; fused: a timed
 * run (reduce_from). Performed by the destination, or for a pushed tail
 * by the source. */
static void xfer_part(ThreadsExec *x, const Transfer *t,
                      const unsigned char *src, size_t from, size_t n,
                      bool fused)
{
    const Schedule *s = x->base.sched;
    size_t es = es_of(x);
    const Transfer *init = fused ? x->plan.fuse.own[t - s->xfers] : NULL;
    unsigned char *const *db = x->ranks[t->dst].buf;
    unsigned char *dst = db[t->dst_buf] + (t->dst_off + from) * es;
    src += from * es;
    if (t->op == XFER_COPY && t->count * es >= x->stream_bytes)
        copy_stream(dst, src, n * es);
    else if (t->op == XFER_COPY)
        memcpy(dst, src, n * es);
    else if (init) {
        const unsigned char *a =
            db[init->src_buf] + (sched_fuse_at(init, t->dst_off) + from) * es;
        if (t->count * es >= x->stream_bytes) /* as large copies */
            reduce_from_stream(x->red, x->red3, dst, a, src, n, es);
        else
            reduce_from(x->red, x->red3, dst, a, src, n, es);
    } else
        x->red(dst, src, n);
}

/* Perform the phase's transfers (this rank is their destination), all
 * but the tails their sources push; fused: a timed run (reduce_from). */
static void phase_xfers(Rank *me, const RankPhase *ph, bool fused)
{
    ThreadsExec *x = me->ex;
    const Schedule *s = x->base.sched;
    size_t es = es_of(x), at = 0;
    for (size_t i = 0; i < ph->nx; i++) {
        const Transfer *t = x->plan.xf[ph->x0 + i];
        size_t ti = (size_t)(t - s->xfers);
        int32_t ch = x->plan.xchan[ph->x0 + i];
        const unsigned char *src;
        if (fused && x->plan.fuse.skip[ti])
            continue; /* a local copy, never eager or staged */
        if (ch >= 0) {
            src = chan_take(me, &x->chans[ch]);
        } else if (x->plan.xstaged[ph->x0 + i]) {
            src = me->stage + at;
            at += t->count * es;
        } else {
            src = src_of(x, t, fused);
        }
        long t0 = slow_start(me, t);
        xfer_part(x, t, src, 0, t->count - x->plan.xpush[ti], fused);
        slow_end(me, t, t0);
        if (ch >= 0) /* the slot may be reused */
            flag_publish(&x->chans[ch].consumed,
                         atomic_load_explicit(&x->chans[ch].consumed.value,
                                              memory_order_relaxed) + 1);
    }
}

/* Push the tails of this phase's pushed transfers (this rank is their
 * source and receives nothing in the phase, so its buffers hold the state
 * before the step), each once its destination may be written. */
static void phase_pushes(Rank *me, const RankPhase *ph, uint32_t e, bool fused)
{
    ThreadsExec *x = me->ex;
    for (size_t i = 0; i < ph->np; i++) {
        const Transfer *t = x->plan.pushes[ph->p0 + i];
        size_t n = x->plan.xpush[t - x->base.sched->xfers];
        flag_wait(&x->ranks[t->dst].entered, e + 1, &me->wait);
        long t0 = slow_start(me, t);
        xfer_part(x, t, src_of(x, t, fused), t->count - n, n, fused);
        slow_end(me, t, t0);
    }
}

/* Wait for the ranks pushing into this rank's buffers in this phase. */
static void phase_pushed(Rank *me, const RankPhase *ph, uint32_t e)
{
    ThreadsExec *x = me->ex;
    for (size_t i = 0; i < ph->nq; i++)
        flag_wait(&x->ranks[x->plan.pushers[ph->q0 + i]].done, e + 1,
                  &me->wait);
}

/* avg: divide this rank's outputs by p. */
static void phase_finish(Rank *me)
{
    const CollCall *c = &me->ex->base.sched->call;
    CollLayout l;
    coll_layout(c, me->id, &l);
    long t0 = slow_start(me, NULL);
    reduce_finish(c->dtype, c->op, me->buf[l.out_buf] + l.out_off * dtype_size(c->dtype),
                  l.out_count, c->nranks);
    slow_end(me, NULL, t0);
}

/* Execute phase k as the epoch-th phase since open; fused: in a timed
 * run (copy-in fusion, reduce_from). */
static void rank_phase(Rank *me, size_t k, uint32_t e, bool fused)
{
    const RankPhase *ph = phase_of(me, k);
    phase_sends(me, ph, fused);
    phase_waits(me, ph, e);
    if (k < me->ex->plan.nsteps) {
        phase_stage(me, ph, e, fused);
        if (ph->nq)
            flag_publish(&me->entered, e + 1);
        phase_pushes(me, ph, e, fused);
        phase_xfers(me, ph, fused);
        phase_pushed(me, ph, e);
    } else if (k == me->ex->plan.nsteps && me->ex->plan.finish) {
        phase_finish(me);
    }
    flag_publish(&me->done, e + 1);
}

/* Elements filled between two looks at a cancel: a load of gigabytes
 * (its pages first touched here) stops within a few milliseconds. */
#define FILL_BYTES ((size_t)1 << 20)

/* Inputs filled, every other element poisoned, FILL_BYTES at a time; a
 * cancel (ExecOps.cancel) stops it between two parts with
 * CV_ERR_CANCELLED (the next reset fills everything again). */
static void rank_reset(Rank *me)
{
    const Schedule *s = me->ex->base.sched;
    DataType t = s->call.dtype;
    size_t es = dtype_size(t), per = FILL_BYTES / es;
    CollLayout l;
    coll_layout(&s->call, me->id, &l);
    for (int b = 0; b <= BUF_COUNT && !me->err; b++) { /* BUF_COUNT: input */
        size_t n = b < BUF_COUNT ? sched_bufsize(s, me->id, (BufId)b)
                                 : l.in_count;
        for (size_t i = 0; i < n && !me->err; i += per) {
            size_t m = n - i < per ? n - i : per;
            if (cancel_asked(me->ex))
                me->err = CV_ERR_CANCELLED;
            else if (b < BUF_COUNT)
                data_fill_poison(t, me->buf[b] + i * es, m);
            else /* the input, over its poison */
                data_fill_input(&s->call, me->id, i, m,
                                me->buf[l.in_buf] + (l.in_off + i) * es);
        }
    }
}

/* Memory for a buffer. Large ones are aligned to 2 MiB and asked for
 * transparent huge pages (on Linux): streaming copies and reductions run
 * about 1.5 times faster without a TLB miss every 4 KiB. */
static void *buf_alloc(size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (bytes >= HUGE_PAGE) {
        void *p = NULL;
        if (posix_memalign(&p, HUGE_PAGE, bytes))
            return NULL;
        madvise(p, bytes, MADV_HUGEPAGE); /* a hint: failure is harmless */
        return p;
    }
#endif
    return malloc(bytes ? bytes : 1);
}

/* Make *p hold at least `bytes` (contents not kept). */
static int ensure(unsigned char **p, size_t *cap, size_t bytes)
{
    if (bytes <= *cap && *p)
        return 0;
    free(*p);
    *cap = 0;
    *p = buf_alloc(bytes);
    if (!*p)
        return -1;
    *cap = bytes;
    return 0;
}

/* Allocate (first touch: by this thread, in rank_reset) the buffers. */
static void rank_load(Rank *me)
{
    const Schedule *s = me->ex->base.sched;
    size_t es = es_of(me->ex);
    me->err = CV_OK;
    size_t off = me->ex->unalign * es; /* -u: past the aligned start */
    for (int b = 0; b < BUF_COUNT && !me->err; b++) {
        if (ensure(&me->base[b], &me->cap[b],
                   sched_bufsize(s, me->id, (BufId)b) * es + off))
            me->err = CV_ERR_NOMEM;
        me->buf[b] = me->err ? NULL : me->base[b] + off;
    }
    if (!me->err && ensure(&me->stage, &me->stage_cap,
                           me->ex->plan.stage_elems[me->id] * es))
        me->err = CV_ERR_NOMEM;
    if (!me->err)
        rank_reset(me);
}

static void rank_free(Rank *me)
{
    for (int b = 0; b < BUF_COUNT; b++) {
        free(me->base[b]);
        me->base[b] = me->buf[b] = NULL, me->cap[b] = 0;
    }
    free(me->stage);
    free(me->stamps);
    free(me->ends);
    me->stage = NULL, me->stamps = NULL, me->ends = NULL;
    me->stage_cap = me->stamps_cap = me->ends_cap = 0;
}

/* Whether this rank stops before phase g of a run (counted from its
 * first phase), once a cancel was asked. Every rank must stop before the
 * same phase, or one waits forever for a phase another never runs, and
 * ranks may be any number of phases apart (a broadcast's root waits for
 * nobody). So each rank that sees the cancel agrees to stop, and until
 * all have agreed it goes on, raising the stop past each phase before it
 * starts it; the count and the stop share one atomic word, so that the
 * stop no longer moves once all have agreed. Every phase a rank started
 * is then below the stop, and every rank runs each phase below it. */
static bool run_stops(Rank *me, uint64_t g, bool *agreed)
{
    ThreadsExec *x = me->ex;
    if (!*agreed && !cancel_asked(x))
        return false;
    uint64_t st = atomic_load_explicit(&x->cancel.stop, memory_order_acquire);
    for (;;) {
        uint64_t n = st >> STOP_SHIFT, at = st & STOP_AT_MASK;
        if (n == (uint64_t)x->base.nranks)
            return g >= at;
        uint64_t want = ((n + !*agreed) << STOP_SHIFT) | (at > g ? at : g + 1);
        if (atomic_compare_exchange_weak_explicit(
                &x->cancel.stop, &st, want, memory_order_acq_rel,
                memory_order_acquire)) {
            *agreed = true;
            return false;
        }
    }
}

/* Every rank arrives; the last one opens the gate for this run. */
static void rank_gate(Rank *me, uint32_t run)
{
    ThreadsExec *x = me->ex;
    if (atomic_fetch_add(&x->arrived, 1) == x->base.nranks - 1) {
        atomic_store(&x->arrived, 0);
        flag_publish(&x->gate, run);
    } else {
        flag_wait(&x->gate, run, &me->wait);
    }
}

/* Room for n stamps in *v (*cap of them now); 0 on success. */
static int stamps_room(long **v, size_t *cap, size_t n)
{
    if (n <= *cap)
        return 0;
    free(*v);
    *v = malloc(n * sizeof **v);
    *cap = *v ? n : 0;
    return *v ? 0 : -1;
}

/* The warmup, the gate, the timed iterations, their ends stamped; a
 * cancel stops every rank before the same phase (run_stops). */
static void rank_run(Rank *me, const Cmd *c)
{
    size_t n = me->ex->plan.nphases, k = 0, i = 0; /* phase, iteration */
    size_t warm = (size_t)c->warmup, last = warm + (size_t)c->iters;
    uint32_t e = c->epoch;
    bool agreed = false;
    me->err = CV_OK;
    if (stamps_room(&me->stamps, &me->stamps_cap, c->stamp_iters * n) ||
        stamps_room(&me->ends, &me->ends_cap, c->each_iters))
        me->err = CV_ERR_NOMEM; /* still run: the others depend on us */
    for (uint64_t g = 0; i < last && !run_stops(me, g, &agreed); g++) {
        if (i == warm && k == 0) {
            rank_gate(me, c->run);
            me->t0 = mono_now_ns();
        }
        rank_phase(me, k, e++, true);
        if (i >= warm && i - warm < c->stamp_iters && !me->err)
            me->stamps[(i - warm) * n + k] = mono_now_ns();
        if (k + 1 == n && i >= warm && i - warm < c->each_iters && !me->err)
            me->ends[i - warm] = mono_now_ns();
        if (++k == n)
            k = 0, i++;
    }
    me->t1 = mono_now_ns();
}

static void rank_command(Rank *me, const Cmd *c)
{
    me->err = CV_OK;
    switch (c->kind) {
    case CMD_LOAD: rank_load(me); break;
    case CMD_RESET: rank_reset(me); break;
    case CMD_PHASE: rank_phase(me, c->phase, c->epoch, false); break;
    case CMD_RUN: rank_run(me, c); break;
    case CMD_QUIT:
    case CMD_COUNT: break;
    }
}

/* While every rank can have a CPU of its own, rank r stays on the r-th
 * CPU it may use. Left to the scheduler, two ranks woken together were
 * sometimes put on the same CPU and stayed there, taking turns through
 * sched_yield (measured on 2 cores, p = 2: a step's latency 1.5 us
 * instead of 0.06 us in some runs). More ranks than CPUs: no pinning, the
 * scheduler balances them. */
static void pin_rank(const ThreadsExec *x, int r)
{
    if (x->cpus >= x->base.nranks)
        exec_pin(r); /* a hint: a failure leaves the rank to the scheduler */
}

void *threads_rank_main(void *arg)
{
    Rank *me = arg;
    ThreadsExec *x = me->ex;
    pin_rank(x, me->id);
    for (uint32_t seen = 1;; seen++) {
        flag_wait(&x->cmd, seen, &me->idle);
        Cmd c = x->c;
        if (c.kind == CMD_QUIT)
            rank_free(me);
        else
            rank_command(me, &c);
        /* Only the last worker to finish wakes the caller. */
        if (atomic_fetch_add(&x->acks.value, 1) + 1 == seen * (uint32_t)x->started)
            flag_wake_if_sleepers(&x->acks);
        if (c.kind == CMD_QUIT)
            return NULL;
    }
}
