/* test_ui_sentence.c - the step sentences (src/ui/sentence.c): every
 * step of every algorithm has one; the ones the issues name read as they
 * say; every claim a sentence makes holds for the step's transfers, for
 * every algorithm at p = 2 to 16 and, for the algorithms made for a
 * machine, on every torus, mesh, machine of nodes and reducing switch of
 * those ranks, in English and in Chinese; compact rank sets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "scene/spec.h"
#include "ui/i18n.h"
#include "ui/sentence.h"

/* Every step of every algorithm at several rank counts has a sentence;
 * the ones the issue names read as it says. */
static void test_sentences(void **state)
{
    static const int ps[] = {1, 2, 3, 5, 8, 13};
    char out[400];
    for (size_t a = 0; a < algo_count(); a++)
        for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
            const AlgoInfo *al = algo_at(a);
            CollCall c = {.kind = al->coll, .nranks = ps[i], .dtype = DT_FLOAT,
                          .op = OP_SUM, .count = (size_t)ps[i] * 3};
            Schedule s;
            if (algo_generate(al, &c, &s))
                continue;
            for (size_t k = 0; k < s.nsteps; k++) {
                step_sentence(&s, NULL, k, out, sizeof out);
                if (!out[0])
                    fail_msg("%s p=%d step %zu: no sentence", al->name,
                             ps[i], k);
            }
            sched_fini(&s);
        }
}

/* The sentences the issues name read as they say. */
static void test_sentences_named(void **state)
{
    char out[400];
    Schedule s;
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 8, .dtype = DT_FLOAT,
                  .op = OP_SUM, .count = 64};
    assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "ring"), &c, &s),
                     CV_OK);
    step_sentence(&s, NULL, 0, out, sizeof out);
    assert_non_null(strstr(out, "copies its input"));
    step_sentence(&s, NULL, 2, out, sizeof out);
    assert_string_equal(out, "Every rank sends the block it reduced in the "
                             "last step to its right neighbour, which adds "
                             "its own part.");
    sched_fini(&s);
    assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "butterfly"), &c,
                                   &s), CV_OK);
    int pairs = 0;
    for (size_t k = 0; k < s.nsteps; k++) {
        step_sentence(&s, NULL, k, out, sizeof out);
        pairs += strstr(out, "apart (r xor") != NULL;
    }
    assert_int_equal(pairs, 3); /* log2 8 exchanges */
    /* the butterfly swaps whole vectors (the teacher's P2) */
    for (size_t k = 0; k < s.nsteps; k++) {
        step_sentence(&s, NULL, k, out, sizeof out);
        if (strstr(out, "apart (r xor") && !strstr(out, "whole vectors"))
            fail_msg("butterfly step %zu: %s", k + 1, out);
    }
    sched_fini(&s);
    /* halving-doubling's first exchange swaps halves */
    assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE,
                                             "halving-doubling"), &c, &s),
                     CV_OK);
    bool halves = false;
    for (size_t k = 0; k < s.nsteps; k++) {
        step_sentence(&s, NULL, k, out, sizeof out);
        halves |= strstr(out, "swap halves") != NULL;
    }
    assert_true(halves);
    sched_fini(&s);
    /* the ring's first reduce-scatter step sends a block of the data the
       copy-in put there, not one it reduced (the teacher's P7) */
    assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "ring"), &c, &s),
                     CV_OK);
    step_sentence(&s, NULL, 1, out, sizeof out);
    assert_string_equal(out, "Every rank sends one block of its data to its "
                             "right neighbour, which adds its own part.");
    step_sentence(&s, NULL, 8, out, sizeof out); /* the first all-gather */
    assert_string_equal(out, "Every rank sends the block it finished reducing "
                             "to its right neighbour, which keeps it.");
    sched_fini(&s);
}

/* ---------------------------------------------- sentences against facts */

/* Rank r's buffer b at [off, off + n) was written in step k - 1 by: 'r' a
 * reduce, 'c' another rank's copy, 'l' its own copy, 0 nothing, 'm' more
 * than one kind. */
static char wrote(const Schedule *s, size_t k, int r, int b, size_t off,
                  size_t n)
{
    char w = 0;
    if (!k)
        return 0;
    const Step *st = &s->steps[k - 1];
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &s->xfers[i];
        if (t->dst != r || t->dst_buf != b || t->dst_off >= off + n ||
            off >= t->dst_off + t->count)
            continue;
        char x = t->op == XFER_REDUCE ? 'r' : t->src == t->dst ? 'l' : 'c';
        w = !w || w == x ? x : 'm';
    }
    return w;
}

/* The ranks of a list in a sentence ("0-3,6"), as flags. */
static void parse_ranks(const char *s, int p, unsigned char *in)
{
    memset(in, 0, (size_t)p);
    while (*s >= '0' && *s <= '9') {
        char *e;
        long lo = strtol(s, &e, 10), hi = lo;
        if (*e == '-')
            hi = strtol(e + 1, &e, 10);
        for (long r = lo; r <= hi && r < p; r++)
            in[r] = 1;
        s = *e == ',' ? e + 1 : e;
    }
}

