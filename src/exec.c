/* exec.c - the backends this build knows, by name.
 *
 * threads is always built in. cuda (src/gpu/) and mpi are built in by
 * CUDA=1 and MPI=1, which define COLLVIZ_CUDA and COLLVIZ_MPI; without them
 * they are still known by name, so that asking for one gets a sentence
 * saying how to get it rather than "unknown". */
#include "exec.h"

#include <stdio.h>
#include <strings.h>

#include "exec_threads.h"

#ifdef COLLVIZ_CUDA
extern const ExecOps exec_cuda_ops;
#endif
#ifdef COLLVIZ_MPI
extern const ExecOps exec_mpi_ops;
#endif

/* A backend by name: its table when built in, else how to build it. */
typedef struct {
    const char *name;     /* what users type */
    const ExecOps *ops;   /* the table, or NULL when not built in */
    const char *missing;  /* the sentence when not built in */
} Backend;

static const Backend backends[] = {
    {"threads", &exec_threads_ops, NULL},
#ifdef COLLVIZ_CUDA
    {"cuda", &exec_cuda_ops, NULL},
#else
    {"cuda", NULL, "the cuda backend is not built into this collviz; rebuild "
                   "with CUDA=1 on a machine with the CUDA toolkit"},
#endif
#ifdef COLLVIZ_MPI
    {"mpi", &exec_mpi_ops, NULL},
#else
    {"mpi", NULL, "the mpi backend is not built into this collviz; rebuild "
                  "with MPI=1 on a machine with Open MPI (mpicc)"},
#endif
};

#define NBACKENDS (sizeof backends / sizeof backends[0])

const char *exec_name_at(size_t i)
{
    return i < NBACKENDS ? backends[i].name : NULL;
}

/* "threads, cuda, mpi" */
static void list_names(char *out, size_t len)
{
    size_t at = 0;
    out[0] = 0;
    for (size_t i = 0; i < NBACKENDS && at < len; i++) {
        int n = snprintf(out + at, len - at, "%s%s", i ? ", " : "",
                         backends[i].name);
        if (n < 0)
            break;
        at += (size_t)n;
    }
}

const ExecOps *exec_find(const char *name, char *why, size_t whylen)
{
    for (size_t i = 0; name && i < NBACKENDS; i++) {
        if (strcasecmp(name, backends[i].name))
            continue;
        if (!backends[i].ops && why && whylen)
            snprintf(why, whylen, "%s", backends[i].missing);
        return backends[i].ops;
    }
    if (why && whylen) {
        char names[64];
        list_names(names, sizeof names);
        snprintf(why, whylen, "there is no backend called '%s'; the backends "
                 "are %s", name ? name : "", names);
    }
    return NULL;
}
