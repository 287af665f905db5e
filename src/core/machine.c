/* machine.c - machines as values: built-in shapes, links by number,
 * dimension-order routes. */
#include "core/machine.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[MACHINE_KIND_COUNT] = {
#define X(id, name) [id] = name,
    MACHINE_KINDS(X)
#undef X
};

static const char *const dim_names[DIM_KIND_COUNT] = {
    [DIM_RING] = "Ring", [DIM_MESH] = "Mesh", [DIM_FULL] = "FullyConnected",
    [DIM_SWITCH] = "Switch",
};

const char *machine_kind_name(MachineKind k)
{
    return k < MACHINE_KIND_COUNT ? kind_names[k] : "?";
}

const char *dim_kind_name(DimKind k)
{
    return k < DIM_KIND_COUNT ? dim_names[k] : "?";
}

/* Public figures per direction; alphas of the order NCCL's tuning uses. */
static const LinkClass class_defaults[] = {
    {"nvlink", 1e-6, 1 / 450e9, 0, 1},
    {"pcie", 2e-6, 1 / 64e9, 0, 1},
    {"net", 5e-6, 1 / 50e9, 0, 1},
};

bool machine_class_default(const char *name, LinkClass *out)
{
    for (size_t i = 0; i < sizeof class_defaults / sizeof *class_defaults; i++)
        if (!strcmp(name, class_defaults[i].name)) {
            *out = class_defaults[i];
            return true;
        }
    return false;
}

void machine_square(int p, int ndims, int *sizes)
{
    for (int i = 0; i < ndims; i++) {
        int left = ndims - i, best = p;
        /* the smallest divisor of p at least its left-th root */
        for (int d = 1; d <= p; d++) {
            long long pow = 1;
            for (int j = 0; j < left; j++)
                pow *= d;
            if (p % d == 0 && pow >= p) {
                best = d;
                break;
            }
        }
        sizes[i] = best;
        p /= best;
    }
}

int machine_class_find(const Machine *m, const char *name)
{
    for (int c = 0; c < m->ncls; c++)
        if (!strcmp(m->cls[c].name, name))
            return c;
    return -1;
}

/* ------------------------------------------------------------- building */

/* Product of the sizes of dimensions before i: the step of c_i in ranks. */
static int stride(const Machine *m, int i) { return m->stride[i]; }

/* Links of dimension i (machine_finish keeps the sum within
 * MACHINE_MAX_LINKS, so every link number is an int). */
static long long dim_links(const Machine *m, int i)
{
    const MachineDim *d = &m->dim[i];
    long long p = m->nranks;
    switch (d->kind) {
    case DIM_RING:
    case DIM_MESH: return 2 * p;
    case DIM_FULL: return p * d->size;
    case DIM_SWITCH: return 2 * (d->shared ? d->size : p);
    case DIM_KIND_COUNT: break;
    }
    return 0;
}

static int dim_base(const Machine *m, int i)
{
    long long b = 0;
    for (int j = 0; j < i; j++)
        b += dim_links(m, j);
    return (int)b;
}

static void set_class(LinkClass *c, const char *name, double alpha,
                      double beta)
{
    *c = (LinkClass){.alpha = alpha, .beta = beta};
    snprintf(c->name, sizeof c->name, "%s", name);
}

CvError machine_finish(Machine *m)
{
    long long p = 1;
    for (int i = 0; i < m->ndims; i++) {
        if (m->dim[i].size < 1)
            return CV_ERR_RANKS;
        m->stride[i] = (int)p;
        p *= m->dim[i].size;
        if (p > MACHINE_MAX_RANKS)
            return CV_ERR_RANKS;
    }
    m->nranks = (int)p;
    long long n = machine_has_medium(m) ? 2 * p + 1 : m->backbone > 0;
    for (int i = 0; i < m->ndims && !machine_has_medium(m); i++)
        n += dim_links(m, i);
    if (n > MACHINE_MAX_LINKS)
        return CV_ERR_LIMIT;
    m->nlinks = (int)n;
    return CV_OK;
}

