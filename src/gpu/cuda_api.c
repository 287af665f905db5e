/* cuda_api.c - the driver, opened with dlopen and resolved through
 * cuGetProcAddress (cuda_api.h), and the sentences for why it cannot be
 * used. */
#include "gpu/cuda_api.h"
#include "gpu/libpath.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cuGetProcAddress as drivers since 12.0 export it (cuGetProcAddress_v2,
 * with a status), and as older ones do. */
typedef CUresult (*GetProc2)(const char *sym, void **fn, int version,
                             unsigned long long flags, int *status);
typedef CUresult (*GetProc1)(const char *sym, void **fn, int version,
                             unsigned long long flags);

void cuda_why(CudaWhy w, const char *detail, char *why, size_t whylen)
{
    const char *d = detail && *detail ? detail : "";
    switch (w) {
    case CUDA_OK:
        snprintf(why, whylen, "%s", "");
        break;
    case CUDA_NO_LIBRARY:
        snprintf(why, whylen, "the cuda backend needs the NVIDIA driver's "
                 "library libcuda.so.1, which this machine does not have "
                 "(%s)", d[0] ? d : "dlopen failed");
        break;
    case CUDA_NO_SYMBOL:
        snprintf(why, whylen, "the NVIDIA driver's library here is too old "
                 "for the cuda backend: it has no %s", d);
        break;
    case CUDA_STUB:
        snprintf(why, whylen, "the libcuda.so.1 found here is the CUDA "
                 "toolkit's stub, not a driver (CUDA_ERROR_STUB_LIBRARY, "
                 "34): this machine has no NVIDIA driver installed");
        break;
    case CUDA_NO_DEVICE:
        snprintf(why, whylen, "the NVIDIA driver found no CUDA device on "
                 "this machine (CUDA_ERROR_NO_DEVICE, 100)");
        break;
    case CUDA_INIT_FAILED:
        snprintf(why, whylen, "the NVIDIA driver could not start: %s", d);
        break;
    case CUDA_NO_KERNELS:
        snprintf(why, whylen, "this collviz was built without its CUDA "
                 "kernels (neither nvcc nor clang could compile them); "
                 "rebuild where one of them can");
        break;
    }
}

const char *cuda_errstr(const CudaApi *api, CUresult e)
{
    const char *s = NULL;
    if (api->cuGetErrorString && api->cuGetErrorString(e, &s) == CUDA_SUCCESS
        && s)
        return s;
    return "an error the driver does not name";
}

CudaFault cuda_fault(CUresult e)
{
    switch (e) {
    case 226: /* CUDA_ERROR_CONTAINED */
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case 710: /* CUDA_ERROR_ASSERT: a device-side assert */
    case 911: /* CUDA_ERROR_EXTERNAL_DEVICE */
    case 999: /* CUDA_ERROR_UNKNOWN: what an Xid often comes back as */
        return CUDA_FAULT_CONTEXT;
    case 721: /* CUDA_ERROR_TENSOR_MEMORY_LEAK */
    case 806: /* CUDA_ERROR_MPS_RPC_FAILURE */
    case 810: /* CUDA_ERROR_MPS_CLIENT_TERMINATED */
        return CUDA_FAULT_PROCESS;
    default:
        return CUDA_FAULT_NONE;
    }
}

static atomic_uint resets[CUDA_MAX_ORDINALS];
static atomic_int fatal;

void cuda_note_reset(int ord)
{
    if (ord >= 0 && ord < CUDA_MAX_ORDINALS)
        atomic_fetch_add(&resets[ord], 1);
}

unsigned cuda_resets(int ord)
{
    return ord >= 0 && ord < CUDA_MAX_ORDINALS ? atomic_load(&resets[ord])
                                               : 0;
}

void cuda_note_fatal(CUresult e)
{
    int none = CUDA_SUCCESS;
    atomic_compare_exchange_strong(&fatal, &none, (int)e);
}

CUresult cuda_fatal(void)
{
    return (CUresult)atomic_load(&fatal);
}

void cuda_close(CudaApi *api)
{
    if (api->lib)
        dlclose(api->lib);
    memset(api, 0, sizeof *api);
}

