//! Event, notify and model-run tasks: event records (and the record numbers waits wait
//! for), event resets and waits, notify records and waits (with their own timeouts), and the
//! runs of model instances with the stream that waits for each.

use crate::engine::{Engine, Ev};
use crate::stream::{Head, Work};
use crate::types::Task;

impl Engine {
    /// `execute_model_async`'s marker task reaches the scheduler: spawn the instance and wait
    /// for it (or complete at once if it has no task).
    pub(super) fn dispatch_model_run(&mut self, s: u64, model: u64) {
        let marker = self
            .streams
            .get(&s)
            .and_then(|st| st.queue.front())
            .map(|t| t.id);
        let numbering = marker.and_then(|t| self.run_numbering.remove(&t));
        let i = self.spawn_instance(model, Some(s), numbering);
        if self.instances.get(&i).is_some_and(|x| x.remaining == 0) {
            self.instances.remove(&i);
            self.run_for(s, 0);
        } else if self.streams.contains_key(&s) {
            self.streams.get_mut(&s).expect("stream").head = Head::WaitModel(i);
        }
    }

    /// An event wait reaches the scheduler: pass if the record it waits for (`event_seq`) is
    /// done, else block on event `e`.
    pub(super) fn dispatch_event_wait(&mut self, s: u64, e: u64, event_seq: Option<u64>) {
        let ready = match (event_seq, self.events.get(&e)) {
            (Some(seq), Some(ev)) => ev.done(seq),
            _ => true,
        };
        if ready {
            self.run_for(s, self.chip.timing.event_ns);
        } else {
            self.streams.get_mut(&s).expect("stream").head = Head::WaitEvent;
            self.add_event_waiter(e, s);
        }
    }

    /// Record `seq` of event `e` executed at `at` (or was dropped, `None`): wake its waiters.
    pub(crate) fn record_done(&mut self, e: u64, seq: u64, at: Option<u64>) {
        let Some(ev) = self.events.get_mut(&e) else {
            return;
        };
        ev.pending.remove(&seq);
        if let Some(t) = at {
            if ev.executed.is_none_or(|(x, _)| x <= seq) {
                ev.executed = Some((seq, t));
            }
        }
        self.wake_event_waiters(e);
        // A destroyed event goes once its last pending record is settled.
        if self
            .events
            .get(&e)
            .is_some_and(|ev| ev.destroyed && ev.pending.is_empty())
        {
            self.races.event_destroyed(e);
            self.events.remove(&e);
        }
    }

    /// An event reset executed: the event has no executed record any more.
    pub(super) fn event_reset(&mut self, e: u64) {
        if let Some(ev) = self.events.get_mut(&e) {
            ev.executed = None;
        }
    }

    /// A notify wait reaches the scheduler: consume a set notify at once, or block (with the
    /// wait's own timeout scheduled, if it has one).
    pub(super) fn dispatch_notify_wait(
        &mut self,
        s: u64,
        task: u64,
        n: u64,
        timeout_ms: Option<u64>,
    ) {
        let event_ns = self.chip.timing.event_ns;
        if let Some(x) = self.notifies.get_mut(&n).filter(|x| x.set) {
            x.set = false;
            self.run_for(s, event_ns);
            return;
        }
        let gen = self.gen(s);
        self.streams.get_mut(&s).expect("stream").head = Head::WaitNotify;
        self.add_notify_waiter(n, s);
        // A timeout ending beyond the simulator's horizon is no timeout.
        if let Some(at) = timeout_ms.and_then(|ms| crate::engine::deadline_after(self.now, ms)) {
            self.schedule(at, Ev::NotifyTimeout { s, gen, task });
        }
    }

    /// A notify record executed: set the notify and release one waiter (the lowest stream
    /// number), which consumes it.
    pub(super) fn notify_set(&mut self, n: u64) {
        let Some(x) = self.notifies.get_mut(&n) else {
            return;
        };
        x.set = true;
        if let Some(s) = self.take_notify_waiter(n) {
            if let Some(x) = self.notifies.get_mut(&n) {
                x.set = false;
            }
            let event_ns = self.chip.timing.event_ns;
            self.run_for(s, event_ns);
        }
    }

    /// A blocked notify wait's timeout expired: the task completes with a timeout fault.
    pub(super) fn on_notify_timeout(&mut self, s: u64) {
        let front = self.streams[&s].queue.front().expect("a head task");
        let id = front.id;
        let Work::User(Task::NotifyWait { notify, timeout_ms }) = front.work else {
            return;
        };
        self.remove_notify_waiter(notify.0, s);
        let msg = format!(
            "task {id}: notify wait on notify {} timed out after {} ms",
            notify.0,
            timeout_ms.unwrap_or(0)
        );
        self.complete_with(s, Some(msg), crate::types::FaultClass::Timeout);
    }

    /// A task of instance `i` completed (or was dropped).
    pub(crate) fn instance_task_done(&mut self, i: u64) {
        let Some(inst) = self.instances.get_mut(&i) else {
            return;
        };
        inst.remaining = inst.remaining.saturating_sub(1);
        if inst.remaining == 0 {
            let run_stream = inst.run_stream;
            if let (true, Some(rs)) = (self.races.on, run_stream) {
                self.races
                    .instance_joined(i, crate::races::AgentKey::Stream(rs));
            }
            let inst = self.instances.get_mut(&i).expect("present");
            if inst.abandoned {
                self.races.instance_forgotten(i);
                self.instances.remove(&i);
            } else if let Some(rs) = inst.run_stream {
                let fault = self.instances.remove(&i).and_then(|x| x.fault);
                // The run's fault belongs to the stream it ran on: its synchronize reports it.
                if let (Some((f, class)), Some(st)) = (fault, self.streams.get_mut(&rs)) {
                    if st.fault.is_none() {
                        st.fault = Some(f);
                        st.fault_class = class;
                    }
                }
                let waiting = self
                    .streams
                    .get(&rs)
                    .is_some_and(|st| matches!(st.head, Head::WaitModel(x) if x == i));
                if waiting {
                    self.run_for(rs, 0);
                }
            }
        }
    }
}
