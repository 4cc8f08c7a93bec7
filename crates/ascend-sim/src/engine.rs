//! The single-threaded discrete-event core: simulated time, the event heap (ordered by time,
//! then by sequence number, so the timeline is deterministic) and the device-side objects.
//! Task execution lives in [`crate::exec`]; the host-facing locking in [`crate::facade`].

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};

use ascend_chips::{ChipProfile, ChipType};

use crate::cache::{CacheModel, NoCache};
use crate::copy::Pool;
use crate::memory::Memory;
use crate::objects::{Event, Instance, Model, Notify};
use crate::report::ReportData;
use crate::stream::{Head, QueuedTask, Stream, Work};
use crate::types::{SimConfig, SimError, Task};

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

/// The simulator's device side.
#[derive(Debug)]
pub struct Engine {
    /// The chip.
    pub chip: ChipProfile,
    /// Settings.
    pub config: SimConfig,
    /// The one simulated clock (ns).
    pub now: u64,
    heap: BinaryHeap<Reverse<(u64, u64)>>,
    evs: HashMap<u64, Ev>,
    seq: u64,
    /// Device memory.
    pub mem: Memory,
    /// The cache model seam.
    pub cache: Box<dyn CacheModel>,
    /// Streams by id.
    pub streams: BTreeMap<u64, Stream>,
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
    /// Outstanding INVALID CMOs per (model, logical barrier id).
    pub barriers: BTreeMap<(Option<u64>, u32), u32>,
    /// Streams whose head value wait watches each 8-byte word.
    pub watchers: BTreeMap<u64, BTreeSet<u64>>,
    /// Streams whose head event wait is blocked on each event.
    pub event_waiters: BTreeMap<u64, BTreeSet<u64>>,
    /// Streams whose head barrier wait is blocked.
    pub barrier_waiters: BTreeSet<u64>,
    /// Copy-engine jobs in flight: task → stream.
    pub copy_owner: BTreeMap<u64, u64>,
    /// Per device: time the task scheduler is free.
    pub sched_free: Vec<u64>,
    /// Per device: scheduler dispatches and busy time.
    pub sched_stats: Vec<(u64, u64)>,
    /// Per device: the copy engine and the CMO engine.
    pub pools: Vec<[Pool; 2]>,
    next_task: u64,
    /// Report data collected while running.
    pub report: ReportData,
    /// Bumped whenever anything happens (the watchdog's notion of progress).
    pub progress: u64,
    /// Host threads waiting on a stalled device, by wait number, and what each waits in.
    pub host_waits: BTreeMap<u64, crate::types::HostWait>,
    next_host_wait: u64,
}

