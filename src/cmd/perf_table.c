/* perf_table.c - `collviz perf`'s table as nccl-tests prints it (its run
 * header, its rank lines, 13 fields a row and 8 more with -I 1, its
 * footer and its closing line), with collviz's own lines beside them as
 * '#' comments (the model's time under each row), and the CSV. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cmd/perf_cmd.h"

/* ------------------------------------------------------------- numbers */

void perf_float_str(double v, int width, char *buf, size_t n)
{
    static const char *const fixed[] = {"%*.2f", "%*.1f", "%*.0f"};
    for (int k = 0; k < 3; k++)
        if (snprintf(buf, n, fixed[k], width, v) <= width)
            return;
    snprintf(buf, n, width >= 7 ? "%*.1e" : "%*.0e", width, v);
}

const char *perf_program_name(CollKind k)
{
    switch (k) {
    case COLL_BROADCAST: return "broadcast_perf";
    case COLL_REDUCE: return "reduce_perf";
    case COLL_SCATTER: return "scatter_perf";
    case COLL_GATHER: return "gather_perf";
    case COLL_ALLGATHER: return "all_gather_perf";
    case COLL_REDUCESCATTER: return "reduce_scatter_perf";
    case COLL_ALLREDUCE: return "all_reduce_perf";
    case COLL_ALLTOALL: return "alltoall_perf";
    case COLL_SENDRECV: return "sendrecv_perf";
    case COLL_HYPERCUBE: return "hypercube_perf";
    case COLL_COUNT: break;
    }
    return "perf";
}

const char *perf_row_name(const PerfArgs *pa, const AlgoInfo *a)
{
    return a ? a->name : pa->native ? pa->native : "native";
}

/* ------------------------------------------------------- the run's head */

int perf_ranks_per_process(const Run *r)
{
    int p = r->pa->cfg.call.nranks, procs = 0;
    for (int k = 0; r->where && k < p; k++) {
        int seen = 0;
        for (int j = 0; j < k && !seen; j++)
            seen = r->where[j].pid == r->where[k].pid;
        procs += !seen;
    }
    return procs > 0 && p % procs == 0 ? p / procs : p;
}

int perf_unit_number(const ExecRankWhere *w, int rank, const char **kind)
{
    int v;
    *kind = "cpu";
    if (sscanf(w->unit, "cpu %d", &v) == 1)
        return v;
    if (sscanf(w->unit, "device %d", &v) == 1) {
        *kind = "gpu";
        return v;
    }
    return rank;
}

/* Rank lines shown in full up to this many ranks; beyond, the first
 * RANK_LINES_SHOWN and a count (the JSON's devices list holds them all). */
#define RANK_LINES_ALL 64
#define RANK_LINES_SHOWN 16

/* nccl-tests' "# Using devices" and its rank lines: process, host and
 * unit; the unit's own words stand where nccl-tests names the device. */
static void print_rank_lines(const Run *r)
{
    int n = r->pa->cfg.call.nranks, per = perf_ranks_per_process(r);
    int shown = n <= RANK_LINES_ALL ? n : RANK_LINES_SHOWN;
    printf("# Using devices\n");
    for (int k = 0; r->where && k < shown; k++) {
        const ExecRankWhere *w = &r->where[k];
        const char *kind;
        int dev = perf_unit_number(w, k % per, &kind);
        printf("#  Rank %2d Group %2d Pid %6ld on %10s device %2d [%s] %s\n",
               k, 0, w->pid, w->host, dev, kind,
               w->unit[0] ? w->unit : "anywhere");
    }
    if (r->where && shown < n)
        printf("#  ... ranks %d to %d likewise (-J and --json list every "
               "one)\n", shown, n - 1);
}

