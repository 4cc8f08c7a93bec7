//! Exports: host functions, callbacks and exception information (`aclrtLaunchHostFunc`,
//! `aclrtSubscribeReport`, `aclrtLaunchCallback`, `aclrtProcessReport`,
//! `aclrtUnSubscribeReport`, `aclrtSubscribeHostFunc`, `aclrtProcessHostFunc`,
//! `aclrtUnSubscribeHostFunc`, `aclrtSetExceptionInfoCallback` and the exception-information
//! accessors, `aclrtGetThreadLastTaskId`).
#![allow(non_snake_case, non_camel_case_types)]

use std::ffi::c_void;
use std::sync::Arc;

use ascend_rt::raw_types::RawStream;
use ascend_rt::{ExceptionCallback, ExceptionInfo};

use crate::ffi::{aclError, guard, guard_args, handle_in, out_ref};

/// `aclrtHostFunc` / `aclrtCallback`.
pub type aclrtHostFunc = Option<unsafe extern "C" fn(args: *mut c_void)>;

/// `aclrtExceptionInfoCallback`.
pub type aclrtExceptionInfoCallback = Option<unsafe extern "C" fn(info: *mut ExceptionInfoC)>;

/// The `0xFFFFFFFF` the accessors return for a NULL info (`ACL_ERROR_INVALID_EXCEPTION_INFO`).
const INVALID_EXCEPTION_INFO: u32 = u32::MAX;

/// `aclrtExceptionInfo` as this library lays it out (the header keeps it opaque).
#[repr(C)]
pub struct ExceptionInfoC {
    task_id: u32,
    stream_id: u32,
    thread_id: u32,
    device_id: u32,
    error_code: u32,
}

/// A C function and its argument, to run on another thread.
struct CCall {
    f: unsafe extern "C" fn(*mut c_void),
    args: *mut c_void,
}

// SAFETY: the program hands `args` to the runtime to be passed to `f` on a runtime or
// subscribed thread: that is the contract of the host-function and callback calls.
unsafe impl Send for CCall {}

impl CCall {
    fn into_host_fn(self) -> ascend_rt::HostFn {
        Box::new(move || {
            let call = &self;
            // SAFETY: the program's function with the argument it gave for it, called each
            // time the stream reaches the task (once, or at every run of a model that
            // recorded it), as the program asked.
            unsafe { (call.f)(call.args) }
        })
    }
}

/// The calling thread's id as `aclrtSubscribeReport` expects it: its `pthread_t`.
fn this_thread() -> u64 {
    // SAFETY: pthread_self has no preconditions.
    (unsafe { libc::pthread_self() }) as u64
}

/// `aclrtLaunchHostFunc(stream, fn, args)`.
#[no_mangle]
pub extern "C" fn aclrtLaunchHostFunc(
    stream: *mut c_void,
    fn_: aclrtHostFunc,
    args: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtLaunchHostFunc",
        || format!("stream={:?}, fn={:?}, args={:?}", stream, fn_, args),
        |rt| {
            let f = fn_.map(|f| CCall { f, args }.into_host_fn());
            rt.launch_host_func(RawStream(handle_in(stream)), f)
        },
    )
}

/// `aclrtSubscribeReport(threadId, stream)`.
#[no_mangle]
pub extern "C" fn aclrtSubscribeReport(threadId: u64, stream: *mut c_void) -> aclError {
    guard_args(
        "aclrtSubscribeReport",
        || format!("threadId={:?}, stream={:?}", threadId, stream),
        |rt| rt.subscribe_report(threadId, RawStream(handle_in(stream))),
    )
}

