/* cli.c - option parsing, name and size parsing, and the error sentences
 * every command shares. Only cli_error, cli_help and cli_start print (for
 * the commands); everything else writes into buffers, see cli.h. */
#include "cli/cli.h"
#include "core/sanitize.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* ------------------------------------------------------------- helpers */

int cli_fail(CliErr *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

void cli_text_add(CliText *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = t->len < t->n ? t->n - t->len : 0;
    int k = vsnprintf(room ? t->buf + t->len : NULL, room, fmt, ap);
    va_end(ap);
    if (k > 0)
        t->len += (size_t)k;
}

/* ------------------------------------------------------------- numbers */

bool cli_whole_number(const char *s, long *v)
{
    const char *d = s && *s == '-' ? s + 1 : s;
    if (!d || !(*d >= '0' && *d <= '9')) /* no blank, no '+', no "-" alone */
        return false;
    char *end;
    errno = 0;
    *v = strtol(s, &end, 10);
    return !errno && *end == '\0';
}

int cli_parse_int(const char *what, const char *s, long min, long max,
                  long *out, CliErr *e)
{
    long v;
    if (!cli_whole_number(s, &v) || v < min || v > max)
        return cli_fail(e, "%s '%s' must be a whole number from %ld to %ld",
                        what, s ? s : "", min, max);
    *out = v;
    return 0;
}

/* ------------------------------------------------------------- options */

/* Whether long name ln is name[0 .. len), '_' and '-' alike (nccl-tests
 * spells its long names with '_': --run_cycles is --run-cycles). */
static bool long_is(const char *ln, const char *name, size_t len)
{
    if (strlen(ln) != len)
        return false;
    for (size_t i = 0; i < len; i++) {
        char a = ln[i] == '_' ? '-' : ln[i], b = name[i] == '_' ? '-' : name[i];
        if (a != b)
            return false;
    }
    return true;
}

/* nccl-tests' long names where collviz's differ by more than '_'. */
static const char *const long_alias[][2] = {
    {"warmup-iters", "warmup"},
    {"datatype", "dtype"},
    {"iter-stats", "per-iter-timing"}, /* collviz's names before */
    {"memory-report", "memory"},
};

static int find_long(const CliCmd *c, const char *name, size_t len)
{
    for (size_t i = 0; i < c->nopts; i++) {
        const char *ln = c->opts[i].long_name;
        if (ln && long_is(ln, name, len))
            return (int)i;
    }
    for (size_t k = 0; k < sizeof long_alias / sizeof long_alias[0]; k++)
        if (long_is(long_alias[k][0], name, len))
            return find_long(c, long_alias[k][1], strlen(long_alias[k][1]));
    return -1;
}

static int find_short(const CliCmd *c, char ch)
{
    for (size_t i = 0; i < c->nopts; i++)
        if (c->opts[i].short_name && c->opts[i].short_name == ch)
            return (int)i;
    return -1;
}

/* The command whose --help a sentence about cmd's arguments points at. */
static const char *help_of(const CliCmd *cmd)
{
    return cmd->help_of ? cmd->help_of : cmd->name;
}

static int add_positional(const CliCmd *cmd, const char *a, CliArgs *out,
                          CliErr *e)
{
    if (out->npos >= cmd->max_pos || out->npos >= CLI_MAX_POS)
        return cli_fail(e, "unexpected argument '%s' for %s; see 'collviz %s --help'",
                        a, cmd->name, help_of(cmd));
    out->pos[out->npos++] = a;
    return 0;
}

/* The sentence for an option given twice, naming both its spellings. */
static int repeated(const CliOpt *o, CliErr *e)
{
    char name[64];
    if (o->short_name && o->long_name)
        snprintf(name, sizeof name, "-%c (--%s)", o->short_name, o->long_name);
    else if (o->short_name)
        snprintf(name, sizeof name, "-%c", o->short_name);
    else
        snprintf(name, sizeof name, "--%s", o->long_name);
    return cli_fail(e, "option %s is given more than once; give it once",
                    name);
}

/* Parse one option at argv[*i]; may consume the next argument. */
static int parse_option(const CliCmd *cmd, int argc, char **argv, int *i,
                        CliArgs *out, CliErr *e)
{
    const char *a = argv[*i], *val = NULL;
    int o;
    size_t shown; /* how much of `a` names the option */
    if (a[1] == '-') {
        const char *eq = strchr(a + 2, '=');
        shown = eq ? (size_t)(eq - a) : strlen(a);
        o = find_long(cmd, a + 2, shown - 2);
        val = eq ? eq + 1 : NULL;
    } else {
        shown = 2;
        o = find_short(cmd, a[1]);
        val = a[2] ? a + 2 : NULL;
    }
    if (o < 0)
        return cli_fail(e, "unknown option '%.*s' for %s; see 'collviz %s --help'",
                        (int)shown, a, cmd->name, help_of(cmd));
    const CliOpt *opt = &cmd->opts[o];
    if (!opt->arg && val)
        return cli_fail(e, "option '%.*s' takes no value", (int)shown, a);
    if (opt->arg && !val) {
        if (*i + 1 >= argc)
            return cli_fail(e, "option '%.*s' needs a value (%s)", (int)shown, a,
                            opt->arg);
        val = argv[++*i];
    }
    if (out->val[o]) /* the last would win unseen: say so instead */
        return repeated(opt, e);
    out->val[o] = opt->arg ? val : "";
    return 0;
}

int cli_parse_args(const CliCmd *cmd, int argc, char **argv, CliArgs *out,
                   CliErr *e)
{
    memset(out, 0, sizeof *out);
    e->msg[0] = '\0';
    if (cmd->nopts > CLI_MAX_OPTS)
        return cli_fail(e, "%s has too many options", cmd->name);
    bool only_pos = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc;
        if (only_pos || a[0] != '-' || a[1] == '\0')
            rc = add_positional(cmd, a, out, e);
        else if (!strcmp(a, "--"))
            only_pos = true, rc = 0;
        else
            rc = parse_option(cmd, argc, argv, &i, out, e);
        if (rc)
            return rc;
    }
    return 0;
}

