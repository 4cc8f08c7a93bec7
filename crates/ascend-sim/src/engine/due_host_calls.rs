//! Host calls that streams have reached (`aclrtLaunchHostFunc`, `aclrtLaunchCallback`): which
//! are due, which host thread each waits for, and where the clock must stop for them.
//!
//! A blocking call holds its stream until a host thread reports it done. While a thread is
//! running it (for at most [`HOLD_LIMIT`] of wall time), or is ready to take it (the runtime's
//! own thread while it runs no other call; a thread inside `aclrtProcessReport` for its
//! channel), the clock does not pass the time it became due: the host thread's return is then
//! always at that time (plus the round trip to the host), whatever the host's own scheduling,
//! and every run of a program gives the same timeline.
//! A call that no thread is ready to take (its subscribed thread is busy elsewhere, or never
//! processes reports) holds its own stream only: the clock, and every other stream, go on.

use std::collections::BTreeMap;

/// One host call a stream has reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueHostCall {
    /// The task that reached it: unique to this copy of the call (two runs of a model that
    /// recorded the call have two), so that each is taken and finished on its own.
    pub task: u64,
    /// The call's number, which names its function (the same for every run of a model).
    pub call: u64,
    /// The stream it is on.
    pub stream: u64,
    /// Which host thread runs it (0: the runtime's own thread).
    pub channel: u64,
    /// The stream waits for it.
    pub blocking: bool,
    /// When the stream reached it (ns).
    pub due_ns: u64,
    /// A host thread has taken it and is running it.
    pub taken: bool,
    /// The host thread that took it.
    pub taker: Option<u64>,
    /// When (wall) it was taken: a call that runs longer than `HOLD_LIMIT` no longer holds
    /// the clock.
    pub taken_at: Option<std::time::Instant>,
    /// It is a model run's copy of a recorded call: the call runs again at the model's next
    /// run, so its function must be kept after it returns.
    pub repeats: bool,
}

/// The outstanding host calls, by the task that reached each.
#[derive(Debug, Default)]
pub struct HostCalls {
    calls: BTreeMap<u64, DueHostCall>,
    /// A call became due since the flag was last cleared: host threads waiting for one must be
    /// woken.
    pub newly_due: bool,
    /// What the host calls each channel's thread, for explanations.
    names: std::collections::HashMap<u64, String>,
    /// (channel, stream) pairs whose thread stopped serving the stream (unsubscribed): a call
    /// of the stream for that channel is never taken.
    unserved: std::collections::HashSet<(u64, u64)>,
    /// Threads ready to take a call, by channel (inside a wait for one).
    ready: std::collections::HashMap<u64, u32>,
}

/// The channel of the runtime's own host-function thread, ready to take a call whenever it runs
/// none.
pub const RUNTIME_CHANNEL: u64 = 0;

/// The wall time a running host call holds the clock at most: one that runs longer (it sleeps,
/// or waits for what another host thread does after the device goes on) lets the clock and
/// the other streams go on, and its own stream resumes when it returns.
pub const HOLD_LIMIT: std::time::Duration = std::time::Duration::from_millis(50);

impl DueHostCall {
    /// A thread took it less than [`HOLD_LIMIT`] ago and has not returned: it holds the clock.
    fn held(&self) -> bool {
        self.taken && self.taken_at.is_none_or(|t| t.elapsed() < HOLD_LIMIT)
    }
}

impl HostCalls {
    /// A stream reached a call.
    pub fn insert(&mut self, due: DueHostCall) {
        self.calls.insert(due.task, due);
        self.newly_due = true;
    }

    /// The earliest due call for `channel` that no thread has taken yet; it is taken.
    pub fn take(&mut self, channel: u64) -> Option<DueHostCall> {
        let c = self
            .calls
            .values_mut()
            .filter(|c| c.channel == channel && !c.taken)
            .min_by_key(|c| (c.due_ns, c.task))?;
        c.taken = true;
        c.taker = Some(crate::facade::caller_key());
        c.taken_at = Some(std::time::Instant::now());
        Some(c.clone())
    }

    /// True when a call for `channel` is due and not taken.
    pub fn has_due(&self, channel: u64) -> bool {
        self.calls
            .values()
            .any(|c| c.channel == channel && !c.taken)
    }

