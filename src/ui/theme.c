/* theme.c - the themes' table: one style per role and theme. */
#include "ui/theme.h"

#include <string.h>

static const char *const names[THEME_COUNT] = {"colour", "deep", "mono"};

#define D THEME_DEFAULT
/* Roles shared by the two colour themes; the deep one overrides levels. */
#define COLOUR_BASE                                                           \
    [ROLE_NORMAL] = {D, D, 0},                                                \
    [ROLE_BORDER] = {TC_BLUE, D, 0},                                          \
    [ROLE_TITLE] = {TC_CYAN, D, TA_BOLD},                                     \
    [ROLE_FOCUS] = {TC_YELLOW, D, TA_BOLD},                                   \
    [ROLE_HEADER] = {TC_CYAN, D, 0},                                          \
    [ROLE_VALUE] = {D, D, TA_BOLD},                                           \
    [ROLE_DIM] = {D, D, TA_DIM},                                              \
    [ROLE_KEY] = {TC_YELLOW, D, TA_BOLD},                                     \
    [ROLE_STATUS] = {TC_BLACK, TC_WHITE, 0},                                  \
    [ROLE_OK] = {TC_GREEN, D, TA_BOLD},                                       \
    [ROLE_WARN] = {TC_YELLOW, D, TA_BOLD},                                    \
    [ROLE_ERROR] = {TC_RED, D, TA_BOLD},                                      \
    [ROLE_MENU] = {TC_BLACK, TC_WHITE, 0},                                    \
    [ROLE_MENU_SEL] = {TC_WHITE, TC_BLUE, TA_BOLD},                           \
    [ROLE_SELECT] = {TC_BLACK, TC_YELLOW, TA_BOLD},                           \
    [ROLE_EMPTY] = {D, D, TA_DIM},                                            \
    [ROLE_WRONG] = {TC_WHITE, TC_RED, TA_BOLD | TA_BLINK},                    \
    [ROLE_COPY] = {TC_CYAN, D, 0},                                            \
    [ROLE_REDUCE] = {TC_YELLOW, D, 0},                                        \
    [ROLE_NODE] = {D, D, TA_BOLD},                                            \
    [ROLE_LINK] = {TC_BLUE, D, TA_DIM},                                       \
    [ROLE_LINK_ACTIVE] = {TC_YELLOW, D, TA_BOLD},                             \
    [ROLE_AXIS] = {D, D, TA_DIM},                                             \
    [ROLE_MEASURED] = {TC_GREEN, D, TA_BOLD},                                 \
    [ROLE_MODEL] = {TC_YELLOW, D, 0},                                         \
    [ROLE_OTHER] = {TC_CYAN, D, 0},                                           \
    [ROLE_SERIES1] = {TC_GREEN, D, TA_BOLD},                                  \
    [ROLE_SERIES2] = {TC_CYAN, D, TA_BOLD},                                   \
    [ROLE_SERIES3] = {TC_MAGENTA, D, TA_BOLD},                                \
    [ROLE_SERIES4] = {TC_RED, D, TA_BOLD},                                    \
    [ROLE_SERIES5] = {TC_BLUE, D, TA_BOLD},                                   \
    [ROLE_SERIES6] = {TC_YELLOW, D, TA_BOLD}

/* Every role of the monochrome theme is named, so none is left at
 * {0, 0, 0}: palette colour 0 on colour 0, black on black. */