/* What nccl-tests says of -z and -I, and what collviz's calls do. */
static void print_run_modes(const PerfArgs *pa)
{
    static const char *const z[] = {
        NULL,
        "# Blocking Enabled: wait and barrier after each inner iteration (-m) \n",
        "# Blocking Enabled: wait after each inner iteration (-m), no barrier \n",
        "# Blocking Enabled: wait and barrier after each outer iteration (-n); "
        "time excludes barrier \n"};
    int b = pa->cfg.blocking;
    if (b > 0 && b < 4)
        printf("%s", z[b]);
    if (b == 1 || b == 2)
        printf("#   (collviz: every collective its own call, which returns "
               "when every rank is done,\n#   timed on the host's clock "
               "around it: its start and its wait are in the time)\n");
    if (b == 3)
        printf("#   (collviz: every iteration its own call, timed by the "
               "backend from the ranks'\n#   start to their end: the call's "
               "start is not in the time)\n");
    if (pa->cfg.iter_stats)
        printf("# Per-Iteration Report: %s; i_* is the slowest rank's \n",
               pa->each_in_loop ? "each iteration inside the timed loop, "
                                  "on the ranks' clocks"
                                : "one call per iteration, on the host's "
                                  "clock");
}

void perf_print_run_head(const Run *r)
{
    const PerfArgs *pa = r->pa;
    const PerfConfig *c = &pa->cfg;
    printf("# collviz version %s perf, in the format of nccl-tests version "
           "%s\n", COLLVIZ_VERSION, PERF_NCCL_TESTS_VERSION);
    printf("# Collective test starting: %s\n",
           perf_program_name(c->call.kind));
    printf("# nThread %d nGpus %d minBytes %llu maxBytes %llu step: %llu(%s) "
           "warmup iters: %d iters: %d agg iters: %d validation: %d graph: %d "
           "unalign: %d\n", 1, perf_ranks_per_process(r), c->sweep.min,
           c->sweep.max, c->sweep.factor ? c->sweep.factor : c->sweep.step,
           c->sweep.factor ? "factor" : "bytes", c->warmup, c->iters, c->agg,
           c->check, 0, pa->unalign);
    print_run_modes(pa);
    printf("#\n");
    print_rank_lines(r);
    printf("#\n");
}

/* nccl-tests' memory report (-M 1): what the buffers of all ranks take at
 * the largest size, out of place, the largest of the run's algorithms. */
static void print_memory(const Run *r, const AlgoInfo *const *algos,
                         size_t nalgo)
{
    unsigned long long mem = 0, one;
    for (size_t i = 0; i < nalgo; i++)
        if (perf_bytes_needed(&r->pa->cfg, algos[i], &one) == CV_OK)
            mem = one > mem ? one : mem;
    static const char *const unit[] = {" B", " KB", " MB", " GB"};
    double v = (double)mem;
    int u = 0;
    for (; u < 3 && v >= 1024.0; u++)
        v /= 1024.0;
    char amount[48];
    snprintf(amount, sizeof amount, v < 10 ? "%.2f%s" : v < 100 ? "%.1f%s"
             : "%.0f%s", v, unit[u]);
    printf("# %-20s : User-Allocated %s | Total  %s\n",
           r->on_gpu ? "GPU memory usage" : "Host memory usage", amount,
           amount);
}

void perf_print_run_foot(const Run *r, const AlgoInfo *const *algos,
                         size_t nalgo)
{
    printf("# Collective test concluded: %s\n",
           perf_program_name(r->pa->cfg.call.kind));
    if (r->pa->mem_report)
        print_memory(r, algos, nalgo);
    printf("#\n");
}

/* ------------------------------------------------------ a table's head */

