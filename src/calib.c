/* calib.c - micro-benchmarks that calibrate the cost model on an executor,
 * and their persistence in the XDG cache directory. */
#include "calib.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "algo.h"

/* ------------------------------------------------------------ schedules */

/* The benchmarks' buffers: every rank has one buffer of 2n floats (an
 * in-place allreduce, so every output element holds data from the start);
 * transfers read the first half of one rank and write the second half of
 * another, so no step overwrites what it reads. */
static CvError bench_init(Schedule *s, int p, size_t n, const char *name)
{
    CollCall c = {.kind = COLL_ALLREDUCE, .nranks = p, .count = 2 * n,
                  .dtype = DT_FLOAT, .op = OP_SUM, .in_place = true};
    return sched_init(s, &c, name);
}

/* One step: every rank (or only rank 0, when `pair`) sends n elements to
 * its right neighbour, copying or reducing. */
static void bench_step(Schedule *s, XferOp op, int pair)
{
    int p = s->call.nranks;
    size_t n = s->call.count / 2;
    sched_step(s, op == XFER_COPY ? "copy" : "reduce");
    for (int r = 0; r < (pair ? 1 : p); r++)
        sched_xfer(s, op, r, BUF_RECV, 0, (r + 1) % p, BUF_RECV, n, n);
}

/* The kinds of benchmark schedules. */
typedef enum {
    BENCH_SHIFT,     /* every rank copies to its neighbour */
    BENCH_SHIFT_RED, /* ... then reduces into it */
    BENCH_PAIR,      /* rank 0 copies to rank 1 */
    BENCH_PAIR_RED,  /* ... then reduces into it */
    BENCH_KIND_COUNT
} BenchKind;

/* Build benchmark `k` with n elements per rank, or `steps` tiny steps when
 * k is BENCH_SHIFT and n == 1. */
static CvError bench_build(Schedule *s, BenchKind k, int p, size_t n,
                           int steps)
{
    CvError e = bench_init(s, p, n, "calibration");
    if (e)
        return e;
    int pair = k == BENCH_PAIR || k == BENCH_PAIR_RED;
    for (int i = 0; i < steps; i++)
        bench_step(s, XFER_COPY, pair);
    if (k == BENCH_SHIFT_RED || k == BENCH_PAIR_RED)
        bench_step(s, XFER_REDUCE, pair);
    e = sched_end(s);
    if (e)
        sched_fini(s);
    return e;
}

/* ---------------------------------------------------------------- timing */

/* A measurement in progress: the executor and where errors go. */
typedef struct {
    Executor *ex;      /* the executor measured */
    double target_s;   /* seconds one timed run should last */
    int reps;          /* timed runs; the fastest is kept */
    char *why;         /* the executor's sentence on failure */
    size_t whylen;     /* bytes of why */
    CalibProgress progress; /* called after each measurement, or NULL */
    void *ctx;         /* progress's argument */
    int last;          /* measuring the largest working set */
    int done;          /* measurements done */
    int total;         /* measurements planned */
} Bench;

static CvError bench_fail(Bench *b, CvError e)
{
    if (b->why && b->whylen)
        snprintf(b->why, b->whylen, "%s", b->ex->ops->last_error(b->ex));
    return e;
}

/* Seconds per iteration of schedule s on b's executor: the fastest of
 * b->reps timed runs. The fastest, not the median: other programs on the
 * machine only ever slow a run down, and the model describes the machine,
 * not its neighbours. */
static CvError time_sched(Bench *b, const Schedule *s, double *sec)
{
    const ExecOps *ops = b->ex->ops;
    ExecTiming t = {0};
    CvError e = ops->load(b->ex, s);
    if (!e)
        e = ops->run(b->ex, 1, 1, &t);
    if (e)
        return bench_fail(b, e);
    double est = t.iter_s > 1e-9 ? t.iter_s : 1e-9;
    int iters = (int)fmin(fmax(b->target_s / est, 2), 20000);
    *sec = INFINITY;
    for (int i = 0; i < b->reps; i++) {
        if ((e = ops->run(b->ex, 1, iters, &t)))
            return bench_fail(b, e);
        *sec = fmin(*sec, t.iter_s);
    }
    b->done++;
    if (b->progress && b->progress(b->ctx, b->done, b->total))
        return CV_ERR_CANCELLED;
    return CV_OK;
}

