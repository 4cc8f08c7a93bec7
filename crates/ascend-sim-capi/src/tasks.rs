//! Exports: the eight target operations (value write/wait and the six CMO calls).
#![allow(non_snake_case)]

use std::ffi::c_void;

use ascend_rt::raw_types::{Addr, RawBarrierCmoInfo, RawBarrierTaskInfo, RawStream};
// The C structs as the bindings declare them (generated from `include/acl/acl_rt.h`, with
// layout assertions), so the export's parameter type is the header's.
use ascend_rt_sys::aclrtBarrierTaskInfo;

use crate::ffi::{aclError, guard_args, handle_in, out_ref};

fn addr(p: *const c_void) -> Addr {
    Addr(p as usize as u64)
}

fn s(p: *mut c_void) -> RawStream {
    RawStream(handle_in(p))
}

/// `aclrtValueWrite(devAddr, value, flag, stream)`.
#[no_mangle]
pub extern "C" fn aclrtValueWrite(
    devAddr: *mut c_void,
    value: u64,
    flag: u32,
    stream: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtValueWrite",
        || {
            format!(
                "devAddr={:?}, value={:?}, flag={:?}, stream={:?}",
                devAddr, value, flag, stream
            )
        },
        |rt| rt.value_write(addr(devAddr), value, flag, s(stream)),
    )
}

/// `aclrtValueWait(devAddr, value, flag, stream)`.
#[no_mangle]
pub extern "C" fn aclrtValueWait(
    devAddr: *mut c_void,
    value: u64,
    flag: u32,
    stream: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtValueWait",
        || {
            format!(
                "devAddr={:?}, value={:?}, flag={:?}, stream={:?}",
                devAddr, value, flag, stream
            )
        },
        |rt| rt.value_wait(addr(devAddr), value, flag, s(stream)),
    )
}

/// `aclrtCmoAsync(src, size, cmoType, stream)`.
#[no_mangle]
pub extern "C" fn aclrtCmoAsync(
    src: *mut c_void,
    size: usize,
    cmoType: u32,
    stream: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtCmoAsync",
        || {
            format!(
                "src={:?}, size={:?}, cmoType={:?}, stream={:?}",
                src, size, cmoType, stream
            )
        },
        |rt| rt.cmo_async(addr(src), size, cmoType, s(stream)),
    )
}

/// `aclrtCmoAsyncWithBarrier(src, size, cmoType, barrierId, stream)`.
#[no_mangle]
pub extern "C" fn aclrtCmoAsyncWithBarrier(
    src: *mut c_void,
    size: usize,
    cmoType: u32,
    barrierId: u32,
    stream: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtCmoAsyncWithBarrier",
        || {
            format!(
                "src={:?}, size={:?}, cmoType={:?}, barrierId={:?}, stream={:?}",
                src, size, cmoType, barrierId, stream
            )
        },
        |rt| rt.cmo_async_with_barrier(addr(src), size, cmoType, barrierId, s(stream)),
    )
}

/// `aclrtCmoWaitBarrier(taskInfo, stream, flag)`.
///
/// # Safety
/// `taskInfo` is NULL or points to a readable `aclrtBarrierTaskInfo`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCmoWaitBarrier(
    taskInfo: *mut aclrtBarrierTaskInfo,
    stream: *mut c_void,
    flag: u32,
) -> aclError {
    guard_args(
        "aclrtCmoWaitBarrier",
        || {
            format!(
                "taskInfo={:?}, stream={:?}, flag={:?}",
                taskInfo, stream, flag
            )
        },
        |rt| {
            // SAFETY: NULL or a valid struct by the caller's contract; only read.
            let info = unsafe { taskInfo.as_ref() }.map(|c| {
                let mut raw = RawBarrierTaskInfo {
                    barrier_num: c.barrierNum,
                    ..RawBarrierTaskInfo::default()
                };
                for (r, e) in raw.cmo_info.iter_mut().zip(c.cmoInfo.iter()) {
                    *r = RawBarrierCmoInfo {
                        cmo_type: e.cmoType,
                        barrier_id: e.barrierId,
                    };
                }
                raw
            });
            rt.cmo_wait_barrier(info.as_ref(), s(stream), flag)
        },
    )
}

/// `aclrtCmoGetDescSize(&size)`.
///
/// # Safety
/// `size` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtCmoGetDescSize(size: *mut usize) -> aclError {
    guard_args(
        "aclrtCmoGetDescSize",
        || format!("size={:?}", size),
        |rt| {
            // SAFETY: NULL or valid for writes by the caller's contract.
            rt.cmo_get_desc_size(unsafe { out_ref(size) })
        },
    )
}

