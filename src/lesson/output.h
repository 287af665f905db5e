/* output.h - what a lesson quotes of a command's output is what the
 * command prints. A block right below `@output [K]` quotes lines that the
 * K-th command of the @run above prints; `learn --check` runs that
 * command and refuses the lesson where a quoted line is not printed, so
 * that a lesson cannot go stale when the tool changes (lessons/README.md).
 * Only commands whose output is computed, never measured, may be quoted:
 * list, trace, model, topo and help, without a backend's calibration. */
#ifndef COLLVIZ_LESSON_OUTPUT_H
#define COLLVIZ_LESSON_OUTPUT_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lesson/lesson.h"
#include "lesson/runcheck.h"

/* The longest a quoted command may run, and the most it may print; the
 * longest all the quoted commands of one `learn --check` may run in all
 * (the course's take a few seconds). */
#define OUTPUT_LIMIT_S 30
#define OUTPUT_MAX_BYTES (4u << 20)
#define OUTPUT_BUDGET_S 120

/* Whether c's output may be quoted: 0, or -1 and one sentence in why. */
int output_quotable(const RunCmd *c, char *why, size_t whylen);

/* Whether every line of quoted (lines joined by '\n') stands, in order, as
 * a whole line of printed, runs of blanks counting as one and blanks at
 * either end as none: 0, or -1 and the sentence naming the first line
 * that does not (its index from 1 in *bad). No I/O. */
int output_match(const char *quoted, const char *printed, int *bad,
                 char *why, size_t whylen);

/* The environment a lesson's command runs with: this one without an MPI
 * job's variables (a player that mpirun started runs its commands as
 * plain programs, which would otherwise try to join the job and abort in
 * MPI_Init) and with COLLVIZ_NO_SAVE=1. Built before fork, so that a
 * child only execs; free() it (the strings are environ's). NULL without
 * memory. */
char **output_child_env(void);

/* Start the program at self with argv (NULL-ended) and output_child_env,
 * its stdin /dev/null and its stdout and stderr into a pipe whose read
 * end goes to *out; in a process group of its own when own_group (so
 * that one kill ends it and whatever it started, and the terminal's
 * signals go to the caller alone), with an alarm after alarm_s seconds
 * when not 0 (a backstop should the caller die). Its pid, or -1 with
 * errno. */
pid_t output_spawn(const char *self, char *const *argv, bool own_group,
                   unsigned alarm_s, int *out);

/* Run c with the program at self (its argv[0] stands for it) and return
 * what it printed on stdout and stderr, NUL-ended (malloc'd), with its
 * exit status in *status; NULL and one sentence in why when it could not
 * be run, ran past limit_s seconds or printed more than
 * OUTPUT_MAX_BYTES. */
char *output_run(const char *self, const RunCmd *c, double limit_s,
                 int *status, char *why, size_t whylen);

/* The commands one `learn --check` runs: the seconds left of their
 * budget, and what each command line printed, kept for the next lesson
 * that runs it (the languages of a lesson run the same). */
#define OUTPUT_KEPT 256
typedef struct {
    double left;              /* seconds left (OUTPUT_BUDGET_S at first);
                                 once spent, negative */
    size_t n;                 /* outputs kept */
    char *cmd[OUTPUT_KEPT];   /* their command lines */
    char *out[OUTPUT_KEPT];   /* and what they printed (status 0) */
} OutputRuns;

/* Free what r keeps (its budget stays). */
void output_runs_fini(OutputRuns *r);

/* Check every quoting block of l (lesson.h's quotes): its command may be
 * quoted, runs with self, exits 0 and prints every quoted line. Problems
 * to d, at the @output line. r->left: the seconds left of the budget of
 * all the quoted commands, less what these ran; once it is spent, the
 * block where it ran out says so and no more are run (r->left is then
 * negative: the next lessons say nothing). A command line run before in
 * r is not run again. */
void output_lint(const Lesson *l, const char *self, OutputRuns *r,
                 LessonDiags *d);

/* No prediction or choice is answered above it: the commands of the @run
 * items between a checkpoint with @within or @choice and the checkpoint
 * before it (those whose output may be quoted) are run as output_lint
 * runs them, under the same budget, and one whose answer a command
 * prints (lint's rule for an answer in the text) is a problem at its
 * line. (An open question may ask what the trace above it shows.) */
void output_leaks(const Lesson *l, const char *self, OutputRuns *r,
                  LessonDiags *d);
#endif
