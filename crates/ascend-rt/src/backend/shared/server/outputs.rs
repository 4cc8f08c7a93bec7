//! The files a service writes as its processes go: the run report and the trace of every
//! process that used the device so far.

use super::DeviceService;

/// The files a service writes each time a process has gone: the run report and the trace of
/// every process that used the device so far, one file each.
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    /// Where the run report goes (JSON, as `ASCEND_SIM_REPORT`).
    pub report: Option<std::path::PathBuf>,
    /// Where the trace goes (Chrome trace, as `ASCEND_SIM_TRACE`): a track group per process.
    pub trace: Option<std::path::PathBuf>,
}

impl DeviceService {
    /// Writes the run report and trace of every process so far where `outputs` asks for
    /// them (nothing is made for a file not asked for).
    pub fn write_outputs(&self) {
        let Some(sim) = self.backend.simulator() else {
            return;
        };
        type Make = fn(&ascend_sim::Sim) -> String;
        let files: [(&Option<std::path::PathBuf>, &str, Make); 2] = [
            (
                &self.outputs.report,
                "run report",
                ascend_sim::Sim::report_json,
            ),
            (&self.outputs.trace, "trace", ascend_sim::Sim::trace_json),
        ];
        for (path, what, make) in files {
            if let Some(path) = path {
                if let Err(e) = std::fs::write(path, make(sim)) {
                    ascend_types::warn_user!(
                        "device service: cannot write the {what} to {path:?}: {e}"
                    );
                }
            }
        }
    }
}
