/* view_menu.c - the open menu: its items, the current value marked, the
 * highlighted item, scrolled to keep it visible. */
#include <stdio.h>

#include "ui/layout.h"
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

/* Whether some label is wider than the items' width in a box of w. */
static bool any_wide(const Menu *m, int w)
{
    for (int i = 0; i < m->n; i++)
        if (grid_text_width(m->label[i]) > w - 3)
            return true;
    return false;
}

/* Rows the items take in r (the rest: the highlighted item's detail). */
static int item_rows(const Menu *m, Rect r)
{
    return any_wide(m, r.w) && r.h > MENU_DETAIL_ROWS + 1
               ? r.h - MENU_DETAIL_ROWS : r.h;
}

static void menu_draw(const App *app, Grid *g, Rect r)
{
    const Menu *m = &app->mode.menu;
    int rows = item_rows(m, r);
    int top = first_item(m, rows);
    grid_fill(g, r, ' ', ROLE_MENU, 0);
    if (rows < r.h && m->cur >= 0 && m->cur < m->n) {
        /* the highlighted item whole, wrapped under a rule */
        for (int x = 0; x < r.w; x++)
            grid_putg(g, r, r.x + x, r.y + rows, GL_HLINE, ROLE_MENU);
        grid_text_wrap(g, (Rect){r.x, r.y + rows + 1, r.w, r.h - rows - 1},
                       r.x + 2, r.y + rows + 1, r.w - 3, ROLE_MENU, 0,
                       m->label[m->cur]);
    }
    for (int i = 0; i < rows && top + i < m->n; i++) {
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
    if (top + rows < m->n)
        grid_putg(g, r, r.x + r.w - 1, r.y + rows - 1, GL_ARROW_D, ROLE_MENU);
}

static bool menu_click(const App *app, Rect r, int x, int y, Request *req)
{
    const Menu *m = &app->mode.menu;
    int rows = item_rows(m, r);
    int it = first_item(m, rows) + (y - r.y);
    if (y - r.y >= rows || it < 0 || it >= m->n)
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
