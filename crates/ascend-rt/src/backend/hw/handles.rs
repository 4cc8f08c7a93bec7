//! How the backend's handles and arguments map to the library's values: the tagged handles
//! of default streams, device addresses as pointers, timeouts.

use std::ffi::c_void;

use ascend_rt_sys as sys;

use super::RawHandle;

/// Tag of a device's default stream handle (never a user-space pointer).
const DEFAULT_STREAM_TAG: u64 = 0xDEF0_0000_0000_0000;
/// Tag of an explicit context's default stream handle (never a user-space pointer).
pub(super) const CONTEXT_STREAM_TAG: u64 = 0xDEF1_0000_0000_0000;
/// The bits holding a tag.
pub(super) const TAG_MASK: u64 = 0xFFFF_0000_0000_0000;

/// The handle of `device`'s default stream (the NULL stream of its default context).
pub(super) fn default_stream(device: u32) -> RawHandle {
    DEFAULT_STREAM_TAG | device as u64
}

/// The library's stream for a backend stream handle (NULL for a context's default stream,
/// which the caller has made current).
pub(super) fn raw_stream(h: RawHandle) -> sys::aclrtStream {
    if matches!(h & TAG_MASK, DEFAULT_STREAM_TAG | CONTEXT_STREAM_TAG) {
        std::ptr::null_mut()
    } else {
        h as usize as sys::aclrtStream
    }
}

/// A device address as the library's pointer type.
pub(super) fn ptr(addr: u64) -> *mut c_void {
    addr as usize as *mut c_void
}

/// A timeout argument of the library: `None` is -1 (wait forever); milliseconds are capped
/// at `i32::MAX`.
pub(super) fn timeout_arg(timeout_ms: Option<u64>) -> i32 {
    timeout_ms.map_or(-1, |t| t.min(i32::MAX as u64) as i32)
}
