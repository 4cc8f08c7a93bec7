//! [`Sim`]'s stream calls: creating and destroying streams, submitting tasks (blocking while
//! a queue is full), and synchronizing a stream or a whole device.

use super::Sim;
use crate::stream::Work;
use crate::types::*;

/// The longest a force destroy lets a stream's queue drain, in simulated ms: the vendor's
/// teardown tries for 30 s for the submission queue's head to reach its tail.
pub const FORCE_DESTROY_DRAIN_MS: u64 = 30_000;

impl Sim {
    /// Creates a stream on `device`. `persistent` streams only record tasks while bound to a
    /// model and run them when the model executes.
    pub fn create_stream(
        &self,
        device: u32,
        priority: u32,
        persistent: bool,
    ) -> Result<StreamId, SimError> {
        self.with_charge_on(device, self.chip.timing.host_call_ns, |e| {
            e.check_device(device)?;
            Ok(StreamId(e.create_stream(device, priority, persistent)))
        })
    }

    /// Says whose stream `stream` is (`"process 1234"`), where the simulator serves several
    /// programs: the run report names it and the trace groups the stream's track under it.
    pub fn label_stream(&self, stream: StreamId, owner: &str) {
        if let Some(s) = self.lock_engine().streams.get_mut(&stream.0) {
            s.owner = Some(owner.into());
        }
    }

    /// Destroys a stream; without `force`, first waits for its queued tasks.
    ///
    /// With `force`, the stream's tasks go on as the vendor's teardown lets them: it waits
    /// (at most `FORCE_DESTROY_DRAIN_MS`, 30 s) until the scheduler has fetched the whole queue, so
    /// every task that can run does, in simulated time, before the call returns. The drain
    /// ends early when the head blocks on what nothing on the device can give it any more (a
    /// wait with nothing scheduled that could release it, a host call no thread will run).
    /// What is left is discarded and the run report lists it.
    pub fn destroy_stream(&self, stream: StreamId, force: bool) -> Result<(), SimError> {
        let s = stream.0;
        let g = self.lock();
        g.stream(s)?;
        let mut g = self.charge(g, self.chip.timing.host_call_ns);
        if force {
            let what = HostWait::DrainStream(s);
            let (g2, _drained) =
                self.block_until(g, what, Some(FORCE_DESTROY_DRAIN_MS), move |e| {
                    e.streams
                        .get(&s)
                        .is_none_or(|st| st.idle() || e.drain_over(st))
                });
            g = g2;
        } else {
            let what = HostWait::DestroyStream(s);
            let (g2, r) = self.block_until(g, what, None, move |e| {
                e.streams.get(&s).is_none_or(|st| st.idle())
            });
            g = g2;
            r?;
            // The destroy waited for the stream's tasks: the host goes on after them.
            g.race_host_saw_stream(s);
        }
        g.drop_stream(s);
        self.release(g);
        Ok(())
    }

    /// Enqueues a task. On a model-bound stream the task is recorded into the model instead.
    /// A plain stream whose queue is full blocks the calling host thread until slots free up.
    pub fn submit(&self, stream: StreamId, task: Task) -> Result<TaskId, SimError> {
        self.submit_after(stream, task, 0)
    }

    /// [`Sim::submit`] after charging `host_ns` of simulated host time (the launching call's
    /// own cost; the device runs meanwhile), under one lock.
    pub fn submit_after(
        &self,
        stream: StreamId,
        task: Task,
        host_ns: u64,
    ) -> Result<TaskId, SimError> {
        let mut last = None;
        self.submit_pieces(stream, task, host_ns, false, |id| last = Some(id))?;
        last.ok_or_else(|| SimError::BadAddress {
            addr: 0,
            len: 0,
            reason: "a task that names no memory".into(),
        })
    }

