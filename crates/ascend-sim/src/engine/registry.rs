//! The device-side object registries: creating, looking up and removing streams, events,
//! notifies and models, and the counters that number them (and tasks and event records).

use super::Engine;
use crate::objects::{Event, Model, Notify};
use crate::stream::{Head, Stream, Work};
use crate::types::{CmoType, SimError, Task};

impl Engine {
    /// A fresh task number.
    pub fn new_task_id(&mut self) -> u64 {
        self.next_task += 1;
        self.next_task
    }

    /// Checks a device number.
    pub fn check_device(&self, device: u32) -> Result<(), SimError> {
        if device < self.chip.limits.device_count.max(1) {
            Ok(())
        } else {
            Err(SimError::Unknown {
                kind: "device",
                id: device as u64,
            })
        }
    }

    /// The stream `s`, or `Unknown`.
    pub fn stream(&self, s: u64) -> Result<&Stream, SimError> {
        self.streams.get(&s).ok_or(SimError::Unknown {
            kind: "stream",
            id: s,
        })
    }

    /// The live event `e`, or `Unknown`.
    pub fn event(&self, e: u64) -> Result<&Event, SimError> {
        self.events
            .get(&e)
            .filter(|ev| !ev.destroyed)
            .ok_or(SimError::Unknown {
                kind: "event",
                id: e,
            })
    }

    /// The live notify `n`, or `Unknown`.
    pub fn notify(&self, n: u64) -> Result<&Notify, SimError> {
        self.notifies.get(&n).ok_or(SimError::Unknown {
            kind: "notify",
            id: n,
        })
    }

    /// Creates a notify.
    pub fn create_notify(&mut self) -> u64 {
        let id = self.next_notify;
        self.next_notify += 1;
        self.notifies.insert(id, Notify::default());
        id
    }

    /// The live model `m`, or `Unknown`.
    pub fn model(&self, m: u64) -> Result<&Model, SimError> {
        self.models.get(&m).ok_or(SimError::Unknown {
            kind: "model",
            id: m,
        })
    }

    /// Creates a stream.
    pub fn create_stream(&mut self, device: u32, priority: u32, persistent: bool) -> u64 {
        let id = self.next_stream;
        self.next_stream += 1;
        self.streams
            .insert(id, Stream::new(device, priority, persistent));
        id
    }

    /// Creates an event.
    pub fn create_event(&mut self) -> u64 {
        let id = self.next_event;
        self.next_event += 1;
        self.events.insert(id, Event::default());
        id
    }

    /// Creates a model.
    pub fn create_model(&mut self) -> u64 {
        let id = self.next_model;
        self.next_model += 1;
        self.models.insert(id, Model::default());
        id
    }

    /// A new record number for event `e` (the host submitted a record).
    pub fn new_record(&mut self, e: u64) -> Option<u64> {
        let seq = self.next_record;
        let ev = self.events.get_mut(&e)?;
        self.next_record += 1;
        ev.latest = Some(seq);
        ev.pending.insert(seq);
        Some(seq)
    }

    /// Drops every task of a stream (force destroy), settling the bookkeeping they hold.
    pub fn drop_stream(&mut self, s: u64) {
        let Some(st) = self.streams.remove(&s) else {
            return;
        };
        if !st.idle() {
            self.note_stream_busy(st.device, false);
        }
        let limit = self.config.max_timeline_entries;
        self.report.keep_destroyed_stream(s, &st, limit);
        if !st.queue.is_empty() {
            const KEEP: usize = 1024;
            if self.dropped_with_work.len() == KEEP {
                self.dropped_with_work.pop_front();
            }
            let ids = st.queue.iter().map(|t| t.id).collect();
            self.dropped_with_work.push_back((s, ids));
        }
        let head_dispatched = matches!(st.head, Head::CopySetup { .. } | Head::Copying { .. });
        self.cancel_head(s, &st);
        self.note_discarded(s, &st);
        self.settle_dropped(&st, head_dispatched);
        if let Some(m) = st.model.and_then(|m| self.models.get_mut(&m)) {
            m.streams.retain(|&x| x != s);
        }
        self.note_recorded_dropped(&st.recorded);
        if self.races.on {
            self.races.stream_gone(s);
        }
        self.progress += 1;
    }