/* Build benchmark k and time it. */
static CvError time_bench(Bench *b, BenchKind k, size_t n, int steps,
                          double *sec)
{
    Schedule s;
    CvError e = bench_build(&s, k, b->ex->nranks, n, steps);
    if (e)
        return e;
    e = time_sched(b, &s, sec);
    sched_fini(&s);
    return e;
}

/* ------------------------------------------------------------ measuring */

#define ALPHA_STEPS 16 /* tiny steps in the alpha benchmark */

/* alpha: the slope between schedules of 1 and ALPHA_STEPS + 1 tiny steps
 * would leave out the fixed cost of starting a run; the model has no such
 * term, so alpha is the whole time per step of the longer schedule. */
static CvError measure_alpha(Bench *b, double *alpha)
{
    double t = 0;
    CvError e = time_bench(b, BENCH_SHIFT, 1, ALPHA_STEPS, &t);
    *alpha = t / ALPHA_STEPS;
    return e;
}

/* Per-byte time of a step that took t, alpha of it latency; 0 when the
 * bytes took too small a share of t to be told apart from the latency. */
static double per_byte(double t, double alpha, double bytes)
{
    double moved = t - alpha;
    return moved > 0.25 * t ? moved / bytes : 0;
}

/* One point: the four benchmarks with n elements per rank. */
static CvError measure_point(Bench *b, double alpha, size_t n, CalibPoint *pt)
{
    int p = b->ex->nranks;
    double t[BENCH_KIND_COUNT] = {0}, bytes = (double)n * sizeof(float);
    for (int k = 0; k < BENCH_KIND_COUNT; k++) {
        if (p < 2 && (k == BENCH_PAIR || k == BENCH_PAIR_RED))
            t[k] = t[k - BENCH_PAIR];
        else {
            CvError e = time_bench(b, (BenchKind)k, n, 1, &t[k]);
            if (e)
                return e;
        }
    }
    pt->footprint = 2.0 * p * bytes;
    pt->beta_shared = per_byte(t[BENCH_SHIFT], alpha, p * bytes);
    pt->beta_p2p = per_byte(t[BENCH_PAIR], alpha, bytes);
    pt->gamma_shared = fmax(0, (t[BENCH_SHIFT_RED] - 2 * t[BENCH_SHIFT]) /
                                   (p * bytes));
    pt->gamma_p2p = fmax(0, (t[BENCH_PAIR_RED] - 2 * t[BENCH_PAIR]) / bytes);
    if (!(pt->beta_shared > 0) && !(pt->beta_p2p > 0) && b->last)
        pt->beta_shared = t[BENCH_SHIFT] / (p * bytes),
        pt->beta_p2p = t[BENCH_PAIR] / bytes;
    return CV_OK;
}

/* Points whose bandwidth drowned in the latency take the bandwidth of the
 * next larger working set (caches only ever make small ones faster). */
static void fill_undetermined(Calib *c)
{
    for (int i = c->npoints - 1; i >= 0; i--) {
        CalibPoint *p = &c->pt[i], *next = i + 1 < c->npoints ? p + 1 : NULL;
        double sh = next ? next->beta_shared : 1e-15, pp = next ? next->beta_p2p : 1e-15;
        if (!(p->beta_shared > 0))
            p->beta_shared = sh;
        if (!(p->beta_p2p > 0))
            p->beta_p2p = pp;
    }
}

