/* words.h - the core's English words, as the TUI shows them: algorithm
 * summaries and what an algorithm needs (src/algos), step phase names
 * (the schedules), machine kinds (src/core/machine.h) and the errors'
 * fragments (src/core/error.h), in the language in use.
 *
 * The core has no gettext; its words are listed in words.c, marked for
 * xgettext, and translated through the catalogue when shown. A word not
 * listed is shown as it is (English); test_ui_zh generates every
 * algorithm's schedules and checks that each word is listed and has its
 * Chinese. */
#ifndef COLLVIZ_UI_WORDS_H
#define COLLVIZ_UI_WORDS_H

#include <stdbool.h>

#include "algos/algo.h"
#include "core/machine.h"

/* An algorithm's one-line summary. */
const char *words_summary(const AlgoInfo *a);
/* What an algorithm needs (its constraints). */
const char *words_needs(const AlgoInfo *a);
/* A step's phase name ("copy-in", "reduce-scatter"). */
const char *words_phase(const char *phase);
/* A machine kind's name ("full", "bus"), as the counters show it. */
const char *words_machine(MachineKind k);
/* A machine's kind and shape in the language in use, as
 * machine_describe's short form says them in English ("torus 4x2",
 * "nodes 2x4, a NIC per node"); without notes, only the kind and its
 * dimensions. */
void words_machine_shape(const Machine *m, bool notes, char *buf,
                         size_t len);
/* An error's fragment (cv_strerror's), in the language in use. */
const char *words_error(CvError e);
/* A sentence's printf format from the scene layer (scene_opts_call_why's
 * SceneTranslate), in the language in use; one not listed as it is. */
const char *words_sentence(const char *fmt) __attribute__((format_arg(1)));
/* A backend's reason for not running, cut as the backend menu shows it,
 * in the user's language where its words are fixed; else as is. */
const char *words_backend_why(const char *why);
/* A reason the core gave (an algorithm's `fits`, -T's parse), in the
 * language in use where words.c lists its format, into out; else as it
 * is. */
void words_reason(const char *why, char *out, size_t len);
/* Whether s is one of the core's words listed in words.c (for tests). */
bool words_listed(const char *s);

#endif