/* Help lines wrap at this column. */
#define HELP_COLS 79
/* The option column's widest (a longer option gets a line of its own). */
#define HELP_HEAD_MAX 28

/* Option o as "-p, --ranks RANKS". */
static void help_head(const CliOpt *o, char *head, size_t n)
{
    snprintf(head, n, "%c%c%s%s%s%s%s", o->short_name ? '-' : ' ',
             o->short_name ? o->short_name : ' ',
             o->short_name && o->long_name ? ", " : "  ",
             o->long_name ? "--" : "", o->long_name ? o->long_name : "",
             o->arg ? " " : "", o->arg ? o->arg : "");
}

/* text from column `col`, wrapped at HELP_COLS, continuation lines
 * indented to col (a word longer than a line stays whole). */
static void help_wrapped(CliText *t, const char *text, int col)
{
    int at = col;
    while (*text) {
        while (*text == ' ')
            text++;
        size_t w = strcspn(text, " ");
        if (!w)
            break;
        if (at > col && at + 1 + (int)w > HELP_COLS) {
            cli_text_add(t, "\n%*s", col, "");
            at = col;
        }
        cli_text_add(t, "%s%.*s", at > col ? " " : "", (int)w, text);
        at += (at > col ? 1 : 0) + (int)w;
        text += w;
    }
    cli_text_add(t, "\n");
}

size_t cli_help_text(const CliCmd *cmd, char *buf, size_t n)
{
    CliText t = {buf, n, 0};
    if (n)
        buf[0] = '\0';
    cli_text_add(&t, "usage: collviz %s\n\n%s\n", cmd->usage, cmd->about);
    if (cmd->nopts)
        cli_text_add(&t, "\noptions:\n");
    int width = 0;
    for (size_t i = 0; i < cmd->nopts; i++) {
        char head[64];
        help_head(&cmd->opts[i], head, sizeof head);
        int w = (int)strlen(head);
        width = w > width && w <= HELP_HEAD_MAX ? w : width;
    }
    for (size_t i = 0; i < cmd->nopts; i++) {
        const CliOpt *o = &cmd->opts[i];
        char head[64];
        help_head(o, head, sizeof head);
        if ((int)strlen(head) > width)
            cli_text_add(&t, "  %s\n%*s", head, width + 3, "");
        else
            cli_text_add(&t, "  %-*s ", width, head);
        help_wrapped(&t, o->help, width + 3);
    }
    return t.len;
}

