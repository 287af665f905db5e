/* loop_trace.c - what the mpi backend's `native` row times, by the calls
 * its processes make, run by test_exec_mpi.c under mpirun: the timed
 * loop must be MPI's collective back to back and nothing else (no
 * barrier, check, copy or progress poll inside it), as OSU times it.
 *
 * The program defines MPI's entry points the backend uses (MPI's
 * profiling interface: each records the call, then calls PMPI_...), and
 * is linked with -Wl,--wrap for the backend's own functions a loop could
 * call between its calls (the watchdog's poke and allowance, the finish):
 * each records itself too. A call of mpi_rank_native (wrapped as well)
 * opens and closes one window of the record. Rank 0 runs MPI's own
 * collective of every kind, out of place and in place, on a few elements
 * with WARMUP warmup calls and ITERS timed ones; then every process
 * checks each of its windows: WARMUP calls of the kind's MPI function
 * before the one barrier, and after the barrier exactly a clock read,
 * ITERS calls of that function on the data communicator, and a clock
 * read. Nothing here depends on how fast the calls run.
 * usage: mpirun -np P mpi_loop_trace
 * Prints "loop_trace: N windows checked" on rank 0; each process says
 * what it found wrong on stderr, and the exit status is then 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "exec/exec.h"
#include "mpi/launch.h"
#include "mpi/mpi_impl.h"

#define WARMUP 2
#define ITERS 5
#define MAX_EVENTS 65536

/* The calls the record tells apart. */
typedef enum {
    F_BCAST, F_REDUCE, F_SCATTER, F_GATHER, F_ALLGATHER, F_RSB, F_ALLREDUCE,
    F_ALLTOALL, F_SENDRECV, F_BARRIER, F_WTIME, F_P2P, F_POKE, F_ALLOW,
    F_FINISH, F_BEGIN, F_END, F_COUNT
} Fn;

static const char *const fn_names[F_COUNT] = {
    [F_BCAST] = "MPI_Bcast", [F_REDUCE] = "MPI_Reduce",
    [F_SCATTER] = "MPI_Scatter", [F_GATHER] = "MPI_Gather",
    [F_ALLGATHER] = "MPI_Allgather", [F_RSB] = "MPI_Reduce_scatter_block",
    [F_ALLREDUCE] = "MPI_Allreduce", [F_ALLTOALL] = "MPI_Alltoall",
    [F_SENDRECV] = "MPI_Sendrecv", [F_BARRIER] = "MPI_Barrier",
    [F_WTIME] = "MPI_Wtime", [F_P2P] = "a point-to-point call or wait",
    [F_POKE] = "mpi_watch_poke", [F_ALLOW] = "mpi_watch_allow",
    [F_FINISH] = "mpi_rank_finish", [F_BEGIN] = "mpi_rank_native",
    [F_END] = "the end of mpi_rank_native",
};

/* One recorded call. */
typedef struct {
    Fn fn;     /* which */
    bool dat;  /* on the data communicator */
    int kind;  /* F_BEGIN: the loaded call's CollKind */
    int warm;  /* F_BEGIN: its warmup calls */
    int iters; /* F_BEGIN: its timed calls */
} Event;

static Event events[MAX_EVENTS];
static int nevents;
static bool overflow;

static void record(Fn fn, MPI_Comm c)
{
    if (nevents == MAX_EVENTS) {
        overflow = true;
        return;
    }
    events[nevents++] = (Event){.fn = fn, .dat = c == mpi_world.dat};
}

/* ------------------------------------------------- MPI's entry points */

double MPI_Wtime(void)
{
    record(F_WTIME, MPI_COMM_NULL);
    return PMPI_Wtime();
}

int MPI_Barrier(MPI_Comm c)
{
    record(F_BARRIER, c);
    return PMPI_Barrier(c);
}

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    record(F_BCAST, c);
    return PMPI_Bcast(b, n, t, root, c);
}

int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o,
               int root, MPI_Comm c)
{
    record(F_REDUCE, c);
    return PMPI_Reduce(s, r, n, t, o, root, c);
}

int MPI_Scatter(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                MPI_Datatype rt, int root, MPI_Comm c)
{
    record(F_SCATTER, c);
    return PMPI_Scatter(s, sn, st, r, rn, rt, root, c);
}

int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn,
               MPI_Datatype rt, int root, MPI_Comm c)
{
    record(F_GATHER, c);
    return PMPI_Gather(s, sn, st, r, rn, rt, root, c);
}

int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                  MPI_Datatype rt, MPI_Comm c)
{
    record(F_ALLGATHER, c);
    return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}

