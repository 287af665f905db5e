/* view_transfers.c - the shown step in words: who sends which cells to
 * whom, copied or reduced, and how many bytes that is at the measured
 * size. In the initial state it previews step 1. */
#include <stdio.h>
#include <string.h>

#include "ui/i18n.h"
#include "ui/sentence.h"
#include "ui/view.h"
#include "ui/words.h"

/* The step the list describes: the shown one, or step 0 as a preview. */
static bool listed_step(const App *app, size_t *k, bool *preview)
{
    const Scene *sc = app->scene;
    *preview = !scene_shown(sc, k);
    if (*preview)
        *k = 0;
    return *k < sc->sched.nsteps;
}

/* "recv[2]" or "recv[2..5]". */
static void range(char *out, size_t len, uint8_t buf, size_t off, size_t n)
{
    if (n == 1)
        snprintf(out, len, "%s[%zu]", buf_name((BufId)buf), off);
    else
        snprintf(out, len, "%s[%zu..%zu]", buf_name((BufId)buf), off,
                 off + n - 1);
}

/* Bytes of transfer x at the measured size, when the schedules match. */
static bool big_bytes(const App *app, size_t k, size_t x, double *bytes)
{
    const Scene *sc = app->scene;
    if (!sc->big_ok)
        return false;
    const Step *a = &sc->sched.steps[k], *b = &sc->big_sched.steps[k];
    if (a->n != b->n)
        return false;
    const Transfer *t = &sc->big_sched.xfers[b->first + (x - a->first)];
    *bytes = (double)t->count * (double)dtype_size(sc->big.dtype);
    return true;
}

/* One transfer as a sentence. */
static void draw_xfer(const App *app, Grid *g, Rect r, int y, size_t k,
                      size_t x)
{
    const Transfer *t = &app->scene->sched.xfers[x];
    char src[40], dst[40], sz[24], size[32] = "";
    range(src, sizeof src, t->src_buf, t->src_off, t->count);
    range(dst, sizeof dst, t->dst_buf, t->dst_off, t->count);
    double bytes;
    if (big_bytes(app, k, x, &bytes)) {
        view_fmt_bytes(sz, sizeof sz, bytes);
        snprintf(size, sizeof size, " (%s)", sz);
    }
    bool red = t->op == XFER_REDUCE;
    char line[200];
    if (t->src == t->dst)
        snprintf(line, sizeof line, red ? _("r%d reduces %s into its %s%s")
                 : _("r%d copies %s into its %s%s"), t->src, src, dst, size);
    else if (red)
        snprintf(line, sizeof line, _("r%d sends %s to r%d, reduced into %s%s"),
                 t->src, src, t->dst, dst, size);
    else
        snprintf(line, sizeof line, _("r%d sends %s to r%d %s%s"), t->src, src,
                 t->dst, dst, size);
    if (grid_text_width(line) > r.w) /* the short form */
        snprintf(line, sizeof line, "r%d>r%d %s %s>%s%s", t->src, t->dst,
                 red ? _("reduce") : _("copy"), src, dst, size);
    grid_text(g, r, r.x, y, -1, red ? ROLE_REDUCE : ROLE_COPY, 0, line);
    grid_paint(g, rect_clip((Rect){r.x, y, 1 + snprintf(NULL, 0, "%d", t->src),
                                   1}, r), ROLE_NODE, 0);
}

/* Text over at most `max` rows of r from row y, broken as
 * grid_wrap_line says (what the last row cannot hold ends in "…"); the
 * rows used. */
static int draw_words(Grid *g, Rect r, int y, const char *s, int max)
{
    char line[400];
    int rows = 0;
    while (*s && rows < max) {
        const char *end, *next = grid_wrap_line(s, r.w, &end);
        bool cut = rows + 1 == max && *next && r.w > 1;
        if (cut)
            grid_wrap_line(s, r.w - 1, &end);
        snprintf(line, sizeof line, "%.*s%s", (int)(end - s), s,
                 cut ? "\xe2\x80\xa6" : "");
        grid_text(g, r, r.x, y + rows, r.w, ROLE_VALUE, 0, line);
        s = next;
        rows++;
    }
    return rows;
}

