/* test_ui_app.c - the App: stepping every algorithm for real on the threads
 * backend with the real buffers checked against the symbolic state after
 * every step, stepping back restoring the exact state, counters against
 * the schedule, menus, selection, play, and a failing or missing backend. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene_opts.h"
#include "ui/app.h"
#include "ui/keys.h"
#include "ui/scene.h"

#include "call_fixture.h"
#include "test_ui_fakes.h"

static int setup(void **state)
{
    /* no calibration from this machine's cache: predictions use defaults */
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
    return 0;
}

static void open_app(App *app, CollKind k, const char *algo, int p,
                     bool in_place)
{
    AppOptions o = app_options(k, algo, p, true);
    char why[200] = "";
    o.in_place = in_place;
    o.root = coll_is_rooted(k) ? p - 1 : 0;
    CvError e = app_init(app, &o, why, sizeof why);
    if (e)
        print_error("%s %s p=%d: %s\n", coll_name(k), algo, p, why);
    assert_int_equal(e, CV_OK);
}

static void act(App *app, Action a)
{
    Request r = {.act = a};
    app_apply(app, &r);
}

/* The App's scene remade for call c (as a test's shortcut past menus). */
static void remake(App *app, const CollCall *c)
{
    SceneSetup set;
    char why[200];
    scene_setup(app->scene, &set);
    set.call = *c;
    assert_int_equal(scene_remake(&app->scene, &set, why, sizeof why), CV_OK);
}

/* ------------------------------------------------------------ stepping */

/* A copy of everything stepping changes: real bytes and symbolic state. */
typedef struct {
    uint8_t *bytes; /* real[] of every buffer, then sim pos of every buffer */
    size_t n;       /* bytes */
} Snap;

static Snap snap(const App *app)
{
    size_t ts = dtype_size(app->scene->call.dtype), n = 0;
    for (int b = 0; b < BUF_COUNT; b++)
        n += app->scene->sim.base[b][app->scene->call.nranks] * (ts + sizeof(int32_t));
    Snap s = {malloc(n + 1), n};
    size_t at = 0;
    for (int b = 0; b < BUF_COUNT; b++) {
        size_t e = app->scene->sim.base[b][app->scene->call.nranks];
        memcpy(s.bytes + at, app->scene->check.real[b], e * ts);
        at += e * ts;
        for (int r = 0; r < app->scene->call.nranks; r++)
            for (size_t i = 0; i < scene_buf_cells(app->scene, r, (BufId)b); i++) {
                int32_t pos = sim_pos(&app->scene->sim, r, (BufId)b, i);
                memcpy(s.bytes + at, &pos, sizeof pos);
                at += sizeof pos;
            }
    }
    return s;
}

/* Forward through every step (real = symbolic after each), then back one
 * step at a time: every state is restored exactly. */
static void step_there_and_back(const AlgoInfo *a, int p, bool in_place)
{
    if (!call_defined(a->coll, p, in_place))
        return; /* no such call (call_fixture.h) */
    App app;
    open_app(&app, a->coll, a->name, p, in_place);
    size_t n = app.scene->sched.nsteps;
    Snap *fwd = calloc(n + 1, sizeof *fwd);
    for (size_t k = 0; k <= n; k++) {
        if (k)
            act(&app, ACT_NEXT);
        assert_int_equal(app.scene->step, k);
        assert_true(app.scene->check.real_ok);
        if (app.scene->check.nwrong)
            print_error("%s %s p=%d step %zu: %zu wrong\n", coll_name(a->coll),
                        a->name, p, k, app.scene->check.nwrong);
        assert_int_equal(app.scene->check.nwrong, 0);
        fwd[k] = snap(&app);
    }
    assert_int_equal(app.scene->sim.err, CV_OK);
    for (size_t k = n + 1; k-- > 0;) {
        if (k < n)
            act(&app, ACT_PREV);
        assert_int_equal(app.scene->step, k);
        Snap s = snap(&app);
        assert_int_equal(s.n, fwd[k].n);
        assert_memory_equal(s.bytes, fwd[k].bytes, s.n);
        assert_int_equal(app.scene->check.nwrong, 0);
        free(s.bytes);
    }
    act(&app, ACT_LAST);
    assert_int_equal(app.scene->step, n);
    Snap s = snap(&app);
    assert_memory_equal(s.bytes, fwd[n].bytes, s.n);
    free(s.bytes);
    for (size_t k = 0; k <= n; k++)
        free(fwd[k].bytes);
    free(fwd);
    app_fini(&app);
}

