//! Exports: compatibility queries (`aclGetCannAttributeList`, `aclGetCannAttribute`,
//! `aclrtCheckArchCompatibility`, `aclrtGetDeviceCapability`).
#![allow(non_snake_case)]

use std::ffi::c_char;

use crate::ffi::{aclError, guard, guard_args, opt_str, out_ref};

/// `aclGetCannAttributeList(&cannAttrList, &num)`: the list is the library's own.
///
/// # Safety
/// Each pointer is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclGetCannAttributeList(
    cannAttrList: *mut *const i32,
    num: *mut usize,
) -> aclError {
    guard_args(
        "aclGetCannAttributeList",
        || format!("cannAttrList={:?}, num={:?}", cannAttrList, num),
        |rt| {
            let (mut list, mut n): (&[i32], usize) = (&[], 0);
            rt.get_cann_attribute_list(
                (!cannAttrList.is_null()).then_some(&mut list),
                (!num.is_null()).then_some(&mut n),
            )?;
            // SAFETY: both non-NULL (the front end refused NULL), writable by the caller's
            // contract.
            unsafe {
                *cannAttrList = list.as_ptr();
                *num = n;
            }
            Ok(())
        },
    )
}

/// `aclGetCannAttribute(cannAttr, &value)`.
///
/// # Safety
/// `value` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclGetCannAttribute(cannAttr: i32, value: *mut i32) -> aclError {
    // SAFETY: NULL or writable by the caller's contract.
    guard("aclGetCannAttribute", |rt| {
        rt.get_cann_attribute(cannAttr, unsafe { out_ref(value) })
    })
}

/// `aclrtCheckArchCompatibility(socVersion, &canCompatible)`.
///
/// # Safety
/// `socVersion` is NULL or NUL-terminated; `canCompatible` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtCheckArchCompatibility(
    socVersion: *const c_char,
    canCompatible: *mut i32,
) -> aclError {
    guard_args(
        "aclrtCheckArchCompatibility",
        || {
            format!(
                "socVersion={:?}, canCompatible={:?}",
                socVersion, canCompatible
            )
        },
        |rt| {
            // SAFETY: as the caller's contract says.
            let (soc, out) = unsafe { (opt_str(socVersion), out_ref(canCompatible)) };
            rt.check_arch_compatibility(soc.as_deref(), out)
        },
    )
}

/// `aclrtGetDeviceCapability(deviceId, devFeatureType, &value)`.
///
/// # Safety
/// `value` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDeviceCapability(
    deviceId: i32,
    devFeatureType: u32,
    value: *mut i32,
) -> aclError {
    guard_args(
        "aclrtGetDeviceCapability",
        || {
            format!(
                "deviceId={:?}, devFeatureType={:?}, value={:?}",
                deviceId, devFeatureType, value
            )
        },
        |rt| {
            // SAFETY: NULL or writable by the caller's contract.
            rt.get_device_capability(deviceId, devFeatureType as i32, unsafe { out_ref(value) })
        },
    )
}
