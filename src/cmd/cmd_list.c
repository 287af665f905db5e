/* cmd_list.c - `collviz list`: every collective and its algorithms from
 * the registry, with constraints and closed-form cost. */
#include <stdio.h>
#include <string.h>

#include "algos/algo.h"
#include "cli/cli.h"
#include "cmd/cmd.h"
#include "core/num.h"

enum { LIST_VERBOSE, LIST_HELP, LIST_NOPTS };

static const CliOpt list_opts[LIST_NOPTS] = {
    [LIST_VERBOSE] = {'v', "verbose", NULL, "also print what each algorithm does, how it is drawn and its exact schedule"},
    [LIST_HELP] = CLI_OPT_HELP,
};

static const CliCmd list_cmd = {
    .name = "list",
    .usage = "list [COLL] [-v]",
    .about = "Print every collective and its algorithms (or those of COLL): name,\n"
             "whether it is the default, other names, and its closed-form cost,\n"
             "where a is alpha (latency per message), b is beta (time per byte),\n"
             "g is gamma (time per byte reduced) and n is the size in bytes\n"
             "(nccl-tests meaning). An indented line under a row continues it:\n"
             "what the algorithm needs; the cost when p is not a power of two,\n"
             "where it differs (the row's is then the power-of-two one); with\n"
             "-v, what it does (for those made for a machine, the paper or\n"
             "library it comes from) and its exact schedule: who sends what\n"
             "to whom in each step, in which order of partners, and how\n"
             "ranks beyond a power of two fold in (the same words as the man\n"
             "page's Schedules). Lines starting with '#' are headers.",
    .opts = list_opts,
    .nopts = LIST_NOPTS,
    .max_pos = 1,
};

static const char *const coll_aliases[COLL_COUNT] = {
#define X(id, name, alias) [id] = alias,
    COLL_KINDS(X)
#undef X
};

static const char *const shape_names[SHAPE_COUNT] = {
    [SHAPE_RING] = "ring",   [SHAPE_TREE] = "tree", [SHAPE_HYPERCUBE] = "hypercube",
    [SHAPE_STAR] = "star",   [SHAPE_CHAIN] = "chain", [SHAPE_FULL] = "full",
};

/* Column widths: the longest entry of each padded column. */
typedef struct {
    int algo;    /* algorithm names */
    int aliases; /* alias lists */
} Widths;


static Widths list_widths(void)
{
    Widths w = {(int)strlen("algorithm"), (int)strlen("aliases")};
    for (size_t i = 0, n = algo_count(); i < n; i++) {
        const AlgoInfo *a = algo_at(i);
        w.algo = num_max(w.algo, (int)strlen(a->name));
        w.aliases = num_max(w.aliases, (int)strlen(a->aliases));
    }
    return w;
}

static void print_header(int only)
{
    size_t n = 0;
    for (size_t i = 0, m = algo_count(); i < m; i++)
        n += only < 0 || algo_at(i)->coll == (CollKind)only;
    printf("# collviz list: %d collective%s, %zu algorithm%s\n",
           only < 0 ? COLL_COUNT : 1, only < 0 ? "s" : "", n, n == 1 ? "" : "s");
    printf("# collectives (short name):");
    for (int k = 0; k < COLL_COUNT; k++) {
        const char *name = coll_name((CollKind)k);
        printf("%s %s", k ? "," : "", name);
        if (strcmp(name, coll_aliases[k]))
            printf(" (%s)", coll_aliases[k]);
    }
    printf("\n# datatypes:");
    for (int t = 0; t < DT_COUNT; t++)
        printf(" %s", dtype_name((DataType)t));
    printf("\n# ops:");
    for (int o = 0; o < OP_COUNT; o++)
        printf(" %s", redop_name((RedOp)o));
    printf("\n# formula: a = alpha (per message), b = beta (per byte), g = gamma "
           "(per byte reduced),\n#   n = the size in bytes (nccl-tests meaning), "
           "p = ranks\n# an indented line under a row continues it: what the "
           "algorithm needs, its cost when p is not a power of two where "
           "that differs\n");
}

/* The width `list -v` wraps a schedule to, and the indent of the lines
 * after its first: still lines that continue the row above. */
enum { WRAP_WIDTH = 79, WRAP_INDENT = 6 };

/* The length of the word at p, an equation "x = y" counting as one. */
static int word_len(const char *p)
{
    size_t len = strcspn(p, " ");
    while (!strncmp(p + len, " = ", 3))
        len += 3 + strcspn(p + len + 3, " ");
    return (int)len;
}

/* "    schedule: " and a's schedule, wrapped at spaces to WRAP_WIDTH (not
 * inside "k = 0"). */
static void print_schedule(const AlgoInfo *a)
{
    int col = printf("    schedule:");
    for (const char *p = a->schedule; p && *p;) {
        int len = word_len(p);
        if (col > WRAP_INDENT && col + 1 + len > WRAP_WIDTH)
            col = printf("\n%*s", WRAP_INDENT, "") - 1;
        else
            col += printf(" ");
        col += printf("%.*s", len, p);
        p += len;
        p += strspn(p, " ");
    }
    printf("\n");
}

static void print_algo(const AlgoInfo *a, const Widths *w, bool verbose)
{
    bool dflt = algo_default(a->coll) == a;
    printf("%-13s  %-*s  %-7s  %-*s  %s\n", coll_name(a->coll), w->algo, a->name,
           dflt ? "yes" : "no", w->aliases, *a->aliases ? a->aliases : "-",
           a->formula);
    printf("    needs: %s\n", a->constraints);
    if (a->formula_other)
        printf("    %s\n", a->formula_other);
    if (verbose) {
        printf("    about: %s; drawn as %s\n", a->summary,
               a->shape < SHAPE_COUNT ? shape_names[a->shape] : "?");
        print_schedule(a);
    }
}

int cmd_list(int argc, char **argv)
{
    CliArgs args;
    CliErr e;
    CollKind only = COLL_COUNT;
    int rc = cli_start(&list_cmd, LIST_HELP, argc, argv, &args);
    if (rc >= 0)
        return rc;
    if (args.npos && cli_parse_coll(args.pos[0], &only, &e))
        return cli_error(&e);
    Widths w = list_widths();
    print_header(only == COLL_COUNT ? -1 : (int)only);
    printf("# %-11s  %-*s  %-7s  %-*s  %s\n", "collective", w.algo, "algorithm",
           "default", w.aliases, "aliases", "formula");
    for (int k = 0; k < COLL_COUNT; k++) {
        if (only != COLL_COUNT && k != (int)only)
            continue;
        size_t shown = 0;
        for (size_t i = 0, n = algo_count(); i < n; i++)
            if (algo_at(i)->coll == (CollKind)k && ++shown)
                print_algo(algo_at(i), &w, cli_has(&args, LIST_VERBOSE));
        if (!shown)
            printf("# %s: no algorithm registered\n", coll_name((CollKind)k));
    }
    if (cli_has(&args, LIST_VERBOSE))
        printf("# the formulas price a network: a per message at a port, b "
               "per byte a link carries,\n#   local copies free. On a memory "
               "machine (-T gpu, -T host: ranks sharing one GPU's\n#   or one "
               "host's memory) a step costs one start (a launch, a barrier) "
               "whatever its\n#   messages, then its memory traffic: a copy "
               "reads and writes its bytes, a reduce\n#   reads two and "
               "writes one, a range several transfers read is read once; so "
               "the\n#   one-step algorithms (linear, direct, pairwise) win "
               "there ('collviz model -T gpu')\n");
    return CLI_EXIT_OK;
}
