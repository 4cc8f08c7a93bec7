#include "sample_kernels.h"

// This project's own simulator kernel; see README.md.
// The binary function `add_custom` of the kernel samples (kernel/0_launch_kernel,
// host_register, managed_memory): z = x + y over 8 blocks of 2048 halves, each block its share,
// through local buffers. Its arguments are the three device pointers (any placeholders after
// them carry the same fixed sizes and are not read).
extern "C" void add_custom(aclsimKernelCtx *c, void *args) {
    const uint32_t block_length = 2048;
    uint16_t **p = static_cast<uint16_t **>(args);
    uint16_t *x = p[0], *y = p[1], *z = p[2];
    const uint32_t start = aclsimGetBlockIdx(c) * block_length;
    // The local buffers live on the block's own stack: blocks take turns on one thread, so a
    // static or thread-local buffer would be shared between them.
    uint16_t a[2048], b[2048];
    aclsimCopyGmToLocal(c, a, x + start, sizeof a);
    aclsimCopyGmToLocal(c, b, y + start, sizeof b);
    for (uint32_t i = 0; i < block_length; i++)
        a[i] = aclFloatToFloat16(aclFloat16ToFloat(a[i]) + aclFloat16ToFloat(b[i]));
    aclsimCopyLocalToGm(c, z + start, a, sizeof a);
}
