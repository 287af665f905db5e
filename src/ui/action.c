/* action.c - the names and help texts of the actions. */
#include "ui/action.h"

#include "ui/i18n.h"

#include <strings.h>

static const char *const action_names[ACT_COUNT] = {
#define X(id, name, help) [id] = name,
    ACTIONS(X)
#undef X
};

static const char *const action_helps[ACT_COUNT] = {
#define X(id, name, help) [id] = help,
    ACTIONS(X)
#undef X
};

const char *action_name(Action a) { return a < ACT_COUNT ? action_names[a] : "?"; }
const char *action_label(Action a)
{
    return a < ACT_COUNT && action_names[a][0] ? _(action_names[a]) : "?";
}
const char *action_help(Action a)
{
    return a < ACT_COUNT && action_helps[a][0] ? _(action_helps[a]) : "?";
}

int action_parse(const char *s)
{
    for (int a = 0; s && a < ACT_COUNT; a++)
        if (!strcasecmp(s, action_names[a]))
            return a;
    return -1;
}

