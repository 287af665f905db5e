/* cmd_calibrate.c - `collviz calibrate`: measure alpha, beta, gamma and the
 * shared bandwidth of a backend at a rank count, show them, save them.
 * Also the helpers perf shares: opening a backend, and getting a
 * calibration (loaded, or measured quickly when there is none). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/calib.h"
#include "cli/cli.h"
#include "cmd/cmd.h"
#include "exec/probe.h"
#include "store/store.h"

/* -------------------------------------------------------------- helpers */

int cmd_default_ranks(void)
{
    int n = exec_cpus();
    if (n < 2)
        return 2;
    return n > COLL_MAX_RANKS ? COLL_MAX_RANKS : n;
}

const char *cmd_default_backend(void)
{
    return exec_find("mpi", NULL, 0) ? "mpi" : "threads";
}

Executor *cmd_exec_open(const char *backend, int nranks)
{
    return cmd_exec_open_unaligned(backend, nranks, 0);
}

Executor *cmd_exec_open_unaligned(const char *backend, int nranks,
                                  size_t unalign)
{
    char why[256] = "";
    const char *params;
    const ExecOps *ops = exec_find_spec(backend ? backend
                                                : cmd_default_backend(),
                                        &params, why, sizeof why);
    Executor *ex = NULL;
    if (ops) {
        ExecOptions opt = {.params = params, .unalign = unalign};
        CvError e = ops->open(&ex, nranks, &opt, why, sizeof why);
        if (e) {
            if (!why[0])
                snprintf(why, sizeof why, "%s", cv_strerror(e));
            ex = NULL;
        }
    }
    if (!ex)
        fprintf(stderr, "collviz: %s\n", why);
    return ex;
}

/* Progress on a terminal's stderr: one line rewritten in place. */
static int calib_progress(void *ctx, int done, int total)
{
    const char *what = ctx;
    fprintf(stderr, "\r%s: %d/%d\033[K", what, done, total);
    if (done == total)
        fputs("\r\033[K", stderr);
    return 0;
}

/* The calibration file of (backend, host, nranks) (calib_path), and once
 * per run a sentence when XDG_CACHE_HOME is set but ignored
 * (store_ignored): the XDG rule has a relative path ignored, and a user who
 * set one would otherwise look for calibrations in the wrong place. */
static void cache_path(const char *backend, const char *host, int nranks,
                       char *path, size_t len)
{
    static int told;
    char why[256];
    const char *var = store_ignored(STORE_CACHE);
    if (calib_path(backend, host, nranks, path, len, why, sizeof why) != CV_OK)
        snprintf(path, len, "the cache directory");
    const char *slash = strrchr(path, '/');
    if (var && slash && !told++)
        fprintf(stderr, "collviz: %s is not an absolute path (%s), so it is "
                        "ignored; calibrations are kept in %.*s\n", var,
                getenv(var), (int)(slash - path), path);
}

/* One sentence on stderr per value of cal that a plausibility rule
 * refused (calib.h: calib_amend), saying what was saved instead. */
static void say_refused(const Calib *cal)
{
    char text[1024];
    for (int i = 0; i < cal->nrefused; i++) {
        calib_refusal_text(&cal->refused[i], text, sizeof text);
        fprintf(stderr, "collviz: not believed: %s\n", text);
    }
}

/* Measure on ex; 0, or an exit status after the sentence on stderr (also
 * in why, when it is not NULL). */
static int measure(Executor *ex, int quick, double max_bytes, Calib *cal,
                   char *why, size_t whylen)
{
    char err[CV_WHY_LEN] = "";
    CalibOptions o = {.quick = quick, .max_bytes = max_bytes};
    int tty = isatty(STDERR_FILENO);
    CvError e = calib_measure(ex, &o, cal, tty ? calib_progress : NULL,
                              quick ? "calibrating quickly" : "calibrating",
                              err, sizeof err);
    if (!e) {
        say_refused(cal);
        return CLI_EXIT_OK;
    }
    if (why)
        snprintf(why, whylen, "the calibration failed: %s",
                 err[0] ? err : cv_strerror(e));
    fprintf(stderr, "collviz: the calibration failed: %s\n",
            err[0] ? err : cv_strerror(e));
    return CLI_EXIT_FAIL;
}

