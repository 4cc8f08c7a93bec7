//! The single-threaded discrete-event core: simulated time, the event heap (ordered by time,
//! then by sequence number, so the timeline is deterministic) and the device-side objects.
//! Task execution lives in [`crate::exec`]; the host-facing locking in [`crate::facade`].
//!
//! This file owns the scheduler: the [`Engine`] state, the event heap and simulated time
//! (`schedule`, `step`, `run_until`, `next_time`). How device agents reach memory (through
//! the L2 or around it) is in `agent_access`. The creation, lookup and removal of
//! streams, events, notifies and models is in `registry`; putting tasks on queues (and model
//! instances on their streams) in `submit`; the sets of streams blocked on a word, an event,
//! a notify or a barrier in `waiters`.

mod agent_access;
mod due_host_calls;
mod event_queue;
mod registry;
mod stream_table;
mod submit;
mod waiters;
mod watchers;

pub use stream_table::StreamTable;
pub use watchers::Watchers;

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use ascend_chips::{ChipProfile, ChipType};

pub use due_host_calls::{DueHostCall, HostCalls, HOLD_LIMIT};

use crate::cache::L2;
use crate::copy_pool::Pool;
use crate::kernel::{Core, KernelRun};
use crate::memory::Memory;
use crate::objects::{Event, Instance, Model, Notify};
use crate::report::ReportData;
use crate::types::SimConfig;
use event_queue::EventQueue;

/// The latest simulated time the engine ever reaches (2^62 ns, about 146 years): every
/// scheduled time and deadline is clamped to it, so that no addition of simulated time can
/// overflow, and a timeout that ends beyond it counts as no timeout.
pub const HORIZON_NS: u64 = 1 << 62;

/// The simulated time `ms` milliseconds after `now`, if it is before [`HORIZON_NS`].
pub fn deadline_after(now: u64, ms: u64) -> Option<u64> {
    ms.checked_mul(1_000_000)
        .and_then(|d| now.checked_add(d))
        .filter(|&t| t <= HORIZON_NS)
}

/// A data-cache fill of a line another core held dirty, to be looked at again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingFill {
    /// Device.
    pub dev: u32,
    /// The reading core.
    pub core: u32,
    /// The line.
    pub line: u64,
    /// The reading block's number.
    pub block: u64,
    /// When it filled.
    pub at_ns: u64,
}

/// Something scheduled to happen at a simulated time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ev {
    /// The scheduler finished dispatching a stream's head task.
    Dispatched {
        /// Stream.
        s: u64,
        /// Stream generation.
        gen: u64,
    },
    /// A running head task completes.
    Complete {
        /// Stream.
        s: u64,
        /// Stream generation.
        gen: u64,
    },
    /// A value wait's poll read returns.
    Poll {
        /// Stream.
        s: u64,
        /// Stream generation.
        gen: u64,
        /// Check generation.
        check: u64,
    },
    /// A copy job finished its setup and starts moving data.
    SetupDone {
        /// Stream.
        s: u64,
        /// Stream generation.
        gen: u64,
    },
    /// A notify wait's own timeout expires.
    NotifyTimeout {
        /// Stream.
        s: u64,
        /// Stream generation.
        gen: u64,
        /// The waiting task.
        task: u64,
    },
    /// Kernel blocks waiting for cores may start on device `dev`.
    KernelPlace {
        /// Device.
        dev: u32,
    },
    /// The block on an AI core takes its next step.
    KernelStep {
        /// Device.
        dev: u32,
        /// Core.
        core: u32,
        /// Core generation (bumped when its block ends).
        gen: u64,
    },
    /// A store a value wait cannot see yet is looked at again.
    InvisibleCheck {
        /// Address of the store.
        addr: u64,
        /// Its bytes.
        len: u64,
    },
    /// A data-cache fill that read a line another core held dirty is looked at again.
    FillCheck(PendingFill),
    /// The earliest job of an engine pool may have finished.
    PoolNext {
        /// Device.
        dev: u32,
        /// Engine index.
        engine: usize,
        /// Pool generation.
        gen: u64,
    },
}

/// Kernel tasks whose names are kept after they end.
pub const KERNEL_NAMES_KEPT: usize = 4096;

