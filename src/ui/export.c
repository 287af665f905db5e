/* export.c - a Grid as SVG, as terminal bytes, and as an asciicast. */
#include "ui/export.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "store/json.h"
#include "ui/theme.h"

/* ------------------------------------------------------------ styles */

static const char *const role_ids[ROLE_COUNT] = {
#define X(id, code, what) [id] = #id,
    GRID_ROLES(X)
#undef X
};

const char *export_role_name(Role r)
{
    static char names[ROLE_COUNT][24];
    r = r < ROLE_COUNT ? r : ROLE_NORMAL;
    if (!names[r][0]) { /* "ROLE_LINK_ACTIVE" -> "link-active" */
        const char *id = role_ids[r] + 5;
        size_t i = 0;
        for (; id[i] && i + 1 < sizeof names[r]; i++)
            names[r][i] = id[i] == '_' ? '-' : (char)tolower((unsigned char)id[i]);
        names[r][i] = '\0';
    }
    return names[r];
}

/* How one cell is drawn: its theme's style with the cell's own
 * attributes, colours resolved (defaults and reverse) for the SVG. */
typedef struct {
    uint32_t fg;   /* 0xRRGGBB */
    uint32_t bg;   /* 0xRRGGBB */
    unsigned attr; /* TA_* (TA_REVERSE already applied to fg and bg) */
} Look;

/* The TA_* bits of a cell: its role's under theme, and its own. */
static unsigned cell_attr(const Cell *c, int theme)
{
    unsigned a = theme_style(theme, (Role)c->role)->attr;
    a |= c->attr & GRID_BOLD ? TA_BOLD : 0;
    a |= c->attr & GRID_REVERSE ? TA_REVERSE : 0;
    a |= c->attr & GRID_UNDER ? TA_UNDER : 0;
    return a;
}

static Look look_of(const Cell *c, int theme)
{
    const ThemeStyle *st = theme_style(theme, (Role)c->role);
    Look l = {.fg = st->fg < 0 ? EXPORT_DEFAULT_FG : theme_rgb(st->fg),
              .bg = st->bg < 0 ? EXPORT_DEFAULT_BG : theme_rgb(st->bg),
              .attr = cell_attr(c, theme)};
    if (l.attr & TA_REVERSE) {
        uint32_t t = l.fg;
        l.fg = l.bg;
        l.bg = t;
    }
    return l;
}

/* The character a cell shows in a file: a control character (which no
 * view should put in a cell, and which XML forbids and a terminal would
 * obey) as '?'. */
static uint32_t shown(uint32_t c)
{
    return c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0xfffe || c == 0xffff
           ? '?' : c;
}

/* ------------------------------------------------------------ SVG */

/* Arms of a light box-drawing character from its cell's centre. */
enum { ARM_L = 1, ARM_R = 2, ARM_U = 4, ARM_D = 8 };

static unsigned box_arms(uint32_t ch)
{
    switch (ch) {
    case 0x2500: return ARM_L | ARM_R;               /* ─ */
    case 0x2502: return ARM_U | ARM_D;               /* │ */
    case 0x250C: case 0x256D: return ARM_R | ARM_D;  /* ┌ ╭ */
    case 0x2510: case 0x256E: return ARM_L | ARM_D;  /* ┐ ╮ */
    case 0x2514: case 0x2570: return ARM_R | ARM_U;  /* └ ╰ */
    case 0x2518: case 0x256F: return ARM_L | ARM_U;  /* ┘ ╯ */
    case 0x251C: return ARM_U | ARM_D | ARM_R;       /* ├ */
    case 0x2524: return ARM_U | ARM_D | ARM_L;       /* ┤ */
    case 0x252C: return ARM_L | ARM_R | ARM_D;       /* ┬ */
    case 0x2534: return ARM_L | ARM_R | ARM_U;       /* ┴ */
    case 0x253C: return ARM_L | ARM_R | ARM_U | ARM_D; /* ┼ */
    default: return 0;
    }
}

/* The opacity a block or shade character fills its cell with (0: not
 * one). */
