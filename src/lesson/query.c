/* query.c - evaluating a checkpoint's query (query.h) over a scene: the
 * schedule trace would build, the symbolic executor's state after K
 * steps, and the alpha-beta-gamma model as `collviz model` applies it
 * (the same sweep, ties to the first algorithm listed, the same
 * bisection for crossovers). A learner's answer is compared with the
 * value in query_match.c. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "algos/common.h"
#include "cli/cli.h"
#include "scene/trace.h"
#include "scene/spec.h"
#include "core/model.h"
#include "core/sim.h"
#include "core/sweep.h"
#include "core/sanitize.h"
#include "lesson/query.h"

#define Q_MAX_WORDS 64

/* One query being evaluated. */
typedef struct {
    QueryKind kind;            /* what is asked */
    bool count;                /* "count": the size of the list */
    const char *arg[8];        /* its arguments */
    int nargs;                 /* how many */
    const char *param[4];      /* alpha, beta, gamma, link (or NULL) */
    SceneSpec scene;           /* the scene it is asked over */
    SpecModel model;            /* the model's parameters */
    Schedule s;                /* the scene's schedule */
    bool have_s;               /* s is built */
    char *why;                 /* the sentence on failure */
    size_t whylen;             /* its room */
    unsigned long long work;   /* transfers built and followed so far */
    bool over;                 /* work went past Q_MAX_WORK */
} Q;

/* The most work one query may do: transfers of the schedules it builds
 * (every algorithm at every size it tries, for best and crossover) and of
 * the steps it follows element by element, counted as it goes. A
 * checkpoint is evaluated while the learner waits, and a lesson's
 * --check evaluates every one: this keeps each under about a second on
 * a laptop's core (a crossover over 256 ranks is well inside; over 1024,
 * which took 9 to 21 s, is refused). */
#define Q_MAX_WORK 10000000ull

static const char *const kind_names[Q_COUNT] = {
#define X(id, name, args) [id] = name,
    QUERY_KINDS(X)
#undef X
};
static const char *const kind_args[Q_COUNT] = {
#define X(id, name, args) [id] = args,
    QUERY_KINDS(X)
#undef X
};

const char *query_kind_name(QueryKind k)
{
    return k < Q_COUNT ? kind_names[k] : "?";
}

__attribute__((format(printf, 2, 3)))
static int fail(Q *q, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(q->why, q->whylen, fmt, ap);
    va_end(ap);
    return -1;
}

/* ------------------------------------------------------------ arguments */

/* Argument i as a whole number from min to max. */
static int arg_num(Q *q, int i, const char *what, long min, long max, long *v)
{
    if (i >= q->nargs)
        return fail(q, "'%s' needs %s (%s %s)", kind_names[q->kind], what,
                    kind_names[q->kind], kind_args[q->kind]);
    if (!cli_whole_number(q->arg[i], v) || *v < min || *v > max)
        return fail(q, "%s '%s' must be a whole number from %ld to %ld", what,
                    q->arg[i], min, max);
    return 0;
}

/* A rank, or -1 for "max" where allow_max. */
static int arg_rank(Q *q, int i, bool allow_max, long *r)
{
    if (allow_max && i < q->nargs && !strcmp(q->arg[i], "max")) {
        *r = -1;
        return 0;
    }
    return arg_num(q, i, "a rank", 0, q->scene.call.nranks - 1, r);
}

/* A size in bytes as the count of a whole number of blocks. */
static int arg_size(Q *q, int i, size_t *count)
{
    CliErr e;
    unsigned long long b;
    if (i >= q->nargs)
        return fail(q, "'%s' needs a size (%s %s)", kind_names[q->kind],
                    kind_names[q->kind], kind_args[q->kind]);
    if (cli_parse_size("size", q->arg[i], &b, &e) ||
        cli_count_for_size(&q->scene.call, b, count, &e))
        return fail(q, "%s", e.msg);
    return 0;
}

