/* spec.c - `-T`: a machine from a shorthand or a file. */
#include "scene/spec.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/machine_file.h"
#include "store/store.h"

#define SPEC_MAX 256          /* bytes of a shorthand */
#define SPEC_MAX_OPTS 32      /* options of a shorthand */
#define FILE_MAX (64 << 10)   /* bytes of a machine file */

/* ------------------------------------------------------------- a file */

static int kind_of(const char *s, MachineKind *k);

/* A path: a '/' or a YAML ending, unless it starts with a machine's kind
 * (-T torus:4x4,bw=5GB/s). */
static bool is_file_spec(const char *s)
{
    char kind[16];
    size_t n = strlen(s), k = strcspn(s, ":,");
    MachineKind mk;
    if (k < sizeof kind) {
        memcpy(kind, s, k), kind[k] = 0;
        if (!kind_of(kind, &mk))
            return false;
    }
    return strchr(s, '/') || (n > 4 && !strcmp(s + n - 4, ".yml")) ||
           (n > 5 && !strcmp(s + n - 5, ".yaml"));
}

bool spec_is_file(const char *spec) { return is_file_spec(spec); }

static int read_machine_file(const char *path, const SpecModel *cm,
                             Machine *out, CliErr *e)
{
    int missing = 0;
    char why[CV_WHY_LEN], *text;
    size_t n;
    CvError re = store_read(path, FILE_MAX, &text, &n, &missing, why,
                            sizeof why);
    if (re == CV_ERR_LIMIT)
        return cli_fail(e, "the machine file %s is larger than %d KiB", path,
                        FILE_MAX >> 10);
    if (re)
        return missing ? cli_fail(e, "the machine file %s does not exist", path)
                       : cli_fail(e, "the machine file %s: %s", path, why);
    MachineFileErr fe;
    CvError err = machine_file_parse(text, n, cm->m.gamma, out, &fe);
    free(text);
    if (err && fe.line)
        return cli_fail(e, "%s:%d: %s", path, fe.line, fe.msg);
    if (err)
        return cli_fail(e, "%s: %s", path, fe.msg);
    return 0;
}

/* ---------------------------------------------------------- a shorthand */

/* The shape "AxBxC" into sizes; returns the count, -1 when it is not. */
static int parse_shape(const char *s, int *sizes)
{
    int n = 0;
    for (const char *c = s; *c;) {
        long v;
        char num[16];
        size_t k = strcspn(c, "x");
        if (n == MACHINE_MAX_DIMS || k == 0 || k >= sizeof num)
            return -1;
        memcpy(num, c, k);
        num[k] = 0;
        if (!cli_whole_number(num, &v) || v < 1 || v > MACHINE_MAX_RANKS)
            return -1;
        sizes[n++] = (int)v;
        c += k;
        if (*c == 'x' && !*++c)
            return -1;
    }
    return n;
}

/* The shape at the start of s (up to a ','), as parse_shape; -1 when it
 * is not one. */
static int parse_shape_prefix(const char *s, int *sizes)
{
    char buf[64];
    size_t n = strcspn(s, ",");
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    return parse_shape(buf, sizes);
}

static int kind_of(const char *s, MachineKind *k)
{
    for (int i = 0; i < MACHINE_KIND_COUNT; i++)
        if (i != MACHINE_DIMS && !strcmp(s, machine_kind_name((MachineKind)i))) {
            *k = (MachineKind)i;
            return 0;
        }
    return -1;
}

/* A memory machine of p ranks: its kind's level, where --alpha is a
 * step's start, --beta the traffic's rate and --gamma what reducing costs
 * beyond its traffic (none unless given). */
static CvError memory_kind(MachineKind k, int p, const SpecModel *cm,
                           Machine *out)
{
    MemLevel ml = machine_mem_default(k);
    if (cm->given[0])
        ml.step = cm->m.alpha;
    if (cm->given[1])
        ml.beta_mem = cm->m.beta;
    return machine_memory(out, k, p, &ml, cm->given[2] ? cm->m.gamma : 0);
}

