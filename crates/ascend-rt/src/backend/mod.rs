//! The [`Backend`] trait: what a backend must do once the front end has decided a call is legal.
//!
//! Backends receive only validated calls (principle 2 of the design): handles are the
//! backend's own ([`BHandle`]), addresses were checked against the front end's allocation
//! table, enum values are in range. A backend returns an [`AclError`] only for what it alone
//! can know (out of memory, a timeout, a task fault, a stalled device).

use std::fmt::Debug;
use std::sync::{Arc, Mutex};

use ascend_chips::ChipProfile;

use crate::error::{fail, AclResult, ErrorCode};

#[cfg(feature = "hw")]
pub mod hw;
#[cfg(feature = "sim")]
pub mod sim;

/// A backend's own handle of a stream, event or model.
pub type BHandle = u64;

/// Host memory shared with the backend (page-locked host memory): asynchronous copies read
/// and write it when they execute.
pub type HostBuf = Arc<Mutex<Vec<u8>>>;

/// Source of a synchronous copy.
#[derive(Debug)]
pub enum SyncSrc<'a> {
    /// Device memory.
    Device(u64),
    /// Host memory.
    Host(&'a [u8]),
}

/// Destination of a synchronous copy.
#[derive(Debug)]
pub enum SyncDst<'a> {
    /// Device memory.
    Device(u64),
    /// Host memory.
    Host(&'a mut [u8]),
}

/// One end of an asynchronous copy.
#[derive(Debug, Clone)]
pub enum AsyncLoc {
    /// Device memory.
    Device(u64),
    /// Host memory shared with the backend, at a byte offset.
    Host(HostBuf, usize),
}

impl AsyncLoc {
    /// The same end `by` bytes further on.
    pub fn advanced(&self, by: usize) -> AsyncLoc {
        match self {
            AsyncLoc::Device(a) => AsyncLoc::Device(a + by as u64),
            AsyncLoc::Host(buf, offset) => AsyncLoc::Host(buf.clone(), offset + by),
        }
    }
}

/// A cache-maintenance operation (runtime opcodes 6..=9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmoOp {
    /// Opcode 6: load into the cache.
    Prefetch,
    /// Opcode 7: write dirty lines back, keep them.
    Writeback,
    /// Opcode 8: drop lines without write-back.
    Invalid,
    /// Opcode 9: write back and drop.
    Flush,
}

impl CmoOp {
    /// The operation for an ACL `aclrtCmoType` value, if it is one of the four.
    pub fn from_acl(cmo_type: u32) -> Option<CmoOp> {
        match cmo_type {
            0 => Some(CmoOp::Prefetch),
            1 => Some(CmoOp::Writeback),
            2 => Some(CmoOp::Invalid),
            3 => Some(CmoOp::Flush),
            _ => None,
        }
    }
}

/// The compare of a value wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WaitCompare {
    /// Flag 0.
    Geq,
    /// Flag 1.
    Eq,
    /// Flag 2.
    And,
    /// Flag 3.
    Nor,
}

impl WaitCompare {
    /// The compare for a raw flag, if it is one of the four.
    pub fn from_flag(flag: u32) -> Option<WaitCompare> {
        match flag {
            0 => Some(WaitCompare::Geq),
            1 => Some(WaitCompare::Eq),
            2 => Some(WaitCompare::And),
            3 => Some(WaitCompare::Nor),
            _ => None,
        }
    }
}

