/* test_ui_views2.c - the topology, timeline and chart views: golden screens
 * (text, colour roles and attributes) for scenes of every topology at
 * several panel sizes, what they mark checked against the schedule, clicks,
 * clipping to the panel over every algorithm and many sizes. (The time a
 * 64-rank frame takes is bench/tui_bench's: a timing is not a test.)
 *
 * Golden files live in tests/golden/; COLLVIZ_UPDATE_GOLDEN=1 rewrites them
 * from what the views draw now (then read the diff before committing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "ui/app.h"
#include "ui/screen.h"
#include "ui/view.h"

#include "call_fixture.h"

#define GOLDEN_DIR "tests/golden"

static int setup(void **state)
{
    /* no calibration from this machine's cache: predictions use defaults */
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
    return 0;
}

/* ------------------------------------------------------------ scenes */

/* A scene: a collective by an algorithm on p ranks, shown after `step`
 * steps. */
typedef struct {
    const char *name; /* golden file part */
    CollKind kind;    /* collective */
    const char *algo; /* algorithm */
    int p;            /* ranks */
    int root;         /* root (rooted kinds) */
    size_t step;      /* steps executed */
} Shot;

static const Shot scenes[] = {
    {"ring8", COLL_ALLREDUCE, "ring", 8, 0, 3},
    {"binomial5", COLL_BROADCAST, "binomial", 5, 2, 1},
    {"butterfly16", COLL_ALLREDUCE, "butterfly", 16, 0, 2},
    {"bruck7", COLL_ALLTOALL, "bruck", 7, 0, 2},
    {"dbt12", COLL_ALLREDUCE, "double-binary-tree", 12, 0, 2},
    {"chain4", COLL_BROADCAST, "chain", 4, 0, 3},
    {"linear64", COLL_REDUCE, "linear", 64, 0, 3},
};
#define NSCENES (sizeof scenes / sizeof scenes[0])

/* Go to step k, as the script command "seek K" does. */
static void seek_to(App *app, size_t k)
{
    Request r = {.act = ACT_SEEK, .a = (int)k};
    app_apply(app, &r);
    assert_int_equal(app->scene->step, k);
}

/* An App for (kind, algo, p, root) on the threads backend, no worker,
 * stepped to `step`. */
static void open_app(App *app, CollKind k, const char *algo, int p, int root,
                     size_t step)
{
    AppOptions o;
    char why[200] = "";
    app_options_default(&o);
    o.kind = k, o.algo = algo, o.nranks = p, o.root = root;
    o.no_worker = true;
    if (app_init(app, &o, why, sizeof why) != CV_OK)
        fail_msg("%s %s p=%d: %s", coll_name(k), algo, p, why);
    app->view.sel_rank = -1;
    app->view.scroll_rank = 0;
    seek_to(app, step);
}

static void open_scene(App *app, const Shot *s)
{
    open_app(app, s->kind, s->algo, s->p, s->root, s->step);
}

/* ------------------------------------------------------------ sweeps */

/* The model's busbw of algo a for the App's call at `bytes` (what the
 * worker computes with the same parameters). */
static double model_busbw(const App *app, const AlgoInfo *a, uint64_t bytes,
                          double *seconds)
{
    CollCall c = app->scene->call;
    c.count = (size_t)coll_count_for_size(c.kind, c.nranks, c.dtype, bytes);
    Schedule s;
    assert_int_equal(algo_generate(a, &c, &s), CV_OK);
    Value v = predictor_total(&app->scene->model, &s);
    assert_true(v.valid);
    sched_fini(&s);
    *seconds = v.v;
    return *seconds > 0 ? (double)bytes / *seconds / 1e9 *
                              coll_busbw_factor(c.kind, c.nranks)
                        : 0;
}

/* Fill the App's sweep table as the worker would after measuring n sizes
 * (from 4 KiB, factor 4) of the current algorithm, or of every algorithm
 * of the collective when compare: the model columns are the model's, the
 * measured times are test inputs (the model's times stretched by a fixed
 * pattern), and every seventh point of another algorithm failed. */
static void fill_sweep(App *app, int n, bool compare)
{
    app->bg.nsweep = 0;
    app->bg.compare = compare;
    size_t blocks = coll_size_bytes(&(CollCall){.kind = app->scene->call.kind,
                                                .nranks = app->scene->call.nranks,
                                                .count = 1,
                                                .dtype = DT_INT8});
    for (int i = 0; i < n; i++)
        for (size_t k = 0, full = 0; k < algo_count(); k++) {
            const AlgoInfo *a = algo_at(k);
            if (a->fits)
                continue; /* made for other machines than full */
            size_t kf = full++; /* its place among those made for full */
            if (a->coll != app->scene->call.kind || (!compare && a != app->scene->algo))
                continue;
            uint64_t bytes = ((uint64_t)4096 << (2 * i)) / (blocks * 4) *
                             (blocks * 4);
            SweepPoint *pt = &app->bg.sweep[app->bg.nsweep];
            pt->algo = a;
            pt->bytes = bytes;
            pt->model_busbw = model_busbw(app, a, bytes, &pt->model_s);
            pt->time_s = pt->model_s * (1.1 + 0.15 * (double)(((size_t)i + kf) % 4));
            pt->algbw = pt->time_s > 0 ? (double)bytes / pt->time_s / 1e9 : 0;
            pt->busbw = pt->algbw * coll_busbw_factor(app->scene->call.kind,
                                                      app->scene->call.nranks);
            pt->ok = a == app->scene->algo || (app->bg.nsweep % 7) != 6;
            app->bg.nsweep++;
        }
    app->bg.planned = app->bg.nsweep;
}

