/* machine.h - the machine a schedule runs on, as a value: ranks and the
 * switches between them, directed links with parameters of their own, and
 * the route a message from one rank takes to another.
 *
 * A machine is a list of dimensions, as ASTRA-sim's network description
 * has it: place q has coordinates c_i = (q / (d_0 ... d_(i-1))) mod d_i
 * (dimension 0 varies fastest); rank r sits at place r, or dealt round
 * the last dimension first (`cyclic`); a message travels the dimensions
 * in order, in each one from its coordinate to the destination's. In a
 * dimension the ranks that differ only in c_i form a line, joined as a
 * ring (both directions, the shorter way, ties going up), a mesh (no
 * wrap-around), fully (one link per ordered pair) or through a switch (an
 * up and a down link per member; a switch may multicast, as an NVSwitch
 * with NVLS does, and a shared one has one port per coordinate,
 * as a node's NIC that all its GPUs share). `bus` is the one exception: a
 * single medium that every byte crosses.
 *
 * `gpu` and `host` are memory machines: the ranks share one memory system
 * (the slices of one GPU, the cores of one host), drawn as a bus, priced
 * by its MemLevel (model.h): one start per step (a launch, a barrier), the
 * step's memory traffic at a rate that depends on whether the call's
 * working set fits the cache.
 *
 * Links are numbered, not stored: machine_link says what link i joins, so
 * a machine of 16384 ranks is a few hundred bytes. No I/O, no globals. */
#ifndef COLLVIZ_CORE_MACHINE_H
#define COLLVIZ_CORE_MACHINE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

#define MACHINE_MAX_DIMS 4      /* dimensions at most */
#define MACHINE_MAX_RANKS 65536 /* ranks at most */
#define MACHINE_NAME_LEN 16     /* bytes of a link class's name */
#define MACHINE_MAX_LINKS (1 << 28) /* links at most (a fully connected
                                       dimension has p * d of them) */
#define MACHINE_MAX_FIXES 16    /* links and ranks unlike their class */
#define MACHINE_FIX_LINE 256    /* members of a line with a down link at
                                   most (machine_fix_check tries every
                                   pair of the line) */

/* The kinds built in; each names its shape and default link classes. */
#define MACHINE_KINDS(X)                                                      \
    X(MACHINE_FULL, "full")      /* a port per rank into a non-blocking    \
                                    fabric: the textbook point to point */  \
    X(MACHINE_BUS, "bus")        /* one medium every byte crosses */        \
    X(MACHINE_SWITCH, "switch")  /* one switch, may multicast (NVLS) */    \
    X(MACHINE_RING, "ring")      /* one bidirectional ring */               \
    X(MACHINE_TORUS, "torus")    /* rings in every dimension */             \
    X(MACHINE_MESH, "mesh")      /* lines without wrap-around */            \
    X(MACHINE_NODES, "nodes")    /* nodes of GPUs: a switch inside each,    \
                                    NICs to a network */                    \
    X(MACHINE_FATTREE, "fattree") /* leaves of ranks, each leaf's uplinks \
                                    a trunk into a non-blocking core */    \
    X(MACHINE_GPU, "gpu")        /* ranks as slices of one GPU's memory */  \
    X(MACHINE_HOST, "host")      /* ranks as cores sharing a host's memory */\
    X(MACHINE_DIMS, "dims")      /* dimensions as a file describes them */

typedef enum {
#define X(id, name) id,
    MACHINE_KINDS(X)
#undef X
    MACHINE_KIND_COUNT
} MachineKind;

/* How the members of one line of a dimension are joined. */
typedef enum {
    DIM_RING,   /* a ring, both directions (ASTRA-sim's Ring) */
    DIM_MESH,   /* a line, both directions, no wrap-around */
    DIM_FULL,   /* a link per ordered pair (ASTRA-sim's FullyConnected) */
    DIM_SWITCH, /* a switch, an up and a down link per member */
    DIM_KIND_COUNT
} DimKind;

/* The parameters of a class of links. A link busy with M messages and B
 * bytes in a step prices a message through it at M alpha + B beta; a
 * message also pays lat on every link it crosses. A link of `lanes`
 * parallel links (a trunk) spreads its messages and bytes evenly over
 * them: alpha and beta are the trunk's, a lane's divided by lanes (one
 * message alone is not held to one lane's rate). */