/// `aclrtLaunchCallback(fn, userData, blockType, stream)`.
#[no_mangle]
pub extern "C" fn aclrtLaunchCallback(
    fn_: aclrtHostFunc,
    userData: *mut c_void,
    blockType: u32,
    stream: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtLaunchCallback",
        || {
            format!(
                "fn={:?}, userData={:?}, blockType={:?}, stream={:?}",
                fn_, userData, blockType, stream
            )
        },
        |rt| {
            let f = fn_.map(|f| CCall { f, args: userData }.into_host_fn());
            rt.launch_callback(f, blockType, RawStream(handle_in(stream)))
        },
    )
}

/// `aclrtProcessReport(timeout)`, for the calling thread.
#[no_mangle]
pub extern "C" fn aclrtProcessReport(timeout: i32) -> aclError {
    guard_args(
        "aclrtProcessReport",
        || format!("timeout={:?}", timeout),
        |rt| rt.process_report(this_thread(), timeout),
    )
}

/// `aclrtUnSubscribeReport(threadId, stream)`.
#[no_mangle]
pub extern "C" fn aclrtUnSubscribeReport(threadId: u64, stream: *mut c_void) -> aclError {
    guard_args(
        "aclrtUnSubscribeReport",
        || format!("threadId={:?}, stream={:?}", threadId, stream),
        |rt| rt.unsubscribe_report(threadId, RawStream(handle_in(stream))),
    )
}

/// `aclrtSubscribeHostFunc(hostFuncThreadId, exeStream)`.
#[no_mangle]
pub extern "C" fn aclrtSubscribeHostFunc(
    hostFuncThreadId: u64,
    exeStream: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtSubscribeHostFunc",
        || {
            format!(
                "hostFuncThreadId={:?}, exeStream={:?}",
                hostFuncThreadId, exeStream
            )
        },
        |rt| rt.subscribe_host_func(hostFuncThreadId, RawStream(handle_in(exeStream))),
    )
}

/// `aclrtProcessHostFunc(timeout)`, for the calling thread.
#[no_mangle]
pub extern "C" fn aclrtProcessHostFunc(timeout: i32) -> aclError {
    guard_args(
        "aclrtProcessHostFunc",
        || format!("timeout={:?}", timeout),
        |rt| rt.process_host_func(this_thread(), timeout),
    )
}

/// `aclrtUnSubscribeHostFunc(hostFuncThreadId, exeStream)`.
#[no_mangle]
pub extern "C" fn aclrtUnSubscribeHostFunc(
    hostFuncThreadId: u64,
    exeStream: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtUnSubscribeHostFunc",
        || {
            format!(
                "hostFuncThreadId={:?}, exeStream={:?}",
                hostFuncThreadId, exeStream
            )
        },
        |rt| rt.unsubscribe_host_func(hostFuncThreadId, RawStream(handle_in(exeStream))),
    )
}

/// `aclrtSetExceptionInfoCallback(callback)`: NULL unregisters.
#[no_mangle]
pub extern "C" fn aclrtSetExceptionInfoCallback(callback: aclrtExceptionInfoCallback) -> aclError {
    guard_args(
        "aclrtSetExceptionInfoCallback",
        || format!("callback={:?}", callback),
        |rt| {
            let cb: Option<ExceptionCallback> = callback.map(|f| {
                Arc::new(move |i: &ExceptionInfo| {
                    let mut info = ExceptionInfoC {
                        task_id: i.task_id,
                        stream_id: i.stream_id,
                        thread_id: i.thread_id,
                        device_id: i.device_id,
                        error_code: i.error_code,
                    };
                    // SAFETY: the program's callback, given a valid info for the call's duration.
                    unsafe { f(&mut info) }
                }) as ExceptionCallback
            });
            rt.set_exception_info_callback(cb)
        },
    )
}

/// One field of an exception info, or `0xFFFFFFFF` for NULL.
///
/// # Safety
/// `info` is NULL or the info an exception callback was given.
unsafe fn field(info: *const ExceptionInfoC, f: impl Fn(&ExceptionInfoC) -> u32) -> u32 {
    // SAFETY: NULL or valid by the caller's contract.
    match unsafe { info.as_ref() } {
        Some(i) => f(i),
        None => {
            tracing::error!("an exception-information accessor was given NULL");
            INVALID_EXCEPTION_INFO
        }
    }
}

