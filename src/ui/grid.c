/* grid.c - the in-memory screen: cells, clipped drawing, text dumps. */
#include "ui/grid.h"
#include "core/num.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ tables */

static const uint32_t glyph_uni[GL_COUNT] = {
#define X(id, uni, ascii) [id] = uni,
    GRID_GLYPHS(X)
#undef X
};

static const char glyph_ascii[GL_COUNT] = {
#define X(id, uni, ascii) [id] = ascii,
    GRID_GLYPHS(X)
#undef X
};

static const char role_codes[ROLE_COUNT] = {
#define X(id, code, what) [id] = code,
    GRID_ROLES(X)
#undef X
};

static const char *const role_whats[ROLE_COUNT] = {
#define X(id, code, what) [id] = what,
    GRID_ROLES(X)
#undef X
};

char grid_role_code(Role r) { return r < ROLE_COUNT ? role_codes[r] : '?'; }
const char *grid_role_what(Role r)
{
    return r < ROLE_COUNT ? role_whats[r] : "?";
}

uint32_t grid_glyph(const Grid *g, Glyph gl)
{
    if (gl >= GL_COUNT)
        return '?';
    return g->ascii ? (uint32_t)(unsigned char)glyph_ascii[gl] : glyph_uni[gl];
}

/* ------------------------------------------------------------ lifetime */

static const Cell blank = {.ch = ' ', .role = ROLE_NORMAL, .attr = 0};

CvError grid_init(Grid *g, int w, int h, bool ascii)
{
    *g = (Grid){.ascii = ascii};
    return grid_resize(g, w, h);
}

void grid_fini(Grid *g)
{
    free(g->cells);
    g->cells = NULL;
    g->w = g->h = 0;
}

CvError grid_resize(Grid *g, int w, int h)
{
    if (w < 0 || h < 0 || (w > 0 && h > 100000 / w * 100))
        return CV_ERR_ARG;
    Cell *c = malloc(((size_t)w * (size_t)h + 1) * sizeof *c);
    if (!c)
        return CV_ERR_NOMEM;
    free(g->cells);
    g->cells = c;
    g->w = w;
    g->h = h;
    grid_clear(g);
    return CV_OK;
}

void grid_clear(Grid *g)
{
    size_t n = (size_t)g->w * (size_t)g->h;
    for (size_t i = 0; i < n; i++)
        g->cells[i] = blank;
}

/* ------------------------------------------------------------ access */

Cell *grid_at(Grid *g, int x, int y)
{
    if (x < 0 || y < 0 || x >= g->w || y >= g->h)
        return NULL;
    return &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
}

const Cell *grid_cat(const Grid *g, int x, int y)
{
    return grid_at((Grid *)g, x, y);
}

Rect grid_rect(const Grid *g) { return (Rect){0, 0, g->w, g->h}; }

/* ------------------------------------------------------------ rectangles */

Rect rect_inset(Rect r, int d)
{
    Rect o = {r.x + d, r.y + d, r.w - 2 * d, r.h - 2 * d};
    if (o.w < 0)
        o.w = 0;
    if (o.h < 0)
        o.h = 0;
    return o;
}


Rect rect_clip(Rect a, Rect b)
{
    int x0 = num_max(a.x, b.x), y0 = num_max(a.y, b.y);
    int x1 = num_min(a.x + a.w, b.x + b.w), y1 = num_min(a.y + a.h, b.y + b.h);
    return (Rect){x0, y0, num_max(0, x1 - x0), num_max(0, y1 - y0)};
}

bool rect_has(Rect r, int x, int y)
{
    return x >= r.x && y >= r.y && x < r.x + r.w && y < r.y + r.h;
}

void rect_cut_top(Rect r, int n, Rect *a, Rect *b)
{
    n = num_max(0, num_min(n, r.h));
    *a = (Rect){r.x, r.y, r.w, n};
    *b = (Rect){r.x, r.y + n, r.w, r.h - n};
}

void rect_cut_left(Rect r, int n, Rect *a, Rect *b)
{
    n = num_max(0, num_min(n, r.w));
    *a = (Rect){r.x, r.y, n, r.h};
    *b = (Rect){r.x + n, r.y, r.w - n, r.h};
}

/* ------------------------------------------------------------ UTF-8 */