static int want_args(Q *q, int min, int max)
{
    if (q->nargs < min)
        return fail(q, "'%s' needs more arguments: %s %s", kind_names[q->kind],
                    kind_names[q->kind], kind_args[q->kind]);
    if (q->nargs > max)
        return fail(q, "'%s' takes %s%s", kind_names[q->kind],
                    max ? "at most the arguments " : "no arguments",
                    kind_args[q->kind]);
    return 0;
}


/* Algorithm a's schedule for call c on the scene's machine (-T's shape,
 * else full). */
/* Count n more transfers of work; false once past the bound. */
static bool spend(Q *q, unsigned long long n)
{
    q->work += n;
    if (q->work > Q_MAX_WORK)
        q->over = true;
    return !q->over;
}

/* The scene's machine for p ranks under the query's model: -T's (parsed
 * again only when p or the model changes), else the flat machine of the
 * model's link. */
static const Machine *query_machine(Q *q, int p)
{
    CliErr e;
    return spec_machine_build(&q->scene.machine, p, false, &q->model, &e)
               ? NULL
               : &q->scene.machine.mach;
}

static CvError query_generate(Q *q, const AlgoInfo *a, const CollCall *c,
                              Schedule *s)
{
    if (q->over)
        return CV_ERR_ARG;
    const Machine *m = NULL; /* the flat machine's schedules are plain */
    if (q->scene.machine.given[0] && !(m = query_machine(q, c->nranks)))
        return CV_ERR_ARG;
    CvError r = algo_generate_on(a, c, m, s, NULL, 0);
    if (!r && !spend(q, s->nxfers)) {
        sched_fini(s);
        return CV_ERR_ARG;
    }
    return r;
}

/* ------------------------------------------------------------- scheduling */

static int build(Q *q, size_t count)
{
    CollCall c = q->scene.call;
    c.count = count;
    if (q->have_s)
        sched_fini(&q->s), q->have_s = false;
    CvError e = query_generate(q, q->scene.algo, &c, &q->s);
    if (e)
        return fail(q, "the %s schedule could not be built: %s",
                    q->scene.algo->name, cv_strerror(e));
    q->have_s = true;
    return 0;
}

/* Step K (1 .. nsteps) as an index. */
static int arg_step(Q *q, int i, size_t *k)
{
    long v;
    if (!q->s.nsteps)
        return fail(q, "the scene has no steps");
    if (arg_num(q, i, "a step", 1, (long)q->s.nsteps, &v))
        return -1;
    *k = (size_t)v - 1;
    return 0;
}

/* ------------------------------------------------------------- values */

static void set_number(QueryValue *v, double x, int decimals)
{
    v->type = QV_NUMBER;
    v->num = x;
    v->decimals = decimals;
    if (decimals == 0 || x == floor(x)) {
        snprintf(v->text, sizeof v->text, "%.0f", x);
        return;
    }
    /* shown with the decimals an answer must give, as the lessons write
       it (14.11, not 14.107) */
    snprintf(v->text, sizeof v->text, "%.*f", decimals, x);
    size_t n = strlen(v->text);
    while (n > 1 && v->text[n - 1] == '0')
        v->text[--n] = '\0';
}

static void list_text(QueryValue *v)
{
    size_t len = 0;
    v->text[0] = '\0';
    for (int i = 0; i < v->nlist; i++) {
        if (!v->in[i])
            continue;
        int j = i;
        while (j + 1 < v->nlist && v->in[j + 1])
            j++;
        int n = j == i ? snprintf(v->text + len, sizeof v->text - len,
                                  "%s%d", len ? ", " : "", i)
                       : snprintf(v->text + len, sizeof v->text - len,
                                  "%s%d-%d", len ? ", " : "", i, j);
        if (n < 0 || (size_t)n >= sizeof v->text - len)
            break;
        len += (size_t)n;
        i = j;
    }
    if (!len)
        snprintf(v->text, sizeof v->text, "none");
}

/* ------------------------------------------------------------- kinds */

