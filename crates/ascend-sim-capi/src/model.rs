//! Exports: model running instances.
#![allow(non_snake_case)]

use std::ffi::c_void;

use ascend_rt::raw_types::{RawLabel, RawLabelList, RawModel, RawStream};

use crate::ffi::{aclError, guard_args, handle_in, handle_out, out_ref, write_handle};

fn m(p: *mut c_void) -> RawModel {
    RawModel(handle_in(p))
}

fn s(p: *mut c_void) -> RawStream {
    RawStream(handle_in(p))
}

/// `aclmdlRIBuildBegin(&modelRI, flag)`.
///
/// # Safety
/// `modelRI` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclmdlRIBuildBegin(modelRI: *mut *mut c_void, flag: u32) -> aclError {
    guard_args(
        "aclmdlRIBuildBegin",
        || format!("modelRI={:?}, flag={:?}", modelRI, flag),
        |rt| {
            let mut h = RawModel::default();
            rt.mdl_ri_build_begin((!modelRI.is_null()).then_some(&mut h), flag)?;
            // SAFETY: NULL or valid for writes by the caller's contract.
            unsafe { write_handle(modelRI, h.0) };
            Ok(())
        },
    )
}

/// `aclmdlRIBindStream(modelRI, stream, flag)`.
#[no_mangle]
pub extern "C" fn aclmdlRIBindStream(
    modelRI: *mut c_void,
    stream: *mut c_void,
    flag: u32,
) -> aclError {
    guard_args(
        "aclmdlRIBindStream",
        || {
            format!(
                "modelRI={:?}, stream={:?}, flag={:?}",
                modelRI, stream, flag
            )
        },
        |rt| rt.mdl_ri_bind_stream(m(modelRI), s(stream), flag),
    )
}

/// `aclmdlRIUnbindStream(modelRI, stream)`.
#[no_mangle]
pub extern "C" fn aclmdlRIUnbindStream(modelRI: *mut c_void, stream: *mut c_void) -> aclError {
    guard_args(
        "aclmdlRIUnbindStream",
        || format!("modelRI={:?}, stream={:?}", modelRI, stream),
        |rt| rt.mdl_ri_unbind_stream(m(modelRI), s(stream)),
    )
}

/// `aclmdlRIEndTask(modelRI, stream)`.
#[no_mangle]
pub extern "C" fn aclmdlRIEndTask(modelRI: *mut c_void, stream: *mut c_void) -> aclError {
    guard_args(
        "aclmdlRIEndTask",
        || format!("modelRI={:?}, stream={:?}", modelRI, stream),
        |rt| rt.mdl_ri_end_task(m(modelRI), s(stream)),
    )
}

/// `aclmdlRIBuildEnd(modelRI, reserve)`.
#[no_mangle]
pub extern "C" fn aclmdlRIBuildEnd(modelRI: *mut c_void, reserve: *mut c_void) -> aclError {
    guard_args(
        "aclmdlRIBuildEnd",
        || format!("modelRI={:?}, reserve={:?}", modelRI, reserve),
        |rt| rt.mdl_ri_build_end(m(modelRI), Some(handle_in(reserve))),
    )
}

/// `aclmdlRIExecute(modelRI, timeout)`.
#[no_mangle]
pub extern "C" fn aclmdlRIExecute(modelRI: *mut c_void, timeout: i32) -> aclError {
    guard_args(
        "aclmdlRIExecute",
        || format!("modelRI={:?}, timeout={:?}", modelRI, timeout),
        |rt| rt.mdl_ri_execute(m(modelRI), timeout),
    )
}

/// `aclmdlRIExecuteAsync(modelRI, stream)`.
#[no_mangle]
pub extern "C" fn aclmdlRIExecuteAsync(modelRI: *mut c_void, stream: *mut c_void) -> aclError {
    guard_args(
        "aclmdlRIExecuteAsync",
        || format!("modelRI={:?}, stream={:?}", modelRI, stream),
        |rt| rt.mdl_ri_execute_async(m(modelRI), s(stream)),
    )
}

/// `aclmdlRIDestroy(modelRI)`.
#[no_mangle]
pub extern "C" fn aclmdlRIDestroy(modelRI: *mut c_void) -> aclError {
    guard_args(
        "aclmdlRIDestroy",
        || format!("modelRI={:?}", modelRI),
        |rt| rt.mdl_ri_destroy(m(modelRI)),
    )
}

/// `aclmdlRICaptureBegin(stream, mode)`.
#[no_mangle]
pub extern "C" fn aclmdlRICaptureBegin(stream: *mut c_void, mode: u32) -> aclError {
    guard_args(
        "aclmdlRICaptureBegin",
        || format!("stream={:?}, mode={:?}", stream, mode),
        |rt| rt.mdl_ri_capture_begin(RawStream(handle_in(stream)), mode),
    )
}

