#include "sample_kernels.h"

// This project's own simulator kernel; see README.md.
// Adds one to x[block].
static void easy(aclsimKernelCtx *c, void *a) {
    uint32_t *x = *static_cast<uint32_t **>(a);
    uint32_t *p = x + aclsimGetBlockIdx(c);
    aclsimStore32(c, p, aclsimLoad32(c, p) + 1);
    aclsimDcci(c, x, ACLSIM_ENTIRE_DATA_CACHE, ACLSIM_CACHELINE_OUT);
}
void EasyOP(uint32_t blockDim, void *stream, uint32_t *x) { aclsimLaunchKernel(easy, blockDim, &x, sizeof x, stream); }
