//! Physical memory (`aclrtMallocPhysical`, `aclrtFreePhysical`,
//! `aclrtMemGetAllocationGranularity`) and the books of the virtual-memory calls: which
//! physical handles this process holds, the ranges it reserved and what it mapped where
//! (the mapping calls are in `va_ranges`, the shareable handles in `shareable`).
//!
//! The runtime's own checks come first, in its order (docs/validation/physical-memory.md);
//! what its driver decides (granularity, whole pages, live handles) follows its documented
//! contract. The vendor's runtime keeps no books for these calls (its driver does); here the
//! front end keeps the process's part and the backend the device's.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap as HashMap;

use super::chip_caps;
use super::state::HandleKind;
use super::Runtime;
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::{mem_location, PhysicalMemProp, RawPhysical};

/// The driver's page for device memory, and its minimum granularity: 2 MiB.
pub(super) const HUGE_PAGE: u64 = 2 << 20;
/// A giant page (`ACL_*_HUGE1G`): 1 GiB.
pub(super) const GIANT_PAGE: u64 = 1 << 30;
/// A normal host page (assumed granularity of host normal pages).
const HOST_PAGE: u64 = 4096;

/// `ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED`.
const GRANULARITY_RECOMMENDED: u32 = 1;

/// One physical allocation this process holds: its own, or an import.
#[derive(Debug, Clone)]
pub(crate) struct PhysRec {
    pub device: u32,
    /// The backend's handle.
    pub backend: u64,
    pub len: u64,
    /// The page size its mappings align to.
    pub page: u64,
    /// Imported by this shareable handle (freeing it closes the import).
    pub import: Option<u64>,
    /// The shareable handle it was exported by.
    pub exported: Option<u64>,
    /// Mappings of it in this process.
    pub maps: u32,
}

/// A reserved range.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reservation {
    pub len: u64,
}

/// A mapping: `len` bytes of the physical memory of handle `handle` (live, or freed while
/// mapped) and the access rights set on it.
#[derive(Debug, Clone)]
pub(crate) struct Mapping {
    pub len: u64,
    pub handle: u64,
    /// `(location type, id) -> flags`, as `aclrtMemSetAccess` set them.
    pub access: Vec<((u32, u32), u32)>,
}

/// The process's virtual-memory books.
#[derive(Debug, Default)]
pub(crate) struct VmmBooks {
    /// Live physical handles, by handle.
    pub physical: HashMap<u64, PhysRec>,
    /// Physical memory freed by its handle while still mapped: the memory goes with the last
    /// unmap (by handle value, no longer live to the program).
    pub freed_mapped: HashMap<u64, PhysRec>,
    /// Reserved ranges, by start.
    pub reserved: BTreeMap<u64, Reservation>,
    /// Mappings, by start.
    pub mapped: BTreeMap<u64, Mapping>,
}

/// Whether `attr` (an `aclrtMemAttr`) is one the runtime takes, and its page size on the
/// device: the DDR and generic values, and HBM normal, huge and 1 GiB pages.
fn attr_page(attr: u32) -> Option<u64> {
    match attr {
        10 | 14 | 17 => Some(GIANT_PAGE),
        2..=7 | 12 | 13 | 15 | 16 => Some(HUGE_PAGE),
        _ => None,
    }
}

/// Whether `attr` is a normal-page attribute (on the host, 4 KiB pages).
fn attr_normal(attr: u32) -> bool {
    matches!(attr, 3 | 5 | 7 | 12 | 15)
}

/// A DDR attribute, which a device location refuses.
fn attr_ddr(attr: u32) -> bool {
    matches!(attr, 2 | 3 | 6 | 7)
}

/// A failure the driver reports as an invalid value (107000).
pub(super) fn driver_value(api: &str, why: impl std::fmt::Display) -> AclError {
    AclError::new(
        ErrorCode::RtParamInvalid,
        None,
        format!("{api} failed: the driver refuses it: {why}"),
    )
}

