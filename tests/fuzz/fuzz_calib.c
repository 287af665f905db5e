/* fuzz_calib.c - the calibration file parser (calib_parse, which
 * calib_load and calib_read read every file with) on any bytes: it must
 * accept a file whose every value is in range or refuse it with a
 * sentence, never crash, read out of bounds, leak, overflow, or take
 * unbounded memory or time, and let no value out of its range through.
 *
 * Built and run by `make fuzz` (libFuzzer, with AddressSanitizer and
 * UndefinedBehaviorSanitizer); seeds in tests/fuzz/seeds/calib/. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/calib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether every value the parser let through lies in its range. */
static int in_range(const Calib *c)
{
    int ok = c->nranks >= 1 && c->nranks <= COLL_MAX_RANKS && c->cores >= 0 &&
             c->when >= 0 && c->when <= CALIB_MAX_WHEN && c->npoints >= 1 &&
             c->npoints <= CALIB_MAX_POINTS && c->backend[0] &&
             calib_backend_ok(c->backend) && isfinite(c->alpha) &&
             c->alpha >= 0 && c->alpha <= CALIB_MAX_SECONDS;
    for (int i = 0; ok && i < c->npoints; i++)
        ok = c->pt[i].footprint > 0 && c->pt[i].beta_shared >= CALIB_MIN_SPB &&
             c->pt[i].beta_shared <= CALIB_MAX_SPB &&
             (i == 0 || c->pt[i].footprint > c->pt[i - 1].footprint);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char empty[1];
    char why[512] = "";
    int version = -1;
    Calib c;
    FILE *f = fmemopen(size ? (void *)data : empty, size, "r");
    if (!f)
        return 0;
    CvError e = calib_parse(f, &c, &version, why, sizeof why);
    fclose(f);
    if (e != CV_OK && !why[0])
        abort(); /* every refusal says why */
    if (e == CV_OK && !in_range(&c))
        abort(); /* a value out of range was let through */
    return 0;
}
