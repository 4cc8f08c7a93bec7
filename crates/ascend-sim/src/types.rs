//! The vocabulary shared by the simulator's host-facing API: ids, tasks, settings and errors.

use std::time::Duration;

use thiserror::Error;

pub use ascend_types::{
    BlockedStream, CmoType, CoreType, DevAddr, Diagnosis, EventId, HostBuf, Kernel, KernelOps, Loc,
    ModelId, NotifyId, RandomFunc, RandomParam, RandomTask, RandomType, ReduceOp, ReduceType,
    StreamId, Task, TaskId, WaitMode,
};

/// How GEQ compares: the hardware program's signed compare, or the documented cyclic one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GeqSemantics {
    /// `(int64)mem >= (int64)value`: what the scheduler's program executes (the default).
    #[default]
    SignedIsa,
    /// `(int64)(mem - value) >= 0`: what the API documentation says.
    Cyclic,
}

/// What the simulator does when a host thread waits on a device that can make no progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnStall {
    /// Keep waiting (as hardware does) and log the diagnosis once.
    Wait,
    /// Return [`SimError::Stalled`] with the diagnosis.
    Error,
}

/// What the simulator does when a hazard of a class happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HazardAction {
    /// Nothing: the hazard is not recorded.
    Ignore,
    /// Record it in the run report (and the trace) and log it: the default.
    #[default]
    Record,
    /// Record it and fail what triggered it: the task faults (its stream's next synchronize
    /// returns the error), a host call returns it.
    Fail,
}

impl HazardAction {
    /// The action named `ignore`, `record` or `fail` (any case).
    pub fn from_name(name: &str) -> Option<HazardAction> {
        match name.to_ascii_lowercase().as_str() {
            "ignore" => Some(HazardAction::Ignore),
            "record" => Some(HazardAction::Record),
            "fail" => Some(HazardAction::Fail),
            _ => None,
        }
    }
}

/// A class of memory-side hazard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HazardKind {
    /// An INVALID dropped a dirty line whose data nobody had written back.
    LostWrite,
    /// A CMO range not aligned to lines also acted on bytes outside it that belong to live
    /// data (an INVALID, which drops them).
    PartialLine,
    /// An agent read device memory that was never written (the poison byte).
    NeverWrittenRead,
    /// A dirty line written back overwrote newer data an agent had written around the L2.
    Clobber,
    /// A read through the L2 saw a line's older copy, not what an agent wrote around the L2.
    StaleRead,
    /// An agent read memory while newer data for it sat dirty in an AI core's data cache.
    InvisibleWrite,
    /// An AI core read a line of its data cache older than memory.
    DcacheStaleRead,
    /// A whole-line write-back of a data-cache line overwrote words another agent had written.
    FalseSharing,
    /// `dci` (or a kernel's tail invalidate) discarded stores never written back.
    DroppedStore,
    /// Two accesses of the same bytes, at least one a write, that the program's
    /// synchronisation does not order (found only with race detection on, `SimConfig::races`).
    DataRace,
    /// A synchronisation word written by two writers that nothing orders, or overwritten by a
    /// write that nothing orders after an EQ, AND or NOR wait's observation of it (race
    /// detection on).
    SyncWordRace,
}

impl HazardKind {
    /// Every class.
    pub const ALL: [HazardKind; 11] = [
        HazardKind::LostWrite,
        HazardKind::PartialLine,
        HazardKind::NeverWrittenRead,
        HazardKind::Clobber,
        HazardKind::StaleRead,
        HazardKind::InvisibleWrite,
        HazardKind::DcacheStaleRead,
        HazardKind::FalseSharing,
        HazardKind::DroppedStore,
        HazardKind::DataRace,
        HazardKind::SyncWordRace,
    ];