static void test_every_algorithm_steps(void **state)
{
    static const int ps[] = {1, 2, 3, 5, 8};
    for (size_t i = 0; i < algo_count(); i++)
        for (size_t j = 0; j < sizeof ps / sizeof ps[0] && !algo_at(i)->fits;
             j++) /* fits: made for some machines, test_ui_machine */
            for (int ip = 0; ip < 2; ip++)
                step_there_and_back(algo_at(i), ps[j], ip);
}

/* Jumps in any order (ACT_SEEK), with avg so that reaching and leaving the
 * end changes the outputs: the state after each jump equals the one
 * reached by stepping, and the real buffers always match. */
static void test_random_seeks(void **state)
{
    unsigned seed = 12345;
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *a = algo_at(i);
        if (a->fits || !call_defined(a->coll, 6, false))
            continue; /* test_algos_torus; no such call */
        App app;
        open_app(&app, a->coll, a->name, 6, false);
        CollCall c = app.scene->call;
        c.op = OP_AVG;
        remake(&app, &c);
        size_t n = app.scene->sched.nsteps;
        Snap *fwd = calloc(n + 1, sizeof *fwd);
        for (size_t k = 0; k <= n; k++) {
            Request r = {.act = ACT_SEEK, .a = (int)k};
            app_apply(&app, &r);
            fwd[k] = snap(&app);
        }
        for (int j = 0; j < 40; j++) {
            seed = seed * 1103515245u + 12345u;
            size_t k = (seed >> 8) % (n + 1);
            Request r = {.act = ACT_SEEK, .a = (int)k};
            app_apply(&app, &r);
            assert_int_equal(app.scene->step, k);
            assert_int_equal(app.scene->check.nwrong, 0);
            Snap s2 = snap(&app);
            assert_memory_equal(s2.bytes, fwd[k].bytes, s2.n);
            free(s2.bytes);
        }
        for (size_t k = 0; k <= n; k++)
            free(fwd[k].bytes);
        free(fwd);
        app_fini(&app);
    }
}

/* Avg's final division and non-float types go through the same check. */
static void test_types_and_ops(void **state)
{
    for (int t = 0; t < DT_COUNT; t++)
        for (int op = 0; op < OP_COUNT; op++) {
            App app;
            open_app(&app, COLL_ALLREDUCE, "ring", 5, false);
            CollCall c = app.scene->call;
            c.dtype = (DataType)t;
            c.op = (RedOp)op;
            remake(&app, &c);
            act(&app, ACT_LAST);
            assert_true(app.scene->check.real_ok);
            assert_int_equal(app.scene->check.nwrong, 0);
            for (int r = 0; r < 5; r++)
                for (size_t e = 0; e < scene_buf_cells(app.scene, r, BUF_RECV); e++)
                    assert_true(scene_real_value(app.scene, r, BUF_RECV, e) ==
                                scene_real_value(app.scene, r, BUF_RECV, e));
            app_fini(&app);
        }
}

/* ------------------------------------------------------------ counters */

