/* recorded.c - a recorded perf run set against the model (recorded.h). */
#include "recorded.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "cli/cli.h"
#include "core/model.h"

#define HEAD "# collviz perf: "
#define ALPHA "# alpha (one step of one-element messages): "
#define MODEL "#  model " /* under a row: "#  model   12.34 us  ratio 1.02" */

static int add_row(RecRun *run, const RecRow *r)
{
    if (run->n == run->cap) {
        size_t cap = run->cap ? 2 * run->cap : 256;
        RecRow *p = realloc(run->rows, cap * sizeof *p);
        if (!p)
            return -1;
        run->rows = p, run->cap = cap;
    }
    run->rows[run->n++] = *r;
    return 0;
}

/* "COLL, algorithm NAME, backend B, P ranks" into cur; -1 if not. */
static int parse_head(const char *s, RecRow *cur)
{
    char coll[32], algo[32];
    int p;
    if (sscanf(s, "%31[^,], algorithm %31[^,], backend %*[^,], %d rank",
               coll, algo, &p) != 3 || coll_parse(coll) < 0)
        return -1;
    cur->kind = (CollKind)coll_parse(coll);
    snprintf(cur->algo, sizeof cur->algo, "%s", algo);
    cur->p = p;
    return 0;
}

/* A table row: size count type redop root time algbw busbw #wrong (in
 * place: the same four), then (before nccl-tests' 13 fields became the
 * row) model ratio; the model of a 13-field row is the "#  model" line
 * under it (rec_read). */
static int parse_row(const char *line, RecRow *r)
{
    char buf[512], *tok[16], *save = NULL;
    int n = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *t = strtok_r(buf, " \t\n", &save); t && n < 16;
         t = strtok_r(NULL, " \t\n", &save))
        tok[n++] = t;
    if (n != 15 && n != 13)
        return -1;
    char *end;
    r->size = strtoull(tok[0], &end, 10);
    if (*end)
        return -1;
    r->time_us = strtod(tok[5], &end);
    if (*end || !(r->time_us > 0))
        return -1;
    r->model_us = n == 15 && strcmp(tok[13], "-") ? strtod(tok[13], NULL) : 0;
    return 0;
}

int rec_read(const char *path, RecRun *run)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    RecRow cur = {.p = 0};
    int rc = 0;
    bool row = false; /* the line before was a row */
    while (!rc && fgets(line, sizeof line, f)) {
        bool was = row;
        row = false;
        if (was && !strncmp(line, MODEL, strlen(MODEL))) {
            run->rows[run->n - 1].model_us = strtod(line + strlen(MODEL), NULL);
        } else if (!strncmp(line, HEAD, strlen(HEAD))) {
            if (parse_head(line + strlen(HEAD), &cur))
                cur.p = 0;
        } else if (!strncmp(line, ALPHA, strlen(ALPHA))) {
            run->alpha_us = strtod(line + strlen(ALPHA), NULL);
        } else if (line[0] == ' ' && cur.p > 0) {
            RecRow r = cur;
            if (!parse_row(line, &r))
                rc = add_row(run, &r), row = !rc;
        } else if (line[0] == '=') {
            cur.p = 0; /* a new command: its table's head comes first */
        }
    }
    fclose(f);
    return rc;
}

void rec_free(RecRun *run)
{
    free(run->rows);
    *run = (RecRun){0};
}

static int dcmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The one-rank copies: linear broadcast at p = 1. */
static bool one_rank_copy(const RecRow *r)
{
    return r->p == 1 && r->kind == COLL_BROADCAST &&
           !strcmp(r->algo, "linear");
}

