//! Host calls on a stream: the stream reaches one, a host thread runs it, the stream goes on.

use crate::engine::{DueHostCall, Engine};
use crate::stream::Head;
use crate::types::HostCall;

impl Engine {
    /// The stream `s` reached host call `call`: it becomes due for `channel`'s thread. A
    /// blocking call holds the stream (and, while a thread runs it or is ready to, the clock:
    /// [`crate::engine::HostCalls::clock_stop`]) until [`Engine::finish_host_call`];
    /// a non-blocking one completes at once. `repeats`: the task is a model run's copy.
    pub(super) fn dispatch_host_call(&mut self, s: u64, task: u64, call: HostCall, repeats: bool) {
        let HostCall {
            call,
            channel,
            blocking,
        } = call;
        if self.races.on {
            self.races.host_call_due(s, task);
        }
        self.host_calls.insert(DueHostCall {
            task,
            call,
            stream: s,
            channel,
            blocking,
            due_ns: self.now,
            taken: false,
            taker: None,
            taken_at: None,
            repeats,
        });
        self.effects += 1;
        if blocking {
            self.streams.get_mut(&s).expect("stream").head = Head::HostCall(task);
        } else {
            let ns = self.chip.timing.event_ns;
            self.run_for(s, ns);
        }
    }

    /// A host thread returned from the call task `task` reached: a blocking call's stream
    /// goes on after the round trip to the host and back (twice the chip's host
    /// synchronisation time). False when the call is not outstanding (its stream was
    /// destroyed meanwhile, or it was finished).
    pub fn finish_host_call(&mut self, task: u64) -> bool {
        let Some(due) = self.host_calls.finish(task) else {
            return false;
        };
        if self.races.on {
            self.races.host_call_gone(task);
        }
        self.effects += 1;
        self.progress += 1;
        if due.blocking && self.races.on {
            // The stream goes on after what the host thread did in the call.
            self.races
                .stream_saw_host(due.stream, crate::facade::caller_key());
        }
        if due.blocking {
            let held = self
                .streams
                .get(&due.stream)
                .is_some_and(|st| matches!(st.head, Head::HostCall(t) if t == task));
            if held {
                // A seeded schedule makes the return slower some of the time.
                let lag = self.schedule.as_mut().map_or(0, |sch| sch.host_lag());
                let ns = self
                    .chip
                    .timing
                    .host_sync_ns
                    .saturating_mul(2)
                    .saturating_add(lag);
                self.run_for(due.stream, ns);
            }
        }
        true
    }
}

impl Engine {
    /// The calling host thread takes the earliest due host call of `channel` to run it: the
    /// call runs after what its stream did before reaching it.
    pub(crate) fn take_host_call(&mut self, channel: u64) -> Option<DueHostCall> {
        let c = self.host_calls.take(channel)?;
        if self.races.on {
            self.races
                .host_call_taken(crate::facade::caller_key(), c.task);
        }
        Some(c)
    }

    /// What a stream held at the host call task `task` reached waits for, for the watchdog.
    pub(crate) fn describe_host_call(&self, task: u64) -> String {
        let Some(c) = self.host_calls.outstanding().find(|c| c.task == task) else {
            return format!("the host call of task {task}, finished");
        };
        let call = c.call;
        let (name, unserved) = self.host_calls.channel_of(c.channel, c.stream);
        let name = match (c.channel, name) {
            (0, _) => "the runtime's host-function thread".to_string(),
            (ch, name) => name.map_or_else(|| format!("host thread {ch}"), str::to_string),
        };
        let who = if c.channel == 0 {
            name.clone()
        } else {
            format!(
                "{name} (subscribed to the stream: it runs the call when it calls \
                 aclrtProcessReport or aclrtProcessHostFunc)"
            )
        };
        if unserved && !c.taken {
            return format!(
                "host call {call}, due at {} ns: launched for {name}, which no longer serves \
                 this stream (it was unsubscribed with the call pending): no thread will run \
                 it, so the stream waits at {} ns for ever",
                c.due_ns, c.due_ns
            );
        }
        if c.taken && c.taker == Some(crate::facade::caller_key()) {
            format!(
                "host call {call}, due at {} ns: {name} is running it and, from inside it, \
                 waits on the device for work that cannot finish before the call returns (work \
                 behind the call on its own stream, or another call only this same thread can \
                 run): a host function must not wait for work that needs its own stream or \
                 thread",
                c.due_ns
            )
        } else if c.taken {
            format!(
                "host call {call}, due at {} ns: {who} is running it and has not returned; \
                 its stream waits until it does (a host function must not wait for the device)",
                c.due_ns
            )
        } else {
            format!(
                "host call {call}, due at {} ns: waiting for {who} to take it; its stream \
                 waits until the call has run",
                c.due_ns
            )
        }
    }
}
