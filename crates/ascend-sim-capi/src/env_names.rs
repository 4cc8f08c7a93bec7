//! The names of the environment variables the library and the `ascend-sim` command read, each
//! written once here. What each accepts is in `settings` (the library's own settings) and in
//! the README (the run report, the trace, the progress file, kernel libraries).

/// The SoC to simulate (a built-in name).
pub const SOC: &str = "ASCEND_SIM_SOC";
/// A chip file of one's own (TOML); wins over [`SOC`].
pub const CHIP_FILE: &str = "ASCEND_SIM_CHIP_FILE";
/// What a host thread waiting on a stalled device does: `wait` or `error`.
pub const ON_STALL: &str = "ASCEND_SIM_ON_STALL";
/// The watchdog's grace, in ms.
pub const WATCHDOG_MS: &str = "ASCEND_SIM_WATCHDOG_MS";
/// The `tracing` filter of the library's log.
pub const LOG: &str = "ASCEND_SIM_LOG";
/// How the host clock advances: `calls`, `wall` or `wall:RATIO`.
pub const PACING: &str = "ASCEND_SIM_PACING";
/// The stack of each kernel block.
pub const KERNEL_STACK: &str = "ASCEND_SIM_KERNEL_STACK";
/// What each hazard class does: `ignore`, `record` or `fail`.
pub const HAZARDS: &str = "ASCEND_SIM_HAZARDS";
/// Happens-before race detection: `on` or `off`.
pub const RACES: &str = "ASCEND_SIM_RACES";
/// Whether each task's call site in the program is noted for the simulator's words: `on` or
/// `off`.
pub const CALL_SITES: &str = "ASCEND_SIM_CALL_SITES";
/// Which of CANN's two descriptions calls are checked against: `code` or `documented`.
pub const RULES: &str = "ASCEND_SIM_RULES";
/// A seeded schedule (schedule exploration): a whole number.
pub const SCHEDULE_SEED: &str = "ASCEND_SIM_SCHEDULE_SEED";
/// Where the run report is written at exit.
pub const REPORT: &str = "ASCEND_SIM_REPORT";
/// Where the trace (Chrome trace format) is written at exit.
pub const TRACE: &str = "ASCEND_SIM_TRACE";
/// Where the progress file is rewritten while the program runs.
pub const PROGRESS: &str = "ASCEND_SIM_PROGRESS";
/// Shared libraries of simulator kernels for binaries loaded by name.
pub const KERNELS: &str = "ASCEND_SIM_KERNELS";
/// Where the `ascend-sim` command finds `libascendcl.so`.
pub const LIB_DIR: &str = "ASCEND_SIM_LIB_DIR";
/// The socket of a shared device service (`ascend-sim device`) to use instead of a simulator
/// of the process's own.
pub const DEVICE: &str = "ASCEND_SIM_DEVICE";
/// The `ascend-sim` command that starts a shared device service on demand.
pub const BIN: &str = "ASCEND_SIM_BIN";
