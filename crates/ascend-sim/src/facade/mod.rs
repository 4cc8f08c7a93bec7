//! [`Sim`]: the thread-safe, host-facing handle of the simulator.
//!
//! One mutex guards the engine; host threads that must wait for the device either drive the
//! event loop themselves (when events are scheduled) or, when the device is stalled, sleep on
//! a condition variable until another host thread changes something, as a host thread blocked
//! on real hardware does. The watchdog speaks after `SimConfig::watchdog_grace` of wall time
//! without progress.
//!
//! This file owns the [`Sim`] handle itself: the lock, the host's waits on the device
//! (`block_until`, the watchdog) and the host clock. The hand-off to the core thread that runs
//! kernel blocks is in `core_handoff`; the calls on memory are in `memory`, on streams
//! (submission and synchronization) in `streams`, on events and notifies in `events`, on
//! models in `models`, and the reports in `reports`.

mod core_handoff;
mod events;
mod memory;
mod models;
mod reports;
mod running_host_calls;
mod streams;
mod virtual_memory;
mod watched;

pub use watched::WatchedEnd;

use std::sync::{Arc, PoisonError};
use std::time::Duration;

use ascend_chips::ChipProfile;

use crate::engine::{deadline_after, Engine};
use crate::sync::{timed_wait, Condvar, Mutex, MutexGuard, WallClock};
use crate::types::*;

/// One simulated host with its devices (all of one SoC). Cheap to share (`Arc<Sim>`); every
/// method may be called from any host thread.
#[derive(Debug)]
pub struct Sim {
    inner: std::sync::Arc<SimShared>,
}

/// What a [`Sim`] shares with its core thread (`crate::core_thread`).
#[derive(Debug)]
pub struct SimShared {
    me: std::sync::Weak<SimShared>,
    chip: ChipProfile,
    config: SimConfig,
    engine: Mutex<Engine>,
    changed: Condvar,
    /// Wakes the core thread: a job was posted, blocks are to be stopped, or the end.
    core_wake: Condvar,
    /// Wakes the host threads waiting for the core thread's answers.
    core_done: Condvar,
    /// The host clock as of the latest call's end, without the engine's lock.
    host_clock: crate::host_track::PublishedHostClock,
    /// The host threads' API calls (their own lock: no device work takes it).
    host_log: Mutex<crate::host_track::HostLog>,
    /// Where the tasks were submitted (the engine's, shared: its own lock).
    task_sites: std::sync::Arc<crate::task_sites::TaskSites>,
    /// A virtual range was ever reserved: until then no address needs translating, and the
    /// calls that name memory skip the look-up (`virtual_memory`).
    va_used: std::sync::atomic::AtomicBool,
}

impl std::ops::Deref for Sim {
    type Target = SimShared;

    fn deref(&self) -> &SimShared {
        &self.inner
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        let mut g = self.engine.lock().unwrap_or_else(PoisonError::into_inner);
        g.core_jobs.shutdown = true;
        drop(g);
        self.core_wake.notify_all();
    }
}

type Guard<'a> = MutexGuard<'a, Engine>;

/// The state of one host wait's drive of the device, carried between the host thread and the
/// core thread.
#[derive(Debug, Clone)]
pub(crate) struct DriveState {
    what: HostWait,
    timeout_ms: Option<u64>,
    deadline: Option<u64>,
    clock: WallClock,
    logged: bool,
    /// Kernels stepping without effect: since when (wall), and steps so far.
    spinning: Option<Duration>,
    idle_steps: u64,
    fast_forwarded: bool,
}

/// Why a drive stopped.
#[derive(Debug)]
pub(crate) enum Flow {
    /// The wait is over, or failed.
    Done(Result<(), SimError>),
    /// Nothing is scheduled: only another host thread can change anything.
    Stalled,
    /// A kernel block's turn comes: the core thread goes on.
    NeedsCore,
    /// Another job waits for the core thread: post the drive again.
    Yield,
}

/// The core thread's side of a drive: its blocks and its generation.
type OnCore<'b> = Option<(&'b mut crate::kernel::Blocks, u64)>;

