/* verify.c - real buffers against the symbolic state or the definition. */
#include "exec/verify.h"

#include <stdlib.h>
#include <string.h>

#include "core/data.h"

/* Elements read and compared at a time: large enough that a read from
 * a GPU is one copy of a useful size (4096 took a 4-rank check of 256 MiB
 * 16384 copies a rank). */
#define VCHUNK 65536

/* Scratch and state of one comparison. */
typedef struct {
    Executor *ex;         /* where the buffers are read */
    const CollCall *c;    /* the call of the loaded schedule */
    size_t es;            /* bytes per element */
    unsigned char *got;   /* a chunk's elements read from the executor */
    unsigned char *want;  /* a chunk's expected elements */
    unsigned char *scratch; /* a chunk's elements for data_fill_expect */
    uint64_t *set;        /* a rank set, `words` words */
    size_t words;         /* uint64 words per rank set */
    VerifyReport *rep;    /* the counts and the first wrong element */
    /* What `want` holds when it holds one run of the definition: the
     * ranks and positions of verify_output's last chunk (have_want). */
    bool have_want;
    CollExpect want_e;
    size_t want_n;
} Verifier;

/* The scratch holds chunks of `most` elements, VCHUNK at most: a small
 * call allocates what it reads, not a chunk's worth of megabytes. */
static CvError verifier_init(Verifier *v, Executor *ex, VerifyReport *rep,
                             size_t most)
{
    memset(v, 0, sizeof *v);
    *rep = (VerifyReport){.bad_rank = -1};
    if (!ex || !ex->sched)
        return CV_ERR_ARG;
    v->ex = ex, v->c = &ex->sched->call, v->rep = rep;
    v->es = dtype_size(v->c->dtype);
    v->words = ((size_t)v->c->nranks + 63) / 64;
    size_t chunk = most < VCHUNK ? (most ? most : 1) : VCHUNK;
    v->got = malloc(3 * chunk * v->es);
    v->set = malloc(v->words * sizeof *v->set);
    if (!v->got || !v->set)
        return CV_ERR_NOMEM;
    v->want = v->got + chunk * v->es;
    v->scratch = v->want + chunk * v->es;
    return CV_OK;
}

static CvError verifier_fini(Verifier *v, CvError e)
{
    free(v->got);
    free(v->set);
    return e ? e : v->rep->wrong ? CV_ERR_WRONG : CV_OK;
}

/* Compare elements [j, j + n) of the chunk (buffer index i0 + j) and count
 * the ones that differ. */
static void compare(Verifier *v, int r, BufId b, size_t i0, size_t j,
                    size_t n, bool final)
{
    VerifyReport *rep = v->rep;
    rep->checked += n;
    if (!memcmp(v->got + j * v->es, v->want + j * v->es, n * v->es))
        return;
    for (size_t i = j; i < j + n; i++) {
        uint64_t g = data_load(v->c->dtype, v->got, i);
        uint64_t w = data_load(v->c->dtype, v->want, i);
        if (data_equal(v->c, g, w, final))
            continue;
        /* The first wrong element in rank order, then buffer order,
         * whatever order the chunks were compared in. */
        if (!rep->wrong++ || r < rep->bad_rank ||
            (r == rep->bad_rank && i0 + i < rep->bad_elem)) {
            rep->bad_rank = r, rep->bad_buf = b, rep->bad_elem = i0 + i;
            rep->got = g, rep->want = w;
        }
    }
}

/* ------------------------------------------------- against the Sim */

/* Whether element i of rank r's buffer b is part of its output. */
static bool in_output(const CollLayout *l, BufId b, size_t i)
{
    return b == l->out_buf && i >= l->out_off && i - l->out_off < l->out_count;
}

/* Length of the run from chunk index j: consecutive positions, one rank
 * set, all inside or all outside the output. */
static size_t sim_run_len(const Sim *sim, const CollLayout *l, int r,
                          BufId b, size_t i0, size_t j, size_t n)
{
    size_t i = i0 + j, len = 1;
    int32_t pos = sim_pos(sim, r, b, i);
    const uint64_t *set = sim_set(sim, r, b, i);
    bool out = in_output(l, b, i);
    while (j + len < n && sim_pos(sim, r, b, i + len) == pos + (int32_t)len &&
           in_output(l, b, i + len) == out &&
           !memcmp(sim_set(sim, r, b, i + len), set, sim->words * sizeof *set))
        len++;
    return len;
}

