/* algo.h - the registry of algorithm generators.
 *
 * A generator is a pure function from a problem (a call and the machine
 * it is for) to a Schedule. An algorithm made for a kind of machine (a
 * torus's, a node's) says with `fits` whether a machine is one; the
 * others fit every machine, and work for every p in 1..SCHED_MAX_RANKS
 * (non-powers of two included), any count >= 0 (counts p does not divide
 * included), any root, in place or not. Each entry carries its closed-form
 * alpha-beta-gamma cost. */
#ifndef COLLVIZ_ALGO_H
#define COLLVIZ_ALGO_H

#include "core/coll.h"
#include "core/machine.h"
#include "core/model.h"
#include "core/sched.h"
#include "core/sched_text.h"

/* The shape the TUI draws an algorithm's pattern of links in (on the
 * default machine; "topology" is the machine's, machine.h). */
typedef enum {
    SHAPE_RING,      /* ranks on a circle, neighbours linked */
    SHAPE_TREE,      /* rooted tree(s) */
    SHAPE_HYPERCUBE, /* partners at distance 2^k (butterfly, halving) */
    SHAPE_STAR,      /* one centre talks to everybody */
    SHAPE_CHAIN,     /* a line of ranks (pipelines) */
    SHAPE_FULL,      /* everybody talks to everybody */
    SHAPE_COUNT
} AlgoShape;

struct AlgoInfo;

/* The segments of an algorithm that cuts the vector into pieces. */
typedef struct {
    size_t now;        /* the segments it takes for the call */
    size_t now_bytes;  /* the segment size that rule aims at */
    size_t best;       /* the count whose closed form prices least */
    size_t best_bytes; /* the --segment that gives it */
} SegmentChoice;

/* What a generator is asked: the call, the machine it is for, and the
 * entry generating (for what a table row carries). */
typedef struct {
    const CollCall *call;        /* the call */
    const Machine *machine;      /* the machine (full when none is given) */
    const struct AlgoInfo *self; /* the entry asked */
    bool compact;                /* the compact form is welcome: a
                                    generator that repeats a shape may
                                    set Schedule.compact (sched_repeat) */
    bool reuse;                  /* the output holds a schedule whose
                                    arrays are reused (sched_reinit) */
} AlgoArgs;

typedef struct AlgoInfo {
    CollKind coll;           /* the collective it implements */
    const char *name;        /* canonical name, e.g. "ring" */
    const char *aliases;     /* other names, space separated, or "" */
    const char *summary;     /* one line for lists and the UI */
    const char *schedule;    /* the exact schedule in words: who sends
                                what to whom in each step, the partners'
                                order and direction, how ranks beyond a
                                power of two fold in (list -v, the man
                                page's Schedules) */
    const char *formula;     /* closed form in words, e.g. "2(p-1)a + ...";
                                for p a power of two where
                                formula_other is set */
    const char *formula_other; /* the closed form for p not a power of
                                  two where it differs, or NULL */
    const char *constraints; /* what it needs, e.g. "any p, any count" */
    AlgoShape shape;         /* how the TUI draws its links */
    /* Build the schedule for args->call into *out (sched_init is done by
     * the generator). Returns CV_OK or an error; *out is then empty. */
    CvError (*generate)(const AlgoArgs *args, Schedule *out);
    /* Whether args->machine is one the algorithm is made for; false and
     * one sentence in why when not. NULL: every machine. */
    bool (*fits)(const AlgoArgs *args, char *why, size_t whylen);
    /* Closed-form cost terms for call (alpha count, beta bytes, gamma
     * bytes, steps) on the machine full. */
    void (*cost)(const CollCall *call, CostTerms *out);
    /* The closed form on args->machine (one class of links, no hop
     * latency), for an algorithm whose schedule follows the machine's
     * shape; NULL: cost's on every machine it fits. */
    void (*cost_on)(const AlgoArgs *args, CostTerms *out);
    /* For an algorithm whose segments --segment sets (CollCall.segment):
     * its segments for call and the choice that minimises its closed form
     * at mp; false when it cuts nothing (one rank, no elements). NULL:
     * the algorithm takes no segment size. */
    bool (*segments)(const CollCall *call, const ModelParams *mp,
                     SegmentChoice *out);
    /* It cuts the vector into chunks pipelined through its steps, as
     * many as CollCall.segment (bytes of one chunk of the vector) makes
     * where set (the TUI's chunk knob draws them; --segment where
     * `segments` is set too). */
    bool pipelined;
    /* It cuts each block into this many parts that go their own ways
     * (torus_bidir's two halves, one each way round); a picture whose
     * blocks were fewer elements would not show them. 0: one. */
    int parts;
} AlgoInfo;

