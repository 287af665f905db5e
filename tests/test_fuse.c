/* test_fuse.c - copy-in fusion over a whole schedule (sched_fuse_map):
 * running a schedule as the map allows (reads of an untouched copy from
 * the input itself, reduces starting from the input, unneeded copies
 * skipped) leaves every send and recv buffer of every rank as the step
 * semantics do,
 * for every algorithm; and what it finds, by hand, on small schedules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "core/sched.h"

#include "call_fixture.h"

static CollCall call(CollKind k, int p, size_t n, bool in_place)
{
    return (CollCall){.kind = k, .nranks = p, .count = n, .dtype = DT_INT32,
                      .op = OP_SUM, .root = coll_is_rooted(k) ? p / 2 : 0,
                      .in_place = in_place};
}

/* The map of s, checked for shape: own only on reduces, skip only on
 * copy-ins; arrays the caller frees. */
typedef struct {
    const Transfer **own, **via;
    uint8_t *skip;
} Map;

static Map map_of(const Schedule *s)
{
    Map m = {calloc(s->nxfers + 1, sizeof *m.own),
             calloc(s->nxfers + 1, sizeof *m.via), calloc(s->nxfers + 1, 1)};
    assert_true(m.own && m.via && m.skip);
    assert_int_equal(sched_fuse_map(s, m.own, m.via, m.skip), CV_OK);
    return m;
}

static void map_free(Map *m)
{
    free(m->own), free(m->via), free(m->skip);
}

/* ---------------------------------------------------- an interpreter */

/* Every buffer of every rank as 64-bit words. The reduction is
 * a op b = 3a + b (mod 2^64): not commutative, so a fused reduce that
 * took its operands in the other order would show. */
typedef struct {
    const Schedule *s;
    uint64_t *mem;
    size_t *base; /* [rank * BUF_COUNT + buf] */
    size_t total;
} Mem;

static void mem_init(Mem *m, const Schedule *s)
{
    size_t p = (size_t)s->call.nranks;
    m->s = s;
    m->base = calloc(p * BUF_COUNT + 1, sizeof *m->base);
    assert_non_null(m->base);
    m->total = 0;
    for (size_t i = 0; i < p * BUF_COUNT; i++) {
        m->base[i] = m->total;
        m->total += s->bufsize[i];
    }
    m->mem = malloc((m->total + 1) * sizeof *m->mem);
    assert_non_null(m->mem);
    for (size_t i = 0; i < m->total; i++) /* distinct, input or not */
        m->mem[i] = (i + 1) * 0x9E3779B97F4A7C15u;
}

static uint64_t *at(Mem *m, int32_t rank, uint8_t buf, size_t off)
{
    return m->mem + m->base[(size_t)rank * BUF_COUNT + buf] + off;
}

/* Run s on m; with map f, as an executor that takes the map does. Every
 * read of a step is made before any write of it. */
static void run(Mem *m, const Map *f)
{
    const Schedule *s = m->s;
    for (size_t k = 0; k < s->nsteps; k++) {
        size_t first = s->steps[k].first, end = first + s->steps[k].n, n = 0;
        for (size_t i = first; i < end; i++)
            n += s->xfers[i].count;
        uint64_t *v = malloc((n + 1) * sizeof *v), *w = v;
        assert_non_null(v);
        for (size_t i = first; i < end; i++, w += s->xfers[i - 1].count) {
            const Transfer *t = &s->xfers[i], *x = f ? f->via[i] : NULL;
            const uint64_t *src =
                x ? at(m, t->src, x->src_buf, x->src_off + (t->src_off - x->dst_off))
                  : at(m, t->src, t->src_buf, t->src_off);
            memcpy(w, src, t->count * sizeof *w);
        }
        w = v;
        for (size_t i = first; i < end; i++, w += s->xfers[i - 1].count) {
            const Transfer *t = &s->xfers[i], *x = f ? f->own[i] : NULL;
            uint64_t *dst = at(m, t->dst, t->dst_buf, t->dst_off);
            if (f && f->skip[i])
                continue;
            for (size_t e = 0; e < t->count; e++) {
                uint64_t a = x ? *at(m, t->dst, x->src_buf,
                                     x->src_off + (t->dst_off - x->dst_off) + e)
                               : dst[e];
                dst[e] = t->op == XFER_COPY ? w[e] : 3 * a + w[e];
            }
        }
        free(v);
    }
}

/* Whether a and b hold the same, tmp buffers aside (what they hold at the
 * end is no one's: sched_fuse_map may skip a copy left there). */
static bool same_but_tmp(const Mem *a, const Mem *b)
{
    size_t p = (size_t)a->s->call.nranks;
    for (size_t i = 0; i < p * BUF_COUNT; i++)
        if (i % BUF_COUNT != BUF_TMP &&
            memcmp(a->mem + a->base[i], b->mem + b->base[i],
                   a->s->bufsize[i] * sizeof *a->mem))
            return false;
    return true;
}

