/* lesson.c - the lesson file parser (lesson.h). One pass over the lines:
 * text lines gather into paragraphs and indented blocks, a line that
 * starts with '@' is a directive, and the lines a checkpoint owns (@query,
 * @answer, @hint) attach to the @check right above them. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/sanitize.h"
#include "lesson/lesson.h"

/* ------------------------------------------------------------ problems */

CvError lesson_diag(LessonDiags *d, int line, const char *fmt, ...)
{
    if (!d)
        return CV_ERR_ARG;
    LessonDiag *nd = grow_array(d->d, &d->cap, d->n + 1, sizeof *nd, 8);
    if (!nd)
        return CV_ERR_ARG;
    d->d = nd;
    LessonDiag *x = &d->d[d->n++];
    x->line = line;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(x->msg, sizeof x->msg, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof x->msg) /* cut: at a whole character, and said */
        snprintf(x->msg + utf8_prefix(x->msg, (int)sizeof x->msg - 5),
                 5, "...");
    return CV_ERR_ARG;
}

void lesson_diags_fini(LessonDiags *d)
{
    free(d->d);
    *d = (LessonDiags){0};
}

const char *lesson_kind_name(LessonKind k)
{
    static const char *const names[LI_COUNT] = {
        [LI_PARA] = "text", [LI_BLOCK] = "text", [LI_SCENE] = "@scene",
        [LI_STEP] = "@step", [LI_RUN] = "@run", [LI_CHECK] = "@check",
    };
    return k < LI_COUNT ? names[k] : "?";
}

/* ---------------------------------------------------------------- UTF-8 */

int lesson_utf8_ok(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        uint32_t c;
        size_t l = sanitize_utf8(u + i, n - i, &c);
        if (!l || (c != '\t' && sanitize_is_control(c)))
            return 0;
        i += l;
    }
    return 1;
}

/* ---------------------------------------------------------------- items */

/* The parser's state beside the lesson it fills. */
typedef struct {
    Lesson *l;          /* the lesson */
    LessonDiags *d;     /* problems (may be NULL) */
    int bad;            /* a problem was found */
    int nomem;          /* memory ran out */
    int scene;          /* the @scene in effect, or -1 */
    int open_check;     /* the @check its lines attach to, or -1 */
    int open_text;      /* the paragraph or block being gathered, or -1 */
    int in_run;         /* the @run whose commands follow, or -1 */
    int last_run;       /* the last @run item so far, or -1 */
    int output;         /* K of an @output [K] waiting for its block, or 0 */
    int output_line;    /* its line */
    int grown;          /* the item append_line last grew, or -1 */
    size_t glen;        /* its text's length */
    size_t gcap;        /* the bytes allocated for its text */
} Parser;

static void problem(Parser *p, int line, const char *fmt, const char *arg)
{
    p->bad = 1;
    lesson_diag(p->d, line, fmt, arg);
}

static char *dup_n(Parser *p, const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (!c) {
        p->nomem = 1;
        return NULL;
    }
    memcpy(c, s, n);
    c[n] = '\0';
    return c;
}

static LessonItem *add_item(Parser *p, LessonKind k, int line, const char *text,
                            size_t n)
{
    Lesson *l = p->l;
    LessonItem *ni = grow_array(l->items, &l->cap, l->nitems + 1,
                                sizeof *ni, 32);
    if (!ni) {
        p->nomem = 1;
        return NULL;
    }
    l->items = ni;
    char *t = dup_n(p, text, n);
    if (!t)
        return NULL;
    LessonItem *it = &l->items[l->nitems++];
    *it = (LessonItem){.kind = k, .line = line, .text = t, .scene = p->scene,
                       .check = -1, .quotes_run = -1};
    return it;
}