/* The options of -T that shape the machine, before its parameters. */
typedef struct {
    bool reduce;       /* reduce: NVLS's switch */
    bool shared;       /* nic=shared: a NIC per node */
    bool cyclic;       /* place=cyclic */
    const char *intra; /* intra=nvlink|pcie, or NULL */
    double over;       /* over=R: a fat tree's oversubscription (0: none
                          given) */
    double backbone;   /* backbone=GB/s: a fat tree's core's s/B (0:
                          non-blocking) */
} ShapeOpts;

/* The sizes of kind k's shape (none: p ranks) into sizes, checked with
 * the options that go with k: how many, or -1 with the sentence in e. */
static int shape_sizes(MachineKind k, const char *shape, int p,
                       const ShapeOpts *so, int *sizes, CliErr *e)
{
    int n = 1;
    const char *kn = machine_kind_name(k);
    bool grid = k == MACHINE_TORUS || k == MACHINE_MESH;
    bool two = k == MACHINE_NODES || k == MACHINE_FATTREE;
    if (shape && (n = parse_shape(shape, sizes)) <= 0)
        return cli_fail(e, "'%s' is not a shape: give 1 to %d sizes from 1 to "
                        "%d joined by x, e.g. 4x4", shape, MACHINE_MAX_DIMS,
                        MACHINE_MAX_RANKS);
    if (!shape && (grid || two))
        return cli_fail(e, "%s needs its shape, e.g. %s:%s", kn, kn,
                        k == MACHINE_NODES ? "2x4 (2 nodes of 4 GPUs)"
                        : two ? "4x8 (4 leaves of 8 ranks)" : "4x4");
    if (!shape && p <= 0)
        return cli_fail(e, "%s needs its rank count: give -p or %s:8", kn, kn);
    if (!shape)
        sizes[0] = p;
    if (two && n != 2)
        return cli_fail(e, k == MACHINE_NODES
                               ? "nodes takes GxL: G nodes of L GPUs, e.g. "
                                 "nodes:2x4"
                               : "fattree takes GxL: G leaves of L ranks, "
                                 "e.g. fattree:4x8");
    if ((so->over > 0 || so->backbone > 0) && k != MACHINE_FATTREE)
        return cli_fail(e, "%s goes with fattree",
                        so->over > 0 ? "over=" : "backbone=");
    if (k == MACHINE_FATTREE && so->over > sizes[1])
        return cli_fail(e, "over=%g leaves a leaf of %d ranks less than one "
                        "uplink: give at most %d", so->over, sizes[1],
                        sizes[1]);
    if (!grid && !two && n != 1)
        return cli_fail(e, "%s takes one number, its ranks, e.g. %s:8", kn, kn);
    if (so->reduce && k != MACHINE_SWITCH)
        return cli_fail(e, "only a switch reduces: reduce goes with switch");
    if (so->shared && k != MACHINE_NODES)
        return cli_fail(e, "nic= goes with nodes");
    long long prod = 1;
    for (int i = 0; i < n; i++)
        prod *= sizes[i];
    if (prod > MACHINE_MAX_RANKS)
        return cli_fail(e, "the machine has %lld ranks, more than the %d "
                        "collviz can describe", prod, MACHINE_MAX_RANKS);
    return n;
}

