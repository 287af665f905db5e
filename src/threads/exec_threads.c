#define _GNU_SOURCE /* sched_getcpu, in flag.h */
/* exec_threads.c - the threads backend (see exec_threads.h): the commands
 * the caller's thread gives the workers, the operations, and the ExecOps
 * table. The waiting is in flag.h, the plan of a schedule in plan.c, what
 * a worker does in rank.c. */
#include "threads/exec_threads.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "threads/copy.h"
#include "threads/predict.h"
#include "threads/probe_cross.h"
#include "threads/threads_impl.h"

/* =========================================================== options */

/* The backend's options (-B threads:key=value,...): -1 is the default. */
typedef struct {
    long spin_us;     /* a waiting rank spins this long before yielding
                         (default: 200 while every rank has a CPU of its
                         own, else 0: set_policies) */
    long eager_bytes; /* transfers up to this many bytes go through
                         channels (default: EAGER_BYTES where ranks
                         outnumber cores or data flows one way, else
                         none: eager_for); 0: none */
    long push_bytes;  /* an idle source pushes the tail of its pulled
                         transfers of this many bytes and more (default
                         PLAN_PUSH_BYTES); 0: never */
    long slow_rank;   /* slow=R:F: the straggler R; -1: none */
    double slow_factor; /* slow=R:F: its copies and reduces take F times
                           as long (rank.c's slow_end); 1: no slowdown */
    long link_src, link_dst; /* link=A>B:F: the slow pair; -1: none */
    double link_factor; /* link=A>B:F: the pair's transfers take F times
                           as long; 1: no slowdown */
} ThreadsOptions;

/* The slowest a straggler may be (slow=R:F's F). */
#define SLOW_MAX 1000.0

/* slow=R:F into the options: R a whole number (checked against the rank
 * count at open), F a number from 1 to SLOW_MAX. */
static bool set_slow(void *opts, const char *val, char *why, size_t whylen)
{
    ThreadsOptions *o = opts;
    char *end = NULL;
    errno = 0;
    long r = isdigit((unsigned char)val[0]) ? strtol(val, &end, 10) : -1;
    if (r < 0 || errno || *end != ':' || !end[1] ||
        isspace((unsigned char)end[1])) {
        snprintf(why, whylen, "the threads backend's option slow takes "
                 "RANK:FACTOR, such as slow=3:4 (rank 3's transfers take 4 "
                 "times as long), not '%s'", val);
        return false;
    }
    double f = strtod(end + 1, &end);
    if (*end || !(f >= 1 && f <= SLOW_MAX)) { /* NaN fails too */
        snprintf(why, whylen, "the threads backend's option slow takes a "
                 "factor from 1 (no slowdown) to %g after the rank, not '%s'",
                 SLOW_MAX, val);
        return false;
    }
    o->slow_rank = r, o->slow_factor = f;
    return true;
}

/* link=A>B:F into the options: A and B whole numbers (checked against
 * the rank count at open), F as slow's. */
static bool set_link(void *opts, const char *val, char *why, size_t whylen)
{
    ThreadsOptions *o = opts;
    char *end = NULL;
    long a = isdigit((unsigned char)val[0]) ? strtol(val, &end, 10) : -1, b;
    b = a >= 0 && *end == '>' && isdigit((unsigned char)end[1])
            ? strtol(end + 1, &end, 10) : -1;
    double f = b >= 0 && *end == ':' && end[1] &&
                       !isspace((unsigned char)end[1])
                   ? strtod(end + 1, &end) : 0;
    if (b < 0 || a == b || *end || !(f >= 1 && f <= SLOW_MAX)) {
        snprintf(why, whylen, "the threads backend's option link takes "
                 "A>B:FACTOR with two ranks and a factor from 1 to %g, such "
                 "as link=2>3:4 (transfers from rank 2 to rank 3 take 4 "
                 "times as long), not '%s'", SLOW_MAX, val);
        return false;
    }
    o->link_src = a, o->link_dst = b, o->link_factor = f;
    return true;
}

