//! Exports: `aclInit`, `aclFinalize`, devices, contexts, SoC name, recent error message.
#![allow(non_snake_case)]

use std::cell::RefCell;
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::OnceLock;

use ascend_rt::raw_types::RawContext;

use crate::ffi::{aclError, guard, guard_args, handle_in, out_ref, write_handle};

/// `aclInit(configPath)`.
///
/// # Safety
/// `configPath` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn aclInit(configPath: *const c_char) -> aclError {
    let path = if configPath.is_null() {
        None
    } else {
        // SAFETY: non-NULL and NUL-terminated by the caller's contract.
        Some(
            unsafe { CStr::from_ptr(configPath) }
                .to_string_lossy()
                .into_owned(),
        )
    };
    guard("aclInit", |rt| rt.init(path.as_deref()))
}

/// `aclFinalize()`: also writes the run report when `ASCEND_SIM_REPORT` is set.
#[no_mangle]
pub extern "C" fn aclFinalize() -> aclError {
    let code = guard("aclFinalize", |rt| rt.finalize());
    crate::global::write_report();
    code
}

/// `aclrtSetDevice(deviceId)`.
#[no_mangle]
pub extern "C" fn aclrtSetDevice(deviceId: i32) -> aclError {
    guard_args(
        "aclrtSetDevice",
        || format!("deviceId={:?}", deviceId),
        |rt| rt.set_device(deviceId),
    )
}

/// `aclrtResetDevice(deviceId)`.
#[no_mangle]
pub extern "C" fn aclrtResetDevice(deviceId: i32) -> aclError {
    guard_args(
        "aclrtResetDevice",
        || format!("deviceId={:?}", deviceId),
        |rt| rt.reset_device(deviceId),
    )
}

/// `aclrtResetDeviceForce(deviceId)`.
#[no_mangle]
pub extern "C" fn aclrtResetDeviceForce(deviceId: i32) -> aclError {
    guard_args(
        "aclrtResetDeviceForce",
        || format!("deviceId={:?}", deviceId),
        |rt| rt.reset_device_force(deviceId),
    )
}

/// `aclrtGetDevice(&deviceId)`.
///
/// # Safety
/// `deviceId` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDevice(deviceId: *mut i32) -> aclError {
    guard_args(
        "aclrtGetDevice",
        || format!("deviceId={:?}", deviceId),
        |rt| {
            // SAFETY: NULL or valid for writes by the caller's contract.
            let out = unsafe { out_ref(deviceId) };
            rt.get_device(out)
        },
    )
}

/// `aclrtGetDeviceCount(&count)`.
///
/// # Safety
/// `count` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDeviceCount(count: *mut u32) -> aclError {
    guard_args(
        "aclrtGetDeviceCount",
        || format!("count={:?}", count),
        |rt| {
            // SAFETY: NULL or valid for writes by the caller's contract.
            let out = unsafe { out_ref(count) };
            rt.get_device_count(out)
        },
    )
}

/// `aclrtSynchronizeDevice()`.
#[no_mangle]
pub extern "C" fn aclrtSynchronizeDevice() -> aclError {
    guard("aclrtSynchronizeDevice", |rt| rt.synchronize_device())
}

/// `aclrtGetCurrentContext(&context)`.
///
/// # Safety
/// `context` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetCurrentContext(context: *mut *mut c_void) -> aclError {
    guard_args(
        "aclrtGetCurrentContext",
        || format!("context={:?}", context),
        |rt| {
            let mut c = RawContext::default();
            rt.get_current_context((!context.is_null()).then_some(&mut c))?;
            // SAFETY: NULL or valid for writes by the caller's contract.
            unsafe { write_handle(context, c.0) };
            Ok(())
        },
    )
}

/// `aclrtSetCurrentContext(context)`.
#[no_mangle]
pub extern "C" fn aclrtSetCurrentContext(context: *mut c_void) -> aclError {
    guard_args(
        "aclrtSetCurrentContext",
        || format!("context={:?}", context),
        |rt| rt.set_current_context(RawContext(handle_in(context))),
    )
}

/// `aclrtGetSocName()`: the simulated SoC's name, or NULL if the simulator could not start.
#[no_mangle]
pub extern "C" fn aclrtGetSocName() -> *const c_char {
    static NAME: OnceLock<Option<CString>> = OnceLock::new();
    let name = NAME.get_or_init(|| {
        std::panic::catch_unwind(|| {
            crate::global::runtime()
                .ok()
                .and_then(|rt| rt.get_soc_name())
                .and_then(|s| CString::new(s).ok())
        })
        .ok()
        .flatten()
    });
    name.as_ref().map_or(std::ptr::null(), |c| c.as_ptr())
}

thread_local! {
    static RECENT: RefCell<Option<CString>> = const { RefCell::new(None) };
}

/// `aclGetRecentErrMsg()`: the calling thread's recent error messages (newest first), or NULL.
/// The text stays valid until the thread's next call; reading clears the messages.
#[no_mangle]
pub extern "C" fn aclGetRecentErrMsg() -> *const c_char {
    std::panic::catch_unwind(|| {
        // A simulator that could not start explains why, on every call.
        let text = match crate::global::runtime() {
            Ok(rt) => rt.get_recent_err_msg(),
            Err(why) => Some(why.to_string()),
        }
        .map(|t| CString::new(t.replace('\0', " ")).unwrap_or_default());
        RECENT.with(|r| {
            *r.borrow_mut() = text;
            r.borrow().as_ref().map_or(std::ptr::null(), |c| c.as_ptr())
        })
    })
    .unwrap_or(std::ptr::null())
}