/* Footprints measured: a ladder from inside the caches to well beyond. */
static int footprints(const CalibOptions *o, double *out)
{
    static const double full[] = {256e3, 1e6, 4e6, 8e6, 16e6, 32e6, 64e6,
                                  128e6, 256e6, 1e9};
    static const double quick[] = {1e6, 8e6, 32e6, 256e6};
    const double *f = o->quick ? quick : full;
    int n = o->quick ? 4 : 10, m = 0;
    double max = o->max_bytes > 0 ? o->max_bytes : 1e300;
    for (int i = 0; i < n && m < CALIB_MAX_POINTS; i++)
        if (f[i] <= max)
            out[m++] = f[i];
    return m;
}

/* ------------------------------------------------------ fitting the link */

/* Time schedule s and record each link model's relative error. */
static CvError fit_one(Bench *b, Calib *c, const Schedule *s)
{
    double meas = 0;
    CvError e = time_sched(b, s, &meas);
    for (int l = 0; !e && l < LINK_COUNT; l++) {
        double pred;
        e = calib_predict(c, s, (LinkModel)l, &pred);
        double err = pred > 0 ? fabs(meas / pred - 1) : 1e9;
        if (!e && err > c->fit_err[l])
            c->fit_err[l] = err;
    }
    return e;
}

/* Count per rank for a validation schedule of collective k: a footprint of
 * about `bytes` over every rank's send and recv. */
static size_t fit_count(CollKind k, int p, double bytes)
{
    double per_rank = bytes / p / sizeof(float);
    double blocks = k == COLL_BROADCAST || k == COLL_ALLREDUCE ? 2 : 2.0 * p;
    size_t n = (size_t)(per_rank / blocks);
    return n ? n : 1;
}

/* Time the defaults of broadcast and allreduce and pick the link model
 * whose worst error is smaller. */
static CvError fit_link(Bench *b, Calib *c, double bytes)
{
    static const CollKind kinds[] = {COLL_BROADCAST, COLL_ALLREDUCE};
    for (int l = 0; l < LINK_COUNT; l++)
        c->fit_err[l] = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        const AlgoInfo *a = algo_default(kinds[i]);
        CollCall call = {.kind = kinds[i], .nranks = c->nranks,
                         .count = fit_count(kinds[i], c->nranks, bytes),
                         .dtype = DT_FLOAT, .op = OP_SUM};
        Schedule s;
        CvError e = a ? algo_generate(a, &call, &s) : CV_ERR_ALGO;
        if (e)
            return e;
        e = fit_one(b, c, &s);
        sched_fini(&s);
        if (e)
            return e;
    }
    c->link = c->fit_err[LINK_SHARED] <= c->fit_err[LINK_P2P] ? LINK_SHARED
                                                              : LINK_P2P;
    return CV_OK;
}

CvError calib_measure(Executor *ex, const CalibOptions *o, Calib *out,
                      CalibProgress progress, void *ctx, char *why,
                      size_t whylen)
{
    double fp[CALIB_MAX_POINTS];
    int n = footprints(o, fp), p = ex->nranks;
    Bench b = {.ex = ex, .target_s = o->quick ? 0.002 : 0.003,
               .reps = o->quick ? 5 : 11, .why = why, .whylen = whylen,
               .progress = progress, .ctx = ctx, .total = 1 + 4 * n + 2};
    *out = (Calib){.nranks = p, .when = (long long)time(NULL),
                   .quick = o->quick, .link = LINK_SHARED};
    snprintf(out->backend, sizeof out->backend, "%s", ex->ops->name);
    CvError e = measure_alpha(&b, &out->alpha);
    for (int i = 0; !e && i < n; i++) {
        size_t cnt = (size_t)(fp[i] / (2.0 * p * sizeof(float)));
        b.last = i == n - 1;
        e = measure_point(&b, out->alpha, cnt ? cnt : 1, &out->pt[i]);
        out->npoints = i + 1;
    }
    fill_undetermined(out);
    if (!e)
        e = fit_link(&b, out, fp[n - 1] / 2);
    return e;
}