/* Decode one code point from *s, advancing it; invalid bytes give '?'. */
static uint32_t utf8_next(const char **s)
{
    const unsigned char *p = (const unsigned char *)*s;
    uint32_t c = p[0];
    int n = c < 0x80 ? 0 : c < 0xC2 ? -1 : c < 0xE0 ? 1 : c < 0xF0 ? 2
                                                  : c < 0xF5 ? 3 : -1;
    if (n < 0) {
        *s += 1;
        return '?';
    }
    c &= n == 0 ? 0x7F : (0x3F >> n);
    for (int i = 1; i <= n; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            *s += i;
            return '?';
        }
        c = (c << 6) | (p[i] & 0x3F);
    }
    *s += n + 1;
    if ((n == 2 && c < 0x800) || (n == 3 && c < 0x10000) ||
        (c >= 0xD800 && c < 0xE000))
        return '?';
    return c < 0x20 || c == 0x7F ? '?' : c;
}

int grid_utf8(char *out, uint32_t c)
{
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* Columns code point c takes: 2 for East Asian wide characters. */
/* Whether c lies in one of the n sorted ranges r. */
static bool in_ranges(uint32_t c, const uint32_t (*r)[2], size_t n)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c < r[mid][0])
            hi = mid;
        else if (c > r[mid][1])
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

/* The columns a terminal gives c: 2 for East Asian wide and full-width
 * characters and emoji shown as pictures (Unicode 15's East Asian Width
 * W and F, as glibc's wcwidth), 0 for combining marks, zero-width
 * spaces and joiners and variation selectors (the grid has no cell for
 * them: they are left out), 1 for the rest. */
static int cp_width(uint32_t c)
{
    static const uint32_t zero[][2] = {
        {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD},
        {0x0610, 0x061A}, {0x064B, 0x065F}, {0x0E31, 0x0E31},
        {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E}, {0x1160, 0x11FF},
        {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF}, {0x200B, 0x200D},
        {0x2060, 0x2064}, {0x20D0, 0x20FF}, {0x302A, 0x302F},
        {0x3099, 0x309A}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F},
        {0xFEFF, 0xFEFF}, {0xE0000, 0xE0FFF},
    };
    static const uint32_t wide[][2] = {
        {0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A},
        {0x23E9, 0x23EC}, {0x23F0, 0x23F0}, {0x23F3, 0x23F3},
        {0x25FD, 0x25FE}, {0x2614, 0x2615}, {0x2648, 0x2653},
        {0x267F, 0x267F}, {0x2693, 0x2693}, {0x26A1, 0x26A1},
        {0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5},
        {0x26CE, 0x26CE}, {0x26D4, 0x26D4}, {0x26EA, 0x26EA},
        {0x26F2, 0x26F3}, {0x26F5, 0x26F5}, {0x26FA, 0x26FA},
        {0x26FD, 0x26FD}, {0x2705, 0x2705}, {0x270A, 0x270B},
        {0x2728, 0x2728}, {0x274C, 0x274C}, {0x274E, 0x274E},
        {0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797},
        {0x27B0, 0x27B0}, {0x27BF, 0x27BF}, {0x2B1B, 0x2B1C},
        {0x2B50, 0x2B50}, {0x2B55, 0x2B55}, {0x2E80, 0x3029},
        {0x3030, 0x303E}, {0x3041, 0x3098}, {0x309B, 0x33FF},
        {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xA4CF},
        {0xA960, 0xA97F}, {0xAC00, 0xD7A3}, {0xF900, 0xFAFF},
        {0xFE10, 0xFE19}, {0xFE30, 0xFE6F}, {0xFF00, 0xFF60},
        {0xFFE0, 0xFFE6}, {0x16FE0, 0x16FE4}, {0x17000, 0x18CFF},
        {0x1AFF0, 0x1B2FF}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
        {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F202},
        {0x1F210, 0x1F23B}, {0x1F240, 0x1F248}, {0x1F250, 0x1F251},
        {0x1F260, 0x1F265}, {0x1F300, 0x1F320}, {0x1F32D, 0x1F335},
        {0x1F337, 0x1F37C}, {0x1F37E, 0x1F393}, {0x1F3A0, 0x1F3CA},
        {0x1F3CF, 0x1F3D3}, {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4},
        {0x1F3F8, 0x1F43E}, {0x1F440, 0x1F440}, {0x1F442, 0x1F4FC},
        {0x1F4FF, 0x1F53D}, {0x1F54B, 0x1F54E}, {0x1F550, 0x1F567},
        {0x1F57A, 0x1F57A}, {0x1F595, 0x1F596}, {0x1F5A4, 0x1F5A4},
        {0x1F5FB, 0x1F64F}, {0x1F680, 0x1F6C5}, {0x1F6CC, 0x1F6CC},
        {0x1F6D0, 0x1F6D2}, {0x1F6D5, 0x1F6D7}, {0x1F6DC, 0x1F6DF},
        {0x1F6EB, 0x1F6EC}, {0x1F6F4, 0x1F6FC}, {0x1F7E0, 0x1F7EB},
        {0x1F7F0, 0x1F7F0}, {0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945},
        {0x1F947, 0x1F9FF}, {0x1FA70, 0x1FAFF}, {0x20000, 0x3FFFD},
    };
    if (c < 0x300)
        return 1;
    if (in_ranges(c, zero, sizeof zero / sizeof zero[0]))
        return 0;
    return in_ranges(c, wide, sizeof wide / sizeof wide[0]) ? 2 : 1;
}

