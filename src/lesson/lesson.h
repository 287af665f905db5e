/* lesson.h - a lesson file as the player and the checker read it: the
 * title, then items in reading order (paragraphs, indented blocks and the
 * directives @scene, @step, @run and @check with its @query, @answer and
 * @hint lines). The parser works on a text buffer (no I/O) and reports
 * every problem it finds with its line and one sentence; lessons/README.md
 * is the format's reference. */
#ifndef COLLVIZ_LESSON_H
#define COLLVIZ_LESSON_H
#include <stdbool.h>
#include <stddef.h>
#include "core/error.h"

/* The largest lesson file the player and the checker read. */
#define LESSON_MAX_BYTES (1u << 20)

typedef enum {
    LI_PARA,  /* a paragraph: its lines joined by '\n' */
    LI_BLOCK, /* indented lines, shown as they are ('\n' between) */
    LI_SCENE, /* @scene: text is the scene line (trace's options) */
    LI_STEP,  /* @step K: step */
    LI_RUN,   /* @run: text is its commands, one a line */
    LI_CHECK, /* @check: text is the question; query, answers, hint */
    LI_COUNT
} LessonKind;

/* The most choices a checkpoint offers (a to i). */
#define LESSON_MAX_CHOICES 9

/* One item of a lesson. */
typedef struct {
    LessonKind kind;  /* what it is */
    int line;         /* its first line in the file (from 1) */
    char *text;       /* see LessonKind; never NULL */
    long step;        /* LI_STEP: the step to show */
    int scene;        /* index of the @scene item in effect, or -1 */
    int check;        /* LI_CHECK: its number among the checkpoints */
    char *query;      /* LI_CHECK: the @query line, or NULL */
    int query_line;   /* its line */
    char **answers;   /* LI_CHECK: the @answer values (may be none) */
    int *answer_lines; /* their lines */
    size_t nanswers;  /* how many */
    char *hint;       /* LI_CHECK: the @hint, or NULL */
    int hint_line;    /* its line */
    char **choices;   /* LI_CHECK: the @choice texts, in order (a, b, ...) */
    char **choice_why; /* their explanations (after " | "), or NULL */
    int *choice_lines; /* their lines */
    size_t nchoices;  /* how many (0: an open question) */
    char **goals;     /* LI_CHECK: the @goal lines ("QUERY OP NUMBER"): a
                         goal checkpoint, answered by a scene the learner
                         makes (its @answer: a scene that reaches it) */
    int *goal_lines;  /* their lines */
    size_t ngoals;    /* how many (0: a question) */
    char *start;      /* LI_CHECK with goals: @start's file, a name in the
                         lessons' files/ folder that the learner's copy
                         starts from and the goals are checked on, or
                         NULL */
    int start_line;   /* its line */
    double within;    /* LI_CHECK: @within's tolerance, a fraction of the
                         value (0.1 for "@within 10%"), for a prediction;
                         0: none */
    int within_line;  /* its line */
    int quotes;       /* LI_BLOCK: 0, or K when an @output [K] line stands
                         right above it: the block quotes lines that the
                         K-th command of the @run item quotes_run prints */
    int quotes_run;   /* that @run item's index (-1: none) */
    int quotes_line;  /* the @output line */
} LessonItem;

/* A problem: the line and one sentence. */
typedef struct {
    int line;      /* line of the file, from 1 (0: the whole file) */
    char msg[600]; /* the sentence, without file and line */
} LessonDiag;

typedef struct {
    LessonDiag *d; /* problems in the order found */
    size_t n;      /* how many */
    size_t cap;    /* allocated */
} LessonDiags;

typedef struct {
    char *title;       /* the first line */
    LessonItem *items; /* the items in reading order */
    size_t nitems;     /* how many */
    size_t cap;        /* allocated */
    size_t nchecks;    /* checkpoints among them */
} Lesson;

/* Parse len bytes of buf into *out (lesson_fini frees it, whatever the
 * result). Problems go to diags (may be NULL); returns CV_OK when there
 * were none, CV_ERR_ARG when there were, CV_ERR_NOMEM when memory ran
 * out. */
CvError lesson_parse(const char *buf, size_t len, Lesson *out,
                     LessonDiags *diags);
void lesson_fini(Lesson *l);

/* Add a problem (printf-style). Returns CV_ERR_ARG. */
CvError lesson_diag(LessonDiags *d, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void lesson_diags_fini(LessonDiags *d);

/* The commands of a @run item (its text, one command a line): how many,
 * and command k (from 1) as a pointer into the text and its length in
 * *len, or NULL where the item has fewer. */
int lesson_run_count(const LessonItem *it);
const char *lesson_run_command(const LessonItem *it, int k, size_t *len);

/* Whether NAME (an bytes) may name a file of the lessons' files/ folder:
 * letters, digits, '-', '_' and '.', not first. */
bool lesson_file_name_ok(const char *a, size_t an);

/* Whether text holds word w as a whole: neither letters, digits, '.' nor
 * ',' right before or after it (so "48" is not in "480", "0.48" or
 * "1,048"). */
bool lesson_holds_word(const char *text, const char *w);

/* A directive, as lessons/README.md's table shows it. */
typedef struct {
    const char *name;   /* "scene", written @scene */
    const char *syntax; /* "@scene COLL -a ALGO ..." */
    const char *help;   /* one line of what it does */
} LessonDirective;

/* The directives, in the order of the unknown-directive sentence. */
size_t lesson_directive_count(void);
const LessonDirective *lesson_directive_at(size_t i); /* NULL past the end */
/* The Markdown table of the directives (a head and a row each, as in
 * lessons/README.md) into buf; like snprintf, returns the whole length. */
size_t lesson_directive_table(char *buf, size_t n);

/* The name of a directive kind as written: "@scene" (LI_PARA and
 * LI_BLOCK: "text"). */
const char *lesson_kind_name(LessonKind k);

/* Whether s (n bytes) is valid UTF-8 without control characters other
 * than tab: no C0, DEL, C1 or bidirectional control (core/sanitize.h). */
int lesson_utf8_ok(const char *s, size_t n);
#endif
