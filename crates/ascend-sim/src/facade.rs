//! [`Sim`]: the thread-safe, host-facing handle of the simulator.

use ascend_chips::ChipProfile;

use crate::types::*;

/// One simulated host with its devices (all of one SoC). Cheap to share (`Arc<Sim>`); every
/// method may be called from any host thread.
#[derive(Debug)]
pub struct Sim {
    _private: (),
}

impl Sim {
    /// A simulator of `chip` with `chip.limits.device_count` devices.
    pub fn new(chip: ChipProfile, config: SimConfig) -> Sim {
        let _ = (chip, config);
        todo!()
    }

    /// The chip being simulated.
    pub fn chip(&self) -> &ChipProfile {
        todo!()
    }

    /// The simulated host clock, in ns.
    pub fn now_ns(&self) -> u64 {
        todo!()
    }

    /// Charges `ns` of simulated host time for host-side work (an API call's own cost).
    pub fn charge_host(&self, ns: u64) {
        let _ = ns;
        todo!()
    }

    // ----- memory -----

    /// Allocates `bytes` of device memory on `device`, aligned to the chip's base alignment;
    /// the bytes are filled with the poison byte and tracked as never written.
    pub fn malloc(&self, device: u32, bytes: u64) -> Result<DevAddr, SimError> {
        let _ = (device, bytes);
        todo!()
    }

    /// Frees an allocation by its base address.
    pub fn free(&self, device: u32, addr: DevAddr) -> Result<(), SimError> {
        let _ = (device, addr);
        todo!()
    }

    /// Synchronous host read of device memory (no stream ordering), bounds-checked.
    pub fn read(&self, addr: DevAddr, out: &mut [u8]) -> Result<(), SimError> {
        let _ = (addr, out);
        todo!()
    }

    /// Synchronous host write of device memory (no stream ordering), bounds-checked.
    pub fn write(&self, addr: DevAddr, data: &[u8]) -> Result<(), SimError> {
        let _ = (addr, data);
        todo!()
    }

    /// Synchronous fill of device memory.
    pub fn fill(&self, addr: DevAddr, value: u8, len: u64) -> Result<(), SimError> {
        let _ = (addr, value, len);
        todo!()
    }

    /// Synchronous device-to-device copy (overlap allowed, behaves as memmove).
    pub fn copy(&self, dst: DevAddr, src: DevAddr, len: u64) -> Result<(), SimError> {
        let _ = (dst, src, len);
        todo!()
    }

    // ----- streams -----

    /// Creates a stream on `device`. `persistent` streams only record tasks while bound to a
    /// model and run them when the model executes.
    pub fn create_stream(
        &self,
        device: u32,
        priority: u32,
        persistent: bool,
    ) -> Result<StreamId, SimError> {
        let _ = (device, priority, persistent);
        todo!()
    }

    /// Destroys a stream; without `force`, first waits for its queued tasks.
    pub fn destroy_stream(&self, stream: StreamId, force: bool) -> Result<(), SimError> {
        let _ = (stream, force);
        todo!()
    }

    /// Enqueues a task. On a model-bound stream the task is recorded into the model instead.
    /// A plain stream whose queue is full blocks the calling host thread until slots free up.
    pub fn submit(&self, stream: StreamId, task: TaskKind) -> Result<TaskId, SimError> {
        let _ = (stream, task);
        todo!()
    }

    /// Blocks until every task submitted to `stream` so far has completed; `timeout_ms`
    /// (`None` = forever) is simulated time. A fault of a task is returned here.
    pub fn synchronize_stream(
        &self,
        stream: StreamId,
        timeout_ms: Option<u64>,
    ) -> Result<(), SimError> {
        let _ = (stream, timeout_ms);
        todo!()
    }

    /// True when every task submitted to `stream` so far has completed (advances the device
    /// to the current host time first).
    pub fn stream_idle(&self, stream: StreamId) -> Result<bool, SimError> {
        let _ = stream;
        todo!()
    }

    /// Blocks until every stream of `device` is idle.
    pub fn synchronize_device(&self, device: u32, timeout_ms: Option<u64>) -> Result<(), SimError> {
        let _ = (device, timeout_ms);
        todo!()
    }

    // ----- events -----

    /// Creates an event (not recorded).
    pub fn create_event(&self, device: u32) -> Result<EventId, SimError> {
        let _ = device;
        todo!()
    }

    /// Destroys an event (pending records complete without it).
    pub fn destroy_event(&self, event: EventId) -> Result<(), SimError> {
        let _ = event;
        todo!()
    }

    /// True when the event's latest record has executed (false if never recorded).
    pub fn event_complete(&self, event: EventId) -> Result<bool, SimError> {
        let _ = event;
        todo!()
    }

    /// Blocks until the event's latest record has executed (at once if never recorded).
    pub fn synchronize_event(
        &self,
        event: EventId,
        timeout_ms: Option<u64>,
    ) -> Result<(), SimError> {
        let _ = (event, timeout_ms);
        todo!()
    }

    /// The simulated time (ns) at which the event's latest record executed, if it has.
    pub fn event_time_ns(&self, event: EventId) -> Result<Option<u64>, SimError> {
        let _ = event;
        todo!()
    }

    // ----- model running instances -----

    /// Creates an empty model running instance on `device`.
    pub fn create_model(&self, device: u32) -> Result<ModelId, SimError> {
        let _ = device;
        todo!()
    }

    /// Binds a persistent stream: later submissions to it are recorded into the model.
    pub fn bind_stream(&self, model: ModelId, stream: StreamId) -> Result<(), SimError> {
        let _ = (model, stream);
        todo!()
    }

    /// Unbinds a stream; its recorded tasks are dropped from the model.
    pub fn unbind_stream(&self, model: ModelId, stream: StreamId) -> Result<(), SimError> {
        let _ = (model, stream);
        todo!()
    }

    /// Runs every recorded task of the model's streams once (each stream in order, streams
    /// concurrently) and blocks until all complete; repeatable.
    pub fn execute_model(&self, model: ModelId, timeout_ms: Option<u64>) -> Result<(), SimError> {
        let _ = (model, timeout_ms);
        todo!()
    }

    /// Enqueues one run of the model on `stream`: later tasks of `stream` start after it.
    pub fn execute_model_async(&self, model: ModelId, stream: StreamId) -> Result<(), SimError> {
        let _ = (model, stream);
        todo!()
    }

    /// Destroys a model (its barrier-id map goes with it).
    pub fn destroy_model(&self, model: ModelId) -> Result<(), SimError> {
        let _ = model;
        todo!()
    }

    // ----- reports -----

    /// Why the device cannot progress, if some stream is blocked with nothing able to release it.
    pub fn diagnose(&self) -> Option<Diagnosis> {
        todo!()
    }

    /// The run report as JSON.
    pub fn report_json(&self) -> String {
        todo!()
    }
}
