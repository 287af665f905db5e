/* test_ui_cells.c - every label the buffers picture draws is whole and
 * stands apart: the teacher's scenes (halving-doubling and the binomial
 * broadcast on 13 ranks, the double binary tree and the ring on 16, the
 * ring on 8), at every step, in presenter and normal mode at 100x30,
 * Unicode and ASCII, and the ring on 8 at 80x24. Presenter mode must show
 * labels; the normal mode's narrower picture may show a shade per cell
 * instead (one column each, which the legend explains). A label is read off the screen
 * as text and must be one of the picture's forms, with numbers the scene
 * has: a rank ("12" < p), a rank's block ("12.3", the block < the blocks
 * of an input), a set of ranks ("0-2+5", each < p, ascending), "#n" (n
 * ranks, 2 <= n < p), "all", or the empty cell; labels are separated by
 * a blank, and a row's cells number the buffer's elements. Cells that run
 * together ("0.00.1"), a cut label ("0.1…", "0.1" for block 10) or a set
 * written with the ',' that reads like the block's '.' all fail.
 * Before the first step the picture shows the send buffer (every
 * algorithm, every machine), and the legend explains first the forms the
 * cells on screen show, in presenter mode too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/screen.h"
#include "ui/i18n.h"
#include "ui/scene.h"
#include "ui/screen.h"
#include "ui/script.h"
#include "ui/view.h"

static int setup(void **state)
{
    (void)state;
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
    return 0;
}

typedef struct {
    CollKind kind;
    const char *algo;
    int p;
    int blocks; /* blocks of an input ("r.b" labels), 0: none */
    bool shade; /* may fall back to a shade per cell at 100x30: the double
                   binary tree's recv and tmp on 16 ranks are 32 cells,
                   and 94 columns hold 31 with a blank between */
} Case;

/* Whether tok is a run of the one-column cells' glyphs (a shade each,
 * grid.h's GL_DOT to GL_CROSSMARK in Unicode and ASCII). */
static bool shades(const char *tok)
{
    static const char *const g[] = {"\u00B7", "\u2591", "\u2592", "\u2593",
                                    "\u2588", "\u2713", "\u2717", ".", ":",
                                    "%", "@", "#", "+", "x"};
    while (*tok) {
        size_t k = 0, n = 0;
        for (; k < sizeof g / sizeof *g; k++)
            if (!strncmp(tok, g[k], n = strlen(g[k])))
                break;
        if (k == sizeof g / sizeof *g)
            return false;
        tok += n;
    }
    return true;
}

/* A whole number at *s below limit: its value, *s moved past it; -1. */
static long number(const char **s, long limit)
{
    if (!isdigit((unsigned char)**s))
        return -1;
    char *end;
    long v = strtol(*s, &end, 10);
    *s = end;
    return v < limit ? v : -1;
}

/* Whether tok (a blank-free label) is one the picture may draw. */
static bool valid(const char *tok, const Case *c)
{
    const char *s = tok;
    if (!strcmp(tok, "all") || !strcmp(tok, "\u00B7") || !strcmp(tok, "."))
        return true;
    if (*s == '#') {
        s++;
        long n = number(&s, c->p);
        return n >= 2 && !*s;
    }
    long r = number(&s, c->p);
    if (r < 0)
        return false;
    if (!*s)
        return true;
    if (*s == '.') { /* a rank's block */
        s++;
        long b = number(&s, c->blocks);
        return c->blocks > 1 && b >= 0 && !*s;
    }
    long last = r; /* a set: runs joined by '+', each ascending */
    while (*s) {
        char sep = *s++;
        long v = number(&s, c->p);
        if ((sep != '-' && sep != '+') || v <= last)
            return false;
        last = v;
    }
    return true;
}

/* The labels of a rank row of the buffers box ("│rN" and its labels up
 * to the box's end, the bars between buffers blanked) in place in line,
 * and the rank in *rank; NULL when line is no rank's row. */
