/* calib.c - what follows from a calibration alone (calib.h). */
#include "core/calib.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

void calib_smooth(Calib *c)
{
    static const size_t field[] = {offsetof(CalibPoint, gamma_shared),
                                   offsetof(CalibPoint, gamma_p2p)};
    double v[CALIB_MAX_POINTS];
    int n = c->npoints < CALIB_MAX_POINTS ? c->npoints : CALIB_MAX_POINTS;
    for (size_t f = 0; f < sizeof field / sizeof field[0]; f++) {
#define GAMMA(i) (*(double *)((char *)&c->pt[i] + field[f]))
        for (int i = 0; i < n; i++) /* rising = falling, negated */
            v[i] = -GAMMA(i);
        calib_monotone_down(v, n);
        for (int i = 0; i < n; i++)
            GAMMA(i) = -v[i];
#undef GAMMA
    }
}

void calib_monotone_down(double *w, int n)
{
    double sum[CALIB_MAX_POINTS];
    int len[CALIB_MAX_POINTS], blocks = 0;
    for (int i = 0; i < n; i++) {
        sum[blocks] = w[i], len[blocks++] = 1;
        while (blocks > 1 && sum[blocks - 1] / len[blocks - 1] >
                                 sum[blocks - 2] / len[blocks - 2]) {
            sum[blocks - 2] += sum[blocks - 1];
            len[blocks - 2] += len[blocks - 1];
            blocks--;
        }
    }
    for (int b = 0, i = 0; b < blocks; b++)
        for (int k = 0; k < len[b]; k++)
            w[i++] = sum[b] / len[b];
}

double calib_spread(const double *v, int n)
{
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < n; i++) {
        if (!(v[i] > 0))
            return 0;
        lo = fmin(lo, v[i]), hi = fmax(hi, v[i]);
    }
    return n > 0 ? hi / lo : 0;
}

int calib_crowded(const Calib *c)
{
    return c->cores > 0 && c->nranks > c->cores;
}

double calib_footprint(const Schedule *s)
{
    return (double)sched_bytes(s);
}

/* Linear interpolation in log(footprint) of field `off` of the points. */
static double interp(const Calib *c, double f, size_t off)
{
    const CalibPoint *pt = c->pt;
#define FIELD(i) (*(const double *)((const char *)&pt[i] + off))
    if (c->npoints < 1)
        return 0;
    if (f <= pt[0].footprint || c->npoints == 1)
        return FIELD(0);
    for (int i = 1; i < c->npoints; i++) {
        if (f <= pt[i].footprint) {
            double w = log(f / pt[i - 1].footprint) /
                       log(pt[i].footprint / pt[i - 1].footprint);
            return FIELD(i - 1) + w * (FIELD(i) - FIELD(i - 1));
        }
    }
    return FIELD(c->npoints - 1);
#undef FIELD
}

static bool is_memory_kind(MachineKind k)
{
    return k == MACHINE_GPU || k == MACHINE_HOST;
}

int calib_fits(const Calib *c, MachineKind *out)
{
    int n = 0;
    MemLevel ml;
    double g;
    out[n++] = MACHINE_FULL;
    out[n++] = MACHINE_BUS;
    if (calib_mem_level(c, 0, &ml, &g) == 0)
        out[n++] = c->medium;
    if (c->nodes > 1)
        out[n++] = MACHINE_NODES;
    return n;
}

/* The traffic's rate of point i in s per byte: the shared benchmark's
 * copy (beta_shared: its step's time beyond the start, over the bytes
 * the ranks copy) reads and writes each byte, so twice its bytes are
 * traffic (the cross benchmark's is a fresh read's: point_fresh_beta).
 * 0 where the point holds no rate of its own: a copy
 * whose bytes drowned in the start takes the next larger point's rate
 * (calibrate's fill), the same to the last bit. */
static double point_traffic_beta(const Calib *c, int i)
{
    const CalibPoint *pt = &c->pt[i];
    if (i + 1 < c->npoints && pt->beta_shared == pt[1].beta_shared)
        return 0;
    return pt->beta_shared > 0 ? pt->beta_shared / 2 : 0;
}

static int dcmp(const void *a, const void *b);

/* The same for one rank alone: the point-to-point copy's. */
static double point_core_beta(const Calib *c, int i)
{
    const CalibPoint *pt = &c->pt[i];
    if (i + 1 < c->npoints && pt->beta_p2p == pt[1].beta_p2p)
        return 0;
    return pt->beta_p2p > 0 ? pt->beta_p2p / 2 : 0;
}

/* The same for the cross benchmark's copy: every rank copies what another
 * rank wrote the step before. */
static double point_fresh_beta(const Calib *c, int i)
{
    const CalibPoint *pt = &c->pt[i];
    if (i + 1 < c->npoints && pt->beta_cross == pt[1].beta_cross)
        return 0;
    return pt->beta_cross > 0 ? pt->beta_cross / 2 : 0;
}

