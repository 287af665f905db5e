/* scene_opts.h - the options that choose a scene: collective, algorithm,
 * ranks, size, datatype, op, root, in place. One table of them and one
 * parser serve `collviz trace`, the TUI and a lesson's scene line, so each
 * refuses the same input with the same sentence. Where the commands
 * differ (the TUI shows at most 64 ranks and has defaults where trace
 * wants the value given), the caller passes SceneLimits. */
#ifndef COLLVIZ_SCENE_SCENE_OPTS_H
#define COLLVIZ_SCENE_SCENE_OPTS_H

#include <stdbool.h>

#include "algos/algo.h"
#include "cli/cli.h"
#include "scene/sched_file.h"
#include "scene/spec.h"
#include "core/coll.h"

/* The scene options' places at the start of a command's option table. A
 * command numbers its own options from SCENE_OPT_COUNT on. */
enum {
    SCENE_OPT_ALGO,    /* -a ALGO */
    SCENE_OPT_RANKS,   /* -p RANKS */
    SCENE_OPT_SIZE,    /* -s SIZE */
    SCENE_OPT_DTYPE,   /* -d TYPE */
    SCENE_OPT_OP,      /* -o OP */
    SCENE_OPT_ROOT,    /* -r ROOT */
    SCENE_OPT_INPLACE, /* --in-place */
    SCENE_OPT_TOPO,    /* -T MACHINE */
    SCENE_OPT_SEGMENT, /* --segment SIZE */
    SCENE_OPT_COUNT
};

/* The table entries, for a command's `static const CliOpt opts[]`; the
 * help lines of -p and -s are the command's own (its limits and
 * defaults). */
#define SCENE_OPTS(ranks_help, size_help)                                     \
    [SCENE_OPT_ALGO] = CLI_OPT_ALGO,                                          \
    [SCENE_OPT_RANKS] = {'p', "ranks", "RANKS", ranks_help},                  \
    [SCENE_OPT_SIZE] = {'s', "size", "SIZE", size_help},                      \
    [SCENE_OPT_DTYPE] = CLI_OPT_DTYPE,                                        \
    [SCENE_OPT_OP] = CLI_OPT_OP,                                              \
    [SCENE_OPT_ROOT] = CLI_OPT_ROOT,                                          \
    [SCENE_OPT_INPLACE] = CLI_OPT_INPLACE,                                    \
    [SCENE_OPT_TOPO] = SPEC_OPT_TOPO,                                         \
    [SCENE_OPT_SEGMENT] = CLI_OPT_SEGMENT

/* What a command allows and assumes. */
typedef struct {
    const char *cmd;         /* the command whose words these are, named in
                                sentences about unknown options: "trace" */
    const char *who;         /* who shows the scene, for the sentence when
                                ranks exceed max_ranks: "the TUI" */
    int max_ranks;           /* most ranks (COLL_MAX_RANKS: no own limit) */
    const char *def_coll;    /* collective when none is named, or NULL:
                                one must be named */
    int def_ranks;           /* ranks when -p is absent; 0: -p is needed */
    unsigned long long def_bytes; /* size when -s is absent; 0: -s is
                                     needed */
    bool files;              /* a scene line's -a may name a schedule file
                                (the learner's; never a lesson's own) */
    bool keep_wrong;         /* a schedule file that is not its collective
                                is shown where it goes wrong (the TUI),
                                not refused */
} SceneLimits;

/* trace's limits: every value given, up to SCHED_MAX_RANKS ranks (above
 * COLL_MAX_RANKS priced only). */
extern const SceneLimits scene_limits_trace;
/* A lesson's scenes: trace's words, up to COLL_MAX_RANKS ranks (what the
 * lessons' questions execute symbolically). */
extern const SceneLimits scene_limits_lesson;
/* A scene the learner types in the lesson player: a lesson's limits,
 * and -a may name a schedule file. */
extern const SceneLimits scene_limits_learner;
/* The TUI's: allreduce, 8 ranks, 64M by default; 1 to 64 ranks. */
extern const SceneLimits scene_limits_tui;

