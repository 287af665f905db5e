/* scene_opts.c - the one parser of the options that choose a scene. */
#include "scene/scene_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const SceneLimits scene_limits_trace = {
    .cmd = "trace",
    .who = "trace",
    .max_ranks = SCHED_MAX_RANKS,
};

const SceneLimits scene_limits_lesson = {
    .cmd = "trace",
    .who = "a lesson",
    .max_ranks = COLL_MAX_RANKS,
};

const SceneLimits scene_limits_learner = {
    .cmd = "trace",
    .who = "a lesson",
    .max_ranks = COLL_MAX_RANKS,
    .files = true,
};

const SceneLimits scene_limits_tui = {
    .cmd = "tui",
    .who = "the TUI",
    .max_ranks = 64,
    .def_coll = "allreduce",
    .def_ranks = 8,
    .def_bytes = 64ull << 20,
    .keep_wrong = true,
};

/* A schedule file's size where -s is absent: its count of elements, or
 * the default size's whole blocks rounded down to a whole number of its
 * parts (at least one element a part). */
static int file_bytes(const SchedText *file, const SceneLimits *lim,
                      SceneSpec *out)
{
    CollCall *c = &out->call;
    c->count = algo_file_count(out->algo, lim->def_bytes
                                   ? coll_count_floor(c, lim->def_bytes)
                                   : file->unit.call.count);
    out->bytes = coll_size_bytes(c);
    return 0;
}

/* The size: -s checked against the call, or the default's whole blocks. */
static int parse_bytes(const char *size, const SceneLimits *lim,
                       SceneSpec *out, CliErr *e)
{
    CollCall *c = &out->call;
    out->bytes_given = size != NULL;
    const SchedText *file = algo_file_text(out->algo);
    if (!size && file)
        return file_bytes(file, lim, out);
    if (!size && !lim->def_bytes)
        return cli_fail(e, "missing size; give -s SIZE in bytes, e.g. -s 1K");
    if (!size) {
        out->bytes = lim->def_bytes;
        c->count = coll_count_floor(c, out->bytes);
        return 0;
    }
    if (cli_parse_size("size", size, &out->bytes, e) ||
        cli_count_for_size(c, out->bytes, &c->count, e))
        return -1;
    return 0;
}

/* -T: the machine must parse and hold the call's ranks. */
static int scene_opts_topo(const char *topo, const SpecModel *cm,
                           SceneSpec *out, CliErr *e)
{
    SpecModel def;
    if (!cm && spec_parse_model(NULL, NULL, NULL, NULL, &def, e))
        return -1;
    return spec_machine_name(&out->machine, topo, e) ||
                   spec_machine_build(&out->machine, out->call.nranks, false,
                                      cm ? cm : &def, e)
               ? -1
               : 0;
}

int scene_opts_parse(const CliArgs *a, const SceneLimits *lim,
                     SceneSpec *out, CliErr *e)
{
    return scene_opts_parse_on(a, lim, NULL, out, e);
}

int scene_opts_parse_on(const CliArgs *a, const SceneLimits *lim,
                        const SpecModel *cm, SceneSpec *out, CliErr *e)
{
    SceneCallArgs ca = {
        .coll = a->npos ? a->pos[0]
                : sched_file_named(a->val[SCENE_OPT_ALGO]) ? NULL
                : lim->def_coll,
        .algo = a->val[SCENE_OPT_ALGO],
        .ranks = a->val[SCENE_OPT_RANKS],
        .dtype = a->val[SCENE_OPT_DTYPE],
        .op = a->val[SCENE_OPT_OP],
        .root = a->val[SCENE_OPT_ROOT],
        .in_place = cli_has(a, SCENE_OPT_INPLACE),
        .segment = a->val[SCENE_OPT_SEGMENT],
        .def_ranks = lim->def_ranks,
        .max_ranks = lim->max_ranks,
        .keep_wrong = lim->keep_wrong,
    };
    *out = (SceneSpec){.bytes = 0};
    if (scene_opts_resolve_call(&ca, &out->call, &out->algo, e))
        return -1;
    if (out->call.nranks > lim->max_ranks)
        return cli_fail(e, "%s shows 1 to %d ranks, not %d; 'collviz trace' "
                        "prints larger schedules", lim->who, lim->max_ranks,
                        out->call.nranks);
    if (parse_bytes(a->val[SCENE_OPT_SIZE], lim, out, e))
        return -1;
    const SchedText *file = algo_file_text(out->algo);
    char why[CV_WHY_LEN];
    if (file && sched_text_fits(file, &out->call, why, sizeof why))
        return cli_fail(e, "%s: %s", out->algo->name, why);
    return cli_has(a, SCENE_OPT_TOPO)
               ? scene_opts_topo(a->val[SCENE_OPT_TOPO], cm, out, e)
               : 0;
}

