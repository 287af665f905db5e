/* app.h - the TUI's whole state, and the one place that changes it.
 *
 * Views only read an App (const App *); input (keys, mouse, script lines,
 * timers, background results) becomes a Request, and app_apply() is the only
 * function that turns requests into state changes. Background work (timed
 * runs, the bandwidth sweep) runs in a worker thread; app_poll() copies its
 * results into plain App fields, so views never lock anything.
 *
 * Two versions of the same scene exist side by side:
 *  - the picture: `call` with a small count (a few cells per rank), executed
 *    step by step on the backend and symbolically (`sim`);
 *  - the measurement: `big` at the chosen size (default 64 MiB), whose
 *    schedule gives the byte counters and the model's prediction, and which
 *    the worker times on the backend. */
#ifndef COLLVIZ_UI_APP_H
#define COLLVIZ_UI_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algos/algo.h"
#include "measure/calib.h"
#include "core/coll.h"
#include "exec/exec.h"
#include "core/model.h"
#include "core/sched.h"
#include "core/sim.h"

/* ------------------------------------------------------------ actions */

/* Everything a user can ask for. The key table (keys.c) binds keys to
 * these; help is generated from that table and the texts below. */
#define APP_ACTIONS(X)                                                        \
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
    X(ACT_QUIT, "quit", "quit collviz")                                       \
    /* requests with arguments, made by mouse clicks and the script */        \
    X(ACT_SELECT_CELL, "select", "select cell (rank a, buffer b, elem c)")    \
    X(ACT_SELECT_RANK, "rank", "select rank a")                               \
    X(ACT_SEEK, "seek", "go to step a (steps executed)")                      \
    X(ACT_MENU_PICK, "pick", "pick menu item a")                              \
    X(ACT_MENU_HOVER, "hover", "highlight menu item a")                       \
    X(ACT_RESIZE, "resize", "the terminal is now a columns by b rows")        \
    X(ACT_TICK, "tick", "time passes (play, background results)")

typedef enum {
#define X(id, name, help) id,
    APP_ACTIONS(X)
#undef X
    ACT_COUNT
} Action;

/* One request: an action and its arguments (unused ones are 0). */
typedef struct {
    Action act;  /* what to do */
    int a;       /* first argument (rank, item, step, columns) */
    int b;       /* second argument (buffer, rows) */
    long long c; /* third argument (element index) */
} Request;

const char *action_name(Action a);
const char *action_help(Action a);
/* Action by name (as in scripts); -1 when unknown. */
int action_parse(const char *s);

/* ------------------------------------------------------------ panels */

/* Every panel of the screen; view.h maps each to its drawing code. */
#define APP_VIEWS(X)                                                          \
    X(VIEW_HEADER, "header")                                                  \
    X(VIEW_BUFFERS, "buffers")                                                \
    X(VIEW_TRANSFERS, "transfers")                                            \
    X(VIEW_TOPOLOGY, "topology")                                              \
    X(VIEW_TIMELINE, "timeline")                                              \
    X(VIEW_COUNTERS, "counters")                                              \
    X(VIEW_CHART, "chart")                                                    \
    X(VIEW_STATUS, "status")                                                  \
    X(VIEW_HELP, "help")                                                      \
    X(VIEW_MENU, "menu")

typedef enum {
#define X(id, name) id,
    APP_VIEWS(X)
#undef X
    VIEW_COUNT
} ViewId;

/* Menus the user can open. */
#define APP_MENUS(X)                                                          \
    X(MENU_NONE, "")                                                          \
    X(MENU_COLL, "Collective")                                                \
    X(MENU_ALGO, "Algorithm")                                                 \
    X(MENU_RANKS, "Ranks")                                                    \
    X(MENU_SIZE, "Size")                                                      \
    X(MENU_DTYPE, "Datatype")                                                 \
    X(MENU_OP, "Reduction op")                                                \
    X(MENU_ROOT, "Root")                                                      \
    X(MENU_BACKEND, "Backend")

typedef enum {
#define X(id, title) id,
    APP_MENUS(X)
#undef X
    MENU_COUNT
} MenuKind;

/* The most items a menu shows (ranks and sizes lists are the longest). */
#define APP_MENU_MAX 64

