/* exec_mpi.c - the mpi backend's operations (ExecOps) on rank 0: each one
 * a command broadcast to every process of the job (world.c serves it),
 * one at a time, under a watchdog.
 *
 * Rank 0 may hold several executors (the TUI's scene and its worker, in
 * two threads): one lock makes their operations take turns, and MPI runs
 * with MPI_THREAD_SERIALIZED there (perf and calibrate, one thread:
 * MPI_THREAD_SINGLE, world.c). A process that hangs (or a host or network
 * that stops) would leave rank 0 waiting in MPI forever: the watchdog,
 * rank 0's keeper (keeper.c: a process, so that no thread runs beside
 * rank 0's MPI calls), ends the run with one sentence and status 1 when
 * an operation makes no progress (no step, no call ends) for the
 * backend's timeout; a timed loop of MPI's own collective, which must
 * hold nothing but its calls, is allowed its length beforehand instead
 * (mpi_watch_allow). A process that dies makes mpirun end the job; rank
 * 0 then says so (world.c). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/mono.h"
#include "mpi/mpi_impl.h"

#define DEFAULT_TIMEOUT_S 30L
#define MAX_TIMEOUT_S 86400L

/* An executor on rank 0. */
typedef struct {
    Executor base;      /* first: the interface's part (error, cancel) */
    MpiRank *mine;      /* rank 0's own state (world.c's list) */
    int id;             /* the executor's id on every process */
    long timeout_s;     /* the watchdog's patience (option timeout) */
    size_t unalign;     /* ExecOptions.unalign, sent with every load */
} MpiExec;

static MpiExec *mx(Executor *ex) { return (MpiExec *)ex; }

/* One operation at a time, from any thread of rank 0. */
static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;
static int next_id;

/* ------------------------------------------------------------ watchdog */

/* The watchdog itself is rank 0's keeper (keeper.c), which reads
 * mpi_watch; here it is armed, pushed and disarmed. */

static long long now_ns(void)
{
    return (long long)(mono_now_s() * 1e9);
}

/* Arm it for an operation: `what`, with timeout_s of patience. */
static void watch_arm(const char *what, long timeout_s)
{
    if (!mpi_watch)
        return;
    snprintf(mpi_watch->what, sizeof mpi_watch->what, "%s", what);
    atomic_store(&mpi_watch->timeout_s, timeout_s);
    atomic_store(&mpi_watch->deadline, now_ns() + timeout_s * 1000000000LL);
}

static void watch_disarm(void)
{
    if (mpi_watch)
        atomic_store(&mpi_watch->deadline, 0);
}

void mpi_watch_poke(void)
{
    if (mpi_watch &&
        atomic_load_explicit(&mpi_watch->deadline, memory_order_relaxed))
        atomic_store_explicit(&mpi_watch->deadline,
                              now_ns() + atomic_load(&mpi_watch->timeout_s) *
                                             1000000000LL,
                              memory_order_relaxed);
}

void mpi_watch_allow(double per_call_s, int calls)
{
    if (!mpi_watch || !atomic_load(&mpi_watch->deadline))
        return;
    long t = atomic_load(&mpi_watch->timeout_s);
    double more = calls * (per_call_s > 0 ? per_call_s : (double)t);
    more = more < 1e9 ? more : 1e9; /* 30 years: the clock's ns stay in range */
    atomic_store(&mpi_watch->deadline, now_ns() + (long long)((t + more) * 1e9));
}

/* ------------------------------------------------------------ commands */

