//! Exports: physical memory, reserved address ranges and mappings
//! (`aclrtMemGetAllocationGranularity`, `aclrtMallocPhysical`, `aclrtFreePhysical`,
//! `aclrtReserveMemAddress`, `aclrtReleaseMemAddress`, `aclrtMapMem`, `aclrtUnmapMem`,
//! `aclrtMemSetAccess`, `aclrtMemGetAccess`) and shareable handles
//! (`aclrtMemExportToShareableHandle`, `aclrtMemSetPidToShareableHandle`,
//! `aclrtMemImportFromShareableHandle` and their V2 forms). C structs are read into the raw
//! level's types; a V2 shareable handle is 8 bytes, or 128 for the fabric form.
#![allow(non_snake_case, non_camel_case_types)]

use std::ffi::c_void;

use ascend_rt::raw_types::{
    mem_share, Addr, MemAccessDesc, MemLocation, PhysicalMemProp, RawPhysical,
};
use ascend_rt_sys::{aclrtMemAccessDesc, aclrtMemLocation, aclrtPhysicalMemProp};

use crate::ffi::{aclError, guard_args, handle_in, out_ref, write_handle};
use crate::ipc_memory::pid_list;

fn location(l: &aclrtMemLocation) -> MemLocation {
    MemLocation {
        id: l.id,
        kind: l.type_,
    }
}

/// `prop` as the raw level's property, `None` for NULL.
///
/// # Safety
/// `prop` is NULL or valid for a read.
unsafe fn prop_in(prop: *const aclrtPhysicalMemProp) -> Option<PhysicalMemProp> {
    // SAFETY: NULL or valid for a read (this function's contract).
    let p = unsafe { prop.as_ref() }?;
    Some(PhysicalMemProp {
        handle_type: p.handleType,
        allocation_type: p.allocationType,
        mem_attr: p.memAttr,
        location: location(&p.location),
        reserve: p.reserve,
    })
}

/// The bytes of a V2 shareable handle of `share_type` at `p` (8, or 128 for FABRIC).
fn share_len(share_type: u32) -> usize {
    if share_type == mem_share::FABRIC {
        mem_share::FABRIC_BYTES
    } else {
        8
    }
}

/// `aclrtMemGetAllocationGranularity(prop, option, &granularity)`.
///
/// # Safety
/// `prop` is NULL or valid for a read; `granularity` NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemGetAllocationGranularity(
    prop: *mut aclrtPhysicalMemProp,
    option: u32,
    granularity: *mut usize,
) -> aclError {
    guard_args(
        "aclrtMemGetAllocationGranularity",
        || format!("prop={prop:?}, option={option}, granularity={granularity:?}"),
        |rt| {
            // SAFETY: NULL or valid for a read (the caller's contract).
            let p = unsafe { prop_in(prop) };
            // SAFETY: NULL or valid for a write (the caller's contract).
            let out = unsafe { out_ref(granularity) };
            rt.mem_get_allocation_granularity(p.as_ref(), option, out)
        },
    )
}

/// `aclrtMallocPhysical(&handle, size, prop, flags)`.
///
/// # Safety
/// `handle` is NULL or valid for a write; `prop` NULL or valid for a read.
#[no_mangle]
pub unsafe extern "C" fn aclrtMallocPhysical(
    handle: *mut *mut c_void,
    size: usize,
    prop: *const aclrtPhysicalMemProp,
    flags: u64,
) -> aclError {
    guard_args(
        "aclrtMallocPhysical",
        || format!("handle={handle:?}, size={size}, prop={prop:?}, flags={flags}"),
        |rt| {
            // SAFETY: NULL or valid for a read (the caller's contract).
            let p = unsafe { prop_in(prop) };
            let mut h = RawPhysical::NULL;
            let out = (!handle.is_null()).then_some(&mut h);
            rt.malloc_physical(out, size, p.as_ref(), flags)?;
            // SAFETY: non-NULL (refused otherwise) and valid for a write.
            unsafe { write_handle(handle, h.0) };
            Ok(())
        },
    )
}

/// `aclrtFreePhysical(handle)`.
#[no_mangle]
pub extern "C" fn aclrtFreePhysical(handle: *mut c_void) -> aclError {
    guard_args(
        "aclrtFreePhysical",
        || format!("handle={handle:?}"),
        |rt| rt.free_physical(RawPhysical(handle_in(handle))),
    )
}

/// `aclrtReserveMemAddress(&virPtr, size, alignment, expectPtr, flags)`.
///
/// # Safety
/// `virPtr` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtReserveMemAddress(
    virPtr: *mut *mut c_void,
    size: usize,
    alignment: usize,
    expectPtr: *mut c_void,
    flags: u64,
) -> aclError {
    guard_args(
        "aclrtReserveMemAddress",
        || {
            format!(
                "virPtr={virPtr:?}, size={size}, alignment={alignment}, expectPtr={expectPtr:?}, flags={flags}"
            )
        },
        |rt| {
            let mut va = Addr::NULL;
            let out = (!virPtr.is_null()).then_some(&mut va);
            let expect = Addr(expectPtr as usize as u64);
            rt.reserve_mem_address(out, size, alignment, expect, flags)?;
            // SAFETY: non-NULL (refused otherwise) and valid for a write.
            unsafe { virPtr.write(va.0 as usize as *mut c_void) };
            Ok(())
        },
    )
}