/// A handle the driver does not know (107017).
pub(super) fn unknown_handle(api: &str, handle: u64) -> AclError {
    AclError::new(
        ErrorCode::RtInvalidHandle,
        None,
        format!(
            "{api} failed: {handle:#x} is not a live physical memory handle of this process \
             (from aclrtMallocPhysical or aclrtMemImportFromShareableHandle, not yet freed)"
        ),
    )
}

impl Runtime {
    /// The ACL layer's checks of a property's attribute for a location (DDR on a device:
    /// EH0007; an attribute it does not take: EH0009), then the device id of a device
    /// location (107001, EE1003). Returns the page size.
    fn prop_attr(&self, api: &str, prop: &PhysicalMemProp) -> AclResult<u64> {
        let attr = prop.mem_attr;
        if prop.location.kind == mem_location::DEVICE && attr_ddr(attr) {
            return Err(fail::acl_range(
                api,
                "prop.memAttr",
                attr,
                "a DDR attribute only for location HOST(0) or HOST_NUMA(4)",
            ));
        }
        let page = attr_page(attr).ok_or_else(|| {
            AclError::new(
                ErrorCode::InvalidParam,
                Some(MsgCode::EH0009),
                format!("{api} failed: memAttr {attr} is not supported"),
            )
        })?;
        if prop.location.kind == mem_location::DEVICE {
            self.check_device_id(api, prop.location.id as i32)?;
        }
        let host = matches!(
            prop.location.kind,
            mem_location::HOST | mem_location::HOST_NUMA
        );
        Ok(if host && attr_normal(attr) {
            HOST_PAGE
        } else {
            page
        })
    }

