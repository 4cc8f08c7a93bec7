//! Device memory: allocations (remembered so that a call on an address can enter its
//! device's context), synchronous copies and memsets, and CMO descriptors. Page-locked host
//! buffers are `host_staging`'s.

use std::ffi::c_void;

use ascend_rt_sys as sys;

use super::handles::ptr;
use super::HwBackend;
use std::sync::{Arc, Mutex};

use super::host_staging::Pinned;
use crate::backend::{BResult, HostBuf, Memory, SyncCopy};

impl Memory for HwBackend {
    /// `aclrtMalloc` in the device's context; the allocation is remembered.
    fn malloc(&self, device: u32, bytes: u64, policy: u32) -> BResult<u64> {
        self.enter(device)?;
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local.
        acl!(self, aclrtMalloc(&mut p, bytes as usize, policy as _))?;
        let addr = p as usize as u64;
        self.state().allocs.insert(addr, (bytes, device));
        Ok(addr)
    }

    /// `aclrtFree` in the device's context.
    fn free(&self, device: u32, addr: u64) -> BResult<()> {
        self.enter(device)?;
        // SAFETY: a base address aclrtMalloc returned (front-end validated).
        acl!(self, aclrtFree(ptr(addr)))?;
        self.state().allocs.remove(&addr);
        Ok(())
    }

    /// A synchronous copy: `aclrtMemcpy` in the context of the device owning the device end
    /// (the destination's when both are).
    fn memcpy(&self, copy: SyncCopy<'_>) -> BResult<()> {
        let (dst, src, n, kind) = match copy {
            SyncCopy::HostToDevice { dst, src } => {
                self.enter_addr(dst)?;
                let kind = sys::aclrtMemcpyKind_ACL_MEMCPY_HOST_TO_DEVICE;
                (ptr(dst), src.as_ptr() as *const c_void, src.len(), kind)
            }
            SyncCopy::DeviceToHost { dst, src } => {
                self.enter_addr(src)?;
                let kind = sys::aclrtMemcpyKind_ACL_MEMCPY_DEVICE_TO_HOST;
                (
                    dst.as_mut_ptr() as *mut c_void,
                    ptr(src) as *const c_void,
                    dst.len(),
                    kind,
                )
            }
            SyncCopy::DeviceToDevice { dst, src, len } => {
                self.enter_addr(dst)?;
                let kind = sys::aclrtMemcpyKind_ACL_MEMCPY_DEVICE_TO_DEVICE;
                (ptr(dst), ptr(src) as *const c_void, len as usize, kind)
            }
        };
        // SAFETY: a host end is a live slice of exactly `n` bytes, exclusively borrowed when
        // it is written, for the whole (synchronous) call; a device end is a range the front
        // end validated against a live allocation.
        Ok(acl!(self, aclrtMemcpy(dst, n, src, n, kind as _))?)
    }

    /// `aclrtMemset` in the context of the device owning `addr`.
    fn memset(&self, addr: u64, value: u8, count: u64) -> BResult<()> {
        self.enter_addr(addr)?;
        let n = count as usize;
        // SAFETY: a validated device range.
        Ok(acl!(self, aclrtMemset(ptr(addr), n, value as i32, n))?)
    }

    /// A plain copy: only the simulator tells the runtime's copies from the program's.
    fn mirror_copy(&self, copy: SyncCopy<'_>) -> BResult<()> {
        self.memcpy(copy)
    }

    /// Nothing to check: only the simulator detects races.
    fn host_access(&self, _addr: u64, _len: u64, _write: bool) -> BResult<()> {
        Ok(())
    }

    /// `aclrtCmoSetDesc` in the context of the device owning the descriptor.
    fn cmo_set_desc(&self, desc: u64, src: u64, size: u64) -> BResult<()> {
        self.enter_addr(desc)?;
        // SAFETY: `desc` is validated device memory with room for a descriptor; `src` is only
        // recorded in the descriptor, never dereferenced on the host.
        Ok(acl!(
            self,
            aclrtCmoSetDesc(ptr(desc), ptr(src), size as usize)
        )?)
    }

    /// A page-locked host buffer: the front end's `Vec` and real pinned memory
    /// (`aclrtMallocHost`) behind it, in some context if any exists. Frees first the pinned
    /// memory of buffers the front end has dropped.
    fn malloc_host(&self, bytes: usize) -> BResult<HostBuf> {
        self.sweep_pinned();
        // Page-locked memory needs a context on some runtimes: use any open device's, else
        // any explicit context.
        let any = {
            let st = self.state();
            let default = st.contexts.values().next().copied();
            default.or_else(|| st.explicit.keys().next().copied())
        };
        if let Some(ctx) = any {
            self.enter_ctx(ctx)?;
        }
        let p = self.alloc_pinned(bytes)?;
        let buf: HostBuf = Arc::new(Mutex::new(vec![0u8; bytes]));
        self.state().pinned.insert(
            Arc::as_ptr(&buf) as usize,
            Pinned {
                buf: Arc::downgrade(&buf),
                ptr: p,
            },
        );
        Ok(buf)
    }

    /// `aclrtFreeHost` of the pinned memory behind a host buffer, now.
    fn free_host(&self, buf: &HostBuf) -> BResult<()> {
        let p = self.state().pinned.remove(&(Arc::as_ptr(buf) as usize));
        if let Some(p) = p {
            // SAFETY: `p.ptr` came from aclrtMallocHost and just left the table, so it is
            // freed once.
            acl!(self, aclrtFreeHost(p.ptr as *mut c_void))?;
        }
        Ok(())
    }
}