static int q_steps(Q *q, QueryValue *v)
{
    size_t n = 0;
    for (size_t k = 0; k < q->s.nsteps; k++) {
        const Step *st = &q->s.steps[k];
        bool msg = false;
        for (size_t x = st->first; x < st->first + st->n; x++)
            msg |= q->s.xfers[x].src != q->s.xfers[x].dst;
        n += q->kind == Q_STEPS || msg;
    }
    set_number(v, (double)n, 0);
    return want_args(q, 0, 0);
}

static int q_bytes(Q *q, QueryValue *v)
{
    long r;
    int p = q->s.call.nranks;
    if (want_args(q, 1, 2) || arg_rank(q, 0, true, &r))
        return -1;
    size_t *b = calloc((size_t)p, sizeof *b);
    RankStepStats *st = calloc((size_t)p, sizeof *st);
    size_t k = 0;
    CvError e = CV_ERR_NOMEM;
    if (b && st && q->nargs == 2 && !arg_step(q, 1, &k)) {
        e = sched_step_stats(&q->s, k, st);
        for (int i = 0; i < p; i++)
            b[i] = q->kind == Q_SENT ? st[i].sent : st[i].recvd;
    } else if (b && st && q->nargs == 1) {
        SchedTotals t;
        e = q->kind == Q_SENT ? sched_totals(&q->s, &t, b, NULL)
                              : sched_totals(&q->s, &t, NULL, b);
    } else if (b && st) {
        free(b), free(st);
        return -1;
    }
    size_t best = 0;
    for (int i = 0; !e && i < p; i++)
        if (r < 0 ? b[i] > best : i == r)
            best = b[i];
    free(b), free(st);
    if (e)
        return fail(q, "the bytes could not be counted: %s", cv_strerror(e));
    set_number(v, (double)best, 0);
    return 0;
}

static int q_movers(Q *q, QueryValue *v)
{
    size_t k = 0;
    int p = q->s.call.nranks;
    if (want_args(q, 1, 1) || arg_step(q, 0, &k))
        return -1;
    RankStepStats *st = calloc((size_t)p, sizeof *st);
    CvError e = st ? sched_step_stats(&q->s, k, st) : CV_ERR_NOMEM;
    v->type = QV_LIST;
    v->nlist = p;
    for (int i = 0; !e && i < p; i++)
        v->in[i] = (q->kind == Q_SENDERS ? st[i].sent : st[i].recvd) > 0;
    free(st);
    if (e)
        return fail(q, "the step could not be read: %s", cv_strerror(e));
    list_text(v);
    return 0;
}

/* The most elements the symbolic state of a query follows. */
#define Q_MAX_SIM_CELLS (1ull << 24)

/* The symbolic state after K steps (argument i) in *sim. */
static int seek(Q *q, int i, Sim *sim)
{
    long k;
    if (arg_num(q, i, "a step count", 0, (long)q->s.nsteps, &k))
        return -1;
    unsigned long long cells = 0;
    for (int r = 0; r < q->s.call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++)
            cells += sched_bufsize(&q->s, r, (BufId)b);
    /* following a transfer element by element costs about four times
       building it */
    if (!spend(q, 32ull * q->s.nxfers))
        return -1;
    if (cells > Q_MAX_SIM_CELLS)
        return fail(q, "'%s' follows what every element holds, for at most "
                    "%llu elements; this scene has %llu: give a smaller size",
                    kind_names[q->kind], Q_MAX_SIM_CELLS, cells);
    CvError e = sim_init(sim, &q->s);
    if (!e && (e = sim_seek(sim, (size_t)k)) != CV_OK)
        sim_fini(sim);
    if (e)
        return fail(q, "the schedule could not be followed: %s",
                    cv_strerror(e));
    return 0;
}

