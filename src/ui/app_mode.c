/* app_mode.c - the App's modes: help, the menus and text entry. Each says
 * how keys become requests while it is open, which requests it takes and
 * what they do, and which panel draws it (its view: view_help.c,
 * view_menu.c, view_prompt.c). app_key() and app_apply() ask the open mode
 * first; the table at the end is the one place that lists them. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "ui/app.h"
#include "ui/i18n.h"
#include "ui/keys.h"
#include "ui/scene.h"

/* Keys as the key table binds them. */
static Request plain_key(const App *app, int key)
{
    return (Request){.act = keys_action(key)};
}

/* ------------------------------------------------------------ help */

/* Up and Down scroll; any other key closes help, q too (as the title
 * says, and as a pager's q does; Ctrl-C still ends collviz). */
static bool help_apply(App *app, const Request *r)
{
    if (r->act == ACT_SCROLL_UP || r->act == ACT_SCROLL_DOWN) {
        int top = app->mode.help_top + (r->act == ACT_SCROLL_UP ? -1 : 1);
        app->mode.help_top = top < 0 ? 0 : top > ACT_COUNT ? ACT_COUNT : top;
    } else {
        app_mode_set(app, MODE_NONE);
    }
    return true;
}

/* ------------------------------------------------------------ text */

/* The prompt of the size entry. */
#define SIZE_PROMPT N_("Size in bytes, e.g. 64K or 3M (Enter sets it, Esc " \
                    "cancels): ")

/* Start typing a size, with its first character ch (0: none). */
static void open_size_entry(App *app, int ch)
{
    char first[2] = {(char)ch, '\0'};
    text_open(&app->mode.text, _(SIZE_PROMPT), ch ? first : NULL);
    app->mode.text_for = TEXT_FOR_SIZE;
    app_mode_set(app, MODE_TEXT);
}

/* The parser's sentence on the status line, capitalised and ended. */
static void say_cli_error(App *app, const CliErr *e)
{
    char s[sizeof e->msg];
    size_t n = strlen(e->msg);
    snprintf(s, sizeof s, "%s", e->msg);
    if (s[0] >= 'a' && s[0] <= 'z')
        s[0] = (char)(s[0] - 'a' + 'A');
    bool ended = n && strchr(".!?", s[n - 1]);
    app_message(app, true, "%s%s", s, ended ? "" : ".");
}

/* The typed size, parsed and checked as -s is (whole elements and blocks
 * of the scene's collective); the scene keeps its step. */
static void set_size(App *app, const char *text)
{
    SceneSetup set;
    CliErr e = {{0}};
    unsigned long long bytes;
    size_t count;
    scene_setup(app->scene, &set);
    if (cli_parse_size("size", text, &bytes, &e) ||
        cli_count_for_size(&set.call, bytes, &count, &e)) {
        say_cli_error(app, &e);
        return;
    }
    set.bytes = bytes;
    app_remake(app, &set, true);
}

/* Printable characters are typed, Backspace erases; other keys as bound
 * (Enter, Escape). */
static Request text_key(const App *app, int key)
{
    if (key >= 0x20 && key < 0x7f)
        return (Request){.act = ACT_TYPE, .a = key};
    if (keys_is_erase(key))
        return (Request){.act = ACT_ERASE};
    return plain_key(app, key);
}

/* What a mode does with a request: true when the mode took it. */
typedef bool (*ModeAct)(App *app, const Request *r);

static bool text_type_act(App *app, const Request *r)
{
    text_type(&app->mode.text, r->a);
    return true;
}

static bool text_erase_act(App *app, const Request *r)
{
    text_erase(&app->mode.text);
    return true;
}

static bool close_mode(App *app, const Request *r)
{
    app_mode_set(app, MODE_NONE);
    return true;
}