typedef struct {
    char name[MACHINE_NAME_LEN]; /* "link", "x", "nvlink", "net", ... */
    double alpha;                /* s per message the link carries */
    double beta;                 /* s per byte the link carries */
    double lat;                  /* s per hop: wire and switch latency */
    double lanes;                /* parallel links it stands for (0 or 1:
                                    one) */
} LinkClass;

/* A link or a rank unlike the rest of its machine (machine_fix_link,
 * machine_fix_rank): slower by a factor, or a link that is down. A slow
 * link prices its messages and bytes `slow` times its class's; a slow
 * rank every message it sends or receives and every byte it reduces
 * (a straggler: a slow GPU, a noisy neighbour). A down link carries
 * nothing: a ring's route goes the other way round, a fully connected
 * dimension's through the next member both of whose links are up. */
typedef struct {
    int link;     /* the link, or -1: rank `rank`'s, or a path's */
    int rank;     /* the rank (link -1) ... */
    int to;       /* ... or with to >= 0 the path from rank to `to`: two
                     ranks no link joins (a switch between them), whose
                     messages take `slow` times as long */
    double slow;  /* times as long as its class (1: as fast) */
    bool down;    /* a down link */
    int cls;      /* a slow link's own class in Machine.cls */
} MachineFix;

/* What a backend was told to run slower than its machine (the threads
 * backend's slow=R:F and link=A>B:F), to be priced alike
 * (machine_slow_apply). */
typedef struct {
    int rank;     /* a straggler ... */
    double slow;  /* ... that many times slower (<= 1: none) */
    int from, to; /* transfers from rank `from` to rank `to` ... */
    double link;  /* ... that many times slower (<= 1: none) */
} MachineSlow;

/* One dimension. */
typedef struct {
    DimKind kind;  /* how a line is joined */
    int size;      /* members of a line (d_i) */
    int cls;       /* index of its links' class in Machine.cls */
    bool reduce;   /* DIM_SWITCH: NVLS's switch, which multicasts (a copy
                      of one range to many ranks enters it once) and sums
                      (the copies a schedule marks XF_SWITCH into one rank
                      leave it once; the sums it marks are the switch's) */
    bool shared;   /* DIM_SWITCH: one switch for the whole dimension and
                      one port per coordinate, shared by every rank at it
                      (a NIC shared by a node's GPUs) */
} MachineDim;

#define MEM_MAX_PTS 12 /* points of a memory level's measured curve */

/* Which copy-ins (a rank's input copied from its send buffer) an
 * executor leaves out of its timed runs. */
typedef enum {
    MEM_FUSE_WHOLE, /* those sched_fuse_map finds no one needs, over the
                       whole schedule: every backend since 2026-11-26 */
    MEM_FUSE_NEXT,  /* only one whose whole range one reduce of the next
                       step takes over (it reads the input instead; no
                       other transfer of that step touches the range): the
                       cuda backend before then, as in the H100 run of
                       bench/results/raw/2026-11-26-gpu-h100 */
    MEM_FUSE_NONE   /* none: the schedule as written */
} MemFuse;

/* A memory level: what ranks sharing one memory system pay (model.h). */
typedef struct {
    double step;       /* s per step: one launch (gpu) or barrier (host),
                          whatever the step's transfers */
    double call;       /* s per call beyond its steps (a graph's launch and
                          its events), paid with the first step */
    double beta_mem;   /* s per byte of memory traffic, the call's working
                          set at least twice the cache */
    double beta_cache; /* s per byte of traffic, the working set at most
                          half the cache (between: a blend in log size) */
    double cache;      /* bytes of the cache the ranks share (0: none) */
    bool shared_reads; /* a source range several transfers of one step
                          read is read once (served from the cache) */
    MemFuse fuse;      /* which copy-ins the executor leaves out */
    double beta_core;  /* s per byte of traffic one rank's work moves
                          alone, the working set beyond the cache (0: one
                          rank can use the whole medium, as a kernel on a
                          GPU does) */
    double beta_fresh; /* s per byte of traffic of a transfer that reads
                          what another rank wrote in the call (its lines
                          in that core's cache), beyond the cache (0: as
                          any other) */
    int npts;          /* a measured curve instead of the two rates
                          (0: none): beta[i] s per byte of traffic at a
                          working set of fp[i] bytes, core[i] one rank's,
                          fresh[i] a fresh read's,
                          fp increasing; read linearly in log(footprint),
                          the first below it, beta_mem and beta_core
                          beyond the last */
    double fp[MEM_MAX_PTS], beta[MEM_MAX_PTS], core[MEM_MAX_PTS];
    double fresh[MEM_MAX_PTS]; /* beta_fresh's curve */
} MemLevel;