/* A step's sentence and what it is checked against (m: the machine, or
 * NULL). */
typedef struct {
    const AlgoInfo *al;
    const Schedule *s;
    const Machine *m;
    size_t k;
    const char *out;
} Said;

#define SAYS(ms, cond, what)                                                \
    do {                                                                      \
        if (!(cond))                                                          \
            fail_msg("%s p=%d count=%zu step %zu: '%s' claims %s",           \
                     (ms)->al->name, (ms)->s->call.nranks,                    \
                     (ms)->s->call.count, (ms)->k + 1, (ms)->out, what);      \
    } while (0)

/* What a step's transfers do, for the general claims. */
typedef struct {
    const Step *st;
    int p;
    unsigned char any[64], src[64], dst[64]; /* taking part, sending,
                                                receiving (remote) */
    size_t nlocal, nred, ncopy;              /* local, remote reduces and
                                                copies */
    int nany;                                /* ranks taking part */
} Facts;

static void facts_of(const Schedule *s, size_t k, Facts *f)
{
    memset(f, 0, sizeof *f);
    f->st = &s->steps[k], f->p = s->call.nranks;
    for (size_t i = f->st->first; i < f->st->first + f->st->n; i++) {
        const Transfer *t = &s->xfers[i];
        f->any[t->src] = f->any[t->dst] = 1;
        if (t->src == t->dst) {
            f->nlocal++;
            continue;
        }
        f->src[t->src] = f->dst[t->dst] = 1;
        f->nred += t->op == XFER_REDUCE, f->ncopy += t->op != XFER_REDUCE;
    }
    for (int r = 0; r < f->p; r++)
        f->nany += f->any[r];
}

/* Who takes part, whether anything crosses, what receivers do. Several
 * sentences (a machine's step) say what each part does:
 * test_sentences_machines checks them one by one. */
static void check_whole(const Said *ms, const Facts *f)
{
    const char *out = ms->out;
    if (!strncmp(out, "Every rank", 10))
        SAYS(ms, f->nany == f->p, "every rank takes part");
    if (strstr(out, "nothing crosses between ranks"))
        SAYS(ms, f->nlocal == f->st->n, "no transfer between ranks");
    else
        SAYS(ms, f->nlocal < f->st->n, "a transfer between ranks");
    if (strstr(out, ". "))
        return;
    bool adds = strstr(out, "adds") || strstr(out, "add it") ||
                strstr(out, "fold their data"),
         keeps = strstr(out, "keep") != NULL;
    if (adds && !strstr(out, "are kept") && f->nlocal < f->st->n)
        SAYS(ms, f->ncopy == 0, "every remote transfer reduces");
    if (keeps && !strstr(out, " add into "))
        SAYS(ms, f->nred == 0, "no remote transfer reduces");
}

/* Where each remote transfer goes, how much of the vector it carries,
 * what its source holds. */
static void check_each(const Said *ms, const Transfer *t)
{
    const char *out = ms->out;
    const Schedule *s = ms->s;
    int p = s->call.nranks;
    size_t whole = sched_bufsize(s, t->dst, (BufId)t->dst_buf);
    if (strstr(out, "right neighbour"))
        SAYS(ms, t->dst == (t->src + 1) % p, "sends to the right");
    if (strstr(out, "left neighbour"))
        SAYS(ms, t->dst == (t->src + p - 1) % p, "sends to the left");
    const char *x = strstr(out, "(r xor ");
    if (x)
        SAYS(ms, (t->src ^ t->dst) == atoi(x + 7), "partners r xor d");
    if (strstr(out, "whole vectors"))
        SAYS(ms, t->count == whole, "the whole vector");
    if (strstr(out, "swap halves"))
        SAYS(ms, 2 * t->count == whole, "halves");
    const char *f = strstr(out, "swap 1/");
    if (f)
        SAYS(ms, (size_t)atoi(f + 7) * t->count == whole, "1/k of it");
    char w = wrote(s, ms->k, t->src, t->src_buf, t->src_off, t->count);
    if (strstr(out, "reduced in the last step") ||
        strstr(out, "finished reducing"))
        SAYS(ms, w == 'r', "its source was reduced in the last step");
    if (strstr(out, "received in the last step"))
        SAYS(ms, w == 'c', "its source was received in the last step");
}

/* Local copies: the input into place, the result out of scratch. */
static void check_local(const Said *ms, const Facts *f)
{
    const char *out = ms->out;
    const Transfer *x = &ms->s->xfers[f->st->first];
    if (strstr(out, "copies its input into place") ||
        strstr(out, "copy their input into place"))
        for (size_t i = 0; i < f->st->n; i++)
            SAYS(ms, x[i].src_buf == BUF_SEND && x[i].dst_buf == BUF_RECV,
                 "send into receive");
    if (strstr(out, "out of its scratch") ||
        strstr(out, "out of their scratch"))
        for (size_t i = 0; i < f->st->n; i++)
            SAYS(ms, x[i].src_buf == BUF_TMP && x[i].dst_buf == BUF_RECV,
                 "tmp into receive");
}