impl Engine {
    /// A fresh device side.
    pub fn new(chip: ChipProfile, config: SimConfig) -> Engine {
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
            heap: BinaryHeap::new(),
            evs: HashMap::new(),
            seq: 0,
            mem,
            cache: Box::new(NoCache),
            streams: BTreeMap::new(),
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
            barriers: BTreeMap::new(),
            watchers: BTreeMap::new(),
            event_waiters: BTreeMap::new(),
            barrier_waiters: BTreeSet::new(),
            copy_owner: BTreeMap::new(),
            sched_free: vec![0; n as usize],
            sched_stats: vec![(0, 0); n as usize],
            pools,
            next_task: 0,
            report: ReportData::default(),
            progress: 0,
            host_waits: BTreeMap::new(),
            next_host_wait: 0,
            chip,
        }
    }

    /// Records that a host thread waits on the stalled device in `what`; returns the number
    /// to end the record with.
    pub fn begin_host_wait(&mut self, what: crate::types::HostWait) -> u64 {
        self.next_host_wait += 1;
        self.host_waits.insert(self.next_host_wait, what);
        self.next_host_wait
    }

    /// Ends a record of [`Engine::begin_host_wait`].
    pub fn end_host_wait(&mut self, id: u64) {
        self.host_waits.remove(&id);
    }

    /// True on the STARS v2 (950) generation, which has a separate CMO engine.
    pub fn has_cmo_engine(&self) -> bool {
        self.chip.chip_type == ChipType::David || self.chip.chip_type == ChipType::Ascend350
    }

    // ----- the event heap -----

    /// Schedules `ev` at `at` (never before now, never after [`HORIZON_NS`]).
    pub fn schedule(&mut self, at: u64, ev: Ev) {
        let at = at.min(HORIZON_NS).max(self.now);
        self.seq += 1;
        self.heap.push(Reverse((at, self.seq)));
        self.evs.insert(self.seq, ev);
    }

    /// Time of the next scheduled event.
    pub fn next_time(&self) -> Option<u64> {
        self.heap.peek().map(|Reverse((t, _))| *t)
    }

    /// True when some event is scheduled.
    pub fn has_pending(&self) -> bool {
        !self.heap.is_empty()
    }

    /// Processes the next event; false when none is scheduled.
    pub fn step(&mut self) -> bool {
        let Some(Reverse((t, seq))) = self.heap.pop() else {
            return false;
        };
        let ev = self
            .evs
            .remove(&seq)
            .expect("every heap entry has an event");
        self.now = self.now.max(t);
        self.progress += 1;
        self.handle(ev);
        true
    }

    /// Processes every event up to `t` and sets the clock to `t` (if later); `t` is clamped
    /// to [`HORIZON_NS`].
    pub fn run_until(&mut self, t: u64) {
        let t = t.min(HORIZON_NS);
        while self.next_time().is_some_and(|n| n <= t) {
            self.step();
        }
        self.now = self.now.max(t);
    }

    // ----- objects -----

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

    /// Slots a task takes in its stream's queue.
    pub fn slots_of(&self, kind: &Task) -> u32 {
        match kind {
            Task::ValueWait { .. } => self.chip.limits.value_wait_slots.max(1),
            _ => 1,
        }
    }

    /// Queue capacity of a plain stream, in slots.
    pub fn queue_capacity(&self) -> u32 {
        self.chip.limits.max_tasks_per_stream().max(1)
    }

    /// Records a task on a model-bound stream.
    pub fn record(&mut self, s: u64, kind: Task) -> Result<u64, SimError> {
        let slots = self.slots_of(&kind);
        let cap = self.queue_capacity();
        let st = self.streams.get_mut(&s).expect("checked");
        if st.recorded_slots + slots > cap {
            return Err(SimError::QueueFull(s));
        }
        st.recorded_slots += slots;
        self.next_task += 1;
        let id = self.next_task;
        st.recorded.push((kind, slots, id));
        self.progress += 1;
        Ok(id)
    }

    /// Enqueues a task on a plain stream (room has been checked).
    pub fn enqueue(&mut self, s: u64, kind: Task) -> u64 {
        let slots = self.slots_of(&kind);
        let id = self.new_task_id();
        let event_seq = match &kind {
            Task::EventRecord(e) => self.new_record(e.0),
            Task::EventWait(e) => self.events.get(&e.0).and_then(|ev| ev.latest),
            _ => None,
        };
        let task = QueuedTask {
            id,
            work: Work::User(kind),
            slots,
            submit_ns: self.now,
            instance: None,
            model: None,
            event_seq,
        };
        self.push_task(s, task);
        id
    }

    /// Appends a task to a stream's queue and starts it if the stream was idle.
    pub fn push_task(&mut self, s: u64, task: QueuedTask) {
        let st = self.streams.get_mut(&s).expect("checked");
        st.slots_used += task.slots;
        st.queue.push_back(task);
        self.progress += 1;
        if st.queue.len() == 1 {
            self.start_head(s);
        }
    }

    /// Enqueues `execute_model_async`'s marker task on `s`.
    pub fn enqueue_model_run(&mut self, s: u64, model: u64) -> u64 {
        let id = self.new_task_id();
        let task = QueuedTask {
            id,
            work: Work::ModelRun(crate::types::ModelId(model)),
            slots: 1,
            submit_ns: self.now,
            instance: None,
            model: None,
            event_seq: None,
        };
        self.push_task(s, task);
        id
    }

    /// Starts one instance of `model`: copies of all recorded tasks go to their streams.
    pub fn spawn_instance(&mut self, model: u64, run_stream: Option<u64>) -> u64 {
        let id = self.next_instance;
        self.next_instance += 1;
        let streams = self
            .models
            .get(&model)
            .map(|m| m.streams.clone())
            .unwrap_or_default();
        // Event records and waits are numbered in the host's submission order across the
        // model's streams: a wait waits for the latest record submitted before it (one of this
        // instance, or an earlier one), never for a record submitted after it.
        let mut plan: Vec<(u64, Task, u64)> = Vec::new();
        for &s in &streams {
            if let Some(st) = self.streams.get(&s) {
                plan.extend(st.recorded.iter().map(|(k, _, id)| (s, k.clone(), *id)));
            }
        }
        let mut order: Vec<usize> = (0..plan.len()).collect();
        order.sort_by_key(|&i| plan[i].2);
        let mut seqs: Vec<Option<u64>> = vec![None; plan.len()];
        for i in order {
            seqs[i] = match &plan[i].1 {
                Task::EventRecord(e) => self.new_record(e.0),
                Task::EventWait(e) => self.events.get(&e.0).and_then(|ev| ev.latest),
                _ => None,
            };
        }
        self.instances.insert(
            id,
            Instance {
                model,
                remaining: plan.len() as u64,
                run_stream,
                fault: None,
                abandoned: false,
            },
        );
        for ((s, kind, _), event_seq) in plan.into_iter().zip(seqs) {
            let task = QueuedTask {
                id: self.new_task_id(),
                work: Work::User(kind),
                slots: 0,
                submit_ns: self.now,
                instance: Some(id),
                model: Some(model),
                event_seq,
            };
            self.push_task(s, task);
        }
        id
    }

    /// Drops every task of a stream (force destroy), settling the bookkeeping they hold.
    pub fn drop_stream(&mut self, s: u64) {
        let Some(mut st) = self.streams.remove(&s) else {
            return;
        };
        let limit = self.config.max_timeline_entries;
        self.report.keep_destroyed_stream(s, &st, limit);
        let now = self.now;
        let head_dispatched = matches!(st.head, Head::CopySetup { .. } | Head::Copying { .. });
        match std::mem::replace(&mut st.head, Head::Idle) {
            Head::Copying { engine } => {
                if let Some(t) = st.queue.front() {
                    self.pools[st.device as usize][engine].cancel(now, t.id);
                    self.copy_owner.remove(&t.id);
                    self.reschedule_pool(st.device, engine);
                }
            }
            Head::CopySetup { engine, .. } => {
                self.pools[st.device as usize][engine].cancel_setup(now)
            }
            Head::Wait(w) => self.unwatch(w.addr, s),
            Head::WaitEvent => {
                for set in self.event_waiters.values_mut() {
                    set.remove(&s);
                }
                self.event_waiters.retain(|_, set| !set.is_empty());
            }
            Head::WaitBarrier => {
                self.barrier_waiters.remove(&s);
            }
            Head::WaitNotify => {
                for set in self.notify_waiters.values_mut() {
                    set.remove(&s);
                }
                self.notify_waiters.retain(|_, set| !set.is_empty());
            }
            _ => {}
        }
        for (i, t) in st.queue.iter().enumerate() {
            if let Work::User(Task::CmoWithBarrier {
                op: crate::types::CmoType::Invalid,
                barrier_id,
                ..
            }) = &t.work
            {
                if i == 0 && head_dispatched {
                    self.barrier_done(t.model, *barrier_id);
                }
            }
            if let (Work::User(Task::EventRecord(e)), Some(seq)) = (&t.work, t.event_seq) {
                self.record_done(e.0, seq, None);
            }
        }
        let instances: Vec<u64> = st.queue.iter().filter_map(|t| t.instance).collect();
        for i in instances {
            self.instance_task_done(i);
        }
        if let Some(m) = st.model.and_then(|m| self.models.get_mut(&m)) {
            m.streams.retain(|&x| x != s);
        }
        self.progress += 1;
    }
}
