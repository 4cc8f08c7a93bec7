//! [`IpcShares`]: the device memory exported under IPC keys (`aclrtIpcMemGetExportKey`), whom
//! each key admits, and who imported it: the driver's part of IPC memory, for the backends
//! that are their own driver (the simulator, whether one process uses it or the shared device
//! service serves several; the null backend).
//!
//! The driver's checks are not in the vendor's open source; what is here follows its
//! documented contract (docs/validation/ipc.md): a key names one exported range; only the
//! processes on its whitelist may import it unless it was exported without one; an importer
//! gets the exporter's address (one address space per simulated device); the exporter's close
//! destroys the key, after which imports fail.

use std::collections::HashMap;
use std::sync::Mutex;

use super::{BResult, BackendError, EventId, NotifyId};
use crate::error::{AclError, ErrorCode};

/// What an import gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpcImport {
    /// The address of the shared range in the importer's view.
    pub addr: u64,
    /// Its length in bytes, where the backend knows it.
    pub len: Option<u64>,
    /// The exporter's device.
    pub device: u32,
}

/// What a key shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shared {
    /// `len` bytes of device memory at `addr`.
    Memory { addr: u64, len: u64 },
    /// A notify.
    Notify(NotifyId),
}

#[derive(Debug)]
struct Share {
    device: u32,
    what: Shared,
    exporter: u32,
    /// `None`: any process may import it (exported without a whitelist).
    whitelist: Option<Vec<i32>>,
    /// Imports not yet closed, by importing process.
    imports: HashMap<u32, usize>,
}

/// The keys of one driver.
#[derive(Debug, Default)]
pub struct IpcShares {
    shares: Mutex<(u64, HashMap<String, Share>)>,
    /// IPC event handles: the event each names and its exporting process.
    events: Mutex<HashMap<u64, (EventId, u32)>>,
}

fn driver(kind: ErrorCode, message: String) -> BackendError {
    BackendError::Library(AclError::new(kind, None, message))
}

fn unknown(key: &str) -> BackendError {
    driver(
        ErrorCode::RtParamInvalid,
        format!("the IPC key {key:?} names no exported memory (never exported, or closed by its exporter)"),
    )
}

impl IpcShares {
    /// Exports `len` bytes at `addr` of `device` by `exporter`; `whitelist`: importers must
    /// be on the list [`IpcShares::set_pids`] sets. Returns the key.
    pub fn export(
        &self,
        device: u32,
        addr: u64,
        len: u64,
        exporter: u32,
        whitelist: bool,
    ) -> String {
        self.share(device, Shared::Memory { addr, len }, exporter, whitelist)
    }

    /// Exports `notify` of `device` by `exporter`, as [`IpcShares::export`] exports memory.
    pub fn export_notify(
        &self,
        device: u32,
        notify: NotifyId,
        exporter: u32,
        whitelist: bool,
    ) -> String {
        self.share(device, Shared::Notify(notify), exporter, whitelist)
    }

    fn share(&self, device: u32, what: Shared, exporter: u32, whitelist: bool) -> String {
        let mut g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        g.0 += 1;
        let kind = match what {
            Shared::Memory { .. } => "mem",
            Shared::Notify(_) => "notify",
        };
        let key = format!("ascend-sim-ipc-{kind}-{exporter}-{}", g.0);
        g.1.insert(
            key.clone(),
            Share {
                device,
                what,
                exporter,
                whitelist: whitelist.then(Vec::new),
                imports: HashMap::new(),
            },
        );
        key
    }

    /// Sets the processes that may import `key` (its exporter's call).
    pub fn set_pids(&self, key: &str, pids: &[i32], caller: u32) -> BResult<()> {
        let mut g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        let share = g.1.get_mut(key).ok_or_else(|| unknown(key))?;
        if share.exporter != caller {
            return Err(driver(
                ErrorCode::RtNoPermission,
                format!("only the process that exported IPC key {key:?} (pid {}) may set whom it admits", share.exporter),
            ));
        }
        match &mut share.whitelist {
            Some(list) => {
                list.extend_from_slice(pids);
                Ok(())
            }
            None => Err(driver(
                ErrorCode::RtNoPermission,
                format!(
                    "IPC key {key:?} was exported without pid validation: it has no list to set"
                ),
            )),
        }
    }