/* --------------------------------------------------------------- names */

/* A family of names: collectives, datatypes, ops, link models. */
typedef struct {
    const char *what;           /* "collective", "datatype", ... */
    int (*parse)(const char *); /* name to value, -1 when unknown */
    const char *(*name)(int);   /* value to name */
    int count;                  /* values are 0 .. count-1 */
} NameSet;

static const char *coll_name_of(int v) { return coll_name((CollKind)v); }
static const char *dtype_name_of(int v) { return dtype_name((DataType)v); }
static const char *redop_name_of(int v) { return redop_name((RedOp)v); }
/* --link: a flat machine, by its name or (as before -T) its link model's:
 * full or p2p, bus or shared. */
static int flat_parse(const char *s)
{
    static const char *const names[] = {"full", "bus", "p2p", "shared"};
    for (int i = 0; i < 4; i++)
        if (!strcasecmp(s, names[i]))
            return i % 2 ? MACHINE_BUS : MACHINE_FULL;
    return -1;
}
static const char *flat_name_of(int v) { return machine_kind_name((MachineKind)v); }

static const NameSet coll_names = {"collective", coll_parse, coll_name_of, COLL_COUNT};
static const NameSet dtype_names = {"datatype", dtype_parse, dtype_name_of, DT_COUNT};
static const NameSet redop_names = {"reduction op", redop_parse, redop_name_of, OP_COUNT};
static const NameSet flat_names = {"flat machine", flat_parse, flat_name_of, 2};
static const char *pricing_name_of(int v)
{
    return model_pricing_name((PricingMode)v);
}
static const NameSet pricing_names = {"pricing mode", model_pricing_parse,
                                      pricing_name_of, PRICING_COUNT};

/* Parse s; the sentence for an unknown (or missing) name lists them all. */
static int parse_name(const NameSet *ns, const char *s, int *out, CliErr *e)
{
    int v = s ? ns->parse(s) : -1;
    if (v >= 0) {
        *out = v;
        return 0;
    }
    char names[256];
    CliText t = {names, sizeof names, 0};
    for (int i = 0; i < ns->count; i++)
        cli_text_add(&t, "%s%s", i ? ", " : "", ns->name(i));
    if (!s)
        return cli_fail(e, "missing %s; give one of: %s", ns->what, names);
    return cli_fail(e, "unknown %s '%s'; valid: %s", ns->what, s, names);
}

int cli_parse_coll(const char *s, CollKind *out, CliErr *e)
{
    int v;
    if (parse_name(&coll_names, s, &v, e))
        return -1;
    *out = (CollKind)v;
    return 0;
}

/* The algorithms of collective k, ", " separated. */
static void algo_list(CollKind k, CliText *t)
{
    int n = 0;
    for (size_t i = 0, m = algo_count(); i < m; i++)
        if (algo_at(i)->coll == k)
            cli_text_add(t, "%s%s", n++ ? ", " : "", algo_at(i)->name);
    if (!n)
        cli_text_add(t, "(none registered)");
}

/* The collectives other than k that have an algorithm called s. */
static int algo_owners(CollKind k, const char *s, CliText *t)
{
    int n = 0;
    for (int o = 0; o < COLL_COUNT; o++)
        if (o != (int)k && algo_find((CollKind)o, s))
            cli_text_add(t, "%s%s", n++ ? ", " : "", coll_name((CollKind)o));
    return n;
}

