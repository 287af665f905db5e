/* screen.h - a whole frame: the layout for the App's terminal size, every
 * panel drawn into the grid (frames, views, overlays), or the too-small
 * message; and mouse clicks routed to the view under the pointer. Used by
 * the terminal loop, the scripted mode, the tests and the benchmark. */
#ifndef COLLVIZ_UI_SCREEN_H
#define COLLVIZ_UI_SCREEN_H

#include "ui/app.h"
#include "ui/grid.h"
#include "ui/layout.h"

/* The layout of the App's current terminal size and panels. */
void screen_layout(const App *app, Layout *out);

/* Whether panel v gets a rectangle in that layout (AppView.placed). */
bool screen_placed(const App *app, ViewId v);

/* Draw the frame into g (resized to app->term_w x term_h by the caller). */
void screen_draw(const App *app, Grid *g);

/* The request a click at (x, y) makes; false when it means nothing. */
bool screen_click(const App *app, int x, int y, Request *req);

#endif
