/* model.h - the cost of a schedule on a machine: one pricing rule for
 * every view.
 *
 * A step's messages (the transfers from one rank to another, taken
 * together) are routed over the machine's links (machine.h). A link's load
 * in the step is the messages M and bytes B of every transfer crossing it
 * (into a multicasting switch, copies of one source range enter once, as
 * one message). A message costs the slowest alpha load on its route,
 * max M alpha, plus the slowest byte load, max B beta, plus the hop
 * latencies it crosses; the step costs its slowest message plus gamma
 * times the most bytes one rank reduces. Local work (src == dst) crosses
 * no link: a local copy is free, a local reduce pays gamma. A reducing
 * switch also sums: a Schedule lets no two transfers of a step write one
 * range, so NVLS's load-reduce is copies into the owner's slots marked
 * XF_SWITCH, which leave the switch once into one rank (the first of a
 * size claims the link, the others merge), and its sums are local reduces
 * marked XF_SWITCH, free on a machine with such a switch.
 *
 * On the two flat machines this is the textbook alpha-beta-gamma model:
 *  - full (a port per rank, MACHINE_FULL): a step costs
 *      max(msgs_out, msgs_in) alpha + max(sent, recvd) beta + reduced gamma;
 *  - bus (one shared medium, MACHINE_BUS):
 *      max msgs alpha + (bytes moved by all ranks) beta + max reduced gamma.
 *
 * The steps add up in one of two modes (PricingMode):
 *  - lock-step (the default): every rank waits for the step's slowest
 *    message; the schedule's time is the sum of its steps' times;
 *  - data-flow (as MPI and NCCL run): each message keeps its lock-step
 *    price (the same link loads per step), and each rank r has a clock
 *    c[r], 0 at the start. A message of step k from s to d starts at
 *    max(c[s], c[d]) (the source has its data, the destination is free)
 *    and ends at its start plus its price; after step k,
 *      c'[r] = max(c[r], the latest end of r's messages in step k)
 *              + gamma times the bytes r reduces in step k,
 *    so a rank that takes no part keeps its clock. The schedule's time is
 *    the largest clock at the end. It never exceeds lock-step's (each
 *    clock stays within the steps' summed times) and equals it where every
 *    rank sends and receives alike in every step. A memory machine's steps
 *    have no messages: they stay lock-step, as does a compact schedule too
 *    large to write out (pricer_cost says which mode priced).
 * No I/O, no globals. */
#ifndef COLLVIZ_MODEL_H
#define COLLVIZ_MODEL_H

#include "core/machine.h"
#include "core/sched.h"

/* Machine parameters, in seconds and seconds per byte. */
typedef struct {
    double alpha; /* per message latency, s */
    double beta;  /* per byte transfer time, s/B */
    double gamma; /* per byte reduction time, s/B */
} ModelParams;

/* How a schedule's steps add up (above). */
typedef enum {
    PRICING_LOCKSTEP, /* the steps' times summed */
    PRICING_DATAFLOW, /* a clock per rank; the latest at the end */
    PRICING_COUNT
} PricingMode;

/* The mode's name ("lockstep", "dataflow"), and the mode of a name (-1:
 * none). */
const char *model_pricing_name(PricingMode mode);
int model_pricing_parse(const char *name);

/* A cost as coefficients: time = a alpha + b beta + g gamma. */
typedef struct {
    double a;     /* number of latencies on the critical path */
    double b;     /* bytes on the critical path */
    double g;     /* bytes reduced on the critical path */
    double steps; /* steps of the schedule */
} CostTerms;

static inline double cost_time(const CostTerms *c, const ModelParams *m)
{
    return c->a * m->alpha + c->b * m->beta + c->g * m->gamma;
}

/* A flat machine: MACHINE_FULL or MACHINE_BUS ("flat": one class of
 * links, every pair of ranks one hop or one medium apart). */
bool model_flat_kind(MachineKind k);

/* The flat machine of kind k (model_flat_kind) for p ranks under params
 * m (NULL: alpha = beta = gamma = 1, for terms); CV_ERR_ARG for another
 * kind. */
CvError model_flat_machine(Machine *mc, MachineKind k, int p,
                           const ModelParams *m);

/* Whether every message on m sees one alpha and one beta and no hop
 * latency (one class, or the bus's ports carrying only messages and its
 * medium only bytes): then a schedule's time is its summed terms' at *mp,
 * as closed forms add them, and the terms say it. */
bool model_machine_uniform(const Machine *m, ModelParams *mp);

