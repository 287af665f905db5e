/* keys.h - the key bindings: one table (keys.c) maps keys to actions and
 * gives each key the name that help, hints and scripts use, so help is
 * always generated from the bindings themselves. */
#ifndef COLLVIZ_UI_KEYS_H
#define COLLVIZ_UI_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/action.h"

/* One binding. */
typedef struct {
    int key;          /* key code (TERM_KEY_*, term.h) or character */
    const char *name; /* its name in help and scripts: "Right", "q" */
    Action act;       /* what it asks for */
} KeyBinding;

/* Number of bindings and the i-th, in table order. */
size_t keys_count(void);
const KeyBinding *keys_at(size_t i);

/* The action of a key; ACT_NONE when unbound. */
Action keys_action(int key);
/* The key code of a name ("Right", "PgDn", "q", "Space", "Enter", and
 * "Backspace", which no action is bound to), or of a single printable
 * character; -1 when unknown. */
int keys_parse(const char *name);
/* Whether key erases the character before the cursor (Backspace, Delete
 * as terminals send it, ^H): text entry's only editing key. */
bool keys_is_erase(int key);
/* The names of every key bound to a, separated by sep, into out ("" when
 * none). Returns out. */
const char *keys_names(Action a, const char *sep, char *out, size_t len);

#endif