/* Save cal where perf, model -B and the TUI look for it; 0, or 1 after the
 * sentence with the cause (store_write's: strerror's words). With
 * COLLVIZ_NO_SAVE set (the lesson player sets it for its commands: a
 * lesson writes no file) it is only said that nothing is saved. */
static int save(const Calib *cal)
{
    const char *no = getenv("COLLVIZ_NO_SAVE");
    if (no && *no) {
        fprintf(stderr, "collviz: the calibration is not saved: "
                "COLLVIZ_NO_SAVE is set (a lesson's commands save nothing)\n");
        return CLI_EXIT_OK;
    }
    char path[4096], why[CV_WHY_LEN] = "";
    cache_path(cal->backend, cal->host, cal->nranks, path, sizeof path);
    if (calib_save(cal, why, sizeof why) == CV_OK)
        return CLI_EXIT_OK;
    fprintf(stderr, "collviz: could not save the calibration: %s\n", why);
    return CLI_EXIT_FAIL;
}

int cmd_calib_for(Executor *ex, Calib *cal, char *err, size_t errlen)
{
    const char *name = ex->ops->name;
    ExecHost host = exec_host(ex);
    char path[4096], why[CV_WHY_LEN] = "";
    cache_path(name, host.fingerprint, ex->nranks, path, sizeof path);
    if (calib_load(name, host.fingerprint, ex->nranks, cal, why,
                   sizeof why) == CV_OK) {
        calib_straggler(cal, &host.slowed); /* this run's */
        return CLI_EXIT_OK;
    }
    if (!why[0])
        snprintf(why, sizeof why, "no calibration of %s at %d rank%s on "
                 "this machine yet", name, ex->nranks, ex->nranks == 1 ? ""
                 : "s");
    fprintf(stderr, "collviz: %s; calibrating quickly (run 'collviz calibrate "
                    "-B %s -p %d' for a thorough one)\n",
            why, name, ex->nranks);
    int rc = measure(ex, 1, 0, cal, err, errlen);
    if (rc == CLI_EXIT_OK && host.altered)
        fprintf(stderr, "collviz: the backend runs unlike the machine (%s): "
                "this calibration prices this run only and is not saved\n",
                host.placement);
    else if (rc == CLI_EXIT_OK)
        save(cal); /* perf goes on with it: the sentence says it is lost */
    return rc;
}

/* ------------------------------------------------------------- printing */

/* A bandwidth in GB/s for s/B, or "-" when not measured; derived (a
 * plausibility rule replaced what was measured): marked '*'. */
static void print_bw(double s_per_byte, int derived)
{
    if (s_per_byte > 0)
        printf("  %*.2f%s", derived ? 11 : 12, 1e-9 / s_per_byte,
               derived ? "*" : "");
    else
        printf("  %12s", "-");
}

/* Whether value v of c's point i is derived. */
static int derived(const Calib *c, int i, CalibValue v)
{
    return (int)(c->pt_derived[i] >> v & 1);
}

/* The note under the table where a plausibility rule replaced values. */
static void print_derived(const Calib *c)
{
    int any = c->derived != 0;
    for (int i = 0; i < c->npoints && i < CALIB_MAX_POINTS; i++)
        any |= c->pt_derived[i] != 0;
    if (!any)
        return;
    printf("# *: derived, not measured: what was measured broke a rule of "
           "physics (a reduce at most %.0f times\n#   the copy rate of its "
           "working set, a bandwidth at most %.0f times the median copy "
           "rate)\n#   twice, and a larger working set's rate or the rule's "
           "limit stands in\n", CALIB_REDUCE_OVER_COPY, CALIB_BW_OVER_MEDIAN);
    for (int v = CALIB_VAL_ALPHA; v < CALIB_VAL_COUNT; v++)
        if (c->derived >> v & 1)
            printf("# derived, not measured: %s (what was measured was not a "
                   "possible time)\n", calib_value_key((CalibValue)v));
}

