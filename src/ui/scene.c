/* scene.c - a scene: the picture's schedule executed step by step
 * symbolically and on the backend, the measured size's schedule for the
 * counters, and the model's predictions. */
#include "ui/scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scene/scene_opts.h"
#include "scene/spec.h"
#include "ui/i18n.h"
#include "ui/words.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

size_t scene_picture_count(CollKind k, int p, int cells)
{
    size_t c = (size_t)(cells < 1 ? 1 : cells);
    return coll_size_blocks(k, p) == 1 ? c * (size_t)p : c;
}

int scene_next_chunks(const AlgoInfo *a, int chunks)
{
    if (!a || !a->pipelined || 2 * chunks > SCENE_MAX_CHUNKS)
        return 0;
    return chunks < 1 ? 1 : 2 * chunks;
}

/* The picture's call pc in `chunks` chunks of its count each (the key p):
 * CollCall.segment, a chunk's bytes, cuts them. */
static void picture_chunks(CollCall *pc, const SceneSetup *set)
{
    if (set->chunks < 1 || !set->algo->pipelined || set->count)
        return;
    pc->segment = pc->count * dtype_size(pc->dtype);
    pc->count *= (size_t)set->chunks;
}

/* ------------------------------------------------------------ life */

/* Everything but the executor. */
static void free_parts(Scene *sc)
{
    sim_fini(&sc->sim);
    sched_fini(&sc->sched);
    sched_fini(&sc->big_sched);
    check_fini(&sc->check);
    for (int b = 0; b < BUF_COUNT; b++)
        free(sc->written[b]);
    free(sc->stats);
    free(sc->link_bytes);
    free(sc->link_msgs);
    free(sc->link_order);
    free(sc->flow_at);
    free(sc->flow_lock);
}

void scene_free(Scene *sc)
{
    if (!sc)
        return;
    if (sc->ex)
        sc->backend->close(sc->ex);
    free_parts(sc);
    free(sc);
}

/* The symbolic state and the arrays sized by it. */
static CvError alloc_state(Scene *sc)
{
    CvError e = sim_init(&sc->sim, &sc->sched);
    if (!e)
        e = check_init(&sc->check, &sc->sim);
    for (int b = 0; !e && b < BUF_COUNT; b++)
        if (!(sc->written[b] = calloc(sc->sim.base[b][sc->call.nranks] + 1, 1)))
            e = CV_ERR_NOMEM;
    if (!e && !(sc->stats = calloc((size_t)sc->call.nranks, sizeof *sc->stats)))
        e = CV_ERR_NOMEM;
    return e;
}

/* s ended as a sentence: a full stop unless it has one ('.', or the
 * Chinese one a translation ends with). */
static void end_sentence(char *s, size_t len)
{
    static const char zh_stop[] = "\xe3\x80\x82"; /* U+3002 */
    size_t n = strlen(s), k = sizeof zh_stop - 1;
    if ((n && s[n - 1] == '.') || (n >= k && !strcmp(s + n - k, zh_stop)))
        return;
    if (n + 1 < len)
        s[n] = '.', s[n + 1] = '\0';
}

/* Whether the collective defines the call (coll_check), or the scene
 * layer's sentence that refuses it, in the language in use: the scene
 * then stays as it was (the in-place key, the collective and rank menus
 * come here through scene_remake). */
static CvError check_call(const CollCall *c, char *why, size_t whylen)
{
    CvError e = scene_opts_call_why(c, words_sentence, why, whylen);
    if (e)
        end_sentence(why, whylen);
    return e;
}

