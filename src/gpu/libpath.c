/* libpath.c - the driver's and NCCL's libraries from where they belong
 * (libpath.h). */
#include "gpu/libpath.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


/* The driver and NCCL stay loaded once opened (RTLD_NODELETE): unloading
 * them runs NCCL's atexit handlers and proxy threads' teardown and makes
 * the next executor initialise the driver again (the TUI opens and closes
 * executors often). dlclose only drops the reference. */
#define LIB_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)

/* The folders the loader searches by default and where drivers install
 * their libraries, for when LD_LIBRARY_PATH cannot be left to it. */
static const char *const system_dirs[] = {
    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
    "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
    "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/lib/wsl/lib",
};

/* Whether LD_LIBRARY_PATH has an empty or relative element. */
static bool unsafe_path(const char *llp)
{
    for (const char *p = llp; p; p = strchr(p, ':') ? strchr(p, ':') + 1 : NULL)
        if (*p != '/')
            return true;
    return false;
}

/* dlopen dir/soname when it is a regular file there. */
static void *try_dir(const char *dir, size_t n, const char *soname)
{
    char path[4200];
    struct stat st;
    if (n + strlen(soname) + 2 > sizeof path)
        return NULL;
    snprintf(path, sizeof path, "%.*s/%s", (int)n, dir, soname);
    if (stat(path, &st) || !S_ISREG(st.st_mode))
        return NULL;
    return dlopen(path, LIB_FLAGS);
}

/* The search of an unsafe LD_LIBRARY_PATH: its absolute elements in
 * order, then the system's folders. */
static void *search(const char *llp, const char *soname)
{
    void *h = NULL;
    for (const char *p = llp; p && !h;) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        if (n && *p == '/')
            h = try_dir(p, n, soname);
        p = colon ? colon + 1 : NULL;
    }
    for (size_t i = 0; !h && i < sizeof system_dirs / sizeof *system_dirs; i++)
        h = try_dir(system_dirs[i], strlen(system_dirs[i]), soname);
    return h;
}

void *gpu_lib_open(const char *soname, const char *env, char *note,
                   size_t notelen, char *why, size_t whylen)
{
    const char *named = getenv(env), *llp = getenv("LD_LIBRARY_PATH");
    if (note && notelen)
        note[0] = '\0';
    if (named && *named) {
        if (named[0] != '/') {
            snprintf(why, whylen, "%s must name the library by its absolute "
                     "path, not '%.200s'", env, named);
            return NULL;
        }
        void *h = dlopen(named, LIB_FLAGS);
        if (!h)
            snprintf(why, whylen, "%s: %s", named, dlerror());
        return h;
    }
    if (!llp || !unsafe_path(llp)) {
        void *h = dlopen(soname, LIB_FLAGS);
        if (!h) {
            const char *d = dlerror();
            snprintf(why, whylen, "%s", d ? d : "dlopen failed");
        }
        return h;
    }
    if (note && notelen)
        snprintf(note, notelen, "LD_LIBRARY_PATH has an empty or relative "
                 "element, which would load %s from the current folder; it "
                 "was skipped", soname);
    void *h = search(llp, soname);
    if (!h)
        snprintf(why, whylen, "%s was not found in LD_LIBRARY_PATH's absolute "
                 "folders or the system's (its empty or relative elements "
                 "are skipped: they name the current folder; %s can name "
                 "the file by its absolute path)", soname, env);
    return h;
}
