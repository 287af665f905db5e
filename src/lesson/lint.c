/* lint.c - checking lessons (lint.h) for `collviz learn --check`. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "algos/algo.h"
#include "cli/cli.h"
#include "scene/spec.h"
#include "scene/trace.h"
#include "core/sanitize.h"
#include "lesson/library.h"
#include "lesson/lint.h"
#include "lesson/output.h"
#include "lesson/query.h"
#include "lesson/runcheck.h"

/* A scene line trace accepts under lim: 0 and *out, or -1 and its
 * sentence. */
static int trace_scene(const char *line, const SceneLimits *lim,
                       SceneSpec *out, char *why, size_t whylen)
{
    CliErr e;
    if (scene_opts_parse_line(line, lim, out, &e) ||
        trace_fits(&out->call, out->bytes, &e)) {
        snprintf(why, whylen, "%s", e.msg);
        return -1;
    }
    return 0;
}

static int lesson_trace_scene(const char *line, SceneSpec *out, char *why,
                              size_t whylen);

int lint_scene(const Lesson *l, size_t i, SceneSpec *out, char *why,
               size_t whylen)
{
    return lesson_trace_scene(l->items[i].text, out, why, whylen);
}

size_t lint_picture_count(const SceneSpec *sc)
{
    CollCall c = sc->call;
    while (c.count > 1 && coll_cells(&c) > LINT_PICTURE_MAX_CELLS)
        c.count /= 2;
    return c.count;
}

int lint_picture_fits(const SceneSpec *sc, char *why, size_t whylen)
{
    if (sc->call.nranks <= LINT_PICTURE_MAX_RANKS)
        return 0;
    snprintf(why, whylen, "the picture shows at most %d ranks, and this "
             "scene has %d; 'collviz trace' prints it", LINT_PICTURE_MAX_RANKS,
             sc->call.nranks);
    return -1;
}

long lint_scene_steps(const SceneSpec *sc, char *why, size_t whylen)
{
    Schedule s;
    /* on the scene's machine (-T, built when its options were read), as
       trace and the player build it: the torus, hier and nvls algorithms
       exist only there */
    const Machine *m = sc->machine.given[0] ? &sc->machine.mach : NULL;
    CvError e = algo_generate_on(sc->algo, &sc->call, m, &s, NULL, 0);
    if (e) {
        snprintf(why, whylen, "the %s schedule cannot be built: %s",
                 sc->algo->name, cv_strerror(e));
        return -1;
    }
    long n = (long)s.nsteps;
    sched_fini(&s);
    return n;
}

static void lint_check(const LessonItem *it, const SceneSpec *sc,
                       const char *line, LessonDiags *d)
{
    QueryValue v;
    char why[512];
    if (query_eval(it->query, sc, line, &v, why, sizeof why)) {
        lesson_diag(d, it->query_line, "the query cannot be evaluated: %s",
                    why);
        return;
    }
    /* choices: two or more, exactly one of them the computed answer */
    size_t right = 0;
    for (size_t k = 0; k < it->nchoices; k++)
        right += query_match(&v, it->choices[k]);
    if (it->nchoices == 1)
        lesson_diag(d, it->choice_lines[0], "a checkpoint with choices offers "
                    "two or more%s", "");
    else if (it->nchoices && right != 1)
        lesson_diag(d, it->choice_lines[0], "%zu of the %zu choices match "
                    "what the query computes (%.*s); exactly one must",
                    right, it->nchoices, utf8_prefix(v.text, 80), v.text);
    if (v.kind == Q_BEST && v.second[0] && v.margin < 0.01)
        lesson_diag(d, it->query_line, "a tie: %s takes only %.2f%% longer "
                    "than %s, the best; ask where one is clearly best",
                    v.second, v.margin * 100, v.name);
    if (it->within > 0 && v.type != QV_NUMBER)
        lesson_diag(d, it->within_line, "@within is for numbers; '%.*s' "
                    "computes %s", utf8_prefix(it->query, 60), it->query,
                    v.type == QV_NAME ? "a name" : "a list");
    for (size_t k = 0; k < it->nanswers; k++)
        if (!query_match(&v, it->answers[k]))
            lesson_diag(d, it->answer_lines[k], "@answer '%.*s' disagrees "
                        "with the query, which computes %.*s",
                        utf8_prefix(it->answers[k], 60), it->answers[k],
                        utf8_prefix(v.text, 80), v.text);
}

