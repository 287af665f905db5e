/* sim.h - the symbolic executor.
 *
 * For every rank, buffer and element it tracks which ranks' inputs the
 * element holds (a rank set) and from which origin position in those
 * inputs. Executing a step follows the step semantics exactly (every read
 * sees the values from before the step). It detects reductions into empty
 * elements, of mismatched positions, and of a rank counted twice, and it
 * checks the final state against the collective's definition.
 *
 * Memory: per element of recv and tmp, 4 bytes of position plus
 * ceil(p/64) words of rank set. Send buffers are read-only (a write is an
 * error), so their state is implied: element i of rank r's send buffer is
 * input i of rank r, and costs no memory. No I/O, no globals. */
#ifndef COLLVIZ_SIM_H
#define COLLVIZ_SIM_H

#include "core/sched.h"

#define SIM_EMPTY (-1)  /* pos of an element that holds no input */
#define SIM_MIXED (-2)  /* pos after a reduction of mismatched positions */

typedef struct {
    const Schedule *sched; /* the schedule being executed (borrowed) */
    int nranks;            /* p */
    size_t words;          /* uint64 words per rank set: ceil(p / 64) */
    int32_t *pos[BUF_COUNT];   /* [buf][base[buf][r] + i]: origin pos
                                  (NULL for BUF_SEND: implied) */
    uint64_t *set[BUF_COUNT];  /* [buf][(base[buf][r] + i) * words]: ranks
                                  (NULL for BUF_SEND: implied) */
    size_t *base[BUF_COUNT];   /* [buf][r]: first element of rank r; [p]:
                                  elements of all ranks */
    uint64_t *single;      /* [r * words]: the set {r}, for send buffers */
    int fresh;             /* state is as allocated (zeroed) */
    size_t next_step;      /* steps executed so far */
    int32_t *stage_pos;    /* scratch for a step's source values */
    uint64_t *stage_set;   /* scratch for a step's source rank sets */
    size_t stage_cap;      /* elements the scratch holds */
    CvError err;           /* first error seen while executing */
    size_t err_step;       /* step of that error */
    size_t err_xfer;       /* transfer of that error */
} Sim;

/* Set up the initial state (inputs placed by coll_layout). */
CvError sim_init(Sim *sim, const Schedule *s);
void sim_fini(Sim *sim);
/* Back to the initial state. */
void sim_reset(Sim *sim);

/* Execute the next step; returns CV_OK, or the first error (also kept in
 * sim->err). Executing past the last step is CV_ERR_ARG. */
CvError sim_step(Sim *sim);
/* Reset and execute steps until next_step == k. */
CvError sim_seek(Sim *sim, size_t k);
/* Execute all remaining steps. */
CvError sim_run(Sim *sim);

/* Element i of rank r's buffer b: origin position (or SIM_EMPTY/MIXED). */
static inline int32_t sim_pos(const Sim *sim, int r, BufId b, size_t i)
{
    return b == BUF_SEND ? (int32_t)i : sim->pos[b][sim->base[b][r] + i];
}
/* Its rank set (sim->words words). */
static inline const uint64_t *sim_set(const Sim *sim, int r, BufId b,
                                      size_t i)
{
    if (b == BUF_SEND)
        return sim->single + (size_t)r * sim->words;
    return sim->set[b] + (sim->base[b][r] + i) * sim->words;
}
/* How many ranks contributed to it. */
int sim_nranks_in(const Sim *sim, int r, BufId b, size_t i);
/* Whether rank q contributed to it. */
static inline int sim_has(const Sim *sim, int r, BufId b, size_t i, int q)
{
    return (int)((sim_set(sim, r, b, i)[q / 64] >> (q % 64)) & 1u);
}

/* Check every rank's output against the collective's definition; returns
 * CV_OK or CV_ERR_WRONG and the first wrong (rank, element) in *bad_rank,
 * *bad_elem (either may be NULL). Counts wrong elements in *nwrong. */
CvError sim_check(const Sim *sim, int *bad_rank, size_t *bad_elem,
                  size_t *nwrong);

/* Whether element j of rank r's output holds its final value. */
int sim_is_final(const Sim *sim, int r, size_t j);

#endif