/* The sweep state each scene's chart golden shows: none, one point, a
 * running sweep, all algorithms. */
static void scene_sweep(App *app, size_t i)
{
    switch (i % 4) {
    case 0: fill_sweep(app, 6, false); break;
    case 1: fill_sweep(app, 0, false); break;
    case 2:
        fill_sweep(app, 1, false);
        app->bg.kind = WORKER_SWEEP;
        app->bg.planned = 6;
        break;
    default: fill_sweep(app, 6, true); break;
    }
}

/* ------------------------------------------------------------ drawing */

/* Draw view v into a w x h grid as a panel (framed when the view is). */
static void draw_panel(const App *app, const ViewOps *v, Grid *g, int w,
                       int h)
{
    assert_int_equal(grid_init(g, w, h, app->view.ascii), CV_OK);
    Rect r = grid_rect(g);
    if (v->framed)
        r = grid_box(g, r, ROLE_BORDER, v->title, ROLE_TITLE);
    v->draw(app, g, r);
}

/* Write text to the golden file at path. */
static void write_golden(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Compare the grid's dump with golden file `name` line by line, naming
 * the first line that differs; COLLVIZ_UPDATE_GOLDEN=1 rewrites it. */
static void check_golden(const Grid *g, const char *name)
{
    char path[256], line[4096];
    snprintf(path, sizeof path, "%s/%s.txt", GOLDEN_DIR, name);
    char *got = grid_dump(g, true);
    assert_non_null(got);
    const char *upd = getenv("COLLVIZ_UPDATE_GOLDEN");
    if (upd && *upd && strcmp(upd, "0"))
        write_golden(path, got);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("%s is missing (COLLVIZ_UPDATE_GOLDEN=1 writes it)", path);
    const char *at = got;
    for (int n = 1; fgets(line, sizeof line, f); n++) {
        size_t len = strlen(line);
        if (strncmp(at, line, len) != 0) {
            const char *end = strchr(at, '\n');
            print_error("%s line %d differs\n  want: %s  got:  %.*s\n%s",
                        path, n, line, end ? (int)(end - at) : 0, at, got);
            fail();
        }
        at += len;
    }
    fclose(f);
    if (*at)
        fail_msg("%s ends before the drawing does:\n%s", path, at);
    free(got);
}

/* ------------------------------------------------------------ goldens */

static const struct {
    int w, h; /* panel size, frame included */
} sizes[] = {{40, 12}, {80, 20}, {30, 8}};

static const struct {
    const char *name; /* golden file prefix */
    const ViewOps *ops; /* the view */
} views[] = {
    {"topology", &view_topology},
    {"timeline", &view_timeline},
    {"chart", &view_chart},
};

static void test_goldens(void **state)
{
    for (size_t s = 0; s < NSCENES; s++) {
        App app;
        open_scene(&app, &scenes[s]);
        scene_sweep(&app, s);
        for (size_t v = 0; v < sizeof views / sizeof views[0]; v++)
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
                Grid g;
                char name[96];
                draw_panel(&app, views[v].ops, &g, sizes[z].w, sizes[z].h);
                snprintf(name, sizeof name, "%s_%s_%dx%d", views[v].name,
                         scenes[s].name, sizes[z].w, sizes[z].h);
                check_golden(&g, name);
                grid_fini(&g);
            }
        app_fini(&app);
    }
}

/* The same scenes in ASCII line drawing, and the initial state. */
static void test_goldens_ascii_initial(void **state)
{
    for (size_t s = 0; s < NSCENES; s++) {
        App app;
        open_scene(&app, &scenes[s]);
        for (int pass = 0; pass < 2; pass++) {
            Grid g;
            char name[96];
            app.view.ascii = pass == 0;
            if (pass == 1)
                seek_to(&app, 0);
            draw_panel(&app, &view_topology, &g, 40, 12);
            snprintf(name, sizeof name, "topology_%s_%s_40x12",
                     scenes[s].name, pass == 0 ? "ascii" : "initial");
            check_golden(&g, name);
            grid_fini(&g);
        }
        app_fini(&app);
    }
}

/* ------------------------------------------------------------ marks */

/* How many link directions a cell's glyph stands for: an arrow head one,
 * a two-way glyph two, anything else none. */
