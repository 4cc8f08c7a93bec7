//! The `hw` backend: [`Backend`](crate::backend::Backend) over the real runtime library (`libascendcl.so`), loaded at
//! run time through `ascend-rt-sys`.
//!
//! Each method calls the matching ACL function on the calling thread. The front end has
//! already validated the call, so a non-zero return code here is something only the library
//! could know (or a disagreement with the front end's prediction, which the conformance suite
//! looks for); it becomes an [`AclError`](crate::AclError) with [`AclError::from_code`](crate::AclError::from_code), which keeps numbers
//! this crate does not know.
//!
//! **Contexts.** ACL binds contexts to threads. The front end keeps one default context per
//! device, shared by every thread (as `aclrtSetDevice` does), and opens a device
//! ([`Devices::open_device`](crate::backend::Devices::open_device)) only for its first
//! `aclrtSetDevice`. So `open_device` calls `aclrtSetDevice` and
//! remembers the context it created (`aclrtGetCurrentContext`); before any call that needs a
//! context, the backend makes the device's context current on the calling thread
//! (`aclrtSetCurrentContext`) if it is not already. `close_device` calls `aclrtResetDevice`
//! (or `aclrtResetDeviceForce`).
//!
//! An explicit context ([`Devices::create_context`](crate::backend::Devices::create_context)) is a real `aclrtCreateContext`; its
//! default stream is the NULL stream while that context is current. The backend's calls
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
//! `Arc<Mutex<Vec<u8>>>`) are the host's view. [`Memory::malloc_host`](crate::backend::Memory::malloc_host) also allocates real
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
//! **Layout.** Each role of the backend seam is implemented, with the library's calls, in
//! the file of its concept: [`Devices`](crate::backend::Devices) and explicit contexts in
//! `devices.rs` (the queries passed through in `device_calls.rs`),
//! [`Memory`](crate::backend::Memory) in `memory.rs` (the pinned staging of host buffers in
//! `host_staging.rs`), [`Streams`](crate::backend::Streams) in `streams.rs` (the tasks in
//! `tasks.rs`), [`Events`](crate::backend::Events) and notifies in `events.rs`,
//! [`Models`](crate::backend::Models) in `models.rs`,
//! [`HostCalls`](crate::backend::HostCalls) in `callbacks.rs`, and
//! [`Inspect`](crate::backend::Inspect) here. Beside them: loading and initialisation
//! (`library.rs`), return codes and [`HwError`] (`errors.rs`), handle and argument mapping
//! (`handles.rs`), the bookkeeping tables (`state.rs`) and per-thread context switching
//! (`contexts.rs`). A library call's failure is an [`AclError`](crate::AclError), which `?`
//! turns into [`BackendError::Library`](crate::backend::BackendError::Library).

#![allow(unsafe_code)]
// The declarations come from the vendor's headers or from the project's own, whose integer
// types may differ (an enum, `int`, `uint32_t`): the casts keep this module compiling on both.
#![allow(clippy::unnecessary_cast)]

use std::sync::{Arc, Mutex, MutexGuard};

use ascend_chips::ChipProfile;
use ascend_rt_sys::Library;

use super::Inspect;

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

mod host_staging;
mod library;
mod memory;
mod models;
mod sim_kernels;
mod state;
mod streams;
mod tasks;
mod virtual_memory;

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

/// A real device's addresses are the driver's, and it has no simulator behind it.
impl Inspect for HwBackend {
    fn device_window(&self) -> Option<std::ops::Range<u64>> {
        None
    }

    fn explain_device_address(&self, _addr: u64) -> Option<String> {
        None
    }

    fn runs_sim_kernels(&self) -> bool {
        HwBackend::runs_sim_kernels(self)
    }

    #[cfg(feature = "sim")]
    fn simulator(&self) -> Option<&ascend_sim::Sim> {
        None
    }
}
