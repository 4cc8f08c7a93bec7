/* The API families added for the vendor's runtime samples, from C: each call's success path
 * and its first validation rows. One section per family. */
#include <stdio.h>
#include <string.h>

#include <pthread.h>

#include "acl/acl.h"
#include "acl/acl_rt_allocator.h"

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

static void device_queries(void) {
    int64_t v = 0;
    int32_t least = -1, greatest = -1, can = -1;
    uint32_t limit = 0;
    aclrtDeviceStatus status = ACL_RT_DEVICE_STATUS_END;
    aclrtUtilizationInfo util;
    memset(&util, 0, sizeof util);
    EXPECT_EQ(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_VECTOR_CORE_NUM, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_VECTOR_CORE_NUM, &v), ACL_SUCCESS);
    EXPECT_EQ(v, 48);
    EXPECT_EQ(aclrtGetDeviceInfo(0, (aclrtDevAttr)999, &v), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtDeviceGetStreamPriorityRange(&least, &greatest), ACL_SUCCESS);
    EXPECT_EQ(least, 7);
    EXPECT_EQ(greatest, 0);
    EXPECT_EQ(aclrtQueryDeviceStatus(0, &status), ACL_SUCCESS);
    EXPECT_EQ(status, ACL_RT_DEVICE_STATUS_NORMAL);
    EXPECT_EQ(aclrtGetDeviceUtilizationRate(0, &util), ACL_SUCCESS);
    EXPECT_EQ(util.memoryUtilization, -1);
    util.utilizationExtend = (aclrtUtilizationExtendInfo *)&util;
    EXPECT_EQ(aclrtGetDeviceUtilizationRate(0, &util), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &limit), ACL_ERROR_RT_DEV_SETUP_ERROR);
    EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 3), ACL_SUCCESS);
    EXPECT_EQ(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &limit), ACL_SUCCESS);
    EXPECT_EQ(limit, 3);
    EXPECT_EQ(aclrtResetDeviceResLimit(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &limit), ACL_SUCCESS);
    EXPECT_EQ(limit, 48);
    EXPECT_EQ(aclrtDeviceCanAccessPeer(&can, 0, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtDeviceCanAccessPeer(&can, 0, 1), ACL_SUCCESS);
    EXPECT_EQ(can, 1);
    EXPECT_EQ(aclrtDeviceEnablePeerAccess(1, 1), ACL_ERROR_FEATURE_UNSUPPORTED);
    EXPECT_EQ(aclrtDeviceEnablePeerAccess(1, 0), ACL_SUCCESS);
    EXPECT_EQ(aclrtDeviceDisablePeerAccess(1), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

static void overflow(void) {
    aclrtFloatOverflowMode mode = ACL_RT_OVERFLOW_MODE_UNDEF;
    aclrtStream s = NULL;
    uint32_t flag = 9;
    void *status = NULL;
    unsigned char host[64];
    EXPECT_EQ(aclrtGetDeviceSatMode(&mode), ACL_SUCCESS);
    EXPECT_EQ(mode, ACL_RT_OVERFLOW_MODE_INFNAN);
    EXPECT_EQ(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_UNDEF), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION), ACL_SUCCESS);
    EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT_EQ(aclrtSetStreamOverflowSwitch(s, 2), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtSetStreamOverflowSwitch(s, 1), ACL_SUCCESS);
    EXPECT_EQ(aclrtGetStreamOverflowSwitch(s, &flag), ACL_SUCCESS);
    EXPECT_EQ(flag, 1);
    EXPECT_EQ(aclrtMalloc(&status, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtGetOverflowStatus(status, 32, s), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtGetOverflowStatus(status, 64, s), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetOverflowStatus(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
    memset(host, 0xaa, sizeof host);
    EXPECT_EQ(aclrtMemcpy(host, 64, status, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ(host[0] | host[63], 0);
    EXPECT_EQ(aclrtFree(status), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

static int host_runs = 0;
static void count_host_run(void *arg) { host_runs += *(int *)arg; }
static unsigned exception_task = 0, exception_code = 0;
static void on_exception(aclrtExceptionInfo *info) {
    exception_task = aclrtGetTaskIdFromExceptionInfo(info);
    exception_code = aclrtGetErrorCodeFromExceptionInfo(info);
}

static void host_calls(void) {
    aclrtStream s = NULL, cb = NULL;
    int one = 1, ten = 10;
    uint32_t last = 0;
    uint64_t me = (uint64_t)pthread_self();
    EXPECT_EQ(aclrtGetThreadLastTaskId(NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT_EQ(aclrtCreateStream(&cb), ACL_SUCCESS);
    EXPECT_EQ(aclrtLaunchHostFunc(s, NULL, &one), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtLaunchHostFunc(s, count_host_run, &one), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT_EQ(host_runs, 1);
    EXPECT_EQ(aclrtSubscribeReport(me, s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    EXPECT_EQ(aclrtLaunchCallback(count_host_run, &ten, ACL_CALLBACK_BLOCK, cb), ACL_ERROR_RT_STREAM_NO_CB_REG);
    EXPECT_EQ(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    EXPECT_EQ(aclrtSubscribeReport(me, cb), ACL_SUCCESS);
    EXPECT_EQ(aclrtLaunchCallback(count_host_run, &ten, ACL_CALLBACK_NO_BLOCK, cb), ACL_SUCCESS);
    EXPECT_EQ(aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtProcessReport(1000), ACL_SUCCESS);
    EXPECT_EQ(host_runs, 11);
    EXPECT_EQ(aclrtProcessReport(10), ACL_ERROR_RT_REPORT_TIMEOUT);
    EXPECT_EQ(aclrtUnSubscribeReport(me, cb), ACL_SUCCESS);
    EXPECT_EQ(aclrtSetExceptionInfoCallback(on_exception), ACL_SUCCESS);
    EXPECT_EQ(aclrtGetTaskIdFromExceptionInfo(NULL), 0xFFFFFFFFu);
    EXPECT_EQ(aclrtGetThreadLastTaskId(&last), ACL_SUCCESS);
    EXPECT_EQ(aclrtSetExceptionInfoCallback(NULL), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(cb), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
    (void)exception_task;
    (void)exception_code;
}

static void *alloc_fn(aclrtAllocator a, size_t n) { (void)a; (void)n; return NULL; }
static void free_fn(aclrtAllocator a, aclrtAllocatorBlock b) { (void)a; (void)b; }
static void *addr_fn(aclrtAllocatorBlock b) { return b; }

static void allocator(void) {
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc(), out = NULL;
    aclrtAllocatorFreeFunc f = NULL;
    aclrtAllocatorAllocAdviseFunc advise = (aclrtAllocatorAllocAdviseFunc)0x1;
    int obj = 0;
    aclrtStream s = (aclrtStream)&obj;
    EXPECT_EQ(d != NULL, 1);
    EXPECT_EQ(aclrtAllocatorRegister(s, d), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtAllocatorSetObjToDesc(d, &obj), ACL_SUCCESS);
    EXPECT_EQ(aclrtAllocatorSetAllocFuncToDesc(d, alloc_fn), ACL_SUCCESS);
    EXPECT_EQ(aclrtAllocatorSetFreeFuncToDesc(d, free_fn), ACL_SUCCESS);
    EXPECT_EQ(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, addr_fn), ACL_SUCCESS);
    EXPECT_EQ(aclrtAllocatorRegister(NULL, d), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtAllocatorRegister(s, d), ACL_SUCCESS);
    EXPECT_EQ(aclrtAllocatorGetByStream(s, &out, NULL, NULL, &f, &advise, NULL), ACL_SUCCESS);
    EXPECT_EQ(out == d, 1);
    EXPECT_EQ(f == free_fn, 1);
    EXPECT_EQ(advise == NULL, 1);
    EXPECT_EQ(aclrtAllocatorUnregister(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtAllocatorGetByStream(s, &out, NULL, NULL, NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
}

static void built_in_tasks(void) {
    aclrtStream s = NULL;
    void *d = NULL, *src = NULL;
    float a[4] = {1, 2, 3, 4}, out[4] = {0};
    EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT_EQ(aclrtMalloc(&d, sizeof a, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMalloc(&src, sizeof a, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(d, sizeof a, a, sizeof a, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(src, sizeof a, a, sizeof a, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    EXPECT_EQ(aclrtReduceAsync(d, src, sizeof a, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, d),
              ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtReduceAsync(d, src, sizeof a, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT64, s, NULL),
              ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtReduceAsync(d, src, 0, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, NULL),
              ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtReduceAsync(d, src, sizeof a, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_UINT8, s, NULL),
              ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_EQ(aclrtReduceAsync(d, src, sizeof a, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, NULL), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(out, sizeof out, d, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ(out[3] == 8.0f, 1);
    {
        aclrtRandomNumTaskInfo info;
        int32_t ints[16];
        int32_t lo = 5, hi = 9;
        uint64_t seed = 3, n = 16;
        int i;
        void *res = NULL;
        EXPECT_EQ(aclrtMalloc(&res, sizeof ints, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        memset(&info, 0, sizeof info);
        info.dataType = ACL_INT32;
        info.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS;
        memcpy(info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.valueOrAddr, &lo, 4);
        info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.size = 4;
        memcpy(info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.valueOrAddr, &hi, 4);
        info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.size = 4;
        memcpy(info.randomSeed.valueOrAddr, &seed, 8);
        info.randomSeed.size = 8;
        memcpy(info.randomNum.valueOrAddr, &n, 8);
        info.randomNum.size = 8;
        info.randomResultAddr = res;
        info.randomCounterAddr = src;
        EXPECT_EQ(aclrtMemset(src, 16, 0, 16), ACL_SUCCESS);
        EXPECT_EQ(aclrtRandomNumAsync(NULL, s, NULL), ACL_ERROR_INVALID_PARAM);
        EXPECT_EQ(aclrtRandomNumAsync(&info, s, NULL), ACL_SUCCESS);
        EXPECT_EQ(info.dataType, 0); /* the runtime's numbering, written back */
        EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
        EXPECT_EQ(aclrtMemcpy(ints, sizeof ints, res, sizeof ints, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
        for (i = 0; i < 16; i++) EXPECT_EQ(ints[i] >= 5 && ints[i] < 9, 1);
        EXPECT_EQ(aclrtFree(res), ACL_SUCCESS);
    }
    EXPECT_EQ(aclrtFree(d), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(src), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

static int states_seen = 0;
static void on_state(aclrtStream stm, aclrtStreamState state, void *args) {
    (void)stm;
    states_seen += (int)state * *(int *)args;
}

static void stream_failures(void) {
    aclrtContext ctx = NULL;
    aclrtStream s = NULL;
    int weight = 1;
    EXPECT_EQ(aclrtRegStreamStateCallback(NULL, on_state, &weight), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtRegStreamStateCallback("c-test", on_state, &weight), ACL_SUCCESS);
    EXPECT_EQ(aclrtRegStreamStateCallback("c-test", on_state, &weight), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtCreateContext(&ctx, 0), ACL_SUCCESS);
    EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT_EQ(aclrtStreamStop(NULL), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtStreamStop(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtStreamAbort(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE), ACL_SUCCESS);
    EXPECT_EQ(aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyContext(ctx), ACL_SUCCESS);
    EXPECT_EQ(aclrtRegStreamStateCallback("c-test", NULL, NULL), ACL_SUCCESS);
    /* Created (1 each): device 0's default stream, the context's default stream and s;
     * destroyed (2 each): s and the context's default stream. */
    EXPECT_EQ(states_seen, 7);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

static void capture(void) {
    aclrtStream s = NULL, exec = NULL;
    aclmdlRI model = NULL;
    aclmdlRICaptureStatus status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
    void *a = NULL;
    uint64_t host = 0, five = 5;
    EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT_EQ(aclrtCreateStream(&exec), ACL_SUCCESS);
    EXPECT_EQ(aclrtMalloc(&a, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemset(a, 8, 0, 8), ACL_SUCCESS);
    EXPECT_EQ(aclmdlRICaptureEnd(s, &model), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    EXPECT_EQ(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_SUCCESS);
    EXPECT_EQ(aclmdlRICaptureGetInfo(s, &status, NULL), ACL_SUCCESS);
    EXPECT_EQ(status, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    EXPECT_EQ(aclrtMemcpyAsync(a, 8, &five, 8, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(s), ACL_ERROR_RT_STREAM_CAPTURED);
    EXPECT_EQ(aclrtMemset(a, 8, 0, 8), ACL_ERROR_RT_STREAM_CAPTURE_MODE_NOT_SUPPORT);
    EXPECT_EQ(aclmdlRICaptureEnd(s, &model), ACL_SUCCESS);
    /* A second end is refused and leaves the model the first gave. */
    aclmdlRI first = model;
    EXPECT_EQ(aclmdlRICaptureEnd(s, &model), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    EXPECT_EQ(model == first, 1);
    EXPECT_EQ(aclrtMemcpy(&host, 8, a, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ(host, 0);
    EXPECT_EQ(aclmdlRIExecuteAsync(model, exec), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(exec), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(&host, 8, a, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ(host, 5);
    EXPECT_EQ(aclmdlRIDestroy(model), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(exec), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

static void labels(void) {
    aclrtStream s = NULL, exec = NULL;
    aclmdlRI model = NULL;
    aclrtLabel l[2] = {NULL, NULL};
    aclrtLabelList list = NULL;
    void *idx = NULL, *a = NULL;
    uint32_t one = 1;
    uint64_t host = 9, zero = 0;
    EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_PERSISTENT), ACL_SUCCESS);
    EXPECT_EQ(aclrtCreateStream(&exec), ACL_SUCCESS);
    EXPECT_EQ(aclmdlRIBuildBegin(&model, 0), ACL_SUCCESS);
    EXPECT_EQ(aclmdlRIBindStream(model, s, 0), ACL_SUCCESS);
    EXPECT_EQ(aclrtMalloc(&idx, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMalloc(&a, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(idx, 4, &one, 4, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(a, 8, &zero, 8, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    EXPECT_EQ(aclrtCreateLabel(&l[0]), ACL_SUCCESS);
    EXPECT_EQ(aclrtCreateLabel(&l[1]), ACL_SUCCESS);
    EXPECT_EQ(aclrtSetLabel(l[0], s), ACL_ERROR_RT_INTERNAL_ERROR); /* no list yet */
    EXPECT_EQ(aclrtCreateLabelList(l, 2, &list), ACL_SUCCESS);
    EXPECT_EQ(aclrtSwitchLabelByIndex(idx, 2, list, s), ACL_SUCCESS);
    EXPECT_EQ(aclrtSetLabel(l[0], s), ACL_SUCCESS);
    EXPECT_EQ(aclrtValueWrite(a, 5, 0, s), ACL_SUCCESS); /* skipped: the index picks label 1 */
    EXPECT_EQ(aclrtSetLabel(l[1], s), ACL_SUCCESS);
    EXPECT_EQ(aclmdlRIEndTask(model, s), ACL_SUCCESS);
    EXPECT_EQ(aclmdlRIBuildEnd(model, NULL), ACL_SUCCESS);
    EXPECT_EQ(aclmdlRIExecuteAsync(model, exec), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(exec), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(&host, 8, a, 8, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ(host, 0);
    EXPECT_EQ(aclmdlRIUnbindStream(model, s), ACL_SUCCESS);
    EXPECT_EQ(aclmdlRIDestroy(model), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyLabelList(list), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyLabel(l[1]), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyLabel(l[0]), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(idx), ACL_SUCCESS);
    EXPECT_EQ(aclrtFree(a), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(exec), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

/* The program's own memory, registered and mapped: the device's writes reach it after a
 * synchronize, and the host's writes reach tasks launched after them. */
static void registered_memory(void) {
    static unsigned char mine[4096];
    void *dev = NULL, *copy = NULL;
    aclrtStream s = NULL;
    memset(mine, 7, sizeof(mine));
    EXPECT_EQ(aclrtHostRegisterV2(mine, sizeof(mine), ACL_HOST_REG_MAPPED), ACL_ERROR_RT_CONTEXT_NULL);
    EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_EQ(aclrtCreateStream(&s), ACL_SUCCESS);
    EXPECT_EQ(aclrtHostRegisterV2(NULL, 64, ACL_HOST_REG_MAPPED), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtHostRegisterV2(mine, sizeof(mine), 0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtHostRegisterV2(mine, sizeof(mine), ACL_HOST_REG_MAPPED), ACL_SUCCESS);
    EXPECT_EQ(aclrtHostRegisterV2(mine + 8, 8, ACL_HOST_REG_MAPPED), ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    EXPECT_EQ(aclrtHostGetDevicePointer(mine, &dev, 1), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtHostGetDevicePointer(mine, &dev, 0), ACL_SUCCESS);
    EXPECT_EQ(dev != NULL && dev != (void *)mine, 1);
    EXPECT_EQ(aclrtMemsetAsync(dev, 16, 3, 16, s), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
    EXPECT_EQ(mine[0], 3);
    EXPECT_EQ(mine[15], 3);
    EXPECT_EQ(mine[16], 7);
    mine[100] = 42;
    EXPECT_EQ(aclrtMalloc(&copy, sizeof(mine), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpyAsync(copy, sizeof(mine), dev, sizeof(mine), ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
    EXPECT_EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
    unsigned char back[4096];
    EXPECT_EQ(aclrtMemcpy(back, sizeof(back), copy, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    EXPECT_EQ(back[100], 42);
    EXPECT_EQ(back[0], 3);
    EXPECT_EQ(aclrtFree(dev), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT_EQ(aclrtHostUnregister(mine + 1), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
    EXPECT_EQ(aclrtHostUnregister(mine), ACL_SUCCESS);
    void *managed = NULL;
    EXPECT_EQ(aclrtMemAllocManaged(&managed, 64, 2), ACL_ERROR_INVALID_PARAM);
    EXPECT_EQ(aclrtMemAllocManaged(&managed, 64, ACL_RT_MEM_ATTACH_GLOBAL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT_EQ(aclrtFree(copy), ACL_SUCCESS);
    EXPECT_EQ(aclrtDestroyStream(s), ACL_SUCCESS);
    EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
}

int main(void) {
    if (aclInit(NULL) != ACL_SUCCESS) {
        printf("FAILED: aclInit\n");
        return 1;
    }
    system_info();
    compatibility();
    device_queries();
    overflow();
    host_calls();
    allocator();
    built_in_tasks();
    stream_failures();
    capture();
    labels();
    registered_memory();
    aclFinalize();
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("SUCCESS\n");
    return 0;
}
