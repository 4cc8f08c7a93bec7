//! The `sim` backend: [`Backend`] over [`ascend_sim::Sim`]. The simulator speaks the same
//! vocabulary as the front end (`ascend-types`), so tasks and handles pass through unchanged;
//! what this file adds is the simulated cost of host calls and CANN's codes for what the
//! simulator reports.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ascend_chips::ChipProfile;
use ascend_sim::{DueHostCall, HostCall, Sim, SimConfig, SimError, SimErrorClass};

use super::host_call_table::{HostCallTable, HostThreadSlot, UndrivenHostCall, SERVICE_CALLS_FROM};
use super::{
    BResult, BackendError, DeviceCall, Devices, EventId, Events, HostBuf, HostCallThread,
    HostCalls, HostFn, Inspect, Memory, ModelId, Models, NotifyId, StreamId, Streams, SyncCopy,
    Task, TaskFaultInfo, VirtualMemory,
};

/// The simulator backend.
#[derive(Debug)]
pub struct SimBackend {
    sim: Arc<Sim>,
    /// The keys of exported device memory (the driver's part of IPC memory).
    ipc: crate::backend::IpcShares,
    chip: ChipProfile,
    /// The default stream of each open device, released with the device.
    default_streams: Mutex<HashMap<u32, StreamId>>,
    /// The host calls launched and not yet run, by call number.
    host_calls: Arc<HostCallTable>,
    /// The runtime's host-function thread, once a host function was launched.
    host_thread: HostThreadSlot,
    /// The channel number the simulator tags each host thread's calls with: 0 for the
    /// runtime's own thread, then one per thread id and kind as first named, so that no two
    /// threads share one, whatever their ids.
    channels: Mutex<HashMap<HostCallThread, u64>>,
    /// The pacer, in the paced mode (`SimConfig::pacing`); it stops with the backend.
    _pacer: Option<ascend_sim::pacing::Pacer>,
}

/// Runs the due host call (a panic in it is caught and logged: it must not take the host
/// thread down) and tells the simulator it returned. A model run's copy leaves the function
/// in the table for the model's next run.
fn run_host_call(sim: &Sim, table: &HostCallTable, due: &DueHostCall) {
    table.run(due.call, due.repeats);
    sim.finish_host_call(due.task);
}

impl SimBackend {
    /// A simulator of `chip` with `config`.
    pub fn new(chip: ChipProfile, config: SimConfig) -> SimBackend {
        let sim = Arc::new(Sim::new(chip.clone(), config));
        SimBackend {
            ipc: Default::default(),
            _pacer: Sim::start_pacer(&sim),
            sim,
            chip,
            default_streams: Mutex::new(HashMap::new()),
            host_calls: Arc::default(),
            host_thread: HostThreadSlot::default(),
            channels: Mutex::new(HashMap::from([(HostCallThread::Runtime, 0)])),
        }
    }

    /// The channel of `thread`'s host calls.
    fn channel(&self, thread: HostCallThread) -> u64 {
        let mut channels = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(&ch) = channels.get(&thread) {
            return ch;
        }
        let ch = channels.len() as u64;
        channels.insert(thread, ch);
        drop(channels);
        let name = match thread {
            HostCallThread::Runtime => "the runtime's host-function thread".to_string(),
            HostCallThread::Reports(t) => format!("report thread {t}"),
            HostCallThread::HostFuncs(t) => format!("host-function thread {t}"),
        };
        self.sim.name_host_channel(ch, name);
        ch
    }

    /// Releases the functions of the host calls the simulator dropped without running (their
    /// streams aborted or stopped after a failure), so that what they own goes with them.
    fn release_dropped_host_calls(&self) {
        self.host_calls
            .forget_calls(&self.sim.take_dropped_host_calls_in(0..SERVICE_CALLS_FROM));
    }

