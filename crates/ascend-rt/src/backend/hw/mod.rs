//! The `hw` backend: [`Backend`] over the real runtime library (`libascendcl.so`), loaded at
//! run time through `ascend-rt-sys`.
//!
//! Each method calls the matching ACL function on the calling thread. The front end has
//! already validated the call, so a non-zero return code here is something only the library
//! could know (or a disagreement with the front end's prediction, which the conformance suite
//! looks for); it becomes an [`AclError`] with [`AclError::from_code`], which keeps numbers
//! this crate does not know.
//!
//! **Contexts.** ACL binds contexts to threads. The front end keeps one default context per
//! device, shared by every thread (as `aclrtSetDevice` does), and calls [`Backend::open_device`]
//! only for a device's first `aclrtSetDevice`. So `open_device` calls `aclrtSetDevice` and
//! remembers the context it created (`aclrtGetCurrentContext`); before any call that needs a
//! context, the backend makes the device's context current on the calling thread
//! (`aclrtSetCurrentContext`) if it is not already. `close_device` calls `aclrtResetDevice`
//! (or `aclrtResetDeviceForce`).
//!
//! An explicit context ([`Backend::create_context`]) is a real `aclrtCreateContext`; its
//! default stream is the NULL stream while that context is current. The [`Backend`] calls
//! that create objects name only a device, not the front end's context, so streams, events,
//! models and notifies are created in the device's default context, or, while the device has
//! none (`aclrtCreateContext` without `aclrtSetDevice`), in an explicit context of the device
//! (the calling thread's current one if it is one of them, else the newest). Each object
//! remembers the context it was created in, and every later call on it makes that context
//! current first. Destroying an explicit context releases, in the library, what was created
//! in it; the backend forgets those objects too.
//!
//! **Handles.** A stream, event, model or notify handle is the library's own handle value. A
//! context's default stream is a tagged value that maps to the NULL stream of that context.
//!
//! **Host buffers.** The front end's page-locked buffers ([`HostBuf`], an
//! `Arc<Mutex<Vec<u8>>>`) are the host's view. [`Backend::malloc_host`] also allocates real
//! page-locked memory with `aclrtMallocHost`, which is what the device reads and writes:
//! - an asynchronous copy *from* a host buffer copies the range into the pinned memory when it
//!   is enqueued, then the device copies from there (a host write to the buffer after the
//!   enqueue is not seen by that copy);
//! - an asynchronous copy *into* a host buffer lands in the pinned memory and is copied into
//!   the buffer when the host observes its completion: a successful stream, device or event
//!   synchronisation, a stream or event query that reports completion, a model execution, a
//!   stream destruction or a device reset;
//! - a host buffer the backend did not allocate (the front end's staging of pageable memory)
//!   gets temporary pinned memory, freed when the copy's completion is observed.
//!
//! Copies on model-bound streams run at each execution of the model; their host destinations
//! are refreshed after each `aclmdlRIExecute` (or, for `aclmdlRIExecuteAsync`, when the
//! stream it was enqueued on is observed complete).
//!
//! The library is initialised (`aclInit`) once per process and library path and never
//! finalised by this backend (a real runtime cannot always be initialised again).
//!
//! **Layout.** This module holds [`HwBackend`] and its [`Backend`] impl, which delegates each
//! call to the submodule of its concept: loading and initialisation (`library.rs`), return
//! codes and [`HwError`] (`errors.rs`), handle and argument mapping (`handles.rs`), the
//! bookkeeping tables (`state.rs`), per-thread context switching (`contexts.rs`), devices
//! and explicit contexts (`devices.rs`), device memory (`memory.rs`), the pinned staging of
//! host buffers (`host_staging.rs`), streams (`streams.rs`), tasks (`tasks.rs`), events
//! (`events.rs`), models (`models.rs`) and notifies (`notifies.rs`).

