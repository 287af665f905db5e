/* progress.c - lesson progress in the state directory (progress.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/grow.h"
#include "lesson/progress.h"
#include "store/store.h"

#define PROGRESS_MAGIC "collviz lesson progress 1"
#define PROGRESS_FILE "lessons"
#define NAME_MAX_LEN (sizeof ((ProgressEntry *)0)->name - 1)

static void rebase(Progress *p);

/* The bytes a name keeps as they are in the file; any other is %XX. */
static int plain(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* Whether s can be a lesson's name: a file name without its .txt. */
static int name_ok(const char *s)
{
    return *s && strlen(s) <= NAME_MAX_LEN && !strchr(s, '/');
}

static int hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The name written as w in the file into out (NAME_MAX_LEN + 1 bytes);
 * 0, or -1 when w is not a name as save writes them. Files written before
 * names were encoded hold plain bytes only, and read the same. */
static int decode(const char *w, char *out)
{
    size_t n = 0;
    for (; *w; w++) {
        int c = (unsigned char)*w;
        if (c == '%') {
            int hi = hex(w[1]), lo = hi < 0 ? -1 : hex(w[2]);
            if (lo < 0)
                return -1;
            c = hi * 16 + lo, w += 2;
        } else if (!plain((unsigned char)c)) {
            return -1;
        }
        if (!c || n == NAME_MAX_LEN)
            return -1;
        out[n++] = (char)c;
    }
    out[n] = '\0';
    return name_ok(out) ? 0 : -1;
}

/* Write name to f, every byte but plain() ones as %XX (a blank, an
 * accent, a parenthesis: any file name saves). */
static void encode(FILE *f, const char *name)
{
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        if (plain(*c))
            fputc(*c, f);
        else
            fprintf(f, "%%%02X", *c);
}

/* One line "NAME D T RESULTS" into *e; 0, or -1 when it is not one. */
static int parse_line(char *line, ProgressEntry *e)
{
    char *save = NULL, *w[5];
    int n = 0;
    for (char *t = strtok_r(line, " \n", &save); t && n < 5;
         t = strtok_r(NULL, " \n", &save))
        w[n++] = t;
    if (n != 4 || decode(w[0], e->name))
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
    return 0;
}

/* Room in p for one more entry (the array grows geometrically, so that
 * loading n entries costs O(n)); 0, or -1 without memory. */
static int grow(Progress *p)
{
    ProgressEntry *ne = grow_array(p->e, &p->cap, p->n + 1, sizeof *ne, 16);
    if (!ne)
        return -1;
    p->e = ne;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(ProgressEntry *const *)a)->name,
                  (*(ProgressEntry *const *)b)->name);
}

/* p's entries sorted by name (malloc'd; NULL when p is empty or without
 * memory), so that a name is found in O(log n). */
static ProgressEntry **sorted(const Progress *p)
{
    ProgressEntry **s = p->n ? malloc(p->n * sizeof *s) : NULL;
    for (size_t i = 0; s && i < p->n; i++)
        s[i] = &p->e[i];
    if (s)
        qsort(s, p->n, sizeof *s, by_name);
    return s;
}

static ProgressEntry *find_sorted(ProgressEntry **s, size_t n,
                                  const char *name)
{
    ProgressEntry key, *k = &key;
    snprintf(key.name, sizeof key.name, "%s", name);
    ProgressEntry **hit = s ? bsearch(&k, s, n, sizeof *s, by_name) : NULL;
    return hit ? *hit : NULL;
}

/* Whether p names a lesson twice (a file save never writes). */
static int has_duplicate(const Progress *p)
{
    ProgressEntry **s = sorted(p);
    int dup = p->n && !s;
    for (size_t i = 1; s && i < p->n && !dup; i++)
        dup = !strcmp(s[i - 1]->name, s[i]->name);
    free(s);
    return dup;
}

/* A line is as long as its lesson has checkpoints: read whole
 * (getline). */
int progress_read(Progress *p, FILE *f)
{
    char *line = NULL;
    size_t cap = 0;
    int bad = getline(&line, &cap, f) < 0 || strcmp(line, PROGRESS_MAGIC "\n");
    while (!bad && getline(&line, &cap, f) >= 0) {
        ProgressEntry e = {.base_dirs = -1, .base_texts = -1};
        bad = !strchr(line, '\n') || parse_line(line, &e) || grow(p);
        if (bad) {
            free(e.results);
            break;
        }
        p->e[p->n++] = e;
    }
    free(line);
    return bad || ferror(f) || has_duplicate(p) ? -1 : 0;
}

