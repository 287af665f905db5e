/* view_prompt.c - text entry's one-line prompt, drawn over the status
 * line: what is asked (cut where it would leave the text less than 20
 * columns), what was typed so far (its end after an ellipsis when it does
 * not fit), and the cursor after it. */
#include <string.h>

#include "ui/view.h"

static void prompt_draw(const App *app, Grid *g, Rect r)
{
    const TextEntry *t = &app->mode.text;
    grid_fill(g, r, ' ', ROLE_STATUS, 0);
    /* the text keeps 20 columns where it is that long: a prompt wider
       than the rest is cut with an ellipsis */
    int keep = (int)t->len < 20 ? (int)t->len : 20;
    int pw = r.w - 1 - keep;
    int x = r.x + grid_text_cut(g, r, r.x, r.y, pw, ROLE_KEY, GRID_BOLD,
                                t->prompt);
    x += grid_text_width(t->prompt) > pw; /* a blank after its cut */
    int room = r.x + r.w - 1 - x; /* leave the cursor its column */
    size_t skip = 0;
    if (room > 1 && t->len > (size_t)room) { /* its end, marked cut */
        skip = t->len - (size_t)room + 1;
        grid_putg(g, r, x++, r.y, GL_ELLIPSIS, ROLE_DIM);
        room--;
    }
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