/* "sends one block" / "sends N blocks": each sender's remote transfers
 * carry that many of the collective's blocks (call.count elements, where
 * it has them; one transfer a block elsewhere). */
static void check_blocks(const Said *ms, const Facts *f)
{
    const Schedule *s = ms->s;
    const char *sb = strstr(ms->out, " sends ");
    int nb = 0, p = f->p;
    if (!sb || (strncmp(sb + 7, "one block", 9) &&
                (sscanf(sb + 7, "%d blocks", &nb) != 1 || nb < 2)))
        return;
    nb = nb ? nb : 1;
    bool blocks = coll_size_blocks(s->call.kind, p) == (size_t)p;
    for (int q = 0; q < p; q++) {
        size_t elems = 0, xfers = 0;
        for (size_t i = f->st->first; i < f->st->first + f->st->n; i++) {
            const Transfer *t = &s->xfers[i];
            if (t->src == q && t->dst != q)
                elems += t->count, xfers++;
        }
        if (xfers)
            SAYS(ms, blocks ? elems == (size_t)nb * s->call.count
                            : xfers == (size_t)nb,
                 "the blocks each rank sends");
    }
}

/* The counts and their grammar ("1 transfer"). */
static void check_counts(const Said *ms, const Facts *f)
{
    const char *out = ms->out;
    size_t n;
    int r;
    if (sscanf(out, "%zu transfer", &n) != 1)
        return;
    SAYS(ms, n == f->st->n, "the step's transfer count");
    SAYS(ms, (n == 1) == !strncmp(strchr(out, ' ') + 1, "transfer ", 9),
         "'transfer' for one, 'transfers' for more");
    const char *b = strstr(out, " between ");
    SAYS(ms, b && sscanf(b, " between %d ranks", &r) == 1 && r == f->nany,
         "the ranks taking part");
}

/* "Rank X" names one rank, "Ranks X" several, and the lists are the
 * senders' and the receivers' (one sentence; a machine's several are
 * checked one by one). */
static void check_who(const Said *ms, const Facts *f)
{
    const char *who[2] = {NULL, NULL};
    int nwho = 0, p = f->p;
    for (const char *q = ms->out; !strstr(ms->out, ". ") &&
                                  (q = strstr(q, "ank")) && nwho < 2;
         q += 3) {
        const char *num = q + 4 + (q[3] == 's');
        if ((q[3] == ' ' || (q[3] == 's' && q[4] == ' ')) && *num >= '0' &&
            *num <= '9' && strncmp(num + strspn(num, "0123456789"), " apart",
                                   6))
            who[nwho++] = q;
    }
    for (int w = 0; w < nwho; w++) {
        bool plural = who[w][3] == 's';
        unsigned char in[64];
        parse_ranks(who[w] + 4 + plural, p, in);
        int c = 0;
        for (int q = 0; q < p; q++)
            c += in[q];
        SAYS(ms, plural ? c > 1 : c == 1, "'Rank' for one, 'Ranks' for more");
        const unsigned char *want = f->nlocal == f->st->n ? f->any
                                    : w == 0 ? f->src : f->dst;
        SAYS(ms, !memcmp(in, want, (size_t)p), "the ranks it names");
    }
}

/* Every claim a step's sentence makes, checked against its transfers:
 * who takes part ("Every rank", "Rank"/"Ranks" and the lists), where the
 * data goes (neighbours, r xor d), how much (whole vectors, halves, 1/k),
 * what the receiver does (adds, keeps), what the source holds (reduced or
 * received in the last step), local steps, and the counts with their
 * grammar ("1 transfer"). */
static void check_sentence(const AlgoInfo *al, const Schedule *s, size_t k,
                           const char *out)
{
    Said ms = {al, s, NULL, k, out};
    Facts f;
    facts_of(s, k, &f);
    check_whole(&ms, &f);
    for (size_t i = f.st->first; i < f.st->first + f.st->n; i++)
        if (s->xfers[i].src != s->xfers[i].dst)
            check_each(&ms, &s->xfers[i]);
    check_local(&ms, &f);
    check_blocks(&ms, &f);
    check_counts(&ms, &f);
    check_who(&ms, &f);
}

/* Every sentence of every algorithm of every collective at p = 2 to 16,
 * at a count each p divides and one it does not, says only what the
 * step's transfers do. */
