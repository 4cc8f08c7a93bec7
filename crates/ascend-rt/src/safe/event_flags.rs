//! [`EventFlags`]: the flags an event is created with (`aclrtCreateEventWithFlag`).

use std::ops::BitOr;

use crate::raw_types::event_flag;

/// The flags of [`super::Device::event_with_flags`]: an OR of [`EventFlags::SYNC`],
/// [`EventFlags::CAPTURE_STREAM_PROGRESS`] and [`EventFlags::TIME_LINE`], or one of
/// [`EventFlags::DEVICE_USE_ONLY`] and [`EventFlags::EXTERNAL`] alone (others are refused with
/// CANN's code).
///
/// ```
/// use ascend_rt::safe::EventFlags;
/// let f = EventFlags::SYNC | EventFlags::TIME_LINE;
/// assert_eq!(f.raw(), 0x9);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EventFlags(u32);

impl EventFlags {
    /// `ACL_EVENT_SYNC`: usable on model-bound streams.
    pub const SYNC: EventFlags = EventFlags(event_flag::SYNC);
    /// `ACL_EVENT_CAPTURE_STREAM_PROGRESS`.
    pub const CAPTURE_STREAM_PROGRESS: EventFlags = EventFlags(event_flag::CAPTURE_STREAM_PROGRESS);
    /// `ACL_EVENT_TIME_LINE`: records a timestamp ([`super::Event::timestamp_us`]).
    pub const TIME_LINE: EventFlags = EventFlags(event_flag::TIME_LINE);
    /// `ACL_EVENT_DEVICE_USE_ONLY`, alone.
    pub const DEVICE_USE_ONLY: EventFlags = EventFlags(event_flag::DEVICE_USE_ONLY);
    /// `ACL_EVENT_EXTERNAL`, alone.
    pub const EXTERNAL: EventFlags = EventFlags(event_flag::EXTERNAL);

    /// The raw value.
    pub fn raw(self) -> u32 {
        self.0
    }
}

impl BitOr for EventFlags {
    type Output = EventFlags;

    fn bitor(self, rhs: EventFlags) -> EventFlags {
        EventFlags(self.0 | rhs.0)
    }
}
