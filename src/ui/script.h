/* script.h - the scripted mode: keys and commands from a text, applied to
 * an App frame by frame and drawn into a Grid, no terminal involved. It
 * runs the TUI headless (CI, sanitizers) and makes screens reproducible.
 *
 * A script is whitespace-separated words; '#' starts a comment to the end
 * of the line. Words are key names as help shows them (Right, PgDn, a,
 * Enter, Esc, Space, Backspace, ...) or commands:
 *   click X Y     a mouse click at column X, row Y
 *   wheel up|down the mouse wheel
 *   resize WxH    the terminal changes size
 *   tick [N]      N frames of time passing (play advances one step each)
 *   wait          wait until the background work is done
 *   dump          write the current frame to the output
 *   act NAME      an action by its name (see action.h)
 *   seek K        go to step K
 *   select R B E  select element E of rank R's buffer B (send, recv, tmp)
 * Each key or command is one frame. */
#ifndef COLLVIZ_UI_SCRIPT_H
#define COLLVIZ_UI_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "ui/app.h"
#include "ui/grid.h"

typedef enum {
    SCRIPT_KEY,    /* a key: key */
    SCRIPT_CLICK,  /* a click at (a, b) */
    SCRIPT_WHEEL,  /* wheel: a = -1 up, 1 down */
    SCRIPT_RESIZE, /* new size a x b */
    SCRIPT_TICK,   /* one frame of time */
    SCRIPT_WAIT,   /* wait for the worker */
    SCRIPT_DUMP,   /* write the frame */
    SCRIPT_ACT,    /* a request: req */
    SCRIPT_KIND_COUNT
} ScriptKind;

typedef struct {
    ScriptKind kind; /* what it is */
    int key;         /* key code of SCRIPT_KEY */
    int a;           /* first number (x, columns, direction) */
    int b;           /* second number (y, rows) */
    Request req;     /* the request of SCRIPT_ACT */
} ScriptItem;

typedef struct {
    ScriptItem *items; /* in order */
    size_t n;          /* items used */
    size_t cap;        /* items allocated */
} Script;

/* The most items (frames) one script may hold: "tick 100000" written 300
 * times is refused, not 30 million frames long (about ten seconds of
 * frames at most). */
#define SCRIPT_MAX_FRAMES 100000

/* Parse text; on error *why names the word and line (always a sentence:
 * a bad word, too many frames, no memory). */
CvError script_parse(const char *text, Script *out, char *why, size_t len);
void script_fini(Script *s);

/* How a run reports. */
typedef struct {
    int frames;    /* frames to run (script items, then ticks); <= 0: as
                      many as the script has items */
    bool dump;     /* write the last frame */
    bool roles;    /* dumps include the role layer */
    FILE *out;     /* where dumps go */
} ScriptRun;

/* Run script s on app drawing into g (resized to the App's size each
 * frame). Returns the number of frames drawn. */
int script_run(App *app, const Script *s, const ScriptRun *run, Grid *g);

/* Apply one item to the App (shared with the terminal loop's input). */
void script_apply(App *app, const ScriptItem *it);

#endif