static int q_holds(Q *q, QueryValue *v)
{
    long r, i;
    int b = BUF_RECV, p = q->s.call.nranks;
    if (want_args(q, 3, 4) || arg_rank(q, 0, false, &r))
        return -1;
    if (q->nargs == 4 && (b = buf_parse(q->arg[3])) < 0)
        return fail(q, "'%s' is no buffer; buffers: send, recv, tmp", q->arg[3]);
    size_t n = sched_bufsize(&q->s, (int)r, (BufId)b);
    if (!n)
        return fail(q, "rank %ld's %s buffer is empty in this scene", r,
                    buf_name((BufId)b));
    Sim sim;
    if (arg_num(q, 1, "an element", 0, (long)n - 1, &i) || seek(q, 2, &sim))
        return -1;
    v->type = QV_LIST;
    v->nlist = p;
    for (int x = 0; x < p; x++)
        v->in[x] = (unsigned char)sim_has(&sim, (int)r, (BufId)b, (size_t)i, x);
    if (sim_pos(&sim, (int)r, (BufId)b, (size_t)i) == SIM_EMPTY)
        memset(v->in, 0, sizeof v->in);
    sim_fini(&sim);
    list_text(v);
    return 0;
}

/* Whether output elements [lo, lo + n) of rank r are final. */
static bool final_range(const Sim *sim, int r, size_t lo, size_t n)
{
    for (size_t j = lo; j < lo + n; j++)
        if (!sim_is_final(sim, r, j))
            return false;
    return n > 0;
}

static int q_done(Q *q, QueryValue *v)
{
    Sim sim;
    int p = q->s.call.nranks;
    long r = 0;
    bool blocks = q->kind == Q_BLOCKS;
    if (want_args(q, blocks ? 2 : 1, blocks ? 2 : 1) ||
        (blocks && arg_rank(q, 0, false, &r)) || seek(q, blocks, &sim))
        return -1;
    v->type = QV_LIST;
    v->nlist = p;
    for (int x = 0; x < p; x++) {
        CollLayout l;
        coll_layout(&q->s.call, blocks ? (int)r : x, &l);
        v->in[x] = blocks ? final_range(&sim, (int)r,
                                        blk_off(l.out_count, p, x),
                                        blk_len(l.out_count, p, x))
                          : final_range(&sim, x, 0, l.out_count);
    }
    sim_fini(&sim);
    list_text(v);
    return 0;
}

/* ---------------------------------------------------------------- model */

/* Seconds of schedule s (or of its step k when k < SIZE_MAX) on the
 * scene's machine: -T's, else the flat machine of the model's link, as
 * trace and model price it. */
static CvError query_price(Q *q, const Schedule *s, CostTerms *t,
                           double *sec, size_t k)
{
    const Machine *mp = query_machine(q, s->call.nranks);
    if (!mp)
        return CV_ERR_ARG;
    Machine m = *mp;
    if (k == SIZE_MAX)
        return model_machine_cost(s, &m, false, t, sec);
    Pricer pr;
    StepPrice sp = {0};
    CvError err = pricer_init(&pr, &m);
    if (!err)
        err = price_step(&pr, s, k, false, &sp);
    pricer_fini(&pr);
    *sec = sp.time;
    return err;
}

/* Model time (seconds) of algorithm a at count; -1 when it fails. */
static double model_time(Q *q, const AlgoInfo *a, size_t count)
{
    Schedule s;
    CollCall c = q->scene.call;
    CostTerms t;
    c.count = count;
    if (query_generate(q, a, &c, &s))
        return -1;
    double sec = 0;
    CvError e = query_price(q, &s, &t, &sec, SIZE_MAX);
    sched_fini(&s);
    return e ? -1 : sec;
}

/* The best algorithm at count (ties to the first listed), or NULL; the
 * one after it into *second (NULL: not wanted; *second NULL when there
 * is none), and how much longer it takes, a fraction of the best's time,
 * into *margin. */
