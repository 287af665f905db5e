/* cmd_model.c - `collviz model`: the predicted time of every algorithm of a
 * collective over a size sweep, computed from each generated schedule
 * under the alpha-beta-gamma model (or, with -B, under a backend's saved
 * calibration: calib.h); the best per size and the exact sizes where the
 * best algorithm changes. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algos/algo.h"
#include "measure/calib.h"
#include "cli/cli.h"
#include "cmd/cmd.h"
#include "scene/scene_opts.h"
#include "scene/spec.h"
#include "exec/exec.h"
#include "exec/mono.h"
#include "core/model.h"

enum {
    M_RANKS, M_DTYPE, M_ROOT, M_MIN, M_MAX, M_FACTOR, M_STEP, M_BACKEND,
    M_ALPHA, M_BETA, M_GAMMA, M_LINK, M_TOPO, M_SEGMENT, M_ALGO, M_PRICING,
    M_HELP, M_NOPTS
};

#define MODEL_DEF_MIN 8ull
#define MODEL_DEF_MAX (128ull << 20)

static const CliOpt model_opts[M_NOPTS] = {
    [M_RANKS] = {'p', "ranks", "RANKS", "number of ranks, 1 to 65536 (the model prices schedules of any size it can hold)"},
    [M_DTYPE] = CLI_OPT_DTYPE,
    [M_ROOT] = CLI_OPT_ROOT,
    [M_MIN] = {'b', "minbytes", "MIN", "smallest size (default 8)"},
    [M_MAX] = {'e', "maxbytes", "MAX", "largest size (default 128M)"},
    [M_FACTOR] = {'f', "stepfactor", "FACTOR", "multiply the size by FACTOR, an integer >= 2 (default 2)"},
    [M_STEP] = CLI_OPT_STEP,
    [M_BACKEND] = {'B', "backend", "NAME[:OPTS]", "predict with NAME's saved calibration (collviz calibrate), not --alpha etc.; OPTS as perf's"},
    [M_ALPHA] = CLI_OPT_ALPHA,
    [M_BETA] = CLI_OPT_BETA,
    [M_GAMMA] = CLI_OPT_GAMMA,
    [M_LINK] = CLI_OPT_LINK,
    [M_TOPO] = SPEC_OPT_TOPO,
    [M_SEGMENT] = CLI_OPT_SEGMENT,
    [M_ALGO] = {'a', "algo", "FILE", "a schedule file (docs/schedule-format.md) priced beside the built-in algorithms"},
    [M_PRICING] = CLI_OPT_PRICING,
    [M_HELP] = CLI_OPT_HELP,
};

static const CliCmd model_cmd = {
    .name = "model",
    .usage = "model COLL -p RANKS [-d TYPE] [-r ROOT] [-b MIN] [-e MAX] [-a FILE]\n"
             "               [-f FACTOR | -i STEP] [-B NAME[:OPTS] | [--alpha T]\n"
             "               [--beta GB/s] [--gamma GB/s] [--link full|bus | -T MACHINE]]\n"
             "               [--segment SIZE] [--pricing lockstep|dataflow]",
    .about = "Predict the time of every algorithm of COLL at each size of the sweep,\n"
             "from the schedule each one generates (alpha-beta-gamma model), mark\n"
             "the best per size with '*', and list the crossovers: the exact sizes\n"
             "where the best algorithm changes. Sizes mean what nccl-tests means\n"
             "(see 'collviz trace --help') and are rounded down to whole blocks.\n"
             "Times are in microseconds. Without --alpha, --beta, --gamma the\n"
             "defaults are 1 us, 10 GB/s and 20 GB/s; the header says which are used.\n"
             "With -B the times are the calibrated model of that backend on this\n"
             "machine (what perf's model line shows), and the closed forms and\n"
             "the bound use the alpha, beta and gamma it gives at each working set.\n"
             "With -T the algorithms are ranked on that machine, a what-if: each\n"
             "message priced by the busiest links on its route ('collviz topo').\n"
             "With --pricing dataflow a rank goes on once its own messages\n"
             "are done, not waiting for each step's slowest; the header\n"
             "says which mode priced each algorithm.",
    .opts = model_opts,
    .nopts = M_NOPTS,
    .max_pos = 1,
};

/* Threads evaluating one size's algorithms at most. */
#define MODEL_MAX_WORKERS 4

