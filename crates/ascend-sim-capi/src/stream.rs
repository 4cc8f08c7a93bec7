//! Exports: streams.
#![allow(non_snake_case)]

use std::ffi::c_void;

use ascend_rt::raw_types::RawStream;

use crate::ffi::{aclError, guard_args, handle_in, out_ref, write_handle};

fn s(p: *mut c_void) -> RawStream {
    RawStream(handle_in(p))
}

/// `aclrtCreateStream(&stream)`.
///
/// # Safety
/// `stream` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateStream(stream: *mut *mut c_void) -> aclError {
    guard_args(
        "aclrtCreateStream",
        || format!("stream={:?}", stream),
        |rt| {
            let mut h = RawStream::NULL;
            rt.create_stream((!stream.is_null()).then_some(&mut h))?;
            // SAFETY: NULL or valid for writes by the caller's contract.
            unsafe { write_handle(stream, h.0) };
            Ok(())
        },
    )
}

/// `aclrtCreateStreamWithConfig(&stream, priority, flag)`.
///
/// # Safety
/// `stream` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateStreamWithConfig(
    stream: *mut *mut c_void,
    priority: u32,
    flag: u32,
) -> aclError {
    guard_args(
        "aclrtCreateStreamWithConfig",
        || {
            format!(
                "stream={:?}, priority={:?}, flag={:?}",
                stream, priority, flag
            )
        },
        |rt| {
            let mut h = RawStream::NULL;
            rt.create_stream_with_config((!stream.is_null()).then_some(&mut h), priority, flag)?;
            // SAFETY: NULL or valid for writes by the caller's contract.
            unsafe { write_handle(stream, h.0) };
            Ok(())
        },
    )
}

/// `aclrtDestroyStream(stream)`.
#[no_mangle]
pub extern "C" fn aclrtDestroyStream(stream: *mut c_void) -> aclError {
    guard_args(
        "aclrtDestroyStream",
        || format!("stream={:?}", stream),
        |rt| rt.destroy_stream(s(stream)),
    )
}

/// `aclrtDestroyStreamForce(stream)`.
#[no_mangle]
pub extern "C" fn aclrtDestroyStreamForce(stream: *mut c_void) -> aclError {
    guard_args(
        "aclrtDestroyStreamForce",
        || format!("stream={:?}", stream),
        |rt| rt.destroy_stream_force(s(stream)),
    )
}

/// `aclrtSynchronizeStream(stream)`.
#[no_mangle]
pub extern "C" fn aclrtSynchronizeStream(stream: *mut c_void) -> aclError {
    guard_args(
        "aclrtSynchronizeStream",
        || format!("stream={:?}", stream),
        |rt| rt.synchronize_stream(s(stream)),
    )
}

/// `aclrtSynchronizeStreamWithTimeout(stream, timeout)`.
#[no_mangle]
pub extern "C" fn aclrtSynchronizeStreamWithTimeout(stream: *mut c_void, timeout: i32) -> aclError {
    guard_args(
        "aclrtSynchronizeStreamWithTimeout",
        || format!("stream={:?}, timeout={:?}", stream, timeout),
        |rt| rt.synchronize_stream_with_timeout(s(stream), timeout),
    )
}

/// `aclrtStreamQuery(stream, &status)`; `status` is an `aclrtStreamStatus` (a C enum, 32 bits).
///
/// # Safety
/// `status` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtStreamQuery(stream: *mut c_void, status: *mut u32) -> aclError {
    guard_args(
        "aclrtStreamQuery",
        || format!("stream={:?}, status={:?}", stream, status),
        |rt| {
            // SAFETY: NULL or valid for writes by the caller's contract.
            rt.stream_query(s(stream), unsafe { out_ref(status) })
        },
    )
}
