/* perf_json_nccl.c - `collviz perf -J FILE`: the results in nccl-tests'
 * JSON schema (its src/util.cu, JSON file version 3), which its
 * tools/analyze_perf_json.py reads: config, devices, results with each
 * place's time, alg_bw, bus_bw and nwrong and, with -I 1, each place's
 * iterations; out_of_bounds and average_bus_bandwidth. Keys of collviz's
 * own are added where nccl-tests has none (collviz_version, algorithm,
 * model_us, average_bus_bandwidth_by_algorithm). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cmd/perf_cmd.h"

#define NCCL_JSON_VERSION 3 /* nccl-tests' JSON_FILE_VERSION */

extern char **environ;

/* nccl-tests' args, and of its env the variables that set up a run
 * (NCCL_*, COLLVIZ_*, OMPI_*): the others may hold anything. */
static void json_args_env(JsonWriter *w, const PerfArgs *pa)
{
    json_array(w, "args");
    for (int i = 0; i < pa->argc; i++)
        json_str(w, NULL, pa->argv[i]);
    json_close(w);
    json_break(w);
    json_array(w, "env");
    static const char *const kept[] = {"NCCL_", "COLLVIZ_", "OMPI_"};
    for (char **e = environ; e && *e; e++)
        for (size_t k = 0; k < sizeof kept / sizeof kept[0]; k++)
            if (!strncmp(*e, kept[k], strlen(kept[k])))
                json_str(w, NULL, *e);
    json_close(w);
}

/* nccl-tests' config object. */
static void json_config(JsonWriter *w, const Run *r, int ngpus)
{
    const PerfConfig *c = &r->pa->cfg;
    json_object(w, "config");
    json_int(w, "nthreads", 1);
    json_int(w, "ngpus", ngpus);
    json_uint(w, "minimum_bytes", c->sweep.min);
    json_uint(w, "maximum_bytes", c->sweep.max);
    if (c->sweep.factor)
        json_uint(w, "step_factor", c->sweep.factor);
    else
        json_uint(w, "step_bytes", c->sweep.step);
    json_int(w, "warmup_iters", c->warmup);
    json_int(w, "iterations", c->iters);
    json_int(w, "aggregated_iterations", c->agg);
    json_int(w, "validation", c->check);
    json_int(w, "graph", 0);
    json_bool(w, "blocking_collectives", c->blocking != 0);
    json_bool(w, "per_iter_timing", c->iter_stats);
    json_int(w, "per_iter_skip", 0);
    json_bool(w, "parallel_init", false);
    json_close(w);
}

/* nccl-tests' devices list: one object per rank, numbered as the rank
 * lines are (perf_unit_number). */
static void json_devices(JsonWriter *w, const Run *r)
{
    int per = perf_ranks_per_process(r);
    json_array(w, "devices");
    for (int k = 0; r->where && k < r->pa->cfg.call.nranks; k++) {
        const ExecRankWhere *d = &r->where[k];
        const char *kind;
        int dev = perf_unit_number(d, k % per, &kind);
        json_break(w);
        json_object(w, NULL);
        json_int(w, "rank", k);
        json_int(w, "group", 0);
        json_int(w, "pid", d->pid);
        json_str(w, "hostname", d->host);
        json_int(w, "device", dev);
        json_str(w, "device_hex", kind);
        json_str(w, "device_info", d->unit);
        json_close(w);
    }
    json_close(w);
}

/* A place's iterations (writePerIterReport), times in microseconds. */
static void json_per_iter(JsonWriter *w, const char *key, const PerfSide *s)
{
    json_object(w, key);
    json_int(w, "skipped_iterations", 0);
    json_fixed(w, "min_us", s->min_s * 1e6, 6);
    json_fixed(w, "max_us", s->max_s * 1e6, 6);
    json_fixed(w, "avg_us", s->time_s * 1e6, 6);
    json_fixed(w, "p50_us", s->p50_s * 1e6, 6);
    json_fixed(w, "p95_us", s->p95_s * 1e6, 6);
    json_fixed(w, "p99_us", s->p99_s * 1e6, 6);
    json_fixed(w, "stdev_us", s->sd_s * 1e6, 6);
    json_fixed(w, "cv_pct", s->cv * 100, 6);
    json_array(w, "times_us");
    for (int i = 0; s->times && i < s->iters; i++)
        json_fixed(w, NULL, s->times[i] * 1e6, 6);
    json_close(w);
    json_close(w);
}