/* The header: the backend, the machine, the latencies, and the hosts
 * where there are several. */
static void print_calib_head(const Calib *c)
{
    char when[64];
    cli_date_text(c->when, when, sizeof when);
    printf("# calibration of backend %s at %d ranks (%s, %s)\n", c->backend,
           c->nranks, when, c->quick ? "quick" : "full");
    printf("# machine: %s\n", c->host);
    printf("# alpha (one step of one-element messages): %.3f us; each message "
           "more of a rank: %.3f us\n", c->alpha * 1e6, c->alpha_msg * 1e6);
    printf("# step latency (messages of %d KiB, each step after another "
           "rank's): %.3f us; iteration: %.3f us\n", CALIB_LAT_BYTES / 1024,
           c->lat_step * 1e6, c->lat_iter * 1e6);
    if (c->nodes > 1)
        printf("# hosts: %d of %d ranks each, ranks %s; one message alone "
               "within a host: %.3f us, between hosts: %.3f us\n", c->nodes,
               c->per_node, c->cyclic ? "dealt round them" : "in blocks",
               (c->alpha_host > 0 ? c->alpha_host : c->alpha) * 1e6,
               c->alpha_net * 1e6);
}

/* The table of bandwidths by working set (net: a column for the
 * network between hosts). */
static void print_calib_table(const Calib *c, int net)
{
    printf("# %12s  %12s  %12s  %12s  %12s  %12s%s\n", "footprint", "shared bw",
           "cross bw", "p2p bw", "reduce", "pair reduce",
           net ? "        net bw" : "");
    printf("# %12s  %12s  %12s  %12s  %12s  %12s%s\n", "(B)", "(GB/s)", "(GB/s)",
           "(GB/s)", "(GB/s)", "(GB/s)", net ? "        (GB/s)" : "");
    for (int i = 0; i < c->npoints; i++) {
        const CalibPoint *p = &c->pt[i];
        printf("  %12.0f", p->footprint);
        print_bw(p->beta_shared, derived(c, i, CALIB_VAL_SHARED));
        print_bw(p->beta_cross, derived(c, i, CALIB_VAL_CROSS));
        print_bw(p->beta_p2p, derived(c, i, CALIB_VAL_P2P));
        print_bw(p->gamma_shared, derived(c, i, CALIB_VAL_REDUCE));
        print_bw(p->gamma_p2p, derived(c, i, CALIB_VAL_PAIR_REDUCE));
        if (net)
            print_bw(p->beta_net, derived(c, i, CALIB_VAL_NET));
        putchar('\n');
    }
}

/* The machine the measurements fit, how well, and as the model prices
 * it. */
static void print_calib_fit(const Calib *c, int net)
{
    MachineKind fits[CALIB_MAX_FITS];
    int nfits = calib_fits(c, fits);
    printf("# machine that fits: %s (worst error on a tree broadcast and a "
           "ring allreduce:", machine_kind_name(c->machine));
    for (int i = 0; i < nfits; i++)
        printf("%s %s %.1f%%", i ? "," : "", machine_kind_name(fits[i]),
               100 * c->fit_err[fits[i]]);
    printf(")%s\n", net ? "; several hosts: nodes" : "");
    MemLevel ml;
    double g;
    bool mem = c->medium == MACHINE_GPU || c->medium == MACHINE_HOST;
    if (mem && calib_mem_level(c, 0, &ml, &g))
        printf("# no %s machine: its memory's rate needs a working set of at "
               "least 4 times the cache\n#   (%.0f MB), and none was "
               "measured%s\n", machine_kind_name(c->medium),
               4 * c->cache / 1e6,
               c->quick ? " (a full calibration measures one)" : "");
    if (calib_poor_fit(c))
        printf("# poor fit: the model of this machine missed a measured run "
               "by %.0f%% (more than %.0f%%),\n#   so its predictions here are "
               "no guide to which algorithm wins\n",
               100 * c->fit_err[c->machine], 100 * CALIB_POOR_FIT);
    Machine m;
    char d[512];
    if (c->npoints > 0 &&
        calib_machine(c, c->pt[c->npoints - 1].footprint, &m) == CV_OK) {
        machine_describe(&m, false, d, sizeof d);
        printf("# the machine it measured, as the model prices it at its "
               "largest working set: %s\n", d);
    }
}

