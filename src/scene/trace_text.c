/* trace_text.c - `collviz trace` as text: the call and its buffers, each
 * step's transfers with what their destination cells hold after it, the
 * state of every rank's cells where it is shown, and the totals. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "scene/trace.h"

/* Whether trace can follow call c within its bounds (TRACE_MAX_CELLS):
 * what it keeps grows with the buffers (a bit per output element to
 * validate the schedule, the symbolic state where it fits), so a call
 * beyond them is refused before anything is generated. */
int trace_fits(const CollCall *c, unsigned long long bytes, CliErr *e)
{
    if (c->nranks > COLL_MAX_RANKS) /* priced only: nothing per element */
        return 0;
    unsigned long long cells = coll_cells(c);
    if (cells <= TRACE_MAX_CELLS)
        return 0;
    return cli_fail(e, "trace cannot follow %s at %llu bytes on %d ranks: its "
                    "buffers hold %llu elements, and trace keeps state for at "
                    "most %llu (about %llu MiB to validate the schedule); give "
                    "a smaller size or fewer ranks", coll_name(c->kind), bytes,
                    c->nranks, cells, TRACE_MAX_CELLS,
                    (TRACE_MAX_CELLS / 8) >> 20);
}

/* Cell runs shown per transfer (JSON shows all). */
#define TRACE_RUNS_PER_LINE 16

/* "lo" + sep + "hi", or just "lo" when they are equal. */
static void put_pair(Sink *f, size_t lo, size_t hi, const char *sep)
{
    sink_uint(f, lo);
    if (lo != hi) {
        sink_str(f, sep);
        sink_uint(f, hi);
    }
}