/* Every transfer of the step as "r0>r1" (a reduce as "r0+>r1"), as many
 * to a line as fit: the whole step where the list would not fit. */
static void draw_compact(const App *app, Grid *g, Rect r, const Step *st)
{
    const Scene *sc = app->scene;
    int x = r.x, y = r.y;
    for (size_t i = 0; i < st->n; i++) {
        const Transfer *t = &sc->sched.xfers[st->first + i];
        char tok[32];
        int w = snprintf(tok, sizeof tok, "r%d%s>r%d ", t->src,
                         t->op == XFER_REDUCE ? "+" : "", t->dst);
        if (x + w > r.x + r.w)
            x = r.x, y++;
        if (y >= r.y + r.h ||
            (y == r.y + r.h - 1 && i + 1 < st->n && x + w + 10 > r.x + r.w)) {
            grid_printf(g, r, x, y < r.y + r.h ? y : y - 1, -1, ROLE_DIM, 0,
                        "+%zu", st->n - i);
            return;
        }
        x += grid_text(g, r, x, y, -1, t->op == XFER_REDUCE ? ROLE_REDUCE
                                                           : ROLE_COPY,
                       0, tok);
    }
}

static void transfers_draw(const App *app, Grid *g, Rect r)
{
    const Scene *sc = app->scene;
    size_t k;
    bool preview;
    if (!listed_step(app, &k, &preview)) {
        grid_text(g, r, r.x, r.y, -1, ROLE_DIM, 0,
                  sc->sched.nsteps ? _("all steps done")
                                   : _("this call moves no data (no steps)"));
        return;
    }
    const Step *st = &sc->sched.steps[k];
    int head = r.h > 3; /* the header says the step too */
    if (head)
        grid_printf(g, r, r.x, r.y, -1, ROLE_HEADER, 0,
                    preview ? _("next: step %zu (%s): %zu transfers")
                            : _("step %zu (%s): %zu transfers"),
                    k + 1, words_phase(st->phase), st->n);
    char say[400];
    step_sentence(&sc->sched, &sc->machine.mach, k, say, sizeof say);
    /* the sentence first, over the rows it needs (a sentence cut short
       says less than a list cut short); the transfers in the rows left */
    int most = r.h - head < 2 ? 2 : r.h - head;
    int used = head + draw_words(g, r, r.y + head, say, most) - 1;
    int rows = r.h - 1 - used;
    if (st->n > (size_t)rows && rows > 0) {
        draw_compact(app, g, (Rect){r.x, r.y + 1 + used, r.w, rows}, st);
        return;
    }
    for (size_t i = 0; i < st->n && (int)i < rows; i++)
        draw_xfer(app, g, r, r.y + 1 + used + (int)i, k, st->first + i);
}

/* A click on a transfer selects the first cell it writes. */
static bool transfers_click(const App *app, Rect r, int x, int y,
                            Request *req)
{
    const Scene *sc = app->scene;
    size_t k;
    bool preview;
    int i = y - r.y - 1;
    if (!listed_step(app, &k, &preview) || i < 0 ||
        (size_t)i >= sc->sched.steps[k].n)
        return false;
    const Transfer *t = &sc->sched.xfers[sc->sched.steps[k].first + (size_t)i];
    *req = (Request){.act = ACT_SELECT_CELL, .a = t->dst, .b = t->dst_buf,
                     .c = (long long)t->dst_off};
    return true;
}

const ViewOps view_transfers = {
    .name = "transfers",
    .title = N_("Transfers"),
    .framed = true,
    .draw = transfers_draw,
    .click = transfers_click,
};
