//! [`Sim`]: the thread-safe, host-facing handle of the simulator.
//!
//! One mutex guards the engine; host threads that must wait for the device either drive the
//! event loop themselves (when events are scheduled) or, when the device is stalled, sleep on
//! a condition variable until another host thread changes something, as a host thread blocked
//! on real hardware does. The watchdog speaks after `SimConfig::watchdog_grace` of wall time
//! without progress.
//!
//! This file owns the [`Sim`] handle itself: the lock, the host's waits on the device
//! (`block_until`, the watchdog) and the host clock. The calls on memory are in `memory`, on
//! streams (submission and synchronization) in `streams`, on events and notifies in
//! `events`, on models in `models`, and the reports in `reports`.

mod events;
mod host_calls;
mod memory;
mod models;
mod reports;
mod streams;

use std::sync::PoisonError;
use std::time::Duration;

use ascend_chips::ChipProfile;

use crate::engine::{deadline_after, Engine};
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
    /// The host clock as of the latest call's end, without the engine's lock.
    host_clock: crate::host_track::PublishedHostClock,
    /// The host threads' API calls (their own lock: no device work takes it).
    host_log: Mutex<crate::host_track::HostLog>,
}

type Guard<'a> = MutexGuard<'a, Engine>;

impl Sim {
    /// A simulator of `chip` with `chip.limits.device_count` devices.
    pub fn new(chip: ChipProfile, config: SimConfig) -> Sim {
        Sim {
            host_clock: Default::default(),
            engine: Mutex::new(Engine::new(chip.clone(), config.clone())),
            chip,
            config,
            changed: Condvar::new(),
            host_log: Mutex::new(Default::default()),
        }
    }

    pub(crate) fn host_clock(&self) -> &crate::host_track::PublishedHostClock {
        &self.host_clock
    }

    pub(crate) fn host_log(&self) -> &Mutex<crate::host_track::HostLog> {
        &self.host_log
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
        // A kernel body calling back in would wait forever for the engine, which is busy
        // running it: it fails instead (the block faults with this message).
        assert!(
            !crate::kernel::in_kernel(),
            "a kernel body called the simulator: a kernel reaches memory and time only \
             through its context"
        );
        let mut g = self.engine.lock().unwrap_or_else(PoisonError::into_inner);
        note_caller(&mut g);
        g
    }

    /// Charges `ns` of host time for the call under way, then lets a due host call that
    /// another thread is running (or is about to take) return before the call answers, for
    /// at most [`crate::engine::HOLD_LIMIT`] of wall time: the device then stands at the
    /// host's time when the call looks at it, however fast the other thread ran, so that the
    /// timeline does not depend on the host's scheduling.
    fn charge<'a>(&'a self, mut g: Guard<'a>, ns: u64) -> Guard<'a> {
        g.charge_host(ns);
        let held = |e: &Engine| e.host_calls.clock_stop().is_some_and(|s| s < e.host_now);
        if !held(&g) {
            return g;
        }
        let mut clock = WallClock::start();
        let id = g.begin_host_wait(HostWait::HeldByHostCall);
        while held(&g) {
            // The call may have become due just now: wake the thread that runs it.
            if std::mem::take(&mut g.host_calls.newly_due) {
                self.changed.notify_all();
            }
            let left = crate::engine::HOLD_LIMIT.saturating_sub(clock.elapsed());
            if left.is_zero() {
                break;
            }
            g = timed_wait(&self.engine, &self.changed, g, left, &mut clock);
            let t = g.host_now;
            g.run_until(t);
        }
        g.end_host_wait(id);
        g
    }

    /// Runs `f` under the lock after charging `ns` of host time ([`Sim::charge`]), and wakes
    /// host threads waiting on a stalled device.
    fn with_charge<R>(&self, ns: u64, f: impl FnOnce(&mut Engine) -> R) -> R {
        let g = self.lock();
        let mut g = self.charge(g, ns);
        let r = f(&mut g);
        self.release(g);
        r
    }

    /// Runs `f` under the lock and wakes host threads waiting on a stalled device.
    fn with<R>(&self, f: impl FnOnce(&mut Engine) -> R) -> R {
        let mut g = self.lock();
        let r = f(&mut g);
        self.release(g);
        r
    }