    /// `importer` imports the memory `key` names.
    pub fn import(&self, key: &str, importer: u32) -> BResult<IpcImport> {
        let (share, device) = self.admit(key, importer)?;
        match share {
            Shared::Memory { addr, len } => Ok(IpcImport {
                addr,
                len: Some(len),
                device,
            }),
            Shared::Notify(_) => Err(unknown(key)),
        }
    }

    /// `importer` imports the notify `key` names: the exporter's notify and its device. A key
    /// of memory is 207009, as the driver's open of a shared id of another kind.
    pub fn import_notify(&self, key: &str, importer: u32) -> BResult<(NotifyId, u32)> {
        let (share, device) = self.admit(key, importer)?;
        match share {
            Shared::Notify(n) => Ok((n, device)),
            Shared::Memory { .. } => Err(driver(
                ErrorCode::RtNoNotifyResource,
                format!("the IPC key {key:?} names memory, not a notify"),
            )),
        }
    }

    /// What `key` shares and on which device, if `importer` may import it; counted as one
    /// import.
    fn admit(&self, key: &str, importer: u32) -> BResult<(Shared, u32)> {
        let mut g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        let share = g.1.get_mut(key).ok_or_else(|| unknown(key))?;
        if let Some(list) = &share.whitelist {
            if importer != share.exporter && !list.contains(&(importer as i32)) {
                return Err(driver(
                    ErrorCode::RtNoPermission,
                    format!(
                        "process {importer} is not on the whitelist of IPC key {key:?} (set with aclrtIpcMemSetImportPid, by the pid aclrtDeviceGetBareTgid gives)"
                    ),
                ));
            }
        }
        *share.imports.entry(importer).or_default() += 1;
        Ok((share.what, share.device))
    }

    /// `caller` closes one import of `key`.
    pub fn close_import(&self, key: &str, caller: u32) -> BResult<()> {
        let mut g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(share) = g.1.get_mut(key) {
            if let Some(n) = share.imports.get_mut(&caller) {
                *n -= 1;
                if *n == 0 {
                    share.imports.remove(&caller);
                }
            }
        }
        Ok(())
    }

    /// `caller` destroys `key` (its exporter's close): later imports fail.
    pub fn destroy(&self, key: &str, caller: u32) -> BResult<()> {
        let mut g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        let share = g.1.get(key).ok_or_else(|| unknown(key))?;
        if share.exporter != caller {
            return Err(driver(
                ErrorCode::RtNoPermission,
                format!("IPC key {key:?} was not imported by this process, and only its exporter (pid {}) may destroy it", share.exporter),
            ));
        }
        g.1.remove(key);
        Ok(())
    }

    /// Forgets the keys `exporter` exported (it has gone).
    pub fn forget_exporter(&self, exporter: u32) {
        let mut g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        g.1.retain(|_, s| s.exporter != exporter);
    }

    /// Forgets the keys exporting memory at `addr` of `device` (it was freed).
    pub fn forget_memory(&self, device: u32, addr: u64) {
        let mut g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        g.1.retain(|_, s| {
            !(s.device == device && matches!(s.what, Shared::Memory { addr: a, .. } if a == addr))
        });
    }
}

impl IpcShares {
    /// Forgets the key exporting `notify` (destroyed by its creator).
    pub fn forget_notify(&self, notify: NotifyId) {
        let mut g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        g.1.retain(|_, s| s.what != Shared::Notify(notify));
    }
}

impl IpcShares {
    /// The handle `exporter` gives other processes for its IPC `event`: the same one each
    /// time (a handle's 8 bytes; never 0).
    pub fn event_handle(&self, event: EventId, exporter: u32) -> u64 {
        let mut g = self.events.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((&h, _)) = g.iter().find(|(_, (e, _))| *e == event) {
            return h;
        }
        let h = (u64::from(exporter) << 32) | (g.len() as u64 + 1);
        g.insert(h, (event, exporter));
        h
    }

