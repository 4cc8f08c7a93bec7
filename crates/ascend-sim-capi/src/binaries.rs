//! Exports: kernels launched from binaries (`aclrtBinaryLoadFromFile`, `aclrtBinaryUnLoad`,
//! `aclrtBinaryGetFunction`, the `aclrtKernelArgs*` calls, `aclrtLaunchKernelWithConfig`).
//!
//! A function is a simulator kernel (`acl/acl_sim.h`) of the same name: the C library looks it
//! up, when the function is fetched, in the libraries named by `ASCEND_SIM_KERNELS` (paths
//! separated by `:`) and then in the program itself (a program may link its own). The kernel
//! receives the packed arguments: each appended argument's bytes in order, a placeholder as the
//! 8-byte device address its data was copied to.
#![allow(non_snake_case)]

use std::ffi::{c_char, c_void, CString};
use std::sync::{Arc, OnceLock};

use ascend_rt::raw_types::{RawArgs, RawBinary, RawFunction, RawParam, RawStream};
use ascend_rt::SimKernelFactory;

use crate::ffi::{aclError, guard, guard_args, handle_in, opt_str, write_handle};
use crate::kernels::{aclsimKernelFunc, c_kernel};

/// The libraries `ASCEND_SIM_KERNELS` names, opened once (a library that cannot be opened is
/// reported and skipped).
fn kernel_libraries() -> &'static Vec<usize> {
    static LIBS: OnceLock<Vec<usize>> = OnceLock::new();
    LIBS.get_or_init(|| {
        let Ok(list) = std::env::var(crate::env_names::KERNELS) else {
            return Vec::new();
        };
        list.split(':')
            .filter(|p| !p.is_empty())
            .filter_map(|p| {
                let c = CString::new(p).ok()?;
                // SAFETY: a NUL-terminated path; the library stays loaded for the process.
                let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
                if h.is_null() {
                    tracing::error!("ASCEND_SIM_KERNELS: cannot open {p}");
                    return None;
                }
                Some(h as usize)
            })
            .collect()
    })
}

/// The simulator kernel named `name`: from the `ASCEND_SIM_KERNELS` libraries, then the
/// program.
fn find_kernel(name: &str) -> Option<aclsimKernelFunc> {
    let c = CString::new(name).ok()?;
    let handles = kernel_libraries()
        .iter()
        .map(|&h| h as *mut c_void)
        .chain(std::iter::once(libc::RTLD_DEFAULT));
    for h in handles {
        // SAFETY: a handle from dlopen (or the default scope) and a NUL-terminated name.
        let sym = unsafe { libc::dlsym(h, c.as_ptr()) };
        if !sym.is_null() {
            // SAFETY: the provider exports `name` as a simulator kernel of this type (the
            // contract of ASCEND_SIM_KERNELS).
            return Some(unsafe { std::mem::transmute::<*mut c_void, aclsimKernelFunc>(sym) });
        }
    }
    None
}

/// `aclrtBinaryLoadFromFile(binPath, options, &binHandle)`: the options are not used.
///
/// # Safety
/// `binPath` is NULL or NUL-terminated; `binHandle` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtBinaryLoadFromFile(
    binPath: *const c_char,
    options: *mut c_void,
    binHandle: *mut *mut c_void,
) -> aclError {
    let _ = options;
    guard("aclrtBinaryLoadFromFile", |rt| {
        // SAFETY: NULL or NUL-terminated by the caller's contract.
        let path = unsafe { opt_str(binPath) };
        let mut h = RawBinary::NULL;
        rt.binary_load_from_file(path.as_deref(), (!binHandle.is_null()).then_some(&mut h))?;
        // SAFETY: NULL or writable by the caller's contract.
        unsafe { write_handle(binHandle, h.0) };
        Ok(())
    })
}

/// `aclrtBinaryUnLoad(binHandle)`.
#[no_mangle]
pub extern "C" fn aclrtBinaryUnLoad(binHandle: *mut c_void) -> aclError {
    guard_args(
        "aclrtBinaryUnLoad",
        || format!("binHandle={:?}", binHandle),
        |rt| rt.binary_unload(RawBinary(handle_in(binHandle))),
    )
}

