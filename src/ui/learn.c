/* learn.c - the lesson player's state and keys (learn.h): opening
 * lessons where their progress says, moving through the text, acting on
 * @scene and @step, asking checkpoints against their computed answers,
 * switching language in place, saving progress. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lesson/lint.h"
#include "ui/keys.h"
#include "ui/term.h"
#include "ui/learn.h"
#include "ui/scene.h"
#include "ui/words.h"

_Static_assert(LINT_PICTURE_MAX_RANKS == SCENE_MAX_RANKS,
               "the checker and the player draw the same scenes");

/* ------------------------------------------------------------- status */

__attribute__((format(printf, 3, 4)))
static void say(Learn *l, Role r, const char *fmt, ...)
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
            snprintf(l->titles[i], sizeof l->titles[i], "%s", l->list[i].name);
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
    if (progress_path && !*progress_path)
        return CV_OK; /* no progress: prog_ok stays false */
    char *pwhy = l->prog_note;
    l->prog_ok = progress_load(&l->prog, progress_path, pwhy,
                               sizeof l->prog_note) == CV_OK && l->prog.path[0];
    if (!l->prog_ok)
        snprintf(l->prog_why, sizeof l->prog_why, "%s", pwhy);
    if (pwhy[0])
        say(l, l->prog_ok ? ROLE_WARN : ROLE_ERROR, "%s", pwhy);
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

static void picture_seek(Learn *l, long k)
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
static void replay(Learn *l)
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
    picture_seek(l, step);
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
        say(l, ROLE_ERROR, "%s", why);
    } else if (why[0]) { /* saved, after setting an unreadable file aside */
        say(l, ROLE_WARN, "%s", why);
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
    if (it->ngoals) { /* a goal: the box holds the scene to change */
        a->scene_box = a->valued = true;
        if (!a->len) {
            const char *now = l->cur.sandbox ? l->cur.sandbox_line
                              : l->cur.scene >= 0
                              ? l->cur.les.items[l->cur.scene].text : "";
            snprintf(a->text, sizeof a->text, "%s", now);
            a->len = strlen(a->text);
        }
        say(l, ROLE_STATUS, "%s", _("Change the scene in the box (algorithm, "
                                    "ranks, size, machine) and press Enter: "
                                    "the picture shows it and collviz checks "
                                    "the goal."));
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
        say(l, ROLE_ERROR, _("This checkpoint cannot be checked: %s. Press "
                             "Esc, then s to skip it."), a->why);
    else
        say(l, ROLE_STATUS, "%s", _("Type your answer and press Enter; Esc "
                                    "leaves the prompt."));
}

/* The checkpoint shown last, when it is still open: its item, or -1. */
static int open_check(Learn *l)
{
    size_t p = l->cur.pos;
    if (!p || l->cur.les.items[p - 1].kind != LI_CHECK)
        return -1;
    return result_of(l, (int)p - 1) == CP_OPEN ? (int)p - 1 : -1;
}

static void advance(Learn *l);

static void reveal(Learn *l)
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
        say(l, ROLE_WARN, gi->hint ? _("One scene that reaches it: %s. Why: %s")
                                   : _("One scene that reaches it: %s.%s"),
            gi->nanswers ? gi->answers[0] : "", gi->hint ? gi->hint : "");
        learn_save(l);
        return;
    }
    /* the reason in the lesson's words (its hint), never the query,
       which is the lesson's authoring syntax (P11) */
    const char *hint = l->cur.les.items[i].hint;
    if (hint && *hint)
        say(l, ROLE_WARN, _("The answer is %s. Why: %s"), l->ask.value.text,
            hint);
    else
        say(l, ROLE_WARN, _("The answer is %s, as collviz computes it for %s."),
            l->ask.value.text, l->ask.value.scene);
    learn_save(l);
}

