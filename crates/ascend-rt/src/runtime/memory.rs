//! Memory: `aclrtMalloc`, `aclrtFree`, `aclrtMallocHost`, `aclrtFreeHost`, `aclrtMemFlush`,
//! `aclrtMemInvalidate` (docs/validation/memory.md); the copies and fills between them are
//! `copies`'s.
//!
//! Host memory appears in two forms: page-locked buffers the runtime allocated
//! (`aclrtMallocHost`, addressed by [`Addr`] like device memory, shared with the backend so
//! asynchronous copies touch them when they execute) and any other host memory, passed as a
//! slice (which asynchronous copies treat as pageable memory: the source is read at once, a
//! destination is filled before the call returns, as CANN documents for pageable memory).
//!
//! This file holds the calls and their validation rows; how addresses are classified is in
//! `addresses`.

use super::copy_staging::locked;
use super::state::{Alloc, AllocKind};
use super::Runtime;
use crate::backend::HostBuf;
use crate::error::{fail, AclResult};
use crate::raw_types::{malloc_policy, Addr};

/// A page-locked host buffer the runtime allocated, by its address.
#[derive(Debug, Clone)]
pub struct HostBuffer {
    addr: Addr,
    buf: HostBuf,
}

impl HostBuffer {
    /// Its address (what `aclrtMallocHost` stored through `hostPtr`).
    pub fn addr(&self) -> Addr {
        self.addr
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when zero-length (never, for a successful allocation).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A copy of its contents.
    pub fn to_vec(&self) -> Vec<u8> {
        self.lock().clone()
    }

    /// Copies `data` into it at `offset` (panics if out of range, like slice indexing).
    pub fn write_at(&self, offset: usize, data: &[u8]) {
        self.lock()[offset..offset + data.len()].copy_from_slice(data);
    }

    /// Copies bytes out of it at `offset` (panics if out of range, like slice indexing).
    pub fn read_at(&self, offset: usize, out: &mut [u8]) {
        let n = out.len();
        out.copy_from_slice(&self.lock()[offset..offset + n]);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<u8>> {
        locked(&self.buf)
    }
}

impl Runtime {
    /// `aclrtMalloc(&devPtr, size, policy)` on the current context's device. The length
    /// requested is `size` rounded up to 32 bytes plus the chip's padding (no padding for the
    /// two HUGE1G policies), as CANN does.
    pub fn malloc(&self, dev_ptr: Option<&mut Addr>, size: usize, policy: u32) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMalloc";
            let out = dev_ptr.ok_or_else(|| fail::acl_null(api, "devPtr"))?;
            if size == 0 {
                return Err(fail::acl_range(api, "size", 0, "greater than 0"));
            }
            let mem = &self.chip.memory;
            let pad = if matches!(
                policy,
                malloc_policy::HUGE1G_ONLY | malloc_policy::HUGE1G_ONLY_P2P
            ) {
                0
            } else {
                mem.malloc_padding
            };
            let round = mem.malloc_round;
            let len = (size as u64)
                .checked_add(round + pad - 1)
                .map(|v| v / round * round)
                .ok_or_else(|| {
                    fail::acl_range(
                        api,
                        "size",
                        size,
                        "a size that does not overflow once padded",
                    )
                })?;
            // The backend's allocation and the table entry change in one step under the
            // lock: an address the backend hands out is never in the table already.
            let mut st = self.lock();
            let dev = Self::current_device(&st, api)?.1;
            let addr = self.backend.malloc(dev, len, policy)?;
            st.allocs.insert(
                addr,
                Alloc {
                    len,
                    kind: AllocKind::Device(dev),
                },
            );
            *out = Addr(addr);
            Ok(())
        })
    }

    /// `aclrtFree(devPtr)`: frees at once, without synchronisation. The allocation stays in
    /// the bookkeeping if the backend fails to free it.
    pub fn free(&self, dev_ptr: Addr) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtFree";
            if dev_ptr.is_null() {
                return Err(fail::acl_null(api, "devPtr"));
            }
            // Free in the backend and forget the entry in one step under the lock: no other
            // thread can be handed the address in between and lose its entry to this free.
            let mut st = self.lock();
            let dev = match st.allocs.get(&dev_ptr.0) {
                Some(Alloc {
                    kind: AllocKind::Device(dev),
                    ..
                }) => *dev,
                _ => {
                    return Err(fail::rt_value(
                        api,
                        "devPtr",
                        format!("{:#x}", dev_ptr.0),
                        "the base address of a live aclrtMalloc allocation",
                    ))
                }
            };
            self.backend.free(dev, dev_ptr.0)?;
            st.allocs.remove(&dev_ptr.0);
            Ok(())
        })
    }

    /// `aclrtMallocHost(&hostPtr, size)`: page-locked host memory, not usable as a device
    /// address by the value APIs.
    pub fn malloc_host(&self, host_ptr: Option<&mut Addr>, size: usize) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMallocHost";
            let out = host_ptr.ok_or_else(|| fail::acl_null(api, "hostPtr"))?;
            if size == 0 {
                return Err(fail::acl_range(api, "size", 0, "greater than 0"));
            }
            // Allocated (and zero-filled) outside the lock; only the entry goes in under it.
            // No other thread can hold an entry for the new address: aclrtFreeHost forgets an
            // entry and frees its memory in one step under the lock.
            let buf = self.backend.malloc_host(size)?;
            // The buffer's own heap address names it: it never moves and never aliases a
            // device address (those lie in the simulator's own window).
            let addr = locked(&buf).as_ptr() as u64;
            self.lock().allocs.insert(
                addr,
                Alloc {
                    len: size as u64,
                    kind: AllocKind::Host(buf),
                },
            );
            *out = Addr(addr);
            Ok(())
        })
    }

    /// The page-locked buffer at `addr` (from [`Runtime::malloc_host`]), to read or fill it.
    pub fn host_buffer(&self, addr: Addr) -> Option<HostBuffer> {
        match self.lock().allocs.get(&addr.0) {
            Some(Alloc {
                kind: AllocKind::Host(buf),
                ..
            }) => Some(HostBuffer {
                addr,
                buf: buf.clone(),
            }),
            _ => None,
        }
    }

    /// `aclrtFreeHost(hostPtr)`: the runtime forgets the buffer and the backend frees it.
    pub fn free_host(&self, host_ptr: Addr) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtFreeHost";
            if host_ptr.is_null() {
                return Err(fail::acl_null(api, "hostPtr"));
            }
            // As for aclrtFree: one step under the lock, so a freed heap address handed out
            // again by another thread's aclrtMallocHost keeps its new entry.
            let mut st = self.lock();
            let buf = match st.allocs.get(&host_ptr.0) {
                Some(Alloc {
                    kind: AllocKind::Host(buf),
                    ..
                }) => buf.clone(),
                _ => {
                    return Err(fail::rt_value(
                        api,
                        "hostPtr",
                        format!("{:#x}", host_ptr.0),
                        "the address of a live aclrtMallocHost allocation",
                    ))
                }
            };
            self.backend.free_host(&buf)?;
            st.allocs.remove(&host_ptr.0);
            Ok(())
        })
    }

    fn host_cache_op(&self, api: &str, dev_ptr: Addr, size: usize) -> AclResult<()> {
        if dev_ptr.is_null() {
            return Err(fail::acl_null(api, "devPtr"));
        }
        if size == 0 {
            return Err(fail::acl_range(api, "size", 0, "greater than 0"));
        }
        let st = self.lock();
        Self::current_device(&st, api)?;
        // Host-driven SoCs need no host-side cache maintenance: CANN returns success without
        // issuing an operation.
        Ok(())
    }

    /// `aclrtMemFlush(devPtr, size)`: a host-side no-op on host-driven SoCs.
    pub fn mem_flush(&self, dev_ptr: Addr, size: usize) -> AclResult<()> {
        self.call(|| self.host_cache_op("aclrtMemFlush", dev_ptr, size))
    }

    /// `aclrtMemInvalidate(devPtr, size)`: a host-side no-op on host-driven SoCs.
    pub fn mem_invalidate(&self, dev_ptr: Addr, size: usize) -> AclResult<()> {
        self.call(|| self.host_cache_op("aclrtMemInvalidate", dev_ptr, size))
    }
}
