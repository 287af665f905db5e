/* menu.h - the menus of the App: their items, moving through them, and
 * what picking an item changes. Only app.c calls these. */
#ifndef COLLVIZ_UI_MENU_H
#define COLLVIZ_UI_MENU_H

#include "ui/app.h"
#include "ui/scene.h"

/* Open menu k with its items computed from the scene. */
void menu_open(App *app, MenuKind k);
/* Move the highlight by delta items (clamped). */
void menu_move(App *app, int delta);
/* Apply item i of the open menu and close it; a choice that cannot be
 * made leaves the scene as it was and says why in app->msg. */
void menu_pick(App *app, int i);

/* Remake the scene from set; on failure the old scene stays and app->msg
 * says why. keep_step: return to the step shown before. */
bool menu_rebuild(App *app, const SceneSetup *set, bool keep_step);

#endif
