//! [`SimView`]: read-only inspection of the simulator behind a [`Runtime`](super::Runtime):
//! its run report, timeline, watchdog diagnosis, settings and memory footprint. Nothing here
//! changes the simulated device, so nothing here can bypass the front end's validation.

use ascend_sim::{Diagnosis, RunReport, Sim, SimConfig};

/// A read-only view of the simulator behind a runtime (see
/// [`Runtime::sim_view`](super::Runtime::sim_view)).
#[derive(Debug, Clone, Copy)]
pub struct SimView<'a> {
    sim: &'a Sim,
}

impl<'a> SimView<'a> {
    pub(super) fn new(sim: &'a Sim) -> SimView<'a> {
        SimView { sim }
    }

    /// The run report so far: per-stream times, engine use, value waits, faults.
    pub fn report(&self) -> RunReport {
        self.sim.report()
    }

    /// The run report as JSON.
    pub fn report_json(&self) -> String {
        self.sim.report_json()
    }

    /// The timeline as a Chrome trace (JSON; open it in Perfetto).
    pub fn trace_json(&self) -> String {
        self.sim.trace_json()
    }

    /// Why the device cannot progress, when some stream is blocked with nothing able to
    /// release it (the watchdog's explanation).
    pub fn diagnose(&self) -> Option<Diagnosis> {
        self.sim.diagnose()
    }

    /// The simulator's settings.
    pub fn config(&self) -> &'a SimConfig {
        self.sim.config()
    }

    /// How far the run has got (tasks completed, simulated time reached), readable from any
    /// thread at any time.
    pub fn progress(&self) -> std::sync::Arc<ascend_sim::RunProgress> {
        self.sim.progress()
    }

    /// The simulated host clock, in ns.
    pub fn now_ns(&self) -> u64 {
        self.sim.now_ns()
    }

    /// A host API call named `name` starts on this thread: the host track of the report and
    /// the trace shows it from now to [`SimView::host_call_end`] (the C library brackets every
    /// entry point so).
    pub fn host_call_begin(&self, name: &'static str) {
        self.sim.host_call_begin(name);
    }

    /// [`SimView::host_call_begin`], with the call's arguments as text.
    pub fn host_call_begin_with(&self, name: &'static str, args: String) {
        self.sim.host_call_begin_with(name, args);
    }

    /// The innermost call begun on this thread returns `code`.
    pub fn host_call_end(&self, code: i32) {
        self.sim.host_call_end(code);
    }

    /// The address window of all devices' memory (no host memory lies in it).
    pub fn device_window(&self) -> std::ops::Range<u64> {
        self.sim.device_window()
    }

    /// True when `v` has the shape of a handle this runtime hands out (a stream, an event, a
    /// context, ...), as opposed to a host or device address.
    pub fn has_handle_shape(&self, v: u64) -> bool {
        super::state::has_handle_shape(v)
    }

    /// Bytes of host memory backing the simulated device memory.
    pub fn backing_bytes(&self) -> u64 {
        self.sim.backing_bytes()
    }
}