/* Its options: whole numbers from 0, into ThreadsOptions. */
static const ExecParam threads_params[] = {
    {"spin_us", "microseconds", 0, 1000000, offsetof(ThreadsOptions, spin_us),
     NULL},
    {"eager_bytes", "bytes", 0, (long)EAGER_BUDGET,
     offsetof(ThreadsOptions, eager_bytes), NULL},
    {"push_bytes", "bytes", 0, 1L << 30, offsetof(ThreadsOptions, push_bytes),
     NULL},
    {"slow", NULL, 0, 0, 0, set_slow},
    {"link", NULL, 0, 0, 0, set_link},
};

/* Parse the backend's options (ExecOptions.params) into o. */
static CvError parse_options(const char *params, ThreadsOptions *o, char *why,
                             size_t whylen)
{
    *o = (ThreadsOptions){.spin_us = -1, .eager_bytes = -1, .push_bytes = -1,
                          .slow_rank = -1, .slow_factor = 1, .link_src = -1,
                          .link_dst = -1, .link_factor = 1};
    return exec_params_parse("threads", threads_params,
                             sizeof threads_params / sizeof *threads_params,
                             params, o, why, whylen);
}

/* ========================================================== commands */

/* Publish command c to every worker and wait until all have done it;
 * returns the first rank error. */
static CvError command(ThreadsExec *x, Cmd c)
{
    x->c = c;
    x->ncmds++;
    flag_publish(&x->cmd, x->ncmds);
    flag_wait(&x->acks, x->ncmds * (uint32_t)x->started, &x->main_wait);
    for (int r = 0; r < x->started; r++)
        if (x->ranks[r].err)
            return x->ranks[r].err;
    return CV_OK;
}

/* Spin only while every rank can have a core: with more ranks than cores
 * a spinning waiter mostly holds the core the rank it waits for needs, so
 * there ranks yield at once. While each has one, spin long (200 us): a
 * rank that sleeps lets its core go idle, and waking an idle core costs
 * tens of microseconds on a virtual machine (measured on the 2-core one,
 * p = 2, allreduce of 1 MiB: a rank woke 30 us after its partner
 * published; 121 us per call with a 20 us spin, 101 us with 300 us). */
static void set_policies(ThreadsExec *x, const ThreadsOptions *o)
{
    int cpus = x->cpus, p = x->base.nranks;
    long spin = o->spin_us >= 0 ? o->spin_us * 1000L
                : p <= cpus ? 200000L : 0;
    Waiter rank = {.spin_ns = spin, .max_ns = spin, .yields = 100};
    Waiter idle = {.spin_ns = p < cpus ? 20000L : 0, .max_ns = 20000L,
                   .yields = 16};
    for (int r = 0; r < p; r++)
        x->ranks[r].wait = rank, x->ranks[r].idle = idle;
    x->main_wait = (Waiter){.spin_ns = p < cpus ? 20000L : 0,
                            .max_ns = 20000L, .yields = 64};
}

static void threads_close(Executor *ex);

static CvError start_workers(ThreadsExec *x, char *why, size_t whylen)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, STACK_BYTES);
    int rc = 0;
    for (int r = 0; r < x->base.nranks && !rc; r++) {
        x->ranks[r].id = r;
        x->ranks[r].ex = x;
        rc = pthread_create(&x->ranks[r].thread, &attr, threads_rank_main, &x->ranks[r]);
        if (!rc)
            x->started++;
    }
    pthread_attr_destroy(&attr);
    if (!rc)
        return CV_OK;
    snprintf(why, whylen, "the system refused to start thread %d of %d "
             "(error %d); try fewer ranks", x->started + 1, x->base.nranks, rc);
    return CV_ERR_BACKEND;
}