static void skip(Learn *l)
{
    int i = open_check(l);
    if (i < 0)
        return;
    set_result(l, i, CP_SKIPPED);
    l->ask.open = false;
    learn_save(l);
    advance(l);
    say(l, ROLE_DIM, "%s", _("Skipped: the checkpoint is recorded as skipped, "
                             "not done."));
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

/* The scene box's Enter: the typed scene in the picture (the sandbox),
 * and at a goal checkpoint its goals checked on it. */
static void submit_scene(Learn *l)
{
    LearnAsk *a = &l->ask;
    LearnLesson *c = &l->cur;
    char why[512];
    SceneSpec spec;
    if (lint_scene_line(a->text, &spec, why, sizeof why)) {
        say(l, ROLE_WARN, _("That scene cannot be shown: %s"), why);
        return;
    }
    if (!picture_spec(l, &spec)) {
        say(l, ROLE_WARN, "%s", c->pic_note);
        return;
    }
    c->sandbox = true;
    snprintf(c->sandbox_line, sizeof c->sandbox_line, "%s", a->text);
    picture_seek(l, 0);
    if (a->item < 0) { /* the sandbox alone */
        a->open = a->scene_box = false;
        say(l, ROLE_STATUS, "%s", _("The picture shows your scene; Home "
                                    "returns to the lesson's."));
        return;
    }
    const LessonItem *it = &c->les.items[a->item];
    QueryGoal g;
    for (size_t k = 0; k < it->ngoals; k++) {
        if (query_goal(it->goals[k], &spec, a->text, &g, why, sizeof why)) {
            say(l, ROLE_WARN, _("The goal cannot be checked on that scene: "
                                "%s"), why);
            return;
        }
        if (!g.met) {
            say(l, ROLE_WARN, _("Not yet: %s is %s there; the goal is %s "
                                "%g."), g.query, g.text, g.op, g.target);
            return;
        }
    }
    char reached[sizeof g.query + sizeof g.text + 32];
    snprintf(reached, sizeof reached, "%s = %s", g.query, g.text);
    set_result(l, a->item, CP_RIGHT);
    a->open = a->scene_box = false;
    learn_save(l);
    say(l, ROLE_OK, _("Goal reached: %s. Space goes on with the lesson's "
                      "scene."), reached);
}

static void submit(Learn *l)
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
            skip(l);
        else
            reveal(l);
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
    const char *ans = pick >= 0 ? it->choices[pick] : a->text;
    double within = it->within;
    if (query_match_within(&a->value, ans, within)) {
        /* this checkpoint's value: advancing may open the next one,
           whose value must not be shown (P1); a prediction within its
           tolerance is right, and the value is said */
        char right[sizeof a->value.text + 120];
        if (within > 0 && !query_match(&a->value, ans))
            snprintf(right, sizeof right, _("%s (yours is within %g%%)"),
                     a->value.text, within * 100);
        else
            snprintf(right, sizeof right, "%s", a->value.text);
        set_result(l, i, CP_RIGHT);
        a->open = false;
        learn_save(l);
        advance(l);
        say(l, ROLE_OK, _("Right: %s."), right);
        return;
    }
    int given = query_coarse(&a->value, a->text);
    if (given >= 0) { /* right as far as it goes: not a wrong try */
        say(l, ROLE_WARN, given == 1 ? _("Right to %d decimal; give %d.")
                                     : _("Right to %d decimals; give %d."),
            given, a->value.decimals);
        a->len = 0;
        a->text[0] = '\0';
        return;
    }
    if (++a->tries >= LEARN_TRIES) {
        reveal(l);
        return;
    }
    const char *hint = it->hint;
    if (pick >= 0 && it->choice_why[pick]) /* that choice's own reason */
        say(l, ROLE_WARN, _("Not right (try %d of %d): %s"), a->tries,
            LEARN_TRIES, it->choice_why[pick]);
    else if (hint)
        say(l, ROLE_WARN, _("Not right (try %d of %d). Hint: %s"), a->tries,
            LEARN_TRIES, hint);
    else
        say(l, ROLE_WARN, _("Not right (try %d of %d). Try again, or press Esc "
                            "and r to see the answer."), a->tries, LEARN_TRIES);
    a->len = 0;
    a->text[0] = '\0';
}

/* ------------------------------------------------------------- moving */

static bool is_stop(LessonKind k)
{
    return k == LI_PARA || k == LI_BLOCK || k == LI_RUN || k == LI_CHECK;
}

