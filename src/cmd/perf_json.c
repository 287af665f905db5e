/* perf_json.c - `collviz perf --json FILE`: the run's options, the
 * calibration, and every row, written atomically (perf_cmd.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/sanitize.h"
#include "cmd/perf_cmd.h"
#include "store/json.h"
#include "store/sink.h"
#include "store/store.h"

/* Two values times scale, `decimals` decimals each, as member key. */
static void json_pair(JsonWriter *w, const char *key, const double v[2],
                      double scale, int decimals)
{
    json_array(w, key);
    json_fixed(w, NULL, v[0] * scale, decimals);
    json_fixed(w, NULL, v[1] * scale, decimals);
    json_close(w);
}

/* A value per machine calibration c was fitted to (calib_fits), named
 * by its kind, `decimals` decimals each, as member key. */
static void json_fits(JsonWriter *w, const char *key, const Calib *c,
                      const double v[MACHINE_KIND_COUNT], double scale,
                      int decimals)
{
    MachineKind fits[CALIB_MAX_FITS];
    int n = calib_fits(c, fits);
    json_object(w, key);
    for (int i = 0; i < n; i++)
        json_fixed(w, machine_kind_name(fits[i]), v[fits[i]] * scale,
                   decimals);
    json_close(w);
}

static void json_side(JsonWriter *w, const char *key, const PerfSide *s,
                      bool cputime, const Calib *c)
{
    json_object(w, key);
    json_fixed(w, "time_us", s->time_s * 1e6, 4);
    if (cputime)
        json_fixed(w, "cputime_us", s->host_s * 1e6, 4);
    json_int(w, "iters", s->iters);
    json_fixed(w, "algbw", s->algbw, 6);
    json_fixed(w, "busbw", s->busbw, 6);
    if (s->traffic > 0) /* the bytes the schedule reads and writes */
        json_fixed(w, "rw_bytes", s->traffic, 0);
    if (s->wrong >= 0)
        json_int(w, "nwrong", s->wrong);
    else
        json_null(w, "nwrong");
    json_fits(w, "model_us", c, s->model_s, 1e6, 4);
    if (s->max_s > 0) { /* -I */
        json_object(w, "iterations");
        json_fixed(w, "min_us", s->min_s * 1e6, 4);
        json_fixed(w, "max_us", s->max_s * 1e6, 4);
        json_fixed(w, "p99_us", s->p99_s * 1e6, 4);
        json_fixed(w, "cv", s->cv, 6);
        json_close(w);
    }
    json_close(w);
}

static void json_calib(JsonWriter *w, const Calib *k)
{
    json_object(w, "calibration");
    json_int(w, "when", k->when);
    json_bool(w, "quick", k->quick);
    json_fixed(w, "alpha_us", k->alpha * 1e6, 4);
    json_fixed(w, "message_latency_us", k->alpha_msg * 1e6, 4);
    json_fixed(w, "step_latency_us", k->lat_step * 1e6, 4);
    json_fixed(w, "iteration_latency_us", k->lat_iter * 1e6, 4);
    json_str(w, "machine", machine_kind_name(k->machine));
    json_fits(w, "fit_error", k, k->fit_err, 1, 4);
    json_pair(w, "probe", k->probe, 1, 4);
    json_pair(w, "probe_clean_us", k->probe_clean, 1e6, 3);
    json_object(w, "state");
    json_fixed(w, "ratio", k->state_ratio, 4);
    json_fixed(w, "clean_us", k->state_clean * 1e6, 3);
    json_int(w, "probes", k->state_probes);
    json_close(w);
    json_fixed(w, "unsteady", k->unsteady, 4);
    json_int(w, "retaken", k->retaken);
    json_close(w);
}