int rec_fit_gpu(const RecRun *run, double cache, MemLevel *out)
{
    double small[64];
    int ns = 0;
    for (size_t i = 0; i < run->n; i++)
        if (one_rank_copy(&run->rows[i]) && run->rows[i].size <= 65536 &&
            ns < 64)
            small[ns++] = run->rows[i].time_us;
    if (ns == 0 || !(run->alpha_us > 0))
        return -1;
    qsort(small, (size_t)ns, sizeof *small, dcmp);
    double floor_us = small[ns / 2], rate_mem = INFINITY, rate_cache = 0;
    unsigned long long best = 0;
    for (size_t i = 0; i < run->n; i++) {
        const RecRow *r = &run->rows[i];
        double fp = 2.0 * (double)r->size, above = r->time_us - floor_us;
        if (!one_rank_copy(r) || !(above > 0))
            continue;
        double rate = fp / (above * 1e-6); /* B/s of traffic */
        if (fp >= 4 * cache)
            rate_mem = fmin(rate_mem, rate);
        if (fp <= cache / 2 && r->size > best)
            best = r->size, rate_cache = rate;
    }
    if (!isfinite(rate_mem) || !(rate_cache > 0))
        return -1;
    *out = (MemLevel){.step = run->alpha_us * 1e-6,
                      .call = fmax(floor_us - run->alpha_us, 0) * 1e-6,
                      .beta_mem = 1 / rate_mem, .beta_cache = 1 / rate_cache,
                      .cache = cache, .shared_reads = true,
                      .fuse = MEM_FUSE_NEXT};
    return 0;
}

/* The model's time of row r on the gpu machine of ml (us), or -1. */
static double price_row(const RecRow *r, const MemLevel *ml)
{
    const AlgoInfo *a = algo_find(r->kind, r->algo);
    CollCall c = {.kind = r->kind, .nranks = r->p, .dtype = DT_FLOAT,
                  .op = OP_SUM, .root = 0};
    Machine m;
    Schedule s;
    CostTerms t;
    double sec = -1;
    if (!a || cli_count_for_size(&c, r->size, &c.count, NULL) ||
        machine_memory(&m, MACHINE_GPU, r->p, ml, 0) ||
        algo_generate(a, &c, &s))
        return -1;
    if (model_machine_cost(&s, &m, false, &t, &sec))
        sec = -1;
    sched_fini(&s);
    return sec < 0 ? -1 : sec * 1e6;
}

static bool scored(const RecRow *r, unsigned long long min_size)
{
    return r->p >= 2 && r->size >= min_size && strcmp(r->algo, "nccl") &&
           strcmp(r->algo, "mpi");
}

int rec_score(const RecRun *run, const MemLevel *ml, double band,
              unsigned long long min_size, FILE *report, RecScore *out)
{
    *out = (RecScore){0};
    double *model = calloc(run->n ? run->n : 1, sizeof *model);
    if (!model)
        return -1;
    for (size_t i = 0; i < run->n; i++) {
        const RecRow *r = &run->rows[i];
        if (!scored(r, min_size))
            continue;
        model[i] = ml ? price_row(r, ml) : r->model_us;
        if (!(model[i] > 0)) {
            free(model);
            return -1;
        }
        double ratio = r->time_us / model[i];
        bool in = fabs(ratio - 1) <= band;
        out->rows++, out->within += in;
        if (report)
            fprintf(report, "row %-14s p=%d %10llu %-22s %10.2f %10.2f %5.2f%s\n",
                    coll_name(r->kind), r->p, r->size, r->algo, r->time_us,
                    model[i], ratio, in ? "" : "  out");
    }
    /* groups: the first row of each (kind, p, size) gathers the others */
    for (size_t i = 0; i < run->n; i++) {
        const RecRow *r = &run->rows[i];
        if (!scored(r, min_size))
            continue;
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = !(scored(&run->rows[j], min_size) &&
                      run->rows[j].kind == r->kind && run->rows[j].p == r->p &&
                      run->rows[j].size == r->size);
        if (!first)
            continue;
        size_t fast = i, cheap = i;
        int members = 0;
        for (size_t j = i; j < run->n; j++) {
            const RecRow *q = &run->rows[j];
            if (!scored(q, min_size) || q->kind != r->kind || q->p != r->p ||
                q->size != r->size)
                continue;
            members++;
            if (q->time_us < run->rows[fast].time_us)
                fast = j;
            if (model[j] < model[cheap])
                cheap = j;
        }
        if (members < 2)
            continue;
        out->groups++;
        out->chosen += fast == cheap;
        if (report)
            fprintf(report, "group %-14s p=%d %10llu fastest %-20s model's %-20s%s\n",
                    coll_name(r->kind), r->p, r->size, run->rows[fast].algo,
                    run->rows[cheap].algo, fast == cheap ? "" : "  missed");
    }
    free(model);
    return 0;
}
