/* library.h - where lessons are and which exist: the lessons folder (from
 * $COLLVIZ_LESSONS, the source tree beside the binary, or the installed
 * PREFIX/share/collviz/lessons), the lessons of one language in it, one
 * found by number or name, and a lesson file read whole. */
#ifndef COLLVIZ_LESSON_LIBRARY_H
#define COLLVIZ_LESSON_LIBRARY_H
#include <stddef.h>
#include "core/error.h"

/* The installed lessons, set by the Makefile from PREFIX. */
#ifndef COLLVIZ_LESSON_DIR
#define COLLVIZ_LESSON_DIR "/usr/local/share/collviz/lessons"
#endif

/* One lesson file of a language: lessons/<lang>/<name>.txt. */
typedef struct {
    char name[128]; /* file name without .txt: "01-broadcast" */
    int number;     /* its leading number (1), or -1 */
} LessonEntry;

/* The lessons folder in out (it has an en/ folder), or CV_ERR_IO and a
 * sentence naming every place looked in. */
CvError library_dir(char *out, size_t len, char *why, size_t whylen);

/* The lessons of language lang in dir, sorted by name (*out is malloc'd,
 * free it). CV_ERR_IO and a sentence when the folder cannot be read. */
CvError library_list(const char *dir, const char *lang, LessonEntry **out,
                     size_t *n, char *why, size_t whylen);

/* The index of the lesson `key` names: its number ("1", "01") or its name
 * with or without the number ("01-broadcast", "broadcast"); -1 if none. */
int library_find(const LessonEntry *e, size_t n, const char *key);

/* Read a lesson file (a regular file of at most LESSON_MAX_BYTES) into a
 * malloc'd, NUL-terminated *buf. CV_ERR_IO and a sentence otherwise. */
CvError library_read(const char *path, char **buf, size_t *len, char *why,
                     size_t whylen);
#endif
