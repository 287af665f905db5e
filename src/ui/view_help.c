/* view_help.c - every action with its keys and what it does, generated from
 * the key table and the action table, so it can never drift. */
#include <stdio.h>

#include "ui/keys.h"
#include "ui/view.h"

#define KEYS_W 22 /* columns for the keys of an action */
#define ITEM_W 64 /* columns of one help item */

/* Actions that have keys, in table order, each once. */
static int bound_actions(Action *out)
{
    int n = 0;
    for (size_t i = 0; i < keys_count(); i++) {
        Action a = keys_at(i)->act;
        bool seen = false;
        for (int k = 0; k < n; k++)
            seen = seen || out[k] == a;
        if (!seen)
            out[n++] = a;
    }
    return n;
}

/* First line shown: the App's help scroll, clamped to the content. */
static int first_line(const App *app, int lines, int h)
{
    int top = app->mode.help_top, max = lines - h;
    return top > max ? (max > 0 ? max : 0) : top < 0 ? 0 : top;
}

static void help_draw(const App *app, Grid *g, Rect r)
{
    Action acts[ACT_COUNT];
    int n = bound_actions(acts);
    int cols = r.w >= 2 * ITEM_W + 2 ? 2 : 1, rows = (n + cols - 1) / cols;
    int top = first_line(app, rows + 5, r.h), w = r.w / cols;
    grid_fill(g, r, ' ', ROLE_NORMAL, 0);
    for (int i = 0; i < n; i++) {
        int x = r.x + (i / rows) * (w + 1), y = r.y + i % rows - top;
        char keys[64];
        if (y < r.y)
            continue;
        keys_names(acts[i], " ", keys, sizeof keys);
        grid_text(g, r, x, y, KEYS_W - 1, ROLE_KEY, GRID_BOLD, keys);
        grid_text(g, r, x + KEYS_W, y, w - KEYS_W, ROLE_NORMAL, 0,
                  action_help(acts[i]));
    }
    int y = r.y + rows + 1 - top;
    y += grid_text_wrap(g, r, r.x, y, r.w, ROLE_DIM, 0,
                        _("Mouse: click a cell for its contributions and "
                          "history, a header field to change it, a menu "
                          "item to pick it."));
    grid_text_wrap(g, r, r.x, y, r.w, ROLE_DIM, 0,
                   _("Colours: deeper = more ranks' inputs combined; final "
                     "results stand out; underlined cells were written by "
                     "the shown step."));
}

static bool help_click(const App *app, Rect r, int x, int y, Request *req)
{
    *req = (Request){.act = ACT_HELP}; /* any click closes help */
    return true;
}

const ViewOps view_help = {
    .name = "help",
    .title = N_("Help (Up/Down scroll; any other key closes)"),
    .framed = true,
    .draw = help_draw,
    .click = help_click,
};
