#include "sample_kernels.h"

// This project's own simulator kernel; see README.md.
// Traps at once.
static void errk(aclsimKernelCtx *c, void *) { aclsimTrap(c, "ErrorOP executes a trap instruction"); }
void ErrorOP(uint32_t blockDim, void *stream) { aclsimLaunchKernel(errk, blockDim, nullptr, 0, stream); }
