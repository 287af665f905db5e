/* cmd_trace.c - `collviz trace`: one schedule step by step, with what every
 * buffer cell holds after each step (from the symbolic executor), as text
 * or JSON (docs/trace-json.md). Output streams: every step is written as
 * it is executed; nothing is kept but the schedule and the symbolic state. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/scene_opts.h"
#include "core/model.h"
#include "core/sim.h"

/* The symbolic state is tracked when it needs at most this many bytes. */
#define TRACE_SIM_LIMIT (1ull << 30)
/* Full state after every step when p and the cells are at most these. */
#define TRACE_FULL_RANKS 16
#define TRACE_FULL_CELLS 4096
/* Cell runs shown per transfer in text (JSON shows all). */
#define TRACE_RUNS_PER_LINE 16

/* The scene options (scene_opts.h) first, then trace's own. */
enum {
    T_JSON = SCENE_OPT_COUNT, T_FULL, T_ALPHA, T_BETA, T_GAMMA, T_LINK,
    T_HELP, T_NOPTS
};

static const CliOpt trace_opts[T_NOPTS] = {
    SCENE_OPTS("number of ranks, 1 to 1024",
               "size in bytes, K/M/G suffixes are powers of 1024 (nccl-tests "
               "meaning)"),
    [T_JSON] = {0, "json", NULL, "write JSON (docs/trace-json.md) instead of text"},
    [T_FULL] = {0, "full", NULL, "every rank's cells after every step, however many"},
    [T_ALPHA] = CLI_OPT_ALPHA,
    [T_BETA] = CLI_OPT_BETA,
    [T_GAMMA] = CLI_OPT_GAMMA,
    [T_LINK] = CLI_OPT_LINK,
    [T_HELP] = CLI_OPT_HELP,
};

static const CliCmd trace_cmd = {
    .name = "trace",
    .usage = "trace COLL [-a ALGO] -p RANKS -s SIZE [-d TYPE] [-o OP] [-r ROOT]\n"
             "               [--in-place] [--json] [--full] [--alpha T] [--beta GB/s]\n"
             "               [--gamma GB/s] [--link p2p|shared]",
    .about = "Generate the schedule of ALGO for COLL, check it, execute it symbolically\n"
             "and print each step's transfers, what the written cells hold after the\n"
             "step, and totals: steps, bytes per rank, model time, the lower bound.\n"
             "A cell is shown as {RANKS}@POS: the op over the inputs of RANKS at\n"
             "origin position POS; a run [a..b]{RANKS}@P..Q is cells a to b holding\n"
             "positions P to Q; '-' is a cell holding no data. Every rank's cells are\n"
             "shown before the first and after the last step, and after every step\n"
             "when p <= 16 and all buffers hold at most 4096 cells (or with --full).\n"
             "SIZE means what nccl-tests means: allreduce, broadcast, reduce: one\n"
             "rank's buffer; allgather, gather: all gathered bytes; reducescatter,\n"
             "scatter: the bytes of all p blocks; alltoall: what each rank sends.",
    .opts = trace_opts,
    .nopts = T_NOPTS,
    .max_pos = 1,
};

/* ----------------------------------------------------------------- sink */

/* Where the trace is written: a buffer handed to a FILE in large writes.
 * The loops that run per transfer and per cell run write a few bytes at a
 * time; one stdio call each would cost more than the rest of the trace. */
typedef struct {
    FILE *f;    /* destination */
    char *buf;  /* pending bytes */
    size_t n;   /* bytes pending */
    size_t cap; /* bytes buf holds */
    bool err;   /* a write failed */
} Sink;

static void sink_flush(Sink *s)
{
    if (s->n && fwrite(s->buf, 1, s->n, s->f) != s->n)
        s->err = true;
    s->n = 0;
}

static void sink_mem(Sink *s, const char *p, size_t n)
{
    if (s->cap - s->n < n)
        sink_flush(s);
    if (n > s->cap) {
        s->err |= fwrite(p, 1, n, s->f) != n;
        return;
    }
    memcpy(s->buf + s->n, p, n);
    s->n += n;
}

static void sink_str(Sink *s, const char *str) { sink_mem(s, str, strlen(str)); }

static void sink_c(Sink *s, int c)
{
    if (s->n == s->cap)
        sink_flush(s);
    s->buf[s->n++] = (char)c;
}

