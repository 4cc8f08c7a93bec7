//! The backend's bookkeeping: what it knows of each stream, event, model, notify, context
//! and device allocation, all in one [`HwState`] behind the backend's mutex.

use std::collections::{BTreeMap, HashMap};

use super::host_staging::{Pending, Pinned};
use super::RawHandle;

/// A stream the backend created, or a context's default stream.
#[derive(Debug, Clone, Copy)]
pub(super) struct StreamInfo {
    /// The device it belongs to.
    pub(super) device: u32,
    /// The library context it belongs to.
    pub(super) ctx: usize,
    /// Created with `ACL_STREAM_PERSISTENT` (its tasks run at each model execution).
    pub(super) persistent: bool,
}

/// An event the backend created.
#[derive(Debug, Clone, Copy)]
pub(super) struct EventInfo {
    /// The library context it was created in.
    pub(super) ctx: usize,
    /// The stream and sequence number of its latest record.
    pub(super) last_record: Option<(RawHandle, u64)>,
}

/// A model the backend created.
#[derive(Debug, Clone)]
pub(super) struct ModelInfo {
    /// The library context it was created in.
    pub(super) ctx: usize,
    /// The streams bound to it.
    pub(super) streams: Vec<RawHandle>,
}

/// A notify the backend created.
#[derive(Debug, Clone, Copy)]
pub(super) struct NotifyInfo {
    /// The library context it was created in.
    pub(super) ctx: usize,
}

/// An explicit context (`aclrtCreateContext`).
#[derive(Debug, Clone, Copy)]
pub(super) struct ExplicitCtx {
    /// The device it was created on.
    pub(super) device: u32,
    /// Creation order (newest wins when one must be picked for a device).
    pub(super) serial: u64,
}

/// Everything the backend tracks, behind one mutex.
#[derive(Debug, Default)]
pub(super) struct HwState {
    /// Each open device's default context.
    pub(super) contexts: HashMap<u32, usize>,
    /// Live explicit contexts, by the library's context value.
    pub(super) explicit: HashMap<usize, ExplicitCtx>,
    /// Live streams (default streams included), by backend handle.
    pub(super) streams: HashMap<RawHandle, StreamInfo>,
    /// Live events, by backend handle.
    pub(super) events: HashMap<RawHandle, EventInfo>,
    /// Live models, by backend handle.
    pub(super) models: HashMap<RawHandle, ModelInfo>,
    /// Live notifies, by backend handle.
    pub(super) notifies: HashMap<RawHandle, NotifyInfo>,
    /// Device allocations: base → (length, device).
    pub(super) allocs: BTreeMap<u64, (u64, u32)>,
    /// Pinned memory of the host buffers, by the buffer's `Arc` address.
    pub(super) pinned: HashMap<usize, Pinned>,
    /// Host-side work waiting for the completion of device work.
    pub(super) pending: Vec<Pending>,
    /// The host functions launched on persistent streams, kept until the stream goes.
    pub(super) kept_host_fns: HashMap<RawHandle, Vec<super::callbacks::KeptHostFn>>,
    /// The counter behind pending entries' and event records' sequence numbers and explicit
    /// contexts' serials.
    pub(super) seq: u64,
}

impl HwState {
    /// The device owning `addr`, if it lies in a device allocation the backend made.
    pub(super) fn device_of_addr(&self, addr: u64) -> Option<u32> {
        let (&base, &(len, device)) = self.allocs.range(..=addr).next_back()?;
        (addr - base < len).then_some(device)
    }
}