/* Every command of @run item it: one a lesson may hold (runcheck.h). */
static void lint_run(const LessonItem *it, LessonDiags *d)
{
    const char *s = it->text;
    char why[400];
    for (int k = 1; *s; k++) {
        size_t n = strcspn(s, "\n");
        char *line = malloc(n + 1);
        RunCmd c;
        if (!line) {
            lesson_diag(d, it->line + k, "%s", cv_strerror(CV_ERR_NOMEM));
            return;
        }
        memcpy(line, s, n);
        line[n] = '\0';
        if (runcheck(line, &c, why, sizeof why))
            lesson_diag(d, it->line + k, "the player would not run this "
                        "command: %s", why);
        free(line);
        s += n + (s[n] == '\n');
    }
}

/* A checkpoint's answer must not stand in the text the learner reads just
 * before it: the paragraphs and blocks since the checkpoint or scene
 * before, and its own question. Answers of two characters or more (a
 * single digit is everywhere); names are left out, since a question may
 * name the algorithms to choose from. */
static void lint_leak(const Lesson *l, size_t i, LessonDiags *d)
{
    const LessonItem *it = &l->items[i];
    for (size_t k = 0; k < it->nanswers; k++) {
        const char *a = it->answers[k];
        if (strlen(a) < 2 || isalpha((unsigned char)a[0]))
            continue;
        const char *where = lesson_holds_word(it->text, a) ? "its own question"
                                                    : NULL;
        for (size_t j = i; !where && j-- > 0;) {
            const LessonItem *t = &l->items[j];
            if (t->kind == LI_CHECK || t->kind == LI_SCENE)
                break;
            if ((t->kind == LI_PARA || t->kind == LI_BLOCK) &&
                lesson_holds_word(t->text, a))
                where = "the text just before it";
        }
        if (where)
            lesson_diag(d, it->answer_lines[k], "@answer '%.*s' stands in %s: "
                        "the learner reads the answer before giving it",
                        utf8_prefix(a, 60), a, where);
    }
}

int lint_scene_line(const char *line, SceneSpec *out, char *why,
                    size_t whylen)
{
    return trace_scene(line, &scene_limits_learner, out, why, whylen) ? -1
           : lint_picture_fits(out, why, whylen);
}

/* Where the value of line's algorithm option starts when it names a
 * lessons' file (`-a files/NAME`, `--algo files/NAME`, `--algo=files/NAME`,
 * `-afiles/NAME`), else NULL. */
static const char *files_value(const char *line)
{
    static const char *const opts[] = {"-a ", "--algo ", "--algo=", "-a"};
    for (const char *w = line; *w;) {
        w += strspn(w, " \t");
        for (size_t i = 0; *w && i < sizeof opts / sizeof *opts; i++) {
            size_t n = strlen(opts[i]);
            const char *v = w + n;
            if (strncmp(w, opts[i], n))
                continue;
            v += strspn(v, " \t");
            if (!strncmp(v, "files/", 6))
                return v;
            break;
        }
        w += strcspn(w, " \t");
    }
    return NULL;
}

int lint_resolve_files(const char *dir, const char *line, char *out,
                       size_t n, char *why, size_t whylen)
{
    const char *v = files_value(line);
    if (!v) {
        snprintf(out, n, "%s", line);
        return 0;
    }
    const char *name = v + 6, *end = name + strcspn(name, " \t");
    char nm[72];
    snprintf(nm, sizeof nm, "%.*s", (int)(end - name < 71 ? end - name : 71),
             name);
    if (!lesson_file_name_ok(nm, strlen(nm))) {
        snprintf(why, whylen, "'%s' is no file of the lessons' files/ "
                 "folder: letters, digits, '-', '_' and '.' (not first)", nm);
        return -1;
    }
    if ((size_t)snprintf(out, n, "%.*s%s/files/%s%s", (int)(v - line), line,
                         dir, nm, end) >= n) {
        snprintf(why, whylen, "the lessons' folder's path is too long");
        return -1;
    }
    return 1;
}

/* A lesson's scene line as trace reads it: `-a files/NAME` resolved to
 * the lessons' files/ folder (the one file a lesson may name). */
static int lesson_trace_scene(const char *line, SceneSpec *out, char *why,
                              size_t whylen)
{
    char buf[2 * CV_WHY_LEN], dir[CV_WHY_LEN];
    if (!files_value(line))
        return trace_scene(line, &scene_limits_lesson, out, why, whylen);
    if (library_dir(dir, sizeof dir, why, whylen))
        return -1;
    int r = lint_resolve_files(dir, line, buf, sizeof buf, why, whylen);
    return r < 0 ? -1
           : trace_scene(buf, r ? &scene_limits_learner : &scene_limits_lesson,
                         out, why, whylen);
}

