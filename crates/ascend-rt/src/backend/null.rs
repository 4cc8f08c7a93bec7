//! The `null` backend: every validated call succeeds and nothing runs. It hands out distinct
//! handles and device addresses (from a window of its own, so the front end's address checks
//! work as on the simulator), never moves data and never waits.
//!
//! It is for validation only: a program checked against CANN's rules without simulating it,
//! and the yardstick of what the front end alone costs (`benches/`).

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ascend_chips::ChipProfile;

use super::{
    BResult, BackendError, DeviceCall, Devices, EventId, Events, HostBuf, HostCallThread,
    HostCalls, HostFn, Inspect, Memory, ModelId, Models, NotifyId, StreamId, Streams, SyncCopy,
    Task, TaskFaultInfo, VirtualMemory,
};

/// Where the null backend's device addresses start (far from any host mapping).
const WINDOW_BASE: u64 = 0x2000_0000_0000;
/// Bytes of address space per device.
const WINDOW_PER_DEVICE: u64 = 1 << 40;

/// The do-nothing backend.
#[derive(Debug)]
pub struct NullBackend {
    chip: ChipProfile,
    /// The keys of exported device memory.
    ipc: crate::backend::IpcShares,
    /// The next handle number (streams, events, notifies, models share one counter).
    next_handle: AtomicU64,
    /// Per device, the next free address (bump allocation: freed space is not reused, so a
    /// stale address stays recognisably stale).
    next_addr: Vec<AtomicU64>,
    /// Per device, the next free virtual address (`aclrtReserveMemAddress`), in the upper
    /// half of its window; bump allocation as for memory.
    next_va: Vec<AtomicU64>,
}

impl NullBackend {
    /// A null backend for `chip`.
    pub fn new(chip: ChipProfile) -> NullBackend {
        let devices = u64::from(chip.limits.device_count.max(1));
        NullBackend {
            ipc: Default::default(),
            next_handle: AtomicU64::new(1),
            next_addr: (0..devices)
                .map(|d| AtomicU64::new(WINDOW_BASE + d * WINDOW_PER_DEVICE))
                .collect(),
            next_va: (0..devices)
                .map(|d| {
                    AtomicU64::new(WINDOW_BASE + d * WINDOW_PER_DEVICE + WINDOW_PER_DEVICE / 2)
                })
                .collect(),
            chip,
        }
    }

    fn handle(&self) -> u64 {
        self.next_handle.fetch_add(1, Ordering::Relaxed)
    }
}

impl Devices for NullBackend {
    fn name(&self) -> &'static str {
        "null"
    }

    fn chip(&self) -> &ChipProfile {
        &self.chip
    }

    fn soc_name(&self) -> BResult<String> {
        Ok(self.chip.soc_name.clone())
    }

    fn device_count(&self) -> BResult<u32> {
        Ok(self.chip.limits.device_count)
    }

    fn open_device(&self, _device: u32) -> BResult<StreamId> {
        Ok(StreamId(self.handle()))
    }

    fn close_device(&self, _device: u32, _force: bool) -> BResult<()> {
        Ok(())
    }

    fn device_call(&self, _call: DeviceCall) -> BResult<Option<i64>> {
        Ok(None)
    }

    fn synchronize_device(&self, _device: u32, _timeout_ms: Option<u64>) -> BResult<()> {
        Ok(())
    }

    fn create_context(&self, _device: u32) -> BResult<StreamId> {
        Ok(StreamId(self.handle()))
    }

    fn destroy_context(&self, _device: u32, _default_stream: StreamId) -> BResult<()> {
        Ok(())
    }
}

impl NullBackend {
    /// Nothing to destroy: the null backend keeps no events.
    fn destroy_event_now(&self, _event: EventId) -> BResult<()> {
        Ok(())
    }
}

