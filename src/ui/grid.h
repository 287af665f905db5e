/* grid.h - the in-memory screen every view draws into.
 *
 * A Grid is a rectangle of cells; each cell holds one character (a Unicode
 * code point), a colour ROLE and a few attribute bits. Views never talk to
 * the terminal: they fill a Grid, term.c copies it to the screen, and tests
 * compare it with golden text files. Characters are one column wide, except
 * East Asian wide characters, which take their cell and a GRID_CONT cell to
 * their right. Box drawing goes through glyphs, so a Grid in ASCII mode
 * draws the same picture with + - | characters.
 *
 * Drawing outside the grid or outside the rectangle given is clipped, never
 * an error, so a view never garbles a neighbour. */
#ifndef COLLVIZ_UI_GRID_H
#define COLLVIZ_UI_GRID_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* Colour roles: what a cell means, never which colour it is (themes in
 * term.c decide). Each role has a one-character code for golden files. */
#define GRID_ROLES(X)                                                         \
    X(ROLE_NORMAL, '.', "ordinary text")                                      \
    X(ROLE_BORDER, 'b', "panel borders")                                      \
    X(ROLE_TITLE, 't', "panel titles")                                        \
    X(ROLE_FOCUS, 'f', "title of the panel with focus")                       \
    X(ROLE_HEADER, 'h', "header line labels")                                 \
    X(ROLE_VALUE, 'v', "header and counter values")                           \
    X(ROLE_DIM, 'd', "secondary text, N/A values")                            \
    X(ROLE_KEY, 'k', "key names in hints and help")                           \
    X(ROLE_STATUS, 's', "status line")                                        \
    X(ROLE_OK, 'o', "checks that passed")                                     \
    X(ROLE_WARN, 'w', "warnings, large deviations")                           \
    X(ROLE_ERROR, 'e', "errors, wrong results")                               \
    X(ROLE_MENU, 'm', "menu items")                                           \
    X(ROLE_MENU_SEL, 'M', "the highlighted menu item")                        \
    X(ROLE_SELECT, 'S', "the selected cell or rank")                          \
    X(ROLE_EMPTY, '_', "buffer cell holding no data")                         \
    X(ROLE_LEVEL1, '1', "cell holding one rank's input")                      \
    X(ROLE_LEVEL2, '2', "cell holding a few ranks' inputs")                   \
    X(ROLE_LEVEL3, '3', "cell holding about half the inputs")                 \
    X(ROLE_LEVEL4, '4', "cell holding most inputs")                           \
    X(ROLE_FINAL, 'F', "cell holding its final result")                       \
    X(ROLE_WRONG, 'X', "cell whose real value differs from the theory")       \
    X(ROLE_COPY, 'c', "copy transfers")                                       \
    X(ROLE_REDUCE, 'r', "reduce transfers")                                   \
    X(ROLE_NODE, 'n', "ranks in topology and timeline")                       \
    X(ROLE_LINK, 'l', "idle links")                                           \
    X(ROLE_LINK_ACTIVE, 'L', "links used in the current step")                \
    X(ROLE_AXIS, 'a', "chart axes and labels")                                \
    X(ROLE_MEASURED, 'x', "measured values in charts")                        \
    X(ROLE_MODEL, 'p', "model predictions in charts")                         \
    X(ROLE_OTHER, 'y', "other algorithms in charts")                         \
    X(ROLE_SERIES1, 'A', "a chart's first algorithm")                        \
    X(ROLE_SERIES2, 'B', "a chart's second algorithm")                       \
    X(ROLE_SERIES3, 'C', "a chart's third algorithm")                        \
    X(ROLE_SERIES4, 'D', "a chart's fourth algorithm")                       \
    X(ROLE_SERIES5, 'E', "a chart's fifth algorithm")                        \
    X(ROLE_SERIES6, 'G', "a chart's sixth algorithm")

typedef enum {
#define X(id, code, what) id,
    GRID_ROLES(X)
#undef X
    ROLE_COUNT
} Role;

/* Attribute bits of a cell, on top of its role's colour. */
enum {
    GRID_BOLD = 1u << 0,    /* emphasis (e.g. written in this step) */
    GRID_REVERSE = 1u << 1, /* swap colours (e.g. the cursor) */
    GRID_UNDER = 1u << 2,   /* underline */
};

