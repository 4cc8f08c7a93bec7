/* Run with a bad ASCEND_SIM_* setting: every call fails with ACL_ERROR_INTERNAL_ERROR and
 * aclGetRecentErrMsg explains why (printed on stdout for the test to check). */
#include "acl/acl.h"
#include "check.h"

int main(void) {
    EXPECT_CODE(aclrtSetDevice(0), 500000);
    const char *msg = aclGetRecentErrMsg();
    if (msg == NULL) {
        fprintf(stderr, "no recent error message\n");
        failures++;
    } else {
        printf("recent: %s\n", msg);
    }
    EXPECT_CODE(aclInit(NULL), 500000);
    FINISH();
}
