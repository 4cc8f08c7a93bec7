//! Exports: float overflow detection (`aclrtSetDeviceSatMode`, `aclrtGetDeviceSatMode`,
//! `aclrtSetStreamOverflowSwitch`, `aclrtGetStreamOverflowSwitch`, `aclrtGetOverflowStatus`,
//! `aclrtResetOverflowStatus`).
#![allow(non_snake_case)]

use std::ffi::c_void;

use ascend_rt::raw_types::{Addr, RawStream};

use crate::ffi::{aclError, guard, guard_args, handle_in, out_ref};

/// `aclrtSetDeviceSatMode(mode)`; `aclrtFloatOverflowMode` is a 32-bit enum.
#[no_mangle]
pub extern "C" fn aclrtSetDeviceSatMode(mode: u32) -> aclError {
    guard_args(
        "aclrtSetDeviceSatMode",
        || format!("mode={:?}", mode),
        |rt| rt.set_device_sat_mode(mode),
    )
}

/// `aclrtGetDeviceSatMode(&mode)`.
///
/// # Safety
/// `mode` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDeviceSatMode(mode: *mut u32) -> aclError {
    // SAFETY: NULL or writable by the caller's contract.
    guard("aclrtGetDeviceSatMode", |rt| {
        rt.get_device_sat_mode(unsafe { out_ref(mode) })
    })
}

/// `aclrtSetStreamOverflowSwitch(stream, flag)`.
#[no_mangle]
pub extern "C" fn aclrtSetStreamOverflowSwitch(stream: *mut c_void, flag: u32) -> aclError {
    guard_args(
        "aclrtSetStreamOverflowSwitch",
        || format!("stream={:?}, flag={:?}", stream, flag),
        |rt| rt.set_stream_overflow_switch(RawStream(handle_in(stream)), flag),
    )
}

/// `aclrtGetStreamOverflowSwitch(stream, &flag)`.
///
/// # Safety
/// `flag` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetStreamOverflowSwitch(
    stream: *mut c_void,
    flag: *mut u32,
) -> aclError {
    guard_args(
        "aclrtGetStreamOverflowSwitch",
        || format!("stream={:?}, flag={:?}", stream, flag),
        |rt| {
            // SAFETY: NULL or writable by the caller's contract.
            rt.get_stream_overflow_switch(RawStream(handle_in(stream)), unsafe { out_ref(flag) })
        },
    )
}

/// `aclrtGetOverflowStatus(outputAddr, outputSize, stream)`: `outputAddr` is device memory,
/// which the simulator owns; it is never dereferenced here.
#[no_mangle]
pub extern "C" fn aclrtGetOverflowStatus(
    outputAddr: *mut c_void,
    outputSize: usize,
    stream: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtGetOverflowStatus",
        || {
            format!(
                "outputAddr={:?}, outputSize={:?}, stream={:?}",
                outputAddr, outputSize, stream
            )
        },
        |rt| {
            rt.get_overflow_status(
                Addr(handle_in(outputAddr)),
                outputSize,
                RawStream(handle_in(stream)),
            )
        },
    )
}

/// `aclrtResetOverflowStatus(stream)`.
#[no_mangle]
pub extern "C" fn aclrtResetOverflowStatus(stream: *mut c_void) -> aclError {
    guard_args(
        "aclrtResetOverflowStatus",
        || format!("stream={:?}", stream),
        |rt| rt.reset_overflow_status(RawStream(handle_in(stream))),
    )
}
