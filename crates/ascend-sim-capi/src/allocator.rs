//! Exports: the custom allocator registry (`acl_rt_allocator.h`). The program's object and
//! function pointers are kept as numbers and handed back; nothing here calls them.
#![allow(non_snake_case)]

use std::ffi::c_void;

use ascend_rt::AllocatorField;

use crate::ffi::{aclError, guard, guard_args, handle_in, handle_out};

/// `aclrtAllocatorCreateDesc()`: NULL when the runtime cannot start.
#[no_mangle]
pub extern "C" fn aclrtAllocatorCreateDesc() -> *mut c_void {
    let mut desc = 0;
    guard("aclrtAllocatorCreateDesc", |rt| {
        desc = rt.allocator_create_desc();
        Ok(())
    });
    handle_out(desc)
}

/// `aclrtAllocatorDestroyDesc(allocatorDesc)`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorDestroyDesc(allocatorDesc: *mut c_void) -> aclError {
    guard_args(
        "aclrtAllocatorDestroyDesc",
        || format!("allocatorDesc={:?}", allocatorDesc),
        |rt| rt.allocator_destroy_desc(handle_in(allocatorDesc)),
    )
}

fn set(api: &'static str, desc: *mut c_void, field: AllocatorField, value: u64) -> aclError {
    guard(api, |rt| rt.allocator_set(handle_in(desc), field, value))
}

/// A function pointer argument as a number (0 for NULL).
fn fn_value<F>(f: Option<F>, as_ptr: impl Fn(F) -> *const ()) -> u64 {
    f.map_or(0, |f| as_ptr(f) as usize as u64)
}

/// `aclrtAllocatorAllocFunc`.
pub type AllocFunc = Option<unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void>;
/// `aclrtAllocatorFreeFunc`.
pub type FreeFunc = Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>;
/// `aclrtAllocatorAllocAdviseFunc`.
pub type AllocAdviseFunc =
    Option<unsafe extern "C" fn(*mut c_void, usize, *mut c_void) -> *mut c_void>;
/// `aclrtAllocatorGetAddrFromBlockFunc`.
pub type GetAddrFunc = Option<unsafe extern "C" fn(*mut c_void) -> *mut c_void>;

/// `aclrtAllocatorSetObjToDesc(allocatorDesc, allocator)`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorSetObjToDesc(
    allocatorDesc: *mut c_void,
    allocator: *mut c_void,
) -> aclError {
    set(
        "aclrtAllocatorSetObjToDesc",
        allocatorDesc,
        AllocatorField::Obj,
        handle_in(allocator),
    )
}

/// `aclrtAllocatorSetAllocFuncToDesc(allocatorDesc, func)`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorSetAllocFuncToDesc(
    allocatorDesc: *mut c_void,
    func: AllocFunc,
) -> aclError {
    let v = fn_value(func, |f| f as *const ());
    set(
        "aclrtAllocatorSetAllocFuncToDesc",
        allocatorDesc,
        AllocatorField::Alloc,
        v,
    )
}

/// `aclrtAllocatorSetFreeFuncToDesc(allocatorDesc, func)`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorSetFreeFuncToDesc(
    allocatorDesc: *mut c_void,
    func: FreeFunc,
) -> aclError {
    let v = fn_value(func, |f| f as *const ());
    set(
        "aclrtAllocatorSetFreeFuncToDesc",
        allocatorDesc,
        AllocatorField::Free,
        v,
    )
}

/// `aclrtAllocatorSetAllocAdviseFuncToDesc(allocatorDesc, func)`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorSetAllocAdviseFuncToDesc(
    allocatorDesc: *mut c_void,
    func: AllocAdviseFunc,
) -> aclError {
    let v = fn_value(func, |f| f as *const ());
    set(
        "aclrtAllocatorSetAllocAdviseFuncToDesc",
        allocatorDesc,
        AllocatorField::AllocAdvise,
        v,
    )
}

/// `aclrtAllocatorSetGetAddrFromBlockFuncToDesc(allocatorDesc, func)`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorSetGetAddrFromBlockFuncToDesc(
    allocatorDesc: *mut c_void,
    func: GetAddrFunc,
) -> aclError {
    let v = fn_value(func, |f| f as *const ());
    set(
        "aclrtAllocatorSetGetAddrFromBlockFuncToDesc",
        allocatorDesc,
        AllocatorField::GetAddrFromBlock,
        v,
    )
}

