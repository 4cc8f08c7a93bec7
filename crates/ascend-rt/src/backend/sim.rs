//! The `sim` backend: [`Backend`] over [`ascend_sim::Sim`]. The simulator speaks the same
//! vocabulary as the front end (`ascend-types`), so tasks and handles pass through unchanged;
//! what this file adds is the simulated cost of host calls and CANN's codes for what the
//! simulator reports.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use ascend_chips::ChipProfile;
use ascend_sim::{Sim, SimConfig, SimError};

use super::{
    BResult, Backend, BackendError, EventId, HostBuf, ModelId, NotifyId, StreamId, SyncDst,
    SyncSrc, Task,
};

/// The simulator backend.
#[derive(Debug)]
pub struct SimBackend {
    sim: Arc<Sim>,
    chip: ChipProfile,
    /// The default stream of each open device, released with the device.
    default_streams: Mutex<HashMap<u32, StreamId>>,
}

impl SimBackend {
    /// A simulator of `chip` with `config`.
    pub fn new(chip: ChipProfile, config: SimConfig) -> SimBackend {
        SimBackend {
            sim: Arc::new(Sim::new(chip.clone(), config)),
            chip,
            default_streams: Mutex::new(HashMap::new()),
        }
    }
}

/// What a simulator error says happened.
fn m(err: SimError) -> BackendError {
    let text = err.to_string();
    match err {
        SimError::OutOfMemory { .. } => BackendError::OutOfMemory(text),
        SimError::BadAddress { .. } => BackendError::BadAddress(text),
        SimError::QueueFull(_) => BackendError::QueueFull(text),
        SimError::Timeout(_) => BackendError::Timeout(text),
        SimError::Stalled(_) => BackendError::Stalled(text),
        SimError::TaskFault(_) => BackendError::TaskFault(text),
        SimError::TaskTimeout(_) => BackendError::TaskTimeout(text),
        SimError::Unknown { .. } => BackendError::UnknownHandle(text),
        _ => BackendError::TaskFault(text),
    }
}

impl Backend for SimBackend {
    fn name(&self) -> &'static str {
        "sim"
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

    fn open_device(&self, device: u32) -> BResult<StreamId> {
        let s = self.sim.create_stream(device, 0, false).map_err(m)?;
        self.default_streams
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(device, s);
        Ok(s)
    }

