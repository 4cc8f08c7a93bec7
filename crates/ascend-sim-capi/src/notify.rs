//! Exports: notifies (`aclrtCreateNotify`, `aclrtDestroyNotify`, `aclrtRecordNotify`,
//! `aclrtWaitAndResetNotify`).
#![allow(non_snake_case)]

use std::ffi::c_void;

use ascend_rt::raw_types::{RawNotify, RawStream};

use crate::ffi::{aclError, guard_args, handle_in, write_handle};

fn n(p: *mut c_void) -> RawNotify {
    RawNotify(handle_in(p))
}

/// `aclrtCreateNotify(&notify, flag)`.
///
/// # Safety
/// `notify` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateNotify(notify: *mut *mut c_void, flag: u64) -> aclError {
    guard_args(
        "aclrtCreateNotify",
        || format!("notify={:?}, flag={:?}", notify, flag),
        |rt| {
            let mut h = RawNotify::default();
            rt.create_notify((!notify.is_null()).then_some(&mut h), flag)?;
            // SAFETY: NULL or valid for writes by the caller's contract.
            unsafe { write_handle(notify, h.0) };
            Ok(())
        },
    )
}

/// `aclrtDestroyNotify(notify)`.
#[no_mangle]
pub extern "C" fn aclrtDestroyNotify(notify: *mut c_void) -> aclError {
    guard_args(
        "aclrtDestroyNotify",
        || format!("notify={:?}", notify),
        |rt| rt.destroy_notify(n(notify)),
    )
}

/// `aclrtRecordNotify(notify, stream)`.
#[no_mangle]
pub extern "C" fn aclrtRecordNotify(notify: *mut c_void, stream: *mut c_void) -> aclError {
    guard_args(
        "aclrtRecordNotify",
        || format!("notify={:?}, stream={:?}", notify, stream),
        |rt| rt.record_notify(n(notify), RawStream(handle_in(stream))),
    )
}

/// `aclrtWaitAndResetNotify(notify, stream, timeout)`; `timeout` in seconds, 0 = forever.
#[no_mangle]
pub extern "C" fn aclrtWaitAndResetNotify(
    notify: *mut c_void,
    stream: *mut c_void,
    timeout: u32,
) -> aclError {
    guard_args(
        "aclrtWaitAndResetNotify",
        || {
            format!(
                "notify={:?}, stream={:?}, timeout={:?}",
                notify, stream, timeout
            )
        },
        |rt| rt.wait_and_reset_notify(n(notify), RawStream(handle_in(stream)), timeout),
    )
}