    /// Submits a user task as one task a mapping it crosses, in order (the first charged
    /// `host_ns`), telling `each` the id of each; `watch` as for [`Sim::submit_work_watched`].
    /// False where a watched task met a model-bound stream (nothing more is submitted).
    pub(super) fn submit_pieces(
        &self,
        stream: StreamId,
        task: Task,
        host_ns: u64,
        watch: bool,
        mut each: impl FnMut(TaskId),
    ) -> Result<bool, SimError> {
        let mut submit = |t: Task, ns: u64| -> Result<bool, SimError> {
            let work = Work::User(narrow_cmo_length(t));
            Ok(match self.submit_work_watched(stream, work, ns, watch)? {
                Some(id) => {
                    each(id);
                    true
                }
                None => false,
            })
        };
        // No range reserved, nothing to translate: the common case costs one atomic load.
        if !self.va_in_use() {
            return submit(task, host_ns);
        }
        // A task across mappings side by side goes as one task a mapping, in order.
        for (i, t) in self.split_task(task)?.into_iter().enumerate() {
            if !submit(t, if i == 0 { host_ns } else { 0 })? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Puts a host call on `stream` (see [`HostCall`]): on a model-bound stream it is
    /// recorded and becomes due at every run of the model.
    pub fn submit_host_call(&self, stream: StreamId, call: HostCall) -> Result<TaskId, SimError> {
        self.submit_host_call_after(stream, call, 0)
    }

    /// [`Sim::submit_host_call`] after charging `host_ns` of simulated host time, under one
    /// lock.
    pub fn submit_host_call_after(
        &self,
        stream: StreamId,
        call: HostCall,
        host_ns: u64,
    ) -> Result<TaskId, SimError> {
        self.submit_work(stream, Work::HostCall(call), host_ns)
    }

    /// Queues (or, on a model-bound stream, records) `work`, waiting for room in the queue.
    fn submit_work(&self, stream: StreamId, work: Work, host_ns: u64) -> Result<TaskId, SimError> {
        let id = self.submit_work_watched(stream, work, host_ns, false)?;
        id.ok_or(SimError::Unknown {
            kind: "stream",
            id: stream.0,
        })
    }

    /// [`Sim::submit_work`]; with `watch`, the task's end is kept for [`Sim::watched_ends`],
    /// and a model-bound stream takes nothing (`None`: a recorded task runs at every run of
    /// its model, not once).
    fn submit_work_watched(
        &self,
        stream: StreamId,
        work: Work,
        host_ns: u64,
        watch: bool,
    ) -> Result<Option<TaskId>, SimError> {
        let s = stream.0;
        let mut g = self.lock();
        if host_ns > 0 {
            g = self.charge(g, host_ns);
        }
        if g.stream(s)?.model.is_some() {
            if watch {
                self.release(g);
                return Ok(None);
            }
            let r = g.record(s, work);
            self.release(g);
            return r.map(|id| Some(TaskId(id)));
        }
        let slots = g.slots_of(&work);
        let cap = g.queue_capacity();
        let (g2, r) = self.block_until(g, HostWait::Submit(s), None, move |e| {
            e.streams
                .get(&s)
                .is_none_or(|st| st.slots_used + slots <= cap || st.idle())
        });
        g = g2;
        r?;
        g.stream(s)?;
        let id = g.enqueue(s, work);
        if watch {
            g.watched.insert(id, None);
        }
        self.release(g);
        Ok(Some(TaskId(id)))
    }

    /// Blocks until every task submitted to `stream` so far has completed; `timeout_ms`
    /// (`None` = forever) is simulated time. A fault of a task is returned here, including
    /// the first fault of a model run that `execute_model_async` put on this stream.
    ///
    /// A persistent stream, bound to a model or not, returns success at once without
    /// waiting, as the runtime documents (docs/validation/streams-events.md) and the front end does: the tasks of a model
    /// report their faults where the model's run is synchronized (`execute_model`, or the
    /// stream of `execute_model_async`), and tasks run directly on an unbound persistent
    /// stream report theirs at `synchronize_device`.
    pub fn synchronize_stream(
        &self,
        stream: StreamId,
        timeout_ms: Option<u64>,
    ) -> Result<(), SimError> {
        let s = stream.0;
        let g = self.lock();
        let st = g.stream(s)?;
        if st.persistent {
            return Ok(());
        }
        // Wait for the tasks submitted so far: the last one queued now.
        let target = st.queue.back().map(|t| t.id);
        let what = HostWait::SynchronizeStream(s);
        let (mut g, r) = self.block_until(g, what, timeout_ms, move |e| {
            match (target, e.streams.get(&s)) {
                (Some(t), Some(st)) => st.queue.front().is_none_or(|h| h.id > t),
                _ => true,
            }
        });
        let mut fault = None;
        if r.is_ok() {
            fault = g.streams.get_mut(&s).and_then(|st| st.take_fault());
            // Gone meanwhile with tasks this wait covered still queued: they never ran.
            let discarded = target.and_then(|t| {
                let (_, ids) = g.dropped_with_work.iter().rev().find(|(ds, _)| *ds == s)?;
                let n = ids.iter().filter(|&&id| id <= t).count() as u64;
                (n > 0).then_some(n)
            });
            g.race_host_saw_stream(s);
            match (discarded, g.streams.contains_key(&s)) {
                (Some(n), false) => {
                    fault = Some(SimError::StreamDestroyed {
                        stream: s,
                        discarded: n,
                    })
                }
                _ => g = self.observed(g),
            }
        }
        self.finish_wait(g, r, fault)
    }

    /// True when every task submitted to `stream` so far has completed (advances the device
    /// to the current host time first).
    pub fn stream_idle(&self, stream: StreamId) -> Result<bool, SimError> {
        self.with_charge(self.chip.timing.host_query_ns, |e| {
            let idle = e.stream(stream.0)?.idle();
            if idle {
                e.race_host_saw_stream(stream.0);
            }
            Ok(idle)
        })
    }

    /// Blocks until every stream of `device` is idle.
    pub fn synchronize_device(&self, device: u32, timeout_ms: Option<u64>) -> Result<(), SimError> {
        let g = self.lock();
        g.check_device(device)?;
        let what = HostWait::SynchronizeDevice(device);
        let (mut g, r) = self.block_until(g, what, timeout_ms, move |e| e.device_idle(device));
        let mut fault = None;
        if r.is_ok() {
            let on_device: Vec<u64> = g
                .streams
                .iter()
                .filter(|(_, st)| st.device == device)
                .map(|(&s, _)| s)
                .collect();
            for s in on_device {
                g.race_host_saw_stream(s);
            }
            for st in g.streams.values_mut().filter(|s| s.device == device) {
                if let Some(f) = st.take_fault() {
                    fault.get_or_insert(f);
                }
            }
            g = self.observed(g);
        }
        self.finish_wait(g, r, fault)
    }
}

/// The runtime's CMO task carries a 32-bit length: a size of 4 GiB or more wraps, as on the
/// device (the runtime stores the size in a 32-bit field of the task).
fn narrow_cmo_length(task: Task) -> Task {
    const LENGTH_FIELD: u64 = u32::MAX as u64;
    match task {
        Task::Cmo { op, addr, len } => Task::Cmo {
            op,
            addr,
            len: len & LENGTH_FIELD,
        },
        Task::CmoWithBarrier {
            op,
            addr,
            len,
            barrier_id,
        } => Task::CmoWithBarrier {
            op,
            addr,
            len: len & LENGTH_FIELD,
            barrier_id,
        },
        other => other,
    }
}

impl Sim {
    /// Stop on failure for `stream` (`aclrtSetStreamFailureMode(ACL_STOP_ON_FAILURE)`): after a
    /// task of it faults, its later tasks are discarded.
    pub fn set_stop_on_failure(&self, stream: StreamId) -> Result<(), SimError> {
        self.with(|e| {
            e.stream(stream.0)?;
            if let Some(st) = e.streams.get_mut(&stream.0) {
                st.stop_on_failure = true;
            }
            Ok(())
        })
    }

    /// `aclrtStreamAbort`: the stream's running task is cancelled and its queued tasks
    /// discarded (event records among them are force-triggered); the stream stays usable.
    pub fn abort_stream(&self, stream: StreamId) -> Result<(), SimError> {
        self.with(|e| {
            e.stream(stream.0)?;
            e.discard_tasks(stream.0);
            if let Some(st) = e.streams.get_mut(&stream.0) {
                st.stopped = false;
            }
            Ok(())
        })
    }

    /// `aclrtStreamStop`: the task the stream is running, if any, is cancelled and fails with
    /// `why` (its next synchronize reports it); the queued tasks after it go on.
    pub fn stop_stream(&self, stream: StreamId, why: &str) -> Result<(), SimError> {
        self.with(|e| {
            let st = e.stream(stream.0)?;
            if st.queue.is_empty() || matches!(st.head, crate::stream::Head::Idle) {
                return Ok(());
            }
            e.stop_head(stream.0, why);
            Ok(())
        })
    }
}