/* ------------------------------------------------------------ one line */

/* The most words a scene line may have. */
#define LINE_MAX_WORDS 64

static const CliOpt line_opts[SCENE_OPT_COUNT] = {
    SCENE_OPTS("number of ranks", "size in bytes"),
};

/* Split `copy` at blanks into argv[1..]; argv[0] is the command's name.
 * Returns argc, or -1 when there are too many words. */
/* The next word of *at into w (in place: w <= *at): blanks end it
 * outside quotes; '...' keeps what it holds as it is, "..." too but
 * for \" and \\, and outside quotes \ keeps the next character (a
 * path with a blank: -a "my dir/ring.cvs"). 1: a word; 0: none left;
 * -1: a quote not closed. */
static int next_word(char **at, char **w)
{
    char *r = *at + strspn(*at, " \t\r\n"), *o = r;
    char q = 0;
    if (!*r)
        return 0;
    *w = o;
    for (; *r && (q || !strchr(" \t\r\n", *r)); r++) {
        if (!q && (*r == '\'' || *r == '"'))
            q = *r;
        else if (q && *r == q)
            q = 0;
        else if (*r == '\\' && r[1] && q != '\'' &&
                 (!q || r[1] == '"' || r[1] == '\\'))
            *o++ = *++r;
        else
            *o++ = *r;
    }
    if (q)
        return -1;
    *at = *r ? r + 1 : r;
    *o = '\0';
    return 1;
}

const char *scene_opts_quote(const char *word)
{
    return !strpbrk(word, " \t\r\n\"'\\") ? ""
           : strchr(word, '\'')                 ? "\""
                                                : "'";
}

/* copy's words after cmd into argv: argc; -1 too many, -2 a quote not
 * closed. */
static int split_words(char *copy, const char *cmd, char **argv)
{
    int argc = 0, r;
    char *at = copy, *w;
    argv[argc++] = (char *)cmd;
    while ((r = next_word(&at, &w)) > 0) {
        if (argc == LINE_MAX_WORDS)
            return -1;
        argv[argc++] = w;
    }
    return r < 0 ? -2 : argc;
}

int scene_opts_parse_line(const char *line, const SceneLimits *lim,
                          SceneSpec *out, CliErr *e)
{
    const CliCmd cmd = {.name = lim->cmd, .opts = line_opts,
                        .nopts = SCENE_OPT_COUNT, .max_pos = 1};
    char *copy = strdup(line ? line : ""), *argv[LINE_MAX_WORDS];
    if (!copy)
        return cli_fail(e, "%s", "there is not enough memory to read the "
                        "scene");
    CliArgs a;
    int argc = split_words(copy, lim->cmd, argv), rc;
    if (argc == -2)
        rc = cli_fail(e, "%s", "a quote in the scene is not closed");
    else if (argc < 0)
        rc = cli_fail(e, "the scene has more than %d words", LINE_MAX_WORDS - 1);
    else if (cli_parse_args(&cmd, argc, argv, &a, e))
        rc = -1;
    else if (!lim->files && sched_file_named(a.val[SCENE_OPT_ALGO]))
        rc = cli_fail(e, "a scene names a built-in algorithm (ring, tree, "
                      "...), not a schedule file");
    else if (a.val[SCENE_OPT_TOPO] && spec_is_file(a.val[SCENE_OPT_TOPO]))
        rc = cli_fail(e, "a scene names its machine by -T's shorthand (torus:4x4, "
                      "nodes:2x4, ...), not by a file");
    else
        rc = scene_opts_parse(&a, lim, out, e);
    free(copy);
    return rc;
}

/* ---------------------------------------------------------- the call */

__attribute__((format_arg(1)))
static const char *as_written(const char *fmt)
{
    return fmt;
}

/* The two sentences are the TUI's too: src/ui/words.c lists them for its
 * catalogue, and test_ui_zh holds the list to these. */
CvError scene_opts_call_why(const CollCall *c, SceneTranslate tr, char *why,
                            size_t whylen)
{
    CvError e = coll_check(c);
    int below, above;
    coll_pow2_around(c->nranks, &below, &above);
    if (!tr)
        tr = as_written;
    if (e == CV_ERR_IN_PLACE)
        snprintf(why, whylen, tr("%s runs out of place only: it sends one "
                                 "buffer into another"),
                 coll_name(c->kind));
    else if (e)
        snprintf(why, whylen, tr("%s needs a power of two ranks; %d is not "
                                 "one: choose %d or %d"),
                 coll_name(c->kind), c->nranks, below, above);
    return e;
}