/* Generate the picture's and the measured size's schedules. */
static CvError make_schedules(Scene *sc, const SceneSetup *set, char *why,
                              size_t whylen)
{
    const CollCall *call = &set->call;
    CvError ce = check_call(call, why, whylen);
    if (ce)
        return ce;
    CollCall pc = *call, bc = *call;
    int parts = set->algo->parts > 1 ? set->algo->parts : 1;
    pc.count = set->count ? set->count
                          : scene_picture_count(call->kind, call->nranks,
                                                parts * set->cells);
    bc.count = coll_count_floor(call, set->bytes);
    if (algo_file_text(set->algo)) { /* the counts its parts divide */
        const SchedText *ft = algo_file_text(set->algo);
        pc.count = set->count ? set->count
                   : algo_file_count(set->algo, (ft->parts ? ft->parts : 1) *
                                                    (size_t)set->cells);
        bc.count = algo_file_count(set->algo, bc.count);
    }
    picture_chunks(&pc, set);
    char fit[160] = "";
    CvError e = algo_generate_on(set->algo, &pc, &sc->machine.mach, &sc->sched, fit,
                                 sizeof fit);
    if (!e)
        e = algo_generate_on(set->algo, &bc, &sc->machine.mach, &sc->big_sched,
                             NULL, 0);
    char said[sizeof fit];
    words_reason(fit, said, sizeof said);
    if (e == CV_ERR_ALGO && fit[0])
        snprintf(why, whylen, _("%s is not made for this machine: %s."),
                 set->algo->name, said);
    else if (e)
        snprintf(why, whylen, "%s %s on %d ranks cannot be built: %s.",
                 set->algo->name, coll_name(call->kind), call->nranks,
                 words_error(e));
    return e;
}

/* An executor of ops with its options for p ranks: have's when it fits. */
static CvError open_executor(const Scene *have, const ExecOps *ops,
                             const char *params, int p, Executor **ex,
                             char *why, size_t whylen)
{
    if (have && have->ex && have->backend == ops &&
        have->backend_params == params && have->ex->nranks == p) {
        *ex = have->ex;
        return CV_OK;
    }
    ExecOptions opt = {.params = params};
    why[0] = '\0';
    CvError e = ops->open(ex, p, &opt, why, whylen);
    if (e && !why[0])
        snprintf(why, whylen, "The %s backend cannot start %d ranks: %s.",
                 ops->name, p, words_error(e));
    return e;
}

/* Load the picture's schedule on the executor; a failure leaves the scene
 * without one (it runs symbolically) and says why. */
static void load_executor(Scene *sc, char *why, size_t whylen)
{
    if (!sc->ex || !sc->backend->load(sc->ex, &sc->sched))
        return;
    snprintf(why, whylen, "The %s backend failed: %s", sc->backend->name,
             sc->backend->last_error(sc->ex));
    sc->backend->close(sc->ex);
    sc->ex = NULL;
}

/* ------------------------------------------------------------ the model */

const PredSplit *scene_split(const Scene *sc, size_t k)
{
    if (k == PREDICTOR_WHOLE)
        return sc->split_whole_ok ? &sc->split_whole : NULL;
    size_t shown;
    return sc->pred_step_s.valid && scene_shown(sc, &shown) && shown == k
               ? &sc->split_step
               : NULL;
}

double scene_ahead(const Scene *sc, int r, size_t k)
{
    size_t p = (size_t)sc->call.nranks;
    if (!sc->flow_at || k == 0 || k >= sc->big_sched.nsteps)
        return 0;
    double lock = sc->flow_lock[k - 1];
    double lead = lock - sc->flow_at[(k - 1) * p + (size_t)r];
    return lead > 1e-9 * lock ? lead : 0; /* more than rounding */
}

/* The data-flow clocks of big_sched for the timeline (flow_at), where
 * data-flow prices it and its steps are the picture's. */
static void flow_clocks(Scene *sc)
{
    const Schedule *s = &sc->big_sched;
    PricingMode by = PRICING_LOCKSTEP;
    free(sc->flow_at);
    free(sc->flow_lock);
    sc->flow_at = sc->flow_lock = NULL;
    if (sc->model.pricing != PRICING_DATAFLOW || !sc->big_ok ||
        !s->nsteps)
        return;
    sc->flow_at = calloc(s->nsteps * (size_t)sc->call.nranks,
                         sizeof *sc->flow_at);
    sc->flow_lock = calloc(s->nsteps, sizeof *sc->flow_lock);
    if (!sc->flow_at || !sc->flow_lock ||
        predictor_clocks(&sc->model, s, sc->flow_at, sc->flow_lock, &by) ||
        by != PRICING_DATAFLOW) {
        free(sc->flow_at);
        free(sc->flow_lock);
        sc->flow_at = sc->flow_lock = NULL;
    }
}

