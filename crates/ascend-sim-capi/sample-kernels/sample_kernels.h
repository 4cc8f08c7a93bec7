/*
 * Simulator kernels with the entry points of the shared kernel library that the vendor's
 * runtime samples link (their kernel_func folder): a sample compiled against this project's
 * headers and linked with these files instead of its Ascend C kernels runs unchanged on the
 * simulator. Each kernel does what the sample's kernel does, through acl_sim.h, so its data
 * cache, dcci and timing are simulated. This project's own code; the names and argument
 * lists are those the samples call.
 */
#ifndef ASCEND_SIM_SAMPLE_KERNELS_H_
#define ASCEND_SIM_SAMPLE_KERNELS_H_

#include <cstdint>
#include <cstdio>

#include "acl/acl.h"
#include "acl/acl_sim.h"

void EasyOP(uint32_t blockDim, void *stream, uint32_t *x);                 /* x[block] += 1 */
void ErrorOP(uint32_t blockDim, void *stream);                            /* traps */
void LongOP(uint32_t blockDim, void *stream, uint32_t *x);                 /* ~1.4 s, x[block] += 1 */
void ShortOP(uint32_t blockDim, void *stream, uint32_t *x);                /* x[block] *= 2 */
void WriteDo(uint32_t blockDim, void *stream, int *devPtr, int value);    /* p[block] = value */
void ReadDo(uint32_t blockDim, void *stream, int *devPtr);                 /* prints p[block] */
void PrintDo(uint32_t blockDim, void *stream);                            /* prints Hello World */
void AddDo(uint32_t blockDim, void *stream, float *srcA, float *srcB, float *dst, uint32_t totalSize);
/* The binary function add_custom of the kernel samples, found by name (ASCEND_SIM_KERNELS). */
extern "C" void add_custom(aclsimKernelCtx *c, void *args);
int32_t VectorAddDo(uint32_t blockDim, void *stream, float *srcA, float *srcB, float *dst, float alpha,
                    uint32_t elementCount);

#endif
