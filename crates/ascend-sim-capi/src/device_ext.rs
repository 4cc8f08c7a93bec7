//! Exports: device queries and settings (`aclrtGetDeviceInfo`,
//! `aclrtDeviceGetStreamPriorityRange`, `aclrtQueryDeviceStatus`,
//! `aclrtGetDeviceUtilizationRate`, the resource limits) and peer access
//! (`aclrtDeviceCanAccessPeer`, `aclrtDeviceEnablePeerAccess`, `aclrtDeviceDisablePeerAccess`).
#![allow(non_snake_case)]

use std::ffi::c_void;

use ascend_rt::raw_types::RawUtilization;

use crate::ffi::{aclError, guard, guard_args, out_ref};

/// `aclrtGetDeviceInfo(deviceId, attr, &value)`.
///
/// # Safety
/// `value` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDeviceInfo(deviceId: u32, attr: u32, value: *mut i64) -> aclError {
    // SAFETY: NULL or writable by the caller's contract.
    guard("aclrtGetDeviceInfo", |rt| {
        rt.get_device_info(deviceId, attr as i32, unsafe { out_ref(value) })
    })
}

/// `aclrtDeviceGetStreamPriorityRange(&leastPriority, &greatestPriority)`.
///
/// # Safety
/// Each pointer is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtDeviceGetStreamPriorityRange(
    leastPriority: *mut i32,
    greatestPriority: *mut i32,
) -> aclError {
    guard_args(
        "aclrtDeviceGetStreamPriorityRange",
        || {
            format!(
                "leastPriority={:?}, greatestPriority={:?}",
                leastPriority, greatestPriority
            )
        },
        |rt| {
            // SAFETY: NULL or writable by the caller's contract.
            let (l, g) = unsafe { (out_ref(leastPriority), out_ref(greatestPriority)) };
            rt.device_stream_priority_range(l, g)
        },
    )
}

/// `aclrtQueryDeviceStatus(deviceId, &deviceStatus)`; `aclrtDeviceStatus` is a 32-bit enum.
///
/// # Safety
/// `deviceStatus` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtQueryDeviceStatus(deviceId: i32, deviceStatus: *mut u32) -> aclError {
    guard_args(
        "aclrtQueryDeviceStatus",
        || format!("deviceId={:?}, deviceStatus={:?}", deviceId, deviceStatus),
        |rt| {
            // SAFETY: NULL or writable by the caller's contract.
            rt.query_device_status(deviceId, unsafe { out_ref(deviceStatus) })
        },
    )
}

/// `aclrtUtilizationInfo`.
#[repr(C)]
pub struct UtilizationInfoC {
    cube: i32,
    vector: i32,
    aicpu: i32,
    memory: i32,
    extend: *mut c_void,
}

/// `aclrtGetDeviceUtilizationRate(deviceId, &utilizationInfo)`.
///
/// # Safety
/// `utilizationInfo` is NULL or points to a readable and writable `aclrtUtilizationInfo`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDeviceUtilizationRate(
    deviceId: i32,
    utilizationInfo: *mut UtilizationInfoC,
) -> aclError {
    guard_args(
        "aclrtGetDeviceUtilizationRate",
        || {
            format!(
                "deviceId={:?}, utilizationInfo={:?}",
                deviceId, utilizationInfo
            )
        },
        |rt| {
            // SAFETY: NULL or a valid aclrtUtilizationInfo by the caller's contract.
            let info = unsafe { utilizationInfo.as_mut() };
            let ext_null = info.as_ref().is_none_or(|i| i.extend.is_null());
            let mut u = RawUtilization::default();
            let want = info.is_some();
            rt.get_device_utilization_rate(deviceId, want.then_some(&mut u), ext_null)?;
            if let Some(i) = info {
                (i.cube, i.vector, i.aicpu, i.memory) = (u.cube, u.vector, u.aicpu, u.memory);
            }
            Ok(())
        },
    )
}

/// `aclrtSetDeviceResLimit(deviceId, type, value)`.
#[no_mangle]
pub extern "C" fn aclrtSetDeviceResLimit(deviceId: i32, r#type: u32, value: u32) -> aclError {
    guard_args(
        "aclrtSetDeviceResLimit",
        || {
            format!(
                "deviceId={:?}, r#type={:?}, value={:?}",
                deviceId, r#type, value
            )
        },
        |rt| rt.set_device_res_limit(deviceId, r#type, value),
    )
}

/// `aclrtGetDeviceResLimit(deviceId, type, &value)`.
///
/// # Safety
/// `value` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDeviceResLimit(
    deviceId: i32,
    r#type: u32,
    value: *mut u32,
) -> aclError {
    guard_args(
        "aclrtGetDeviceResLimit",
        || {
            format!(
                "deviceId={:?}, r#type={:?}, value={:?}",
                deviceId, r#type, value
            )
        },
        |rt| {
            // SAFETY: NULL or writable by the caller's contract.
            rt.get_device_res_limit(deviceId, r#type, unsafe { out_ref(value) })
        },
    )
}

/// `aclrtResetDeviceResLimit(deviceId)`.
#[no_mangle]
pub extern "C" fn aclrtResetDeviceResLimit(deviceId: i32) -> aclError {
    guard_args(
        "aclrtResetDeviceResLimit",
        || format!("deviceId={:?}", deviceId),
        |rt| rt.reset_device_res_limit(deviceId),
    )
}

/// `aclrtDeviceCanAccessPeer(&canAccessPeer, deviceId, peerDeviceId)`.
///
/// # Safety
/// `canAccessPeer` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtDeviceCanAccessPeer(
    canAccessPeer: *mut i32,
    deviceId: i32,
    peerDeviceId: i32,
) -> aclError {
    guard_args(
        "aclrtDeviceCanAccessPeer",
        || {
            format!(
                "canAccessPeer={:?}, deviceId={:?}, peerDeviceId={:?}",
                canAccessPeer, deviceId, peerDeviceId
            )
        },
        |rt| {
            // SAFETY: NULL or writable by the caller's contract.
            rt.device_can_access_peer(unsafe { out_ref(canAccessPeer) }, deviceId, peerDeviceId)
        },
    )
}

/// `aclrtDeviceEnablePeerAccess(peerDeviceId, flags)`.
#[no_mangle]
pub extern "C" fn aclrtDeviceEnablePeerAccess(peerDeviceId: i32, flags: u32) -> aclError {
    guard_args(
        "aclrtDeviceEnablePeerAccess",
        || format!("peerDeviceId={:?}, flags={:?}", peerDeviceId, flags),
        |rt| rt.device_enable_peer_access(peerDeviceId, flags),
    )
}

/// `aclrtDeviceDisablePeerAccess(peerDeviceId)`.
#[no_mangle]
pub extern "C" fn aclrtDeviceDisablePeerAccess(peerDeviceId: i32) -> aclError {
    guard_args(
        "aclrtDeviceDisablePeerAccess",
        || format!("peerDeviceId={:?}", peerDeviceId),
        |rt| rt.device_disable_peer_access(peerDeviceId),
    )
}
