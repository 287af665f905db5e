/* libpath.h - opening the driver's and NCCL's libraries only from where
 * they belong: a file the user named by its absolute path (COLLVIZ_LIBCUDA,
 * COLLVIZ_LIBNCCL), or the soname through the system's search. An empty
 * or relative element of LD_LIBRARY_PATH (the common '/usr/local/cuda/
 * lib64:' with the variable empty before) makes the loader look in the
 * current folder, so when it has one the search is done here instead:
 * the absolute elements, then the system's library folders; see
 * README.md. */
#ifndef COLLVIZ_GPU_LIBPATH_H
#define COLLVIZ_GPU_LIBPATH_H
#include <stddef.h>

/* dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE: it stays loaded) the
 * library soname ("libcuda.so.1"), or
 * the file environment variable env names: the handle, or NULL and one
 * sentence in why. note (may be NULL) receives a sentence when elements
 * of LD_LIBRARY_PATH were skipped ("" when none were). */
void *gpu_lib_open(const char *soname, const char *env, char *note,
                   size_t notelen, char *why, size_t whylen);
#endif
