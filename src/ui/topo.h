/* topo.h - what the topology panel's renderers share: the links of the
 * shown step, glyphs for lines and arrow heads, rank labels, paths, and
 * flowed lists of tokens. Each shape is drawn by one renderer (topo_*.c);
 * view_topology.c picks the shape and draws the footer. They read a Scene
 * and the selected rank, never the App. */
#ifndef COLLVIZ_UI_TOPO_H
#define COLLVIZ_UI_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/grid.h"
#include "ui/scene.h"
#include "ui/topo_tree.h"

/* ------------------------------------------------------------ links */

/* A machine's link cell beyond the load levels 0..4: a link that is
 * down (topo_machine.c). */
#define TOPO_DOWN 5

/* The links of the shown step, from the picture's schedule. */
typedef struct {
    int p;                  /* ranks */
    bool shown;             /* a step is shown (else the initial state) */
    size_t k;               /* the shown step */
    uint8_t op[TOPO_MAXR][TOPO_MAXR]; /* [src][dst]: 0, or 1 + XferOp */
    bool used[TOPO_MAXR][TOPO_MAXR];  /* the layout drew [src][dst] */
    size_t key[TOPO_MAXR][TOPO_MAXR]; /* source offset of [src][dst]'s
                                         transfer */
    bool busy[TOPO_MAXR];   /* the rank sends, receives or works locally */
    int nlinks[2];          /* links by XferOp */
    int nlocal;             /* ranks with local work */
} TopoLinks;

/* State of the link between a and b: a -> b and b -> a. */
typedef struct {
    uint8_t fwd;  /* 0, or 1 + XferOp of a -> b */
    uint8_t back; /* 0, or 1 + XferOp of b -> a */
} TopoLink;

/* The shown step's links of scene sc. */
void topo_links_init(const Scene *sc, TopoLinks *lk);
/* The state of a - b, marking both directions as drawn. */
TopoLink topo_take(TopoLinks *lk, int a, int b);
/* Whether the link is used, whether by a reduce, and its role and
 * attributes. */
bool topo_active(TopoLink s);
bool topo_reduce(TopoLink s);
Role topo_role(TopoLink s);
unsigned topo_attr(TopoLink s);

/* ------------------------------------------------------------ glyphs */

/* Sides a line cell connects to. */
enum { TOPO_U = 1, TOPO_D = 2, TOPO_L = 4, TOPO_R = 8 };

/* A line cell connecting `mask` sides (double lines for a reduce). */
uint32_t topo_line_glyph(const Grid *g, unsigned mask, bool reduce);
/* An arrow head pointing to `side`. */
uint32_t topo_head_glyph(const Grid *g, unsigned side, bool reduce);
/* A one-cell link used both ways, vertical or horizontal. */
uint32_t topo_both_glyph(const Grid *g, bool vertical, bool reduce);
/* The link text of a token: "->" for a -> b and so on. */
const char *topo_arrow_text(const Grid *g, TopoLink s);

/* ------------------------------------------------------------ drawing */

/* A drawn rank, for clicks. */
typedef struct {
    int x, y, w; /* where its label is */
    int rank;    /* the rank */
} TopoHit;

#define TOPO_MAX_HITS (TOPO_MAXR + 8)

/* Everything a renderer needs while drawing. */
typedef struct {
    const Scene *sc;    /* the scene drawn */
    int sel_rank;       /* the selected rank, or -1 */
    Grid *g;            /* where */
    Rect r;             /* the panel (clip) */
    TopoLinks lk;       /* the shown step's links */
    int root;           /* the call's root (0 for unrooted kinds) */
    bool big;           /* the panel is zoomed (Z): a machine is drawn
                           to fill it where it can be */
    bool big_drawn;     /* topo_machine drew it so */
    bool wraps;         /* and with wrap-around marks */
    double link_top;    /* a drawn machine's busiest link's busy time in
                           the step (topo_machine sets it) */
    TopoHit hits[TOPO_MAX_HITS]; /* ranks drawn */
    int nhits;          /* hits used */
} TopoCtx;

typedef struct {
    int x, y; /* column and row */
} TopoPt;

/* Most cells of one drawn link. */
#define TOPO_MAX_PATH 512

/* A link along cells from node cell a to node cell b. */
typedef struct {
    TopoPt a, b;                /* the node cells at either end */
    TopoPt cell[TOPO_MAX_PATH]; /* the line's cells, from a's side to b's */
    int n;                      /* cells used */
} TopoPath;

/* Role and attributes of rank q's label. */
Role topo_node_role(const TopoCtx *c, int q, unsigned *attr);
/* Rank q's label (or text) at (x, y); returns its width. */
int topo_draw_node(TopoCtx *c, int x, int y, int q, const char *text);
/* Extend the path in a straight line up to and including `to`. */
void topo_path_to(TopoPath *p, TopoPt to);
/* Draw a path in the state s (fwd: a -> b). */
void topo_draw_path(TopoCtx *c, const TopoPath *p, TopoLink s);

/* ------------------------------------------------------------ tokens */

/* One item of a flowed list: up to three pieces of text. */
typedef struct {
    char text[3][24]; /* pieces */
    Role role[3];     /* each piece's role */
    unsigned attr[3]; /* and attributes */
    int rank[3];      /* the rank a click on each piece selects, or -1 */
} TopoToken;

/* A token of no pieces, nothing clickable. */
TopoToken topo_token_empty(void);
int topo_token_width(const TopoToken *t);
/* Flow tokens into rows of area; when they do not all fit the last place
 * says how many are left out. Returns the rows used. */
int topo_flow(TopoCtx *c, Rect area, const TopoToken *t, int n);
/* Tokens "a->b" for every active link not drawn yet, by sender, marking
 * them drawn. Returns how many (at most cap). */
int topo_pair_tokens(TopoCtx *c, TopoToken *t, int cap);

/* ------------------------------------------------------------ renderers */

/* Each draws its shape into area and returns the rows it used, or -1
 * when the shape does not fit (the panel then lists the pairs). */
int topo_serp(TopoCtx *c, Rect area, bool ring); /* topo_serp.c: ring,
                                                    chain */
int topo_forest(TopoCtx *c, Rect area);          /* topo_forest.c */
int topo_star(TopoCtx *c, Rect area);            /* topo_star.c */
int topo_pairs(TopoCtx *c, Rect area);           /* topo_pairs.c */
int topo_matrix(TopoCtx *c, Rect area);          /* topo_matrix.c */
/* topo_machine.c: the what-if machine (Scene.mach) with each link shaded
 * by its load in the shown step; its footer line (the busiest link); the
 * rows and columns it takes in `room` columns (0: it does not fit). */
int topo_machine(TopoCtx *c, Rect area);
void topo_machine_footer(TopoCtx *c, int y);
void topo_machine_size(const Scene *sc, int room, int *rows, int *cols);

#endif
