//! The [`Backend`] trait: what a backend must do once the front end has decided a call is legal.
//!
//! Backends receive only validated calls: handles are the backend's own typed ids
//! ([`StreamId`], [`EventId`], [`NotifyId`], [`ModelId`]), addresses were checked against the
//! front end's allocation table, enum values are in range, slices carry their own lengths. A
//! backend fails only for what it alone can know (out of memory, a timeout, a task fault, a
//! stalled device, a library's own code), and reports what happened as a [`BackendError`];
//! the front end picks CANN's code for it. The trait is
//! private to this crate, so nothing outside it can call a backend past the validation. It has
//! one default method, [`Backend::caller_thread_id`] (a model's own numbering of threads,
//! which only the real runtime replaces); every backend states what it does for every other
//! call.

use std::fmt::Debug;
use std::ops::Range;

pub use ascend_types::{
    CmoType, EventId, HostBuf, Loc, ModelId, NotifyId, StreamId, Task, WaitMode,
};

use ascend_chips::ChipProfile;

pub use error::{BResult, BackendError};

mod error;
#[cfg(feature = "hw")]
pub mod hw;
pub mod null;
#[cfg(feature = "sim")]
pub mod sim;

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

/// A host function or callback: run on a host thread each time its stream reaches it: once
/// for a task on an ordinary stream, at every run of the model for a task recorded into a
/// model (captured, or launched on a persistent stream bound to the model), which keeps the
/// function until the recording goes (the model is destroyed or the stream unbound).
pub type HostFn = Box<dyn FnMut() + Send + 'static>;

/// Runs a host function, catching a panic (it must not take a host thread down, nor unwind
/// into a library): false when it panicked.
pub(crate) fn run_host_fn(f: &mut HostFn) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_ok()
}

/// Runs a host function kept for many runs (a model's) as [`run_host_fn`] does. Only one
/// thread runs a channel's calls, so the function is busy only when it runs further up the
/// calling thread's stack (it ran its own model and processed that run's calls): that run is
/// skipped (`None`) rather than deadlocked.
pub(crate) fn run_kept_host_fn(f: &std::sync::Mutex<HostFn>) -> Option<bool> {
    let mut guard = match f.try_lock() {
        Ok(g) => g,
        Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return None,
    };
    Some(run_host_fn(&mut guard))
}

/// Which host thread runs a host call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HostCallThread {
    /// The runtime's own host-function thread (`aclrtLaunchHostFunc`).
    Runtime,
    /// The thread with this id, when it processes reports (`aclrtLaunchCallback` on a stream
    /// subscribed with `aclrtSubscribeReport`).
    Reports(u64),
    /// The thread with this id, when it processes host functions (`aclrtLaunchHostFunc` on a
    /// stream subscribed with `aclrtSubscribeHostFunc`).
    HostFuncs(u64),
}

/// A device query or setting that a real runtime answers itself; the simulator's are the front
/// end's model (its answer is `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceCall {
    /// `aclrtGetDeviceInfo`.
    Info { device: u32, attr: i32 },
    /// `aclrtQueryDeviceStatus`.
    Status { device: u32 },
    /// `aclrtGetDeviceCapability`.
    Capability { device: u32, feature: i32 },
    /// `aclrtGetDeviceResLimit`.
    ResLimitGet { device: u32, kind: u32 },
    /// `aclrtSetDeviceResLimit`.
    ResLimitSet { device: u32, kind: u32, value: u32 },
    /// `aclrtResetDeviceResLimit`.
    ResLimitReset { device: u32 },
    /// `aclrtDeviceCanAccessPeer`.
    PeerCan { device: u32, peer: u32 },
    /// `aclrtDeviceEnablePeerAccess` from `device`.
    PeerEnable { device: u32, peer: u32 },
    /// `aclrtDeviceDisablePeerAccess` from `device`.
    PeerDisable { device: u32, peer: u32 },
    /// `aclrtGetDeviceSatMode`.
    SatModeGet,
    /// `aclrtSetDeviceSatMode`.
    SatModeSet { mode: u32 },
    /// `aclrtGetStreamOverflowSwitch`.
    OverflowSwitchGet { stream: StreamId },
    /// `aclrtSetStreamOverflowSwitch`.
    OverflowSwitchSet { stream: StreamId, flag: u32 },
}

/// A task fault the device reported, for the exception callback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskFaultInfo {
    /// The backend's task id.
    pub task: u64,
    /// The backend's stream.
    pub stream: StreamId,
    /// The device.
    pub device: u32,
    /// What happened.
    pub message: String,
    /// The core type of the faulting kernel's task; `None` for a task other than a kernel.
    pub kernel_core: Option<ascend_types::CoreType>,
}

