/* exec.h - the executor interface: one small table of operations that every
 * backend (threads, and later cuda and mpi) implements, so callers (perf,
 * calibrate, the TUI) never know which one runs.
 *
 * Life cycle: open (workers started, once) -> load (a schedule; buffers
 * sized for it and first touched by their owners; inputs filled) -> step /
 * run / read, any number of times, reset in between -> close.
 *
 * The interface is the same for every backend: what is particular to one
 * (its options, its waiting and copying policies, how it runs a schedule
 * and so how long one takes) stays behind it, in its folder: options come
 * as a string it parses (ExecOptions.params), and its predictor, its
 * machine's fingerprint and its library's own collectives are slots. */
#ifndef COLLVIZ_EXEC_H
#define COLLVIZ_EXEC_H

#include <stdatomic.h>
#include <stdbool.h>

#include "core/calib.h"
#include "core/sched.h"
#include "exec/probe.h"

typedef struct Executor Executor;

/* Options a caller may set; zeros are the defaults. */
typedef struct {
    int check_steps;    /* nonzero: keep per-step, per-rank end timestamps */
    const char *params; /* the backend's own options, "key=value,..." (what
                           follows NAME: in -B NAME:key=value,...), which
                           its open parses; NULL or "": its defaults */
    size_t unalign;     /* every rank's buffers start this many elements
                           past their allocation's aligned start
                           (nccl-tests' -u: the kernels' unaligned paths);
                           0: aligned */
} ExecOptions;

/* Timings of a timed run. */
typedef struct {
    double iter_s;    /* mean seconds per iteration (slowest rank) */
    double *step_s;   /* [nsteps] or NULL: mean seconds of each step, from
                         the slowest rank's end of step k-1 to its end of k */
    double *each_s;   /* [iters] or NULL: where the backend times each
                         iteration inside the loop (ExecOps.times_each),
                         each timed iteration's seconds, from the slowest
                         rank's end of the one before (the first: from the
                         loop's start) to the slowest rank's end of it; so
                         they sum to iters * iter_s */
} ExecTiming;

/* Facts about the machine a backend runs on. */
typedef struct {
    char fingerprint[CALIB_HOST_LEN]; /* one line that tells this machine
                                         from others for saved
                                         calibrations (threads: the CPU's
                                         model and the CPUs the process
                                         may use, "... x2"); "": unknown */
    int cores; /* units that run ranks at once (threads: the CPUs it may
                  use, exec_cpus); 0: unknown */
    char placement[400]; /* where the ranks run and how they reach each
                            other, one line for headers (cuda: "4 ranks
                            on 2 devices (0, 1), 2 each; peer access");
                            "": nothing to say beyond the fingerprint */
    int nodes;    /* hosts the ranks run on, where several and each runs
                     per_node of them (0: one host, or ranks spread in a
                     way no machine of nodes describes) ... */
    int per_node; /* ... ranks per host ... */
    int cyclic;   /* ... dealt round the hosts (rank r on host r mod
                     nodes: mpirun's --map-by node), else in blocks (rank
                     r on host r / per_node) */
    size_t cache_bytes; /* the cache the ranks' data passes through, all
                           of it, where the backend knows it (cuda: the
                           smallest L2 of its devices times the devices;
                           threads: the last-level cache); 0: unknown */
    MachineKind memory; /* the memory machine the ranks share where they
                           share one memory system (MACHINE_GPU: every
                           rank on one device; MACHINE_HOST: threads of
                           one process); MACHINE_FULL (0): they do not */
    char level[2][16]; /* with nodes: the names of the links within a
                          host and between hosts (mpi: "host", "net"; cuda,
                          whose hosts are its devices: "device", and "peer"
                          or "pinned": peer access or through pinned host
                          memory); "": those */
    bool altered;      /* the backend was told to run unlike the machine
                          (threads: slow=R:F), so what it measures is no
                          calibration of the machine: never saved */
    MachineSlow slowed; /* with altered: what runs slower (threads'
                           slow=R:F, link=A>B:F), priced as
                           calib_straggler says */
} ExecHost;

/* Where one rank runs, as nccl-tests' rank lines say it. */
typedef struct {
    long pid;        /* its process */
    char host[64];   /* the host's name (cut to 63 bytes) */
    char unit[128];  /* what runs it there: "cpu 3", "device 0 NVIDIA H100
                        80GB HBM3", "" where nothing is fixed */
} ExecRankWhere;