/* Set the file at path aside after it could not be read for `cause`; the
 * sentence in why. CV_ERR_IO when it could not be set aside either. */
static CvError set_aside(const char *path, const char *cause, char *why,
                         size_t whylen)
{
    char aside[4200];
    if (store_set_aside(path, aside, sizeof aside)) {
        snprintf(why, whylen, "The lesson progress in %s cannot be read "
                 "(%s) nor set aside; it is left as it is and not saved.",
                 path, cause);
        return CV_ERR_IO;
    }
    snprintf(why, whylen, "The lesson progress in %s could not be read "
             "(%s); it was set aside as %s and the lessons start afresh.",
             path, cause, aside);
    return CV_OK;
}

/* Read the file at path into p (emptied first); a missing file is no
 * progress. A file that cannot be read or parsed, or is larger than
 * PROGRESS_MAX_BYTES, is set aside with the sentence in why. */
static CvError read_into(Progress *p, const char *path, char *why,
                         size_t whylen)
{
    FILE *f;
    int missing = 0;
    char cause[600];
    struct stat st;
    progress_fini(p);
    if (store_open(path, &f, &missing, cause, sizeof cause))
        return missing ? CV_OK : set_aside(path, cause, why, whylen);
    int big = !fstat(fileno(f), &st) && st.st_size > PROGRESS_MAX_BYTES;
    int bad = big || progress_read(p, f);
    fclose(f);
    if (!bad)
        return CV_OK;
    progress_fini(p);
    if (big)
        snprintf(cause, sizeof cause, "it is larger than %d MiB",
                 PROGRESS_MAX_BYTES >> 20);
    else
        snprintf(cause, sizeof cause, "%s", "it is not lesson progress as "
                 "collviz writes it");
    return set_aside(path, cause, why, whylen);
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
    if (read_into(p, p->path, why, whylen) == CV_OK) {
        rebase(p);
        return CV_OK;
    }
    p->path[0] = '\0'; /* without a place to set it, saves go nowhere */
    return CV_ERR_IO;
}

static void free_entries(ProgressEntry *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(e[i].results), free(e[i].base);
    free(e);
}

/* Every entry's base becomes what it holds now: the file as read or
 * saved. Without memory for one, its base stays none (its results then
 * count as changed: they win at the next save, as before merges were
 * per checkpoint). */
static void rebase(Progress *p)
{
    for (size_t i = 0; i < p->n; i++) {
        ProgressEntry *e = &p->e[i];
        free(e->base);
        e->base = strdup(e->results);
        e->base_dirs = e->base ? e->dirs : -1;
        e->base_texts = e->base ? e->texts : -1;
    }
}

/* Whether position (d1, t1) comes before (d2, t2). */
static bool before(long d1, long t1, long d2, long t2)
{
    return d1 < d2 || (d1 == d2 && t1 < t2);
}

/* How much a result says the learner did: where two players changed one
 * checkpoint, the one that did more wins (right over shown over skipped). */
static int rank(char r)
{
    return r == CP_RIGHT ? 3 : r == CP_REVEALED ? 2 : r == CP_SKIPPED ? 1 : 0;
}

/* m, this process's record of a lesson, merged with d, the file's
 * (progress_save says how). */
static void merge_entry(ProgressEntry *m, const ProgressEntry *d)
{
    size_t nb = m->base ? strlen(m->base) : 0, nd = strlen(d->results);
    for (size_t k = 0; m->results[k] && k < nd; k++) {
        char b = k < nb ? m->base[k] : CP_OPEN, r = m->results[k],
             o = d->results[k];
        if (o != b && o != CP_OPEN && (r == b || rank(o) > rank(r)))
            m->results[k] = o;
    }
    bool moved = m->dirs != m->base_dirs || m->texts != m->base_texts;
    bool d_moved = d->dirs != m->base_dirs || d->texts != m->base_texts;
    if (d_moved && (!moved || before(m->dirs, m->texts, d->dirs, d->texts)))
        m->dirs = d->dirs, m->texts = d->texts;
}

void progress_fini(Progress *p)
{
    free_entries(p->e, p->n);
    for (size_t i = 0; i < p->ngone; i++)
        free(p->gone[i]);
    free(p->gone);
    p->e = NULL;
    p->n = p->cap = 0;
    p->gone = NULL;
    p->ngone = 0;
}

