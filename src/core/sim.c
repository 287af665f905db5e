/* sim.c - the symbolic executor: which ranks' inputs every element holds. */
#include "core/sim.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ set-up */

static void sim_free_arrays(Sim *sim)
{
    for (int b = 0; b < BUF_COUNT; b++) {
        free(sim->pos[b]);
        free(sim->set[b]);
        free(sim->base[b]);
        sim->pos[b] = NULL, sim->set[b] = NULL, sim->base[b] = NULL;
    }
    free(sim->stage_pos);
    free(sim->stage_set);
    free(sim->single);
    sim->stage_pos = NULL, sim->stage_set = NULL, sim->single = NULL;
}

/* Allocate buffer b of every rank; base[b][r] is rank r's first element. */
static CvError alloc_buf(Sim *sim, BufId b)
{
    const Schedule *s = sim->sched;
    int p = sim->nranks;
    size_t total = 0;
    sim->base[b] = malloc(((size_t)p + 1) * sizeof(size_t));
    if (!sim->base[b])
        return CV_ERR_NOMEM;
    for (int r = 0; r < p; r++) {
        sim->base[b][r] = total;
        total += sched_bufsize(s, r, b);
    }
    sim->base[b][p] = total;
    if (b == BUF_SEND) /* implied by the inputs */
        return CV_OK;
    sim->pos[b] = malloc((total + 1) * sizeof(int32_t));
    /* calloc: large zeroed blocks come from the kernel already zeroed */
    sim->set[b] = calloc(total * sim->words + 1, sizeof(uint64_t));
    return sim->pos[b] && sim->set[b] ? CV_OK : CV_ERR_NOMEM;
}

/* The largest number of elements a single step reads. */
static size_t max_step_elems(const Schedule *s)
{
    size_t best = 0;
    for (size_t k = 0; k < s->nsteps; k++) {
        size_t n = 0;
        for (size_t i = 0; i < s->steps[k].n; i++)
            n += s->xfers[s->steps[k].first + i].count;
        if (n > best)
            best = n;
    }
    return best;
}

CvError sim_init(Sim *sim, const Schedule *s)
{
    memset(sim, 0, sizeof *sim);
    if (!sched_written_out(s)) /* a compact schedule: sched_expand it */
        return sim->err = CV_ERR_ARG;
    if (s->call.nranks > COLL_MAX_RANKS) /* data.h's inputs stop there */
        return sim->err = CV_ERR_RANKS;
    sim->sched = s;
    sim->nranks = s->call.nranks;
    sim->words = ((size_t)s->call.nranks + 63) / 64;
    for (int r = 0; r < s->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++)
            if (sched_bufsize(s, r, (BufId)b) > INT32_MAX)
                return CV_ERR_ARG; /* positions are 32-bit */
    CvError e = CV_OK;
    for (int b = 0; b < BUF_COUNT && !e; b++)
        e = alloc_buf(sim, (BufId)b);
    if (!e) {
        sim->single = calloc((size_t)sim->nranks * sim->words, sizeof(uint64_t));
        if (!sim->single)
            e = CV_ERR_NOMEM;
        for (int r = 0; r < sim->nranks && !e; r++)
            sim->single[(size_t)r * sim->words + (size_t)r / 64] = 1ull << (r % 64);
    }
    if (!e) {
        sim->stage_cap = max_step_elems(s);
        sim->stage_pos = malloc((sim->stage_cap + 1) * sizeof(int32_t));
        sim->stage_set = malloc((sim->stage_cap * sim->words + 1) * sizeof(uint64_t));
        if (!sim->stage_pos || !sim->stage_set)
            e = CV_ERR_NOMEM;
    }
    if (e) {
        sim_free_arrays(sim);
        return e;
    }
    sim->fresh = 1;
    sim_reset(sim);
    return CV_OK;
}

void sim_fini(Sim *sim)
{
    sim_free_arrays(sim);
    memset(sim, 0, sizeof *sim);
}