/* The run's settings, three to a line, and the calibration. */
static void json_head(JsonWriter *w, const Run *r)
{
    const PerfConfig *c = &r->pa->cfg;
    json_break(w);
    char name[256] = "";
    if (gethostname(name, sizeof name - 1))
        name[0] = '\0';
    json_str(w, "collective", coll_name(c->call.kind));
    json_str(w, "backend", r->pa->backend);
    json_int(w, "nranks", c->call.nranks);
    json_break(w);
    json_str(w, "host", name);
    json_int(w, "pid", (long long)getpid());
    json_break(w);
    if (r->where) { /* nccl-tests' devices: where each rank runs */
        json_array(w, "devices");
        for (int k = 0; k < c->call.nranks; k++) {
            json_break(w);
            json_object(w, NULL);
            json_int(w, "rank", k);
            json_int(w, "pid", r->where[k].pid);
            json_str(w, "host", r->where[k].host);
            json_str(w, "unit", r->where[k].unit);
            json_close(w);
        }
        json_close(w);
        json_break(w);
    }
    json_str(w, "type", r->pa->all_dtypes ? "all" : dtype_name(c->call.dtype));
    json_str(w, "redop", r->pa->all_ops && coll_is_reducing(c->call.kind)
                         ? "all" : perf_redop_column(c->call.kind, c->call.op));
    if (r->pa->all_roots && coll_is_rooted(c->call.kind))
        json_str(w, "root", "all");
    else
        json_int(w, "root", perf_root_column(c->call.kind, c->call.root));
    json_int(w, "iters", c->iters);
    json_int(w, "warmup", c->warmup);
    json_int(w, "check", c->check);
    json_break(w);
    json_int(w, "aggregated_iterations", c->agg);
    json_int(w, "unalign", r->pa->unalign);
    json_bool(w, "blocking_collectives", c->blocking);
    json_bool(w, "report_cputime", c->cputime);
    json_break(w);
    json_double(w, "min_time_s", c->min_time_s, 6);
    json_break(w);
    if (c->what_if) { /* -T: the model lines' machine, a what-if */
        char d[512];
        machine_describe(c->what_if, false, d, sizeof d);
        json_str(w, "machine", d);
        json_break(w);
    } else {
        json_null(w, "machine");
    }
    if (r->cal)
        json_calib(w, r->cal);
    else
        json_null(w, "calibration");
}

/* One row, on a line of its own. */
static void json_row(JsonWriter *w, const Run *r, const PerfRow *row)
{
    int moved = perf_host_moved(r->cal, row);
    json_break(w);
    json_object(w, NULL);
    CollKind k = r->pa->cfg.call.kind;
    json_str(w, "algorithm", row->name);
    json_uint(w, "size", row->bytes);
    json_uint(w, "count", row->count);
    json_str(w, "type", dtype_name(row->dtype));
    json_str(w, "redop", perf_redop_column(k, row->op));
    json_int(w, "root", perf_root_column(k, row->root));
    json_bool(w, "library", !row->algo);
    if (r->pa->stamps) {
        char when[32];
        perf_fmt_stamp(when, sizeof when, row->when);
        json_str(w, "timestamp", when);
    }
    json_side(w, "out_of_place", &row->side[PERF_OUT_OF_PLACE],
              r->pa->cfg.cputime, r->cal);
    if (row->side[PERF_IN_PLACE].skipped) /* sendrecv: no in-place form */
        json_null(w, "in_place");
    else
        json_side(w, "in_place", &row->side[PERF_IN_PLACE],
                  r->pa->cfg.cputime, r->cal);
    json_pair(w, "probe", row->probe, 1, 4);
    json_pair(w, "probe_clean_us", row->probe_clean, 1e6, 3);
    json_bool(w, "host_moved", moved);
    json_array(w, "host_moved_by");
    if (moved & PERF_HOST_CROSS)
        json_str(w, NULL, "cross");
    if (moved & PERF_HOST_SPEED)
        json_str(w, NULL, "speed");
    json_close(w);
    json_close(w);
}

void perf_json_algo_avgs(JsonWriter *w, const char *key, const Run *r,
                         const PerfRow *rows, size_t n)
{
    json_object(w, key);
    for (size_t i = 0; r->stride && i * r->stride < n; i++) {
        size_t m = n - i * r->stride < r->stride ? n - i * r->stride : r->stride;
        if (rows[i * r->stride].name)
            json_fixed(w, rows[i * r->stride].name,
                       perf_avg_busbw(rows + i * r->stride, m), 6);
    }
    json_close(w);
}

/* Finish the document w writes on out: CV_OK or why it could not be
 * written (*errnum: the write's errno). */
static CvError json_end(JsonWriter *w, Sink *out, int *errnum)
{
    CvError e = json_finish(w);
    sink_fini(out);
    *errnum = out->errnum;
    return e ? e : out->err ? CV_ERR_IO : CV_OK;
}

