//! Conversions at the ABI boundary: the error code, panic containment and out-parameters.

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

use ascend_rt::{AclResult, ErrorCode, Runtime};

/// `aclError`.
#[allow(non_camel_case_types)]
pub type aclError = i32;

/// Runs the body of the entry point `api`: maps `Ok` to 0 and `Err` to its CANN code, and a
/// panic (or a runtime that could not start) to `ACL_ERROR_INTERNAL_ERROR`. Every failure is
/// counted for the run report ([`crate::api_errors`]). Called from a kernel block, the call
/// faults the block instead (a kernel may call only its context's operations).
pub fn guard(api: &'static str, body: impl FnOnce(&Runtime) -> AclResult<()>) -> aclError {
    guard_args(api, String::new, body)
}

/// [`guard`], with the call's arguments as `args` makes them (only when the host track is
/// kept: a report or a trace will be written), for the call's slice on the host track.
pub fn guard_args(
    api: &'static str,
    args: impl FnOnce() -> String,
    body: impl FnOnce(&Runtime) -> AclResult<()>,
) -> aclError {
    crate::kernels::refuse_in_kernel(api);
    let run = || match crate::global::runtime() {
        Ok(rt) => {
            let mut slice = HostSlice::begin(rt, api, args);
            let code = match body(rt) {
                Ok(()) => 0,
                Err(e) => {
                    crate::api_errors::note(api, e.code(), &e.message);
                    e.code()
                }
            };
            slice.code = code;
            code
        }
        Err(e) => {
            tracing::error!("the simulator could not start: {e}");
            ErrorCode::InternalError.number()
        }
    };
    catch_unwind(AssertUnwindSafe(run)).unwrap_or_else(|_| {
        tracing::error!("internal panic caught at the C ABI");
        let code = ErrorCode::InternalError.number();
        crate::api_errors::note(api, code, "internal panic caught at the C ABI");
        code
    })
}

/// A call's slice on the simulator's host track, from its start to its return; ended when
/// dropped, so that a panic caught at the boundary ends it too (with the code it returns).
struct HostSlice<'a> {
    view: Option<ascend_rt::SimView<'a>>,
    code: aclError,
}

impl<'a> HostSlice<'a> {
    fn begin(rt: &'a Runtime, api: &'static str, args: impl FnOnce() -> String) -> HostSlice<'a> {
        // Kept only for a report or a trace that will be written, so that a run without
        // either pays nothing for it.
        let view = rt.sim_view().filter(|_| crate::global::host_track_wanted());
        if let Some(v) = view {
            v.host_call_begin_with(api, stable_args(&v, &args()));
        }
        HostSlice {
            view,
            code: ErrorCode::InternalError.number(),
        }
    }
}

impl Drop for HostSlice<'_> {
    fn drop(&mut self) {
        if let Some(v) = self.view {
            v.host_call_end(self.code);
        }
    }
}

/// A call's arguments as the host track keeps them: device addresses and handles as given, a
/// null pointer as `NULL`, any other address (host memory, out-parameters, functions) as
/// `host`, so that the report of
/// a run does not change with where the host's memory happens to lie (its layout is random
/// from run to run).
fn stable_args(view: &ascend_rt::SimView<'_>, text: &str) -> String {
    let window = view.device_window();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("0x") {
        out.push_str(&rest[..at]);
        let hex = &rest[at + 2..];
        let len = hex
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(hex.len());
        match u64::from_str_radix(&hex[..len], 16) {
            Ok(0) => out.push_str("NULL"),
            Ok(v) if !window.contains(&v) && !view.has_handle_shape(v) => out.push_str("host"),
            _ => out.push_str(&rest[at..at + 2 + len]),
        }
        rest = &hex[len..];
    }
    out.push_str(rest);
    out
}

/// A handle value as the C `void*` it is passed as.
pub fn handle_in(p: *mut c_void) -> u64 {
    p as usize as u64
}

/// A handle value written back as a C `void*`.
pub fn handle_out(h: u64) -> *mut c_void {
    h as usize as *mut c_void
}

/// Writes a handle through a C out-pointer (`void**`) if it is not NULL.
///
/// # Safety
/// `out` is NULL or valid for a write of one pointer, as the ACL API requires of callers.
pub unsafe fn write_handle(out: *mut *mut c_void, h: u64) {
    if !out.is_null() {
        // SAFETY: non-NULL and valid for writes by the caller's contract (see above).
        unsafe { out.write(handle_out(h)) };
    }
}

/// A C out-pointer as an optional mutable reference.
///
/// # Safety
/// `p` is NULL or valid, aligned and exclusively ours for the duration of the call.
pub unsafe fn out_ref<'a, T>(p: *mut T) -> Option<&'a mut T> {
    // SAFETY: upheld by the caller (the ACL contract on out-parameters).
    unsafe { p.as_mut() }
}

/// A C string argument: `None` for NULL.
///
/// # Safety
/// `p` is NULL or NUL-terminated.
pub unsafe fn opt_str(p: *const std::ffi::c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-NULL and NUL-terminated by the caller's contract.
    Some(
        unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned(),
    )
}
