/* A kernel may call only its context's operations: a kernel that calls the ACL API is faulted
 * with a message naming the call (the call does not return to it), and a context saved by a
 * kernel and used after its kernel returned is refused (the operation does nothing and
 * returns 0) instead of touching a dead frame. The streams go on afterwards. */
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_sim.h"
#include "check.h"

static aclsimKernelCtx *saved = NULL;
static volatile int after_call = 0;

static void calls_set_device(aclsimKernelCtx *ctx, void *args) {
    (void)ctx;
    (void)args;
    aclrtSetDevice(0);
    after_call = 1; /* never reached */
}

static void calls_malloc(aclsimKernelCtx *ctx, void *args) {
    (void)ctx;
    void **out = (void **)args;
    aclrtMalloc(out, 64, ACL_MEM_MALLOC_NORMAL_ONLY);
    after_call = 1; /* never reached */
}

static void saves_its_context(aclsimKernelCtx *ctx, void *args) {
    (void)args;
    saved = ctx;
}

static int check_fault(aclrtStream s, const char *call) {
    aclError code = aclrtSynchronizeStream(s);
    const char *msg = aclGetRecentErrMsg();
    printf("%s: code %d, recent: %s\n", call, code, msg ? msg : "(null)");
    if (code == ACL_SUCCESS || msg == NULL || strstr(msg, call) == NULL) {
        fprintf(stderr, "a kernel calling %s was not faulted with its name\n", call);
        return 1;
    }
    return 0;
}

int main(void) {
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    CHECK(aclrtCreateStream(&s));
    void *out = NULL;
    CHECK(aclsimLaunchKernel(calls_set_device, 2, NULL, 0, s));
    failures += check_fault(s, "aclrtSetDevice");
    CHECK(aclsimLaunchKernel(calls_malloc, 1, &out, sizeof out, s));
    failures += check_fault(s, "aclrtMalloc");
    if (after_call) {
        fprintf(stderr, "an ACL call returned to the kernel\n");
        failures++;
    }

    void *dev = NULL;
    CHECK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemset(dev, 64, 0x11, 64));
    CHECK(aclsimLaunchKernel(saves_its_context, 1, NULL, 0, s));
    CHECK(aclrtSynchronizeStream(s));
    if (saved == NULL) {
        fprintf(stderr, "the kernel did not run\n");
        failures++;
    }
    /* From the host, after the kernel returned: refused, nothing happens. */
    uint32_t v = aclsimLoad32(saved, dev);
    aclsimStore32(saved, dev, 0x22222222u);
    uint32_t idx = aclsimGetBlockIdx(saved);
    if (v != 0 || idx != 0) {
        fprintf(stderr, "a dead context answered: load %#x, block %u\n", v, idx);
        failures++;
    }
    unsigned char host[64];
    CHECK(aclrtMemcpy(host, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 64; i++) {
        if (host[i] != 0x11) {
            fprintf(stderr, "byte %d changed to %#x through a dead context\n", i, host[i]);
            failures++;
            break;
        }
    }
    /* The stream still runs kernels. */
    CHECK(aclsimLaunchKernel(saves_its_context, 1, NULL, 0, s));
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtFree(dev));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    FINISH();
}