static void test_sentences_true(void **state)
{
    char out[400];
    ui_lang_use(UI_LANG_EN);
    for (size_t a = 0; a < algo_count(); a++)
        for (int p = 2; p <= 16; p++)
            for (int odd = 0; odd < 2; odd++) {
                const AlgoInfo *al = algo_at(a);
                CollCall c = {.kind = al->coll, .nranks = p, .dtype = DT_FLOAT,
                              .op = OP_SUM, .count = (size_t)(4 * p + odd),
                              .root = p > 2 ? 2 : 0};
                Schedule s;
                if (algo_generate(al, &c, &s))
                    continue;
                for (size_t k = 0; k < s.nsteps; k++) {
                    step_sentence(&s, NULL, k, out, sizeof out);
                    check_sentence(al, &s, k, out);
                }
                sched_fini(&s);
            }
}

static void test_rank_sets(void **state)
{
    unsigned char f[16] = {1, 1, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 1};
    char out[64];
    sentence_ranks(f, 16, out, sizeof out);
    assert_string_equal(out, "0-3,6,8,9,15");
    memset(f, 0, sizeof f);
    sentence_ranks(f, 16, out, sizeof out);
    assert_string_equal(out, "");
    memset(f, 1, sizeof f);
    sentence_ranks(f, 16, out, 4); /* cut, never overrun */
    assert_true(strlen(out) <= 3);
}


/* ------------------------------------------- sentences on machines */

/* The dimension in which ranks a and b differ, -1 none, -2 several. */
static int differ(const Machine *m, int a, int b)
{
    int d = -1;
    for (int i = 0; i < m->ndims; i++)
        if (machine_coord(m, a, i) != machine_coord(m, b, i))
            d = d == -1 ? i : -2;
    return d;
}

/* The dimension a ring sentence names, from its opener, or -1. */
static int named_dim(const Machine *m, const char *out)
{
    const char *cls = NULL;
    if (strstr(out, "Each row "))
        return 0;
    if (strstr(out, "Each column "))
        return 1;
    if (strstr(out, "Each node "))
        return 0;
    if (strstr(out, "across the nodes"))
        return 1;
    if (!strncmp(out, "The ranks run a ring", 20))
        return m->ndims == 1 && (m->dim[0].kind == DIM_MESH) ==
                                (strstr(out, "line of links") != NULL)
               ? 0 : -1;
    if ((cls = strstr(out, "Each line along ")))
        cls += 16;
    else if ((cls = strstr(out, "on their ")))
        cls += 9;
    for (int d = 0; cls && d < m->ndims; d++) {
        const char *n = m->cls[m->dim[d].cls].name;
        if (!strncmp(cls, n, strlen(n)) && cls[strlen(n)] == ' ')
            return d;
    }
    return -1;
}

/* The live vector of dimension d by the algorithm's definition: what the
 * dimensions before it left (torus, hier: 1/k of it each), or the whole
 * (torus_naive, hier_master's ring across); as the whole's divisor. */
static size_t live_div(const Said *ms, int d)
{
    size_t div = 1;
    if (!strcmp(ms->al->name, "torus_naive") ||
        !strcmp(ms->al->name, "hier_master"))
        return 1;
    for (int j = 0; j < d; j++)
        div *= (size_t)ms->m->dim[j].size;
    return div;
}

/* The coordinates of dimension d round the ring "a→b→..." the sentence
 * gives (ranks of one line), into order[k]; false if it is not one. */
static bool ring_given(const Said *ms, int d, const char *as, int *order)
{
    int k = ms->m->dim[d].size, n = 0;
    const char *q = as;
    while (n <= k) {
        char *e;
        long r = strtol(q, &e, 10);
        if (e == q || r < 0 || r >= ms->m->nranks)
            return false;
        order[n++] = machine_coord(ms->m, (int)r, d);
        if (strncmp(e, "\xe2\x86\x92", 3))
            break;
        q = e + 3;
    }
    return n == k + 1 && order[0] == order[k];
}

/* Rank r's line of dimension d: its other coordinates as one number. */
static int line_id(const Machine *m, int r, int d)
{
    int id = 0;
    for (int j = m->ndims - 1; j >= 0; j--)
        if (j != d)
            id = id * m->dim[j].size + machine_coord(m, r, j);
    return id;
}

/* The share a sentence gives after `what` ("sends 1/4", "≈1/4"): its k,
 * whether it says exactly; 0 when it gives none. */
static int share_given(const char *out, const char *what, bool *exact)
{
    const char *f = strstr(out, what);
    if (!f)
        return 0;
    f += strlen(what);
    *exact = strncmp(f, "\xe2\x89\x88", 3) != 0;
    return atoi(f + (*exact ? 0 : 3) + 2);
}

