//! Host memory registered for the device: `aclrtHostRegister`, `aclrtHostRegisterV2`,
//! `aclrtHostGetDevicePointer`, `aclrtHostUnregister`, and managed (unified) memory,
//! `aclrtMemAllocManaged`.
//!
//! Rows from the vendor's runtime (docs/validation/memory.md, Registered host memory). A
//! registration is the process's, not a context's: host ranges may not overlap (507910), and
//! only a range's base unregisters it (507911) or names its device pointer.
//!
//! **How the device reaches the host's bytes.** A device maps registered memory and reads
//! and writes the host's pages directly. The simulator (and this front end over any backend)
//! cannot see the host program's loads and stores, so a mapped registration gets a device
//! allocation of its size, the *mirror*, kept coherent at the API boundary: at the start of
//! every call, host bytes that changed since the last exchange are copied to the mirror; at
//! its end, mirror bytes that changed are copied back. A host function (or callback) is such
//! a boundary too: the device's writes are copied back before it runs, and its own writes
//! reach the mirror before its stream's next task. A program that synchronizes before it
//! reads what the device wrote, and writes before it launches what reads it (as the ACL
//! contract asks), sees zero-copy behaviour. A byte both sides change between two calls is
//! a race on a device too; here the host's write wins.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use super::state::{Alloc, AllocKind, Location};
use super::Runtime;
use crate::backend::{HostFn, SyncCopy};
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::{host_reg_flag, host_register_type, malloc_policy, Addr};

/// `ACL_RT_MEM_ATTACH_GLOBAL`, the one flag of `aclrtMemAllocManaged`.
pub const MEM_ATTACH_GLOBAL: u32 = 0x1;

/// Host memory the runtime reads and writes on the program's behalf: the bytes of a
/// registration. The runtime implements it for its own page-locked buffers; the C library
/// implements it for any range a C program registers.
pub trait HostMemory: Send + Sync {
    /// Its length in bytes.
    fn len(&self) -> usize;
    /// Whether it is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Copies `out.len()` bytes from `offset` into `out`.
    fn read(&self, offset: usize, out: &mut [u8]);
    /// Copies `data` to `offset`.
    fn write(&self, offset: usize, data: &[u8]);
}

/// Host memory a Rust program owns and registers: bytes the program and the runtime may both
/// touch at any time, each one atomic, so neither side ever races the other.
///
/// ```
/// use ascend_rt::{Runtime, SharedBytes, raw_types::*};
/// let rt = Runtime::sim("Ascend910B1").unwrap();
/// rt.set_device(0).unwrap();
/// let mine = SharedBytes::new(64);
/// rt.host_register_v2(mine.addr(), 64, host_reg_flag::MAPPED, Some(mine.clone())).unwrap();
/// let dev = with_out(|o| rt.host_get_device_pointer(mine.addr(), Some(o), 0)).unwrap();
/// rt.memset_async(dev, 64, 5, 64, RawStream::NULL).unwrap();
/// rt.synchronize_stream(RawStream::NULL).unwrap();
/// assert_eq!(mine.to_vec(), vec![5; 64]);
/// rt.host_unregister(mine.addr()).unwrap();
/// ```
#[derive(Debug)]
pub struct SharedBytes(Vec<AtomicU8>);

impl SharedBytes {
    /// `len` zero bytes.
    pub fn new(len: usize) -> Arc<SharedBytes> {
        Arc::new(SharedBytes((0..len).map(|_| AtomicU8::new(0)).collect()))
    }
    /// The address of the first byte, which names the registration.
    pub fn addr(&self) -> Addr {
        Addr(self.0.as_ptr() as u64)
    }
    /// The byte at `i` (panics past the end).
    pub fn get(&self, i: usize) -> u8 {
        self.0[i].load(Ordering::SeqCst)
    }
    /// Sets the byte at `i` (panics past the end).
    pub fn set(&self, i: usize, v: u8) {
        self.0[i].store(v, Ordering::SeqCst);
    }
    /// Sets every byte.
    pub fn fill(&self, v: u8) {
        self.0.iter().for_each(|b| b.store(v, Ordering::SeqCst));
    }
    /// A copy of the bytes.
    pub fn to_vec(&self) -> Vec<u8> {
        self.0.iter().map(|b| b.load(Ordering::SeqCst)).collect()
    }
}