/* A machine. Its links: for each dimension in order, DIM_RING and DIM_MESH
 * have 2 per rank (up, down the line; a mesh's at an end unused),
 * DIM_FULL d_i per rank (to each coordinate), DIM_SWITCH 2 per port (into
 * the switch, out of it); `bus` (and a memory machine) has an up and a
 * down port per rank and the medium last. */
typedef struct {
    MachineKind kind;              /* what built it (names it) */
    int nranks;                    /* ranks: the product of the sizes */
    int ndims;                     /* dimensions used */
    MachineDim dim[MACHINE_MAX_DIMS]; /* by order of routing */
    int ncls;                      /* link classes used */
    LinkClass cls[MACHINE_MAX_DIMS + 1 + MACHINE_MAX_FIXES]; /* their
                                      parameters; beyond ncls, the slow
                                      links' (MachineFix.cls) */
    double gamma;                  /* s per byte a rank reduces */
    int nlinks;                    /* links in all */
    int stride[MACHINE_MAX_DIMS];  /* places between neighbours of each
                                      dimension (machine_finish sets) */
    bool cyclic;                   /* ranks dealt round the last dimension
                                      first (machine_place), as mpirun's
                                      --map-by node does; else rank r is
                                      at place r */
    MemLevel mem;                  /* gpu, host: the memory level */
    int nfix;                      /* links and ranks unlike the rest */
    MachineFix fix[MACHINE_MAX_FIXES]; /* them, in the order given */
    int ndown;                     /* of them links that are down */
    int backbone;                  /* a fat tree's core of finite rate: the
                                      class of one more link, the last,
                                      that every message between leaves
                                      crosses (0: none, a non-blocking
                                      core) */
} Machine;

/* What link i of a machine joins. Endpoints: ranks are 0..nranks-1; a
 * switch is -1 - its number (machine_switch_name names it). */
typedef struct {
    int from, to;  /* endpoints */
    int cls;       /* its class */
    int dim;       /* its dimension (-1: the bus's medium) */
    bool used;     /* false: a mesh end's link that joins nothing */
    int port;      /* a shared switch's link: the coordinate its port
                      serves (every rank at it); else -1 */
} MachineLink;

const char *machine_kind_name(MachineKind k);
const char *dim_kind_name(DimKind k);

/* The built-in machines of p ranks (sizes multiply to p); every link
 * class gets `alpha`, `beta`, no hop latency, and ranks reduce at gamma.
 * A dimension's class is named "link" for one dimension, else "x", "y",
 * "z", "w". */
CvError machine_full(Machine *m, int p, double alpha, double beta,
                     double gamma);
CvError machine_bus(Machine *m, int p, double alpha, double beta,
                    double gamma);
/* kind is MACHINE_SWITCH (reduce: NVLS), MACHINE_RING, MACHINE_TORUS or
 * MACHINE_MESH; sizes[0..ndims) are the dimensions. */
CvError machine_grid(Machine *m, MachineKind kind, int ndims,
                     const int *sizes, bool reduce, double alpha,
                     double beta, double gamma);
/* G nodes of L ranks: dimension 0 is the node's switch (class "nvlink"),
 * dimension 1 the network (class "net"): one NIC per GPU, on a switch per
 * rail (rail-optimised), or with shared_nic one per node on one switch.
 * The classes get the defaults of machine_class_default. */
CvError machine_nodes(Machine *m, int nodes, int per_node, bool shared_nic,
                      double gamma);

/* A two-level fat tree: `leaves` leaf switches of `per_leaf` ranks, a
 * link each way between a rank and its leaf (class "host": alpha, beta),
 * and each leaf's k = per_leaf / over uplinks into a non-blocking core
 * (over: the oversubscription, at least 1) priced as one trunk (class
 * "up": alpha / k, beta / k; its messages and bytes spread evenly over
 * the k links, one flow alone not held to one link's rate). Dimension 0
 * is the leaves' switches, dimension 1 shared: a port per leaf (its
 * trunk) on the core. A message between leaves goes up its rank's link,
 * its leaf's trunk, down the other's trunk and its rank's link. */
CvError machine_fattree(Machine *m, int leaves, int per_leaf, double over,
                        double alpha, double beta, double gamma);

