//! Reserved virtual address ranges and the physical memory mapped into them
//! (`aclrtReserveMemAddress`, `aclrtReleaseMemAddress`, `aclrtMapMem`, `aclrtUnmapMem`) and
//! the access rights of a mapping (`aclrtMemSetAccess`, `aclrtMemGetAccess`).
//!
//! A mapped range is device memory to every other call (an entry of the allocation table):
//! tasks, copies and kernels may name it, and the backend reaches the physical memory mapped
//! there. The runtime's checks come first, in its order; the driver's contract after them
//! (docs/validation/physical-memory.md).

use super::physical_memory::{
    driver_value, unknown_handle, Mapping, Reservation, GIANT_PAGE, HUGE_PAGE,
};
use super::state::{Alloc, AllocKind};
use super::Runtime;
use crate::error::{fail, AclError, AclResult, ErrorCode};
use crate::raw_types::{mem_location, Addr, MemAccessDesc, MemLocation, RawPhysical};

/// Ranges longer than this start at a 1 GiB page.
const GIANT_ALIGN_ABOVE: u64 = 512 << 20;

/// The most bytes one reservation may hold (the driver's limit on these chips: 128 GiB).
const MAX_RESERVATION: u64 = 128 << 30;

/// `ACL_RT_MEM_ACCESS_FLAGS_*`: none, read, read and write.
const ACCESS_FLAGS: [u32; 3] = [0x0, 0x1, 0x3];
/// What `aclrtMemGetAccess` reports for a location never set (the driver's maximum).
const ACCESS_UNSET: u64 = 0x7FFF_FFFF;

