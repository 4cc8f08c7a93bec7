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
    /// Closed by its exporter (or the exporter has gone): no new imports; kept while imports
    /// are open.
    closed: bool,
    /// The exporter freed the memory while imports were open: it is freed when the last
    /// import closes.
    freed: bool,
}

/// An IPC event handle: the event it names, and who opened it.
#[derive(Debug)]
struct EventShare {
    event: EventId,
    /// Opened events not yet destroyed, by opening process.
    opens: HashMap<u32, usize>,
    /// Its exporter destroyed the event while it was open elsewhere: it goes with the last
    /// opened one.
    destroyed: bool,
}

/// The IPC event handles handed out (a handle is never given twice), by handle.
#[derive(Debug, Default)]
struct EventHandles {
    issued: u64,
    by_handle: HashMap<u64, EventShare>,
}

/// The keys of one driver.
#[derive(Debug, Default)]
pub struct IpcShares {
    shares: Mutex<(u64, HashMap<String, Share>)>,
    /// IPC event handles.
    events: Mutex<EventHandles>,
}

fn driver(kind: ErrorCode, message: String) -> BackendError {
    BackendError::Library(AclError::new(kind, None, message))
}

fn unknown(key: &str) -> BackendError {
    driver(
        ErrorCode::RtParamInvalid,
        format!("the {} names nothing exported (never exported, closed by its exporter, or of another kind)", named(key)),
    )
}

/// How the key of a share is said: a shareable handle by its number, an IPC key as text.
fn named(key: &str) -> String {
    match key.strip_prefix(SHAREABLE_PREFIX) {
        Some(handle) => format!("shareable handle {handle}"),
        None => format!("IPC key {key:?}"),
    }
}

/// The calls that list the processes a share admits.
fn pid_calls(key: &str) -> &'static str {
    if key.starts_with(SHAREABLE_PREFIX) {
        "aclrtMemSetPidToShareableHandle"
    } else {
        "aclrtIpcMemSetImportPid or aclrtNotifySetImportPid"
    }
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
        let kind = match what {
            Shared::Memory { .. } => "mem",
            Shared::Notify(_) => "notify",
        };
        self.share_as(device, what, exporter, whitelist, |n| {
            format!("ascend-sim-ipc-{kind}-{exporter}-{n}")
        })
    }

    /// Shares `what` under the key `key` makes of the share's number.
    fn share_as(
        &self,
        device: u32,
        what: Shared,
        exporter: u32,
        whitelist: bool,
        key: impl FnOnce(u64) -> String,
    ) -> String {
        let mut g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        g.0 += 1;
        let key = key(g.0);
        g.1.insert(
            key.clone(),
            Share {
                device,
                what,
                exporter,
                whitelist: whitelist.then(Vec::new),
                imports: HashMap::new(),
                closed: false,
                freed: false,
            },
        );
        key
    }

    /// Sets the processes that may import `key` (its exporter's call), a key of the kind
    /// `notify` says.
    pub fn set_pids(&self, key: &str, pids: &[i32], caller: u32, notify: bool) -> BResult<()> {
        let mut g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        let share =
            g.1.get_mut(key)
                .filter(|s| !s.closed && matches!(s.what, Shared::Notify(_)) == notify)
                .ok_or_else(|| unknown(key))?;
        if share.exporter != caller {
            return Err(driver(
                ErrorCode::RtNoPermission,
                format!(
                    "only the process that exported {} (pid {}) may set whom it admits",
                    named(key),
                    share.exporter
                ),
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
                    "{} was exported without pid validation: it has no list to set",
                    named(key)
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
                format!("the {} names memory, not a notify", named(key)),
            )),
        }
    }

    /// What `key` shares and on which device, if `importer` may import it; counted as one
    /// import.
    fn admit(&self, key: &str, importer: u32) -> BResult<(Shared, u32)> {
        let mut g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        let share =
            g.1.get_mut(key)
                .filter(|s| !s.closed)
                .ok_or_else(|| unknown(key))?;
        if let Some(list) = &share.whitelist {
            if importer != share.exporter && !list.contains(&(importer as i32)) {
                return Err(driver(
                    ErrorCode::RtNoPermission,
                    format!(
                        "process {importer} is not on the whitelist of {} (set by its exporter with {}, by the pid aclrtDeviceGetBareTgid gives)",
                        named(key),
                        pid_calls(key)
                    ),
                ));
            }
        }
        *share.imports.entry(importer).or_default() += 1;
        Ok((share.what, share.device))
    }

    /// `caller` closes one import of `key`. Returns the memory to free now: the exporter's,
    /// freed while this was its last open import.
    pub fn close_import(&self, key: &str, caller: u32) -> BResult<Option<(u32, u64)>> {
        let mut g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(share) = g.1.get_mut(key) {
            if let Some(n) = share.imports.get_mut(&caller) {
                *n -= 1;
                if *n == 0 {
                    share.imports.remove(&caller);
                }
            }
        }
        Ok(Self::settle(&mut g.1, key))
    }

    /// After an import closed: a share closed by its exporter with no import left goes, and
    /// its memory, if the exporter freed it meanwhile, is to be freed now.
    fn settle(shares: &mut HashMap<String, Share>, key: &str) -> Option<(u32, u64)> {
        let share = shares.get(key)?;
        if !share.imports.is_empty() || !(share.closed || share.freed) {
            return None;
        }
        let share = shares.remove(key)?;
        match (share.freed, share.what) {
            (true, Shared::Memory { addr, .. }) => Some((share.device, addr)),
            _ => None,
        }
    }

    /// `caller` destroys `key` (its exporter's close), if `key` shares the kind `notify` says:
    /// later imports fail; open imports stay usable until they close.
    pub fn destroy(&self, key: &str, caller: u32, notify: bool) -> BResult<()> {
        let mut g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        let share =
            g.1.get_mut(key)
                .filter(|s| !s.closed && matches!(s.what, Shared::Notify(_)) == notify)
                .ok_or_else(|| unknown(key))?;
        if share.exporter != caller {
            return Err(driver(
                ErrorCode::RtNoPermission,
                format!("{} was not imported by this process, and only its exporter (pid {}) may destroy it", named(key), share.exporter),
            ));
        }
        share.closed = true;
        Self::settle(&mut g.1, key);
        Ok(())
    }

    /// Process `pid` has gone: the keys it exported are closed (open imports of them stay
    /// usable), its open imports are closed. Returns the memory to free now.
    pub fn forget_process(&self, pid: u32) -> Vec<(u32, u64)> {
        let mut g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        let keys: Vec<String> = g.1.keys().cloned().collect();
        let mut free = Vec::new();
        for key in keys {
            if let Some(share) = g.1.get_mut(&key) {
                share.imports.remove(&pid);
                if share.exporter == pid {
                    share.closed = true;
                }
            }
            free.extend(Self::settle(&mut g.1, &key));
        }
        free
    }

    /// The exporter frees the memory at `addr` of `device`: true when it may be freed now; false
    /// while an import of it is open (it is freed when the last one closes, and no new import
    /// is admitted).
    pub fn release_memory(&self, device: u32, addr: u64) -> bool {
        let mut g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        let mut now = true;
        g.1.retain(|_, s| {
            let mine =
                s.device == device && matches!(s.what, Shared::Memory { addr: a, .. } if a == addr);
            if !mine {
                return true;
            }
            if s.imports.is_empty() {
                return false;
            }
            s.closed = true;
            s.freed = true;
            now = false;
            true
        });
        now
    }
}

