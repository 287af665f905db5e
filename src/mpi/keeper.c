/* keeper.c - the process mpirun starts for each rank keeps the one that
 * does the work.
 *
 * mpirun reports a job whose process was killed (by the kernel's OOM
 * killer, by kill -9, by a crash that no handler catches) with that
 * process's status, 128 plus the signal, and the job's other processes
 * have no say. So the process mpirun starts forks before MPI starts: the
 * child does everything collviz-mpi does (MPI, the command, serving), in
 * a process group of its own; the parent, the keeper, only waits for it
 * and passes on the signals it is sent (mpirun signals the keeper's
 * group: its SIGTERM when it ends the job, job control). Where the child
 * ends by a signal, whichever, the keeper exits 1: mpirun then ends the
 * job, rank 0 says so in one sentence, and the job's status is 1. Rank
 * 0's keeper says the sentence itself when rank 0's own child died, after
 * giving back the terminal where the TUI held it. On Linux the child dies
 * with its keeper (PR_SET_PDEATHSIG), so that a keeper killed by mpirun
 * leaves nothing behind. PMIx finds the child through the environment it
 * inherits, whichever process mpirun started.
 *
 * Rank 0's keeper is also the backend's watchdog: it looks every 50 ms at
 * the deadline rank 0 keeps in memory they share (MpiWatch, armed by
 * exec_mpi.c), and when an operation has made no progress for its
 * patience it says so in one sentence, ends the job's other working
 * processes on this host and its child (SIGKILL) and exits 1. A thread
 * of rank 0 would do the same, but a thread that only sleeps beside
 * rank 0's MPI calls slows them (a 64 MiB MPI_Bcast at 4 ranks on 2
 * cores: 27 ms instead of 16). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "exec/mono.h"
#include "mpi/mpi_impl.h"

MpiWatch *mpi_watch;

/* The child's pid while it runs (0 once it has been waited for). */
static volatile sig_atomic_t child;

/* The signals the keeper passes on to its child. */
static const int pass_on[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1,
                              SIGUSR2, SIGCONT, SIGTSTP, SIGALRM};

static void on_signal(int sig)
{
    int e = errno;
    if (child > 0)
        kill((pid_t)child, sig);
    errno = e;
}

/* The pass_on signals as a set. */
static sigset_t passed_set(void)
{
    sigset_t s;
    sigemptyset(&s);
    for (size_t i = 0; i < sizeof pass_on / sizeof pass_on[0]; i++)
        sigaddset(&s, pass_on[i]);
    return s;
}

/* The terminal as the job found it. */
typedef struct {
    int fd;             /* /dev/tty, or -1 */
    struct termios was; /* its modes */
    pid_t fg;           /* its foreground process group */
} Tty;

/* Where the child's TUI held the terminal (its group in the foreground)
 * and could not give it back: mouse reporting off, cursor visible,
 * attributes reset, the normal screen, the modes the job found, and the
 * foreground for the group that had it (mpi_main.c takes it). */
static void give_back_terminal(const Tty *t, pid_t group)
{
    static const char seq[] = "\033[?1000l\033[?1002l\033[?1006l\033[?25h"
                              "\033[0m\033[?1049l\r\n";
    if (t->fd < 0 || tcgetpgrp(t->fd) != group)
        return;
    signal(SIGTTOU, SIG_IGN); /* the keeper is in the background */
    ssize_t w = write(t->fd, seq, sizeof seq - 1);
    (void)w;
    tcsetattr(t->fd, TCSANOW, &t->was);
    if (t->fg > 0)
        tcsetpgrp(t->fd, t->fg);
}

/* Rank 0's keeper, when the watchdog's deadline has passed: the
 * sentence, the job's other working processes on this host and the child
 * ended, the terminal given back, status 1. */
static _Noreturn void hung(pid_t pid, const Tty *tty)
{
    signal(SIGPIPE, SIG_IGN); /* mpirun may have gone */
    fprintf(stderr, "collviz: %s on the mpi backend made no progress for "
            "%ld s: a process of the job hung, or its host or network "
            "stopped; the run stopped\n", mpi_watch->what,
            atomic_load(&mpi_watch->timeout_s));
    fflush(stderr);
    int n = atomic_load(&mpi_watch->nlocal);
    for (int i = 0; i < n && i < MPI_WATCH_PIDS; i++)
        kill((pid_t)mpi_watch->local_pids[i], SIGKILL);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    give_back_terminal(tty, pid);
    _exit(1);
}

