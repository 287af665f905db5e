/* sentence.h - what a step does, in one sentence made from its schedule:
 * who sends to whom (every rank to its right neighbour, pairs a distance
 * apart, a group folding into another, one rank to many or many to one),
 * what they send (their own input, or what the step before brought
 * them), and what the receivers do with it (add it to theirs, or keep
 * it). Whole sentences are the catalogue's (gettext), never glued from
 * fragments; rank sets fill their %s, numbers the shares and partners
 * computed from the transfers. Pure: no App, no terminal. */
#ifndef COLLVIZ_UI_SENTENCE_H
#define COLLVIZ_UI_SENTENCE_H

#include <stddef.h>

#include "core/machine.h"
#include "core/sched.h"
#include "ui/sentence_mach.h" /* sentence_ranks */

/* The sentence of step k of s, translated, into out. On machine m (NULL:
 * none) a step made for it says so in its terms: the rings along one of
 * its dimensions, the chains and trees of its nodes, its switch's
 * load-reduce and multicast. */
void step_sentence(const Schedule *s, const Machine *m, size_t k, char *out,
                   size_t len);

#endif