static int head_weight(uint32_t ch)
{
    static const uint32_t one[] = {0x2190, 0x2191, 0x2192, 0x2193, 0x21D0,
                                   0x21D1, 0x21D2, 0x21D3};
    static const uint32_t two[] = {0x2194, 0x2195, 0x21C4, 0x21D4, 0x21D5};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++)
        if (ch == one[i])
            return 1;
    for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
        if (ch == two[i])
            return 2;
    return 0;
}

/* Active link directions (a -> b, a != b) of the shown step. */
static int step_links(const App *app)
{
    size_t k;
    int p = app->scene->call.nranks, n = 0;
    if (!scene_shown(app->scene, &k))
        return 0;
    uint8_t *seen = calloc((size_t)p * (size_t)p, 1);
    const Step *st = &app->scene->sched.steps[k];
    for (size_t x = st->first; x < st->first + st->n; x++) {
        const Transfer *t = &app->scene->sched.xfers[x];
        uint8_t *s = &seen[(size_t)t->src * (size_t)p + (size_t)t->dst];
        n += t->src != t->dst && !*s;
        *s = 1;
    }
    free(seen);
    return n;
}

/* Arrow heads drawn in an active link's colour, weighted. */
static int drawn_links(const Grid *g)
{
    int n = 0;
    for (int y = 0; y < g->h; y++)
        for (int x = 0; x < g->w; x++) {
            const Cell *c = grid_cat(g, x, y);
            if ((c->role == ROLE_COPY || c->role == ROLE_REDUCE) &&
                (c->attr & GRID_BOLD))
                n += head_weight(c->ch);
        }
    return n;
}

/* Every algorithm, ranks 2..16, every step: in a panel where nothing has
 * to be folded, each active link direction of the step has exactly one
 * arrow (two-way glyphs count twice), whatever the shape. */
static void test_topology_draws_every_link(void **state)
{
    static const int ps[] = {2, 3, 5, 8, 12, 16, 31};
    for (size_t i = 0; i < algo_count(); i++)
        for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++) {
            const AlgoInfo *a = algo_at(i);
            if (a->fits || !call_defined(a->coll, ps[j], false))
                continue; /* test_algos_torus; no such call */
            App app;
            open_app(&app, a->coll, a->name, ps[j], ps[j] / 2, 0);
            for (size_t k = 0; k <= app.scene->sched.nsteps; k++) {
                Grid g;
                seek_to(&app, k);
                draw_panel(&app, &view_topology, &g, 200, 60);
                int want = step_links(&app), got = drawn_links(&g);
                if (want != got) {
                    char *d = grid_dump(&g, false);
                    print_error("%s %s p=%d step %zu: %d links, %d drawn\n%s",
                                coll_name(a->coll), a->name, ps[j], k, want,
                                got, d);
                    free(d);
                }
                assert_int_equal(want, got);
                grid_fini(&g);
            }
            app_fini(&app);
        }
}

/* ------------------------------------------------------------ clipping */

#define SENTINEL 0x2593u /* a character no view draws */

/* Draw view v into rectangle r of a larger grid filled with a sentinel;
 * nothing outside r may change, nothing inside may be unreadable. */
static void check_clipped(const App *app, const ViewOps *v, Rect r)
{
    Grid g;
    assert_int_equal(grid_init(&g, r.x + r.w + 3, r.y + r.h + 2, app->view.ascii),
                     CV_OK);
    grid_fill(&g, grid_rect(&g), SENTINEL, ROLE_WRONG, GRID_UNDER);
    grid_fill(&g, r, ' ', ROLE_NORMAL, 0);
    v->draw(app, &g, r);
    for (int y = 0; y < g.h; y++)
        for (int x = 0; x < g.w; x++) {
            const Cell *c = grid_cat(&g, x, y);
            if (rect_has(r, x, y)) {
                /* '?' is a glyph that had no form, but for the chart's
                   mark of an unsure crossover */
                bool bad = c->ch == SENTINEL ||
                           (c->ch == '?' && v != &view_chart);
                if (bad)
                    print_error("%s %dx%d: '%lc' at (%d, %d)\n", v->name,
                                r.w, r.h, (wint_t)c->ch, x, y);
                assert_false(bad);
                continue;
            }
            if (c->ch != SENTINEL || c->role != ROLE_WRONG)
                print_error("%s drew at (%d, %d) outside %dx%d+%d+%d\n",
                            v->name, x, y, r.w, r.h, r.x, r.y);
            assert_int_equal(c->ch, SENTINEL);
            assert_int_equal(c->role, ROLE_WRONG);
        }
    char *d = grid_dump(&g, false);
    if (strstr(d, "nan") || strstr(d, "inf"))
        print_error("%s %dx%d:\n%s", v->name, r.w, r.h, d);
    assert_null(strstr(d, "nan"));
    assert_null(strstr(d, "inf"));
    free(d);
    grid_fini(&g);
}

/* Every algorithm at rank counts from 1 to 64, at its first, a middle and
 * its last step, in panels from one cell to a wide one, with a sweep:
 * every view stays inside its rectangle. */