/* The whole schedule's predictions, for the views to read. */
static void predict_whole(Scene *sc)
{
    sc->pred_total_s = predictor_total(&sc->model, &sc->big_sched);
    sc->split_whole_ok = !predictor_split(&sc->model, &sc->big_sched,
                                          PREDICTOR_WHOLE, &sc->split_whole);
    sc->params = predictor_params(&sc->model, &sc->big_sched);
    flow_clocks(sc);
}

/* The model (the backend's calibration of this machine for these ranks
 * when one is saved, else the defaults: predictor.h) and the whole
 * prediction. */
static void model(Scene *sc)
{
    Calib c;
    char why[CV_WHY_LEN];
    const char *name = sc->backend ? sc->backend->name : "threads";
    /* a calibration is this machine's: the executor says which machine */
    ExecHost host = sc->ex ? exec_host(sc->ex) : (ExecHost){.cores = 0};
    PricingMode pricing = sc->model.pricing; /* the scene's, kept */
    if (sc->ex && calib_load(name, host.fingerprint, sc->call.nranks, &c, why,
                             sizeof why) == CV_OK) {
        calib_straggler(&c, &host.slowed); /* this run's */
        predictor_calibrated(&sc->model, &c);
    }
    else
        predictor_defaults(&sc->model);
    sc->model.pricing = pricing;
    predictor_machine(&sc->model,
                      sc->machine.spec[0] ? &sc->machine.mach : NULL);
    predict_whole(sc);
}

/* The machine of set->machine for p ranks (a shape made to hold them,
 * said in why; given "": full), parsed only when the setup's is not built
 * for p ranks already. */
static CvError choose_machine(Scene *sc, const SceneSetup *set, int p,
                              char *why, size_t whylen)
{
    SpecModel cm;
    CliErr e;
    spec_parse_model(NULL, NULL, NULL, NULL, &cm, &e);
    sc->machine = set->machine;
    if (spec_machine_build(&sc->machine, p, true, &cm, &e)) {
        snprintf(why, whylen, "%s", e.msg);
        return CV_ERR_ARG;
    }
    if (!sc->machine.given[0])
        return CV_OK;
    if (strcmp(sc->machine.spec, sc->machine.given))
        snprintf(why, whylen, _("The machine %s does not hold %d ranks: %s "
                 "instead."), sc->machine.given, p, sc->machine.spec);
    int n = sc->machine.mach.nlinks;
    sc->link_bytes = calloc((size_t)n + 1, sizeof *sc->link_bytes);
    sc->link_msgs = calloc((size_t)n + 1, sizeof *sc->link_msgs);
    sc->link_order = calloc((size_t)n + 1, sizeof *sc->link_order);
    return sc->link_bytes && sc->link_msgs && sc->link_order ? CV_OK
                                                             : CV_ERR_NOMEM;
}

/* The loaded links (bytes > 0) of the shown step into link_order, most
 * bytes first, ties in link order after the busiest link (link_busiest,
 * the one the topology's footer names; an insertion sort: a step touches
 * few links). */
static void order_links(Scene *sc, const Pricer *pr)
{
    int n = 0;
    for (int i = 0; i < pr->ntouched; i++) {
        int l = pr->touched[i], j = n++;
        if (!(sc->link_bytes[l] > 0)) {
            n--;
            continue;
        }
        for (; j > 0; j--) {
            int o = sc->link_order[j - 1];
            double bo = sc->link_bytes[o], bl = sc->link_bytes[l];
            bool before = o == sc->link_busiest ||
                          (l != sc->link_busiest && o < l);
            if (bo > bl || (bo == bl && before))
                break;
            sc->link_order[j] = o;
        }
        sc->link_order[j] = l;
    }
    sc->link_nloaded = n;
}

