#include "sample_kernels.h"

// This project's own simulator kernel; see README.md.
#include <cstring>
struct VaddArgs { float *a, *b, *dst; float alpha; uint32_t n; };
static uint32_t bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
static float flt(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
// dst[i] = a[i] + alpha * b[i], scalar loads and stores through the data cache, then dcci.
static void vaddk(aclsimKernelCtx *c, void *p) {
    VaddArgs *g = static_cast<VaddArgs *>(p);
    for (uint32_t i = 0; i < g->n; i++)
        aclsimStore32(c, g->dst + i, bits(flt(aclsimLoad32(c, g->a + i)) + g->alpha * flt(aclsimLoad32(c, g->b + i))));
    aclsimDcci(c, g->dst, ACLSIM_ENTIRE_DATA_CACHE, ACLSIM_CACHELINE_OUT);
}
int32_t VectorAddDo(uint32_t blockDim, void *stream, float *srcA, float *srcB, float *dst, float alpha, uint32_t n) {
    VaddArgs g{srcA, srcB, dst, alpha, n};
    return static_cast<int32_t>(aclsimLaunchKernel(vaddk, blockDim, &g, sizeof g, stream));
}