    /// The event an IPC event handle names.
    pub fn open_event(&self, handle: u64) -> BResult<EventId> {
        let g = self.events.lock().unwrap_or_else(|p| p.into_inner());
        g.get(&handle).map(|(e, _)| *e).ok_or_else(|| {
            driver(
                ErrorCode::RtParamInvalid,
                format!(
                    "the IPC event handle {handle:#x} names no event (never handed out, or its \
                     event was destroyed by its exporter)"
                ),
            )
        })
    }

    /// Forgets the handle of `event` (destroyed by its exporter).
    pub fn forget_event(&self, event: EventId) {
        let mut g = self.events.lock().unwrap_or_else(|p| p.into_inner());
        g.retain(|_, (e, _)| *e != event);
    }

    /// Forgets the event handles `exporter` handed out (it has gone).
    pub fn forget_event_exporter(&self, exporter: u32) {
        let mut g = self.events.lock().unwrap_or_else(|p| p.into_inner());
        g.retain(|_, (_, x)| *x != exporter);
    }
}

/// The [`super::Memory`] IPC methods of a backend that is its own driver, through its
/// `ipc: IpcShares` field (the simulator's and the null backend's are the same).
macro_rules! memory_ipc_by_shares {
    () => {
        fn ipc_export(
            &self,
            device: u32,
            addr: u64,
            len: u64,
            whitelist: bool,
            pid: u32,
        ) -> $crate::backend::BResult<String> {
            Ok(self.ipc.export(device, addr, len, pid, whitelist))
        }

        fn ipc_set_import_pids(
            &self,
            _device: u32,
            key: &str,
            pids: &[i32],
            pid: u32,
        ) -> $crate::backend::BResult<()> {
            self.ipc.set_pids(key, pids, pid)
        }

        fn ipc_import(
            &self,
            _device: u32,
            key: &str,
            pid: u32,
        ) -> $crate::backend::BResult<$crate::backend::IpcImport> {
            self.ipc.import(key, pid)
        }

        fn ipc_close(
            &self,
            _device: u32,
            key: &str,
            imported: bool,
            pid: u32,
        ) -> $crate::backend::BResult<()> {
            if imported {
                self.ipc.close_import(key, pid)
            } else {
                self.ipc.destroy(key, pid)
            }
        }

        fn ipc_forget_process(&self, pid: u32) {
            self.ipc.forget_exporter(pid);
            self.ipc.forget_event_exporter(pid);
        }
    };
}

/// The [`super::Events`] IPC methods of a backend that is its own driver, as
/// [`memory_ipc_by_shares`]: an import or an opened event is the exporter's object itself.
macro_rules! events_ipc_by_shares {
    () => {
        fn ipc_notify_export(
            &self,
            device: u32,
            notify: $crate::backend::NotifyId,
            whitelist: bool,
            pid: u32,
        ) -> $crate::backend::BResult<String> {
            Ok(self.ipc.export_notify(device, notify, pid, whitelist))
        }

        fn ipc_notify_set_pids(
            &self,
            _notify: $crate::backend::NotifyId,
            key: &str,
            pids: &[i32],
            pid: u32,
        ) -> $crate::backend::BResult<()> {
            self.ipc.set_pids(key, pids, pid)
        }

        fn ipc_notify_import(
            &self,
            _device: u32,
            key: &str,
            pid: u32,
        ) -> $crate::backend::BResult<($crate::backend::NotifyId, u32)> {
            self.ipc.import_notify(key, pid)
        }

        fn ipc_notify_close(
            &self,
            _notify: $crate::backend::NotifyId,
        ) -> $crate::backend::BResult<()> {
            Ok(())
        }

        fn ipc_event_handle(
            &self,
            event: $crate::backend::EventId,
            pid: u32,
        ) -> $crate::backend::BResult<u64> {
            Ok(self.ipc.event_handle(event, pid))
        }

        fn ipc_event_open(
            &self,
            _device: u32,
            handle: u64,
            _pid: u32,
        ) -> $crate::backend::BResult<$crate::backend::EventId> {
            self.ipc.open_event(handle)
        }

        fn ipc_event_close(
            &self,
            _event: $crate::backend::EventId,
        ) -> $crate::backend::BResult<()> {
            Ok(())
        }
    };
}

pub(crate) use events_ipc_by_shares;
pub(crate) use memory_ipc_by_shares;