CvError machine_grid(Machine *m, MachineKind kind, int ndims,
                     const int *sizes, bool reduce, double alpha,
                     double beta, double gamma)
{
    static const char *const axis[MACHINE_MAX_DIMS] = {"x", "y", "z", "w"};
    *m = (Machine){.kind = kind, .gamma = gamma, .ndims = ndims};
    if (ndims < 1 || ndims > MACHINE_MAX_DIMS)
        return CV_ERR_ARG;
    DimKind dk = kind == MACHINE_MESH ? DIM_MESH
                 : kind == MACHINE_SWITCH || kind == MACHINE_FULL ||
                         kind == MACHINE_BUS || kind == MACHINE_GPU ||
                         kind == MACHINE_HOST
                     ? DIM_SWITCH
                     : DIM_RING;
    m->ncls = ndims;
    for (int i = 0; i < ndims; i++) {
        m->dim[i] = (MachineDim){.kind = dk, .size = sizes[i], .cls = i,
                                 .reduce = reduce && dk == DIM_SWITCH};
        set_class(&m->cls[i], ndims == 1 ? "link" : axis[i], alpha, beta);
    }
    return machine_finish(m);
}

CvError machine_full(Machine *m, int p, double alpha, double beta,
                     double gamma)
{
    return machine_grid(m, MACHINE_FULL, 1, &p, false, alpha, beta, gamma);
}

/* The bus: ports carry the messages (alpha), the medium the bytes. */
CvError machine_bus(Machine *m, int p, double alpha, double beta,
                    double gamma)
{
    CvError e = machine_grid(m, MACHINE_BUS, 1, &p, false, alpha, beta, gamma);
    set_class(&m->cls[0], "port", alpha, 0);
    set_class(&m->cls[1], "bus", 0, beta);
    m->ncls = 2;
    return e;
}

bool machine_has_medium(const Machine *m)
{
    return m->kind == MACHINE_BUS || machine_is_memory(m);
}

bool machine_has_reducing_switch(const Machine *m)
{
    for (int i = 0; i < m->ndims && !machine_has_medium(m); i++)
        if (m->dim[i].reduce)
            return true;
    return false;
}

bool machine_is_memory(const Machine *m)
{
    return m->kind == MACHINE_GPU || m->kind == MACHINE_HOST;
}

MemLevel machine_mem_default(MachineKind kind)
{
    if (kind == MACHINE_GPU)
        return (MemLevel){.step = 1.5e-6, .call = 2.3e-6,
                          .beta_mem = 1 / 2.5e12, .beta_cache = 1 / 6e12,
                          .cache = 50e6, .shared_reads = true};
    return (MemLevel){.step = 2e-6, .beta_mem = 1 / 20e9,
                      .beta_cache = 1 / 100e9, .cache = 32.0 * (1 << 20),
                      .shared_reads = true};
}

CvError machine_memory(Machine *m, MachineKind kind, int p,
                       const MemLevel *ml, double gamma)
{
    if ((kind != MACHINE_GPU && kind != MACHINE_HOST) ||
        !(ml->beta_mem > 0) || !(ml->step >= 0) || !(ml->call >= 0) ||
        !(ml->beta_cache >= 0) || !(ml->cache >= 0) || !(gamma >= 0)) {
        *m = (Machine){.kind = kind};
        return CV_ERR_ARG;
    }
    CvError e = machine_grid(m, kind, 1, &p, false, 0, 0, gamma);
    set_class(&m->cls[0], "port", 0, 0);
    set_class(&m->cls[1], "memory", 0, ml->beta_mem);
    m->ncls = 2;
    m->mem = *ml;
    return e;
}

/* Curve y (ml->beta or ml->core) of ml at f (ml->npts > 0); `last`
 * beyond it. */
static double curve_at(const MemLevel *ml, const double *y, double last,
                       double f)
{
    int n = ml->npts < MEM_MAX_PTS ? ml->npts : MEM_MAX_PTS;
    if (!(f > ml->fp[0]))
        return y[0];
    for (int i = 1; i < n; i++)
        if (f <= ml->fp[i]) {
            double w = log(f / ml->fp[i - 1]) / log(ml->fp[i] / ml->fp[i - 1]);
            return y[i - 1] + w * (y[i] - y[i - 1]);
        }
    return last;
}

