/* libpath.h - opening the driver's and NCCL's libraries only from where
 * they belong: a file the user named by its absolute path (COLLVIZ_LIBCUDA,
 * COLLVIZ_LIBNCCL), or the soname through the system's search. An empty
 * or relative element of LD_LIBRARY_PATH makes the loader look in the
 * current folder for the library and for every library it needs
 * (exec_libpath_unsafe): collviz drops such elements and starts again
 * before it loads anything (main.c), and where they are still there (a
 * test program, a start again that failed) nothing is opened; see
 * README.md. */
#ifndef COLLVIZ_GPU_LIBPATH_H
#define COLLVIZ_GPU_LIBPATH_H
#include <stddef.h>

typedef enum {
    GPU_LIB_OK,      /* opened */
    GPU_LIB_MISSING, /* the soname is not installed: why holds the
                        loader's words, for the caller's sentence */
    GPU_LIB_REFUSED, /* why holds the whole sentence: an unsafe
                        LD_LIBRARY_PATH, or env naming a file that is
                        not absolute or does not load */
} GpuLib;

/* dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE: it stays loaded) the
 * library soname ("libcuda.so.1"), or the file environment variable env
 * names, into *h (NULL unless GPU_LIB_OK). */
GpuLib gpu_lib_open(const char *soname, const char *env, void **h,
                    char *why, size_t whylen);
#endif