    /// Starts the runtime's host-function thread if it is not running: it runs the host
    /// functions of channel 0 as their streams reach them, until the backend is dropped.
    fn ensure_host_thread(&self) -> BResult<()> {
        self.host_thread.ensure(|flag| {
            let (sim, table) = (self.sim.clone(), self.host_calls.clone());
            std::thread::Builder::new()
                .name("acl host functions".into())
                .spawn(move || {
                    let mut undriven = UndrivenHostCall::default();
                    // The thread's own calls (its waits, its checks, its returns) are not the
                    // program's; only the functions it runs are.
                    ascend_sim::service_thread(true);
                    while !flag.load(Ordering::Acquire) {
                        if let Some(c) = sim.wait_host_call(0, Duration::from_millis(50)) {
                            ascend_sim::service_thread(false);
                            table.run(c.call, c.repeats);
                            ascend_sim::service_thread(true);
                            sim.finish_host_call(c.task);
                        } else if let Some(text) = undriven.check(&sim, 0) {
                            ascend_types::warn_user!("{text}");
                        }
                    }
                })
                .map(drop)
                .map_err(|e| {
                    BackendError::OutOfMemory(format!("cannot start the host-function thread: {e}"))
                })
        })
    }
}

impl Drop for SimBackend {
    fn drop(&mut self) {
        self.host_thread.stop();
    }
}

/// What a simulator error says happened.
pub(crate) fn m(err: SimError) -> BackendError {
    let text = err.to_string();
    // Exhaustive: a new class of simulator error must be mapped here.
    match err.class() {
        SimErrorClass::OutOfMemory => BackendError::OutOfMemory(text),
        SimErrorClass::BadAddress => BackendError::BadAddress(text),
        SimErrorClass::QueueFull => BackendError::QueueFull(text),
        SimErrorClass::Timeout => BackendError::Timeout {
            message: text,
            stall: err.diagnosis().cloned().map(Arc::new),
        },
        SimErrorClass::Stalled => BackendError::Stalled {
            message: text,
            stall: Arc::new(err.diagnosis().cloned().unwrap_or_default()),
        },
        SimErrorClass::TaskFault => BackendError::TaskFault(text),
        SimErrorClass::TaskTimeout => BackendError::TaskTimeout(text),
        SimErrorClass::KernelFault(core) => BackendError::KernelFault {
            core,
            message: text,
        },
        SimErrorClass::UnknownHandle => BackendError::UnknownHandle(text),
        SimErrorClass::StreamDestroyed => BackendError::StreamDiscarded(text),
    }
}

impl Devices for SimBackend {
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

    fn device_call(&self, _call: DeviceCall) -> BResult<Option<i64>> {
        Ok(None)
    }

    fn synchronize_device(&self, device: u32, timeout_ms: Option<u64>) -> BResult<()> {
        let r = self.sim.synchronize_device(device, timeout_ms).map_err(m);
        self.release_dropped_host_calls();
        r
    }

    fn create_context(&self, device: u32) -> BResult<StreamId> {
        // An explicit context's default stream is a plain stream of the device.
        self.create_stream(device, 0, 0)
    }

    fn destroy_context(&self, _device: u32, default_stream: StreamId) -> BResult<()> {
        self.destroy_stream(default_stream, false)
    }
}

impl SimBackend {
    /// Destroys `event` in the simulator (the IPC bookkeeping has let it go).
    fn destroy_event_now(&self, event: EventId) -> BResult<()> {
        self.sim.destroy_event(event).map_err(m)
    }
}

impl Memory for SimBackend {
    fn malloc(&self, device: u32, bytes: u64, _policy: u32) -> BResult<u64> {
        self.sim.malloc(device, bytes).map_err(m)
    }

    fn free(&self, device: u32, addr: u64) -> BResult<()> {
        // Memory another process still has imported is freed when its last import closes.
        if self.ipc.release_memory(device, addr) {
            self.sim.free(device, addr).map_err(m)?;
        }
        Ok(())
    }

    fn malloc_host(&self, bytes: usize) -> BResult<HostBuf> {
        super::memory::new_host_buf(bytes)
    }

