//! Streams: in-order task queues with a fixed number of submission-queue slots, and the tasks
//! they hold. A model-bound stream keeps its recorded tasks apart from its execution queue.

use std::collections::VecDeque;

use crate::copy_pool::Link;
use crate::exec::PassClock;
use crate::types::{FaultClass, HostCall, ModelId, SimError, Task};

/// What a queued (or recorded) task does: a user task, a host call, or the internal marker
/// of an asynchronous model run.
#[derive(Debug, Clone)]
pub enum Work {
    /// A task submitted through [`crate::Sim::submit`].
    User(Task),
    /// A host call submitted through [`crate::Sim::submit_host_call`].
    HostCall(HostCall),
    /// `execute_model_async`: runs one instance of the model and completes when it is done.
    ModelRun(ModelId),
}

impl Work {
    /// A task whose time on its stream is spent waiting for something else: a value, event,
    /// notify or barrier wait, a model run (for its instance), a blocking host call (for the
    /// host).
    pub fn waits(&self) -> bool {
        match self {
            Work::User(t) => matches!(
                t,
                Task::ValueWait { .. }
                    | Task::EventWait(_)
                    | Task::NotifyWait { .. }
                    | Task::CmoWaitBarrier { .. }
            ),
            Work::HostCall(h) => h.blocking,
            Work::ModelRun(_) => true,
        }
    }
}

/// A task in a stream's queue.
#[derive(Debug, Clone)]
pub struct QueuedTask {
    /// Task number.
    pub id: u64,
    /// What it does.
    pub work: Work,
    /// Queue slots it occupies (0 for model-instance tasks, which run from the model's queue).
    pub slots: u32,
    /// Simulated submission time.
    pub submit_ns: u64,
    /// The model instance it belongs to.
    pub instance: Option<u64>,
    /// The model whose barrier-id map it uses.
    pub model: Option<u64>,
    /// For an event record: its record number; for an event wait: the record it waits for.
    pub event_seq: Option<u64>,
    /// With race detection on: the clock of what the task is ordered after (its submitter's,
    /// or its model run's).
    pub after: Option<crate::races::clock::Released>,
}

/// State of a value wait at the head of a stream.
#[derive(Debug, Clone)]
pub struct WaitState {
    /// Pass phase.
    pub clock: PassClock,
    /// Watched address.
    pub addr: u64,
    /// Generation of the scheduled poll check (older checks are ignored).
    pub check_gen: u64,
    /// Time of the scheduled poll check, if any (none = parked).
    pub next_check: Option<u64>,
    /// A never-written read has already been reported for this wait.
    pub warned_never_written: bool,
}

/// What the head task of a stream is doing.
#[derive(Debug, Clone)]
pub enum Head {
    /// The queue is empty.
    Idle,
    /// Waiting for / being dispatched by the task scheduler.
    Dispatching,
    /// Executing with a completion event scheduled.
    Running,
    /// A copy-engine job in its setup phase.
    CopySetup {
        /// Engine index (0 copy, 1 CMO engine).
        engine: usize,
        /// When the job took the engine.
        since: u64,
        /// Link and bytes the job will move.
        link: Link,
        /// Bytes (work units).
        bytes: u64,
    },
    /// A copy-engine job transferring.
    Copying {
        /// Engine index.
        engine: usize,
        /// When the job took the engine.
        since: u64,
        /// When its setup ended and it started moving data.
        moving_since: u64,
    },
    /// A value wait polling.
    Wait(WaitState),
    /// An event wait blocked on a record.
    WaitEvent,
    /// A barrier wait blocked on outstanding INVALID CMOs.
    WaitBarrier,
    /// A model run waiting for its instance.
    WaitModel(u64),
    /// A notify wait blocked until the notify is set.
    WaitNotify,
    /// A kernel whose blocks run on AI cores (or wait for them).
    Kernel,
    /// A blocking host call, due: the stream waits for a host thread to run it (the task
    /// that reached it).
    HostCall(u64),
}

impl Head {
    /// True when the head waits for what its stream cannot do itself: a value, event,
    /// notify or barrier wait, a model run, or a host call.
    pub fn blocked(&self) -> bool {
        matches!(
            self,
            Head::Wait(_)
                | Head::WaitEvent
                | Head::WaitBarrier
                | Head::WaitModel(_)
                | Head::WaitNotify
                | Head::HostCall(_)
        )
    }
}