/* Resolve every entry point; the name of one missing, or NULL. */
static const char *resolve(CudaApi *api, GetProc2 gp2, GetProc1 gp1)
{
    /* The legacy default stream, said explicitly (0, the default, means
     * the same for a caller that does not define
     * CUDA_API_PER_THREAD_DEFAULT_STREAM). */
    const unsigned long long flags = CU_GET_PROC_ADDRESS_LEGACY_STREAM;
#define X(name, args)                                                         \
    {                                                                         \
        void *fn = NULL;                                                      \
        int st = 0;                                                           \
        CUresult r = gp2 ? gp2(#name, &fn, CUDA_API_VERSION_USED, flags, &st) \
                         : gp1(#name, &fn, CUDA_API_VERSION_USED, flags);     \
        if (r != CUDA_SUCCESS || !fn)                                         \
            return #name;                                                     \
        memcpy(&api->name, &fn, sizeof fn);                                   \
    }
    CUDA_FUNCS(X)
#undef X
    return NULL;
}

/* What to look at when cuInit fails with a system error. */
static const char *init_hint(CUresult r)
{
    switch ((int)r) {
    case 802: /* CUDA_ERROR_SYSTEM_NOT_READY */
        return "; on an NVSwitch machine the fabric manager (nvidia-"
               "fabricmanager) must be running";
    case 803: /* CUDA_ERROR_SYSTEM_DRIVER_MISMATCH */
        return "; the driver's kernel module and libcuda.so.1 are of "
               "different versions: reboot, or reinstall the driver";
    case 805: /* CUDA_ERROR_MPS_CONNECTION_FAILED */
    case 807: /* CUDA_ERROR_MPS_SERVER_NOT_READY */
        return "; the MPS daemon this process was pointed at cannot serve "
               "it (CUDA_MPS_PIPE_DIRECTORY, nvidia-cuda-mps-control)";
    default:
        return "";
    }
}

CudaWhy cuda_open(CudaApi *api, char *why, size_t whylen)
{
    memset(api, 0, sizeof *api);
    if (cuda_fatal()) {
        snprintf(why, whylen, "the GPU hit a fault earlier in this process "
                 "that only a restart clears (CUDA error %d): restart "
                 "collviz", cuda_fatal());
        return CUDA_INIT_FAILED;
    }
    char e[600];
    GpuLib got = gpu_lib_open("libcuda.so.1", "COLLVIZ_LIBCUDA", &api->lib,
                              e, sizeof e);
    if (got != GPU_LIB_OK) {
        if (got == GPU_LIB_MISSING)
            cuda_why(CUDA_NO_LIBRARY, e, why, whylen);
        else
            snprintf(why, whylen, "the cuda backend cannot open the NVIDIA "
                     "driver's library: %s", e);
        return CUDA_NO_LIBRARY;
    }
    void *p2 = dlsym(api->lib, "cuGetProcAddress_v2");
    void *p1 = p2 ? NULL : dlsym(api->lib, "cuGetProcAddress");
    GetProc2 gp2 = NULL;
    GetProc1 gp1 = NULL;
    memcpy(&gp2, &p2, sizeof p2);
    memcpy(&gp1, &p1, sizeof p1);
    const char *missing = !gp2 && !gp1 ? "cuGetProcAddress"
                                       : resolve(api, gp2, gp1);
    CudaWhy w = CUDA_OK;
    char detail[160] = "";
    if (missing) {
        w = CUDA_NO_SYMBOL;
        snprintf(detail, sizeof detail, "%s", missing);
    } else {
        CUresult r = api->cuInit(0);
        int n = 0;
        if (r == CUDA_SUCCESS)
            r = api->cuDeviceGetCount(&n);
        if (r == CUDA_ERROR_STUB_LIBRARY)
            w = CUDA_STUB;
        else if (r == CUDA_ERROR_NO_DEVICE || (r == CUDA_SUCCESS && n < 1))
            w = CUDA_NO_DEVICE;
        else if (r != CUDA_SUCCESS) {
            w = CUDA_INIT_FAILED;
            snprintf(detail, sizeof detail, "cuInit: %s (%d)%s",
                     cuda_errstr(api, r), r, init_hint(r));
        } else if (api->cuDriverGetVersion(&api->version) != CUDA_SUCCESS)
            api->version = 0;
    }
    if (w != CUDA_OK) {
        cuda_why(w, detail, why, whylen);
        cuda_close(api);
    }
    return w;
}
