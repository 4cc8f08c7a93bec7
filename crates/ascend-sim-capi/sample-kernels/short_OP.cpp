#include "sample_kernels.h"

// This project's own simulator kernel; see README.md.
// Doubles x[block].
static void shortk(aclsimKernelCtx *c, void *a) {
    uint32_t *x = *static_cast<uint32_t **>(a);
    uint32_t *p = x + aclsimGetBlockIdx(c);
    aclsimStore32(c, p, aclsimLoad32(c, p) * 2);
    aclsimDcci(c, x, ACLSIM_ENTIRE_DATA_CACHE, ACLSIM_CACHELINE_OUT);
}
void ShortOP(uint32_t blockDim, void *stream, uint32_t *x) { aclsimLaunchKernel(shortk, blockDim, &x, sizeof x, stream); }
