/* test_algos_schedule.c - the schedules in words (AlgoInfo.schedule):
 * every algorithm has one, the man page's Schedules gives each word for
 * word, and for a few algorithms a claim of the words, worked out by hand
 * from them, holds in the schedule the generator builds: the ring's
 * direction and block order, halving-doubling's partners (xor p'/2 first
 * halving, xor 1 first doubling) and its fold of extra ranks, the
 * binomial broadcast's farthest partner first, pairwise's r+k for p a
 * power of two too (not r xor k), Bruck's all-gather to r-d, the double
 * binary tree's parents, a root folded out of rabenseifner's reduce.
 *
 * Runs from the project's root (make check does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"

/* ---------------------------------------------------------- schedules */

/* Generate algorithm `name` of collective k on p ranks, count elements,
 * out of place. */
static void gen(CollKind k, const char *name, int p, size_t count, int root,
                Schedule *s)
{
    const AlgoInfo *a = algo_find(k, name);
    assert_non_null(a);
    CollCall c = {.kind = k, .nranks = p, .count = count, .dtype = DT_FLOAT,
                  .root = root};
    assert_int_equal(algo_generate(a, &c, s), CV_OK);
}

/* The n-th step (from 0) labelled `phase`, or NULL. */
static const Step *nth_step(const Schedule *s, const char *phase, int n)
{
    for (size_t k = 0; k < s->nsteps; k++)
        if (!strcmp(s->steps[k].phase, phase) && n-- == 0)
            return &s->steps[k];
    return NULL;
}

/* The one transfer of step st from rank src to another rank; fails the
 * test where there is none or more than one. */
static const Transfer *sent_by(const Schedule *s, const Step *st, int src)
{
    const Transfer *found = NULL;
    assert_non_null(st);
    for (size_t j = st->first; j < st->first + st->n; j++) {
        const Transfer *x = &s->xfers[j];
        if (x->src == src && x->dst != src) {
            assert_null(found);
            found = x;
        }
    }
    assert_non_null(found);
    return found;
}

/* Rank src's partner in step st. */
static int partner(const Schedule *s, const Step *st, int src)
{
    return sent_by(s, st, src)->dst;
}

/* ------------------------------------------------------------- claims */

/* allgather ring: "in step k = 0, .., p-2 rank r sends block r-k ... to
 * rank r+1". At p = 5, count 1: rank 0 sends block 0 in step 0, block 4
 * in step 1, block 3 in step 2; every message goes from r to r+1. */
static void test_ring_allgather(void **state)
{
    (void)state;
    Schedule s;
    gen(COLL_ALLGATHER, "ring", 5, 1, 0, &s);
    const size_t want[] = {0, 4, 3, 2};
    for (int k = 0; k < 4; k++) {
        const Step *st = nth_step(&s, "all-gather", k);
        const Transfer *x = sent_by(&s, st, 0);
        assert_int_equal(x->dst, 1);
        assert_int_equal(x->src_off, want[k]);
        for (size_t j = st->first; j < st->first + st->n; j++)
            assert_int_equal(s.xfers[j].dst, (s.xfers[j].src + 1) % 5);
    }
    assert_null(nth_step(&s, "all-gather", 4));
    sched_fini(&s);
}

/* allreduce halving-doubling at p = 8, count 8 (blocks of one element):
 * halving partners of rank 0 are 4, 2, 1 and it sends the other half
 * first (elements 4..7 to rank 4); doubling partners 1, 2, 4, rank 0
 * sending its one block 0 to rank 1 first. */
static void test_halving_doubling(void **state)
{
    (void)state;
    Schedule s;
    gen(COLL_ALLREDUCE, "halving-doubling", 8, 8, 0, &s);
    const int halving[] = {4, 2, 1}, doubling[] = {1, 2, 4};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(partner(&s, nth_step(&s, "reduce-scatter", k), 0),
                         halving[k]);
        assert_int_equal(partner(&s, nth_step(&s, "all-gather", k), 0),
                         doubling[k]);
    }
    const Transfer *x = sent_by(&s, nth_step(&s, "reduce-scatter", 0), 0);
    assert_int_equal(x->src_off, 4);
    assert_int_equal(x->count, 4);
    x = sent_by(&s, nth_step(&s, "all-gather", 0), 0);
    assert_int_equal(x->src_off, 0);
    assert_int_equal(x->count, 1);
    assert_null(nth_step(&s, "fold-in", 0));
    sched_fini(&s);
}