#![allow(unsafe_code)]
// The declarations come from the vendor's headers or from the project's own, whose integer
// types may differ (an enum, `int`, `uint32_t`): the casts keep this module compiling on both.
#![allow(clippy::unnecessary_cast)]

use std::sync::{Arc, Mutex, MutexGuard};

use ascend_chips::ChipProfile;
use ascend_rt_sys::Library;

use super::{
    BResult, Backend, BackendError, EventId, HostBuf, HostCallThread, HostFn, ModelId, NotifyId,
    StreamId, SyncDst, SyncSrc, Task, TaskFaultInfo,
};

/// A handle value of the library (a pointer as an integer), or a tagged value for a default
/// stream: what this backend keys its tables by. The trait's typed ids carry it unchanged.
pub(super) type RawHandle = u64;

/// Calls an ACL function of the backend's library and turns its code into a result. The
/// function is looked up by name (a missing one is an error, not a panic). Each call site
/// states, in a `// SAFETY:` comment, why its pointer arguments are valid.
macro_rules! acl {
    ($self:expr, $name:ident ( $($arg:expr),* $(,)? )) => {{
        let f = ::ascend_rt_sys::acl_fn!($self.lib, $name)
            .map_err($crate::backend::hw::errors::missing)?;
        // SAFETY: `f` is the library's `$name`, declared by bindgen from the ACL header, so
        // the signature matches; the arguments' validity is stated at the call site.
        let rc = unsafe { f($($arg),*) };
        $self.check(stringify!($name), rc)
    }};
}

mod callbacks;
mod contexts;
mod device_calls;
mod devices;
mod errors;
mod events;
mod handles;

use callbacks::StreamControl;
mod host_staging;
mod library;
mod memory;
mod models;
mod notifies;
mod state;
mod streams;
mod tasks;

pub use errors::HwError;
use state::HwState;

/// The real-hardware backend.
pub struct HwBackend {
    lib: Arc<Library>,
    chip: ChipProfile,
    soc: String,
    state: Mutex<HwState>,
}

impl std::fmt::Debug for HwBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HwBackend")
            .field("library", &self.lib.path())
            .field("soc", &self.soc)
            .finish_non_exhaustive()
    }
}

impl HwBackend {
    /// The bookkeeping tables (a poisoned lock is taken over: the tables stay consistent
    /// between statements).
    fn state(&self) -> MutexGuard<'_, HwState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Each method calls the inherent method of the same name (inherent methods take precedence
/// over the trait's), defined in the submodule of its concept.
impl Backend for HwBackend {
    fn name(&self) -> &'static str {
        "hw"
    }

    fn chip(&self) -> &ChipProfile {
        &self.chip
    }

    fn soc_name(&self) -> BResult<String> {
        Ok(self.soc.clone())
    }

    fn device_count(&self) -> BResult<u32> {
        HwBackend::device_count(self).map_err(BackendError::Library)
    }

    fn open_device(&self, device: u32) -> BResult<StreamId> {
        HwBackend::open_device(self, device)
            .map(StreamId)
            .map_err(BackendError::Library)
    }

    fn close_device(&self, device: u32, force: bool) -> BResult<()> {
        HwBackend::close_device(self, device, force).map_err(BackendError::Library)
    }

    fn malloc(&self, device: u32, bytes: u64, policy: u32) -> BResult<u64> {
        HwBackend::malloc(self, device, bytes, policy).map_err(BackendError::Library)
    }

    fn free(&self, device: u32, addr: u64) -> BResult<()> {
        HwBackend::free(self, device, addr).map_err(BackendError::Library)
    }

    fn malloc_host(&self, bytes: usize) -> BResult<HostBuf> {
        HwBackend::malloc_host(self, bytes).map_err(BackendError::Library)
    }

    fn free_host(&self, buf: &HostBuf) -> BResult<()> {
        HwBackend::free_host(self, buf).map_err(BackendError::Library)
    }

