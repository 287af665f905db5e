/* test_ui_export.c - pictures for slides: the SVG of a small screen built
 * by hand (one <text> per run of cells of one role, each role's colour
 * from the theme table and xterm's palette, < & > escaped, a wide
 * character placed over its two cells, frames drawn as lines), the
 * themes' contrast, the terminal bytes of a screen, the asciicast of a
 * scene (its header, and one screen per step), the command line's
 * exports and their refusals (one sentence, status 1 or 2), the key w that writes the
 * screen, the chart as lines (w in F), the topology's frames of a range of
 * steps with their link loads (--export-frames, w in Z), and the scene
 * string read back for every collective and
 * algorithm at several rank counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "call_fixture.h"
#include "run_bin.h"
#include "sweep_fixture.h"
#include "ui/chart_svg.h"
#include "ui/i18n.h"
#include "ui/export.h"
#include "ui/scene.h"
#include "ui/scene_str.h"
#include "ui/screen.h"
#include "ui/script.h"
#include "ui/share.h"
#include "ui/theme.h"

static char dir[] = "/tmp/collviz-export-XXXXXX";

static int setup(void **state)
{
    setenv("XDG_CACHE_HOME", "/dev/null/collviz-test-cache", 1);
    return mkdtemp(dir) ? 0 : -1;
}

/* The whole of a file (malloc'd). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 22);
    assert_non_null(buf);
    size_t n = fread(buf, 1, (1 << 22) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int count(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

/* The SVG of g under theme, as text. */
static char *svg_of(const Grid *g, int theme)
{
    char path[256];
    snprintf(path, sizeof path, "%s/g.svg", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(export_svg(f, g, theme), CV_OK);
    fclose(f);
    return slurp(path);
}

/* A 12 x 4 screen: a frame, "x<y&z>" in the value role, "中文ok" in the
 * title role and "!" in the error role. */
static void small_screen(Grid *g)
{
    assert_int_equal(grid_init(g, 12, 4, false), CV_OK);
    grid_box(g, grid_rect(g), ROLE_BORDER, NULL, ROLE_TITLE);
    grid_text(g, grid_rect(g), 1, 1, -1, ROLE_VALUE, 0, "x<y&z>");
    grid_text(g, grid_rect(g), 1, 2, -1, ROLE_TITLE, 0, "中文ok");
    grid_text(g, grid_rect(g), 9, 2, -1, ROLE_ERROR, 0, "!");
}

static void test_svg_structure(void **state)
{
    Grid g;
    small_screen(&g);
    char *svg = svg_of(&g, THEME_COLOUR);
    /* 10 x 20 pixels a cell */
    assert_non_null(strstr(svg, "width=\"120\" height=\"80\""));
    /* three runs of text; the blanks inside the frame make none */
    assert_int_equal(count(svg, "<text"), 3);
    assert_int_equal(count(svg, "</text>"), 3);
    /* escaped, and the characters at their cells (x = 10 * column) */
    assert_non_null(strstr(svg, "<text class=\"r-value\" x=\"10 20 30 40 50 "
                                "60\" y=\"35\" fill=\"#e5e5e5\" "
                                "font-weight=\"bold\">x&lt;y&amp;z&gt;</text>"));
    /* a wide character covers two cells: the next one starts two on */
    assert_non_null(strstr(svg, "<text class=\"r-title\" x=\"10 30 50 60\" "
                                "y=\"55\" fill=\"#00cdcd\" "
                                "font-weight=\"bold\">中文ok</text>"));
    /* the colour theme's error role: red (xterm's 205, 0, 0), bold */
    assert_non_null(strstr(svg, "class=\"r-error\" x=\"90\" y=\"55\" "
                                "fill=\"#cd0000\" font-weight=\"bold\">!<"));
    /* the frame: lines in the border role's blue (xterm's 0, 0, 238), no
       box-drawing character left as text */
    assert_true(count(svg, "<path ") >= 2);
    assert_non_null(strstr(svg, "class=\"r-border\" fill=\"none\" "
                                "stroke-width=\"1.5\" stroke=\"#0000ee\""));
    assert_null(strstr(svg, "\xe2\x94\x80")); /* ─ */
    assert_null(strstr(svg, "\xe2\x94\x8c")); /* ┌ */
    free(svg);
    /* a control character put in a cell by hand is no control in XML */
    grid_put(&g, grid_rect(&g), 3, 1, 0x1b, ROLE_VALUE, 0);
    svg = svg_of(&g, THEME_COLOUR);
    assert_null(strchr(svg, 0x1b));
    assert_non_null(strstr(svg, ">x&lt;?&amp;z&gt;</text>"));
    free(svg);
    grid_fini(&g);
}

static void test_svg_themes(void **state)
{
    Grid g;
    small_screen(&g);
    /* the deep theme keeps the role colours of the colour theme here */
    char *deep = svg_of(&g, THEME_DEEP);
    assert_non_null(strstr(deep, "fill=\"#00cdcd\" font-weight=\"bold\">中文ok"));
    free(deep);
    /* mono: the texts in the default foreground, the frame too; the
       error role reversed: the page's colour on a cell of the
       foreground's */
    char *mono = svg_of(&g, THEME_MONO);
    assert_int_equal(count(mono, "<text"), 3);
    assert_int_equal(count(mono, "fill=\"#e5e5e5\" font-weight"), 2);
    assert_non_null(strstr(mono, "stroke=\"#e5e5e5\""));
    assert_non_null(strstr(mono, "<rect x=\"90\" y=\"40\" width=\"10\" "
                                 "height=\"20\" fill=\"#e5e5e5\"/>"));
    assert_non_null(strstr(mono, "x=\"90\" y=\"55\" fill=\"#1c1c1c\""));
    free(mono);
    /* a reversed cell: its background is the foreground's colour */
    grid_put(&g, grid_rect(&g), 5, 1, 'R', ROLE_NORMAL, GRID_REVERSE);
    char *rev = svg_of(&g, THEME_COLOUR);
    assert_non_null(strstr(rev, "<rect x=\"50\" y=\"20\" width=\"10\" "
                                "height=\"20\" fill=\"#e5e5e5\"/>"));
    assert_non_null(strstr(rev, "x=\"50\" y=\"35\" fill=\"#1c1c1c\">R<"));
    free(rev);
    grid_fini(&g);
}

/* No theme draws a role's text in its background colour: either both
 * are the terminal's defaults, or they differ. */
static void test_theme_contrast(void **state)
{
    for (int t = 0; t < THEME_COUNT; t++)
        for (int r = 0; r < ROLE_COUNT; r++) {
            const ThemeStyle *st = theme_style(t, (Role)r);
            if (st->fg == st->bg && st->fg != THEME_DEFAULT)
                fail_msg("theme %s draws role %s in colour %d on itself",
                         theme_name(t), export_role_name((Role)r), st->fg);
            if (t == THEME_MONO)
                assert_true(st->fg == THEME_DEFAULT &&
                            st->bg == THEME_DEFAULT);
        }
    /* xterm's palette: a cube colour and a grey */
    assert_int_equal(theme_rgb(24), 0x005f87);
    assert_int_equal(theme_rgb(244), 0x808080);
    assert_int_equal(theme_parse("mono"), THEME_MONO);
    assert_int_equal(theme_parse("grey"), -1);
}

static void test_ansi(void **state)
{
    Grid g;
    assert_int_equal(grid_init(&g, 5, 2, false), CV_OK);
    grid_text(&g, grid_rect(&g), 0, 0, -1, ROLE_ERROR, 0, "ab");
    grid_text(&g, grid_rect(&g), 0, 1, -1, ROLE_NORMAL, 0, "中x");
    char *a = export_ansi(&g, THEME_COLOUR);
    assert_non_null(a);
    /* home and clear, then each row from its first column */
    assert_int_equal(strncmp(a, "\033[H\033[2J\033[1;1H", 13), 0);
    /* bold (1) and red (31) for the error role, reset between looks */
    assert_non_null(strstr(a, "\033[0;1;31mab\033[0m   "));
    /* the wide character once, then the next cell's character */
    assert_non_null(strstr(a, "\033[2;1H\033[0m中x  \033[0m"));
    free(a);
    grid_fini(&g);
}

/* An App of collective k by algo on p ranks, no background thread. */
static void open_app(App *app, CollKind k, const char *algo, int p,
                     bool in_place)
{
    AppOptions o = app_options(k, algo, p, true);
    char why[200];
    o.in_place = in_place;
    assert_int_equal(app_init(app, &o, why, sizeof why), CV_OK);
}

/* The ring all-reduce in place has 2(p-1) steps (p-1 of reduce-scatter,
 * p-1 of all-gather): its cast holds the initial screen and one per
 * step, `delay` seconds apart. */
static void test_cast(void **state)
{
    for (int p = 2; p <= 6; p += 2) {
        App app;
        Grid g;
        char why[300], path[256];
        snprintf(path, sizeof path, "%s/ring%d.cast", dir, p);
        open_app(&app, COLL_ALLREDUCE, "ring", p, true);
        grid_init(&g, 100, 30, false);
        assert_int_equal(share_cast(&app, &g, path, 0, 1000, 0.5,
                                    THEME_DEEP, why, sizeof why), CV_OK);
        char *c = slurp(path);
        int steps = 2 * (p - 1);
        char head[200];
        snprintf(head, sizeof head, "{\"version\": 2, \"width\": 100, "
                 "\"height\": 30, \"duration\": %.3f, \"title\": "
                 "\"allreduce -a ring -p %d --in-place\"", steps * 0.5, p);
        assert_int_equal(strncmp(c, head, strlen(head)), 0);
        assert_int_equal(count(c, "\n"), 1 + steps + 1);
        assert_int_equal(count(c, ", \"o\", \"\\u001b[H\\u001b[2J"),
                         steps + 1);
        char last[64];
        snprintf(last, sizeof last, "\n[%.3f, \"o\"", steps * 0.5);
        assert_non_null(strstr(c, last));
        assert_int_equal(app.scene->step, (size_t)steps);
        free(c);
        grid_fini(&g);
        app_fini(&app);
    }
}

/* A file that cannot be written is one sentence, and nothing is made. */
static void test_bad_paths(void **state)
{
    App app;
    Grid g;
    char why[300], path[300];
    open_app(&app, COLL_ALLREDUCE, "ring", 4, false);
    app.view.term_w = 80, app.view.term_h = 24;
    grid_init(&g, 80, 24, false);
    snprintf(path, sizeof path, "%s/no/such/folder/x.svg", dir);
    assert_int_equal(share_svg(&app, &g, path, THEME_DEEP, why, sizeof why),
                     CV_ERR_IO);
    assert_non_null(strstr(why, "does not exist"));
    snprintf(path, sizeof path, "%s/no", dir);
    assert_int_not_equal(access(path, F_OK), 0); /* no folder was made */
    assert_int_equal(share_svg(&app, &g, dir, THEME_DEEP, why, sizeof why),
                     CV_ERR_IO);
    assert_non_null(strstr(why, "directory"));
    /* X4: no export is written through a symbolic link, dangling or to a
       file (the file keeps its bytes), SVG or cast */
    char target[300], link[300];
    snprintf(target, sizeof target, "%s/target.svg", dir);
    snprintf(link, sizeof link, "%s/link.svg", dir);
    assert_int_equal(symlink(target, link), 0);
    for (int k = 0; k < 4; k++) {
        CvError e = k % 2 ? share_cast(&app, &g, link, 0, 1, 0.5,
                                       THEME_DEEP, why, sizeof why)
                          : share_svg(&app, &g, link, THEME_DEEP, why,
                                      sizeof why);
        assert_int_equal(e, CV_ERR_IO);
        assert_non_null(strstr(why, "is a symbolic link"));
        if (k < 2)
            assert_int_not_equal(access(target, F_OK), 0); /* dangling */
        else {
            char *mine = slurp(target);
            assert_string_equal(mine, "mine\n");
            free(mine);
        }
        if (k == 1) {
            FILE *f = fopen(target, "w");
            assert_non_null(f);
            fputs("mine\n", f);
            fclose(f);
        }
    }
    unlink(link);
    unlink(target);
    grid_fini(&g);
    app_fini(&app);
}

/* The text of a script's last frame, and the App after it. */
static char *run_script(App *app, const char *text)
{
    Script s;
    char why[200];
    Grid g;
    assert_int_equal(script_parse(text, &s, why, sizeof why), CV_OK);
    grid_init(&g, app->view.term_w, app->view.term_h, false);
    ScriptRun run = {0};
    script_run(app, &s, &run, &g);
    char *t = grid_dump(&g, false);
    grid_fini(&g);
    script_fini(&s);
    return t;
}

/* w asks for a file, a free name in the current folder typed already;
 * Enter writes the screen as it was before the prompt, and says so. */
static void test_key_w(void **state)
{
    App app;
    char cwd[512], want[300];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    open_app(&app, COLL_ALLREDUCE, "ring", 8, false);
    char *t = run_script(&app, "Right Right Right w");
    assert_non_null(strstr(t, "collviz-allreduce-ring-p8-step3.svg"));
    free(t);
    t = run_script(&app, "Enter");
    assert_non_null(strstr(t, "Wrote the screen (100x30) as SVG to "
                              "collviz-allreduce-ring-p8-step3.svg."));
    free(t);
    char *svg = slurp("collviz-allreduce-ring-p8-step3.svg");
    assert_non_null(strstr(svg, "width=\"1000\" height=\"600\""));
    assert_null(strstr(svg, "Enter writes")); /* not the prompt's screen */
    free(svg);
    /* taken: the next name; a dangling link takes its name too (X4: the
       name offered is free by lstat, and Enter creates nothing where the
       link points) */
    assert_int_equal(symlink("planted-target.svg",
                             "collviz-allreduce-ring-p8-step3-2.svg"), 0);
    t = run_script(&app, "w");
    snprintf(want, sizeof want, "collviz-allreduce-ring-p8-step3-3.svg");
    assert_non_null(strstr(t, want));
    free(t);
    t = run_script(&app, "Enter");
    assert_non_null(strstr(t, "collviz-allreduce-ring-p8-step3-3.svg."));
    free(t);
    assert_int_not_equal(access("planted-target.svg", F_OK), 0);
    t = run_script(&app, "Esc u");
    assert_non_null(strstr(t, "Scene: allreduce -a ring -p 8 --step 3"));
    free(t);
    /* W: steps 3 to 15 (ring all-reduce out of place on 8 ranks: the
       copy-in and 2(p-1) = 14 steps), thirteen screens; the scene stays
       at step 3 */
    t = run_script(&app, "W");
    assert_non_null(strstr(t, "collviz-allreduce-ring-p8-step3.cast"));
    free(t);
    t = run_script(&app, "Enter");
    assert_non_null(strstr(t, "Wrote steps 3 to 15 (100x30) as an "
                              "asciicast to collviz-allreduce-ring-p8-"
                              "step3.cast."));
    free(t);
    assert_int_equal(app.scene->step, 3);
    char *cast = slurp("collviz-allreduce-ring-p8-step3.cast");
    assert_int_equal(count(cast, "\n"), 1 + 15 - 3 + 1);
    free(cast);
    app_fini(&app);
    assert_int_equal(chdir(cwd), 0);
}

/* The x coordinates of polyline `cls` of algorithm `algo` in svg, in
 * the order written; how many (-1: no such line). */
static int line_xs(const char *svg, const char *cls, const char *algo,
                   double *x, int cap)
{
    char head[160];
    snprintf(head, sizeof head, "<polyline class=\"%s\" data-algo=\"%s\" "
             "points=\"", cls, algo);
    const char *at = strstr(svg, head);
    if (!at)
        return -1;
    at += strlen(head);
    int n = 0, used;
    double y;
    while (n < cap && sscanf(at, "%lf,%lf%n", &x[n], &y, &used) == 2)
        n++, at += used;
    return n;
}

/* WCAG's contrast of the colour "#rrggbb" at s against the SVG's ground
 * #1c1c1c (relative luminance from its definition). */
static double contrast(const char *s)
{
    unsigned v = (unsigned)strtoul(s + 1, NULL, 16);
    double l[2];
    unsigned rgb[2] = {v, 0x1c1c1c};
    for (int k = 0; k < 2; k++) {
        double sum = 0, w[3] = {0.2126, 0.7152, 0.0722};
        for (int i = 0; i < 3; i++) {
            double c = ((rgb[k] >> (16 - 8 * i)) & 0xff) / 255.0;
            c = c <= 0.03928 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
            sum += w[i] * c;
        }
        l[k] = sum;
    }
    return (l[0] + 0.05) / (l[1] + 0.05);
}

/* In the full-screen chart, w writes the chart as lines: one measured
 * polyline and one dashed model line per shown algorithm (the ring and
 * the two fastest, sweep_fixture.h, posted largest first), its points
 * in order of size, a
 * marker per measured point, the size axis from 8 B to 64 MiB (the
 * scene's size), the times, the crossovers in words; in Chinese too. */
static void test_chart_svg(void **state)
{
    App app;
    char cwd[512];
    double x[64];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    open_app(&app, COLL_ALLREDUCE, "ring", 8, false);
    sweep3_fill(&app);
    for (size_t i = 0, n = app.bg.nsweep; i < n / 2; i++) { /* the largest
                                                  first: lines sort them */
        SweepPoint t = app.bg.sweep[i];
        app.bg.sweep[i] = app.bg.sweep[n - 1 - i];
        app.bg.sweep[n - 1 - i] = t;
    }
    app.view.chart_full = true;
    free(run_script(&app, "w"));
    char *t = run_script(&app, "Enter");
    assert_non_null(strstr(t, "Wrote the chart as an SVG of lines to "
                              "collviz-allreduce-ring-p8-step0.svg."));
    free(t);
    char *svg = slurp("collviz-allreduce-ring-p8-step0.svg");
    assert_int_equal(count(svg, "<polyline class=\"measured\""), 3);
    assert_int_equal(count(svg, "<polyline class=\"model\""), 3);
    assert_int_equal(count(svg, "class=\"point\""), 3 * SWEEP3_SIZES);
    static const char *const shown[] = {"direct", "ring", "tree"};
    for (int i = 0; i < 3; i++)
        for (int m = 0; m < 2; m++) {
            int n = line_xs(svg, m ? "model" : "measured", shown[i], x, 64);
            assert_int_equal(n, SWEEP3_SIZES);
            for (int k = 1; k < n; k++)
                assert_true(x[k] > x[k - 1]);
        }
    assert_int_equal(line_xs(svg, "measured", "butterfly", x, 64), -1);
    assert_non_null(strstr(svg, ">8 B</text>"));
    assert_non_null(strstr(svg, ">64 MiB</text>"));
    assert_non_null(strstr(svg, ">10 us</text>"));
    assert_non_null(strstr(svg, ">message size</text>"));
    assert_non_null(strstr(svg, ">tree beats direct from 8 KiB; ring beats "
                                "tree from 128 KiB</text>"));
    assert_int_equal(count(svg, "class=\"crossover\""), 2);
    free(svg);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ui_lang_use(UI_LANG_ZH);
    assert_int_equal(chart_svg(m, &app, THEME_DEEP), CV_OK);
    ui_lang_use(UI_LANG_EN);
    fclose(m);
    assert_non_null(strstr(buf, "tree 从 8 KiB 起快于 direct; ring 从 "
                                "128 KiB 起快于 tree"));
    assert_non_null(strstr(buf, ">消息大小</text>"));
    free(buf);
    /* every line of every theme and every choice V gives (all of them at
     * the last) reads on the slide's dark ground (xterm's red and blue
     * did not: 2.9 and 2.2 to 1), WCAG's 3 to 1 for graphics */
    for (int th = 0; th < THEME_COUNT; th++)
        for (int pick = 0; pick < 8; pick++) {
            app.view.chart_pick = pick;
            m = open_memstream(&buf, &len);
            assert_int_equal(chart_svg(m, &app, th), CV_OK);
            fclose(m);
            for (const char *at = buf; (at = strstr(at, "stroke=\"#"));
                 at += 8)
                if (contrast(at + 8) < 3.0)
                    fail_msg("theme %d, V %d: a stroke of contrast %.2f: "
                             "%.20s", th, pick, contrast(at + 8), at);
            free(buf);
        }
    app_fini(&app);
    assert_int_equal(chdir(cwd), 0);
}

/* Crossovers wider than the slide (the lead changing from size to size
 * among three algorithms) are set on at most two rows at
 * the small size, each row within the plot's 1160 px at 0.55 of the font
 * size a column, those left counted ("+N"); every crossover is a line on
 * the plot. */
static void test_chart_svg_many_crossovers(void **state)
{
    (void)state;
    App app;
    open_app(&app, COLL_ALLREDUCE, "ring", 8, false);
    const AlgoInfo *three[3] = {algo_find(COLL_ALLREDUCE, "ring"),
                                algo_find(COLL_ALLREDUCE, "tree"),
                                algo_find(COLL_ALLREDUCE, "direct")};
    app.bg.compare = true;
    app.bg.nsweep = 0;
    for (int i = 0; i < SWEEP3_SIZES; i++)
        for (int a = 0; a < 3; a++) {
            double bytes = 8.0 * (1 << (2 * i));
            double s = (a == i % 3 ? 1e-6 : 2e-6) * (1 + i);
            app.bg.sweep[app.bg.nsweep++] = (SweepPoint){
                .algo = three[a], .bytes = (uint64_t)bytes, .time_s = s,
                .model_s = s, .ok = true, .algbw = bytes / s / 1e9,
                .busbw = bytes / s / 1e9, .model_busbw = bytes / s / 1e9};
        }
    app.bg.planned = app.bg.nsweep;
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_int_equal(chart_svg(m, &app, THEME_DEEP), CV_OK);
    fclose(m);
    int lines = count(buf, "class=\"crossover\""), rows = 0, said = 0,
        more = 0;
    assert_true(lines >= 6);
    for (const char *at = buf; (at = strstr(at, "<text ")); at++) {
        const char *end = strstr(at, "</text>"), *gt = strchr(at, '>');
        int size = 0;
        sscanf(strstr(at, "font-size=\"") + 11, "%d", &size);
        char row[700];
        snprintf(row, sizeof row, "%.*s", (int)(end - gt - 1), gt + 1);
        if (!strstr(row, " beats "))
            continue;
        rows++;
        assert_int_equal(size, 18);
        if (grid_text_width(row) * 0.55 * size > 1160)
            fail_msg("a crossover row of %.0f px: %s",
                     grid_text_width(row) * 0.55 * size, row);
        for (const char *q = row; (q = strstr(q, " beats ")); q++)
            said++;
        const char *plus = strrchr(row, '+');
        if (plus && sscanf(plus, "+%d", &more) != 1)
            more = 0;
    }
    assert_int_equal(rows, 2);
    assert_true(more > 0);
    assert_int_equal(said + more, lines);
    free(buf);
    app_fini(&app);
}

/* The text between `open` and the next '<' after frame `step`'s start
 * in svg (malloc'd), or NULL. */
static char *frame_part(const char *svg, int step, const char *open)
{
    char head[64];
    snprintf(head, sizeof head, "<g class=\"frame\" data-step=\"%d\">", step);
    const char *at = strstr(svg, head);
    if (!at || !(at = strstr(at, open)))
        return NULL;
    at += strlen(open);
    return strndup(at, strcspn(at, "<"));
}

/* --export-frames: ring allreduce of 64 B (16 floats) on 4 ranks of a
 * 2x2 torus, steps 1 to 3: one frame each, titled with its step. By
 * hand: step 1 is the copy-in (no link); in steps 2 and 3 each rank r
 * sends one block of 16 B to r+1. With x = r % 2, y = r / 2 and routes in
 * dimension order (x, then y): 0>1 and 2>3 are one x hop; 1>2 goes
 * 1>0 (x) then 0>2 (y); 3>0 goes 3>2 (x) then 2>0 (y). So six links
 * carry 16 B each: r0>r1, r1>r0, r2>r3, r3>r2, r0>r2, r2>r0. */
static void test_frames_cli(void **state)
{
    char path[300];
    snprintf(path, sizeof path, "%s/frames.svg", dir);
    const char *args[] = {"allreduce", "-a", "ring", "-p", "4", "-T",
                          "torus:2x2", "-s", "64", "--step", "1",
                          "--last-step", "3", "--export-frames", path, NULL};
    Ran r = run_args(args);
    if (r.status)
        fail_msg("status %d: %s", r.status, r.err);
    ran_free(&r);
    char *svg = slurp(path);
    assert_int_equal(count(svg, "<g class=\"frame\""), 3);
    static const char *const loads[] = {
        "", "r0&gt;r1 16 B, r1&gt;r0 16 B, r2&gt;r3 16 B, r3&gt;r2 16 B, "
        "r0&gt;r2 16 B, r2&gt;r0 16 B"};
    for (int k = 1; k <= 3; k++) {
        char *title = frame_part(svg, k, "<title>");
        char *desc = frame_part(svg, k, "<desc class=\"loads\">");
        char want[64];
        snprintf(want, sizeof want, "step %d of 7: %s", k,
                 k == 1 ? "copy-in" : "reduce-scatter");
        assert_non_null(title);
        assert_non_null(desc);
        if (strncmp(title, want, strlen(want)))
            fail_msg("frame %d: '%s', not '%s'", k, title, want);
        assert_string_equal(desc, loads[k > 1]);
        free(title);
        free(desc);
    }
    assert_null(frame_part(svg, 4, "<title>"));
    free(svg);
    const char *both[] = {"allreduce", "--export-frames", path,
                          "--export-svg", path, NULL};
    r = run_args(both);
    assert_int_equal(r.status, 2);
    ran_free(&r);
}

/* In the full-screen topology, w writes the frames of the steps from the
 * shown one, at most SHARE_FRAMES_MAX, and the scene stays at its step. */
static void test_frames_key(void **state)
{
    App app;
    char cwd[512];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    open_app(&app, COLL_ALLREDUCE, "ring", 8, false);
    free(run_script(&app, "Right Right Z w"));
    char *t = run_script(&app, "Enter");
    if (!strstr(t, "Wrote the topology of steps 2 to 7 as SVG frames to "
                   "collviz-allreduce-ring-p8-step2.svg."))
        fail_msg("%s", t);
    free(t);
    assert_int_equal(app.scene->step, 2);
    char *svg = slurp("collviz-allreduce-ring-p8-step2.svg");
    assert_int_equal(count(svg, "<g class=\"frame\""), SHARE_FRAMES_MAX);
    for (int k = 2; k <= 7; k++) {
        char *title = frame_part(svg, k, "<title>"), want[32];
        snprintf(want, sizeof want, "step %d of 15: ", k);
        assert_non_null(title);
        assert_int_equal(strncmp(title, want, strlen(want)), 0);
        free(title);
    }
    free(svg);
    app_fini(&app);
    assert_int_equal(chdir(cwd), 0);
}

/* One scene string: written, read back, the same scene. */
static void round_trip(const SceneStr *in)
{
    char text[SCENE_STR_LEN], again[SCENE_STR_LEN];
    SceneStr out;
    CliErr e = {{0}};
    scene_str_format(in, text, sizeof text);
    if (scene_str_parse(text, &out, &e))
        fail_msg("'%s' is refused: %s", text, e.msg);
    const CollCall *a = &in->spec.call, *b = &out.spec.call;
    assert_int_equal(a->kind, b->kind);
    assert_ptr_equal(in->spec.algo, out.spec.algo);
    assert_int_equal(a->nranks, b->nranks);
    assert_int_equal(a->dtype, b->dtype);
    if (coll_is_reducing(a->kind))
        assert_int_equal(a->op, b->op);
    assert_int_equal(a->root, b->root);
    assert_int_equal(a->in_place, b->in_place);
    assert_int_equal(a->segment, b->segment);
    assert_true(in->spec.bytes == out.spec.bytes);
    assert_string_equal(in->spec.machine.given, out.spec.machine.given);
    assert_int_equal(in->step, out.step);
    assert_int_equal(in->cells, out.cells);
    assert_int_equal(in->present, out.present);
    scene_str_format(&out, again, sizeof again);
    assert_string_equal(text, again);
}

/* Every collective and algorithm at 2, 5, 8 and 13 ranks, with sizes,
 * roots, datatypes, ops, machines and steps that vary. */
static void test_scene_str(void **state)
{
    static const int ps[] = {2, 5, 8, 13};
    static const char *const topos[] = {"", "bus", "ring"};
    size_t n = 0;
    for (size_t i = 0; i < algo_count(); i++) {
        const AlgoInfo *al = algo_at(i);
        for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++) {
            int p = ps[j];
            bool in_place = (i + j) % 2 && al->coll != COLL_SENDRECV;
            if (!call_defined(al->coll, p, in_place))
                continue;
            SceneStr s = {.step = (int)(i + j) % 5, .cells = 1 + (int)j,
                          .present = j % 2};
            s.spec.call = (CollCall){.kind = al->coll, .nranks = p,
                                     .dtype = j == 2 ? DT_DOUBLE : DT_FLOAT,
                                     .op = j == 3 ? OP_MAX : OP_SUM,
                                     .root = coll_is_rooted(al->coll) ? p - 1
                                                                      : 0,
                                     .in_place = in_place,
                                     .segment = al->segments ? 4096u << j : 0};
            s.spec.algo = al;
            /* whole blocks: p * 8 bytes a block divides every size here */
            s.spec.bytes = j == 0 ? 64ull << 20 : (unsigned long long)p * 8 << (10 * j);
            CliErr ce;
            assert_int_equal(spec_machine_name(&s.spec.machine, topos[i % 3], &ce), 0);
            round_trip(&s);
            n++;
        }
    }
    assert_true(n > 80);
    /* X8: a machine file whose path has a blank: quoted, it reopens */
    char file[300], text[600];
    snprintf(file, sizeof file, "%s/my machine.yml", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\n"
          "latency: [ 500 ]\n", f);
    fclose(f);
    snprintf(text, sizeof text, "allreduce -a ring -p 8 -T \"%s\"", file);
    SceneStr q;
    CliErr ce = {{0}};
    if (scene_str_parse(text, &q, &ce))
        fail_msg("'%s' is refused: %s", text, ce.msg);
    round_trip(&q);
    scene_str_format(&q, text, sizeof text);
    assert_non_null(strstr(text, "-T \""));
    assert_int_equal(scene_str_parse("allreduce -T \"x y", &q, &ce), -1);
    assert_non_null(strstr(ce.msg, "double quote that is not closed"));
    unlink(file);
}

