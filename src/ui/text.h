/* text.h - a one-line text entry: a prompt and the characters typed after
 * it. It only collects text; whoever opened it decides what Enter and
 * Escape mean (the App's text mode: a size typed in the size menu; a
 * lesson: an answer). No App, no terminal. */
#ifndef COLLVIZ_UI_TEXT_H
#define COLLVIZ_UI_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Most characters one entry takes. */
#define TEXT_MAX 63

typedef struct {
    char prompt[320];        /* what is asked, shown before the text */
    char text[TEXT_MAX + 1]; /* what was typed, NUL-terminated */
    size_t len;              /* characters in text */
} TextEntry;

/* Start an entry asking `prompt`, holding `first` (may be NULL). */
void text_open(TextEntry *t, const char *prompt, const char *first);
/* Add character ch (printable ASCII only); false when it is not one or
 * the entry is full. */
bool text_type(TextEntry *t, int ch);
/* Remove the last character; false when there is none. */
bool text_erase(TextEntry *t);

#endif