static char *rank_labels(char *line, int *rank)
{
    const char *bar = !strncmp(line, "\u2502r", 4) ? line + 3
                      : !strncmp(line, "|r", 2)    ? line + 1 : NULL;
    if (!bar || !isdigit((unsigned char)bar[1]))
        return NULL;
    /* the labels run from after the rank to the box's right edge: the
       first of two bars in a row (the box beside begins), else the
       line's last bar; a bar between them separates buffers */
    char *p = (char *)bar + 1;
    *rank = atoi(p);
    while (isdigit((unsigned char)*p))
        p++;
    if (*p != ' ')
        return NULL; /* not a rank's row ("r0+>r1" of the transfers) */
    char *edge = strstr(p, "\u2502\u2502");
    if (!edge)
        edge = strstr(p, "||");
    for (char *q = p; !edge && *q; q++)
        if (!strncmp(q, "\u2502", 3) || *q == '|')
            edge = q;
    if (edge)
        *edge = '\0';
    for (char *q = p; *q; q++) {
        if (!strncmp(q, "\u2502", 3))
            memset(q, ' ', 3);
        else if (*q == '|')
            *q = ' ';
    }
    return p;
}

/* Call row(line, rank, labels, ctx) for every rank row of the buffers box
 * of screen text, and head(line, ctx) for its heading; returns the rows
 * seen. */
static int buffer_rows(const char *text,
                       void (*row)(char *, int, char *, void *),
                       void (*head)(const char *, void *), void *ctx)
{
    int rows = 0;
    bool in = false, first = false; /* inside the box, which is at the
                                       left; at its first line */
    for (const char *l = text; l && *l;) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        char line[1024], *labels;
        snprintf(line, sizeof line, "%.*s", (int)len, l);
        l = nl ? nl + 1 : NULL;
        if (!strncmp(line, "\u250C Buffers", 10) ||
            !strncmp(line, "+ Buffers", 9)) {
            in = first = true;
            continue;
        }
        if (!strncmp(line, "\u2514", 3) || line[0] == '+')
            in = false;
        if (in && first && head)
            head(line, ctx);
        first = false;
        int rank;
        if (!in || !(labels = rank_labels(line, &rank)))
            continue;
        rows++;
        char whole[1024];
        snprintf(whole, sizeof whole, "%s", line);
        row(whole, rank, labels, ctx);
    }
    return rows;
}

typedef struct {
    const Case *c;
    bool shade;
    const char *what;
} Checked;

static void check_row(char *line, int rank, char *labels, void *ctx)
{
    const Checked *k = ctx;
    (void)rank;
    for (char *tok = strtok(labels, " "); tok; tok = strtok(NULL, " ")) {
        if (k->shade && shades(tok))
            continue;
        if (!valid(tok, k->c))
            fail_msg("%s: the label '%s' is not whole or runs into its "
                     "neighbour, in:\n%s", k->what, tok, line);
    }
}

/* Check every rank row of the buffers box of screen text. Returns the
 * rows seen. */
static int check_screen(const char *text, const Case *c, bool shade,
                        const char *what)
{
    Checked k = {c, shade, what};
    return buffer_rows(text, check_row, NULL, &k);
}

/* An App made from o for a w x h terminal (failing the test with the
 * sentence when it cannot be made). */
static void open_sized(App *app, const AppOptions *o, int w, int h,
                       bool ascii)
{
    char why[200];
    if (app_init(app, o, why, sizeof why) != CV_OK)
        fail_msg("%s %s p=%d on %s: %s", coll_name(o->kind), o->algo,
                 o->nranks, o->machine ? o->machine->given : "full", why);
    app->view.term_w = w, app->view.term_h = h;
    app->view.ascii = ascii;
}

/* keys played on app, as `collviz tui --script` does, the last screen
 * drawn into g (grid_fini it). */
static void play(App *app, const char *keys, Grid *g)
{
    char why[200];
    Script s;
    assert_int_equal(script_parse(keys, &s, why, sizeof why), CV_OK);
    grid_init(g, app->view.term_w, app->view.term_h, app->view.ascii);
    ScriptRun run = {0};
    script_run(app, &s, &run, g);
    script_fini(&s);
}

static void run_checked(const Case *c, int w, int h, bool present,
                        bool ascii, bool shade)
{
    AppOptions o = app_options(c->kind, c->algo, c->p, true);
    o.present = present;
    App app;
    open_sized(&app, &o, w, h, ascii);
    size_t steps = app.scene->sched.nsteps;
    app_fini(&app);
    for (size_t k = 0; k <= steps; k++) {
        open_sized(&app, &o, w, h, ascii);
        char keys[4096] = "";
        for (size_t i = 0; i < k && strlen(keys) + 7 < sizeof keys; i++)
            strcat(keys, i ? " Right" : "Right");
        Grid g;
        play(&app, keys, &g);
        char *text = grid_dump(&g, false);
        char what[160];
        snprintf(what, sizeof what, "%s %s p=%d step %zu %dx%d%s%s",
                 coll_name(c->kind), c->algo, c->p, k, w, h,
                 present ? " presenter" : "", ascii ? " ascii" : "");
        int rows = check_screen(text, c, shade, what);
        if (rows < (c->p < h - 12 ? c->p : 4))
            fail_msg("%s: %d rank rows drawn:\n%s", what, rows, text);
        free(text);
        grid_fini(&g);
        app_fini(&app);
    }
}