/* An open menu: its items are computed when it opens. */
typedef struct {
    MenuKind kind;                  /* MENU_NONE when closed */
    int n;                          /* items */
    int cur;                        /* highlighted item */
    int top;                        /* first item shown (scrolling) */
    char label[APP_MENU_MAX][48];   /* item texts */
    long long value[APP_MENU_MAX];  /* what picking each item sets */
    bool current[APP_MENU_MAX];     /* item is the scene's current value */
} AppMenu;

/* ------------------------------------------------------------ results */

/* A value measured or computed later, or not at all: shown as N/A when
 * !valid (never a made-up number). */
typedef struct {
    double v;   /* the value */
    bool valid; /* v holds a real result */
} AppValue;

/* One point of the bandwidth sweep (the chart's data). */
typedef struct {
    const AlgoInfo *algo; /* algorithm measured */
    uint64_t bytes;       /* message size (nccl-tests meaning) */
    double time_s;        /* measured seconds per iteration */
    double algbw;         /* measured GB/s: bytes / time */
    double busbw;         /* measured algbw * busbw factor */
    double model_s;       /* model's prediction in seconds */
    double model_busbw;   /* busbw the model predicts */
    bool ok;              /* measured and verified; else failed */
} SweepPoint;

/* Most sweep points kept (sizes x algorithms). */
#define APP_SWEEP_MAX 512

/* What the background worker is doing, as the main thread last saw it. */
typedef enum {
    BG_IDLE,  /* nothing running */
    BG_BENCH, /* timed run at the chosen size */
    BG_SWEEP, /* bandwidth sweep over sizes (and algorithms) */
    BG_COUNT
} BgKind;

typedef struct Worker Worker; /* worker.h: thread, queue, locked results */
typedef struct CheckCache CheckCache; /* check.h: expected values */

/* ------------------------------------------------------------ the state */

typedef struct App {
    /* ---- the scene */
    CollCall call;            /* the picture's call (small count) */
    const AlgoInfo *algo;     /* its algorithm */
    Schedule sched;           /* schedule of call by algo */
    Sim sim;                  /* symbolic state after `step` steps */
    size_t step;              /* steps executed: 0 .. sched.nsteps */
    int cells;                /* picture cells per block (count knob) */
    uint64_t bytes;           /* chosen size for counters and timed runs */
    CollCall big;             /* the call at the chosen size */
    Schedule big_sched;       /* its schedule (counters, model) */
    bool big_ok;              /* big_sched built with the picture's steps */
    /* ---- counters of the shown step (from big_sched; see app_shown) */
    RankStepStats *stats;     /* [nranks] bytes of the shown step */
    size_t step_sent;         /* max bytes one rank sent in the step */
    size_t step_recvd;        /* max bytes one rank received in the step */
    size_t sofar_sent;        /* max over ranks of bytes sent up to now */
    size_t sofar_recvd;       /* max over ranks of bytes received so far */
    SchedTotals totals;       /* totals of the whole big schedule */
    /* ---- the model */
    ModelParams params;       /* alpha, beta, gamma in use */
    bool params_calibrated;   /* measured on this machine (calib.h) */
    Calib calib;              /* the calibration, when params_calibrated */
    LinkModel link;           /* link model for predictions */
    AppValue pred_step_s;     /* model time of the shown step */
    AppValue pred_total_s;    /* model time of the whole collective */
    /* ---- real execution of the picture */
    const ExecOps *backend;   /* backend in use */
    const char *backend_params; /* its options (-B NAME:PARAMS, borrowed
                                   from the command line), or NULL */
    Executor *ex;             /* its executor, loaded with sched */
    uint8_t *real[BUF_COUNT]; /* bytes read back, element i of rank r of
                                 buffer b at (sim.base[b][r] + i) * size */
    bool real_ok;             /* real[] holds the state after `step` */
    uint8_t *bad[BUF_COUNT];  /* per element: 1 when real differs from sim */
    size_t nwrong;            /* elements differing after the shown step */
    CheckCache *check;        /* expected values, kept between steps */
    uint8_t *written[BUF_COUNT]; /* per element: 0, 1 + XferOp written in
                                    the shown step */
    double last_step_ms;      /* wall time of the last step (execute,
                                 read back, check) on this machine */
    /* ---- timed runs and the sweep (copied from the worker by app_poll) */
    Worker *worker;           /* background thread, owns its executor */
    unsigned bg_job;          /* id of the job whose results we take */
    BgKind bg;                /* what runs in the background */
    double bg_progress;       /* 0..1 of the background job */
    AppValue meas_total_s;    /* measured seconds of the whole collective */
    double *meas_step_s;      /* [big_sched.nsteps] measured step times */
    bool meas_steps_ok;       /* meas_step_s holds a real result */
    uint64_t meas_bytes;      /* size the measurement was taken at */
    bool meas_verified;       /* the timed run's results checked right */
    SweepPoint sweep[APP_SWEEP_MAX]; /* sweep results so far */
    size_t nsweep;            /* points in sweep[] */
    size_t sweep_planned;     /* points the running sweep will make */
    bool compare;             /* sweep every algorithm of the collective */
    /* ---- what the user sees and selects */
    bool show[VIEW_COUNT];    /* panels switched on */
    AppMenu menu;             /* the open menu (kind MENU_NONE: none) */
    bool help;                /* the help panel is open */
    int help_top;             /* first help line shown (scrolling) */
    bool playing;             /* stepping by itself */
    int play_ms;              /* milliseconds between steps when playing */
    double play_due;          /* monotonic time of the next played step */
    int sel_rank;             /* selected cell: rank, or -1 */
    int sel_buf;              /* its BufId */
    size_t sel_elem;          /* its element */
    int scroll_rank;          /* first rank row shown in the picture */
    int scroll_cell;          /* first cell column shown in the picture */
    int term_w;               /* terminal columns */
    int term_h;               /* terminal rows */
    bool ascii;               /* ASCII line drawing instead of Unicode */
    int theme;                /* colour theme index (term.c) */
    bool redraw;              /* repaint the whole terminal next frame */
    char msg[200];            /* one-sentence status message, or "" */
    bool msg_error;           /* the message reports an error */
    bool quit;                /* leave the main loop */
    int exit_status;          /* what cmd_tui returns (1: backend failed) */
} App;