int lint_lesson_line(const char *line, SceneSpec *out, char *why,
                     size_t whylen)
{
    return lesson_trace_scene(line, out, why, whylen) ? -1
           : lint_picture_fits(out, why, whylen);
}

/* A goal checkpoint's @start: the file reads and is its collective, and
 * the goals do not hold on it yet. */
static void lint_start(const LessonItem *it, const SceneSpec *sc,
                       LessonDiags *d)
{
    char why[512], line[600];
    SceneSpec st;
    QueryGoal g;
    bool all = true;
    snprintf(line, sizeof line, "-a files/%s -s %llu", it->start, sc->bytes);
    if (lint_lesson_line(line, &st, why, sizeof why)) {
        lesson_diag(d, it->start_line, "the learner's starting file cannot "
                    "be shown: %s", why);
        return;
    }
    for (size_t k = 0; k < it->ngoals; k++)
        if (!query_goal(it->goals[k], &st, line, &g, why, sizeof why))
            all &= g.met;
    if (all)
        lesson_diag(d, it->start_line, "the goals already hold on the "
                    "starting file: there is nothing for the learner to "
                    "write%s", "");
}

/* A goal checkpoint: its goals evaluate on the scene in effect and do
 * not hold there already, and each @answer is a scene that reaches them
 * all. */
static void lint_goals(const LessonItem *it, const SceneSpec *sc,
                       const char *line, LessonDiags *d)
{
    char why[512];
    QueryGoal g;
    bool all = true;
    if (!sc) {
        lesson_diag(d, it->line, "a goal checkpoint needs a @scene above it "
                    "for the learner to change%s", "");
        return;
    }
    for (size_t k = 0; k < it->ngoals; k++) {
        if (query_goal(it->goals[k], sc, line, &g, why, sizeof why)) {
            lesson_diag(d, it->goal_lines[k], "the goal cannot be evaluated: "
                        "%s", why);
            return;
        }
        all &= g.met;
    }
    if (all)
        lesson_diag(d, it->goal_lines[0], "the goals already hold on the "
                    "scene in effect: there is nothing for the learner to "
                    "change%s", "");
    if (!it->nanswers)
        lesson_diag(d, it->line, "a goal checkpoint gives a scene that "
                    "reaches its goals with @answer%s", "");
    if (it->start)
        lint_start(it, sc, d);
    for (size_t a = 0; a < it->nanswers; a++) {
        SceneSpec ex;
        if (lint_lesson_line(it->answers[a], &ex, why, sizeof why)) {
            lesson_diag(d, it->answer_lines[a], "@answer of a goal is a "
                        "scene the player can draw: %s", why);
            continue;
        }
        for (size_t k = 0; k < it->ngoals; k++)
            if (!query_goal(it->goals[k], &ex, it->answers[a], &g, why,
                            sizeof why) && !g.met)
                lesson_diag(d, it->answer_lines[a], "the scene '%.*s' does "
                            "not reach the goal '%.*s' (%.*s there)",
                            utf8_prefix(it->answers[a], 80), it->answers[a],
                            utf8_prefix(it->goals[k], 80), it->goals[k],
                            utf8_prefix(g.text, 40), g.text);
    }
}

void lint_lesson(const Lesson *l, LessonDiags *d)
{
    SceneSpec sc;
    const SceneSpec *cur = NULL;
    const char *line = NULL;
    long steps = -1;
    char why[512];
    for (size_t i = 0; i < l->nitems; i++) {
        const LessonItem *it = &l->items[i];
        if (it->kind == LI_SCENE) {
            cur = NULL, steps = -1, line = it->text;
            if (lint_scene(l, i, &sc, why, sizeof why))
                lesson_diag(d, it->line, "trace would refuse this scene: %s",
                            why);
            else if (lint_picture_fits(&sc, why, sizeof why))
                lesson_diag(d, it->line, "the player cannot draw this scene: "
                            "%s", why);
            else if ((steps = lint_scene_steps(&sc, why, sizeof why)) < 0)
                lesson_diag(d, it->line, "%s", why);
            else
                cur = &sc;
        } else if (it->kind == LI_STEP) {
            if (it->scene < 0)
                lesson_diag(d, it->line, "@step has no @scene above it");
            else if (steps >= 0 && it->step > steps)
                lesson_diag(d, it->line, "step %ld is beyond the scene's last, "
                            "%ld", it->step, steps);
        } else if (it->kind == LI_RUN) {
            lint_run(it, d);
        } else if (it->kind == LI_CHECK && it->ngoals) {
            lint_goals(it, it->scene >= 0 ? cur : NULL,
                       it->scene >= 0 ? line : NULL, d);
        } else if (it->kind == LI_CHECK && it->query) {
            lint_leak(l, i, d);
            if (it->scene >= 0 && !cur && !strstr(it->query, " on "))
                lesson_diag(d, it->query_line, "the query cannot be evaluated: "
                            "its @scene, at line %d, is refused",
                            l->items[it->scene].line);
            else
                lint_check(it, it->scene >= 0 ? cur : NULL,
                           it->scene >= 0 ? line : NULL, d);
        }
    }
}

