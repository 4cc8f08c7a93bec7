/* Barrier CMO on a model-bound persistent stream (Atlas 200I/500 A2, Ascend310B1), following
 * the runtime's rules: INVALID with a barrier id > 0, a wait on that id, then execute. */
#include "acl/acl.h"
#include "check.h"

int main(void) {
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    void *buf = NULL;
    CHECK(aclrtMalloc(&buf, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));

    aclmdlRI model = NULL;
    CHECK(aclmdlRIBuildBegin(&model, 0));
    aclrtStream plain = NULL, s = NULL;
    CHECK(aclrtCreateStream(&plain));
    /* A stream without ACL_STREAM_PERSISTENT cannot be bound. */
    EXPECT_CODE(aclmdlRIBindStream(model, plain, ACL_MODEL_STREAM_FLAG_HEAD), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_PERSISTENT));
    CHECK(aclmdlRIBindStream(model, s, ACL_MODEL_STREAM_FLAG_HEAD));

    /* On a plain stream the barrier pair is refused with 507000. */
    EXPECT_CODE(aclrtCmoAsyncWithBarrier(buf, 4096, ACL_RT_CMO_TYPE_INVALID, 1, plain), ACL_ERROR_RT_INTERNAL_ERROR);
    /* Barrier id rules. */
    EXPECT_CODE(aclrtCmoAsyncWithBarrier(buf, 4096, ACL_RT_CMO_TYPE_INVALID, 0, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtCmoAsyncWithBarrier(buf, 4096, ACL_RT_CMO_TYPE_PREFETCH, 1, s), ACL_ERROR_RT_PARAM_INVALID);

    CHECK(aclrtCmoAsyncWithBarrier(buf, 4096, ACL_RT_CMO_TYPE_PREFETCH, 0, s));
    CHECK(aclrtCmoAsyncWithBarrier(buf, 4096, ACL_RT_CMO_TYPE_INVALID, 1, s));
    aclrtBarrierTaskInfo info = {0};
    info.barrierNum = 1;
    info.cmoInfo[0].cmoType = ACL_RT_CMO_TYPE_INVALID;
    info.cmoInfo[0].barrierId = 2; /* never used in this model */
    EXPECT_CODE(aclrtCmoWaitBarrier(&info, s, 0), ACL_ERROR_RT_STREAM_MODEL);
    info.cmoInfo[0].barrierId = 1;
    CHECK(aclrtCmoWaitBarrier(&info, s, 0));
    info.barrierNum = 7;
    EXPECT_CODE(aclrtCmoWaitBarrier(&info, s, 0), ACL_ERROR_INVALID_PARAM);

    CHECK(aclmdlRIEndTask(model, s));
    CHECK(aclmdlRIBuildEnd(model, NULL));
    CHECK(aclmdlRIExecute(model, -1));
    CHECK(aclmdlRIExecute(model, -1));

    CHECK(aclmdlRIUnbindStream(model, s));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtDestroyStream(plain));
    CHECK(aclmdlRIDestroy(model));
    CHECK(aclrtFree(buf));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    FINISH();
}