double machine_mem_core_beta(const MemLevel *ml, double footprint)
{
    if (!(ml->beta_core > 0))
        return 0;
    return ml->npts > 0 ? curve_at(ml, ml->core, ml->beta_core, footprint)
                        : ml->beta_core;
}

double machine_mem_fresh_beta(const MemLevel *ml, double footprint)
{
    if (!(ml->beta_fresh > 0))
        return machine_mem_beta(ml, footprint);
    return ml->npts > 0 ? curve_at(ml, ml->fresh, ml->beta_fresh, footprint)
                        : ml->beta_fresh;
}

double machine_mem_beta(const MemLevel *ml, double footprint)
{
    if (ml->npts > 0)
        return curve_at(ml, ml->beta, ml->beta_mem, footprint);
    if (!(ml->cache > 0) || !(ml->beta_cache > 0) || !(footprint > 0))
        return ml->beta_mem;
    double x = log2(footprint / ml->cache);
    if (x <= -1)
        return ml->beta_cache;
    if (x >= 1)
        return ml->beta_mem;
    return ml->beta_cache + (x + 1) / 2 * (ml->beta_mem - ml->beta_cache);
}

CvError machine_nodes(Machine *m, int nodes, int per_node, bool shared_nic,
                      double gamma)
{
    int sizes[2] = {per_node, nodes};
    CvError e = machine_grid(m, MACHINE_SWITCH, 2, sizes, false, 0, 0, gamma);
    m->kind = MACHINE_NODES;
    m->dim[1].shared = shared_nic;
    machine_class_default("nvlink", &m->cls[0]);
    machine_class_default("net", &m->cls[1]);
    return e ? e : machine_finish(m);
}

CvError machine_fattree(Machine *m, int leaves, int per_leaf, double over,
                        double alpha, double beta, double gamma)
{
    int sizes[2] = {per_leaf, leaves};
    CvError e = machine_grid(m, MACHINE_SWITCH, 2, sizes, false, alpha, beta,
                             gamma);
    double k = per_leaf / over;
    m->kind = MACHINE_FATTREE;
    m->dim[1].shared = true;
    set_class(&m->cls[0], "host", alpha, beta);
    set_class(&m->cls[1], "up", alpha / k, beta / k);
    m->cls[1].lanes = k;
    if (!(over >= 1) || isinf(over))
        return CV_ERR_ARG;
    return e ? e : machine_finish(m);
}

CvError machine_backbone(Machine *m, double beta)
{
    if (m->kind != MACHINE_FATTREE || !(beta > 0) || m->backbone)
        return CV_ERR_ARG;
    m->backbone = m->ncls++;
    set_class(&m->cls[m->backbone], "core", 0, beta);
    return machine_finish(m);
}

/* ------------------------------------------------------------- geometry */

/* Ranks and places. A machine's links and routes are numbered by place:
 * place q has coordinates c_i = (q / stride_i) mod d_i. Rank r sits at
 * place r, or with `cyclic` at the place whose digits are r's reversed
 * (the last dimension varying fastest with r: mpirun's --map-by node
 * deals ranks round the nodes). */
static int coord(const Machine *m, int q, int i)
{
    return q / stride(m, i) % m->dim[i].size;
}

int machine_place(const Machine *m, int r)
{
    if (!m->cyclic)
        return r;
    int q = 0;
    for (int i = m->ndims - 1; i >= 0; i--) {
        q += r % m->dim[i].size * stride(m, i);
        r /= m->dim[i].size;
    }
    return q;
}

int machine_rank_at(const Machine *m, int q)
{
    if (!m->cyclic || q < 0)
        return q;
    int r = 0;
    for (int i = 0; i < m->ndims; i++)
        r = r * m->dim[i].size + coord(m, q, i);
    return r;
}

int machine_coord(const Machine *m, int r, int i)
{
    return coord(m, machine_place(m, r), i);
}

/* The line of place r in dimension i: r with c_i taken out. */
static int line_of(const Machine *m, int r, int i)
{
    int s = stride(m, i);
    return r % s + r / (s * m->dim[i].size) * s;
}

/* First switch number of dimension i: lines of earlier switch dimensions
 * (a shared one: its switch and its ports). */
