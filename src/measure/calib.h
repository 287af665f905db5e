/* calib.h - calibrating the alpha-beta-gamma model on an executor:
 * micro-benchmarks run through it (calib_bench.c), predictions for
 * schedules by the backend's predictor or the plain model, and the
 * results saved under the XDG cache directory (calib_file.c). The Calib
 * data and what follows from it alone are the core's (core/calib.h).
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
 *    that it does not push part of the transfer, as the threads backend's
 *    idle sources do);
 *  - gamma: what a reducing step costs beyond the same step copying, per
 *    byte reduced (all ranks at once for the shared model, a lone pair for
 *    the point-to-point one): where every rank has a core of its own, the
 *    difference of the two steps' times within the same runs (a spell of
 *    the machine slows both alike), otherwise of two benchmarks' times.
 * Bandwidths depend on whether the buffers fit the caches, so they are
 * measured at several working-set sizes ("footprints": the bytes of every
 * rank's buffers together); predictions read them as a curve.
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
 * Which machine fits is decided by measurement: schedules of the
 * registry (a tree broadcast and a ring allreduce) are timed and the
 * predictions on `full` and `bus` compared with them; the smaller worst
 * error wins. Where the backend's ranks run on several hosts
 * (ExecHost.nodes), the point-to-point pair is rank 0 and a rank of its
 * own host, and a second pair, rank 0 and a rank of another host, gives
 * the network's alpha and bandwidth; the machine is then `nodes`: each
 * host's ranks on a switch with the first pair's parameters, one NIC per
 * host on the network with the second's.
 *
 * Nothing is printed. */
#ifndef COLLVIZ_CALIB_H
#define COLLVIZ_CALIB_H

#include <stdio.h>

#include "core/calib.h"
#include "core/error.h"
#include "exec/exec.h"

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

/* Predicted seconds of schedule s under c on its machine k (one of
 * calib_fits; c->machine: the one it measured): the predictor of c's
 * backend (ExecOps.predict) where it has one, else the plain model
 * (calib_model_cost: model.h's cost on calib_machine_of at the schedule's
 * footprint). */
CvError calib_predict(const Calib *c, const Schedule *s, MachineKind k,
                      double *seconds);

/* ------------------------------------------------------- plausibility */

/* Rules from physics that every value of a calibration obeys, measured or
 * loaded (calib_rules.c). A value that breaks one is not believed: the
 * measurement takes it again once (calib_measure), and if it still breaks
 * the rule it is replaced (calib_amend), a sentence says so
 * (calib_refusal_text), and the replacement is marked derived. No file
 * holds a value that breaks a rule: calib_save refuses it, and calib_load
 * refuses a file that does. */

/* A reduce (dst = dst op src) reads one operand more than a copy
 * (dst = src), which reads one and writes one. gamma is what the reduce
 * costs beyond the copy; were the extra operand read at the copy's own
 * speed, that is half a copy, so the reduce rate (1 / gamma) is about
 * twice the copy rate of the same working set. Measured in memory: 2437 to
 * 2528 GB/s against 1366 on an H100, 52-90 against 24-29 GB/s on a
 * virtual machine's Xeon (bench/results). Inside the caches the extra
 * operand can come from a nearer cache than the copy's, and a copy that
 * allocates its destination's lines reads them too: the virtual machine's
 * quiet calibrations gave up to 7.8 times its copy rate (722 against 93
 * GB/s at 16 MB; one, 1746 against 114 at 256 kB, 15 times). 8 times
 * keeps the first and refuses the second; the 64 times an H100 gave
 * at 16 MB (87256 against 1366 GB/s) is the difference of two timings
 * lost in their noise, not a rate. */
#define CALIB_REDUCE_OVER_COPY 8.0

