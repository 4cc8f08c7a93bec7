#include "sample_kernels.h"

// This project's own simulator kernel; see README.md.
#include <vector>
#include <cstring>
struct AddArgs { float *a, *b, *dst; uint32_t n; };
// dst = a + b over this block's share of n elements, through local buffers.
static void addk(aclsimKernelCtx *c, void *p) {
    AddArgs *g = static_cast<AddArgs *>(p);
    uint32_t blocks = aclsimGetBlockNum(c), per = g->n / blocks, start = aclsimGetBlockIdx(c) * per;
    std::vector<float> x(per), y(per);
    aclsimCopyGmToLocal(c, x.data(), g->a + start, per * sizeof(float));
    aclsimCopyGmToLocal(c, y.data(), g->b + start, per * sizeof(float));
    for (uint32_t i = 0; i < per; i++) x[i] += y[i];
    aclsimCopyLocalToGm(c, g->dst + start, x.data(), per * sizeof(float));
}
void AddDo(uint32_t blockDim, void *stream, float *srcA, float *srcB, float *dst, uint32_t totalSize) {
    AddArgs g{srcA, srcB, dst, totalSize};
    aclsimLaunchKernel(addk, blockDim, &g, sizeof g, stream);
}
