/* rank.c - one process's part of the mpi backend's operations: its part
 * of a schedule, its buffers, and a step as point-to-point calls.
 *
 * A step on rank r: copy the sources of r that the step overwrites into
 * the stage (step semantics: every read sees the values from before the
 * step), post the receives (copies straight into their destination,
 * reduces' operands into a scratch area), post the sends, do the local
 * transfers, wait for the receives, reduce the received operands in
 * transfer order, then wait for the sends. A reduce of 1 MiB or more
 * travels in pieces of 256 KiB (a tag of its own): its destination takes
 * each piece into one of two scratch pieces and reduces it while the next
 * arrives, so the operand is reduced from the cache instead of being
 * written to memory whole and read back (a 2-rank reduce of 64 MiB moved
 * 320 MiB through memory that way, against 192). Peers match messages by
 * order: both sides walk a step's transfers in the schedule's order and
 * MPI keeps the order of messages between two processes on one
 * communicator and tag. No barrier between steps: a rank waits only for
 * the messages it takes part in.
 *
 * Copy-in fusion (sched_fuse_map), in timed runs only: a reduce whose
 * destination still holds what a local copy from the send buffer put
 * there computes dst = send op operand, a send of such a copy sends the
 * input, and copies then left unread are skipped: the same operands in
 * the same order (the same results bit for bit). Steps run one at a time
 * (the TUI) never fuse: after each of them the buffers hold what the
 * schedule says. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data.h"
#include "mpi/mpi_impl.h"

/* A reduce's operand of PIPE_MIN bytes or more comes in pieces of PIECE
 * bytes (a whole number of elements of every type), with tag TAG_PIECE. */
#define PIPE_MIN ((size_t)1 << 20)
#define PIECE ((size_t)1 << 18)
#define TAG_PIECE 2

/* Whether transfer t's operand comes in pieces. */
static bool in_pieces(const Transfer *t, size_t es)
{
    return t->op == XFER_REDUCE && t->src != t->dst &&
           t->count * es >= PIPE_MIN;
}

/* The pieces of an operand of `bytes`, and the bytes of piece c. */
static size_t pieces(size_t bytes) { return (bytes + PIECE - 1) / PIECE; }
static int piece_len(size_t bytes, size_t c)
{
    size_t left = bytes - c * PIECE;
    return (int)(left < PIECE ? left : PIECE);
}

void mpi_error_text(int code, char *out, size_t len)
{
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(code, s, &n) != MPI_SUCCESS)
        snprintf(s, sizeof s, "MPI error %d", code);
    snprintf(out, len, "%s", s);
}

int mpi_bcast_big(void *p, size_t n, MPI_Comm comm)
{
    const size_t part = (size_t)1 << 30;
    int rc = MPI_SUCCESS;
    for (size_t at = 0; at < n && rc == MPI_SUCCESS; at += part) {
        size_t m = n - at < part ? n - at : part;
        rc = MPI_Bcast((char *)p + at, (int)m, MPI_BYTE, 0, comm);
    }
    return rc;
}

void mpi_rank_unload(MpiRank *m)
{
    for (int b = 0; b < BUF_COUNT; b++)
        free(m->base[b]), m->base[b] = m->buf[b] = NULL;
    free(m->xf), free(m->staged), free(m->at), free(m->stage), free(m->tmp);
    free(m->src), free(m->rtmp), free(m->req), free(m->skip), free(m->init);
    free(m->via);
    m->xf = NULL, m->staged = NULL, m->at = NULL, m->stage = NULL;
    m->tmp = NULL, m->src = NULL, m->rtmp = NULL, m->req = NULL;
    m->skip = NULL, m->init = NULL, m->via = NULL;
    m->loaded = false;
    m->call_s = 0;
}

/* The schedule's arrays as every process receives them from rank 0. */
typedef struct {
    Transfer *xfers;  /* every transfer */
    size_t *first;    /* [nsteps] each step's first transfer */
    uint8_t *staged;  /* [nxfers] */
    size_t *bufsize;  /* [p * BUF_COUNT] */
} Wire;

static void wire_free(Wire *w)
{
    free(w->xfers), free(w->first), free(w->staged), free(w->bufsize);
}

/* Receive (or, on rank 0, send) the schedule of command c. An allocation
 * that fails on a server leaves the job unable to go on together: it
 * ends the job. */
