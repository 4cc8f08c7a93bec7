//! [`Sim`]'s reports: the stall diagnosis, the run report (as a value and as JSON) and the
//! timeline as a Chrome trace.

use super::Sim;
use crate::report::RunReport;
use crate::types::*;

impl Sim {
    /// Why the device cannot progress, if some stream is blocked with nothing able to release it.
    pub fn diagnose(&self) -> Option<Diagnosis> {
        self.lock().diagnose()
    }

    /// The run report.
    pub fn report(&self) -> RunReport {
        let mut report = self.lock().build_report();
        let log = self.host_log().lock().unwrap_or_else(|p| p.into_inner());
        let (calls, dropped) = log.calls();
        report.host_calls = crate::report::Bounded::new(calls, dropped);
        report.host_threads = log.threads();
        report
    }

    /// The run report as JSON.
    pub fn report_json(&self) -> String {
        serde_json::to_string_pretty(&self.report())
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The timeline as a Chrome trace (JSON), which Perfetto opens.
    pub fn trace_json(&self) -> String {
        crate::trace::chrome_trace(&self.report())
    }
}