static void test_views_clip(void **state)
{
    static const int ps[] = {1, 2, 3, 7, 16, 33, 64};
    static const Rect rects[] = {{1, 1, 1, 1},  {2, 1, 3, 2},   {1, 2, 7, 3},
                                 {3, 2, 12, 5}, {1, 1, 28, 6},  {2, 3, 38, 10},
                                 {0, 0, 17, 40}, {4, 1, 78, 18}, {1, 1, 150, 4}};
    for (size_t i = 0; i < algo_count(); i++)
        for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++) {
            const AlgoInfo *a = algo_at(i);
            if (a->fits || !call_defined(a->coll, ps[j], false))
                continue; /* test_algos_torus; no such call */
            App app;
            open_app(&app, a->coll, a->name, ps[j], ps[j] - 1, 0);
            fill_sweep(&app, (int)(i + j) % 3 * 2, (i + j) % 2 == 1);
            size_t n = app.scene->sched.nsteps, at[3] = {0, n / 2, n};
            for (int s = 0; s < 3; s++) {
                seek_to(&app, at[s]);
                app.view.ascii = s == 1;
                for (size_t k = 0; k < sizeof rects / sizeof rects[0]; k++)
                    for (size_t v = 0; v < sizeof views / sizeof views[0]; v++)
                        check_clipped(&app, views[v].ops, rects[k]);
            }
            app_fini(&app);
        }
}

/* A job in the background shows its row (what runs, its progress) in the
 * counters panel of the 100x30 screen, 17 rows inside, where an idle
 * one's row is the first left out (the e2e test waits for the row). */
static void test_background_row_kept(void **state)
{
    (void)state;
    static const WorkerKind kinds[] = {WORKER_BENCH, WORKER_CALIB,
                                       WORKER_SWEEP};
    static const char *const words[] = {"timed run", "calibrating", "sweep"};
    App app;
    open_app(&app, COLL_ALLREDUCE, "ring", 64, 0, 0);
    for (int k = -1; k < 3; k++) {
        app.bg.kind = k < 0 ? WORKER_IDLE : kinds[k];
        app.bg.progress = 0.5;
        Grid g;
        draw_panel(&app, &view_counters, &g, 32, 19);
        char *d = grid_dump(&g, false);
        assert_non_null(d);
        if (k < 0 && strstr(d, "running"))
            fail_msg("the idle row took a row at 17:\n%s", d);
        if (k >= 0 && (!strstr(d, "running") || !strstr(d, words[k]) ||
                       !strstr(d, "50%")))
            fail_msg("no row for the %s:\n%s", words[k], d);
        free(d);
        grid_fini(&g);
    }
    app.bg.kind = WORKER_IDLE;
    app_fini(&app);
}

/* ------------------------------------------------------------ clicks */

/* The number whose digits cover (x, y) on the grid, or -1. */
static int number_at(const Grid *g, int x, int y)
{
    const Cell *c = grid_cat(g, x, y);
    if (!c || c->ch < '0' || c->ch > '9')
        return -1;
    while (x > 0 && grid_cat(g, x - 1, y)->ch >= '0' &&
           grid_cat(g, x - 1, y)->ch <= '9')
        x--;
    int v = 0;
    for (; x < g->w && grid_cat(g, x, y)->ch >= '0' &&
           grid_cat(g, x, y)->ch <= '9'; x++)
        v = v * 10 + (int)(grid_cat(g, x, y)->ch - '0');
    return v;
}

/* A click on a rank's label in the topology selects that rank; every rank
 * drawn can be clicked. */
static void test_topology_click(void **state)
{
    for (size_t s = 0; s < NSCENES; s++) {
        App app;
        Grid g;
        open_scene(&app, &scenes[s]);
        draw_panel(&app, &view_topology, &g, 80, 20);
        Rect in = rect_inset(grid_rect(&g), 1);
        bool *hit = calloc((size_t)app.scene->call.nranks, 1);
        for (int y = in.y; y < in.y + in.h; y++)
            for (int x = in.x; x < in.x + in.w; x++) {
                Request req = {0};
                const Cell *c = grid_cat(&g, x, y);
                if (!view_topology.click(&app, in, x, y, &req))
                    continue;
                assert_int_equal(req.act, ACT_SELECT_RANK);
                if (c->ch != 'r')
                    assert_int_equal(number_at(&g, x, y), req.a);
                hit[req.a] = true;
            }
        for (int r = 0; r < app.scene->call.nranks && scenes[s].p <= 16; r++)
            assert_true(hit[r]);
        free(hit);
        grid_fini(&g);
        app_fini(&app);
    }
}

/* A click on a step column seeks there, on a rank label selects it; rows
 * follow the App's scroll and selection. */
