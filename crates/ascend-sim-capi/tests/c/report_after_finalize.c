/* aclFinalize ends nothing: work after it still reaches the run report written at exit. */
#include "acl/acl.h"
#include "check.h"

int main(void) {
    CHECK(aclFinalize()); /* succeeds once without aclInit, as CANN's does */
    CHECK(aclrtSetDevice(0));
    void *flag = NULL;
    CHECK(aclrtMalloc(&flag, 8, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtValueWrite(flag, 5, 0, NULL));
    CHECK(aclrtSynchronizeStream(NULL));
    CHECK(aclrtFree(flag));
    CHECK(aclrtResetDevice(0));
    FINISH(); /* no second aclFinalize: the report is written at exit */
}