static void run_case(const Case *c, int w, int h, bool present, bool ascii)
{
    /* presenter mode must show labels (but where they cannot fit); the
       normal mode's narrower picture may fall back to shades */
    run_checked(c, w, h, present, ascii, present ? c->shade : true);
}

static const Case cases[] = {
    {COLL_ALLREDUCE, "halving-doubling", 13, 13, false},
    {COLL_BROADCAST, "binomial", 13, 0, false},
    {COLL_ALLREDUCE, "double-binary-tree", 16, 16, true},
    {COLL_ALLREDUCE, "ring", 16, 16, false},
    {COLL_ALLREDUCE, "ring", 8, 8, false},
};

static void test_labels_whole(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        run_case(&cases[i], 100, 30, true, false);
        run_case(&cases[i], 100, 30, false, false);
        run_case(&cases[i], 100, 30, true, true);
        /* at 80x24 the picture is 42 columns: 8 ranks keep every label
           (more fall back to cells side by side, or a shade each) */
        if (cases[i].p <= 8)
            run_case(&cases[i], 80, 24, false, true);
    }
}

/* The counters keep every number whole: drawn alone into their panel of
 * the layout, after a timed run (a measured time of 1.234 ms, so that
 * the bandwidth and deviation rows show) and without one, they leave out
 * no character (grid.h's lost), in presenter mode's one line too, for
 * the double binary tree on 64 ranks (the longest formula, "126 a +
 * 190M b + 63M g"), the ring on 8, and nodes 2x4 and an NVLS switch as
 * what-ifs, at 100x30 and 80x24, in English and Chinese; at 80x24 on
 * the flat machine the bytes and the bandwidth rows are kept. */
static void test_counters_whole(void **state)
{
    (void)state;
    static const struct {
        CollKind kind;
        const char *algo;
        int p;
        const char *topo;
    } sc[] = {
        {COLL_ALLREDUCE, "double-binary-tree", 64, NULL},
        {COLL_ALLREDUCE, "ring", 8, NULL},
        {COLL_ALLREDUCE, "hier", 8, "nodes:2x4"},
        {COLL_ALLREDUCE, "nvls", 8, "switch:8,reduce"},
    };
    static const int sizes[][2] = {{100, 30}, {80, 24}};
    for (int lang = 0; lang < 2; lang++) {
        ui_lang_use(lang ? UI_LANG_ZH : UI_LANG_EN);
        for (size_t i = 0; i < sizeof sc / sizeof *sc; i++)
            for (size_t z = 0; z < 2; z++)
                for (int present = 0; present < 2; present++)
                    for (int timed = 0; timed < 3; timed++) {
                        AppOptions o = app_options(sc[i].kind, sc[i].algo,
                                                   sc[i].p, true);
                        SpecMachine sm;
                        CliErr ce;
                        if (sc[i].topo) {
                            assert_int_equal(spec_machine_name(&sm, sc[i].topo, &ce), 0);
                            o.machine = &sm;
                        }
                        o.present = present;
                        App app;
                        int w = sizes[z][0], h = sizes[z][1];
                        open_sized(&app, &o, w, h, false);
                        if (timed) {
                            app.bg.total_s = (Value){1.234e-3, true};
                            app.bg.bytes = o.bytes;
                        }
                        if (timed == 2) { /* calibrated: the split's note,
                                             the band and the probes */
                            Calib c = {.nranks = sc[i].p, .alpha = 2e-6,
                                       .npoints = 1, .machine = MACHINE_BUS,
                                       .when = 1795176000, .unsteady = 2.7};
                            c.fit_err[MACHINE_BUS] = 0.12;
                            snprintf(c.backend, sizeof c.backend, "%s",
                                     app.scene->backend->name);
                            c.pt[0] = (CalibPoint){1e6, 1e-10, 1e-10, 1e-11,
                                                   1e-11, 0, 0};
                            scene_use_calib(app.scene, &c);
                            app.bg.min_s = 1.1e-3, app.bg.runs = 10;
                            app.bg.moved = 3;
                        }
                        Grid g;
                        play(&app, "Right Right", &g);
                        Layout l;
                        screen_layout(&app, &l);
                        Rect r = rect_inset(l.r[VIEW_COUNTERS], 1);
                        grid_fill(&g, r, ' ', ROLE_NORMAL, 0);
                        g.lost = 0;
                        view_counters.draw(&app, &g, r);
                        char *text = grid_dump(&g, false);
                        if (g.lost)
                            fail_msg("%s %s p=%d %dx%d%s%s %s: %ld characters "
                                     "cut in the counters:\n%s", sc[i].algo,
                                     sc[i].topo ? sc[i].topo : "", sc[i].p, w,
                                     h, present ? " presenter" : "",
                                     timed ? " timed" : "", lang ? "zh" : "en",
                                     g.lost, text);
                        /* (a what-if's machine panel leaves the
                           counters 8 rows: the times and bytes) */
                        if (!present && timed && h == 24 && !sc[i].topo &&
                            (!strstr(text, lang ? "\u5b57\u8282" : "bytes") ||
                             !strstr(text, "GB/s")))
                            fail_msg("%s %s: 80x24 without the bytes or "
                                     "bandwidth rows:\n%s", sc[i].algo,
                                     lang ? "zh" : "en", strstr(text, "\n") +
                                     2 * (size_t)w);
                        free(text);
                        grid_fini(&g);
                        app_fini(&app);
                    }
    }
    ui_lang_use(UI_LANG_EN);
}

