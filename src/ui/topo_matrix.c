/* topo_matrix.c - everybody with everybody: senders down, receivers
 * across, each cell the state of one link. */
#include "ui/topo.h"
#include "ui/i18n.h"
#include "core/num.h"

#include <stdio.h>
#include <string.h>

/* Columns of v in decimal. */
static int digits(int v) { return snprintf(NULL, 0, "%d", v); }

/* Everybody with everybody: senders down, receivers across. */
int topo_matrix(TopoCtx *c, Rect area)
{
    int p = num_min(c->lk.p, TOPO_MAXR), lw = 1 + digits(p - 1);
    int cw = lw + 1 + 2 * p <= area.w ? 2 : 1;
    if (p + 1 > area.h || lw + 1 + cw * p > area.w)
        return -1;
    area = rect_clip((Rect){area.x + (area.w - (lw + 1 + cw * p)) / 2,
                            area.y + (area.h - (p + 1)) / 2, lw + 1 + cw * p,
                            p + 1}, area);
    int x0 = area.x + lw + 1;
    grid_text(c->g, area, area.x, area.y, lw + 1, ROLE_DIM, 0, _("to"));
    for (int d = 0; d < p; d++)
        grid_printf(c->g, area, x0 + cw * d, area.y, 1, ROLE_DIM, 0, "%d",
                    d % 10);
    for (int s = 0; s < p; s++) {
        int y = area.y + 1 + s;
        unsigned at;
        Role role = topo_node_role(c, s, &at);
        int w = grid_printf(c->g, area, area.x, y, lw, role, at, "r%d", s);
        if (c->nhits < TOPO_MAX_HITS)
            c->hits[c->nhits++] = (TopoHit){area.x, y, w, s};
        for (int d = 0; d < p; d++) {
            TopoLink l = topo_take(&c->lk, s, d);
            l.back = 0;
            uint32_t ch = s == d ? (c->lk.op[s][s] ? grid_glyph(c->g, GL_BULLET)
                                                   : ' ')
                        : topo_active(l) ? topo_head_glyph(c->g, TOPO_R, topo_reduce(l))
                                       : grid_glyph(c->g, GL_DOT);
            Role rr = s == d ? ROLE_COPY : topo_role(l);
            grid_put(c->g, area, x0 + cw * d, y, ch, rr, topo_attr(l));
        }
    }
    return p + 1;
}