/* A place (writeBenchmarkLineBody), then its iterations with -I 1. */
static void json_place(JsonWriter *w, const Run *r, const PerfSide *s,
                       bool in_place)
{
    const PerfConfig *c = &r->pa->cfg;
    const char *key = in_place ? "in_place" : "out_of_place";
    if (s->skipped) { /* sendrecv has no in-place form */
        json_null(w, key);
        return;
    }
    json_object(w, key);
    json_fixed(w, c->cputime ? "cpu_time" : "time",
               (c->cputime ? s->host_s : s->time_s) * 1e6, 6);
    json_fixed(w, "alg_bw", s->algbw, 6);
    json_fixed(w, "bus_bw", s->busbw, 6);
    if (s->wrong >= 0)
        json_fixed(w, "nwrong", (double)s->wrong, 6);
    else
        json_null(w, "nwrong");
    if (!in_place && r->cal && s->model_s[r->cal->machine] > 0)
        json_fixed(w, "model_us", s->model_s[r->cal->machine] * 1e6, 6);
    json_close(w);
    if (c->iter_stats)
        json_per_iter(w, in_place ? "in_place_per_iter"
                                  : "out_of_place_per_iter", s);
}

/* One result (a row), as nccl-tests writes it. */
static void json_result(JsonWriter *w, const Run *r, const PerfRow *row)
{
    CollKind k = r->pa->cfg.call.kind;
    char root[16];
    snprintf(root, sizeof root, "%6d", perf_root_column(k, row->root));
    json_break(w);
    json_object(w, NULL);
    json_uint(w, "size", row->bytes);
    json_uint(w, "count", row->count);
    json_str(w, "type", dtype_name(row->dtype));
    json_str(w, "redop", perf_redop_column(k, row->op));
    json_str(w, "root", root);
    json_place(w, r, &row->side[PERF_OUT_OF_PLACE], false);
    json_place(w, r, &row->side[PERF_IN_PLACE], true);
    json_int(w, "actual_iterations", row->side[PERF_OUT_OF_PLACE].iters);
    json_str(w, "experiment_name", row->name);
    json_str(w, "algorithm", row->name);
    json_close(w);
}

/* The footer's two objects, over every row (as nccl-tests averages every
 * row it printed), and each algorithm's average beside them. */
static void json_summary(JsonWriter *w, const Run *r, const PerfRow *rows,
                         size_t n)
{
    long long wrong = perf_wrong_total(rows, n);
    double avg = perf_avg_busbw(rows, n), min = r->pa->min_bw;
    json_object(w, "out_of_bounds");
    json_int(w, "count", wrong);
    json_bool(w, "okay", wrong == 0);
    json_close(w);
    json_break(w);
    json_object(w, "average_bus_bandwidth");
    json_fixed(w, "bandwidth", avg, 6);
    if (min < 0)
        json_str(w, "okay", "unchecked");
    else
        json_bool(w, "okay", !perf_bw_low(avg, min));
    json_close(w);
    json_break(w);
    perf_json_algo_avgs(w, "average_bus_bandwidth_by_algorithm", r, rows, n);
}

void perf_json_nccl(JsonWriter *w, const Run *r, const PerfRow *rows,
                    size_t n, const char *failure)
{
    char when[32];
    json_object(w, NULL);
    json_int(w, "version", NCCL_JSON_VERSION);
    json_str(w, "collviz_version", COLLVIZ_VERSION);
    perf_fmt_stamp(when, sizeof when, r->started);
    json_str(w, "start_time", when);
    json_break(w);
    json_args_env(w, r->pa);
    json_break(w);
    json_null(w, "nccl_version");
    json_break(w);
    json_config(w, r, perf_ranks_per_process(r));
    json_break(w);
    json_devices(w, r);
    json_break(w);
    json_array(w, "results");
    for (size_t i = 0; i < n; i++)
        if (rows[i].name) /* measured (-a all's failed run leaves gaps) */
            json_result(w, r, &rows[i]);
    json_break(w);
    json_close(w);
    json_break(w);
    json_summary(w, r, rows, n);
    json_break(w);
    json_array(w, "errors");
    if (failure)
        json_str(w, NULL, failure);
    json_close(w);
    perf_fmt_stamp(when, sizeof when, (long long)time(NULL));
    json_str(w, "end_time", when);
    json_break(w);
    json_close(w);
}
