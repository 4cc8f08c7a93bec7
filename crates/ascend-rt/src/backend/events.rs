//! [`Events`]: the backend's role for events and notifies, the objects streams synchronize
//! through. Recording, waiting and resetting them are tasks ([`super::Streams::launch`]).

use super::{BResult, EventId, NotifyId};

/// Events and notifies.
///
/// An `event` or `notify` argument is a live one of this backend, not destroyed by the front
/// end.
pub trait Events {
    /// Creates an event on `device`.
    ///
    /// - the device is open; `flags` is a valid combination of `ACL_EVENT_*` flags.
    fn create_event(&self, device: u32, flags: u32) -> BResult<EventId>;

    /// Destroys an event (a record still queued completes without it).
    fn destroy_event(&self, event: EventId) -> BResult<()>;

    /// True when the event's latest record has executed (or it was never recorded).
    fn event_complete(&self, event: EventId) -> BResult<bool>;

    /// Blocks until the event's latest record has executed; `timeout_ms` `None` waits
    /// forever.
    fn synchronize_event(&self, event: EventId, timeout_ms: Option<u64>) -> BResult<()>;

    /// Milliseconds between two executed records.
    ///
    /// - both events were recorded and their records executed, and both were created with
    ///   timing.
    fn event_elapsed_ms(&self, start: EventId, end: EventId) -> BResult<f32>;

    /// `aclrtEventGetTimestamp`: the device clock, in µs, at which the event's latest record
    /// executed; `None` while it has not.
    fn event_timestamp_us(&self, event: EventId) -> BResult<Option<u64>>;

    /// `aclrtCreateNotify`: creates a notify (clear) on `device`.
    ///
    /// - the device is open; `flag` is a valid ACL notify flag.
    fn create_notify(&self, device: u32, flag: u64) -> BResult<NotifyId>;

    /// `aclrtDestroyNotify`.
    fn destroy_notify(&self, notify: NotifyId) -> BResult<()>;

    /// `aclrtNotifyGetExportKey`'s driver part: exports `notify` of `device` for process `pid`;
    /// `whitelist`: importers must be on its list. Returns the key.
    fn ipc_notify_export(
        &self,
        device: u32,
        notify: NotifyId,
        whitelist: bool,
        pid: u32,
    ) -> BResult<String>;

    /// `aclrtNotifySetImportPid`'s driver part: the processes that may import the notify
    /// exported under `key` (`notify` its handle here).
    fn ipc_notify_set_pids(
        &self,
        notify: NotifyId,
        key: &str,
        pids: &[i32],
        pid: u32,
    ) -> BResult<()>;

    /// `aclrtNotifyImportByKey`'s driver part: process `pid` imports `key` on `device` (its
    /// current one). Returns the notify to record and wait on, and the creator's device.
    fn ipc_notify_import(&self, device: u32, key: &str, pid: u32) -> BResult<(NotifyId, u32)>;

    /// Closes an imported notify (the importer's destroy): the creator's stays.
    fn ipc_notify_close(&self, notify: NotifyId) -> BResult<()>;

    /// `aclrtIpcGetEventHandle`'s driver part: the handle other processes open the IPC `event`
    /// by (the first 8 bytes of `aclrtIpcEventHandle`).
    fn ipc_event_handle(&self, event: EventId, pid: u32) -> BResult<u64>;

    /// `aclrtIpcOpenEventHandle`'s driver part: an event of process `pid` on `device` (its
    /// current one) for the IPC event `handle` names.
    fn ipc_event_open(&self, device: u32, handle: u64, pid: u32) -> BResult<EventId>;

    /// Closes an opened IPC event (process `pid`'s destroy): the exporter's stays, unless the
    /// exporter destroyed it while this was the last one open.
    fn ipc_event_close(&self, event: EventId, pid: u32) -> BResult<()>;
}
