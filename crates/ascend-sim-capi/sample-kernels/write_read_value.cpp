#include "sample_kernels.h"

// This project's own simulator kernel; see README.md.
struct WriteArgs { int *p; int v; };
// Stores the value in p[block] and prints it.
static void writek(aclsimKernelCtx *c, void *a) {
    WriteArgs *w = static_cast<WriteArgs *>(a);
    aclsimStore32(c, w->p + aclsimGetBlockIdx(c), static_cast<uint32_t>(w->v));
    aclsimDcci(c, w->p, ACLSIM_ENTIRE_DATA_CACHE, ACLSIM_CACHELINE_OUT);
    std::printf("Source data: %d\n", w->v);
}
// Loads p[block] and prints it.
static void readk(aclsimKernelCtx *c, void *a) {
    int *p = *static_cast<int **>(a);
    int v = static_cast<int>(aclsimLoad32(c, p + aclsimGetBlockIdx(c)));
    std::printf("Destination data: %d\n", v);
}
void WriteDo(uint32_t blockDim, void *stream, int *devPtr, int value) {
    WriteArgs w{devPtr, value};
    aclsimLaunchKernel(writek, blockDim, &w, sizeof w, stream);
}
void ReadDo(uint32_t blockDim, void *stream, int *devPtr) { aclsimLaunchKernel(readk, blockDim, &devPtr, sizeof devPtr, stream); }