/// The simulator's device side.
#[derive(Debug)]
pub struct Engine {
    /// The chip.
    pub chip: ChipProfile,
    /// Settings.
    pub config: SimConfig,
    /// The device's clock (ns): how far the device has run.
    pub now: u64,
    /// The host's clock (ns): the sum of the host calls' costs, never behind the device's
    /// clock once a call has started. The device runs to it before a call answers; it lags
    /// only while a due host call holds the clock ([`HostCalls::clock_stop`]), and catches up
    /// when the call returns.
    pub host_now: u64,
    /// A call that needed no device ran the host's clock ahead of the devices without running
    /// them (`Sim`'s `with_charge_on`): the next call that looks runs them to the host's time
    /// first.
    pub host_ahead: bool,
    /// The latest host thread to call (its key), and whether two threads ever called: with
    /// one host thread, nothing outside the device can change what a spinning kernel reads.
    pub last_caller: u64,
    /// Two host threads (other than the runtime's service threads) have called.
    pub many_callers: bool,
    events_due: EventQueue,
    /// Device memory.
    pub mem: Memory,
    /// Each device's L2, in front of its memory.
    pub l2: Vec<L2>,
    /// The blocks of each descriptor CMO in flight, as read when it was dispatched.
    pub desc_blocks: HashMap<u64, Vec<(u64, u64)>>,
    /// Streams by id.
    pub streams: StreamTable,
    next_stream: u64,
    /// Events by id.
    pub events: BTreeMap<u64, Event>,
    next_event: u64,
    next_record: u64,
    /// Notifies by id.
    pub notifies: BTreeMap<u64, Notify>,
    next_notify: u64,
    /// Streams whose head notify wait is blocked on each notify.
    pub notify_waiters: BTreeMap<u64, BTreeSet<u64>>,
    /// Models by id.
    pub models: BTreeMap<u64, Model>,
    next_model: u64,
    /// Model instances in flight.
    pub instances: BTreeMap<u64, Instance>,
    next_instance: u64,
    /// Model runs queued (`execute_model_async`) and not yet started, by marker task: their
    /// instance's event records and waits, numbered when the host made the call.
    pub(crate) run_numbering: HashMap<u64, submit::RunNumbering>,
    /// Outstanding INVALID CMOs per (model, logical barrier id).
    pub barriers: BTreeMap<(Option<u64>, u32), u32>,
    /// Streams whose head value wait watches each 8-byte word.
    pub watchers: Watchers,
    /// Reused by `on_mem_write` for the streams to wake (no allocation per write).
    wake_scratch: Vec<u64>,
    /// Streams whose head event wait is blocked on each event.
    pub event_waiters: BTreeMap<u64, BTreeSet<u64>>,
    /// Streams whose head barrier wait is blocked.
    pub barrier_waiters: BTreeSet<u64>,
    /// Copy-engine jobs in flight: task → stream.
    pub copy_owner: BTreeMap<u64, u64>,
    /// Per device: streams with tasks queued (kept as queues fill and empty, so that a
    /// device-wide synchronize checks one number after each event, not every stream).
    busy_streams: Vec<u64>,
    /// Per device: time the task scheduler is free.
    pub sched_free: Vec<u64>,
    /// Per device: scheduler dispatches and busy time.
    pub sched_stats: Vec<(u64, u64)>,
    /// Per device: the copy engine and the CMO engine.
    pub pools: Vec<[Pool; 2]>,
    next_task: u64,
    /// Report data collected while running.
    pub report: ReportData,
    /// The happens-before race detector (idle unless `config.races`).
    pub races: crate::races::Races,
    /// A seeded schedule's dispatch lags (`config.schedule_seed`).
    pub schedule: Option<crate::schedule::Schedule>,
    /// Bumped whenever anything happens (the watchdog's notion of progress).
    pub progress: u64,
    /// Host threads waiting on a stalled device, by wait number, and what each waits in.
    pub host_waits: BTreeMap<u64, (crate::types::HostWait, String)>,
    next_host_wait: u64,
    /// Bumped by what changes what a spinning kernel could see (a task completing, a memory
    /// write, a kernel's store): the watchdog's notion of progress while kernels run.
    pub effects: u64,
    /// Kernel tasks running or waiting for cores, by task number.
    pub kernel_runs: BTreeMap<u64, KernelRun>,
    /// Where in the host program the latest tasks were submitted (shared with the facade,
    /// which notes them without the engine's lock).
    pub task_sites: std::sync::Arc<crate::task_sites::TaskSites>,
    /// The names of the latest kernel tasks (at most [`KERNEL_NAMES_KEPT`]), by task number:
    /// what a kernel wrote is named with its kernel after the kernel ended.
    pub kernel_names: BTreeMap<u64, std::sync::Arc<str>>,
    /// Per device: its AI cores, each with its data cache and the block it runs.
    pub cores: Vec<Vec<Core>>,
    /// Per device: kernel tasks with blocks waiting for a core, in dispatch order.
    pub core_queue: Vec<VecDeque<u64>>,
    /// Dirty data-cache lines on all cores (the sanitizer looks for them only when some are).
    pub dirty_dlines: u64,
    /// Data-cache fills of a line another core held dirty, waiting for their second look
    /// ([`Ev::FillCheck`]), each as that event names it: a writer's kernel ending first takes
    /// the look at once, before its tail writes the line back.
    pub(crate) pending_fill_checks: Vec<PendingFill>,
    /// Line addresses taken out of a data cache, kept to be reused (no allocation per take).
    pub(crate) line_scratch: Vec<u64>,
    /// Block numbers handed out so far (a block's coroutine is known by its number).
    pub next_block_id: u64,
    /// Blocks that ended while suspended: the core thread unwinds or forgets them.
    pub stopped_blocks: Vec<u64>,
    /// The block whose turn the core thread runs now, with the engine's lock released: no
    /// other step may be taken until it ends.
    pub kernel_turn: Option<u64>,
    /// Work handed to the core thread and its answers.
    pub core_jobs: crate::core_thread::CoreJobs,
    /// Tasks completed, and what of it is published to other threads.
    pub tasks_completed: u64,
    /// Tasks completed and the time reached, readable without the engine lock.
    pub published: std::sync::Arc<crate::progress::RunProgress>,
    /// The latest stores a `dci` or a kernel's tail dropped (line, what was dropped), for the
    /// watchdog's explanation of a wait they would have released.
    pub dropped_stores: VecDeque<(u64, String)>,
    /// Host calls that streams have reached and no host thread has finished yet.
    pub host_calls: HostCalls,
    /// Task faults not yet taken by the host (for its exception callback), oldest first; at
    /// most [`FAULT_LOG_LIMIT`] are kept.
    pub fault_log: VecDeque<crate::types::TaskFault>,
    /// Host calls dropped without running (their stream aborted, stopped after a failure, or
    /// destroyed), not yet taken by the host, whose closures the host may now release.
    pub dropped_host_calls: Vec<u64>,
    /// Host calls whose model recording is gone while copies of a run may still be queued or
    /// due: released (moved to `dropped_host_calls`) once no copy is left.
    pub retired_host_calls: Vec<u64>,
    /// Streams dropped with queued tasks: the stream and the ids of the tasks it dropped, for
    /// the latest 1,024 such streams (a host thread waiting on one reads it as soon as it
    /// wakes).
    pub dropped_with_work: std::collections::VecDeque<(u64, Vec<u64>)>,
    /// Tasks whose end the host asks about later ([`crate::Sim::watched_ends`]): `None` while
    /// not ended, then whether it ran without a fault and its place in the order tasks
    /// completed (`tasks_completed` then).
    pub watched: HashMap<u64, Option<(bool, u64)>>,
}

