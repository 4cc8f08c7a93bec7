/* A flood of hazards: a 4 MiB fill dropped by an INVALID (8,192 dirty lines of 512 bytes),
 * twenty more INVALIDs each dropping a line a fill before it wrote, then a copy of memory
 * never written. The run report counts every occurrence of each class; stderr says a few of
 * each class. */
#include <stdint.h>

#include "acl/acl.h"
#include "check.h"

#define MIB (1024 * 1024)

int main(void) {
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    CHECK(aclrtCreateStream(&s));
    void *buf = NULL, *never = NULL, *out = NULL;
    CHECK(aclrtMalloc(&buf, 4 * MIB, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMalloc(&never, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMalloc(&out, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemsetAsync(buf, 4 * MIB, 7, 4 * MIB, s));
    CHECK(aclrtCmoAsync(buf, 4 * MIB, ACL_RT_CMO_TYPE_INVALID, s));
    for (int i = 0; i < 20; i++) {
        CHECK(aclrtMemsetAsync(buf, 512, 1, 512, s));
        CHECK(aclrtCmoAsync(buf, 512, ACL_RT_CMO_TYPE_INVALID, s));
    }
    CHECK(aclrtMemcpyAsync(out, 4096, never, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtFree(buf));
    CHECK(aclrtFree(never));
    CHECK(aclrtFree(out));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    FINISH();
}