/* The table's title, who ran it, and what collviz's settings change. */
static void print_head_who(const Run *r, const AlgoInfo *a,
                           const ExecHost *host)
{
    const PerfArgs *pa = r->pa;
    const PerfConfig *c = &pa->cfg;
    int p = c->call.nranks;
    printf("# collviz perf: %s, algorithm %s, backend %s, %d rank%s%s\n",
           coll_name(c->call.kind), perf_row_name(pa, a), pa->backend, p,
           p == 1 ? "" : "s", p == 1 ? " (-p is the rank count, not "
           "nccl-tests' parallel init)" : "");
    char name[256];
    exec_host_name(name, sizeof name);
    printf("# host %s, pid %ld: %s\n", name, (long)getpid(),
           host->fingerprint[0] ? host->fingerprint : "(the backend says "
           "nothing of it)");
    if (host->placement[0])
        printf("# placement: %s\n", host->placement);
    if (!a)
        printf("# %s: the library's own %s on the same buffers, timed and "
               "checked the same way;\n#   it has no schedule, so no model "
               "time\n", perf_row_name(pa, a), coll_name(c->call.kind));
    if (!a && pa->native_note)
        printf("# %s: %s\n", perf_row_name(pa, a), pa->native_note);
    if (algo_file_text(a))
        printf("# %s: a schedule file for %s; the sizes and place it does "
               "not serve read N/A\n", perf_row_name(pa, a),
               a->constraints);
    if (c->cputime)
        printf("# cputime: the host's clock around the timed calls, per "
               "collective (-C 1); algbw and busbw\n#   from the backend's "
               "own time\n");
    if (c->min_time_s > 0)
        printf("# min time: %g s per size and place (more iterations where "
               "%d take less)\n", c->min_time_s, c->iters);
}

/* What the model line under each row is: the machine and calibration it
 * prices with, and what is wrong with that calibration. */
static void print_head_model(const PerfConfig *c, const Calib *cal)
{
    char when[32], mach[256];
    cli_date_text(cal->when, when, sizeof when);
    if (c->what_if) {
        machine_describe(c->what_if, false, mach, sizeof mach);
        printf("# model (the '#  model' line under each row): on the machine "
               "given with -T, a what-if:\n#   %s; the time of the "
               "out-of-place schedule there; ratio = measured / model\n",
               mach);
    } else {
        printf("# model (the '#  model' line under each row): this machine "
               "(%s), calibrated on %s:\n#   the time the calibration of %s "
               "at %d ranks (%s) predicts for the out-of-place\n#   schedule; "
               "ratio = measured / model\n", machine_kind_name(cal->machine),
               when, cal->backend, cal->nranks, cal->quick ? "quick" : "full");
    }
    if (cal->unsteady > CALIB_UNSTEADY)
        printf("# unsteady calibration: reading what another rank had just "
               "written took %.1f times as long\n#   in one of its rounds as "
               "in another, so the model fits only while the machine is as\n"
               "#   it then was; 'collviz calibrate -B %s -p %d' again when it "
               "holds still\n", cal->unsteady, cal->backend, cal->nranks);
    if (cal->drowned > 0)
        printf("# calibration: %d bandwidths of its largest working set "
               "drowned in the latency and are\n#   bounds the machine beats "
               "(the whole step per byte); 'collviz calibrate -B %s\n#   -p %d "
               "-e SIZE' with a larger SIZE measures them\n", cal->drowned,
               cal->backend, cal->nranks);
}

/* nccl-tests' column heads (writeResultHeader), -I 1's and -S 1's with
 * them. */
static void print_head_columns(const PerfArgs *pa)
{
    const char *t = pa->cfg.cputime ? "cputime" : "time";
    const char *ts = pa->stamps ? "timestamp" : "";
    const char *tf = pa->stamps ? "YYYY-MM-DD hh:mm:ss" : "";
    int pad = pa->stamps ? 19 : 0;
    printf("#\n");
    if (pa->cfg.iter_stats) {
        printf("# %10s  %12s  %8s  %6s  %6s              out-of-place (+ "
               "per-iteration)                                in-place (+ "
               "per-iteration)\n", "", "", "", "", "");
        printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  "
               "%7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s %*s\n",
               "size", "count", "type", "redop", "root", t, "algbw", "busbw",
               "#wrong", "i_min", "i_max", "i_p99", "i_cv%", t, "algbw",
               "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%", pad, ts);
        printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  "
               "%7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s %*s\n",
               "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
               "(us)", "(us)", "(us)", "(%)", "(us)", "(GB/s)", "(GB/s)", "",
               "(us)", "(us)", "(us)", "(%)", pad, tf);
        return;
    }
    printf("# %10s  %12s  %8s  %6s  %6s           out-of-place              "
           "         in-place          \n", "", "", "", "", "");
    printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  "
           "%6s %*s\n", "size", "count", "type", "redop", "root", t, "algbw",
           "busbw", "#wrong", t, "algbw", "busbw", "#wrong", pad, ts);
    printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  "
           "%6s %*s\n", "(B)", "(elements)", "", "", "", "(us)", "(GB/s)",
           "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", pad, tf);
}

