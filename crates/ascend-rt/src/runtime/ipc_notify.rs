//! IPC notifies: a notify one process exports under a key and another imports
//! (`aclrtNotifyGetExportKey`, `aclrtNotifySetImportPid`, `aclrtNotifyImportByKey`), so that
//! a record in one process releases a wait in the other. The checks are the runtime's, in its
//! order (docs/validation/ipc.md); the key and the whitelist are the backend's, as for IPC
//! memory. An imported notify may be recorded on anywhere; only the device that created it
//! may wait on it (107000, EE1012). Destroying it in the importer closes its view; the
//! creator's destroy ends the notify and its key.

use super::chip_caps;
use super::state::{HandleKind, NotifyIpc, NotifyRec};
use super::Runtime;
use crate::error::{fail, AclError, AclResult, ErrorCode};
use crate::raw_types::RawNotify;

/// `ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION`: any process may import the notify.
pub const IPC_NOTIFY_EXPORT_NO_PID_VALIDATION: u64 = 0x2;

/// `ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS`: enable notify peer access to the creator's
/// device.
pub const IPC_NOTIFY_IMPORT_ENABLE_PEER_ACCESS: u64 = 0x2;

/// The runtime's own import flag (download to the device), which needs a scheduler feature no
/// simulated chip has (assumed).
const IMPORT_DOWNLOAD_TO_DEVICE: u64 = 0x1;

impl Runtime {
    /// `aclrtNotifyGetExportKey(notify, key, len, flags)`. Order: notify NULL, key NULL
    /// (100000, EH0008); not a live notify (107017); len 0 (107000, EE1003); a chip without
    /// IPC notifies (silent 207000); flags not 0 or 2 (107000, EE1003); a notify exported or
    /// imported already (507000); then the driver's: len of 65 or more (107000).
    pub fn notify_get_export_key(
        &self,
        notify: RawNotify,
        key: Option<&mut String>,
        len: usize,
        flags: u64,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtNotifyGetExportKey";
            if notify.0 == 0 {
                return Err(fail::acl_null(api, "notify"));
            }
            let out = key.ok_or_else(|| fail::acl_null(api, "key"))?;
            let rec = self.check_notify(api, notify)?;
            let len = len as u32 as usize;
            if len == 0 {
                return Err(fail::rt_value(api, "len", 0, "not equal to 0"));
            }
            if !chip_caps::ipc_memory(&self.chip) {
                return Err(
                    fail::not_supported(api, &self.chip.soc_name, "IPC notifies")
                        .without_last_error(),
                );
            }
            if flags != 0 && flags != IPC_NOTIFY_EXPORT_NO_PID_VALIDATION {
                return Err(fail::rt_value(api, "flags", flags, "0 or 2"));
            }
            if rec.ipc != NotifyIpc::None {
                return Err(AclError::new(
                    ErrorCode::RtInternalError,
                    None,
                    format!(
                        "{api} failed: the notify is an IPC notify already (exported before, or \
                         imported): it has one key"
                    ),
                ));
            }
            super::ipc_memory::key_room(api, len)?;
            let whitelist = flags != IPC_NOTIFY_EXPORT_NO_PID_VALIDATION;
            let k = self.backend.ipc_notify_export(
                rec.device,
                rec.backend,
                whitelist,
                std::process::id(),
            )?;
            if let Some(r) = self.lock().notifies.get_mut(&notify.0) {
                r.ipc = NotifyIpc::Exported(k.clone());
            }
            *out = k;
            Ok(())
        })
    }

    /// `aclrtNotifySetImportPid(notify, pid, num)`: the processes that may import the
    /// exported `notify`. Order: notify NULL, pid NULL (100000, EH0008); a chip without IPC
    /// notifies (207000); not a live notify (107017); num (as 32 bits, signed) not positive
    /// (107000, EE1003); no context (107002); the chip's IPC memory feature (207000, EE1005);
    /// then the driver's: a notify exported with a whitelist (107000 if never exported,
    /// 207006 without a whitelist).
    pub fn notify_set_import_pid(
        &self,
        notify: RawNotify,
        pids: Option<&[i32]>,
        num: usize,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtNotifySetImportPid";
            if notify.0 == 0 {
                return Err(fail::acl_null(api, "notify"));
            }
            let pids = pids.ok_or_else(|| fail::acl_null(api, "pid"))?;
            if !chip_caps::ipc_memory(&self.chip) {
                return Err(fail::not_supported(
                    api,
                    &self.chip.soc_name,
                    "IPC notifies",
                ));
            }
            let rec = self.check_notify(api, notify)?;
            let n = num as i32;
            if n <= 0 {
                return Err(fail::rt_value(api, "num", n, "(0, 2147483647]"));
            }
            {
                let st = self.lock();
                Self::current_device(&st, api)?;
            }
            let NotifyIpc::Exported(key) = &rec.ipc else {
                return Err(AclError::new(
                    ErrorCode::RtParamInvalid,
                    None,
                    format!(
                        "{api} failed: the notify was never exported (aclrtNotifyGetExportKey): \
                         it has no key to list importers for"
                    ),
                ));
            };
            let pids = &pids[..(n as usize).min(pids.len())];
            self.backend
                .ipc_notify_set_pids(rec.backend, key, pids, std::process::id())?;
            Ok(())
        })
    }

    /// `aclrtNotifyImportByKey(&notify, key, flags)`: a notify of this process for the one
    /// another process exported under `key`. Order: notify NULL, key NULL (100000, EH0008); a
    /// chip without IPC notifies (silent 207000); flags above 3 (107000, EE1003); no context
    /// (107002); the runtime's download flag 0x1 (207000, assumed: no simulated scheduler has
    /// it); then the driver's: an unknown or closed key (107000), a process not on the
    /// whitelist (207006), a key of memory (207009).
    pub fn notify_import_by_key(
        &self,
        notify: Option<&mut RawNotify>,
        key: Option<&str>,
        flags: u64,
    ) -> AclResult<()> {
        self.call(|| {
            let api = "aclrtNotifyImportByKey";
            let out = notify.ok_or_else(|| fail::acl_null(api, "notify"))?;
            let key = key.ok_or_else(|| fail::acl_null(api, "key"))?;
            if !chip_caps::ipc_memory(&self.chip) {
                return Err(
                    fail::not_supported(api, &self.chip.soc_name, "IPC notifies")
                        .without_last_error(),
                );
            }
            if flags > 3 {
                return Err(fail::rt_value(api, "flags", flags, "[0, 3]"));
            }
            let device = {
                let st = self.lock();
                Self::current_device(&st, api)?.1
            };
            if flags & IMPORT_DOWNLOAD_TO_DEVICE != 0 {
                return Err(fail::not_supported(
                    api,
                    &self.chip.soc_name,
                    "importing a notify for download to the device (the scheduler's MC2 support)",
                ));
            }
            let (backend, creator_device) =
                self.backend
                    .ipc_notify_import(device, key, std::process::id())?;
            let mut st = self.lock();
            let handle = st.new_handle(HandleKind::Notify);
            st.notifies.insert(
                handle,
                NotifyRec {
                    device,
                    backend,
                    ipc: NotifyIpc::Imported { creator_device },
                },
            );
            *out = RawNotify(handle);
            Ok(())
        })
    }
}
