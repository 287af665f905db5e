/* test_verify.c - verification finds exactly the elements that differ.
 *
 * A small in-memory backend whose buffers the test writes: filled with
 * what the symbolic state says (everything matches), then corrupted
 * element by element (each is found, with its place and bits), and empty
 * elements (skipped). Then the same against the threads backend after
 * every step of real algorithms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "core/data.h"
#include "exec/verify.h"

#include "call_fixture.h"

/* ------------------------------------------------- in-memory backend */

/* An executor whose buffers are plain arrays the test controls. */
typedef struct {
    Executor base;                    /* ops, schedule, ranks */
    unsigned char *buf[64][BUF_COUNT]; /* [rank][buf] */
    CvError fail_read;                /* nonzero: read returns it */
} MemExec;

static CvError mem_read(Executor *ex, int r, BufId b, size_t off, size_t n,
                        void *dst)
{
    MemExec *m = (MemExec *)ex;
    if (m->fail_read)
        return m->fail_read;
    size_t es = dtype_size(ex->sched->call.dtype);
    memcpy(dst, m->buf[r][b] + off * es, n * es);
    return CV_OK;
}

static const ExecOps mem_ops = {.name = "mem", .read = mem_read};

/* Fill m's buffers with what sim holds (final: outputs divided for avg). */
static void mem_fill(MemExec *m, const Sim *sim, bool final)
{
    const Schedule *s = m->base.sched;
    for (int r = 0; r < s->call.nranks; r++) {
        CollLayout l;
        coll_layout(&s->call, r, &l);
        for (int b = 0; b < BUF_COUNT; b++) {
            size_t n = sched_bufsize(s, r, (BufId)b);
            for (size_t i = 0; i < n; i++) {
                bool out = b == (int)l.out_buf && i >= l.out_off &&
                           i < l.out_off + l.out_count;
                uint64_t v = data_expect(&s->call, (size_t)sim_pos(sim, r, b, i),
                                         sim_set(sim, r, b, i), sim->words,
                                         final && out);
                if (sim_pos(sim, r, b, i) < 0)
                    v = data_poison(s->call.dtype);
                data_store(s->call.dtype, m->buf[r][b], i, v);
            }
        }
    }
}

static void mem_open(MemExec *m, const Schedule *s)
{
    memset(m, 0, sizeof *m);
    m->base = (Executor){.ops = &mem_ops, .sched = s, .nranks = s->call.nranks};
    assert_true(s->call.nranks <= 64);
    size_t es = dtype_size(s->call.dtype);
    for (int r = 0; r < s->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++) {
            m->buf[r][b] = malloc(sched_bufsize(s, r, (BufId)b) * es + 1);
            assert_non_null(m->buf[r][b]);
        }
}

static void mem_close(MemExec *m)
{
    for (int r = 0; r < m->base.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++)
            free(m->buf[r][b]);
}

/* Elements the sim holds data in. */
static size_t nonempty(const Sim *sim)
{
    const Schedule *s = sim->sched;
    size_t n = 0;
    for (int r = 0; r < s->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++)
            for (size_t i = 0; i < sched_bufsize(s, r, (BufId)b); i++)
                n += sim_pos(sim, r, b, i) >= 0;
    return n;
}

/* A place in some rank's buffer that the sim says holds data (empty ==
 * false) or holds nothing (empty == true); the k-th such, cyclically. */
static int find_elem(const Sim *sim, bool empty, size_t k, int *r, BufId *b,
                     size_t *i)
{
    const Schedule *s = sim->sched;
    size_t seen = 0, total = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int q = 0; q < s->call.nranks; q++)
            for (int bb = 0; bb < BUF_COUNT; bb++)
                for (size_t j = 0; j < sched_bufsize(s, q, (BufId)bb); j++) {
                    if ((sim_pos(sim, q, bb, j) < 0) != empty)
                        continue;
                    if (pass == 0) {
                        total++;
                        continue;
                    }
                    if (seen++ == k % total) {
                        *r = q, *b = (BufId)bb, *i = j;
                        return 1;
                    }
                }
    return 0;
}

static void flip(MemExec *m, int r, BufId b, size_t i, uint64_t mask)
{
    DataType t = m->base.sched->call.dtype;
    data_store(t, m->buf[r][b], i, data_load(t, m->buf[r][b], i) ^ mask);
}

/* ------------------------------------------------------------- tests */

/* A schedule, its sim and an in-memory executor for it. */
typedef struct {
    Schedule s; /* the schedule */
    Sim sim;    /* its symbolic state */
    MemExec m;  /* buffers the test writes */
} Case;

/* Set a case up; with run, the sim executes every step. */
static void case_open(Case *k, const char *algo, CollCall c, bool run)
{
    assert_int_equal(algo_generate(algo_find(c.kind, algo), &c, &k->s), CV_OK);
    assert_int_equal(sim_init(&k->sim, &k->s), CV_OK);
    if (run)
        assert_int_equal(sim_run(&k->sim), CV_OK);
    mem_open(&k->m, &k->s);
}

