/* test_ui_pricing.c - one pricing rule for every view: for the same scene
 * on the same machine, `collviz trace --json` (its model total), `collviz
 * model` (the algorithm's column), a lesson's `time` query and the TUI's
 * predictor (its whole and the sum of its steps; in data-flow its whole
 * is the core's data-flow price) give the same time, over
 * every collective and algorithm, rank counts 2 to 16 and sizes the rank
 * count does not divide; trace and model also on a torus, on nodes and
 * on the memory machines (-T). Each value is compared with the core's price of the schedule,
 * whose own correctness test_machine.c checks by hand. */
#include "cli_fixture.h"
#include "sanitizer.h"

#include "scene/spec.h"
#include "scene/scene_opts.h"
#include "lesson/query.h"
#include "scene/predictor.h"

/* The model total of `trace ... --json` in seconds. */
static double trace_time(const char *args)
{
    Out o;
    runf(&o, "trace %s --json", args);
    if (o.rc)
        fail_msg("trace %s: rc %d %s", args, o.rc, o.err);
    const char *tot = strstr(o.out, "\"totals\"");
    assert_non_null(tot);
    const char *m = strstr(tot, "\"model\"");
    assert_non_null(m);
    const char *t = strstr(m, "\"time\":");
    assert_non_null(t);
    double v = strtod(t + 7, NULL);
    out_free(&o);
    return v;
}

/* The time of algorithm `algo` in the one row of `model ... -b S -e S`,
 * in seconds. */
static double model_time(const char *coll, const char *algo, int p,
                         unsigned long long bytes, const char *topo)
{
    Out o;
    runf(&o, "model %s -p %d -b %llu -e %llu%s%s", coll, p, bytes, bytes,
         topo ? " -T " : "", topo ? topo : "");
    if (o.rc)
        fail_msg("model: rc %d %s", o.rc, o.err);
    /* the column header line names the algorithms in order */
    const char *h = strstr(o.out, "\n#         size");
    assert_non_null(h);
    const char *row = strchr(h + 1, '\n') + 1;
    int col = -1, i = 0;
    char name[64];
    const char *c = h + 1 + strlen("#         size        count");
    for (int used; sscanf(c, "%63s%n", name, &used) == 1 && *c != '\n'; c += used, i++) {
        if (!strcmp(name, algo))
            col = i;
        if (strchr(c, '\n') < c + used)
            break;
    }
    assert_true(col >= 0);
    char *end;
    strtoull(row, &end, 10);
    strtoull(end, &end, 10);
    double v = 0;
    for (int k = 0; k <= col; k++)
        v = strtod(end, &end), end += *end == '*';
    out_free(&o);
    return v * 1e-6;
}

static void near(double got, double want, double tol, const char *what,
                 const char *scene)
{
    if (!(fabs(got - want) <= tol + 1e-9 * fabs(want)))
        fail_msg("%s prices %s at %.9g s, the core at %.9g s", what, scene,
                 got, want);
}

/* A lesson's time query on scene sc (its line `line`) and the TUI's
 * predictor pr (its whole and the sum of its steps) on schedule s give
 * `want` seconds. */
static void query_and_tui(SceneSpec *sc, const char *line, Predictor *pr,
                          const Schedule *s, double want)
{
    QueryValue v;
    char why[256];
    assert_int_equal(query_eval("time", sc, line, &v, why, sizeof why), 0);
    near(v.num * 1e-6, want, 0.005e-6, "the time query", line);
    Value whole = predictor_total(pr, s);
    assert_true(whole.valid);
    near(whole.v, want, 1e-15, "the TUI's whole", line);
    double steps = 0;
    for (size_t k = 0; k < s->nsteps; k++) {
        Value st = predictor_step(pr, s, k);
        assert_true(st.valid);
        steps += st.v;
    }
    near(steps, want, 1e-12 * want, "the sum of the TUI's steps", line);
}

