/* share.h - pictures of the App's screens for slides and chats: the
 * screen as SVG (the key w, and --export-svg), a range of steps as an
 * asciicast (--export-cast), each drawn into a Grid exactly as the
 * terminal shows it (screen.h) and written through the store's atomic
 * writes (export.h has the formats). No terminal is needed. */
#ifndef COLLVIZ_UI_SHARE_H
#define COLLVIZ_UI_SHARE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "store/store.h"
#include "ui/app.h"
#include "ui/grid.h"

/* Write the App's screen, drawn into g at the App's terminal size, as an
 * SVG under theme (ThemeId) to path ("-": standard output). CV_ERR_IO
 * and one sentence when the file cannot be written (its folder does not
 * exist, it is a folder, the disk is full...). */
CvError share_svg(App *app, Grid *g, const char *path, int theme, char *why,
                  size_t whylen);

/* Write through fn to path ("-": standard output) with the store's
 * atomic write, after checking that path's folder exists; one sentence
 * in why when it cannot. */
CvError share_write(const char *path, StoreWriteFn fn, void *ctx,
                    char *why, size_t whylen);

/* Most frames the key w writes in the full-screen topology: the steps
 * from the one shown. */
#define SHARE_FRAMES_MAX 6

/* Write the topology panel of steps `from` to `to` (clamped to the
 * schedule) as one SVG to path, one frame per step, FRAMES_COLS to a
 * row, each titled with its step and phase and its links' loads in a
 * <desc> (share_frames.c). The App is left at step `to`. */
CvError share_frames(App *app, const char *path, size_t from, size_t to,
                     int theme, char *why, size_t whylen);

/* Write the App's chart as lines, not characters (chart_svg.h), under
 * theme to path ("-": standard output): the key w in the full-screen
 * chart. */
CvError share_chart_svg(const App *app, const char *path, int theme,
                        char *why, size_t whylen);

/* Write the screens of steps `from` to `to` (steps executed, clamped to
 * the schedule), one every `delay` seconds, as an asciicast to path. The
 * App is left at step `to`. */
/* Seconds between the screens of a cast the key W writes, and the
 * default of --delay. */
#define SHARE_DELAY_S 1.5

CvError share_cast(App *app, Grid *g, const char *path, size_t from,
                   size_t to, double delay, int theme, char *why,
                   size_t whylen);

/* After a frame was drawn into g: write the export the user asked for
 * (the App's status.export_to: g as SVG, the chart's lines when the
 * chart is over the whole screen, the topology of the steps from the
 * shown one (SHARE_FRAMES_MAX) when it is, or with status.export_cast the
 * steps from the one shown to the last as a cast, the scene then back at
 * its step) and say on the status line what was written or why not.
 * True when there was one (draw again). */
bool share_pending(App *app, const Grid *g, int theme);

#endif