/// `aclmdlRICaptureGetInfo(stream, &status, &modelRI)`.
///
/// # Safety
/// Each output is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclmdlRICaptureGetInfo(
    stream: *mut c_void,
    status: *mut u32,
    modelRI: *mut *mut c_void,
) -> aclError {
    guard_args(
        "aclmdlRICaptureGetInfo",
        || {
            format!(
                "stream={:?}, status={:?}, modelRI={:?}",
                stream, status, modelRI
            )
        },
        |rt| {
            let mut m = RawModel::default();
            // SAFETY: NULL or writable by the caller's contract.
            let st = unsafe { out_ref(status) };
            rt.mdl_ri_capture_get_info(
                RawStream(handle_in(stream)),
                st,
                (!modelRI.is_null()).then_some(&mut m),
            )?;
            if !modelRI.is_null() {
                // SAFETY: non-NULL and writable by the caller's contract.
                unsafe { *modelRI = handle_out(m.0) };
            }
            Ok(())
        },
    )
}

/// `aclmdlRICaptureEnd(stream, &modelRI)`.
///
/// # Safety
/// `modelRI` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclmdlRICaptureEnd(
    stream: *mut c_void,
    modelRI: *mut *mut c_void,
) -> aclError {
    guard_args(
        "aclmdlRICaptureEnd",
        || format!("stream={:?}, modelRI={:?}", stream, modelRI),
        |rt| {
            // The caller's value goes in and comes back as the call left it: the model on
            // success, NULL when a capture was ended by a failure, untouched otherwise.
            let mut m = RawModel(if modelRI.is_null() {
                0
            } else {
                // SAFETY: non-NULL and readable (it is writable) by the caller's contract.
                handle_in(unsafe { *modelRI })
            });
            let r = rt.mdl_ri_capture_end(
                RawStream(handle_in(stream)),
                (!modelRI.is_null()).then_some(&mut m),
            );
            if !modelRI.is_null() {
                // SAFETY: non-NULL and writable by the caller's contract.
                unsafe { *modelRI = handle_out(m.0) };
            }
            r
        },
    )
}

/// `aclrtCreateLabel(&label)`.
///
/// # Safety
/// `label` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateLabel(label: *mut *mut c_void) -> aclError {
    guard_args(
        "aclrtCreateLabel",
        || format!("label={:?}", label),
        |rt| {
            let mut h = RawLabel::NULL;
            rt.create_label((!label.is_null()).then_some(&mut h))?;
            // SAFETY: NULL or writable by the caller's contract.
            unsafe { write_handle(label, h.0) };
            Ok(())
        },
    )
}

/// `aclrtDestroyLabel(label)`.
#[no_mangle]
pub extern "C" fn aclrtDestroyLabel(label: *mut c_void) -> aclError {
    guard_args(
        "aclrtDestroyLabel",
        || format!("label={:?}", label),
        |rt| rt.destroy_label(RawLabel(handle_in(label))),
    )
}

/// `aclrtCreateLabelList(labels, num, &labelList)`.
///
/// # Safety
/// `labels` is NULL or valid for reads of `num` handles; `labelList` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateLabelList(
    labels: *mut *mut c_void,
    num: usize,
    labelList: *mut *mut c_void,
) -> aclError {
    guard_args(
        "aclrtCreateLabelList",
        || {
            format!(
                "labels={:?}, num={:?}, labelList={:?}",
                labels, num, labelList
            )
        },
        |rt| {
            // Read only once the front end has checked `num` against the limit.
            let read = (!labels.is_null()).then_some(|| {
                // SAFETY: non-NULL and valid for `num` handles by the caller's contract; `num` is
                // at most 65,535 here.
                unsafe { std::slice::from_raw_parts(labels, num) }
                    .iter()
                    .map(|&p| RawLabel(handle_in(p)))
                    .collect()
            });
            let mut h = RawLabelList::NULL;
            let out = (!labelList.is_null()).then_some(&mut h);
            rt.create_label_list_counted(read, num, out)?;
            // SAFETY: NULL or writable by the caller's contract.
            unsafe { write_handle(labelList, h.0) };
            Ok(())
        },
    )
}

/// `aclrtDestroyLabelList(labelList)`.
#[no_mangle]
pub extern "C" fn aclrtDestroyLabelList(labelList: *mut c_void) -> aclError {
    guard_args(
        "aclrtDestroyLabelList",
        || format!("labelList={:?}", labelList),
        |rt| rt.destroy_label_list(RawLabelList(handle_in(labelList))),
    )
}

/// `aclrtSetLabel(label, stream)`.
#[no_mangle]
pub extern "C" fn aclrtSetLabel(label: *mut c_void, stream: *mut c_void) -> aclError {
    guard_args(
        "aclrtSetLabel",
        || format!("label={:?}, stream={:?}", label, stream),
        |rt| rt.set_label(RawLabel(handle_in(label)), RawStream(handle_in(stream))),
    )
}

/// `aclrtSwitchLabelByIndex(ptr, maxValue, labelList, stream)`: `ptr` is device memory, never
/// dereferenced here.
#[no_mangle]
pub extern "C" fn aclrtSwitchLabelByIndex(
    ptr: *mut c_void,
    maxValue: u32,
    labelList: *mut c_void,
    stream: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtSwitchLabelByIndex",
        || {
            format!(
                "ptr={:?}, maxValue={:?}, labelList={:?}, stream={:?}",
                ptr, maxValue, labelList, stream
            )
        },
        |rt| {
            rt.switch_label_by_index(
                ascend_rt::raw_types::Addr(handle_in(ptr)),
                maxValue,
                RawLabelList(handle_in(labelList)),
                RawStream(handle_in(stream)),
            )
        },
    )
}
