//! The vocabulary shared by the simulator's host-facing API: ids, tasks, settings and errors.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use thiserror::Error;

/// A device address in the simulator's own device address space (never a host pointer).
pub type DevAddr = u64;

/// A stream of the simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamId(pub u32);

/// An event of the simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId(pub u32);

/// A notify of the simulator: a one-bit flag a stream sets (record) and another stream waits
/// for and clears (wait-and-reset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NotifyId(pub u32);

/// A model running instance of the simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModelId(pub u32);

/// A task, numbered in submission order across the whole simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskId(pub u64);

/// Host memory shared between a host program and the simulator (the simulator's stand-in for
/// page-locked host memory): tasks read and write it when they execute.
pub type HostBuf = Arc<Mutex<Vec<u8>>>;

/// One end of a copy.
#[derive(Debug, Clone)]
pub enum Loc {
    /// Device memory.
    Device(DevAddr),
    /// Host memory, at a byte offset into a shared buffer.
    Host {
        /// The buffer.
        buf: HostBuf,
        /// Byte offset into it.
        offset: usize,
    },
}

/// The compare of a value wait (`aclrtValueWait` flag values 0..=3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WaitMode {
    /// 0: greater or equal (signed or cyclic, see [`GeqSemantics`]).
    Geq,
    /// 1: all 64 bits equal.
    Eq,
    /// 2: `(mem & value) != 0`.
    And,
    /// 3: `~(mem | value) != 0`.
    Nor,
}

/// How GEQ compares: the hardware program's signed compare, or the documented cyclic one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum GeqSemantics {
    /// `(int64)mem >= (int64)value`: what the scheduler's program executes (the default).
    #[default]
    SignedIsa,
    /// `(int64)(mem - value) >= 0`: what the API documentation says.
    Cyclic,
}

/// A cache-maintenance operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmoOp {
    /// Load memory into the cache.
    Prefetch,
    /// Write dirty lines back, keep them.
    Writeback,
    /// Drop cached lines without writing back.
    Invalid,
    /// Write dirty lines back and drop them.
    Flush,
}

/// What a stream task does. Tasks are validated before they reach the simulator.
#[derive(Debug, Clone)]
pub enum TaskKind {
    /// Store a 64-bit value (little-endian) at a device address.
    ValueWrite {
        /// Target address.
        addr: DevAddr,
        /// Value to store.
        value: u64,
    },
    /// Block the stream until the 64-bit word at `addr` satisfies the compare.
    ValueWait {
        /// Watched address.
        addr: DevAddr,
        /// Operand.
        value: u64,
        /// Compare.
        mode: WaitMode,
    },
    /// Copy `len` bytes.
    Memcpy {
        /// Destination.
        dst: Loc,
        /// Source.
        src: Loc,
        /// Bytes.
        len: u64,
    },
    /// Fill `len` bytes of device memory with `value`.
    Memset {
        /// Start address.
        addr: DevAddr,
        /// Fill byte.
        value: u8,
        /// Bytes.
        len: u64,
    },
    /// A cache-maintenance operation on a range.
    Cmo {
        /// Operation.
        op: CmoOp,
        /// Start address.
        addr: DevAddr,
        /// Bytes (already narrowed to 32 bits as the runtime does).
        len: u64,
    },
    /// A cache-maintenance operation carrying a barrier id (model streams, 310B).
    CmoWithBarrier {
        /// Operation.
        op: CmoOp,
        /// Start address.
        addr: DevAddr,
        /// Bytes.
        len: u64,
        /// Logical barrier id (0 for non-INVALID operations).
        barrier_id: u32,
    },
    /// Wait until no INVALID operation carrying any of these barrier ids is outstanding.
    CmoWaitBarrier {
        /// Logical barrier ids (1..=6 entries).
        barrier_ids: Vec<u32>,
    },
    /// A cache-maintenance operation described by a descriptor in device memory.
    CmoWithDesc {
        /// Descriptor address.
        desc: DevAddr,
        /// Operation.
        op: CmoOp,
    },
    /// Record an event.
    EventRecord(EventId),
    /// Block the stream until the event's last record has executed.
    EventWait(EventId),
    /// Reset an event to not-recorded.
    EventReset(EventId),
    /// Set a notify (`aclrtRecordNotify`); setting a set notify changes nothing.
    NotifyRecord(NotifyId),
    /// Block the stream until the notify is set, then clear it (`aclrtWaitAndResetNotify`).
    /// With a timeout (simulated time) that expires first, the task completes with a timeout
    /// fault ([`SimError::TaskTimeout`] at the next synchronize) and the notify stays clear.
    NotifyWait {
        /// The notify.
        notify: NotifyId,
        /// Timeout in ms of simulated time; `None` waits forever.
        timeout_ms: Option<u64>,
    },
}

/// What the simulator does when a host thread waits on a device that can make no progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnStall {
    /// Keep waiting (as hardware does) and log the diagnosis once.
    Wait,
    /// Return [`SimError::Stalled`] with the diagnosis.
    Error,
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
    /// Most completed tasks (and value waits) the run report keeps with their details;
    /// beyond that they are only counted.
    pub max_timeline_entries: usize,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            geq: GeqSemantics::SignedIsa,
            watchdog_grace: Duration::from_secs(5),
            on_stall: OnStall::Wait,
            seed: 0,
            poison_byte: 0xA5,
            max_timeline_entries: 100_000,
        }
    }
}

/// Why the device can make no progress, as the watchdog explains it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnosis {
    /// Simulated time of the diagnosis, in ns.
    pub at_ns: u64,
    /// One entry per blocked stream.
    pub blocked: Vec<BlockedStream>,
    /// What each host thread stuck on the stalled device is waiting in (for example a
    /// destroy of a stream whose tasks cannot complete).
    pub host_waits: Vec<String>,
    /// Human-readable explanation (several lines).
    pub text: String,
}

/// What a host thread blocked on the device waits in: the watchdog names it, so a host call
/// that can never return (a non-forced destroy of a stream blocked forever, say) is explained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostWait {
    /// A stream synchronize.
    SynchronizeStream(u32),
    /// A device synchronize (or a device release waiting for its streams).
    SynchronizeDevice(u32),
    /// An event synchronize.
    SynchronizeEvent(u32),
    /// A non-forced stream destroy, which waits for the stream's tasks.
    DestroyStream(u32),
    /// A submission to a stream whose queue is full.
    Submit(u32),
    /// A synchronous model run.
    ExecuteModel(u32),
    /// An asynchronous model run enqueued on a stream whose queue is full.
    ExecuteModelAsync {
        /// The model.
        model: u32,
        /// The stream.
        stream: u32,
    },
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
            HostWait::Submit(s) => write!(f, "a submission to stream {s}, whose queue is full"),
            HostWait::ExecuteModel(m) => write!(f, "a synchronous run of model {m}"),
            HostWait::ExecuteModelAsync { model, stream } => write!(
                f,
                "an asynchronous run of model {model} on stream {stream}, whose queue is full"
            ),
        }
    }
}

/// One stream that cannot progress.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BlockedStream {
    /// The stream.
    pub stream: u32,
    /// The task at its head.
    pub task: u64,
    /// What the head task waits for (a value-wait predicate, an event, a barrier).
    pub waiting_for: String,
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
    QueueFull(u32),
    /// A timed wait expired.
    #[error("timed out after {0} ms")]
    Timeout(u64),
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
    /// An id that does not name a live object.
    #[error("unknown {kind} {id}")]
    Unknown {
        /// "stream", "event", "notify", "model" or "device".
        kind: &'static str,
        /// The id.
        id: u64,
    },
}