int cli_parse_algo(CollKind k, const char *s, bool allow_all,
                   const AlgoInfo **out, CliErr *e)
{
    *out = s ? algo_find(k, s) : algo_default(k);
    if (*out)
        return 0;
    if (s && allow_all && !strcasecmp(s, "all"))
        return 0;
    char valid[512], owners[256];
    CliText tv = {valid, sizeof valid, 0}, to = {owners, sizeof owners, 0};
    algo_list(k, &tv);
    if (!s)
        return cli_fail(e, "no algorithm is registered for %s", coll_name(k));
    if (algo_owners(k, s, &to))
        return cli_fail(e, "algorithm '%s' is for %s, not %s; valid for %s: %s%s",
                        s, owners, coll_name(k), coll_name(k), valid,
                        allow_all ? ", all" : "");
    return cli_fail(e, "unknown algorithm '%s' for %s; valid: %s%s", s,
                    coll_name(k), valid, allow_all ? ", all" : "");
}

int cli_parse_dtype(const char *s, DataType *out, CliErr *e)
{
    int v = DT_FLOAT;
    if (s && parse_name(&dtype_names, s, &v, e))
        return -1;
    *out = (DataType)v;
    return 0;
}

int cli_parse_op(const char *s, RedOp *out, CliErr *e)
{
    int v = OP_SUM;
    if (s && parse_name(&redop_names, s, &v, e))
        return -1;
    *out = (RedOp)v;
    return 0;
}

int cli_parse_ranks_upto(const char *s, int most, int *out, CliErr *e)
{
    long v;
    if (!cli_whole_number(s, &v))
        return cli_fail(e, "rank count '%s' is not a whole number; give 1 to %d",
                        s ? s : "", most);
    if (v < 1 || v > most)
        return cli_fail(e, "rank count %ld is out of range; valid: 1 to %d", v,
                        most);
    *out = (int)v;
    return 0;
}

int cli_parse_ranks(const char *s, int *out, CliErr *e)
{
    return cli_parse_ranks_upto(s, COLL_MAX_RANKS, out, e);
}

int cli_parse_root(const char *s, CollKind k, int nranks, int *out, CliErr *e)
{
    long v = 0;
    if (s && !cli_whole_number(s, &v))
        return cli_fail(e, "root '%s' is not a whole number", s);
    if (v < 0 || v >= nranks)
        return cli_fail(e, "root %ld is out of range for %d rank%s; valid: 0 to %d",
                        v, nranks, nranks == 1 ? "" : "s", nranks - 1);
    if (v != 0 && !coll_is_rooted(k))
        return cli_fail(e, "%s has no root; -r applies to broadcast, reduce, "
                        "scatter and gather", coll_name(k));
    *out = (int)v;
    return 0;
}

/* --------------------------------------------------------------- sizes */

/* The power of 1024 a suffix stands for, or -1. */
static int size_shift(const char *suf)
{
    int shift;
    if (!*suf || !strcasecmp(suf, "B"))
        return 0;
    switch (suf[0]) {
    case 'K': case 'k': shift = 10; break;
    case 'M': case 'm': shift = 20; break;
    case 'G': case 'g': shift = 30; break;
    default: return -1;
    }
    const char *rest = suf + 1;
    if (*rest && strcasecmp(rest, "B") && strcasecmp(rest, "iB"))
        return -1;
    return shift;
}

int cli_parse_size(const char *what, const char *s, unsigned long long *out,
                   CliErr *e)
{
    if (!s || !*s)
        return cli_fail(e, "%s is empty; give bytes, e.g. 1024 or 64K", what);
    if (s[0] == '-')
        return cli_fail(e, "%s '%s' is negative", what, s);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = size_shift(end);
    if (!(s[0] >= '0' && s[0] <= '9') || shift < 0)
        return cli_fail(e, "%s '%s' is not a size; give bytes with an optional "
                        "K, M or G suffix (powers of 1024), e.g. 64K", what, s);
    if (errno || v > (CLI_MAX_SIZE >> shift))
        return cli_fail(e, "%s '%s' is too large; the most is 1024G", what, s);
    *out = v << shift;
    return 0;
}

