//! The `sim` backend: [`Backend`] over [`ascend_sim::Sim`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ascend_chips::ChipProfile;
use ascend_sim::{
    CmoOp as SimCmo, EventId, Loc, ModelId, NotifyId, Sim, SimConfig, SimError, StreamId, TaskKind,
    WaitMode,
};

use super::{AsyncLoc, BHandle, Backend, CmoOp, HostBuf, SyncDst, SyncSrc, Task, WaitCompare};
use crate::error::{fail, AclError, AclResult, ErrorCode, MsgCode};

/// The simulator backend.
#[derive(Debug)]
pub struct SimBackend {
    sim: Arc<Sim>,
    chip: ChipProfile,
    /// The default stream of each open device, released with the device.
    default_streams: Mutex<HashMap<u32, BHandle>>,
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

/// Maps a simulator error to CANN's code.
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

fn loc(l: AsyncLoc) -> Loc {
    match l {
        AsyncLoc::Device(a) => Loc::Device(a),
        AsyncLoc::Host(buf, offset) => Loc::Host { buf, offset },
    }
}

/// The runtime's 32-bit CMO length field: sizes of 4 GiB and more wrap (cann-api-facts §5.1).
fn narrow(len: u64) -> u64 {
    len as u32 as u64
}

fn op(o: CmoOp) -> SimCmo {
    match o {
        CmoOp::Prefetch => SimCmo::Prefetch,
        CmoOp::Writeback => SimCmo::Writeback,
        CmoOp::Invalid => SimCmo::Invalid,
        CmoOp::Flush => SimCmo::Flush,
    }
}

fn sid(h: BHandle) -> StreamId {
    StreamId(h as u32)
}
fn eid(h: BHandle) -> EventId {
    EventId(h as u32)
}
fn nid(h: BHandle) -> NotifyId {
    NotifyId(h as u32)
}
fn mid(h: BHandle) -> ModelId {
    ModelId(h as u32)
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

    fn open_device(&self, device: u32) -> AclResult<BHandle> {
        let s = self.sim.create_stream(device, 0, false).map_err(m)?;
        self.default_streams
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(device, s.0 as BHandle);
        Ok(s.0 as BHandle)
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
            Some(s) => self.sim.destroy_stream(sid(s), true).map_err(m),
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

    fn memcpy(&self, dst: SyncDst<'_>, src: SyncSrc<'_>, count: u64) -> AclResult<()> {
        let n = count as usize;
        match (dst, src) {
            (SyncDst::Host(d), SyncSrc::Host(s)) => {
                d[..n].copy_from_slice(&s[..n]);
                Ok(())
            }
            (SyncDst::Device(d), SyncSrc::Host(s)) => self.sim.write(d, &s[..n]).map_err(m),
            (SyncDst::Host(d), SyncSrc::Device(s)) => self.sim.read(s, &mut d[..n]).map_err(m),
            (SyncDst::Device(d), SyncSrc::Device(s)) => self.sim.copy(d, s, count).map_err(m),
        }
    }

    fn memset(&self, addr: u64, value: u8, count: u64) -> AclResult<()> {
        self.sim.fill(addr, value, count).map_err(m)
    }

    fn create_stream(&self, device: u32, priority: u32, flags: u32) -> AclResult<BHandle> {
        let persistent = flags & crate::raw_types::stream_flag::PERSISTENT != 0;
        let s = self
            .sim
            .create_stream(device, priority, persistent)
            .map_err(m)?;
        Ok(s.0 as BHandle)
    }

    fn destroy_stream(&self, stream: BHandle, force: bool) -> AclResult<()> {
        self.sim.destroy_stream(sid(stream), force).map_err(m)
    }

    fn launch(&self, stream: BHandle, task: Task) -> AclResult<()> {
        let kind = match task {
            Task::ValueWrite { addr, value } => TaskKind::ValueWrite { addr, value },
            Task::ValueWait {
                addr,
                value,
                compare,
            } => TaskKind::ValueWait {
                addr,
                value,
                mode: match compare {
                    WaitCompare::Geq => WaitMode::Geq,
                    WaitCompare::Eq => WaitMode::Eq,
                    WaitCompare::And => WaitMode::And,
                    WaitCompare::Nor => WaitMode::Nor,
                },
            },
            Task::Memcpy { dst, src, len } => TaskKind::Memcpy {
                dst: loc(dst),
                src: loc(src),
                len,
            },
            Task::Memset { addr, value, len } => TaskKind::Memset { addr, value, len },
            Task::Cmo { op: o, addr, len } => TaskKind::Cmo {
                op: op(o),
                addr,
                len: narrow(len),
            },
            Task::CmoWithBarrier {
                op: o,
                addr,
                len,
                barrier_id,
            } => TaskKind::CmoWithBarrier {
                op: op(o),
                addr,
                len: narrow(len),
                barrier_id,
            },
            Task::CmoWaitBarrier { barrier_ids } => TaskKind::CmoWaitBarrier { barrier_ids },
            Task::CmoWithDesc { desc, op: o } => TaskKind::CmoWithDesc { desc, op: op(o) },
            Task::EventRecord(e) => TaskKind::EventRecord(eid(e)),
            Task::EventWait(e) => TaskKind::EventWait(eid(e)),
            Task::EventReset(e) => TaskKind::EventReset(eid(e)),
            Task::NotifyRecord(n) => TaskKind::NotifyRecord(nid(n)),
            Task::NotifyWait { notify, timeout_s } => TaskKind::NotifyWait {
                notify: nid(notify),
                timeout_ms: timeout_s.map(|s| s as u64 * 1000),
            },
        };
        // The host pays the launch cost before the task reaches the queue.
        self.sim.charge_host(self.chip.timing.host_launch_ns);
        self.sim.submit(sid(stream), kind).map(|_| ()).map_err(m)
    }

    fn synchronize_stream(&self, stream: BHandle, timeout_ms: Option<u64>) -> AclResult<()> {
        self.sim
            .synchronize_stream(sid(stream), timeout_ms)
            .map_err(m)
    }

    fn stream_idle(&self, stream: BHandle) -> AclResult<bool> {
        self.sim.stream_idle(sid(stream)).map_err(m)
    }

    fn synchronize_device(&self, device: u32, timeout_ms: Option<u64>) -> AclResult<()> {
        self.sim.synchronize_device(device, timeout_ms).map_err(m)
    }

    fn create_event(&self, device: u32, _flags: u32) -> AclResult<BHandle> {
        Ok(self.sim.create_event(device).map_err(m)?.0 as BHandle)
    }

    fn destroy_event(&self, event: BHandle) -> AclResult<()> {
        self.sim.destroy_event(eid(event)).map_err(m)
    }

    fn event_complete(&self, event: BHandle) -> AclResult<bool> {
        self.sim.event_complete(eid(event)).map_err(m)
    }

    fn synchronize_event(&self, event: BHandle, timeout_ms: Option<u64>) -> AclResult<()> {
        self.sim
            .synchronize_event(eid(event), timeout_ms)
            .map_err(|e| map(e, ErrorCode::RtEventSyncTimeout))
    }

    fn event_elapsed_ms(&self, start: BHandle, end: BHandle) -> AclResult<f32> {
        let t0 = self.sim.event_time_ns(eid(start)).map_err(m)?;
        let t1 = self.sim.event_time_ns(eid(end)).map_err(m)?;
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

    fn create_model(&self, device: u32) -> AclResult<BHandle> {
        Ok(self.sim.create_model(device).map_err(m)?.0 as BHandle)
    }

    fn bind_stream(&self, model: BHandle, stream: BHandle, _flag: u32) -> AclResult<()> {
        self.sim.bind_stream(mid(model), sid(stream)).map_err(m)
    }

    fn unbind_stream(&self, model: BHandle, stream: BHandle) -> AclResult<()> {
        self.sim.unbind_stream(mid(model), sid(stream)).map_err(m)
    }

    fn end_task(&self, _model: BHandle, _stream: BHandle) -> AclResult<()> {
        Ok(())
    }

    fn build_end(&self, _model: BHandle) -> AclResult<()> {
        Ok(())
    }

    fn execute_model(&self, model: BHandle, timeout_ms: Option<u64>) -> AclResult<()> {
        self.sim
            .execute_model(mid(model), timeout_ms)
            .map_err(|e| map(e, ErrorCode::RtModelExecute))
    }

    fn execute_model_async(&self, model: BHandle, stream: BHandle) -> AclResult<()> {
        self.sim
            .execute_model_async(mid(model), sid(stream))
            .map_err(m)
    }

    fn destroy_model(&self, model: BHandle) -> AclResult<()> {
        self.sim.destroy_model(mid(model)).map_err(m)
    }

    fn cmo_set_desc(&self, desc: u64, src: u64, size: u64) -> AclResult<()> {
        let bytes = crate::cmo_desc::encode(&self.chip, src, size);
        self.sim.write(desc, &bytes).map_err(m)
    }

    fn simulator(&self) -> Option<&Sim> {
        Some(&self.sim)
    }

    fn device_window(&self) -> Option<std::ops::Range<u64>> {
        Some(self.sim.device_window())
    }

    fn explain_device_address(&self, addr: u64) -> Option<String> {
        self.sim.check_range(addr, 1).err().map(|e| e.to_string())
    }

    fn report_json(&self) -> Option<String> {
        Some(self.sim.report_json())
    }

    fn trace_json(&self) -> Option<String> {
        Some(self.sim.trace_json())
    }

    fn create_notify(&self, device: u32, _flag: u64) -> AclResult<BHandle> {
        Ok(self.sim.create_notify(device).map_err(m)?.0 as BHandle)
    }

    fn destroy_notify(&self, notify: BHandle) -> AclResult<()> {
        self.sim.destroy_notify(nid(notify)).map_err(m)
    }

    fn event_timestamp_us(&self, event: BHandle) -> AclResult<Option<u64>> {
        let Some(ns) = self.sim.event_time_ns(eid(event)).map_err(m)? else {
            return Ok(None);
        };
        // CANN divides the counter by ticks per µs (`Event::GetTimeStamp`).
        let per_ms = self.chip.timing.timestamp_ticks_per_ms.max(1);
        let ticks = ns as u128 * per_ms as u128 / 1_000_000;
        let per_us = (per_ms / 1000).max(1) as u128;
        Ok(Some((ticks / per_us) as u64))
    }
}