static void test_counters_match_schedule(void **state)
{
    static const int ps[] = {2, 5, 8, 16};
    for (size_t i = 0; i < algo_count(); i++)
        for (size_t j = 0; j < 4 && !algo_at(i)->fits; j++) {
            if (!call_defined(algo_at(i)->coll, ps[j], false))
                continue; /* hypercube on 5 ranks: no such call */
            App app;
            open_app(&app, algo_at(i)->coll, algo_at(i)->name, ps[j], false);
            if (!app.scene->big_ok) { /* pipelines: steps depend on the size */
                act(&app, ACT_LAST);
                assert_int_not_equal(app.scene->sched.nsteps, app.scene->big_sched.nsteps);
                assert_int_equal(app.scene->step_sent, 0);
                assert_false(app.scene->pred_step_s.valid);
                app_fini(&app);
                continue;
            }
            RankStepStats *st = calloc((size_t)ps[j], sizeof *st);
            for (size_t k = 0; k < app.scene->sched.nsteps; k++) {
                act(&app, ACT_NEXT);
                sched_step_stats(&app.scene->big_sched, k, st);
                size_t ms = 0, mr = 0;
                for (int r = 0; r < ps[j]; r++) {
                    ms = st[r].sent > ms ? st[r].sent : ms;
                    mr = st[r].reduced > mr ? st[r].reduced : mr;
                }
                assert_int_equal(app.scene->step_sent, ms);
                assert_true(app.scene->pred_step_s.valid);
                /* local copies are free, as in trace and model; a step
                   that moves or reduces bytes costs something */
                assert_true((app.scene->pred_step_s.v > 0) ==
                            (ms > 0 || mr > 0));
            }
            assert_int_equal(app.scene->sofar_sent, app.scene->totals.max_sent);
            assert_int_equal(app.scene->sofar_recvd, app.scene->totals.max_recvd);
            CostTerms t;
            const Predictor *m = &app.scene->model;
            model_schedule_cost(&app.scene->big_sched, m->machine, &m->params, &t);
            assert_true(app.scene->pred_total_s.valid);
            /* the terms, as trace and model add them: local copies free */
            double want = cost_time(&t, &m->params);
            assert_true(fabs(app.scene->pred_total_s.v - want) <=
                        1e-12 * want);
            assert_false(m->calibrated);
            assert_false(app.bg.total_s.valid);
            free(st);
            app_fini(&app);
        }
}

/* ------------------------------------------------------------ menus */

static void pick(App *app, Action menu, const char *label)
{
    act(app, menu);
    assert_int_not_equal(app->mode.menu.kind, MENU_NONE);
    for (int i = 0; i < app->mode.menu.n; i++)
        if (!strncmp(app->mode.menu.label[i], label, strlen(label))) {
            Request r = {.act = ACT_MENU_PICK, .a = i};
            app_apply(app, &r);
            assert_int_equal(app->mode.menu.kind, MENU_NONE);
            return;
        }
    fail_msg("no item '%s'", label);
}

/* nccl-tests' sendrecv and hypercube from the collective menu; what they
 * do not define (sendrecv in place, hypercube on 6 ranks) is refused on
 * the status line by the in-place key and the menus, and the scene stays
 * as it was. */
static void test_sendrecv_hypercube_menus(void **state)
{
    App app;
    open_app(&app, COLL_ALLREDUCE, "ring", 8, false);
    pick(&app, ACT_MENU_COLL, "sendrecv");
    assert_int_equal(app.scene->call.kind, COLL_SENDRECV);
    assert_string_equal(app.scene->algo->name, "shift");
    act(&app, ACT_NEXT);
    assert_int_equal(app.scene->step, 1);
    assert_true(app.scene->check.real_ok);
    act(&app, ACT_INPLACE);
    assert_false(app.scene->call.in_place);
    assert_string_equal(app.status.msg, "sendrecv runs out of place only: "
                                        "it sends one buffer into another.");
    pick(&app, ACT_MENU_COLL, "hypercube");
    assert_int_equal(app.scene->call.kind, COLL_HYPERCUBE);
    assert_string_equal(app.scene->algo->name, "doubling");
    act(&app, ACT_INPLACE); /* as allgather's */
    assert_true(app.scene->call.in_place);
    pick(&app, ACT_MENU_RANKS, "6");
    assert_int_equal(app.scene->call.nranks, 8);
    assert_string_equal(app.status.msg, "hypercube needs a power of two "
                                        "ranks; 6 is not one: choose 4 or 8.");
    pick(&app, ACT_MENU_RANKS, "16");
    assert_int_equal(app.scene->call.nranks, 16);
    while (app.scene->step < app.scene->sched.nsteps)
        act(&app, ACT_NEXT);
    assert_int_equal(app.scene->step, 4); /* in place: 4 swaps, no copy-in */
    assert_true(app.scene->check.real_ok);
    pick(&app, ACT_MENU_COLL, "sendrecv"); /* in place: refused */
    assert_int_equal(app.scene->call.kind, COLL_HYPERCUBE);
    assert_non_null(strstr(app.status.msg, "out of place only"));
    app_fini(&app);
    open_app(&app, COLL_ALLREDUCE, "ring", 6, false);
    pick(&app, ACT_MENU_COLL, "hypercube");
    assert_int_equal(app.scene->call.kind, COLL_ALLREDUCE);
    assert_non_null(strstr(app.status.msg, "choose 4 or 8"));
    app_fini(&app);
}

