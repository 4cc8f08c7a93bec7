//! Exports: stream config handles and stream queries (`aclrtCreateStreamConfigHandle`,
//! `aclrtSetStreamConfigOpt`, `aclrtCreateStreamV2`, `aclrtDestroyStreamConfigHandle`,
//! `aclrtStreamGetPriority`, `aclrtStreamGetFlags`, `aclrtStreamGetId`,
//! `aclrtSetStreamFailureMode`).
#![allow(non_snake_case)]

use std::ffi::c_void;

use ascend_rt::raw_types::{RawStream, RawStreamConfig};

use crate::ffi::{aclError, guard, guard_args, handle_in, handle_out, out_ref, write_handle};

fn s(p: *mut c_void) -> RawStream {
    RawStream(handle_in(p))
}

/// `aclrtStreamConfigHandle` as C lays it out.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct StreamConfigC {
    workptr: *mut c_void,
    work_size: usize,
    flag: usize,
    priority: u32,
}

impl StreamConfigC {
    fn to_raw(self) -> RawStreamConfig {
        RawStreamConfig {
            work_ptr: self.workptr as usize as u64,
            work_size: self.work_size as u64,
            flag: self.flag as u64,
            priority: self.priority,
        }
    }

    fn from_raw(r: RawStreamConfig) -> StreamConfigC {
        StreamConfigC {
            workptr: r.work_ptr as usize as *mut c_void,
            work_size: r.work_size as usize,
            flag: r.flag as usize,
            priority: r.priority,
        }
    }
}

/// `aclrtCreateStreamConfigHandle()`: a zeroed handle the caller releases with
/// `aclrtDestroyStreamConfigHandle`; NULL only if the runtime cannot start.
#[no_mangle]
pub extern "C" fn aclrtCreateStreamConfigHandle() -> *mut StreamConfigC {
    let mut raw = None;
    if guard("aclrtCreateStreamConfigHandle", |rt| {
        raw = Some(rt.create_stream_config_handle());
        Ok(())
    }) != 0
    {
        return std::ptr::null_mut();
    }
    Box::into_raw(Box::new(StreamConfigC::from_raw(raw.unwrap_or_default())))
}

/// `aclrtDestroyStreamConfigHandle(handle)`.
///
/// # Safety
/// `handle` is NULL or came from `aclrtCreateStreamConfigHandle` and was not destroyed.
#[no_mangle]
pub unsafe extern "C" fn aclrtDestroyStreamConfigHandle(handle: *mut StreamConfigC) -> aclError {
    guard_args(
        "aclrtDestroyStreamConfigHandle",
        || format!("handle={:?}", handle),
        |rt| {
            // SAFETY: NULL or a live handle of ours by the caller's contract.
            let cfg = unsafe { handle.as_ref() }.map(|h| h.to_raw());
            rt.destroy_stream_config_handle(cfg)?;
            // SAFETY: non-NULL (checked above) and allocated by Box::into_raw in this crate.
            drop(unsafe { Box::from_raw(handle) });
            Ok(())
        },
    )
}

/// `aclrtSetStreamConfigOpt(handle, attr, attrValue, valueSize)`.
///
/// # Safety
/// `handle` is NULL or a live handle; `attrValue` is NULL or readable for `valueSize` bytes.
#[no_mangle]
pub unsafe extern "C" fn aclrtSetStreamConfigOpt(
    handle: *mut StreamConfigC,
    attr: u32,
    attrValue: *const c_void,
    valueSize: usize,
) -> aclError {
    guard_args(
        "aclrtSetStreamConfigOpt",
        || {
            format!(
                "handle={:?}, attr={:?}, attrValue={:?}, valueSize={:?}",
                handle, attr, attrValue, valueSize
            )
        },
        |rt| {
            // No option takes more than 8 bytes: no more are read, whatever `valueSize` says (the
            // size is checked before the bytes are used).
            let readable = valueSize.min(8);
            // SAFETY: NULL or readable for `valueSize` bytes by the caller's contract, and
            // `readable` is at most that.
            let value = (!attrValue.is_null()).then(|| {
                (valueSize, unsafe {
                    std::slice::from_raw_parts(attrValue.cast::<u8>(), readable)
                })
            });
            // SAFETY: NULL or a live handle of ours by the caller's contract.
            let h = unsafe { out_ref(handle) };
            let mut raw = h.as_ref().map(|h| h.to_raw());
            rt.set_stream_config_opt_sized(raw.as_mut(), attr, value)?;
            if let (Some(h), Some(r)) = (h, raw) {
                *h = StreamConfigC::from_raw(r);
            }
            Ok(())
        },
    )
}