static void sink_printf(Sink *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void sink_printf(Sink *s, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (k < 0) {
        s->err = true;
    } else if ((size_t)k < sizeof line) {
        sink_mem(s, line, (size_t)k);
    } else { /* a long line: straight to the FILE, after what is pending */
        sink_flush(s);
        va_start(ap, fmt);
        s->err |= vfprintf(s->f, fmt, ap) < 0;
        va_end(ap);
    }
}

/* ---------------------------------------------------------------- state */

/* Everything one trace needs. */
typedef struct {
    CollCall call;           /* the call traced */
    const AlgoInfo *algo;    /* its algorithm */
    CliModel model;          /* model parameters */
    bool json;               /* JSON instead of text */
    bool full;               /* every rank's cells after every step */
    bool cells;              /* the symbolic state is tracked */
    double sim_bytes;        /* bytes the symbolic state needs */
    Schedule s;              /* the generated schedule */
    SchedCheck chk;          /* what the validator found */
    Sim sim;                 /* the symbolic state (when cells) */
    Sink *out;               /* where the trace goes (stdout) */
} Trace;

/* A run of consecutive cells holding one rank set at consecutive origin
 * positions (or all empty). */
typedef struct {
    size_t off;          /* first cell */
    size_t n;            /* cells */
    int32_t pos;         /* origin position of the first cell, or SIM_EMPTY,
                            SIM_MIXED */
    const uint64_t *set; /* the rank set all cells share */
} Run;

/* The run starting at cell i of rank r's buffer b, ending before `end`. */
static Run next_run(const Sim *sim, int r, BufId b, size_t i, size_t end)
{
    Run run = {i, 1, sim_pos(sim, r, b, i), sim_set(sim, r, b, i)};
    size_t bytes = sim->words * sizeof(uint64_t);
    while (i + run.n < end) {
        int32_t p = sim_pos(sim, r, b, i + run.n);
        int32_t want = run.pos >= 0 ? run.pos + (int32_t)run.n : run.pos;
        if (p != want || memcmp(sim_set(sim, r, b, i + run.n), run.set, bytes))
            break;
        run.n++;
    }
    return run;
}

/* The next range [*lo, *hi] of ranks in a set at or after `from`. */
static bool set_range(const uint64_t *set, size_t words, size_t from,
                      int *lo, int *hi)
{
    size_t nbits = words * 64, i = from, j;
    while (i < nbits && !(set[i / 64] >> (i % 64)))
        i = (i / 64 + 1) * 64;
    if (i >= nbits)
        return false;
    i += (size_t)__builtin_ctzll(set[i / 64] >> (i % 64));
    for (j = i; j < nbits; j = (j / 64 + 1) * 64) {
        uint64_t clear = ~set[j / 64] >> (j % 64);
        if (clear) {
            j += (size_t)__builtin_ctzll(clear);
            break;
        }
    }
    *lo = (int)i;
    *hi = (int)(j < nbits ? j : nbits) - 1;
    return true;
}

/* Writers for the loops that run per transfer and per cell run: printf's
 * format parsing would cost more than the rest of the trace. */
static void put_u(Sink *f, size_t v)
{
    char b[24];
    size_t i = sizeof b;
    do {
        b[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    sink_mem(f, b + i, sizeof b - i);
}

static void put_i(Sink *f, long v)
{
    if (v < 0)
        sink_c(f, '-');
    put_u(f, v < 0 ? (size_t)(-(v + 1)) + 1 : (size_t)v);
}

/* "lo" + sep + "hi", or just "lo" when they are equal and !always. */
static void put_pair(Sink *f, size_t lo, size_t hi, const char *sep,
                     bool always)
{
    put_u(f, lo);
    if (lo != hi || always) {
        sink_str(f, sep);
        put_u(f, hi);
    }
}

/* How a rank set is written: text {0-3,5} or JSON [[0,3],[5,5]]. */
typedef struct {
    const char *open;       /* before the first range */
    const char *item_open;  /* before each range */
    const char *sep;        /* between a range's ends */
    const char *item_close; /* after each range */
    bool always_pair;       /* write both ends of a one-rank range */
    const char *close;      /* after the last range */
} SetStyle;

static const SetStyle set_text = {"{", "", "-", "", false, "}"};
static const SetStyle set_json = {"[", "[", ",", "]", true, "]"};

static void put_set(Sink *f, const SetStyle *st, const uint64_t *set,
                    size_t words)
{
    int lo, hi, n = 0;
    sink_str(f, st->open);
    for (size_t from = 0; set_range(set, words, from, &lo, &hi); from = (size_t)hi + 1) {
        if (n++)
            sink_c(f, ',');
        sink_str(f, st->item_open);
        put_pair(f, (size_t)lo, (size_t)hi, st->sep, st->always_pair);
        sink_str(f, st->item_close);
    }
    sink_str(f, st->close);
}

/* ------------------------------------------------------------- options */

static double total_cells(const Schedule *s)
{
    double n = 0;
    for (int r = 0; r < s->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++)
            n += (double)sched_bufsize(s, r, (BufId)b);
    return n;
}

/* Bytes the symbolic executor needs for s (see sim.h: recv and tmp cells
 * and a step's staged sources; send cells cost nothing). */
static double sim_need(const Schedule *s)
{
    double words = (double)(((size_t)s->call.nranks + 63) / 64);
    double cells = 0, staged = 0;
    for (int r = 0; r < s->call.nranks; r++)
        cells += (double)sched_bufsize(s, r, BUF_RECV) +
                 (double)sched_bufsize(s, r, BUF_TMP);
    for (size_t k = 0; k < s->nsteps; k++) {
        double n = 0;
        for (size_t i = 0; i < s->steps[k].n; i++)
            n += (double)s->xfers[s->steps[k].first + i].count;
        staged = n > staged ? n : staged;
    }
    return (cells + staged) * (4 + 8 * words) + 8 * words * s->call.nranks;
}

/* Whether some rank's buffer is too long for the executor's 32-bit
 * positions. */
static bool sim_too_long(const Schedule *s)
{
    for (int r = 0; r < s->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++)
            if (sched_bufsize(s, r, (BufId)b) > INT32_MAX)
                return true;
    return false;
}

/* Check the whole command line; fills t->call, algo, model. */
static int trace_options(Trace *t, const CliArgs *a, CliErr *e)
{
    SceneSpec sc;
    if (scene_opts_parse(a, &scene_limits_trace, &sc, e))
        return -1;
    t->call = sc.call;
    t->algo = sc.algo;
    if (cli_parse_model(a->val[T_ALPHA], a->val[T_BETA], a->val[T_GAMMA],
                        a->val[T_LINK], &t->model, e))
        return -1;
    t->json = cli_has(a, T_JSON);
    t->full = cli_has(a, T_FULL);
    return 0;
}

/* Validate the generated schedule. One that reads or writes outside its
 * buffers, writes a send buffer or writes one cell twice in a step cannot
 * be traced; one that leaves output unwritten can (the check at the end
 * says so). Returns false after one sentence on stderr. */
static bool trace_validate(Trace *t)
{
    CvError err = sched_validate(&t->s, &t->chk, NULL);
    if (!err || err == CV_ERR_MISSING)
        return true;
    size_t k = t->chk.step;
    fprintf(stderr, "collviz: the %s schedule for %s on %d ranks is invalid: %s",
            t->algo->name, coll_name(t->call.kind), t->call.nranks,
            cv_strerror(err));
    if (k < t->s.nsteps)
        fprintf(stderr, " (step %zu, transfer %zu)", k + 1,
                t->chk.xfer - t->s.steps[k].first + 1);
    fputc('\n', stderr);
    return false;
}

/* Generate and validate the schedule and set up the symbolic state.
 * Returns the exit status on failure (after one sentence on stderr). */
static int trace_prepare(Trace *t)
{
    CvError err = algo_generate(t->algo, &t->call, &t->s);
    if (err) {
        fprintf(stderr, "collviz: the %s generator failed for %s on %d ranks: %s\n",
                t->algo->name, coll_name(t->call.kind), t->call.nranks,
                cv_strerror(err));
        return CLI_EXIT_FAIL;
    }
    if (!trace_validate(t))
        return CLI_EXIT_FAIL;
    t->sim_bytes = sim_need(&t->s);
    t->cells = t->sim_bytes <= (double)TRACE_SIM_LIMIT && !sim_too_long(&t->s);
    if (t->cells)
        err = sim_init(&t->sim, &t->s);
    if (err) {
        fprintf(stderr, "collviz: cannot trace %s: %s\n", t->algo->name,
                cv_strerror(err));
        return CLI_EXIT_FAIL;
    }
    t->full = t->cells && (t->full || (t->call.nranks <= TRACE_FULL_RANKS &&
                                       total_cells(&t->s) <= TRACE_FULL_CELLS));
    return CLI_EXIT_OK;
}

/* -------------------------------------------------------------- writers */

/* Totals of the whole schedule, for both writers. */
typedef struct {
    SchedTotals st;     /* steps, transfers, bytes */
    size_t *sent;       /* [rank] bytes sent */
    size_t *recvd;      /* [rank] bytes received */
    CostTerms cost;     /* model cost of the schedule under the params */
    CostTerms closed;   /* the algorithm's closed form */
    CostTerms bound;    /* the lower bound */
    CvError sim_err;    /* first error of the symbolic run */
    CvError check;      /* final state against the definition */
    size_t nwrong;      /* wrong output elements */
    int bad_rank;       /* first wrong rank */
    size_t bad_elem;    /* its first wrong element */
} Totals;

/* What a writer does at each point of the trace. */
typedef struct {
    void (*begin)(Trace *t);           /* the call, buffers, model, initial
                                          cells */
    void (*step)(Trace *t, size_t k);  /* step k, after it was executed */
    void (*end)(Trace *t, const Totals *to); /* final cells, totals, check */
} TraceWriter;

static CvError totals_compute(const Trace *t, Totals *to)
{
    memset(to, 0, sizeof *to);
    size_t p = (size_t)t->call.nranks;
    to->sent = calloc(2 * p, sizeof *to->sent);
    if (!to->sent)
        return CV_ERR_NOMEM;
    to->recvd = to->sent + p;
    CvError e = sched_totals(&t->s, &to->st, to->sent, to->recvd);
    if (!e)
        e = model_schedule_cost(&t->s, t->model.link, &t->model.m, &to->cost);
    t->algo->cost(&t->call, &to->closed);
    model_lower_bound(&t->call, &to->bound);
    if (t->cells) {
        to->sim_err = t->sim.err;
        to->check = sim_check(&t->sim, &to->bad_rank, &to->bad_elem, &to->nwrong);
    }
    return e;
}

static double time_of(const Trace *t, const CostTerms *c)
{
    return cost_time(c, &t->model.m);
}

/* ----------------------------------------------------------------- text */

static const char *time_text(double sec, char *buf, size_t n)
{
    cli_time_text(sec, buf, n);
    return buf;
}

/* "4" when every rank's buffer b has the same size, else "0..16". */
static void text_bufsizes(const Trace *t, BufId b)
{
    size_t lo = SIZE_MAX, hi = 0;
    for (int r = 0; r < t->call.nranks; r++) {
        size_t n = sched_bufsize(&t->s, r, b);
        lo = n < lo ? n : lo;
        hi = n > hi ? n : hi;
    }
    if (lo == hi)
        sink_printf(t->out, "%s %zu", buf_name(b), lo);
    else
        sink_printf(t->out, "%s %zu..%zu", buf_name(b), lo, hi);
}

static void text_state(Trace *t, const char *label);

static void text_begin(Trace *t)
{
    const CollCall *c = &t->call;
    char model[256];
    cli_model_text(&t->model, model, sizeof model);
    sink_printf(t->out, "# collviz trace %s, algorithm %s, %d rank%s, size %zu bytes = "
                "count %zu %s", coll_name(c->kind), t->algo->name, c->nranks,
                c->nranks == 1 ? "" : "s", coll_size_bytes(c), c->count,
                dtype_name(c->dtype));
    if (coll_is_reducing(c->kind))
        sink_printf(t->out, ", op %s", redop_name(c->op));
    if (coll_is_rooted(c->kind))
        sink_printf(t->out, ", root %d", c->root);
    sink_printf(t->out, ", %s\n# buffers per rank, elements: ",
                c->in_place ? "in place" : "out of place");
    for (int b = 0; b < BUF_COUNT; b++) {
        sink_str(t->out, b ? ", " : "");
        text_bufsizes(t, (BufId)b);
    }
    sink_printf(t->out, "\n# model: %s\n", model);
    if (!t->cells)
        sink_printf(t->out, "# cells: not tracked: the symbolic state would need %.3g GiB "
                    "(the limit is %.3g GiB); transfers and totals only\n",
                    t->sim_bytes / (1 << 30), (double)TRACE_SIM_LIMIT / (1 << 30));
    else if (coll_is_reducing(c->kind))
        sink_printf(t->out, "# cells: {RANKS}@POS = the %s of the inputs of RANKS at "
                    "position POS; [a..b] cells a to b, positions counting up; - empty\n",
                    redop_name(c->op));
    else
        sink_printf(t->out, "# cells: {RANK}@POS = the input of RANK at position POS; "
                    "[a..b] cells a to b, positions counting up; - empty\n");
    if (t->cells)
        text_state(t, "state at the start");
}

/* "[a..b]{S}@p..q" or "[a]{S}@p" or "[a..b]-"; the index is left out when
 * `bare` (the run is the whole range the reader already knows). */
static void text_run(Sink *f, const Sim *sim, const Run *run, bool bare)
{
    if (!bare) {
        sink_c(f, '[');
        put_pair(f, run->off, run->off + run->n - 1, "..", false);
        sink_c(f, ']');
    }
    if (run->pos == SIM_EMPTY) {
        sink_c(f, '-');
        return;
    }
    put_set(f, &set_text, run->set, sim->words);
    if (run->pos == SIM_MIXED) {
        sink_str(f, "@?");
    } else {
        sink_c(f, '@');
        put_pair(f, (size_t)run->pos, (size_t)run->pos + run->n - 1, "..", false);
    }
}

static void text_state(Trace *t, const char *label)
{
    sink_printf(t->out, "%s:\n", label);
    for (int r = 0; r < t->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++) {
            size_t n = sched_bufsize(&t->s, r, (BufId)b);
            if (!n)
                continue;
            sink_printf(t->out, "  r%d %s:", r, buf_name((BufId)b));
            for (size_t i = 0; i < n;) {
                Run run = next_run(&t->sim, r, (BufId)b, i, n);
                sink_c(t->out, ' ');
                text_run(t->out, &t->sim, &run, false);
                i += run.n;
            }
            sink_c(t->out, '\n');
        }
}

/* "r2 recv[3]" or "r2 recv[3..5]" */
static void text_range(Sink *f, int r, BufId b, size_t off, size_t n)
{
    sink_c(f, 'r');
    put_u(f, (size_t)r);
    sink_c(f, ' ');
    sink_str(f, buf_name(b));
    sink_c(f, '[');
    put_pair(f, off, off + n - 1, "..", false);
    sink_c(f, ']');
}

/* What the destination cells of x hold after the step, at most
 * TRACE_RUNS_PER_LINE runs, then how many more there are. */
static void text_written(Trace *t, const Transfer *x)
{
    size_t end = x->dst_off + x->count, shown = 0, more = 0;
    sink_str(t->out, " =>");
    for (size_t i = x->dst_off; i < end;) {
        Run run = next_run(&t->sim, x->dst, (BufId)x->dst_buf, i, end);
        if (shown++ < TRACE_RUNS_PER_LINE) {
            sink_c(t->out, ' ');
            text_run(t->out, &t->sim, &run, run.n == x->count);
        } else {
            more++;
        }
        i += run.n;
    }
    if (more)
        sink_printf(t->out, " ... and %zu more run%s (--json lists all)", more,
                    more == 1 ? "" : "s");
}

static void text_step(Trace *t, size_t k)
{
    const Step *st = &t->s.steps[k];
    char tm[32];
    double sec = model_step_time(&t->s, k, t->model.link, &t->model.m);
    sink_printf(t->out, "step %zu/%zu %s: %zu transfer%s, %s\n", k + 1, t->s.nsteps,
                st->phase ? st->phase : "-", st->n, st->n == 1 ? "" : "s",
                time_text(sec, tm, sizeof tm));
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *x = &t->s.xfers[st->first + i];
        sink_str(t->out, "  ");
        text_range(t->out, x->src, (BufId)x->src_buf, x->src_off, x->count);
        sink_str(t->out, " -> ");
        text_range(t->out, x->dst, (BufId)x->dst_buf, x->dst_off, x->count);
        sink_c(t->out, ' ');
        sink_str(t->out, xfer_op_name((XferOp)x->op));
        if (t->cells)
            text_written(t, x);
        sink_c(t->out, '\n');
    }
    if (t->cells && t->sim.err && t->sim.err_step == k)
        sink_printf(t->out, "# error in step %zu, transfer %zu: %s\n", k + 1,
                    t->sim.err_xfer - st->first + 1, cv_strerror(t->sim.err));
    if (t->full && k + 1 < t->s.nsteps) {
        char label[48];
        snprintf(label, sizeof label, "state after step %zu", k + 1);
        text_state(t, label);
    }
}

static void text_terms(Sink *f, const char *what, const CostTerms *c,
                       double sec)
{
    char tm[32];
    sink_printf(f, "# %s: %g a + %g b + %g g = %s\n", what, c->a, c->b, c->g,
                time_text(sec, tm, sizeof tm));
}

static void text_check(Trace *t, const Totals *to)
{
    const char *kind = coll_name(t->call.kind);
    if (!t->cells)
        sink_printf(t->out, "# check: the final state was not computed (cells not tracked)\n");
    else if (to->sim_err)
        sink_printf(t->out, "# check: FAILED: %s\n", cv_strerror(to->sim_err));
    else if (to->check)
        sink_printf(t->out, "# check: FAILED: %zu output elements differ from %s, the "
                    "first at rank %d element %zu\n", to->nwrong, kind, to->bad_rank,
                    to->bad_elem);
    else
        sink_printf(t->out, "# check: every rank's output matches the definition of %s\n",
                    kind);
}

static void text_end(Trace *t, const Totals *to)
{
    if (t->cells)
        text_state(t, "state at the end");
    sink_printf(t->out, "# totals: %zu steps, %zu transfers, %zu bytes between ranks, "
                "%zu transfers read cells their step overwrites (staged)\n",
                to->st.steps, to->st.xfers, to->st.total_bytes, t->chk.overlaps);
    sink_printf(t->out, "# rank  bytes sent  bytes received\n");
    for (int r = 0; r < t->call.nranks; r++)
        sink_printf(t->out, "r%d %zu %zu\n", r, to->sent[r], to->recvd[r]);
    sink_printf(t->out, "# most by one rank: sent %zu, received %zu, reduced %zu bytes\n",
                to->st.max_sent, to->st.max_recvd, to->st.max_reduced);
    text_terms(t->out, "model time (schedule, a = alpha, b = beta bytes, g = gamma bytes)",
               &to->cost, time_of(t, &to->cost));
    text_terms(t->out, "closed form", &to->closed, time_of(t, &to->closed));
    sink_printf(t->out, "#   %s\n", t->algo->formula);
    text_terms(t->out, "lower bound", &to->bound, time_of(t, &to->bound));
    text_check(t, to);
}

/* ----------------------------------------------------------------- JSON */

/* A JSON string: the quotes and the escapes it needs. */
static void json_str(Sink *f, const char *s)
{
    sink_c(f, '"');
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            sink_printf(f, "\\%c", ch);
        else if (ch < 0x20)
            sink_printf(f, "\\u%04x", ch);
        else
            sink_c(f, ch);
    }
    sink_c(f, '"');
}

static void json_state(Trace *t, const char *label);

static void json_begin(Trace *t)
{
    const CollCall *c = &t->call;
    Sink *f = t->out;
    sink_printf(f, "{\"format\":\"collviz-trace\",\"version\":1,\n\"collective\":");
    json_str(f, coll_name(c->kind));
    sink_printf(f, ",\"algorithm\":");
    json_str(f, t->algo->name);
    sink_printf(f, ",\"ranks\":%d,\"count\":%zu,\"bytes\":%zu,\"dtype\":\"%s\","
                "\"dtype_size\":%zu,\"op\":\"%s\",\"root\":%d,\"in_place\":%s,\n",
                c->nranks, c->count, coll_size_bytes(c), dtype_name(c->dtype),
                dtype_size(c->dtype), redop_name(c->op), c->root,
                c->in_place ? "true" : "false");
    sink_printf(f, "\"model\":{\"link\":\"%s\",\"alpha\":%.15g,\"beta\":%.15g,"
                "\"gamma\":%.15g},\n\"buffers\":{", link_name(t->model.link),
                t->model.m.alpha, t->model.m.beta, t->model.m.gamma);
    for (int b = 0; b < BUF_COUNT; b++) {
        sink_printf(f, "%s\"%s\":[", b ? "," : "", buf_name((BufId)b));
        for (int r = 0; r < c->nranks; r++)
            sink_printf(f, "%s%zu", r ? "," : "", sched_bufsize(&t->s, r, (BufId)b));
        sink_c(f, ']');
    }
    sink_printf(f, "},\n\"layout\":[");
    for (int r = 0; r < c->nranks; r++) {
        CollLayout l;
        coll_layout(c, r, &l);
        sink_printf(f, "%s\n{\"rank\":%d,\"in_buf\":\"%s\",\"in_off\":%zu,\"in_count\":%zu,"
                    "\"out_buf\":\"%s\",\"out_off\":%zu,\"out_count\":%zu}", r ? "," : "",
                    r, buf_name(l.in_buf), l.in_off, l.in_count, buf_name(l.out_buf),
                    l.out_off, l.out_count);
    }
    sink_printf(f, "],\n\"cells\":%s,\"sim_bytes\":%.0f", t->cells ? "true" : "false",
                t->sim_bytes);
    if (t->cells)
        json_state(t, "initial");
    sink_printf(f, ",\n\"steps\":[");
}

/* ,"name":value */
static void json_u(Sink *f, const char *name, size_t v)
{
    sink_str(f, name);
    put_u(f, v);
}

static void json_run(Sink *f, const Sim *sim, int r, BufId b, const Run *run)
{
    json_u(f, "{\"rank\":", (size_t)r);
    sink_str(f, ",\"buf\":\"");
    sink_str(f, buf_name(b));
    json_u(f, "\",\"off\":", run->off);
    json_u(f, ",\"count\":", run->n);
    sink_str(f, ",\"pos\":");
    put_i(f, run->pos);
    sink_str(f, ",\"ranks\":");
    if (run->pos == SIM_EMPTY)
        sink_str(f, "[]");
    else
        put_set(f, &set_json, run->set, sim->words);
    sink_c(f, '}');
}

/* The runs of cells [lo, hi) of rank r's buffer b, comma separated. */
static void json_runs(Trace *t, int r, BufId b, size_t lo, size_t hi,
                      bool *first, bool lines)
{
    for (size_t i = lo; i < hi;) {
        Run run = next_run(&t->sim, r, b, i, hi);
        sink_str(t->out, *first ? "" : ",");
        sink_str(t->out, lines ? "\n" : "");
        *first = false;
        json_run(t->out, &t->sim, r, b, &run);
        i += run.n;
    }
}

static void json_state(Trace *t, const char *label)
{
    bool first = true;
    sink_printf(t->out, ",\n\"%s\":[", label);
    for (int r = 0; r < t->call.nranks; r++)
        for (int b = 0; b < BUF_COUNT; b++)
            json_runs(t, r, (BufId)b, 0, sched_bufsize(&t->s, r, (BufId)b), &first,
                      true);
    sink_c(t->out, ']');
}

/* What each transfer's destination cells hold after the step. */
static void json_written(Trace *t, const Step *st)
{
    sink_str(t->out, ",\"written\":[");
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *x = &t->s.xfers[st->first + i];
        bool first = true;
        sink_str(t->out, i ? ",\n[" : "\n[");
        json_runs(t, x->dst, (BufId)x->dst_buf, x->dst_off,
                  x->dst_off + x->count, &first, false);
        sink_c(t->out, ']');
    }
    sink_c(t->out, ']');
}

