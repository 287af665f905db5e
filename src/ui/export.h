/* export.h - a screen (a Grid, as the views drew it) written for other
 * programs: as SVG, as the bytes a terminal draws it from, and as an
 * asciicast v2 recording of several screens. No App, no terminal: what
 * is written is the Grid's cells under a theme's styles (theme.h), so a
 * picture is exactly what the screen shows.
 *
 * SVG: one cell is EXPORT_CELL_W x EXPORT_CELL_H pixels. A background
 * rectangle per run of cells with the same background colour, one <text>
 * per run of cells of the same role and attributes (its class names the
 * role, "r-title"; its fill is the theme's colour; every character placed
 * at its own cell, a wide character over its two), and the light box
 * drawing characters as lines and the block and shade characters as
 * rectangles, so frames join across rows whatever font the viewer has.
 *
 * asciicast v2 (asciinema's format): a JSON header line, then one event
 * [time, "o", data] per screen, data clearing the terminal and drawing
 * every row with SGR colours. */
#ifndef COLLVIZ_UI_EXPORT_H
#define COLLVIZ_UI_EXPORT_H

#include <stdio.h>

#include "store/sink.h"
#include "core/error.h"
#include "ui/grid.h"

/* Pixels of one cell in the SVG. */
#define EXPORT_CELL_W 10
#define EXPORT_CELL_H 20

/* The colours the terminal's defaults stand for in an export. */
#define EXPORT_DEFAULT_FG 0xe5e5e5u
#define EXPORT_DEFAULT_BG 0x1c1c1cu

/* The name of role r in an SVG class ("title" for ROLE_TITLE). */
const char *export_role_name(Role r);

/* Write g as an SVG document under theme (ThemeId). CV_ERR_IO when a
 * write failed. */
CvError export_svg(FILE *f, const Grid *g, int theme);

/* Text t as XML character data: < > & escaped. */
void export_xml_text(Sink *s, const char *t);

/* The start of an SVG document of w x h pixels (its page filled); the
 * caller ends it with "</svg>". */
void export_svg_begin(Sink *s, int w, int h);
/* g's cells as a group at pixel (x, y) of a document export_svg_begin
 * started, over a background of g's size. */
void export_svg_at(Sink *s, const Grid *g, int theme, int x, int y);

/* The bytes that draw g on a terminal of its size: home and clear, then
 * every row with SGR sequences for its colours and attributes, the
 * attributes reset at the end. malloc'd; NULL when out of memory. */
char *export_ansi(const Grid *g, int theme);

/* An asciicast v2 recording being written. */
typedef struct {
    Sink sink;   /* over the file */
    int w;       /* columns of every screen */
    int h;       /* rows */
    int frames;  /* screens written so far */
    bool nomem;  /* a screen could not be made */
} CastWriter;

/* Start a recording of w x h screens with its title, `duration` seconds
 * long (the header says so). */
CvError cast_begin(CastWriter *c, FILE *f, int w, int h, const char *title,
                   double duration);
/* One screen at `t` seconds from the start (g is w x h). */
void cast_frame(CastWriter *c, double t, const Grid *g, int theme);
/* Flush; CV_ERR_IO when a write failed, CV_ERR_NOMEM when a screen could
 * not be made. */
CvError cast_end(CastWriter *c);

#endif