/* ------------------------------------------------------------ the model */

double calib_footprint(const Schedule *s)
{
    double elems = 0;
    for (int r = 0; r < s->call.nranks; r++)
        for (int k = 0; k < BUF_COUNT; k++)
            elems += (double)sched_bufsize(s, r, (BufId)k);
    return elems * (double)dtype_size(s->call.dtype);
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

ModelParams calib_params(const Calib *c, LinkModel l, double footprint)
{
    int sh = l == LINK_SHARED;
    ModelParams m = {.alpha = c->alpha};
    m.beta = interp(c, footprint, sh ? offsetof(CalibPoint, beta_shared)
                                     : offsetof(CalibPoint, beta_p2p));
    m.gamma = interp(c, footprint, sh ? offsetof(CalibPoint, gamma_shared)
                                      : offsetof(CalibPoint, gamma_p2p));
    return m;
}

/* Time of step k when one memory system carries everything: the most
 * messages one rank sends or receives (alpha each), every byte any
 * transfer moves, local ones included (beta each), and every byte reduced
 * anywhere (gamma each). */
static double memory_step_time(const Schedule *s, size_t k,
                               const ModelParams *m, RankStepStats *st)
{
    const Step *step = &s->steps[k];
    double ts = (double)dtype_size(s->call.dtype), moved = 0, red = 0;
    int msgs = 0;
    if (sched_step_stats(s, k, st))
        return 0;
    for (int r = 0; r < s->call.nranks; r++) {
        msgs = st[r].msgs_out > msgs ? st[r].msgs_out : msgs;
        msgs = st[r].msgs_in > msgs ? st[r].msgs_in : msgs;
    }
    for (size_t i = step->first; i < step->first + step->n; i++) {
        moved += (double)s->xfers[i].count * ts;
        red += s->xfers[i].op == XFER_REDUCE ? (double)s->xfers[i].count * ts : 0;
    }
    return msgs * m->alpha + moved * m->beta + red * m->gamma;
}

CvError calib_predict(const Calib *c, const Schedule *s, LinkModel l,
                      double *seconds)
{
    ModelParams m = calib_params(c, l, calib_footprint(s));
    *seconds = 0;
    if (l == LINK_P2P) {
        CostTerms t;
        CvError e = model_schedule_cost(s, l, &m, &t);
        *seconds = e ? 0 : cost_time(&t, &m);
        return e;
    }
    RankStepStats *st = malloc((size_t)s->call.nranks * sizeof *st);
    if (!st)
        return CV_ERR_NOMEM;
    for (size_t k = 0; k < s->nsteps; k++)
        *seconds += memory_step_time(s, k, &m, st);
    free(st);
    return CV_OK;
}

/* ---------------------------------------------------------- persistence */

#define CALIB_VERSION 1 /* format of the saved file */

CvError calib_path(const char *backend, int nranks, char *out, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && *xdg == '/')
        n = snprintf(out, len, "%s/collviz/calib-%s-p%d.txt", xdg, backend,
                     nranks);
    else if (home && *home)
        n = snprintf(out, len, "%s/.cache/collviz/calib-%s-p%d.txt", home,
                     backend, nranks);
    else
        return CV_ERR_IO;
    return n < 0 || (size_t)n >= len ? CV_ERR_ARG : CV_OK;
}

/* mkdir -p of the directory part of path. */
static CvError make_dirs(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *q = dir + 1; *q; q++) {
        if (*q != '/')
            continue;
        *q = '\0';
        if (mkdir(dir, 0755) && errno != EEXIST)
            return CV_ERR_IO;
        *q = '/';
    }
    return CV_OK;
}

