/* app.h - the TUI's whole state, and the one place that changes it.
 *
 * Views only read an App (const App *); input (keys, mouse, script lines,
 * timers, background results) becomes a Request, and app_apply() is the only
 * function that turns requests into state changes. Background work (timed
 * runs, the bandwidth sweep) runs in a worker thread that knows no App;
 * app_poll() takes its results and applies them as requests, so views
 * never lock anything.
 *
 * The scene (scene.h: the picture, the measured size, the model) is a
 * Scene of its own that the App holds; the App adds what the user sees and
 * selects, play, background results, and modes. A mode (help, a menu, text
 * entry) takes the keys while it is open: one table (app_mode.c) says for
 * each how keys become requests, which requests it takes, and which panel
 * draws it. */
#ifndef COLLVIZ_UI_APP_H
#define COLLVIZ_UI_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algos/algo.h"
#include "core/coll.h"
#include "core/error.h"
#include "scene/spec.h"
#include "ui/action.h"
#include "ui/menu.h"
#include "ui/text.h"
#include "scene/value.h"
#include "ui/worker.h"

/* ------------------------------------------------------------ panels */

/* Every panel of the screen; view.h maps each to its drawing code. The
 * last three draw the modes (see ModeOps). */
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
    X(VIEW_MENU, "menu")                                                      \
    X(VIEW_PROMPT, "prompt")

typedef enum {
#define X(id, name) id,
    APP_VIEWS(X)
#undef X
    VIEW_COUNT
} ViewId;

/* ------------------------------------------------------------ modes */

/* What takes the keys: the picture itself, or a mode on top of it. */
typedef enum {
    MODE_NONE, /* the picture: keys are the key table's actions */
    MODE_HELP, /* the help panel: Up/Down scroll, any other key closes */
    MODE_MENU, /* a menu: keys move and pick; others close it and act */
    MODE_TEXT, /* a one-line prompt: keys type; Enter, Escape end it */
    MODE_COUNT
} ModeKind;

/* What Enter does with the text typed in MODE_TEXT. */
typedef enum {
    TEXT_FOR_SIZE, /* the measured size, parsed as -s is */
    TEXT_FOR_SVG,  /* a file to write the screen to as SVG */
    TEXT_FOR_CAST, /* a file to write the steps from here as a cast */
    TEXT_FOR_COUNT
} TextFor;

/* The sweep's sizes: from 8 B to the chosen size (64 MiB by default),
 * factor 4, and the chosen size itself. */
#define APP_SWEEP_MIN 8ull

/* ------------------------------------------------------------ the state */

typedef struct Scene Scene;           /* scene.h: picture and measurement */
typedef struct SceneSetup SceneSetup; /* scene.h: what a scene is made of */

struct App;

/* What the user sees: panels, scrolling, the selection, the terminal. */
typedef struct {
    bool show[VIEW_COUNT];    /* panels switched on (not the modes') */
    int sel_rank;             /* selected cell: rank, or -1 */
    int sel_buf;              /* its BufId, or -1 (a rank selected) */
    size_t sel_elem;          /* its element */
    int scroll_rank;          /* first rank row shown in the picture */
    int scroll_cell;          /* first cell column shown in the picture */
    int term_w;               /* terminal columns */
    int term_h;               /* terminal rows */
    bool ascii;               /* ASCII line drawing instead of Unicode */
    int theme;                /* colour theme index (term.c) */
    bool chart_busbw;         /* the chart plots busbw (else time) */
    bool chart_full;          /* the chart over the whole body */
    int chart_pick;           /* which algorithms the chart shows: the
                                 scene's and the best two, then pages of
                                 the others, then all (chart.h) */
    bool topo_full;           /* the topology over the whole body (not
                                 with chart_full) */
    int root;                 /* the root last chosen for a rooted
                                 collective, kept across collectives */
    bool present;             /* presenter mode: big cells, the step's
                                 sentence and transfers, one counter line */
    bool redraw;              /* repaint the whole terminal next frame */
    /* Whether panel v gets room at the terminal's size (screen_placed,
     * set by whoever draws the App; NULL: not known) */
    bool (*placed)(const struct App *app, ViewId v);
} AppView;

/* Stepping by itself. */
typedef struct {
    bool on;                  /* playing */
    int ms;                   /* milliseconds between steps */
    double due;               /* monotonic time of the next step */
} AppPlay;

