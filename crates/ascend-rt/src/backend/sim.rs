//! The `sim` backend: [`Backend`] over [`ascend_sim::Sim`]. The simulator speaks the same
//! vocabulary as the front end (`ascend-types`), so tasks and handles pass through unchanged;
//! what this file adds is the simulated cost of host calls and CANN's codes for what the
//! simulator reports.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use ascend_chips::ChipProfile;
use ascend_sim::{Sim, SimConfig, SimError};

use super::{Backend, EventId, HostBuf, ModelId, NotifyId, StreamId, SyncDst, SyncSrc, Task};
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};

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

/// Maps a simulator error to CANN's code; `timeout_code` is the code of an expired wait for
/// the call at hand.
fn map(err: SimError, timeout_code: ErrorCode) -> AclError {
    let kind = match &err {
        SimError::OutOfMemory { .. } => ErrorCode::RtMemoryAllocation,
        SimError::BadAddress { .. } => ErrorCode::RtParamInvalid,
        SimError::QueueFull(_) => ErrorCode::RtStreamTaskFull,
        SimError::Timeout(_) => timeout_code,
        SimError::Stalled(_) => timeout_code,
        SimError::TaskFault(_) => ErrorCode::RtInternalError,
        SimError::TaskTimeout(_) => ErrorCode::RtTaskTimeout,
        SimError::Unknown { .. } => ErrorCode::RtInvalidHandle,
        _ => ErrorCode::RtInternalError,
    };
    // What happened on the device is explained to aclGetRecentErrMsg, as CANN's error manager
    // reports inner errors; the watchdog's diagnosis of a stall among them.
    let explained = matches!(
        err,
        SimError::Stalled(_)
            | SimError::Timeout(_)
            | SimError::TaskFault(_)
            | SimError::TaskTimeout(_)
    );
    if explained {
        return AclError::new(kind, Some(MsgCode::EE9999), err.to_string());
    }
    fail::plain(kind, err.to_string())
}

fn m(err: SimError) -> AclError {
    map(err, ErrorCode::RtStreamSyncTimeout)
}