/* The sentence for error e of command `what` from some process. */
static CvError said(MpiExec *x, CvError e, const char *what)
{
    switch (e) {
    case CV_OK:
        return e;
    case CV_ERR_NOMEM:
        return exec_fail(&x->base, e, "a process of the mpi backend ran out of memory "
                    "during %s", what);
    case CV_ERR_BOUNDS:
        return exec_fail(&x->base, e, "the mpi backend sends at most 2 GiB in one "
                    "message; a transfer of this schedule is larger");
    case CV_ERR_BACKEND:
        return exec_fail(&x->base, e, "an MPI call failed during %s: a process of the "
                    "job died or its network failed", what);
    case CV_ERR_ARG:
    case CV_ERR_RANKS:
    case CV_ERR_ROOT:
    case CV_ERR_IN_PLACE:
    case CV_ERR_ALGO:
    case CV_ERR_STEP:
    case CV_ERR_SENDWRITE:
    case CV_ERR_MISSING:
    case CV_ERR_UNINIT:
    case CV_ERR_MIXED:
    case CV_ERR_TWICE:
    case CV_ERR_WRONG:
    case CV_ERR_UNAVAILABLE:
    case CV_ERR_CANCELLED:
    case CV_ERR_IO:
    case CV_ERR_LIMIT:
    case CV_ERR_COUNT:
        break;
    }
    return exec_fail(&x->base, e, "%s failed on a process of the mpi backend: %s",
                what, cv_strerror(e));
}

/* Send command c to every process and do rank 0's part, under the lock
 * and the watchdog; the first error of any process. */
static CvError command(MpiExec *x, MpiCmd c, MpiDoArgs *arg, const char *what)
{
    CvError e = exec_cancelled(&x->base, what);
    if (e)
        return e;
    pthread_mutex_lock(&turn);
    if (mpi_world.broken) {
        e = exec_fail(&x->base, CV_ERR_BACKEND, "the mpi job failed earlier and cannot "
                 "run %s", what);
    } else {
        watch_arm(what, x->timeout_s);
        c.id = x->id;
        if (MPI_Bcast(&c, sizeof c, MPI_BYTE, 0, mpi_world.ctl) != MPI_SUCCESS)
            mpi_world.broken = true, e = CV_ERR_BACKEND;
        else
            e = mpi_do(&c, arg);
        watch_disarm();
        e = said(x, e, what);
    }
    pthread_mutex_unlock(&turn);
    return e;
}

/* ------------------------------------------------------------ options */

/* The backend's options (-B mpi:key=value). */
typedef struct {
    long timeout; /* the watchdog's patience, seconds */
} MpiOptions;

static const ExecParam mpi_params[] = {
    {"timeout", "seconds", 1, MAX_TIMEOUT_S, offsetof(MpiOptions, timeout),
     NULL},
};

/* ---------------------------------------------------------- operations */

static CvError mpi_open(Executor **out, int nranks, const ExecOptions *opt,
                        char *why, size_t whylen)
{
    MpiOptions o = {.timeout = DEFAULT_TIMEOUT_S};
    *out = NULL;
    CvError e = exec_params_parse("mpi", mpi_params, 1, opt ? opt->params : NULL,
                                  &o, why, whylen);
    if (e)
        return e;
    if (nranks != mpi_world.size) {
        snprintf(why, whylen, "the mpi backend runs one process per rank: "
                 "mpirun started %d but %d ranks were asked for (give -p %d, "
                 "or mpirun -np %d)", mpi_world.size, nranks, mpi_world.size,
                 nranks);
        return CV_ERR_RANKS;
    }
    MpiExec *x = calloc(1, sizeof *x);
    if (!x) {
        snprintf(why, whylen, "out of memory opening the mpi backend");
        return CV_ERR_NOMEM;
    }
    exec_base_init(&x->base, &exec_mpi_ops, nranks);
    x->timeout_s = o.timeout;
    x->unalign = opt ? opt->unalign : 0;
    pthread_mutex_lock(&turn);
    x->id = next_id++;
    pthread_mutex_unlock(&turn);
    MpiDoArgs arg = {0};
    e = command(x, (MpiCmd){.kind = MCMD_OPEN}, &arg, "opening the backend");
    if (e) {
        snprintf(why, whylen, "%s", x->base.err);
        free(x);
        return e;
    }
    x->mine = arg.made;
    *out = &x->base;
    return CV_OK;
}

