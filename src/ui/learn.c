/* learn.c - the lesson player's state (learn.h): opening lessons where
 * their progress says, moving through the text, acting on @scene and
 * @step, asking checkpoints against their computed answers, switching
 * language in place, saving progress. Its keys call these
 * (learn_keys.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/sanitize.h"
#include "lesson/exercise.h"
#include "lesson/lint.h"
#include "ui/learn.h"
#include "ui/scene.h"
#include "ui/words.h"

_Static_assert(LINT_PICTURE_MAX_RANKS == SCENE_MAX_RANKS,
               "the checker and the player draw the same scenes");

/* ------------------------------------------------------------- status */

void learn_say(Learn *l, Role r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->msg, sizeof l->msg, fmt, ap);
    va_end(ap);
    l->msg_role = r;
}

/* ------------------------------------------------------------- files */

/* Read and parse lesson i in language lang; the first problem in why. */
static int read_lesson(const Learn *l, int i, UiLang lang, Lesson *out,
                       char *why, size_t whylen)
{
    char path[CV_WHY_LEN], *buf;
    size_t len;
    LessonDiags d = {0};
    snprintf(path, sizeof path, "%s/%s/%s.txt", l->dir, ui_lang_code(lang),
             l->list[i].name);
    if (library_read(path, &buf, &len, why, whylen)) {
        *out = (Lesson){0};
        return -1;
    }
    CvError e = lesson_parse(buf, len, out, &d);
    free(buf);
    if (e && d.n)
        snprintf(why, whylen, "%s:%d: %s", path, d.d[0].line, d.d[0].msg);
    else if (e)
        snprintf(why, whylen, "%s: %s", path, words_error(e));
    lesson_diags_fini(&d);
    if (e)
        lesson_fini(out);
    return e ? -1 : 0;
}

/* Titles, checkpoints and ends of every lesson in the language shown. */
static void load_titles(Learn *l)
{
    for (size_t i = 0; i < l->nlist; i++) {
        Lesson les;
        char why[600];
        if (read_lesson(l, (int)i, l->lang, &les, why, sizeof why) &&
            read_lesson(l, (int)i, UI_LANG_EN, &les, why, sizeof why)) {
            /* the file's name, its controls as escapes (X6: U+202E) */
            sanitize(l->titles[i], sizeof l->titles[i], l->list[i].name, 0);
            continue;
        }
        snprintf(l->titles[i], sizeof l->titles[i], "%s", les.title);
        l->nchecks[i] = les.nchecks;
        progress_position(&les, les.nitems, &l->end[i][0], &l->end[i][1]);
        lesson_fini(&les);
    }
}

CvError learn_init(Learn *l, const char *dir, UiLang lang,
                   const char *progress_path, char *why, size_t whylen)
{
    memset(l, 0, sizeof *l);
    l->job = (LearnJob){.fd = -1, .limit_s = RUN_MAX_SECONDS,
                        .max_out = RUN_MAX_OUT};
    l->cur.index = -1;
    l->ask.item = -1;
    l->w = 100, l->h = 30;
    l->lang = lang;
    snprintf(l->dir, sizeof l->dir, "%s", dir);
    CvError e = library_list(dir, "en", &l->list, &l->nlist, why, whylen);
    if (e)
        return e;
    if (!l->nlist) {
        snprintf(why, whylen, "there are no lessons in %s/en", dir);
        return CV_ERR_IO;
    }
    l->titles = calloc(l->nlist, sizeof *l->titles);
    l->nchecks = calloc(l->nlist, sizeof *l->nchecks);
    l->end = calloc(l->nlist, sizeof *l->end);
    if (!l->titles || !l->nchecks || !l->end) {
        snprintf(why, whylen, "%s", words_error(CV_ERR_NOMEM));
        return CV_ERR_NOMEM;
    }
    load_titles(l);
    const char *nozh = ui_lang_missing();
    if (nozh)
        learn_say(l, ROLE_WARN, "%s", nozh);
    if (progress_path && !*progress_path)
        return CV_OK; /* no progress: prog_ok stays false */
    char *pwhy = l->prog_note;
    l->prog_ok = progress_load(&l->prog, progress_path, pwhy,
                               sizeof l->prog_note) == CV_OK && l->prog.path[0];
    if (!l->prog_ok)
        snprintf(l->prog_why, sizeof l->prog_why, "%s", pwhy);
    if (pwhy[0])
        learn_say(l, l->prog_ok ? ROLE_WARN : ROLE_ERROR, "%s", pwhy);
    return CV_OK;
}

