/* term.c - the terminal: curses set-up and restore, themes, drawing a Grid,
 * input. The only file that includes curses (with keys.c for key codes).
 *
 * Terminal state is process-wide by nature, so this module keeps it in a
 * few file-scope variables; the signal handlers touch only `stop_signal`
 * (SIGINT/SIGTERM/SIGHUP) or restore the tty with write() and tcsetattr()
 * (fatal signals), both async-signal-safe. */
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include "ui/term.h"
#include "ui/i18n.h"
#include "ui/theme.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

/* ------------------------------------------------------------ themes */

/* The curses attributes of a theme's TA_* bits. */
static attr_t style_attrs(unsigned ta)
{
    attr_t a = 0;
    a |= ta & TA_BOLD ? A_BOLD : 0;
    a |= ta & TA_DIM ? A_DIM : 0;
    a |= ta & TA_REVERSE ? A_REVERSE : 0;
    a |= ta & TA_UNDER ? A_UNDERLINE : 0;
    a |= ta & TA_BLINK ? A_BLINK : 0;
    return a;
}

/* ------------------------------------------------------------ state */

static bool active;               /* curses is running */
static SCREEN *screen;            /* the curses screen on our tty */
static bool have_tty_state;       /* saved_tty holds the tty's settings */
static struct termios saved_tty;  /* the tty before we started */
static bool colours_ok;           /* colours may be used (not NO_COLOR) */
static int loaded_theme = -1;     /* theme whose colour pairs are set */
#define TERM_MAX_SIDE 10000 /* rows or columns past any real screen */

static volatile sig_atomic_t stop_signal; /* SIGINT/TERM/HUP received */

int term_theme_count(void) { return colours_ok ? THEME_COUNT : 1; }

const char *term_theme_name(int theme)
{
    return theme_name(term_theme_effective(theme));
}

char term_mono_mark(Role r, unsigned attr)
{
    unsigned a = r < ROLE_COUNT ? theme_style(THEME_MONO, r)->attr : 0;
    bool rev = (a & TA_REVERSE) || (attr & GRID_REVERSE);
    bool bold = (a & TA_BOLD) || (attr & GRID_BOLD);
    bool under = (a & TA_UNDER) || (attr & GRID_UNDER);
    return rev ? 'R' : bold && under ? 'B' : bold ? 'b' : under ? 'u'
           : (a & TA_DIM) ? 'd' : '.';
}

int term_default_theme(void)
{
    return colours_ok ? (COLORS >= 256 ? THEME_DEEP : THEME_COLOUR)
                      : THEME_MONO;
}

int term_theme_effective(int t)
{
    if (!colours_ok)
        return THEME_MONO;
    t = ((t % THEME_COUNT) + THEME_COUNT) % THEME_COUNT;
    return t == THEME_DEEP && COLORS < 256 ? THEME_COLOUR : t;
}

static void load_theme(int t)
{
    if (t == loaded_theme)
        return;
    loaded_theme = t;
    for (int r = 0; colours_ok && r < ROLE_COUNT; r++)
        init_pair((short)(r + 1), theme_style(t, (Role)r)->fg,
                  theme_style(t, (Role)r)->bg);
}

/* ------------------------------------------------------------ signals */

/* What the terminal needs back, written without stdio: mouse reporting
 * off, cursor visible, attributes reset, the normal screen. */
static const char restore_seq[] =
    "\033[?1000l\033[?1002l\033[?1006l\033[?25h\033[0m\033[?1049l\r\n";

static void on_stop(int sig) { stop_signal = sig; }

/* A process group the terminal's user started through the program (the
 * lesson player's command), ended with the program on a fatal signal:
 * it has a group of its own, so the signal never reached it. */
static volatile sig_atomic_t child_group;

void term_child_group(int pgid) { child_group = pgid; }