int grid_cp_width(uint32_t c)
{
    return cp_width(c);
}

int grid_text_width(const char *s)
{
    int w = 0;
    while (s && *s)
        w += cp_width(utf8_next(&s));
    return w;
}

/* ------------------------------------------------------------ drawing */

void grid_put(Grid *g, Rect clip, int x, int y, uint32_t ch, Role role,
              unsigned attr)
{
    Cell *c = rect_has(clip, x, y) ? grid_at(g, x, y) : NULL;
    if (!c)
        return;
    /* Half a wide character never shows: writing over one half blanks the
       other (a menu's edge over Chinese text left a stray half). */
    if (ch != GRID_CONT && c->ch == GRID_CONT && x > 0)
        grid_at(g, x - 1, y)->ch = ' ';
    if (cp_width(c->ch) == 2 && x + 1 < g->w &&
        grid_at(g, x + 1, y)->ch == GRID_CONT)
        grid_at(g, x + 1, y)->ch = ' ';
    *c = (Cell){.ch = ch, .role = (uint8_t)role, .attr = (uint8_t)attr};
}

void grid_putg(Grid *g, Rect clip, int x, int y, Glyph gl, Role role)
{
    grid_put(g, clip, x, y, grid_glyph(g, gl), role, 0);
}

int grid_text(Grid *g, Rect clip, int x, int y, int maxw, Role role,
              unsigned attr, const char *s)
{
    int used = 0;
    while (s && *s) {
        uint32_t c = utf8_next(&s);
        int cw = cp_width(c);
        if (cw == 0) /* no cell of its own: left out (grid.h) */
            continue;
        if (maxw >= 0 && used + cw > maxw) {
            for (g->lost += c != ' '; *s;)
                g->lost += utf8_next(&s) != ' ';
            break;
        }
        if (cw == 2 && !rect_has(clip, x + used + 1, y))
            c = ' ', cw = 1; /* half a wide character never shows */
        g->lost += c != ' ' && !rect_has(clip, x + used, y);
        grid_put(g, clip, x + used, y, c, role, attr);
        if (cw == 2)
            grid_put(g, clip, x + used + 1, y, GRID_CONT, role, attr);
        used += cw;
    }
    return used;
}

static bool is_digit(uint32_t c) { return c >= '0' && c <= '9'; }

/* Whether a cut between prev (the last character kept) and at (the text
 * left out) falls inside a number: "-p 1|3", "x2.|3", "2|.5". */
static bool splits_number(uint32_t prev, const char *at)
{
    bool sep = at[0] == '.' || at[0] == ',';
    return (is_digit((unsigned char)at[0]) &&
            (is_digit(prev) || prev == '.' || prev == ',')) ||
           (sep && is_digit((unsigned char)at[1]) && is_digit(prev));
}

/* The columns of s kept when it is cut to at most w columns: as many as
 * fit, but never part of a number (a cut "-p 1" reads as one rank where
 * the text says 13): then back to the blank before the number's word,
 * or, in a word without one, to where the number starts. */