/* Append "\n" and n bytes of s to item i's text. */
static void append_line(Parser *p, int i, const char *s, size_t n)
{
    LessonItem *it = &p->l->items[i];
    if (p->grown != i) { /* the length is kept, so a paragraph of many
                            lines is read in time linear in its size */
        p->grown = i;
        p->glen = strlen(it->text);
        p->gcap = p->glen + 1;
    }
    size_t old = p->glen;
    char *t = grow_array(it->text, &p->gcap, old + n + 2, 1, 0);
    if (!t) {
        p->nomem = 1;
        return;
    }
    it->text = t;
    t[old] = '\n';
    memcpy(t + old + 1, s, n);
    t[old + 1 + n] = '\0';
    p->glen = old + 1 + n;
}

/* ------------------------------------------------------- a @run's lines */

int lesson_run_count(const LessonItem *it)
{
    int n = *it->text != '\0';
    for (const char *c = it->text; *c; c++)
        n += *c == '\n';
    return n;
}

const char *lesson_run_command(const LessonItem *it, int k, size_t *len)
{
    const char *s = it->text;
    for (int i = 1; *s; i++) {
        size_t n = strcspn(s, "\n");
        if (i == k) {
            *len = n;
            return s;
        }
        s += n + (s[n] == '\n');
    }
    return NULL;
}

/* ----------------------------------------------------------- directives */

/* An @output line whose block did not follow at once: said at line. */
static void output_unmet(Parser *p)
{
    if (!p->output)
        return;
    problem(p, p->output_line, "@output needs the quoted lines right below "
            "it, indented, without a blank line between%s", "");
    p->output = 0;
}

/* @output [K]: the block right below quotes what the K-th command (1 when
 * not given) of the last @run above prints. */
static void output_line(Parser *p, int line, const char *a, size_t an)
{
    long k = 1;
    if (an) {
        char buf[8];
        k = 0;
        if (an < sizeof buf) {
            memcpy(buf, a, an);
            buf[an] = '\0';
            char *end;
            k = buf[0] >= '1' && buf[0] <= '9' ? strtol(buf, &end, 10) : 0;
            if (k && *end)
                k = 0;
        }
    }
    if (p->last_run < 0) {
        problem(p, line, "@output quotes what a command of the @run above "
                "it prints, and there is no @run above it%s", "");
        return;
    }
    long n = lesson_run_count(&p->l->items[p->last_run]);
    if (k < 1 || k > n) {
        char why[160];
        snprintf(why, sizeof why, "%ld command%s, at line %d", n,
                 n == 1 ? "" : "s", p->l->items[p->last_run].line);
        problem(p, line, "@output takes the number of a command of the "
                "@run above it, from 1 (the first, when none is given): "
                "that @run has %s", why);
        return;
    }
    p->output = (int)k, p->output_line = line;
}

/* The words after the directive's name, blanks trimmed. */
static const char *dir_arg(const char *s, size_t n, size_t *alen)
{
    size_t i = 1;
    while (i < n && s[i] != ' ' && s[i] != '\t')
        i++;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    size_t e = n;
    while (e > i && (s[e - 1] == ' ' || s[e - 1] == '\t'))
        e--;
    *alen = e - i;
    return s + i;
}

static int is_word(const char *s, size_t n, const char *w)
{
    size_t wl = strlen(w);
    return n >= wl && !memcmp(s, w, wl) &&
           (n == wl || s[wl] == ' ' || s[wl] == '\t');
}

/* The lines of the open checkpoint (@query, @answer, @hint, @within,
 * @choice, @goal): `directive` has checked that a checkpoint is open and
 * that the line has a value; `it` is the checkpoint. */

/* @answer VALUE: one more accepted answer. */
static void check_answer(Parser *p, LessonItem *it, int line, const char *a,
                         size_t an)
{
    /* room doubles when the count reaches a power of two, so that many
       answers load in linear time */
    size_t n = it->nanswers, cap = n ? 2 * n : 1;
    bool grow = !(n & (n - 1));
    char **na = grow ? realloc(it->answers, cap * sizeof *na) : it->answers;
    if (na)
        it->answers = na;
    int *nl = na && grow ? realloc(it->answer_lines, cap * sizeof *nl)
                         : na ? it->answer_lines : NULL;
    if (nl)
        it->answer_lines = nl;
    char *v = nl ? dup_n(p, a, an) : NULL;
    if (!v) {
        p->nomem = 1;
        return;
    }
    it->answers[it->nanswers] = v;
    it->answer_lines[it->nanswers++] = line;
}

