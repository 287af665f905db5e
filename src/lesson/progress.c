/* progress.c - lesson progress in the state directory (progress.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson/progress.h"
#include "store/store.h"

#define PROGRESS_MAGIC "collviz lesson progress 1"
#define PROGRESS_FILE "lessons"

static int name_ok(const char *s)
{
    if (!*s || strlen(s) >= sizeof ((ProgressEntry *)0)->name)
        return 0;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                    "0123456789._-", *s))
            return 0;
    return 1;
}

/* One line "NAME D T RESULTS" into *e; 0, or -1 when it is not one. */
static int parse_line(char *line, ProgressEntry *e)
{
    char *save = NULL, *w[5];
    int n = 0;
    for (char *t = strtok_r(line, " \n", &save); t && n < 5;
         t = strtok_r(NULL, " \n", &save))
        w[n++] = t;
    if (n != 4 || !name_ok(w[0]))
        return -1;
    char *end;
    e->dirs = strtol(w[1], &end, 10);
    if (*end || w[1][0] < '0' || w[1][0] > '9' || e->dirs > 1000000)
        return -1;
    e->texts = strtol(w[2], &end, 10);
    if (*end || w[2][0] < '0' || w[2][0] > '9' || e->texts > 1000000)
        return -1;
    if (strspn(w[3], ".+sr") != strlen(w[3]) || !(e->results = strdup(w[3])))
        return -1;
    snprintf(e->name, sizeof e->name, "%s", w[0]);
    return 0;
}

/* Read f into p; -1 at the first line that does not parse. A line is as
 * long as its lesson has checkpoints: read whole (getline). */
static int parse_file(FILE *f, Progress *p)
{
    char *line = NULL;
    size_t cap = 0;
    int bad = getline(&line, &cap, f) < 0 || strcmp(line, PROGRESS_MAGIC "\n");
    while (!bad && getline(&line, &cap, f) >= 0) {
        ProgressEntry e = {0}, *ne = NULL;
        bad = !strchr(line, '\n') || parse_line(line, &e) ||
              progress_get(p, e.name, false) ||
              !(ne = realloc(p->e, (p->n + 1) * sizeof *ne));
        if (bad) {
            free(e.results);
            break;
        }
        p->e = ne;
        p->e[p->n++] = e;
    }
    free(line);
    return bad || ferror(f) ? -1 : 0;
}

/* Set p's file aside after it could not be read for `cause`; the
 * sentence in why. Without a place to set it, saves go nowhere. */
static CvError set_aside(Progress *p, const char *cause, char *why,
                         size_t whylen)
{
    char aside[4200];
    if (store_set_aside(p->path, aside, sizeof aside)) {
        snprintf(why, whylen, "The lesson progress in %s cannot be read (%s) "
                 "nor set aside; it is left as it is and not saved.", p->path,
                 cause);
        p->path[0] = '\0';
        return CV_ERR_IO;
    }
    snprintf(why, whylen, "The lesson progress in %s could not be read (%s); "
             "it was set aside as %s and the lessons start afresh.", p->path,
             cause, aside);
    return CV_OK;
}

CvError progress_load(Progress *p, const char *path, char *why, size_t whylen)
{
    memset(p, 0, sizeof *p);
    why[0] = '\0';
    if (path)
        snprintf(p->path, sizeof p->path, "%s", path);
    else if (store_path(STORE_STATE, PROGRESS_FILE, p->path, sizeof p->path,
                        why, whylen))
        return p->path[0] = '\0', CV_ERR_IO;
    FILE *f;
    int missing = 0;
    char cause[600];
    if (store_open(p->path, &f, &missing, cause, sizeof cause)) {
        if (missing)
            return CV_OK;
        return set_aside(p, cause, why, whylen);
    }
    int bad = parse_file(f, p);
    fclose(f);
    if (!bad)
        return CV_OK;
    progress_fini(p);
    return set_aside(p, "it is not lesson progress as collviz writes it", why,
                     whylen);
}

void progress_fini(Progress *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->e[i].results);
    free(p->e);
    p->e = NULL;
    p->n = 0;
}

static int write_all(FILE *f, void *ctx)
{
    const Progress *p = ctx;
    fprintf(f, "%s\n", PROGRESS_MAGIC);
    for (size_t i = 0; i < p->n; i++)
        fprintf(f, "%s %ld %ld %s\n", p->e[i].name, p->e[i].dirs,
                p->e[i].texts, p->e[i].results[0] ? p->e[i].results : ".");
    return ferror(f);
}

CvError progress_save(const Progress *p, char *why, size_t whylen)
{
    if (!p->path[0]) {
        snprintf(why, whylen, "There is no place to save lesson progress.");
        return CV_ERR_IO;
    }
    char w[4400];
    if (store_write(p->path, write_all, (void *)p, w, sizeof w)) {
        snprintf(why, whylen, "The lesson progress cannot be saved: %s.", w);
        return CV_ERR_IO;
    }
    return CV_OK;
}

ProgressEntry *progress_get(Progress *p, const char *name, bool create)
{
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->e[i].name, name))
            return &p->e[i];
    if (!create || !name_ok(name))
        return NULL;
    char *results = calloc(1, 1);
    ProgressEntry *ne = results ? realloc(p->e, (p->n + 1) * sizeof *ne) : NULL;
    if (!ne) {
        free(results);
        return NULL;
    }
    p->e = ne;
    ProgressEntry *e = &p->e[p->n++];
    *e = (ProgressEntry){.results = results};
    snprintf(e->name, sizeof e->name, "%s", name);
    return e;
}

CvError progress_set_checks(ProgressEntry *e, size_t n)
{
    size_t have = strlen(e->results);
    if (have < n) {
        char *r = realloc(e->results, n + 1);
        if (!r)
            return CV_ERR_NOMEM;
        memset(r + have, CP_OPEN, n - have);
        e->results = r;
    }
    e->results[n] = '\0';
    return CV_OK;
}

void progress_reset(Progress *p, const char *name)
{
    ProgressEntry *e = progress_get(p, name, false);
    if (!e)
        return;
    size_t i = (size_t)(e - p->e);
    free(e->results);
    memmove(&p->e[i], &p->e[i + 1], (p->n - i - 1) * sizeof *p->e);
    p->n--;
}

static int is_text(const LessonItem *it)
{
    return it->kind == LI_PARA || it->kind == LI_BLOCK;
}

size_t progress_index(const Lesson *l, long dirs, long texts)
{
    size_t i = 0;
    for (long d = 0; i < l->nitems && d < dirs; i++)
        d += !is_text(&l->items[i]);
    for (long t = 0; i < l->nitems && t < texts && is_text(&l->items[i]); t++)
        i++;
    return i;
}

void progress_position(const Lesson *l, size_t index, long *dirs, long *texts)
{
    *dirs = *texts = 0;
    for (size_t i = 0; i < index && i < l->nitems; i++) {
        if (is_text(&l->items[i])) {
            (*texts)++;
        } else {
            (*dirs)++;
            *texts = 0;
        }
    }
}