static int switch_base(const Machine *m, int i)
{
    int b = 0;
    for (int j = 0; j < i; j++)
        if (m->dim[j].kind == DIM_SWITCH)
            b += m->dim[j].shared ? 1 + m->dim[j].size
                                  : m->nranks / m->dim[j].size;
    return b;
}

/* The place r with c_i = c. */
static int with_coord(const Machine *m, int r, int i, int c)
{
    return r + (c - coord(m, r, i)) * stride(m, i);
}

static MachineLink link_bus(const Machine *m, int i)
{
    int p = m->nranks;
    if (i == 2 * p)
        return (MachineLink){-1, -1, 1, -1, true, -1};
    int r = machine_rank_at(m, i / 2);
    return i % 2 ? (MachineLink){-1, r, 0, 0, true, -1}
                 : (MachineLink){r, -1, 0, 0, true, -1};
}

/* Link k of dimension i (k counted from the dimension's base), its ends
 * as places. */
static MachineLink link_in_dim(const Machine *m, int i, int k)
{
    const MachineDim *d = &m->dim[i];
    MachineLink l = {.cls = d->cls, .dim = i, .used = true, .port = -1};
    int r = k / 2, up = k % 2 == 0, c;
    switch (d->kind) {
    case DIM_RING:
    case DIM_MESH:
        c = coord(m, r, i) + (up ? 1 : -1);
        l.used = d->kind == DIM_RING || (c >= 0 && c < d->size);
        l.from = r;
        l.to = with_coord(m, r, i, (c + d->size) % d->size);
        return l;
    case DIM_FULL:
        r = k / d->size;
        l.from = r;
        l.to = with_coord(m, r, i, k % d->size);
        l.used = l.to != r;
        return l;
    case DIM_SWITCH: {
        int base = switch_base(m, i);
        int sw = -1 - (d->shared ? base : base + line_of(m, r, i));
        int port = d->shared ? -1 - (base + 1 + r) : r;
        l.from = up ? port : sw;
        l.to = up ? sw : port;
        l.port = d->shared ? r : -1;
        return l;
    }
    case DIM_KIND_COUNT: break;
    }
    return l;
}

MachineLink machine_link(const Machine *m, int i)
{
    if (machine_has_medium(m))
        return link_bus(m, i);
    if (m->backbone && i == m->nlinks - 1) /* the core, itself */
        return (MachineLink){-1 - switch_base(m, 1), -1 - switch_base(m, 1),
                             m->backbone, -1, true, -1};
    int d = 0;
    while (d + 1 < m->ndims && i >= dim_base(m, d + 1))
        d++;
    MachineLink l = link_in_dim(m, d, i - dim_base(m, d));
    l.from = machine_rank_at(m, l.from);
    l.to = machine_rank_at(m, l.to);
    return l;
}

/* The class of link i as its dimension has it. */
static int dim_class(const Machine *m, int i)
{
    if (machine_has_medium(m))
        return i == 2 * m->nranks;
    if (m->backbone && i == m->nlinks - 1)
        return m->backbone;
    if (m->ndims == 1)
        return m->dim[0].cls;
    long long b = 0;
    for (int d = 0; d + 1 < m->ndims; d++) {
        b += dim_links(m, d);
        if (i < b)
            return m->dim[d].cls;
    }
    return m->dim[m->ndims - 1].cls;
}

int machine_link_class(const Machine *m, int i)
{
    for (int f = 0; f < m->nfix; f++)
        if (m->fix[f].link == i && !m->fix[f].down)
            return m->fix[f].cls;
    return dim_class(m, i);
}

bool machine_link_down(const Machine *m, int i)
{
    for (int f = 0; f < m->nfix && m->ndown; f++)
        if (m->fix[f].link == i && m->fix[f].down)
            return true;
    return false;
}

double machine_rank_slow(const Machine *m, int r)
{
    for (int f = 0; f < m->nfix; f++)
        if (m->fix[f].link < 0 && m->fix[f].to < 0 && m->fix[f].rank == r)
            return m->fix[f].slow;
    return 1;
}