static void on_fatal(int sig)
{
    if (child_group > 0)
        kill(-(pid_t)child_group, SIGKILL);
    if (active) {
        ssize_t n = write(STDOUT_FILENO, restore_seq, sizeof restore_seq - 1);
        (void)n;
        if (have_tty_state)
            tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Whether sig's default action ends the process (POSIX: terminate, or
 * terminate with a core dump); the others stop, continue or are ignored. */
static bool ends_process(int sig)
{
    switch (sig) {
    case SIGCHLD: case SIGCONT: case SIGSTOP: case SIGTSTP: case SIGTTIN:
    case SIGTTOU: case SIGURG: case SIGWINCH: case SIGKILL:
        return false;
    default:
        return true;
    }
}

/* SIGINT, SIGTERM and SIGHUP ask the loop to stop (it restores the
 * terminal and says which signal); every other signal that would end the
 * process (SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1, real-time signals, the
 * crashes) restores the terminal first, then takes its default action.
 * A signal the process was started with ignored (nohup) stays ignored. */
static void install_signals(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    for (int sig = 1; sig <= SIGRTMAX; sig++) {
        bool stop = sig == SIGINT || sig == SIGTERM || sig == SIGHUP;
        if (!ends_process(sig) || sigaction(sig, NULL, &old) ||
            old.sa_handler == SIG_IGN)
            continue;
        sa.sa_handler = stop ? on_stop : on_fatal;
        /* no SA_RESTART for a stop: a wait for input returns */
        sa.sa_flags = stop ? 0 : SA_RESETHAND;
        sigaction(sig, &sa, NULL);
    }
}

/* ------------------------------------------------------------ life */

/* LINES or COLUMNS set to more than a terminal can have: curses would
 * fail to start and the cause would read as an unknown terminal type. */
static bool size_override_bad(char *why, size_t len)
{
    static const char *const vars[] = {"LINES", "COLUMNS"};
    for (size_t i = 0; i < 2; i++) {
        const char *v = getenv(vars[i]);
        char *end;
        long n = v && *v ? strtol(v, &end, 10) : 0;
        if (n > TERM_MAX_SIDE) {
            snprintf(why, len, "%s=%s is more than a terminal can have (at "
                     "most %d); unset it so that the terminal's own size is "
                     "used.", vars[i], v, TERM_MAX_SIDE);
            return true;
        }
    }
    return false;
}

CvError term_init(bool *utf8, char *why, size_t len)
{
    ui_lang_default(); /* the locale, and the language of messages */
    *utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
    have_tty_state = tcgetattr(STDIN_FILENO, &saved_tty) == 0;
    install_signals();
    atexit(term_fini);
    if (size_override_bad(why, len))
        return CV_ERR_IO;
    /* newterm, unlike initscr, returns NULL instead of exiting */
    if (!(screen = newterm(NULL, stdout, stdin))) {
        snprintf(why, len, "The terminal type '%s' is unknown here; set TERM "
                 "(e.g. xterm-256color).", getenv("TERM") ? getenv("TERM")
                                                           : "(unset)");
        return CV_ERR_IO;
    }
    set_term(screen);
    char *cup = tigetstr("cup");
    if (!cup || cup == (char *)-1) { /* TERM=dumb: nothing can be drawn */
        endwin();
        delscreen(screen);
        screen = NULL;
        snprintf(why, len, "The terminal type '%s' cannot move the cursor, "
                 "so nothing can be drawn on it; set TERM (e.g. "
                 "xterm-256color).", getenv("TERM") ? getenv("TERM") : "");
        return CV_ERR_IO;
    }
    active = true;
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
    const char *nc = getenv("NO_COLOR");
    colours_ok = has_colors() && !(nc && *nc);
    if (colours_ok && start_color() == OK)
        use_default_colors();
    else
        colours_ok = false;
    return CV_OK;
}

void term_fini(void)
{
    if (!active)
        return;
    active = false;
    mousemask(0, NULL);
    curs_set(1);
    endwin();
    delscreen(screen);
    screen = NULL;
    if (have_tty_state)
        tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
}

void term_size(int *w, int *h)
{
    getmaxyx(stdscr, *h, *w);
}

/* ------------------------------------------------------------ output */

static attr_t cell_attrs(const Cell *c, const ThemeStyle *st)
{
    attr_t a = style_attrs(st->attr);
    if (c->attr & GRID_BOLD)
        a |= A_BOLD;
    if (c->attr & GRID_REVERSE)
        a |= A_REVERSE;
    if (c->attr & GRID_UNDER)
        a |= A_UNDERLINE;
    return a;
}

static void put_cell(int x, int y, const Cell *c, int theme, bool utf8)
{
    const ThemeStyle *st = theme_style(theme, (Role)c->role);
    wchar_t wc[2] = {(wchar_t)c->ch, 0};
    if (!utf8 && c->ch > 0x7e)
        wc[0] = L'?';
    cchar_t cc;
    short pair = colours_ok ? (short)(c->role + 1) : 0;
    setcchar(&cc, wc, cell_attrs(c, st), pair, NULL);
    mvadd_wch(y, x, &cc);
}

void term_present(const Grid *g, int theme, bool all)
{
    int t = term_theme_effective(theme);
    bool utf8 = !g->ascii;
    load_theme(t);
    if (all)
        clearok(stdscr, TRUE);
    for (int y = 0; y < g->h; y++)
        for (int x = 0; x < g->w; x++) {
            const Cell *c = grid_cat(g, x, y);
            if (c->ch != GRID_CONT && !(y == g->h - 1 && x == g->w - 1))
                put_cell(x, y, c, t, utf8);
        }
    wnoutrefresh(stdscr);
    doupdate();
}

/* ------------------------------------------------------------ input */

static TermEvent mouse_event(void)
{
    MEVENT m;
    TermEvent ev = {.kind = TERM_NONE};
    if (getmouse(&m) != OK)
        return ev;
    if (m.bstate & BUTTON4_PRESSED)
        return (TermEvent){.kind = TERM_WHEEL, .key = -1};
    if (m.bstate & BUTTON5_PRESSED)
        return (TermEvent){.kind = TERM_WHEEL, .key = 1};
    if (m.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))
        return (TermEvent){.kind = TERM_CLICK, .x = m.x, .y = m.y};
    return ev;
}