/* Timed runs and the sweep: the worker's results as applied so far. */
typedef struct {
    Worker *worker;           /* background thread, owns its executor
                                 (NULL: none, as in scripted tests) */
    unsigned job;             /* id of the job whose results we take */
    WorkerKind kind;          /* what runs (WORKER_IDLE: nothing) */
    double progress;          /* 0..1 of the job */
    Value total_s;            /* measured seconds of the whole collective
                                 (the median of the timed run's parts) */
    double min_s;             /* the fastest part's, 0: none */
    int runs;                 /* parts the timed run was timed in */
    int moved;                /* PERF_HOST_* bits: the machine moved */
    double *step_s;           /* [nsteps] measured step times */
    size_t nsteps;            /* entries of step_s */
    bool steps_ok;            /* step_s holds a real result */
    uint64_t bytes;           /* size the measurement was taken at */
    bool verified;            /* the timed run's results checked right */
    SweepPoint sweep[WORKER_SWEEP_MAX]; /* sweep results so far */
    size_t nsweep;            /* points in sweep[] */
    size_t planned;           /* points the sweep will make (0: unknown) */
    bool compare;             /* sweep every algorithm of the collective */
    CollCall sweep_call;      /* the call sweep[] measured (its count
                                 unused): kept while the scene's is the
                                 same whatever its algorithm */
    const void *sweep_backend; /* and the backend (ExecOps) it ran on */
    SweepPoint stash[WORKER_SWEEP_MAX]; /* the sweep of the call before
                                 (in place or out of place, say), put
                                 back when the scene's call is its again */
    size_t nstash;            /* points in stash[] */
    CollCall stash_call;      /* its call */
    const void *stash_backend; /* its backend */
    bool bench_next;          /* the calibration running is the quick one
                                 before a timed run */
} AppBg;

/* The open mode and each mode's own state. */
typedef struct {
    ModeKind kind;            /* the open mode (MODE_NONE: none) */
    int help_top;             /* help: first line shown */
    Menu menu;                /* menu: the open menu */
    MenuBackends backends;    /* which backends run here, asked once */
    TextEntry text;           /* text: the prompt and what was typed */
    TextFor text_for;         /* text: what Enter does with it */
} AppModes;

/* The status line's sentence, and how the session ends. */
typedef struct {
    char msg[320];            /* one sentence, or "" (hints show) */
    bool error;               /* msg reports a failure */
    bool quit;                /* leave the main loop */
    bool lessons;             /* ...for the list of lessons (learn) */
    int exit_status;          /* what cmd_tui returns (1: backend failed) */
    char export_to[TEXT_MAX + 1]; /* a file to write the next frame to
                                 as SVG ("": none); whoever draws the
                                 frames writes it (share_pending) */
    bool export_cast;         /* ...the steps from the shown one to the
                                 last as an asciicast instead */
} AppStatus;

typedef struct App {
    Scene *scene;             /* the scene shown and measured (scene.h) */
    AppView view;             /* what is shown and selected */
    AppPlay play;             /* stepping by itself */
    AppBg bg;                 /* background work and its results */
    AppModes mode;            /* help, menus, text entry */
    AppStatus status;         /* message and exit */
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
    size_t segment;          /* --segment (CollCall.segment), 0: none */
    const char *backend;     /* backend (-B NAME or NAME:PARAMS), or NULL
                                for "threads" */
    int cells;               /* picture cells per block, 0 for default */
    int chunks;              /* a pipeline's picture's chunks
                                (SceneSetup.chunks), 0 for its own rule */
    PricingMode pricing;     /* the model's (SceneSetup.pricing) */
    bool present;            /* start in presenter mode */
    const SpecMachine *machine; /* -T: the machine, built or only named
                                   (NULL: full) */
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

/* The request key `key` makes in the App's current mode (ACT_NONE when it
 * means nothing there): the one place keys are read. */
Request app_key(const App *app, int key);

/* The one function that changes state. */
void app_apply(App *app, const Request *req);

/* Take the worker's results and apply them (ACT_RESULT), and advance
 * play; `now` is a monotonic time in seconds. Returns true when something
 * changed. */
bool app_poll(App *app, double now);

/* The panel the open mode draws in, or VIEW_COUNT when no mode is open. */
ViewId app_mode_panel(const App *app);

/* Monotonic seconds (for play and timing). */
double app_now(void);

/* ------------------------------------------------------------ modes */

/* One mode: how it takes keys and requests, and where it draws. The table
 * (app_mode.c) has one entry per ModeKind; app_key() and app_apply() ask
 * the open mode first. */
typedef struct {
    const char *name;   /* "help", "menu", "text" */
    ViewId panel;       /* the panel whose view draws it (VIEW_COUNT:
                           none) */
    /* The request a key makes while the mode is open. */
    Request (*key)(const App *app, int key);
    /* Apply a user's request; false passes it on to the App's own
     * handlers (after the mode closed itself when it had to). NULL: the
     * mode takes nothing. */
    bool (*apply)(App *app, const Request *req);
} ModeOps;

/* ---- for the App's files (app.c, app_mode.c) only */

/* The ops of mode k (app_mode.c). */
const ModeOps *app_mode_ops(ModeKind k);
/* Open mode k (its state set up by the caller), or close (MODE_NONE). */
void app_mode_set(App *app, ModeKind k);

/* Set the status message (one sentence); error marks it as a failure. */
void app_message(App *app, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* After a scene operation that said `why`: a broken scene ends the
 * session with its sentence (exit status 1); otherwise a sentence is shown
 * as an error. */
void app_scene_said(App *app, const char *why);

/* Remake the scene from set (scene.h), cancelling background work whose
 * results would be another scene's; on failure the old scene stays and
 * the status says why. keep_step: go back to the step shown before. */
bool app_remake(App *app, const SceneSetup *set, bool keep_step);

#endif
