/* theme.h - how each colour role looks under each theme, with no terminal
 * attached: colours as xterm palette numbers (0-7 the eight ANSI colours,
 * 16-255 the 256-colour cube and greys) or the terminal's default, and
 * attributes as bits of our own. term.c turns a style into curses'
 * colour pairs and attributes; the exports (export.h) turn the same
 * style into SVG colours and SGR sequences, so a picture written to a
 * file has the colours the screen has. */
#ifndef COLLVIZ_UI_THEME_H
#define COLLVIZ_UI_THEME_H

#include <stdint.h>

#include "ui/grid.h"

/* The themes, in the order T cycles through them. */
typedef enum {
    THEME_COLOUR, /* the eight ANSI colours */
    THEME_DEEP,   /* 256 colours: deeper blues for more contributions */
    THEME_MONO,   /* no colours: bold, dim, underline and reverse only */
    THEME_COUNT
} ThemeId;

/* The terminal's own foreground or background colour. */
#define THEME_DEFAULT (-1)

/* The eight ANSI colours (curses' COLOR_* numbers). */
enum {
    TC_BLACK, TC_RED, TC_GREEN, TC_YELLOW, TC_BLUE, TC_MAGENTA, TC_CYAN,
    TC_WHITE
};

/* Attribute bits of a style. */
enum {
    TA_BOLD = 1u << 0,
    TA_DIM = 1u << 1,
    TA_REVERSE = 1u << 2,
    TA_UNDER = 1u << 3,
    TA_BLINK = 1u << 4,
};

/* How one role looks. */
typedef struct {
    int16_t fg;   /* foreground: palette number or THEME_DEFAULT */
    int16_t bg;   /* background: palette number or THEME_DEFAULT */
    uint8_t attr; /* TA_* bits */
} ThemeStyle;

/* The style of role r under theme t (t taken modulo THEME_COUNT). */
const ThemeStyle *theme_style(int t, Role r);
/* "colour", "deep", "mono". */
const char *theme_name(int t);
/* The theme called s, or -1. */
int theme_parse(const char *s);
/* The red, green and blue (0xRRGGBB) of palette colour c (0-255) as
 * xterm draws it. */
uint32_t theme_rgb(int c);

#endif
