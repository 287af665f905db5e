/* calib_rules.c - the plausibility rules every value of a calibration
 * obeys, and what replaces a value that breaks one (calib.h). */
#include "measure/calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- the values */

/* Where value v (of point i, for a point's) is kept in c. */
static double *value_of(Calib *c, CalibValue v, int i)
{
    CalibPoint *p = &c->pt[i >= 0 ? i : 0];
    switch (v) {
    case CALIB_VAL_SHARED: return &p->beta_shared;
    case CALIB_VAL_CROSS: return &p->beta_cross;
    case CALIB_VAL_P2P: return &p->beta_p2p;
    case CALIB_VAL_NET: return &p->beta_net;
    case CALIB_VAL_REDUCE: return &p->gamma_shared;
    case CALIB_VAL_PAIR_REDUCE: return &p->gamma_p2p;
    case CALIB_VAL_ALPHA: return &c->alpha;
    case CALIB_VAL_MSG: return &c->alpha_msg;
    case CALIB_VAL_LAT_STEP: return &c->lat_step;
    case CALIB_VAL_LAT_ITER: return &c->lat_iter;
    case CALIB_VAL_ALPHA_HOST: return &c->alpha_host;
    case CALIB_VAL_ALPHA_NET: return &c->alpha_net;
    case CALIB_VAL_COUNT: break;
    }
    return &c->alpha;
}

static double value(const Calib *c, CalibValue v, int i)
{
    return *value_of((Calib *)c, v, i);
}

const char *calib_value_key(CalibValue v)
{
    static const char *const key[CALIB_VAL_COUNT] = {
        "shared", "cross", "p2p", "net", "reduce", "pair_reduce", "alpha",
        "msg", "lat_step", "lat_iter", "alpha_host", "alpha_net"};
    return v < CALIB_VAL_COUNT ? key[v] : "";
}

/* The words of value v in a sentence. */
static const char *value_words(CalibValue v)
{
    static const char *const words[CALIB_VAL_COUNT] = {
        "the shared bandwidth", "the cross bandwidth",
        "the point-to-point bandwidth", "the network bandwidth",
        "the reduce rate", "the pair reduce rate", "alpha",
        "the time of each message more", "the step latency",
        "the iteration's latency", "one message's time within a host",
        "one message's time between hosts"};
    return v < CALIB_VAL_COUNT ? words[v] : "";
}

/* Whether bandwidth v of c is measured (cross and net may be absent: 0). */
static int measured_bw(const Calib *c, CalibValue v, int i)
{
    if (v == CALIB_VAL_NET)
        return c->nodes > 1 && value(c, v, i) != 0;
    return v != CALIB_VAL_CROSS || value(c, v, i) != 0;
}

/* ---------------------------------------------------------------- rules */

/* The times: must alpha-like value v be positive (else: not negative),
 * and may it be 0 as a file's "not measured, alpha stands in"? */
static void time_rule(const Calib *c, CalibValue v, int *positive,
                      int *zero_ok)
{
    *positive = v == CALIB_VAL_ALPHA || v == CALIB_VAL_LAT_STEP ||
                v == CALIB_VAL_ALPHA_HOST ||
                (v == CALIB_VAL_ALPHA_NET && c->nodes > 1);
    *zero_ok = v == CALIB_VAL_LAT_STEP || v == CALIB_VAL_ALPHA_HOST;
}

/* The median of the copy rates of c (1/s per byte: bytes per second);
 * 0 when there is none. */