static CvError threads_open(Executor **out, int nranks,
                            const ExecOptions *opt, char *why, size_t whylen)
{
    ThreadsOptions o;
    *out = NULL;
    CvError e = parse_options(opt ? opt->params : NULL, &o, why, whylen);
    if (e)
        return e;
    if (nranks < 1 || nranks > COLL_MAX_RANKS) {
        snprintf(why, whylen, "the threads backend runs 1 to %d ranks (one "
                 "thread each); %d were asked for", COLL_MAX_RANKS, nranks);
        return CV_ERR_RANKS;
    }
    long most = o.slow_rank > o.link_src ? o.slow_rank : o.link_src;
    most = o.link_dst > most ? o.link_dst : most;
    if (most >= nranks) {
        snprintf(why, whylen, "the threads backend's option %s names rank "
                 "%ld, but the ranks are 0 to %d",
                 o.slow_rank >= nranks ? "slow" : "link", most, nranks - 1);
        return CV_ERR_ARG;
    }
    ThreadsExec *x = aligned_alloc(CACHE_LINE, sizeof *x);
    Rank *ranks = aligned_alloc(CACHE_LINE, (size_t)nranks * sizeof *ranks);
    if (!x || !ranks) {
        free(x), free(ranks);
        snprintf(why, whylen, "out of memory starting %d ranks", nranks);
        return CV_ERR_NOMEM;
    }
    memset(x, 0, sizeof *x);
    memset(ranks, 0, (size_t)nranks * sizeof *ranks);
    exec_base_init(&x->base, &exec_threads_ops, nranks);
    x->ranks = ranks;
    if (o.slow_rank >= 0)
        ranks[o.slow_rank].slow_extra = o.slow_factor - 1;
    x->link_src = (int)o.link_src, x->link_dst = (int)o.link_dst;
    x->link_extra = o.link_factor - 1;
    x->cpus = exec_cpus();
    set_policies(x, &o);
    x->check_steps = opt ? opt->check_steps : 0;
    x->unalign = opt ? opt->unalign : 0;
    x->eager_opt = o.eager_bytes;
    x->push_bytes = o.push_bytes >= 0 ? (size_t)o.push_bytes : PLAN_PUSH_BYTES;
    e = start_workers(x, why, whylen);
    if (e) {
        threads_close(&x->base);
        return e;
    }
    *out = &x->base;
    return CV_OK;
}

/* ======================================================= operations */

static ThreadsExec *tx(Executor *ex) { return (ThreadsExec *)ex; }

/* Bytes of pl's stages (none without pl), or SIZE_MAX on overflow. */
static size_t stage_bytes(const Schedule *s, const Plan *pl)
{
    size_t es = dtype_size(s->call.dtype), total = 0;
    for (int r = 0; pl && r < s->call.nranks; r++) {
        if (pl->stage_elems[r] > (SIZE_MAX - total) / es)
            return SIZE_MAX;
        total += pl->stage_elems[r] * es;
    }
    return total;
}

/* Bytes the schedule's buffers (and, with pl, the stages) need in all, or
 * SIZE_MAX on overflow. */
static size_t bytes_needed(const Schedule *s, const Plan *pl)
{
    return exec_bytes_needed(s, stage_bytes(s, pl));
}

/* CV_OK when the buffers (and, with pl, the stages) fit in the machine's
 * memory (exec_check_fits). */
static CvError check_fits(ThreadsExec *x, const Schedule *s, const Plan *pl)
{
    char why[160];
    CvError e = exec_check_fits(s, stage_bytes(s, pl), why, sizeof why);
    return e ? exec_fail(&x->base, e, "%s", why) : CV_OK;
}

static void chans_free(ThreadsExec *x)
{
    free(x->chans);
    free(x->rings);
    x->chans = NULL, x->rings = NULL;
}