static int wire_bcast(MpiRank *m, const MpiCmd *c, const Schedule *s,
                      const uint8_t *staged, Wire *w)
{
    size_t nx = (size_t)c->a[0], ns = (size_t)c->a[1];
    size_t nb = (size_t)m->p * BUF_COUNT;
    *w = (Wire){0};
    if (s) {
        w->xfers = s->xfers, w->staged = (uint8_t *)staged;
        w->bufsize = s->bufsize;
        w->first = malloc((ns + 1) * sizeof *w->first);
        for (size_t k = 0; w->first && k < ns; k++)
            w->first[k] = s->steps[k].first;
    } else {
        w->xfers = malloc(nx * sizeof *w->xfers + 1);
        w->staged = malloc(nx + 1);
        w->bufsize = malloc(nb * sizeof *w->bufsize);
        w->first = malloc((ns + 1) * sizeof *w->first);
    }
    if (!w->first || (!s && (!w->xfers || !w->staged || !w->bufsize)))
        MPI_Abort(MPI_COMM_WORLD, 1);
    int rc = mpi_bcast_big(w->xfers, nx * sizeof *w->xfers, mpi_world.ctl);
    if (rc == MPI_SUCCESS)
        rc = mpi_bcast_big(w->first, ns * sizeof *w->first, mpi_world.ctl);
    if (rc == MPI_SUCCESS)
        rc = mpi_bcast_big(w->staged, nx, mpi_world.ctl);
    if (rc == MPI_SUCCESS)
        rc = mpi_bcast_big(w->bufsize, nb * sizeof *w->bufsize, mpi_world.ctl);
    return rc;
}

/* This rank's transfers of the schedule, step after step, and the most
 * bytes one step stages and receives for reduces. */
static CvError take_mine(MpiRank *m, const Wire *w, size_t nx,
                         size_t *stage_b, size_t *tmp_b)
{
    size_t n = 0, ns = m->nsteps;
    for (size_t i = 0; i < nx; i++)
        n += w->xfers[i].src == m->me || w->xfers[i].dst == m->me;
    m->xf = malloc((n + 1) * sizeof *m->xf);
    m->staged = malloc(n + 1);
    m->at = malloc((ns + 1) * sizeof *m->at);
    m->src = malloc((n + 1) * sizeof *m->src);
    m->rtmp = malloc((n + 1) * sizeof *m->rtmp);
    if (!m->xf || !m->staged || !m->at || !m->src || !m->rtmp)
        return CV_ERR_NOMEM;
    *stage_b = *tmp_b = 0;
    size_t j = 0, nreq = 0;
    for (size_t k = 0; k < ns; k++) {
        size_t end = k + 1 < ns ? w->first[k + 1] : nx, sb = 0, tb = 0, nq = 0;
        m->at[k] = j;
        for (size_t i = w->first[k]; i < end; i++) {
            const Transfer *t = &w->xfers[i];
            if (t->src != m->me && t->dst != m->me)
                continue;
            if ((t->count > INT_MAX / m->es) && t->src != t->dst)
                return CV_ERR_BOUNDS;
            m->xf[j] = *t;
            m->staged[j] = w->staged[i] && t->src == m->me;
            sb += m->staged[j] ? t->count * m->es : 0;
            bool recv = t->dst == m->me && t->src != m->me;
            if (in_pieces(t, m->es))
                tb = tb > 2 * PIECE ? tb : 2 * PIECE;
            else if (recv && t->op == XFER_REDUCE)
                tb += t->count * m->es;
            /* a send in pieces takes a request per piece */
            nq += t->src == t->dst ? 0
                  : t->src == m->me && in_pieces(t, m->es)
                      ? pieces(t->count * m->es)
                      : 1;
            j++;
        }
        *stage_b = sb > *stage_b ? sb : *stage_b;
        *tmp_b = tb > *tmp_b ? tb : *tmp_b;
        nreq = nq > nreq ? nq : nreq;
    }
    m->at[ns] = j;
    m->req = malloc((nreq + 2) * sizeof *m->req);
    return m->req ? CV_OK : CV_ERR_NOMEM;
}

/* n bytes (and one more) at the start of a page, as the OSU benchmarks
 * and nccl-tests' device allocations place buffers (nccl-tests' -u adds
 * its offset on top); NULL when out of memory. */