/* The median of v[0 .. n) (n > 0), sorted in place. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, dcmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int calib_mem_level(const Calib *c, double footprint, MemLevel *out,
                    double *gamma)
{
    double far[CALIB_MAX_POINTS], far_core[CALIB_MAX_POINTS];
    double far_fresh[CALIB_MAX_POINTS];
    int nfar = 0, ncore = 0, nfresh = 0;
    bool cores = c->medium == MACHINE_HOST; /* a GPU's launch uses it all */
    if (!is_memory_kind(c->medium) || !(c->cache > 0) || !(c->alpha > 0))
        return -1;
    *out = (MemLevel){.step = c->lat_step > 0 ? c->lat_step : c->alpha,
                      .call = c->lat_iter,
                      .cache = c->cache, .shared_reads = true,
                      .fuse = MEM_FUSE_WHOLE};
    for (int i = 0; i < c->npoints && i < CALIB_MAX_POINTS; i++) {
        double b = point_traffic_beta(c, i);
        double k = cores ? point_core_beta(c, i) : 0;
        double x = cores ? point_fresh_beta(c, i) : 0;
        if (!(b > 0) || (cores && (!(k > 0) || !(x > 0))))
            continue;
        /* (a file keeps 9 digits of a footprint made to be 4 times) */
        if (c->pt[i].footprint >= 4 * c->cache * (1 - 1e-8)) {
            far[nfar++] = b;
            far_core[ncore++] = k;
            far_fresh[nfresh++] = x;
        }
        if (out->npts < MEM_MAX_PTS) {
            out->fp[out->npts] = c->pt[i].footprint;
            out->core[out->npts] = k;
            out->fresh[out->npts] = x;
            out->beta[out->npts++] = b;
        }
    }
    if (nfar == 0)
        return -1;
    out->beta_mem = median(far, nfar);
    out->beta_core = cores ? median(far_core, ncore) : 0;
    out->beta_fresh = cores ? median(far_fresh, nfresh) : 0;
    double red = interp(c, footprint, offsetof(CalibPoint, gamma_shared));
    double traffic = machine_mem_beta(out, footprint);
    *gamma = red > traffic ? red - traffic : 0;
    return 0;
}

ModelParams calib_params(const Calib *c, MachineKind k, double footprint)
{
    int sh = k == MACHINE_BUS;
    ModelParams m = {.alpha = c->alpha};
    m.beta = interp(c, footprint, sh ? offsetof(CalibPoint, beta_shared)
                                     : offsetof(CalibPoint, beta_p2p));
    m.gamma = interp(c, footprint, sh ? offsetof(CalibPoint, gamma_shared)
                                      : offsetof(CalibPoint, gamma_p2p));
    return m;
}

/* Two levels: the ranks of a host through its switch (class "host"), the
 * hosts through one NIC each (class "net"). Bandwidths: the lone pairs'.
 * alpha: the flat machines' (a step of tiny messages with every rank
 * busy, which is what a collective's step is: where ranks outnumber the
 * cores, ten to a thousand times a lone pair's), the network's that plus
 * what a lone pair across the hosts took beyond one within a host (with
 * one rank per host, every message of alpha's step crossed the network
 * already). */
static CvError nodes_machine(const Calib *c, double footprint, Machine *out)
{
    if (c->nodes < 2 || c->per_node < 1 ||
        (long long)c->nodes * c->per_node != c->nranks)
        return CV_ERR_ARG;
    ModelParams m = calib_params(c, MACHINE_FULL, footprint);
    CvError e = machine_nodes(out, c->nodes, c->per_node, true, m.gamma);
    if (e)
        return e;
    LinkClass *host = &out->cls[0], *net = &out->cls[1];
    snprintf(host->name, sizeof host->name, "%s",
             c->level[0][0] ? c->level[0] : "host");
    snprintf(net->name, sizeof net->name, "%s",
             c->level[1][0] ? c->level[1] : "net");
    host->alpha = c->alpha;
    host->beta = m.beta;
    host->lat = net->lat = 0;
    net->alpha = c->alpha + (c->alpha_host > 0 && c->alpha_net > c->alpha_host
                                 ? c->alpha_net - c->alpha_host
                                 : 0);
    net->beta = interp(c, footprint, offsetof(CalibPoint, beta_net));
    if (!(net->beta > 0))
        net->beta = m.beta;
    out->cyclic = c->cyclic != 0;
    return CV_OK;
}

/* Machine k of c at p ranks (a flat one at any p, nodes at c's). */
static CvError machine_at(const Calib *c, MachineKind k, double footprint,
                          int p, Machine *out)
{
    if (k == MACHINE_NODES)
        return p == c->nranks ? nodes_machine(c, footprint, out) : CV_ERR_ARG;
    if (is_memory_kind(k)) {
        MemLevel ml;
        double g;
        if (k != c->medium || calib_mem_level(c, footprint, &ml, &g))
            return CV_ERR_ARG;
        return machine_memory(out, k, p, &ml, g);
    }
    ModelParams m = calib_params(c, k, footprint);
    return model_flat_machine(out, k, p, &m);
}

CvError calib_machine_of(const Calib *c, MachineKind k, double footprint,
                         Machine *out)
{
    return machine_at(c, k, footprint, c->nranks, out);
}

CvError calib_machine(const Calib *c, double footprint, Machine *out)
{
    return calib_machine_of(c, c->machine, footprint, out);
}

void calib_straggler(Calib *c, const MachineSlow *s)
{
    c->slowed = *s;
}

CvError calib_model_cost(const Calib *c, const Schedule *s, MachineKind k,
                         double *seconds)
{
    Machine mc;
    CostTerms t;
    *seconds = 0;
    CvError e = machine_at(c, k, calib_footprint(s), s->call.nranks, &mc);
    if (!e && (c->slowed.slow > 1 || c->slowed.link > 1))
        e = machine_slow_apply(&mc, &c->slowed);
    if (!e)
        e = model_machine_cost(s, &mc, false, &t, seconds);
    if (e)
        *seconds = 0;
    return e;
}