void sim_reset(Sim *sim)
{
    const CollCall *c = &sim->sched->call;
    size_t w = sim->words;
    for (int b = BUF_RECV; b < BUF_COUNT; b++) {
        size_t total = sim->base[b][sim->nranks];
        for (size_t i = 0; i < total; i++)
            sim->pos[b][i] = SIM_EMPTY;
        if (!sim->fresh)
            memset(sim->set[b], 0, total * w * sizeof(uint64_t));
    }
    sim->fresh = 0;
    for (int r = 0; r < sim->nranks; r++) {
        CollLayout l;
        coll_layout(c, r, &l);
        if (l.in_buf == BUF_SEND)
            continue; /* implied */
        size_t at = sim->base[l.in_buf][r] + l.in_off;
        for (size_t j = 0; j < l.in_count; j++) {
            sim->pos[l.in_buf][at + j] = (int32_t)j;
            sim->set[l.in_buf][(at + j) * w + (size_t)r / 64] |= 1ull << (r % 64);
        }
    }
    sim->next_step = 0;
    sim->err = CV_OK;
    sim->err_step = sim->err_xfer = 0;
}

/* ------------------------------------------------------------ stepping */

static void fail(Sim *sim, CvError e, size_t step, size_t xfer)
{
    if (!sim->err) {
        sim->err = e;
        sim->err_step = step;
        sim->err_xfer = xfer;
    }
}

/* Combine one staged source element into a destination element. */
static CvError reduce_elem(int32_t *dpos, uint64_t *dset, int32_t spos,
                           const uint64_t *sset, size_t w)
{
    if (*dpos == SIM_EMPTY || spos == SIM_EMPTY)
        return CV_ERR_UNINIT;
    CvError e = CV_OK;
    if (*dpos != spos) {
        *dpos = SIM_MIXED;
        e = CV_ERR_MIXED;
    }
    for (size_t i = 0; i < w; i++) {
        if (dset[i] & sset[i])
            e = e ? e : CV_ERR_TWICE;
        dset[i] |= sset[i];
    }
    return e;
}

/* Apply transfer t whose source elements were staged at stage index at. */
static void apply(Sim *sim, const Transfer *t, size_t at, size_t k, size_t x)
{
    size_t w = sim->words;
    size_t d = sim->base[t->dst_buf][t->dst] + t->dst_off;
    int32_t *dpos = sim->pos[t->dst_buf] + d;
    uint64_t *dset = sim->set[t->dst_buf] + d * w;
    const int32_t *spos = sim->stage_pos + at;
    const uint64_t *sset = sim->stage_set + at * w;
    if (t->op == XFER_COPY) {
        memcpy(dpos, spos, t->count * sizeof *dpos);
        memcpy(dset, sset, t->count * w * sizeof *dset);
        return;
    }
    for (size_t i = 0; i < t->count; i++) {
        CvError e = reduce_elem(dpos + i, dset + i * w, spos[i], sset + i * w, w);
        if (e)
            fail(sim, e, k, x);
    }
}

/* Whether transfer t lies inside its buffers. */
static int in_bounds(const Sim *sim, const Transfer *t)
{
    const Schedule *s = sim->sched;
    size_t sn = sched_bufsize(s, t->src, (BufId)t->src_buf);
    size_t dn = sched_bufsize(s, t->dst, (BufId)t->dst_buf);
    return t->src_off <= sn && t->count <= sn - t->src_off &&
           t->dst_off <= dn && t->count <= dn - t->dst_off;
}

/* Copy transfer t's source elements to stage index at. */
static void stage(Sim *sim, const Transfer *t, size_t at)
{
    size_t w = sim->words;
    if (t->src_buf == BUF_SEND) { /* implied: input elements of src */
        const uint64_t *one = sim->single + (size_t)t->src * w;
        for (size_t i = 0; i < t->count; i++) {
            sim->stage_pos[at + i] = (int32_t)(t->src_off + i);
            memcpy(sim->stage_set + (at + i) * w, one, w * sizeof *one);
        }
        return;
    }
    size_t src = sim->base[t->src_buf][t->src] + t->src_off;
    memcpy(sim->stage_pos + at, sim->pos[t->src_buf] + src,
           t->count * sizeof(int32_t));
    memcpy(sim->stage_set + at * w, sim->set[t->src_buf] + src * w,
           t->count * w * sizeof(uint64_t));
}

