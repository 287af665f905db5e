/* file.c - an algorithm read from a schedule file (sched_text.h): an
 * AlgoInfo whose generator builds the file's schedule for a call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "core/msccl.h"

struct AlgoFile {
    AlgoInfo info;    /* first: AlgoArgs.self points here */
    SchedText text;   /* the schedule, one unit per element */
    char *path;       /* info.name: the path as given */
    char summary[96]; /* info.summary */
    char needs[128];  /* info.constraints */
    bool wrong;       /* kept though it is not its collective */
    size_t bad_step;  /* then: the step after which it goes wrong */
    char bad_why[2 * CV_WHY_LEN]; /* and the sentence that says how */
};

static CvError file_generate(const AlgoArgs *args, Schedule *out)
{
    const AlgoFile *f = (const AlgoFile *)args->self;
    return sched_text_build(&f->text, args->call, args->reuse, out);
}

static bool file_fits(const AlgoArgs *args, char *why, size_t whylen)
{
    const AlgoFile *f = (const AlgoFile *)args->self;
    char buf[CV_WHY_LEN];
    if (!sched_text_fits(&f->text, args->call, buf, sizeof buf))
        return true;
    if (why && whylen)
        snprintf(why, whylen, "%s: %s", f->path, buf);
    return false;
}

/* The call the file's schedule serves, in words. */
static void describe(AlgoFile *f)
{
    const CollCall *c = &f->text.unit.call;
    int n = snprintf(f->needs, sizeof f->needs, "%d ranks", c->nranks);
    if (f->text.parts)
        n += snprintf(f->needs + n, sizeof f->needs - (size_t)n,
                      ", a count that %zu divides", f->text.parts);
    else
        n += snprintf(f->needs + n, sizeof f->needs - (size_t)n,
                      ", %zu elements a block", c->count);
    if (coll_is_rooted(c->kind))
        n += snprintf(f->needs + n, sizeof f->needs - (size_t)n, ", root %d",
                      c->root);
    snprintf(f->needs + n, sizeof f->needs - (size_t)n, ", %s",
             c->in_place ? "in place" : "out of place");
    snprintf(f->summary, sizeof f->summary, "from a file: %s in %zu steps",
             coll_name(c->kind), f->text.unit.nsteps);
}

CvError algo_file_new(const char *path, const char *text, size_t len,
                      bool keep_wrong, AlgoFile **out, char *why,
                      size_t whylen)
{
    char buf[CV_WHY_LEN];
    AlgoFile *f = calloc(1, sizeof *f);
    char *name = strdup(path);
    *out = NULL;
    if (!f || !name) {
        free(f), free(name);
        snprintf(why, whylen, "%s: out of memory", path);
        return CV_ERR_NOMEM;
    }
    f->path = name;
    CvError e = msccl_is_xml(text, len)
        ? msccl_parse(text, len, name, &f->text, buf, sizeof buf)
        : sched_text_parse(text, len, name, &f->text, buf, sizeof buf);
    if (!e)
        e = sched_text_check(&f->text, &f->bad_step, buf, sizeof buf);
    if (e == CV_ERR_WRONG && keep_wrong) { /* shown, with the reason */
        f->wrong = true;
        snprintf(f->bad_why, sizeof f->bad_why, "%s: %s", path, buf);
        e = CV_OK;
    }
    if (e) {
        snprintf(why, whylen, "%s:%s%s", path, buf[0] >= '0' &&
                 buf[0] <= '9' ? "" : " ", buf);
        algo_file_free(f);
        return e;
    }
    describe(f);
    f->info = (AlgoInfo){
        .coll = f->text.unit.call.kind,
        .name = name,
        .aliases = "",
        .summary = f->summary,
        .formula = "none (a schedule from a file)",
        .schedule = "the file's own steps ('collviz trace -a FILE' lists "
                    "them)",
        .constraints = f->needs,
        .shape = SHAPE_FULL,
        .generate = file_generate,
        .fits = file_fits,
    };
    *out = f;
    return CV_OK;
}

void algo_file_free(AlgoFile *f)
{
    if (!f)
        return;
    sched_text_fini(&f->text);
    free(f->path);
    free(f);
}

const AlgoInfo *algo_file_info(const AlgoFile *f) { return &f->info; }

const SchedText *algo_file_text(const AlgoInfo *a)
{
    return a && a->generate == file_generate
               ? &((const AlgoFile *)a)->text : NULL;
}

size_t algo_file_count(const AlgoInfo *a, size_t want)
{
    const SchedText *t = algo_file_text(a);
    if (!t)
        return want;
    if (!t->parts)
        return t->unit.call.count;
    return want > t->parts ? want / t->parts * t->parts : t->parts;
}

bool algo_file_wrong(const AlgoInfo *a, size_t *step, const char **why)
{
    const AlgoFile *f = algo_file_text(a) ? (const AlgoFile *)a : NULL;
    if (!f || !f->wrong)
        return false;
    *step = f->bad_step;
    *why = f->bad_why;
    return true;
}