static int is_gone(const Progress *p, const char *name)
{
    for (size_t i = 0; i < p->ngone; i++)
        if (!strcmp(p->gone[i], name))
            return 1;
    return 0;
}

/* p becomes the file's entries (disk, emptied) with p's own merged into
 * theirs (merge_entry) and those p reset dropped: no lesson and no answer
 * another player saved is lost. -1 without memory (p unchanged). */
static int merge(Progress *p, Progress *disk)
{
    ProgressEntry **mine = sorted(p);
    if (p->n && !mine)
        return -1;
    size_t keep = 0;
    for (size_t i = 0; i < disk->n; i++) {
        ProgressEntry *d = &disk->e[i], *m = find_sorted(mine, p->n, d->name);
        bool gone = is_gone(p, d->name);
        if (m && m->mine && !gone)
            merge_entry(m, d);
        if ((m && m->mine) || gone)
            free(d->results), free(d->base);
        else
            disk->e[keep++] = *d;
    }
    disk->n = keep;
    for (size_t i = 0; i < p->n; i++) {
        if (!p->e[i].mine) {
            free(p->e[i].results), free(p->e[i].base);
            continue;
        }
        if (grow(disk)) { /* cannot happen past the first: room was kept */
            free(mine);
            return -1;
        }
        disk->e[disk->n++] = p->e[i];
    }
    free(mine);
    free(p->e);
    p->e = disk->e, p->n = disk->n, p->cap = disk->cap;
    disk->e = NULL, disk->n = disk->cap = 0;
    return 0;
}

int progress_write(FILE *f, const Progress *p)
{
    fprintf(f, "%s\n", PROGRESS_MAGIC);
    for (size_t i = 0; i < p->n; i++) {
        encode(f, p->e[i].name);
        fprintf(f, " %ld %ld %s\n", p->e[i].dirs, p->e[i].texts,
                p->e[i].results[0] ? p->e[i].results : ".");
    }
    return ferror(f);
}

static int write_all(FILE *f, void *ctx)
{
    return progress_write(f, ctx);
}

CvError progress_save(Progress *p, char *why, size_t whylen)
{
    why[0] = '\0';
    if (!p->path[0]) {
        snprintf(why, whylen, "%s", "There is no place to save lesson "
                                      "progress.");
        return CV_ERR_IO;
    }
    char real[4096], w[CV_WHY_LEN] = "", aside[1200] = "";
    int lock;
    store_resolve(p->path, real, sizeof real); /* a link: its target */
    CvError e = store_lock(real, &lock, w, sizeof w);
    Progress disk = {0};
    if (!e) {
        store_clean_stale(real); /* temp files of killed writers */
        read_into(&disk, real, aside, sizeof aside);
        e = merge(p, &disk) ? CV_ERR_NOMEM : CV_OK;
        if (e)
            snprintf(w, sizeof w, "%s", cv_strerror(e));
    }
    if (!e)
        e = store_write(real, write_all, p, w, sizeof w);
    if (!e)
        rebase(p);
    store_unlock(lock);
    progress_fini(&disk);
    if (e) {
        snprintf(why, whylen, "The lesson progress cannot be saved: %s.",
                 w);
        return CV_ERR_IO;
    }
    snprintf(why, whylen, "%s", aside); /* saved, after setting one aside */
    return CV_OK;
}

ProgressEntry *progress_get(Progress *p, const char *name, bool create)
{
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->e[i].name, name)) {
            p->e[i].mine |= create;
            return &p->e[i];
        }
    if (!create || !name_ok(name))
        return NULL;
    char *results = calloc(1, 1);
    if (!results || grow(p)) {
        free(results);
        return NULL;
    }
    ProgressEntry *e = &p->e[p->n++];
    *e = (ProgressEntry){.results = results, .mine = true, .base_dirs = -1,
                         .base_texts = -1};
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
    char *g = is_gone(p, name) ? NULL : strdup(name);
    char **ng = g ? realloc(p->gone, (p->ngone + 1) * sizeof *ng) : NULL;
    if (ng)
        p->gone = ng, p->gone[p->ngone++] = g;
    else
        free(g);
    ProgressEntry *e = progress_get(p, name, false);
    if (!e)
        return;
    size_t i = (size_t)(e - p->e);
    free(e->results), free(e->base);
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