/// `aclrtCreateStreamV2(&stream, handle)`.
///
/// # Safety
/// `stream` is NULL or valid for a write; `handle` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateStreamV2(
    stream: *mut *mut c_void,
    handle: *const StreamConfigC,
) -> aclError {
    guard_args(
        "aclrtCreateStreamV2",
        || format!("stream={:?}, handle={:?}", stream, handle),
        |rt| {
            // SAFETY: NULL or a live handle of ours by the caller's contract.
            let cfg = unsafe { handle.as_ref() }.map(|h| h.to_raw());
            let mut h = RawStream::NULL;
            rt.create_stream_v2((!stream.is_null()).then_some(&mut h), cfg.as_ref())?;
            // SAFETY: NULL or valid for writes by the caller's contract.
            unsafe { write_handle(stream, h.0) };
            Ok(())
        },
    )
}

/// `aclrtStreamGetPriority(stream, &priority)`.
///
/// # Safety
/// `priority` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtStreamGetPriority(
    stream: *mut c_void,
    priority: *mut u32,
) -> aclError {
    // SAFETY: NULL or valid for writes by the caller's contract.
    guard("aclrtStreamGetPriority", |rt| {
        rt.stream_get_priority(s(stream), unsafe { out_ref(priority) })
    })
}

/// `aclrtStreamGetFlags(stream, &flags)`.
///
/// # Safety
/// `flags` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtStreamGetFlags(stream: *mut c_void, flags: *mut u32) -> aclError {
    // SAFETY: NULL or valid for writes by the caller's contract.
    guard("aclrtStreamGetFlags", |rt| {
        rt.stream_get_flags(s(stream), unsafe { out_ref(flags) })
    })
}

/// `aclrtStreamGetId(stream, &streamId)`.
///
/// # Safety
/// `streamId` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtStreamGetId(stream: *mut c_void, streamId: *mut i32) -> aclError {
    // SAFETY: NULL or valid for writes by the caller's contract.
    guard("aclrtStreamGetId", |rt| {
        rt.stream_get_id(s(stream), unsafe { out_ref(streamId) })
    })
}

/// `aclrtSetStreamFailureMode(stream, mode)`.
#[no_mangle]
pub extern "C" fn aclrtSetStreamFailureMode(stream: *mut c_void, mode: u64) -> aclError {
    guard_args(
        "aclrtSetStreamFailureMode",
        || format!("stream={:?}, mode={:?}", stream, mode),
        |rt| rt.set_stream_failure_mode(s(stream), mode),
    )
}

/// `aclrtStreamStateCallback`.
pub type StreamStateCallbackC =
    Option<unsafe extern "C" fn(stm: *mut c_void, state: u32, args: *mut c_void)>;

/// The program's callback and its argument, to call on the creating or destroying thread.
struct StateCall {
    f: unsafe extern "C" fn(*mut c_void, u32, *mut c_void),
    args: *mut c_void,
}

// SAFETY: the program hands `args` to the runtime to be passed to `f` on whatever thread
// creates or destroys a stream: that is the contract of aclrtRegStreamStateCallback.
unsafe impl Send for StateCall {}
// SAFETY: as above; the runtime only reads the pair.
unsafe impl Sync for StateCall {}

/// `aclrtRegStreamStateCallback(regName, callback, args)`: NULL callback unregisters.
///
/// # Safety
/// `regName` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn aclrtRegStreamStateCallback(
    regName: *const std::ffi::c_char,
    callback: StreamStateCallbackC,
    args: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtRegStreamStateCallback",
        || {
            format!(
                "regName={:?}, callback={:?}, args={:?}",
                regName, callback, args
            )
        },
        |rt| {
            // SAFETY: NULL or NUL-terminated by the caller's contract.
            let name = unsafe { crate::ffi::opt_str(regName) };
            let cb = callback.map(|f| {
                let call = std::sync::Arc::new(StateCall { f, args });
                std::sync::Arc::new(move |s: RawStream, state: u32| {
                    // SAFETY: the program's callback with the argument it registered.
                    unsafe { (call.f)(handle_out(s.0), state, call.args) }
                }) as ascend_rt::StreamStateCallback
            });
            rt.reg_stream_state_callback(name.as_deref(), cb)
        },
    )
}

/// `aclrtStreamAbort(stream)`.
#[no_mangle]
pub extern "C" fn aclrtStreamAbort(stream: *mut c_void) -> aclError {
    guard_args(
        "aclrtStreamAbort",
        || format!("stream={:?}", stream),
        |rt| rt.stream_abort(RawStream(handle_in(stream))),
    )
}

/// `aclrtStreamStop(stream)`.
#[no_mangle]
pub extern "C" fn aclrtStreamStop(stream: *mut c_void) -> aclError {
    guard_args(
        "aclrtStreamStop",
        || format!("stream={:?}", stream),
        |rt| rt.stream_stop(RawStream(handle_in(stream))),
    )
}
