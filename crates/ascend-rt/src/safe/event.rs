//! [`Event`]: an event; destroyed on drop.

use std::sync::Arc;
use std::time::Duration;

use super::device::DeviceGuard;
use crate::error::AclResult;
use crate::raw_types::{event_recorded_status, RawEvent};

/// An event (`aclrtCreateEvent`).
#[derive(Debug)]
pub struct Event {
    dev: Arc<DeviceGuard>,
    raw: RawEvent,
}

impl Event {
    pub(super) fn new(dev: Arc<DeviceGuard>, raw: RawEvent) -> Self {
        Event { dev, raw }
    }

    /// The raw handle.
    pub fn raw(&self) -> RawEvent {
        self.raw
    }

    /// True when the latest record has executed (`aclrtQueryEventStatus`).
    pub fn is_complete(&self) -> AclResult<bool> {
        let mut status = 0;
        self.dev
            .rt
            .query_event_status(self.raw, Some(&mut status))?;
        Ok(status == event_recorded_status::COMPLETE)
    }

    /// Blocks until the latest record has executed (`aclrtSynchronizeEvent`).
    pub fn synchronize(&self) -> AclResult<()> {
        self.dev.rt.set_current_context(self.dev.ctx)?;
        self.dev.rt.synchronize_event(self.raw)
    }

    /// Blocks at most `timeout` (`aclrtSynchronizeEventWithTimeout`; 507047 on expiry).
    /// The timeout counts in whole milliseconds, rounded up, and at least one.
    pub fn synchronize_timeout(&self, timeout: Duration) -> AclResult<()> {
        self.dev.rt.set_current_context(self.dev.ctx)?;
        let ms = super::timeout_ms(timeout);
        self.dev.rt.synchronize_event_with_timeout(self.raw, ms)
    }

    /// When the latest record executed, in microseconds of the device's clock
    /// (`aclrtEventGetTimestamp`; an event created with [`super::EventFlags::TIME_LINE`] or
    /// without flags).
    pub fn timestamp_us(&self) -> AclResult<u64> {
        self.dev.rt.set_current_context(self.dev.ctx)?;
        let mut t = 0u64;
        self.dev.rt.event_get_timestamp(self.raw, Some(&mut t))?;
        Ok(t)
    }

    /// Milliseconds from `self`'s record to `end`'s (`aclrtEventElapsedTime`).
    pub fn elapsed_ms(&self, end: &Event) -> AclResult<f32> {
        let mut ms = 0.0f32;
        self.dev
            .rt
            .event_elapsed_time(Some(&mut ms), self.raw, end.raw)?;
        Ok(ms)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        self.dev
            .release("destroying an event", |rt| rt.destroy_event(self.raw));
    }
}
