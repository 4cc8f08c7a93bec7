//! Exports: memory. C pointers that lie in memory the runtime allocated (device memory or
//! `aclrtMallocHost` memory) are passed on as addresses; any other host pointer is passed as a
//! slice of the length the call names (pageable host memory).
#![allow(non_snake_case)]

use std::ffi::c_void;

use ascend_rt::raw_types::{Addr, RawStream};
use ascend_rt::{MemDst, MemSrc, Runtime};

use crate::ffi::{aclError, guard, handle_in};

fn addr(p: *const c_void) -> Addr {
    Addr(p as usize as u64)
}

/// A copy source.
///
/// # Safety
/// If `p` is neither NULL nor runtime memory, it is valid for reads of `count` bytes for the
/// duration of the call (the ACL contract on `src`).
unsafe fn src_of<'a>(rt: &Runtime, p: *const c_void, count: usize) -> MemSrc<'a> {
    if p.is_null() || rt.is_registered(addr(p)) {
        return MemSrc::Addr(addr(p));
    }
    // SAFETY: a non-NULL host pointer valid for `count` bytes by the caller's contract.
    MemSrc::Host(unsafe { std::slice::from_raw_parts(p as *const u8, count) })
}

/// A copy destination.
///
/// # Safety
/// If `p` is neither NULL nor runtime memory, it is valid for writes of `len` bytes for the
/// duration of the call and not otherwise accessed meanwhile (the ACL contract on `dst`).
unsafe fn dst_of<'a>(rt: &Runtime, p: *mut c_void, len: usize) -> MemDst<'a> {
    if p.is_null() || rt.is_registered(addr(p)) {
        return MemDst::Addr(addr(p));
    }
    // SAFETY: a non-NULL host pointer valid for `len` bytes of writes by the caller's contract.
    MemDst::Host(unsafe { std::slice::from_raw_parts_mut(p as *mut u8, len) })
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
    guard(|rt| {
        let mut a = Addr::NULL;
        rt.malloc((!devPtr.is_null()).then_some(&mut a), size, policy)?;
        // SAFETY: checked non-NULL by the front end above (NULL is rejected); valid for writes.
        unsafe { devPtr.write(a.0 as usize as *mut c_void) };
        Ok(())
    })
}

/// `aclrtFree(devPtr)`.
#[no_mangle]
pub extern "C" fn aclrtFree(devPtr: *mut c_void) -> aclError {
    guard(|rt| rt.free(addr(devPtr)))
}

/// `aclrtMallocHost(&hostPtr, size)`: the memory is ordinary host memory the program may use
/// directly; the runtime knows it as page-locked.
///
/// # Safety
/// `hostPtr` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtMallocHost(hostPtr: *mut *mut c_void, size: usize) -> aclError {
    guard(|rt| {
        let mut a = Addr::NULL;
        rt.malloc_host((!hostPtr.is_null()).then_some(&mut a), size)?;
        // SAFETY: checked non-NULL by the front end above (NULL is rejected); valid for writes.
        unsafe { hostPtr.write(a.0 as usize as *mut c_void) };
        Ok(())
    })
}

/// `aclrtFreeHost(hostPtr)`.
#[no_mangle]
pub extern "C" fn aclrtFreeHost(hostPtr: *mut c_void) -> aclError {
    guard(|rt| rt.free_host(addr(hostPtr)))
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
    guard(|rt| {
        // SAFETY: the caller's contract on dst and src (see above).
        let (d, s) = unsafe { (dst_of(rt, dst, count.min(destMax)), src_of(rt, src, count)) };
        rt.memcpy(d, destMax, s, count, kind)
    })
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
    guard(|rt| {
        // SAFETY: the caller's contract on dst and src (see above).
        let (d, s) = unsafe { (dst_of(rt, dst, count.min(destMax)), src_of(rt, src, count)) };
        rt.memcpy_async(d, destMax, s, count, kind, RawStream(handle_in(stream)))
    })
}

/// `aclrtMemset(devPtr, maxCount, value, count)`.
#[no_mangle]
pub extern "C" fn aclrtMemset(
    devPtr: *mut c_void,
    maxCount: usize,
    value: i32,
    count: usize,
) -> aclError {
    guard(|rt| rt.memset(addr(devPtr), maxCount, value, count))
}

/// `aclrtMemsetAsync(devPtr, maxCount, value, count, stream)`.
#[no_mangle]
pub extern "C" fn aclrtMemsetAsync(
    devPtr: *mut c_void,
    maxCount: usize,
    value: i32,
    count: usize,
    stream: *mut c_void,
) -> aclError {
    guard(|rt| {
        rt.memset_async(
            addr(devPtr),
            maxCount,
            value,
            count,
            RawStream(handle_in(stream)),
        )
    })
}

/// `aclrtMemFlush(devPtr, size)`.
#[no_mangle]
pub extern "C" fn aclrtMemFlush(devPtr: *mut c_void, size: usize) -> aclError {
    guard(|rt| rt.mem_flush(addr(devPtr), size))
}

/// `aclrtMemInvalidate(devPtr, size)`.
#[no_mangle]
pub extern "C" fn aclrtMemInvalidate(devPtr: *mut c_void, size: usize) -> aclError {
    guard(|rt| rt.mem_invalidate(addr(devPtr), size))
}
