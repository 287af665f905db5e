/* perf_fixture.h - what test_perf.c and test_perf_cmd.c share: a
 * calibration of this machine made up for the tests. */
#ifndef COLLVIZ_TEST_PERF_FIXTURE_H
#define COLLVIZ_TEST_PERF_FIXTURE_H

#include <math.h>
#include <stdio.h>

#include "measure/perf.h"

/* A calibration made up for the engine tests: the values are arbitrary
 * (the engine only has to carry them into the model column). */
static inline Calib test_calib(int p)
{
    Calib c = {.nranks = p, .alpha = 2e-6, .npoints = 2, .machine = MACHINE_BUS};
    char why[256];
    ExecHost h;
    if (exec_host_of("threads", p, &h, why, sizeof why))
        fail_msg("the threads backend says nothing of this machine: %s", why);
    snprintf(c.backend, sizeof c.backend, "threads");
    snprintf(c.host, sizeof c.host, "%s", h.fingerprint); /* this machine */
    c.pt[0] = (CalibPoint){1e6, 2e-11, 1e-10, 1e-11, 4e-11, 0, 0};
    c.pt[1] = (CalibPoint){1e8, 8e-11, 2e-10, 2e-11, 5e-11, 0, 0};
    return c;
}

/* got within a relative tol of want. */
static inline void assert_rel(double got, double want, double tol)
{
    if (fabs(got - want) > tol * fabs(want) + 1e-300)
        fail_msg("%.9g is not %.9g", got, want);
}

#endif