/* Where every transfer of a ring sentence goes, as it says. */
static void check_partner(const Said *ms, int d, const Transfer *t)
{
    const Machine *m = ms->m;
    const char *out = ms->out;
    int k = m->dim[d].size, a = machine_coord(m, t->src, d);
    int b = machine_coord(m, t->dst, d), order[64] = {0};
    const char *as = strstr(out, "(as ");
    if (strstr(out, "neighbour"))
        SAYS(ms, m->dim[d].kind == DIM_RING || m->dim[d].kind == DIM_MESH,
               "neighbours on a line's links");
    if (strstr(out, "neighbours at "))
        SAYS(ms, b == (a + 1) % k || a == (b + 1) % k, "a neighbour");
    else if (strstr(out, "one neighbour, at "))
        SAYS(ms, k == 2 && b != a, "the one neighbour of a line of two");
    else if (strstr(out, "+1."))
        SAYS(ms, b == (a + 1) % k, "the neighbour at c+1");
    else if (strstr(out, "-1."))
        SAYS(ms, a == (b + 1) % k, "the neighbour at c-1");
    else if (as) {
        SAYS(ms, k < 64 && ring_given(ms, d, as + 4, order),
               "a ring through every rank of a line");
        int i = 0;
        while (i < k && order[i] != a)
            i++;
        SAYS(ms, order[i + 1] == b, "the next rank of that ring");
        for (int j = 0; strstr(out, "folded") && j < k; j++)
            SAYS(ms, m->dim[d].kind == DIM_MESH &&
                       order[j] == (j < (k + 1) / 2 ? 2 * j
                                                    : 2 * (k - j) - 1),
                   "the mesh's folded ring 0, 2, 4, .., 5, 3, 1");
    } else
        SAYS(ms, false, "a partner it names");
}

/* Whether the first sentence of out names the word w ("x", "nvlink"). */
static bool opener_names(const char *out, const char *w)
{
    const char *end = strstr(out, ". "), *q = out;
    size_t n = strlen(w);
    while ((q = strstr(q, w)) && (!end || q < end)) {
        if (q > out && q[-1] == ' ' && (q[n] == ' ' || q[n] == '.'))
            return true;
        q += n;
    }
    return false;
}

/* The links of the dimension the rings run on, by their class's name
 * (the machine's one ring has one class), and no other dimension's; two
 * ways: every sender sends one each way. */
static void check_links(const Said *ms, int d, const unsigned char *up)
{
    const Machine *m = ms->m;
    for (int j = 0; m->ndims > 1 && j < m->ndims; j++)
        if (m->dim[j].cls != m->dim[d].cls)
            SAYS(ms, opener_names(ms->out,
                                    m->cls[m->dim[j].cls].name) == (j == d),
                   "the links of the dimension it names");
    for (int r = 0; strstr(ms->out, "one half each way") && r < m->nranks;
         r++)
        SAYS(ms, up[r] == 1, "one half each way");
}

/* A ring sentence: the lines of the dimension it names run a ring on
 * their links, reducing or keeping; every sender sends to the partner it
 * names the share it gives of its line's live vector. */
static void check_rings(const Said *ms)
{
    const Step *st = &ms->s->steps[ms->k];
    const Machine *m = ms->m;
    int p = m->nranks, d = named_dim(m, ms->out);
    SAYS(ms, d >= 0, "a dimension of the machine");
    int k = m->dim[d].size, w = strstr(ms->out, "each half") ? 2 : 1;
    bool rs = strstr(ms->out, "reduce-scatter") != NULL, exact;
    size_t tot[64] = {0};
    unsigned char sent[64] = {0}, named[64], up[64] = {0};
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &ms->s->xfers[i];
        SAYS(ms, differ(m, t->src, t->dst) == d, "rings along it");
        up[t->src] += machine_coord(m, t->dst, d) ==
                      (machine_coord(m, t->src, d) + 1) % k;
        SAYS(ms, (t->op == XFER_REDUCE) == rs,
               "a reduce-scatter adds, an all-gather keeps");
        tot[line_id(m, t->src, d)] += t->count, sent[t->src]++;
        check_partner(ms, d, t);
    }
    check_links(ms, d, up);
    if (!strncmp(ms->out, "Ranks ", 6)) {
        parse_ranks(ms->out + 6, p, named);
        for (int r = 0; r < p; r++)
            SAYS(ms, !named[r] == !sent[r], "the ranks it names");
    }
    for (int r = 0; r < p; r++)
        SAYS(ms, sent[r] == (!strncmp(ms->out, "Ranks ", 6) && !named[r]
                               ? 0 : w), "every rank: one (two) each");
    int kk = share_given(ms->out, rs ? "sends " : "passes ", &exact);
    SAYS(ms, kk == k, "1/k, k the line's ranks");
    bool all = true;
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &ms->s->xfers[i];
        size_t line = tot[line_id(m, t->src, d)];
        all &= t->count * (size_t)(k * w) == line;
        size_t whole = sched_bufsize(ms->s, t->dst, (BufId)t->dst_buf);
        size_t div = live_div(ms, d);
        if (exact && whole % div == 0)
            SAYS(ms, line == whole / div, "what is still live: the "
                                            "vector the dimensions before "
                                            "left");
    }
    SAYS(ms, all == exact, "exactly 1/k, or about");
}

/* NCCL's tree on nodes, by its definition: up a chain (reduce into local
 * rank l-1), up the heads' trees (reduce, both heads), down a chain (copy
 * to l+1), down the trees; -1 none of them. */
