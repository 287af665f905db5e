/* machine_file.c - ASTRA-sim's network description, the subset in
 * machine_file.h, without a YAML library. */
#include "core/machine_file.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_TOPO, K_NPUS, K_BW, K_LAT, K_ALPHA, K_LINKS, K_GAMMA, K_PLACE,
       K_NAMES, K_KIND, K_BACKBONE, K_FIX, K_MEMORY, K_STEP, K_CALL, K_CACHE,
       K_CACHE_BW, K_READS, K_COUNT };

static const char *const key_names[K_COUNT] = {
    "topology", "npus_count", "bandwidth", "latency", "collviz_alpha",
    "collviz_links", "collviz_gamma", "collviz_place", "collviz_names",
    "collviz_kind", "collviz_backbone", "collviz_fix", "collviz_memory",
    "collviz_step", "collviz_call", "collviz_cache",
    "collviz_cache_bandwidth", "collviz_reads",
};

/* What the file said, before it becomes a machine. */
typedef struct {
    int n[K_COUNT];                     /* values per key (0: absent) */
    int line[K_COUNT];                  /* where each key was */
    char topo[MACHINE_MAX_DIMS][24];    /* topology names */
    char names[MACHINE_MAX_DIMS][MACHINE_NAME_LEN]; /* class names */
    double num[K_COUNT][MACHINE_MAX_DIMS]; /* numbers of the other keys */
    char fix[MACHINE_MAX_FIXES][64];    /* collviz_fix's items */
} Parsed;