/* The channels of plan pl, empty, replacing the previous ones. */
static CvError chans_alloc(ThreadsExec *x, const Plan *pl)
{
    size_t n = pl->nchans, bytes = 0;
    for (size_t c = 0; c < n; c++)
        bytes += pl->chan_slot[c] * pl->chan_depth[c];
    chans_free(x);
    x->chans = n ? aligned_alloc(CACHE_LINE, n * sizeof *x->chans) : NULL;
    x->rings = n ? malloc(bytes) : NULL;
    if (n && (!x->chans || !x->rings)) {
        chans_free(x);
        return exec_fail(&x->base, CV_ERR_NOMEM, "out of memory for the eager channels");
    }
    if (n)
        memset(x->chans, 0, n * sizeof *x->chans);
    for (size_t c = 0, at = 0; c < n; c++) {
        x->chans[c].ring = x->rings + at;
        x->chans[c].slot = pl->chan_slot[c];
        x->chans[c].depth = pl->chan_depth[c];
        at += pl->chan_slot[c] * pl->chan_depth[c];
    }
    return CV_OK;
}

/* The largest eager transfer of schedule s (the comment at EAGER_BYTES). */
static size_t eager_for(const ThreadsExec *x, const Schedule *s)
{
    if (x->eager_opt >= 0)
        return (size_t)x->eager_opt;
    if (x->base.nranks > x->cpus || plan_one_way(s) > 0)
        return EAGER_BYTES;
    return 0;
}

/* Check that the buffers fit (first: before anything sized by them is
 * allocated), validate s and build its plan. */
static CvError prepare(ThreadsExec *x, const Schedule *s)
{
    CvError e = check_fits(x, s, NULL);
    if (e)
        return e;
    SchedCheck chk;
    uint8_t *stg = malloc(s->nxfers + 1);
    if (!stg)
        return exec_fail(&x->base, CV_ERR_NOMEM, "out of memory loading the schedule");
    e = sched_validate(s, &chk, stg);
    if (e == CV_ERR_NOMEM) { /* the validator's own memory, not the input */
        free(stg);
        return exec_fail(&x->base, e, "out of memory validating the schedule");
    }
    if (e) {
        free(stg);
        return exec_fail(&x->base, e, "the schedule is not valid: %s (step %zu, transfer "
                    "%zu)", cv_strerror(e), chk.step, chk.xfer);
    }
    Plan pl;
    x->eager_bytes = eager_for(x, s);
    int bad = plan_build(&pl, s, stg, x->eager_bytes, x->push_bytes,
                         x->cpus);
    free(stg);
    if (bad)
        return exec_fail(&x->base, CV_ERR_NOMEM, "out of memory planning the schedule");
    if ((e = check_fits(x, s, &pl)) || (e = chans_alloc(x, &pl))) {
        plan_free(&pl);
        return e;
    }
    plan_free(&x->plan);
    x->plan = pl;
    x->stream_bytes = copy_stream_min(bytes_needed(s, &pl));
    x->red = reduce_fn(s->call.dtype, s->call.op);
    x->red3 = reduce3_fn(s->call.dtype, s->call.op);
    return CV_OK;
}

/* Report the cancel (ExecOps.cancel) that stopped a command, which
 * clears it: CV_ERR_CANCELLED and a sentence that says what was cut
 * short. */
static CvError cancelled(ThreadsExec *x, const char *what)
{
    atomic_store_explicit(&x->base.cancel, 0, memory_order_relaxed);
    return exec_fail(&x->base, CV_ERR_CANCELLED, "%s was cancelled", what);
}

static CvError threads_load(Executor *ex, const Schedule *s)
{
    ThreadsExec *x = tx(ex);
    ex->err[0] = 0;
    ex->sched = NULL; /* a failed load leaves nothing loaded */
    if (!s || s->call.nranks != ex->nranks)
        return exec_fail(&x->base, CV_ERR_ARG, "the schedule has %d ranks but the "
                    "executor was opened for %d", s ? s->call.nranks : 0,
                    ex->nranks);
    CvError e = exec_cancelled(ex, "the load");
    if (!e)
        e = prepare(x, s);
    if (e)
        return e;
    ex->sched = s;
    e = command(x, (Cmd){.kind = CMD_LOAD});
    if (e)
        ex->sched = NULL;
    if (e == CV_ERR_CANCELLED)
        return cancelled(x, "the load");
    if (e)
        return exec_fail(&x->base, e, "could not allocate the ranks' buffers: %s",
                    cv_strerror(e));
    return CV_OK;
}

