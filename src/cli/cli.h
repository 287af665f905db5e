/* cli.h - what every command shares: a table-driven option parser that
 * also writes --help, and parsers for collectives, algorithms, datatypes,
 * ops, rank counts, roots, sizes, size sweeps and model parameters, each
 * with the one sentence a user sees when the input is wrong.
 *
 * The parsers print nothing: errors and help are written into buffers, so
 * the command line and the TUI show the same words. Three functions at the
 * end print them for the commands. */
#ifndef COLLVIZ_CLI_H
#define COLLVIZ_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "algos/algo.h"
#include "core/coll.h"
#include "core/model.h"
#include "core/sweep.h"

#ifndef COLLVIZ_VERSION
#define COLLVIZ_VERSION "0.1.0"
#endif

/* Exit statuses of every command (see cmd.h). */
enum { CLI_EXIT_OK = 0, CLI_EXIT_FAIL = 1, CLI_EXIT_USAGE = 2 };

/* Limits of the option parser. */
#define CLI_MAX_OPTS 32 /* options in one command's table */
#define CLI_MAX_POS 8   /* positional arguments kept */

/* The largest size any command accepts, in bytes (1024G). */
#define CLI_MAX_SIZE (1ull << 40)
/* The most sizes one sweep may have. */
#define CLI_MAX_SWEEP 10000

/* An error sentence, without the "collviz: " prefix and the newline. */
typedef struct {
    char msg[512]; /* the sentence; empty when there is no error */
} CliErr;

/* ------------------------------------------------------------- options */

/* One option of a command; a table of these drives parsing and --help. */
typedef struct {
    char short_name;       /* 'p' for -p, or 0 for long only */
    const char *long_name; /* "ranks" for --ranks, or NULL for short only */
    const char *arg;       /* the value's name ("RANKS"), NULL for a flag */
    const char *help;      /* one line for --help */
} CliOpt;

/* Options every command describes the same way. */
#define CLI_OPT_ALGO {'a', "algo", "ALGO", "algorithm (default: the collective's default; see 'collviz list')"}
#define CLI_OPT_RANKS {'p', "ranks", "RANKS", "number of ranks, 1 to 1024"}
#define CLI_OPT_SIZE {'s', "size", "SIZE", "size in bytes, K/M/G suffixes are powers of 1024 (nccl-tests meaning)"}
#define CLI_OPT_DTYPE {'d', "dtype", "TYPE", "datatype (default float)"}
#define CLI_OPT_OP {'o', "op", "OP", "reduction op: sum, prod, min, max, avg (default sum)"}
#define CLI_OPT_SEGMENT {0, "segment", "SIZE", "the chain broadcast's segment in bytes (default: 64K, at least p-1 segments); 'collviz model broadcast' says which size prices least"}
#define CLI_OPT_ROOT {'r', "root", "ROOT", "root rank of broadcast, reduce, scatter, gather (default 0)"}
#define CLI_OPT_INPLACE {0, "in-place", NULL, "one buffer holds input and output"}
#define CLI_OPT_ALPHA {0, "alpha", "T", "latency per message, in us unless a unit (s, ms, us, ns) follows (default 1us)"}
#define CLI_OPT_BETA {0, "beta", "GB/s", "bandwidth of a link, 1 GB = 1e9 bytes (default 10)"}
#define CLI_OPT_GAMMA {0, "gamma", "GB/s", "reduction speed (default 20)"}
#define CLI_OPT_PRICING {0, "pricing", "lockstep|dataflow", "how the steps add up: lockstep (default: each step waits for its slowest message) or dataflow (a message starts once its two ranks are done with the steps before; see collviz(1))"}
#define CLI_OPT_LINK {0, "link", "full|bus", "the flat machine: a full-duplex port per rank, or one shared bandwidth (default full; p2p and shared as before -T; -T says more)"}
#define CLI_OPT_MIN {'b', "minbytes", "MIN", "smallest size of the sweep"}
#define CLI_OPT_MAX {'e', "maxbytes", "MAX", "largest size of the sweep"}
#define CLI_OPT_FACTOR {'f', "stepfactor", "FACTOR", "multiply the size by FACTOR (an integer >= 2) between sizes"}
#define CLI_OPT_STEP {'i', "stepbytes", "STEP", "add STEP bytes between sizes (instead of -f)"}
#define CLI_OPT_HELP {'h', "help", NULL, "show this help and exit"}

/* What a command line held: values by option index, then positionals. */
typedef struct {
    const char *val[CLI_MAX_OPTS]; /* value of option i; "" for a flag
                                      given; NULL when absent */
    const char *pos[CLI_MAX_POS];  /* positional arguments in order */
    int npos;                      /* how many positionals */
} CliArgs;

/* A command's help: usage line, what it does, and its option table. */
typedef struct {
    const char *name;     /* command name, e.g. "trace" */
    const char *usage;    /* synopsis after "collviz ", e.g. "trace COLL ..." */
    const char *about;    /* paragraph on what it does (may hold newlines) */
    const CliOpt *opts;   /* the option table */
    size_t nopts;         /* entries in opts */
    int max_pos;          /* positionals accepted */
    const char *help_of;  /* the command whose --help a bad option points
                             at (NULL: name; --scene's is tui's) */
} CliCmd;

/* Parse argv[1..argc) (argv[0] is the command's name). Options may come
 * before or after positionals; "-p8", "-p 8", "--ranks=8", "--ranks 8"
 * and "--" are understood; an option given twice, in either spelling, is
 * refused (the last would otherwise win unseen). Returns 0, or -1 with the
 * sentence in *e. */
int cli_parse_args(const CliCmd *cmd, int argc, char **argv, CliArgs *out,
                   CliErr *e);