static double block_fill(uint32_t ch)
{
    return ch == 0x2588 ? 1.0 : ch == 0x2593 ? 0.75 : ch == 0x2592 ? 0.5
           : ch == 0x2591 ? 0.25 : 0.0;
}

/* Whether the cell is drawn as lines or a rectangle, not as text. */
static bool is_graphic(uint32_t ch)
{
    return box_arms(ch) || block_fill(ch) > 0;
}

static void svg_colour(Sink *s, const char *attr, uint32_t rgb)
{
    sink_printf(s, " %s=\"#%06x\"", attr, (unsigned)rgb);
}

/* The backgrounds of row y that are not the page's. */
static void svg_backgrounds(Sink *s, const Grid *g, int y, int theme)
{
    for (int x = 0; x < g->w;) {
        uint32_t bg = look_of(grid_cat(g, x, y), theme).bg;
        int n = 1;
        while (x + n < g->w && look_of(grid_cat(g, x + n, y), theme).bg == bg)
            n++;
        if (bg != EXPORT_DEFAULT_BG) {
            sink_printf(s, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"",
                        x * EXPORT_CELL_W, y * EXPORT_CELL_H,
                        n * EXPORT_CELL_W, EXPORT_CELL_H);
            svg_colour(s, "fill", bg);
            sink_str(s, "/>\n");
        }
        x += n;
    }
}

/* The box-drawing cells of row y as one path per colour run, and the
 * block cells as rectangles. */
static void svg_graphics(Sink *s, const Grid *g, int y, int theme)
{
    const int cw = EXPORT_CELL_W, ch = EXPORT_CELL_H;
    for (int x = 0; x < g->w; x++) {
        const Cell *c = grid_cat(g, x, y);
        Look l = look_of(c, theme);
        double fill = block_fill(c->ch);
        if (fill > 0) {
            sink_printf(s, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\""
                        " fill-opacity=\"%.2f\"", x * cw, y * ch, cw, ch, fill);
            svg_colour(s, "fill", l.fg);
            sink_str(s, "/>\n");
        }
        if (!box_arms(c->ch))
            continue;
        sink_str(s, "<path d=\"");
        int x0 = x;
        for (; x < g->w && box_arms(grid_cat(g, x, y)->ch) &&
               look_of(grid_cat(g, x, y), theme).fg == l.fg; x++) {
            unsigned a = box_arms(grid_cat(g, x, y)->ch);
            int cx = x * cw + cw / 2, cy = y * ch + ch / 2;
            if (a & (ARM_L | ARM_R))
                sink_printf(s, "M%d %dH%d", a & ARM_L ? x * cw : cx, cy,
                            a & ARM_R ? (x + 1) * cw : cx);
            if (a & (ARM_U | ARM_D))
                sink_printf(s, "M%d %dV%d", cx, a & ARM_U ? y * ch : cy,
                            a & ARM_D ? (y + 1) * ch : cy);
        }
        sink_printf(s, "\" class=\"r-%s\" fill=\"none\" stroke-width=\"1.5\"",
                    export_role_name((Role)grid_cat(g, x0, y)->role));
        svg_colour(s, "stroke", l.fg);
        sink_str(s, (l.attr & TA_DIM) ? " opacity=\"0.6\"/>\n" : "/>\n");
        x--; /* the loop's x++ comes to the cell that ended the run */
    }
}

/* Whether cells a and b belong to one text run. */
static bool same_run(const Cell *a, const Cell *b)
{
    return a->role == b->role && a->attr == b->attr && !is_graphic(b->ch);
}

/* One run of text from column x0 to x1 (exclusive) of row y, its blanks
 * at both ends left out. */