/* ch of the right half of a wide character. */
#define GRID_CONT 0u

/* Line-drawing and symbol glyphs, each with a Unicode and an ASCII form. */
#define GRID_GLYPHS(X)                                                        \
    X(GL_HLINE, 0x2500, '-')                                                  \
    X(GL_VLINE, 0x2502, '|')                                                  \
    X(GL_TL, 0x250C, '+')                                                     \
    X(GL_TR, 0x2510, '+')                                                     \
    X(GL_BL, 0x2514, '+')                                                     \
    X(GL_BR, 0x2518, '+')                                                     \
    X(GL_TEE_L, 0x251C, '+')                                                  \
    X(GL_TEE_R, 0x2524, '+')                                                  \
    X(GL_TEE_T, 0x252C, '+')                                                  \
    X(GL_TEE_B, 0x2534, '+')                                                  \
    X(GL_CROSS, 0x253C, '+')                                                  \
    X(GL_ARROW_R, 0x2192, '>')                                                \
    X(GL_ARROW_L, 0x2190, '<')                                                \
    X(GL_ARROW_U, 0x2191, '^')                                                \
    X(GL_ARROW_D, 0x2193, 'v')                                                \
    X(GL_BLOCK, 0x2588, '#')                                                  \
    X(GL_SHADE1, 0x2591, ':')                                                 \
    X(GL_SHADE2, 0x2592, '%')                                                 \
    X(GL_SHADE3, 0x2593, '@')                                                 \
    X(GL_DOT, 0x00B7, '.')                                                    \
    X(GL_BULLET, 0x25CF, 'o')                                                 \
    X(GL_CHECK, 0x2713, '+')                                                  \
    X(GL_CROSSMARK, 0x2717, 'x')                                              \
    X(GL_ELLIPSIS, 0x2026, '~')                                               \
    X(GL_TRI_R, 0x25B6, '>')                                                  \
    X(GL_TRI_L, 0x25C0, '<')                                                  \
    X(GL_WRAP, 0x21BA, '&')

typedef enum {
#define X(id, uni, ascii) id,
    GRID_GLYPHS(X)
#undef X
    GL_COUNT
} Glyph;

/* A rectangle in cells; w or h <= 0 is empty. */
typedef struct {
    int x; /* left column */
    int y; /* top row */
    int w; /* columns */
    int h; /* rows */
} Rect;

/* One screen cell. */
typedef struct {
    uint32_t ch;  /* code point; GRID_CONT for a wide character's right half */
    uint8_t role; /* Role */
    uint8_t attr; /* GRID_BOLD | GRID_REVERSE | GRID_UNDER */
} Cell;

typedef struct {
    int w;       /* columns */
    int h;       /* rows */
    Cell *cells; /* w * h cells, row after row */
    bool ascii;  /* draw glyphs in their ASCII form */
    long lost;   /* non-blank characters of texts that grid_text left out
                    (past maxw or the clip): a view that never cuts keeps
                    it unchanged, which tests check */
} Grid;

/* ------------------------------------------------------------ lifetime */

/* An empty w x h grid (spaces, ROLE_NORMAL). CV_ERR_NOMEM or CV_ERR_ARG. */
CvError grid_init(Grid *g, int w, int h, bool ascii);
void grid_fini(Grid *g);
/* New size; contents become blank. */
CvError grid_resize(Grid *g, int w, int h);
/* Every cell blank (space, ROLE_NORMAL, no attributes). */
void grid_clear(Grid *g);

/* ------------------------------------------------------------ access */

/* The cell at (x, y), or NULL outside the grid. */
Cell *grid_at(Grid *g, int x, int y);
const Cell *grid_cat(const Grid *g, int x, int y);
/* The whole grid as a rectangle. */
Rect grid_rect(const Grid *g);
/* The code point of glyph gl in g's mode. */
uint32_t grid_glyph(const Grid *g, Glyph gl);
/* The one-character golden-file code of role r. */
char grid_role_code(Role r);
const char *grid_role_what(Role r);

/* ------------------------------------------------------------ drawing */

/* Put one character at (x, y) when inside clip (and the grid). */
void grid_put(Grid *g, Rect clip, int x, int y, uint32_t ch, Role role,
              unsigned attr);