impl Runtime {
    /// `aclrtReserveMemAddress(&virPtr, size, alignment, expectPtr, flags)`: a range of
    /// `size` bytes of virtual addresses (rounded up to whole 2 MiB pages, 2 MiB aligned, 1 GiB
    /// aligned above 512 MiB),
    /// to map physical memory into. Order: virPtr NULL (100000, EH0008); size 0, flags not 0
    /// or 1 (EH0007); then the driver's: alignment not 0, more than 128 GiB (107000), a
    /// chosen address `expectPtr` (not simulated: 207000). Needs no context (the range lies
    /// in the current device's window, device 0's without one).
    pub fn reserve_mem_address(
        &self,
        vir_ptr: Option<&mut Addr>,
        size: usize,
        alignment: usize,
        expect_ptr: Addr,
        flags: u64,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtReserveMemAddress";
            let out = vir_ptr.ok_or_else(|| fail::acl_null(api, "virPtr"))?;
            if size == 0 {
                return Err(fail::acl_range(api, "size", 0, "greater than 0"));
            }
            if flags > 1 {
                return Err(fail::acl_range(api, "flags", flags, "0"));
            }
            if alignment != 0 {
                return Err(driver_value(
                    api,
                    format!("alignment {alignment} must be 0 (ranges are 2 MiB aligned)"),
                ));
            }
            let len = (size as u64).div_ceil(HUGE_PAGE).saturating_mul(HUGE_PAGE);
            if len > MAX_RESERVATION {
                return Err(driver_value(
                    api,
                    format!("{size} bytes are more than one range holds ({MAX_RESERVATION})"),
                ));
            }
            if !expect_ptr.is_null() {
                return Err(fail::not_supported_reported(
                    api,
                    &self.chip.soc_name,
                    "a range at a chosen address (expectPtr) is not simulated: pass NULL",
                ));
            }
            let device = {
                let st = self.lock();
                st.current_ctx(Self::thread())
                    .map_or(0, |ctx| st.contexts[&ctx].device)
            };
            // Ranges above 512 MiB start at a 1 GiB page, where 1 GiB pages may be mapped (the
            // driver's alignment of large ranges).
            let align = if len > GIANT_ALIGN_ABOVE {
                GIANT_PAGE
            } else {
                HUGE_PAGE
            };
            let va = self.backend.reserve_address(device, len, align)?;
            self.lock().vmm.reserved.insert(va, Reservation { len });
            *out = Addr(va);
            Ok(())
        })
    }

    /// `aclrtReleaseMemAddress(virPtr)`: releases a reserved range. Order: virPtr NULL
    /// (100000, EH0008); then the driver's: not the start of a range, a range still holding
    /// a mapping (107000).
    pub fn release_mem_address(&self, vir_ptr: Addr) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtReleaseMemAddress";
            if vir_ptr.is_null() {
                return Err(fail::acl_null(api, "virPtr"));
            }
            let mut st = self.lock();
            let va = vir_ptr.0;
            let r = *st.vmm.reserved.get(&va).ok_or_else(|| {
                driver_value(
                    api,
                    format!("{va:#x} is not the start of a range from aclrtReserveMemAddress"),
                )
            })?;
            if let Some((&m, _)) = st.vmm.mapped.range(va..va + r.len).next() {
                return Err(driver_value(
                    api,
                    format!("the range at {va:#x} still maps memory at {m:#x}: unmap it first"),
                ));
            }
            self.backend.release_address(va)?;
            st.vmm.reserved.remove(&va);
            Ok(())
        })
    }

    /// `aclrtMapMem(virPtr, size, offset, handle, flags)`: maps the physical memory `handle`
    /// names at `virPtr`, inside a reserved range. Order: virPtr NULL, handle NULL (100000,
    /// EH0008); size 0, flags not 0 (EH0007); then the driver's: not a live handle (107017);
    /// an address in no reserved range or not aligned to the memory's pages, `size` not the
    /// allocation's, `offset` not 0, a range running past its reservation or over a mapping
    /// (107000).
    pub fn map_mem(
        &self,
        vir_ptr: Addr,
        size: usize,
        offset: usize,
        handle: RawPhysical,
        flags: u64,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMapMem";
            if vir_ptr.is_null() {
                return Err(fail::acl_null(api, "virPtr"));
            }
            if handle.0 == 0 {
                return Err(fail::acl_null(api, "handle"));
            }
            if size == 0 {
                return Err(fail::acl_range(api, "size", 0, "greater than 0"));
            }
            if flags != 0 {
                return Err(fail::acl_range(api, "flags", flags, "0"));
            }
            let mut st = self.lock();
            let rec = st
                .vmm
                .physical
                .get(&handle.0)
                .cloned()
                .ok_or_else(|| unknown_handle(api, handle.0))?;
            let (va, size) = (vir_ptr.0, size as u64);
            let (start, r) = st
                .vmm
                .reserved
                .range(..=va)
                .next_back()
                .map(|(&s, r)| (s, *r))
                .filter(|(s, r)| va - s < r.len)
                .ok_or_else(|| {
                    driver_value(
                        api,
                        format!("{va:#x} is in no range from aclrtReserveMemAddress"),
                    )
                })?;
            if !va.is_multiple_of(rec.page) {
                return Err(driver_value(
                    api,
                    format!(
                        "{va:#x} is not aligned to the memory's {}-byte pages",
                        rec.page
                    ),
                ));
            }
            if size != rec.len {
                return Err(driver_value(
                    api,
                    format!(
                        "size {size} is not the {}-byte allocation's size (a mapping maps a \
                         whole allocation)",
                        rec.len
                    ),
                ));
            }
            if offset != 0 {
                return Err(driver_value(api, format!("offset {offset} must be 0")));
            }
            if va - start + size > r.len {
                return Err(driver_value(
                    api,
                    format!(
                        "{size} bytes at {va:#x} run past the end of the {}-byte range at \
                         {start:#x}",
                        r.len
                    ),
                ));
            }
            let over = st.vmm.mapped.range(..va + size).next_back();
            if let Some((&m, mp)) = over.filter(|(&m, mp)| m + mp.len > va) {
                return Err(driver_value(
                    api,
                    format!("{va:#x} overlaps the mapping at {m:#x} ({} bytes)", mp.len),
                ));
            }
            self.backend
                .map_memory(rec.device, va, size, 0, rec.backend)?;
            st.vmm.mapped.insert(
                va,
                Mapping {
                    len: size,
                    handle: handle.0,
                    // The owning device may read and write what is mapped.
                    access: vec![((mem_location::DEVICE, rec.device), 0x3)],
                },
            );
            if let Some(p) = st.vmm.physical.get_mut(&handle.0) {
                p.maps += 1;
            }
            st.allocs.insert(
                va,
                Alloc {
                    len: size,
                    kind: AllocKind::Virtual(rec.device),
                },
            );
            Ok(())
        })
    }

    /// `aclrtUnmapMem(virPtr)`: unmaps the mapping that starts at `virPtr`; physical memory
    /// freed while mapped goes with its last mapping. Order: virPtr NULL (100000, EH0008);
    /// then the driver's: not the start of a mapping (107000).
    pub fn unmap_mem(&self, vir_ptr: Addr) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtUnmapMem";
            if vir_ptr.is_null() {
                return Err(fail::acl_null(api, "virPtr"));
            }
            let va = vir_ptr.0;
            let mut st = self.lock();
            let handle = st.vmm.mapped.get(&va).map(|m| m.handle).ok_or_else(|| {
                driver_value(api, format!("{va:#x} is not the start of a mapping"))
            })?;
            self.backend.unmap_memory(va)?;
            st.vmm.mapped.remove(&va);
            st.allocs.remove(&va);
            if let Some(p) = st.vmm.physical.get_mut(&handle) {
                p.maps = p.maps.saturating_sub(1);
            } else if let Some(p) = st.vmm.freed_mapped.get_mut(&handle) {
                p.maps = p.maps.saturating_sub(1);
                if p.maps == 0 {
                    let rec = st.vmm.freed_mapped.remove(&handle).expect("present");
                    self.release_physical(&rec)?;
                }
            }
            Ok(())
        })
    }

    /// The mapping `[va, va+size)` exactly, for the access calls.
    fn mapping_exactly(&self, api: &str, va: u64, size: Option<u64>) -> AclResult<Mapping> {
        let st = self.lock();
        let m =
            st.vmm.mapped.get(&va).ok_or_else(|| {
                driver_value(api, format!("{va:#x} is not the start of a mapping"))
            })?;
        if let Some(size) = size.filter(|&s| s != m.len) {
            return Err(driver_value(
                api,
                format!("size {size} is not the {}-byte mapping's at {va:#x}", m.len),
            ));
        }
        Ok(m.clone())
    }

    /// `aclrtMemSetAccess(virPtr, size, desc, count)`: what each location may do with a
    /// mapping. Order: virPtr NULL, desc NULL (107000, EE1004); then the driver's: not
    /// exactly a mapping (107000); a flag other than none, read or read-write, a host
    /// location with an id other than 0, a device location out of range, another location
    /// type (107000); a location set before with other flags (507899, busy). The simulated
    /// device does not enforce the rights.
    pub fn mem_set_access(
        &self,
        vir_ptr: Addr,
        size: usize,
        desc: Option<&[MemAccessDesc]>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemSetAccess";
            if vir_ptr.is_null() {
                return Err(fail::rt_null(api, "virPtr"));
            }
            let desc = desc.ok_or_else(|| fail::rt_null(api, "desc"))?;
            let va = vir_ptr.0;
            let m = self.mapping_exactly(api, va, Some(size as u64))?;
            let count = self.backend.device_count()?;
            for d in desc {
                if !ACCESS_FLAGS.contains(&d.flags) {
                    return Err(driver_value(
                        api,
                        format!(
                            "access flags {:#x} (NONE 0, READ 1 or READWRITE 3)",
                            d.flags
                        ),
                    ));
                }
                let ok = match d.location.kind {
                    mem_location::HOST => d.location.id == 0,
                    mem_location::DEVICE => d.location.id < count,
                    _ => false,
                };
                if !ok {
                    return Err(driver_value(
                        api,
                        format!(
                            "location type {} id {} (a device in range, or the host with id 0)",
                            d.location.kind, d.location.id
                        ),
                    ));
                }
                let key = (d.location.kind, d.location.id);
                if let Some((_, f)) = m.access.iter().find(|(k, _)| *k == key) {
                    if *f != d.flags {
                        return Err(AclError::new(
                            ErrorCode::RtDrvInternalError,
                            None,
                            format!(
                                "{api} failed: the driver is busy: location type {} id {} \
                                 already has access {f:#x} to the mapping at {va:#x}",
                                key.0, key.1
                            ),
                        ));
                    }
                }
            }
            for d in desc {
                self.backend.set_access(va, m.len, d.location.id, d.flags)?;
            }
            let mut st = self.lock();
            if let Some(m) = st.vmm.mapped.get_mut(&va) {
                for d in desc {
                    let key = (d.location.kind, d.location.id);
                    if !m.access.iter().any(|(k, _)| *k == key) {
                        m.access.push((key, d.flags));
                    }
                }
            }
            Ok(())
        })
    }

    /// `aclrtMemGetAccess(virPtr, location, &flag)`: the access of `location` to the mapping
    /// at `virPtr` (0x7FFFFFFF for a location never set). Order: virPtr, location, flag NULL
    /// (100000, EH0008); then the driver's: not the start of a mapping (107000).
    pub fn mem_get_access(
        &self,
        vir_ptr: Addr,
        location: Option<&MemLocation>,
        flag: Option<&mut u64>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemGetAccess";
            if vir_ptr.is_null() {
                return Err(fail::acl_null(api, "virPtr"));
            }
            let loc = location.ok_or_else(|| fail::acl_null(api, "location"))?;
            let out = flag.ok_or_else(|| fail::acl_null(api, "flag"))?;
            let m = self.mapping_exactly(api, vir_ptr.0, None)?;
            *out = m
                .access
                .iter()
                .find(|(k, _)| *k == (loc.kind, loc.id))
                .map_or(ACCESS_UNSET, |(_, f)| u64::from(*f));
            Ok(())
        })
    }
}
