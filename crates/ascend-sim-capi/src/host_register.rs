//! Exports: registered host memory (`aclrtHostRegister`, `aclrtHostRegisterV2`,
//! `aclrtHostGetDevicePointer`, `aclrtHostUnregister`) and managed memory
//! (`aclrtMemAllocManaged`). A registered range of the program's own memory is given to the
//! front end as [`ProgramMemory`], through which the runtime reads and writes it to keep the
//! device's copy coherent; a range of an `aclrtMallocHost` buffer the runtime reaches itself.
#![allow(non_snake_case)]

use std::ffi::c_void;
use std::sync::Arc;

use ascend_rt::raw_types::Addr;
use ascend_rt::{AddressClass, HostMemory, Runtime};

use crate::ffi::{aclError, guard_args};

/// A range of the C program's memory, registered with the runtime.
struct ProgramMemory {
    base: usize,
    len: usize,
}

impl HostMemory for ProgramMemory {
    fn len(&self) -> usize {
        self.len
    }

    fn read(&self, offset: usize, out: &mut [u8]) {
        if offset
            .checked_add(out.len())
            .is_none_or(|end| end > self.len)
        {
            return;
        }
        // SAFETY: ACL's contract for registered memory: the range stays valid for reads and
        // writes until aclrtHostUnregister, and the front end reads it only inside ACL calls of
        // the program; the bounds were checked above.
        unsafe {
            std::ptr::copy_nonoverlapping(
                (self.base + offset) as *const u8,
                out.as_mut_ptr(),
                out.len(),
            );
        }
    }

    fn write(&self, offset: usize, data: &[u8]) {
        if offset
            .checked_add(data.len())
            .is_none_or(|end| end > self.len)
        {
            return;
        }
        // SAFETY: as for `read`: a registered range, valid for writes until it is unregistered.
        unsafe {
            std::ptr::copy_nonoverlapping(
                data.as_ptr(),
                (self.base + offset) as *mut u8,
                data.len(),
            );
        }
    }
}

/// The program's memory at `ptr` for the front end, or `None` when the runtime reaches it
/// itself (an `aclrtMallocHost` buffer) or the call fails before reading it (NULL, size 0,
/// a size no memory has).
fn program_memory(rt: &Runtime, ptr: *mut c_void, size: u64) -> Option<Arc<dyn HostMemory>> {
    let len = usize::try_from(size)
        .ok()
        .filter(|&l| l > 0 && l <= isize::MAX as usize)?;
    let a = Addr(ptr as usize as u64);
    (rt.classify_address(a) == AddressClass::Host && !ptr.is_null()).then(|| {
        Arc::new(ProgramMemory {
            base: ptr as usize,
            len,
        }) as Arc<dyn HostMemory>
    })
}

/// `aclrtHostRegisterV2(ptr, size, flag)`.
///
/// # Safety
/// `ptr` is valid for reads and writes of `size` bytes until `aclrtHostUnregister(ptr)`.
#[no_mangle]
pub unsafe extern "C" fn aclrtHostRegisterV2(ptr: *mut c_void, size: u64, flag: u32) -> aclError {
    guard_args(
        "aclrtHostRegisterV2",
        || format!("ptr={:?}, size={:?}, flag={:?}", ptr, size, flag),
        |rt| {
            let mem = program_memory(rt, ptr, size);
            rt.host_register_v2(Addr(ptr as usize as u64), size, flag, mem)
        },
    )
}

/// `aclrtHostRegister(ptr, size, type, &devPtr)`.
///
/// # Safety
/// `ptr` is valid for reads and writes of `size` bytes until `aclrtHostUnregister(ptr)`;
/// `devPtr` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtHostRegister(
    ptr: *mut c_void,
    size: u64,
    type_: u32,
    devPtr: *mut *mut c_void,
) -> aclError {
    guard_args(
        "aclrtHostRegister",
        || {
            format!(
                "ptr={:?}, size={:?}, type={:?}, devPtr={:?}",
                ptr, size, type_, devPtr
            )
        },
        |rt| {
            let mem = program_memory(rt, ptr, size);
            let mut dev = Addr::NULL;
            rt.host_register(
                Addr(ptr as usize as u64),
                size,
                type_,
                (!devPtr.is_null()).then_some(&mut dev),
                mem,
            )?;
            // SAFETY: non-NULL (the front end refused NULL) and valid for a write.
            unsafe { devPtr.write(dev.0 as usize as *mut c_void) };
            Ok(())
        },
    )
}

/// `aclrtHostGetDevicePointer(pHost, &pDevice, flag)`.
///
/// # Safety
/// `pDevice` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtHostGetDevicePointer(
    pHost: *mut c_void,
    pDevice: *mut *mut c_void,
    flag: u32,
) -> aclError {
    guard_args(
        "aclrtHostGetDevicePointer",
        || format!("pHost={:?}, pDevice={:?}, flag={:?}", pHost, pDevice, flag),
        |rt| {
            let mut dev = Addr::NULL;
            let out = (!pDevice.is_null()).then_some(&mut dev);
            rt.host_get_device_pointer(Addr(pHost as usize as u64), out, flag)?;
            // SAFETY: non-NULL (the front end refused NULL) and valid for a write.
            unsafe { pDevice.write(dev.0 as usize as *mut c_void) };
            Ok(())
        },
    )
}

/// `aclrtHostUnregister(ptr)`.
#[no_mangle]
pub extern "C" fn aclrtHostUnregister(ptr: *mut c_void) -> aclError {
    guard_args(
        "aclrtHostUnregister",
        || format!("ptr={:?}", ptr),
        |rt| rt.host_unregister(Addr(ptr as usize as u64)),
    )
}

/// `aclrtMemAllocManaged(&ptr, size, flag)`.
///
/// # Safety
/// `ptr` is NULL or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemAllocManaged(
    ptr: *mut *mut c_void,
    size: u64,
    flag: u32,
) -> aclError {
    guard_args(
        "aclrtMemAllocManaged",
        || format!("ptr={:?}, size={:?}, flag={:?}", ptr, size, flag),
        |rt| {
            let mut a = Addr::NULL;
            rt.mem_alloc_managed((!ptr.is_null()).then_some(&mut a), size, flag)?;
            // SAFETY: non-NULL (the front end refused NULL) and valid for a write.
            unsafe { ptr.write(a.0 as usize as *mut c_void) };
            Ok(())
        },
    )
}