static void json_step(Trace *t, size_t k)
{
    const Step *st = &t->s.steps[k];
    Sink *f = t->out;
    sink_printf(f, "%s\n{\"step\":%zu,\"phase\":", k ? "," : "", k);
    json_str(f, st->phase ? st->phase : "");
    sink_printf(f, ",\"time\":%.15g,\"transfers\":[",
                model_step_time(&t->s, k, t->model.link, &t->model.m));
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *x = &t->s.xfers[st->first + i];
        json_u(f, i ? ",\n{\"src\":" : "\n{\"src\":", (size_t)x->src);
        sink_str(f, ",\"src_buf\":\"");
        sink_str(f, buf_name((BufId)x->src_buf));
        json_u(f, "\",\"src_off\":", x->src_off);
        json_u(f, ",\"dst\":", (size_t)x->dst);
        sink_str(f, ",\"dst_buf\":\"");
        sink_str(f, buf_name((BufId)x->dst_buf));
        json_u(f, "\",\"dst_off\":", x->dst_off);
        json_u(f, ",\"count\":", x->count);
        sink_str(f, ",\"op\":\"");
        sink_str(f, xfer_op_name((XferOp)x->op));
        sink_str(f, "\"}");
    }
    sink_c(f, ']');
    if (t->cells)
        json_written(t, st);
    if (t->full && k + 1 < t->s.nsteps)
        json_state(t, "state");
    sink_c(f, '}');
}