static CvError fail(MachineFileErr *e, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static CvError fail(MachineFileErr *e, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    e->line = line;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return CV_ERR_ARG;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

/* One item of collviz_fix, kept for after the machine is built. */
static CvError parse_fix_item(Parsed *p, const char *item, int line,
                              MachineFileErr *e)
{
    if (p->n[K_FIX] == MACHINE_MAX_FIXES)
        return fail(e, line, "collviz_fix has more than %d items",
                    MACHINE_MAX_FIXES);
    if (!*item || strlen(item) >= sizeof p->fix[0])
        return fail(e, line, "collviz_fix's item '%.40s' is empty or too "
                    "long", item);
    strcpy(p->fix[p->n[K_FIX]++], item);
    return CV_OK;
}

/* One list item (or the scalar) of key k. */
static CvError parse_item(Parsed *p, int k, char *item, int line,
                          MachineFileErr *e)
{
    int i = p->n[k];
    if (k == K_FIX)
        return parse_fix_item(p, item, line, e);
    if (i >= MACHINE_MAX_DIMS)
        return fail(e, line, "%s has more than %d values (collviz takes %d "
                    "dimensions at most)", key_names[k], MACHINE_MAX_DIMS,
                    MACHINE_MAX_DIMS);
    if (!*item)
        return fail(e, line, "%s has an empty value", key_names[k]);
    if (k == K_PLACE) {
        if (strcmp(item, "block") && strcmp(item, "cyclic"))
            return fail(e, line, "collviz_place is block or cyclic, not "
                        "'%.30s'", item);
        p->num[k][i] = !strcmp(item, "cyclic");
    } else if (k == K_MEMORY) {
        if (strcmp(item, "gpu") && strcmp(item, "host"))
            return fail(e, line, "collviz_memory is gpu or host, not "
                        "'%.30s'", item);
        p->num[k][i] = !strcmp(item, "gpu") ? MACHINE_GPU : MACHINE_HOST;
    } else if (k == K_READS) {
        if (strcmp(item, "shared") && strcmp(item, "apart"))
            return fail(e, line, "collviz_reads is shared or apart, not "
                        "'%.30s'", item);
        p->num[k][i] = !strcmp(item, "shared");
    } else if (k == K_TOPO || k == K_NAMES) {
        if (strlen(item) >= (k == K_TOPO ? sizeof p->topo[i]
                                          : sizeof p->names[i]))
            return fail(e, line, "'%.30s' is not a %s", item,
                        k == K_TOPO ? "topology" : "class name");
        strcpy(k == K_TOPO ? p->topo[i] : p->names[i], item);
    } else if (k == K_KIND) {
        int kind = 0;
        while (kind < MACHINE_KIND_COUNT &&
               strcmp(item, machine_kind_name((MachineKind)kind)))
            kind++;
        if (kind == MACHINE_KIND_COUNT || kind == MACHINE_GPU ||
            kind == MACHINE_HOST)
            return fail(e, line, "collviz_kind is a network's kind (full, "
                        "bus, switch, ring, torus, mesh, nodes, fattree, "
                        "dims), not '%.30s'", item);
        p->num[k][i] = kind;
    } else {
        char *end;
        errno = 0;
        double v = strtod(item, &end);
        if (errno == ERANGE && v < 1 && v > -1) /* below the normal range: */
            errno = 0;                          /* a range check says why */
        /* (a cache as large as -T's cache= takes: 1024G) */
        double most = k == K_CACHE ? 1099511627776.0 : 1e12;
        if (*end || errno || !(v >= 0) || v > most)
            return fail(e, line, "%s's value '%.30s' is not a number from 0 "
                        "to %.13g", key_names[k], item, most);
        p->num[k][i] = v;
    }
    p->n[k]++;
    return CV_OK;
}

/* "key: [ a, b ]" or "key: a" on one line. */
static CvError parse_line(Parsed *p, char *s, int line, MachineFileErr *e)
{
    char *hash = strchr(s, '#');
    if (hash)
        *hash = 0;
    s = trim(s);
    if (!*s)
        return CV_OK;
    char *colon = strchr(s, ':');
    if (!colon)
        return fail(e, line, "a line must be 'key: [values]'");
    *colon = 0;
    char *key = trim(s), *val = trim(colon + 1);
    int k = 0;
    while (k < K_COUNT && strcmp(key, key_names[k]))
        k++;
    if (k == K_COUNT)
        return fail(e, line, "unknown key '%.40s' (collviz reads topology, "
                    "npus_count, bandwidth, latency, collviz_alpha, "
                    "collviz_links, collviz_gamma, collviz_place, "
                    "collviz_names, collviz_kind, collviz_backbone, "
                    "collviz_fix; for a memory machine "
                    "collviz_memory, collviz_step, collviz_call, "
                    "collviz_cache, collviz_cache_bandwidth, collviz_reads)",
                    key);
    if (p->n[k] || p->line[k])
        return fail(e, line, "%s is given twice", key_names[k]);
    p->line[k] = line;
    size_t n = strlen(val);
    bool list = n && val[0] == '[';
    if (list && val[n - 1] != ']')
        return fail(e, line, "the list of %s has no closing ']' on its line",
                    key_names[k]);
    if (list)
        val[n - 1] = 0, val++;
    for (char *item = val, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = 0;
        CvError err = parse_item(p, k, trim(item), line, e);
        if (err)
            return err;
        if (!list && next)
            return fail(e, line, "several values of %s need a list: [a, b]",
                        key_names[k]);
    }
    return CV_OK;
}

/* A topology name's dimension: ASTRA-sim's, and collviz's Mesh,
 * ReducingSwitch (NVLS's) and SharedSwitch (one port per coordinate,
 * shared by every rank at it: a NIC shared by a node's GPUs). */
static bool dim_kind(const char *name, MachineDim *d)
{
    static const char *const names[] = {"Ring", "Mesh", "FullyConnected",
                                        "Switch", "ReducingSwitch",
                                        "SharedSwitch"};
    for (int i = 0; i < 6; i++)
        if (!strcmp(name, names[i])) {
            d->kind = i >= 4 ? DIM_SWITCH : (DimKind)i;
            d->reduce = i == 4;
            d->shared = i == 5;
            return true;
        }
    return false;
}

/* Value i of npus_count (a whole number of ranks) and of bandwidth (GB/s
 * `per` what); CV_ERR_ARG with the sentence of the one out of range. */
static CvError size_and_bw(const Parsed *p, int i, const char *per,
                           MachineFileErr *e)
{
    double np = p->num[K_NPUS][i], bw = p->num[K_BW][i];
    if (np < 1 || np > MACHINE_MAX_RANKS || np != (int)np)
        return fail(e, p->line[K_NPUS], "npus_count must hold whole numbers "
                    "from 1 to %d", MACHINE_MAX_RANKS);
    if (!(bw >= 1e-6 && bw <= 1e6))
        return fail(e, p->line[K_BW], "bandwidth must be from 1e-06 to "
                    "1e+06 GB/s %s", per);
    return CV_OK;
}

/* A memory machine (collviz_memory): npus_count and bandwidth (its
 * traffic's rate) of one value, its own keys, none of a network's. */
static CvError build_memory(const Parsed *p, double gamma, Machine *m,
                            MachineFileErr *e)
{
    static const int net[] = {K_TOPO, K_LAT, K_ALPHA, K_LINKS, K_PLACE,
                              K_NAMES, K_KIND, K_BACKBONE, K_FIX};
    for (size_t i = 0; i < sizeof net / sizeof *net; i++)
        if (p->line[net[i]])
            return fail(e, p->line[net[i]], "a memory machine has no %s",
                        key_names[net[i]]);
    for (int k = K_NPUS; k <= K_BW; k++)
        if (!p->n[k])
            return fail(e, 0, "the file has no %s line", key_names[k]);
    for (int k = K_NPUS; k < K_COUNT; k++)
        if (p->n[k] > 1)
            return fail(e, p->line[k], "%s takes one value", key_names[k]);
    double np = p->num[K_NPUS][0], bw = p->num[K_BW][0];
    if (size_and_bw(p, 0, "of memory traffic", e))
        return CV_ERR_ARG;
    if (p->n[K_CACHE] && !(p->num[K_CACHE][0] >= 1))
        return fail(e, p->line[K_CACHE], "collviz_cache must be a size of "
                    "bytes above 0");
    if (p->n[K_CACHE] != p->n[K_CACHE_BW])
        return fail(e, p->line[p->n[K_CACHE] ? K_CACHE : K_CACHE_BW],
                    "collviz_cache and collviz_cache_bandwidth go together");
    double cbw = p->num[K_CACHE_BW][0];
    if (p->n[K_CACHE_BW] && !(cbw >= 1e-6 && cbw <= 1e6))
        return fail(e, p->line[K_CACHE_BW], "collviz_cache_bandwidth must be "
                    "from 1e-06 to 1e+06 GB/s");
    if (p->num[K_STEP][0] > 1e6 || p->num[K_CALL][0] > 1e6)
        return fail(e, p->line[p->num[K_STEP][0] > 1e6 ? K_STEP : K_CALL],
                    "a step or a call takes at most 1 s (1e6 us)");
    if (p->n[K_GAMMA] && !(p->num[K_GAMMA][0] >= 1e-6 &&
                           p->num[K_GAMMA][0] <= 1e6))
        return fail(e, p->line[K_GAMMA], "collviz_gamma must be from 1e-06 "
                    "to 1e+06 GB/s");
    MachineKind kind = (MachineKind)p->num[K_MEMORY][0];
    MemLevel ml = machine_mem_default(kind);
    ml.beta_mem = 1 / (bw * 1e9);
    ml.step = p->n[K_STEP] ? p->num[K_STEP][0] * 1e-6 : ml.step;
    ml.call = p->n[K_CALL] ? p->num[K_CALL][0] * 1e-6 : ml.call;
    ml.cache = p->n[K_CACHE] ? p->num[K_CACHE][0] : ml.cache;
    ml.beta_cache = p->n[K_CACHE_BW] ? 1 / (cbw * 1e9) : ml.beta_cache;
    ml.shared_reads = p->n[K_READS] ? p->num[K_READS][0] != 0
                                    : ml.shared_reads;
    CvError err = machine_memory(m, kind, (int)np, &ml,
                                 p->n[K_GAMMA] ? 1 / (p->num[K_GAMMA][0] * 1e9)
                                               : 0);
    (void)gamma; /* a memory machine's reducing is its traffic */
    return err ? fail(e, 0, "the memory machine could not be built") : CV_OK;
}

/* Dimension i of the file into m: its kind, size and class. */
static CvError build_dim(const Parsed *p, int i, Machine *m,
                         MachineFileErr *e)
{
    static const char *const axis[MACHINE_MAX_DIMS] = {"x", "y", "z", "w"};
    MachineDim *d = &m->dim[i];
    if (!dim_kind(p->topo[i], d))
        return fail(e, p->line[K_TOPO], "'%s' is not a topology collviz "
                    "knows (Ring, FullyConnected, Switch; Mesh, "
                    "ReducingSwitch, SharedSwitch)", p->topo[i]);
    double np = p->num[K_NPUS][i], bw = p->num[K_BW][i];
    if (size_and_bw(p, i, "per link per direction", e))
        return CV_ERR_ARG;
    if (p->num[K_LAT][i] > 1e9 || p->num[K_ALPHA][i] > 1e6)
        return fail(e, p->line[p->num[K_LAT][i] > 1e9 ? K_LAT : K_ALPHA],
                    "a latency is at most 1 s (1e9 ns), an alpha 1 s "
                    "(1e6 us)");
    double w = p->n[K_LINKS] ? p->num[K_LINKS][i] : 1; /* lanes */
    if (!(w >= 1 && w <= 1024))
        return fail(e, p->line[K_LINKS], "collviz_links must be from 1 to "
                    "1024 parallel links");
    d->size = (int)np, d->cls = i;
    LinkClass *c = &m->cls[i];
    snprintf(c->name, sizeof c->name, "%s", p->n[K_NAMES] ? p->names[i]
                                           : m->ndims == 1 ? "link" : axis[i]);
    c->beta = 1 / (bw * 1e9) / w; /* a lane's, over the lanes */
    c->lat = p->num[K_LAT][i] * 1e-9;
    c->alpha = p->num[K_ALPHA][i] * 1e-6 / w;
    c->lanes = w;
    return CV_OK;
}

/* Whether the dimensions of m are those its kind k builds. */
static bool kind_fits(const Machine *m, MachineKind k)
{
    const MachineDim *d = m->dim;
    bool sw = d[0].kind == DIM_SWITCH && !d[0].shared;
    switch (k) {
    case MACHINE_FULL:
    case MACHINE_BUS: return m->ndims == 1 && sw && !d[0].reduce;
    case MACHINE_SWITCH: return m->ndims == 1 && sw;
    case MACHINE_RING: return m->ndims == 1 && d[0].kind == DIM_RING;
    case MACHINE_TORUS:
    case MACHINE_MESH:
        for (int i = 0; i < m->ndims; i++)
            if (d[i].kind != (k == MACHINE_MESH ? DIM_MESH : DIM_RING))
                return false;
        return true;
    case MACHINE_NODES:
        return m->ndims == 2 && sw && !d[0].reduce &&
               d[1].kind == DIM_SWITCH && !d[1].reduce;
    case MACHINE_FATTREE:
        return m->ndims == 2 && sw && !d[0].reduce &&
               d[1].kind == DIM_SWITCH && d[1].shared && !d[1].reduce;
    case MACHINE_DIMS: return true;
    case MACHINE_GPU:
    case MACHINE_HOST:
    case MACHINE_KIND_COUNT: break;
    }
    return false;
}

/* collviz_kind (a bus: its port's alpha, its medium's rate) and
 * collviz_fix on the machine built. */
static CvError finish_kind(const Parsed *p, Machine *m, MachineFileErr *e)
{
    MachineKind k = p->n[K_KIND] ? (MachineKind)p->num[K_KIND][0]
                                 : MACHINE_DIMS;
    char why[240];
    if (!kind_fits(m, k))
        return fail(e, p->line[K_KIND], "collviz_kind %s does not go with "
                    "the topology the file gives", machine_kind_name(k));
    m->kind = k;
    if (k == MACHINE_BUS) {
        LinkClass c = m->cls[0];
        machine_bus(m, m->nranks, c.alpha, c.beta, m->gamma);
        m->cls[0].lat = m->cls[1].lat = c.lat;
    }
    double bb = p->num[K_BACKBONE][0];
    if (p->n[K_BACKBONE] && (k != MACHINE_FATTREE || !(bb >= 1e-6) ||
                             machine_backbone(m, 1 / (bb * 1e9))))
        return fail(e, p->line[K_BACKBONE], "collviz_backbone goes with "
                    "collviz_kind: fattree, from 1e-06 GB/s");
    for (int f = 0; f < p->n[K_FIX]; f++)
        if (machine_fix_parse(m, p->fix[f], why, sizeof why))
            return fail(e, p->line[K_FIX], "%s", why);
    if (machine_fix_why(m, why, sizeof why))
        return fail(e, p->line[K_FIX], "%s", why);
    return CV_OK;
}

/* The machine the keys describe. */
static CvError build(const Parsed *p, double gamma, Machine *m,
                     MachineFileErr *e)
{
    if (p->n[K_MEMORY])
        return build_memory(p, gamma, m, e);
    for (int k = K_STEP; k < K_COUNT; k++)
        if (p->line[k])
            return fail(e, p->line[k], "%s goes with collviz_memory",
                        key_names[k]);
    int nd = p->n[K_TOPO];
    if (!nd)
        return fail(e, 0, "the file has no topology line");
    for (int k = K_NPUS; k <= K_NAMES; k++) {
        if (k <= K_LAT && !p->n[k])
            return fail(e, 0, "the file has no %s line", key_names[k]);
        if (k != K_GAMMA && k != K_PLACE && p->n[k] && p->n[k] != nd)
            return fail(e, p->line[k], "%s has %d value%s but topology has %d",
                        key_names[k], p->n[k], p->n[k] == 1 ? "" : "s", nd);
    }
    for (int k = K_GAMMA; k <= K_BACKBONE; k++)
        if (k != K_NAMES && p->n[k] > 1)
            return fail(e, p->line[k], "%s takes one value", key_names[k]);
    *m = (Machine){.kind = MACHINE_DIMS, .ndims = nd, .ncls = nd,
                   .gamma = p->n[K_GAMMA] ? 1 / (p->num[K_GAMMA][0] * 1e9)
                                          : gamma};
    if (p->n[K_GAMMA] && !(p->num[K_GAMMA][0] >= 1e-6 &&
                           p->num[K_GAMMA][0] <= 1e6))
        return fail(e, p->line[K_GAMMA], "collviz_gamma must be from 1e-06 "
                    "to 1e+06 GB/s");
    for (int i = 0; i < nd; i++)
        if (build_dim(p, i, m, e))
            return CV_ERR_ARG;
    m->cyclic = p->n[K_PLACE] && p->num[K_PLACE][0] > 0;
    CvError err = machine_finish(m);
    if (err == CV_ERR_LIMIT)
        return fail(e, p->line[K_TOPO], "the machine has more than %d links "
                    "(a FullyConnected dimension of d has p * d)",
                    MACHINE_MAX_LINKS);
    if (err)
        return fail(e, p->line[K_NPUS], "npus_count multiplies to more than "
                    "%d ranks", MACHINE_MAX_RANKS);
    return finish_kind(p, m, e);
}

CvError machine_file_parse(const char *text, size_t len, double gamma,
                           Machine *m, MachineFileErr *e)
{
    Parsed p = {0};
    *e = (MachineFileErr){0};
    int line = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && text[j] != '\n')
            j++;
        line++;
        char buf[512];
        if (j - i >= sizeof buf)
            return fail(e, line, "the line is longer than %zu bytes",
                        sizeof buf - 1);
        memcpy(buf, text + i, j - i);
        buf[j - i] = 0;
        if (memchr(buf, 0, j - i))
            return fail(e, line, "the line holds a NUL byte");
        CvError err = parse_line(&p, buf, line, e);
        if (err)
            return err;
        i = j + 1;
    }
    return build(&p, gamma, m, e);
}

