/* The developer guide's memory-semantic synchronisation between stream tasks and kernels,
 * with myKernel1 (store 1 to the flag, dcci its line) and myKernel2 (spin until the flag is 2,
 * dcci before each read) as simulator kernels. Stream 1 waits for 1, then runs myKernel2;
 * stream 2 runs myKernel1, then (after a delay kernel, so that myKernel2 polls for a while)
 * writes 2.
 *
 * Argument: "ok" (default), "no-writer-dcci" or "no-poller-dcci" leave out one dcci. The
 * program prints the synchronize's code and aclGetRecentErrMsg for the test to check. */
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_sim.h"
#include "check.h"

typedef struct {
    uint64_t *flag;
    int dcci;
} FlagArgs;

void myKernel1(aclsimKernelCtx *ctx, void *args) {
    FlagArgs *a = (FlagArgs *)args;
    aclsimStore64(ctx, a->flag, 1);
    if (a->dcci) aclsimDcci(ctx, a->flag, ACLSIM_SINGLE_CACHE_LINE, ACLSIM_CACHELINE_OUT);
}

void myKernel2(aclsimKernelCtx *ctx, void *args) {
    FlagArgs *a = (FlagArgs *)args;
    for (;;) {
        if (a->dcci) aclsimDcci(ctx, a->flag, ACLSIM_SINGLE_CACHE_LINE, ACLSIM_CACHELINE_OUT);
        if (aclsimLoad64(ctx, a->flag) == 2) break;
        aclsimSpin(ctx, 100);
    }
}

void delayKernel(aclsimKernelCtx *ctx, void *args) {
    (void)args;
    aclsimSpin(ctx, 50000);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "ok";
    int ok = strcmp(mode, "ok") == 0;
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream s1 = NULL, s2 = NULL;
    CHECK(aclrtCreateStream(&s1));
    CHECK(aclrtCreateStream(&s2));
    void *flag = NULL;
    CHECK(aclrtMalloc(&flag, 8, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemset(flag, 8, 0, 8));

    FlagArgs writer = {(uint64_t *)flag, strcmp(mode, "no-writer-dcci") != 0};
    FlagArgs poller = {(uint64_t *)flag, strcmp(mode, "no-poller-dcci") != 0};
    CHECK(aclrtValueWait(flag, 1, ACL_STREAM_WAIT_VALUE_EQ, s1));
    CHECK(aclsimLaunchKernel(myKernel1, 1, &writer, sizeof writer, s2));
    CHECK(aclsimLaunchKernel(myKernel2, 1, &poller, sizeof poller, s1));
    CHECK(aclsimLaunchKernel(delayKernel, 1, NULL, 0, s2));
    CHECK(aclrtValueWrite(flag, 2, 0, s2));

    CHECK(aclrtSynchronizeStream(s2));
    aclError code = aclrtSynchronizeStream(s1);
    const char *msg = aclGetRecentErrMsg();
    printf("code: %d\nrecent: %s\n", code, msg ? msg : "(null)");
    if (ok) {
        CHECK(code);
        uint64_t value = 0;
        CHECK(aclrtMemcpy(&value, 8, flag, 8, ACL_MEMCPY_DEVICE_TO_HOST));
        printf("flag: %llu\n", (unsigned long long)value);
        if (value != 2) failures++;
    }
    CHECK(aclrtDestroyStreamForce(s1));
    CHECK(aclrtDestroyStream(s2));
    CHECK(aclrtFree(flag));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    FINISH();
}