void perf_print_table_head(const Run *r, const AlgoInfo *a,
                           const ExecHost *host)
{
    print_head_who(r, a, host);
    if (a)
        print_head_model(&r->pa->cfg, r->cal);
    print_head_columns(r->pa);
}

/* ---------------------------------------------------------------- rows */

/* One place's four fields (writeBenchmarkLineBody), and with -I 1 its
 * iterations' four (writePerIterReport). */
static void print_side(const PerfConfig *c, const PerfSide *s)
{
    char t[16], ab[16], bb[16];
    if (s->skipped) {
        printf("  %7s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A");
        if (c->iter_stats)
            printf("  %7s  %7s  %7s  %7s", "N/A", "N/A", "N/A", "N/A");
        return;
    }
    perf_float_str((c->cputime ? s->host_s : s->time_s) * 1e6, 7, t, sizeof t);
    perf_float_str(s->algbw, 6, ab, sizeof ab);
    perf_float_str(s->busbw, 6, bb, sizeof bb);
    if (s->wrong < 0)
        printf("  %7s  %6s  %6s    N/A", t, ab, bb);
    else
        printf("  %7s  %6s  %6s  %6g", t, ab, bb, (double)s->wrong);
    if (!c->iter_stats)
        return;
    char v[4][16];
    double x[4] = {s->min_s * 1e6, s->max_s * 1e6, s->p99_s * 1e6,
                   s->cv * 100};
    for (int k = 0; k < 4; k++)
        perf_float_str(x[k], 7, v[k], sizeof v[k]);
    printf("  %7s  %7s  %7s  %7s", v[0], v[1], v[2], v[3]);
}

void perf_print_row(const PerfArgs *pa, const PerfRow *r, MachineKind l)
{
    const PerfConfig *c = &pa->cfg;
    char root[16];
    snprintf(root, sizeof root, "%6d", perf_root_column(c->call.kind, r->root));
    printf("%12llu  %12zu  %8s  %6s  %6s", r->bytes, r->count,
           dtype_name(r->dtype), perf_redop_column(c->call.kind, r->op), root);
    print_side(c, &r->side[PERF_OUT_OF_PLACE]);
    print_side(c, &r->side[PERF_IN_PLACE]);
    if (pa->stamps) {
        char when[32];
        perf_fmt_stamp(when, sizeof when, r->when);
        printf("%21s", when);
    }
    printf("\n");
    const PerfSide *o = &r->side[PERF_OUT_OF_PLACE];
    if (o->model_s[l] > 0) {
        char t[16];
        perf_float_str(o->model_s[l] * 1e6, 7, t, sizeof t);
        printf("#  model %s us  ratio %.2f\n", t, perf_ratio(o, l));
    }
}

/* ----------------------------------------------------------------- CSV */

void perf_print_csv_head(void)
{
    printf("algorithm,size,count,type,redop,root,time_us,algbw,busbw,wrong,"
           "time_us_ip,algbw_ip,busbw_ip,wrong_ip,model_us,ratio,iters,"
           "iters_ip,probe_before,probe_after,host_moved,clean_before_us,"
           "clean_after_us,cputime_us,cputime_us_ip,timestamp\n");
}

