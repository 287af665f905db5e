/* calib.h - a calibration of the alpha-beta-gamma model for one backend
 * at one rank count: the parameters measured at several working-set sizes
 * ("footprints": the bytes of every rank's buffers together), and what
 * follows from them alone. Pure: no I/O, no globals. Measuring them is
 * measure/calib.h's; saving and loading them too.
 *
 * A prediction for a schedule is the backend's (ExecOps.predict, which
 * knows how the backend runs it: the threads backend walks the schedule
 * over its caches and memory) or, for a backend without one,
 * calib_model_cost: model.h's cost with calib_params at the schedule's
 * footprint. measure/calib.h's calib_predict picks between them. */
#ifndef COLLVIZ_CORE_CALIB_H
#define COLLVIZ_CORE_CALIB_H

#include "core/error.h"
#include "core/model.h"
#include "core/sched.h"

#define CALIB_MAX_POINTS 12 /* working-set sizes measured at most */
#define CALIB_UNSTEADY 3.0  /* Calib.unsteady above this: the machine's
                               speed moved during the calibration */
#define CALIB_NAME_LEN 32   /* bytes for a backend name */
#define CALIB_LAT_BYTES 8192 /* message size of the step latencies */
#define CALIB_HOST_LEN 128  /* bytes for a machine's fingerprint */

/* The values of a calibration a plausibility rule can refuse
 * (measure/calib.h: calib_check): a point's bandwidths and reduce rates,
 * then the calibration's own times. A value that a rule refused and that
 * was replaced is "derived" (Calib.derived, Calib.pt_derived: a bit
 * 1u << CalibValue each). */
typedef enum {
    CALIB_VAL_SHARED,      /* CalibPoint.beta_shared */
    CALIB_VAL_CROSS,       /* CalibPoint.beta_cross */
    CALIB_VAL_P2P,         /* CalibPoint.beta_p2p */
    CALIB_VAL_NET,         /* CalibPoint.beta_net */
    CALIB_VAL_REDUCE,      /* CalibPoint.gamma_shared */
    CALIB_VAL_PAIR_REDUCE, /* CalibPoint.gamma_p2p */
    CALIB_VAL_ALPHA,       /* Calib.alpha (the ones before are a point's) */
    CALIB_VAL_MSG,         /* Calib.alpha_msg */
    CALIB_VAL_LAT_STEP,    /* Calib.lat_step */
    CALIB_VAL_LAT_ITER,    /* Calib.lat_iter */
    CALIB_VAL_ALPHA_HOST,  /* Calib.alpha_host */
    CALIB_VAL_ALPHA_NET,   /* Calib.alpha_net */
    CALIB_VAL_COUNT
} CalibValue;

/* The rule a value broke (measure/calib.h says each one's why). */
typedef enum {
    CALIB_RULE_TIME,      /* a time not positive and finite (or, for an
                             increment, negative or not finite) */
    CALIB_RULE_REDUCE,    /* a reduce rate too far above the copy rate of
                             its working set */
    CALIB_RULE_BANDWIDTH, /* a bandwidth too far above the calibration's
                             typical copy rate */
    CALIB_RULE_COUNT
} CalibRule;

/* One value a rule refused, and what was kept instead. Bandwidths and
 * reduce rates in s/B as CalibPoint holds them, times in s. */
typedef struct {
    CalibValue what;  /* which value */
    int point;        /* its point (index into Calib.pt; -1: the
                         calibration's own times) ... */
    double footprint; /* ... and that point's footprint (B) */
    CalibRule rule;   /* the rule it broke */
    double first;     /* what was measured first (NAN: only once) */
    double measured;  /* what was measured (again, where first is set) */
    double ref;       /* what the rule compares it with: the copy rate of
                         the working set, or the median copy rate (s/B) */
    double limit;     /* the fastest the rule allows (s/B), or 0 */
    double saved;     /* what was kept instead */
    int from;         /* the point whose value was kept (-1: the rule's
                         limit or, for a time, its stand-in; -2: none
                         stands in, nothing is saved) ... */
    double from_footprint; /* ... and its footprint (B) */
} CalibRefusal;

#define CALIB_MAX_REFUSED (CALIB_MAX_POINTS * CALIB_VAL_ALPHA + \
                           CALIB_VAL_COUNT - CALIB_VAL_ALPHA)

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
    double beta_net;    /* s/B: rank 0 sending to a rank on another host
                           alone (0: the ranks ran on one host) */
} CalibPoint;