/* The price of one step on a machine. */
typedef struct {
    double time;      /* seconds: slowest message plus reduce term */
    CostTerms terms;  /* its terms: the slowest message's messages (a) and
                         bytes (b) on its busiest links, the most bytes a
                         rank reduced (g); priced alone, each term's max */
    double copied;    /* most bytes a rank copied locally (free) */
    int busiest;      /* the link whose bytes took longest (-1: none) */
    double busiest_time; /* its bytes times its beta, s */
    int crit_src, crit_dst; /* the slowest message's ranks (-1: none) */
    double t_alpha;   /* its alpha part (messages on its busiest link), s */
    double t_beta;    /* its beta part (bytes on its busiest link), s */
    double t_lat;     /* its hops' latencies, s */
} StepPrice;

/* Scratch for pricing the steps of schedules on one machine: the links'
 * loads of the last step priced stay readable (bytes[i], msgs[i] for the
 * links in touched[0 .. ntouched), in no order). */
typedef struct {
    const Machine *m;   /* the machine */
    double *bytes;      /* [nlinks] bytes each link carried */
    int *msgs;          /* [nlinks] messages each link carried */
    int *touched;       /* links loaded in the last step */
    int ntouched;       /* how many */
    double *reduced;    /* [nranks] bytes each rank reduced */
    double *copied;     /* [nranks] bytes each rank copied locally */
    double *moved;      /* [nranks] bytes of traffic each rank's work
                           moved (a memory machine) */
    int *rtouched;      /* ranks with reduced or copied bytes in it */
    int nrtouched;      /* how many */
    int *cnt;           /* [nranks + 1] a sort's counts */
    Transfer *rot;      /* a repeated step's transfers rotated */
    size_t rot_cap;     /* transfers they hold */
    bool expand;        /* price spread steps written out, every link's
                           load kept (else by orbits where the machine
                           allows: the rank links' loads are then
                           orbit_bytes/msgs, the same at every rank, and
                           touched holds the links of the routes from
                           rank 0 with them) */
    bool orbits;        /* the last step was priced by its orbits */
    double orbit_bytes[2]; /* bytes on links 2 r + d of every rank r */
    int orbit_msgs[2];     /* messages on them */
    void *scratch;      /* pairs and merge keys of a step */
    size_t scratch_cap; /* transfers they hold */
    int *route;         /* [max hops] one route */
    int maxhops;        /* its size */
    unsigned char *hop_used; /* [max hops] a message added bytes there */
    int *routes;        /* the step's routes, one per pair of ranks */
    size_t nroutes;     /* links used in it */
    size_t routes_cap;  /* links allocated */
    /* a memory machine's view of the schedule it last priced: per
       transfer (written out), MEMX_SKIP where the copy-in fusion leaves
       it out, MEMX_STAGED where a write of its step overwrites its
       source, MEMX_FRESH where it reads what another rank wrote; and the
       bytes of its buffers (sched_bytes walks every rank's: once a
       schedule, not once a step) */
    unsigned char *memx;
    size_t memx_cap;
    double fp;
    const Schedule *view_of;  /* the schedule they describe ... */
    size_t view_n, view_count; /* ... its transfers and count then (a
                                  stale view is rebuilt: pricer_cost
                                  always does) */
    PricingMode mode;   /* how pricer_cost adds the steps up (0:
                           lock-step) */
    PricingMode priced; /* how the last pricer_cost did */
    bool flowing;       /* price_step moves the data-flow clocks
                           (pricer_flow_start) */
    double *clock;      /* [nranks] each rank's data-flow clock, s */
    double *flow_end;   /* [nranks] the latest end of its messages in the
                           step being priced (-1: none yet) */
    double flow_time;   /* the largest clock: the time so far, s */
    struct PricerLines *lines; /* model_lines.c's tables and entries */
    int sym;            /* the dimensions the step being priced is the
                           same along (model_sym.c; 0: none) */
    struct PricerSym *sym_tab; /* model_sym.c's scratch */
    bool lean;          /* only prices are read (pricer_cost): a step
                           priced by its structure (pricer_lines_rep)
                           leaves out the links' loads and the slowest
                           message's ranks, one alike along dimensions
                           (pricer_sym_step) keeps loads and the busiest
                           link at one link of each orbit */
} Pricer;
typedef struct PricerLines PricerLines;

#define MEMX_SKIP 1   /* a copy-in no one needs (sched_fuse_map) */
#define MEMX_STAGED 2 /* its source is staged first (sched_validate) */
#define MEMX_FRESH 4  /* it reads, from another rank, a buffer of that
                         rank's that an earlier step of the call wrote */

CvError pricer_init(Pricer *pr, const Machine *m);
void pricer_fini(Pricer *pr);