    fn free_host(&self, buf: &HostBuf) -> BResult<()> {
        // The buffer goes with its last clone: a copy queued on a stream may still hold one.
        // Its addresses may serve a new buffer: the race detector forgets them.
        let (addr, len) = {
            let b = buf.lock().unwrap_or_else(|p| p.into_inner());
            (b.as_ptr() as u64, b.len() as u64)
        };
        self.sim.host_memory_freed(addr, len);
        Ok(())
    }

    fn memcpy(&self, copy: SyncCopy<'_>) -> BResult<()> {
        match copy {
            SyncCopy::HostToDevice { dst, src } => self.sim.write(dst, src).map_err(m),
            SyncCopy::DeviceToHost { dst, src } => self.sim.read(src, dst).map_err(m),
            SyncCopy::DeviceToDevice { dst, src, len } => self.sim.copy(dst, src, len).map_err(m),
        }
    }

    fn memset(&self, addr: u64, value: u8, count: u64) -> BResult<()> {
        self.sim.fill(addr, value, count).map_err(m)
    }

    fn mirror_copy(&self, copy: SyncCopy<'_>) -> BResult<()> {
        ascend_sim::untracked(|| self.memcpy(copy))
    }

    fn host_access(&self, addr: u64, len: u64, write: bool) -> BResult<()> {
        self.sim.host_accessed(addr, len, write).map_err(m)
    }

    fn cmo_set_desc(&self, desc: u64, src: u64, size: u64) -> BResult<()> {
        let bytes = ascend_types::CmoDescLayout::for_size(self.chip.cmo.desc_size)
            .set_desc_bytes(src, size);
        self.sim.write(desc, &bytes).map_err(m)
    }

    crate::backend::ipc_shares::memory_ipc_by_shares!();
}

impl VirtualMemory for SimBackend {
    crate::backend::virtual_memory::virtual_memory_on_sim!(m);
}

impl Streams for SimBackend {
    fn create_stream(&self, device: u32, priority: u32, flags: u32) -> BResult<StreamId> {
        let persistent = flags & crate::raw_types::stream_flag::PERSISTENT != 0;
        self.sim
            .create_stream(device, priority, persistent)
            .map_err(m)
    }

    fn destroy_stream(&self, stream: StreamId, force: bool) -> BResult<()> {
        self.sim.destroy_stream(stream, force).map_err(m)?;
        self.host_calls.forget_stream(stream);
        self.release_dropped_host_calls();
        Ok(())
    }

    fn set_stop_on_failure(&self, stream: StreamId, _named: bool) -> BResult<()> {
        self.sim.set_stop_on_failure(stream).map_err(m)
    }

    fn abort_stream(&self, stream: StreamId) -> BResult<()> {
        let r = self.sim.abort_stream(stream).map_err(m);
        self.release_dropped_host_calls();
        r
    }

    fn stop_stream(&self, stream: StreamId) -> BResult<()> {
        self.sim
            .stop_stream(stream, "the task was stopped by aclrtStreamStop")
            .map_err(m)
    }

    fn take_task_faults(&self) -> Vec<TaskFaultInfo> {
        self.release_dropped_host_calls();
        self.sim
            .take_task_faults()
            .into_iter()
            .map(|f| TaskFaultInfo {
                task: f.task,
                stream: StreamId(f.stream),
                device: f.device,
                message: f.message,
                kernel_core: match f.class {
                    ascend_sim::FaultClass::Kernel(core) => Some(core),
                    _ => None,
                },
            })
            .collect()
    }

    fn launch(&self, stream: StreamId, task: Task) -> BResult<u64> {
        // The host pays the launch cost before the task reaches the queue.
        self.sim
            .submit_after(stream, task, self.chip.timing.host_launch_ns)
            .map(|t| t.0)
            .map_err(m)
    }

    fn synchronize_stream(&self, stream: StreamId, timeout_ms: Option<u64>) -> BResult<()> {
        let r = self.sim.synchronize_stream(stream, timeout_ms).map_err(m);
        self.release_dropped_host_calls();
        r
    }