    /// A host thread returned from the call that task `task` reached: it is no longer
    /// outstanding.
    pub fn finish(&mut self, task: u64) -> Option<DueHostCall> {
        self.calls.remove(&task)
    }

    /// The time the clock may not pass: the earliest due time of a blocking call that a host
    /// thread is running or is ready to take. A call the calling thread is running does not
    /// count: that thread, inside the call, waits for the device (a host function that
    /// synchronizes another stream), and the device runs on for it; the call's own stream
    /// stays held until it returns. Nor does a call no thread is ready to take: it holds its
    /// own stream only.
    pub fn clock_stop(&self) -> Option<u64> {
        if self.calls.is_empty() {
            return None;
        }
        // Called at every step: the thread is looked up only when some blocking call is taken.
        let mut me = None;
        self.calls
            .values()
            .filter(|c| {
                c.blocking
                    && if c.taken {
                        c.held()
                            && c.taker != Some(*me.get_or_insert_with(crate::facade::caller_key))
                    } else {
                        self.has_taker(c.channel)
                    }
            })
            .map(|c| c.due_ns)
            .min()
    }

    /// True when a thread is ready to take a call of `channel` at once: one waiting for a call
    /// of it, or the runtime's own thread while it runs none.
    fn has_taker(&self, channel: u64) -> bool {
        self.ready.get(&channel).is_some_and(|&n| n > 0)
            || (channel == RUNTIME_CHANNEL
                && !self
                    .calls
                    .values()
                    .any(|c| c.channel == RUNTIME_CHANNEL && c.taken))
    }

    /// True when the call task `task` reached will soon have run without another host call
    /// of the program: a thread is ready to take it, or is running it and has not yet run for
    /// [`HOLD_LIMIT`] (one that runs longer may be waiting for the program itself).
    pub fn will_run(&self, task: u64) -> bool {
        self.calls.get(&task).is_some_and(|c| {
            if c.taken {
                c.held()
            } else {
                self.has_taker(c.channel) && !self.unserved.contains(&(c.channel, c.stream))
            }
        })
    }

    /// A thread waits to take a call of `channel` (`ready`), or stopped waiting.
    pub fn set_ready(&mut self, channel: u64, ready: bool) {
        let n = self.ready.entry(channel).or_default();
        if ready {
            *n += 1;
        } else {
            *n = n.saturating_sub(1);
        }
    }

    /// True when a host thread other than the calling one is running a call that holds the
    /// clock now (taken less than [`HOLD_LIMIT`] ago).
    pub fn holding_elsewhere(&self) -> bool {
        let me = crate::facade::caller_key();
        self.calls
            .values()
            .any(|c| c.blocking && c.held() && c.taker != Some(me))
    }

    /// True when a host thread other than the calling one is running a call now. The calling
    /// thread, if it runs one, is waiting for the device instead: that call cannot return
    /// while this wait lasts.
    pub fn running_elsewhere(&self) -> bool {
        let me = crate::facade::caller_key();
        self.calls.values().any(|c| c.taken && c.taker != Some(me))
    }

    /// Forgets the calls of a stream that is gone, or whose queue was dropped; returns them.
    pub fn drop_stream(&mut self, stream: u64) -> Vec<DueHostCall> {
        let gone: Vec<u64> = self
            .calls
            .values()
            .filter(|c| c.stream == stream)
            .map(|c| c.task)
            .collect();
        gone.iter().filter_map(|c| self.calls.remove(c)).collect()
    }

    /// Names the thread of `channel` (for explanations).
    pub fn name_channel(&mut self, channel: u64, name: String) {
        self.names.insert(channel, name);
    }

    /// Records whether the thread of `channel` serves `stream`'s calls.
    pub fn set_served(&mut self, channel: u64, stream: u64, served: bool) {
        if served {
            self.unserved.remove(&(channel, stream));
        } else {
            self.unserved.insert((channel, stream));
        }
    }

    /// The name of `channel`'s thread, and whether it stopped serving `stream`.
    pub fn channel_of(&self, channel: u64, stream: u64) -> (Option<&str>, bool) {
        (
            self.names.get(&channel).map(String::as_str),
            self.unserved.contains(&(channel, stream)),
        )
    }

    /// Every outstanding call, earliest first.
    pub fn outstanding(&self) -> impl Iterator<Item = &DueHostCall> {
        self.calls.values()
    }
}