void perf_print_csv_row(const PerfConfig *c, const Calib *cal,
                        const PerfRow *r, bool stamps)
{
    MachineKind l = cal->machine;
    printf("%s,%llu,%zu,%s,%s,%d", r->name, r->bytes, r->count,
           dtype_name(r->dtype), perf_redop_column(c->call.kind, r->op),
           perf_root_column(c->call.kind, r->root));
    for (int pl = 0; pl < PERF_PLACE_COUNT; pl++) {
        const PerfSide *s = &r->side[pl];
        if (s->skipped)
            printf(",,,,");
        else
            printf(",%.3f,%.4f,%.4f,%lld", s->time_s * 1e6, s->algbw,
                   s->busbw, s->wrong);
    }
    const PerfSide *o = &r->side[PERF_OUT_OF_PLACE];
    printf(",%.3f,%.4f,%d,%d,%.3f,%.3f,%d,%.2f,%.2f", o->model_s[l] * 1e6,
           perf_ratio(o, l), o->iters, r->side[PERF_IN_PLACE].iters,
           r->probe[0], r->probe[1], perf_host_moved(cal, r),
           r->probe_clean[0] * 1e6, r->probe_clean[1] * 1e6);
    /* -C's cputime per place, -S's timestamp (empty without them) */
    for (int pl = 0; pl < PERF_PLACE_COUNT; pl++)
        if (c->cputime && !r->side[pl].skipped)
            printf(",%.3f", r->side[pl].host_s * 1e6);
        else
            printf(",");
    char when[32] = "";
    if (stamps)
        perf_fmt_stamp(when, sizeof when, r->when);
    printf(",%s\n", when);
}

/* The smallest and the largest measured (> 0) of the rows' values
 * v[2] (at offset off in PerfRow) over the rows flagged with `bit`;
 * returns how many rows that is. */
static size_t moved_range(const Calib *cal, const PerfRow *rows, size_t n,
                          int bit, size_t off, double *lo, double *hi)
{
    size_t moved = 0;
    *lo = *hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(perf_host_moved(cal, &rows[i]) & bit))
            continue;
        const double *v = (const double *)((const char *)&rows[i] + off);
        for (int k = 0; k < 2; k++) {
            *lo = v[k] > 0 && (*lo <= 0 || v[k] < *lo) ? v[k] : *lo;
            *hi = v[k] > *hi ? v[k] : *hi;
        }
        moved++;
    }
    return moved;
}

/* When the machine moved away from the calibration's state around some
 * rows (its cross-core reads or its speed), which ones and how far: the
 * model line does not describe them. */
static void print_host_moved(const Calib *cal, const PerfRow *rows, size_t n)
{
    size_t moved = 0;
    for (size_t i = 0; i < n; i++)
        moved += perf_host_moved(cal, &rows[i]) != 0;
    if (!moved)
        return;
    printf("# Host moved           : %zu of %zu sizes:", moved, n);
    for (size_t i = 0, shown = 0; i < n && shown < 8; i++)
        if (perf_host_moved(cal, &rows[i]))
            printf(" %llu", rows[i].bytes), shown++;
    printf("%s\n", moved > 8 ? " ..." : "");
    double lo, hi;
    size_t k = moved_range(cal, rows, n, PERF_HOST_CROSS,
                           offsetof(PerfRow, probe), &lo, &hi);
    int state = cal->state_probes > 0;
    char during[64];
    if (k) {
        snprintf(during, sizeof during, state ? "%.2f" : "%.2f and %.2f",
                 state ? cal->state_ratio : cal->probe[0], cal->probe[1]);
        printf("#   (%zu: reading what another core had just written took %.2f "
               "to %.2f times\n#   as long as data written once around them, "
               "%s during the calibration)\n", k, lo, hi, during);
    }
    k = moved_range(cal, rows, n, PERF_HOST_SPEED,
                    offsetof(PerfRow, probe_clean), &lo, &hi);
    if (k) {
        snprintf(during, sizeof during, state ? "%.1f" : "%.1f and %.1f",
                 (state ? cal->state_clean : cal->probe_clean[0]) * 1e6,
                 cal->probe_clean[1] * 1e6);
        printf("#   (%zu: the probe's copy of data written once took %.1f to "
               "%.1f us around them,\n#   %s during the calibration: the "
               "machine ran at another speed)\n", k, lo * 1e6, hi * 1e6,
               during);
    }
    printf("#   (the model describes the machine as calibrated, not these "
           "sizes)\n");
}

