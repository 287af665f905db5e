/* view_prompt.c - text entry's one-line prompt, drawn over the status
 * line: what is asked, what was typed so far (its end when it does not
 * fit), and the cursor after it. */
#include <string.h>

#include "ui/view.h"

static void prompt_draw(const App *app, Grid *g, Rect r)
{
    const TextEntry *t = &app->mode.text;
    grid_fill(g, r, ' ', ROLE_STATUS, 0);
    int x = r.x + grid_text(g, r, r.x, r.y, r.w - 2, ROLE_KEY, GRID_BOLD,
                            t->prompt);
    int room = r.x + r.w - 1 - x; /* leave the cursor its column */
    size_t skip = room > 0 && t->len > (size_t)room ? t->len - (size_t)room
                                                     : 0;
    x += grid_text(g, r, x, r.y, room, ROLE_VALUE, 0, t->text + skip);
    grid_put(g, r, x, r.y, ' ', ROLE_STATUS, GRID_REVERSE);
}

const ViewOps view_prompt = {
    .name = "prompt",
    .title = "",
    .framed = false,
    .draw = prompt_draw,
    .click = NULL,
};
