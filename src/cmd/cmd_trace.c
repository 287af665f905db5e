/* cmd_trace.c - `collviz trace`: one schedule step by step, with what every
 * buffer cell holds after each step (from the symbolic executor), as text
 * or JSON (docs/trace-json.md). Output streams: every step is written as
 * it is executed; nothing is kept but the schedule and the symbolic state.
 * This file reads the command line, prepares the schedule and its symbolic
 * state and drives a rendering: trace_text.c or trace_json.c (trace.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "algos/algo.h"
#include "cli/cli.h"
#include "cmd/cmd.h"
#include "scene/spec.h"
#include "scene/scene_opts.h"
#include "scene/trace.h"
#include "core/model.h"
#include "core/msccl.h"
#include "core/sim.h"

/* Full state after every step when p and the cells are at most these. */
#define TRACE_FULL_RANKS 16
#define TRACE_FULL_CELLS 4096

/* The scene options (scene_opts.h) first, then trace's own. */
enum {
    T_JSON = SCENE_OPT_COUNT, T_FULL, T_ALPHA, T_BETA, T_GAMMA, T_LINK,
    T_LINKS, T_SUMMARY, T_STEPS, T_EXPORT, T_PRICING, T_HELP, T_NOPTS
};

static const CliOpt trace_opts[T_NOPTS] = {
    SCENE_OPTS("number of ranks, 1 to 65536 (above 1024: priced, not "
               "executed symbolically)",
               "size in bytes, K/M/G suffixes are powers of 1024 (nccl-tests "
               "meaning)"),
    [T_JSON] = {0, "json", NULL, "write JSON (docs/trace-json.md) instead of text"},
    [T_FULL] = {0, "full", NULL, "every rank's cells after every step, however many"},
    [T_ALPHA] = CLI_OPT_ALPHA,
    [T_BETA] = CLI_OPT_BETA,
    [T_GAMMA] = CLI_OPT_GAMMA,
    [T_LINK] = CLI_OPT_LINK,
    [T_LINKS] = {0, "links", NULL, "the bytes on every link in every step, the busiest, and the wire bandwidth"},
    [T_SUMMARY] = {0, "summary", NULL, "phases and totals, no step list (the default above 1024 ranks)"},
    [T_STEPS] = {0, "steps", NULL, "list every step, however many ranks"},
    [T_EXPORT] = {0, "export", "FORMAT", "write the schedule itself instead: text (collviz's schedule format, docs/schedule-format.md) or msccl (MSCCL's algorithm XML)"},
    [T_PRICING] = CLI_OPT_PRICING,
    [T_HELP] = CLI_OPT_HELP,
};

static const CliCmd trace_cmd = {
    .name = "trace",
    .usage = "trace COLL [-a ALGO] -p RANKS -s SIZE [-d TYPE] [-o OP] [-r ROOT]\n"
             "               [--in-place] [--json] [--full] [--alpha T] [--beta GB/s]\n"
             "               [--gamma GB/s] [--link full|bus] [-T MACHINE] [--links]\n"
             "               [--summary | --steps] [--segment SIZE] [--export text|msccl]\n"
             "               [--pricing lockstep|dataflow]",
    .about = "Generate the schedule of ALGO for COLL, check it, execute it symbolically\n"
             "and print each step's transfers, what the written cells hold after the\n"
             "step, and totals: steps, bytes per rank, model time, the lower bound.\n"
             "A cell is shown as {RANKS}@POS: the op over the inputs of RANKS at\n"
             "origin position POS; a run [a..b]{RANKS}@P..Q is cells a to b holding\n"
             "positions P to Q; '-' is a cell holding no data. Every rank's cells are\n"
             "shown before the first and after the last step, and after every step\n"
             "when p <= 16 and all buffers hold at most 4096 cells (or with --full).\n"
             "SIZE means what nccl-tests means: allreduce, broadcast, reduce: one\n"
             "rank's buffer; allgather, hypercube, gather: all gathered bytes;\n"
             "reducescatter, scatter: the bytes of all p blocks; alltoall, sendrecv:\n"
             "what each rank sends. sendrecv has no in-place form; hypercube runs\n"
             "on a power of two ranks (nccl-tests' sendrecv and hypercube).\n"
             "Steps are priced on the machine of -T (default full: a port per rank),\n"
             "each message by the busiest links on its route ('collviz topo --help');\n"
             "with --pricing dataflow each rank goes on once its own messages are\n"
             "done (the total is then the latest rank's, each repetition priced).\n"
             "Up to 1024 ranks the schedule is checked and executed symbolically;\n"
             "above (to 65536) it is priced only, and a ring's p-1 steps are priced\n"
             "as one shape rotated, so a summary of 16384 ranks takes a moment;\n"
             "there the phases and totals replace the step list unless --steps.\n"
             "ALGO may be a schedule file (a name with '/' or '.'), which trace checks\n"
             "element by element and runs like a built-in, or MSCCL's algorithm XML;\n"
             "--export writes any schedule in either, to read back with -a.",
    .opts = trace_opts,
    .nopts = T_NOPTS,
    .max_pos = 1,
};