int scene_opts_check_call(const CollCall *c, CliErr *e)
{
    CvError why = scene_opts_call_why(c, NULL, e->msg, sizeof e->msg);
    size_t n = strlen(e->msg);
    if (why == CV_ERR_IN_PLACE) /* what to change on a command line */
        snprintf(e->msg + n, sizeof e->msg - n, "; drop --in-place");
    return why ? -1 : 0;
}

/* --segment: a size of at least one element, for an algorithm that cuts
 * the vector into segments (every algorithm of the collective: one of
 * them must). */
static int parse_segment(const char *s, const AlgoInfo *algo, CollCall *c,
                         CliErr *e)
{
    unsigned long long b;
    bool takes = algo && algo->segments;
    for (size_t i = 0, n = algo_count(); !algo && i < n; i++)
        takes = takes || (algo_at(i)->coll == c->kind && algo_at(i)->segments);
    if (!takes)
        return cli_fail(e, "--segment sets the chain broadcast's segments "
                        "(broadcast -a chain); %s%s%s cuts none",
                        coll_name(c->kind), algo ? " -a " : "",
                        algo ? algo->name : "");
    if (cli_parse_size("segment", s, &b, e))
        return -1;
    if (b < dtype_size(c->dtype))
        return cli_fail(e, "a segment of %llu bytes holds no whole %s "
                        "element; give at least %zu", b, dtype_name(c->dtype),
                        dtype_size(c->dtype));
    c->segment = (size_t)b;
    return 0;
}

/* -a FILE: the file's algorithm, and its collective where none is
 * named (in->coll NULL). */
static int file_algo(const SceneCallArgs *in, CollCall *c,
                     const AlgoInfo **algo, CliErr *e)
{
    if (sched_file_load(in->algo, in->keep_wrong, algo, e))
        return -1;
    const CollCall *u = &algo_file_text(*algo)->unit.call;
    if (in->coll && cli_parse_coll(in->coll, &c->kind, e))
        return -1;
    if (in->coll && c->kind != u->kind)
        return cli_fail(e, "%s is a schedule of %s, not %s", in->algo,
                        coll_name(u->kind), coll_name(c->kind));
    c->kind = u->kind;
    return 0;
}

/* Ranks, root and in place: a file's where the options name none; the
 * options must agree with it. */
static int file_call(const SceneCallArgs *in, CollCall *c,
                     const AlgoInfo *algo, CliErr *e)
{
    const CollCall *u = &algo_file_text(algo)->unit.call;
    if (c->nranks != u->nranks)
        return cli_fail(e, "%s is a schedule for %d ranks, not %d", in->algo,
                        u->nranks, c->nranks);
    if (coll_is_rooted(c->kind) && !in->root)
        c->root = u->root;
    if (coll_is_rooted(c->kind) && c->root != u->root)
        return cli_fail(e, "%s is a schedule for root %d, not %d", in->algo,
                        u->root, c->root);
    if (in->in_place && !u->in_place)
        return cli_fail(e, "%s is a schedule out of place; drop --in-place",
                        in->algo);
    c->in_place = u->in_place;
    return 0;
}

int scene_opts_resolve_call(const SceneCallArgs *in, CollCall *call,
                     const AlgoInfo **algo, CliErr *e)
{
    CollCall c = {0};
    bool file = sched_file_named(in->algo);
    if (file ? file_algo(in, &c, algo, e)
             : cli_parse_coll(in->coll, &c.kind, e) ||
                   cli_parse_algo(c.kind, in->algo, in->allow_all, algo, e))
        return -1;
    int most = in->max_ranks > 0 ? in->max_ranks : COLL_MAX_RANKS;
    if (!in->ranks && in->def_ranks <= 0 && !file)
        return cli_fail(e, "missing rank count; give -p RANKS (1 to %d)",
                        most);
    c.nranks = file ? algo_file_text(*algo)->unit.call.nranks
                    : in->def_ranks;
    if ((in->ranks && cli_parse_ranks_upto(in->ranks, most, &c.nranks, e)) ||
        cli_parse_dtype(in->dtype, &c.dtype, e) ||
        cli_parse_op(in->op, &c.op, e) ||
        cli_parse_root(in->root, c.kind, c.nranks, &c.root, e))
        return -1;
    c.in_place = in->in_place;
    if (file && file_call(in, &c, *algo, e))
        return -1;
    if ((in->segment && parse_segment(in->segment, *algo, &c, e)) ||
        scene_opts_check_call(&c, e))
        return -1;
    *call = c;
    return 0;
}