    /// Forgets what stream `s` recorded for its model (it was unbound, rebound or its model
    /// destroyed): the host calls among them are released.
    pub fn clear_recorded(&mut self, s: u64) {
        let Some(st) = self.streams.get_mut(&s) else {
            return;
        };
        let recorded = std::mem::take(&mut st.recorded);
        st.recorded_slots = 0;
        self.note_recorded_dropped(&recorded);
    }

    /// Host calls of a model's recording go with it: each is released once no copy of a run
    /// is left queued or due ([`Engine::take_released_host_calls`]).
    fn note_recorded_dropped(&mut self, recorded: &[(Work, u32, u64)]) {
        self.retired_host_calls
            .extend(recorded.iter().filter_map(|(w, _, _)| match w {
                Work::HostCall(h) => Some(h.call),
                _ => None,
            }));
    }

    /// The host calls numbered in `numbers` whose functions may go now: those dropped without
    /// running, and those of a recording that is gone once no run's copy of them is queued or
    /// due. Calls of other numbers stay for whoever numbered them.
    pub fn take_released_host_calls(&mut self, numbers: &std::ops::Range<u64>) -> Vec<u64> {
        if !self.retired_host_calls.is_empty() {
            let mut live = std::collections::HashSet::new();
            for st in self.streams.values() {
                for t in &st.queue {
                    if let Work::HostCall(h) = &t.work {
                        live.insert(h.call);
                    }
                }
            }
            live.extend(self.host_calls.outstanding().map(|c| c.call));
            let (keep, go): (Vec<u64>, Vec<u64>) = std::mem::take(&mut self.retired_host_calls)
                .into_iter()
                .partition(|c| live.contains(c));
            self.retired_host_calls = keep;
            self.dropped_host_calls.extend(go);
        }
        let (taken, left) = std::mem::take(&mut self.dropped_host_calls)
            .into_iter()
            .partition(|c| numbers.contains(c));
        self.dropped_host_calls = left;
        taken
    }

    /// Settles the bookkeeping the queued tasks of a stream hold when they are dropped without
    /// running: a dispatched INVALID's barrier count, event records (force-triggered, so that
    /// waiters go on), model instances.
    /// Lists the tasks of stream `s` that are discarded without running, in the run report.
    fn note_discarded(&mut self, s: u64, st: &Stream) {
        let limit = self.config.max_timeline_entries;
        for t in &st.queue {
            let record = crate::report::DiscardedTask {
                task: t.id,
                stream: s,
                kind: crate::stream::work_name(&t.work).into(),
                submit_ns: t.submit_ns,
                at_ns: self.now,
            };
            self.report.discarded.push(limit, record);
        }
    }

    fn settle_dropped(&mut self, st: &Stream, head_dispatched: bool) {
        for (i, t) in st.queue.iter().enumerate() {
            if let Work::User(Task::CmoWithBarrier {
                op: CmoType::Invalid,
                barrier_id,
                ..
            }) = &t.work
            {
                if i == 0 && head_dispatched {
                    self.barrier_done(t.model, *barrier_id, st.device);
                }
            }
            if let (Work::User(Task::EventRecord(e)), Some(seq)) = (&t.work, t.event_seq) {
                self.record_done(e.0, seq, None);
            }
            if matches!(t.work, Work::ModelRun(_)) {
                self.drop_run_numbering(t.id);
            }
            if let (true, Work::User(Task::EventWait(e)), Some(seq)) =
                (self.races.on, &t.work, t.event_seq)
            {
                self.races.event_wait_gone(e.0, seq);
            }
        }
        // A model run's copy of a host call is not the call's last: the model keeps it.
        self.dropped_host_calls
            .extend(st.queue.iter().filter_map(|t| match &t.work {
                Work::HostCall(h) if t.instance.is_none() => Some(h.call),
                _ => None,
            }));
        let instances: Vec<u64> = st.queue.iter().filter_map(|t| t.instance).collect();
        for i in instances {
            self.instance_task_done(i);
        }
    }