/// What a backend does. Every method is called on the host thread that made the ACL call,
/// after validation.
pub trait Backend: Send + Sync + Debug {
    /// Short name (`"sim"`, `"hw"`).
    fn name(&self) -> &'static str;

    /// The chip profile of the devices (for `hw`, the built-in profile of the real SoC).
    fn chip(&self) -> &ChipProfile;

    /// The SoC name `aclrtGetSocName` reports.
    fn soc_name(&self) -> BResult<String>;

    /// Number of devices.
    fn device_count(&self) -> BResult<u32>;

    /// Called when a device's first `aclrtSetDevice` happens in the process; returns the
    /// device's default stream.
    fn open_device(&self, device: u32) -> BResult<StreamId>;

    /// Called when a device is released (its last reset); waits for (or, with `force`,
    /// abandons) outstanding work.
    fn close_device(&self, device: u32, force: bool) -> BResult<()>;

    /// Allocates device memory of exactly `bytes` (already rounded by the front end).
    fn malloc(&self, device: u32, bytes: u64, policy: u32) -> BResult<u64>;

    /// Frees device memory by base address.
    fn free(&self, device: u32, addr: u64) -> BResult<()>;

    /// Allocates page-locked host memory.
    fn malloc_host(&self, bytes: usize) -> BResult<HostBuf>;

    /// Frees page-locked host memory from [`Backend::malloc_host`] at once (the front end has
    /// already forgotten it; clones of the buffer may still be alive).
    fn free_host(&self, buf: &HostBuf) -> BResult<()>;

    /// Puts a host call on a stream: `f` runs on the host thread `thread` names when the
    /// stream reaches it; a blocking call holds the stream until `f` returns.
    fn launch_host_call(
        &self,
        stream: StreamId,
        f: HostFn,
        thread: HostCallThread,
        blocking: bool,
    ) -> BResult<()>;

    /// Runs, on the calling thread, the host calls due for `thread` (a `Reports` or
    /// `HostFuncs` thread), waiting up to `timeout_ms` (`None`: forever) for the first.
    /// False when none came in time.
    fn process_host_calls(&self, thread: HostCallThread, timeout_ms: Option<u64>) -> BResult<bool>;

    /// `aclrtSubscribeReport` / `aclrtUnSubscribeReport` as the backend must know them (a real
    /// runtime keeps its own subscriptions; the simulator needs none).
    fn subscribe_reports(&self, thread: u64, stream: StreamId, subscribe: bool) -> BResult<()>;

    /// The task faults reported since the last call, oldest first (for the exception
    /// callback; a real runtime calls it itself and reports none here).
    fn take_task_faults(&self) -> Vec<TaskFaultInfo>;

    /// Passes a device query or setting to a real runtime: its answer (0 for a setting), or
    /// `None` where the backend has no library to ask and the front end answers from its model.
    fn device_call(&self, call: DeviceCall) -> BResult<Option<i64>>;

    /// The calling thread's id as the backend's `aclrtSubscribeReport` and
    /// `aclrtProcessReport` know it. A real runtime uses the thread's `pthread_t`; a model
    /// numbers its threads itself, once each.
    fn caller_thread_id(&self) -> u64 {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        thread_local! {
            static ID: u64 = NEXT.fetch_add(1, Ordering::Relaxed);
        }
        ID.with(|id| *id)
    }

    /// Stop on failure for a stream (`ACL_STOP_ON_FAILURE`): after a task of it faults, its
    /// later tasks are discarded. Stop is a context's mode: the front end calls this for the
    /// stream the program named (`named`), then for every other stream of its context, those
    /// created later included (`!named`). A real runtime spreads the mode over the context
    /// itself, so it needs only the named stream; a model marks each stream.
    fn set_stop_on_failure(&self, stream: StreamId, named: bool) -> BResult<()>;

    /// `aclrtStreamAbort`: the stream's running and queued tasks are dropped; it stays usable.
    fn abort_stream(&self, stream: StreamId) -> BResult<()>;

    /// `aclrtStreamStop`: the stream's running task is stopped (it fails); the rest go on.
    fn stop_stream(&self, stream: StreamId) -> BResult<()>;

    /// Synchronous copy of `count` bytes.
    fn memcpy(&self, dst: SyncDst<'_>, src: SyncSrc<'_>, count: u64) -> BResult<()>;

    /// Synchronous fill of device memory.
    fn memset(&self, addr: u64, value: u8, count: u64) -> BResult<()>;

    /// Creates a stream.
    fn create_stream(&self, device: u32, priority: u32, flags: u32) -> BResult<StreamId>;