/// `aclrtReleaseMemAddress(virPtr)`.
#[no_mangle]
pub extern "C" fn aclrtReleaseMemAddress(virPtr: *mut c_void) -> aclError {
    guard_args(
        "aclrtReleaseMemAddress",
        || format!("virPtr={virPtr:?}"),
        |rt| rt.release_mem_address(Addr(virPtr as usize as u64)),
    )
}

/// `aclrtMapMem(virPtr, size, offset, handle, flags)`.
#[no_mangle]
pub extern "C" fn aclrtMapMem(
    virPtr: *mut c_void,
    size: usize,
    offset: usize,
    handle: *mut c_void,
    flags: u64,
) -> aclError {
    guard_args(
        "aclrtMapMem",
        || {
            format!(
                "virPtr={virPtr:?}, size={size}, offset={offset}, handle={handle:?}, flags={flags}"
            )
        },
        |rt| {
            rt.map_mem(
                Addr(virPtr as usize as u64),
                size,
                offset,
                RawPhysical(handle_in(handle)),
                flags,
            )
        },
    )
}

/// `aclrtUnmapMem(virPtr)`.
#[no_mangle]
pub extern "C" fn aclrtUnmapMem(virPtr: *mut c_void) -> aclError {
    guard_args(
        "aclrtUnmapMem",
        || format!("virPtr={virPtr:?}"),
        |rt| rt.unmap_mem(Addr(virPtr as usize as u64)),
    )
}

/// `aclrtMemSetAccess(virPtr, size, desc, count)`.
///
/// # Safety
/// `desc` is NULL or valid for reads of `count` descriptors.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemSetAccess(
    virPtr: *mut c_void,
    size: usize,
    desc: *mut aclrtMemAccessDesc,
    count: usize,
) -> aclError {
    guard_args(
        "aclrtMemSetAccess",
        || format!("virPtr={virPtr:?}, size={size}, desc={desc:?}, count={count}"),
        |rt| {
            let descs: Option<Vec<MemAccessDesc>> = (!desc.is_null()).then(|| {
                // SAFETY: non-NULL and valid for reads of `count` descriptors (the caller's
                // contract).
                let all = unsafe { std::slice::from_raw_parts(desc, count) };
                all.iter()
                    .map(|d| MemAccessDesc {
                        flags: d.flags,
                        location: location(&d.location),
                    })
                    .collect()
            });
            rt.mem_set_access(Addr(virPtr as usize as u64), size, descs.as_deref())
        },
    )
}

/// `aclrtMemGetAccess(virPtr, location, &flag)`.
///
/// # Safety
/// `location` is NULL or valid for a read; `flag` NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemGetAccess(
    virPtr: *mut c_void,
    location: *mut aclrtMemLocation,
    flag: *mut u64,
) -> aclError {
    guard_args(
        "aclrtMemGetAccess",
        || format!("virPtr={virPtr:?}, location={location:?}, flag={flag:?}"),
        |rt| {
            // SAFETY: NULL or valid for a read (the caller's contract).
            let loc = unsafe { location.as_ref() }.map(self::location);
            // SAFETY: NULL or valid for a write (the caller's contract).
            let out = unsafe { out_ref(flag) };
            rt.mem_get_access(Addr(virPtr as usize as u64), loc.as_ref(), out)
        },
    )
}

/// `aclrtMemExportToShareableHandle(handle, handleType, flags, &shareableHandle)`.
///
/// # Safety
/// `shareableHandle` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemExportToShareableHandle(
    handle: *mut c_void,
    handleType: u32,
    flags: u64,
    shareableHandle: *mut u64,
) -> aclError {
    guard_args(
        "aclrtMemExportToShareableHandle",
        || {
            format!(
                "handle={handle:?}, handleType={handleType}, flags={flags}, shareableHandle={shareableHandle:?}"
            )
        },
        |rt| {
            // SAFETY: NULL or valid for a write (the caller's contract).
            let out = unsafe { out_ref(shareableHandle) };
            rt.mem_export_to_shareable_handle(
                RawPhysical(handle_in(handle)),
                handleType,
                flags,
                out,
            )
        },
    )
}