static int tree_way(const Machine *m, const Transfer *t)
{
    int a = machine_coord(m, t->src, 0), b = machine_coord(m, t->dst, 0);
    bool red = t->op == XFER_REDUCE;
    if (machine_coord(m, t->src, 1) != machine_coord(m, t->dst, 1))
        return a || b ? -1 : red ? 1 : 3;
    return red && b == a - 1 ? 0 : !red && b == a + 1 ? 2 : -1;
}

/* The sentence of out that holds `words`, into one (empty: none). */
static void sentence_with(const char *out, const char *words, char *one,
                          size_t len)
{
    const char *w = strstr(out, words), *a = out, *q;
    one[0] = '\0';
    if (!w)
        return;
    while ((q = strstr(a, ". ")) && q < w)
        a = q + 2;
    q = strstr(w, ". ");
    snprintf(one, len, "%.*s", (int)(q ? (size_t)(q - a) : strlen(a)), a);
}

/* Each way of the tree the step moves chunks has its sentence, which
 * names its senders, how many chunks each sends and their share. */
static void check_tree(const Said *ms)
{
    static const char *const words[4] = {"up the chain", "up the trees",
                                         "down the chain", "down the trees"};
    const Step *st = &ms->s->steps[ms->k];
    int p = ms->m->nranks;
    for (int w = 0; w < 4; w++) {
        unsigned char from[64] = {0}, named[64];
        int most = 0, cnt[64] = {0};
        bool exact = true, any = false;
        char one[400];
        for (size_t i = st->first; i < st->first + st->n; i++) {
            const Transfer *t = &ms->s->xfers[i];
            SAYS(ms, tree_way(ms->m, t) >= 0, "chains and heads' trees");
            if (tree_way(ms->m, t) != w)
                continue;
            any = true, from[t->src] = 1, cnt[t->src]++;
            most = cnt[t->src] > most ? cnt[t->src] : most;
        }
        sentence_with(ms->out, words[w], one, sizeof one);
        SAYS(ms, any == (one[0] != 0), words[w]);
        if (!any)
            continue;
        const char *r = strstr(one, "rank");
        parse_ranks(r + 5 + (r[4] == 's'), p, named);
        SAYS(ms, !memcmp(named, from, (size_t)p), "its senders");
        SAYS(ms, (most > 1) == (strstr(one, "chunks (") != NULL),
               "a chunk or chunks a sender");
        int k = share_given(one, "(", &exact);
        for (size_t i = st->first; i < st->first + st->n; i++) {
            const Transfer *t = &ms->s->xfers[i];
            if (tree_way(ms->m, t) == w && exact)
                SAYS(ms, t->count * (size_t)k == ms->s->call.count,
                       "the chunk's share of the vector");
        }
    }
}

/* The distinct destinations of rank r's transfers of a kind (switch:
 * marked XF_SWITCH, copies) in the step. */
static int fan_out(const Said *ms, int r, bool sw)
{
    const Step *st = &ms->s->steps[ms->k];
    unsigned char to[64] = {0};
    int n = 0;
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &ms->s->xfers[i];
        if (t->src == r && t->op == XFER_COPY &&
            !(t->flags & XF_SWITCH) == !sw && !to[t->dst])
            to[t->dst] = 1, n++;
    }
    return n;
}

/* The distinct ranks whose copies marked as the switch's reach rank r. */
static int fan_in(const Said *ms, int r)
{
    const Step *st = &ms->s->steps[ms->k];
    unsigned char from[64] = {0};
    int n = 0;
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &ms->s->xfers[i];
        if (t->dst == r && t->op == XFER_COPY && (t->flags & XF_SWITCH) &&
            !from[t->src])
            from[t->src] = 1, n++;
    }
    return n;
}

/* NVLS on a reducing switch: the loads of a chunk (copies marked as the
 * switch's) from every rank to each owner, the switch's sums (local
 * reduces marked so), the multicast (every rank one range to all). */
