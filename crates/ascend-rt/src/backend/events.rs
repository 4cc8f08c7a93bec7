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
}