impl Memory for NullBackend {
    fn malloc(&self, device: u32, bytes: u64, _policy: u32) -> BResult<u64> {
        let next = self
            .next_addr
            .get(device as usize)
            .ok_or_else(|| BackendError::OutOfMemory(format!("no device {device}")))?;
        let align = self.chip.memory.base_alignment.max(1);
        let size = bytes.max(1).next_multiple_of(align);
        let addr = next.fetch_add(size, Ordering::Relaxed);
        let end = WINDOW_BASE + (u64::from(device) + 1) * WINDOW_PER_DEVICE;
        if addr.saturating_add(size) > end {
            return Err(BackendError::OutOfMemory(format!(
                "the null backend's address space of device {device} is used up"
            )));
        }
        Ok(addr)
    }

    fn free(&self, device: u32, addr: u64) -> BResult<()> {
        self.ipc.release_memory(device, addr);
        Ok(())
    }

    fn malloc_host(&self, bytes: usize) -> BResult<HostBuf> {
        Ok(Arc::new(Mutex::new(vec![0; bytes])))
    }

    fn free_host(&self, _buf: &HostBuf) -> BResult<()> {
        Ok(())
    }

    fn memcpy(&self, _copy: SyncCopy<'_>) -> BResult<()> {
        Ok(())
    }

    fn memset(&self, _addr: u64, _value: u8, _count: u64) -> BResult<()> {
        Ok(())
    }

    /// A plain copy: only the simulator tells the runtime's copies from the program's.
    fn mirror_copy(&self, copy: SyncCopy<'_>) -> BResult<()> {
        self.memcpy(copy)
    }

    /// Nothing to check: only the simulator detects races.
    fn host_access(&self, _addr: u64, _len: u64, _write: bool) -> BResult<()> {
        Ok(())
    }

    fn cmo_set_desc(&self, _desc: u64, _src: u64, _size: u64) -> BResult<()> {
        Ok(())
    }

    crate::backend::ipc_shares::memory_ipc_by_shares!();
}

/// Physical memory is memory as from [`Memory::malloc`]; ranges are bumped out of the upper
/// half of each device's window; a mapping is only the front end's record.
impl VirtualMemory for NullBackend {
    fn malloc_physical(&self, device: u32, bytes: u64, _mem_attr: u32) -> BResult<u64> {
        self.malloc(device, bytes, 0)
    }

    fn free_physical(
        &self,
        device: u32,
        handle: u64,
        import: Option<u64>,
        pid: u32,
    ) -> BResult<()> {
        match import {
            Some(shareable) => self.ipc.close_shareable_import(shareable, pid).map(|_| ()),
            None => self.free(device, handle),
        }
    }

    fn reserve_address(&self, device: u32, bytes: u64, align: u64) -> BResult<u64> {
        let next = self
            .next_va
            .get(device as usize)
            .ok_or_else(|| BackendError::OutOfMemory(format!("no device {device}")))?;
        let align = align.max(1);
        let mut start = 0;
        next.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
            start = n.next_multiple_of(align);
            Some(start.saturating_add(bytes))
        })
        .ok();
        let end = WINDOW_BASE + (u64::from(device) + 1) * WINDOW_PER_DEVICE;
        if start.saturating_add(bytes) > end {
            return Err(BackendError::OutOfMemory(format!(
                "the null backend's virtual addresses of device {device} are used up"
            )));
        }
        Ok(start)
    }

    fn release_address(&self, _va: u64) -> BResult<()> {
        Ok(())
    }

    fn map_memory(
        &self,
        _device: u32,
        _va: u64,
        _bytes: u64,
        _offset: u64,
        _handle: u64,
    ) -> BResult<()> {
        Ok(())
    }

    fn unmap_memory(&self, _va: u64) -> BResult<()> {
        Ok(())
    }

    fn set_access(&self, _va: u64, _bytes: u64, _device: u32, _flags: u32) -> BResult<()> {
        Ok(())
    }

    crate::backend::virtual_memory::shareable_by_shares!();
}

impl Streams for NullBackend {
    fn create_stream(&self, _device: u32, _priority: u32, _flags: u32) -> BResult<StreamId> {
        Ok(StreamId(self.handle()))
    }

    fn destroy_stream(&self, _stream: StreamId, _force: bool) -> BResult<()> {
        Ok(())
    }

    fn launch(&self, _stream: StreamId, _task: Task) -> BResult<u64> {
        Ok(0)
    }