/* The shape part: dimensions by kind. */
static int build_kind(MachineKind k, const char *shape, int p,
                      const ShapeOpts *so, const SpecModel *cm, Machine *out,
                      CliErr *e)
{
    int sizes[MACHINE_MAX_DIMS], n = shape_sizes(k, shape, p, so, sizes, e);
    const ModelParams *mp = &cm->m;
    const char *kn = machine_kind_name(k);
    if (n < 0)
        return -1;
    CvError err;
    switch (k) {
    case MACHINE_FULL: err = machine_full(out, sizes[0], mp->alpha, mp->beta, mp->gamma); break;
    case MACHINE_BUS: err = machine_bus(out, sizes[0], mp->alpha, mp->beta, mp->gamma); break;
    case MACHINE_NODES:
        err = machine_nodes(out, sizes[0], sizes[1], so->shared, mp->gamma);
        break;
    case MACHINE_FATTREE:
        err = machine_fattree(out, sizes[0], sizes[1],
                              so->over > 0 ? so->over : 1, mp->alpha,
                              mp->beta, mp->gamma);
        if (!err && so->backbone > 0)
            err = machine_backbone(out, so->backbone);
        break;
    case MACHINE_GPU:
    case MACHINE_HOST: err = memory_kind(k, sizes[0], cm, out); break;
    case MACHINE_SWITCH:
    case MACHINE_RING:
    case MACHINE_TORUS:
    case MACHINE_MESH:
        err = machine_grid(out, k, n, sizes, so->reduce, mp->alpha, mp->beta,
                           mp->gamma);
        break;
    case MACHINE_DIMS:
    case MACHINE_KIND_COUNT:
        return cli_fail(e, "'%s' is not a machine", kn);
    }
    if (err)
        return cli_fail(e, "the machine %s could not be built: %s", kn,
                        cv_strerror(err));
    return 0;
}

/* One "key=value" of a memory machine's level (key[0 .. klen)). */
static int set_mem_param(Machine *out, const char *key, size_t klen,
                         const char *val, CliErr *e)
{
    static const char *const keys[] = {"step", "call", "bw", "cache",
                                       "cachebw", "gamma", "reads"};
    MemLevel *ml = &out->mem;
    char what[16];
    int which = -1;
    for (int i = 0; i < (int)(sizeof keys / sizeof *keys); i++)
        if (strlen(keys[i]) == klen && !strncmp(key, keys[i], klen))
            which = i;
    if (which < 0)
        return cli_fail(e, "'%.*s' is not an option of a memory machine: "
                        "step=, call=, bw=, cache=, cachebw=, gamma=, "
                        "reads=shared|apart", (int)klen, key);
    snprintf(what, sizeof what, "%s", keys[which]);
    double v;
    unsigned long long sz;
    switch (which) {
    case 0: case 1:
        if (cli_parse_time(what, val, &v, e))
            return -1;
        *(which ? &ml->call : &ml->step) = v;
        return 0;
    case 2: case 4: case 5:
        if (cli_parse_bw(what, val, &v, e))
            return -1;
        *(which == 2 ? &ml->beta_mem : which == 4 ? &ml->beta_cache
                                                  : &out->gamma) = v;
        if (which == 2)
            out->cls[1].beta = v;
        return 0;
    case 3:
        if (cli_parse_size(what, val, &sz, e))
            return -1;
        ml->cache = (double)sz;
        return 0;
    default:
        if (strcmp(val, "shared") && strcmp(val, "apart"))
            return cli_fail(e, "reads= takes shared (a range several "
                            "transfers of a step read is read once) or "
                            "apart, not '%s'", val);
        ml->shared_reads = !strcmp(val, "shared");
        return 0;
    }
}

/* The sentence for a link class out does not have, naming those it has. */
static int no_class(const Machine *out, const char *cls, CliErr *e)
{
    char names[128] = "";
    for (int i = 0; i < out->ncls; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                 i ? ", " : "", out->cls[i].name);
    return cli_fail(e, "the machine has no link class '%s' (it has %s)", cls,
                    names);
}

/* links=K: parallel links, a whole number from 1 to 1024. */
static int parse_links(const char *what, const char *val, double *v,
                       CliErr *e)
{
    char *end;
    long k = strtol(val, &end, 10);
    if (end == val || *end || k < 1 || k > 1024)
        return cli_fail(e, "%s takes the parallel links, a whole number from "
                        "1 to 1024, not '%s'", what, val);
    *v = (double)k;
    return 0;
}

/* Parameter `which` (alpha, bw, lat, links) = v on class c of out, or
 * without a class (c < 0) on every one but a bus's medium (no alpha),
 * its ports (no beta) and a fat tree's core (its own rate). A class of
 * lanes takes a lane's alpha and bw; links= keeps them. */
