/* A PREFETCH before a device-side read, and the same read without it: stream 1 copies a 4 MiB
 * buffer that was written back and dropped from the L2. With the argument "prefetch" an
 * aclrtCmoAsync PREFETCH brings the buffer into the L2 first, so the copy reads it at L2
 * bandwidth; the run report (and `ascend-sim exec`'s summary) shows the shorter copy and the
 * L2 hits. */
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "check.h"

int main(int argc, char **argv) {
    int prefetch = argc > 1 && strcmp(argv[1], "prefetch") == 0;
    const size_t n = 4u << 20;
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    CHECK(aclrtCreateStream(&s));
    void *src = NULL, *dst = NULL;
    CHECK(aclrtMalloc(&src, n, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMalloc(&dst, n, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemset(src, n, 0x5a, n));
    /* Out of the L2: written back and dropped. */
    CHECK(aclrtCmoAsync(src, n, ACL_RT_CMO_TYPE_FLUSH, s));
    if (prefetch) CHECK(aclrtCmoAsync(src, n, ACL_RT_CMO_TYPE_PREFETCH, s));
    CHECK(aclrtMemcpyAsync(dst, n, src, n, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK(aclrtSynchronizeStream(s));
    uint8_t probe = 0;
    CHECK(aclrtMemcpy(&probe, 1, (char *)dst + n - 1, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    printf("copied %zu bytes %s a prefetch; last byte %#x\n", n, prefetch ? "after" : "without",
           probe);
    CHECK(aclrtFree(src));
    CHECK(aclrtFree(dst));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    FINISH();
}
