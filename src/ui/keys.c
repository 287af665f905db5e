/* keys.c - the one table of key bindings. */
#include "ui/keys.h"
#include "ui/term.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define CTRL_KEY(c) ((c) & 0x1f)
#define ESC_KEY 27

/* key code, name (help and scripts), action. Several keys may share an
 * action; help lists them together in the order given here. */
#define KEY_TABLE(X)                                                          \
    X(TERM_KEY_RIGHT, "Right", ACT_NEXT)                                           \
    X(TERM_KEY_NPAGE, "PgDn", ACT_NEXT)                                            \
    X('n', "n", ACT_NEXT)                                                     \
    X(TERM_KEY_LEFT, "Left", ACT_PREV)                                             \
    X(TERM_KEY_PPAGE, "PgUp", ACT_PREV)                                            \
    X('b', "b", ACT_PREV)                                                     \
    X(TERM_KEY_HOME, "Home", ACT_FIRST)                                            \
    X('g', "g", ACT_FIRST)                                                    \
    X(TERM_KEY_END, "End", ACT_LAST)                                               \
    X('G', "G", ACT_LAST)                                                     \
    X(' ', "Space", ACT_PLAY)                                                 \
    X('+', "+", ACT_FASTER)                                                   \
    X('-', "-", ACT_SLOWER)                                                   \
    X('c', "c", ACT_MENU_COLL)                                                \
    X('a', "a", ACT_MENU_ALGO)                                                \
    X('r', "r", ACT_MENU_RANKS)                                               \
    X('s', "s", ACT_MENU_SIZE)                                                \
    X('d', "d", ACT_MENU_DTYPE)                                               \
    X('o', "o", ACT_MENU_OP)                                                  \
    X('R', "R", ACT_MENU_ROOT)                                                \
    X('B', "B", ACT_MENU_BACKEND)                                             \
    X('M', "M", ACT_MENU_MACHINE)                                             \
    X('i', "i", ACT_INPLACE)                                                  \
    X(']', "]", ACT_CELLS_MORE)                                               \
    X('[', "[", ACT_CELLS_LESS)                                               \
    X('p', "p", ACT_CHUNKS)                                                   \
    X('m', "m", ACT_BENCH)                                                    \
    X('S', "S", ACT_SWEEP)                                                    \
    X('C', "C", ACT_COMPARE)                                                  \
    X('K', "K", ACT_CALIBRATE)                                                \
    X('D', "D", ACT_PRICING)                                                  \
    X(ESC_KEY, "Esc", ACT_CANCEL)                                             \
    X('1', "1", ACT_TOGGLE_TOPO)                                              \
    X('2', "2", ACT_TOGGLE_TIMELINE)                                          \
    X('3', "3", ACT_TOGGLE_CHART)                                             \
    X('4', "4", ACT_TOGGLE_XFERS)                                             \
    X('v', "v", ACT_CHART_VIEW)                                               \
    X('V', "V", ACT_CHART_PICK)                                               \
    X('F', "F", ACT_CHART_FULL)                                               \
    X('Z', "Z", ACT_TOPO_FULL)                                                \
    X('P', "P", ACT_PRESENT)                                                  \
    X(TERM_KEY_UP, "Up", ACT_SCROLL_UP)                                            \
    X('k', "k", ACT_SCROLL_UP)                                                \
    X(TERM_KEY_DOWN, "Down", ACT_SCROLL_DOWN)                                      \
    X('j', "j", ACT_SCROLL_DOWN)                                              \
    X('<', "<", ACT_SCROLL_LEFT)                                              \
    X('>', ">", ACT_SCROLL_RIGHT)                                             \
    X('\n', "Enter", ACT_ENTER)                                               \
    X('\r', "Return", ACT_ENTER)                                              \
    X(TERM_KEY_ENTER, "KpEnter", ACT_ENTER)                                        \
    X('A', "A", ACT_ASCII)                                                    \
    X('T', "T", ACT_THEME)                                                    \
    X('?', "?", ACT_HELP)                                                     \
    X('h', "h", ACT_HELP)                                                     \
    X(TERM_KEY_F1, "F1", ACT_HELP)                                               \
    X(CTRL_KEY('l'), "^L", ACT_REDRAW)                                        \
    X('w', "w", ACT_EXPORT_SVG)                                               \
    X('W', "W", ACT_EXPORT_CAST)                                              \
    X('u', "u", ACT_SCENE_STR)                                                \
    X('L', "L", ACT_LESSONS)                                                \
    X('q', "q", ACT_QUIT)

static const KeyBinding bindings[] = {
#define X(k, name, act) {k, name, act},
    KEY_TABLE(X)
#undef X
};

#define NBINDINGS (sizeof bindings / sizeof bindings[0])

size_t keys_count(void) { return NBINDINGS; }

const KeyBinding *keys_at(size_t i)
{
    return i < NBINDINGS ? &bindings[i] : NULL;
}

Action keys_action(int key)
{
    for (size_t i = 0; i < NBINDINGS; i++)
        if (bindings[i].key == key)
            return bindings[i].act;
    return ACT_NONE;
}

/* Keys with a name but no action: they mean something in a mode only. */
static const struct {
    int key;          /* key code (term.h) */
    const char *name; /* its name in scripts */
} unbound[] = {
    {TERM_KEY_BACKSPACE, "Backspace"},
};

bool keys_is_erase(int key)
{
    return key == TERM_KEY_BACKSPACE || key == 127 || key == CTRL_KEY('h');
}

int keys_parse(const char *name)
{
    if (!name || !*name)
        return -1;
    for (size_t i = 0; i < sizeof unbound / sizeof unbound[0]; i++)
        if (!strcasecmp(unbound[i].name, name))
            return unbound[i].key;
    for (size_t i = 0; i < NBINDINGS; i++)
        if (!strcmp(bindings[i].name, name))
            return bindings[i].key;
    for (size_t i = 0; i < NBINDINGS; i++)
        if (strlen(name) > 1 && !strcasecmp(bindings[i].name, name))
            return bindings[i].key;
    if (!name[1] && name[0] > ' ' && name[0] < 0x7f)
        return (unsigned char)name[0];
    return -1;
}

const char *keys_names(Action a, const char *sep, char *out, size_t len)
{
    size_t n = 0;
    if (len)
        out[0] = '\0';
    for (size_t i = 0; i < NBINDINGS && n < len; i++) {
        if (bindings[i].act != a)
            continue;
        int k = snprintf(out + n, len - n, "%s%s", n ? sep : "",
                         bindings[i].name);
        if (k < 0)
            break;
        n += (size_t)k;
    }
    return out;
}
