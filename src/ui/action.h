/* action.h - everything a user (or a script, a timer, the worker) can ask
 * the App for, as a Request. The key table (keys.c) binds keys to these
 * actions; help is generated from that table and the texts here. Neither
 * knows the App: app_apply() carries requests out. */
#ifndef COLLVIZ_UI_ACTION_H
#define COLLVIZ_UI_ACTION_H

struct WorkerResult; /* worker.h */

/* Everything a user can ask for. The key table (keys.c) binds keys to
 * these; help is generated from that table and the texts below. */
#define ACTIONS(X)                                                            \
    X(ACT_NONE, "none", "")                                               \
    X(ACT_NEXT, "next", N_("execute the next step"))                          \
    X(ACT_PREV, "prev", N_("go back one step (reset and replay)"))            \
    X(ACT_FIRST, "first", N_("back to the initial state"))                    \
    X(ACT_LAST, "last", N_("execute every remaining step"))                   \
    X(ACT_PLAY, "play", N_("play / pause stepping"))                          \
    X(ACT_FASTER, "faster", N_("play faster"))                                \
    X(ACT_SLOWER, "slower", N_("play slower"))                                \
    X(ACT_MENU_COLL, "collective", N_("choose the collective"))               \
    X(ACT_MENU_ALGO, "algorithm", N_("choose the algorithm"))                 \
    X(ACT_MENU_RANKS, "ranks", N_("choose the number of ranks"))              \
    X(ACT_MENU_SIZE, "size", N_("choose the measured message size"))          \
    X(ACT_MENU_DTYPE, "datatype", N_("choose the datatype"))                  \
    X(ACT_MENU_OP, "op", N_("choose the reduction op"))                       \
    X(ACT_MENU_ROOT, "root", N_("choose the root rank"))                      \
    X(ACT_MENU_BACKEND, "backend", N_("choose the backend"))                  \
    X(ACT_MENU_MACHINE, "machine", N_("choose the machine the model prices on")) \
    X(ACT_INPLACE, "inplace", N_("toggle in-place / out-of-place"))           \
    X(ACT_CELLS_MORE, "cells+", N_("more cells per rank in the picture"))     \
    X(ACT_CELLS_LESS, "cells-", N_("fewer cells per rank in the picture"))    \
    X(ACT_CHUNKS, "chunks",                                                   \
      N_("a pipeline's picture in 1, 2, 4, 8, 16 chunks or its own"))       \
    X(ACT_BENCH, "bench", N_("timed run at the chosen size"))                 \
    X(ACT_SWEEP, "sweep", N_("start / stop the bandwidth sweep"))             \
    X(ACT_COMPARE, "compare", N_("sweep all algorithms of the collective"))   \
    X(ACT_CALIBRATE, "calibrate", N_("calibrate this backend and rank count")) \
    X(ACT_PRICING, "pricing",                                                 \
      N_("the model: lock-step / data-flow (ranks run ahead)"))               \
    X(ACT_CANCEL, "cancel", N_("cancel background work, close menus"))        \
    X(ACT_TOGGLE_TOPO, "topology", N_("show / hide the topology"))            \
    X(ACT_TOGGLE_TIMELINE, "timeline", N_("show / hide the step timeline"))   \
    X(ACT_TOGGLE_CHART, "chart", N_("show / hide the bandwidth chart"))       \
    X(ACT_TOGGLE_XFERS, "transfers", N_("show / hide the transfer list"))     \
    X(ACT_CHART_VIEW, "chartview", N_("chart: time or busbw against size"))   \
    X(ACT_CHART_PICK, "chartpick",                                            \
      N_("chart: other algorithms (the scene's and two, or all)"))            \
    X(ACT_CHART_FULL, "chartfull", N_("the chart over the whole screen, and back")) \
    X(ACT_TOPO_FULL, "topofull", N_("the topology over the whole screen, and back")) \
    X(ACT_PRESENT, "present", N_("presenter: big cells, the step in words"))   \
    X(ACT_SCROLL_UP, "up", N_("scroll the ranks up / menu up"))               \
    X(ACT_SCROLL_DOWN, "down", N_("scroll the ranks down / menu down"))       \
    X(ACT_SCROLL_LEFT, "left", N_("scroll the cells left"))                   \
    X(ACT_SCROLL_RIGHT, "right", N_("scroll the cells right"))                \
    X(ACT_ENTER, "enter", N_("pick the highlighted menu item"))               \
    X(ACT_ASCII, "ascii", N_("toggle ASCII / Unicode line drawing"))          \
    X(ACT_THEME, "theme", N_("next colour theme"))                            \
    X(ACT_HELP, "help", N_("show / hide this help"))                          \
    X(ACT_REDRAW, "redraw", N_("redraw the screen"))                          \
    X(ACT_EXPORT_SVG, "export", N_("write the screen as an SVG picture"))    \
    X(ACT_EXPORT_CAST, "cast", N_("write the steps from here to the last as an asciicast")) \
    X(ACT_SCENE_STR, "scene", N_("show the scene string that reopens this scene")) \
    X(ACT_LESSONS, "lessons", N_("the lessons; quitting them comes back here")) \
    X(ACT_QUIT, "quit", N_("quit collviz"))                                   \
    /* requests with arguments, made by mouse clicks and the script */        \
    X(ACT_SELECT_CELL, "select", N_("select cell (rank a, buffer b, elem c)")) \
    X(ACT_SELECT_RANK, "rank", N_("select rank a"))                           \
    X(ACT_SEEK, "seek", N_("go to step a (steps executed)"))                  \
    X(ACT_MENU_PICK, "pick", N_("pick menu item a"))                          \
    X(ACT_MENU_HOVER, "hover", N_("highlight menu item a"))                   \
    X(ACT_RESIZE, "resize", N_("the terminal is now a columns by b rows"))    \
    X(ACT_TICK, "tick", N_("time passes (play, background results)"))         \
    X(ACT_RESULT, "result", N_("a background result arrives (result)"))       \
    /* what a mode makes of keys (app_key): text entry's characters */        \
    X(ACT_TYPE, "type", N_("type character a into the prompt"))               \
    X(ACT_ERASE, "erase", N_("erase the last character typed"))

typedef enum {
#define X(id, name, help) id,
    ACTIONS(X)
#undef X
    ACT_COUNT
} Action;

/* One request: an action and its arguments (unused ones are 0). */
typedef struct {
    Action act;           /* what to do */
    int a;                /* first argument (rank, item, step, columns) */
    int b;                /* second argument (buffer, rows) */
    long long c;          /* third argument (element index) */
    struct WorkerResult *result; /* ACT_RESULT: what the worker posted
                                    (applying it may take its step_s) */
} Request;

const char *action_name(Action a);
/* The action's name in the language in use, for the screen (the status
 * line's hints); action_name stays the English word scripts use. */
const char *action_label(Action a);
const char *action_help(Action a);
/* Action by name (as in scripts); -1 when unknown. */
int action_parse(const char *s);

#endif