/// `aclrtGetTaskIdFromExceptionInfo(info)`.
///
/// # Safety
/// `info` is NULL or the info an exception callback was given.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetTaskIdFromExceptionInfo(info: *const ExceptionInfoC) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { field(info, |i| i.task_id) }
}

/// `aclrtGetStreamIdFromExceptionInfo(info)`.
///
/// # Safety
/// As [`aclrtGetTaskIdFromExceptionInfo`].
#[no_mangle]
pub unsafe extern "C" fn aclrtGetStreamIdFromExceptionInfo(info: *const ExceptionInfoC) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { field(info, |i| i.stream_id) }
}

/// `aclrtGetThreadIdFromExceptionInfo(info)`.
///
/// # Safety
/// As [`aclrtGetTaskIdFromExceptionInfo`].
#[no_mangle]
pub unsafe extern "C" fn aclrtGetThreadIdFromExceptionInfo(info: *const ExceptionInfoC) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { field(info, |i| i.thread_id) }
}

/// `aclrtGetDeviceIdFromExceptionInfo(info)`.
///
/// # Safety
/// As [`aclrtGetTaskIdFromExceptionInfo`].
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDeviceIdFromExceptionInfo(info: *const ExceptionInfoC) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { field(info, |i| i.device_id) }
}

/// `aclrtGetErrorCodeFromExceptionInfo(info)`.
///
/// # Safety
/// As [`aclrtGetTaskIdFromExceptionInfo`].
#[no_mangle]
pub unsafe extern "C" fn aclrtGetErrorCodeFromExceptionInfo(info: *const ExceptionInfoC) -> u32 {
    // SAFETY: forwarded contract.
    unsafe { field(info, |i| i.error_code) }
}

/// `aclrtGetArgsFromExceptionInfo(info, &devArgsPtr, &devArgsLen)`: `0xFFFFFFFF` for a NULL
/// info; 100000 for a NULL output; otherwise `0xFFFFFFFF` too: the simulator keeps no device
/// copy of a kernel's arguments to point at.
///
/// # Safety
/// `info` as [`aclrtGetTaskIdFromExceptionInfo`]; each output NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetArgsFromExceptionInfo(
    info: *const ExceptionInfoC,
    devArgsPtr: *mut *mut c_void,
    devArgsLen: *mut u32,
) -> aclError {
    if info.is_null() {
        return INVALID_EXCEPTION_INFO as aclError;
    }
    if devArgsPtr.is_null() || devArgsLen.is_null() {
        return ascend_rt::ErrorCode::InvalidParam.number();
    }
    INVALID_EXCEPTION_INFO as aclError
}

/// `aclrtGetFuncHandleFromExceptionInfo(info, &func)`: as
/// [`aclrtGetArgsFromExceptionInfo`]; no failed task of the simulator has a function handle.
///
/// # Safety
/// `info` as [`aclrtGetTaskIdFromExceptionInfo`]; `func` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetFuncHandleFromExceptionInfo(
    info: *const ExceptionInfoC,
    func: *mut *mut c_void,
) -> aclError {
    if info.is_null() {
        return INVALID_EXCEPTION_INFO as aclError;
    }
    if func.is_null() {
        return ascend_rt::ErrorCode::InvalidParam.number();
    }
    INVALID_EXCEPTION_INFO as aclError
}

/// `aclrtGetThreadLastTaskId(&taskId)`.
///
/// # Safety
/// `taskId` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetThreadLastTaskId(taskId: *mut u32) -> aclError {
    // SAFETY: NULL or writable by the caller's contract.
    guard("aclrtGetThreadLastTaskId", |rt| {
        rt.get_thread_last_task_id(unsafe { out_ref(taskId) })
    })
}
