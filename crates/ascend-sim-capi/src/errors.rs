//! Exports: error and version queries (`aclrtGetLastError`, `aclrtPeekAtLastError`,
//! `aclrtGetErrorVerbose`, `aclrtGetVersion`, `aclsysGetVersionStr`, `aclsysGetVersionNum`,
//! `aclsysGetCANNVersion`) and the data-type helpers (`aclDataTypeSize`, `aclFloatToFloat16`,
//! `aclFloat16ToFloat`).
#![allow(non_snake_case)]

use std::ffi::c_char;

use ascend_rt::raw_types::RawErrorInfo;
use ascend_rt::CannPackageVersion;

use crate::ffi::{aclError, guard, guard_args, out_ref};

/// Runs a query that returns a code rather than a status (the last-error calls).
fn code_query(
    api: &'static str,
    body: impl FnOnce(&ascend_rt::Runtime) -> ascend_rt::AclResult<i32>,
) -> aclError {
    let mut value = 0;
    let status = guard(api, |rt| {
        value = body(rt)?;
        Ok(())
    });
    if status != 0 {
        status
    } else {
        value
    }
}

/// `aclrtGetLastError(level)`: the calling thread's last RT error code, cleared.
#[no_mangle]
pub extern "C" fn aclrtGetLastError(level: u32) -> aclError {
    code_query("aclrtGetLastError", |rt| rt.get_last_error(level))
}

/// `aclrtPeekAtLastError(level)`: the calling thread's last RT error code, kept.
#[no_mangle]
pub extern "C" fn aclrtPeekAtLastError(level: u32) -> aclError {
    code_query("aclrtPeekAtLastError", |rt| rt.peek_at_last_error(level))
}

/// The leading fields of `aclrtErrorInfo` and the `aicoreErrType` member of its detail union
/// (the first member of the union; the rest of the union is left as the caller had it).
#[repr(C)]
pub struct ErrorInfoHead {
    try_repair: u8,
    has_detail: u8,
    reserved: [u8; 2],
    error_type: u32,
    detail_union_start: u32,
}

/// `aclrtGetErrorVerbose(deviceId, &errorInfo)`.
///
/// # Safety
/// `errorInfo` is NULL or points to a writable `aclrtErrorInfo`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetErrorVerbose(
    deviceId: i32,
    errorInfo: *mut ErrorInfoHead,
) -> aclError {
    guard_args(
        "aclrtGetErrorVerbose",
        || format!("deviceId={:?}, errorInfo={:?}", deviceId, errorInfo),
        |rt| {
            let mut info = RawErrorInfo::default();
            rt.get_error_verbose(deviceId, (!errorInfo.is_null()).then_some(&mut info))?;
            // SAFETY: non-NULL here (the call above rejects NULL) and writable by the contract.
            if let Some(out) = unsafe { out_ref(errorInfo) } {
                out.try_repair = info.try_repair;
                out.has_detail = info.has_detail;
                out.error_type = info.error_type;
                // The union is 8-aligned after the 8 header bytes: its first 4 bytes are the
                // aicoreErrType member.
                out.detail_union_start = info.aicore_err_type;
            }
            Ok(())
        },
    )
}

/// `aclrtGetVersion(&major, &minor, &patch)`.
///
/// # Safety
/// Each pointer is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetVersion(
    major: *mut i32,
    minor: *mut i32,
    patch: *mut i32,
) -> aclError {
    guard_args(
        "aclrtGetVersion",
        || format!("major={:?}, minor={:?}, patch={:?}", major, minor, patch),
        |rt| {
            // SAFETY: each is NULL or valid for writes by the caller's contract.
            let outs = unsafe { (out_ref(major), out_ref(minor), out_ref(patch)) };
            rt.get_version(outs.0, outs.1, outs.2)
        },
    )
}

/// `ACL_PKG_VERSION_MAX_SIZE`: bytes of a version string buffer.
const VERSION_MAX: usize = 128;
/// `ACL_PKG_VERSION_PARTS_MAX_SIZE`: bytes of a version part buffer.
const PART_MAX: usize = 64;

/// Copies `s` NUL-terminated into `dst` of `cap` bytes (truncating).
///
/// # Safety
/// `dst` is valid for `cap` bytes of writes.
unsafe fn put_str(dst: *mut c_char, cap: usize, s: &str) {
    let n = s.len().min(cap - 1);
    // SAFETY: `dst` has room for `cap` bytes (caller), and n + 1 <= cap.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr().cast::<c_char>(), dst, n);
        dst.add(n).write(0);
    }
}