static void test_timeline_click_scroll(void **state)
{
    App app;
    Grid g;
    open_app(&app, COLL_ALLREDUCE, "ring", 8, 0, 3);
    draw_panel(&app, &view_timeline, &g, 80, 20);
    Rect in = rect_inset(grid_rect(&g), 1);
    int hits = 0;
    for (int x = in.x; x < in.x + in.w; x++) {
        int k = number_at(&g, x, in.y);
        Request req = {0};
        if (k < 0 || number_at(&g, x - 1, in.y) >= 0)
            continue;
        for (int y = in.y; y < in.y + 3; y++) {
            assert_true(view_timeline.click(&app, in, x, y, &req));
            assert_int_equal(req.act, ACT_SEEK);
            assert_int_equal(req.a, k);
        }
        hits++;
    }
    assert_int_equal(hits, (int)app.scene->sched.nsteps);
    Request req = {0};
    assert_true(view_timeline.click(&app, in, in.x, in.y + 3, &req));
    assert_int_equal(req.act, ACT_SELECT_RANK);
    assert_int_equal(req.a, 1);
    grid_fini(&g);
    app_fini(&app);

    open_app(&app, COLL_REDUCE, "linear", 64, 0, 3);
    app.view.scroll_rank = 10;
    app.view.sel_rank = 12;
    draw_panel(&app, &view_timeline, &g, 40, 12);
    assert_int_equal(number_at(&g, 2, 3), 10); /* first row: r10 */
    assert_int_equal(grid_cat(&g, 1, 5)->role, ROLE_SELECT);
    assert_int_equal(number_at(&g, 2, 5), 12);
    grid_fini(&g);
    app_fini(&app);
}

/* ------------------------------------------------------------ chart */

/* Numbers of the value axis (column 1 .. label width, plot rows). */
static double axis_top(const Grid *g)
{
    double top = -1;
    for (int y = 2; y < g->h - 3; y++) {
        char buf[16] = {0};
        int n = 0;
        for (int x = 1; x < g->w && n < 15; x++) {
            uint32_t ch = grid_cat(g, x, y)->ch;
            if (ch == 0x2524 || ch == 0x2502 || ch == '|' || ch == '+')
                break;
            buf[n++] = (char)ch;
        }
        double v;
        if (sscanf(buf, "%lf", &v) == 1 && v > top)
            top = v;
    }
    return top;
}


/* Cells of the chart's plot holding character ch. */
static int count_ch(const Grid *g, uint32_t ch)
{
    int n = 0;
    for (int y = 2; y < g->h; y++)
        for (int x = 0; x < g->w; x++)
            n += grid_cat(g, x, y)->ch == ch;
    return n;
}

/* Algorithms of the App's collective on full named in the legend of
 * the chart in g: its rows before the crossovers ('X') or the axis. */
static int legend_names(const App *app, const Grid *g)
{
    char *d = grid_dump(g, false), *end = strchr(d, '\n') + 1;
    for (char *nl; *end && (nl = strchr(end, '\n')); end = nl + 1) {
        *nl = '\0'; /* a row of the legend: no crossovers, no axis */
        bool legend = strncmp(end + 3, "X", 1) && !strstr(end, "\u2524");
        *nl = '\n';
        if (!legend)
            break;
    }
    int n = 0;
    *end = '\0';
    for (size_t k = 0; k < algo_count(); k++) {
        const char *name = algo_at(k)->name, *at = d;
        size_t len = strlen(name);
        if (algo_at(k)->coll != app->scene->call.kind || algo_at(k)->fits)
            continue;
        while ((at = strstr(at, name)) &&
               ((at[len] != ' ' && at[len] != '\n') || at[-1] != ' '))
            at += len; /* "tree" in "double-binary-tree" */
        n += at != NULL;
    }
    free(d);
    return n;
}

/* A sweep of every algorithm: the legend names the scene's and two
 * more, and says so; the key V walks pages of the others, then all,
 * then the best again. */
static void check_picks(App *app, Grid *g, const char *d)
{
    int all = 0;
    for (size_t k = 0; k < algo_count(); k++)
        all += algo_at(k)->coll == app->scene->call.kind && !algo_at(k)->fits;
    if (all <= 3)
        return;
    assert_non_null(strstr(d, app->scene->algo->name));
    assert_int_equal(legend_names(app, g), 3);
    char want[64];
    snprintf(want, sizeof want, "3 of %d: the best; V: others", all);
    assert_non_null(strstr(d, want));
    int pages = (all - 1 + 1) / 2;
    for (int k = 1; k <= pages + 2; k++) {
        Request r = {.act = ACT_CHART_PICK};
        app_apply(app, &r);
        grid_fini(g);
        draw_panel(app, &view_chart, g, 80, 20);
        int n = legend_names(app, g);
        assert_int_equal(n, k <= pages ? (k < pages || (all - 1) % 2 == 0
                                          ? 3 : 2)
                              : k == pages + 1 ? all : 3);
    }
    app->view.chart_pick = 0;
}

/* The busbw view's value axis is logarithmic: its top label is the power
 * of ten at or above the largest value (less than ten times it);
 * measured points (each algorithm's glyph) and the model are drawn; N/A
 * without measurements; every compared algorithm has its legend entry. */
