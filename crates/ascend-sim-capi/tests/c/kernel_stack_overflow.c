/* A C kernel that recurses past its stack (ASCEND_SIM_KERNEL_STACK, set small by the test),
 * or whose one frame is several times its stack, faults its block with a message saying so;
 * the process goes on, and the same stream runs a kernel that stays within its stack, three
 * times over. */
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_sim.h"
#include "check.h"

/* 1 KiB per frame, kept by the volatile array and the addition after the call. */
static uint64_t deep(uint64_t n) {
    volatile uint64_t frame[128];
    frame[n % 128] = n;
    if (n == 0) return 0;
    return deep(n - 1) + frame[n % 128];
}

static void overflows(aclsimKernelCtx *ctx, void *args) {
    uint64_t *flag = *(uint64_t **)args;
    aclsimStore64(ctx, flag, 7);
    aclsimDcci(ctx, flag, 0, 2);
    aclsimStore64(ctx, flag + 1, deep(1000000));
}

/* One frame of 512 KiB, four times the stack: it lands in the guard region below the stack. */
static void big_frame(aclsimKernelCtx *ctx, void *args) {
    uint64_t *flag = *(uint64_t **)args;
    volatile char buf[512 * 1024];
    buf[0] = 1;
    aclsimStore64(ctx, flag + 1, (uint64_t)buf[0]);
}

static void shallow(aclsimKernelCtx *ctx, void *args) {
    uint64_t *flag = *(uint64_t **)args;
    aclsimStore64(ctx, flag + 2, deep(20));
    aclsimDcci(ctx, flag + 2, 0, 2);
}

int main(void) {
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    CHECK(aclrtCreateStream(&s));
    void *flag = NULL;
    CHECK(aclrtMalloc(&flag, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
    for (int round = 0; round < 6; round++) {
        CHECK(aclrtMemset(flag, 64, 0, 64));
        if (round % 2 == 0) {
            CHECK(aclsimLaunchKernel(overflows, 1, &flag, sizeof flag, s));
        } else {
            CHECK(aclrtMemset(flag, 8, 7, 1)); /* the word the recursing kernel stores */
            CHECK(aclsimLaunchKernel(big_frame, 1, &flag, sizeof flag, s));
        }
        aclError code = aclrtSynchronizeStream(s);
        const char *msg = aclGetRecentErrMsg();
        printf("round %d: code %d, recent: %s\n", round, code, msg ? msg : "(null)");
        if (code == ACL_SUCCESS || msg == NULL || strstr(msg, "overflowed its stack") == NULL) {
            fprintf(stderr, "the overflow was not a fault of its block saying so\n");
            failures++;
        }
        uint64_t host[3] = {0, 0, 0};
        CHECK(aclrtMemcpy(host, sizeof host, flag, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
        if (host[0] != 7 || host[1] != 0) {
            fprintf(stderr, "round %d: words %llu %llu, expected 7 0\n", round,
                    (unsigned long long)host[0], (unsigned long long)host[1]);
            failures++;
        }
        CHECK(aclsimLaunchKernel(shallow, 1, &flag, sizeof flag, s));
        CHECK(aclrtSynchronizeStream(s));
        CHECK(aclrtMemcpy(host, sizeof host, flag, sizeof host, ACL_MEMCPY_DEVICE_TO_HOST));
        if (host[2] != 210) {
            fprintf(stderr, "round %d: the shallow kernel stored %llu, expected 210\n", round,
                    (unsigned long long)host[2]);
            failures++;
        }
    }
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    FINISH();
}
