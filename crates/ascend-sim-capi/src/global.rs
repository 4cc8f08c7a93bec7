//! The process-wide runtime the C API works on, created on first use from the environment,
//! and the run report written at `aclFinalize` or at exit.

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use ascend_rt::Runtime;
use ascend_sim::{OnStall, SimConfig};

static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();
static REPORT_WRITTEN: Mutex<bool> = Mutex::new(false);

fn config_from_env() -> SimConfig {
    let mut cfg = SimConfig::default();
    if let Ok(v) = std::env::var("ASCEND_SIM_ON_STALL") {
        cfg.on_stall = if v.eq_ignore_ascii_case("error") {
            OnStall::Error
        } else {
            OnStall::Wait
        };
    }
    if let Some(ms) = std::env::var("ASCEND_SIM_WATCHDOG_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        cfg.watchdog_grace = Duration::from_millis(ms);
    }
    cfg
}

extern "C" fn write_report_at_exit() {
    write_report();
}

/// Sends the simulator's logs (the watchdog's diagnosis among them) to standard error, at the
/// level `ASCEND_SIM_LOG` names (`warn` by default), unless the host program installed its own
/// logger.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("ASCEND_SIM_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}

/// The process's runtime (or why it could not be created).
pub fn runtime() -> Result<&'static Runtime, &'static str> {
    RUNTIME
        .get_or_init(|| {
            init_logging();
            let soc = std::env::var("ASCEND_SIM_SOC")
                .unwrap_or_else(|_| ascend_chips::BUILTIN_DEFAULT.to_string());
            let rt = Runtime::sim_with(&soc, config_from_env())
                .map_err(|e| format!("ASCEND_SIM_SOC={soc}: {e}"))?;
            if std::env::var_os("ASCEND_SIM_REPORT").is_some()
                || std::env::var_os("ASCEND_SIM_TRACE").is_some()
            {
                // SAFETY: registering a plain extern "C" function with no captured state.
                unsafe { libc::atexit(write_report_at_exit) };
            }
            Ok(rt)
        })
        .as_ref()
        .map_err(|s| s.as_str())
}

/// Makes one of the files written at the end: its JSON text, if the backend has it.
type Output = fn(&Runtime) -> Option<String>;

/// Writes the run report to `ASCEND_SIM_REPORT` and the Chrome trace to `ASCEND_SIM_TRACE`
/// (each only if set), once.
pub fn write_report() {
    let mut written = REPORT_WRITTEN.lock().unwrap_or_else(|p| p.into_inner());
    if *written {
        return;
    }
    let Some(Ok(rt)) = RUNTIME.get() else {
        return;
    };
    let outputs: [(&str, &str, Output); 2] = [
        ("ASCEND_SIM_REPORT", "run report", Runtime::report_json),
        ("ASCEND_SIM_TRACE", "trace", Runtime::trace_json),
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
    *written = true;
}