/* One model run: the call (count set per size), its algorithms, params. */
typedef struct {
    CollCall call;               /* the call; count changes per size */
    const AlgoInfo **algos;      /* the collective's algorithms */
    size_t nalgos;               /* how many */
    const AlgoInfo *file;        /* -a's schedule file, or NULL */
    SpecModel model;              /* parameters (without a calibration) */
    Machine mach;                /* the machine (without a calibration):
                                    -T's, else the flat one of --link */
    bool topo_given;             /* -T named it */
    PricingMode pricing;         /* --pricing: how the steps add up */
    bool pricing_given;          /* --pricing named it (the header says) */
    bool *lockstep;              /* [nalgos] priced lock-step at the last
                                    count though data-flow was asked */
    const Calib *cal;            /* -B: the saved calibration, or NULL */
    double footprint;            /* smallest working set of the schedules
                                    of the last model_eval (bytes) */
    Sweep sweep;              /* sizes */
    double *t;                   /* [nalgos] times of the current count */
    size_t *steps;               /* [nalgos] and steps of its schedules */
    double *fp;                  /* [nalgos] and their working sets */
    struct ModelPin *pin;        /* the first count evaluated, kept */
    int nworkers;                /* threads that evaluate the algorithms
                                    of one size (1 with -B) */
    Schedule *sched;             /* [nworkers] one schedule a worker's
                                    generations reuse the arrays of */
    Pricer *pr;                  /* [nworkers] pricing scratch on mach
                                    (no -B) */
    CvError *errs;               /* [nalgos] each algorithm's failure */
    atomic_size_t next;          /* the next algorithm a worker takes */
    size_t count;                /* the count they evaluate */
    size_t *too_big;             /* [nalgos] smallest count whose schedule
                                    held too many transfers (SIZE_MAX:
                                    none yet) */
    bool *slow;                  /* [nalgos] and it was too many to price
                                    one by one on this machine */
    CvError err;                 /* first generator or model failure */
    const AlgoInfo *err_algo;    /* the algorithm that failed */
    bool tty;                    /* stderr is a terminal: progress there */
    bool shown;                  /* a progress line is on it now */
    double start;                /* when the table began (mono_now_s) */
} Model;

/* The results of the first count evaluated (the header's largest, which
 * the last row and the closing line ask for again). */
typedef struct ModelPin {
    bool set;       /* holds a count */
    size_t count;   /* which */
    int best;       /* model_eval's result */
    double footprint;
    double *t;      /* [nalgos] Model.t's */
    size_t *steps;  /* [nalgos] Model.steps' */
    double *fp;     /* [nalgos] Model.fp's */
} ModelPin;

/* ------------------------------------------------------------- options */