double machine_msg_slow(const Machine *m, int a, int b)
{
    double s = 1;
    for (int f = 0; f < m->nfix; f++) {
        const MachineFix *x = &m->fix[f];
        if (x->link < 0 && ((x->to < 0 && (x->rank == a || x->rank == b)) ||
                            (x->rank == a && x->to == b)))
            s = x->slow > s ? x->slow : s;
    }
    return s;
}

/* Links of dimension i that may join a to b: the few leaving a place's
 * rank, or a switch dimension's all. */
static int dim_candidates(const Machine *m, int i, int a, int b, int *out)
{
    const MachineDim *d = &m->dim[i];
    int base = dim_base(m, i), n = 0;
    int qa = a >= 0 ? machine_place(m, a) : -1;
    switch (d->kind) {
    case DIM_RING:
    case DIM_MESH:
        if (qa >= 0)
            out[n++] = base + 2 * qa, out[n++] = base + 2 * qa + 1;
        return n;
    case DIM_FULL:
        if (qa >= 0 && b >= 0)
            out[n++] = base + qa * d->size + machine_coord(m, b, i);
        return n;
    case DIM_SWITCH:
        return -1; /* every link of the dimension */
    case DIM_KIND_COUNT: break;
    }
    return n;
}

int machine_links_between(const Machine *m, int a, int b, int *out, int cap)
{
    int n = 0; /* (a line of one member's links join a rank to itself:
                  nothing) */
    for (int i = 0; i < m->ndims && !machine_has_medium(m) && a != b; i++) {
        int c[2], k = dim_candidates(m, i, a, b, c);
        long long lo = dim_base(m, i), hi = lo + dim_links(m, i);
        for (long long j = 0; j < (k < 0 ? hi - lo : k); j++) {
            int l = k < 0 ? (int)(lo + j) : c[j];
            MachineLink ml = machine_link(m, l);
            if (ml.used && ml.from == a && ml.to == b && n < cap)
                out[n++] = l;
        }
    }
    return n;
}

/* A fat tree's switch k of dimension i: "leaf3", the core "core", a
 * leaf's port on it "leaf3.up". */
static bool fattree_name(int i, int k, char *buf, size_t len)
{
    if (i == 0)
        snprintf(buf, len, "leaf%d", k);
    else if (k == 0)
        snprintf(buf, len, "core");
    else
        snprintf(buf, len, "leaf%d.up", k - 1);
    return true;
}

void machine_endpoint_name(const Machine *m, int e, char *buf, size_t len)
{
    if (e >= 0) {
        snprintf(buf, len, "r%d", e);
        return;
    }
    int sw = -1 - e;
    if (machine_has_medium(m)) {
        snprintf(buf, len, "medium");
        return;
    }
    for (int i = 0; i < m->ndims; i++) {
        const MachineDim *d = &m->dim[i];
        int b = switch_base(m, i);
        int n = d->kind != DIM_SWITCH ? 0 : d->shared ? 1 + d->size
                                                      : m->nranks / d->size;
        if (sw < b || sw >= b + n)
            continue;
        const char *cn = m->cls[d->cls].name;
        if (m->kind == MACHINE_FATTREE && fattree_name(i, sw - b, buf, len))
            return;
        if (d->shared && sw > b)
            snprintf(buf, len, "nic%d", sw - b - 1);
        else if (d->shared || n == 1)
            snprintf(buf, len, "sw.%s", cn);
        else
            snprintf(buf, len, "sw.%s%d", cn, sw - b);
        return;
    }
    snprintf(buf, len, "?");
}

int machine_endpoint_parse(const Machine *m, const char *name)
{
    char *end, buf[32];
    if (name[0] == 'r' && name[1] >= '0' && name[1] <= '9') {
        long r = strtol(name + 1, &end, 10);
        return !*end && r < m->nranks ? (int)r : INT_MIN;
    }
    int nsw = machine_has_medium(m) ? 1 : switch_base(m, m->ndims);
    for (int sw = 0; sw < nsw; sw++) {
        machine_endpoint_name(m, -1 - sw, buf, sizeof buf);
        if (!strcmp(buf, name))
            return -1 - sw;
    }
    return INT_MIN;
}