static int cut_width(const char *s, int w)
{
    int used = 0, word = -1, run = 0; /* columns to the blank before the
                                         last word, to the last number */
    uint32_t prev = ' ';
    while (*s) {
        const char *q = s;
        uint32_t c = utf8_next(&q);
        int cw = cp_width(c);
        if (used + cw > w)
            break;
        if (c == ' ' && prev != ' ')
            word = used;
        if (is_digit(c) && !is_digit(prev) && prev != '.' && prev != ',')
            run = used;
        used += cw, prev = c, s = q;
    }
    if (!*s || !splits_number(prev, s))
        return used;
    return word >= 0 ? word : run;
}

int grid_text_cut(Grid *g, Rect clip, int x, int y, int maxw, Role role,
                  unsigned attr, const char *s)
{
    if (maxw < 0 || grid_text_width(s) <= maxw)
        return grid_text(g, clip, x, y, maxw, role, attr, s);
    if (maxw < 1)
        return 0;
    int n = grid_text(g, clip, x, y, cut_width(s, maxw - 1), role, attr, s);
    grid_putg(g, clip, x + n, y, GL_ELLIPSIS, role);
    return n + 1;
}

/* Whether c is in the list. */
static bool in(uint32_t c, const uint32_t *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == c)
            return true;
    return false;
}

/* Punctuation that may not start a line (it closes what is before):
 * 、。，．：；？！）」』”’》】〉 and their ASCII kin. */
static bool closes(uint32_t c)
{
    static const uint32_t cl[] = {
        0x3001, 0x3002, 0xFF0C, 0xFF0E, 0xFF1A, 0xFF1B, 0xFF1F, 0xFF01,
        0xFF09, 0x300D, 0x300F, 0x201D, 0x2019, 0x300B, 0x3011, 0x3009,
        0xFF3D, 0xFF5D, ',',    '.',    ';',    ':',    ')',    ']',
        '}',    '!',    '?'};
    return in(c, cl, sizeof cl / sizeof *cl);
}

/* Punctuation that may not end a line (it opens what comes after):
 * （「『“‘《【〈［｛ and ( [ {. */
static bool opens(uint32_t c)
{
    static const uint32_t op[] = {0xFF08, 0x300C, 0x300E, 0x201C, 0x2018,
                                  0x300A, 0x3010, 0x3008, 0xFF3B, 0xFF5B,
                                  '(',    '[',    '{'};
    return in(c, op, sizeof op / sizeof *op);
}

/* Whether the text from q, blanks skipped, starts with "- ": a line that
 * starts there reads as a list's bullet. */
static bool bullet_at(const char *q)
{
    while (*q == ' ')
        q++;
    return q[0] == '-' && q[1] == ' ';
}

/* Whether a line may end at q, between code points a and b: at the first
 * of a run of blanks, or between two characters where one is wide (CJK),
 * never after opening or before closing punctuation, nor where the next
 * line would start with a bullet. */
static bool break_at(uint32_t a, uint32_t b, const char *q)
{
    if (b == ' ')
        return a != ' ' && !bullet_at(q);
    return a != ' ' && (cp_width(a) == 2 || cp_width(b) == 2) && !opens(a) &&
           !closes(b) && !bullet_at(q);
}

const char *grid_wrap_line(const char *s, int w, const char **end)
{
    const char *p = s, *brk = NULL;
    uint32_t prev = 0;
    int used = 0;
    while (*p) {
        const char *at = p;
        uint32_t c = utf8_next(&p);
        if (at > s && break_at(prev, c, at))
            brk = at;
        int cw = cp_width(c);
        if (used + cw > w) {
            p = at; /* c starts the next line */
            break;
        }
        used += cw;
        prev = c;
    }
    if (!*p || !brk) { /* the rest fits, or one word wider than w: cut */
        if (p == s && *p) /* a character wider than w: it alone */
            utf8_next(&p);
        brk = p;
    }
    *end = brk;
    while (*brk == ' ')
        brk++;
    return brk;
}

int grid_text_wrap(Grid *g, Rect clip, int x, int y, int w, Role role,
                   unsigned attr, const char *s)
{
    int rows = 0;
    while (s && *s && w > 0) {
        const char *end, *next = grid_wrap_line(s, w, &end);
        char line[1024];
        size_t n = (size_t)(end - s) < sizeof line - 1 ? (size_t)(end - s)
                                                       : sizeof line - 1;
        memcpy(line, s, n);
        line[n] = '\0';
        grid_text(g, clip, x, y + rows, w, role, attr, line);
        rows++;
        s = next;
    }
    return rows ? rows : 1;
}