/// The most task faults [`Engine::fault_log`] keeps for the host.
pub const FAULT_LOG_LIMIT: usize = 1024;

impl Engine {
    /// A fresh device side.
    pub fn new(chip: ChipProfile, config: SimConfig) -> Engine {
        let races_on = config.races;
        let schedule_seed = config.schedule_seed;
        let n = chip.limits.device_count.max(1);
        let m = &chip.memory;
        let mem = Memory::new(
            n,
            m.device_bytes,
            m.base_alignment,
            m.backing_page_bytes,
            config.poison_byte,
        );
        let t = &chip.timing;
        let pools = (0..n)
            .map(|_| {
                [
                    Pool::new("copy", t.h2d_gbps, t.d2h_gbps, t.hbm_gbps, t.l2_gbps),
                    Pool::new("cmo", t.h2d_gbps, t.d2h_gbps, t.hbm_gbps, t.l2_gbps),
                ]
            })
            .collect();
        Engine {
            config,
            now: 0,
            host_now: 0,
            last_caller: 0,
            many_callers: false,
            host_ahead: false,
            host_calls: HostCalls::default(),
            fault_log: VecDeque::new(),
            dropped_host_calls: Vec::new(),
            retired_host_calls: Vec::new(),
            dropped_with_work: std::collections::VecDeque::new(),
            watched: HashMap::new(),
            events_due: EventQueue::default(),
            mem,
            desc_blocks: HashMap::new(),
            l2: (0..n)
                .map(|_| {
                    L2::new(
                        chip.cache.l2_bytes,
                        chip.cache.l2_line_bytes,
                        chip.cache.l2_ways,
                    )
                })
                .collect(),
            streams: StreamTable::default(),
            next_stream: 0,
            events: BTreeMap::new(),
            next_event: 0,
            next_record: 1,
            notifies: BTreeMap::new(),
            next_notify: 0,
            notify_waiters: BTreeMap::new(),
            models: BTreeMap::new(),
            next_model: 0,
            instances: BTreeMap::new(),
            next_instance: 0,
            run_numbering: HashMap::new(),
            barriers: BTreeMap::new(),
            watchers: Watchers::default(),
            wake_scratch: Vec::new(),
            event_waiters: BTreeMap::new(),
            barrier_waiters: BTreeSet::new(),
            copy_owner: BTreeMap::new(),
            busy_streams: vec![0; n as usize],
            sched_free: vec![0; n as usize],
            sched_stats: vec![(0, 0); n as usize],
            pools,
            next_task: 0,
            report: ReportData::default(),
            races: crate::races::Races::new(races_on),
            schedule: schedule_seed.map(crate::schedule::Schedule::new),
            progress: 0,
            host_waits: BTreeMap::new(),
            next_host_wait: 0,
            effects: 0,
            kernel_runs: BTreeMap::new(),
            kernel_names: BTreeMap::new(),
            task_sites: Default::default(),
            cores: (0..n)
                .map(|_| {
                    (0..chip.cache.aic_cores.max(1))
                        .map(|_| Core::new(chip.cache.dcache_bytes, chip.cache.dcache_line_bytes))
                        .collect()
                })
                .collect(),
            core_queue: (0..n).map(|_| VecDeque::new()).collect(),
            dirty_dlines: 0,
            pending_fill_checks: Vec::new(),
            line_scratch: Vec::new(),
            next_block_id: 0,
            stopped_blocks: Vec::new(),
            kernel_turn: None,
            core_jobs: Default::default(),
            dropped_stores: VecDeque::new(),
            tasks_completed: 0,
            published: Default::default(),
            chip,
        }
    }