static void check_switch(const Said *ms)
{
    const Step *st = &ms->s->steps[ms->k];
    int p = ms->m->nranks, n;
    bool load = false, sum = false, cast = false, exact;
    SAYS(ms, machine_has_reducing_switch(ms->m), "a switch that sums");
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const Transfer *t = &ms->s->xfers[i];
        bool sw = (t->flags & XF_SWITCH) != 0;
        load |= sw && t->op == XFER_COPY;
        sum |= sw && t->op == XFER_REDUCE && t->src == t->dst;
        cast |= !sw && t->op == XFER_COPY;
    }
    char one[400];
    sentence_with(ms->out, "Load-reduce:", one, sizeof one);
    SAYS(ms, load == (one[0] != 0), "the loads");
    const char *owners = strstr(one, "each of the ");
    const char *loads = strstr(one, "; the ");
    SAYS(ms, !load || (owners && loads), "how many owners and loads");
    if (load && owners && sscanf(owners, "each of the %d", &n))
        for (int r = 0; r < p; r++)
            SAYS(ms, fan_out(ms, r, true) == n, "every rank loads a "
                                                  "slice for n owners");
    if (load && loads && sscanf(loads, "; the %d loads", &n))
        for (int r = 0; r < p; r++)
            SAYS(ms, fan_in(ms, r) == n, "n loads into each owner");
    SAYS(ms, sum == (strstr(ms->out, "The switch sums the loads") !=
                       NULL), "the switch's sums");
    sentence_with(ms->out, "Multicast:", one, sizeof one);
    SAYS(ms, cast == (one[0] != 0), "the multicast");
    if (cast && sscanf(strstr(one, "to all "), "to all %d", &n)) {
        int k = share_given(one, "(", &exact);
        for (int r = 0; r < p; r++)
            SAYS(ms, fan_out(ms, r, false) == n, "every rank to all");
        for (size_t i = st->first; i < st->first + st->n; i++) {
            const Transfer *t = &ms->s->xfers[i];
            if (!(t->flags & XF_SWITCH) && exact)
                SAYS(ms, t->count * (size_t)k == ms->s->call.count,
                       "the slice's share of the vector");
        }
    }
}

/* The numbers of a sentence with what is joined to them ("1/4",
 * "x+1", "0", "2"), one blank between. */
static void numbers(const char *s, char *out, size_t len)
{
    size_t n = 0;
    while (*s && n + 2 < len) {
        size_t w = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789+-/");
        if (w && strcspn(s, "0123456789") < w) {
            n += (size_t)snprintf(out + n, len - n, "%s%.*s", n ? " " : "",
                                  (int)w, s);
            n = n < len ? n : len - 1;
        }
        s += w ? w : 1;
    }
    out[n] = '\0';
}

/* The Chinese sentence: translated (no English words, some CJK), with
 * the English one's numbers, coordinates and shares in the same order. */
static void check_zh(const Said *ms, const char *zh)
{
    char a[400], b[400];
    bool cjk = false;
    numbers(ms->out, a, sizeof a);
    numbers(zh, b, sizeof b);
    for (const char *q = zh; *q; q++)
        cjk |= (unsigned char)*q >= 0xe4 && (unsigned char)*q <= 0xe9;
    if (strcmp(a, b) || strstr(zh, "Each") || strstr(zh, "Every") ||
        strstr(zh, "rank") || !cjk)
        fail_msg("%s p=%d step %zu: Chinese '%s' for '%s' (numbers '%s', "
                 "'%s')", ms->al->name, ms->s->call.nranks, ms->k + 1, zh,
                 ms->out, b, a);
}

/* Steps whose sentence was checked as a machine's (rings, trees, the
 * switch), by algorithm. */
typedef struct {
    const AlgoInfo *al;
    int n;
} Tally;

/* Every step of al on machine spec with p ranks, in both languages. */
static void machine_steps(const AlgoInfo *al, const char *spec, int p,
                          Tally *tally)
{
    SpecModel cm;
    CliErr e = {""};
    Machine m;
    char en[400], zh[400];
    assert_int_equal(spec_parse_model(NULL, NULL, NULL, NULL, &cm, &e), 0);
    if (spec_parse(spec, p, &cm, &m, &e))
        return;
    for (int odd = 0; odd < 2; odd++) {
        CollCall c = {.kind = al->coll, .nranks = p, .dtype = DT_FLOAT,
                      .op = OP_SUM, .count = (size_t)(4 * p + odd)};
        Schedule s;
        if (algo_generate_on(al, &c, &m, &s, NULL, 0))
            continue;
        for (size_t k = 0; k < s.nsteps; k++) {
            Said ms = {al, &s, &m, k, en};
            ui_lang_use(UI_LANG_EN);
            step_sentence(&s, &m, k, en, sizeof en);
            if (getenv("COLLVIZ_SAY"))
                print_message("%s %s p=%d #%zu: %s\n", al->name, spec, p,
                              k + 1, en);
            check_sentence(al, &s, k, en);
            SAYS(&ms, !strstr(en, "transfers between") &&
                            !strstr(en, "transfer between"),
                   "no counts alone");
            bool mach = true;
            if (strstr(en, " a ring "))
                check_rings(&ms);
            else if (strstr(en, "the chain") || strstr(en, "the trees"))
                check_tree(&ms);
            else if (strstr(en, "switch") || strstr(en, "Multicast"))
                check_switch(&ms);
            else
                mach = false;
            tally->n += mach;
            ui_lang_use(UI_LANG_ZH);
            step_sentence(&s, &m, k, zh, sizeof zh);
            check_zh(&ms, zh);
            /* without the machine: the general sentences, still true */
            step_sentence(&s, NULL, k, zh, sizeof zh);
            ui_lang_use(UI_LANG_EN);
            step_sentence(&s, NULL, k, en, sizeof en);
            check_sentence(al, &s, k, en);
        }
        sched_fini(&s);
    }
    ui_lang_use(UI_LANG_EN);
}