    /// The name used in reports and settings (`lost_write`, ...).
    pub fn name(self) -> &'static str {
        match self {
            HazardKind::LostWrite => "lost_write",
            HazardKind::PartialLine => "partial_line",
            HazardKind::NeverWrittenRead => "never_written_read",
            HazardKind::Clobber => "clobber",
            HazardKind::StaleRead => "stale_read",
            HazardKind::InvisibleWrite => "invisible_write",
            HazardKind::DcacheStaleRead => "dcache_stale_read",
            HazardKind::FalseSharing => "false_sharing",
            HazardKind::DroppedStore => "dropped_store",
            HazardKind::DataRace => "data_race",
            HazardKind::SyncWordRace => "sync_word_race",
        }
    }

    /// The class named `name`.
    pub fn from_name(name: &str) -> Option<HazardKind> {
        HazardKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// What to do with each class of hazard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HazardPolicy {
    /// For [`HazardKind::LostWrite`].
    pub lost_write: HazardAction,
    /// For [`HazardKind::PartialLine`].
    pub partial_line: HazardAction,
    /// For [`HazardKind::NeverWrittenRead`].
    pub never_written_read: HazardAction,
    /// For [`HazardKind::Clobber`].
    pub clobber: HazardAction,
    /// For [`HazardKind::StaleRead`].
    pub stale_read: HazardAction,
    /// For [`HazardKind::InvisibleWrite`].
    pub invisible_write: HazardAction,
    /// For [`HazardKind::DcacheStaleRead`].
    pub dcache_stale_read: HazardAction,
    /// For [`HazardKind::FalseSharing`].
    pub false_sharing: HazardAction,
    /// For [`HazardKind::DroppedStore`].
    pub dropped_store: HazardAction,
    /// For [`HazardKind::DataRace`].
    pub data_race: HazardAction,
    /// For [`HazardKind::SyncWordRace`].
    pub sync_word_race: HazardAction,
}

impl HazardPolicy {
    /// Every class with the same action.
    pub fn all(action: HazardAction) -> HazardPolicy {
        HazardPolicy {
            lost_write: action,
            partial_line: action,
            never_written_read: action,
            clobber: action,
            stale_read: action,
            invisible_write: action,
            dcache_stale_read: action,
            false_sharing: action,
            dropped_store: action,
            data_race: action,
            sync_word_race: action,
        }
    }

    /// The action for `kind`.
    pub fn action(&self, kind: HazardKind) -> HazardAction {
        match kind {
            HazardKind::LostWrite => self.lost_write,
            HazardKind::PartialLine => self.partial_line,
            HazardKind::NeverWrittenRead => self.never_written_read,
            HazardKind::Clobber => self.clobber,
            HazardKind::StaleRead => self.stale_read,
            HazardKind::InvisibleWrite => self.invisible_write,
            HazardKind::DcacheStaleRead => self.dcache_stale_read,
            HazardKind::FalseSharing => self.false_sharing,
            HazardKind::DroppedStore => self.dropped_store,
            HazardKind::DataRace => self.data_race,
            HazardKind::SyncWordRace => self.sync_word_race,
        }
    }

    /// Parses the setting's syntax (`ASCEND_SIM_HAZARDS`, `ascend-sim exec --hazards`): an
    /// action for every class and/or comma-separated `class=action` entries, applied in
    /// order. The error names the first entry that is not one, and what is accepted.
    ///
    /// ```
    /// use ascend_sim::{HazardAction, HazardKind, HazardPolicy};
    /// let p = HazardPolicy::parse("record,lost_write=fail").unwrap();
    /// assert_eq!(p.action(HazardKind::LostWrite), HazardAction::Fail);
    /// assert_eq!(p.action(HazardKind::Clobber), HazardAction::Record);
    /// assert!(HazardPolicy::parse("record,lost_writes=fail").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<HazardPolicy, String> {
        let mut policy = HazardPolicy::default();
        let classes = || HazardKind::ALL.map(HazardKind::name).join(", ");
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            match entry.split_once('=') {
                None => {
                    let action = HazardAction::from_name(entry).ok_or_else(|| {
                        format!("`{entry}` is not an action (ignore, record or fail)")
                    })?;
                    policy = HazardPolicy::all(action);
                }
                Some((class, action)) => {
                    let (class, action) = (class.trim(), action.trim());
                    let kind = HazardKind::from_name(class).ok_or_else(|| {
                        format!("`{class}` is not a hazard class (classes: {})", classes())
                    })?;
                    let action = HazardAction::from_name(action).ok_or_else(|| {
                        format!("`{action}` in `{entry}` is not an action (ignore, record or fail)")
                    })?;
                    policy.set(kind, action);
                }
            }
        }
        Ok(policy)
    }

    /// Sets the action for `kind`.
    pub fn set(&mut self, kind: HazardKind, action: HazardAction) {
        match kind {
            HazardKind::LostWrite => self.lost_write = action,
            HazardKind::PartialLine => self.partial_line = action,
            HazardKind::NeverWrittenRead => self.never_written_read = action,
            HazardKind::Clobber => self.clobber = action,
            HazardKind::StaleRead => self.stale_read = action,
            HazardKind::InvisibleWrite => self.invisible_write = action,
            HazardKind::DcacheStaleRead => self.dcache_stale_read = action,
            HazardKind::FalseSharing => self.false_sharing = action,
            HazardKind::DroppedStore => self.dropped_store = action,
            HazardKind::DataRace => self.data_race = action,
            HazardKind::SyncWordRace => self.sync_word_race = action,
        }
    }
}

