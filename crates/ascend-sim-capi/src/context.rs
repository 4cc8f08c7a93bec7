//! Exports: explicit contexts and thread queries (`aclrtCreateContext`, `aclrtDestroyContext`,
//! `aclrtCtxGetCurrentDefaultStream`, `aclrtGetResInCurrentThread`, `aclrtGetRunMode`).
#![allow(non_snake_case)]

use std::ffi::c_void;

use ascend_rt::raw_types::{RawContext, RawStream};

use crate::ffi::{aclError, guard, guard_args, handle_in, out_ref, write_handle};

/// `aclrtCreateContext(&context, deviceId)`.
///
/// # Safety
/// `context` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateContext(context: *mut *mut c_void, deviceId: i32) -> aclError {
    guard_args(
        "aclrtCreateContext",
        || format!("context={:?}, deviceId={:?}", context, deviceId),
        |rt| {
            let mut c = RawContext::default();
            rt.create_context((!context.is_null()).then_some(&mut c), deviceId)?;
            // SAFETY: NULL or valid for writes by the caller's contract.
            unsafe { write_handle(context, c.0) };
            Ok(())
        },
    )
}

/// `aclrtDestroyContext(context)`.
#[no_mangle]
pub extern "C" fn aclrtDestroyContext(context: *mut c_void) -> aclError {
    guard_args(
        "aclrtDestroyContext",
        || format!("context={:?}", context),
        |rt| rt.destroy_context(RawContext(handle_in(context))),
    )
}

/// `aclrtCtxGetCurrentDefaultStream(&stream)`.
///
/// # Safety
/// `stream` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtCtxGetCurrentDefaultStream(stream: *mut *mut c_void) -> aclError {
    guard_args(
        "aclrtCtxGetCurrentDefaultStream",
        || format!("stream={:?}", stream),
        |rt| {
            let mut s = RawStream::NULL;
            rt.ctx_get_current_default_stream((!stream.is_null()).then_some(&mut s))?;
            // SAFETY: NULL or valid for writes by the caller's contract.
            unsafe { write_handle(stream, s.0) };
            Ok(())
        },
    )
}

/// `aclrtGetResInCurrentThread(type, &value)`; `type` is an `aclrtDevResLimitType`.
///
/// # Safety
/// `value` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetResInCurrentThread(resType: u32, value: *mut u32) -> aclError {
    // SAFETY: NULL or valid for writes by the caller's contract.
    guard("aclrtGetResInCurrentThread", |rt| {
        rt.get_res_in_current_thread(resType, unsafe { out_ref(value) })
    })
}

/// `aclrtGetRunMode(&runMode)`; `runMode` is an `aclrtRunMode` (a C enum, 32 bits).
///
/// # Safety
/// `runMode` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetRunMode(runMode: *mut u32) -> aclError {
    // SAFETY: NULL or valid for writes by the caller's contract.
    guard("aclrtGetRunMode", |rt| {
        rt.get_run_mode(unsafe { out_ref(runMode) })
    })
}