static const AlgoInfo *model_best2(Q *q, size_t count,
                                   const AlgoInfo **second, double *margin)
{
    const AlgoInfo *best = NULL, *next = NULL;
    double bt = 0, nt = 0;
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        if (a->coll != q->scene.call.kind)
            continue;
        double t = model_time(q, a, count);
        if (t >= 0 && (!best || t < bt))
            next = best, nt = bt, best = a, bt = t;
        else if (t >= 0 && (!next || t < nt))
            next = a, nt = t;
    }
    if (second)
        *second = next, *margin = next && bt > 0 ? nt / bt - 1 : -1;
    return best;
}

static const AlgoInfo *model_best(Q *q, size_t count)
{
    return model_best2(q, count, NULL, NULL);
}

static int q_time(Q *q, QueryValue *v)
{
    size_t count = q->scene.call.count, k = 0;
    if (q->kind == Q_STEPTIME) {
        if (want_args(q, 1, 1) || arg_step(q, 0, &k))
            return -1;
        CostTerms t;
        double sec = 0;
        if (query_price(q, &q->s, &t, &sec, k))
            return fail(q, "the step could not be costed");
        set_number(v, sec * 1e6, 2);
        return 0;
    }
    if (want_args(q, 0, 1) || (q->nargs && arg_size(q, 0, &count)))
        return -1;
    double t = model_time(q, q->scene.algo, count);
    if (t < 0)
        return fail(q, "the %s schedule could not be costed",
                    q->scene.algo->name);
    set_number(v, t * 1e6, 2);
    return 0;
}

static void set_name(QueryValue *v, const AlgoInfo *a)
{
    v->type = QV_NAME;
    v->coll = a->coll;
    snprintf(v->name, sizeof v->name, "%s", a->name);
    snprintf(v->text, sizeof v->text, "%s", a->name);
}

static int q_best(Q *q, QueryValue *v)
{
    size_t count;
    if (want_args(q, 1, 1) || arg_size(q, 0, &count))
        return -1;
    const AlgoInfo *second;
    double margin;
    const AlgoInfo *a = model_best2(q, count, &second, &margin);
    if (!a)
        return fail(q, "no algorithm could be costed at that size");
    set_name(v, a);
    v->margin = margin;
    if (second)
        snprintf(v->second, sizeof v->second, "%s", second->name);
    return 0;
}

/* The sizes of `collviz model`'s default sweep: 8 bytes to 128M, times
 * 2, as counts (an empty first rounding left out). */
static size_t sweep_default(const CollCall *c, size_t *counts)
{
    Sweep sw = {.min = 8, .max = 128ull << 20, .factor = 2};
    size_t n = sweep_counts(&sw, c, counts);
    if (n && counts[0] == 0)
        memmove(counts, counts + 1, --n * sizeof *counts);
    return n;
}

static int q_crossover(Q *q, QueryValue *v)
{
    CliErr e;
    const AlgoInfo *want;
    if (want_args(q, 1, 1) ||
        (cli_parse_algo(q->scene.call.kind, q->arg[0], false, &want, &e) &&
         fail(q, "%s", e.msg)))
        return -1;
    size_t counts[64];
    size_t n = sweep_default(&q->scene.call, counts);
    const AlgoInfo *prev = n ? model_best(q, counts[0]) : NULL;
    for (size_t i = 1; i < n; i++) {
        const AlgoInfo *at_i = model_best(q, counts[i]), *b = at_i;
        size_t lo = counts[i - 1], hi = counts[i];
        while (b != prev && hi - lo > 1) { /* as model narrows it */
            size_t mid = lo + (hi - lo) / 2;
            const AlgoInfo *m = model_best(q, mid);
            if (m == prev)
                lo = mid;
            else
                hi = mid, b = m;
        }
        if (b != prev && b == want) {
            CollCall c = q->scene.call;
            c.count = hi;
            set_number(v, (double)coll_size_bytes(&c), 0);
            return 0;
        }
        prev = at_i;
    }
    return fail(q, "%s never becomes the best in model's sweep from 8 bytes "
                "to 128M", want->name);
}

static int q_busbw(Q *q, QueryValue *v)
{
    set_number(v, coll_busbw_factor(q->scene.call.kind, q->scene.call.nranks),
               2);
    return want_args(q, 0, 0);
}

