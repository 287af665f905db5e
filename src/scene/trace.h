/* trace.h - a scene's trace, what `collviz trace` and the lessons'
 * checks share: cmd/cmd_trace.c (options, the schedule and its symbolic
 * state, totals, the driver), trace_text.c and trace_json.c (the two
 * renderings, and trace_fits, the bound every caller checks first). */
#ifndef COLLVIZ_TRACE_H
#define COLLVIZ_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algos/algo.h"
#include "scene/spec.h"
#include "store/json.h"
#include "store/sink.h"
#include "core/model.h"
#include "core/sched.h"
#include "core/sim.h"

/* The symbolic state is tracked when it needs at most this many bytes. */
#define TRACE_SIM_LIMIT (1ull << 30)
/* The most elements of every rank's send and receive buffers together a
 * trace takes (a bit each to validate: 512 MiB at most, seconds); a call
 * beyond is refused before anything is generated (exit 2). */
#define TRACE_MAX_CELLS (1ull << 32)

/* Whether trace can follow call c (of `bytes`, for the sentence) within
 * TRACE_MAX_CELLS: 0, or -1 and the sentence trace refuses it with. A
 * lesson's scene is checked by the same rule. */
int trace_fits(const CollCall *c, unsigned long long bytes, CliErr *e);

/* Consecutive steps of one phase, for the summary. */
/* What --export writes. */
enum { TRACE_EXPORT_NONE, TRACE_EXPORT_TEXT, TRACE_EXPORT_MSCCL };

typedef struct {
    const char *phase;  /* their label */
    size_t first;       /* the first step (0-based) */
    size_t steps;       /* how many */
    size_t transfers;   /* transfers in all */
    double time;        /* their model time, s */
    double worst;       /* the slowest step's, s */
} TracePhase;

/* Above this many ranks trace summarises by default (--steps lists). */
#define TRACE_LIST_RANKS COLL_MAX_RANKS

/* Everything one trace needs. */
typedef struct {
    CollCall call;           /* the call traced */
    const AlgoInfo *algo;    /* its algorithm */
    SpecModel model;          /* model parameters */
    Machine mach;            /* the machine it is priced on (-T, else the
                                flat one of --link) */
    bool topo_given;         /* -T named it */
    bool links;              /* --links: every link's bytes per step */
    PricingMode pricing;     /* --pricing: how the steps add up */
    bool pricing_given;      /* --pricing named it (the header says) */
    PricingMode priced;      /* the mode that prices (pricer_flow_start:
                                data-flow moves pr's clocks) */
    Pricer pr;               /* prices each step on mach */
    StepPrice sp;            /* the step just priced; pr keeps its loads
                                (with --links, touched by link number) */
    double *link_total;      /* [mach.nlinks] bytes each link carried */
    double seconds;          /* the steps' times so far (lock-step) */
    CostTerms terms;         /* the steps' terms so far */
    bool json;               /* JSON instead of text */
    int export;              /* --export: the schedule itself
                                (TRACE_EXPORT_*) */
    bool full;               /* every rank's cells after every step */
    bool cells;              /* the symbolic state is tracked */
    double sim_bytes;        /* bytes the symbolic state needs */
    bool summary;            /* phases and totals, no step list */
    bool checked;            /* the schedule was validated (at most
                                COLL_MAX_RANKS ranks; above, it is
                                generated compact and priced only) */
    size_t nsteps;           /* steps the schedule stands for */
    const char *cur_phase;   /* the step being written: its phase, */
    const Transfer *cur;     /* its transfers */
    size_t ncur;             /* (how many) */
    size_t cur_first;        /* and its first's index, when the schedule
                                is written out */
    Transfer *rot;           /* a repeated entry's transfers rotated */
    size_t rot_cap;          /* transfers they hold */
    TracePhase *phases;      /* the steps by phase */
    size_t nphases;          /* how many */
    size_t cap_phases;       /* allocated */
    Schedule s;              /* the generated schedule (compact above
                                COLL_MAX_RANKS ranks) */
    SchedCheck chk;          /* what the validator found */
    Sim sim;                 /* the symbolic state (when cells) */
    Sink *out;               /* where the trace goes (stdout) */
    JsonWriter js;           /* the JSON document on out (with json) */
} Trace;

/* A run of consecutive cells holding one rank set at consecutive origin
 * positions (or all empty). */
typedef struct {
    size_t off;          /* first cell */
    size_t n;            /* cells */
    int32_t pos;         /* origin position of the first cell, or SIM_EMPTY,
                            SIM_MIXED */
    const uint64_t *set; /* the rank set all cells share */
} CellRun;

/* Totals of the whole schedule, for both renderings. */
typedef struct {
    SchedTotals st;     /* steps, transfers, bytes */
    size_t *sent;       /* [rank] bytes sent */
    size_t *recvd;      /* [rank] bytes received */
    CostTerms cost;     /* model cost of the schedule on the machine */
    double seconds;     /* its time: the sum of the steps' (lock-step) or
                           the latest rank's clock (data-flow) */
    int wire_link;      /* the link that carried most bytes in all (-1) */
    double wire_bytes;  /* those bytes */
    CostTerms closed;   /* the algorithm's closed form */
    CostTerms bound;    /* the lower bound */
    CvError sim_err;    /* first error of the symbolic run */
    CvError check;      /* final state against the definition */
    size_t nwrong;      /* wrong output elements */
    int bad_rank;       /* first wrong rank */
    size_t bad_elem;    /* its first wrong element */
} Totals;

/* What a rendering writes at each point of the trace, on t->out. */
typedef struct {
    void (*begin)(Trace *t);           /* the call, buffers, model, initial
                                          cells */
    void (*step)(Trace *t, size_t k);  /* step k, after it was executed:
                                          t->cur holds its transfers (not
                                          called with summary) */
    CvError (*end)(Trace *t, const Totals *to); /* final cells, totals,
                                          check; a write error of the
                                          rendering's own (the sink's are
                                          the driver's to check) */
} TraceWriter;

extern const TraceWriter trace_text; /* trace_text.c */
extern const TraceWriter trace_json; /* trace_json.c (docs/trace-json.md) */

/* The run starting at cell i of rank r's buffer b, ending before `end`. */
CellRun trace_next_run(const Sim *sim, int r, BufId b, size_t i, size_t end);
/* The next range [*lo, *hi] of ranks in a set at or after `from`. */
bool trace_set_range(const uint64_t *set, size_t words, size_t from, int *lo,
                     int *hi);
/* Link l as "r0->r1 (x)". */
void trace_link_name(const Trace *t, int l, char *buf, size_t len);
/* The time of cost terms c under the trace's model parameters (a flat
 * machine's own where -T gives one: full,alpha=5us prices at 5 us). */
double trace_time_of(const Trace *t, const CostTerms *c);

#endif