/* Whether items x and y are the same directive. */
static int same(const LessonItem *x, const LessonItem *y)
{
    if (x->kind != y->kind)
        return 0;
    if (x->kind == LI_STEP)
        return x->step == y->step;
    if (x->kind == LI_SCENE || x->kind == LI_RUN)
        return !strcmp(x->text, y->text);
    if (x->kind == LI_BLOCK) /* quoted output: the same in every language */
        return x->quotes == y->quotes && !strcmp(x->text, y->text);
    if (x->nanswers != y->nanswers || !x->query != !y->query ||
        x->within != y->within || x->nchoices != y->nchoices ||
        x->ngoals != y->ngoals ||
        (x->query && strcmp(x->query, y->query)))
        return 0;
    for (size_t k = 0; k < x->nanswers; k++)
        if (strcmp(x->answers[k], y->answers[k]))
            return 0;
    return 1;
}

/* A directive item's name and line as written (a quoting block: its
 * @output line). */
static const char *dir_name(const LessonItem *it)
{
    return it->kind == LI_BLOCK ? "@output" : lesson_kind_name(it->kind);
}

static int dir_line(const LessonItem *it)
{
    return it->kind == LI_BLOCK ? it->quotes_line : it->line;
}

/* The next directive item from *i on (a block that quotes output counts
 * as its @output), or NULL. */
static const LessonItem *next_dir(const Lesson *l, size_t *i)
{
    for (; *i < l->nitems; (*i)++)
        if (l->items[*i].kind != LI_PARA &&
            (l->items[*i].kind != LI_BLOCK || l->items[*i].quotes))
            return &l->items[(*i)++];
    return NULL;
}

void lint_pair(const Lesson *a, const char *aname, const Lesson *b,
               LessonDiags *d)
{
    size_t i = 0, j = 0;
    for (;;) {
        const LessonItem *x = next_dir(a, &i), *y = next_dir(b, &j);
        if (!x && !y)
            return;
        if (x && y && same(x, y)) {
            /* a hint is the language's own text, but where one language
               helps after a wrong answer the other must too */
            if (x->kind == LI_CHECK && !x->hint != !y->hint)
                lesson_diag(d, y->hint ? y->hint_line : y->line,
                            y->hint ? "this @hint has no counterpart in %s's "
                            "checkpoint at its line %d: give both languages "
                            "a hint or neither" : "this @check has no @hint, "
                            "but %s's checkpoint at its line %d has one: give "
                            "both languages a hint or neither", aname, x->line);
            continue;
        }
        if (!y)
            lesson_diag(d, 0, "the directives end here, but %s goes on with "
                        "%s at its line %d", aname, dir_name(x), dir_line(x));
        else if (!x)
            lesson_diag(d, dir_line(y), "%s has no directive here; its "
                        "directives ended before this %s", aname, dir_name(y));
        else
            lesson_diag(d, dir_line(y), "this %s differs from %s's directive "
                        "at its line %d (%s): the languages must have the same "
                        "directives in the same order", dir_name(y), aname,
                        dir_line(x), dir_name(x));
        return;
    }
}

/* ------------------------------------------------------------- command */

/* One problem as FILE:LINE: SENTENCE (line < 0: FILE: SENTENCE). The file's
 * name and the sentence, which quotes the lesson, came from files: their
 * controls are shown as escapes (core/sanitize.h), never sent to the
 * terminal. */
static void say(const char *path, int line, const char *msg)
{
    char p[8192], m[1024];
    sanitize(p, sizeof p, *path ? path : "''", 0);
    sanitize(m, sizeof m, msg, 0);
    if (line >= 0)
        printf("%s:%d: %s\n", p, line, m);
    else
        printf("%s: %s\n", p, m);
}