/* -------------------------------------------------------------- parsing */

static int split(char *buf, char **w)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, " \t", &save); t;
         t = strtok_r(NULL, " \t", &save)) {
        if (n == Q_MAX_WORDS)
            return -1;
        w[n++] = t;
    }
    return n;
}

static int parse_param(Q *q, const char *w)
{
    static const char *const names[4] = {"alpha", "beta", "gamma", "link"};
    const char *eq = strchr(w, '=');
    for (int i = 0; i < 4; i++)
        if ((size_t)(eq - w) == strlen(names[i]) &&
            !strncmp(w, names[i], strlen(names[i]))) {
            q->param[i] = eq + 1;
            return 0;
        }
    return fail(q, "unknown parameter '%.*s'; parameters: alpha=, beta=, "
                "gamma=, link=", (int)(eq - w), w);
}

/* Words into kind, arguments, parameters and the scene. */
static int parse(Q *q, char **w, int n, const SceneSpec *scene,
                 const char *scene_line, char *scene_text, size_t stlen)
{
    int i = 0;
    if (i < n && !strcmp(w[i], "count"))
        q->count = true, i++;
    if (i == n)
        return fail(q, "the query is empty; it starts with one of: steps, "
                    "msgsteps, sent, recvd, senders, receivers, holds, done, "
                    "blocks, time, steptime, best, crossover, busbw");
    q->kind = Q_COUNT;
    for (int k = 0; k < Q_COUNT; k++)
        if (!strcmp(w[i], kind_names[k]))
            q->kind = (QueryKind)k;
    if (q->kind == Q_COUNT)
        return fail(q, "unknown query '%s'; queries: steps, msgsteps, sent, "
                    "recvd, senders, receivers, holds, done, blocks, time, "
                    "steptime, best, crossover, busbw", w[i]);
    for (i++; i < n && strcmp(w[i], "on"); i++) {
        if (strchr(w[i], '=')) {
            if (parse_param(q, w[i]))
                return -1;
        } else if (q->nargs < 8) {
            q->arg[q->nargs++] = w[i];
        } else {
            return fail(q, "the query has too many arguments");
        }
    }
    CliErr e;
    if (spec_parse_model(q->param[0], q->param[1], q->param[2], q->param[3],
                        &q->model, &e))
        return fail(q, "%s", e.msg);
    if (i < n) {
        size_t len = 0;
        scene_text[0] = '\0';
        for (int k = i + 1; k < n && len < stlen; k++)
            len += (size_t)snprintf(scene_text + len, stlen - len, "%s%s",
                                    k > i + 1 ? " " : "", w[k]);
        if (i + 1 == n)
            return fail(q, "'on' needs a scene after it, as in 'on allreduce "
                        "-a ring -p 4 -s 64'");
        if (scene_opts_parse_line(scene_text, &scene_limits_lesson, &q->scene,
                                  &e) ||
            trace_fits(&q->scene.call, q->scene.bytes, &e))
            return fail(q, "the scene after 'on': %s", e.msg);
        return 0;
    }
    if (!scene)
        return fail(q, "there is no @scene above this query; add one or end "
                    "the query with 'on SCENE'");
    q->scene = *scene;
    snprintf(scene_text, stlen, "%s", scene_line ? scene_line : "");
    return 0;
}

static int dispatch(Q *q, QueryValue *v)
{
    switch (q->kind) {
    case Q_STEPS: case Q_MSGSTEPS: return q_steps(q, v);
    case Q_SENT: case Q_RECVD: return q_bytes(q, v);
    case Q_SENDERS: case Q_RECEIVERS: return q_movers(q, v);
    case Q_HOLDS: return q_holds(q, v);
    case Q_DONE: case Q_BLOCKS: return q_done(q, v);
    case Q_TIME: case Q_STEPTIME: return q_time(q, v);
    case Q_BEST: return q_best(q, v);
    case Q_CROSSOVER: return q_crossover(q, v);
    case Q_BUSBW: return q_busbw(q, v);
    case Q_COUNT: break;
    }
    return fail(q, "unknown query");
}

