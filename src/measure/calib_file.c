/* calib_file.c - calibrations kept in the XDG cache directory (store.h),
 * one file per backend, machine and rank count, and read back (calib.h).
 *
 * What a file holds is never trusted: the reader takes one line at a time
 * into a fixed buffer, every value as a whole token (no trailing bytes, no
 * blanks inside, no '+', no inf or nan), each within the range a real
 * calibration can have (calib.h: CALIB_MAX_*), and refuses a line it does
 * not know, a line given twice, a line too long or holding a NUL byte,
 * and a file too long, with the line and the reason. A refused file is
 * never partly used. What calib_save writes is read back by the same
 * parser first, so a file it writes always loads. */
#include "measure/calib.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sanitize.h"
#include "store/store.h"

#define CALIB_VERSION 7      /* format of the saved file: 4 records the
                                machine (the host), 5 names the machine
                                fitted (link full|bus|nodes, was
                                p2p|shared) and the hosts, 6 marks the
                                values a plausibility rule replaced
                                ("derived" lines), 7 the memory the
                                ranks share ("memory" line), which
                                link may name */
#define CALIB_OLDEST 3       /* the oldest format read (calib_read) */
#define CALIB_KEYED 4        /* the oldest format loaded as this machine's
                                (calib_load): 3 did not record it */
#define FILE_MAX (64 << 10)  /* bytes: a longer file is no calibration */
#define LINE_MAX_LEN 512     /* bytes of one line, its newline included */
#define TOKENS_MAX 8         /* words of one line, its key included */

/* ---------------------------------------------------------------- names */

/* A short stable hash of a machine's fingerprint for file names:
 * FNV-1a, 32 bits. */
static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Whether name is 1 to len - 1 letters, digits, '_' and '-'. */
static int word_ok(const char *name, size_t len)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n >= len)
        return 0;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
            return 0;
    return 1;
}

int calib_backend_ok(const char *name)
{
    return word_ok(name, CALIB_NAME_LEN);
}

int calib_level_ok(const char *name)
{
    return word_ok(name, MACHINE_NAME_LEN);
}

CvError calib_path(const char *backend, const char *host, int nranks,
                   char *out, size_t len, char *why, size_t whylen)
{
    char name[CALIB_NAME_LEN + 40];
    if (!calib_backend_ok(backend)) {
        snprintf(why, whylen, "'%s' cannot be a backend's name in a file "
                 "name (letters, digits, '_' and '-', at most %d)",
                 backend ? backend : "", CALIB_NAME_LEN - 1);
        return CV_ERR_ARG;
    }
    snprintf(name, sizeof name, "calib-%s-%08x-p%d.txt", backend,
             (unsigned)fnv1a(host ? host : ""), nranks);
    return store_path(STORE_CACHE, name, out, len, why, whylen);
}

/* ---------------------------------------------------------- the values */

/* One value of a line: its type, range and place in the Calib (or, on a
 * "point" line, in the CalibPoint being read). */
typedef struct {
    char type;       /* 'i' int, 'l' long long, 'd' double */
    double lo, hi;   /* the range it must lie in */
    int zero_ok;     /* 0 is also taken (a value not measured) */
    size_t off;      /* where it goes */
    const char *unit;/* for the sentence: "s", "s/B", "" */
} Val;

/* A line "KEY VALUE...": min_n to max_n values (the rest stay 0). */
typedef struct {
    const char *key; /* its first word */
    int min_n, max_n;/* how many values it takes */
    Val v[7];        /* each value */
} Key;

/* (0: not measured; else at least CALIB_MIN_SECONDS: a denormal alpha
   priced every step at nothing) */
#define SEC(off) \
    {'d', CALIB_MIN_SECONDS, CALIB_MAX_SECONDS, 1, offsetof(Calib, off), "s"}
#define RATIO(off) {'d', 0, CALIB_MAX_RATIO, 0, offsetof(Calib, off), ""}
#define SPB(lo, zero, off) \
    {'d', lo, CALIB_MAX_SPB, zero, offsetof(CalibPoint, off), "s/B"}

/* Every line of the format but version, backend, host, link and levels. "point"
 * (index KEY_POINT) may repeat, the others come once. */