    /// `aclrtMemGetAllocationGranularity(prop, option, &granularity)`: the size physical
    /// allocations and mappings are whole multiples of: 2 MiB for device memory, 1 GiB for
    /// 1 GiB pages, 4 KiB for normal host pages (assumed); the recommended value is the
    /// minimum. Order: prop NULL, granularity NULL (100000, EH0008); a DDR attribute for a
    /// device (EH0007); an attribute not taken (EH0009); a device id out of range (107001);
    /// then the driver's: an option other than minimum or recommended (107000). Needs no
    /// context.
    pub fn mem_get_allocation_granularity(
        &self,
        prop: Option<&PhysicalMemProp>,
        option: u32,
        granularity: Option<&mut usize>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemGetAllocationGranularity";
            let prop = prop.ok_or_else(|| fail::acl_null(api, "prop"))?;
            let out = granularity.ok_or_else(|| fail::acl_null(api, "granularity"))?;
            let page = self.prop_attr(api, prop)?;
            if option > GRANULARITY_RECOMMENDED {
                return Err(driver_value(
                    api,
                    format!("option {option} is neither MINIMUM (0) nor RECOMMENDED (1)"),
                ));
            }
            *out = page as usize;
            Ok(())
        })
    }

    /// `aclrtMallocPhysical(&handle, size, prop, flags)`: `size` bytes of physical memory
    /// on the device `prop` names, to map with `aclrtMapMem`. Order: handle NULL, prop NULL
    /// (100000, EH0008); size 0 (EH0007); flags not 0 (EH0009); handleType, then
    /// allocationType not 0 (EH0007); location UNREGISTERED or MANAGED (EH0009); a DDR
    /// attribute for a device (EH0007); an attribute not taken (EH0009); a device id out of
    /// range (107001); for a NUMA node of the host, no context (107002); 1 GiB pages on a chip
    /// without them (silent 207000); then the driver's:
    /// host memory (not simulated: 207000), a size not whole pages (107000), no memory
    /// (207001). Needs no context.
    pub fn malloc_physical(
        &self,
        handle: Option<&mut RawPhysical>,
        size: usize,
        prop: Option<&PhysicalMemProp>,
        flags: u64,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMallocPhysical";
            let out = handle.ok_or_else(|| fail::acl_null(api, "handle"))?;
            let prop = prop.ok_or_else(|| fail::acl_null(api, "prop"))?;
            if size == 0 {
                return Err(fail::acl_range(api, "size", 0, "greater than 0"));
            }
            if flags != 0 {
                return Err(AclError::new(
                    ErrorCode::InvalidParam,
                    Some(MsgCode::EH0009),
                    format!("{api} failed: flags {flags} is reserved and must be 0"),
                ));
            }
            if prop.handle_type != 0 {
                return Err(fail::acl_range(
                    api,
                    "prop.handleType",
                    prop.handle_type,
                    "ACL_MEM_HANDLE_TYPE_NONE(0)",
                ));
            }
            if prop.allocation_type != 0 {
                return Err(fail::acl_range(
                    api,
                    "prop.allocationType",
                    prop.allocation_type,
                    "ACL_MEM_ALLOCATION_TYPE_PINNED(0)",
                ));
            }
            if matches!(
                prop.location.kind,
                mem_location::UNREGISTERED | mem_location::MANAGED
            ) {
                return Err(AclError::new(
                    ErrorCode::InvalidParam,
                    Some(MsgCode::EH0009),
                    format!(
                        "{api} failed: location type {} is not supported (DEVICE, HOST or \
                         HOST_NUMA)",
                        prop.location.kind
                    ),
                ));
            }
            let page = self.prop_attr(api, prop)?;
            if prop.location.kind == mem_location::HOST_NUMA {
                // The runtime asks for a context before the driver's NUMA capability.
                let st = self.lock();
                Self::current_device(&st, api)?;
            }
            if page == GIANT_PAGE && !chip_caps::giant_pages(&self.chip) {
                return Err(fail::not_supported(api, &self.chip.soc_name, "1 GiB pages")
                    .without_last_error());
            }
            if prop.location.kind != mem_location::DEVICE {
                return Err(fail::not_supported_reported(
                    api,
                    &self.chip.soc_name,
                    "physical host memory is not simulated (location DEVICE only)",
                ));
            }
            let size = size as u64;
            if !size.is_multiple_of(page) {
                return Err(driver_value(
                    api,
                    format!(
                        "{size} bytes are not whole {page}-byte pages (round the size up to \
                         aclrtMemGetAllocationGranularity's value)"
                    ),
                ));
            }
            let device = prop.location.id;
            let backend = self.backend.malloc_physical(device, size, prop.mem_attr)?;
            let mut st = self.lock();
            let h = st.new_handle(HandleKind::Physical);
            st.vmm.physical.insert(
                h,
                PhysRec {
                    device,
                    backend,
                    len: size,
                    page,
                    import: None,
                    exported: None,
                    maps: 0,
                },
            );
            *out = RawPhysical(h);
            Ok(())
        })
    }

    /// `aclrtFreePhysical(handle)`: frees physical memory (an import: closes it). Memory still
    /// mapped is kept until its last mapping is unmapped, as the driver documents. Order:
    /// handle NULL (100000, EH0008); then the driver's: not a live handle (107017).
    pub fn free_physical(&self, handle: RawPhysical) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtFreePhysical";
            if handle.0 == 0 {
                return Err(fail::acl_null(api, "handle"));
            }
            let mut st = self.lock();
            let rec = st
                .vmm
                .physical
                .remove(&handle.0)
                .ok_or_else(|| unknown_handle(api, handle.0))?;
            if rec.maps > 0 {
                // The shareable handle ends now; the memory with the last unmap.
                if let Some(sh) = rec.exported {
                    if let Err(e) = self.backend.close_shareable(sh, std::process::id()) {
                        st.vmm.physical.insert(handle.0, rec);
                        return Err(e.into());
                    }
                }
                st.vmm.freed_mapped.insert(handle.0, rec);
                return Ok(());
            }
            if let Err(e) = self.release_physical(&rec) {
                st.vmm.physical.insert(handle.0, rec);
                return Err(e);
            }
            Ok(())
        })
    }

    /// Frees (or closes the import of) the physical memory `rec` describes in the backend.
    pub(super) fn release_physical(&self, rec: &PhysRec) -> AclResult<()> {
        self.backend
            .free_physical(rec.device, rec.backend, rec.import, std::process::id())?;
        Ok(())
    }
}