static void case_close(Case *k)
{
    mem_close(&k->m);
    sim_fini(&k->sim);
    sched_fini(&k->s);
}

/* After every step of an algorithm, for every datatype: the exact state
 * verifies; one flipped bit anywhere with data is found, with its place
 * and both values; a flipped element the sim holds empty is skipped. */
static void test_finds_each_corruption(void **state)
{
    (void)state;
    for (int t = 0; t < DT_COUNT; t++) {
        Case k;
        case_open(&k, "ring", (CollCall){.kind = COLL_ALLREDUCE, .nranks = 5,
                                         .count = 13, .dtype = t, .op = OP_MAX},
                  false);
        for (size_t st = 0; st <= k.s.nsteps; st++) {
            if (st)
                assert_int_equal(sim_step(&k.sim), CV_OK);
            mem_fill(&k.m, &k.sim, false);
            VerifyReport rep;
            assert_int_equal(verify_state(&k.m.base, &k.sim, false, &rep), CV_OK);
            assert_int_equal(rep.wrong, 0);
            assert_int_equal(rep.bad_rank, -1);
            assert_int_equal(rep.checked, nonempty(&k.sim));
            int r;
            BufId b;
            size_t i;
            uint64_t bit = 1ull << (st % (8 * dtype_size(t)));
            assert_true(find_elem(&k.sim, false, st * 7 + (size_t)t, &r, &b, &i));
            uint64_t was = data_load(t, k.m.buf[r][b], i);
            flip(&k.m, r, b, i, bit);
            assert_int_equal(verify_state(&k.m.base, &k.sim, false, &rep),
                             CV_ERR_WRONG);
            assert_int_equal(rep.wrong, 1);
            assert_int_equal(rep.bad_rank, r);
            assert_int_equal(rep.bad_buf, b);
            assert_int_equal(rep.bad_elem, i);
            assert_true(rep.want == was && rep.got == (was ^ bit));
            flip(&k.m, r, b, i, bit);
            if (find_elem(&k.sim, true, st, &r, &b, &i)) {
                flip(&k.m, r, b, i, 1);
                assert_int_equal(verify_state(&k.m.base, &k.sim, false, &rep), CV_OK);
            }
        }
        case_close(&k);
    }
}

/* Several wrong elements are all counted; the first is the first in
 * rank, buffer, element order. */
static void test_counts_and_first(void **state)
{
    (void)state;
    Case k;
    case_open(&k, "ring", (CollCall){.kind = COLL_ALLGATHER, .nranks = 6,
                                     .count = 7, .dtype = DT_INT32},
              true);
    mem_fill(&k.m, &k.sim, true);
    flip(&k.m, 4, BUF_RECV, 40, 0x10);
    flip(&k.m, 2, BUF_RECV, 3, 0x10);
    flip(&k.m, 2, BUF_RECV, 30, 0x10);
    flip(&k.m, 5, BUF_SEND, 0, 0x10);
    VerifyReport rep;
    assert_int_equal(verify_state(&k.m.base, &k.sim, true, &rep), CV_ERR_WRONG);
    assert_int_equal(rep.wrong, 4);
    assert_int_equal(rep.bad_rank, 2);
    assert_int_equal(rep.bad_buf, BUF_RECV);
    assert_int_equal(rep.bad_elem, 3);
    /* The definition sees the three outputs, not the send buffer. */
    assert_int_equal(verify_output(&k.m.base, true, &rep), CV_ERR_WRONG);
    assert_int_equal(rep.wrong, 3);
    assert_int_equal(rep.checked, 6 * 42);
    assert_int_equal(rep.bad_rank, 2);
    assert_int_equal(rep.bad_elem, 3);
    case_close(&k);
}

/* Outputs longer than the verifier's chunk (65536 elements), compared
 * chunk by chunk across the ranks: the first wrong element is still the
 * first in rank order, and a rank whose chunk reuses the values computed
 * for the rank before it is still compared element by element. */
static void test_long_outputs(void **state)
{
    (void)state;
    const size_t n = 65536 + 70001;
    Case k;
    case_open(&k, "ring", (CollCall){.kind = COLL_ALLREDUCE, .nranks = 3,
                                     .count = n, .dtype = DT_INT32},
              true);
    mem_fill(&k.m, &k.sim, true);
    VerifyReport rep;
    assert_int_equal(verify_output(&k.m.base, true, &rep), CV_OK);
    assert_int_equal(rep.checked, 3 * n);
    flip(&k.m, 1, BUF_RECV, 10, 0x4);      /* chunk 0 of rank 1 */
    flip(&k.m, 2, BUF_RECV, 65535, 0x4);   /* the last of rank 2's chunk 0 */
    flip(&k.m, 0, BUF_RECV, n - 1, 0x4);   /* the very last, rank 0 */
    assert_int_equal(verify_output(&k.m.base, true, &rep), CV_ERR_WRONG);
    assert_int_equal(rep.wrong, 3);
    assert_int_equal(rep.bad_rank, 0);
    assert_int_equal(rep.bad_elem, n - 1);
    case_close(&k);
    /* An allgather's blocks straddle the chunks: every run is checked
     * against its own rank's input. */
    case_open(&k, "ring", (CollCall){.kind = COLL_ALLGATHER, .nranks = 2,
                                     .count = 40000, .dtype = DT_INT32},
              true);
    mem_fill(&k.m, &k.sim, true);
    assert_int_equal(verify_output(&k.m.base, true, &rep), CV_OK);
    flip(&k.m, 1, BUF_RECV, 65536 + 3, 0x1); /* chunk 1, rank 1's block */
    assert_int_equal(verify_output(&k.m.base, true, &rep), CV_ERR_WRONG);
    assert_int_equal(rep.wrong, 1);
    assert_int_equal(rep.bad_rank, 1);
    assert_int_equal(rep.bad_elem, 65536 + 3);
    case_close(&k);
}