/// `aclrtMemExportToShareableHandleV2(handle, flags, shareType, shareableHandle)`.
///
/// # Safety
/// `shareableHandle` is NULL or valid for writes of 8 bytes (128 for the fabric type).
#[no_mangle]
pub unsafe extern "C" fn aclrtMemExportToShareableHandleV2(
    handle: *mut c_void,
    flags: u64,
    shareType: u32,
    shareableHandle: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtMemExportToShareableHandleV2",
        || {
            format!(
                "handle={handle:?}, flags={flags}, shareType={shareType}, shareableHandle={shareableHandle:?}"
            )
        },
        |rt| {
            let mut bytes = [0u8; mem_share::FABRIC_BYTES];
            let n = share_len(shareType);
            let out = (!shareableHandle.is_null()).then_some(&mut bytes[..n]);
            rt.mem_export_to_shareable_handle_v2(
                RawPhysical(handle_in(handle)),
                flags,
                shareType,
                out,
            )?;
            // SAFETY: non-NULL (refused otherwise) and valid for `n` bytes (the caller's
            // contract for this share type).
            unsafe {
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), shareableHandle.cast::<u8>(), n)
            };
            Ok(())
        },
    )
}

/// `aclrtMemImportFromShareableHandle(shareableHandle, deviceId, &handle)`.
///
/// # Safety
/// `handle` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemImportFromShareableHandle(
    shareableHandle: u64,
    deviceId: i32,
    handle: *mut *mut c_void,
) -> aclError {
    guard_args(
        "aclrtMemImportFromShareableHandle",
        || format!("shareableHandle={shareableHandle:#x}, deviceId={deviceId}, handle={handle:?}"),
        |rt| {
            let mut h = RawPhysical::NULL;
            let out = (!handle.is_null()).then_some(&mut h);
            rt.mem_import_from_shareable_handle(shareableHandle, deviceId, out)?;
            // SAFETY: non-NULL (refused otherwise) and valid for a write.
            unsafe { write_handle(handle, h.0) };
            Ok(())
        },
    )
}

/// The bytes of a V2 shareable handle at `p`, `None` for NULL.
///
/// # Safety
/// `p` is NULL or valid for reads of `share_len(share_type)` bytes.
unsafe fn share_in<'a>(p: *const c_void, share_type: u32) -> Option<&'a [u8]> {
    // SAFETY: non-NULL and valid for that many bytes (this function's contract).
    (!p.is_null())
        .then(|| unsafe { std::slice::from_raw_parts(p.cast::<u8>(), share_len(share_type)) })
}

/// `aclrtMemImportFromShareableHandleV2(shareableHandle, shareType, flags, &handle)`.
///
/// # Safety
/// `shareableHandle` is NULL or valid for reads of 8 bytes (128 for the fabric type);
/// `handle` NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemImportFromShareableHandleV2(
    shareableHandle: *mut c_void,
    shareType: u32,
    flags: u64,
    handle: *mut *mut c_void,
) -> aclError {
    guard_args(
        "aclrtMemImportFromShareableHandleV2",
        || {
            format!(
                "shareableHandle={shareableHandle:?}, shareType={shareType}, flags={flags}, handle={handle:?}"
            )
        },
        |rt| {
            // SAFETY: NULL or valid for that many bytes (the caller's contract).
            let bytes = unsafe { share_in(shareableHandle, shareType) };
            let mut h = RawPhysical::NULL;
            let out = (!handle.is_null()).then_some(&mut h);
            rt.mem_import_from_shareable_handle_v2(bytes, shareType, flags, out)?;
            // SAFETY: non-NULL (refused otherwise) and valid for a write.
            unsafe { write_handle(handle, h.0) };
            Ok(())
        },
    )
}

/// `aclrtMemSetPidToShareableHandle(shareableHandle, pid, pidNum)`.
///
/// # Safety
/// `pid` is NULL or valid for reads of `pidNum` ids.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemSetPidToShareableHandle(
    shareableHandle: u64,
    pid: *mut i32,
    pidNum: usize,
) -> aclError {
    guard_args(
        "aclrtMemSetPidToShareableHandle",
        || format!("shareableHandle={shareableHandle:#x}, pid={pid:?}, pidNum={pidNum}"),
        |rt| {
            // SAFETY: NULL or valid for reads of `pidNum` ids (the caller's contract).
            let pids = unsafe { pid_list(pid, pidNum) };
            rt.mem_set_pid_to_shareable_handle(shareableHandle, pids, pidNum)
        },
    )
}

/// `aclrtMemSetPidToShareableHandleV2(shareableHandle, shareType, pid, pidNum)`.
///
/// # Safety
/// `shareableHandle` is NULL or valid for reads of 8 bytes (128 for the fabric type); `pid`
/// NULL or valid for reads of `pidNum` ids.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemSetPidToShareableHandleV2(
    shareableHandle: *mut c_void,
    shareType: u32,
    pid: *mut i32,
    pidNum: usize,
) -> aclError {
    guard_args(
        "aclrtMemSetPidToShareableHandleV2",
        || {
            format!(
                "shareableHandle={shareableHandle:?}, shareType={shareType}, pid={pid:?}, pidNum={pidNum}"
            )
        },
        |rt| {
            // SAFETY: NULL or valid for that many bytes (the caller's contract).
            let bytes = unsafe { share_in(shareableHandle, shareType) };
            // SAFETY: NULL or valid for reads of `pidNum` ids (the caller's contract).
            let pids = unsafe { pid_list(pid, pidNum) };
            rt.mem_set_pid_to_shareable_handle_v2(bytes, shareType, pids, pidNum)
        },
    )
}
