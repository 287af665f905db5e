/* image.c - the step kernel's image, embedded at build time: a fatbin
 * (PTX for compute_75 and SASS for sm_90) where nvcc built it, else PTX
 * from clang; empty in a build without kernels (CUDA_KERNELS=0). The
 * Makefile names the file (GPU_IMAGE_PATH); a 0 byte follows it, so PTX
 * is a C string as cuModuleLoadData wants; GPU_IMAGE_BY names the
 * compiler that made it ("nvcc 13.0", "clang 14.0.6"). */
#include "gpu/gpu_impl.h"

#define GPU_STR2(x) #x
#define GPU_STR(x) GPU_STR2(x)

__asm__(".section .rodata\n"
        ".balign 64\n"
        ".globl collviz_gpu_image\n"
        ".hidden collviz_gpu_image\n"
        "collviz_gpu_image:\n"
        ".incbin " GPU_STR(GPU_IMAGE_PATH) "\n"
        ".globl collviz_gpu_image_end\n"
        ".hidden collviz_gpu_image_end\n"
        "collviz_gpu_image_end:\n"
        ".byte 0\n"
        ".previous\n");

extern const unsigned char collviz_gpu_image[], collviz_gpu_image_end[];

const char *gpu_image_by(void)
{
    return GPU_IMAGE_BY;
}

const unsigned char *gpu_image(size_t *len)
{
    *len = (size_t)(collviz_gpu_image_end - collviz_gpu_image);
    return collviz_gpu_image;
}