/* @goal QUERY OP NUMBER: one of at most 4. */
static void check_goal(Parser *p, LessonItem *it, int line, const char *a,
                       size_t an)
{
    size_t n = it->ngoals;
    if (n == 4) {
        problem(p, line, "a checkpoint has at most 4 goals%s", "");
        return;
    }
    char **g = realloc(it->goals, (n + 1) * sizeof *g);
    if (g)
        it->goals = g;
    int *gl = g ? realloc(it->goal_lines, (n + 1) * sizeof *gl) : NULL;
    if (!gl) {
        p->nomem = 1;
        return;
    }
    it->goal_lines = gl;
    if (!(it->goals[n] = dup_n(p, a, an)))
        return;
    it->goal_lines[n] = line;
    it->ngoals = n + 1;
}

/* Whether NAME (an bytes) may name a file of the lessons' files/ folder:
 * letters, digits, '-', '_' and '.', not first. */
bool lesson_file_name_ok(const char *a, size_t an)
{
    if (!an || an > 64 || a[0] == '.')
        return false;
    for (size_t i = 0; i < an; i++)
        if (!isalnum((unsigned char)a[i]) && !strchr("-_.", a[i]))
            return false;
    return true;
}

/* "TEXT | WHY": the length of TEXT (blanks before the bar cut) in *tn and
 * WHY (NULL when there is none) with its length in *wn. */
static const char *choice_split(const char *a, size_t an, size_t *tn,
                                size_t *wn)
{
    const char *bar = NULL;
    for (size_t i = 0; i < an && !bar; i++)
        if (a[i] == '|' && (i == 0 || a[i - 1] == ' ') &&
            (i + 1 == an || a[i + 1] == ' '))
            bar = a + i;
    *tn = bar ? (size_t)(bar - a) : an;
    while (*tn && a[*tn - 1] == ' ')
        (*tn)--;
    const char *why = bar ? bar + 1 : NULL;
    *wn = why ? an - (size_t)(why - a) : 0;
    while (why && *wn && *why == ' ')
        why++, (*wn)--;
    return why;
}

/* @choice TEXT [| WHY]: one of at most LESSON_MAX_CHOICES, and what to
 * say when it is taken wrongly. */
static void check_choice(Parser *p, LessonItem *it, int line, const char *a,
                         size_t an)
{
    if (it->nchoices == LESSON_MAX_CHOICES) {
        problem(p, line, "a checkpoint offers at most 9 choices, a to i%s", "");
        return;
    }
    size_t n = it->nchoices;
    char **c = realloc(it->choices, (n + 1) * sizeof *c);
    if (c)
        it->choices = c;
    char **w = c ? realloc(it->choice_why, (n + 1) * sizeof *w) : NULL;
    if (w)
        it->choice_why = w;
    int *cl = w ? realloc(it->choice_lines, (n + 1) * sizeof *cl) : NULL;
    if (!cl) {
        p->nomem = 1;
        return;
    }
    it->choice_lines = cl;
    size_t tn, wn;
    const char *why = choice_split(a, an, &tn, &wn);
    if (!tn) {
        problem(p, line, "@choice needs its text before ' | '%s", "");
        return;
    }
    it->choices[n] = dup_n(p, a, tn);
    it->choice_why[n] = why && wn ? dup_n(p, why, wn) : NULL;
    it->choice_lines[n] = line;
    it->nchoices = n + 1;
}