/* Validate s and flag the sources its steps overwrite. */
static CvError check_sched(MpiExec *x, const Schedule *s, uint8_t *staged)
{
    SchedCheck chk;
    char why[160];
    if (exec_check_fits(s, 0, why, sizeof why))
        return exec_fail(&x->base, CV_ERR_NOMEM, "%s", why);
    CvError e = sched_validate(s, &chk, staged);
    if (e == CV_ERR_NOMEM)
        return exec_fail(&x->base, e, "out of memory checking the schedule");
    if (e)
        return exec_fail(&x->base, e, "the schedule is not valid: %s (step %zu, "
                    "transfer %zu)", cv_strerror(e), chk.step, chk.xfer);
    return CV_OK;
}

static CvError mpi_load(Executor *ex, const Schedule *s)
{
    MpiExec *x = mx(ex);
    ex->sched = NULL;
    ex->err[0] = '\0';
    if (!s || s->call.nranks != ex->nranks)
        return exec_fail(&x->base, CV_ERR_ARG, "the schedule has %d ranks but the "
                    "executor was opened for %d", s ? s->call.nranks : 0,
                    ex->nranks);
    uint8_t *staged = malloc(s->nxfers + 1);
    if (!staged)
        return exec_fail(&x->base, CV_ERR_NOMEM, "out of memory loading the schedule");
    CvError e = check_sched(x, s, staged);
    const CollCall *c = &s->call;
    MpiCmd cmd = {.kind = MCMD_LOAD,
                  .a = {(int64_t)s->nxfers, (int64_t)s->nsteps, c->kind,
                        (int64_t)c->count, c->dtype, c->op, c->root,
                        c->in_place, (int64_t)x->unalign}};
    MpiDoArgs arg = {.sched = s, .staged = staged};
    if (!e)
        e = command(x, cmd, &arg, "the load");
    if (!e)
        e = command(x, (MpiCmd){.kind = MCMD_RESET}, &arg, "the load");
    free(staged);
    if (!e)
        ex->sched = s;
    return e;
}

static CvError mpi_reset(Executor *ex)
{
    MpiDoArgs arg = {0};
    CvError e = exec_guard(ex, "the reset");
    return e ? e : command(mx(ex), (MpiCmd){.kind = MCMD_RESET}, &arg,
                           "the reset");
}

static CvError mpi_step(Executor *ex, size_t k)
{
    MpiExec *x = mx(ex);
    MpiDoArgs arg = {0};
    CvError e = exec_guard_step(ex, k, "a step");
    if (e)
        return e;
    return command(x, (MpiCmd){.kind = MCMD_STEP, .a = {(int64_t)k}}, &arg,
                   "a step");
}

static CvError mpi_finish(Executor *ex)
{
    MpiDoArgs arg = {0};
    CvError e = exec_guard(ex, "the finish");
    return e ? e : command(mx(ex), (MpiCmd){.kind = MCMD_FINISH}, &arg,
                           "the finish");
}

/* A timed command (run or native): t->iter_s, and for a run t->step_s
 * and t->each_s (from the slowest rank's end of each iteration, every
 * rank's clock from the loop's start after its barrier: they sum to
 * iters times iter_s). */
static CvError timed(MpiExec *x, MpiCmdKind kind, int warmup, int iters,
                     ExecTiming *t, const char *what)
{
    CvError e = exec_guard_run(&x->base, warmup, iters, t, what);
    if (e)
        return e;
    bool steps = kind == MCMD_RUN && t->step_s;
    bool each = kind == MCMD_RUN && t->each_s;
    size_t ns = steps ? x->base.sched->nsteps : 0;
    size_t n = 1 + ns + (each ? (size_t)iters : 0);
    double *times = calloc(n, sizeof *times);
    if (!times)
        return exec_fail(&x->base, CV_ERR_NOMEM, "out of memory for the timings");
    MpiDoArgs arg = {.times = times, .ntimes = n};
    e = command(x, (MpiCmd){.kind = (int32_t)kind,
                            .a = {warmup, iters, steps, each}}, &arg, what);
    if (!e) {
        t->iter_s = times[0];
        for (size_t k = 0; k < ns; k++)
            t->step_s[k] = times[1 + k];
        for (int i = 0; each && i < iters; i++)
            t->each_s[i] = times[1 + ns + i] - (i ? times[ns + i] : 0);
        if (each && iters > 0) /* the mean is theirs */
            t->iter_s = times[ns + (size_t)iters] / iters;
    }
    free(times);
    return e;
}

