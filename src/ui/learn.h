/* learn.h - the lesson player: the list of lessons, a lesson's text beside
 * its picture, checkpoints, the pager of @run's commands, and progress.
 * One state struct and one function that takes keys, so the same player
 * runs in a terminal (learn_cmd.c) and headless in tests (its screens are
 * drawn into a Grid by learn_draw). */
#ifndef COLLVIZ_UI_LEARN_H
#define COLLVIZ_UI_LEARN_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "scene/scene_opts.h"
#include "lesson/lesson.h"
#include "lesson/library.h"
#include "lesson/progress.h"
#include "lesson/query.h"
#include "lesson/runcheck.h"
#include "ui/app.h"
#include "ui/grid.h"
#include "ui/i18n.h"

/* The smallest terminal the player draws in. */
#define LEARN_MIN_W 60
#define LEARN_MIN_H 16
/* Tries before a checkpoint's answer is shown. */
#define LEARN_TRIES 3

typedef enum {
    LS_LIST,   /* the list of lessons */
    LS_LESSON, /* a lesson beside its picture */
    LS_PAGER,  /* a command's output */
    LS_COUNT
} LearnScreen;

/* The open lesson. */
typedef struct {
    int index;          /* in the list */
    Lesson les;         /* parsed, in the language shown */
    size_t pos;         /* items shown: les.items[0 .. pos) */
    int scroll;         /* lines scrolled up from the end (0: follow) */
    int hshift;         /* columns the blocks are scrolled sideways */
    int scene;          /* the @scene item the picture shows, or -1 */
    SceneSpec spec;     /* its scene */
    bool picture;       /* app holds that scene */
    char pic_note[320]; /* why there is no picture, or "" */
    char pic_scale[240]; /* the picture follows fewer elements than the
                            scene's size (lint_picture_count): says so */
    long step;          /* the step the text asked for */
    bool sandbox;       /* the picture shows the learner's scene
                           (sandbox_line), not the lesson's */
    char sandbox_line[512]; /* that scene, as typed */
    bool review;        /* a done lesson read again from its start: its
                           record and position stay as they are */
    bool end_said;      /* the end was said: Space opens the next lesson */
} LearnLesson;

/* The checkpoint being asked. */
typedef struct {
    bool open;          /* the prompt takes keys */
    int item;           /* the LI_CHECK item, or -1 */
    char text[512];     /* what was typed (UTF-8): a scene may name a
                           schedule file by its path */
    size_t len;         /* its bytes */
    int tries;          /* wrong answers so far */
    QueryValue value;   /* the computed answer */
    bool valued;        /* value holds it */
    bool tried;         /* the query was evaluated (once per checkpoint) */
    bool scene_box;     /* the prompt takes a scene: a goal checkpoint's,
                           or the sandbox's (item -1) */
    char why[512];      /* why it could not be, or "" */
    char file[4096];    /* a @start checkpoint: the learner's copy, or "" */
} LearnAsk;

/* A lesson's command's limits: the player stops it past these. */
#define RUN_MAX_OUT (1 << 20) /* bytes of output the pager keeps */
#define RUN_MAX_SECONDS 120   /* seconds it may run */

/* How the running command ended, when the player ended it. */
typedef enum {
    LJ_RUNNING,   /* it runs, or ended by itself */
    LJ_CANCELLED, /* q or Esc, or the player is ending */
    LJ_TIME,      /* RUN_MAX_SECONDS passed */
    LJ_OUTPUT,    /* its output passed RUN_MAX_OUT */
} LearnJobEnd;

/* The command of the pager (learn_run.c). */
typedef struct {
    pid_t pid;          /* its process (and group), 0: none runs */
    int fd;             /* its output (non-blocking), -1 at its end */
    char *raw;          /* what it printed, as printed */
    size_t len, cap;    /* bytes in raw, room */
    double t0;          /* when it started (monotonic seconds) */
    double elapsed;     /* seconds it has run, at the last poll */
    bool follow;        /* the pager shows the end as output comes */
    LearnJobEnd end;    /* why the player ends it */
    int limit_s;        /* its limits: RUN_MAX_SECONDS and RUN_MAX_OUT, */
    size_t max_out;     /* smaller in tests */
} LearnJob;