static void advance(Learn *l)
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
                say(l, ROLE_ERROR, "%s", why);
            return;
        }
        c->end_said = true;
        learn_save(l);
        if (last)
            say(l, ROLE_OK, "%s", _("The end of the lesson, and of the "
                                    "course. Press o for the list of "
                                    "lessons, q to quit."));
        else
            say(l, ROLE_OK, "%s", _("The end of the lesson. Press Space for "
                                    "the next one, o for the list of "
                                    "lessons, q to quit."));
        return;
    }
    l->msg[0] = '\0';
    while (c->pos < c->les.nitems) {
        LessonKind k = c->les.items[c->pos++].kind;
        if (is_stop(k))
            break;
    }
    c->scroll = 0;
    replay(l);
    if ((open = open_check(l)) >= 0)
        ask_open(l, open);
    learn_save(l);
}

static void back(Learn *l)
{
    LearnLesson *c = &l->cur;
    while (c->pos > 0) {
        c->pos--;
        if (!c->pos || is_stop(c->les.items[c->pos - 1].kind))
            break;
    }
    l->ask.open = false;
    l->msg[0] = '\0';
    c->scroll = 0;
    replay(l);
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
    replay(l);
    if (!l->cur.pos)
        advance(l);
    else if (open_check(l) >= 0)
        ask_open(l, open_check(l));
    if (l->cur.review)
        say(l, ROLE_STATUS, _("Review: you have done this lesson (%zu of %zu "
                              "right); reading it again keeps that record."),
            sc.right, sc.checks);
    if (l->prog_note[0]) { /* opening wiped the status line */
        say(l, l->prog_ok ? ROLE_WARN : ROLE_ERROR, "%s", l->prog_note);
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
        say(l, ROLE_ERROR, "%s", why);
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
    replay(l);
    if (l->ask.item >= 0)
        l->ask.item = open_check(l);
    if (l->ask.item < 0)
        l->ask.open = false;
    l->msg[0] = '\0';
}

/* ---------------------------------------------------------------- keys */

static bool is_enter(int k)
{
    return k == '\n' || k == '\r' || k == TERM_KEY_ENTER;
}

static void prompt_key(Learn *l, int key)
{
    LearnAsk *a = &l->ask;
    if (is_enter(key)) {
        submit(l);
    } else if (key == 27) {
        a->open = false;
        say(l, ROLE_STATUS, "%s", _("Space or Enter answers, s skips, r shows "
                                    "the answer."));
    } else if (key == 21) { /* ^U: clear the box, as a shell's line */
        a->len = 0;
        a->text[0] = '\0';
    } else if (keys_is_erase(key)) {
        while (a->len && ((unsigned char)a->text[a->len - 1] & 0xC0) == 0x80)
            a->len--;
        if (a->len)
            a->len--;
        a->text[a->len] = '\0';
    } else if (key >= 0x20 && key <= 0xFF && key != 0x7F &&
               a->len + 1 < sizeof a->text) {
        a->text[a->len++] = (char)key;
        a->text[a->len] = '\0';
    }
}

/* The commands of the last @run shown: its item, or -1. */
static int last_run(const Learn *l)
{
    for (size_t i = l->cur.pos; i-- > 0;)
        if (l->cur.les.items[i].kind == LI_RUN)
            return (int)i;
    return -1;
}

/* Run command n (from 1) of the last @run shown. */
static void run_nth(Learn *l, int n)
{
    int r = last_run(l);
    if (r < 0) {
        say(l, ROLE_DIM, "%s", _("No commands to run here yet."));
        return;
    }
    size_t len;
    const char *s = lesson_run_command(&l->cur.les.items[r], n, &len);
    if (!s) {
        say(l, ROLE_DIM, "%s", _("That @run block has fewer commands."));
        return;
    }
    /* the line whole, never cut: learn_run refuses one too long */
    char *cmd = malloc(len + 1);
    if (!cmd) {
        say(l, ROLE_ERROR, "%s", words_error(CV_ERR_NOMEM));
        return;
    }
    memcpy(cmd, s, len);
    cmd[len] = '\0';
    learn_run(l, cmd); /* starts it, or says why not */
    l->msg[0] = '\0';
    free(cmd);
}

/* The commands of the last @run shown (0: none). */
static int run_count(const Learn *l)
{
    int r = last_run(l);
    return r < 0 ? 0 : lesson_run_count(&l->cur.les.items[r]);
}

/* x: run the last @run's command, or, where it has several, ask which
 * (P10: a digit runs one only after x, so an answer typed one paragraph
 * too early runs nothing). */
static void run_key(Learn *l)
{
    int n = run_count(l);
    if (n <= 1) {
        run_nth(l, 1);
        return;
    }
    l->run_pick = true;
    say(l, ROLE_STATUS, _("Which command? Press its number, 1 to %d; Esc "
                          "cancels."), n < 9 ? n : 9);
}

/* e: a box for a scene of the learner's own, filled with the one the
 * picture shows; Enter shows it, Home comes back to the lesson's. */
static void sandbox_open(Learn *l)
{
    LearnAsk *a = &l->ask;
    const char *now = l->cur.sandbox ? l->cur.sandbox_line
                      : l->cur.les.items[l->cur.scene].text;
    *a = (LearnAsk){.item = -1, .open = true, .scene_box = true,
                    .valued = true};
    snprintf(a->text, sizeof a->text, "%s", now);
    a->len = strlen(a->text);
    say(l, ROLE_STATUS, "%s", _("Change the scene (algorithm, ranks, size, "
                                "machine) and press Enter to see it; Esc "
                                "leaves it as it is."));
}

static void lesson_key(Learn *l, int key)
{
    if (l->run_pick) { /* x was pressed: a digit picks, anything else not */
        l->run_pick = false;
        l->msg[0] = '\0';
        if (key >= '1' && key <= '9')
            run_nth(l, key - '0');
        if ((key >= '1' && key <= '9') || key == 27 || key == 'x')
            return;
    }
    size_t nsteps = l->cur.picture ? l->app.scene->sched.nsteps : 0;
    size_t step = l->cur.picture ? l->app.scene->step : 0;
    if (key == ' ' || is_enter(key) || key == TERM_KEY_NPAGE || key == 'n')
        advance(l);
    else if (key == TERM_KEY_PPAGE || key == 'p')
        back(l);
    else if ((key == TERM_KEY_UP || key == 'k') &&
             l->cur.scroll < learn_scroll_max(l))
        l->cur.scroll++;
    else if ((key == TERM_KEY_DOWN || key == 'j') && l->cur.scroll > 0)
        l->cur.scroll--;
    else if (key == TERM_KEY_RIGHT && step < nsteps)
        picture_seek(l, (long)step + 1);
    else if (key == TERM_KEY_LEFT && step > 0)
        picture_seek(l, (long)step - 1);
    else if (key == TERM_KEY_HOME && l->cur.sandbox) /* back to the lesson's */
        replay(l), l->msg[0] = '\0';
    else if (key == TERM_KEY_HOME)
        picture_seek(l, l->cur.step);
    else if (key == 'e' && l->cur.scene >= 0)
        sandbox_open(l);
    else if (key == '>' || key == '.') {
        int most = learn_hshift_max(l);
        l->cur.hshift = l->cur.hshift + LEARN_HSHIFT_STEP < most
                        ? l->cur.hshift + LEARN_HSHIFT_STEP : most;
    } else if ((key == '<' || key == ',') && l->cur.hshift > 0)
        l->cur.hshift = l->cur.hshift > LEARN_HSHIFT_STEP
                        ? l->cur.hshift - LEARN_HSHIFT_STEP : 0;
    else if (key == 's')
        skip(l);
    else if (key == 'r')
        reveal(l);
    else if (key == 'x')
        run_key(l);
    else if (key >= '1' && key <= '9')
        say(l, ROLE_DIM, "%s", _("Press x first, then the command's number."));
    else if (key == 'o' || key == 27)
        learn_save(l), l->screen = LS_LIST, l->msg[0] = '\0';
}

static void list_key(Learn *l, int key)
{
    char why[600];
    if (key == TERM_KEY_UP && l->sel > 0)
        l->sel--;
    else if (key == TERM_KEY_DOWN && l->sel + 1 < (int)l->nlist)
        l->sel++;
    else if ((key == ' ' || is_enter(key) || key == TERM_KEY_RIGHT) &&
             learn_open(l, l->sel, why, sizeof why))
        say(l, ROLE_ERROR, "%s", why);
    else if (key == 27) /* Esc cancels, as in the TUI: it never quits, so
                           Esc Esc from a lesson stays in the player */
        say(l, ROLE_DIM, "%s", _("q quits the player; Enter opens a lesson."));
}

/* The first line after line `from` of the pager holding what is to be
 * found (ASCII letters in either case), or -1. */
static int pager_search(const Learn *l, int from)
{
    const char *s = l->pager ? l->pager : "", *pat = l->pager_find;
    size_t m = strlen(pat);
    for (int line = 0; *s && m; line++) {
        size_t n = strcspn(s, "\n");
        for (size_t i = 0; line > from && i + m <= n; i++)
            if (!strncasecmp(s + i, pat, m))
                return line;
        s += n + (s[n] == '\n');
    }
    return -1;
}

/* Go to the next line holding what is to be found, or say there is none. */
static void pager_next(Learn *l)
{
    int at = pager_search(l, l->pager_top);
    if (at < 0)
        at = pager_search(l, -1); /* from the top again */
    if (at < 0) {
        say(l, ROLE_WARN, _("Not found: %s"), l->pager_find);
        return;
    }
    int most = learn_pager_max(l);
    l->pager_top = at < most ? at : most;
    l->msg[0] = '\0';
}

/* The keys while / takes what to find: Enter finds, Esc leaves. */
static void find_key(Learn *l, int key)
{
    size_t n = strlen(l->pager_find);
    if (is_enter(key)) {
        l->pager_finding = false;
        l->job.follow = false;
        pager_next(l);
    } else if (key == 27) {
        l->pager_finding = false;
    } else if (keys_is_erase(key)) {
        if (n)
            l->pager_find[n - 1] = '\0';
    } else if (key >= 0x20 && key < 0x7F && n + 1 < sizeof l->pager_find) {
        l->pager_find[n] = (char)key;
        l->pager_find[n + 1] = '\0';
    }
}

/* The pager: lines and pages up and down, never past the end; sideways
 * by LEARN_HSHIFT_STEP columns; Home and End; / finds and n finds again;
 * q, Esc or Enter stop a command that runs (its output stays), and then
 * go back. */
static void pager_key(Learn *l, int key)
{
    if (l->pager_finding) {
        find_key(l, key);
        return;
    }
    if (key == '/') {
        l->pager_finding = true;
        l->pager_find[0] = '\0';
        return;
    }
    if (key == 'n' && l->pager_find[0]) {
        l->job.follow = false;
        pager_next(l);
        return;
    }
    int page = l->h - 3 > 1 ? l->h - 3 : 1, most = learn_pager_max(l);
    int top = l->pager_top, wide = learn_pager_wide(l);
    if (key == TERM_KEY_UP || key == 'k')
        top--;
    else if (key == TERM_KEY_DOWN || key == 'j')
        top++;
    else if (key == TERM_KEY_NPAGE || key == ' ')
        top += page;
    else if (key == TERM_KEY_PPAGE)
        top -= page;
    else if (key == TERM_KEY_HOME || key == 'g')
        top = 0, l->pager_left = 0;
    else if (key == TERM_KEY_END || key == 'G')
        top = most;
    else if (key == TERM_KEY_RIGHT || key == '>' || key == '.')
        l->pager_left = l->pager_left + LEARN_HSHIFT_STEP < wide
                        ? l->pager_left + LEARN_HSHIFT_STEP : wide;
    else if (key == TERM_KEY_LEFT || key == '<' || key == ',')
        l->pager_left = l->pager_left > LEARN_HSHIFT_STEP
                        ? l->pager_left - LEARN_HSHIFT_STEP : 0;
    else if (key == 27 || is_enter(key) || key == 'q') {
        if (learn_running(l))
            learn_run_stop(l);
        else
            l->screen = LS_LESSON;
        return;
    }
    l->pager_top = top < 0 ? 0 : top > most ? most : top;
    /* the end followed again once it is in view, left when scrolled up */
    l->job.follow = learn_running(l) && l->pager_top == most;
}

void learn_key(Learn *l, int key)
{
    if (l->screen == LS_PAGER) {
        pager_key(l, key);
        return;
    }
    if (l->screen == LS_LESSON && l->ask.open) {
        prompt_key(l, key);
        return;
    }
    if (key == 'q') {
        learn_save(l);
        l->quit = true;
    } else if (key == 'l') {
        learn_set_lang(l, l->lang == UI_LANG_EN ? UI_LANG_ZH : UI_LANG_EN);
    } else if (l->screen == LS_LIST) {
        list_key(l, key);
    } else {
        lesson_key(l, key);
    }
}
