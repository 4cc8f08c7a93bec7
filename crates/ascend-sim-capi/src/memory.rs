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

/// Calls `body` with the two ends of a copy as the front end takes them.
///
/// Runtime memory (and NULL) is passed as an address. Other pointers are pageable host memory,
/// passed as slices of `min(count, destMax)` bytes: a count beyond `destMax` is rejected by the
/// front end before any byte is touched, and a length no real memory can have (over
/// `isize::MAX`) is passed as an empty slice, which the front end rejects as out of range.
/// When both ends are pageable the source is first copied out, so that no `&mut` slice ever
/// overlaps a `&` slice (the buffers may overlap or be the same).
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
    body: impl FnOnce(MemDst<'_>, MemSrc<'_>) -> T,
) -> T {
    let len = count.min(dest_max);
    let len = if len > isize::MAX as usize { 0 } else { len };
    let runtime_memory = |p: *const c_void| p.is_null() || rt.is_registered(addr(p));
    let (dst_runtime, src_runtime) = (runtime_memory(dst), runtime_memory(src));
    let staged: Vec<u8>;
    let s = if src_runtime {
        MemSrc::Addr(addr(src))
    } else if !dst_runtime {
        // SAFETY: a pageable source valid for `len <= count` bytes by the caller's contract;
        // the slice ends with this statement, before the destination slice exists.
        staged = unsafe { std::slice::from_raw_parts(src as *const u8, len) }.to_vec();
        MemSrc::Host(&staged)
    } else {
        // SAFETY: as above; the destination is runtime memory, so no slice aliases this one.
        MemSrc::Host(unsafe { std::slice::from_raw_parts(src as *const u8, len) })
    };
    let d = if dst_runtime {
        MemDst::Addr(addr(dst))
    } else {
        // SAFETY: a pageable destination valid for `len <= count` bytes of writes by the
        // caller's contract; no other slice of it exists (a pageable source was copied out).
        MemDst::Host(unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, len) })
    };
    body(d, s)
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
        unsafe {
            with_copy_ends(rt, dst, destMax, src, count, |d, s| {
                rt.memcpy(d, destMax, s, count, kind)
            })
        }
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
        unsafe {
            with_copy_ends(rt, dst, destMax, src, count, |d, s| {
                rt.memcpy_async(d, destMax, s, count, kind, RawStream(handle_in(stream)))
            })
        }
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
