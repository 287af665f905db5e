/* sentence.c - a step in words (see sentence.h). */
#include "ui/sentence.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/i18n.h"
#include "ui/sentence_mach.h"

/* How step k - 1 wrote rank r's buffer b at [off, off + n). */
static SrcKind written_before(const Schedule *s, size_t k, int r, int b,
                              size_t off, size_t n)
{
    if (k == 0)
        return SRC_NONE;
    const Step *st = &s->steps[k - 1];
    SrcKind w = SRC_NONE;
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &s->xfers[i];
        if (t->dst != r || t->dst_buf != b || t->dst_off >= off + n ||
            off >= t->dst_off + t->count)
            continue;
        SrcKind k2 = t->op == XFER_REDUCE ? SRC_REDUCED
                     : t->src == t->dst ? SRC_COPIED : SRC_RECEIVED;
        w = w == SRC_NONE || w == k2 ? k2 : SRC_MIXED;
    }
    return w;
}

static void shape_of(const Schedule *s, size_t k, StepShape *sh)
{
    const Step *st = &s->steps[k];
    int p = s->call.nranks;
    sh->p = p, sh->n = st->n;
    sh->local_in = sh->local_out = true;
    sh->shift = -2, sh->xor_mask = -2, sh->part = -2, sh->blocks = -2;
    size_t bc = coll_size_blocks(s->call.kind, p) == (size_t)p
                    ? s->call.count : 0; /* a block's elements, 0: none */
    sh->src_kind = (SrcKind)-1;
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &s->xfers[i];
        sh->any[t->src] = sh->any[t->dst] = 1;
        sh->sw |= (t->flags & XF_SWITCH) != 0;
        if (t->src == t->dst) {
            sh->nlocal++;
            if (t->op == XFER_REDUCE) {
                sh->lred++;
            } else {
                sh->lcopy++;
                sh->local_in &= t->src_buf == BUF_SEND &&
                                t->dst_buf == BUF_RECV;
                sh->local_out &= t->src_buf == BUF_TMP &&
                                 t->dst_buf == BUF_RECV;
            }
            continue;
        }
        if (t->op == XFER_REDUCE)
            sh->nred++;
        else
            sh->ncopy++;
        int d = ((t->dst - t->src) % p + p) % p, m = t->src ^ t->dst;
        sh->shift = sh->shift == -2 || sh->shift == d ? d : -1;
        sh->xor_mask = sh->xor_mask == -2 || sh->xor_mask == m ? m : -1;
        size_t whole = sched_bufsize(s, t->dst, (BufId)t->dst_buf);
        int part = t->count && whole % t->count == 0 &&
                   whole / t->count <= 1024 ? (int)(whole / t->count) : 0;
        sh->part = sh->part == -2 || sh->part == part ? part : 0;
        int nb = bc && t->count % bc == 0 ? (int)(t->count / bc) : 1;
        sh->blocks = sh->blocks == -2 || sh->blocks == nb ? nb : -1;
        SrcKind w = written_before(s, k, t->src, t->src_buf, t->src_off,
                                   t->count);
        sh->src_kind = sh->src_kind == (SrcKind)-1 || sh->src_kind == w
                       ? w : SRC_MIXED;
        sh->src[t->src] = sh->dst[t->dst] = 1;
    }
    for (int r = 0; r < p; r++) {
        sh->nsrc += sh->src[r], sh->ndst += sh->dst[r], sh->nany += sh->any[r];
        sh->overlap |= sh->src[r] && sh->dst[r];
    }
}

