/* runcheck.h - what a lesson's @run command may be. A lesson is data: the
 * player runs a command of it only when the command is one of the
 * collviz commands that print, with options from an allow-list that
 * holds none that writes a file (--json FILE, topo --file) or reads one
 * (a machine file for -T), so an option added to collviz later is refused
 * in lessons until it is put on the list. The command shown is exactly
 * the command run: the line is split at single spaces only, and a line
 * with a tab, two blanks in a row, a blank at either end, more than
 * RUNCHECK_MAX_BYTES bytes or RUNCHECK_MAX_WORDS words is refused whole,
 * never cut. `learn --check` refuses what this refuses, and the player
 * checks again before it runs anything. No I/O. */
#ifndef COLLVIZ_LESSON_RUNCHECK_H
#define COLLVIZ_LESSON_RUNCHECK_H
#include <stddef.h>

/* The longest command line and the most words a lesson's command has. */
#define RUNCHECK_MAX_BYTES 400
#define RUNCHECK_MAX_WORDS 32

typedef enum {
    RUN_PRINTS, /* a collviz command that prints: the player runs it */
    RUN_TUI,    /* a collviz command that opens the TUI: explained */
    RUN_SHELL,  /* not collviz (nproc, ...): shown, for a shell */
    RUN_KIND_COUNT
} RunKind;

/* A command line split into its words. */
typedef struct {
    RunKind kind;                        /* what it is */
    int argc;                            /* words */
    char *argv[RUNCHECK_MAX_WORDS + 1];  /* the words (into buf), NULL last */
    char buf[RUNCHECK_MAX_BYTES + 1];    /* the line, its blanks NULs */
} RunCmd;

/* Check the command line (one line, without its indentation) and split
 * it into *out: 0, or -1 and one sentence in why (out is then unusable). */
int runcheck(const char *line, RunCmd *out, char *why, size_t whylen);
#endif