typedef struct ExecOps {
    const char *name;    /* "threads", "cuda", "mpi" */
    const char *summary; /* one line for lists and menus */
    /* Start a backend for nranks ranks. On CV_ERR_UNAVAILABLE or another
     * error, `why` gets one clear sentence (why it cannot run here); an
     * option in opt->params the backend does not have, or a value it
     * cannot take, is CV_ERR_ARG and a sentence that names the options it
     * has, before anything starts. */
    CvError (*open)(Executor **out, int nranks, const ExecOptions *opt,
                    char *why, size_t whylen);
    /* Bind schedule s (borrowed; must outlive the executor or the next
     * load), size the buffers for it and fill the inputs (data.h). */
    CvError (*load)(Executor *ex, const Schedule *s);
    /* Back to the state before step 0: inputs refilled, other elements
     * poisoned. */
    CvError (*reset)(Executor *ex);
    /* Execute step k on every rank and return when all are done. Steps
     * must be executed in order after a reset for results to be right. */
    CvError (*step)(Executor *ex, size_t k);
    /* Apply the op's final scaling (avg) to the outputs after the last
     * step; a no-op for other ops. */
    CvError (*finish)(Executor *ex);
    /* Run the whole schedule (steps and finish) `warmup` times untimed,
     * then `iters` times timed. Buffers end in an unspecified state. */
    CvError (*run)(Executor *ex, int warmup, int iters, ExecTiming *t);
    /* The least warmup with which run times the steps (ExecTiming.step_s)
     * on warmup passes of their own, outside the timed iterations; with
     * less it takes some timed iterations for them (the cuda backend, 2:
     * its stamped passes). 0: the steps are timed within the timed
     * iterations at no cost (threads, mpi). */
    int step_warmup;
    /* Nonzero: run fills ExecTiming.each_s where it is given (threads),
     * so that each iteration's time comes from the loop that gives the
     * mean; 0: a caller that wants them times one call per iteration. */
    int times_each;
    /* Optional (NULL: none; the threads backend has no library of its
     * own). The library's own collective for the loaded schedule's call
     * (ex->sched->call: kind, ranks, count, datatype, op, root, in place
     * or not), on the same ranks' buffers, timed as run times the
     * schedule: `warmup` untimed calls, then `iters` timed ones, t->iter_s
     * the mean seconds per call of the slowest rank; t->step_s, where
     * given, is left alone (a library call has no steps). As after run,
     * the buffers end in an unspecified state, but after reset and one
     * call (warmup 0, iters 1) the outputs hold the collective's result
     * and verify_output checks them. CV_ERR_UNAVAILABLE and a sentence in
     * why when the library cannot run this call here (a datatype or op it
     * lacks, fewer devices than ranks); other errors as run's. The cuda
     * backend's is NCCL's, the mpi backend's MPI's own collectives: perf's
     * row beside the schedules'. */
    CvError (*native)(Executor *ex, int warmup, int iters, ExecTiming *t,
                      char *why, size_t whylen);
    /* The name of native's row in perf's table and of its -a ("nccl",
     * "mpi"); NULL when native is. */
    const char *native_name;
    /* How native's calls are issued where it differs from run's, one line
     * for its row's header (cuda: NCCL's calls from the host each
     * iteration, where run launches one CUDA graph); NULL: nothing to
     * say. */
    const char *native_note;
    /* Copy elements [off, off + n) of rank r's buffer b into dst. */
    CvError (*read)(Executor *ex, int r, BufId b, size_t off, size_t n,
                    void *dst);
    /* How the ranks' cores read each other's data now (probe.h): the
     * time pulling data written once (clean_s), and pulling what another
     * core has just written over it (ratio), measured for a few
     * milliseconds between runs, so that perf and calibrate can tell
     * when the machine changed either speed under them. NULL when the
     * backend has no such measure; CV_ERR_UNAVAILABLE when it cannot take
     * it here. */
    CvError (*probe)(Executor *ex, ProbeResult *out);
    /* Optional (NULL: none). The seconds schedule s takes on this backend
     * under calibration c (measured on it) on its machine k (one of
     * calib_fits), predicted
     * from how the backend runs a schedule; called without an executor,
     * so that a saved calibration predicts on its own. Backends without
     * one get the plain model (calib_predict: calib_model_cost). */
    CvError (*predict)(const Calib *c, const Schedule *s, MachineKind k,
                       double *seconds);
    /* The machine ex runs on (ExecHost): calibrations take their cores
     * from it and are kept by its fingerprint, which must not change
     * while the machine does not, and must differ between machines whose
     * calibrations differ. Every backend has one (exec_host reads an empty
     * fingerprint where it has not). */
    void (*host)(Executor *ex, ExecHost *out);
    /* Optional (NULL: nothing per rank). Where rank r (0 <= r < nranks)
     * runs: its process, its host and the unit there (a pinned CPU, a
     * device), for the rank lines of perf's header. */
    void (*rank_where)(Executor *ex, int r, ExecRankWhere *out);
    /* Optional (NULL: calls run to their end). Ask ex to stop what it is
     * doing, from another thread: safe at any time between open and
     * close, also while the thread that owns ex is inside one of its
     * operations; it returns at once and never waits for them. The call
     * in progress returns CV_ERR_CANCELLED as soon as it can (a run
     * between two steps, a load or a reset between the parts of the
     * buffers it fills; a load's allocation, which cannot be cut cheaply,
     * finishes first), or, when no call is in progress or the one in
     * progress ends first, the next load, reset, step, finish, run,
     * native or read returns it at once. Each cancel is reported once:
     * that return clears it, and nothing is lost between two calls (a
     * caller that cancels while nothing runs gets it at its next call).
     * After CV_ERR_CANCELLED the buffers are in an unspecified state and,
     * after a load, nothing is loaded; a later reset or load makes ex
     * usable again. */
    void (*cancel)(Executor *ex);
    /* A sentence about the last error, or "" when there was none. */
    const char *(*last_error)(const Executor *ex);
    /* Stop the workers and free everything. */
    void (*close)(Executor *ex);
} ExecOps;

