/* world.c - the job's processes: starting MPI, the hosts and ranks per
 * host (the fingerprint), rank 0 running the command while the others
 * serve it, and what every process does for one command (mpi_do). */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi/launch.h"
#include "mpi/mpi_impl.h"

MpiWorld mpi_world;

/* Whether mpirun (or another PMIx launcher) started this process. */
static bool under_mpirun(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") ||
           getenv("PMI_RANK");
}

typedef MpiHostOf HostOf;

/* Whether the ranks' hosts (host[r]: the number of rank r's host, by
 * order of its first rank) are G hosts of n / G ranks each, in blocks or
 * dealt round: mpi_world.nodes, per_node and cyclic (nodes 0: one host,
 * or a placement neither describes). */
static void placement(const int *host, int n, int hosts)
{
    int per = hosts > 1 && n % hosts == 0 ? n / hosts : 0;
    bool block = per > 0, cyclic = per > 0;
    for (int r = 0; r < n && (block || cyclic); r++) {
        block &= host[r] == r / (per ? per : 1);
        cyclic &= host[r] == r % hosts;
    }
    mpi_world.nodes = block || cyclic ? hosts : 0;
    mpi_world.per_node = block || cyclic ? per : 0;
    mpi_world.cyclic = !block && cyclic;
}

/* "vm x4 (2 CPUs)" or "a x2 (8 CPUs), b x2 (8 CPUs)": each host in the
 * order of its first rank, its ranks and CPUs; and the cores (ranks that
 * run at once). */
static void describe(const HostOf *h, int n)
{
    char *fp = mpi_world.fingerprint;
    size_t len = sizeof mpi_world.fingerprint, at = 0;
    int hosts = 0, cores = 0, *host = calloc((size_t)n, sizeof *host);
    bool cut = false;
    fp[0] = '\0';
    for (int i = 0; i < n; i++) {
        int first = i, ranks = 0;
        for (int j = 0; j < i && first == i; j++)
            first = strcmp(h[j].name, h[i].name) ? first : j;
        if (host)
            host[i] = first == i ? hosts : host[first];
        if (first != i)
            continue;
        for (int j = i; j < n; j++)
            ranks += !strcmp(h[j].name, h[i].name);
        hosts++;
        cores += ranks < h[i].cpus ? ranks : h[i].cpus;
        int w = snprintf(fp + at, len - at, "%s%s x%d (%d CPUs)",
                         hosts > 1 ? ", " : "", h[i].name, ranks, h[i].cpus);
        if (w < 0 || (size_t)w >= len - at)
            cut = true;
        else
            at += (size_t)w;
    }
    if (cut) { /* too many hosts to name: their count and a hash of all */
        unsigned long hash = 2166136261u;
        for (int i = 0; i < n; i++)
            for (const char *c = h[i].name; *c; c++)
                hash = (hash ^ (unsigned char)*c) * 16777619u & 0xffffffffu;
        snprintf(fp, len, "%d hosts, %d ranks, names %08lx", hosts, n, hash);
    }
    mpi_world.cores = cores;
    if (host)
        placement(host, n, hosts);
    free(host);
}

static int host_facts(void)
{
    /* the host's CPUs, not this process's: mpirun binds ranks to cores */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    HostOf me = {.cpus = online > 0 ? (int)online : 1, .pid = (int)getpid()},
           *all;
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int n = 0;
    if (MPI_Get_processor_name(name, &n) != MPI_SUCCESS)
        snprintf(name, sizeof name, "unknown host");
    memcpy(me.name, name, sizeof me.name - 1); /* cut: the first 63 bytes */
    all = calloc((size_t)mpi_world.size, sizeof *all);
    if (!all)
        return MPI_ERR_NO_MEM;
    int rc = MPI_Allgather(&me, sizeof me, MPI_BYTE, all, sizeof me, MPI_BYTE,
                           mpi_world.ctl);
    if (rc == MPI_SUCCESS)
        describe(all, mpi_world.size);
    for (int r = 1; rc == MPI_SUCCESS && mpi_watch && r < mpi_world.size; r++)
        if (!strcmp(all[r].name, all[0].name) && all[r].pid > 0 &&
            mpi_watch->nlocal < MPI_WATCH_PIDS)
            mpi_watch->local_pids[mpi_watch->nlocal++] = all[r].pid;
    if (rc == MPI_SUCCESS && mpi_world.rank == 0)
        mpi_world.hosts = all; /* kept for the rank lines (exec_mpi.c) */
    else
        free(all);
    return rc;
}

