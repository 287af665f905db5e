/* cuda_api.h - the part of the CUDA driver API the cuda backend uses,
 * declared here (no cuda.h is needed to build collviz) and found at run
 * time: libcuda.so.1 opened with dlopen, each entry point resolved with
 * cuGetProcAddress at the API version these declarations follow (12.0),
 * so versioned symbols (cuMemAlloc_v2, ...) resolve to the right ones.
 *
 * COLLVIZ_LIBCUDA names another driver library to open (a path); the
 * tests point it at their own. */
#ifndef COLLVIZ_GPU_CUDA_API_H
#define COLLVIZ_GPU_CUDA_API_H

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;

/* The values used, as cuda.h numbers them. */
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_LAUNCH_TIMEOUT = 702,
    CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
    CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
    CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
    CUDA_ERROR_MISALIGNED_ADDRESS = 716,
    CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
    CUDA_ERROR_INVALID_PC = 718,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_CAPTURED_EVENT = 907,
    CUDA_ERROR_UNKNOWN = 999,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_STREAM_NON_BLOCKING = 1,
    CU_EVENT_DEFAULT = 0,
    CU_EVENT_DISABLE_TIMING = 0x2,
    CU_EVENT_RECORD_EXTERNAL = 0x1, /* a record inside a capture is a node */
    CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1,
    CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
    CUDA_API_VERSION_USED = 12000,
};

/* The entry points, by their names for cuGetProcAddress. */
#define CUDA_FUNCS(X)                                                         \
    X(cuInit, (unsigned int flags))                                           \
    X(cuDriverGetVersion, (int *version))                                     \
    X(cuGetErrorString, (CUresult e, const char **s))                         \
    X(cuDeviceGetCount, (int *n))                                             \
    X(cuDeviceGet, (CUdevice *d, int ordinal))                                \
    X(cuDeviceGetName, (char *name, int len, CUdevice d))                     \
    X(cuDeviceGetAttribute, (int *v, int attr, CUdevice d))                   \
    X(cuDeviceCanAccessPeer, (int *can, CUdevice d, CUdevice peer))           \
    X(cuDevicePrimaryCtxRetain, (CUcontext *c, CUdevice d))                   \
    X(cuDevicePrimaryCtxRelease, (CUdevice d))                                \
    X(cuDevicePrimaryCtxReset, (CUdevice d))                                  \
    X(cuCtxSetCurrent, (CUcontext c))                                         \
    X(cuCtxEnablePeerAccess, (CUcontext peer, unsigned int flags))            \
    X(cuCtxDisablePeerAccess, (CUcontext peer))                               \
    X(cuModuleLoadData, (CUmodule *m, const void *image))                     \
    X(cuModuleGetFunction, (CUfunction *f, CUmodule m, const char *name))     \
    X(cuModuleUnload, (CUmodule m))                                           \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor,                            \
      (int *blocks, CUfunction f, int block, size_t shared))                  \
    X(cuMemGetInfo, (size_t *free_b, size_t *total_b))                        \
    X(cuMemAlloc, (CUdeviceptr *p, size_t bytes))                             \
    X(cuMemFree, (CUdeviceptr p))                                             \
    X(cuMemAllocHost, (void **p, size_t bytes))                               \
    X(cuMemFreeHost, (void *p))                                               \
    X(cuMemcpyHtoD, (CUdeviceptr dst, const void *src, size_t bytes))         \
    X(cuMemcpyDtoH, (void *dst, CUdeviceptr src, size_t bytes))               \
    X(cuMemcpyHtoDAsync,                                                      \
      (CUdeviceptr dst, const void *src, size_t bytes, CUstream s))           \
    X(cuMemcpyDtoHAsync, (void *dst, CUdeviceptr src, size_t bytes, CUstream s)) \
    X(cuMemcpyPeerAsync, (CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,   \
                          CUcontext sctx, size_t bytes, CUstream s))          \
    X(cuStreamCreate, (CUstream *s, unsigned int flags))                      \
    X(cuStreamDestroy, (CUstream s))                                          \
    X(cuStreamSynchronize, (CUstream s))                                      \
    X(cuStreamQuery, (CUstream s))                                            \
    X(cuStreamWaitEvent, (CUstream s, CUevent e, unsigned int flags))         \
    X(cuEventCreate, (CUevent *e, unsigned int flags))                        \
    X(cuEventDestroy, (CUevent e))                                            \
    X(cuEventRecord, (CUevent e, CUstream s))                                 \
    X(cuEventRecordWithFlags, (CUevent e, CUstream s, unsigned int flags))    \
    X(cuEventQuery, (CUevent e))                                              \
    X(cuEventSynchronize, (CUevent e))                                        \
    X(cuEventElapsedTime, (float *ms, CUevent start, CUevent end))            \
    X(cuLaunchKernel,                                                         \
      (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,       \
       unsigned int bx, unsigned int by, unsigned int bz,                     \
       unsigned int shared, CUstream s, void **params, void **extra))         \
    X(cuStreamBeginCapture, (CUstream s, int mode))                           \
    X(cuStreamEndCapture, (CUstream s, CUgraph *g))                           \
    X(cuGraphInstantiateWithFlags,                                            \
      (CUgraphExec *ge, CUgraph g, unsigned long long flags))                 \
    X(cuGraphLaunch, (CUgraphExec ge, CUstream s))                            \
    X(cuGraphUpload, (CUgraphExec ge, CUstream s))                            \
    X(cuGraphExecDestroy, (CUgraphExec ge))                                   \
    X(cuGraphDestroy, (CUgraph g))