/* A step that stays on every rank. */
static void local_sentence(const Machine *m, const StepShape *sh,
                           char *out, size_t len)
{
    char who[96];
    bool all = sh->nany == sh->p, one = sh->nany == 1;
    sentence_ranks(sh->any, sh->p, who, sizeof who);
    if (sh->lred && sh->sw) /* NVLS: the switch's sums */
        snprintf(out, len, "%s", sentence_switch_sums(m));
    else if (sh->lred && !sh->lcopy)
        snprintf(out, len, all ? _("Every rank adds what it received into "
                                   "its own data; nothing crosses between "
                                   "ranks.")
                           : one ? _("Rank %s adds what it received into its "
                                     "own data; nothing crosses between "
                                     "ranks.")
                                 : _("Ranks %s add what they received into "
                                     "their own data; nothing crosses "
                                     "between ranks."), who);
    else if (sh->lred)
        snprintf(out, len, _("Ranks %s copy and add within their own "
                             "buffers; nothing crosses between ranks."), who);
    else if (sh->local_in)
        snprintf(out, len, all ? _("Every rank copies its input into place "
                                   "on its own; nothing crosses between "
                                   "ranks.")
                           : one ? _("Rank %s copies its input into place on "
                                     "its own; nothing crosses between "
                                     "ranks.")
                                 : _("Ranks %s copy their input into place "
                                     "on their own; nothing crosses between "
                                     "ranks."), who);
    else if (sh->local_out)
        snprintf(out, len, all ? _("Every rank copies its result out of its "
                                   "scratch buffer into its output; nothing "
                                   "crosses between ranks.")
                           : one ? _("Rank %s copies its result out of its "
                                     "scratch buffer into its output; "
                                     "nothing crosses between ranks.")
                                 : _("Ranks %s copy their result out of "
                                     "their scratch buffers into their "
                                     "output; nothing crosses between "
                                     "ranks."), who);
    else
        snprintf(out, len, all ? _("Every rank moves data within its own "
                                   "buffers; nothing crosses between ranks.")
                               : _("Ranks %s move data within their own "
                                   "buffers; nothing crosses between "
                                   "ranks."), who);
}

/* A neighbour step: every rank sends to the rank `shift` on, one block. */
static bool ring_sentence(const StepShape *sh, char *out, size_t len)
{
    if (sh->nsrc != sh->p || sh->nlocal || (sh->nred && sh->ncopy) ||
        (sh->shift != 1 && sh->shift != sh->p - 1) || sh->p < 3)
        return false;
    bool right = sh->shift == 1;
    /* blocks each rank sends: its transfers times the blocks of each */
    int n = (int)(sh->nred + sh->ncopy), per = n / sh->p * sh->blocks;
    if (n % sh->p || sh->blocks < 1)
        return false;
    if (per > 1) { /* Bruck's steps: several blocks to one neighbour */
        if (sh->nred)
            snprintf(out, len, right ? _("Every rank sends %d blocks to its "
                                         "right neighbour, which adds them "
                                         "to its own.")
                                     : _("Every rank sends %d blocks to its "
                                         "left neighbour, which adds them to "
                                         "its own."), per);
        else
            snprintf(out, len, right ? _("Every rank sends %d blocks to its "
                                         "right neighbour, which keeps them.")
                                     : _("Every rank sends %d blocks to its "
                                         "left neighbour, which keeps them."),
                     per);
        return true;
    }
    const char *f;
    if (sh->nred)
        f = sh->src_kind == SRC_REDUCED
            ? (right ? _("Every rank sends the block it reduced in the last "
                         "step to its right neighbour, which adds its own "
                         "part.")
                     : _("Every rank sends the block it reduced in the last "
                         "step to its left neighbour, which adds its own "
                         "part."))
            : (right ? _("Every rank sends one block of its data to its "
                         "right neighbour, which adds its own part.")
                     : _("Every rank sends one block of its data to its left "
                         "neighbour, which adds its own part."));
    else
        f = sh->src_kind == SRC_RECEIVED
            ? (right ? _("Every rank passes the block it received in the "
                         "last step on to its right neighbour, which keeps "
                         "it.")
                     : _("Every rank passes the block it received in the "
                         "last step on to its left neighbour, which keeps "
                         "it."))
            : sh->src_kind == SRC_REDUCED
            ? (right ? _("Every rank sends the block it finished reducing to "
                         "its right neighbour, which keeps it.")
                     : _("Every rank sends the block it finished reducing to "
                         "its left neighbour, which keeps it."))
            : (right ? _("Every rank sends one block of its data to its "
                         "right neighbour, which keeps it.")
                     : _("Every rank sends one block of its data to its left "
                         "neighbour, which keeps it."));
    snprintf(out, len, "%s", f);
    return true;
}

/* Pairs r and r xor d exchange: the whole vector (butterfly), or a part of
 * it (halving-doubling), reducing or keeping. */