/* Give fat tree m a core of `beta` s per byte (class "core", no alpha):
 * one more link, the last, that every message between leaves crosses
 * after its leaf's trunk. CV_ERR_ARG for another machine or a beta not
 * above 0. */
CvError machine_backbone(Machine *m, double beta);

/* A memory machine of p ranks (kind MACHINE_GPU or MACHINE_HOST) under
 * level *ml; ranks reduce at gamma beyond their traffic (0: the traffic
 * is the whole cost). CV_ERR_ARG for another kind or a level without a
 * positive memory rate, or with a negative value. */
CvError machine_memory(Machine *m, MachineKind kind, int p,
                       const MemLevel *ml, double gamma);

/* The default level of a memory machine's kind: gpu an H100 SXM's (a
 * step's launch inside a graph 1.5 us, HBM3 2.5 TB/s of traffic, its
 * 50 MB L2 at 6 TB/s), host a workstation's (a barrier 2 us, 20 GB/s of
 * traffic, a 32 MiB last-level cache at 100 GB/s). */
MemLevel machine_mem_default(MachineKind kind);

/* Whether a dimension of m is a switch that sums (NVLS's). */
bool machine_has_reducing_switch(const Machine *m);

/* Whether m is a memory machine (gpu, host). */
bool machine_is_memory(const Machine *m);

/* Whether m's ranks meet on one medium (bus, gpu, host): a port per rank
 * up and down, the medium the last link. */
bool machine_has_medium(const Machine *m);

/* A memory machine's seconds per byte of traffic for a call whose
 * buffers take `footprint` bytes: its curve where it has one, else
 * beta_cache at most half the cache, beta_mem from twice it, linear in
 * log(footprint) between. */
double machine_mem_beta(const MemLevel *ml, double footprint);

/* The same for one rank's work alone (0: no limit of its own). */
double machine_mem_core_beta(const MemLevel *ml, double footprint);

/* The same for a transfer reading what another rank wrote in the call
 * (machine_mem_beta's where the level has no rate of its own for it). */
double machine_mem_fresh_beta(const MemLevel *ml, double footprint);

/* Set m->nranks and m->nlinks from the dimensions m holds (a machine
 * built by hand, as a file's): CV_ERR_RANKS when they multiply to more
 * than MACHINE_MAX_RANKS, CV_ERR_LIMIT when it has more than
 * MACHINE_MAX_LINKS links. */
CvError machine_finish(Machine *m);

/* A link class's default parameters by name: "nvlink" (NVLink 4 through
 * an NVSwitch, H100 SXM: 450 GB/s per direction), "pcie" (PCIe 5.0 x16:
 * 64 GB/s), "net" (InfiniBand NDR, 400 Gb/s: 50 GB/s), each with an alpha
 * of the order NCCL's tuning assumes; false for another name. */
bool machine_class_default(const char *name, LinkClass *out);

/* The most nearly square shape of p ranks in ndims dimensions (sizes in
 * largest first: 16 -> 4x4, 8 ->
 * 4x2, 12 -> 4x3, 7 -> 7x1), into sizes[0 .. ndims). */
void machine_square(int p, int ndims, int *sizes);

/* Index of the class named `name`, or -1. */
int machine_class_find(const Machine *m, const char *name);

/* The place of rank r (its coordinates: place q's c_i is
 * (q / stride_i) mod d_i), and the rank at place q (q < 0: a switch,
 * returned as it is). */
int machine_place(const Machine *m, int r);
int machine_rank_at(const Machine *m, int q);

/* Rank r's coordinate in dimension i. */
int machine_coord(const Machine *m, int r, int i);

/* What link i joins. */
MachineLink machine_link(const Machine *m, int i);

/* The endpoint a name gives ("r5", "sw", "sw.x3", "nic2": as
 * machine_endpoint_name writes them), or INT_MIN for a name that is none
 * of m's. */
int machine_endpoint_parse(const Machine *m, const char *name);

/* The links from endpoint a to endpoint b into out[0 .. cap); how many
 * (a ring of two members has two each way; none from an end to itself). */
int machine_links_between(const Machine *m, int a, int b, int *out,
                          int cap);