/* ------------------------------------------------------------ commands */

static MpiRank *find(int id)
{
    MpiRank *m = mpi_world.execs;
    while (m && m->id != id)
        m = m->next;
    return m;
}

static void forget(MpiRank *m)
{
    MpiRank **at = &mpi_world.execs;
    while (*at && *at != m)
        at = &(*at)->next;
    if (*at)
        *at = m->next;
    mpi_rank_unload(m);
    free(m);
}

/* MCMD_READ: rank r's elements to rank 0, in parts an int can count. */
static CvError do_read(MpiRank *m, const MpiCmd *c, void *dst)
{
    int r = (int)c->a[0], rc = MPI_SUCCESS;
    size_t bytes = (size_t)c->a[3] * m->es, part = (size_t)1 << 30;
    unsigned char *from = m->buf[c->a[1]] + (size_t)c->a[2] * m->es;
    if (r == 0 && m->me == 0)
        memcpy(dst, from, bytes);
    for (size_t at = 0; r != 0 && at < bytes && rc == MPI_SUCCESS; at += part) {
        int n = (int)(bytes - at < part ? bytes - at : part);
        if (m->me == r)
            rc = MPI_Send(from + at, n, MPI_BYTE, 0, 1, mpi_world.dat);
        else if (m->me == 0)
            rc = MPI_Recv((char *)dst + at, n, MPI_BYTE, r, 1, mpi_world.dat,
                          MPI_STATUS_IGNORE);
    }
    if (rc != MPI_SUCCESS)
        mpi_world.broken = true;
    return rc == MPI_SUCCESS ? CV_OK : CV_ERR_BACKEND;
}

/* MCMD_RUN and MCMD_NATIVE: time, then the slowest rank's times to rank 0. */
static CvError do_timed(MpiRank *m, const MpiCmd *c, MpiDoArgs *arg)
{
    bool run = c->kind == MCMD_RUN;
    size_t n = 1 + (run && c->a[2] ? m->nsteps : 0) +
               (run && c->a[3] ? (size_t)c->a[1] : 0);
    double *t = calloc(n, sizeof *t), *worst = arg->times;
    if (!t)
        MPI_Abort(MPI_COMM_WORLD, 1); /* the others would wait for us */
    CvError e = c->kind == MCMD_RUN
                    ? mpi_rank_run(m, (int)c->a[0], (int)c->a[1], c->a[2],
                                   c->a[3], t)
                    : mpi_rank_native(m, (int)c->a[0], (int)c->a[1], t);
    if (m->me == 0 && arg->ntimes < n)
        e = CV_ERR_ARG;
    int rc = MPI_Reduce(t, m->me == 0 ? worst : NULL, (int)n, MPI_DOUBLE,
                        MPI_MAX, 0, mpi_world.ctl);
    free(t);
    return rc == MPI_SUCCESS ? e : CV_ERR_BACKEND;
}

/* This process's part of command c, and its error. */
static CvError do_one(MpiRank *m, const MpiCmd *c, MpiDoArgs *arg)
{
    switch ((MpiCmdKind)c->kind) {
    case MCMD_LOAD:
        return mpi_rank_load(m, c, arg->sched, arg->staged);
    case MCMD_RESET:
        return mpi_rank_reset(m);
    case MCMD_STEP:
        return mpi_rank_step(m, (size_t)c->a[0]);
    case MCMD_FINISH:
        return mpi_rank_finish(m);
    case MCMD_RUN:
    case MCMD_NATIVE:
        return do_timed(m, c, arg);
    case MCMD_OPEN:
    case MCMD_READ:
    case MCMD_CLOSE:
    case MCMD_QUIT:
        break;
    }
    return CV_ERR_ARG;
}