int MPI_Reduce_scatter_block(const void *s, void *r, int n, MPI_Datatype t,
                             MPI_Op o, MPI_Comm c)
{
    record(F_RSB, c);
    return PMPI_Reduce_scatter_block(s, r, n, t, o, c);
}

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op o,
                  MPI_Comm c)
{
    record(F_ALLREDUCE, c);
    return PMPI_Allreduce(s, r, n, t, o, c);
}

int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                 MPI_Datatype rt, MPI_Comm c)
{
    record(F_ALLTOALL, c);
    return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}

int MPI_Sendrecv(const void *s, int sn, MPI_Datatype st, int to, int stag,
                 void *r, int rn, MPI_Datatype rt, int from, int rtag,
                 MPI_Comm c, MPI_Status *status)
{
    record(F_SENDRECV, c);
    return PMPI_Sendrecv(s, sn, st, to, stag, r, rn, rt, from, rtag, c,
                         status);
}

int MPI_Isend(const void *b, int n, MPI_Datatype t, int to, int tag,
              MPI_Comm c, MPI_Request *q)
{
    record(F_P2P, c);
    return PMPI_Isend(b, n, t, to, tag, c, q);
}

int MPI_Irecv(void *b, int n, MPI_Datatype t, int from, int tag, MPI_Comm c,
              MPI_Request *q)
{
    record(F_P2P, c);
    return PMPI_Irecv(b, n, t, from, tag, c, q);
}

int MPI_Wait(MPI_Request *q, MPI_Status *s)
{
    record(F_P2P, MPI_COMM_NULL);
    return PMPI_Wait(q, s);
}

int MPI_Waitall(int n, MPI_Request q[], MPI_Status s[])
{
    record(F_P2P, MPI_COMM_NULL);
    return PMPI_Waitall(n, q, s);
}

int MPI_Test(MPI_Request *q, int *flag, MPI_Status *s)
{
    record(F_P2P, MPI_COMM_NULL);
    return PMPI_Test(q, flag, s);
}

int MPI_Iprobe(int from, int tag, MPI_Comm c, int *flag, MPI_Status *s)
{
    record(F_P2P, c);
    return PMPI_Iprobe(from, tag, c, flag, s);
}

/* ------------------------------------- the backend's own, wrapped */

void __real_mpi_watch_poke(void);
void __wrap_mpi_watch_poke(void);
void __real_mpi_watch_allow(double per_call_s, int calls);
void __wrap_mpi_watch_allow(double per_call_s, int calls);
CvError __real_mpi_rank_finish(MpiRank *m);
CvError __wrap_mpi_rank_finish(MpiRank *m);
CvError __real_mpi_rank_native(MpiRank *m, int warmup, int iters,
                               double *times);
CvError __wrap_mpi_rank_native(MpiRank *m, int warmup, int iters,
                               double *times);

void __wrap_mpi_watch_poke(void)
{
    record(F_POKE, MPI_COMM_NULL);
    __real_mpi_watch_poke();
}

void __wrap_mpi_watch_allow(double per_call_s, int calls)
{
    record(F_ALLOW, MPI_COMM_NULL);
    __real_mpi_watch_allow(per_call_s, calls);
}

CvError __wrap_mpi_rank_finish(MpiRank *m)
{
    record(F_FINISH, MPI_COMM_NULL);
    return __real_mpi_rank_finish(m);
}

CvError __wrap_mpi_rank_native(MpiRank *m, int warmup, int iters,
                               double *times)
{
    record(F_BEGIN, MPI_COMM_NULL);
    if (!overflow) /* the window's call, for the checks */
        events[nevents - 1] = (Event){.fn = F_BEGIN, .kind = m->call.kind,
                                      .warm = warmup, .iters = iters};
    CvError e = __real_mpi_rank_native(m, warmup, iters, times);
    record(F_END, MPI_COMM_NULL);
    return e;
}

/* ------------------------------------------------------- the checks */

/* MPI's function for collective k (native.c's choice). */
static Fn fn_of(CollKind k)
{
    switch (k) {
    case COLL_BROADCAST: return F_BCAST;
    case COLL_REDUCE: return F_REDUCE;
    case COLL_SCATTER: return F_SCATTER;
    case COLL_GATHER: return F_GATHER;
    case COLL_ALLGATHER:
    case COLL_HYPERCUBE: return F_ALLGATHER;
    case COLL_REDUCESCATTER: return F_RSB;
    case COLL_ALLREDUCE: return F_ALLREDUCE;
    case COLL_ALLTOALL: return F_ALLTOALL;
    case COLL_SENDRECV: return F_SENDRECV;
    case COLL_COUNT: break;
    }
    return F_COUNT;
}

