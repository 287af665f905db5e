/* calib.h - calibration of the alpha-beta-gamma model for one executor:
 * micro-benchmarks run through the executor, predictions for schedules,
 * and the results saved per backend and rank count under the XDG cache
 * directory ($XDG_CACHE_HOME or ~/.cache)/collviz/.
 *
 * What is measured (with all ranks of the executor started):
 *  - alpha: the time per step of a schedule of one-element steps in which
 *    every rank sends to its right neighbour;
 *  - the message latency: what one more message of a rank adds to a step,
 *    from steps in which every rank sends one element to every other
 *    (p - 1 messages each, p > 2), beyond alpha: (t - alpha) / (p - 2).
 *    Threads take turns at the cores, so a step costs about one turn of
 *    every thread whatever its messages, and a message more only its
 *    flag; a process backend pays a whole latency per message;
 *  - the step latency: the same with messages of CALIB_LAT_BYTES, each
 *    step reading what the step before wrote on another rank, as the
 *    slope over the steps of a chain of them (less the messages' bytes);
 *    the rest of such a chain's time is the iteration's latency;
 *  - the shared bandwidth 1/beta: every rank copies n elements to its
 *    right neighbour in one step, all bytes together over the step's time;
 *    repeated, the readers find the data in their own caches (nobody
 *    writes it in between), so this is the speed of data a core holds;
 *  - the cross bandwidth: the same, but the ranks copy back and forth
 *    between two halves, so every step reads what another core has just
 *    written (its lines come from that core's cache or from memory, as in
 *    a ring or a tree, where a rank forwards what it has just received);
 *  - the point-to-point bandwidth: rank 0 copies n elements to rank 1
 *    while the others wait (rank 0 copies one element of its own, so
 *    that it does not push part of the transfer: plan_push_all);
 *  - gamma: what a reducing step costs beyond the same step copying, per
 *    byte reduced (all ranks at once for the shared model, a lone pair for
 *    the point-to-point one): where every rank has a core of its own, the
 *    difference of the two steps' times within the same runs (a spell of
 *    the machine slows both alike), otherwise of two benchmarks' times.
 * Bandwidths depend on whether the buffers fit the caches, so they are
 * measured at several working-set sizes ("footprints": the bytes of every
 * rank's buffers together); the predictions below read them as a curve.
 * Every measurement is taken in each of a few rounds and the median
 * kept: a machine slowed for a second or two spoils one round, and a
 * lucky moment does not become the model's idea of the machine. In a
 * full calibration each timing is also probed before and after
 * (ExecOps.probe; a quick one probes only at its ends) and taken again
 * while a probe ran more than PROBE_SLOWER times slower than the fastest
 * so far (Calib.retaken): a spell of the machine at half its speed lasts
 * longer than one timing's runs. gamma is
 * then made non-decreasing in footprint (calib_smooth).
 *
 * Predictions (calib_predict) under the two link models:
 *  - LINK_P2P: model_schedule_cost as model.h defines it (full duplex
 *    links, local copies free), with the lone pair's parameters;
 *  - LINK_SHARED: one memory system carries everything, as the ranks of
 *    one machine share it. A step costs alpha, and the message latency for
 *    each message beyond the first of the rank with the most (with
 *    messages of more than half CALIB_LAT_BYTES: at
 *    least the step latency for each round of receiving ranks the cores
 *    take turns at, and the iteration its latency once), plus every byte
 *    any transfer moves (local ones too: a
 *    rank copying its input into place uses the same memory; sources the
 *    step overwrites are copied aside first, as the executor does), plus
 *    every byte reduced anywhere times gamma. A byte's beta depends on
 *    where it is: the schedule is walked twice over one address space of
 *    every rank's buffers, and each byte is charged by its reuse distance
 *    (the bytes touched since it was last touched) on the curve the
 *    footprint ladder measured, between the cache's speed and memory's:
 *    the cross curve when another rank's core holds its line and the
 *    touch needs that core (a read of what that rank wrote, a write over
 *    what it read), the shared curve otherwise (and always where ranks
 *    outnumber cores: the cross benchmark then times the ranks' turns at
 *    the cores more than lines moving between caches).
 *    The cached part of a step's bytes is work for the cores of the ranks
 *    that move them (the destination, or for a pushed tail the source:
 *    plan_push_all), so a step only one rank works in is not spread over
 *    the others' cores; likewise its memory part takes at least the
 *    busiest rank's memory bytes at one core's rate (the point-to-point
 *    bandwidth of the largest working set: one core cannot keep as many
 *    lines in flight as all of them). Copies the executor streams
 *    (copy.h's rule) write to memory and leave the caches; the memory
 *    beta is a streamed copy's, and where the working set does not fit
 *    the last-level cache (as large as it or larger) a copy that is not
 *    streamed and writes to memory pays its destination twice, as the
 *    store reads the line first (measured: a 2-rank chain broadcast at
 *    64 MiB, 64 KiB copies, ran 1.4x the model without it; 4-rank
 *    collectives whose buffers come to exactly the cache's 32 MiB,
 *    1.3-1.8x). (model.h's
 *    shared model leaves local transfers free, charges only the largest
 *    reduction of one rank, and has one beta for every byte: none of that
 *    holds for cores that share caches and memory.)
 * Which link model fits is decided by measurement: schedules of the
 * registry (a tree broadcast and a ring allreduce) are timed and each
 * model's prediction compared with them; the smaller worst error wins.
 *
 * File I/O lives here (the library's only other is copy.c reading the
 * cache size from sysfs): this is the persistence module. Nothing is
 * printed. */
