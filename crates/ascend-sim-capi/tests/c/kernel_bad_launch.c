/* aclsimLaunchKernel's checks at launch, and a kernel that faults at execution: every bad
 * input gets its error code, a fault the code of the kernel's core type, nothing crashes, and
 * the stream goes on afterwards. */
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_sim.h"
#include "check.h"

static void nothing(aclsimKernelCtx *ctx, void *args) {
    (void)ctx;
    (void)args;
}

static void wild(aclsimKernelCtx *ctx, void *args) {
    (void)args;
    aclsimStore64(ctx, (void *)(uintptr_t)8, 1); /* not device memory */
    aclsimStore64(ctx, (void *)(uintptr_t)16, 1); /* never reached */
}

/* Each refusal returns its code and leaves a message naming the call. */
#define EXPECT(call, want)                                                              \
    do {                                                                                \
        aclError e_ = (call);                                                           \
        if (e_ != (want)) {                                                             \
            fprintf(stderr, "%s:%d: %s returned %d, expected %d\n", __FILE__, __LINE__, \
                    #call, e_, (want));                                                 \
            failures++;                                                                 \
        }                                                                               \
        const char *m_ = aclGetRecentErrMsg();                                          \
        if (m_ == NULL || strstr(m_, "aclsimLaunchKernel") == NULL) {                   \
            fprintf(stderr, "%s:%d: %s left message %s\n", __FILE__, __LINE__, #call,   \
                    m_ ? m_ : "(none)");                                                \
            failures++;                                                                 \
        }                                                                               \
    } while (0)

int main(void) {
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    CHECK(aclrtCreateStream(&s));
    char args[16] = {0};
    EXPECT(aclsimLaunchKernel(NULL, 1, NULL, 0, s), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclsimLaunchKernel(nothing, 0, NULL, 0, s), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclsimLaunchKernel(nothing, 1, NULL, 8, s), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclsimLaunchKernel(nothing, 1, args, ACLSIM_MAX_KERNEL_ARGS_SIZE + 1, s),
           ACL_ERROR_INVALID_PARAM);
    EXPECT(aclsimLaunchKernel(nothing, 1, args, sizeof args, (aclrtStream)(uintptr_t)0x1234),
           ACL_ERROR_RT_INVALID_HANDLE);
    CHECK(aclsimLaunchKernel(wild, 4, args, sizeof args, s));
    aclError code = aclrtSynchronizeStream(s);
    const char *msg = aclGetRecentErrMsg();
    printf("fault code: %d\nrecent: %s\n", code, msg ? msg : "(null)");
    /* A vector kernel's fault on a chip with vector cores. */
    if (code != ACL_ERROR_RT_VECTOR_CORE_EXCEPTION) failures++;
    /* The core type: an AI-core kernel's fault is an AI-core exception; an unknown type is
     * refused at launch. */
    EXPECT(aclsimLaunchKernelOnCore(nothing, 1, NULL, 0, 2, s), ACL_ERROR_INVALID_PARAM);
    CHECK(aclsimLaunchKernelOnCore(wild, 1, NULL, 0, ACLSIM_CORE_AICORE, s));
    code = aclrtSynchronizeStream(s);
    if (code != ACL_ERROR_RT_AICORE_EXCEPTION) {
        fprintf(stderr, "AI-core kernel fault: %d\n", code);
        failures++;
    }
    CHECK(aclsimLaunchKernelOnCore(nothing, 1, NULL, 0, ACLSIM_CORE_VECTOR, s));
    CHECK(aclsimLaunchKernel(nothing, 2, NULL, 0, s));
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    FINISH();
}