/* The driver, opened: its handle and its entry points. */
typedef struct {
    void *lib;       /* dlopen's handle */
    int version;     /* cuDriverGetVersion: 12040 is 12.4 */
#define X(name, args) CUresult (*name) args;
    CUDA_FUNCS(X)
#undef X
} CudaApi;

/* Where the driver cannot be used, why (cuda_why's sentences). */
typedef enum {
    CUDA_OK,          /* usable */
    CUDA_NO_LIBRARY,  /* no libcuda.so.1 */
    CUDA_NO_SYMBOL,   /* it lacks cuGetProcAddress or an entry point */
    CUDA_STUB,        /* the toolkit's stub library (CUDA_ERROR_STUB_LIBRARY) */
    CUDA_NO_DEVICE,   /* CUDA_ERROR_NO_DEVICE, or no device counted */
    CUDA_INIT_FAILED, /* cuInit's other errors */
    CUDA_NO_KERNELS,  /* this collviz was built without its kernels */
} CudaWhy;

/* Open the driver (COLLVIZ_LIBCUDA, else libcuda.so.1), resolve every
 * entry point and call cuInit. CUDA_OK, or why not with one sentence in
 * why (cuda_why) and nothing left open. */
CudaWhy cuda_open(CudaApi *api, char *why, size_t whylen);
void cuda_close(CudaApi *api);
/* The sentence for w (detail: dlerror's text, a symbol's name, or the
 * driver's error string; may be NULL). */
void cuda_why(CudaWhy w, const char *detail, char *why, size_t whylen);
/* "CUDA_ERROR_OUT_OF_MEMORY (2)"-like text of e, from the driver. */
const char *cuda_errstr(const CudaApi *api, CUresult e);

/* What an error does to the process's CUDA state. A context fault leaves
 * the context unusable until its primary context is reset (every call in
 * it returns the error); a process fault (cuda.h: "the process must be
 * terminated and relaunched") leaves the driver unusable in this process
 * whatever is reset. */
typedef enum {
    CUDA_FAULT_NONE,
    CUDA_FAULT_CONTEXT,
    CUDA_FAULT_PROCESS,
} CudaFault;
CudaFault cuda_fault(CUresult e);

/* Process-wide facts every executor shares, as they share the devices'
 * primary contexts: a reset of device ordinal ord's primary context
 * (cuda_note_reset; cuda_resets counts them, so an executor that opened
 * before one knows its memory and streams went with it), and the first
 * process fault (cuda_note_fatal; cuda_fatal: it, or CUDA_SUCCESS). */
#define CUDA_MAX_ORDINALS 64
void cuda_note_reset(int ord);
unsigned cuda_resets(int ord);
void cuda_note_fatal(CUresult e);
CUresult cuda_fatal(void);

#endif