void learn_fini(Learn *l)
{
    if (l->have_app)
        app_fini(&l->app);
    lesson_fini(&l->cur.les);
    progress_fini(&l->prog);
    free(l->list);
    free(l->titles);
    free(l->nchecks);
    free(l->end);
    learn_run_fini(l);
    free(l->pager);
    memset(l, 0, sizeof *l);
    l->job.fd = -1;
}

/* ------------------------------------------------------------ picture */

void learn_seek(Learn *l, long k)
{
    char why[200] = "";
    if (l->cur.picture)
        scene_seek(l->app.scene, (size_t)k, why, sizeof why);
}

/* Make the picture show scene spec (already checked by lint), as trace
 * would; false and the reason in pic_note when it cannot. */
static bool picture_spec(Learn *l, const SceneSpec *spec)
{
    char why[240] = "";
    LearnLesson *c = &l->cur;
    c->picture = false;
    c->pic_note[0] = '\0';
    c->pic_scale[0] = '\0';
    if (lint_picture_fits(spec, why, sizeof why)) {
        snprintf(c->pic_note, sizeof c->pic_note, _("The picture cannot show "
                 "this scene: %s."), why);
        return false;
    }
    if (!l->have_app) {
        AppOptions o = app_options(spec->call.kind, spec->algo->name,
                                   spec->call.nranks, true);
        o.machine = spec->machine.given[0] ? &spec->machine : NULL;
        if (app_init(&l->app, &o, why, sizeof why)) {
            app_fini(&l->app);
            snprintf(c->pic_note, sizeof c->pic_note, "%s", why);
            return false;
        }
        l->have_app = true;
    }
    SceneSetup set;
    scene_setup(l->app.scene, &set);
    set.call = spec->call;
    set.algo = spec->algo;
    /* the scene's machine (-T), "" for the flat one: the torus, hier and
       nvls algorithms are built only on theirs */
    set.machine = spec->machine;
    /* the picture's state is bounded (lint.h): a scene too large to follow
       element by element is drawn from a smaller count */
    set.count = lint_picture_count(spec);
    if (set.count != spec->call.count)
        snprintf(c->pic_scale, sizeof c->pic_scale, _("The picture follows "
                 "%zu elements per block in place of %zu; the counters are "
                 "of the whole size."), set.count, spec->call.count);
    set.bytes = spec->bytes ? spec->bytes : coll_size_bytes(&spec->call);
    if (!app_remake(&l->app, &set, false)) {
        snprintf(c->pic_note, sizeof c->pic_note, "%s", l->app.status.msg);
        return false;
    }
    l->app.view.ascii = l->ascii;
    c->picture = true;
    return true;
}

/* Make the picture show @scene item i exactly as trace would. */
static void picture_scene(Learn *l, int i)
{
    char why[240] = "";
    LearnLesson *c = &l->cur;
    c->scene = i;
    c->sandbox = false;
    if (lint_scene(&c->les, (size_t)i, &c->spec, why, sizeof why)) {
        c->picture = false;
        c->pic_scale[0] = '\0';
        snprintf(c->pic_note, sizeof c->pic_note, "%s", why);
        return;
    }
    picture_spec(l, &c->spec);
}

/* Act on the directives of items [0, pos): the last scene, its step. */
void learn_replay(Learn *l)
{
    LearnLesson *c = &l->cur;
    int scene = -1;
    long step = 0;
    for (size_t i = 0; i < c->pos; i++) {
        const LessonItem *it = &c->les.items[i];
        if (it->kind == LI_SCENE)
            scene = (int)i, step = 0;
        else if (it->kind == LI_STEP)
            step = it->step;
    }
    if (scene != c->scene || (c->sandbox && scene >= 0)) {
        if (scene >= 0)
            picture_scene(l, scene);
        else
            c->scene = -1, c->picture = false, c->pic_note[0] = '\0',
            c->pic_scale[0] = '\0';
    }
    c->step = step;
    learn_seek(l, step);
}

/* ---------------------------------------------------------- progress */