static int model_options(Model *m, const CliArgs *a, CliErr *e)
{
    SceneCallArgs ca = {
        .coll = a->npos ? a->pos[0] : NULL, .ranks = a->val[M_RANKS],
        .dtype = a->val[M_DTYPE], .root = a->val[M_ROOT],
        .segment = a->val[M_SEGMENT], .algo = "all", .allow_all = true,
        .max_ranks = SCHED_MAX_RANKS,
    };
    const AlgoInfo *dflt;
    if (cli_has(a, M_ALGO) && !sched_file_named(a->val[M_ALGO]))
        return cli_fail(e, "model prices every algorithm of the collective; "
                        "-a names a schedule file to price beside them "
                        "(a path with '/' or '.'), not '%s'", a->val[M_ALGO]);
    if (cli_has(a, M_ALGO))
        ca.algo = a->val[M_ALGO];
    if (scene_opts_resolve_call(&ca, &m->call, &dflt, e) ||
        cli_parse_sweep(a->val[M_MIN], a->val[M_MAX], a->val[M_FACTOR],
                        a->val[M_STEP], m->call.dtype, MODEL_DEF_MIN,
                        MODEL_DEF_MAX, &m->sweep, e) ||
        spec_parse_model(a->val[M_ALPHA], a->val[M_BETA], a->val[M_GAMMA],
                        a->val[M_LINK], &m->model, e))
        return -1;
    if (cli_has(a, M_BACKEND) &&
        (cli_has(a, M_ALPHA) || cli_has(a, M_BETA) || cli_has(a, M_GAMMA) ||
         cli_has(a, M_LINK)))
        return cli_fail(e, "-B predicts with the saved calibration: give it or "
                           "--alpha, --beta, --gamma and --link, not both");
    if (cli_has(a, M_BACKEND) && cli_has(a, M_TOPO))
        return cli_fail(e, "-B prices on this machine as calibrated and -T on "
                           "the machine it names: give one");
    if (cli_has(a, M_TOPO) && cli_has(a, M_LINK))
        return cli_fail(e, "-T names the machine: give it or --link, not both");
    m->pricing_given = cli_has(a, M_PRICING);
    if (m->pricing_given &&
        cli_parse_pricing(a->val[M_PRICING], &m->pricing, e))
        return -1;
    if (cli_has(a, M_BACKEND) && m->pricing == PRICING_DATAFLOW)
        return cli_fail(e, "-B predicts each step with the calibration, "
                           "lock-step; --pricing dataflow prices on "
                           "--alpha, --beta, --gamma or -T's machine: give "
                           "one");
    m->topo_given = cli_has(a, M_TOPO);
    if (m->topo_given ? spec_parse(a->val[M_TOPO], m->call.nranks,
                                          &m->model, &m->mach, e)
                      : spec_flat(&m->model, m->call.nranks, &m->mach, e))
        return -1;
    m->file = algo_file_text(dflt) ? dflt : NULL;
    if (m->sweep.min > 0 && coll_count_floor(&m->call, m->sweep.max) == 0) {
        CollCall one = m->call;
        one.count = 1;
        return cli_fail(e, "no size from %llu to %llu bytes holds a whole block: "
                        "%s on %d ranks of %s needs a multiple of %zu bytes",
                        m->sweep.min, m->sweep.max, coll_name(one.kind),
                        one.nranks, dtype_name(one.dtype), coll_size_bytes(&one));
    }
    return 0;
}

/* The saved calibration of backend `spec` (-B NAME[:PARAMS]) at the
 * call's rank count. */
static int model_calib(Model *m, const char *spec, Calib *cal, CliErr *e)
{
    char why[CV_WHY_LEN] = "";
    if (cmd_calib_saved(spec, m->call.nranks, cal, why, sizeof why))
        return cli_fail(e, "%s", why);
    m->cal = cal;
    return 0;
}

/* Collect the collective's algorithms. */
static CvError model_algos(Model *m)
{
    size_t n = algo_count() + 1;
    m->algos = malloc(n * sizeof *m->algos);
    m->t = malloc(n * sizeof *m->t);
    m->steps = malloc(n * sizeof *m->steps);
    m->fp = malloc(n * sizeof *m->fp);
    m->too_big = malloc(n * sizeof *m->too_big);
    m->slow = calloc(n, sizeof *m->slow);
    m->lockstep = calloc(n, sizeof *m->lockstep);
    m->pin = calloc(1, sizeof *m->pin);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    m->nworkers = m->cal ? 1 /* a calibration's predictors: one thread */
                         : cpus < 1 ? 1
                         : cpus > MODEL_MAX_WORKERS ? MODEL_MAX_WORKERS
                                                    : (int)cpus;
    m->sched = calloc((size_t)m->nworkers, sizeof *m->sched);
    m->pr = calloc((size_t)m->nworkers, sizeof *m->pr);
    m->errs = calloc(n, sizeof *m->errs);
    if (!m->algos || !m->t || !m->steps || !m->fp || !m->too_big || !m->slow ||
        !m->lockstep || !m->pin || !m->sched || !m->pr || !m->errs)
        return CV_ERR_NOMEM;
    m->pin->t = malloc(n * sizeof *m->t);
    m->pin->steps = malloc(n * sizeof *m->steps);
    m->pin->fp = malloc(n * sizeof *m->fp);
    if (!m->pin->t || !m->pin->steps || !m->pin->fp)
        return CV_ERR_NOMEM;
    for (int w = 0; w < m->nworkers && !m->cal; w++) {
        if (pricer_init(&m->pr[w], &m->mach))
            return CV_ERR_NOMEM;
        m->pr[w].mode = m->pricing;
    }
    for (size_t i = 0; i < n; i++)
        m->too_big[i] = SIZE_MAX;
    n = algo_count();
    for (size_t i = 0; i < n; i++) /* those made for the machine priced */
        if (algo_at(i)->coll == m->call.kind &&
            algo_fits(algo_at(i), &m->call, m->cal ? NULL : &m->mach, NULL, 0))
            m->algos[m->nalgos++] = algo_at(i);
    if (m->file) /* the schedule file, last */
        m->algos[m->nalgos++] = m->file;
    return CV_OK;
}

