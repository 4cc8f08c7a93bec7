//! Memory: `aclrtMalloc`, `aclrtFree`, `aclrtMallocHost`, `aclrtFreeHost`, `aclrtMemcpy`,
//! `aclrtMemcpyAsync`, `aclrtMemset`, `aclrtMemsetAsync`, `aclrtMemFlush`,
//! `aclrtMemInvalidate` (cann-api-facts §7.3).
//!
//! Host memory appears in two forms: page-locked buffers the runtime allocated
//! (`aclrtMallocHost`, addressed by [`Addr`] like device memory, shared with the backend so
//! asynchronous copies touch them when they execute) and any other host memory, passed as a
//! slice (which asynchronous copies treat as pageable memory: the source is read at once, a
//! destination is filled before the call returns, as CANN documents for pageable memory).

use std::sync::{Arc, Mutex};

use super::state::{Alloc, AllocKind, Location};
use super::Runtime;
use crate::backend::{AsyncLoc, HostBuf, SyncDst, SyncSrc, Task};
use crate::error::{fail, AclResult};
use crate::raw_types::{malloc_policy, Addr, RawStream};

/// Destination of a copy at the raw level.
#[derive(Debug)]
pub enum MemDst<'a> {
    /// A nullable address: device memory or page-locked host memory from `aclrtMallocHost`.
    Addr(Addr),
    /// Other (pageable) host memory.
    Host(&'a mut [u8]),
}

/// Source of a copy at the raw level.
#[derive(Debug, Clone, Copy)]
pub enum MemSrc<'a> {
    /// A nullable address: device memory or page-locked host memory from `aclrtMallocHost`.
    Addr(Addr),
    /// Other (pageable) host memory.
    Host(&'a [u8]),
}

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
        self.buf.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A resolved, range-checked end of a copy.
enum Side<'a> {
    Device(u64),
    Pinned(HostBuf, usize),
    Slice(&'a [u8]),
}

enum DSide<'a> {
    Device(u64),
    Pinned(HostBuf, usize),
    Slice(&'a mut [u8]),
}

fn out_of_range(api: &str, param: &str, addr: u64, count: u64, room: u64) -> crate::AclError {
    fail::rt_value(
        api,
        param,
        format!("{addr:#x}"),
        &format!("an address with {count} bytes inside one live allocation (only {room} remain)"),
    )
}

/// The RT check that a copy or fill stays within the destination's stated capacity.
fn count_within(api: &str, count: usize, max: usize, max_name: &str) -> AclResult<()> {
    if count > max {
        return Err(fail::rt_value(
            api,
            "count",
            count,
            &format!("not greater than {max_name} ({max})"),
        ));
    }
    Ok(())
}