/* A scene as the options chose it. */
typedef struct {
    CollCall call;            /* the call; count from bytes (see below) */
    const AlgoInfo *algo;     /* its algorithm */
    unsigned long long bytes; /* the size (nccl-tests meaning) */
    bool bytes_given;         /* -s was given: bytes is a whole number of
                                 blocks; else bytes is def_bytes and count
                                 the whole blocks it holds */
    SpecMachine machine;      /* -T's machine (given "": the flat one),
                                 built for the call's ranks under the
                                 default parameters */
} SceneSpec;

/* Check the scene options of a: its first positional (the collective)
 * and the values at SCENE_OPT_* (NULL: absent), in a fixed order:
 * collective, algorithm, ranks, datatype, op, root, the limit on ranks,
 * size. Returns 0 and *out, or -1 and the sentence in *e. */
int scene_opts_parse(const CliArgs *a, const SceneLimits *lim,
                     SceneSpec *out, CliErr *e);
/* The same, -T's machine built under cm (NULL: the default parameters),
 * for a command whose --alpha, --beta, --gamma set them. */
int scene_opts_parse_on(const CliArgs *a, const SceneLimits *lim,
                        const SpecModel *cm, SceneSpec *out, CliErr *e);

/* The same options from one line, split at blanks (quotes keep a word's:
 * '...' as written, "..." and a backslash the next character), as a
 * lesson's scene gives them: "allreduce -a ring -p 8 -s 64". Any
 * sentence is the one
 * `collviz CMD` (lim->cmd) gives for the same words, except that options
 * of CMD that do not choose the scene are unknown here, and that -T takes
 * only the shorthand: a lesson reads no file it names. */
/* The quote word needs around it to stay one word of a scene line: "",
 * or "'" where it has a blank, a quote or a backslash ("\"" where it has
 * a "'" too). */
const char *scene_opts_quote(const char *word);
int scene_opts_parse_line(const char *line, const SceneLimits *lim,
                          SceneSpec *out, CliErr *e);

/* ---------------------------------------------------------- the call */

/* The strings of a collective call as a command line gives them. */
typedef struct {
    const char *coll;  /* collective name (required; NULL with a
                          schedule file: the file's) */
    const char *algo;  /* algorithm, NULL for the default */
    const char *ranks; /* rank count (NULL: def_ranks) */
    const char *dtype; /* datatype, NULL for float */
    const char *op;    /* op, NULL for sum */
    const char *root;  /* root, NULL for 0 */
    bool in_place;     /* --in-place given */
    const char *segment; /* --segment SIZE, NULL: the algorithm's rule */
    bool allow_all;    /* "all" is a valid algorithm */
    int def_ranks;     /* ranks when none is given (0: required) */
    int max_ranks;     /* most ranks (0: COLL_MAX_RANKS, what runs) */
    bool keep_wrong;   /* SceneLimits.keep_wrong */
} SceneCallArgs;

/* A sentence's printf format in the language its reader speaks (the
 * TUI's catalogue, src/ui/words.c); NULL: as written, English. */
typedef const char *(*SceneTranslate)(const char *fmt)
    __attribute__((format_arg(1)));

/* Whether the collective defines call c (coll_check): CV_OK, or the code
 * and the one sentence that refuses the call in why (its format through
 * tr; not ended with a full stop): sendrecv in place, hypercube on a rank
 * count not a power of two, naming the two nearest. Every command's
 * options (scene_opts_check_call) and the TUI's keys and menus say it. */
CvError scene_opts_call_why(const CollCall *c, SceneTranslate tr, char *why,
                            size_t whylen);
/* The same sentence, in English, in *e (for an in-place call with what
 * to drop from the command line): 0 or -1. */
int scene_opts_check_call(const CollCall *c, CliErr *e);

/* Check the strings in a fixed order (collective, algorithm, ranks,
 * datatype, op, root, segment), then the call as a whole (scene_opts_check_call), and
 * fill *call (count 0) and *algo (NULL for all). */
int scene_opts_resolve_call(const SceneCallArgs *in, CollCall *call,
                     const AlgoInfo **algo, CliErr *e);

#endif
