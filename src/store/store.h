/* store.h - the per-user files collviz keeps: where they live (the XDG
 * base directories), writing them atomically, and reading them safely.
 *
 *  - cache (STORE_CACHE): $XDG_CACHE_HOME/collviz/, else ~/.cache/collviz/:
 *    calibrations, which can be measured again;
 *  - state (STORE_STATE): $XDG_STATE_HOME/collviz/, else
 *    ~/.local/state/collviz/: what cannot, such as lesson progress.
 * A variable that is set but not an absolute path is ignored (the XDG
 * rule); store_ignored() names it so that a command can say so once.
 *
 * Writes go to a temporary file beside the target, are flushed to disk and
 * renamed over it, so a reader sees the old file or the new one, never a
 * part. Reads open regular files only (a FIFO or a device at the path is
 * refused, not waited on). A file that cannot be parsed is set aside
 * (renamed to NAME.bad) by its reader, so the next write starts clean and
 * the user can still look at it. Errors come back as CvError plus one
 * sentence with the real cause; nothing is printed. */
#ifndef COLLVIZ_STORE_H
#define COLLVIZ_STORE_H

#include <stdio.h>

#include "core/error.h"

typedef enum {
    STORE_CACHE, /* things collviz can measure again (calibrations) */
    STORE_STATE, /* things it cannot (lesson progress) */
    STORE_COUNT
} StoreKind;

/* The file `name` (a plain name, no '/') of kind k: its full path in out.
 * CV_ERR_IO when neither the XDG variable nor HOME gives a directory,
 * CV_ERR_ARG when name is not a plain name or out is too small; a
 * sentence in why either way. */
CvError store_path(StoreKind k, const char *name, char *out, size_t len,
                   char *why, size_t whylen);

/* The XDG variable of kind k when it is set but ignored (not an absolute
 * path), else NULL. */
const char *store_ignored(StoreKind k);

/* A file being written beside its place, renamed over it when it is
 * complete: a reader, or a run that fails or is killed, never leaves the
 * old file part-written. Where the file system has unnamed files
 * (Linux's O_TMPFILE) it has no name until it is complete, so a writer
 * killed with SIGKILL leaves nothing behind; elsewhere it is path.tmp.PID
 * (store_clean_stale removes those of ended processes). */
typedef struct {
    FILE *f;         /* the temporary file, open for writing */
    char path[4096]; /* where it goes */
    char tmp[4200];  /* the temporary file's name (given at commit when
                        it is unnamed until then) */
    int unnamed;     /* nonzero: an O_TMPFILE file */
} StoreTmp;

/* Create t's temporary file beside path (its directory must exist; a
 * path that is not a plain file's is the caller's to refuse). CV_ERR_IO
 * and "cannot write TMP: CAUSE" when it cannot be created (errno: the
 * cause). */
CvError store_begin(StoreTmp *t, const char *path, char *why, size_t whylen);
/* Flush t's file to disk, close it and rename it over its path. On
 * failure it is removed, and why says what failed and why (strerror;
 * errno: the cause). */
CvError store_commit(StoreTmp *t, char *why, size_t whylen);
/* Close and remove t's file: the old file at its path stays as it was. */
void store_abandon(StoreTmp *t);

/* Writes a file's contents to f; returns nonzero to abandon the write. */
typedef int (*StoreWriteFn)(FILE *f, void *ctx);

/* Write path atomically: creates its directories, writes a temporary file
 * in the same directory with fn (store_begin), flushes it to disk and
 * renames it over path (store_commit). On failure the old file (if any)
 * is untouched, the temporary file removed, and why says what failed and
 * why (strerror). A path that exists and is not a regular file (a device
 * such as /dev/stdout or /dev/full, a FIFO) is written in place, never
 * replaced; a directory is refused. A symbolic link is followed: its
 * target is replaced and the link kept; a link whose target has no name
 * (/dev/stdout on a deleted file) or does not exist yet is written
 * through in place, so no link (and no /dev entry) is ever replaced by
 * a file. */
CvError store_write(const char *path, StoreWriteFn fn, void *ctx, char *why,
                    size_t whylen);

/* Whether an export (an SVG, a cast, a --json file) may be written at
 * path: CV_OK, or CV_ERR_IO and one sentence when path is a symbolic
 * link. Exports never follow one (a link planted at a name, dangling or
 * not, would make them write where it points), except the system's own
 * in /dev/ and /proc/ (/dev/stdout, /dev/fd/N). */
CvError store_export_check(const char *path, char *why, size_t whylen);

/* Open path for reading when it is a regular file. CV_ERR_IO with
 * *missing = 1 when there is no such file (not an error for a cache);
 * CV_ERR_IO and a sentence for anything else (a directory, a FIFO, no
 * permission). */
CvError store_open(const char *path, FILE **out, int *missing, char *why,
                   size_t whylen);

/* The whole of the regular file at path, at most `most` bytes, into a
 * malloc'd, NUL-terminated *text (*len bytes, not counting the NUL).
 * store_open's errors (CV_ERR_IO, *missing, its sentence); CV_ERR_LIMIT
 * when it holds more than most bytes (why untouched); CV_ERR_IO and a
 * sentence when a read fails or memory runs out. */
CvError store_read(const char *path, size_t most, char **text, size_t *len,
                   int *missing, char *why, size_t whylen);

/* Rename a file that could not be read to path.bad, or path.bad.1,
 * path.bad.2 ... when that is taken (an older file set aside is kept), so
 * that the next write starts clean; the new name in aside (may be NULL).
 * CV_ERR_IO when it cannot be renamed. */
CvError store_set_aside(const char *path, char *aside, size_t len);

/* Take the lock of path's file: flock on path.lock beside it (created,
 * with path's directories), waiting for another process that holds it, so
 * that readers-then-writers of the same file take turns. *fd is released
 * by store_unlock, or when the process ends. CV_ERR_IO and a sentence
 * when the lock file cannot be made. */
CvError store_lock(const char *path, int *fd, char *why, size_t whylen);
void store_unlock(int fd);

/* path with a symbolic link at its end resolved to the link's target (a
 * file kept among one's dotfiles is written there, the link kept); path
 * itself otherwise (no link, or one that leads nowhere). */
void store_resolve(const char *path, char *out, size_t len);

/* Remove the temporary files (NAME.tmp.PID) that writers left in path's
 * directory, a directory of collviz's own, when they were killed: those
 * of processes that no longer run, whatever file they were writing (a
 * kill -9 during one calibration's save is cleaned by the next save of
 * any). */
void store_clean_stale(const char *path);

#endif