static void test_chart_scale(void **state)
{
    for (size_t s = 0; s < NSCENES; s++) {
        App app;
        open_scene(&app, &scenes[s]);
        app.view.chart_busbw = true;
        for (int mode = 0; mode < 3; mode++) {
            Grid g;
            fill_sweep(&app, mode == 0 ? 0 : 6, mode == 2);
            draw_panel(&app, &view_chart, &g, 80, 20);
            double most = 0;
            for (size_t i = 0; i < app.bg.nsweep; i++)
                most = fmax(most, fmax(app.bg.sweep[i].ok ? app.bg.sweep[i].busbw
                                                       : 0,
                                       app.bg.sweep[i].model_busbw));
            if (mode == 0)
                most = (double)coll_size_bytes(&app.scene->big) /
                       app.scene->pred_total_s.v / 1e9 *
                       coll_busbw_factor(app.scene->call.kind, app.scene->call.nranks);
            double top = axis_top(&g);
            if (!(top >= most * 0.999 && top < most * 10.001)) {
                char *t = grid_dump(&g, false);
                print_error("%s mode %d: top %g, largest %g\n%s",
                            scenes[s].name, mode, top, most, t);
                free(t);
            }
            assert_true(top >= most * 0.999 && top < most * 10.001);
            assert_true(count_ch(&g, grid_glyph(&g, GL_DOT)) > 0);
            char *d = grid_dump(&g, false);
            if (mode == 0) {
                assert_non_null(strstr(d, "N/A"));
            } else {
                assert_null(strstr(d, "N/A"));
                int marks = 0;
                for (const char *m = "ox+*#@%&=~"; *m; m++)
                    marks += count_ch(&g, (uint32_t)*m);
                assert_true(marks > 1);
            }
            if (mode == 2)
                check_picks(&app, &g, d);
            free(d);
            grid_fini(&g);
        }
        app_fini(&app);
    }
}

/* A sweep of algorithms a[0 .. n) at 64 B to 1 MiB (by 4), measured as
 * modelled: alpha lat_bw[i][0] and beta lat_bw[i][1] each. */
static void put_points(App *app, const AlgoInfo *const *a, int n,
                       const double (*lat_bw)[2])
{
    app->bg.nsweep = 0;
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < n; k++) {
            SweepPoint *p = &app->bg.sweep[app->bg.nsweep++];
            double b = 64.0 * (1 << (2 * i));
            double t = lat_bw[k][0] + b * lat_bw[k][1];
            *p = (SweepPoint){.algo = a[k], .bytes = (uint64_t)b,
                              .time_s = t, .model_s = t, .ok = true,
                              .algbw = b / t / 1e9, .busbw = b / t / 1e9,
                              .model_busbw = b / t / 1e9};
        }
}

/* Two algorithms whose times cross: the chart marks the crossover on the
 * size axis and names it; each algorithm keeps its own glyph. */
static void test_chart_crossover(void **state)
{
    App app;
    open_scene(&app, &scenes[0]);
    const AlgoInfo *two[2] = {NULL, NULL};
    for (size_t k = 0; k < algo_count() && !two[1]; k++)
        if (algo_at(k)->coll == app.scene->call.kind)
            two[two[0] != NULL] = algo_at(k);
    assert_non_null(two[1]);
    /* the first: small latency, low bandwidth; the second: the opposite,
       so the second wins from some size on */
    static const double lat_bw2[2][2] = {{1e-6, 1e-9}, {2e-5, 1e-11}};
    put_points(&app, two, 2, lat_bw2);
    Grid g;
    draw_panel(&app, &view_chart, &g, 80, 20);
    char *d = grid_dump(&g, false), want[64];
    /* the second is faster from 64 KiB on (20.7 us against 66.5 us), by
     * 16% at 16 KiB the first (17.4 us against 20.2 us): sure */
    snprintf(want, sizeof want, "%s beats %s from 64 KiB ", two[1]->name,
             two[0]->name);
    if (!strstr(d, want))
        print_error("no crossover %s in\n%s", want, d);
    assert_non_null(strstr(d, want));
    assert_true(count_ch(&g, 'X') >= 2); /* the legend's and the axis' */
    assert_true(count_ch(&g, 'o') >= 4 && count_ch(&g, 'x') >= 4);
    free(d);
    grid_fini(&g);
    /* three algorithms, two crossovers, a panel too narrow for both on
       one row: the second row starts with its words, not with "; " */
    const AlgoInfo *three[3] = {NULL, NULL, NULL};
    for (size_t k = 0, n = 0; k < algo_count() && n < 3; k++)
        if (algo_at(k)->coll == app.scene->call.kind)
            three[n++] = algo_at(k);
    assert_non_null(three[2]);
    static const double lat_bw3[3][2] = {{1e-6, 1e-8}, {2e-5, 1e-9},
                                         {4e-4, 1e-11}};
    put_points(&app, three, 3, lat_bw3);
    app.view.chart_pick = 2; /* all three */
    draw_panel(&app, &view_chart, &g, 44, 20);
    d = grid_dump(&g, false);
    int beats = 0;
    for (const char *q = d; (q = strstr(q, " beats ")); q++)
        beats++;
    if (beats < 2 || strstr(d, "\xe2\x94\x82; ")) /* "│; " */
        fail_msg("two crossovers, none after \"; \" at a row's start:\n%s",
                 d);
    free(d);
    grid_fini(&g);
    app_fini(&app);
}

