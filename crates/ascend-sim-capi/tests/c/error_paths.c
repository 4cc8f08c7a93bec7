/* Error paths: NULL arguments, bad values, garbage and destroyed handles, wrong stream kinds,
 * and the recent-error-message query. Run on Ascend910B1. */
#include <string.h>
#include "acl/acl.h"
#include "check.h"

int main(void) {
    CHECK(aclInit(NULL));
    EXPECT_CODE(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);

    /* Before any device: no context. */
    void *p = NULL;
    EXPECT_CODE(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
    int32_t dev = -1;
    EXPECT_CODE(aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_CODE(aclrtSetDevice(99), ACL_ERROR_RT_INVALID_DEVICEID);
    EXPECT_CODE(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);

    CHECK(aclrtSetDevice(0));
    CHECK(aclrtGetDevice(&dev));
    if (dev != 0) failures++;
    const char *soc = aclrtGetSocName();
    if (soc == NULL || strcmp(soc, "Ascend910B1") != 0) {
        fprintf(stderr, "unexpected SoC name %s\n", soc ? soc : "(null)");
        failures++;
    }

    EXPECT_CODE(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    const char *msg = aclGetRecentErrMsg();
    if (msg == NULL || strstr(msg, "EH0008") == NULL) {
        fprintf(stderr, "recent error message lacks EH0008: %s\n", msg ? msg : "(null)");
        failures++;
    }
    if (aclGetRecentErrMsg() != NULL) {
        fprintf(stderr, "recent error message not cleared by reading\n");
        failures++;
    }
    EXPECT_CODE(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    CHECK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));

    /* Value write/wait. */
    EXPECT_CODE(aclrtValueWrite(NULL, 1, 0, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_CODE(aclrtValueWrite(p, 1, 1, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtValueWait(p, 1, 4, NULL), ACL_ERROR_RT_PARAM_INVALID);
    uint64_t host_word = 0;
    EXPECT_CODE(aclrtValueWrite(&host_word, 1, 0, NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtValueWrite(p, 1, 0, (aclrtStream)0xdead), ACL_ERROR_RT_INVALID_HANDLE);

    /* A destroyed stream. */
    aclrtStream s = NULL;
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtDestroyStream(s));
    EXPECT_CODE(aclrtValueWrite(p, 1, 0, s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
    EXPECT_CODE(aclrtDestroyStream(NULL), ACL_ERROR_INVALID_PARAM);

    /* CMO on A2: barrier pair unsupported; descriptor CMO needs a model stream. */
    EXPECT_CODE(aclrtCmoAsyncWithBarrier(p, 64, ACL_RT_CMO_TYPE_INVALID, 1, NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    size_t desc_size = 0;
    CHECK(aclrtCmoGetDescSize(&desc_size));
    if (desc_size != 32) failures++;
    void *desc = NULL;
    CHECK(aclrtMalloc(&desc, desc_size, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK(aclrtCmoSetDesc(desc, p, 64));
    EXPECT_CODE(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_PREFETCH, NULL, NULL), ACL_ERROR_RT_INTERNAL_ERROR);
    EXPECT_CODE(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_PREFETCH, NULL, (void *)0x1), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(aclrtCmoAsync(p, 64, ACL_RT_CMO_TYPE_PREFETCH, NULL));
    EXPECT_CODE(aclrtCmoAsync(p, 64, (aclrtCmoType)4, NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);

    /* Timeouts: a wait nobody satisfies. */
    CHECK(aclrtMemset(p, 64, 0, 64));
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtValueWait(p, 5, ACL_STREAM_WAIT_VALUE_EQ, s));
    EXPECT_CODE(aclrtSynchronizeStreamWithTimeout(s, 10), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    EXPECT_CODE(aclrtSynchronizeStreamWithTimeout(s, -2), ACL_ERROR_RT_PARAM_INVALID);
    aclrtStreamStatus st = ACL_STREAM_STATUS_COMPLETE;
    CHECK(aclrtStreamQuery(s, &st));
    if (st != ACL_STREAM_STATUS_NOT_READY) failures++;
    CHECK(aclrtValueWrite(p, 5, 0, NULL));
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtDestroyStream(s));

    CHECK(aclrtFree(desc));
    CHECK(aclrtFree(p));
    EXPECT_CODE(aclrtFree(p), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    EXPECT_CODE(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    FINISH();
}