/// A validated stream task.
#[derive(Debug, Clone)]
pub enum Task {
    /// `aclrtValueWrite`.
    ValueWrite {
        /// Device address.
        addr: u64,
        /// Value.
        value: u64,
    },
    /// `aclrtValueWait`.
    ValueWait {
        /// Device address.
        addr: u64,
        /// Operand.
        value: u64,
        /// Compare.
        compare: WaitCompare,
    },
    /// `aclrtMemcpyAsync`.
    Memcpy {
        /// Destination.
        dst: AsyncLoc,
        /// Source.
        src: AsyncLoc,
        /// Bytes.
        len: u64,
    },
    /// `aclrtMemsetAsync`.
    Memset {
        /// Device address.
        addr: u64,
        /// Fill byte.
        value: u8,
        /// Bytes.
        len: u64,
    },
    /// `aclrtCmoAsync`.
    Cmo {
        /// Operation.
        op: CmoOp,
        /// Start.
        addr: u64,
        /// Bytes as the caller gave them; the runtime narrows this to its 32-bit length field
        /// (the simulator does so; the `hw` backend passes it to the library unchanged).
        len: u64,
    },
    /// `aclrtCmoAsyncWithBarrier`.
    CmoWithBarrier {
        /// Operation.
        op: CmoOp,
        /// Start.
        addr: u64,
        /// Bytes as the caller gave them; the runtime narrows this to its 32-bit length field
        /// (the simulator does so; the `hw` backend passes it to the library unchanged).
        len: u64,
        /// Logical barrier id.
        barrier_id: u32,
    },
    /// `aclrtCmoWaitBarrier`.
    CmoWaitBarrier {
        /// Logical barrier ids.
        barrier_ids: Vec<u32>,
    },
    /// `aclrtCmoAsyncWithDesc`.
    CmoWithDesc {
        /// Descriptor address.
        desc: u64,
        /// Operation.
        op: CmoOp,
    },
    /// `aclrtRecordEvent`.
    EventRecord(BHandle),
    /// `aclrtStreamWaitEvent`.
    EventWait(BHandle),
    /// `aclrtResetEvent`.
    EventReset(BHandle),
    /// `aclrtRecordNotify`: sets the notify when the stream reaches the task.
    NotifyRecord(BHandle),
    /// `aclrtWaitAndResetNotify`: blocks the stream until the notify is set, then clears it.
    /// A wait whose timeout expires first fails the stream: the next synchronize returns
    /// `ACL_ERROR_RT_TASK_TIMEOUT` (107020).
    NotifyWait {
        /// The notify.
        notify: BHandle,
        /// Timeout in seconds; `None` waits forever (the API's 0 and `UINT32_MAX`).
        timeout_s: Option<u32>,
    },
}

/// What a [`Backend`] without a newer optional method returns from it.
fn not_implemented(backend: &str, method: &str) -> crate::error::AclError {
    fail::plain(
        ErrorCode::RtFeatureNotSupport,
        format!("the {backend} backend does not implement {method}"),
    )
}

/// What a backend does. Every method is called on the host thread that made the ACL call,
/// after validation.
pub trait Backend: Send + Sync + Debug {
    /// Short name (`"sim"`, `"hw"`).
    fn name(&self) -> &'static str;

    /// The chip profile of the devices (for `hw`, the built-in profile of the real SoC).
    fn chip(&self) -> &ChipProfile;

    /// The SoC name `aclrtGetSocName` reports.
    fn soc_name(&self) -> AclResult<String>;

    /// Number of devices.
    fn device_count(&self) -> AclResult<u32>;

    /// Called when a device's first `aclrtSetDevice` happens in the process; returns the
    /// backend handle of the device's default stream.
    fn open_device(&self, device: u32) -> AclResult<BHandle>;

    /// Called when a device is released (its last reset); waits for (or, with `force`,
    /// abandons) outstanding work.
    fn close_device(&self, device: u32, force: bool) -> AclResult<()>;

    /// Allocates device memory of exactly `bytes` (already rounded by the front end).
    fn malloc(&self, device: u32, bytes: u64, policy: u32) -> AclResult<u64>;

    /// Frees device memory by base address.
    fn free(&self, device: u32, addr: u64) -> AclResult<()>;

    /// Allocates page-locked host memory.
    fn malloc_host(&self, bytes: usize) -> AclResult<HostBuf>;

    /// Frees page-locked host memory from [`Backend::malloc_host`] at once (the front end has
    /// already forgotten it; clones of the buffer may still be alive). The default does
    /// nothing: the buffer is freed when its last clone goes.
    fn free_host(&self, _buf: &HostBuf) -> AclResult<()> {
        Ok(())
    }

    /// Synchronous copy of `count` bytes.
    fn memcpy(&self, dst: SyncDst<'_>, src: SyncSrc<'_>, count: u64) -> AclResult<()>;

    /// Synchronous fill of device memory.
    fn memset(&self, addr: u64, value: u8, count: u64) -> AclResult<()>;

    /// Creates a stream.
    fn create_stream(&self, device: u32, priority: u32, flags: u32) -> AclResult<BHandle>;

    /// Destroys a stream; without `force`, waits for its tasks first.
    fn destroy_stream(&self, stream: BHandle, force: bool) -> AclResult<()>;

    /// Enqueues a task on a stream.
    fn launch(&self, stream: BHandle, task: Task) -> AclResult<()>;

    /// Blocks until the stream's tasks complete; `timeout_ms` `None` = forever.
    fn synchronize_stream(&self, stream: BHandle, timeout_ms: Option<u64>) -> AclResult<()>;

    /// True when the stream's tasks have completed.
    fn stream_idle(&self, stream: BHandle) -> AclResult<bool>;

    /// Blocks until every stream of the device is idle.
    fn synchronize_device(&self, device: u32, timeout_ms: Option<u64>) -> AclResult<()>;