void machine_link_name(const Machine *m, int l, char *buf, size_t len)
{
    MachineLink ml = machine_link(m, l);
    char a[32], b[32];
    machine_endpoint_name(m, ml.from, a, sizeof a);
    machine_endpoint_name(m, ml.to, b, sizeof b);
    if (ml.from == ml.to) /* a bus's medium */
        snprintf(buf, len, "%s", a);
    else
        snprintf(buf, len, "%s>%s", a, b);
}

/* ---------------------------------------------------------------- routes */

static int put(int *links, int cap, int n, int link)
{
    if (n < cap)
        links[n] = link;
    return n + 1;
}

/* Whether `hops` hops from place q along dimension i's ring in direction
 * dir cross a down link (base: the dimension's first link). */
static bool ring_blocked(const Machine *m, int base, int q, int i, int dir,
                         int hops)
{
    const MachineDim *d = &m->dim[i];
    int c = coord(m, q, i);
    for (int h = 0; h < hops; h++) {
        if (machine_link_down(m, base + 2 * q + (dir > 0 ? 0 : 1)))
            return true;
        c = (c + dir + d->size) % d->size;
        q = with_coord(m, q, i, c);
    }
    return false;
}

/* The member a message from place q to coordinate t of a fully connected
 * dimension i goes through when the direct link is down: the next
 * coordinate after q's both of whose links are up (q's own when none:
 * machine_fix_check refuses such a machine). */
static int full_detour(const Machine *m, int i, int q, int t)
{
    const MachineDim *d = &m->dim[i];
    int base = dim_base(m, i), c = coord(m, q, i);
    for (int j = 1; j < d->size; j++) {
        int k = (c + j) % d->size, via = with_coord(m, q, i, k);
        if (k != t && !machine_link_down(m, base + q * d->size + k) &&
            !machine_link_down(m, base + via * d->size + t))
            return k;
    }
    return c;
}

/* Hops from rank *cur to coordinate t in dimension i, appended from n. */
static int route_dim(const Machine *m, int i, int *cur, int t, int *links,
                     int cap, int n)
{
    const MachineDim *d = &m->dim[i];
    int base = dim_base(m, i), c = coord(m, *cur, i);
    int delta = (t - c + d->size) % d->size, dir, hops;
    switch (d->kind) {
    case DIM_RING:
    case DIM_MESH:
        if (d->kind == DIM_RING)
            dir = 2 * delta <= d->size ? 1 : -1,
            hops = dir > 0 ? delta : d->size - delta;
        else
            dir = t > c ? 1 : -1, hops = t > c ? t - c : c - t;
        if (d->kind == DIM_RING && m->ndown &&
            ring_blocked(m, base, *cur, i, dir, hops))
            dir = -dir, hops = d->size - hops;
        for (int h = 0; h < hops; h++) {
            n = put(links, cap, n, base + 2 * *cur + (dir > 0 ? 0 : 1));
            c = (c + dir + d->size) % d->size;
            *cur = with_coord(m, *cur, i, c);
        }
        return n;
    case DIM_FULL:
        if (m->ndown && machine_link_down(m, base + *cur * d->size + t)) {
            int k = full_detour(m, i, *cur, t);
            n = put(links, cap, n, base + *cur * d->size + k);
            *cur = with_coord(m, *cur, i, k);
        }
        n = put(links, cap, n, base + *cur * d->size + t);
        *cur = with_coord(m, *cur, i, t);
        return n;
    case DIM_SWITCH: {
        int next = with_coord(m, *cur, i, t);
        n = put(links, cap, n, base + 2 * (d->shared ? c : *cur));
        n = put(links, cap, n, base + 2 * (d->shared ? t : next) + 1);
        *cur = next;
        return n;
    }
    case DIM_KIND_COUNT: break;
    }
    return n;
}

/* A fat tree's route between places src and dst: the rank's link up to
 * its leaf, the leaves' trunks where the leaves differ, the link down. */
static int route_fattree(const Machine *m, int src, int dst, int *links,
                         int cap)
{
    int n = put(links, cap, 0, 2 * src), b = dim_base(m, 1);
    int cs = coord(m, src, 1), cd = coord(m, dst, 1);
    if (cs != cd) {
        n = put(links, cap, n, b + 2 * cs);
        if (m->backbone)
            n = put(links, cap, n, m->nlinks - 1);
        n = put(links, cap, n, b + 2 * cd + 1);
    }
    return put(links, cap, n, 2 * dst + 1);
}