/* At p = 6: p' = 4, e = 2; ranks 0 and 2 fold their whole vector into 1
 * and 3, which play virtual ranks 0 and 1; ranks 4 and 5 play 2 and 3.
 * So rank 1's first halving partner (virtual 0 xor 2) is rank 4, its
 * doubling partners ranks 3 then 4; rank 1 sends the result back to 0. */
static void test_halving_doubling_fold(void **state)
{
    (void)state;
    Schedule s;
    gen(COLL_ALLREDUCE, "halving-doubling", 6, 8, 0, &s);
    const Step *in = nth_step(&s, "fold-in", 0);
    assert_non_null(in);
    assert_int_equal(in->n, 2);
    assert_int_equal(partner(&s, in, 0), 1);
    assert_int_equal(partner(&s, in, 2), 3);
    assert_int_equal(sent_by(&s, in, 0)->count, 8);
    assert_int_equal(partner(&s, nth_step(&s, "reduce-scatter", 0), 1), 4);
    assert_int_equal(partner(&s, nth_step(&s, "all-gather", 0), 1), 3);
    assert_int_equal(partner(&s, nth_step(&s, "all-gather", 1), 1), 4);
    assert_int_equal(partner(&s, nth_step(&s, "fold-out", 0), 1), 0);
    sched_fini(&s);
}

/* broadcast binomial, root 0, p = 8: distance 4 first, so the root sends
 * to 4, then to 2 (and 4 to 6), then to 1. */
static void test_binomial_broadcast(void **state)
{
    (void)state;
    Schedule s;
    gen(COLL_BROADCAST, "binomial", 8, 4, 0, &s);
    const int want[] = {4, 2, 1};
    for (int k = 0; k < 3; k++)
        assert_int_equal(partner(&s, nth_step(&s, "broadcast", k), 0),
                         want[k]);
    assert_int_equal(partner(&s, nth_step(&s, "broadcast", 1), 4), 6);
    sched_fini(&s);
}

/* alltoall pairwise at p = 4: in step k rank 1 sends to rank 1+k mod 4:
 * 2, 3, 0 (r xor k would give 0, 3, 2), its block 1+k, into block 1. */
static void test_pairwise_alltoall(void **state)
{
    (void)state;
    Schedule s;
    gen(COLL_ALLTOALL, "pairwise", 4, 1, 0, &s);
    const int want[] = {2, 3, 0};
    for (int k = 0; k < 3; k++) {
        const Transfer *x = sent_by(&s, nth_step(&s, "exchange", k), 1);
        assert_int_equal(x->dst, want[k]);
        assert_int_equal(x->src_off, (size_t)want[k]);
        assert_int_equal(x->dst_off, 1);
    }
    sched_fini(&s);
}

/* allgather bruck at p = 5: at distance d rank r sends to r-d, so rank 0
 * sends to 4, then to 3 (two slots), then to 1 (one slot: min(4, 1)). */
static void test_bruck_allgather(void **state)
{
    (void)state;
    Schedule s;
    gen(COLL_ALLGATHER, "bruck", 5, 1, 0, &s);
    const int want[] = {4, 3, 1};
    const size_t slots[] = {1, 2, 1};
    for (int k = 0; k < 3; k++) {
        const Transfer *x = sent_by(&s, nth_step(&s, "all-gather", k), 0);
        assert_int_equal(x->dst, want[k]);
        assert_int_equal(x->count, slots[k]);
    }
    sched_fini(&s);
}

/* double-binary-tree at p = 4: tree 0 has 0 <- 2 <- {1, 3} (2 = 2^(2-1)
 * under 0; 1 and 3 under (r xor 1) | 2 = 2); tree 1, mirrored, 3 <- 1
 * <- {2, 0}. In the first reduce step, of height 0, rank 1 sends the
 * first half to 2 and rank 0 the second half to 1. */
static void test_double_binary_tree(void **state)
{
    (void)state;
    Schedule s;
    gen(COLL_ALLREDUCE, "double-binary-tree", 4, 4, 0, &s);
    const Step *st = nth_step(&s, "reduce", 0);
    const Transfer *x = sent_by(&s, st, 1);
    assert_int_equal(x->dst, 2);
    assert_int_equal(x->src_off, 0);
    x = sent_by(&s, st, 0);
    assert_int_equal(x->dst, 1);
    assert_int_equal(x->src_off, 2);
    assert_int_equal(partner(&s, st, 3), 2);
    assert_int_equal(partner(&s, st, 2), 1);
    sched_fini(&s);
}

