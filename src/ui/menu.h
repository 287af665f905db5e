/* menu.h - a menu: its items, computed from a scene when it opens (every
 * choice, the scene's current one marked and highlighted), and moving
 * through them. What picking an item does is the App's (app_mode.c); a
 * menu knows no App. */
#ifndef COLLVIZ_UI_MENU_H
#define COLLVIZ_UI_MENU_H

#include <stdbool.h>

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
    X(MENU_BACKEND, N_("Backend"))

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
    char label[MENU_MAX][72];   /* item texts */
    long long value[MENU_MAX];  /* what picking each item sets */
    bool current[MENU_MAX];     /* item is the scene's current value */
    bool greyed[MENU_MAX];      /* item cannot be used here (a backend not
                                   built): drawn dim with its reason;
                                   picking it says the reason */
} Menu;

typedef struct Scene Scene; /* scene.h */

/* Fill m as menu k for scene sc; false (and m->kind MENU_NONE) when k has
 * no items. */
bool menu_open(Menu *m, MenuKind k, const Scene *sc);
/* Move the highlight by delta items (clamped). */
void menu_move(Menu *m, int delta);
/* The title of menu k. */
const char *menu_title(MenuKind k);

#endif
