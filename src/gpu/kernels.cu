/* kernels.cu - the step kernel: one launch runs every chunk of a plan
 * (kern.h) on one device. Compiled to PTX (and, with nvcc, SASS for
 * sm_90) at build time and embedded in the binary (image.c); needs no
 * CUDA header, so clang compiles it where no toolkit is installed. */
#if defined(__NVCC__)
#define K_TID threadIdx.x
#define K_NTID blockDim.x
#define K_BID blockIdx.x
#define K_NBID gridDim.x
#else /* clang -x cuda -nocudainc: the few declarations it needs */
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define K_TID __nvvm_read_ptx_sreg_tid_x()
#define K_NTID __nvvm_read_ptx_sreg_ntid_x()
#define K_BID __nvvm_read_ptx_sreg_ctaid_x()
#define K_NBID __nvvm_read_ptx_sreg_nctaid_x()
#endif

#include "kern.h"

extern "C" __global__ void collviz_step(const KChunk *plan,
                                        unsigned int nchunks,
                                        unsigned int dtype, unsigned int op,
                                        unsigned int nranks)
{
    for (unsigned int c = K_BID; c < nchunks; c += K_NBID) {
        KChunk ch = plan[c];
        kern_chunk(&ch, dtype, op, nranks, K_TID, K_NTID);
    }
}
