//! The backend seam: what a backend must do once the front end has decided a call is legal,
//! split by role as wgpu-hal splits its device API.
//!
//! | role | file | what |
//! |---|---|---|
//! | [`Devices`] | `devices.rs` | device count and chip, open/close, explicit contexts, device synchronize, the queries a real runtime answers |
//! | [`Memory`] | `memory.rs` | device and page-locked memory, synchronous copy and fill, CMO descriptors |
//! | [`VirtualMemory`] | `virtual_memory.rs` | physical memory, reserved virtual ranges, mappings, shareable handles |
//! | [`Streams`] | `streams.rs` | streams, the tasks launched on them, abort/stop/stop-on-failure, task faults |
//! | [`Events`] | `events.rs` | events and notifies |
//! | [`Models`] | `models.rs` | model running instances: binding, build, runs |
//! | [`HostCalls`] | `host_calls.rs` | host functions and callbacks, the threads that process them |
//! | [`Inspect`] | `inspect.rs` | the address window, why an address is unusable, the simulator |
//!
//! [`Backend`] is every role at once; the front end holds an `Arc<dyn Backend>`.
//!
//! Backends receive only validated calls: handles are the backend's own typed ids
//! ([`StreamId`], [`EventId`], [`NotifyId`], [`ModelId`]), addresses were checked against the
//! front end's allocation table, enum values are in range, slices carry their own lengths.
//! Each role states what holds for all its methods, and each method lists what else the front
//! end has made true before the call. A backend fails only for what it alone can know (out of
//! memory, a timeout, a task fault, a stalled device, a library's own code), and reports what
//! happened as a [`BackendError`]; the front end picks CANN's code for it. The traits are
//! private to this crate, so nothing outside it can call a backend past the validation. One
//! method has a default, [`HostCalls::caller_thread_id`] (a model's own numbering of threads,
//! which only the real runtime replaces); every backend states what it does for every other
//! call.

use std::fmt::Debug;

pub use ascend_types::{
    CmoType, EventId, HostBuf, Loc, ModelId, NotifyId, StreamId, Task, WaitMode,
};

pub use devices::{DeviceCall, Devices};
pub use error::{BResult, BackendError};
pub use events::Events;
pub use host_calls::{HostCallThread, HostCalls, HostFn};
pub use inspect::Inspect;
pub use ipc_shares::{IpcImport, IpcShares};
pub use memory::{Memory, SyncCopy};
pub use models::Models;
pub use streams::{Streams, TaskFaultInfo};
pub use virtual_memory::{PhysicalImport, VirtualMemory};

mod devices;
mod error;
mod events;
mod host_calls;
mod inspect;
pub(crate) mod ipc_shares;
mod memory;
mod models;
mod streams;
pub(crate) mod virtual_memory;

#[cfg(feature = "sim")]
pub(crate) mod host_call_table;
#[cfg(feature = "hw")]
pub mod hw;
pub mod null;
#[cfg(feature = "sim")]
pub mod shared;
#[cfg(feature = "sim")]
pub mod sim;

/// A whole backend: every role, shared by the host threads that make ACL calls. Each method is
/// called on the host thread that made the call, after validation.
pub trait Backend:
    Devices
    + Memory
    + VirtualMemory
    + Streams
    + Events
    + Models
    + HostCalls
    + Inspect
    + Send
    + Sync
    + Debug
{
}

impl<T> Backend for T where
    T: Devices
        + Memory
        + VirtualMemory
        + Streams
        + Events
        + Models
        + HostCalls
        + Inspect
        + Send
        + Sync
        + Debug
{
}