static ProgressEntry *entry(Learn *l)
{
    if (l->cur.index < 0)
        return NULL;
    ProgressEntry *e = progress_get(&l->prog, l->list[l->cur.index].name,
                                    true);
    return e && !progress_set_checks(e, l->cur.les.nchecks) ? e : NULL;
}

void learn_save(Learn *l)
{
    ProgressEntry *e = entry(l);
    if (!e || !l->prog_ok || l->cur.review) /* a review keeps the record */
        return;
    progress_position(&l->cur.les, l->cur.pos, &e->dirs, &e->texts);
    char why[600];
    if (progress_save(&l->prog, why, sizeof why)) {
        l->prog_ok = false; /* said now and at exit; the lesson plays on */
        snprintf(l->prog_why, sizeof l->prog_why, "%s", why);
        learn_say(l, ROLE_ERROR, "%s", why);
    } else if (why[0]) { /* saved, after setting an unreadable file aside */
        learn_say(l, ROLE_WARN, "%s", why);
    }
}

/* The result of checkpoint item i. */
static char result_of(Learn *l, int i)
{
    ProgressEntry *e = entry(l);
    int k = l->cur.les.items[i].check;
    return e && k >= 0 && (size_t)k < strlen(e->results) ? e->results[k]
                                                         : CP_OPEN;
}

static void set_result(Learn *l, int i, CheckResult r)
{
    ProgressEntry *e = entry(l);
    int k = l->cur.les.items[i].check;
    if (e && k >= 0 && (size_t)k < strlen(e->results))
        e->results[k] = (char)r;
}


/* A @start checkpoint's box: the learner's copy of the lesson's file
 * (made the first time, never written over) in a scene of the lesson's
 * size, and how to edit it. */
static void start_exercise(Learn *l, const LessonItem *it)
{
    LearnAsk *a = &l->ask;
    char why[CV_WHY_LEN];
    bool made;
    a->open = a->scene_box = a->valued = true;
    if (lesson_exercise(l->dir, it->start, a->file, sizeof a->file, &made,
                        why, sizeof why)) {
        a->file[0] = '\0';
        learn_say(l, ROLE_WARN, _("Your copy of %s cannot be made: %s."),
                  it->start, why);
        return;
    }
    unsigned long long bytes = l->cur.scene >= 0 ? l->cur.spec.bytes : 0;
    int room = (int)sizeof a->text - 32; /* "-a ", " -s " and a size */
    if ((int)strlen(a->file) > room)
        learn_say(l, ROLE_WARN, _("The path of your copy, %s, is longer than "
                  "the box holds: give the scene with a shorter path to the "
                  "file (a copy of it)."), a->file);
    const char *q = scene_opts_quote(a->file);
    snprintf(a->text, sizeof a->text, "-a %s%.*s%s -s %llu", q, room, a->file,
             q, bytes ? bytes : 1024ull); /* a path with a blank quoted */
    a->len = strlen(a->text);
    learn_say(l, ROLE_STATUS, _("Write your schedule in %s (%s; Ctrl-E opens "
              "your editor), then press Enter: collviz checks it and the "
              "goal."), a->file, made ? _("a copy of the lesson's, made now")
                                      : _("yours, as you left it"));
}
/* ---------------------------------------------------------- checkpoints */

static void ask_open(Learn *l, int item)
{
    LearnAsk *a = &l->ask;
    const LessonItem *it = &l->cur.les.items[item];
    char why[512];
    SceneSpec spec;
    const SceneSpec *sc = NULL;
    if (a->item != item) {
        memset(a, 0, sizeof *a);
        a->item = item;
    }
    a->open = true;
    if (it->start && !a->len) { /* write it yourself: the learner's copy */
        start_exercise(l, it);
        return;
    }
    if (it->ngoals) { /* a goal: the box holds the scene to change */
        a->scene_box = a->valued = true;
        if (!a->len) {
            const char *now = l->cur.sandbox ? l->cur.sandbox_line
                              : l->cur.scene >= 0
                              ? l->cur.les.items[l->cur.scene].text : "";
            snprintf(a->text, sizeof a->text, "%s", now);
            a->len = strlen(a->text);
        }
        learn_say(l, ROLE_STATUS, "%s", _("Change the scene in the box "
                  "(algorithm, ranks, size, machine) and press Enter: the "
                  "picture shows it and collviz checks the goal."));
        return;
    }
    /* the query is evaluated once per checkpoint, however often the
       prompt opens (query.c bounds its work) */
    if (!a->tried) {
        if (it->scene >= 0 && !lint_scene(&l->cur.les, (size_t)it->scene,
                                          &spec, why, sizeof why))
            sc = &spec;
        a->valued = !query_eval(it->query, sc, it->scene >= 0 ?
                                l->cur.les.items[it->scene].text : NULL,
                                &a->value, a->why, sizeof a->why);
        a->tried = true;
    }
    if (!a->valued)
        learn_say(l, ROLE_ERROR, _("This checkpoint cannot be checked: %s. "
                  "Press Esc, then s to skip it."), a->why);
    else
        learn_say(l, ROLE_STATUS, "%s", _("Type your answer and press Enter; "
                  "Esc leaves the prompt."));
}