/* What the bound column holds, in words. */
static const char *bound_words(const Model *m, bool flat)
{
    const Machine *mc = &m->mach;
    MachineKind k = m->cal ? m->cal->machine : mc->kind;
    if (m->cal ? k == MACHINE_FULL || k == MACHINE_BUS : flat)
        return "Chan et al.";
    if (k == MACHINE_GPU || k == MACHINE_HOST)
        return "this memory machine's: the call's start, a step's, and the "
               "output's writes at the fastest rate its buffers allow";
    if (k == MACHINE_NODES && m->cal)
        return "this machine's: its ranks' links at their fastest";
    Machine probe = *mc;
    double s;
    CollCall c = m->call;
    if (!model_machine_bound(&c, &probe, &s))
        return "none: no honest one on a switch that sums or a bus of "
               "unequal parts, '-'";
    return "this machine's: a rank's links reach L + 1 times as many ranks a "
           "step and carry its bytes L at a time, at the least alpha and beta";
}

/* ---------------------------------------------------------------- costs */

/* The alpha-beta-gamma parameters for a working set of `footprint` bytes:
 * the command line's, or those the calibration gives there. */
static ModelParams model_params(const Model *m, double footprint)
{
    return m->cal ? calib_params(m->cal, m->cal->machine, footprint)
                  : m->model.m;
}

/* The parameters a closed form is priced at: a flat machine's own where
 * -T gives one (full,alpha=5us: 5 us), else model_params'. */
static ModelParams closed_params(const Model *m, double footprint)
{
    ModelParams uni;
    if (m->topo_given && model_flat_kind(m->mach.kind) &&
        model_machine_uniform(&m->mach, &uni))
        return uni;
    return model_params(m, footprint);
}

/* Cost terms and predicted seconds (*sec, may be NULL) of algorithm i at
 * `count`, its steps and working set (*fp); records the first failure.
 * A schedule too large to price (CV_ERR_LIMIT) is n/a, as is one not made
 * for -T's machine. */
static bool algo_terms(Model *m, int w, size_t i, size_t count, CostTerms *c,
                       size_t *steps, double *sec, double *fp)
{
    const AlgoInfo *a = m->algos[i];
    Schedule *s = &m->sched[w];
    CollCall call = m->call;
    call.count = count;
    *fp = 0, *steps = 0;
    if (count >= m->too_big[i])
        return false;
    /* compact where the algorithm repeats a shape; a calibration's
       predictors take each step written out (at most COLL_MAX_RANKS), as
       does a memory machine, which prices the copy-ins the backends fuse
       over a written-out schedule */
    bool whole = m->cal || (machine_is_memory(&m->mach) &&
                            call.nranks <= COLL_MAX_RANKS);
    CvError e = algo_generate_as(a, &call, m->cal ? NULL : &m->mach,
                                 ALGO_REUSE | (whole ? 0 : ALGO_COMPACT), s,
                                 NULL, 0);
    if (e == CV_ERR_LIMIT) {
        m->too_big[i] = count, m->slow[i] = false;
        return false;
    }
    /* the working set picks a calibration's parameters; without one
       nothing reads it (sched_bytes walks every rank) */
    *fp = e || !m->cal ? 0 : calib_footprint(s);
    Machine cm;
    double t = 0;
    if (!e && m->cal) {
        e = calib_machine(m->cal, *fp, &cm);
        if (!e)
            e = model_machine_cost(s, &cm, false, c, &t);
        if (!e && sec)
            e = calib_predict(m->cal, s, m->cal->machine, sec);
    } else if (!e) {
        e = pricer_cost(&m->pr[w], s, false, c, &t);
        m->lockstep[i] = m->pr[w].priced != m->pricing;
        if (e == CV_ERR_LIMIT) { /* its repetitions one by one: too slow */
            if (count < m->too_big[i])
                m->too_big[i] = count, m->slow[i] = true;
            return false;
        }
        if (!e && sec)
            *sec = t;
    }
    if (!e)
        *steps = sched_nsteps(s);
    m->errs[i] = e == CV_ERR_ALGO ? CV_OK : e; /* not made for -T's: n/a */
    return !e;
}

/* One worker of model_eval. */
typedef struct {
    Model *m;
    int w;    /* its schedule and pricer */
} Worker;