    /// Destroys a stream; without `force`, waits for its tasks first.
    fn destroy_stream(&self, stream: StreamId, force: bool) -> BResult<()>;

    /// Enqueues a task on a stream; returns the backend's id of the task (0 where the backend
    /// has none to give).
    fn launch(&self, stream: StreamId, task: Task) -> BResult<u64>;

    /// Blocks until the stream's tasks complete; `timeout_ms` `None` = forever.
    fn synchronize_stream(&self, stream: StreamId, timeout_ms: Option<u64>) -> BResult<()>;

    /// True when the stream's tasks have completed.
    fn stream_idle(&self, stream: StreamId) -> BResult<bool>;

    /// Blocks until every stream of the device is idle.
    fn synchronize_device(&self, device: u32, timeout_ms: Option<u64>) -> BResult<()>;

    /// Creates an event.
    fn create_event(&self, device: u32, flags: u32) -> BResult<EventId>;

    /// Destroys an event.
    fn destroy_event(&self, event: EventId) -> BResult<()>;

    /// True when the event's latest record has executed.
    fn event_complete(&self, event: EventId) -> BResult<bool>;

    /// Blocks until the event's latest record has executed.
    fn synchronize_event(&self, event: EventId, timeout_ms: Option<u64>) -> BResult<()>;

    /// Milliseconds between two executed records.
    fn event_elapsed_ms(&self, start: EventId, end: EventId) -> BResult<f32>;

    /// `aclrtEventGetTimestamp`: the device clock, in µs, at which the event's latest record
    /// executed; `None` while it has not.
    fn event_timestamp_us(&self, event: EventId) -> BResult<Option<u64>>;

    /// Creates a model running instance.
    fn create_model(&self, device: u32) -> BResult<ModelId>;

    /// Binds a persistent stream to a model.
    fn bind_stream(&self, model: ModelId, stream: StreamId, flag: u32) -> BResult<()>;

    /// Unbinds a stream from a model.
    fn unbind_stream(&self, model: ModelId, stream: StreamId) -> BResult<()>;

    /// Marks the end of task submission on a bound stream.
    fn end_task(&self, model: ModelId, stream: StreamId) -> BResult<()>;

    /// Ends the model's build.
    fn build_end(&self, model: ModelId) -> BResult<()>;

    /// Runs the model and waits for it; `timeout_ms` `None` = forever.
    fn execute_model(&self, model: ModelId, timeout_ms: Option<u64>) -> BResult<()>;

    /// Enqueues a run of the model on a stream.
    fn execute_model_async(&self, model: ModelId, stream: StreamId) -> BResult<()>;

    /// Destroys a model.
    fn destroy_model(&self, model: ModelId) -> BResult<()>;

    /// Writes a CMO descriptor (`aclrtCmoSetDesc`) for `src`/`size` at `desc`.
    fn cmo_set_desc(&self, desc: u64, src: u64, size: u64) -> BResult<()>;

    /// `aclrtCreateContext`: opens an explicit context on `device` and returns its default
    /// stream.
    fn create_context(&self, device: u32) -> BResult<StreamId>;

    /// `aclrtDestroyContext`: releases an explicit context created by
    /// [`Backend::create_context`], given its default stream, after its tasks complete.
    fn destroy_context(&self, device: u32, default_stream: StreamId) -> BResult<()>;

    /// `aclrtCreateNotify`: creates a notify (clear) on `device`; `flag` is the validated ACL
    /// flag.
    fn create_notify(&self, device: u32, flag: u64) -> BResult<NotifyId>;

    /// `aclrtDestroyNotify`.
    fn destroy_notify(&self, notify: NotifyId) -> BResult<()>;

    /// The device address window: every device address the backend hands out lies in it and
    /// no host memory does, so an address inside it that is in no live allocation is a stale
    /// or foreign device address (freed, past an allocation's end, never allocated), never a
    /// host pointer. `None` when the backend cannot tell (real devices).
    fn device_window(&self) -> Option<Range<u64>>;

    /// Why a device address is not usable (freed when and by what, past which allocation's
    /// end, never allocated), where the backend knows.
    fn explain_device_address(&self, addr: u64) -> Option<String>;

    /// The simulator, where the backend is one (for [`crate::SimView`]).
    #[cfg(feature = "sim")]
    fn simulator(&self) -> Option<&ascend_sim::Sim>;

    /// The run report as JSON, where the backend has one.
    fn report_json(&self) -> Option<String>;

    /// The timeline as a Chrome trace (JSON, opens in Perfetto), where the backend has one.
    fn trace_json(&self) -> Option<String>;
}
