/* conformance.c - the backends' one conformance suite (conformance.h). */
#include "conformance.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "call_fixture.h"
#include "core/sim.h"
#include "exec/verify.h"

/* A refusal, failure or wrong check of schedule s: counted, the first
 * kept, every one reported. */
static void note(const ConfPlan *pl, ConfTally *t, const Schedule *s,
                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void note(const ConfPlan *pl, ConfTally *t, const Schedule *s,
                 const char *fmt, ...)
{
    const CollCall *c = &s->call;
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char line[sizeof t->first];
    snprintf(line, sizeof line, "%s/%s p=%d count=%zu %s %s root=%d %s: %s",
             coll_name(c->kind), s->algo ? s->algo : "?", c->nranks, c->count,
             dtype_name(c->dtype), redop_name(c->op), c->root,
             c->in_place ? "in place" : "out of place", what);
    if (!t->first[0])
        memcpy(t->first, line, sizeof line);
    if (pl && pl->report)
        pl->report(pl, line);
}

/* The result of one check: CV_OK, or counted and noted. */
static bool ok(Executor *ex, const ConfPlan *pl, ConfTally *t,
               const Schedule *s, CvError e, const VerifyReport *vr,
               const char *when)
{
    if (e == CV_ERR_WRONG) {
        t->wrong += (long)vr->wrong;
        note(pl, t, s, "%s: %zu of %zu elements wrong; first: rank %d "
             "%s[%zu] = %#llx, want %#llx", when, vr->wrong, vr->checked,
             vr->bad_rank, buf_name(vr->bad_buf), vr->bad_elem,
             (unsigned long long)vr->got, (unsigned long long)vr->want);
    } else if (e) {
        t->failed++;
        const char *why = ex->ops->last_error(ex);
        note(pl, t, s, "%s: %s%s%s", when, cv_strerror(e), *why ? ": " : "",
             why);
    }
    return !e;
}

/* Stepped after a reset; with the sim, the state after the reset, every
 * step and the finish compared with it; then the output. */
static bool stepped(Executor *ex, const Schedule *s, bool with_sim,
                    const ConfPlan *pl, ConfTally *t)
{
    Sim sim;
    VerifyReport vr = {0};
    if (with_sim && sim_init(&sim, s)) {
        t->failed++;
        note(pl, t, s, "the sim could not start");
        return false;
    }
    bool good = ok(ex, pl, t, s, ex->ops->reset(ex), &vr, "reset");
    if (good && with_sim)
        good = ok(ex, pl, t, s, verify_state(ex, &sim, false, &vr), &vr,
                  "after the reset");
    for (size_t k = 0; good && k < s->nsteps; k++) {
        char when[64];
        snprintf(when, sizeof when, "step %zu", k);
        good = ok(ex, pl, t, s, ex->ops->step(ex, k), &vr, when);
        if (good && with_sim) {
            snprintf(when, sizeof when, "after step %zu", k);
            good = ok(ex, pl, t, s, sim_step(&sim), &vr, "the sim's step") &&
                   ok(ex, pl, t, s, verify_state(ex, &sim, false, &vr), &vr,
                      when);
        }
    }
    good = good && ok(ex, pl, t, s, ex->ops->finish(ex), &vr, "finish");
    if (good && with_sim)
        good = ok(ex, pl, t, s, verify_state(ex, &sim, true, &vr), &vr,
                  "after the finish");
    good = good && ok(ex, pl, t, s, verify_output(ex, true, &vr), &vr,
                      "the output after the finish");
    if (with_sim)
        sim_fini(&sim);
    return good;
}

/* Whether running the schedule again from its own output state gives the
 * same output: out of place always; in place only where the input stays
 * where it was (not reductions, which consume it, nor alltoall, which
 * transposes it). */
static bool repeatable(const CollCall *c)
{
    return !c->in_place ||
           (!coll_is_reducing(c->kind) && c->kind != COLL_ALLTOALL);
}

/* Timed runs: one after a reset; with CONF_REPEAT, where repeatable, a
 * warmup and three more back to back; the output after each. */
static bool runs(Executor *ex, const Schedule *s, unsigned checks,
                 const ConfPlan *pl, ConfTally *t)
{
    VerifyReport vr = {0};
    double steps[256];
    bool times = (checks & CONF_STEP_TIMES) && s->nsteps <= 256;
    ExecTiming tm = {.step_s = times ? steps : NULL};
    bool good = ok(ex, pl, t, s, ex->ops->reset(ex), &vr, "reset") &&
                ok(ex, pl, t, s, ex->ops->run(ex, 0, 1, &tm), &vr, "run");
    if (good && !(tm.iter_s >= 0)) {
        t->failed++;
        note(pl, t, s, "the run took %g s", tm.iter_s);
        good = false;
    }
    good = good && ok(ex, pl, t, s, verify_output(ex, true, &vr), &vr,
                      "the output after a run");
    if (!good || !(checks & CONF_REPEAT) || !repeatable(&s->call))
        return good;
    return ok(ex, pl, t, s, ex->ops->run(ex, 2, 3, &tm), &vr, "repeated runs") &&
           ok(ex, pl, t, s, verify_output(ex, true, &vr), &vr,
              "the output after repeated runs");
}

/* The library's own collective after a reset, then the output. */
static bool native(Executor *ex, const Schedule *s, const ConfPlan *pl,
                   ConfTally *t)
{
    VerifyReport vr = {0};
    ExecTiming tm = {0};
    char why[300] = "";
    CvError e = ex->ops->reset(ex);
    if (!e && !ex->ops->native) {
        t->failed++;
        note(pl, t, s, "the backend has no collectives of its own");
        return false;
    }
    if (!e)
        e = ex->ops->native(ex, 0, 1, &tm, why, sizeof why);
    return ok(ex, pl, t, s, e, &vr, "the library's own collective") &&
           ok(ex, pl, t, s, verify_output(ex, true, &vr), &vr,
              "the output after the library's own collective");
}

void conf_check(Executor *ex, const Schedule *s, unsigned checks,
                const ConfPlan *pl, ConfTally *t)
{
    t->cases++;
    VerifyReport vr = {0};
    if (!ok(ex, pl, t, s, ex->ops->load(ex, s), &vr, "load"))
        return;
    if (checks & (CONF_STEPS | CONF_STEPPED))
        stepped(ex, s, checks & CONF_STEPS, pl, t);
    if (checks & CONF_RUNS)
        runs(ex, s, checks, pl, t);
    if (checks & CONF_NATIVE)
        native(ex, s, pl, t);
}

void conf_call(Executor *ex, const AlgoInfo *a, const CollCall *c,
               const Machine *m, unsigned checks, const ConfPlan *pl,
               ConfTally *t)
{
    Schedule s;
    char why[300] = "";
    CvError e = algo_generate_on(a, c, m, &s, why, sizeof why);
    if (e) {
        Schedule named = {.call = *c, .algo = a->name};
        t->refused++;
        note(pl, t, &named, "generate: %s: %s", cv_strerror(e), why);
        return;
    }
    conf_check(ex, &s, checks, pl, t);
    sched_fini(&s);
}

size_t conf_count_odd(const ConfPlan *pl, const CollCall *c, int n)
{
    (void)pl;
    return n ? 2 * (size_t)c->nranks - 1 : (size_t)c->nranks + 1;
}

size_t conf_count_small(const ConfPlan *pl, const CollCall *c, int n)
{
    static const size_t counts[] = {0, 1, 7, 97};
    (void)pl, (void)c;
    return counts[n];
}

/* Whether the plan is done with t (stopped at the first trouble). */
static bool stopped(const ConfPlan *pl, const ConfTally *t)
{
    return pl->stop_first && t->first[0];
}

/* Every datatype and op (the ops of reducing collectives only) x both
 * places x the plan's counts of algorithm a's call c on machine m. */
static void sweep_calls(Executor *ex, const AlgoInfo *a, CollCall c,
                        const Machine *m, const ConfPlan *pl, ConfTally *t)
{
    int nops = coll_is_reducing(a->coll) ? OP_COUNT : 1;
    for (int ip = 0; ip < 2; ip++)
        for (int n = 0; n < pl->ncounts; n++)
            for (int dt = 0; dt < DT_COUNT; dt++)
                for (int op = 0; op < nops && !stopped(pl, t); op++) {
                    c.in_place = ip, c.dtype = (DataType)dt, c.op = (RedOp)op;
                    c.count = pl->count(pl, &c, n);
                    if (!call_defined(c.kind, c.nranks, c.in_place) ||
                        (m && !algo_fits(a, &c, m, NULL, 0)))
                        continue; /* no such call; not made for this one */
                    unsigned checks = pl->take ? pl->take(pl, &c, n, t->cases)
                                               : pl->checks;
                    if (checks)
                        conf_call(ex, a, &c, m, checks, pl, t);
                }
}

void conf_sweep(Executor *ex, const ConfPlan *pl, ConfTally *t)
{
    int p = ex->nranks;
    for (size_t i = 0; i < algo_count() && !stopped(pl, t); i++) {
        const AlgoInfo *a = algo_at(i);
        CollCall c = {.kind = a->coll, .nranks = p,
                      .root = !coll_is_rooted(a->coll) ? 0
                              : pl->root_last ? p - 1 : p / 2};
        if (!a->fits && pl->full)
            sweep_calls(ex, a, c, NULL, pl, t);
        for (int mi = 0; a->fits && mi < pl->nmachines; mi++)
            if (pl->machines[mi].nranks == p)
                sweep_calls(ex, a, c, &pl->machines[mi], pl, t);
    }
}