/// `aclsysGetVersionStr(pkgName, versionStr)`; `versionStr` holds `ACL_PKG_VERSION_MAX_SIZE`
/// bytes.
///
/// # Safety
/// `pkgName` is NULL or NUL-terminated; `versionStr` is NULL or writable for 128 bytes.
#[no_mangle]
pub unsafe extern "C" fn aclsysGetVersionStr(
    pkgName: *mut c_char,
    versionStr: *mut c_char,
) -> aclError {
    guard_args(
        "aclsysGetVersionStr",
        || format!("pkgName={:?}, versionStr={:?}", pkgName, versionStr),
        |rt| {
            // SAFETY: NULL or NUL-terminated by the caller's contract.
            let name = unsafe { crate::ffi::opt_str(pkgName) };
            let mut v = String::new();
            rt.sys_get_version_str(name.as_deref(), (!versionStr.is_null()).then_some(&mut v))?;
            // SAFETY: non-NULL here and writable for 128 bytes by the caller's contract.
            unsafe { put_str(versionStr, VERSION_MAX, &v) };
            Ok(())
        },
    )
}

/// `aclCANNPackageVersion`.
#[repr(C)]
pub struct CannVersionC {
    version: [c_char; VERSION_MAX],
    major: [c_char; PART_MAX],
    minor: [c_char; PART_MAX],
    release: [c_char; PART_MAX],
    patch: [c_char; PART_MAX],
    reserved: [c_char; VERSION_MAX],
}

/// `aclsysGetCANNVersion(name, &version)`.
///
/// # Safety
/// `version` is NULL or points to a writable `aclCANNPackageVersion`.
#[no_mangle]
pub unsafe extern "C" fn aclsysGetCANNVersion(name: u32, version: *mut CannVersionC) -> aclError {
    guard_args(
        "aclsysGetCANNVersion",
        || format!("name={:?}, version={:?}", name, version),
        |rt| {
            let mut v = CannPackageVersion::default();
            rt.sys_get_cann_version(name, (!version.is_null()).then_some(&mut v))?;
            // SAFETY: non-NULL here (rejected above otherwise) and writable by the contract.
            if let Some(out) = unsafe { out_ref(version) } {
                // SAFETY: each array is writable for its own length.
                unsafe {
                    put_str(out.version.as_mut_ptr(), VERSION_MAX, &v.version);
                    put_str(out.major.as_mut_ptr(), PART_MAX, &v.major);
                    put_str(out.minor.as_mut_ptr(), PART_MAX, &v.minor);
                    put_str(out.release.as_mut_ptr(), PART_MAX, &v.release);
                    put_str(out.patch.as_mut_ptr(), PART_MAX, &v.patch);
                    put_str(out.reserved.as_mut_ptr(), VERSION_MAX, "");
                }
            }
            Ok(())
        },
    )
}

/// `aclsysGetVersionNum(pkgName, &versionNum)`.
///
/// # Safety
/// `pkgName` is NULL or NUL-terminated; `versionNum` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclsysGetVersionNum(
    pkgName: *mut c_char,
    versionNum: *mut i32,
) -> aclError {
    guard_args(
        "aclsysGetVersionNum",
        || format!("pkgName={:?}, versionNum={:?}", pkgName, versionNum),
        |rt| {
            // SAFETY: NULL or NUL-terminated by the caller's contract.
            let name = unsafe { crate::ffi::opt_str(pkgName) };
            // SAFETY: NULL or writable by the caller's contract.
            let out = unsafe { out_ref(versionNum) };
            rt.sys_get_version_num(name.as_deref(), out)
        },
    )
}

/// `aclDataTypeSize(dataType)`.
#[no_mangle]
pub extern "C" fn aclDataTypeSize(dataType: i32) -> usize {
    ascend_rt::data_types::data_type_size(dataType)
}

/// `aclFloatToFloat16(value)`.
#[no_mangle]
pub extern "C" fn aclFloatToFloat16(value: f32) -> u16 {
    ascend_rt::data_types::float_to_float16(value)
}

/// `aclFloat16ToFloat(value)`.
#[no_mangle]
pub extern "C" fn aclFloat16ToFloat(value: u16) -> f32 {
    ascend_rt::data_types::float16_to_float(value)
}