static void svg_run(Sink *s, const Grid *g, int y, int x0, int x1, int theme)
{
    while (x0 < x1 && grid_cat(g, x0, y)->ch == ' ')
        x0++;
    while (x1 > x0 && grid_cat(g, x1 - 1, y)->ch == ' ')
        x1--;
    if (x0 >= x1)
        return;
    const Cell *first = grid_cat(g, x0, y);
    Look l = look_of(first, theme);
    sink_printf(s, "<text class=\"r-%s\" x=\"", export_role_name((Role)first->role));
    for (int x = x0; x < x1; x++)
        if (grid_cat(g, x, y)->ch != GRID_CONT)
            sink_printf(s, "%s%d", x > x0 ? " " : "", x * EXPORT_CELL_W);
    sink_printf(s, "\" y=\"%d\"", y * EXPORT_CELL_H + EXPORT_CELL_H * 3 / 4);
    svg_colour(s, "fill", l.fg);
    sink_str(s, l.attr & TA_BOLD ? " font-weight=\"bold\"" : "");
    sink_str(s, l.attr & TA_DIM ? " opacity=\"0.6\"" : "");
    sink_str(s, l.attr & TA_UNDER ? " text-decoration=\"underline\"" : "");
    sink_c(s, '>');
    for (int x = x0; x < x1; x++) {
        uint32_t c = grid_cat(g, x, y)->ch;
        char u[4];
        if (c == GRID_CONT)
            continue;
        c = shown(c);
        if (c == '<' || c == '>' || c == '&')
            sink_str(s, c == '<' ? "&lt;" : c == '>' ? "&gt;" : "&amp;");
        else
            sink_mem(s, u, (size_t)grid_utf8(u, c));
    }
    sink_str(s, "</text>\n");
}

static void svg_texts(Sink *s, const Grid *g, int y, int theme)
{
    for (int x = 0; x < g->w;) {
        const Cell *c = grid_cat(g, x, y);
        if (is_graphic(c->ch) || c->ch == GRID_CONT) {
            x++;
            continue;
        }
        int n = 1;
        while (x + n < g->w && same_run(c, grid_cat(g, x + n, y)))
            n++;
        svg_run(s, g, y, x, x + n, theme);
        x += n;
    }
}

void export_xml_text(Sink *s, const char *t)
{
    for (; *t; t++)
        if (*t == '<' || *t == '>' || *t == '&')
            sink_str(s, *t == '<' ? "&lt;" : *t == '>' ? "&gt;" : "&amp;");
        else
            sink_mem(s, t, 1);
}

/* The cells of g: backgrounds, then lines and blocks, then texts. */
static void svg_cells(Sink *s, const Grid *g, int theme)
{
    for (int y = 0; y < g->h; y++)
        svg_backgrounds(s, g, y, theme);
    for (int y = 0; y < g->h; y++)
        svg_graphics(s, g, y, theme);
    for (int y = 0; y < g->h; y++)
        svg_texts(s, g, y, theme);
}

void export_svg_at(Sink *s, const Grid *g, int theme, int x, int y)
{
    sink_printf(s, "<g transform=\"translate(%d %d)\">\n<rect width=\"%d\" "
                "height=\"%d\"", x, y, g->w * EXPORT_CELL_W,
                g->h * EXPORT_CELL_H);
    svg_colour(s, "fill", EXPORT_DEFAULT_BG);
    sink_str(s, "/>\n");
    svg_cells(s, g, theme);
    sink_str(s, "</g>\n");
}

void export_svg_begin(Sink *s, int w, int h)
{
    sink_printf(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                "height=\"%d\" viewBox=\"0 0 %d %d\" font-size=\"16\" "
                "font-family=\"'DejaVu Sans Mono', Menlo, Consolas, "
                "'Noto Sans Mono CJK SC', 'Noto Sans CJK SC', monospace\" "
                "xml:space=\"preserve\" style=\"white-space: pre\">\n",
                w, h, w, h);
    sink_printf(s, "<rect width=\"%d\" height=\"%d\"", w, h);
    svg_colour(s, "fill", EXPORT_DEFAULT_BG);
    sink_str(s, "/>\n");
}

CvError export_svg(FILE *f, const Grid *g, int theme)
{
    Sink s;
    int w = g->w * EXPORT_CELL_W, h = g->h * EXPORT_CELL_H;
    if (sink_init(&s, f, 1 << 16))
        return CV_ERR_NOMEM;
    export_svg_begin(&s, w, h);
    svg_cells(&s, g, theme);
    sink_str(&s, "</svg>\n");
    sink_fini(&s);
    return s.err ? CV_ERR_IO : CV_OK;
}