/* State a teacher does not lose (P14): toggling in place and back finds
 * the sweep as it was; a rooted collective keeps the root last chosen
 * where the ranks have it (reduce -r 3, then scatter: root 3; then
 * allreduce, which has none, and gather: root 3 again); a change that
 * cancels a timed run says so. */
static void test_state_kept(void **state)
{
    (void)state;
    App app;
    open_app(&app, COLL_REDUCE, "binomial", 8, false);
    pick(&app, ACT_MENU_ROOT, "rank 3");
    assert_int_equal(app.scene->call.root, 3);
    pick(&app, ACT_MENU_COLL, "scatter");
    assert_int_equal(app.scene->call.kind, COLL_SCATTER);
    assert_int_equal(app.scene->call.root, 3);
    pick(&app, ACT_MENU_COLL, "allreduce");
    assert_int_equal(app.scene->call.root, 0);
    pick(&app, ACT_MENU_COLL, "gather");
    assert_int_equal(app.scene->call.root, 3);
    /* a sweep of 5 points, as the worker leaves it */
    pick(&app, ACT_MENU_COLL, "allreduce");
    app.bg.sweep_call = app.scene->call;
    app.bg.sweep_backend = app.scene->backend;
    app.bg.nsweep = 5;
    for (size_t i = 0; i < 5; i++)
        app.bg.sweep[i] = (SweepPoint){.algo = app.scene->algo,
                                       .bytes = 1024u << i, .time_s = 1e-5,
                                       .ok = true};
    act(&app, ACT_INPLACE);
    assert_true(app.scene->call.in_place);
    assert_int_equal(app.bg.nsweep, 0); /* nothing measured in place */
    act(&app, ACT_INPLACE);
    assert_false(app.scene->call.in_place);
    assert_int_equal(app.bg.nsweep, 5);
    assert_int_equal(app.bg.sweep[4].bytes, 1024u << 4);
    /* a timed run cancelled by a new algorithm is said */
    app.bg.kind = WORKER_BENCH;
    pick(&app, ACT_MENU_ALGO, "halving-doubling");
    assert_int_equal(app.bg.kind, WORKER_IDLE);
    if (!strstr(app.status.msg, "timed run was cancelled"))
        fail_msg("no word of the cancelled run: '%s'", app.status.msg);
    app_fini(&app);
}