/* @within N%: the checkpoint's one tolerance. */
static void check_within(Parser *p, LessonItem *it, int line, const char *a,
                         size_t an)
{
    char buf[32], *end;
    snprintf(buf, sizeof buf, "%.*s", (int)(an < 31 ? an : 31), a);
    double v = strtod(buf, &end);
    if (it->within_line) {
        problem(p, line, "a checkpoint has one @within; this is its "
                "second%s", "");
    } else if (an > 31 || end == buf || *end != '%' || end[1] ||
               !(v > 0 && v <= 100)) {
        problem(p, line, "@within takes a tolerance in percent, more than 0 "
                "and at most 100, as in '@within 10%%'%s", "");
    } else {
        it->within = v / 100, it->within_line = line;
    }
}

/* A checkpoint's one TEXT of a kind (@query, @hint) into *slot. */
static bool check_once(Parser *p, char **slot, const char *name, int line,
                       const char *a, size_t an)
{
    if (*slot) {
        problem(p, line, "a checkpoint has one %s; this is its second", name);
        return false;
    }
    *slot = dup_n(p, a, an);
    return true;
}

static void check_query(Parser *p, LessonItem *it, int line, const char *a,
                        size_t an)
{
    if (check_once(p, &it->query, "@query", line, a, an))
        it->query_line = line;
}

static void check_hint(Parser *p, LessonItem *it, int line, const char *a,
                       size_t an)
{
    if (check_once(p, &it->hint, "@hint", line, a, an))
        it->hint_line = line;
}

/* @start NAME: the file a learner's schedule starts from. */
static void check_start(Parser *p, LessonItem *it, int line, const char *a,
                        size_t an)
{
    if (!lesson_file_name_ok(a, an)) {
        problem(p, line, "@start names a file of the lessons' files/ "
                "folder: letters, digits, '-', '_' and '.' (not first)%s",
                "");
        return;
    }
    if (check_once(p, &it->start, "@start", line, a, an))
        it->start_line = line;
}

static void step_line(Parser *p, int line, const char *a, size_t an)
{
    char buf[24];
    long v = -1;
    if (an > 0 && an < sizeof buf) {
        memcpy(buf, a, an);
        buf[an] = '\0';
        char *end;
        v = buf[0] >= '0' && buf[0] <= '9' ? strtol(buf, &end, 10) : -1;
        if (v >= 0 && *end)
            v = -1;
    }
    if (v < 0 || v > 1000000) {
        problem(p, line, "@step needs a whole number from 0 (the initial "
                "state) to 1000000%s", "");
        return;
    }
    LessonItem *it = add_item(p, LI_STEP, line, "", 0);
    if (it)
        it->step = v;
}

static void scene_line(Parser *p, int line, const char *a, size_t an)
{
    if (!an)
        problem(p, line, "@scene needs a collective and trace's options, as "
                "in '@scene allreduce -a ring -p 4 -s 64'%s", "");
    else if (add_item(p, LI_SCENE, line, a, an))
        p->scene = (int)p->l->nitems - 1;
}

static void run_line(Parser *p, int line, const char *a, size_t an)
{
    (void)a;
    if (an)
        problem(p, line, "@run takes nothing on its line: its commands are "
                "the indented lines below it%s", "");
    else if (add_item(p, LI_RUN, line, "", 0))
        p->in_run = p->last_run = (int)p->l->nitems - 1;
}

static void check_open(Parser *p, int line, const char *a, size_t an)
{
    LessonItem *it = an ? add_item(p, LI_CHECK, line, a, an) : NULL;
    if (!an)
        problem(p, line, "@check needs its question on the same line%s", "");
    if (it) {
        it->check = (int)p->l->nchecks++;
        p->open_check = (int)p->l->nitems - 1;
    }
}

/* The directives: each row is its name, its syntax and one line of help
 * (LessonDirective: lessons/README.md's table, which test_lesson compares
 * with lesson_directive_table), and its parser: `line` for a directive of
 * its own, `check` for a line of the open checkpoint. The order is the
 * order of the unknown-directive sentence and of the table. */
