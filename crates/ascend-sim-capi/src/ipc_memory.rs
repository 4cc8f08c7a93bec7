//! Exports: IPC memory (`aclrtIpcMemGetExportKey`, `aclrtIpcMemSetImportPid`,
//! `aclrtIpcMemImportByKey`, `aclrtIpcMemClose`), `aclrtDeviceGetBareTgid`, and IPC notifies
//! (`aclrtNotifyGetExportKey`, `aclrtNotifySetImportPid`, `aclrtNotifyImportByKey`). Keys are C
//! strings; the exporter's key is written into the caller's buffer of `len` bytes.
#![allow(non_snake_case, non_camel_case_types)]

use std::ffi::{c_char, c_void};

use ascend_rt::raw_types::{Addr, RawEvent, RawNotify};

use crate::ffi::{aclError, guard_args, handle_in, opt_str, out_ref, write_handle};

/// Writes `k` and its terminator at `key`.
///
/// # Safety
/// `key` is valid for writes of `k.len() + 1` bytes.
unsafe fn write_key(key: *mut c_char, k: &str) {
    let bytes = k.as_bytes();
    // SAFETY: valid for `bytes.len() + 1` bytes (this function's contract).
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), key.cast::<u8>(), bytes.len());
        key.add(bytes.len()).write(0);
    }
}

/// The pid list of a set-import-pid call: `None` for NULL, else the ids the front end may
/// read (at most `num`, taken as 32 bits when positive, as the runtime takes it).
///
/// # Safety
/// `pid` is NULL or valid for reads of `num` ids.
pub(crate) unsafe fn pid_list<'a>(pid: *const i32, num: usize) -> Option<&'a [i32]> {
    let n = (num as i32).max(0) as usize;
    // SAFETY: non-NULL and valid for reads of `num` ids, of which at most `n` are read.
    (!pid.is_null()).then(|| unsafe { std::slice::from_raw_parts(pid, n) })
}

/// `aclrtIpcMemGetExportKey(devPtr, size, key, len, flags)`.
///
/// # Safety
/// `key` is NULL or valid for writes of `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn aclrtIpcMemGetExportKey(
    devPtr: *mut c_void,
    size: usize,
    key: *mut c_char,
    len: usize,
    flags: u64,
) -> aclError {
    guard_args(
        "aclrtIpcMemGetExportKey",
        || format!("devPtr={devPtr:?}, size={size}, key={key:?}, len={len}, flags={flags}"),
        |rt| {
            let mut k = String::new();
            let out = (!key.is_null()).then_some(&mut k);
            rt.ipc_mem_get_export_key(Addr(devPtr as usize as u64), size, out, len, flags)?;
            // SAFETY: non-NULL (refused otherwise), valid for `len` bytes (the caller's
            // contract), which the front end checked hold the key and its terminator.
            unsafe { write_key(key, &k) };
            Ok(())
        },
    )
}

/// `aclrtIpcMemSetImportPid(key, pid, num)`.
///
/// # Safety
/// `key` is NULL or NUL-terminated; `pid` is NULL or valid for reads of `num` ids.
#[no_mangle]
pub unsafe extern "C" fn aclrtIpcMemSetImportPid(
    key: *const c_char,
    pid: *mut i32,
    num: usize,
) -> aclError {
    guard_args(
        "aclrtIpcMemSetImportPid",
        || format!("key={key:?}, pid={pid:?}, num={num}"),
        |rt| {
            // SAFETY: NULL or NUL-terminated (the caller's contract).
            let k = unsafe { opt_str(key) };
            // SAFETY: NULL or valid for reads of `num` ids (the caller's contract).
            let pids = unsafe { pid_list(pid, num) };
            rt.ipc_mem_set_import_pid(k.as_deref(), pids, num)
        },
    )
}

/// `aclrtIpcMemImportByKey(&devPtr, key, flags)`.
///
/// # Safety
/// `devPtr` is NULL or valid for a write; `key` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn aclrtIpcMemImportByKey(
    devPtr: *mut *mut c_void,
    key: *const c_char,
    flags: u64,
) -> aclError {
    guard_args(
        "aclrtIpcMemImportByKey",
        || format!("devPtr={devPtr:?}, key={key:?}, flags={flags}"),
        |rt| {
            // SAFETY: NULL or NUL-terminated (the caller's contract).
            let k = unsafe { opt_str(key) };
            let mut addr = Addr::NULL;
            let out = (!devPtr.is_null()).then_some(&mut addr);
            rt.ipc_mem_import_by_key(out, k.as_deref(), flags)?;
            // SAFETY: non-NULL (refused above otherwise) and valid for a write.
            unsafe { devPtr.write(addr.0 as usize as *mut c_void) };
            Ok(())
        },
    )
}

/// `aclrtIpcMemClose(key)`.
///
/// # Safety
/// `key` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn aclrtIpcMemClose(key: *const c_char) -> aclError {
    guard_args(
        "aclrtIpcMemClose",
        || format!("key={key:?}"),
        |rt| {
            // SAFETY: NULL or NUL-terminated (the caller's contract).
            let k = unsafe { opt_str(key) };
            rt.ipc_mem_close(k.as_deref())
        },
    )
}

/// `aclrtIpcMemSetAttr(key, type, attr)`.
///
/// # Safety
/// `key` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn aclrtIpcMemSetAttr(key: *const c_char, kind: u32, attr: u64) -> aclError {
    guard_args(
        "aclrtIpcMemSetAttr",
        || format!("key={key:?}, type={kind}, attr={attr}"),
        |rt| {
            // SAFETY: NULL or NUL-terminated (the caller's contract).
            let k = unsafe { opt_str(key) };
            rt.ipc_mem_set_attr(k.as_deref(), kind, attr)
        },
    )
}

