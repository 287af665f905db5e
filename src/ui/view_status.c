/* view_status.c - the bottom line: the last message, or key hints made
 * from the key table (each hint clickable). */
#include <stdio.h>

#include "ui/grid.h"
#include "ui/keys.h"
#include "ui/view.h"

/* The actions hinted, in order. */
static const Action hinted[] = {
    ACT_NEXT,       ACT_PREV,       ACT_PLAY,  ACT_MENU_COLL, ACT_MENU_ALGO,
    ACT_MENU_RANKS, ACT_MENU_SIZE,  ACT_BENCH, ACT_SWEEP,     ACT_HELP,
    ACT_QUIT,
};
#define NHINTED (sizeof hinted / sizeof hinted[0])

/* "Right next": the action's first key and its name in the language in
 * use; its width in columns. */
static int hint_text(Action a, char *out, size_t len)
{
    char keys[64];
    keys_names(a, " ", keys, sizeof keys);
    for (char *c = keys; *c; c++)
        if (*c == ' ')
            *c = '\0';
    snprintf(out, len, "%s %s", keys, action_label(a));
    return grid_text_width(out);
}

/* Whether hint k is shown in w columns: help and quit always, the others
 * in order while they fit beside them (the last ones go first). */
static bool hint_on(int w, size_t k)
{
    char t[80];
    int used = 0;
    for (size_t i = 0; i < NHINTED; i++)
        if (hinted[i] == ACT_HELP || hinted[i] == ACT_QUIT)
            used += hint_text(hinted[i], t, sizeof t) + 2;
    if (hinted[k] == ACT_HELP || hinted[k] == ACT_QUIT)
        return used - 2 <= w;
    for (size_t i = 0; i < NHINTED; i++) {
        if (hinted[i] == ACT_HELP || hinted[i] == ACT_QUIT)
            continue;
        used += hint_text(hinted[i], t, sizeof t) + 2;
        if (used - 2 > w)
            return false;
        if (i == k)
            return true;
    }
    return false;
}

/* Columns where hint i starts (hints are separated by two spaces), or -1
 * when it is not shown in width w from x0. */
static int hint_x(int x0, int w, size_t i)
{
    char t[80];
    int x = x0;
    if (!hint_on(w, i))
        return -1;
    for (size_t k = 0; k < i; k++)
        if (hint_on(w, k))
            x += hint_text(hinted[k], t, sizeof t) + 2;
    return x;
}

static void draw_hints(Grid *g, Rect r, int x0, int w)
{
    char t[80], keys[64];
    for (size_t i = 0; i < NHINTED; i++) {
        int x = hint_x(x0, w, i);
        if (x < 0)
            continue;
        hint_text(hinted[i], t, sizeof t);
        keys_names(hinted[i], " ", keys, sizeof keys);
        int kw = 0;
        while (keys[kw] && keys[kw] != ' ')
            kw++;
        grid_text(g, r, x, r.y, -1, ROLE_STATUS, 0, t);
        grid_paint(g, (Rect){x, r.y, kw, 1}, ROLE_KEY, GRID_BOLD);
    }
}

static void status_draw(const App *app, Grid *g, Rect r)
{
    grid_fill(g, r, ' ', ROLE_STATUS, 0);
    if (!app->status.msg[0]) {
        draw_hints(g, r, r.x, r.w);
        return;
    }
    grid_text(g, r, r.x, r.y, r.w, app->status.error ? ROLE_ERROR : ROLE_STATUS,
              app->status.error ? GRID_BOLD : 0, app->status.msg);
}

static bool status_click(const App *app, Rect r, int x, int y, Request *req)
{
    char t[80];
    if (app->status.msg[0])
        return false;
    for (size_t i = 0; i < NHINTED; i++) {
        int x0 = hint_x(r.x, r.w, i);
        if (x0 < 0)
            continue;
        if (x >= x0 && x < x0 + hint_text(hinted[i], t, sizeof t)) {
            *req = (Request){.act = hinted[i]};
            return true;
        }
    }
    return false;
}

const ViewOps view_status = {
    .name = "status",
    .title = "",
    .framed = false,
    .draw = status_draw,
    .click = status_click,
};
