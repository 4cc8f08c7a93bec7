//! Host calls seen from the host: taking a due call to run it, and reporting it done.

use std::time::Duration;

use super::Sim;
use crate::engine::DueHostCall;
use crate::sync::{timed_wait, WallClock};
use crate::types::{HostWait, SimError};

impl Sim {
    /// Takes the earliest due host call of `channel`, driving the device until one is due or
    /// `timeout_ms` of simulated time passes (`Ok(None)`); `None` waits forever. For a thread
    /// that processes reports (`aclrtProcessReport`): it runs the device as a synchronize does.
    pub fn next_host_call(
        &self,
        channel: u64,
        timeout_ms: Option<u64>,
    ) -> Result<Option<DueHostCall>, SimError> {
        let mut g = self.lock();
        g.host_calls.set_ready(channel, true);
        let what = HostWait::HostCalls(channel);
        let (mut g, r) =
            self.block_until(g, what, timeout_ms, move |e| e.host_calls.has_due(channel));
        g.host_calls.set_ready(channel, false);
        let taken = match r {
            Ok(()) => Ok(g.take_host_call(channel)),
            Err(SimError::Timeout(_) | SimError::TimeoutBlocked(..)) => Ok(None),
            Err(e) => Err(e),
        };
        self.release(g);
        taken
    }

    /// Takes the earliest due host call of `channel` without driving the device, waiting at most
    /// `wall` of wall time (`None` if none became due): for the runtime's own host-function
    /// thread, which must not run the device on the program's behalf.
    pub fn wait_host_call(&self, channel: u64, wall: Duration) -> Option<DueHostCall> {
        let mut g = self.lock();
        if let Some(c) = g.take_host_call(channel) {
            return Some(c);
        }
        let id = g.begin_host_wait(HostWait::HostCalls(channel));
        g.host_calls.set_ready(channel, true);
        let mut clock = WallClock::start();
        g = timed_wait(&self.engine, &self.changed, g, wall, &mut clock);
        g.host_calls.set_ready(channel, false);
        g.end_host_wait(id);
        let c = g.take_host_call(channel);
        drop(g);
        c
    }

    /// A stream (not bound to a model) that holds a host call of `channel` in its queue while
    /// the device has work scheduled, with the device's position (time, progress). The device
    /// runs only while a host thread waits on it; if the position stays the same while the
    /// host thread of `channel` waits for a call, no thread is running the device, and the
    /// call becomes due only once one does (a synchronize, a query that waits).
    pub fn queued_host_call(&self, channel: u64) -> Option<(crate::types::StreamId, (u64, u64))> {
        use crate::stream::Work;
        self.with(|e| {
            e.next_time()?;
            let (s, _) = e.streams.iter().find(|(_, st)| {
                st.model.is_none()
                    && st
                        .queue
                        .iter()
                        .any(|t| matches!(&t.work, Work::HostCall(h) if h.channel == channel))
            })?;
            Some((crate::types::StreamId(*s), (e.now, e.progress)))
        })
    }

    /// Names the host thread of `channel` in explanations (as "report thread 5").
    pub fn name_host_channel(&self, channel: u64, name: String) {
        self.with(|e| e.host_calls.name_channel(channel, name));
    }

    /// Records whether the thread of `channel` serves `stream`'s host calls (subscribed or
    /// unsubscribed), so that a call nothing will take is explained as such.
    pub fn set_host_channel_serves(
        &self,
        channel: u64,
        stream: crate::types::StreamId,
        served: bool,
    ) {
        self.with(|e| e.host_calls.set_served(channel, stream.0, served));
    }

    /// The host calls dropped without running since the last call (their streams aborted,
    /// stopped after a failure, or destroyed): the host may release what it keeps for them.
    pub fn take_dropped_host_calls(&self) -> Vec<u64> {
        self.take_dropped_host_calls_in(0..u64::MAX)
    }

    /// [`Sim::take_dropped_host_calls`] of the calls numbered in `numbers`, leaving the others
    /// for whoever numbered them (two hosts numbering their calls apart, as the shared device
    /// service and its backend do).
    pub fn take_dropped_host_calls_in(&self, numbers: std::ops::Range<u64>) -> Vec<u64> {
        self.with(|e| e.take_released_host_calls(&numbers))
    }

    /// The task faults since the last call, oldest first (at most the latest 1,024).
    pub fn take_task_faults(&self) -> Vec<crate::types::TaskFault> {
        self.with(|e| e.fault_log.drain(..).collect())
    }

    /// A host thread returned from the call that task `task` reached
    /// ([`DueHostCall::task`]): its stream goes on. False when the call was not outstanding
    /// (its stream was destroyed meanwhile).
    pub fn finish_host_call(&self, task: u64) -> bool {
        let mut g = self.lock();
        let done = g.finish_host_call(task);
        // The device catches up with the host's time, which went on while the call held it.
        let host = g.host_now;
        let g = self.run_to(g, host);
        drop(g);
        // Threads sleeping on a stalled device may now go on.
        self.changed.notify_all();
        done
    }
}
