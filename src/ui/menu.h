/* menu.h - a menu: its items, computed from a scene when it opens (every
 * choice, the scene's current one marked and highlighted), and moving
 * through them. What picking an item does is the App's (app_mode.c); a
 * menu knows no App. */
#ifndef COLLVIZ_UI_MENU_H
#define COLLVIZ_UI_MENU_H

#include <stdbool.h>
#include <stddef.h>

#include "ui/i18n.h"

/* The menus, each with its title. */
#define MENU_KINDS(X)                                                         \
    X(MENU_NONE, "")                                                          \
    X(MENU_COLL, N_("Collective"))                                                \
    X(MENU_ALGO, N_("Algorithm"))                                                 \
    X(MENU_RANKS, N_("Ranks"))                                                    \
    X(MENU_SIZE, N_("Size"))                                                      \
    X(MENU_DTYPE, N_("Datatype"))                                                 \
    X(MENU_OP, N_("Reduction op"))                                                \
    X(MENU_ROOT, N_("Root"))                                                      \
    X(MENU_BACKEND, N_("Backend"))                                            \
    X(MENU_MACHINE, N_("Machine"))

typedef enum {
#define X(id, title) id,
    MENU_KINDS(X)
#undef X
    MENU_COUNT
} MenuKind;

/* The most items a menu shows (ranks and sizes lists are the longest). */
#define MENU_MAX 64

/* The value of the size menu's last item, "other...": type a size. */
#define MENU_OTHER (-1LL)

/* A menu; its items are computed when it opens. */
typedef struct {
    MenuKind kind;              /* which menu (MENU_NONE: none) */
    int n;                      /* items */
    int cur;                    /* highlighted item */
    int top;                    /* first item shown (scrolling) */
    char label[MENU_MAX][128];  /* item texts */
    long long value[MENU_MAX];  /* what picking each item sets */
    bool current[MENU_MAX];     /* item is the scene's current value */
    bool greyed[MENU_MAX];      /* item cannot be used here (a backend not
                                   built, or built but unable to start
                                   here): drawn dim with its reason;
                                   picking it says the reason */
} Menu;

/* The most backends the backend menu asks about (exec_name_at). */
#define MENU_BACKENDS 8

/* Whether each backend (by exec_name_at index) can run on this machine,
 * asked once per TUI session: the backend is opened for 1 rank and
 * closed again, and what its open says is kept. Zeroed: nothing asked. */
typedef struct {
    bool asked[MENU_BACKENDS];
    bool ok[MENU_BACKENDS];
    char why[MENU_BACKENDS][160]; /* the reason when not ok */
} MenuBackends;

typedef struct Scene Scene; /* scene.h */

/* The machine (-T's syntax, made to hold p ranks) that item i of the
 * machine menu chooses into out; false past the last. */
bool menu_machine(int i, int p, char *out, size_t len);

/* Fill m as menu k for scene sc; false (and m->kind MENU_NONE) when k has
 * no items. The backend menu greys the backends not built and those that
 * cannot start here, with the reason; avail keeps what each backend said
 * (asked the first time only; NULL: asked every time). */
bool menu_open(Menu *m, MenuKind k, const Scene *sc, MenuBackends *avail);
/* Move the highlight by delta items (clamped). */
void menu_move(Menu *m, int delta);
/* The title of menu k. */
const char *menu_title(MenuKind k);

#endif