/// `aclrtCmoSetDesc(cmoDesc, src, size)`.
#[no_mangle]
pub extern "C" fn aclrtCmoSetDesc(cmoDesc: *mut c_void, src: *mut c_void, size: usize) -> aclError {
    guard_args(
        "aclrtCmoSetDesc",
        || format!("cmoDesc={:?}, src={:?}, size={:?}", cmoDesc, src, size),
        |rt| rt.cmo_set_desc(addr(cmoDesc), addr(src), size),
    )
}

/// `aclrtCmoAsyncWithDesc(cmoDesc, cmoType, stream, reserve)`.
#[no_mangle]
pub extern "C" fn aclrtCmoAsyncWithDesc(
    cmoDesc: *mut c_void,
    cmoType: u32,
    stream: *mut c_void,
    reserve: *const c_void,
) -> aclError {
    guard_args(
        "aclrtCmoAsyncWithDesc",
        || {
            format!(
                "cmoDesc={:?}, cmoType={:?}, stream={:?}, reserve={:?}",
                cmoDesc, cmoType, stream, reserve
            )
        },
        |rt| rt.cmo_async_with_desc(addr(cmoDesc), cmoType, s(stream), addr(reserve)),
    )
}

/// `aclrtReduceAsync(dst, src, count, kind, type, stream, reserve)`: `dst` and `src` are
/// device addresses, never dereferenced here.
#[no_mangle]
pub extern "C" fn aclrtReduceAsync(
    dst: *mut c_void,
    src: *const c_void,
    count: u64,
    kind: u32,
    r#type: i32,
    stream: *mut c_void,
    reserve: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtReduceAsync",
        || {
            format!(
                "dst={:?}, src={:?}, count={:?}, kind={:?}, r#type={:?}, stream={:?}, reserve={:?}",
                dst, src, count, kind, r#type, stream, reserve
            )
        },
        |rt| {
            rt.reduce_async(
                Addr(handle_in(dst)),
                Addr(src as usize as u64),
                count,
                kind,
                r#type,
                RawStream(handle_in(stream)),
                reserve.is_null(),
            )
        },
    )
}

/// `aclrtRandomParaInfo` (16 bytes, byte-aligned).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct RandomParaInfoC {
    is_addr: u8,
    value_or_addr: [u8; 8],
    size: u8,
    rsv: [u8; 6],
}

/// `aclrtRandomNumFuncParaInfo`: the function and its parameters (a union of two at most).
#[repr(C)]
pub struct RandomFuncParaInfoC {
    func_type: u32,
    params: [RandomParaInfoC; 2],
}

/// `aclrtRandomNumTaskInfo` (104 bytes).
#[repr(C)]
pub struct RandomNumTaskInfoC {
    data_type: i32,
    func: RandomFuncParaInfoC,
    para_addr: *mut c_void,
    result_addr: *mut c_void,
    counter_addr: *mut c_void,
    seed: RandomParaInfoC,
    num: RandomParaInfoC,
    rsv: [u8; 8],
}

const _: () = assert!(std::mem::size_of::<RandomNumTaskInfoC>() == 104);

fn raw_param(p: &RandomParaInfoC) -> ascend_rt::RawRandomParam {
    ascend_rt::RawRandomParam {
        is_addr: p.is_addr,
        value_or_addr: p.value_or_addr,
        size: p.size,
    }
}

/// `aclrtRandomNumAsync(taskInfo, stream, reserve)`. As the vendor's ACL layer does, a valid
/// `dataType` is overwritten in the caller's structure with the runtime's numbering of it.
///
/// # Safety
/// `taskInfo` is NULL or points to a readable and writable `aclrtRandomNumTaskInfo`.
#[no_mangle]
pub unsafe extern "C" fn aclrtRandomNumAsync(
    taskInfo: *mut RandomNumTaskInfoC,
    stream: *mut c_void,
    reserve: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtRandomNumAsync",
        || {
            format!(
                "taskInfo={:?}, stream={:?}, reserve={:?}",
                taskInfo, stream, reserve
            )
        },
        |rt| {
            // SAFETY: NULL or valid by the caller's contract.
            let info = unsafe { taskInfo.as_mut() };
            let raw = info.as_ref().map(|i| ascend_rt::RawRandomTaskInfo {
                data_type: i.data_type,
                func_type: i.func.func_type,
                params: [raw_param(&i.func.params[0]), raw_param(&i.func.params[1])],
                para_addr: handle_in(i.para_addr),
                result_addr: handle_in(i.result_addr),
                counter_addr: handle_in(i.counter_addr),
                seed: raw_param(&i.seed),
                num: raw_param(&i.num),
            });
            if let Some(i) = info {
                if let Some(rt_type) = ascend_rt::random_rt_type(i.data_type) {
                    i.data_type = rt_type as i32;
                }
            }
            rt.random_num_async(
                raw.as_ref(),
                RawStream(handle_in(stream)),
                reserve.is_null(),
            )
        },
    )
}