/* The checkpoint shown last, when it is still open: its item, or -1. */
static int open_check(Learn *l)
{
    size_t p = l->cur.pos;
    if (!p || l->cur.les.items[p - 1].kind != LI_CHECK)
        return -1;
    return result_of(l, (int)p - 1) == CP_OPEN ? (int)p - 1 : -1;
}

void learn_reveal(Learn *l)
{
    int i = open_check(l);
    if (i < 0)
        return;
    if (!l->ask.valued || l->ask.item != i)
        ask_open(l, i);
    if (!l->ask.valued)
        return;
    set_result(l, i, CP_REVEALED);
    l->ask.open = false;
    const LessonItem *gi = &l->cur.les.items[i];
    if (gi->ngoals) { /* a scene that reaches the goal, and why */
        learn_say(l, ROLE_WARN,
                  gi->hint ? _("One scene that reaches it: %s. Why: %s")
                           : _("One scene that reaches it: %s.%s"),
                  gi->nanswers ? gi->answers[0] : "", gi->hint ? gi->hint : "");
        learn_save(l);
        return;
    }
    /* the reason in the lesson's words (its hint), never the query,
       which is the lesson's authoring syntax (P11) */
    const char *hint = l->cur.les.items[i].hint;
    if (hint && *hint)
        learn_say(l, ROLE_WARN, _("The answer is %s. Why: %s"),
                  l->ask.value.text, hint);
    else
        learn_say(l, ROLE_WARN, _("The answer is %s, as collviz computes it "
                  "for %s."), l->ask.value.text, l->ask.value.scene);
    learn_save(l);
}

void learn_skip(Learn *l)
{
    int i = open_check(l);
    if (i < 0)
        return;
    set_result(l, i, CP_SKIPPED);
    l->ask.open = false;
    learn_save(l);
    learn_next(l);
    learn_say(l, ROLE_DIM, "%s", _("Skipped: the checkpoint is recorded as "
              "skipped, not done."));
}

/* The choice (from 0) a typed answer picks: its letter alone (a, b, ...,
 * either case, blanks around) or its text; -1 for none. */
static int choice_of(const LessonItem *it, const char *typed)
{
    const char *t = typed + strspn(typed, " ");
    size_t n = strlen(t);
    while (n && t[n - 1] == ' ')
        n--;
    char c = n == 1 ? (char)(t[0] | 0x20) : 0;
    if (c >= 'a' && c < 'a' + (int)it->nchoices)
        return c - 'a';
    for (size_t k = 0; k < it->nchoices; k++)
        if (strlen(it->choices[k]) == n && !strncasecmp(it->choices[k], t, n))
            return (int)k;
    return -1;
}

/* Whether the prompt holds just key c (blanks around it, either case):
 * s or r typed at a checkpoint and Enter skip it or show its answer (P9),
 * which no answer of a query can be (numbers, algorithms, rank lists). */
static bool typed_alone(const LearnAsk *a, char c)
{
    const char *t = a->text;
    t += strspn(t, " ");
    return (t[0] == c || t[0] == c - 'a' + 'A') && !t[1 + strspn(t + 1, " ")];
}

/* A goal's query in words (L8: "sent max" is the bytes the busiest rank
 * sends), into buf; a query without words of its own as it is. */