typedef struct {
    LessonDirective d;
    void (*line)(Parser *p, int line, const char *a, size_t an);
    void (*check)(Parser *p, LessonItem *it, int line, const char *a,
                  size_t an);
} DirectiveRow;

static const DirectiveRow directives[] = {
    {{"scene", "@scene COLL -a ALGO -p RANKS -s SIZE [-r ROOT]",
      "Set up a collective with `collviz trace`'s options, until the next "
      "`@scene`."}, scene_line, NULL},
    {{"step", "@step K",
      "Show the scene's state after K steps (0: the initial state)."},
     step_line, NULL},
    {{"run", "@run",
      "Commands to try: the indented lines right below it, one a line."},
     run_line, NULL},
    {{"output", "@output [K]",
      "Quote, in the indented lines right below it, what the K-th command "
      "of the `@run` above prints."}, output_line, NULL},
    {{"check", "@check QUESTION",
      "A checkpoint: the learner answers before going on."},
     check_open, NULL},
    {{"query", "@query QUERY",
      "Below `@check`: what collviz computes to check the answer."},
     NULL, check_query},
    {{"answer", "@answer VALUE",
      "Below `@check`: the answer for readers of the text; several give "
      "alternatives."}, NULL, check_answer},
    {{"hint", "@hint TEXT",
      "Below `@check`, optional: shown after a wrong answer."},
     NULL, check_hint},
    {{"within", "@within N%",
      "Below `@check`: a number within N percent of the value is right."},
     NULL, check_within},
    {{"choice", "@choice TEXT",
      "Below `@check`: one of two to nine choices (after a bar, what to say "
      "when it is taken wrongly)."}, NULL, check_choice},
    {{"goal", "@goal QUERY OP NUMBER",
      "Below `@check`, in place of `@query`: a goal the learner's scene "
      "must reach (at most four)."}, NULL, check_goal},
    {{"start", "@start FILE",
      "Below a goal `@check`: the learner writes a schedule, starting from "
      "a copy of lessons/files/FILE, and the goals are checked on it."},
     NULL, check_start},
};

#define NDIRECTIVES (sizeof directives / sizeof *directives)

size_t lesson_directive_count(void) { return NDIRECTIVES; }

const LessonDirective *lesson_directive_at(size_t i)
{
    return i < NDIRECTIVES ? &directives[i].d : NULL;
}

size_t lesson_directive_table(char *buf, size_t n)
{
    size_t len = 0;
    if (n)
        buf[0] = '\0';
    for (size_t i = 0; i <= NDIRECTIVES; i++) {
        const char *syn = i ? directives[i - 1].d.syntax : NULL;
        int k = i ? snprintf(buf + (len < n ? len : n), len < n ? n - len : 0,
                             "| `%s` | %s |\n", syn, directives[i - 1].d.help)
                  : snprintf(buf, n, "| directive | what it does |\n"
                             "| --- | --- |\n");
        len += k > 0 ? (size_t)k : 0;
    }
    return len;
}

/* The unknown directive's sentence, listing the known ones. */
static void directive_unknown(Parser *p, int line, const char *w, size_t wn)
{
    size_t k = 0;
    while (k < wn && w[k] != ' ' && w[k] != '\t')
        k++;
    char names[160] = "";
    size_t len = 0;
    for (size_t i = 0; i < NDIRECTIVES && len < sizeof names; i++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s@%s",
                                i ? ", " : "", directives[i].d.name);
    p->bad = 1;
    lesson_diag(p->d, line, "unknown directive '@%.*s'; directives: %s",
                (int)(k < 30 ? k : 30), w, names);
}

/* A checkpoint's line: there must be an open checkpoint and a value. */
static void directive_check(Parser *p, const DirectiveRow *row, int line,
                            const char *a, size_t an)
{
    char name[16];
    snprintf(name, sizeof name, "@%s", row->d.name);
    if (p->open_check < 0)
        problem(p, line, "%s belongs right below a @check (or its other "
                "lines)", name);
    else if (!an)
        problem(p, line, "%s needs a value after it", name);
    else
        row->check(p, &p->l->items[p->open_check], line, a, an);
}

