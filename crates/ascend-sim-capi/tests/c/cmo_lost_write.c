/* A value write followed by an INVALID of its line: the write is lost (the line reads as
 * memory held it) and the run report records a lost_write hazard. With the argument
 * "writeback", a WRITEBACK before the INVALID keeps the write and nothing is reported. */
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "check.h"

int main(int argc, char **argv) {
    int writeback = argc > 1 && strcmp(argv[1], "writeback") == 0;
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    CHECK(aclrtCreateStream(&s));
    void *flag = NULL;
    CHECK(aclrtMalloc(&flag, 512, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemset(flag, 512, 0, 512));
    /* Memory itself holds the zeros from here on. */
    CHECK(aclrtCmoAsync(flag, 512, ACL_RT_CMO_TYPE_WRITEBACK, s));
    CHECK(aclrtValueWrite(flag, 7, 0, s));
    if (writeback) CHECK(aclrtCmoAsync(flag, 512, ACL_RT_CMO_TYPE_WRITEBACK, s));
    CHECK(aclrtCmoAsync(flag, 512, ACL_RT_CMO_TYPE_INVALID, s));
    CHECK(aclrtSynchronizeStream(s));
    uint64_t value = 0;
    CHECK(aclrtMemcpy(&value, 8, flag, 8, ACL_MEMCPY_DEVICE_TO_HOST));
    printf("flag after the INVALID: %llu\n", (unsigned long long)value);
    if (value != (writeback ? 7u : 0u)) {
        fprintf(stderr, "unexpected flag value %llu\n", (unsigned long long)value);
        failures++;
    }
    CHECK(aclrtFree(flag));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    FINISH();
}