impl HostMemory for SharedBytes {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn read(&self, offset: usize, out: &mut [u8]) {
        for (o, b) in out.iter_mut().zip(&self.0[offset..]) {
            *o = b.load(Ordering::SeqCst);
        }
    }
    fn write(&self, offset: usize, data: &[u8]) {
        for (d, b) in data.iter().zip(&self.0[offset..]) {
            b.store(*d, Ordering::SeqCst);
        }
    }
}

/// A range of a page-locked buffer of the runtime's own.
struct PageLocked {
    buf: crate::backend::HostBuf,
    offset: usize,
    len: usize,
}

impl HostMemory for PageLocked {
    fn len(&self) -> usize {
        self.len
    }
    fn read(&self, offset: usize, out: &mut [u8]) {
        let b = super::copy_staging::locked(&self.buf);
        let at = self.offset + offset;
        out.copy_from_slice(&b[at..at + out.len()]);
    }
    fn write(&self, offset: usize, data: &[u8]) {
        let mut b = super::copy_staging::locked(&self.buf);
        let at = self.offset + offset;
        b[at..at + data.len()].copy_from_slice(data);
    }
}

/// The process's registrations, shared with the wrappers of host functions.
#[derive(Debug, Default)]
pub(crate) struct Registrations {
    /// Taken before the runtime's state, never while holding it.
    list: std::sync::Mutex<Vec<Registration>>,
    /// Some host memory is registered with a device mirror to keep coherent (a quick check).
    any: std::sync::atomic::AtomicBool,
}

impl Registrations {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Registration>> {
        self.list
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Exchanges the bytes that changed between mapped registrations and their mirrors:
    /// host to device (`to_device`), or device to host.
    fn exchange(&self, backend: &dyn crate::backend::Backend, to_device: bool) {
        if !self.any.load(Ordering::Acquire) {
            return;
        }
        let mut regs = self.lock();
        for reg in regs.iter_mut() {
            let (Some((_, dev)), Some(host)) = (reg.mirror, reg.host.clone()) else {
                continue;
            };
            let mut now = vec![0u8; reg.agreed.len()];
            if to_device {
                host.read(0, &mut now);
            } else if backend
                .mirror_copy(SyncCopy::DeviceToHost {
                    dst: &mut now,
                    src: dev,
                })
                .is_err()
            {
                continue;
            }
            for (start, end) in differing_runs(&now, &reg.agreed) {
                let bytes = &now[start..end];
                if to_device {
                    let at = dev + start as u64;
                    if backend
                        .mirror_copy(SyncCopy::HostToDevice {
                            dst: at,
                            src: bytes,
                        })
                        .is_err()
                    {
                        continue;
                    }
                } else {
                    host.write(start, bytes);
                }
                reg.agreed[start..end].copy_from_slice(bytes);
            }
        }
    }
}

/// One registration.
pub(crate) struct Registration {
    /// First host byte and length.
    pub base: u64,
    pub len: u64,
    /// The device mirror of a mapped registration: device and address.
    pub mirror: Option<(u32, u64)>,
    /// The host bytes (for a mapped registration).
    pub host: Option<Arc<dyn HostMemory>>,
    /// The bytes both sides agreed on at the last exchange.
    pub agreed: Vec<u8>,
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registration")
            .field("base", &format_args!("{:#x}", self.base))
            .field("len", &self.len)
            .field("mirror", &self.mirror)
            .finish()
    }
}