/// Simulator settings.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// GEQ compare semantics.
    pub geq: GeqSemantics,
    /// Wall-clock time a host thread waits on a stalled device before the watchdog speaks.
    pub watchdog_grace: Duration,
    /// What the watchdog does.
    pub on_stall: OnStall,
    /// Seed for any pseudo-random choice (the model is otherwise deterministic).
    pub seed: u64,
    /// Fill byte of freshly allocated device memory.
    pub poison_byte: u8,
    /// Most records of each kind (completed tasks, value waits, kernel blocks, engine jobs,
    /// barrier samples, faults, destroyed streams) the run report keeps with their details:
    /// the first half of them and the latest half; the records in between are counted only.
    /// The report's memory is bounded by it however long the program runs (docs/run-report.md).
    pub max_timeline_entries: usize,
    /// What each class of memory-side hazard does.
    pub hazards: HazardPolicy,
    /// Whether simulated time also advances with the wall clock while no host call arrives
    /// (off by default: it makes a run depend on the host's speed).
    pub pacing: Pacing,
    /// The stack of each running kernel block, in bytes (mapped on demand: only what a block
    /// touches costs memory). A block that overflows it faults with a message saying so, and
    /// its stack is leaked; the process goes on (Linux on x86-64 and AArch64, and not for an
    /// overflow inside the C library or while panicking, which ends the process with a message;
    /// elsewhere the process ends, as a thread overflowing its stack does; docs/kernels.md).
    pub kernel_stack_bytes: usize,
    /// Happens-before race detection: each data access of device memory is checked against
    /// the accesses the program's synchronisation does not order it with, whatever the
    /// schedule (`data_race` and `sync_word_race` hazards; docs/races.md). Off by default.
    pub races: bool,
    /// A schedule other than the default one (schedule exploration): with a seed, each
    /// stream's dispatches are held back by lags the seed chooses, as a device's timing may
    /// vary, never reordering what the program orders; the same seed, the same schedule
    /// (docs/races.md). `None`: the default schedule.
    pub schedule_seed: Option<u64>,
}

/// The default of [`SimConfig::kernel_stack_bytes`]: 1 MiB.
pub const DEFAULT_KERNEL_STACK_BYTES: usize = 1 << 20;

/// How the host clock advances between host calls (docs/host-clock.md).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[non_exhaustive]
pub enum Pacing {
    /// Only host calls advance it: deterministic (the default).
    #[default]
    Calls,
    /// While no host call arrives, it also advances with the wall clock, by `ratio` simulated
    /// ns per wall ns, so that a host thread spinning on mapped or registered memory, or
    /// doing CPU work between calls, sees the device progress. Not deterministic.
    Wall {
        /// Simulated ns per wall ns (1.0: real time).
        ratio: f64,
    },
}

/// The default of [`SimConfig::max_timeline_entries`]: 5,000 first and 5,000 latest records
/// of each kind.
pub const DEFAULT_REPORT_RECORDS: usize = 10_000;

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            geq: GeqSemantics::SignedIsa,
            watchdog_grace: Duration::from_secs(5),
            on_stall: OnStall::Wait,
            seed: 0,
            poison_byte: 0xA5,
            max_timeline_entries: DEFAULT_REPORT_RECORDS,
            hazards: HazardPolicy::default(),
            pacing: Pacing::Calls,
            kernel_stack_bytes: DEFAULT_KERNEL_STACK_BYTES,
            races: false,
            schedule_seed: None,
        }
    }
}

/// What a host thread blocked on the device waits in: the watchdog names it, so a host call
/// that can never return (a non-forced destroy of a stream blocked forever, say) is explained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostWait {
    /// A stream synchronize.
    SynchronizeStream(u64),
    /// A device synchronize (or a device release waiting for its streams).
    SynchronizeDevice(u32),
    /// An event synchronize.
    SynchronizeEvent(u64),
    /// A non-forced stream destroy, which waits for the stream's tasks.
    DestroyStream(u64),
    /// A force destroy letting the stream's queue drain before the rest is discarded.
    DrainStream(u64),
    /// A call waiting for a due host call that another thread runs to return.
    HeldByHostCall,
    /// A submission to a stream whose queue is full.
    Submit(u64),
    /// A synchronous model run.
    ExecuteModel(u64),
    /// An asynchronous model run enqueued on a stream whose queue is full.
    ExecuteModelAsync {
        /// The model.
        model: u64,
        /// The stream.
        stream: u64,
    },
    /// A host thread waiting for a host call to run (`aclrtProcessReport`, or the runtime's
    /// host-function thread when the channel is 0).
    HostCalls(u64),
}