int machine_route(const Machine *m, int src, int dst, int *links, int cap)
{
    if (src == dst)
        return 0;
    if (m->ndims == 1 && m->dim[0].kind == DIM_SWITCH && !m->dim[0].shared &&
        !machine_has_medium(m)) { /* one switch (full): up, then down */
        int n = put(links, cap, 0, 2 * machine_place(m, src));
        return put(links, cap, n, 2 * machine_place(m, dst) + 1);
    }
    src = machine_place(m, src), dst = machine_place(m, dst);
    if (machine_has_medium(m)) {
        int n = put(links, cap, 0, 2 * src);
        n = put(links, cap, n, 2 * m->nranks);
        return put(links, cap, n, 2 * dst + 1);
    }
    if (m->kind == MACHINE_FATTREE) /* up to the leaf, across, down */
        return route_fattree(m, src, dst, links, cap);
    /* a shared dimension's ports join every rank at a coordinate: a
       message that crosses it goes there alone */
    for (int i = 0; i < m->ndims; i++)
        if (m->dim[i].shared && coord(m, src, i) != coord(m, dst, i)) {
            int cur = src;
            return route_dim(m, i, &cur, coord(m, dst, i), links, cap, 0);
        }
    int cur = src, n = 0;
    for (int i = 0; i < m->ndims; i++)
        if (coord(m, cur, i) != coord(m, dst, i))
            n = route_dim(m, i, &cur, coord(m, dst, i), links, cap, n);
    return n;
}

int machine_max_hops(const Machine *m)
{
    if (machine_has_medium(m))
        return 3;
    int n = m->backbone > 0;
    for (int i = 0; i < m->ndims; i++) {
        const MachineDim *d = &m->dim[i];
        n += d->kind == DIM_RING ? (m->ndown ? d->size - 1 : d->size / 2)
             : d->kind == DIM_MESH ? d->size - 1
             : d->kind == DIM_FULL ? (m->ndown ? 2 : 1) : 2;
    }
    return n;
}

static bool switch_link(const Machine *m, int i, int out)
{
    if (machine_has_medium(m) || i < 0 || i >= m->nlinks)
        return false;
    MachineLink l = machine_link(m, i);
    return m->dim[l.dim].kind == DIM_SWITCH && m->dim[l.dim].reduce &&
           (out ? l.from < 0 : l.to < 0);
}

bool machine_link_multicasts(const Machine *m, int i) { return switch_link(m, i, 0); }

bool machine_shift_invariant(const Machine *m)
{
    return m->nfix == 0 && m->ndims == 1 && m->dim[0].size == m->nranks &&
           m->dim[0].kind != DIM_MESH;
}

bool machine_links_move(const Machine *m)
{
    return m->nfix == 0 && m->ndims == 1 && m->dim[0].size == m->nranks &&
           m->dim[0].kind != DIM_FULL;
}

bool machine_link_reduces(const Machine *m, int i) { return switch_link(m, i, 1); }

/* ------------------------------------------------------------ in words */

size_t machine_dims_text(const Machine *m, char *buf, size_t len)
{
    size_t n = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < m->ndims && n < len; i++) {
        int sz = m->kind == MACHINE_NODES || m->kind == MACHINE_FATTREE
                     ? m->dim[m->ndims - 1 - i].size
                                          : m->dim[i].size;
        n += (size_t)snprintf(buf + n, len - n, "%s%d", i ? "x" : "", sz);
    }
    return n < len ? n : len ? len - 1 : 0;
}