static const ThemeStyle themes[THEME_COUNT][ROLE_COUNT] = {
    [THEME_COLOUR] = {
        COLOUR_BASE,
        [ROLE_LEVEL1] = {TC_WHITE, TC_BLUE, 0},
        [ROLE_LEVEL2] = {TC_BLACK, TC_CYAN, 0},
        [ROLE_LEVEL3] = {TC_BLACK, TC_GREEN, 0},
        [ROLE_LEVEL4] = {TC_BLACK, TC_YELLOW, 0},
        [ROLE_FINAL] = {TC_WHITE, TC_MAGENTA, TA_BOLD},
    },
    [THEME_DEEP] = {
        COLOUR_BASE,
        [ROLE_LEVEL1] = {255, 24, 0},
        [ROLE_LEVEL2] = {255, 25, 0},
        [ROLE_LEVEL3] = {255, 31, 0},
        [ROLE_LEVEL4] = {16, 37, 0},
        [ROLE_FINAL] = {16, 214, TA_BOLD},
    },
    [THEME_MONO] = {
        [ROLE_NORMAL] = {D, D, 0},       [ROLE_BORDER] = {D, D, 0},
        [ROLE_TITLE] = {D, D, TA_BOLD},  [ROLE_FOCUS] = {D, D, TA_BOLD | TA_UNDER},
        [ROLE_HEADER] = {D, D, TA_BOLD}, [ROLE_VALUE] = {D, D, TA_BOLD},
        [ROLE_DIM] = {D, D, TA_DIM},     [ROLE_KEY] = {D, D, TA_BOLD},
        [ROLE_STATUS] = {D, D, TA_REVERSE}, [ROLE_OK] = {D, D, TA_BOLD},
        [ROLE_WARN] = {D, D, TA_BOLD | TA_UNDER},
        [ROLE_ERROR] = {D, D, TA_BOLD | TA_REVERSE},
        [ROLE_MENU] = {D, D, 0},         [ROLE_MENU_SEL] = {D, D, TA_REVERSE},
        [ROLE_SELECT] = {D, D, TA_REVERSE}, [ROLE_EMPTY] = {D, D, TA_DIM},
        [ROLE_LEVEL1] = {D, D, 0},       [ROLE_LEVEL2] = {D, D, 0},
        [ROLE_LEVEL3] = {D, D, TA_BOLD}, [ROLE_LEVEL4] = {D, D, TA_BOLD},
        [ROLE_FINAL] = {D, D, TA_BOLD}, /* just written: underlined */
        [ROLE_WRONG] = {D, D, TA_REVERSE | TA_BLINK},
        [ROLE_COPY] = {D, D, 0},         [ROLE_REDUCE] = {D, D, 0},
        [ROLE_NODE] = {D, D, TA_BOLD},   [ROLE_LINK] = {D, D, TA_DIM},
        [ROLE_LINK_ACTIVE] = {D, D, TA_BOLD}, [ROLE_AXIS] = {D, D, TA_DIM},
        [ROLE_MEASURED] = {D, D, TA_BOLD}, [ROLE_MODEL] = {D, D, 0},
        [ROLE_OTHER] = {D, D, 0},        [ROLE_SERIES1] = {D, D, 0},
        [ROLE_SERIES2] = {D, D, 0},      [ROLE_SERIES3] = {D, D, 0},
        [ROLE_SERIES4] = {D, D, 0},      [ROLE_SERIES5] = {D, D, 0},
        [ROLE_SERIES6] = {D, D, 0},
    },
};
#undef D

const ThemeStyle *theme_style(int t, Role r)
{
    t = ((t % THEME_COUNT) + THEME_COUNT) % THEME_COUNT;
    return &themes[t][r < ROLE_COUNT ? r : ROLE_NORMAL];
}

const char *theme_name(int t)
{
    return names[((t % THEME_COUNT) + THEME_COUNT) % THEME_COUNT];
}

int theme_parse(const char *s)
{
    for (int t = 0; s && t < THEME_COUNT; t++)
        if (!strcmp(s, names[t]))
            return t;
    return -1;
}

/* xterm's sixteen system colours. */
static const uint32_t system16[16] = {
    0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd,
    0xe5e5e5, 0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff,
    0x00ffff, 0xffffff,
};

uint32_t theme_rgb(int c)
{
    if (c < 0 || c > 255)
        return 0;
    if (c < 16)
        return system16[c];
    if (c >= 232) { /* 24 greys from 8 to 238 */
        uint32_t v = 8u + 10u * (uint32_t)(c - 232);
        return v << 16 | v << 8 | v;
    }
    static const uint32_t level[6] = {0, 95, 135, 175, 215, 255};
    int i = c - 16;
    return level[i / 36] << 16 | level[i / 6 % 6] << 8 | level[i % 6];
}