/* The algorithms not taken yet, one at a time, at m->count, from the
 * table's last (the registry lists the larger schedules later: taken
 * first, they leave the small ones to fill the end). */
static void *eval_worker(void *arg)
{
    const Worker *wk = arg;
    Model *m = wk->m;
    for (;;) {
        size_t k = atomic_fetch_add(&m->next, 1);
        if (k >= m->nalgos)
            return NULL;
        size_t i = m->nalgos - 1 - k;
        CostTerms c;
        if (!algo_terms(m, wk->w, i, m->count, &c, &m->steps[i], &m->t[i],
                        &m->fp[i]))
            m->t[i] = -1;
    }
}

/* Times, steps and working sets of every algorithm at `count` into m->t,
 * m->steps, m->fp (time negative: failed), the smallest working set into
 * m->footprint; returns the index of the best (ties go to the first), or
 * -1. The first count asked is kept and not computed again. */
static int model_eval(Model *m, size_t count)
{
    ModelPin *pin = m->pin;
    size_t n = m->nalgos;
    if (pin->set && pin->count == count) {
        memcpy(m->t, pin->t, n * sizeof *m->t);
        memcpy(m->steps, pin->steps, n * sizeof *m->steps);
        memcpy(m->fp, pin->fp, n * sizeof *m->fp);
        m->footprint = pin->footprint;
        return pin->best;
    }
    int best = -1;
    m->footprint = 0;
    /* the algorithms are independent: each worker takes the next one
       with its own schedule and pricer; this thread is worker 0 */
    m->count = count;
    atomic_store(&m->next, 0);
    Worker wk[MODEL_MAX_WORKERS];
    pthread_t th[MODEL_MAX_WORKERS];
    bool started[MODEL_MAX_WORKERS] = {false};
    for (int w = 0; w < m->nworkers; w++) {
        wk[w] = (Worker){m, w};
        if (w > 0)
            started[w] = pthread_create(&th[w], NULL, eval_worker, &wk[w]) == 0;
    }
    eval_worker(&wk[0]);
    for (int w = 1; w < m->nworkers; w++)
        if (started[w])
            pthread_join(th[w], NULL);
    for (size_t i = 0; i < n; i++) {
        if (m->errs[i] && !m->err) /* the first in the table's order */
            m->err = m->errs[i], m->err_algo = m->algos[i];
        if (m->t[i] >= 0 && (m->footprint == 0 || m->fp[i] < m->footprint))
            m->footprint = m->fp[i];
        if (m->t[i] >= 0 && (best < 0 || m->t[i] < m->t[best]))
            best = (int)i;
    }
    if (!pin->set) {
        *pin = (ModelPin){true, count, best, m->footprint, pin->t, pin->steps,
                          pin->fp};
        memcpy(pin->t, m->t, n * sizeof *m->t);
        memcpy(pin->steps, m->steps, n * sizeof *m->steps);
        memcpy(pin->fp, m->fp, n * sizeof *m->fp);
    }
    return best;
}

static const char *algo_label(const Model *m, int i)
{
    return i >= 0 ? m->algos[i]->name : "n/a";
}


/* The header's line of algorithm i at count n: its steps, its closed
 * form's time and the form (a schedule file: none), and a segmented
 * algorithm's choice. */
static void closed_line(Model *m, size_t i, size_t n)
{
    const AlgoInfo *a = m->algos[i];
    CostTerms closed;
    CollCall big = m->call;
    big.count = n;
    if (!a->cost) { /* a schedule file */
        printf("#   %-20s %6zu %14s  %s\n", a->name, m->steps[i], "-",
               algo_formula(a, big.nranks));
        return;
    }
    a->cost(&big, &closed);
    if (m->t[i] < 0)
        return;
    ModelParams mp = closed_params(m, m->fp[i]);
    printf("#   %-20s %6zu %14.3f  %s\n", a->name, m->steps[i],
           cost_time(&closed, &mp) * 1e6, algo_formula(a, big.nranks));
    char seg[200];
    if (algo_segment_text(a, &big, &mp, seg, sizeof seg))
        printf("#   %-20s %s\n", "", seg);
}
/* ----------------------------------------------------------------- table */

/* With --pricing, the header's line of how the steps added up at the
 * largest count (m->lockstep: model_eval's there), naming the algorithms
 * data-flow could not price. */