/* Options that choose the first scene (from the command line). */
typedef struct {
    CollKind kind;           /* collective */
    const char *algo;        /* algorithm name, or NULL for the default */
    int nranks;              /* ranks */
    uint64_t bytes;          /* chosen size for the counters */
    DataType dtype;          /* datatype */
    RedOp op;                /* reduction op */
    int root;                /* root rank */
    bool in_place;           /* in place */
    const char *backend;     /* backend (-B NAME or NAME:PARAMS), or NULL
                                for "threads" */
    int cells;               /* picture cells per block, 0 for default */
    bool no_worker;          /* no background thread (scripted tests) */
} AppOptions;

/* Defaults: allreduce, ring, 8 ranks, 64 MiB, float, sum, threads. */
void app_options_default(AppOptions *o);
/* The defaults with collective k, algorithm (NULL: the collective's
 * default) and rank count set; with no_worker (tests, benchmarks). */
AppOptions app_options(CollKind k, const char *algo, int nranks,
                       bool no_worker);

/* Build the first scene. On error *why gets one sentence and the App is
 * left finalizable. */
CvError app_init(App *app, const AppOptions *o, char *why, size_t whylen);
void app_fini(App *app);

/* The one function that changes state. */
void app_apply(App *app, const Request *req);

/* Set the status message (one sentence); error marks it as a failure.
 * For the modules app_apply() calls. */
void app_message(App *app, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Copy background results into the App and advance play; `now` is a
 * monotonic time in seconds. Returns true when something changed. */
bool app_poll(App *app, double now);

/* ------------------------------------------------------------ reading */

/* The step the screen shows: the last executed one. Returns false in the
 * initial state (step 0), when nothing has been executed yet. */
static inline bool app_shown(const App *app, size_t *k)
{
    if (app->step == 0)
        return false;
    *k = app->step - 1;
    return true;
}

/* Real value of element i of rank r's buffer b as a double (NAN when the
 * real buffers are not available). */
double app_real_value(const App *app, int r, BufId b, size_t i);

/* Cells of rank r's buffer b in the picture (0 when the buffer is empty). */
static inline size_t app_buf_cells(const App *app, int r, BufId b)
{
    return sched_bufsize(&app->sched, r, b);
}

/* Whether buffer b is drawn (send only out of place, tmp when used). */
bool app_buf_shown(const App *app, BufId b);

/* Monotonic seconds (for play and timing). */
double app_now(void);

#endif