static CvError threads_reset(Executor *ex)
{
    ThreadsExec *x = tx(ex);
    CvError e = exec_guard(ex, "the reset");
    if (e)
        return e;
    e = command(x, (Cmd){.kind = CMD_RESET});
    return e == CV_ERR_CANCELLED ? cancelled(x, "the reset") : e;
}

static CvError run_phase(ThreadsExec *x, size_t k)
{
    CvError e = command(x, (Cmd){.kind = CMD_PHASE, .phase = k,
                                 .epoch = x->epoch});
    x->epoch++;
    return e;
}

static CvError threads_step(Executor *ex, size_t k)
{
    ThreadsExec *x = tx(ex);
    CvError e = exec_guard_step(ex, k, "the step");
    return e ? e : run_phase(x, k);
}

static CvError threads_finish(Executor *ex)
{
    ThreadsExec *x = tx(ex);
    CvError e = exec_guard(ex, "the finish");
    if (e || !x->plan.finish)
        return e;
    return run_phase(x, x->plan.nsteps);
}

/* Mean over the stamped iterations of each step's time, from the slowest
 * rank's end of the previous phase to the slowest rank's end of this one. */
static void step_times(ThreadsExec *x, size_t iters, double *step_s)
{
    size_t n = x->plan.nphases, ns = x->plan.nsteps;
    int p = x->base.nranks;
    long prev = LONG_MAX;
    for (int r = 0; r < p; r++)
        prev = x->ranks[r].t0 < prev ? x->ranks[r].t0 : prev;
    for (size_t k = 0; k < ns; k++)
        step_s[k] = 0;
    for (size_t i = 0; i < iters; i++)
        for (size_t k = 0; k < n; k++) {
            long end = 0;
            for (int r = 0; r < p; r++) {
                long v = x->ranks[r].stamps[i * n + k];
                end = v > end ? v : end;
            }
            if (k < ns)
                step_s[k] += (double)(end - prev) * 1e-9 / (double)iters;
            prev = end;
        }
}

/* Phases of a run of n (warmup + iterations) the ranks ran: all, or
 * fewer where a cancel stopped every one of them before the same phase
 * (rank.c's run_stops). */
static uint64_t run_phases(ThreadsExec *x, uint64_t n)
{
    uint64_t st = atomic_load_explicit(&x->cancel.stop, memory_order_acquire);
    bool agreed = st >> STOP_SHIFT == (uint64_t)x->base.nranks;
    return agreed && (st & STOP_AT_MASK) < n ? st & STOP_AT_MASK : n;
}

/* Each timed iteration's time (ExecTiming.each_s): from the slowest
 * rank's end of the one before (the first: the earliest start) to the
 * slowest rank's end of it. */
static void each_times(ThreadsExec *x, int iters, long t0, double *each_s)
{
    long prev = t0;
    for (int i = 0; i < iters; i++) {
        long end = prev;
        for (int r = 0; r < x->base.nranks; r++)
            end = x->ranks[r].ends[i] > end ? x->ranks[r].ends[i] : end;
        each_s[i] = (double)(end - prev) * 1e-9;
        prev = end;
    }
}

/* The timed iterations' mean (and, with t->step_s, each step's; with
 * t->each_s, each iteration's) from the ranks' clocks. */
static void run_times(ThreadsExec *x, int iters, size_t stamped,
                      ExecTiming *t)
{
    long t0 = LONG_MAX, t1 = 0;
    for (int r = 0; r < x->base.nranks; r++) {
        t0 = x->ranks[r].t0 < t0 ? x->ranks[r].t0 : t0;
        t1 = x->ranks[r].t1 > t1 ? x->ranks[r].t1 : t1;
    }
    t->iter_s = (double)(t1 - t0) * 1e-9 / iters;
    if (t->step_s && stamped)
        step_times(x, stamped, t->step_s);
    if (t->each_s) { /* the mean is theirs, to the nanosecond */
        each_times(x, iters, t0, t->each_s);
        double sum = 0;
        for (int i = 0; i < iters; i++)
            sum += t->each_s[i];
        t->iter_s = sum / iters;
    }
}

