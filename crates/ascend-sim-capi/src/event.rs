//! Exports: events.
#![allow(non_snake_case)]

use std::ffi::c_void;

use ascend_rt::raw_types::{RawEvent, RawStream};

use crate::ffi::{aclError, guard_args, handle_in, out_ref, write_handle};

fn e(p: *mut c_void) -> RawEvent {
    RawEvent(handle_in(p))
}

fn s(p: *mut c_void) -> RawStream {
    RawStream(handle_in(p))
}

/// `aclrtCreateEvent(&event)`.
///
/// # Safety
/// `event` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateEvent(event: *mut *mut c_void) -> aclError {
    guard_args(
        "aclrtCreateEvent",
        || format!("event={:?}", event),
        |rt| {
            let mut h = RawEvent::default();
            rt.create_event((!event.is_null()).then_some(&mut h))?;
            // SAFETY: NULL or valid for writes by the caller's contract.
            unsafe { write_handle(event, h.0) };
            Ok(())
        },
    )
}

/// `aclrtRecordEvent(event, stream)`.
#[no_mangle]
pub extern "C" fn aclrtRecordEvent(event: *mut c_void, stream: *mut c_void) -> aclError {
    guard_args(
        "aclrtRecordEvent",
        || format!("event={:?}, stream={:?}", event, stream),
        |rt| rt.record_event(e(event), s(stream)),
    )
}

/// `aclrtResetEvent(event, stream)`.
#[no_mangle]
pub extern "C" fn aclrtResetEvent(event: *mut c_void, stream: *mut c_void) -> aclError {
    guard_args(
        "aclrtResetEvent",
        || format!("event={:?}, stream={:?}", event, stream),
        |rt| rt.reset_event(e(event), s(stream)),
    )
}

/// `aclrtStreamWaitEvent(stream, event)`.
#[no_mangle]
pub extern "C" fn aclrtStreamWaitEvent(stream: *mut c_void, event: *mut c_void) -> aclError {
    guard_args(
        "aclrtStreamWaitEvent",
        || format!("stream={:?}, event={:?}", stream, event),
        |rt| rt.stream_wait_event(s(stream), e(event)),
    )
}

/// `aclrtSynchronizeEvent(event)`.
#[no_mangle]
pub extern "C" fn aclrtSynchronizeEvent(event: *mut c_void) -> aclError {
    guard_args(
        "aclrtSynchronizeEvent",
        || format!("event={:?}", event),
        |rt| rt.synchronize_event(e(event)),
    )
}

/// `aclrtSynchronizeEventWithTimeout(event, timeout)`.
#[no_mangle]
pub extern "C" fn aclrtSynchronizeEventWithTimeout(event: *mut c_void, timeout: i32) -> aclError {
    guard_args(
        "aclrtSynchronizeEventWithTimeout",
        || format!("event={:?}, timeout={:?}", event, timeout),
        |rt| rt.synchronize_event_with_timeout(e(event), timeout),
    )
}

/// `aclrtQueryEventStatus(event, &status)`; `status` is an `aclrtEventRecordedStatus`.
///
/// # Safety
/// `status` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtQueryEventStatus(event: *mut c_void, status: *mut u32) -> aclError {
    guard_args(
        "aclrtQueryEventStatus",
        || format!("event={:?}, status={:?}", event, status),
        |rt| {
            // SAFETY: NULL or valid for writes by the caller's contract.
            rt.query_event_status(e(event), unsafe { out_ref(status) })
        },
    )
}

/// `aclrtEventElapsedTime(&ms, start, end)`.
///
/// # Safety
/// `ms` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtEventElapsedTime(
    ms: *mut f32,
    start: *mut c_void,
    end: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtEventElapsedTime",
        || format!("ms={:?}, start={:?}, end={:?}", ms, start, end),
        |rt| {
            // SAFETY: NULL or valid for writes by the caller's contract.
            rt.event_elapsed_time(unsafe { out_ref(ms) }, e(start), e(end))
        },
    )
}

/// `aclrtDestroyEvent(event)`.
#[no_mangle]
pub extern "C" fn aclrtDestroyEvent(event: *mut c_void) -> aclError {
    guard_args(
        "aclrtDestroyEvent",
        || format!("event={:?}", event),
        |rt| rt.destroy_event(e(event)),
    )
}

/// `aclrtRecordEventWithFlag(event, stream, flag)`.
#[no_mangle]
pub extern "C" fn aclrtRecordEventWithFlag(
    event: *mut c_void,
    stream: *mut c_void,
    flag: u32,
) -> aclError {
    guard_args(
        "aclrtRecordEventWithFlag",
        || format!("event={:?}, stream={:?}, flag={:?}", event, stream, flag),
        |rt| rt.record_event_with_flag(e(event), s(stream), flag),
    )
}

/// `aclrtStreamWaitEventWithFlag(stream, event, timeout, flag)`.
#[no_mangle]
pub extern "C" fn aclrtStreamWaitEventWithFlag(
    stream: *mut c_void,
    event: *mut c_void,
    timeout: u32,
    flag: u32,
) -> aclError {
    guard_args(
        "aclrtStreamWaitEventWithFlag",
        || {
            format!(
                "stream={:?}, event={:?}, timeout={:?}, flag={:?}",
                stream, event, timeout, flag
            )
        },
        |rt| rt.stream_wait_event_with_flag(s(stream), e(event), timeout, flag),
    )
}