static long long now_ns(void)
{
    return (long long)(mono_now_s() * 1e9);
}

/* Wait for the child's end into *st. Rank 0's keeper (watch) looks at
 * the watchdog's deadline every 50 ms meanwhile, except while the child
 * is stopped (job control: the TUI suspended), whose time it adds to the
 * deadline when the child goes on, as a thread of the stopped process
 * would not have counted it. */
static pid_t wait_child(pid_t pid, int *st, bool watch, const Tty *tty)
{
    int flags = watch ? WNOHANG | WUNTRACED | WCONTINUED : 0;
    long long stopped = 0; /* when the child stopped; 0: it runs */
    for (;;) {
        pid_t got = waitpid(pid, st, flags);
        if (got < 0 && errno == EINTR)
            continue;
        if (got > 0 && WIFSTOPPED(*st)) {
            stopped = now_ns();
            continue;
        }
        if (got > 0 && WIFCONTINUED(*st)) {
            if (stopped && atomic_load(&mpi_watch->deadline))
                atomic_fetch_add(&mpi_watch->deadline, now_ns() - stopped);
            stopped = 0;
            continue;
        }
        if (got != 0)
            return got;
        long long d = atomic_load(&mpi_watch->deadline);
        if (d && !stopped && now_ns() >= d)
            hung(pid, tty);
        nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
    }
}

/* The keeper's life: wait for the child, then end as the run should. The
 * pass_on signals are blocked on entry. */
static _Noreturn void keep(pid_t pid, bool rank0, const Tty *tty)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_mask = passed_set(); /* one at a time, in the order they came */
    for (size_t i = 0; i < sizeof pass_on / sizeof pass_on[0]; i++)
        sigaction(pass_on[i], &sa, NULL);
    child = (sig_atomic_t)pid;
    sigprocmask(SIG_UNBLOCK, &sa.sa_mask, NULL);
    int st = 0;
    pid_t got = wait_child(pid, &st, rank0 && mpi_watch, tty);
    sigprocmask(SIG_BLOCK, &sa.sa_mask, NULL);
    child = 0;
    if (got < 0)
        _exit(1);
    if (WIFEXITED(st))
        _exit(WEXITSTATUS(st));
    if (rank0) {
        int sig = WTERMSIG(st);
        give_back_terminal(tty, pid);
        signal(SIGPIPE, SIG_IGN); /* mpirun may have gone */
        fprintf(stderr, "collviz: the job's rank 0 was ended by signal %d "
                "(%s)\n", sig, strsignal(sig));
    }
    _exit(1);
}

void mpi_keeper(void)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r)
        r = getenv("PMIX_RANK");
    if (!r)
        r = getenv("PMI_RANK");
    bool rank0 = r && !strcmp(r, "0");
    Tty tty = {.fd = rank0 ? open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
                           : -1};
    if (tty.fd >= 0 && tcgetattr(tty.fd, &tty.was)) {
        close(tty.fd);
        tty.fd = -1;
    }
    if (tty.fd >= 0)
        tty.fg = tcgetpgrp(tty.fd);
    if (rank0) { /* the watchdog's state, shared with the child */
        void *w = mmap(NULL, sizeof *mpi_watch, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        mpi_watch = w == MAP_FAILED ? NULL : w;
    }
    /* an inherited SIGCHLD ignored would make waitpid fail */
    signal(SIGCHLD, SIG_DFL);
    sigset_t block = passed_set(), old;
    sigprocmask(SIG_BLOCK, &block, &old);
    fflush(NULL);
    pid_t keeper = getpid(), pid = fork();
    if (pid > 0)
        keep(pid, rank0, &tty);
    if (tty.fd >= 0)
        close(tty.fd);
    if (pid == 0) {
        setpgid(0, 0); /* signals reach it once: through the keeper */
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
        if (getppid() != keeper) /* the keeper died before prctl */
            _exit(1);
    }
    if (pid < 0 && mpi_watch) { /* no keeper: no watchdog */
        munmap(mpi_watch, sizeof *mpi_watch);
        mpi_watch = NULL;
    }
    /* the child, or no keeper (fork failed): the job runs as started */
    sigprocmask(SIG_SETMASK, &old, NULL);
}