/* avg: after finish the outputs hold the division; before it, the sum. */
static void test_avg_division(void **state)
{
    (void)state;
    for (int t = 0; t < DT_COUNT; t++) {
        Case k;
        case_open(&k, "ring", (CollCall){.kind = COLL_REDUCESCATTER, .nranks = 3,
                                         .count = 4, .dtype = t, .op = OP_AVG},
                  true);
        VerifyReport rep;
        mem_fill(&k.m, &k.sim, true);
        assert_int_equal(verify_state(&k.m.base, &k.sim, true, &rep), CV_OK);
        assert_int_equal(verify_output(&k.m.base, true, &rep), CV_OK);
        assert_int_equal(verify_output(&k.m.base, false, &rep), CV_ERR_WRONG);
        mem_fill(&k.m, &k.sim, false);
        assert_int_equal(verify_state(&k.m.base, &k.sim, false, &rep), CV_OK);
        assert_int_equal(verify_state(&k.m.base, &k.sim, true, &rep), CV_ERR_WRONG);
        assert_int_equal(rep.wrong, 3 * 4);
        case_close(&k);
    }
}

static void test_errors(void **state)
{
    (void)state;
    Case k;
    case_open(&k, "binomial", (CollCall){.kind = COLL_BROADCAST, .nranks = 4,
                                         .count = 5, .dtype = DT_DOUBLE},
              false);
    mem_fill(&k.m, &k.sim, false);
    VerifyReport rep;
    k.m.fail_read = CV_ERR_BACKEND;
    assert_int_equal(verify_state(&k.m.base, &k.sim, false, &rep), CV_ERR_BACKEND);
    assert_int_equal(verify_output(&k.m.base, false, &rep), CV_ERR_BACKEND);
    k.m.fail_read = CV_OK;
    assert_int_equal(verify_state(&k.m.base, NULL, false, &rep), CV_ERR_ARG);
    k.m.base.nranks = 3; /* a sim of another rank count */
    assert_int_equal(verify_state(&k.m.base, &k.sim, false, &rep), CV_ERR_ARG);
    k.m.base.nranks = 4;
    k.m.base.sched = NULL; /* nothing loaded */
    assert_int_equal(verify_output(&k.m.base, false, &rep), CV_ERR_ARG);
    k.m.base.sched = &k.s;
    case_close(&k);
}

/* The real thing: the threads backend after every step of every
 * collective's default algorithm, p = 7, in place and not. */
static void test_threads_every_step(void **state)
{
    (void)state;
    char why[200];
    const ExecOps *ops = exec_find("threads", why, sizeof why);
    Executor *ex;
    assert_int_equal(ops->open(&ex, 7, NULL, why, sizeof why), CV_OK);
    for (int k = 0; k < COLL_COUNT; k++)
        for (int ip = 0; ip < 2; ip++) {
            CollCall c = {.kind = k, .nranks = 7, .count = 9, .dtype = DT_HALF,
                          .op = OP_SUM, .root = 3, .in_place = ip};
            if (!call_defined(k, 7, ip))
                continue; /* sendrecv in place, hypercube on 7: none */
            Schedule s;
            assert_int_equal(algo_generate(algo_default(k), &c, &s), CV_OK);
            Sim sim;
            assert_int_equal(sim_init(&sim, &s), CV_OK);
            assert_int_equal(ops->load(ex, &s), CV_OK);
            VerifyReport rep;
            for (size_t st = 0; st < s.nsteps; st++) {
                assert_int_equal(ops->step(ex, st), CV_OK);
                assert_int_equal(sim_step(&sim), CV_OK);
                assert_int_equal(verify_state(ex, &sim, false, &rep), CV_OK);
                assert_true(rep.checked > 0);
            }
            assert_int_equal(verify_output(ex, false, &rep), CV_OK);
            sim_fini(&sim);
            sched_fini(&s);
        }
    ops->close(ex);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finds_each_corruption),
        cmocka_unit_test(test_long_outputs),
        cmocka_unit_test(test_counts_and_first),
        cmocka_unit_test(test_avg_division),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_threads_every_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