static void test_menus(void **state)
{
    App app;
    open_app(&app, COLL_ALLREDUCE, "ring", 8, false);
    act(&app, ACT_MENU_COLL);
    assert_int_equal(app.mode.menu.n, COLL_COUNT);
    assert_true(app.mode.menu.current[COLL_ALLREDUCE]);
    act(&app, ACT_CANCEL);
    assert_int_equal(app.mode.menu.kind, MENU_NONE);
    pick(&app, ACT_MENU_COLL, "alltoall");
    assert_int_equal(app.scene->call.kind, COLL_ALLTOALL);
    assert_ptr_equal(app.scene->algo, algo_default(COLL_ALLTOALL));
    act(&app, ACT_MENU_ALGO);
    for (int i = 0; i < app.mode.menu.n; i++)
        assert_int_equal(algo_at((size_t)app.mode.menu.value[i])->coll, COLL_ALLTOALL);
    act(&app, ACT_CANCEL);
    act(&app, ACT_MENU_OP); /* alltoall does not reduce */
    assert_int_equal(app.mode.menu.kind, MENU_NONE);
    assert_non_null(strstr(app.status.msg, "no op"));
    pick(&app, ACT_MENU_COLL, "broadcast");
    pick(&app, ACT_MENU_ROOT, "rank 5");
    assert_int_equal(app.scene->call.root, 5);
    pick(&app, ACT_MENU_RANKS, "64");
    assert_int_equal(app.scene->call.nranks, 64);
    act(&app, ACT_NEXT);
    act(&app, ACT_NEXT);
    pick(&app, ACT_MENU_SIZE, "1 MiB");
    assert_int_equal(app.scene->bytes, 1u << 20);
    assert_int_equal(app.scene->step, 2); /* a new size keeps the step */
    assert_int_equal(app.scene->check.nwrong, 0);
    pick(&app, ACT_MENU_DTYPE, "int8");
    assert_int_equal(app.scene->call.dtype, DT_INT8);
    /* keys move the highlight; Enter picks it */
    act(&app, ACT_MENU_RANKS);
    int cur = app.mode.menu.cur;
    act(&app, ACT_SCROLL_UP);
    assert_int_equal(app.mode.menu.cur, cur - 1);
    act(&app, ACT_ENTER);
    assert_int_equal(app.scene->call.nranks, 48);
    app_fini(&app);
}

static void test_backend_choice(void **state)
{
    App app;
    char why[200];
    open_app(&app, COLL_ALLGATHER, NULL, 4, false);
    const ExecOps *before = app.scene->backend;
    for (size_t i = 0; exec_name_at(i); i++) {
        if (exec_find(exec_name_at(i), why, sizeof why))
            continue;
        act(&app, ACT_MENU_BACKEND);
        Request r = {.act = ACT_MENU_PICK, .a = (int)i};
        app_apply(&app, &r);
        assert_ptr_equal(app.scene->backend, before);
        assert_true(app.status.error);
        assert_non_null(strstr(app.status.msg, "keeping threads"));
    }
    app_fini(&app);
}

/* ------------------------------------------------------------ failures */

static void test_failing_backend(void **state)
{
    App app;
    char why[200];
    open_app(&app, COLL_ALLREDUCE, "ring", 4, false);
    fake_mode.fail_step = 2;
    assert_int_equal(scene_set_backend(app.scene, &fake_ops, why, sizeof why), CV_OK);
    assert_string_equal(app.scene->backend->name, "fake");
    act(&app, ACT_NEXT);
    act(&app, ACT_NEXT);
    assert_false(app.status.quit);
    act(&app, ACT_NEXT);
    assert_true(app.status.quit);
    assert_int_equal(app.status.exit_status, 1);
    assert_string_equal(app.status.msg, "The fake backend failed: the device went "
                                 "away at step 3");
    fake_mode.fail_step = SIZE_MAX;
    app_fini(&app);
}

/* A machine that computes one element wrong is caught after every step,
 * and the cell is marked. */
static void test_wrong_results_caught(void **state)
{
    App app;
    char why[200];
    open_app(&app, COLL_ALLGATHER, "ring", 3, false);
    fake_mode.corrupt_read = true;
    assert_int_equal(scene_set_backend(app.scene, &fake_ops, why, sizeof why), CV_OK);
    for (size_t k = 0; k <= app.scene->sched.nsteps; k++) {
        assert_int_equal(app.scene->step, k);
        assert_true(app.scene->check.real_ok);
        /* rank 1's first send and recv elements read back wrong */
        assert_int_equal(app.scene->check.nwrong, 1 + (sim_pos(&app.scene->sim, 1, BUF_RECV, 0) >= 0));
        assert_int_equal(app.scene->check.bad[BUF_SEND][app.scene->sim.base[BUF_SEND][1]], 1);
        act(&app, ACT_NEXT);
    }
    fake_mode.corrupt_read = false;
    app_fini(&app);
}