/* One scene: every view against the core's price on `full`. */
static void check_scene(const AlgoInfo *a, int p, unsigned long long bytes)
{
    char line[160];
    snprintf(line, sizeof line, "%s -a %s -p %d -s %llu", coll_name(a->coll),
             a->name, p, bytes);
    SceneSpec sc;
    CliErr e;
    if (scene_opts_parse_line(line, &scene_limits_trace, &sc, &e))
        return; /* a size that holds no whole block, say */
    Schedule s;
    assert_int_equal(algo_generate(a, &sc.call, &s), CV_OK);
    Machine m;
    ModelParams mp = {SPEC_DEFAULT_ALPHA, 1 / SPEC_DEFAULT_BW,
                      1 / SPEC_DEFAULT_GAMMA_BW};
    assert_int_equal(machine_full(&m, p, mp.alpha, mp.beta, mp.gamma), CV_OK);
    CostTerms t;
    double want;
    assert_int_equal(model_machine_cost(&s, &m, false, &t, &want), CV_OK);

    near(trace_time(line), want, 1e-15, "trace", line);
    near(model_time(coll_name(a->coll), a->name, p, bytes, NULL), want,
         0.0005e-6, "model", line);
    Predictor pr;
    predictor_defaults(&pr);
    query_and_tui(&sc, line, &pr, &s, want);
    /* in data-flow (the TUI's key D) its whole is the core's data-flow
       price, its steps still lock-step's */
    Pricer fp;
    double flow = -1;
    assert_int_equal(pricer_init(&fp, &m), CV_OK);
    fp.mode = PRICING_DATAFLOW;
    assert_int_equal(pricer_cost(&fp, &s, false, &t, &flow), CV_OK);
    assert_int_equal(fp.priced, PRICING_DATAFLOW);
    pricer_fini(&fp);
    pr.pricing = PRICING_DATAFLOW;
    Value whole = predictor_total(&pr, &s);
    assert_true(whole.valid);
    near(whole.v, flow, 1e-15, "the TUI's data-flow whole", line);
    double steps = 0;
    for (size_t k = 0; k < s.nsteps; k++)
        steps += predictor_step(&pr, &s, k).v;
    near(steps, want, 1e-12 * want, "the sum of the data-flow TUI's steps",
         line);
    sched_fini(&s);
}

/* Blocks in a size of the nccl-tests meaning. */
static unsigned long long blocks(CollKind k, int p)
{
    return k == COLL_BROADCAST || k == COLL_REDUCE || k == COLL_ALLREDUCE
               ? 1 : (unsigned long long)p;
}

/* Under AddressSanitizer, whose binary costs a tenth of a second a run,
 * the sweeps take a sample of the same code paths: rank counts 5 and 16,
 * and each machine a third of the algorithms (rotating). */
#ifdef UNDER_ASAN
static const int ps[] = {5, 16};
#define TAKES(i, k) ((i) % 3 == (k) % 3)
#else
/* 11: recursive doubling's allgather is cheaper in data-flow there */
static const int ps[] = {2, 5, 8, 11, 13, 16};
#define TAKES(i, k) ((void)(i), (void)(k), 1)
#endif

static void test_every_view_on_full(void **state)
{
    (void)state;
    for (size_t i = 0; i < algo_count(); i++)
        for (size_t j = 0; j < sizeof ps / sizeof *ps && !algo_at(i)->fits;
             j++) { /* fits: not on full */
            int p = ps[j];
            /* one element per block, and 97 (no p divides it) */
            check_scene(algo_at(i), p, 4 * blocks(algo_at(i)->coll, p));
            check_scene(algo_at(i), p, 97 * 4 * blocks(algo_at(i)->coll, p));
        }
}

/* The TUI's predictor (its whole and the sum of its steps) and a
 * lesson's time query on the memory machine of scene line `line` give
 * trace's time t. */
static void views_on_memory(const char *line, double t)
{
    SceneSpec sc;
    CliErr e;
    if (scene_opts_parse_line(line, &scene_limits_trace, &sc, &e))
        fail_msg("%s: %s", line, e.msg);
    Schedule s;
    assert_int_equal(algo_generate_on(sc.algo, &sc.call, &sc.machine.mach, &s,
                                      NULL, 0), CV_OK);
    Predictor pr;
    predictor_defaults(&pr);
    predictor_machine(&pr, &sc.machine.mach);
    query_and_tui(&sc, line, &pr, &s, t);
    sched_fini(&s);
}

