//! IPC memory: device memory one process exports under a key and others import
//! (`aclrtIpcMemGetExportKey`, `aclrtIpcMemSetImportPid`, `aclrtIpcMemImportByKey`,
//! `aclrtIpcMemClose`), and the process id importers are listed by (`aclrtDeviceGetBareTgid`).
//!
//! The checks are the runtime's, in its order (docs/validation/ipc.md); what the driver
//! decides (the key, the whitelist, page alignment) is the backend's. An imported range is in
//! the importer's allocation table as imported memory: stream tasks may name it, `aclrtFree`
//! refuses it, `aclrtIpcMemClose` ends it. Processes share a device through the shared device
//! service (docs/device-service.md); within one process an import gives the exporter's own
//! memory.

use super::chip_caps;
use super::state::{Alloc, AllocKind};
use super::Runtime;
use crate::error::{fail, AclError, AclResult, ErrorCode};
use crate::raw_types::Addr;

/// A key's most bytes with its terminator, as the driver writes it (it wants a buffer of more
/// than 64 bytes).
pub const IPC_KEY_LEN: usize = 65;

/// The bytes of a page the driver shares memory by (normal pages; docs/validation/ipc.md).
const SHARE_PAGE: u64 = 4096;

/// `ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION`: any process may import the key.
pub const IPC_MEM_EXPORT_NO_PID_VALIDATION: u64 = 0x1;

/// `ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS`: enable peer access to the exporter's
/// device.
pub const IPC_MEM_IMPORT_ENABLE_PEER_ACCESS: u64 = 0x1;

/// The driver's rule for a key buffer of `len` bytes (memory and notify keys alike): room for
/// a key and its terminator (107000).
pub(super) fn key_room(api: &str, len: usize) -> AclResult<()> {
    if len >= IPC_KEY_LEN {
        return Ok(());
    }
    Err(AclError::new(
        ErrorCode::RtParamInvalid,
        None,
        format!(
            "{api} failed: a key buffer of {len} bytes is too small: the driver writes up to \
             {IPC_KEY_LEN}"
        ),
    ))
}

fn no_ipc(api: &str, soc: &str) -> AclError {
    fail::not_supported(api, soc, "IPC memory").without_last_error()
}

impl Runtime {
    /// The current device, or the context error; then 207000 (`reported`: with EE1005,
    /// stored; else silent) on a chip without IPC memory.
    fn ipc_device(&self, api: &str, reported: bool) -> AclResult<u32> {
        let dev = {
            let st = self.lock();
            Self::current_device(&st, api)?.1
        };
        if !chip_caps::ipc_memory(&self.chip) {
            return Err(if reported {
                fail::not_supported_reported(api, &self.chip.soc_name, "IPC memory")
            } else {
                no_ipc(api, &self.chip.soc_name)
            });
        }
        Ok(dev)
    }