    /// Releases the engine and wakes the host threads sleeping on a stalled device, if any:
    /// every such thread recorded its wait (under the lock) before sleeping, so none is
    /// missed, and a call with nobody asleep makes no system call.
    fn release(&self, mut g: Guard<'_>) {
        self.host_clock.set(g.host_time());
        // A host call that became due wakes the threads waiting to run one.
        let due = std::mem::take(&mut g.host_calls.newly_due);
        let sleepers = !g.host_waits.is_empty();
        drop(g);
        if sleepers || due {
            self.changed.notify_all();
        }
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
        let mut done = done;
        if done(&g) {
            return (g, Ok(()));
        }
        let mut record = None;
        let since = g.host_time();
        let (mut g, r) = self.drive_until(g, what, &mut record, timeout_ms, done);
        if let Some(id) = record {
            g.end_host_wait(id);
        }
        crate::host_track::note_wait(g.host_time().saturating_sub(since));
        (g, r)
    }

    /// The watchdog's grace ran out: under `on_stall = error` the waiting call ends with the
    /// diagnosis (returned); under `wait` it is said once (`logged`) and the wait goes on.
    fn watchdog_speaks(
        &self,
        logged: &mut bool,
        diagnose: impl FnOnce() -> Diagnosis,
    ) -> Option<SimError> {
        match self.config.on_stall {
            OnStall::Error => {
                let d = diagnose();
                tracing::warn!("watchdog: {}", d.text);
                Some(SimError::Stalled(Box::new(d)))
            }
            OnStall::Wait => {
                if !*logged {
                    *logged = true;
                    speak_up(&diagnose().text);
                }
                None
            }
        }
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
        let deadline = timeout_ms.and_then(|ms| deadline_after(g.host_time(), ms));
        let grace = self.config.watchdog_grace;
        let mut clock = WallClock::start();
        let mut stall: Option<(Duration, u64)> = None;
        let mut logged = false;
        // Kernels stepping without effect: since when (wall), and steps so far.
        let mut spinning: Option<Duration> = None;
        let mut idle_steps = 0u64;
        let mut fast_forwarded = false;
        loop {
            if done(&g) {
                return (g, Ok(()));
            }
            if let Some(next) = g.next_time() {
                if let (Some(dl), Some(ms)) = (deadline, timeout_ms) {
                    if next > dl {
                        g.run_until(dl);
                        let err = if fast_forwarded {
                            SimError::TimeoutBlocked(ms, Box::new(spin_diagnosis(&g)))
                        } else {
                            SimError::Timeout(ms)
                        };
                        return (g, Err(err));
                    }
                }
                let effects = g.effects;
                g.step();
                if g.host_calls.newly_due {
                    // A host call became due: wake the threads that wait to run it.
                    g.host_calls.newly_due = false;
                    self.changed.notify_all();
                }
                stall = None;
                if g.effects != effects || g.kernel_runs.is_empty() {
                    spinning = None;
                    idle_steps = 0;
                    continue;
                }
                idle_steps += 1;
                if !idle_steps.is_multiple_of(SPIN_CHECK_STEPS) {
                    continue;
                }
                // Long enough that they poll, and nothing but their own steps is scheduled
                // before the deadline: what they read cannot change until then, so the
                // spin is skipped rather than run.
                if idle_steps >= SPIN_FAST_FORWARD_STEPS
                    && deadline.is_some_and(|dl| g.fast_forward_spin(dl))
                {
                    fast_forwarded = true;
                    continue;
                }
                // Only kernels step, changing nothing: they may spin forever, waiting for
                // what only another host thread can do, or for what they cannot see. Let
                // the other host threads in, and let the watchdog judge by wall time.
                drop(g);
                std::thread::yield_now();
                g = self.lock();
                // Wall time only: a timeout is simulated time, which runs on meanwhile.
                let since = *spinning.get_or_insert_with(|| clock.elapsed());
                if clock.elapsed().saturating_sub(since) >= grace {
                    // A force destroy's drain does not wait on kernels that poll for ever.
                    if matches!(what, HostWait::DrainStream(_)) {
                        let why = Box::new(spin_diagnosis(&g));
                        return (g, Err(SimError::Stalled(why)));
                    }
                    if let Some(e) = self.watchdog_speaks(&mut logged, || spin_diagnosis(&g)) {
                        return (g, Err(e));
                    }
                }
                continue;
            }
            // Nothing scheduled: only another host thread can change anything.
            if record.is_none() {
                *record = Some(g.begin_host_wait(what));
            }
            // A host thread running a host call is progress the engine cannot see: the
            // watchdog waits for it to return, unless it is this thread, waiting here.
            if g.host_calls.running_elsewhere() {
                stall = None;
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
            // A call another thread runs holds the clock for a while only: look again when
            // its hold ends.
            if g.host_calls.holding_elsewhere() {
                sleep = sleep.min(crate::engine::HOLD_LIMIT);
            }
            if waited >= limit {
                if let (Some(ms), Some(dl)) = (timeout_ms, deadline) {
                    g.run_until(dl);
                    let why = Box::new(stall_diagnosis(&g));
                    return (g, Err(SimError::TimeoutBlocked(ms, why)));
                }
                if let Some(e) = self.watchdog_speaks(&mut logged, || stall_diagnosis(&g)) {
                    return (g, Err(e));
                }
                sleep = Duration::from_millis(200);
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
        self.release(g);
        r?;
        fault.map_or(Ok(()), Err)
    }

    /// Finishes a successful synchronize: the host observes the completion.
    fn observed<'a>(&'a self, g: Guard<'a>) -> Guard<'a> {
        self.charge(g, self.chip.timing.host_sync_ns)
    }

    /// How far the run has got (tasks completed, time reached), to read from any thread
    /// without taking the engine lock.
    pub fn progress(&self) -> std::sync::Arc<crate::RunProgress> {
        self.lock().published.clone()
    }

    /// The simulated host clock, in ns (the later of the host's and the device's clocks).
    pub fn now_ns(&self) -> u64 {
        self.lock().host_time()
    }

    /// Charges `ns` of simulated host time for host-side work (an API call's own cost); the
    /// device runs meanwhile.
    pub fn charge_host(&self, ns: u64) {
        self.with_charge(ns, |_| ());
    }
}

thread_local! {
    /// This thread's key for [`note_caller`] (0: none yet).
    static CALLER_KEY: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// The thread serves the runtime (its host-function thread, the pacer) and does not count
    /// as a caller.
    static SERVICE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Keys handed out so far.
static CALLER_KEYS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Notes which host thread takes the engine, so that the engine knows whether one host thread
/// or several ever called.
fn note_caller(e: &mut Engine) {
    if SERVICE.with(std::cell::Cell::get) {
        return;
    }
    let key = CALLER_KEY.with(|k| {
        if k.get() == 0 {
            k.set(CALLER_KEYS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1);
        }
        k.get()
    });
    if e.last_caller != key {
        e.many_callers |= e.last_caller != 0;
        e.last_caller = key;
    }
}

/// Marks the calling thread as one of the runtime's service threads (`on`), whose calls into
/// the simulator do not count as a host program's (the runtime's host-function thread while it
/// waits for a call, the pacer), or as a host thread again.
pub fn service_thread(on: bool) {
    SERVICE.with(|s| s.set(on));
}

/// Engine steps between two looks at the wall clock while only kernels step without effect.
const SPIN_CHECK_STEPS: u64 = 256;

/// Steps without effect after which kernels count as polling, and a timed wait with nothing
/// else scheduled before its deadline skips to it.
const SPIN_FAST_FORWARD_STEPS: u64 = 16 * SPIN_CHECK_STEPS;

/// The diagnosis while kernels spin without effect.
fn spin_diagnosis(e: &Engine) -> Diagnosis {
    e.diagnose_spinning().unwrap_or_else(|| Diagnosis {
        at_ns: e.now,
        blocked: Vec::new(),
        host_waits: e.host_wait_lines(),
        text: format!("kernels spin without progress at {} ns", e.now),
    })
}

/// The engine's diagnosis, or a plain one when no stream is blocked on anything nameable.
fn stall_diagnosis(e: &Engine) -> Diagnosis {
    e.diagnose().unwrap_or_else(|| Diagnosis {
        at_ns: e.now,
        blocked: Vec::new(),
        host_waits: e.host_wait_lines(),
        text: format!(
            "at {} ns the awaited work cannot complete and nothing is scheduled",
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
            assert_eq!(
                s.execute_model(m, Some(1))
                    .err()
                    .and_then(|e| e.timeout_ms()),
                Some(1)
            );
        }
        assert_eq!(s.lock().instances.len(), 3);
        s.write(a, &1u64.to_le_bytes()).unwrap();
        s.synchronize_device(0, None).unwrap();
        assert!(s.lock().instances.is_empty());
    }
}