impl std::fmt::Display for HostWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            HostWait::SynchronizeStream(s) => write!(f, "a synchronize of stream {s}"),
            HostWait::SynchronizeDevice(d) => write!(
                f,
                "a synchronize of device {d} (or its release, which waits for its streams)"
            ),
            HostWait::SynchronizeEvent(e) => write!(f, "a synchronize of event {e}"),
            HostWait::DestroyStream(s) => write!(
                f,
                "a destroy of stream {s} (aclrtDestroyStream waits until the stream's tasks \
                 complete, with no timeout, as CANN's does; aclrtDestroyStreamForce does not wait)"
            ),
            HostWait::DrainStream(s) => write!(
                f,
                "a force destroy of stream {s}, letting its queue drain before the rest is \
                 discarded"
            ),
            HostWait::HeldByHostCall => write!(
                f,
                "a call waiting for a host function another thread runs to return"
            ),
            HostWait::Submit(s) => write!(f, "a submission to stream {s}, whose queue is full"),
            HostWait::ExecuteModel(m) => write!(f, "a synchronous run of model {m}"),
            HostWait::ExecuteModelAsync { model, stream } => write!(
                f,
                "an asynchronous run of model {model} on stream {stream}, whose queue is full"
            ),
            HostWait::HostCalls(0) => write!(
                f,
                "the runtime's host-function thread, waiting for a host function to run"
            ),
            HostWait::HostCalls(t) => write!(
                f,
                "a wait of host thread {t} for a callback or host function to run                  (aclrtProcessReport / aclrtProcessHostFunc)"
            ),
        }
    }
}

/// A host function or callback on a stream (`aclrtLaunchHostFunc`, `aclrtLaunchCallback`),
/// submitted with [`crate::Sim::submit_host_call`]: when the stream reaches it, the call
/// becomes due and a host thread runs it (the front end owns the function; the simulator
/// knows only its number). A blocking call holds the stream until the host reports it done;
/// a non-blocking one lets the stream go on at once. Only the simulator has such a task: a
/// real runtime takes the function itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostCall {
    /// The call's number, unique in the process.
    pub call: u64,
    /// Which host thread runs it: 0 for the runtime's own thread, else the channel of the
    /// thread subscribed to the stream (`aclrtSubscribeReport` / `aclrtSubscribeHostFunc`).
    pub channel: u64,
    /// The stream waits for the call to return.
    pub blocking: bool,
}

/// Errors of the simulator. `ascend-rt` maps them to CANN error codes.
#[derive(Debug, Clone, Error, PartialEq)]
#[non_exhaustive]
pub enum SimError {
    /// Device memory exhausted.
    #[error("device {device}: out of memory allocating {bytes} bytes")]
    OutOfMemory {
        /// Device.
        device: u32,
        /// Bytes asked for.
        bytes: u64,
    },
    /// An access outside live device memory.
    #[error("bad device access at {addr:#x} ({len} bytes): {reason}")]
    BadAddress {
        /// Start address.
        addr: DevAddr,
        /// Length.
        len: u64,
        /// Why (not allocated, freed, crosses the end of an allocation, …).
        reason: String,
    },
    /// A stream's queue has no room for the task (model-bound streams; plain streams wait).
    #[error("stream {0}: task queue full")]
    QueueFull(u64),
    /// A timed wait expired.
    #[error("timed out after {0} ms")]
    Timeout(u64),
    /// A timed wait expired while the device could not progress (stalled, or only kernels
    /// spinning without effect): the watchdog's explanation of what blocks.
    #[error("timed out after {ms} ms: {}", .1.text, ms = .0)]
    TimeoutBlocked(u64, Box<Diagnosis>),
    /// The watchdog found the device stalled while a host thread waited.
    #[error("device stalled: {}", .0.text)]
    Stalled(Box<Diagnosis>),
    /// A task faulted while executing; reported at the next synchronize.
    #[error("task fault: {0}")]
    TaskFault(String),
    /// A task with a timeout of its own (a notify wait) expired; reported at the next
    /// synchronize.
    #[error("task timeout: {0}")]
    TaskTimeout(String),
    /// A block of a kernel faulted (a trap, an access outside live memory, a misaligned
    /// access) on a core of type `core`, as the runtime names the kernel's task; reported at
    /// the next synchronize.
    #[error("task fault: {message}")]
    KernelFault {
        /// The core type of the kernel's task.
        core: CoreType,
        /// What happened.
        message: String,
    },
    /// The stream a host thread waited on was destroyed (force), or its device reset, while
    /// tasks the thread waited for were still queued: they were discarded, not run.
    #[error("stream {stream} was destroyed while this thread waited for it: {discarded} of its tasks were discarded without running (aclrtDestroyStreamForce, or a forced reset of its device or context, on another thread)")]
    StreamDestroyed {
        /// The stream.
        stream: u64,
        /// How many queued tasks it dropped.
        discarded: u64,
    },
    /// An id that does not name a live object.
    #[error("unknown {kind} {id}")]
    Unknown {
        /// "stream", "event", "notify", "model" or "device".
        kind: &'static str,
        /// The id.
        id: u64,
    },
}