static CvError mpi_run(Executor *ex, int warmup, int iters, ExecTiming *t)
{
    return timed(mx(ex), MCMD_RUN, warmup, iters, t, "the timed run");
}

static CvError mpi_native(Executor *ex, int warmup, int iters, ExecTiming *t,
                          char *why, size_t whylen)
{
    MpiExec *x = mx(ex);
    if (ex->sched) {
        mpi_native_why(&ex->sched->call, why, whylen);
        if (why[0])
            return exec_fail(&x->base, CV_ERR_UNAVAILABLE, "%s", why);
    }
    CvError e = timed(x, MCMD_NATIVE, warmup, iters, t, "MPI's own collective");
    if (e && why && whylen)
        snprintf(why, whylen, "%s", x->base.err);
    return e;
}

static CvError mpi_read(Executor *ex, int r, BufId b, size_t off, size_t n,
                        void *dst)
{
    MpiExec *x = mx(ex);
    CvError e = exec_guard_read(ex, r, b, off, n);
    if (e)
        return e;
    MpiDoArgs arg = {.dst = dst};
    if (!n)
        return CV_OK;
    return command(x, (MpiCmd){.kind = MCMD_READ,
                               .a = {r, b, (int64_t)off, (int64_t)n}},
                   &arg, "a read");
}

/* Rank r: its process and host, as rank 0 learnt them when the job
 * started (world.c); nothing fixes a unit. */
static void mpi_rank_where(Executor *ex, int r, ExecRankWhere *out)
{
    (void)ex;
    const MpiHostOf *h = mpi_world.hosts ? &mpi_world.hosts[r] : NULL;
    out->pid = h ? h->pid : 0;
    snprintf(out->host, sizeof out->host, "%s", h ? h->name : "unknown host");
    if (h)
        snprintf(out->unit, sizeof out->unit, "one of %d cpus", h->cpus);
}

static void mpi_host(Executor *ex, ExecHost *out)
{
    (void)ex;
    snprintf(out->fingerprint, sizeof out->fingerprint, "%s",
             mpi_world.fingerprint);
    out->cores = mpi_world.cores;
    out->nodes = mpi_world.nodes;
    out->per_node = mpi_world.per_node;
    out->cyclic = mpi_world.cyclic;
}

static void mpi_close(Executor *ex)
{
    if (!ex)
        return;
    MpiExec *x = mx(ex);
    MpiDoArgs arg = {0};
    atomic_store(&x->base.cancel, 0);
    command(x, (MpiCmd){.kind = MCMD_CLOSE}, &arg, "closing the backend");
    free(x);
}

const ExecOps exec_mpi_ops = {
    .name = "mpi",
    .summary = "one Open MPI process per rank, started by mpirun, across hosts",
    .open = mpi_open,
    .load = mpi_load,
    .reset = mpi_reset,
    .step = mpi_step,
    .finish = mpi_finish,
    .run = mpi_run,
    .times_each = 1,
    .native = mpi_native, /* MPI's own collectives */
    .native_name = "mpi",
    .read = mpi_read,
    /* .probe: none, the cross-core probe is the threads backend's */
    /* .predict: none, the plain model at the schedule's footprint */
    .host = mpi_host,
    .rank_where = mpi_rank_where,
    .cancel = exec_base_cancel,
    .last_error = exec_base_last_error,
    .close = mpi_close,
};