/// `aclrtBinaryGetFunction(binHandle, kernelName, &funcHandle)`: registers the simulator
/// kernel of that name, when one is found.
///
/// # Safety
/// `kernelName` is NULL or NUL-terminated; `funcHandle` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtBinaryGetFunction(
    binHandle: *mut c_void,
    kernelName: *const c_char,
    funcHandle: *mut *mut c_void,
) -> aclError {
    guard_args(
        "aclrtBinaryGetFunction",
        || {
            format!(
                "binHandle={:?}, kernelName={:?}, funcHandle={:?}",
                binHandle, kernelName, funcHandle
            )
        },
        |rt| {
            // SAFETY: NULL or NUL-terminated by the caller's contract.
            let name = unsafe { opt_str(kernelName) };
            let mut h = RawFunction::NULL;
            rt.binary_get_function(
                RawBinary(handle_in(binHandle)),
                name.as_deref(),
                (!funcHandle.is_null()).then_some(&mut h),
            )?;
            if let Some(n) = name.as_deref().filter(|n| !rt.has_sim_function(n)) {
                if let Some(f) = find_kernel(n) {
                    let kernel_name = n.to_string();
                    let factory: SimKernelFactory = Arc::new(move |args: &[u8]| {
                        c_kernel(kernel_name.clone(), f, args.to_vec())
                    });
                    rt.register_sim_function(n, factory);
                }
            }
            // SAFETY: NULL or writable by the caller's contract.
            unsafe { write_handle(funcHandle, h.0) };
            Ok(())
        },
    )
}

/// `aclrtKernelArgsInit(funcHandle, &argsHandle)`.
///
/// # Safety
/// `argsHandle` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsInit(
    funcHandle: *mut c_void,
    argsHandle: *mut *mut c_void,
) -> aclError {
    guard_args(
        "aclrtKernelArgsInit",
        || format!("funcHandle={:?}, argsHandle={:?}", funcHandle, argsHandle),
        |rt| {
            let mut h = RawArgs::NULL;
            let out = (!argsHandle.is_null()).then_some(&mut h);
            rt.kernel_args_init(RawFunction(handle_in(funcHandle)), out)?;
            // SAFETY: forwarded contract.
            unsafe { write_handle(argsHandle, h.0) };
            Ok(())
        },
    )
}

/// An argument's bytes as the runtime checks them: `None` for NULL, else at most one byte
/// past the largest argument, which is enough for the size check, so that no more are read
/// whatever `size` says.
///
/// # Safety
/// `param` is NULL or valid for reads of `size` bytes.
unsafe fn argument_bytes<'a>(param: *const c_void, size: usize) -> Option<&'a [u8]> {
    let readable = size.min(ascend_rt::MAX_KERNEL_ARGS_BYTES + 1);
    // SAFETY: non-NULL and valid for `size` bytes by the caller's contract; `readable` is at
    // most that.
    (!param.is_null()).then(|| unsafe { std::slice::from_raw_parts(param.cast::<u8>(), readable) })
}

/// `aclrtKernelArgsAppend(argsHandle, param, paramSize, &paramHandle)`.
///
/// # Safety
/// `param` is NULL or valid for reads of `paramSize` bytes; `paramHandle` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsAppend(
    argsHandle: *mut c_void,
    param: *mut c_void,
    paramSize: usize,
    paramHandle: *mut *mut c_void,
) -> aclError {
    guard_args(
        "aclrtKernelArgsAppend",
        || {
            format!(
                "argsHandle={:?}, param={:?}, paramSize={:?}, paramHandle={:?}",
                argsHandle, param, paramSize, paramHandle
            )
        },
        |rt| {
            // SAFETY: forwarded contract.
            let bytes = unsafe { argument_bytes(param, paramSize) };
            let mut h = RawParam::NULL;
            let out = (!paramHandle.is_null()).then_some(&mut h);
            rt.kernel_args_append(RawArgs(handle_in(argsHandle)), bytes, out)?;
            // SAFETY: forwarded contract.
            unsafe { write_handle(paramHandle, h.0) };
            Ok(())
        },
    )
}

