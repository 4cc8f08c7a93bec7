/* Inputs the vendor's runtime code accepts and its documentation does not, and a size the code
 * narrows. Under ASCEND_SIM_RULES=code (the default) each call succeeds and a warning names
 * its call site once, however often the site runs; under ASCEND_SIM_RULES=documented the
 * documented rules refuse them with 107000 (the narrowed size has no documented bound: it is
 * accepted and warned of either way). The program's first argument says which to expect. */
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "check.h"

#define GIB (1024ull * 1024 * 1024)

int main(int argc, char **argv) {
    int documented = argc > 1 && strcmp(argv[1], "documented") == 0;
    aclError refused = documented ? ACL_ERROR_RT_PARAM_INVALID : ACL_SUCCESS;
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    CHECK(aclrtCreateStream(&s));
    void *buf = NULL;
    CHECK(aclrtMalloc(&buf, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemset(buf, 4096, 0, 4096));
    for (int i = 0; i < 3; i++) {
        /* One call site each, run three times: one warning each. */
        EXPECT_CODE(aclrtCmoAsync(buf, 4096, ACL_RT_CMO_TYPE_WRITEBACK, s), refused);
        EXPECT_CODE(aclrtValueWrite((char *)buf + 4, 1, 0, s), refused);
    }
    /* 8 GiB is narrowed to 0 bytes. */
    CHECK(aclrtCmoAsync(buf, 8 * GIB, ACL_RT_CMO_TYPE_PREFETCH, s));
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtFree(buf));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    FINISH();
}