static void pricing_line(const Model *m)
{
    if (!m->pricing_given)
        return;
    printf("# pricing: %s", model_pricing_name(m->pricing));
    if (m->pricing == PRICING_LOCKSTEP)
        printf(" (each step waits for its slowest message)\n");
    else
        printf(" (a message starts once its two ranks are done with the "
               "steps before; the time is the latest rank's)\n");
    int n = 0;
    for (size_t i = 0; i < m->nalgos; i++)
        if (m->lockstep[i] && m->t[i] >= 0)
            printf("%s%s", n++ ? ", " : "# pricing: lockstep for ",
                   m->algos[i]->name);
    if (n)
        printf(" (a memory machine's steps, or a schedule too large to "
               "write out)\n");
}

static int col_width(const AlgoInfo *a)
{
    int n = (int)strlen(a->name) + 1;
    return n > 14 ? n : 14;
}

static void model_header(Model *m, size_t last_count)
{
    const CollCall *c = &m->call;
    char model[512];
    CollCall one = *c;
    one.count = 1;
    char when[32];
    if (m->cal)
        cli_date_text(m->cal->when, when, sizeof when);
    if (m->cal)
        snprintf(model, sizeof model, "the calibration of %s at %d ranks (-B): "
                 "this machine, calibrated on %s, as the machine %s, "
                 "alpha %.3f us, beta and gamma by working set ('collviz "
                 "calibrate -B %s -p %d --show')", m->cal->backend,
                 m->cal->nranks, when, machine_kind_name(m->cal->machine),
                 m->cal->alpha * 1e6,
                 m->cal->backend, m->cal->nranks);
    else if (m->topo_given)
        machine_describe(&m->mach, false, model, sizeof model);
    else
        spec_model_text(&m->model, model, sizeof model);
    printf("# collviz model %s: %d rank%s, %s", coll_name(c->kind), c->nranks,
           c->nranks == 1 ? "" : "s", dtype_name(c->dtype));
    if (coll_is_rooted(c->kind))
        printf(", root %d", c->root);
    printf("\n# %s: %s\n", m->topo_given ? "machine (-T, a what-if)" : "model",
           model);
    ModelParams uni;
    bool flat = !m->topo_given || ((m->mach.kind == MACHINE_FULL ||
                                    m->mach.kind == MACHINE_BUS) &&
                                   model_machine_uniform(&m->mach, &uni));
    printf("# sizes in bytes (nccl-tests meaning, whole blocks of %zu bytes), count "
           "in elements per block, times in us from each generated schedule;\n"
           "# '*' marks the best (ties go to the first listed), bound is the lower "
           "bound (%s)\n", coll_size_bytes(&one), bound_words(m, flat));
    printf("# at the largest count, %zu: algorithm, steps, closed-form time (us%s), "
           "closed form\n", last_count, m->topo_given &&
           m->mach.kind != MACHINE_FULL && m->mach.kind != MACHINE_BUS
               ? ", on full with --alpha --beta --gamma" : "");
    model_eval(m, last_count);
    pricing_line(m);
    for (size_t i = 0; i < m->nalgos; i++)
        closed_line(m, i, last_count);
    printf("# %12s %12s", "size", "count");
    for (size_t i = 0; i < m->nalgos; i++)
        printf(" %*s", col_width(m->algos[i]), m->algos[i]->name);
    printf(" %12s  %s\n", "bound", "best");
}

/* The bound of call c (seconds; false: none): without -T and -B,
 * Chan et al.'s at the command line's parameters; else the machine's own
 * (model_machine_bound: a calibration's at the row's working set). */
static bool row_bound(const Model *m, const CollCall *c, double *seconds)
{
    CostTerms lb;
    Machine cm;
    if (m->cal) {
        if (m->cal->machine == MACHINE_FULL || m->cal->machine == MACHINE_BUS) {
            ModelParams mp = model_params(m, m->footprint);
            model_lower_bound(c, &lb);
            *seconds = cost_time(&lb, &mp);
            return true;
        }
        return calib_machine(m->cal, m->footprint, &cm) == CV_OK &&
               model_machine_bound(c, &cm, seconds);
    }
    if (m->topo_given)
        return model_machine_bound(c, &m->mach, seconds);
    model_lower_bound(c, &lb);
    *seconds = cost_time(&lb, &m->model.m);
    return true;
}