static void mem_free(Mem *m)
{
    free(m->mem), free(m->base);
}

/* ------------------------------------------------------------ the sweep */

/* Every algorithm (those made for other machines aside: test_algos_torus)
 * x 1 to 16, 24, 31, 64 ranks x counts 1, 7 and 3p + 1 x in place and
 * not: the map run leaves every send and recv buffer as the step
 * semantics do. */
static void test_every_algorithm(void **state)
{
    (void)state;
    static const int ps[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                             15, 16, 24, 31, 64};
    size_t skipped = 0, cases = 0;
    for (size_t i = 0; i < algo_count(); i++)
        for (size_t pi = 0; pi < sizeof ps / sizeof *ps && !algo_at(i)->fits; pi++)
            for (int ip = 0; ip < 2; ip++)
                for (int ci = 0; ci < 3; ci++) {
                    int p = ps[pi];
                    size_t counts[] = {1, 7, 3 * (size_t)p + 1};
                    CollCall c = call(algo_at(i)->coll, p, counts[ci], ip);
                    if (!call_defined(c.kind, p, ip))
                        continue;
                    Schedule s;
                    if (algo_generate(algo_at(i), &c, &s) != CV_OK)
                        continue; /* refused (e.g. a power of two only) */
                    Map f = map_of(&s);
                    Mem a, b;
                    mem_init(&a, &s), mem_init(&b, &s);
                    run(&a, NULL);
                    run(&b, &f);
                    if (!same_but_tmp(&a, &b))
                        fail_msg("%s p=%d n=%zu %s: the fused run differs",
                                 algo_at(i)->name, p, counts[ci],
                                 ip ? "in place" : "out of place");
                    for (size_t x = 0; x < s.nxfers; x++)
                        skipped += f.skip[x];
                    cases++;
                    mem_free(&a), mem_free(&b), map_free(&f);
                    sched_fini(&s);
                }
    assert_true(cases > 1000);
    assert_true(skipped > 0);
}

/* ------------------------------------------------------------- by hand */

static size_t count_of(const uint8_t *v, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += v[i];
    return c;
}

/* Ring allreduce out of place, 3 ranks of 6 elements (trace's listing):
 * step 0 copies each input whole (transfers 0-2); step 1 reduces
 * r0 [4,6) into r1, r1 [0,2) into r2, r2 [2,4) into r0, all read and
 * reduced into untouched copies: via and own; step 2 reduces r0 [2,4)
 * into r1, r1 [4,6) into r2, r2 [0,2) into r0: sources written in
 * step 1, destinations untouched: own only; the all-gather's copies
 * read reduced cells. Every cell of a copy is reduced into or, the
 * one each rank sent first, overwritten by the all-gather: no copy
 * needed. And at any p from 2 to 16: none. */
static void test_ring_allreduce(void **state)
{
    (void)state;
    CollCall c = call(COLL_ALLREDUCE, 3, 6, false);
    Schedule s;
    assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "ring"), &c, &s), CV_OK);
    assert_int_equal(s.nsteps, 5);
    Map f = map_of(&s);
    for (size_t x = 0; x < 3; x++)
        assert_int_equal(f.skip[x], 1);
    for (size_t x = 3; x < 6; x++) { /* step 1 */
        const Transfer *t = &s.xfers[x];
        assert_ptr_equal(f.via[x], &s.xfers[t->src]);
        assert_ptr_equal(f.own[x], &s.xfers[t->dst]);
    }
    for (size_t x = 6; x < 9; x++) { /* step 2 */
        assert_null(f.via[x]);
        assert_ptr_equal(f.own[x], &s.xfers[s.xfers[x].dst]);
    }
    for (size_t x = 9; x < s.nxfers; x++)
        assert_true(!f.via[x] && !f.own[x] && !f.skip[x]);
    map_free(&f);
    sched_fini(&s);
    for (int p = 2; p <= 16; p++) {
        c = call(COLL_ALLREDUCE, p, 3 * (size_t)p + 1, false);
        assert_int_equal(algo_generate(algo_find(COLL_ALLREDUCE, "ring"), &c, &s), CV_OK);
        f = map_of(&s);
        assert_int_equal(count_of(f.skip, s.nxfers), (size_t)p); /* p copies */
        map_free(&f);
        sched_fini(&s);
    }
}

/* A ring reduce-scatter out of place (3 ranks, 4 elements a block, as
 * trace lists it): each input copied whole into the tmp buffer; of rank
 * 0's copy, [8, 12) is sent in the first step and never written again,
 * [4, 8) and [0, 4) are reduced into; the copy-out reads reduced cells.
 * What is left of the copy lies in the tmp buffer: no copy needed, at 3
 * ranks and at any p from 2 to 16. */
