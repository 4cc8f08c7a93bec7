//! Task execution: what each task kind does when the scheduler dispatches it, how long it
//! takes, and what its completion changes (memory, events, barrier counters, instances).
//!
//! This file owns the routing of scheduled events to their handlers, the head task's way
//! through the task scheduler, and completion (with faults). Each task family's own work is
//! in `copy` (memcpy, memset and the copy-engine pools), `cmo` (CMOs, barriers and CMO
//! descriptors), `value` (value write and value wait) and `sync_objects` (events, notifies
//! and model runs).

mod cmo;
mod copy;
mod core_hazards;
mod host_call;
mod kernel;
mod labels;
mod random_task;
mod sync_objects;
mod value;

pub(crate) use value::PassClock;

use crate::engine::{Engine, Ev};
use crate::report::Hazard;
use crate::report::Span;
use crate::stream::{work_name, Head, Work};
use crate::types::Task;
use crate::types::{HazardAction, HazardKind};

impl Engine {
    /// Dispatches one event.
    pub(crate) fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::PoolNext { dev, engine, gen } => {
                if self.pools[dev as usize][engine].gen == gen {
                    self.pool_next(dev, engine);
                }
            }
            Ev::Dispatched { s, gen } => {
                if self.head_is(s, gen, |h| matches!(h, Head::Dispatching)) {
                    self.on_dispatched(s);
                }
            }
            Ev::Complete { s, gen } => {
                if self.head_is(s, gen, |h| matches!(h, Head::Running)) {
                    self.on_complete(s);
                }
            }
            Ev::Poll { s, gen, check } => {
                if self.head_is(
                    s,
                    gen,
                    |h| matches!(h, Head::Wait(w) if w.check_gen == check),
                ) {
                    self.on_poll(s);
                }
            }
            Ev::NotifyTimeout { s, gen, task } => {
                let waiting = self.head_is(s, gen, |h| matches!(h, Head::WaitNotify))
                    && self.streams[&s].queue.front().is_some_and(|t| t.id == task);
                if waiting {
                    self.on_notify_timeout(s);
                }
            }
            Ev::KernelPlace { dev } => self.place_blocks(dev as usize),
            Ev::InvisibleCheck { addr, len } => self.on_invisible_check(addr, len),
            Ev::FillCheck(fill) => self.on_fill_check(fill),
            // Only the core thread takes a block's step (`Engine::begin_kernel_turn`).
            Ev::KernelStep { .. } => {}
            Ev::SetupDone { s, gen } => {
                if self.head_is(s, gen, |h| matches!(h, Head::CopySetup { .. })) {
                    self.on_setup_done(s);
                }
            }
        }
    }

    fn head_is(&self, s: u64, gen: u64, f: impl Fn(&Head) -> bool) -> bool {
        self.streams
            .get(&s)
            .is_some_and(|st| st.gen == gen && f(&st.head))
    }

    fn gen(&self, s: u64) -> u64 {
        self.streams[&s].gen
    }

    fn head_work(&self, s: u64) -> (u64, Work, Option<u64>, Option<u64>) {
        let t = self.streams[&s].queue.front().expect("a head task");
        (t.id, t.work.clone(), t.model, t.event_seq)
    }

    /// The head task of `s` goes to the scheduler.
    pub(crate) fn start_head(&mut self, s: u64) {
        if self.streams.get(&s).is_some_and(|st| st.stopped) {
            self.discard_tasks(s);
            return;
        }
        if self.races.on {
            let after = self
                .streams
                .get(&s)
                .and_then(|st| st.queue.front())
                .and_then(|t| t.after.clone());
            self.races.task_started(s, after.as_ref());
        }
        let d = self.chip.timing.sqe_dispatch_ns;
        let now = self.now;
        let fixed = self.fixed_duration_of_head(s);
        let st = self.streams.get_mut(&s).expect("stream");
        let dev = st.device as usize;
        let start = now.max(self.sched_free[dev]);
        st.head_start = start;
        let gen = st.gen;
        self.sched_free[dev] = start.saturating_add(d);
        self.sched_stats[dev].0 += 1;
        self.sched_stats[dev].1 = self.sched_stats[dev].1.saturating_add(d);
        tracing::trace!(stream = s, at_ns = start, "dispatch");
        // A seeded schedule holds this stream's dispatch back (the scheduler itself is not).
        let lag = self.schedule.as_mut().map_or(0, |sch| sch.lag(s));
        let dispatched = start.saturating_add(d).saturating_add(lag);
        match fixed {
            // A task whose dispatch does nothing but start a fixed time: one event, its end.
            Some(ns) => {
                st.head = Head::Running;
                self.schedule(dispatched.saturating_add(ns), Ev::Complete { s, gen });
            }
            None => {
                st.head = Head::Dispatching;
                self.schedule(dispatched, Ev::Dispatched { s, gen });
            }
        }
    }

    /// How long the head task of `s` runs once dispatched, for the kinds whose dispatch does
    /// nothing else (see [`Engine::on_dispatched`]); `None` for the others.
    fn fixed_duration_of_head(&self, s: u64) -> Option<u64> {
        let task = self.streams.get(&s)?.queue.front()?;
        match &task.work {
            Work::User(kind) => fixed_duration(kind, &self.chip.timing),
            Work::ModelRun(_) | Work::HostCall(_) => None,
        }
    }

    /// The head task of `s` runs for `ns` and then completes.
    pub(crate) fn run_for(&mut self, s: u64, ns: u64) {
        let gen = self.gen(s);
        self.streams.get_mut(&s).expect("stream").head = Head::Running;
        let at = self.now.saturating_add(ns);
        self.schedule(at, Ev::Complete { s, gen });
    }

    fn on_dispatched(&mut self, s: u64) {
        // The waits, the commonest kinds here, need only copies of their fields.
        let front = self.streams[&s].queue.front().expect("a head task");
        match front.work {
            Work::User(Task::ValueWait { addr, .. }) => return self.dispatch_value_wait(s, addr),
            Work::User(Task::EventWait(e)) => {
                let seq = front.event_seq;
                return self.dispatch_event_wait(s, e.0, seq);
            }
            _ => {}
        }
        let (id, work, model, _) = self.head_work(s);
        let t = self.chip.timing;
        let kind = match work {
            Work::ModelRun(m) => {
                self.dispatch_model_run(s, m.0);
                return;
            }
            Work::HostCall(h) => {
                self.dispatch_host_call(s, id, h, model.is_some());
                return;
            }
            Work::User(k) => k,
        };
        if let Some(ns) = fixed_duration(&kind, &t) {
            // Not reached today: `start_head` starts these as one event, their end. Kept so that
            // a head dispatched by any other path still completes.
            self.run_for(s, ns);
            return;
        }
        match kind {
            Task::ValueWrite { .. }
            | Task::EventRecord(_)
            | Task::EventReset(_)
            | Task::NotifyRecord(_)
            | Task::RandomNum(_)
            | Task::LabelSet { .. }
            | Task::LabelSwitch { .. }
            // Dispatched above, without a copy of the task.
            | Task::EventWait(_)
            | Task::ValueWait { .. } => {}
            Task::NotifyWait { notify, timeout_ms } => {
                self.dispatch_notify_wait(s, id, notify.0, timeout_ms)
            }
            Task::CmoWaitBarrier { barrier_ids } => {
                self.dispatch_barrier_wait(s, model, &barrier_ids)
            }
            // Transfers check their ranges when dispatched (and again when they finish, in
            // case memory was freed meanwhile): a bad range faults at once, so no transfer is
            // ever sized by a length that no memory backs.
            Task::Memcpy { dst, src, len } => self.dispatch_memcpy(s, id, &dst, &src, len),
            Task::Memset { addr, len, .. } => self.dispatch_memset(s, id, addr, len),
            Task::Reduce { dst, src, len, .. } => self.dispatch_reduce(s, id, dst, src, len),
            Task::Cmo { op, addr, len } => self.dispatch_cmo(s, id, op, addr, len, None),
            Task::CmoWithBarrier {
                op,
                addr,
                len,
                barrier_id,
            } => self.dispatch_cmo(s, id, op, addr, len, Some((model, barrier_id))),
            Task::CmoWithDesc { desc, op } => self.dispatch_cmo_desc(s, id, desc, op),
            Task::Kernel { kernel, blocks } => self.dispatch_kernel(s, id, kernel, blocks),
        }
    }

    fn on_complete(&mut self, s: u64) {
        let front = self.streams[&s].queue.front().expect("a head task");
        let (id, event_seq) = (front.id, front.event_seq);
        let now = self.now;
        let Work::User(kind) = &front.work else {
            self.complete(s, None);
            return;
        };
        // Only what each completion needs is copied out of the queued task (no clone of it).
        let fault = match kind {
            &Task::ValueWrite { addr, value } => self.value_write(s, id, addr, value),
            &Task::EventRecord(e) => {
                if let Some(seq) = event_seq {
                    if self.races.on {
                        self.races.event_recorded(s, e.0, seq);
                    }
                    self.record_done(e.0, seq, Some(now));
                }
                None
            }
            &Task::EventWait(e) => {
                if let (true, Some(seq)) = (self.races.on, event_seq) {
                    self.races
                        .event_waited(crate::races::AgentKey::Stream(s), e.0, seq);
                    self.races.event_wait_gone(e.0, seq);
                }
                None
            }
            &Task::NotifyWait { notify, .. } => {
                if self.races.on {
                    self.races.notify_taken(s, notify.0);
                }
                None
            }
            Task::CmoWaitBarrier { barrier_ids } => {
                if self.races.on {
                    let (ids, model) = (barrier_ids.clone(), front.model);
                    self.races.barrier_waited(s, model, &ids);
                }
                None
            }
            &Task::EventReset(e) => {
                self.event_reset(e.0);
                None
            }
            &Task::NotifyRecord(n) => {
                if self.races.on {
                    self.races.notify_set(s, n.0);
                }
                self.notify_set(n.0);
                None
            }
            Task::RandomNum(r) => {
                let r = r.clone();
                self.random_numbers(s, id, &r)
            }
            Task::LabelSwitch { index, max, labels } => {
                let (index, max, labels) = (*index, *max, labels.clone());
                let at = self
                    .label_target(s, id, index, max, &labels)
                    .and_then(|label| self.label_position(s, label));
                match at {
                    Ok(at) => {
                        self.complete(s, None);
                        if at > 1 {
                            self.skip_tasks(s, at - 1);
                        }
                        return;
                    }
                    Err(f) => Some(f),
                }
            }
            _ => None,
        };
        self.complete(s, fault);
    }

    /// Counts a read of never-written memory.
    pub(crate) fn note_read(
        &mut self,
        addr: u64,
        len: u64,
        never_written: bool,
        what: &str,
    ) -> Option<String> {
        if !never_written {
            return None;
        }
        self.report.note_never_written(addr, len, self.now, what);
        let device = self.mem.device_of(addr).unwrap_or(0);
        let detail = format!(
            "{what} read [{addr:#x}, +{len}) that was never written (it holds the poison byte)"
        );
        self.hazard(HazardKind::NeverWrittenRead, device, addr, len, detail)
    }

    /// A hazard of `kind`: ignored, recorded (report, trace, log) or failing, as the settings
    /// say. Returns the fault to give what triggered it when the setting is `fail`.
    pub(crate) fn hazard(
        &mut self,
        kind: HazardKind,
        device: u32,
        addr: u64,
        len: u64,
        detail: String,
    ) -> Option<String> {
        let action = self.config.hazards.action(kind);
        if action == HazardAction::Ignore {
            return None;
        }
        let detail = self.task_sites.said_with_sites(&detail);
        let fault =
            (action == HazardAction::Fail).then(|| format!("{} hazard: {detail}", kind.name()));
        self.report.note_hazard(Hazard {
            kind: kind.name().to_string(),
            device,
            addr,
            len,
            at_ns: self.now,
            detail,
            count: 1,
        });
        fault
    }

    // ----- completion -----

    /// The head task of `s` completes now, with an optional fault.
    pub(crate) fn complete(&mut self, s: u64, fault: Option<String>) {
        self.complete_with(s, fault, crate::types::FaultClass::Task);
    }

    /// The head task of `s` completes now, with an optional fault of class `class`. A fault
    /// of a model instance's task goes to the instance (reported where the run is
    /// synchronized); any other to the stream.
    pub(crate) fn complete_with(
        &mut self,
        s: u64,
        fault: Option<String>,
        class: crate::types::FaultClass,
    ) {
        let now = self.now;
        let limit = self.config.max_timeline_entries;
        let Some(st) = self.streams.get_mut(&s) else {
            return;
        };
        let Some(task) = st.queue.pop_front() else {
            return;
        };
        let fault = fault.map(|f| self.task_sites.said_for_task(&f, task.id));
        st.slots_used -= task.slots;
        st.tasks_done += 1;
        let ran = now.saturating_sub(st.head_start);
        st.busy_ns = st.busy_ns.saturating_add(ran);
        if task.work.waits() {
            st.wait_ns = st.wait_ns.saturating_add(ran);
        }
        st.end_ns = now;
        st.head = Head::Idle;
        self.effects += 1;
        self.tasks_completed += 1;
        self.published.publish(self.tasks_completed, now);
        if !self.watched.is_empty() {
            if let Some(end) = self.watched.get_mut(&task.id) {
                *end = Some((fault.is_none(), self.tasks_completed));
            }
        }
        if let Some(f) = &fault {
            tracing::warn!(stream = s, task = task.id, "task fault: {f}");
            let inst = task.instance.and_then(|i| self.instances.get_mut(&i));
            match inst {
                Some(inst) => {
                    inst.fault.get_or_insert_with(|| (f.clone(), class));
                }
                None => {
                    if st.fault.is_none() {
                        st.fault = Some(f.clone());
                        st.fault_class = class;
                    }
                }
            }
            self.report.push_fault(f.clone(), limit);
            if self.fault_log.len() == crate::engine::FAULT_LOG_LIMIT {
                self.fault_log.pop_front();
            }
            self.fault_log.push_back(crate::types::TaskFault {
                task: task.id,
                stream: s,
                device: st.device,
                message: f.clone(),
                class,
                at_ns: now,
            });
        }
        let span = Span {
            task: task.id,
            stream: s,
            kind: work_name(&task.work).into(),
            submit_ns: task.submit_ns,
            start_ns: st.head_start,
            end_ns: now,
            fault: fault.is_some(),
            args: crate::task_args::TaskArgs::of(&task.work),
        };
        tracing::trace!(
            stream = s,
            task = task.id,
            kind = &*span.kind,
            start_ns = span.start_ns,
            end_ns = now,
            "task complete"
        );
        let more = !st.queue.is_empty();
        let stop = fault.is_some() && st.stop_on_failure && task.instance.is_none();
        if let (true, Some(i)) = (self.races.on, task.instance) {
            // What the instance's task knew, taken before the stream starts its next task.
            self.races.instance_task_done(i, s);
        }
        let device = st.device;
        self.report.push_span(span, limit);
        if !more {
            self.note_stream_busy(device, false);
        }
        self.progress += 1;
        if stop {
            // Stop on failure: the stream's later tasks are discarded, not run, and so is
            // what it is given from now on.
            tracing::warn!(
                stream = s,
                "stop on failure: the stream's later tasks are discarded"
            );
            if let Some(st) = self.streams.get_mut(&s) {
                st.stopped = true;
            }
            if more {
                self.discard_tasks(s);
            }
        } else if more {
            self.start_head(s);
        }
        if let Some(i) = task.instance {
            self.instance_task_done(i);
        }
    }
}

/// How long a task of `kind` runs once dispatched, for the kinds whose dispatch does nothing
/// but start that time; `None` for the others.
fn fixed_duration(kind: &Task, t: &ascend_chips::TimingParams) -> Option<u64> {
    match kind {
        Task::ValueWrite { .. } => Some(t.value_write_ns),
        Task::EventRecord(_)
        | Task::NotifyRecord(_)
        | Task::RandomNum(_)
        | Task::LabelSwitch { .. } => Some(t.event_ns),
        Task::EventReset(_) | Task::LabelSet { .. } => Some(0),
        _ => None,
    }
}