    fn take_task_faults(&self) -> Vec<TaskFaultInfo> {
        Vec::new()
    }

    fn set_stop_on_failure(&self, _stream: StreamId, _named: bool) -> BResult<()> {
        Ok(())
    }

    fn abort_stream(&self, _stream: StreamId) -> BResult<()> {
        Ok(())
    }

    fn stop_stream(&self, _stream: StreamId) -> BResult<()> {
        Ok(())
    }

    fn synchronize_stream(&self, _stream: StreamId, _timeout_ms: Option<u64>) -> BResult<()> {
        Ok(())
    }

    fn stream_idle(&self, _stream: StreamId) -> BResult<bool> {
        Ok(true)
    }
}

impl Events for NullBackend {
    fn create_event(&self, _device: u32, _flags: u32) -> BResult<EventId> {
        Ok(EventId(self.handle()))
    }

    fn destroy_event(&self, event: EventId) -> BResult<()> {
        self.ipc.destroy_event(event);
        Ok(())
    }

    fn event_complete(&self, _event: EventId) -> BResult<bool> {
        Ok(true)
    }

    fn synchronize_event(&self, _event: EventId, _timeout_ms: Option<u64>) -> BResult<()> {
        Ok(())
    }

    fn event_elapsed_ms(&self, _start: EventId, _end: EventId) -> BResult<f32> {
        Ok(0.0)
    }

    fn event_timestamp_us(&self, _event: EventId) -> BResult<Option<u64>> {
        Ok(Some(0))
    }

    fn create_notify(&self, _device: u32, _flag: u64) -> BResult<NotifyId> {
        Ok(NotifyId(self.handle()))
    }

    fn destroy_notify(&self, notify: NotifyId) -> BResult<()> {
        self.ipc.forget_notify(notify);
        Ok(())
    }

    crate::backend::ipc_shares::events_ipc_by_shares!();
}

impl Models for NullBackend {
    fn create_model(&self, _device: u32) -> BResult<ModelId> {
        Ok(ModelId(self.handle()))
    }

    fn bind_stream(&self, _model: ModelId, _stream: StreamId, _flag: u32) -> BResult<()> {
        Ok(())
    }

    fn unbind_stream(&self, _model: ModelId, _stream: StreamId) -> BResult<()> {
        Ok(())
    }

    fn end_task(&self, _model: ModelId, _stream: StreamId) -> BResult<()> {
        Ok(())
    }

    fn build_end(&self, _model: ModelId) -> BResult<()> {
        Ok(())
    }

    fn execute_model(&self, _model: ModelId, _timeout_ms: Option<u64>) -> BResult<()> {
        Ok(())
    }

    fn execute_model_async(&self, _model: ModelId, _stream: StreamId) -> BResult<()> {
        Ok(())
    }

    fn destroy_model(&self, _model: ModelId) -> BResult<()> {
        Ok(())
    }
}

impl HostCalls for NullBackend {
    /// Nothing runs on this backend's streams, but a host function is the program's own
    /// code: it runs at once, on the launching thread.
    fn launch_host_call(
        &self,
        _stream: StreamId,
        mut f: HostFn,
        _thread: HostCallThread,
        _blocking: bool,
    ) -> BResult<()> {
        f();
        Ok(())
    }

    fn process_host_calls(
        &self,
        _thread: HostCallThread,
        _timeout_ms: Option<u64>,
    ) -> BResult<bool> {
        Ok(false)
    }

    fn subscribe_reports(&self, _thread: u64, _stream: StreamId, _subscribe: bool) -> BResult<()> {
        Ok(())
    }
}

impl Inspect for NullBackend {
    fn device_window(&self) -> Option<Range<u64>> {
        let devices = self.next_addr.len() as u64;
        Some(WINDOW_BASE..WINDOW_BASE + devices * WINDOW_PER_DEVICE)
    }

    fn explain_device_address(&self, _addr: u64) -> Option<String> {
        None
    }

    fn runs_sim_kernels(&self) -> bool {
        false
    }

    #[cfg(feature = "sim")]
    fn simulator(&self) -> Option<&ascend_sim::Sim> {
        None
    }
}