/* Parse file path into *l, printing its problems; returns their number
 * (-1: the file could not be read). deep (NULL: the parse alone): the
 * lint and the commands too, deep their budget and what they printed
 * (output_lint). */
static int lint_file(const char *path, Lesson *l, OutputRuns *deep,
                     int print)
{
    char *buf, why[512];
    size_t len;
    LessonDiags d = {0};
    if (library_read(path, &buf, &len, why, sizeof why)) {
        if (print)
            say(path, -1, why);
        *l = (Lesson){0};
        return -1;
    }
    CvError e = lesson_parse(buf, len, l, &d);
    free(buf);
    if (e == CV_ERR_NOMEM)
        lesson_diag(&d, 0, "%s", cv_strerror(e));
    if (deep) {
        lint_lesson(l, &d);
        /* the quoted output against this very program's */
        output_lint(l, "/proc/self/exe", deep, &d);
        output_leaks(l, "/proc/self/exe", deep, &d);
    }
    for (size_t k = 0; print && k < d.n; k++)
        say(path, d.d[k].line, d.d[k].msg);
    int n = (int)d.n;
    lesson_diags_fini(&d);
    return n;
}

/* Path's language sibling: .../LANG/NAME.txt with LANG replaced. */
static int sibling(const char *path, const char *lang, char *out, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return -1;
    const char *p = slash - 1;
    while (p > path && p[-1] != '/')
        p--;
    snprintf(out, n, "%.*s%s%s", (int)(p - path), path, lang, slash);
    return strncmp(p, lang, (size_t)(slash - p)) ||
           strlen(lang) != (size_t)(slash - p) ? 0 : -1;
}

static const char *const langs[] = {"en", "zh"};

/* Check one file and compare it with its other language's file. */
static int lint_one(const char *path, int *nfiles, OutputRuns *runs)
{
    Lesson l, o;
    int bad = lint_file(path, &l, runs, 1);
    (*nfiles)++;
    for (size_t k = 0; k < sizeof langs / sizeof *langs && bad >= 0; k++) {
        char other[4200];
        struct stat st; /* not opened here: a FIFO would wait for a writer */
        if (sibling(path, langs[k], other, sizeof other) || stat(other, &st))
            continue;
        if (lint_file(other, &o, NULL, 0) == 0) {
            LessonDiags d = {0};
            lint_pair(&o, other, &l, &d);
            for (size_t i = 0; i < d.n; i++)
                say(path, d.d[i].line, d.d[i].msg);
            bad += (int)d.n;
            lesson_diags_fini(&d);
        }
        lesson_fini(&o);
    }
    lesson_fini(&l);
    return bad;
}

int lint_main(int nfiles, const char *const *files)
{
    int bad = 0, n = 0;
    OutputRuns runs = {.left = OUTPUT_BUDGET_S}; /* the commands, in all */
    for (int i = 0; i < nfiles; i++)
        bad += lint_one(files[i], &n, &runs) != 0;
    if (!nfiles) {
        char dir[4096], why[4096];
        if (library_dir(dir, sizeof dir, why, sizeof why)) {
            char safe[8192];
            sanitize(safe, sizeof safe, why, 0);
            fflush(stdout);
            fprintf(stderr, "collviz: %s\n", safe);
            return CLI_EXIT_USAGE;
        }
        for (size_t k = 0; k < sizeof langs / sizeof *langs; k++) {
            LessonEntry *e;
            size_t ne;
            if (library_list(dir, langs[k], &e, &ne, why, sizeof why)) {
                char safe[8192];
                sanitize(safe, sizeof safe, why, 0);
                printf("%s\n", safe);
                bad++;
                continue;
            }
            for (size_t i = 0; i < ne; i++) {
                char path[CV_WHY_LEN];
                snprintf(path, sizeof path, "%s/%s/%s.txt", dir, langs[k],
                         e[i].name);
                bad += lint_one(path, &n, &runs) != 0;
            }
            free(e);
        }
    }
    output_runs_fini(&runs);
    if (bad) {
        /* the problems (stdout) before the summary (stderr): in one log
           (> log 2>&1) a buffered stdout would splice them */
        fflush(stdout);
        fprintf(stderr, "collviz: %d of %d lesson files have problems\n", bad, n);
        return CLI_EXIT_USAGE;
    }
    printf("%d lesson files checked: no problems\n", n);
    return CLI_EXIT_OK;
}