static void directive(Parser *p, int line, const char *s, size_t n)
{
    size_t an;
    const char *a = dir_arg(s, n, &an);
    const char *w = s + 1;
    size_t wn = n - 1;
    p->open_text = -1;
    p->in_run = -1;
    output_unmet(p);
    for (size_t i = 0; i < NDIRECTIVES; i++) {
        const DirectiveRow *row = &directives[i];
        if (!is_word(w, wn, row->d.name))
            continue;
        if (row->check) {
            directive_check(p, row, line, a, an);
            return;
        }
        p->open_check = -1;
        row->line(p, line, a, an);
        return;
    }
    p->open_check = -1;
    directive_unknown(p, line, w, wn);
}

/* ---------------------------------------------------------------- lines */

static int indented(const char *s, size_t n)
{
    return (n >= 4 && !memcmp(s, "    ", 4)) || (n >= 1 && s[0] == '\t');
}

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t')
            return 0;
    return 1;
}

/* s (n bytes) with each tab as blanks: to the next multiple of 8
 * characters where stops is set, else one; malloc'd, its length in *out
 * (NULL without memory: the caller keeps s). */
static char *untab(const char *s, size_t n, bool stops, size_t *out)
{
    size_t tabs = 0;
    for (size_t i = 0; i < n; i++)
        tabs += s[i] == '\t';
    char *t = malloc(n + 7 * tabs + 1);
    if (!t)
        return NULL;
    size_t k = 0, col = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\t') {
            t[k++] = s[i];
            col += ((unsigned char)s[i] & 0xC0) != 0x80; /* characters */
            continue;
        }
        size_t to = stops ? (col / 8 + 1) * 8 : col + 1;
        while (col < to)
            t[k++] = ' ', col++;
    }
    t[k] = '\0';
    *out = k;
    return t;
}

static void text_line(Parser *p, int line, const char *s, size_t n)
{
    if (blank(s, n)) {
        output_unmet(p);
        p->open_text = -1;
        p->in_run = -1;
        p->open_check = -1;
        return;
    }
    int ind = indented(s, n);
    if (ind && p->in_run >= 0) {
        while (n && (*s == ' ' || *s == '\t'))
            s++, n--;
        LessonItem *r = &p->l->items[p->in_run];
        if (r->text[0]) {
            append_line(p, p->in_run, s, n);
        } else {
            char *t = dup_n(p, s, n);
            if (t)
                free(r->text), r->text = t, p->grown = -1;
        }
        return;
    }
    p->in_run = -1;
    p->open_check = -1;
    LessonKind k = ind ? LI_BLOCK : LI_PARA;
    if (k == LI_PARA)
        output_unmet(p);
    if (ind) {
        size_t cut = s[0] == '\t' ? 1 : 4;
        s += cut, n -= cut;
    }
    /* tabs inside the text: to the next multiple of 8 characters in a
       block (as a terminal shows them), one blank in a paragraph */
    char *un = memchr(s, '\t', n) ? untab(s, n, k == LI_BLOCK, &n) : NULL;
    if (un)
        s = un;
    LessonItem *it = NULL;
    if (p->open_text >= 0 && p->l->items[p->open_text].kind == k)
        append_line(p, p->open_text, s, n);
    else if ((it = add_item(p, k, line, s, n)))
        p->open_text = (int)p->l->nitems - 1;
    if (it && p->output) {
        it->quotes = p->output, it->quotes_run = p->last_run;
        it->quotes_line = p->output_line;
        p->output = 0;
    }
    free(un);
}

