//! Physical memory shared between processes by a shareable handle
//! (`aclrtMemExportToShareableHandle`, `aclrtMemSetPidToShareableHandle`,
//! `aclrtMemImportFromShareableHandle`, and their V2 forms, which also take the 128-byte
//! fabric form that names the server).
//!
//! The runtime's checks come first, in its order (docs/validation/physical-memory.md); the
//! driver's part (the handle, the whitelist) is the backend's, shared by every process of a
//! shared device. The simulated host is one server, its id 0 (the value
//! `aclrtGetDeviceInfo` reports for the super-pod server id): a fabric handle is that of a
//! handle on this server, and only the chips that document cross-server sharing (A3) give
//! one.

use super::chip_caps;
use super::physical_memory::{driver_value, unknown_handle, PhysRec};
use super::Runtime;
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};
use crate::raw_types::{mem_share, RawPhysical};

/// `ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION`: any process may import the handle.
pub const VMM_EXPORT_NO_PID_VALIDATION: u64 = 0x1;

/// The first bytes of a fabric handle this simulator gives.
const FABRIC_MAGIC: &[u8; 8] = b"ASIMFAB1";
/// The simulated host's server id.
const SERVER_ID: u32 = 0;

/// A fabric handle for `handle` on this server.
fn fabric_bytes(handle: u64) -> [u8; mem_share::FABRIC_BYTES] {
    let mut b = [0u8; mem_share::FABRIC_BYTES];
    b[..8].copy_from_slice(FABRIC_MAGIC);
    b[8..12].copy_from_slice(&SERVER_ID.to_le_bytes());
    b[16..24].copy_from_slice(&handle.to_le_bytes());
    b
}

/// The shareable handle a V2 call's `shareableHandle` holds (8 bytes, or a fabric handle).
fn handle_of(api: &str, share_type: u32, bytes: &[u8]) -> AclResult<u64> {
    let word = |b: &[u8]| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[..8]);
        u64::from_le_bytes(w)
    };
    if share_type == mem_share::DEFAULT {
        return Ok(word(bytes));
    }
    if bytes.len() < mem_share::FABRIC_BYTES || &bytes[..8] != FABRIC_MAGIC {
        return Err(driver_value(
            api,
            "the fabric handle is not one aclrtMemExportToShareableHandleV2 wrote",
        ));
    }
    let server = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if server != SERVER_ID {
        return Err(fail::not_supported_reported(
            api,
            "this host",
            &format!(
                "the fabric handle names server {server}; the simulated host is server {SERVER_ID}"
            ),
        ));
    }
    Ok(word(&bytes[16..]))
}

/// The V2 calls' share type check (107000, EE1003).
fn share_type_ok(api: &str, share_type: u32) -> AclResult<()> {
    if share_type == mem_share::DEFAULT || share_type == mem_share::FABRIC {
        return Ok(());
    }
    Err(fail::rt_value(
        api,
        "shareType",
        share_type,
        "ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT(1) or ACL_MEM_SHARE_HANDLE_TYPE_FABRIC(2)",
    ))
}

impl Runtime {
    /// The fabric form needs a context and a server id, which only A3 chips have (207000,
    /// stored).
    fn fabric_ok(&self, api: &str) -> AclResult<()> {
        {
            let st = self.lock();
            Self::current_device(&st, api)?;
        }
        if !chip_caps::fabric_sharing(&self.chip) {
            return Err(fail::not_supported_reported(
                api,
                &self.chip.soc_name,
                "fabric handles (cross-server sharing, A3 only): the device has no server id",
            ));
        }
        Ok(())
    }

    /// The driver's export of `handle`: a live handle of this process's own memory,
    /// exported once (107017 for an unknown handle, 107000 otherwise).
    fn export_physical(&self, api: &str, handle: u64, flags: u64) -> AclResult<u64> {
        let mut st = self.lock();
        let rec = st
            .vmm
            .physical
            .get(&handle)
            .cloned()
            .ok_or_else(|| unknown_handle(api, handle))?;
        if rec.import.is_some() {
            return Err(driver_value(
                api,
                format!("{handle:#x} was imported; only its exporter shares it"),
            ));
        }
        if let Some(sh) = rec.exported {
            return Err(driver_value(
                api,
                format!("{handle:#x} was exported already (shareable handle {sh:#x})"),
            ));
        }
        let whitelist = flags & VMM_EXPORT_NO_PID_VALIDATION == 0;
        let sh = self.backend.export_shareable(
            rec.device,
            rec.backend,
            rec.len,
            whitelist,
            std::process::id(),
        )?;
        if let Some(p) = st.vmm.physical.get_mut(&handle) {
            p.exported = Some(sh);
        }
        Ok(sh)
    }

