//! Exports: memory. C pointers that lie in memory the runtime allocated (device memory or
//! `aclrtMallocHost` memory) are passed on as addresses; any other host pointer is passed as a
//! slice of the length the call names (pageable host memory).
#![allow(non_snake_case)]

use std::ffi::c_void;

use ascend_rt::raw_types::{Addr, RawStream};
use ascend_rt::{AddressClass, MemDst, MemSrc, Runtime};

use crate::ffi::{aclError, guard_args, handle_in};

fn addr(p: *const c_void) -> Addr {
    Addr(p as usize as u64)
}

/// The two ends of a copy as the front end takes them.
enum CopyEnds<'a> {
    /// Ends the runtime resolves itself (addresses) or disjoint pageable slices.
    Split(MemDst<'a>, MemSrc<'a>),
    /// Two overlapping pageable ranges, as one slice covering both and their offsets in it.
    Within {
        buf: &'a mut [u8],
        dst: usize,
        src: usize,
    },
}

/// Calls `body` with the two ends of a copy as the front end takes them. Nothing is read,
/// written or allocated here: the front end validates the call before it touches a byte.
///
/// Runtime memory, stale device addresses (freed, past an allocation's end, never allocated:
/// anything in the device window that is not live) and NULL are passed as addresses, so the
/// front end rejects a stale one with CANN's code instead of it being dereferenced. Other
/// pointers are pageable host memory, passed as slices of `min(count, destMax)` bytes: a count
/// beyond `destMax` is rejected by the front end before any byte is touched, and a length no
/// real memory can have (over `isize::MAX`) is passed as an empty slice, which the front end
/// rejects as out of range. Two pageable ranges that overlap are passed as one slice covering
/// both, so that no `&mut` slice ever overlaps a `&` slice.
///
/// # Safety
/// A pageable `src` is valid for reads, and a pageable `dst` for writes, of `count` bytes for
/// the duration of the call, and `dst` is not otherwise accessed meanwhile (the ACL contract).
unsafe fn with_copy_ends<T>(
    rt: &Runtime,
    dst: *mut c_void,
    dest_max: usize,
    src: *const c_void,
    count: usize,
    body: impl FnOnce(CopyEnds<'_>) -> T,
) -> T {
    let len = count.min(dest_max);
    let len = if len > isize::MAX as usize { 0 } else { len };
    let pageable = |p: *const c_void| rt.classify_address(addr(p)) == AddressClass::Host;
    let (dst_pageable, src_pageable) = (pageable(dst), pageable(src));
    if dst_pageable && src_pageable && len > 0 {
        let (d, s) = (dst as usize, src as usize);
        let overlap = d < s.saturating_add(len) && s < d.saturating_add(len);
        if overlap {
            let lo = d.min(s);
            let span = d.max(s).saturating_add(len) - lo;
            let span = if span > isize::MAX as usize { 0 } else { span };
            // SAFETY: both ranges are valid for `len` bytes by the caller's contract and share
            // bytes, so they lie in one allocated object and so does their union [lo, lo+span);
            // it is the only slice of that memory made here.
            let buf = unsafe { std::slice::from_raw_parts_mut(lo as *mut u8, span) };
            return body(CopyEnds::Within {
                buf,
                dst: d - lo,
                src: s - lo,
            });
        }
    }
    let s = if src_pageable {
        // SAFETY: a pageable source valid for `len <= count` bytes by the caller's contract; a
        // pageable destination, if any, does not overlap it (checked above).
        MemSrc::Host(unsafe { std::slice::from_raw_parts(src as *const u8, len) })
    } else {
        MemSrc::Addr(addr(src))
    };
    let d = if dst_pageable {
        // SAFETY: a pageable destination valid for `len <= count` bytes of writes by the
        // caller's contract; no other slice made here overlaps it (checked above).
        MemDst::Host(unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, len) })
    } else {
        MemDst::Addr(addr(dst))
    };
    body(CopyEnds::Split(d, s))
}