/* Number of registered algorithms, and the i-th (grouped by collective). */
size_t algo_count(void);
const AlgoInfo *algo_at(size_t i);

/* The closed form in words that a's cost follows on p ranks: formula,
 * or formula_other where p is not a power of two and a has one. */
const char *algo_formula(const AlgoInfo *a, int p);

/* For an algorithm that takes --segment (AlgoInfo.segments), one line in
 * words into buf: the segments it takes for call and the --segment that
 * minimises its closed form at mp. false (buf empty) for the others. */
bool algo_segment_text(const AlgoInfo *a, const CollCall *call,
                       const ModelParams *mp, char *buf, size_t len);

/* Find an algorithm of collective k by name or alias (case-insensitive). */
const AlgoInfo *algo_find(CollKind k, const char *name);
/* Find by name in any collective (for "does not fit" messages). */
const AlgoInfo *algo_find_any(const char *name);
/* The default algorithm of collective k. */
const AlgoInfo *algo_default(CollKind k);

/* Check the call (ranks, root) and generate for the machine full. */
CvError algo_generate(const AlgoInfo *a, const CollCall *call, Schedule *out);
/* The same for machine m (NULL: full): CV_ERR_ALGO with the sentence in
 * why (may be NULL) when the algorithm is not made for m, or m's ranks
 * are not the call's. */
CvError algo_generate_on(const AlgoInfo *a, const CollCall *call,
                         const Machine *m, Schedule *out, char *why,
                         size_t whylen);
/* How algo_generate_as builds. */
enum {
    ALGO_COMPACT = 1, /* the caller takes a compact schedule (Step), which
                         the algorithm gives where it repeats a shape */
    ALGO_REUSE = 2,   /* *out is a schedule made before (or zeroed) whose
                         arrays the new one reuses; free it with
                         sched_fini after the last */
};
/* The same, built as `how` (ALGO_*) says. Every generator takes up to
 * SCHED_MAX_RANKS ranks; the executors, the Sim and the TUI keep their
 * own limits (COLL_MAX_RANKS) and say so. */
CvError algo_generate_as(const AlgoInfo *a, const CollCall *call,
                         const Machine *m, unsigned how, Schedule *out,
                         char *why, size_t whylen);
/* Whether algorithm a is made for machine m (NULL: full), as above. */
bool algo_fits(const AlgoInfo *a, const CollCall *call, const Machine *m,
               char *why, size_t whylen);

/* An algorithm read from a schedule file (src/algos/file.c): an AlgoInfo
 * whose generator builds the file's schedule for a call it fits
 * (sched_text_fits); no closed form (cost NULL). */
typedef struct AlgoFile AlgoFile;
/* The file at path, its text (len bytes, collviz's format or MSCCL's
 * XML) read and checked element by element: CV_OK and *out, or the error
 * and one sentence in why starting with the path ("PATH:12: ..." where a
 * line is at fault). */
CvError algo_file_new(const char *path, const char *text, size_t len,
                      bool keep_wrong, AlgoFile **out, char *why,
                      size_t whylen);
/* With keep_wrong, a schedule that runs but is not its collective is
 * kept (for the TUI to show where it goes wrong): true, the step after
 * which the state is wrong and the sentence. False for any other. */
bool algo_file_wrong(const AlgoInfo *a, size_t *step, const char **why);
void algo_file_free(AlgoFile *f);
const AlgoInfo *algo_file_info(const AlgoFile *f);
/* The schedule text behind a, or NULL for a built-in algorithm. */
const SchedText *algo_file_text(const AlgoInfo *a);
/* The count a serves nearest `want` from below: want for a built-in; a
 * file's count, or the largest multiple of its parts (at least one). */
size_t algo_file_count(const AlgoInfo *a, size_t want);

/* Each family file exports a NULL-terminated table of its entries. */
extern const AlgoInfo *const algos_linear[];
extern const AlgoInfo *const algos_ring[];
extern const AlgoInfo *const algos_tree[];
extern const AlgoInfo *const algos_recursive[];
extern const AlgoInfo *const algos_torus[];
extern const AlgoInfo *const algos_switch[];
extern const AlgoInfo *const algos_nodes[];

#endif