static void json_terms(Sink *f, const char *name, const CostTerms *c, double sec)
{
    sink_printf(f, ",\"%s\":{\"a\":%.15g,\"b\":%.15g,\"g\":%.15g,\"steps\":%.15g,"
                "\"time\":%.15g}", name, c->a, c->b, c->g, c->steps, sec);
}

static void json_end(Trace *t, const Totals *to)
{
    Sink *f = t->out;
    sink_c(f, ']');
    if (t->cells)
        json_state(t, "final");
    sink_printf(f, ",\n\"totals\":{\"steps\":%zu,\"transfers\":%zu,\"total_bytes\":%zu,"
                "\"max_sent\":%zu,\"max_recvd\":%zu,\"max_reduced\":%zu,\"sent\":[",
                to->st.steps, to->st.xfers, to->st.total_bytes, to->st.max_sent,
                to->st.max_recvd, to->st.max_reduced);
    for (int r = 0; r < t->call.nranks; r++)
        sink_printf(f, "%s%zu", r ? "," : "", to->sent[r]);
    sink_printf(f, "],\"recvd\":[");
    for (int r = 0; r < t->call.nranks; r++)
        sink_printf(f, "%s%zu", r ? "," : "", to->recvd[r]);
    sink_c(f, ']');
    json_terms(f, "model", &to->cost, time_of(t, &to->cost));
    json_terms(f, "closed_form", &to->closed, time_of(t, &to->closed));
    json_terms(f, "lower_bound", &to->bound, time_of(t, &to->bound));
    sink_printf(f, "},\n\"check\":{\"staged\":%zu,\"sim_error\":", t->chk.overlaps);
    if (t->cells && to->sim_err)
        json_str(f, cv_strerror(to->sim_err));
    else
        sink_str(f, "null");
    if (t->cells)
        sink_printf(f, ",\"correct\":%s,\"wrong\":%zu}}\n",
                    !to->sim_err && !to->check ? "true" : "false", to->nwrong);
    else
        sink_printf(f, ",\"correct\":null,\"wrong\":null}}\n");
}

