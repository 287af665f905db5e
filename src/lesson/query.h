/* query.h - the small language a checkpoint's @query is written in: what
 * collviz computes over a scene (steps, bytes, what a cell holds, model
 * times, the best algorithm, a crossover, a busbw factor), and how a
 * learner's answer is compared with the computed value. lessons/README.md
 * documents the language for lesson authors.
 *
 *   QUERY := ["count"] KIND ARG... [PARAM...] ["on" SCENE]
 *
 * SCENE is a scene line (trace's options) that replaces the lesson's
 * current scene for this query alone. PARAMs (alpha=T beta=GB/s
 * gamma=GB/s link=p2p|shared) change the model's parameters as model's
 * --alpha etc. do. */
#ifndef COLLVIZ_LESSON_QUERY_H
#define COLLVIZ_LESSON_QUERY_H
#include <stdbool.h>
#include <stddef.h>
#include "scene/scene_opts.h"
#include "core/coll.h"

/* What a query yields. */
typedef enum {
    QV_NUMBER, /* a count, bytes, microseconds or a factor */
    QV_NAME,   /* an algorithm's name */
    QV_LIST,   /* a set of ranks or blocks */
    QV_COUNT
} QueryType;

/* The query kinds, with their arguments (see lessons/README.md). */
#define QUERY_KINDS(X)                                                        \
    X(Q_STEPS, "steps", "")                                                   \
    X(Q_MSGSTEPS, "msgsteps", "")                                             \
    X(Q_SENT, "sent", "R|max [K]")                                            \
    X(Q_RECVD, "recvd", "R|max [K]")                                          \
    X(Q_SENDERS, "senders", "K")                                              \
    X(Q_RECEIVERS, "receivers", "K")                                          \
    X(Q_HOLDS, "holds", "R I K [send|recv|tmp]")                              \
    X(Q_DONE, "done", "K")                                                    \
    X(Q_BLOCKS, "blocks", "R K")                                              \
    X(Q_TIME, "time", "[SIZE]")                                               \
    X(Q_STEPTIME, "steptime", "K")                                            \
    X(Q_BEST, "best", "SIZE")                                                 \
    X(Q_CROSSOVER, "crossover", "ALGO")                                       \
    X(Q_BUSBW, "busbw", "")

typedef enum {
#define X(id, name, args) id,
    QUERY_KINDS(X)
#undef X
    Q_COUNT
} QueryKind;

/* The most ranks or blocks a list holds. */
#define QUERY_MAX_LIST COLL_MAX_RANKS

/* A computed answer. */
typedef struct {
    QueryKind kind;      /* the query's kind */
    QueryType type;      /* the value's type */
    double num;          /* QV_NUMBER: the value */
    int decimals;        /* QV_NUMBER: decimals an answer that is not exact
                            must give at least (0: whole numbers) */
    CollKind coll;       /* QV_NAME: the collective whose algorithm it is */
    char name[64];       /* QV_NAME: the algorithm's canonical name */
    unsigned char in[QUERY_MAX_LIST]; /* QV_LIST: in[i] = 1 when i is in */
    int nlist;           /* QV_LIST: elements of the universe (p) */
    char text[512];      /* the answer as the player shows it */
    char scene[160];     /* the scene it was computed over */
    char second[64];     /* Q_BEST: the next best algorithm ("": none) */
    double margin;       /* Q_BEST: how much longer it takes, a fraction
                            of the best's time (-1: there is none) */
} QueryValue;

/* Evaluate query q over scene (the lesson's current one; NULL when the
 * lesson has none yet: then q must name its own with "on"). Returns 0
 * and *out, or -1 and one sentence in why. */
int query_eval(const char *q, const SceneSpec *scene, const char *scene_line,
               QueryValue *out, char *why, size_t whylen);

/* What a unit after a number measures, and what an answer to a query of
 * kind k may carry: bytes for the byte counts and sizes, microseconds
 * for the times, steps for the step counts, percent for a factor, none
 * for names and lists. */
typedef enum { QU_NONE, QU_BYTES, QU_TIME, QU_STEPS, QU_PERCENT } QueryUnit;
QueryUnit query_unit(QueryKind k);

/* How a learner's answer stands against a computed value. */
typedef enum {
    QJ_RIGHT,      /* right */
    QJ_WRONG,      /* wrong: a try */
    QJ_COARSE,     /* a time right to fewer decimals than asked: not a
                      try, ask for more */
    QJ_ROUNDED,    /* a factor rounded to fewer decimals than asked (1
                      for 0.875): a different factor, wrong, a try */
    QJ_OTHER_UNIT  /* a number in a unit the question does not ask (us
                      for a count of steps): understood, not a try */
} QueryVerdict;

/* The verdict on answer for v (within: query_match_within's, 0 for
 * none); *given (NULL: not wanted): the decimals a coarse or rounded
 * number gave. Numbers as query_match reads them, and with a unit that
 * fits the question after them, a blank between or not: bytes (B, byte,
 * bytes, 字节, and KB, MB, GB, KiB, MiB, GiB as powers of 1024), times in
 * us (us, µs, 微秒; ms, 毫秒; ns, 纳秒; s, 秒: converted), steps (step,
 * steps, 步), a factor in percent (87.5%); ".875" for 0.875. Full-width
 * digits and punctuation are their ASCII (NFKC), the ideographic comma a
 * comma. Lists also as "r0-r15", "0~15", "0..15" and "0, 1, ..., 15"
 * (ellipsis "..." or "…": on in the steps of the two before it). */
QueryVerdict query_judge(const QueryValue *v, const char *answer,
                         double within, int *given);

/* Whether the learner's answer matches v: numbers as numbers, written
 * plainly, grouped by threes ("1,835,008"), as sizes ("1.75M", "1792K",
 * "64KiB") or as simple fractions ("7/8"); an answer that is not exact
 * must give at least v->decimals decimals and round to v there (a size
 * or fraction is held to v's decimals), names as the tool's names and
 * aliases (case and surrounding blanks ignored), lists as sets ("0-3", "0,1,2,3" and "3 2 1 0" are
 * one set; "none" or "-" the empty one). */
bool query_match(const QueryValue *v, const char *answer);
/* query_match, but a number within the fraction `within` of v's value
 * (a prediction's @within) is right too; names and lists as
 * query_match. */
bool query_match_within(const QueryValue *v, const char *answer,
                        double within);
/* Where the learner's answer is a number that rounds to v at fewer
 * decimals than v asks ("14.1" for 14.107 asked to 2), the decimals it
 * gave; -1 otherwise (right, wrong, or not a number). */
int query_coarse(const QueryValue *v, const char *answer);

/* A goal ("QUERY OP NUMBER", OP one of <=, <, >=, >, ==) evaluated. */
typedef struct {
    bool met;          /* the comparison holds */
    double value;      /* what the query computes */
    double target;     /* the goal's number */
    char query[512];   /* the query */
    char op[4];        /* the comparison */
    char text[512];    /* the value as the player shows it */
} QueryGoal;

/* Evaluate goal over scene (query_eval's arguments): 0 and *out, or -1
 * and one sentence (the goal malformed, the query failing or giving no
 * number). */
int query_goal(const char *goal, const SceneSpec *scene,
               const char *scene_line, QueryGoal *out, char *why,
               size_t whylen);

/* The name of a query kind. */
const char *query_kind_name(QueryKind k);
#endif