static void set_classes(Machine *out, int c, int which, double v)
{
    for (int i = 0; i < out->ncls; i++) {
        LinkClass *k = &out->cls[i];
        bool bus = out->kind == MACHINE_BUS && c < 0;
        double w = k->lanes > 1 ? k->lanes : 1;
        if ((c >= 0 && i != c) ||
            (c < 0 && out->backbone && i == out->backbone))
            continue;
        if (which == 0 && !(bus && i == 1))
            k->alpha = v / w;
        else if (which == 1 && !(bus && i == 0))
            k->beta = v / w;
        else if (which == 2)
            k->lat = v;
        else if (which == 3)
            k->alpha *= w / v, k->beta *= w / v, k->lanes = v;
    }
}

/* One "[CLASS.]key=value" option applied to out. */
static int set_param(Machine *out, const char *opt, CliErr *e)
{
    char cls[MACHINE_NAME_LEN] = "";
    const char *eq = strchr(opt, '='), *dot = strchr(opt, '.');
    if (dot && dot > eq)
        dot = NULL;
    if (dot) {
        if ((size_t)(dot - opt) >= sizeof cls)
            return cli_fail(e, "'%s' names no link class of this machine", opt);
        memcpy(cls, opt, (size_t)(dot - opt));
        cls[dot - opt] = 0;
    }
    const char *key = dot ? dot + 1 : opt, *val = eq + 1;
    size_t klen = (size_t)(eq - key);
    double v;
    if (machine_is_memory(out) && dot)
        return cli_fail(e, "a memory machine has no link classes: '%.*s' "
                        "names one", (int)(eq - opt), opt);
    if (machine_is_memory(out))
        return set_mem_param(out, key, klen, val, e);
    if (klen == 5 && !strncmp(key, "gamma", 5) && !dot) {
        if (cli_parse_bw("gamma", val, &v, e))
            return -1;
        out->gamma = v;
        return 0;
    }
    int which = klen == 5 && !strncmp(key, "alpha", 5) ? 0
                : klen == 2 && !strncmp(key, "bw", 2)   ? 1
                : klen == 3 && !strncmp(key, "lat", 3)  ? 2
                : klen == 5 && !strncmp(key, "links", 5) ? 3 : -1;
    if (which < 0)
        return cli_fail(e, "'%s' is not an option of -T: reduce, nic=, intra=, "
                        "place=, over=, backbone=, alpha=, bw=, lat=, links=, "
                        "gamma=, each as [CLASS.]KEY=VALUE; link=, rank=",
                        opt);
    int c = dot ? machine_class_find(out, cls) : -1;
    if (dot && c < 0)
        return no_class(out, cls, e);
    char what[48];
    snprintf(what, sizeof what, "%s%s%.*s", cls, dot ? "." : "", (int)klen, key);
    if ((which == 0 || which == 2) && cli_parse_time(what, val, &v, e))
        return -1;
    if ((which == 1 && cli_parse_bw(what, val, &v, e)) ||
        (which == 3 && parse_links(what, val, &v, e)))
        return -1;
    set_classes(out, c, which, v);
    return 0;
}

/* over=R: a number from 1 (no oversubscription). */
static int set_over(const char *v, ShapeOpts *so, CliErr *e)
{
    char *end;
    so->over = strtod(v, &end);
    if (end == v || *end || !(so->over >= 1) || so->over > MACHINE_MAX_RANKS)
        return cli_fail(e, "over= takes the oversubscription, a number from "
                        "1 (none) up, not '%s'", v);
    return 0;
}

/* The options before the parameters: reduce, nic=, intra=, place=,
 * over=; 1 for another (a parameter), -1 with the sentence in e. */