/* --------------------------------------------------------------- driver */

static const TraceWriter text_writer = {
    .begin = text_begin, .step = text_step, .end = text_end,
};
static const TraceWriter json_writer = {
    .begin = json_begin, .step = json_step, .end = json_end,
};

/* One sentence on stderr when the trace found the schedule wrong. */
static int trace_verdict(const Trace *t, const Totals *to)
{
    if (!t->cells || (!to->sim_err && !to->check))
        return CLI_EXIT_OK;
    if (to->sim_err)
        fprintf(stderr, "collviz: the %s schedule for %s failed in step %zu: %s\n",
                t->algo->name, coll_name(t->call.kind), t->sim.err_step + 1,
                cv_strerror(to->sim_err));
    else
        fprintf(stderr, "collviz: the %s schedule does not compute %s: %zu output "
                "elements are wrong, the first at rank %d element %zu\n",
                t->algo->name, coll_name(t->call.kind), to->nwrong, to->bad_rank,
                to->bad_elem);
    return CLI_EXIT_FAIL;
}

static int trace_run(Trace *t, const TraceWriter *w)
{
    Sink sink = {.f = stdout, .cap = 1 << 16};
    sink.buf = malloc(sink.cap);
    if (!sink.buf) {
        fprintf(stderr, "collviz: %s\n", cv_strerror(CV_ERR_NOMEM));
        return CLI_EXIT_FAIL;
    }
    t->out = &sink;
    w->begin(t);
    for (size_t k = 0; k < t->s.nsteps; k++) {
        if (t->cells)
            sim_step(&t->sim);
        w->step(t, k);
    }
    Totals to;
    CvError e = totals_compute(t, &to);
    if (!e)
        w->end(t, &to);
    int rc = e ? CLI_EXIT_FAIL : trace_verdict(t, &to);
    free(to.sent);
    sink_flush(&sink);
    free(sink.buf);
    if (e) {
        fprintf(stderr, "collviz: the trace could not be finished: %s\n",
                cv_strerror(e));
        rc = CLI_EXIT_FAIL;
    } else if (sink.err || ferror(stdout)) {
        rc = CLI_EXIT_FAIL; /* main says why the output failed */
    }
    return rc;
}

int cmd_trace(int argc, char **argv)
{
    Trace t = {0};
    CliArgs a;
    CliErr e;
    int rc = cli_start(&trace_cmd, T_HELP, argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (trace_options(&t, &a, &e))
        return cli_error(&e);
    rc = trace_prepare(&t);
    if (rc == CLI_EXIT_OK)
        rc = trace_run(&t, t.json ? &json_writer : &text_writer);
    if (t.cells)
        sim_fini(&t.sim);
    sched_fini(&t.s);
    return rc;
}
