//! The ACL subset the bindings cover: bindgen's allowlists, shared by the regeneration tool
//! (`examples/regen_bindings.rs`), the freshness test (`tests/bindings_fresh.rs`) and the
//! compile-time check of `ascend-sim-capi`'s exports.
//!
//! Adding a name here changes the bindings: regenerate them (`scripts/regen-bindings.sh`).

/// Calls `$callback! { aclInit, aclFinalize, ... }` with the names of the functions the
/// bindings cover, the list [`FUNCTIONS`] is made from: one list for the bindgen allowlist and
/// for the compile-time check of `ascend-sim-capi`'s exports against the bindings.
///
/// `$callback` is the name of a `macro_rules!` macro in scope where this is invoked.
#[macro_export]
macro_rules! acl_functions {
    ($callback:ident) => {
        $callback! {
            aclInit,
            aclFinalize,
            aclrtLaunchHostFunc,
            aclrtGetDeviceInfo,
            aclrtQueryDeviceStatus,
            aclrtGetDeviceCapability,
            aclrtGetDeviceResLimit,
            aclrtSetDeviceResLimit,
            aclrtResetDeviceResLimit,
            aclrtDeviceCanAccessPeer,
            aclrtDeviceEnablePeerAccess,
            aclrtDeviceDisablePeerAccess,
            aclrtGetDeviceSatMode,
            aclrtSetDeviceSatMode,
            aclrtGetStreamOverflowSwitch,
            aclrtSetStreamOverflowSwitch,
            aclrtSetStreamFailureMode,
            aclrtStreamAbort,
            aclrtStreamStop,
            aclrtReduceAsync,
            aclrtLaunchCallback,
            aclrtSubscribeReport,
            aclrtUnSubscribeReport,
            aclrtProcessReport,
            aclGetRecentErrMsg,
            aclrtGetSocName,
            aclrtSetDevice,
            aclrtResetDevice,
            aclrtResetDeviceForce,
            aclrtGetDevice,
            aclrtGetDeviceCount,
            aclrtSynchronizeDevice,
            aclrtGetCurrentContext,
            aclrtSetCurrentContext,
            aclrtCreateContext,
            aclrtDestroyContext,
            aclrtMalloc,
            aclrtFree,
            aclrtMallocHost,
            aclrtFreeHost,
            aclrtHostRegister,
            aclrtHostUnregister,
            aclrtMemcpy,
            aclrtMemcpyAsync,
            aclrtMemset,
            aclrtMemsetAsync,
            aclrtCreateStream,
            aclrtCreateStreamWithConfig,
            aclrtDestroyStream,
            aclrtDestroyStreamForce,
            aclrtSynchronizeStream,
            aclrtSynchronizeStreamWithTimeout,
            aclrtStreamQuery,
            aclrtCreateEvent,
            aclrtCreateEventWithFlag,
            aclrtCreateEventExWithFlag,
            aclrtEventGetTimestamp,
            aclrtRecordEvent,
            aclrtResetEvent,
            aclrtStreamWaitEvent,
            aclrtSynchronizeEvent,
            aclrtSynchronizeEventWithTimeout,
            aclrtQueryEventStatus,
            aclrtEventElapsedTime,
            aclrtDestroyEvent,
            aclrtCreateNotify,
            aclrtDestroyNotify,
            aclrtRecordNotify,
            aclrtWaitAndResetNotify,
            aclmdlRIBuildBegin,
            aclmdlRIBindStream,
            aclmdlRIUnbindStream,
            aclmdlRIEndTask,
            aclmdlRIBuildEnd,
            aclmdlRIExecute,
            aclmdlRIExecuteAsync,
            aclmdlRIDestroy,
            aclrtCmoAsync,
            aclrtCmoAsyncWithBarrier,
            aclrtCmoWaitBarrier,
            aclrtCmoGetDescSize,
            aclrtCmoSetDesc,
            aclrtCmoAsyncWithDesc,
            aclrtValueWrite,
            aclrtValueWait,
            aclrtIpcMemGetExportKey,
            aclrtIpcMemSetImportPid,
            aclrtIpcMemImportByKey,
            aclrtIpcMemClose,
            aclrtDeviceGetBareTgid,
            aclrtNotifyGetExportKey,
            aclrtNotifySetImportPid,
            aclrtNotifyImportByKey,
            aclrtIpcGetEventHandle,
            aclrtIpcOpenEventHandle,
            // The project's own extension (`acl/acl_sim.h`): simulator kernels, which only the
            // project's `libascendcl.so` exports (a missing one is an `Err` field).
            aclsimLaunchKernelOnCore,
            aclsimGetBlockIdx,
            aclsimGetBlockNum,
            aclsimLoad8,
            aclsimLoad16,
            aclsimLoad32,
            aclsimLoad64,
            aclsimStore8,
            aclsimStore16,
            aclsimStore32,
            aclsimStore64,
            aclsimDcci,
            aclsimDci,
            aclsimCopyGmToLocal,
            aclsimCopyLocalToGm,
            aclsimSpin,
            aclsimTrap,
        }
    };
}

macro_rules! names {
    ($($name:ident,)*) => {
        &[$(stringify!($name)),*]
    };
}

/// The functions the project calls (bindgen's function allowlist), from [`crate::acl_functions!`].
pub const FUNCTIONS: &[&str] = acl_functions!(names);

/// The types those functions use.
pub const TYPES: &[&str] = &[
    "aclError",
    "aclrtStream",
    "aclrtEvent",
    "aclrtContext",
    "aclrtNotify",
    "aclmdlRI",
    "aclrtMemcpyKind",
    "aclrtMemMallocPolicy",
    "aclrtHostRegisterType",
    "aclrtStreamStatus",
    "aclrtEventRecordedStatus",
    "aclrtCmoType",
    "aclrtBarrierCmoInfo",
    "aclrtBarrierTaskInfo",
    "aclsimKernelCtx",
    "aclrtIpcEventHandle",
    "aclsimKernelFunc",
];

/// The variables (constants and `#define`s) kept, as bindgen regular expressions.
pub const VARS: &[&str] = &["ACL_.*", "ACLSIM_.*"];