/* The parts of the pricing that model.c (the links) and model_mem.c (a
 * memory machine's steps) share; no one else calls them. Room for n
 * pairs and 2n claims in pr->scratch (2 spans a transfer); forget the
 * last step's loads; add local work to rank r's reduced, copied or moved
 * bytes (at); note link l as loaded before its first bytes; price the
 * transfers xs[0 .. nx) of a step of s on a memory machine (first: the
 * call's first step, which pays its start). */
CvError pricer_scratch_fit(Pricer *pr, size_t n);
/* The data-flow clocks (pr->flowing): a message from src to dst of price
 * t (seconds) in the step starts when both ranks' clocks have reached
 * it; once the step's messages are in, each rank that took part
 * (pricer_flow_rank, again for one settled: nothing) moves its clock to
 * its messages' latest end plus its reducing. */
void pricer_flow_message(Pricer *pr, int src, int dst, double t);
void pricer_flow_rank(Pricer *pr, int r);
void pricer_clear_loads(Pricer *pr);
void pricer_rank_work(Pricer *pr, double *at, int r, double bytes);
void pricer_touch(Pricer *pr, int l);
CvError pricer_memory_step(Pricer *pr, const Schedule *s, const Transfer *xs,
                           size_t nx, bool first, bool terms_only,
                           StepPrice *out);

/* model_lines.c: a compact schedule's repeated entry whose transfers
 * each go from a rank to its next or previous along the entry's cycles
 * (Step.cyc, or a rotation's), where no two of those messages could share
 * a link, priced by the classes of its routes: *done and *out, the
 * general rule's price bit for bit, in a few operations a repetition
 * (the links' loads too unless pr->lean; while pr->flowing, every
 * message on the data-flow clocks at that price); else *done false (not
 * such an entry, or two classes tie on time with other terms).
 * CV_ERR_NOMEM. */
CvError pricer_lines_rep(Pricer *pr, const Schedule *s, size_t k, size_t j,
                         bool terms_only, StepPrice *out, bool *done);
/* Whether entry k of s is priced so, and then the work all its
 * repetitions take (model_price_work's units). */
bool pricer_lines_work(Pricer *pr, const Schedule *s, size_t k,
                       double *work);
/* Every link's bytes over all the repetitions of such an entry k (where
 * pricer_lines_work says so), added to tot[nlinks], as the loads its
 * repetitions priced one by one add up (CV_ERR_ARG for another entry;
 * CV_ERR_NOMEM). */
CvError pricer_lines_links(Pricer *pr, const Schedule *s, size_t k,
                           double *tot);
/* Forget the entries of the schedule priced last (its tables stay);
 * free everything. */
void pricer_lines_forget(Pricer *pr);
void pricer_lines_free(Pricer *pr);

/* model_sym.c: where pr->lean and not data-flow, on a machine whose
 * dimensions a move of every rank one place along maps onto itself (a
 * torus, nodes; a mesh for messages that do not move along that
 * dimension), pr->sym gets the dimensions along which the step's
 * transfers xs[0 .. nx) are the same: its messages are then priced by
 * those of the ranks with coordinate 0 in them (pricer_sym_rep), each
 * link's load kept at the one of its orbit that pricer_sym_route names.
 * CV_ERR_NOMEM. */
CvError pricer_sym_step(Pricer *pr, const Transfer *xs, size_t nx);
bool pricer_sym_rep(const Pricer *pr, int r);
void pricer_sym_route(const Pricer *pr, int *route, int hops);
void pricer_sym_free(Pricer *pr);

/* Start pricing s in `mode`: the data-flow clocks at 0 and pr->flowing
 * set where data-flow can price s on pr's machine (not a memory machine;
 * a compact schedule only where its repetitions written out come to
 * MODEL_MAX_PRICE_WORK at most). Returns the mode that prices. While
 * pr->flowing, each price_step(_rep) of s that prices times (not
 * terms_only) moves the clocks by one step, written out (never by
 * orbits), and pr->flow_time is the time so far: price every repetition
 * of every entry, in order. */
PricingMode pricer_flow_start(Pricer *pr, const Schedule *s,
                              PricingMode mode);

/* The data-flow clocks of s (written out, s's ranks pr's machine's) after
 * each step, in `mode`: at[k * nranks + r] is rank r's clock once step k
 * is done, lock[k] the lock-step time at the end of step k (steps 0 .. k
 * summed), for k < s->nsteps. *priced says which mode priced
 * (pricer_flow_start); where lock-step, every clock is lock[k]. A rank
 * whose clock after step k - 1 is below lock[k - 1] starts step k ahead
 * of lock-step. CV_ERR_ARG for a compact schedule or another rank
 * count. */
