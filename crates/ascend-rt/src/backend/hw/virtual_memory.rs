//! Physical memory, reserved ranges, mappings and shareable handles through the library's
//! own calls. A mapped range is remembered as an allocation of its device, so that a call on
//! an address in it enters that device's context.

use std::ffi::c_void;

use super::handles::ptr;
use super::HwBackend;
use crate::backend::{BResult, PhysicalImport, VirtualMemory};
use ascend_rt_sys as sys;

/// `ACL_MEM_LOCATION_TYPE_DEVICE`.
const LOCATION_DEVICE: u32 = 1;
/// The export flag that lifts the whitelist.
const VMM_EXPORT_NO_PID_VALIDATION: u64 = crate::runtime::VMM_EXPORT_NO_PID_VALIDATION;

impl VirtualMemory for HwBackend {
    fn malloc_physical(&self, device: u32, bytes: u64, mem_attr: u32) -> BResult<u64> {
        self.enter(device)?;
        let prop = sys::aclrtPhysicalMemProp {
            handleType: 0,
            allocationType: 0,
            memAttr: mem_attr,
            location: sys::aclrtMemLocation {
                id: device,
                type_: LOCATION_DEVICE,
            },
            reserve: 0,
        };
        let mut h: sys::aclrtDrvMemHandle = std::ptr::null_mut();
        // SAFETY: the out-pointer and the property are live locals.
        acl!(self, aclrtMallocPhysical(&mut h, bytes as usize, &prop, 0))?;
        Ok(h as usize as u64)
    }

    fn free_physical(
        &self,
        device: u32,
        handle: u64,
        _import: Option<u64>,
        _pid: u32,
    ) -> BResult<()> {
        self.enter(device)?;
        // SAFETY: a handle the library gave (front-end validated), freed once.
        acl!(self, aclrtFreePhysical(ptr(handle)))?;
        Ok(())
    }

    fn reserve_address(&self, device: u32, bytes: u64, _align: u64) -> BResult<u64> {
        self.enter(device)?;
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local; no address is asked for.
        acl!(
            self,
            aclrtReserveMemAddress(&mut p, bytes as usize, 0, std::ptr::null_mut(), 0)
        )?;
        Ok(p as usize as u64)
    }

    fn release_address(&self, va: u64) -> BResult<()> {
        // SAFETY: the start of a range the library reserved (front-end validated).
        acl!(self, aclrtReleaseMemAddress(ptr(va)))?;
        Ok(())
    }

    fn map_memory(
        &self,
        device: u32,
        va: u64,
        bytes: u64,
        offset: u64,
        handle: u64,
    ) -> BResult<()> {
        // SAFETY: an address in a reserved range and a live handle (front-end validated).
        acl!(
            self,
            aclrtMapMem(ptr(va), bytes as usize, offset as usize, ptr(handle), 0)
        )?;
        self.state().allocs.insert(va, (bytes, device));
        Ok(())
    }

    fn unmap_memory(&self, va: u64) -> BResult<()> {
        // SAFETY: the start of a mapping (front-end validated).
        acl!(self, aclrtUnmapMem(ptr(va)))?;
        self.state().allocs.remove(&va);
        Ok(())
    }

    fn set_access(&self, va: u64, bytes: u64, device: u32, flags: u32) -> BResult<()> {
        let mut desc = sys::aclrtMemAccessDesc {
            flags,
            location: sys::aclrtMemLocation {
                id: device,
                type_: LOCATION_DEVICE,
            },
            rsv: [0; 12],
        };
        // SAFETY: a mapping's range (front-end validated) and one live descriptor.
        acl!(
            self,
            aclrtMemSetAccess(ptr(va), bytes as usize, &mut desc, 1)
        )?;
        Ok(())
    }

    fn export_shareable(
        &self,
        device: u32,
        handle: u64,
        _len: u64,
        whitelist: bool,
        _pid: u32,
    ) -> BResult<u64> {
        self.enter(device)?;
        let flags = if whitelist {
            0
        } else {
            VMM_EXPORT_NO_PID_VALIDATION
        };
        let mut sh = 0u64;
        // SAFETY: a live handle (front-end validated) and a live out-value.
        acl!(
            self,
            aclrtMemExportToShareableHandle(ptr(handle), 0, flags, &mut sh)
        )?;
        Ok(sh)
    }

    fn set_shareable_pids(&self, shareable: u64, pids: &[i32], _pid: u32) -> BResult<()> {
        let mut pids = pids.to_vec();
        // SAFETY: a live list of `pids.len()` ids.
        acl!(
            self,
            aclrtMemSetPidToShareableHandle(shareable, pids.as_mut_ptr(), pids.len())
        )?;
        Ok(())
    }

    /// The library's driver ends the shareable handle at the exporter's free itself.
    fn close_shareable(&self, _shareable: u64, _pid: u32) -> BResult<()> {
        Ok(())
    }

    /// The library looks the exporter up itself.
    fn shareable_device(&self, _shareable: u64) -> BResult<Option<u32>> {
        Ok(None)
    }

    fn import_shareable(&self, shareable: u64, device: u32, _pid: u32) -> BResult<PhysicalImport> {
        let mut h: sys::aclrtDrvMemHandle = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(
            self,
            aclrtMemImportFromShareableHandle(shareable, device as i32, &mut h)
        )?;
        Ok(PhysicalImport {
            handle: h as usize as u64,
            len: None,
            device,
        })
    }
}