/* A rank set as {0-3,5}. */
static void put_set(Sink *f, const uint64_t *set, size_t words)
{
    int lo, hi, n = 0;
    sink_c(f, '{');
    for (size_t from = 0; trace_set_range(set, words, from, &lo, &hi);
         from = (size_t)hi + 1) {
        if (n++)
            sink_c(f, ',');
        put_pair(f, (size_t)lo, (size_t)hi, "-");
    }
    sink_c(f, '}');
}

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
    spec_model_text(&t->model, model, sizeof model);
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
    if (t->topo_given) {
        char mach[512];
        machine_describe(&t->mach, false, mach, sizeof mach);
        sink_printf(t->out, "\n# machine (-T): %s\n", mach);
    } else {
        sink_printf(t->out, "\n# model: %s\n", model);
    }
    if (t->pricing_given && t->priced == PRICING_DATAFLOW)
        sink_printf(t->out, "# pricing: dataflow (a message starts once its "
                    "two ranks are done with the steps before; the total is "
                    "the latest rank's)\n");
    else if (t->pricing_given)
        sink_printf(t->out, "# pricing: lockstep (each step waits for its "
                    "slowest message%s)\n", t->pricing == t->priced ? ""
                    : "; not dataflow: a memory machine's steps, or a "
                      "schedule too large to write out");
    if (t->summary)
        sink_printf(t->out, "# summary: phases and totals, the steps not "
                    "listed (--steps lists them)\n");
    if (!t->checked)
        sink_printf(t->out, "# cells: not tracked above %d ranks; the "
                    "schedule is priced step by step (a repeated shape once "
                    "where the machine looks the same from every rank)\n",
                    COLL_MAX_RANKS);
    else if (!t->cells)
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
static void text_run(Sink *f, const Sim *sim, const CellRun *run, bool bare)
{
    if (!bare) {
        sink_c(f, '[');
        put_pair(f, run->off, run->off + run->n - 1, "..");
        sink_c(f, ']');
    }
    if (run->pos == SIM_EMPTY) {
        sink_c(f, '-');
        return;
    }
    put_set(f, run->set, sim->words);
    if (run->pos == SIM_MIXED) {
        sink_str(f, "@?");
    } else {
        sink_c(f, '@');
        put_pair(f, (size_t)run->pos, (size_t)run->pos + run->n - 1, "..");
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
                CellRun run = trace_next_run(&t->sim, r, (BufId)b, i, n);
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
    sink_uint(f, (size_t)r);
    sink_c(f, ' ');
    sink_str(f, buf_name(b));
    sink_c(f, '[');
    put_pair(f, off, off + n - 1, "..");
    sink_c(f, ']');
}

/* What the destination cells of x hold after the step, at most
 * TRACE_RUNS_PER_LINE runs, then how many more there are. */
static void text_written(Trace *t, const Transfer *x)
{
    size_t end = x->dst_off + x->count, shown = 0, more = 0;
    sink_str(t->out, " =>");
    for (size_t i = x->dst_off; i < end;) {
        CellRun run = trace_next_run(&t->sim, x->dst, (BufId)x->dst_buf, i, end);
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

/* The step's links in order of number, with their bytes and messages,
 * then the busiest and its share of the step's time. */
static void text_links(Trace *t)
{
    Pricer *pr = &t->pr;
    char name[96], tm[32];
    for (int i = 0; i < pr->ntouched; i++) {
        int l = pr->touched[i];
        trace_link_name(t, l, name, sizeof name);
        sink_printf(t->out, "  link %s: %.0f bytes, %d message%s\n", name,
                    pr->bytes[l], pr->msgs[l], pr->msgs[l] == 1 ? "" : "s");
    }
    if (t->sp.busiest < 0)
        return;
    trace_link_name(t, t->sp.busiest, name, sizeof name);
    sink_printf(t->out, "  busiest link %s: %.0f bytes, %s, %.0f%% of the "
                "step's time\n", name, pr->bytes[t->sp.busiest],
                time_text(t->sp.busiest_time, tm, sizeof tm),
                t->sp.time > 0 ? 100 * t->sp.busiest_time / t->sp.time : 0);
}

static void text_step(Trace *t, size_t k)
{
    char tm[32];
    double sec = t->sp.time;
    size_t n = t->ncur;
    sink_printf(t->out, "step %zu/%zu %s: %zu transfer%s, %s\n", k + 1, t->nsteps,
                t->cur_phase, n, n == 1 ? "" : "s", time_text(sec, tm, sizeof tm));
    for (size_t i = 0; i < n; i++) {
        const Transfer *x = &t->cur[i];
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
    if (t->links)
        text_links(t);
    if (t->cells && t->sim.err && t->sim.err_step == k)
        sink_printf(t->out, "# error in step %zu, transfer %zu: %s\n", k + 1,
                    t->sim.err_xfer - t->cur_first + 1, cv_strerror(t->sim.err));
    if (t->full && k + 1 < t->nsteps) {
        char label[48];
        snprintf(label, sizeof label, "state after step %zu", k + 1);
        text_state(t, label);
    }
}

/* The summary's phases: consecutive steps of one label. */
static void text_phases(Trace *t)
{
    char tm[32], worst[32];
    sink_printf(t->out, "# phases: steps (first-last), transfers, model time, "
                "slowest step\n");
    for (size_t i = 0; i < t->nphases; i++) {
        const TracePhase *ph = &t->phases[i];
        sink_printf(t->out, "  %s: %zu step%s (%zu-%zu), %zu transfers, %s, "
                    "slowest %s\n", ph->phase, ph->steps,
                    ph->steps == 1 ? "" : "s", ph->first + 1,
                    ph->first + ph->steps, ph->transfers,
                    time_text(ph->time, tm, sizeof tm),
                    time_text(ph->worst, worst, sizeof worst));
    }
}

/* Per-rank bytes as their least and most, with a rank of each. */
static void text_spread(Sink *f, const char *what, const size_t *v, int p)
{
    int lo = 0, hi = 0;
    for (int r = 1; r < p; r++) {
        lo = v[r] < v[lo] ? r : lo;
        hi = v[r] > v[hi] ? r : hi;
    }
    sink_printf(f, "# bytes %s per rank: least %zu (r%d), most %zu (r%d)\n",
                what, v[lo], lo, v[hi], hi);
}

/* A count of steps or bytes: whole numbers exactly (3145728, never
 * 3.14573e+06), others to 10 significant digits. */
static const char *term_text(double v, char *buf, size_t n)
{
    if (v == (double)(long long)v && v > -1e15 && v < 1e15)
        snprintf(buf, n, "%lld", (long long)v);
    else
        snprintf(buf, n, "%.10g", v);
    return buf;
}

static void text_terms(Sink *f, const char *what, const CostTerms *c,
                       double sec)
{
    char tm[32], a[32], b[32], g[32];
    sink_printf(f, "# %s: %s a + %s b + %s g = %s\n", what,
                term_text(c->a, a, sizeof a), term_text(c->b, b, sizeof b),
                term_text(c->g, g, sizeof g), time_text(sec, tm, sizeof tm));
}

static void text_check(Trace *t, const Totals *to)
{
    const char *kind = coll_name(t->call.kind);
    if (!t->checked)
        sink_printf(t->out, "# check: not made: trace checks schedules and "
                    "executes them symbolically up to %d ranks; this one is "
                    "priced only\n", COLL_MAX_RANKS);
    else if (!t->cells)
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

/* The busiest link over the whole run beside nccl-tests' busbw. */
static void text_wire(Trace *t, const Totals *to)
{
    if (to->wire_link < 0 || !(to->seconds > 0))
        return;
    char name[96];
    double size = (double)coll_size_bytes(&t->call);
    double busbw = size / to->seconds * coll_busbw_factor(t->call.kind,
                                                          t->call.nranks);
    trace_link_name(t, to->wire_link, name, sizeof name);
    sink_printf(t->out, "# wire: the busiest link, %s, carried %.0f bytes: "
                "%.4g GB/s over the model time; busbw (nccl-tests) %.4g GB/s\n",
                name, to->wire_bytes, to->wire_bytes / to->seconds / 1e9,
                busbw / 1e9);
    const LinkClass *k = &t->mach.cls[machine_link_class(&t->mach,
                                                         to->wire_link)];
    if (k->beta > 0 && busbw * k->beta > 1)
        sink_printf(t->out, "#   busbw is above the link's %.4g GB/s: it "
                    "counts the bytes a ring would move, and on this machine "
                    "the busiest link carried fewer (a switch that sums and "
                    "multicasts, or a hierarchy)\n", 1e-9 / k->beta);
    if (machine_has_reducing_switch(&t->mach) &&
        (double)to->st.max_sent > to->wire_bytes)
        sink_printf(t->out, "#   a rank's bytes sent (%zu at most) count a "
                    "multicast once per receiver; its link into the switch "
                    "carries it once\n", to->st.max_sent);
}

static CvError text_end(Trace *t, const Totals *to)
{
    char tm[32], lk[32];
    if (t->cells)
        text_state(t, "state at the end");
    if (t->summary)
        text_phases(t);
    sink_printf(t->out, "# totals: %zu steps, %zu transfers, %zu bytes between ranks",
                to->st.steps, to->st.xfers, to->st.total_bytes);
    if (t->checked)
        sink_printf(t->out, ", %zu transfers read cells their step overwrites "
                    "(staged)", t->chk.overlaps);
    sink_c(t->out, '\n');
    if (t->summary) {
        text_spread(t->out, "sent", to->sent, t->call.nranks);
        text_spread(t->out, "received", to->recvd, t->call.nranks);
    } else {
        sink_printf(t->out, "# rank  bytes sent  bytes received\n");
        for (int r = 0; r < t->call.nranks; r++)
            sink_printf(t->out, "r%d %zu %zu\n", r, to->sent[r], to->recvd[r]);
    }
    sink_printf(t->out, "# most by one rank: sent %zu, received %zu, reduced %zu bytes\n",
                to->st.max_sent, to->st.max_recvd, to->st.max_reduced);
    ModelParams uni;
    if (t->priced == PRICING_DATAFLOW)
        sink_printf(t->out, "# model time (schedule, dataflow: the latest "
                    "rank's clock): %s; lockstep %s\n",
                    time_text(to->seconds, tm, sizeof tm),
                    time_text(t->seconds, lk, sizeof lk));
    else if (model_machine_uniform(&t->mach, &uni))
        text_terms(t->out, "model time (schedule, a = alpha, b = beta bytes, "
                   "g = gamma bytes)", &to->cost, to->seconds);
    else
        sink_printf(t->out, "# model time (schedule, on the machine's links): "
                    "%s\n", time_text(to->seconds, tm, sizeof tm));
    text_wire(t, to);
    bool flat = t->mach.kind == MACHINE_FULL || t->mach.kind == MACHINE_BUS;
    if (t->algo->cost)
        text_terms(t->out, flat ? "closed form"
                                : "closed form (on full, --alpha --beta)",
                   &to->closed, trace_time_of(t, &to->closed));
    sink_printf(t->out, "#   %s%s\n", t->algo->cost ? "" : "closed form: ",
                algo_formula(t->algo, t->call.nranks));
    char seg[200];
    if (algo_segment_text(t->algo, &t->call, &t->model.m, seg, sizeof seg))
        sink_printf(t->out, "#   %s\n", seg);
    if (machine_has_reducing_switch(&t->mach)) /* (as model's column) */
        sink_printf(t->out, "# lower bound: none honest on a switch that "
                    "sums: it reduces in the network, which the bound of "
                    "ranks sending and reducing on their own does not "
                    "cover\n");
    else
        text_terms(t->out, flat ? "lower bound" : "lower bound (on full)",
                   &to->bound, trace_time_of(t, &to->bound));
    text_check(t, to);
    return CV_OK;
}

const TraceWriter trace_text = {
    .begin = text_begin, .step = text_step, .end = text_end,
};