/* ------------------------------------------------------------ the rest */

static void test_play_and_select(void **state)
{
    App app;
    open_app(&app, COLL_REDUCE, NULL, 6, false);
    act(&app, ACT_PLAY);
    assert_true(app.play.on);
    size_t n = app.scene->sched.nsteps;
    for (size_t k = 1; k <= n + 2; k++) {
        act(&app, ACT_TICK);
        assert_int_equal(app.scene->step, k < n ? k : n);
    }
    assert_false(app.play.on);
    act(&app, ACT_PLAY); /* at the end, play starts over */
    assert_int_equal(app.scene->step, 0);
    act(&app, ACT_SLOWER);
    assert_true(app.play.ms > 700);
    for (int i = 0; i < 30; i++)
        act(&app, ACT_FASTER);
    assert_int_equal(app.play.ms, 50);
    Request r = {.act = ACT_SELECT_CELL, .a = 2, .b = BUF_RECV, .c = 999};
    app_apply(&app, &r);
    assert_int_equal(app.view.sel_rank, 2);
    assert_int_equal(app.view.sel_buf, -1);
    r.c = 1;
    r.b = BUF_SEND;
    app_apply(&app, &r);
    assert_int_equal(app.view.sel_buf, BUF_SEND);
    assert_int_equal(app.view.sel_elem, 1);
    r.a = 6;
    app_apply(&app, &r);
    assert_int_equal(app.view.sel_rank, 2);
    act(&app, ACT_CANCEL);
    act(&app, ACT_CANCEL);
    assert_int_equal(app.view.sel_rank, -1);
    act(&app, ACT_NEXT);
    act(&app, ACT_NEXT);
    act(&app, ACT_INPLACE); /* a new scene starts at step 0 */
    assert_true(app.scene->call.in_place);
    assert_int_equal(app.scene->step, 0);
    act(&app, ACT_NEXT);
    act(&app, ACT_CELLS_MORE); /* more cells keep the step shown */
    assert_int_equal(app.scene->cells, 2);
    assert_int_equal(app.scene->call.count, 2 * 6);
    assert_int_equal(app.scene->step, 1);
    act(&app, ACT_QUIT);
    assert_true(app.status.quit);
    app_fini(&app);
}

/* ------------------------------------------------------------ modes */

static Request key(const App *app, const char *name)
{
    return app_key(app, keys_parse(name));
}