    /// Takes stream `s` out of its slot (a placeholder stays, so the table keeps its numbering)
    /// for work that needs the stream and the engine at once; [`Engine::put_back`] returns it.
    fn take_out(&mut self, s: u64) -> Option<Stream> {
        let slot = self.streams.get_mut(&s)?;
        let placeholder = Stream::new(slot.device, slot.priority, slot.persistent);
        Some(std::mem::replace(slot, placeholder))
    }

    fn put_back(&mut self, s: u64, st: Stream) {
        if let Some(slot) = self.streams.get_mut(&s) {
            *slot = st;
        }
    }

    /// Cancels what the head of `st` (stream `s`, out of its slot) is doing.
    fn cancel_head(&mut self, s: u64, st: &Stream) {
        if let (Head::Kernel, Some(t)) = (&st.head, st.queue.front()) {
            self.cancel_kernel(t.id);
        }
        self.cancel_copy(st);
        let dropped = self.host_calls.drop_stream(s);
        for c in &dropped {
            self.races.host_call_gone(c.task);
        }
        self.dropped_host_calls
            .extend(dropped.into_iter().filter(|c| !c.repeats).map(|c| c.call));
        self.forget_waiter(s, &st.head);
    }

    /// Cancels what the head task of `s` is doing and completes it with fault `why`; the
    /// stream goes on with its next task.
    pub fn stop_head(&mut self, s: u64, why: &str) {
        let Some(mut st) = self.take_out(s) else {
            return;
        };
        self.cancel_head(s, &st);
        let id = st.queue.front().map_or(0, |t| t.id);
        st.gen += 1;
        self.put_back(s, st);
        self.complete(s, Some(format!("task {id}: {why}")));
    }

    /// Skips the first `n` tasks of stream `s` (its head among them, cancelled), settling their
    /// bookkeeping, and goes on with the next: a label switch's jump.
    pub fn skip_tasks(&mut self, s: u64, n: usize) {
        let Some(mut st) = self.take_out(s) else {
            return;
        };
        let head_dispatched = matches!(st.head, Head::CopySetup { .. } | Head::Copying { .. });
        self.cancel_head(s, &st);
        let skipped: std::collections::VecDeque<_> =
            st.queue.drain(..n.min(st.queue.len())).collect();
        let gone = Stream {
            queue: skipped,
            ..Stream::new(st.device, st.priority, st.persistent)
        };
        self.settle_dropped(&gone, head_dispatched);
        st.slots_used = st.queue.iter().map(|t| t.slots).sum();
        st.head = Head::Idle;
        st.gen += 1;
        let (more, device) = (!st.queue.is_empty(), st.device);
        self.put_back(s, st);
        self.effects += 1;
        self.progress += 1;
        if more {
            self.start_head(s);
        } else {
            self.note_stream_busy(device, false);
        }
    }

    /// Discards every task of stream `s`, cancelling what its head is doing and settling their
    /// bookkeeping; the stream stays, idle. For a stream aborted (`aclrtStreamAbort`) or
    /// stopped after a failure.
    pub fn discard_tasks(&mut self, s: u64) {
        let Some(mut st) = self.take_out(s) else {
            return;
        };
        let was_busy = !st.idle();
        let head_dispatched = matches!(st.head, Head::CopySetup { .. } | Head::Copying { .. });
        self.cancel_head(s, &st);
        self.note_discarded(s, &st);
        self.settle_dropped(&st, head_dispatched);
        st.queue.clear();
        st.slots_used = 0;
        st.head = Head::Idle;
        st.gen += 1;
        let device = st.device;
        self.put_back(s, st);
        if was_busy {
            self.note_stream_busy(device, false);
        }
        self.effects += 1;
        self.progress += 1;
    }
}
