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

static bool kept(Action a) { return a == ACT_HELP || a == ACT_QUIT; }

/* Where each hint starts from x0 in w columns (hints are separated by two
 * spaces), -1 for one left out: help and quit always (where they fit at
 * all), the others in order while they fit beside them (the last ones go
 * first). */
static void hint_xs(int x0, int w, int xs[NHINTED])
{
    char t[80];
    int width[NHINTED], used = -2;
    for (size_t i = 0; i < NHINTED; i++) {
        width[i] = hint_text(hinted[i], t, sizeof t);
        used += kept(hinted[i]) ? width[i] + 2 : 0;
    }
    bool room = used <= w, full = false;
    for (size_t i = 0, x = 0; i < NHINTED; i++) {
        full = full || (!kept(hinted[i]) && used + width[i] + 2 > w);
        bool on = kept(hinted[i]) ? room : !full;
        used += on && !kept(hinted[i]) ? width[i] + 2 : 0;
        xs[i] = on ? x0 + (int)x : -1;
        x += on ? (size_t)width[i] + 2 : 0;
    }
}

static void draw_hints(Grid *g, Rect r, int x0, int w)
{
    char t[80], keys[64];
    int xs[NHINTED];
    hint_xs(x0, w, xs);
    for (size_t i = 0; i < NHINTED; i++) {
        int x = xs[i];
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
    grid_text_wrap(g, r, r.x, r.y, r.w,
                   app->status.error ? ROLE_ERROR : ROLE_STATUS,
                   app->status.error ? GRID_BOLD : 0, app->status.msg);
}

static bool status_click(const App *app, Rect r, int x, int y, Request *req)
{
    char t[80];
    int xs[NHINTED];
    if (app->status.msg[0])
        return false;
    hint_xs(r.x, r.w, xs);
    for (size_t i = 0; i < NHINTED; i++) {
        int x0 = xs[i];
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