static int shape_option(const char *opt, ShapeOpts *so, CliErr *e)
{
    if (!strcmp(opt, "reduce"))
        so->reduce = true;
    else if (!strcmp(opt, "place=cyclic") || !strcmp(opt, "place=block"))
        so->cyclic = !strcmp(opt, "place=cyclic");
    else if (!strncmp(opt, "place=", 6))
        return cli_fail(e, "place= takes block (rank r at place r) or cyclic "
                        "(ranks dealt round the last dimension), not '%s'",
                        opt + 6);
    else if (!strcmp(opt, "nic=shared") || !strcmp(opt, "nic=rail"))
        so->shared = !strcmp(opt, "nic=shared");
    else if (!strncmp(opt, "nic=", 4))
        return cli_fail(e, "nic= takes rail (a NIC per GPU) or shared (one "
                        "per node), not '%s'", opt + 4);
    else if (!strcmp(opt, "intra=nvlink") || !strcmp(opt, "intra=pcie"))
        so->intra = opt + 6;
    else if (!strncmp(opt, "intra=", 6))
        return cli_fail(e, "intra= takes nvlink or pcie, not '%s'", opt + 6);
    else if (!strncmp(opt, "over=", 5))
        return set_over(opt + 5, so, e);
    else if (!strncmp(opt, "backbone=", 9))
        return cli_parse_bw("backbone", opt + 9, &so->backbone, e);
    else if (!strchr(opt, '='))
        return cli_fail(e, "'%s' is not an option of -T: reduce, nic=, intra=, "
                        "place=, over=, backbone=, alpha=, bw=, lat=, "
                        "links=, gamma=, link=, rank=", opt);
    else
        return 1;
    return 0;
}

/* Whether an option of -T fixes a link or a rank (it may repeat). */
static bool is_fix(const char *opt)
{
    return !strncmp(opt, "link=", 5) || !strncmp(opt, "rank=", 5);
}

/* Whether every rank of m reaches every other past its down links: 0, or
 * -1 and the sentence in e. */
static int spec_fix_check(const Machine *m, CliErr *e)
{
    char why[240];
    return machine_fix_why(m, why, sizeof why) ? cli_fail(e, "-T: %s", why)
                                               : 0;
}

/* The fixes among opts[0 .. n), after every other option. */
static int apply_fixes(Machine *out, char **opts, int n, CliErr *e)
{
    char why[200];
    for (int i = 0; i < n; i++)
        if (is_fix(opts[i]) &&
            machine_fix_parse(out, opts[i], why, sizeof why))
            return cli_fail(e, "-T: %s", why);
    return spec_fix_check(out, e);
}

/* The options opts[0 .. n) of spec into *so: the index of the first
 * parameter (n: none), or -1 with the sentence in e (an empty one, one
 * given twice, a shape option after a parameter). */
static int shape_options(const char *spec, char **opts, int n, ShapeOpts *so,
                         CliErr *e)
{
    int first_param = n;
    for (int i = 0; i < n; i++) {
        if (!opts[i][0])
            return cli_fail(e, "-T has an empty option in '%s' (two commas, "
                            "or one at the end)", spec);
        for (int j = 0; j < i && !is_fix(opts[i]); j++) {
            size_t ki = strcspn(opts[i], "="), kj = strcspn(opts[j], "=");
            if (ki == kj && !strncmp(opts[i], opts[j], ki))
                return cli_fail(e, "-T gives %.*s twice", (int)ki, opts[i]);
        }
    }
    for (int i = 0; i < n; i++) {
        int r = shape_option(opts[i], so, e);
        if (r < 0)
            return -1;
        if (r == 0 && i > first_param)
            return cli_fail(e, "'%s' must come before the link parameters",
                            opts[i]);
        if (r == 1 && first_param == n)
            first_param = i;
    }
    return first_param;
}