/* A panel too small for axes says its one line of numbers whole: the
 * model's number beside the measured one where both fit, else left out,
 * never cut ("model 7" for 7.12). V with one algorithm swept says that C
 * sweeps the others; with two it says nothing. */
static void test_chart_one_line(void **state)
{
    (void)state;
    App app;
    open_scene(&app, &scenes[0]);
    const AlgoInfo *one[2] = {app.scene->algo, NULL};
    for (size_t k = 0; k < algo_count() && !one[1]; k++)
        if (algo_at(k)->coll == app.scene->call.kind &&
            algo_at(k) != one[0])
            one[1] = algo_at(k);
    static const double lat_bw[2][2] = {{1e-6, 1e-9}, {2e-5, 1e-11}};
    put_points(&app, one, 1, lat_bw);
    int models = 0;
    for (int w = 24; w <= 60; w += 4) {
        Grid g;
        draw_panel(&app, &view_chart, &g, w, 3);
        char *d = grid_dump(&g, false), *m = strstr(d, ", model ");
        assert_non_null(strstr(d, "busbw "));
        int n = 0;
        double v;
        /* the model's busbw is printed with 2 decimals: "x.yz" at least */
        if (m && !(sscanf(m, ", model %lf%n", &v, &n) == 1 && n >= 12 &&
                   m[n - 3] == '.'))
            fail_msg("a model number cut at %d columns:\n%s", w, d);
        models += m != NULL;
        free(d);
        grid_fini(&g);
    }
    assert_true(models > 0); /* where it fits, it is there */
    Request v = {.act = ACT_CHART_PICK};
    app_apply(&app, &v);
    char want[200];
    snprintf(want, sizeof want, "The chart has %s alone to show: C sweeps "
             "every algorithm, then V picks which it shows.", one[0]->name);
    assert_string_equal(app.status.msg, want);
    put_points(&app, one, 2, lat_bw);
    app_apply(&app, &v);
    assert_string_equal(app.status.msg, "");
    app_fini(&app);
}

/* Where the parameter server (direct) measured fastest at a sweep's
 * largest size on a machine calibrated as one shared bus, the full-screen
 * chart says why in one line; not where another algorithm won, nor on a
 * machine of full links. */
static void test_chart_server_note(void **state)
{
    (void)state;
    const AlgoInfo *direct = algo_find(COLL_ALLREDUCE, "direct");
    const AlgoInfo *ring = algo_find(COLL_ALLREDUCE, "ring");
    const char *note = "direct fastest here: every algorithm's bytes cross "
                       "one shared memory bus, so the fewest steps win";
    for (int c = 0; c < 3; c++) {
        App app;
        open_app(&app, COLL_ALLREDUCE, "ring", 4, 0, 0);
        Calib cal = {.nranks = 4, .alpha = 2e-6, .npoints = 1, .quick = 1,
                     .machine = c == 2 ? MACHINE_FULL : MACHINE_BUS};
        snprintf(cal.backend, sizeof cal.backend, "%s",
                 app.scene->backend->name);
        cal.pt[0] = (CalibPoint){1e6, 2e-11, 1e-10, 1e-11, 4e-11, 0, 0};
        scene_use_calib(app.scene, &cal);
        app.bg.compare = true;
        app.bg.nsweep = 0;
        for (int i = 0; i < 4; i++) { /* 1K .. 1M; the winner at 1M: c 1
                                         ring, else direct */
            double bytes = 1024.0 * (1 << (3 * i)), t = 1e-5 + bytes * 1e-9;
            bool top = i == 3;
            app.bg.sweep[app.bg.nsweep++] = (SweepPoint){
                .algo = direct, .bytes = (uint64_t)bytes,
                .time_s = top && c == 1 ? 2 * t : t, .model_s = t,
                .ok = true, .algbw = bytes / t / 1e9,
                .busbw = bytes / t / 1e9 * 1.5,
                .model_busbw = bytes / t / 1e9 * 1.5};
            app.bg.sweep[app.bg.nsweep++] = (SweepPoint){
                .algo = ring, .bytes = (uint64_t)bytes, .time_s = 1.5 * t,
                .model_s = 1.5 * t, .ok = true, .algbw = bytes / t / 1.5e9,
                .busbw = bytes / t / 1e9, .model_busbw = bytes / t / 1e9};
        }
        app.view.chart_full = true;
        app.view.term_w = 100, app.view.term_h = 30;
        Grid g;
        assert_int_equal(grid_init(&g, 100, 30, false), CV_OK);
        screen_draw(&app, &g);
        char *d = grid_dump(&g, false);
        if ((strstr(d, note) != NULL) != (c == 0))
            fail_msg("case %d: the note should %sbe there:\n%s", c,
                     c == 0 ? "" : "not ", d);
        free(d);
        grid_fini(&g);
        app_fini(&app);
    }
}