/* The shown step's link loads on a what-if machine (count_bytes has
 * cleared the last step's), of schedule s. */
static void price_links(Scene *sc, const Schedule *s, size_t k)
{
    Pricer pr;
    StepPrice sp;
    if (!sc->link_bytes || pricer_init(&pr, &sc->machine.mach))
        return;
    sc->link_picture = s == &sc->sched;
    if (!price_step(&pr, s, k, false, &sp)) {
        for (int i = 0; i < pr.ntouched; i++) {
            int l = pr.touched[i];
            sc->link_bytes[l] = pr.bytes[l];
            sc->link_msgs[l] = pr.msgs[l];
        }
        sc->link_busiest = sp.busiest;
        order_links(sc, &pr);
        sc->link_busy_share = sp.time > 0 ? sp.busiest_time / sp.time : 0;
    }
    pricer_fini(&pr);
}

static void count_bytes(Scene *sc);

void scene_use_calib(Scene *sc, const Calib *c)
{
    predictor_calibrated(&sc->model, c);
    predict_whole(sc);
    count_bytes(sc);
}

/* ------------------------------------------------------------ building */

static CvError seek(Scene *sc, size_t k, char *why, size_t whylen);

/* Build sc from set (taking old's executor when it fits), at step 0. */
static CvError build(Scene *sc, const SceneSetup *set, Scene *old,
                     char *why, size_t whylen)
{
    int p = set->call.nranks;
    if (p < 1 || p > SCENE_MAX_RANKS) {
        snprintf(why, whylen, "The picture shows 1 to %d ranks; 'collviz "
                 "trace' prints schedules of up to %d.", SCENE_MAX_RANKS,
                 COLL_MAX_RANKS);
        return CV_ERR_RANKS;
    }
    Executor *ex = NULL;
    char note[600] = ""; /* a machine's shape made to hold the ranks */
    CvError e = choose_machine(sc, set, p, note, sizeof note);
    if (e) {
        snprintf(why, whylen, "%s", note);
        return e;
    }
    e = make_schedules(sc, set, why, whylen);
    if (!e && set->backend &&
        !(e = open_executor(old, set->backend, set->backend_params, p, &ex,
                            why, whylen))) {
        sc->ex = ex;
        sc->backend = set->backend;
        sc->backend_params = set->backend_params;
    }
    if (e)
        return e;
    sc->call = set->call;
    sc->call.count = sc->sched.call.count;
    sc->big = sc->big_sched.call;
    sc->algo = set->algo;
    sc->cells = set->cells;
    sc->count = set->count;
    sc->chunks = set->algo->pipelined && !set->count ? set->chunks : 0;
    sc->bytes = set->bytes;
    if ((e = alloc_state(sc))) {
        snprintf(why, whylen, "The scene needs more memory than there is.");
        return e;
    }
    if (old && old->ex == sc->ex)
        old->ex = NULL; /* ours now */
    sc->big_ok = sc->big_sched.nsteps == sc->sched.nsteps;
    sched_totals(&sc->big_sched, &sc->totals, NULL, NULL);
    sc->model.pricing = set->pricing;
    load_executor(sc, why, whylen);
    model(sc);
    e = seek(sc, 0, why, whylen);
    if (!e && !why[0])
        snprintf(why, whylen, "%s", note);
    return e;
}

/* Build a scene; on failure free it (but not old's executor). */
static Scene *make(const SceneSetup *set, Scene *old, CvError *err,
                   char *why, size_t whylen)
{
    Scene *sc = calloc(1, sizeof *sc);
    why[0] = '\0';
    *err = sc ? build(sc, set, old, why, whylen) : CV_ERR_NOMEM;
    if (!sc)
        snprintf(why, whylen, "The scene needs more memory than there is.");
    if (sc && *err && !sc->broken) {
        if (old && sc->ex == old->ex)
            sc->ex = NULL;
        scene_free(sc);
        return NULL;
    }
    return sc;
}

