/* error.c - messages of the error codes. */
#include "core/error.h"

static const char *const messages[CV_ERR_COUNT] = {
#define X(id, msg) [id] = msg,
    CV_ERRORS(X)
#undef X
};

const char *cv_strerror(CvError e)
{
    return (unsigned)e < CV_ERR_COUNT ? messages[e] : "unknown error";
}