/* No bandwidth (shared, cross, point-to-point, network, at any working
 * set) is more than this many times the median of the calibration's copy
 * rates (all of them, every working set). Caches make small working sets
 * faster than memory: 123 against 18-23 GB/s (5-7 times) on the 2-core
 * virtual machine, 222 against 29 (7.7 times) on a larger one; the median
 * lies between, so a cache's rate is a few times the median. 16 leaves
 * twice that, and refuses the placeholder rates of 1e6 GB/s a calibration
 * of two hosts once saved. The median, not the largest: a wild value
 * would be its own largest copy rate, and half the rates must be wild
 * before the median is. */
#define CALIB_BW_OVER_MEDIAN 16.0

/* A machine fit whose worst error (Calib.fit_err of Calib.machine) is
 * above this is a poor fit: saved, but calibrate and calibrate --show say
 * so (a prediction off by more than half is no guide to which algorithm
 * wins). */
#define CALIB_POOR_FIT 0.5

/* Relative slack of the rules' comparisons: a value replaced by a rule's
 * limit is saved with 9 digits, and must still pass once read back. */
#define CALIB_RULE_SLACK 1e-6

/* The values of c that break a rule, into out[0 .. max) (first, from
 * and saved: NAN and -1, nothing replaced); returns how many break one
 * (which may be more than max). Times (alpha, the step latency, the pairs'
 * alphas) must be positive and finite, where 0 is not the file's "not
 * measured"; the increments (alpha_msg, lat_iter) not negative and finite;
 * a bandwidth at most CALIB_BW_OVER_MEDIAN times the median copy rate;
 * a reduce rate at most CALIB_REDUCE_OVER_COPY times the copy rate (shared
 * for the reduce, point-to-point for the pair reduce) of its working set. */
int calib_check(const Calib *c, CalibRefusal *out, int max);

/* Replace each value of c that breaks a rule, until none does, and list
 * each in c->refused (c->nrefused; first from first[0 .. nfirst) where
 * that list, calib_check's of an earlier measurement, has the same value):
 *  - a bandwidth or reduce rate by the same one at the next larger working
 *    set that obeys the rule here (caches only make a smaller working set
 *    faster, so this one's is at least that: the model stays on the safe
 *    side), else by the rule's limit;
 *  - alpha_msg by alpha, the step latency and alpha_host by 0 (alpha
 *    stands in), lat_iter by 0;
 * each marked derived (c->derived, c->pt_derived). Returns c->nrefused,
 * or -1 when alpha (or, on several hosts, alpha_net) breaks its rule:
 * nothing stands in for it, and c is not to be saved. */
int calib_amend(Calib *c, const CalibRefusal *first, int nfirst);

/* One sentence for refusal r of c into out: what was measured, why it is
 * not believable and, where r->saved is set, what was kept instead. */
void calib_refusal_text(const CalibRefusal *r, char *out, size_t len);

/* Whether c's machine fit is poor (its worst error above CALIB_POOR_FIT). */
int calib_poor_fit(const Calib *c);

/* The words that name value v in a file's "derived" lines ("reduce",
 * "lat_step", ...). */
const char *calib_value_key(CalibValue v);

/* ---------------------------------------------------------- persistence */

/* Calibrations are kept per backend, machine and rank count in the XDG
 * cache directory (store.h): calib-BACKEND-HASH-pRANKS.txt, HASH the eight
 * hex digits of the FNV-1a hash of the machine's fingerprint
 * (ExecHost.fingerprint, which the file records too: Calib.host), so that
 * machines sharing a home directory keep theirs apart. Files of collviz
 * before this format (calib-BACKEND-pRANKS.txt, version 3, no machine)
 * are never taken for this machine's: calib_load says they are older. */

/* The ranges of what a file may hold, wide enough for any machine, narrow
 * enough that every time computed from them is finite: a value outside is
 * refused, never used. */
#define CALIB_MAX_WHEN 253402300799LL /* s: 9999-12-31 23:59:59 UTC */
#define CALIB_MAX_CORES (1 << 20)     /* cores */
#define CALIB_MIN_SECONDS 1e-12       /* s: the least of them but 0 */
#define CALIB_MAX_SECONDS 1.0         /* s: alpha, the latencies, a probe's
                                         clean time (as --alpha's most) */
#define CALIB_MAX_RATIO 1e9           /* fit errors, probe ratios,
                                         unsteady */
#define CALIB_MAX_PROBES 8192         /* probes a calibration keeps (and
                                         counts) at most */
