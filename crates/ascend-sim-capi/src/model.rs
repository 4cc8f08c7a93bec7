//! Exports: model running instances.
#![allow(non_snake_case)]

use std::ffi::c_void;

use ascend_rt::raw_types::{RawModel, RawStream};

use crate::ffi::{aclError, guard, handle_in, write_handle};

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
    guard("aclmdlRIBuildBegin", |rt| {
        let mut h = RawModel::default();
        rt.mdl_ri_build_begin((!modelRI.is_null()).then_some(&mut h), flag)?;
        // SAFETY: NULL or valid for writes by the caller's contract.
        unsafe { write_handle(modelRI, h.0) };
        Ok(())
    })
}

/// `aclmdlRIBindStream(modelRI, stream, flag)`.
#[no_mangle]
pub extern "C" fn aclmdlRIBindStream(
    modelRI: *mut c_void,
    stream: *mut c_void,
    flag: u32,
) -> aclError {
    guard("aclmdlRIBindStream", |rt| {
        rt.mdl_ri_bind_stream(m(modelRI), s(stream), flag)
    })
}

/// `aclmdlRIUnbindStream(modelRI, stream)`.
#[no_mangle]
pub extern "C" fn aclmdlRIUnbindStream(modelRI: *mut c_void, stream: *mut c_void) -> aclError {
    guard("aclmdlRIUnbindStream", |rt| {
        rt.mdl_ri_unbind_stream(m(modelRI), s(stream))
    })
}

/// `aclmdlRIEndTask(modelRI, stream)`.
#[no_mangle]
pub extern "C" fn aclmdlRIEndTask(modelRI: *mut c_void, stream: *mut c_void) -> aclError {
    guard("aclmdlRIEndTask", |rt| {
        rt.mdl_ri_end_task(m(modelRI), s(stream))
    })
}

/// `aclmdlRIBuildEnd(modelRI, reserve)`.
#[no_mangle]
pub extern "C" fn aclmdlRIBuildEnd(modelRI: *mut c_void, reserve: *mut c_void) -> aclError {
    guard("aclmdlRIBuildEnd", |rt| {
        rt.mdl_ri_build_end(m(modelRI), Some(handle_in(reserve)))
    })
}

/// `aclmdlRIExecute(modelRI, timeout)`.
#[no_mangle]
pub extern "C" fn aclmdlRIExecute(modelRI: *mut c_void, timeout: i32) -> aclError {
    guard("aclmdlRIExecute", |rt| {
        rt.mdl_ri_execute(m(modelRI), timeout)
    })
}

/// `aclmdlRIExecuteAsync(modelRI, stream)`.
#[no_mangle]
pub extern "C" fn aclmdlRIExecuteAsync(modelRI: *mut c_void, stream: *mut c_void) -> aclError {
    guard("aclmdlRIExecuteAsync", |rt| {
        rt.mdl_ri_execute_async(m(modelRI), s(stream))
    })
}

/// `aclmdlRIDestroy(modelRI)`.
#[no_mangle]
pub extern "C" fn aclmdlRIDestroy(modelRI: *mut c_void) -> aclError {
    guard("aclmdlRIDestroy", |rt| rt.mdl_ri_destroy(m(modelRI)))
}