CvError scene_new(Scene **out, const SceneSetup *set, char *why,
                  size_t whylen)
{
    CvError e;
    *out = make(set, NULL, &e, why, whylen);
    if (*out && (*out)->broken) { /* a new scene has no one to stop */
        scene_free(*out);
        *out = NULL;
    }
    return e;
}

CvError scene_remake(Scene **sc, const SceneSetup *set, char *why,
                     size_t whylen)
{
    CvError e;
    Scene *n = make(set, *sc, &e, why, whylen);
    if (!n)
        return e;
    scene_free(*sc);
    *sc = n;
    return CV_OK;
}

void scene_setup(const Scene *sc, SceneSetup *out)
{
    *out = (SceneSetup){.call = sc->call, .algo = sc->algo,
                        .bytes = sc->bytes, .cells = sc->cells,
                        .count = sc->count, .chunks = sc->chunks,
                        .backend = sc->backend,
                        .backend_params = sc->backend_params,
                        .pricing = sc->model.pricing};
    out->machine = sc->machine; /* built: the same ranks parse nothing */
    strcpy(out->machine.given, sc->machine.spec);
}

CvError scene_set_backend(Scene *sc, const ExecOps *ops, char *why,
                          size_t whylen)
{
    Executor *ex = NULL;
    /* -B's options belong to the backend they were given for */
    const char *params = ops == sc->backend ? sc->backend_params : NULL;
    CvError e = open_executor(sc, ops, params, sc->call.nranks, &ex, why,
                              whylen);
    if (e)
        return e;
    if (sc->ex && sc->ex != ex)
        sc->backend->close(sc->ex);
    sc->ex = ex;
    sc->backend = ops;
    sc->backend_params = params;
    why[0] = '\0';
    load_executor(sc, why, whylen);
    model(sc);
    return seek(sc, sc->step, why, whylen);
}

/* ------------------------------------------------------------ reading */

bool scene_buf_shown(const Scene *sc, BufId b)
{
    for (int r = 0; r < sc->call.nranks; r++)
        if (scene_buf_cells(sc, r, b))
            return true;
    return false;
}

double scene_real_value(const Scene *sc, int r, BufId b, size_t i)
{
    return check_real(&sc->check, &sc->sim, r, b, i);
}

double scene_expected(const Scene *sc, int r, BufId b, size_t i)
{
    return check_want(&sc->sim, sc->step, r, b, i);
}

/* ------------------------------------------------------------ stepping */

/* Which elements the shown step wrote, and how (1 + XferOp). */
static void mark_written(Scene *sc)
{
    for (int b = 0; b < BUF_COUNT; b++)
        memset(sc->written[b], 0, sc->sim.base[b][sc->call.nranks]);
    size_t k;
    if (!scene_shown(sc, &k))
        return;
    const Step *st = &sc->sched.steps[k];
    for (size_t x = st->first; x < st->first + st->n; x++) {
        const Transfer *t = &sc->sched.xfers[x];
        uint8_t *w = sc->written[t->dst_buf] +
                     sc->sim.base[t->dst_buf][t->dst] + t->dst_off;
        memset(w, 1 + t->op, t->count);
    }
}

/* The largest bytes one rank sent and received in the shown step and in
 * all steps up to it (stats[] of the shown step). */
static void max_bytes(Scene *sc, size_t k)
{
    int p = sc->call.nranks;
    size_t *acc = calloc(2 * (size_t)p, sizeof *acc);
    for (size_t s = 0; acc && s <= k; s++) {
        sched_step_stats(&sc->big_sched, s, sc->stats);
        for (int r = 0; r < p; r++) {
            acc[r] += sc->stats[r].sent;
            acc[p + r] += sc->stats[r].recvd;
        }
    }
    for (int r = 0; r < p && acc; r++) {
        if (sc->stats[r].sent > sc->step_sent)
            sc->step_sent = sc->stats[r].sent;
        if (sc->stats[r].recvd > sc->step_recvd)
            sc->step_recvd = sc->stats[r].recvd;
        if (acc[r] > sc->sofar_sent)
            sc->sofar_sent = acc[r];
        if (acc[p + r] > sc->sofar_recvd)
            sc->sofar_recvd = acc[p + r];
    }
    free(acc);
}