/* Compare n elements of (r, b) from i0, already read into v->got. */
static void state_chunk(Verifier *v, const Sim *sim, const CollLayout *l,
                        int r, BufId b, size_t i0, size_t n, bool finished)
{
    for (size_t j = 0; j < n;) {
        int32_t pos = sim_pos(sim, r, b, i0 + j);
        if (pos < 0) { /* empty (or mixed: the sim has reported it) */
            j++;
            continue;
        }
        size_t len = sim_run_len(sim, l, r, b, i0, j, n);
        bool final = finished && in_output(l, b, i0 + j);
        data_fill_expect(v->c, (size_t)pos, len, sim_set(sim, r, b, i0 + j),
                         sim->words, final, v->want + j * v->es, v->scratch);
        compare(v, r, b, i0, j, len, final);
        j += len;
    }
}

CvError verify_state(Executor *ex, const Sim *sim, bool finished,
                     VerifyReport *rep)
{
    size_t most = 0;
    for (int r = 0; ex && ex->sched && r < ex->nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++) {
            size_t n = sched_bufsize(ex->sched, r, (BufId)b);
            most = n > most ? n : most;
        }
    Verifier v;
    CvError e = verifier_init(&v, ex, rep, most);
    if (!e && (!sim || sim->sched->call.nranks != ex->nranks))
        e = CV_ERR_ARG;
    for (int r = 0; !e && r < ex->nranks; r++) {
        CollLayout l;
        coll_layout(v.c, r, &l);
        for (int b = 0; !e && b < BUF_COUNT; b++) {
            size_t size = sched_bufsize(ex->sched, r, (BufId)b);
            for (size_t i = 0; !e && i < size; i += VCHUNK) {
                size_t n = size - i < VCHUNK ? size - i : VCHUNK;
                e = ex->ops->read(ex, r, (BufId)b, i, n, v.got);
                if (!e)
                    state_chunk(&v, sim, &l, r, (BufId)b, i, n, finished);
            }
        }
    }
    return verifier_fini(&v, e);
}

/* ------------------------------------------ against the definition */

/* v->set := every rank (all) or just rank q. */
static void set_ranks(Verifier *v, bool all, int q)
{
    int p = v->c->nranks;
    memset(v->set, 0, v->words * sizeof *v->set);
    for (int w = 0; all && w < (int)v->words; w++)
        v->set[w] = p - 64 * w >= 64 ? ~0ull : (1ull << (p - 64 * w)) - 1;
    if (!all)
        v->set[q / 64] = 1ull << (q % 64);
}

/* Compare output elements [j0, j0 + n) of rank r (already read). A
 * chunk that is one run of the definition with the same ranks and
 * positions as the last one compared (an allreduce's chunk j on every
 * rank) reuses the expected values already computed. */
static void output_chunk(Verifier *v, const CollLayout *l, int r, size_t j0,
                         size_t n, bool finished)
{
    for (size_t j = 0; j < n;) {
        CollExpect e;
        coll_expect(v->c, r, j0 + j, &e);
        size_t len = e.run < n - j ? e.run : n - j;
        bool same = v->have_want && j == 0 && len == n && n == v->want_n &&
                    e.pos == v->want_e.pos &&
                    e.all_ranks == v->want_e.all_ranks &&
                    (e.all_ranks || e.rank == v->want_e.rank);
        if (!same) {
            set_ranks(v, e.all_ranks, e.rank);
            data_fill_expect(v->c, e.pos, len, v->set, v->words, finished,
                             v->want + j * v->es, v->scratch);
        }
        v->have_want = j == 0 && len == n;
        v->want_e = e, v->want_n = n;
        compare(v, r, l->out_buf, l->out_off + j0, j, len, finished);
        j += len;
    }
}

/* Chunk by chunk, every rank's chunk j before chunk j + 1, so that ranks
 * expecting the same values (allreduce, broadcast) compute them once. */
CvError verify_output(Executor *ex, bool finished, VerifyReport *rep)
{
    size_t most = 0;
    for (int r = 0; ex && ex->sched && r < ex->nranks; r++) {
        CollLayout l;
        coll_layout(&ex->sched->call, r, &l);
        most = l.out_count > most ? l.out_count : most;
    }
    Verifier v;
    CvError e = verifier_init(&v, ex, rep, most);
    for (size_t j = 0; !e && j < most; j += VCHUNK) {
        for (int r = 0; !e && r < ex->nranks; r++) {
            CollLayout l;
            coll_layout(v.c, r, &l);
            if (j >= l.out_count)
                continue;
            size_t n = l.out_count - j < VCHUNK ? l.out_count - j : VCHUNK;
            e = ex->ops->read(ex, r, l.out_buf, l.out_off + j, n, v.got);
            if (!e)
                output_chunk(&v, &l, r, j, n, finished);
        }
    }
    return verifier_fini(&v, e);
}