/* The window whose F_BEGIN is events[b]: its F_END's index, or -1. */
static int window_end(int b)
{
    for (int i = b + 1; i < nevents; i++)
        if (events[i].fn == F_END)
            return i;
    return -1;
}

/* Whether window [b, e] is warmup, one barrier, and the timed loop of
 * nothing but the collective; otherwise what is wrong, into why. */
static bool window_ok(int b, int e, char *why, size_t len)
{
    const Event *w = &events[b];
    Fn want = fn_of((CollKind)w->kind);
    int bar = -1, warm = 0;
    for (int i = b + 1; i < e && bar < 0; i++) {
        if (events[i].fn == F_BARRIER && events[i].dat)
            bar = i;
        warm += events[i].fn == want && events[i].dat;
    }
    if (bar < 0 || warm != w->warm) {
        snprintf(why, len, "%s: %d warmup calls of %s before %s, not %d",
                 coll_name((CollKind)w->kind), warm, fn_names[want],
                 bar < 0 ? "no barrier" : "the barrier", w->warm);
        return false;
    }
    int at = bar + 1, end = at + w->iters + 1;
    for (int i = at; i <= end; i++) {
        Fn f = i < e ? events[i].fn : F_END;
        bool clock = i == at || i == end;
        if (clock ? f == F_WTIME : f == want && events[i].dat)
            continue;
        snprintf(why, len, "%s: the timed loop's event %d of %d is %s, not "
                 "%s", coll_name((CollKind)w->kind), i - at, w->iters + 2,
                 fn_names[f], clock ? "MPI_Wtime" : fn_names[want]);
        return false;
    }
    return true;
}

/* Every window of this process; the windows checked, or -1 after saying
 * on stderr what was wrong. */
static int check_all(void)
{
    char why[256];
    int n = 0, bad = overflow;
    if (overflow)
        fprintf(stderr, "loop_trace: rank %d: more than %d calls recorded\n",
                mpi_world.rank, MAX_EVENTS);
    for (int b = 0; b < nevents && !bad; b++) {
        if (events[b].fn != F_BEGIN)
            continue;
        int e = window_end(b);
        if (e < 0 || !window_ok(b, e, why, sizeof why)) {
            fprintf(stderr, "loop_trace: rank %d: %s\n", mpi_world.rank,
                    e < 0 ? "a native call that did not end" : why);
            bad = 1;
        }
        n++;
    }
    return bad ? -1 : n;
}

/* ------------------------------------------------------- the program */

/* A case that should have run and did not (rank 0). */
static bool failed;

/* MPI's own collective of call c: load the kind's default schedule (for
 * the buffers), time WARMUP and ITERS calls; 1 when it ran, 0 where the
 * call is not one (in-place sendrecv). */
static int one_case(Executor *ex, CollCall c)
{
    Schedule s;
    ExecTiming t = {0};
    char why[300] = "";
    if (coll_check(&c) || algo_generate(algo_default(c.kind), &c, &s))
        return 0;
    CvError e = ex->ops->load(ex, &s);
    if (!e)
        e = ex->ops->native(ex, WARMUP, ITERS, &t, why, sizeof why);
    if (e)
        fprintf(stderr, "loop_trace: %s: %s\n", coll_name(c.kind),
                why[0] ? why : ex->ops->last_error(ex));
    sched_fini(&s);
    failed |= e != CV_OK;
    return e ? 0 : 1;
}

/* Rank 0: every kind, out of place and in place; the windows run. */
static int body(int argc, char **argv)
{
    (void)argc, (void)argv;
    char why[300] = "";
    const ExecOps *ops = exec_find("mpi", why, sizeof why);
    Executor *ex = NULL;
    if (!ops || ops->open(&ex, mpi_world.size, NULL, why, sizeof why)) {
        fprintf(stderr, "loop_trace: %s\n", why);
        return 2;
    }
    int ran = 0;
    for (int k = 0; k < COLL_COUNT; k++)
        for (int ip = 0; ip < 2; ip++)
            ran += one_case(ex, (CollCall){
                .kind = (CollKind)k, .nranks = mpi_world.size, .count = 5,
                .dtype = DT_FLOAT, .op = k == COLL_ALLREDUCE ? OP_AVG : OP_SUM,
                .root = mpi_world.size - 1, .in_place = ip});
    ex->ops->close(ex);
    return ran;
}

int main(int argc, char **argv)
{
    int ran = mpi_launch(argc, argv, body, true);
    int checked = check_all();
    if (checked < 0)
        return 1;
    if (mpi_world.rank != 0)
        return checked > 0 ? 0 : 1;
    printf("loop_trace: %d windows checked\n", checked);
    return !failed && ran > 0 && checked == ran ? 0 : 1;
}
