/*
 * acl_sim.h: kernels for the simulator's AI cores, an extension of this project's
 * libascendcl.so (not part of the vendor's ACL).
 *
 * A kernel is an ordinary C function run once per block, each block on a simulated AI core.
 * It reaches global memory only through the calls below: scalar loads and stores go through
 * the core's data cache; aclsimDcci / aclsimDci maintain it; the local-buffer copies go
 * around it. Every call that touches memory or time yields to the simulator, so a polling
 * kernel and the stream task that releases it interleave the same way on every run.
 *
 * Rules: a kernel calls nothing else of the ACL API, and a load or store is naturally
 * aligned. Reports name a kernel by its function's symbol when the program exports it (link
 * with -rdynamic), else by its address. A fault (an address outside live device memory, a
 * misaligned access, a trap) ends the block there: the call does not return, and the kernel's
 * stream reports the fault at its next synchronize, with the code of its core type (below).
 */
#ifndef ACL_SIM_H_
#define ACL_SIM_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The running block's context: valid only inside the kernel call it is passed to. */
typedef struct aclsimKernelCtx aclsimKernelCtx;

/* A kernel: called once per block with the block's context and its own copy of the
 * arguments given at launch. */
typedef void (*aclsimKernelFunc)(aclsimKernelCtx *ctx, void *args);

/* dcci operands, as AscendC names them. */
#define ACLSIM_SINGLE_CACHE_LINE 0
#define ACLSIM_ENTIRE_DATA_CACHE 1
#define ACLSIM_CACHELINE_ALL 0
#define ACLSIM_CACHELINE_UB 1
#define ACLSIM_CACHELINE_OUT 2
#define ACLSIM_CACHELINE_ATOMIC 3

/* The most bytes of arguments a launch copies. */
#define ACLSIM_MAX_KERNEL_ARGS_SIZE (64 * 1024)

/* Puts `fn` on `stream` (NULL: the default stream) to run on `blockDim` blocks; `argsSize`
 * bytes at `args` are copied now, and each block gets its own copy. Errors: fn NULL,
 * blockDim 0, args NULL with argsSize > 0, argsSize above ACLSIM_MAX_KERNEL_ARGS_SIZE
 * (ACL_ERROR_INVALID_PARAM); a stream that is not live (ACL_ERROR_RT_INVALID_HANDLE) or
 * not of the current context; no current context (ACL_ERROR_RT_CONTEXT_NULL). */
ACL_FUNC_VISIBILITY aclError aclsimLaunchKernel(aclsimKernelFunc fn, uint32_t blockDim,
                                                const void *args, size_t argsSize,
                                                aclrtStream stream);

/* The core type a kernel is built for. It names the kernel's task, and so the code its fault
 * is reported with at the next synchronize: a vector kernel's fault is
 * ACL_ERROR_RT_VECTOR_CORE_EXCEPTION on a chip with separate vector cores, an AI-core
 * kernel's (cube or mixed) ACL_ERROR_RT_AICORE_EXCEPTION, as is every kernel's on a chip
 * without vector cores. aclsimLaunchKernel launches a vector kernel. */
#define ACLSIM_CORE_VECTOR 0
#define ACLSIM_CORE_AICORE 1

/* As aclsimLaunchKernel, for a kernel built for `coreType`; any other value is
 * ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclsimLaunchKernelOnCore(aclsimKernelFunc fn, uint32_t blockDim,
                                                      const void *args, size_t argsSize,
                                                      uint32_t coreType, aclrtStream stream);

/* The block's index (0 .. blockDim-1) and the number of blocks. */
ACL_FUNC_VISIBILITY uint32_t aclsimGetBlockIdx(aclsimKernelCtx *ctx);
ACL_FUNC_VISIBILITY uint32_t aclsimGetBlockNum(aclsimKernelCtx *ctx);

/* Scalar loads and stores through the core's data cache. */
ACL_FUNC_VISIBILITY uint8_t aclsimLoad8(aclsimKernelCtx *ctx, const void *gm);
ACL_FUNC_VISIBILITY uint16_t aclsimLoad16(aclsimKernelCtx *ctx, const void *gm);
ACL_FUNC_VISIBILITY uint32_t aclsimLoad32(aclsimKernelCtx *ctx, const void *gm);
ACL_FUNC_VISIBILITY uint64_t aclsimLoad64(aclsimKernelCtx *ctx, const void *gm);
ACL_FUNC_VISIBILITY void aclsimStore8(aclsimKernelCtx *ctx, void *gm, uint8_t v);
ACL_FUNC_VISIBILITY void aclsimStore16(aclsimKernelCtx *ctx, void *gm, uint16_t v);
ACL_FUNC_VISIBILITY void aclsimStore32(aclsimKernelCtx *ctx, void *gm, uint32_t v);
ACL_FUNC_VISIBILITY void aclsimStore64(aclsimKernelCtx *ctx, void *gm, uint64_t v);

/* Clean and invalidate the data cache: the line holding gm (entire 0) or all of it
 * (entire 1); type is ACLSIM_CACHELINE_*. */
ACL_FUNC_VISIBILITY void aclsimDcci(aclsimKernelCtx *ctx, const void *gm, uint64_t entire,
                                    uint64_t type);
/* Invalidate the whole data cache, writing nothing back. */
ACL_FUNC_VISIBILITY void aclsimDci(aclsimKernelCtx *ctx);

/* Copies between global memory and a local buffer (around the data cache). */
ACL_FUNC_VISIBILITY void aclsimCopyGmToLocal(aclsimKernelCtx *ctx, void *local, const void *gm,
                                             size_t n);
ACL_FUNC_VISIBILITY void aclsimCopyLocalToGm(aclsimKernelCtx *ctx, void *gm, const void *local,
                                             size_t n);

/* Spends `cycles` core cycles. */
ACL_FUNC_VISIBILITY void aclsimSpin(aclsimKernelCtx *ctx, uint64_t cycles);

/* Ends the block with a fault, as a trap instruction does: the kernel's stream reports it,
 * with `reason` (NULL: a default text), at its next synchronize. Does not return. */
ACL_FUNC_VISIBILITY void aclsimTrap(aclsimKernelCtx *ctx, const char *reason);

#ifdef __cplusplus
}
#endif

#endif /* ACL_SIM_H_ */
