/* progress.h - where each learner stopped: per lesson its position and
 * each checkpoint's result, kept in the state directory (store.h:
 * $XDG_STATE_HOME/collviz/lessons, written atomically). A file that cannot
 * be read or parsed is set aside with one sentence and the learner starts
 * clean; it is never silently overwritten.
 *
 * The file: the line "collviz lesson progress 1", then one line per
 * lesson: NAME DIRECTIVES TEXTS RESULTS, where NAME keeps the bytes
 * [A-Za-z0-9._-] and has every other as %XX (older files, whose names
 * had those bytes only, read the same). A file larger than
 * PROGRESS_MAX_BYTES is set aside unread. The position is counted in
 * directives passed and text items since the last of them, so that it
 * means the same place in every language. RESULTS has one character per
 * checkpoint: '.' not answered, '+' right, 's' skipped, 'r' revealed. */
#ifndef COLLVIZ_LESSON_PROGRESS_H
#define COLLVIZ_LESSON_PROGRESS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "core/error.h"
#include "lesson/lesson.h"

#define PROGRESS_MAX_BYTES (16 << 20) /* 700k lessons' worth */

typedef enum {
    CP_OPEN = '.',     /* not answered yet */
    CP_RIGHT = '+',    /* answered right */
    CP_SKIPPED = 's',  /* skipped */
    CP_REVEALED = 'r', /* the answer was shown */
} CheckResult;

typedef struct {
    char name[128];  /* the lesson's file name without .txt */
    bool mine;       /* changed by this process: its record wins at save */
    long dirs;       /* directives passed */
    long texts;      /* text items since the last directive */
    char *results;   /* one CheckResult a checkpoint, as many as the
                        lesson has (malloc'd, NUL-terminated, never NULL) */
    char *base;      /* results as the file had them when this process
                        last read or saved it (malloc'd), or NULL: what
                        it has changed since is what its save writes */
    long base_dirs;  /* the position then (-1: none) */
    long base_texts;
} ProgressEntry;

typedef struct {
    ProgressEntry *e; /* the lessons with progress */
    size_t n;         /* how many */
    size_t cap;       /* room in e */
    char **gone;      /* lessons reset by this process (malloc'd names) */
    size_t ngone;     /* how many */
    char path[4096];  /* the file ("" when there is no state directory) */
} Progress;

/* Read the progress file at path (NULL: the state directory's). A
 * missing file is no progress. A file that cannot be read or parsed is
 * set aside (NAME.bad) and *why says so in one sentence; CV_OK, and p is
 * usable. CV_ERR_IO with the sentence when the state directory is
 * unknown or the file can be neither read nor set aside (p is then
 * empty, and saves go nowhere). */
CvError progress_load(Progress *p, const char *path, char *why, size_t whylen);
void progress_fini(Progress *p);
/* Save p: under the file's lock (store_lock) read the file again, keep
 * every lesson another player saved, merge p's own (those progress_get
 * created or changed) into theirs, drop those progress_reset forgot, and
 * write it atomically through a symbolic link to its target, removing the
 * temporary files of killed writers. The merge is per checkpoint: a
 * result only p changed since it loaded is p's, one only another player
 * changed is theirs, one both changed is the one that did more (right,
 * shown, skipped), and none goes back to CP_OPEN; the position is p's where only p moved, the
 * file's where only another player did, the furthest where both did. p
 * then holds the merged entries (they may have moved: get them again).
 * CV_ERR_IO and one sentence on failure; on success why is empty, or says
 * that a file found unreadable was set aside. */
CvError progress_save(Progress *p, char *why, size_t whylen);
/* The entry of lesson name, created (at the end) when create, which also
 * marks it as this process's to save. Any file name (blanks, accents,
 * parentheses) is a name: the file holds it %XX-encoded. */
ProgressEntry *progress_get(Progress *p, const char *name, bool create);
/* Make e record n checkpoints: new ones CP_OPEN, those past n dropped.
 * CV_OK, or CV_ERR_NOMEM (e unchanged). */
CvError progress_set_checks(ProgressEntry *e, size_t n);
/* Forget lesson name's progress. */
void progress_reset(Progress *p, const char *name);

/* The file's format alone, for the fuzzer and the store's functions:
 * read f into p (empty): 0, or -1 when f is not a progress file as
 * progress_write writes them (p then holds what came before the first bad
 * line; progress_fini it). progress_write returns ferror(f). */
int progress_read(Progress *p, FILE *f);
int progress_write(FILE *f, const Progress *p);

/* Item index <-> position (ProgressEntry's dirs and texts). */
size_t progress_index(const Lesson *l, long dirs, long texts);
void progress_position(const Lesson *l, size_t index, long *dirs,
                       long *texts);
#endif
