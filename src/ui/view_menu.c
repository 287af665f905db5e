/* view_menu.c - the open menu: its items, the current value marked, the
 * highlighted item, scrolled to keep it visible. */
#include <stdio.h>

#include "ui/view.h"

/* First item shown so that the highlighted one is visible in h rows. */
static int first_item(const Menu *m, int h)
{
    int top = m->top;
    if (m->cur < top)
        top = m->cur;
    if (m->cur >= top + h)
        top = m->cur - h + 1;
    return top < 0 ? 0 : top;
}

static void menu_draw(const App *app, Grid *g, Rect r)
{
    const Menu *m = &app->mode.menu;
    int top = first_item(m, r.h);
    grid_fill(g, r, ' ', ROLE_MENU, 0);
    for (int i = 0; i < r.h && top + i < m->n; i++) {
        int it = top + i;
        Role role = it == m->cur ? ROLE_MENU_SEL
                    : m->greyed[it] ? ROLE_DIM : ROLE_MENU;
        grid_fill(g, (Rect){r.x, r.y + i, r.w, 1}, ' ', role, 0);
        if (m->current[it])
            grid_putg(g, r, r.x, r.y + i, GL_BULLET, role);
        /* a label wider than the box ends in an ellipsis (the box is as
           wide as the body allows): never a cut that reads as whole */
        grid_text_cut(g, r, r.x + 2, r.y + i, r.w - 3, role, 0,
                      m->label[it]);
    }
    if (top > 0)
        grid_putg(g, r, r.x + r.w - 1, r.y, GL_ARROW_U, ROLE_MENU);
    if (top + r.h < m->n)
        grid_putg(g, r, r.x + r.w - 1, r.y + r.h - 1, GL_ARROW_D, ROLE_MENU);
}

static bool menu_click(const App *app, Rect r, int x, int y, Request *req)
{
    int it = first_item(&app->mode.menu, r.h) + (y - r.y);
    if (it < 0 || it >= app->mode.menu.n)
        return false;
    *req = (Request){.act = ACT_MENU_PICK, .a = it};
    return true;
}

const ViewOps view_menu = {
    .name = "menu",
    .title = "",
    .framed = true,
    .draw = menu_draw,
    .click = menu_click,
};