    fn memcpy(&self, dst: SyncDst<'_>, src: SyncSrc<'_>, count: u64) -> BResult<()> {
        HwBackend::memcpy(self, dst, src, count).map_err(BackendError::Library)
    }

    fn memset(&self, addr: u64, value: u8, count: u64) -> BResult<()> {
        HwBackend::memset(self, addr, value, count).map_err(BackendError::Library)
    }

    fn create_stream(&self, device: u32, priority: u32, flags: u32) -> BResult<StreamId> {
        HwBackend::create_stream(self, device, priority, flags)
            .map(StreamId)
            .map_err(BackendError::Library)
    }

    fn destroy_stream(&self, stream: StreamId, force: bool) -> BResult<()> {
        HwBackend::destroy_stream(self, stream.0, force).map_err(BackendError::Library)
    }

    fn launch(&self, stream: StreamId, task: Task) -> BResult<u64> {
        // The library keeps its own task ids (aclrtGetThreadLastTaskId).
        HwBackend::launch(self, stream.0, task)
            .map(|()| 0)
            .map_err(BackendError::Library)
    }

    fn launch_host_call(
        &self,
        stream: StreamId,
        f: HostFn,
        thread: HostCallThread,
        blocking: bool,
    ) -> BResult<()> {
        HwBackend::launch_host_call(self, stream.0, f, thread, blocking)
            .map_err(BackendError::Library)
    }

    fn process_host_calls(
        &self,
        _thread: HostCallThread,
        timeout_ms: Option<u64>,
    ) -> BResult<bool> {
        HwBackend::process_host_calls(self, timeout_ms).map_err(BackendError::Library)
    }

    fn subscribe_reports(&self, thread: u64, stream: StreamId, subscribe: bool) -> BResult<()> {
        HwBackend::subscribe_reports(self, thread, stream.0, subscribe)
            .map_err(BackendError::Library)
    }

    fn caller_thread_id(&self) -> u64 {
        callbacks::pthread_id()
    }

    fn device_call(&self, call: super::DeviceCall) -> BResult<Option<i64>> {
        HwBackend::device_call(self, call)
            .map(Some)
            .map_err(BackendError::Library)
    }

    fn set_stop_on_failure(&self, stream: StreamId, named: bool) -> BResult<()> {
        // The library spreads the mode over the context itself: telling it about the other
        // streams would also name the default stream as NULL, which a chip without a control
        // queue refuses.
        if !named {
            return Ok(());
        }
        HwBackend::stream_control(self, stream.0, StreamControl::StopOnFailure)
            .map_err(BackendError::Library)
    }

    fn abort_stream(&self, stream: StreamId) -> BResult<()> {
        HwBackend::stream_control(self, stream.0, StreamControl::Abort)
            .map_err(BackendError::Library)
    }

    fn stop_stream(&self, stream: StreamId) -> BResult<()> {
        HwBackend::stream_control(self, stream.0, StreamControl::Stop)
            .map_err(BackendError::Library)
    }

    fn take_task_faults(&self) -> Vec<TaskFaultInfo> {
        // The library calls the program's exception callback itself.
        Vec::new()
    }

    fn synchronize_stream(&self, stream: StreamId, timeout_ms: Option<u64>) -> BResult<()> {
        HwBackend::synchronize_stream(self, stream.0, timeout_ms).map_err(BackendError::Library)
    }

    fn stream_idle(&self, stream: StreamId) -> BResult<bool> {
        HwBackend::stream_idle(self, stream.0).map_err(BackendError::Library)
    }

    fn synchronize_device(&self, device: u32, timeout_ms: Option<u64>) -> BResult<()> {
        HwBackend::synchronize_device(self, device, timeout_ms).map_err(BackendError::Library)
    }

    fn create_event(&self, device: u32, flags: u32) -> BResult<EventId> {
        HwBackend::create_event(self, device, flags)
            .map(EventId)
            .map_err(BackendError::Library)
    }