/* The full-screen chart (F): the chart alone over the body at 100x30,
 * every measured algorithm in the legend with its mark and its model
 * curve's own glyph, the crossovers whole, and one marked unsure where
 * the lead is under 10%, with the note that says so. The times are
 * a + b x bytes, chosen by hand: the first algorithm (2 us + 0.4 ns/B)
 * is fastest to 4K, the third (4 us + 0.2 ns/B) from 16K (where it leads
 * by 17%, and the first led by 32% at 4K), the second (10 us + 0.1 ns/B)
 * from 64K, where it leads by only 3.4% (17.1 us against 16.6 us):
 * unsure. The others take 30 us + 0.5 ns/B. Nothing drawn is cut. */
static void test_chart_full(void **state)
{
    (void)state;
    App app;
    open_app(&app, COLL_ALLREDUCE, "ring", 8, 0, 0);
    const AlgoInfo *al[6] = {NULL};
    int na = 0;
    for (size_t k = 0; k < algo_count() && na < 6; k++)
        if (algo_at(k)->coll == COLL_ALLREDUCE && !algo_at(k)->fits)
            al[na++] = algo_at(k);
    assert_int_equal(na, 6);
    static const double a[6] = {2e-6, 1e-5, 4e-6, 3e-5, 3e-5, 3e-5};
    static const double b[6] = {4e-10, 1e-10, 2e-10, 5e-10, 5e-10, 5e-10};
    app.bg.nsweep = 0;
    for (int i = 0; i < 9; i++)
        for (int k = 0; k < na; k++) {
            double bytes = 64.0 * (1 << (2 * i));
            double t = a[k] + bytes * b[k];
            app.bg.sweep[app.bg.nsweep++] = (SweepPoint){
                .algo = al[k], .bytes = (uint64_t)bytes, .time_s = t,
                .model_s = t * 1.05, .ok = true, .algbw = bytes / t / 1e9,
                .busbw = bytes / t / 1e9 * 1.75,
                .model_busbw = bytes / t / 1e9 * 1.75 / 1.05};
        }
    app.view.chart_full = true;
    app.view.term_w = 100, app.view.term_h = 30;
    Grid g;
    assert_int_equal(grid_init(&g, 100, 30, false), CV_OK);
    screen_draw(&app, &g);
    Layout l;
    screen_layout(&app, &l);
    assert_int_equal(l.r[VIEW_CHART].w, 100);
    assert_int_equal(l.r[VIEW_CHART].h, 30 - 2 - 1); /* header, status */
    assert_int_equal(l.r[VIEW_BUFFERS].w, 0);
    Rect in = rect_inset(l.r[VIEW_CHART], 1);
    grid_fill(&g, in, ' ', ROLE_NORMAL, 0);
    g.lost = 0;
    view_chart.draw(&app, &g, in);
    char *d = grid_dump(&g, false), want[128];
    if (g.lost)
        fail_msg("%ld characters cut in:\n%s", g.lost, d);
    /* shown: the scene's (the second) and the two that are fastest at
     * most sizes, the first (64 B to 4K) and the third (16K) */
    assert_int_equal(legend_names(&app, &g), 3);
    assert_non_null(strstr(d, "3 of 6: the best; V: others"));
    /* the crossovers name the three: the first, second and third */
    snprintf(want, sizeof want, " %s beats %s from 16 KiB;", al[2]->name,
             al[0]->name);
    if (!strstr(d, want))
        fail_msg("no sure crossover '%s' in:\n%s", want, d);
    snprintf(want, sizeof want, "%s beats %s from 64 KiB?", al[1]->name,
             al[2]->name);
    if (!strstr(d, want) || !strstr(d, "the lead is under 10%"))
        fail_msg("no unsure crossover '%s' and its note in:\n%s", want, d);
    /* each model curve in its own glyph: the first two series' */
    assert_true(count_ch(&g, '.') >= 5 && count_ch(&g, '-') >= 5);
    free(d);
    check_golden(&g, "chart_full_100x30");
    grid_fini(&g);
    app_fini(&app);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_goldens),
        cmocka_unit_test(test_goldens_ascii_initial),
        cmocka_unit_test(test_topology_draws_every_link),
        cmocka_unit_test(test_views_clip),
        cmocka_unit_test(test_background_row_kept),
        cmocka_unit_test(test_topology_click),
        cmocka_unit_test(test_timeline_click_scroll),
        cmocka_unit_test(test_chart_scale),
        cmocka_unit_test(test_chart_crossover),
        cmocka_unit_test(test_chart_one_line),
        cmocka_unit_test(test_chart_full),
        cmocka_unit_test(test_chart_server_note),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