    fn stream_idle(&self, stream: StreamId) -> BResult<bool> {
        self.sim.stream_idle(stream).map_err(m)
    }
}

impl Events for SimBackend {
    fn create_event(&self, device: u32, _flags: u32) -> BResult<EventId> {
        self.sim.create_event(device).map_err(m)
    }

    /// An IPC event another process has open goes when the last one is closed.
    fn destroy_event(&self, event: EventId) -> BResult<()> {
        if self.ipc.destroy_event(event) {
            self.destroy_event_now(event)?;
        }
        Ok(())
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

    fn create_notify(&self, device: u32, _flag: u64) -> BResult<NotifyId> {
        self.sim.create_notify(device).map_err(m)
    }

    fn destroy_notify(&self, notify: NotifyId) -> BResult<()> {
        self.sim.destroy_notify(notify).map_err(m)?;
        self.ipc.forget_notify(notify);
        Ok(())
    }

    crate::backend::ipc_shares::events_ipc_by_shares!();
}

impl Models for SimBackend {
    fn create_model(&self, device: u32) -> BResult<ModelId> {
        self.sim.create_model(device).map_err(m)
    }

    fn bind_stream(&self, model: ModelId, stream: StreamId, _flag: u32) -> BResult<()> {
        let r = self.sim.bind_stream(model, stream).map_err(m);
        self.release_dropped_host_calls();
        r
    }

    fn unbind_stream(&self, model: ModelId, stream: StreamId) -> BResult<()> {
        let r = self.sim.unbind_stream(model, stream).map_err(m);
        self.release_dropped_host_calls();
        r
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
        let r = self.sim.destroy_model(model).map_err(m);
        self.release_dropped_host_calls();
        r
    }
}

impl HostCalls for SimBackend {
    fn launch_host_call(
        &self,
        stream: StreamId,
        f: HostFn,
        thread: HostCallThread,
        blocking: bool,
    ) -> BResult<()> {
        self.release_dropped_host_calls();
        if thread == HostCallThread::Runtime {
            self.ensure_host_thread()?;
        }
        let call = self.host_calls.next.fetch_add(1, Ordering::Relaxed) + 1;
        self.host_calls.insert(call, stream, f);
        let task = HostCall {
            call,
            channel: self.channel(thread),
            blocking,
        };
        // The host pays the launch cost before the call reaches the queue, as for a task.
        let launch_ns = self.chip.timing.host_launch_ns;
        if let Err(e) = self.sim.submit_host_call_after(stream, task, launch_ns) {
            self.host_calls.forget_calls(&[call]);
            return Err(m(e));
        }
        Ok(())
    }

    fn process_host_calls(&self, thread: HostCallThread, timeout_ms: Option<u64>) -> BResult<bool> {
        let ch = self.channel(thread);
        let Some(first) = self.sim.next_host_call(ch, timeout_ms).map_err(m)? else {
            return Ok(false);
        };
        run_host_call(&self.sim, &self.host_calls, &first);
        // Then every other call already due for this thread, without waiting.
        while let Some(c) = self.sim.next_host_call(ch, Some(0)).map_err(m)? {
            run_host_call(&self.sim, &self.host_calls, &c);
        }
        Ok(true)
    }

    fn subscribe_reports(&self, thread: u64, stream: StreamId, subscribe: bool) -> BResult<()> {
        let ch = self.channel(HostCallThread::Reports(thread));
        self.sim.set_host_channel_serves(ch, stream, subscribe);
        Ok(())
    }
}

impl Inspect for SimBackend {
    fn device_window(&self) -> Option<Range<u64>> {
        Some(self.sim.device_window())
    }

    fn explain_device_address(&self, addr: u64) -> Option<String> {
        self.sim.check_range(addr, 1).err().map(|e| e.to_string())
    }

    fn runs_sim_kernels(&self) -> bool {
        true
    }

    fn simulator(&self) -> Option<&Sim> {
        Some(&self.sim)
    }
}