static void one_line(Parser *p, int line, const char *s, size_t n)
{
    if (n && s[n - 1] == '\r')
        n--;
    if (!lesson_utf8_ok(s, n)) {
        problem(p, line, "the line is not valid UTF-8 text, or holds a "
                "control character (C0, DEL, C1 or a bidirectional "
                "control)%s", "");
        return;
    }
    if (line == 1) {
        if (blank(s, n) || s[0] == '@')
            problem(p, line, "the first line must be the lesson's title%s", "");
        else if (!(p->l->title = dup_n(p, s, n)))
            return;
        return;
    }
    if (n && s[0] == '@')
        directive(p, line, s, n);
    else
        text_line(p, line, s, n);
}

/* Checkpoints without a query, runs without commands. */
static void finish(Parser *p)
{
    output_unmet(p);
    for (size_t i = 0; i < p->l->nitems; i++) {
        LessonItem *it = &p->l->items[i];
        if (it->kind == LI_CHECK && !it->query && !it->ngoals)
            problem(p, it->line, "the checkpoint has no @query: its answer "
                    "must be computed by collviz%s", "");
        else if (it->kind == LI_CHECK && it->query && it->ngoals)
            problem(p, it->line, "the checkpoint has both @query and @goal: "
                    "a goal checkpoint is answered by a scene, a question by "
                    "its query%s", "");
        if (it->kind == LI_CHECK && it->start && !it->ngoals)
            problem(p, it->start_line, "@start belongs to a goal checkpoint: "
                    "its @goal lines are checked on the learner's file%s", "");
        if (it->kind == LI_RUN && !it->text[0])
            problem(p, it->line, "@run has no indented command below it%s", "");
    }
}

CvError lesson_parse(const char *buf, size_t len, Lesson *out,
                     LessonDiags *diags)
{
    *out = (Lesson){0};
    Parser p = {.l = out, .d = diags, .scene = -1, .open_check = -1,
                .open_text = -1, .in_run = -1, .last_run = -1,
                .grown = -1};
    if (len > LESSON_MAX_BYTES) {
        lesson_diag(diags, 0, "the file is larger than %u bytes",
                    LESSON_MAX_BYTES);
        return CV_ERR_ARG;
    }
    int line = 0;
    for (size_t i = 0; i < len && !p.nomem;) {
        const char *nl = memchr(buf + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - buf) : len;
        one_line(&p, ++line, buf + i, e - i);
        i = e + 1;
    }
    if (!line)
        problem(&p, 0, "the file is empty: its first line must be the "
                "lesson's title%s", "");
    if (p.nomem)
        return CV_ERR_NOMEM;
    finish(&p);
    return p.bad ? CV_ERR_ARG : CV_OK;
}

void lesson_fini(Lesson *l)
{
    for (size_t i = 0; i < l->nitems; i++) {
        LessonItem *it = &l->items[i];
        free(it->text);
        free(it->query);
        free(it->hint);
        for (size_t k = 0; k < it->nanswers; k++)
            free(it->answers[k]);
        free(it->answers);
        free(it->answer_lines);
        for (size_t k = 0; k < it->nchoices; k++)
            free(it->choices[k]), free(it->choice_why[k]);
        free(it->choices);
        free(it->choice_why);
        free(it->choice_lines);
        for (size_t k = 0; k < it->ngoals; k++)
            free(it->goals[k]);
        free(it->goals);
        free(it->goal_lines);
        free(it->start);
    }
    free(l->items);
    free(l->title);
    *l = (Lesson){0};
}

/* Whether text holds word w as a whole: neither letters, digits, '.' nor
 * ',' right before or after it (so "48" is not in "480", "0.48" or
 * "1,048"). */
bool lesson_holds_word(const char *text, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = text; n && (p = strstr(p, w)); p++) {
        unsigned char b = p > text ? (unsigned char)p[-1] : ' ';
        unsigned char a = (unsigned char)p[n];
        bool left = !(isalnum(b) || b == '.' || b == ',' || b == '_');
        bool right = !(isalnum(a) || a == '_' ||
                       ((a == '.' || a == ',') && isdigit((unsigned char)p[n + 1])));
        if (left && right)
            return true;
    }
    return false;
}