/* Z: the topology over the whole screen draws the binomial broadcast's
 * tree on 16 ranks and both trees of the double binary tree on 16 with
 * every level (no rank folded into an ancestor as "4(+3)"), every rank
 * in every tree, and the step's edges lit with an arrow head. */
static void test_trees_whole(void **state)
{
    (void)state;
    static const struct {
        CollKind kind;
        const char *algo;
        int trees;
        const char *keys;
    } sc[] = {
        {COLL_BROADCAST, "binomial", 1, "Right Right Right Z"},
        {COLL_ALLREDUCE, "double-binary-tree", 2, "Right Right Z"},
    };
    for (size_t i = 0; i < sizeof sc / sizeof *sc; i++)
        for (int ascii = 0; ascii < 2; ascii++) {
            AppOptions o = app_options(sc[i].kind, sc[i].algo, 16, true);
            App app;
            open_sized(&app, &o, 100, 30, ascii);
            Grid g;
            play(&app, sc[i].keys, &g);
            char *text = grid_dump(&g, false);
            if (strstr(text, "(+") || !strstr(text, "Topology") ||
                strstr(text, "Buffers"))
                fail_msg("%s: not the whole topology, or a folded tree:\n%s",
                         sc[i].algo, text);
            /* every rank, once per tree, as a word of its own */
            for (int r = 0; r < 16; r++) {
                char w[8];
                int n = 0;
                snprintf(w, sizeof w, "%d", r);
                for (const char *q = text; (q = strstr(q, w)); q++) {
                    bool alone = (q == text || !isdigit((unsigned char)q[-1]))
                                 && !isdigit((unsigned char)q[strlen(w)]);
                    n += alone;
                }
                /* the header names 16 ranks; "tree 1", "tree 2" */
                int extra = (r == 16) + (sc[i].trees > 1 && (r == 1 || r == 2));
                if (n - extra < sc[i].trees)
                    fail_msg("%s: rank %d drawn %d times:\n%s", sc[i].algo, r,
                             n - extra, text);
            }
            if (sc[i].kind == COLL_BROADCAST &&
                !strstr(text, ascii ? "v" : "\u2193"))
                fail_msg("no lit edge:\n%s", text);
            free(text);
            grid_fini(&g);
            app_fini(&app);
        }
}

/* What the first picture of a scene shows, read off its screen. */
typedef struct {
    const Scene *sc;
    const char *what;
    char head[1024]; /* the buffers box's heading */
    int own;         /* rank rows showing that rank's own input */
    int inputs;      /* rank rows of ranks that have an input */
} FirstSlide;

