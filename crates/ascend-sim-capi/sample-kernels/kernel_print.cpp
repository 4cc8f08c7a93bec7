#include "sample_kernels.h"

// This project's own simulator kernel; see README.md.
static void printk(aclsimKernelCtx *, void *) { std::printf("Hello World\n"); }
void PrintDo(uint32_t blockDim, void *stream) { aclsimLaunchKernel(printk, blockDim, nullptr, 0, stream); }