/// `aclrtDeviceGetBareTgid(&pid)`.
///
/// # Safety
/// `pid` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtDeviceGetBareTgid(pid: *mut i32) -> aclError {
    guard_args(
        "aclrtDeviceGetBareTgid",
        || format!("pid={pid:?}"),
        // SAFETY: NULL or valid for a write (the caller's contract).
        |rt| rt.device_get_bare_tgid(unsafe { out_ref(pid) }),
    )
}

/// `aclrtNotifyGetExportKey(notify, key, len, flags)`.
///
/// # Safety
/// `key` is NULL or valid for writes of `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn aclrtNotifyGetExportKey(
    notify: *mut c_void,
    key: *mut c_char,
    len: usize,
    flags: u64,
) -> aclError {
    guard_args(
        "aclrtNotifyGetExportKey",
        || format!("notify={notify:?}, key={key:?}, len={len}, flags={flags}"),
        |rt| {
            let mut k = String::new();
            let out = (!key.is_null()).then_some(&mut k);
            rt.notify_get_export_key(RawNotify(handle_in(notify)), out, len, flags)?;
            // SAFETY: as for the memory key.
            unsafe { write_key(key, &k) };
            Ok(())
        },
    )
}

/// `aclrtNotifySetImportPid(notify, pid, num)`.
///
/// # Safety
/// `pid` is NULL or valid for reads of `num` ids.
#[no_mangle]
pub unsafe extern "C" fn aclrtNotifySetImportPid(
    notify: *mut c_void,
    pid: *mut i32,
    num: usize,
) -> aclError {
    guard_args(
        "aclrtNotifySetImportPid",
        || format!("notify={notify:?}, pid={pid:?}, num={num}"),
        |rt| {
            // SAFETY: NULL or valid for reads of `num` ids (the caller's contract).
            let pids = unsafe { pid_list(pid, num) };
            rt.notify_set_import_pid(RawNotify(handle_in(notify)), pids, num)
        },
    )
}

/// `aclrtNotifyImportByKey(&notify, key, flags)`.
///
/// # Safety
/// `notify` is NULL or valid for a write; `key` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn aclrtNotifyImportByKey(
    notify: *mut *mut c_void,
    key: *const c_char,
    flags: u64,
) -> aclError {
    guard_args(
        "aclrtNotifyImportByKey",
        || format!("notify={notify:?}, key={key:?}, flags={flags}"),
        |rt| {
            // SAFETY: NULL or NUL-terminated (the caller's contract).
            let k = unsafe { opt_str(key) };
            let mut n = RawNotify::default();
            let out = (!notify.is_null()).then_some(&mut n);
            rt.notify_import_by_key(out, k.as_deref(), flags)?;
            // SAFETY: NULL or valid for a write (the caller's contract).
            unsafe { write_handle(notify, n.0) };
            Ok(())
        },
    )
}

// `aclrtIpcEventHandle`: the bindings' type (64 bytes, of which the runtime uses the first
// 8), so that the exports have the bindings' signatures.
use ascend_rt_sys::aclrtIpcEventHandle;

/// `aclrtIpcGetEventHandle(event, &handle)`.
///
/// # Safety
/// `handle` is NULL or valid for reads and writes of one handle.
#[no_mangle]
pub unsafe extern "C" fn aclrtIpcGetEventHandle(
    event: *mut c_void,
    handle: *mut aclrtIpcEventHandle,
) -> aclError {
    guard_args(
        "aclrtIpcGetEventHandle",
        || format!("event={event:?}, handle={handle:?}"),
        |rt| {
            let mut bytes = [0u8; ascend_rt::IPC_EVENT_HANDLE_SIZE];
            if !handle.is_null() {
                // SAFETY: non-NULL and valid for reads (the caller's contract).
                let h = unsafe { handle.read() };
                for (b, c) in bytes.iter_mut().zip(h.reserved) {
                    *b = c as u8;
                }
            }
            let out = (!handle.is_null()).then_some(&mut bytes);
            rt.ipc_get_event_handle(RawEvent(handle_in(event)), out)?;
            let mut h = aclrtIpcEventHandle::default();
            for (c, b) in h.reserved.iter_mut().zip(bytes) {
                *c = b as c_char;
            }
            // SAFETY: non-NULL (refused otherwise) and valid for a write.
            unsafe { handle.write(h) };
            Ok(())
        },
    )
}

/// `aclrtIpcOpenEventHandle(handle, &event)`.
///
/// # Safety
/// `event` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtIpcOpenEventHandle(
    handle: aclrtIpcEventHandle,
    event: *mut *mut c_void,
) -> aclError {
    guard_args(
        "aclrtIpcOpenEventHandle",
        || format!("event={event:?}"),
        |rt| {
            let mut bytes = [0u8; ascend_rt::IPC_EVENT_HANDLE_SIZE];
            for (b, c) in bytes.iter_mut().zip(handle.reserved) {
                *b = c as u8;
            }
            let mut e = RawEvent::default();
            let out = (!event.is_null()).then_some(&mut e);
            rt.ipc_open_event_handle(&bytes, out)?;
            // SAFETY: NULL or valid for a write (the caller's contract).
            unsafe { write_handle(event, e.0) };
            Ok(())
        },
    )
}
