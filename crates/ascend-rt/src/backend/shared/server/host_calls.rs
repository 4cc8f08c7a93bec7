//! Host functions and callbacks of the service's processes (`aclrtLaunchHostFunc`,
//! `aclrtLaunchCallback`): a function is the process's code, so the process keeps it by a
//! number of its own and the service puts a host call of its own number on the stream, on a
//! channel of the process's thread; the process's thread asks for its next due call
//! ([`Request::NextHostCall`](super::Request::NextHostCall)), runs the function, and says it
//! returned. Calls the simulator drops without running go back to their process when it asks
//! (after a call that may drop some, and with its next launch), so that it releases their
//! functions.

use std::collections::HashMap;
use std::time::Duration;

use super::wire::{DueCall, WireHostThread};
use super::{Answer, DeviceService, Reply};
use crate::backend::host_call_table::{UndrivenHostCall, SERVICE_CALLS_FROM};
use crate::backend::StreamId;
use ascend_sim::{HostCall, Sim};

/// The service's books of its processes' host calls.
#[derive(Debug, Default)]
pub(super) struct HostCallBooks {
    /// The last call number given out, from [`SERVICE_CALLS_FROM`].
    last_call: u64,
    /// Channels given out.
    channels_made: u64,
    /// The service's call number: the process (token) and the process's number for it.
    calls: HashMap<u64, (u64, u64)>,
    /// The channel of each process's thread.
    channels: HashMap<(u64, WireHostThread), u64>,
    /// Per process, its calls dropped without running that it has not been told of.
    dropped: HashMap<u64, Vec<u64>>,
    /// Per process, whether its runtime thread's calls wait while nothing drives the device.
    undriven: HashMap<u64, UndrivenHostCall>,
}

impl HostCallBooks {
    /// Takes the simulator's dropped calls of the service's numbering to their processes.
    fn sort_dropped(&mut self, sim: &Sim) {
        for c in sim.take_dropped_host_calls_in(SERVICE_CALLS_FROM..u64::MAX) {
            if let Some((token, call)) = self.calls.remove(&c) {
                self.dropped.entry(token).or_default().push(call);
            }
        }
    }
}

impl DeviceService {
    fn host_call_books(&self) -> std::sync::MutexGuard<'_, HostCallBooks> {
        self.host_calls.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The channel of `token`'s `thread`, named after it when new.
    fn channel(&self, sim: &Sim, token: u64, thread: WireHostThread) -> u64 {
        let mut b = self.host_call_books();
        if let Some(&ch) = b.channels.get(&(token, thread)) {
            return ch;
        }
        // Channel 0 is the backend's own runtime thread.
        b.channels_made += 1;
        let ch = b.channels_made;
        b.channels.insert((token, thread), ch);
        drop(b);
        let name = self.process_name(token);
        let thread = match thread {
            WireHostThread::Runtime => "the runtime's host-function thread".to_string(),
            WireHostThread::Reports(t) => format!("report thread {t}"),
            WireHostThread::HostFuncs(t) => format!("host-function thread {t}"),
        };
        sim.name_host_channel(ch, format!("{thread} of {name}"));
        ch
    }

    /// Puts `token`'s host call `call` on `stream`; answers the process's calls dropped since
    /// it last heard.
    pub(super) fn launch_host_call(
        &self,
        token: u64,
        stream: u64,
        call: u64,
        thread: WireHostThread,
        blocking: bool,
    ) -> Answer {
        let sim = self.simulator("host calls")?;
        let channel = self.channel(sim, token, thread);
        let number = {
            let mut b = self.host_call_books();
            b.last_call = b.last_call.max(SERVICE_CALLS_FROM) + 1;
            let n = b.last_call;
            b.calls.insert(n, (token, call));
            n
        };
        let task = HostCall {
            call: number,
            channel,
            blocking,
        };
        let host_ns = self.backend.chip().timing.host_launch_ns;
        match sim.submit_host_call_after(StreamId(stream), task, host_ns) {
            Ok(t) => self.note_process(token, t.0),
            Err(e) => {
                self.host_call_books().calls.remove(&number);
                return Err(crate::backend::sim::m(e));
            }
        }
        self.dropped_host_calls(token)
    }

