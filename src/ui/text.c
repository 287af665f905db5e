/* text.c - a one-line text entry. */
#include "ui/text.h"

#include <stdio.h>
#include <string.h>

void text_open(TextEntry *t, const char *prompt, const char *first)
{
    memset(t, 0, sizeof *t);
    snprintf(t->prompt, sizeof t->prompt, "%s", prompt);
    for (; first && *first; first++)
        text_type(t, (unsigned char)*first);
}

bool text_type(TextEntry *t, int ch)
{
    if (ch < 0x20 || ch > 0x7e || t->len >= TEXT_MAX)
        return false;
    t->text[t->len++] = (char)ch;
    t->text[t->len] = '\0';
    return true;
}

bool text_erase(TextEntry *t)
{
    if (!t->len)
        return false;
    t->text[--t->len] = '\0';
    return true;
}