fn unregistered(api: &str, param: &str, addr: u64) -> crate::AclError {
    fail::rt_value(
        api,
        param,
        format!("{addr:#x}"),
        "device memory or host memory from aclrtMallocHost (this address is in no live allocation)",
    )
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
            let dev = {
                let st = self.lock();
                Self::current_device(&st, api)?.1
            };
            let addr = self.backend.malloc(dev, len, policy)?;
            self.lock().allocs.insert(
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
            let dev = match self.lock().allocs.get(&dev_ptr.0) {
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
            self.lock().allocs.remove(&dev_ptr.0);
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
            let buf = self.backend.malloc_host(size)?;
            // The buffer's own heap address names it: it never moves and never aliases a
            // device address (those lie in the simulator's own window).
            let addr = buf.lock().unwrap_or_else(|p| p.into_inner()).as_ptr() as u64;
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
            let buf = match self.lock().allocs.get(&host_ptr.0) {
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
            self.lock().allocs.remove(&host_ptr.0);
            Ok(())
        })
    }

    fn src_side<'a>(&self, api: &str, src: MemSrc<'a>, count: u64) -> AclResult<Side<'a>> {
        match src {
            MemSrc::Host(s) if (s.len() as u64) < count => Err(out_of_range(
                api,
                "src",
                s.as_ptr() as u64,
                count,
                s.len() as u64,
            )),
            MemSrc::Host(s) => Ok(Side::Slice(s)),
            MemSrc::Addr(a) => match self.lock().locate(a.0) {
                Location::Device { room, .. } if room < count => {
                    Err(out_of_range(api, "src", a.0, count, room))
                }
                Location::Device { .. } => Ok(Side::Device(a.0)),
                Location::Host { room, .. } if room < count => {
                    Err(out_of_range(api, "src", a.0, count, room))
                }
                Location::Host { buf, offset, .. } => Ok(Side::Pinned(buf, offset)),
                Location::Unregistered => Err(unregistered(api, "src", a.0)),
            },
        }
    }

    fn dst_side<'a>(&self, api: &str, dst: MemDst<'a>, count: u64) -> AclResult<DSide<'a>> {
        match dst {
            MemDst::Host(s) if (s.len() as u64) < count => {
                let (p, l) = (s.as_ptr() as u64, s.len() as u64);
                Err(out_of_range(api, "dst", p, count, l))
            }
            MemDst::Host(s) => Ok(DSide::Slice(s)),
            MemDst::Addr(a) => match self.lock().locate(a.0) {
                Location::Device { room, .. } if room < count => {
                    Err(out_of_range(api, "dst", a.0, count, room))
                }
                Location::Device { .. } => Ok(DSide::Device(a.0)),
                Location::Host { room, .. } if room < count => {
                    Err(out_of_range(api, "dst", a.0, count, room))
                }
                Location::Host { buf, offset, .. } => Ok(DSide::Pinned(buf, offset)),
                Location::Unregistered => Err(unregistered(api, "dst", a.0)),
            },
        }
    }

    /// The ACL-layer checks shared by the four copy/fill calls' copy variants.
    fn acl_copy_checks(api: &str, dst: &MemDst<'_>, src: &MemSrc<'_>, kind: u32) -> AclResult<()> {
        if matches!(dst, MemDst::Addr(a) if a.is_null()) {
            return Err(fail::acl_null(api, "dst"));
        }
        if matches!(src, MemSrc::Addr(a) if a.is_null()) {
            return Err(fail::acl_null(api, "src"));
        }
        if kind > crate::raw_types::memcpy_kind::HOST_TO_BUF_TO_DEVICE {
            return Err(fail::acl_range(api, "kind", kind, "[0, 5]"));
        }
        Ok(())
    }

    /// `aclrtMemcpy(dst, destMax, src, count, kind)`: synchronous; `count == 0` succeeds before
    /// any other check; the direction comes from the addresses (`kind` is advisory).
    pub fn memcpy(
        &self,
        dst: MemDst<'_>,
        dest_max: usize,
        src: MemSrc<'_>,
        count: usize,
        kind: u32,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemcpy";
            if count == 0 {
                return Ok(());
            }
            Self::acl_copy_checks(api, &dst, &src, kind)?;
            if dest_max == 0 {
                return Err(fail::rt_value(api, "destMax", 0, "greater than 0"));
            }
            count_within(api, count, dest_max, "destMax")?;
            if let (MemDst::Addr(d), MemSrc::Addr(s)) = (&dst, &src) {
                if d == s {
                    return Ok(());
                }
            }
            let n = count as u64;
            let src = self.src_side(api, src, n)?;
            let dst = self.dst_side(api, dst, n)?;
            let c = count;
            match (dst, src) {
                (DSide::Device(d), Side::Device(s)) => {
                    self.backend
                        .memcpy(SyncDst::Device(d), SyncSrc::Device(s), n)
                }
                (DSide::Device(d), Side::Slice(s)) => {
                    self.backend
                        .memcpy(SyncDst::Device(d), SyncSrc::Host(&s[..c]), n)
                }
                (DSide::Device(d), Side::Pinned(b, o)) => {
                    // Never call the backend while holding a host buffer's lock: a queued
                    // copy touching the same buffer may be running inside the backend.
                    let data = b.lock().unwrap_or_else(|p| p.into_inner())[o..o + c].to_vec();
                    self.backend
                        .memcpy(SyncDst::Device(d), SyncSrc::Host(&data), n)
                }
                (DSide::Slice(d), Side::Device(s)) => {
                    self.backend
                        .memcpy(SyncDst::Host(&mut d[..c]), SyncSrc::Device(s), n)
                }
                (DSide::Pinned(b, o), Side::Device(s)) => {
                    let mut data = vec![0u8; c];
                    self.backend
                        .memcpy(SyncDst::Host(&mut data), SyncSrc::Device(s), n)?;
                    b.lock().unwrap_or_else(|p| p.into_inner())[o..o + c].copy_from_slice(&data);
                    Ok(())
                }
                (dst, src) => {
                    // Host to host: through a temporary, so one buffer may be both ends.
                    let data = match src {
                        Side::Slice(s) => s[..c].to_vec(),
                        Side::Pinned(b, o) => {
                            b.lock().unwrap_or_else(|p| p.into_inner())[o..o + c].to_vec()
                        }
                        Side::Device(_) => unreachable!("device sources are handled above"),
                    };
                    match dst {
                        DSide::Slice(d) => d[..c].copy_from_slice(&data),
                        DSide::Pinned(b, o) => b.lock().unwrap_or_else(|p| p.into_inner())
                            [o..o + c]
                            .copy_from_slice(&data),
                        DSide::Device(_) => unreachable!("device destinations are handled above"),
                    }
                    Ok(())
                }
            }
        })
    }

    /// `aclrtMemcpyAsync(dst, destMax, src, count, kind, stream)`: stream-ordered. Pageable
    /// (slice) sources are read at once; a pageable destination is filled before the call
    /// returns (the stream is synchronised up to the copy).
    pub fn memcpy_async(
        &self,
        dst: MemDst<'_>,
        dest_max: usize,
        src: MemSrc<'_>,
        count: usize,
        kind: u32,
        stream: RawStream,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemcpyAsync";
            if count == 0 {
                return Ok(());
            }
            Self::acl_copy_checks(api, &dst, &src, kind)?;
            count_within(api, count, dest_max, "destMax")?;
            let backend_stream = self.task_stream(api, stream)?.backend;
            let n = count as u64;
            let src = match self.src_side(api, src, n)? {
                Side::Device(a) => AsyncLoc::Device(a),
                Side::Pinned(b, o) => AsyncLoc::Host(b, o),
                Side::Slice(s) => AsyncLoc::Host(Arc::new(Mutex::new(s[..count].to_vec())), 0),
            };
            match self.dst_side(api, dst, n)? {
                DSide::Device(a) => self.backend.launch(
                    backend_stream,
                    Task::Memcpy {
                        dst: AsyncLoc::Device(a),
                        src,
                        len: n,
                    },
                ),
                DSide::Pinned(b, o) => self.backend.launch(
                    backend_stream,
                    Task::Memcpy {
                        dst: AsyncLoc::Host(b, o),
                        src,
                        len: n,
                    },
                ),
                DSide::Slice(d) => {
                    let staging: HostBuf = Arc::new(Mutex::new(vec![0u8; count]));
                    self.backend.launch(
                        backend_stream,
                        Task::Memcpy {
                            dst: AsyncLoc::Host(staging.clone(), 0),
                            src,
                            len: n,
                        },
                    )?;
                    self.backend.synchronize_stream(backend_stream, None)?;
                    d[..count].copy_from_slice(&staging.lock().unwrap_or_else(|p| p.into_inner()));
                    Ok(())
                }
            }
        })
    }

    /// `aclrtMemset(devPtr, maxCount, value, count)`: synchronous; the low byte of `value`
    /// fills `count` bytes.
    pub fn memset(
        &self,
        dev_ptr: Addr,
        max_count: usize,
        value: i32,
        count: usize,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemset";
            if count == 0 {
                return Ok(());
            }
            if dev_ptr.is_null() {
                return Err(fail::acl_null(api, "devPtr"));
            }
            count_within(api, count, max_count, "maxCount")?;
            let byte = value as u32 as u8;
            match self.dst_side(api, MemDst::Addr(dev_ptr), count as u64)? {
                DSide::Device(a) => self.backend.memset(a, byte, count as u64),
                DSide::Pinned(b, o) => {
                    b.lock().unwrap_or_else(|p| p.into_inner())[o..o + count].fill(byte);
                    Ok(())
                }
                DSide::Slice(_) => unreachable!("an address never resolves to a slice"),
            }
        })
    }

    /// `aclrtMemsetAsync(devPtr, maxCount, value, count, stream)`.
    pub fn memset_async(
        &self,
        dev_ptr: Addr,
        max_count: usize,
        value: i32,
        count: usize,
        stream: RawStream,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemsetAsync";
            if count == 0 {
                return Ok(());
            }
            if dev_ptr.is_null() {
                return Err(fail::acl_null(api, "devPtr"));
            }
            count_within(api, count, max_count, "maxCount")?;
            let backend_stream = self.task_stream(api, stream)?.backend;
            let byte = value as u32 as u8;
            let task = match self.dst_side(api, MemDst::Addr(dev_ptr), count as u64)? {
                DSide::Device(a) => Task::Memset {
                    addr: a,
                    value: byte,
                    len: count as u64,
                },
                DSide::Pinned(b, o) => Task::Memcpy {
                    dst: AsyncLoc::Host(b, o),
                    src: AsyncLoc::Host(Arc::new(Mutex::new(vec![byte; count])), 0),
                    len: count as u64,
                },
                DSide::Slice(_) => unreachable!("an address never resolves to a slice"),
            };
            self.backend.launch(backend_stream, task)
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

    /// Whether `addr` lies in a live allocation of this runtime (device memory or page-locked
    /// host memory). A C front end uses it to tell runtime memory from other host pointers.
    pub fn is_registered(&self, addr: Addr) -> bool {
        !matches!(self.lock().locate(addr.0), Location::Unregistered)
    }

    /// Whether `addr` lies in device memory (the pointer-attribute check of the value APIs).
    pub(crate) fn is_device_memory(&self, addr: u64) -> bool {
        matches!(self.lock().locate(addr), Location::Device { .. })
    }
}