/* The footer: wrong elements, and the average busbw, with nccl-tests'
 * verdict where a least one is asked (--min-bw or NCCL_TESTS_MIN_BW):
 * FAILED below 90% of it, as nccl-tests judges it. */
void perf_print_table_foot(Run *r, const PerfRow *rows, size_t n)
{
    long long w = perf_wrong_total(rows, n);
    double avg = perf_avg_busbw(rows, n), min = r->pa->min_bw;
    bool low = min >= 0 && perf_bw_low(avg, min);
    r->bw_failed |= low;
    printf("# %-20s : %lld %s\n", "Out of bounds values", w, w ? "FAILED" : "OK");
    printf("# %-20s : %g %s\n", "Avg bus bandwidth", avg,
           min < 0 ? "" : low ? "FAILED" : "OK");
    print_host_moved(r->cal, rows, n);
    printf("#\n");
}

/* ------------------------------------------------------------- summary */

/* lib: the library's rows after the algorithms' (NULL: none), shown
 * beside the fastest algorithm's. */
void perf_print_summary(const Run *r, const PerfRow *rows, size_t nalgo,
                        size_t nsizes, const PerfRow *lib)
{
    MachineKind l = r->cal->machine;
    size_t agree = 0;
    /* the copy rate: the calibration's at its largest working set, as
       bytes read and written a second (a copy reads and writes each) */
    const CalibPoint *big = r->cal->npoints > 0
                                ? &r->cal->pt[r->cal->npoints - 1] : NULL;
    double copy_rw = big && big->beta_shared > 0
                         ? 2 / big->beta_shared / 1e9 : 0;
    char mach[96]; /* -T's machine where given, else the calibration's */
    if (r->pa->cfg.what_if)
        machine_describe(r->pa->cfg.what_if, true, mach, sizeof mach);
    else
        snprintf(mach, sizeof mach, "%s", machine_kind_name(l));
    printf("# Summary, out of place: the fastest measured algorithm and the "
           "model's choice (machine %s)%s%s\n", mach,
           lib ? "; the library's own: " : "", lib ? lib->name : "");
    if (copy_rw > 0)
        printf("# rw: the bytes the fastest's schedule reads and writes a "
               "second, and their share of the calibration's copy, %.1f GB/s "
               "read and written at %.0f B\n", copy_rw, big->footprint);
    printf("# %10s  %-16s %9s  %-16s %9s  %s%s%s\n", "size(B)", "fastest",
           "time(us)", "model's choice", "time(us)", "same",
           lib ? "  lib(us)  fastest/lib" : "",
           copy_rw > 0 ? "  rw(GB/s)  of copy" : "");
    for (size_t s = 0; s < nsizes; s++) {
        size_t m, p;
        perf_best(rows + s, nalgo, nsizes, l, &m, &p);
        const PerfRow *rm = &rows[m * nsizes + s], *rp = &rows[p * nsizes + s];
        agree += m == p;
        printf("  %10llu  %-16s %9.2f  %-16s %9.2f  %-4s", rm->bytes,
               rm->name, rm->side[0].time_s * 1e6, rp->name,
               rp->side[0].time_s * 1e6, m == p ? "yes" : "no");
        if (lib && lib[s].side[0].time_s > 0)
            printf("  %7.2f  %11.2f", lib[s].side[0].time_s * 1e6,
                   rm->side[0].time_s / lib[s].side[0].time_s);
        else if (lib && copy_rw > 0)
            printf("  %7s  %11s", "-", "-");
        const PerfSide *f = &rm->side[0];
        if (copy_rw > 0 && f->traffic > 0 && f->time_s > 0)
            printf("  %8.2f  %6.0f%%", f->traffic / f->time_s / 1e9,
                   100 * f->traffic / f->time_s / 1e9 / copy_rw);
        printf("\n");
    }
    printf("# the model chose the fastest algorithm at %zu of %zu sizes\n",
           agree, nsizes);
}

