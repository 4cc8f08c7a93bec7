//! The process-wide runtime the C API works on, created on first use from the environment,
//! and the run report written at every `aclFinalize` and at exit.

use std::sync::{Mutex, OnceLock};

use ascend_rt::Runtime;

use crate::settings::Settings;

static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();
/// Serialises writers of the report files (a finalize on one thread, exit on another).
static REPORT_WRITER: Mutex<()> = Mutex::new(());

extern "C" fn at_exit() {
    write_report();
    crate::progress_file::write_last();
}

/// Sends the simulator's logs (the watchdog's diagnosis among them) to standard error, at the
/// level `ASCEND_SIM_LOG` names (`warn` by default), unless the host program installed its own
/// logger.
fn init_logging() -> Result<(), String> {
    let filter = Settings::log_filter()?;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
    Ok(())
}

/// True when a run report or a trace will be written (`ASCEND_SIM_REPORT`, `ASCEND_SIM_TRACE`):
/// only then does the library keep the host track of every call.
pub fn host_track_wanted() -> bool {
    static WANTED: OnceLock<bool> = OnceLock::new();
    *WANTED.get_or_init(|| {
        std::env::var_os(crate::env_names::REPORT).is_some()
            || std::env::var_os(crate::env_names::TRACE).is_some()
    })
}

/// Creates the runtime the environment describes.
fn start() -> Result<Runtime, String> {
    init_logging()?;
    let settings = Settings::from_env()?;
    if let Some(socket) = std::env::var_os(crate::env_names::DEVICE).filter(|s| !s.is_empty()) {
        // The device is the shared service's: its settings are the service's own. The first
        // program that needs it starts it, for its SoC.
        crate::on_demand::ensure_service(std::path::Path::new(&socket), &settings.chip.soc_name)?;
        return Runtime::shared_device(&socket)
            .map(|rt| rt.with_options(settings.options))
            .map_err(|e| e.to_string());
    }
    let rt = Runtime::sim_with_chip(settings.chip, settings.config).with_options(settings.options);
    if let Some(view) = rt.sim_view() {
        crate::progress_file::start(view.progress());
        crate::fatal_signal::install(view.progress());
    }
    if std::env::var_os(crate::env_names::REPORT).is_some()
        || std::env::var_os(crate::env_names::TRACE).is_some()
        || crate::progress_file::wanted()
    {
        // SAFETY: registering a plain extern "C" function with no captured state.
        unsafe { libc::atexit(at_exit) };
    }
    Ok(rt)
}

/// The process's runtime, or why it could not be created. A configuration error is said on
/// standard error once, whatever logger the program has, and every call then returns
/// `ACL_ERROR_INTERNAL_ERROR` (500000) with the same text from `aclGetRecentErrMsg`.
pub fn runtime() -> Result<&'static Runtime, &'static str> {
    RUNTIME
        .get_or_init(|| {
            start().map_err(|e| {
                let text = format!("ascend-sim: the simulator cannot start: {e}");
                eprintln!("{text}");
                text
            })
        })
        .as_ref()
        .map_err(|s| s.as_str())
}

/// Makes one of the files written at the end: its JSON text, if the backend has it.
type Output = fn(&Runtime) -> Option<String>;

/// The run report, with the failures the program received.
fn report_with_api_errors(rt: &Runtime) -> Option<String> {
    let mut report = rt.sim_view()?.report();
    report.api_errors = Some(crate::api_errors::received());
    Some(
        serde_json::to_string_pretty(&report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}")),
    )
}

/// Writes the run report to `ASCEND_SIM_REPORT` and the Chrome trace to `ASCEND_SIM_TRACE`
/// (each only if set), with everything simulated so far. `aclFinalize` releases nothing and a
/// program may go on after it, so the files are written at every `aclFinalize` and again at
/// exit, each time complete.
pub fn write_report() {
    let _writer = REPORT_WRITER.lock().unwrap_or_else(|p| p.into_inner());
    let Some(Ok(rt)) = RUNTIME.get() else {
        return;
    };
    let outputs: [(&str, &str, Output); 2] = [
        (
            crate::env_names::REPORT,
            "run report",
            report_with_api_errors,
        ),
        (crate::env_names::TRACE, "trace", Runtime::trace_json),
    ];
    for (var, what, make) in outputs {
        let Some(path) = std::env::var_os(var) else {
            continue;
        };
        if let Some(json) = make(rt) {
            if let Err(e) = std::fs::write(&path, json) {
                tracing::error!("cannot write the {what} to {path:?}: {e}");
            }
        }
    }
}