static void write_calib(FILE *f, const Calib *c)
{
    fprintf(f, "# collviz calibration (alpha s, beta and gamma s/B)\n");
    fprintf(f, "version %d\nbackend %s\nnranks %d\nwhen %lld\nquick %d\n",
            CALIB_VERSION, c->backend, c->nranks, c->when, c->quick);
    fprintf(f, "alpha %.9g\nlink %s\nfit %.6g %.6g\n", c->alpha,
            link_name(c->link), c->fit_err[LINK_P2P], c->fit_err[LINK_SHARED]);
    for (int i = 0; i < c->npoints; i++) {
        const CalibPoint *p = &c->pt[i];
        fprintf(f, "point %.9g %.9g %.9g %.9g %.9g\n", p->footprint,
                p->beta_shared, p->beta_p2p, p->gamma_shared, p->gamma_p2p);
    }
}

CvError calib_save(const Calib *c)
{
    char path[4096], tmp[4200];
    CvError e = calib_path(c->backend, c->nranks, path, sizeof path);
    if (e || (e = make_dirs(path)))
        return e;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return CV_ERR_IO;
    write_calib(f, c);
    int bad = ferror(f);
    bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        remove(tmp);
        return CV_ERR_IO;
    }
    return CV_OK;
}

/* Parse one "key values" line into c; -1 on a malformed line. */
static int parse_line(Calib *c, const char *line)
{
    char word[64];
    int v;
    if (line[0] == '#' || line[0] == '\n')
        return 0;
    if (sscanf(line, "version %d", &v) == 1)
        return v == CALIB_VERSION ? 0 : -1;
    if (sscanf(line, "backend %31s", c->backend) == 1 ||
        sscanf(line, "nranks %d", &c->nranks) == 1 ||
        sscanf(line, "when %lld", &c->when) == 1 ||
        sscanf(line, "quick %d", &c->quick) == 1 ||
        sscanf(line, "alpha %lf", &c->alpha) == 1 ||
        sscanf(line, "fit %lf %lf", &c->fit_err[LINK_P2P],
               &c->fit_err[LINK_SHARED]) == 2)
        return 0;
    if (sscanf(line, "link %63s", word) == 1) {
        int l = link_parse(word);
        c->link = l < 0 ? LINK_SHARED : (LinkModel)l;
        return l < 0 ? -1 : 0;
    }
    if (c->npoints < CALIB_MAX_POINTS) {
        CalibPoint *p = &c->pt[c->npoints];
        if (sscanf(line, "point %lf %lf %lf %lf %lf", &p->footprint,
                   &p->beta_shared, &p->beta_p2p, &p->gamma_shared,
                   &p->gamma_p2p) == 5)
            return c->npoints++, 0;
    }
    return -1;
}

/* Whether a loaded calibration is usable for (backend, nranks). */
static int calib_sane(const Calib *c, const char *backend, int nranks)
{
    if (strcmp(c->backend, backend) || c->nranks != nranks ||
        c->npoints < 1 || !(c->alpha >= 0) || !isfinite(c->alpha))
        return 0;
    for (int i = 0; i < c->npoints; i++) {
        const CalibPoint *p = &c->pt[i];
        if (!(p->footprint > 0) || !(p->beta_shared > 0) || !(p->beta_p2p > 0) ||
            !(p->gamma_shared >= 0) || !(p->gamma_p2p >= 0) ||
            (i && p->footprint <= p[-1].footprint))
            return 0;
    }
    return 1;
}

CvError calib_load(const char *backend, int nranks, Calib *out)
{
    char path[4096], line[256];
    CvError e = calib_path(backend, nranks, path, sizeof path);
    if (e)
        return e;
    FILE *f = fopen(path, "r");
    if (!f)
        return CV_ERR_IO;
    *out = (Calib){.link = LINK_SHARED};
    int bad = 0;
    while (!bad && fgets(line, sizeof line, f))
        bad = parse_line(out, line);
    bad |= ferror(f);
    fclose(f);
    return bad || !calib_sane(out, backend, nranks) ? CV_ERR_ARG : CV_OK;
}