/// How the keys of shareable handles begin.
const SHAREABLE_PREFIX: &str = "ascend-sim-shareable-";

/// The key a shareable handle of physical memory is kept under.
fn shareable_key(handle: u64) -> String {
    format!("{SHAREABLE_PREFIX}{handle:#x}")
}

/// Physical memory shared by a shareable handle (`aclrtMemExportToShareableHandle`): a key of
/// memory like an IPC memory key, named by a 64-bit handle (the exporter's pid in the high
/// half, the share's number in the low, so never 0).
impl IpcShares {
    /// Exports `len` bytes of memory at `addr` of `device` by `exporter`, as
    /// [`IpcShares::export`]; returns the shareable handle.
    pub fn export_shareable(
        &self,
        device: u32,
        addr: u64,
        len: u64,
        exporter: u32,
        whitelist: bool,
    ) -> u64 {
        let mut handle = 0;
        self.share_as(
            device,
            Shared::Memory { addr, len },
            exporter,
            whitelist,
            |n| {
                handle = (u64::from(exporter) << 32) | (n & u64::from(u32::MAX));
                shareable_key(handle)
            },
        );
        handle
    }

    /// Sets the processes that may import `handle` (its exporter's call).
    pub fn set_shareable_pids(&self, handle: u64, pids: &[i32], caller: u32) -> BResult<()> {
        self.set_pids(&shareable_key(handle), pids, caller, false)
    }

    /// Its exporter freed the memory `handle` shares: no new import (open ones stay).
    pub fn close_shareable(&self, handle: u64, caller: u32) -> BResult<()> {
        self.destroy(&shareable_key(handle), caller, false)
    }

    /// The device of the memory `handle` names, without importing it.
    pub fn shareable_device(&self, handle: u64) -> BResult<u32> {
        let key = shareable_key(handle);
        let g = self.shares.lock().unwrap_or_else(|p| p.into_inner());
        g.1.get(&key)
            .filter(|s| !s.closed)
            .map(|s| s.device)
            .ok_or_else(|| unknown(&key))
    }

