//! Device memory: allocations (remembered so that a call on an address can enter its
//! device's context), synchronous copies and memsets, and CMO descriptors. Page-locked host
//! buffers are `host_staging`'s.

use std::ffi::c_void;

use ascend_rt_sys as sys;

use super::handles::ptr;
use super::HwBackend;
use crate::backend::{SyncDst, SyncSrc};
use crate::error::AclResult;

impl HwBackend {
    /// `aclrtMalloc` in the device's context; the allocation is remembered.
    pub(super) fn malloc(&self, device: u32, bytes: u64, policy: u32) -> AclResult<u64> {
        self.enter(device)?;
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtMalloc(&mut p, bytes as usize, policy as _))?;
        let addr = p as usize as u64;
        self.state().allocs.insert(addr, (bytes, device));
        Ok(addr)
    }

    /// `aclrtFree` in the device's context.
    pub(super) fn free(&self, device: u32, addr: u64) -> AclResult<()> {
        self.enter(device)?;
        // SAFETY: a base address aclrtMalloc returned (front-end validated).
        acl!(self, aclrtFree(ptr(addr)))?;
        self.state().allocs.remove(&addr);
        Ok(())
    }

    /// A synchronous copy: `aclrtMemcpy` in the context of the device owning the device end
    /// (the destination's when both are); host to host is a plain copy.
    pub(super) fn memcpy(&self, dst: SyncDst<'_>, src: SyncSrc<'_>, count: u64) -> AclResult<()> {
        let n = count as usize;
        match (dst, src) {
            (SyncDst::Host(d), SyncSrc::Host(s)) => {
                d[..n].copy_from_slice(&s[..n]);
                Ok(())
            }
            (SyncDst::Device(d), SyncSrc::Host(s)) => {
                self.enter_addr(d)?;
                // SAFETY: `s` is a live host slice of at least `n` bytes for the whole
                // (synchronous) call; `d` is a validated device range.
                acl!(
                    self,
                    aclrtMemcpy(
                        ptr(d),
                        n,
                        s.as_ptr() as *const c_void,
                        n,
                        sys::aclrtMemcpyKind_ACL_MEMCPY_HOST_TO_DEVICE as _
                    )
                )
            }
            (SyncDst::Host(d), SyncSrc::Device(s)) => {
                self.enter_addr(s)?;
                // SAFETY: `d` is a live, exclusively borrowed host slice of at least `n`
                // bytes for the whole (synchronous) call; `s` is a validated device range.
                acl!(
                    self,
                    aclrtMemcpy(
                        d.as_mut_ptr() as *mut c_void,
                        n,
                        ptr(s) as *const c_void,
                        n,
                        sys::aclrtMemcpyKind_ACL_MEMCPY_DEVICE_TO_HOST as _
                    )
                )
            }
            (SyncDst::Device(d), SyncSrc::Device(s)) => {
                self.enter_addr(d)?;
                // SAFETY: both are validated device ranges.
                acl!(
                    self,
                    aclrtMemcpy(
                        ptr(d),
                        n,
                        ptr(s) as *const c_void,
                        n,
                        sys::aclrtMemcpyKind_ACL_MEMCPY_DEVICE_TO_DEVICE as _
                    )
                )
            }
        }
    }

    /// `aclrtMemset` in the context of the device owning `addr`.
    pub(super) fn memset(&self, addr: u64, value: u8, count: u64) -> AclResult<()> {
        self.enter_addr(addr)?;
        let n = count as usize;
        // SAFETY: a validated device range.
        acl!(self, aclrtMemset(ptr(addr), n, value as i32, n))
    }

    /// `aclrtCmoSetDesc` in the context of the device owning the descriptor.
    pub(super) fn cmo_set_desc(&self, desc: u64, src: u64, size: u64) -> AclResult<()> {
        self.enter_addr(desc)?;
        // SAFETY: `desc` is validated device memory with room for a descriptor; `src` is only
        // recorded in the descriptor, never dereferenced on the host.
        acl!(self, aclrtCmoSetDesc(ptr(desc), ptr(src), size as usize))
    }
}