/* ", link r5>r6 down", ", link r5>r6 4x slower", ", rank 3 4x slower" */
static size_t fix_words(const Machine *m, const MachineFix *x, char *buf,
                        size_t len)
{
    char name[48];
    int n;
    if (x->link >= 0)
        machine_link_name(m, x->link, name, sizeof name);
    if (x->link < 0 && x->to >= 0)
        n = snprintf(buf, len, ", messages r%d>r%d %gx slower", x->rank,
                     x->to, x->slow);
    else if (x->link < 0)
        n = snprintf(buf, len, ", rank %d %gx slower", x->rank, x->slow);
    else if (x->down)
        n = snprintf(buf, len, ", link %s down", name);
    else
        n = snprintf(buf, len, ", link %s %gx slower", name, x->slow);
    return n > 0 ? (size_t)n : 0;
}

static size_t shape_text(const Machine *m, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "%s ", machine_kind_name(m->kind));
    if (n < len)
        n += machine_dims_text(m, buf + n, len - n);
    if (m->kind == MACHINE_NODES && m->dim[1].shared && n < len)
        n += (size_t)snprintf(buf + n, len - n, ", a NIC per node");
    double over = m->kind == MACHINE_FATTREE && m->cls[0].beta > 0
                      ? m->dim[0].size * m->cls[1].beta / m->cls[0].beta : 1;
    if (over != 1 && n < len)
        n += (size_t)snprintf(buf + n, len - n, ", %.3g:1 oversubscribed",
                              over);
    if (m->cyclic && n < len)
        n += (size_t)snprintf(buf + n, len - n, ", ranks dealt cyclically");
    for (int i = 0; i < m->ndims && n < len; i++)
        if (m->dim[i].reduce) {
            n += (size_t)snprintf(buf + n, len - n, ", multicasting");
            break;
        }
    for (int f = 0; f < m->nfix && n < len; f++)
        n += fix_words(m, &m->fix[f], buf + n, len - n);
    return n < len ? n : len;
}

/* " (one memory: a step 1.5 us, 2.5 TB/s of traffic, ...)" */
static void describe_memory(const Machine *m, char *buf, size_t len)
{
    const MemLevel *ml = &m->mem;
    size_t n = (size_t)snprintf(buf, len, " (one memory: a step %g us",
                                ml->step * 1e6);
    if (ml->call > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, ", a call %g us more",
                              ml->call * 1e6);
    if (n < len)
        n += (size_t)snprintf(buf + n, len - n, ", %g GB/s of traffic",
                              1 / ml->beta_mem / 1e9);
    if (ml->cache > 0 && ml->beta_cache > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, ", %g MB of cache at %g GB/s",
                              ml->cache / 1e6, 1 / ml->beta_cache / 1e9);
    if (!ml->shared_reads && n < len)
        n += (size_t)snprintf(buf + n, len - n, ", every read apart");
    if (m->gamma > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, ", ranks reduce at %g GB/s",
                              1 / m->gamma / 1e9);
    if (n < len)
        snprintf(buf + n, len - n, ")");
}

void machine_describe(const Machine *m, bool shape_only, char *buf,
                      size_t len)
{
    if (!len)
        return;
    size_t n = shape_text(m, buf, len);
    if (machine_is_memory(m) && !shape_only && n < len) {
        describe_memory(m, buf + n, len - n);
        return;
    }
    for (int c = 0; c < m->ncls && !shape_only && n < len; c++) {
        const LinkClass *k = &m->cls[c];
        double w = k->lanes > 1 ? k->lanes : 1; /* a lane's */
        n += (size_t)snprintf(buf + n, len - n, "%s%s:", c ? "; " : " (",
                              k->name);
        if (w > 1 && n < len)
            n += (size_t)snprintf(buf + n, len - n, " %.3g links of", w);
        if (k->alpha > 0 && n < len)
            n += (size_t)snprintf(buf + n, len - n, " alpha %g us",
                                  k->alpha * w * 1e6);
        if (k->beta > 0 && n < len)
            n += (size_t)snprintf(buf + n, len - n, " %g GB/s",
                                  1 / (k->beta * w) / 1e9);
        if (k->lat > 0 && n < len)
            n += (size_t)snprintf(buf + n, len - n, " %g ns per hop",
                                  k->lat * 1e9);
    }
    if (!shape_only && n < len && m->gamma > 0)
        snprintf(buf + n, len - n, "), ranks reduce at %g GB/s", 1 / m->gamma / 1e9);
    else if (!shape_only && n < len)
        snprintf(buf + n, len - n, ")");
}