static const Key keys[] = {
    {"nranks", 1, 1, {{'i', 1, COLL_MAX_RANKS, 0, offsetof(Calib, nranks), ""}}},
    {"cores", 1, 1, {{'i', 0, CALIB_MAX_CORES, 0, offsetof(Calib, cores), ""}}},
    {"when", 1, 1, {{'l', 0, CALIB_MAX_WHEN, 0, offsetof(Calib, when), "s"}}},
    {"quick", 1, 1, {{'i', 0, 1, 0, offsetof(Calib, quick), ""}}},
    {"alpha", 1, 1, {SEC(alpha)}},
    {"msg", 1, 1, {SEC(alpha_msg)}},
    {"lat", 2, 2, {SEC(lat_step), SEC(lat_iter)}},
    {"fit", 2, 3, {RATIO(fit_err[MACHINE_FULL]), RATIO(fit_err[MACHINE_BUS]),
                   RATIO(fit_err[MACHINE_NODES])}},
    {"nodes", 3, 3, {{'i', 2, COLL_MAX_RANKS, 0, offsetof(Calib, nodes), ""},
                     {'i', 1, COLL_MAX_RANKS, 0, offsetof(Calib, per_node), ""},
                     {'i', 0, 1, 0, offsetof(Calib, cyclic), ""}}},
    {"pairs", 2, 2, {SEC(alpha_host), SEC(alpha_net)}},
    {"unsteady", 1, 1, {RATIO(unsteady)}},
    {"probe", 2, 4, {RATIO(probe[0]), RATIO(probe[1]), SEC(probe_clean[0]),
                     SEC(probe_clean[1])}},
    {"state", 3, 3, {RATIO(state_ratio), SEC(state_clean),
                     {'i', 0, CALIB_MAX_PROBES, 0, offsetof(Calib, state_probes), ""}}},
    {"point", 6, 7, {{'d', 1, CALIB_MAX_FOOTPRINT, 0,
                      offsetof(CalibPoint, footprint), "B"},
                     SPB(CALIB_MIN_SPB, 0, beta_shared),
                     SPB(CALIB_MIN_SPB, 0, beta_p2p),
                     SPB(0, 0, gamma_shared), SPB(0, 0, gamma_p2p),
                     SPB(CALIB_MIN_SPB, 1, beta_cross),
                     SPB(CALIB_MIN_SPB, 1, beta_net)}},
};
enum { NKEYS = sizeof keys / sizeof keys[0], KEY_POINT = NKEYS - 1 };
enum { KEY_NRANKS = 0, KEY_MSG = 5, KEY_NODES = 8 }; /* their places in
                                                       keys[] */

/* What reading one file knows so far. */
typedef struct {
    Calib *c;           /* the calibration being read */
    int *version;       /* the format's version (0: no line yet) */
    long line;          /* the line being read, from 1 */
    unsigned seen;      /* keys[] met, a bit each; then backend, host,
                           link and version */
    char *why;          /* the sentence, when refused */
    size_t whylen;      /* its room */
} Reader;

enum { SEEN_BACKEND = NKEYS, SEEN_HOST, SEEN_LINK, SEEN_VERSION,
       SEEN_LEVELS, SEEN_MEMORY };

