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

    fn ipc_export(
        &self,
        device: u32,
        addr: u64,
        len: u64,
        whitelist: bool,
        _pid: u32,
    ) -> BResult<String> {
        self.hw_ipc_export(device, addr, len, whitelist)
    }

    fn ipc_set_import_pids(&self, device: u32, key: &str, pids: &[i32], _pid: u32) -> BResult<()> {
        self.hw_ipc_set_pids(device, key, pids)
    }

    fn ipc_import(&self, device: u32, key: &str, _pid: u32) -> BResult<crate::backend::IpcImport> {
        self.hw_ipc_import(device, key)
    }

    fn ipc_close(&self, device: u32, key: &str, _imported: bool, _pid: u32) -> BResult<()> {
        self.hw_ipc_close(device, key)
    }

    /// The library's driver releases what a process owned.
    fn ipc_forget_process(&self, _pid: u32) {}

    /// `aclrtIpcMemSetAttr` with the access-link attribute type (0).
    fn ipc_set_link(&self, key: &str, attr: u64) -> BResult<()> {
        let k = c_key(key)?;
        // SAFETY: a NUL-terminated key.
        acl!(self, aclrtIpcMemSetAttr(k.as_ptr(), 0, attr))?;
        Ok(())
    }
}

/// A key as the C string the library takes.
fn c_key(key: &str) -> BResult<std::ffi::CString> {
    std::ffi::CString::new(key).map_err(|_| {
        crate::backend::BackendError::Unsupported(format!("an IPC key with a NUL byte: {key:?}"))
    })
}

impl HwBackend {
    /// `aclrtIpcMemGetExportKey` in the device's context.
    pub(super) fn hw_ipc_export(
        &self,
        device: u32,
        addr: u64,
        len: u64,
        whitelist: bool,
    ) -> BResult<String> {
        self.enter(device)?;
        let mut key = [0 as std::ffi::c_char; crate::runtime::IPC_KEY_LEN];
        let flags = if whitelist {
            0
        } else {
            crate::runtime::IPC_MEM_EXPORT_NO_PID_VALIDATION
        };
        // SAFETY: an allocation's base (front-end validated); the key buffer is a live local of
        // the length passed.
        acl!(
            self,
            aclrtIpcMemGetExportKey(ptr(addr), len as usize, key.as_mut_ptr(), key.len(), flags)
        )?;
        // SAFETY: the library wrote a NUL-terminated key into the buffer (it is zeroed, so a
        // terminator is there whatever it wrote).
        let k = unsafe { std::ffi::CStr::from_ptr(key.as_ptr()) };
        Ok(k.to_string_lossy().into_owned())
    }

    /// `aclrtIpcMemSetImportPid` in the device's context.
    pub(super) fn hw_ipc_set_pids(&self, device: u32, key: &str, pids: &[i32]) -> BResult<()> {
        self.enter(device)?;
        let k = c_key(key)?;
        let mut pids = pids.to_vec();
        // SAFETY: a NUL-terminated key and a live list of `pids.len()` ids.
        acl!(
            self,
            aclrtIpcMemSetImportPid(k.as_ptr(), pids.as_mut_ptr(), pids.len())
        )?;
        Ok(())
    }

    /// `aclrtIpcMemImportByKey` in the device's context.
    pub(super) fn hw_ipc_import(
        &self,
        device: u32,
        key: &str,
    ) -> BResult<crate::backend::IpcImport> {
        self.enter(device)?;
        let k = c_key(key)?;
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: the out-pointer is a live local; the key is NUL-terminated.
        acl!(self, aclrtIpcMemImportByKey(&mut p, k.as_ptr(), 0))?;
        Ok(crate::backend::IpcImport {
            addr: p as usize as u64,
            len: None,
            device,
        })
    }

    /// `aclrtIpcMemClose` in the device's context.
    pub(super) fn hw_ipc_close(&self, device: u32, key: &str) -> BResult<()> {
        self.enter(device)?;
        let k = c_key(key)?;
        // SAFETY: a NUL-terminated key.
        acl!(self, aclrtIpcMemClose(k.as_ptr()))?;
        Ok(())
    }
}
