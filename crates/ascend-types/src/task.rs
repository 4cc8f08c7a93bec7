//! What a stream executes: a validated task and the ends of a copy.

use std::sync::{Arc, Mutex};

use crate::{CmoType, EventId, Kernel, NotifyId, ReduceOp, ReduceType, WaitMode};

/// A device address (in a simulator, its own address space: never a host pointer).
pub type DevAddr = u64;

/// Host memory shared between a host program and a backend (page-locked host memory): tasks
/// read and write it when they execute.
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

impl Loc {
    /// The same end `by` bytes further on.
    pub fn advanced(&self, by: usize) -> Loc {
        match self {
            Loc::Device(a) => Loc::Device(a + by as u64),
            Loc::Host { buf, offset } => Loc::Host {
                buf: buf.clone(),
                offset: offset + by,
            },
        }
    }
}

/// A validated stream task: what `aclrtValueWrite`, `aclrtValueWait`, `aclrtMemcpyAsync`,
/// `aclrtMemsetAsync`, the three CMO launches, `aclrtCmoWaitBarrier`, the event and the
/// notify calls put on a stream.
#[derive(Debug, Clone)]
pub enum Task {
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
    /// A reduce-copy (`aclrtReduceAsync`): `dst[i] = op(dst[i], src[i])` over `len` bytes of
    /// elements of `ty`, by the copy engine.
    Reduce {
        /// Destination (and first operand).
        dst: DevAddr,
        /// Source (second operand).
        src: DevAddr,
        /// Bytes.
        len: u64,
        /// The operation.
        op: ReduceOp,
        /// The element type.
        ty: ReduceType,
    },
    /// A cache-maintenance operation on a range (`aclrtCmoAsync`).
    Cmo {
        /// Operation.
        op: CmoType,
        /// Start address.
        addr: DevAddr,
        /// Bytes as the caller gave them; the runtime's task carries a 32-bit length field, so
        /// a backend that models the runtime narrows it (sizes of 4 GiB and more wrap).
        len: u64,
    },
    /// A cache-maintenance operation carrying a barrier id (`aclrtCmoAsyncWithBarrier`).
    CmoWithBarrier {
        /// Operation.
        op: CmoType,
        /// Start address.
        addr: DevAddr,
        /// Bytes as the caller gave them (see [`Task::Cmo`]).
        len: u64,
        /// Logical barrier id (0 for non-INVALID operations).
        barrier_id: u32,
    },
    /// Wait until no INVALID operation carrying any of these barrier ids is outstanding
    /// (`aclrtCmoWaitBarrier`).
    CmoWaitBarrier {
        /// Logical barrier ids (1..=6 entries).
        barrier_ids: Vec<u32>,
    },
    /// A cache-maintenance operation described by a descriptor in device memory
    /// (`aclrtCmoAsyncWithDesc`).
    CmoWithDesc {
        /// Descriptor address.
        desc: DevAddr,
        /// Operation.
        op: CmoType,
    },
    /// Record an event.
    EventRecord(EventId),
    /// Block the stream until the event's last record has executed.
    EventWait(EventId),
    /// Reset an event to not-recorded.
    EventReset(EventId),
    /// Set a notify (`aclrtRecordNotify`); setting a set notify changes nothing.
    NotifyRecord(NotifyId),
    /// Run a simulator kernel on `blocks` blocks (`aclsimLaunchKernel`); the task completes
    /// when every block has returned. Only a simulator runs it.
    Kernel {
        /// The kernel.
        kernel: Kernel,
        /// Blocks to run (at least 1), each on an AI core; more blocks than cores run in
        /// waves.
        blocks: u32,
    },
    /// A host function or callback (`aclrtLaunchHostFunc`, `aclrtLaunchCallback`): when the
    /// stream reaches it, the call becomes due and a host thread runs it (the front end owns
    /// the function; the task carries its number). A blocking call holds the stream until the
    /// host reports it done; a non-blocking one lets the stream go on at once.
    HostCall {
        /// The call's number, unique in the process.
        call: u64,
        /// Which host thread runs it: 0 for the runtime's own thread, else the id of the
        /// thread subscribed to the stream (`aclrtSubscribeReport` / `aclrtSubscribeHostFunc`).
        channel: u64,
        /// The stream waits for the call to return.
        blocking: bool,
    },
    /// Block the stream until the notify is set, then clear it (`aclrtWaitAndResetNotify`).
    /// A timeout that expires first fails the stream: its next synchronize returns the task
    /// timeout, and the notify stays clear.
    NotifyWait {
        /// The notify.
        notify: NotifyId,
        /// Timeout in ms; `None` waits forever.
        timeout_ms: Option<u64>,
    },
}