int cli_count_for_size(const CollCall *c, unsigned long long bytes,
                       size_t *count, CliErr *e)
{
    size_t ts = dtype_size(c->dtype);
    unsigned long long bb = coll_block_bytes(c);
    if (bytes % ts)
        return cli_fail(e, "size %llu bytes is not a multiple of the datatype "
                        "%s (%zu bytes)", bytes, dtype_name(c->dtype), ts);
    long long n = coll_count_for_size(c->kind, c->nranks, c->dtype, bytes);
    CollCall got = *c;
    got.count = n < 0 ? 0 : (size_t)n;
    if (n < 0 || coll_size_bytes(&got) != bytes)
        return cli_fail(e, "size %llu bytes is not a whole number of blocks: the "
                        "size of %s on %d ranks is %llu equal blocks, so it must "
                        "be a multiple of %llu bytes (%llu %s); the nearest are "
                        "%llu and %llu", bytes, coll_name(c->kind), c->nranks,
                        bb / ts, bb, bb / ts, dtype_name(c->dtype),
                        bytes / bb * bb, (bytes / bb + 1) * bb);
    *count = got.count;
    return 0;
}

/* Parse the sweep's step rule: -f FACTOR or -i STEP. */
static int parse_sweep_step(const char *factor, const char *step, Sweep *sw,
                            CliErr *e)
{
    long f = 2;
    if (factor && step)
        return cli_fail(e, "give -f FACTOR or -i STEP, not both");
    if (step) {
        if (cli_parse_size("-i", step, &sw->step, e))
            return -1;
        if (sw->step == 0)
            return cli_fail(e, "-i must be at least 1 byte");
        return 0;
    }
    if (factor && (!cli_whole_number(factor, &f) || f < 2))
        return cli_fail(e, "-f '%s' must be a whole number of at least 2", factor);
    sw->factor = (unsigned long long)f;
    return 0;
}

int cli_parse_sweep(const char *min, const char *max, const char *factor,
                    const char *step, DataType t, unsigned long long def_min,
                    unsigned long long def_max, Sweep *out, CliErr *e)
{
    Sweep sw = {def_min, def_max, 0, 0};
    size_t ts = dtype_size(t);
    if ((min && cli_parse_size("-b", min, &sw.min, e)) ||
        (max && cli_parse_size("-e", max, &sw.max, e)))
        return -1;
    if (sw.min % ts || sw.max % ts)
        return cli_fail(e, "%s %llu bytes is not a multiple of the datatype %s "
                        "(%zu bytes)", sw.min % ts ? "-b" : "-e",
                        sw.min % ts ? sw.min : sw.max, dtype_name(t), ts);
    if (sw.min > sw.max)
        return cli_fail(e, "-b %llu bytes is larger than -e %llu bytes", sw.min,
                        sw.max);
    if (parse_sweep_step(factor, step, &sw, e))
        return -1;
    size_t points = 1;
    for (unsigned long long s = sw.min; sweep_next(&sw, &s);)
        if (++points > CLI_MAX_SWEEP)
            return cli_fail(e, "the sweep from %llu to %llu bytes has more than "
                            "%d sizes; use a larger -f or -i", sw.min, sw.max,
                            CLI_MAX_SWEEP);
    *out = sw;
    return 0;
}

/* --------------------------------------------------------------- model */

/* A finite number followed by the rest at *end. As for whole numbers,
 * it starts with a digit, a '.' or one '-': no blank, no '+'. */
static bool parse_double(const char *s, double *v, char **end)
{
    const char *d = s && *s == '-' ? s + 1 : s;
    if (!d || !((*d >= '0' && *d <= '9') || *d == '.'))
        return false;
    errno = 0;
    *v = strtod(s, end);
    return !errno && *end != s && isfinite(*v);
}

int cli_parse_seconds(const char *what, const char *s, double max,
                      double *out, CliErr *e)
{
    double v;
    char *end;
    if (parse_double(s, &v, &end) && !*end && v >= 0 && v <= max) {
        *out = v;
        return 0;
    }
    return cli_fail(e, "%s '%s' must be a number of seconds from 0 to %g",
                    what, s ? s : "", max);
}