impl Sim {
    /// A simulator of `chip` with `chip.limits.device_count` devices.
    pub fn new(chip: ChipProfile, config: SimConfig) -> Sim {
        let engine = Engine::new(chip.clone(), config.clone());
        let task_sites = engine.task_sites.clone();
        let inner = std::sync::Arc::new_cyclic(|me| SimShared {
            me: me.clone(),
            host_clock: Default::default(),
            engine: Mutex::new(engine),
            task_sites,
            chip,
            config,
            changed: Condvar::new(),
            core_wake: Condvar::new(),
            core_done: Condvar::new(),
            host_log: Mutex::new(Default::default()),
            va_used: Default::default(),
        });
        Sim { inner }
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

    /// Task `task` was submitted at `site` in the host program ("main (prog.c:17)"): its
    /// hazards, fault and a stalled wait at its head say so. Takes no engine lock.
    pub fn note_task_site(&self, task: TaskId, site: std::sync::Arc<str>) {
        self.task_sites.note(task.0, site);
    }

    /// Charges `ns` of simulated host time for host-side work (an API call's own cost); the
    /// device runs meanwhile.
    pub fn charge_host(&self, ns: u64) {
        self.with_charge(ns, |_| ());
    }
}

impl SimShared {
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
        let mut g = self.lock_as_is();
        if std::mem::take(&mut g.host_ahead) {
            let t = g.host_now;
            g = self.run_to(g, t);
        }
        g
    }

    /// The engine's lock for a host call, with the devices where they stand (see
    /// [`SimShared::with_charge_on`]).
    fn lock_as_is(&self) -> Guard<'_> {
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

    /// The engine's lock, as the core thread takes it.
    fn lock_engine(&self) -> Guard<'_> {
        self.engine.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs the device to `t`, handing kernel blocks' turns to the core thread.
    fn run_to<'a>(&'a self, g: Guard<'a>, t: u64) -> Guard<'a> {
        self.advance_to(g, t, &mut None).0
    }