int term_stop_signal(void) { return stop_signal; }

/* A curses key code as the interface names it (term.h); other codes,
 * characters among them, as they are. */
static int key_of(int k)
{
    static const struct {
        int curses, term;
    } keys[] = {
        {KEY_UP, TERM_KEY_UP},         {KEY_DOWN, TERM_KEY_DOWN},
        {KEY_LEFT, TERM_KEY_LEFT},     {KEY_RIGHT, TERM_KEY_RIGHT},
        {KEY_HOME, TERM_KEY_HOME},     {KEY_END, TERM_KEY_END},
        {KEY_PPAGE, TERM_KEY_PPAGE},   {KEY_NPAGE, TERM_KEY_NPAGE},
        {KEY_ENTER, TERM_KEY_ENTER},   {KEY_BACKSPACE, TERM_KEY_BACKSPACE},
        {KEY_F(1), TERM_KEY_F1},
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (keys[i].curses == k)
            return keys[i].term;
    return k;
}

TermEvent term_read(int timeout_ms)
{
    if (stop_signal)
        return (TermEvent){.kind = TERM_STOP, .key = stop_signal};
    timeout(timeout_ms);
    int k = getch();
    if (stop_signal)
        return (TermEvent){.kind = TERM_STOP, .key = stop_signal};
    if (k == ERR)
        return (TermEvent){.kind = TERM_NONE};
    if (k == KEY_MOUSE)
        return mouse_event();
    if (k == KEY_RESIZE) {
        TermEvent ev = {.kind = TERM_RESIZE};
        term_size(&ev.x, &ev.y);
        return ev;
    }
    return (TermEvent){.kind = TERM_KEY, .key = key_of(k)};
}

int term_edit(const char *path, char *why, size_t whylen)
{
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_quit;
    bool was = active;
    if (was) { /* the editor gets the terminal as it was before us */
        def_prog_mode();
        endwin();
    }
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &old_int); /* the editor's ^C is its own */
    sigaction(SIGQUIT, &ign, &old_quit);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        /* as git runs an editor: $VISUAL, $EDITOR or vi, words split */
        execl("/bin/sh", "sh", "-c", "exec ${VISUAL:-${EDITOR:-vi}} \"$1\"",
              "sh", path, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    pid_t got = pid;
    while (pid > 0 && (got = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    if (was) {
        reset_prog_mode();
        clearok(curscr, TRUE);
        refresh();
    }
    if (got < 0) /* SIGCHLD ignored: the status is gone, not the edit */
        st = 0;
    if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
        snprintf(why, whylen, pid < 0 ? "the editor could not be started"
                 : WIFEXITED(st) && WEXITSTATUS(st) == 127
                 ? "no editor was found: set VISUAL or EDITOR"
                 : "the editor ended with status %d", WIFEXITED(st)
                 ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
        return -1;
    }
    return 0;
}