/// The class of a [`SimError`], by which a front end maps it to its own errors. Unlike
/// [`SimError`], this enum is exhaustive: a crate of this workspace that matches on it stops
/// compiling when a class is added, so no new simulator error falls silently into a
/// catch-all. Each error's class is decided here, in [`SimError::class`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimErrorClass {
    /// [`SimError::OutOfMemory`].
    OutOfMemory,
    /// [`SimError::BadAddress`].
    BadAddress,
    /// [`SimError::QueueFull`].
    QueueFull,
    /// [`SimError::Timeout`] and [`SimError::TimeoutBlocked`].
    Timeout,
    /// [`SimError::Stalled`].
    Stalled,
    /// [`SimError::TaskFault`].
    TaskFault,
    /// [`SimError::TaskTimeout`].
    TaskTimeout,
    /// [`SimError::KernelFault`], with the core type of the kernel's task.
    KernelFault(CoreType),
    /// [`SimError::StreamDestroyed`].
    StreamDestroyed,
    /// [`SimError::Unknown`].
    UnknownHandle,
}

impl SimError {
    /// This error's class (an exhaustive match: a new variant must be given one here).
    pub fn class(&self) -> SimErrorClass {
        match self {
            SimError::OutOfMemory { .. } => SimErrorClass::OutOfMemory,
            SimError::BadAddress { .. } => SimErrorClass::BadAddress,
            SimError::QueueFull(_) => SimErrorClass::QueueFull,
            SimError::Timeout(_) | SimError::TimeoutBlocked(..) => SimErrorClass::Timeout,
            SimError::Stalled(_) => SimErrorClass::Stalled,
            SimError::TaskFault(_) => SimErrorClass::TaskFault,
            SimError::TaskTimeout(_) => SimErrorClass::TaskTimeout,
            SimError::KernelFault { core, .. } => SimErrorClass::KernelFault(*core),
            SimError::StreamDestroyed { .. } => SimErrorClass::StreamDestroyed,
            SimError::Unknown { .. } => SimErrorClass::UnknownHandle,
        }
    }

    /// The watchdog's diagnosis this error carries ([`SimError::Stalled`],
    /// [`SimError::TimeoutBlocked`]).
    pub fn diagnosis(&self) -> Option<&Diagnosis> {
        match self {
            SimError::Stalled(d) | SimError::TimeoutBlocked(_, d) => Some(d),
            _ => None,
        }
    }

    /// The timeout of a timed wait that expired ([`SimError::Timeout`] or
    /// [`SimError::TimeoutBlocked`]), in ms.
    pub fn timeout_ms(&self) -> Option<u64> {
        match self {
            SimError::Timeout(ms) | SimError::TimeoutBlocked(ms, _) => Some(*ms),
            _ => None,
        }
    }
}

/// What kind of failure a task's fault is: it decides the error a synchronize reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum FaultClass {
    /// A task failed (a copy or fill outside live memory, a kernel that could not start).
    #[default]
    Task,
    /// A task's own timeout expired (a notify wait's).
    Timeout,
    /// A block of a kernel faulted, on a core of this type.
    Kernel(CoreType),
}

impl FaultClass {
    /// The error a synchronize reports for a fault of this class saying `message`.
    pub fn error(self, message: String) -> SimError {
        match self {
            FaultClass::Task => SimError::TaskFault(message),
            FaultClass::Timeout => SimError::TaskTimeout(message),
            FaultClass::Kernel(core) => SimError::KernelFault { core, message },
        }
    }
}

/// A task that faulted, as the host's exception callback learns of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskFault {
    /// The task.
    pub task: u64,
    /// Its stream.
    pub stream: u64,
    /// Its device.
    pub device: u32,
    /// What happened.
    pub message: String,
    /// What kind of failure it was.
    pub class: FaultClass,
    /// When (ns).
    pub at_ns: u64,
}