static bool pair_sentence(const StepShape *sh, char *out, size_t len)
{
    if (sh->xor_mask <= 0 || !sh->overlap || sh->nlocal ||
        (sh->nred && sh->ncopy) || sh->nsrc != sh->ndst ||
        sh->nred + sh->ncopy != (size_t)sh->nsrc)
        return false;
    int d = sh->xor_mask;
    if (sh->nred && sh->part == 1)
        snprintf(out, len, _("Ranks %d apart (r xor %d) swap their whole "
                             "vectors, and each adds what it receives to its "
                             "own."), d, d);
    else if (sh->nred && sh->part == 2)
        snprintf(out, len, _("Ranks %d apart (r xor %d) swap halves: each "
                             "sends the half it gives up and adds the half it "
                             "receives to its own."), d, d);
    else if (sh->nred && sh->part > 2)
        snprintf(out, len, _("Ranks %d apart (r xor %d) swap 1/%d of the "
                             "vector each, and each adds what it receives "
                             "to its own."), d, d, sh->part);
    else if (sh->nred)
        snprintf(out, len, _("Ranks %d apart (r xor %d) swap parts, and each "
                             "adds what it receives to its own."), d, d);
    else
        snprintf(out, len, _("Ranks %d apart (r xor %d) swap what they hold, "
                             "so each keeps both."), d, d);
    return true;
}

/* One group sends to another, disjoint one. */
static bool group_sentence(const StepShape *sh, char *out, size_t len)
{
    char a[96], b[96];
    if ((sh->overlap && sh->nsrc > 1 && sh->ndst > 1) || sh->nlocal ||
        (sh->nred && sh->ncopy))
        return false;
    sentence_ranks(sh->src, sh->p, a, sizeof a);
    sentence_ranks(sh->dst, sh->p, b, sizeof b);
    bool red = sh->nred > 0, part = sh->part != 1;
    const char *f;
    if (sh->nsrc == 1 && sh->ndst == 1)
        f = red ? _("Rank %s sends to rank %s, which adds it to its own.")
                : part ? _("Rank %s sends part of its data to rank %s.")
                       : _("Rank %s sends its data to rank %s.");
    else if (sh->nsrc == 1)
        f = red ? _("Rank %s sends to ranks %s, which add it to theirs.")
                : part ? _("Rank %s sends parts of its data to ranks %s.")
                       : _("Rank %s sends its data to ranks %s.");
    else if (sh->ndst == 1)
        f = red ? _("Ranks %s send to rank %s, which adds them to its own.")
                : _("Ranks %s send their data to rank %s, which keeps it.");
    else
        f = red ? _("Ranks %s fold their data into ranks %s.")
                : _("Ranks %s send their data to ranks %s.");
    snprintf(out, len, f, a, b);
    return true;
}

void step_sentence(const Schedule *s, const Machine *m, size_t k, char *out,
                   size_t len)
{
    int p = s->call.nranks;
    StepShape sh = {0};
    out[0] = '\0';
    if (k >= s->nsteps || p <= 0)
        return;
    sh.src = calloc(3 * (size_t)p, 1);
    if (!sh.src)
        return;
    sh.dst = sh.src + p, sh.any = sh.src + 2 * (size_t)p;
    shape_of(s, k, &sh);
    if (sh.nlocal == sh.n)
        local_sentence(m, &sh, out, len);
    else if (!sentence_switch(s, k, m, &sh, out, len) &&
             !ring_sentence(&sh, out, len) && !pair_sentence(&sh, out, len) &&
             !sentence_lines(s, k, m, &sh, out, len) &&
             !sentence_tree(s, k, m, &sh, out, len) &&
             !group_sentence(&sh, out, len)) {
        /* the counts, in words that fit one transfer and many */
        char what[200];
        if (sh.nred && (sh.ncopy || sh.nlocal))
            snprintf(what, sizeof what, _("%zu add into what the receiver "
                                          "holds, %zu are kept as sent"),
                     sh.nred + sh.lred, sh.ncopy + sh.lcopy);
        else
            snprintf(what, sizeof what, "%s",
                     sh.nred ? _("each receiver adds what it gets")
                             : _("each receiver keeps what it gets"));
        snprintf(out, len, sh.n == 1 ? _("%zu transfer between %d ranks; %s.")
                                     : _("%zu transfers between %d ranks; %s."),
                 sh.n, sh.nany, what);
    }
    free(sh.src);
}
