/* i18n.h - the language the TUI speaks: English or Chinese, chosen by
 * --lang or by the environment (LC_ALL, LC_MESSAGES, LANG), through GNU
 * gettext (message catalogues under po/, compiled by the Makefile).
 *
 * A message is written in English and wrapped: _("Steps") where it is
 * shown, N_("Steps") in a static table (marked for xgettext, translated
 * by _() when shown). po/zh_CN.po holds the Chinese. The core's own
 * English words are translated through words.h. */
#ifndef COLLVIZ_UI_I18N_H
#define COLLVIZ_UI_I18N_H

#include <libintl.h>

#define _(s) gettext(s)
#define N_(s) (s)
/* N_ with a context, for words English spells alike that another
 * language does not ("full" machine, "full" calibration): the key is the
 * context, a \004 and the word, as gettext's pgettext spells it; the
 * caller shows what follows the \004 where _() finds no translation. */
#define NC_(ctx, s) (ctx "\004" s)

typedef enum { UI_LANG_EN, UI_LANG_ZH } UiLang;

/* A language by name: "en", "zh", or a locale name that starts with one
 * ("zh_CN.UTF-8", "en_US", "zh_TW"): 0 and *out; -1 when unknown. */
int ui_lang_parse(const char *name, UiLang *out);
/* The language the environment asks for: the first of LC_ALL,
 * LC_MESSAGES and LANG that is set and not empty decides; zh* gives
 * Chinese, anything else (or none) English. */
UiLang ui_lang_from_env(void);
/* Speak l from now on (also to switch while running: the next _() is in
 * l). The first call also takes the environment's locale (setlocale "");
 * the character set is UTF-8 where the environment's is, and also where
 * the locale it names is not installed or Chinese is chosen (C.UTF-8), so
 * Chinese never turns into question marks. */
void ui_lang_use(UiLang l);
/* ui_lang_use(ui_lang_from_env()) unless a language was chosen already:
 * what the terminal's start calls. */
void ui_lang_default(void);
/* The language in use (English before any ui_lang_use). */
UiLang ui_lang_get(void);
/* "en" or "zh". */
const char *ui_lang_code(UiLang l);
/* The language's name in the language in use ("English", "Chinese"). */
const char *ui_lang_name(UiLang l);
/* The codes ui_lang_parse knows, for sentences: "en, zh". */
const char *ui_lang_list(void);
/* Where the catalogues were found ("" when none: messages stay
 * English). */
const char *ui_lang_dir(void);
/* Where Chinese is in use but no catalogue was found (its messages then
 * stay English): a sentence in English that says so, else NULL. */
const char *ui_lang_missing(void);

#endif
