/* i18n.c - see i18n.h. */
#include "ui/i18n.h"

#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef LOCALEDIR
#define LOCALEDIR "/usr/local/share/locale"
#endif
#define DOMAIN "collviz"

static UiLang current = UI_LANG_EN;
static bool chosen;
static bool env_taken;
static bool env_locale_ok; /* the environment's locale is installed */
static char found_dir[PATH_MAX];

int ui_lang_parse(const char *name, UiLang *out)
{
    if (!name)
        return -1;
    /* "en" or "zh", alone or followed by a territory, codeset or
     * modifier: "zh_CN.UTF-8", "en@euro" */
    const char *end = name + strspn(name, "abcdefghijklmnopqrstuvwxyz"
                                          "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    if (end - name != 2 || (*end && !strchr("_-.@", *end)))
        return -1;
    if ((name[0] | 32) == 'e' && (name[1] | 32) == 'n')
        *out = UI_LANG_EN;
    else if ((name[0] | 32) == 'z' && (name[1] | 32) == 'h')
        *out = UI_LANG_ZH;
    else
        return -1;
    return 0;
}

UiLang ui_lang_from_env(void)
{
    static const char *const vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            UiLang l;
            return ui_lang_parse(v, &l) == 0 ? l : UI_LANG_EN;
        }
    }
    return UI_LANG_EN;
}

static bool has_catalogue(const char *dir)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/zh_CN/LC_MESSAGES/" DOMAIN ".mo", dir);
    return access(path, R_OK) == 0;
}

/* The catalogues: beside the program in a build tree (build/locale, also
 * for the test programs in build/tests), below it when installed
 * (PREFIX/bin/../share/locale), else where the build said. */
static void find_catalogues(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            static const char *const rel[] = {"/locale", "/../locale",
                                              "/../share/locale"};
            for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
                char dir[PATH_MAX];
                int w = snprintf(dir, sizeof dir, "%s%s", exe, rel[i]);
                if (w > 0 && (size_t)w < sizeof dir && has_catalogue(dir)) {
                    if (!realpath(dir, found_dir))
                        snprintf(found_dir, sizeof found_dir, "%s", dir);
                    return;
                }
            }
        }
    }
    if (has_catalogue(LOCALEDIR))
        snprintf(found_dir, sizeof found_dir, "%s", LOCALEDIR);
}

static bool ctype_is_utf8(void)
{
    return strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
}

void ui_lang_use(UiLang l)
{
    if (!env_taken) {
        env_taken = true;
        env_locale_ok = setlocale(LC_ALL, "") != NULL;
        find_catalogues();
        if (found_dir[0]) {
            bindtextdomain(DOMAIN, found_dir);
            bind_textdomain_codeset(DOMAIN, "UTF-8");
        }
        textdomain(DOMAIN);
    }
    /* Draw UTF-8 where the environment named a locale this machine does
     * not have (its language still decides), and wherever Chinese is
     * chosen; a C locale chosen on purpose stays ASCII in English. */
    if (!ctype_is_utf8() && (!env_locale_ok || l == UI_LANG_ZH))
        setlocale(LC_CTYPE, "C.UTF-8");
    /* gettext ignores LANGUAGE in the "C" locale: Chinese messages need a
     * messages locale other than C, the Chinese one where it is installed,
     * else C.UTF-8 (which gettext does not treat as C). A change of the
     * messages locale's name is also what drops the translations gettext
     * keeps (setting the same name again does nothing), so it passes
     * through "C" on the way. */
    char now[128];
    snprintf(now, sizeof now, "%s", setlocale(LC_MESSAGES, NULL));
    setenv("LANGUAGE", l == UI_LANG_ZH ? "zh_CN" : "en", 1);
    setlocale(LC_MESSAGES, "C");
    if (l == UI_LANG_ZH) {
        if (!setlocale(LC_MESSAGES, "zh_CN.UTF-8"))
            setlocale(LC_MESSAGES, "C.UTF-8");
    } else if (strcmp(now, "C") != 0) {
        setlocale(LC_MESSAGES, now);
    }
    current = l;
    chosen = true;
}

void ui_lang_default(void)
{
    if (!chosen)
        ui_lang_use(ui_lang_from_env());
}

UiLang ui_lang_get(void)
{
    return current;
}

const char *ui_lang_code(UiLang l)
{
    return l == UI_LANG_ZH ? "zh" : "en";
}

const char *ui_lang_name(UiLang l)
{
    return l == UI_LANG_ZH ? _("Chinese") : _("English");
}

const char *ui_lang_list(void)
{
    return "en, zh";
}

const char *ui_lang_dir(void)
{
    return found_dir;
}

const char *ui_lang_missing(void)
{
    if (ui_lang_get() != UI_LANG_ZH || found_dir[0])
        return NULL;
    return "No Chinese text is installed with collviz (no zh_CN/LC_MESSAGES/"
           DOMAIN ".mo beside it or in " LOCALEDIR "): its screens stay "
           "in English.";
}