/* The machines of p ranks: tori and meshes of every shape in one, two
 * and three dimensions (each at least 2 in three), the ring, nodes GxL,
 * the reducing switch. */
static int machines_of(int p, char (*spec)[32], int cap)
{
    int n = 0;
    static const char *const kinds[] = {"torus", "mesh"};
    for (int a = 1; a <= p; a++) {
        if (p % a)
            continue;
        for (int i = 0; i < 2 && n + 3 < cap; i++)
            snprintf(spec[n++], 32, "%s:%dx%d", kinds[i], a, p / a);
        snprintf(spec[n++], 32, "nodes:%dx%d", a, p / a);
        for (int b = 2; a > 1 && b <= p / a; b++)
            for (int i = 0; i < 2 && (p / a) % b == 0 && p / a / b > 1 &&
                            n < cap; i++)
                snprintf(spec[n++], 32, "%s:%dx%dx%d", kinds[i], a, b,
                         p / a / b);
    }
    if (n + 4 <= cap) {
        snprintf(spec[n++], 32, "ring:%d", p);
        snprintf(spec[n++], 32, "torus:%d", p);
        snprintf(spec[n++], 32, "mesh:%d", p);
        snprintf(spec[n++], 32, "switch:%d,reduce", p);
    }
    return n;
}

/* Step k of allreduce algo on 16 ranks (64 elements) of machine spec. */
static void say_on(const char *algo, const char *spec, size_t k, char *out,
                   size_t len)
{
    SpecModel cm;
    CliErr e = {""};
    Machine m;
    Schedule s;
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 16, .dtype = DT_FLOAT,
                  .op = OP_SUM, .count = 64};
    assert_int_equal(spec_parse_model(NULL, NULL, NULL, NULL, &cm, &e), 0);
    assert_int_equal(spec_parse(spec, 16, &cm, &m, &e), 0);
    assert_int_equal(algo_generate_on(algo_find(COLL_ALLREDUCE, algo), &c,
                                      &m, &s, NULL, 0), CV_OK);
    step_sentence(&s, &m, k, out, len);
    sched_fini(&s);
}

/* The machine steps of the teacher's T6, by hand: the torus's rows then
 * columns (1/4 of a vector of 64, then of the 16 left live), the mesh's
 * folded ring 0, 2, 3, 1, hier's exchange across two nodes (1/16), and
 * NVLS's load-reduce of 16 slices. */
static void test_sentences_machine_named(void **state)
{
    char out[400];
    say_on("torus", "torus:4x4", 1, out, sizeof out);
    assert_string_equal(out, "Each row runs a ring reduce-scatter on its x "
                             "links. Each rank sends 1/4 of what is still "
                             "live to its neighbour at x+1.");
    say_on("torus", "torus:4x4", 4, out, sizeof out);
    assert_string_equal(out, "Each column runs a ring reduce-scatter on its "
                             "y links. Each rank sends 1/4 of what is still "
                             "live to its neighbour at y+1.");
    say_on("torus", "mesh:4x4", 1, out, sizeof out);
    assert_non_null(strstr(out, "next rank of its folded ring (as "
                                "0\xe2\x86\x92" "2\xe2\x86\x92" "3"
                                "\xe2\x86\x92" "1\xe2\x86\x92" "0)"));
    say_on("hier", "nodes:2x8", 8, out, sizeof out);
    assert_string_equal(out, "Ranks 8 apart (r xor 8) swap 1/16 of the "
                             "vector each, and each adds what it receives "
                             "to its own.");
    say_on("nvls", "switch:16,reduce", 0, out, sizeof out);
    assert_non_null(strstr(out, "Load-reduce: every rank loads its slice of "
                                "a chunk for each of the 16 ranks (1/16 of "
                                "the vector each) into the switch"));
}

/* Every algorithm made for a machine, on every machine of p = 2 to 16
 * ranks it is made for: its sentences say what the transfers do, in the
 * machine's terms, and each of them says some steps so. */
static void test_sentences_machines(void **state)
{
    Tally tally[32] = {{0}};
    int na = 0;
    for (size_t a = 0; a < algo_count() && na < 32; a++)
        if (algo_at(a)->fits)
            tally[na++].al = algo_at(a);
    for (int p = 2; p <= 16; p++) {
        char spec[64][32];
        int n = machines_of(p, spec, 64);
        for (int i = 0; i < na; i++)
            for (int j = 0; j < n; j++)
                machine_steps(tally[i].al, spec[j], p, &tally[i]);
    }
    for (int i = 0; i < na; i++)
        if (!tally[i].n)
            fail_msg("%s: no step said in its machine's terms",
                     tally[i].al->name);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sentences),
        cmocka_unit_test(test_sentences_named),
        cmocka_unit_test(test_sentences_machine_named),
        cmocka_unit_test(test_sentences_true),
        cmocka_unit_test(test_sentences_machines),
        cmocka_unit_test(test_rank_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