    /// [`SimShared::run_to`] on either side: on the core thread (`core`) the turns are taken
    /// here. False when the core thread was given up meanwhile.
    fn advance_to<'a>(
        &'a self,
        mut g: Guard<'a>,
        t: u64,
        core: &mut OnCore<'_>,
    ) -> (Guard<'a>, bool) {
        while !g.run_until(t) {
            match core {
                Some((blocks, epoch)) => {
                    let (g2, current) = self.kernel_turn(g, blocks, *epoch);
                    g = g2;
                    if !current {
                        return (g, false);
                    }
                }
                None => g = self.delegate(g, crate::core_thread::Job::RunUntil(t)).0,
            }
        }
        (g, true)
    }

    /// Charges `ns` of host time for the call under way, then lets a due host call that
    /// another thread is running (or is about to take) return before the call answers, for
    /// at most [`crate::engine::HOLD_LIMIT`] of wall time: the device then stands at the
    /// host's time when the call looks at it, however fast the other thread ran, so that the
    /// timeline does not depend on the host's scheduling.
    fn charge<'a>(&'a self, mut g: Guard<'a>, ns: u64) -> Guard<'a> {
        g.charge_clock(ns);
        let t = g.host_now;
        let mut g = self.run_to(g, t);
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
            g = self.run_to(g, t);
        }
        g.end_host_wait(id);
        g
    }

    /// Runs `f` under the lock after charging `ns` of host time ([`SimShared::charge`]), and
    /// wakes host threads waiting on a stalled device.
    fn with_charge<R>(&self, ns: u64, f: impl FnOnce(&mut Engine) -> R) -> R {
        let g = self.lock();
        let mut g = self.charge(g, ns);
        let r = f(&mut g);
        self.release(g);
        r
    }

    /// [`SimShared::with_charge`] for a call that changes only `device`'s own bookkeeping
    /// (an allocation, a new stream or event) and reads no device state. While `device` has no
    /// task queued, the devices are not run to the host's time: nothing the call changes can
    /// meet work of that device, and the next call that looks at the devices runs them to the
    /// host's time first (`Engine::host_ahead`), which processes the same events at the same
    /// simulated times. So such a call does not wait while another device runs a large
    /// kernel. (A task of another device that reaches into this device's memory while the
    /// call frees it sees the free at the call's start, not at its end: a use after free
    /// either way.)
    fn with_charge_on<R>(&self, device: u32, ns: u64, f: impl FnOnce(&mut Engine) -> R) -> R {
        let mut g = self.lock_as_is();
        if g.device_idle(device) {
            g.charge_clock(ns);
            g.host_ahead = true;
        } else {
            g.host_ahead = false;
            g = self.charge(g, ns);
        }
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
    /// missed, and a call with nobody asleep makes no system call. Blocks ended by the call
    /// are handed to the core thread to unwind.
    fn release(&self, mut g: Guard<'_>) {
        self.host_clock.set(g.host_time());
        // A host call that became due wakes the threads waiting to run one.
        let due = std::mem::take(&mut g.host_calls.newly_due);
        let sleepers = !g.host_waits.is_empty();
        let stopped = !g.stopped_blocks.is_empty() && g.core_jobs.started;
        drop(g);
        if sleepers || due {
            self.changed.notify_all();
        }
        if stopped {
            self.core_wake.notify_all();
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
        done: impl Fn(&Engine) -> bool + Send + Sync + 'static,
    ) -> (Guard<'a>, Result<(), SimError>) {
        if done(&g) {
            return (g, Ok(()));
        }
        let mut record = None;
        let since = g.host_time();
        let until: crate::core_thread::Until = std::sync::Arc::new(done);
        let (mut g, r) = self.drive_until(g, what, &mut record, timeout_ms, until);
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
                ascend_types::warn_user!("watchdog: {}", d.text);
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

    /// The loop of [`SimShared::block_until`]. The host wait is recorded (in `record`) only
    /// once the device has stalled, so that the watchdog can name it; a wait that never stalls
    /// costs nothing.
    fn drive_until<'a>(
        &'a self,
        g: Guard<'a>,
        what: HostWait,
        record: &mut Option<u64>,
        timeout_ms: Option<u64>,
        until: crate::core_thread::Until,
    ) -> (Guard<'a>, Result<(), SimError>) {
        // A timeout ending beyond the simulator's horizon is no timeout: never run the device
        // to an effectively infinite deadline.
        let deadline = timeout_ms.and_then(|ms| deadline_after(g.host_time(), ms));
        let grace = self.config.watchdog_grace;
        let mut st = DriveState {
            what,
            timeout_ms,
            deadline,
            clock: WallClock::start(),
            logged: false,
            spinning: None,
            idle_steps: 0,
            fast_forwarded: false,
        };
        let mut g = g;
        let mut stall: Option<(Duration, u64)> = None;
        loop {
            let (g2, flow) = self.drive_steps(g, &mut st, &*until, &mut None);
            g = g2;
            match flow {
                Flow::Done(r) => return (g, r),
                Flow::NeedsCore | Flow::Yield => {
                    let job = crate::core_thread::Job::Drive {
                        state: st.clone(),
                        until: until.clone(),
                    };
                    let (g2, answer) = self.delegate(g, job);
                    g = g2;
                    if let Some(crate::core_thread::JobResult::Drove(state, flow)) = answer {
                        st = state;
                        match flow {
                            Flow::Done(r) => return (g, r),
                            Flow::Stalled => {}
                            Flow::NeedsCore | Flow::Yield => continue,
                        }
                    } else {
                        continue;
                    }
                }
                Flow::Stalled => {}
            }
            if g.next_time().is_some() || until(&g) {
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
                    let t = st.clock.elapsed();
                    stall = Some((t, progress));
                    t
                }
            };
            let limit = match timeout_ms {
                Some(ms) => grace.min(Duration::from_millis(ms)),
                None => grace,
            };
            let waited = st.clock.elapsed().saturating_sub(since);
            let mut sleep = limit.saturating_sub(waited);
            // A call another thread runs holds the clock for a while only: look again when
            // its hold ends.
            if g.host_calls.holding_elsewhere() {
                sleep = sleep.min(crate::engine::HOLD_LIMIT);
            }
            if waited >= limit {
                if let (Some(ms), Some(dl)) = (timeout_ms, deadline) {
                    g = self.run_to(g, dl);
                    let why = Box::new(stall_diagnosis(&g));
                    return (g, Err(SimError::TimeoutBlocked(ms, why)));
                }
                if let Some(e) = self.watchdog_speaks(&mut st.logged, || stall_diagnosis(&g)) {
                    return (g, Err(e));
                }
                sleep = Duration::from_millis(200);
            }
            g = timed_wait(
                &self.engine,
                &self.changed,
                g,
                sleep.max(Duration::from_millis(1)),
                &mut st.clock,
            );
        }
    }

    /// Steps the device for a drive until the wait is over ([`Flow::Done`]), nothing is
    /// scheduled ([`Flow::Stalled`]), or, on a host thread, a kernel block's turn comes
    /// ([`Flow::NeedsCore`]); on the core thread (`core`) the turns are taken here, and the
    /// drive yields ([`Flow::Yield`]) when another job waits. Each step is followed by the
    /// same checks on either side, so the timeline does not depend on which side stepped.
    fn drive_steps<'a>(
        &'a self,
        mut g: Guard<'a>,
        st: &mut DriveState,
        done: &(dyn Fn(&Engine) -> bool + Send + Sync),
        core: &mut OnCore<'_>,
    ) -> (Guard<'a>, Flow) {
        let grace = self.config.watchdog_grace;
        loop {
            if done(&g) {
                return (g, Flow::Done(Ok(())));
            }
            let Some(next) = g.next_time() else {
                return (g, Flow::Stalled);
            };
            if let (Some(dl), Some(ms)) = (st.deadline, st.timeout_ms) {
                if next > dl {
                    let (g2, current) = self.advance_to(g, dl, core);
                    g = g2;
                    if !current {
                        return (g, Flow::Yield);
                    }
                    let err = if st.fast_forwarded {
                        SimError::TimeoutBlocked(ms, Box::new(spin_diagnosis(&g)))
                    } else {
                        SimError::Timeout(ms)
                    };
                    return (g, Flow::Done(Err(err)));
                }
            }
            let effects = g.effects;
            if g.step() == crate::engine::Step::KernelTurn {
                match core {
                    Some((blocks, epoch)) => {
                        let (g2, current) = self.kernel_turn(g, blocks, *epoch);
                        g = g2;
                        if !current {
                            return (g, Flow::Yield);
                        }
                    }
                    None => return (g, Flow::NeedsCore),
                }
            }
            if g.host_calls.newly_due {
                // A host call became due: wake the threads that wait to run it.
                g.host_calls.newly_due = false;
                self.changed.notify_all();
            }
            if core.is_some() && g.core_jobs.others_waiting() {
                return (g, Flow::Yield);
            }
            if g.effects != effects || g.kernel_runs.is_empty() {
                st.spinning = None;
                st.idle_steps = 0;
                continue;
            }
            st.idle_steps += 1;
            if !st.idle_steps.is_multiple_of(SPIN_CHECK_STEPS) {
                continue;
            }
            // Long enough that they poll, and nothing but their own steps is scheduled
            // before the deadline: what they read cannot change until then, so the
            // spin is skipped rather than run.
            if st.idle_steps >= SPIN_FAST_FORWARD_STEPS
                && st.deadline.is_some_and(|dl| g.fast_forward_spin(dl))
            {
                st.fast_forwarded = true;
                continue;
            }
            // Only kernels step, changing nothing: they may spin forever, waiting for
            // what only another host thread can do, or for what they cannot see. Let
            // the other host threads in, and let the watchdog judge by wall time.
            drop(g);
            std::thread::yield_now();
            g = if core.is_some() {
                self.lock_engine()
            } else {
                self.lock()
            };
            // Wall time only: a timeout is simulated time, which runs on meanwhile.
            let since = *st.spinning.get_or_insert_with(|| st.clock.elapsed());
            if st.clock.elapsed().saturating_sub(since) >= grace {
                // A force destroy's drain does not wait on kernels that poll for ever.
                if matches!(st.what, HostWait::DrainStream(_)) {
                    let why = Box::new(spin_diagnosis(&g));
                    return (g, Flow::Done(Err(SimError::Stalled(why))));
                }
                if let Some(e) = self.watchdog_speaks(&mut st.logged, || spin_diagnosis(&g)) {
                    return (g, Flow::Done(Err(e)));
                }
            }
        }
    }

    /// On the core thread: serves `job`. `None` when this core thread was given up meanwhile.
    fn serve<'a>(
        &'a self,
        g: Guard<'a>,
        job: crate::core_thread::Job,
        blocks: &mut crate::kernel::Blocks,
        epoch: u64,
    ) -> (Guard<'a>, Option<crate::core_thread::JobResult>) {
        use crate::core_thread::{Job, JobResult};
        let mut core: OnCore<'_> = Some((blocks, epoch));
        match job {
            Job::RunUntil(t) => {
                let (g, current) = self.advance_to(g, t, &mut core);
                (g, current.then_some(JobResult::Ran))
            }
            Job::Drive { mut state, until } => {
                let (g, flow) = self.drive_steps(g, &mut state, &*until, &mut core);
                let current = g.core_jobs.epoch == epoch;
                (g, current.then_some(JobResult::Drove(state, flow)))
            }
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
    let key = caller_key();
    if e.last_caller != key {
        e.many_callers |= e.last_caller != 0;
        e.last_caller = key;
    }
}

thread_local! {
    /// The calling thread runs [`untracked`] work.
    static UNTRACKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with the calling thread's synchronous reads, writes, fills and copies hidden from
/// race detection: for a runtime's own copies that are not the program's accesses (keeping a
/// mapped host registration and its device mirror alike).
pub fn untracked<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            UNTRACKED.with(|u| u.set(self.0));
        }
    }
    let _reset = Reset(UNTRACKED.with(|u| u.replace(true)));
    f()
}