/// `aclrtMalloc(&devPtr, size, policy)`.
///
/// # Safety
/// `devPtr` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtMalloc(
    devPtr: *mut *mut c_void,
    size: usize,
    policy: u32,
) -> aclError {
    guard_args(
        "aclrtMalloc",
        || format!("devPtr={:?}, size={:?}, policy={:?}", devPtr, size, policy),
        |rt| {
            let mut a = Addr::NULL;
            rt.malloc((!devPtr.is_null()).then_some(&mut a), size, policy)?;
            // SAFETY: checked non-NULL by the front end above (NULL is rejected); valid for writes.
            unsafe { devPtr.write(a.0 as usize as *mut c_void) };
            Ok(())
        },
    )
}

/// `aclrtFree(devPtr)`.
#[no_mangle]
pub extern "C" fn aclrtFree(devPtr: *mut c_void) -> aclError {
    guard_args(
        "aclrtFree",
        || format!("devPtr={:?}", devPtr),
        |rt| rt.free(addr(devPtr)),
    )
}

/// `aclrtMallocHost(&hostPtr, size)`: the memory is ordinary host memory the program may use
/// directly; the runtime knows it as page-locked.
///
/// # Safety
/// `hostPtr` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtMallocHost(hostPtr: *mut *mut c_void, size: usize) -> aclError {
    guard_args(
        "aclrtMallocHost",
        || format!("hostPtr={:?}, size={:?}", hostPtr, size),
        |rt| {
            let mut a = Addr::NULL;
            rt.malloc_host((!hostPtr.is_null()).then_some(&mut a), size)?;
            // SAFETY: checked non-NULL by the front end above (NULL is rejected); valid for writes.
            unsafe { hostPtr.write(a.0 as usize as *mut c_void) };
            Ok(())
        },
    )
}

/// `aclrtFreeHost(hostPtr)`.
#[no_mangle]
pub extern "C" fn aclrtFreeHost(hostPtr: *mut c_void) -> aclError {
    guard_args(
        "aclrtFreeHost",
        || format!("hostPtr={:?}", hostPtr),
        |rt| rt.free_host(addr(hostPtr)),
    )
}

/// `aclrtMemcpy(dst, destMax, src, count, kind)`.
///
/// # Safety
/// Host pointers are valid for `count` bytes (and `dst` for writes), as ACL requires.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpy(
    dst: *mut c_void,
    destMax: usize,
    src: *const c_void,
    count: usize,
    kind: u32,
) -> aclError {
    guard_args(
        "aclrtMemcpy",
        || {
            format!(
                "dst={:?}, destMax={:?}, src={:?}, count={:?}, kind={:?}",
                dst, destMax, src, count, kind
            )
        },
        |rt| {
            // SAFETY: the caller's contract on dst and src (see above).
            unsafe {
                with_copy_ends(rt, dst, destMax, src, count, |ends| match ends {
                    CopyEnds::Split(d, s) => rt.memcpy(d, destMax, s, count, kind),
                    CopyEnds::Within { buf, dst, src } => {
                        rt.memcpy_within(buf, dst, destMax, src, count, kind)
                    }
                })
            }
        },
    )
}

/// `aclrtMemcpyAsync(dst, destMax, src, count, kind, stream)`.
///
/// # Safety
/// Host pointers are valid for `count` bytes (and `dst` for writes), as ACL requires.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpyAsync(
    dst: *mut c_void,
    destMax: usize,
    src: *const c_void,
    count: usize,
    kind: u32,
    stream: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtMemcpyAsync",
        || {
            format!(
                "dst={:?}, destMax={:?}, src={:?}, count={:?}, kind={:?}, stream={:?}",
                dst, destMax, src, count, kind, stream
            )
        },
        |rt| {
            // SAFETY: the caller's contract on dst and src (see above).
            unsafe {
                let stream = RawStream(handle_in(stream));
                with_copy_ends(rt, dst, destMax, src, count, |ends| match ends {
                    CopyEnds::Split(d, s) => rt.memcpy_async(d, destMax, s, count, kind, stream),
                    CopyEnds::Within { buf, dst, src } => {
                        rt.memcpy_async_within(buf, dst, destMax, src, count, kind, stream)
                    }
                })
            }
        },
    )
}