/// `aclrtAllocatorRegister(stream, allocatorDesc)`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorRegister(
    stream: *mut c_void,
    allocatorDesc: *mut c_void,
) -> aclError {
    guard_args(
        "aclrtAllocatorRegister",
        || format!("stream={:?}, allocatorDesc={:?}", stream, allocatorDesc),
        |rt| rt.allocator_register(handle_in(stream), handle_in(allocatorDesc)),
    )
}

/// Writes `v` through `out` when it is not NULL.
///
/// # Safety
/// `out` is NULL or writable.
unsafe fn put<T>(out: *mut T, v: T) {
    // SAFETY: NULL or writable by the caller's contract.
    if let Some(o) = unsafe { out.as_mut() } {
        *o = v;
    }
}

/// A stored function pointer value back as the pointer (NULL for 0).
///
/// # Safety
/// `v` is 0 or a value stored from a function pointer of type `F` (same size as a pointer).
unsafe fn as_fn<F: Copy>(v: u64) -> Option<F> {
    if v == 0 {
        return None;
    }
    let p = v as usize as *const ();
    // SAFETY: `v` came from an `F` (a non-null function pointer) by the caller's contract, and
    // function pointers and data pointers have the same size and representation here.
    Some(unsafe { std::mem::transmute_copy::<*const (), F>(&p) })
}

/// `aclrtAllocatorGetByStream(stream, &desc, &allocator, &allocFunc, &freeFunc,
/// &allocAdviseFunc, &getAddrFromBlockFunc)`.
///
/// # Safety
/// Each output is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aclrtAllocatorGetByStream(
    stream: *mut c_void,
    allocatorDesc: *mut *mut c_void,
    allocator: *mut *mut c_void,
    allocFunc: *mut AllocFunc,
    freeFunc: *mut FreeFunc,
    allocAdviseFunc: *mut AllocAdviseFunc,
    getAddrFromBlockFunc: *mut GetAddrFunc,
) -> aclError {
    guard_args(
        "aclrtAllocatorGetByStream",
        || {
            format!("stream={:?}, allocatorDesc={:?}, allocator={:?}, allocFunc={:?}, freeFunc={:?}, allocAdviseFunc={:?}, getAddrFromBlockFunc={:?}", stream, allocatorDesc, allocator, allocFunc, freeFunc, allocAdviseFunc, getAddrFromBlockFunc)
        },
        |rt| {
            let (mut desc, mut f) = (0, ascend_rt::AllocatorFields::default());
            rt.allocator_get_by_stream(
                handle_in(stream),
                (!allocatorDesc.is_null()).then_some(&mut desc),
                Some(&mut f),
            )?;
            // SAFETY: each output NULL or writable by the caller's contract; each stored value came
            // from a function pointer of the output's type (the setters above).
            unsafe {
                put(allocatorDesc, handle_out(desc));
                put(allocator, handle_out(f.obj));
                put(
                    allocFunc,
                    as_fn::<unsafe extern "C" fn(*mut c_void, usize) -> *mut c_void>(f.alloc),
                );
                put(
                    freeFunc,
                    as_fn::<unsafe extern "C" fn(*mut c_void, *mut c_void)>(f.free),
                );
                put(
                    allocAdviseFunc,
                    as_fn::<unsafe extern "C" fn(*mut c_void, usize, *mut c_void) -> *mut c_void>(
                        f.alloc_advise,
                    ),
                );
                put(
                    getAddrFromBlockFunc,
                    as_fn::<unsafe extern "C" fn(*mut c_void) -> *mut c_void>(
                        f.get_addr_from_block,
                    ),
                );
            }
            Ok(())
        },
    )
}

/// `aclrtAllocatorUnregister(stream)`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorUnregister(stream: *mut c_void) -> aclError {
    guard_args(
        "aclrtAllocatorUnregister",
        || format!("stream={:?}", stream),
        |rt| rt.allocator_unregister(handle_in(stream)),
    )
}