/* reduce rabenseifner at p = 6, root 1: rank 1 folds into rank 0 (the
 * even one stays), so the root is folded out and first takes piece 0
 * (count 8 in p' = 4 pieces: elements 0 and 1) from rank 0. */
static void test_rabenseifner_root_out(void **state)
{
    (void)state;
    Schedule s;
    gen(COLL_REDUCE, "rabenseifner", 6, 8, 1, &s);
    assert_int_equal(partner(&s, nth_step(&s, "fold-in", 0), 1), 0);
    const Transfer *x = sent_by(&s, nth_step(&s, "to-root", 0), 0);
    assert_int_equal(x->dst, 1);
    assert_int_equal(x->src_off, 0);
    assert_int_equal(x->count, 2);
    sched_fini(&s);
}

/* ---------------------------------------------------------- the words */

/* Every algorithm has a schedule in words. */
static void test_every_algorithm(void **state)
{
    (void)state;
    for (size_t i = 0, n = algo_count(); i < n; i++) {
        const AlgoInfo *a = algo_at(i);
        if (!a->schedule || strlen(a->schedule) < 40)
            fail_msg("%s %s: no schedule in words", coll_name(a->coll),
                     a->name);
    }
}

/* The man page's text of entry `head` ("coll name") in its Schedules: the
 * lines after `.B "head"` up to the next request, joined by one space,
 * with roff's \-, \& and "\ " (a space no line breaks at) read as -,
 * nothing and a space. */
static char *man_entry(const char *page, const char *head, char *buf,
                       size_t len)
{
    char tag[96];
    snprintf(tag, sizeof tag, ".B \"%s\"\n", head);
    const char *l = strstr(page, tag);
    if (!l)
        return NULL;
    size_t at = 0;
    for (l += strlen(tag); *l && *l != '.' && at + 1 < len;) {
        if (at && at + 1 < len)
            buf[at++] = ' ';
        for (; *l && *l != '\n' && at + 1 < len; l++) {
            if (l[0] == '\\' && l[1] && strchr("-& ", l[1])) {
                if (l[1] != '&')
                    buf[at++] = l[1];
                l++;
            } else {
                buf[at++] = *l;
            }
        }
        l += *l == '\n';
    }
    buf[at] = '\0';
    return buf;
}

/* docs/collviz.1's Schedules gives every algorithm's words. */
static void test_man_page(void **state)
{
    (void)state;
    FILE *f = fopen("docs/collviz.1", "r");
    assert_non_null(f);
    static char page[1 << 18];
    size_t n = fread(page, 1, sizeof page - 1, f);
    fclose(f);
    assert_true(n < sizeof page - 1);
    page[n] = '\0';
    char *sec = strstr(page, ".SS Schedules\n");
    assert_non_null(sec);
    char *end = strstr(sec, "\n.SH ");
    if (end)
        end[1] = '\0';
    for (size_t i = 0, m = algo_count(); i < m; i++) {
        const AlgoInfo *a = algo_at(i);
        char head[64], got[2048];
        snprintf(head, sizeof head, "%s %s", coll_name(a->coll), a->name);
        if (!man_entry(sec, head, got, sizeof got))
            fail_msg("docs/collviz.1: no schedule of %s", head);
        if (strcmp(got, a->schedule))
            fail_msg("docs/collviz.1, %s:\n%s\nthe registry:\n%s", head, got,
                     a->schedule);
    }
}

/* An optional argument runs only the tests matching it. */
int main(int argc, char **argv)
{
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_algorithm),
        cmocka_unit_test(test_man_page),
        cmocka_unit_test(test_ring_allgather),
        cmocka_unit_test(test_halving_doubling),
        cmocka_unit_test(test_halving_doubling_fold),
        cmocka_unit_test(test_binomial_broadcast),
        cmocka_unit_test(test_pairwise_alltoall),
        cmocka_unit_test(test_bruck_allgather),
        cmocka_unit_test(test_double_binary_tree),
        cmocka_unit_test(test_rabenseifner_root_out),
    };
    return cmocka_run_group_tests_name("algos_schedule", tests, NULL, NULL);
}