static unsigned char *page_alloc(size_t n)
{
    void *p = NULL;
    return posix_memalign(&p, 4096, n + 1) ? NULL : p;
}

/* Allocate this rank's buffers, stage and scratch. */
static CvError alloc_bufs(MpiRank *m, const Wire *w, size_t stage_b,
                          size_t tmp_b, size_t unalign)
{
    for (int b = 0; b < BUF_COUNT; b++) {
        m->bufsize[b] = w->bufsize[(size_t)m->me * BUF_COUNT + b];
        m->base[b] = page_alloc((m->bufsize[b] + unalign) * m->es);
        if (!m->base[b])
            return CV_ERR_NOMEM;
        m->buf[b] = m->base[b] + unalign * m->es;
    }
    m->stage = malloc(stage_b + 1);
    m->tmp = malloc(tmp_b + 1);
    return m->stage && m->tmp ? CV_OK : CV_ERR_NOMEM;
}

/* The copy-in fusion of this rank's transfers. A copy-in, the reduces
 * into its range and the sends from it all touch this rank's buffers, and
 * every transfer that touches them is this rank's, so its own transfers
 * decide as the whole schedule would. */
static CvError plan_fusion(MpiRank *m)
{
    size_t n = m->at[m->nsteps];
    Step *steps = malloc((m->nsteps + 1) * sizeof *steps);
    SchedFuse f = {0};
    m->init = calloc(n + 1, sizeof *m->init);
    m->via = calloc(n + 1, sizeof *m->via);
    CvError e = steps && m->init && m->via ? CV_OK : CV_ERR_NOMEM;
    for (size_t k = 0; !e && k < m->nsteps; k++)
        steps[k] = (Step){.first = m->at[k], .n = m->at[k + 1] - m->at[k],
                          .reps = 1};
    Schedule v = {.call = m->call, .xfers = m->xf, .nxfers = n,
                  .steps = steps, .nsteps = m->nsteps};
    if (!e)
        e = sched_fuse_build(&f, &v);
    for (size_t i = 0; !e && i < n; i++) {
        const Transfer *t = &m->xf[i], *x = f.own[i], *y = f.via[i];
        if (x) /* the input at the place of t's destination */
            m->init[i] = m->buf[x->src_buf] + sched_fuse_at(x, t->dst_off) * m->es;
        if (y && t->src == m->me) /* and of its source */
            m->via[i] = m->buf[y->src_buf] + sched_fuse_at(y, t->src_off) * m->es;
    }
    if (!e) /* kept: the skips */
        m->skip = f.skip, f.skip = NULL;
    sched_fuse_free(&f);
    free(steps);
    return e;
}

CvError mpi_rank_load(MpiRank *m, const MpiCmd *c, const Schedule *s,
                      const uint8_t *staged)
{
    Wire w;
    mpi_rank_unload(m);
    int rc = wire_bcast(m, c, s, staged, &w);
    m->call = (CollCall){.kind = (CollKind)c->a[2], .nranks = m->p,
                         .count = (size_t)c->a[3], .dtype = (DataType)c->a[4],
                         .op = (RedOp)c->a[5], .root = (int)c->a[6],
                         .in_place = c->a[7] != 0};
    m->es = dtype_size(m->call.dtype);
    m->nsteps = (size_t)c->a[1];
    m->red = reduce_fn(m->call.dtype, m->call.op);
    m->red3 = reduce3_fn(m->call.dtype, m->call.op);
    size_t sb = 0, tb = 0;
    CvError e = rc != MPI_SUCCESS ? CV_ERR_BACKEND : CV_OK;
    if (!e)
        e = take_mine(m, &w, (size_t)c->a[0], &sb, &tb);
    if (!e)
        e = alloc_bufs(m, &w, sb, tb, (size_t)c->a[8]);
    if (!e)
        e = plan_fusion(m);
    if (s) {
        free(w.first);
    } else {
        wire_free(&w);
    }
    if (e)
        mpi_rank_unload(m);
    m->loaded = !e;
    return e;
}

CvError mpi_rank_reset(MpiRank *m)
{
    const CollCall *c = &m->call;
    CollLayout l;
    coll_layout(c, m->me, &l);
    for (int b = 0; b < BUF_COUNT; b++)
        data_fill_poison(c->dtype, m->buf[b], m->bufsize[b]);
    data_fill_input(c, m->me, 0, l.in_count,
                    m->buf[l.in_buf] + l.in_off * m->es);
    return CV_OK;
}