/* trace and model on machines given with -T; on the memory machines
 * also the TUI and a lesson's query. */
static void test_trace_and_model_on_machines(void **state)
{
    (void)state;
    static const char *const topos[] = {"torus:4x4,y.bw=2.5", "nodes:2x8",
                                        "mesh:2x8,lat=200ns",
                                        "switch,reduce", "bus,port.bw=1",
                                        "ring,lat=10us",
                                        "nodes:2x8,place=cyclic,nic=shared",
                                        "gpu", "host,cache=4K,cachebw=200"};
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        if (a->fits)
            continue; /* made for some machines: test_algos_torus */
        for (size_t k = 0; k < sizeof topos / sizeof *topos; k++) {
            bool mem = !strncmp(topos[k], "gpu", 3) ||
                       !strncmp(topos[k], "host", 4);
            /* the two memory machines price alike: each algorithm on one
               of them, in turn */
            if (!TAKES(i, k) || (mem && i % 2 != k % 2))
                continue;
            char args[256];
            unsigned long long bytes = 97 * 4 * blocks(a->coll, 16);
            snprintf(args, sizeof args, "%s -a %s -p 16 -s %llu -T %s",
                     coll_name(a->coll), a->name, bytes, topos[k]);
            double t = trace_time(args);
            near(model_time(coll_name(a->coll), a->name, 16, bytes, topos[k]),
                 t, 0.0005e-6, "model -T", args);
            if (mem)
                views_on_memory(args, t);
        }
    }
}

/* perf's model line with -T: each algorithm's out-of-place model_us in
 * `perf --json` against the core's price of its schedule there (perf
 * runs written-out schedules, whose copy-ins a memory machine prices as
 * the backends fuse them). */
static void perf_column(const char *topo, const char *named)
{
    const char *path = "/tmp/collviz-test-pricing.json";
    Out o;
    runf(&o, "perf allreduce -a all -p 4 -b 4K -e 4K -n 2 -w 1 -T %s "
         "--json %s", topo, path);
    if (o.rc)
        fail_msg("perf: rc %d %s", o.rc, o.err);
    out_free(&o);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *json = slurp(f); /* closes f */
    remove(path);
    assert_non_null(strstr(json, named));
    Machine m;
    SpecModel cm;
    CliErr e;
    assert_int_equal(spec_parse_model(NULL, NULL, NULL, NULL, &cm, &e), 0);
    assert_int_equal(spec_parse(topo, 4, &cm, &m, &e), 0);
    int seen = 0;
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        if (a->fits)
            continue; /* made for some machines: test_algos_torus */
        if (a->coll != COLL_ALLREDUCE)
            continue;
        char key[96];
        snprintf(key, sizeof key, "\"algorithm\": \"%s\"", a->name);
        const char *row = strstr(json, key);
        assert_non_null(row);
        const char *mu = strstr(row, "\"model_us\": {\"full\": ");
        assert_non_null(mu);
        double got = strtod(mu + strlen("\"model_us\": {\"full\": "), NULL);
        CollCall c = {.kind = COLL_ALLREDUCE, .nranks = 4, .count = 1024,
                      .dtype = DT_FLOAT, .op = OP_SUM};
        Schedule s;
        CostTerms t;
        double want;
        assert_int_equal(algo_generate(a, &c, &s), CV_OK);
        assert_int_equal(model_machine_cost(&s, &m, false, &t, &want), CV_OK);
        sched_fini(&s);
        near(got * 1e-6, want, 0.00005e-6 + 1e-4 * want, "perf -T", a->name);
        seen++;
    }
    assert_true(seen >= 5);
    free(json);
}

static void test_perf_model_column(void **state)
{
    (void)state;
    perf_column("torus:2x2,y.bw=2.5", "\"machine\": \"torus 2x2");
    perf_column("gpu", "\"machine\": \"gpu 4");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_view_on_full),
        cmocka_unit_test(test_trace_and_model_on_machines),
        cmocka_unit_test(test_perf_model_column),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