static void goal_words(const char *query, char *buf, size_t n)
{
    char w[3][32] = {"", "", ""};
    int got = sscanf(query, "%31s %31s %31s", w[0], w[1], w[2]);
    bool most = got >= 2 && !strcmp(w[1], "max");
    bool sent = !strcmp(w[0], "sent"), recvd = !strcmp(w[0], "recvd");
    if (got == 1 && !strcmp(w[0], "time"))
        snprintf(buf, n, "%s", _("the model time (us)"));
    else if (got == 2 && !strcmp(w[0], "steptime"))
        snprintf(buf, n, _("step %s's model time (us)"), w[1]);
    else if (got == 1 && !strcmp(w[0], "steps"))
        snprintf(buf, n, "%s", _("the steps"));
    else if (got == 1 && !strcmp(w[0], "msgsteps"))
        snprintf(buf, n, "%s", _("the steps that move messages"));
    else if (got == 1 && !strcmp(w[0], "busbw"))
        snprintf(buf, n, "%s", _("busbw over algbw"));
    else if (got == 2 && most && (sent || recvd))
        snprintf(buf, n, "%s", sent ? _("the bytes the busiest rank sends")
                                    : _("the bytes the busiest rank "
                                        "receives"));
    else if (got == 2 && (sent || recvd))
        snprintf(buf, n, sent ? _("the bytes rank %s sends")
                              : _("the bytes rank %s receives"), w[1]);
    else
        snprintf(buf, n, "%s", query);
}

/* The scene box's Enter: the typed scene in the picture (the sandbox),
 * and at a goal checkpoint its goals checked on it. */
static void submit_scene(Learn *l)
{
    LearnAsk *a = &l->ask;
    LearnLesson *c = &l->cur;
    char why[512], line[2 * CV_WHY_LEN];
    SceneSpec spec;
    /* -a files/NAME: the lesson's own file (its answer, shown by r) */
    if (lint_resolve_files(l->dir, a->text, line, sizeof line, why,
                           sizeof why) < 0 ||
        lint_scene_line(line, &spec, why, sizeof why)) {
        char said[sizeof why];
        words_reason(why, said, sizeof said);
        learn_say(l, ROLE_WARN, _("That scene cannot be shown: %s"), said);
        return;
    }
    if (!picture_spec(l, &spec)) {
        learn_say(l, ROLE_WARN, "%s", c->pic_note);
        return;
    }
    c->sandbox = true;
    snprintf(c->sandbox_line, sizeof c->sandbox_line, "%s", a->text);
    learn_seek(l, 0);
    if (a->item < 0) { /* the sandbox alone */
        a->open = a->scene_box = false;
        learn_say(l, ROLE_STATUS, "%s", _("The picture shows your scene; Home "
                                          "returns to the lesson's."));
        return;
    }
    const LessonItem *it = &c->les.items[a->item];
    QueryGoal g;
    if (it->start && !algo_file_text(spec.algo)) {
        learn_say(l, ROLE_WARN, _("This checkpoint checks a schedule you "
                  "write: give your file with -a, as in -a %s."),
                  a->file[0] ? a->file : it->start);
        return;
    }
    for (size_t k = 0; k < it->ngoals; k++) {
        if (query_goal(it->goals[k], &spec, line, &g, why, sizeof why)) {
            learn_say(l, ROLE_WARN, _("The goal cannot be checked on that "
                      "scene: %s"), why);
            return;
        }
        if (!g.met) {
            char words[200];
            goal_words(g.query, words, sizeof words);
            learn_say(l, ROLE_WARN, _("Not yet: %s is %s there; the goal is %s "
                                      "%g."), words, g.text, g.op, g.target);
            return;
        }
    }
    char reached[sizeof g.query + sizeof g.text + 32], words[200];
    goal_words(g.query, words, sizeof words);
    snprintf(reached, sizeof reached, "%s = %s", words, g.text);
    set_result(l, a->item, CP_RIGHT);
    a->open = a->scene_box = false;
    learn_save(l);
    learn_say(l, ROLE_OK, _("Goal reached: %s. Space goes on with the lesson's "
                            "scene."), reached);
}

