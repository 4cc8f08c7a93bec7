//! [`Sim`]: the thread-safe, host-facing handle of the simulator.
//!
//! One mutex guards the engine; host threads that must wait for the device either drive the
//! event loop themselves (when events are scheduled) or, when the device is stalled, sleep on
//! a condition variable until another host thread changes something, as a host thread blocked
//! on real hardware does. The watchdog speaks after `SimConfig::watchdog_grace` of wall time
//! without progress.

use std::sync::PoisonError;
use std::time::Duration;

use ascend_chips::ChipProfile;

use crate::engine::{deadline_after, Engine};
use crate::report::RunReport;
use crate::sync::{timed_wait, Condvar, Mutex, MutexGuard, WallClock};
use crate::types::*;

/// One simulated host with its devices (all of one SoC). Cheap to share (`Arc<Sim>`); every
/// method may be called from any host thread.
#[derive(Debug)]
pub struct Sim {
    chip: ChipProfile,
    config: SimConfig,
    engine: Mutex<Engine>,
    changed: Condvar,
}

type Guard<'a> = MutexGuard<'a, Engine>;

impl Sim {
    /// A simulator of `chip` with `chip.limits.device_count` devices.
    pub fn new(chip: ChipProfile, config: SimConfig) -> Sim {
        Sim {
            engine: Mutex::new(Engine::new(chip.clone(), config.clone())),
            chip,
            config,
            changed: Condvar::new(),
        }
    }

    /// The chip being simulated.
    pub fn chip(&self) -> &ChipProfile {
        &self.chip
    }