    /// `token`'s host calls dropped without running since it last heard.
    pub(super) fn dropped_host_calls(&self, token: u64) -> Answer {
        let sim = self.simulator("host calls")?;
        let mut b = self.host_call_books();
        b.sort_dropped(sim);
        Ok(Reply::Calls(b.dropped.remove(&token).unwrap_or_default()))
    }

    /// The next host call due for `token`'s `thread`, in the process's numbering.
    pub(super) fn next_host_call(
        &self,
        token: u64,
        thread: WireHostThread,
        timeout_ms: Option<u64>,
        wall_ms: u64,
    ) -> Answer {
        let sim = self.simulator("host calls")?;
        let channel = self.channel(sim, token, thread);
        let due = if thread == WireHostThread::Runtime {
            // The runtime's thread waits without driving the device, and its waiting is not
            // the program's.
            ascend_sim::service_thread(true);
            let due = sim.wait_host_call(channel, Duration::from_millis(wall_ms));
            ascend_sim::service_thread(false);
            due
        } else {
            sim.next_host_call(channel, timeout_ms)
                .map_err(crate::backend::sim::m)?
        };
        let Some(due) = due else {
            // The runtime's thread waits in turns: between them, the process is told once when
            // a call of its waits in a queue and nothing drives the device.
            let warning = (thread == WireHostThread::Runtime)
                .then(|| {
                    let mut b = self.host_call_books();
                    b.undriven.entry(token).or_default().check(sim, channel)
                })
                .flatten();
            return Ok(Reply::HostCall { due: None, warning });
        };
        let mut b = self.host_call_books();
        let known = if due.repeats {
            b.calls.get(&due.call).copied()
        } else {
            b.calls.remove(&due.call)
        };
        drop(b);
        match known {
            Some((owner, call)) if owner == token => Ok(Reply::HostCall {
                due: Some(DueCall {
                    call,
                    task: due.task,
                    repeats: due.repeats,
                }),
                warning: None,
            }),
            // Not this process's (it cannot be: a channel is one process's): let it go on.
            _ => {
                sim.finish_host_call(due.task);
                Ok(Reply::HostCall {
                    due: None,
                    warning: None,
                })
            }
        }
    }

    /// `token`'s thread returned from the host call that `task` reached.
    pub(super) fn finish_host_call(&self, task: u64, thread: WireHostThread) -> Answer {
        let sim = self.simulator("host calls")?;
        let runtime = thread == WireHostThread::Runtime;
        ascend_sim::service_thread(runtime);
        sim.finish_host_call(task);
        ascend_sim::service_thread(false);
        Ok(Reply::Unit)
    }

    /// `token`'s report thread `thread` serves `stream`'s callbacks, or no longer does.
    pub(super) fn subscribe_reports(
        &self,
        token: u64,
        thread: u64,
        stream: u64,
        subscribe: bool,
    ) -> Answer {
        let sim = self.simulator("host calls")?;
        let channel = self.channel(sim, token, WireHostThread::Reports(thread));
        sim.set_host_channel_serves(channel, StreamId(stream), subscribe);
        Ok(Reply::Unit)
    }

    /// A process has gone: its host calls' books go (its streams, destroyed by force, dropped
    /// what they held).
    pub(super) fn forget_host_calls(&self, token: u64) {
        let mut b = self.host_call_books();
        b.calls.retain(|_, (owner, _)| *owner != token);
        b.channels.retain(|(owner, _), _| *owner != token);
        b.dropped.remove(&token);
        b.undriven.remove(&token);
    }
}