CvError sim_step(Sim *sim)
{
    const Schedule *s = sim->sched;
    size_t k = sim->next_step;
    if (k >= s->nsteps)
        return CV_ERR_ARG;
    const Step *st = &s->steps[k];
    /* Stage every source first: reads see the state before the step. */
    size_t at = 0;
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *t = &s->xfers[st->first + i];
        if (!in_bounds(sim, t)) { /* skip the whole step, but move on */
            fail(sim, CV_ERR_BOUNDS, k, st->first + i);
            sim->next_step++;
            return sim->err;
        }
        if (t->dst_buf == BUF_SEND) {
            fail(sim, CV_ERR_SENDWRITE, k, st->first + i);
            sim->next_step++;
            return sim->err;
        }
        stage(sim, t, at);
        at += t->count;
    }
    at = 0;
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *t = &s->xfers[st->first + i];
        apply(sim, t, at, k, st->first + i);
        at += t->count;
    }
    sim->next_step++;
    return sim->err;
}

CvError sim_seek(Sim *sim, size_t k)
{
    if (k > sim->sched->nsteps)
        return CV_ERR_ARG;
    if (k < sim->next_step)
        sim_reset(sim);
    while (sim->next_step < k)
        sim_step(sim);
    return sim->err;
}

CvError sim_run(Sim *sim)
{
    while (sim->next_step < sim->sched->nsteps)
        sim_step(sim);
    return sim->err;
}

/* ------------------------------------------------------------ checking */

int sim_nranks_in(const Sim *sim, int r, BufId b, size_t i)
{
    const uint64_t *set = sim_set(sim, r, b, i);
    int n = 0;
    for (size_t k = 0; k < sim->words; k++)
        n += __builtin_popcountll(set[k]);
    return n;
}

/* Whether a rank set is exactly {q}, or every rank when q < 0. */
static int set_is(const uint64_t *set, size_t words, int p, int q)
{
    for (size_t k = 0; k < words; k++) {
        uint64_t want;
        if (q >= 0) {
            want = (size_t)q / 64 == k ? 1ull << (q % 64) : 0;
        } else {
            int hi = p - (int)k * 64;
            want = hi >= 64 ? ~0ull : (1ull << hi) - 1;
        }
        if (set[k] != want)
            return 0;
    }
    return 1;
}

/* Whether output element j of rank r (layout l) holds its final value. */
static int elem_final(const Sim *sim, const CollLayout *l, int r, size_t j)
{
    const CollCall *c = &sim->sched->call;
    CollExpect e;
    coll_expect(c, r, j, &e);
    size_t i = l->out_off + j;
    if (sim_pos(sim, r, l->out_buf, i) != (int32_t)e.pos)
        return 0;
    return set_is(sim_set(sim, r, l->out_buf, i), sim->words, c->nranks,
                  e.all_ranks ? -1 : e.rank);
}

int sim_is_final(const Sim *sim, int r, size_t j)
{
    CollLayout l;
    coll_layout(&sim->sched->call, r, &l);
    return j < l.out_count && elem_final(sim, &l, r, j);
}

CvError sim_check(const Sim *sim, int *bad_rank, size_t *bad_elem,
                  size_t *nwrong)
{
    size_t wrong = 0;
    int first = 1;
    for (int r = 0; r < sim->nranks; r++) {
        CollLayout l;
        coll_layout(&sim->sched->call, r, &l);
        for (size_t j = 0; j < l.out_count; j++) {
            if (elem_final(sim, &l, r, j))
                continue;
            if (first) {
                if (bad_rank) *bad_rank = r;
                if (bad_elem) *bad_elem = j;
                first = 0;
            }
            wrong++;
        }
    }
    if (nwrong)
        *nwrong = wrong;
    return wrong ? CV_ERR_WRONG : CV_OK;
}