/* The string of an App's scene after a few steps reopens it: the same
 * call, algorithm and step. */
static void test_scene_str_of_app(void **state)
{
    App app;
    SceneStr s, back;
    char text[SCENE_STR_LEN];
    CliErr e = {{0}};
    open_app(&app, COLL_REDUCE, "binomial", 6, false);
    char *t = run_script(&app, "Right Right");
    free(t);
    scene_str_of(app.scene, true, &s);
    scene_str_format(&s, text, sizeof text);
    assert_string_equal(text, "reduce -a binomial -p 6 --present --step 2");
    assert_int_equal(scene_str_parse(text, &back, &e), 0);
    assert_int_equal(back.spec.call.kind, COLL_REDUCE);
    assert_int_equal(back.step, 2);
    app_fini(&app);
    /* what is refused, with the parsers' sentences */
    assert_int_equal(scene_str_parse("", &back, &e), -1);
    assert_non_null(strstr(e.msg, "empty"));
    assert_int_equal(scene_str_parse("allreduce -p 99", &back, &e), -1);
    assert_non_null(strstr(e.msg, "64"));
    assert_int_equal(scene_str_parse("allreduce --step x", &back, &e), -1);
    assert_non_null(strstr(e.msg, "--step"));
    assert_int_equal(scene_str_parse("allreduce -B threads", &back, &e), -1);
}

