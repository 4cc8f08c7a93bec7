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
    EXPECT_EQ(aclFloatToFloat16(1e9f), 0x7bff); /* saturates */
    EXPECT_EQ(aclFloat16ToFloat(0x7c00) == 65536.0f, 1);
}

static void compatibility(void) {
    const aclCannAttr *list = NULL;
    size_t n = 0;
    int32_t v = -1;
    EXPECT_EQ(aclGetCannAttributeList(NULL, &n), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclGetCannAttributeList(&list, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclGetCannAttributeList(&list, &n), ACL_SUCCESS);
    EXPECT_EQ(n, 3); /* Ascend910B1 */
    EXPECT_EQ(list[0], ACL_CANN_ATTR_INF_NAN);
    EXPECT_EQ(list[2], ACL_CANN_ATTR_JIT_COMPILE);
    EXPECT_EQ(aclGetCannAttribute(ACL_CANN_ATTR_BF16, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &v), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclGetCannAttribute(ACL_CANN_ATTR_BF16, &v), ACL_SUCCESS);
    EXPECT_EQ(v, 1);
    EXPECT_EQ(aclrtCheckArchCompatibility(NULL, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtCheckArchCompatibility("", &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtCheckArchCompatibility("Ascend950PR_9599", &v), ACL_SUCCESS);
    EXPECT_EQ(v, 0);
    EXPECT_EQ(aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &v),
              ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &v), ACL_SUCCESS);
    EXPECT_EQ(v, 1);
    EXPECT_EQ(aclrtGetDeviceCapability(64, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &v),
              ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

int main(void) {
    if (aclInit(NULL) != ACL_SUCCESS) {
        printf("FAILED: aclInit\n");
        return 1;
    }
    system_info();
    compatibility();
    aclFinalize();
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("SUCCESS\n");
    return 0;
}