/* ------------------------------------------------------------ terminal */

/* SGR parameters of a colour: foreground base 30, background base 40. */
static void sgr_colour(Sink *s, int c, int base)
{
    if (c < 0)
        return;
    if (c < 8)
        sink_printf(s, ";%d", base + c);
    else if (c < 16)
        sink_printf(s, ";%d", base + 60 + c - 8);
    else
        sink_printf(s, ";%d;5;%d", base + 8, c);
}

/* The SGR sequence that sets cell c's look (everything reset first). */
static void sgr_cell(Sink *s, const Cell *c, int theme)
{
    static const struct { unsigned bit; int code; } attrs[] = {
        {TA_BOLD, 1}, {TA_DIM, 2}, {TA_UNDER, 4}, {TA_BLINK, 5},
        {TA_REVERSE, 7},
    };
    const ThemeStyle *st = theme_style(theme, (Role)c->role);
    unsigned a = cell_attr(c, theme);
    sink_str(s, "\033[0");
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        if (a & attrs[i].bit)
            sink_printf(s, ";%d", attrs[i].code);
    sgr_colour(s, st->fg, 30);
    sgr_colour(s, st->bg, 40);
    sink_c(s, 'm');
}

static void ansi_write(Sink *s, const Grid *g, int theme)
{
    sink_str(s, "\033[H\033[2J");
    for (int y = 0; y < g->h; y++) {
        const Cell *prev = NULL;
        sink_printf(s, "\033[%d;1H", y + 1);
        for (int x = 0; x < g->w; x++) {
            const Cell *c = grid_cat(g, x, y);
            char u[4];
            if (c->ch == GRID_CONT)
                continue;
            if (!prev || prev->role != c->role || prev->attr != c->attr)
                sgr_cell(s, c, theme);
            prev = c;
            sink_mem(s, u, (size_t)grid_utf8(u, shown(c->ch)));
        }
    }
    sink_str(s, "\033[0m");
}

char *export_ansi(const Grid *g, int theme)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    Sink s;
    if (!m)
        return NULL;
    if (sink_init(&s, m, 1 << 14)) {
        fclose(m);
        free(buf);
        return NULL;
    }
    ansi_write(&s, g, theme);
    sink_fini(&s);
    bool bad = s.err;
    if (fclose(m) || bad) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ------------------------------------------------------------ asciicast */

CvError cast_begin(CastWriter *c, FILE *f, int w, int h, const char *title,
                   double duration)
{
    JsonWriter j;
    *c = (CastWriter){.w = w, .h = h};
    if (sink_init(&c->sink, f, 1 << 16))
        return CV_ERR_NOMEM;
    json_init(&j, &c->sink, JSON_SPACED);
    json_object(&j, NULL);
    json_int(&j, "version", 2);
    json_int(&j, "width", w);
    json_int(&j, "height", h);
    json_fixed(&j, "duration", duration, 3);
    json_str(&j, "title", title);
    json_object(&j, "env");
    json_str(&j, "TERM", "xterm-256color");
    json_close(&j);
    json_close(&j);
    json_finish(&j); /* ends the line */
    return CV_OK;
}

void cast_frame(CastWriter *c, double t, const Grid *g, int theme)
{
    JsonWriter j;
    char *data = export_ansi(g, theme);
    if (!data) {
        c->nomem = true;
        return;
    }
    json_init(&j, &c->sink, JSON_SPACED);
    json_array(&j, NULL);
    json_fixed(&j, NULL, t, 3);
    json_str(&j, NULL, "o");
    json_str(&j, NULL, data);
    json_close(&j);
    json_finish(&j); /* ends the line */
    free(data);
    c->frames++;
}

CvError cast_end(CastWriter *c)
{
    sink_fini(&c->sink);
    return c->nomem ? CV_ERR_NOMEM : c->sink.err ? CV_ERR_IO : CV_OK;
}