static double median_rate(const Calib *c)
{
    double v[CALIB_MAX_POINTS * 4];
    int n = 0;
    for (int i = 0; i < c->npoints && i < CALIB_MAX_POINTS; i++)
        for (int k = CALIB_VAL_SHARED; k <= CALIB_VAL_NET; k++) {
            double b = value(c, (CalibValue)k, i);
            if (measured_bw(c, (CalibValue)k, i) && b > 0 && isfinite(b))
                v[n++] = 1 / b;
        }
    for (int i = 1; i < n; i++) /* insertion sort: at most 48 */
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    if (!n)
        return 0;
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Record refusal r into out[*n] (when there is room) and count it. */
static void add(CalibRefusal r, CalibRefusal *out, int max, int *n)
{
    r.first = NAN, r.saved = NAN, r.from = -1;
    if (*n < max)
        out[*n] = r;
    ++*n;
}

/* The least a point's value v may be (s/B) at point i: the limit of its
 * rule; 0 when it has none there. med: median_rate. */
static double least(const Calib *c, CalibValue v, int i, double med)
{
    if (v == CALIB_VAL_REDUCE || v == CALIB_VAL_PAIR_REDUCE) {
        double copy = value(c, v == CALIB_VAL_REDUCE ? CALIB_VAL_SHARED
                                                     : CALIB_VAL_P2P, i);
        return copy / CALIB_REDUCE_OVER_COPY;
    }
    return med > 0 ? 1 / (CALIB_BW_OVER_MEDIAN * med) : 0;
}

int calib_check(const Calib *c, CalibRefusal *out, int max)
{
    int n = 0, positive, zero_ok;
    for (int v = CALIB_VAL_ALPHA; v < CALIB_VAL_COUNT; v++) {
        double t = value(c, (CalibValue)v, -1);
        time_rule(c, (CalibValue)v, &positive, &zero_ok);
        if (!isfinite(t) || t < 0 || (positive && t == 0 && !zero_ok))
            add((CalibRefusal){.what = (CalibValue)v, .point = -1,
                               .rule = CALIB_RULE_TIME, .measured = t},
                out, max, &n);
    }
    double med = median_rate(c);
    for (int i = 0; i < c->npoints && i < CALIB_MAX_POINTS; i++)
        for (int v = CALIB_VAL_SHARED; v < CALIB_VAL_ALPHA; v++) {
            double x = value(c, (CalibValue)v, i);
            int reduce = v >= CALIB_VAL_REDUCE;
            if (!reduce && !measured_bw(c, (CalibValue)v, i))
                continue;
            double lo = least(c, (CalibValue)v, i, med);
            if (isfinite(x) && x >= lo * (1 - CALIB_RULE_SLACK) &&
                (reduce || x > 0))
                continue;
            double ref = reduce ? value(c, v == CALIB_VAL_REDUCE
                                               ? CALIB_VAL_SHARED
                                               : CALIB_VAL_P2P, i)
                                : (med > 0 ? 1 / med : 0);
            add((CalibRefusal){.what = (CalibValue)v, .point = i,
                               .footprint = c->pt[i].footprint, .rule = reduce ? CALIB_RULE_REDUCE
                                              : CALIB_RULE_BANDWIDTH,
                               .measured = x, .ref = ref, .limit = lo},
                out, max, &n);
        }
    return n;
}

int calib_poor_fit(const Calib *c)
{
    return c->machine < MACHINE_KIND_COUNT &&
           c->fit_err[c->machine] > CALIB_POOR_FIT;
}

/* ------------------------------------------------------------ replacing */

/* Whether (v, i) is among list[0 .. n). */
static const CalibRefusal *find(const CalibRefusal *list, int n, CalibValue v,
                                int i)
{
    for (int k = 0; k < n; k++)
        if (list[k].what == v && list[k].point == i)
            return &list[k];
    return NULL;
}

/* What replaces refused point value r (its saved and from). */
static void replace_point(const Calib *c, CalibRefusal *r,
                          const CalibRefusal *now, int nnow)
{
    for (int j = r->point + 1; j < c->npoints; j++) {
        double x = value(c, r->what, j);
        if (find(now, nnow, r->what, j) || !(x > 0) || !isfinite(x))
            continue;
        if (x >= r->limit) {
            r->saved = x, r->from = j;
            r->from_footprint = c->pt[j].footprint;
            return;
        }
        break; /* the next one measured is below the limit here */
    }
    r->saved = r->limit, r->from = -1;
}

/* Replace refused time r by its stand-in; 0 when it has none. */
static int replace_time(const Calib *c, CalibRefusal *r)
{
    switch (r->what) {
    case CALIB_VAL_MSG: r->saved = c->alpha; return 1;
    case CALIB_VAL_LAT_STEP:
    case CALIB_VAL_LAT_ITER:
    case CALIB_VAL_ALPHA_HOST: r->saved = 0; return 1;
    case CALIB_VAL_ALPHA_NET:
        if (c->nodes < 2) {
            r->saved = 0;
            return 1;
        }
        break;
    case CALIB_VAL_ALPHA:
    case CALIB_VAL_SHARED:
    case CALIB_VAL_CROSS:
    case CALIB_VAL_P2P:
    case CALIB_VAL_NET:
    case CALIB_VAL_REDUCE:
    case CALIB_VAL_PAIR_REDUCE:
    case CALIB_VAL_COUNT: break;
    }
    r->from = -2; /* nothing stands in for it */
    return 0;
}

/* Keep refusal r in c->refused (once per value: a later round of the same
 * value only changes what was kept). */
static void keep(Calib *c, const CalibRefusal *r, const CalibRefusal *first,
                 int nfirst)
{
    CalibRefusal *k = (CalibRefusal *)find(c->refused, c->nrefused, r->what,
                                           r->point);
    if (k) {
        k->saved = r->saved, k->from = r->from, k->limit = r->limit;
        k->ref = r->ref, k->from_footprint = r->from_footprint;
        return;
    }
    if (c->nrefused >= CALIB_MAX_REFUSED)
        return;
    k = &c->refused[c->nrefused++];
    *k = *r;
    const CalibRefusal *f = find(first, nfirst, r->what, r->point);
    k->first = f ? f->measured : NAN;
}

int calib_amend(Calib *c, const CalibRefusal *first, int nfirst)
{
    CalibRefusal now[CALIB_MAX_REFUSED];
    c->nrefused = 0;
    for (int round = 0; round < CALIB_MAX_REFUSED; round++) {
        int n = calib_check(c, now, CALIB_MAX_REFUSED);
        if (n == 0)
            return c->nrefused;
        n = n < CALIB_MAX_REFUSED ? n : CALIB_MAX_REFUSED;
        for (int k = 0; k < n; k++) {
            CalibRefusal *r = &now[k];
            if (r->point < 0) {
                int ok = replace_time(c, r);
                keep(c, r, first, nfirst);
                if (!ok)
                    return -1;
                *value_of(c, r->what, -1) = r->saved;
                c->derived |= 1u << r->what;
                continue;
            }
            replace_point(c, r, now, n);
            keep(c, r, first, nfirst);
            *value_of(c, r->what, r->point) = r->saved;
            c->pt_derived[r->point] |= 1u << r->what;
        }
    }
    return calib_check(c, now, 0) ? -1 : c->nrefused;
}

/* ------------------------------------------------------------ sentences */

/* A working set's size in words: "1 MB", "256 kB", "1 GB". */
static void size_words(double b, char *out, size_t len)
{
    if (b >= 1e9)
        snprintf(out, len, "%.3g GB", b / 1e9);
    else if (b >= 1e6)
        snprintf(out, len, "%.3g MB", b / 1e6);
    else if (b >= 1e3)
        snprintf(out, len, "%.3g kB", b / 1e3);
    else
        snprintf(out, len, "%.0f B", b);
}

/* s/B as a rate in words: "87256.00 GB/s", or what 0 or worse means. */
static void rate_words(double spb, char *out, size_t len)
{
    if (spb > 0 && isfinite(spb))
        snprintf(out, len, "%.2f GB/s", 1e-9 / spb);
    else
        snprintf(out, len, "no time at all (an infinite rate)");
}

/* "measured X" or "measured X, and Y when measured again". */
static void measured_words(const CalibRefusal *r, char *out, size_t len)
{
    char a[64], b[64];
    int bw = r->point >= 0;
    if (bw)
        rate_words(r->measured, b, sizeof b);
    else
        snprintf(b, sizeof b, "%.4g us", r->measured * 1e6);
    if (isnan(r->first)) {
        snprintf(out, len, "measured %s", b);
        return;
    }
    if (r->first == r->measured || (bw && !(r->first > 0) &&
                                    !(r->measured > 0))) {
        snprintf(out, len, "measured %s twice", b);
        return;
    }
    if (bw)
        rate_words(r->first, a, sizeof a);
    else
        snprintf(a, sizeof a, "%.4g us", r->first * 1e6);
    snprintf(out, len, "measured %s, and %s when measured again", a, b);
}

/* What was kept instead of r, as "; saved instead: ..." (or nothing). */
static void saved_words(const CalibRefusal *r, double fp_from, char *out,
                        size_t len)
{
    char x[64], at[32];
    if (r->from == -2)
        snprintf(out, len, "; nothing stands in for it, so the calibration "
                 "is not saved");
    else if (isnan(r->saved))
        out[0] = '\0';
    else if (r->point < 0)
        snprintf(out, len, "; saved instead: %s (derived)",
                 r->what == CALIB_VAL_MSG ? "a whole alpha"
                 : r->what == CALIB_VAL_LAT_ITER ? "0 us"
                 : "nothing, alpha stands in");
    else if (r->from >= 0) {
        rate_words(r->saved, x, sizeof x);
        size_words(fp_from, at, sizeof at);
        snprintf(out, len, "; saved instead: %s, the rate measured at %s "
                 "(a larger working set: this one is at least as fast; "
                 "derived)", x, at);
    } else {
        rate_words(r->saved, x, sizeof x);
        snprintf(out, len, "; saved instead: %s, the most the rule allows "
                 "(derived)", x);
    }
}

/* calib_refusal_text with the footprints of r's point and of the point
 * its value came from. */
static void refusal_text(const CalibRefusal *r, double fp, double fp_from,
                         char *out, size_t len)
{
    char m[256], at[32], ref[64], saved[256];
    measured_words(r, m, sizeof m);
    saved_words(r, fp_from, saved, sizeof saved);
    size_words(fp, at, sizeof at);
    rate_words(r->ref, ref, sizeof ref);
    char times[48];
    if (r->measured > 0 && isfinite(r->measured) && r->ref > 0)
        snprintf(times, sizeof times, "%.3g times", r->ref / r->measured);
    else
        snprintf(times, sizeof times, "beyond any multiple of");
    switch (r->rule) {
    case CALIB_RULE_TIME:
        snprintf(out, len, "%s %s, which is not %s finite time%s",
                 value_words(r->what), m,
                 r->what == CALIB_VAL_MSG || r->what == CALIB_VAL_LAT_ITER
                     ? "a" : "a positive", saved);
        return;
    case CALIB_RULE_REDUCE:
        snprintf(out, len, "%s at a working set of %s %s, %s the "
                 "copy rate of that working set (%s): a reduce reads one "
                 "operand more than a copy, which at the copy's speed costs "
                 "half a copy (twice its rate), and caches allow at most "
                 "%.0f times%s", value_words(r->what), at, m, times, ref,
                 CALIB_REDUCE_OVER_COPY, saved);
        return;
    case CALIB_RULE_BANDWIDTH:
        snprintf(out, len, "%s at a working set of %s %s, %s the "
                 "median copy rate of this calibration (%s): caches make a "
                 "working set a few times faster than the median one, not "
                 "more than %.0f times%s", value_words(r->what), at, m,
                 times, ref, CALIB_BW_OVER_MEDIAN, saved);
        return;
    case CALIB_RULE_COUNT:
        break;
    }
    snprintf(out, len, "%s %s", value_words(r->what), m);
}

void calib_refusal_text(const CalibRefusal *r, char *out, size_t len)
{
    refusal_text(r, r->footprint, r->from_footprint, out, len);
}
