/*
 * ascend-twin: base types and error codes of the ACL C API, as the simulator's drop-in
 * libascendcl.so implements them. Written for this project; names and values follow the
 * public ACL API so that programs written for the vendor's headers compile unchanged.
 */
#ifndef ASCEND_TWIN_ACL_BASE_H
#define ASCEND_TWIN_ACL_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ACL_FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#endif

/* Opaque handles. */
typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef void *aclrtNotify;
typedef int aclError;

/* Success. */
static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_NONE = 0;

/* ACL-layer errors. */
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_INVALID_FILE = 100003;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;
static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
static const int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;
static const int ACL_ERROR_INTERNAL_ERROR = 500000;
static const int ACL_ERROR_FAILURE = 500001;
static const int ACL_ERROR_RT_FAILURE = 500003;

/* Runtime errors. */
static const int ACL_RT_SUCCESS = 0;
static const int ACL_ERROR_RT_PARAM_INVALID = 107000;
static const int ACL_ERROR_RT_INVALID_DEVICEID = 107001;
static const int ACL_ERROR_RT_CONTEXT_NULL = 107002;
static const int ACL_ERROR_RT_STREAM_CONTEXT = 107003;
static const int ACL_ERROR_RT_MODEL_CONTEXT = 107004;
static const int ACL_ERROR_RT_STREAM_MODEL = 107005;
static const int ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID = 107006;
static const int ACL_ERROR_RT_ADDR_UNALIGNED = 107008;
static const int ACL_ERROR_RT_STREAM_SUBSCRIBE = 107011;
static const int ACL_ERROR_RT_THREAD_SUBSCRIBE = 107012;
static const int ACL_ERROR_RT_STREAM_NO_CB_REG = 107015;
static const int ACL_ERROR_RT_INVALID_HANDLE = 107017;
static const int ACL_ERROR_RT_WAIT_TIMEOUT = 107019;
static const int ACL_ERROR_RT_TASK_TIMEOUT = 107020;
static const int ACL_ERROR_RT_DEVICE_TASK_ABORT = 107022;
static const int ACL_ERROR_RT_STREAM_ABORT = 107023;
static const int ACL_ERROR_RT_STREAM_CAPTURED = 107027;
static const int ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000;
static const int ACL_ERROR_RT_MEMORY_ALLOCATION = 207001;
static const int ACL_ERROR_RT_MEMORY_FREE = 207002;
static const int ACL_ERROR_RT_NO_DEVICE = 207004;
static const int ACL_ERROR_RT_RESOURCE_ALLOC_FAIL = 207005;
static const int ACL_ERROR_RT_NO_PERMISSION = 207006;
static const int ACL_ERROR_RT_NO_EVENT_RESOURCE = 207007;
static const int ACL_ERROR_RT_NO_STREAM_RESOURCE = 207008;
static const int ACL_ERROR_RT_NO_NOTIFY_RESOURCE = 207009;
static const int ACL_ERROR_RT_NO_MODEL_RESOURCE = 207010;
static const int ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED = 207021;
static const int ACL_ERROR_RT_INTERNAL_ERROR = 507000;
static const int ACL_ERROR_RT_STREAM_TASK_FULL = 507002;
static const int ACL_ERROR_RT_STREAM_NOT_COMPLETE = 507004;
static const int ACL_ERROR_RT_END_OF_SEQUENCE = 507005;
static const int ACL_ERROR_RT_EVENT_NOT_COMPLETE = 507006;
static const int ACL_ERROR_RT_CONTEXT_RELEASE_ERROR = 507007;
static const int ACL_ERROR_RT_MODEL_EXECUTE = 507011;
static const int ACL_ERROR_RT_REPORT_TIMEOUT = 507012;
static const int ACL_ERROR_RT_AICORE_EXCEPTION = 507015;
static const int ACL_ERROR_RT_DEV_SETUP_ERROR = 507033;
static const int ACL_ERROR_RT_VECTOR_CORE_EXCEPTION = 507035;
static const int ACL_ERROR_RT_STREAM_SYNC_TIMEOUT = 507046;
static const int ACL_ERROR_RT_EVENT_SYNC_TIMEOUT = 507047;
static const int ACL_ERROR_RT_DRV_INTERNAL_ERROR = 507899;
static const int ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 507910;
static const int ACL_ERROR_HOST_MEMORY_NOT_REGISTERED = 507911;

/* The custom allocator's opaque types (acl_rt_allocator.h). */
typedef void *aclrtAllocatorDesc;
typedef void *aclrtAllocator;
typedef void *aclrtAllocatorBlock;
typedef void *aclrtAllocatorAddr;

/* A half-precision value, as its bits. */
typedef uint16_t aclFloat16;

/* Element types (the vendor's numbering). */
typedef enum {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_STRING = 13,
    ACL_COMPLEX64 = 16,
    ACL_COMPLEX128 = 17,
    ACL_BF16 = 27,
    ACL_INT4 = 29,
    ACL_UINT1 = 30,
    ACL_COMPLEX32 = 33,
    ACL_HIFLOAT8 = 34,
    ACL_FLOAT8_E5M2 = 35,
    ACL_FLOAT8_E4M3FN = 36,
    ACL_FLOAT8_E8M0 = 37,
    ACL_FLOAT6_E3M2 = 38,
    ACL_FLOAT6_E2M3 = 39,
    ACL_FLOAT4_E2M1 = 40,
    ACL_FLOAT4_E1M2 = 41
} aclDataType;

/* Bytes per element of a data type: 0 for ACL_STRING and ACL_DT_UNDEFINED, 1 for the
 * sub-byte types, 8 for a value the vendor's table does not list. */
ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType);
/* float <-> half precision (round to nearest, ties to even). */
ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value);
ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value);

/* CANN attributes (aclGetCannAttributeList / aclGetCannAttribute). */
typedef enum {
    ACL_CANN_ATTR_UNDEFINED = -1,
    ACL_CANN_ATTR_INF_NAN = 0,
    ACL_CANN_ATTR_BF16 = 1,
    ACL_CANN_ATTR_JIT_COMPILE = 2
} aclCannAttr;

/* The attributes this SoC has; the list belongs to the library. */
ACL_FUNC_VISIBILITY aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num);
/* 1 when the SoC has the attribute, else 0. */
ACL_FUNC_VISIBILITY aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value);

/* The SoC version string of the (simulated) device, or NULL. */
ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void);

#ifdef __cplusplus
}
#endif

#endif /* ASCEND_TWIN_ACL_BASE_H */