/// `aclrtMemset(devPtr, maxCount, value, count)`. Pageable host memory is passed as a slice
/// of `min(count, maxCount)` bytes, which the front end fills once the call is validated (the
/// vendor's driver fills host memory too).
///
/// # Safety
/// A pageable `devPtr` is valid for writes of `count` bytes, as ACL requires.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemset(
    devPtr: *mut c_void,
    maxCount: usize,
    value: i32,
    count: usize,
) -> aclError {
    guard_args(
        "aclrtMemset",
        || {
            format!(
                "devPtr={:?}, maxCount={:?}, value={:?}, count={:?}",
                devPtr, maxCount, value, count
            )
        },
        |rt| {
            if rt.classify_address(addr(devPtr)) != AddressClass::Host {
                return rt.memset(addr(devPtr), maxCount, value, count);
            }
            let len = count.min(maxCount);
            let len = if len > isize::MAX as usize { 0 } else { len };
            // SAFETY: pageable host memory valid for writes of `len <= count` bytes by the
            // caller's contract; it is the only slice of that memory made here.
            let dst = unsafe { std::slice::from_raw_parts_mut(devPtr as *mut u8, len) };
            rt.memset(dst, maxCount, value, count)
        },
    )
}

/// `aclrtMemsetAsync(devPtr, maxCount, value, count, stream)`. Pageable host memory is passed
/// as a slice of `min(count, maxCount)` bytes, which the front end fills on the host once the
/// call is validated (CANN's runtime fills host memory at the call, not in stream order).
///
/// # Safety
/// A pageable `devPtr` is valid for writes of `count` bytes, as ACL requires.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemsetAsync(
    devPtr: *mut c_void,
    maxCount: usize,
    value: i32,
    count: usize,
    stream: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtMemsetAsync",
        || {
            format!(
                "devPtr={:?}, maxCount={:?}, value={:?}, count={:?}, stream={:?}",
                devPtr, maxCount, value, count, stream
            )
        },
        |rt| {
            let stream = RawStream(handle_in(stream));
            if rt.classify_address(addr(devPtr)) != AddressClass::Host {
                return rt.memset_async(addr(devPtr), maxCount, value, count, stream);
            }
            let len = count.min(maxCount);
            let len = if len > isize::MAX as usize { 0 } else { len };
            // SAFETY: pageable host memory valid for writes of `len <= count` bytes by the
            // caller's contract; it is the only slice of that memory made here.
            let dst = unsafe { std::slice::from_raw_parts_mut(devPtr as *mut u8, len) };
            rt.memset_async(dst, maxCount, value, count, stream)
        },
    )
}

/// `aclrtMemFlush(devPtr, size)`.
#[no_mangle]
pub extern "C" fn aclrtMemFlush(devPtr: *mut c_void, size: usize) -> aclError {
    guard_args(
        "aclrtMemFlush",
        || format!("devPtr={:?}, size={:?}", devPtr, size),
        |rt| rt.mem_flush(addr(devPtr), size),
    )
}

/// `aclrtMemInvalidate(devPtr, size)`.
#[no_mangle]
pub extern "C" fn aclrtMemInvalidate(devPtr: *mut c_void, size: usize) -> aclError {
    guard_args(
        "aclrtMemInvalidate",
        || format!("devPtr={:?}, size={:?}", devPtr, size),
        |rt| rt.mem_invalidate(addr(devPtr), size),
    )
}