/* The longest sentence an executor keeps about its last error. */
#define EXEC_ERR_LEN 320

/* The part every backend's executor starts with (its first member), and
 * what the base's functions below keep alike for all of them: the error
 * sentence, the cancel, a backend that can run nothing more. */
struct Executor {
    const ExecOps *ops;    /* the backend's table */
    const Schedule *sched; /* the loaded schedule, or NULL */
    int nranks;            /* ranks the backend was opened for */
    bool dead;             /* nothing can run any more (a GPU's sticky
                              fault): every call fails at once, err says
                              why */
    atomic_int cancel;     /* a cancel was asked (ExecOps.cancel) and not
                              reported yet */
    char err[EXEC_ERR_LEN]; /* the last error's sentence, "" when none */
};

/* The base of a backend's executor for nranks ranks of ops. */
void exec_base_init(Executor *ex, const ExecOps *ops, int nranks);
/* The last error's sentence into ex->err (printf's format); returns e. */
CvError exec_fail(Executor *ex, CvError e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A cancel asked and not reported yet: reported now (CV_ERR_CANCELLED and
 * "WHAT was cancelled"), which clears it; else CV_OK. */
CvError exec_cancelled(Executor *ex, const char *what);
/* Whether a cancel was asked and not reported yet (from any thread). */
static inline bool exec_cancel_asked(Executor *ex)
{
    return atomic_load_explicit(&ex->cancel, memory_order_relaxed);
}
/* The guard at the start of an operation on the loaded schedule (`what`:
 * "the reset"): CV_ERR_BACKEND where ex is dead (its sentence kept),
 * CV_ERR_ARG where nothing is loaded, then a cancel (exec_cancelled);
 * else CV_OK. */
CvError exec_guard(Executor *ex, const char *what);
/* exec_guard for step k (`what`: "the step"), which must exist. */
CvError exec_guard_step(Executor *ex, size_t k, const char *what);
/* exec_guard for a timed run of `warmup` and `iters` iterations into t
 * (what: "the timed run"): at least one timed iteration, and a t. */
CvError exec_guard_run(Executor *ex, int warmup, int iters,
                       const ExecTiming *t, const char *what);
/* exec_guard for a read of elements [off, off + n) of rank r's buffer b,
 * which must be inside it. */
CvError exec_guard_read(Executor *ex, int r, BufId b, size_t off, size_t n);
/* ExecOps.cancel and ExecOps.last_error of every backend. */
void exec_base_cancel(Executor *ex);
const char *exec_base_last_error(const Executor *ex);

/* One option of a backend (ExecOptions.params, "-B NAME:key=value"):
 * a whole number from min to max into a long of the backend's options,
 * or what its own parse takes. */
typedef struct {
    const char *key;  /* as users type it */
    const char *unit; /* what the number counts ("microseconds") */
    long min, max;    /* its values */
    size_t off;       /* offsetof its long in the backend's options */
    /* Instead of a number (NULL: one): val into the options at opts;
     * false and a sentence in why when it is not one of its values. */
    bool (*parse)(void *opts, const char *val, char *why, size_t whylen);
} ExecParam;

/* Backend `name`'s options (ExecOptions.params, NULL or "": none) by its
 * table of n options into opts. CV_ERR_ARG and one sentence for an option
 * without '=' or too long, a key the table has not (naming those it
 * has), a number that is not a whole number from min to max, or a value
 * an option's parse refuses. */
CvError exec_params_parse(const char *name, const ExecParam *tab, size_t n,
                          const char *params, void *opts, char *why,
                          size_t whylen);

/* Backends known to this build, by name; NULL (and a sentence in why)
 * when the name is unknown or the backend is not built in. */
const ExecOps *exec_find(const char *name, char *why, size_t whylen);
/* The backend of a spec as users give it (-B): "NAME" or "NAME:PARAMS";
 * *params (params may be NULL) points at PARAMS within spec, or is NULL
 * without a ':'. NULL and a sentence in why as exec_find, or when
 * PARAMS is empty, has an empty option or gives a key twice. */
const ExecOps *exec_find_spec(const char *spec, const char **params,
                              char *why, size_t whylen);
/* Make ops the backend of its name from now on: a backend linked into
 * another binary than collviz (collviz-mpi's mpi, src/mpi/world.c) gives
 * its table here before the command runs. */
void exec_provide(const ExecOps *ops);
/* The next option of a backend's options string (ExecOptions.params) at
 * *at, which it advances past the option and its ','; empty options are
 * skipped. 0 at the end; 1 with the option's key and value copied into
 * key and val; -1 when it has no '=', or its key or value is longer than
 * klen - 1 or vlen - 1 (key then holds the option as given, cut). */
int exec_param_next(const char **at, char *key, size_t klen, char *val,
                    size_t vlen);
/* How many CPUs this process's ranks can run on at once: those it may
 * use (its affinity: taskset, cgroups' cpusets), else those online; at
 * least 1. The threads backend's pinning, push and eager decisions and
 * its cores (ExecHost) come from it. */
int exec_cpus(void);
/* Keep the calling thread on the k-th CPU (from 0) it may use now; false
 * when it may use fewer or the system does not say (Linux only). */
bool exec_pin(int k);
/* ex's machine (ExecOps.host); an empty fingerprint and 0 cores where
 * its backend does not say. */
ExecHost exec_host(Executor *ex);
/* Where rank r of ex runs (ExecOps.rank_where); false where its backend
 * does not say. */
bool exec_rank_where(Executor *ex, int r, ExecRankWhere *out);
/* The id of the k-th CPU (from 0) this process may use (what exec_pin(k)
 * pins to), or -1 where it may use fewer or the system does not say. */
int exec_cpu_id(int k);
/* This host's name into buf (cut to len - 1 bytes; "unknown host" where
 * the system does not say). */
void exec_host_name(char *buf, size_t len);
/* The loader reads LD_LIBRARY_PATH once, when the program starts, and an
 * empty or relative element of it (the common '/usr/local/cuda/lib64:'
 * with the variable empty before) names the current folder for every
 * library loaded later: a driver opened by its absolute path still takes
 * its own dependencies from there. Whether llp has such an element; and
 * llp without them into out (n bytes, at least strlen(llp) + 1). */
bool exec_libpath_unsafe(const char *llp);
void exec_libpath_clean(const char *llp, char *out, size_t n);
/* The machine the backend of spec (-B NAME[:PARAMS]) runs on, without an
 * executor at hand (model -B, calibrate --show): one is opened for nranks
 * ranks with spec's options (which checks them) and closed again. As
 * exec_find_spec and ExecOps.open on failure: an error and a sentence. */
CvError exec_host_of(const char *spec, int nranks, ExecHost *out, char *why,
                     size_t whylen);
/* Ask ex to stop (ExecOps.cancel; safe from any thread while ex is open);
 * nothing where its backend has no cancel. */
void exec_cancel(Executor *ex);
/* ex's probe (ExecOps.probe), or all zeros where its backend has none or
 * cannot take it here: perf and calibrate record it, neither needs it. */
ProbeResult exec_probe(Executor *ex);
/* The i-th backend known by name (built in or not); NULL past the end. */
const char *exec_name_at(size_t i);
/* Bytes of every rank's buffers of s together, plus `extra` (a backend's
 * own, such as stages); SIZE_MAX on overflow. */
size_t exec_bytes_needed(const Schedule *s, size_t extra);
/* CV_OK when exec_bytes_needed(s, extra) fits in this machine's physical
 * memory; else CV_ERR_NOMEM and a sentence in why. Backends check it
 * before allocating, and perf before it runs anything. */
CvError exec_check_fits(const Schedule *s, size_t extra, char *why,
                        size_t whylen);

#endif