CvError mpi_do(const MpiCmd *c, MpiDoArgs *arg)
{
    MpiRank *m = find(c->id);
    if (c->kind == MCMD_OPEN) {
        m = calloc(1, sizeof *m);
        if (!m)
            MPI_Abort(MPI_COMM_WORLD, 1);
        *m = (MpiRank){.id = c->id, .me = mpi_world.rank, .p = mpi_world.size,
                       .next = mpi_world.execs};
        mpi_world.execs = m;
        arg->made = m;
        return CV_OK;
    }
    if (!m)
        return CV_ERR_ARG; /* rank 0 sends only ids it opened */
    if (c->kind == MCMD_CLOSE) {
        forget(m);
        return CV_OK;
    }
    if (c->kind == MCMD_READ)
        return do_read(m, c, arg->dst);
    CvError e = do_one(m, c, arg);
    int mine = (int)e, worst = 0;
    if (MPI_Reduce(&mine, &worst, 1, MPI_INT, MPI_MAX, 0, mpi_world.ctl) !=
        MPI_SUCCESS) {
        mpi_world.broken = true;
        return CV_ERR_BACKEND;
    }
    return mpi_world.rank == 0 ? (CvError)worst : e;
}

/* ------------------------------------------------------------- the job */

/* Rank 0's answer when mpirun ends it (another process died, or the job
 * was interrupted): one sentence instead of a silent end. */
static void on_term(int sig)
{
    static const char msg[] = "collviz: mpirun stopped the job: another of "
        "its processes died or the job was interrupted\n";
    static atomic_flag said = ATOMIC_FLAG_INIT;
    (void)sig;
    if (atomic_flag_test_and_set(&said))
        for (;;) /* another thread says it and ends the process */
            pause();
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

/* Every process but rank 0: do rank 0's commands until it says quit. */
static void serve(void)
{
    for (;;) {
        MpiCmd c;
        MpiDoArgs arg = {0};
        if (MPI_Bcast(&c, sizeof c, MPI_BYTE, 0, mpi_world.ctl) != MPI_SUCCESS ||
            c.kind == MCMD_QUIT)
            return;
        mpi_do(&c, &arg);
    }
}

static int start(int *argc, char ***argv, int level)
{
    int prov = 0;
    /* A crash ends with the keeper's one sentence, not Open MPI's
     * backtrace of the signal (unless the user asks for it). */
    setenv("OMPI_MCA_opal_signal", "", 0);
    if (MPI_Init_thread(argc, argv, level, &prov) != MPI_SUCCESS)
        return -1;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_world.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_world.size);
    if (MPI_Comm_dup(MPI_COMM_WORLD, &mpi_world.ctl) != MPI_SUCCESS ||
        MPI_Comm_dup(MPI_COMM_WORLD, &mpi_world.dat) != MPI_SUCCESS)
        return -1;
    MPI_Comm_set_errhandler(mpi_world.ctl, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(mpi_world.dat, MPI_ERRORS_RETURN);
    return host_facts() == MPI_SUCCESS ? prov : -1;
}

int mpi_launch(int argc, char **argv, int (*body)(int argc, char **argv),
               bool one_thread)
{
    if (!under_mpirun())
        return body(argc, argv);
    mpi_keeper();
    /* SINGLE where one thread uses the backend (rank 0's watchdog is its
       keeper, another process: keeper.c) */
    int level = one_thread ? MPI_THREAD_SINGLE : MPI_THREAD_SERIALIZED;
    int prov = start(&argc, &argv, level);
    if (prov < 0) {
        fprintf(stderr, "collviz: MPI could not start this process of the "
                "job (MPI_Init_thread failed)\n");
        return 1;
    }
    if (mpi_world.rank != 0) {
        serve();
        if (mpi_world.broken)
            _exit(1);
        MPI_Finalize();
        return 0;
    }
    if (prov >= level)
        exec_provide(&exec_mpi_ops);
    signal(SIGTERM, on_term);
    int rc = body(argc, argv);
    fflush(NULL);
    if (mpi_world.broken) /* the others may be stuck in a step: no goodbye */
        _exit(rc ? rc : 1);
    MpiCmd quit = {.kind = MCMD_QUIT};
    MPI_Bcast(&quit, sizeof quit, MPI_BYTE, 0, mpi_world.ctl);
    MPI_Finalize();
    return rc;
}