static void test_ring_reducescatter(void **state)
{
    (void)state;
    for (int p = 2; p <= 16; p++) {
        CollCall c = call(COLL_REDUCESCATTER, p, 4, false);
        Schedule s;
        assert_int_equal(algo_generate(algo_find(COLL_REDUCESCATTER, "ring"), &c, &s), CV_OK);
        Map f = map_of(&s);
        assert_int_equal(count_of(f.skip, s.nxfers), (size_t)p);
        if (p == 3) {
            assert_int_equal(s.xfers[0].dst_buf, BUF_TMP);
            assert_true(f.skip[0] && f.skip[1] && f.skip[2]);
            assert_ptr_equal(f.via[3], &s.xfers[0]); /* r0 [8, 12) to r1 */
            assert_ptr_equal(f.own[3], &s.xfers[1]);
            assert_ptr_equal(f.own[8], &s.xfers[0]); /* r2 [0, 4) to r0 */
            assert_null(f.via[8]);
        }
        map_free(&f);
        sched_fini(&s);
    }
}

/* A ring allgather out of place: each rank's own block, copied in, is
 * read by the next rank and never written again: the output holds the
 * copy, so none is skipped (the reads may still take the input). */
static void test_allgather_keeps_its_copy(void **state)
{
    (void)state;
    for (int p = 1; p <= 9; p++) {
        CollCall c = call(COLL_ALLGATHER, p, 5 * (size_t)p, false);
        Schedule s;
        assert_int_equal(algo_generate(algo_find(COLL_ALLGATHER, "ring"), &c, &s), CV_OK);
        Map f = map_of(&s);
        assert_int_equal(count_of(f.skip, s.nxfers), 0);
        size_t vias = 0;
        for (size_t x = 0; x < s.nxfers; x++)
            vias += f.via[x] != NULL;
        assert_int_equal(vias, p > 1 ? (size_t)p : 0); /* the first sends */
        map_free(&f);
        sched_fini(&s);
    }
}

/* Small schedules on 2 ranks of 8 elements, step 0 copying rank 0's
 * input into its recv buffer [0, 8). */
static void hand_start(Schedule *s)
{
    CollCall c = call(COLL_ALLREDUCE, 2, 8, false);
    assert_int_equal(sched_init(s, &c, "hand"), CV_OK);
    sched_step(s, "copy-in");
    sched_copy(s, 0, BUF_SEND, 0, 0, BUF_RECV, 0, 8);
}

