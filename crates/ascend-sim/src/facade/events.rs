//! [`Sim`]'s event and notify calls: creating and destroying them, and the host's queries
//! and synchronization of events.

use super::Sim;
use crate::types::*;

impl Sim {
    /// Creates an event (not recorded).
    pub fn create_event(&self, device: u32) -> Result<EventId, SimError> {
        self.with_charge_on(device, self.chip.timing.host_call_ns, |e| {
            e.check_device(device)?;
            Ok(EventId(e.create_event()))
        })
    }

    /// Destroys an event (pending records complete without it; it is forgotten once none is
    /// pending).
    pub fn destroy_event(&self, event: EventId) -> Result<(), SimError> {
        self.with(|e| {
            e.event(event.0)?;
            if let Some(ev) = e.events.get_mut(&event.0) {
                ev.destroyed = true;
                if ev.pending.is_empty() {
                    e.races.event_destroyed(event.0);
                    e.events.remove(&event.0);
                }
            }
            Ok(())
        })
    }

    /// True when the event's latest record has executed (false if never recorded).
    pub fn event_complete(&self, event: EventId) -> Result<bool, SimError> {
        self.with_charge(self.chip.timing.host_query_ns, |e| {
            let ev = e.event(event.0)?;
            let (done, latest) = (ev.complete(), ev.latest);
            if let (true, true, Some(seq)) = (e.races.on, done, latest) {
                let host = crate::races::AgentKey::Host(super::caller_key());
                e.races.event_waited(host, event.0, seq);
            }
            Ok(done)
        })
    }

    /// Blocks until the event's latest record has executed (at once if never recorded).
    pub fn synchronize_event(
        &self,
        event: EventId,
        timeout_ms: Option<u64>,
    ) -> Result<(), SimError> {
        let g = self.lock();
        let Some(target) = g.event(event.0)?.latest else {
            return Ok(());
        };
        let what = HostWait::SynchronizeEvent(event.0);
        let (mut g, r) = self.block_until(g, what, timeout_ms, move |e| {
            e.events.get(&event.0).is_none_or(|ev| ev.done(target))
        });
        if r.is_ok() {
            if g.races.on {
                let host = crate::races::AgentKey::Host(super::caller_key());
                g.races.event_waited(host, event.0, target);
            }
            g = self.observed(g);
        }
        self.release(g);
        r
    }

    /// The simulated time (ns) at which the event's latest record executed, if it has,
    /// quantised to the chip's event timestamp counter.
    pub fn event_time_ns(&self, event: EventId) -> Result<Option<u64>, SimError> {
        self.with_charge(self.chip.timing.host_call_ns, |e| {
            let ev = e.event(event.0)?;
            let tick = 1_000_000 / e.chip.timing.timestamp_ticks_per_ms.max(1);
            Ok(ev
                .complete()
                .then_some(ev.executed.map(|(_, t)| t - t % tick.max(1)))
                .flatten())
        })
    }

    // ----- notifies -----

    /// Creates a notify (clear) on `device`.
    pub fn create_notify(&self, device: u32) -> Result<NotifyId, SimError> {
        self.with_charge(self.chip.timing.host_call_ns, |e| {
            e.check_device(device)?;
            Ok(NotifyId(e.create_notify()))
        })
    }

    /// Destroys a notify; it is forgotten at once. A wait already blocked on it stays blocked
    /// and a record of it sets nothing (as on hardware, where the program must not destroy a
    /// notify that tasks still use).
    pub fn destroy_notify(&self, notify: NotifyId) -> Result<(), SimError> {
        self.with(|e| {
            e.notify(notify.0)?;
            e.notifies.remove(&notify.0);
            Ok(())
        })
    }
}