    /// The settings.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    fn lock(&self) -> Guard<'_> {
        self.engine.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` under the lock and wakes host threads waiting on a stalled device.
    fn with<R>(&self, f: impl FnOnce(&mut Engine) -> R) -> R {
        let mut g = self.lock();
        let r = f(&mut g);
        drop(g);
        self.changed.notify_all();
        r
    }

    /// Blocks the calling host thread until `done` holds, driving the device meanwhile.
    /// `timeout_ms` is simulated time; on a stalled device the thread sleeps on the condition
    /// variable for other host threads, and the watchdog applies.
    fn block_until<'a>(
        &'a self,
        g: Guard<'a>,
        what: HostWait,
        timeout_ms: Option<u64>,
        done: impl FnMut(&Engine) -> bool,
    ) -> (Guard<'a>, Result<(), SimError>) {
        let mut record = None;
        let (mut g, r) = self.drive_until(g, what, &mut record, timeout_ms, done);
        if let Some(id) = record {
            g.end_host_wait(id);
        }
        (g, r)
    }

    /// The loop of [`Sim::block_until`]. The host wait is recorded (in `record`) only once the
    /// device has stalled, so that the watchdog can name it; a wait that never stalls costs
    /// nothing.
    fn drive_until<'a>(
        &'a self,
        mut g: Guard<'a>,
        what: HostWait,
        record: &mut Option<u64>,
        timeout_ms: Option<u64>,
        mut done: impl FnMut(&Engine) -> bool,
    ) -> (Guard<'a>, Result<(), SimError>) {
        // A timeout ending beyond the simulator's horizon is no timeout: never run the device
        // to an effectively infinite deadline.
        let deadline = timeout_ms.and_then(|ms| deadline_after(g.now, ms));
        let grace = self.config.watchdog_grace;
        let mut clock = WallClock::start();
        let mut stall: Option<(Duration, u64)> = None;
        let mut logged = false;
        loop {
            if done(&g) {
                return (g, Ok(()));
            }
            if let Some(next) = g.next_time() {
                if let (Some(dl), Some(ms)) = (deadline, timeout_ms) {
                    if next > dl {
                        g.run_until(dl);
                        return (g, Err(SimError::Timeout(ms)));
                    }
                }
                g.step();
                stall = None;
                continue;
            }
            // Nothing scheduled: only another host thread can change anything.
            if record.is_none() {
                *record = Some(g.begin_host_wait(what));
            }
            let progress = g.progress;
            let since = match stall {
                Some((t, p)) if p == progress => t,
                _ => {
                    let t = clock.elapsed();
                    stall = Some((t, progress));
                    t
                }
            };
            let limit = match timeout_ms {
                Some(ms) => grace.min(Duration::from_millis(ms)),
                None => grace,
            };
            let waited = clock.elapsed().saturating_sub(since);
            let mut sleep = limit.saturating_sub(waited);
            if waited >= limit {
                if let (Some(ms), Some(dl)) = (timeout_ms, deadline) {
                    g.run_until(dl);
                    return (g, Err(SimError::Timeout(ms)));
                }
                match self.config.on_stall {
                    OnStall::Error => {
                        let d = stall_diagnosis(&g);
                        tracing::warn!("watchdog: {}", d.text);
                        return (g, Err(SimError::Stalled(Box::new(d))));
                    }
                    OnStall::Wait => {
                        if !logged {
                            logged = true;
                            speak_up(&stall_diagnosis(&g).text);
                        }
                        sleep = Duration::from_millis(200);
                    }
                }
            }
            g = timed_wait(
                &self.engine,
                &self.changed,
                g,
                sleep.max(Duration::from_millis(1)),
                &mut clock,
            );
        }
    }

    /// Ends a host wait: releases the engine, wakes other host threads, and returns the wait's
    /// error, else the fault the waited-for work left, else success.
    fn finish_wait(
        &self,
        g: Guard<'_>,
        r: Result<(), SimError>,
        fault: Option<SimError>,
    ) -> Result<(), SimError> {
        drop(g);
        self.changed.notify_all();
        r?;
        fault.map_or(Ok(()), Err)
    }

    /// Finishes a successful synchronize: the host observes the completion.
    fn observed(&self, g: &mut Engine) {
        let t = g.now.saturating_add(self.chip.timing.host_sync_ns);
        g.run_until(t);
    }

    /// The simulated host clock, in ns.
    pub fn now_ns(&self) -> u64 {
        self.lock().now
    }

    /// Charges `ns` of simulated host time for host-side work (an API call's own cost); the
    /// device runs meanwhile.
    pub fn charge_host(&self, ns: u64) {
        self.with(|e| {
            let t = e.now.saturating_add(ns);
            e.run_until(t);
        });
    }

    // ----- memory -----

    /// Allocates `bytes` of device memory on `device`, aligned to the chip's base alignment;
    /// the bytes are filled with the poison byte and tracked as never written.
    pub fn malloc(&self, device: u32, bytes: u64) -> Result<DevAddr, SimError> {
        self.with(|e| e.mem.malloc(device, bytes))
    }

    /// Frees an allocation by its base address. A value wait watching the freed memory reads
    /// it at its next poll and faults (reported at the next synchronize of its stream).
    pub fn free(&self, device: u32, addr: DevAddr) -> Result<(), SimError> {
        self.with(|e| {
            let now = e.now;
            e.run_until(now);
            let by = format!("by free at {now} ns");
            let len = e.mem.free(device, addr, by)?;
            e.progress += 1;
            e.on_mem_write(addr, len);
            Ok(())
        })
    }

    /// Synchronous host read of device memory (no stream ordering), bounds-checked.
    pub fn read(&self, addr: DevAddr, out: &mut [u8]) -> Result<(), SimError> {
        self.with(|e| {
            let now = e.now;
            e.run_until(now);
            let info = e.mem.read(addr, out)?;
            e.note_read(addr, out.len() as u64, info.never_written, "host read");
            Ok(())
        })
    }

    /// Synchronous host write of device memory (no stream ordering), bounds-checked.
    pub fn write(&self, addr: DevAddr, data: &[u8]) -> Result<(), SimError> {
        self.with(|e| {
            let now = e.now;
            e.run_until(now);
            e.mem
                .write(addr, data, crate::memory::Writer::Host { at_ns: now })?;
            e.progress += 1;
            e.on_mem_write(addr, data.len() as u64);
            Ok(())
        })
    }

    /// Synchronous fill of device memory.
    pub fn fill(&self, addr: DevAddr, value: u8, len: u64) -> Result<(), SimError> {
        self.with(|e| {
            let now = e.now;
            e.run_until(now);
            e.mem
                .fill(addr, value, len, crate::memory::Writer::Host { at_ns: now })?;
            e.progress += 1;
            e.on_mem_write(addr, len);
            Ok(())
        })
    }

    /// Synchronous device-to-device copy (overlap allowed, behaves as memmove).
    pub fn copy(&self, dst: DevAddr, src: DevAddr, len: u64) -> Result<(), SimError> {
        self.with(|e| {
            let now = e.now;
            e.run_until(now);
            e.mem
                .copy(dst, src, len, crate::memory::Writer::Host { at_ns: now })?;
            e.progress += 1;
            e.on_mem_write(dst, len);
            Ok(())
        })
    }

    // ----- streams -----

    /// Creates a stream on `device`. `persistent` streams only record tasks while bound to a
    /// model and run them when the model executes.
    pub fn create_stream(
        &self,
        device: u32,
        priority: u32,
        persistent: bool,
    ) -> Result<StreamId, SimError> {
        self.with(|e| {
            e.check_device(device)?;
            Ok(StreamId(e.create_stream(device, priority, persistent)))
        })
    }

    /// Destroys a stream; without `force`, first waits for its queued tasks.
    pub fn destroy_stream(&self, stream: StreamId, force: bool) -> Result<(), SimError> {
        let mut g = self.lock();
        g.stream(stream.0)?;
        if !force {
            let what = HostWait::DestroyStream(stream.0);
            let (g2, r) = self.block_until(g, what, None, |e| {
                e.streams.get(&stream.0).is_none_or(|s| s.idle())
            });
            g = g2;
            r?;
        }
        g.drop_stream(stream.0);
        drop(g);
        self.changed.notify_all();
        Ok(())
    }

    /// Enqueues a task. On a model-bound stream the task is recorded into the model instead.
    /// A plain stream whose queue is full blocks the calling host thread until slots free up.
    pub fn submit(&self, stream: StreamId, task: Task) -> Result<TaskId, SimError> {
        let task = narrow_cmo_length(task);
        let s = stream.0;
        let mut g = self.lock();
        if g.stream(s)?.model.is_some() {
            let r = g.record(s, task);
            drop(g);
            self.changed.notify_all();
            return r.map(TaskId);
        }
        let slots = g.slots_of(&task);
        let cap = g.queue_capacity();
        let (g2, r) = self.block_until(g, HostWait::Submit(s), None, |e| {
            e.streams
                .get(&s)
                .is_none_or(|st| st.slots_used + slots <= cap || st.idle())
        });
        g = g2;
        r?;
        g.stream(s)?;
        let id = g.enqueue(s, task);
        drop(g);
        self.changed.notify_all();
        Ok(TaskId(id))
    }

    /// Blocks until every task submitted to `stream` so far has completed; `timeout_ms`
    /// (`None` = forever) is simulated time. A fault of a task is returned here, including
    /// the first fault of a model run that `execute_model_async` put on this stream.
    ///
    /// A persistent stream, bound to a model or not, returns success at once without
    /// waiting, as the runtime documents (§7.4) and the front end does: the tasks of a model
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
        let (mut g, r) =
            self.block_until(g, what, timeout_ms, |e| match (target, e.streams.get(&s)) {
                (Some(t), Some(st)) => st.queue.front().is_none_or(|h| h.id > t),
                _ => true,
            });
        let mut fault = None;
        if r.is_ok() {
            fault = g.streams.get_mut(&s).and_then(|st| st.take_fault());
            self.observed(&mut g);
        }
        self.finish_wait(g, r, fault)
    }

    /// True when every task submitted to `stream` so far has completed (advances the device
    /// to the current host time first).
    pub fn stream_idle(&self, stream: StreamId) -> Result<bool, SimError> {
        self.with(|e| {
            let now = e.now;
            e.run_until(now);
            Ok(e.stream(stream.0)?.idle())
        })
    }

    /// Blocks until every stream of `device` is idle.
    pub fn synchronize_device(&self, device: u32, timeout_ms: Option<u64>) -> Result<(), SimError> {
        let g = self.lock();
        g.check_device(device)?;
        let what = HostWait::SynchronizeDevice(device);
        let (mut g, r) = self.block_until(g, what, timeout_ms, |e| {
            e.streams
                .values()
                .filter(|s| s.device == device)
                .all(|s| s.idle())
        });
        let mut fault = None;
        if r.is_ok() {
            for st in g.streams.values_mut().filter(|s| s.device == device) {
                if let Some(f) = st.take_fault() {
                    fault.get_or_insert(f);
                }
            }
            self.observed(&mut g);
        }
        self.finish_wait(g, r, fault)
    }

    // ----- events -----

    /// Creates an event (not recorded).
    pub fn create_event(&self, device: u32) -> Result<EventId, SimError> {
        self.with(|e| {
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
                    e.events.remove(&event.0);
                }
            }
            Ok(())
        })
    }

    /// True when the event's latest record has executed (false if never recorded).
    pub fn event_complete(&self, event: EventId) -> Result<bool, SimError> {
        self.with(|e| {
            let now = e.now;
            e.run_until(now);
            Ok(e.event(event.0)?.complete())
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
        let (mut g, r) = self.block_until(g, what, timeout_ms, |e| {
            e.events.get(&event.0).is_none_or(|ev| ev.done(target))
        });
        if r.is_ok() {
            self.observed(&mut g);
        }
        drop(g);
        self.changed.notify_all();
        r
    }

    /// The simulated time (ns) at which the event's latest record executed, if it has,
    /// quantised to the chip's event timestamp counter.
    pub fn event_time_ns(&self, event: EventId) -> Result<Option<u64>, SimError> {
        self.with(|e| {
            let now = e.now;
            e.run_until(now);
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
        self.with(|e| {
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

    // ----- model running instances -----

    /// Creates an empty model running instance on `device`.
    pub fn create_model(&self, device: u32) -> Result<ModelId, SimError> {
        self.with(|e| {
            e.check_device(device)?;
            Ok(ModelId(e.create_model()))
        })
    }

    /// Binds a persistent stream: later submissions to it are recorded into the model.
    pub fn bind_stream(&self, model: ModelId, stream: StreamId) -> Result<(), SimError> {
        self.with(|e| {
            e.model(model.0)?;
            e.stream(stream.0)?;
            let st = e.streams.get_mut(&stream.0).expect("checked");
            st.model = Some(model.0);
            st.recorded.clear();
            st.recorded_slots = 0;
            let m = e.models.get_mut(&model.0).expect("checked");
            if !m.streams.contains(&stream.0) {
                m.streams.push(stream.0);
            }
            Ok(())
        })
    }

    /// Unbinds a stream; its recorded tasks are dropped from the model.
    pub fn unbind_stream(&self, model: ModelId, stream: StreamId) -> Result<(), SimError> {
        self.with(|e| {
            e.model(model.0)?;
            e.stream(stream.0)?;
            let st = e.streams.get_mut(&stream.0).expect("checked");
            if st.model == Some(model.0) {
                st.model = None;
                st.recorded.clear();
                st.recorded_slots = 0;
            }
            let m = e.models.get_mut(&model.0).expect("checked");
            m.streams.retain(|&s| s != stream.0);
            Ok(())
        })
    }

    /// Runs every recorded task of the model's streams once (each stream in order, streams
    /// concurrently) and blocks until all complete; repeatable.
    pub fn execute_model(&self, model: ModelId, timeout_ms: Option<u64>) -> Result<(), SimError> {
        let mut g = self.lock();
        g.model(model.0)?;
        let i = g.spawn_instance(model.0, None);
        self.changed.notify_all();
        let what = HostWait::ExecuteModel(model.0);
        let (mut g, r) = self.block_until(g, what, timeout_ms, |e| {
            e.instances.get(&i).is_none_or(|x| x.remaining == 0)
        });
        let mut fault = None;
        if r.is_ok() {
            // The instance's first fault is this call's (its streams return at once).
            fault = g
                .instances
                .remove(&i)
                .and_then(|x| x.fault)
                .map(|(f, timeout)| {
                    if timeout {
                        SimError::TaskTimeout(f)
                    } else {
                        SimError::TaskFault(f)
                    }
                });
            self.observed(&mut g);
        } else if let Some(x) = g.instances.get_mut(&i) {
            // Given up on: the instance goes when its last task completes.
            if x.remaining == 0 {
                g.instances.remove(&i);
            } else {
                x.abandoned = true;
            }
        }
        self.finish_wait(g, r, fault)
    }

    /// Enqueues one run of the model on `stream`: later tasks of `stream` start after it.
    pub fn execute_model_async(&self, model: ModelId, stream: StreamId) -> Result<(), SimError> {
        let s = stream.0;
        let mut g = self.lock();
        g.model(model.0)?;
        g.stream(s)?;
        let cap = g.queue_capacity();
        let what = HostWait::ExecuteModelAsync {
            model: model.0,
            stream: s,
        };
        let (g2, r) = self.block_until(g, what, None, |e| {
            e.streams
                .get(&s)
                .is_none_or(|st| st.slots_used < cap || st.idle())
        });
        g = g2;
        r?;
        g.stream(s)?;
        g.enqueue_model_run(s, model.0);
        drop(g);
        self.changed.notify_all();
        Ok(())
    }

    /// Destroys a model (its barrier-id map goes with it).
    pub fn destroy_model(&self, model: ModelId) -> Result<(), SimError> {
        self.with(|e| {
            e.model(model.0)?;
            let streams = std::mem::take(&mut e.models.get_mut(&model.0).expect("checked").streams);
            for s in streams {
                if let Some(st) = e.streams.get_mut(&s) {
                    st.model = None;
                    st.recorded.clear();
                    st.recorded_slots = 0;
                }
            }
            e.models.remove(&model.0);
            e.barriers.retain(|(m, _), _| *m != Some(model.0));
            Ok(())
        })
    }

    // ----- reports -----

    /// Why the device cannot progress, if some stream is blocked with nothing able to release it.
    pub fn diagnose(&self) -> Option<Diagnosis> {
        self.lock().diagnose()
    }

    /// The run report.
    pub fn report(&self) -> RunReport {
        self.lock().build_report()
    }

    /// The run report as JSON.
    pub fn report_json(&self) -> String {
        serde_json::to_string_pretty(&self.report())
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The timeline as a Chrome trace (JSON), which Perfetto opens.
    pub fn trace_json(&self) -> String {
        crate::trace::chrome_trace(&self.report())
    }

    /// The address window of all devices' memory: every device address lies in it and no
    /// host memory does.
    pub fn device_window(&self) -> std::ops::Range<DevAddr> {
        let devices = u64::from(self.chip.limits.device_count.max(1));
        let base = crate::memory::DEVICE_WINDOW_BASE;
        base..base + devices * crate::memory::DEVICE_WINDOW_BYTES
    }

    /// Checks that `[addr, addr+len)` lies inside one live allocation; the error says why not
    /// (freed when and by what, past which allocation's end, never allocated).
    pub fn check_range(&self, addr: DevAddr, len: u64) -> Result<(), SimError> {
        self.lock().mem.check(addr, len)
    }

    /// Bytes of host memory backing the simulated device memory (pages touched so far).
    pub fn backing_bytes(&self) -> u64 {
        self.lock().mem.backing_bytes()
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

/// The engine's diagnosis, or a plain one when no stream is blocked on anything nameable.
fn stall_diagnosis(e: &Engine) -> Diagnosis {
    e.diagnose().unwrap_or_else(|| Diagnosis {
        at_ns: e.now,
        blocked: Vec::new(),
        host_waits: e.host_wait_lines(),
        text: format!(
            "device stalled at {} ns: the awaited work cannot complete and nothing is scheduled",
            e.now
        ),
    })
}

/// Says that a host thread keeps waiting on a stalled device: through `tracing` when the
/// program has a logger, else on standard error, so that a hang is never silent.
fn speak_up(diagnosis: &str) {
    if tracing::dispatcher::has_been_set() {
        tracing::warn!("watchdog (still waiting): {diagnosis}");
    } else {
        eprintln!("ascend-sim watchdog: a host thread is waiting on a stalled device (still waiting):\n{diagnosis}");
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn sim() -> Sim {
        let chip = ChipProfile::builtin("Ascend910B1").expect("built-in chip");
        Sim::new(chip, SimConfig::default())
    }

    #[test]
    fn destroyed_objects_leave_the_engine() {
        let s = sim();
        let st = s.create_stream(0, 0, false).unwrap();
        let other = s.create_stream(0, 0, false).unwrap();
        for _ in 0..100 {
            let e = s.create_event(0).unwrap();
            s.submit(st, Task::EventRecord(e)).unwrap();
            s.submit(other, Task::EventWait(e)).unwrap();
            s.destroy_event(e).unwrap();
            let n = s.create_notify(0).unwrap();
            s.submit(st, Task::NotifyRecord(n)).unwrap();
            let wait = Task::NotifyWait {
                notify: n,
                timeout_ms: None,
            };
            s.submit(other, wait).unwrap();
            let m = s.create_model(0).unwrap();
            s.destroy_model(m).unwrap();
        }
        s.synchronize_device(0, None).unwrap();
        for n in 0..100 {
            s.destroy_notify(NotifyId(n)).unwrap();
        }
        let g = s.lock();
        assert!(g.events.is_empty());
        assert!(g.notifies.is_empty());
        assert!(g.models.is_empty());
        assert!(g.event_waiters.is_empty());
        assert!(g.notify_waiters.is_empty());
    }

    #[test]
    fn a_timed_out_model_run_is_forgotten_when_it_ends() {
        let s = sim();
        let a = s.malloc(0, 64).unwrap();
        s.write(a, &0u64.to_le_bytes()).unwrap();
        let ps = s.create_stream(0, 0, true).unwrap();
        let m = s.create_model(0).unwrap();
        s.bind_stream(m, ps).unwrap();
        let wait = Task::ValueWait {
            addr: a,
            value: 1,
            mode: WaitMode::Eq,
        };
        s.submit(ps, wait).unwrap();
        for _ in 0..3 {
            assert_eq!(s.execute_model(m, Some(1)), Err(SimError::Timeout(1)));
        }
        assert_eq!(s.lock().instances.len(), 3);
        s.write(a, &1u64.to_le_bytes()).unwrap();
        s.synchronize_device(0, None).unwrap();
        assert!(s.lock().instances.is_empty());
    }
}