int query_eval(const char *query, const SceneSpec *scene,
               const char *scene_line, QueryValue *out, char *why,
               size_t whylen)
{
    char buf[1024], *w[Q_MAX_WORDS];
    Q q = {.why = why, .whylen = whylen};
    memset(out, 0, sizeof *out);
    if (whylen)
        why[0] = '\0';
    if (strlen(query) >= sizeof buf)
        return fail(&q, "the query is longer than %zu characters",
                    sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", query);
    int n = split(buf, w);
    if (n < 0)
        return fail(&q, "the query has more than %d words", Q_MAX_WORDS);
    if (parse(&q, w, n, scene, scene_line, out->scene, sizeof out->scene) ||
        build(&q, q.scene.call.count))
        return -1;
    out->kind = q.kind;
    int rc = dispatch(&q, out);
    sched_fini(&q.s);
    if (q.over) {
        memset(out, 0, sizeof *out);
        return fail(&q, "'%s' needs more work than a checkpoint may take "
                    "(more than %llu transfers built or followed, about a "
                    "second): ask it over fewer ranks or a smaller size",
                    kind_names[q.kind], Q_MAX_WORK);
    }
    if (!rc && q.count) {
        if (out->type != QV_LIST)
            return fail(&q, "'count' counts the ranks or blocks of a list; "
                        "'%s' gives no list", kind_names[q.kind]);
        int c = 0;
        for (int i = 0; i < out->nlist; i++)
            c += out->in[i];
        set_number(out, c, 0);
    }
    return rc;
}

/* ---------------------------------------------------------------- goals */

int query_goal(const char *goal, const SceneSpec *scene,
               const char *scene_line, QueryGoal *out, char *why,
               size_t whylen)
{
    static const char *const ops[] = {"<=", "<", ">=", ">", "=="};
    char buf[512];
    memset(out, 0, sizeof *out);
    if (strlen(goal) >= sizeof buf) {
        snprintf(why, whylen, "the goal is longer than %zu characters",
                 sizeof buf - 1);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", goal);
    /* the last two words: the comparison and the number */
    char *num = strrchr(buf, ' ');
    if (num)
        *num++ = '\0';
    char *op = num ? strrchr(buf, ' ') : NULL;
    if (op)
        *op++ = '\0';
    int k = -1;
    for (int i = 0; op && i < 5; i++)
        if (!strcmp(op, ops[i]))
            k = i;
    char *end = NULL;
    double target = num ? strtod(num, &end) : 0;
    if (k < 0 || !end || *end || end == num || !isfinite(target)) {
        snprintf(why, whylen, "a goal is a query, a comparison (<=, <, >=, "
                 ">, ==) and a number, as in 'steps <= 4'; '%.*s' is not one",
                 utf8_prefix(goal, 80), goal);
        return -1;
    }
    QueryValue v;
    if (query_eval(buf, scene, scene_line, &v, why, whylen))
        return -1;
    if (v.type != QV_NUMBER) {
        snprintf(why, whylen, "a goal compares a number; '%.*s' gives %s",
                 utf8_prefix(buf, 80), buf,
                 v.type == QV_NAME ? "a name" : "a list (count it)");
        return -1;
    }
    double x = v.num, eps = 1e-9 * (fabs(target) > 1 ? fabs(target) : 1);
    out->value = x, out->target = target;
    out->met = k == 0 ? x <= target + eps : k == 1 ? x < target - eps
               : k == 2 ? x >= target - eps : k == 3 ? x > target + eps
               : fabs(x - target) <= eps;
    snprintf(out->query, sizeof out->query, "%s", buf);
    snprintf(out->op, sizeof out->op, "%s", ops[k]);
    snprintf(out->text, sizeof out->text, "%s", v.text);
    return 0;
}