static CvError threads_run(Executor *ex, int warmup, int iters, ExecTiming *t)
{
    ThreadsExec *x = tx(ex);
    CvError e = exec_guard_run(ex, warmup, iters, t, "the timed run");
    if (e)
        return e;
    size_t n = x->plan.nphases;
    bool stamp = t->step_s || x->check_steps;
    size_t si = stamp ? (MAX_STAMPS / n < (size_t)iters ? MAX_STAMPS / n : (size_t)iters) : 0;
    uint64_t all = (uint64_t)(warmup + iters) * n;
    x->nruns++;
    atomic_store_explicit(&x->cancel.stop, 0, memory_order_relaxed);
    e = command(x, (Cmd){.kind = CMD_RUN, .epoch = x->epoch, .warmup = warmup,
                         .iters = iters, .stamp_iters = si,
                         .each_iters = t->each_s ? (size_t)iters : 0,
                         .run = x->nruns});
    uint64_t ran = run_phases(x, all);
    x->epoch += (uint32_t)ran;
    if (e)
        return exec_fail(&x->base, e, "the timed run failed: %s", cv_strerror(e));
    if (ran < all)
        return cancelled(x, "the timed run");
    run_times(x, iters, si, t);
    return CV_OK;
}

static CvError threads_read(Executor *ex, int r, BufId b, size_t off,
                            size_t n, void *dst)
{
    ThreadsExec *x = tx(ex);
    CvError e = exec_guard_read(ex, r, b, off, n);
    if (e)
        return e;
    size_t es = es_of(x);
    if (n)
        memcpy(dst, x->ranks[r].buf[b] + off * es, n * es);
    return CV_OK;
}

static void threads_close(Executor *ex)
{
    if (!ex)
        return;
    ThreadsExec *x = tx(ex);
    if (x->started)
        command(x, (Cmd){.kind = CMD_QUIT});
    for (int r = 0; r < x->started; r++)
        pthread_join(x->ranks[r].thread, NULL);
    plan_free(&x->plan);
    chans_free(x);
    free(x->ranks);
    free(x);
}

/* The CPU's model, as the system names it: /proc/cpuinfo's first "model
 * name" (x86, and others that have it), else its "Processor" or
 * "Hardware" line (older ARM kernels), else the machine's architecture;
 * runs of blanks as one space. */
static void cpu_model(char *out, size_t len)
{
    static const char *const keys[] = {"model name", "Processor", "Hardware"};
    char line[256], best[256] = "";
    size_t rank = sizeof keys / sizeof keys[0];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && rank && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        for (size_t k = 0; colon && k < rank; k++)
            if (!strncmp(line, keys[k], strlen(keys[k])) && colon[1]) {
                snprintf(best, sizeof best, "%s", colon + 1);
                rank = k;
            }
    }
    if (f)
        fclose(f);
    struct utsname u;
    if (!best[0] && !uname(&u))
        snprintf(best, sizeof best, "%s CPU", u.machine);
    size_t n = 0;
    for (const char *c = best; *c && n + 1 < len; c++)
        if (!isspace((unsigned char)*c))
            out[n++] = *c;
        else if (n && out[n - 1] != ' ' && c[1] && !isspace((unsigned char)c[1]))
            out[n++] = ' ';
    out[n] = '\0';
}

/* This machine: the CPU's model and the CPUs the ranks may use (those of
 * the process when it was opened), "Intel(R) Xeon(R) ... x2". */
/* slow=R:F and link=A>B:F into out (altered, slowed), said in every
 * head (placement). */