/* What the probes found of the host: how writes by another core read,
 * timings retaken, bandwidths drowned in latency, an unsteady speed. */
static void print_calib_host(const Calib *c)
{
    if (c->state_probes > 0)
        printf("# host: over its %d probes, reading what another core had "
               "just written took %.2f times\n#   as long as data written "
               "once, and copying %zu KiB written once %.1f us (medians;\n#   "
               "perf flags sizes run more than %.0f times or %.1f times "
               "apart from these)\n", c->state_probes, c->state_ratio,
               PROBE_BLOCK >> 10, c->state_clean * 1e6, PROBE_MOVED,
               PROBE_SLOWER);
    else if (c->probe[0] > 0 || c->probe[1] > 0)
        printf("# host: reading what another core had just written took %.2f "
               "times as long as data\n#   written once at the start, %.2f at "
               "the end (perf flags sizes run at other ratios)\n",
               c->probe[0], c->probe[1]);
    if (c->retaken > 0)
        printf("# host: %d timings were taken again: a probe around them ran "
               "more than %.1f times slower\n#   than the fastest (this "
               "machine slows down for spells on its own)\n", c->retaken,
               PROBE_SLOWER);
    if (c->drowned > 0)
        printf("# bandwidth: at the largest working set, %d of its "
               "bandwidths could not be told apart from the\n#   latency "
               "(the bytes took under three quarters of a step) and are the "
               "whole step per byte,\n#   a bound the machine beats: "
               "calibrate with a larger -e for a measured rate\n",
               c->drowned);
    if (c->unsteady > CALIB_UNSTEADY)
        printf("# unsteady: reading what another rank had just written took "
               "%.1f times as long in one round as in another; this machine "
               "changes that speed on its own (a virtual machine's host "
               "moving its CPUs), and the model fits only while it holds\n",
               c->unsteady);
}

static void print_calib(const Calib *c)
{
    int net = c->nodes > 1;
    print_calib_head(c);
    print_calib_table(c, net);
    print_derived(c);
    print_calib_fit(c, net);
    print_calib_host(c);
}

/* -------------------------------------------------------------- command */

static const CliOpt opts[] = {
    {'B', "backend", "NAME[:OPTS]", "backend to calibrate (default threads); OPTS: its options, key=value,... as perf's"},
    CLI_OPT_RANKS,
    {0, "quick", NULL, "the short calibration perf runs when none is saved"},
    {0, "show", NULL, "show the saved calibration instead of measuring"},
    {'e', "maxbytes", "SIZE", "largest working set measured, every rank's buffers together (default 1 GB or 4 times the last-level cache, quick 256 MB or on GPUs 4 times their L2 caches, 1 GB = 1e9 B; the smallest, 256 kB or 1 MB, is always measured): less over a slow network"},
    CLI_OPT_HELP,
};
enum { O_BACKEND, O_RANKS, O_QUICK, O_SHOW, O_MAX, O_HELP };