/* ---------------------------------------------------------------- write */

static size_t put(char *buf, size_t len, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t put(char *buf, size_t len, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, fmt, ap);
    va_end(ap);
    return n + (k > 0 ? (size_t)k : 0);
}

static const char *dim_text(const MachineDim *d)
{
    if (d->kind == DIM_SWITCH && d->reduce)
        return "ReducingSwitch";
    return d->kind == DIM_SWITCH && d->shared ? "SharedSwitch"
                                              : dim_kind_name(d->kind);
}

/* A memory machine's keys (a measured curve is not written: its two
 * rates, the cache's where there is one, stand for it). */
static CvError write_memory(const Machine *m, char *buf, size_t len,
                            size_t *need)
{
    const MemLevel *ml = &m->mem;
    char desc[160];
    machine_describe(m, true, desc, sizeof desc);
    size_t n = put(buf, len, 0, "# %s, written by collviz topo\n", desc);
    n = put(buf, len, n, "collviz_memory: %s\nnpus_count: [ %d ]\n"
            "bandwidth: [ %.17g ]  # GB/s of memory traffic\n"
            "collviz_step: %.17g  # us\ncollviz_call: %.17g  # us\n",
            machine_kind_name(m->kind), m->nranks, 1 / ml->beta_mem / 1e9,
            ml->step * 1e6, ml->call * 1e6);
    if (ml->cache > 0 && ml->beta_cache > 0)
        n = put(buf, len, n, "collviz_cache: %.17g  # bytes\n"
                "collviz_cache_bandwidth: %.17g  # GB/s\n", ml->cache,
                1 / ml->beta_cache / 1e9);
    if (m->gamma > 0)
        n = put(buf, len, n, "collviz_gamma: %.17g  # GB/s\n",
                1 / m->gamma / 1e9);
    n = put(buf, len, n, "collviz_reads: %s\n",
            ml->shared_reads ? "shared" : "apart");
    *need = n;
    return CV_OK;
}