/* A calibration of one backend at one rank count. */
typedef struct {
    char backend[CALIB_NAME_LEN]; /* executor name, e.g. "threads" */
    char host[CALIB_HOST_LEN];    /* the machine it was measured on: its
                                     backend's fingerprint (ExecHost) */
    int nranks;                   /* ranks it was measured with */
    int cores;                    /* units that could run ranks at once
                                     then (ExecHost.cores: threads, the
                                     CPUs it may use; 0: unknown) */
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
    unsigned derived;             /* the times above that a plausibility
                                     rule refused and that were replaced
                                     by their stand-ins (1u << CalibValue) */
    unsigned pt_derived[CALIB_MAX_POINTS]; /* the same for each point's
                                     bandwidths and reduce rates */
    int nrefused;                 /* values refused when it was measured
                                     (not saved) ... */
    CalibRefusal refused[CALIB_MAX_REFUSED]; /* ... and each, in order */
    int drowned;                  /* bandwidths of the largest working set
                                     whose bytes drowned in its latency
                                     and are the whole step per byte, a
                                     lower bound (not saved) */
    MachineKind machine;          /* the machine it measured: MACHINE_NODES
                                     where its ranks ran on several hosts,
                                     else whichever of calib_fits' fitted
                                     best */
    MachineKind medium;           /* the memory machine its ranks share
                                     (MACHINE_GPU: slices of one device;
                                     MACHINE_HOST: a host's cores), whose
                                     level calib_mem_level gives; any
                                     other kind: none (files without it) */
    double cache;                 /* bytes of the cache the ranks' data
                                     passes through (ExecHost.cache_bytes;
                                     0: unknown) */
    double fit_err[MACHINE_KIND_COUNT]; /* worst |measured / model - 1| of
                                     each machine fitted (calib_fits) */
    int nodes, per_node;          /* the hosts its ranks ran on, where
                                     several: nodes of per_node ranks (0:
                                     one host) ... */
    int cyclic;                   /* ... dealt round them (mpirun's
                                     --map-by node), else in blocks */
    char level[2][MACHINE_NAME_LEN]; /* the names of the links within a
                                     host and between hosts (nodes; "":
                                     "host" and "net") */
    double alpha_host;            /* s per message between two ranks of one
                                     host alone (nodes; 0: alpha stands in) */
    double alpha_net;             /* s per message between two hosts alone
                                     (nodes) */
    int npoints;                  /* points used in pt[] */
    CalibPoint pt[CALIB_MAX_POINTS]; /* by increasing footprint */
    MachineSlow slowed;           /* what the run at hand runs slower
                                     (calib_straggler; never in a file) */
} Calib;

/* Make each gamma curve of c non-decreasing in footprint, the closest
 * such curve in least squares: reducing a larger working set never costs
 * less per byte, and gamma is the difference of two timings, so a point
 * below a smaller footprint's is noise, averaged with its neighbours.
 * calib_measure applies it. */
void calib_smooth(Calib *c);

/* Replace w[0..n) by the closest non-increasing sequence (least squares:
 * pool adjacent violators); calib_smooth's rule, and the threads
 * predictor's for its cache curve. */
void calib_monotone_down(double *w, int n);

/* The ratio of the largest to the smallest of v[0 .. n): 1 for one value,
 * 0 when n < 1 or a value is not positive (a timing that failed). */
double calib_spread(const double *v, int n);

/* Whether c's ranks outnumber the cores they ran on (when known): then
 * they take turns at the cores. */
int calib_crowded(const Calib *c);

/* The machines c is fitted to, into out[0 .. CALIB_MAX_FITS): `full`
 * and `bus`, its memory machine (Calib.medium) where calib_mem_level
 * gives one, and `nodes` where its ranks ran on several hosts. */
#define CALIB_MAX_FITS 4
int calib_fits(const Calib *c, MachineKind *out);

/* The level of c's memory machine (machine.h's MemLevel), or -1 where c
 * has none or did not measure beyond its cache:
 *  - step: the step latency (lat_step: the slope of a chain's time over
 *    its steps, less its messages' bytes; alpha where not measured);
 *    call: the rest of the chain's time (lat_iter);
 *  - the curve: at each point the traffic's rate (the shared copy's
 *    beta_shared, its step's time beyond the start per byte copied: a
 *    copy reads and writes, so half that per byte of traffic), leaving
 *    out points whose copy drowned in the start (calibrate gave them the
 *    next point's rate); on a host also one rank's (the point-to-point
 *    copy's), whose work a core does alone, and a fresh read's (the
 *    cross copy's: reading what another rank has just written);
 *  - beta_mem (beta_core, beta_fresh), beyond the curve: the median of those
 *    rates at footprints of at least 4 times the cache, never a point
 *    inside it (-1 when no point lies that far out);
 *  - shared reads; the copy-ins fused over the whole schedule.
 * gamma: what reducing costs beyond the reduce's extra operand read at
 * the traffic's rate (the shared reduce rate at `footprint` less that;
 * not below 0). */
int calib_mem_level(const Calib *c, double footprint, MemLevel *out,
                    double *gamma);

/* The parameters of the ranks' own links on machine k (MACHINE_BUS: the
 * shared ones, else the point-to-point ones) at a working set of
 * `footprint` bytes: beta and gamma interpolated linearly in
 * log(footprint) between the measured points, clamped at the ends. */
ModelParams calib_params(const Calib *c, MachineKind k, double footprint);

/* Machine k (one of calib_fits) as calibration c measured it, at a
 * working set of `footprint` bytes: `full` or `bus` of c's ranks with
 * calib_params' alpha, beta and gamma; `nodes` of c's hosts (a NIC
 * shared per host, ranks placed as they ran), its class "host" the
 * point-to-point bandwidth of two ranks of one host, "net" that of two
 * hosts (Calib.level names them), alpha the flat machines' and, on the
 * network, what a lone pair across the hosts took beyond one within. */
CvError calib_machine_of(const Calib *c, MachineKind k, double footprint,
                         Machine *out);

/* The machine c measured (c->machine), as calib_machine_of gives it. */
CvError calib_machine(const Calib *c, double footprint, Machine *out);

/* Bytes of every rank's buffers of schedule s together (sched_bytes). */
double calib_footprint(const Schedule *s);

/* Price the runs at hand slowed as *s says (what the backend was told to
 * run: ExecHost.slowed): a straggler's every message and every byte it
 * reduces, a slow pair's messages (machine_slow_apply); on the bus's
 * shared memory the work they do. */
void calib_straggler(Calib *c, const MachineSlow *s);

/* model.h's cost of s on machine k (calib_machine_of at its footprint),
 * in seconds: the prediction for a backend without a predictor of its
 * own; with a straggler (calib_straggler) that rank fixed slow. */
CvError calib_model_cost(const Calib *c, const Schedule *s, MachineKind k,
                         double *seconds);

#endif