/* Make every link from endpoint `from` to endpoint `to` slow (times
 * `slow`, at least 1) or down; again for a link already fixed replaces
 * it. Two ranks no link joins: the path between them slow (every
 * message from one to the other). CV_ERR_ARG: no link joins them (down)
 * or they are not two ranks, a memory machine or a bus, a slowdown
 * below 1 or not a number; CV_ERR_LIMIT: more than MACHINE_MAX_FIXES
 * fixes. Call machine_fix_check after the last. */
CvError machine_fix_link(Machine *m, int from, int to, double slow,
                         bool down);

/* Make rank r slow (times `slow`, at least 1). Errors as
 * machine_fix_link's (a rank that is not m's: CV_ERR_ARG). */
CvError machine_fix_rank(Machine *m, int r, double slow);

/* Whether every rank still reaches every other with the links that are
 * down: CV_OK, or CV_ERR_ARG and a pair (*a to *b) that no route joins,
 * or CV_ERR_LIMIT and *a the down link in a line of more than
 * MACHINE_FIX_LINE members. */
CvError machine_fix_check(const Machine *m, int *a, int *b);

/* One fix as text, -T's option and the machine file's item alike:
 * "link=A>B:slow=F", "link=A>B:down" ("A-B": both ways) or
 * "rank=R:slow=F", applied to m (machine_fix_check still to come).
 * CV_OK, or the error and one sentence in why. */
CvError machine_fix_parse(Machine *m, const char *opt, char *why,
                          size_t len);

/* Fix f of m as machine_fix_parse reads it; the bytes it needs. */
size_t machine_fix_text(const Machine *m, int f, char *buf, size_t len);

/* machine_fix_check's answer with its sentence in why. */
CvError machine_fix_why(const Machine *m, char *why, size_t len);

/* How many times as long rank r's messages and reductions take (1: not
 * slowed). */
double machine_rank_slow(const Machine *m, int r);

/* How many times as long a message from rank a to rank b takes: its
 * ranks' slowdowns and its path's, the largest (1: not slowed). */
double machine_msg_slow(const Machine *m, int a, int b);

/* Fix m as *s says (a slowdown of at most 1: nothing): its rank slow,
 * the link or path from `from` to `to` slow. Errors as machine_fix_*. */
CvError machine_slow_apply(Machine *m, const MachineSlow *s);

/* Whether link i is down. */
bool machine_link_down(const Machine *m, int i);

/* The class of link i (what machine_link(m, i).cls says, quickly). */
int machine_link_class(const Machine *m, int i);

/* Write the name of endpoint e into buf: "r5", "sw", "sw.x3" (the switch
 * of line 3 of dimension x), "medium". */
void machine_endpoint_name(const Machine *m, int e, char *buf, size_t len);

/* Link l as "r0>r1", "r3>sw.x1", or "medium" (a bus's). */
void machine_link_name(const Machine *m, int l, char *buf, size_t len);

/* The links a message from rank src to rank dst crosses, in order, into
 * links[0 .. cap); returns how many (0 when src == dst; more than cap:
 * only cap were written). */
int machine_route(const Machine *m, int src, int dst, int *links, int cap);

/* The most links any route crosses. */
int machine_max_hops(const Machine *m);
/* Whether moving every rank the same number of places along (mod p) maps
 * m onto itself, links, classes and routes: one dimension that is not a
 * mesh (full, bus, switch, ring), no link or rank fixed. A step's price is then the same after
 * any such rotation of its ranks. */
bool machine_shift_invariant(const Machine *m);
/* Whether links 2 r and 2 r + 1 are rank r's, and any beyond 2 p (a
 * bus's medium) nobody's: then rotating the ranks moves their links
 * along (a bus, a switch, a ring; not a fully connected dimension). */
bool machine_links_move(const Machine *m);

/* Whether link i goes into a multicasting switch (a copy multicast there
 * enters once). */
bool machine_link_multicasts(const Machine *m, int i);

/* Whether link i leaves a reducing switch (the copies it sums into one
 * destination leave it once: sched.h's XF_SWITCH). */
bool machine_link_reduces(const Machine *m, int i);

/* The machine in words, e.g. "torus 4x4 (x: alpha 1 us, 10 GB/s; ...)";
 * short: only the kind and shape ("torus 4x4", "nodes 2x4, a NIC per
 * node"). */
void machine_describe(const Machine *m, bool shape_only, char *buf,
                      size_t len);

/* Its dimensions' sizes as the shape says them ("4x4"; nodes: the number
 * of nodes first); the bytes written, at most len - 1. */
size_t machine_dims_text(const Machine *m, char *buf, size_t len);

#endif