static int parse_shorthand(const char *spec, int p, const SpecModel *cm,
                           Machine *out, CliErr *e)
{
    char buf[SPEC_MAX + 1], *opts[SPEC_MAX_OPTS];
    int nopts = 0;
    if (strlen(spec) > SPEC_MAX)
        return cli_fail(e, "-T's value is longer than %d bytes", SPEC_MAX);
    strcpy(buf, spec);
    for (char *c = strchr(buf, ','); c; c = strchr(c, ',')) {
        *c++ = 0;
        if (nopts == SPEC_MAX_OPTS)
            return cli_fail(e, "-T takes %d options at most", SPEC_MAX_OPTS);
        opts[nopts++] = c;
    }
    char *shape = strchr(buf, ':');
    if (shape)
        *shape++ = 0;
    MachineKind k;
    if (kind_of(buf, &k))
        return cli_fail(e, "'%s' is not a machine: full, bus, switch, ring, "
                        "torus, mesh, nodes, fattree, gpu, host, or a "
                        "machine file's path", buf);
    ShapeOpts so = {0};
    int first_param = shape_options(spec, opts, nopts, &so, e);
    if (first_param < 0)
        return -1;
    if (so.intra && k != MACHINE_NODES)
        return cli_fail(e, "intra= goes with nodes");
    if (build_kind(k, shape, p, &so, cm, out, e))
        return -1;
    if (so.intra)
        machine_class_default(so.intra, &out->cls[0]);
    if (so.cyclic && machine_is_memory(out))
        return cli_fail(e, "place= goes with a network: a memory machine's "
                        "ranks share one memory");
    out->cyclic = so.cyclic;
    for (int i = first_param; i < nopts; i++)
        if (!is_fix(opts[i]) && set_param(out, opts[i], e))
            return -1;
    return apply_fixes(out, opts + first_param, nopts - first_param, e);
}

/* spec_parse's calls in this process (spec_parse_count). */
static _Atomic unsigned long parses;

unsigned long spec_parse_count(void) { return parses; }

int spec_parse(const char *spec, int p, const SpecModel *cm,
                      Machine *out, CliErr *e)
{
    parses++;
    if (!spec || !*spec)
        return cli_fail(e, "-T needs a machine: full, bus, switch, ring, "
                        "torus:AxB, mesh:AxB, nodes:GxL or a file");
    if (is_file_spec(spec) ? read_machine_file(spec, cm, out, e)
                           : parse_shorthand(spec, p, cm, out, e))
        return -1;
    if (p > 0 && out->nranks != p)
        return cli_fail(e, "the machine %s has %d rank%s but the call has %d "
                        "(-p)", spec, out->nranks, out->nranks == 1 ? "" : "s",
                        p);
    return 0;
}

/* spec_for into out[0 .. len), which may be too small. */
static void machine_for(const char *spec, int p, char *out, size_t len)
{
    char kind[16];
    int sizes[MACHINE_MAX_DIMS];
    snprintf(out, len, "%s", spec);
    size_t k = strcspn(spec, ":,");
    if (is_file_spec(spec) || spec[k] != ':' || k >= sizeof kind)
        return;
    memcpy(kind, spec, k);
    kind[k] = 0;
    const char *opts = spec + k + strcspn(spec + k, ",");
    int n = parse_shape_prefix(spec + k + 1, sizes);
    long long have = 1;
    for (int i = 0; i < n; i++)
        have *= sizes[i];
    if (n > 0 && have == p)
        return;
    MachineKind mk;
    if (kind_of(kind, &mk))
        return;
    if (mk == MACHINE_TORUS || mk == MACHINE_MESH) {
        int nd = n > 0 ? n : 2;
        machine_square(p, nd, sizes);
        size_t w = (size_t)snprintf(out, len, "%s:", kind);
        for (int i = 0; i < nd && w < len; i++)
            w += (size_t)snprintf(out + w, len - w, "%s%d", i ? "x" : "", sizes[i]);
        if (w < len)
            snprintf(out + w, len - w, "%s", opts);
    } else if (mk == MACHINE_NODES || mk == MACHINE_FATTREE) {
        /* nodes of 8, 4, 2 or 1; a fat tree's leaves of 8, 4, 2 or all
           (a leaf of one has no uplink to oversubscribe) */
        int l = p % 8 == 0 && p > 8 ? 8 : p % 4 == 0 && p > 4 ? 4
                : p % 2 == 0 ? 2 : mk == MACHINE_NODES ? 1 : p;
        snprintf(out, len, "%s:%dx%d%s", kind, p / l, l, opts);
    } else {
        snprintf(out, len, "%s%s", kind, opts);
    }
}