/* The command line: an export needs no terminal; a bad path is one
 * sentence and status 1, bad input one sentence and status 2. */
static void test_command_line(void **state)
{
    char svg[300], cast[300], bad[300];
    snprintf(svg, sizeof svg, "%s/cli.svg", dir);
    snprintf(cast, sizeof cast, "%s/cli.cast", dir);
    snprintf(bad, sizeof bad, "%s/missing/cli.svg", dir);
    const char *ok[] = {"allreduce", "-a", "ring", "-p", "8",
                        "--step", "3", "--export-svg", svg, NULL};
    Ran r = run_args(ok);
    if (r.status)
        fail_msg("status %d: %s", r.status, r.err);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "");
    char *text = slurp(svg);
    assert_non_null(strstr(text, "width=\"1000\" height=\"600\""));
    assert_non_null(strstr(text, ">step</text>")); /* the header's step */
    free(text);
    ran_free(&r);
    /* --scene, a range of steps 2 to 4: three screens */
    const char *sc[] = {"--scene", "allgather -a ring -p 4 "
                        "--step 2", "--export-cast", cast, "--last-step",
                        "4", "--screen", "80x24", NULL};
    r = run_args(sc);
    assert_int_equal(r.status, 0);
    text = slurp(cast);
    assert_int_equal(count(text, "\n"), 1 + 3);
    assert_non_null(strstr(text, "\"width\": 80, \"height\": 24"));
    free(text);
    ran_free(&r);
    /* SVG to standard output */
    const char *out[] = {"reduce", "-p", "4", "--export-svg",
                         "-", "--theme", "mono", NULL};
    r = run_args(out);
    assert_int_equal(r.status, 0);
    assert_int_equal(strncmp(r.out, "<?xml", 5), 0);
    ran_free(&r);
    /* a folder that does not exist: status 1, one line */
    const char *nodir[] = {"--export-svg", bad, NULL};
    r = run_args(nodir);
    run_expect_sentence(&r, "a missing folder", 1, "does not exist");
    ran_free(&r);
    /* bad input: status 2, one line each */
    static const char *const inputs[][7] = {
        {"past the last step", "--step", "99", "--export-svg", "x.svg"},
        {"--scene holds", "--scene", "allreduce -p 4", "-p", "8"},
        {"goes with", "--delay", "1"},
        {"colour, deep or mono", "--theme", "grey"},
        {"comes before", "--export-cast", "x.cast", "--step", "3",
         "--last-step", "2"},
    };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        const char *args[8] = {NULL};
        for (int k = 1; k < 7 && inputs[i][k]; k++)
            args[k - 1] = inputs[i][k];
        r = run_args(args);
        run_expect_sentence(&r, inputs[i][1], 2, inputs[i][0]);
        ran_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_svg_structure),
        cmocka_unit_test(test_svg_themes),
        cmocka_unit_test(test_theme_contrast),
        cmocka_unit_test(test_ansi),
        cmocka_unit_test(test_cast),
        cmocka_unit_test(test_bad_paths),
        cmocka_unit_test(test_key_w),
        cmocka_unit_test(test_chart_svg),
        cmocka_unit_test(test_chart_svg_many_crossovers),
        cmocka_unit_test(test_frames_cli),
        cmocka_unit_test(test_frames_key),
        cmocka_unit_test(test_scene_str),
        cmocka_unit_test(test_scene_str_of_app),
        cmocka_unit_test(test_command_line),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