    /// `importer` imports the memory `handle` names.
    pub fn import_shareable(&self, handle: u64, importer: u32) -> BResult<IpcImport> {
        self.import(&shareable_key(handle), importer)
    }

    /// `caller` closes one import of `handle`; returns the memory to free now, as
    /// [`IpcShares::close_import`].
    pub fn close_shareable_import(&self, handle: u64, caller: u32) -> BResult<Option<(u32, u64)>> {
        self.close_import(&shareable_key(handle), caller)
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
    fn event_handles(&self) -> std::sync::MutexGuard<'_, EventHandles> {
        self.events.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The handle `exporter` gives other processes for its IPC `event`: the same one each
    /// time (a handle's 8 bytes; never 0).
    pub fn event_handle(&self, event: EventId, exporter: u32) -> u64 {
        let mut g = self.event_handles();
        if let Some((&h, _)) = g.by_handle.iter().find(|(_, s)| s.event == event) {
            return h;
        }
        g.issued += 1;
        let h = (u64::from(exporter) << 32) | (g.issued & u64::from(u32::MAX));
        g.by_handle.insert(
            h,
            EventShare {
                event,
                opens: HashMap::new(),
                destroyed: false,
            },
        );
        h
    }

    /// Process `opener` opens the IPC event a handle names.
    pub fn open_event(&self, handle: u64, opener: u32) -> BResult<EventId> {
        let mut g = self.event_handles();
        let share = g
            .by_handle
            .get_mut(&handle)
            .filter(|s| !s.destroyed)
            .ok_or_else(|| {
                driver(
                    ErrorCode::RtParamInvalid,
                    format!(
                        "the IPC event handle {handle:#x} names no event (never handed out, or its \
                         event was destroyed by its exporter)"
                    ),
                )
            })?;
        *share.opens.entry(opener).or_default() += 1;
        Ok(share.event)
    }

    /// Process `opener` destroys an event it opened: true when the exporter's event is to be
    /// destroyed now (the exporter destroyed it while this was the last one open).
    pub fn close_opened(&self, event: EventId, opener: u32) -> bool {
        let mut g = self.event_handles();
        let Some((&h, share)) = g.by_handle.iter_mut().find(|(_, s)| s.event == event) else {
            return false;
        };
        if let Some(n) = share.opens.get_mut(&opener) {
            *n -= 1;
            if *n == 0 {
                share.opens.remove(&opener);
            }
        }
        let now = share.destroyed && share.opens.is_empty();
        if now {
            g.by_handle.remove(&h);
        }
        now
    }

    /// The exporter destroys `event`: true when it may be destroyed now; false while another
    /// process has it open (it goes with the last one, and no new open is admitted).
    pub fn destroy_event(&self, event: EventId) -> bool {
        let mut g = self.event_handles();
        let Some((&h, share)) = g.by_handle.iter_mut().find(|(_, s)| s.event == event) else {
            return true;
        };
        if share.opens.is_empty() {
            g.by_handle.remove(&h);
            return true;
        }
        share.destroyed = true;
        false
    }

    /// Process `pid` has gone: its opened events are closed. Returns the exporters' events to
    /// destroy now.
    pub fn forget_event_process(&self, pid: u32) -> Vec<EventId> {
        let mut g = self.event_handles();
        let mut now = Vec::new();
        g.by_handle.retain(|_, s| {
            s.opens.remove(&pid);
            if s.destroyed && s.opens.is_empty() {
                now.push(s.event);
                return false;
            }
            true
        });
        now
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
            self.ipc.set_pids(key, pids, pid, false)
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
            if !imported {
                return self.ipc.destroy(key, pid, false);
            }
            // The exporter's memory, freed while this import was open, goes now.
            match self.ipc.close_import(key, pid)? {
                Some((device, addr)) => $crate::backend::Memory::free(self, device, addr),
                None => Ok(()),
            }
        }

        fn ipc_set_link(&self, _key: &str, _attr: u64) -> $crate::backend::BResult<()> {
            Ok(())
        }

        fn ipc_forget_process(&self, pid: u32) {
            for (device, addr) in self.ipc.forget_process(pid) {
                let _ = $crate::backend::Memory::free(self, device, addr);
            }
            for event in self.ipc.forget_event_process(pid) {
                let _ = self.destroy_event_now(event);
            }
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
            self.ipc.set_pids(key, pids, pid, true)
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
            pid: u32,
        ) -> $crate::backend::BResult<$crate::backend::EventId> {
            self.ipc.open_event(handle, pid)
        }

        fn ipc_event_close(
            &self,
            event: $crate::backend::EventId,
            pid: u32,
        ) -> $crate::backend::BResult<()> {
            if self.ipc.close_opened(event, pid) {
                self.destroy_event_now(event)?;
            }
            Ok(())
        }
    };
}

pub(crate) use events_ipc_by_shares;
pub(crate) use memory_ipc_by_shares;