#define CALIB_MAX_FOOTPRINT 1e16      /* bytes of a point's working set */
#define CALIB_MIN_SPB 1e-15           /* s/B: a bandwidth of at most 1e6
                                         GB/s (as --beta's) ... */
#define CALIB_MAX_SPB 1e-3            /* ... and at least 1e-6 GB/s; gamma
                                         from 0 to this */

/* Whether name can be a backend's name in a file name: 1 to
 * CALIB_NAME_LEN - 1 letters, digits, '_' and '-' (never '', '.', '/'). */
int calib_backend_ok(const char *name);

/* Whether name can name a class of links of a calibration's machine
 * (Calib.level): 1 to MACHINE_NAME_LEN - 1 of the same characters. */
int calib_level_ok(const char *name);

/* The file of (backend, host, nranks), its full path in out. As
 * store_path: CV_ERR_IO when there is no directory for it, CV_ERR_ARG
 * when len is too small or backend is no name (calib_backend_ok), a
 * sentence in why either way. */
CvError calib_path(const char *backend, const char *host, int nranks,
                   char *out, size_t len, char *why, size_t whylen);

/* Write c to the file of (c->backend, c->host, c->nranks) atomically,
 * creating the directories (store_write) and removing what writers that
 * were killed left there (store_clean_stale); on failure the sentence in
 * why names the file and the cause. What is written is read back first:
 * a value calib_parse would refuse, or one that breaks a plausibility rule
 * (calib_check), is CV_ERR_ARG, and nothing is written. */
CvError calib_save(const Calib *c, char *why, size_t whylen);

/* Read the calibration of (backend, host, nranks) on this machine:
 *  - CV_OK;
 *  - CV_ERR_IO and why empty: there is none;
 *  - CV_ERR_ARG and a sentence: there is an older collviz's file for the
 *    backend and rank count (never read: it does not say which machine it
 *    was measured on), or the file was saved by another version, on
 *    another machine (a hash shared by two fingerprints), or calib_parse
 *    refuses it (the sentence gives its reason, and the file is set aside
 *    as FILE.bad: store_set_aside, which the sentence says), or a value
 *    of it breaks a plausibility rule (calib_check: the sentence says
 *    which and why; it is set aside too);
 *  - CV_ERR_IO and a sentence: the file cannot be opened (store_open: no
 *    permission, or not a regular file, such as a FIFO, which is never
 *    waited on); it is set aside too, and the sentence says so. */
CvError calib_load(const char *backend, const char *host, int nranks,
                   Calib *out, char *why, size_t whylen);

/* Read the calibration file at path whatever its machine, in this format
 * or version 3 (bench/remodel reads kept runs with it); *version gets the
 * file's. CV_ERR_ARG and a sentence when it is malformed; CV_ERR_IO as
 * store_open. */

/* Parse a calibration file's text from f, whatever bytes it holds, into
 * *out (untouched unless CV_OK); *version gets the format's version (0:
 * none; a newer one than this collviz's stops the reading). CV_ERR_ARG
 * and the reason in why when it is refused ("line 7: when
 * 99999999999999999 is out of range (0 to 253402300799 s)", "it has no
 * point line", "it was saved by a newer collviz ..."): every line known,
 * none but "point" twice, at most 511 bytes a line and 64 KiB in all, no
 * NUL byte, every value a plain decimal number in its range (CALIB_MAX_*),
 * footprints increasing, at most CALIB_MAX_POINTS points, format version
 * 3 or later. CV_ERR_IO when reading f failed. calib_read and calib_load
 * read files with it; tests/fuzz/fuzz_calib.c feeds it any bytes. */
CvError calib_parse(FILE *f, Calib *out, int *version, char *why,
                    size_t whylen);
CvError calib_read(const char *path, Calib *out, int *version, char *why,
                   size_t whylen);

#endif