    /// Creates an event.
    fn create_event(&self, device: u32, flags: u32) -> AclResult<BHandle>;

    /// Destroys an event.
    fn destroy_event(&self, event: BHandle) -> AclResult<()>;

    /// True when the event's latest record has executed.
    fn event_complete(&self, event: BHandle) -> AclResult<bool>;

    /// Blocks until the event's latest record has executed.
    fn synchronize_event(&self, event: BHandle, timeout_ms: Option<u64>) -> AclResult<()>;

    /// Milliseconds between two executed records.
    fn event_elapsed_ms(&self, start: BHandle, end: BHandle) -> AclResult<f32>;

    /// Creates a model running instance.
    fn create_model(&self, device: u32) -> AclResult<BHandle>;

    /// Binds a persistent stream to a model.
    fn bind_stream(&self, model: BHandle, stream: BHandle, flag: u32) -> AclResult<()>;

    /// Unbinds a stream from a model.
    fn unbind_stream(&self, model: BHandle, stream: BHandle) -> AclResult<()>;

    /// Marks the end of task submission on a bound stream.
    fn end_task(&self, model: BHandle, stream: BHandle) -> AclResult<()>;

    /// Ends the model's build.
    fn build_end(&self, model: BHandle) -> AclResult<()>;

    /// Runs the model and waits for it; `timeout_ms` `None` = forever.
    fn execute_model(&self, model: BHandle, timeout_ms: Option<u64>) -> AclResult<()>;

    /// Enqueues a run of the model on a stream.
    fn execute_model_async(&self, model: BHandle, stream: BHandle) -> AclResult<()>;

    /// Destroys a model.
    fn destroy_model(&self, model: BHandle) -> AclResult<()>;

    /// Writes a CMO descriptor (`aclrtCmoSetDesc`) for `src`/`size` at `desc`.
    fn cmo_set_desc(&self, desc: u64, src: u64, size: u64) -> AclResult<()>;

    // ----- What the supporting calls need: contexts, notifies, event timestamps, address
    // diagnostics and the simulator's reports. Each has a default so that a backend without
    // them still compiles; a backend overrides the ones it supports. -----

    /// `aclrtCreateContext`: opens an explicit context on `device` and returns the backend
    /// handle of its default stream. The default creates a plain stream.
    fn create_context(&self, device: u32) -> AclResult<BHandle> {
        self.create_stream(device, 0, 0)
    }

    /// `aclrtDestroyContext`: releases an explicit context created by
    /// [`Backend::create_context`], given its default stream, after its tasks complete. The
    /// default destroys the stream.
    fn destroy_context(&self, _device: u32, default_stream: BHandle) -> AclResult<()> {
        self.destroy_stream(default_stream, false)
    }

    /// `aclrtCreateNotify`: creates a notify (clear) on `device`; `flag` is the validated ACL
    /// flag. The default reports 207000.
    fn create_notify(&self, _device: u32, _flag: u64) -> AclResult<BHandle> {
        Err(not_implemented(self.name(), "create_notify"))
    }

    /// `aclrtDestroyNotify`. The default reports 207000.
    fn destroy_notify(&self, _notify: BHandle) -> AclResult<()> {
        Err(not_implemented(self.name(), "destroy_notify"))
    }

    /// `aclrtEventGetTimestamp`: the device clock, in µs, at which the event's latest record
    /// executed; `None` while it has not. The default reports 207000.
    fn event_timestamp_us(&self, _event: BHandle) -> AclResult<Option<u64>> {
        Err(not_implemented(self.name(), "event_timestamp_us"))
    }

    /// The device address window: every device address the backend hands out lies in it and
    /// no host memory does, so an address inside it that is in no live allocation is a stale
    /// or foreign device address (freed, past an allocation's end, never allocated), never a
    /// host pointer. `None` when the backend cannot tell (real devices).
    fn device_window(&self) -> Option<std::ops::Range<u64>> {
        None
    }

    /// Why a device address is not usable (freed when and by what, past which allocation's
    /// end, never allocated), where the backend knows.
    fn explain_device_address(&self, _addr: u64) -> Option<String> {
        None
    }

    /// The simulator, where the backend is one (for [`crate::SimView`]).
    #[cfg(feature = "sim")]
    fn simulator(&self) -> Option<&ascend_sim::Sim> {
        None
    }

    /// The run report as JSON, where the backend has one.
    fn report_json(&self) -> Option<String> {
        None
    }

    /// The timeline as a Chrome trace (JSON, opens in Perfetto), where the backend has one.
    fn trace_json(&self) -> Option<String> {
        None
    }
}
