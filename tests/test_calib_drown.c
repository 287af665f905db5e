/* test_calib_drown.c - calibration on a machine whose figures are known:
 * an executor that runs nothing and reports, for each step, a latency L
 * and the step's bytes over one shared bus (every transfer of a step
 * passes the bus one after another: beta seconds per byte of all of
 * them). With many ranks and a small working set, the pair benchmark's
 * one message drowns in L while the shift's p messages do not: the
 * hostile review's 1024-rank quick calibration saved 1,000,000 GB/s there
 * (the 1e-15 s/B placeholder) and said nothing. The calibration must
 * save no bandwidth faster than the bus, and say which are bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "core/calib.h"
#include "exec/exec.h"
#include "measure/calib.h"

typedef struct {
    Executor base;
    const Schedule *s;
    double lat;  /* seconds of every step */
    double beta; /* seconds per byte of the bus */
} BusExec;

static CvError bus_load(Executor *ex, const Schedule *s)
{
    ((BusExec *)ex)->s = s;
    ex->sched = s;
    return CV_OK;
}

static CvError bus_run(Executor *ex, int warmup, int iters, ExecTiming *t)
{
    BusExec *x = (BusExec *)ex;
    const Schedule *s = x->s;
    size_t es = dtype_size(s->call.dtype);
    double total = 0;
    for (size_t k = 0; k < s->nsteps; k++) {
        double bytes = 0;
        for (size_t i = 0; i < s->steps[k].n; i++)
            bytes += (double)s->xfers[s->steps[k].first + i].count * es;
        double st = x->lat + x->beta * bytes;
        if (t->step_s)
            t->step_s[k] = st;
        total += st;
    }
    t->iter_s = total;
    return CV_OK;
}

static CvError bus_ok(Executor *ex) { return CV_OK; }
static const char *bus_error(const Executor *ex) { return "no error"; }

static const ExecOps bus_ops = {.name = "bus", .load = bus_load,
                                .run = bus_run, .reset = bus_ok,
                                .finish = bus_ok, .last_error = bus_error};

static void calibrate_bus(int p, double lat, double beta, double max_bytes,
                          Calib *c)
{
    BusExec x = {.base = {.ops = &bus_ops, .nranks = p}, .lat = lat,
                 .beta = beta};
    CalibOptions o = {.quick = 1, .max_bytes = max_bytes};
    char why[256] = "";
    if (calib_measure(&x.base, &o, c, NULL, NULL, why, sizeof why))
        fail_msg("calib_measure: %s", why);
}

/* No saved bandwidth is faster than the bus (1 GB/s): at 64 ranks and a
 * 1 MB working set the pair's 8 KiB message takes 8 us against a 100 us
 * step (drowned), the shift's 512 KiB 512 us (measured). */
static void test_no_free_bandwidth(void **state)
{
    static const int ranks[] = {2, 8, 64, 256};
    const double beta = 1e-9, lat = 1e-4;
    for (size_t r = 0; r < sizeof ranks / sizeof *ranks; r++) {
        Calib c;
        calibrate_bus(ranks[r], lat, beta, 1e6, &c);
        for (int i = 0; i < c.npoints; i++) {
            const CalibPoint *pt = &c.pt[i];
            /* seconds per byte: the bus's within a factor of two (the
               latency subtracted is a step of a few KiB per message,
               whose bytes it takes with it), never a free transfer */
            if (pt->beta_p2p < 0.5 * beta || pt->beta_shared < 0.5 * beta ||
                pt->beta_cross < 0.5 * beta)
                fail_msg("p=%d point %d: p2p %g shared %g cross %g s/B, "
                         "faster than the bus's %g", ranks[r], i,
                         pt->beta_p2p, pt->beta_shared, pt->beta_cross, beta);
        }
    }
    /* the 64-rank case drowns its pair at the largest point: said */
    Calib c;
    calibrate_bus(64, lat, beta, 1e6, &c);
    assert_true(c.drowned > 0);
    /* a working set where every message's bytes dwarf the latency: the
       bus's rate itself, nothing drowned (1 GB at 2 ranks: 250 MB per
       message, 0.25 s against 100 us) */
    calibrate_bus(2, lat, beta, 1e9, &c);
    const CalibPoint *last = &c.pt[c.npoints - 1];
    assert_int_equal(c.drowned, 0);
    assert_true(fabs(last->beta_p2p / beta - 1) < 0.01);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_free_bandwidth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