static unsigned char *dst_of(MpiRank *m, const Transfer *t)
{
    return m->buf[t->dst_buf] + t->dst_off * m->es;
}

/* Stage the overwritten sources and post the receives (but those in
 * pieces) and sends of the transfers [b, e), fused: in a timed run (a
 * source that still holds a copy of the input read where the input
 * lies); returns the requests posted, the receives' first (*nrecv of
 * them), or -1 after a failed call (its code in *rc). */
static int post(MpiRank *m, size_t b, size_t e, bool fused, int *nrecv,
                int *rc)
{
    unsigned char *st = m->stage, *tp = m->tmp;
    size_t es = m->es;
    int nq = 0;
    for (size_t i = b; i < e; i++) {
        const Transfer *t = &m->xf[i];
        m->src[i] = t->src != m->me    ? NULL
                    : fused && m->via[i] ? m->via[i]
                                         : m->buf[t->src_buf] + t->src_off * es;
        if (m->staged[i]) {
            memcpy(st, m->src[i], t->count * es);
            m->src[i] = st;
            st += t->count * es;
        }
    }
    for (size_t i = b; i < e && *rc == MPI_SUCCESS; i++) {
        const Transfer *t = &m->xf[i];
        if (t->dst != m->me || t->src == m->me || in_pieces(t, es))
            continue;
        unsigned char *to = t->op == XFER_REDUCE ? tp : dst_of(m, t);
        m->rtmp[i] = to;
        tp += t->op == XFER_REDUCE ? t->count * es : 0;
        *rc = MPI_Irecv(to, (int)(t->count * es), MPI_BYTE, t->src, 0,
                        mpi_world.dat, &m->req[nq++]);
    }
    *nrecv = nq;
    for (size_t i = b; i < e && *rc == MPI_SUCCESS; i++) {
        const Transfer *t = &m->xf[i];
        if (t->src != m->me || t->dst == m->me)
            continue;
        size_t bytes = t->count * es;
        if (!in_pieces(t, es)) {
            *rc = MPI_Isend(m->src[i], (int)bytes, MPI_BYTE, t->dst, 0,
                            mpi_world.dat, &m->req[nq++]);
            continue;
        }
        for (size_t c = 0; c < pieces(bytes) && *rc == MPI_SUCCESS; c++)
            *rc = MPI_Isend(m->src[i] + c * PIECE, piece_len(bytes, c),
                            MPI_BYTE, t->dst, TAG_PIECE, mpi_world.dat,
                            &m->req[nq++]);
    }
    return *rc == MPI_SUCCESS ? nq : -1;
}

/* dst = dst op src over n elements; fused (init not NULL), dst = init op
 * src: the skipped copy's source at the same place. */
static void reduce_into(const MpiRank *m, unsigned char *dst,
                        const unsigned char *init, const unsigned char *src,
                        size_t n)
{
    if (init)
        reduce_from(m->red, m->red3, dst, init, src, n, m->es);
    else
        m->red(dst, src, n);
}

/* Receive transfer t's operand in pieces, two at a time, each reduced
 * into the destination as soon as it is in (from init where fused). */