static const CliCmd cmd = {
    .name = "calibrate",
    .usage = "calibrate [-B NAME[:OPTS]] [-p RANKS] [--quick] [-e SIZE] | --show",
    .about = "Measure the cost model's parameters on a backend: alpha (one "
             "step of tiny\nmessages), the shared and point-to-point "
             "bandwidths and the reduce rate, at\nworking sets from inside "
             "the caches to main memory; find which machine\nfits (full, "
             "bus, or nodes where mpirun placed the ranks on several\nhosts, "
             "with the network measured on its own); save them for perf and "
             "the TUI\nunder $XDG_CACHE_HOME/collviz/.",
    .opts = opts,
    .nopts = sizeof opts / sizeof opts[0],
    .max_pos = 0,
};

int cmd_calib_saved(const char *spec, int nranks, Calib *cal, char *why,
                    size_t whylen)
{
    char path[4096], found[CV_WHY_LEN] = "";
    ExecHost host;
    const ExecOps *ops = exec_find_spec(spec, NULL, why, whylen);
    if (!ops || exec_host_of(spec, nranks, &host, why, whylen))
        return CLI_EXIT_USAGE;
    const char *name = ops->name;
    cache_path(name, host.fingerprint, nranks, path, sizeof path);
    if (calib_load(name, host.fingerprint, nranks, cal, found,
                   sizeof found) == CV_OK)
        return CLI_EXIT_OK;
    if (found[0])
        snprintf(why, whylen, "%s; run 'collviz calibrate -B %s -p %d'", found,
                 name, nranks);
    else
        snprintf(why, whylen, "no usable calibration of %s at %d rank%s on "
                 "this machine (%s) in %s; run 'collviz calibrate -B %s -p %d'",
                 name, nranks, nranks == 1 ? "" : "s", host.fingerprint, path,
                 name, nranks);
    return CLI_EXIT_FAIL;
}

/* calibrate --show: the saved calibration of backend `spec` (-B's). */
static int show_saved(const char *spec, int nranks)
{
    Calib c;
    char why[CV_WHY_LEN];
    int rc = cmd_calib_saved(spec, nranks, &c, why, sizeof why);
    if (rc != CLI_EXIT_OK) {
        fprintf(stderr, "collviz: %s\n", why);
        return rc;
    }
    print_calib(&c);
    return CLI_EXIT_OK;
}

int cmd_calibrate(int argc, char **argv)
{
    CliArgs a;
    CliErr err;
    int p = cmd_default_ranks(), rc = cli_start(&cmd, O_HELP, argc, argv, &a);
    if (rc >= 0)
        return rc;
    unsigned long long max = 0;
    if ((cli_has(&a, O_RANKS) && cli_parse_ranks(a.val[O_RANKS], &p, &err)) ||
        ((cli_has(&a, O_QUICK) || cli_has(&a, O_MAX)) && cli_has(&a, O_SHOW) &&
         cli_fail(&err, "--show measures nothing: give --quick or -e, or "
                  "--show, not both")) ||
        (cli_has(&a, O_MAX) &&
         cli_parse_size("-e", a.val[O_MAX], &max, &err)))
        return cli_error(&err);
    const char *backend = a.val[O_BACKEND] ? a.val[O_BACKEND]
                                           : cmd_default_backend();
    if (cli_has(&a, O_SHOW))
        return show_saved(backend, p);
    Executor *ex = cmd_exec_open(backend, p);
    if (!ex)
        return CLI_EXIT_USAGE;
    if (exec_host(ex).altered) {
        fprintf(stderr, "collviz: calibrate measures the machine, and -B %s "
                "runs it otherwise (%s): leave that option out\n", backend,
                exec_host(ex).placement);
        ex->ops->close(ex);
        return CLI_EXIT_USAGE;
    }
    Calib c;
    rc = measure(ex, cli_has(&a, O_QUICK), (double)max, &c, NULL, 0);
    ex->ops->close(ex);
    if (rc != CLI_EXIT_OK)
        return rc;
    rc = save(&c); /* what was measured is shown even when it is lost */
    print_calib(&c);
    return rc;
}