/* ---------------------------------------------------------------- cells */

/* The run starting at cell i of rank r's buffer b, ending before `end`. */
CellRun trace_next_run(const Sim *sim, int r, BufId b, size_t i, size_t end)
{
    CellRun run = {i, 1, sim_pos(sim, r, b, i), sim_set(sim, r, b, i)};
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
bool trace_set_range(const uint64_t *set, size_t words, size_t from,
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
    /* The model first, so that -T's machine is built once, under it; a
     * wrong --alpha, --beta, --gamma or --link is said after the scene's
     * sentences, as before. */
    CliErr model_err;
    bool model_ok = !spec_parse_model(a->val[T_ALPHA], a->val[T_BETA],
                                      a->val[T_GAMMA], a->val[T_LINK],
                                      &t->model, &model_err);
    if (scene_opts_parse_on(a, &scene_limits_trace,
                            model_ok ? &t->model : NULL, &sc, e) ||
        trace_fits(&sc.call, sc.bytes, e))
        return -1;
    if (cli_has(a, T_SUMMARY) && cli_has(a, T_STEPS))
        return cli_fail(e, "--summary leaves the steps out and --steps lists "
                           "them: give one");
    const char *ex = a->val[T_EXPORT];
    if (ex && strcmp(ex, "text") && strcmp(ex, "msccl"))
        return cli_fail(e, "--export writes the schedule as 'text' (collviz's "
                        "schedule format) or 'msccl' (MSCCL's algorithm XML), "
                        "not '%s'", ex);
    t->export = !ex ? TRACE_EXPORT_NONE : !strcmp(ex, "text")
                ? TRACE_EXPORT_TEXT : TRACE_EXPORT_MSCCL;
    if (sc.call.nranks > COLL_MAX_RANKS && cli_has(a, T_FULL))
        return cli_fail(e, "--full shows every rank's cells, which trace "
                           "follows up to %d ranks, not %d", COLL_MAX_RANKS,
                        sc.call.nranks);
    t->call = sc.call;
    t->algo = sc.algo;
    if (!model_ok) {
        *e = model_err;
        return -1;
    }
    if (sc.machine.given[0] && cli_has(a, T_LINK))
        return cli_fail(e, "-T names the machine: give it or --link, not both");
    t->topo_given = sc.machine.given[0] != '\0';
    if (spec_machine_build(&sc.machine, t->call.nranks, false, &t->model, e))
        return -1;
    t->mach = sc.machine.mach;
    t->links = cli_has(a, T_LINKS);
    t->pricing_given = cli_has(a, T_PRICING);
    if (t->pricing_given &&
        cli_parse_pricing(a->val[T_PRICING], &t->pricing, e))
        return -1;
    t->json = cli_has(a, T_JSON);
    t->full = cli_has(a, T_FULL);
    t->summary = cli_has(a, T_SUMMARY) ||
                 (t->call.nranks > TRACE_LIST_RANKS && !cli_has(a, T_STEPS));
    if (t->summary && t->links)
        return cli_fail(e, "--links lists every step's links; a summary has "
                           "no steps: give --steps with it");
    return 0;
}

/* An allocation failed: say what could not be done, never that the
 * schedule is wrong. */
static void no_memory(const Trace *t, const char *what)
{
    fprintf(stderr, "collviz: there is not enough memory to %s the %s "
            "schedule for %s on %d ranks\n", what, t->algo->name,
            coll_name(t->call.kind), t->call.nranks);
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
    if (err == CV_ERR_NOMEM) { /* no finding about the schedule */
        no_memory(t, "validate");
        return false;
    }
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
/* The schedule, generated for the machine: 0, or the exit status with
 * its sentence said. */
static int trace_generate(Trace *t)
{
    char why[200] = "";
    /* above COLL_MAX_RANKS nothing checks or executes the schedule, and
       the compact form keeps a ring's 2(p - 1) steps at 2p transfers */
    t->checked = t->call.nranks <= COLL_MAX_RANKS;
    CvError err = algo_generate_as(t->algo, &t->call, &t->mach,
                                   t->checked ? 0 : ALGO_COMPACT, &t->s, why,
                                   sizeof why);
    if (err == CV_ERR_ALGO && why[0]) {
        fprintf(stderr, "collviz: %s is not made for this machine: %s\n",
                t->algo->name, why);
        return CLI_EXIT_USAGE;
    }
    if (err == CV_ERR_NOMEM) {
        no_memory(t, "generate");
        return CLI_EXIT_FAIL;
    }
    if (err == CV_ERR_LIMIT && !t->checked) {
        fprintf(stderr, "collviz: the %s schedule for %s on %d ranks has more "
                "than %zu transfers, more than trace prices above %d ranks; "
                "give fewer ranks or another algorithm (-a)\n", t->algo->name,
                coll_name(t->call.kind), t->call.nranks,
                (size_t)SCHED_COMPACT_MAX_XFERS, COLL_MAX_RANKS);
        return CLI_EXIT_USAGE;
    }
    if (err) {
        fprintf(stderr, "collviz: the %s generator failed for %s on %d ranks: %s\n",
                t->algo->name, coll_name(t->call.kind), t->call.nranks,
                cv_strerror(err));
        return CLI_EXIT_FAIL;
    }
    return CLI_EXIT_OK;
}

/* What pricing t's schedule takes (pricer_price_work; a ring's steps on
 * a torus by the classes of their routes), or more than the limit
 * without memory to tell. */
static double trace_work(const Trace *t)
{
    Pricer pr;
    if (pricer_init(&pr, &t->mach))
        return 2 * MODEL_MAX_PRICE_WORK;
    double w = pricer_price_work(&pr, &t->s);
    pricer_fini(&pr);
    return w;
}

static int trace_prepare(Trace *t)
{
    int rc = trace_generate(t);
    if (rc)
        return rc;
    CvError err = CV_OK;
    t->nsteps = sched_nsteps(&t->s);
    double work = trace_work(t);
    if (!t->checked && work > MODEL_MAX_PRICE_WORK) {
        fprintf(stderr, "collviz: pricing the %s schedule on %d ranks on "
                "this machine comes to %.3g transfer hops (its transfers%s, "
                "each with the links it crosses), more than trace prices "
                "(%.3g); give fewer ranks or a smaller machine\n",
                t->algo->name, t->call.nranks, work,
                machine_shift_invariant(&t->mach) ? ""
                : ", repeated steps one by one: the machine does not look "
                  "the same from every rank", MODEL_MAX_PRICE_WORK);
        return CLI_EXIT_USAGE;
    }
    if (t->checked && !trace_validate(t))
        return CLI_EXIT_FAIL;
    t->sim_bytes = t->checked ? sim_need(&t->s) : 0;
    t->cells = t->checked && t->sim_bytes <= (double)TRACE_SIM_LIMIT &&
               !sim_too_long(&t->s);
    if (t->cells)
        err = sim_init(&t->sim, &t->s);
    if (err == CV_ERR_NOMEM)
        no_memory(t, "execute symbolically");
    else if (err)
        fprintf(stderr, "collviz: cannot trace %s: %s\n", t->algo->name,
                cv_strerror(err));
    if (err)
        return CLI_EXIT_FAIL;
    t->full = t->cells && (t->full || (t->call.nranks <= TRACE_FULL_RANKS &&
                                       total_cells(&t->s) <= TRACE_FULL_CELLS));
    return CLI_EXIT_OK;
}

/* --------------------------------------------------------------- totals */

static CvError totals_compute(const Trace *t, Totals *to)
{
    memset(to, 0, sizeof *to);
    size_t p = (size_t)t->call.nranks;
    to->sent = calloc(2 * p, sizeof *to->sent);
    if (!to->sent)
        return CV_ERR_NOMEM;
    to->recvd = to->sent + p;
    CvError e = sched_totals(&t->s, &to->st, to->sent, to->recvd);
    to->cost = t->terms;
    to->seconds = t->pr.flowing ? t->pr.flow_time : t->seconds;
    to->wire_link = -1;
    double busy = 0;
    for (int l = 0; l < t->mach.nlinks; l++) {
        double b = t->link_total[l] *
                   t->mach.cls[machine_link_class(&t->mach, l)].beta;
        if (b > busy)
            busy = b, to->wire_bytes = t->link_total[l], to->wire_link = l;
    }
    if (t->algo->cost) /* a schedule file has no closed form */
        t->algo->cost(&t->call, &to->closed);
    model_lower_bound(&t->call, &to->bound);
    if (t->cells) {
        to->sim_err = t->sim.err;
        to->check = sim_check(&t->sim, &to->bad_rank, &to->bad_elem, &to->nwrong);
    }
    return e;
}

void trace_link_name(const Trace *t, int l, char *buf, size_t len)
{
    char name[80];
    machine_link_name(&t->mach, l, name, sizeof name);
    snprintf(buf, len, "%s (%s)", name,
             t->mach.cls[machine_link_class(&t->mach, l)].name);
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The links' loads of the step just priced, `times` over: as pr keeps
 * them, the same on every rank's links where the step was priced by its
 * orbits, or rotated over its `reps` repetitions (the entry priced once). */
static CvError add_links(Trace *t, double times, size_t reps, int shift)
{
    const Pricer *pr = &t->pr;
    int p = t->mach.nranks;
    if (pr->orbits) { /* every rank's links alike; others as touched */
        for (int q = 0; q < p; q++)
            for (int d = 0; d < 2; d++)
                t->link_total[2 * q + d] += times * pr->orbit_bytes[d];
        for (int i = 0; i < pr->ntouched; i++)
            if (pr->touched[i] >= 2 * p)
                t->link_total[pr->touched[i]] +=
                    times * pr->bytes[pr->touched[i]];
        return CV_OK;
    }
    if (times == 1) {
        for (int i = 0; i < pr->ntouched; i++)
            t->link_total[pr->touched[i]] += pr->bytes[pr->touched[i]];
        return CV_OK;
    }
    /* links 2 r and 2 r + 1 move with rank r, any others stay */
    size_t np = (size_t)p;
    size_t *v = calloc(4 * np, sizeof *v);
    if (!v)
        return CV_ERR_NOMEM;
    for (int i = 0; i < pr->ntouched; i++) {
        int l = pr->touched[i];
        double b = pr->bytes[l];
        if (l < 2 * p)
            v[(size_t)(l % 2) * np + (size_t)(l / 2)] = (size_t)(b + 0.5);
        else
            t->link_total[l] += (double)reps * b;
    }
    CvError e = sched_add_rotations(v, p, reps, shift, v + 2 * np);
    if (!e)
        e = sched_add_rotations(v + np, p, reps, shift, v + 3 * np);
    for (size_t q = 0; q < np && !e; q++) {
        t->link_total[2 * q] += (double)v[2 * np + q];
        t->link_total[2 * q + 1] += (double)v[3 * np + q];
    }
    free(v);
    return e;
}

/* Price repetition j of entry k on the machine, into t->sp and the
 * running sums, `times` over (the repetitions that a machine rotation
 * maps onto itself prices alike), the links' loads with them unless the
 * pricer is lean (the entry's loads then added at once). */
static CvError trace_price(Trace *t, size_t k, size_t j, double times)
{
    CvError e = price_step_rep(&t->pr, &t->s, k, j, false, &t->sp);
    if (e)
        return e;
    t->seconds += times * t->sp.time;
    t->terms.a += times * t->sp.terms.a, t->terms.b += times * t->sp.terms.b;
    t->terms.g += times * t->sp.terms.g;
    t->terms.steps += times * t->sp.terms.steps;
    const Step *st = &t->s.steps[k];
    e = t->pr.lean ? CV_OK : add_links(t, times, (size_t)times, st->shift);
    if (!e && t->links) /* the renderings list them by number */
        qsort(t->pr.touched, (size_t)t->pr.ntouched, sizeof *t->pr.touched,
              int_cmp);
    return e;
}

/* Add step `no` (of t->sp's price) to the phases. */
static CvError phase_add(Trace *t, const char *phase, size_t no, size_t steps,
                         size_t xfers)
{
    TracePhase *ph = t->nphases ? &t->phases[t->nphases - 1] : NULL;
    if (!ph || strcmp(ph->phase, phase) != 0) {
        TracePhase *n = grow_array(t->phases, &t->cap_phases,
                                   t->nphases + 1, sizeof *n, 16);
        if (!n)
            return CV_ERR_NOMEM;
        t->phases = n;
        ph = &t->phases[t->nphases++];
        *ph = (TracePhase){.phase = phase, .first = no};
    }
    ph->steps += steps;
    ph->transfers += steps * xfers;
    ph->time += (double)steps * t->sp.time;
    if (t->sp.time > ph->worst)
        ph->worst = t->sp.time;
    return CV_OK;
}

/* Point t->cur at repetition j of entry k's transfers. */
static CvError trace_current(Trace *t, size_t k, size_t j)
{
    const Step *st = &t->s.steps[k];
    t->cur_phase = st->phase ? st->phase : "-";
    t->cur_first = st->first;
    return sched_entry_fill(&t->s, k, j, &t->rot, &t->rot_cap, &t->cur,
                            &t->ncur);
}

double trace_time_of(const Trace *t, const CostTerms *c)
{
    ModelParams uni; /* a flat machine of -T: its own alpha, beta, gamma */
    if (model_flat_kind(t->mach.kind) && model_machine_uniform(&t->mach, &uni))
        return cost_time(c, &uni);
    return cost_time(c, &t->model.m);
}

/* --------------------------------------------------------------- driver */

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

/* Every step of t's schedule: executed, priced, added to its phase and,
 * without --summary, written by w. A summary prices a repeated entry
 * once where rotation maps the machine onto itself, and adds its links'
 * loads rotated. */
static CvError trace_steps(Trace *t, const TraceWriter *w)
{
    bool same = machine_shift_invariant(&t->mach) &&
                machine_links_move(&t->mach);
    size_t no = 0;
    CvError e = CV_OK;
    for (size_t k = 0; k < t->s.nsteps && !e; k++) {
        const Step *st = &t->s.steps[k];
        size_t reps = t->s.compact ? st->reps : 1;
        bool once = t->summary && same && reps > 1 && !t->pr.flowing &&
                    !(t->s.compact && st->cyc); /* not moved along cycles */
        double work;
        /* a summary of neighbour steps priced by route classes: each
           repetition's price, the links' loads of all of them at once */
        t->pr.lean = t->summary && !once && !t->links && !t->pr.flowing &&
                     pricer_lines_work(&t->pr, &t->s, k, &work);
        for (size_t j = 0; j < (once ? 1 : reps) && !e; j++) {
            if (t->cells)
                sim_step(&t->sim);
            e = trace_price(t, k, j, once ? (double)reps : 1);
            if (!e)
                e = phase_add(t, st->phase ? st->phase : "-", no,
                              once ? reps : 1, sched_entry_n(&t->s, k));
            if (!e && !t->summary)
                e = trace_current(t, k, j);
            if (!e && !t->summary)
                w->step(t, no);
            no += once ? reps : 1;
        }
        if (!e && t->pr.lean)
            e = pricer_lines_links(&t->pr, &t->s, k, t->link_total);
        t->pr.lean = false;
    }
    return e;
}

static int trace_run(Trace *t, const TraceWriter *w)
{
    Sink sink;
    if (sink_init(&sink, stdout, 1 << 16)) {
        fprintf(stderr, "collviz: %s\n", cv_strerror(CV_ERR_NOMEM));
        return CLI_EXIT_FAIL;
    }
    t->out = &sink;
    CvError e = pricer_init(&t->pr, &t->mach);
    t->pr.expand = t->links; /* every link's load of every step */
    t->priced = e ? PRICING_LOCKSTEP
                  : pricer_flow_start(&t->pr, &t->s, t->pricing);
    t->link_total = e ? NULL : calloc((size_t)t->mach.nlinks, sizeof *t->link_total);
    if (!t->link_total) {
        pricer_fini(&t->pr);
        sink_fini(&sink);
        fprintf(stderr, "collviz: %s\n", cv_strerror(CV_ERR_NOMEM));
        return CLI_EXIT_FAIL;
    }
    w->begin(t);
    e = trace_steps(t, w);
    Totals to = {0};
    if (!e)
        e = totals_compute(t, &to);
    if (!e)
        e = w->end(t, &to);
    int rc = e ? CLI_EXIT_FAIL : trace_verdict(t, &to);
    free(to.sent);
    free(t->link_total);
    free(t->rot);
    free(t->phases);
    pricer_fini(&t->pr);
    sink_fini(&sink);
    if (sink.err || ferror(stdout)) {
        errno = sink.errnum; /* main says why the output failed */
        rc = CLI_EXIT_FAIL;
    } else if (e == CV_ERR_LIMIT) {
        fprintf(stderr, "collviz: a step of the %s schedule on %d ranks has "
                "more than %zu transfers, more than trace lists; give "
                "--summary\n", t->algo->name, t->call.nranks,
                (size_t)SCHED_COMPACT_MAX_XFERS);
    } else if (e) {
        fprintf(stderr, "collviz: the trace could not be finished: %s\n",
                cv_strerror(e));
        rc = CLI_EXIT_FAIL;
    }
    return rc;
}

/* --export: the schedule in collviz's schedule format or as MSCCL XML on
 * stdout. */
static int trace_export(const Trace *t)
{
    char *text;
    size_t len;
    CvError e = t->export == TRACE_EXPORT_TEXT
                    ? sched_text_write(&t->s, &text, &len)
                    : msccl_write(&t->s, &text, &len);
    if (e == CV_ERR_LIMIT) {
        fprintf(stderr, "collviz: the %s schedule on %d ranks is larger than "
                "a schedule file may be (%d ranks, %u steps, %u transfers, "
                "%u units a buffer%s)\n", t->algo->name, t->call.nranks,
                COLL_MAX_RANKS, SCHED_TEXT_MAX_STEPS, SCHED_TEXT_MAX_XFERS,
                SCHED_TEXT_MAX_UNITS, t->export == TRACE_EXPORT_MSCCL
                ? "; in MSCCL's, 1024 threadblocks a GPU and 256 channels"
                : "");
        return CLI_EXIT_USAGE;
    }
    if (e) {
        fprintf(stderr, "collviz: %s\n", cv_strerror(e));
        return CLI_EXIT_FAIL;
    }
    size_t n = fwrite(text, 1, len, stdout);
    free(text);
    return n == len && !fflush(stdout) ? CLI_EXIT_OK : CLI_EXIT_FAIL;
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
    rc = t.export ? trace_generate(&t) : trace_prepare(&t);
    if (rc == CLI_EXIT_OK)
        rc = t.export ? trace_export(&t)
                      : trace_run(&t, t.json ? &trace_json : &trace_text);
    if (t.cells)
        sim_fini(&t.sim);
    sched_fini(&t.s);
    return rc;
}