static int reduce_in_pieces(MpiRank *m, const Transfer *t,
                            const unsigned char *init)
{
    size_t bytes = t->count * m->es, n = pieces(bytes);
    unsigned char *dst = dst_of(m, t);
    MPI_Request q[2];
    int rc = MPI_SUCCESS;
    for (size_t c = 0; c < n && c < 2 && rc == MPI_SUCCESS; c++)
        rc = MPI_Irecv(m->tmp + c * PIECE, piece_len(bytes, c), MPI_BYTE,
                       t->src, TAG_PIECE, mpi_world.dat, &q[c]);
    for (size_t c = 0; c < n && rc == MPI_SUCCESS; c++) {
        unsigned char *piece = m->tmp + (c % 2) * PIECE;
        if ((rc = MPI_Wait(&q[c % 2], MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            break;
        reduce_into(m, dst + c * PIECE, init ? init + c * PIECE : NULL, piece,
                    (size_t)piece_len(bytes, c) / m->es);
        if (c + 2 < n)
            rc = MPI_Irecv(piece, piece_len(bytes, c + 2), MPI_BYTE, t->src,
                           TAG_PIECE, mpi_world.dat, &q[c % 2]);
    }
    return rc;
}

/* The local transfers of [b, e) (before the wait), or the received
 * reduces' operands (after it, those in pieces as they arrive), in
 * transfer order; fused: a timed run (the copies a fused reduce replaces
 * skipped, the fused reduces from their copies' sources). */
static int apply(MpiRank *m, size_t b, size_t e, bool local, bool fused)
{
    int rc = MPI_SUCCESS;
    for (size_t i = b; i < e && rc == MPI_SUCCESS; i++) {
        const Transfer *t = &m->xf[i];
        if ((t->src == t->dst) != local || t->dst != m->me ||
            (fused && m->skip[i]))
            continue;
        const unsigned char *from = local ? m->src[i] : m->rtmp[i];
        const unsigned char *init = fused ? m->init[i] : NULL;
        if (!local && in_pieces(t, m->es))
            rc = reduce_in_pieces(m, t, init);
        else if (t->op == XFER_REDUCE)
            reduce_into(m, dst_of(m, t), init, from, t->count);
        else if (local)
            memmove(dst_of(m, t), from, t->count * m->es);
    }
    return rc;
}

/* Step k; fused: in a timed run. */
static CvError step(MpiRank *m, size_t k, bool fused)
{
    size_t b = m->at[k], e = m->at[k + 1];
    int rc = MPI_SUCCESS, nrecv = 0;
    int nq = post(m, b, e, fused, &nrecv, &rc);
    /* the receives, then the reduces (those in pieces take theirs while
     * the peers' sends are under way), then the sends: a rank that waited
     * for its sends first could wait for a peer waiting for its own */
    if (nq >= 0) {
        apply(m, b, e, true, fused);
        rc = MPI_Waitall(nrecv, m->req, MPI_STATUSES_IGNORE);
    }
    if (rc == MPI_SUCCESS)
        rc = apply(m, b, e, false, fused);
    if (rc == MPI_SUCCESS)
        rc = MPI_Waitall(nq - nrecv, m->req + nrecv, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) {
        mpi_world.broken = true;
        return CV_ERR_BACKEND;
    }
    if (m->me == 0)
        mpi_watch_poke();
    return CV_OK;
}

CvError mpi_rank_step(MpiRank *m, size_t k) { return step(m, k, false); }

CvError mpi_rank_finish(MpiRank *m)
{
    const CollCall *c = &m->call;
    CollLayout l;
    if (!coll_is_reducing(c->kind))
        return CV_OK;
    coll_layout(c, m->me, &l);
    return reduce_finish(c->dtype, c->op, m->buf[l.out_buf] + l.out_off * m->es,
                         l.out_count, c->nranks);
}

/* One whole iteration: every step, then the finish. */
static CvError iteration(MpiRank *m, double *step_s)
{
    CvError e = CV_OK;
    double prev = step_s ? MPI_Wtime() : 0;
    for (size_t k = 0; k < m->nsteps && !e; k++) {
        e = step(m, k, true);
        if (step_s) {
            double now = MPI_Wtime();
            step_s[k] += now - prev;
            prev = now;
        }
    }
    return e ? e : mpi_rank_finish(m);
}

CvError mpi_rank_run(MpiRank *m, int warmup, int iters, bool per_step,
                     bool each, double *times)
{
    CvError e = CV_OK;
    double *step_s = per_step ? times + 1 : NULL;
    double *ends = each ? times + 1 + (per_step ? m->nsteps : 0) : NULL;
    for (int i = 0; i < warmup && !e; i++)
        e = iteration(m, NULL);
    if (!e && MPI_Barrier(mpi_world.dat) != MPI_SUCCESS)
        e = CV_ERR_BACKEND;
    for (size_t k = 0; step_s && k < m->nsteps; k++)
        step_s[k] = 0;
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters && !e; i++) {
        e = iteration(m, step_s);
        if (ends)
            ends[i] = MPI_Wtime() - t0;
    }
    times[0] = (MPI_Wtime() - t0) / iters;
    for (size_t k = 0; step_s && k < m->nsteps; k++)
        step_s[k] /= iters;
    return e;
}