CvError pricer_flow_clocks(Pricer *pr, const Schedule *s, PricingMode mode,
                           double *at, double *lock, PricingMode *priced);

/* Price step k of s on pr's machine (whose rank count must be s's);
 * `terms_only`: the terms are each term's maximum over messages (what
 * closed forms describe) and time is left 0. */
CvError price_step(Pricer *pr, const Schedule *s, size_t k, bool terms_only,
                   StepPrice *out);
/* The same for repetition j of entry k of a compact schedule (Step; j = 0
 * is price_step's). */
CvError price_step_rep(Pricer *pr, const Schedule *s, size_t k, size_t j,
                       bool terms_only, StepPrice *out);

/* The whole schedule: the sum of its steps (seconds, and terms as
 * price_step gives them, summed; steps counts those that move bytes
 * between ranks). seconds may be NULL. A compact schedule's repeated
 * entry is priced once on a machine that rotation maps onto itself
 * (machine_shift_invariant), each repetition on another. */
CvError model_machine_cost(const Schedule *s, const Machine *m,
                           bool terms_only, CostTerms *out, double *seconds);

/* The work pricing s on m takes: the transfers it looks at (a repeated
 * entry's once on a machine that rotation maps onto itself, a spread one
 * by its orbits there, each repetition written out elsewhere), each with
 * the links its route crosses (the mean of a sample: routing is the cost),
 * so 1 + hops each. */
double model_price_work(const Schedule *s, const Machine *m);
/* The most of it pricer_cost takes (a ring on a torus of 16384 ranks
 * would be 1e9: minutes; an all-to-all on torus:64x64 3e8); beyond, it
 * fails with CV_ERR_LIMIT. */
#define MODEL_MAX_PRICE_WORK ((double)(1 << 26))

/* model_price_work's on pr's machine, an entry that pricer_lines_rep
 * prices at its work there. */
double pricer_price_work(Pricer *pr, const Schedule *s);

/* The same on pr's machine, with pr's scratch (for many schedules), in
 * pr->mode: data-flow's seconds where it can price (not terms_only, not a
 * memory machine, a compact schedule written out within
 * MODEL_MAX_PRICE_WORK), else lock-step's; pr->priced says which. The
 * terms are lock-step's either way. */
CvError pricer_cost(Pricer *pr, const Schedule *s, bool terms_only,
                    CostTerms *out, double *seconds);

/* Cost terms of a schedule on the flat machine k, summed over its steps.
 * With m, each step contributes the terms of its slowest rank under m, so
 * cost_time(out, m) is the schedule's predicted time. With m == NULL each
 * term is the maximum over ranks taken separately (what closed forms
 * describe). */
CvError model_schedule_cost(const Schedule *s, MachineKind k,
                            const ModelParams *m, CostTerms *out);

/* The terms step k adds on flat machine f under m (as model_schedule_cost
 * adds them),
 * and in *copy the bytes the busiest rank copies locally when the step
 * moves nothing between ranks (a local-only step, such as a copy-in:
 * free in the terms, priced by whoever knows the copy bandwidth). */
CvError model_step_cost(const Schedule *s, size_t k, MachineKind f,
                        const ModelParams *m, CostTerms *out, double *copy);

/* Time of one step k of a schedule (seconds) on flat machine f under m. */
double model_step_time(const Schedule *s, size_t k, MachineKind f,
                       const ModelParams *m);

/* Lower bound (Chan et al. 2007) for the call: ceil(log2 p) alpha and the
 * least bytes any algorithm must move and reduce per rank. */
void model_lower_bound(const CollCall *c, CostTerms *out);

/* The least time any schedule of c can take on machine m (seconds), or
 * false where there is no honest bound (a switch that sums, a bus of
 * unequal parameters):
 *  - full and bus of one alpha, beta and gamma: model_lower_bound's;
 *  - a memory machine: where some output element must be written, a
 *    call's and a step's start and the writes at the fastest rate a
 *    schedule's buffers can see (every output element not already
 *    holding its value, in place);
 *  - a network: a rank's L links (one a switch, two a ring's line, d - 1
 *    a fully connected one's) reach L + 1 times as many ranks a step, at
 *    the least alpha, and carry its bytes L at a time at the least beta:
 *    ceil(log_(L+1) p) alpha + b beta / L + g gamma with Chan et al.'s
 *    b and g. */
bool model_machine_bound(const CollCall *c, const Machine *m,
                         double *seconds);

/* ceil(log2(p)) for p >= 1. */
int model_log2_ceil(int p);

#endif