int cli_parse_time(const char *what, const char *s, double *out, CliErr *e)
{
    static const struct { const char *unit; double scale; } units[] = {
        {"", 1e-6}, {"us", 1e-6}, {"ns", 1e-9}, {"ms", 1e-3}, {"s", 1.0},
    };
    double v;
    char *end;
    if (parse_double(s, &v, &end) && v >= 0)
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (!strcasecmp(end, units[i].unit)) {
                if (!(v * units[i].scale <= CLI_MAX_ALPHA))
                    return cli_fail(e, "%s '%s' is more than %g s, "
                                    "longer than any message takes to start",
                                    what, s, CLI_MAX_ALPHA);
                *out = v * units[i].scale;
                return 0;
            }
    return cli_fail(e, "%s '%s' is not a time of at least 0; give "
                    "microseconds or a unit, e.g. 1.5, 800ns, 2us", what, s);
}

/* A bandwidth in GB/s (1e9 bytes per second) into seconds per byte. */
int cli_parse_bw(const char *what, const char *s, double *out, CliErr *e)
{
    double v;
    char *end;
    if (parse_double(s, &v, &end) && v > 0 &&
        (!*end || !strcasecmp(end, "GB/s"))) {
        if (!(v >= CLI_MIN_BW && v <= CLI_MAX_BW))
            return cli_fail(e, "%s '%s' is outside %g to %g GB/s, the "
                            "bandwidths collviz can model", what, s,
                            CLI_MIN_BW, CLI_MAX_BW);
        *out = 1.0 / (v * 1e9);
        return 0;
    }
    return cli_fail(e, "%s '%s' is not a bandwidth above 0; give GB/s, e.g. 12.5",
                    what, s);
}

int cli_parse_link(const char *s, MachineKind *out, CliErr *e)
{
    int l = MACHINE_FULL;
    if (parse_name(&flat_names, s, &l, e))
        return -1;
    *out = (MachineKind)l;
    return 0;
}

int cli_parse_pricing(const char *s, PricingMode *out, CliErr *e)
{
    int v = PRICING_LOCKSTEP;
    if (parse_name(&pricing_names, s, &v, e))
        return -1;
    *out = (PricingMode)v;
    return 0;
}

/* ------------------------------------------------------------ printing */

size_t cli_time_text(double seconds, char *buf, size_t n)
{
    static const struct { double scale; const char *unit; } units[] = {
        {1e9, "ns"}, {1e6, "us"}, {1e3, "ms"}, {1.0, "s"},
    };
    size_t u = 0;
    while (u + 1 < sizeof units / sizeof units[0] &&
           fabs(seconds) * units[u].scale >= 999.5)
        u++;
    int k = snprintf(buf, n, "%.4g %s", seconds * units[u].scale, units[u].unit);
    return k > 0 ? (size_t)k : 0;
}

void cli_date_text(long long when, char *buf, size_t n)
{
    time_t t = (time_t)when;
    struct tm tm;
    if (!n)
        return;
    if ((long long)t != when || !localtime_r(&t, &tm) ||
        !strftime(buf, n, "%Y-%m-%d %H:%M", &tm))
        snprintf(buf, n, "an unknown date");
}

int cli_error(const CliErr *e)
{
    /* the sentence quotes the command line: its controls as escapes */
    char safe[sizeof e->msg * 4];
    sanitize(safe, sizeof safe, e->msg, 0);
    fprintf(stderr, "collviz: %s\n", safe);
    return CLI_EXIT_USAGE;
}

int cli_help(const CliCmd *cmd)
{
    size_t need = cli_help_text(cmd, NULL, 0) + 1;
    char *buf = malloc(need);
    if (!buf) {
        fputs("collviz: out of memory\n", stderr);
        return CLI_EXIT_FAIL;
    }
    cli_help_text(cmd, buf, need);
    fputs(buf, stdout);
    free(buf);
    return CLI_EXIT_OK;
}

int cli_start(const CliCmd *cmd, int help_opt, int argc, char **argv,
              CliArgs *a)
{
    CliErr e;
    if (cli_parse_args(cmd, argc, argv, a, &e))
        return cli_error(&e);
    return cli_has(a, help_opt) ? cli_help(cmd) : -1;
}
