/* sched_text_check.c - a schedule read from text: checked element by
 * element with the reason in one sentence, and built for a call
 * (sched_text.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched_text.h"
#include "core/sim.h"

/* One sentence into why. */
static CvError say(CvError e, char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static CvError say(CvError e, char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sched_text_vsay(e, why, len, 0, fmt, ap);
    va_end(ap);
    return e;
}

/* What one unit is called in sentences. */
static const char *unit_word(const SchedText *t)
{
    return t->parts ? "unit" : "element";
}

/* "r1.recv[2:4]": a transfer's destination (dst) or source. */
static void end_text(const Transfer *x, bool dst, char *buf, size_t len)
{
    size_t off = dst ? x->dst_off : x->src_off;
    snprintf(buf, len, "r%d.%s[%zu:%zu]", dst ? x->dst : x->src,
             buf_name((BufId)(dst ? x->dst_buf : x->src_buf)), off,
             off + x->count);
}

/* The step (0-based) that transfer x belongs to. */
static size_t step_of(const Schedule *s, size_t x)
{
    size_t k = 0;
    while (k + 1 < s->nsteps && s->steps[k + 1].first <= x)
        k++;
    return k;
}

/* Two writes of one element in one step: x and the earlier one. */
static CvError two_writes(const SchedText *t, size_t x, char *why, size_t len)
{
    const Schedule *s = &t->unit;
    const Transfer *b = &s->xfers[x];
    size_t k = step_of(s, x), other = x;
    for (size_t i = s->steps[k].first; i < s->steps[k].first + s->steps[k].n;
         i++) {
        const Transfer *a = &s->xfers[i];
        if (i != x && a->dst == b->dst && a->dst_buf == b->dst_buf &&
            a->dst_off < b->dst_off + b->count &&
            b->dst_off < a->dst_off + a->count) {
            other = i;
            break;
        }
    }
    char e[64];
    end_text(b, true, e, sizeof e);
    return say(CV_ERR_ARG, why, len, "%u: step %zu writes %s, which line %u "
               "writes in the same step; one step writes an element once",
               t->line[x], k + 1, e, t->line[other]);
}

/* "rank 3's", "ranks 0-2, 5's", "every rank's" for a rank set. */
static void set_text(const uint64_t *set, int p, char *buf, size_t len)
{
    int n = 0, at = 0, first = 1;
    for (int q = 0; q < p; q++)
        n += (int)((set[q / 64] >> (q % 64)) & 1u);
    if (n == p && p > 1) {
        snprintf(buf, len, "every rank's");
        return;
    }
    at = snprintf(buf, len, "%s ", n == 1 ? "rank" : "ranks");
    for (int q = 0; q < p && at >= 0 && (size_t)at < len; q++) {
        if (!((set[q / 64] >> (q % 64)) & 1u))
            continue;
        int hi = q;
        while (hi + 1 < p && ((set[(hi + 1) / 64] >> ((hi + 1) % 64)) & 1u))
            hi++;
        at += hi > q ? snprintf(buf + at, len - (size_t)at, "%s%d-%d",
                                first ? "" : ", ", q, hi)
                     : snprintf(buf + at, len - (size_t)at, "%s%d",
                                first ? "" : ", ", q);
        first = 0;
        q = hi;
    }
    if (at >= 0 && (size_t)at < len)
        snprintf(buf + at, len - (size_t)at, "'s");
}

/* What element i of rank r's buffer b holds, in words. */
static void held_text(const SchedText *t, const Sim *sim, int r, BufId b,
                      size_t i, char *buf, size_t len)
{
    int32_t pos = sim_pos(sim, r, b, i);
    char who[256];
    if (pos == SIM_EMPTY) {
        snprintf(buf, len, "nothing");
        return;
    }
    if (pos == SIM_MIXED) {
        snprintf(buf, len, "a reduction of different %ss", unit_word(t));
        return;
    }
    set_text(sim_set(sim, r, b, i), sim->nranks, who, sizeof who);
    snprintf(buf, len, "%s%s %s %d", sim_nranks_in(sim, r, b, i) > 1
             ? "the reduction of " : "", who, unit_word(t), (int)pos);
}

/* The last transfer up to step `upto` (exclusive) that writes element i
 * of rank r's buffer b, or SIZE_MAX. */
static size_t last_write(const Schedule *s, size_t upto, int r, BufId b,
                         size_t i)
{
    size_t end = upto < s->nsteps ? s->steps[upto].first : s->nxfers;
    for (size_t x = end; x-- > 0;) {
        const Transfer *t = &s->xfers[x];
        if (t->dst == r && t->dst_buf == b && t->dst_off <= i &&
            i < t->dst_off + t->count)
            return x;
    }
    return SIZE_MAX;
}

/* The first wrong output element, after the last step. */
static CvError wrong_output(const SchedText *t, const Sim *sim, size_t *bad,
                            char *why, size_t len)
{
    const Schedule *s = &t->unit;
    int r = 0;
    size_t j = 0;
    sim_check(sim, &r, &j, NULL);
    CollLayout l;
    CollExpect e;
    coll_layout(&s->call, r, &l);
    coll_expect(&s->call, r, j, &e);
    size_t i = l.out_off + j, x = last_write(s, s->nsteps, r, l.out_buf, i);
    char held[320], who[64], when[96];
    held_text(t, sim, r, l.out_buf, i, held, sizeof held);
    if (e.all_ranks)
        snprintf(who, sizeof who, "the reduction of every rank's");
    else
        snprintf(who, sizeof who, "rank %d's", e.rank);
    if (x == SIZE_MAX)
        snprintf(when, sizeof when, "no transfer writes it");
    else
        snprintf(when, sizeof when, "its last write is step %zu, line %u",
                 step_of(s, x) + 1, t->line[x]);
    *bad = x == SIZE_MAX ? s->nsteps : step_of(s, x);
    return say(CV_ERR_WRONG, why, len, "not %s: after the last step "
               "r%d.%s[%zu] holds %s, and it should hold %s %s %zu (%s)",
               coll_name(s->call.kind), r, buf_name(l.out_buf), i, held,
               who, unit_word(t), e.pos, when);
}

/* The first unit of transfer tr that the Sim refused (err), its state
 * that of before the step. */
static size_t bad_unit(const Sim *sim, const Transfer *tr, CvError err)
{
    for (size_t i = 0; i < tr->count; i++) {
        size_t si = tr->src_off + i, di = tr->dst_off + i;
        int32_t sp = sim_pos(sim, tr->src, (BufId)tr->src_buf, si);
        int32_t dp = sim_pos(sim, tr->dst, (BufId)tr->dst_buf, di);
        const uint64_t *ss = sim_set(sim, tr->src, (BufId)tr->src_buf, si);
        const uint64_t *ds = sim_set(sim, tr->dst, (BufId)tr->dst_buf, di);
        bool both = false;
        for (size_t w = 0; w < sim->words; w++)
            both = both || (ss[w] & ds[w]);
        if ((err == CV_ERR_UNINIT && dp == SIM_EMPTY) ||
            (err == CV_ERR_MIXED && sp != dp) || (err == CV_ERR_TWICE && both))
            return i;
    }
    return 0;
}

/* The Sim's error at transfer x of step k, in words, at the unit it
 * refused: the state before the step is what the transfer met. */
static CvError bad_reduce(const SchedText *t, Sim *sim, CvError err,
                          size_t k, size_t x, char *why, size_t len)
{
    Transfer tr = t->unit.xfers[x];
    char src[64], dst[64], was[320], from[320];
    sim_seek(sim, k);
    size_t i = bad_unit(sim, &tr, err);
    tr.src_off += i, tr.dst_off += i, tr.count = 1;
    snprintf(src, sizeof src, "r%d.%s[%zu]", tr.src,
             buf_name((BufId)tr.src_buf), tr.src_off);
    snprintf(dst, sizeof dst, "r%d.%s[%zu]", tr.dst,
             buf_name((BufId)tr.dst_buf), tr.dst_off);
    held_text(t, sim, tr.dst, (BufId)tr.dst_buf, tr.dst_off, was,
              sizeof was);
    held_text(t, sim, tr.src, (BufId)tr.src_buf, tr.src_off, from,
              sizeof from);
    if (err == CV_ERR_UNINIT)
        return say(err, why, len, "%u: step %zu reduces %s into %s, which "
                   "holds nothing yet; copy into it first", t->line[x],
                   k + 1, src, dst);
    if (err == CV_ERR_TWICE)
        return say(err, why, len, "%u: step %zu reduces %s (%s) into %s, "
                   "which already holds %s: an input would count twice",
                   t->line[x], k + 1, src, from, dst, was);
    return say(err, why, len, "%u: step %zu reduces %s (%s) into %s (%s): "
               "different elements of the inputs", t->line[x], k + 1, src,
               from, dst, was);
}

CvError sched_text_check(const SchedText *t, size_t *bad_step, char *why,
                         size_t whylen)
{
    size_t bad = t->unit.nsteps;
    SchedCheck chk;
    CvError e = sched_validate(&t->unit, &chk, NULL);
    if (e == CV_ERR_ARG && chk.xfer < t->unit.nxfers) {
        bad = chk.step;
        e = two_writes(t, chk.xfer, why, whylen);
    } else if (e && e != CV_ERR_MISSING) {
        e = say(e, why, whylen, "the schedule cannot be checked: %s",
                cv_strerror(e));
    } else {
        Sim sim;
        if ((e = sim_init(&sim, &t->unit)))
            return say(e, why, whylen, "out of memory");
        if ((e = sim_run(&sim)) && e != CV_ERR_NOMEM) {
            bad = sim.err_step;
            e = bad_reduce(t, &sim, e, sim.err_step, sim.err_xfer, why,
                           whylen);
        } else if (!e && sim_check(&sim, NULL, NULL, NULL)) {
            e = wrong_output(t, &sim, &bad, why, whylen);
        }
        sim_fini(&sim);
    }
    if (bad_step)
        *bad_step = bad;
    return e;
}

/* ------------------------------------------------------------ a call */

CvError sched_text_fits(const SchedText *t, const CollCall *call, char *why,
                        size_t whylen)
{
    const CollCall *u = &t->unit.call;
    if (call->kind != u->kind)
        return say(CV_ERR_ALGO, why, whylen, "the schedule is for %s, not "
                   "%s", coll_name(u->kind), coll_name(call->kind));
    if (call->nranks != u->nranks)
        return say(CV_ERR_ALGO, why, whylen, "the schedule is for %d ranks, "
                   "not %d", u->nranks, call->nranks);
    if (coll_is_rooted(u->kind) && call->root != u->root)
        return say(CV_ERR_ALGO, why, whylen, "the schedule's root is %d, not "
                   "%d", u->root, call->root);
    if (call->in_place != u->in_place)
        return say(CV_ERR_ALGO, why, whylen, "the schedule runs %s only",
                   u->in_place ? "in place" : "out of place");
    if (t->parts && call->count % t->parts)
        return say(CV_ERR_ALGO, why, whylen, "the schedule cuts a block into "
                   "%zu parts, and %zu elements are not a whole number of "
                   "them", t->parts, call->count);
    if (!t->parts && call->count != u->count)
        return say(CV_ERR_ALGO, why, whylen, "the schedule is for %zu "
                   "elements a block, not %zu", u->count, call->count);
    return CV_OK;
}

CvError sched_text_build(const SchedText *t, const CollCall *call, bool reuse,
                         Schedule *out)
{
    const Schedule *u = &t->unit;
    size_t k = t->parts ? call->count / t->parts : 1;
    CvError e = reuse ? sched_reinit(out, call, u->algo)
                      : sched_init(out, call, u->algo);
    if (e)
        return e;
    for (int r = 0; r < call->nranks; r++)
        sched_tmp(out, r, sched_bufsize(u, r, BUF_TMP) * k);
    for (size_t s = 0; s < u->nsteps; s++) {
        const Step *st = &u->steps[s];
        sched_step(out, st->phase);
        for (size_t i = st->first; i < st->first + st->n; i++) {
            const Transfer *x = &u->xfers[i];
            sched_flags(out, x->flags);
            sched_xfer(out, (XferOp)x->op, x->src, (BufId)x->src_buf,
                       x->src_off * k, x->dst, (BufId)x->dst_buf,
                       x->dst_off * k, x->count * k);
        }
    }
    sched_flags(out, 0);
    return sched_end(out);
}