    /// `aclrtMemExportToShareableHandle(handle, handleType, flags, &shareableHandle)`: a
    /// handle other processes import this physical memory by (`flags` 1: any process may;
    /// 0: those `aclrtMemSetPidToShareableHandle` lists). Order: handle NULL (100000,
    /// EH0008); handleType not 0 (EH0007); shareableHandle NULL (EH0008); flags above 1
    /// (107000, EE1003); then the driver's: not a live handle (107017), an imported or
    /// already exported one (107000). Needs no context.
    pub fn mem_export_to_shareable_handle(
        &self,
        handle: RawPhysical,
        handle_type: u32,
        flags: u64,
        shareable: Option<&mut u64>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemExportToShareableHandle";
            if handle.0 == 0 {
                return Err(fail::acl_null(api, "handle"));
            }
            if handle_type != 0 {
                return Err(fail::acl_range(
                    api,
                    "handleType",
                    handle_type,
                    "ACL_MEM_HANDLE_TYPE_NONE(0)",
                ));
            }
            let out = shareable.ok_or_else(|| fail::acl_null(api, "shareableHandle"))?;
            if flags > VMM_EXPORT_NO_PID_VALIDATION {
                return Err(fail::rt_value(api, "flags", flags, "[0, 1]"));
            }
            *out = self.export_physical(api, handle.0, flags)?;
            Ok(())
        })
    }

    /// `aclrtMemExportToShareableHandleV2(handle, flags, shareType, shareableHandle)`: as
    /// the first form, written as 8 bytes (DEFAULT) or a 128-byte fabric handle (FABRIC,
    /// `out` that long). Order: handle NULL, shareableHandle NULL (100000, EH0008); shareType
    /// not 1 or 2, flags above 1 (107000, EE1003); for FABRIC no context (107002) and a chip
    /// without a server id (207000); then the driver's, as the first form's.
    pub fn mem_export_to_shareable_handle_v2(
        &self,
        handle: RawPhysical,
        flags: u64,
        share_type: u32,
        out: Option<&mut [u8]>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemExportToShareableHandleV2";
            if handle.0 == 0 {
                return Err(fail::acl_null(api, "handle"));
            }
            let out = out.ok_or_else(|| fail::acl_null(api, "shareableHandle"))?;
            share_type_ok(api, share_type)?;
            if flags > VMM_EXPORT_NO_PID_VALIDATION {
                return Err(fail::rt_value(api, "flags", flags, "[0, 1]"));
            }
            if share_type == mem_share::FABRIC {
                self.fabric_ok(api)?;
            }
            let sh = self.export_physical(api, handle.0, flags)?;
            if share_type == mem_share::FABRIC {
                out[..mem_share::FABRIC_BYTES].copy_from_slice(&fabric_bytes(sh));
            } else {
                out[..8].copy_from_slice(&sh.to_le_bytes());
            }
            Ok(())
        })
    }

    /// `aclrtMemSetPidToShareableHandle(shareableHandle, pid, pidNum)`: the processes (by
    /// `aclrtDeviceGetBareTgid`'s ids) that may import the handle. Order: pid NULL (100000,
    /// EH0008); pidNum 0 (EH0007); then the driver's: an unknown handle (107000), not the
    /// exporter or a handle exported without a whitelist (207006).
    pub fn mem_set_pid_to_shareable_handle(
        &self,
        shareable: u64,
        pid: Option<&[i32]>,
        pid_num: usize,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemSetPidToShareableHandle";
            let pids = pid.ok_or_else(|| fail::acl_null(api, "pid"))?;
            self.set_shareable_pids(api, shareable, pids, pid_num)
        })
    }

    /// `aclrtMemSetPidToShareableHandleV2(shareableHandle, shareType, pid, pidNum)`: as the
    /// first form, the handle given as 8 bytes or a fabric handle. Order: shareableHandle
    /// NULL, pid NULL (100000, EH0008); pidNum 0 (EH0007); shareType not 1 or 2 (107000,
    /// EE1003); then the driver's, as the first form's.
    pub fn mem_set_pid_to_shareable_handle_v2(
        &self,
        shareable: Option<&[u8]>,
        share_type: u32,
        pid: Option<&[i32]>,
        pid_num: usize,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemSetPidToShareableHandleV2";
            let bytes = shareable.ok_or_else(|| fail::acl_null(api, "shareableHandle"))?;
            let pids = pid.ok_or_else(|| fail::acl_null(api, "pid"))?;
            if pid_num == 0 {
                return Err(fail::acl_range(api, "pidNum", 0, "greater than 0"));
            }
            share_type_ok(api, share_type)?;
            let sh = handle_of(api, share_type, bytes)?;
            self.set_shareable_pids(api, sh, pids, pid_num)
        })
    }

    fn set_shareable_pids(
        &self,
        api: &str,
        shareable: u64,
        pids: &[i32],
        pid_num: usize,
    ) -> AclResult<()> {
        if pid_num == 0 {
            return Err(fail::acl_range(api, "pidNum", 0, "greater than 0"));
        }
        // The count reaches the driver as 32 bits.
        let n = (pid_num as u32 as usize).min(pids.len());
        self.backend
            .set_shareable_pids(shareable, &pids[..n], std::process::id())?;
        Ok(())
    }

    /// `aclrtMemImportFromShareableHandle(shareableHandle, deviceId, &handle)`: the physical
    /// memory another process exported, as a handle of this process (map it with
    /// `aclrtMapMem`, free it with `aclrtFreePhysical`). Order: handle NULL (100000, EH0008);
    /// deviceId out of range (107001, EE1003); then the driver's: an unknown or destroyed
    /// handle (107000); no context (107002); then the driver's: a handle this process exported
    /// or imported already (107000), a process not on its whitelist (207006). Peer access
    /// between the exporter's device and the current one is enabled.
    pub fn mem_import_from_shareable_handle(
        &self,
        shareable: u64,
        device_id: i32,
        handle: Option<&mut RawPhysical>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemImportFromShareableHandle";
            let out = handle.ok_or_else(|| fail::acl_null(api, "handle"))?;
            let device = self.check_device_id(api, device_id)?;
            *out = self.import_physical(api, shareable, device)?;
            Ok(())
        })
    }

    /// `aclrtMemImportFromShareableHandleV2(shareableHandle, shareType, flags, &handle)`: as
    /// the first form on the current device, the handle given as 8 bytes or a fabric
    /// handle. Order: shareableHandle NULL, handle NULL (100000, EH0008); flags not 0
    /// (EH0009); no current device (107002, silent); shareType not 1 or 2 (107000, EE1003);
    /// for FABRIC a chip without a server id (207000); a fabric handle this simulator did
    /// not write (107000); then as the first form.
    pub fn mem_import_from_shareable_handle_v2(
        &self,
        shareable: Option<&[u8]>,
        share_type: u32,
        flags: u64,
        handle: Option<&mut RawPhysical>,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtMemImportFromShareableHandleV2";
            let bytes = shareable.ok_or_else(|| fail::acl_null(api, "shareableHandle"))?;
            let out = handle.ok_or_else(|| fail::acl_null(api, "handle"))?;
            if flags != 0 {
                return Err(AclError::new(
                    ErrorCode::InvalidParam,
                    Some(MsgCode::EH0009),
                    format!("{api} failed: flags {flags} is reserved and must be 0"),
                ));
            }
            let device = {
                let st = self.lock();
                Self::current_device(&st, api)
                    .map_err(|_| {
                        fail::plain(
                            ErrorCode::RtContextNull,
                            format!("{api} failed: the calling thread has no current device"),
                        )
                        .without_last_error()
                    })?
                    .1
            };
            share_type_ok(api, share_type)?;
            if share_type == mem_share::FABRIC && !chip_caps::fabric_sharing(&self.chip) {
                return Err(fail::not_supported_reported(
                    api,
                    &self.chip.soc_name,
                    "fabric handles (cross-server sharing, A3 only): the device has no server id",
                ));
            }
            let sh = handle_of(api, share_type, bytes)?;
            *out = self.import_physical(api, sh, device)?;
            Ok(())
        })
    }

    /// The driver's import of `shareable` for `device` (see
    /// [`Runtime::mem_import_from_shareable_handle`]'s order after the device id).
    fn import_physical(&self, api: &str, shareable: u64, device: u32) -> AclResult<RawPhysical> {
        let exporter_device = self.backend.shareable_device(shareable)?;
        let current = {
            let st = self.lock();
            let current = Self::current_device(&st, api)?.1;
            let mine = st
                .vmm
                .physical
                .values()
                .find(|p| p.exported == Some(shareable) || p.import == Some(shareable));
            if let Some(p) = mine {
                let why = if p.import.is_some() {
                    "this process imported it already (one handle per process)"
                } else {
                    "this process exported it (the exporter uses its own handle)"
                };
                return Err(driver_value(
                    api,
                    format!("shareable handle {shareable:#x}: {why}"),
                ));
            }
            current
        };
        let got = self
            .backend
            .import_shareable(shareable, device, std::process::id())?;
        let mut st = self.lock();
        if let Some(exp) = exporter_device.filter(|&d| d != current) {
            st.peer_access.insert((current, exp));
            st.peer_access.insert((exp, current));
        }
        let h = st.new_handle(super::state::HandleKind::Physical);
        let len = got.len.unwrap_or(super::physical_memory::HUGE_PAGE);
        st.vmm.physical.insert(
            h,
            PhysRec {
                device: got.device,
                backend: got.handle,
                len,
                // The exporter's page size is the driver's to know: mappings align to 2 MiB.
                page: super::physical_memory::HUGE_PAGE,
                import: Some(shareable),
                exported: None,
                maps: 0,
            },
        );
        Ok(RawPhysical(h))
    }
}
