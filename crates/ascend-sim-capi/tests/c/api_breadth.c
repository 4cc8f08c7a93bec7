/* The API families added for the vendor's runtime samples, from C: each call's success path
 * and its first validation rows. One section per family. */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

static int failures = 0;

#define EXPECT_EQ(got, want)                                                                \
    do {                                                                                    \
        long long g_ = (long long)(got), w_ = (long long)(want);                            \
        if (g_ != w_) {                                                                     \
            printf("FAILED line %d: %s is %lld, expected %lld\n", __LINE__, #got, g_, w_);  \
            failures++;                                                                     \
        }                                                                                   \
    } while (0)

static void system_info(void) {
    char pkg[] = "runtime", unknown[] = "no-such-package";
    int32_t num = 0;
    EXPECT_EQ(aclsysGetVersionNum(pkg, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclsysGetVersionNum(NULL, &num), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclsysGetVersionNum(unknown, &num), ACL_ERROR_INVALID_FILE);
    EXPECT_EQ(aclsysGetVersionNum(pkg, &num), ACL_SUCCESS);
    EXPECT_EQ(num, 80500000);
    EXPECT_EQ(aclDataTypeSize(ACL_FLOAT), 4);
    EXPECT_EQ(aclDataTypeSize(ACL_FLOAT16), 2);
    EXPECT_EQ(aclDataTypeSize(ACL_COMPLEX128), 16);
    EXPECT_EQ(aclDataTypeSize(ACL_STRING), 0);
    EXPECT_EQ(aclFloatToFloat16(1.625f), 0x3e80);
    EXPECT_EQ(aclFloat16ToFloat(0x3e80) == 1.625f, 1);
}

int main(void) {
    if (aclInit(NULL) != ACL_SUCCESS) {
        printf("FAILED: aclInit\n");
        return 1;
    }
    system_info();
    aclFinalize();
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("SUCCESS\n");
    return 0;
}