/* What a checkpoint of kind k asks, for an answer in another unit. */
static const char *unit_asked(QueryKind k)
{
    switch (query_unit(k)) {
    case QU_BYTES:
        return _("This asks a number of bytes (B, KiB, MiB), not that unit; "
                 "no try is counted.");
    case QU_TIME:
        return _("This asks a time (us, ms), not that unit; no try is "
                 "counted.");
    case QU_STEPS:
        return _("This asks a number of steps, not that unit; no try is "
                 "counted.");
    case QU_PERCENT:
        return _("This asks a factor (a number, a fraction or a percent), "
                 "not that unit; no try is counted.");
    case QU_NONE:
        break;
    }
    return _("This asks no unit; no try is counted.");
}

/* The learner's answer ans (choice pick, or -1) to checkpoint it. */
static void judge(Learn *l, const LessonItem *it, const char *ans, int pick)
{
    LearnAsk *a = &l->ask;
    int given = 0;
    QueryVerdict v = query_judge(&a->value, ans, it->within, &given);
    if (v == QJ_RIGHT) {
        /* this checkpoint's value: advancing may open the next one,
           whose value must not be shown (P1); a prediction within its
           tolerance is right, and the value is said */
        char right[sizeof a->value.text + 120];
        if (it->within > 0 && !query_match(&a->value, ans))
            snprintf(right, sizeof right, _("%s (yours is within %g%%)"),
                     a->value.text, it->within * 100);
        else
            snprintf(right, sizeof right, "%s", a->value.text);
        set_result(l, a->item, CP_RIGHT);
        a->open = false;
        learn_save(l);
        learn_next(l);
        learn_say(l, ROLE_OK, _("Right: %s."), right);
        return;
    }
    if (v == QJ_COARSE) { /* right as far as it goes: not a wrong try */
        learn_say(l, ROLE_WARN,
                  given == 1 ? _("Right to %d decimal; give %d.")
                             : _("Right to %d decimals; give %d."),
                  given, a->value.decimals);
        return;
    }
    if (v == QJ_OTHER_UNIT) { /* understood, not what is asked: no try */
        learn_say(l, ROLE_WARN, "%s", unit_asked(a->value.kind));
        return;
    }
    if (++a->tries >= LEARN_TRIES) {
        learn_reveal(l);
        return;
    }
    if (v == QJ_ROUNDED) /* the misconception a near factor is */
        learn_say(l, ROLE_WARN, _("Not right (try %d of %d): a factor is not "
                  "rounded; give it to %d decimals or as a fraction (7/8): "
                  "a rounded one is another factor."), a->tries, LEARN_TRIES,
                  a->value.decimals);
    else if (pick >= 0 && it->choice_why[pick]) /* that choice's reason */
        learn_say(l, ROLE_WARN, _("Not right (try %d of %d): %s"), a->tries,
                  LEARN_TRIES, it->choice_why[pick]);
    else if (it->hint)
        learn_say(l, ROLE_WARN, _("Not right (try %d of %d). Hint: %s"),
                  a->tries, LEARN_TRIES, it->hint);
    else
        learn_say(l, ROLE_WARN, _("Not right (try %d of %d). Try again, or "
                  "press Esc and r to see the answer."), a->tries,
                  LEARN_TRIES);
}

void learn_submit(Learn *l)
{
    LearnAsk *a = &l->ask;
    int i = a->item;
    if (!a->len || (i < 0 && !a->scene_box))
        return;
    a->text[a->len] = '\0';
    if (i < 0) { /* the sandbox */
        submit_scene(l);
        return;
    }
    if (typed_alone(a, 's') || typed_alone(a, 'r')) {
        bool sk = typed_alone(a, 's');
        a->len = 0, a->text[0] = '\0';
        if (sk)
            learn_skip(l);
        else
            learn_reveal(l);
        return;
    }
    if (a->scene_box) {
        submit_scene(l);
        return;
    }
    if (!a->valued)
        return;
    /* a checkpoint with choices takes a choice's letter for its text */
    const LessonItem *it = &l->cur.les.items[i];
    int pick = choice_of(it, a->text);
    judge(l, it, pick >= 0 ? it->choices[pick] : a->text, pick);
    a->len = 0;
    a->text[0] = '\0';
}

/* ------------------------------------------------------------- moving */

static bool is_stop(LessonKind k)
{
    return k == LI_PARA || k == LI_BLOCK || k == LI_RUN || k == LI_CHECK;
}