/* Byte counters and the model's step time for the shown step. */
static void count_bytes(Scene *sc)
{
    size_t k;
    sc->step_sent = sc->step_recvd = 0;
    sc->sofar_sent = sc->sofar_recvd = 0;
    sc->pred_step_s.valid = false;
    sc->link_busiest = -1;
    sc->link_busy_share = 0;
    sc->link_nloaded = 0;
    if (sc->link_bytes) {
        memset(sc->link_bytes, 0, (size_t)sc->machine.mach.nlinks * sizeof *sc->link_bytes);
        memset(sc->link_msgs, 0, (size_t)sc->machine.mach.nlinks * sizeof *sc->link_msgs);
    }
    if (!scene_shown(sc, &k))
        return;
    if (!sc->big_ok) { /* the pattern of the picture's step, at its size */
        price_links(sc, &sc->sched, k);
        return;
    }
    max_bytes(sc, k);
    price_links(sc, &sc->big_sched, k);
    bool ok = !predictor_split(&sc->model, &sc->big_sched, k, &sc->split_step);
    sc->pred_step_s = (Value){ok ? sc->split_step.time : 0, ok};
}

/* Execute steps until sc->step == k on the sim and the executor. The
 * symbolic executor's findings stay in sim.err (the header shows them);
 * only a backend error is returned. */
static CvError advance(Scene *sc, size_t k)
{
    const ExecOps *ops = sc->backend;
    CvError e = CV_OK;
    while (sc->step < k && !e) {
        sim_step(&sc->sim);
        if (sc->sim.next_step != sc->step + 1)
            break; /* a transfer out of bounds: the schedule stops here */
        if (sc->ex && (e = ops->step(sc->ex, sc->step)))
            break;
        sc->step++;
        if (sc->ex && sc->step == sc->sched.nsteps)
            e = ops->finish(sc->ex);
    }
    return e;
}

/* Restart from the initial state on both executors. */
static CvError rewind_all(Scene *sc)
{
    sim_reset(&sc->sim);
    sc->step = 0;
    return sc->ex ? sc->backend->reset(sc->ex) : CV_OK;
}

/* A backend failure while stepping breaks the scene. */
static CvError backend_failed(Scene *sc, CvError e, char *why, size_t whylen)
{
    const char *w = sc->ex ? sc->backend->last_error(sc->ex) : "";
    snprintf(why, whylen, "The %s backend failed: %s",
             sc->backend ? sc->backend->name : "?",
             w && *w ? w : words_error(e));
    sc->broken = true;
    return e;
}

static CvError seek(Scene *sc, size_t k, char *why, size_t whylen)
{
    double t0 = now();
    size_t from = sc->step;
    if (k > sc->sched.nsteps)
        k = sc->sched.nsteps;
    CvError e = CV_OK;
    if (k < sc->step || k == 0)
        e = rewind_all(sc);
    if (!e)
        e = advance(sc, k);
    sc->check.real_ok = false;
    if (!e && sc->ex)
        e = check_read_back(&sc->check, &sc->sim, sc->backend, sc->ex);
    if (e)
        return backend_failed(sc, e, why, whylen);
    check_compare(&sc->check, &sc->sim, sc->step, from);
    mark_written(sc);
    count_bytes(sc);
    sc->last_step_ms = (now() - t0) * 1e3;
    return CV_OK;
}

CvError scene_seek(Scene *sc, size_t k, char *why, size_t whylen)
{
    why[0] = '\0';
    return seek(sc, k, why, whylen);
}

CvError scene_step(Scene *sc, int delta, char *why, size_t whylen)
{
    size_t k = sc->step;
    if (delta < 0)
        k = (size_t)-delta > k ? 0 : k - (size_t)-delta;
    else
        k += (size_t)delta;
    return scene_seek(sc, k, why, whylen);
}