fn already_registered(api: &str, base: u64, len: u64) -> AclError {
    AclError::new(
        ErrorCode::HostMemoryAlreadyRegistered,
        Some(MsgCode::EE1018),
        format!(
            "{api} failed: the memory range [{base:#x}, +{len:#x}) overlaps one already registered"
        ),
    )
}

/// The runs where `a` and `b` differ, as (start, end) byte offsets.
fn differing_runs(a: &[u8], b: &[u8]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < a.len() {
        if a[i] == b[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < a.len() && a[i] != b[i] {
            i += 1;
        }
        runs.push((start, i));
    }
    runs
}

impl Runtime {
    /// `aclrtHostRegisterV2(ptr, size, flag)`: registers `size` bytes of host memory at
    /// `ptr`. `memory` gives the runtime access to those bytes; `None` for a range of one of the
    /// runtime's page-locked buffers ([`Runtime::malloc_host`]), which it reaches itself.
    ///
    /// Order: ptr NULL (100000, EH0008); size 0 (100000, EH0007); a flag outside the OR of
    /// MAPPED, IOMEMORY, READONLY and PINNED, or 0 (107000, EE1011); no current context
    /// (107002); a chip without host registration (207000, EE1001: Ascend310B1, Ascend310P3);
    /// a range overlapping a registered one (507910, EE1018). MAPPED, IOMEMORY or
    /// READONLY give the range a device pointer ([`Runtime::host_get_device_pointer`]).
    ///
    /// ```
    /// use ascend_rt::{Runtime, raw_types::{host_reg_flag, with_out, Addr}};
    /// let rt = Runtime::sim("Ascend910B1").unwrap();
    /// rt.set_device(0).unwrap();
    /// let mut host = Addr::NULL;
    /// rt.malloc_host(Some(&mut host), 64).unwrap();
    /// rt.host_register_v2(host, 64, host_reg_flag::MAPPED, None).unwrap();
    /// let dev = with_out(|o| rt.host_get_device_pointer(host, Some(o), 0)).unwrap();
    /// assert_ne!(dev, Addr::NULL);
    /// assert_eq!(rt.host_register_v2(host, 8, host_reg_flag::MAPPED, None).unwrap_err().code(), 507910);
    /// rt.host_unregister(host).unwrap();
    /// ```
    pub fn host_register_v2(
        &self,
        ptr: Addr,
        size: u64,
        flag: u32,
        memory: Option<Arc<dyn HostMemory>>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtHostRegisterV2";
            if ptr.is_null() {
                return Err(fail::acl_null(api, "ptr"));
            }
            if size == 0 {
                return Err(fail::acl_range(api, "size", 0, "greater than 0"));
            }
            if flag & host_reg_flag::ALL == 0 || flag & !host_reg_flag::ALL != 0 {
                return Err(AclError::new(
                    ErrorCode::RtParamInvalid,
                    Some(MsgCode::EE1011),
                    format!("{api} failed: flag {flag:#x} is invalid; it is an OR of ACL_HOST_REG_MAPPED (0x2), ACL_HOST_REG_IOMEMORY (0x4), ACL_HOST_REG_READONLY (0x8) and ACL_HOST_REG_PINNED (0x10000000)"),
                ));
            }
            let mapped = flag & (host_reg_flag::MAPPED | host_reg_flag::IOMEMORY | host_reg_flag::READONLY) != 0;
            self.register_host(api, ptr, size, mapped, memory).map(|_| ())
        })
    }

    /// `aclrtHostRegister(ptr, size, type, &devPtr)`: registers and maps host memory, and
    /// returns its device pointer. Order: ptr NULL, then devPtr NULL (100000, EH0008); size 0
    /// (100000, EH0007); a type with bits other than IOMEMORY and READONLY (207000, a
    /// warning only); no current context (107002); a chip without host registration (207000,
    /// EE1001); a range overlapping a registered one (507910: assumed, the driver's check on
    /// a device).
    pub fn host_register(
        &self,
        ptr: Addr,
        size: u64,
        register_type: u32,
        dev_ptr: Option<&mut Addr>,
        memory: Option<Arc<dyn HostMemory>>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtHostRegister";
            if ptr.is_null() {
                return Err(fail::acl_null(api, "ptr"));
            }
            let out = dev_ptr.ok_or_else(|| fail::acl_null(api, "devPtr"))?;
            if size == 0 {
                return Err(fail::acl_range(api, "size", 0, "greater than 0"));
            }
            let valid = host_register_type::IOMEMORY | host_register_type::READONLY;
            if register_type & !valid != 0 {
                // The runtime refuses it as a feature it lacks and says so with its generic
                // EE1001 ("execution failed, the feature is not supported").
                return Err(AclError::new(
                    ErrorCode::RtFeatureNotSupport,
                    Some(MsgCode::EE1001),
                    format!("{api} failed: host register type {register_type:#x} is not supported; only ACL_HOST_REGISTER_IOMEMORY (0x1) and ACL_HOST_REGISTER_READONLY (0x2) may be set"),
                )
                .without_last_error());
            }
            *out = self.register_host(api, ptr, size, true, memory)?;
            Ok(())
        })
    }

    /// The impl steps both registrations share: the context, the overlap check, and for a
    /// mapped registration the mirror, filled from the host. Returns the device pointer
    /// (NULL when not mapped).
    fn register_host(
        &self,
        api: &str,
        ptr: Addr,
        size: u64,
        mapped: bool,
        memory: Option<Arc<dyn HostMemory>>,
    ) -> AclResult<Addr> {
        let device = {
            let st = self.lock();
            Self::current_device(&st, api)?.1
        };
        self.require_host_register(api)?;
        let end = ptr.0.checked_add(size).ok_or_else(|| {
            fail::acl_range(api, "size", size, "a range that does not wrap around")
        })?;
        let mut regs = self.registrations();
        if regs.iter().any(|r| r.base < end && ptr.0 < r.base + r.len) {
            return Err(already_registered(api, ptr.0, size));
        }
        let mut reg = Registration {
            base: ptr.0,
            len: size,
            mirror: None,
            host: None,
            agreed: Vec::new(),
        };
        if mapped {
            let host = match memory {
                Some(m) if m.len() as u64 >= size => m,
                Some(_) => {
                    return Err(fail::rt_value(
                        api,
                        "size",
                        size,
                        "at most the host memory given",
                    ))
                }
                None => self.page_locked_range(api, ptr, size)?,
            };
            let len = usize::try_from(size)
                .map_err(|_| fail::acl_range(api, "size", size, "a size this host can hold"))?;
            let mut agreed = Vec::new();
            agreed.try_reserve_exact(len).map_err(|e| {
                AclError::new(
                    ErrorCode::RtMemoryAllocation,
                    Some(MsgCode::EE9999),
                    format!("{api} failed: cannot register {size} bytes: the driver has no memory for them ({e})"),
                )
            })?;
            agreed.resize(len, 0);
            host.read(0, &mut agreed);
            let dev_addr = {
                let mut st = self.lock();
                let a = self
                    .backend
                    .malloc(device, size, malloc_policy::HUGE_FIRST)?;
                st.allocs.insert(
                    a,
                    Alloc {
                        len: size,
                        kind: AllocKind::Mapped(device),
                    },
                );
                a
            };
            // The runtime's own copy, as every later one that keeps the two alike (a backend
            // that cannot keep them alike refuses the registration here).
            if let Err(e) = self.backend.mirror_copy(SyncCopy::HostToDevice {
                dst: dev_addr,
                src: &agreed,
            }) {
                let mut st = self.lock();
                let _ = self.backend.free(device, dev_addr);
                st.allocs.remove(&dev_addr);
                return Err(e.into());
            }
            reg.mirror = Some((device, dev_addr));
            reg.host = Some(host);
            reg.agreed = agreed;
        }
        let dev = reg.mirror.map_or(Addr::NULL, |(_, a)| Addr(a));
        regs.push(reg);
        self.registered.any.store(true, Ordering::Release);
        Ok(dev)
    }

    /// Host registration needs the chip's `RT_FEATURE_MEM_HOST_REGISTER` (docs/products.md,
    /// Host memory registration): without it the runtime's driver layer refuses the
    /// registration and the unregistration with 207000, after the arguments and the context
    /// and before any overlap or registration lookup. The entry reports the generic EE1001
    /// and stores the last error (`ERROR_RETURN_WITH_EXT_ERRCODE`).
    fn require_host_register(&self, api: &str) -> AclResult<()> {
        if self.chip.features.host_register {
            return Ok(());
        }
        Err(AclError::new(
            ErrorCode::RtFeatureNotSupport,
            Some(MsgCode::EE1001),
            format!(
                "{api} failed: host memory registration is not supported on {}",
                self.chip.soc_name
            ),
        ))
    }

    /// The page-locked buffer range `[ptr, ptr + size)` lies in, as host memory.
    fn page_locked_range(&self, api: &str, ptr: Addr, size: u64) -> AclResult<Arc<dyn HostMemory>> {
        match self.lock().locate(ptr.0) {
            Location::Host { buf, offset, room } if room >= size => Ok(Arc::new(PageLocked {
                buf,
                offset,
                len: size as usize,
            })),
            _ => Err(fail::rt_value(
                api,
                "ptr",
                format!("{:#x}", ptr.0),
                "host memory the runtime can reach: a range of an aclrtMallocHost buffer, or memory given with the registration",
            )),
        }
    }

    /// `aclrtHostGetDevicePointer(pHost, &pDevice, flag)`: the device pointer of the mapped
    /// registration whose base is `host`. Order: pHost NULL, then pDevice NULL (100000,
    /// EH0008); flag not 0 (100000, EH0012); no current context (107002); not the base of a
    /// mapped registration (107000, EE1011).
    pub fn host_get_device_pointer(
        &self,
        host: Addr,
        device: Option<&mut Addr>,
        flag: u32,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtHostGetDevicePointer";
            if host.is_null() {
                return Err(fail::acl_null(api, "pHost"));
            }
            let out = device.ok_or_else(|| fail::acl_null(api, "pDevice"))?;
            if flag != 0 {
                return Err(fail::acl_reserved(api, "flag"));
            }
            {
                let st = self.lock();
                Self::current_device(&st, api)?;
            }
            *out = self
                .registrations()
                .iter()
                .find(|r| r.base == host.0)
                .and_then(|r| r.mirror)
                .map(|(_, a)| Addr(a))
                .ok_or_else(|| {
                    AclError::new(
                        ErrorCode::RtParamInvalid,
                        Some(MsgCode::EE1011),
                        format!("{api} failed: value {:#x} of parameter pHost is invalid: the host pointer has not been registered for device address mapping", host.0),
                    )
                })?;
            Ok(())
        })
    }

    /// `aclrtHostUnregister(ptr)`: ends the registration whose base is `ptr`; what the device
    /// wrote is the host's first. Order: ptr NULL (100000, EH0008); no current context
    /// (107002); a chip without host registration (207000, EE1001); not the base of a
    /// registration (507911, EE1018).
    pub fn host_unregister(&self, ptr: Addr) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtHostUnregister";
            if ptr.is_null() {
                return Err(fail::acl_null(api, "ptr"));
            }
            {
                let st = self.lock();
                Self::current_device(&st, api)?;
            }
            self.require_host_register(api)?;
            self.exchange_registered(false);
            let mut regs = self.registrations();
            let at = regs.iter().position(|r| r.base == ptr.0).ok_or_else(|| {
                AclError::new(
                    ErrorCode::HostMemoryNotRegistered,
                    Some(MsgCode::EE1018),
                    format!(
                        "{api} failed: the host pointer {:#x} has not been registered",
                        ptr.0
                    ),
                )
            })?;
            let reg = regs.remove(at);
            if regs.is_empty() {
                self.registered.any.store(false, Ordering::Release);
            }
            drop(regs);
            if let Some((device, a)) = reg.mirror {
                let mut st = self.lock();
                if st.allocs.remove(&a).is_some() {
                    self.backend.free(device, a)?;
                }
            }
            Ok(())
        })
    }

    /// `aclrtMemAllocManaged(&ptr, size, flag)`. Order: ptr NULL (100000, EH0008); flag not
    /// `ACL_RT_MEM_ATTACH_GLOBAL` (100000, EH0009); size 0 (107000, EE1003); no current
    /// context (107002); then the driver's unified memory, which no simulated chip has
    /// (207000): the vendor's samples note that the 910 series refuses it, and the simulator
    /// models no page migration between host and device.
    pub fn mem_alloc_managed(&self, ptr: Option<&mut Addr>, size: u64, flag: u32) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemAllocManaged";
            if ptr.is_none() {
                return Err(fail::acl_null(api, "ptr"));
            }
            if flag != MEM_ATTACH_GLOBAL {
                return Err(AclError::new(
                    ErrorCode::InvalidParam,
                    Some(MsgCode::EH0009),
                    format!("{api} failed: flag {flag} must be ACL_RT_MEM_ATTACH_GLOBAL (1)"),
                ));
            }
            if size == 0 {
                return Err(fail::rt_value(api, "size", 0, "greater than 0"));
            }
            {
                let st = self.lock();
                Self::current_device(&st, api)?;
            }
            Err(fail::not_supported(
                api,
                &self.chip.soc_name,
                "unified (managed) memory: the simulator models no page migration between host and device",
            ))
        })
    }

    /// The registrations, locked.
    pub(super) fn registrations(&self) -> std::sync::MutexGuard<'_, Vec<Registration>> {
        self.registered.lock()
    }

    /// Exchanges the bytes that changed between mapped registrations and their mirrors:
    /// host to device first (`to_device`), or device to host.
    pub(super) fn exchange_registered(&self, to_device: bool) {
        self.registered.exchange(&*self.backend, to_device);
    }

    /// `f`, run as a host function: registered memory is made coherent around it, as at the
    /// boundary of an API call. What the stream's earlier tasks wrote is in the host's bytes
    /// when it starts, and what it writes there reaches the device before the stream's next
    /// task, as a device's direct access to the host's pages would have it.
    pub(super) fn coherent_host_fn(&self, mut f: HostFn) -> HostFn {
        let (regs, backend) = (self.registered.clone(), Arc::downgrade(&self.backend));
        let exchange = move |to_device: bool| {
            if let Some(b) = backend.upgrade() {
                regs.exchange(&*b, to_device);
            }
        };
        Box::new(move || {
            // The function is a boundary of its own, whichever call runs it (a callback runs
            // inside aclrtProcessReport): the API calls it makes are outermost, and exchange.
            struct Restore(u32);
            impl Drop for Restore {
                fn drop(&mut self) {
                    super::CALL_DEPTH.with(|d| d.set(self.0));
                }
            }
            let _restore = Restore(super::CALL_DEPTH.with(|d| d.replace(0)));
            exchange(false);
            f();
            exchange(true);
        })
    }

    /// Forgets the registrations mirrored on `device` (its memory is gone with a reset).
    pub(super) fn forget_registrations_on(&self, device: u32) {
        let mut regs = self.registrations();
        regs.retain(|r| !matches!(r.mirror, Some((d, _)) if d == device));
        if regs.is_empty() {
            self.registered.any.store(false, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::differing_runs;

    #[test]
    fn differing_runs_are_maximal_and_in_order() {
        assert_eq!(differing_runs(b"abcdef", b"abcdef"), vec![]);
        assert_eq!(differing_runs(b"abcdef", b"xbcdyy"), vec![(0, 1), (4, 6)]);
        assert_eq!(differing_runs(b"ab", b"xy"), vec![(0, 2)]);
    }
}