void learn_next(Learn *l)
{
    LearnLesson *c = &l->cur;
    int open = open_check(l);
    if (open >= 0) {
        ask_open(l, open);
        return;
    }
    if (c->pos >= c->les.nitems) {
        /* the end: said once; the next Space opens the next lesson */
        char why[600];
        bool last = c->index + 1 >= (int)l->nlist;
        if (c->end_said && !last) {
            if (learn_open(l, c->index + 1, why, sizeof why))
                learn_say(l, ROLE_ERROR, "%s", why);
            return;
        }
        c->end_said = true;
        learn_save(l);
        if (last)
            learn_say(l, ROLE_OK, "%s", _("The end of the lesson, and of the "
                                          "course. Press o for the list of "
                                          "lessons, q to quit."));
        else
            learn_say(l, ROLE_OK, "%s", _("The end of the lesson. Press "
                      "Space for the next one, o for the list of lessons, q "
                      "to quit."));
        return;
    }
    l->msg[0] = '\0';
    while (c->pos < c->les.nitems) {
        LessonKind k = c->les.items[c->pos++].kind;
        if (is_stop(k))
            break;
    }
    c->scroll = 0;
    learn_replay(l);
    learn_save(l); /* first: what another player answered comes in, and a
                      checkpoint answered there is not asked here */
    if ((open = open_check(l)) >= 0)
        ask_open(l, open);
}

void learn_back(Learn *l)
{
    LearnLesson *c = &l->cur;
    size_t pos = c->pos;
    while (pos > 0) {
        pos--;
        if (!pos || is_stop(c->les.items[pos - 1].kind))
            break;
    }
    if (pos == 0) { /* the first page stays (L9): no empty "0/N" */
        learn_say(l, ROLE_DIM, "%s", _("This is the lesson's first page."));
        return;
    }
    c->pos = pos;
    l->ask.open = false;
    l->msg[0] = '\0';
    c->scroll = 0;
    learn_replay(l);
}

int learn_open(Learn *l, int i, char *why, size_t whylen)
{
    Lesson les;
    if (read_lesson(l, i, l->lang, &les, why, whylen))
        return -1;
    LearnScore sc;
    learn_score(l, (size_t)i, &sc);
    lesson_fini(&l->cur.les);
    l->cur = (LearnLesson){.index = i, .les = les, .scene = -1,
                           .review = sc.done};
    l->ask = (LearnAsk){.item = -1};
    ProgressEntry *e = progress_get(&l->prog, l->list[i].name, false);
    if (e && !sc.done) /* resumed where it stopped; a done one from its
                          start, for review */
        l->cur.pos = progress_index(&les, e->dirs, e->texts);
    l->sel = i;
    l->screen = LS_LESSON;
    l->msg[0] = '\0';
    learn_replay(l);
    if (!l->cur.pos)
        learn_next(l);
    else if (open_check(l) >= 0)
        ask_open(l, open_check(l));
    if (l->cur.review)
        learn_say(l, ROLE_STATUS, _("Review: you have done this lesson (%zu "
                  "of %zu right); reading it again keeps that record."),
                  sc.right, sc.checks);
    if (l->prog_note[0]) { /* opening wiped the status line */
        learn_say(l, l->prog_ok ? ROLE_WARN : ROLE_ERROR, "%s", l->prog_note);
        l->prog_note[0] = '\0';
    }
    return 0;
}

void learn_set_lang(Learn *l, UiLang lang)
{
    if (lang == l->lang)
        return;
    char why[600];
    Lesson les;
    if (l->cur.index >= 0 &&
        read_lesson(l, l->cur.index, lang, &les, why, sizeof why)) {
        learn_say(l, ROLE_ERROR, "%s", why);
        return;
    }
    ui_lang_use(lang);
    l->lang = lang;
    load_titles(l);
    if (l->cur.index < 0)
        return;
    long dirs, texts;
    progress_position(&l->cur.les, l->cur.pos, &dirs, &texts);
    lesson_fini(&l->cur.les);
    l->cur.les = les;
    l->cur.pos = progress_index(&les, dirs, texts);
    l->cur.scene = -1; /* the items moved: find the scene again */
    learn_replay(l);
    if (l->ask.item >= 0)
        l->ask.item = open_check(l);
    if (l->ask.item < 0)
        l->ask.open = false;
    l->msg[0] = '\0';
}
