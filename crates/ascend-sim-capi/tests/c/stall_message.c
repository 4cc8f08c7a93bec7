/* With ASCEND_SIM_ON_STALL=error, a wait nothing can satisfy ends the synchronize with an error,
 * and aclGetRecentErrMsg returns the watchdog's explanation (printed for the test to check). */
#include <stdint.h>

#include "acl/acl.h"
#include "check.h"

int main(void) {
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream s = NULL;
    void *flag = NULL;
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtMalloc(&flag, 8, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtMemset(flag, 8, 0, 8));
    CHECK(aclrtValueWait(flag, 42, ACL_STREAM_WAIT_VALUE_EQ, s));
    aclError code = aclrtSynchronizeStream(s);
    if (code == ACL_SUCCESS) {
        fprintf(stderr, "a wait nothing satisfies was synchronized\n");
        failures++;
    }
    const char *msg = aclGetRecentErrMsg();
    printf("code: %d\nrecent: %s\n", code, msg ? msg : "(null)");
    CHECK(aclrtDestroyStreamForce(s));
    CHECK(aclrtFree(flag));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    FINISH();
}