/* A glyph at (x, y). */
void grid_putg(Grid *g, Rect clip, int x, int y, Glyph gl, Role role);
/* UTF-8 text from (x, y) on one row, clipped to clip and to at most maxw
 * columns (maxw < 0: no limit). Returns the columns used. Control bytes
 * and invalid UTF-8 show as '?'. */
int grid_text(Grid *g, Rect clip, int x, int y, int maxw, Role role,
              unsigned attr, const char *s);
/* grid_text, but where s is wider than maxw its end is cut and an
 * ellipsis (GL_ELLIPSIS) says so: a cut never reads as the whole, and
 * never falls inside a number ("-p 13" is cut before its word, never to
 * "-p 1"). */
int grid_text_cut(Grid *g, Rect clip, int x, int y, int maxw, Role role,
                  unsigned attr, const char *s);
/* The first line of s in at most w columns: *end is where its text ends,
 * the return value where the next line starts (blanks skipped). A line
 * breaks at blanks (English wraps only there) and between two characters
 * where one is wide (CJK), never after opening punctuation (（「“《( [),
 * never before closing punctuation (，。、；：！？）」”》) ]), and never
 * where the next line would start with "- " (a bullet, mid-sentence). A
 * word wider than w is cut at w; a character wider than w stands alone,
 * so the wrap always moves on. */
const char *grid_wrap_line(const char *s, int w, const char **end);
/* s over rows of at most w columns from (x, y), broken as grid_wrap_line
 * says: what does not fit the clip's rows is left out whole. Returns the
 * rows used (1 for an empty s). */
int grid_text_wrap(Grid *g, Rect clip, int x, int y, int w, Role role,
                   unsigned attr, const char *s);
/* printf-style grid_text. */
int grid_printf(Grid *g, Rect clip, int x, int y, int maxw, Role role,
                unsigned attr, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
/* Fill r with ch. */
void grid_fill(Grid *g, Rect r, uint32_t ch, Role role, unsigned attr);
/* Set the role (and attributes) of the cells of r, keeping characters. */
void grid_paint(Grid *g, Rect r, Role role, unsigned attr);
/* Horizontal / vertical line of a glyph from (x, y), n cells long. */
void grid_hline(Grid *g, Rect clip, int x, int y, int n, Glyph gl,
                Role role);
void grid_vline(Grid *g, Rect clip, int x, int y, int n, Glyph gl,
                Role role);
/* A frame on the border of r with an optional title in its top edge;
 * returns the inside of the frame. */
Rect grid_box(Grid *g, Rect r, Role border, const char *title, Role trole);

/* Code point c as UTF-8 into out (room for 4 bytes); the bytes written. */
int grid_utf8(char *out, uint32_t c);
/* Display width of UTF-8 text in columns. */
int grid_text_width(const char *s);
/* Columns code point c takes: 2 for East Asian wide characters and
 * emoji, 0 for combining marks and zero-width characters, which
 * grid_text leaves out (a cell holds one code point), 1 otherwise. */
int grid_cp_width(uint32_t c);

/* ------------------------------------------------------------ rectangles */

/* r shrunk by d on every side (empty when too small). */
Rect rect_inset(Rect r, int d);
/* Intersection of a and b. */
Rect rect_clip(Rect a, Rect b);
/* Whether (x, y) is inside r. */
bool rect_has(Rect r, int x, int y);
/* Split r at n rows from its top (n clamped): top part in *a, rest in *b. */
void rect_cut_top(Rect r, int n, Rect *a, Rect *b);
/* Split r at n columns from its left: left part in *a, rest in *b. */
void rect_cut_left(Rect r, int n, Rect *a, Rect *b);

/* ------------------------------------------------------------ dumping */

/* The grid as text: h lines of characters (UTF-8, wide characters once),
 * trailing spaces kept, each line ending in '\n'; then, when roles is set,
 * a line "-- roles" and h lines of role codes; then, when some cell has
 * attributes, a line "-- attrs" and h lines with a digit (the attribute
 * bits) or '.' per cell. Returns a malloc'd string or NULL (no memory). */
char *grid_dump(const Grid *g, bool roles);

#endif