static void host_slowed(const ThreadsExec *x, int nranks, ExecHost *out)
{
    MachineSlow *s = &out->slowed;
    size_t n = 0, len = sizeof out->placement;
    for (int r = 0; r < nranks; r++)
        if (x->ranks[r].slow_extra > 0) {
            s->rank = r, s->slow = x->ranks[r].slow_extra + 1;
            n = (size_t)snprintf(out->placement, len, "rank %d slowed %gx "
                                 "(threads:slow=%d:%g: each copy or reduce "
                                 "it performs is followed by a busy wait of "
                                 "%g times its time)", r, s->slow, r,
                                 s->slow, s->slow - 1);
        }
    if (x->link_extra > 0 && n < len) {
        s->from = x->link_src, s->to = x->link_dst;
        s->link = x->link_extra + 1;
        snprintf(out->placement + n, len - n, "%stransfers from rank %d to "
                 "rank %d slowed %gx (threads:link=%d>%d:%g)", n ? "; " : "",
                 s->from, s->to, s->link, s->from, s->to, s->link);
    }
    out->altered = s->slow > 1 || s->link > 1;
}

static void threads_host(Executor *ex, ExecHost *out)
{
    char model[96];
    cpu_model(model, sizeof model);
    out->cores = tx(ex)->cpus;
    out->cache_bytes = copy_cache_bytes();
    out->memory = MACHINE_HOST;
    snprintf(out->fingerprint, sizeof out->fingerprint, "%s x%d",
             model[0] ? model : "unknown CPU", out->cores);
    host_slowed(tx(ex), ex->nranks, out);
}

bool threads_slowed(Executor *ex, int r, ThreadsSlow *out)
{
    if (r < 0 || r >= ex->nranks)
        return false;
    const Rank *k = &tx(ex)->ranks[r];
    *out = (ThreadsSlow){.waits = k->slow_waits, .took_ns = k->slow_took_ns,
                         .wait_ns = k->slow_wait_ns};
    return true;
}

const void *threads_buffer(Executor *ex, int r, BufId b, const void **base)
{
    ThreadsExec *x = tx(ex);
    *base = NULL;
    if (!ex->sched || r < 0 || r >= ex->nranks || (unsigned)b >= BUF_COUNT)
        return NULL;
    *base = x->ranks[r].base[b];
    return x->ranks[r].buf[b];
}

/* Rank r: a thread of this process, on the r-th CPU the process may use
 * where every rank has one (pin_rank), else wherever the scheduler puts
 * it. */
static void threads_rank_where(Executor *ex, int r, ExecRankWhere *out)
{
    ThreadsExec *x = tx(ex);
    int cpu = x->cpus >= ex->nranks ? exec_cpu_id(r) : -1;
    out->pid = (long)getpid();
    exec_host_name(out->host, sizeof out->host);
    if (cpu >= 0)
        snprintf(out->unit, sizeof out->unit, "cpu %d", cpu);
    else
        snprintf(out->unit, sizeof out->unit, "a thread on any of %d cpus",
                 x->cpus);
}

/* The machine's cross-core state, by probe.h's two threads pinned to the
 * first two CPUs (where ranks 0 and 1 run while every rank has a CPU of
 * its own): called between runs, while the ranks' threads wait idle. */
static CvError threads_probe(Executor *ex, ProbeResult *out)
{
    (void)ex;
    return probe_cross(PROBE_BLOCK, PROBE_SECONDS, out);
}

const ExecOps exec_threads_ops = {
    .name = "threads",
    .summary = "one thread per rank on this machine's cores",
    .open = threads_open,
    .load = threads_load,
    .reset = threads_reset,
    .step = threads_step,
    .finish = threads_finish,
    .run = threads_run,
    .times_each = 1,
    /* .native: none, this backend has no library beside its schedules */
    .read = threads_read,
    .probe = threads_probe,
    .predict = threads_predict,
    .host = threads_host,
    .rank_where = threads_rank_where,
    .cancel = exec_base_cancel,
    .last_error = exec_base_last_error,
    .close = threads_close,
};