/* One row of the table: the times of m->t at `count` (model_eval's, whose
 * working set the bound's parameters take), best marked. */
static void model_row(const Model *m, size_t count, int best)
{
    CollCall c = m->call;
    c.count = count;
    CostTerms lb;
    model_lower_bound(&c, &lb);
    printf("  %12zu %12zu", coll_size_bytes(&c), count);
    for (size_t i = 0; i < m->nalgos; i++) {
        char cell[40];
        if (m->t[i] < 0)
            snprintf(cell, sizeof cell, "n/a");
        else
            snprintf(cell, sizeof cell, "%.3f%s", m->t[i] * 1e6,
                     (int)i == best ? "*" : "");
        printf(" %*s", col_width(m->algos[i]), cell);
    }
    double bound;
    if (row_bound(m, &c, &bound))
        printf(" %12.3f  %s\n", bound * 1e6, algo_label(m, best));
    else
        printf(" %12s  %s\n", "-", algo_label(m, best));
}

/* ------------------------------------------------------------ crossovers */

/* A change of the best algorithm between two counts of the sweep. */
typedef struct {
    size_t lo, hi; /* counts on either side */
    int from, to;  /* best at lo, best at hi */
} Cross;

/* Narrow a change down to neighbouring counts by bisection: the best at
 * x->lo stays x->from; the best at x->hi differs. */
static void cross_narrow(Model *m, Cross *x)
{
    while (x->hi - x->lo > 1) {
        size_t mid = x->lo + (x->hi - x->lo) / 2;
        int b = model_eval(m, mid);
        if (b == x->from)
            x->lo = mid;
        else
            x->hi = mid, x->to = b;
    }
}

static void cross_print(const Model *m, const Cross *x)
{
    CollCall lo = m->call, hi = m->call;
    lo.count = x->lo, hi.count = x->hi;
    printf("# crossover %s -> %s: %s is best at %zu bytes (count %zu), %s at %zu "
           "bytes (count %zu)\n", algo_label(m, x->from), algo_label(m, x->to),
           algo_label(m, x->from), coll_size_bytes(&lo), x->lo,
           algo_label(m, x->to), coll_size_bytes(&hi), x->hi);
}

/* ------------------------------------------------------------- progress */

/* Once the table has taken a second (16384 ranks on a torus take many),
 * one line on a terminal's stderr says how far it is, rewritten in place
 * and cleared before the next row is printed. */
static void progress_say(Model *m, const char *what, size_t done, size_t total)
{
    if (!m->tty || mono_now_s() - m->start < 1.0)
        return;
    fprintf(stderr, "\rmodel %s, %d ranks: %s %zu of %zu\033[K",
            coll_name(m->call.kind), m->call.nranks, what, done, total);
    m->shown = true;
}

static void progress_clear(Model *m)
{
    if (m->shown)
        fputs("\r\033[K", stderr);
    m->shown = false;
}

/* ---------------------------------------------------------------- sweep */

/* At the largest size (m->t holds its times): how much faster the best
 * is than the collective's default algorithm, where it is another. */
static void against_default(const Model *m, size_t count, int best)
{
    const AlgoInfo *d = algo_default(m->call.kind);
    int di = -1;
    for (size_t i = 0; i < m->nalgos; i++)
        di = m->algos[i] == d ? (int)i : di;
    if (best < 0 || di < 0 || di == best || !(m->t[di] > 0) ||
        !(m->t[best] > 0))
        return;
    CollCall c = m->call;
    c.count = count;
    printf("# at %zu bytes: %s takes %.3f us, %.2fx faster than %s (the "
           "default) at %.3f us\n", coll_size_bytes(&c), algo_label(m, best),
           m->t[best] * 1e6, m->t[di] / m->t[best], d->name, m->t[di] * 1e6);
}

/* Every change of the best between two rows of the sweep (counts[0 ..
 * n), best[] each row's), also where it changes more than once between
 * them: narrowed one after another from the row before until the row's
 * own best is reached. */
static void model_crossovers(Model *m, const size_t *counts, const int *best,
                             size_t n)
{
    size_t ncross = 0;
    for (size_t i = 1; i < n; i++) {
        size_t lo = counts[i - 1];
        int from = best[i - 1];
        for (int k = 0; from != best[i] && k < 64; k++) {
            Cross x = {lo, counts[i], from, best[i]};
            progress_say(m, "crossovers after size", i, n);
            cross_narrow(m, &x);
            progress_clear(m);
            cross_print(m, &x);
            ncross++;
            lo = x.hi, from = x.to;
        }
    }
    if (!ncross && n)
        printf("# crossovers: none in this sweep (%s is best at every size)\n",
               algo_label(m, best[0]));
}