static bool text_enter(App *app, const Request *r)
{
    app_mode_set(app, MODE_NONE);
    switch (app->mode.text_for) {
    case TEXT_FOR_SIZE: set_size(app, app->mode.text.text); break;
    case TEXT_FOR_SVG:
    case TEXT_FOR_CAST:
        app->status.export_cast = app->mode.text_for == TEXT_FOR_CAST;
        if (!app->mode.text.len)
            app_message(app, true, _("No file name was given; nothing was "
                                     "written."));
        snprintf(app->status.export_to, sizeof app->status.export_to, "%s",
                 app->mode.text.text);
        break;
    case TEXT_FOR_COUNT: break;
    }
    return true;
}

static bool pass_on(App *app, const Request *r) { return false; }

/* The prompt takes every key: Enter hands the text over, Escape drops it
 * (quitting still quits). */
static const ModeAct text_acts[ACT_COUNT] = {
    [ACT_TYPE] = text_type_act, [ACT_ERASE] = text_erase_act,
    [ACT_CANCEL] = close_mode,  [ACT_ENTER] = text_enter,
    [ACT_QUIT] = pass_on,
};

static bool text_apply(App *app, const Request *r)
{
    return r->act >= ACT_COUNT || !text_acts[r->act] ||
           text_acts[r->act](app, r);
}

/* ------------------------------------------------------------ menus */

/* The algorithm of the algorithm menu's value v: a built-in's index, or
 * algo_count() + a schedule file's place among those read. */
static const AlgoInfo *menu_algo(long long v)
{
    const AlgoInfo *f[SCENE_MAX_FILES];
    size_t n = sched_file_loaded(f, SCENE_MAX_FILES), b = algo_count();
    return (size_t)v < b ? algo_at((size_t)v)
           : (size_t)v - b < n ? f[(size_t)v - b] : algo_default(COLL_ALLREDUCE);
}

/* Set what value v of menu k chooses; true when the step shown stays
 * (the schedule keeps its shape). */
static bool pick_setup(SceneSetup *set, MenuKind k, long long v)
{
    CollCall *c = &set->call;
    switch (k) {
    case MENU_COLL: /* its default algorithm, root 0 (the caller puts
                       the last root chosen back) */
        c->kind = (CollKind)v;
        c->root = 0;
        set->algo = algo_default(c->kind);
        return false;
    case MENU_ALGO: set->algo = menu_algo(v); return false;
    case MENU_RANKS:
        c->nranks = (int)v;
        c->root = c->root < c->nranks ? c->root : 0;
        return false;
    case MENU_SIZE: set->bytes = (uint64_t)v; return true;
    case MENU_DTYPE: c->dtype = (DataType)v; return true;
    case MENU_OP: c->op = (RedOp)v; return true;
    case MENU_ROOT: c->root = (int)v; return true;
    case MENU_NONE:
    case MENU_BACKEND:
    case MENU_MACHINE:
    case MENU_COUNT: break;
    }
    return true;
}

static void pick_backend(App *app, const char *name)
{
    char why[200] = "";
    const Scene *sc = app->scene;
    const ExecOps *ops = exec_find(name, why, sizeof why);
    const char *now = sc->backend ? sc->backend->name : _("none");
    if (!ops) {
        app_message(app, true, _("The %s backend cannot be used: %s; "
                                 "keeping %s."), name, why, now);
        return;
    }
    if (app->bg.worker)
        worker_cancel(app->bg.worker);
    if (scene_set_backend(app->scene, ops, why, sizeof why))
        app_message(app, true, _("%s Keeping %s."), why, now);
    else
        app_scene_said(app, why);
}

/* Item i of the open menu: the menu closes and its choice is made; one
 * that cannot be made leaves the scene as it was and says why. */
