/* sentence.c - a step in words (see sentence.h). */
#include "ui/sentence.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/i18n.h"

void sentence_ranks(const unsigned char *flags, int p, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    for (int q = 0; q < p && at + 1 < len; q++) {
        if (!flags[q])
            continue;
        int last = q;
        while (last + 1 < p && flags[last + 1])
            last++;
        int n = last == q ? snprintf(out + at, len - at, "%s%d",
                                     at ? "," : "", q)
                          : snprintf(out + at, len - at, "%s%d%s%d",
                                     at ? "," : "", q,
                                     last == q + 1 ? "," : "-", last);
        at = n > 0 && (size_t)n < len - at ? at + (size_t)n : len - 1;
        q = last;
    }
}

/* What step k's transfers have in common. */
typedef struct {
    int p;            /* ranks */
    size_t n;         /* transfers */
    bool local;       /* every transfer stays on its rank */
    bool reduce;      /* every remote transfer reduces */
    bool copy;        /* every remote transfer copies */
    int shift;        /* (dst - src) mod p of every transfer, or -1 */
    int xor_mask;     /* src ^ dst of every transfer, or -1 */
    bool fresh;       /* every source was written by the step before */
    int nsrc, ndst;   /* ranks that send, that receive */
    bool overlap;     /* some rank both sends and receives */
    unsigned char *src, *dst; /* [p] flags */
} Shape;

/* Whether step k - 1 wrote rank r's buffer b at [off, off + n). */
static bool written_before(const Schedule *s, size_t k, int r, int b,
                           size_t off, size_t n)
{
    if (k == 0)
        return false;
    const Step *st = &s->steps[k - 1];
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &s->xfers[i];
        if (t->dst == r && t->dst_buf == b && t->dst_off < off + n &&
            off < t->dst_off + t->count)
            return true;
    }
    return false;
}

static void shape_of(const Schedule *s, size_t k, Shape *sh)
{
    const Step *st = &s->steps[k];
    int p = s->call.nranks;
    sh->p = p, sh->n = st->n;
    sh->local = true, sh->reduce = true, sh->copy = true, sh->fresh = true;
    sh->shift = -2, sh->xor_mask = -2;
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &s->xfers[i];
        if (t->src == t->dst)
            continue;
        sh->local = false;
        sh->reduce &= t->op == XFER_REDUCE;
        sh->copy &= t->op != XFER_REDUCE;
        int d = ((t->dst - t->src) % p + p) % p, m = t->src ^ t->dst;
        sh->shift = sh->shift == -2 || sh->shift == d ? d : -1;
        sh->xor_mask = sh->xor_mask == -2 || sh->xor_mask == m ? m : -1;
        sh->fresh &= written_before(s, k, t->src, t->src_buf, t->src_off,
                                    t->count);
        sh->src[t->src] = sh->dst[t->dst] = 1;
    }
    for (int r = 0; r < p; r++) {
        sh->nsrc += sh->src[r], sh->ndst += sh->dst[r];
        sh->overlap |= sh->src[r] && sh->dst[r];
    }
}

/* A neighbour step: every rank (or some) sends to the rank `shift` on. */
static bool ring_sentence(const Shape *sh, char *out, size_t len)
{
    if (sh->nsrc != sh->p || (sh->shift != 1 && sh->shift != sh->p - 1))
        return false;
    bool right = sh->shift == 1;
    const char *f;
    if (sh->reduce)
        f = sh->fresh ? (right ? _("Every rank sends the block it reduced in "
                                   "the last step to its right neighbour, "
                                   "which adds its own part.")
                               : _("Every rank sends the block it reduced in "
                                   "the last step to its left neighbour, "
                                   "which adds its own part."))
                      : (right ? _("Every rank sends one block of its input "
                                   "to its right neighbour, which adds its "
                                   "own part.")
                               : _("Every rank sends one block of its input "
                                   "to its left neighbour, which adds its "
                                   "own part."));
    else
        f = sh->fresh ? (right ? _("Every rank passes the block it received "
                                   "in the last step on to its right "
                                   "neighbour, which keeps it.")
                               : _("Every rank passes the block it received "
                                   "in the last step on to its left "
                                   "neighbour, which keeps it."))
                      : (right ? _("Every rank sends its block to its right "
                                   "neighbour, which keeps it.")
                               : _("Every rank sends its block to its left "
                                   "neighbour, which keeps it."));
    snprintf(out, len, "%s", f);
    return true;
}

/* Pairs a power of two apart exchange (butterfly, halving-doubling). */
static bool pair_sentence(const Shape *sh, char *out, size_t len)
{
    if (sh->xor_mask <= 0 || !sh->overlap)
        return false;
    snprintf(out, len, sh->reduce ? _("Ranks %d apart (r xor %d) swap "
                                      "halves and each adds what it "
                                      "receives to its own.")
                                  : _("Ranks %d apart (r xor %d) swap what "
                                      "they hold, so each keeps both."),
             sh->xor_mask, sh->xor_mask);
    return true;
}

/* One group sends to another, disjoint one. */
static bool group_sentence(const Shape *sh, char *out, size_t len)
{
    char a[96], b[96];
    if (sh->overlap && sh->nsrc > 1 && sh->ndst > 1)
        return false;
    sentence_ranks(sh->src, sh->p, a, sizeof a);
    sentence_ranks(sh->dst, sh->p, b, sizeof b);
    const char *f;
    if (sh->nsrc == 1)
        f = sh->reduce ? _("Rank %s sends to ranks %s, which add it to "
                           "theirs.")
                       : _("Rank %s sends its data to ranks %s.");
    else if (sh->ndst == 1)
        f = sh->reduce ? _("Ranks %s send to rank %s, which adds them to "
                           "its own.")
                       : _("Ranks %s send their data to rank %s, which "
                           "keeps it.");
    else
        f = sh->reduce ? _("Ranks %s fold their data into ranks %s.")
                       : _("Ranks %s send their data to ranks %s.");
    snprintf(out, len, f, a, b);
    return true;
}

void step_sentence(const Schedule *s, size_t k, char *out, size_t len)
{
    int p = s->call.nranks;
    Shape sh = {0};
    out[0] = '\0';
    if (k >= s->nsteps || p <= 0)
        return;
    sh.src = calloc(2 * (size_t)p, 1);
    if (!sh.src)
        return;
    sh.dst = sh.src + p;
    shape_of(s, k, &sh);
    bool adds = false; /* a local step that reduces (NVLS's sums) */
    for (size_t i = 0; sh.local && i < s->steps[k].n; i++)
        adds |= s->xfers[s->steps[k].first + i].op == XFER_REDUCE;
    if (sh.local)
        snprintf(out, len, "%s",
                 adds ? _("Ranks add parts they hold on their own; nothing "
                          "crosses between ranks.")
                      : _("Every rank copies its input into place on its "
                          "own; nothing crosses between ranks."));
    else if (!ring_sentence(&sh, out, len) && !pair_sentence(&sh, out, len) &&
             !group_sentence(&sh, out, len))
        snprintf(out, len, sh.reduce ? _("%zu transfers between %d ranks; "
                                         "each receiver adds what it gets.")
                                     : _("%zu transfers between %d ranks; "
                                         "each receiver keeps what it gets."),
                 sh.n, sh.nsrc > sh.ndst ? sh.nsrc : sh.ndst);
    free(sh.src);
}