/// One stream.
#[derive(Debug)]
pub struct Stream {
    /// Device.
    pub device: u32,
    /// Priority (0 highest); recorded, not yet used for arbitration.
    pub priority: u32,
    /// Created persistent (model-capable).
    pub persistent: bool,
    /// Model it is bound to.
    pub model: Option<u64>,
    /// Tasks not yet complete; the front one is the head.
    pub queue: VecDeque<QueuedTask>,
    /// Slots occupied by queued tasks.
    pub slots_used: u32,
    /// What the head is doing.
    pub head: Head,
    /// Simulated time the head's dispatch started.
    pub head_start: u64,
    /// Generation (bumped on force destroy, invalidates scheduled events).
    pub gen: u64,
    /// Tasks recorded while bound to a model, with their slot counts and task numbers (the
    /// host's submission order across all streams).
    pub recorded: Vec<(Work, u32, u64)>,
    /// Slots the recorded tasks take.
    pub recorded_slots: u32,
    /// A fault not yet reported by a synchronize.
    pub fault: Option<String>,
    /// What kind of failure the pending fault is.
    pub fault_class: FaultClass,
    /// Tasks completed.
    pub tasks_done: u64,
    /// Sum of task execution times.
    pub busy_ns: u64,
    /// The part of `busy_ns` its waits spent (value, event, notify and barrier waits, model
    /// runs waiting for their instance, blocking host calls waiting for the host).
    pub wait_ns: u64,
    /// Completion time of the last task.
    pub end_ns: u64,
    /// Stop on failure (`aclrtSetStreamFailureMode(ACL_STOP_ON_FAILURE)`): after a task
    /// faults, the stream's later tasks are discarded instead of run.
    pub stop_on_failure: bool,
    /// A task faulted while the stream stops on failure: every task it is given from then on
    /// is discarded, until the stream is aborted.
    pub stopped: bool,
    /// Whose stream it is, where the simulator serves several programs ("process 1234"): the
    /// run report says it and the trace groups the stream's track under it.
    pub owner: Option<std::sync::Arc<str>>,
}

impl Stream {
    /// A new, idle stream.
    pub fn new(device: u32, priority: u32, persistent: bool) -> Self {
        Stream {
            device,
            priority,
            persistent,
            model: None,
            queue: VecDeque::new(),
            slots_used: 0,
            head: Head::Idle,
            head_start: 0,
            gen: 0,
            recorded: Vec::new(),
            recorded_slots: 0,
            fault: None,
            fault_class: FaultClass::Task,
            tasks_done: 0,
            busy_ns: 0,
            wait_ns: 0,
            end_ns: 0,
            stop_on_failure: false,
            stopped: false,
            owner: None,
        }
    }

    /// True when no task is queued.
    pub fn idle(&self) -> bool {
        self.queue.is_empty()
    }

    /// True when the head task waits for what the stream cannot do itself ([`Head::blocked`]).
    pub fn head_blocked(&self) -> bool {
        self.head.blocked()
    }

    /// Takes the pending fault, as the error a synchronize reports.
    pub fn take_fault(&mut self) -> Option<SimError> {
        let f = self.fault.take()?;
        Some(std::mem::take(&mut self.fault_class).error(f))
    }
}

/// A short name of a task kind, for timelines and diagnoses.
pub fn work_name(w: &Work) -> &'static str {
    match w {
        Work::ModelRun(_) => "ModelRun",
        Work::HostCall(_) => "HostCall",
        Work::User(k) => task_name(k),
    }
}

/// A short name of a user task's kind.
pub fn task_name(k: &Task) -> &'static str {
    match k {
        Task::ValueWrite { .. } => "ValueWrite",
        Task::ValueWait { .. } => "ValueWait",
        Task::Memcpy { .. } => "Memcpy",
        Task::Memset { .. } => "Memset",
        Task::Reduce { .. } => "Reduce",
        Task::RandomNum(_) => "RandomNum",
        Task::LabelSet { .. } => "LabelSet",
        Task::LabelSwitch { .. } => "LabelSwitch",
        Task::Cmo { .. } => "Cmo",
        Task::CmoWithBarrier { .. } => "CmoWithBarrier",
        Task::CmoWaitBarrier { .. } => "CmoWaitBarrier",
        Task::CmoWithDesc { .. } => "CmoWithDesc",
        Task::EventRecord(_) => "EventRecord",
        Task::EventWait(_) => "EventWait",
        Task::EventReset(_) => "EventReset",
        Task::NotifyRecord(_) => "NotifyRecord",
        Task::NotifyWait { .. } => "NotifyWait",
        Task::Kernel { .. } => "Kernel",
    }
}
