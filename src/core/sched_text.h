/* sched_text.h - schedules as text: collviz's own format, for people to
 * read and write (docs/schedule-format.md), read into a SchedText, checked
 * element by element, built into a Schedule for a call, and any written-out
 * Schedule written back as the same text.
 *
 * A file's offsets and counts are in units: with `parts K` a unit is a
 * block's count / K elements, so the schedule serves every count K
 * divides; with `count C` a unit is one element and the call's count is
 * C. Either way the file is held as its schedule at one unit per element
 * (count K or C), which is checked and priced as it stands and scaled to
 * a call by multiplying every offset, count and tmp size. No I/O, no
 * globals. */
#ifndef COLLVIZ_CORE_SCHED_TEXT_H
#define COLLVIZ_CORE_SCHED_TEXT_H

#include <stdarg.h>
#include <stdint.h>

#include "core/sched.h"

#define SCHED_TEXT_MAX_BYTES (16u << 20) /* bytes of a file */
#define SCHED_TEXT_MAX_XFERS (1u << 20)  /* transfers of a file */
#define SCHED_TEXT_MAX_STEPS (1u << 16)  /* steps of a file */
#define SCHED_TEXT_MAX_UNITS (1u << 24)  /* parts K or count C, and a
                                            buffer's units */
#define SCHED_TEXT_PHASE_LEN 48          /* bytes of a step's label */

/* One sentence into why (whylen bytes), after "LINE: " where line is not
 * 0; returns e. The one way the readers and the checker say a problem. */
CvError sched_text_say(CvError e, char *why, size_t whylen, unsigned line,
                       const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
CvError sched_text_vsay(CvError e, char *why, size_t whylen, unsigned line,
                        const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));

/* A schedule read from text. */
typedef struct {
    Schedule unit;      /* the schedule at one unit per element */
    size_t parts;       /* K of `parts K`; 0: `count C` (unit.call.count) */
    uint32_t *line;     /* [transfer]: its line in the text */
    uint32_t *step_line;/* [step]: the line of its `step` */
    char (*phase)[SCHED_TEXT_PHASE_LEN]; /* [step]: its label ("" none) */
} SchedText;

/* Read text (len bytes, not NUL-terminated) into *out, the schedule named
 * `name` (kept, not copied: it must outlive *out). CV_OK, or CV_ERR_LIMIT /
 * CV_ERR_ARG / CV_ERR_NOMEM and one sentence in why, starting with the
 * line's number ("12: ...") where one line is at fault. */
CvError sched_text_parse(const char *text, size_t len, const char *name,
                         SchedText *out, char *why, size_t whylen);
void sched_text_fini(SchedText *t);

/* Whether the schedule implements the collective it names for every
 * element of every rank: CV_OK, or the error and one sentence in why
 * naming the line at fault or the first wrong element (rank, buffer,
 * element, after which step, what it holds, what it should hold).
 * *bad_step (may be NULL) gets the step after which the state is wrong
 * (0-based; nsteps when none is to blame). */
CvError sched_text_check(const SchedText *t, size_t *bad_step, char *why,
                         size_t whylen);

/* Whether call is one the schedule serves (collective, ranks, root, in
 * place, a count its units divide): CV_OK, or CV_ERR_ALGO and one
 * sentence in why. */
CvError sched_text_fits(const SchedText *t, const CollCall *call, char *why,
                        size_t whylen);

/* The schedule for call (sched_text_fits), into *out: initialised here,
 * or reinitialised when reuse (sched_reinit). */
CvError sched_text_build(const SchedText *t, const CollCall *call, bool reuse,
                         Schedule *out);

/* Write schedule s (compact or written out) as text into *text (malloc'd,
 * NUL-terminated, *len bytes): in parts of the largest unit that divides
 * every offset, count, buffer size and the call's count. CV_ERR_NOMEM or
 * CV_ERR_LIMIT (beyond what sched_text_parse reads). */
CvError sched_text_write(const Schedule *s, char **text, size_t *len);

#endif
