/* The supporting calls of ordinary ACL host programs: contexts, run mode, stream config
 * handles and stream queries, events with flags, notifies, last-error and version queries.
 * Run on Ascend910B1. */
#include <string.h>
#include "acl/acl.h"
#include "check.h"

int main(void) {
    CHECK(aclInit(NULL));

    /* Versions and run mode need no device. */
    int32_t major = 0, minor = 0, patch = -1;
    CHECK(aclrtGetVersion(&major, &minor, &patch));
    if (major != ACL_MAJOR_VERSION || minor != ACL_MINOR_VERSION || patch != ACL_PATCH_VERSION) failures++;
    EXPECT_CODE(aclrtGetVersion(NULL, &minor, &patch), ACL_ERROR_INVALID_PARAM);
    char ver[ACL_PKG_VERSION_MAX_SIZE] = {0};
    CHECK(aclsysGetVersionStr((char *)"runtime", ver));
    if (strstr(ver, "sim") == NULL) failures++;
    EXPECT_CODE(aclsysGetVersionStr((char *)"no-such-package", ver), ACL_ERROR_INVALID_FILE);
    aclCANNPackageVersion pkg;
    CHECK(aclsysGetCANNVersion(ACL_PKG_NAME_CANN, &pkg));
    if (strcmp(pkg.version, ver) != 0) failures++;
    aclrtRunMode mode = ACL_DEVICE;
    CHECK(aclrtGetRunMode(&mode));
    if (mode != ACL_HOST) failures++;

    /* Last error: an RT failure is stored; Peek keeps it, Get clears it; ACL failures are not. */
    aclrtStream none = NULL;
    EXPECT_CODE(aclrtCtxGetCurrentDefaultStream(&none), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_CODE(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_CODE(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_CODE(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    EXPECT_CODE(aclrtGetLastError((aclrtLastErrLevel)1), ACL_ERROR_INVALID_PARAM);

    /* Contexts. */
    CHECK(aclrtSetDevice(0));
    aclrtContext primary = NULL, ctx = NULL, cur = NULL;
    CHECK(aclrtGetCurrentContext(&primary));
    EXPECT_CODE(aclrtCreateContext(&ctx, 99), ACL_ERROR_RT_INVALID_DEVICEID);
    CHECK(aclrtCreateContext(&ctx, 0));
    CHECK(aclrtGetCurrentContext(&cur));
    if (cur != ctx) failures++;
    aclrtStream def = NULL;
    CHECK(aclrtCtxGetCurrentDefaultStream(&def));
    if (def == NULL) failures++;
    uint32_t cores = 0;
    CHECK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &cores));
    if (cores == 0) failures++;
    EXPECT_CODE(aclrtGetResInCurrentThread((aclrtDevResLimitType)2, &cores), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_CODE(aclrtDestroyContext(primary), ACL_ERROR_RT_CONTEXT_NULL);
    CHECK(aclrtDestroyContext(ctx));
    EXPECT_CODE(aclrtDestroyContext(ctx), ACL_ERROR_RT_CONTEXT_NULL);
    CHECK(aclrtSetCurrentContext(primary));

    /* Stream config handle, V2 and queries. */
    aclrtStreamConfigHandle *cfg = aclrtCreateStreamConfigHandle();
    if (cfg == NULL) failures++;
    uint32_t prio = 3;
    size_t flag = ACL_STREAM_FAST_SYNC;
    CHECK(aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_PRIORITY, &prio, sizeof(prio)));
    CHECK(aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_FLAG, &flag, sizeof(flag)));
    EXPECT_CODE(aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_PRIORITY, &flag, sizeof(flag)), ACL_ERROR_INVALID_PARAM);
    prio = 8;
    EXPECT_CODE(aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_PRIORITY, &prio, sizeof(prio)), ACL_ERROR_INVALID_PARAM);
    /* A size no option has, even one no memory has, is refused before any byte is read. */
    EXPECT_CODE(aclrtSetStreamConfigOpt(cfg, ACL_RT_STREAM_FLAG, &flag, (size_t)-1), ACL_ERROR_INVALID_PARAM);
    aclrtStream s = NULL;
    CHECK(aclrtCreateStreamV2(&s, cfg));
    CHECK(aclrtDestroyStreamConfigHandle(cfg));
    EXPECT_CODE(aclrtDestroyStreamConfigHandle(NULL), ACL_ERROR_INVALID_PARAM);
    uint32_t got = 0;
    CHECK(aclrtStreamGetPriority(s, &got));
    if (got != 3) failures++;
    CHECK(aclrtStreamGetFlags(s, &got));
    if (got != ACL_STREAM_FAST_SYNC) failures++;
    int32_t id = -1, def_id = -1;
    CHECK(aclrtStreamGetId(s, &id));
    CHECK(aclrtStreamGetId(NULL, &def_id));
    if (id < 0 || def_id < 0 || id == def_id) failures++;
    CHECK(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
    EXPECT_CODE(aclrtStreamGetId(s, NULL), ACL_ERROR_INVALID_PARAM);

    /* Events with flags and timestamps. */
    aclrtEvent ev = NULL, ex = NULL;
    EXPECT_CODE(aclrtCreateEventWithFlag(&ev, 0), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(aclrtCreateEventWithFlag(&ev, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE));
    CHECK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
    uint64_t ts = 0;
    EXPECT_CODE(aclrtEventGetTimestamp(ev, &ts), ACL_ERROR_RT_INTERNAL_ERROR);
    aclrtEventStatus es = ACL_EVENT_STATUS_NOT_READY;
    CHECK(aclrtQueryEvent(ev, &es));
    if (es != ACL_EVENT_STATUS_COMPLETE) failures++;
    CHECK(aclrtRecordEvent(ev, s));
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtEventGetTimestamp(ev, &ts));
    CHECK(aclrtQueryEvent(ev, &es));
    if (es != ACL_EVENT_STATUS_COMPLETE) failures++;

    /* Notifies: stream s waits until the default stream records. */
    aclrtNotify nt = NULL;
    EXPECT_CODE(aclrtCreateNotify(&nt, 2), ACL_ERROR_RT_PARAM_INVALID);
    CHECK(aclrtCreateNotify(&nt, ACL_NOTIFY_DEFAULT));
    CHECK(aclrtWaitAndResetNotify(nt, s, 0));
    aclrtStreamStatus st = ACL_STREAM_STATUS_COMPLETE;
    CHECK(aclrtStreamQuery(s, &st));
    if (st != ACL_STREAM_STATUS_NOT_READY) failures++;
    CHECK(aclrtRecordNotify(nt, NULL));
    CHECK(aclrtSynchronizeStream(s));
    /* A wait with a 1 s timeout that nobody satisfies fails the stream at synchronize. */
    CHECK(aclrtWaitAndResetNotify(nt, s, 1));
    EXPECT_CODE(aclrtSynchronizeStream(s), ACL_ERROR_RT_TASK_TIMEOUT);
    EXPECT_CODE(aclrtRecordNotify(NULL, s), ACL_ERROR_INVALID_PARAM);
    CHECK(aclrtDestroyNotify(nt));
    EXPECT_CODE(aclrtDestroyNotify(nt), ACL_ERROR_RT_INVALID_HANDLE);

    /* Device error details: none on the simulator. */
    aclrtErrorInfo info;
    memset(&info, 0xff, sizeof(info));
    CHECK(aclrtGetErrorVerbose(0, &info));
    if (info.errorType != ACL_RT_NO_ERROR || info.hasDetail != 0) failures++;
    EXPECT_CODE(aclrtGetErrorVerbose(99, &info), ACL_ERROR_RT_INVALID_DEVICEID);

    CHECK(aclrtDestroyEvent(ev));
    CHECK(aclrtDestroyEvent(ex));
    CHECK(aclrtDestroyStream(s));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    FINISH();
}