#ifndef COLLVIZ_CALIB_H
#define COLLVIZ_CALIB_H

#include "core/error.h"
#include "exec/exec.h"
#include "core/model.h"

#define CALIB_MAX_POINTS 12 /* working-set sizes measured at most */
#define CALIB_UNSTEADY 3.0  /* Calib.unsteady above this: the machine's
                               speed moved during the calibration */
#define CALIB_NAME_LEN 32   /* bytes for a backend name */
#define CALIB_LAT_BYTES 8192 /* message size of the step latencies */

/* Bandwidths and reduce costs measured at one working-set size. */
typedef struct {
    double footprint;   /* bytes of all ranks' buffers the benchmark used */
    double beta_shared; /* s/B: all ranks' bytes through one bandwidth */
    double beta_p2p;    /* s/B: one rank sending to one other alone */
    double gamma_shared;/* s/B: extra per byte reduced, all ranks busy */
    double gamma_p2p;   /* s/B: extra per byte reduced by a lone pair */
    double beta_cross;  /* s/B: all ranks' bytes when each reads what
                           another rank wrote the step before (0: not
                           measured; beta_shared stands in) */
} CalibPoint;

/* A calibration of one backend at one rank count. */
typedef struct {
    char backend[CALIB_NAME_LEN]; /* executor name, e.g. "threads" */
    int nranks;                   /* ranks it was measured with */
    int cores;                    /* CPUs the ranks could use then
                                     (exec_cpus; 0: unknown) */
    long long when;               /* seconds since the epoch */
    int quick;                    /* nonzero: the short calibration */
    double alpha;                 /* s per step of tiny messages */
    double alpha_msg;             /* s per message beyond a rank's first in
                                     a step (files without it: alpha) */
    double lat_step;              /* s per step in which every rank gets
                                     one message of CALIB_LAT_BYTES (0: not
                                     measured; alpha stands in) */
    double lat_iter;              /* s per iteration beyond its steps with
                                     such messages (returning: a rank waits
                                     for the readers of its buffers) */
    double unsteady;              /* the largest ratio, slowest to fastest,
                                     of one cross benchmark's rounds: how
                                     far the speed of reading what another
                                     rank has just written moved during the
                                     calibration (some virtual machines
                                     switch it 10x on their own; 0: not
                                     known) */
    double probe[2];              /* the cross-core probe (ExecOps.probe:
                                     fresh data's time over data written
                                     once) at the start and the end of the
                                     calibration; 0: not measured */
    double probe_clean[2];        /* the probe's time for data written
                                     once (ProbeResult.clean_s, seconds)
                                     then: the machine's speed; 0: not
                                     measured (files without it) */
    double state_ratio;           /* the state it measured in: the median
                                     ratio of every probe it took ... */
    double state_clean;           /* ... and the median clean time of
                                     those at its usual speed (s) */
    int state_probes;             /* how many probes (0: not known, as in
                                     files without it: then probe[] and
                                     probe_clean[] stand for the state) */
    int retaken;                  /* timings taken again because a probe
                                     around them ran slower than the
                                     machine's usual speed (not saved) */
    LinkModel link;               /* the link model that fitted best */
    double fit_err[LINK_COUNT];   /* worst |measured / model - 1| of each */
    int npoints;                  /* points used in pt[] */
    CalibPoint pt[CALIB_MAX_POINTS]; /* by increasing footprint */
} Calib;

