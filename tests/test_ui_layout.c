/* test_ui_layout.c - terminal size to panel rectangles, over every size
 * from the minimum to large screens and every combination of panels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ui/layout.h"

static bool empty(Rect r) { return r.w <= 0 || r.h <= 0; }

static bool overlap(Rect a, Rect b)
{
    Rect c = rect_clip(a, b);
    return !empty(a) && !empty(b) && c.w > 0 && c.h > 0;
}

static bool inside(Rect r, int w, int h)
{
    return r.x >= 0 && r.y >= 0 && r.x + r.w <= w && r.y + r.h <= h;
}

/* The panels that tile the screen (overlays excluded). */
static const ViewId tiles[] = {VIEW_HEADER,   VIEW_BUFFERS, VIEW_TRANSFERS,
                               VIEW_TOPOLOGY, VIEW_TIMELINE, VIEW_COUNTERS,
                               VIEW_CHART,    VIEW_STATUS};
#define NTILES (sizeof tiles / sizeof tiles[0])

/* Every property of one layout. */
static void check_layout(const LayoutIn *in, const Layout *l)
{
    int covered = 0;
    assert_false(l->too_small);
    for (size_t i = 0; i < NTILES; i++) {
        Rect a = l->r[tiles[i]];
        assert_true(inside(a, in->w, in->h));
        for (size_t j = i + 1; j < NTILES; j++)
            assert_false(overlap(a, l->r[tiles[j]]));
        if (!empty(a))
            covered += a.w * a.h;
        /* framed panels get room for a frame and two lines, or nothing */
        if (tiles[i] != VIEW_HEADER && tiles[i] != VIEW_STATUS && !empty(a))
            assert_true(a.h >= 4 && a.w >= 20);
    }
    /* the panels tile the whole screen: nothing left blank */
    assert_int_equal(covered, in->w * in->h);
    assert_int_equal(l->r[VIEW_HEADER].y, 0);
    assert_int_equal(l->r[VIEW_HEADER].w, in->w);
    assert_int_equal(l->r[VIEW_STATUS].y, in->h - 1);
    assert_false(empty(l->r[VIEW_BUFFERS]));
    assert_false(empty(l->r[VIEW_COUNTERS]));
    /* the picture gets what it wants, or at least half the body */
    int want = in->buffer_rows + 2, body = in->h - 3;
    assert_true(l->r[VIEW_BUFFERS].h >= (want < body / 2 ? want : body / 2));
    for (int v = 0; v < VIEW_COUNT; v++)
        if (!in->show[v] && v != VIEW_COUNTERS && v != VIEW_BUFFERS)
            assert_true(empty(l->r[v]));
    if (in->show[VIEW_MENU] && in->menu_items) {
        assert_true(inside(l->r[VIEW_MENU], in->w, in->h));
        assert_false(overlap(l->r[VIEW_MENU], l->r[VIEW_STATUS]));
    }
    if (in->show[VIEW_HELP])
        assert_false(empty(l->r[VIEW_HELP]));
}

static void test_sizes_and_panels(void **state)
{
    for (int w = LAYOUT_MIN_W; w <= 260; w += 3)
        for (int h = LAYOUT_MIN_H; h <= 90; h += 2)
            for (int mask = 0; mask < 32; mask++) {
                LayoutIn in = {.w = w, .h = h, .buffer_rows = 3 + (w + h) % 67,
                               .transfer_rows = 1 + h % 40,
                               .timeline_rows = 2 + w % 64,
                               .menu_items = 1 + (w * h) % 40,
                               .menu_width = w % 50};
                in.show[VIEW_HEADER] = in.show[VIEW_STATUS] = true;
                in.show[VIEW_BUFFERS] = in.show[VIEW_COUNTERS] = true;
                in.show[VIEW_TRANSFERS] = mask & 1;
                in.show[VIEW_TOPOLOGY] = mask & 2;
                in.show[VIEW_TIMELINE] = mask & 4;
                in.show[VIEW_CHART] = mask & 8;
                in.show[VIEW_MENU] = mask & 16;
                in.show[VIEW_HELP] = (mask & 17) == 17;
                Layout l;
                layout_compute(&in, &l);
                check_layout(&in, &l);
            }
}

static void test_too_small(void **state)
{
    for (int w = 0; w < LAYOUT_MIN_W + 5; w++)
        for (int h = 0; h < LAYOUT_MIN_H + 5; h++) {
            LayoutIn in = {.w = w, .h = h, .buffer_rows = 10};
            in.show[VIEW_BUFFERS] = true;
            Layout l;
            layout_compute(&in, &l);
            bool small = w < LAYOUT_MIN_W || h < LAYOUT_MIN_H;
            assert_int_equal(l.too_small, small);
            for (int v = 0; small && v < VIEW_COUNT; v++)
                assert_true(empty(l.r[v]));
        }
}

/* The same input gives the same rectangles (a pure function). */
static void test_pure(void **state)
{
    LayoutIn in = {.w = 133, .h = 41, .buffer_rows = 19, .transfer_rows = 9,
                   .timeline_rows = 18};
    for (int v = 0; v < VIEW_COUNT; v++)
        in.show[v] = v != VIEW_HELP && v != VIEW_MENU;
    Layout a, b;
    layout_compute(&in, &a);
    layout_compute(&in, &b);
    for (int v = 0; v < VIEW_COUNT; v++) {
        assert_int_equal(a.r[v].x, b.r[v].x);
        assert_int_equal(a.r[v].y, b.r[v].y);
        assert_int_equal(a.r[v].w, b.r[v].w);
        assert_int_equal(a.r[v].h, b.r[v].h);
    }
}

/* F and Z: the chart, or the topology, alone over everything between the
 * header (2 rows) and the status line, in either mode, at every size. */
static void test_chart_full(void **state)
{
    (void)state;
    for (int w = LAYOUT_MIN_W; w <= 260; w += 7)
        for (int h = LAYOUT_MIN_H; h <= 90; h += 5)
            for (int present = 0; present < 4; present++) {
                /* 0, 1: the chart (normal, presenter); 2, 3: the
                   topology (Z) */
                ViewId full = present < 2 ? VIEW_CHART : VIEW_TOPOLOGY;
                LayoutIn in = {.w = w, .h = h, .buffer_rows = 9,
                               .present = present % 2,
                               .chart_full = full == VIEW_CHART,
                               .topo_full = full == VIEW_TOPOLOGY};
                for (int v = 0; v < VIEW_COUNT; v++)
                    in.show[v] = v != VIEW_HELP && v != VIEW_MENU &&
                                 v != VIEW_PROMPT;
                Layout l;
                layout_compute(&in, &l);
                Rect c = l.r[full];
                assert_int_equal(c.x, 0);
                assert_int_equal(c.y, 2);
                assert_int_equal(c.w, w);
                assert_int_equal(c.h, h - 3);
                for (int v = 0; v < VIEW_COUNT; v++)
                    if (v != (int)full && v != VIEW_HEADER &&
                        v != VIEW_STATUS)
                        assert_true(empty(l.r[v]));
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes_and_panels),
        cmocka_unit_test(test_too_small),
        cmocka_unit_test(test_pure),
        cmocka_unit_test(test_chart_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