/* The parallel links of dimension i's class (a bus's: one). */
static double lanes(const Machine *m, int i)
{
    double w = m->cls[m->dim[i].cls].lanes;
    return m->kind != MACHINE_BUS && w > 1 ? w : 1;
}

/* collviz_kind, collviz_backbone and collviz_fix from n on; the length
 * then. */
static size_t write_kind(const Machine *m, char *buf, size_t len, size_t n)
{
    char fix[96];
    if (m->kind != MACHINE_DIMS)
        n = put(buf, len, n, "collviz_kind: %s\n", machine_kind_name(m->kind));
    if (m->backbone)
        n = put(buf, len, n, "collviz_backbone: %.17g  # GB/s\n",
                1 / m->cls[m->backbone].beta / 1e9);
    for (int f = 0; f < m->nfix; f++) {
        machine_fix_text(m, f, fix, sizeof fix);
        n = put(buf, len, n, "%s%s%s", f ? ", " : "collviz_fix: [ ", fix,
                f + 1 == m->nfix ? " ]\n" : "");
    }
    return n;
}

CvError machine_file_write(const Machine *m, char *buf, size_t len,
                           size_t *need)
{
    char desc[160];
    *need = 0;
    if (machine_is_memory(m))
        return write_memory(m, buf, len, need);
    machine_describe(m, true, desc, sizeof desc);
    size_t n = put(buf, len, 0, "# %s, written by collviz topo\n", desc);
    const char *sep = "";
    n = put(buf, len, n, "topology: [ ");
    for (int i = 0; i < m->ndims; i++, sep = ", ")
        n = put(buf, len, n, "%s%s", sep, dim_text(&m->dim[i]));
    n = put(buf, len, n, " ]\nnpus_count: [ ");
    sep = "";
    for (int i = 0; i < m->ndims; i++, sep = ", ")
        n = put(buf, len, n, "%s%d", sep, m->dim[i].size);
    n = put(buf, len, n, " ]\nbandwidth: [ ");
    sep = "";
    for (int i = 0; i < m->ndims; i++, sep = ", ") /* a lane's */
        n = put(buf, len, n, "%s%.17g", sep, /* a bus's: its medium's */
                1 / m->cls[m->kind == MACHINE_BUS ? 1 : m->dim[i].cls].beta
                    / lanes(m, i) / 1e9);
    n = put(buf, len, n, " ]  # GB/s\nlatency: [ ");
    sep = "";
    for (int i = 0; i < m->ndims; i++, sep = ", ")
        n = put(buf, len, n, "%s%.17g", sep, m->cls[m->dim[i].cls].lat * 1e9);
    n = put(buf, len, n, " ]  # ns\n# collviz's own keys\ncollviz_alpha: [ ");
    sep = "";
    for (int i = 0; i < m->ndims; i++, sep = ", ")
        n = put(buf, len, n, "%s%.17g", sep,
                m->cls[m->dim[i].cls].alpha * lanes(m, i) * 1e6);
    n = put(buf, len, n, " ]  # us\ncollviz_links: [ ");
    sep = "";
    for (int i = 0; i < m->ndims; i++, sep = ", ")
        n = put(buf, len, n, "%s%.17g", sep, lanes(m, i));
    n = put(buf, len, n, " ]  # parallel links\ncollviz_names: [ ");
    sep = "";
    for (int i = 0; i < m->ndims; i++, sep = ", ")
        n = put(buf, len, n, "%s%s", sep, m->cls[m->dim[i].cls].name);
    n = put(buf, len, n, " ]\n");
    if (m->gamma > 0)
        n = put(buf, len, n, "collviz_gamma: %.17g  # GB/s\n",
                1 / m->gamma / 1e9);
    if (m->cyclic)
        n = put(buf, len, n, "collviz_place: cyclic\n");
    *need = write_kind(m, buf, len, n);
    return CV_OK;
}
