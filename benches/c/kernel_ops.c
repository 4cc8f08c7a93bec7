/* Kernel operations through libascendcl.so, for whole-process timing (benches/README.md says
 * how to build and run it): BLOCKS blocks each walk their own 64 KiB slice of device memory
 * at a 64-byte stride, ROUNDS times, doing an 8-byte store, a load and a dcci of the line at
 * each step (3 operations). Prints the operations run and checks every block's sum. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include "acl/acl.h"
#include "acl/acl_sim.h"

#define SLICE (64 * 1024)
#define STRIDE 64

struct args { char *base; long rounds; };

static void walk(aclsimKernelCtx *ctx, void *p) {
    struct args *a = (struct args *)p;
    uint32_t b = aclsimGetBlockIdx(ctx);
    char *mine = a->base + (size_t)b * (SLICE + 8);
    uint64_t sum = 0;
    for (long r = 0; r < a->rounds; r++) {
        for (long off = 0; off < SLICE; off += STRIDE) {
            aclsimStore64(ctx, mine + off, (uint64_t)(r + off));
            sum += aclsimLoad64(ctx, mine + off);
            aclsimDcci(ctx, mine + off, ACLSIM_SINGLE_CACHE_LINE, ACLSIM_CACHELINE_OUT);
        }
    }
    aclsimStore64(ctx, mine + SLICE, sum);
    aclsimDcci(ctx, mine + SLICE, ACLSIM_SINGLE_CACHE_LINE, ACLSIM_CACHELINE_OUT);
}

int main(int argc, char **argv) {
    uint32_t blocks = argc > 1 ? (uint32_t)atol(argv[1]) : 1;
    long rounds = argc > 2 ? atol(argv[2]) : 10;
    if (aclInit(NULL) || aclrtSetDevice(0)) { fprintf(stderr, "init failed\n"); return 1; }
    size_t bytes = (size_t)blocks * (SLICE + 8);
    void *base = NULL;
    if (aclrtMalloc(&base, bytes, ACL_MEM_MALLOC_NORMAL_ONLY)) { fprintf(stderr, "malloc\n"); return 1; }
    aclrtStream s; aclrtCreateStream(&s);
    struct args a = { (char *)base, rounds };
    if (aclsimLaunchKernel(walk, blocks, &a, sizeof a, s) || aclrtSynchronizeStream(s)) {
        fprintf(stderr, "kernel failed: %s\n", aclGetRecentErrMsg()); return 1;
    }
    uint64_t expect = 0;
    for (long r = 0; r < rounds; r++)
        for (long off = 0; off < SLICE; off += STRIDE) expect += (uint64_t)(r + off);
    for (uint32_t b = 0; b < blocks; b++) {
        uint64_t got = 0;
        aclrtMemcpy(&got, 8, (char *)base + (size_t)b * (SLICE + 8) + SLICE, 8, ACL_MEMCPY_DEVICE_TO_HOST);
        if (got != expect) { fprintf(stderr, "block %u: sum %llu, expected %llu\n", b,
                                     (unsigned long long)got, (unsigned long long)expect); return 1; }
    }
    long ops = (long)blocks * rounds * (SLICE / STRIDE) * 3;
    printf("%ld kernel operations in %u block(s), sums correct\n", ops, blocks);
    aclrtDestroyStream(s); aclrtFree(base); aclrtResetDevice(0); aclFinalize();
    return 0;
}