/* One table of modes; the open mode decides what a key means. */
static void test_modes(void **state)
{
    App app;
    open_app(&app, COLL_ALLREDUCE, "ring", 4, false);
    bool used[VIEW_COUNT + 1] = {false};
    for (int k = 0; k < MODE_COUNT; k++) {
        const ModeOps *m = app_mode_ops((ModeKind)k);
        assert_non_null(m->name);
        assert_non_null(m->key);
        assert_false(used[m->panel]); /* a panel of its own each */
        used[m->panel] = true;
        assert_true(k == MODE_NONE ? m->panel == VIEW_COUNT && !m->apply
                                   : m->panel < VIEW_COUNT && m->apply);
    }
    assert_int_equal(app_mode_panel(&app), VIEW_COUNT);
    assert_int_equal(key(&app, "q").act, ACT_QUIT);
    assert_int_equal(key(&app, "5").act, ACT_NONE);
    act(&app, ACT_MENU_COLL);
    assert_int_equal(app_mode_panel(&app), VIEW_MENU);
    assert_int_equal(key(&app, "5").act, ACT_NONE); /* digits: sizes only */
    act(&app, ACT_MENU_SIZE); /* another menu's key closes it and acts */
    assert_int_equal(app.mode.kind, MODE_MENU);
    assert_int_equal(app.mode.menu.kind, MENU_SIZE);
    Request r = key(&app, "5");
    assert_int_equal(r.act, ACT_TYPE);
    assert_int_equal(key(&app, "q").act, ACT_QUIT);
    app_apply(&app, &r);
    assert_int_equal(app.mode.kind, MODE_TEXT);
    assert_int_equal(app.mode.menu.kind, MENU_NONE);
    assert_int_equal(app_mode_panel(&app), VIEW_PROMPT);
    assert_string_equal(app.mode.text.text, "5");
    r = key(&app, "q");
    assert_int_equal(r.act, ACT_TYPE);
    assert_int_equal(r.a, 'q');
    assert_int_equal(key(&app, "Space").act, ACT_TYPE);
    assert_int_equal(key(&app, "Backspace").act, ACT_ERASE);
    assert_int_equal(app_key(&app, 127).act, ACT_ERASE);
    assert_int_equal(key(&app, "Enter").act, ACT_ENTER);
    assert_int_equal(key(&app, "Esc").act, ACT_CANCEL);
    act(&app, ACT_NEXT); /* the prompt has the keys */
    assert_int_equal(app.scene->step, 0);
    assert_int_equal(app.mode.kind, MODE_TEXT);
    act(&app, ACT_CANCEL);
    assert_int_equal(app.mode.kind, MODE_NONE);
    act(&app, ACT_HELP);
    assert_int_equal(app_mode_panel(&app), VIEW_HELP);
    act(&app, ACT_SCROLL_DOWN);
    assert_int_equal(app.mode.help_top, 1);
    act(&app, ACT_QUIT); /* q closes help (as any other key does) */
    assert_false(app.status.quit);
    assert_int_equal(app.mode.kind, MODE_NONE);
    act(&app, ACT_QUIT);
    assert_true(app.status.quit);
    app_fini(&app);
}

/* The text entry on its own: printable characters up to TEXT_MAX. */
static void test_text_entry(void **state)
{
    TextEntry t;
    text_open(&t, "Your answer: ", "4");
    assert_string_equal(t.prompt, "Your answer: ");
    assert_string_equal(t.text, "4");
    assert_true(text_type(&t, '2'));
    assert_false(text_type(&t, '\n'));
    assert_false(text_type(&t, 0x80));
    assert_string_equal(t.text, "42");
    assert_true(text_erase(&t));
    assert_true(text_erase(&t));
    assert_false(text_erase(&t));
    assert_int_equal(t.len, 0);
    for (int i = 0; i < TEXT_MAX; i++)
        assert_true(text_type(&t, 'a' + i % 26));
    assert_false(text_type(&t, 'z'));
    assert_int_equal(strlen(t.text), TEXT_MAX);
}

static void test_bad_options(void **state)
{
    App app;
    assert_int_equal(scene_limits_tui.max_ranks, SCENE_MAX_RANKS);
    AppOptions o = app_options(COLL_ALLREDUCE, NULL, SCENE_MAX_RANKS + 1, true);
    char why[200];
    assert_int_equal(app_init(&app, &o, why, sizeof why), CV_ERR_RANKS);
    assert_non_null(strstr(why, "collviz trace"));
    app_fini(&app);
    o = app_options(COLL_ALLREDUCE, NULL, 8, true);
    o.backend = "nosuch";
    assert_int_equal(app_init(&app, &o, why, sizeof why), CV_ERR_UNAVAILABLE);
    assert_non_null(strstr(why, "nosuch"));
    app_fini(&app);
    o = app_options(COLL_ALLREDUCE, "nosuch", 8, true);
    assert_int_equal(app_init(&app, &o, why, sizeof why), CV_ERR_ALGO);
    app_fini(&app);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_algorithm_steps),
        cmocka_unit_test(test_random_seeks),
        cmocka_unit_test(test_types_and_ops),
        cmocka_unit_test(test_counters_match_schedule),
        cmocka_unit_test(test_menus),
        cmocka_unit_test(test_state_kept),
        cmocka_unit_test(test_sendrecv_hypercube_menus),
        cmocka_unit_test(test_backend_choice),
        cmocka_unit_test(test_failing_backend),
        cmocka_unit_test(test_wrong_results_caught),
        cmocka_unit_test(test_play_and_select),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_text_entry),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