/* How long to measure. */
typedef struct {
    int quick;        /* nonzero: fewer sizes and repetitions */
    double max_bytes; /* largest footprint to measure beyond the first
                         (0: no limit) */
} CalibOptions;

/* Called between measurements (done of total); may be NULL. Returning
 * nonzero cancels the calibration (CV_ERR_CANCELLED). */
typedef int (*CalibProgress)(void *ctx, int done, int total);

/* Measure on an open executor. Its schedules are the calibration's own,
 * gone afterwards: load another before stepping or running it. On an
 * executor error, `why` gets its sentence. */
CvError calib_measure(Executor *ex, const CalibOptions *o, Calib *out,
                      CalibProgress progress, void *ctx, char *why,
                      size_t whylen);

/* Make each gamma curve of c non-decreasing in footprint, the closest
 * such curve in least squares: reducing a larger working set never costs
 * less per byte, and gamma is the difference of two timings, so a point
 * below a smaller footprint's is noise, averaged with its neighbours.
 * calib_measure applies it. */
void calib_smooth(Calib *c);

/* The ratio of the largest to the smallest of v[0 .. n): 1 for one value,
 * 0 when n < 1 or a value is not positive (a timing that failed). */
double calib_spread(const double *v, int n);

/* The model parameters for link model l at a working set of `footprint`
 * bytes: beta and gamma interpolated linearly in log(footprint) between
 * the measured points, clamped at the ends (what a caller that only has
 * model.h's cost, such as the TUI, can use). */
ModelParams calib_params(const Calib *c, LinkModel l, double footprint);

/* Bytes of every rank's buffers of schedule s together. */
double calib_footprint(const Schedule *s);

/* Predicted seconds of schedule s under c with link model l (see above),
 * with calib_params at the schedule's footprint. */
CvError calib_predict(const Calib *c, const Schedule *s, LinkModel l,
                      double *seconds);

/* ---------------------------------------------------------- persistence */

/* The file of (backend, nranks): $XDG_CACHE_HOME/collviz/calib-B-pN.txt,
 * or $HOME/.cache/... when XDG_CACHE_HOME is unset, empty or not an
 * absolute path (the XDG rule). CV_ERR_IO when
 * neither variable gives a directory; CV_ERR_ARG when len is too small. */
CvError calib_path(const char *backend, int nranks, char *out, size_t len);

/* Write c to its file atomically (temporary file, then rename), creating
 * the directories. */
CvError calib_save(const Calib *c);

/* Read the calibration of (backend, nranks). CV_ERR_IO when there is none
 * or it cannot be read; CV_ERR_ARG when the file is malformed. */
CvError calib_load(const char *backend, int nranks, Calib *out);

#endif