void spec_for(const char *spec, int p, char *out, size_t len)
{
    char wide[2 * SPEC_MAX + 64];
    machine_for(spec, p, wide, sizeof wide);
    /* a shape made to fit that does not fit the caller's room: as given
       (cut to the room, as snprintf would) */
    const char *from = strlen(wide) < len ? wide : spec;
    size_t n = strlen(from);
    if (!len)
        return;
    n = n < len ? n : len - 1;
    memcpy(out, from, n);
    out[n] = '\0';
}

int spec_flat(const SpecModel *cm, int p, Machine *out, CliErr *e)
{
    CvError err = model_flat_machine(out, cm->link, p, &cm->m);
    return err ? cli_fail(e, "the machine could not be built: %s",
                          cv_strerror(err))
               : 0;
}

/* ------------------------------------------------------ a scene's machine */

int spec_machine_name(SpecMachine *sm, const char *given, CliErr *e)
{
    if (!given)
        given = "";
    if (strlen(given) >= sizeof sm->given)
        return cli_fail(e, "-T's value is longer than %zu bytes",
                        sizeof sm->given - 1);
    *sm = (SpecMachine){.mach.nranks = 0};
    strcpy(sm->given, given);
    return 0;
}

static bool same_model(const SpecModel *a, const SpecModel *b)
{
    return a->m.alpha == b->m.alpha && a->m.beta == b->m.beta &&
           a->m.gamma == b->m.gamma && a->link == b->link;
}

int spec_machine_build(SpecMachine *sm, int p, bool reshape,
                       const SpecModel *cm, CliErr *e)
{
    if (sm->mach.nranks == p && same_model(&sm->model, cm))
        return 0;
    Machine m;
    char spec[SPEC_LEN];
    if (reshape)
        spec_for(sm->given, p, spec, sizeof spec);
    else
        snprintf(spec, sizeof spec, "%s", sm->given);
    if (spec[0] ? spec_parse(spec, p, cm, &m, e) : spec_flat(cm, p, &m, e))
        return -1;
    strcpy(sm->spec, spec);
    sm->model = *cm;
    sm->mach = m;
    return 0;
}

/* ------------------------------------------------------- the flat model */

int spec_parse_model(const char *alpha, const char *beta, const char *gamma,
                    const char *link, SpecModel *out, CliErr *e)
{
    SpecModel cm = {
        .m = {SPEC_DEFAULT_ALPHA, 1.0 / SPEC_DEFAULT_BW, 1.0 / SPEC_DEFAULT_GAMMA_BW},
        .link = MACHINE_FULL,
        .given = {alpha != NULL, beta != NULL, gamma != NULL},
    };
    if ((alpha && cli_parse_time("--alpha", alpha, &cm.m.alpha, e)) ||
        (beta && cli_parse_bw("--beta", beta, &cm.m.beta, e)) ||
        (gamma && cli_parse_bw("--gamma", gamma, &cm.m.gamma, e)))
        return -1;
    if (link && cli_parse_link(link, &cm.link, e))
        return -1;
    *out = cm;
    return 0;
}

size_t spec_model_text(const SpecModel *cm, char *buf, size_t n)
{
    CliText t = {buf, n, 0};
    if (n)
        buf[0] = '\0';
    cli_text_add(&t, "machine %s, alpha %g us (%s), beta %g GB/s (%s), gamma %g GB/s (%s)",
             machine_kind_name(cm->link), cm->m.alpha * 1e6,
             cm->given[0] ? "--alpha" : "default", 1e-9 / cm->m.beta,
             cm->given[1] ? "--beta" : "default", 1e-9 / cm->m.gamma,
             cm->given[2] ? "--gamma" : "default");
    return t.len;
}
