//! Exports: events with flags and event queries (`aclrtCreateEventWithFlag`,
//! `aclrtCreateEventExWithFlag`, `aclrtEventGetTimestamp`, `aclrtQueryEvent`).
#![allow(non_snake_case)]

use std::ffi::c_void;

use ascend_rt::raw_types::RawEvent;

use crate::ffi::{aclError, guard, guard_args, handle_in, out_ref, write_handle};

/// `aclrtCreateEventWithFlag(&event, flag)`.
///
/// # Safety
/// `event` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateEventWithFlag(event: *mut *mut c_void, flag: u32) -> aclError {
    guard_args(
        "aclrtCreateEventWithFlag",
        || format!("event={:?}, flag={:?}", event, flag),
        |rt| {
            let mut h = RawEvent::default();
            rt.create_event_with_flag((!event.is_null()).then_some(&mut h), flag)?;
            // SAFETY: NULL or valid for writes by the caller's contract.
            unsafe { write_handle(event, h.0) };
            Ok(())
        },
    )
}

/// `aclrtCreateEventExWithFlag(&event, flag)`.
///
/// # Safety
/// `event` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateEventExWithFlag(
    event: *mut *mut c_void,
    flag: u32,
) -> aclError {
    guard_args(
        "aclrtCreateEventExWithFlag",
        || format!("event={:?}, flag={:?}", event, flag),
        |rt| {
            let mut h = RawEvent::default();
            rt.create_event_ex_with_flag((!event.is_null()).then_some(&mut h), flag)?;
            // SAFETY: NULL or valid for writes by the caller's contract.
            unsafe { write_handle(event, h.0) };
            Ok(())
        },
    )
}

/// `aclrtEventGetTimestamp(event, &timestamp)`: µs of the device clock.
///
/// # Safety
/// `timestamp` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtEventGetTimestamp(
    event: *mut c_void,
    timestamp: *mut u64,
) -> aclError {
    // SAFETY: NULL or valid for writes by the caller's contract.
    guard("aclrtEventGetTimestamp", |rt| {
        rt.event_get_timestamp(RawEvent(handle_in(event)), unsafe { out_ref(timestamp) })
    })
}

/// `aclrtQueryEvent(event, &status)`; `status` is an `aclrtEventStatus` (a C enum, 32 bits).
///
/// # Safety
/// `status` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtQueryEvent(event: *mut c_void, status: *mut u32) -> aclError {
    // SAFETY: NULL or valid for writes by the caller's contract.
    guard("aclrtQueryEvent", |rt| {
        rt.query_event(RawEvent(handle_in(event)), unsafe { out_ref(status) })
    })
}