static void pick(App *app, int i)
{
    const Menu *m = &app->mode.menu;
    if (i < 0 || i >= m->n)
        return;
    MenuKind k = m->kind;
    long long v = m->value[i];
    app_mode_set(app, MODE_NONE);
    if (k == MENU_SIZE && v == MENU_OTHER) {
        open_size_entry(app, 0);
    } else if (k == MENU_BACKEND) {
        pick_backend(app, exec_name_at((size_t)v));
    } else if (k == MENU_MACHINE) {
        SceneSetup set;
        scene_setup(app->scene, &set);
        char spec[SPEC_LEN];
        CliErr e;
        menu_machine((int)v, set.call.nranks, spec, sizeof spec);
        spec_machine_name(&set.machine, spec, &e); /* the menu's fit */
        app_remake(app, &set, true); /* the same schedule, priced anew */
    } else if (k != MENU_NONE) {
        SceneSetup set;
        scene_setup(app->scene, &set);
        if (coll_is_rooted(set.call.kind))
            app->view.root = set.call.root;
        bool keep = pick_setup(&set, k, v);
        /* a rooted collective keeps the root last chosen, where the ranks
           have it */
        if (k == MENU_COLL && coll_is_rooted(set.call.kind) &&
            app->view.root < set.call.nranks)
            set.call.root = app->view.root;
        app_remake(app, &set, keep);
    }
}

/* In the size menu a digit starts typing a size. */
static Request menu_key(const App *app, int key)
{
    if (app->mode.menu.kind == MENU_SIZE && key >= '0' && key <= '9')
        return (Request){.act = ACT_TYPE, .a = key};
    return plain_key(app, key);
}

static bool menu_up(App *app, const Request *r)
{
    menu_move(&app->mode.menu, -1);
    return true;
}

static bool menu_down(App *app, const Request *r)
{
    menu_move(&app->mode.menu, 1);
    return true;
}

static bool menu_enter(App *app, const Request *r)
{
    pick(app, app->mode.menu.cur);
    return true;
}

static bool menu_pick(App *app, const Request *r)
{
    pick(app, r->a);
    return true;
}

static bool menu_hover(App *app, const Request *r)
{
    if (r->a >= 0 && r->a < app->mode.menu.n)
        app->mode.menu.cur = r->a;
    return true;
}

static bool menu_type(App *app, const Request *r)
{
    if (app->mode.menu.kind == MENU_SIZE)
        open_size_entry(app, r->a);
    return true;
}

static bool swallow(App *app, const Request *r) { return true; }

/* Arrows move, Enter or a click picks, Escape closes; any other request
 * closes the menu and goes on. */
static const ModeAct menu_acts[ACT_COUNT] = {
    [ACT_PREV] = menu_up,       [ACT_SCROLL_UP] = menu_up,
    [ACT_NEXT] = menu_down,     [ACT_SCROLL_DOWN] = menu_down,
    [ACT_ENTER] = menu_enter,   [ACT_MENU_PICK] = menu_pick,
    [ACT_MENU_HOVER] = menu_hover, [ACT_CANCEL] = close_mode,
    [ACT_TYPE] = menu_type,     [ACT_ERASE] = swallow,
};

static bool menu_apply(App *app, const Request *r)
{
    if (r->act < ACT_COUNT && menu_acts[r->act])
        return menu_acts[r->act](app, r);
    app_mode_set(app, MODE_NONE);
    return false;
}

/* ------------------------------------------------------------ the table */

static const ModeOps modes[MODE_COUNT] = {
    [MODE_NONE] = {.name = "none", .panel = VIEW_COUNT, .key = plain_key},
    [MODE_HELP] = {.name = "help", .panel = VIEW_HELP, .key = plain_key,
                   .apply = help_apply},
    [MODE_MENU] = {.name = "menu", .panel = VIEW_MENU, .key = menu_key,
                   .apply = menu_apply},
    [MODE_TEXT] = {.name = "text", .panel = VIEW_PROMPT, .key = text_key,
                   .apply = text_apply},
};

const ModeOps *app_mode_ops(ModeKind k)
{
    return &modes[k < MODE_COUNT ? k : MODE_NONE];
}

void app_mode_set(App *app, ModeKind k)
{
    if (k != MODE_MENU)
        app->mode.menu.kind = MENU_NONE;
    app->mode.kind = k;
}

Request app_key(const App *app, int key)
{
    return app_mode_ops(app->mode.kind)->key(app, key);
}

ViewId app_mode_panel(const App *app)
{
    return app_mode_ops(app->mode.kind)->panel;
}
