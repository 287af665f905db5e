/* libpath.c - the driver's and NCCL's libraries from where they belong
 * (libpath.h). */
#include "gpu/libpath.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "exec/exec.h"

/* The driver and NCCL stay loaded once opened (RTLD_NODELETE): unloading
 * them runs NCCL's atexit handlers and proxy threads' teardown and makes
 * the next executor initialise the driver again (the TUI opens and closes
 * executors often). dlclose only drops the reference. */
#define LIB_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)

GpuLib gpu_lib_open(const char *soname, const char *env, void **h,
                    char *why, size_t whylen)
{
    const char *named = getenv(env), *llp = getenv("LD_LIBRARY_PATH");
    *h = NULL;
    if (llp && exec_libpath_unsafe(llp)) {
        snprintf(why, whylen, "LD_LIBRARY_PATH has an empty or relative "
                 "element, which would load %s's own libraries from the "
                 "current folder: remove it", soname);
        return GPU_LIB_REFUSED;
    }
    if (named && *named && named[0] != '/') {
        snprintf(why, whylen, "%s must name the library by its absolute "
                 "path, not '%.200s'", env, named);
        return GPU_LIB_REFUSED;
    }
    const char *file = named && *named ? named : soname;
    *h = dlopen(file, LIB_FLAGS);
    if (*h)
        return GPU_LIB_OK;
    const char *d = dlerror();
    if (file == named) {
        snprintf(why, whylen, "%s names %.300s, which does not load (%s)",
                 env, named, d ? d : "dlopen failed");
        return GPU_LIB_REFUSED;
    }
    snprintf(why, whylen, "%s", d ? d : "dlopen failed");
    return GPU_LIB_MISSING;
}