/// True while the calling thread runs [`untracked`] work.
pub(crate) fn is_untracked() -> bool {
    UNTRACKED.with(std::cell::Cell::get)
}

/// The calling thread's number (1 for the first thread that asked, then 2, ...), service
/// threads included: the race detector's name for a host thread.
pub(crate) fn caller_key() -> u64 {
    CALLER_KEY.with(|k| {
        if k.get() == 0 {
            k.set(CALLER_KEYS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1);
        }
        k.get()
    })
}

/// A new host thread's number, for a thread that acts for several host threads in turn
/// ([`act_as_host_thread`]).
pub fn new_host_thread() -> u64 {
    CALLER_KEYS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
}

/// The calling thread's calls are host thread `thread`'s (a number from
/// [`new_host_thread`]) until it says otherwise: the shared device service serves each program
/// thread's calls on whichever of its connection threads takes them, and the race detector, the
/// host clock and what the simulator says of a call must see the program's thread.
pub fn act_as_host_thread(thread: u64) {
    CALLER_KEY.with(|k| k.set(thread));
}

/// What each labelled host thread is (its caller key's label): the shared device service
/// labels a connection's thread with the process it serves.
static HOST_LABELS: std::sync::LazyLock<
    std::sync::Mutex<std::collections::HashMap<u64, Arc<str>>>,
> = std::sync::LazyLock::new(Default::default);

/// Labels the calling thread's host calls (`Some("process 1234")`) in what the simulator says
/// of them ("host thread 3 (process 1234)"), or removes its label (`None`).
pub fn label_host_thread(label: Option<&str>) {
    let key = caller_key();
    let mut m = HOST_LABELS.lock().unwrap_or_else(PoisonError::into_inner);
    match label {
        Some(l) => {
            m.insert(key, l.into());
        }
        None => {
            m.remove(&key);
        }
    }
}

/// "host thread 3", with its label where it has one: "host thread 3 (process 1234)".
pub(crate) fn host_thread_name(thread: u64) -> String {
    let m = HOST_LABELS.lock().unwrap_or_else(PoisonError::into_inner);
    match m.get(&thread) {
        Some(l) => format!("host thread {thread} ({l})"),
        None => format!("host thread {thread}"),
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
    if ascend_types::warning::has_logger() {
        tracing::warn!("watchdog (still waiting): {diagnosis}");
    } else {
        eprintln!("ascend-sim watchdog: a host thread is waiting on a stalled device (still waiting):\n{diagnosis}");
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