    /// `aclrtIpcMemGetExportKey(devPtr, size, key, len, flags)`: exports `size` bytes at
    /// `devPtr` under a key written to `key` (at most `len` bytes with its terminator). Order:
    /// devPtr NULL, key NULL (100000, EH0008); size 0, len 0, flags above 1 (107000, EE1003);
    /// no context (107002); a chip without IPC memory (silent 207000); then the driver's: the
    /// pointer an allocation's base, the range inside it and whole pages, `len` above 64
    /// (107000).
    pub fn ipc_mem_get_export_key(
        &self,
        dev_ptr: Addr,
        size: usize,
        key: Option<&mut String>,
        len: usize,
        flags: u64,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtIpcMemGetExportKey";
            if dev_ptr.is_null() {
                return Err(fail::acl_null(api, "devPtr"));
            }
            let out = key.ok_or_else(|| fail::acl_null(api, "key"))?;
            if size == 0 {
                return Err(fail::rt_value(api, "size", 0, "not equal to 0"));
            }
            // The ACL layer passes the length on as 32 bits.
            let len = len as u32 as usize;
            if len == 0 {
                return Err(fail::rt_value(api, "len", 0, "not equal to 0"));
            }
            if flags > IPC_MEM_EXPORT_NO_PID_VALIDATION {
                return Err(fail::rt_value(api, "flags", flags, "[0, 1]"));
            }
            let dev = self.ipc_device(api, false)?;
            let driver = |why: String| {
                AclError::new(
                    ErrorCode::RtParamInvalid,
                    None,
                    format!("{api} failed: the driver cannot share the memory: {why}"),
                )
            };
            let st = self.lock();
            let alloc = match st.allocs.get(&dev_ptr.0) {
                Some(Alloc {
                    len: alen,
                    kind: AllocKind::Device(d),
                }) if *d == dev => *alen,
                _ => {
                    return Err(driver(format!(
                        "{:#x} is not the base address of an aclrtMalloc allocation of the current device",
                        dev_ptr.0
                    )))
                }
            };
            if size as u64 > alloc {
                return Err(driver(format!(
                    "{size} bytes run past the {alloc}-byte allocation at {:#x}",
                    dev_ptr.0
                )));
            }
            if !(size as u64).is_multiple_of(SHARE_PAGE) {
                return Err(driver(format!(
                    "{size} bytes are not whole {SHARE_PAGE}-byte pages (memory is shared by page)"
                )));
            }
            key_room(api, len)?;
            let whitelist = flags & IPC_MEM_EXPORT_NO_PID_VALIDATION == 0;
            let k = self.backend.ipc_export(
                dev,
                dev_ptr.0,
                size as u64,
                whitelist,
                std::process::id(),
            )?;
            drop(st);
            *out = k;
            Ok(())
        })
    }

    /// `aclrtIpcMemSetImportPid(key, pid, num)`: the processes (by the ids
    /// `aclrtDeviceGetBareTgid` gives) that may import `key`. Order: key NULL, pid NULL
    /// (100000, EH0008); num (as 32 bits, signed) not positive (107000, EE1003); no context
    /// (107002); a chip without IPC memory (207000, EE1005); then the driver's: a key this
    /// process exported with a whitelist.
    pub fn ipc_mem_set_import_pid(
        &self,
        key: Option<&str>,
        pids: Option<&[i32]>,
        num: usize,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtIpcMemSetImportPid";
            let key = key.ok_or_else(|| fail::acl_null(api, "key"))?;
            let pids = pids.ok_or_else(|| fail::acl_null(api, "pid"))?;
            let n = num as i32;
            if n <= 0 {
                return Err(fail::rt_value(api, "num", n, "(0, 2147483647]"));
            }
            let dev = self.ipc_device(api, true)?;
            let pids = &pids[..(n as usize).min(pids.len())];
            self.backend
                .ipc_set_import_pids(dev, key, pids, std::process::id())?;
            Ok(())
        })
    }

    /// `aclrtIpcMemImportByKey(&devPtr, key, flags)`: the memory another process exported
    /// under `key`, usable by this process's tasks until `aclrtIpcMemClose`. Order: devPtr
    /// NULL, key NULL (100000, EH0008); flags above 1 (107000, EE1003); no context (107002); a
    /// chip without IPC memory (silent 207000); then the driver's: an unknown or closed key
    /// (107000), a process not on the key's whitelist (207006).
    pub fn ipc_mem_import_by_key(
        &self,
        dev_ptr: Option<&mut Addr>,
        key: Option<&str>,
        flags: u64,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtIpcMemImportByKey";
            let out = dev_ptr.ok_or_else(|| fail::acl_null(api, "devPtr"))?;
            let key = key.ok_or_else(|| fail::acl_null(api, "key"))?;
            if flags > IPC_MEM_IMPORT_ENABLE_PEER_ACCESS {
                return Err(fail::rt_value(api, "flags", flags, "[0, 1]"));
            }
            let dev = self.ipc_device(api, false)?;
            let got = self.backend.ipc_import(dev, key, std::process::id())?;
            let mut st = self.lock();
            // The exporter's own memory, imported in its own process, is already its own.
            st.allocs.entry(got.addr).or_insert(Alloc {
                // A real driver does not say; the front end then trusts the range.
                len: got.len.unwrap_or(u64::from(u32::MAX)),
                kind: AllocKind::Imported(got.device),
            });
            st.ipc_imports
                .entry(key.to_string())
                .or_default()
                .push(got.addr);
            *out = Addr(got.addr);
            Ok(())
        })
    }

    /// `aclrtIpcMemClose(key)`: in a process that imported `key`, closes its oldest import
    /// (the address is no longer usable); in the exporter, destroys the key (importers should
    /// have closed first; later imports fail). Order: key NULL (100000, EH0008); a chip
    /// without IPC memory (207000); no context (107002); then the driver's: an unknown key
    /// (107000).
    pub fn ipc_mem_close(&self, key: Option<&str>) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtIpcMemClose";
            let key = key.ok_or_else(|| fail::acl_null(api, "key"))?;
            if !chip_caps::ipc_memory(&self.chip) {
                return Err(fail::not_supported(api, &self.chip.soc_name, "IPC memory"));
            }
            let dev = self.ipc_device(api, true)?;
            let mut st = self.lock();
            let imported = st.ipc_imports.get_mut(key).map(|list| list.remove(0));
            if let Some(addr) = imported {
                if st.ipc_imports.get(key).is_some_and(Vec::is_empty) {
                    st.ipc_imports.remove(key);
                }
                let still_used = st.ipc_imports.values().any(|l| l.contains(&addr));
                if !still_used
                    && matches!(st.allocs.get(&addr), Some(a) if matches!(a.kind, AllocKind::Imported(_)))
                {
                    st.allocs.remove(&addr);
                }
                drop(st);
                self.backend.ipc_close(dev, key, true, std::process::id())?;
                return Ok(());
            }
            drop(st);
            self.backend.ipc_close(dev, key, false, std::process::id())?;
            Ok(())
        })
    }

    /// `aclrtIpcMemSetAttr(key, type, attr)`: the link (`attr`: SIO 0, HCCS 1, UB one port 2,
    /// UB multi port 3) the memory of `key` is reached by. Order: key NULL (107000, EE1004);
    /// type not 0, attr above 3 (107000, EE1003); no context (107002); A2, whose driver works
    /// in the flat address mode (silent 207000); on the 950 family, a link it has no route of,
    /// SIO or HCCS (silent 207021). The simulated device has one link: nothing changes.
    pub fn ipc_mem_set_attr(&self, key: Option<&str>, kind: u32, attr: u64) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtIpcMemSetAttr";
            let key = key.ok_or_else(|| fail::rt_null(api, "key"))?;
            if kind >= 1 {
                return Err(fail::rt_value(api, "type", kind, "[0, 1)"));
            }
            if attr >= 4 {
                return Err(fail::rt_value(api, "attr", attr, "[0, 4)"));
            }
            {
                let st = self.lock();
                Self::current_device(&st, api)?;
            }
            if chip_caps::flat_address_mode(&self.chip) {
                return Err(fail::not_supported(
                    api,
                    &self.chip.soc_name,
                    "the driver shares memory in the flat address mode (A2): no link to choose",
                )
                .without_last_error());
            }
            if chip_caps::ub_links(&self.chip) && attr < 2 {
                return Err(AclError::new(
                    ErrorCode::RtLinkTypeNotSupported,
                    None,
                    format!(
                        "{api}: the device has no route of link type {attr} (SIO 0 and HCCS 1 \
                         are A3's; this chip's are the UB paths 2 and 3)"
                    ),
                )
                .without_last_error());
            }
            self.backend.ipc_set_link(key, attr)?;
            Ok(())
        })
    }

    /// `aclrtDeviceGetBareTgid(&pid)`: the process id the driver lists importers by (outside a
    /// container, the process's own id). Order: pid NULL (100000, EH0008); no device or
    /// context is needed.
    pub fn device_get_bare_tgid(&self, pid: Option<&mut i32>) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtDeviceGetBareTgid";
            let out = pid.ok_or_else(|| fail::acl_null(api, "pid"))?;
            *out = std::process::id() as i32;
            Ok(())
        })
    }
}