/* The whole file: rows[0 .. n) measured (every row of the run, or those
 * before it failed), and the failure's sentence (NULL: none), in
 * collviz's schema or (nccl) nccl-tests'; CV_OK or why it could not be
 * written (*errnum: the write's errno). */
static CvError write_json(FILE *f, const Run *r, const PerfRow *rows, size_t n,
                          const char *failure, bool nccl, int *errnum)
{
    Sink out;
    JsonWriter w;
    CvError e = sink_init(&out, f, 1 << 16);
    if (e)
        return e;
    json_init(&w, &out, JSON_SPACED);
    if (nccl) {
        perf_json_nccl(&w, r, rows, n, failure);
        return json_end(&w, &out, errnum);
    }
    json_object(&w, NULL);
    json_head(&w, r);
    json_break(&w);
    json_array(&w, "results");
    for (size_t i = 0; i < n; i++)
        if (rows[i].name) /* measured (-a all's failed run leaves gaps) */
            json_row(&w, r, &rows[i]);
    json_break(&w);
    json_close(&w);
    json_break(&w);
    json_int(&w, "out_of_bounds", perf_wrong_total(rows, n));
    json_break(&w);
    json_fixed(&w, "avg_busbw", perf_avg_busbw(rows, n), 6);
    json_break(&w);
    perf_json_algo_avgs(&w, "avg_busbw_by_algorithm", r, rows, n);
    if (failure) {
        json_break(&w);
        json_str(&w, "error", failure);
    }
    json_break(&w);
    json_close(&w);
    return json_end(&w, &out, errnum);
}


int perf_json_open(JsonOut *j, const char *path, const char *opt, bool nccl)
{
    struct stat st;
    char why[CV_WHY_LEN], *real = NULL;
    int err = 0;
    *j = (JsonOut){.path = path, .opt = opt, .nccl = nccl};
    if (store_export_check(path, why, sizeof why)) {
        char safe[CV_WHY_LEN];
        sanitize(safe, sizeof safe, why, 0); /* controls as escapes */
        fprintf(stderr, "collviz: cannot write the %s file: %s\n", opt, safe);
        return CLI_EXIT_USAGE;
    }
    /* a plain file, or none yet: written beside it (/dev/stdout's
       target's, when that is a file) */
    int plain = stat(path, &st) ? errno == ENOENT : S_ISREG(st.st_mode);
    if (plain && !lstat(path, &st) && S_ISLNK(st.st_mode))
        plain = (real = realpath(path, NULL)) != NULL;
    if (!plain && !(j->direct = fopen(path, "w")))
        err = errno;
    if (plain && store_begin(&j->tmp, real ? real : path, why, sizeof why))
        err = errno ? errno : EIO;
    free(real);
    if (!err)
        return -1;
    fprintf(stderr, "collviz: cannot write the %s file %s: %s\n", opt, path,
            strerror(err));
    return CLI_EXIT_USAGE;
}

int perf_json_close(JsonOut *j, const Run *r, const PerfRow *rows, int rc,
                    const char *failure)
{
    FILE *f = j->direct ? j->direct : j->tmp.f;
    char why[CV_WHY_LEN] = "";
    int errnum = 0;
    if (rc == CLI_EXIT_USAGE) {
        if (j->direct)
            fclose(j->direct);
        else
            store_abandon(&j->tmp);
        return rc;
    }
    /* stdout or stderr could not be written (closed, a full disk): the
       run failed, and FILE is left as it was (main says why) */
    if (!j->direct && (fflush(stdout) || ferror(stdout) || ferror(stderr))) {
        store_abandon(&j->tmp);
        return CLI_EXIT_FAIL;
    }
    CvError e = write_json(f, r, rows, r->done, failure, j->nccl, &errnum);
    if (e)
        snprintf(why, sizeof why, "%s", errnum ? strerror(errnum)
                                               : cv_strerror(e));
    if (j->direct && fclose(j->direct) && !e)
        snprintf(why, sizeof why, "%s", strerror(errno)), e = CV_ERR_IO;
    else if (!j->direct && e)
        store_abandon(&j->tmp);
    else if (!j->direct && (e = store_commit(&j->tmp, why, sizeof why)))
        snprintf(why, sizeof why, "%s", strerror(errno)); /* its cause */
    if (!e)
        return rc;
    fprintf(stderr, "collviz: could not write the %s file %s: %s\n",
            j->opt, j->path, why);
    return CLI_EXIT_FAIL;
}
