#include "sample_kernels.h"

// This project's own simulator kernel; see README.md.
// A long computation (2.5 billion core cycles: 250 million iterations of a few scalar float operations, over a second), then adds one to x[block].
static void longk(aclsimKernelCtx *c, void *a) {
    uint32_t *x = *static_cast<uint32_t **>(a);
    aclsimSpin(c, 2500000000ull);
    uint32_t *p = x + aclsimGetBlockIdx(c);
    aclsimStore32(c, p, aclsimLoad32(c, p) + 1);
    aclsimDcci(c, x, ACLSIM_ENTIRE_DATA_CACHE, ACLSIM_CACHELINE_OUT);
}
void LongOP(uint32_t blockDim, void *stream, uint32_t *x) { aclsimLaunchKernel(longk, blockDim, &x, sizeof x, stream); }