    fn destroy_event(&self, event: EventId) -> BResult<()> {
        HwBackend::destroy_event(self, event.0).map_err(BackendError::Library)
    }

    fn event_complete(&self, event: EventId) -> BResult<bool> {
        HwBackend::event_complete(self, event.0).map_err(BackendError::Library)
    }

    fn synchronize_event(&self, event: EventId, timeout_ms: Option<u64>) -> BResult<()> {
        HwBackend::synchronize_event(self, event.0, timeout_ms).map_err(BackendError::Library)
    }

    fn event_elapsed_ms(&self, start: EventId, end: EventId) -> BResult<f32> {
        HwBackend::event_elapsed_ms(self, start.0, end.0).map_err(BackendError::Library)
    }

    fn create_model(&self, device: u32) -> BResult<ModelId> {
        HwBackend::create_model(self, device)
            .map(ModelId)
            .map_err(BackendError::Library)
    }

    fn bind_stream(&self, model: ModelId, stream: StreamId, flag: u32) -> BResult<()> {
        HwBackend::bind_stream(self, model.0, stream.0, flag).map_err(BackendError::Library)
    }

    fn unbind_stream(&self, model: ModelId, stream: StreamId) -> BResult<()> {
        HwBackend::unbind_stream(self, model.0, stream.0).map_err(BackendError::Library)
    }

    fn end_task(&self, model: ModelId, stream: StreamId) -> BResult<()> {
        HwBackend::end_task(self, model.0, stream.0).map_err(BackendError::Library)
    }

    fn build_end(&self, model: ModelId) -> BResult<()> {
        HwBackend::build_end(self, model.0).map_err(BackendError::Library)
    }

    fn execute_model(&self, model: ModelId, timeout_ms: Option<u64>) -> BResult<()> {
        HwBackend::execute_model(self, model.0, timeout_ms).map_err(BackendError::Library)
    }

    fn execute_model_async(&self, model: ModelId, stream: StreamId) -> BResult<()> {
        HwBackend::execute_model_async(self, model.0, stream.0).map_err(BackendError::Library)
    }

    fn destroy_model(&self, model: ModelId) -> BResult<()> {
        HwBackend::destroy_model(self, model.0).map_err(BackendError::Library)
    }

    fn cmo_set_desc(&self, desc: u64, src: u64, size: u64) -> BResult<()> {
        HwBackend::cmo_set_desc(self, desc, src, size).map_err(BackendError::Library)
    }

    fn create_context(&self, device: u32) -> BResult<StreamId> {
        HwBackend::create_context(self, device)
            .map(StreamId)
            .map_err(BackendError::Library)
    }

    fn destroy_context(&self, device: u32, default_stream: StreamId) -> BResult<()> {
        HwBackend::destroy_context(self, device, default_stream.0).map_err(BackendError::Library)
    }

    fn create_notify(&self, device: u32, flag: u64) -> BResult<NotifyId> {
        HwBackend::create_notify(self, device, flag)
            .map(NotifyId)
            .map_err(BackendError::Library)
    }

    fn destroy_notify(&self, notify: NotifyId) -> BResult<()> {
        HwBackend::destroy_notify(self, notify.0).map_err(BackendError::Library)
    }

    fn event_timestamp_us(&self, event: EventId) -> BResult<Option<u64>> {
        HwBackend::event_timestamp_us(self, event.0).map_err(BackendError::Library)
    }

    fn device_window(&self) -> Option<std::ops::Range<u64>> {
        // A real device's addresses are the driver's: no window is known.
        None
    }

    fn explain_device_address(&self, _addr: u64) -> Option<String> {
        None
    }

    #[cfg(feature = "sim")]
    fn simulator(&self) -> Option<&ascend_sim::Sim> {
        None
    }

    fn report_json(&self) -> Option<String> {
        None
    }

    fn trace_json(&self) -> Option<String> {
        None
    }
}