/* Whether option i was given (set to anything, flags included). */
static inline bool cli_has(const CliArgs *a, int i) { return a->val[i] != NULL; }

/* Write the command's help into buf (like snprintf: returns the length the
 * whole text needs). */
size_t cli_help_text(const CliCmd *cmd, char *buf, size_t n);

/* A growing text in a fixed buffer: `len` counts what the whole text needs
 * even when the buffer is too small (as snprintf does), so a caller can
 * say how much it would have taken. */
typedef struct {
    char *buf;  /* destination (may be NULL when n is 0) */
    size_t n;   /* bytes available in buf */
    size_t len; /* length of the whole text so far */
} CliText;

/* printf-style text appended to t (cut where buf ends, always ended). */
void cli_text_add(CliText *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------- numbers */

/* Every integer option is read by these: decimal digits, after one '-'
 * for a negative value; a blank, a '+' or anything after the digits makes
 * it no number (so "-n ' 5'" and "-n +5" are refused as "-p ' 4'" is). */
bool cli_whole_number(const char *s, long *v);
/* Option `what`'s value s as a whole number from min to max; else -1 and
 * "WHAT 'S' must be a whole number from MIN to MAX". */
int cli_parse_int(const char *what, const char *s, long min, long max,
                  long *out, CliErr *e);

/* --------------------------------------------------------------- names */

/* Each parser returns 0 and the value, or -1 and the sentence in *e. */
int cli_parse_coll(const char *s, CollKind *out, CliErr *e);
/* s == NULL gives the collective's default. With allow_all, "all" gives
 * *out == NULL. Names of another collective's algorithm are explained. */
int cli_parse_algo(CollKind k, const char *s, bool allow_all,
                   const AlgoInfo **out, CliErr *e);
int cli_parse_dtype(const char *s, DataType *out, CliErr *e);
int cli_parse_op(const char *s, RedOp *out, CliErr *e);
int cli_parse_ranks(const char *s, int *out, CliErr *e);
/* The same up to `most` ranks (the model's and trace's SCHED_MAX_RANKS). */
int cli_parse_ranks_upto(const char *s, int most, int *out, CliErr *e);
/* A root in 0..nranks-1; a collective without root takes only 0. */
int cli_parse_root(const char *s, CollKind k, int nranks, int *out,
                   CliErr *e);

/* --------------------------------------------------------------- sizes */

/* Bytes: digits with an optional K, M or G (powers of 1024), optionally
 * followed by B or iB; at most CLI_MAX_SIZE. `what` names the value in the
 * sentence ("size", "-b"). */
int cli_parse_size(const char *what, const char *s, unsigned long long *out,
                   CliErr *e);
/* Elements per block for `bytes` of collective c->kind (nccl-tests
 * meaning): the size must be a whole number of blocks of the datatype. */
int cli_count_for_size(const CollCall *c, unsigned long long bytes,
                       size_t *count, CliErr *e);

/* Parse the four strings (any may be NULL: defaults def_min, def_max,
 * factor 2). MIN and MAX must be multiples of dtype's size. */
int cli_parse_sweep(const char *min, const char *max, const char *factor,
                    const char *step, DataType t, unsigned long long def_min,
                    unsigned long long def_max, Sweep *out, CliErr *e);

/* --------------------------------------------------------------- model */

/* The range of model parameters an option may give, so that every time
 * the model computes from them is finite: alpha in seconds, bandwidths in
 * GB/s. */
#define CLI_MAX_ALPHA 1.0
#define CLI_MIN_BW 1e-6
#define CLI_MAX_BW 1e6

/* --link's value: a flat machine, full (or p2p) or bus (or shared). */
int cli_parse_link(const char *s, MachineKind *out, CliErr *e);
/* --pricing's value: lockstep or dataflow (model.h's PricingMode). */
int cli_parse_pricing(const char *s, PricingMode *out, CliErr *e);
/* Option `what`'s value s as a time: microseconds, or a number with a
 * unit (s, ms, us, ns), at most CLI_MAX_ALPHA. */
int cli_parse_time(const char *what, const char *s, double *out, CliErr *e);
/* Option `what`'s value s as a bandwidth in GB/s (an optional "GB/s"
 * after it) into seconds per byte. */
int cli_parse_bw(const char *what, const char *s, double *out, CliErr *e);
/* Option `what`'s value s: plain seconds (no unit) from 0 to max. */
int cli_parse_seconds(const char *what, const char *s, double max,
                      double *out, CliErr *e);
/* --------------------------------------------------------------- texts */

/* A duration with a unit that suits it ("850 ns", "1.25 ms"), 4 digits. */
size_t cli_time_text(double seconds, char *buf, size_t n);
/* The local date and time of `when` (seconds since the epoch) as
 * "2026-01-31 14:05", or "an unknown date" when the system cannot say
 * (out of time_t's range, or localtime fails). */
void cli_date_text(long long when, char *buf, size_t n);

/* ------------------------------------------------------------ printing */

/* The two functions of this module that print, for the commands: the
 * error as "collviz: SENTENCE" on stderr (returns CLI_EXIT_USAGE), and the
 * command's help on stdout (returns CLI_EXIT_OK). The TUI shows e->msg and
 * cli_help_text() its own way. */
int cli_error(const CliErr *e);
int cli_help(const CliCmd *cmd);
/* Parse a command line for cmd (help_opt: the index of its help option).
 * Returns -1 when the command goes on with *a; otherwise the sentence or
 * the help was printed and the exit status is returned. */
int cli_start(const CliCmd *cmd, int help_opt, int argc, char **argv,
              CliArgs *a);

/* Set *e to a printf-style sentence; returns -1. */
int cli_fail(CliErr *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