/* Refuse the file: "line N: ..." in r->why; returns -1. */
static int refuse(Reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int refuse(Reader *r, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(r->why, r->whylen, "line %ld: ", r->line);
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < r->whylen)
        vsnprintf(r->why + n, r->whylen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Whether tok is a decimal number and nothing else: digits, '.', an
 * exponent, a leading '-' (no blank, '+' first, hex, inf or nan). */
static int number_token(const char *tok, int integer)
{
    const char *p = *tok == '-' ? tok + 1 : tok;
    if (!((*p >= '0' && *p <= '9') || (!integer && *p == '.')))
        return 0;
    return strspn(p, integer ? "0123456789" : "0123456789.eE+-") == strlen(p);
}

/* Read token tok as value v of line `key` into base; -1 when refused. */
static int read_val(Reader *r, const char *key, const Val *v, const char *tok,
                    char *base)
{
    char *end = NULL;
    double x = 0;
    errno = 0;
    if (number_token(tok, v->type != 'd'))
        x = v->type == 'd' ? strtod(tok, &end) : (double)strtoll(tok, &end, 10);
    if (!end || *end)
        return refuse(r, "%s '%.40s' is not a %s", key, tok,
                      v->type == 'd' ? "number" : "whole number");
    /* ERANGE: too large (out of range below) or too small to tell from 0
     * (the range says whether 0 will do) */
    if (errno == ERANGE && fabs(x) >= 1)
        x = INFINITY;
    if (!((x >= v->lo && x <= v->hi) || (v->zero_ok && x == 0)))
        return refuse(r, "%s %.40s is out of range (%s%.15g to %.15g%s%s)",
                      key, tok, v->zero_ok ? "0, or " : "", v->lo, v->hi,
                      *v->unit ? " " : "", v->unit);
    if (v->type == 'i')
        *(int *)(base + v->off) = (int)x;
    else if (v->type == 'l')
        *(long long *)(base + v->off) = strtoll(tok, NULL, 10);
    else
        *(double *)(base + v->off) = x;
    return 0;
}

/* Line tok[0..n) of keys[k]; -1 when refused. */
static int read_key(Reader *r, int k, char **tok, int n)
{
    const Key *key = &keys[k];
    Calib *c = r->c;
    char *base = (char *)c;
    if (n - 1 < key->min_n || n - 1 > key->max_n ||
        (key->max_n == 4 && n - 1 == 3)) /* probe: the ratios, or all four */
        return refuse(r, "'%s' takes %d%s value%s, not %d", key->key,
                      key->min_n, key->max_n == 4 ? " or 4" : "",
                      key->max_n == 1 ? "" : "s", n - 1);
    if (k == KEY_POINT) {
        if (c->npoints >= CALIB_MAX_POINTS)
            return refuse(r, "more than %d points", CALIB_MAX_POINTS);
        base = (char *)&c->pt[c->npoints];
    }
    for (int i = 1; i < n; i++)
        if (read_val(r, key->key, &key->v[i - 1], tok[i], base))
            return -1;
    if (k == KEY_POINT) {
        if (c->npoints && c->pt[c->npoints].footprint <=
                              c->pt[c->npoints - 1].footprint)
            return refuse(r, "the point's footprint is not larger than the "
                          "one before");
        c->npoints++;
    }
    return 0;
}

/* Mark line `what` seen; -1 when it was already. */
static int once(Reader *r, int what, const char *name)
{
    if (r->seen & (1u << what))
        return refuse(r, "a second '%s' line", name);
    r->seen |= 1u << what;
    return 0;
}

/* The "host" line: the rest of the line, printable, shorter than
 * CALIB_HOST_LEN. */
static int read_host(Reader *r, const char *rest)
{
    size_t n = strlen(rest);
    if (n >= CALIB_HOST_LEN)
        return refuse(r, "the host is longer than %d bytes",
                      CALIB_HOST_LEN - 1);
    for (const char *p = rest; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return refuse(r, "the host holds a control character");
    memcpy(r->c->host, rest, n + 1);
    return 0;
}

/* Lines whose value is a word: version, backend, link. */
static int read_word(Reader *r, char **tok, int n)
{
    long v;
    char *end;
    if (n != 2)
        return refuse(r, "'%s' takes 1 value, not %d", tok[0], n - 1);
    if (!strcmp(tok[0], "backend")) {
        if (!calib_backend_ok(tok[1]))
            return refuse(r, "'%s' is not a backend's name", tok[1]);
        snprintf(r->c->backend, sizeof r->c->backend, "%s", tok[1]);
        return 0;
    }
    if (!strcmp(tok[0], "link")) { /* full, bus, nodes (before 5: p2p, shared) */
        static const struct {
            const char *word;
            MachineKind k;
        } fits[] = {{"full", MACHINE_FULL}, {"bus", MACHINE_BUS},
                    {"nodes", MACHINE_NODES}, {"gpu", MACHINE_GPU},
                    {"host", MACHINE_HOST}, {"p2p", MACHINE_FULL},
                    {"shared", MACHINE_BUS}};
        for (size_t i = 0; i < sizeof fits / sizeof fits[0]; i++)
            if (!strcmp(tok[1], fits[i].word)) {
                r->c->machine = fits[i].k;
                return 0;
            }
        return refuse(r, "'%s' is not a machine a calibration fits (full, "
                      "bus, gpu, host or nodes)", tok[1]);
    }
    errno = 0;
    v = number_token(tok[1], 1) ? strtol(tok[1], &end, 10) : -1;
    if (v < 1 || errno || v > INT_MAX)
        return refuse(r, "version '%s' is not a whole number from 1", tok[1]);
    *r->version = (int)v;
    return 0;
}

/* A "derived" line: "derived KEY INDEX" for a point's value (KEY shared,
 * cross, p2p, net, reduce or pair_reduce, INDEX its point from 0), or
 * "derived KEY" for a time (alpha, msg, lat_step, ...; calib_value_key).
 * It may come more than once; a point past the last is refused at the
 * end (read_end). -1 when refused. */
static int read_derived(Reader *r, char **tok, int n)
{
    for (int v = 0; v < CALIB_VAL_COUNT; v++) {
        if (n < 2 || strcmp(tok[1], calib_value_key((CalibValue)v)))
            continue;
        if (v >= CALIB_VAL_ALPHA) {
            if (n != 2)
                return refuse(r, "'derived %s' takes no point", tok[1]);
            r->c->derived |= 1u << v;
            return 0;
        }
        char *end = NULL;
        long i = n == 3 && number_token(tok[2], 1) ? strtol(tok[2], &end, 10)
                                                   : -1;
        if (n != 3 || !end || *end || i < 0 || i >= CALIB_MAX_POINTS)
            return refuse(r, "'derived %s' takes a point from 0 to %d",
                          tok[1], CALIB_MAX_POINTS - 1);
        r->c->pt_derived[i] |= 1u << v;
        return 0;
    }
    return refuse(r, "'derived' names no value a rule replaces");
}

/* "memory KIND CACHE ERR": the memory machine the ranks share (gpu or
 * host), the bytes of its cache (more than 0) and that machine's fit
 * error. -1 when refused. */
static int read_memory(Reader *r, char **tok, int n)
{
    if (n != 4)
        return refuse(r, "'memory' takes 3 values, not %d", n - 1);
    MachineKind k = !strcmp(tok[1], "gpu")    ? MACHINE_GPU
                    : !strcmp(tok[1], "host") ? MACHINE_HOST
                                              : MACHINE_FULL;
    if (k == MACHINE_FULL)
        return refuse(r, "'memory' takes gpu or host, not '%.40s'", tok[1]);
    char *end;
    double cache = number_token(tok[2], 0) ? strtod(tok[2], &end) : -1;
    if (!(cache >= 1 && cache <= CALIB_MAX_FOOTPRINT) || *end)
        return refuse(r, "the cache of 'memory', '%.40s', is not a size "
                      "of bytes above 0", tok[2]);
    double err = number_token(tok[3], 0) ? strtod(tok[3], &end) : -1;
    if (!(err >= 0 && err <= CALIB_MAX_RATIO) || *end)
        return refuse(r, "the fit error of 'memory', '%.40s', is not a "
                      "ratio from 0 to %g", tok[3], CALIB_MAX_RATIO);
    r->c->medium = k, r->c->cache = cache, r->c->fit_err[k] = err;
    return 0;
}

/* Split line at blanks into tok[]; returns how many, or -1 when more than
 * TOKENS_MAX. */
static int split(char *line, char **tok)
{
    int n = 0;
    char *save = NULL;
    for (char *p = strtok_r(line, " \t", &save); p;
         p = strtok_r(NULL, " \t", &save)) {
        if (n == TOKENS_MAX)
            return -1;
        tok[n++] = p;
    }
    return n;
}

/* One line (no newline); -1 when refused. */
static int read_line(Reader *r, char *line)
{
    char *tok[TOKENS_MAX], *rest;
    if (line[0] == '#' || line[strspn(line, " \t")] == '\0')
        return 0;
    if (!strncmp(line, "host ", 5) || !strcmp(line, "host")) {
        rest = line[4] ? line + 5 : line + 4;
        return once(r, SEEN_HOST, "host") ? -1 : read_host(r, rest);
    }
    int n = split(line, tok);
    if (n < 0)
        return refuse(r, "more than %d words", TOKENS_MAX);
    if (!strcmp(tok[0], "levels")) {
        if (once(r, SEEN_LEVELS, "levels"))
            return -1;
        if (n != 3)
            return refuse(r, "'levels' takes 2 values, not %d", n - 1);
        for (int i = 0; i < 2; i++) {
            if (!calib_level_ok(tok[1 + i]))
                return refuse(r, "'%.40s' cannot name a class of links "
                              "(letters, digits, '_' and '-', at most %d)",
                              tok[1 + i], MACHINE_NAME_LEN - 1);
            snprintf(r->c->level[i], sizeof r->c->level[i], "%s", tok[1 + i]);
        }
        return 0;
    }
    if (!strcmp(tok[0], "memory"))
        return once(r, SEEN_MEMORY, "memory") ? -1 : read_memory(r, tok, n);
    if (!strcmp(tok[0], "derived"))
        return read_derived(r, tok, n);
    static const char *const words[] = {"backend", "link", "version"};
    static const int word_seen[] = {SEEN_BACKEND, SEEN_LINK, SEEN_VERSION};
    for (int i = 0; i < 3; i++)
        if (!strcmp(tok[0], words[i]))
            return once(r, word_seen[i], words[i]) ? -1 : read_word(r, tok, n);
    for (int k = 0; k < NKEYS; k++)
        if (!strcmp(tok[0], keys[k].key))
            return (k != KEY_POINT && once(r, k, keys[k].key)) ? -1
                   : read_key(r, k, tok, n);
    char safe[41]; /* the file's word, cut at a whole character, its
                      controls as escapes */
    sanitize(safe, sizeof safe, tok[0], 0);
    return refuse(r, "'%s' is not a line of a calibration", safe);
}

/* The next line of f into line (NUL-terminated, newline dropped): 1, 0
 * at the end, -1 when refused (too long, a NUL byte, the file too long). */
static int next_line(Reader *r, FILE *f, char *line, long *total)
{
    int ch, len = 0, nul = 0;
    while ((ch = getc(f)) != EOF && ch != '\n') {
        if (++*total > FILE_MAX)
            return refuse(r, "the file is longer than %d KiB", FILE_MAX >> 10);
        if (len + 1 >= LINE_MAX_LEN)
            return refuse(r, "the line is longer than %d bytes",
                          LINE_MAX_LEN - 1);
        nul |= ch == '\0';
        line[len++] = (char)ch;
    }
    if (ch == '\n' && ++*total > FILE_MAX)
        return refuse(r, "the file is longer than %d KiB", FILE_MAX >> 10);
    line[len] = '\0';
    if (nul)
        return refuse(r, "the line holds a NUL byte");
    return ch != EOF || len > 0 ? 1 : 0;
}

/* Whether a calibration that names a memory machine can make its level
 * (calib_mem_level: a point past 4 times the cache gives the memory's
 * rate); a file that cannot is refused, not used to price nothing. */
static bool memory_level_ok(const Calib *c)
{
    MemLevel ml;
    double g;
    return calib_mem_level(c, 0, &ml, &g) == 0;
}

/* What must be there once the lines are read; -1 when refused. */
static int read_end(Reader *r)
{
    const Calib *c = r->c;
    r->line = 0;
    if (!*r->version)
        snprintf(r->why, r->whylen, "it has no version line");
    else if (*r->version < CALIB_OLDEST)
        snprintf(r->why, r->whylen, "its format, version %d, is older than "
                 "collviz reads (%d and %d)", *r->version, CALIB_OLDEST,
                 CALIB_VERSION);
    else if (!c->backend[0])
        snprintf(r->why, r->whylen, "it has no backend line");
    else if (!(r->seen & (1u << KEY_NRANKS)))
        snprintf(r->why, r->whylen, "it has no nranks line");
    else if (!c->npoints)
        snprintf(r->why, r->whylen, "it has no point line");
    else if ((c->machine == MACHINE_GPU || c->machine == MACHINE_HOST) &&
             c->machine != c->medium)
        snprintf(r->why, r->whylen, "its machine is %s, but it has no "
                 "memory line of it", machine_kind_name(c->machine));
    else if ((c->machine == MACHINE_GPU || c->machine == MACHINE_HOST) &&
             !memory_level_ok(c))
        snprintf(r->why, r->whylen, "its machine is %s, but its points "
                 "cannot make one: none measures past 4 times its memory "
                 "line's cache", machine_kind_name(c->machine));
    else if (c->machine == MACHINE_NODES && !(r->seen & (1u << KEY_NODES)))
        snprintf(r->why, r->whylen, "its machine is nodes, but it has no "
                 "nodes line");
    else if ((r->seen & (1u << KEY_NODES)) &&
             (long long)c->nodes * c->per_node != c->nranks)
        snprintf(r->why, r->whylen, "its %d nodes of %d ranks are not its "
                 "%d ranks", c->nodes, c->per_node, c->nranks);
    else if (c->npoints < CALIB_MAX_POINTS && c->pt_derived[c->npoints])
        snprintf(r->why, r->whylen, "a 'derived' line names point %d, past "
                 "its %d points", c->npoints, c->npoints);
    else
        return 0;
    return -1;
}

CvError calib_parse(FILE *f, Calib *out, int *version, char *why,
                    size_t whylen)
{
    char line[LINE_MAX_LEN];
    long total = 0;
    Calib c = {.machine = MACHINE_BUS};
    Reader r = {&c, version, 0, 0, why, whylen};
    int bad = 0;
    *version = 0;
    why[0] = '\0';
    while (!bad && *version <= CALIB_VERSION) { /* a newer format: stop */
        r.line++;
        int got = next_line(&r, f, line, &total);
        if (got == 0)
            break;
        bad = got < 0 || read_line(&r, line);
    }
    if (ferror(f)) {
        snprintf(why, whylen, "reading it failed: %s", strerror(errno ? errno
                                                                       : EIO));
        return CV_ERR_IO;
    }
    if (*version > CALIB_VERSION) {
        snprintf(why, whylen, "it was saved by a newer collviz (format "
                 "version %d)", *version);
        return CV_ERR_ARG;
    }
    if (bad || read_end(&r))
        return CV_ERR_ARG;
    if (!(r.seen & (1u << KEY_MSG))) /* saved before it was measured */
        c.alpha_msg = c.alpha;
    *out = c;
    return CV_OK;
}

/* ------------------------------------------------------------- writing */

/* The file's contents (a StoreWriteFn): nonzero when writing failed. */
static int write_calib(FILE *f, void *ctx)
{
    const Calib *c = ctx;
    fprintf(f, "# collviz calibration (alpha s, beta and gamma s/B)\n");
    fprintf(f, "version %d\nbackend %s\nhost %s\nnranks %d\ncores %d\n"
            "when %lld\nquick %d\n", CALIB_VERSION, c->backend, c->host,
            c->nranks, c->cores, c->when, c->quick);
    fprintf(f, "alpha %.9g\nmsg %.9g\nlat %.9g %.9g\nlink %s\nfit %.6g %.6g",
            c->alpha, c->alpha_msg, c->lat_step, c->lat_iter,
            machine_kind_name(c->machine), c->fit_err[MACHINE_FULL],
            c->fit_err[MACHINE_BUS]);
    if (c->nodes > 1)
        fprintf(f, " %.6g\nnodes %d %d %d\npairs %.9g %.9g\nlevels %s %s",
                c->fit_err[MACHINE_NODES], c->nodes, c->per_node, c->cyclic,
                c->alpha_host, c->alpha_net,
                calib_level_ok(c->level[0]) ? c->level[0] : "host",
                calib_level_ok(c->level[1]) ? c->level[1] : "net");
    fputc('\n', f);
    if (c->medium == MACHINE_GPU || c->medium == MACHINE_HOST)
        fprintf(f, "memory %s %.9g %.6g\n", machine_kind_name(c->medium),
                c->cache, c->fit_err[c->medium]);
    fprintf(f, "unsteady %.6g\nprobe %.6g %.6g %.6g %.6g\n", c->unsteady,
            c->probe[0], c->probe[1], c->probe_clean[0], c->probe_clean[1]);
    fprintf(f, "state %.6g %.6g %d\n", c->state_ratio, c->state_clean,
            c->state_probes);
    for (int i = 0; i < c->npoints && i < CALIB_MAX_POINTS; i++) {
        const CalibPoint *p = &c->pt[i];
        fprintf(f, "point %.9g %.9g %.9g %.9g %.9g %.9g", p->footprint,
                p->beta_shared, p->beta_p2p, p->gamma_shared, p->gamma_p2p,
                p->beta_cross);
        if (c->nodes > 1)
            fprintf(f, " %.9g", p->beta_net);
        fputc('\n', f);
    }
    for (int v = 0; v < CALIB_VAL_COUNT; v++)
        if (v >= CALIB_VAL_ALPHA && (c->derived >> v & 1))
            fprintf(f, "derived %s\n", calib_value_key((CalibValue)v));
    for (int i = 0; i < c->npoints && i < CALIB_MAX_POINTS; i++)
        for (int v = 0; v < CALIB_VAL_ALPHA; v++)
            if (c->pt_derived[i] >> v & 1)
                fprintf(f, "derived %s %d\n", calib_value_key((CalibValue)v),
                        i);
    return ferror(f);
}

/* The text write_calib gives, once it reads back: a StoreWriteFn. */
typedef struct {
    char *text;  /* the file's contents */
    size_t len;  /* their length */
} Text;

static int write_text(FILE *f, void *ctx)
{
    const Text *t = ctx;
    return fwrite(t->text, 1, t->len, f) != t->len || ferror(f);
}

/* Whether a value of c breaks a plausibility rule (calib_check): then
 * the first one's sentence is in why. */
static int implausible(const Calib *c, char *why, size_t whylen)
{
    CalibRefusal r;
    if (!calib_check(c, &r, 1))
        return 0;
    calib_refusal_text(&r, why, whylen);
    return 1;
}

/* c's file in t->text, read back by calib_parse first: CV_ERR_ARG and a
 * sentence when it would not load (a value out of range). */
static CvError render(const Calib *c, Text *t, char *why, size_t whylen)
{
    FILE *m = open_memstream(&t->text, &t->len);
    if (!m) {
        snprintf(why, whylen, "there is not enough memory to save the "
                 "calibration");
        return CV_ERR_NOMEM;
    }
    int bad = write_calib(m, (void *)c);
    if (fclose(m) || bad) {
        snprintf(why, whylen, "there is not enough memory to save the "
                 "calibration");
        return CV_ERR_NOMEM;
    }
    Calib back;
    int version;
    char reason[256];
    FILE *in = fmemopen(t->text, t->len, "r");
    CvError e = in ? calib_parse(in, &back, &version, reason, sizeof reason)
                   : CV_ERR_NOMEM;
    if (in)
        fclose(in);
    if (e == CV_ERR_NOMEM)
        snprintf(why, whylen, "there is not enough memory to save the "
                 "calibration");
    else if (e)
        snprintf(why, whylen, "the calibration of %s at %d ranks would not "
                 "read back (%s), so it is not saved", c->backend, c->nranks,
                 reason);
    else if (implausible(&back, reason, sizeof reason)) {
        snprintf(why, whylen, "the calibration of %s at %d ranks is not "
                 "saved: %s", c->backend, c->nranks, reason);
        e = CV_ERR_ARG;
    }
    return e ? (e == CV_ERR_NOMEM ? e : CV_ERR_ARG) : CV_OK;
}

CvError calib_save(const Calib *c, char *why, size_t whylen)
{
    char path[4096];
    Text t = {NULL, 0};
    CvError e = calib_path(c->backend, c->host, c->nranks, path, sizeof path,
                           why, whylen);
    if (!e)
        e = render(c, &t, why, whylen);
    if (!e) {
        store_clean_stale(path);
        e = store_write(path, write_text, &t, why, whylen);
    }
    free(t.text);
    return e;
}

/* ------------------------------------------------------------- reading */

/* Read the file at path into out (calib_read); *missing: there is none. */
static CvError read_file(const char *path, Calib *out, int *version,
                         int *missing, char *why, size_t whylen)
{
    FILE *f;
    char reason[300];
    *version = 0;
    CvError e = store_open(path, &f, missing, why, whylen);
    if (e)
        return e;
    e = calib_parse(f, out, version, reason, sizeof reason);
    fclose(f);
    if (e)
        snprintf(why, whylen, "the calibration in %s%s %s", path,
                 *version > CALIB_VERSION ? ":" : " could not be read:",
                 reason); /* (a newer's reason says so) */
    return e ? CV_ERR_ARG : CV_OK;
}

CvError calib_read(const char *path, Calib *out, int *version, char *why,
                   size_t whylen)
{
    int missing;
    return read_file(path, out, version, &missing, why, whylen);
}

/* No file at path: is there one of collviz's before version 4, which kept
 * one file per backend and rank count whatever the machine? CV_ERR_ARG and
 * a sentence when there is; else CV_ERR_IO and why empty. */
static CvError older_file(const char *backend, int nranks, char *why,
                          size_t whylen)
{
    char name[CALIB_NAME_LEN + 32], old[4096], unused[8];
    snprintf(name, sizeof name, "calib-%s-p%d.txt", backend, nranks);
    why[0] = '\0';
    if (store_path(STORE_CACHE, name, old, sizeof old, unused, sizeof unused) ||
        access(old, F_OK))
        return CV_ERR_IO;
    snprintf(why, whylen, "the calibration in %s was saved by an older "
             "collviz", old);
    return CV_ERR_ARG;
}

/* A file that reads but is not for (backend, host, nranks) in this
 * format: CV_ERR_ARG and a sentence saying why. */
static CvError check_key(const Calib *c, int version, const char *backend,
                         const char *host, int nranks, const char *path,
                         char *why, size_t whylen)
{
    if (version < CALIB_KEYED)
        snprintf(why, whylen, "the calibration in %s was saved by an older "
                 "collviz", path);
    else if (strcmp(c->host, host))
        snprintf(why, whylen, "the calibration in %s was measured on another "
                 "machine (%s)", path, c->host);
    else if (strcmp(c->backend, backend) || c->nranks != nranks)
        snprintf(why, whylen, "the calibration in %s is of %s at %d ranks",
                 path, c->backend, c->nranks);
    else
        return CV_OK;
    return CV_ERR_ARG;
}

/* The file at path could not be used: set it aside (store_set_aside) and
 * add to the sentence in why where it is now, or why it stays. */
static void set_aside(const char *path, char *why, size_t whylen)
{
    char aside[4200];
    size_t n = strlen(why);
    if (n + 1 >= whylen)
        return;
    if (store_set_aside(path, aside, sizeof aside) == CV_OK)
        snprintf(why + n, whylen - n, "; it is kept as %s", aside);
    else
        snprintf(why + n, whylen - n, "; it could not be set aside: %s",
                 strerror(errno));
}

CvError calib_load(const char *backend, const char *host, int nranks,
                   Calib *out, char *why, size_t whylen)
{
    char path[4096];
    int missing = 0, version = 0;
    host = host ? host : "";
    CvError e = calib_path(backend, host, nranks, path, sizeof path, why,
                           whylen);
    if (e)
        return e;
    e = read_file(path, out, &version, &missing, why, whylen);
    if (e && missing)
        return older_file(backend, nranks, why, whylen);
    /* damaged, or not a file that can be read (a FIFO, a directory, no
     * permission): set aside, so that the next calibration is saved
     * there; a newer collviz's file is left as it is */
    if (e && version <= CALIB_VERSION)
        set_aside(path, why, whylen);
    if (e)
        return e;
    e = check_key(out, version, backend, host, nranks, path, why, whylen);
    char reason[1024];
    if (!e && implausible(out, reason, sizeof reason)) {
        /* not used, and out of the way of the next calibration's file */
        snprintf(why, whylen, "the calibration in %s is not believable: %s",
                 path, reason);
        set_aside(path, why, whylen);
        e = CV_ERR_ARG;
    }
    return e;
}