    /// The L2 of the device whose memory `addr` is.
    pub(crate) fn l2_of(&self, addr: u64) -> Option<&L2> {
        self.mem
            .device_of(addr)
            .and_then(|d| self.l2.get(d as usize))
    }

    /// Records that a host thread waits on the stalled device in `what`; returns the number
    /// to end the record with.
    pub fn begin_host_wait(&mut self, what: crate::types::HostWait) -> u64 {
        self.next_host_wait += 1;
        let thread = std::thread::current();
        let label = match thread.name() {
            Some(name) => format!("thread \"{name}\""),
            None => format!("{:?}", thread.id()),
        };
        self.host_waits.insert(self.next_host_wait, (what, label));
        self.next_host_wait
    }

    /// Ends a record of [`Engine::begin_host_wait`].
    pub fn end_host_wait(&mut self, id: u64) {
        self.host_waits.remove(&id);
    }

    /// True when no stream of `device` has a task queued.
    pub fn device_idle(&self, device: u32) -> bool {
        let idle = self
            .busy_streams
            .get(device as usize)
            .is_none_or(|&n| n == 0);
        debug_assert_eq!(
            idle,
            self.streams
                .values()
                .filter(|s| s.device == device)
                .all(|s| s.idle()),
            "the busy-stream count of device {device} disagrees with its streams"
        );
        idle
    }

    /// A stream of `device` got its first queued task (`busy`) or its last one left.
    pub(crate) fn note_stream_busy(&mut self, device: u32, busy: bool) {
        if let Some(n) = self.busy_streams.get_mut(device as usize) {
            if busy {
                *n += 1;
            } else {
                *n -= 1;
            }
        }
    }

    /// True on the STARS v2 (950) generation, which has a separate CMO engine.
    pub fn has_cmo_engine(&self) -> bool {
        self.chip.chip_type == ChipType::David || self.chip.chip_type == ChipType::Ascend350
    }

    // ----- the event heap -----

    /// Schedules `ev` at `at` (never before now, never after [`HORIZON_NS`]).
    pub fn schedule(&mut self, at: u64, ev: Ev) {
        let at = at.min(HORIZON_NS).max(self.now);
        self.events_due.push(at, ev);
    }

    /// Time of the next scheduled event.
    /// The time of the next event the clock may reach: none while a blocking host call that
    /// became due earlier is outstanding (the clock stops at a due host call until a host
    /// thread returns from it, so that its return time, and so the whole timeline, does not
    /// depend on host scheduling).
    pub fn next_time(&self) -> Option<u64> {
        let next = self.events_due.next_time()?;
        match self.host_calls.clock_stop() {
            Some(stop) if next > stop => None,
            _ => Some(next),
        }
    }

