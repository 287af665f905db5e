/* term.h - the one module that owns the terminal: start and restore it,
 * colours by role under a theme, copy a Grid to the screen, read keys,
 * clicks and resizes. The terminal is restored on every exit path: normal
 * return, exit() (atexit), SIGINT/SIGTERM/SIGHUP (a flag the loop sees) and
 * fatal signals (restored from the handler with async-signal-safe calls,
 * then the signal's default action). */
#ifndef COLLVIZ_UI_TERM_H
#define COLLVIZ_UI_TERM_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "ui/grid.h"

/* The keys term_read reports by code beside the characters (whose codes
 * are their bytes): values past Unicode's, so that no character is one.
 * The rest of the interface names keys by these and never includes
 * curses. */
enum {
    TERM_KEY_UP = 0x110000,
    TERM_KEY_DOWN,
    TERM_KEY_LEFT,
    TERM_KEY_RIGHT,
    TERM_KEY_HOME,
    TERM_KEY_END,
    TERM_KEY_PPAGE,     /* Page Up */
    TERM_KEY_NPAGE,     /* Page Down */
    TERM_KEY_ENTER,     /* the keypad's Enter */
    TERM_KEY_BACKSPACE,
    TERM_KEY_F1,
};

/* What term_read returns. */
typedef enum {
    TERM_NONE,   /* the timeout passed */
    TERM_KEY,    /* a key: key */
    TERM_CLICK,  /* a mouse click at (x, y) */
    TERM_WHEEL,  /* the wheel turned: key is -1 (up) or 1 (down) */
    TERM_RESIZE, /* the terminal is now x columns by y rows */
    TERM_STOP,   /* a signal asked us to stop: key is its number */
    TERM_EV_COUNT
} TermEvKind;

typedef struct {
    TermEvKind kind; /* what happened */
    int key;         /* key code, wheel direction or signal number */
    int x;           /* column of a click; columns after a resize */
    int y;           /* row of a click; rows after a resize */
} TermEvent;

/* Start the terminal (the caller checked it is one). *utf8 tells whether
 * the locale can show Unicode line drawing. On failure *why says why. */
CvError term_init(bool *utf8, char *why, size_t len);
/* Restore the terminal; safe to call twice and before term_init. */
void term_fini(void);

/* The terminal's size. */
void term_size(int *w, int *h);
/* Copy g to the screen with colours of theme (taken modulo the themes);
 * all: repaint everything (after ^L). */
void term_present(const Grid *g, int theme, bool all);
/* Wait up to timeout_ms for input. */
TermEvent term_read(int timeout_ms);
/* The signal (SIGINT, SIGTERM, SIGHUP) that asked the loop to stop, or
 * 0: for work done outside term_read, such as a lesson's command, to end
 * at once. */
int term_stop_signal(void);
/* The process group (> 0; 0: none) of a command the program runs on its
 * user's behalf in a group of its own: a fatal signal that ends the
 * program (QUIT, ABRT, SEGV, ...) ends it too (SIGKILL). */
void term_child_group(int pgid);
/* Run the user's editor ($VISUAL, $EDITOR, else vi; through sh, as git
 * does) on path with the terminal given back to it meanwhile; 0 when it
 * ends well, else -1 and one sentence. */
int term_edit(const char *path, char *why, size_t whylen);

/* Themes: "colour" (8 colours), "deep" (256 colours), "mono"; a terminal
 * without colours or NO_COLOR set only gets "mono". */
int term_theme_count(void);
const char *term_theme_name(int theme);
/* The theme (theme.h's ThemeId) that index `theme` shows on this terminal:
 * mono without colours, colour for deep on 8 colours. */
int term_theme_effective(int theme);
/* The theme to start with under the current terminal and environment. */
int term_default_theme(void);
/* How a cell of role r with attributes attr (GRID_*) looks in monochrome
 * (no colours, NO_COLOR): 'R' reverse, 'B' bold and underlined, 'b' bold,
 * 'u' underlined, 'd' dim, '.' plain. Golden screens show it, so that
 * what colour alone tells apart is seen to be told apart without it. */
char term_mono_mark(Role r, unsigned attr);

#endif