static void first_head(const char *line, void *ctx)
{
    snprintf(((FirstSlide *)ctx)->head, sizeof ((FirstSlide *)ctx)->head,
             "%s", line);
}

/* Whether a rank row's labels show rank r's own input: a label "r" or
 * "r.b" (its block b), or a one-column cell's shade of one input. */
static void first_row(char *line, int r, char *labels, void *ctx)
{
    FirstSlide *f = ctx;
    CollLayout l;
    (void)line;
    coll_layout(&f->sc->call, r, &l);
    if (!l.in_count)
        return;
    f->inputs++;
    char own[16], block[16];
    snprintf(own, sizeof own, "%d", r);
    snprintf(block, sizeof block, "%d.", r);
    for (char *tok = strtok(labels, " "); tok; tok = strtok(NULL, " "))
        if (!strcmp(tok, own) || !strncmp(tok, block, strlen(block)) ||
            strstr(tok, "\u2591") || strstr(tok, ":")) {
            f->own++;
            return;
        }
}

/* One scene's first picture at w x h: the send buffer, never "send
 * hidden", each rank's row with its own input; one step later the send
 * buffer may go again (it does for the ring on 8 at 100x30). */
static void first_slide(const AlgoInfo *a, int p, const SpecMachine *m,
                        int w, int h)
{
    AppOptions o = app_options(a->coll, a->name, p, true);
    o.machine = m;
    App app;
    char why[200];
    if (app_init(&app, &o, why, sizeof why) != CV_OK)
        return; /* not made for this machine or rank count */
    app.view.term_w = w, app.view.term_h = h;
    Grid g;
    play(&app, "", &g);
    char *text = grid_dump(&g, false);
    FirstSlide f = {.sc = app.scene};
    buffer_rows(text, first_row, first_head, &f);
    if (!strstr(f.head, "send") || strstr(f.head, "send hidden") ||
        f.own < f.inputs || !f.inputs)
        fail_msg("%s %s p=%d on %s at %dx%d: the first picture hides the "
                 "send buffer (%d of %d ranks show their input):\n%s",
                 coll_name(a->coll), a->name, p, m ? m->given : "full", w, h,
                 f.own, f.inputs, text);
    free(text);
    grid_fini(&g);
    app_fini(&app);
}

/* T5: before the first step the picture shows what each rank starts with
 * (the send buffer, its cells from the Sim), not the empty receive
 * buffer: every algorithm out of place on 8, 13 and 16 ranks, the
 * machine algorithms on their machines, at 100x30 and 80x24. */
static void test_first_slide(void **state)
{
    (void)state;
    static const char *const machines[] = {NULL, "torus:4x4", "mesh:4x4",
                                           "nodes:2x8", "switch:16,reduce"};
    static const int ps[] = {8, 13, 16};
    for (size_t i = 0; i < algo_count(); i++)
        for (size_t k = 0; k < sizeof machines / sizeof *machines; k++)
            for (size_t j = 0; j < sizeof ps / sizeof *ps; j++) {
                SpecMachine sm;
                CliErr ce;
                if (machines[k] && (ps[j] != 16 ||
                    spec_machine_name(&sm, machines[k], &ce)))
                    continue;
                first_slide(algo_at(i), ps[j], machines[k] ? &sm : NULL,
                            100, 30);
                first_slide(algo_at(i), ps[j], machines[k] ? &sm : NULL,
                            80, 24);
            }
    /* one step on, the ring's recv is back and send hidden again */
    AppOptions o = app_options(COLL_ALLREDUCE, "ring", 8, true);
    App app;
    open_sized(&app, &o, 100, 30, false);
    Grid g;
    play(&app, "Right", &g);
    char *text = grid_dump(&g, false);
    assert_non_null(strstr(text, "send hidden"));
    free(text);
    grid_fini(&g);
    app_fini(&app);
}

/* The forms of the cells' labels, each with its note in the legend. */
enum { F_RANK, F_BLOCK, F_SET, F_COUNT, F_ALL, F_FORMS };
static const char *const form_note[F_FORMS] = {
    "3=rank 3's input", "3.1=r3's block 1", "0-2+5=those ranks combined",
    "#7=7 ranks combined", "all=every rank",
};

/* The form of label tok (-1: the empty cell, a shade). */
static int form_of(const char *tok)
{
    if (!strcmp(tok, "all"))
        return F_ALL;
    if (tok[0] == '#')
        return F_COUNT;
    if (!isdigit((unsigned char)tok[0]))
        return -1;
    if (strpbrk(tok, "-+"))
        return F_SET;
    return strchr(tok, '.') ? F_BLOCK : F_RANK;
}