int grid_printf(Grid *g, Rect clip, int x, int y, int maxw, Role role,
                unsigned attr, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return grid_text(g, clip, x, y, maxw, role, attr, buf);
}

void grid_fill(Grid *g, Rect r, uint32_t ch, Role role, unsigned attr)
{
    r = rect_clip(r, grid_rect(g));
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++)
            grid_put(g, r, x, y, ch, role, attr);
}

void grid_paint(Grid *g, Rect r, Role role, unsigned attr)
{
    r = rect_clip(r, grid_rect(g));
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++) {
            Cell *c = grid_at(g, x, y);
            c->role = (uint8_t)role;
            c->attr = (uint8_t)attr;
        }
}

void grid_hline(Grid *g, Rect clip, int x, int y, int n, Glyph gl,
                Role role)
{
    for (int i = 0; i < n; i++)
        grid_putg(g, clip, x + i, y, gl, role);
}

void grid_vline(Grid *g, Rect clip, int x, int y, int n, Glyph gl,
                Role role)
{
    for (int i = 0; i < n; i++)
        grid_putg(g, clip, x, y + i, gl, role);
}

Rect grid_box(Grid *g, Rect r, Role border, const char *title, Role trole)
{
    if (r.w < 2 || r.h < 2)
        return (Rect){r.x, r.y, 0, 0};
    int x1 = r.x + r.w - 1, y1 = r.y + r.h - 1;
    grid_hline(g, r, r.x + 1, r.y, r.w - 2, GL_HLINE, border);
    grid_hline(g, r, r.x + 1, y1, r.w - 2, GL_HLINE, border);
    grid_vline(g, r, r.x, r.y + 1, r.h - 2, GL_VLINE, border);
    grid_vline(g, r, x1, r.y + 1, r.h - 2, GL_VLINE, border);
    grid_putg(g, r, r.x, r.y, GL_TL, border);
    grid_putg(g, r, x1, r.y, GL_TR, border);
    grid_putg(g, r, r.x, y1, GL_BL, border);
    grid_putg(g, r, x1, y1, GL_BR, border);
    if (title && *title && r.w > 4) {
        Rect tr = {r.x + 1, r.y, r.w - 2, 1};
        int n = grid_text_cut(g, tr, r.x + 2, r.y, r.w - 4, trole, 0, title);
        grid_put(g, tr, r.x + 1, r.y, ' ', trole, 0);
        grid_put(g, tr, r.x + 2 + n, r.y, ' ', trole, 0);
    }
    return rect_inset(r, 1);
}

/* ------------------------------------------------------------ dumping */

/* Whether any cell carries attribute bits. */
static bool any_attr(const Grid *g)
{
    for (size_t i = 0; i < (size_t)g->w * (size_t)g->h; i++)
        if (g->cells[i].attr)
            return true;
    return false;
}

/* Append one layer (0 text, 1 roles, 2 attrs) to out at *n. */
static void dump_layer(const Grid *g, int layer, char *out, size_t *n)
{
    for (int y = 0; y < g->h; y++) {
        for (int x = 0; x < g->w; x++) {
            const Cell *c = grid_cat(g, x, y);
            if (layer == 0 && c->ch != GRID_CONT)
                *n += (size_t)grid_utf8(out + *n, c->ch);
            else if (layer == 1)
                out[(*n)++] = grid_role_code((Role)c->role);
            else if (layer == 2)
                out[(*n)++] = c->attr ? (char)('0' + (c->attr & 7)) : '.';
        }
        out[(*n)++] = '\n';
    }
}

char *grid_dump(const Grid *g, bool roles)
{
    size_t cells = (size_t)g->w * (size_t)g->h;
    size_t cap = cells * 4 + cells * 2 + (size_t)g->h * 3 + 32;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t n = 0;
    dump_layer(g, 0, out, &n);
    if (roles) {
        n += (size_t)sprintf(out + n, "-- roles\n");
        dump_layer(g, 1, out, &n);
        if (any_attr(g)) {
            n += (size_t)sprintf(out + n, "-- attrs\n");
            dump_layer(g, 2, out, &n);
        }
    }
    out[n] = '\0';
    return out;
}