    fn close_device(&self, device: u32, force: bool) -> BResult<()> {
        if !force {
            self.sim.synchronize_device(device, None).map_err(m)?;
        }
        let default = self
            .default_streams
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&device);
        match default {
            Some(s) => self.sim.destroy_stream(s, true).map_err(m),
            None => Ok(()),
        }
    }

    fn malloc(&self, device: u32, bytes: u64, _policy: u32) -> BResult<u64> {
        self.sim.malloc(device, bytes).map_err(m)
    }

    fn free(&self, device: u32, addr: u64) -> BResult<()> {
        self.sim.free(device, addr).map_err(m)
    }

    fn malloc_host(&self, bytes: usize) -> BResult<HostBuf> {
        let mut v = Vec::new();
        v.try_reserve_exact(bytes).map_err(|e| {
            BackendError::OutOfMemory(format!(
                "aclrtMallocHost: cannot allocate {bytes} bytes of host memory: {e}"
            ))
        })?;
        v.resize(bytes, 0);
        Ok(Arc::new(Mutex::new(v)))
    }

    fn free_host(&self, _buf: &HostBuf) -> BResult<()> {
        // The buffer goes with its last clone: a copy queued on a stream may still hold one.
        Ok(())
    }

    fn memcpy(&self, dst: SyncDst<'_>, src: SyncSrc<'_>, count: u64) -> BResult<()> {
        match (dst, src) {
            (SyncDst::Host(d), SyncSrc::Host(s)) => {
                d.copy_from_slice(s);
                Ok(())
            }
            (SyncDst::Device(d), SyncSrc::Host(s)) => self.sim.write(d, s).map_err(m),
            (SyncDst::Host(d), SyncSrc::Device(s)) => self.sim.read(s, d).map_err(m),
            (SyncDst::Device(d), SyncSrc::Device(s)) => self.sim.copy(d, s, count).map_err(m),
        }
    }

    fn memset(&self, addr: u64, value: u8, count: u64) -> BResult<()> {
        self.sim.fill(addr, value, count).map_err(m)
    }

    fn create_stream(&self, device: u32, priority: u32, flags: u32) -> BResult<StreamId> {
        let persistent = flags & crate::raw_types::stream_flag::PERSISTENT != 0;
        self.sim
            .create_stream(device, priority, persistent)
            .map_err(m)
    }

    fn destroy_stream(&self, stream: StreamId, force: bool) -> BResult<()> {
        self.sim.destroy_stream(stream, force).map_err(m)
    }

    fn launch(&self, stream: StreamId, task: Task) -> BResult<()> {
        // The host pays the launch cost before the task reaches the queue.
        self.sim
            .submit_after(stream, task, self.chip.timing.host_launch_ns)
            .map(|_| ())
            .map_err(m)
    }

    fn synchronize_stream(&self, stream: StreamId, timeout_ms: Option<u64>) -> BResult<()> {
        self.sim.synchronize_stream(stream, timeout_ms).map_err(m)
    }

    fn stream_idle(&self, stream: StreamId) -> BResult<bool> {
        self.sim.stream_idle(stream).map_err(m)
    }

    fn synchronize_device(&self, device: u32, timeout_ms: Option<u64>) -> BResult<()> {
        self.sim.synchronize_device(device, timeout_ms).map_err(m)
    }

    fn create_event(&self, device: u32, _flags: u32) -> BResult<EventId> {
        self.sim.create_event(device).map_err(m)
    }

    fn destroy_event(&self, event: EventId) -> BResult<()> {
        self.sim.destroy_event(event).map_err(m)
    }

    fn event_complete(&self, event: EventId) -> BResult<bool> {
        self.sim.event_complete(event).map_err(m)
    }

    fn synchronize_event(&self, event: EventId, timeout_ms: Option<u64>) -> BResult<()> {
        self.sim.synchronize_event(event, timeout_ms).map_err(m)
    }

    fn event_elapsed_ms(&self, start: EventId, end: EventId) -> BResult<f32> {
        let t0 = self.sim.event_time_ns(start).map_err(m)?;
        let t1 = self.sim.event_time_ns(end).map_err(m)?;
        match (t0, t1) {
            (Some(a), Some(b)) => {
                // Elapsed time is measured in ticks of the chip's timestamp counter.
                let per_ms = self.chip.timing.timestamp_ticks_per_ms.max(1);
                let tick = |ns: u64| (ns as u128 * per_ms as u128 / 1_000_000) as i128;
                Ok(((tick(b) - tick(a)) as f64 / per_ms as f64) as f32)
            }
            _ => Err(BackendError::TimestampInvalid(
                "aclrtEventElapsedTime: an event's latest record has not executed, so its \
                 timestamp is not valid yet"
                    .to_string(),
            )),
        }
    }

    fn event_timestamp_us(&self, event: EventId) -> BResult<Option<u64>> {
        let Some(ns) = self.sim.event_time_ns(event).map_err(m)? else {
            return Ok(None);
        };
        // The device divides its counter by the ticks per µs.
        let per_ms = self.chip.timing.timestamp_ticks_per_ms.max(1);
        let ticks = ns as u128 * per_ms as u128 / 1_000_000;
        let per_us = (per_ms / 1000).max(1) as u128;
        Ok(Some((ticks / per_us) as u64))
    }

    fn create_model(&self, device: u32) -> BResult<ModelId> {
        self.sim.create_model(device).map_err(m)
    }

    fn bind_stream(&self, model: ModelId, stream: StreamId, _flag: u32) -> BResult<()> {
        self.sim.bind_stream(model, stream).map_err(m)
    }

    fn unbind_stream(&self, model: ModelId, stream: StreamId) -> BResult<()> {
        self.sim.unbind_stream(model, stream).map_err(m)
    }

    fn end_task(&self, _model: ModelId, _stream: StreamId) -> BResult<()> {
        // Recording ends with the next task submitted elsewhere; nothing to mark.
        Ok(())
    }

    fn build_end(&self, _model: ModelId) -> BResult<()> {
        // A model runs whatever its streams recorded; the build needs no finishing step.
        Ok(())
    }

    fn execute_model(&self, model: ModelId, timeout_ms: Option<u64>) -> BResult<()> {
        self.sim.execute_model(model, timeout_ms).map_err(m)
    }

    fn execute_model_async(&self, model: ModelId, stream: StreamId) -> BResult<()> {
        self.sim.execute_model_async(model, stream).map_err(m)
    }

    fn destroy_model(&self, model: ModelId) -> BResult<()> {
        self.sim.destroy_model(model).map_err(m)
    }

    fn cmo_set_desc(&self, desc: u64, src: u64, size: u64) -> BResult<()> {
        let bytes = crate::cmo_desc::encode(&self.chip, src, size);
        self.sim.write(desc, &bytes).map_err(m)
    }

    fn create_context(&self, device: u32) -> BResult<StreamId> {
        // An explicit context's default stream is a plain stream of the device.
        self.create_stream(device, 0, 0)
    }

    fn destroy_context(&self, _device: u32, default_stream: StreamId) -> BResult<()> {
        self.destroy_stream(default_stream, false)
    }

    fn create_notify(&self, device: u32, _flag: u64) -> BResult<NotifyId> {
        self.sim.create_notify(device).map_err(m)
    }

    fn destroy_notify(&self, notify: NotifyId) -> BResult<()> {
        self.sim.destroy_notify(notify).map_err(m)
    }

    fn device_window(&self) -> Option<Range<u64>> {
        Some(self.sim.device_window())
    }

    fn explain_device_address(&self, addr: u64) -> Option<String> {
        self.sim.check_range(addr, 1).err().map(|e| e.to_string())
    }

    fn simulator(&self) -> Option<&Sim> {
        Some(&self.sim)
    }

    fn report_json(&self) -> Option<String> {
        Some(self.sim.report_json())
    }

    fn trace_json(&self) -> Option<String> {
        Some(self.sim.trace_json())
    }
}