static void forms_row(char *line, int rank, char *labels, void *ctx)
{
    bool *on = ctx;
    (void)line, (void)rank;
    for (char *tok = strtok(labels, " "); tok; tok = strtok(NULL, " "))
        if (form_of(tok) >= 0)
            on[form_of(tok)] = true;
}

/* The legend of screen text explains what its cells show first: no note
 * of a form no cell shows while a note of a form on screen is left out.
 * Returns whether the note of form f is drawn. */
static bool legend_first(const char *text, const char *what, int f)
{
    bool on[F_FORMS] = {false}, absent_drawn = false, present_missing = false;
    buffer_rows(text, forms_row, NULL, on);
    for (int k = 0; k < F_FORMS; k++) {
        bool drawn = strstr(text, form_note[k]) != NULL;
        absent_drawn |= !on[k] && drawn;
        present_missing |= on[k] && !drawn;
    }
    if (absent_drawn && present_missing)
        fail_msg("%s: the legend explains what is not on screen before what "
                 "is:\n%s", what, text);
    return strstr(text, form_note[f]) != NULL;
}

/* T2: at every step of the teacher's scenes, in normal and presenter mode
 * (which has a line of legend too), the legend's notes of what the cells
 * show come first; the ring on 8 at step 7 shows "#7" cells, and its
 * legend says what they are, in English and Chinese. */
static void test_legend_first(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int present = 0; present < 2; present++) {
            AppOptions o = app_options(cases[i].kind, cases[i].algo,
                                       cases[i].p, true);
            o.present = present;
            App app;
            open_sized(&app, &o, 100, 30, false);
            size_t steps = app.scene->sched.nsteps;
            app_fini(&app);
            for (size_t k = 0; k <= steps; k++) {
                open_sized(&app, &o, 100, 30, false);
                char keys[32], what[160];
                snprintf(keys, sizeof keys, "seek %zu", k);
                Grid g;
                play(&app, keys, &g);
                char *text = grid_dump(&g, false);
                snprintf(what, sizeof what, "%s %s p=%d step %zu%s",
                         coll_name(cases[i].kind), cases[i].algo, cases[i].p,
                         k, present ? " presenter" : "");
                bool count = legend_first(text, what, F_COUNT);
                if (cases[i].p == 8 && k == 7 && !count)
                    fail_msg("%s: no note of #7:\n%s", what, text);
                free(text);
                grid_fini(&g);
                app_fini(&app);
            }
        }
    ui_lang_use(UI_LANG_ZH);
    for (int present = 0; present < 2; present++) {
        AppOptions o = app_options(COLL_ALLREDUCE, "ring", 8, true);
        o.present = present;
        App app;
        open_sized(&app, &o, 100, 30, false);
        Grid g;
        play(&app, "seek 7", &g);
        char *text = grid_dump(&g, false);
        if (!strstr(text, "#7=7 \u4e2a\u8fdb\u7a0b\u5408\u5e76"))
            fail_msg("zh%s: no note of #7:\n%s", present ? " presenter" : "",
                     text);
        free(text);
        grid_fini(&g);
        app_fini(&app);
    }
    ui_lang_use(UI_LANG_EN);
}

/* The checker itself, on labels written by hand. */
static void test_checker(void **state)
{
    (void)state;
    const Case c = {COLL_ALLREDUCE, "ring", 13, 13, false};
    static const char *const good[] = {"0", "12", "0.12", "12.0", "0-2+5",
                                       "0+7", "11+12", "#7", "#12", "all",
                                       "\u00B7"};
    static const char *const bad[] = {"13", "0.13", "0.00.1", "0,7", "0-2,5",
                                      "+7", "#1", "#13", "0.1\u2026", "7-3",
                                      "0+0", "0.", "al", "1.0.1"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        if (!valid(good[i], &c))
            fail_msg("'%s' refused", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (valid(bad[i], &c))
            fail_msg("'%s' taken", bad[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checker),
        cmocka_unit_test(test_labels_whole),
        cmocka_unit_test(test_counters_whole),
        cmocka_unit_test(test_trees_whole),
        cmocka_unit_test(test_first_slide),
        cmocka_unit_test(test_legend_first),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