impl Backend for SimBackend {
    fn name(&self) -> &'static str {
        "sim"
    }

    fn chip(&self) -> &ChipProfile {
        &self.chip
    }

    fn soc_name(&self) -> AclResult<String> {
        Ok(self.chip.soc_name.clone())
    }

    fn device_count(&self) -> AclResult<u32> {
        Ok(self.chip.limits.device_count)
    }

    fn open_device(&self, device: u32) -> AclResult<StreamId> {
        let s = self.sim.create_stream(device, 0, false).map_err(m)?;
        self.default_streams
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(device, s);
        Ok(s)
    }

    fn close_device(&self, device: u32, force: bool) -> AclResult<()> {
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

    fn malloc(&self, device: u32, bytes: u64, _policy: u32) -> AclResult<u64> {
        self.sim.malloc(device, bytes).map_err(m)
    }

    fn free(&self, device: u32, addr: u64) -> AclResult<()> {
        self.sim.free(device, addr).map_err(m)
    }

    fn malloc_host(&self, bytes: usize) -> AclResult<HostBuf> {
        let mut v = Vec::new();
        v.try_reserve_exact(bytes).map_err(|e| {
            fail::plain(
                ErrorCode::RtMemoryAllocation,
                format!("aclrtMallocHost: cannot allocate {bytes} bytes of host memory: {e}"),
            )
        })?;
        v.resize(bytes, 0);
        Ok(Arc::new(Mutex::new(v)))
    }

    fn free_host(&self, _buf: &HostBuf) -> AclResult<()> {
        // The buffer goes with its last clone: a copy queued on a stream may still hold one.
        Ok(())
    }

    fn memcpy(&self, dst: SyncDst<'_>, src: SyncSrc<'_>, count: u64) -> AclResult<()> {
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

    fn memset(&self, addr: u64, value: u8, count: u64) -> AclResult<()> {
        self.sim.fill(addr, value, count).map_err(m)
    }

    fn create_stream(&self, device: u32, priority: u32, flags: u32) -> AclResult<StreamId> {
        let persistent = flags & crate::raw_types::stream_flag::PERSISTENT != 0;
        self.sim
            .create_stream(device, priority, persistent)
            .map_err(m)
    }

    fn destroy_stream(&self, stream: StreamId, force: bool) -> AclResult<()> {
        self.sim.destroy_stream(stream, force).map_err(m)
    }

    fn launch(&self, stream: StreamId, task: Task) -> AclResult<()> {
        // The host pays the launch cost before the task reaches the queue.
        self.sim.charge_host(self.chip.timing.host_launch_ns);
        self.sim.submit(stream, task).map(|_| ()).map_err(m)
    }

    fn synchronize_stream(&self, stream: StreamId, timeout_ms: Option<u64>) -> AclResult<()> {
        self.sim.synchronize_stream(stream, timeout_ms).map_err(m)
    }

    fn stream_idle(&self, stream: StreamId) -> AclResult<bool> {
        self.sim.stream_idle(stream).map_err(m)
    }

    fn synchronize_device(&self, device: u32, timeout_ms: Option<u64>) -> AclResult<()> {
        self.sim.synchronize_device(device, timeout_ms).map_err(m)
    }

    fn create_event(&self, device: u32, _flags: u32) -> AclResult<EventId> {
        self.sim.create_event(device).map_err(m)
    }

    fn destroy_event(&self, event: EventId) -> AclResult<()> {
        self.sim.destroy_event(event).map_err(m)
    }

    fn event_complete(&self, event: EventId) -> AclResult<bool> {
        self.sim.event_complete(event).map_err(m)
    }

    fn synchronize_event(&self, event: EventId, timeout_ms: Option<u64>) -> AclResult<()> {
        self.sim
            .synchronize_event(event, timeout_ms)
            .map_err(|e| map(e, ErrorCode::RtEventSyncTimeout))
    }

    fn event_elapsed_ms(&self, start: EventId, end: EventId) -> AclResult<f32> {
        let t0 = self.sim.event_time_ns(start).map_err(m)?;
        let t1 = self.sim.event_time_ns(end).map_err(m)?;
        match (t0, t1) {
            (Some(a), Some(b)) => {
                // Elapsed time is measured in ticks of the chip's timestamp counter.
                let per_ms = self.chip.timing.timestamp_ticks_per_ms.max(1);
                let tick = |ns: u64| (ns as u128 * per_ms as u128 / 1_000_000) as i128;
                Ok(((tick(b) - tick(a)) as f64 / per_ms as f64) as f32)
            }
            _ => Err(fail::plain(
                ErrorCode::RtEventTimestampInvalid,
                "aclrtEventElapsedTime: an event's latest record has not executed, so its timestamp is not valid yet",
            )),
        }
    }

    fn event_timestamp_us(&self, event: EventId) -> AclResult<Option<u64>> {
        let Some(ns) = self.sim.event_time_ns(event).map_err(m)? else {
            return Ok(None);
        };
        // The device divides its counter by the ticks per µs.
        let per_ms = self.chip.timing.timestamp_ticks_per_ms.max(1);
        let ticks = ns as u128 * per_ms as u128 / 1_000_000;
        let per_us = (per_ms / 1000).max(1) as u128;
        Ok(Some((ticks / per_us) as u64))
    }

    fn create_model(&self, device: u32) -> AclResult<ModelId> {
        self.sim.create_model(device).map_err(m)
    }

    fn bind_stream(&self, model: ModelId, stream: StreamId, _flag: u32) -> AclResult<()> {
        self.sim.bind_stream(model, stream).map_err(m)
    }

    fn unbind_stream(&self, model: ModelId, stream: StreamId) -> AclResult<()> {
        self.sim.unbind_stream(model, stream).map_err(m)
    }

    fn end_task(&self, _model: ModelId, _stream: StreamId) -> AclResult<()> {
        // Recording ends with the next task submitted elsewhere; nothing to mark.
        Ok(())
    }

    fn build_end(&self, _model: ModelId) -> AclResult<()> {
        // A model runs whatever its streams recorded; the build needs no finishing step.
        Ok(())
    }

    fn execute_model(&self, model: ModelId, timeout_ms: Option<u64>) -> AclResult<()> {
        self.sim
            .execute_model(model, timeout_ms)
            .map_err(|e| map(e, ErrorCode::RtModelExecute))
    }

    fn execute_model_async(&self, model: ModelId, stream: StreamId) -> AclResult<()> {
        self.sim.execute_model_async(model, stream).map_err(m)
    }

    fn destroy_model(&self, model: ModelId) -> AclResult<()> {
        self.sim.destroy_model(model).map_err(m)
    }

    fn cmo_set_desc(&self, desc: u64, src: u64, size: u64) -> AclResult<()> {
        let bytes = crate::cmo_desc::encode(&self.chip, src, size);
        self.sim.write(desc, &bytes).map_err(m)
    }

    fn create_context(&self, device: u32) -> AclResult<StreamId> {
        // An explicit context's default stream is a plain stream of the device.
        self.create_stream(device, 0, 0)
    }

    fn destroy_context(&self, _device: u32, default_stream: StreamId) -> AclResult<()> {
        self.destroy_stream(default_stream, false)
    }

    fn create_notify(&self, device: u32, _flag: u64) -> AclResult<NotifyId> {
        self.sim.create_notify(device).map_err(m)
    }

    fn destroy_notify(&self, notify: NotifyId) -> AclResult<()> {
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
