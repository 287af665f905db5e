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
    X(ACT_NONE, "none", "")                                                   \
    X(ACT_NEXT, "next", "execute the next step")                              \
    X(ACT_PREV, "prev", "go back one step (reset and replay)")                \
    X(ACT_FIRST, "first", "back to the initial state")                        \
    X(ACT_LAST, "last", "execute every remaining step")                       \
    X(ACT_PLAY, "play", "play / pause stepping")                              \
    X(ACT_FASTER, "faster", "play faster")                                    \
    X(ACT_SLOWER, "slower", "play slower")                                    \
    X(ACT_MENU_COLL, "collective", "choose the collective")                   \
    X(ACT_MENU_ALGO, "algorithm", "choose the algorithm")                     \
    X(ACT_MENU_RANKS, "ranks", "choose the number of ranks")                  \
    X(ACT_MENU_SIZE, "size", "choose the measured message size")              \
    X(ACT_MENU_DTYPE, "datatype", "choose the datatype")                      \
    X(ACT_MENU_OP, "op", "choose the reduction op")                           \
    X(ACT_MENU_ROOT, "root", "choose the root rank")                          \
    X(ACT_MENU_BACKEND, "backend", "choose the backend")                      \
    X(ACT_INPLACE, "inplace", "toggle in-place / out-of-place")               \
    X(ACT_CELLS_MORE, "cells+", "more cells per rank in the picture")         \
    X(ACT_CELLS_LESS, "cells-", "fewer cells per rank in the picture")        \
    X(ACT_BENCH, "bench", "timed run at the chosen size")                     \
    X(ACT_SWEEP, "sweep", "start / stop the bandwidth sweep")                 \
    X(ACT_COMPARE, "compare", "sweep all algorithms of the collective")       \
    X(ACT_CANCEL, "cancel", "cancel background work, close menus")            \
    X(ACT_TOGGLE_TOPO, "topology", "show / hide the topology")                \
    X(ACT_TOGGLE_TIMELINE, "timeline", "show / hide the step timeline")       \
    X(ACT_TOGGLE_CHART, "chart", "show / hide the bandwidth chart")           \
    X(ACT_TOGGLE_XFERS, "transfers", "show / hide the transfer list")         \
    X(ACT_SCROLL_UP, "up", "scroll the ranks up / menu up")                   \
    X(ACT_SCROLL_DOWN, "down", "scroll the ranks down / menu down")           \
    X(ACT_SCROLL_LEFT, "left", "scroll the cells left")                       \
    X(ACT_SCROLL_RIGHT, "right", "scroll the cells right")                    \
    X(ACT_ENTER, "enter", "pick the highlighted menu item")                   \
    X(ACT_ASCII, "ascii", "toggle ASCII / Unicode line drawing")              \
    X(ACT_THEME, "theme", "next colour theme")                                \
    X(ACT_HELP, "help", "show / hide this help")                              \
    X(ACT_REDRAW, "redraw", "redraw the screen")                              \
    X(ACT_LESSONS, "lessons", "open the lessons (collviz learn)")           \
    X(ACT_QUIT, "quit", "quit collviz")                                       \
    /* requests with arguments, made by mouse clicks and the script */        \
    X(ACT_SELECT_CELL, "select", "select cell (rank a, buffer b, elem c)")    \
    X(ACT_SELECT_RANK, "rank", "select rank a")                               \
    X(ACT_SEEK, "seek", "go to step a (steps executed)")                      \
    X(ACT_MENU_PICK, "pick", "pick menu item a")                              \
    X(ACT_MENU_HOVER, "hover", "highlight menu item a")                       \
    X(ACT_RESIZE, "resize", "the terminal is now a columns by b rows")        \
    X(ACT_TICK, "tick", "time passes (play, background results)")             \
    X(ACT_RESULT, "result", "a background result arrives (result)")           \
    /* what a mode makes of keys (app_key): text entry's characters */        \
    X(ACT_TYPE, "type", "type character a into the prompt")                   \
    X(ACT_ERASE, "erase", "erase the last character typed")

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
const char *action_help(Action a);
/* Action by name (as in scripts); -1 when unknown. */
int action_parse(const char *s);

#endif