static void test_by_hand(void **state)
{
    (void)state;
    Schedule s;
    Map f;
    /* Reads of rank 0's copy in steps 1 and 2 and nothing writing it:
     * both via; the output holds the copy, so it is needed. */
    hand_start(&s);
    sched_step(&s, "a");
    sched_copy(&s, 0, BUF_RECV, 4, 1, BUF_RECV, 0, 4); /* inside: via */
    sched_step(&s, "b");
    sched_copy(&s, 0, BUF_RECV, 0, 1, BUF_RECV, 0, 8); /* whole, untouched */
    assert_int_equal(sched_end(&s), CV_OK);
    f = map_of(&s);
    assert_ptr_equal(f.via[1], &s.xfers[0]);
    assert_ptr_equal(f.via[2], &s.xfers[0]);
    assert_int_equal(f.skip[0], 0); /* never overwritten: the output */
    map_free(&f);
    sched_fini(&s);

    /* [0, 4) overwritten in step 1, then a read of [2, 6) in step 2:
     * half written, half the copy: no via, the copy needed. */
    hand_start(&s);
    sched_step(&s, "a");
    sched_copy(&s, 1, BUF_SEND, 0, 0, BUF_RECV, 0, 4);
    sched_step(&s, "b");
    sched_copy(&s, 0, BUF_RECV, 2, 1, BUF_RECV, 0, 4);
    sched_step(&s, "c");
    sched_copy(&s, 1, BUF_SEND, 0, 0, BUF_RECV, 4, 4);
    assert_int_equal(sched_end(&s), CV_OK);
    f = map_of(&s);
    assert_null(f.via[2]);
    assert_int_equal(f.skip[0], 0);
    map_free(&f);
    sched_fini(&s);

    /* The same without the straddling read: all of the copy overwritten
     * unread, so it is skipped. */
    hand_start(&s);
    sched_step(&s, "a");
    sched_copy(&s, 1, BUF_SEND, 0, 0, BUF_RECV, 0, 4);
    sched_step(&s, "c");
    sched_copy(&s, 1, BUF_SEND, 0, 0, BUF_RECV, 4, 4);
    assert_int_equal(sched_end(&s), CV_OK);
    f = map_of(&s);
    assert_int_equal(f.skip[0], 1);
    map_free(&f);
    sched_fini(&s);

    /* Rank 1's copy-in in step 1 (transfer 1); in step 2 a reduce of
     * rank 1's [2, 6) into rank 0's: source and destination inside
     * untouched copies (via x1, own x0 at offset 2), and a read of rank
     * 0's [2, 6) into rank 1's, before the reduce writes it (via x0);
     * in step 3 a reduce of rank 1's [0, 8) into rank 0's: both copies'
     * [2, 6) written in step 2, so neither via nor own, and both copies
     * are needed. */
    hand_start(&s);
    sched_step(&s, "a");
    sched_copy(&s, 1, BUF_SEND, 0, 1, BUF_RECV, 0, 8);
    sched_step(&s, "b");
    sched_reduce(&s, 1, BUF_RECV, 2, 0, BUF_RECV, 2, 4);
    sched_copy(&s, 0, BUF_RECV, 2, 1, BUF_RECV, 2, 4);
    sched_step(&s, "c");
    sched_reduce(&s, 1, BUF_RECV, 0, 0, BUF_RECV, 0, 8);
    assert_int_equal(sched_end(&s), CV_OK);
    f = map_of(&s);
    assert_ptr_equal(f.own[2], &s.xfers[0]);
    assert_ptr_equal(f.via[2], &s.xfers[1]);
    assert_ptr_equal(f.via[3], &s.xfers[0]);
    assert_true(!f.own[4] && !f.via[4]);
    assert_true(!f.skip[0] && !f.skip[1]);
    map_free(&f);
    sched_fini(&s);

    /* A copy-in into the tmp buffer read once, then never touched: what
     * the tmp buffer holds at the end is no one's, so it is skipped (the
     * same left in the recv buffer is needed: the first case); rank 0's
     * copy, overwritten unread, too. */
    hand_start(&s);
    sched_tmp_all(&s, 8);
    sched_step(&s, "tmp");
    sched_copy(&s, 1, BUF_SEND, 0, 1, BUF_TMP, 0, 8);
    sched_step(&s, "read");
    sched_copy(&s, 1, BUF_TMP, 0, 0, BUF_RECV, 0, 8);
    assert_int_equal(sched_end(&s), CV_OK);
    f = map_of(&s);
    assert_ptr_equal(f.via[2], &s.xfers[1]);
    assert_true(f.skip[0] && f.skip[1]);
    map_free(&f);
    sched_fini(&s);

    /* Two copy-ins side by side on one buffer (as a chain's root copies
     * each segment it sends): a read of the second's range is via the
     * second; a copy over both, then a read of the first's: no via; a read
     * across both before that write: no via, both needed. */
    hand_start(&s);
    sched_step(&s, "b");
    sched_copy(&s, 1, BUF_SEND, 0, 1, BUF_RECV, 0, 4);
    sched_copy(&s, 1, BUF_SEND, 4, 1, BUF_RECV, 4, 4);
    sched_step(&s, "c");
    sched_copy(&s, 1, BUF_RECV, 5, 0, BUF_RECV, 0, 2);
    sched_copy(&s, 1, BUF_RECV, 2, 0, BUF_RECV, 2, 4);
    sched_step(&s, "d");
    sched_copy(&s, 0, BUF_RECV, 0, 1, BUF_RECV, 0, 8);
    sched_step(&s, "e");
    sched_copy(&s, 1, BUF_RECV, 1, 0, BUF_RECV, 6, 2);
    assert_int_equal(sched_end(&s), CV_OK);
    f = map_of(&s);
    assert_ptr_equal(f.via[3], &s.xfers[2]);
    assert_null(f.via[4]);
    assert_null(f.via[6]);
    assert_true(!f.skip[1] && !f.skip[2]);
    map_free(&f);
    sched_fini(&s);

    /* Nothing when some transfer writes a send buffer (it is then no
     * longer the input). */
    hand_start(&s);
    sched_step(&s, "a");
    sched_reduce(&s, 1, BUF_SEND, 0, 0, BUF_RECV, 0, 8);
    sched_copy(&s, 0, BUF_RECV, 0, 1, BUF_SEND, 0, 8);
    assert_int_equal(sched_end(&s), CV_OK);
    f = map_of(&s);
    for (size_t x = 0; x < s.nxfers; x++)
        assert_true(!f.own[x] && !f.via[x] && !f.skip[x]);
    map_free(&f);
    sched_fini(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_allreduce),
        cmocka_unit_test(test_ring_reducescatter),
        cmocka_unit_test(test_allgather_keeps_its_copy),
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_every_algorithm),
    };
    return cmocka_run_group_tests_name("fuse", tests, NULL, NULL);
}