/// `aclrtKernelArgsAppendPlaceHolder(argsHandle, &paramHandle)`.
///
/// # Safety
/// `paramHandle` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsAppendPlaceHolder(
    argsHandle: *mut c_void,
    paramHandle: *mut *mut c_void,
) -> aclError {
    guard_args(
        "aclrtKernelArgsAppendPlaceHolder",
        || format!("argsHandle={:?}, paramHandle={:?}", argsHandle, paramHandle),
        |rt| {
            let mut h = RawParam::NULL;
            let out = (!paramHandle.is_null()).then_some(&mut h);
            rt.kernel_args_append_placeholder(RawArgs(handle_in(argsHandle)), out)?;
            // SAFETY: forwarded contract.
            unsafe { write_handle(paramHandle, h.0) };
            Ok(())
        },
    )
}

/// `aclrtKernelArgsGetPlaceHolderBuffer(argsHandle, paramHandle, dataSize, &bufferAddr)`: the
/// buffer is the library's, valid until the next call for the placeholder or the binary's
/// unload; the program writes the argument's data into it before the launch.
///
/// # Safety
/// `bufferAddr` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsGetPlaceHolderBuffer(
    argsHandle: *mut c_void,
    paramHandle: *mut c_void,
    dataSize: usize,
    bufferAddr: *mut *mut c_void,
) -> aclError {
    guard_args(
        "aclrtKernelArgsGetPlaceHolderBuffer",
        || {
            format!(
                "argsHandle={:?}, paramHandle={:?}, dataSize={:?}, bufferAddr={:?}",
                argsHandle, paramHandle, dataSize, bufferAddr
            )
        },
        |rt| {
            let mut buf = None;
            rt.kernel_args_placeholder_buffer(
                RawArgs(handle_in(argsHandle)),
                RawParam(handle_in(paramHandle)),
                dataSize,
                (!bufferAddr.is_null()).then_some(&mut buf),
            )?;
            if let Some(buf) = buf {
                // The vector never grows, so its storage stays where it is while the runtime
                // holds it.
                let p = buf.lock().unwrap_or_else(|e| e.into_inner()).as_mut_ptr();
                // SAFETY: the runtime wrote the buffer, so `bufferAddr` is non-NULL, and it is
                // writable by the caller's contract.
                unsafe { *bufferAddr = p.cast() };
            }
            Ok(())
        },
    )
}

/// `aclrtKernelArgsParaUpdate(argsHandle, paramHandle, param, paramSize)`.
///
/// # Safety
/// `param` is NULL or valid for reads of `paramSize` bytes.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsParaUpdate(
    argsHandle: *mut c_void,
    paramHandle: *mut c_void,
    param: *mut c_void,
    paramSize: usize,
) -> aclError {
    guard_args(
        "aclrtKernelArgsParaUpdate",
        || {
            format!(
                "argsHandle={:?}, paramHandle={:?}, param={:?}, paramSize={:?}",
                argsHandle, paramHandle, param, paramSize
            )
        },
        |rt| {
            // SAFETY: forwarded contract.
            let bytes = unsafe { argument_bytes(param, paramSize) };
            rt.kernel_args_para_update(
                RawArgs(handle_in(argsHandle)),
                RawParam(handle_in(paramHandle)),
                bytes,
            )
        },
    )
}

/// `aclrtKernelArgsFinalize(argsHandle)`.
#[no_mangle]
pub extern "C" fn aclrtKernelArgsFinalize(argsHandle: *mut c_void) -> aclError {
    guard_args(
        "aclrtKernelArgsFinalize",
        || format!("argsHandle={:?}", argsHandle),
        |rt| rt.kernel_args_finalize(RawArgs(handle_in(argsHandle))),
    )
}

/// `aclrtLaunchKernelWithConfig(funcHandle, numBlocks, stream, cfg, argsHandle, reserve)`:
/// the launch attributes in `cfg` are not used by the simulator.
#[no_mangle]
pub extern "C" fn aclrtLaunchKernelWithConfig(
    funcHandle: *mut c_void,
    numBlocks: u32,
    stream: *mut c_void,
    cfg: *mut c_void,
    argsHandle: *mut c_void,
    reserve: *mut c_void,
) -> aclError {
    let _ = cfg;
    guard("aclrtLaunchKernelWithConfig", |rt| {
        rt.launch_kernel_with_config(
            RawFunction(handle_in(funcHandle)),
            numBlocks,
            RawStream(handle_in(stream)),
            RawArgs(handle_in(argsHandle)),
            reserve.is_null(),
        )
    })
}