/* A line for each algorithm that could not be priced from some size. */
static void model_too_big(const Model *m)
{
    for (size_t i = 0; i < m->nalgos; i++)
        if (m->too_big[i] != SIZE_MAX) {
            CollCall c = m->call;
            c.count = m->too_big[i];
            if (m->slow[i])
                printf("# %s: n/a from %zu bytes (count %zu): pricing it on "
                       "%d ranks on this machine comes to more than %.3g "
                       "transfer hops (its transfers%s, each with the links "
                       "it crosses), more than collviz prices; give fewer "
                       "ranks or a smaller machine\n", m->algos[i]->name,
                       coll_size_bytes(&c), c.count, c.nranks,
                       MODEL_MAX_PRICE_WORK,
                       machine_shift_invariant(&m->mach) ? ""
                       : ", repeated steps one by one: the machine does not "
                         "look the same from every rank");
            else
                printf("# %s: n/a from %zu bytes (count %zu): its schedule "
                       "has more than %zu transfers at %d ranks, more than "
                       "collviz prices\n", m->algos[i]->name,
                       coll_size_bytes(&c), c.count,
                       (size_t)SCHED_COMPACT_MAX_XFERS, c.nranks);
        }
}

static int model_table(Model *m)
{
    size_t *counts = malloc((CLI_MAX_SWEEP + 1) * sizeof *counts);
    int *best = malloc((CLI_MAX_SWEEP + 1) * sizeof *best);
    if (!counts || !best) {
        free(counts);
        free(best);
        return CLI_EXIT_FAIL;
    }
    size_t n = sweep_counts(&m->sweep, &m->call, counts);
    if (n && counts[0] == 0 && m->sweep.min > 0) /* an empty rounding */
        memmove(counts, counts + 1, --n * sizeof *counts);
    m->start = mono_now_s();
    model_header(m, n ? counts[n - 1] : 0);
    for (size_t i = 0; i < n; i++) {
        progress_say(m, "size", i + 1, n);
        best[i] = model_eval(m, counts[i]);
        progress_clear(m);
        model_row(m, counts[i], best[i]);
        fflush(stdout);
    }
    model_crossovers(m, counts, best, n);
    /* the largest size's times again: the bisections above left others
       in m->t */
    if (n)
        against_default(m, counts[n - 1], model_eval(m, counts[n - 1]));
    model_too_big(m);
    free(counts);
    free(best);
    return CLI_EXIT_OK;
}

int cmd_model(int argc, char **argv)
{
    Model m = {.tty = isatty(STDERR_FILENO)};
    Calib cal;
    CliArgs a;
    CliErr e;
    int rc = cli_start(&model_cmd, M_HELP, argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (model_options(&m, &a, &e) ||
        (cli_has(&a, M_BACKEND) && model_calib(&m, a.val[M_BACKEND], &cal, &e)))
        return cli_error(&e);
    rc = CLI_EXIT_FAIL;
    if (model_algos(&m) == CV_OK) {
        rc = model_table(&m);
        if (m.err) {
            fprintf(stderr, "collviz: the %s schedule could not be costed: %s\n",
                    m.err_algo->name, cv_strerror(m.err));
            rc = CLI_EXIT_FAIL;
        }
    } else {
        fprintf(stderr, "collviz: %s\n", cv_strerror(CV_ERR_NOMEM));
    }
    if (fflush(stdout) || ferror(stdout))
        rc = CLI_EXIT_FAIL;
    if (m.pin)
        free(m.pin->t), free(m.pin->steps), free(m.pin->fp);
    for (int w = 0; w < m.nworkers; w++) {
        if (m.sched)
            sched_fini(&m.sched[w]);
        if (m.pr && m.pr[w].m)
            pricer_fini(&m.pr[w]);
    }
    free(m.pin);
    free(m.sched);
    free(m.pr);
    free(m.algos);
    free(m.t);
    free(m.steps);
    free(m.fp);
    free(m.too_big);
    free(m.slow);
    free(m.lockstep);
    free(m.errs);
    return rc;
}