typedef struct {
    char dir[4096];     /* the lessons folder */
    UiLang lang;        /* the language shown */
    LessonEntry *list;  /* the lessons (of en/) */
    size_t nlist;       /* how many */
    char (*titles)[160]; /* their titles in lang */
    size_t *nchecks;    /* their checkpoints */
    long (*end)[2];     /* their last position (progress.h: directives,
                           texts): where "done" starts */
    int sel;            /* the highlighted lesson in the list */
    LearnScreen screen; /* what is shown */
    LearnLesson cur;    /* the open lesson (cur.index -1: none) */
    LearnAsk ask;       /* the checkpoint */
    App app;            /* the picture (its scene) */
    bool have_app;      /* app is initialised */
    Progress prog;      /* progress of every lesson */
    bool prog_ok;       /* saves can be tried */
    char prog_note[600]; /* what loading the progress said, shown again
                            when the first lesson opens ("" once shown) */
    char prog_why[600]; /* why progress is not saved, said again at exit
                           ("" while it is) */
    char msg[600];      /* the status sentence, or "" */
    Role msg_role;      /* its colour */
    char *pager;        /* LS_PAGER: the output, safe to draw */
    char pager_title[RUNCHECK_MAX_BYTES + 3]; /* "$ " and the command, whole */
    int pager_top;      /* first line shown */
    int pager_left;     /* columns scrolled sideways */
    bool pager_finding; /* / was pressed: the keys type what to find */
    char pager_find[64]; /* what to find (as typed), "" none */
    LearnJob job;       /* the pager's command */
    int w, h;           /* the screen */
    bool ascii;         /* ASCII line drawing */
    bool quit;          /* leave */
    const char *self;   /* the collviz binary @run's commands run as
                           (NULL: this program, /proc/self/exe) */
    bool run_pick;      /* x was pressed at a @run of several commands:
                           the next digit picks one */
    bool back;          /* opened from the visualizer (its key L):
                           quitting goes back to it, and the list's q and
                           Esc say so */
    int typed;          /* the lesson number typed so far in the list
                           (digits in a row), 0: none */
} Learn;

/* Open the lessons in dir in language lang, with progress from
 * progress_path (NULL: the state directory; "": none is read and nothing
 * is saved, for a player that will be refused). A sentence about the
 * progress file (set aside, unreadable, no place for it) goes to the
 * status line, and again when the first lesson opens. Returns
 * CV_OK, or an error with one sentence in why. */
CvError learn_init(Learn *l, const char *dir, UiLang lang,
                   const char *progress_path, char *why, size_t whylen);
void learn_fini(Learn *l);
/* Open lesson i of the list where its progress says (0 on success; -1
 * and the sentence in why when its file cannot be read or parsed). */
int learn_open(Learn *l, int i, char *why, size_t whylen);
/* What the keys do now (learn_keys.c): a screen, or a state of one.
 * learn_mode says which; each row of the key table acts in some. */
typedef enum {
    LM_LIST,      /* the list of lessons */
    LM_LIST_BACK, /* the list, opened from the visualizer (back): q and
                     Esc go back to it */
    LM_LESSON,    /* a lesson */
    LM_LESSON_BACK, /* a lesson, the player opened from the visualizer:
                       q goes back to it */
    LM_PICK,      /* a lesson, after x at a @run of several commands:
                     a digit picks one (run_pick) */
    LM_PROMPT,    /* a lesson, its answer or scene box open (ask.open) */
    LM_PAGER,     /* the pager, its command ended */
    LM_PAGER_RUN, /* the pager while its command runs */
    LM_FIND,      /* the pager, / typing what to find (pager_finding) */
    LM_COUNT
} LearnMode;

/* A mode as a bit of LearnKey's modes. */
#define LM_BIT(m) (1u << (m))
/* LearnKey's flags: the hint is left out of a footer too wide for its
 * screen (the others stay; q quit is never one of these). */
#define LK_WIDE 1u
/* The most keys one row binds, with the 0 that ends them. */
#define LEARN_ROW_KEYS 18

/* One row of the key table: keys, where they act, what they do, and the
 * hint the footers of those modes show for them. */
