/* keeper.c - the process mpirun starts for each rank keeps the one that
 * does the work.
 *
 * mpirun reports a job whose process was killed (by the kernel's OOM
 * killer, by kill -9, by a crash that no handler catches) with that
 * process's status, 128 plus the signal, and the job's other processes
 * have no say. So the process mpirun starts forks before MPI starts: the
 * child does everything collviz-mpi does (MPI, the command, serving), the
 * parent, the keeper, only waits for it and passes on the signals it is
 * sent (mpirun's SIGTERM when it ends the job, job control). Where the
 * child ends by a signal the keeper did not pass on, the keeper exits 1:
 * mpirun then ends the job, rank 0 says so in one sentence, and the job's
 * status is 1. Rank 0's keeper says the sentence itself when rank 0's own
 * child died, after giving back the terminal the TUI may have held. The
 * child dies with its keeper (PR_SET_PDEATHSIG), so that a keeper killed
 * by mpirun leaves nothing behind. PMIx finds the child through the
 * environment it inherits, whichever process mpirun started. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "mpi/mpi_impl.h"

static volatile pid_t child;
static volatile sig_atomic_t passed[65];

/* The signals the keeper passes on to its child. */
static const int pass_on[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1,
                              SIGUSR2, SIGCONT, SIGTSTP, SIGALRM};

static void on_signal(int sig)
{
    if (sig > 0 && sig < (int)(sizeof passed / sizeof passed[0]))
        passed[sig] = 1;
    if (child > 0)
        kill(child, sig);
}

/* The terminal as the job found it. */
typedef struct {
    int fd;             /* /dev/tty, or -1 */
    struct termios was; /* its modes */
    pid_t fg;           /* its foreground process group */
} Tty;

/* What a terminal needs back after a TUI that could not restore it: mouse
 * reporting off, cursor visible, attributes reset, the normal screen, the
 * modes it had when the job started, and the foreground for the group
 * that had it (the TUI takes it: mpi_main.c). */
static void give_back_terminal(const Tty *t)
{
    struct termios now;
    static const char seq[] = "\033[?1000l\033[?1002l\033[?1006l\033[?25h"
                              "\033[0m\033[?1049l\r\n";
    if (t->fd < 0)
        return;
    signal(SIGTTOU, SIG_IGN); /* the keeper may be in the background */
    if (!tcgetattr(t->fd, &now) && (now.c_lflag != t->was.c_lflag ||
                                    now.c_iflag != t->was.c_iflag)) {
        ssize_t w = write(t->fd, seq, sizeof seq - 1);
        (void)w;
        tcsetattr(t->fd, TCSANOW, &t->was);
    }
    if (t->fg > 0 && t->fg != getpgrp() && tcgetpgrp(t->fd) == getpgrp())
        tcsetpgrp(t->fd, t->fg);
}

/* The keeper's life: wait for the child, then end as the run should. */
static _Noreturn void keep(bool rank0, const Tty *tty)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof pass_on / sizeof pass_on[0]; i++)
        sigaction(pass_on[i], &sa, NULL);
    int st = 0;
    pid_t got;
    while ((got = waitpid(child, &st, 0)) < 0 && errno == EINTR)
        ;
    if (got < 0)
        _exit(1);
    if (WIFEXITED(st))
        _exit(WEXITSTATUS(st));
    int sig = WTERMSIG(st);
    if (sig < (int)(sizeof passed / sizeof passed[0]) && passed[sig]) {
        /* mpirun or the user ended it through us: end the same way */
        signal(sig, SIG_DFL);
        raise(sig);
        _exit(128 + sig);
    }
    if (rank0) {
        give_back_terminal(tty);
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
    bool rank0 = r && !strcmp(r, "0");
    Tty tty = {.fd = rank0 ? open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
                           : -1};
    if (tty.fd >= 0 && tcgetattr(tty.fd, &tty.was)) {
        close(tty.fd);
        tty.fd = -1;
    }
    if (tty.fd >= 0)
        tty.fg = tcgetpgrp(tty.fd);
    fflush(NULL);
    pid_t keeper = getpid(), pid = fork();
    if (pid > 0) {
        child = pid;
        keep(rank0, &tty);
    }
    if (tty.fd >= 0)
        close(tty.fd);
    if (pid < 0) /* no keeper: the job runs as mpirun started it */
        return;
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    if (getppid() != keeper) /* the keeper died before prctl */
        _exit(1);
}