    /// Kernels spin without effect and nothing else is scheduled before `deadline`: nothing
    /// they read can change until then, so their steps move to `deadline` (the spin in
    /// between is skipped, not run). False, with nothing moved, when another event comes
    /// first, the clock may not pass a due host call, or more than one host thread has
    /// called (another thread may write what the kernels read, in wall time).
    pub fn fast_forward_spin(&mut self, deadline: u64) -> bool {
        let deadline = deadline.min(HORIZON_NS);
        if self.many_callers
            || deadline <= self.now
            || self.host_calls.clock_stop().is_some_and(|s| s < deadline)
            || self.events_due.other_than_kernel_steps_before(deadline)
        {
            return false;
        }
        self.events_due.delay_kernel_steps_to(deadline);
        self.report.fast_forwarded_ns += deadline - self.now;
        self.now = deadline;
        true
    }

    /// True when a force destroy's drain of `st` can end before its queue is empty: its head
    /// is blocked, nothing the clock may reach is scheduled (so nothing on the device can
    /// release it), and no host thread will run the host call it holds, if any.
    pub fn drain_over(&self, st: &crate::stream::Stream) -> bool {
        if !st.head_blocked() || self.next_time().is_some() {
            return false;
        }
        !matches!(st.head, crate::stream::Head::HostCall(t) if self.host_calls.will_run(t))
    }

    /// True when some event is scheduled that the clock may reach.
    pub fn has_pending(&self) -> bool {
        self.next_time().is_some()
    }

    /// Processes the next event, unless it is a kernel block's turn (or one is under way),
    /// which only the core thread takes ([`Engine::begin_kernel_turn`]).
    pub fn step(&mut self) -> Step {
        if self.kernel_turn.is_some() {
            return Step::KernelTurn;
        }
        match self.events_due.peek() {
            None => return Step::Nothing,
            Some(Ev::KernelStep { .. }) => return Step::KernelTurn,
            Some(_) => {}
        }
        let (t, ev) = self.events_due.pop().expect("peeked");
        self.now = self.now.max(t);
        self.progress += 1;
        self.handle(ev);
        Step::Event
    }

    /// Takes the next event, a kernel block's step: the block's turn, to be run on the core
    /// thread and ended with [`Engine::end_kernel_turn`]; `None` when the step was stale (its
    /// block ended meanwhile), and nothing is under way.
    pub fn begin_kernel_turn(&mut self) -> Option<crate::kernel::KernelTurn> {
        let (t, ev) = self.events_due.pop()?;
        self.now = self.now.max(t);
        self.progress += 1;
        let Ev::KernelStep { dev, core, gen } = ev else {
            self.handle(ev);
            return None;
        };
        let turn = self.take_turn(dev as usize, core as usize, gen)?;
        self.kernel_turn = Some(turn.block);
        Some(turn)
    }

    /// The host spends `ns` in a call: the host clock advances from the later of the two
    /// clocks. The caller then runs the device to it (as far as a due host call lets it), so
    /// that what the call answers is the device's state at the host's time.
    pub fn charge_clock(&mut self, ns: u64) {
        // A seeded schedule sometimes makes the host slower (so the device gets further
        // between two calls).
        let ns = ns.saturating_add(self.schedule.as_mut().map_or(0, |s| s.host_lag()));
        self.host_now = self
            .host_now
            .max(self.now)
            .saturating_add(ns)
            .min(HORIZON_NS);
    }

    /// The host's time now: the later of the two clocks (a host thread that waited on the
    /// device is at the device's time).
    pub fn host_time(&self) -> u64 {
        self.host_now.max(self.now)
    }

    /// Processes every event up to `t` and sets the clock to `t` (if later); `t` is clamped
    /// to [`HORIZON_NS`]. False, with the clock short of `t`, when a kernel block's turn comes
    /// first: the core thread takes it, and the caller asks again.
    pub fn run_until(&mut self, t: u64) -> bool {
        let t = t.min(HORIZON_NS);
        let t = self
            .host_calls
            .clock_stop()
            .map_or(t, |stop| t.min(stop.max(self.now)));
        while self.next_time().is_some_and(|n| n <= t) {
            if self.step() == Step::KernelTurn {
                return false;
            }
        }
        if self.kernel_turn.is_some() {
            return false;
        }
        self.now = self.now.max(t);
        true
    }
}

/// What [`Engine::step`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Nothing is scheduled.
    Nothing,
    /// It processed one event.
    Event,
    /// The next event is a kernel block's turn (or one is under way): only the core thread
    /// goes on.
    KernelTurn,
}