typedef struct {
    int keys[LEARN_ROW_KEYS]; /* key codes (TERM_KEY_*, term.h) or
                                 bytes, ended by 0 */
    unsigned modes;           /* LM_BIT of each mode they act in */
    unsigned flags;           /* LK_WIDE or 0 */
    const char *label;        /* the hint, English, marked N_() and shown
                                 through _(): "x run"; NULL: none */
    void (*act)(Learn *l, int key); /* what they do; key: which of them */
} LearnKey;

/* The mode the next key is taken in. */
LearnMode learn_mode(const Learn *l);
/* One key (a TERM_KEY_* code or a byte), done as its row in the current
 * mode says (or as the mode takes keys no row binds: typed into a box,
 * ignored). */
void learn_key(Learn *l, int key);
/* The rows of the key table, in its order. */
size_t learn_keys_count(void);
const LearnKey *learn_keys_at(size_t i);
/* The row that binds key in mode m, or NULL. */
const LearnKey *learn_keys_find(LearnMode m, int key);
/* The footer of mode m: the hints of the rows acting in it, in table
 * order, in the language shown, into out; where they are wider than
 * width columns, the LK_WIDE ones left out. Returns out. */
const char *learn_footer(LearnMode m, int width, char *out, size_t len);
/* Switch the language in place, at the same position. */
void learn_set_lang(Learn *l, UiLang lang);
/* Save the open lesson's position (also done after every checkpoint). */
void learn_save(Learn *l);
/* The status sentence, in role r's colour. */
__attribute__((format(printf, 3, 4)))
void learn_say(Learn *l, Role r, const char *fmt, ...);
/* The lesson's next stop (Space): the open checkpoint's prompt again
 * while it is open; at the end, said once, then the next lesson. */
void learn_next(Learn *l);
/* Back to the stop before (PgUp). */
void learn_back(Learn *l);
/* The picture at step k (when there is a picture). */
void learn_seek(Learn *l, long k);
/* The picture the text asks for at the position: its last scene and
 * step (after the learner's own scene, the lesson's again). */
void learn_replay(Learn *l);
/* The open checkpoint skipped, or its answer shown (s, r). */
void learn_skip(Learn *l);
void learn_reveal(Learn *l);
/* The box's Enter: the answer checked, or the scene shown. */
void learn_submit(Learn *l);
/* A lesson's record, from its progress. */
typedef struct {
    bool started, done;    /* opened; read to its end */
    size_t checks;         /* its checkpoints */
    size_t right, skipped, shown; /* answered right, skipped, revealed */
} LearnScore;
/* The record of lesson i of the list (learn_draw.c). */
void learn_score(const Learn *l, size_t i, LearnScore *sc);
/* The lesson player opened from the visualizer's key L (learn_cmd.c):
 * the list, whose q and Esc go back to it. An exit status. */
int learn_from_visualizer(void);
/* Draw the current screen (learn_draw.c). */
void learn_draw(const Learn *l, Grid *g);
/* How far the lesson's text can scroll up at the screen's size. */
int learn_scroll_max(const Learn *l);
/* How far its blocks can scroll sideways: the columns the widest block
 * line goes beyond the pane (0: every block fits). */
int learn_hshift_max(const Learn *l);
/* Columns one key scrolls the blocks sideways. */
#define LEARN_HSHIFT_STEP 8
/* The first line the pager can show at the bottom of its text. */
int learn_pager_max(const Learn *l);
/* The widest line of the pager's text beyond the screen, in columns. */
int learn_pager_wide(const Learn *l);
/* Start command line cmd (a collviz command of a @run block) in the
 * background and open the pager on its output, or show there why it is
 * not run (learn_run.c). A command still running is stopped first. */
void learn_run(Learn *l, const char *cmd);
/* A command runs. */
bool learn_running(const Learn *l);
/* Take the running command's new output, waiting at most wait_ms for
 * some; end it at its limits or when a stop signal came; collect its
 * status when it has ended (its closing line added to the pager). */
void learn_run_poll(Learn *l, int wait_ms);
/* Stop the running command now; the output so far stays in the pager. */
void learn_run_stop(Learn *l);
/* Poll until the command has ended (headless use). */
void learn_run_wait(Learn *l);
/* Stop any command and free the pager's output (learn_fini). */
void learn_run_fini(Learn *l);
#endif
