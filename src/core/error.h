/* error.h - error codes of every library module, with one message each.
 * Library code returns these; only the command layer prints. */
#ifndef COLLVIZ_ERROR_H
#define COLLVIZ_ERROR_H

/* Bytes of a sentence that may quote a whole path (PATH_MAX, 4096) with
 * its words, or of a path made of a folder's path and a name: the one
 * size of such buffers. */
#define CV_WHY_LEN 4400

#define CV_ERRORS(X)                                                          \
    X(CV_OK, "no error")                                                      \
    X(CV_ERR_NOMEM, "out of memory")                                          \
    X(CV_ERR_ARG, "invalid argument")                                         \
    X(CV_ERR_RANKS, "rank count out of range")                                \
    X(CV_ERR_ROOT, "root rank out of range")                                  \
    X(CV_ERR_IN_PLACE, "the collective has no in-place form")                 \
    X(CV_ERR_ALGO, "algorithm does not fit the collective")                   \
    X(CV_ERR_STEP, "transfer added outside a step")                           \
    X(CV_ERR_BOUNDS, "transfer outside its buffer")                           \
    X(CV_ERR_SENDWRITE, "transfer writes a send buffer")                      \
    X(CV_ERR_MISSING, "result element never written")                         \
    X(CV_ERR_UNINIT, "reduction into an element holding no data")            \
    X(CV_ERR_MIXED, "reduction of elements from different positions")        \
    X(CV_ERR_TWICE, "a rank's input reduced twice into one element")          \
    X(CV_ERR_WRONG, "final state differs from the collective's definition")   \
    X(CV_ERR_BACKEND, "backend failure")                                      \
    X(CV_ERR_UNAVAILABLE, "backend not available")                            \
    X(CV_ERR_CANCELLED, "cancelled")                                          \
    X(CV_ERR_IO, "input/output error")                                       \
    X(CV_ERR_LIMIT, "beyond the largest input collviz takes")

typedef enum {
#define X(id, msg) id,
    CV_ERRORS(X)
#undef X
    CV_ERR_COUNT
} CvError;

/* A short lower-case sentence fragment for e. */
const char *cv_strerror(CvError e);

#endif
